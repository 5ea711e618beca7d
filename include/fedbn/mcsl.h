/* MCSL (Ng et al. 2022) and the clients of FedDAG (Gao et al. 2023): a learnable graph of
 * logits U, a Gumbel-sigmoid mask M drawn afresh at every step, and one masked network per
 * variable; or, for the linear variant, one d x d weight matrix W.  A client fits its own rows
 * by Adam on the augmented-Lagrangian objective
 *   L = (1/2n) SSE + lambda |M|_1 + alpha h + (rho/2) h^2,   h = tr(exp(M o M)) - d,
 * and the outer loop (fb_mcsl_alm) moves alpha and rho between sub-problems.
 *
 * Mask entries: M_ij = sigma((U_ij + L_ij) / tau) for i != j, L_ij standard logistic (the
 * difference of two Gumbel draws), M_ii = 0; M_ij is the weight of input i into the network
 * that predicts variable j.  Each network takes the masked row, has `layers` dense LeakyReLU
 * layers of `hidden` units and one linear output; layer 0 is Glorot-uniform over the d - 1
 * real inputs, the rest over their own sizes, biases zero.  The weights of a network's own
 * variable stay 0 and never travel. */
#ifndef FEDBN_MCSL_H
#define FEDBN_MCSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"

/* What a client fits. */
enum fb_mcsl_model {
	FB_MCSL_MASKED = 0, /* logits U and the masked networks (MCSL, GS- and AS-FedDAG) */
	FB_MCSL_LINEAR,     /* one weight matrix W (AS-FedDAG-linear) */
};

/* The outer loop. */
enum fb_mcsl_loop {
	FB_MCSL_LOOP_PAPER = 0, /* Algorithm 1: one sub-problem per outer iteration */
	FB_MCSL_LOOP_CODE,      /* the reference trainer: rho grows and the sub-problem is re-run
	                           until h has dropped to gamma times its last value */
};

/* Settings of one client's model and optimiser. */
typedef struct fb_mcsl_options {
	enum fb_mcsl_model model; /* masked networks or linear */
	size_t hidden;            /* units per hidden layer (16) */
	size_t layers;            /* hidden layers (4) */
	double slope;             /* LeakyReLU slope for negative inputs (0.05) */
	double tau;               /* Gumbel-sigmoid temperature (0.2) */
	double lambda;            /* l1 penalty on the mask, or on W (0.01) */
	double lr;                /* Adam step size (3e-2) */
	bool plain;               /* plain gradient steps x -= lr g instead of Adam */
	bool same_noise;          /* every client draws the same noise sequence */
	uint64_t seed;            /* the "mcsl-init" and "mcsl-noise" streams derive from it */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL (read
	                             by fb_mcsl_client_alloc, not kept): masked model, the logit
	                             of a forbidden arc (tiers included) fixed off and of a
	                             required one fixed on (fb_mcsl_pin), their mask entries 0 and
	                             1 at every step; linear model, a forbidden entry of W fixed
	                             at 0 and a required one left out of the l1 term */
} fb_mcsl_options;

/* The paper's settings for the masked model: mcsl's parameter table's defaults. */
void fb_mcsl_options_init(fb_mcsl_options *o);
/* as-feddag-linear's defaults (the reference code's), from its parameter table. */
void fb_mcsl_linear_options_init(fb_mcsl_options *o);
/* Read a parameter set of mcsl, gs-feddag, as-feddag or as-feddag-linear (the linear model
 * when it has no 'tau') into o; the LeakyReLU slope, no parameter, is set here; seed 1. */
void fb_mcsl_options_from_params(const fb_params *p, fb_mcsl_options *o);

/* One client: its model, its optimiser state and its noise stream. */
typedef struct fb_mcsl_client fb_mcsl_client;

/* A client over data (not owned; it must outlive the client), numbered index (which names
 * its noise stream).  Every client of one seed starts from the same networks, drawn from the
 * "mcsl-init" stream, and U = 0 (W = 0).  NULL with the reason on bad options or sizes. */
fb_mcsl_client *fb_mcsl_client_alloc(const fb_dataset *data, size_t index,
                                     const fb_mcsl_options *o, fb_error *err);
/* Free a client (NULL is fine). */
void fb_mcsl_client_free(fb_mcsl_client *c);

/* The client's d x d graph parameters, row-major: U (masked) or W (linear); writable. */
double *fb_mcsl_client_graph(fb_mcsl_client *c);
/* The client's flat network parameters and their count (NULL and 0 for the linear model);
 * writable. */
double *fb_mcsl_client_net(fb_mcsl_client *c, size_t *len);

/* Numbers of one client's model that travel: d*d graph entries, then for the masked model
 * d(16d + 833) network weights with the defaults (the networks without their own variable's
 * input weights). */
size_t fb_mcsl_wire_len(const fb_mcsl_client *c, bool with_net);
/* Write the travelling numbers into out (fb_mcsl_wire_len entries). */
void fb_mcsl_wire_pack(const fb_mcsl_client *c, bool with_net, double *out);
/* Overwrite the client's parameters from a packed message. */
void fb_mcsl_wire_unpack(fb_mcsl_client *c, bool with_net, const double *in);

/* The parts of the objective at one point. */
typedef struct fb_mcsl_parts {
	double loss;  /* the whole objective L */
	double mse;   /* (1/2n) SSE */
	double l1;    /* lambda |M|_1 (or lambda |W|_1) */
	double h;     /* h of the sampled mask (or of W) */
} fb_mcsl_parts;

/* The objective at the client's current parameters with the given mask noise (d x d, the
 * diagonal ignored; ignored by the linear model), and, when gg / gn are not NULL, its
 * gradients with respect to the graph parameters (d x d) and the networks.  FB_ERR when h
 * overflows. */
int fb_mcsl_client_objective(fb_mcsl_client *c, double alpha, double rho, const double *noise,
                             fb_mcsl_parts *parts, double *gg, double *gn, fb_error *err);
/* One optimiser step: fresh noise from the client's stream, the gradient, an Adam (or plain)
 * update; parts describes the point before the step. */
int fb_mcsl_client_step(fb_mcsl_client *c, double alpha, double rho, fb_mcsl_parts *parts,
                        fb_error *err);

/* The logit a fixed mask entry is held at, as a multiple of tau plus a margin above the
 * largest logistic draw (|L| < 23): sigma((U + L) / tau) is then exactly 1 (0 for -U). */
#define FB_MCSL_PIN_TAU 800.0
#define FB_MCSL_PIN_MARGIN 50.0

/* Hold the graph parameters (d x d, U or W) where background knowledge fixes them, given the
 * entries' roles (fb_honour_roles; NULL: nothing): masked model, U_ij = -(FB_MCSL_PIN_TAU tau
 * + FB_MCSL_PIN_MARGIN) for a forbidden arc and + that for a required one; linear model,
 * W_ij = 0 for a forbidden arc.  Every client does it to what it receives and the server to
 * its average, so that averaging leaves them fixed. */
void fb_mcsl_pin(const unsigned char *role, size_t d, enum fb_mcsl_model model, double tau,
                 double *graph);

/* Fill noise (d x d) with standard logistic draws from r, off the diagonal, row by row; the
 * diagonal is 0. */
void fb_mcsl_logistic_fill(gsl_rng *r, size_t d, double *noise);
/* P = sigma(U / tau) with a zero diagonal: the noiseless mask, whose entries above 0.5 are
 * the edges (exactly those with U_ij > 0, as for the mask's expectation). */
void fb_mcsl_mask_mean(const double *U, size_t d, double tau, double *P);
/* A Monte-Carlo estimate of E[h(M o M)] over the mask's noise: the mean of h over samples
 * masks drawn from r; FB_ERR when h overflows. */
int fb_mcsl_h_expected(const double *U, size_t d, double tau, gsl_rng *r, size_t samples,
                       double *h, fb_error *err);
/* h(M o M) - the NOTEARS function of the d x d matrix M; FB_ERR when it overflows. */
int fb_mcsl_h(const double *M, size_t d, double *h, fb_error *err);

/* The augmented-Lagrangian outer loop shared by mcsl and FedDAG. */
typedef struct fb_mcsl_alm {
	enum fb_mcsl_loop loop; /* paper or code */
	double alpha;           /* multiplier */
	double rho;             /* penalty */
	double beta;            /* growth of rho */
	double gamma;           /* h must drop below gamma times its last value */
	double rho_max;         /* penalty cap */
	double h_tol;           /* stop once h is at most this */
	double h_prev;          /* h after the last accepted sub-problem (+inf at first) */
	double h_last;          /* h after the last sub-problem */
	size_t outer;           /* outer iterations completed */
	size_t it_max;          /* most outer iterations */
	size_t init_iter;       /* code loop: no early stop before this many outer iterations */
	bool done;              /* finished */
} fb_mcsl_alm;

/* After a sub-problem ended with h = h_new (h_mean: h of the noiseless mask, for the code
 * loop's stop): update alpha and rho; returns true when an outer iteration has ended (the
 * code loop may instead ask for the same sub-problem again under a larger rho). */
bool fb_mcsl_alm_update(fb_mcsl_alm *a, double h_new, double h_mean);

/* The paper's Table 7: rho_init and beta for d variables (10, 20 or 40 nodes: the nearest
 * size), graph-shared (gs) or all-shared/centralised. */
void fb_mcsl_table7(size_t d, bool gs, double *rho_init, double *beta);

#endif
