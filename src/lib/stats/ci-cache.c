/* The p-value cache of a test object: the answers kept in order in blocks that never move,
 * found by open addressing on a 64-bit hash of the key words (min(x, y), max(x, y), sorted
 * S), keys kept in one growing arena.  A slot holds the hash's high 32 bits, which place it,
 * and the answer's number: growing the table sets its 8-byte slots anew from the old ones
 * alone, and no answer is copied.  ci_cache_reset forgets the answers but keeps all this
 * memory, so that the next ones touch no fresh page. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Answers per block (a power of two: 2^CI_BLOCK_BITS). */
#define CI_BLOCK_BITS 12
#define CI_BLOCK ((size_t)1 << CI_BLOCK_BITS)
/* Most answers kept (the table's slots are placed by 32 bits of the hash). */
#define CI_MOST ((size_t)1 << 30)

/* One kept answer (40 bytes). */
struct ci_entry {
	uint32_t key;       /* 1 + offset of the key in the arena */
	uint32_t flags;     /* the answer's flags (without FB_CI_CACHED) */
	double p, stat, df, r; /* the answer */
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

/* Answer number k. */
static struct ci_entry *entry_at(const ci_cache *c, size_t k)
{
	return &c->blk[k >> CI_BLOCK_BITS][k & (CI_BLOCK - 1)];
}

/* True when the entry holds exactly this key. */
static bool entry_is(const ci_cache *c, const struct ci_entry *e, const uint32_t *key,
                     size_t nk)
{
	const uint32_t *k = c->arena + (e->key - 1);

	return k[0] == nk && memcmp(k + 1, key, nk * sizeof *key) == 0;
}

/* Look up a key. */
bool ci_cache_find(const ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                   fb_ci_result *out)
{
	uint64_t v, tag = h >> 32;

	if (c->cap == 0)
		return false;
	for (size_t i = tag & (c->cap - 1); (v = c->slot[i]) != 0; i = (i + 1) & (c->cap - 1)) {
		const struct ci_entry *e;

		if (v >> 32 != tag || !entry_is(c, e = entry_at(c, (uint32_t)v - 1), key, nk))
			continue;
		out->p = e->p;
		out->stat = e->stat;
		out->df = e->df;
		out->r = e->r;
		out->flags = e->flags;
		return true;
	}
	return false;
}

/* Put slot value v (tag over 1 + answer number) in the first free slot of its probe. */
static void slot_set(uint64_t *slot, size_t cap, uint64_t v)
{
	size_t i;

	for (i = (v >> 32) & (cap - 1); slot[i] != 0; i = (i + 1) & (cap - 1))
		;
	slot[i] = v;
}

/* Double the table (or make the first one), its slots placed anew; FB_ERR when out of
 * memory. */
static int cache_grow(ci_cache *c)
{
	size_t cap = c->cap ? 2 * c->cap : 1024;
	uint64_t *slot = calloc(cap, sizeof *slot);

	if (slot == NULL)
		return FB_ERR;
	for (size_t k = 0; k < c->cap; k++)
		if (c->slot[k] != 0)
			slot_set(slot, cap, c->slot[k]);
	free(c->slot);
	c->slot = slot;
	c->cap = cap;
	return FB_OK;
}

/* Room for one more answer: a new block when the last is full (kept blocks are reused);
 * FB_ERR when out of memory or past CI_MOST answers. */
static int entries_room(ci_cache *c)
{
	struct ci_entry **blk;

	if (c->used < c->nblk * CI_BLOCK)
		return FB_OK;
	if (c->used >= CI_MOST)
		return FB_ERR;
	if ((blk = realloc(c->blk, (c->nblk + 1) * sizeof *blk)) == NULL)
		return FB_ERR;
	c->blk = blk;
	if ((blk[c->nblk] = malloc(CI_BLOCK * sizeof **blk)) == NULL)
		return FB_ERR;
	c->nblk++;
	return FB_OK;
}

/* Append a key to the arena; its 1-based offset, or 0 when out of memory (or past the
 * offsets an answer holds). */
static size_t arena_add(ci_cache *c, const uint32_t *key, size_t nk)
{
	size_t off;

	if (c->alen + nk + 1 >= UINT32_MAX)
		return 0;
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
	e = entry_at(c, c->used);
	e->key = (uint32_t)off;
	e->flags = res->flags & ~(unsigned)FB_CI_CACHED;
	e->p = res->p;
	e->stat = res->stat;
	e->df = res->df;
	e->r = res->r;
	slot_set(c->slot, c->cap, (h >> 32 << 32) | (uint64_t)(c->used + 1));
	c->used++;
	return FB_OK;
}

/* Forget every answer but keep the memory, for as many again without a fresh page. */
void ci_cache_reset(ci_cache *c)
{
	if (c->slot != NULL)
		memset(c->slot, 0, c->cap * sizeof *c->slot);
	c->used = 0;
	c->alen = 0;
}

/* Free the cache. */
void ci_cache_release(ci_cache *c)
{
	for (size_t b = 0; b < c->nblk; b++)
		free(c->blk[b]);
	free(c->blk);
	free(c->slot);
	free(c->arena);
	memset(c, 0, sizeof *c);
}
