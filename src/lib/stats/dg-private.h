/* The degenerate Gaussian embedding of data that mixes continuous and discrete columns
 * (Andrews, Ramsey and Cooper 2019): a continuous variable is one column, a discrete one
 * with c levels present in the data is c - 1 indicator columns (the first present level
 * dropped), and every model is a multivariate Gaussian over these columns.  The embedded
 * columns' covariance (divisor n) is all the test and the score read.  Shared by ci-dg.c
 * (the likelihood-ratio test) and lscore.c (the BIC score). */
#ifndef FEDBN_DG_PRIVATE_H
#define FEDBN_DG_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"

/* A dataset embedded. */
typedef struct dg_embed {
	size_t d;      /* variables */
	size_t n;      /* rows */
	size_t D;      /* embedded columns */
	size_t *start; /* d + 1: variable j owns columns start[j] .. start[j + 1] - 1 */
	double *cov;   /* D x D covariance of the columns, divisor n, row-major */
} dg_embed;

/* Embed ds into e: columns and their covariance, in plain loops (no BLAS, so the bits do not
 * depend on the kernel).  FB_ERR with the reason when out of memory. */
int dg_embed_init(dg_embed *e, const fb_dataset *ds, fb_error *err);
/* Free e's memory. */
void dg_embed_release(dg_embed *e);
/* Columns of variable j. */
static inline size_t dg_width(const dg_embed *e, size_t j)
{
	return e->start[j + 1] - e->start[j];
}

/* How dg_factor treats a target column that depends on the columns before it (its squared
 * pivot at or below DG_TOL times its variance). */
enum dg_mode {
	DG_SKIP = 0,  /* leave it out (it adds nothing to the model) */
	DG_FLOOR = 1, /* keep it with its squared pivot at the tolerance: a column that the
	                 columns before it determine is strong evidence, not none */
};

/* The relative tolerance of a squared pivot. */
#define DG_TOL 1e-10

/* Scratch of dg_factor, grown as needed. */
typedef struct dg_work {
	size_t cap;   /* columns there is room for */
	size_t *col;  /* cap: the columns of a factor */
	double *L;    /* cap x cap: the factor */
} dg_work;

/* Free w's memory. */
void dg_work_release(dg_work *w);

/* A Cholesky factor of the covariance over the columns of the ng given variables then those
 * of the tv target variables.  A given column that depends on the columns before it is left
 * out (its count of kept ones into *given_kept, may be NULL).  Target column t (in the order
 * of target's columns) is left out when skip[t] is 1 on entry; else, when it depends on the
 * columns before it, it is left out (mode DG_SKIP: skip[t] becomes 1) or kept at the
 * tolerance (DG_FLOOR); lp[t] gets the log of its squared pivot (0 when left out).  Returns
 * the number of target columns; FB_ERR-free but for memory: (size_t)-1 when out of it. */
size_t dg_factor(const dg_embed *e, const size_t *given, size_t ng, const size_t *target,
                 size_t tv, enum dg_mode mode, unsigned char *skip, double *lp,
                 size_t *given_kept, dg_work *w);
/* Embedded columns of the nv variables v. */
size_t dg_columns(const dg_embed *e, const size_t *v, size_t nv);

#endif
