/* Unit tests of PC with background knowledge: pc compat=causal-learn with the knowledge sets of
 * tests/data/knowledge-pc equals causal-learn's pc(background_knowledge=...) exactly on the
 * thirteen bnlearn networks (ten in tests/data/causal-learn, asia, sachs and alarm in
 * ../shared/data/discrete10000); fedbn's own mode breaks none of the knowledge; a pair
 * forbidden both ways costs no test; hand-made cases of each rule. */
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

#include "fedbn/algo.h"
#include "fedbn/csv.h"
#include "fedbn/dataset.h"
#include "fedbn/knowledge.h"
#include "fedbn/pc.h"
#include "test-slurp.h"

/* Index of the variable called name in ds; fails the test when there is none. */
static size_t var_index(const fb_dataset *ds, const char *name)
{
	for (size_t j = 0; j < ds->d; j++)
		if (strcmp(ds->vars[j].name, name) == 0)
			return j;
	fail_msg("no variable called '%s'", name);
	return 0;
}

/* One line of a knowledge file in section sec ('t' tiers, 'f' forbidden, 'r' required). */
static void knowledge_line(fb_knowledge *k, const fb_dataset *ds, char sec, char *line)
{
	char *tok = strtok(line, " \t\n"), *second;
	fb_error err = { "" };

	if (tok == NULL)
		return;
	if (sec == 't') {
		int t = atoi(tok);

		if (strchr(tok, '*') != NULL)
			assert_int_equal(fb_knowledge_forbid_within_tier(k, t, &err), FB_OK);
		while ((tok = strtok(NULL, " \t\n")) != NULL)
			if (fb_knowledge_set_tier(k, var_index(ds, tok), t, &err) != FB_OK)
				fail_msg("%s", err.msg);
		return;
	}
	second = strtok(NULL, " \t\n");
	assert_non_null(second);
	if ((sec == 'f' ? fb_knowledge_forbid : fb_knowledge_require)(
		    k, var_index(ds, tok), var_index(ds, second), &err) != FB_OK)
		fail_msg("%s", err.msg);
}

/* Read Tetrad's knowledge text (addtemporal, forbiddirect, requiredirect) over ds's
 * variables.  Tiers come first in the file, and within-tier marks with them, so each
 * statement can be checked as it is read. */
static fb_knowledge *read_knowledge(const char *path, const fb_dataset *ds)
{
	const char **names = malloc(ds->d * sizeof *names);
	FILE *fp = fopen(path, "r");
	char line[8192], sec = 0;
	fb_knowledge *k;

	assert_non_null(fp);
	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	k = fb_knowledge_alloc(ds->d, names);
	free(names);
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strncmp(line, "/knowledge", 10) == 0)
			continue;
		if (strncmp(line, "addtemporal", 11) == 0)
			sec = 't';
		else if (strncmp(line, "forbiddirect", 12) == 0)
			sec = 'f';
		else if (strncmp(line, "requiredirect", 13) == 0)
			sec = 'r';
		else if (sec != 0)
			knowledge_line(k, ds, sec, line);
	}
	fclose(fp);
	return k;
}

/* Run PC with options o on the tests of ci (over ds's variables) to the end; the graph and
 * the number of tests it asked for. */
static fb_graph *run_pc_ci(const fb_dataset *ds, fb_ci *ci, const fb_pc_options *o,
                           size_t *queries)
{
	fb_error err = { "" };
	char **names = fb_dataset_names(ds);
	fb_pc *pc = fb_pc_alloc_ci(ci, names, o, &err);
	fb_ci_stats before, after;
	fb_graph *g;

	fb_names_free(names, ds->d);
	if (pc == NULL)
		fail_msg("%s", err.msg);
	fb_ci_get_stats(ci, &before);
	while (!fb_pc_done(pc))
		if (fb_pc_step(pc, NULL, &err) != FB_OK)
			fail_msg("%s", err.msg);
	fb_ci_get_stats(ci, &after);
	*queries = after.queries - before.queries;
	g = fb_graph_copy(fb_pc_graph(pc));
	fb_pc_free(pc);
	return g;
}

/* Run PC on ds with options o to the end, on tests of its own; as run_pc_ci. */
static fb_graph *run_pc(const fb_dataset *ds, const fb_pc_options *o, size_t *queries)
{
	fb_ci_options co;
	fb_error err = { "" };
	fb_ci *ci;
	fb_graph *g;

	fb_pc_ci_options(o, &co);
	if ((ci = fb_ci_alloc(ds, &co, &err)) == NULL)
		fail_msg("%s", err.msg);
	g = run_pc_ci(ds, ci, o, queries);
	fb_ci_free(ci);
	return g;
}

/* The options of the network checks: chi2, alpha 0.05, compat as given. */
static void net_options(fb_pc_options *o, enum fb_pc_compat compat)
{
	fb_pc_options_init(o);
	o->alpha = 0.05;
	o->ci.test = FB_CI_CHI2;
	o->compat = compat;
}

/* The pairs of g and want that differ, each printed. */
static size_t count_diff(const char *what, const fb_dataset *ds, const fb_graph *g,
                         const fb_graph *want)
{
	size_t bad = 0;

	for (size_t i = 0; i < ds->d; i++)
		for (size_t j = i + 1; j < ds->d; j++)
			if (fb_graph_edge(g, i, j) != fb_graph_edge(want, i, j)) {
				printf("%s: %s/%s is %d, causal-learn has %d\n", what, ds->vars[i].name,
				       ds->vars[j].name, (int)fb_graph_edge(g, i, j),
				       (int)fb_graph_edge(want, i, j));
				bad++;
			}
	return bad;
}

/* Knowledge set kn of net on ds: compat=causal-learn equals causal-learn's stored output;
 * fedbn's own mode breaks none of the knowledge.  Both run on the tests of ci (causal-learn's
 * settings: a table with no degree of freedom says independent, so that the own mode's
 * skeleton stays as sparse and its levels as few). */
static void check_set(const fb_dataset *ds, const char *net, int kn, fb_ci *ci)
{
	const char *top = getenv("top_srcdir");
	char kpath[4096], epath[4096], what[128];
	fb_knowledge *k;
	fb_graph *g, *want;
	fb_pc_options o;
	fb_error err = { "" };
	size_t q, bad, viol, nf = 0;

	snprintf(kpath, sizeof kpath, "%s/tests/data/knowledge-pc/%s_k%d.txt",
	         top != NULL ? top : ".", net, kn);
	snprintf(epath, sizeof epath, "%s/tests/data/knowledge-pc/%s_k%d_expected.txt",
	         top != NULL ? top : ".", net, kn);
	snprintf(what, sizeof what, "%s k%d", net, kn);
	k = read_knowledge(kpath, ds);
	net_options(&o, FB_PC_COMPAT_CAUSAL_LEARN);
	o.knowledge = k;
	g = run_pc_ci(ds, ci, &o, &q);
	want = read_cl_matrix(epath, ds->d);
	bad = count_diff(what, ds, g, want);
	fb_graph_free(g);
	fb_graph_free(want);
	net_options(&o, FB_PC_COMPAT_NONE);
	o.knowledge = k;
	g = run_pc_ci(ds, ci, &o, &q);
	viol = fb_knowledge_violations(k, g, &err);
	for (size_t i = 0; i < ds->d; i++)
		for (size_t j = i + 1; j < ds->d; j++)
			nf += fb_knowledge_forbids_pair(k, i, j);
	printf("%s: %zu pairs differ from causal-learn; own mode: %zu violations%s%s, %zu tests, "
	       "%zu pairs forbidden both ways\n", what, bad, viol, viol > 0 ? ": " : "",
	       viol > 0 ? err.msg : "", q, nf);
	assert_int_equal(bad, 0);
	assert_int_equal(viol, 0);
	fb_graph_free(g);
	fb_knowledge_free(k);
}

/* The test object of ds's runs, shared by its five knowledge sets and both modes (their
 * common tests computed once), with compat=causal-learn's settings. */
static fb_ci *net_ci(const fb_dataset *ds)
{
	fb_pc_options o;
	fb_ci_options co;
	fb_error err = { "" };
	fb_ci *ci;

	net_options(&o, FB_PC_COMPAT_CAUSAL_LEARN);
	fb_pc_ci_options(&o, &co);
	if ((ci = fb_ci_alloc(ds, &co, &err)) == NULL)
		fail_msg("%s", err.msg);
	return ci;
}

/* Every knowledge set of net, whose data is dir/net.ext; skipped when absent. */
static void check_network(const char *dir, const char *net, const char *ext)
{
	char csv[4096], *buf;
	fb_csv_options co;
	fb_dataset *ds;
	fb_error err = { "" };
	fb_ci *ci;
	size_t len = 0;

	snprintf(csv, sizeof csv, "%s/%s.%s", dir, net, ext);
	buf = slurp(csv, &len);
	if (buf == NULL) {
		printf("skipped: %s is absent\n", csv);
		skip();
	}
	fb_csv_options_init(&co);
	co.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read_buffer(buf, len, csv, &co, NULL, &err);
	free(buf);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	ci = net_ci(ds);
	for (int kn = 0; kn < 5; kn++)
		check_set(ds, net, kn, ci);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* One network in $top_srcdir/tests/data/causal-learn (state: its name). */
static void test_tree_network(void **state)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];

	snprintf(dir, sizeof dir, "%s/tests/data/causal-learn", top != NULL ? top : ".");
	check_network(dir, *state, "csv.gz");
}

/* One network in $top_srcdir/../shared/data/discrete10000 (state: its name). */
static void test_shared_network(void **state)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];

	snprintf(dir, sizeof dir, "%s/../shared/data/discrete10000", top != NULL ? top : ".");
	check_network(dir, *state, "csv");
}

/* Data of n rows over 4 binary variables: X1 and X2 fair coins, X3 = X1 or X2 flipped with
 * probability 0.1, X4 = X3 flipped with probability 0.1 (a collider X1 -> X3 <- X2 and
 * X3 -> X4); deterministic (a fixed linear congruential generator). */
static fb_dataset *collider_data(size_t n)
{
	fb_buf b = { 0 };
	fb_csv_options co;
	fb_dataset *ds;
	fb_error err = { "" };
	uint64_t s = 12345;

	fb_buf_printf(&b, "X1,X2,X3,X4\n");
	for (size_t r = 0; r < n; r++) {
		int v[4];

		for (int t = 0; t < 4; t++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			v[t] = (int)((s >> 33) % 10);
		}
		v[0] &= 1;
		v[1] &= 1;
		v[2] = (v[0] | v[1]) ^ (v[2] == 0);
		v[3] = v[2] ^ (v[3] == 0);
		fb_buf_printf(&b, "%d,%d,%d,%d\n", v[0], v[1], v[2], v[3]);
	}
	fb_csv_options_init(&co);
	co.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read_buffer(b.data, b.len, "collider", &co, NULL, &err);
	free(b.data);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	return ds;
}

/* The hand-made rules, in both modes: without knowledge X1 -> X3 <- X2, X3 -> X4; forbidding
 * X1 - X3 both ways drops the edge and its tests (fewer tests); requiring X4 -> X3 keeps
 * X4 -> X3 and points no arc against it; requiring X1 -> X2 (a pair the tests remove) joins
 * it in fedbn's mode only. */
static void test_hand_rules(void **state)
{
	fb_dataset *ds = collider_data(4000);
	fb_knowledge *k = fb_knowledge_alloc(4, NULL);
	fb_pc_options o;
	fb_graph *g;
	size_t q0, q1;

	for (int mode = 0; mode < 2; mode++) {
		fb_knowledge_clear(k);
		fb_pc_options_init(&o);
		o.compat = mode ? FB_PC_COMPAT_CAUSAL_LEARN : FB_PC_COMPAT_NONE;
		o.knowledge = k;
		g = run_pc(ds, &o, &q0);
		assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_FORWARD);
		assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_FORWARD);
		assert_int_equal(fb_graph_edge(g, 2, 3), FB_EDGE_FORWARD);
		fb_graph_free(g);
		assert_int_equal(fb_knowledge_forbid(k, 0, 2, NULL), FB_OK);
		assert_int_equal(fb_knowledge_forbid(k, 2, 0, NULL), FB_OK);
		g = run_pc(ds, &o, &q1);
		assert_false(fb_graph_adjacent(g, 0, 2));
		assert_true(q1 < q0);
		fb_graph_free(g);
		fb_knowledge_clear(k);
		assert_int_equal(fb_knowledge_require(k, 3, 2, NULL), FB_OK);
		assert_int_equal(fb_knowledge_require(k, 0, 1, NULL), FB_OK);
		g = run_pc(ds, &o, &q1);
		assert_int_equal(fb_graph_edge(g, 3, 2), FB_EDGE_FORWARD);
		assert_int_equal(fb_graph_edge(g, 0, 1), mode ? FB_EDGE_NONE : FB_EDGE_FORWARD);
		fb_graph_free(g);
	}
	fb_knowledge_free(k);
	fb_dataset_free(ds);
}

/* The pc learner with X1 - X3 forbidden both ways says at level 0 that the pair was never
 * joined nor tested, and asks two tests fewer there than without the knowledge (a pair kept
 * at level 0 is asked from both ends). */
static void test_learner_says(void **state)
{
	fb_dataset *ds = collider_data(1000);
	fb_knowledge *k = fb_knowledge_alloc(4, NULL);
	double tests[2];

	for (int with = 0; with < 2; with++) {
		fb_run_spec spec = { .algo = "pc", .data = ds, .knowledge = k };
		fb_error err = { "" };
		fb_run *run;
		const fb_trace_rec *rec;

		if (with) {
			assert_int_equal(fb_knowledge_forbid(k, 0, 2, &err), FB_OK);
			assert_int_equal(fb_knowledge_forbid(k, 2, 0, &err), FB_OK);
		}
		run = fb_run_alloc(&spec, &err);
		if (run == NULL)
			fail_msg("%s", err.msg);
		assert_int_equal(fb_run_step(run, &err), FB_OK);
		rec = fb_run_last(run);
		assert_non_null(rec);
		tests[with] = rec->fig[1];
		assert_int_equal(strstr(rec->say, "1 pair forbidden by the knowledge never joined, "
		                                  "not tested") != NULL, with);
		fb_run_free(run);
	}
	assert_true(tests[1] == tests[0] - 2);
	fb_knowledge_free(k);
	fb_dataset_free(ds);
}

/* A network test named after its network, which it gets as its state. */
#define TREE(net) { net, test_tree_network, NULL, NULL, (void *)net }
/* See TREE. */
#define SHARED(net) { net, test_shared_network, NULL, NULL, (void *)net }

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_rules),
		cmocka_unit_test(test_learner_says),
		TREE("cancer"), TREE("earthquake"), TREE("survey"),
		SHARED("asia"), SHARED("sachs"),
		TREE("child"), TREE("insurance"), TREE("water"),
		SHARED("alarm"),
		TREE("barley"), TREE("hailfinder"), TREE("hepar2"), TREE("win95pts"),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
