/* What the files of src/lib/bn share: a fit's job (its families and the summed statistics)
 * and the halves' arithmetic. */
#ifndef FEDBN_BN_PRIVATE_H
#define FEDBN_BN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/bnfit.h"

/* Most columns of one family (a variable and its parents). */
#define FB_FIT_MAX_FAMILY 32

/* A variable and its parents, and where its statistics sit in a client's vector. */
typedef struct fb_family {
	size_t nparents; /* parents */
	size_t *parents; /* their global indices, ascending (owned by the job) */
	size_t start;    /* first number of its statistics */
	size_t owner;    /* the client that sends them, or SIZE_MAX: every client (horizontal) */
} fb_family;

/* One fit: what the server and the clients' halves share. */
typedef struct fb_fit_job {
	const fb_partition *part; /* the clients (each half reads only its own) */
	fb_dataset *whole;    /* the variables' names, kinds and levels, no rows (owned) */
	size_t d;             /* variables */
	bool discrete;        /* tables (else regressions) */
	fb_family *fam;       /* d families (owned) */
	size_t len;           /* numbers in a client's vector */
	double *stats;        /* len numbers: the federation's sum (owned) */
	size_t clients;       /* clients in the sum */
} fb_fit_job;

/* The global variables of p (names, kinds, levels) as a dataset of one row of zeros; NULL
 * with a sentence on out of memory. */
fb_dataset *fb_fit_global_vars(const fb_partition *p, fb_error *err);
/* Add the counts of family fm (local columns cols: parents, then the variable) over the
 * training rows of ds to v (q r cells, configuration-major, first parent slowest). */
void fb_fit_count(const fb_dataset *ds, const fb_family *fm, const size_t *cols, double *v);
/* Limbs an exact sum of products takes in a family's moments (fit-gauss.c). */
#define FB_FIT_LIMBS 25
/* Add the moments of family fm's m columns over ds's training rows to v: the row count, then
 * FB_FIT_LIMBS limbs of the exact sum of each of the m columns and of the m(m+1)/2
 * cross-products of the upper triangle (fit-gauss.c); FB_ERR naming a value beyond their
 * range. */
int fb_fit_moments(const fb_dataset *ds, const fb_family *fm, const size_t *cols, double *v,
                   fb_error *err);
/* The tables from the summed counts into fit->bn. */
int fb_fit_tables(const fb_fit_job *job, const fb_bnfit_options *o, fb_bnfit *fit,
                  fb_error *err);
/* The regressions from the summed moments into fit->gbn. */
int fb_fit_regressions(const fb_fit_job *job, fb_bnfit *fit, fb_error *err);
/* Log-density of row i of ds (the network's columns) under g. */
double fb_gbn_row_loglik(const fb_gbn *g, const fb_dataset *ds, size_t i);
/* Draw n rows of g into x (n x d, row-major) from r: d standard normals per row in column
 * order, then the variables in topological order. */
void fb_gbn_sample_rows(const fb_gbn *g, size_t n, gsl_rng *r, double *x);
/* Free a Gaussian network (NULL is fine). */
void fb_gbn_free(fb_gbn *g);

#endif
