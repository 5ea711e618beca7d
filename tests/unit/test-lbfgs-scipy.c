/* fb_lbfgs_scipy against liblbfgs (through fb_owlqn with l1 = 0 and scipy's rules), point by
 * point: every point either evaluates is recorded.  With sequential sums the first 20
 * points must be liblbfgs's to the last bit, the later ones within 1e-9, with the same
 * number of points and the same code.  With the 16-lane sums the inner products change only
 * their order of summation, each within about n eps of the sum of its terms' sizes, so the
 * first points agree far below the tolerance here and the runs end at the same minimiser
 * within scipy's ftol. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fedbn/optim.h"

/* The points a run evaluated, one after another. */
typedef struct trace {
	size_t n, count, cap;  /* variables, points kept, room */
	double *pts;           /* cap x n */
	int problem;           /* which objective */
} trace;

/* Extended Rosenbrock over pairs. */
static double rosenbrock(const double *x, double *g, size_t n)
{
	double f = 0.0;

	for (size_t i = 0; i + 1 < n; i += 2) {
		double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];

		f += 100.0 * a * a + b * b;
		if (g != NULL) {
			g[i] = -400.0 * a * x[i] - 2.0 * b;
			g[i + 1] = 200.0 * a;
		}
	}
	return f;
}

/* An ill-conditioned quadratic plus a cosine ripple (coefficients 1 to about 1,000). */
static double ripple(const double *x, double *g, size_t n)
{
	double f = 0.0;

	for (size_t k = 0; k < n; k++) {
		double a = 1.0 + (double)((k % 97) * (k % 11)), c = 1.0 + 0.01 * (double)(k % 7);

		f += 0.5 * a * (x[k] - c) * (x[k] - c) + 0.1 * cos(x[k]);
		if (g != NULL)
			g[k] = a * (x[k] - c) - 0.1 * sin(x[k]);
	}
	return f;
}

/* Logistic loss of a fixed design (rows of sines) with a small ridge: smooth, coupled. */
static double logistic(const double *x, double *g, size_t n)
{
	double f = 0.0;

	if (g != NULL)
		memset(g, 0, n * sizeof *g);
	for (size_t r = 0; r < 60; r++) {
		double z = 0.0, p;
		double lab = (r % 3 == 0) ? 1.0 : -1.0;

		for (size_t k = 0; k < n; k++)
			z += sin((double)(r * n + k) * 0.37) * x[k];
		f += log1p(exp(-lab * z));
		p = -lab / (1.0 + exp(lab * z));
		for (size_t k = 0; g != NULL && k < n; k++)
			g[k] += p * sin((double)(r * n + k) * 0.37);
	}
	for (size_t k = 0; k < n; k++) {
		f += 0.005 * x[k] * x[k];
		if (g != NULL)
			g[k] += 0.01 * x[k];
	}
	return f;
}

/* The objective of the trace's problem; the point recorded. */
static double traced(const double *x, double *g, size_t n, void *ctx)
{
	trace *t = ctx;

	if (t->count == t->cap) {
		t->cap = t->cap * 2 + 64;
		t->pts = realloc(t->pts, t->cap * n * sizeof *x);
		assert_non_null(t->pts);
	}
	memcpy(t->pts + t->count++ * n, x, n * sizeof *x);
	if (t->problem == 0)
		return rosenbrock(x, g, n);
	return t->problem == 1 ? ripple(x, g, n) : logistic(x, g, n);
}

/* Run problem p over n variables from its start with liblbfgs (sums < 0) or fb_lbfgs_scipy;
 * the points in *t, the end in x, the report in *rep. */
static void run(int p, size_t n, int sums, trace *t, double *x, fb_lbfgs_report *rep)
{
	fb_owlqn_options oo = { 0 };

	oo.memory = 10;
	oo.max_eval = 15000;
	oo.ftol_rel = 2.220446049250313e-09;
	oo.gtol = 1e-5;
	oo.scipy_stop = 1;
	*t = (trace){ n, 0, 0, NULL, p };
	for (size_t k = 0; k < n; k++)
		x[k] = p == 0 ? (k % 2 == 0 ? -1.2 : 1.0) : 0.3 * sin((double)k + 1.0);
	if (sums < 0)
		assert_int_equal(fb_owlqn(n, x, traced, t, &oo, rep, NULL), FB_OK);
	else
		assert_int_equal(fb_lbfgs_scipy(n, x, traced, t, &oo, sums, rep, NULL), FB_OK);
}

/* The problems: which, and over how many variables (not all multiples of 4). */
static const struct {
	int p;
	size_t n;
} problems[] = { { 0, 2 }, { 0, 100 }, { 0, 1002 }, { 1, 7 }, { 1, 4420 }, { 2, 301 } };

/* The largest |a - b| over the largest |b| (at least 1) of n entries. */
static double rel_gap(const double *a, const double *b, size_t n)
{
	double gap = 0.0, big = 1.0;

	for (size_t k = 0; k < n; k++) {
		gap = fmax(gap, fabs(a[k] - b[k]));
		big = fmax(big, fabs(b[k]));
	}
	return gap / big;
}

/* Run every problem with liblbfgs and with sums; fail unless the first `same` points are
 * liblbfgs's within first_tol (0: bit for bit), the later common ones within later_tol, the
 * objective at the end within f_tol, x within x_tol, and (counts set) the points and codes
 * equal in number. */
static void compare(int sums, size_t same, double first_tol, double later_tol, double f_tol,
                    double x_tol, int counts)
{
	for (size_t q = 0; q < sizeof problems / sizeof problems[0]; q++) {
		size_t n = problems[q].n, common;
		double *xa = malloc(n * sizeof *xa), *xb = malloc(n * sizeof *xb);
		double first = 0.0, later = 0.0;
		fb_lbfgs_report ra, rb;
		trace ta, tb;

		run(problems[q].p, n, -1, &ta, xa, &ra);
		run(problems[q].p, n, sums, &tb, xb, &rb);
		common = ta.count < tb.count ? ta.count : tb.count;
		assert_true(common > 10);
		for (size_t e = 0; e < common; e++) {
			double gap = rel_gap(tb.pts + e * n, ta.pts + e * n, n);

			*(e < same ? &first : &later) = fmax(e < same ? first : later, gap);
		}
		if (!(first <= first_tol) || !(later <= later_tol) ||
		    !(fabs(rb.f - ra.f) <= f_tol * fmax(1.0, fabs(ra.f))) ||
		    !(rel_gap(xb, xa, n) <= x_tol) ||
		    (counts && (ta.count != tb.count || ra.code != rb.code)))
			fail_msg("problem %zu: points %.3g then %.3g apart, %zu (code %d) against "
			         "liblbfgs's %zu (code %d), f %.17g against %.17g", q, first, later,
			         tb.count, rb.code, ta.count, ra.code, rb.f, ra.f);
		free(ta.pts);
		free(tb.pts);
		free(xa);
		free(xb);
	}
}

/* Sequential sums: the first 20 points are liblbfgs's bit for bit (every point, on four of
 * the six problems), as are the number of points and the code; the later ones within 1e-9.
 * Debian builds liblbfgs with -ffast-math, which lets its compiler re-associate a few
 * scalar expressions of the line search, so a last bit may differ later in a run (point
 * 25 of Rosenbrock over 100 variables, 70 of the ripple over 4,420: 3e-14 and 1e-10 apart
 * at most). */
static void test_sequential_is_liblbfgs(void **state)
{
	(void)state;
	compare(FB_SUMS_SEQUENTIAL, 20, 0.0, 1e-9, 1e-12, 1e-9, 1);
}

/* 16-lane sums: every inner product changes its order of summation, by at most n eps
 * times the sum of its terms' sizes, so the first 20 points agree to 1e-10 (4e-12 at most
 * seen); the run may stop an iteration apart (scipy's ftol 2.2e-9 on the relative
 * decrease), so the ends agree to 1e-8 in f and 1e-4 in x (2e-9 and 1.6e-5 seen, on the
 * ripple over 4,420 variables). */
static void test_lanes_near_liblbfgs(void **state)
{
	(void)state;
	compare(FB_SUMS_LANES, 20, 1e-10, INFINITY, 1e-8, 1e-4, 0);
}

/* FNV-1a over the bits of the points a trace holds, and its count. */
static uint64_t trace_hash(const trace *t)
{
	const unsigned char *b = (const unsigned char *)t->pts;
	uint64_t h = UINT64_C(14695981039346656037) ^ t->count;

	for (size_t k = 0; k < t->count * t->n * sizeof *t->pts; k++)
		h = (h ^ b[k]) * UINT64_C(1099511628211);
	return h;
}

/* The 16-lane runs of the Rosenbrock problems keep every bit of every point as the passes
 * were before they were fused (one pass an operation: the copy of the search's start, the
 * step, each inner product, d = -g, the scaling): the hashes below were taken from that
 * form (fails if a fused pass formed a value by other operations or summed a lane in another
 * order).  Rosenbrock's points need no library function, so they are the same bits on any
 * processor. */
static void test_lanes_bits_kept(void **state)
{
	static const size_t sizes[3] = { 2, 100, 1002 };
	static const uint64_t want[3] = { UINT64_C(0xcda4ee7a38f93a1b), UINT64_C(0xad822b9e7b676c15),
	                                  UINT64_C(0xd01ffae9e9dcd5f2) };

	(void)state;
	for (size_t q = 0; q < 3; q++) {
		size_t n = sizes[q];
		double *x = malloc(n * sizeof *x);
		fb_lbfgs_report rep;
		trace t;
		uint64_t h;

		run(0, n, FB_SUMS_LANES, &t, x, &rep);
		h = trace_hash(&t);
		if (h != want[q])
			fail_msg("Rosenbrock over %zu: %zu points hashed to 0x%016llx, not 0x%016llx",
			         n, t.count, (unsigned long long)h, (unsigned long long)want[q]);
		free(t.pts);
		free(x);
	}
}

/* Bad arguments are refused in a sentence. */
static void test_refusals(void **state)
{
	fb_owlqn_options oo = { 0 };
	fb_error err = { "" };
	double x[2] = { 1.0, NAN };
	trace t = { 2, 0, 0, NULL, 0 };

	(void)state;
	assert_int_equal(fb_lbfgs_scipy(2, x, traced, &t, &oo, FB_SUMS_LANES, NULL, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "x[1]"));
	x[1] = 1.0;
	oo.l1 = 0.5;
	assert_int_equal(fb_lbfgs_scipy(2, x, traced, &t, &oo, FB_SUMS_LANES, NULL, &err), FB_ERR);
	assert_int_equal(t.count, 0);
	free(t.pts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequential_is_liblbfgs),
		cmocka_unit_test(test_lanes_near_liblbfgs),
		cmocka_unit_test(test_lanes_bits_kept),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
