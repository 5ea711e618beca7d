/* Unit tests of the conditional-independence tests: Fisher-z against an explicit cofactor
 * inverse and the recursive partial-correlation formula, G² and χ² against hand-enumerated
 * contingency tables, the three degrees-of-freedom conventions, the small-sample rules, the
 * cache, and the independence of every answer from the order of x, y and S. */
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

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>

#include "fedbn/ci.h"
#include "fedbn/pc.h"
#include "../../src/lib/stats/ci-private.h"

/* Fail unless got equals want within tol (relative above 1, absolute below). */
static void assert_near(double got, double want, double tol)
{
	double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* A continuous dataset of n rows and d columns from row-major values. */
static fb_dataset *cont_data(size_t n, size_t d, const double *x)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);

	assert_non_null(ds);
	memcpy(ds->x, x, n * d * sizeof *x);
	return ds;
}

/* Ten rows of four loosely related columns (made-up numbers). */
static const double fz_rows[10 * 4] = {
	1.2, 0.7, -0.3, 2.1,   -0.4, -1.1, 0.5, -0.2,  0.9, 1.4, 1.1, 0.8,
	2.3, 1.9, 0.2, 2.7,    -1.5, -0.8, -1.9, -1.0, 0.1, 0.6, 0.9, 0.4,
	-0.7, -0.2, 0.3, -1.4, 1.8, 0.9, -0.6, 1.5,    0.4, -0.5, 1.7, 0.2,
	-1.1, -1.6, -0.4, -0.9,
};

/* Correlation of columns a and b of fz_rows by the two-pass textbook formula. */
static double hand_corr(size_t a, size_t b)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

	for (size_t i = 0; i < 10; i++) {
		ma += fz_rows[i * 4 + a] / 10.0;
		mb += fz_rows[i * 4 + b] / 10.0;
	}
	for (size_t i = 0; i < 10; i++) {
		double u = fz_rows[i * 4 + a] - ma, v = fz_rows[i * 4 + b] - mb;

		sab += u * v;
		saa += u * u;
		sbb += v * v;
	}
	return sab / sqrt(saa * sbb);
}

/* Two-sided Fisher-z p-value of r with dof = n - |S| - 3, through erfc from libm. */
static double hand_fisher_p(double r, double dof)
{
	double z = 0.5 * log((1.0 + r) / (1.0 - r));

	return erfc(sqrt(dof) * fabs(z) / sqrt(2.0));
}

/* Partial correlation of (0, 1) given 2 from the inverse of the 3 x 3 matrix m by
 * cofactors: P = adj(m) / det(m); r = -P01 / sqrt(P00 P11) (det cancels). */
static double cofactor_partial(const double m[3][3])
{
	double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
	double c11 = m[0][0] * m[2][2] - m[0][2] * m[2][0];
	double c01 = -(m[1][0] * m[2][2] - m[1][2] * m[2][0]); /* cofactor (0,1): symmetric m */

	return -c01 / sqrt(c00 * c11);
}

/* Fisher-z with S = {} and S = {s}: against the textbook correlation and a cofactor inverse. */
static void test_fisher_small(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	fb_error err = { "" };
	size_t S1[1] = { 2 };
	double m[3][3], r;

	fb_ci_options_init(&o);
	o.test = FB_CI_FISHER_Z;
	ci = fb_ci_alloc(ds, &o, &err);
	assert_non_null(ci);
	assert_int_equal(fb_ci_kind(ci), FB_CI_FISHER_Z);
	/* marginal: r = corr(0, 1), dof = 10 - 3 */
	assert_int_equal(fb_ci_test(ci, 0, 1, NULL, 0, &res, &err), FB_OK);
	assert_near(res.r, hand_corr(0, 1), 1e-12);
	assert_near(res.p, hand_fisher_p(hand_corr(0, 1), 7.0), 1e-10);
	/* given column 2: the 3 x 3 matrix over (0, 1, 2) inverted by cofactors, dof = 6 */
	for (size_t a = 0; a < 3; a++)
		for (size_t b = 0; b < 3; b++)
			m[a][b] = a == b ? 1.0 : hand_corr(a, b);
	r = cofactor_partial(m);
	assert_int_equal(fb_ci_test(ci, 1, 0, S1, 1, &res, &err), FB_OK);
	assert_near(res.r, r, 1e-12);
	assert_near(res.p, hand_fisher_p(r, 6.0), 1e-10);
	assert_near(res.stat, sqrt(6.0) * fabs(atanh(r)), 1e-10);
	assert_int_equal(res.flags, 0);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* First-order partial correlation r_ab.c from the correlations. */
static double partial1(double rab, double rac, double rbc)
{
	return (rab - rac * rbc) / sqrt((1.0 - rac * rac) * (1.0 - rbc * rbc));
}

/* Fisher-z with |S| = 2 against the recursive formula, from the dataset and from (R, n). */
static void test_fisher_order2(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	double R[16], r01_3, r02_3, r12_3, want;
	size_t S[2] = { 3, 2 };
	fb_ci_result res;
	fb_error err = { "" };
	fb_ci *ci = fb_ci_alloc(ds, NULL, &err), *cr;

	assert_non_null(ci); /* auto on continuous data: fisher-z */
	assert_int_equal(fb_ci_kind(ci), FB_CI_FISHER_Z);
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 4; b++)
			R[a * 4 + b] = a == b ? 1.0 : hand_corr(a, b);
	/* r_01.23 = (r_01.3 - r_02.3 r_12.3) / sqrt((1 - r_02.3^2)(1 - r_12.3^2)) */
	r01_3 = partial1(R[1], R[3], R[7]);
	r02_3 = partial1(R[2], R[3], R[11]);
	r12_3 = partial1(R[6], R[7], R[11]);
	want = partial1(r01_3, r02_3, r12_3);
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 2, &res, &err), FB_OK);
	assert_near(res.r, want, 1e-12);
	assert_near(res.p, hand_fisher_p(want, 5.0), 1e-10);
	/* the same from sufficient statistics, with and without an object */
	cr = fb_ci_alloc_corr(R, 4, 10, NULL, &err);
	assert_non_null(cr);
	assert_near(fb_ci_pvalue(cr, 1, 0, S, 2, NULL), hand_fisher_p(want, 5.0), 1e-10);
	assert_int_equal(fb_ci_fisher_from_corr(R, 4, 10, 0, 1, S, 2, NULL, &res, &err), FB_OK);
	assert_near(res.p, hand_fisher_p(want, 5.0), 1e-10);
	assert_int_equal(fb_ci_n(cr), 10);
	assert_int_equal(fb_ci_d(cr), 4);
	fb_ci_free(cr);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* n - |S| - 3 <= 0 gives p = 1 flagged undefined. */
static void test_fisher_undefined(void **state)
{
	fb_dataset *ds = cont_data(5, 4, fz_rows);
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);
	size_t S[2] = { 2, 3 };
	fb_ci_stats st;
	unsigned fl;

	assert_non_null(ci);
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 1, &fl) < 1.0); /* 5 - 1 - 3 = 1: defined */
	assert_int_equal(fl & FB_CI_UNDEFINED, 0);
	assert_near(fb_ci_pvalue(ci, 0, 1, S, 2, &fl), 1.0, 0.0); /* 5 - 2 - 3 = 0 */
	assert_int_equal(fl, FB_CI_UNDEFINED);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.undefined, 1);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* A duplicated conditioning column: the pseudo-inverse gives the partial correlation given
 * one copy (closed form, see below), or p = 0 under the dependent rule; a constant column
 * correlates 0 with everything. */
static void test_fisher_singular(void **state)
{
	double rows[10 * 5];
	fb_dataset *ds;
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	fb_ci_stats st;
	size_t S[2] = { 2, 3 }, S4[1] = { 4 };
	double want;

	/* columns 0, 1, 2 of fz_rows, column 3 = column 2 again, column 4 constant */
	for (size_t i = 0; i < 10; i++) {
		for (size_t j = 0; j < 3; j++)
			rows[i * 5 + j] = fz_rows[i * 4 + j];
		rows[i * 5 + 3] = fz_rows[i * 4 + 2];
		rows[i * 5 + 4] = 3.5;
	}
	ds = cont_data(10, 5, rows);
	fb_ci_options_init(&o);
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(ci);
	/* Rotating (s, s') to ((s+s')/sqrt2, (s-s')/sqrt2) leaves a zero row and column and a
	 * non-singular block over (u, x, y) that scales (s, x, y): the pseudo-inverse's x, y
	 * entries give r_01.2, with dof n - 2 - 3 = 5. */
	want = partial1(hand_corr(0, 1), hand_corr(0, 2), hand_corr(1, 2));
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 2, &res, NULL), FB_OK);
	assert_true(res.flags & FB_CI_SINGULAR);
	assert_near(res.r, want, 1e-10);
	assert_near(res.p, hand_fisher_p(want, 5.0), 1e-10);
	/* constant column: r = 0 and p = 1; given it, r_01.4 = r_01 */
	assert_near(fb_ci_pvalue(ci, 0, 4, NULL, 0, NULL), 1.0, 0.0);
	assert_near(fb_ci_pvalue(ci, 0, 1, S4, 1, NULL), hand_fisher_p(hand_corr(0, 1), 6.0),
	            1e-10);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.constant_columns, 1);
	assert_int_equal(st.singular, 1);
	fb_ci_free(ci);
	o.singular = FB_CI_SINGULAR_DEPENDENT;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 2, &res, NULL), FB_OK);
	assert_true(res.flags & FB_CI_SINGULAR);
	assert_near(res.p, 0.0, 0.0);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* Add count copies of the row (a, b, c, ...) to a row-major buffer of d columns. */
static size_t add_rows(double *x, size_t at, size_t d, const double *row, size_t count)
{
	for (size_t k = 0; k < count; k++)
		memcpy(x + (at + k) * d, row, d * sizeof *row);
	return at + count;
}

/* Make columns discrete with levels "0".."L-1". */
static void make_discrete(fb_dataset *ds, const size_t *nlev)
{
	static char lab[6][2] = { "0", "1", "2", "3", "4", "5" };
	char *const labels[] = { lab[0], lab[1], lab[2], lab[3], lab[4], lab[5] };

	for (size_t j = 0; j < ds->d; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, labels, nlev[j], NULL), FB_OK);
}

/* A discrete dataset over (x, y, s) from one 2 x 2 table per level of s: t[s][x][y]. */
static fb_dataset *tables_data(const unsigned t[][2][2], size_t ns)
{
	size_t n = 0, at = 0, nlev[3] = { 2, 2, ns };
	fb_dataset *ds;

	for (size_t s = 0; s < ns; s++)
		n += t[s][0][0] + t[s][0][1] + t[s][1][0] + t[s][1][1];
	ds = fb_dataset_alloc(n, 3);
	for (size_t s = 0; s < ns; s++)
		for (size_t a = 0; a < 2; a++)
			for (size_t b = 0; b < 2; b++) {
				double row[3] = { (double)a, (double)b, (double)s };

				at = add_rows(ds->x, at, 3, row, t[s][a][b]);
			}
	make_discrete(ds, nlev);
	return ds;
}

/* The textbook 2 x 2 table [[20, 30], [30, 20]]: E = 25 everywhere, χ² = 4 exactly, so
 * p = Q(4; 1) = erfc(sqrt 2); G² = 2 (40 ln 0.8 + 60 ln 1.2) by hand. */
static void test_discrete_textbook(void **state)
{
	const unsigned t[1][2][2] = { { { 20, 30 }, { 30, 20 } } };
	fb_dataset *ds = tables_data(t, 1);
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	double g2 = 2.0 * (40.0 * log(0.8) + 60.0 * log(1.2));

	fb_ci_options_init(&o);
	o.test = FB_CI_CHI2;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(ci);
	assert_int_equal(fb_ci_test(ci, 0, 1, NULL, 0, &res, NULL), FB_OK);
	assert_near(res.stat, 4.0, 1e-12);
	assert_near(res.df, 1.0, 0.0);
	assert_near(res.p, erfc(sqrt(2.0)), 1e-10);
	assert_near(res.p, 0.0455002638963584, 1e-10); /* the usual table value 0.0455 */
	fb_ci_free(ci);
	o.test = FB_CI_G2;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_int_equal(fb_ci_test(ci, 1, 0, NULL, 0, &res, NULL), FB_OK);
	assert_near(res.stat, g2, 1e-12);
	assert_near(res.p, gsl_cdf_chisq_Q(g2, 1.0), 1e-10);
	fb_ci_free(ci);
	/* auto on all-discrete data is g2 */
	ci = fb_ci_alloc(ds, NULL, NULL);
	assert_int_equal(fb_ci_kind(ci), FB_CI_G2);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* G² and χ² of one 2 x 2 table by hand: expected counts from the margins. */
static void hand_2x2(const unsigned t[2][2], double *g2, double *x2)
{
	double r[2] = { t[0][0] + t[0][1], t[1][0] + t[1][1] };
	double c[2] = { t[0][0] + t[1][0], t[0][1] + t[1][1] };
	double n = r[0] + r[1];

	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 2; b++) {
			double O = t[a][b], E = r[a] * c[b] / n;

			*g2 += O > 0 ? 2.0 * O * log(O / E) : 0.0;
			*x2 += (O - E) * (O - E) / E;
		}
}

/* Conditional G² and χ² over two strata, summed by hand; df = 2 in every convention. */
static void test_discrete_conditional(void **state)
{
	const unsigned t[2][2][2] = { { { 10, 5 }, { 3, 12 } }, { { 4, 6 }, { 8, 2 } } };
	fb_dataset *ds = tables_data(t, 2);
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	size_t S[1] = { 2 };
	double g2 = 0, x2 = 0;

	hand_2x2(t[0], &g2, &x2);
	hand_2x2(t[1], &g2, &x2);
	fb_ci_options_init(&o);
	for (int df = 0; df < 3; df++) {
		o.df = (enum fb_ci_df)df;
		o.test = FB_CI_G2;
		ci = fb_ci_alloc(ds, &o, NULL);
		assert_int_equal(fb_ci_test(ci, 0, 1, S, 1, &res, NULL), FB_OK);
		assert_near(res.stat, g2, 1e-12);
		assert_near(res.df, 2.0, 0.0);
		assert_near(res.p, gsl_cdf_chisq_Q(g2, 2.0), 1e-10);
		fb_ci_free(ci);
		o.test = FB_CI_CHI2;
		ci = fb_ci_alloc(ds, &o, NULL);
		assert_int_equal(fb_ci_test(ci, 1, 0, S, 1, &res, NULL), FB_OK);
		assert_near(res.stat, x2, 1e-12);
		assert_near(res.p, gsl_cdf_chisq_Q(x2, 2.0), 1e-10);
		fb_ci_free(ci);
	}
	fb_dataset_free(ds);
}

/* A 3 x 2 table per stratum where x's level 2 never occurs with s = 0, and a stratum of
 * s that never occurs at all: s has levels 0, 1, 2 and only 0 and 1 appear.
 *   s = 0: x = 0: (y0 8, y1 4)   x = 1: (3, 9)    x = 2: (0, 0)
 *   s = 1: x = 0: (5, 5)         x = 1: (2, 6)    x = 2: (7, 1)
 * classical df = (3-1)(2-1)3 = 6; adjusted = (3-1-1)(2-1) + (3-1-0)(2-1) = 3;
 * adaptDF = 6 - (2 empty cells in s = 0, 0 in s = 1, 6 in the absent s = 2) = max(-2, 1) = 1. */
static void test_discrete_df(void **state)
{
	static const unsigned cnt[2][3][2] = { { { 8, 4 }, { 3, 9 }, { 0, 0 } },
		                               { { 5, 5 }, { 2, 6 }, { 7, 1 } } };
	size_t n = 0, at = 0, nlev[3] = { 3, 2, 3 };
	fb_dataset *ds;
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	size_t S[1] = { 2 };
	double g2 = 0;
	const double want_df[3] = { 3.0, 6.0, 1.0 }; /* adjusted, classical, adapt */

	for (size_t s = 0; s < 2; s++)
		for (size_t a = 0; a < 3; a++)
			n += cnt[s][a][0] + cnt[s][a][1];
	ds = fb_dataset_alloc(n, 3);
	for (size_t s = 0; s < 2; s++) {
		double N = 0, rm[3], cm[2] = { 0, 0 };

		for (size_t a = 0; a < 3; a++) {
			rm[a] = cnt[s][a][0] + cnt[s][a][1];
			N += rm[a];
			for (size_t b = 0; b < 2; b++) {
				double row[3] = { (double)a, (double)b, (double)s };

				cm[b] += cnt[s][a][b];
				at = add_rows(ds->x, at, 3, row, cnt[s][a][b]);
			}
		}
		for (size_t a = 0; a < 3; a++)
			for (size_t b = 0; b < 2; b++)
				if (cnt[s][a][b] > 0)
					g2 += 2.0 * cnt[s][a][b] * log(cnt[s][a][b] * N / (rm[a] * cm[b]));
	}
	make_discrete(ds, nlev);
	fb_ci_options_init(&o);
	o.test = FB_CI_G2;
	for (int df = 0; df < 3; df++) {
		o.df = (enum fb_ci_df)df;
		ci = fb_ci_alloc(ds, &o, NULL);
		assert_int_equal(fb_ci_test(ci, 0, 1, S, 1, &res, NULL), FB_OK);
		assert_near(res.stat, g2, 1e-12);
		assert_near(res.df, want_df[df], 0.0);
		assert_near(res.p, gsl_cdf_chisq_Q(g2, want_df[df]), 1e-10);
		fb_ci_free(ci);
	}
	fb_dataset_free(ds);
}

/* x equal to s: in every stratum x has one level, so the adjusted df is 0; p = 1 by default,
 * p = 0 under the dependent rule (x and y both vary in the data); a constant column
 * (column 3) still gives p = 1 under that rule. */
static void test_discrete_zero_df(void **state)
{
	double rows[8 * 4] = { 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1,
		               0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1 };
	size_t nlev[4] = { 2, 2, 2, 2 }, S[1] = { 2 };
	fb_dataset *ds = fb_dataset_alloc(8, 4);
	fb_ci_options o;
	fb_ci *ci;
	fb_ci_result res;
	fb_ci_stats st;

	memcpy(ds->x, rows, sizeof rows);
	make_discrete(ds, nlev);
	ci = fb_ci_alloc(ds, NULL, NULL);
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 1, &res, NULL), FB_OK);
	assert_near(res.df, 0.0, 0.0);
	assert_near(res.p, 1.0, 0.0);
	assert_int_equal(res.flags, FB_CI_ZERO_DF);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.zero_df, 1);
	fb_ci_free(ci);
	fb_ci_options_init(&o);
	o.zero_df = FB_CI_ZERO_DF_DEPENDENT;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_int_equal(fb_ci_test(ci, 1, 0, S, 1, &res, NULL), FB_OK);
	assert_near(res.p, 0.0, 0.0);
	assert_int_equal(res.flags, FB_CI_ZERO_DF);
	assert_int_equal(fb_ci_test(ci, 3, 1, S, 1, &res, NULL), FB_OK);
	assert_near(res.p, 1.0, 0.0);
	assert_int_equal(res.flags, FB_CI_ZERO_DF);
	assert_near(fb_ci_pvalue(ci, 0, 1, NULL, 0, NULL), fb_ci_pvalue(ci, 1, 0, NULL, 0, NULL),
	            0.0);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* The data of tables_data(t, 2) with s repeated copies times (columns x, y, s, s, ...). */
static fb_dataset *copies_of_s(const unsigned t[][2][2], size_t copies)
{
	fb_dataset *base = tables_data(t, 2), *ds;
	size_t d = 2 + copies, *nlev = calloc(d, sizeof *nlev);

	assert_non_null(nlev);
	ds = fb_dataset_alloc(base->n, d);
	for (size_t i = 0; i < base->n; i++)
		for (size_t j = 0; j < d; j++)
			ds->x[i * d + j] = base->x[i * 3 + (j < 2 ? j : 2)];
	for (size_t j = 0; j < d; j++)
		nlev[j] = 2;
	make_discrete(ds, nlev);
	free(nlev);
	fb_dataset_free(base);
	return ds;
}

/* The test given all copies of s (listed in reverse) into a, given s alone into b. */
static void copies_test(size_t copies, fb_ci_result *a, fb_ci_result *b)
{
	const unsigned t[2][2][2] = { { { 10, 5 }, { 3, 12 } }, { { 4, 6 }, { 8, 2 } } };
	fb_dataset *ds = copies_of_s(t, copies);
	size_t S[65], S1[1] = { 2 };
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);

	assert_true(copies <= 65);
	assert_non_null(ci);
	for (size_t k = 0; k < copies; k++)
		S[k] = copies + 1 - k; /* in reverse on purpose */
	assert_int_equal(fb_ci_test(ci, 0, 1, S, copies, a, NULL), FB_OK);
	assert_int_equal(fb_ci_test(ci, 0, 1, S1, 1, b, NULL), FB_OK);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* Sixty-five copies of s make prod c_S = 2^65, past the exact key: the strata (and so G²)
 * must still be those of s alone. */
static void test_discrete_many_strata(void **state)
{
	fb_ci_result a, b;

	(void)state;
	copies_test(65, &a, &b);
	assert_near(a.stat, b.stat, 1e-12);
	assert_near(a.df, 2.0, 0.0);
	assert_near(a.p, b.p, 1e-12);
}

/* Seventeen copies of s: 2^17 x 4 cells is past the dense table, so the strata are hashed
 * (exact keys), while s alone is counted densely; both must give the same bits. */
static void test_discrete_dense_same_bits(void **state)
{
	fb_ci_result a, b;

	(void)state;
	copies_test(17, &a, &b);
	assert_true(a.stat == b.stat);
	assert_true(a.p == b.p);
	assert_near(a.df, 2.0, 0.0);
	assert_true(a.stat > 0.0);
}

/* pcalg's rule: n < 10 df gives p = 1; the FedPC code's: n / cells < 5 gives p = 0. */
static void test_discrete_small(void **state)
{
	const unsigned t[2][2][2] = { { { 10, 5 }, { 3, 12 } }, { { 4, 6 }, { 8, 2 } } };
	fb_dataset *ds = tables_data(t, 2); /* n = 50 */
	fb_ci_options o;
	fb_ci *ci;
	size_t S[1] = { 2 };
	unsigned fl;

	fb_ci_options_init(&o);
	o.small = FB_CI_SMALL_PCALG;
	ci = fb_ci_alloc(ds, &o, NULL);
	/* df 1 (marginal): 50 >= 10, tested; df 2 given s: 50 >= 20, tested */
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 1, &fl) < 1.0);
	assert_int_equal(fl & FB_CI_SMALL, 0);
	fb_ci_free(ci);
	o.small = FB_CI_SMALL_FEDPC;
	ci = fb_ci_alloc(ds, &o, NULL);
	/* cells 2 x 2 x 2 = 8: 50 / 8 = 6.25 >= 5, tested; marginal 50 / 4 also */
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 1, &fl) > 0.0);
	assert_int_equal(fl & FB_CI_SMALL, 0);
	fb_ci_free(ci);
	fb_dataset_free(ds);
	{
		const unsigned u[2][2][2] = { { { 2, 1 }, { 1, 2 } }, { { 1, 2 }, { 2, 1 } } };

		ds = tables_data(u, 2); /* n = 12: 12 < 10 * 2 and 12 / 8 < 5 */
	}
	o.small = FB_CI_SMALL_PCALG;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_near(fb_ci_pvalue(ci, 0, 1, S, 1, &fl), 1.0, 0.0);
	assert_int_equal(fl, FB_CI_SMALL);
	fb_ci_free(ci);
	o.small = FB_CI_SMALL_FEDPC;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_near(fb_ci_pvalue(ci, 0, 1, S, 1, &fl), 0.0, 0.0);
	assert_int_equal(fl, FB_CI_SMALL);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* The second identical query is a hit with the same value; so is the same query with x and
 * y swapped and S in another order. */
static void test_cache(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);
	size_t S[2] = { 2, 3 }, T[2] = { 3, 2 };
	fb_ci_stats st;
	unsigned fl;
	double p1, p2, p3;

	p1 = fb_ci_pvalue(ci, 0, 1, S, 2, &fl);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	p2 = fb_ci_pvalue(ci, 0, 1, S, 2, &fl);
	assert_true(fl & FB_CI_CACHED);
	p3 = fb_ci_pvalue(ci, 1, 0, T, 2, &fl);
	assert_true(fl & FB_CI_CACHED);
	assert_true(p1 == p2 && p2 == p3);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.queries, 3);
	assert_int_equal(st.computed, 1);
	assert_int_equal(st.hits, 2);
	/* a different set is a different key */
	fb_ci_pvalue(ci, 0, 1, S, 1, &fl);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	fb_ci_cache_clear(ci);
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 2, &fl) == p1);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	/* with the cache off every query is computed and nothing is kept; back on, what was
	 * kept before is found again and new answers are kept */
	fb_ci_cache_set(ci, false);
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 2, &fl) == p1);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	fb_ci_pvalue(ci, 0, 2, NULL, 0, &fl);
	fb_ci_cache_set(ci, true);
	fb_ci_pvalue(ci, 0, 1, S, 2, &fl);
	assert_int_equal(fl & FB_CI_CACHED, FB_CI_CACHED);
	fb_ci_pvalue(ci, 0, 2, NULL, 0, &fl);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	fb_ci_pvalue(ci, 0, 2, NULL, 0, &fl);
	assert_int_equal(fl & FB_CI_CACHED, FB_CI_CACHED);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* A cache's memory passes from one object to another through a spare: the answers an
 * object kept in it are forgotten when it goes (asked again: computed, the same bits), and
 * the next object fills the same table. */
static void test_cache_swap(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci *a = fb_ci_alloc(ds, NULL, NULL), *b = fb_ci_alloc(ds, NULL, NULL);
	fb_ci_spare *sp = fb_ci_spare_alloc();
	size_t S[1] = { 2 };
	const void *slot;
	unsigned fl;
	double p;

	(void)state;
	assert_non_null(sp);
	fb_ci_cache_swap(a, sp);
	p = fb_ci_pvalue(a, 0, 1, S, 1, &fl);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	assert_true(fb_ci_pvalue(a, 0, 1, S, 1, &fl) == p);
	assert_true(fl & FB_CI_CACHED);
	slot = a->cache.slot;
	assert_non_null(slot);
	fb_ci_cache_swap(a, sp); /* a forgets; its answers' memory goes to the spare */
	assert_true(fb_ci_pvalue(a, 0, 1, S, 1, &fl) == p);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	fb_ci_cache_swap(b, sp);
	assert_ptr_equal(b->cache.slot, slot);
	assert_int_equal(b->cache.used, 0);
	assert_true(fb_ci_pvalue(b, 0, 1, S, 1, &fl) == p);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	assert_true(fb_ci_pvalue(b, 1, 0, S, 1, &fl) == p);
	assert_true(fl & FB_CI_CACHED);
	fb_ci_free(a);
	fb_ci_free(b);
	fb_ci_spare_free(sp);
	fb_ci_spare_free(NULL);
	fb_dataset_free(ds);
}

/* Queries asked as fresh (fb_ci_cache_fresh) are not looked up but are kept: asked again
 * afterwards, each is a hit with the same bits; into an empty cache and a full one. */
static void test_cache_fresh(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);
	size_t S[1] = { 3 }, T[1] = { 1 };
	fb_ci_stats st;
	unsigned fl;
	double p1, p2;

	(void)state;
	fb_ci_cache_fresh(ci, true);
	p1 = fb_ci_pvalue(ci, 0, 1, S, 1, &fl);
	p2 = fb_ci_pvalue(ci, 0, 2, T, 1, &fl);
	assert_int_equal(fl & FB_CI_CACHED, 0);
	fb_ci_cache_fresh(ci, false);
	assert_true(fb_ci_pvalue(ci, 1, 0, S, 1, &fl) == p1);
	assert_int_equal(fl & FB_CI_CACHED, FB_CI_CACHED);
	assert_true(fb_ci_pvalue(ci, 2, 0, T, 1, &fl) == p2);
	assert_int_equal(fl & FB_CI_CACHED, FB_CI_CACHED);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.queries, 4);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.computed, 2);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* With fb_ci_cache_keep(p) an answer above p is computed again when asked again (same bits,
 * counted as computed), one at or below p is a hit; INFINITY keeps everything again. */
static void test_cache_keep(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);
	size_t S[1] = { 3 };
	double p1, p2, lo, hi, mid;
	fb_ci_stats st;
	unsigned fl;

	(void)state;
	p1 = fb_ci_pvalue(ci, 0, 1, S, 1, &fl);
	p2 = fb_ci_pvalue(ci, 0, 2, S, 1, &fl);
	assert_true(p1 != p2);
	lo = p1 < p2 ? p1 : p2;
	hi = p1 < p2 ? p2 : p1;
	mid = 0.5 * (lo + hi);
	fb_ci_cache_clear(ci);
	fb_ci_cache_keep(ci, mid);
	fb_ci_pvalue(ci, 0, 1, S, 1, &fl);
	fb_ci_pvalue(ci, 0, 2, S, 1, &fl);
	/* the smaller p-value is kept, the larger one is not */
	assert_true(fb_ci_pvalue(ci, 1, 0, S, 1, &fl) == p1);
	assert_int_equal(fl & FB_CI_CACHED, p1 == lo ? FB_CI_CACHED : 0);
	assert_true(fb_ci_pvalue(ci, 2, 0, S, 1, &fl) == p2);
	assert_int_equal(fl & FB_CI_CACHED, p2 == lo ? FB_CI_CACHED : 0);
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.queries, 6);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.computed, 5);
	fb_ci_cache_keep(ci, INFINITY);
	fb_ci_pvalue(ci, 0, 3, NULL, 0, &fl);
	fb_ci_pvalue(ci, 0, 3, NULL, 0, &fl);
	assert_int_equal(fl & FB_CI_CACHED, FB_CI_CACHED);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* fb_ci_independent against fb_ci_test's p > alpha on every pair of 30 columns given the
 * empty set (where Fisher-z may decide from the correlation) and given one variable, at
 * levels that include each pair's own p-value (exactly on the boundary, where the p-value
 * must decide) and its next doubles: the same answers and the same counters, with the cache
 * off, and on keeping only what is at or below the level. */
static void test_independent(void **state)
{
	size_t n = 60, d = 30, S[1] = { 0 };
	double *x = fb_xmalloc(n * d * sizeof *x);
	uint64_t r = 777;
	fb_dataset *ds;

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			x[i * d + j] = (double)(r >> 11) / 9007199254740992.0 +
			               (j > 0 ? 0.05 * (double)(j % 5) * x[i * d + j - 1] : 0.0);
		}
	ds = cont_data(n, d, x);
	for (int cached = 0; cached < 2; cached++)
		for (size_t a = 1; a < d; a += 3)
			for (size_t b = a + 1; b < d; b += 2) {
				fb_ci *t = fb_ci_alloc(ds, NULL, NULL), *u = fb_ci_alloc(ds, NULL, NULL);
				double p = fb_ci_pvalue(t, a, b, NULL, 0, NULL);
				double alphas[3] = { p, nextafter(p, 0.0), nextafter(p, 1.0) };
				fb_ci_stats st, su;

				fb_ci_cache_clear(t);
				fb_ci_pvalue(u, a, b, NULL, 0, NULL); /* the same count */
				fb_ci_cache_clear(u);
				for (size_t k = 0; k < 3; k++) {
					fb_ci_cache_set(t, cached);
					fb_ci_cache_set(u, cached);
					fb_ci_cache_keep(t, alphas[k]);
					fb_ci_cache_keep(u, alphas[k]);
					for (size_t i = 0; i < d; i++)
						for (size_t j = 0; j < d; j++) {
							fb_ci_result res;
							bool ind;
							size_t ns = i != 0 && j != 0;

							if (i == j)
								continue;
							assert_int_equal(fb_ci_test(t, i, j, S, ns, &res, NULL), FB_OK);
							assert_int_equal(fb_ci_independent(u, i, j, S, ns, alphas[k],
							                                   &ind, NULL), FB_OK);
							assert_int_equal(ind, res.p > alphas[k]);
						}
				}
				fb_ci_get_stats(t, &st);
				fb_ci_get_stats(u, &su);
				assert_int_equal(st.queries, su.queries);
				assert_int_equal(st.computed, su.computed);
				assert_int_equal(st.hits, su.hits);
				fb_ci_free(t);
				fb_ci_free(u);
				if (a > 10)
					break;
			}
	fb_dataset_free(ds);
	free(x);
}

/* n rows of 8 discrete columns of 6 levels: column j copies column j - 1 with probability
 * (j % 3) / 4, else draws anew, so that some pairs depend strongly and others not. */
static fb_dataset *chain_data(size_t n)
{
	size_t d = 8, nlev[8] = { 6, 6, 6, 6, 6, 6, 6, 6 };
	fb_dataset *ds = fb_dataset_alloc(n, d);
	uint64_t r = 4242;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			ds->x[i * d + j] = j > 0 && (r >> 60) % 4 < j % 3 ? ds->x[i * d + j - 1]
			                                                  : (double)((r >> 33) % 6);
		}
	make_discrete(ds, nlev);
	return ds;
}

/* χ² asked only whether a pair is dependent (fb_ci_independent, its answer kept by no
 * cache) may stop summing strata once the dependence is sure: the answers are those of the
 * full p-values at several levels, tests with the same counts, and some stop (on the
 * dense path and on the hashed one, with sets of up to five members). */
static void test_chi2_decide(void **state)
{
	fb_dataset *ds = chain_data(3000);
	fb_ci_options o;
	size_t stops = 0, sets[][5] = { { 0 }, { 2 }, { 3, 6 }, { 1, 4, 7 }, { 0, 2, 4, 6, 7 } };
	size_t sizes[] = { 0, 1, 2, 3, 5 };
	fb_ci *t, *u;
	fb_ci_stats st, su;

	(void)state;
	fb_ci_options_init(&o);
	o.test = FB_CI_CHI2;
	o.cache = false;
	t = fb_ci_alloc(ds, &o, NULL);
	u = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(t);
	assert_non_null(u);
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
		for (size_t x = 0; x < 8; x++)
			for (size_t y = 0; y < 8; y++) {
				const size_t *S = sets[k];
				fb_ci_result res;
				bool skip = x == y, ind;

				for (size_t m = 0; m < sizes[k]; m++)
					skip = skip || S[m] == x || S[m] == y;
				if (skip)
					continue;
				assert_int_equal(fb_ci_test(t, x, y, S, sizes[k], &res, NULL), FB_OK);
				{
					double alphas[4] = { 0.05, 1e-12, res.p, nextafter(res.p, 1.0) };

					for (size_t a = 0; a < 4; a++) {
						if (!(alphas[a] > 0.0 && alphas[a] < 1.0))
							continue;
						assert_int_equal(fb_ci_independent(u, x, y, S, sizes[k], alphas[a],
						                                   &ind, NULL), FB_OK);
						assert_int_equal(ind, res.p > alphas[a]);
						stops += u->dws.stopped;
						if (a > 0) /* the same count as t's */
							assert_int_equal(fb_ci_test(t, x, y, S, sizes[k], &res, NULL),
							                 FB_OK);
					}
				}
			}
	fb_ci_get_stats(t, &st);
	fb_ci_get_stats(u, &su);
	assert_int_equal(st.queries, su.queries);
	assert_int_equal(st.computed, su.computed);
	assert_true(stops > 0);
	fb_ci_free(t);
	fb_ci_free(u);
	fb_dataset_free(ds);
}

/* 700 rows of d skewed discrete columns of 2 to 4 levels, so that some strata and cells
 * stay empty. */
static fb_dataset *skewed_data(size_t n, size_t d)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);
	size_t nlev[16];
	uint64_t r = 12345;

	assert_true(d <= 16);
	for (size_t j = 0; j < d; j++)
		nlev[j] = 2 + j % 3;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			ds->x[i * d + j] = (double)((r >> 33) % (nlev[j] * nlev[j]) / nlev[j]);
		}
	make_discrete(ds, nlev);
	return ds;
}

/* Test x against y given S on kept (one object for every query, as PC uses it) and on a new
 * object, and demand the same bits. */
static void memo_compare(const fb_dataset *ds, const fb_ci_options *o, fb_ci *kept, bool rows,
                         size_t x, size_t y, const size_t *S, size_t ns)
{
	fb_ci *fresh = fb_ci_alloc(ds, o, NULL);
	fb_ci_result a, b;

	assert_non_null(fresh);
	if (rows)
		ci_bits_release(&fresh->dws);
	assert_int_equal(fb_ci_test(kept, x, y, S, ns, &a, NULL), FB_OK);
	assert_int_equal(fb_ci_test(fresh, x, y, S, ns, &b, NULL), FB_OK);
	assert_memory_equal(&a.stat, &b.stat, sizeof a.stat);
	assert_memory_equal(&a.df, &b.df, sizeof a.df);
	assert_memory_equal(&a.p, &b.p, sizeof a.p);
	fb_ci_free(fresh);
}

/* What a discrete test keeps between queries with one conditioning set (the strata of each
 * prefix of S, the split by a recurring variable) gives the bits of a new object, on the bit
 * path and row by row: sets in PC's order (each set against every other variable, x first
 * and second, consecutive sets sharing their smallest members), then a set that is a prefix
 * of the one before, then one that extends it (fails if a kept part were stale). */
static void test_memo_reuse(void **state)
{
	size_t d = 7, S[4], comb[3] = { 0, 1, 2 }, rest[6];
	fb_dataset *ds = skewed_data(700, d);
	fb_ci_options o;

	(void)state;
	fb_ci_options_init(&o);
	o.cache = false;
	for (int rows = 0; rows < 2; rows++) {
		fb_ci *kept = fb_ci_alloc(ds, &o, NULL);
		size_t x = 3, m = 0, P[2] = { 0, 1 }, Q[3] = { 0, 1, 4 };

		assert_non_null(kept);
		if (rows)
			ci_bits_release(&kept->dws);
		for (size_t v = 0; v < d; v++)
			if (v != x)
				rest[m++] = v;
		do {
			for (size_t k = 0; k < 3; k++)
				S[k] = rest[comb[k]];
			for (size_t t = 0; t < m; t++)
				if (t != comb[0] && t != comb[1] && t != comb[2])
					memo_compare(ds, &o, kept, rows, x, rest[t], S, 3);
		} while (fb_pc_subset_next(comb, 3, m));
		memo_compare(ds, &o, kept, rows, 2, 5, Q, 3);
		memo_compare(ds, &o, kept, rows, 2, 5, P, 2);
		memo_compare(ds, &o, kept, rows, 3, 6, Q, 3);
		memo_compare(ds, &o, kept, rows, 6, 3, NULL, 0);
		fb_ci_free(kept);
	}
	fb_dataset_free(ds);
}

/* n rows of d discrete columns of levels levels each (2 to 16), skewed like skewed_data's,
 * drawn from seed. */
static fb_dataset *levels_data(size_t n, size_t d, size_t levels, uint64_t seed)
{
	static char lab[16][3] = { "0", "1", "2",  "3",  "4",  "5",  "6",  "7",
		                   "8", "9", "10", "11", "12", "13", "14", "15" };
	char *labels[16];
	fb_dataset *ds = fb_dataset_alloc(n, d);

	assert_true(levels >= 2 && levels <= 16);
	for (size_t k = 0; k < 16; k++)
		labels[k] = lab[k];
	for (size_t i = 0; i < n * d; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		ds->x[i] = (double)((seed >> 33) % (levels * levels) / levels);
	}
	for (size_t j = 0; j < d; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, labels, levels, NULL), FB_OK);
	return ds;
}

/* One test of the variables V (nv of them) in the roles that perm (a permutation of 0..nv-1)
 * gives, x and y first, on kept and on a new object (memo_compare); true when kept read a
 * kept joint table (its ring did not grow). */
static bool joint_compare(const fb_dataset *ds, const fb_ci_options *o, fb_ci *kept,
                          const size_t *V, const size_t *perm, size_t nv)
{
	uint64_t before = kept->dws.jnext;
	size_t S[8];

	for (size_t k = 2; k < nv; k++)
		S[k - 2] = V[perm[k]];
	memo_compare(ds, o, kept, true, V[perm[0]], V[perm[1]], S, nv - 2);
	return kept->dws.jnext == before;
}

/* A later test over the same variables in other roles reads the joint table the first one
 * counted and gives the bits of a new object, whichever variables are x and y and in
 * whatever order S lists the rest (fails if a kept table were read with wrong strides or a
 * table not kept, as the seven variables' first, left counts behind); once the ring has
 * wrapped, the sets whose tables were overwritten are counted again (fails if a stale
 * table were read). */
static void test_joint_kept(void **state)
{
	static const size_t pool[6][7] = { { 0, 1, 2 },          { 1, 3, 5, 6 },
		                           { 0, 2, 3, 4, 6 },    { 0, 1, 2, 3, 4, 5 },
		                           { 0, 1, 2, 3, 4, 5, 6 }, { 2, 4 } };
	static const size_t sizes[6] = { 3, 4, 5, 6, 7, 2 };
	fb_dataset *ds = levels_data(700, 7, 4, 1);
	fb_ci_options o;
	fb_ci *kept;
	uint64_t r = 99;
	static const size_t roles[2][4] = { { 0, 1, 2, 3 }, { 2, 3, 1, 0 } };
	static size_t sets[495][4];
	size_t read = 0, again = 0, comb[4], nsets = 0;

	(void)state;
	fb_ci_options_init(&o);
	o.cache = false;
	kept = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(kept);
	ci_bits_release(&kept->dws);
	for (size_t q = 0; q < 300; q++) {
		size_t set = q % 6, nv = sizes[set], perm[7];

		for (size_t k = 0; k < nv; k++)
			perm[k] = k;
		for (size_t k = nv; k-- > 1;) { /* Fisher-Yates */
			size_t j, t;

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			j = (size_t)((r >> 33) % (k + 1));
			t = perm[k], perm[k] = perm[j], perm[j] = t;
		}
		read += joint_compare(ds, &o, kept, pool[set], perm, nv);
	}
	assert_true(read >= 240); /* at least the five smaller sets after their first tests */
	fb_ci_free(kept);
	fb_dataset_free(ds);
	/* 4 variables of 12 levels: 20,736 cells a table, the ring holds 202 of the 495 sets */
	ds = levels_data(2000, 12, 12, 2);
	kept = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(kept);
	ci_bits_release(&kept->dws);
	for (size_t k = 0; k < 4; k++)
		comb[k] = k;
	do { /* every set once, in order */
		memcpy(sets[nsets++], comb, sizeof comb);
		joint_compare(ds, &o, kept, comb, roles[0], 4);
	} while (fb_pc_subset_next(comb, 4, 12));
	assert_int_equal(nsets, 495);
	read = 0;
	for (size_t t = nsets; t-- > 0;) /* backwards, in other roles: the newest are kept */
		read += joint_compare(ds, &o, kept, sets[t], roles[1], 4);
	again = nsets - read;
	assert_true(read > 100 && again > 100);
	fb_ci_free(kept);
	fb_dataset_free(ds);
}

/* A discrete object's helpers read its codes and row sets rather than copying them, and
 * give a new object's bits on the bit path and row by row, for G² and χ², while the owner
 * and each other run tests of their own in between (fails if a helper copied the data, kept
 * the owner's scratch, or freed what it shares: the owner frees it once, after them). */
static void test_disc_helpers(void **state)
{
	static const enum fb_ci_test tests[2] = { FB_CI_G2, FB_CI_CHI2 };
	fb_dataset *ds = levels_data(900, 7, 3, 5);
	uint64_t r = 7;

	(void)state;
	for (size_t t = 0; t < 2; t++) {
		fb_ci_options o;
		fb_ci *own;

		fb_ci_options_init(&o);
		o.test = tests[t];
		o.cache = false;
		own = fb_ci_alloc(ds, &o, NULL);
		assert_non_null(own);
		assert_int_equal(fb_ci_helpers_alloc(own, ds, 2, NULL), FB_OK);
		for (size_t k = 0; k < 2; k++) {
			fb_ci *h = fb_ci_helper(own, k);

			assert_ptr_equal(h->codes, own->codes);
			assert_ptr_equal(h->dws.bits, own->dws.bits);
			assert_ptr_not_equal(h->dws.tab, own->dws.tab);
		}
		for (size_t q = 0; q < 60; q++) {
			size_t S[4], ns = q % 5, x, y;
			fb_ci *who = q % 3 == 2 ? own : fb_ci_helper(own, q % 2);

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			x = (size_t)(r >> 33) % 7;
			y = (x + 1 + (size_t)(r >> 40) % 6) % 7;
			for (size_t k = 0, v = 0; k < ns; v++)
				if (v != x && v != y)
					S[k++] = v;
			memo_compare(ds, &o, who, q % 4 == 0, x < y ? x : y, x < y ? y : x, S, ns);
		}
		fb_ci_free(own);
	}
	fb_dataset_free(ds);
}

/* On two and three threads (a dataset large enough to split its columns) a discrete object
 * holds one thread's codes and counts of the levels that occur, and a value that is not a
 * level code, in any thread's columns, is named as one thread names it: the first column,
 * then the first row, at fault (fails if a thread's range were skipped or overlapped, or a
 * fault were told from the wrong thread). */
static void test_codes_threads(void **state)
{
	fb_dataset *ds = levels_data(20000, 9, 5, 3);
	static const size_t bad[3][2] = { { 15000, 7 }, { 3, 1 }, { 19999, 8 } };
	char one[256];
	fb_ci_options o;
	fb_ci *ref;
	fb_error err = { "" };

	(void)state;
	fb_ci_options_init(&o);
	o.test = FB_CI_CHI2;
	for (size_t i = 0; i < 20000; i++) /* column 3 holds levels 0 to 2 of its 5 */
		ds->x[i * 9 + 3] = fmod(ds->x[i * 9 + 3], 3.0);
	ref = fb_ci_alloc(ds, &o, NULL);
	assert_non_null(ref);
	for (o.threads = 2; o.threads <= 3; o.threads++) {
		fb_ci *ci = fb_ci_alloc(ds, &o, NULL);

		assert_non_null(ci);
		assert_memory_equal(ci->codes, ref->codes, 20000 * 9 * sizeof *ci->codes);
		assert_memory_equal(ci->present, ref->present, 9 * sizeof *ci->present);
		assert_int_equal(ci->cmax, 5);
		fb_ci_free(ci);
	}
	assert_int_equal(ref->present[3], 3);
	assert_int_equal(ref->present[4], 5);
	fb_ci_free(ref);
	for (size_t b = 0; b < 3; b++) {
		ds->x[bad[b][0] * 9 + bad[b][1]] = 2.5;
		o.threads = 1;
		assert_null(fb_ci_alloc(ds, &o, &err));
		snprintf(one, sizeof one, "%s", err.msg);
		assert_non_null(strstr(one, "holds 2.5, not a level code below 5"));
		for (o.threads = 2; o.threads <= 3; o.threads++) {
			assert_null(fb_ci_alloc(ds, &o, &err));
			assert_string_equal(err.msg, one);
		}
	}
	assert_string_equal(one, "row 4 of 'X2' holds 2.5, not a level code below 5");
	fb_dataset_free(ds);
}

/* The bit path (row sets, when the strata are few) gives the statistic, degrees of freedom
 * and p-value of the row-by-row paths bit for bit, for G² and χ², on random tables of 2 to 4
 * levels with conditioning sets of 0 to 5 variables, and counts the same strata (the adapted
 * degrees of freedom depend on their number). */
static void test_bits_path(void **state)
{
	static const enum fb_ci_test tests[] = { FB_CI_G2, FB_CI_CHI2 };
	static const enum fb_ci_df dfs[] = { FB_CI_DF_ADJUSTED, FB_CI_DF_ADAPT };
	size_t d = 8;
	fb_dataset *ds = skewed_data(700, d);
	fb_ci_options o;

	(void)state;
	for (size_t t = 0; t < 4; t++) {
		fb_ci *bits, *rows;
		size_t S[5], used = 0;

		fb_ci_options_init(&o);
		o.test = tests[t % 2];
		o.df = dfs[t / 2];
		o.cache = false;
		bits = fb_ci_alloc(ds, &o, NULL);
		rows = fb_ci_alloc(ds, &o, NULL);
		assert_non_null(bits);
		assert_non_null(rows);
		ci_bits_release(&rows->dws);
		for (size_t q = 0; q < 300; q++) {
			size_t x = q % d, y = (x + 1 + (q / d) % (d - 1)) % d, ns = q % 6, m = 0;
			fb_ci_result a, b;

			for (size_t v = 0; v < d && m < ns; v++)
				if (v != x && v != y && (q >> v) % 3 != 0)
					S[m++] = v;
			assert_int_equal(fb_ci_test(bits, x, y, S, m, &a, NULL), FB_OK);
			assert_int_equal(fb_ci_test(rows, x, y, S, m, &b, NULL), FB_OK);
			assert_memory_equal(&a.stat, &b.stat, sizeof a.stat);
			assert_memory_equal(&a.df, &b.df, sizeof a.df);
			assert_memory_equal(&a.p, &b.p, sizeof a.p);
			assert_int_equal(a.flags, b.flags);
			used += bits->dws.bits != NULL;
		}
		if (used == 0)
			printf("the bit path is not available on this machine\n");
		fb_ci_free(bits);
		fb_ci_free(rows);
	}
	fb_dataset_free(ds);
}

/* Without the cache, every order of x, y and S gives the same bits (fails if order mattered:
 * the sub-matrix would be built in another order and rounded differently). */
static void test_order_free(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	const unsigned t[2][2][2] = { { { 10, 5 }, { 3, 12 } }, { { 4, 6 }, { 8, 2 } } };
	fb_dataset *dd = tables_data(t, 2);
	fb_ci_options o;
	fb_ci *ci, *cd;
	size_t S[2] = { 2, 3 }, T[2] = { 3, 2 }, U[1] = { 2 };
	fb_ci_stats st;

	fb_ci_options_init(&o);
	o.cache = false;
	ci = fb_ci_alloc(ds, &o, NULL);
	assert_true(fb_ci_pvalue(ci, 0, 1, S, 2, NULL) == fb_ci_pvalue(ci, 1, 0, T, 2, NULL));
	assert_true(fb_ci_pvalue(ci, 0, 3, U, 1, NULL) == fb_ci_pvalue(ci, 3, 0, U, 1, NULL));
	fb_ci_get_stats(ci, &st);
	assert_int_equal(st.hits, 0);
	assert_int_equal(st.computed, 4);
	fb_ci_free(ci);
	cd = fb_ci_alloc(dd, &o, NULL);
	assert_true(fb_ci_pvalue(cd, 0, 1, U, 1, NULL) == fb_ci_pvalue(cd, 1, 0, U, 1, NULL));
	fb_ci_free(cd);
	fb_dataset_free(dd);
	fb_dataset_free(ds);
}

/* Bad queries and bad data are refused with a sentence. */
static void test_errors(void **state)
{
	fb_dataset *ds = cont_data(10, 4, fz_rows);
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);
	fb_ci_result res;
	fb_error err = { "" };
	size_t S[2] = { 0, 2 }, D[2] = { 2, 2 }, F[1] = { 9 };
	fb_ci_options o;
	unsigned fl;
	size_t nlev[4] = { 2, 2, 2, 2 };
	static char la[] = "a", lb[] = "b";
	char *const labels2[] = { la, lb };

	assert_int_equal(fb_ci_test(ci, 1, 1, NULL, 0, &res, &err), FB_ERR);
	assert_string_equal(err.msg, "a variable cannot be tested against itself (2)");
	assert_true(isnan(res.p));
	assert_int_equal(fb_ci_test(ci, 0, 1, S, 2, &res, &err), FB_ERR);
	assert_string_equal(err.msg, "variable 1 is both tested and conditioned on");
	assert_int_equal(fb_ci_test(ci, 0, 1, D, 2, &res, &err), FB_ERR);
	assert_string_equal(err.msg, "variable 3 appears twice in the conditioning set");
	assert_int_equal(fb_ci_test(ci, 0, 7, NULL, 0, &res, &err), FB_ERR);
	assert_string_equal(err.msg, "variable 8 is out of range (there are 4)");
	assert_true(isnan(fb_ci_pvalue(ci, 0, 1, F, 1, &fl)));
	assert_int_equal(fl, FB_CI_INVALID);
	fb_ci_free(ci);
	fb_ci_options_init(&o);
	o.test = FB_CI_G2;
	assert_null(fb_ci_alloc(ds, &o, &err));
	assert_string_equal(err.msg, "g2 needs discrete variables, and 'X1' is continuous");
	make_discrete(ds, nlev); /* codes such as 1.2 are not levels */
	assert_null(fb_ci_alloc(ds, &o, &err));
	assert_string_equal(err.msg, "row 1 of 'X1' holds 1.2, not a level code below 2");
	fb_dataset_free(ds);
	ds = cont_data(10, 4, fz_rows); /* mixed kinds: auto takes dg, which checks the codes */
	for (size_t j = 0; j < 3; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, labels2, 2, NULL), FB_OK);
	assert_null(fb_ci_alloc(ds, NULL, &err));
	assert_string_equal(err.msg, "row 1 of 'X1' holds 1.2, not a level code below 2");
	fb_dataset_free(ds);
}

/* Whether the query of x and y given S (l variables) holds both of the columns 2 and 5 (copies
 * of each other in test_separate's data: the sub-matrix is singular). */
static bool holds_copies(size_t x, size_t y, const size_t *S, size_t l)
{
	bool two = x == 2 || y == 2, five = x == 5 || y == 5;

	for (size_t k = 0; k < l; k++) {
		two = two || S[k] == 2;
		five = five || S[k] == 5;
	}
	return two && five;
}

/* The search of one vertex's pairs, one query at a time: for each open position y, the
 * l-subsets of A \ {A[y]} in lexicographic order up to the first accepted (found, sets as
 * fb_ci_fisher_separate gives them); *copies counts the queries that hold both copies. */
static void separate_by_queries(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                                double alpha, unsigned char *found, size_t *sets,
                                size_t *copies)
{
	size_t cand[16], comb[16], S[16];

	for (size_t y = 0; y < m; y++) {
		bool more = true, indep = false;
		size_t mc = 0;

		for (size_t k = 0; k < m; k++)
			if (k != y)
				cand[mc++] = A[k];
		for (size_t k = 0; k < l; k++)
			comb[k] = k;
		found[y] = 0;
		while (more && !indep) {
			for (size_t k = 0; k < l; k++)
				S[k] = cand[comb[k]];
			assert_int_equal(fb_ci_independent(ci, x, A[y], S, l, alpha, &indep, NULL), FB_OK);
			*copies += holds_copies(x, A[y], S, l);
			more = fb_ci_subset_next(comb, l, mc) < l;
		}
		if (indep) {
			found[y] = 1;
			memcpy(sets + y * l, S, l * sizeof *S);
		}
	}
}

/* fb_ci_fisher_separate answers and counts as one query at a time does, at every vertex and
 * size, with a duplicated column (singular sets: exactly those that hold both copies, whatever
 * BLAS kernel made R) and at levels alpha on and next to p-values the search meets (the
 * band's inside); then its errors. */
static void test_separate(void **state)
{
	size_t n = 40, d = 9, A[8], sets[2][8 * 8];
	double *x = fb_xmalloc(n * d * sizeof *x), alphas[5] = { 0.01, 0.2, 0.0, 0.0, 0.0 };
	unsigned char open[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, found[2][8];
	uint64_t r = 4242;
	fb_dataset *ds;
	fb_error err = { "" };
	size_t singular = 0, accepted = 0;

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			x[i * d + j] = (double)(r >> 11) / 9007199254740992.0 +
			               (j > 0 ? 0.3 * x[i * d + j - 1] : 0.0);
		}
	for (size_t i = 0; i < n; i++)
		x[i * d + 5] = x[i * d + 2]; /* a duplicate: some sets are singular */
	ds = cont_data(n, d, x);
	{
		fb_ci *t = fb_ci_alloc(ds, NULL, NULL);
		size_t S[2] = { 3, 4 };

		alphas[2] = fb_ci_pvalue(t, 0, 1, S, 2, NULL);
		alphas[3] = nextafter(alphas[2], 0.0);
		alphas[4] = nextafter(alphas[2], 1.0);
		fb_ci_free(t);
	}
	for (size_t v = 0; v < d; v++)
		for (size_t l = 1; l + 2 <= d - 1; l++)
			for (size_t k = 0; k < 5; k++) {
				fb_ci *a = fb_ci_alloc(ds, NULL, NULL), *b = fb_ci_alloc(ds, NULL, NULL);
				fb_ci_stats sa, sb;
				size_t m = 0, copies = 0;

				for (size_t j = 0; j < d; j++)
					if (j != v)
						A[m++] = j;
				fb_ci_cache_set(b, false);
				assert_int_equal(fb_ci_fisher_separate(a, v, A, m, l, alphas[k], open, NULL,
				                                       found[0], sets[0], NULL), FB_OK);
				separate_by_queries(b, v, A, m, l, alphas[k], found[1], sets[1], &copies);
				assert_memory_equal(found[0], found[1], m);
				for (size_t y = 0; y < m; y++)
					if (found[0][y])
						assert_memory_equal(sets[0] + y * l, sets[1] + y * l,
						                    l * sizeof **sets);
				fb_ci_get_stats(a, &sa);
				fb_ci_get_stats(b, &sb);
				assert_int_equal(sa.queries, sb.queries);
				assert_int_equal(sa.computed, sb.computed);
				assert_int_equal(sa.singular, sb.singular);
				assert_int_equal(sa.singular, copies);
				assert_int_equal(sa.hits, 0);
				singular += sa.singular;
				for (size_t y = 0; y < m; y++)
					accepted += found[0][y];
				fb_ci_free(a);
				fb_ci_free(b);
			}
	assert_true(singular > 0 && accepted > 0);
	{
		fb_ci *a = fb_ci_alloc(ds, NULL, NULL);
		size_t bad[3] = { 1, 3, 2 };

		assert_int_equal(fb_ci_fisher_separate(a, 0, bad, 3, 1, 0.05, open, NULL, found[0],
		                                       sets[0], &err), FB_ERR);
		assert_string_equal(err.msg, "neighbour 3 (variable 3) is out of range, the vertex "
		                             "itself, or out of order");
		assert_int_equal(fb_ci_fisher_separate(a, 0, A, 3, 3, 0.05, open, NULL, found[0],
		                                       sets[0], &err), FB_ERR);
		assert_string_equal(err.msg, "subsets of 3 leave no pair among 3 neighbours");
		fb_ci_free(a);
	}
	free(x);
	fb_dataset_free(ds);
}

/* Run the tests. */
/* The correlation matrix of ds as one dsyrk over the centred copy gives it (the upper
 * triangle scaled, d x d row-major), the reference of the blocked build. */
static double *corr_single_call(const fb_dataset *ds, const bool *constant)
{
	size_t d = ds->d;
	gsl_matrix *X = ci_centred_copy(ds);
	double *R = calloc(d * d, sizeof *R);
	gsl_matrix_view C = gsl_matrix_view_array(R, d, d);

	assert_non_null(X);
	assert_non_null(R);
	gsl_blas_dsyrk(CblasUpper, CblasTrans, 1.0, X, 0.0, &C.matrix);
	gsl_matrix_free(X);
	for (size_t i = 0; i < d; i++)
		for (size_t j = d; j-- > i;) {
			double r = i == j ? 1.0 : 0.0;

			if (i != j && !constant[i] && !constant[j])
				r = R[i * d + j] / sqrt(R[i * d + i] * R[j * d + j]);
			R[i * d + j] = r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
		}
	return R;
}

/* A pseudo-random n x d dataset (xorshift from seed), column d / 2 constant. */
static fb_dataset *random_data(size_t n, size_t d, uint64_t seed)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);

	assert_non_null(ds);
	for (size_t k = 0; k < n * d; k++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		ds->x[k] = ((double)(seed >> 11) / 9007199254740992.0) * (double)(1 + k % d % 7);
	}
	for (size_t i = 0; i < n; i++)
		ds->x[i * d + d / 2] = 3.0; /* a constant column: correlation 0 */
	return ds;
}

/* The correlation matrix built in column blocks on 1, 2, 3 and 16 threads has the single
 * call's bits, for sizes with and without a strip past the last block (the probe of the
 * BLAS's row cut may refuse a strip: the single call then builds it, the same bits); the
 * blocks run where there is no strip. */
static void test_corr_blocked(void **state)
{
	static const size_t sizes[][2] = { { 1024, 256 }, { 1100, 300 }, { 1500, 333 },
	                                   { 1031, 704 }, { 2100, 2113 } };
	static const size_t threads[] = { 1, 2, 3, 16 };

	(void)state;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s][0], d = sizes[s][1];
		fb_dataset *ds = random_data(n, d, 88172645463325252ull + s);
		bool *constant = calloc(d, sizeof *constant);
		double *R;

		constant[d / 2] = true;
		R = corr_single_call(ds, constant);
		for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
			fb_ci_options o;
			fb_ci *ci;
			fb_ci_stats st;

			fb_ci_options_init(&o);
			o.threads = threads[t];
			ci = fb_ci_alloc(ds, &o, NULL);
			assert_non_null(ci);
			fb_ci_get_stats(ci, &st);
			if (d % 64 == 0)
				assert_int_equal(st.build_threads, threads[t]);
			for (size_t i = 0; i < d; i++)
				if (memcmp(ci->corr + ci_packed_at(d, i, i), R + i * d + i,
				           (d - i) * sizeof *R) != 0)
					fail_msg("n %zu, d %zu, %zu threads: row %zu differs from the single "
					         "call", n, d, threads[t], i);
			fb_ci_free(ci);
		}
		free(R);
		free(constant);
		fb_dataset_free(ds);
	}
}

/* fb_ci_alloc_cols over a reversed and rotated column order has the bits of fb_ci_alloc
 * over the dataset reordered so (the single call, and the blocked build on two threads),
 * with a scratch kept across builds (grown once, then reused) or none; a column order that
 * is no permutation, or another test, fails with a sentence. */
static void test_alloc_cols(void **state)
{
	static const size_t sizes[][2] = { { 10, 4 }, { 300, 37 }, { 1100, 300 } };
	fb_ci_scratch sc = { 0 };
	fb_ci_options o;
	fb_error err = { "" };

	(void)state;
	fb_ci_options_init(&o);
	o.test = FB_CI_FISHER_Z;
	o.threads = 2;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s][0], d = sizes[s][1], *col = malloc(d * sizeof *col);
		fb_dataset *ds = random_data(n, d, 88172645463325252ull + s), *re;
		fb_ci *want, *got[2];

		for (size_t j = 0; j < d; j++)
			col[j] = s % 2 ? d - 1 - j : (j + 3) % d;
		re = fb_dataset_subset(ds, NULL, 0, col, d);
		want = fb_ci_alloc(re, &o, &err);
		got[0] = fb_ci_alloc_cols(ds, col, &o, &sc, &err);
		got[1] = fb_ci_alloc_cols(ds, col, &o, s == 1 ? NULL : &sc, &err);
		assert_non_null(want);
		for (size_t k = 0; k < 2; k++) {
			assert_non_null(got[k]);
			if (memcmp(got[k]->corr, want->corr, d * (d + 1) / 2 * sizeof *want->corr) != 0)
				fail_msg("n %zu, d %zu: the reordered build differs", n, d);
			fb_ci_free(got[k]);
		}
		if (d < 256) /* the single call's copy: the scratch holds n d values */
			assert_true(sc.cap >= n * d);
		col[1] = col[0];
		assert_null(fb_ci_alloc_cols(ds, col, &o, &sc, &err));
		assert_non_null(strstr(err.msg, "read by another variable"));
		col[1] = d;
		assert_null(fb_ci_alloc_cols(ds, col, &o, &sc, &err));
		assert_non_null(strstr(err.msg, "past the dataset's last"));
		fb_ci_free(want);
		fb_dataset_free(re);
		fb_dataset_free(ds);
		free(col);
	}
	o.test = FB_CI_G2;
	assert_null(fb_ci_alloc_cols(NULL, NULL, &o, NULL, &err));
	fb_ci_scratch_release(&sc);
	assert_null(sc.v);
}

/* Key number k of test_cache_growth (2 to 5 words) into key; its length. */
static size_t growth_key(uint32_t k, uint32_t *key)
{
	size_t nk = 2 + k % 4;

	for (size_t t = 0; t < nk; t++)
		key[t] = k * 7 + (uint32_t)t;
	return nk;
}

/* Keep answers 0 .. n - 1 of test_cache_growth in c (answer k scaled by s). */
static void growth_fill(ci_cache *c, uint32_t n, double s)
{
	uint32_t key[5];

	for (uint32_t k = 0; k < n; k++) {
		size_t nk = growth_key(k, key);
		fb_ci_result r = { .p = s * k / n, .stat = s * k, .df = (double)nk, .r = -s * k,
		                   .flags = k % 2 ? FB_CI_SMALL | FB_CI_CACHED : 0 };

		assert_int_equal(ci_cache_put(c, ci_cache_hash(key, nk), key, nk, &r), FB_OK);
	}
	assert_int_equal(c->used, n);
}

/* Whether answers 0 .. n - 1 are found in c with their values (found) or not at all; no key
 * that differs in its first word is ever found. */
static void growth_check(const ci_cache *c, uint32_t n, double s, bool found)
{
	uint32_t key[5];
	fb_ci_result got;

	for (uint32_t k = 0; k < n; k++) {
		size_t nk = growth_key(k, key);

		assert_true(ci_cache_find(c, ci_cache_hash(key, nk), key, nk, &got) == found);
		if (found) {
			assert_true(got.p == s * k / n && got.stat == s * k && got.df == (double)nk &&
			            got.r == -s * k);
			assert_int_equal(got.flags, k % 2 ? FB_CI_SMALL : 0);
		}
		key[0] += 1; /* the same words but the first: never kept */
		assert_false(ci_cache_find(c, ci_cache_hash(key, nk), key, nk, &got));
	}
}

/* The cache keeps thousands of answers through its growth (the table's slots placed anew,
 * the answers in blocks that never move): each found with its values, none found that was
 * not kept.  Reset, it finds none of them, and as many new answers take its memory again
 * (the same table and blocks). */
static void test_cache_growth(void **state)
{
	ci_cache c = { 0 };
	const void *slot, *blk;
	size_t cap, nblk;

	(void)state;
	growth_fill(&c, 20000, 1.0);
	growth_check(&c, 20000, 1.0, true);
	slot = c.slot;
	blk = c.blk[0];
	cap = c.cap;
	nblk = c.nblk;
	ci_cache_reset(&c);
	growth_check(&c, 20000, 1.0, false);
	growth_fill(&c, 20000, 2.0);
	growth_check(&c, 20000, 2.0, true);
	assert_ptr_equal(c.slot, slot);
	assert_ptr_equal(c.blk[0], blk);
	assert_int_equal(c.cap, cap);
	assert_int_equal(c.nblk, nblk);
	ci_cache_release(&c);
	assert_int_equal(c.cap, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fisher_small),
		cmocka_unit_test(test_fisher_order2),
		cmocka_unit_test(test_fisher_undefined),
		cmocka_unit_test(test_fisher_singular),
		cmocka_unit_test(test_corr_blocked),
		cmocka_unit_test(test_discrete_textbook),
		cmocka_unit_test(test_discrete_conditional),
		cmocka_unit_test(test_discrete_df),
		cmocka_unit_test(test_discrete_zero_df),
		cmocka_unit_test(test_discrete_many_strata),
		cmocka_unit_test(test_discrete_dense_same_bits),
		cmocka_unit_test(test_discrete_small),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_growth),
		cmocka_unit_test(test_cache_swap),
		cmocka_unit_test(test_alloc_cols),
		cmocka_unit_test(test_cache_keep),
		cmocka_unit_test(test_cache_fresh),
		cmocka_unit_test(test_independent),
		cmocka_unit_test(test_chi2_decide),
		cmocka_unit_test(test_order_free),
		cmocka_unit_test(test_bits_path),
		cmocka_unit_test(test_memo_reuse),
		cmocka_unit_test(test_joint_kept),
		cmocka_unit_test(test_disc_helpers),
		cmocka_unit_test(test_codes_threads),
		cmocka_unit_test(test_separate),
		cmocka_unit_test(test_errors),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
