/* The p-value cache of a test object: the answers kept in order in one growing array, found
 * by open addressing on a 64-bit hash of the key words (min(x, y), max(x, y), sorted S), keys
 * kept in one growing arena.  Growing the table sets 8-byte slots anew; the answers and keys
 * grow by realloc, which keeps their pages (a large block is remapped, not copied). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* One kept answer. */
struct ci_entry {
	uint64_t hash;      /* hash of the key */
	size_t key;         /* 1 + offset of the key in the arena */
	double p, stat, df, r; /* the answer */
	unsigned flags;     /* the answer's flags (without FB_CI_CACHED) */
};

/* Mix 64 bits (splitmix64's finaliser). */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Hash of a key of nk words. */
uint64_t ci_cache_hash(const uint32_t *key, size_t nk)
{
	uint64_t h = mix64((uint64_t)nk + UINT64_C(0x9e3779b97f4a7c15));

	for (size_t i = 0; i < nk; i++)
		h = mix64(h ^ ((uint64_t)key[i] + UINT64_C(0x9e3779b97f4a7c15) * (i + 1)));
	return h;
}

/* True when the entry holds exactly this key. */
static bool entry_is(const ci_cache *c, const struct ci_entry *e, uint64_t h,
                     const uint32_t *key, size_t nk)
{
	const uint32_t *k = c->arena + (e->key - 1);

	return e->hash == h && k[0] == nk && memcmp(k + 1, key, nk * sizeof *key) == 0;
}

/* Look up a key. */
bool ci_cache_find(const ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                   fb_ci_result *out)
{
	uint64_t v;

	if (c->cap == 0)
		return false;
	for (size_t i = h & (c->cap - 1); (v = c->slot[i]) != 0; i = (i + 1) & (c->cap - 1)) {
		const struct ci_entry *e = &c->ent[(uint32_t)v - 1];

		if ((v >> 32) == (h >> 32) && entry_is(c, e, h, key, nk)) {
			out->p = e->p;
			out->stat = e->stat;
			out->df = e->df;
			out->r = e->r;
			out->flags = e->flags;
			return true;
		}
	}
	return false;
}

/* Note answer number k (hash h) in the first free slot of its probe. */
static void slot_set(uint64_t *slot, size_t cap, uint64_t h, size_t k)
{
	size_t i;

	for (i = h & (cap - 1); slot[i] != 0; i = (i + 1) & (cap - 1))
		;
	slot[i] = (h >> 32 << 32) | (uint64_t)(k + 1);
}

/* Double the table (or make the first one), its slots set anew from the answers (which stay
 * where they are); FB_ERR when out of memory. */
static int cache_grow(ci_cache *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024;
	uint64_t *slot = calloc(cap, sizeof *slot);

	if (slot == NULL)
		return FB_ERR;
	for (size_t k = 0; k < c->used; k++)
		slot_set(slot, cap, c->ent[k].hash, k);
	free(c->slot);
	c->slot = slot;
	c->cap = cap;
	return FB_OK;
}

/* Room for one more answer (realloc keeps the others' pages: no copy of a large block);
 * FB_ERR when out of memory or past the numbers a slot holds. */
static int entries_room(ci_cache *c)
{
	size_t cap = c->ecap ? 2 * c->ecap : 1024;
	struct ci_entry *e;

	if (c->used < c->ecap)
		return FB_OK;
	if (c->used >= UINT32_MAX - 1 || (e = realloc(c->ent, cap * sizeof *e)) == NULL)
		return FB_ERR;
	c->ent = e;
	c->ecap = cap;
	return FB_OK;
}

/* Append a key to the arena; its 1-based offset, or 0 when out of memory. */
static size_t arena_add(ci_cache *c, const uint32_t *key, size_t nk)
{
	size_t off;

	if (c->alen + nk + 1 > c->acap) {
		size_t cap = c->acap ? 2 * c->acap : 4096;
		uint32_t *a;

		while (cap < c->alen + nk + 1)
			cap *= 2;
		if ((a = realloc(c->arena, cap * sizeof *a)) == NULL)
			return 0;
		c->arena = a;
		c->acap = cap;
	}
	off = c->alen;
	c->arena[off] = (uint32_t)nk;
	memcpy(c->arena + off + 1, key, nk * sizeof *key);
	c->alen += nk + 1;
	return off + 1;
}

/* Remember an answer (the key must not be present yet). */
int ci_cache_put(ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                 const fb_ci_result *res)
{
	struct ci_entry *e;
	size_t off;

	if ((c->used + 1) * 4 > c->cap * 3 && cache_grow(c) != FB_OK)
		return FB_ERR;
	if (entries_room(c) != FB_OK || (off = arena_add(c, key, nk)) == 0)
		return FB_ERR;
	e = &c->ent[c->used];
	e->hash = h;
	e->key = off;
	e->p = res->p;
	e->stat = res->stat;
	e->df = res->df;
	e->r = res->r;
	e->flags = res->flags & ~(unsigned)FB_CI_CACHED;
	slot_set(c->slot, c->cap, h, c->used);
	c->used++;
	return FB_OK;
}

/* Free the cache. */
void ci_cache_release(ci_cache *c)
{
	free(c->slot);
	free(c->ent);
	free(c->arena);
	memset(c, 0, sizeof *c);
}
