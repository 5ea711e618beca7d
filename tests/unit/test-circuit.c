/* Unit tests of probabilistic circuits: validity sentences, leaves against hand and numpy
 * computations, normalisation by enumeration and quadrature, marginals, conditionals, MPE
 * against brute force, sampling frequencies, and the text format. */
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
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>

#include "fedbn/circuit.h"

/* Fail unless got equals want within tol (relative above 1, absolute below). */
static void assert_near(double got, double want, double tol)
{
	double scale = fabs(want) > 1.0 ? fabs(want) : 1.0;

	if (!(fabs(got - want) <= tol * scale))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Fail unless err holds exactly the sentence want. */
static void assert_msg(const fb_error *err, const char *want)
{
	if (strcmp(err->msg, want) != 0)
		fail_msg("got error '%s', want '%s'", err->msg, want);
}

/* Append a categorical leaf with the given probabilities; returns its id. */
static size_t add_cat(fb_circuit *c, size_t var, const double *p, size_t n)
{
	fb_leaf lf;
	size_t id;

	assert_int_equal(fb_leaf_categorical(&lf, var, p, n, NULL), FB_OK);
	assert_int_equal(fb_circuit_add_leaf(c, &lf, 0, &id, NULL), FB_OK);
	return id;
}

/* Append a Gaussian leaf; returns its id. */
static size_t add_gauss(fb_circuit *c, size_t var, double mean, double sd)
{
	fb_leaf lf;
	size_t id;

	assert_int_equal(fb_leaf_gaussian(&lf, var, mean, sd, NULL), FB_OK);
	assert_int_equal(fb_circuit_add_leaf(c, &lf, 1, &id, NULL), FB_OK);
	return id;
}

/* Append a product of n nodes; returns its id. */
static size_t add_prod(fb_circuit *c, const size_t *ch, size_t n)
{
	size_t id;

	assert_int_equal(fb_circuit_add_product(c, ch, n, FB_CIRCUIT_SERVER, &id, NULL), FB_OK);
	return id;
}

/* Append a sum of n nodes with weights w; returns its id. */
static size_t add_sum(fb_circuit *c, const size_t *ch, const double *w, size_t n)
{
	size_t id;

	assert_int_equal(fb_circuit_add_sum(c, ch, w, n, FB_CIRCUIT_SERVER, &id, NULL), FB_OK);
	return id;
}

/* Cardinalities of the three variables of the discrete test circuits. */
static const size_t card[3] = { 2, 3, 2 };

/* A non-selective discrete circuit over X0 (2 values), X1 (3), X2 (2): a mixture of a
 * product holding an inner mixture over (X1, X2) and a fully factorised product, where one
 * leaf is shared by two parents. */
static fb_circuit *discrete_circuit(void)
{
	fb_circuit *c = fb_circuit_alloc(3);
	size_t a0, a1, a2, b1, b2, c0, c1, p1, p2, s1, q1, q2, root;

	assert_non_null(c);
	a0 = add_cat(c, 0, (double[]){ 0.3, 0.7 }, 2);
	a1 = add_cat(c, 1, (double[]){ 0.2, 0.5, 0.3 }, 3);
	a2 = add_cat(c, 2, (double[]){ 0.9, 0.1 }, 2);
	b1 = add_cat(c, 1, (double[]){ 0.6, 0.1, 0.3 }, 3);
	b2 = add_cat(c, 2, (double[]){ 0.25, 0.75 }, 2);
	c0 = add_cat(c, 0, (double[]){ 0.8, 0.2 }, 2);
	c1 = add_cat(c, 1, (double[]){ 0.05, 0.15, 0.8 }, 3);
	p1 = add_prod(c, (size_t[]){ a1, a2 }, 2);
	p2 = add_prod(c, (size_t[]){ b1, b2 }, 2);
	s1 = add_sum(c, (size_t[]){ p1, p2 }, (double[]){ 0.35, 0.65 }, 2);
	q1 = add_prod(c, (size_t[]){ a0, s1 }, 2);
	q2 = add_prod(c, (size_t[]){ c0, c1, b2 }, 3);
	root = add_sum(c, (size_t[]){ q1, q2 }, (double[]){ 0.45, 0.55 }, 2);
	assert_int_equal(root, fb_circuit_root(c));
	assert_int_equal(fb_circuit_check(c, NULL), FB_OK);
	return c;
}

/* Decode state s (0 .. 11) into a row of the discrete circuits. */
static void state_row(size_t s, double *row)
{
	for (size_t j = 3; j-- > 0;) {
		row[j] = (double)(s % card[j]);
		s /= card[j];
	}
}

/* log p of one row. */
static double logp1(const fb_circuit *c, const double *row)
{
	double out;

	assert_int_equal(fb_circuit_logpdf(c, row, 1, &out, NULL), FB_OK);
	return out;
}

/* The discrete circuit sums to 1 over its 12 joint states, and one batched call over all
 * states agrees with row-by-row calls. */
static void test_discrete_sums_to_one(void **state)
{
	fb_circuit *c = discrete_circuit();
	double rows[12 * 3], lp[12], total = 0;

	(void)state;
	for (size_t s = 0; s < 12; s++)
		state_row(s, rows + 3 * s);
	assert_int_equal(fb_circuit_logpdf(c, rows, 12, lp, NULL), FB_OK);
	for (size_t s = 0; s < 12; s++) {
		assert_true(lp[s] == logp1(c, rows + 3 * s));
		total += exp(lp[s]);
	}
	assert_near(total, 1.0, 1e-14);
	/* a hand value: p(0,2,1) = .45 * .3 * (.35 * .3 * .1 + .65 * .3 * .75)
	 *                         + .55 * .8 * .8 * .75 */
	assert_near(exp(logp1(c, (double[]){ 0, 2, 1 })),
	            0.45 * 0.3 * (0.35 * 0.3 * 0.1 + 0.65 * 0.3 * 0.75) + 0.55 * 0.8 * 0.8 * 0.75,
	            1e-15);
	fb_circuit_free(c);
}

/* Marginals: a NAN variable sums out exactly (against enumeration), all NANs give log 1,
 * and deep products of many leaves stay finite in log space. */
static void test_marginals(void **state)
{
	fb_circuit *c = discrete_circuit();
	double all_nan[3] = { NAN, NAN, NAN };

	(void)state;
	for (size_t x0 = 0; x0 < 2; x0++)
		for (size_t x2 = 0; x2 < 2; x2++) {
			double sum = 0;

			for (size_t x1 = 0; x1 < 3; x1++)
				sum += exp(logp1(c, (double[]){ (double)x0, (double)x1, (double)x2 }));
			assert_near(logp1(c, (double[]){ (double)x0, NAN, (double)x2 }), log(sum), 1e-14);
		}
	assert_near(logp1(c, all_nan), 0.0, 1e-15);
	fb_circuit_free(c);
}

/* Append a mixture of two Gaussian products over (X0, X1); returns the sum's id. */
static size_t mix_a(fb_circuit *t)
{
	size_t g0 = add_gauss(t, 0, -1, 0.5), g1 = add_gauss(t, 1, 2, 1.5);
	size_t h0 = add_gauss(t, 0, 1, 2), h1 = add_gauss(t, 1, 0, 0.7);
	size_t pa = add_prod(t, (size_t[]){ g0, g1 }, 2), pb = add_prod(t, (size_t[]){ h0, h1 }, 2);

	return add_sum(t, (size_t[]){ pa, pb }, (double[]){ 0.25, 0.75 }, 2);
}

/* Append a mixture of two mixed products over (X2 discrete, X3); returns the sum's id. */
static size_t mix_b(fb_circuit *t)
{
	size_t l2 = add_cat(t, 2, (double[]){ 0.4, 0.6 }, 2), l3 = add_gauss(t, 3, 0.3, 1.1);
	size_t m2 = add_cat(t, 2, (double[]){ 0.9, 0.1 }, 2), m3 = add_gauss(t, 3, -2, 0.4);
	size_t pc = add_prod(t, (size_t[]){ l2, l3 }, 2), pd = add_prod(t, (size_t[]){ m2, m3 }, 2);

	return add_sum(t, (size_t[]){ pc, pd }, (double[]){ 0.6, 0.4 }, 2);
}

/* The marginal of a product of two mixtures over disjoint scopes is the product of the
 * two mixtures' marginals, each evaluated as a circuit of its own (and the first by hand). */
static void test_product_marginal(void **state)
{
	fb_circuit *c = fb_circuit_alloc(4), *m0 = fb_circuit_alloc(4), *m1 = fb_circuit_alloc(4);
	double row[4] = { 0.4, NAN, 1, -1.7 }, ra[4] = { 0.4, NAN, NAN, NAN };
	double rb[4] = { NAN, NAN, 1, -1.7 };
	size_t a, b;

	(void)state;
	a = mix_a(c);
	b = mix_b(c);
	add_prod(c, (size_t[]){ a, b }, 2);
	mix_a(m0);
	mix_b(m1);
	assert_int_equal(fb_circuit_check(c, NULL), FB_OK);
	assert_near(logp1(c, row), logp1(m0, ra) + logp1(m1, rb), 1e-14);
	assert_near(exp(logp1(m0, ra)),
	            0.25 * gsl_ran_gaussian_pdf(1.4, 0.5) + 0.75 * gsl_ran_gaussian_pdf(-0.6, 2),
	            1e-14);
	fb_circuit_free(c);
	fb_circuit_free(m0);
	fb_circuit_free(m1);
}

/* A mixture of two products of 300 Gaussian leaves far from the data: each product's
 * density underflows a double, its log does not, and the sum node's max-shifted
 * logsumexp matches the value worked out from the leaves' logs. */
static void test_deep_underflow(void **state)
{
	enum { D = 300 };
	fb_circuit *c = fb_circuit_alloc(D);
	size_t a[D], b[D], p, q;
	double row[D], la = 0, lb = 0, got, m;

	(void)state;
	for (size_t j = 0; j < D; j++) {
		a[j] = add_gauss(c, j, 0, 1);
		b[j] = add_gauss(c, j, 1, 2);
		row[j] = 4 + 0.01 * (double)j;
		la += log(gsl_ran_gaussian_pdf(row[j], 1));
		lb += log(gsl_ran_gaussian_pdf(row[j] - 1, 2));
	}
	p = add_prod(c, a, D);
	q = add_prod(c, b, D);
	add_sum(c, (size_t[]){ p, q }, (double[]){ 0.3, 0.7 }, 2);
	assert_true(exp(la) == 0 && exp(lb) == 0);
	m = fmax(log(0.3) + la, log(0.7) + lb);
	got = logp1(c, row);
	assert_near(got, m + log(exp(log(0.3) + la - m) + exp(log(0.7) + lb - m)), 1e-12);
	assert_true(got > -1e4);
	fb_circuit_free(c);
}

/* Conditionals: log p(X0 | X1) = log p(X0, X1) - log p(X1) by enumeration, with X2 left
 * out; and p(X0 | X1) sums to 1 over X0. */
static void test_conditional(void **state)
{
	fb_circuit *c = discrete_circuit();
	const unsigned char query[3] = { 1, 0, 0 };

	(void)state;
	for (size_t x1 = 0; x1 < 3; x1++) {
		double joint[2] = { 0, 0 }, total = 0;

		for (size_t s = 0; s < 12; s++) {
			double row[3];

			state_row(s, row);
			if (row[1] == (double)x1)
				joint[(size_t)row[0]] += exp(logp1(c, row));
		}
		for (size_t x0 = 0; x0 < 2; x0++) {
			double row[3] = { (double)x0, (double)x1, NAN }, got;

			assert_int_equal(fb_circuit_log_conditional(c, row, 1, query, &got, NULL), FB_OK);
			assert_near(got, log(joint[x0] / (joint[0] + joint[1])), 1e-14);
			total += exp(got);
		}
		assert_near(total, 1.0, 1e-14);
	}
	fb_circuit_free(c);
}

/* The max-product value of a complete row (a row with no NAN completes to itself). */
static double maxprod1(const fb_circuit *c, const double *row)
{
	double x[3], v;

	memcpy(x, row, sizeof x);
	assert_int_equal(fb_circuit_mpe(c, x, 1, &v, NULL), FB_OK);
	assert_memory_equal(x, row, sizeof x);
	return v;
}

/* MPE by max-product equals brute force over every completion of every evidence pattern:
 * the value reported is the largest max-product value of any completion, and the
 * completion written reaches it. */
static void test_mpe_brute_force(void **state)
{
	fb_circuit *c = discrete_circuit();

	(void)state;
	for (size_t mask = 0; mask < 8; mask++)
		for (size_t s = 0; s < 12; s++) {
			double ev[3], x[3], best = -INFINITY, got;

			state_row(s, ev);
			for (size_t j = 0; j < 3; j++)
				if (mask & (1u << j))
					ev[j] = NAN;
			for (size_t t = 0; t < 12; t++) {
				double row[3];
				int agrees = 1;

				state_row(t, row);
				for (size_t j = 0; j < 3; j++)
					agrees &= isnan(ev[j]) || ev[j] == row[j];
				if (agrees && maxprod1(c, row) > best)
					best = maxprod1(c, row);
			}
			memcpy(x, ev, sizeof x);
			assert_int_equal(fb_circuit_mpe(c, x, 1, &got, NULL), FB_OK);
			assert_near(got, best, 1e-14);
			for (size_t j = 0; j < 3; j++)
				assert_true(isnan(ev[j]) ? !isnan(x[j]) : x[j] == ev[j]);
			assert_near(maxprod1(c, x), best, 1e-14);
		}
	fb_circuit_free(c);
}

/* On a selective circuit (X0 picks the mixture component) max-product is exact: MPE equals
 * the brute-force argmax of p itself. */
static void test_mpe_selective(void **state)
{
	fb_circuit *c = fb_circuit_alloc(3);
	size_t i0 = add_cat(c, 0, (double[]){ 1, 0 }, 2), j0 = add_cat(c, 0, (double[]){ 0, 1 }, 2);
	size_t a1 = add_cat(c, 1, (double[]){ 0.2, 0.5, 0.3 }, 3);
	size_t b1 = add_cat(c, 1, (double[]){ 0.45, 0.1, 0.45 }, 3);
	size_t a2 = add_cat(c, 2, (double[]){ 0.6, 0.4 }, 2);
	size_t b2 = add_cat(c, 2, (double[]){ 0.3, 0.7 }, 2);
	size_t p = add_prod(c, (size_t[]){ i0, a1, a2 }, 3), q = add_prod(c, (size_t[]){ j0, b1, b2 }, 3);

	(void)state;
	add_sum(c, (size_t[]){ p, q }, (double[]){ 0.4, 0.6 }, 2);
	for (size_t x2 = 0; x2 < 2; x2++) {
		double x[3] = { NAN, NAN, (double)x2 }, got, best = -INFINITY, arg[3] = { 0 };

		for (size_t s = 0; s < 12; s++) {
			double row[3];

			state_row(s, row);
			if (row[2] == (double)x2 && logp1(c, row) > best) {
				best = logp1(c, row);
				memcpy(arg, row, sizeof arg);
			}
		}
		assert_int_equal(fb_circuit_mpe(c, x, 1, &got, NULL), FB_OK);
		assert_memory_equal(x, arg, sizeof x);
		assert_near(got, best, 1e-14);
	}
	fb_circuit_free(c);
}

/* Trapezoid integral of exp(log p) over [lo, hi]^dim (dim 1 or 2) of circuit c. */
static double integrate(const fb_circuit *c, size_t dim, double lo, double hi, size_t m)
{
	double h = (hi - lo) / (double)m, total = 0, *rows, *lp;
	size_t n = dim == 1 ? m + 1 : (m + 1) * (m + 1);

	rows = malloc(n * dim * sizeof *rows);
	lp = malloc(n * sizeof *lp);
	assert_non_null(rows);
	assert_non_null(lp);
	for (size_t i = 0; i < n; i++) {
		rows[i * dim] = lo + h * (double)(i % (m + 1));
		if (dim == 2)
			rows[i * dim + 1] = lo + h * (double)(i / (m + 1));
	}
	assert_int_equal(fb_circuit_logpdf(c, rows, n, lp, NULL), FB_OK);
	for (size_t i = 0; i < n; i++) {
		double w = 1;

		for (size_t k = 0; k < dim; k++) {
			size_t idx = k == 0 ? i % (m + 1) : i / (m + 1);

			w *= (idx == 0 || idx == m) ? 0.5 : 1.0;
		}
		total += w * exp(lp[i]);
	}
	free(rows);
	free(lp);
	return total * (dim == 1 ? h : h * h);
}

/* Gaussian circuits integrate to 1: a three-component mixture in one dimension and a
 * mixture of products with a nested mixture in two. */
static void test_gaussian_integrates(void **state)
{
	fb_circuit *c1 = fb_circuit_alloc(1), *c2 = fb_circuit_alloc(2);
	size_t g[3], a, b, s0, p, q;

	(void)state;
	g[0] = add_gauss(c1, 0, -2, 0.6);
	g[1] = add_gauss(c1, 0, 0.5, 1.3);
	g[2] = add_gauss(c1, 0, 3, 0.4);
	add_sum(c1, g, (double[]){ 0.2, 0.5, 0.3 }, 3);
	assert_near(integrate(c1, 1, -15, 15, 6000), 1.0, 1e-10);

	a = add_gauss(c2, 0, -1, 0.7);
	b = add_gauss(c2, 0, 2, 1.2);
	s0 = add_sum(c2, (size_t[]){ a, b }, (double[]){ 0.35, 0.65 }, 2);
	p = add_prod(c2, (size_t[]){ s0, add_gauss(c2, 1, 1, 0.5) }, 2);
	q = add_prod(c2, (size_t[]){ add_gauss(c2, 0, 0, 2), add_gauss(c2, 1, -1.5, 0.9) }, 2);
	add_sum(c2, (size_t[]){ p, q }, (double[]){ 0.7, 0.3 }, 2);
	assert_int_equal(fb_circuit_check(c2, NULL), FB_OK);
	assert_near(integrate(c2, 2, -14, 14, 700), 1.0, 1e-8);
	fb_circuit_free(c1);
	fb_circuit_free(c2);
}

/* A column slice over all n values of v. */
static fb_column_slice slice_of(const double *v, size_t n)
{
	return (fb_column_slice){ .x = v, .stride = 1, .rows = NULL, .n = n };
}

/* Twenty-five made-up values; numpy's 'auto' gives 6 bins (Sturges) with counts
 * 2 3 7 6 4 3 on edges -2.2 .. 3.1. */
static const double hist_data[25] = {
	0.31, -1.2, 2.5, 0.8, 0.05, 1.7, -0.4, 0.9, 3.1, -2.2, 0.6, 1.1, 0.0,
	-0.7, 1.4, 2.0, -1.5, 0.2, 0.45, 1.9, -0.1, 0.75, 2.8, -0.9, 1.25,
};

/* Continuous histograms: bins and densities as numpy's 'auto' edges and counts give them,
 * total mass 1, the training maximum in the last bin, the floor outside. */
static void test_histogram_continuous(void **state)
{
	fb_column_slice col = slice_of(hist_data, 25);
	const double counts[6] = { 2, 3, 7, 6, 4, 3 }, w = 5.3 / 6;
	fb_leaf lf;
	double mass = 0;

	(void)state;
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 0, &col, NULL), FB_OK);
	assert_int_equal(lf.nvalues, 6);
	assert_true(lf.breaks[0] == -2.2 && lf.breaks[6] == 3.1);
	for (size_t b = 0; b < 6; b++) {
		double mid = 0.5 * (lf.breaks[b] + lf.breaks[b + 1]);

		assert_near(lf.breaks[b + 1] - lf.breaks[b], w, 1e-14);
		assert_near(exp(fb_leaf_logpdf(&lf, mid)), (counts[b] + 1) / ((25 + 6) * w), 1e-14);
		mass += exp(fb_leaf_logpdf(&lf, mid)) * (lf.breaks[b + 1] - lf.breaks[b]);
	}
	assert_near(mass, 1.0, 1e-14);
	assert_true(fb_leaf_logpdf(&lf, 3.1) == fb_leaf_logpdf(&lf, 3.0));
	assert_near(exp(fb_leaf_logpdf(&lf, 3.1)), 4.0 / (31 * w), 1e-14);
	assert_true(fb_leaf_logpdf(&lf, -2.2) == lf.logp[0]);
	assert_true(fb_leaf_logpdf(&lf, 3.1 + 1e-9) == log(FB_LEAF_HIST_FLOOR));
	assert_true(fb_leaf_logpdf(&lf, -2.3) == log(FB_LEAF_HIST_FLOOR));
	fb_leaf_release(&lf);
}

/* Freedman-Diaconis wins on heavy tails: x^3 over 1001 grid points gives numpy 41 bins with
 * 9 values in the last; a constant column gets one unit bin. */
static void test_histogram_bins(void **state)
{
	double v[1001], k[7] = { 2, 2, 2, 2, 2, 2, 2 };
	fb_column_slice col = slice_of(v, 1001), cst = slice_of(k, 7);
	fb_leaf lf;

	(void)state;
	for (size_t i = 0; i < 1001; i++)
		v[i] = pow(((double)i - 500) / 100.0, 3);
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 0, &col, NULL), FB_OK);
	assert_int_equal(lf.nvalues, 41);
	assert_near(exp(fb_leaf_logpdf(&lf, 125)),
	            10 / ((1001 + 41) * (lf.breaks[41] - lf.breaks[40])), 1e-14);
	fb_leaf_release(&lf);
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 0, &cst, NULL), FB_OK);
	assert_int_equal(lf.nvalues, 1);
	assert_true(lf.breaks[0] == 1.5 && lf.breaks[1] == 2.5 && lf.p[0] == 1.0);
	fb_leaf_release(&lf);
}

/* Discrete histograms: one bin per integer from min to max (unseen 3 included), masses
 * (c + 1) / (n + B) summing to 1, the maximum's own mass, a row slice honoured. */
static void test_histogram_discrete(void **state)
{
	const double v[8] = { 0, 1, 1, 2, 2, 2, 4, 99 };
	const size_t rows[7] = { 6, 2, 0, 3, 5, 1, 4 }; /* the maximum first, unsorted */
	fb_column_slice col = { .x = v, .stride = 1, .rows = rows, .n = 7 };
	const double want[5] = { 2.0 / 12, 3.0 / 12, 4.0 / 12, 1.0 / 12, 2.0 / 12 };
	double total = 0;
	fb_leaf lf;

	(void)state;
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 1, &col, NULL), FB_OK);
	assert_int_equal(lf.nvalues, 5);
	for (size_t x = 0; x < 5; x++) {
		assert_near(exp(fb_leaf_logpdf(&lf, (double)x)), want[x], 1e-15);
		total += exp(fb_leaf_logpdf(&lf, (double)x));
	}
	assert_near(total, 1.0, 1e-15);
	assert_true(fb_leaf_mode(&lf) == 2.0);
	/* the value after the maximum is outside: the last bin [4, 5) does not hold 5 */
	assert_true(fb_leaf_logpdf(&lf, 5.0) == log(FB_LEAF_HIST_FLOOR));
	fb_leaf_release(&lf);
	/* a constant column: all mass on its value, none on the next */
	col.rows = NULL;
	col.n = 1;
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 1, &col, NULL), FB_OK);
	assert_true(fb_leaf_logpdf(&lf, 0.0) == 0.0);
	assert_true(fb_leaf_logpdf(&lf, 1.0) == log(FB_LEAF_HIST_FLOOR));
	fb_leaf_release(&lf);
}

/* Gaussian and categorical fits: population sd, the variance floor, Laplace smoothing, a
 * strided row slice, and the sentences for a missing value or a bad code. */
static void test_fit_leaves(void **state)
{
	const double m[8] = { 1, 9, 2, 9, 3, 9, 4, 9 }, k[3] = { 5, 5, 5 };
	const double codes[6] = { 0, 2, 2, 1, 2, 0 }, bad[3] = { 0, 3, 1 }, gap[2] = { 1, NAN };
	const size_t rows[4] = { 0, 2, 4, 6 };
	fb_column_slice col = { .x = m, .stride = 2, .rows = NULL, .n = 4 };
	fb_column_slice sub = { .x = m, .stride = 1, .rows = rows, .n = 4 };
	fb_column_slice cst = slice_of(k, 3), cat = slice_of(codes, 6), wrong = slice_of(bad, 3);
	fb_column_slice miss = slice_of(gap, 2);
	fb_error err;
	fb_leaf lf;

	(void)state;
	assert_int_equal(fb_leaf_fit_gaussian(&lf, 0, &col, NULL), FB_OK);
	assert_near(lf.mean, 2.5, 1e-15);
	assert_near(lf.sd, sqrt(1.25), 1e-15);
	assert_near(fb_leaf_logpdf(&lf, 1.0), log(gsl_ran_gaussian_pdf(-1.5, sqrt(1.25))), 1e-14);
	assert_int_equal(fb_leaf_fit_gaussian(&lf, 0, &sub, NULL), FB_OK);
	assert_near(lf.mean, 2.5, 1e-15);
	assert_int_equal(fb_leaf_fit_gaussian(&lf, 0, &cst, NULL), FB_OK);
	assert_near(lf.sd, sqrt(FB_LEAF_VAR_FLOOR), 1e-15);
	assert_int_equal(fb_leaf_fit_categorical(&lf, 3, 4, &cat, NULL), FB_OK);
	assert_near(lf.p[0], 3.0 / 10, 1e-15);
	assert_near(lf.p[1], 2.0 / 10, 1e-15);
	assert_near(lf.p[2], 4.0 / 10, 1e-15);
	assert_near(lf.p[3], 1.0 / 10, 1e-15);
	assert_true(fb_leaf_logpdf(&lf, 4) == -INFINITY && fb_leaf_logpdf(&lf, 0.5) == -INFINITY);
	fb_leaf_release(&lf);
	assert_int_equal(fb_leaf_fit_categorical(&lf, 3, 3, &wrong, &err), FB_ERR);
	assert_msg(&err, "cannot fit a leaf to variable 3: row 1 holds 3, not a level code "
	                 "below 3");
	assert_int_equal(fb_leaf_fit_gaussian(&lf, 2, &miss, &err), FB_ERR);
	assert_msg(&err, "cannot fit a leaf to variable 2: row 1 holds nan, not an observed value");
}

/* Forward sampling: with a fixed seed, the frequency of each of the 12 states over 200000
 * rows lies within 4.5 binomial standard errors of the circuit's probability, and the same
 * seed gives the same rows. */
static void test_sampling(void **state)
{
	enum { N = 200000 };
	fb_circuit *c = discrete_circuit();
	double *x = malloc(N * 3 * sizeof *x), *y = malloc(N * 3 * sizeof *y), freq[12] = { 0 };
	gsl_rng *r = fb_rng_stream(42, "circuit-test"), *r2 = fb_rng_stream(42, "circuit-test");

	(void)state;
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(fb_circuit_sample(c, N, r, x, NULL), FB_OK);
	assert_int_equal(fb_circuit_sample(c, N, r2, y, NULL), FB_OK);
	assert_memory_equal(x, y, N * 3 * sizeof *x);
	for (size_t i = 0; i < N; i++)
		freq[(size_t)(x[3 * i] * 6 + x[3 * i + 1] * 2 + x[3 * i + 2])] += 1.0 / N;
	for (size_t s = 0; s < 12; s++) {
		double row[3], p;

		state_row(s, row);
		p = exp(logp1(c, row));
		if (!(fabs(freq[s] - p) <= 4.5 * sqrt(p * (1 - p) / N)))
			fail_msg("state %zu: frequency %g, probability %g", s, freq[s], p);
	}
	gsl_rng_free(r);
	gsl_rng_free(r2);
	free(x);
	free(y);
	fb_circuit_free(c);
}

/* A circuit with every leaf kind, fitted to data, on several machines. */
static fb_circuit *mixed_circuit(void)
{
	fb_circuit *c = fb_circuit_alloc(3);
	const double codes[7] = { 0, 1, 1, 2, 2, 2, 4 };
	fb_column_slice hc = slice_of(hist_data, 25), hd = slice_of(codes, 7);
	size_t h0, h1, g0, d2, k2, p, q;
	fb_leaf lf;

	assert_non_null(c);
	assert_int_equal(fb_leaf_fit_histogram(&lf, 0, 0, &hc, NULL), FB_OK);
	assert_int_equal(fb_circuit_add_leaf(c, &lf, 0, &h0, NULL), FB_OK);
	assert_int_equal(fb_leaf_fit_histogram(&lf, 2, 1, &hd, NULL), FB_OK);
	assert_int_equal(fb_circuit_add_leaf(c, &lf, 0, &d2, NULL), FB_OK);
	assert_int_equal(fb_leaf_fit_gaussian(&lf, 1, &hc, NULL), FB_OK);
	assert_int_equal(fb_circuit_add_leaf(c, &lf, 2, &h1, NULL), FB_OK);
	g0 = add_gauss(c, 0, 0.1, 0.3);
	k2 = add_cat(c, 2, (double[]){ 0.1, 0.2, 0.3, 0.15, 0.25 }, 5);
	p = add_prod(c, (size_t[]){ h0, h1, d2 }, 3);
	q = add_prod(c, (size_t[]){ g0, add_gauss(c, 1, -0.7, 2.1), k2 }, 3);
	add_sum(c, (size_t[]){ p, q }, (double[]){ 1.0 / 3, 2.0 / 3 }, 2);
	assert_int_equal(fb_circuit_check(c, NULL), FB_OK);
	return c;
}

/* Save then load: the same log-likelihoods bit for bit (observed and marginalised rows),
 * the same machines, and a second save gives the same text. */
static void test_save_load(void **state)
{
	fb_circuit *c = mixed_circuit(), *d = NULL;
	char path[] = "/tmp/test-circuit-XXXXXX", path2[64];
	double rows[5 * 3] = { 0.3, 1.0, 2, -2.2, NAN, 4, 3.1, -0.5, 3, 9.0, 0.2, 0, NAN, NAN, 1 };
	double a[5], b[5];
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa, *fb;
	fb_error err;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(path2, sizeof path2, "%s.2", path);
	assert_int_equal(fb_circuit_save(c, path, &err), FB_OK);
	assert_int_equal(fb_circuit_load(path, &d, &err), FB_OK);
	assert_int_equal(d->nnodes, c->nnodes);
	for (size_t i = 0; i < c->nnodes; i++)
		assert_int_equal(d->nodes[i].machine, c->nodes[i].machine);
	assert_int_equal(fb_circuit_logpdf(c, rows, 5, a, NULL), FB_OK);
	assert_int_equal(fb_circuit_logpdf(d, rows, 5, b, NULL), FB_OK);
	assert_memory_equal(a, b, sizeof a);
	assert_int_equal(fb_circuit_save(d, path2, &err), FB_OK);
	fa = fopen(path, "r");
	fb = fopen(path2, "r");
	assert_true(getdelim(&ta, &la, '\0', fa) > 0 && getdelim(&tb, &lb, '\0', fb) > 0);
	assert_string_equal(ta, tb);
	fclose(fa);
	fclose(fb);
	free(ta);
	free(tb);
	remove(path);
	remove(path2);
	fb_circuit_free(c);
	fb_circuit_free(d);
}

/* Invalid circuits are rejected with one sentence naming the node at fault. */
static void test_invalid(void **state)
{
	fb_circuit *c = fb_circuit_alloc(2);
	size_t a = add_gauss(c, 0, 0, 1), b = add_gauss(c, 1, 0, 1), a2 = add_gauss(c, 0, 1, 1);
	size_t id;
	fb_error err;

	(void)state;
	add_sum(c, (size_t[]){ a, b }, (double[]){ 0.5, 0.5 }, 2);
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "sum node 3 is not smooth: its children 0 and 1 have different scopes");
	fb_circuit_free(c);

	c = fb_circuit_alloc(2);
	a = add_gauss(c, 0, 0, 1);
	a2 = add_gauss(c, 0, 1, 1);
	add_prod(c, (size_t[]){ a, a2 }, 2);
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "product node 2 is not decomposable: its children 0 and 1 share "
	                 "variable 0");
	fb_circuit_free(c);

	c = fb_circuit_alloc(2);
	a = add_gauss(c, 0, 0, 1);
	a2 = add_gauss(c, 0, 1, 1);
	add_sum(c, (size_t[]){ a, a2 }, (double[]){ 0.5, 0.5 + 2e-9 }, 2);
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "sum node 2 has weights that add up to 1.000000002, not 1");
	c->nodes[2].weights[1] = 0.5 + 5e-10;
	assert_int_equal(fb_circuit_check(c, NULL), FB_OK);
	c->nodes[2].weights[0] = -0.25;
	c->nodes[2].weights[1] = 1.25;
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "sum node 2 has weight -0.25 on child 0, not a non-negative number");
	c->nodes[2].weights[0] = c->nodes[2].weights[1] = 0.5;
	c->nodes[2].scope[0] = 1;
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "sum node 2 has a scope that is not the union of its children's scopes");
	c->nodes[2].scope[0] = 0;
	c->nodes[1].leaf.var = 1;
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "leaf node 1 has a scope other than its variable 1");
	c->nodes[1].leaf.var = 0;
	c->nodes[0].children = malloc(sizeof(size_t));
	c->nodes[0].nchildren = 1;
	c->nodes[0].children[0] = 2;
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "leaf node 0 has child 2, which does not come before it (children come "
	                 "first, so the circuit is acyclic)");
	assert_int_equal(fb_circuit_add_product(c, (size_t[]){ 7 }, 1, -1, &id, &err), FB_ERR);
	assert_msg(&err, "a product node names child 7, which does not exist yet (children come "
	                 "before their parents)");
	fb_circuit_free(c);

	c = fb_circuit_alloc(1);
	add_cat(c, 0, (double[]){ 0.5, 0.6 }, 2);
	assert_int_equal(fb_circuit_check(c, &err), FB_ERR);
	assert_msg(&err, "leaf node 0 has a total mass of 1.1, not 1");
	fb_circuit_free(c);
}

/* Read circuit text from a string; returns the status, err filled. */
static int read_text(const char *text, fb_circuit **out, fb_error *err)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int rc;

	assert_non_null(fp);
	rc = fb_circuit_read(fp, "m.circuit", out, err);
	fclose(fp);
	return rc;
}

/* Malformed files name their line and the fault; an invalid circuit names its node's
 * line, a root that leaves variables out (a file cut short) the root's line and the
 * variables; a well-formed one with comments reads. */
static void test_malformed(void **state)
{
	static const struct {
		const char *text; /* the file */
		const char *want; /* the sentence */
	} cases[] = {
		{ "fedbn-circuit 1\nvariables 2\n0 leaf gaussian 0 0 0 1\n1 leaf gaussian 0 0 1 1\n"
		  "2 sum -1 2 0 0.5 1 x\n",
		  "cannot read 'm.circuit': line 5: expected a number for the weight, found 'x'" },
		{ "fedbn-circuit 1\n# c\n\nvariables 2\n0 leaf gaussian 0 0 0 1\n"
		  "1 product -1 2 0 4\n",
		  "cannot read 'm.circuit': line 6: node 1 names child 4, which is not defined "
		  "before it" },
		{ "fedbn-circuit 1\nvariables 2\n0 leaf gaussian 0 0 0 1\n1 leaf gaussian 0 1 0 1\n"
		  "2 sum -1 2 0 0.5 1 0.5\n",
		  "cannot read 'm.circuit': line 5: sum node 2 is not smooth: its children 0 and 1 "
		  "have different scopes" },
		{ "fedbn-circuit 2\n", "cannot read 'm.circuit': line 1: unsupported version '2' "
		                       "(this program reads version 1)" },
		{ "variables 2\n", "cannot read 'm.circuit': line 1: expected 'fedbn-circuit 1', the "
		                   "first line of a circuit file" },
		{ "fedbn-circuit 1\nvariables 2\n0 leaf gaussian 0 2 0 1\n",
		  "cannot read 'm.circuit': line 3: expected a whole number from 0 to 1 for the "
		  "variable, found '2'" },
		{ "fedbn-circuit 1\nvariables 2\n0 leaf gaussian 0 1 0\n",
		  "cannot read 'm.circuit': line 3: the line ends before the sd" },
		{ "fedbn-circuit 1\nvariables 2\n0 leaf categorical 0 1 3 0.5 0.5\n",
		  "cannot read 'm.circuit': line 3: value count 3 needs 3 more fields, the line has "
		  "2" },
		{ "fedbn-circuit 1\nvariables 2\n1 leaf gaussian 0 1 0 1\n",
		  "cannot read 'm.circuit': line 3: expected node id 0, found '1'" },
		{ "fedbn-circuit 1\nvariables 2\n0 leaf gaussian 0 1 0 -1\n",
		  "cannot read 'm.circuit': line 3: a Gaussian leaf over variable 1 needs a finite "
		  "mean and a positive sd, not 0 and -1" },
		{ "fedbn-circuit 1\nvariables 2\n",
		  "cannot read 'm.circuit': no nodes (the file ends at line 2)" },
		{ "fedbn-circuit 1\nvariables 1\n0 leaf histogram 0 0 continuous 2 0 1 2 0.5 0.6\n",
		  "cannot read 'm.circuit': line 3: leaf node 0 has a total mass of 1.1, not 1" },
		{ "fedbn-circuit 1\nvariables 3\n0 leaf gaussian 0 1 0 1\n",
		  "cannot read 'm.circuit': line 3: its root covers 1 of its 3 variables: no leaf "
		  "models variables 0, 2 (numbered from 0), so the file may be cut short" },
		{ "fedbn-circuit 1\nvariables 12\n0 leaf gaussian 0 11 0 1\n",
		  "cannot read 'm.circuit': line 3: its root covers 1 of its 12 variables: no leaf "
		  "models variables 0, 1, 2, 3, 4, 5, 6, 7 and 3 more (numbered from 0), so the "
		  "file may be cut short" },
	};
	fb_circuit *c = NULL;
	fb_error err;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(read_text(cases[i].text, &c, &err), FB_ERR);
		assert_null(c);
		assert_msg(&err, cases[i].want);
	}
	assert_int_equal(read_text("# a comment\nfedbn-circuit 1\nvariables 1\n"
	                           "0 leaf histogram 3 0 discrete 2 0 1 2 0.25 0.75\n",
	                           &c, &err), FB_OK);
	assert_int_equal(c->nodes[0].machine, 3);
	assert_near(exp(logp1(c, (double[]){ 1 })), 0.75, 1e-15);
	fb_circuit_free(c);
}

/* Fixed projections for the RDC tests: 2 cos(0.7 r + 1.9 c + phase), rows x 10. */
static void fixed_g(double *g, size_t rows, double phase)
{
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < 10; c++)
			g[r * 10 + c] = 2 * cos(0.7 * (double)r + 1.9 * (double)c + phase);
}

/* RDC with fixed projections against a numpy computation of the same definition (ranks by
 * scipy's rankdata(method='max'), whitening by numpy's Cholesky and SVD, cross-checked there
 * by the eigenvalues of Cxx^-1 Cxy Cyy^-1 Cyx): features and coefficients, with ties in x
 * and a three-level discrete z. */
static void test_rdc_fixed(void **state)
{
	enum { N = 30 };
	double x[N], y[N], z[N], gx[20], gy[20], gz[40], fx[N * 10], fy[N * 10], fz[N * 10], v;
	fb_column_slice cx = slice_of(x, N), cy = slice_of(y, N), cz = slice_of(z, N);

	(void)state;
	for (size_t i = 0; i < N; i++) {
		x[i] = round(10 * (sin(1.3 * (double)i) + 0.1 * (double)i)) / 10;
		y[i] = x[i] * x[i] + cos(2.1 * (double)i);
		z[i] = (double)((i * i) % 3);
	}
	fixed_g(gx, 2, 0.3);
	fixed_g(gy, 2, 1.1);
	fixed_g(gz, 4, 2.0);
	assert_int_equal(fb_rdc_features(&cx, 0, gx, 10, FB_RDC_S, fx, NULL), FB_OK);
	assert_int_equal(fb_rdc_features(&cy, 0, gy, 10, FB_RDC_S, fy, NULL), FB_OK);
	assert_int_equal(fb_rdc_features(&cz, 3, gz, 10, FB_RDC_S, fz, NULL), FB_OK);
	assert_near(fx[30], 0.10049531, 1e-8);
	assert_near(fx[31], -0.16757095, 1e-8);
	assert_near(fz[51], 0.07646173, 1e-8);
	assert_int_equal(fb_rdc_cancor(fx, fy, N, 10, &v, NULL), FB_OK);
	assert_near(v, 0.98633056768883598, 1e-7);
	assert_int_equal(fb_rdc_cancor(fx, fz, N, 10, &v, NULL), FB_OK);
	assert_near(v, 0.18294743752122264, 1e-7);
}

/* The RDC matrix from a seeded stream: near 0 for independent variables (numpy's mean over
 * 20 draws at n = 1000 is 0.06), near 1 for y = x^2 and for a monotone function, 0 for a
 * constant; symmetric with a unit diagonal; the same seed gives the same bits. */
static void test_rdc_matrix(void **state)
{
	enum { N = 2000, V = 5 };
	double *x = malloc(N * V * sizeof *x), m[V * V], m2[V * V];
	gsl_rng *r = fb_rng_stream(5, "rdc-test-data");
	fb_column_slice cols[V];
	size_t lv[V] = { 0, 0, 0, 0, 0 };

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < N; i++) {
		double u = gsl_rng_uniform(r) * 2 - 1;

		x[i * V] = u;
		x[i * V + 1] = gsl_ran_gaussian(r, 1);
		x[i * V + 2] = u * u;
		x[i * V + 3] = exp(u);
		x[i * V + 4] = 3;
	}
	for (size_t j = 0; j < V; j++)
		cols[j] = (fb_column_slice){ .x = x + j, .stride = V, .rows = NULL, .n = N };
	gsl_rng_free(r);
	r = fb_rng_stream(17, "rdc");
	assert_int_equal(fb_rdc_matrix(cols, lv, V, FB_RDC_K, FB_RDC_S, r, m, NULL), FB_OK);
	gsl_rng_free(r);
	r = fb_rng_stream(17, "rdc");
	assert_int_equal(fb_rdc_matrix(cols, lv, V, FB_RDC_K, FB_RDC_S, r, m2, NULL), FB_OK);
	assert_memory_equal(m, m2, sizeof m);
	assert_true(m[0 * V + 1] < 0.1 && m[1 * V + 2] < 0.1 && m[1 * V + 3] < 0.1);
	assert_true(m[0 * V + 2] > 0.95);
	assert_true(m[0 * V + 3] > 0.999);
	assert_true(m[0 * V + 4] == 0 && m[4 * V + 2] == 0);
	for (size_t a = 0; a < V; a++) {
		assert_true(m[a * V + a] == 1);
		for (size_t b = 0; b < V; b++)
			assert_true(m[a * V + b] == m[b * V + a]);
	}
	gsl_rng_free(r);
	free(x);
}

/* The RDC matrix over discrete and continuous columns (a discrete block is built from its
 * levels' features and counts, never row by row) against the row-by-row route: features
 * of every row by fb_rdc_features from the same projections, then fb_rdc_cancor. */
static void test_rdc_matrix_levels(void **state)
{
	enum { N = 500, V = 5, K = 10 };
	size_t lv[V] = { 2, 3, 0, 4, 2 };
	double *x = malloc(N * V * sizeof *x), *f = malloc(V * N * K * sizeof *f), m[V * V];
	gsl_rng *r = fb_rng_stream(3, "rdc-levels-data");
	fb_column_slice cols[V];

	(void)state;
	assert_non_null(x);
	assert_non_null(f);
	for (size_t i = 0; i < N; i++) {
		double u = gsl_rng_uniform(r);

		x[i * V] = u < 0.3;
		x[i * V + 1] = (double)(size_t)(3 * u * u);
		x[i * V + 2] = u + gsl_ran_gaussian(r, 0.2);
		x[i * V + 3] = (double)gsl_rng_uniform_int(r, 3); /* level 3 never occurs */
		x[i * V + 4] = gsl_rng_uniform(r) < 0.9 ? x[i * V] : 1 - x[i * V]; /* two binary
		                                                                      columns */
	}
	for (size_t j = 0; j < V; j++)
		cols[j] = (fb_column_slice){ .x = x + j, .stride = V, .rows = NULL, .n = N };
	gsl_rng_free(r);
	r = fb_rng_stream(9, "rdc");
	assert_int_equal(fb_rdc_matrix(cols, lv, V, K, FB_RDC_S, r, m, NULL), FB_OK);
	gsl_rng_free(r);
	r = fb_rng_stream(9, "rdc");
	for (size_t j = 0; j < V; j++) {
		size_t c = lv[j] ? lv[j] + 1 : 2;
		double g[5 * K];

		for (size_t i = 0; i < c * K; i++)
			g[i] = gsl_ran_gaussian(r, 1.0);
		assert_int_equal(fb_rdc_features(&cols[j], lv[j], g, K, FB_RDC_S, f + j * N * K,
		                                 NULL), FB_OK);
	}
	for (size_t a = 0; a < V; a++)
		for (size_t b = a + 1; b < V; b++) {
			double v;

			assert_int_equal(fb_rdc_cancor(f + a * N * K, f + b * N * K, N, K, &v, NULL),
			                 FB_OK);
			assert_near(m[a * V + b], v, 1e-9);
		}
	assert_true(m[0 * V + 1] > 0.5 && m[1 * V + 2] > 0.5 && m[0 * V + 3] < 0.2);
	assert_true(m[0 * V + 4] > 0.5);
	gsl_rng_free(r);
	free(f);
	free(x);
}

/* Sum of squared distances of n rows (d columns) to their clusters' means. */
static double inertia_of(const double *x, size_t n, size_t d, const size_t *label, size_t k)
{
	double mean[4 * 3] = { 0 }, cnt[4] = { 0 }, total = 0;

	for (size_t i = 0; i < n; i++) {
		cnt[label[i]] += 1;
		for (size_t t = 0; t < d; t++)
			mean[label[i] * d + t] += x[i * d + t];
	}
	for (size_t j = 0; j < k; j++)
		for (size_t t = 0; t < d; t++)
			mean[j * d + t] /= cnt[j];
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < d; t++)
			total += pow(x[i * d + t] - mean[label[i] * d + t], 2);
	return total;
}

/* k-means on two separated blobs: the blobs exactly, clusters numbered by first row, the
 * inertia reported equal to the labels' own, every row nearest its own mean (a Lloyd fixed
 * point), the same seed the same labels, and the sentence for k > n. */
static void test_kmeans_blobs(void **state)
{
	enum { N = 300, D = 3 };
	double x[N * D], inertia, mean[2 * D] = { 0 };
	size_t label[N], again[N];
	gsl_rng *r = fb_rng_stream(3, "kmeans-data");
	fb_error err;

	(void)state;
	for (size_t i = 0; i < N; i++)
		for (size_t t = 0; t < D; t++)
			x[i * D + t] = gsl_ran_gaussian(r, 1) + ((i * 7) % 3 == 0 ? 6 : -2);
	gsl_rng_free(r);
	r = fb_rng_stream(17, "kmeans");
	assert_int_equal(fb_kmeans(x, N, D, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r, label,
	                           &inertia, NULL), FB_OK);
	gsl_rng_free(r);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(label[i], (i * 7) % 3 == 0 ? 0 : 1);
	assert_near(inertia, inertia_of(x, N, D, label, 2), 1e-9);
	for (size_t i = 0; i < N; i++)
		for (size_t t = 0; t < D; t++)
			mean[label[i] * D + t] += x[i * D + t] / (label[i] == 0 ? 100.0 : 200.0);
	for (size_t i = 0; i < N; i++) {
		double d0 = 0, d1 = 0;

		for (size_t t = 0; t < D; t++) {
			d0 += pow(x[i * D + t] - mean[t], 2);
			d1 += pow(x[i * D + t] - mean[D + t], 2);
		}
		assert_true(label[i] == (d1 < d0 ? 1u : 0u));
	}
	r = fb_rng_stream(17, "kmeans");
	assert_int_equal(fb_kmeans(x, N, D, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r, again,
	                           NULL, NULL), FB_OK);
	assert_memory_equal(label, again, sizeof label);
	assert_int_equal(fb_kmeans(x, 1, D, 2, 1, 10, r, again, NULL, &err), FB_ERR);
	assert_msg(&err, "k-means needs 1 <= k <= rows, at least one column and one start "
	                 "(k = 2, 1 rows, 3 columns)");
	gsl_rng_free(r);
}

/* k-means on rows of small integers (their clusters' sums kept as rows move) against the
 * same rows halved (not integral, so summed afresh): halving is exact in every sum, mean,
 * distance and draw, so the labels agree and the inertia is a quarter, bit for bit; on
 * level codes with many repeated rows (collapsed into distinct rows with counts) and on
 * integers up to 1000 (nearly all rows distinct, not collapsed). */
static void test_kmeans_integral_rows(void **state)
{
	enum { N = 2000, D = 5 };
	double *x = malloc(N * D * sizeof *x), *half = malloc(N * D * sizeof *half), v1, v2;
	size_t *l1 = malloc(N * sizeof *l1), *l2 = malloc(N * sizeof *l2);

	(void)state;
	assert_true(x != NULL && half != NULL && l1 != NULL && l2 != NULL);
	for (int wide = 0; wide < 2; wide++) {
		gsl_rng *r = fb_rng_stream(4, "kmeans-codes");

		for (size_t i = 0; i < N; i++)
			for (size_t t = 0; t < D; t++) {
				double u = gsl_rng_uniform(r);

				x[i * D + t] = wide ? floor(1000 * u) + (i % 3 == 0 ? 500 : 0)
				               : t == 0 ? (double)(u < 0.4) + (u < 0.1)
				                        : (u < 0.8 ? x[i * D + t - 1] : (double)(u < 0.9));
				half[i * D + t] = x[i * D + t] / 2;
			}
		gsl_rng_free(r);
		r = fb_rng_stream(17, "kmeans");
		assert_int_equal(fb_kmeans(x, N, D, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r, l1,
		                           &v1, NULL), FB_OK);
		gsl_rng_free(r);
		r = fb_rng_stream(17, "kmeans");
		assert_int_equal(fb_kmeans(half, N, D, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r,
		                           l2, &v2, NULL), FB_OK);
		gsl_rng_free(r);
		assert_memory_equal(l1, l2, N * sizeof *l1);
		assert_true(v1 / 4 == v2);
		assert_near(v1, inertia_of(x, N, D, l1, 2), 1e-9 * v1);
	}
	free(x);
	free(half);
	free(l1);
	free(l2);
}

/* In one dimension the best 2-means split is a threshold in sorted order: over every
 * threshold by brute force, the least inertia equals what k-means finds. */
static void test_kmeans_brute_force(void **state)
{
	const double x[12] = { 0.1, 0.4, 0.35, 2.0, 2.2, 1.1, 0.9, 3.5, 3.1, 1.6, 2.9, 0.0 };
	double sorted[12], best = INFINITY, got;
	size_t label[12], lab[12];
	gsl_rng *r = fb_rng_stream(17, "kmeans");

	(void)state;
	memcpy(sorted, x, sizeof x);
	gsl_sort(sorted, 1, 12);
	for (size_t cut = 1; cut < 12; cut++) {
		for (size_t i = 0; i < 12; i++)
			lab[i] = x[i] >= sorted[cut];
		best = fmin(best, inertia_of(x, 12, 1, lab, 2));
	}
	assert_int_equal(fb_kmeans(x, 12, 1, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r, label,
	                           &got, NULL), FB_OK);
	assert_near(got, best, 1e-12);
	assert_near(inertia_of(x, 12, 1, label, 2), best, 1e-12);
	gsl_rng_free(r);
}

/* Mean log-likelihood of n rows. */
static double mean_ll(const fb_circuit *c, const double *x, size_t n)
{
	double *lp = malloc(n * sizeof *lp), t = 0;

	assert_non_null(lp);
	assert_int_equal(fb_circuit_logpdf(c, x, n, lp, NULL), FB_OK);
	for (size_t i = 0; i < n; i++)
		t += lp[i] / (double)n;
	free(lp);
	return t;
}

/* Count of nodes of one kind. */
static size_t count_kind(const fb_circuit *c, enum fb_node_kind k)
{
	size_t m = 0;

	for (size_t i = 0; i < c->nnodes; i++)
		m += c->nodes[i].kind == k;
	return m;
}

/* The learner on four continuous columns, X1 a function of X0, X2 and X3 independent: with
 * columns first the root is a product over {X0, X1}, {X2}, {X3}; with rows first (the
 * default) the root is a sum; both fit the data better than naive factorisation; no
 * chain of one kind is left; the same seed writes the same text. */
static void test_learnspn_continuous(void **state)
{
	enum { N = 1500, D = 4 };
	double *x = malloc(N * D * sizeof *x);
	size_t lv[D] = { 0, 0, 0, 0 };
	gsl_rng *r = fb_rng_stream(9, "learnspn-data");
	fb_learnspn_options o;
	fb_circuit *a, *b, *naive;
	char *ta = NULL, *tb = NULL;
	size_t la, lb;
	FILE *fa, *fb;

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < N; i++) {
		double u = gsl_rng_uniform(r) * 4 - 2;

		x[i * D] = u;
		x[i * D + 1] = u * u + gsl_ran_gaussian(r, 0.05);
		x[i * D + 2] = gsl_ran_gaussian(r, 1);
		x[i * D + 3] = gsl_ran_exponential(r, 1);
	}
	gsl_rng_free(r);
	fb_learnspn_options_init(&o);
	o.cluster_first = 0;
	assert_int_equal(fb_learnspn(x, N, D, lv, &o, 0, &a, NULL), FB_OK);
	{
		const fb_circuit_node *root = &a->nodes[fb_circuit_root(a)];

		assert_int_equal(root->kind, FB_NODE_PRODUCT);
		assert_int_equal(root->nchildren, 3);
		assert_int_equal(a->nodes[root->children[0]].nscope, 2);
		assert_int_equal(a->nodes[root->children[0]].scope[1], 1);
		assert_int_equal(a->nodes[root->children[1]].kind, FB_NODE_LEAF);
		assert_int_equal(a->nodes[root->children[2]].kind, FB_NODE_LEAF);
	}
	fb_circuit_free(a);
	fb_learnspn_options_init(&o);
	assert_int_equal(fb_learnspn(x, N, D, lv, &o, 0, &a, NULL), FB_OK);
	assert_int_equal(fb_learnspn(x, N, D, lv, &o, 0, &b, NULL), FB_OK);
	assert_int_equal(a->nodes[fb_circuit_root(a)].kind, FB_NODE_SUM);
	for (size_t i = 0; i < a->nnodes; i++)
		for (size_t k = 0; k < a->nodes[i].nchildren; k++)
			assert_true(a->nodes[i].kind == FB_NODE_LEAF ||
			            a->nodes[a->nodes[i].children[k]].kind != a->nodes[i].kind);
	o.min_instances_slice = N;
	assert_int_equal(fb_learnspn(x, N, D, lv, &o, 0, &naive, NULL), FB_OK);
	assert_int_equal(naive->nnodes, D + 1);
	assert_true(mean_ll(a, x, N) > mean_ll(naive, x, N) + 0.5);
	fa = open_memstream(&ta, &la);
	fb = open_memstream(&tb, &lb);
	assert_int_equal(fb_circuit_write(a, fa, NULL), FB_OK);
	assert_int_equal(fb_circuit_write(b, fb, NULL), FB_OK);
	fclose(fa);
	fclose(fb);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	fb_circuit_free(a);
	fb_circuit_free(b);
	fb_circuit_free(naive);
	free(x);
}

/* Learn on the n x 4 binary rows x with the given leaves: a valid circuit with a sum on
 * machine 2, summing to 1 (within tol) over the 16 states, the constant variable 3 a leaf
 * of the root product. */
static void learnspn_discrete_check(const double *x, size_t n, const size_t *lv,
                                    enum fb_learn_leaves leaves, double tol)
{
	fb_learnspn_options o;
	fb_circuit *c;
	double total = 0;

	fb_learnspn_options_init(&o);
	o.leaves = leaves;
	o.min_instances_slice = 100;
	assert_int_equal(fb_learnspn(x, n, 4, lv, &o, 2, &c, NULL), FB_OK);
	assert_int_equal(fb_circuit_check(c, NULL), FB_OK);
	assert_true(count_kind(c, FB_NODE_SUM) >= 1);
	assert_int_equal(c->nodes[fb_circuit_root(c)].machine, 2);
	for (size_t s = 0; s < 16; s++) {
		double row[4] = { (double)(s >> 3 & 1), (double)(s >> 2 & 1), (double)(s >> 1 & 1),
		                  (double)(s & 1) };

		total += exp(logp1(c, row));
	}
	assert_near(total, 1.0, tol);
	{
		const fb_circuit_node *root = &c->nodes[fb_circuit_root(c)];
		int found = 0;

		assert_int_equal(root->kind, FB_NODE_PRODUCT);
		for (size_t k = 0; k < root->nchildren; k++)
			found |= c->nodes[root->children[k]].kind == FB_NODE_LEAF &&
			         c->nodes[root->children[k]].leaf.var == 3;
		assert_true(found);
	}
	fb_circuit_free(c);
}

/* The learner with categorical, then histogram leaves on three dependent binary columns
 * and a constant one: a valid circuit with sums that sums to 1 over all 16 states, the
 * constant column a leaf of the root product. */
static void test_learnspn_discrete(void **state)
{
	enum { N = 1200, D = 4 };
	double *x = malloc(N * D * sizeof *x);
	size_t lv[D] = { 2, 2, 2, 2 };
	gsl_rng *r = fb_rng_stream(4, "learnspn-data");

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < N; i++) {
		double a = gsl_rng_uniform(r) < 0.4;

		x[i * D] = a;
		x[i * D + 1] = gsl_rng_uniform(r) < (a ? 0.9 : 0.2);
		x[i * D + 2] = gsl_rng_uniform(r) < (x[i * D + 1] ? 0.7 : 0.1);
		x[i * D + 3] = 1;
	}
	gsl_rng_free(r);
	learnspn_discrete_check(x, N, lv, FB_LEARN_PARAMETRIC, 1e-12);
	/* histogram leaves put FB_LEAF_HIST_FLOOR on values a slice never saw */
	learnspn_discrete_check(x, N, lv, FB_LEARN_HISTOGRAM, 1e-8);
	free(x);
}

/* Two blobs of 300 and 900 rows with min_instances_slice 1000: the root slice splits its
 * rows into the blobs, each factorised, so the root is a sum with weights 0.25 and 0.75
 * over two products of leaves. */
static void test_learnspn_weights(void **state)
{
	enum { N = 1200, D = 2 };
	double *x = malloc(N * D * sizeof *x);
	size_t lv[D] = { 0, 0 };
	gsl_rng *r = fb_rng_stream(8, "learnspn-data");
	fb_learnspn_options o;
	const fb_circuit_node *root;
	fb_circuit *c;

	(void)state;
	assert_non_null(x);
	for (size_t i = 0; i < N; i++)
		for (size_t t = 0; t < D; t++)
			x[i * D + t] = gsl_ran_gaussian(r, 1) + (i % 4 == 1 ? 8 : -8);
	gsl_rng_free(r);
	fb_learnspn_options_init(&o);
	o.min_instances_slice = 1000;
	assert_int_equal(fb_learnspn(x, N, D, lv, &o, 0, &c, NULL), FB_OK);
	root = &c->nodes[fb_circuit_root(c)];
	assert_int_equal(root->kind, FB_NODE_SUM);
	assert_int_equal(root->nchildren, 2);
	assert_true(root->weights[0] == 0.75 && root->weights[1] == 0.25);
	assert_int_equal(c->nodes[root->children[0]].kind, FB_NODE_PRODUCT);
	assert_int_equal(c->nnodes, 7);
	fb_circuit_free(c);
	free(x);
}

/* The G-test against a hand computation: for [[30, 10], [10, 30]] every expected count is
 * 20, so G = 2 (60 log 1.5 + 20 log 0.5) with one degree of freedom; a 2 x 3 table against
 * scipy's chi2_contingency(lambda_="log-likelihood"); a constant column has p-value 1. */
static void test_gtest(void **state)
{
	double a[80], b[80], u[44], v[44], p, g;
	const double t23[2][3] = { { 5, 7, 8 }, { 12, 3, 9 } };
	fb_column_slice ca = { .x = a, .stride = 1, .n = 80 }, cb = { .x = b, .stride = 1, .n = 80 };
	fb_column_slice cu = { .x = u, .stride = 1, .n = 44 }, cv = { .x = v, .stride = 1, .n = 44 };
	size_t m = 0;

	(void)state;
	for (size_t i = 0; i < 80; i++) {
		a[i] = i < 40 ? 0 : 1;
		b[i] = (i < 30 || (i >= 40 && i < 50)) ? 0 : 1;
	}
	assert_int_equal(fb_gtest(&ca, 2, &cb, 2, &p, &g, NULL), FB_OK);
	assert_near(g, 2 * (60 * log(1.5) + 20 * log(0.5)), 1e-12);
	assert_near(p, 4.763938479565471e-06, 1e-15);
	for (size_t r = 0; r < 2; r++)
		for (size_t c = 0; c < 3; c++)
			for (size_t k = 0; k < (size_t)t23[r][c]; k++, m++)
				u[m] = (double)r, v[m] = (double)c;
	assert_int_equal(fb_gtest(&cu, 2, &cv, 4, &p, &g, NULL), FB_OK);
	assert_near(g, 4.310265327207718, 1e-12);
	assert_near(p, 0.11588781549779494, 1e-12);
	cu.n = cv.n = 12; /* rows 0..11: u is constant 0 */
	assert_int_equal(fb_gtest(&cu, 2, &cv, 4, &p, &g, NULL), FB_OK);
	assert_true(p == 1.0);
	a[3] = 2;
	assert_int_equal(fb_gtest(&ca, 2, &cb, 2, &p, &g, NULL), FB_ERR);
}

/* The G-test splitter separates two independent pairs of binary columns into a product of
 * their two groups, and refuses a continuous column. */
static void test_learnspn_gtest(void **state)
{
	enum { N = 600 };
	double x[N * 4];
	size_t lv[4] = { 2, 2, 2, 2 }, cont[4] = { 2, 2, 0, 2 };
	gsl_rng *r = fb_rng_stream(9, "gtest-data");
	fb_learnspn_options o;
	fb_circuit *c;
	fb_error err = { { 0 } };

	(void)state;
	for (size_t i = 0; i < N; i++) {
		x[i * 4] = gsl_rng_uniform(r) < 0.5;
		x[i * 4 + 1] = gsl_rng_uniform(r) < 0.9 ? x[i * 4] : 1 - x[i * 4];
		x[i * 4 + 2] = gsl_rng_uniform(r) < 0.3;
		x[i * 4 + 3] = gsl_rng_uniform(r) < 0.9 ? x[i * 4 + 2] : 1 - x[i * 4 + 2];
	}
	gsl_rng_free(r);
	fb_learnspn_options_init(&o);
	o.split = FB_SPLIT_GTEST;
	o.cluster_first = 0;
	o.min_instances_slice = N - 1; /* every slice is factorised but the first */
	assert_int_equal(fb_learnspn(x, N, 4, lv, &o, -1, &c, NULL), FB_OK);
	assert_int_equal(c->nodes[fb_circuit_root(c)].kind, FB_NODE_PRODUCT);
	assert_int_equal(c->nodes[fb_circuit_root(c)].nchildren, 2);
	assert_int_equal(c->nodes[c->nodes[fb_circuit_root(c)].children[0]].nscope, 2);
	fb_circuit_free(c);
	assert_int_equal(fb_learnspn(x, N, 4, cont, &o, -1, &c, &err), FB_ERR);
	assert_msg(&err, "split=gtest tests discrete columns, and column 3 is continuous (use "
	                 "split=rdc)");
}

/* A circuit whose classification is computed by hand: a mixture 0.6 / 0.4 of two products
 * of a label Y and a feature X.  X = 0: p(Y=0, X) = .6 .9 .8 + .4 .2 .3 = .456 against
 * p(Y=1, X) = .6 .1 .8 + .4 .8 .3 = .144, so 0; X = 1: .164 against .236, so 1; X unknown:
 * p(Y=0) = .62 against .38, so 0. */
static fb_circuit *classify_circuit(void)
{
	const double y1[2] = { 0.9, 0.1 }, x1[2] = { 0.8, 0.2 }, y2[2] = { 0.2, 0.8 };
	const double x2[2] = { 0.3, 0.7 }, w[2] = { 0.6, 0.4 };
	fb_circuit *c = fb_circuit_alloc(2);
	size_t p[2], ch[2];

	ch[0] = add_cat(c, 0, y1, 2), ch[1] = add_cat(c, 1, x1, 2);
	p[0] = add_prod(c, ch, 2);
	ch[0] = add_cat(c, 0, y2, 2), ch[1] = add_cat(c, 1, x2, 2);
	p[1] = add_prod(c, ch, 2);
	add_sum(c, p, w, 2);
	return c;
}

/* Classification against classify_circuit's hand computation. */
static void test_classify(void **state)
{
	fb_circuit *c = classify_circuit();
	double rows[6] = { 1, 0, 0, 1, 1, NAN }, logp[3];
	size_t label[3];

	(void)state;
	assert_int_equal(fb_circuit_classify(c, rows, 3, 0, 2, label, logp, NULL), FB_OK);
	assert_int_equal(label[0], 0);
	assert_int_equal(label[1], 1);
	assert_int_equal(label[2], 0);
	assert_near(logp[0], log(0.456), 1e-12);
	assert_near(logp[1], log(0.236), 1e-12);
	assert_near(logp[2], log(0.62), 1e-12);
	assert_true(rows[0] == 1 && isnan(rows[5])); /* the rows are not changed */
	assert_int_equal(fb_circuit_classify(c, rows, 3, 2, 2, label, logp, NULL), FB_ERR);
	fb_circuit_free(c);
}

/* The confusion matrix and its scores against a hand count: three classes, truth
 * 0 0 1 1 2 2 predicted 0 1 1 1 0 2.  Class 0: tp 1, predicted 2, true 2, F1 0.5; class 1:
 * tp 2, predicted 3, true 2, F1 0.8; class 2: tp 1, predicted 1, true 2, F1 2/3; accuracy
 * 4/6. */
static void test_confusion(void **state)
{
	const size_t truth[6] = { 0, 0, 1, 1, 2, 2 }, pred[6] = { 0, 1, 1, 1, 0, 2 };
	const size_t want[9] = { 1, 1, 0, 0, 2, 0, 1, 0, 1 };
	size_t cm[9] = { 7, 7, 7, 7, 7, 7, 7, 7, 7 };
	double acc, f1;

	(void)state;
	fb_confusion_count(truth, pred, 6, 3, cm);
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(cm[i], want[i]);
	assert_int_equal(fb_confusion_right(cm, 3), 4);
	assert_near(fb_confusion_f1(cm, 3, 0), 0.5, 1e-15);
	assert_near(fb_confusion_f1(cm, 3, 1), 0.8, 1e-15);
	assert_near(fb_confusion_f1(cm, 3, 2), 2.0 / 3, 1e-15);
	fb_confusion_scores(cm, 3, 6, SIZE_MAX, &acc, &f1);
	assert_near(acc, 4.0 / 6, 1e-15);
	assert_near(f1, (0.5 + 0.8 + 2.0 / 3) / 3, 1e-15);
	fb_confusion_scores(cm, 3, 6, 2, &acc, &f1); /* class 2 against the rest */
	assert_near(f1, 2.0 / 3, 1e-15);
	fb_confusion_count(truth, pred, 4, 2, cm); /* two classes: F1 of the second label */
	fb_confusion_scores(cm, 2, 4, SIZE_MAX, &acc, &f1);
	assert_near(acc, 0.75, 1e-15);
	assert_near(f1, 0.8, 1e-15);
	fb_confusion_scores(cm, 2, 4, 0, &acc, &f1); /* class 0 positive: tp 1, 1 + 2 */
	assert_near(f1, 2.0 / 3, 1e-15);
	cm[0] = cm[1] = cm[2] = cm[3] = 0; /* a class never true nor predicted */
	assert_near(fb_confusion_f1(cm, 2, 1), 0.0, 0);
	fb_confusion_scores(cm, 2, 0, 1, &acc, &f1);
	assert_true(isnan(acc));
}

/* A circuit's confusion matrix on a dataset: the test part's rows when some are held out,
 * every row otherwise (classify_circuit, which predicts Y = X). */
static void test_circuit_confusion(void **state)
{
	const double rows[8] = { 0, 0, 1, 1, 0, 1, 1, 0 }; /* (Y, X): right, right, wrong, wrong */
	char a[] = "a", b[] = "b", *lv[2] = { a, b };
	fb_circuit *c = classify_circuit();
	fb_dataset *ds = fb_dataset_alloc(4, 2);
	size_t n, *cm;
	fb_error err;
	bool all;

	(void)state;
	memcpy(ds->x, rows, sizeof rows);
	assert_int_equal(fb_dataset_set_levels(ds, 0, lv, 2, NULL), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 1, lv, 2, NULL), FB_OK);
	cm = fb_circuit_confusion(c, ds, 0, &n, &all, &err);
	assert_non_null(cm);
	assert_true(all);
	assert_int_equal(n, 4);
	assert_true(cm[0] == 1 && cm[1] == 1 && cm[2] == 1 && cm[3] == 1);
	free(cm);
	ds->part = calloc(4, 1);
	ds->part[1] = ds->part[2] = FB_PART_TEST;
	cm = fb_circuit_confusion(c, ds, 0, &n, &all, &err);
	assert_false(all);
	assert_int_equal(n, 2);
	assert_true(cm[0] == 0 && cm[1] == 1 && cm[2] == 0 && cm[3] == 1);
	free(cm);
	fb_dataset_free(ds);
	fb_circuit_free(c);
}

/* The default positive class: of two levels the rarer in the training rows (held-out rows
 * not counted), the later on a tie; none (SIZE_MAX) for three levels. */
static void test_class_positive(void **state)
{
	const double y[6] = { 0, 1, 1, 0, 0, 2 };
	char a[] = "a", b[] = "b", cc[] = "c", *lv[3] = { a, b, cc };
	fb_dataset *ds = fb_dataset_alloc(5, 1);

	(void)state;
	memcpy(ds->x, y, 5 * sizeof *y); /* a b b a a: b the rarer */
	assert_int_equal(fb_dataset_set_levels(ds, 0, lv, 2, NULL), FB_OK);
	assert_int_equal(fb_class_positive(ds, 0), 1);
	ds->part = calloc(5, 1);
	ds->part[0] = ds->part[3] = FB_PART_TEST; /* training rows b b a: a the rarer */
	assert_int_equal(fb_class_positive(ds, 0), 0);
	ds->part[1] = FB_PART_VALID; /* b a: a tie, the later level */
	assert_int_equal(fb_class_positive(ds, 0), 1);
	fb_dataset_free(ds);
	ds = fb_dataset_alloc(6, 1);
	memcpy(ds->x, y, sizeof y);
	assert_int_equal(fb_dataset_set_levels(ds, 0, lv, 3, NULL), FB_OK);
	assert_true(fb_class_positive(ds, 0) == SIZE_MAX);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discrete_sums_to_one),
		cmocka_unit_test(test_marginals),
		cmocka_unit_test(test_product_marginal),
		cmocka_unit_test(test_deep_underflow),
		cmocka_unit_test(test_conditional),
		cmocka_unit_test(test_mpe_brute_force),
		cmocka_unit_test(test_mpe_selective),
		cmocka_unit_test(test_gaussian_integrates),
		cmocka_unit_test(test_histogram_continuous),
		cmocka_unit_test(test_histogram_bins),
		cmocka_unit_test(test_histogram_discrete),
		cmocka_unit_test(test_fit_leaves),
		cmocka_unit_test(test_sampling),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rdc_fixed),
		cmocka_unit_test(test_rdc_matrix),
		cmocka_unit_test(test_rdc_matrix_levels),
		cmocka_unit_test(test_kmeans_blobs),
		cmocka_unit_test(test_kmeans_brute_force),
		cmocka_unit_test(test_kmeans_integral_rows),
		cmocka_unit_test(test_learnspn_continuous),
		cmocka_unit_test(test_learnspn_discrete),
		cmocka_unit_test(test_learnspn_weights),
		cmocka_unit_test(test_gtest),
		cmocka_unit_test(test_learnspn_gtest),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_confusion),
		cmocka_unit_test(test_circuit_confusion),
		cmocka_unit_test(test_class_positive),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
