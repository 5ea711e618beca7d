/* Circuits built from circuits: grafting one circuit into another under a variable map, the
 * parameter count, and the EM update of sum weights from node values (log space). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

/* Append a copy of src to dst, leaf variable v becoming varmap[v], every node on machine. */
int fb_circuit_graft(fb_circuit *dst, const fb_circuit *src, const size_t *varmap,
                     int machine, size_t *root, fb_error *err)
{
	size_t base = dst->nnodes, *ch = NULL, cap = 0, id = 0;
	int rc = FB_OK;

	for (size_t i = 0; rc == FB_OK && i < src->nnodes; i++) {
		const fb_circuit_node *nd = &src->nodes[i];
		fb_leaf leaf;

		if (nd->kind == FB_NODE_LEAF) {
			rc = fb_leaf_copy(&leaf, &nd->leaf, err);
			if (rc == FB_OK) {
				leaf.var = varmap[nd->leaf.var];
				rc = fb_circuit_add_leaf(dst, &leaf, machine, &id, err);
			}
			continue;
		}
		if (nd->nchildren > cap) {
			size_t *t = realloc(ch, nd->nchildren * sizeof *ch);

			if (t == NULL) {
				rc = fb_fail(err, "out of memory grafting a circuit");
				break;
			}
			ch = t;
			cap = nd->nchildren;
		}
		for (size_t k = 0; k < nd->nchildren; k++)
			ch[k] = base + nd->children[k];
		rc = nd->kind == FB_NODE_SUM
		             ? fb_circuit_add_sum(dst, ch, nd->weights, nd->nchildren, machine, &id, err)
		             : fb_circuit_add_product(dst, ch, nd->nchildren, machine, &id, err);
	}
	free(ch);
	if (rc == FB_OK && src->nnodes == 0)
		rc = fb_fail(err, "cannot graft an empty circuit");
	if (rc == FB_OK)
		*root = id;
	return rc;
}

/* Free parameters of one leaf: Gaussian 2, categorical V - 1, histogram its B - 1 densities
 * and B + 1 edges. */
static size_t leaf_nparams(const fb_leaf *lf)
{
	switch (lf->kind) {
	case FB_LEAF_GAUSSIAN:
		return 2;
	case FB_LEAF_CATEGORICAL:
		return lf->nvalues - 1;
	case FB_LEAF_HISTOGRAM:
		return 2 * lf->nvalues;
	}
	return 0;
}

/* The circuit's free parameters: leaf parameters and each sum's weights but one, counting
 * only the nodes on machine (every node when machine is FB_CIRCUIT_ANY). */
size_t fb_circuit_nparams(const fb_circuit *c, int machine)
{
	size_t m = 0;

	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		if (machine != FB_CIRCUIT_ANY && nd->machine != machine)
			continue;
		if (nd->kind == FB_NODE_LEAF)
			m += leaf_nparams(&nd->leaf);
		else if (nd->kind == FB_NODE_SUM)
			m += nd->nchildren - 1;
	}
	return m;
}

/* log(e^a + e^b) without overflow. */
static double log_add(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -INFINITY)
		return m;
	return m + log(exp(a - m) + exp(b - m));
}

/* The log of a product node's value without child position skip, on row r. */
static double product_others(const fb_circuit_node *nd, size_t skip, const double *val,
                             size_t n, size_t r)
{
	double s = 0;

	for (size_t k = 0; k < nd->nchildren; k++)
		if (k != skip)
			s += val[nd->children[k] * n + r];
	return s;
}

/* Backward pass over the nodes on machine: logd[i * n + r] = log ds(x_r)/dN_i, with s the
 * root; nodes elsewhere get derivatives only as children of machine's nodes. */
static void em_backward(const fb_circuit *c, const double *val, size_t n, int machine,
                        double *logd)
{
	size_t root = fb_circuit_root(c);

	for (size_t i = 0; i < c->nnodes * n; i++)
		logd[i] = -INFINITY;
	memset(logd + root * n, 0, n * sizeof *logd);
	for (size_t i = root + 1; i-- > 0;) {
		const fb_circuit_node *nd = &c->nodes[i];

		if (nd->machine != machine || nd->kind == FB_NODE_LEAF)
			continue;
		for (size_t k = 0; k < nd->nchildren; k++) {
			double *dc = logd + nd->children[k] * n;

			for (size_t r = 0; r < n; r++) {
				double up = logd[i * n + r];
				double t = nd->kind == FB_NODE_SUM ? up + nd->logw[k]
				                                    : up + product_others(nd, k, val, n, r);

				dc[r] = log_add(dc[r], t);
			}
		}
	}
}

/* Replace the weights of sum node nd by its expected counts, normalised; a sum whose counts
 * are all zero keeps its weights. */
static void em_update(fb_circuit_node *nd, const double *val, const double *logd,
                      const double *root, size_t i, size_t n)
{
	double total = 0, *cnt = nd->weights;
	double *fresh = calloc(nd->nchildren, sizeof *fresh);

	if (fresh == NULL)
		return;
	for (size_t k = 0; k < nd->nchildren; k++) {
		const double *cv = val + nd->children[k] * n;

		for (size_t r = 0; r < n; r++)
			if (root[r] > -INFINITY)
				fresh[k] += exp(nd->logw[k] + cv[r] + logd[i * n + r] - root[r]);
		total += fresh[k];
	}
	for (size_t k = 0; total > 0 && k < nd->nchildren; k++) {
		cnt[k] = fresh[k] / total;
		nd->logw[k] = log(cnt[k]);
	}
	free(fresh);
}

/* One EM step on the weights of the sums on machine from the node values val (nnodes x n,
 * node-major, every node filled): expected counts by a backward pass, then normalised. */
int fb_circuit_em_step(fb_circuit *c, const double *val, size_t n, int machine,
                       fb_error *err)
{
	double *logd = malloc((c->nnodes * n + 1) * sizeof *logd);
	const double *root = val + fb_circuit_root(c) * n;

	if (logd == NULL)
		return fb_fail(err, "out of memory for an EM step over %zu rows", n);
	em_backward(c, val, n, machine, logd);
	for (size_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].machine == machine && c->nodes[i].kind == FB_NODE_SUM)
			em_update(&c->nodes[i], val, logd, root, i, n);
	free(logd);
	return FB_OK;
}
