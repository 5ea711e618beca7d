/* Leaf distributions: construction, fitting from a column slice, density, mode, sampling. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* Most bins a discrete histogram may have (one per integer value between min and max). */
#define HIST_MAX_DISCRETE_BINS 1000000

/* A Gaussian leaf over var. */
int fb_leaf_gaussian(fb_leaf *leaf, size_t var, double mean, double sd, fb_error *err)
{
	memset(leaf, 0, sizeof *leaf);
	if (!isfinite(mean) || !isfinite(sd) || !(sd > 0))
		return fb_fail(err, "a Gaussian leaf over variable %zu needs a finite mean and a "
		                    "positive sd, not %g and %g", var, mean, sd);
	leaf->kind = FB_LEAF_GAUSSIAN;
	leaf->var = var;
	leaf->mean = mean;
	leaf->sd = sd;
	leaf->log_norm = -log(sd) - 0.5 * log(2 * M_PI);
	return FB_OK;
}

/* Fill leaf->p and leaf->logp from n values (copied); FB_ERR on a negative or non-finite
 * value or out of memory. */
static int leaf_set_p(fb_leaf *leaf, const double *p, size_t n, const char *what,
                      fb_error *err)
{
	leaf->p = malloc(n * sizeof *leaf->p);
	leaf->logp = malloc(n * sizeof *leaf->logp);
	if (leaf->p == NULL || leaf->logp == NULL) {
		fb_leaf_release(leaf);
		return fb_fail(err, "out of memory for a leaf of %zu %ss", n, what);
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(p[i]) || p[i] < 0) {
			fb_leaf_release(leaf);
			return fb_fail(err, "a leaf over variable %zu has %s %zu = %g, not a "
			                    "non-negative number", leaf->var, what, i, p[i]);
		}
		leaf->p[i] = p[i];
		leaf->logp[i] = log(p[i]);
	}
	leaf->nvalues = n;
	return FB_OK;
}

/* A categorical leaf over var with the given probabilities. */
int fb_leaf_categorical(fb_leaf *leaf, size_t var, const double *p, size_t nvalues,
                        fb_error *err)
{
	memset(leaf, 0, sizeof *leaf);
	if (nvalues == 0)
		return fb_fail(err, "a categorical leaf over variable %zu needs at least one "
		                    "value", var);
	leaf->kind = FB_LEAF_CATEGORICAL;
	leaf->var = var;
	return leaf_set_p(leaf, p, nvalues, "probability", err);
}

/* A histogram leaf over var with nbins bins. */
int fb_leaf_histogram(fb_leaf *leaf, size_t var, int discrete, const double *breaks,
                      const double *density, size_t nbins, fb_error *err)
{
	memset(leaf, 0, sizeof *leaf);
	if (nbins == 0)
		return fb_fail(err, "a histogram leaf over variable %zu needs at least one bin",
		               var);
	for (size_t b = 0; b <= nbins; b++)
		if (!isfinite(breaks[b]) || (b > 0 && !(breaks[b] > breaks[b - 1])))
			return fb_fail(err, "a histogram leaf over variable %zu has bin edges that "
			                    "are not finite and strictly increasing (edge %zu)", var, b);
	leaf->kind = FB_LEAF_HISTOGRAM;
	leaf->var = var;
	leaf->discrete = discrete != 0;
	leaf->breaks = malloc((nbins + 1) * sizeof *leaf->breaks);
	if (leaf->breaks == NULL)
		return fb_fail(err, "out of memory for a histogram of %zu bins", nbins);
	memcpy(leaf->breaks, breaks, (nbins + 1) * sizeof *breaks);
	return leaf_set_p(leaf, density, nbins, "density", err);
}

/* Deep copy of a leaf. */
int fb_leaf_copy(fb_leaf *dst, const fb_leaf *src, fb_error *err)
{
	switch (src->kind) {
	case FB_LEAF_GAUSSIAN:
		return fb_leaf_gaussian(dst, src->var, src->mean, src->sd, err);
	case FB_LEAF_CATEGORICAL:
		return fb_leaf_categorical(dst, src->var, src->p, src->nvalues, err);
	case FB_LEAF_HISTOGRAM:
		return fb_leaf_histogram(dst, src->var, src->discrete, src->breaks, src->p,
		                         src->nvalues, err);
	}
	return fb_fail(err, "a leaf of unknown kind %d", (int)src->kind);
}

/* Free what a leaf owns. */
void fb_leaf_release(fb_leaf *leaf)
{
	free(leaf->breaks);
	free(leaf->p);
	free(leaf->logp);
	leaf->breaks = leaf->p = leaf->logp = NULL;
	leaf->nvalues = 0;
}

/* The values of a column slice in a new array, each checked finite; NULL with the reason
 * in err when one is missing or on out of memory. */
static double *slice_gather(const fb_column_slice *col, size_t var, fb_error *err)
{
	double *v;

	if (col->n == 0) {
		fb_fail(err, "cannot fit a leaf to variable %zu: the slice has no rows", var);
		return NULL;
	}
	v = malloc(col->n * sizeof *v);
	if (v == NULL) {
		fb_fail(err, "out of memory for a slice of %zu rows", col->n);
		return NULL;
	}
	for (size_t i = 0; i < col->n; i++) {
		size_t row = col->rows != NULL ? col->rows[i] : i;

		if (col->rows != NULL && i + FB_CIRCUIT_AHEAD < col->n)
			fb_circuit_prefetch(col->x + col->rows[i + FB_CIRCUIT_AHEAD] * col->stride);
		v[i] = col->x[row * col->stride];
		if (!isfinite(v[i])) {
			fb_fail(err, "cannot fit a leaf to variable %zu: row %zu holds %g, not an "
			             "observed value", var, row, v[i]);
			free(v);
			return NULL;
		}
	}
	return v;
}

/* Fit a Gaussian leaf: mean, population sd, the variance floored. */
int fb_leaf_fit_gaussian(fb_leaf *leaf, size_t var, const fb_column_slice *col,
                         fb_error *err)
{
	double *v = slice_gather(col, var, err), mean, var2;

	memset(leaf, 0, sizeof *leaf);
	if (v == NULL)
		return FB_ERR;
	mean = gsl_stats_mean(v, 1, col->n);
	var2 = gsl_stats_variance_with_fixed_mean(v, 1, col->n, mean);
	free(v);
	if (!(var2 >= FB_LEAF_VAR_FLOOR))
		var2 = FB_LEAF_VAR_FLOOR;
	return fb_leaf_gaussian(leaf, var, mean, sqrt(var2), err);
}

/* The level code of x when it is an integer in [0, n), else SIZE_MAX. */
static size_t level_code(double x, size_t n)
{
	if (!(x >= 0) || x >= (double)n || x != floor(x))
		return SIZE_MAX;
	return (size_t)x;
}

/* Fit a categorical leaf with Laplace smoothing. */
int fb_leaf_fit_categorical(fb_leaf *leaf, size_t var, size_t nvalues,
                            const fb_column_slice *col, fb_error *err)
{
	double *v = slice_gather(col, var, err), *p;
	int rc;

	memset(leaf, 0, sizeof *leaf);
	if (v == NULL)
		return FB_ERR;
	p = calloc(nvalues ? nvalues : 1, sizeof *p);
	if (p == NULL) {
		free(v);
		return fb_fail(err, "out of memory for a leaf of %zu values", nvalues);
	}
	for (size_t i = 0; i < col->n; i++) {
		size_t code = level_code(v[i], nvalues);

		if (code == SIZE_MAX) {
			rc = fb_fail(err, "cannot fit a leaf to variable %zu: row %zu holds %g, not "
			                  "a level code below %zu", var,
			             col->rows != NULL ? col->rows[i] : i, v[i], nvalues);
			goto out;
		}
		p[code] += 1;
	}
	for (size_t k = 0; k < nvalues; k++)
		p[k] = (p[k] + FB_LEAF_ALPHA) / ((double)col->n + FB_LEAF_ALPHA * (double)nvalues);
	rc = fb_leaf_categorical(leaf, var, p, nvalues, err);
out:
	free(v);
	free(p);
	return rc;
}

/* The bin of the nb bins with edges br holding x, or SIZE_MAX outside.  The last bin of a
 * continuous histogram is closed (it holds the training maximum); a discrete one's bins are
 * the integers v in [v, v + 1), so its last edge is the next value, outside. */
static size_t hist_bin(const double *br, size_t nb, int discrete, double x)
{
	size_t lo = 0, hi = nb;

	if (!(x >= br[0]) || !(x <= br[nb]) || (discrete && x == br[nb]))
		return SIZE_MAX;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (br[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Bin count for continuous values (sorted, n > 0, max > min): the larger of Sturges' and
 * Freedman-Diaconis' counts, at most n. */
static size_t hist_auto_bins(const double *v, size_t n)
{
	double range = v[n - 1] - v[0];
	double w = range / (log2((double)n) + 1);
	double iqr = gsl_stats_quantile_from_sorted_data(v, 1, n, 0.75) -
	             gsl_stats_quantile_from_sorted_data(v, 1, n, 0.25);
	double fd = 2 * iqr * pow((double)n, -1.0 / 3);
	double bins;

	if (fd > 0 && fd < w)
		w = fd;
	bins = ceil(range / w);
	if (!(bins >= 1))
		bins = 1;
	return bins > (double)n ? n : (size_t)bins;
}

/* Bin edges for sorted values v (discrete: the least first and the largest last will do):
 * one unit bin per integer (discrete) or equal-width auto bins; *nbins receives the count.
 * NULL with the reason in err. */
static double *hist_breaks(const double *v, size_t n, int discrete, size_t var,
                           size_t *nbins, fb_error *err)
{
	double lo = v[0], hi = v[n - 1], *br;
	size_t nb;

	if (discrete) {
		for (size_t i = 0; i < n; i++)
			if (v[i] != floor(v[i])) {
				fb_fail(err, "cannot fit a discrete histogram to variable %zu: value %g "
				             "is not an integer", var, v[i]);
				return NULL;
			}
		if (hi - lo >= HIST_MAX_DISCRETE_BINS) {
			fb_fail(err, "cannot fit a discrete histogram to variable %zu: its values "
			             "span %g integers, more than %d", var, hi - lo + 1,
			        HIST_MAX_DISCRETE_BINS);
			return NULL;
		}
		nb = (size_t)(hi - lo) + 1;
	} else {
		nb = hi > lo ? hist_auto_bins(v, n) : 1;
	}
	br = malloc((nb + 1) * sizeof *br);
	if (br == NULL) {
		fb_fail(err, "out of memory for a histogram of %zu bins", nb);
		return NULL;
	}
	for (size_t b = 0; b <= nb; b++)
		br[b] = discrete ? lo + (double)b : lo + (hi - lo) * (double)b / (double)nb;
	if (!discrete && hi > lo) {
		br[nb] = hi; /* exactly the maximum, which the closed last bin holds */
	} else if (!discrete) {
		br[0] = lo - 0.5; /* a constant column: one unit bin around its value */
		br[1] = lo + 0.5;
	}
	*nbins = nb;
	return br;
}

/* Move the least of the n values at v to v[0] and the largest to v[n - 1] (what a
 * discrete histogram reads of sorted values; its counts do not depend on the order). */
static void ends_in_place(double *v, size_t n)
{
	size_t lo = 0, hi = 0;
	double t;

	for (size_t i = 1; i < n; i++) {
		lo = v[i] < v[lo] ? i : lo;
		hi = v[i] > v[hi] ? i : hi;
	}
	t = v[0], v[0] = v[lo], v[lo] = t;
	hi = hi == 0 ? lo : hi; /* the largest moved where the least was */
	t = v[n - 1], v[n - 1] = v[hi], v[hi] = t;
}

/* Fit a histogram leaf: bins, Laplace-smoothed densities. */
int fb_leaf_fit_histogram(fb_leaf *leaf, size_t var, int discrete,
                          const fb_column_slice *col, fb_error *err)
{
	double *v = slice_gather(col, var, err), *br = NULL, *dens = NULL;
	size_t nb = 0;
	int rc = FB_ERR;

	memset(leaf, 0, sizeof *leaf);
	if (v == NULL)
		return FB_ERR;
	if (discrete)
		ends_in_place(v, col->n);
	else
		gsl_sort(v, 1, col->n);
	br = hist_breaks(v, col->n, discrete, var, &nb, err);
	if (br == NULL)
		goto out;
	dens = calloc(nb, sizeof *dens);
	if (dens == NULL) {
		fb_fail(err, "out of memory for a histogram of %zu bins", nb);
		goto out;
	}
	for (size_t i = 0; i < col->n; i++)
		dens[hist_bin(br, nb, discrete, v[i])] += 1;
	for (size_t b = 0; b < nb; b++)
		dens[b] = (dens[b] + FB_LEAF_ALPHA) /
		          (((double)col->n + (double)nb * FB_LEAF_ALPHA) * (br[b + 1] - br[b]));
	rc = fb_leaf_histogram(leaf, var, discrete, br, dens, nb, err);
out:
	free(v);
	free(br);
	free(dens);
	return rc;
}

/* log p(x) of a leaf. */
double fb_leaf_logpdf(const fb_leaf *leaf, double x)
{
	size_t k;

	switch (leaf->kind) {
	case FB_LEAF_GAUSSIAN: {
		double z = (x - leaf->mean) / leaf->sd;

		return leaf->log_norm - 0.5 * z * z;
	}
	case FB_LEAF_CATEGORICAL:
		k = level_code(x, leaf->nvalues);
		return k == SIZE_MAX ? -INFINITY : leaf->logp[k];
	case FB_LEAF_HISTOGRAM:
		k = hist_bin(leaf->breaks, leaf->nvalues, leaf->discrete, x);
		return k == SIZE_MAX ? log(FB_LEAF_HIST_FLOOR) : leaf->logp[k];
	}
	return NAN;
}

/* Index of the largest of n values (the first on ties). */
static size_t argmax(const double *p, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (p[i] > p[best])
			best = i;
	return best;
}

/* The leaf's most likely value. */
double fb_leaf_mode(const fb_leaf *leaf)
{
	size_t b;

	switch (leaf->kind) {
	case FB_LEAF_GAUSSIAN:
		return leaf->mean;
	case FB_LEAF_CATEGORICAL:
		return (double)argmax(leaf->p, leaf->nvalues);
	case FB_LEAF_HISTOGRAM:
		b = argmax(leaf->p, leaf->nvalues);
		return leaf->discrete ? leaf->breaks[b] : 0.5 * (leaf->breaks[b] + leaf->breaks[b + 1]);
	}
	return NAN;
}

/* An index drawn from n masses by inverting their cumulative sum at one uniform draw. */
size_t fb_circuit_draw_index(const double *p, const double *breaks, size_t n, gsl_rng *r)
{
	double total = 0, u, acc = 0;
	size_t last = 0;

	for (size_t i = 0; i < n; i++)
		total += p[i] * (breaks != NULL ? breaks[i + 1] - breaks[i] : 1);
	u = gsl_rng_uniform(r) * total;
	for (size_t i = 0; i < n; i++) {
		double m = p[i] * (breaks != NULL ? breaks[i + 1] - breaks[i] : 1);

		if (m <= 0)
			continue;
		acc += m;
		last = i;
		if (u < acc)
			return i;
	}
	return last; /* rounding left u at the very top */
}

/* One value drawn from the leaf. */
double fb_leaf_sample(const fb_leaf *leaf, gsl_rng *r)
{
	size_t b;

	switch (leaf->kind) {
	case FB_LEAF_GAUSSIAN:
		return leaf->mean + gsl_ran_gaussian(r, leaf->sd);
	case FB_LEAF_CATEGORICAL:
		return (double)fb_circuit_draw_index(leaf->p, NULL, leaf->nvalues, r);
	case FB_LEAF_HISTOGRAM:
		b = fb_circuit_draw_index(leaf->p, leaf->breaks, leaf->nvalues, r);
		if (leaf->discrete)
			return leaf->breaks[b];
		return leaf->breaks[b] + gsl_rng_uniform(r) * (leaf->breaks[b + 1] - leaf->breaks[b]);
	}
	return NAN;
}
