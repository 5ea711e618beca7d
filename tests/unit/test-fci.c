/* Unit tests of FCI and PAGs: exact agreement, mark by mark, with causal-learn's fci on the
 * thirteen bnlearn networks of its PC tests (chi2, alpha 0.05; ten in
 * tests/data/causal-learn, asia, sachs and alarm in ../shared/data/discrete10000) and on two
 * continuous files (Fisher-z); the true PAGs of textbook DAGs with hidden nodes; SHD between
 * PAGs; the stepper's stages. */
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
#include "fedbn/export.h"
#include "fedbn/fci.h"
#include "fedbn/pag.h"
#include "test-slurp.h"

/* causal-learn's PAG matrix: G[i][j] is the mark at i of the edge i - j (-1 tail, 1
 * arrowhead, 2 circle, 0 no edge). */
static fb_pag *read_cl_pag(const char *path, size_t d)
{
	FILE *fp = fopen(path, "r");
	fb_pag *p = fb_pag_alloc(d);
	int v;

	assert_non_null(fp);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			assert_int_equal(fscanf(fp, "%d", &v), 1);
			if (i == j || v == 0)
				continue;
			assert_true(v == -1 || v == 1 || v == 2);
			/* the mark at i of j - i */
			p->mark[j * d + i] = v == -1 ? FB_PAG_TAIL : v == 1 ? FB_PAG_ARROW : FB_PAG_CIRCLE;
		}
	fclose(fp);
	return p;
}

/* The dataset in path (discrete or not); NULL when the file is absent. */
static fb_dataset *read_data(const char *path, bool discrete)
{
	size_t len = 0;
	char *buf = slurp(path, &len);
	fb_csv_options co;
	fb_error err = { "" };
	fb_dataset *ds;

	if (buf == NULL)
		return NULL;
	fb_csv_options_init(&co);
	if (discrete)
		co.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read_buffer(buf, len, path, &co, NULL, &err);
	free(buf);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	return ds;
}

/* The marks of got and want that differ, printed; their count. */
static size_t count_diff(const char *net, const fb_pag *got, const fb_pag *want)
{
	size_t bad = 0;

	for (size_t i = 0; i < got->d; i++)
		for (size_t j = i + 1; j < got->d; j++)
			if (fb_pag_mark(got, i, j) != fb_pag_mark(want, i, j) ||
			    fb_pag_mark(got, j, i) != fb_pag_mark(want, j, i)) {
				fb_buf a = { 0 }, b = { 0 };

				fb_pag_edge_text(got, i, j, &a);
				fb_pag_edge_text(want, i, j, &b);
				printf("%s: '%s' where causal-learn has '%s'\n", net, a.data, b.data);
				fb_buf_release(&a);
				fb_buf_release(&b);
				bad++;
			}
	return bad;
}

/* The path top/rel into buf, top being $top_srcdir (or .). */
static const char *top_path(char *buf, size_t size, const char *rel)
{
	const char *top = getenv("top_srcdir");

	snprintf(buf, size, "%s/%s", top != NULL ? top : ".", rel);
	return buf;
}

/* fci compat=causal-learn with test on the data file csv equals causal-learn's fci(data,
 * NAME, 0.05) stored in tests/data/fci/NET_fci_NAME_0.05_expected.txt, mark by mark;
 * skipped when a file is absent. */
static void check_causal_learn(const char *csv, const char *net, enum fb_ci_test test)
{
	bool discrete = test != FB_CI_FISHER_Z;
	char exp[4096], rel[512];
	fb_fci_options o;
	fb_dataset *ds;
	fb_pag *got, *want;
	fb_error err = { "" };
	size_t bad;

	snprintf(rel, sizeof rel, "tests/data/fci/%s_fci_%s_0.05_expected.txt", net,
	         discrete ? "chisq" : "fisherz");
	top_path(exp, sizeof exp, rel);
	if (access(exp, R_OK) != 0 || (ds = read_data(csv, discrete)) == NULL) {
		printf("skipped: %s or %s is absent\n", csv, exp);
		skip();
	}
	fb_fci_options_init(&o);
	o.pc.alpha = 0.05;
	o.pc.ci.test = test;
	o.pc.compat = FB_PC_COMPAT_CAUSAL_LEARN;
	got = fb_fci_run(ds, &o, NULL, &err);
	if (got == NULL)
		fail_msg("%s: %s", net, err.msg);
	want = read_cl_pag(exp, ds->d);
	bad = count_diff(net, got, want);
	printf("%s: %zu variables, %zu edges (%zu bidirected, %zu with a circle), %zu marks "
	       "differ from causal-learn's\n", net, ds->d, fb_pag_n_edges(got),
	       fb_pag_n_bidirected(got), fb_pag_n_circles(got), bad);
	assert_int_equal(bad, 0);
	fb_pag_free(got);
	fb_pag_free(want);
	fb_dataset_free(ds);
}

/* One network of tests/data/causal-learn, chi2 (state: its name). */
static void test_tree_network(void **state)
{
	char rel[512], csv[4096];

	snprintf(rel, sizeof rel, "tests/data/causal-learn/%s.csv.gz", (const char *)*state);
	check_causal_learn(top_path(csv, sizeof csv, rel), *state, FB_CI_CHI2);
}

/* One network of ../shared/data/discrete10000, chi2 (state: its name). */
static void test_shared_network(void **state)
{
	char rel[512], csv[4096];

	snprintf(rel, sizeof rel, "../shared/data/discrete10000/%s.csv", (const char *)*state);
	check_causal_learn(top_path(csv, sizeof csv, rel), *state, FB_CI_CHI2);
}

/* The continuous file of tests/data/fci with two hidden causes, Fisher-z. */
static void test_confounded(void **state)
{
	char csv[4096];

	check_causal_learn(top_path(csv, sizeof csv, "tests/data/fci/confounded.csv.gz"),
	                   "confounded", FB_CI_FISHER_Z);
}

/* sachs's continuous file of ../shared/data, Fisher-z. */
static void test_sachs_continuous(void **state)
{
	char csv[4096];

	check_causal_learn(top_path(csv, sizeof csv, "../shared/data/sachs.csv"), "sachs",
	                   FB_CI_FISHER_Z);
}

/* A DAG over names (a string of one-letter names) with arcs "AB CD ..." (A -> B, ...). */
static fb_graph *dag_of(const char *names, const char *arcs)
{
	size_t d = strlen(names);
	fb_graph *g = fb_graph_alloc(d);

	for (size_t i = 0; i < d; i++) {
		char nm[2] = { names[i], 0 };

		assert_int_equal(fb_graph_set_name(g, i, nm, NULL), FB_OK);
	}
	for (const char *a = arcs; a[0] != 0 && a[1] != 0; a += a[2] == ' ' ? 3 : 2)
		fb_graph_set_directed(g, (size_t)(strchr(names, a[0]) - names),
		                      (size_t)(strchr(names, a[1]) - names), 1.0);
	return g;
}

/* The true PAG of the DAG (names, arcs) with the nodes named in hide hidden has exactly the
 * edges want, one per line as fb_pag_text writes them. */
static void check_truth(const char *names, const char *arcs, const char *hide, const char *want)
{
	fb_graph *g = dag_of(names, arcs);
	bool hidden[16] = { false };
	fb_buf b = { 0 };
	fb_pag *p;

	for (size_t i = 0; hide[i] != 0; i++)
		hidden[strchr(names, hide[i]) - names] = true;
	p = fb_pag_of_dag(g, hidden, NULL);
	assert_non_null(p);
	fb_pag_text(p, &b);
	assert_string_equal(b.data != NULL ? b.data : "", want);
	fb_buf_release(&b);
	fb_pag_free(p);
	fb_graph_free(g);
}

/* A confounded pair X <- L -> Y between two causes A -> X and Y <- B: X <-> Y, A o-> X and
 * B o-> Y. */
static void test_truth_confounded(void **state)
{
	check_truth("AXYBL", "AX LX LY BY", "L", "A o-> X\nX <-> Y\nY <-o B\n");
}

/* The Y-structure A -> C <- B, C -> D with nothing hidden: A o-> C <-o B and C -> D (the
 * one edge whose direction no hidden cause can explain away). */
static void test_truth_y_structure(void **state)
{
	check_truth("ABCD", "AC BC CD", "", "A o-> C\nB o-> C\nC --> D\n");
}

/* The M-structure A -> B <- L -> C <- D with L hidden: A o-> B <-> C <-o D. */
static void test_truth_m_structure(void **state)
{
	check_truth("ABCDL", "AB LB LC DC", "L", "A o-> B\nB <-> C\nC <-o D\n");
}

/* A chain with nothing to orient stays circles, and a DAG with undirected edges is refused
 * in one sentence. */
static void test_truth_chain_and_refusal(void **state)
{
	fb_graph *g = dag_of("ABC", "AB BC");
	fb_error err = { "" };

	check_truth("ABC", "AB BC", "", "A o-o B\nB o-o C\n");
	fb_graph_set_undirected(g, 0, 2);
	assert_null(fb_pag_of_dag(g, NULL, &err));
	assert_non_null(strstr(err.msg, "needs a DAG"));
	fb_graph_free(g);
}

/* SHD between PAGs counts adjacencies and then end marks. */
static void test_pag_shd(void **state)
{
	fb_pag *a = fb_pag_alloc(3), *b = fb_pag_alloc(3), *c = fb_pag_alloc(4);
	fb_error err = { "" };
	size_t shd = 99;

	fb_pag_set(a, 0, 1, FB_PAG_TAIL, FB_PAG_ARROW);  /* X1 --> X2 */
	fb_pag_set(b, 0, 1, FB_PAG_ARROW, FB_PAG_ARROW); /* X1 <-> X2 */
	assert_int_equal(fb_pag_shd(a, b, &shd, NULL), FB_OK);
	assert_int_equal(shd, 1);
	fb_pag_set(b, 0, 1, FB_PAG_ARROW, FB_PAG_TAIL); /* X1 <-- X2 */
	fb_pag_set(b, 1, 2, FB_PAG_CIRCLE, FB_PAG_CIRCLE);
	assert_int_equal(fb_pag_shd(a, b, &shd, NULL), FB_OK);
	assert_int_equal(shd, 3);
	assert_int_equal(fb_pag_shd(a, a, &shd, NULL), FB_OK);
	assert_int_equal(shd, 0);
	assert_int_equal(fb_pag_shd(a, c, &shd, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "different variables"));
	fb_pag_free(a);
	fb_pag_free(b);
	fb_pag_free(c);
}

/* The stepper: skeleton levels, then the possible-d-sep stage, then the orientation; a step
 * after it is refused. */
static void test_stages(void **state)
{
	char csv[4096];
	fb_dataset *ds = read_data(top_path(csv, sizeof csv, "tests/data/fci/confounded.csv.gz"),
	                           false);
	fb_fci *f = fb_fci_alloc(ds, NULL, NULL, NULL);
	fb_fci_round r;
	fb_error err = { "" };
	size_t levels = 0;

	assert_non_null(f);
	do {
		assert_int_equal(fb_fci_step(f, &r, NULL), FB_OK);
		levels += r.stage == FB_FCI_SKELETON;
	} while (r.stage == FB_FCI_SKELETON);
	assert_true(levels >= 2);
	assert_int_equal(r.stage, FB_FCI_PDSEP);
	assert_false(fb_fci_done(f));
	assert_int_equal(fb_fci_step(f, &r, NULL), FB_OK);
	assert_int_equal(r.stage, FB_FCI_ORIENT);
	assert_true(fb_fci_done(f));
	assert_int_equal(r.edges, fb_pag_n_edges(fb_fci_pag(f)));
	assert_int_equal(fb_fci_step(f, &r, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "finished"));
	fb_fci_free(f);
	fb_dataset_free(ds);
}

/* Background knowledge: a pair forbidden both ways is never adjacent, and a required arc
 * comes out directed that way (X1 --> X2), as causal-learn's fci(background_knowledge=)
 * orients it. */
static void test_knowledge(void **state)
{
	char csv[4096];
	fb_dataset *ds = read_data(top_path(csv, sizeof csv, "tests/data/fci/confounded.csv.gz"),
	                           false);
	const char *names[8];
	fb_knowledge *k;
	fb_pag *p;

	for (size_t i = 0; i < ds->d; i++)
		names[i] = ds->vars[i].name;
	k = fb_knowledge_alloc(ds->d, names);
	assert_int_equal(fb_knowledge_require(k, 0, 1, NULL), FB_OK);
	assert_int_equal(fb_knowledge_forbid(k, 1, 2, NULL), FB_OK);
	assert_int_equal(fb_knowledge_forbid(k, 2, 1, NULL), FB_OK);
	p = fb_fci_run(ds, NULL, NULL, NULL);
	assert_non_null(p);
	assert_true(fb_pag_adjacent(p, 1, 2)); /* X2 - X3 without the knowledge */
	assert_int_not_equal(fb_pag_mark(p, 1, 0), FB_PAG_TAIL);
	fb_pag_free(p);
	p = fb_fci_run(ds, NULL, k, NULL);
	assert_non_null(p);
	assert_false(fb_pag_adjacent(p, 1, 2));
	assert_int_equal(fb_pag_mark(p, 0, 1), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(p, 1, 0), FB_PAG_TAIL);
	fb_pag_free(p);
	fb_knowledge_free(k);
	fb_dataset_free(ds);
}

/* A PAG's picture draws each mark as an arrow shape (circle odot, arrowhead normal, tail
 * none) at its end, <-> dashed, with the legend. */
static void test_pag_picture(void **state)
{
	fb_pag *p = fb_pag_alloc(3);
	fb_graph *g;
	fb_export_opts o = { 0 };
	char *dot;

	fb_pag_set(p, 0, 1, FB_PAG_CIRCLE, FB_PAG_ARROW); /* X1 o-> X2 */
	fb_pag_set(p, 1, 2, FB_PAG_ARROW, FB_PAG_ARROW);  /* X2 <-> X3 */
	g = fb_pag_to_graph(p);
	o.pag = p;
	dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &o, NULL);
	assert_non_null(dot);
	assert_non_null(strstr(dot, "arrowtail=odot"));
	assert_non_null(strstr(dot, "arrowhead=normal"));
	assert_non_null(strstr(dot, "dashed"));
	assert_non_null(strstr(dot, "circle: not known"));
	assert_null(strstr(dot, "arrowtail=none"));
	free(dot);
	fb_graph_free(g);
	fb_pag_free(p);
}

/* A network test named after its network, which it gets as its state. */
#define TREE(net) { net, test_tree_network, NULL, NULL, (void *)net }
/* See TREE. */
#define SHARED(net) { net, test_shared_network, NULL, NULL, (void *)net }

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		TREE("cancer"), TREE("earthquake"), TREE("survey"), TREE("child"),
		TREE("insurance"), TREE("water"), TREE("barley"), TREE("hailfinder"),
		TREE("hepar2"), TREE("win95pts"), SHARED("asia"), SHARED("sachs"), SHARED("alarm"),
		cmocka_unit_test(test_confounded),
		cmocka_unit_test(test_sachs_continuous),
		cmocka_unit_test(test_truth_confounded),
		cmocka_unit_test(test_truth_y_structure),
		cmocka_unit_test(test_truth_m_structure),
		cmocka_unit_test(test_truth_chain_and_refusal),
		cmocka_unit_test(test_pag_shd),
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_pag_picture),
		cmocka_unit_test(test_knowledge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
