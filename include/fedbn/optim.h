/* Optimisation helpers shared by the continuous learners: the NOTEARS acyclicity function and
 * adapters over maintained L-BFGS libraries (NLopt, liblbfgs, L-BFGS-B). */
#ifndef FEDBN_OPTIM_H
#define FEDBN_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_matrix.h>

#include "fedbn/core.h"

/* Scratch space for fb_dag_h on d x d matrices (reused across calls, not thread-safe). */
typedef struct fb_dag_h_work fb_dag_h_work;

/* Allocate scratch for d x d; NULL on out-of-memory or d == 0. */
fb_dag_h_work *fb_dag_h_work_alloc(size_t d);
/* Free scratch (NULL is fine). */
void fb_dag_h_work_free(fb_dag_h_work *w);

/* h(W) = tr(exp(W o W)) - d, and when grad != NULL its gradient (exp(W o W))^T o 2W.
 * FB_ERR when the exponential overflows (non-finite entries). */
int fb_dag_h(const gsl_matrix *W, fb_dag_h_work *w, double *h, gsl_matrix *grad, fb_error *err);

/* E = exp(A) for any d x d A (d of the workspace) by scaling and squaring with a Padé
 * approximant (Higham 2005), using w's scratch; E must not be A.  FB_ERR when A is not
 * finite or the result overflows. */
int fb_expm(const gsl_matrix *A, fb_dag_h_work *w, gsl_matrix *E, fb_error *err);

/* An objective for fb_lbfgs: returns f(x) and, when grad != NULL, fills the gradient. */
typedef double (*fb_objective)(const double *x, double *grad, size_t n, void *ctx);

/* Settings of one L-BFGS run (zeros mean the defaults noted). */
typedef struct fb_lbfgs_options {
	size_t memory;       /* stored correction pairs (10) */
	size_t max_eval;     /* most objective evaluations (15000); checked between iterations,
	                        so a line search may run a few evaluations past it */
	double ftol_rel;     /* stop when f changes by less than this, relatively (2.2e-9) */
	double xtol_rel;     /* stop when x changes by less than this, relatively (0: off) */
	const double *lower; /* n lower bounds, or NULL for none */
	const double *upper; /* n upper bounds, or NULL for none */
	double pgtol;        /* fb_lbfgsb only: stop when the largest projected-gradient entry
	                        is at most this (1e-5, scipy's pgtol) */
} fb_lbfgs_options;

/* What one L-BFGS run did. */
typedef struct fb_lbfgs_report {
	double f;        /* the objective at the returned x */
	size_t evals;    /* objective evaluations */
	int code;        /* the library's own result code */
} fb_lbfgs_report;

/* Minimise f from x (in place) with NLopt's L-BFGS (bounds honoured when given).  A run that
 * stops on its evaluation limit or a rounding-limited line search still returns FB_OK with
 * the best x found; FB_ERR only when nothing usable came back. */
int fb_lbfgs(size_t n, double *x, fb_objective f, void *ctx, const fb_lbfgs_options *opt,
             fb_lbfgs_report *rep, fb_error *err);

/* Result codes of fb_lbfgsb (rep->code). */
enum fb_lbfgsb_code {
	FB_LBFGSB_CONVERGED = 0, /* a tolerance was met */
	FB_LBFGSB_LIMIT = 1,     /* the evaluation or iteration limit ended the run */
	FB_LBFGSB_ABNORMAL = 2,  /* the line search failed (common on non-smooth objectives,
	                            which scipy reports as ABNORMAL_TERMINATION_IN_LNSRCH); x is
	                            the last iterate */
	FB_LBFGSB_ERROR = 3,     /* the library refused its input */
};

/* Minimise f from x (in place) with L-BFGS-B 3.0 (Debian's liblbfgsb: the algorithm and the
 * stopping rules of scipy's L-BFGS-B, which the reference Python code calls); bounds are
 * honoured when given, infinite bounds mean none.  Unlike fb_lbfgs, x ends at the library's
 * last iterate, as scipy's does; FB_OK unless the library refused its input or f was never
 * finite there.  xtol_rel must be 0. */
int fb_lbfgsb(size_t n, double *x, fb_objective f, void *ctx, const fb_lbfgs_options *opt,
              fb_lbfgs_report *rep, fb_error *err);

/* Settings of one OWL-QN run (zeros mean the defaults noted). */
typedef struct fb_owlqn_options {
	size_t memory;    /* stored correction pairs (10) */
	size_t max_eval;  /* most objective evaluations (15000); checked between iterations */
	double ftol_rel;  /* stop when one iteration lowers the objective (l1 included) by less
	                     than this, relatively (2.2e-9) */
	double gtol;      /* stop when |pseudo-gradient|_2 < gtol max(1, |x|_2) (1e-5) */
	double l1;        /* weight c of the term c |x|_1 (0: plain L-BFGS) */
	size_t l1_begin;  /* the l1 term covers x[l1_begin .. l1_end) */
	size_t l1_end;    /* (0: up to n) */
	int scipy_stop;   /* 1: stop by scipy's L-BFGS-B rules instead of liblbfgs's: after an
	                     iteration whose pseudo-gradient has no entry above gtol in absolute
	                     value (the projected gradient of the split l1 formulation), or with
	                     (f_prev - f) / max(|f_prev|, |f|, 1) <= ftol_rel; the start point
	                     is not tested; with l1 = 0 the line search also takes L-BFGS-B's
	                     sufficient-decrease constant 1e-3 and its limit of 20 evaluations */
	const unsigned char *role; /* NULL: every variable is optimised, the l1 term covering
	                     x[l1_begin .. l1_end); else n roles (enum fb_owlqn_role) that say
	                     which variables the l1 term covers and which stay at their start
	                     value, l1_begin and l1_end then 0 */
} fb_owlqn_options;

/* What fb_owlqn does with a variable when its options give roles. */
enum fb_owlqn_role {
	FB_OWLQN_PENALISED = 0, /* optimised, under the l1 term */
	FB_OWLQN_FREE = 1,      /* optimised, outside the l1 term */
	FB_OWLQN_FIXED = 2,     /* held at its start value: f sees it, the optimiser does not */
};

/* Minimise f(x) + l1 |x[l1_begin..l1_end)|_1 from x (in place) with liblbfgs's OWL-QN
 * (orthant-wise L-BFGS: the l1 term needs neither splitting nor bounds); f is the smooth
 * part only.  Like fb_lbfgs, a run that stops on its evaluation limit or on rounding (its
 * line search cannot make progress) returns FB_OK with the best x found; rep->f includes
 * the l1 term and rep->code is liblbfgs's code.  With roles, OWL-QN runs on the optimised
 * variables alone (the penalised ones first), f always sees all n with the fixed ones at
 * their start values, and every penalised variable is under the l1 term. */
int fb_owlqn(size_t n, double *x, fb_objective f, void *ctx, const fb_owlqn_options *opt,
             fb_lbfgs_report *rep, fb_error *err);

/* How fb_lbfgs_scipy sums its inner products. */
enum fb_lbfgs_sums {
	FB_SUMS_LANES = 0,      /* in 16 interleaved partial sums (faster) */
	FB_SUMS_SEQUENTIAL = 1, /* first entry to last, as liblbfgs does */
};

/* Minimise f from x (in place) exactly as fb_owlqn does with l1 = 0, scipy_stop = 1 and no
 * roles (liblbfgs's L-BFGS and More-Thuente line search under scipy's stopping rules, the
 * best point returned, rep->code liblbfgs's code), written out in fedbn: with
 * FB_SUMS_SEQUENTIAL its iterates are liblbfgs's (to the last bit but for the few scalar
 * expressions Debian's -ffast-math build of liblbfgs may re-associate), with FB_SUMS_LANES
 * the inner products are summed in another order (each within about n eps of the sum of
 * its terms' sizes) and the run's own work takes a fraction of liblbfgs's time.  opt->l1
 * must be 0 and opt->role NULL. */
int fb_lbfgs_scipy(size_t n, double *x, fb_objective f, void *ctx, const fb_owlqn_options *opt,
                   int sums, fb_lbfgs_report *rep, fb_error *err);

/* Adam (Kingma and Ba 2015) over a flat parameter vector, with PyTorch's update and bias
 * correction.  The state (m, v, t) is public so that a federated client can keep its own across
 * rounds, or a caller can save and restore it. */
typedef struct fb_adam {
	size_t n;     /* parameters */
	double lr;    /* step size */
	double beta1; /* decay of the first moment (0.9) */
	double beta2; /* decay of the second moment (0.999) */
	double eps;   /* added to the corrected root of the second moment (1e-8) */
	double *m;    /* first moment, n entries (owned) */
	double *v;    /* second moment, n entries (owned) */
	uint64_t t;   /* steps taken since the last reset */
} fb_adam;

/* Set up Adam for n parameters with step size lr and the defaults above, moments zero; FB_ERR
 * with the reason in err when lr is not positive and finite or memory runs out.  Release with
 * fb_adam_release. */
int fb_adam_init(fb_adam *a, size_t n, double lr, fb_error *err);
/* Free the moments (a itself is the caller's). */
void fb_adam_release(fb_adam *a);
/* Zero the moments and the step count. */
void fb_adam_reset(fb_adam *a);
/* One step on x (n entries, in place) given the gradient g at x:
 * t += 1; m += (1 - beta1)(g - m); v = beta2 v + (1 - beta2) g^2;
 * x -= (lr / (1 - beta1^t)) m / (sqrt(v) / sqrt(1 - beta2^t) + eps). */
void fb_adam_step(fb_adam *a, double *x, const double *g);

#endif
