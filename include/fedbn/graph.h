/* Graphs over d named nodes: DAGs, CPDAGs/PDAGs (directed and undirected marks) and edge
 * weights.  Convention (ALGORITHMS.md §0): an edge i -> j has row i = parent, column j = child.
 *
 * Each unordered pair {i, j} carries at most one relation: none, i -> j, j -> i or i - j.
 * Setting one replaces the other, so two opposite arcs (a two-cycle) cannot be stored; a
 * caller that derives arcs from a matrix with both W[i][j] and W[j][i] must pick one.
 * Longer directed cycles can be stored (fb_graph_is_acyclic reports them).  Self-loops are
 * never stored.  Functions taking node indices expect i, j < d; an edge call with i == j or
 * an index out of range does nothing (a query answers "no edge"). */
#ifndef FEDBN_GRAPH_H
#define FEDBN_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"

/* The relation of an ordered pair (i, j). */
enum fb_edge {
	FB_EDGE_NONE = 0,       /* no edge between i and j */
	FB_EDGE_FORWARD = 1,    /* i -> j */
	FB_EDGE_BACKWARD = 2,   /* j -> i */
	FB_EDGE_UNDIRECTED = 3, /* i - j */
};

/* A graph; owns all its memory. */
typedef struct fb_graph {
	size_t d;            /* nodes */
	char **names;        /* d node names (owned) */
	unsigned char *mark; /* d*d: mark[i*d+j] = 1 when i -> j is present or i - j (then both
	                        mark[i*d+j] and mark[j*d+i]); 0 elsewhere, diagonal always 0 */
	double *w;           /* d*d weights, w[i*d+j] for i -> j; 1 both ways for i - j; 0 where
	                        there is no edge */
	bool weighted;       /* the weights mean something (else they are 1/0); set by callers */
} fb_graph;

/* Allocate an empty graph on d nodes named X1..Xd (d may be 0); NULL when d * d overflows.
 * Out of memory exits (fb_xmalloc).  Free with fb_graph_free. */
fb_graph *fb_graph_alloc(size_t d);
/* Like fb_graph_alloc, but NULL when its d x d arrays do not fit in memory. */
fb_graph *fb_graph_try_alloc(size_t d);
/* Bytes the d x d marks and weights of a graph on d nodes take (d below 2^30). */
size_t fb_graph_bytes(size_t d);
/* Free a graph (NULL is fine). */
void fb_graph_free(fb_graph *g);
/* Deep copy (caller frees); NULL when g is NULL. */
fb_graph *fb_graph_copy(const fb_graph *g);
/* Set node i's name (copied); fails on i >= d or an empty name.  Names need not be unique
 * (fb_graph_find returns the first match). */
int fb_graph_set_name(fb_graph *g, size_t i, const char *name, fb_error *err);
/* Index of the first node called name (exact match), or -1. */
int fb_graph_find(const fb_graph *g, const char *name);

/* Put i -> j with weight w, replacing whatever joined i and j (w[j*d+i] becomes 0). */
void fb_graph_set_directed(fb_graph *g, size_t i, size_t j, double w);
/* Put i - j, replacing whatever joined i and j; its weights are 1 both ways. */
void fb_graph_set_undirected(fb_graph *g, size_t i, size_t j);
/* Remove whatever joins i and j (marks and weights both ways become 0). */
void fb_graph_remove(fb_graph *g, size_t i, size_t j);
/* The relation of (i, j): FORWARD when only mark[i*d+j] is set, BACKWARD when only
 * mark[j*d+i], UNDIRECTED when both, NONE when neither (or i == j, or out of range). */
enum fb_edge fb_graph_edge(const fb_graph *g, size_t i, size_t j);
/* True when i -> j is present (directed, not undirected). */
bool fb_graph_has_arc(const fb_graph *g, size_t i, size_t j);
/* True when i and j are joined by any edge. */
bool fb_graph_adjacent(const fb_graph *g, size_t i, size_t j);
/* Counts of directed edges (ordered pairs) and undirected edges (unordered pairs). */
size_t fb_graph_n_directed(const fb_graph *g);
size_t fb_graph_n_undirected(const fb_graph *g);
/* Directed plus undirected edges. */
size_t fb_graph_n_edges(const fb_graph *g);

/* Parents (j -> i directed), children (i -> j directed) and neighbours (i - j undirected) of
 * node i, written into out (room for d); returns how many. */
size_t fb_graph_parents(const fb_graph *g, size_t i, size_t *out);
size_t fb_graph_children(const fb_graph *g, size_t i, size_t *out);
size_t fb_graph_neighbours(const fb_graph *g, size_t i, size_t *out);
/* Nodes joined to i by any edge.  All four list nodes in increasing index order. */
size_t fb_graph_adjacents(const fb_graph *g, size_t i, size_t *out);

/* Whole-graph scans (graph-scan.c), each going along the rows of the marks rather than down
 * a column, in O(d^2 / 8 + edges) for a sparse graph.  Directed and undirected edges counted in one scan (either pointer may
 * be NULL). */
void fb_graph_count_edges(const fb_graph *g, size_t *directed, size_t *undirected);
/* Every node's number of adjacent nodes into deg (room for d). */
void fb_graph_degrees(const fb_graph *g, size_t *deg);
/* Every node's adjacent nodes at once: returns adj (caller frees) and sets *start (room for
 * d + 1, caller frees) so that adj[start[i] .. start[i + 1]) lists the nodes joined to i in
 * increasing order, as fb_graph_adjacents would. */
size_t *fb_graph_adjacency(const fb_graph *g, size_t **start);
/* Adjacency lists of d nodes from a walk: walk(wctx, fn, fctx) must call fn(fctx, i, j) once
 * for every joined pair, the same pairs each time it is called (twice).  Returns adj and sets
 * *start as fb_graph_adjacency does; sorted says the walk already meets each node's
 * neighbours in increasing order (else each list is sorted afterwards). */
size_t *fb_adjacency_lists(size_t d, void (*walk)(void *wctx, void (*fn)(void *, size_t, size_t),
                                                  void *fctx),
                           void *wctx, bool sorted, size_t **start);
/* Call fn(ctx, i, j) once for every pair i < j joined by an edge in a or in b (b NULL: a
 * alone; else b has a's d), in no particular order. */
void fb_graph_pairs_joined(const fb_graph *a, const fb_graph *b,
                           void (*fn)(void *ctx, size_t i, size_t j), void *ctx);

/* True when the directed part has no cycle (undirected edges ignored). */
bool fb_graph_is_acyclic(const fb_graph *g);
/* True when acyclic and without undirected edges. */
bool fb_graph_is_dag(const fb_graph *g);
/* True when a directed path of one arc or more leads from `from` to a or to b (undirected
 * edges are not followed); stack and seen are scratch with room for d. */
bool fb_graph_reaches(const fb_graph *g, size_t from, size_t a, size_t b, size_t *stack,
                      bool *seen);
/* A topological order of the directed part into order (room for d), Kahn's algorithm with
 * the smallest available index first (so the result is unique); undirected edges are
 * ignored.  FB_ERR when there is a cycle, err naming a node on it; order is then unspecified. */
int fb_graph_topo_order(const fb_graph *g, size_t *order, fb_error *err);

/* Same node count and names in the same order. */
bool fb_graph_same_nodes(const fb_graph *a, const fb_graph *b);

#endif
