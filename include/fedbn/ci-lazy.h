/* Fisher-z with correlations on demand: a test object that holds no d x d correlation matrix
 * but computes an entry from its data's rows when a test asks for it, keeping what it
 * computed in a bounded table.  For runs whose clients cannot each hold a matrix (FedPC at
 * thousands of variables).  Its entries are sums over the rows in order, a few ulps from the
 * BLAS products of fb_ci_alloc's matrix, so p-values agree to about 1e-12, not bit for bit. */
#ifndef FEDBN_CI_LAZY_H
#define FEDBN_CI_LAZY_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/ci.h"

/* A Fisher-z object over ds (which it reads, never owns: it must outlive the object or be
 * replaced by fb_ci_lazy_bind) whose variable r is column col_of[r] of ds (col_of NULL: the
 * columns in order); opt's test must be fisher-z or auto.  NULL with the reason. */
fb_ci *fb_ci_alloc_lazy(const fb_dataset *ds, const size_t *col_of, const fb_ci_options *opt,
                        fb_error *err);
/* Whether ci computes its correlations on demand. */
bool fb_ci_is_lazy(const fb_ci *ci);
/* Read the rows from ds (the same values, held elsewhere) from now on; FB_ERR when its shape
 * differs or ci keeps a matrix. */
int fb_ci_lazy_bind(fb_ci *ci, const fb_dataset *ds, fb_error *err);
/* Compute the entries of np pairs (i, j), i < j, given as 2 np variables, in one pass over
 * the rows, and keep them (as many as the table holds); the list is reordered.  Nothing for an
 * object that keeps its matrix. */
int fb_ci_lazy_prefetch(fb_ci *ci, size_t *pairs, size_t np, fb_error *err);
/* The correlations of variables [i0, i1) with [j0, j1) into out, (i1 - i0) x (j1 - j0)
 * row-major, from one BLAS product (not kept: for PC's level 0, which asks each pair once). */
int fb_ci_lazy_block(fb_ci *ci, size_t i0, size_t i1, size_t j0, size_t j1, double *out,
                     fb_error *err);
/* Forget the entries kept (they are computed again, the same bits, when asked) and give
 * their memory back. */
void fb_ci_lazy_forget(fb_ci *ci);
/* Give back the memory fb_ci_lazy_block keeps for the next block. */
void fb_ci_lazy_blocks_done(fb_ci *ci);
/* Fisher-z given the empty set of a pair whose correlation is r at level alpha: true when
 * independent (p > alpha), decided as fb_ci_independent decides it.  Counts nothing. */
bool fb_ci_lazy_indep0(fb_ci *ci, double r, double alpha);
/* How many entries ci keeps now (0 for an object that keeps its matrix). */
size_t fb_ci_lazy_kept(const fb_ci *ci);

#endif
