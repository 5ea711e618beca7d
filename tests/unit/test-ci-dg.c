/* Unit tests of the degenerate Gaussian test and score for mixed data: statistics and
 * scores against an independent computation, the Gaussian case against the partial
 * correlation and the BIC, a column the other determines, and auto's choice of it. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/ci.h"
#include "fedbn/lscore.h"

/* Rows of the mixed dataset: x = i mod 3 (discrete), y = sin i + x/2 + 3z/10, z = (7i mod
 * 5) mod 2 (discrete), w = cos 1.3i; 40 rows. */
static fb_dataset *mixed_data(void)
{
	static char lab[3][2] = { "0", "1", "2" };
	char *const labels[] = { lab[0], lab[1], lab[2] };
	fb_dataset *ds = fb_dataset_alloc(40, 4);

	assert_non_null(ds);
	for (size_t i = 0; i < 40; i++) {
		double x = (double)(i % 3), z = (double)((i * 7 % 5) % 2);

		ds->x[i * 4 + 0] = x;
		ds->x[i * 4 + 1] = sin((double)i) + 0.5 * x + 0.3 * z;
		ds->x[i * 4 + 2] = z;
		ds->x[i * 4 + 3] = cos(1.3 * (double)i);
	}
	assert_int_equal(fb_dataset_set_levels(ds, 0, labels, 3, NULL), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 2, labels, 2, NULL), FB_OK);
	return ds;
}

/* One query and its expected statistic, df and p-value. */
typedef struct dg_case {
	size_t x, y, S[2], ns;
	double stat, df, p;
} dg_case;

/* Statistics, df and p-values of numpy and scipy (Debian's python3-numpy 1.24 and
 * python3-scipy 1.10) on the same rows: indicator columns for every level but the first,
 * covariances with divisor n (numpy.cov bias=True), log-determinants by
 * numpy.linalg.slogdet, stat = n (ld(y,S) - ld(S) - ld(x,y,S) + ld(x,S)), df = width x
 * width, p = scipy.stats.chi2.sf(stat, df). */
static const dg_case cases[] = {
	{ 0, 1, { 2 }, 1, 12.156196901850915, 2, 0.0022925318726386016 },
	{ 0, 3, { 1, 2 }, 2, 0.015566816754164492, 2, 0.9922468039102279 },
	{ 1, 3, { 0 }, 0, 0.12538799319613325, 1, 0.7232626900632657 },
	{ 0, 2, { 0 }, 0, 0.07332724326643891, 2, 0.964000349679854 },
	{ 0, 2, { 1, 3 }, 2, 1.405137982638207, 2, 0.49531121771552644 },
	{ 1, 3, { 0, 2 }, 2, 0.15445877748511805, 1, 0.6943102938604246 },
};

/* Each case as the independent computation gives it, either way round. */
static void test_against_numpy(void **state)
{
	fb_dataset *ds = mixed_data();
	fb_ci_options o;
	fb_ci *ci;
	fb_error err;

	(void)state;
	fb_ci_options_init(&o);
	ci = fb_ci_alloc(ds, &o, &err);
	assert_non_null(ci);
	assert_int_equal(fb_ci_kind(ci), FB_CI_DG);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		const dg_case *k = &cases[c];
		fb_ci_result r, s;

		assert_int_equal(fb_ci_test(ci, k->x, k->y, k->S, k->ns, &r, &err), FB_OK);
		assert_int_equal(fb_ci_test(ci, k->y, k->x, k->S, k->ns, &s, &err), FB_OK);
		if (fabs(r.stat - k->stat) > 1e-9 * k->stat || r.df != k->df ||
		    fabs(r.p - k->p) > 1e-9 * k->p)
			fail_msg("case %zu: stat %.17g df %g p %.17g, want %.17g %g %.17g", c, r.stat,
			         r.df, r.p, k->stat, k->df, k->p);
		assert_true(s.p == r.p);
	}
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* Continuous columns alone: the statistic is n log(1 / (1 - r^2)) with r Fisher-z's partial
 * correlation, on 1 df. */
static void test_gaussian_case(void **state)
{
	fb_dataset *ds = mixed_data();
	fb_ci_options o;
	fb_ci *dg, *fz;
	fb_ci_result a, b;
	fb_error err;
	const size_t S[1] = { 1 };

	(void)state;
	ds->vars[0].kind = FB_CONTINUOUS; /* codes read as numbers */
	ds->vars[2].kind = FB_CONTINUOUS;
	fb_ci_options_init(&o);
	o.test = FB_CI_DG;
	dg = fb_ci_alloc(ds, &o, &err);
	o.test = FB_CI_FISHER_Z;
	fz = fb_ci_alloc(ds, &o, &err);
	assert_non_null(dg);
	assert_non_null(fz);
	assert_int_equal(fb_ci_test(dg, 0, 3, S, 1, &a, &err), FB_OK);
	assert_int_equal(fb_ci_test(fz, 0, 3, S, 1, &b, &err), FB_OK);
	assert_true(a.df == 1);
	assert_true(fabs(a.stat - 40 * log(1 / (1 - b.r * b.r))) < 1e-10 * (1 + a.stat));
	fb_ci_free(dg);
	fb_ci_free(fz);
	fb_dataset_free(ds);
}

/* A continuous column that the discrete one determines (its level's code times 2): the
 * test says dependent (p = 0), and a constant column leaves nothing to test (df 0, p 1). */
static void test_determined_and_constant(void **state)
{
	fb_dataset *ds = mixed_data();
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result r;
	fb_error err;

	(void)state;
	for (size_t i = 0; i < 40; i++) {
		ds->x[i * 4 + 1] = 2 * ds->x[i * 4 + 0];
		ds->x[i * 4 + 3] = 5;
	}
	fb_ci_options_init(&o);
	ci = fb_ci_alloc(ds, &o, &err);
	assert_non_null(ci);
	assert_int_equal(fb_ci_test(ci, 0, 1, NULL, 0, &r, &err), FB_OK);
	assert_true(r.p < 1e-12 && r.df == 2);
	assert_int_equal(fb_ci_test(ci, 0, 3, NULL, 0, &r, &err), FB_OK);
	assert_true(r.p == 1 && r.df == 0 && (r.flags & FB_CI_ZERO_DF));
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* auto: fisher-z for continuous columns, g2 for discrete ones, dg for a mix. */
static void test_auto(void **state)
{
	fb_dataset *ds = mixed_data();
	enum fb_ci_test t;
	fb_error err;

	(void)state;
	assert_int_equal(fb_ci_test_for(ds, &t, &err), FB_OK);
	assert_int_equal(t, FB_CI_DG);
	assert_string_equal(fb_ci_test_name(t), "dg");
	fb_dataset_free(ds);
}

/* One local score and its expected value. */
typedef struct dg_score_case {
	size_t i, pa[3], np;
	double score;
} dg_score_case;

/* Scores by numpy on the same rows: -n/2 (w + ld(i, P) - ld(P)) - w (W + 1) log(n) / 2
 * with w, W the columns of X_i and of its parents (lambda 1/2). */
static const dg_score_case scores[] = {
	{ 0, { 0 }, 0, 22.2647669019556 },        { 0, { 1 }, 1, 23.909783215534578 },
	{ 0, { 1, 2, 3 }, 3, 17.320674020549568 }, { 1, { 0, 2 }, 2, -13.019466620028695 },
	{ 2, { 0, 1, 3 }, 3, 5.258363261955225 },  { 3, { 0 }, 0, -8.403558154472774 },
};

/* The DG score as numpy computes it, and on continuous columns the linear Gaussian BIC. */
static void test_score(void **state)
{
	fb_dataset *ds = mixed_data();
	fb_lscore_options o = { .kind = FB_LSCORE_DG, .lambda = 0.5 };
	fb_lscore *s, *bic;
	fb_error err;
	double v, b;
	const size_t pa[2] = { 0, 2 };

	(void)state;
	s = fb_lscore_alloc(ds, &o, &err);
	assert_non_null(s);
	for (size_t c = 0; c < sizeof scores / sizeof scores[0]; c++) {
		assert_int_equal(fb_lscore_get(s, scores[c].i, scores[c].pa, scores[c].np, &v, &err),
		                 FB_OK);
		if (fabs(v - scores[c].score) > 1e-9 * fabs(scores[c].score))
			fail_msg("score %zu: %.17g, want %.17g", c, v, scores[c].score);
	}
	fb_lscore_free(s);
	ds->vars[0].kind = FB_CONTINUOUS;
	ds->vars[2].kind = FB_CONTINUOUS;
	s = fb_lscore_alloc(ds, &o, &err);
	o.kind = FB_LSCORE_BIC;
	bic = fb_lscore_alloc(ds, &o, &err);
	assert_non_null(s);
	assert_non_null(bic);
	assert_int_equal(fb_lscore_get(s, 1, pa, 2, &v, &err), FB_OK);
	assert_int_equal(fb_lscore_get(bic, 1, pa, 2, &b, &err), FB_OK);
	assert_true(fabs(v - b) < 1e-9 * fabs(b));
	fb_lscore_free(s);
	fb_lscore_free(bic);
	fb_dataset_free(ds);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_numpy),
		cmocka_unit_test(test_gaussian_case),
		cmocka_unit_test(test_determined_and_constant),
		cmocka_unit_test(test_auto),
		cmocka_unit_test(test_score),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
