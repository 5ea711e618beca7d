/* Figures of a circuit: its size by kind, depth, parameters and bytes, and the
 * log-likelihood of each part of a dataset (mean and standard error). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fedbn/circuit.h"

/* Rows evaluated in one call. */
#define LL_BATCH 4096

/* The parameters of one node: sum weights, or a leaf's numbers. */
static size_t node_params(const fb_circuit_node *nd)
{
	if (nd->kind == FB_NODE_SUM)
		return nd->nchildren;
	if (nd->kind != FB_NODE_LEAF)
		return 0;
	if (nd->leaf.kind == FB_LEAF_GAUSSIAN)
		return 2;
	if (nd->leaf.kind == FB_LEAF_CATEGORICAL)
		return nd->leaf.nvalues;
	return 2 * nd->leaf.nvalues + 1;
}

/* The bytes fb_circuit_write writes for c; FB_ERR on out of memory. */
static int text_bytes(const fb_circuit *c, size_t *bytes, fb_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int rc;

	if (fp == NULL)
		return fb_fail(err, "out of memory measuring a circuit");
	rc = fb_circuit_write(c, fp, err);
	if (fclose(fp) != 0 && rc == FB_OK)
		rc = fb_fail(err, "out of memory measuring a circuit");
	*bytes = len;
	free(buf);
	return rc;
}

/* The size of c. */
int fb_circuit_stats_compute(const fb_circuit *c, fb_circuit_stats *st, fb_error *err)
{
	size_t *depth = calloc(c->nnodes > 0 ? c->nnodes : 1, sizeof *depth);

	if (depth == NULL)
		return fb_fail(err, "out of memory measuring a circuit");
	*st = (fb_circuit_stats){ .nodes = c->nnodes };
	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		st->sums += nd->kind == FB_NODE_SUM;
		st->products += nd->kind == FB_NODE_PRODUCT;
		st->leaves += nd->kind == FB_NODE_LEAF;
		st->params += node_params(nd);
		for (size_t k = 0; k < nd->nchildren; k++)
			if (depth[nd->children[k]] + 1 > depth[i])
				depth[i] = depth[nd->children[k]] + 1;
	}
	st->depth = c->nnodes > 0 ? depth[c->nnodes - 1] : 0;
	free(depth);
	return text_bytes(c, &st->bytes, err);
}

/* Add st's counts to sum. */
void fb_circuit_stats_add(fb_circuit_stats *sum, const fb_circuit_stats *st)
{
	sum->nodes += st->nodes;
	sum->sums += st->sums;
	sum->products += st->products;
	sum->leaves += st->leaves;
	sum->params += st->params;
	sum->bytes += st->bytes;
	if (st->depth > sum->depth)
		sum->depth = st->depth;
}

/* Add the log-likelihood of every row of ds to its part's sums. */
int fb_circuit_loglik_add(const fb_circuit *c, const fb_dataset *ds, fb_loglik ll[FB_NPARTS],
                          fb_error *err)
{
	double *out;

	if (c->nvars != ds->d)
		return fb_fail(err, "the circuit is over %zu variables and the data has %zu",
		               c->nvars, ds->d);
	if ((out = malloc(LL_BATCH * sizeof *out)) == NULL)
		return fb_fail(err, "out of memory evaluating a circuit");
	for (size_t at = 0; at < ds->n; at += LL_BATCH) {
		size_t m = ds->n - at < LL_BATCH ? ds->n - at : LL_BATCH;

		if (fb_circuit_logpdf(c, ds->x + at * ds->d, m, out, err) != FB_OK) {
			free(out);
			return FB_ERR;
		}
		for (size_t i = 0; i < m; i++) {
			fb_loglik *l = &ll[fb_dataset_part(ds, at + i)];

			l->n++;
			l->sum += out[i];
			l->sumsq += out[i] * out[i];
		}
	}
	free(out);
	return FB_OK;
}

/* The mean log-likelihood. */
double fb_loglik_mean(const fb_loglik *ll)
{
	return ll->n > 0 ? ll->sum / (double)ll->n : NAN;
}

/* The standard error of the mean. */
double fb_loglik_se(const fb_loglik *ll)
{
	double n = (double)ll->n, var;

	if (ll->n < 2)
		return NAN;
	var = (ll->sumsq - ll->sum * ll->sum / n) / (n - 1);
	return sqrt(var > 0 ? var / n : 0);
}
