/* Unit tests of the neural building blocks: every layer, activation and whole stack against
 * central finite differences, the stack against d networks computed naively, the
 * initialisations' ranges, moments and bits, and Adam against PyTorch's own steps. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fedbn/nn.h"
#include "fedbn/optim.h"

/* A loss evaluated from whatever arrays ctx points to. */
typedef double (*loss_fn)(void *ctx);

/* len entries uniform in [-scale, scale) from r (the caller frees). */
static double *random_vec(gsl_rng *r, size_t len, double scale)
{
	double *x = malloc(len * sizeof *x);

	assert_non_null(x);
	fb_nn_uniform_fill(x, len, scale, r);
	return x;
}

/* Compare the analytic gradient g of f with respect to the len entries of p with central
 * differences (step 1e-5), to relative tolerance rel (on a scale of at least 1e-3); fails
 * too when every entry is zero, which would make the check empty. */
static void check_fd(const double *g, double *p, size_t len, loss_fn f, void *ctx, double rel,
                     const char *what)
{
	const double h = 1e-5;
	size_t k, nonzero = 0;

	for (k = 0; k < len; k++) {
		double keep = p[k], up, down, fd, tol;

		p[k] = keep + h;
		up = f(ctx);
		p[k] = keep - h;
		down = f(ctx);
		p[k] = keep;
		fd = (up - down) / (2.0 * h);
		tol = rel * fmax(fabs(fd), 1e-3);
		if (!(fabs(g[k] - fd) <= tol))
			fail_msg("%s[%zu]: analytic %.12g, central difference %.12g", what, k, g[k], fd);
		nonzero += g[k] != 0.0;
	}
	assert_true(nonzero > 0);
}

/* Fail unless got equals want to relative tolerance rel (absolute below 1). */
static void assert_rel(double got, double want, double rel)
{
	double tol = rel * (fabs(want) > 1.0 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* sum_k c[k] y[k]. */
static double dot(const double *c, const double *y, size_t len)
{
	double s = 0.0;
	size_t k;

	for (k = 0; k < len; k++)
		s += c[k] * y[k];
	return s;
}

/* One layer under test: its sizes, inputs, parameters and the loss weights C. */
struct layer_case {
	int local;           /* 1: locally connected, 0: dense */
	size_t n, d, in, out; /* rows, networks (local only), sizes */
	double *X, *W, *b;   /* input and parameters */
	double *C, *Y;       /* loss sum(C o Y) and the output */
};

/* sum(C o Y) with Y the layer's output on the case's arrays. */
static double layer_loss(void *ctx)
{
	struct layer_case *c = ctx;

	if (c->local)
		fb_nn_local_forward(c->n, c->d, c->in, c->out, c->X, c->W, c->b, c->Y);
	else
		fb_nn_dense_forward(c->n, c->in, c->out, c->X, c->W, c->b, c->Y);
	return dot(c->C, c->Y, c->n * c->d * c->out);
}

/* Check dX, dW and db of one layer kind against finite differences. */
static void check_layer(int local)
{
	gsl_rng *r = fb_rng_stream(11, local ? "test-local" : "test-dense");
	struct layer_case c = { local, 7, local ? 3 : 1, 5, 4, NULL, NULL, NULL, NULL, NULL };
	size_t nx = c.n * c.d * c.in, nw = c.d * c.in * c.out, ny = c.n * c.d * c.out;
	double *dX = malloc(nx * sizeof *dX), *dW = malloc(nw * sizeof *dW);
	double *db = malloc(c.d * c.out * sizeof *db);

	c.X = random_vec(r, nx, 1.7);
	c.W = random_vec(r, nw, 0.9);
	c.b = random_vec(r, c.d * c.out, 0.5);
	c.C = random_vec(r, ny, 1.3);
	c.Y = malloc(ny * sizeof *c.Y);
	if (local)
		fb_nn_local_backward(c.n, c.d, c.in, c.out, c.X, c.W, c.C, dX, dW, db);
	else
		fb_nn_dense_backward(c.n, c.in, c.out, c.X, c.W, c.C, dX, dW, db);
	check_fd(dX, c.X, nx, layer_loss, &c, 1e-7, "dX");
	check_fd(dW, c.W, nw, layer_loss, &c, 1e-7, "dW");
	check_fd(db, c.b, c.d * c.out, layer_loss, &c, 1e-7, "db");
	free(c.X), free(c.W), free(c.b), free(c.C), free(c.Y), free(dX), free(dW), free(db);
	gsl_rng_free(r);
}

/* The dense layer's gradients agree with finite differences. */
static void test_dense_grad(void **state)
{
	(void)state;
	check_layer(0);
}

/* The locally-connected layer's gradients agree with finite differences. */
static void test_local_grad(void **state)
{
	(void)state;
	check_layer(1);
}

/* An activation under test with its input and loss weights. */
struct act_case {
	fb_nn_act act; /* the function */
	size_t len;    /* entries */
	double *z, *a; /* input and output */
	double *c;     /* loss sum(c o a) */
};

/* sum(c o f(z)). */
static double act_loss(void *ctx)
{
	struct act_case *c = ctx;

	fb_nn_act_forward(&c->act, c->len, c->z, c->a);
	return dot(c->c, c->a, c->len);
}

/* Sigmoid, LeakyReLU (two slopes) and identity: derivatives against finite differences,
 * values against their definitions, and overflow-free sigmoid at large |z|. */
static void test_act_grad(void **state)
{
	const fb_nn_act acts[] = {
		{ FB_NN_ACT_SIGMOID, 0.0 },
		{ FB_NN_ACT_LEAKY_RELU, FB_NN_LEAKY_SLOPE },
		{ FB_NN_ACT_LEAKY_RELU, 0.05 },
		{ FB_NN_ACT_IDENTITY, 0.0 },
	};
	gsl_rng *r = fb_rng_stream(3, "test-act");
	size_t i, k;
	double big[2] = { -800.0, 800.0 }, sb[2];

	(void)state;
	for (i = 0; i < sizeof acts / sizeof acts[0]; i++) {
		struct act_case c = { acts[i], 40, NULL, NULL, NULL };
		double *dz = malloc(c.len * sizeof *dz);

		c.z = random_vec(r, c.len, 4.3);
		c.c = random_vec(r, c.len, 1.1);
		c.a = malloc(c.len * sizeof *c.a);
		act_loss(&c);
		for (k = 0; k < c.len; k++) {
			double z = c.z[k], want = acts[i].kind == FB_NN_ACT_SIGMOID ? 1.0 / (1.0 + exp(-z))
			                      : acts[i].kind == FB_NN_ACT_IDENTITY ? z
			                      : z > 0.0 ? z : acts[i].slope * z;

			assert_rel(c.a[k], want, 1e-15);
		}
		fb_nn_act_backward(&c.act, c.len, c.z, c.a, c.c, dz);
		check_fd(dz, c.z, c.len, act_loss, &c, 1e-7, "dz");
		free(c.z), free(c.c), free(c.a), free(dz);
	}
	fb_nn_act_forward(&acts[0], 2, big, sb);
	assert_true(sb[0] >= 0.0 && sb[0] < 1e-300 && sb[1] == 1.0);
	gsl_rng_free(r);
}

/* Network j of a stack on row x by plain loops, reading the flat vector p as the header
 * documents it: the reference for the stack's forward pass. */
static double naive_net(const size_t *dims, size_t ndims, const fb_nn_act *act, const double *p,
                        const double *x, const double *mask, size_t j)
{
	double h[64], nh[64];
	size_t d = dims[0], l, q, k, off = 0;

	for (q = 0; q < dims[1]; q++) { /* layer 0: weight (d*dims[1]) x d, then bias */
		double s = p[d * dims[1] * d + j * dims[1] + q];

		for (k = 0; k < d; k++)
			s += p[(j * dims[1] + q) * d + k] * x[k] * (mask != NULL ? mask[k * d + j] : 1.0);
		h[q] = s;
	}
	off = d * dims[1] * d + d * dims[1];
	for (l = 1; l < ndims - 1; l++) { /* layer l: weight [d, in, out], bias [d, out] */
		size_t in = dims[l], out = dims[l + 1];

		for (k = 0; k < in; k++)
			h[k] = act->kind == FB_NN_ACT_SIGMOID ? 1.0 / (1.0 + exp(-h[k]))
			       : h[k] > 0.0 ? h[k] : act->slope * h[k];
		for (q = 0; q < out; q++) {
			double s = p[off + d * in * out + j * out + q];

			for (k = 0; k < in; k++)
				s += h[k] * p[off + (j * in + k) * out + q];
			nh[q] = s;
		}
		memcpy(h, nh, out * sizeof *h);
		off += d * in * out + d * out;
	}
	return h[0];
}

/* The stack's forward pass equals d separate networks computed naively, with and without a
 * mask, for NOTEARS-MLP's shape, an MCSL-like deep LeakyReLU shape and a single linear layer. */
static void test_stack_vs_naive(void **state)
{
	const size_t dims1[] = { 5, 10, 1 }, dims2[] = { 5, 16, 16, 16, 16, 1 }, dims3[] = { 5, 1 };
	const size_t *dims[] = { dims1, dims2, dims3 }, nd[] = { 3, 6, 2 };
	const fb_nn_act acts[] = { { FB_NN_ACT_SIGMOID, 0 }, { FB_NN_ACT_LEAKY_RELU, 0.05 },
		                   { FB_NN_ACT_SIGMOID, 0 } };
	gsl_rng *r = fb_rng_stream(5, "test-naive");
	size_t t, n = 13, s, j, l;
	double *X = random_vec(r, n * 5, 2.2), *mask = random_vec(r, 25, 1.0);

	(void)state;
	for (t = 0; t < 6; t++) {
		fb_nn_stack *st = fb_nn_stack_alloc(dims[t % 3], nd[t % 3], &acts[t % 3], NULL);
		const double *m = t < 3 ? NULL : mask, *out;

		assert_non_null(st);
		fb_nn_stack_init(st, t % 3 == 1 ? FB_NN_INIT_GLOROT : FB_NN_INIT_TORCH, r);
		/* Glorot leaves zero biases; give them values so that they are checked too */
		for (l = 0; l < nd[t % 3] - 1; l++) {
			fb_nn_span sp;

			fb_nn_stack_span(st, l, &sp);
			fb_nn_uniform_fill(fb_nn_stack_params(st) + sp.bias, sp.nbias, 0.3, r);
		}
		out = fb_nn_stack_forward(st, n, X, m, NULL);
		assert_non_null(out);
		for (s = 0; s < n; s++)
			for (j = 0; j < 5; j++)
				assert_rel(out[s * 5 + j], naive_net(dims[t % 3], nd[t % 3], &acts[t % 3],
				                                     fb_nn_stack_params(st), X + s * 5, m, j),
				           1e-13);
		fb_nn_stack_free(st);
	}
	free(X), free(mask);
	gsl_rng_free(r);
}

/* The flat vector lines up with PyTorch's parameters() of the reference model (a Linear(d,
 * d*m1) first layer, then locally-connected layers, sigmoid before each): loss and gradient of
 * a [4, 3, 2, 1] stack at fixed parameters p_k = 0.5 sin(0.7k + 0.3), on the 6 x 4 rows
 * X[s][i] = cos(1.3s + 0.7i)(1 + 0.1i), match Debian's python3-torch 1.13.1 (float64, the same
 * model written with Linear's x W^T + b and einsum('njp,jpq->njq') for the locally-connected
 * layers, loss 0.5/n sum (out - X)^2, backward(), parameters' gradients concatenated flat);
 * printed with repr: the loss, sum_k g_k cos(k) and five single entries. */
static void test_stack_vs_torch(void **state)
{
	const size_t dims[] = { 4, 3, 2, 1 }, at[5] = { 0, 47, 50, 65, 103 };
	const double want_g[5] = { 0.008381824465238394, -0.002209651284694729, 0.0121432942496714,
		                   0.021197328012798444, 0.16680033694982493 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	fb_nn_stack *st = fb_nn_stack_alloc(dims, 4, &act, NULL);
	double X[24], g[104], loss, sum = 0.0;
	size_t k, s, i;

	(void)state;
	assert_int_equal(fb_nn_stack_nparams(st), 104);
	for (k = 0; k < 104; k++)
		fb_nn_stack_params(st)[k] = 0.5 * sin(0.7 * (double)k + 0.3);
	for (s = 0; s < 6; s++)
		for (i = 0; i < 4; i++)
			X[s * 4 + i] = cos(1.3 * (double)s + 0.7 * (double)i) * (1.0 + 0.1 * (double)i);
	assert_int_equal(fb_nn_stack_mse(st, 6, X, NULL, &loss, g, NULL, NULL), FB_OK);
	assert_rel(loss, 1.5442686105051266, 1e-13);
	for (k = 0; k < 104; k++)
		sum += g[k] * cos((double)k);
	assert_rel(sum, 0.6787454217797168, 1e-13);
	for (k = 0; k < 5; k++)
		assert_rel(g[at[k]] / want_g[k], 1.0, 1e-12);
	fb_nn_stack_free(st);
}

/* The locally-connected layer equals d dense layers, each on its own slice, naively. */
static void test_local_vs_naive(void **state)
{
	gsl_rng *r = fb_rng_stream(6, "test-local-naive");
	size_t n = 9, d = 4, in = 3, out = 5, s, j, p, q;
	double *X = random_vec(r, n * d * in, 1.4), *W = random_vec(r, d * in * out, 0.8);
	double *b = random_vec(r, d * out, 0.6), *Y = malloc(n * d * out * sizeof *Y);

	(void)state;
	fb_nn_local_forward(n, d, in, out, X, W, b, Y);
	for (s = 0; s < n; s++)
		for (j = 0; j < d; j++)
			for (q = 0; q < out; q++) {
				double want = b[j * out + q];

				for (p = 0; p < in; p++)
					want += X[(s * d + j) * in + p] * W[(j * in + p) * out + q];
				assert_rel(Y[(s * d + j) * out + q], want, 1e-14);
			}
	free(X), free(W), free(b), free(Y);
	gsl_rng_free(r);
}

/* A stack under test with its batch, mask and the weights of a linear loss. */
struct stack_case {
	fb_nn_stack *st;    /* the stack */
	size_t n;           /* rows */
	double *X, *mask;   /* batch (n x d) and mask (d x d, or NULL) */
	double *C;          /* linear loss weights [n, d, outputs] (NULL: the squared loss) */
};

/* The squared loss, or sum(C o output) when C is set. */
static double stack_loss(void *ctx)
{
	struct stack_case *c = ctx;
	double loss;

	if (c->C == NULL) {
		assert_int_equal(fb_nn_stack_mse(c->st, c->n, c->X, c->mask, &loss, NULL, NULL, NULL),
		                 FB_OK);
		return loss;
	}
	return dot(c->C, fb_nn_stack_forward(c->st, c->n, c->X, c->mask, NULL),
	           c->n * fb_nn_stack_d(c->st) * fb_nn_stack_outputs(c->st));
}

/* NOTEARS-MLP's stack (sigmoid) with the squared loss: every parameter's derivative against
 * finite differences. */
static void test_stack_grad_mse(void **state)
{
	const size_t dims[] = { 4, 5, 3, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	gsl_rng *r = fb_rng_stream(8, "test-stack");
	struct stack_case c = { fb_nn_stack_alloc(dims, 4, &act, NULL), 11, NULL, NULL, NULL };
	double loss, *grad;

	(void)state;
	assert_non_null(c.st);
	fb_nn_stack_init(c.st, FB_NN_INIT_TORCH, r);
	c.X = random_vec(r, c.n * 4, 1.9);
	grad = malloc(fb_nn_stack_nparams(c.st) * sizeof *grad);
	assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, NULL, &loss, grad, NULL, NULL), FB_OK);
	assert_rel(loss, stack_loss(&c), 1e-15);
	check_fd(grad, fb_nn_stack_params(c.st), fb_nn_stack_nparams(c.st), stack_loss, &c, 1e-6,
	         "grad");
	free(grad), free(c.X);
	fb_nn_stack_free(c.st);
	gsl_rng_free(r);
}

/* A masked LeakyReLU stack (MCSL's kind) with two outputs per network and a linear loss: the
 * parameters', the mask's and the input's derivatives against finite differences; then the
 * squared loss's mask derivative on a one-output stack. */
static void test_stack_grad_masked(void **state)
{
	const size_t dims[] = { 4, 3, 3, 2 }, dims1[] = { 4, 6, 1 };
	const fb_nn_act act = { FB_NN_ACT_LEAKY_RELU, 0.05 };
	gsl_rng *r = fb_rng_stream(9, "test-stack-mask");
	struct stack_case c = { fb_nn_stack_alloc(dims, 4, &act, NULL), 6, NULL, NULL, NULL };
	double *grad, dmask[16], *dX, loss;

	(void)state;
	assert_non_null(c.st);
	fb_nn_stack_init(c.st, FB_NN_INIT_TORCH, r);
	c.X = random_vec(r, c.n * 4, 1.9);
	c.mask = random_vec(r, 16, 1.0);
	c.C = random_vec(r, c.n * 4 * 2, 1.0);
	grad = malloc(fb_nn_stack_nparams(c.st) * sizeof *grad);
	dX = malloc(c.n * 4 * sizeof *dX);
	assert_non_null(fb_nn_stack_forward(c.st, c.n, c.X, c.mask, NULL));
	assert_int_equal(fb_nn_stack_backward(c.st, c.n, c.X, c.mask, c.C, grad, dmask, dX, NULL),
	                 FB_OK);
	check_fd(grad, fb_nn_stack_params(c.st), fb_nn_stack_nparams(c.st), stack_loss, &c, 1e-6,
	         "grad");
	check_fd(dmask, c.mask, 16, stack_loss, &c, 1e-6, "dmask");
	check_fd(dX, c.X, c.n * 4, stack_loss, &c, 1e-6, "dX");
	fb_nn_stack_free(c.st);
	free(grad), free(c.C);
	c.C = NULL;
	c.st = fb_nn_stack_alloc(dims1, 3, &act, NULL);
	fb_nn_stack_init(c.st, FB_NN_INIT_GLOROT, r);
	grad = malloc(fb_nn_stack_nparams(c.st) * sizeof *grad);
	assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, c.mask, &loss, grad, dmask, NULL), FB_OK);
	check_fd(dmask, c.mask, 16, stack_loss, &c, 1e-6, "dmask (squared loss)");
	check_fd(grad, fb_nn_stack_params(c.st), fb_nn_stack_nparams(c.st), stack_loss, &c, 1e-6,
	         "grad (squared loss)");
	fb_nn_stack_free(c.st);
	free(grad), free(c.X), free(c.mask), free(dX);
	gsl_rng_free(r);
}

/* The squared loss of stack st over its case's rows the layer-by-layer way (forward pass,
 * residuals, backward pass through the BLAS layers) into loss, grad and dmask. */
static void mse_by_layers(const struct stack_case *c, double *loss, double *grad,
                          double *dmask)
{
	size_t len = c->n * fb_nn_stack_d(c->st);
	const double *out = fb_nn_stack_forward(c->st, c->n, c->X, c->mask, NULL);
	double *dOut = malloc(len * sizeof *dOut), sum = 0.0;

	assert_non_null(out);
	for (size_t k = 0; k < len; k++) {
		sum += (out[k] - c->X[k]) * (out[k] - c->X[k]);
		dOut[k] = (out[k] - c->X[k]) / (double)c->n;
	}
	*loss = sum / (2.0 * (double)c->n);
	assert_int_equal(fb_nn_stack_backward(c->st, c->n, c->X, c->mask, dOut, grad, dmask, NULL,
	                                      NULL), FB_OK);
	free(dOut);
}

/* MCSL's LeakyReLU stacks (hidden sizes multiples of 4), whose squared loss runs network by
 * network: loss, parameter and mask gradients against the layer-by-layer passes for two
 * shapes, with and without a mask, on an odd and an even number of rows (both to 1e-12),
 * the small shape's derivatives against finite differences (on draws that put no unit within
 * the difference step of LeakyReLU's kink), and the same bits twice. */
static void test_stack_leaky_mse(void **state)
{
	const size_t dims[2][6] = { { 5, 8, 4, 1 }, { 6, 16, 16, 16, 16, 1 } }, nd[2] = { 4, 6 };
	const fb_nn_act act = { FB_NN_ACT_LEAKY_RELU, 0.05 };
	gsl_rng *r = fb_rng_stream(13, "test-stack-leaky");

	(void)state;
	for (size_t t = 0; t < 8; t++) {
		size_t sh = t % 2, d = dims[sh][0], np;
		struct stack_case c = { fb_nn_stack_alloc(dims[sh], nd[sh], &act, NULL),
		                        t < 4 ? 7 : 64, NULL, NULL, NULL };
		double *g = NULL, *g2, *g3, dm[36], dm2[36], loss, loss2, loss3;

		assert_non_null(c.st);
		fb_nn_stack_init(c.st, FB_NN_INIT_TORCH, r);
		np = fb_nn_stack_nparams(c.st);
		c.X = random_vec(r, c.n * d, 1.9);
		c.mask = t % 4 >= 2 ? random_vec(r, d * d, 1.0) : NULL;
		g = malloc(np * sizeof *g), g2 = malloc(np * sizeof *g2), g3 = malloc(np * sizeof *g3);
		assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, c.mask, &loss, g, dm, NULL), FB_OK);
		mse_by_layers(&c, &loss2, g2, dm2);
		assert_rel(loss, loss2, 1e-12);
		for (size_t k = 0; k < np; k++)
			assert_rel(g[k], g2[k], 1e-12);
		for (size_t k = 0; c.mask != NULL && k < d * d; k++)
			assert_rel(dm[k], dm2[k], 1e-12);
		assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, c.mask, &loss3, g3, NULL, NULL),
		                 FB_OK);
		assert_true(loss3 == loss && memcmp(g, g3, np * sizeof *g) == 0);
		if (sh == 0 && c.n == 7) {
			check_fd(g, fb_nn_stack_params(c.st), np, stack_loss, &c, 1e-6, "grad");
			if (c.mask != NULL)
				check_fd(dm, c.mask, d * d, stack_loss, &c, 1e-6, "dmask");
		}
		fb_nn_stack_free(c.st);
		free(g), free(g2), free(g3), free(c.X), free(c.mask);
	}
	gsl_rng_free(r);
}

/* NOTEARS-MLP's own shape {d, m, 1} with sigmoid units, which runs on its own loops: for an
 * odd and an even m, with and without a mask, the squared loss's parameter and mask
 * derivatives and a linear loss's parameter, mask and input derivatives against finite
 * differences. */
static void test_stack_one_grad(void **state)
{
	const size_t dims[2][3] = { { 5, 3, 1 }, { 4, 6, 1 } };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	gsl_rng *r = fb_rng_stream(10, "test-stack-one");

	(void)state;
	for (size_t t = 0; t < 4; t++) {
		size_t d = dims[t % 2][0], np;
		struct stack_case c = { fb_nn_stack_alloc(dims[t % 2], 3, &act, NULL), 7, NULL,
		                        NULL, NULL };
		double *grad, dmask[25], *dX, loss;

		assert_non_null(c.st);
		fb_nn_stack_init(c.st, FB_NN_INIT_TORCH, r);
		np = fb_nn_stack_nparams(c.st);
		c.X = random_vec(r, c.n * d, 1.9);
		c.mask = t >= 2 ? random_vec(r, d * d, 1.0) : NULL;
		grad = malloc(np * sizeof *grad);
		dX = malloc(c.n * d * sizeof *dX);
		assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, c.mask, &loss, grad, dmask, NULL),
		                 FB_OK);
		check_fd(grad, fb_nn_stack_params(c.st), np, stack_loss, &c, 1e-6, "grad");
		if (c.mask != NULL)
			check_fd(dmask, c.mask, d * d, stack_loss, &c, 1e-6, "dmask");
		c.C = random_vec(r, c.n * d, 1.0);
		assert_non_null(fb_nn_stack_forward(c.st, c.n, c.X, c.mask, NULL));
		assert_int_equal(fb_nn_stack_backward(c.st, c.n, c.X, c.mask, c.C, grad, dmask, dX,
		                                      NULL), FB_OK);
		check_fd(grad, fb_nn_stack_params(c.st), np, stack_loss, &c, 1e-6, "grad (linear)");
		check_fd(dX, c.X, c.n * d, stack_loss, &c, 1e-6, "dX");
		if (c.mask != NULL)
			check_fd(dmask, c.mask, d * d, stack_loss, &c, 1e-6, "dmask (linear)");
		fb_nn_stack_free(c.st);
		free(grad), free(dX), free(c.X), free(c.mask), free(c.C);
	}
	gsl_rng_free(r);
}

/* One {d, m, 1} sigmoid case over n rows (mask or not): the squared loss's gradient as
 * fb_nn_stack_mse forms it (the fused AVX-512 pass where it runs) equals, bit for bit, the
 * gradient of the BLAS path, which a backward pass that also wants dX takes, fed the same
 * dL/d output (out - X) / n. */
static void check_one_paths(size_t d, size_t m, size_t n, bool masked, gsl_rng *r)
{
	const size_t dims[3] = { d, m, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	fb_nn_stack *st = fb_nn_stack_alloc(dims, 3, &act, NULL);
	double *X = random_vec(r, n * d, 1.9), *mask = masked ? random_vec(r, d * d, 1.0) : NULL;
	double *g1, *g2, *dOut = malloc(n * d * sizeof *dOut), *dX = malloc(n * d * sizeof *dX);
	double dm1[100], dm2[100], loss;
	const double *out;
	size_t np;

	assert_non_null(st);
	assert_true(d <= 10 && dOut != NULL && dX != NULL);
	fb_nn_stack_init(st, FB_NN_INIT_TORCH, r);
	np = fb_nn_stack_nparams(st);
	g1 = malloc(np * sizeof *g1), g2 = malloc(np * sizeof *g2);
	assert_int_equal(fb_nn_stack_mse(st, n, X, mask, &loss, g1, dm1, NULL), FB_OK);
	out = fb_nn_stack_forward(st, n, X, mask, NULL);
	assert_non_null(out);
	for (size_t k = 0; k < n * d; k++)
		dOut[k] = (out[k] - X[k]) / (double)n;
	assert_int_equal(fb_nn_stack_backward(st, n, X, mask, dOut, g2, dm2, dX, NULL), FB_OK);
	assert_memory_equal(g1, g2, np * sizeof *g1);
	if (masked)
		assert_memory_equal(dm1, dm2, d * d * sizeof *dm1);
	fb_nn_stack_free(st);
	free(X), free(mask), free(g1), free(g2), free(dOut), free(dX);
}

/* The fused backward pass of the {d, m, 1} sigmoid stack gives the BLAS path's bits (under
 * any OpenBLAS kernel: where it does not run, both are the BLAS path): units in whole blocks
 * of eight and not, inputs in whole groups of eight, four and fewer, rows up to the limit of
 * OpenBLAS's SkylakeX kernels (384) and past it, and fewer than eight units (never fused). */
static void test_stack_one_fused(void **state)
{
	const size_t cases[][3] = { { 10, 10, 64 }, { 4, 10, 100 }, { 10, 10, 200 }, { 5, 3, 7 },
		                    { 9, 5, 33 }, { 4, 4, 256 }, { 3, 5, 257 }, { 4, 4, 384 },
		                    { 4, 4, 385 }, { 3, 2, 50 }, { 10, 1, 40 } };
	gsl_rng *r = fb_rng_stream(11, "test-stack-one-fused");

	(void)state;
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++)
		for (int masked = 0; masked < 2; masked++)
			check_one_paths(cases[t][0], cases[t][1], cases[t][2], masked, r);
	gsl_rng_free(r);
}

/* The input strength (NOTEARS-MLP's adjacency) of a hand-worked [2, 2, 1] first layer:
 * A[i][j] sums the squares of input i's weights over network j's hidden units. */
static void test_input_strength(void **state)
{
	const size_t dims[] = { 2, 2, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	/* rows (network j, unit m): (0,0), (0,1), (1,0), (1,1); columns: inputs 0 and 1 */
	const double w0[8] = { 1.5, -2.0, 3.0, 0.25, -0.5, 6.0, 7.0, 8.0 };
	fb_nn_stack *s = fb_nn_stack_alloc(dims, 3, &act, NULL);
	double A[4];

	(void)state;
	memcpy(fb_nn_stack_params(s), w0, sizeof w0);
	fb_nn_stack_input_strength(s, A);
	assert_rel(A[0], 1.5 * 1.5 + 3.0 * 3.0, 1e-15);     /* input 0 into network 0 */
	assert_rel(A[1], 0.5 * 0.5 + 7.0 * 7.0, 1e-15);     /* input 0 into network 1 */
	assert_rel(A[2], 2.0 * 2.0 + 0.25 * 0.25, 1e-15);   /* input 1 into network 0 */
	assert_rel(A[3], 6.0 * 6.0 + 8.0 * 8.0, 1e-15);     /* input 1 into network 1 */
	fb_nn_stack_free(s);
}

/* Mean and variance of len values. */
static void moments(const double *x, size_t len, double *mean, double *var)
{
	double s = 0.0, ss = 0.0;
	size_t k;

	for (k = 0; k < len; k++)
		s += x[k];
	*mean = s / (double)len;
	for (k = 0; k < len; k++)
		ss += (x[k] - *mean) * (x[k] - *mean);
	*var = ss / (double)len;
}

/* len values lie in [-bound, bound), reach past (1 - 20/len) bound on both sides (missed with
 * probability e^-10 each), and have the mean and variance of U(-bound, bound) within 4 standard
 * errors (the variance's relative standard error is sqrt(0.8/len) for a uniform). */
static void check_uniform(const double *x, size_t len, double bound)
{
	double mean, var, lo = 0.0, hi = 0.0;
	size_t k;

	for (k = 0; k < len; k++) {
		assert_true(x[k] >= -bound && x[k] < bound);
		lo = fmin(lo, x[k]);
		hi = fmax(hi, x[k]);
	}
	assert_true(lo < -(1.0 - 20.0 / (double)len) * bound);
	assert_true(hi > (1.0 - 20.0 / (double)len) * bound);
	moments(x, len, &mean, &var);
	assert_true(fabs(mean) < 4.0 * bound / sqrt(3.0 * (double)len));
	assert_true(fabs(var / (bound * bound / 3.0) - 1.0) < 4.0 * sqrt(0.8 / (double)len));
}

/* PyTorch-default and Glorot initialisation of NOTEARS-MLP's [20, 10, 1] and a deep stack:
 * ranges, moments and zero biases where promised. */
static void test_init_stats(void **state)
{
	const size_t dims[] = { 20, 10, 1 }, deep[] = { 20, 16, 16, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	gsl_rng *r = fb_rng_stream(1, "nn-init");
	fb_nn_stack *a = fb_nn_stack_alloc(dims, 3, &act, NULL);
	fb_nn_stack *g = fb_nn_stack_alloc(deep, 4, &act, NULL);
	fb_nn_span sp;
	size_t k;

	(void)state;
	assert_int_equal(fb_nn_stack_nparams(a), 10 * 20 * 20 + 200 + 200 + 20);
	fb_nn_stack_init(a, FB_NN_INIT_TORCH, r);
	fb_nn_stack_span(a, 0, &sp);
	check_uniform(fb_nn_stack_params(a) + sp.weight, sp.nweight, 1.0 / sqrt(20.0));
	check_uniform(fb_nn_stack_params(a) + sp.bias, sp.nbias, 1.0 / sqrt(20.0));
	fb_nn_stack_span(a, 1, &sp);
	check_uniform(fb_nn_stack_params(a) + sp.weight, sp.nweight, 1.0 / sqrt(10.0));
	fb_nn_stack_init(g, FB_NN_INIT_GLOROT, r);
	fb_nn_stack_span(g, 0, &sp);
	check_uniform(fb_nn_stack_params(g) + sp.weight, sp.nweight, sqrt(6.0 / 36.0));
	for (k = 0; k < sp.nbias; k++)
		assert_true(fb_nn_stack_params(g)[sp.bias + k] == 0.0);
	fb_nn_stack_span(g, 1, &sp);
	check_uniform(fb_nn_stack_params(g) + sp.weight, sp.nweight, sqrt(6.0 / 32.0));
	fb_nn_stack_free(a);
	fb_nn_stack_free(g);
	gsl_rng_free(r);
}

/* Same seed and stream name give the same bits; another name gives other values. */
static void test_init_deterministic(void **state)
{
	const size_t dims[] = { 6, 10, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	fb_nn_stack *s[3];
	size_t i, np;

	(void)state;
	for (i = 0; i < 3; i++) {
		gsl_rng *r = fb_rng_stream(42, i < 2 ? "nn-init" : "nn-init-2");

		s[i] = fb_nn_stack_alloc(dims, 3, &act, NULL);
		fb_nn_stack_init(s[i], FB_NN_INIT_TORCH, r);
		gsl_rng_free(r);
	}
	np = fb_nn_stack_nparams(s[0]);
	assert_memory_equal(fb_nn_stack_params(s[0]), fb_nn_stack_params(s[1]), np * sizeof(double));
	assert_true(memcmp(fb_nn_stack_params(s[0]), fb_nn_stack_params(s[2]),
	                   np * sizeof(double)) != 0);
	for (i = 0; i < 3; i++)
		fb_nn_stack_free(s[i]);
}

/* f(x) = (x0 - 1.3)^2 + 3.7 x0 x1 + 0.6 x1^4 and its gradient. */
static void adam_problem_grad(const double *x, double *g)
{
	g[0] = 2.0 * (x[0] - 1.3) + 3.7 * x[1];
	g[1] = 3.7 * x[0] + 2.4 * x[1] * x[1] * x[1];
}

/* Adam's first three steps on f from (0.7, -1.9) with lr 0.05 match PyTorch's.  The expected
 * values come from Debian's python3-torch 1.13.1+dfsg-4 (float64, the CPU's single-tensor
 * Adam):
 *   x = torch.tensor([0.7, -1.9], dtype=torch.float64, requires_grad=True)
 *   opt = torch.optim.Adam([x], lr=0.05)
 *   three times: opt.zero_grad(); f(x).backward(); opt.step(); then print repr(float) of x. */
static void test_adam_torch(void **state)
{
	static const double want[3][2] = {
		{ 0.7499999999392466, -1.8500000000360448 },
		{ 0.7999463197163166, -1.800219543065571 },
		{ 0.8498006635109182, -1.7508265058659251 },
	};
	double x[2] = { 0.7, -1.9 }, g[2];
	fb_adam a;
	int t;

	(void)state;
	assert_int_equal(fb_adam_init(&a, 2, 0.05, NULL), FB_OK);
	for (t = 0; t < 3; t++) {
		adam_problem_grad(x, g);
		fb_adam_step(&a, x, g);
		assert_rel(x[0], want[t][0], 1e-15);
		assert_rel(x[1], want[t][1], 1e-15);
	}
	assert_true(a.t == 3);
	fb_adam_release(&a);
}

/* Adam reaches the minimiser of a badly scaled quadratic; a client that keeps its state
 * (copied out and back in) goes on exactly as one that never stopped; reset starts over. */
static void test_adam_quadratic(void **state)
{
	const double c[4] = { 0.37, 4.1, 23.0, 1.9 }, t[4] = { 1.25, -0.7, 0.31, 2.2 };
	double x[4] = { 0 }, y[4] = { 0 }, g[4], m[4], v[4];
	fb_adam a, b;
	size_t it, k;
	uint64_t steps;

	(void)state;
	assert_int_equal(fb_adam_init(&a, 4, 0.02, NULL), FB_OK);
	assert_int_equal(fb_adam_init(&b, 4, 0.02, NULL), FB_OK);
	for (it = 0; it < 3000; it++) {
		for (k = 0; k < 4; k++)
			g[k] = 2.0 * c[k] * (x[k] - t[k]);
		fb_adam_step(&a, x, g);
		if (it == 99) { /* b joins here with a's state, as a client resuming a round */
			memcpy(y, x, sizeof y);
			memcpy(b.m, a.m, sizeof m);
			memcpy(b.v, a.v, sizeof v);
			b.t = a.t;
		} else if (it > 99) {
			for (k = 0; k < 4; k++)
				g[k] = 2.0 * c[k] * (y[k] - t[k]);
			fb_adam_step(&b, y, g);
		}
	}
	for (k = 0; k < 4; k++)
		assert_true(fabs(x[k] - t[k]) < 1e-4);
	assert_memory_equal(x, y, sizeof x);
	steps = a.t;
	assert_true(steps == 3000);
	fb_adam_reset(&a);
	assert_true(a.t == 0 && a.m[2] == 0.0 && a.v[3] == 0.0);
	fb_adam_release(&a);
	fb_adam_release(&b);
}

/* The objective handed to L-BFGS-B: the squared loss of the stack at x. */
static double lbfgsb_objective(const double *x, double *grad, size_t n, void *ctx)
{
	struct stack_case *c = ctx;
	double loss;

	(void)n;
	fb_nn_stack_set_params(c->st, x);
	assert_int_equal(fb_nn_stack_mse(c->st, c->n, c->X, c->mask, &loss, grad, NULL, NULL),
	                 FB_OK);
	return loss;
}

/* A [3, 10, 1] sigmoid stack initialised from stream name, on 200 rows where
 * x2 = sin(2 x0) + x1^2, each network blind to its own variable by a mask with a zero diagonal,
 * as the learners use it (the caller frees c->X, c->mask and c->st). */
static void fit_case(struct stack_case *c, const char *name)
{
	const size_t dims[] = { 3, 10, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	gsl_rng *r = fb_rng_stream(12, name);
	size_t s;

	*c = (struct stack_case){ fb_nn_stack_alloc(dims, 3, &act, NULL), 200, NULL, NULL, NULL };
	assert_non_null(c->st);
	fb_nn_stack_init(c->st, FB_NN_INIT_TORCH, r);
	c->X = random_vec(r, c->n * 3, 1.5);
	for (s = 0; s < c->n; s++)
		c->X[s * 3 + 2] = sin(2.0 * c->X[s * 3]) + c->X[s * 3 + 1] * c->X[s * 3 + 1];
	c->mask = calloc(9, sizeof *c->mask);
	for (s = 0; s < 9; s++)
		c->mask[s] = s % 4 == 0 ? 0.0 : 1.0;
	gsl_rng_free(r);
}

/* The squared loss of predicting every variable of c by its mean: what a network that learnt
 * nothing from its inputs would reach. */
static double mean_only_loss(const struct stack_case *c)
{
	double loss = 0.0, mean, var;
	double *col = malloc(c->n * sizeof *col);
	size_t j, s;

	for (j = 0; j < 3; j++) {
		for (s = 0; s < c->n; s++)
			col[s] = c->X[s * 3 + j];
		moments(col, c->n, &mean, &var);
		loss += var / 2.0;
	}
	free(col);
	return loss;
}

/* L-BFGS-B drives the flat vector: in 2000 evaluations it takes the squared loss below half
 * of what predicting by the means gives, and the loss at its x is the one it reports. */
static void test_stack_lbfgsb(void **state)
{
	struct stack_case c;
	fb_lbfgs_options opt = { .max_eval = 2000 };
	fb_lbfgs_report rep;
	double *x, end;
	size_t np;

	(void)state;
	fit_case(&c, "test-lbfgsb");
	np = fb_nn_stack_nparams(c.st);
	x = malloc(np * sizeof *x);
	fb_nn_stack_get_params(c.st, x);
	assert_true(lbfgsb_objective(x, NULL, np, &c) > mean_only_loss(&c));
	assert_int_equal(fb_lbfgsb(np, x, lbfgsb_objective, &c, &opt, &rep, NULL), FB_OK);
	end = lbfgsb_objective(x, NULL, np, &c);
	assert_rel(end, rep.f, 1e-12);
	assert_true(end < 0.5 * mean_only_loss(&c));
	free(x), free(c.X), free(c.mask);
	fb_nn_stack_free(c.st);
}

/* Adam drives the stack's own parameter vector in place (MCSL's way): 500 full-batch steps
 * at lr 0.03 take the squared loss below half of what predicting by the means gives. */
static void test_stack_adam(void **state)
{
	struct stack_case c;
	fb_adam a;
	double *grad, start = 0.0, loss = 0.0;
	size_t it, np;

	(void)state;
	fit_case(&c, "test-adam");
	np = fb_nn_stack_nparams(c.st);
	grad = malloc(np * sizeof *grad);
	assert_int_equal(fb_adam_init(&a, np, 0.03, NULL), FB_OK);
	for (it = 0; it < 500; it++) {
		assert_int_equal(fb_nn_stack_mse(c.st, c.n, c.X, c.mask, &loss, grad, NULL, NULL), FB_OK);
		if (it == 0)
			start = loss;
		fb_adam_step(&a, fb_nn_stack_params(c.st), grad);
	}
	assert_true(start > mean_only_loss(&c) && loss < 0.5 * mean_only_loss(&c));
	fb_adam_release(&a);
	free(grad), free(c.X), free(c.mask);
	fb_nn_stack_free(c.st);
}

/* One thread's job: the squared loss's gradient of a freshly initialised stack. */
struct grad_job {
	double *grad;  /* out: the gradient */
	double loss;   /* out: the loss */
	const double *X; /* the shared batch (read only) */
};

/* Compute a job on a stack of its own. */
static void *grad_job_run(void *arg)
{
	const size_t dims[] = { 20, 10, 1 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	struct grad_job *j = arg;
	gsl_rng *r = fb_rng_stream(77, "nn-init");
	fb_nn_stack *s = fb_nn_stack_alloc(dims, 3, &act, NULL);

	fb_nn_stack_init(s, FB_NN_INIT_TORCH, r);
	j->grad = malloc(fb_nn_stack_nparams(s) * sizeof *j->grad);
	if (fb_nn_stack_mse(s, 512, j->X, NULL, &j->loss, j->grad, NULL, NULL) != FB_OK)
		j->loss = NAN;
	fb_nn_stack_free(s);
	gsl_rng_free(r);
	return NULL;
}

/* Stacks on concurrent threads give the same bits as one after another on the main thread. */
static void test_threads_bit_identical(void **state)
{
	gsl_rng *r = fb_rng_stream(13, "test-threads");
	struct grad_job serial = { NULL, 0, NULL }, par[3];
	pthread_t tid[3];
	size_t np = 10 * 20 * 20 + 200 + 200 + 20, i;

	(void)state;
	serial.X = random_vec(r, 512 * 20, 2.0);
	grad_job_run(&serial);
	for (i = 0; i < 3; i++) {
		par[i] = (struct grad_job){ NULL, 0, serial.X };
		assert_int_equal(pthread_create(&tid[i], NULL, grad_job_run, &par[i]), 0);
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(tid[i], NULL), 0);
		assert_memory_equal(&par[i].loss, &serial.loss, sizeof serial.loss);
		assert_memory_equal(par[i].grad, serial.grad, np * sizeof(double));
		free(par[i].grad);
	}
	free(serial.grad), free((double *)serial.X);
	gsl_rng_free(r);
}

/* Bad sizes, misuse and bad settings are refused with one sentence naming the culprit. */
static void test_errors(void **state)
{
	const size_t one[] = { 4 }, zero[] = { 4, 0, 1 }, two[] = { 3, 2, 2 };
	const fb_nn_act act = { FB_NN_ACT_SIGMOID, 0 };
	double X[6] = { 0.1, 0.2, 0.3, 0.4, 0.5, 0.6 }, loss, g[64];
	fb_error err;
	fb_nn_stack *s;
	fb_adam a;

	(void)state;
	assert_null(fb_nn_stack_alloc(one, 1, &act, &err));
	assert_string_equal(err.msg, "nn stack: 'dims' needs at least two sizes, got 1");
	assert_null(fb_nn_stack_alloc(zero, 3, &act, &err));
	assert_string_equal(err.msg, "nn stack: size 2 of 'dims' is 0");
	s = fb_nn_stack_alloc(two, 3, &act, &err);
	assert_non_null(s);
	assert_int_equal(fb_nn_stack_backward(s, 2, X, NULL, X, g, NULL, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "nn stack: backward pass without a forward pass");
	assert_int_equal(fb_nn_stack_mse(s, 2, X, NULL, &loss, g, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "nn stack: the squared loss needs one output per network, not 2");
	assert_null(fb_nn_stack_forward(s, 0, X, NULL, &err));
	assert_string_equal(err.msg, "nn stack: the batch has no rows");
	assert_non_null(fb_nn_stack_forward(s, 2, X, NULL, &err));
	assert_int_equal(fb_nn_stack_backward(s, 1, X, NULL, X, g, NULL, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "nn stack: backward pass over 1 rows after a forward pass over 2");
	assert_int_equal(fb_nn_stack_backward(s, 2, X, X, X, g, NULL, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "nn stack: backward pass with another 'mask' than the forward pass");
	fb_nn_stack_free(s);
	assert_int_equal(fb_adam_init(&a, 3, 0.0, &err), FB_ERR);
	assert_string_equal(err.msg, "adam: 'lr' must be positive and finite, not 0");
}

/* Run every test. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense_grad),
		cmocka_unit_test(test_local_grad),
		cmocka_unit_test(test_act_grad),
		cmocka_unit_test(test_local_vs_naive),
		cmocka_unit_test(test_stack_vs_naive),
		cmocka_unit_test(test_stack_vs_torch),
		cmocka_unit_test(test_stack_grad_mse),
		cmocka_unit_test(test_stack_grad_masked),
		cmocka_unit_test(test_stack_one_grad),
		cmocka_unit_test(test_stack_one_fused),
		cmocka_unit_test(test_stack_leaky_mse),
		cmocka_unit_test(test_input_strength),
		cmocka_unit_test(test_init_stats),
		cmocka_unit_test(test_init_deterministic),
		cmocka_unit_test(test_adam_torch),
		cmocka_unit_test(test_adam_quadratic),
		cmocka_unit_test(test_stack_lbfgsb),
		cmocka_unit_test(test_stack_adam),
		cmocka_unit_test(test_threads_bit_identical),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
