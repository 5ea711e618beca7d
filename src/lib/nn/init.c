/* Initialisation of a stack's parameters from a named random stream: PyTorch's defaults
 * (NOTEARS-MLP) and Glorot uniform with zero biases (MCSL). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fedbn/nn.h"

/* x[k] = bound * (2u - 1), in order. */
void fb_nn_uniform_fill(double *x, size_t len, double bound, gsl_rng *r)
{
	size_t k;

	for (k = 0; k < len; k++)
		x[k] = bound * (2.0 * gsl_rng_uniform(r) - 1.0);
}

/* Draw every layer's parameters, in the flat order. */
void fb_nn_stack_init(fb_nn_stack *s, enum fb_nn_init how, gsl_rng *r)
{
	double *p = fb_nn_stack_params(s);
	size_t l, L = fb_nn_stack_layers(s), d = fb_nn_stack_d(s);

	for (l = 0; l < L; l++) {
		fb_nn_span sp;
		double fan_in, fan_out; /* dims[l] and dims[l + 1]: one network's view */

		fb_nn_stack_span(s, l, &sp);
		fan_in = (double)(sp.nweight / sp.nbias);
		fan_out = (double)(sp.nbias / d);
		if (how == FB_NN_INIT_GLOROT) {
			fb_nn_uniform_fill(p + sp.weight, sp.nweight, sqrt(6.0 / (fan_in + fan_out)), r);
			memset(p + sp.bias, 0, sp.nbias * sizeof *p);
		} else {
			fb_nn_uniform_fill(p + sp.weight, sp.nweight, 1.0 / sqrt(fan_in), r);
			fb_nn_uniform_fill(p + sp.bias, sp.nbias, 1.0 / sqrt(fan_in), r);
		}
	}
}
