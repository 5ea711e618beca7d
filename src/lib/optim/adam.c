/* Adam over a flat parameter vector, step for step as PyTorch's torch.optim.Adam computes it
 * (no weight decay, no AMSGrad). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/optim.h"

/* Adam with step size lr and the usual defaults. */
int fb_adam_init(fb_adam *a, size_t n, double lr, fb_error *err)
{
	memset(a, 0, sizeof *a);
	if (!(lr > 0.0) || !isfinite(lr))
		return fb_fail(err, "adam: 'lr' must be positive and finite, not %g", lr);
	a->n = n;
	a->lr = lr;
	a->beta1 = 0.9;
	a->beta2 = 0.999;
	a->eps = 1e-8;
	a->m = calloc(n > 0 ? n : 1, sizeof *a->m);
	a->v = calloc(n > 0 ? n : 1, sizeof *a->v);
	if (a->m == NULL || a->v == NULL) {
		fb_adam_release(a);
		return fb_fail(err, "adam: out of memory for %zu parameters", n);
	}
	return FB_OK;
}

/* Free the moments. */
void fb_adam_release(fb_adam *a)
{
	free(a->m);
	free(a->v);
	a->m = a->v = NULL;
}

/* Back to step 0. */
void fb_adam_reset(fb_adam *a)
{
	memset(a->m, 0, a->n * sizeof *a->m);
	memset(a->v, 0, a->n * sizeof *a->v);
	a->t = 0;
}

/* One bias-corrected step. */
void fb_adam_step(fb_adam *a, double *x, const double *g)
{
	double step, root2;
	size_t k;

	a->t++;
	step = a->lr / (1.0 - pow(a->beta1, (double)a->t));
	root2 = sqrt(1.0 - pow(a->beta2, (double)a->t));
	for (k = 0; k < a->n; k++) {
		a->m[k] += (1.0 - a->beta1) * (g[k] - a->m[k]);
		a->v[k] = a->beta2 * a->v[k] + (1.0 - a->beta2) * g[k] * g[k];
		x[k] -= step * (a->m[k] / (sqrt(a->v[k]) / root2 + a->eps));
	}
}
