/* Separating sets of the unordered pairs: one (offset, length) per pair into a shared arena
 * of sorted members; a union writes the merged set at the end of the arena. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/pc.h"

/* Offset of an undefined set. */
#define SEP_NONE UINT32_MAX

/* Where one pair's set lives. */
typedef struct sep_ref {
	uint32_t off; /* first member in the arena, SEP_NONE when undefined */
	uint32_t len; /* number of members */
} sep_ref;

/* The separating sets. */
struct fb_sepsets {
	size_t d;         /* variables */
	sep_ref *ref;     /* d (d - 1) / 2 pairs, i < j, row by row */
	uint32_t *arena;  /* members of every set */
	size_t alen, acap; /* used and allocated */
	size_t *tmp;      /* d: scratch for unions */
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
	s->ref = fb_xmalloc(np * sizeof *s->ref);
	for (size_t k = 0; k < np; k++) {
		s->ref[k].off = SEP_NONE;
		s->ref[k].len = 0;
	}
	s->tmp = fb_xmalloc((d > 0 ? d : 1) * sizeof *s->tmp);
	return s;
}

/* Free the sets. */
void fb_sepsets_free(fb_sepsets *s)
{
	if (s == NULL)
		return;
	free(s->ref);
	free(s->arena);
	free(s->tmp);
	free(s);
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
	sep_ref *r = &s->ref[pair_index(s, i, j)];

	if (s->alen + n > s->acap) {
		s->acap = s->acap ? 2 * s->acap : 1024;
		while (s->acap < s->alen + n)
			s->acap *= 2;
		s->arena = fb_xreallocarray(s->arena, s->acap, sizeof *s->arena);
	}
	for (size_t k = 0; k < n; k++)
		s->arena[s->alen + k] = (uint32_t)m[k];
	r->off = (uint32_t)s->alen;
	r->len = (uint32_t)n;
	s->alen += n;
}

/* Make sepset(i, j) exactly S. */
void fb_sepsets_set(fb_sepsets *s, size_t i, size_t j, const size_t *S, size_t ns)
{
	if (i == j || i >= s->d || j >= s->d)
		return;
	if (ns > 0)
		memcpy(s->tmp, S, ns * sizeof *S);
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
	if (i == j || i >= s->d || j >= s->d)
		return;
	s->ref[pair_index(s, i, j)].off = SEP_NONE;
	s->ref[pair_index(s, i, j)].len = 0;
}

/* Whether sepset(i, j) is defined. */
bool fb_sepsets_has(const fb_sepsets *s, size_t i, size_t j)
{
	return i != j && i < s->d && j < s->d && s->ref[pair_index(s, i, j)].off != SEP_NONE;
}

/* Whether k is in sepset(i, j) (a binary search of the sorted members). */
bool fb_sepsets_contains(const fb_sepsets *s, size_t i, size_t j, size_t k)
{
	const sep_ref *r;
	size_t lo = 0, hi;

	if (!fb_sepsets_has(s, i, j))
		return false;
	r = &s->ref[pair_index(s, i, j)];
	hi = r->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, v = s->arena[r->off + mid];

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
	const sep_ref *r;

	if (!fb_sepsets_has(s, i, j))
		return 0;
	r = &s->ref[pair_index(s, i, j)];
	for (size_t k = 0; k < r->len; k++)
		out[k] = s->arena[r->off + k];
	return r->len;
}
