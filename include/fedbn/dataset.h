/* A dataset: an n x d matrix of doubles, row-major, with named variables that are either
 * continuous or discrete.  Discrete values are stored as level codes 0..L-1 (as doubles). */
#ifndef FEDBN_DATASET_H
#define FEDBN_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"

/* The kind of one variable. */
enum fb_kind {
	FB_CONTINUOUS = 0, /* real values */
	FB_DISCRETE = 1,   /* level codes into levels[] */
};

/* One variable (column). */
typedef struct fb_var {
	char *name;         /* unique, non-empty (owned) */
	enum fb_kind kind;  /* continuous or discrete */
	size_t nlevels;     /* discrete: number of levels; 0 for continuous */
	char **levels;      /* discrete: level labels in code order (owned); NULL for continuous */
	size_t missing;     /* missing values the source had in this column (their rows were
	                       dropped); 0 for data made in memory */
} fb_var;

/* Which part of a dataset a row belongs to: learners fit the training rows only; the
 * validation rows choose settings, the test rows measure. */
enum fb_part {
	FB_PART_TRAIN = 0, /* rows a learner fits */
	FB_PART_VALID = 1, /* held out to choose settings */
	FB_PART_TEST = 2,  /* held out to measure */
};
/* How many parts there are. */
#define FB_NPARTS 3
/* Their names: "train", "valid", "test". */
extern const char *const fb_part_names[FB_NPARTS];

/* A dataset; owns all its memory. */
typedef struct fb_dataset {
	size_t n;      /* rows */
	size_t d;      /* columns */
	double *x;     /* n*d values, row-major: x[i*d + j] */
	fb_var *vars;  /* d variables */
	unsigned char *part; /* per row its enum fb_part, or NULL when every row is for training
	                        (owned) */
	bool view;     /* x points into another dataset's rows and is not owned (see
	                  fb_dataset_rows_view); false for every dataset that owns its values */
} fb_dataset;

/* Allocate an n x d dataset of zeros with continuous variables named X1..Xd; NULL on
 * out-of-memory.  Caller frees with fb_dataset_free. */
fb_dataset *fb_dataset_alloc(size_t n, size_t d);
/* Free a dataset (NULL is fine). */
void fb_dataset_free(fb_dataset *ds);
/* Deep copy; NULL on out-of-memory. */
fb_dataset *fb_dataset_copy(const fb_dataset *ds);

/* Value at row i, column j. */
static inline double fb_dataset_get(const fb_dataset *ds, size_t i, size_t j)
{
	return ds->x[i * ds->d + j];
}

/* Set variable j's name (copied); refuses an empty name or one another variable has. */
int fb_dataset_set_name(fb_dataset *ds, size_t j, const char *name, fb_error *err);
/* Make variable j discrete with the given level labels (copied; at least one, all distinct),
 * replacing any levels it had.  The stored codes are not checked. */
int fb_dataset_set_levels(fb_dataset *ds, size_t j, char *const *levels, size_t nlevels,
                          fb_error *err);
/* Index of the variable called name, or -1. */
int fb_dataset_find(const fb_dataset *ds, const char *name);

/* A view of rows [first, first + nrows) of ds: its values are read in place, not copied,
 * while its variables and the rows' parts are its own copies.  ds must outlive the view and
 * its values stay unchanged while the view lives (fb_dataset_copy of a view owns its
 * values).  NULL on out-of-memory or rows past ds's end. */
fb_dataset *fb_dataset_rows_view(const fb_dataset *ds, size_t first, size_t nrows);

/* A new dataset holding the given rows and columns (in the given orders), with the same
 * variable metadata.  rows == NULL means all rows; cols == NULL means all columns (nrows or
 * ncols is then ignored).  NULL on out-of-memory or an index out of range. */
fb_dataset *fb_dataset_subset(const fb_dataset *ds, const size_t *rows, size_t nrows,
                              const size_t *cols, size_t ncols);

/* A copy of the d variable names as an array (caller frees with fb_names_free). */
char **fb_dataset_names(const fb_dataset *ds);
/* Free d names and their array (NULL is fine). */
void fb_names_free(char **names, size_t d);

/* Count of discrete variables. */
size_t fb_dataset_n_discrete(const fb_dataset *ds);

/* The part row i belongs to. */
static inline enum fb_part fb_dataset_part(const fb_dataset *ds, size_t i)
{
	return ds->part != NULL ? (enum fb_part)ds->part[i] : FB_PART_TRAIN;
}
/* How many rows belong to part p. */
size_t fb_dataset_part_count(const fb_dataset *ds, enum fb_part p);
/* Whether some rows are held out (belong to the validation or test part). */
int fb_dataset_has_heldout(const fb_dataset *ds);
/* The ids of the rows of part p, ascending, into a new array (caller frees; NULL when there
 * are none, with *n = 0). */
size_t *fb_dataset_part_rows(const fb_dataset *ds, enum fb_part p, size_t *n);
/* A new dataset of the rows of part p (without a part array); NULL on out of memory. */
fb_dataset *fb_dataset_part_subset(const fb_dataset *ds, enum fb_part p);
/* Hold out shares of ds's rows: a seeded shuffle (stream "holdout" of seed) puts the first
 * round(test n) rows in the test part, the next round(valid n) in the validation part and
 * the rest in the training part; the rows keep their order.  FB_ERR, ds unchanged, unless
 * test, valid >= 0, test + valid < 1 and at least one row stays for training. */
int fb_dataset_hold_out(fb_dataset *ds, double test, double valid, uint64_t seed,
                        fb_error *err);
/* Standardise ds's continuous columns in place as scikit-learn's StandardScaler does:
 * subtract the mean of the column's training rows and divide by their population standard
 * deviation (sum of squared deviations over n, ddof = 0), the same figures for the held-out
 * rows; discrete columns are left as they are.  A column whose training rows all hold one
 * value is centred only (its values become 0; StandardScaler's scale 1), and constant[j]
 * (when constant is not NULL, d entries) says which.  FB_ERR, ds unchanged, when no row is
 * for training or a column's mean or standard deviation is not finite. */
int fb_dataset_standardize(fb_dataset *ds, bool *constant, fb_error *err);
/* Cut every continuous column of ds, in place, into at most k equal-frequency bins: the
 * cut points are the training rows' values of rank floor(ntrain l / k), l = 1..k-1, each
 * kept once (a column with few distinct values gets fewer bins, a constant one a single
 * level), a value's bin is how many cut points it reaches, and the held-out rows are cut by
 * the same points.  Levels are labelled by their intervals ("<1.2", "[1.2,3.4)", ">=3.4").
 * FB_ERR, ds unchanged, when k < 2 or no row is for training. */
int fb_dataset_bin(fb_dataset *ds, size_t k, fb_error *err);
/* The rows of parts[0..k-1] one after the other, in a new dataset whose rows belong to
 * part which[i] of parts[i]; the datasets must have the same variable names and kinds, and
 * a discrete variable's labels are merged (those of the first, then new ones in order of
 * appearance), its codes mapped to them.  NULL with the reason. */
fb_dataset *fb_dataset_stack(const fb_dataset *const *parts, const enum fb_part *which,
                             size_t k, fb_error *err);

#endif
