/* The bit path of G² and χ²: each level of each column is kept as the set of rows holding it,
 * one bit per row, so that a cell count (stratum, x = a, y = b) is the number of bits set in
 * the AND of three sets, 64 rows per instruction, instead of one pass over the rows per
 * test.  A stratum's set is the AND of its conditioning levels, built one variable at a
 * time, dropping empty ones as soon as they appear.
 *
 * The strata are visited in order of their first row, the order in which the row-by-row
 * paths number them, and every stratum's table goes through ci_disc_table, so a statistic
 * keeps its bits whichever path computed it.  The path is taken only where it is cheaper:
 * small tables (few strata and levels), and only on machines that count bits in one
 * instruction (checked once at run time). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Most bytes the row sets of one test object may take. */
#define BITS_MEMORY_MAX ((size_t)64 << 20)

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* Functions that count bits are compiled for the instruction, used only when present. */
#define BITS_TARGET __attribute__((target("popcnt")))
/* True when the processor has the instruction. */
static bool bits_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt");
}
#else
#define BITS_TARGET
/* Elsewhere the bit path is not used (a bit count in software gains too little). */
static bool bits_usable(void)
{
	return false;
}
#endif

/* Build the row sets of every level of every column. */
void ci_bits_init(fb_ci *ci)
{
	ci_disc_ws *w = &ci->dws;
	size_t words = (ci->n + 63) / 64, total = 0, off = 0;

	if (!bits_usable())
		return;
	for (size_t j = 0; j < ci->d; j++)
		total += ci->nlev[j];
	if (total > BITS_MEMORY_MAX / sizeof(uint64_t) / words)
		return;
	w->bits = calloc(total * words, sizeof *w->bits);
	w->bitoff = malloc(ci->d * sizeof *w->bitoff);
	w->sx = malloc(words * sizeof *w->sx);
	if (w->bits == NULL || w->bitoff == NULL || w->sx == NULL) {
		ci_bits_release(w);
		return;
	}
	w->words = words;
	for (size_t j = 0; j < ci->d; j++) {
		const uint32_t *c = ci->codes + j * ci->n;

		w->bitoff[j] = off;
		for (size_t i = 0; i < ci->n; i++)
			w->bits[off + c[i] * words + i / 64] |= UINT64_C(1) << (i % 64);
		off += ci->nlev[j] * words;
	}
}

/* Free the bit path's memory. */
void ci_bits_release(ci_disc_ws *w)
{
	free(w->bits);
	free(w->bitoff);
	free(w->sets);
	free(w->first);
	free(w->rank);
	free(w->ptr);
	free(w->sx);
	w->bits = w->sets = w->sx = NULL;
	w->bitoff = w->first = w->rank = NULL;
	w->ptr = NULL;
	w->sets_cap = 0;
}

/* Make room for cap row sets (and their first rows and ranks); false when out of memory. */
static bool sets_reserve(ci_disc_ws *w, size_t cap)
{
	uint64_t *sets;
	size_t *first, *rank;
	const uint64_t **ptr;

	if (cap <= w->sets_cap)
		return true;
	sets = malloc(cap * w->words * sizeof *sets);
	first = malloc(cap * sizeof *first);
	rank = malloc(cap * sizeof *rank);
	ptr = malloc(cap * sizeof *ptr);
	if (sets == NULL || first == NULL || rank == NULL || ptr == NULL) {
		free(sets);
		free(first);
		free(rank);
		free(ptr);
		return false;
	}
	free(w->sets);
	free(w->first);
	free(w->rank);
	free(w->ptr);
	w->sets = sets;
	w->first = first;
	w->rank = rank;
	w->ptr = ptr;
	w->sets_cap = cap;
	return true;
}

/* The row set of stratum t (set cur) and level set lev: a level's own set when cur is all
 * rows, else their AND written at out; NULL when it is empty. */
static const uint64_t *set_and(const uint64_t *cur, const uint64_t *lev, uint64_t *out,
                               size_t W)
{
	uint64_t any = 0;

	if (cur == NULL) {
		for (size_t k = 0; k < W; k++)
			any |= lev[k];
		return any != 0 ? lev : NULL;
	}
	for (size_t k = 0; k < W; k++)
		any |= out[k] = cur[k] & lev[k];
	return any != 0 ? out : NULL;
}

/* The row sets of the non-empty strata of S, one conditioning variable at a time, into
 * *strata (pointers; w->sets holds 2 half sets of room); their count, or SIZE_MAX as soon
 * as more than budget are non-empty after some variable. */
static size_t strata_sets(fb_ci *ci, const size_t *S, size_t ns, size_t half, size_t budget,
                          const uint64_t ***strata)
{
	ci_disc_ws *w = &ci->dws;
	size_t W = w->words, m = 1, side = 0;
	const uint64_t **cur = w->ptr, **nxt = w->ptr + half, **swap;

	cur[0] = NULL;
	for (size_t v = 0; v < ns; v++) {
		const uint64_t *lev = w->bits + w->bitoff[S[v]];
		uint64_t *buf = w->sets + side * half * W;
		size_t next = 0;

		for (size_t t = 0; t < m; t++)
			for (size_t c = 0; c < ci->nlev[S[v]]; c++)
				if ((nxt[next] = set_and(cur[t], lev + c * W, buf + next * W, W)) != NULL)
					next++;
		swap = cur;
		cur = nxt;
		nxt = swap;
		side = 1 - side;
		m = next;
		if (m > budget)
			return SIZE_MAX;
	}
	*strata = cur;
	return m;
}

/* Order the m strata by their first row (insertion sort: they are few). */
static void strata_rank(ci_disc_ws *w, const uint64_t *const *strata, size_t m)
{
	for (size_t t = 0; t < m; t++) {
		const uint64_t *s = strata[t];
		size_t k = 0, r;

		if (s == NULL) {
			w->first[t] = 0;
		} else {
			while (s[k] == 0)
				k++;
			w->first[t] = 64 * k + (size_t)__builtin_ctzll(s[k]);
		}
		for (r = t; r > 0 && w->first[w->rank[r - 1]] > w->first[t]; r--)
			w->rank[r] = w->rank[r - 1];
		w->rank[r] = t;
	}
}

/* The lx x ly counts of one stratum's rows s (NULL: all rows) into tab: for each level a of
 * x the stratum's rows at a once (sx, with their count), then each level b of y but the last
 * against them; the last is what is left, since y's levels part the rows. */
BITS_TARGET static void stratum_count(ci_disc_ws *w, const uint64_t *s, const uint64_t *X,
                                      const uint64_t *Y, size_t lx, size_t ly, uint32_t *tab)
{
	size_t W = w->words;
	uint64_t *sx = w->sx;

	for (size_t a = 0; a < lx; a++) {
		const uint64_t *xa = X + a * W;
		uint32_t all = 0, rest;

		for (size_t k = 0; k < W; k++) {
			sx[k] = s != NULL ? s[k] & xa[k] : xa[k];
			all += (uint32_t)__builtin_popcountll(sx[k]);
		}
		rest = all;
		for (size_t b = 0; b + 1 < ly; b++) {
			const uint64_t *yb = Y + b * W;
			uint32_t n = 0;

			for (size_t k = 0; k < W; k++)
				n += (uint32_t)__builtin_popcountll(sx[k] & yb[k]);
			tab[a * ly + b] = n;
			rest -= n;
		}
		tab[a * ly + ly - 1] = rest;
	}
}

/* The bit path, when the non-empty strata are few enough for it to be cheaper. */
bool ci_bits_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                 ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;
	size_t lx = ci->nlev[x], ly = ci->nlev[y], lmax = 1, budget, half, m;
	const uint64_t **strata;

	if (w->bits == NULL)
		return false;
	/* per 64 rows: lx (1 + ly) words for each stratum, against ns + 3 steps per row */
	budget = 64 * (ns + 3) / (lx * (1 + ly));
	if (budget == 0)
		return false;
	if (prod < (double)budget)
		budget = (size_t)prod;
	for (size_t v = 0; v < ns; v++)
		lmax = ci->nlev[S[v]] > lmax ? ci->nlev[S[v]] : lmax;
	half = budget * lmax + 1;
	if (!sets_reserve(w, 2 * half))
		return false;
	if ((m = strata_sets(ci, S, ns, half, budget, &strata)) == SIZE_MAX)
		return false;
	strata_rank(w, strata, m);
	for (size_t r = 0; r < m; r++) {
		ci_stratum_sum t;

		stratum_count(w, strata[w->rank[r]], w->bits + w->bitoff[x],
		              w->bits + w->bitoff[y], lx, ly, w->tab);
		t = ci_disc_table(ci, w->tab, lx, ly);
		sum->stat += t.stat;
		sum->df_adj += t.df_adj;
		sum->empty += t.empty;
	}
	*nstr = m;
	return true;
}
