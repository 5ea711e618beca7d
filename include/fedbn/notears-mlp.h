/* NOTEARS-MLP (Zheng et al. 2020; ALGORITHMS.md §3) as a GSL-style stepper, and the two
 * halves of NOTEARS-MLP-ADMM (Ng and Zhang 2022; §4.4).
 *
 * The model is the per-variable MLP stack of nn.h with sizes {d, hidden, 1} and sigmoid
 * units: network j predicts x_j from the d inputs through its hidden units; its first-layer
 * weights theta[(j*hidden + m)*d + i] give the equivalent adjacency
 * A_ij = sum_m theta[(j*hidden + m)*d + i]^2, the graph is W = sqrt(A) and the acyclicity
 * function h = tr(exp(A)) - d.
 *
 * NOTEARS-MLP optimises x = [theta+; theta-; the other parameters in the stack's flat order
 * (first-layer bias, output weights, output bias)], theta = theta+ - theta- with
 * 0 <= theta+-, self-inputs (i = j) fixed at 0, by L-BFGS-B (liblbfgsb, scipy's settings) on
 *   (1/2n)|X - f(X)|^2 + (lambda2/2)(|theta|^2 + |v|^2) + lambda1 sum(theta+ + theta-)
 *     + (rho/2) h^2 + alpha h,
 * in the augmented-Lagrangian schedule of §2 (rho x10 while h > h_prev/4, each solve warm
 * started from the current parameters).  The data are not centred (the biases absorb the
 * means).  One bias per hidden unit (the reference keeps one for theta+ and one for theta-,
 * of which only the difference matters). */
#ifndef FEDBN_NOTEARS_MLP_H
#define FEDBN_NOTEARS_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"

/* How each augmented-Lagrangian subproblem is solved; both reach the same minimisers. */
enum fb_mlp_solver {
	FB_MLP_LBFGSB = 0, /* L-BFGS-B on theta+, theta- and the rest, with the bounds (the
	                      reference's formulation and solver) */
	FB_MLP_OWLQN = 1,  /* liblbfgs's OWL-QN on theta and the rest, the l1 term handled by
	                      the method, self-inputs held at 0 (half the variables, no bounds) */
};

/* Settings of a NOTEARS-MLP run; fb_mlp_options_init fills the defaults. */
typedef struct fb_mlp_options {
	size_t hidden;      /* hidden units per variable (10) */
	double lambda1;     /* l1 weight on the first layer (0.01) */
	double lambda2;     /* l2 weight on the weights (0.01) */
	size_t max_iter;    /* most outer iterations (100) */
	double h_tol;       /* stop once h <= h_tol (1e-8) */
	double rho_max;     /* stop once rho >= rho_max (1e16) */
	double w_threshold; /* sqrt(A_ij) at or below this is no edge, for the edge count (0.3) */
	uint64_t seed;      /* the stream "notears-mlp init" of the initial parameters (1) */
	enum fb_mlp_solver solver; /* the subproblem solver (FB_MLP_LBFGSB) */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL (read
	                      by fb_notears_mlp_alloc, not kept): the first-layer weights from
	                      input i into network j are held at 0 when i -> j is forbidden (tiers
	                      included), as the self-inputs are, and left out of the l1 term when
	                      it is required */
} fb_mlp_options;

/* What one step (outer iteration) did. */
typedef struct fb_mlp_round {
	size_t iter;       /* outer iterations done, this one included */
	double objective;  /* the augmented objective at the accepted point, with the rho and
	                      alpha of its solve */
	double loss;       /* (1/2n)|X - f(X)|^2 there */
	double h;          /* h there */
	double rho;        /* the penalty after this round's increases */
	double alpha;      /* the multiplier after this round's update */
	size_t solves;     /* L-BFGS-B solves this round */
	size_t evals;      /* objective evaluations this round */
	size_t edges;      /* entries with sqrt(A_ij) > w_threshold */
} fb_mlp_round;

/* A NOTEARS-MLP run in progress (opaque). */
typedef struct fb_notears_mlp fb_notears_mlp;

/* The defaults (values in the field comments), from the learner's parameter table. */
void fb_mlp_options_init(fb_mlp_options *opt);
/* Fill opt from notears-mlp's parameters (p holds its table). */
void fb_mlp_options_from_params(const fb_params *p, fb_mlp_options *opt);

/* Start a run on ds (opt NULL: defaults): every column continuous and finite, n >= 1,
 * d >= 2.  ds must outlive the run.  NULL with the reason; free with fb_notears_mlp_free. */
fb_notears_mlp *fb_notears_mlp_alloc(const fb_dataset *ds, const fb_mlp_options *opt,
                                     fb_error *err);
/* Free a run (NULL is fine). */
void fb_notears_mlp_free(fb_notears_mlp *nm);
/* One outer iteration; out may be NULL.  FB_ERR when done already or a solve failed (the
 * run is then done). */
int fb_notears_mlp_step(fb_notears_mlp *nm, fb_mlp_round *out, fb_error *err);
/* True once h <= h_tol, rho >= rho_max, max_iter rounds were done, or a step failed. */
bool fb_notears_mlp_done(const fb_notears_mlp *nm);
/* The current W = sqrt(A) into w (d x d, row = parent). */
void fb_notears_mlp_adjacency(const fb_notears_mlp *nm, double *w);
/* Length of the optimisation vector x. */
size_t fb_notears_mlp_nvars(const fb_notears_mlp *nm);
/* The current x (fb_notears_mlp_nvars entries, owned by the run). */
double *fb_notears_mlp_vars(fb_notears_mlp *nm);
/* The augmented objective at x with the given rho and alpha, and (grad not NULL) its
 * gradient; uses the run's scratch.  FB_ERR when the exponential overflows. */
int fb_notears_mlp_objective(fb_notears_mlp *nm, const double *x, double rho, double alpha,
                             double *f, double *grad, fb_error *err);

/* ---- NOTEARS-MLP-ADMM ---- */

/* Settings of a NOTEARS-MLP-ADMM run (the paper's MLP column of App. B). */
typedef struct fb_mlp_admm_options {
	size_t hidden;     /* hidden units per variable (10) */
	double lambda1;    /* l1 weight on the global first layer (0.001) */
	double lambda2;    /* l2 weight on the global weights (0.01) */
	double rho1;       /* initial penalty on h (0.1) */
	double rho2;       /* initial consensus penalty (0.1) */
	double gamma1;     /* factor on rho1 per round (1.75) */
	double gamma2;     /* factor on rho2 per round (1.25) */
	double rho_max;    /* a penalty grows only below this (1e16) */
	size_t max_rounds; /* most rounds (200) */
	double threshold;  /* sqrt(A_ij) at or below this is no edge (0.3) */
	uint64_t seed;     /* initial parameters: stream "mlp-admm init" (server), "mlp-admm
	                      client K" (client K, 1-based) (1) */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL (read
	                      when a client or the server is made, not kept): the first-layer
	                      weights of a forbidden arc start at 0 and stay there in every client
	                      and in the server; those of a required arc are left out of the
	                      server's l1 term */
} fb_mlp_admm_options;

/* The defaults, from notears-mlp-admm's parameter table. */
void fb_mlp_admm_options_init(fb_mlp_admm_options *opt);
/* Fill opt from notears-mlp-admm's parameters. */
void fb_mlp_admm_options_from_params(const fb_params *p, fb_mlp_admm_options *opt);
/* Number of parameters of the model for d variables and hidden units: hidden d^2 (first
 * layer) + hidden d (its bias) + hidden d (output weights) + d (output bias). */
size_t fb_mlp_admm_nparams(size_t d, size_t hidden);

/* One client: its rows, theta_k, beta_k, rho2 and its model. */
typedef struct fb_mlp_client fb_mlp_client;

/* Client number k (0-based) of a split whose clients hold n_total rows in all; xk must
 * outlive the client.  NULL with the reason. */
fb_mlp_client *fb_mlp_client_alloc(const fb_dataset *xk, size_t k, size_t n_total,
                                   const fb_mlp_admm_options *opt, fb_error *err);
/* Free a client (NULL is fine). */
void fb_mlp_client_free(fb_mlp_client *c);
/* The local step of round `round` (1-based) for the broadcast theta (nparams): first, if
 * the client has sent before, beta_k += rho2 (theta_k - theta) with the rho2 of its last
 * step; then theta_k = argmin (1/2n)|X_k - f(X_k)|^2 + beta_k'(theta_k - theta)
 * + (rho2/2)|theta_k - theta|^2 by L-BFGS (liblbfgs) from the previous theta_k, with
 * rho2 = the schedule's value at this round; theta_k copied to out.  FB_ERR on a failed
 * solve. */
int fb_mlp_client_local(fb_mlp_client *c, size_t round, const double *theta, double *out,
                        fb_error *err);
/* The client's data loss (1/2n)|X_k - f(X_k)|^2 at its theta_k, and |theta_k - theta| for
 * the theta of its last step ("local residual"). */
void fb_mlp_client_figures(const fb_mlp_client *c, double *loss, double *residual);

/* The server: theta, alpha, rho1, rho2, its copy of every heard client's theta_k, beta_k. */
typedef struct fb_mlp_server fb_mlp_server;

/* Figures of one server round. */
typedef struct fb_mlp_admm_figures {
	size_t round;     /* 1 for the first */
	double objective; /* the global step's objective at the new theta */
	double h;         /* h at the new theta */
	double rho1;      /* the penalties and multiplier the step used */
	double rho2;
	double alpha;
	double consensus; /* mean over heard clients of |theta_k - theta|^2 */
	size_t evals;     /* objective evaluations of the global step */
} fb_mlp_admm_figures;

/* A server for d variables and k clients with its random initial theta.  NULL with the
 * reason. */
fb_mlp_server *fb_mlp_server_alloc(size_t d, size_t k, const fb_mlp_admm_options *opt,
                                   fb_error *err);
/* Free a server (NULL is fine). */
void fb_mlp_server_free(fb_mlp_server *s);
/* The server's current theta (nparams, owned by the server): the opening broadcast before
 * the first round. */
const double *fb_mlp_server_theta(const fb_mlp_server *s);
/* One round on the messages theta_k (up[k] NULL: client k sat the round out).  For each
 * client that took part: its beta copy moves as the client's did (after its first round),
 * its theta_k is kept.  Then the global step over every client heard so far: the first
 * layer by OWL-QN on lambda1 |theta|_1 + alpha h + (rho1/2) h^2 + (lambda2/2)|theta|^2 +
 * the consensus terms, warm-started at the previous theta; every other coordinate by its
 * exact minimiser; then alpha += rho1 h and the penalties grow.  fig may be NULL. */
int fb_mlp_server_global(fb_mlp_server *s, const double *const *up, fb_mlp_admm_figures *fig,
                         fb_error *err);
/* True after max_rounds or once both penalties reached rho_max. */
bool fb_mlp_server_done(const fb_mlp_server *s);
/* W = sqrt(A) of the server's theta into w (d x d). */
void fb_mlp_server_adjacency(const fb_mlp_server *s, double *w);
/* |theta_k - theta| for client k's last message against the current theta ("global
 * residual"; NaN for a client not heard yet). */
double fb_mlp_server_residual(const fb_mlp_server *s, size_t k);
/* The smooth part of the last global step's first-layer problem (alpha h + rho1/2 h^2 +
 * lambda2/2 |t|^2 + (K' rho2/2)|t - tbar|^2, with that round's alpha, penalties and tbar; the
 * solver adds lambda1 |t|_1) at first-layer weights t (hidden d^2), and its gradient. */
int fb_mlp_server_objective(fb_mlp_server *s, const double *t, double *f, double *grad,
                            fb_error *err);

/* ---- the model's first layer, shared by both ---- */

/* A_ij = sum_m theta[(j*hidden + m)*d + i]^2 into a (d x d). */
void fb_mlp_adjacency(size_t d, size_t hidden, const double *theta, double *a);

#endif
