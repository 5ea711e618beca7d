/* Unit tests of pc compat=causal-learn: its Meek rules never orient against a directed path
 * that causal-learn's ancestor table records (hand-made), and exact agreement with
 * causal-learn's stored PC outputs on the thirteen bnlearn networks of its own tests (ten in
 * tests/data/causal-learn, asia, sachs and alarm in ../shared/data/discrete10000). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/csv.h"
#include "fedbn/pc.h"
#include "test-slurp.h"

/* A separating set of a hand-made skeleton. */
typedef struct hand_sep {
	size_t i, j; /* the non-adjacent pair */
	size_t n;    /* members */
	size_t s[2]; /* the members */
} hand_sep;

/* Orient the skeleton of d variables with edges und[0 .. nu) the causal-learn way, every
 * non-adjacent pair separated by the empty set unless seps lists it, with no correlation
 * at all (every collider score 1, so causal-learn's triple order decides); then require the
 * colliders and Meek counts and the arcs arcs[0 .. na). */
static void check_hand(size_t d, const size_t (*und)[2], size_t nu, const hand_sep *seps,
                       size_t ns, size_t coll, size_t meek, const size_t (*arcs)[2], size_t na)
{
	double *R = calloc(d * d, sizeof *R);
	fb_graph *g = fb_graph_alloc(d);
	fb_sepsets *s = fb_sepsets_alloc(d);
	size_t c = 0, m = 0;
	fb_ci *ci;

	for (size_t k = 0; k < d; k++)
		R[k * d + k] = 1;
	ci = fb_ci_alloc_corr(R, d, 100, NULL, NULL);
	for (size_t k = 0; k < nu; k++)
		fb_graph_set_undirected(g, und[k][0], und[k][1]);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (!fb_graph_adjacent(g, i, j))
				fb_sepsets_set(s, i, j, NULL, 0);
	for (size_t k = 0; k < ns; k++)
		fb_sepsets_set(s, seps[k].i, seps[k].j, seps[k].s, seps[k].n);
	assert_int_equal(fb_pc_orient_causal_learn(g, s, ci, &c, &m, NULL), FB_OK);
	assert_int_equal(c, coll);
	assert_int_equal(m, meek);
	for (size_t k = 0; k < na; k++)
		if (fb_graph_edge(g, arcs[k][0], arcs[k][1]) != FB_EDGE_FORWARD)
			fail_msg("%zu -> %zu is missing (relation %d)", arcs[k][0], arcs[k][1],
			         (int)fb_graph_edge(g, arcs[k][0], arcs[k][1]));
	fb_graph_free(g);
	fb_sepsets_free(s);
	fb_ci_free(ci);
	free(R);
}

/* Skeleton a - b, a - c, b - c, c - d, b - d, b - e (a = 0 ... e = 4), with sepset(a, d) =
 * sepset(a, e) = {b} and sepset(c, e) = sepset(d, e) = {}: the colliders a -> c <- d,
 * c -> b <- e and d -> b <- e leave a - b alone.  causal-learn's R1 visits (d, b, a) and
 * (e, b, a) before its R2 visits (a, c, b); R1 would make b -> a and close a -> c -> b -> a,
 * so it is skipped, and R2 orients a -> b (causal-learn itself gives this graph). */
static void test_meek_no_cycle(void **state)
{
	const size_t und[][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 }, { 2, 3 }, { 1, 3 }, { 1, 4 } };
	const hand_sep seps[] = { { 0, 3, 1, { 1 } }, { 0, 4, 1, { 1 } } };
	const size_t arcs[][2] = { { 0, 2 }, { 3, 2 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 0, 1 } };

	check_hand(5, und, 6, seps, 2, 3, 1, arcs, 6);
}

/* Skeleton 4 - 0 - 2, 0 - 1, 5 - 1 - 3, 7 - 1, 6 - 3 - 2, 8 - 3, with colliders 4 -> 0 <- 2,
 * 0 -> 1 <- 5, 0 -> 1 <- 7, 5 -> 1 <- 7, 1 -> 3 <- 6 and 6 -> 3 <- 8, in that order (every
 * other unshielded triple has its middle in the separating set).  The last collider removes
 * and re-adds 6 -> 3, which rebuilds causal-learn's ancestor table from pair (3, 8) down to
 * (0, 1): 1 -> 3 and 2 -> 0 are recorded before 0 -> 1, so 2 is never recorded as an
 * ancestor of 3.  R1 on (1, 3, 2) then makes 3 -> 2 and closes 2 -> 0 -> 1 -> 3 -> 2, as
 * causal-learn does; a full transitive closure would have left 2 - 3. */
static void test_meek_partial_table(void **state)
{
	const size_t und[][2] = { { 0, 4 }, { 0, 2 }, { 0, 1 }, { 1, 5 }, { 1, 3 },
	                          { 3, 6 }, { 2, 3 }, { 1, 7 }, { 3, 8 } };
	const hand_sep seps[] = { { 1, 4, 1, { 0 } },    { 1, 2, 2, { 0, 3 } },
	                          { 0, 3, 2, { 1, 2 } }, { 3, 5, 1, { 1 } },
	                          { 3, 7, 1, { 1 } },    { 2, 6, 1, { 3 } },
	                          { 2, 8, 1, { 3 } },    { 1, 8, 1, { 3 } } };
	const size_t arcs[][2] = { { 2, 0 }, { 4, 0 }, { 0, 1 }, { 5, 1 }, { 7, 1 },
	                           { 1, 3 }, { 6, 3 }, { 8, 3 }, { 3, 2 } };

	check_hand(9, und, 9, seps, 8, 6, 1, arcs, 9);
}

/* PC as o says on ds with threads threads; the graph, the separating sets of every pair
 * written into seps (d * d * (d + 1): each pair's size then members) and the test counters. */
static fb_graph *run_threads(const fb_dataset *ds, fb_pc_options o, size_t threads,
                             size_t *seps, fb_ci_stats *st)
{
	fb_pc *pc;
	fb_graph *g;
	size_t d = ds->d;

	o.threads = threads;
	pc = fb_pc_alloc(ds, &o, NULL);
	assert_non_null(pc);
	while (!fb_pc_done(pc))
		assert_int_equal(fb_pc_step(pc, NULL, NULL), FB_OK);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			seps[(i * d + j) * (d + 1)] =
				fb_sepsets_get(fb_pc_sepsets(pc), i, j, seps + (i * d + j) * (d + 1) + 1);
	fb_ci_get_stats(fb_pc_ci(pc), st);
	g = fb_graph_copy(fb_pc_graph(pc));
	fb_pc_free(pc);
	return g;
}

/* Two and three threads give one thread's graph, separating sets and test counters
 * (queries, cache hits), bit for bit. */
static void check_threads(const fb_dataset *ds, const fb_pc_options *o, const fb_graph *g1)
{
	size_t d = ds->d, m = d * d * (d + 1);
	size_t *s1 = calloc(m, sizeof *s1), *s2 = calloc(m, sizeof *s2);
	fb_ci_stats st1, st2;
	fb_graph *a = run_threads(ds, *o, 1, s1, &st1);

	for (size_t threads = 2; threads <= 3; threads++) {
		fb_graph *b = run_threads(ds, *o, threads, s2, &st2);

		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++) {
				assert_int_equal(fb_graph_edge(a, i, j), fb_graph_edge(b, i, j));
				assert_int_equal(fb_graph_edge(a, i, j), fb_graph_edge(g1, i, j));
			}
		assert_memory_equal(s1, s2, m * sizeof *s1);
		assert_int_equal(st1.queries, st2.queries);
		assert_int_equal(st1.hits, st2.hits);
		assert_int_equal(st1.computed, st2.computed);
		fb_graph_free(b);
		memset(s2, 0, m * sizeof *s2);
	}
	fb_graph_free(a);
	free(s1);
	free(s2);
}

/* PC with compat=causal-learn, chi2, alpha 0.05 on the network net, whose data and stored
 * output are dir/net.csv (or .csv.gz) and dir/net_pc_chisq_0.05_expected.txt, equals that
 * output exactly (causal-learn's pc(data, 0.05, chisq, stable=True, uc_rule=0,
 * uc_priority=-1)); with threads, two threads give the same; skipped when the files are
 * absent. */
static void check_causal_learn(const char *dir, const char *net, const char *ext,
                               bool threads)
{
	char csv[4096], exp[4096], *buf;
	fb_csv_options co;
	fb_pc_options o;
	fb_dataset *ds;
	fb_graph *g, *want;
	fb_error err = { "" };
	size_t bad = 0, len = 0;

	snprintf(csv, sizeof csv, "%s/%s.%s", dir, net, ext);
	snprintf(exp, sizeof exp, "%s/%s_pc_chisq_0.05_expected.txt", dir, net);
	buf = slurp(csv, &len);
	if (buf == NULL || access(exp, R_OK) != 0) {
		printf("skipped: %s or its expected output is absent\n", csv);
		free(buf);
		skip();
	}
	fb_csv_options_init(&co);
	co.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read_buffer(buf, len, csv, &co, NULL, &err);
	free(buf);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	fb_pc_options_init(&o);
	o.alpha = 0.05;
	o.ci.test = FB_CI_CHI2;
	o.compat = FB_PC_COMPAT_CAUSAL_LEARN;
	g = fb_pc_run(ds, &o, &err);
	assert_non_null(g);
	want = read_cl_matrix(exp, ds->d);
	for (size_t i = 0; i < ds->d; i++)
		for (size_t j = i + 1; j < ds->d; j++)
			if (fb_graph_edge(g, i, j) != fb_graph_edge(want, i, j)) {
				printf("%s: %s/%s is %d, causal-learn has %d\n", net, ds->vars[i].name,
				       ds->vars[j].name, (int)fb_graph_edge(g, i, j),
				       (int)fb_graph_edge(want, i, j));
				bad++;
			}
	printf("%s: %zu variables, %zu edges (%zu undirected), %zu pairs differ from "
	       "causal-learn\n", net, ds->d, fb_graph_n_edges(g), fb_graph_n_undirected(g), bad);
	assert_int_equal(bad, 0);
	if (threads)
		check_threads(ds, &o, g);
	fb_graph_free(g);
	fb_graph_free(want);
	fb_dataset_free(ds);
}

/* One network in $top_srcdir/tests/data/causal-learn, with two threads too or not. */
static void tree_check(const char *net, bool threads)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];

	snprintf(dir, sizeof dir, "%s/tests/data/causal-learn", top != NULL ? top : ".");
	check_causal_learn(dir, net, "csv.gz", threads);
}

/* One network in $top_srcdir/tests/data/causal-learn (state: its name). */
static void test_tree_network(void **state)
{
	tree_check(*state, false);
}

/* As test_tree_network, and two threads give one thread's results. */
static void test_tree_threads(void **state)
{
	tree_check(*state, true);
}

/* One network in $top_srcdir/../shared/data/discrete10000 (state: its name). */
static void test_shared_network(void **state)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];

	snprintf(dir, sizeof dir, "%s/../shared/data/discrete10000", top != NULL ? top : ".");
	check_causal_learn(dir, *state, "csv", false);
}

/* A network test named after its network, which it gets as its state. */
#define TREE(net) { net, test_tree_network, NULL, NULL, (void *)net }
/* See TREE; with two threads too. */
#define TREE_THREADS(net) { net, test_tree_threads, NULL, NULL, (void *)net }
/* See TREE. */
#define SHARED(net) { net, test_shared_network, NULL, NULL, (void *)net }

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meek_no_cycle),
		cmocka_unit_test(test_meek_partial_table),
		TREE("cancer"), TREE("earthquake"), TREE("survey"),
		SHARED("asia"), SHARED("sachs"),
		TREE("child"), TREE_THREADS("insurance"), TREE("water"),
		SHARED("alarm"),
		TREE("barley"), TREE_THREADS("hailfinder"), TREE("hepar2"), TREE("win95pts"),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
