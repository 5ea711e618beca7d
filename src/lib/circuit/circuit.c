/* Circuits: the node array, appending nodes, and their scopes. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

/* An empty circuit over rows of nvars values. */
fb_circuit *fb_circuit_alloc(size_t nvars)
{
	fb_circuit *c = calloc(1, sizeof *c);

	if (c != NULL)
		c->nvars = nvars;
	return c;
}

/* Free what one node owns. */
static void node_release(fb_circuit_node *nd)
{
	free(nd->children);
	free(nd->weights);
	free(nd->logw);
	free(nd->scope);
	fb_leaf_release(&nd->leaf);
}

/* Free a circuit and its nodes. */
void fb_circuit_free(fb_circuit *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nnodes; i++)
		node_release(&c->nodes[i]);
	free(c->nodes);
	free(c);
}

/* The root: the last node. */
size_t fb_circuit_root(const fb_circuit *c)
{
	return c->nnodes - 1;
}

/* A zeroed node slot at the end of c, or NULL on out of memory. */
static fb_circuit_node *node_append(fb_circuit *c, fb_error *err)
{
	if (c->nnodes == c->cap) {
		size_t cap = c->cap < 16 ? 16 : 2 * c->cap;
		fb_circuit_node *nodes = realloc(c->nodes, cap * sizeof *nodes);

		if (nodes == NULL) {
			fb_fail(err, "out of memory for a circuit of %zu nodes", cap);
			return NULL;
		}
		c->nodes = nodes;
		c->cap = cap;
	}
	memset(&c->nodes[c->nnodes], 0, sizeof c->nodes[0]);
	return &c->nodes[c->nnodes];
}

/* Append a leaf; the circuit takes over what leaf owns. */
int fb_circuit_add_leaf(fb_circuit *c, fb_leaf *leaf, int machine, size_t *id, fb_error *err)
{
	fb_circuit_node *nd;

	if (leaf->var >= c->nvars) {
		fb_fail(err, "a leaf over variable %zu, beyond the circuit's %zu variables",
		        leaf->var, c->nvars);
		goto fail;
	}
	nd = node_append(c, err);
	if (nd == NULL)
		goto fail;
	nd->scope = malloc(sizeof *nd->scope);
	if (nd->scope == NULL) {
		fb_fail(err, "out of memory for a leaf");
		goto fail;
	}
	nd->kind = FB_NODE_LEAF;
	nd->machine = machine;
	nd->nscope = 1;
	nd->scope[0] = leaf->var;
	nd->leaf = *leaf;
	memset(leaf, 0, sizeof *leaf);
	*id = c->nnodes++;
	return FB_OK;
fail:
	fb_leaf_release(leaf);
	memset(leaf, 0, sizeof *leaf);
	return FB_ERR;
}

/* Compare two variable ids for qsort. */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The sorted union of the children's scopes into *scope (malloc'd) and *n; FB_ERR on out of
 * memory.  Repeated variables are kept once. */
static int scope_union(const fb_circuit *c, const size_t *children, size_t nch,
                       size_t **scope, size_t *n)
{
	size_t total = 0, k = 0, *s;

	for (size_t i = 0; i < nch; i++)
		total += c->nodes[children[i]].nscope;
	s = malloc((total ? total : 1) * sizeof *s);
	if (s == NULL)
		return FB_ERR;
	for (size_t i = 0; i < nch; i++) {
		const fb_circuit_node *ch = &c->nodes[children[i]];

		memcpy(s + k, ch->scope, ch->nscope * sizeof *s);
		k += ch->nscope;
	}
	qsort(s, total, sizeof *s, cmp_size);
	k = 0;
	for (size_t i = 0; i < total; i++)
		if (k == 0 || s[k - 1] != s[i])
			s[k++] = s[i];
	*scope = s;
	*n = k;
	return FB_OK;
}

/* Append an inner node of the given kind over n existing children. */
static int add_inner(fb_circuit *c, enum fb_node_kind kind, const size_t *children,
                     const double *weights, size_t n, int machine, size_t *id, fb_error *err)
{
	const char *what = kind == FB_NODE_SUM ? "sum" : "product";
	fb_circuit_node *nd;

	if (n == 0)
		return fb_fail(err, "a %s node needs at least one child", what);
	for (size_t i = 0; i < n; i++)
		if (children[i] >= c->nnodes)
			return fb_fail(err, "a %s node names child %zu, which does not exist yet "
			                    "(children come before their parents)", what, children[i]);
	nd = node_append(c, err);
	if (nd == NULL)
		return FB_ERR;
	nd->kind = kind;
	nd->machine = machine;
	nd->nchildren = n;
	nd->children = malloc(n * sizeof *nd->children);
	if (weights != NULL) {
		nd->weights = malloc(n * sizeof *nd->weights);
		nd->logw = malloc(n * sizeof *nd->logw);
	}
	if (nd->children == NULL || (weights != NULL && (nd->weights == NULL || nd->logw == NULL)) ||
	    scope_union(c, children, n, &nd->scope, &nd->nscope) != FB_OK) {
		node_release(nd);
		return fb_fail(err, "out of memory for a %s node of %zu children", what, n);
	}
	memcpy(nd->children, children, n * sizeof *children);
	for (size_t i = 0; weights != NULL && i < n; i++) {
		nd->weights[i] = weights[i];
		nd->logw[i] = log(weights[i]);
	}
	*id = c->nnodes++;
	return FB_OK;
}

/* Append a product node. */
int fb_circuit_add_product(fb_circuit *c, const size_t *children, size_t n, int machine,
                           size_t *id, fb_error *err)
{
	return add_inner(c, FB_NODE_PRODUCT, children, NULL, n, machine, id, err);
}

/* Append a sum node. */
int fb_circuit_add_sum(fb_circuit *c, const size_t *children, const double *weights,
                       size_t n, int machine, size_t *id, fb_error *err)
{
	return add_inner(c, FB_NODE_SUM, children, weights, n, machine, id, err);
}
