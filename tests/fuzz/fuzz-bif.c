/* libFuzzer target: the BIF reader on arbitrary bytes.  Every network read must be well
 * formed (states distinct, parents valid, rows summing to 1, the order topological), and
 * its DAG and a few sampled rows must agree with it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the fuzzer with a message when cond is false. */
static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-bif: broken invariant: %s\n", what);
		abort();
	}
}

/* Check one node's states, parents and table. */
static void check_node(const fb_bn *bn, size_t i)
{
	const fb_bn_node *v = &bn->nodes[i];
	size_t nc = 1;

	check(v->name[0] != '\0' && v->nstates >= 1, "name and states");
	for (size_t s = 0; s < v->nstates; s++)
		for (size_t t = 0; t < s; t++)
			check(strcmp(v->states[s], v->states[t]) != 0, "distinct states");
	for (size_t j = 0; j < v->nparents; j++) {
		check(v->parents[j] < bn->d && v->parents[j] != i, "parent index");
		nc *= bn->nodes[v->parents[j]].nstates;
	}
	check(nc == v->nconfigs, "configuration count");
	for (size_t c = 0; c < nc; c++) {
		double sum = 0;

		for (size_t s = 0; s < v->nstates; s++) {
			check(v->cpt[c * v->nstates + s] >= 0, "probability >= 0");
			sum += v->cpt[c * v->nstates + s];
		}
		check(fabs(sum - 1) < 1e-9, "row sums to 1");
	}
}

/* Check the whole network, its graph and a small sample. */
static void check_network(const fb_bn *bn)
{
	size_t *pos = calloc(bn->d, sizeof *pos);
	fb_error err = { { 0 } };
	fb_graph *g = fb_bn_graph(bn);
	fb_dataset *ds;

	check(bn->d >= 1 && pos != NULL && g != NULL, "size");
	for (size_t t = 0; t < bn->d; t++)
		pos[bn->order[t]] = t + 1;
	for (size_t i = 0; i < bn->d; i++) {
		check_node(bn, i);
		check(pos[i] != 0, "order is a permutation");
		for (size_t j = 0; j < bn->nodes[i].nparents; j++)
			check(pos[bn->nodes[i].parents[j]] < pos[i], "parents first");
	}
	check(fb_graph_is_dag(g) && fb_graph_n_directed(g) == fb_bn_n_arcs(bn), "graph");
	ds = fb_bn_sample(bn, 3, 1, &err);
	check(ds != NULL, "sample");
	for (size_t i = 0; i < ds->n * ds->d; i++)
		check(ds->x[i] >= 0 && ds->x[i] < (double)bn->nodes[i % ds->d].nstates, "code");
	fb_dataset_free(ds);
	fb_graph_free(g);
	free(pos);
}

/* Read the input, check the result, free it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fb_error err = { { 0 } };
	fb_bn *bn = fb_bif_read_buffer((const char *)data, size, "fuzz.bif", &err);

	if (bn == NULL) {
		check(strncmp(err.msg, "cannot read 'fuzz.bif': ", 24) == 0, "error message");
		return 0;
	}
	check_network(bn);
	fb_bn_free(bn);
	return 0;
}
