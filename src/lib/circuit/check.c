/* Validity of a circuit: topological order, scopes, smoothness, decomposability,
 * normalised weights and leaves. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* Node kinds as words, for error sentences. */
static const char *const kind_names[] = {
	[FB_NODE_LEAF] = "leaf",
	[FB_NODE_PRODUCT] = "product",
	[FB_NODE_SUM] = "sum",
};

/* 1 when scopes a and b (sorted) are the same list. */
static int scope_equal(const fb_circuit_node *a, const fb_circuit_node *b)
{
	return a->nscope == b->nscope &&
	       memcmp(a->scope, b->scope, a->nscope * sizeof *a->scope) == 0;
}

/* A variable in both sorted scopes a and b, or SIZE_MAX when they are disjoint. */
static size_t scope_common(const fb_circuit_node *a, const fb_circuit_node *b)
{
	size_t i = 0, j = 0;

	while (i < a->nscope && j < b->nscope) {
		if (a->scope[i] == b->scope[j])
			return a->scope[i];
		if (a->scope[i] < b->scope[j])
			i++;
		else
			j++;
	}
	return SIZE_MAX;
}

/* Whether node i's scope is the union of its children's: each child's scope lies in it
 * and each of its variables lies in some child's (sorted lists, so by marking). */
static int check_scope(const fb_circuit *c, size_t i, unsigned char *mark, fb_error *err)
{
	const fb_circuit_node *nd = &c->nodes[i];
	int ok = 1;

	for (size_t k = 0; k < nd->nscope; k++)
		if (nd->scope[k] >= c->nvars || (k > 0 && nd->scope[k] <= nd->scope[k - 1]))
			return fb_fail(err, "%s node %zu has a scope that is not a sorted list of "
			                    "variables below %zu", kind_names[nd->kind], i, c->nvars);
	memset(mark, 0, c->nvars);
	for (size_t k = 0; k < nd->nchildren; k++) {
		const fb_circuit_node *ch = &c->nodes[nd->children[k]];

		for (size_t v = 0; v < ch->nscope; v++)
			mark[ch->scope[v]] = 1;
	}
	for (size_t k = 0; k < nd->nscope; k++) {
		if (mark[nd->scope[k]] != 1)
			ok = 0; /* in the scope but in no child's */
		mark[nd->scope[k]] = 2;
	}
	for (size_t v = 0; v < c->nvars; v++)
		if (mark[v] == 1)
			ok = 0; /* in a child's scope but not in the node's */
	if (!ok)
		return fb_fail(err, "%s node %zu has a scope that is not the union of its "
		                    "children's scopes", kind_names[nd->kind], i);
	return FB_OK;
}

/* Smoothness and normalised weights of sum node i. */
static int check_sum(const fb_circuit *c, size_t i, fb_error *err)
{
	const fb_circuit_node *nd = &c->nodes[i];
	double total = 0;

	for (size_t k = 0; k < nd->nchildren; k++) {
		if (!scope_equal(&c->nodes[nd->children[0]], &c->nodes[nd->children[k]]))
			return fb_fail(err, "sum node %zu is not smooth: its children %zu and %zu "
			                    "have different scopes", i, nd->children[0],
			               nd->children[k]);
		if (!(nd->weights[k] >= 0) || !isfinite(nd->weights[k]))
			return fb_fail(err, "sum node %zu has weight %g on child %zu, not a "
			                    "non-negative number", i, nd->weights[k], nd->children[k]);
		total += nd->weights[k];
	}
	if (fabs(total - 1) > FB_CIRCUIT_NORM_TOL)
		return fb_fail(err, "sum node %zu has weights that add up to %.12g, not 1", i,
		               total);
	return FB_OK;
}

/* Decomposability of product node i: its children's scopes are pairwise disjoint. */
static int check_product(const fb_circuit *c, size_t i, fb_error *err)
{
	const fb_circuit_node *nd = &c->nodes[i];

	for (size_t a = 0; a < nd->nchildren; a++)
		for (size_t b = a + 1; b < nd->nchildren; b++) {
			size_t v = scope_common(&c->nodes[nd->children[a]],
			                        &c->nodes[nd->children[b]]);

			if (v != SIZE_MAX)
				return fb_fail(err, "product node %zu is not decomposable: its "
				                    "children %zu and %zu share variable %zu", i,
				               nd->children[a], nd->children[b], v);
		}
	return FB_OK;
}

/* Total mass of a leaf: its probabilities, or its densities times the bin widths. */
static double leaf_mass(const fb_leaf *lf)
{
	double total = 0;

	for (size_t b = 0; b < lf->nvalues; b++)
		total += lf->kind == FB_LEAF_CATEGORICAL ? lf->p[b]
		                                        : lf->p[b] * (lf->breaks[b + 1] - lf->breaks[b]);
	return total;
}

/* Leaf node i: a variable below nvars and a normalised distribution. */
static int check_leaf(const fb_circuit *c, size_t i, fb_error *err)
{
	const fb_leaf *lf = &c->nodes[i].leaf;
	double mass;

	if (c->nodes[i].nchildren != 0)
		return fb_fail(err, "leaf node %zu has children", i);
	if (lf->var >= c->nvars)
		return fb_fail(err, "leaf node %zu models variable %zu, beyond the circuit's %zu "
		                    "variables", i, lf->var, c->nvars);
	if (lf->kind == FB_LEAF_GAUSSIAN) {
		if (!(lf->sd > 0) || !isfinite(lf->sd) || !isfinite(lf->mean))
			return fb_fail(err, "leaf node %zu has mean %g and sd %g; the sd must be "
			                    "positive and both finite", i, lf->mean, lf->sd);
		return FB_OK;
	}
	mass = leaf_mass(lf);
	if (fabs(mass - 1) > FB_CIRCUIT_NORM_TOL)
		return fb_fail(err, "leaf node %zu has a total mass of %.12g, not 1", i, mass);
	return FB_OK;
}

/* Check one node: order, machine, then its kind's rules. */
static int check_node(const fb_circuit *c, size_t i, unsigned char *mark, fb_error *err)
{
	const fb_circuit_node *nd = &c->nodes[i];

	if (nd->machine < FB_CIRCUIT_SERVER)
		return fb_fail(err, "%s node %zu lives on machine %d; machines are -1 (the "
		                    "server) or a client number", kind_names[nd->kind], i,
		               nd->machine);
	if (nd->kind != FB_NODE_LEAF && nd->nchildren == 0)
		return fb_fail(err, "%s node %zu has no children", kind_names[nd->kind], i);
	for (size_t k = 0; k < nd->nchildren; k++)
		if (nd->children[k] >= i)
			return fb_fail(err, "%s node %zu has child %zu, which does not come before it "
			                    "(children come first, so the circuit is acyclic)",
			               kind_names[nd->kind], i, nd->children[k]);
	if (nd->kind == FB_NODE_LEAF)
		return check_leaf(c, i, err);
	if (check_scope(c, i, mark, err) != FB_OK)
		return FB_ERR;
	return nd->kind == FB_NODE_SUM ? check_sum(c, i, err) : check_product(c, i, err);
}

/* FB_OK when the circuit is valid; otherwise *bad names the node at fault. */
int fb_circuit_check_at(const fb_circuit *c, size_t *bad, fb_error *err)
{
	unsigned char *mark;
	int rc = FB_OK;

	*bad = SIZE_MAX;
	if (c->nnodes == 0)
		return fb_fail(err, "the circuit has no nodes");
	mark = malloc(c->nvars ? c->nvars : 1);
	if (mark == NULL)
		return fb_fail(err, "out of memory checking a circuit over %zu variables", c->nvars);
	for (size_t i = 0; i < c->nnodes && rc == FB_OK; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		if (nd->kind == FB_NODE_LEAF && (nd->nscope != 1 || nd->scope[0] != nd->leaf.var))
			rc = fb_fail(err, "leaf node %zu has a scope other than its variable %zu", i,
			             nd->leaf.var);
		else
			rc = check_node(c, i, mark, err);
		if (rc != FB_OK)
			*bad = i;
	}
	free(mark);
	return rc;
}

/* The variables below c->nvars outside the root's scope (sorted), written into b as a list
 * of at most eight, "and N more" after them; returns how many there are. */
static size_t uncovered_list(const fb_circuit *c, fb_buf *b)
{
	const fb_circuit_node *root = &c->nodes[c->nnodes - 1];
	size_t missing = 0, k = 0;

	for (size_t v = 0; v < c->nvars; v++) {
		if (k < root->nscope && root->scope[k] == v) {
			k++;
			continue;
		}
		if (missing++ < 8)
			fb_buf_printf(b, "%s%zu", missing > 1 ? ", " : "", v);
	}
	if (missing > 8)
		fb_buf_printf(b, " and %zu more", missing - 8);
	return missing;
}

/* FB_OK when the root's scope is every variable of the circuit. */
int fb_circuit_check_whole(const fb_circuit *c, fb_error *err)
{
	fb_buf b = { 0 };
	size_t missing;
	int rc = FB_OK;

	if (c->nnodes == 0)
		return fb_fail(err, "the circuit has no nodes");
	missing = uncovered_list(c, &b);
	if (missing > 0)
		rc = fb_fail(err, "its root covers %zu of its %zu variables: no leaf models "
		                  "variable%s %s (numbered from 0), so the file may be cut short",
		             c->nvars - missing, c->nvars, missing > 1 ? "s" : "", b.data);
	fb_buf_release(&b);
	return rc;
}

/* FB_OK when the circuit is a valid sum-product network. */
int fb_circuit_check(const fb_circuit *c, fb_error *err)
{
	size_t bad;

	return fb_circuit_check_at(c, &bad, err);
}
