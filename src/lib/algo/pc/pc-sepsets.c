/* Separating sets of the unordered pairs: one bit per pair says whether its set is defined,
 * and the pairs whose set has members are found by a hash of their index, each with an
 * (offset, length) into a shared arena of sorted members; a union writes the merged set at
 * the end of the arena.  Most removed pairs go given the empty set (PC's level 0), so that
 * they cost their bit alone: d = 10,000 takes 6 MB where one reference a pair took 400 MB. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/pc.h"

/* Where one pair's members live. */
typedef struct sep_ref {
	uint32_t off; /* first member in the arena */
	uint32_t len; /* number of members (0: the empty set) */
} sep_ref;

/* The separating sets. */
struct fb_sepsets {
	size_t d;          /* variables */
	uint64_t *has;     /* d (d - 1) / 2 bits, pairs i < j row by row: the set is defined */
	uint64_t *key;     /* cap slots: 1 + the pair's index, 0 for a free slot */
	sep_ref *ref;      /* cap slots: the pair's members */
	size_t cap, used;  /* slots (a power of two, or 0) and those taken */
	uint32_t *arena;   /* members of every set */
	size_t alen, acap; /* used and allocated */
	size_t *tmp;       /* d: scratch for unions */
};

/* Index of the pair {i, j} (i != j). */
static size_t pair_index(const fb_sepsets *s, size_t i, size_t j)
{
	size_t a = i < j ? i : j, b = i < j ? j : i;

	return a * (2 * s->d - a - 1) / 2 + (b - a - 1);
}

/* Empty separating sets. */
fb_sepsets *fb_sepsets_alloc(size_t d)
{
	fb_sepsets *s = fb_xcalloc(1, sizeof *s);
	size_t np = d > 1 ? d * (d - 1) / 2 : 1;

	s->d = d;
	s->has = fb_xcalloc((np + 63) / 64, sizeof *s->has);
	s->tmp = fb_xmalloc((d > 0 ? d : 1) * sizeof *s->tmp);
	return s;
}

/* Free the sets. */
void fb_sepsets_free(fb_sepsets *s)
{
	if (s == NULL)
		return;
	free(s->has);
	free(s->key);
	free(s->ref);
	free(s->arena);
	free(s->tmp);
	free(s);
}

/* The first slot to look at for pair index p. */
static size_t slot_home(const fb_sepsets *s, size_t p)
{
	uint64_t h = (uint64_t)p * 0x9E3779B97F4A7C15ull;

	return (size_t)(h ^ (h >> 29)) & (s->cap - 1);
}

/* The members of pair index p, or NULL when it has none stored. */
static sep_ref *slot_find(const fb_sepsets *s, size_t p)
{
	if (s->cap == 0)
		return NULL;
	for (size_t k = slot_home(s, p);; k = (k + 1) & (s->cap - 1)) {
		if (s->key[k] == 0)
			return NULL;
		if (s->key[k] == (uint64_t)p + 1)
			return &s->ref[k];
	}
}

/* Put pair index p with members r into a free or its own slot (room is there). */
static void slot_put(fb_sepsets *s, size_t p, sep_ref r)
{
	size_t k = slot_home(s, p);

	while (s->key[k] != 0 && s->key[k] != (uint64_t)p + 1)
		k = (k + 1) & (s->cap - 1);
	s->used += s->key[k] == 0;
	s->key[k] = (uint64_t)p + 1;
	s->ref[k] = r;
}

/* Double the slots (or make the first 1024), every entry moved. */
static void slots_grow(fb_sepsets *s)
{
	uint64_t *key = s->key;
	sep_ref *ref = s->ref;
	size_t cap = s->cap;

	s->cap = cap > 0 ? 2 * cap : 1024;
	s->key = fb_xcalloc(s->cap, sizeof *s->key);
	s->ref = fb_xmalloc(s->cap * sizeof *s->ref);
	s->used = 0;
	for (size_t k = 0; k < cap; k++)
		if (key[k] != 0)
			slot_put(s, (size_t)(key[k] - 1), ref[k]);
	free(key);
	free(ref);
}

/* The members of pair {i, j} (none when its set is empty or undefined). */
static sep_ref pair_ref(const fb_sepsets *s, size_t i, size_t j)
{
	const sep_ref *r = slot_find(s, pair_index(s, i, j));

	return r != NULL ? *r : (sep_ref){ 0, 0 };
}

/* Mark the pair's set as defined or not. */
static void has_put(fb_sepsets *s, size_t p, bool on)
{
	if (on)
		s->has[p / 64] |= (uint64_t)1 << (p % 64);
	else
		s->has[p / 64] &= ~((uint64_t)1 << (p % 64));
}

/* Compare two indices for qsort. */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Store the n sorted members of m as the pair's set. */
static void sep_store(fb_sepsets *s, size_t i, size_t j, const size_t *m, size_t n)
{
	size_t p = pair_index(s, i, j);
	sep_ref *r = slot_find(s, p);

	has_put(s, p, true);
	if (n == 0) {
		if (r != NULL)
			r->len = 0;
		return;
	}
	if (s->alen + n > s->acap) {
		s->acap = s->acap ? 2 * s->acap : 1024;
		while (s->acap < s->alen + n)
			s->acap *= 2;
		s->arena = fb_xreallocarray(s->arena, s->acap, sizeof *s->arena);
	}
	for (size_t k = 0; k < n; k++)
		s->arena[s->alen + k] = (uint32_t)m[k];
	if (r == NULL && 4 * (s->used + 1) > 3 * s->cap)
		slots_grow(s);
	slot_put(s, p, (sep_ref){ (uint32_t)s->alen, (uint32_t)n });
	s->alen += n;
}

/* Make sepset(i, j) exactly S. */
void fb_sepsets_set(fb_sepsets *s, size_t i, size_t j, const size_t *S, size_t ns)
{
	if (i == j || i >= s->d || j >= s->d)
		return;
	if (ns > 0)
		memcpy(s->tmp, S, ns * sizeof *S);
	if (ns > 1) /* level 0's many empty sets skip the call */
		qsort(s->tmp, ns, sizeof *s->tmp, cmp_size);
	sep_store(s, i, j, s->tmp, ns);
}

/* Add the members of S to sepset(i, j). */
void fb_sepsets_add(fb_sepsets *s, size_t i, size_t j, const size_t *S, size_t ns)
{
	size_t n, m = 0;

	if (i == j || i >= s->d || j >= s->d)
		return;
	n = fb_sepsets_get(s, i, j, s->tmp);
	for (size_t k = 0; k < ns; k++)
		if (!fb_sepsets_contains(s, i, j, S[k]))
			s->tmp[n + m++] = S[k];
	if (m == 0 && fb_sepsets_has(s, i, j))
		return;
	qsort(s->tmp, n + m, sizeof *s->tmp, cmp_size);
	sep_store(s, i, j, s->tmp, n + m);
}

/* Forget sepset(i, j). */
void fb_sepsets_clear(fb_sepsets *s, size_t i, size_t j)
{
	sep_ref *r;

	if (i == j || i >= s->d || j >= s->d)
		return;
	has_put(s, pair_index(s, i, j), false);
	if ((r = slot_find(s, pair_index(s, i, j))) != NULL)
		r->len = 0;
}

/* Whether sepset(i, j) is defined. */
bool fb_sepsets_has(const fb_sepsets *s, size_t i, size_t j)
{
	size_t p;

	if (i == j || i >= s->d || j >= s->d)
		return false;
	p = pair_index(s, i, j);
	return (s->has[p / 64] >> (p % 64)) & 1;
}

/* Whether k is in sepset(i, j) (a binary search of the sorted members). */
bool fb_sepsets_contains(const fb_sepsets *s, size_t i, size_t j, size_t k)
{
	sep_ref r;
	size_t lo = 0, hi;

	if (!fb_sepsets_has(s, i, j))
		return false;
	r = pair_ref(s, i, j);
	hi = r.len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, v = s->arena[r.off + mid];

		if (v == k)
			return true;
		if (v < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The members of sepset(i, j). */
size_t fb_sepsets_get(const fb_sepsets *s, size_t i, size_t j, size_t *out)
{
	sep_ref r;

	if (!fb_sepsets_has(s, i, j))
		return 0;
	r = pair_ref(s, i, j);
	for (size_t k = 0; k < r.len; k++)
		out[k] = s->arena[r.off + k];
	return r.len;
}
