/* Unit tests of the CPDAG tools on hand-worked graphs: each Meek rule's trigger pattern,
 * CPDAGs of small DAGs, Dor & Tarsi's extension (and its fallback), and the PDAG SHD. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/cpdag.h"
#include "fedbn/metrics.h"
#include "fedbn/sim.h"

/* Fail unless the relation of (i, j) in g is e. */
static void assert_edge(const fb_graph *g, size_t i, size_t j, enum fb_edge e)
{
	if (fb_graph_edge(g, i, j) != e)
		fail_msg("edge (%zu, %zu) is %d, want %d", i, j, (int)fb_graph_edge(g, i, j),
		         (int)e);
}

/* A graph on d nodes with the given arcs (pairs) and undirected edges (pairs). */
static fb_graph *make(size_t d, const size_t (*arcs)[2], size_t na, const size_t (*und)[2],
                      size_t nu)
{
	fb_graph *g = fb_graph_alloc(d);

	for (size_t k = 0; k < na; k++)
		fb_graph_set_directed(g, arcs[k][0], arcs[k][1], 1.0);
	for (size_t k = 0; k < nu; k++)
		fb_graph_set_undirected(g, und[k][0], und[k][1]);
	return g;
}

/* R1: 0 -> 1 - 2 with 0, 2 not adjacent orients 1 -> 2; with 0 - 2 present it does not. */
static void test_meek_r1(void **state)
{
	const size_t arcs[][2] = { { 0, 1 } }, und[][2] = { { 1, 2 } }, und2[][2] = { { 1, 2 },
		                                                                  { 0, 2 } };
	fb_graph *g = make(3, arcs, 1, und, 1), *h = make(3, arcs, 1, und2, 2);

	assert_int_equal(fb_cpdag_meek(g, false), 1);
	assert_edge(g, 1, 2, FB_EDGE_FORWARD);
	assert_edge(g, 0, 1, FB_EDGE_FORWARD);
	assert_int_equal(fb_cpdag_meek(h, false), 0);
	assert_edge(h, 1, 2, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	fb_graph_free(h);
}

/* Orientations that are not consistent: 2 -> 0 (2, 1 not adjacent) and 1 -> 3 -> 0, with
 * 0 - 1.  R1 would orient 0 -> 1 first (row-major), closing 0 -> 1 -> 3 -> 0; that is not
 * done, and R2 then orients 1 -> 0 along 1 -> 3 -> 0, so the result stays acyclic. */
static void test_meek_no_cycle(void **state)
{
	const size_t arcs[][2] = { { 2, 0 }, { 1, 3 }, { 3, 0 } }, und[][2] = { { 0, 1 } };
	fb_graph *g = make(4, arcs, 3, und, 1);

	assert_int_equal(fb_cpdag_meek(g, false), 1);
	assert_edge(g, 1, 0, FB_EDGE_FORWARD);
	assert_true(fb_graph_is_acyclic(g));
	fb_graph_free(g);
}

/* R2: 0 -> 1 -> 2 with 0 - 2 orients 0 -> 2. */
static void test_meek_r2(void **state)
{
	const size_t arcs[][2] = { { 0, 1 }, { 1, 2 } }, und[][2] = { { 0, 2 } };
	fb_graph *g = make(3, arcs, 2, und, 1);

	assert_int_equal(fb_cpdag_meek(g, false), 1);
	assert_edge(g, 0, 2, FB_EDGE_FORWARD);
	fb_graph_free(g);
}

/* R3: a=0, b=1, c=2, e=3: 0 - 2 -> 1, 0 - 3 -> 1, 2 and 3 not adjacent, 0 - 1: orients 0 -> 1
 * and nothing else. */
static void test_meek_r3(void **state)
{
	const size_t arcs[][2] = { { 2, 1 }, { 3, 1 } }, und[][2] = { { 0, 2 }, { 0, 3 },
		                                                    { 0, 1 } };
	fb_graph *g = make(4, arcs, 2, und, 3);

	assert_int_equal(fb_cpdag_meek(g, false), 1);
	assert_edge(g, 0, 1, FB_EDGE_FORWARD);
	assert_edge(g, 0, 2, FB_EDGE_UNDIRECTED);
	assert_edge(g, 0, 3, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
}

/* R4: a=0, b=1, c=2, e=3: 0 - 2 -> 3 -> 1, 0 - 3, 0 - 1, 2 and 1 not adjacent.  R1-R3 leave
 * it (worked by hand: no arc enters 0, 2 or 3 from a vertex not adjacent to the far end, no
 * directed two-step path between the ends of an undirected edge, and 1 has one undirected
 * neighbour with an arc into 1 besides 0); R4 orients 0 -> 1. */
static void test_meek_r4(void **state)
{
	const size_t arcs[][2] = { { 2, 3 }, { 3, 1 } }, und[][2] = { { 0, 2 }, { 0, 3 },
		                                                    { 0, 1 } };
	fb_graph *g = make(4, arcs, 2, und, 3), *h = make(4, arcs, 2, und, 3);

	assert_int_equal(fb_cpdag_meek(g, false), 0);
	assert_int_equal(fb_cpdag_meek(h, true), 1);
	assert_edge(h, 0, 1, FB_EDGE_FORWARD);
	assert_edge(h, 0, 2, FB_EDGE_UNDIRECTED);
	assert_edge(h, 0, 3, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	fb_graph_free(h);
}

/* Directed edges are never changed, even in a directed cycle that R2 would contradict. */
static void test_meek_no_reorient(void **state)
{
	const size_t arcs[][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 } };
	fb_graph *g = make(3, arcs, 3, NULL, 0);

	assert_int_equal(fb_cpdag_meek(g, true), 0);
	assert_edge(g, 0, 1, FB_EDGE_FORWARD);
	assert_edge(g, 1, 2, FB_EDGE_FORWARD);
	assert_edge(g, 2, 0, FB_EDGE_FORWARD);
	fb_graph_free(g);
}

/* A collider keeps its arcs; a chain becomes fully undirected; a collider followed by a chain
 * propagates by R1; the diamond 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3 keeps only 1 -> 3 <- 2. */
static void test_from_dag(void **state)
{
	const size_t coll[][2] = { { 0, 2 }, { 1, 2 } }, chain[][2] = { { 0, 1 }, { 1, 2 } };
	const size_t prop[][2] = { { 0, 2 }, { 1, 2 }, { 2, 3 }, { 3, 4 } };
	const size_t diam[][2] = { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } };
	fb_graph *g, *c;

	g = make(3, coll, 2, NULL, 0);
	c = fb_cpdag_from_dag(g, NULL);
	assert_edge(c, 0, 2, FB_EDGE_FORWARD);
	assert_edge(c, 1, 2, FB_EDGE_FORWARD);
	assert_int_equal(fb_cpdag_n_vstructures(c), 1);
	fb_graph_free(g);
	fb_graph_free(c);
	g = make(3, chain, 2, NULL, 0);
	c = fb_cpdag_from_dag(g, NULL);
	assert_int_equal(fb_graph_n_undirected(c), 2);
	assert_int_equal(fb_graph_n_directed(c), 0);
	fb_graph_free(g);
	fb_graph_free(c);
	g = make(5, prop, 4, NULL, 0);
	c = fb_cpdag_from_dag(g, NULL);
	assert_int_equal(fb_graph_n_directed(c), 4);
	assert_edge(c, 2, 3, FB_EDGE_FORWARD);
	assert_edge(c, 3, 4, FB_EDGE_FORWARD);
	fb_graph_free(g);
	fb_graph_free(c);
	g = make(4, diam, 4, NULL, 0);
	c = fb_cpdag_from_dag(g, NULL);
	assert_edge(c, 1, 3, FB_EDGE_FORWARD);
	assert_edge(c, 2, 3, FB_EDGE_FORWARD);
	assert_edge(c, 0, 1, FB_EDGE_UNDIRECTED);
	assert_edge(c, 0, 2, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	fb_graph_free(c);
}

/* The DAG 0 -> 2, 0 -> 3, 2 -> 1, 3 -> 1, 0 -> 1 has the v-structure 2 -> 1 <- 3, and R3
 * then compels 0 -> 1 (a = 0, b = 1); 0 - 2 and 0 - 3 stay undirected. */
static void test_from_dag_r3(void **state)
{
	const size_t arcs[][2] = { { 0, 2 }, { 0, 3 }, { 2, 1 }, { 3, 1 }, { 0, 1 } };
	fb_graph *g = make(4, arcs, 5, NULL, 0), *c = fb_cpdag_from_dag(g, NULL);

	assert_edge(c, 0, 1, FB_EDGE_FORWARD);
	assert_edge(c, 2, 1, FB_EDGE_FORWARD);
	assert_edge(c, 3, 1, FB_EDGE_FORWARD);
	assert_edge(c, 0, 2, FB_EDGE_UNDIRECTED);
	assert_edge(c, 0, 3, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	fb_graph_free(c);
}

/* A PDAG with an undirected edge or a cycle is not a DAG to convert. */
static void test_from_dag_errors(void **state)
{
	const size_t cyc[][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 } }, und[][2] = { { 0, 1 } };
	fb_graph *g = make(3, cyc, 3, NULL, 0), *h = make(3, NULL, 0, und, 1);
	fb_error err = { "" };

	assert_null(fb_cpdag_from_dag(g, &err));
	assert_string_equal(err.msg, "the graph has a directed cycle: a CPDAG is made from a DAG");
	assert_null(fb_cpdag_from_dag(h, &err));
	assert_string_equal(err.msg,
	                    "the graph has 1 undirected edges: a CPDAG is made from a DAG");
	fb_graph_free(g);
	fb_graph_free(h);
}

/* Same skeleton: the same pairs adjacent. */
static void assert_same_skeleton(const fb_graph *a, const fb_graph *b)
{
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = i + 1; j < a->d; j++)
			assert_int_equal(fb_graph_adjacent(a, i, j), fb_graph_adjacent(b, i, j));
}

/* Dor & Tarsi on the R3 CPDAG and on random DAGs' CPDAGs: a DAG with the same skeleton and
 * v-structures, i.e. whose CPDAG is the one we started from (SHD 0). */
static void test_to_dag(void **state)
{
	const size_t arcs[][2] = { { 0, 2 }, { 0, 3 }, { 2, 1 }, { 3, 1 }, { 0, 1 } };
	fb_graph *g = make(4, arcs, 5, NULL, 0), *c = fb_cpdag_from_dag(g, NULL), *x, *cx;
	bool fb = true;
	size_t shd = 99;

	x = fb_cpdag_to_dag(c, &fb);
	assert_false(fb);
	assert_true(fb_graph_is_dag(x));
	assert_same_skeleton(x, c);
	cx = fb_cpdag_from_dag(x, NULL);
	assert_int_equal(fb_cpdag_shd(cx, c, &shd, NULL), FB_OK);
	assert_int_equal(shd, 0);
	fb_graph_free(g);
	fb_graph_free(c);
	fb_graph_free(x);
	fb_graph_free(cx);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");

		g = fb_sim_dag(FB_DAG_ER, 15, 30, r, NULL);
		c = fb_cpdag_from_dag(g, NULL);
		x = fb_cpdag_to_dag(c, &fb);
		assert_false(fb);
		assert_true(fb_graph_is_dag(x));
		assert_same_skeleton(x, g);
		assert_int_equal(fb_cpdag_n_vstructures(x), fb_cpdag_n_vstructures(g));
		cx = fb_cpdag_from_dag(x, NULL);
		assert_int_equal(fb_cpdag_shd(cx, c, &shd, NULL), FB_OK);
		assert_int_equal(shd, 0);
		fb_graph_free(g);
		fb_graph_free(c);
		fb_graph_free(x);
		fb_graph_free(cx);
		gsl_rng_free(r);
	}
}

/* A chordless undirected 4-cycle has no extension without a new v-structure: every vertex's
 * two neighbours are non-adjacent, so Dor & Tarsi stops at once and the fallback orients the
 * cycle along index order, flagged. */
static void test_to_dag_fallback(void **state)
{
	const size_t und[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 } };
	fb_graph *g = make(4, NULL, 0, und, 4), *x;
	bool fb = false;

	x = fb_cpdag_to_dag(g, &fb);
	assert_true(fb);
	assert_true(fb_graph_is_dag(x));
	assert_same_skeleton(x, g);
	assert_edge(x, 0, 1, FB_EDGE_FORWARD);
	assert_edge(x, 0, 3, FB_EDGE_FORWARD);
	assert_edge(x, 1, 2, FB_EDGE_FORWARD);
	assert_edge(x, 2, 3, FB_EDGE_FORWARD);
	fb_graph_free(g);
	fb_graph_free(x);
}

/* The extension as first written, scanning every vertex at every step (O(d^3)): the
 * reference the fast one must match edge for edge (without the fallback's orientation of
 * what is left). */
static fb_graph *slow_to_dag(const fb_graph *p, bool *fallback)
{
	size_t d = p->d, left = d, *nb = calloc(d + 1, sizeof *nb), *outdeg;
	fb_graph *out = fb_graph_copy(p);
	bool *alive = calloc(d + 1, sizeof *alive);

	outdeg = calloc(d + 1, sizeof *outdeg);
	for (size_t i = 0; i < d; i++) {
		alive[i] = true;
		for (size_t j = 0; j < d; j++)
			outdeg[i] += p->mark[i * d + j] && !p->mark[j * d + i];
	}
	while (left > 0) {
		size_t x;

		for (x = 0; x < d; x++) {
			size_t n = 0;
			bool ok = alive[x] && outdeg[x] == 0;

			for (size_t y = 0; ok && y < d; y++)
				if (y != x && alive[y] && fb_graph_adjacent(p, x, y))
					nb[n++] = y;
			for (size_t a = 0; ok && a < n; a++) {
				bool und = p->mark[x * d + nb[a]] && p->mark[nb[a] * d + x];

				for (size_t b = 0; und && ok && b < n; b++)
					ok = b == a || fb_graph_adjacent(p, nb[a], nb[b]);
			}
			if (ok)
				break;
		}
		if (x == d)
			break;
		alive[x] = false;
		left--;
		for (size_t y = 0; y < d; y++) {
			if (!alive[y] || !fb_graph_adjacent(p, x, y))
				continue;
			if (p->mark[x * d + y] && p->mark[y * d + x])
				fb_graph_set_directed(out, y, x, p->w[y * d + x]);
			else if (p->mark[y * d + x])
				outdeg[y]--;
		}
	}
	*fallback = left > 0;
	free(alive);
	free(outdeg);
	free(nb);
	return out;
}

/* The CPDAG of g, and for every third seed some of its arcs undirected at random with r
 * (not a CPDAG any more; it may have no extension). */
static fb_graph *random_pdag(const fb_graph *g, uint64_t seed, gsl_rng *r)
{
	fb_graph *p = fb_cpdag_from_dag(g, NULL);
	size_t d = g->d;

	if (seed % 3 == 0)
		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++)
				if (p->mark[i * d + j] && gsl_rng_uniform(r) < 0.3)
					fb_graph_set_undirected(p, i, j);
	return p;
}

/* The fast extension gives the reference's DAG, mark for mark, on the CPDAGs of random DAGs
 * and on random PDAGs (some with no extension, where the fallback takes over). */
static void test_to_dag_reference(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");
		size_t d = 5 + seed % 40;
		fb_graph *g = fb_sim_dag(FB_DAG_ER, d, 2 * d, r, NULL), *p, *x, *y;
		bool fx = false, fy = false;

		p = random_pdag(g, seed, r);
		x = fb_cpdag_to_dag(p, &fx);
		y = slow_to_dag(p, &fy);
		assert_int_equal(fx, fy);
		/* every edge the elimination directed is directed the same way; without the
		 * fallback that is every edge */
		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++)
				if (y->mark[i * d + j] != y->mark[j * d + i] || !fy)
					assert_int_equal(x->mark[i * d + j], y->mark[i * d + j]);
		fb_graph_free(g);
		fb_graph_free(p);
		fb_graph_free(x);
		fb_graph_free(y);
		gsl_rng_free(r);
	}
}

/* A score's DAG SHD, counted from the extension's directions without a copy, is the SHD of
 * fb_cpdag_to_dag's DAG against the truth: on the CPDAGs of random DAGs scored against
 * another DAG, and on random PDAGs (some with no extension: the fallback). */
static void test_score_shd_dag(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 60; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");
		size_t d = 5 + seed % 40;
		fb_graph *g = fb_sim_dag(FB_DAG_ER, d, 2 * d, r, NULL);
		fb_graph *t = fb_sim_dag(FB_DAG_ER, d, d, r, NULL), *p, *x;
		fb_metrics m;
		fb_score s;

		p = random_pdag(g, seed, r);
		for (int k = 0; k < 2; k++) { /* against another DAG, then its own */
			assert_int_equal(fb_score_graph(p, k == 0 ? t : g, &s, NULL), FB_OK);
			x = fb_cpdag_to_dag(p, NULL);
			assert_int_equal(fb_metrics_compute(x, k == 0 ? t : g, &m, NULL), FB_OK);
			assert_true(s.shd_dag == (double)m.shd);
			fb_graph_free(x);
		}
		fb_graph_free(g);
		fb_graph_free(t);
		fb_graph_free(p);
		gsl_rng_free(r);
	}
}

/* SHD between PDAGs: a reversal, an orientation, a deletion and an insertion cost 1 each. */
static void test_shd(void **state)
{
	const size_t a_arcs[][2] = { { 0, 1 }, { 1, 2 } }, a_und[][2] = { { 2, 3 }, { 3, 4 } };
	const size_t b_arcs[][2] = { { 1, 0 }, { 1, 2 }, { 2, 3 } }, b_und[][2] = { { 0, 4 } };
	fb_graph *a = make(5, a_arcs, 2, a_und, 2), *b = make(5, b_arcs, 3, b_und, 1);
	fb_graph *c = fb_graph_alloc(4);
	fb_error err = { "" };
	size_t shd = 0;

	/* (0,1) reversed, (2,3) oriented, (3,4) deleted, (0,4) inserted; (1,2) equal */
	assert_int_equal(fb_cpdag_shd(a, b, &shd, &err), FB_OK);
	assert_int_equal(shd, 4);
	assert_int_equal(fb_cpdag_shd(a, a, &shd, &err), FB_OK);
	assert_int_equal(shd, 0);
	assert_int_equal(fb_cpdag_shd(a, c, &shd, &err), FB_ERR);
	assert_string_equal(err.msg, "the graphs compared have different nodes (5 and 4, or other "
	                             "names)");
	fb_graph_free(a);
	fb_graph_free(b);
	fb_graph_free(c);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meek_r1),
		cmocka_unit_test(test_meek_r2),
		cmocka_unit_test(test_meek_no_cycle),
		cmocka_unit_test(test_meek_r3),
		cmocka_unit_test(test_meek_r4),
		cmocka_unit_test(test_meek_no_reorient),
		cmocka_unit_test(test_from_dag),
		cmocka_unit_test(test_from_dag_r3),
		cmocka_unit_test(test_from_dag_errors),
		cmocka_unit_test(test_to_dag),
		cmocka_unit_test(test_to_dag_fallback),
		cmocka_unit_test(test_to_dag_reference),
		cmocka_unit_test(test_score_shd_dag),
		cmocka_unit_test(test_shd),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
