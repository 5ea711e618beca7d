/* The conditional-independence test object: settings, construction, canonical queries
 * (x < y, S sorted), the cache and the counters.  The tests themselves are in ci-fisher.c,
 * ci-discrete.c and ci-kci.c. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Defaults: auto, adjusted df, no small-sample rule, df = 0 independent, pseudo-inverse,
 * 2 Q(T), cache on. */
void fb_ci_options_init(fb_ci_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->test = FB_CI_AUTO;
	opt->df = FB_CI_DF_ADJUSTED;
	opt->small = FB_CI_SMALL_NONE;
	opt->zero_df = FB_CI_ZERO_DF_INDEPENDENT;
	opt->singular = FB_CI_SINGULAR_PINV;
	opt->fisher_p = FB_CI_FISHER_P_UPPER;
	opt->cache = true;
}

/* Name of a test. */
const char *fb_ci_test_name(enum fb_ci_test test)
{
	switch (test) {
	case FB_CI_AUTO:
		return "auto";
	case FB_CI_FISHER_Z:
		return "fisher-z";
	case FB_CI_G2:
		return "g2";
	case FB_CI_CHI2:
		return "chi2";
	case FB_CI_KCI:
		return "kci";
	case FB_CI_DG:
		return "dg";
	}
	return "?";
}

/* The test that auto means for ds. */
int fb_ci_test_for(const fb_dataset *ds, enum fb_ci_test *test, fb_error *err)
{
	size_t nd;

	if (ds == NULL || ds->d < 1)
		return fb_fail(err, "a conditional-independence test needs at least one variable");
	nd = fb_dataset_n_discrete(ds);
	if (nd == 0)
		*test = FB_CI_FISHER_Z;
	else if (nd == ds->d)
		*test = FB_CI_G2;
	else
		*test = FB_CI_DG;
	return FB_OK;
}

/* A new, empty object for d variables and n rows; NULL when out of memory. */
fb_ci *ci_new(size_t d, size_t n, const fb_ci_options *opt)
{
	fb_ci *ci = calloc(1, sizeof *ci);

	if (ci == NULL)
		return NULL;
	if (opt != NULL)
		ci->opt = *opt;
	else
		fb_ci_options_init(&ci->opt);
	ci->d = d;
	ci->n = n;
	ci->keep_max = INFINITY;
	ci->band_alpha = NAN;
	ci->sorted = malloc(d * sizeof *ci->sorted);
	ci->key = malloc((d + 2) * sizeof *ci->key);
	if (ci->sorted == NULL || ci->key == NULL) {
		fb_ci_free(ci);
		return NULL;
	}
	return ci;
}

/* Check the sizes every object needs. */
static int ci_check_sizes(size_t d, size_t n, fb_error *err)
{
	if (d < 1)
		return fb_fail(err, "a conditional-independence test needs at least one variable");
	if (n < 1)
		return fb_fail(err, "a conditional-independence test needs at least one row");
	if (d > UINT32_MAX - 2 || n > UINT32_MAX - 1)
		return fb_fail(err, "too many variables or rows for a conditional-independence "
		                    "test (%zu x %zu)", n, d);
	return FB_OK;
}

/* Build the statistics of ds. */
fb_ci *fb_ci_alloc(const fb_dataset *ds, const fb_ci_options *opt, fb_error *err)
{
	fb_ci_options o;
	fb_ci *ci;
	int ret;

	if (opt != NULL)
		o = *opt;
	else
		fb_ci_options_init(&o);
	if (ds == NULL) {
		fb_fail(err, "no dataset to test");
		return NULL;
	}
	if (ci_check_sizes(ds->d, ds->n, err) != FB_OK)
		return NULL;
	if (o.test == FB_CI_AUTO && fb_ci_test_for(ds, &o.test, err) != FB_OK)
		return NULL;
	if ((ci = ci_new(ds->d, ds->n, &o)) == NULL) {
		fb_fail(err, "out of memory for a %zu-variable test", ds->d);
		return NULL;
	}
	if (o.test == FB_CI_FISHER_Z)
		ret = ci_fisher_init(ci, ds, NULL, NULL, err);
	else if (o.test == FB_CI_KCI)
		ret = ci_kci_init(ci, ds, err);
	else if (o.test == FB_CI_DG)
		ret = ci_dg_init(ci, ds, err);
	else
		ret = ci_disc_init(ci, ds, err);
	if (ret != FB_OK) {
		fb_ci_free(ci);
		return NULL;
	}
	return ci;
}

/* Whether col (d entries) names every column of a d-column dataset once; else the reason. */
static int check_permutation(const size_t *col, size_t d, fb_error *err)
{
	unsigned char *seen = calloc(d, 1);
	int ret = FB_OK;

	if (seen == NULL)
		return fb_fail(err, "out of memory for a %zu-variable test", d);
	for (size_t j = 0; j < d && ret == FB_OK; j++)
		if (col[j] >= d || seen[col[j]]++)
			ret = fb_fail(err, "variable %zu of the test reads column %zu, which is %s",
			              j + 1, col[j] + 1, col[j] >= d ? "past the dataset's last"
			                                              : "read by another variable");
	free(seen);
	return ret;
}

/* A Fisher-z object over ds's columns in the order col gives, without a copy of ds. */
fb_ci *fb_ci_alloc_cols(const fb_dataset *ds, const size_t *col_of, const fb_ci_options *opt,
                        fb_ci_scratch *scratch, fb_error *err)
{
	fb_ci *ci;

	if (ds == NULL || col_of == NULL) {
		fb_fail(err, "no dataset or column order to test");
		return NULL;
	}
	if (opt == NULL || opt->test != FB_CI_FISHER_Z) {
		fb_fail(err, "a test over reordered columns is fisher-z's only");
		return NULL;
	}
	if (ci_check_sizes(ds->d, ds->n, err) != FB_OK ||
	    check_permutation(col_of, ds->d, err) != FB_OK)
		return NULL;
	if ((ci = ci_new(ds->d, ds->n, opt)) == NULL) {
		fb_fail(err, "out of memory for a %zu-variable test", ds->d);
		return NULL;
	}
	if (ci_fisher_init(ci, ds, col_of, scratch, err) != FB_OK) {
		fb_ci_free(ci);
		return NULL;
	}
	return ci;
}

/* Check that R is a correlation matrix: symmetric, unit diagonal, entries in [-1, 1]. */
static int check_corr(const double *R, size_t d, fb_error *err)
{
	for (size_t i = 0; i < d; i++) {
		if (R[i * d + i] != 1.0)
			return fb_fail(err, "correlation matrix: diagonal entry %zu is %g, not 1", i + 1,
			               R[i * d + i]);
		for (size_t j = 0; j < i; j++) {
			double a = R[i * d + j];

			if (!(a >= -1.0 && a <= 1.0) || a != R[j * d + i])
				return fb_fail(err, "correlation matrix: entry (%zu, %zu) is not a "
				                    "symmetric value in [-1, 1]", i + 1, j + 1);
		}
	}
	return FB_OK;
}

/* A Fisher-z object from a correlation matrix. */
fb_ci *fb_ci_alloc_corr(const double *R, size_t d, size_t n, const fb_ci_options *opt,
                        fb_error *err)
{
	fb_ci_options o;
	fb_ci *ci;

	if (opt != NULL)
		o = *opt;
	else
		fb_ci_options_init(&o);
	if (o.test != FB_CI_AUTO && o.test != FB_CI_FISHER_Z) {
		fb_fail(err, "a correlation matrix supports fisher-z only, not %s",
		        fb_ci_test_name(o.test));
		return NULL;
	}
	o.test = FB_CI_FISHER_Z;
	if (ci_check_sizes(d, n, err) != FB_OK || check_corr(R, d, err) != FB_OK)
		return NULL;
	if ((ci = ci_new(d, n, &o)) == NULL ||
	    (ci->corr = malloc((d * (d + 1) / 2 > 0 ? d * (d + 1) / 2 : 1) * sizeof *R)) == NULL) {
		fb_ci_free(ci);
		fb_fail(err, "out of memory for a %zu x %zu correlation matrix", d, d);
		return NULL;
	}
	for (size_t i = 0; i < d; i++)
		memcpy(ci->corr + ci_packed_at(d, i, i), R + i * d + i, (d - i) * sizeof *R);
	return ci;
}

/* Free a test object. */
void fb_ci_free(fb_ci *ci)
{
	if (ci == NULL)
		return;
	if (!ci->corr_shared)
		free(ci->corr);
	ci_lazy_free(ci->lazy);
	if (ci->kdata != NULL)
		gsl_matrix_free(ci->kdata);
	ci_kci_memo_free(ci->kmemo, ci->n);
	ci_fisher_ws_release(&ci->fws);
	ci_dg_release(ci);
	ci_sep_ws_release(&ci->sws);
	if (ci->codes_shared) { /* the helped object's */
		ci->codes = NULL;
		ci->nlev = ci->present = NULL;
		ci->dws.bits = NULL;
		ci->dws.bitoff = NULL;
	}
	free(ci->codes);
	free(ci->nlev);
	free(ci->present);
	ci_disc_ws_release(&ci->dws);
	ci_cache_release(&ci->cache);
	free(ci->sorted);
	free(ci->key);
	for (size_t k = 0; k < ci->nhelpers; k++)
		fb_ci_free(ci->helpers[k]);
	free(ci->helpers);
	free(ci);
}

/* Free a Fisher-z object's tests, keeping its counters. */
void fb_ci_release(fb_ci *ci)
{
	if (ci == NULL || ci->opt.test != FB_CI_FISHER_Z)
		return;
	if (!ci->corr_shared)
		free(ci->corr);
	ci->corr = NULL;
	ci_lazy_free(ci->lazy);
	ci->lazy = NULL;
	ci_fisher_ws_release(&ci->fws);
	ci_sep_ws_release(&ci->sws);
	ci_cache_release(&ci->cache);
	for (size_t k = 0; k < ci->nhelpers; k++)
		fb_ci_free(ci->helpers[k]);
	free(ci->helpers);
	ci->helpers = NULL;
	ci->nhelpers = 0;
}

/* Whether the tests were freed: a Fisher-z object with neither a matrix nor a source of
 * correlations, which only fb_ci_release leaves. */
bool fb_ci_released(const fb_ci *ci)
{
	return ci->opt.test == FB_CI_FISHER_Z && ci->corr == NULL && ci->lazy == NULL;
}

/* FB_ERR when ci's tests were freed. */
static int ci_check_kept(const fb_ci *ci, fb_error *err)
{
	if (fb_ci_released(ci))
		return fb_fail(err, "the test object was released when its run finished: it "
		               "answers no further test");
	return FB_OK;
}

/* A helper of a Fisher-z object: its own work space, cache and counters over the owner's
 * correlation matrix (read only, and outlived by the owner); NULL when out of memory. */
static fb_ci *ci_fisher_helper(const fb_ci *ci, fb_error *err)
{
	fb_ci *one = ci_new(ci->d, ci->n, &ci->opt);

	if (one == NULL) {
		fb_fail(err, "out of memory for a %zu-variable test", ci->d);
		return NULL;
	}
	one->corr = ci->corr;
	one->corr_shared = true;
	return one;
}

/* A helper of a discrete object built from a dataset: its own work space, cache and
 * counters over the owner's codes and row sets (read only, and outlived by the owner); NULL
 * with the reason. */
static fb_ci *ci_disc_helper(const fb_ci *ci, fb_error *err)
{
	fb_ci *one = ci_new(ci->d, ci->n, &ci->opt);

	if (one == NULL) {
		fb_fail(err, "out of memory for a %zu-variable test", ci->d);
		return NULL;
	}
	if (ci_disc_share(one, ci, err) != FB_OK) {
		fb_ci_free(one);
		return NULL;
	}
	return one;
}

/* A helper of ci over ds: Fisher-z's shares ci's correlation matrix, a discrete one its
 * codes; the others build their own statistics from ds. */
static fb_ci *ci_helper(const fb_ci *ci, const fb_dataset *ds, fb_error *err)
{
	if (ci->opt.test == FB_CI_FISHER_Z)
		return ci_fisher_helper(ci, err);
	if ((ci->opt.test == FB_CI_G2 || ci->opt.test == FB_CI_CHI2) && ci->codes != NULL)
		return ci_disc_helper(ci, err);
	return fb_ci_alloc(ds, &ci->opt, err);
}

/* Give ci n helpers over ds (Fisher-z's and discrete ones share ci's statistics). */
int fb_ci_helpers_alloc(fb_ci *ci, const fb_dataset *ds, size_t n, fb_error *err)
{
	fb_ci **h;

	if (ds->d != ci->d || ds->n != ci->n)
		return fb_fail(err, "helpers need the data of the test object (%zu x %zu), not "
		                    "%zu x %zu", ci->n, ci->d, ds->n, ds->d);
	if (ci->lazy != NULL)
		return fb_fail(err, "a test object with correlations on demand has no helpers");
	if ((h = realloc(ci->helpers, (ci->nhelpers + n) * sizeof *h)) == NULL)
		return fb_fail(err, "out of memory for %zu helpers", n);
	ci->helpers = h;
	for (size_t k = 0; k < n; k++) {
		fb_ci *one = ci_helper(ci, ds, err);

		if (one == NULL)
			return FB_ERR;
		h[ci->nhelpers++] = one;
	}
	return FB_OK;
}

/* Move the query counters of from into ci's. */
void fb_ci_take_counts(fb_ci *ci, fb_ci *from)
{
	fb_ci_add_counts(ci, &from->st);
	from->st.queries = from->st.hits = from->st.computed = from->st.undefined = 0;
	from->st.singular = from->st.small = from->st.zero_df = 0;
}

/* Add the query counters of st to ci's. */
void fb_ci_add_counts(fb_ci *ci, const fb_ci_stats *st)
{
	ci->st.queries += st->queries;
	ci->st.hits += st->hits;
	ci->st.computed += st->computed;
	ci->st.undefined += st->undefined;
	ci->st.singular += st->singular;
	ci->st.small += st->small;
	ci->st.zero_df += st->zero_df;
}

/* The number of helpers. */
size_t fb_ci_n_helpers(const fb_ci *ci)
{
	return ci->nhelpers;
}

/* Helper k. */
fb_ci *fb_ci_helper(const fb_ci *ci, size_t k)
{
	return k < ci->nhelpers ? ci->helpers[k] : NULL;
}

/* Compare two indices for qsort. */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Whether the ns entries of a increase (PC's sets usually do: no sort needed). */
static bool sorted_already(const size_t *a, size_t ns)
{
	for (size_t k = 1; k < ns; k++)
		if (a[k] <= a[k - 1])
			return false;
	return true;
}

/* Check a query and sort S into out; FB_ERR naming the fault. */
static int ci_canonical(size_t d, size_t x, size_t y, const size_t *S, size_t ns, size_t *out,
                        fb_error *err)
{
	if (x >= d || y >= d)
		return fb_fail(err, "variable %zu is out of range (there are %zu)",
		               (x >= d ? x : y) + 1, d);
	if (x == y)
		return fb_fail(err, "a variable cannot be tested against itself (%zu)", x + 1);
	if (ns + 2 > d)
		return fb_fail(err, "a conditioning set of %zu variables cannot avoid both tested "
		                    "ones among %zu", ns, d);
	if (ns > 0)
		memcpy(out, S, ns * sizeof *S);
	if (ns > 1 && !sorted_already(out, ns))
		qsort(out, ns, sizeof *out, cmp_size);
	for (size_t k = 0; k < ns; k++) {
		if (out[k] >= d)
			return fb_fail(err, "conditioning variable %zu is out of range (there are %zu)",
			               out[k] + 1, d);
		if (out[k] == x || out[k] == y)
			return fb_fail(err, "variable %zu is both tested and conditioned on",
			               out[k] + 1);
		if (k > 0 && out[k] == out[k - 1])
			return fb_fail(err, "variable %zu appears twice in the conditioning set",
			               out[k] + 1);
	}
	return FB_OK;
}

/* Mark res as the answer to a bad query. */
static void ci_invalid(fb_ci_result *res)
{
	res->p = NAN;
	res->stat = NAN;
	res->df = 0.0;
	res->r = NAN;
	res->flags = FB_CI_INVALID;
}

/* Count a computed answer's flags. */
void ci_count(fb_ci *ci, const fb_ci_result *res)
{
	ci_count_into(&ci->st, res);
}

/* Count a computed answer's flags into st. */
void ci_count_into(fb_ci_stats *st, const fb_ci_result *res)
{
	st->computed++;
	st->undefined += (res->flags & FB_CI_UNDEFINED) != 0;
	st->singular += (res->flags & FB_CI_SINGULAR) != 0;
	st->small += (res->flags & FB_CI_SMALL) != 0;
	st->zero_df += (res->flags & FB_CI_ZERO_DF) != 0;
}

/* Count a query of x _||_ y | S and look it up (its key and hash left in ci->key and *h):
 * true with the kept answer in res when the cache has it. */
static bool ci_lookup(fb_ci *ci, size_t x, size_t y, size_t ns, uint64_t *h, fb_ci_result *res)
{
	size_t nk = ns + 2;

	ci->st.queries++;
	if (!ci->opt.cache)
		return false;
	ci->key[0] = (uint32_t)(x < y ? x : y);
	ci->key[1] = (uint32_t)(x < y ? y : x);
	for (size_t k = 0; k < ns; k++)
		ci->key[k + 2] = (uint32_t)ci->sorted[k];
	ci->key_hashed = !ci->fresh && ci->cache.used > 0;
	if (!ci->key_hashed)
		return false;
	*h = ci_cache_hash(ci->key, nk);
	if (!ci_cache_find(&ci->cache, *h, ci->key, nk, res))
		return false;
	ci->st.hits++;
	res->flags |= FB_CI_CACHED;
	return true;
}

/* Count a computed answer and keep it under the key ci_lookup left. */
static void ci_keep(fb_ci *ci, size_t ns, uint64_t h, const fb_ci_result *res)
{
	ci_count(ci, res);
	if (!ci->opt.cache || res->p > ci->keep_max)
		return;
	if (!ci->key_hashed)
		h = ci_cache_hash(ci->key, ns + 2);
	ci_cache_put(&ci->cache, h, ci->key, ns + 2, res);
}

/* Test x _||_ y | S. */
int fb_ci_test(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res,
               fb_error *err)
{
	size_t a = x < y ? x : y, b = x < y ? y : x;
	uint64_t h = 0;

	if (ci_check_kept(ci, err) != FB_OK ||
	    ci_canonical(ci->d, x, y, S, ns, ci->sorted, err) != FB_OK) {
		ci_invalid(res);
		return FB_ERR;
	}
	if (ci_lookup(ci, x, y, ns, &h, res))
		return FB_OK;
	if (ci->codes == NULL && (ci->opt.test == FB_CI_G2 || ci->opt.test == FB_CI_CHI2)) {
		ci_invalid(res); /* an object of pooled tables answers only what it was given */
		return fb_fail(err, "no pooled table was given for the test of variables %zu and %zu "
		               "given %zu others", a + 1, b + 1, ns);
	}
	if (ci->opt.test == FB_CI_FISHER_Z)
		ci_fisher_run(ci, a, b, ci->sorted, ns, res);
	else if (ci->opt.test == FB_CI_KCI)
		ci_kci_run(ci, a, b, ci->sorted, ns, res);
	else if (ci->opt.test == FB_CI_DG)
		ci_dg_run(ci, a, b, ci->sorted, ns, res);
	else
		ci_disc_run(ci, a, b, ci->sorted, ns, res);
	if (res->flags & FB_CI_INVALID)
		return fb_fail(err, "out of memory for a test with %zu conditioning variables", ns);
	ci_keep(ci, ns, h, res);
	return FB_OK;
}

/* Fisher-z's x _||_ y | S (ns >= 1) at level alpha, as fb_ci_test answers and counts it:
 * looked up in the cache, and on a miss decided from the partial correlation when that is
 * sure and the answer would not be kept (an independence above what the cache keeps, or a
 * dependence while it keeps nothing), else tested. */
static int fisher_independent(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                              double alpha, bool *indep, fb_error *err)
{
	size_t a = x < y ? x : y, b = x < y ? y : x;
	uint64_t h = 0;
	fb_ci_result res;
	int sure;

	if (ci_canonical(ci->d, x, y, S, ns, ci->sorted, err) != FB_OK)
		return FB_ERR;
	if (ci_lookup(ci, x, y, ns, &h, &res)) {
		*indep = res.p > alpha;
		return FB_OK;
	}
	sure = ci_fisher_decide(ci, a, b, ci->sorted, ns, alpha);
	if ((sure == 1 && (!ci->opt.cache || ci->keep_max <= alpha)) ||
	    (sure == 0 && (!ci->opt.cache || ci->keep_max < 0.0))) {
		ci->st.computed++;
		*indep = sure == 1;
		return FB_OK;
	}
	ci_fisher_run(ci, a, b, ci->sorted, ns, &res);
	if (res.flags & FB_CI_INVALID)
		return fb_fail(err, "out of memory for a test with %zu conditioning variables", ns);
	ci_keep(ci, ns, h, &res);
	*indep = res.p > alpha;
	return FB_OK;
}

/* Whether x _||_ y | S holds at level alpha, as fb_ci_test answers and counts it.  Fisher-z
 * given the empty set decides from the correlation when that is sure and the answer would
 * not be kept anyway (the cache off, or an independence above what it keeps); it counts as
 * a computed query, exactly as the test it stands for.  Given a set, the same after the
 * cache is asked (fisher_independent). */
int fb_ci_independent(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double alpha,
                      bool *indep, fb_error *err)
{
	fb_ci_result res;
	int sure = -1, ret;

	if (ci_check_kept(ci, err) != FB_OK)
		return FB_ERR;
	if (ci->opt.test == FB_CI_FISHER_Z && ns > 0)
		return fisher_independent(ci, x, y, S, ns, alpha, indep, err);
	if (ci->opt.test == FB_CI_FISHER_Z && ns == 0 && x < ci->d && y < ci->d && x != y &&
	    ci->d >= 2)
		sure = ci_fisher_decide0(ci, x, y, alpha);
	if (sure == 1 && (!ci->opt.cache || ci->keep_max <= alpha)) {
		ci->st.queries++;
		ci->st.computed++;
		*indep = true;
		return FB_OK;
	}
	if (sure == 0 && !ci->opt.cache) {
		ci->st.queries++;
		ci->st.computed++;
		*indep = false;
		return FB_OK;
	}
	ci_disc_decide(ci, alpha); /* only the answer matters: chi2 may stop when sure */
	ret = fb_ci_test(ci, x, y, S, ns, &res, err);
	ci_disc_decide(ci, 0.0);
	if (ret != FB_OK)
		return FB_ERR;
	*indep = res.p > alpha;
	return FB_OK;
}

/* Take an answer computed elsewhere as if tested here. */
int fb_ci_record(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                 const fb_ci_result *res, fb_error *err)
{
	fb_ci_result kept;
	uint64_t h = 0;

	if (ci_canonical(ci->d, x, y, S, ns, ci->sorted, err) != FB_OK)
		return FB_ERR;
	if (!ci_lookup(ci, x, y, ns, &h, &kept)) {
		kept = *res;
		kept.flags &= ~(unsigned)FB_CI_CACHED;
		ci_keep(ci, ns, h, &kept);
	}
	return FB_OK;
}

/* The p-value of x _||_ y | S. */
double fb_ci_pvalue(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                    unsigned *flags)
{
	fb_ci_result res;

	fb_ci_test(ci, x, y, S, ns, &res, NULL);
	if (flags != NULL)
		*flags = res.flags;
	return res.p;
}

/* Fisher-z from a correlation matrix, without an object. */
int fb_ci_fisher_from_corr(const double *R, size_t d, size_t n, size_t x, size_t y,
                           const size_t *S, size_t ns, const fb_ci_options *opt,
                           fb_ci_result *res, fb_error *err)
{
	fb_ci_options o;
	ci_fisher_ws ws = { 0 };
	size_t *sorted = malloc((d > 0 ? d : 1) * sizeof *sorted);
	int ret = FB_OK;

	if (opt != NULL)
		o = *opt;
	else
		fb_ci_options_init(&o);
	if (sorted == NULL) {
		ci_invalid(res);
		return fb_fail(err, "out of memory for a %zu-variable test", d);
	}
	if (ci_canonical(d, x, y, S, ns, sorted, err) != FB_OK) {
		ci_invalid(res);
		ret = FB_ERR;
	} else {
		ci_corr C = { R, d, false, NULL };

		ci_fisher_compute(&C, n, x < y ? x : y, x < y ? y : x, sorted, ns, &o, &ws, res);
		if (res->flags & FB_CI_INVALID)
			ret = fb_fail(err, "out of memory for a test with %zu conditioning variables",
			              ns);
	}
	ci_fisher_ws_release(&ws);
	free(sorted);
	return ret;
}

/* The test the object runs. */
enum fb_ci_test fb_ci_kind(const fb_ci *ci)
{
	return ci->opt.test;
}

/* Number of variables. */
size_t fb_ci_d(const fb_ci *ci)
{
	return ci->d;
}

/* Number of rows. */
size_t fb_ci_n(const fb_ci *ci)
{
	return ci->n;
}

/* The counters. */
void fb_ci_get_stats(const fb_ci *ci, fb_ci_stats *st)
{
	*st = ci->st;
}

/* Keep answers from now on, or not. */
void fb_ci_cache_set(fb_ci *ci, bool on)
{
	ci->opt.cache = on;
}

/* Whether answers are kept. */
bool fb_ci_cache_on(const fb_ci *ci)
{
	return ci->opt.cache;
}

/* Keep only answers with p <= pmax from now on. */
void fb_ci_cache_keep(fb_ci *ci, double pmax)
{
	ci->keep_max = pmax;
}

/* Whether the coming queries are known to be absent from the cache. */
void fb_ci_cache_fresh(fb_ci *ci, bool fresh)
{
	ci->fresh = fresh;
}

/* Forget every cached answer. */
void fb_ci_cache_clear(fb_ci *ci)
{
	ci_cache_release(&ci->cache);
}

/* A cache's memory apart from any object. */
struct fb_ci_spare {
	ci_cache cache;
};

/* A spare with no memory yet. */
fb_ci_spare *fb_ci_spare_alloc(void)
{
	return calloc(1, sizeof(fb_ci_spare));
}

/* Empty ci's cache and exchange its memory with the spare's (which is empty too). */
void fb_ci_cache_swap(fb_ci *ci, fb_ci_spare *spare)
{
	ci_cache c = spare->cache;

	ci_cache_reset(&ci->cache);
	spare->cache = ci->cache;
	ci->cache = c;
}

/* Free a spare. */
void fb_ci_spare_free(fb_ci_spare *spare)
{
	if (spare == NULL)
		return;
	ci_cache_release(&spare->cache);
	free(spare);
}
