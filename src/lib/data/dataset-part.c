/* Held-out parts of a dataset: which rows train, which choose settings, which measure;
 * seeded shares of one dataset, or several files stacked as parts; columns standardised by
 * the training rows. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/dataset.h"

/* The parts' names, in enum order. */
const char *const fb_part_names[FB_NPARTS] = { "train", "valid", "test" };

/* How many rows belong to part p. */
size_t fb_dataset_part_count(const fb_dataset *ds, enum fb_part p)
{
	size_t count = 0;

	for (size_t i = 0; i < ds->n; i++)
		count += fb_dataset_part(ds, i) == p;
	return count;
}

/* Whether some rows are held out. */
int fb_dataset_has_heldout(const fb_dataset *ds)
{
	return fb_dataset_part_count(ds, FB_PART_TRAIN) < ds->n;
}

/* The ids of the rows of part p. */
size_t *fb_dataset_part_rows(const fb_dataset *ds, enum fb_part p, size_t *n)
{
	size_t *rows;

	*n = fb_dataset_part_count(ds, p);
	if (*n == 0)
		return NULL;
	rows = fb_xcalloc(*n, sizeof *rows);
	for (size_t i = 0, m = 0; i < ds->n; i++)
		if (fb_dataset_part(ds, i) == p)
			rows[m++] = i;
	return rows;
}

/* A new dataset of the rows of part p. */
fb_dataset *fb_dataset_part_subset(const fb_dataset *ds, enum fb_part p)
{
	size_t n, *rows = fb_dataset_part_rows(ds, p, &n);
	fb_dataset *out = fb_dataset_subset(ds, rows != NULL ? rows : (size_t[]){ 0 }, n, NULL, 0);

	free(rows);
	if (out != NULL) {
		free(out->part);
		out->part = NULL;
	}
	return out;
}

/* Hold out seeded shares of the rows. */
int fb_dataset_hold_out(fb_dataset *ds, double test, double valid, uint64_t seed,
                        fb_error *err)
{
	size_t nt, nv, *idx;
	gsl_rng *r;

	if (!(test >= 0 && valid >= 0 && test + valid < 1))
		return fb_fail(err, "the held-out shares test=%g and valid=%g must be at least 0 "
		                    "and add to less than 1", test, valid);
	nt = (size_t)llround(test * (double)ds->n);
	nv = (size_t)llround(valid * (double)ds->n);
	if (nt + nv >= ds->n)
		return fb_fail(err, "holding out %zu test and %zu validation rows of %zu leaves no "
		                    "row for training", nt, nv, ds->n);
	idx = fb_xcalloc(ds->n, sizeof *idx);
	for (size_t i = 0; i < ds->n; i++)
		idx[i] = i;
	r = fb_rng_stream(seed, "holdout");
	fb_rng_shuffle(r, idx, ds->n);
	gsl_rng_free(r);
	free(ds->part);
	ds->part = fb_xcalloc(ds->n > 0 ? ds->n : 1, 1);
	for (size_t i = 0; i < nt + nv; i++)
		ds->part[idx[i]] = i < nt ? FB_PART_TEST : FB_PART_VALID;
	free(idx);
	return FB_OK;
}

/* FB_OK when b has a's variable names and kinds. */
static int stack_check(const fb_dataset *a, const fb_dataset *b, size_t i, fb_error *err)
{
	if (a->d != b->d)
		return fb_fail(err, "part %zu has %zu variables and the first %zu", i + 1, b->d,
		               a->d);
	for (size_t j = 0; j < a->d; j++) {
		if (strcmp(a->vars[j].name, b->vars[j].name) != 0)
			return fb_fail(err, "part %zu names variable %zu '%s' and the first '%s'", i + 1,
			               j + 1, b->vars[j].name, a->vars[j].name);
		if (a->vars[j].kind != b->vars[j].kind)
			return fb_fail(err, "variable '%s' is %s in part %zu and %s in the first",
			               a->vars[j].name,
			               b->vars[j].kind == FB_DISCRETE ? "discrete" : "continuous", i + 1,
			               a->vars[j].kind == FB_DISCRETE ? "discrete" : "continuous");
	}
	return FB_OK;
}

/* The code of label among the n merged labels, appended when new. */
static size_t merged_code(char ***labels, size_t *n, const char *label)
{
	for (size_t l = 0; l < *n; l++)
		if (strcmp((*labels)[l], label) == 0)
			return l;
	*labels = fb_xreallocarray(*labels, *n + 1, sizeof **labels);
	(*labels)[*n] = fb_xstrdup(label);
	return (*n)++;
}

/* Merge discrete variable j's labels over the k parts into out, mapping the codes of the
 * rows copied from each part (part i's rows start at row first[i]). */
static int stack_levels(fb_dataset *out, const fb_dataset *const *parts, const size_t *first,
                        size_t k, size_t j, fb_error *err)
{
	char **labels = NULL;
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < k; i++) {
		const fb_var *v = &parts[i]->vars[j];
		size_t *map = fb_xcalloc(v->nlevels > 0 ? v->nlevels : 1, sizeof *map);

		for (size_t l = 0; l < v->nlevels; l++)
			map[l] = merged_code(&labels, &n, v->levels[l]);
		for (size_t r = 0; r < parts[i]->n; r++) {
			double *x = &out->x[(first[i] + r) * out->d + j];

			*x = (double)map[(size_t)*x];
		}
		free(map);
	}
	rc = n > 0 ? fb_dataset_set_levels(out, j, labels, n, err) : FB_OK;
	fb_names_free(labels, n);
	return rc;
}

/* The rows of the parts one after the other. */
fb_dataset *fb_dataset_stack(const fb_dataset *const *parts, const enum fb_part *which,
                             size_t k, fb_error *err)
{
	size_t n = 0, *first = fb_xcalloc(k > 0 ? k : 1, sizeof *first);
	fb_dataset *out = NULL;

	for (size_t i = 0; i < k; i++) {
		if (stack_check(parts[0], parts[i], i, err) != FB_OK)
			goto fail;
		first[i] = n;
		n += parts[i]->n;
	}
	out = fb_dataset_subset(parts[0], (size_t[]){ 0 }, 0, NULL, 0);
	if (out == NULL) {
		fb_fail(err, "out of memory stacking the parts");
		goto fail;
	}
	free(out->x);
	free(out->part);
	out->x = fb_xcalloc(n * out->d > 0 ? n * out->d : 1, sizeof *out->x);
	out->n = n;
	out->part = fb_xcalloc(n > 0 ? n : 1, 1);
	for (size_t i = 0; i < k; i++) {
		memcpy(out->x + first[i] * out->d, parts[i]->x, parts[i]->n * out->d * sizeof *out->x);
		memset(out->part + first[i], (int)which[i], parts[i]->n);
	}
	for (size_t j = 0; j < out->d; j++)
		if (out->vars[j].kind == FB_DISCRETE &&
		    stack_levels(out, parts, first, k, j, err) != FB_OK)
			goto fail;
	free(first);
	return out;
fail:
	fb_dataset_free(out);
	free(first);
	return NULL;
}

/* Whether every training row of column j holds one value (ds has at least one training
 * row), which goes to *value. */
static bool train_constant(const fb_dataset *ds, size_t j, double *value)
{
	bool seen = false;

	for (size_t i = 0; i < ds->n; i++) {
		if (fb_dataset_part(ds, i) != FB_PART_TRAIN)
			continue;
		if (seen && fb_dataset_get(ds, i, j) != *value)
			return false;
		*value = fb_dataset_get(ds, i, j);
		seen = true;
	}
	return true;
}

/* The mean and population standard deviation of column j over the ntrain training rows:
 * the sum over ntrain, then the root of the mean squared deviation from it. */
static void train_moments(const fb_dataset *ds, size_t j, size_t ntrain, double *mean,
                          double *sd)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < ds->n; i++)
		if (fb_dataset_part(ds, i) == FB_PART_TRAIN)
			s += fb_dataset_get(ds, i, j);
	*mean = s / (double)ntrain;
	for (size_t i = 0; i < ds->n; i++)
		if (fb_dataset_part(ds, i) == FB_PART_TRAIN)
			ss += (fb_dataset_get(ds, i, j) - *mean) * (fb_dataset_get(ds, i, j) - *mean);
	*sd = sqrt(ss / (double)ntrain);
}

/* Each continuous column's centre and scale into mean[] and scale[], and whether it is
 * constant on the training rows into flat[] (centre its value, scale 1); FB_ERR naming the
 * first column whose figures are not finite. */
static int standardize_figures(const fb_dataset *ds, size_t ntrain, double *mean,
                               double *scale, bool *flat, fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++) {
		double value = 0;

		if (ds->vars[j].kind != FB_CONTINUOUS)
			continue;
		train_moments(ds, j, ntrain, &mean[j], &scale[j]);
		if (!isfinite(mean[j]) || !isfinite(scale[j]))
			return fb_fail(err, "column '%s' cannot be standardised: the %s of its %zu "
			                    "training rows is not finite", ds->vars[j].name,
			               isfinite(mean[j]) ? "standard deviation" : "mean", ntrain);
		if ((flat[j] = train_constant(ds, j, &value))) {
			mean[j] = value;
			scale[j] = 1;
		}
	}
	return FB_OK;
}

/* Standardise the continuous columns by the training rows' mean and population sd. */
int fb_dataset_standardize(fb_dataset *ds, bool *constant, fb_error *err)
{
	size_t ntrain = fb_dataset_part_count(ds, FB_PART_TRAIN), d = ds->d > 0 ? ds->d : 1;
	double *mean = fb_xcalloc(d, sizeof *mean), *scale = fb_xcalloc(d, sizeof *scale);
	bool *flat = fb_xcalloc(d, sizeof *flat);
	int rc = ntrain == 0 ? fb_fail(err, "there is no training row to standardise by")
	                     : standardize_figures(ds, ntrain, mean, scale, flat, err);

	for (size_t j = 0; rc == FB_OK && j < ds->d; j++) {
		if (constant != NULL)
			constant[j] = flat[j];
		if (ds->vars[j].kind != FB_CONTINUOUS)
			continue;
		for (size_t i = 0; i < ds->n; i++)
			ds->x[i * ds->d + j] = (ds->x[i * ds->d + j] - mean[j]) / scale[j];
	}
	free(mean);
	free(scale);
	free(flat);
	return rc;
}

/* Compare two doubles for qsort. */
static int bin_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The cut points of continuous column j into at most k equal-frequency bins of its ntrain
 * training rows: the values of rank floor(ntrain l / k), l = 1..k-1, each kept once and
 * only when above the smallest value, into cut (room for k - 1); how many. */
static size_t bin_cuts(const fb_dataset *ds, size_t j, size_t k, size_t ntrain, double *cut)
{
	double *v = fb_xmalloc(ntrain * sizeof *v);
	size_t m = 0, c = 0;

	for (size_t i = 0; i < ds->n; i++)
		if (fb_dataset_part(ds, i) == FB_PART_TRAIN)
			v[m++] = ds->x[i * ds->d + j];
	qsort(v, m, sizeof *v, bin_cmp);
	for (size_t l = 1; l < k; l++) {
		double t = v[m * l / k];

		if (t > v[0] && (c == 0 || t > cut[c - 1]))
			cut[c++] = t;
	}
	free(v);
	return c;
}

/* Labels of the c + 1 bins of column j: "<=a", "(a,b]", ..., ">z" with the cut points. */
static int bin_label(fb_dataset *ds, size_t j, const double *cut, size_t c, fb_error *err)
{
	char **lab = fb_xcalloc(c + 1, sizeof *lab);
	int rc;

	for (size_t b = 0; b <= c; b++)
		lab[b] = b == 0   ? fb_xasprintf("<%.4g", cut[0])
		         : b == c ? fb_xasprintf(">=%.4g", cut[c - 1])
		                  : fb_xasprintf("[%.4g,%.4g)", cut[b - 1], cut[b]);
	rc = fb_dataset_set_levels(ds, j, lab, c + 1, err);
	for (size_t b = 0; b <= c; b++)
		free(lab[b]);
	free(lab);
	return rc;
}

/* The one level of a constant column's bin. */
static char bin_all_label[] = "all";
static char *const bin_all[] = { bin_all_label };

/* Cut every continuous column of ds into at most k equal-frequency bins of its training
 * rows (held-out rows by the same cut points); a column with fewer distinct values gets
 * fewer bins, and a constant one a single level. */
int fb_dataset_bin(fb_dataset *ds, size_t k, fb_error *err)
{
	size_t ntrain = fb_dataset_part_count(ds, FB_PART_TRAIN);
	double *cut = fb_xcalloc(k, sizeof *cut);
	int rc = FB_OK;

	if (k < 2 || ntrain == 0)
		rc = fb_fail(err, ntrain == 0 ? "there is no training row to bin by"
		                              : "bins=%zu: cut into at least 2 bins", k);
	for (size_t j = 0; j < ds->d && rc == FB_OK; j++) {
		size_t c;

		if (ds->vars[j].kind != FB_CONTINUOUS)
			continue;
		c = bin_cuts(ds, j, k, ntrain, cut);
		for (size_t i = 0; i < ds->n; i++) {
			double x = ds->x[i * ds->d + j];
			size_t b = 0;

			while (b < c && x >= cut[b])
				b++;
			ds->x[i * ds->d + j] = (double)b;
		}
		rc = c == 0 ? fb_dataset_set_levels(ds, j, bin_all, 1, err)
		            : bin_label(ds, j, cut, c, err);
	}
	free(cut);
	return rc;
}
