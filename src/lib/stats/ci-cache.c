/* The p-value cache of a test object: open addressing on a 64-bit hash of the key words
 * (min(x, y), max(x, y), sorted S), keys kept in one growing arena. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* One slot of the table. */
struct ci_slot {
	uint64_t hash;      /* hash of the key; the slot is empty when key == 0 */
	size_t key;         /* 1 + offset of the key in the arena (0: empty) */
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

/* True when the slot holds exactly this key. */
static bool slot_is(const ci_cache *c, const struct ci_slot *s, uint64_t h,
                    const uint32_t *key, size_t nk)
{
	const uint32_t *k = c->arena + (s->key - 1);

	return s->hash == h && k[0] == nk && memcmp(k + 1, key, nk * sizeof *key) == 0;
}

/* Look up a key. */
bool ci_cache_find(const ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                   fb_ci_result *out)
{
	size_t i;

	if (c->cap == 0)
		return false;
	for (i = h & (c->cap - 1); c->slot[i].key != 0; i = (i + 1) & (c->cap - 1)) {
		const struct ci_slot *s = &c->slot[i];

		if (slot_is(c, s, h, key, nk)) {
			out->p = s->p;
			out->stat = s->stat;
			out->df = s->df;
			out->r = s->r;
			out->flags = s->flags;
			return true;
		}
	}
	return false;
}

/* Double the table (or make the first one); FB_ERR when out of memory. */
static int cache_grow(ci_cache *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024;
	struct ci_slot *slot = calloc(cap, sizeof *slot);

	if (slot == NULL)
		return FB_ERR;
	for (size_t k = 0; k < c->cap; k++) {
		size_t i;

		if (c->slot[k].key == 0)
			continue;
		for (i = c->slot[k].hash & (cap - 1); slot[i].key != 0; i = (i + 1) & (cap - 1))
			;
		slot[i] = c->slot[k];
	}
	free(c->slot);
	c->slot = slot;
	c->cap = cap;
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
	struct ci_slot *s;
	size_t i, off;

	if ((c->used + 1) * 4 > c->cap * 3 && cache_grow(c) != FB_OK)
		return FB_ERR;
	if ((off = arena_add(c, key, nk)) == 0)
		return FB_ERR;
	for (i = h & (c->cap - 1); c->slot[i].key != 0; i = (i + 1) & (c->cap - 1))
		;
	s = &c->slot[i];
	s->hash = h;
	s->key = off;
	s->p = res->p;
	s->stat = res->stat;
	s->df = res->df;
	s->r = res->r;
	s->flags = res->flags & ~(unsigned)FB_CI_CACHED;
	c->used++;
	return FB_OK;
}

/* Free the cache. */
void ci_cache_release(ci_cache *c)
{
	free(c->slot);
	free(c->arena);
	memset(c, 0, sizeof *c);
}
