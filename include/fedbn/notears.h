/* Linear NOTEARS (Zheng et al. 2018; ALGORITHMS.md §2) as a GSL-style stepper, and the
 * post-processing that turns a weight matrix into a graph (§4.3).
 *
 *	fb_notears_options opt;
 *	fb_notears_options_init(&opt);
 *	nt = fb_notears_alloc(ds, &opt, &err);
 *	while (!fb_notears_done(nt))
 *		if (fb_notears_step(nt, &round, &err) != FB_OK)
 *			...;
 *	g = fb_weights_to_dag(fb_notears_weights(nt), opt.w_threshold, names, &pruned, &err);
 *
 * One step is one outer iteration of the augmented Lagrangian: L-BFGS solves, with the
 * penalty rho multiplied by 10 and the solve repeated from the last accepted point while
 * h has not dropped below a quarter of its previous value, then the multiplier update. */
#ifndef FEDBN_NOTEARS_H
#define FEDBN_NOTEARS_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_matrix.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"

/* The data-fit term. */
enum fb_notears_loss {
	FB_NOTEARS_L2 = 0, /* least squares on centred data: ||X - XW||_F^2 / (2n) */
};

/* How each augmented-Lagrangian subproblem min loss + lambda1 |W|_1 + penalty is solved.
 * Both reach the same minimiser; they differ in speed and in the iterates. */
enum fb_notears_solver {
	FB_NOTEARS_OWLQN = 0, /* liblbfgs's OWL-QN on the d(d-1) off-diagonal entries, the l1
	                         term handled by the method (the default: on the shared data it
	                         needs 3 to 6 times fewer evaluations than the split) */
	FB_NOTEARS_SPLIT = 1, /* the reference formulation: W = W+ - W-, 2d^2 bounded variables
	                         (diagonals fixed at 0), NLopt's L-BFGS with bounds */
	FB_NOTEARS_LBFGSB = 2, /* the same split solved by L-BFGS-B 3.0 (liblbfgsb), the
	                          algorithm and stopping rules of the reference's scipy call */
};

/* Settings of one NOTEARS run; fb_notears_options_init fills the defaults. */
typedef struct fb_notears_options {
	double lambda1;     /* l1 weight (0.01, the NOTEARS-ADMM paper's lambda; the NOTEARS
	                       demo uses 0.1, which prunes more and suits small n) */
	size_t max_iter;    /* most outer iterations (100) */
	double h_tol;       /* stop once h(W) <= h_tol (1e-8) */
	double rho_max;     /* stop once rho >= rho_max (1e16); must exceed 1 */
	double w_threshold; /* |w| <= this is no edge, for the edge count of each round and
	                       for callers' post-processing (0.3) */
	enum fb_notears_loss loss; /* the data-fit term (least squares) */
	enum fb_notears_solver solver; /* the subproblem solver (OWL-QN) */
	size_t lbfgs_memory;   /* L-BFGS correction pairs (10, as scipy) */
	size_t lbfgs_max_eval; /* most evaluations per L-BFGS solve (15000, as scipy) */
	double lbfgs_ftol;     /* relative change of the objective that ends a solve (2.2e-9,
	                          scipy's factr 1e7 times the machine epsilon) */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL
	                          (read by fb_notears_alloc, not kept): each forbidden entry of W
	                          (tiers included) is held at 0 by every solver, each required
	                          one is left out of the l1 term */
} fb_notears_options;

/* What one step (outer iteration) did. */
typedef struct fb_notears_round {
	size_t iter;       /* outer iterations done, this one included (1, 2, ...) */
	double objective;  /* loss + lambda1 |W|_1 + rho/2 h^2 + alpha h at the accepted point,
	                      with the rho and alpha that solve used */
	double loss;       /* the data-fit term at the accepted W */
	double l1;         /* |W|_1 at the accepted W */
	double h;          /* h(W) at the accepted W */
	double rho;        /* the penalty after this round's increases */
	double alpha;      /* the multiplier after this round's update */
	size_t solves;     /* L-BFGS solves this round (1 + the rho increases) */
	size_t evals;      /* objective evaluations this round, all solves */
	size_t edges;      /* entries of W with |w| > w_threshold */
	int lbfgs_code;    /* the solver library's result code of the last solve */
} fb_notears_round;

/* A NOTEARS run in progress (opaque). */
typedef struct fb_notears fb_notears;

/* Fill opt with the defaults (values in the field comments), read from the notears learner's
 * parameter table, the one place they are written. */
void fb_notears_options_init(fb_notears_options *opt);
/* Fill opt from the notears learner's parameters (p holds its table); loss, solver and the
 * lbfgs_ fields, which are no parameters, take the values in their comments. */
void fb_notears_options_from_params(const fb_params *p, fb_notears_options *opt);

/* Start a run on ds (opt NULL: defaults).  Every column must be continuous and finite,
 * n >= 1 and d >= 2.  ds is only read here (its centred second moments are kept), so it may be
 * freed afterwards.  NULL with err naming the input at fault; free with fb_notears_free. */
fb_notears *fb_notears_alloc(const fb_dataset *ds, const fb_notears_options *opt,
                             fb_error *err);

/* Do one outer iteration and fill out (may be NULL).  FB_ERR when the run is already done
 * or an L-BFGS solve failed (the run is then done, W stays at the last accepted point). */
int fb_notears_step(fb_notears *nt, fb_notears_round *out, fb_error *err);

/* True once h <= h_tol, rho >= rho_max, max_iter rounds were done, or a step failed. */
bool fb_notears_done(const fb_notears *nt);

/* The current unthresholded W (d x d, row = parent), owned by nt and valid until the next
 * step or fb_notears_free. */
const gsl_matrix *fb_notears_weights(const fb_notears *nt);

/* The data-fit term at any d x d W and, when grad != NULL, its gradient (d x d); uses nt's
 * data and scratch (not thread-safe).  FB_ERR on a size mismatch. */
int fb_notears_loss(fb_notears *nt, const gsl_matrix *W, double *loss, gsl_matrix *grad,
                    fb_error *err);

/* Free a run (NULL is fine). */
void fb_notears_free(fb_notears *nt);

/* From weights to graphs (postprocess.c).  Entries with |w| <= threshold are no edge; the
 * diagonal is never an edge (graphs hold no self-loops).  names: d node names, or NULL for
 * X1..Xd.  The result is weighted (w[i*d+j] = W_ij); the caller frees it. */

/* A DAG: threshold, then while a cycle remains delete the remaining edge of smallest |w|
 * (ties: the later entry in row-major order first) - the "threshold till DAG" of the
 * NOTEARS-ADMM code, which would also count a self-loop as a cycle; here self-loops are
 * simply dropped.  *pruned (may be NULL) tells whether edges or self-loops above the
 * threshold had to go.  NULL with err on a non-square or non-finite W, a bad threshold or
 * an empty name. */
fb_graph *fb_weights_to_dag(const gsl_matrix *W, double threshold, char *const *names,
                            bool *pruned, fb_error *err);

/* Threshold only; the result may be cyclic.  Where both W_ij and W_ji pass, the larger |w|
 * is kept (the one with i < j on a tie), since a graph holds one relation per pair. */
fb_graph *fb_weights_to_graph(const gsl_matrix *W, double threshold, char *const *names,
                              fb_error *err);

#endif
