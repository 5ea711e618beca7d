/* Linear NOTEARS-ADMM (ALGORITHMS.md §4): the client half and the server half as two
 * separate objects that share no memory.  The server needs only the SUM over the clients of
 * their messages, so the messages can be summed for it (the federation's sum seam).
 *
 * One round, driven by the caller (the federation layer or a plain loop):
 *   every client k:  fb_admm_client_local(c[k], W, NULL)         (eq. 4, closed form 10)
 *                    fb_admm_client_message(c[k], u[k])           (B_k + beta_k / rho2, ...)
 *   the server:      fb_admm_server_global(s, sum_k u[k], W, &fig) (eq. 5, then 6 and 9)
 *   every client k:  fb_admm_client_update(c[k], W)               (eq. 7 and 9)
 * starting from the server's initial W (zero).  A client holds its own second-moment matrix
 * S_k, its multiplier beta_k and its penalty rho2; the server holds W, alpha, rho1, rho2 and,
 * for its figures, the sum of the multipliers as it follows from the sums.  The W step reads
 * (1/K) sum_k (B_k + beta_k / rho2) alone, so W is the same to the bit whether the server sees
 * the clients' B_k or only the sum of their messages. */
#ifndef FEDBN_ADMM_H
#define FEDBN_ADMM_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_matrix.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"

/* How the server solves its W step (5). */
enum fb_admm_solver {
	FB_ADMM_SUBGRADIENT = 0, /* L-BFGS (NLopt, fb_lbfgs) with the l1 term through its
	                            subgradient lambda sign(W), sign(0) = 0: the reference */
	FB_ADMM_OWLQN = 1,       /* OWL-QN (liblbfgs, fb_owlqn): L-BFGS that handles the l1 term
	                            orthant by orthant, so entries can be exactly 0 */
	FB_ADMM_LBFGSB = 2,      /* L-BFGS-B (fb_lbfgsb) on the subgradient objective, without
	                            bounds: the solver and stopping rules the reference code
	                            gets from scipy */
};

/* Settings of a linear NOTEARS-ADMM run; fb_admm_options_init gives the paper's (App. B). */
typedef struct fb_admm_options {
	double rho1;       /* initial penalty on h(W) (0.001) */
	double rho2;       /* initial consensus penalty (0.001) */
	double gamma1;     /* factor on rho1 after each round (1.75) */
	double gamma2;     /* factor on rho2 after each round (1.25) */
	double lambda;     /* weight of the l1 term on W (0.01) */
	double rho_max;    /* a penalty is multiplied only while below this (1e16) */
	size_t max_rounds; /* most rounds (200) */
	double threshold;  /* |W_ij| at or below this is no edge, for the caller's graph (0.3) */
	double ftol_rel;   /* relative change of the W-step objective that stops L-BFGS
	                      (2.22e-9, scipy's factr 1e7 x machine epsilon) */
	size_t max_eval;   /* most objective evaluations per W step (15000) */
	enum fb_admm_solver solver; /* the W-step solver (FB_ADMM_OWLQN) */
	double gtol;       /* OWL-QN: stop once |pseudo-gradient|_2 < gtol max(1, |W|_F);
	                      L-BFGS-B: once every gradient entry is at most gtol (1e-5, scipy's
	                      pgtol); unused by NLopt */
	size_t settle;     /* 0 (the default): the paper's schedule, to max_rounds or rho_max;
	                      N > 0: also stop once h(W) <= settle_h, the edges of W (entries
	                      beyond threshold) form a DAG that has stayed the same for N rounds
	                      in a row, and no weight's last change, extrapolated as a geometric
	                      tail at the rate sqrt(h) falls, would take it across threshold
	                      (fb_admm_settle_step) */
	double settle_h;   /* the h(W) at or below which the edges may be taken as settled (2e-6:
	                      NOTEARS's 1e-8 is out of reach here, h levels off near it once the
	                      l1 term and the capped rho1 balance) */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL (read
	                      when a client or the server is made, not kept): a forbidden entry
	                      (tiers included) is held at 0 in every client's local step (its
	                      column solved over the other rows) and in the server's W step; a
	                      required one is left out of the l1 term */
} fb_admm_options;

/* Fill opt with the defaults (values in the field comments): the paper's linear settings,
 * read from notears-admm's parameter table, the one place they are written. */
void fb_admm_options_init(fb_admm_options *opt);
/* Fill opt from notears-admm's parameters (p holds its table); the fields that are no
 * parameters (ftol_rel, max_eval, gtol) take the values in their comments. */
void fb_admm_options_from_params(const fb_params *p, fb_admm_options *opt);

/* ---- client half ---- */

/* One client: its S_k = X_k^T X_k / n (X_k centred on its own means), beta_k, rho2, last B_k. */
typedef struct fb_admm_client fb_admm_client;

/* A client for the rows xk (its columns are the d shared variables), told the total row count
 * n_total of all clients (n_total >= xk->n); xk is read once and not kept.  NULL with err set
 * on bad options, bad sizes or out of memory.  Free with fb_admm_client_free. */
fb_admm_client *fb_admm_client_alloc(const fb_dataset *xk, size_t n_total,
                                     const fb_admm_options *opt, fb_error *err);
/* Free a client (NULL is fine). */
void fb_admm_client_free(fb_admm_client *c);
/* Local step (eq. 10): B_k = (S_k + rho2 I)^-1 (rho2 W - beta_k + S_k) for the server's W;
 * kept by the client and copied to B_out (d x d) unless it is NULL.  FB_ERR on wrong shapes
 * or a failed factorisation. */
int fb_admm_client_local(fb_admm_client *c, const gsl_matrix *W, gsl_matrix *B_out,
                         fb_error *err);
/* Numbers in a client's message over d variables: d * d + 2. */
size_t fb_admm_message_len(size_t d);
/* The client's message after its local step, into u (fb_admm_message_len(d) numbers): the
 * d x d entries of B_k + beta_k / rho2 (row-major), then ||B_k||_F^2 and <beta_k, B_k>.
 * FB_ERR before a local step. */
int fb_admm_client_message(const fb_admm_client *c, double *u, fb_error *err);
/* After the server's step: beta_k += rho2 (B_k - W_new), then rho2 *= gamma2 while below
 * rho_max.  Call once per fb_admm_client_local.  FB_ERR on a wrong shape or out of order. */
int fb_admm_client_update(fb_admm_client *c, const gsl_matrix *W_new, fb_error *err);
/* The client's share of the pooled loss, l(B_k; X_k) = ||X_k - X_k B_k||_F^2 / (2 n), at the
 * last local step (with B_k = 0 before it); computed on the first call after each local step
 * (one d x d product), so a caller that never asks does not pay for it. */
double fb_admm_client_loss(fb_admm_client *c);
/* ||B_k - W_new||_F at the last update (0 before it). */
double fb_admm_client_distance(const fb_admm_client *c);
/* The client's current consensus penalty rho2. */
double fb_admm_client_rho2(const fb_admm_client *c);
/* The client's multiplier beta_k (d x d; owned by the client). */
const gsl_matrix *fb_admm_client_beta(const fb_admm_client *c);
/* The client's last B_k (d x d, zero before the first local step; owned by the client). */
const gsl_matrix *fb_admm_client_B(const fb_admm_client *c);

/* ---- server half ---- */

/* The server: W, alpha, rho1, rho2, the multipliers' sum, and its workspace. */
typedef struct fb_admm_server fb_admm_server;

/* Figures of one server round (the penalties and alpha are those the W step used). */
typedef struct fb_admm_figures {
	size_t round;       /* 1 for the first round */
	double objective;   /* objective of (5) at the new W, computed from its definition */
	double h;           /* h(W) = tr(exp(W o W)) - d at the new W */
	double rho1;        /* penalty on h used in this round */
	double rho2;        /* consensus penalty used in this round */
	double alpha;       /* multiplier of h used in this round */
	double consensus;   /* mean over clients of ||B_k - W||_F^2 at the new W (the reference
	                       code's consensus distance) */
	double l1;          /* ||W||_1 at the new W */
	size_t evals;       /* objective evaluations of the L-BFGS run */
	int code;           /* its result code: NLopt's for the subgradient solver (NLOPT_FAILURE,
	                       -1, is a line search that failed on the non-smooth l1 term; its
	                       best point is kept), liblbfgs's for OWL-QN, enum fb_lbfgsb_code
	                       for L-BFGS-B */
} fb_admm_figures;

/* A server for d variables and k clients, with W = 0, alpha = 0 and every beta_k = 0.  NULL
 * with err set on bad options or sizes, or out of memory.  Free with fb_admm_server_free. */
fb_admm_server *fb_admm_server_alloc(size_t d, size_t k, const fb_admm_options *opt,
                                     fb_error *err);
/* Free a server (NULL is fine). */
void fb_admm_server_free(fb_admm_server *s);
/* One server round on sum, the sum over the K clients of their messages
 * (fb_admm_message_len(d) numbers, added entry by entry in client order): W by L-BFGS on (5)
 * without bounds, warm-started at the previous W, l1 through the subgradient lambda sign(W)
 * with sign(0) = 0 (or by OWL-QN, as opt->solver says); then alpha += rho1 h(W), the
 * multipliers' sum moves as the clients' multipliers do, and each rho times its gamma while
 * below rho_max.  W_out (d x d) and fig may be NULL.  The figures' objective and consensus
 * come from the sums (equal to their definitions up to rounding).  FB_ERR (state unchanged)
 * on a wrong shape, once fb_admm_server_done is true, or when the exponential in h overflows
 * at every point the solver tried. */
int fb_admm_server_global(fb_admm_server *s, const double *sum, gsl_matrix *W_out,
                          fb_admm_figures *fig, fb_error *err);
/* The function the W step minimises, for this sum of messages and the server's current
 * alpha and penalties: (5) less a constant independent of W, at W, and when grad != NULL its
 * gradient with lambda sign(W) for the l1 term.  Changes nothing but scratch.  FB_ERR on
 * wrong shapes or an overflowing exponential. */
int fb_admm_server_objective(fb_admm_server *s, const double *sum, const gsl_matrix *W,
                             double *f, gsl_matrix *grad, fb_error *err);
/* True when max_rounds rounds are done or both penalties have reached rho_max. */
bool fb_admm_server_done(const fb_admm_server *s);
/* Rounds done so far. */
size_t fb_admm_server_rounds(const fb_admm_server *s);
/* The current W (d x d; owned by the server). */
const gsl_matrix *fb_admm_server_W(const fb_admm_server *s);
/* The sum over the clients of their multipliers, as the server follows it from the sums
 * (d * d numbers, row-major; owned by the server).  Used for the figures only. */
const double *fb_admm_server_beta_sum(const fb_admm_server *s);
/* The current alpha, rho1 and rho2 (any pointer may be NULL). */
void fb_admm_server_params(const fb_admm_server *s, double *alpha, double *rho1, double *rho2);

/* ---- the settle rule (opt.settle > 0) ---- */

/* What the rule remembers of the last round: W, h(W), its edges, how long they have held. */
typedef struct fb_admm_settle fb_admm_settle;

/* Memory for the rule over d x d weights, NULL when out of memory. */
fb_admm_settle *fb_admm_settle_alloc(size_t d);
/* Free it (NULL is fine). */
void fb_admm_settle_free(fb_admm_settle *st);
/* Take one round's W (row-major d*d) and h(W); true once the rule of opt->settle says stop:
 * h <= opt->settle_h, the entries beyond opt->threshold have stayed the same for opt->settle
 * rounds and form a DAG, and none is still drifting across the threshold: with q =
 * sqrt(h / h_last) (the rate at which the weights that close cycles fall), w + (w - w_last)
 * q / (1 - q) stays on w's side of it (any change counts when h did not fall).  Always false
 * when opt->settle is 0. */
bool fb_admm_settle_step(fb_admm_settle *st, const fb_admm_options *opt, const double *W,
                         double h);

#endif
