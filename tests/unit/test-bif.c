/* Unit tests of BIF networks: the shared bnlearn networks and their arcs, the hand-written
 * Asia example against the repository's, the table layout, every error message, and
 * forward sampling (marginals, conditional rows, a fixed-seed checksum, reproducibility). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/bif.h"
#include "fedbn/csv.h"
#include "test-near.h"

/* Read BIF text named "t.bif"; the test fails on an error. */
static fb_bn *read_ok(const char *text)
{
	fb_error err = { { 0 } };
	fb_bn *bn = fb_bif_read_buffer(text, strlen(text), "t.bif", &err);

	if (bn == NULL)
		fail_msg("unexpected error: %s", err.msg);
	return bn;
}

/* Read a file; the test fails on an error. */
static fb_bn *read_file_ok(const char *path)
{
	fb_error err = { { 0 } };
	fb_bn *bn = fb_bif_read(path, &err);

	if (bn == NULL)
		fail_msg("unexpected error: %s", err.msg);
	return bn;
}

/* The Asia example of the source tree. */
static fb_bn *read_example_asia(void)
{
	char path[512];

	snprintf(path, sizeof path, "%s/examples/asia.bif", top());
	return read_file_ok(path);
}

/* One shared network: node and arc counts, and its DAG against <name>_truth.csv. */
static void check_shared(const char *name, size_t nodes, size_t arcs)
{
	char bif[512], truth[512];
	fb_error err = { { 0 } };
	char **names;
	fb_graph *g, *t;
	fb_bn *bn;

	snprintf(bif, sizeof bif, "%s/../shared/data/bif/%s.bif", top(), name);
	snprintf(truth, sizeof truth, "%s/../shared/data/bif/%s_truth.csv", top(), name);
	bn = read_file_ok(bif);
	assert_int_equal(fb_bn_d(bn), nodes);
	assert_int_equal(fb_bn_n_arcs(bn), arcs);
	g = fb_bn_graph(bn);
	assert_non_null(g);
	names = calloc(bn->d, sizeof *names);
	for (size_t j = 0; j < bn->d; j++)
		names[j] = bn->nodes[j].name;
	t = fb_graph_read_csv(truth, names, bn->d, &err);
	if (t == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(fb_graph_n_directed(g), arcs);
	assert_int_equal(fb_graph_n_undirected(g), 0);
	assert_int_equal(fb_graph_n_directed(t), arcs);
	assert_true(fb_graph_same_nodes(g, t));
	assert_memory_equal(g->mark, t->mark, bn->d * bn->d);
	assert_true(fb_graph_is_dag(g));
	assert_false(g->weighted);
	fb_graph_free(t);
	fb_graph_free(g);
	free(names);
	fb_bn_free(bn);
}

/* Every shared network parses with the sizes of SOURCES.md and its arcs are the truth's. */
static void test_shared_networks(void **state)
{
	char path[512];

	(void)state;
	snprintf(path, sizeof path, "%s/../shared/data/bif/asia.bif", top());
	if (access(path, R_OK) != 0) {
		printf("skipped: %s is absent\n", path);
		skip();
	}
	check_shared("asia", 8, 8);
	check_shared("sachs", 11, 17);
	check_shared("alarm", 37, 46);
	check_shared("andes", 223, 338);
	check_shared("pigs", 441, 592);
}

/* Probability of variable i (of a) in state s given the parent states of a configuration
 * of a, looked up in b by names (b may order variables, parents and rows differently). */
static double prob_by_name(const fb_bn *a, size_t i, size_t c, size_t s, const fb_bn *b)
{
	const fb_bn_node *na = &a->nodes[i];
	int ib = fb_bn_find(b, na->name);
	const fb_bn_node *nb = &b->nodes[ib];
	size_t ps[16], rest = c, div = na->nconfigs, pb[16];

	assert_true(ib >= 0 && na->nparents == nb->nparents && na->nparents <= 16);
	for (size_t j = 0; j < na->nparents; j++) {
		div /= a->nodes[na->parents[j]].nstates;
		ps[j] = rest / div;
		rest %= div;
	}
	for (size_t k = 0; k < nb->nparents; k++) {
		const char *pname = b->nodes[nb->parents[k]].name;
		size_t j = 0;

		while (j < na->nparents && strcmp(a->nodes[na->parents[j]].name, pname) != 0)
			j++;
		assert_true(j < na->nparents);
		pb[k] = (size_t)fb_bn_find_state(b, nb->parents[k],
		                                 fb_bn_state(a, na->parents[j], ps[j]));
	}
	return fb_bn_cpt_row(b, (size_t)ib, fb_bn_config(b, (size_t)ib, pb))[s];
}

/* Two networks are the same: variables, states, parent sets and every probability. */
static void assert_same_network(const fb_bn *a, const fb_bn *b, double tol)
{
	assert_int_equal(a->d, b->d);
	assert_int_equal(fb_bn_n_arcs(a), fb_bn_n_arcs(b));
	for (size_t i = 0; i < a->d; i++) {
		const fb_bn_node *n = &a->nodes[i];
		int ib = fb_bn_find(b, n->name);

		assert_true(ib >= 0);
		assert_int_equal(n->nstates, b->nodes[ib].nstates);
		for (size_t s = 0; s < n->nstates; s++)
			assert_string_equal(n->states[s], b->nodes[ib].states[s]);
		assert_int_equal(n->nconfigs, b->nodes[ib].nconfigs);
		for (size_t c = 0; c < n->nconfigs; c++)
			for (size_t s = 0; s < n->nstates; s++)
				assert_near(n->cpt[c * n->nstates + s],
				                    prob_by_name(a, i, c, s, b), tol);
	}
}

/* examples/asia.bif is the repository's asia.bif, written differently. */
static void test_example_asia(void **state)
{
	char path[512];
	fb_bn *mine, *theirs;

	(void)state;
	mine = read_example_asia();
	assert_string_equal(mine->name, "asia");
	assert_int_equal(fb_bn_d(mine), 8);
	assert_int_equal(fb_bn_n_arcs(mine), 8);
	/* either = tub OR lung, through a default row */
	assert_int_equal(fb_bn_find(mine, "either"), 5);
	assert_near(fb_bn_cpt_row(mine, 5, 0)[0], 1.0, 0);
	assert_near(fb_bn_cpt_row(mine, 5, 3)[0], 0.0, 0);
	snprintf(path, sizeof path, "%s/../shared/data/bif/asia.bif", top());
	if (access(path, R_OK) != 0) {
		fb_bn_free(mine);
		printf("skipped: %s is absent\n", path);
		skip();
	}
	theirs = read_file_ok(path);
	assert_same_network(mine, theirs, 1e-12);
	assert_same_network(theirs, mine, 1e-12);
	fb_bn_free(theirs);
	fb_bn_free(mine);
}

/* A network whose child has a 3-state and a 2-state parent, rows in scrambled order. */
static const char layout_rows[] =
	"// comments /* of */ both kinds\n"
	"network \"Lay out\" { property \"a;b\" = 1; }\n"
	"variable a { type discrete [ 3 ] { a0, a1, a2 }; property position = (1, 2); }\n"
	"variable b { type discrete [2] { \"b 0\" b1 } ; }\n"
	"variable x { type discrete [ 2 ] { lo, hi }; }\n"
	"probability ( a ) { table 0.2, 0.3, 0.5; }\n"
	"probability ( b ) { table .25 .75; }\n"
	"/* a block\n   comment */ probability ( x | a, b ) {\n"
	"  (a2, b1) 0.6, 0.4;\n  (a0, \"b 0\") 0.1, 0.9;\n  (a1, b1) 0.4, 0.6;\n"
	"  (a0, b1) 0.2, 0.8;\n  (a2, \"b 0\") 0.5, 0.5;\n  (a1, \"b 0\") 0.3, 0.7;\n}\n";

/* The same network with x's table given whole (child-major) in JavaBayes style. */
static const char layout_table[] =
	"network lay {}\n"
	"variable a { type discrete [ 3 ] { a0, a1, a2 }; }\n"
	"variable b { type discrete [ 2 ] { \"b 0\", b1 }; }\n"
	"variable x { type discrete [ 2 ] { lo, hi }; }\n"
	"probability ( a ) { table 0.2 0.3 0.5 ; }\n"
	"probability ( b ) { default 0.25 0.75 ; }\n"
	"probability ( x a b ) {\n  table 0.1 0.2 0.3 0.4 0.5 0.6  0.9 0.8 0.7 0.6 0.5 0.4 ;\n}\n";

/* Parents in written order; configurations mixed radix with the first parent slowest. */
static void test_layout(void **state)
{
	fb_bn *r, *t;
	const size_t *par;
	size_t ps[2];

	(void)state;
	r = read_ok(layout_rows);
	assert_string_equal(r->name, "Lay out");
	assert_string_equal(fb_bn_state(r, 1, 0), "b 0");
	assert_int_equal(fb_bn_parents(r, 2, &par), 2);
	assert_int_equal(par[0], 0);
	assert_int_equal(par[1], 1);
	assert_int_equal(fb_bn_parents(r, 0, &par), 0);
	assert_null(par);
	assert_int_equal(r->nodes[2].nconfigs, 6);
	/* configuration (a_i, b_j) is 2 i + j and P(x = lo) was written as 0.1 .. 0.6 */
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < 2; j++) {
			ps[0] = i;
			ps[1] = j;
			assert_int_equal(fb_bn_config(r, 2, ps), 2 * i + j);
			assert_near(fb_bn_cpt_row(r, 2, 2 * i + j)[0],
			                    0.1 * (double)(2 * i + j + 1), 1e-15);
			assert_near(r->nodes[2].cpt[(2 * i + j) * 2 + 1],
			                    0.9 - 0.1 * (double)(2 * i + j), 1e-15);
		}
	}
	assert_int_equal(r->order[0], 0);
	assert_int_equal(r->order[2], 2);
	t = read_ok(layout_table);
	assert_string_equal(t->name, "lay");
	assert_same_network(r, t, 0);
	fb_bn_free(t);
	fb_bn_free(r);
}

/* Rows within 1e-6 of summing to 1 are rescaled; a buffer need not end in NUL. */
static void test_normalise_and_buffer(void **state)
{
	static const char text[] =
		"variable a { type discrete [ 3 ] { x, y, z }; }\n"
		"probability ( a ) { table 0.3333333, 0.3333333, 0.3333333; }\n"
		"GARBAGE";
	fb_error err = { { 0 } };
	fb_bn *bn = fb_bif_read_buffer(text, sizeof text - 1 - strlen("GARBAGE"), "n.bif", &err);
	const double *p;

	if (bn == NULL)
		fail_msg("%s", err.msg);
	p = fb_bn_cpt_row(bn, 0, 0);
	assert_near(p[0] + p[1] + p[2], 1.0, 1e-15);
	assert_near(p[0], 1.0 / 3, 1e-15);
	assert_string_equal(bn->name, "");
	fb_bn_free(bn);
}

/* One input and the exact error it must give. */
struct bad {
	const char *text; /* the file */
	const char *msg;  /* the error */
};

/* Two binary variables declared on lines 1 and 2 (the start of most bad inputs). */
#define AB "variable a { type discrete [ 2 ] { x, y }; }\n" \
	"variable b { type discrete [ 2 ] { u, v }; }\n"
/* a's table on line 3 */
#define PA AB "probability ( a ) { table 0.5, 0.5; }\n"

/* Every error names the input and its line, in the exact words below. */
static const struct bad bad_inputs[] = {
	{ AB "probability ( a | c ) {\n (x) 1, 0; }\n",
	  "cannot read 't.bif': line 3: parent 'c' of 'a' is not declared" },
	{ AB "variable a { type discrete [ 2 ] { x, y }; }\n",
	  "cannot read 't.bif': line 3: variable 'a' is declared twice (first on line 1)" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.4, 0.1;\n (y) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 5: the row (x) of 'b' has 3 probabilities, expected 2" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n\n (y) 0.5, 0.4; }\n",
	  "cannot read 't.bif': line 7: the probabilities of the row (y) of 'b' sum to 0.9, "
	  "not 1" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n}\n",
	  "cannot read 't.bif': line 4: the probability block of 'b' gives no row for (y)" },
	{ AB "variable c { type discrete [ 2 ] { x, y }; }\n"
	  "probability ( a | c ) { default 0.5, 0.5; }\n"
	  "probability ( b | a ) { default 0.5, 0.5; }\n"
	  "probability ( c | b ) { default 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 6: the parents of 'c' close a cycle: b -> c -> a -> b" },
	{ AB "probability ( b | a ) { default 0.5, 0.5; }\n"
	  "probability ( a | b ) { default 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 4: the parents of 'a' close a cycle: b -> a -> b" },
	{ "variable a { type discrete [ 2 ] { x, y };\n\n",
	  "cannot read 't.bif': line 1: the block of variable 'a' is not closed" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n",
	  "cannot read 't.bif': line 4: the probability block of 'b' is not closed" },
	{ "network n {\n property x;\n",
	  "cannot read 't.bif': line 1: the network block is not closed" },
	{ AB "nodes a, b;\n",
	  "cannot read 't.bif': line 3: expected 'network', 'variable' or 'probability', "
	  "found 'nodes'" },
	{ "variable a {\n type discrete [ 2 ] { x, y };\n colour red;\n}\n",
	  "cannot read 't.bif': line 3: expected 'type', 'property' or '}' in a variable block, "
	  "found 'colour'" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n values (y) 0.5, 0.5;\n}\n",
	  "cannot read 't.bif': line 6: expected '(', 'table', 'default', 'property' or '}' in "
	  "a probability block, found 'values'" },
	{ "variable a type discrete [ 2 ] { x, y }; }\n",
	  "cannot read 't.bif': line 1: expected '{' after the variable name, found 'type'" },
	{ "variable a { type discrete [ 2 ] { x, y, x }; }\n",
	  "cannot read 't.bif': line 1: state 'x' of 'a' is listed twice" },
	{ "variable a { type discrete [ 3 ] { x, y }; }\n",
	  "cannot read 't.bif': line 1: variable 'a' declares 3 states but lists 2" },
	{ "variable a { type discrete [ 0 ] { }; }\n",
	  "cannot read 't.bif': line 1: a variable needs at least one state, not 0" },
	{ "variable a { type discrete [ two ] { x, y }; }\n",
	  "cannot read 't.bif': line 1: expected the number of states after '[', found 'two'" },
	{ "variable a {\n type continuous; }\n",
	  "cannot read 't.bif': line 2: variable 'a' is of type 'continuous': only discrete "
	  "variables are supported" },
	{ "variable a { type discrete [ 1 ] { x }; type discrete [ 1 ] { x }; }\n",
	  "cannot read 't.bif': line 1: variable 'a' has a second type" },
	{ "variable a {\n property p;\n}\n",
	  "cannot read 't.bif': line 1: variable 'a' has no type" },
	{ PA "probability ( b | a ) { (x) 0.5, 0.5; (z) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 4: 'z' is not a state of 'a', parent 1 of 'b'" },
	{ PA "probability ( b | a ) {\n (x, y) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 5: a row of 'b' names more than its 1 parent states" },
	{ PA "probability ( b | a ) {\n () 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 5: a row of 'b' names 0 parent states, expected 1" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n (y) 0.1, 0.9;\n (x) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 7: the row (x) of 'b' is given twice" },
	{ PA "probability ( b | a ) {\n (x) 0.5, 0.5;\n table 0.5 0.5 0.5 0.5; }\n",
	  "cannot read 't.bif': line 6: the table of 'b' comes after rows of it" },
	{ PA "probability ( b | a ) {\n table 0.5 0.5 0.5 0.5;\n (x) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 6: the row (x) of 'b' is given twice" },
	{ PA "probability ( b | a ) {\n table 0.5 0.5 0.5; }\n",
	  "cannot read 't.bif': line 5: the table of 'b' has 3 probabilities, expected 4" },
	{ PA "probability ( b | a ) {\n table 0.5 0.5 0.6 0.5; }\n",
	  "cannot read 't.bif': line 5: the probabilities of the table of 'b' for (x) sum to "
	  "1.1, not 1" },
	{ PA "probability ( b | a ) {\n default 1, 0;\n default 0, 1; }\n",
	  "cannot read 't.bif': line 6: a second default row for 'b'" },
	{ PA "probability ( b | a ) {\n (x) 1.5,\n -0.5; }\n",
	  "cannot read 't.bif': line 6: probability -0.5 in the row (x) of 'b' is negative" },
	{ PA "probability ( b | a ) {\n (x) 0.5, half; }\n",
	  "cannot read 't.bif': line 5: expected a probability or ';', found 'half'" },
	{ PA "probability ( b ) {\n (x) 0.5, 0.5; }\n",
	  "cannot read 't.bif': line 5: 'b' has no parents: its probabilities follow 'table', "
	  "not parent states" },
	{ PA "probability ( b ) {\n}\n",
	  "cannot read 't.bif': line 4: the probability block of 'b' gives no table" },
	{ PA "probability ( c ) { table 1; }\n",
	  "cannot read 't.bif': line 4: variable 'c' is not declared" },
	{ PA "probability ( b | a, a ) { default 1, 0; }\n",
	  "cannot read 't.bif': line 4: parent 'a' of 'b' is listed twice" },
	{ PA "probability ( b | b ) { default 1, 0; }\n",
	  "cannot read 't.bif': line 4: 'b' is listed as its own parent" },
	{ PA "probability ( b ) { table 1, 0; }\nprobability ( a ) { table 1, 0; }\n",
	  "cannot read 't.bif': line 5: a second probability block for 'a' (the first is on "
	  "line 3)" },
	{ PA "\n", "cannot read 't.bif': line 2: variable 'b' has no probability block" },
	{ "// nothing\n\n", "cannot read 't.bif': line 3: the file declares no variable" },
	{ AB "/* not\n closed", "cannot read 't.bif': line 3: the comment is not closed before "
	  "the end of the file" },
	{ "variable \"a b { type discrete [ 1 ] { x }; }\n",
	  "cannot read 't.bif': line 1: the quoted name is not closed on its line" },
	{ "variable \"\" { type discrete [ 1 ] { x }; }\n",
	  "cannot read 't.bif': line 1: a quoted name is empty" },
	{ "variable a\x01 { }\n", "cannot read 't.bif': line 1: unexpected character 0x01" },
	{ "network a { }\n\nnetwork b { }\n",
	  "cannot read 't.bif': line 3: a second network block (the first is on line 1)" },
	{ "network a { p; }\n",
	  "cannot read 't.bif': line 1: expected 'property' or '}' in the network block, "
	  "found 'p'" },
	{ "variable a { property unended }\n",
	  "cannot read 't.bif': line 1: the property is not ended by ';'" },
	{ "variable a { type discrete [ 2 ] { x, y } }\n",
	  "cannot read 't.bif': line 1: expected ';' after the states, found '}'" },
	{ "variable a { type discrete [ 2 ] { x, y }; }\nprobability a { table 1 0; }\n",
	  "cannot read 't.bif': line 2: expected '(' after 'probability', found 'a'" },
	{ "variable a { type discrete [ 2 ] { x, y }; }\nprobability ( a ) table 1 0;\n",
	  "cannot read 't.bif': line 2: expected '{' after the variables of the probability "
	  "block, found 'table'" },
	{ "variable {", "cannot read 't.bif': line 1: expected a variable name after 'variable', "
	  "found '{'" },
	{ "variable a { type discrete [ 2 ] { x, y }; }\nprobability ( a ) { table 1 0",
	  "cannot read 't.bif': line 2: expected a probability or ';', found the end of the "
	  "file" },
};

/* Each bad input fails with its message (all mismatches are printed before failing). */
static void test_errors(void **state)
{
	size_t wrong = 0;

	(void)state;
	for (size_t i = 0; i < sizeof bad_inputs / sizeof bad_inputs[0]; i++) {
		fb_error err = { { 0 } };
		const char *t = bad_inputs[i].text;
		fb_bn *bn = fb_bif_read_buffer(t, strlen(t), "t.bif", &err);

		if (bn != NULL) {
			print_error("input %zu was accepted:\n%s\n", i, t);
			fb_bn_free(bn);
			wrong++;
		} else if (strcmp(err.msg, bad_inputs[i].msg) != 0) {
			print_error("input %zu:\n%s\ngave:     %s\nexpected: %s\n\n", i, t,
			            err.msg, bad_inputs[i].msg);
			wrong++;
		}
	}
	assert_int_equal(wrong, 0);
}

/* A missing file and a table too large to hold are errors too. */
static void test_file_and_size_errors(void **state)
{
	fb_error err = { { 0 } };
	fb_buf b = { 0 };

	(void)state;
	assert_null(fb_bif_read("/nonexistent/x.bif", &err));
	assert_string_equal(err.msg, "cannot read '/nonexistent/x.bif': no such file or "
	                    "directory");
	/* 25 binary parents: 2^26 entries */
	fb_buf_printf(&b, "variable c { type discrete [ 2 ] { x, y }; }\n");
	for (int i = 0; i < 25; i++)
		fb_buf_printf(&b, "variable p%d { type discrete [ 2 ] { x, y }; }\n", i);
	fb_buf_printf(&b, "probability ( c | p0");
	for (int i = 1; i < 25; i++)
		fb_buf_printf(&b, ", p%d", i);
	fb_buf_printf(&b, ") { default 0.5, 0.5; }\n");
	assert_null(fb_bif_read_buffer(b.data, b.len, "big.bif", &err));
	assert_string_equal(err.msg, "cannot read 'big.bif': line 27: the table of 'c' would "
	                    "have more than 16777216 entries, the most supported");
	fb_buf_release(&b);
}

/* Count of rows where every (column, code) condition holds; conds ends with -1. */
static size_t count_rows(const fb_dataset *ds, const int *conds)
{
	size_t n = 0;

	for (size_t i = 0; i < ds->n; i++) {
		int ok = 1;

		for (const int *c = conds; *c >= 0 && ok; c += 2)
			ok = fb_dataset_get(ds, i, (size_t)c[0]) == c[1];
		n += ok;
	}
	return n;
}

/* The share of rows with column j in state s among those meeting given (conds) is p, within
 * 6 binomial standard errors. */
static void assert_rate(const fb_dataset *ds, const int *given, int j, int s, double p)
{
	int both[16];
	size_t k = 0, m, hit;
	double se;

	for (; given[k] >= 0; k++)
		both[k] = given[k];
	both[k] = j;
	both[k + 1] = s;
	both[k + 2] = -1;
	m = count_rows(ds, given);
	hit = count_rows(ds, both);
	assert_true(m > 1000);
	se = sqrt(p * (1 - p) / (double)m);
	if (fabs((double)hit / (double)m - p) > 6 * se)
		fail_msg("column %d state %d: %zu of %zu rows (%.5f), expected %.5f +- %.5f", j, s,
		         hit, m, (double)hit / (double)m, p, 6 * se);
}

/* Marginals of the roots and conditional rows match the tables at n = 100,000. */
static void test_sample_rates(void **state)
{
	enum { ASIA, TUB, SMOKE, LUNG, BRONC, EITHER, XRAY, DYSP };
	fb_error err = { { 0 } };
	fb_bn *bn = read_example_asia();
	fb_dataset *ds = fb_bn_sample(bn, 100000, 7, &err);

	(void)state;
	if (ds == NULL)
		fail_msg("%s", err.msg);
	assert_rate(ds, (int[]){ -1 }, SMOKE, 0, 0.5);
	assert_rate(ds, (int[]){ -1 }, ASIA, 0, 0.01);
	assert_rate(ds, (int[]){ SMOKE, 0, -1 }, LUNG, 0, 0.1);
	assert_rate(ds, (int[]){ SMOKE, 1, -1 }, LUNG, 0, 0.01);
	assert_rate(ds, (int[]){ SMOKE, 0, -1 }, BRONC, 0, 0.6);
	assert_rate(ds, (int[]){ EITHER, 1, -1 }, XRAY, 0, 0.05);
	/* two parents: (bronc, either) = (yes, no) and (no, yes) tell a swapped index */
	assert_rate(ds, (int[]){ BRONC, 0, EITHER, 1, -1 }, DYSP, 0, 0.8);
	assert_rate(ds, (int[]){ BRONC, 1, EITHER, 0, -1 }, DYSP, 0, 0.7);
	assert_rate(ds, (int[]){ BRONC, 1, EITHER, 1, -1 }, DYSP, 0, 0.1);
	/* either is exactly tub OR lung: zero-probability states are never drawn */
	for (size_t i = 0; i < ds->n; i++)
		assert_true((fb_dataset_get(ds, i, EITHER) == 0) ==
		            (fb_dataset_get(ds, i, TUB) == 0 || fb_dataset_get(ds, i, LUNG) == 0));
	fb_dataset_free(ds);
	fb_bn_free(bn);
}

/* A 1000-row Asia sample at seed 1 has a fixed sum of codes, and discrete columns. */
static void test_sample_checksum(void **state)
{
	fb_error err = { { 0 } };
	fb_bn *bn = read_example_asia();
	fb_dataset *ds = fb_bn_sample(bn, 1000, 1, &err);
	double sum = 0;

	(void)state;
	if (ds == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(ds->n, 1000);
	assert_int_equal(ds->d, 8);
	for (size_t j = 0; j < ds->d; j++) {
		assert_string_equal(ds->vars[j].name, bn->nodes[j].name);
		assert_int_equal(ds->vars[j].kind, FB_DISCRETE);
		assert_int_equal(ds->vars[j].nlevels, 2);
		assert_string_equal(ds->vars[j].levels[0], "yes");
		assert_string_equal(ds->vars[j].levels[1], "no");
	}
	for (size_t i = 0; i < ds->n * ds->d; i++)
		sum += ds->x[i];
	assert_near(sum, 6413, 0);
	fb_dataset_free(ds);
	fb_bn_free(bn);
}

/* The same seed gives identical datasets, another seed different ones; n = 0 is refused. */
static void test_sample_seed(void **state)
{
	fb_error err = { { 0 } };
	fb_bn *bn = read_example_asia();
	fb_dataset *a = fb_bn_sample(bn, 5000, 42, &err);
	fb_dataset *b = fb_bn_sample(bn, 5000, 42, &err);
	fb_dataset *c = fb_bn_sample(bn, 5000, 43, &err);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_memory_equal(a->x, b->x, 5000 * 8 * sizeof *a->x);
	assert_memory_not_equal(a->x, c->x, 5000 * 8 * sizeof *a->x);
	assert_null(fb_bn_sample(bn, 0, 1, &err));
	assert_string_equal(err.msg, "cannot sample 0 rows: n must be at least 1");
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_dataset_free(c);
	fb_bn_free(bn);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_networks),
		cmocka_unit_test(test_example_asia),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_normalise_and_buffer),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_file_and_size_errors),
		cmocka_unit_test(test_sample_rates),
		cmocka_unit_test(test_sample_checksum),
		cmocka_unit_test(test_sample_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
