/* What NOTEARS-MLP and NOTEARS-MLP-ADMM share inside the algo folder: the acyclicity term on
 * the first layer of the MLP stack, and the check of the data they accept. */
#ifndef FEDBN_ALGO_MLP_INT_H
#define FEDBN_ALGO_MLP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_matrix.h>

#include "fedbn/dataset.h"
#include "fedbn/nn.h"
#include "fedbn/optim.h"

/* The acyclicity term's scratch for d variables. */
typedef struct fb_mlp_h_work {
	size_t d, hidden;   /* variables and hidden units */
	gsl_matrix *A;      /* A = the squared first-layer strengths (d x d) */
	gsl_matrix *E;      /* exp(A) (d x d) */
	fb_dag_h_work *w;   /* the exponential's scratch */
} fb_mlp_h_work;

/* Scratch for d variables and hidden units; free with fb_mlp_h_release. */
void fb_mlp_h_init(fb_mlp_h_work *hw, size_t d, size_t hidden);
/* Free the scratch. */
void fb_mlp_h_release(fb_mlp_h_work *hw);
/* h = tr(exp(A)) - d at the first layer theta, leaving A and exp(A) in hw.  FB_ERR when
 * the exponential overflows. */
int fb_mlp_h_eval(fb_mlp_h_work *hw, const double *theta, double *h, fb_error *err);
/* g[(j*hidden + m)*d + i] += c * exp(A)_ji * 2 theta[same] (c dh/dtheta), after
 * fb_mlp_h_eval at the same theta. */
void fb_mlp_h_grad_add(const fb_mlp_h_work *hw, const double *theta, double c, double *g);
/* Refuse data the MLP learners cannot use (a discrete or non-finite column, d < 2). */
int fb_mlp_check_data(const fb_dataset *ds, const char *who, fb_error *err);
/* The stack {d, hidden, 1} with sigmoid units; NULL with the reason. */
fb_nn_stack *fb_mlp_stack_alloc(size_t d, size_t hidden, fb_error *err);
/* fb_owlqn's roles (n of them, new) for a vector whose first d*hidden*d entries are the first
 * layer (weight (j*hidden + m)*d + i: input i into network j), under the entry roles of
 * fb_honour_roles: a weight of a forbidden i -> j fixed, of a required one free of the l1
 * term, any other penalised; the entries after the first layer free.  The fixed weights of
 * theta (NULL: none) are set to 0, where they then stay. */
unsigned char *fb_mlp_layer_roles(const unsigned char *entry, size_t d, size_t hidden,
                                  size_t n, double *theta);
/* Whether first-layer weight k (laid out as above) is under the l1 term: it is unless the
 * entry roles (NULL: none) require its arc. */
bool fb_mlp_penalised(const unsigned char *entry, size_t d, size_t hidden, size_t k);

#endif
