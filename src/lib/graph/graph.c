/* Graphs over named nodes: edge marks, weights, neighbourhoods, acyclicity and topological
 * order.  A pair {i, j} holds one relation, read from the two marks (i, j) and (j, i). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"
#include "graph-int.h"

/* True when i and j name two different nodes of g. */
static bool graph_pair_ok(const fb_graph *g, size_t i, size_t j)
{
	return g != NULL && i < g->d && j < g->d && i != j;
}

/* Allocate an empty graph on d nodes named X1..Xd. */
fb_graph *fb_graph_try_alloc(size_t d)
{
	fb_graph *g;
	size_t i;

	if (d != 0 && d > SIZE_MAX / d / sizeof(double))
		return NULL;
	if ((g = calloc(1, sizeof *g)) == NULL)
		return NULL;
	g->names = calloc(d == 0 ? 1 : d, sizeof *g->names);
	g->mark = calloc(d == 0 ? 1 : d * d, sizeof *g->mark);
	g->w = calloc(d == 0 ? 1 : d * d, sizeof *g->w);
	if (g->names == NULL || g->mark == NULL || g->w == NULL) {
		fb_graph_free(g);
		return NULL;
	}
	g->d = d;
	g->weighted = false;
	for (i = 0; i < d; i++)
		g->names[i] = fb_xasprintf("X%zu", i + 1);
	return g;
}

/* fb_graph_try_alloc that exits when memory runs out. */
fb_graph *fb_graph_alloc(size_t d)
{
	fb_graph *g;

	if (d != 0 && d > SIZE_MAX / d / sizeof(double))
		return NULL;
	if ((g = fb_graph_try_alloc(d)) == NULL)
		fb_xalloc_fail(fb_graph_bytes(d));
	return g;
}

/* Bytes the marks and weights of a graph on d nodes take. */
size_t fb_graph_bytes(size_t d)
{
	return d * d * (sizeof(unsigned char) + sizeof(double));
}

/* Free a graph and everything it owns. */
void fb_graph_free(fb_graph *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->d; i++)
		free(g->names[i]);
	free(g->names);
	free(g->mark);
	free(g->w);
	free(g);
}

/* Weights per page of weights_copy. */
#define GRAPH_PAGE_WEIGHTS 512

/* Copy n weights from src into dst, which holds zeros: pages of src that hold only zeros
 * are left as they are, so that a large graph's weights that were never set (pages the
 * system has not yet given it) cost no memory in the copy either. */
static void weights_copy(double *dst, const double *src, size_t n)
{
	for (size_t at = 0; at < n; at += GRAPH_PAGE_WEIGHTS) {
		size_t k = n - at < GRAPH_PAGE_WEIGHTS ? n - at : GRAPH_PAGE_WEIGHTS;

		for (size_t t = 0; t < k; t++)
			if (src[at + t] != 0.0) {
				memcpy(dst + at, src + at, k * sizeof *dst);
				break;
			}
	}
}

/* Set weight k of g to w, writing only when it changes (see weights_copy). */
static void weight_put(fb_graph *g, size_t k, double w)
{
	if (g->w[k] != w)
		g->w[k] = w;
}

/* Deep copy of g. */
fb_graph *fb_graph_copy(const fb_graph *g)
{
	fb_graph *c;
	size_t i;

	if (g == NULL)
		return NULL;
	c = fb_graph_alloc(g->d);
	if (c == NULL)
		return NULL;
	for (i = 0; i < g->d; i++) {
		free(c->names[i]);
		c->names[i] = fb_xstrdup(g->names[i]);
	}
	if (g->d != 0) {
		memcpy(c->mark, g->mark, g->d * g->d * sizeof *g->mark);
		weights_copy(c->w, g->w, g->d * g->d);
	}
	c->weighted = g->weighted;
	return c;
}

/* Set node i's name to a copy of name. */
int fb_graph_set_name(fb_graph *g, size_t i, const char *name, fb_error *err)
{
	if (i >= g->d)
		return fb_fail(err, "node index '%zu' is out of range (the graph has %zu nodes)",
		               i + 1, g->d);
	if (name == NULL || name[0] == '\0')
		return fb_fail(err, "node name '%zu' must not be empty", i + 1);
	free(g->names[i]);
	g->names[i] = fb_xstrdup(name);
	return FB_OK;
}

/* Index of the first node called name, or -1. */
int fb_graph_find(const fb_graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->d; i++)
		if (strcmp(g->names[i], name) == 0)
			return (int)i;
	return -1;
}

/* Put i -> j with weight w, dropping whatever joined i and j. */
void fb_graph_set_directed(fb_graph *g, size_t i, size_t j, double w)
{
	if (!graph_pair_ok(g, i, j))
		return;
	g->mark[i * g->d + j] = 1;
	g->mark[j * g->d + i] = 0;
	weight_put(g, i * g->d + j, w);
	weight_put(g, j * g->d + i, 0.0);
}

/* Put i - j, dropping whatever joined i and j. */
void fb_graph_set_undirected(fb_graph *g, size_t i, size_t j)
{
	if (!graph_pair_ok(g, i, j))
		return;
	g->mark[i * g->d + j] = 1;
	g->mark[j * g->d + i] = 1;
	weight_put(g, i * g->d + j, 1.0);
	weight_put(g, j * g->d + i, 1.0);
}

/* Remove whatever joins i and j. */
void fb_graph_remove(fb_graph *g, size_t i, size_t j)
{
	if (!graph_pair_ok(g, i, j))
		return;
	g->mark[i * g->d + j] = 0;
	g->mark[j * g->d + i] = 0;
	weight_put(g, i * g->d + j, 0.0);
	weight_put(g, j * g->d + i, 0.0);
}

/* The relation of the ordered pair (i, j). */
enum fb_edge fb_graph_edge(const fb_graph *g, size_t i, size_t j)
{
	bool ij, ji;

	if (!graph_pair_ok(g, i, j))
		return FB_EDGE_NONE;
	ij = g->mark[i * g->d + j] != 0;
	ji = g->mark[j * g->d + i] != 0;
	if (ij && ji)
		return FB_EDGE_UNDIRECTED;
	if (ij)
		return FB_EDGE_FORWARD;
	if (ji)
		return FB_EDGE_BACKWARD;
	return FB_EDGE_NONE;
}

/* True when the directed arc i -> j is present. */
bool fb_graph_has_arc(const fb_graph *g, size_t i, size_t j)
{
	return fb_graph_edge(g, i, j) == FB_EDGE_FORWARD;
}

/* True when i and j are joined by any edge. */
bool fb_graph_adjacent(const fb_graph *g, size_t i, size_t j)
{
	return fb_graph_edge(g, i, j) != FB_EDGE_NONE;
}

/* Number of directed edges. */
size_t fb_graph_n_directed(const fb_graph *g)
{
	size_t n;

	fb_graph_count_edges(g, &n, NULL);
	return n;
}

/* Number of undirected edges. */
size_t fb_graph_n_undirected(const fb_graph *g)
{
	size_t n;

	fb_graph_count_edges(g, NULL, &n);
	return n;
}

/* Number of edges of either kind. */
size_t fb_graph_n_edges(const fb_graph *g)
{
	size_t a, b;

	fb_graph_count_edges(g, &a, &b);
	return a + b;
}

/* The nodes j whose relation (i, j) is kind, in index order, into out. */
static size_t graph_collect(const fb_graph *g, size_t i, enum fb_edge kind, size_t *out)
{
	size_t j, n = 0;

	for (j = 0; j < g->d; j++)
		if (fb_graph_edge(g, i, j) == kind)
			out[n++] = j;
	return n;
}

/* Parents of node i (j -> i). */
size_t fb_graph_parents(const fb_graph *g, size_t i, size_t *out)
{
	return graph_collect(g, i, FB_EDGE_BACKWARD, out);
}

/* Children of node i (i -> j). */
size_t fb_graph_children(const fb_graph *g, size_t i, size_t *out)
{
	return graph_collect(g, i, FB_EDGE_FORWARD, out);
}

/* Neighbours of node i (i - j). */
size_t fb_graph_neighbours(const fb_graph *g, size_t i, size_t *out)
{
	return graph_collect(g, i, FB_EDGE_UNDIRECTED, out);
}

/* Nodes joined to i by any edge. */
size_t fb_graph_adjacents(const fb_graph *g, size_t i, size_t *out)
{
	size_t j, n = 0;

	for (j = 0; j < g->d; j++)
		if (fb_graph_adjacent(g, i, j))
			out[n++] = j;
	return n;
}

/* Put x in the min-heap h of n entries. */
static void heap_push(size_t *h, size_t *n, size_t x)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2] > x) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

/* Take the smallest entry out of the min-heap h of n entries. */
static size_t heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], x = h[--*n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= x)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = x;
	return top;
}

/* The first node k >= j with a mark (i, k), or d. */
static size_t row_next(const fb_graph *g, size_t i, size_t j)
{
	const unsigned char *row = g->mark + i * g->d;

	return graph_row_next(row, row, j, g->d);
}

/* True when i -> j is directed (row i first: the column is read only under a mark). */
static bool graph_arc(const fb_graph *g, size_t i, size_t j)
{
	return g->mark[i * g->d + j] && !g->mark[j * g->d + i];
}

/* Kahn's algorithm, smallest available index first: fills order with the nodes it could
 * place and returns how many (d when the directed part is acyclic).  indeg (room for d)
 * ends holding the in-degrees that remain from unplaced parents.  The nodes ready to place
 * wait in a min-heap, so each step takes the smallest of them. */
static size_t graph_kahn(const fb_graph *g, size_t *order, size_t *indeg, bool *placed)
{
	size_t d = g->d, n = 0, nh = 0, i, j;
	size_t *heap = fb_xmalloc((d > 0 ? d : 1) * sizeof *heap);

	for (j = 0; j < d; j++) {
		indeg[j] = 0;
		placed[j] = false;
	}
	for (i = 0; i < d; i++)
		for (j = row_next(g, i, 0); j < d; j = row_next(g, i, j + 1))
			indeg[j] += graph_arc(g, i, j);
	for (j = 0; j < d; j++)
		if (indeg[j] == 0)
			heap_push(heap, &nh, j);
	while (nh > 0) {
		i = heap_pop(heap, &nh);
		placed[i] = true;
		order[n++] = i;
		for (j = row_next(g, i, 0); j < d; j = row_next(g, i, j + 1))
			if (graph_arc(g, i, j) && --indeg[j] == 0)
				heap_push(heap, &nh, j);
	}
	free(heap);
	return n;
}

/* A node on a directed cycle among the unplaced nodes left by graph_kahn: every unplaced
 * node has an unplaced parent, so walking up d times from any of them lands on a cycle. */
static size_t graph_cycle_node(const fb_graph *g, const bool *placed)
{
	size_t v, step, p;

	for (v = 0; placed[v]; v++)
		;
	for (step = 0; step < g->d; step++) {
		for (p = 0; p < g->d; p++)
			if (!placed[p] && fb_graph_edge(g, p, v) == FB_EDGE_FORWARD)
				break;
		v = p;
	}
	return v;
}

/* Topological order by Kahn's algorithm; FB_ERR naming a node on a cycle. */
int fb_graph_topo_order(const fb_graph *g, size_t *order, fb_error *err)
{
	size_t *indeg = fb_xcalloc(g->d, sizeof *indeg);
	bool *placed = fb_xcalloc(g->d, sizeof *placed);
	int rc = FB_OK;

	if (graph_kahn(g, order, indeg, placed) < g->d)
		rc = fb_fail(err, "the graph has a directed cycle through '%s'",
		             g->names[graph_cycle_node(g, placed)]);
	free(indeg);
	free(placed);
	return rc;
}

/* True when the directed part has no cycle. */
bool fb_graph_is_acyclic(const fb_graph *g)
{
	size_t *order = fb_xcalloc(g->d, sizeof *order);
	bool ok = fb_graph_topo_order(g, order, NULL) == FB_OK;

	free(order);
	return ok;
}

/* True when acyclic and without undirected edges. */
bool fb_graph_is_dag(const fb_graph *g)
{
	return fb_graph_n_undirected(g) == 0 && fb_graph_is_acyclic(g);
}

/* Depth-first search along arcs from `from` until a or b is met. */
bool fb_graph_reaches(const fb_graph *g, size_t from, size_t a, size_t b, size_t *stack,
                      bool *seen)
{
	size_t d = g->d, top = 0;

	memset(seen, 0, d * sizeof *seen);
	stack[top++] = from;
	seen[from] = true;
	while (top > 0) {
		size_t v = stack[--top];

		for (size_t u = row_next(g, v, 0); u < d; u = row_next(g, v, u + 1)) {
			if (!graph_arc(g, v, u))
				continue;
			if (u == a || u == b)
				return true;
			if (!seen[u]) {
				seen[u] = true;
				stack[top++] = u;
			}
		}
	}
	return false;
}

/* Same node count and the same names in the same order. */
bool fb_graph_same_nodes(const fb_graph *a, const fb_graph *b)
{
	size_t i;

	if (a->d != b->d)
		return false;
	for (i = 0; i < a->d; i++)
		if (strcmp(a->names[i], b->names[i]) != 0)
			return false;
	return true;
}
