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

/* The skeleton's adjacency lists, which orienting edges never changes. */
typedef struct meek_adj {
	size_t *start; /* d + 1 */
	size_t *adj;   /* the nodes joined to i: adj[start[i] .. start[i + 1]), increasing */
} meek_adj;

/* R1: some c -> a with c and b not adjacent. */
static bool meek_r1(const fb_graph *g, const meek_adj *A, size_t a, size_t b)
{
	for (size_t t = A->start[a]; t < A->start[a + 1]; t++) {
		size_t c = A->adj[t];

		if (c != b && is_arc(g, c, a) && !is_adj(g, c, b))
			return true;
	}
	return false;
}

/* R2: some c with a -> c -> b. */
static bool meek_r2(const fb_graph *g, const meek_adj *A, size_t a, size_t b)
{
	for (size_t t = A->start[a]; t < A->start[a + 1]; t++) {
		size_t c = A->adj[t];

		if (is_arc(g, a, c) && is_arc(g, c, b))
			return true;
	}
	return false;
}

/* R3: two non-adjacent c, e with a - c -> b and a - e -> b; buf has room for d. */
static bool meek_r3(const fb_graph *g, const meek_adj *A, size_t a, size_t b, size_t *buf)
{
	size_t n = 0;

	for (size_t t = A->start[a]; t < A->start[a + 1]; t++) {
		size_t c = A->adj[t];

		if (c != b && is_und(g, a, c) && is_arc(g, c, b))
			buf[n++] = c;
	}
	for (size_t p = 0; p < n; p++)
		for (size_t q = p + 1; q < n; q++)
			if (!is_adj(g, buf[p], buf[q]))
				return true;
	return false;
}

/* R4: some c, e with a - c -> e -> b, a adjacent to e, c and b not adjacent. */
static bool meek_r4(const fb_graph *g, const meek_adj *A, size_t a, size_t b)
{
	for (size_t t = A->start[a]; t < A->start[a + 1]; t++) {
		size_t e = A->adj[t];

		if (!is_arc(g, e, b))
			continue;
		for (size_t u = A->start[a]; u < A->start[a + 1]; u++) {
			size_t c = A->adj[u];

			if (c != b && c != e && is_und(g, a, c) && is_arc(g, c, e) && !is_adj(g, c, b))
				return true;
		}
	}
	return false;
}

/* Whether some rule of Meek orients a - b as a -> b; buf has room for d.  Each rule asks
 * whether some node exists, so looking only among a's adjacent nodes (where every node it
 * names joined to a must be) gives the same answer as looking through all d. */
static bool meek_orients(const fb_graph *g, const meek_adj *A, size_t a, size_t b, bool rule4,
                         size_t *buf)
{
	return meek_r1(g, A, a, b) || meek_r2(g, A, a, b) || meek_r3(g, A, a, b, buf) ||
	       (rule4 && meek_r4(g, A, a, b));
}

/* True when a directed path of one arc or more leads from `from` to `to` (the arcs followed
 * along the adjacency lists); stack and seen are scratch with room for d. */
static bool meek_reaches(const fb_graph *g, const meek_adj *A, size_t from, size_t to,
                         size_t *stack, bool *seen)
{
	size_t top = 0;
	bool found = false;

	stack[top++] = from;
	seen[from] = true;
	while (top > 0 && !found) {
		size_t v = stack[--top];

		for (size_t t = A->start[v]; t < A->start[v + 1] && !found; t++) {
			size_t u = A->adj[t];

			if (!is_arc(g, v, u))
				continue;
			found = u == to;
			if (!seen[u]) {
				seen[u] = true;
				stack[top++] = u;
			}
		}
	}
	/* clear what was marked, so that seen stays all false between calls */
	for (size_t v = 0; v < g->d; v++)
		seen[v] = false;
	return found;
}

/* Orient undirected edges by Meek's rules to closure, never closing a directed cycle.  The
 * pairs go in index order, pass after pass, as a sweep over every (a, b) would. */
size_t fb_cpdag_meek(fb_graph *g, bool rule4)
{
	size_t d = g->d, oriented = 0;
	size_t *buf = fb_xmalloc((d > 0 ? d : 1) * sizeof *buf);
	size_t *stack = fb_xmalloc((d > 0 ? d : 1) * sizeof *stack);
	bool *seen = fb_xcalloc(d > 0 ? d : 1, sizeof *seen);
	bool changed = true;
	meek_adj A;

	A.adj = fb_graph_adjacency(g, &A.start);
	while (changed) {
		changed = false;
		for (size_t a = 0; a < d; a++)
			for (size_t t = A.start[a]; t < A.start[a + 1]; t++) {
				size_t b = A.adj[t];

				if (!is_und(g, a, b) || !meek_orients(g, &A, a, b, rule4, buf) ||
				    meek_reaches(g, &A, b, a, stack, seen))
					continue;
				fb_graph_set_directed(g, a, b, g->w[a * d + b]);
				oriented++;
				changed = true;
			}
	}
	free(A.start);
	free(A.adj);
	free(buf);
	free(stack);
	free(seen);
	return oriented;
}

/* Direct the v-structures of dag in out (its skeleton, all undirected); A lists dag's
 * adjacent nodes, pa has room for d. */
static void orient_vstructures(const fb_graph *dag, const meek_adj *A, fb_graph *out,
                               size_t *pa)
{
	for (size_t k = 0; k < dag->d; k++) {
		size_t np = 0;

		for (size_t t = A->start[k]; t < A->start[k + 1]; t++)
			if (is_arc(dag, A->adj[t], k))
				pa[np++] = A->adj[t];
		for (size_t p = 0; p < np; p++)
			for (size_t q = p + 1; q < np; q++) {
				if (is_adj(dag, pa[p], pa[q]))
					continue;
				fb_graph_set_directed(out, pa[p], k, 1.0);
				fb_graph_set_directed(out, pa[q], k, 1.0);
			}
	}
}

/* The CPDAG of a DAG. */
fb_graph *fb_cpdag_from_dag(const fb_graph *dag, fb_error *err)
{
	fb_graph *out;
	size_t d = dag->d, nd, nu;
	size_t *pa;
	meek_adj A;

	fb_graph_count_edges(dag, &nd, &nu);
	if (nu > 0) {
		fb_fail(err, "the graph has %zu undirected edges: a CPDAG is made from a DAG", nu);
		return NULL;
	}
	if (!fb_graph_is_acyclic(dag)) {
		fb_fail(err, "the graph has a directed cycle: a CPDAG is made from a DAG");
		return NULL;
	}
	out = fb_graph_copy(dag);
	out->weighted = false;
	A.adj = fb_graph_adjacency(dag, &A.start);
	for (size_t i = 0; i < d; i++)
		for (size_t t = A.start[i]; t < A.start[i + 1]; t++)
			if (A.adj[t] > i)
				fb_graph_set_undirected(out, i, A.adj[t]);
	pa = fb_xmalloc((d > 0 ? d : 1) * sizeof *pa);
	orient_vstructures(dag, &A, out, pa);
	free(pa);
	free(A.start);
	free(A.adj);
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
	size_t d = p->d, dd = d > 0 ? d : 1;

	t->p = p;
	t->nbr = fb_graph_adjacency(p, &t->start);
	t->alive = fb_xmalloc(dd * sizeof *t->alive);
	t->outdeg = fb_xcalloc(dd, sizeof *t->outdeg);
	t->queued = fb_xcalloc(dd, sizeof *t->queued);
	t->heap = fb_xmalloc(dd * sizeof *t->heap);
	t->nb = fb_xmalloc(dd * sizeof *t->nb);
	t->nheap = 0;
	for (size_t i = 0; i < d; i++) {
		t->alive[i] = true;
		for (size_t k = t->start[i]; k < t->start[i + 1]; k++)
			t->outdeg[i] += is_arc(p, i, t->nbr[k]);
	}
	for (size_t i = 0; i < d; i++)
		dt_push(t, i);
}

/* Remove x, directing its undirected edges into x (fn(ctx, y, x) for each); queue its
 * neighbours for a new test (only they can have become removable). */
static void dt_remove(dt_state *t, size_t x, void (*fn)(void *ctx, size_t from, size_t to),
                      void *ctx)
{
	const fb_graph *p = t->p;

	t->alive[x] = false;
	for (size_t k = t->start[x]; k < t->start[x + 1]; k++) {
		size_t y = t->nbr[k];

		if (!t->alive[y])
			continue;
		if (is_und(p, x, y))
			fn(ctx, y, x);
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

/* Dor & Tarsi's elimination of the PDAG p: fn(ctx, from, to) for each undirected edge as
 * it directs it; false when some vertex was never removable (the pcalg fallback's case).
 * Each step removes the removable vertex of smallest index.  A vertex found not removable
 * stays so until one of its neighbours goes, so only those are tested again: the smallest
 * vertex of the heap that passes the test is the smallest removable one. */
bool fb_cpdag_extension_each(const fb_graph *p, void (*fn)(void *ctx, size_t from, size_t to),
                             void *ctx)
{
	size_t left = p->d;
	dt_state t;

	dt_init(&t, p);
	while (left > 0 && t.nheap > 0) {
		size_t x = dt_pop(&t);

		t.queued[x] = false;
		if (!dt_removable(&t, x))
			continue;
		dt_remove(&t, x, fn, ctx);
		left--;
	}
	dt_release(&t);
	return left == 0;
}

/* Direct from - to as from -> to in the graph ctx (a copy of the PDAG: its weight kept). */
static void extension_set(void *ctx, size_t from, size_t to)
{
	fb_graph *out = ctx;

	fb_graph_set_directed(out, from, to, out->w[from * out->d + to]);
}

/* A DAG extension of a PDAG (Dor & Tarsi), with the pcalg fallback. */
fb_graph *fb_cpdag_to_dag(const fb_graph *p, bool *fallback)
{
	fb_graph *out = fb_graph_copy(p);
	bool whole = fb_cpdag_extension_each(p, extension_set, out);

	if (fallback != NULL)
		*fallback = !whole;
	if (!whole)
		orient_along_order(out);
	return out;
}

/* A structural Hamming distance in progress. */
typedef struct shd_count {
	const fb_graph *a, *b; /* the graphs compared */
	size_t n;              /* pairs whose relations differ so far */
} shd_count;

/* Count the pair (i, j) when its relations differ. */
static void shd_pair(void *ctx, size_t i, size_t j)
{
	shd_count *c = ctx;

	c->n += fb_graph_edge(c->a, i, j) != fb_graph_edge(c->b, i, j);
}

/* Structural Hamming distance between PDAGs: only pairs joined in one of them can differ. */
int fb_cpdag_shd(const fb_graph *a, const fb_graph *b, size_t *shd, fb_error *err)
{
	shd_count c = { a, b, 0 };

	if (!fb_graph_same_nodes(a, b))
		return fb_fail(err, "the graphs compared have different nodes (%zu and %zu, or other "
		                    "names)", a->d, b->d);
	fb_graph_pairs_joined(a, b, shd_pair, &c);
	*shd = c.n;
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
	size_t d = g->d, n = 0, cap = 64, *start, *adj = fb_graph_adjacency(g, &start);
	size_t *t = fb_xmalloc(3 * cap * sizeof *t);

	for (size_t k = 0; k < d; k++) {
		const size_t *nb = adj + start[k];
		size_t m = start[k + 1] - start[k];

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
	free(start);
	free(adj);
	qsort(t, n, 3 * sizeof *t, tri_cmp);
	*out = t;
	return n;
}
