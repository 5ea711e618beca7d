/* Datasets: an n x d matrix of doubles with named, typed variables. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/dataset.h"

/* strdup with plain malloc: NULL on out-of-memory. */
static char *dup_string(const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = malloc(len);

	if (p != NULL)
		memcpy(p, s, len);
	return p;
}

/* Free the level labels of v and make it continuous. */
static void var_clear_levels(fb_var *v)
{
	for (size_t l = 0; l < v->nlevels; l++)
		free(v->levels[l]);
	free(v->levels);
	v->levels = NULL;
	v->nlevels = 0;
	v->kind = FB_CONTINUOUS;
}

/* Copy nlevels labels into a new array; NULL on out-of-memory. */
static char **levels_copy(char *const *levels, size_t nlevels)
{
	char **out = calloc(nlevels == 0 ? 1 : nlevels, sizeof *out);

	if (out == NULL)
		return NULL;
	for (size_t l = 0; l < nlevels; l++) {
		out[l] = dup_string(levels[l]);
		if (out[l] == NULL) {
			for (size_t m = 0; m < l; m++)
				free(out[m]);
			free(out);
			return NULL;
		}
	}
	return out;
}

/* Copy the metadata of src into dst (dst is zeroed); FB_ERR on out-of-memory. */
static int var_copy(fb_var *dst, const fb_var *src)
{
	dst->name = dup_string(src->name);
	if (dst->name == NULL)
		return FB_ERR;
	dst->kind = src->kind;
	dst->missing = src->missing;
	if (src->kind == FB_DISCRETE && src->nlevels > 0) {
		dst->levels = levels_copy(src->levels, src->nlevels);
		if (dst->levels == NULL)
			return FB_ERR;
		dst->nlevels = src->nlevels;
	}
	return FB_OK;
}

/* An n x d dataset with zeroed values and zeroed (nameless) variables; NULL on OOM. */
static fb_dataset *dataset_alloc_bare(size_t n, size_t d)
{
	fb_dataset *ds;

	if (d != 0 && n > SIZE_MAX / sizeof(double) / d)
		return NULL;
	ds = calloc(1, sizeof *ds);
	if (ds == NULL)
		return NULL;
	ds->n = n;
	ds->d = d;
	ds->x = calloc(n * d == 0 ? 1 : n * d, sizeof *ds->x);
	ds->vars = calloc(d == 0 ? 1 : d, sizeof *ds->vars);
	if (ds->x == NULL || ds->vars == NULL) {
		fb_dataset_free(ds);
		return NULL;
	}
	return ds;
}

/* Allocate an n x d dataset of zeros with continuous variables X1..Xd. */
fb_dataset *fb_dataset_alloc(size_t n, size_t d)
{
	fb_dataset *ds = dataset_alloc_bare(n, d);
	char name[32];

	if (ds == NULL)
		return NULL;
	for (size_t j = 0; j < d; j++) {
		snprintf(name, sizeof name, "X%zu", j + 1);
		ds->vars[j].name = dup_string(name);
		if (ds->vars[j].name == NULL) {
			fb_dataset_free(ds);
			return NULL;
		}
	}
	return ds;
}

/* Free a dataset and everything it owns. */
void fb_dataset_free(fb_dataset *ds)
{
	if (ds == NULL)
		return;
	if (ds->vars != NULL) {
		for (size_t j = 0; j < ds->d; j++) {
			free(ds->vars[j].name);
			var_clear_levels(&ds->vars[j]);
		}
	}
	free(ds->vars);
	if (!ds->view)
		free(ds->x);
	free(ds->part);
	free(ds);
}

/* Deep copy of ds. */
fb_dataset *fb_dataset_copy(const fb_dataset *ds)
{
	return fb_dataset_subset(ds, NULL, ds->n, NULL, ds->d);
}

/* Set variable j's name, refusing empty names and names already used by another variable. */
int fb_dataset_set_name(fb_dataset *ds, size_t j, const char *name, fb_error *err)
{
	char *copy;

	if (j >= ds->d)
		return fb_fail(err, "cannot name variable %zu: the dataset has %zu variables",
		               j + 1, ds->d);
	if (name == NULL || name[0] == '\0')
		return fb_fail(err, "cannot name variable %zu '': a name cannot be empty", j + 1);
	for (size_t k = 0; k < ds->d; k++) {
		if (k != j && ds->vars[k].name != NULL && strcmp(ds->vars[k].name, name) == 0)
			return fb_fail(err, "cannot name variable %zu '%s': variable %zu "
			               "already has that name", j + 1, name, k + 1);
	}
	copy = dup_string(name);
	if (copy == NULL)
		return fb_fail(err, "cannot name variable %zu '%s': out of memory", j + 1, name);
	free(ds->vars[j].name);
	ds->vars[j].name = copy;
	return FB_OK;
}

/* Check that the nlevels labels are present and distinct; FB_ERR naming variable v. */
static int levels_check(const char *v, char *const *levels, size_t nlevels, fb_error *err)
{
	if (nlevels == 0 || levels == NULL)
		return fb_fail(err, "cannot make '%s' discrete: it needs at least one level", v);
	for (size_t a = 0; a < nlevels; a++) {
		if (levels[a] == NULL)
			return fb_fail(err, "cannot make '%s' discrete: level %zu has no label",
			               v, a + 1);
		for (size_t b = 0; b < a; b++) {
			if (strcmp(levels[a], levels[b]) == 0)
				return fb_fail(err, "cannot make '%s' discrete: level '%s' "
				               "is listed twice", v, levels[a]);
		}
	}
	return FB_OK;
}

/* Make variable j discrete with copies of the given level labels. */
int fb_dataset_set_levels(fb_dataset *ds, size_t j, char *const *levels, size_t nlevels,
                          fb_error *err)
{
	char **copy;

	if (j >= ds->d)
		return fb_fail(err, "cannot set the levels of variable %zu: the dataset has "
		               "%zu variables", j + 1, ds->d);
	if (levels_check(ds->vars[j].name, levels, nlevels, err) != FB_OK)
		return FB_ERR;
	copy = levels_copy(levels, nlevels);
	if (copy == NULL)
		return fb_fail(err, "cannot make '%s' discrete: out of memory", ds->vars[j].name);
	var_clear_levels(&ds->vars[j]);
	ds->vars[j].kind = FB_DISCRETE;
	ds->vars[j].levels = copy;
	ds->vars[j].nlevels = nlevels;
	return FB_OK;
}

/* Index of the variable called name, or -1. */
int fb_dataset_find(const fb_dataset *ds, const char *name)
{
	for (size_t j = 0; j < ds->d; j++) {
		if (strcmp(ds->vars[j].name, name) == 0)
			return (int)j;
	}
	return -1;
}

/* True when every index in idx (or 0..count-1 when idx is NULL) is below limit. */
static int indices_valid(const size_t *idx, size_t count, size_t limit)
{
	if (idx == NULL)
		return count <= limit;
	for (size_t i = 0; i < count; i++) {
		if (idx[i] >= limit)
			return 0;
	}
	return 1;
}

/* Give out (made of the given rows of ds, NULL: all) the parts of its rows; FB_ERR on out
 * of memory. */
static int subset_parts(const fb_dataset *ds, const size_t *rows, fb_dataset *out)
{
	out->part = malloc(out->n > 0 ? out->n : 1);
	if (out->part == NULL)
		return FB_ERR;
	for (size_t r = 0; r < out->n; r++)
		out->part[r] = ds->part[rows == NULL ? r : rows[r]];
	return FB_OK;
}

/* A new dataset with the given rows and columns of ds, in the given orders. */
fb_dataset *fb_dataset_subset(const fb_dataset *ds, const size_t *rows, size_t nrows,
                              const size_t *cols, size_t ncols)
{
	fb_dataset *out;

	if (rows == NULL)
		nrows = ds->n;
	if (cols == NULL)
		ncols = ds->d;
	if (!indices_valid(rows, nrows, ds->n) || !indices_valid(cols, ncols, ds->d))
		return NULL;
	out = dataset_alloc_bare(nrows, ncols);
	if (out == NULL)
		return NULL;
	for (size_t c = 0; c < ncols; c++) {
		size_t j = cols == NULL ? c : cols[c];

		if (var_copy(&out->vars[c], &ds->vars[j]) != FB_OK) {
			fb_dataset_free(out);
			return NULL;
		}
	}
	for (size_t r = 0; r < nrows; r++) {
		const double *src = ds->x + (rows == NULL ? r : rows[r]) * ds->d;
		double *dst = out->x + r * ncols;

		if (cols == NULL) {
			memcpy(dst, src, ncols * sizeof *dst);
			continue;
		}
		for (size_t c = 0; c < ncols; c++)
			dst[c] = src[cols[c]];
	}
	if (ds->part != NULL && subset_parts(ds, rows, out) != FB_OK) {
		fb_dataset_free(out);
		return NULL;
	}
	return out;
}

/* A view of rows [first, first + nrows) of ds: copies of its variables and of those rows'
 * parts, the values read in place. */
fb_dataset *fb_dataset_rows_view(const fb_dataset *ds, size_t first, size_t nrows)
{
	fb_dataset *out;

	if (first > ds->n || nrows > ds->n - first || (out = calloc(1, sizeof *out)) == NULL)
		return NULL;
	out->n = nrows;
	out->d = ds->d;
	out->view = true;
	out->x = ds->x + first * ds->d; /* read only: the view never writes its values */
	out->vars = calloc(ds->d == 0 ? 1 : ds->d, sizeof *out->vars);
	if (out->vars == NULL ||
	    (ds->part != NULL && (out->part = malloc(nrows > 0 ? nrows : 1)) == NULL)) {
		fb_dataset_free(out);
		return NULL;
	}
	if (ds->part != NULL)
		memcpy(out->part, ds->part + first, nrows);
	for (size_t j = 0; j < ds->d; j++)
		if (var_copy(&out->vars[j], &ds->vars[j]) != FB_OK) {
			fb_dataset_free(out);
			return NULL;
		}
	return out;
}

/* Count of discrete variables. */
size_t fb_dataset_n_discrete(const fb_dataset *ds)
{
	size_t count = 0;

	for (size_t j = 0; j < ds->d; j++) {
		if (ds->vars[j].kind == FB_DISCRETE)
			count++;
	}
	return count;
}

/* A copy of the variable names as an array. */
char **fb_dataset_names(const fb_dataset *ds)
{
	char **names = fb_xcalloc(ds->d > 0 ? ds->d : 1, sizeof *names);

	for (size_t j = 0; j < ds->d; j++)
		names[j] = fb_xstrdup(ds->vars[j].name);
	return names;
}

/* Free names and their array. */
void fb_names_free(char **names, size_t d)
{
	for (size_t j = 0; names != NULL && j < d; j++)
		free(names[j]);
	free(names);
}
