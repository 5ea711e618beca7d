/* Decomposable local scores of a variable given a set of parents, higher is better, with a
 * cache: the BIC of a linear Gaussian model and the BDeu of a multinomial one.  GES sums
 * them over the nodes of a DAG and compares differences of them.
 *
 * BIC (linear Gaussian), from the covariance S of the data with divisor n (not n - 1):
 *   s(i, P) = -n/2 (1 + log sigma2) - lambda (|P| + 1) log n,
 *   sigma2 = S_ii - S_iP S_PP^-1 S_Pi  (the residual variance of the least-squares
 *   regression of X_i on X_P), floored at DBL_EPSILON; S_PP is factored by Cholesky, or
 *   pseudo-inverted by SVD when it is singular.  lambda = 1/2 is Schwarz's criterion.
 *
 * BDeu (Heckerman, Geiger and Chickering 1995) with equivalent sample size a:
 *   s(i, P) = sum_j [ lgamma(a/q) - lgamma(N_ij + a/q)
 *                     + sum_k (lgamma(N_ijk + a/(r q)) - lgamma(a/(r q))) ]
 *             + |P| log(rho/m) + (m - |P|) log(1 - rho/m),
 * where r is the number of distinct values X_i takes in the data, q the product of its
 * parents' r, N_ijk the rows with parent configuration j and X_i = k, m = d - 1 and rho the
 * structure prior (the expected number of parents; rho = 0 leaves that term out).  Both
 * are the conventions of causal-learn's local_score_BIC (penalty discount lambda = 0.5) and
 * local_score_BDeu (sample prior 1, structure prior 1).
 *
 * DG (degenerate Gaussian BIC, Andrews, Ramsey and Cooper 2019), for data mixing continuous
 * and discrete columns: each discrete variable becomes indicator columns, one per level
 * that occurs but the first; with w the columns of X_i and W those of its parents (columns
 * that earlier ones determine left out),
 *   s(i, P) = -n/2 (w + log det C(i | P)) - lambda w (W + 1) log n,
 * C(i | P) the covariance (divisor n) of X_i's columns given its parents' (the Schur
 * complement), by a Cholesky factor in plain loops.  With every variable continuous it is
 * the BIC above (without the floor and pseudo-inverse). */
#ifndef FEDBN_LSCORE_H
#define FEDBN_LSCORE_H

#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"

/* Which local score. */
enum fb_lscore_kind {
	FB_LSCORE_BIC = 0,  /* linear Gaussian BIC */
	FB_LSCORE_BDEU = 1, /* discrete BDeu */
	FB_LSCORE_DG = 2,   /* degenerate Gaussian BIC, for mixed data */
};

/* The score's settings. */
typedef struct fb_lscore_options {
	enum fb_lscore_kind kind; /* BIC or BDeu */
	double lambda;            /* BIC and DG: penalty discount (0.5: Schwarz) */
	double ess;               /* BDeu: equivalent sample size a (> 0) */
	double structure_prior;   /* BDeu: expected number of parents rho (0: no such term) */
} fb_lscore_options;

/* A local score over one dataset with its cache. */
typedef struct fb_lscore fb_lscore;

/* A local score over ds (which must outlive it); NULL with the reason (no rows, a wrong
 * setting, out of memory).  Free with fb_lscore_free. */
fb_lscore *fb_lscore_alloc(const fb_dataset *ds, const fb_lscore_options *o, fb_error *err);
/* Free a local score (NULL is fine). */
void fb_lscore_free(fb_lscore *s);
/* s(i, P) for the np parents in pa (any order, no repeats, none equal to i), from the cache
 * when it was asked before; FB_ERR with the reason (out of memory). */
int fb_lscore_get(fb_lscore *s, size_t i, const size_t *pa, size_t np, double *out,
                  fb_error *err);
/* How many distinct local scores were computed (cache misses) so far. */
size_t fb_lscore_computed(const fb_lscore *s);

/* A caller's scratch for computing scores, so that several threads can ask at once.  Each
 * node keeps its own cache: calls of fb_lscore_get_at with different works may run at the
 * same time as long as no two of them (nor fb_lscore_get) ask for the same node i.  A score
 * has the same bits whichever work computed it, and the count of scores computed does not
 * depend on who asked first. */
typedef struct fb_lscore_work fb_lscore_work;

/* Scratch for s's scores (freed with fb_lscore_work_free, before s); NULL with the reason
 * (out of memory). */
fb_lscore_work *fb_lscore_work_alloc(const fb_lscore *s, fb_error *err);
/* Free a work (NULL is fine). */
void fb_lscore_work_free(fb_lscore_work *w);
/* fb_lscore_get with w's scratch. */
int fb_lscore_get_at(fb_lscore *s, fb_lscore_work *w, size_t i, const size_t *pa, size_t np,
                     double *out, fb_error *err);

#endif
