/* What the nn folder shares inside itself: the sigmoid with a per-row bias (layer.c), the
 * loops of the sigmoid stack {d, m, 1} (one-output.c) and the network-by-network squared
 * loss of LeakyReLU stacks (leaky-stack.c), used by the stack's passes (stack.c). */
#ifndef FEDBN_NN_INT_H
#define FEDBN_NN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/nn.h"

/* Where fb_nn_one_backward writes. */
typedef struct fb_nn_one_grad {
	double *dw;  /* the output weights' gradient [d, in] */
	double *db;  /* the output biases' gradient [d] */
	double *dZ;  /* dL/dZ [n, d, in] (not A) */
	double *db0; /* the first layer's bias gradient [d*in], the column sums of dZ */
} fb_nn_one_grad;

/* A[s, k] = sigmoid(Z[s, k] + b[k]) for the n rows of length len; A may be Z. */
void fb_nn_sigmoid_rows(size_t n, size_t len, const double *b, const double *Z, double *A);
/* Y[s, j] = b[j] + sum_q A[s, j, q] w[j, q]: the locally-connected layer to one output, A of
 * shape [n, d, in], w [d, in], b [d], Y [n, d]. */
void fb_nn_one_forward(size_t n, size_t d, size_t in, const double *A, const double *w,
                       const double *b, double *Y);
/* Back-propagate g = dL/dY ([n, d]) through fb_nn_one_forward and A = sigmoid(Z + b0):
 * every array of out is overwritten. */
void fb_nn_one_backward(size_t n, size_t d, size_t in, const double *A, const double *w,
                        const double *g, const fb_nn_one_grad *out);

/* fb_nn_one_backward followed by the first layer's weight gradient dW = dZ^T X ([d*in, d])
 * over the n rows of X ([n, d]) in one AVX-512 pass with the BLAS path's bits, out->dZ unused,
 * zb scratch of 8 n doubles; false (nothing written) where that pass does not run: without
 * AVX-512, under a BLAS kernel other than OpenBLAS's SkylakeX ones, past their DGEMM_Q rows
 * (384), or with fewer than 8 units (one-fused.c). */
bool fb_nn_one_backward_fused(size_t n, size_t d, size_t in, const double *X, const double *A,
                              const double *w, const double *g, const fb_nn_one_grad *out,
                              double *dW, double *zb);

/* A stack's shape and parameters as fb_nn_leaky_mse reads them. */
typedef struct fb_nn_leaky_net {
	size_t d;               /* networks, and inputs per network */
	size_t L;               /* weight layers */
	const size_t *dims;     /* the L + 1 sizes */
	const fb_nn_span *span; /* each layer's place in params */
	double slope;           /* the LeakyReLU's slope (>= 0) */
	const double *params;   /* the flat parameter vector */
} fb_nn_leaky_net;

/* Whether fb_nn_leaky_mse takes the stack of L weight layers with sizes dims and activation
 * act: LeakyReLU with a slope >= 0, hidden layers of multiples of 4 units, one output. */
bool fb_nn_leaky_fits(size_t L, const size_t *dims, const fb_nn_act *act);
/* Doubles of work fb_nn_leaky_mse needs for n rows. */
size_t fb_nn_leaky_work_len(const fb_nn_leaky_net *k, size_t n);
/* The squared loss (1/2n) sum_sj (out[s,j] - X[s,j])^2 over the n rows of X (mask: the
 * inputs' mask, or NULL) and, with grad, its gradient, and the mask's in dmask when both
 * are given; network by network, in a fixed order (leaky-stack.c). */
double fb_nn_leaky_mse(const fb_nn_leaky_net *k, size_t n, const double *X, const double *mask,
                       double *grad, double *dmask, double *work);

#endif
