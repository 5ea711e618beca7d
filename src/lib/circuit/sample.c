/* Forward sampling of rows from a circuit. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* Fill one row xr by a top-down walk from the root: sums pick one child by weight,
 * products visit every child in order, leaves draw their variable. */
static void sample_row(const fb_circuit *c, gsl_rng *r, size_t *stack, double *xr)
{
	size_t top = 0;

	for (size_t j = 0; j < c->nvars; j++)
		xr[j] = NAN;
	stack[top++] = fb_circuit_root(c);
	while (top > 0) {
		const fb_circuit_node *nd = &c->nodes[stack[--top]];

		if (nd->kind == FB_NODE_LEAF) {
			xr[nd->leaf.var] = fb_leaf_sample(&nd->leaf, r);
		} else if (nd->kind == FB_NODE_SUM) {
			stack[top++] = nd->children[fb_circuit_draw_index(nd->weights, NULL,
			                                                  nd->nchildren, r)];
		} else {
			/* a valid circuit visits each node once per row, so nnodes slots suffice */
			for (size_t k = nd->nchildren; k-- > 0 && top < c->nnodes;)
				stack[top++] = nd->children[k];
		}
	}
}

/* Draw n rows by forward sampling. */
int fb_circuit_sample(const fb_circuit *c, size_t n, gsl_rng *r, double *x, fb_error *err)
{
	size_t *stack = malloc(c->nnodes * sizeof *stack);

	if (stack == NULL)
		return fb_fail(err, "out of memory sampling a circuit of %zu nodes", c->nnodes);
	for (size_t i = 0; i < n; i++)
		sample_row(c, r, stack, x + i * c->nvars);
	free(stack);
	return FB_OK;
}
