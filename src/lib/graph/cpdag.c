/* CPDAG tools: Meek's rules R1-R4, the CPDAG of a DAG, Dor & Tarsi's DAG extension with
 * pcalg's fallback, and the PDAG structural Hamming distance (ALGORITHMS.md §6.2, §6.3, §9). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"

/* True when a - b is undirected. */
static bool is_und(const fb_graph *g, size_t a, size_t b)
{
	return g->mark[a * g->d + b] && g->mark[b * g->d + a];
}

/* True when a -> b is directed. */
static bool is_arc(const fb_graph *g, size_t a, size_t b)
{
	return g->mark[a * g->d + b] && !g->mark[b * g->d + a];
}

/* True when a and b are joined by any edge. */
static bool is_adj(const fb_graph *g, size_t a, size_t b)
{
	return g->mark[a * g->d + b] || g->mark[b * g->d + a];
}

/* R1: some c -> a with c and b not adjacent. */
static bool meek_r1(const fb_graph *g, size_t a, size_t b)
{
	for (size_t c = 0; c < g->d; c++)
		if (c != b && is_arc(g, c, a) && !is_adj(g, c, b))
			return true;
	return false;
}

/* R2: some c with a -> c -> b. */
static bool meek_r2(const fb_graph *g, size_t a, size_t b)
{
	for (size_t c = 0; c < g->d; c++)
		if (is_arc(g, a, c) && is_arc(g, c, b))
			return true;
	return false;
}

/* R3: two non-adjacent c, e with a - c -> b and a - e -> b; buf has room for d. */
static bool meek_r3(const fb_graph *g, size_t a, size_t b, size_t *buf)
{
	size_t n = 0;

	for (size_t c = 0; c < g->d; c++)
		if (c != b && is_und(g, a, c) && is_arc(g, c, b))
			buf[n++] = c;
	for (size_t p = 0; p < n; p++)
		for (size_t q = p + 1; q < n; q++)
			if (!is_adj(g, buf[p], buf[q]))
				return true;
	return false;
}

/* R4: some c, e with a - c -> e -> b, a adjacent to e, c and b not adjacent. */
static bool meek_r4(const fb_graph *g, size_t a, size_t b)
{
	for (size_t e = 0; e < g->d; e++) {
		if (e == a || !is_arc(g, e, b) || !is_adj(g, a, e))
			continue;
		for (size_t c = 0; c < g->d; c++)
			if (c != b && c != e && is_und(g, a, c) && is_arc(g, c, e) && !is_adj(g, c, b))
				return true;
	}
	return false;
}

/* Whether some rule of Meek orients a - b as a -> b; buf has room for d. */
static bool meek_orients(const fb_graph *g, size_t a, size_t b, bool rule4, size_t *buf)
{
	return meek_r1(g, a, b) || meek_r2(g, a, b) || meek_r3(g, a, b, buf) ||
	       (rule4 && meek_r4(g, a, b));
}

/* Orient undirected edges by Meek's rules to closure, never closing a directed cycle. */
size_t fb_cpdag_meek(fb_graph *g, bool rule4)
{
	size_t d = g->d, oriented = 0;
	size_t *buf = fb_xmalloc((d > 0 ? d : 1) * sizeof *buf);
	size_t *stack = fb_xmalloc((d > 0 ? d : 1) * sizeof *stack);
	bool *seen = fb_xmalloc((d > 0 ? d : 1) * sizeof *seen);
	bool changed = true;

	while (changed) {
		changed = false;
		for (size_t a = 0; a < d; a++)
			for (size_t b = 0; b < d; b++) {
				if (a == b || !is_und(g, a, b) || !meek_orients(g, a, b, rule4, buf) ||
				    fb_graph_reaches(g, b, a, a, stack, seen))
					continue;
				fb_graph_set_directed(g, a, b, g->w[a * d + b]);
				oriented++;
				changed = true;
			}
	}
	free(buf);
	free(stack);
	free(seen);
	return oriented;
}

/* Direct the v-structures of dag in out (its skeleton, all undirected). */
static void orient_vstructures(const fb_graph *dag, fb_graph *out)
{
	size_t d = dag->d, np;
	size_t *pa = fb_xmalloc((d > 0 ? d : 1) * sizeof *pa);

	for (size_t k = 0; k < d; k++) {
		np = fb_graph_parents(dag, k, pa);
		for (size_t p = 0; p < np; p++)
			for (size_t q = p + 1; q < np; q++) {
				if (is_adj(dag, pa[p], pa[q]))
					continue;
				fb_graph_set_directed(out, pa[p], k, 1.0);
				fb_graph_set_directed(out, pa[q], k, 1.0);
			}
	}
	free(pa);
}

/* The CPDAG of a DAG. */
fb_graph *fb_cpdag_from_dag(const fb_graph *dag, fb_error *err)
{
	fb_graph *out;
	size_t d = dag->d;

	if (fb_graph_n_undirected(dag) > 0) {
		fb_fail(err, "the graph has %zu undirected edges: a CPDAG is made from a DAG",
		        fb_graph_n_undirected(dag));
		return NULL;
	}
	if (!fb_graph_is_acyclic(dag)) {
		fb_fail(err, "the graph has a directed cycle: a CPDAG is made from a DAG");
		return NULL;
	}
	out = fb_graph_copy(dag);
	out->weighted = false;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (is_adj(dag, i, j))
				fb_graph_set_undirected(out, i, j);
	orient_vstructures(dag, out);
	fb_cpdag_meek(out, false);
	return out;
}

/* Direct the undirected edges of g along the topological order of its directed part (index
 * order when that has a cycle). */
static void orient_along_order(fb_graph *g)
{
	size_t d = g->d;
	size_t *order = fb_xmalloc((d > 0 ? d : 1) * sizeof *order);
	size_t *rank = fb_xmalloc((d > 0 ? d : 1) * sizeof *rank);

	if (fb_graph_topo_order(g, order, NULL) != FB_OK)
		for (size_t i = 0; i < d; i++)
			order[i] = i;
	for (size_t i = 0; i < d; i++)
		rank[order[i]] = i;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (is_und(g, i, j)) {
				if (rank[i] < rank[j])
					fb_graph_set_directed(g, i, j, g->w[i * d + j]);
				else
					fb_graph_set_directed(g, j, i, g->w[j * d + i]);
			}
	free(order);
	free(rank);
}

/* Dor and Tarsi's elimination in progress: the PDAG's adjacency lists, which vertices are
 * left, and those worth testing (never tested, or a neighbour removed since their last
 * test) waiting in a min-heap of indices. */
typedef struct dt_state {
	const fb_graph *p;  /* the PDAG */
	size_t *start;      /* d + 1: where each vertex's neighbours begin in nbr */
	size_t *nbr;        /* every vertex's neighbours (any mark), increasing */
	bool *alive;        /* d: not removed yet */
	size_t *outdeg;     /* d: arcs to vertices still alive */
	bool *queued;       /* d: in the heap */
	size_t *heap;       /* d: vertices to test, smallest index on top */
	size_t nheap;       /* vertices in the heap */
	size_t *nb;         /* d: work space for one vertex's live neighbours */
} dt_state;

/* Dor & Tarsi's test for x: no outgoing arc to a vertex left and every undirected neighbour
 * adjacent to every other neighbour left. */
static bool dt_removable(dt_state *t, size_t x)
{
	size_t n = 0;

	if (t->outdeg[x] > 0)
		return false;
	for (size_t k = t->start[x]; k < t->start[x + 1]; k++)
		if (t->alive[t->nbr[k]])
			t->nb[n++] = t->nbr[k];
	for (size_t a = 0; a < n; a++) {
		if (!is_und(t->p, x, t->nb[a]))
			continue;
		for (size_t b = 0; b < n; b++)
			if (b != a && !is_adj(t->p, t->nb[a], t->nb[b]))
				return false;
	}
	return true;
}

/* Put x in the heap. */
static void dt_push(dt_state *t, size_t x)
{
	size_t i = t->nheap++;

	t->queued[x] = true;
	while (i > 0 && t->heap[(i - 1) / 2] > x) {
		t->heap[i] = t->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->heap[i] = x;
}

/* Take the smallest vertex out of the heap. */
static size_t dt_pop(dt_state *t)
{
	size_t top = t->heap[0], x = t->heap[--t->nheap], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= t->nheap)
			break;
		if (c + 1 < t->nheap && t->heap[c + 1] < t->heap[c])
			c++;
		if (t->heap[c] >= x)
			break;
		t->heap[i] = t->heap[c];
		i = c;
	}
	if (t->nheap > 0)
		t->heap[i] = x;
	return top;
}

/* Build the adjacency lists and arc counts, and queue every vertex for a test. */
static void dt_init(dt_state *t, const fb_graph *p)
{
	size_t d = p->d, dd = d > 0 ? d : 1, n = 0;

	t->p = p;
	t->start = fb_xmalloc((d + 1) * sizeof *t->start);
	t->nbr = fb_xmalloc((2 * fb_graph_n_edges(p) + 1) * sizeof *t->nbr);
	t->alive = fb_xmalloc(dd * sizeof *t->alive);
	t->outdeg = fb_xcalloc(dd, sizeof *t->outdeg);
	t->queued = fb_xcalloc(dd, sizeof *t->queued);
	t->heap = fb_xmalloc(dd * sizeof *t->heap);
	t->nb = fb_xmalloc(dd * sizeof *t->nb);
	t->nheap = 0;
	for (size_t i = 0; i < d; i++) {
		t->start[i] = n;
		t->alive[i] = true;
		for (size_t j = 0; j < d; j++) {
			if (j != i && is_adj(p, i, j))
				t->nbr[n++] = j;
			t->outdeg[i] += is_arc(p, i, j);
		}
	}
	t->start[d] = n;
	for (size_t i = 0; i < d; i++)
		dt_push(t, i);
}

/* Remove x, directing its undirected edges into x in out; queue its neighbours for a new
 * test (only they can have become removable). */
static void dt_remove(dt_state *t, fb_graph *out, size_t x)
{
	const fb_graph *p = t->p;

	t->alive[x] = false;
	for (size_t k = t->start[x]; k < t->start[x + 1]; k++) {
		size_t y = t->nbr[k];

		if (!t->alive[y])
			continue;
		if (is_und(p, x, y))
			fb_graph_set_directed(out, y, x, p->w[y * p->d + x]);
		else if (is_arc(p, y, x))
			t->outdeg[y]--;
	}
	for (size_t k = t->start[x]; k < t->start[x + 1]; k++) {
		size_t y = t->nbr[k];

		if (t->alive[y] && !t->queued[y])
			dt_push(t, y);
	}
}

/* Free the elimination's memory. */
static void dt_release(dt_state *t)
{
	free(t->start);
	free(t->nbr);
	free(t->alive);
	free(t->outdeg);
	free(t->queued);
	free(t->heap);
	free(t->nb);
}

/* A DAG extension of a PDAG (Dor & Tarsi), with the pcalg fallback.  Each step removes the
 * removable vertex of smallest index.  A vertex found not removable stays so until one of
 * its neighbours goes, so only those are tested again: the smallest vertex of the heap that
 * passes the test is the smallest removable one. */
fb_graph *fb_cpdag_to_dag(const fb_graph *p, bool *fallback)
{
	size_t left = p->d;
	fb_graph *out = fb_graph_copy(p);
	dt_state t;

	dt_init(&t, p);
	while (left > 0 && t.nheap > 0) {
		size_t x = dt_pop(&t);

		t.queued[x] = false;
		if (!dt_removable(&t, x))
			continue;
		dt_remove(&t, out, x);
		left--;
	}
	if (fallback != NULL)
		*fallback = left > 0;
	if (left > 0)
		orient_along_order(out);
	dt_release(&t);
	return out;
}

/* Structural Hamming distance between PDAGs. */
int fb_cpdag_shd(const fb_graph *a, const fb_graph *b, size_t *shd, fb_error *err)
{
	size_t n = 0;

	if (!fb_graph_same_nodes(a, b))
		return fb_fail(err, "the graphs compared have different nodes (%zu and %zu, or other "
		                    "names)", a->d, b->d);
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = i + 1; j < a->d; j++)
			n += fb_graph_edge(a, i, j) != fb_graph_edge(b, i, j);
	*shd = n;
	return FB_OK;
}

/* Number of v-structures. */
size_t fb_cpdag_n_vstructures(const fb_graph *g)
{
	size_t n = 0;

	for (size_t k = 0; k < g->d; k++)
		for (size_t i = 0; i < g->d; i++) {
			if (!is_arc(g, i, k))
				continue;
			for (size_t j = i + 1; j < g->d; j++)
				n += is_arc(g, j, k) && !is_adj(g, i, j);
		}
	return n;
}

/* Order triples by (i, j, k). */
static int tri_cmp(const void *x, const void *y)
{
	const size_t *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	if (a[2] != b[2])
		return a[2] < b[2] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* The unshielded triples of g as (i, k, j), i < j, sorted by (i, j, k); their count. */
size_t fb_graph_unshielded_triples(const fb_graph *g, size_t **out)
{
	size_t d = g->d, n = 0, cap = 64;
	size_t *nb = fb_xmalloc(d * sizeof *nb), *t = fb_xmalloc(3 * cap * sizeof *t);

	for (size_t k = 0; k < d; k++) {
		size_t m = fb_graph_adjacents(g, k, nb);

		for (size_t p = 0; p < m; p++)
			for (size_t q = p + 1; q < m; q++) {
				if (fb_graph_adjacent(g, nb[p], nb[q]))
					continue;
				if (n == cap)
					t = fb_xreallocarray(t, 3 * (cap *= 2), sizeof *t);
				t[3 * n] = nb[p];
				t[3 * n + 1] = k;
				t[3 * n + 2] = nb[q];
				n++;
			}
	}
	free(nb);
	qsort(t, n, 3 * sizeof *t, tri_cmp);
	*out = t;
	return n;
}
