/* G² and Pearson χ² tests of conditional independence on discrete data (ALGORITHMS.md §6.5).
 *
 * The strata are the configurations of S that occur: each row's S codes are hashed (as an
 * exact mixed-radix key while prod_S c_v fits in 62 bits, otherwise as a hash checked
 * against the codes of a row already in the slot), strata are numbered in order of first
 * occurrence, and the rows are grouped by stratum with a counting sort.  One stratum at a
 * time fills a c_x x c_y table (kept zero between strata by clearing only the cells it
 * touched), so memory stays O(n + c_max^2) whatever |S| is.
 *
 * When the full table prod_S c_v x c_x x c_y is small (at most max(8n, 2^16) cells, under
 * 2^30) a faster path (ci-discrete-dense.c) counts every row straight into its stratum's
 * table, strata again numbered in order of first occurrence, and sums the statistic in the
 * same order, so both paths give the same bits.  Its tables and key map take up to 64n
 * bytes.
 *
 * Tests with one conditioning set often follow each other (PC tests a set against every
 * other neighbour, and consecutive sets share their smallest members), so what depends on S
 * alone is kept between tests: the dense path's row keys for each prefix of S and the
 * strata's numbers, and the bit path's strata (ci-bits.c). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#include "ci-private.h"

/* Most levels of one variable (a stratum's table has up to this squared cells). */
#define DISC_LEVELS_MAX 8192

/* Largest prod_S c_v kept as an exact key. */
#define DISC_KEY_MAX 4.0e18

/* Check and copy the codes of ds, column-major, column by column; the first fault named. */
static int copy_codes_checked(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++) {
		const fb_var *v = &ds->vars[j];

		if (v->kind != FB_DISCRETE)
			return fb_fail(err, "%s needs discrete variables, and '%s' is continuous",
			               fb_ci_test_name(ci->opt.test), v->name);
		if (v->nlevels < 1 || v->nlevels > UINT32_MAX)
			return fb_fail(err, "variable '%s' has %zu levels", v->name, v->nlevels);
		ci->nlev[j] = v->nlevels;
		if (v->nlevels > ci->cmax)
			ci->cmax = v->nlevels;
		for (size_t i = 0; i < ds->n; i++) {
			double c = ds->x[i * ds->d + j];

			if (!(c >= 0.0 && c < (double)v->nlevels) || c != floor(c))
				return fb_fail(err, "row %zu of '%s' holds %g, not a level code below %zu",
				               i + 1, v->name, c, v->nlevels);
			ci->codes[j * ds->n + i] = (uint16_t)c;
		}
	}
	return FB_OK;
}

/* Values (rows times columns) from which the codes are copied and their levels counted on
 * the object's threads, each taking a range of columns. */
#define DISC_THREADED_VALUES ((size_t)1 << 17)

/* The levels of ds's columns into ci->nlev; false at a column that is not discrete with 1 to
 * DISC_LEVELS_MAX levels. */
static bool codes_levels(fb_ci *ci, const fb_dataset *ds)
{
	for (size_t j = 0; j < ds->d; j++) {
		if (ds->vars[j].kind != FB_DISCRETE || ds->vars[j].nlevels < 1 ||
		    ds->vars[j].nlevels > DISC_LEVELS_MAX)
			return false;
		ci->nlev[j] = ds->vars[j].nlevels;
	}
	return true;
}

/* Copy the codes of ds's columns j0 .. j1 - 1, column-major, reading it row by row; false at
 * the first value that is not a level code (a whole number in [0, levels)), or when out of
 * memory.  The levels are read as numbers once, not converted at every value. */
static bool codes_columns(fb_ci *ci, const fb_dataset *ds, size_t j0, size_t j1)
{
	size_t d = ds->d, n = ds->n;
	double *lim = malloc((j1 - j0) * sizeof *lim);
	bool ok = lim != NULL;

	for (size_t j = j0; ok && j < j1; j++)
		lim[j - j0] = (double)ci->nlev[j];
	for (size_t i = 0; ok && i < n; i++) {
		const double *row = ds->x + i * d;

		for (size_t j = j0; ok && j < j1; j++) {
			double c = row[j];
			uint16_t k;

			ok = c >= 0.0 && c < lim[j - j0];
			k = ok ? (uint16_t)c : 0; /* c is below DISC_LEVELS_MAX: exact when whole */
			ok = ok && (double)k == c;
			ci->codes[j * n + i] = k;
		}
	}
	free(lim);
	return ok;
}

/* Count the levels of columns j0 .. j1 - 1 that occur (tab is cmax zeros, left zero): each
 * row marks its level, then the marks are counted (no row waits on the one before). */
static void count_present(fb_ci *ci, uint32_t *tab, size_t j0, size_t j1)
{
	for (size_t j = j0; j < j1; j++) {
		const uint16_t *c = ci->codes + j * ci->n;

		ci->present[j] = 0;
		for (size_t i = 0; i < ci->n; i++)
			tab[c[i]] = 1;
		for (size_t a = 0; a < ci->nlev[j]; a++) {
			ci->present[j] += tab[a];
			tab[a] = 0;
		}
	}
}

/* One thread's share of codes_threads. */
typedef struct codes_work {
	fb_ci *ci;             /* the object */
	const fb_dataset *ds;  /* its data */
	size_t j0, j1;         /* the columns */
	uint32_t *tab;         /* cmax zeros for count_present (NULL: out of memory) */
	bool ok;               /* every value was a level code */
} codes_work;

/* Copy a range of columns' codes and count their levels that occur. */
static void *codes_thread(void *arg)
{
	codes_work *w = arg;

	w->ok = w->tab != NULL && codes_columns(w->ci, w->ds, w->j0, w->j1);
	if (w->ok)
		count_present(w->ci, w->tab, w->j0, w->j1);
	return NULL;
}

/* The codes of ds copied and the levels that occur counted, the columns split into ranges
 * on nt threads (cmax levels at most); false when a value is not a level code or memory ran
 * out. */
static bool codes_threads(fb_ci *ci, const fb_dataset *ds, size_t nt, size_t cmax)
{
	codes_work *w = calloc(nt, sizeof *w);
	bool ok = w != NULL;

	for (size_t t = 0; ok && t < nt; t++)
		w[t] = (codes_work){ ci, ds, ds->d * t / nt, ds->d * (t + 1) / nt,
		                     calloc(cmax, sizeof *w->tab), false };
	if (ok)
		fb_threads_run(codes_thread, w, sizeof *w, nt);
	for (size_t t = 0; w != NULL && t < nt; t++) {
		ok = ok && w[t].ok;
		free(w[t].tab);
	}
	free(w);
	return ok;
}

/* Check and copy the codes of ds, column-major (the levels into ci->nlev, the most into
 * ci->cmax), and count the levels that occur; on ci's threads for a large dataset. */
static int copy_codes(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	size_t nt = ci->opt.threads < ds->d ? ci->opt.threads : ds->d;
	bool fast = codes_levels(ci, ds), counted = false;
	uint32_t *tab;

	for (size_t j = 0; fast && j < ds->d; j++)
		ci->cmax = ci->nlev[j] > ci->cmax ? ci->nlev[j] : ci->cmax;
	if (fast && nt > 1 && ds->n * ds->d >= DISC_THREADED_VALUES)
		fast = counted = codes_threads(ci, ds, nt, ci->cmax);
	else if (fast)
		fast = codes_columns(ci, ds, 0, ds->d);
	if (!fast) {
		ci->cmax = 0;
		if (copy_codes_checked(ci, ds, err) != FB_OK)
			return FB_ERR;
	}
	if (ci->cmax > DISC_LEVELS_MAX)
		return fb_fail(err, "a variable has %zu levels, more than the %d a discrete test "
		                    "takes", ci->cmax, DISC_LEVELS_MAX);
	if (counted)
		return FB_OK;
	if ((tab = calloc(ci->cmax, sizeof *tab)) == NULL)
		return fb_fail(err, "out of memory for tables of %zu levels", ci->cmax);
	count_present(ci, tab, 0, ds->d);
	free(tab);
	return FB_OK;
}

/* Allocate the work space of one stratum's table, cmax levels; FB_ERR when out of memory.
 * The rows' strata of the hashed path come with its first test (sparse_alloc). */
static int ws_alloc(ci_disc_ws *w, size_t n, size_t cmax)
{
	w->tab = calloc(cmax * cmax, sizeof *w->tab);
	w->rowm = calloc(cmax, sizeof *w->rowm);
	w->colm = calloc(cmax, sizeof *w->colm);
	w->colmd = malloc((cmax + 3) * sizeof *w->colmd);
	w->nzr = malloc(cmax * sizeof *w->nzr);
	w->nzc = malloc(cmax * sizeof *w->nzc);
	w->mfirst = malloc(n * sizeof *w->mfirst);
	if (w->mfirst == NULL || w->tab == NULL || w->rowm == NULL || w->colm == NULL ||
	    w->colmd == NULL || w->nzr == NULL || w->nzc == NULL)
		return FB_ERR;
	return FB_OK;
}

/* Allocate the hashed path's rows and hash slots for n rows, unless there; false when out
 * of memory. */
static bool sparse_alloc(ci_disc_ws *w, size_t n)
{
	size_t hcap = 16;

	if (w->hstamp != NULL)
		return true;
	while (hcap < 2 * n)
		hcap *= 2;
	w->ids = malloc(n * sizeof *w->ids);
	w->order = malloc(n * sizeof *w->order);
	w->start = malloc((n + 1) * sizeof *w->start);
	w->hkey = malloc(hcap * sizeof *w->hkey);
	w->hrow = malloc(hcap * sizeof *w->hrow);
	w->hid = malloc(hcap * sizeof *w->hid);
	if (w->ids == NULL || w->order == NULL || w->start == NULL || w->hkey == NULL ||
	    w->hrow == NULL || w->hid == NULL)
		return false;
	w->hstamp = calloc(hcap, sizeof *w->hstamp);
	w->hcap = hcap;
	return w->hstamp != NULL;
}

/* Copy the codes of ds and allocate the work space. */
int ci_disc_init(fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	if (ds->n > SIZE_MAX / ds->d / sizeof *ci->codes ||
	    (ci->codes = malloc(ds->n * ds->d * sizeof *ci->codes)) == NULL ||
	    (ci->nlev = calloc(ds->d, sizeof *ci->nlev)) == NULL ||
	    (ci->present = calloc(ds->d, sizeof *ci->present)) == NULL)
		return fb_fail(err, "out of memory for the codes of %zu x %zu values", ds->n, ds->d);
	if (copy_codes(ci, ds, err) != FB_OK)
		return FB_ERR;
	if (ws_alloc(&ci->dws, ds->n, ci->cmax) != FB_OK ||
	    (ci->dws.mS = calloc(ds->d, sizeof *ci->dws.mS)) == NULL)
		return fb_fail(err, "out of memory for tables of %zu levels", ci->cmax);
	ci->dws.mns = SIZE_MAX;
	ci_bits_init(ci);
	return FB_OK;
}

/* Read the codes, levels and row sets of from and allocate ci's own work space. */
int ci_disc_share(fb_ci *ci, const fb_ci *from, fb_error *err)
{
	ci->codes = from->codes;
	ci->nlev = from->nlev;
	ci->present = from->present;
	ci->cmax = from->cmax;
	ci->codes_shared = true;
	if (ws_alloc(&ci->dws, ci->n, ci->cmax) != FB_OK ||
	    (ci->dws.mS = calloc(ci->d, sizeof *ci->dws.mS)) == NULL)
		return fb_fail(err, "out of memory for tables of %zu levels", ci->cmax);
	ci->dws.mns = SIZE_MAX;
	ci_bits_share(&ci->dws, &from->dws);
	return FB_OK;
}

/* Free the discrete work space. */
void ci_disc_ws_release(ci_disc_ws *w)
{
	ci_bits_release(w);
	free(w->cube);
	free(w->scnt);
	free(w->ids);
	free(w->order);
	free(w->start);
	free(w->hkey);
	free(w->hrow);
	free(w->hid);
	free(w->hstamp);
	free(w->tab);
	free(w->rowm);
	free(w->colm);
	free(w->colmd);
	free(w->nzr);
	free(w->nzc);
	free(w->zeros);
	free(w->kstack);
	free(w->mfirst);
	free(w->mord);
	free(w->jring);
	free(w->jslot);
	free(w->jtab);
	free(w->mS);
	memset(w, 0, sizeof *w);
}

/* Mix 64 bits (splitmix64's finaliser). */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The key of row i over S: exact mixed radix, or a hash of the codes. */
static uint64_t row_key(const fb_ci *ci, const size_t *S, size_t ns, size_t i, bool exact)
{
	uint64_t k = 0;

	for (size_t v = 0; v < ns; v++) {
		uint64_t c = ci->codes[S[v] * ci->n + i];

		k = exact ? k * ci->nlev[S[v]] + c : mix(k ^ (c + UINT64_C(0x9e3779b97f4a7c15)));
	}
	return k;
}

/* True when rows i and j have the same codes on S. */
static bool rows_equal(const fb_ci *ci, const size_t *S, size_t ns, size_t i, size_t j)
{
	for (size_t v = 0; v < ns; v++)
		if (ci->codes[S[v] * ci->n + i] != ci->codes[S[v] * ci->n + j])
			return false;
	return true;
}

/* Number the strata of S in order of first occurrence into ids; returns how many. */
static size_t strata_number(fb_ci *ci, const size_t *S, size_t ns, double prod)
{
	ci_disc_ws *w = &ci->dws;
	bool exact = prod <= DISC_KEY_MAX;
	size_t nstr = 0, mask = w->hcap - 1;

	if (++w->stamp == 0) { /* wrapped: forget every slot */
		memset(w->hstamp, 0, w->hcap * sizeof *w->hstamp);
		w->stamp = 1;
	}
	for (size_t i = 0; i < ci->n; i++) {
		uint64_t k = row_key(ci, S, ns, i, exact);
		size_t h = (size_t)mix(k) & mask;

		while (w->hstamp[h] == w->stamp &&
		       !(w->hkey[h] == k && (exact || rows_equal(ci, S, ns, w->hrow[h], i))))
			h = (h + 1) & mask;
		if (w->hstamp[h] != w->stamp) {
			w->hstamp[h] = w->stamp;
			w->hkey[h] = k;
			w->hrow[h] = (uint32_t)i;
			w->hid[h] = (uint32_t)nstr++;
		}
		w->ids[i] = w->hid[h];
	}
	return nstr;
}

/* Group the rows by stratum (counting sort, rows in order within a stratum). */
static void strata_group(ci_disc_ws *w, size_t n, size_t nstr)
{
	memset(w->start, 0, (nstr + 1) * sizeof *w->start);
	for (size_t i = 0; i < n; i++)
		w->start[w->ids[i] + 1]++;
	for (size_t s = 0; s < nstr; s++)
		w->start[s + 1] += w->start[s];
	for (size_t i = 0; i < n; i++)
		w->order[w->start[w->ids[i]]++] = (uint32_t)i;
	for (size_t s = nstr; s > 0; s--)
		w->start[s] = w->start[s - 1];
	w->start[0] = 0;
}


/* Fill the table of the rows order[lo..hi) and list the levels present. */
static void stratum_fill(fb_ci *ci, size_t x, size_t y, size_t lo, size_t hi, size_t *nr,
                         size_t *nc)
{
	ci_disc_ws *w = &ci->dws;
	const uint16_t *cx = ci->codes + x * ci->n, *cy = ci->codes + y * ci->n;
	size_t ly = ci->nlev[y];

	*nr = *nc = 0;
	for (size_t t = lo; t < hi; t++) {
		uint32_t i = w->order[t], a = cx[i], b = cy[i];

		if (w->rowm[a]++ == 0)
			w->nzr[(*nr)++] = a;
		if (w->colm[b]++ == 0)
			w->nzc[(*nc)++] = b;
		w->tab[a * ly + b]++;
	}
}

/* Compare two codes for qsort. */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sort the k level codes at v ascending: by insertion while they are few (a stratum's
 * levels present, usually a handful), else by qsort. */
static void sort_levels(uint32_t *v, size_t k)
{
	if (k > 32) {
		qsort(v, k, sizeof *v, cmp_u32);
		return;
	}
	for (size_t i = 1; i < k; i++) {
		uint32_t c = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > c; j--)
			v[j] = v[j - 1];
		v[j] = c;
	}
}

/* G² (g2) or Pearson's χ² over one stratum's table (see stratum_stat), in order: 2 O log(O / E)
 * over the filled cells (an empty one adds exactly 0), or (O - E)² / E over every cell of
 * the levels present; how many cells are filled into *filled. */
static double stat_sum(const ci_disc_ws *w, const uint32_t *tab, size_t ly, size_t nr,
                       size_t nc, double N, bool g2, size_t *filled)
{
	double stat = 0.0;

	for (size_t p = 0; p < nr; p++) {
		const uint32_t *row = tab + w->nzr[p] * ly;
		double ra = (double)w->rowm[w->nzr[p]];

		for (size_t q = 0; q < nc; q++) {
			double O = row[w->nzc[q]], E;

			if (g2 && !(O > 0.0))
				continue;
			E = ra * w->colmd[q] / N;
			stat += g2 ? 2.0 * O * log(O / E) : (O - E) * (O - E) / E;
			*filled += O > 0.0;
		}
	}
	return stat;
}

#if defined(__GNUC__) && defined(__x86_64__)
/* Pearson's χ² of stat_sum four cells a step: each term's operations as there, lane by lane
 * (IEEE division and products, so the same bits), the terms added one by one in the same
 * order; the filled cells into *filled.  w->colmd holds a multiple of 4 entries. */
__attribute__((target("avx2"))) static double chi2_sum_avx2(const ci_disc_ws *w,
                                                            const uint32_t *tab, size_t ly,
                                                            size_t nr, size_t nc, double N,
                                                            size_t *filled)
{
	double stat = 0.0, term[4];
	__m256d vN = _mm256_set1_pd(N), zero = _mm256_setzero_pd();

	for (size_t p = 0; p < nr; p++) {
		const uint32_t *row = tab + w->nzr[p] * ly;
		__m256d ra = _mm256_set1_pd((double)w->rowm[w->nzr[p]]);

		for (size_t q = 0; q < nc; q += 4) {
			size_t k = nc - q < 4 ? nc - q : 4;
			const uint32_t *z = w->nzc + q;
			__m256d o, e, dv;

			/* the cells' counts (0 past the last), set lane by lane: no store to reload */
			o = _mm256_set_pd(k > 3 ? (double)row[z[3]] : 0.0,
			                  k > 2 ? (double)row[z[2]] : 0.0,
			                  k > 1 ? (double)row[z[1]] : 0.0, (double)row[z[0]]);
			e = _mm256_div_pd(_mm256_mul_pd(ra, _mm256_loadu_pd(w->colmd + q)), vN);
			dv = _mm256_sub_pd(o, e);
			_mm256_storeu_pd(term, _mm256_div_pd(_mm256_mul_pd(dv, dv), e));
			*filled += (size_t)__builtin_popcount(
			        (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(o, zero, _CMP_GT_OQ)));
			for (size_t u = 0; u < k; u++)
				stat += term[u];
		}
	}
	return stat;
}
#endif

/* The statistic of one stratum's table tab (lx x ly cells, N rows of data) over the nr x
 * levels in w->nzr and the nc y levels in w->nzc (ascending), margins in w->rowm and
 * w->colm; sums in a fixed order so that every path gives the same bits. */
static ci_stratum_sum stratum_stat(const fb_ci *ci, const uint32_t *tab, size_t lx, size_t ly,
                                size_t nr, size_t nc, double N)
{
	const ci_disc_ws *w = &ci->dws;
	size_t filled = 0;
	ci_stratum_sum out = { 0.0, 0.0, 0.0 };

	if ((nr == 1 && nc >= 1) || (nc == 1 && nr >= 1)) {
		/* one level of x (or of y): every filled cell holds its column's (row's) whole
		 * margin, so E = N m / N is exactly O and every term exactly +0 */
		out.empty = (double)(lx * ly - nr * nc);
		return out;
	}
	for (size_t q = 0; q < nc; q++)
		w->colmd[q] = (double)w->colm[w->nzc[q]];
	for (size_t q = nc; q < (nc + 3) / 4 * 4; q++)
		w->colmd[q] = 1.0; /* the last step's unused lanes: finite, read and dropped */
#if defined(__GNUC__) && defined(__x86_64__)
	if (ci->opt.test == FB_CI_CHI2 && __builtin_cpu_supports("avx2"))
		out.stat = chi2_sum_avx2(w, tab, ly, nr, nc, N, &filled);
	else
#endif
		out.stat = stat_sum(w, tab, ly, nr, nc, N, ci->opt.test == FB_CI_G2, &filled);
	out.df_adj = (double)(nr - 1) * (double)(nc - 1);
	out.empty = (double)(lx * ly - filled);
	return out;
}

/* Statistic of the rows order[lo..hi) (one stratum); clears what it filled. */
static ci_stratum_sum stratum_eval(fb_ci *ci, size_t x, size_t y, size_t lo, size_t hi)
{
	ci_disc_ws *w = &ci->dws;
	size_t ly = ci->nlev[y], nr, nc;
	ci_stratum_sum out;

	stratum_fill(ci, x, y, lo, hi, &nr, &nc);
	sort_levels(w->nzr, nr);
	sort_levels(w->nzc, nc);
	out = stratum_stat(ci, w->tab, ci->nlev[x], ly, nr, nc, (double)(hi - lo));
	for (size_t p = 0; p < nr; p++) {
		for (size_t q = 0; q < nc; q++)
			w->tab[w->nzr[p] * ly + w->nzc[q]] = 0;
		w->rowm[w->nzr[p]] = 0;
	}
	for (size_t q = 0; q < nc; q++)
		w->colm[w->nzc[q]] = 0;
	return out;
}

/* Degrees of freedom by the object's convention. */
static double disc_df(const fb_ci *ci, size_t x, size_t y, size_t ns, double prod,
                      size_t nstr, double df_adj, double empty)
{
	double cells = (double)ci->nlev[x] * (double)ci->nlev[y];
	double classical = ((double)ci->nlev[x] - 1.0) * ((double)ci->nlev[y] - 1.0) * prod;

	switch (ci->opt.df) {
	case FB_CI_DF_ADJUSTED:
		return df_adj;
	case FB_CI_DF_CLASSICAL:
		return classical;
	case FB_CI_DF_ADAPT:
		if (ns == 0)
			return classical;
		empty += (prod - (double)nstr) * cells;
		return classical - empty > 1.0 ? classical - empty : 1.0;
	}
	return classical;
}

/* The small-sample rule over n rows: true when it decides, with p set. */
bool ci_disc_small(const fb_ci *ci, size_t x, size_t y, double prod, double n,
                   fb_ci_result *res)
{
	double cells = (double)ci->nlev[x] * (double)ci->nlev[y] * prod;
	double classical = ((double)ci->nlev[x] - 1.0) * ((double)ci->nlev[y] - 1.0) * prod;

	if (ci->opt.small == FB_CI_SMALL_PCALG && n < 10.0 * classical)
		res->p = 1.0;
	else if (ci->opt.small == FB_CI_SMALL_FEDPC && n / cells < 5.0)
		res->p = 0.0;
	else
		return false;
	res->flags |= FB_CI_SMALL;
	return true;
}

/* The margins of the lx x ly counts at tab into w->rowm and w->colm (zero before); their
 * total.  few (ly <= 8): the column sums kept in a local array, which stays in registers
 * when this is inlined with ly a constant. */
static inline __attribute__((always_inline)) size_t
margins_of(ci_disc_ws *w, const uint32_t *restrict tab, size_t lx, size_t ly, bool few)
{
	uint32_t local[8] = { 0 }, *restrict col = few ? local : w->colm;
	size_t N = 0;

	for (size_t a = 0; a < lx; a++) {
		const uint32_t *row = tab + a * ly;
		uint32_t r = 0;

		for (size_t b = 0; b < ly; b++) {
			r += row[b];
			col[b] += row[b];
		}
		w->rowm[a] = r;
		N += r;
	}
	for (size_t b = 0; few && b < ly; b++)
		w->colm[b] = local[b];
	return N;
}

/* The margins (margins_of), the usual small numbers of y's levels as constants. */
static size_t margins(ci_disc_ws *w, const uint32_t *tab, size_t lx, size_t ly)
{
	switch (ly) {
	case 2:
		return margins_of(w, tab, lx, 2, true);
	case 3:
		return margins_of(w, tab, lx, 3, true);
	case 4:
		return margins_of(w, tab, lx, 4, true);
	case 5:
		return margins_of(w, tab, lx, 5, true);
	default:
		return margins_of(w, tab, lx, ly, false);
	}
}

#if defined(__GNUC__) && defined(__x86_64__)
/* margins for ly <= 16, a row a step in one 16-lane register (the same sums: whole numbers). */
__attribute__((target("avx512f"))) static size_t margins_avx512(ci_disc_ws *w,
                                                                const uint32_t *tab, size_t lx,
                                                                size_t ly)
{
	__mmask16 m = (__mmask16)((1u << ly) - 1u);
	__m512i col = _mm512_setzero_si512();
	size_t N = 0;

	for (size_t a = 0; a < lx; a++) {
		__m512i row = _mm512_maskz_loadu_epi32(m, tab + a * ly);
		uint32_t r = (uint32_t)_mm512_reduce_add_epi32(row);

		col = _mm512_add_epi32(col, row);
		w->rowm[a] = r;
		N += r;
	}
	_mm512_mask_storeu_epi32(w->colm, m, col);
	return N;
}
#endif

/* The statistic of the stratum whose lx x ly counts are at tab, in the order of
 * stratum_eval (its rows are the sum of its counts); leaves tab as it is. */
ci_stratum_sum ci_disc_table_keep(fb_ci *ci, const uint32_t *tab, size_t lx, size_t ly)
{
	ci_disc_ws *w = &ci->dws;
	size_t nr = 0, nc = 0, N;
	ci_stratum_sum out;

#if defined(__GNUC__) && defined(__x86_64__)
	if (ly >= 6 && ly <= 16 && __builtin_cpu_supports("avx512f"))
		N = margins_avx512(w, tab, lx, ly);
	else
#endif
		N = margins(w, tab, lx, ly);
	for (size_t a = 0; a < lx; a++) { /* listed without a branch to mispredict */
		w->nzr[nr] = (uint32_t)a;
		nr += w->rowm[a] > 0;
	}
	for (size_t b = 0; b < ly; b++) {
		w->nzc[nc] = (uint32_t)b;
		nc += w->colm[b] > 0;
	}
	out = stratum_stat(ci, tab, lx, ly, nr, nc, (double)N);
	for (size_t a = 0; a < lx; a++)
		w->rowm[a] = 0;
	for (size_t b = 0; b < ly; b++)
		w->colm[b] = 0;
	return out;
}

/* The statistic of the stratum whose lx x ly counts are at tab, in the order of
 * stratum_eval (its rows are the sum of its counts); clears tab. */
ci_stratum_sum ci_disc_table(fb_ci *ci, uint32_t *tab, size_t lx, size_t ly)
{
	ci_stratum_sum out = ci_disc_table_keep(ci, tab, lx, ly);

	memset(tab, 0, lx * ly * sizeof *tab);
	return out;
}

/* Strata by hashing and grouping the rows, for tables too large for the dense path; false
 * when out of memory. */
static bool sparse_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                       ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;

	if (!sparse_alloc(w, ci->n))
		return false;
	*nstr = 1;
	if (ns > 0 && w->msparse != CI_MEMO_NONE) {
		*nstr = w->msparse; /* S's strata, grouped for its last test */
	} else if (ns > 0) {
		if ((*nstr = ci_disc_dense_strata(ci, S, ns, prod, w->ids)) == 0)
			*nstr = strata_number(ci, S, ns, prod);
		strata_group(w, ci->n, *nstr);
		w->msparse = *nstr;
	} else {
		for (size_t i = 0; i < ci->n; i++)
			w->order[i] = (uint32_t)i;
		w->start[0] = 0;
		w->start[1] = (uint32_t)ci->n;
	}
	for (size_t s = 0; s < *nstr; s++) {
		ci_stratum_sum t = stratum_eval(ci, x, y, w->start[s], w->start[s + 1]);

		sum->stat += t.stat;
		sum->df_adj += t.df_adj;
		sum->empty += t.empty;
		if (ci_disc_stop(w, sum, *nstr - s - 1,
		                 (double)(ci->nlev[x] - 1) * (double)(ci->nlev[y] - 1)))
			break;
	}
	return true;
}

/* True when the χ² strata summed so far make the test a dependence at the level of
 * w->stop_t whatever the nrem strata left add (each at most dmax degrees of freedom): with
 * D = df_adj + nrem dmax (the most the final df can be), P(χ²_D >= D + 2 sqrt(D t) + 2 t) <=
 * exp(-t) = alpha / 4 (Laurent and Massart 2000, Lemma 1), and the final statistic is at
 * least the sum so far (its terms are >= 0; rounding keeps the order), so the p-value is at
 * most alpha / 4 whatever its last bits; df_adj >= 1 already keeps the df = 0 rule out. */
bool ci_disc_stop(ci_disc_ws *w, const ci_stratum_sum *sum, size_t nrem, double dmax)
{
	double t = w->stop_t, D = sum->df_adj + (double)nrem * dmax;

	if (!(t > 0.0) || sum->df_adj < 1.0 || sum->stat < D + 2.0 * t ||
	    sum->stat < D + 2.0 * sqrt(D * t) + 2.0 * t)
		return false;
	w->stopped = true;
	return true;
}

/* Let the coming χ² test stop early at level alpha (0: not) when it is asked only whether
 * it is a dependence: the adjusted df, and its answer kept by no cache when a dependence. */
void ci_disc_decide(fb_ci *ci, double alpha)
{
	ci->dws.stop_t = 0.0;
	if (alpha > 0.0 && alpha < 1.0 && ci->codes != NULL && ci->opt.test == FB_CI_CHI2 &&
	    ci->opt.df == FB_CI_DF_ADJUSTED && (!ci->opt.cache || ci->keep_max < 0.0))
		ci->dws.stop_t = log(4.0 / alpha);
}

/* Whether v is among the ns variables at S. */
static bool set_has(const size_t *S, size_t ns, size_t v)
{
	for (size_t k = 0; k < ns; k++)
		if (S[k] == v)
			return true;
	return false;
}

/* Keep the strata while S (sorted) is the kept set, in whatever order its members were
 * taken; else keep those of the longest prefix of the kept order whose members are all in
 * S, which S's other members then follow in w->mS (ascending).  The paths build strata over
 * w->mS in that order: a stratum is a configuration of S and they are visited in order of
 * first row, so the order changes nothing but what is rebuilt (sets tried in the order of
 * a list of candidates keep their first members in front). */
void ci_memo_begin(ci_disc_ws *w, const size_t *S, size_t ns)
{
	size_t p = 0, q;

	while (w->mns != SIZE_MAX && p < w->mns && p < ns && set_has(S, ns, w->mS[p]))
		p++;
	if (p == ns && w->mns == ns)
		return;
	w->kvalid = p < w->kvalid ? p : w->kvalid;
	w->bvalid = p < w->bvalid ? p : w->bvalid;
	q = p;
	for (size_t k = p; w->mns != SIZE_MAX && k < w->mns; k++)
		if (set_has(S, ns, w->mS[k]))
			w->mS[q++] = w->mS[k]; /* q <= k: moved down, never over one unread */
	for (size_t k = 0; k < ns; k++)
		if (!set_has(w->mS, q, S[k]))
			w->mS[q++] = S[k];
	w->mns = ns;
	w->mbits = w->mdense = w->msparse = CI_MEMO_NONE;
	w->mu = SIZE_MAX;
}

/* G² or χ² for a canonical query. */
void ci_disc_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                 fb_ci_result *res)
{
	double prod = 1.0;
	ci_stratum_sum sum = { 0.0, 0.0, 0.0 };
	size_t nstr = 1;

	memset(res, 0, sizeof *res);
	res->r = NAN;
	for (size_t v = 0; v < ns; v++)
		prod *= (double)ci->nlev[S[v]];
	if (ci_disc_small(ci, x, y, prod, (double)ci->n, res))
		return;
	ci_memo_begin(&ci->dws, S, ns);
	S = ci->dws.mS; /* its members in the order the kept strata were built */
	ci->dws.stopped = false;
	if (!ci_bits_run(ci, x, y, S, ns, prod, &sum, &nstr) &&
	    !ci_disc_dense_run(ci, x, y, S, ns, prod, &sum, &nstr) &&
	    !sparse_run(ci, x, y, S, ns, prod, &sum, &nstr)) {
		res->p = res->stat = NAN;
		res->flags |= FB_CI_INVALID;
		return;
	}
	if (ci->dws.stopped) { /* a sure dependence: p below alpha / 4, not computed */
		res->p = 0.0;
		res->stat = sum.stat;
		res->df = sum.df_adj;
		return;
	}
	ci_disc_finish(ci, x, y, ns, prod, nstr, &sum, res);
}

/* The answer from the strata's sums: the degrees of freedom by the object's convention, and
 * the p-value (or the df = 0 rule). */
void ci_disc_finish(const fb_ci *ci, size_t x, size_t y, size_t ns, double prod, size_t nstr,
                    const ci_stratum_sum *sum, fb_ci_result *res)
{
	res->stat = sum->stat;
	res->df = disc_df(ci, x, y, ns, prod, nstr, sum->df_adj, sum->empty);
	if (!(res->df > 0.0)) {
		res->p = ci->opt.zero_df == FB_CI_ZERO_DF_DEPENDENT && ns > 0 &&
		                 ci->present[x] > 1 && ci->present[y] > 1
		         ? 0.0
		         : 1.0;
		res->flags |= FB_CI_ZERO_DF;
		return;
	}
	res->p = gsl_cdf_chisq_Q(sum->stat > 0.0 ? sum->stat : 0.0, res->df);
}
