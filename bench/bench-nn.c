/* Throughput of the per-variable MLP stack: forward and backward passes of the squared loss
 * (fb_nn_stack_mse with its gradient): NOTEARS-MLP's [10, 10, 1] stack on 256 rows and
 * [20, 10, 1] on 512 and on 64 (a NOTEARS-MLP-ADMM client's share of 512 rows over 8), MCSL's masked [20, 16, 16, 16, 16, 1] on 512, single-threaded;
 * microseconds per call, the best of five timed batches (processor time, which load on the
 * machine disturbs least). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fedbn/nn.h"
#include "bench-common.h"

/* Time calls of the squared loss with its gradient on one stack; prints one line. */
static int bench_stack(const char *name, const size_t *dims, size_t ndims, const fb_nn_act *act,
                       int masked, size_t n, size_t calls)
{
	gsl_rng *r = fb_rng_stream(1, "bench-nn");
	fb_error err = { "" };
	fb_nn_stack *s = fb_nn_stack_alloc(dims, ndims, act, &err);
	size_t d = dims[0], rep, c;
	double *X = NULL, *mask = NULL, *grad = NULL, loss = 0.0, best = 1e300;

	if (s == NULL)
		goto fail;
	fb_nn_stack_init(s, FB_NN_INIT_TORCH, r);
	X = malloc(n * d * sizeof *X);
	mask = malloc(d * d * sizeof *mask);
	grad = malloc(fb_nn_stack_nparams(s) * sizeof *grad);
	if (X == NULL || mask == NULL || grad == NULL)
		goto fail;
	fb_nn_uniform_fill(X, n * d, 2.0, r);
	fb_nn_uniform_fill(mask, d * d, 1.0, r);
	for (rep = 0; rep < 6; rep++) { /* the first batch warms the caches and is not counted */
		double t0 = bench_cpu_now(), t;

		for (c = 0; c < calls; c++)
			if (fb_nn_stack_mse(s, n, X, masked ? mask : NULL, &loss, grad, NULL, &err) != FB_OK)
				goto fail;
		t = (bench_cpu_now() - t0) / (double)calls;
		if (rep > 0 && t < best)
			best = t;
	}
	printf("%-34s %5zu rows %7zu parameters  %9.1f us per forward+backward\n", name, n,
	       fb_nn_stack_nparams(s), 1e6 * best);
	free(X), free(mask), free(grad);
	fb_nn_stack_free(s);
	gsl_rng_free(r);
	return 0;
fail:
	printf("%s: %s\n", name, err.msg[0] != '\0' ? err.msg : "out of memory");
	free(X), free(mask), free(grad);
	fb_nn_stack_free(s);
	gsl_rng_free(r);
	return 1;
}

/* Both stacks. */
int main(void)
{
	const size_t small[] = { 10, 10, 1 }, notears[] = { 20, 10, 1 };
	const size_t mcsl[] = { 20, 16, 16, 16, 16, 1 };
	const fb_nn_act sigmoid = { FB_NN_ACT_SIGMOID, 0 };
	const fb_nn_act leaky = { FB_NN_ACT_LEAKY_RELU, 0.05 };

	fb_blas_single_thread();
	printf("BLAS: %s, one thread\n", FB_BLAS_NAME);
	return bench_stack("notears-mlp [10,10,1] sigmoid", small, 3, &sigmoid, 0, 256, 2000) |
	       bench_stack("notears-mlp [20,10,1] sigmoid", notears, 3, &sigmoid, 0, 512, 400) |
	       bench_stack("mlp-admm client [20,10,1] sigmoid", notears, 3, &sigmoid, 0, 64, 3000) |
	       bench_stack("mcsl [20,16,16,16,16,1] masked", mcsl, 6, &leaky, 1, 512, 100);
}
