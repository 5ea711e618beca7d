/* The bit path of G² and χ²: each level of each column is kept as the set of rows holding it,
 * one bit per row, so that a cell count (stratum, x = a, y = b) is the number of bits set in
 * the AND of three sets, 64 rows per instruction, instead of one pass over the rows per
 * test.  A stratum's set is the AND of its conditioning levels, built one variable at a
 * time, dropping empty ones as soon as they appear.  The strata of every prefix of the last
 * conditioning set are kept, so a set that shares its smallest members with the previous one
 * only ANDs the rest, and a set's strata split by the levels of x (or y) serve every test of
 * that set with that variable: one AND and count per cell.
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

/* Most strata the bit path keeps for one conditioning set. */
#define BITS_STRATA_MAX 64

/* Most bytes the strata of one test object's conditioning sets may take. */
#define BITS_STACK_MAX ((size_t)16 << 20)

/* Most strata x lx x ly of one test on the bit path (it reads about half as many words per
 * 64 rows): beyond it counting row by row is cheaper.  Also the most row sets of the kept
 * strata split by one variable. */
#define BITS_SPLIT_MAX 256

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
/* Functions that count bits are compiled for the instruction, used only when present. */
#define BITS_TARGET __attribute__((target("popcnt")))
/* True when the processor has the instruction. */
static bool bits_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt");
}

/* The rows in both a and b (W words), 64 at a time. */
BITS_TARGET static uint32_t and_count_word(const uint64_t *a, const uint64_t *b, size_t W)
{
	uint32_t n = 0;

	for (size_t k = 0; k < W; k++)
		n += (uint32_t)__builtin_popcountll(a[k] & b[k]);
	return n;
}

/* Write the rows in both a and b (W words) to out; their count. */
BITS_TARGET static uint32_t and_store_word(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                           size_t W)
{
	uint32_t n = 0;

	for (size_t k = 0; k < W; k++) {
		out[k] = a[k] & b[k];
		n += (uint32_t)__builtin_popcountll(out[k]);
	}
	return n;
}

#if defined(__x86_64__)
/* Write the rows in both a and b (W words) to out, 512 at a time; their count. */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint32_t
and_store_wide(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t W)
{
	__m512i acc = _mm512_setzero_si512();
	size_t k = 0;

	for (; k + 8 <= W; k += 8) {
		__m512i v = _mm512_and_si512(_mm512_loadu_si512(a + k), _mm512_loadu_si512(b + k));

		_mm512_storeu_si512(out + k, v);
		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v));
	}
	if (k < W) {
		__mmask8 m = (__mmask8)((1u << (W - k)) - 1);
		__m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi64(m, a + k),
		                             _mm512_maskz_loadu_epi64(m, b + k));

		_mm512_mask_storeu_epi64(out + k, m, v);
		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(v));
	}
	return (uint32_t)_mm512_reduce_add_epi64(acc);
}

/* The rows in both a and b (W words), 512 at a time (AVX-512 with its bit count). */
__attribute__((target("avx512f,avx512vpopcntdq"))) static uint32_t
and_count_wide(const uint64_t *a, const uint64_t *b, size_t W)
{
	__m512i acc = _mm512_setzero_si512();
	size_t k = 0;

	for (; k + 8 <= W; k += 8)
		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(
		                                _mm512_loadu_si512(a + k), _mm512_loadu_si512(b + k))));
	if (k < W) {
		__mmask8 m = (__mmask8)((1u << (W - k)) - 1);

		acc = _mm512_add_epi64(acc, _mm512_popcnt_epi64(_mm512_and_si512(
		                                _mm512_maskz_loadu_epi64(m, a + k),
		                                _mm512_maskz_loadu_epi64(m, b + k))));
	}
	return (uint32_t)_mm512_reduce_add_epi64(acc);
}

/* The widest ways this processor has to count the rows two sets share (and to write them). */
static void bits_pick(ci_disc_ws *w)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq")) {
		w->and_count = and_count_wide;
		w->and_store = and_store_wide;
	} else {
		w->and_count = and_count_word;
		w->and_store = and_store_word;
	}
}
#else
/* The one way to count the rows two sets share (and to write them). */
static void bits_pick(ci_disc_ws *w)
{
	w->and_count = and_count_word;
	w->and_store = and_store_word;
}
#endif
#else
#define BITS_TARGET
/* Elsewhere the bit path is not used (a bit count in software gains too little). */
static bool bits_usable(void)
{
	return false;
}

/* Nothing to pick: the bit path is off. */
static void bits_pick(ci_disc_ws *w)
{
	(void)w;
}
#endif

#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BITS_SSE2 1
/* Word k of the row sets of a column's nlev levels (at most 16) at out (words apart): rows
 * 64 k to 64 k + 63 of c compared with each level, eight codes an instruction. */
static size_t bits_words_sse2(uint64_t *out, const uint16_t *c, size_t n, size_t words,
                              size_t nlev)
{
	size_t k = 0;

	for (; 64 * k + 64 <= n; k++) {
		__m128i v[8];

		for (size_t q = 0; q < 8; q++)
			v[q] = _mm_loadu_si128((const __m128i *)(const void *)(c + 64 * k + 8 * q));
		for (size_t a = 0; a < nlev; a++) {
			__m128i av = _mm_set1_epi16((short)a);
			uint64_t m = 0;

			for (size_t q = 0; q < 4; q++) {
				__m128i e = _mm_packs_epi16(_mm_cmpeq_epi16(v[2 * q], av),
				                            _mm_cmpeq_epi16(v[2 * q + 1], av));

				m |= (uint64_t)(uint16_t)_mm_movemask_epi8(e) << (16 * q);
			}
			out[a * words + k] = m;
		}
	}
	return k;
}
#endif

/* The row sets of one column's nlev levels at out (zero, words apart): bit i of set c[i];
 * whole words of 64 rows by comparison where the levels are few, the rest row by row. */
static void bits_column(uint64_t *out, const uint16_t *c, size_t n, size_t words, size_t nlev)
{
	size_t k = 0;

#ifdef BITS_SSE2
	if (nlev <= 16)
		k = bits_words_sse2(out, c, n, words, nlev);
#endif
	for (size_t i = 64 * k; i < n; i++)
		out[c[i] * words + i / 64] |= UINT64_C(1) << (i % 64);
}

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
	if (w->bits == NULL || w->bitoff == NULL) {
		ci_bits_release(w);
		return;
	}
	w->words = words;
	bits_pick(w);
	w->budget = BITS_STACK_MAX / CI_BITS_DEPTH_MAX / (words * sizeof *w->bits);
	w->budget = w->budget > BITS_STRATA_MAX + 1 ? BITS_STRATA_MAX : w->budget > 1 ? w->budget - 1 : 1;
	for (size_t j = 0; j < ci->d; j++) {
		w->bitoff[j] = off;
		bits_column(w->bits + off, ci->codes + j * ci->n, ci->n, words, ci->nlev[j]);
		off += ci->nlev[j] * words;
	}
}

/* Read the row sets of from's bit path (w's own scratch comes when first needed). */
void ci_bits_share(ci_disc_ws *w, const ci_disc_ws *from)
{
	w->bits = from->bits;
	w->bitoff = from->bitoff;
	w->words = from->words;
	w->budget = from->budget;
	w->and_count = from->and_count;
	w->and_store = from->and_store;
}

/* Free the bit path's memory. */
void ci_bits_release(ci_disc_ws *w)
{
	free(w->bits);
	free(w->bitoff);
	free(w->stack);
	free(w->first);
	free(w->rank);
	free(w->mptr);
	free(w->musets);
	free(w->mucnt);
	w->bits = w->stack = w->musets = NULL;
	w->bitoff = w->first = w->rank = NULL;
	w->mptr = NULL;
	w->mucnt = NULL;
}

/* Make room for the strata of every depth, their order and the kept strata's splits (with
 * w->budget set); false when out of memory. */
static bool stack_alloc(ci_disc_ws *w)
{
	size_t W = w->words, b = w->budget;

	if (w->stack != NULL)
		return true;
	w->stack = malloc(CI_BITS_DEPTH_MAX * (b + 1) * W * sizeof *w->stack);
	w->first = malloc(b * sizeof *w->first);
	w->rank = malloc(b * sizeof *w->rank);
	w->mptr = malloc(b * sizeof *w->mptr);
	w->musets = malloc(BITS_SPLIT_MAX * W * sizeof *w->musets);
	w->mucnt = malloc(BITS_SPLIT_MAX * sizeof *w->mucnt);
	if (w->stack == NULL || w->first == NULL || w->rank == NULL || w->mptr == NULL ||
	    w->musets == NULL || w->mucnt == NULL) {
		free(w->stack);
		w->stack = NULL;
		return false;
	}
	return true;
}

/* The strata of mS[0..k] (depth k) from those of depth k - 1 (all rows before depth 0): each
 * one ANDed with each level of S[k], the empty ones dropped; their count into bcount[k], or
 * SIZE_MAX as soon as more than limit (at most the budget) are non-empty. */
static void stack_level(fb_ci *ci, size_t v, size_t k, size_t limit)
{
	ci_disc_ws *w = &ci->dws;
	size_t W = w->words, per = (w->budget + 1) * W, m = k == 0 ? 1 : w->bcount[k - 1];
	size_t lv = ci->nlev[v], next = 0;
	const uint64_t *lev = w->bits + w->bitoff[v];
	uint64_t *out = w->stack + k * per;

	w->bcount[k] = SIZE_MAX;
	if (m == SIZE_MAX)
		return;
	for (size_t t = 0; t < m; t++) {
		const uint64_t *cur = k == 0 ? NULL : w->stack + (k - 1) * per + t * W;

		for (size_t c = 0; c < lv; c++) {
			const uint64_t *l = lev + c * W;

			if (w->and_store(out + next * W, cur != NULL ? cur : l, l, W) != 0 &&
			    ++next > limit)
				return;
		}
	}
	w->bcount[k] = next;
}

/* Order the m strata at sets (W words each) by their first row into w->mptr (insertion
 * sort: they are few). */
static void strata_rank(ci_disc_ws *w, const uint64_t *sets, size_t m)
{
	size_t W = w->words;

	for (size_t t = 0; t < m; t++) {
		const uint64_t *s = sets + t * W;
		size_t k = 0, r;

		while (s[k] == 0)
			k++;
		w->first[t] = 64 * k + (size_t)__builtin_ctzll(s[k]);
		for (r = t; r > 0 && w->first[w->rank[r - 1]] > w->first[t]; r--)
			w->rank[r] = w->rank[r - 1];
		w->rank[r] = t;
	}
	for (size_t r = 0; r < m; r++)
		w->mptr[r] = sets + w->rank[r] * W;
}

/* Build the memo of the bit path for S: its non-empty strata in order of first row, built
 * from the longest prefix of S whose strata are kept; CI_MEMO_MANY when they are more than
 * limit (at most the budget: a prefix has no more strata than S, so the building stops at
 * the first depth past it) or memory is short.  A depth stopped below the budget is not
 * kept (a later set may take more strata). */
static void memo_build(fb_ci *ci, const size_t *S, size_t ns, size_t limit)
{
	ci_disc_ws *w = &ci->dws;
	size_t W = w->words, m;

	w->mbits = CI_MEMO_MANY;
	if (ns > CI_BITS_DEPTH_MAX || !stack_alloc(w))
		return;
	if (ns == 0) { /* one stratum, all rows: the union of the first column's levels */
		uint64_t *all = w->stack;

		memset(all, 0, W * sizeof *all);
		for (size_t c = 0; c < ci->nlev[0]; c++)
			for (size_t q = 0; q < W; q++)
				all[q] |= w->bits[w->bitoff[0] + c * W + q];
		w->mptr[0] = all;
		w->bvalid = 0;
		w->mbits = 1;
		return;
	}
	for (size_t k = w->bvalid; k < ns; k++) {
		stack_level(ci, S[k], k, limit);
		if (w->bcount[k] == SIZE_MAX && limit < w->budget) {
			w->bvalid = k;
			return;
		}
	}
	w->bvalid = ns;
	if ((m = w->bcount[ns - 1]) == SIZE_MAX)
		return;
	strata_rank(w, w->stack + (ns - 1) * (w->budget + 1) * W, m);
	w->mbits = m;
}

/* Split the kept strata by the levels of u into w->musets (and their sizes). */
static void memo_split(fb_ci *ci, size_t u)
{
	ci_disc_ws *w = &ci->dws;
	size_t W = w->words, lu = ci->nlev[u], m = w->mbits;
	const uint64_t *U = w->bits + w->bitoff[u];

	for (size_t r = 0; r < m; r++)
		for (size_t a = 0; a < lu; a++) {
			uint64_t *out = w->musets + (r * lu + a) * W;

			w->mucnt[r * lu + a] = w->and_store(out, w->mptr[r], U + a * W, W);
		}
	w->mu = u;
}

/* The counts of kept stratum r into tab (lx x ly, x < y): each level a of mu (one of x and y)
 * against each level b of the other v but the last, which is what is left of a's rows, since
 * v's levels part the rows. */
static void memo_count(fb_ci *ci, size_t r, size_t v, bool u_is_x, uint32_t *tab,
                                   size_t ly)
{
	ci_disc_ws *w = &ci->dws;
	size_t W = w->words, lu = ci->nlev[w->mu], lv = ci->nlev[v];
	const uint64_t *V = w->bits + w->bitoff[v];

	for (size_t a = 0; a < lu; a++) {
		const uint64_t *su = w->musets + (r * lu + a) * W;
		uint32_t rest = w->mucnt[r * lu + a];

		for (size_t b = 0; b + 1 < lv; b++) {
			const uint64_t *vb = V + b * W;
			uint32_t n;

			n = w->and_count(su, vb, W);
			tab[u_is_x ? a * ly + b : b * ly + a] = n;
			rest -= n;
		}
		tab[u_is_x ? a * ly + lv - 1 : (lv - 1) * ly + a] = rest;
	}
}

/* The variable of x and y to split the kept strata by: the one already split by, else the one
 * the last test also had (the tests of one set usually share a variable), else x. */
static size_t memo_pick(const ci_disc_ws *w, size_t x, size_t y)
{
	if (w->mu == x || w->mu == y)
		return w->mu;
	if (y == w->mlast[0] || y == w->mlast[1])
		return y;
	return x;
}

/* The bit path, when the non-empty strata are few enough for it to be cheaper. */
bool ci_bits_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                 ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;
	size_t lx = ci->nlev[x], ly = ci->nlev[y], u;
	/* per 64 rows about lx ly / 2 words for each stratum, against a few steps per row */
	size_t fit = BITS_SPLIT_MAX / (lx * ly);

	(void)prod;
	if (w->bits == NULL || fit == 0)
		return false;
	if (w->mbits == CI_MEMO_NONE) /* no more strata than this test can take */
		memo_build(ci, S, ns, fit < w->budget ? fit : w->budget);
	if (w->mbits == CI_MEMO_MANY || w->mbits * lx * ly > BITS_SPLIT_MAX)
		return false;
	u = memo_pick(w, x, y);
	w->mlast[0] = x;
	w->mlast[1] = y;
	if (w->mu != u)
		memo_split(ci, u);
	for (size_t r = 0; r < w->mbits; r++) {
		ci_stratum_sum t;

		memo_count(ci, r, u == x ? y : x, u == x, w->tab, ly);
		t = ci_disc_table(ci, w->tab, lx, ly);
		sum->stat += t.stat;
		sum->df_adj += t.df_adj;
		sum->empty += t.empty;
	}
	*nstr = w->mbits;
	return true;
}
