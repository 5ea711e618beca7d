/* The G-test of independence of two discrete columns, as the original LearnSPN splits
 * columns. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* Value i of a column slice. */
static double slice_at(const fb_column_slice *c, size_t i)
{
	return c->x[(c->rows != NULL ? c->rows[i] : i) * c->stride];
}

/* Count the slice's (a, b) level pairs into the la x lb table t; FB_ERR on a value that is
 * no level code. */
static int gtest_count(const fb_column_slice *a, size_t la, const fb_column_slice *b,
                       size_t lb, double *t, fb_error *err)
{
	for (size_t i = 0; i < a->n; i++) {
		double u = slice_at(a, i), v = slice_at(b, i);

		if (!(u >= 0 && u < (double)la && u == floor(u)) ||
		    !(v >= 0 && v < (double)lb && v == floor(v)))
			return fb_fail(err, "the G-test needs level codes, and row %zu holds %g and %g",
			               i + 1, u, v);
		t[(size_t)u * lb + (size_t)v] += 1;
	}
	return FB_OK;
}

/* The p-value (and G into *g, may be NULL) of the la x lb contingency table t of n rows;
 * t's room for la + lb more numbers after the table holds the margins. */
double fb_gtest_table(double *t, size_t la, size_t lb, double n, double *g)
{
	double *ra = t + la * lb, *cb = ra + la, stat = 0;
	size_t seen_a = 0, seen_b = 0;

	memset(ra, 0, (la + lb) * sizeof *ra);
	for (size_t u = 0; u < la; u++)
		for (size_t v = 0; v < lb; v++)
			ra[u] += t[u * lb + v], cb[v] += t[u * lb + v];
	for (size_t u = 0; u < la; u++)
		seen_a += ra[u] > 0;
	for (size_t v = 0; v < lb; v++)
		seen_b += cb[v] > 0;
	for (size_t u = 0; u < la; u++)
		for (size_t v = 0; v < lb; v++)
			if (t[u * lb + v] > 0)
				stat += t[u * lb + v] * log(t[u * lb + v] * n / (ra[u] * cb[v]));
	stat *= 2;
	if (g != NULL)
		*g = stat;
	if (seen_a < 2 || seen_b < 2)
		return 1.0;
	return gsl_cdf_chisq_Q(stat > 0 ? stat : 0, (double)((seen_a - 1) * (seen_b - 1)));
}

/* The G-test of two discrete column slices. */
int fb_gtest(const fb_column_slice *a, size_t la, const fb_column_slice *b, size_t lb,
             double *p, double *g, fb_error *err)
{
	double *t = calloc(la * lb + la + lb, sizeof *t);

	if (t == NULL)
		return fb_fail(err, "out of memory for a G-test");
	if (gtest_count(a, la, b, lb, t, err) != FB_OK) {
		free(t);
		return FB_ERR;
	}
	*p = fb_gtest_table(t, la, lb, (double)a->n, g);
	free(t);
	return FB_OK;
}
