/* Unit tests of the optimisation helpers: the acyclicity function h(W) against closed forms
 * and finite differences, the Padé exponential against GSL's own, and the L-BFGS adapter on
 * problems whose minimisers are known. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_rng.h>

#include <stdlib.h>
#include <string.h>

#include "fedbn/optim.h"

/* Fail unless got equals want to relative tolerance rel (absolute below 1). */
static void assert_rel(double got, double want, double rel)
{
	double tol = rel * (fabs(want) > 1.0 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Frobenius norm of a - b over the Frobenius norm of b. */
static double rel_diff(const gsl_matrix *a, const gsl_matrix *b)
{
	double num = 0.0, den = 0.0;
	size_t i, j;

	for (i = 0; i < a->size1; i++)
		for (j = 0; j < a->size2; j++) {
			double x = gsl_matrix_get(a, i, j), y = gsl_matrix_get(b, i, j);

			num += (x - y) * (x - y);
			den += y * y;
		}
	return sqrt(num) / sqrt(den);
}

/* A d x d matrix with entries uniform in [-scale, scale) from r. */
static gsl_matrix *random_matrix(gsl_rng *r, size_t d, double scale)
{
	gsl_matrix *m = gsl_matrix_alloc(d, d);
	size_t i, j;

	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			gsl_matrix_set(m, i, j, scale * (2.0 * gsl_rng_uniform(r) - 1.0));
	return m;
}

/* h and its gradient vanish on DAGs: zero, weighted upper triangular, and a permuted one. */
static void test_h_dag(void **state)
{
	gsl_rng *r = fb_rng_stream(7, "test-dag");
	size_t d = 8, i, j, k;
	/* a topological order that is not the index order */
	size_t order[8] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	gsl_matrix *W = gsl_matrix_calloc(d, d), *G = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	fb_error err = { "" };
	double h = -1.0;

	assert_non_null(w);
	assert_int_equal(fb_dag_h(W, w, &h, G, &err), FB_OK);
	assert_true(h == 0.0);
	for (k = 0; k < 2; k++) {
		gsl_matrix_set_zero(W);
		for (i = 0; i < d; i++)
			for (j = i + 1; j < d; j++) {
				double x = 3.0 * (2.0 * gsl_rng_uniform(r) - 1.0);

				if (k == 0)
					gsl_matrix_set(W, i, j, x);
				else
					gsl_matrix_set(W, order[i], order[j], x);
			}
		assert_int_equal(fb_dag_h(W, w, &h, G, &err), FB_OK);
		if (!(fabs(h) <= 1e-12 * (double)d))
			fail_msg("h = %g on a DAG (case %zu)", h, k);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				if (!(fabs(gsl_matrix_get(G, i, j)) <= 1e-12))
					fail_msg("gradient (%zu,%zu) = %g on a DAG", i, j,
					         gsl_matrix_get(G, i, j));
	}
	fb_dag_h_work_free(w);
	gsl_matrix_free(W);
	gsl_matrix_free(G);
	gsl_rng_free(r);
}

/* The two-cycle W = [[0, a], [b, 0]]: h = 2 cosh(|ab|) - 2 = 4 sinh^2(|ab| / 2), and
 * dh/da = 2 sinh(|ab|) |b| sgn a; the tiny case needs h computed without cancellation. */
static void test_h_two_cycle(void **state)
{
	const double ab[][2] = { { 0.4, 0.7 }, { 1.3, -0.8 }, { -2.1, 1.7 }, { 0.05, 3.0 },
	                         { 1e-4, -2e-4 } };
	gsl_matrix *W = gsl_matrix_calloc(2, 2), *G = gsl_matrix_alloc(2, 2);
	fb_dag_h_work *w = fb_dag_h_work_alloc(2);
	fb_error err = { "" };
	size_t k;

	for (k = 0; k < sizeof ab / sizeof ab[0]; k++) {
		double a = ab[k][0], b = ab[k][1], p = fabs(a * b), h;

		gsl_matrix_set(W, 0, 1, a);
		gsl_matrix_set(W, 1, 0, b);
		assert_int_equal(fb_dag_h(W, w, &h, G, &err), FB_OK);
		if (!(fabs(h - 4.0 * sinh(p / 2) * sinh(p / 2)) <= 1e-13 * h))
			fail_msg("a = %g, b = %g: h = %.17g, want %.17g", a, b, h,
			         4.0 * sinh(p / 2) * sinh(p / 2));
		assert_rel(gsl_matrix_get(G, 0, 1), 2.0 * sinh(p) * fabs(b) * (a > 0 ? 1 : -1),
		           1e-13);
		assert_rel(gsl_matrix_get(G, 1, 0), 2.0 * sinh(p) * fabs(a) * (b > 0 ? 1 : -1),
		           1e-13);
		assert_true(gsl_matrix_get(G, 0, 0) == 0.0 && gsl_matrix_get(G, 1, 1) == 0.0);
	}
	fb_dag_h_work_free(w);
	gsl_matrix_free(W);
	gsl_matrix_free(G);
}

/* The gradient of h agrees with central finite differences on random dense 6 x 6 matrices
 * (small, medium and large norms, so that every Padé degree and some squaring are used). */
static void test_h_gradient_fd(void **state)
{
	const double scales[] = { 0.05, 0.3, 0.8, 1.5 };
	gsl_rng *r = fb_rng_stream(11, "test-grad");
	size_t d = 6, i, j, k;
	gsl_matrix *G = gsl_matrix_alloc(d, d), *F = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	fb_error err = { "" };

	for (k = 0; k < sizeof scales / sizeof scales[0]; k++) {
		gsl_matrix *W = random_matrix(r, d, scales[k]);
		double h;

		assert_int_equal(fb_dag_h(W, w, &h, G, &err), FB_OK);
		assert_true(h > 0.0);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				double x = gsl_matrix_get(W, i, j);
				double step = 1e-5 * fmax(1.0, fabs(x));
				double hp, hm;

				gsl_matrix_set(W, i, j, x + step);
				assert_int_equal(fb_dag_h(W, w, &hp, NULL, &err), FB_OK);
				gsl_matrix_set(W, i, j, x - step);
				assert_int_equal(fb_dag_h(W, w, &hm, NULL, &err), FB_OK);
				gsl_matrix_set(W, i, j, x);
				gsl_matrix_set(F, i, j, (hp - hm) / (2.0 * step));
			}
		if (!(rel_diff(G, F) < 1e-6))
			fail_msg("scale %g: gradient differs from finite differences by %g",
			         scales[k], rel_diff(G, F));
		gsl_matrix_free(W);
	}
	fb_dag_h_work_free(w);
	gsl_matrix_free(G);
	gsl_matrix_free(F);
	gsl_rng_free(r);
}

/* An independent exp(A): Taylor series to 40 terms in long double on A / 2^s with the
 * 1-norm of A / 2^s below 1/16, then s squarings (all in long double), rounded to E. */
static void expm_taylor(const gsl_matrix *A, gsl_matrix *E)
{
	size_t d = A->size1, i, j, l, k;
	long double *a = calloc(4 * d * d, sizeof *a), *term = a + d * d, *sum = term + d * d;
	long double *tmp = sum + d * d;
	double nrm = 0.0;
	int s = 0, q;

	for (j = 0; j < d; j++) {
		double c = 0.0;

		for (i = 0; i < d; i++)
			c += fabs(gsl_matrix_get(A, i, j));
		nrm = fmax(nrm, c);
	}
	for (; nrm > 1.0 / 16; nrm /= 2)
		s++;
	for (i = 0; i < d * d; i++) {
		a[i] = ldexpl(A->data[(i / d) * A->tda + i % d], -s);
		term[i] = sum[i] = (i / d == i % d);
	}
	for (k = 1; k <= 40; k++) {
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				long double x = 0;

				for (l = 0; l < d; l++)
					x += term[i * d + l] * a[l * d + j];
				tmp[i * d + j] = x / (long double)k;
			}
		for (i = 0; i < d * d; i++) {
			term[i] = tmp[i];
			sum[i] += tmp[i];
		}
	}
	for (q = 0; q < s; q++) {
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				long double x = 0;

				for (l = 0; l < d; l++)
					x += sum[i * d + l] * sum[l * d + j];
				tmp[i * d + j] = x;
			}
		memcpy(sum, tmp, d * d * sizeof *sum);
	}
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			gsl_matrix_set(E, i, j, (double)sum[i * d + j]);
	free(a);
}

/* fb_expm agrees with a long-double Taylor series to near rounding, and with
 * gsl_linalg_exponential_ss to that routine's own accuracy (about 1e-10 at worst here), on
 * random matrices of growing norm (both signs, and non-negative as h uses), so that every
 * Padé degree and the squaring are used; and with the rotation closed form. */
static void test_expm_vs_references(void **state)
{
	const double scales[] = { 0.001, 0.03, 0.1, 0.25, 0.6, 2.0, 8.0 };
	gsl_rng *r = fb_rng_stream(3, "test-expm");
	size_t d = 9, i, k, sign;
	gsl_matrix *E = gsl_matrix_alloc(d, d), *ref = gsl_matrix_alloc(d, d);
	gsl_matrix *gsl = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d), *w2 = fb_dag_h_work_alloc(2);
	gsl_matrix *R = gsl_matrix_calloc(2, 2), *ER = gsl_matrix_alloc(2, 2);
	fb_error err = { "" };

	for (sign = 0; sign < 2; sign++)
		for (k = 0; k < sizeof scales / sizeof scales[0]; k++) {
			gsl_matrix *A = random_matrix(r, d, scales[k]);

			for (i = 0; sign == 1 && i < d * d; i++)
				A->data[i] = fabs(A->data[i]);
			assert_int_equal(fb_expm(A, w, E, &err), FB_OK);
			expm_taylor(A, ref);
			assert_int_equal(gsl_linalg_exponential_ss(A, gsl, GSL_PREC_DOUBLE), 0);
			if (!(rel_diff(E, ref) < 5e-14))
				fail_msg("scale %g sign %zu: %g from the Taylor reference",
				         scales[k], sign, rel_diff(E, ref));
			if (!(rel_diff(E, gsl) < 1e-9))
				fail_msg("scale %g sign %zu: %g from GSL", scales[k], sign,
				         rel_diff(E, gsl));
			gsl_matrix_free(A);
		}
	gsl_matrix_set(R, 0, 1, 2.5);
	gsl_matrix_set(R, 1, 0, -2.5);
	assert_int_equal(fb_expm(R, w2, ER, &err), FB_OK);
	assert_rel(gsl_matrix_get(ER, 0, 0), cos(2.5), 1e-14);
	assert_rel(gsl_matrix_get(ER, 0, 1), sin(2.5), 1e-14);
	assert_rel(gsl_matrix_get(ER, 1, 0), -sin(2.5), 1e-14);
	assert_rel(gsl_matrix_get(ER, 1, 1), cos(2.5), 1e-14);
	fb_dag_h_work_free(w);
	fb_dag_h_work_free(w2);
	gsl_matrix_free(E);
	gsl_matrix_free(ref);
	gsl_matrix_free(gsl);
	gsl_matrix_free(R);
	gsl_matrix_free(ER);
	gsl_rng_free(r);
}

/* On non-negative matrices close to nilpotent, as W o W is near a DAG (weights up to 4 above
 * the diagonal of a permuted order, a few entries eps below it), where the norms of the
 * powers fall far below the powers of the norm and a lower degree is chosen, fb_expm still
 * agrees with the long-double Taylor reference, and h with its trace to the same accuracy
 * relative to the matrix; exactly nilpotent input gives h = 0 to rounding. */
static void test_expm_near_nilpotent(void **state)
{
	const double eps[] = { 0.0, 1e-8, 1e-4, 1e-2, 0.3 };
	gsl_rng *r = fb_rng_stream(9, "test-nilpotent");
	size_t d = 12, i, j, k;
	gsl_matrix *A = gsl_matrix_alloc(d, d), *W = gsl_matrix_alloc(d, d);
	gsl_matrix *E = gsl_matrix_alloc(d, d), *ref = gsl_matrix_alloc(d, d);
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	fb_error err = { "" };

	for (k = 0; k < sizeof eps / sizeof eps[0]; k++) {
		double h, tr = -(double)d, big = 0.0;

		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				double x = (i < j) ? 4.0 * gsl_rng_uniform(r) :
				           (i > j && gsl_rng_uniform(r) < 0.2) ? eps[k] : 0.0;

				gsl_matrix_set(A, (i * 5) % d, (j * 5) % d, x);
			}
		for (i = 0; i < d * d; i++)
			W->data[i] = sqrt(A->data[i]);
		assert_int_equal(fb_expm(A, w, E, &err), FB_OK);
		expm_taylor(A, ref);
		if (!(rel_diff(E, ref) < 5e-14))
			fail_msg("eps %g: %g from the Taylor reference", eps[k], rel_diff(E, ref));
		assert_int_equal(fb_dag_h(W, w, &h, NULL, &err), FB_OK);
		for (i = 0; i < d; i++)
			tr += gsl_matrix_get(ref, i, i);
		for (i = 0; i < d * d; i++)
			big += ref->data[i] * ref->data[i];
		if (eps[k] == 0.0 ? !(fabs(h) <= 1e-12) : !(fabs(h - tr) <= 5e-14 * sqrt(big)))
			fail_msg("eps %g: h = %.17g, the reference's trace gives %.17g", eps[k], h, tr);
	}
	fb_dag_h_work_free(w);
	gsl_matrix_free(A);
	gsl_matrix_free(W);
	gsl_matrix_free(E);
	gsl_matrix_free(ref);
	gsl_rng_free(r);
}

/* Non-finite or overflowing input and wrong sizes give FB_ERR with a message. */
static void test_h_errors(void **state)
{
	gsl_rng *r = fb_rng_stream(5, "test-err");
	gsl_matrix *W = random_matrix(r, 4, 1.0), *small = gsl_matrix_alloc(3, 3);
	fb_dag_h_work *w = fb_dag_h_work_alloc(4);
	fb_error err = { "" };
	double h;

	assert_null(fb_dag_h_work_alloc(0));
	gsl_matrix_set(W, 1, 2, NAN);
	assert_int_equal(fb_dag_h(W, w, &h, NULL, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "not finite"));
	gsl_matrix_set_all(W, 40.0);
	err.msg[0] = '\0';
	assert_int_equal(fb_dag_h(W, w, &h, NULL, &err), FB_ERR);
	assert_true(err.msg[0] != '\0');
	gsl_matrix_set_all(W, 1e200);
	assert_int_equal(fb_dag_h(W, w, &h, NULL, &err), FB_ERR);
	assert_int_equal(fb_dag_h(small, w, &h, NULL, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "W must be 4 x 4"));
	gsl_matrix_set_all(W, 0.1);
	assert_int_equal(fb_dag_h(W, w, &h, small, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "grad"));
	assert_int_equal(fb_expm(W, w, W, &err), FB_ERR);
	fb_dag_h_work_free(w);
	gsl_matrix_free(W);
	gsl_matrix_free(small);
	gsl_rng_free(r);
}

/* A separable quadratic sum c_i (x_i - t_i)^2 (the context holds c then t). */
static double quadratic(const double *x, double *grad, size_t n, void *ctx)
{
	const double *c = ctx, *t = c + n;
	double f = 0.0;
	size_t i;

	for (i = 0; i < n; i++) {
		f += c[i] * (x[i] - t[i]) * (x[i] - t[i]);
		if (grad != NULL)
			grad[i] = 2.0 * c[i] * (x[i] - t[i]);
	}
	return f;
}

/* An L-BFGS adapter: fb_lbfgs or fb_lbfgsb. */
typedef int (*lbfgs_solver)(size_t n, double *x, fb_objective f, void *ctx,
                            const fb_lbfgs_options *opt, fb_lbfgs_report *rep, fb_error *err);

/* With bounds (two of them infinite, so absent), solve finds the minimiser of the quadratic,
 * the target clamped to the box (one variable fixed by equal bounds), to tol. */
static void quadratic_clamp(lbfgs_solver solve, fb_lbfgs_options *opt, fb_lbfgs_report *rep,
                            double tol)
{
	double ct[10] = { 1.0, 3.0, 0.5, 2.0, 1.5, -2.0, 0.5, 3.0, -1.0, 4.0 };
	double lo[5] = { -1.0, -HUGE_VAL, 0.0, 0.0, 1.0 }, hi[5] = { 1.0, 1.0, 2.0, HUGE_VAL, 1.0 };
	double want[5] = { -1.0, 0.5, 2.0, 0.0, 1.0 }, x[5] = { 0.0, 0.0, 0.0, 0.0, 1.0 };
	fb_error err = { "" };
	size_t i;

	opt->lower = lo;
	opt->upper = hi;
	assert_int_equal(solve(5, x, quadratic, ct, opt, rep, &err), FB_OK);
	opt->lower = opt->upper = NULL;
	for (i = 0; i < 5; i++)
		if (!(fabs(x[i] - want[i]) <= tol))
			fail_msg("x[%zu] = %.12g, want %g", i, x[i], want[i]);
	assert_rel(rep->f, quadratic(x, NULL, 5, ct), 1e-15);
	/* the value at the clamp: 1 * 1 + 0 + 0.5 * 1 + 2 * 1 + 1.5 * 9 */
	assert_rel(rep->f, 17.0, 1e-9);
}

/* NLopt's L-BFGS on the bounded quadratic. */
static void test_lbfgs_bounded_quadratic(void **state)
{
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };

	opt.ftol_rel = 1e-14;
	quadratic_clamp(fb_lbfgs, &opt, &rep, 1e-6);
	assert_true(rep.evals > 0 && rep.code > 0);
}

/* Rosenbrock's function in two variables. */
static double rosenbrock(const double *x, double *grad, size_t n, void *ctx)
{
	double a = 1.0 - x[0], b = x[1] - x[0] * x[0];

	if (grad != NULL) {
		grad[0] = -2.0 * a - 400.0 * x[0] * b;
		grad[1] = 200.0 * b;
	}
	return a * a + 100.0 * b * b;
}

/* Rosenbrock from (-1.2, 1) by solve: the unconstrained minimum (1, 1) to tol; with
 * x0 <= 0.5 (and infinite bounds elsewhere) the constrained minimum (0.5, 0.25), f = 0.25. */
static void rosenbrock_minima(lbfgs_solver solve, double tol)
{
	double x[2] = { -1.2, 1.0 }, hi[2] = { 0.5, HUGE_VAL }, lo[2] = { -HUGE_VAL, -HUGE_VAL };
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.ftol_rel = 1e-15;
	assert_int_equal(solve(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	if (!(fabs(x[0] - 1.0) < tol && fabs(x[1] - 1.0) < tol))
		fail_msg("minimum at (%.10g, %.10g), code %d", x[0], x[1], rep.code);
	x[0] = -1.2;
	x[1] = 1.0;
	opt.lower = lo;
	opt.upper = hi;
	assert_int_equal(solve(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	assert_rel(x[0], 0.5, 1e-7);
	assert_rel(x[1], 0.25, 1e-6);
	assert_rel(rep.f, 0.25, 1e-9);
}

/* NLopt's L-BFGS on Rosenbrock, with and without a bound. */
static void test_lbfgs_rosenbrock(void **state)
{
	(void)state;
	rosenbrock_minima(fb_lbfgs, 1e-5);
}

/* Stopping on the evaluation limit is not an error: the best point comes back. */
static void test_lbfgs_max_eval(void **state)
{
	double x[2] = { -1.2, 1.0 }, f0 = rosenbrock(x, NULL, 2, NULL);
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.max_eval = 5;
	assert_int_equal(fb_lbfgs(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	assert_int_equal(rep.code, 5); /* NLOPT_MAXEVAL_REACHED */
	/* the limit is checked between iterations: a line search may run a few past it */
	assert_true(rep.evals >= 5 && rep.evals <= 25);
	assert_true(rep.f < f0);
	assert_rel(rosenbrock(x, NULL, 2, NULL), rep.f, 1e-15);
}

/* An objective that is never finite. */
static double nan_objective(const double *x, double *grad, size_t n, void *ctx)
{
	size_t i;

	for (i = 0; i < n; i++)
		grad[i] = NAN;
	return NAN;
}

/* Bad starts and objectives give FB_ERR with a message naming the problem. */
static void test_lbfgs_errors(void **state)
{
	double x[2] = { 2.0, 0.0 }, lo[2] = { 0.0, 0.0 }, hi[2] = { 1.0, 1.0 };
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.lower = lo;
	opt.upper = hi;
	assert_int_equal(fb_lbfgs(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "x[0] is above its upper bound"));
	x[0] = 0.5;
	assert_int_equal(fb_lbfgs(2, x, nan_objective, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "no finite objective value"));
	assert_int_equal(fb_lbfgs(0, x, rosenbrock, NULL, NULL, NULL, &err), FB_ERR);
}

/* L-BFGS-B: the clamped minimiser of the bounded quadratic, and Rosenbrock's minimum with
 * and without the bound x0 <= 0.5. */
static void test_lbfgsb_minima(void **state)
{
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };

	opt.pgtol = 1e-12;
	quadratic_clamp(fb_lbfgsb, &opt, &rep, 1e-9);
	assert_int_equal(rep.code, FB_LBFGSB_CONVERGED);
	rosenbrock_minima(fb_lbfgsb, 1e-6);
}

/* L-BFGS-B stops on the evaluation limit at the next iterate and returns it; bad starts,
 * options and objectives give FB_ERR with a message naming the problem. */
static void test_lbfgsb_limit_and_errors(void **state)
{
	double x[2] = { -1.2, 1.0 }, f0 = rosenbrock(x, NULL, 2, NULL);
	double lo[2] = { 0.0, 0.0 }, hi[2] = { 1.0, 1.0 };
	fb_lbfgs_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.max_eval = 5;
	assert_int_equal(fb_lbfgsb(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	assert_int_equal(rep.code, FB_LBFGSB_LIMIT);
	assert_true(rep.evals > 5 && rep.evals <= 25);
	assert_true(rep.f < f0);
	assert_rel(rosenbrock(x, NULL, 2, NULL), rep.f, 1e-15);
	opt.max_eval = 0;
	opt.lower = lo;
	opt.upper = hi;
	x[0] = 2.0;
	x[1] = 0.5;
	assert_int_equal(fb_lbfgsb(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "x[0] is above its upper bound"));
	x[0] = 0.5;
	assert_int_equal(fb_lbfgsb(2, x, nan_objective, NULL, &opt, &rep, &err), FB_ERR);
	if (strstr(err.msg, "no finite objective") == NULL)
		fail_msg("%s", err.msg);
	opt.xtol_rel = 1e-6;
	assert_int_equal(fb_lbfgsb(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "xtol_rel"));
	assert_int_equal(fb_lbfgsb(0, x, rosenbrock, NULL, NULL, NULL, &err), FB_ERR);
}

/* Rosenbrock's function shifted down by 10, so that its values go below zero on the way. */
static double rosenbrock_below(const double *x, double *grad, size_t n, void *ctx)
{
	return rosenbrock(x, grad, n, ctx) - 10.0;
}

/* Plain L-BFGS under scipy's rules reaches Rosenbrock's minimum also when f turns negative,
 * where liblbfgs's own relative test (against f alone) stops after a few iterations, as it
 * did in notears-mlp-admm's clients. */
static void test_owlqn_scipy_rules_below_zero(void **state)
{
	double x[2] = { -1.2, 1.0 };
	fb_owlqn_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.scipy_stop = 1;
	assert_int_equal(fb_owlqn(2, x, rosenbrock_below, NULL, &opt, &rep, &err), FB_OK);
	if (!(fabs(x[0] - 1.0) < 1e-4 && fabs(x[1] - 1.0) < 1e-4))
		fail_msg("minimum at (%.10g, %.10g)", x[0], x[1]);
	x[0] = -1.2;
	x[1] = 1.0;
	opt.scipy_stop = 0;
	assert_int_equal(fb_owlqn(2, x, rosenbrock_below, NULL, &opt, &rep, &err), FB_OK);
	assert_true(fabs(x[0] - 1.0) > 1e-2);
}

/* OWL-QN on a separable quadratic plus l1 over part of the variables: the minimiser is the
 * target soft-thresholded by l1 / (2 c_i) where penalised, the target elsewhere. */
static void test_owlqn_soft_threshold(void **state)
{
	double ct[10] = { 1.0, 3.0, 0.5, 2.0, 1.5, -2.0, 0.5, 3.0, -0.1, 4.0 };
	double x[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 }, want[5], f = 0.0;
	fb_owlqn_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };
	size_t i;

	opt.l1 = 0.8;
	opt.l1_begin = 1;
	opt.l1_end = 4;
	opt.ftol_rel = 1e-15;
	opt.gtol = 1e-12;
	for (i = 0; i < 5; i++) {
		double t = ct[5 + i], shrink = (i >= 1 && i < 4) ? 0.8 / (2.0 * ct[i]) : 0.0;

		want[i] = fabs(t) > shrink ? t - copysign(shrink, t) : 0.0;
		f += ct[i] * (want[i] - t) * (want[i] - t) + ((i >= 1 && i < 4) ?
		     0.8 * fabs(want[i]) : 0.0);
	}
	assert_true(want[3] == 0.0 && fabs(want[1] - (0.5 - 0.8 / 6.0)) < 1e-15);
	assert_int_equal(fb_owlqn(5, x, quadratic, ct, &opt, &rep, &err), FB_OK);
	for (i = 0; i < 5; i++)
		if (!(fabs(x[i] - want[i]) <= 1e-7))
			fail_msg("x[%zu] = %.12g, want %.12g (code %d)", i, x[i], want[i],
			         rep.code);
	assert_rel(rep.f, f, 1e-12);
}

/* scipy's stopping rules in OWL-QN: on the soft-thresholding problem the run ends on the
 * pseudo-gradient (liblbfgs's code 0) with no entry of it above gtol; on the same problem
 * scaled by 1e-12 the relative reduction, floored at 1, ends it after the first iteration
 * (code 1), where liblbfgs's own rule, relative to f alone, goes on. */
static void test_owlqn_scipy_rules(void **state)
{
	double ct[10] = { 1.0, 3.0, 0.5, 2.0, 1.5, -2.0, 0.5, 3.0, -0.1, 4.0 };
	double x[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 }, g[5], big = 0.0;
	fb_owlqn_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };
	size_t i, evals;

	opt.l1 = 0.8;
	opt.scipy_stop = 1;
	opt.ftol_rel = 1e-300;
	opt.gtol = 1e-6;
	assert_int_equal(fb_owlqn(5, x, quadratic, ct, &opt, &rep, &err), FB_OK);
	assert_int_equal(rep.code, 0);
	quadratic(x, g, 5, ct);
	for (i = 0; i < 5; i++) {
		double pg = (x[i] != 0.0) ? g[i] + copysign(0.8, x[i])
		                          : fmax(0.0, fabs(g[i]) - 0.8);

		big = fmax(big, fabs(pg));
	}
	if (!(big <= 1e-6))
		fail_msg("largest pseudo-gradient entry %g", big);
	for (i = 0; i < 5; i++) {
		ct[i] *= 1e-12;
		x[i] = 0.0;
	}
	opt.l1 = 0.0;
	opt.ftol_rel = 0.0; /* the default, scipy's 2.2e-9 */
	opt.gtol = 1e-300;
	assert_int_equal(fb_owlqn(5, x, quadratic, ct, &opt, &rep, &err), FB_OK);
	assert_int_equal(rep.code, 1);
	evals = rep.evals;
	assert_true(evals <= 4);
	for (i = 0; i < 5; i++)
		x[i] = 0.0;
	opt.scipy_stop = 0;
	assert_int_equal(fb_owlqn(5, x, quadratic, ct, &opt, &rep, &err), FB_OK);
	if (!(rep.evals > evals))
		fail_msg("liblbfgs's rule: %zu evaluations, scipy's %zu", rep.evals, evals);
}

/* OWL-QN without an l1 term is L-BFGS: Rosenbrock's minimum; an evaluation limit stops
 * it with the best point; bad arguments and objectives are refused. */
static void test_owlqn_plain_and_errors(void **state)
{
	double x[2] = { -1.2, 1.0 }, f0 = rosenbrock(x, NULL, 2, NULL);
	fb_owlqn_options opt = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { "" };

	opt.ftol_rel = 1e-15;
	opt.gtol = 1e-10;
	assert_int_equal(fb_owlqn(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	if (!(fabs(x[0] - 1.0) < 1e-5 && fabs(x[1] - 1.0) < 1e-5))
		fail_msg("minimum at (%.10g, %.10g), code %d", x[0], x[1], rep.code);
	x[0] = -1.2;
	x[1] = 1.0;
	opt.max_eval = 4;
	assert_int_equal(fb_owlqn(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_OK);
	assert_true(rep.evals >= 4 && rep.evals <= 24);
	assert_true(rep.f < f0);
	assert_rel(rosenbrock(x, NULL, 2, NULL), rep.f, 1e-15);
	opt.l1 = -1.0;
	assert_int_equal(fb_owlqn(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "l1 must be"));
	opt.l1 = 1.0;
	opt.l1_begin = 2;
	assert_int_equal(fb_owlqn(2, x, rosenbrock, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "l1_begin"));
	opt.l1_begin = 0;
	assert_int_equal(fb_owlqn(2, x, nan_objective, NULL, &opt, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "no finite objective value"));
}

/* Run the optimisation tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h_dag),
		cmocka_unit_test(test_h_two_cycle),
		cmocka_unit_test(test_h_gradient_fd),
		cmocka_unit_test(test_expm_vs_references),
		cmocka_unit_test(test_expm_near_nilpotent),
		cmocka_unit_test(test_h_errors),
		cmocka_unit_test(test_lbfgs_bounded_quadratic),
		cmocka_unit_test(test_lbfgs_rosenbrock),
		cmocka_unit_test(test_lbfgs_max_eval),
		cmocka_unit_test(test_lbfgs_errors),
		cmocka_unit_test(test_lbfgsb_minima),
		cmocka_unit_test(test_lbfgsb_limit_and_errors),
		cmocka_unit_test(test_owlqn_scipy_rules_below_zero),
		cmocka_unit_test(test_owlqn_soft_threshold),
		cmocka_unit_test(test_owlqn_plain_and_errors),
		cmocka_unit_test(test_owlqn_scipy_rules),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
