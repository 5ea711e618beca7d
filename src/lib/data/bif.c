/* Bayesian networks: accessors and the DAG of a network read by bif-read.c. */
#include "config.h"

#include <string.h>

#include "fedbn/bif.h"

/* Number of variables. */
size_t fb_bn_d(const fb_bn *bn)
{
	return bn->d;
}

/* Name of variable i. */
const char *fb_bn_name(const fb_bn *bn, size_t i)
{
	return bn->nodes[i].name;
}

/* Number of states of variable i. */
size_t fb_bn_nstates(const fb_bn *bn, size_t i)
{
	return bn->nodes[i].nstates;
}

/* Name of state s of variable i. */
const char *fb_bn_state(const fb_bn *bn, size_t i, size_t s)
{
	return bn->nodes[i].states[s];
}

/* Parents of variable i. */
size_t fb_bn_parents(const fb_bn *bn, size_t i, const size_t **parents)
{
	if (parents != NULL)
		*parents = bn->nodes[i].parents;
	return bn->nodes[i].nparents;
}

/* Index of a variable by name, or -1. */
int fb_bn_find(const fb_bn *bn, const char *name)
{
	for (size_t i = 0; i < bn->d; i++)
		if (strcmp(bn->nodes[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Index of a state of variable i by name, or -1. */
int fb_bn_find_state(const fb_bn *bn, size_t i, const char *state)
{
	const fb_bn_node *n = &bn->nodes[i];

	for (size_t s = 0; s < n->nstates; s++)
		if (strcmp(n->states[s], state) == 0)
			return (int)s;
	return -1;
}

/* Configuration number of the parents' states: mixed radix, first parent most significant. */
size_t fb_bn_config(const fb_bn *bn, size_t i, const size_t *parent_states)
{
	const fb_bn_node *n = &bn->nodes[i];
	size_t c = 0;

	for (size_t j = 0; j < n->nparents; j++)
		c = c * bn->nodes[n->parents[j]].nstates + parent_states[j];
	return c;
}

/* Row c of variable i's table. */
const double *fb_bn_cpt_row(const fb_bn *bn, size_t i, size_t c)
{
	return bn->nodes[i].cpt + c * bn->nodes[i].nstates;
}

/* Number of arcs. */
size_t fb_bn_n_arcs(const fb_bn *bn)
{
	size_t n = 0;

	for (size_t i = 0; i < bn->d; i++)
		n += bn->nodes[i].nparents;
	return n;
}

/* The network's DAG, nodes named as the variables. */
fb_graph *fb_bn_graph(const fb_bn *bn)
{
	fb_graph *g = fb_graph_alloc(bn->d);

	if (g == NULL)
		return NULL;
	for (size_t i = 0; i < bn->d; i++) {
		const fb_bn_node *n = &bn->nodes[i];

		if (fb_graph_set_name(g, i, n->name, NULL) != FB_OK) {
			fb_graph_free(g);
			return NULL;
		}
		for (size_t j = 0; j < n->nparents; j++)
			fb_graph_set_directed(g, n->parents[j], i, 1.0);
	}
	g->weighted = false;
	return g;
}
