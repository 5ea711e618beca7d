/* Unit tests of KCI: the p-values causal-learn's KCI_UInd and KCI_CInd (gamma approximation,
 * empirical widths) give on the seeded 300-row datasets of its own tests
 * (tests/data/kci/README.md), to 1e-4, given nothing, one and two variables; a nonlinear
 * dependence that correlation misses; a constant column; the cache and the argument order. */
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

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_nonlinear),
		cmocka_unit_test(test_constant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
