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

/* Dor & Tarsi's test for x in the alive part of a: no outgoing arc (outdeg counts them) and
 * every undirected neighbour adjacent to every other vertex adjacent to x; nb has room for d. */
static bool dt_removable(const fb_graph *a, const bool *alive, const size_t *outdeg, size_t x,
                         size_t *nb)
{
	size_t n = 0;

	if (outdeg[x] > 0)
		return false;
	for (size_t y = 0; y < a->d; y++)
		if (y != x && alive[y] && is_adj(a, x, y))
			nb[n++] = y;
	for (size_t p = 0; p < n; p++) {
		if (!is_und(a, x, nb[p]))
			continue;
		for (size_t q = 0; q < n; q++)
			if (q != p && !is_adj(a, nb[p], nb[q]))
				return false;
	}
	return true;
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

/* Remove x from the alive part, directing its undirected edges into x in out. */
static void dt_remove(const fb_graph *p, fb_graph *out, bool *alive, size_t *outdeg, size_t x)
{
	alive[x] = false;
	for (size_t y = 0; y < p->d; y++) {
		if (!alive[y])
			continue;
		if (is_und(p, x, y))
			fb_graph_set_directed(out, y, x, p->w[y * p->d + x]);
		else if (is_arc(p, y, x))
			outdeg[y]--;
	}
}

/* A DAG extension of a PDAG (Dor & Tarsi), with the pcalg fallback. */
fb_graph *fb_cpdag_to_dag(const fb_graph *p, bool *fallback)
{
	size_t d = p->d, left = d;
	fb_graph *out = fb_graph_copy(p);
	bool *alive = fb_xmalloc((d > 0 ? d : 1) * sizeof *alive);
	size_t *outdeg = fb_xcalloc(d > 0 ? d : 1, sizeof *outdeg);
	size_t *nb = fb_xmalloc((d > 0 ? d : 1) * sizeof *nb);

	for (size_t i = 0; i < d; i++) {
		alive[i] = true;
		for (size_t j = 0; j < d; j++)
			outdeg[i] += is_arc(p, i, j);
	}
	while (left > 0) {
		size_t x = 0;

		while (x < d && !(alive[x] && dt_removable(p, alive, outdeg, x, nb)))
			x++;
		if (x == d)
			break;
		dt_remove(p, out, alive, outdeg, x);
		left--;
	}
	if (fallback != NULL)
		*fallback = left > 0;
	if (left > 0)
		orient_along_order(out);
	free(alive);
	free(outdeg);
	free(nb);
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
