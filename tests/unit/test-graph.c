/* Unit tests of the graph type (marks, weights, neighbourhoods, acyclicity, topological
 * order) and of the accuracy metrics, on small hand-made graphs. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/graph.h"
#include "fedbn/metrics.h"

/* Fail unless got equals want to a relative tolerance of 1e-12 (absolute below 1). */
static void assert_close(double got, double want)
{
	double tol = 1e-12 * (fabs(want) > 1.0 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Fail unless the n entries of got are the n entries of want. */
static void assert_list(const size_t *got, size_t n_got, const size_t *want, size_t n_want)
{
	size_t k;

	assert_int_equal(n_got, n_want);
	for (k = 0; k < n_want; k++)
		assert_int_equal(got[k], want[k]);
}

/* A fresh graph has names X1..Xd, no edges, and fb_graph_find sees the names. */
static void test_alloc_names(void **state)
{
	fb_graph *g = fb_graph_alloc(3);
	fb_graph *empty = fb_graph_alloc(0);
	fb_error err = { "" };
	size_t k;

	assert_non_null(g);
	assert_non_null(empty);
	assert_int_equal(empty->d, 0);
	assert_true(fb_graph_is_dag(empty));
	assert_string_equal(g->names[0], "X1");
	assert_string_equal(g->names[2], "X3");
	for (k = 0; k < 9; k++) {
		assert_int_equal(g->mark[k], 0);
		assert_close(g->w[k], 0.0);
	}
	assert_false(g->weighted);
	assert_int_equal(fb_graph_find(g, "X2"), 1);
	assert_int_equal(fb_graph_find(g, "X4"), -1);
	assert_int_equal(fb_graph_set_name(g, 1, "age", &err), FB_OK);
	assert_int_equal(fb_graph_find(g, "age"), 1);
	assert_int_equal(fb_graph_find(g, "X2"), -1);
	assert_int_equal(fb_graph_set_name(g, 3, "z", &err), FB_ERR);
	assert_string_equal(err.msg, "node index '4' is out of range (the graph has 3 nodes)");
	assert_int_equal(fb_graph_set_name(g, 0, "", &err), FB_ERR);
	assert_string_equal(err.msg, "node name '1' must not be empty");
	assert_string_equal(g->names[0], "X1");
	fb_graph_free(g);
	fb_graph_free(empty);
	fb_graph_free(NULL);
}

/* Directed and undirected edges set exactly the documented marks and weights. */
static void test_marks(void **state)
{
	fb_graph *g = fb_graph_alloc(3);

	fb_graph_set_directed(g, 0, 2, -1.5);
	assert_int_equal(g->mark[0 * 3 + 2], 1);
	assert_int_equal(g->mark[2 * 3 + 0], 0);
	assert_close(g->w[0 * 3 + 2], -1.5);
	assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_FORWARD);
	assert_int_equal(fb_graph_edge(g, 2, 0), FB_EDGE_BACKWARD);
	assert_true(fb_graph_has_arc(g, 0, 2));
	assert_false(fb_graph_has_arc(g, 2, 0));

	/* an undirected edge replaces the arc and sets both marks */
	fb_graph_set_undirected(g, 2, 0);
	assert_int_equal(g->mark[0 * 3 + 2], 1);
	assert_int_equal(g->mark[2 * 3 + 0], 1);
	assert_close(g->w[0 * 3 + 2], 1.0);
	assert_close(g->w[2 * 3 + 0], 1.0);
	assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_edge(g, 2, 0), FB_EDGE_UNDIRECTED);
	assert_false(fb_graph_has_arc(g, 0, 2));
	assert_true(fb_graph_adjacent(g, 2, 0));

	/* reversing replaces it again: only the new direction remains */
	fb_graph_set_directed(g, 2, 0, 0.75);
	assert_int_equal(g->mark[0 * 3 + 2], 0);
	assert_int_equal(g->mark[2 * 3 + 0], 1);
	assert_close(g->w[0 * 3 + 2], 0.0);
	assert_close(g->w[2 * 3 + 0], 0.75);
	assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_BACKWARD);

	/* self-loops and indices out of range are ignored */
	fb_graph_set_directed(g, 1, 1, 2.0);
	fb_graph_set_undirected(g, 1, 3);
	assert_int_equal(g->mark[1 * 3 + 1], 0);
	assert_int_equal(fb_graph_edge(g, 1, 1), FB_EDGE_NONE);
	assert_int_equal(fb_graph_edge(g, 1, 7), FB_EDGE_NONE);
	assert_int_equal(fb_graph_n_edges(g), 1);

	fb_graph_remove(g, 0, 2);
	assert_int_equal(g->mark[2 * 3 + 0], 0);
	assert_close(g->w[2 * 3 + 0], 0.0);
	assert_false(fb_graph_adjacent(g, 0, 2));
	assert_int_equal(fb_graph_n_edges(g), 0);
	fb_graph_free(g);
}

/* The PDAG X1 - X2, X1 -> X3, X2 -> X3, X3 - X4, X4 -> X5. */
static fb_graph *make_pdag(void)
{
	fb_graph *g = fb_graph_alloc(5);

	fb_graph_set_undirected(g, 0, 1);
	fb_graph_set_directed(g, 0, 2, 1.0);
	fb_graph_set_directed(g, 1, 2, 1.0);
	fb_graph_set_undirected(g, 3, 2);
	fb_graph_set_directed(g, 3, 4, 1.0);
	return g;
}

/* Parents, children, neighbours and adjacents of a PDAG, and its edge counts. */
static void test_pdag_neighbourhoods(void **state)
{
	fb_graph *g = make_pdag();
	size_t out[5];

	assert_list(out, fb_graph_parents(g, 2, out), (size_t[]){ 0, 1 }, 2);
	assert_list(out, fb_graph_children(g, 2, out), NULL, 0);
	assert_list(out, fb_graph_neighbours(g, 2, out), (size_t[]){ 3 }, 1);
	assert_list(out, fb_graph_adjacents(g, 2, out), (size_t[]){ 0, 1, 3 }, 3);
	assert_list(out, fb_graph_children(g, 0, out), (size_t[]){ 2 }, 1);
	assert_list(out, fb_graph_neighbours(g, 0, out), (size_t[]){ 1 }, 1);
	assert_list(out, fb_graph_parents(g, 0, out), NULL, 0);
	assert_list(out, fb_graph_parents(g, 4, out), (size_t[]){ 3 }, 1);
	assert_list(out, fb_graph_adjacents(g, 3, out), (size_t[]){ 2, 4 }, 2);
	assert_int_equal(fb_graph_n_directed(g), 3);
	assert_int_equal(fb_graph_n_undirected(g), 2);
	assert_int_equal(fb_graph_n_edges(g), 5);
	/* the directed part is acyclic, but the undirected edges keep it from being a DAG */
	assert_true(fb_graph_is_acyclic(g));
	assert_false(fb_graph_is_dag(g));
	fb_graph_free(g);
}

/* The DAG with 0-based arcs 5->2, 5->0, 4->0, 4->1, 2->3, 3->1.  Kahn, smallest index
 * first: sources {4, 5} -> 4; then {5} -> 5 (frees 2 and 0); then {0, 2} -> 0; then 2
 * (frees 3); then 3 (frees 1); then 1. */
static void test_topo_order(void **state)
{
	fb_graph *g = fb_graph_alloc(6);
	size_t order[6];
	fb_error err = { "" };

	fb_graph_set_directed(g, 5, 2, 1.0);
	fb_graph_set_directed(g, 5, 0, 1.0);
	fb_graph_set_directed(g, 4, 0, 1.0);
	fb_graph_set_directed(g, 4, 1, 1.0);
	fb_graph_set_directed(g, 2, 3, 1.0);
	fb_graph_set_directed(g, 3, 1, 1.0);
	assert_int_equal(fb_graph_topo_order(g, order, &err), FB_OK);
	assert_list(order, 6, (size_t[]){ 4, 5, 0, 2, 3, 1 }, 6);
	assert_true(fb_graph_is_dag(g));
	/* an undirected edge is ignored by the order */
	fb_graph_set_undirected(g, 0, 1);
	assert_int_equal(fb_graph_topo_order(g, order, &err), FB_OK);
	assert_list(order, 6, (size_t[]){ 4, 5, 0, 2, 3, 1 }, 6);
	assert_true(fb_graph_is_acyclic(g));
	assert_false(fb_graph_is_dag(g));
	fb_graph_free(g);
}

/* A cycle X1 -> X2 -> X3 -> X1 fed by X4 -> X1.  Kahn places X4 only; the walk up from X1
 * (the first unplaced node) through unplaced parents goes X1, X3, X2, X1, X3 in d = 4 steps,
 * so the message names X3. */
static void test_cycle(void **state)
{
	fb_graph *g = fb_graph_alloc(4);
	size_t order[4];
	fb_error err = { "" };

	fb_graph_set_directed(g, 0, 1, 1.0);
	fb_graph_set_directed(g, 1, 2, 1.0);
	fb_graph_set_directed(g, 2, 0, 1.0);
	fb_graph_set_directed(g, 3, 0, 1.0);
	assert_false(fb_graph_is_acyclic(g));
	assert_false(fb_graph_is_dag(g));
	assert_int_equal(fb_graph_topo_order(g, order, &err), FB_ERR);
	assert_string_equal(err.msg, "the graph has a directed cycle through 'X3'");
	/* breaking the cycle with an undirected edge makes the directed part acyclic:
	 * X4 first (frees X1), then X1 (frees X2), then X2 (frees X3), then X3 */
	fb_graph_set_undirected(g, 2, 0);
	assert_true(fb_graph_is_acyclic(g));
	assert_int_equal(fb_graph_topo_order(g, order, &err), FB_OK);
	assert_list(order, 4, (size_t[]){ 3, 0, 1, 2 }, 4);
	fb_graph_free(g);
}

/* A copy is deep: changing it leaves the original alone. */
static void test_copy(void **state)
{
	fb_graph *g = make_pdag();
	fb_graph *c;
	fb_error err = { "" };

	g->weighted = true;
	fb_graph_set_directed(g, 4, 0, 2.5);
	fb_graph_set_name(g, 4, "last", &err);
	c = fb_graph_copy(g);
	assert_non_null(c);
	assert_true(c->weighted);
	assert_true(fb_graph_same_nodes(g, c));
	assert_string_equal(c->names[4], "last");
	assert_int_equal(fb_graph_edge(c, 0, 1), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_edge(c, 0, 4), FB_EDGE_BACKWARD);
	assert_close(c->w[4 * 5 + 0], 2.5);
	fb_graph_remove(c, 4, 0);
	fb_graph_set_name(c, 0, "first", &err);
	assert_int_equal(fb_graph_edge(g, 4, 0), FB_EDGE_FORWARD);
	assert_string_equal(g->names[0], "X1");
	assert_false(fb_graph_same_nodes(g, c));
	assert_null(fb_graph_copy(NULL));
	fb_graph_free(c);
	fb_graph_free(g);
}

/* fb_graph_reaches follows arcs only, forward, one arc or more: 0 -> 1 -> 2, 2 - 3, 4 -> 0. */
static void test_reaches(void **state)
{
	fb_graph *g = fb_graph_alloc(5);
	size_t stack[5];
	bool seen[5];

	fb_graph_set_directed(g, 0, 1, 1.0);
	fb_graph_set_directed(g, 1, 2, 1.0);
	fb_graph_set_undirected(g, 2, 3);
	fb_graph_set_directed(g, 4, 0, 1.0);
	assert_true(fb_graph_reaches(g, 0, 2, 2, stack, seen));
	assert_true(fb_graph_reaches(g, 4, 3, 2, stack, seen));  /* the second target */
	assert_false(fb_graph_reaches(g, 0, 3, 3, stack, seen)); /* 2 - 3 is not followed */
	assert_false(fb_graph_reaches(g, 2, 0, 1, stack, seen)); /* arcs are not reversed */
	assert_false(fb_graph_reaches(g, 0, 0, 4, stack, seen)); /* no path back to the start */
	fb_graph_set_directed(g, 2, 4, 1.0);
	assert_true(fb_graph_reaches(g, 0, 0, 0, stack, seen)); /* 0 -> 1 -> 2 -> 4 -> 0 */
	fb_graph_free(g);
}

/* Count the pairs fb_graph_pairs_joined visits: seen[i * d + j] once for each. */
static void count_visit(void *ctx, size_t i, size_t j)
{
	size_t *seen = ctx;

	assert_true(i < j);
	seen[i * 150 + j]++;
}

/* The block scans of a random mixed graph, and of a pair of graphs, against pair-by-pair
 * reading: edge counts, degrees, adjacency lists in increasing order, joined pairs each
 * visited once; d = 150 is no multiple of the block side, so partial blocks are covered. */
static void test_scans(void **state)
{
	size_t d = 150, nd, nu, got_d, got_u, *start, *adj, *deg, *nb, *seen;
	fb_graph *g = fb_graph_alloc(d), *h = fb_graph_alloc(d);
	uint64_t r = 99;

	(void)state;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			switch ((r >> 33) % 23) {
			case 0:
				fb_graph_set_directed(g, i, j, 1.0);
				break;
			case 1:
				fb_graph_set_directed(g, j, i, 1.0);
				break;
			case 2:
				fb_graph_set_undirected(g, i, j);
				break;
			case 3:
				fb_graph_set_directed(h, j, i, 1.0);
				break;
			default:
				break;
			}
		}
	/* a row joined to every other node, then two rows emptied */
	for (size_t j = 0; j < d; j++)
		fb_graph_set_undirected(g, 7, j);
	for (size_t j = 0; j < d; j++) {
		fb_graph_remove(g, 5, j);
		fb_graph_remove(g, 100, j);
	}
	fb_graph_count_edges(g, &got_d, &got_u);
	assert_int_equal(got_d + got_u, fb_graph_n_edges(g));
	nd = nu = 0;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			nd += fb_graph_edge(g, i, j) == FB_EDGE_FORWARD ||
			      fb_graph_edge(g, i, j) == FB_EDGE_BACKWARD;
			nu += fb_graph_edge(g, i, j) == FB_EDGE_UNDIRECTED;
		}
	assert_int_equal(got_d, nd);
	assert_int_equal(got_u, nu);
	assert_true(nd > 100 && nu > 100);
	adj = fb_graph_adjacency(g, &start);
	deg = fb_xmalloc(d * sizeof *deg);
	nb = fb_xmalloc(d * sizeof *nb);
	fb_graph_degrees(g, deg);
	for (size_t i = 0; i < d; i++) {
		size_t m = fb_graph_adjacents(g, i, nb);

		assert_int_equal(deg[i], m);
		assert_list(adj + start[i], start[i + 1] - start[i], nb, m);
	}
	assert_int_equal(deg[5], 0);
	assert_int_equal(deg[100], 0);
	assert_int_equal(deg[7], d - 3);
	seen = fb_xcalloc(d * d, sizeof *seen);
	fb_graph_pairs_joined(g, h, count_visit, seen);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			assert_int_equal(seen[i * d + j],
			                 fb_graph_adjacent(g, i, j) || fb_graph_adjacent(h, i, j));
	free(seen);
	free(nb);
	free(deg);
	free(start);
	free(adj);
	fb_graph_free(g);
	fb_graph_free(h);
}

/* fb_graph_same_nodes compares counts and names in order. */
static void test_same_nodes(void **state)
{
	fb_graph *a = fb_graph_alloc(2), *b = fb_graph_alloc(2), *c = fb_graph_alloc(3);
	fb_error err = { "" };

	assert_true(fb_graph_same_nodes(a, b));
	assert_false(fb_graph_same_nodes(a, c));
	fb_graph_set_name(b, 0, "X2", &err);
	fb_graph_set_name(b, 1, "X1", &err);
	assert_false(fb_graph_same_nodes(a, b));
	fb_graph_free(a);
	fb_graph_free(b);
	fb_graph_free(c);
}

/* The truth used by the metric tests: the chain X1 -> X2 -> X3 -> X4 (|E| = 3; of the
 * d(d-1)/2 = 6 pairs, 3 are true non-edges). */
static fb_graph *make_chain(void)
{
	fb_graph *g = fb_graph_alloc(4);

	fb_graph_set_directed(g, 0, 1, 1.0);
	fb_graph_set_directed(g, 1, 2, 1.0);
	fb_graph_set_directed(g, 2, 3, 1.0);
	return g;
}

/* Every count and rate of m. */
struct want {
	size_t true_edges, nnz, tp, reversed, extra, missing, shd; /* counts */
	double tpr, fdr, fpr, precision, recall, f1;               /* rates */
	bool cyclic;                                               /* the cycle flag */
};

/* Fail unless m holds exactly the values of w. */
static void assert_metrics(const fb_metrics *m, const struct want *w)
{
	assert_int_equal(m->true_edges, w->true_edges);
	assert_int_equal(m->nnz, w->nnz);
	assert_int_equal(m->tp, w->tp);
	assert_int_equal(m->reversed, w->reversed);
	assert_int_equal(m->extra, w->extra);
	assert_int_equal(m->missing, w->missing);
	assert_int_equal(m->shd, w->shd);
	assert_close(m->tpr, w->tpr);
	assert_close(m->fdr, w->fdr);
	assert_close(m->fpr, w->fpr);
	assert_close(m->precision, w->precision);
	assert_close(m->recall, w->recall);
	assert_close(m->f1, w->f1);
	assert_int_equal(m->cyclic, w->cyclic);
	assert_close(m->precision, 1.0 - m->fdr); /* the one definition: every estimated pair is
	                                             a true positive or a false discovery */
}

/* The truth itself: 3 true positives, nothing wrong: precision 1. */
static void test_metrics_perfect(void **state)
{
	fb_graph *t = make_chain(), *e = make_chain();
	fb_metrics m;
	fb_error err = { "" };

	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 3, 3, 3, 0, 0, 0, 0,
	                                   1.0, 0.0, 0.0, 1.0, 1.0, 1.0, false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* Estimate X1 -> X2 (correct), X3 -> X2 (reversed), X1 -> X4 (extra); X3 -> X4 missing.
 * nnz 3, tp 1, SHD = 1 extra + 1 missing + 1 reversed = 3; TPR 1/3; FDR (1 + 1) / 3;
 * FPR (1 + 1) / 3 non-edges; precision 1/3 (the reversed edge is a false discovery),
 * recall 1/3, F1 1/3. */
static void test_metrics_mixed(void **state)
{
	fb_graph *t = make_chain(), *e = fb_graph_alloc(4);
	fb_metrics m;
	fb_error err = { "" };

	fb_graph_set_directed(e, 0, 1, 1.0);
	fb_graph_set_directed(e, 2, 1, 1.0);
	fb_graph_set_directed(e, 0, 3, 1.0);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 3, 3, 1, 1, 1, 1, 3,
	                                   1.0 / 3, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3,
	                                   false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* Estimate X1 - X2 (undirected over a true edge: tp), X1 - X3 (undirected over a non-edge:
 * extra), X2 -> X3 (tp); X3 -> X4 missing.  nnz 3, tp 2, SHD 1 + 1 = 2; TPR 2/3; FDR 1/3;
 * FPR 1/3; precision 2/3 (pairs, not matrix entries: an undirected edge is one estimated
 * edge), recall 2/3, F1 2/3. */
static void test_metrics_undirected(void **state)
{
	fb_graph *t = make_chain(), *e = fb_graph_alloc(4);
	fb_metrics m;
	fb_error err = { "" };

	fb_graph_set_undirected(e, 1, 0);
	fb_graph_set_undirected(e, 0, 2);
	fb_graph_set_directed(e, 1, 2, 1.0);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 3, 3, 2, 0, 1, 1, 2,
	                                   2.0 / 3, 1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3, 2.0 / 3,
	                                   false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* The empty estimate: all 3 true edges missing, SHD 3; nothing was claimed, so FDR 0 and
 * precision 1; TPR, recall and F1 0. */
static void test_metrics_empty(void **state)
{
	fb_graph *t = make_chain(), *e = fb_graph_alloc(4);
	fb_metrics m;
	fb_error err = { "" };

	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 3, 0, 0, 0, 0, 3, 3,
	                                   0.0, 0.0, 0.0, 1.0, 0.0, 0.0, false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* Estimate the chain plus X3 -> X1, closing the cycle X1 -> X2 -> X3 -> X1: the metrics are
 * still computed.  tp 3, extra 1 (X3 -> X1), SHD 1; nnz 4: TPR 1, FDR 1/4, FPR 1/3;
 * precision 3/4, recall 1, F1 = 2 (3/4) / (7/4) = 6/7. */
static void test_metrics_cyclic(void **state)
{
	fb_graph *t = make_chain(), *e = make_chain();
	fb_metrics m;
	fb_error err = { "" };

	fb_graph_set_directed(e, 2, 0, 1.0);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 3, 4, 3, 0, 1, 0, 1,
	                                   1.0, 0.25, 1.0 / 3, 0.75, 1.0, 6.0 / 7, true });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* An empty truth on 3 nodes against X1 -> X2: one extra edge over 3 true non-edges; TPR and
 * recall divide 0 by max(0, 1). */
static void test_metrics_empty_truth(void **state)
{
	fb_graph *t = fb_graph_alloc(3), *e = fb_graph_alloc(3);
	fb_metrics m;
	fb_error err = { "" };

	fb_graph_set_directed(e, 0, 1, 1.0);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 0, 1, 0, 0, 1, 0, 1,
	                                   0.0, 1.0, 1.0 / 3, 0.0, 0.0, 0.0, false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* The truth of the CPDAG tests: X1 -> X2 -> X3 <- X4, X3 -> X5 (|E| = 4 of 10 pairs).  Its
 * CPDAG keeps the v-structure X2 -> X3 <- X4 and X3 -> X5 (Meek R1), and leaves X1 - X2
 * undirected. */
static fb_graph *make_collider(void)
{
	fb_graph *g = fb_graph_alloc(5);

	fb_graph_set_directed(g, 0, 1, 1.0);
	fb_graph_set_directed(g, 1, 2, 1.0);
	fb_graph_set_directed(g, 3, 2, 1.0);
	fb_graph_set_directed(g, 2, 4, 1.0);
	return g;
}

/* The truth's own CPDAG as the estimate: X1 - X2 is one estimated edge over a true one, so
 * nnz 4, tp 4, SHD 0, FDR 0 and precision 1 (counting matrix entries, as gCastle does, would
 * give 4 / 5 beside that FDR of 0); the CPDAG SHD is 0 too. */
static void test_metrics_cpdag_exact(void **state)
{
	fb_graph *t = make_collider(), *e = make_collider();
	fb_metrics m;
	fb_score s;
	fb_error err = { "" };

	fb_graph_set_undirected(e, 0, 1);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 4, 4, 4, 0, 0, 0, 0,
	                                   1.0, 0.0, 0.0, 1.0, 1.0, 1.0, false });
	assert_int_equal(fb_score_graph(e, t, &s, &err), FB_OK);
	assert_close(s.precision, 1.0);
	assert_close(s.fdr, 0.0);
	assert_close(s.shd_cpdag, 0.0);
	fb_graph_free(t);
	fb_graph_free(e);
}

/* A CPDAG estimate with every class: X1 - X2 (undirected over X1 -> X2: tp), X2 - X3
 * (undirected over X2 -> X3: tp), X3 -> X4 (the truth has X4 -> X3: reversed), X1 - X4
 * (undirected over a non-edge: extra); X3 -> X5 missing.  nnz 4 = 2 tp + 1 reversed + 1
 * extra; |E| 4 = 2 + 1 + 1 missing; SHD 1 + 1 + 1 = 3; TPR 2/4; FDR (1 + 1)/4 = 1/2 and
 * precision 2/4 = 1 - FDR; FPR 2 / (10 - 4); F1 = 2 (1/2)(1/2) / 1 = 1/2.  In words, the
 * same on every screen. */
static void test_metrics_cpdag_mixed(void **state)
{
	fb_graph *t = make_collider(), *e = fb_graph_alloc(5), *tc;
	fb_metrics m;
	fb_score s, s2;
	fb_error err = { "" };
	char buf[200];

	fb_graph_set_undirected(e, 0, 1);
	fb_graph_set_undirected(e, 2, 1);
	fb_graph_set_directed(e, 2, 3, 1.0);
	fb_graph_set_undirected(e, 3, 0);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 4, 4, 2, 1, 1, 1, 3,
	                                   0.5, 0.5, 1.0 / 3, 0.5, 0.5, 0.5, false });
	assert_int_equal(fb_score_graph(e, t, &s, &err), FB_OK);
	assert_string_equal(fb_score_text(&s, false, buf, sizeof buf),
	                    "SHD 3 (extra 1, missing 1, reversed 1), TPR 0.500, FDR 0.500, "
	                    "precision 0.500, recall 0.500, F1 0.500, NNZ 4");
	assert_string_equal(fb_score_text(&s, true, buf, sizeof buf),
	                    "SHD 3, TPR 0.500, FDR 0.500, precision 0.500, F1 0.500");
	/* the truth's CPDAG made beforehand gives the same figures, and a wrong one other
	 * CPDAG figures (so it is the one used) */
	tc = fb_cpdag_from_dag(t, &err);
	assert_non_null(tc);
	assert_int_equal(fb_score_graph_with(e, t, tc, &s2, &err), FB_OK);
	assert_true(s2.shd == s.shd && s2.shd_dag == s.shd_dag && s2.shd_cpdag == s.shd_cpdag);
	assert_int_equal(fb_score_graph_with(e, t, e, &s2, &err), FB_OK);
	assert_true(s2.shd == s.shd && s2.shd_cpdag == 0.0 && s.shd_cpdag > 0.0);
	fb_graph_free(tc);
	fb_graph_free(t);
	fb_graph_free(e);
}

/* Undirected edges only, over a truth's skeleton and beyond: X1 - X2, X2 - X3, X3 - X4 and
 * X4 - X5 against the collider truth: three lie over true edges (tp), X4 - X5 over a
 * non-edge (extra); X3 -> X5 missing.  nnz 4, tp 3: FDR 1/4, precision 3/4, TPR 3/4,
 * F1 3/4, SHD 2, FPR 1/6. */
static void test_metrics_cpdag_skeleton(void **state)
{
	fb_graph *t = make_collider(), *e = fb_graph_alloc(5);
	fb_metrics m;
	fb_error err = { "" };

	for (size_t i = 0; i + 1 < 5; i++)
		fb_graph_set_undirected(e, i, i + 1);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_OK);
	assert_metrics(&m, &(struct want){ 4, 4, 3, 0, 1, 1, 2,
	                                   0.75, 0.25, 1.0 / 6, 0.75, 0.75, 0.75, false });
	fb_graph_free(t);
	fb_graph_free(e);
}

/* Different node counts or names, and an undirected truth, are refused; m is untouched. */
static void test_metrics_errors(void **state)
{
	fb_graph *t = make_chain(), *small = fb_graph_alloc(3), *e = fb_graph_alloc(4);
	fb_metrics m;
	fb_error err = { "" };

	m.shd = 99;
	assert_int_equal(fb_metrics_compute(small, t, &m, &err), FB_ERR);
	assert_string_equal(err.msg,
	                    "estimate and truth have different variables: 3 against 4 nodes");
	fb_graph_set_name(e, 2, "C", &err);
	assert_int_equal(fb_metrics_compute(e, t, &m, &err), FB_ERR);
	assert_string_equal(err.msg, "estimate and truth have different variables: "
	                    "node 3 is 'C' in the estimate and 'X3' in the truth");
	fb_graph_set_undirected(t, 3, 2);
	assert_int_equal(fb_metrics_compute(t, t, &m, &err), FB_ERR);
	assert_string_equal(err.msg, "the truth must be directed: 'X3' - 'X4' is undirected");
	assert_int_equal(m.shd, 99);
	fb_graph_free(t);
	fb_graph_free(small);
	fb_graph_free(e);
}

/* Run the graph and metric tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_names),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_pdag_neighbourhoods),
		cmocka_unit_test(test_topo_order),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_reaches),
		cmocka_unit_test(test_same_nodes),
		cmocka_unit_test(test_scans),
		cmocka_unit_test(test_metrics_perfect),
		cmocka_unit_test(test_metrics_mixed),
		cmocka_unit_test(test_metrics_undirected),
		cmocka_unit_test(test_metrics_empty),
		cmocka_unit_test(test_metrics_cyclic),
		cmocka_unit_test(test_metrics_empty_truth),
		cmocka_unit_test(test_metrics_cpdag_exact),
		cmocka_unit_test(test_metrics_cpdag_mixed),
		cmocka_unit_test(test_metrics_cpdag_skeleton),
		cmocka_unit_test(test_metrics_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
