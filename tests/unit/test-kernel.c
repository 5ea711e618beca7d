/* Unit tests of the low-rank factor of a Gaussian kernel (pivoted incomplete Cholesky):
 * against the kernel computed entry by entry, its stopping rule, the rank limit, the full
 * factor at full rank, repeated rows and determinism; the fast variant's exp against
 * glibc's. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "fedbn/core.h"

/* n rows of p standard normal values (seed 5), row-major. */
static double *points(size_t n, size_t p)
{
	double *x = malloc(n * p * sizeof *x);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(r, 5);
	for (size_t i = 0; i < n * p; i++)
		x[i] = gsl_ran_gaussian(r, 1.0);
	gsl_rng_free(r);
	return x;
}

/* The remainder K - G'G at (a, b), K's entry computed from its definition. */
static double left_over(const double *x, size_t n, size_t p, double theta, const double *g,
                        size_t r, size_t a, size_t b)
{
	double d2 = 0.0, gg = 0.0;

	for (size_t q = 0; q < p; q++)
		d2 += (x[a * p + q] - x[b * p + q]) * (x[a * p + q] - x[b * p + q]);
	for (size_t k = 0; k < r; k++)
		gg += g[k * n + a] * g[k * n + b];
	return exp(-0.5 * theta * d2) - gg;
}

/* 400 rows in 2-D: the remainder's trace is within n tol, it is no larger than the trace
 * anywhere, its diagonal is not negative; the rank is far below n and grows as tol
 * shrinks; a second run gives the same bits. */
static void test_factor_bounds(void **state)
{
	size_t n = 400, p = 2, r = 0, r_loose = 0;
	double *x = points(n, p), *g = malloc(n * n * sizeof *g), *h = malloc(n * n * sizeof *h);
	double theta = 0.5, tol = 1e-9, trace = 0.0, worst = 0.0;

	(void)state;
	assert_true(fb_kernel_factor_rbf(x, n, p, theta, tol, n, g, &r));
	for (size_t a = 0; a < n; a++) {
		double e = left_over(x, n, p, theta, g, r, a, a);

		assert_true(e >= -1e-12);
		trace += e;
		for (size_t b = 0; b < a; b++)
			worst = fmax(worst, fabs(left_over(x, n, p, theta, g, r, a, b)));
	}
	assert_true(trace <= n * tol);
	assert_true(worst <= trace);
	assert_true(r > 10 && r < n / 4);
	assert_true(fb_kernel_factor_rbf(x, n, p, theta, 1e-5, n, h, &r_loose));
	assert_true(r_loose < r);
	assert_true(fb_kernel_factor_rbf(x, n, p, theta, tol, n, h, &r_loose));
	assert_int_equal(r_loose, r);
	assert_memory_equal(g, h, r * n * sizeof *g);
	free(x);
	free(g);
	free(h);
}

/* A rank limit below what tol needs: false, with the limit's rows done. */
static void test_factor_limit(void **state)
{
	size_t n = 400, p = 2, r = 0;
	double *x = points(n, p), *g = malloc(n * 10 * sizeof *g);

	(void)state;
	assert_false(fb_kernel_factor_rbf(x, n, p, 1.5, 1e-9, 10, g, &r));
	assert_int_equal(r, 10);
	free(x);
	free(g);
}

/* Eight distinct rows at a tiny tol: the full factor, G'G = K to 1e-12, and each row of G
 * has one more non-zero than the one before once put in pivot order (it is triangular). */
static void test_factor_full(void **state)
{
	size_t n = 8, p = 1, r = 0;
	double x[8] = { -1.9, -1.2, -0.4, 0.1, 0.7, 1.3, 2.2, 3.0 }, g[64];

	(void)state;
	assert_true(fb_kernel_factor_rbf(x, n, p, 1.0, 1e-15, n, g, &r));
	assert_int_equal(r, n);
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b <= a; b++)
			assert_true(fabs(left_over(x, n, p, 1.0, g, r, a, b)) <= 1e-12);
	for (size_t k = 0; k < r; k++) {
		size_t zeros = 0;

		for (size_t a = 0; a < n; a++)
			zeros += g[k * n + a] == 0.0;
		assert_int_equal(zeros, k);
	}
}

/* Rows repeated: three distinct points, each many times, give rank 3 and an exact factor;
 * a constant column gives rank 1. */
static void test_factor_repeats(void **state)
{
	size_t n = 30, r = 0;
	double x[30], g[30 * 30];

	(void)state;
	for (size_t a = 0; a < n; a++)
		x[a] = (double)(a % 3) * 0.8;
	assert_true(fb_kernel_factor_rbf(x, n, 1, 2.0, 1e-12, n, g, &r));
	assert_int_equal(r, 3);
	for (size_t a = 0; a < n; a++)
		for (size_t b = 0; b <= a; b++)
			assert_true(fabs(left_over(x, n, 1, 2.0, g, r, a, b)) <= 1e-12);
	for (size_t a = 0; a < n; a++)
		x[a] = 4.0;
	assert_true(fb_kernel_factor_rbf(x, n, 1, 2.0, 1e-12, n, g, &r));
	assert_int_equal(r, 1);
}

/* The fast variant's first row is the kernel's column of row 0 (its first pivot): within 3
 * units in the last place of glibc's exp over arguments 0 to -800 (0 below -708, where
 * glibc's is below 1e-307), an odd count of rows so that the last goes alone; and its factor
 * of test_factor_bounds's points meets the same bounds: the remainder's diagonal is not
 * negative and its trace (by glibc's exp) is within n tol, at a rank within one of the
 * exact factor's. */
static void test_factor_fast(void **state)
{
	size_t n = 1001, r = 0, rf = 0;
	double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g), *h, *pts, trace = 0.0;

	(void)state;
	for (size_t a = 0; a < n; a++)
		x[a] = 40.0 * (double)a / (double)(n - 1);
	assert_false(fb_kernel_factor_rbf_fast(x, n, 1, 1.0, 1e-15, 1, g, &r));
	assert_int_equal(r, 1);
	for (size_t a = 0; a < n; a++) {
		double want = exp(-0.5 * 1.0 * (x[a] * x[a]));

		if (-0.5 * x[a] * x[a] < -708.0)
			assert_true(g[a] == 0.0 && want < 1e-307);
		else
			assert_true(fabs(g[a] - want) <= 3.0 * DBL_EPSILON * want);
	}
	free(x);
	free(g);
	n = 400;
	pts = points(n, 2);
	g = malloc(n * n * sizeof *g);
	assert_true(fb_kernel_factor_rbf(pts, n, 2, 0.5, 1e-9, n, g, &r));
	h = malloc(n * n * sizeof *h);
	assert_true(fb_kernel_factor_rbf_fast(pts, n, 2, 0.5, 1e-9, n, h, &rf));
	assert_true(rf + 1 >= r && rf <= r + 1);
	for (size_t a = 0; a < n; a++) {
		double e = left_over(pts, n, 2, 0.5, h, rf, a, a);

		assert_true(e >= -1e-12);
		trace += e;
	}
	assert_true(trace <= n * 1e-9);
	free(pts);
	free(g);
	free(h);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_factor_bounds),
		cmocka_unit_test(test_factor_limit),
		cmocka_unit_test(test_factor_full),
		cmocka_unit_test(test_factor_repeats),
		cmocka_unit_test(test_factor_fast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
