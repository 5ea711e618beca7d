/* The dense path of G² and χ² (ALGORITHMS.md §6.5): every row counted straight into its
 * stratum's c_x x c_y table, one pass over the rows per test.
 *
 * Each row's stratum over S is numbered in order of first occurrence (the order in which the
 * statistic sums the strata), so the tables of one test lie next to each other, stratum by
 * stratum, nstr c_x c_y cells in all.  Those numbers are built column by column from S's
 * prefixes, whose row keys are kept between tests (consecutive sets often share their
 * smallest members): block k of the key stack labels each row's stratum over S[0..k]
 * one-to-one by a number below prod_{v <= k} c_v (a mixed-radix key, or the stratum's
 * number when block k was the last of a set).  The path is taken while prod_S c_v c_x c_y
 * is at most max(8n, 2^16) cells (below 2^30, so that every key fits 32 bits). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Most cells of the dense path for n rows: max(8n, 2^16), and below 2^30 so that a stratum
 * key always fits 32 bits. */
static size_t dense_limit(size_t n)
{
	size_t cap = (size_t)1 << 30;

	if (n >= cap / 8)
		return cap;
	return 8 * n > ((size_t)1 << 16) ? 8 * n : (size_t)1 << 16;
}

/* Make room for the tables and the stratum marks of cells cells; false when out of memory
 * (the hashed path is then used). */
static bool dense_reserve(ci_disc_ws *w, size_t cells)
{
	uint32_t *cube, *scnt;

	if (cells <= w->cube_cap)
		return true;
	cube = calloc(cells, sizeof *cube);
	scnt = calloc(cells, sizeof *scnt);
	if (cube == NULL || scnt == NULL) {
		free(cube);
		free(scnt);
		return false;
	}
	free(w->cube);
	free(w->scnt);
	w->cube = cube;
	w->scnt = scnt;
	w->cube_cap = cells;
	return true;
}

/* Make room for k blocks of keys; false when out of memory. */
static bool keys_reserve(ci_disc_ws *w, size_t k, size_t n)
{
	uint32_t *p;

	if (k <= w->kcap)
		return true;
	if (k > SIZE_MAX / n / sizeof *p || (p = realloc(w->kstack, k * n * sizeof *p)) == NULL)
		return false;
	w->kstack = p;
	w->kcap = k;
	return true;
}

/* The keys of one more column: key = prev m + c, row by row (eight rows a step, which the
 * compiler does in vector registers). */
static inline __attribute__((always_inline)) void
keys_step(const uint32_t *restrict prev, const uint16_t *restrict c, uint32_t m,
          uint32_t *restrict key, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		for (size_t k = 0; k < 8; k++)
			key[i + k] = prev[i + k] * m + c[i + k];
	for (; i < n; i++)
		key[i] = prev[i] * m + c[i];
}

#if defined(__GNUC__) && defined(__x86_64__)
/* keys_step with AVX2's eight-lane multiply, where the processor has it. */
__attribute__((target("avx2"))) static void keys_step_avx2(const uint32_t *prev,
                                                           const uint16_t *c, uint32_t m,
                                                           uint32_t *key, size_t n)
{
	keys_step(prev, c, m, key, n);
}
#endif

/* The keys of one more column (keys_step), the widest way this processor has. */
static void keys_level(const uint32_t *prev, const uint16_t *c, uint32_t m, uint32_t *key,
                       size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
	if (__builtin_cpu_supports("avx2")) {
		keys_step_avx2(prev, c, m, key, n);
		return;
	}
#endif
	keys_step(prev, c, m, key, n);
}

/* What places the rows of one test in their cells: the codes of x and y, and the tables to
 * count them into (stratum s's lx x ly cells start at s lx ly). */
typedef struct dense_cells {
	const uint16_t *cx, *cy; /* n: the codes of x and y */
	uint32_t ly, lxy;        /* levels of y, and cells of one stratum's table */
	uint32_t *cube;          /* the tables (zero) */
} dense_cells;

/* The rows' cells of the test of x and y into the strata's tables at w->cube. */
static dense_cells cells_of(const fb_ci *ci, size_t x, size_t y)
{
	dense_cells t;

	t.cx = ci->codes + x * ci->n;
	t.cy = ci->codes + y * ci->n;
	t.ly = (uint32_t)ci->nlev[y];
	t.lxy = (uint32_t)(ci->nlev[x] * ci->nlev[y]);
	t.cube = ci->dws.cube;
	return t;
}

/* Number the strata of the n row keys in key in order of first occurrence, in place, with
 * scnt (room for every key, zero; left zero) as the map, counting each row into its
 * stratum's table as it goes; returns how many. */
static size_t keys_number(ci_disc_ws *w, uint32_t *key, size_t n, const dense_cells *t)
{
	uint32_t *map = w->scnt, nstr = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = key[i], s = map[k];

		if (s == 0) {
			map[k] = s = ++nstr;
			w->mfirst[s - 1] = k;
		}
		key[i] = s - 1;
		t->cube[(s - 1) * t->lxy + t->cx[i] * t->ly + t->cy[i]]++;
	}
	for (uint32_t s = 0; s < nstr; s++)
		map[w->mfirst[s]] = 0;
	return nstr;
}

/* Count every row into its stratum's table, the strata numbered in w->mkey. */
static void dense_count(const ci_disc_ws *w, const dense_cells *t, size_t n)
{
	const uint32_t *restrict sid = w->mkey;
	const uint16_t *restrict cx = t->cx, *restrict cy = t->cy;
	uint32_t *restrict cube = t->cube;
	uint32_t ly = t->ly, lxy = t->lxy;

	for (size_t i = 0; i < n; i++)
		cube[sid[i] * lxy + cx[i] * ly + cy[i]]++;
}

/* Build the row keys of S (ns >= 1) in the key stack from the longest prefix of S whose
 * keys are kept: block ns - 1 then labels each row's stratum over S one-to-one, below
 * prod_S c_v; false when out of memory. */
static bool dense_keys(fb_ci *ci, const size_t *S, size_t ns)
{
	ci_disc_ws *w = &ci->dws;
	size_t n = ci->n;

	if (w->zeros == NULL && (w->zeros = calloc(n, sizeof *w->zeros)) == NULL)
		return false;
	if (!keys_reserve(w, ns, n))
		return false;
	for (size_t v = w->kvalid; v < ns; v++) {
		const uint16_t *c = ci->codes + S[v] * n;
		const uint32_t *prev = v > 0 ? w->kstack + (v - 1) * n : w->zeros;

		keys_level(prev, c, (uint32_t)ci->nlev[S[v]], w->kstack + v * n, n);
	}
	w->kvalid = ns;
	return true;
}

/* Build the memo of the dense path for S: each row's stratum number into w->mkey, from the
 * longest prefix of S whose keys are kept, and their count into w->mdense, counting the
 * rows' cells t on the way; false when out of memory. */
static bool dense_memo(fb_ci *ci, const size_t *S, size_t ns, const dense_cells *t)
{
	ci_disc_ws *w = &ci->dws;
	size_t n = ci->n;

	if (w->zeros == NULL && (w->zeros = calloc(n, sizeof *w->zeros)) == NULL)
		return false;
	if (ns == 0) {
		w->mkey = w->zeros;
		w->mdense = 1;
		dense_count(w, t, n);
		return true;
	}
	if (!dense_keys(ci, S, ns))
		return false;
	/* the last block's keys become the strata's numbers (a prefix's block already held
	 * one-to-one labels, which stay so) */
	w->mkey = w->kstack + (ns - 1) * n;
	w->mdense = keys_number(w, w->mkey, n, t);
	return true;
}

/* Number each row's stratum over S (ns >= 1) in order of first occurrence into ids, from
 * the kept keys of S's prefixes and a map of every key, for tests whose tables are too large
 * for the dense path while S's configurations are within its limit; the number of strata,
 * or 0 (nothing done) when they are not or memory is short. */
size_t ci_disc_dense_strata(fb_ci *ci, const size_t *S, size_t ns, double prod, uint32_t *ids)
{
	ci_disc_ws *w = &ci->dws;
	const uint32_t *key;
	uint32_t *map, nstr = 0;

	if (!(prod <= (double)dense_limit(ci->n)) || !dense_reserve(w, (size_t)prod) ||
	    !dense_keys(ci, S, ns))
		return 0;
	key = w->kstack + (ns - 1) * ci->n;
	map = w->scnt;
	for (size_t i = 0; i < ci->n; i++) {
		uint32_t k = key[i], s = map[k];

		if (s == 0) {
			map[k] = s = ++nstr;
			w->mfirst[s - 1] = k;
		}
		ids[i] = s - 1;
	}
	for (uint32_t s = 0; s < nstr; s++)
		map[w->mfirst[s]] = 0;
	return nstr;
}

/* The dense path over all strata; false (nothing done) when the tables would be too large. */
bool ci_disc_dense_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                       ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;
	size_t lx = ci->nlev[x], ly = ci->nlev[y];
	double cells = prod * (double)lx * (double)ly;
	dense_cells rc;

	if (!(cells <= (double)dense_limit(ci->n)) || !dense_reserve(w, (size_t)cells))
		return false;
	rc = cells_of(ci, x, y);
	if (w->mdense == CI_MEMO_NONE) {
		if (!dense_memo(ci, S, ns, &rc))
			return false;
	} else {
		dense_count(w, &rc, ci->n);
	}
	*nstr = w->mdense;
	for (size_t s = 0; s < *nstr; s++) {
		ci_stratum_sum t = ci_disc_table_keep(ci, w->cube + s * lx * ly, lx, ly);

		sum->stat += t.stat;
		sum->df_adj += t.df_adj;
		sum->empty += t.empty;
		if (ci_disc_stop(w, sum, *nstr - s - 1, (double)(lx - 1) * (double)(ly - 1)))
			break;
	}
	memset(w->cube, 0, *nstr * lx * ly * sizeof *w->cube);
	return true;
}
