/* Unit tests of KCI: the p-values causal-learn's KCI_UInd and KCI_CInd (gamma approximation,
 * empirical widths) give on the seeded 300-row datasets of its own tests
 * (tests/data/kci/README.md), to 1e-4, given nothing, one and two variables; the low-rank
 * route against the dense one on 1000 rows (given three variables with its exact regression
 * on z), and the fall-back to the dense route; the remembered factors of tests' sides; a
 * nonlinear dependence that correlation misses; a constant column; the cache and the
 * argument order. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include <gsl/gsl_randist.h>

#include "../../src/lib/stats/ci-private.h"
#include "fedbn/ci.h"
#include "fedbn/csv.h"

/* One reference p-value: x _||_ y | S on a file. */
typedef struct kci_case {
	const char *file; /* a CSV file of tests/data/kci */
	size_t x, y;      /* the tested variables */
	size_t ns;        /* conditioning variables */
	size_t S[2];      /* the conditioning set */
	double p;         /* causal-learn's p-value */
} kci_case;

/* causal-learn's answers (commit and settings in tests/data/kci/README.md). */
static const kci_case cases[] = {
	{ "gaussian.csv", 0, 1, 0, { 0 }, 0.5403932888 },
	{ "gaussian.csv", 0, 3, 0, { 0 }, 0.0 },
	{ "gaussian.csv", 1, 3, 0, { 0 }, 0.5463753056 },
	{ "gaussian.csv", 0, 3, 1, { 2 }, 0.5807206108 },
	{ "gaussian.csv", 0, 1, 1, { 2 }, 0.6639843969 },
	{ "gaussian.csv", 0, 3, 2, { 1, 2 }, 0.60896811 },
	{ "gaussian.csv", 1, 3, 2, { 0, 2 }, 0.5525426634 },
	{ "gaussian.csv", 0, 1, 2, { 2, 3 }, 0.8208659785 },
	{ "exponential.csv", 0, 1, 0, { 0 }, 0.8512788911 },
	{ "exponential.csv", 0, 3, 0, { 0 }, 0.0 },
	{ "exponential.csv", 1, 3, 0, { 0 }, 0.08508698015 },
	{ "exponential.csv", 0, 3, 1, { 2 }, 0.4075556577 },
	{ "exponential.csv", 0, 1, 1, { 2 }, 0.784921362 },
	{ "exponential.csv", 0, 3, 2, { 1, 2 }, 0.479535852 },
	{ "exponential.csv", 1, 3, 2, { 0, 2 }, 0.208787182 },
	{ "exponential.csv", 0, 1, 2, { 2, 3 }, 0.4329947621 },
	{ "nonlinear.csv", 0, 2, 0, { 0 }, 0.6931646893 },
};

/* Read tests/data/kci/name (under $top_srcdir), a continuous CSV file with a header. */
static fb_dataset *read_kci(const char *name)
{
	const char *top = getenv("top_srcdir");
	fb_csv_options opt;
	fb_error err = { "" };
	fb_dataset *ds;
	char path[4096];

	snprintf(path, sizeof path, "%s/tests/data/kci/%s", top != NULL ? top : ".", name);
	fb_csv_options_init(&opt);
	opt.header = 1;
	opt.discrete = FB_DISCRETE_NONE;
	ds = fb_csv_read(path, &opt, NULL, &err);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	return ds;
}

/* A KCI object on tests/data/kci/name. */
static fb_ci *kci_on(const char *name)
{
	fb_ci_options o;
	fb_error err = { "" };
	fb_dataset *ds = read_kci(name);
	fb_ci *ci;

	fb_ci_options_init(&o);
	o.test = FB_CI_KCI;
	ci = fb_ci_alloc(ds, &o, &err);
	if (ci == NULL)
		fail_msg("%s", err.msg);
	fb_dataset_free(ds);
	return ci;
}

/* Every reference p-value to 1e-4, with x and y in either order. */
static void test_reference(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const kci_case *k = &cases[c];
		fb_ci *ci = kci_on(k->file);
		fb_ci_result r;
		fb_error err = { "" };

		assert_int_equal(fb_ci_kind(ci), FB_CI_KCI);
		assert_int_equal(fb_ci_test(ci, k->y, k->x, k->S, k->ns, &r, &err), FB_OK);
		if (!(fabs(r.p - k->p) <= 1e-4))
			fail_msg("%s %zu %zu |S| = %zu: p = %.10g, want %.10g", k->file, k->x, k->y,
			         k->ns, r.p, k->p);
		assert_true(r.stat > 0.0);
		assert_true(fb_ci_pvalue(ci, k->x, k->y, k->S, k->ns, NULL) == r.p);
		fb_ci_free(ci);
	}
}

/* y = x^2 + noise: Fisher-z misses it, KCI finds it with and without the unrelated w. */
static void test_nonlinear(void **state)
{
	fb_dataset *ds = read_kci("nonlinear.csv");
	fb_ci *fz = fb_ci_alloc(ds, NULL, NULL), *kci = kci_on("nonlinear.csv");
	size_t w = 2;

	(void)state;
	assert_non_null(fz);
	assert_true(fb_ci_pvalue(fz, 0, 1, NULL, 0, NULL) > 0.2);
	assert_true(fb_ci_pvalue(kci, 0, 1, NULL, 0, NULL) < 1e-10);
	assert_true(fb_ci_pvalue(kci, 0, 1, &w, 1, NULL) < 1e-10);
	assert_true(fb_ci_pvalue(kci, 0, 2, NULL, 0, NULL) > 0.1);
	fb_ci_free(fz);
	fb_ci_free(kci);
	fb_dataset_free(ds);
}

/* A constant column leaves nothing to test: p = 1, never NaN; the answer is cached. */
static void test_constant(void **state)
{
	fb_dataset *ds = read_kci("nonlinear.csv");
	fb_ci_options o;
	fb_ci_stats st;
	fb_ci *ci;
	size_t z = 0;
	unsigned flags = 0;

	(void)state;
	for (size_t i = 0; i < ds->n; i++)
		ds->x[i * ds->d + 2] = 4.0;
	fb_ci_options_init(&o);
	o.test = FB_CI_KCI;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(ci);
	assert_true(fb_ci_pvalue(ci, 0, 2, NULL, 0, NULL) == 1.0);
	assert_true(fb_ci_pvalue(ci, 1, 2, &z, 1, NULL) == 1.0);
	assert_true(fb_ci_pvalue(ci, 2, 0, NULL, 0, &flags) == 1.0);
	assert_true(flags & FB_CI_CACHED);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.computed, 2);
	assert_string_equal(fb_ci_test_name(FB_CI_KCI), "kci");
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* Rows of the sample the two routes are compared on. */
#define ROUTE_N 1000

/* A KCI object with the cache off over ds, which it frees. */
static fb_ci *uncached_kci(fb_dataset *ds)
{
	fb_ci_options o;
	fb_ci *ci;

	fb_ci_options_init(&o);
	o.test = FB_CI_KCI;
	o.cache = false;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(ci);
	fb_dataset_free(ds);
	return ci;
}

/* A KCI object over ROUTE_N rows of x = sin z1 + z2/2 + e, y = cos z1 - z2/2 + e, z1, z2
 * and w = Exp(1) + z1/5 (seed 3), cache off. */
static fb_ci *route_sample(void)
{
	fb_dataset *ds = fb_dataset_alloc(ROUTE_N, 5);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	assert_non_null(ds);
	gsl_rng_set(r, 3);
	for (size_t i = 0; i < ROUTE_N; i++) {
		double *row = ds->x + i * 5, z1 = gsl_ran_gaussian(r, 1.0);
		double z2 = gsl_ran_gaussian(r, 1.0), e = gsl_ran_exponential(r, 1.0);

		row[0] = sin(z1) + 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		row[1] = cos(z1) - 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		row[2] = z1;
		row[3] = z2;
		row[4] = e + 0.2 * z1;
	}
	gsl_rng_free(r);
	return uncached_kci(ds);
}

/* x _||_ y | S by both routes: the low-rank one is taken (not refused), its p-value is
 * within 1e-6 of the dense one's and its statistic within 1e-5 relative; fb_ci_test
 * answers the low-rank route's p-value. */
static void routes_agree(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns)
{
	fb_ci_result lr, dense, via;
	fb_error err = { "" };

	assert_int_equal(ci_kci_lowrank(ci, x, y, S, ns, &lr), FB_OK);
	assert_int_equal(ci_kci_dense(ci, x, y, S, ns, &dense), FB_OK);
	assert_int_equal(fb_ci_test(ci, x, y, S, ns, &via, &err), FB_OK);
	if (!(fabs(lr.p - dense.p) <= 1e-6) ||
	    !(fabs(lr.stat - dense.stat) <= 1e-5 * dense.stat))
		fail_msg("%zu %zu |S| = %zu: low-rank p %.10g stat %.10g, dense p %.10g stat %.10g",
		         x, y, ns, lr.p, lr.stat, dense.p, dense.stat);
	assert_true(via.p == lr.p);
}

/* The pairs compared given nothing (dependent: p ~ 1e-44 and 6e-4; not: p ~ 0.26), given
 * z1 (p ~ 1e-97, 0.98, 0.60) and given z1, z2 (p ~ 0.06, 0.70, 0.26). */
static const size_t route_pairs[3][3][2] = {
	{ { 0, 1 }, { 0, 4 }, { 3, 4 } },
	{ { 0, 1 }, { 0, 4 }, { 3, 4 } },
	{ { 0, 1 }, { 0, 4 }, { 1, 4 } },
};

/* Both routes on the pairs of route_pairs given the first ns of z1, z2. */
static void routes_given(size_t ns)
{
	static const size_t S[2] = { 2, 3 };
	fb_ci *ci = route_sample();

	for (size_t k = 0; k < 3; k++)
		routes_agree(ci, route_pairs[ns][k][0], route_pairs[ns][k][1], S, ns);
	fb_ci_free(ci);
}

/* The routes agree given nothing. */
static void test_routes_uncond(void **state)
{
	(void)state;
	routes_given(0);
}

/* The routes agree given one variable. */
static void test_routes_given1(void **state)
{
	(void)state;
	routes_given(1);
}

/* The routes agree given two variables. */
static void test_routes_given2(void **state)
{
	(void)state;
	routes_given(2);
}

/* Given z1, z2 and w the kernels of [x, z/2] and of z need more than n / 3 rows: the
 * low-rank route is still taken, its regression on z exact, and agrees with the dense one. */
static void test_routes_given3(void **state)
{
	static const size_t S[3] = { 2, 3, 4 };
	fb_ci *ci = route_sample();

	(void)state;
	routes_agree(ci, 0, 1, S, 3);
	fb_ci_free(ci);
}

/* The factors an object remembers of its tests' sides give the same bits as computed
 * afresh: a run of tests on one object (cache off) that meet sides again, given nothing (y
 * of one test is x of the next) and given sets of one and two variables (the same side
 * given another set of the same size too, whose y factor before the regression is the one
 * remembered), against each test on a new object. */
static void test_memo(void **state)
{
	/* x, y, |S|, S */
	static const size_t runs[][5] = {
		{ 0, 1, 0, 0, 0 }, { 1, 4, 0, 0, 0 }, { 0, 4, 0, 0, 0 }, { 0, 1, 1, 2, 0 },
		{ 0, 1, 1, 3, 0 }, { 0, 4, 1, 3, 0 }, { 0, 4, 1, 2, 0 }, { 1, 4, 1, 2, 0 },
		{ 0, 1, 2, 2, 3 }, { 0, 1, 2, 2, 4 }, { 0, 4, 2, 2, 3 }, { 1, 4, 2, 2, 3 },
	};
	fb_ci *ci = route_sample();

	(void)state;
	for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		const size_t *r = runs[k];
		fb_ci *fresh = route_sample();
		fb_ci_result a, b;
		fb_error err = { "" };

		assert_int_equal(fb_ci_test(ci, r[0], r[1], r + 3, r[2], &a, &err), FB_OK);
		assert_int_equal(fb_ci_test(fresh, r[0], r[1], r + 3, r[2], &b, &err), FB_OK);
		if (!(a.p == b.p && a.stat == b.stat))
			fail_msg("test %zu: p %a stat %a, afresh p %a stat %a", k, a.p, a.stat, b.p,
			         b.stat);
		fb_ci_free(fresh);
	}
	fb_ci_free(ci);
}

/* 60 rows of six independent standard normals: given four of them the kernel of [x, z/2]
 * needs more than 2n / 3 rows, the low-rank route refuses and the test's answer is the
 * dense route's, bit for bit. */
static void test_routes_fallback(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(60, 6);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	size_t S[4] = { 2, 3, 4, 5 };
	fb_ci_result lr, dense, via;
	fb_error err = { "" };
	fb_ci *ci;

	(void)state;
	assert_non_null(ds);
	gsl_rng_set(r, 5);
	for (size_t i = 0; i < 60 * 6; i++)
		ds->x[i] = gsl_ran_gaussian(r, 1.0);
	gsl_rng_free(r);
	ci = uncached_kci(ds);
	assert_int_equal(ci_kci_lowrank(ci, 0, 1, S, 4, &lr), CI_KCI_DENSE);
	assert_int_equal(ci_kci_dense(ci, 0, 1, S, 4, &dense), FB_OK);
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 4, &via, &err), FB_OK);
	assert_true(via.p == dense.p && via.stat == dense.stat);
	assert_true(dense.p > 0.01 && dense.p < 0.99);
	fb_ci_free(ci);
}

/* Run the tests. */
/* Threads of this process, from /proc/self/task (0 where there is no /proc). */
static size_t count_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0;

	if (dir == NULL)
		return 0;
	while ((e = readdir(dir)) != NULL)
		n += e->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* After fb_blas_single_thread no BLAS pool thread is left (an idle OpenBLAS pool thread
 * spins for about 0.1 s of processor time), and a test still runs on the one thread. */
static void test_one_blas_thread(void **state)
{
	fb_blas_single_thread();
	fb_blas_single_thread();
	if (count_threads() > 1)
		fail_msg("%zu threads after fb_blas_single_thread", count_threads());
	test_reference(state);
	if (count_threads() > 1)
		fail_msg("%zu threads after a KCI test", count_threads());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_blas_thread),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_routes_uncond),
		cmocka_unit_test(test_routes_given1),
		cmocka_unit_test(test_routes_given2),
		cmocka_unit_test(test_routes_given3),
		cmocka_unit_test(test_routes_fallback),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_nonlinear),
		cmocka_unit_test(test_constant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
