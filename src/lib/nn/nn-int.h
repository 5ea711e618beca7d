/* What the nn folder shares inside itself: the sigmoid with a per-row bias (layer.c) and the
 * loops of the sigmoid stack {d, m, 1} (one-output.c), used by the stack's passes
 * (stack.c). */
#ifndef FEDBN_NN_INT_H
#define FEDBN_NN_INT_H

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

#endif
