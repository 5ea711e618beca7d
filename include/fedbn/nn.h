/* Neural building blocks of the nonlinear learners: dense and locally-connected layers whose
 * forward and backward passes run on CBLAS (one dgemm per batch of rows), sigmoid and
 * LeakyReLU, and the per-variable MLP stack of NOTEARS-MLP and MCSL with its initialisations.
 *
 * Every array is row-major doubles and row s of a batch is sample s.  A "locally-connected"
 * array of shape [n, d, m] holds, for each of n samples, the m values of each of d independent
 * networks side by side: entry (s, j, k) sits at (s*d + j)*m + k.  The BLAS runs on one thread
 * (fb_blas_single_thread, called by fb_nn_stack_alloc), and every sum outside it has a fixed
 * order, so the same inputs give the same bits whatever the caller's thread count. */
#ifndef FEDBN_NN_H
#define FEDBN_NN_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "fedbn/core.h"

/* LeakyReLU's slope for negative inputs when none is given (PyTorch's default). */
#define FB_NN_LEAKY_SLOPE 0.01

/* Element-wise activation functions. */
enum fb_nn_act_kind {
	FB_NN_ACT_IDENTITY = 0,  /* a = z */
	FB_NN_ACT_SIGMOID,       /* a = 1 / (1 + exp(-z)), in its overflow-free form */
	FB_NN_ACT_LEAKY_RELU,    /* a = z for z > 0, slope * z otherwise */
};

/* One activation with its parameter. */
typedef struct fb_nn_act {
	enum fb_nn_act_kind kind; /* which function */
	double slope;             /* LeakyReLU only: the slope for z <= 0 */
} fb_nn_act;

/* a[k] = f(z[k]) for k < len; a may be z. */
void fb_nn_act_forward(const fb_nn_act *act, size_t len, const double *z, double *a);

/* dz[k] = da[k] f'(z[k]) for k < len, given z and a = f(z) from the forward pass; dz may be
 * da.  LeakyReLU's derivative at z = 0 is the slope, as in PyTorch. */
void fb_nn_act_backward(const fb_nn_act *act, size_t len, const double *z, const double *a,
                        const double *da, double *dz);

/* Dense layer on a batch: Y = X W^T + b, with X n x in, W out x in (PyTorch's Linear
 * layout), b of length out (NULL for none) and Y n x out. */
void fb_nn_dense_forward(size_t n, size_t in, size_t out, const double *X, const double *W,
                         const double *b, double *Y);

/* Back-propagation through fb_nn_dense_forward given dY = dL/dY (n x out): dW = dY^T X
 * (out x in), db = the column sums of dY (out), dX = dY W (n x in).  Each of dX, dW and db
 * may be NULL when not wanted; the others are overwritten. */
void fb_nn_dense_backward(size_t n, size_t in, size_t out, const double *X, const double *W,
                          const double *dY, double *dX, double *dW, double *db);

/* Locally-connected layer: d independent dense layers evaluated together,
 * Y[s, j, :] = X[s, j, :] W[j] + b[j] for every sample s and network j, with X of shape
 * [n, d, in], W [d, in, out] (entry (j, p, q) at (j*in + p)*out + q), b [d, out] (NULL for
 * none) and Y [n, d, out] (the layout of NOTEARS-MLP's LocallyConnected). */
void fb_nn_local_forward(size_t n, size_t d, size_t in, size_t out, const double *X,
                         const double *W, const double *b, double *Y);

/* Back-propagation through fb_nn_local_forward given dY (shape [n, d, out]): dW [d, in, out],
 * db [d, out], dX [n, d, in]; each may be NULL, the others are overwritten. */
void fb_nn_local_backward(size_t n, size_t d, size_t in, size_t out, const double *X,
                          const double *W, const double *dY, double *dX, double *dW,
                          double *db);

/* The per-variable MLP stack: d networks, network j predicting variable j from the d inputs
 * of a sample.  Sizes dims[0 .. ndims-1] with dims[0] = d, e.g. {d, 10, 1} for NOTEARS-MLP or
 * {d, 16, 16, 16, 16, 1} for MCSL.  Layer 0 maps the d inputs to dims[1] units per network and
 * is stored as one dense layer with d*dims[1] outputs; layer l >= 1 is locally connected,
 * dims[l] -> dims[l+1] per network.  The activation follows every layer but the last, whose
 * output is linear; the output has shape [n, d, dims[ndims-1]].
 *
 * Parameters live in one flat vector, layer by layer, each layer's weight then its bias:
 *   layer 0 weight, (d*dims[1]) x d: entry (j*dims[1] + m, i) is input i into unit m of
 *           network j (PyTorch's Linear(d, d*dims[1]).weight, NOTEARS-MLP's fc1);
 *   layer 0 bias, d*dims[1];
 *   layer l >= 1 weight, [d, dims[l], dims[l+1]], then bias [d, dims[l+1]] (LocallyConnected).
 * This is the order of the reference model's parameters(), so flat vectors line up.
 *
 * An optional input mask (d x d, mask[i*d + j] multiplies input i of network j: MCSL's M_ij,
 * zero on the diagonal) scales the inputs of each network separately.  It acts on layer 0's
 * weights, W0[(j, m), i] * mask[i*d + j], so masked networks still cost one dgemm.
 *
 * NOTEARS-MLP's shape, {d, m, 1} with sigmoid units, keeps one dgemm per pass for layer 0
 * and runs its output layer (d dot products of length m per row) and the back-propagation
 * through it as loops over the rows, which cost less than d small dgemm calls.
 *
 * A stack owns its parameters and a workspace that grows to the largest batch seen; one
 * stack is used by one thread at a time (give each client its own). */
typedef struct fb_nn_stack fb_nn_stack;

/* Where one layer's parameters sit in the flat vector. */
typedef struct fb_nn_span {
	size_t weight;  /* offset of the weight */
	size_t nweight; /* its number of entries */
	size_t bias;    /* offset of the bias (weight + nweight) */
	size_t nbias;   /* its number of entries */
} fb_nn_span;

/* A stack with sizes dims[0 .. ndims-1] (ndims >= 2, every size >= 1) and activation act;
 * parameters all zero until fb_nn_stack_init or fb_nn_stack_set_params.  NULL with the reason
 * in err on bad sizes or out of memory.  Free with fb_nn_stack_free. */
fb_nn_stack *fb_nn_stack_alloc(const size_t *dims, size_t ndims, const fb_nn_act *act,
                               fb_error *err);
/* Free a stack (NULL is fine). */
void fb_nn_stack_free(fb_nn_stack *s);

/* Number of networks (= inputs per network) d. */
size_t fb_nn_stack_d(const fb_nn_stack *s);
/* Number of weight layers (ndims - 1). */
size_t fb_nn_stack_layers(const fb_nn_stack *s);
/* Outputs per network (the last size). */
size_t fb_nn_stack_outputs(const fb_nn_stack *s);
/* Length of the flat parameter vector. */
size_t fb_nn_stack_nparams(const fb_nn_stack *s);
/* Where layer l's weight and bias sit in the flat vector (l < fb_nn_stack_layers). */
void fb_nn_stack_span(const fb_nn_stack *s, size_t l, fb_nn_span *span);

/* The stack's own flat parameter vector (fb_nn_stack_nparams entries); writing to it changes
 * the model.  Valid until the stack is freed. */
double *fb_nn_stack_params(fb_nn_stack *s);
/* Copy the parameters out to p (fb_nn_stack_nparams entries). */
void fb_nn_stack_get_params(const fb_nn_stack *s, double *p);
/* Copy p (fb_nn_stack_nparams entries) into the stack's parameters. */
void fb_nn_stack_set_params(fb_nn_stack *s, const double *p);

/* Initialisations of fb_nn_stack_init. */
enum fb_nn_init {
	/* PyTorch's defaults for Linear and NOTEARS-MLP's LocallyConnected: weights and biases
	 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = dims[l] (kaiming-uniform with a = sqrt 5) */
	FB_NN_INIT_TORCH = 0,
	/* Glorot (Xavier) uniform weights U(-b, b), b = sqrt(6 / (dims[l] + dims[l+1])), zero
	 * biases (MCSL's networks) */
	FB_NN_INIT_GLOROT,
};

/* Draw every parameter from r: layer by layer in the flat order, each entry
 * bound * (2u - 1) with u = gsl_rng_uniform(r), weights then biases (only weights draw under
 * Glorot).  Same stream state, same bits. */
void fb_nn_stack_init(fb_nn_stack *s, enum fb_nn_init how, gsl_rng *r);

/* x[k] = bound * (2u - 1), u = gsl_rng_uniform(r), for k < len, in order. */
void fb_nn_uniform_fill(double *x, size_t len, double bound, gsl_rng *r);

/* Forward pass on the n x d rows X with the optional mask (NULL for none); returns the output
 * ([n, d, outputs], owned by the stack, valid until its next forward) or NULL with the reason
 * in err when the workspace cannot grow.  X and mask must stay unchanged until the backward
 * pass that follows. */
const double *fb_nn_stack_forward(fb_nn_stack *s, size_t n, const double *X,
                                  const double *mask, fb_error *err);

/* Back-propagation of dOut = dL/d(output) ([n, d, outputs]) through the last forward pass,
 * given the same n, X and mask: grad (the flat parameter gradient) is overwritten; dmask
 * (d x d, only with a mask) and dX (n x d) are filled when not NULL.  FB_ERR when n or the
 * mask pointer differs from the last forward pass, or none was made. */
int fb_nn_stack_backward(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                         const double *dOut, double *grad, double *dmask, double *dX,
                         fb_error *err);

/* The reconstruction loss of a one-output stack, (1/2n) sum_sj (out[s,j] - X[s,j])^2, in
 * *loss, with (when grad is not NULL) its gradient in grad and, with a mask, in dmask (may be
 * NULL).  FB_ERR when the stack's networks have more than one output or the workspace cannot
 * grow. */
int fb_nn_stack_mse(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                    double *loss, double *grad, double *dmask, fb_error *err);

/* A[i*d + j] = sum over m of W0[(j, m), i]^2, the strength of input i in network j (NOTEARS-
 * MLP's equivalent adjacency; its weighted graph is sqrt(A)); A is d x d. */
void fb_nn_stack_input_strength(const fb_nn_stack *s, double *A);

#endif
