/* Unit tests of PC: separating sets; one skeleton level on hand-made correlation matrices
 * (figures worked by hand); fedbn's and causal-learn's collider rules on a hand-made
 * conflict; the stepper; recovery of simulated linear-Gaussian CPDAGs, of a simulated
 * collider and of Asia.  Agreement with causal-learn's stored outputs is in
 * test-pc-causal-learn.c. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "fedbn/algo.h"
#include "fedbn/bif.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/pc.h"
#include "fedbn/sim.h"

/* Fail unless the relation of (i, j) in g is e. */
static void assert_edge(const fb_graph *g, size_t i, size_t j, enum fb_edge e)
{
	if (fb_graph_edge(g, i, j) != e)
		fail_msg("edge (%zu, %zu) is %d, want %d", i, j, (int)fb_graph_edge(g, i, j),
		         (int)e);
}

/* Separating sets: set, add (union), membership, listing, clearing. */
static void test_sepsets(void **state)
{
	fb_sepsets *s = fb_sepsets_alloc(6);
	size_t a[2] = { 4, 1 }, b[3] = { 2, 4, 5 }, out[6];

	assert_false(fb_sepsets_has(s, 0, 3));
	assert_int_equal(fb_sepsets_get(s, 0, 3, out), 0);
	fb_sepsets_set(s, 3, 0, NULL, 0);
	assert_true(fb_sepsets_has(s, 0, 3));
	assert_false(fb_sepsets_contains(s, 0, 3, 1));
	fb_sepsets_set(s, 0, 3, a, 2);
	assert_true(fb_sepsets_contains(s, 3, 0, 4));
	assert_true(fb_sepsets_contains(s, 0, 3, 1));
	assert_false(fb_sepsets_contains(s, 0, 3, 2));
	fb_sepsets_add(s, 3, 0, b, 3);
	assert_int_equal(fb_sepsets_get(s, 0, 3, out), 4);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 4);
	assert_int_equal(out[3], 5);
	fb_sepsets_add(s, 1, 2, NULL, 0); /* defines an empty set */
	assert_true(fb_sepsets_has(s, 2, 1));
	fb_sepsets_clear(s, 0, 3);
	assert_false(fb_sepsets_has(s, 0, 3));
	assert_true(fb_sepsets_has(s, 1, 2));
	fb_sepsets_free(s);
}

/* The chain 0 -> 1 -> 2 as a correlation matrix (r01 = r12 = .5, r02 = .25, n = 1000).
 * Level 0 keeps every edge (r = .25 gives T = sqrt(997) atanh(.25), p about 1e-15): six
 * ordered visits, three of them cache hits.  Level 1, stable: (0,1 | 2) dependent
 * (r_01.2 = .375 / sqrt(.9375 * .75) = .447), (0,2 | 1) independent (r_02.1 = 0, p = 1:
 * removed, sepset {1}), (1,0 | 2) a hit, (1,2 | 0) dependent, (2,0) skipped as removed,
 * (2,1 | 0) a hit: 5 tests, 2 hits.  causal-learn's mode also visits (2,0 | 1): 6 and 3. */
static void test_level_chain(void **state)
{
	const double R[9] = { 1, .5, .25, .5, 1, .5, .25, .5, 1 };
	fb_pc_options o;
	fb_pc_level lv;
	fb_ci *ci;
	fb_graph *g;
	fb_sepsets *s;
	size_t n = 9;

	fb_pc_options_init(&o);
	for (int cl = 0; cl < 2; cl++) {
		o.compat = cl ? FB_PC_COMPAT_CAUSAL_LEARN : FB_PC_COMPAT_NONE;
		ci = fb_ci_alloc_corr(R, 3, 1000, NULL, NULL);
		g = fb_graph_alloc(3);
		s = fb_sepsets_alloc(3);
		for (size_t i = 0; i < 3; i++)
			for (size_t j = i + 1; j < 3; j++)
				fb_graph_set_undirected(g, i, j);
		assert_true(fb_pc_level_possible(g, 1));
		assert_false(fb_pc_level_possible(g, 2));
		assert_int_equal(fb_pc_skeleton_level(g, ci, 0, &o, s, &lv, NULL), FB_OK);
		assert_int_equal(lv.tests, 6);
		assert_int_equal(lv.hits, 3);
		assert_int_equal(lv.removed, 0);
		assert_int_equal(lv.edges, 3);
		assert_int_equal(fb_pc_skeleton_level(g, ci, 1, &o, s, &lv, NULL), FB_OK);
		assert_int_equal(lv.level, 1);
		assert_int_equal(lv.tests, cl ? 6 : 5);
		assert_int_equal(lv.hits, cl ? 3 : 2);
		assert_int_equal(lv.removed, 1);
		assert_int_equal(lv.edges, 2);
		assert_false(fb_graph_adjacent(g, 0, 2));
		assert_true(fb_sepsets_contains(s, 0, 2, 1));
		/* 1 is in sepset(0, 2): no collider, so the chain stays undirected */
		assert_int_equal(fb_pc_orient_colliders(g, s, ci, FB_PC_COLLIDERS_STRENGTH, &n,
		                                        NULL, NULL), FB_OK);
		assert_int_equal(n, 0);
		assert_int_equal(fb_graph_n_undirected(g), 2);
		fb_graph_free(g);
		fb_sepsets_free(s);
		fb_ci_free(ci);
	}
}

/* The collider 0 -> 2 <- 1 as a correlation matrix (r01 = 0, r02 = r12 = .5): level 0
 * removes 0 - 1 with the empty set; level 1 keeps both edges (r_02.1 = .5 / sqrt(.75)); the
 * orientation makes 0 -> 2 <- 1. */
static void test_level_collider(void **state)
{
	const double R[9] = { 1, 0, .5, 0, 1, .5, .5, .5, 1 };
	fb_ci *ci = fb_ci_alloc_corr(R, 3, 1000, NULL, NULL);
	const char *names[3] = { "a", "b", "c" };
	fb_pc *pc = fb_pc_alloc_ci(ci, (char *const *)names, NULL, NULL);
	fb_pc_round r;
	const fb_graph *g;

	assert_non_null(pc);
	assert_int_equal(fb_pc_step(pc, &r, NULL), FB_OK);
	assert_false(r.orientation);
	assert_int_equal(r.level.removed, 1);
	assert_int_equal(fb_pc_step(pc, &r, NULL), FB_OK);
	assert_int_equal(r.level.level, 1);
	assert_int_equal(r.level.removed, 0);
	assert_false(fb_pc_done(pc));
	assert_int_equal(fb_pc_step(pc, &r, NULL), FB_OK);
	assert_true(r.orientation);
	assert_int_equal(r.colliders, 1);
	assert_true(fb_pc_done(pc));
	g = fb_pc_graph(pc);
	assert_string_equal(g->names[2], "c");
	assert_edge(g, 0, 2, FB_EDGE_FORWARD);
	assert_edge(g, 1, 2, FB_EDGE_FORWARD);
	assert_edge(g, 0, 1, FB_EDGE_NONE);
	assert_int_equal(fb_pc_step(pc, &r, NULL), FB_ERR);
	fb_pc_free(pc);
	fb_ci_free(ci);
}

/* Two colliders that disagree on 1 - 2 over the path 0 - 1 - 2 - 3 (empty separating sets
 * for {0, 2} and {1, 3}), with r02 = .2, r13 = .6 and nothing else correlated (n = 100).
 * The order rule visits the middle 1 first: 0 -> 1 <- 2; then the triple (1, 2, 3) finds
 * 2 -> 1 pointing out of 2 and is skipped (one conflict), leaving 2 - 3.  The strength rule
 * tests 0 _||_ 2 | {1} (r = .2, p about .05) and 1 _||_ 3 | {2} (r = .6, p about 1e-11):
 * 1 -> 2 <- 3 goes first and (0, 1, 2) is the conflict, leaving 0 - 1.  causal-learn scores
 * by the largest p given any set holding the middle, here the same two r, so it agrees with
 * the strength rule. */
static void test_collider_conflict(void **state)
{
	const double R[16] = { 1, 0, .2, 0, 0, 1, 0, .6, .2, 0, 1, 0, 0, .6, 0, 1 };
	fb_ci *ci = fb_ci_alloc_corr(R, 4, 100, NULL, NULL);
	fb_graph *g = fb_graph_alloc(4), *h, *k;
	fb_sepsets *s = fb_sepsets_alloc(4);
	size_t conflicts = 0, coll = 0, meek = 9;

	fb_graph_set_undirected(g, 0, 1);
	fb_graph_set_undirected(g, 1, 2);
	fb_graph_set_undirected(g, 2, 3);
	fb_sepsets_set(s, 0, 2, NULL, 0);
	fb_sepsets_set(s, 1, 3, NULL, 0);
	h = fb_graph_copy(g);
	k = fb_graph_copy(g);
	assert_int_equal(fb_pc_orient_colliders(g, s, NULL, FB_PC_COLLIDERS_ORDER, &coll,
	                                        &conflicts, NULL), FB_OK);
	assert_int_equal(coll, 1);
	assert_int_equal(conflicts, 1);
	assert_edge(g, 0, 1, FB_EDGE_FORWARD);
	assert_edge(g, 2, 1, FB_EDGE_FORWARD);
	assert_edge(g, 2, 3, FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_pc_orient_colliders(k, s, ci, FB_PC_COLLIDERS_STRENGTH, &coll,
	                                        &conflicts, NULL), FB_OK);
	assert_int_equal(coll, 1);
	assert_int_equal(conflicts, 1);
	assert_edge(k, 1, 2, FB_EDGE_FORWARD);
	assert_edge(k, 3, 2, FB_EDGE_FORWARD);
	assert_edge(k, 0, 1, FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_pc_orient_colliders(g, s, NULL, FB_PC_COLLIDERS_STRENGTH, &coll,
	                                        &conflicts, NULL), FB_ERR);
	assert_int_equal(fb_pc_orient_causal_learn(h, s, ci, &coll, &meek, NULL), FB_OK);
	assert_int_equal(coll, 1);
	assert_int_equal(meek, 0);
	assert_edge(h, 1, 2, FB_EDGE_FORWARD);
	assert_edge(h, 3, 2, FB_EDGE_FORWARD);
	assert_edge(h, 0, 1, FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	fb_graph_free(h);
	fb_graph_free(k);
	fb_sepsets_free(s);
	fb_ci_free(ci);
}

/* Rows of x, y ~ N(0, 1) and z = x + y + N(0, 1) (seeded): PC gives exactly x -> z <- y. */
static void test_simulated_collider(void **state)
{
	size_t n = 3000;
	fb_dataset *ds = fb_dataset_alloc(n, 3);
	gsl_rng *r = fb_rng_stream(7, "noise");
	fb_graph *g;

	for (size_t i = 0; i < n; i++) {
		double x = gsl_ran_gaussian(r, 1.0), y = gsl_ran_gaussian(r, 1.0);

		ds->x[i * 3] = x;
		ds->x[i * 3 + 1] = y;
		ds->x[i * 3 + 2] = x + y + gsl_ran_gaussian(r, 1.0);
	}
	g = fb_pc_run(ds, NULL, NULL);
	assert_non_null(g);
	assert_int_equal(fb_graph_n_edges(g), 2);
	assert_edge(g, 0, 2, FB_EDGE_FORWARD);
	assert_edge(g, 1, 2, FB_EDGE_FORWARD);
	fb_graph_free(g);
	gsl_rng_free(r);
	fb_dataset_free(ds);
}

/* PC on simulated linear-Gaussian data (ER, d = 20, 20 edges, n = 10,000, seeds 1..10)
 * against the true CPDAG: mean SHD (Tsamardinos) at most 2. */
static void test_gaussian_recovery(void **state)
{
	double total = 0;

	for (uint64_t seed = 1; seed <= 10; seed++) {
		fb_sim_options so;
		fb_dataset *ds;
		fb_graph *truth, *cp, *g;
		size_t shd;

		fb_sim_options_init(&so);
		so.d = 20;
		so.edges = 20;
		so.n = 10000;
		so.seed = seed;
		assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
		cp = fb_cpdag_from_dag(truth, NULL);
		g = fb_pc_run(ds, NULL, NULL);
		assert_non_null(g);
		assert_int_equal(fb_cpdag_shd(g, cp, &shd, NULL), FB_OK);
		printf("seed %2u: CPDAG-SHD %zu\n", (unsigned)seed, shd);
		total += (double)shd;
		fb_graph_free(g);
		fb_graph_free(cp);
		fb_graph_free(truth);
		fb_dataset_free(ds);
	}
	printf("mean CPDAG-SHD %.2f\n", total / 10);
	assert_true(total / 10 <= 2.0);
}

/* Stable PC's skeleton does not depend on the order of the variables. */
static void test_stable_order(void **state)
{
	fb_sim_options so;
	fb_dataset *ds, *rev;
	fb_graph *truth, *a, *b;
	size_t d = 12, cols[12];
	fb_pc_options o;

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = 18;
	so.n = 300;
	so.seed = 3;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	for (size_t j = 0; j < d; j++)
		cols[j] = d - 1 - j;
	rev = fb_dataset_subset(ds, NULL, 0, cols, d);
	fb_pc_options_init(&o);
	o.depth = 5;
	a = fb_pc_run(ds, &o, NULL);
	b = fb_pc_run(rev, &o, NULL);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			assert_int_equal(fb_graph_adjacent(a, i, j),
			                 fb_graph_adjacent(b, d - 1 - i, d - 1 - j));
	fb_graph_free(a);
	fb_graph_free(b);
	fb_graph_free(truth);
	fb_dataset_free(rev);
	fb_dataset_free(ds);
}

/* Run PC to the end on ds: on its own tests (owned, the cache narrowed) or on a test object
 * it shares (every answer kept); the graph, and the counters into st. */
static fb_graph *run_counted(const fb_dataset *ds, const fb_pc_options *o, bool own,
                             fb_ci_stats *st)
{
	fb_ci *ci = own ? NULL : fb_ci_alloc(ds, &o->ci, NULL);
	fb_pc *pc = own ? fb_pc_alloc(ds, o, NULL) : fb_pc_alloc_ci(ci, NULL, o, NULL);
	fb_graph *g;

	assert_non_null(pc);
	while (!fb_pc_done(pc))
		assert_int_equal(fb_pc_step(pc, NULL, NULL), FB_OK);
	fb_ci_get_stats(fb_pc_ci(pc), st);
	g = fb_graph_copy(fb_pc_graph(pc));
	fb_pc_free(pc);
	fb_ci_free(ci);
	return g;
}

/* PC on its own tests keeps only the answers a level may ask again, yet finds the same graph
 * with the same queries, computations and cache hits as when every answer is kept, stable
 * or not. */
static void test_cache_narrowed(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth, *a, *b;
	fb_pc_options o;
	fb_ci_stats sa, sb;

	(void)state;
	fb_sim_options_init(&so);
	so.d = 40;
	so.edges = 60;
	so.n = 400;
	so.seed = 5;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	for (int stable = 0; stable < 2; stable++) {
		fb_pc_options_init(&o);
		o.stable = stable;
		o.alpha = 0.05;
		a = run_counted(ds, &o, true, &sa);
		b = run_counted(ds, &o, false, &sb);
		assert_true(sa.hits > 0);
		assert_int_equal(sa.queries, sb.queries);
		assert_int_equal(sa.computed, sb.computed);
		assert_int_equal(sa.hits, sb.hits);
		for (size_t i = 0; i < so.d; i++)
			for (size_t j = 0; j < so.d; j++)
				assert_int_equal(fb_graph_edge(a, i, j), fb_graph_edge(b, i, j));
		fb_graph_free(a);
		fb_graph_free(b);
	}
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* Run PC as run_counted does, level by level: the per-level figures into lv (room for 64),
 * their number into *nl, and the run (caller frees). */
static fb_pc *run_levels(const fb_dataset *ds, const fb_pc_options *o, fb_ci *ci,
                         fb_pc_level *lv, size_t *nl)
{
	fb_pc *pc = ci == NULL ? fb_pc_alloc(ds, o, NULL) : fb_pc_alloc_ci(ci, NULL, o, NULL);
	fb_pc_round r;

	assert_non_null(pc);
	*nl = 0;
	while (!fb_pc_done(pc)) {
		assert_int_equal(fb_pc_step(pc, &r, NULL), FB_OK);
		assert_true(*nl < 64);
		lv[(*nl)++] = r.level;
	}
	return pc;
}

/* Fail unless two runs found the same CPDAG and separating sets. */
static void assert_same_run(const fb_pc *a, const fb_pc *b, size_t d)
{
	size_t sa[512], sb[512];

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			assert_int_equal(fb_graph_edge(fb_pc_graph(a), i, j),
			                 fb_graph_edge(fb_pc_graph(b), i, j));
			assert_int_equal(fb_sepsets_has(fb_pc_sepsets(a), i, j),
			                 fb_sepsets_has(fb_pc_sepsets(b), i, j));
			if (i < j && fb_sepsets_has(fb_pc_sepsets(a), i, j)) {
				size_t k = fb_sepsets_get(fb_pc_sepsets(a), i, j, sa);

				assert_int_equal(k, fb_sepsets_get(fb_pc_sepsets(b), i, j, sb));
				assert_memory_equal(sa, sb, k * sizeof *sa);
			}
		}
}

/* Fail unless two test objects counted the same queries, computed tests, hits and undefined
 * ones. */
static void assert_same_stats(const fb_ci *a, const fb_ci *b)
{
	fb_ci_stats sa, sb;

	fb_ci_get_stats(a, &sa);
	fb_ci_get_stats(b, &sb);
	assert_int_equal(sa.queries, sb.queries);
	assert_int_equal(sa.computed, sb.computed);
	assert_int_equal(sa.hits, sb.hits);
	assert_int_equal(sa.undefined, sb.undefined);
	assert_int_equal(sa.singular, sb.singular);
}

/* A stable Fisher-z level on PC's own tests searches each vertex's pairs together
 * (fb_ci_fisher_separate; with 2 or 3 threads, first visits then second visits, the large
 * vertices' searches cut into ranges of subsets, pc-split.c); on a shared test object it asks
 * one query at a time.  On 400 variables with hubs (levels up to 8 or so), both find the
 * same CPDAG and separating sets with the same tests, hits and removals level by level and
 * the same counters in all, with 1, 2, 3 and 16 threads; some level with threads cuts a
 * vertex into ranges, and level 0 runs on the threads (pc_split_level0). */
static void test_search_agrees(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_pc_options o;
	fb_pc_level la[64], lb[64];
	size_t na, nb, deep = 0, cut = 0, level0 = 0;

	(void)state;
	fb_sim_options_init(&so);
	so.dag = FB_DAG_SF;
	so.d = 400;
	so.edges = 1200;
	so.n = 3000;
	so.seed = 7;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	fb_pc_options_init(&o);
	o.alpha = 0.05;
	for (o.threads = 1; o.threads <= 16; o.threads += o.threads < 3 ? 1 : 13) {
		fb_ci *ci = fb_ci_alloc(ds, &o.ci, NULL);
		fb_pc *a = run_levels(ds, &o, NULL, la, &na), *b = run_levels(ds, &o, ci, lb, &nb);

		assert_int_equal(na, nb);
		for (size_t k = 0; k < na; k++) {
			assert_int_equal(la[k].tests, lb[k].tests);
			assert_int_equal(la[k].hits, lb[k].hits);
			assert_int_equal(la[k].removed, lb[k].removed);
			assert_int_equal(la[k].edges, lb[k].edges);
			deep += la[k].level >= 4 && la[k].tests > 0;
			cut += o.threads > 1 && la[k].cut > 0 && la[k].threads == o.threads;
			level0 += o.threads > 1 && la[k].level == 0 && la[k].units > 0 &&
			          la[k].threads == o.threads;
		}
		assert_same_stats(fb_pc_ci(a), fb_pc_ci(b));
		assert_same_run(a, b, so.d);
		fb_pc_free(a);
		fb_pc_free(b);
		fb_ci_free(ci);
	}
	assert_true(deep > 0);
	assert_true(cut > 0);
	assert_int_equal(level0, 3); /* 2, 3 and 16 threads */
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* Asia (examples/asia.bif) sampled to 100,000 rows (seed 1): PC with G² recovers the true
 * CPDAG exactly. */
static void test_asia_recovery(void **state)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	fb_bn *bn;
	fb_dataset *ds;
	fb_graph *truth, *cp, *g;
	fb_error err = { "" };
	size_t shd = 99;

	snprintf(path, sizeof path, "%s/examples/asia.bif", top != NULL ? top : ".");
	bn = fb_bif_read(path, &err);
	if (bn == NULL)
		fail_msg("%s", err.msg);
	ds = fb_bn_sample(bn, 100000, 1, &err);
	assert_non_null(ds);
	truth = fb_bn_graph(bn);
	cp = fb_cpdag_from_dag(truth, NULL);
	g = fb_pc_run(ds, NULL, &err);
	assert_non_null(g);
	assert_int_equal(fb_cpdag_shd(g, cp, &shd, &err), FB_OK);
	assert_int_equal(shd, 0);
	fb_graph_free(g);
	fb_graph_free(cp);
	fb_graph_free(truth);
	fb_dataset_free(ds);
	fb_bn_free(bn);
}

extern const fb_algo fb_algo_pc;

/* The stepper behind "pc": one round per level, the last orients; figures and the note. */
static void test_algo(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth, *g;
	fb_run run;
	double fig[7];
	size_t rounds = 0;
	fb_error err = { "" };

	fb_sim_options_init(&so);
	so.d = 8;
	so.edges = 8;
	so.n = 2000;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	memset(&run, 0, sizeof run);
	run.algo = &fb_algo_pc;
	run.data = ds;
	assert_int_equal(fb_params_init(&run.params, fb_algo_pc.params, &err), FB_OK);
	assert_int_equal(fb_params_set_word(&run.params, "depth=1", "pc", &err), FB_OK);
	assert_int_equal(fb_algo_pc.create(&run, &err), FB_OK);
	while (!fb_algo_pc.done(&run)) {
		assert_int_equal(fb_algo_pc.step(&run, fig, &err), FB_OK);
		rounds++;
		if (fig[0] >= 0)
			assert_true(fig[0] == (double)(rounds - 1)); /* level l in round l + 1 */
		g = fb_algo_pc.result(&run, &err);
		assert_true(fig[4] == (double)fb_graph_n_edges(g));
		fb_graph_free(g);
	}
	assert_int_equal(rounds, 3); /* levels 0 and 1 (depth=1), then the orientation */
	assert_true(fig[0] == -1.0);
	assert_non_null(strstr(fb_algo_pc.note(&run), "CPDAG"));
	fb_algo_pc.destroy(&run);
	fb_buf_release(&run.say); /* the sentence its steps wrote */
	fb_params_release(&run.params);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* A finished run frees its tests on request, keeping the counters: a test or a search asked
 * afterwards fails, naming why; before the end the request does nothing. */
static void test_release_tests(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_pc *pc;
	fb_ci_stats a, b;
	fb_ci_result res;
	fb_error err = { "" };
	size_t A[3] = { 1, 2, 3 }, S = 2, sets[4];
	unsigned char open[3] = { 1, 1, 1 }, found[3];
	bool indep;

	fb_sim_options_init(&so);
	so.d = so.edges = 10;
	so.n = 500;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	pc = fb_pc_alloc(ds, NULL, &err);
	assert_non_null(pc);
	fb_pc_release_tests(pc); /* not finished: kept */
	assert_false(fb_ci_released(fb_pc_ci(pc)));
	while (!fb_pc_done(pc))
		assert_int_equal(fb_pc_step(pc, NULL, &err), FB_OK);
	fb_ci_get_stats(fb_pc_ci(pc), &a);
	fb_pc_release_tests(pc);
	assert_true(fb_ci_released(fb_pc_ci(pc)));
	fb_ci_get_stats(fb_pc_ci(pc), &b);
	assert_memory_equal(&a, &b, sizeof a);
	assert_int_equal(fb_ci_independent(fb_pc_ci(pc), 0, 1, &S, 1, 0.05, &indep, &err), FB_ERR);
	assert_string_equal(err.msg, "the test object was released when its run finished: it "
	                             "answers no further test");
	assert_int_equal(fb_ci_test(fb_pc_ci(pc), 0, 1, NULL, 0, &res, &err), FB_ERR);
	assert_true(isnan(res.p));
	assert_int_equal(fb_ci_fisher_separate(fb_pc_ci(pc), 0, A, 3, 1, 0.05, open, NULL, found,
	                                       sets, &err), FB_ERR);
	assert_string_equal(err.msg, "the test object was released when its run finished: it "
	                             "searches no further");
	fb_pc_free(pc);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* A run of PC keeps every round's estimate in its record (as places of the marks when that
 * takes less memory, the last round's here) and scores the newest as the graph itself scores. */
static void test_run_records(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth, *g;
	fb_run *run;
	fb_error err = { "" };
	unsigned char marks[8][40 * 40], kept[40 * 40];
	fb_score s1, s2;
	size_t r = 0;

	fb_sim_options_init(&so);
	so.d = so.edges = 40;
	so.n = 2000;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "pc", .data = ds, .truth = truth }, &err);
	assert_non_null(run);
	while (!fb_run_done(run) && r < 8) {
		assert_int_equal(fb_run_step(run, &err), FB_OK);
		g = fb_run_result(run, &err);
		memcpy(marks[r++], g->mark, sizeof kept);
		fb_graph_free(g);
	}
	assert_true(fb_run_done(run));
	for (size_t k = 0; k < r; k++) {
		assert_true(run->trace.r[k].est_kept);
		fb_trace_rec_marks(&run->trace.r[k], 40, kept);
		assert_memory_equal(kept, marks[k], sizeof kept);
	}
	assert_non_null(run->trace.r[r - 1].mark_at);
	assert_true(fb_ci_released(fb_pc_ci(run->state))); /* the session's run frees them */
	g = fb_run_result(run, &err);
	assert_int_equal(fb_run_score(run, &s1, &err), FB_OK);
	assert_int_equal(fb_score_graph(g, truth, &s2, &err), FB_OK);
	assert_true(s1.shd == s2.shd && s1.shd_dag == s2.shd_dag && s1.shd_cpdag == s2.shd_cpdag);
	assert_true(s1.tp == s2.tp && s1.nnz == s2.nnz && s1.f1 == s2.f1);
	fb_graph_free(g);
	fb_run_free(run);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* One variable: no level can run, the single step orients nothing, the graph is empty. */
static void test_one_variable(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(5, 1);
	fb_pc *pc = fb_pc_alloc(ds, NULL, NULL);
	fb_pc_round r;

	assert_non_null(pc);
	assert_int_equal(fb_pc_step(pc, &r, NULL), FB_OK);
	assert_true(r.orientation);
	assert_true(fb_pc_done(pc));
	assert_int_equal(fb_pc_graph(pc)->d, 1);
	assert_int_equal(fb_graph_n_edges(fb_pc_graph(pc)), 0);
	fb_pc_free(pc);
	fb_dataset_free(ds);
}

/* Bad settings are refused with a sentence. */
static void test_errors(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(10, 3);
	fb_pc_options o;
	fb_error err = { "" };

	fb_pc_options_init(&o);
	o.alpha = 1.0;
	assert_null(fb_pc_alloc(ds, &o, &err));
	assert_string_equal(err.msg, "alpha must lie strictly between 0 and 1, not 1");
	o.alpha = 0.05;
	o.depth = -2;
	assert_null(fb_pc_alloc(ds, &o, &err));
	assert_string_equal(err.msg, "depth must be -1 (no limit) or at least 0, not -2");
	o.depth = 0;
	o.ci.test = FB_CI_G2;
	assert_null(fb_pc_alloc(ds, &o, &err));
	assert_string_equal(err.msg, "g2 needs discrete variables, and 'X1' is continuous");
	fb_dataset_free(ds);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sepsets),
		cmocka_unit_test(test_level_chain),
		cmocka_unit_test(test_level_collider),
		cmocka_unit_test(test_collider_conflict),
		cmocka_unit_test(test_simulated_collider),
		cmocka_unit_test(test_gaussian_recovery),
		cmocka_unit_test(test_stable_order),
		cmocka_unit_test(test_cache_narrowed),
		cmocka_unit_test(test_search_agrees),
		cmocka_unit_test(test_asia_recovery),
		cmocka_unit_test(test_algo),
		cmocka_unit_test(test_run_records),
		cmocka_unit_test(test_release_tests),
		cmocka_unit_test(test_one_variable),
		cmocka_unit_test(test_errors),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
