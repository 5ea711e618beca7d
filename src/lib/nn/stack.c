/* The per-variable MLP stack: d networks evaluated together, a dense first layer (optionally
 * with masked inputs) followed by locally-connected layers, its flat parameter vector, and
 * forward and backward passes over a batch of rows. */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/nn.h"
#include "nn-int.h"

struct fb_nn_stack {
	size_t d;          /* networks, and inputs per network */
	size_t L;          /* weight layers (ndims - 1) */
	size_t *dims;      /* the L + 1 sizes, dims[0] = d */
	fb_nn_act act;     /* activation after every layer but the last */
	fb_nn_span *span;  /* where each layer's weight and bias sit in params */
	size_t nparams;    /* length of params */
	double *params;    /* the flat parameter vector */
	double *w0m;       /* layer 0's weight times the mask, made by a masked forward pass */
	size_t width;      /* the largest dims[l], l >= 1: values per network per row */
	size_t cap;        /* rows the workspace below holds (0: none yet) */
	double **z;        /* per layer: its output before the activation, [cap, d, dims[l+1]] */
	double **a;        /* per layer but the last: its output after the activation */
	double *g1;        /* back-propagation buffer, [cap, d, width] */
	double *g2;        /* the second back-propagation buffer, same size */
	size_t n_fwd;      /* rows of the last forward pass (SIZE_MAX: none since the last grow) */
	const double *mask_fwd; /* the mask of the last forward pass (NULL: none) */
	double *lk;        /* fb_nn_leaky_mse's work (NULL: none yet) */
	size_t lk_rows;    /* rows it holds */
};

/* Number of networks. */
size_t fb_nn_stack_d(const fb_nn_stack *s)
{
	return s->d;
}

/* Number of weight layers. */
size_t fb_nn_stack_layers(const fb_nn_stack *s)
{
	return s->L;
}

/* Outputs per network. */
size_t fb_nn_stack_outputs(const fb_nn_stack *s)
{
	return s->dims[s->L];
}

/* Length of the flat parameter vector. */
size_t fb_nn_stack_nparams(const fb_nn_stack *s)
{
	return s->nparams;
}

/* Layer l's place in the flat vector. */
void fb_nn_stack_span(const fb_nn_stack *s, size_t l, fb_nn_span *span)
{
	*span = s->span[l];
}

/* The stack's own parameters. */
double *fb_nn_stack_params(fb_nn_stack *s)
{
	return s->params;
}

/* Copy the parameters out. */
void fb_nn_stack_get_params(const fb_nn_stack *s, double *p)
{
	memcpy(p, s->params, s->nparams * sizeof *p);
}

/* Copy parameters in. */
void fb_nn_stack_set_params(fb_nn_stack *s, const double *p)
{
	memcpy(s->params, p, s->nparams * sizeof *p);
}

/* Free the batch workspace and forget its size. */
static void stack_drop_workspace(fb_nn_stack *s)
{
	size_t l;

	for (l = 0; l < s->L; l++) {
		free(s->z[l]);
		if (s->a[l] != s->z[l])
			free(s->a[l]);
		s->z[l] = s->a[l] = NULL;
	}
	free(s->g1);
	free(s->g2);
	s->g1 = s->g2 = NULL;
	s->cap = 0;
	s->n_fwd = SIZE_MAX;
}

/* Free a stack. */
void fb_nn_stack_free(fb_nn_stack *s)
{
	if (s == NULL)
		return;
	if (s->z != NULL && s->a != NULL)
		stack_drop_workspace(s);
	free(s->z);
	free(s->a);
	free(s->w0m);
	free(s->lk);
	free(s->params);
	free(s->span);
	free(s->dims);
	free(s);
}

/* a * b, or 0 when it would pass limit (a, b >= 1). */
static size_t mul_capped(size_t a, size_t b, size_t limit)
{
	return a > limit / b ? 0 : a * b;
}

/* Check the sizes and lay out the flat vector; FB_ERR when a size is 0 or too large for the
 * BLAS's int dimensions. */
static int stack_layout(fb_nn_stack *s, fb_error *err)
{
	size_t l, off = 0;

	for (l = 0; l <= s->L; l++)
		if (s->dims[l] == 0)
			return fb_fail(err, "nn stack: size %zu of 'dims' is 0", l + 1);
	for (l = 0; l < s->L; l++) {
		size_t units = mul_capped(s->d, s->dims[l + 1], INT_MAX);
		size_t nw = units == 0 ? 0 : mul_capped(units, s->dims[l], INT_MAX);

		if (nw == 0 || off > SIZE_MAX / 2 - nw - units)
			return fb_fail(err, "nn stack: layer %zu of 'dims' is too large", l + 1);
		s->span[l] = (fb_nn_span){ off, nw, off + nw, units };
		off += nw + units;
		if (l > 0 && s->dims[l] > s->width)
			s->width = s->dims[l];
	}
	if (s->dims[s->L] > s->width)
		s->width = s->dims[s->L];
	s->nparams = off;
	return FB_OK;
}

/* A stack with the given sizes and activation, parameters zero. */
fb_nn_stack *fb_nn_stack_alloc(const size_t *dims, size_t ndims, const fb_nn_act *act,
                               fb_error *err)
{
	fb_nn_stack *s;

	if (ndims < 2) {
		fb_fail(err, "nn stack: 'dims' needs at least two sizes, got %zu", ndims);
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (s == NULL)
		goto oom;
	s->L = ndims - 1;
	s->d = dims[0];
	s->act = *act;
	s->n_fwd = SIZE_MAX;
	s->dims = malloc(ndims * sizeof *s->dims);
	s->span = calloc(s->L, sizeof *s->span);
	s->z = calloc(s->L, sizeof *s->z);
	s->a = calloc(s->L, sizeof *s->a);
	if (s->dims == NULL || s->span == NULL || s->z == NULL || s->a == NULL)
		goto oom;
	memcpy(s->dims, dims, ndims * sizeof *dims);
	if (stack_layout(s, err) != FB_OK)
		goto fail;
	s->params = calloc(s->nparams, sizeof *s->params);
	if (s->params == NULL)
		goto oom;
	fb_blas_single_thread();
	return s;
oom:
	fb_fail(err, "nn stack: out of memory");
fail:
	fb_nn_stack_free(s);
	return NULL;
}

/* Whether activations can overwrite their inputs: the backward pass then reads f(z) where it
 * read z, which gives the same derivative when z > 0 exactly where f(z) > 0 (LeakyReLU with
 * a slope >= 0; sigmoid and identity read only f(z) or nothing).  Half the memory traffic. */
static bool stack_inplace(const fb_nn_stack *s)
{
	return s->act.kind != FB_NN_ACT_LEAKY_RELU || s->act.slope >= 0.0;
}

/* Make room for n rows; FB_ERR when n is too large or memory runs out. */
static int stack_reserve(fb_nn_stack *s, size_t n, fb_error *err)
{
	size_t l, rows;

	if (n == 0)
		return fb_fail(err, "nn stack: the batch has no rows");
	if (n <= s->cap)
		return FB_OK;
	rows = mul_capped(n, s->d * s->width, INT_MAX);
	if (rows == 0 || n > INT_MAX / s->d)
		return fb_fail(err, "nn stack: a batch of %zu rows is too large", n);
	stack_drop_workspace(s);
	for (l = 0; l < s->L; l++) {
		size_t len = n * s->d * s->dims[l + 1];

		s->z[l] = malloc(len * sizeof(double));
		if (l + 1 < s->L)
			s->a[l] = stack_inplace(s) ? s->z[l] : malloc(len * sizeof(double));
		if (s->z[l] == NULL || (l + 1 < s->L && s->a[l] == NULL))
			goto oom;
	}
	s->g1 = malloc(rows * sizeof(double));
	s->g2 = malloc(rows * sizeof(double));
	if (s->g1 == NULL || s->g2 == NULL)
		goto oom;
	s->cap = n;
	return FB_OK;
oom:
	stack_drop_workspace(s);
	return fb_fail(err, "nn stack: out of memory for a batch of %zu rows", n);
}

/* Layer 0's weight as the forward pass uses it: the stored one, or times the mask. */
static const double *stack_w0(fb_nn_stack *s, const double *mask, fb_error *err)
{
	const double *w0 = s->params + s->span[0].weight;
	size_t r, i, m1 = s->dims[1], d = s->d;

	if (mask == NULL)
		return w0;
	if (s->w0m == NULL) {
		s->w0m = malloc(s->span[0].nweight * sizeof *s->w0m);
		if (s->w0m == NULL) {
			fb_fail(err, "nn stack: out of memory");
			return NULL;
		}
	}
	for (r = 0; r < d * m1; r++)
		for (i = 0; i < d; i++)
			s->w0m[r * d + i] = w0[r * d + i] * mask[i * d + r / m1];
	return s->w0m;
}

/* Whether the stack is {d, m, 1} with sigmoid units (NOTEARS-MLP's), whose passes run as
 * the loops of one-output.c. */
static bool stack_one(const fb_nn_stack *s)
{
	return s->L == 2 && s->dims[2] == 1 && s->act.kind == FB_NN_ACT_SIGMOID;
}

/* The forward pass of a {d, m, 1} sigmoid stack with layer 0's weight w0: the first
 * layer's dgemm, its bias added in the sigmoid's pass, then the output layer. */
static void stack_forward_one(fb_nn_stack *s, size_t n, const double *X, const double *w0)
{
	size_t d = s->d, dm = d * s->dims[1];

	fb_nn_dense_forward(n, d, dm, X, w0, NULL, s->z[0]);
	fb_nn_sigmoid_rows(n, dm, s->params + s->span[0].bias, s->z[0], s->a[0]);
	fb_nn_one_forward(n, d, s->dims[1], s->a[0], s->params + s->span[1].weight,
	                  s->params + s->span[1].bias, s->z[1]);
}

/* Forward pass over n rows. */
const double *fb_nn_stack_forward(fb_nn_stack *s, size_t n, const double *X,
                                  const double *mask, fb_error *err)
{
	const double *w0;
	size_t l, d = s->d;

	if (stack_reserve(s, n, err) != FB_OK || (w0 = stack_w0(s, mask, err)) == NULL)
		return NULL;
	s->n_fwd = n;
	s->mask_fwd = mask;
	if (stack_one(s)) {
		stack_forward_one(s, n, X, w0);
		return s->z[1];
	}
	fb_nn_dense_forward(n, d, d * s->dims[1], X, w0, s->params + s->span[0].bias, s->z[0]);
	for (l = 0; l < s->L; l++) {
		if (l > 0)
			fb_nn_local_forward(n, d, s->dims[l], s->dims[l + 1], s->a[l - 1],
			                    s->params + s->span[l].weight,
			                    s->params + s->span[l].bias, s->z[l]);
		if (l + 1 < s->L)
			fb_nn_act_forward(&s->act, n * d * s->dims[l + 1], s->z[l], s->a[l]);
	}
	return s->z[s->L - 1];
}

/* Turn layer 0's gradient with respect to the masked weight into the gradient with respect to
 * the stored weight (times the mask), and collect the mask's gradient in dmask when wanted. */
static void stack_mask_grad(const fb_nn_stack *s, const double *mask, double *g0, double *dmask)
{
	const double *w0 = s->params + s->span[0].weight;
	size_t r, i, m1 = s->dims[1], d = s->d;

	if (dmask != NULL)
		memset(dmask, 0, d * d * sizeof *dmask);
	for (r = 0; r < d * m1; r++)
		for (i = 0; i < d; i++) {
			size_t j = r / m1;

			if (dmask != NULL)
				dmask[i * d + j] += g0[r * d + i] * w0[r * d + i];
			g0[r * d + i] *= mask[i * d + j];
		}
}

/* stack_backprop for a {d, m, 1} sigmoid stack: the output layer, the sigmoid and the first
 * layer's bias in one pass over the rows (dL/dz into g2), then the first layer's dgemm; or,
 * without dX, both in fb_nn_one_backward_fused's pass where it runs (g2 its scratch). */
static void stack_backprop_one(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                               double *grad, double *dmask, double *dX)
{
	size_t d = s->d, dm = d * s->dims[1];
	fb_nn_one_grad out = { grad + s->span[1].weight, grad + s->span[1].bias, s->g2,
	                       grad + s->span[0].bias };

	if (dX != NULL || !fb_nn_one_backward_fused(n, d, s->dims[1], X, s->a[0],
	                                            s->params + s->span[1].weight, s->g1, &out,
	                                            grad + s->span[0].weight, s->g2)) {
		fb_nn_one_backward(n, d, s->dims[1], s->a[0], s->params + s->span[1].weight, s->g1,
		                   &out);
		fb_nn_dense_backward(n, d, dm, X,
		                     mask != NULL ? s->w0m : s->params + s->span[0].weight, s->g2,
		                     dX, grad + s->span[0].weight, NULL);
	}
	if (mask != NULL)
		stack_mask_grad(s, mask, grad + s->span[0].weight, dmask);
}

/* Back-propagate s->g1 (dL/d output of the last forward pass over n rows) into grad, dmask
 * and dX; uses g1 and g2 as scratch. */
static void stack_backprop(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                           double *grad, double *dmask, double *dX)
{
	double *cur = s->g1, *other = s->g2, *t;
	size_t l, d = s->d;

	if (stack_one(s)) {
		stack_backprop_one(s, n, X, mask, grad, dmask, dX);
		return;
	}
	for (l = s->L - 1; l > 0; l--) {
		fb_nn_local_backward(n, d, s->dims[l], s->dims[l + 1], s->a[l - 1],
		                     s->params + s->span[l].weight, cur, other,
		                     grad + s->span[l].weight, grad + s->span[l].bias);
		fb_nn_act_backward(&s->act, n * d * s->dims[l], s->z[l - 1], s->a[l - 1], other,
		                   other);
		t = cur, cur = other, other = t;
	}
	fb_nn_dense_backward(n, d, d * s->dims[1], X,
	                     mask != NULL ? s->w0m : s->params + s->span[0].weight, cur, dX,
	                     grad + s->span[0].weight, grad + s->span[0].bias);
	if (mask != NULL)
		stack_mask_grad(s, mask, grad + s->span[0].weight, dmask);
}

/* FB_ERR unless the last forward pass was over n rows with this mask. */
static int stack_check_forward(const fb_nn_stack *s, size_t n, const double *mask,
                               fb_error *err)
{
	if (s->n_fwd == SIZE_MAX)
		return fb_fail(err, "nn stack: backward pass without a forward pass");
	if (s->n_fwd != n)
		return fb_fail(err, "nn stack: backward pass over %zu rows after a forward pass "
		               "over %zu", n, s->n_fwd);
	if (s->mask_fwd != mask)
		return fb_fail(err, "nn stack: backward pass with another 'mask' than the forward "
		               "pass");
	return FB_OK;
}

/* Back-propagate dOut through the last forward pass. */
int fb_nn_stack_backward(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                         const double *dOut, double *grad, double *dmask, double *dX,
                         fb_error *err)
{
	if (stack_check_forward(s, n, mask, err) != FB_OK)
		return FB_ERR;
	memcpy(s->g1, dOut, n * s->d * s->dims[s->L] * sizeof *dOut);
	stack_backprop(s, n, X, mask, grad, dmask, dX);
	return FB_OK;
}

/* The squared loss of a stack fb_nn_leaky_fits takes, network by network: no forward pass
 * is kept for fb_nn_stack_backward. */
static int stack_mse_leaky(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                           double *loss, double *grad, double *dmask, fb_error *err)
{
	fb_nn_leaky_net k = { s->d, s->L, s->dims, s->span, s->act.slope, s->params };

	if (n == 0)
		return fb_fail(err, "nn stack: the batch has no rows");
	if (n > s->lk_rows) {
		size_t len = fb_nn_leaky_work_len(&k, n);
		double *w = n <= SIZE_MAX / 8 / s->d / s->width ? malloc(len * sizeof *w) : NULL;

		if (w == NULL)
			return fb_fail(err, "nn stack: out of memory for a batch of %zu rows", n);
		free(s->lk);
		s->lk = w;
		s->lk_rows = n;
	}
	s->n_fwd = SIZE_MAX;
	*loss = fb_nn_leaky_mse(&k, n, X, mask, grad, dmask, s->lk);
	return FB_OK;
}

/* Two doubles (GCC's vector extension: each lane its own IEEE operations). */
typedef double stack_v2 __attribute__((vector_size(16)));

/* sum over k in order of (out[k] - X[k])^2, and g[k] = (out[k] - X[k]) / n: the residuals
 * and quotients two at a time (the quotients are what make this pass slow), the sum one term
 * at a time; each value the one-at-a-time loop's. */
static double stack_residuals(size_t len, size_t n, const double *out, const double *X,
                              double *g)
{
	double sum = 0.0, dn = (double)n;
	stack_v2 nv = { dn, dn };
	size_t k = 0;

	for (; k + 2 <= len; k += 2) {
		stack_v2 o, x;

		memcpy(&o, out + k, sizeof o), memcpy(&x, X + k, sizeof x);
		o -= x;
		sum += o[0] * o[0], sum += o[1] * o[1];
		o /= nv;
		memcpy(g + k, &o, sizeof o);
	}
	for (; k < len; k++) {
		double r = out[k] - X[k];

		sum += r * r;
		g[k] = r / dn;
	}
	return sum;
}

/* (1/2n) |out - X|^2 and its gradient. */
int fb_nn_stack_mse(fb_nn_stack *s, size_t n, const double *X, const double *mask,
                    double *loss, double *grad, double *dmask, fb_error *err)
{
	const double *out;
	double sum;
	size_t len = n * s->d;

	if (s->dims[s->L] != 1)
		return fb_fail(err, "nn stack: the squared loss needs one output per network, "
		               "not %zu", s->dims[s->L]);
	if (fb_nn_leaky_fits(s->L, s->dims, &s->act))
		return stack_mse_leaky(s, n, X, mask, loss, grad, dmask, err);
	out = fb_nn_stack_forward(s, n, X, mask, err);
	if (out == NULL)
		return FB_ERR;
	sum = stack_residuals(len, n, out, X, s->g1);
	*loss = sum / (2.0 * (double)n);
	if (grad != NULL)
		stack_backprop(s, n, X, mask, grad, dmask, NULL);
	return FB_OK;
}

/* A[i*d + j] = sum_m W0[(j, m), i]^2. */
void fb_nn_stack_input_strength(const fb_nn_stack *s, double *A)
{
	const double *w0 = s->params + s->span[0].weight;
	size_t r, i, m1 = s->dims[1], d = s->d;

	memset(A, 0, d * d * sizeof *A);
	for (r = 0; r < d * m1; r++)
		for (i = 0; i < d; i++)
			A[i * d + r / m1] += w0[r * d + i] * w0[r * d + i];
}
