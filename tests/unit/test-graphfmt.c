/* Unit tests of the graph file formats: a small hand-written file of each format read, the
 * marks fedbn cannot hold counted, every malformed file refused with its sentence (file,
 * line, column), the format found from the extension and the content, names matched to the
 * data's, and a round trip through every format of the 13 stored networks (causal-learn's
 * outputs and the BIF networks) giving the same graph. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/bif.h"
#include "fedbn/graphfmt.h"

/* Where the source tree is (the harness sets top_srcdir). */
static const char *top(void)
{
	const char *t = getenv("top_srcdir");

	return t != NULL ? t : ".";
}

/* A scratch folder for the files written, made once. */
static const char *scratch(void)
{
	static char dir[64];

	if (dir[0] == '\0') {
		snprintf(dir, sizeof dir, "/tmp/test-graphfmt-XXXXXX");
		assert_non_null(mkdtemp(dir));
	}
	return dir;
}

/* Read text as format over its own names; the test fails on an error. */
static fb_graph *parse_ok(const char *text, enum fb_graph_format f, size_t *lossy)
{
	fb_error err = { { 0 } };
	fb_graph_read_info info;
	fb_graph *g = fb_graph_parse(text, strlen(text), f, "t", &info, &err);

	if (g == NULL)
		fail_msg("unexpected error: %s", err.msg);
	if (lossy != NULL)
		*lossy = info.lossy;
	fb_pag_free(info.pag);
	return g;
}

/* The error of reading text as format. */
static const char *parse_error(const char *text, enum fb_graph_format f)
{
	static fb_error err;
	fb_graph *g = fb_graph_parse(text, strlen(text), f, "t", NULL, &err);

	if (g != NULL)
		fail_msg("'%s' was read without an error", text);
	return err.msg;
}

/* The relation of the nodes called a and b in g. */
static enum fb_edge rel(const fb_graph *g, const char *a, const char *b)
{
	int i = fb_graph_find(g, a), j = fb_graph_find(g, b);

	assert_true(i >= 0 && j >= 0);
	return fb_graph_edge(g, (size_t)i, (size_t)j);
}

/* g is A -> B, B - C over the nodes A, B, C (and D when d is 4), nothing else. */
static void check_abc(const fb_graph *g, size_t d)
{
	assert_int_equal(g->d, d);
	assert_string_equal(g->names[0], "A");
	assert_string_equal(g->names[2], "C");
	assert_int_equal(rel(g, "A", "B"), FB_EDGE_FORWARD);
	assert_int_equal(rel(g, "B", "C"), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_n_edges(g), 2);
}

/* Each format's small file reads as the same graph. */
static void test_small_files(void **state)
{
	static const struct {
		enum fb_graph_format f;
		const char *text;
	} cases[] = {
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B;C;D\n\nGraph Edges:\n1. A --> B\n"
		                   "2. C --- B\n\nGraph Attributes:\nBIC: -12.5\n" },
		{ FB_GRAPH_CAUSAL_LEARN, "0 -1 0 0\n1 0 -1 0\n0 -1 0 0\n0 0 0 0\n" },
		{ FB_GRAPH_GML, "Creator \"x\"\ngraph [\n directed 1\n node [ id 0 label \"A\" ]\n"
		                " node [ id 1 label \"B\" graphics [ x 1 ] ]\n node [ id 2 label "
		                "\"C\" ]\n node [ id 3 label \"D\" ]\n edge [ source 0 target 1 ]\n"
		                " edge [ source 1 target 2 ]\n edge [ source 2 target 1 ]\n]\n" },
		{ FB_GRAPH_DOT, "/* a comment */\ndigraph G {\n  rankdir=LR;\n  node [shape=box];\n"
		                "  A; \"B\"; C [label=\"see\"]; D // last\n  A -> B [color=red]\n"
		                "  subgraph s { edge [dir=none]; C -> B }\n}\n" },
		{ FB_GRAPH_JSON, "{\"directed\": true, \"graph\": {}, \"nodes\": [{\"id\": \"A\"}, "
		                 "{\"id\": \"B\"}, {\"id\": \"C\"}, {\"id\": \"D\"}],\n \"links\": "
		                 "[{\"source\": \"A\", \"target\": \"B\"}, {\"source\": \"B\", "
		                 "\"target\": \"C\"}, {\"source\": \"C\", \"target\": \"B\"}]}" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t lossy = 1;
		fb_graph *g = parse_ok(cases[k].text, cases[k].f, &lossy);

		if (cases[k].f == FB_GRAPH_CAUSAL_LEARN) { /* no names: X1..X4 */
			for (size_t i = 0; i < 4; i++)
				fb_graph_set_name(g, i, (const char *[]){ "A", "B", "C", "D" }[i], NULL);
		}
		check_abc(g, 4);
		assert_int_equal(lossy, 0);
		fb_graph_free(g);
	}
}

/* A bnlearn model string and a BIF network hold arcs only. */
static void test_dag_formats(void **state)
{
	static const char bif[] =
		"network n { }\nvariable A { type discrete [ 2 ] { y, n }; }\n"
		"variable B { type discrete [ 2 ] { y, n }; }\n"
		"probability ( A ) { table 0.5, 0.5; }\n"
		"probability ( B | A ) { (y) 0.1, 0.9; (n) 0.2, 0.8; }\n";
	fb_graph *g = parse_ok(" [A][C|A:B]\n[B|A] ", FB_GRAPH_BNLEARN, NULL);

	(void)state;
	assert_int_equal(g->d, 3);
	assert_int_equal(rel(g, "A", "C"), FB_EDGE_FORWARD);
	assert_int_equal(rel(g, "B", "C"), FB_EDGE_FORWARD);
	assert_int_equal(rel(g, "A", "B"), FB_EDGE_FORWARD);
	fb_graph_free(g);
	g = parse_ok(bif, FB_GRAPH_BIF, NULL);
	assert_int_equal(g->d, 2);
	assert_int_equal(rel(g, "A", "B"), FB_EDGE_FORWARD);
	fb_graph_free(g);
}

/* Circles and double arrows are read as the nearest relation, and counted. */
static void test_lossy_marks(void **state)
{
	size_t lossy;
	fb_graph *g = parse_ok("Graph Nodes:\nA;B;C;D\n\nGraph Edges:\n1. A o-> B\n2. B <-> C\n"
	                       "3. D o-o C\n4. A <-- D\n", FB_GRAPH_TETRAD, &lossy);

	(void)state;
	assert_int_equal(lossy, 3);
	assert_int_equal(rel(g, "A", "B"), FB_EDGE_FORWARD);
	assert_int_equal(rel(g, "B", "C"), FB_EDGE_UNDIRECTED);
	assert_int_equal(rel(g, "C", "D"), FB_EDGE_UNDIRECTED);
	assert_int_equal(rel(g, "D", "A"), FB_EDGE_FORWARD);
	fb_graph_free(g);
	g = parse_ok("0 2 0\n1 0 1\n0 1 0\n", FB_GRAPH_CAUSAL_LEARN, &lossy);
	assert_int_equal(lossy, 2);
	assert_int_equal(rel(g, "X1", "X2"), FB_EDGE_FORWARD);
	assert_int_equal(rel(g, "X2", "X3"), FB_EDGE_UNDIRECTED);
	fb_graph_free(g);
	g = parse_ok("digraph { a -> b [dir=both]; c -> a [dir=back] }", FB_GRAPH_DOT, &lossy);
	assert_int_equal(lossy, 1);
	assert_int_equal(rel(g, "a", "b"), FB_EDGE_UNDIRECTED);
	assert_int_equal(rel(g, "a", "c"), FB_EDGE_FORWARD);
	fb_graph_free(g);
}

/* Each malformed file is refused with its sentence: the file, the line and column, what is
 * wrong. */
static void test_errors(void **state)
{
	static const struct {
		enum fb_graph_format f;
		const char *text;
		const char *msg;
	} bad[] = {
		{ FB_GRAPH_TETRAD, "Graph Node:\nA\n",
		  "cannot read 't': line 1, column 1: expected 'Graph Nodes:'" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B\n\nGraph Edges:\n1. A --> C\n",
		  "cannot read 't': line 5, column 10: node 'C' is not among the graph's nodes" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B\n\nGraph Edges:\n1. A ==> B\n",
		  "cannot read 't': line 5, column 6: unknown edge '==>' (expected -->, "
		  "<--, ---, <->, o->, <-o, o-o)" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B\n\nGraph Edges:\n1 A --> B\n",
		  "cannot read 't': line 5, column 1: expected an edge number such as '1.', found '1'" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B;A\n",
		  "cannot read 't': line 2, column 5: node 'A' is listed twice" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B\n\nGraph Edges:\n1. A --> B\n2. B --> A\n",
		  "cannot read 't': line 6, column 4: 'B' and 'A' are already joined on "
		  "line 5; a pair takes one edge" },
		{ FB_GRAPH_TETRAD, "Graph Nodes:\nA;B\n",
		  "cannot read 't': line 3, column 1: expected 'Graph Edges:'" },
		{ FB_GRAPH_CAUSAL_LEARN, "0 -1\n0 0\n",
		  "cannot read 't': line 1, column 3: X1 and X2: a mark at one end of "
		  "the edge and none at the other (G[0,1] = -1, G[1,0] = 0)" },
		{ FB_GRAPH_CAUSAL_LEARN, "0 -1 0\n1 0\n0 0 0\n",
		  "cannot read 't': line 2, column 4: expected 3 marks in the row, found 2" },
		{ FB_GRAPH_CAUSAL_LEARN, "0 3\n0 0\n",
		  "cannot read 't': line 1, column 3: expected an endpoint mark -1, 0, 1 or 2, found '3'" },
		{ FB_GRAPH_CAUSAL_LEARN, "0 0\n0 0\n0 0\n",
		  "cannot read 't': line 4, column 1: expected 2 rows of marks (a square matrix), found 3" },
		{ FB_GRAPH_CAUSAL_LEARN, "1 0\n0 0\n",
		  "cannot read 't': line 1, column 1: a mark on the diagonal (X1 with itself)" },
		{ FB_GRAPH_BNLEARN, "[A][B|A:C]",
		  "cannot read 't': line 1, column 9: parent 'C' of 'B' has no brackets of its own" },
		{ FB_GRAPH_BNLEARN, "[A][B|A",
		  "cannot read 't': line 1, column 8: expected ']' to close the node "
		  "'B', found the end of the file" },
		{ FB_GRAPH_BNLEARN, "[A]x[B]",
		  "cannot read 't': line 1, column 4: expected '[' to open a node, found 'x[B]'" },
		{ FB_GRAPH_BNLEARN, "[A][A]",
		  "cannot read 't': line 1, column 5: node 'A' is listed twice" },
		{ FB_GRAPH_BNLEARN, "[A][B|A:]",
		  "cannot read 't': line 1, column 9: a parent of 'B' needs a name" },
		{ FB_GRAPH_BNLEARN, "[A|A]",
		  "cannot read 't': line 1, column 4: self-loop on 'A'" },
		{ FB_GRAPH_GML, "graph [ node [ id 0 label \"A\" ] edge [ source 0 target 1 ] ]",
		  "cannot read 't': line 1, column 56: the edge's target '1' is not among the nodes" },
		{ FB_GRAPH_GML, "graph [ node [ id 0 label \"A\" ]",
		  "cannot read 't': line 1, column 32: expected ']' to close the list opened on line 1" },
		{ FB_GRAPH_GML, "digraph [ ]",
		  "cannot read 't': line 1, column 1: expected 'graph [ ... ]'" },
		{ FB_GRAPH_GML, "graph [ node [ label \"A\" ] ]",
		  "cannot read 't': line 1, column 14: a node needs an id" },
		{ FB_GRAPH_GML, "graph [ node [ id 0 label \"A ] ]",
		  "cannot read 't': line 1, column 27: a string is not closed" },
		{ FB_GRAPH_DOT, "digraph { A -> B; A -- C }",
		  "cannot read 't': line 1, column 21: '--' in a digraph (edges there are written '->')" },
		{ FB_GRAPH_DOT, "digraph { A -> B",
		  "cannot read 't': line 1, column 17: expected '}', found the end of the file" },
		{ FB_GRAPH_DOT, "graph G ( }",
		  "cannot read 't': line 1, column 9: expected '{', found '('" },
		{ FB_GRAPH_DOT, "network { }",
		  "cannot read 't': line 1, column 1: expected 'graph' or 'digraph', found 'network'" },
		{ FB_GRAPH_DOT, "digraph { A -> { B C } }",
		  "cannot read 't': line 1, column 16: expected a node after the edge "
		  "(an edge to a subgraph is not read), found '{'" },
		{ FB_GRAPH_DOT, "digraph { A -> \"\" }",
		  "cannot read 't': line 1, column 16: a node needs a name" },
		{ FB_GRAPH_DOT, "digraph { A [label=] }",
		  "cannot read 't': line 1, column 20: expected an attribute's value, found ']'" },
		{ FB_GRAPH_JSON, "{\"nodes\": [{\"id\": \"A\"}], \"links\": [{\"source\": \"A\", "
		                 "\"target\": \"B\"}]}",
		  "cannot read 't': line 1, column 62: the edge's target 'B' is not among the nodes" },
		{ FB_GRAPH_JSON, "{\"nodes\": [{\"id\": \"A\"}, {\"name\": \"B\"}]}",
		  "cannot read 't': line 1, column 25: a node needs an id" },
		{ FB_GRAPH_JSON, "{\"nodes\": [{\"id\": \"A\"}],\n \"links\": [}",
		  "cannot read 't': line 2, column 12: expected a value, found '}'" },
		{ FB_GRAPH_JSON, "{\"nodes\": [{\"id\": \"A\"}]} x",
		  "cannot read 't': line 1, column 26: expected the end of the file, found 'x'" },
		{ FB_GRAPH_JSON, "[1, 2]",
		  "cannot read 't': line 1, column 1: expected an object with a "
		  "\"nodes\" array and a \"links\" array" },
		{ FB_GRAPH_JSON, "{\"nodes\": [{\"id\": \"A\\q\"}]}",
		  "cannot read 't': line 1, column 22: unknown escape '\\q' in a string" },
		{ FB_GRAPH_BIF, "network n { }\nvariable A { type discrete [ 2 ] { y }; }\n",
		  "cannot read 't': line 2: variable 'A' declares 2 states but lists 1" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
		assert_string_equal(parse_error(bad[k].text, bad[k].f), bad[k].msg);
}

/* Write text to the scratch file name; returns its path (static). */
static const char *put_file(const char *name, const char *text)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", scratch(), name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
}

/* The names A, B, C, D. */
static char na[] = "A", nb[] = "B", nc[] = "C", nd[] = "D";
/* ... as the data's names. */
static char *const abcd[] = { na, nb, nc, nd };

/* A file of Tetrad text with circles and <->, its nodes in another order than the data's
 * A..D, gives its marks as a PAG over A..D (and a DAG file gives none); causal-learn's
 * matrix by position. */
static void test_pag_marks(void **state)
{
	fb_graph_read_info info;
	fb_error err = { { 0 } };
	static char x1[] = "X1", x2[] = "X2", x3[] = "X3";
	char *const x123[] = { x1, x2, x3 };
	fb_graph *g;

	(void)state;
	g = fb_graph_read_file(put_file("p.txt", "Graph Nodes:\nD;C;B;A\n\nGraph Edges:\n"
	                                "1. A o-> B\n2. D <-> C\n3. B --> D\n"),
	                       FB_GRAPH_AUTO, abcd, 4, &info, &err);
	assert_non_null(g);
	assert_non_null(info.pag);
	assert_int_equal(info.pag->d, 4);
	assert_string_equal(info.pag->names[2], "C");
	assert_int_equal(fb_pag_mark(info.pag, 0, 1), FB_PAG_ARROW);  /* at B */
	assert_int_equal(fb_pag_mark(info.pag, 1, 0), FB_PAG_CIRCLE); /* at A */
	assert_int_equal(fb_pag_mark(info.pag, 2, 3), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(info.pag, 3, 2), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(info.pag, 1, 3), FB_PAG_ARROW);  /* B --> D: at D */
	assert_int_equal(fb_pag_mark(info.pag, 3, 1), FB_PAG_TAIL);
	assert_int_equal(fb_pag_n_edges(info.pag), 3);
	fb_pag_free(info.pag);
	fb_graph_free(g);
	g = fb_graph_read_file(put_file("q.txt", "Graph Nodes:\nA;B;C;D\n\nGraph Edges:\n"
	                                "1. A --> B\n"), FB_GRAPH_AUTO, abcd, 4, &info, &err);
	assert_non_null(g);
	assert_null(info.pag);
	fb_graph_free(g);
	g = fb_graph_read_file(put_file("m.txt", "0 2 0\n1 0 1\n0 1 0\n"), FB_GRAPH_AUTO, x123, 3,
	                       &info, &err);
	assert_non_null(g);
	assert_non_null(info.pag);
	assert_int_equal(fb_pag_mark(info.pag, 1, 0), FB_PAG_CIRCLE); /* X1 o-> X2 */
	assert_int_equal(fb_pag_mark(info.pag, 0, 1), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(info.pag, 1, 2), FB_PAG_ARROW);  /* X2 <-> X3 */
	assert_int_equal(fb_pag_mark(info.pag, 2, 1), FB_PAG_ARROW);
	fb_pag_free(info.pag);
	fb_graph_free(g);
}

/* Read file name holding text over A..D; its format is found; returns the graph or NULL with
 * the error in err. */
static fb_graph *read_named(const char *name, const char *text, fb_graph_read_info *info,
                            fb_error *err)
{
	return fb_graph_read_file(put_file(name, text), FB_GRAPH_AUTO, abcd, 4, info, err);
}

/* The format is found from the content, else the extension; names are matched to the
 * data's, by name (in another order too) or, for causal-learn's matrix, by position. */
static void test_files(void **state)
{
	fb_graph_read_info info;
	fb_error err = { { 0 } };
	fb_graph *g;
	char want[512];

	(void)state;
	g = read_named("g.txt", "Graph Nodes:\nD;C;B;A\n\nGraph Edges:\n1. A --> B\n2. B --- C\n",
	               &info, &err);
	assert_non_null(g);
	assert_int_equal(info.format, FB_GRAPH_TETRAD);
	check_abc(g, 4);
	fb_graph_free(g);
	g = read_named("g.txt", "0 -1 0 0\n1 0 -1 0\n0 -1 0 0\n0 0 0 0\n", &info, &err);
	assert_int_equal(info.format, FB_GRAPH_CAUSAL_LEARN);
	check_abc(g, 4);
	fb_graph_free(g);
	g = read_named("g", "[A][B|A][C][D]\n", &info, &err);
	assert_int_equal(info.format, FB_GRAPH_BNLEARN);
	fb_graph_free(g);
	g = read_named("g.csv", "from,to,type\nA,B,->\nB,C,--\n", &info, &err);
	assert_int_equal(info.format, FB_GRAPH_EDGES);
	check_abc(g, 4);
	fb_graph_free(g);
	g = read_named("g.gv", "strict digraph { A -> B; B -> C [dir=none]; C; D }", &info, &err);
	assert_int_equal(info.format, FB_GRAPH_DOT);
	check_abc(g, 4);
	fb_graph_free(g);
	assert_null(read_named("g.txt", "hello world\n", &info, &err));
	snprintf(want, sizeof want, "cannot read '%s/g.txt': it is in none of the graph formats "
	         "fedbn reads (tried fedbn's CSV edge list or matrix, Tetrad's graph text, "
	         "causal-learn's endpoint matrix, a bnlearn model string, GML, DOT, BIF, "
	         "node-link JSON)", scratch());
	assert_string_equal(err.msg, want);
	assert_null(read_named("g.json", "", &info, &err));
	assert_non_null(strstr(err.msg, "g.json': the file is empty"));
	assert_null(read_named("g.txt", "[A][B|A][E][F|E]", &info, &err));
	snprintf(want, sizeof want, "cannot read '%s/g.txt': its nodes are not the data's "
	         "variables: 'E', 'F' are not in the data; 'C', 'D' are not in the graph",
	         scratch());
	assert_string_equal(err.msg, want);
	assert_null(read_named("g.txt", "0 0\n0 0\n", &info, &err));
	snprintf(want, sizeof want, "cannot read '%s/g.txt': its matrix is over 2 nodes and the "
	         "data have 4 variables", scratch());
	assert_string_equal(err.msg, want);
	assert_null(read_named("g.gml", "graph [ node [ id 0 ] ", &info, &err));
	assert_non_null(strstr(err.msg, "g.gml': line 1, column 23: expected ']' to close"));
}

/* Whether a and b are the same graph: names, marks and (when weighted) weights. */
static void check_same(const fb_graph *a, const fb_graph *b, const char *what)
{
	if (!fb_graph_same_nodes(a, b) || memcmp(a->mark, b->mark, a->d * a->d) != 0)
		fail_msg("%s: not the same graph after the round trip", what);
}

/* Write g in every format it can be written in and read it back over its names. */
static void round_trip(const fb_graph *g, const char *net)
{
	static const char *const ext[FB_GRAPH_NFORMATS] = {
		[FB_GRAPH_EDGES] = "csv", [FB_GRAPH_MATRIX] = "csv", [FB_GRAPH_TETRAD] = "txt",
		[FB_GRAPH_CAUSAL_LEARN] = "txt", [FB_GRAPH_BNLEARN] = "bn", [FB_GRAPH_GML] = "gml",
		[FB_GRAPH_DOT] = "dot", [FB_GRAPH_JSON] = "json",
	};
	bool dag = fb_graph_n_undirected(g) == 0;

	for (int f = FB_GRAPH_EDGES; f < FB_GRAPH_NFORMATS; f++) {
		fb_error err = { { 0 } };
		fb_graph_read_info info;
		char path[256], what[128];
		fb_graph *back;

		if (ext[f] == NULL || (f == FB_GRAPH_BNLEARN && !dag))
			continue;
		snprintf(path, sizeof path, "%s/%s-%s.%s", scratch(), net,
		         fb_graph_format_name((enum fb_graph_format)f), ext[f]);
		snprintf(what, sizeof what, "%s as %s", net,
		         fb_graph_format_name((enum fb_graph_format)f));
		if (fb_graph_write_file(g, (enum fb_graph_format)f, path, &err) != FB_OK)
			fail_msg("%s: %s", what, err.msg);
		back = fb_graph_read_file(path, FB_GRAPH_AUTO, g->names, g->d, &info, &err);
		if (back == NULL)
			fail_msg("%s: %s", what, err.msg);
		assert_int_equal(info.format, f == FB_GRAPH_MATRIX ? FB_GRAPH_EDGES : f);
		check_same(g, back, what);
		fb_graph_free(back);
	}
}

/* The bytes of the file at path (caller frees), or NULL when it cannot be read. */
static char *file_text(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (fp == NULL)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = calloc((size_t)n + 1, 1);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	return buf;
}

/* causal-learn's output on net in dir goes through every format, and written back as
 * causal-learn's matrix it is the same file byte for byte; false when it is absent. */
static bool round_trip_causal_learn(const char *dir, const char *net)
{
	char path[512], again[512];
	fb_error err = { { 0 } };
	char *text, *copy;
	fb_graph *g;

	snprintf(path, sizeof path, "%s/%s_pc_chisq_0.05_expected.txt", dir, net);
	if ((text = file_text(path)) == NULL)
		return false;
	g = fb_graph_parse(text, strlen(text), FB_GRAPH_CAUSAL_LEARN, path, NULL, &err);
	if (g == NULL)
		fail_msg("%s", err.msg);
	assert_true(fb_graph_n_edges(g) > 0);
	round_trip(g, net);
	snprintf(again, sizeof again, "%s/%s-causal-learn.txt", scratch(), net);
	copy = file_text(again);
	assert_non_null(copy);
	assert_string_equal(copy, text);
	free(copy);
	free(text);
	fb_graph_free(g);
	return true;
}

/* The 13 networks: causal-learn's outputs (10 stored here, 3 in ../shared/data) and the
 * DAGs of the shared BIF networks go through every format and back. */
static void test_round_trip(void **state)
{
	static const char *const here[] = { "cancer", "earthquake", "survey", "child",
		"insurance", "water", "barley", "hailfinder", "hepar2", "win95pts" };
	static const char *const shared[] = { "asia", "sachs", "alarm" };
	static const char *const bifs[] = { "asia", "sachs", "alarm", "andes", "pigs" };
	char dir[512], path[512];
	size_t absent = 0;

	(void)state;
	snprintf(dir, sizeof dir, "%s/tests/data/causal-learn", top());
	for (size_t k = 0; k < 10; k++)
		assert_true(round_trip_causal_learn(dir, here[k]));
	snprintf(dir, sizeof dir, "%s/../shared/data/discrete10000", top());
	for (size_t k = 0; k < 3; k++)
		absent += !round_trip_causal_learn(dir, shared[k]);
	for (size_t k = 0; k < 5; k++) {
		fb_error err = { { 0 } };
		fb_bn *bn;
		fb_graph *g;

		snprintf(path, sizeof path, "%s/../shared/data/bif/%s.bif", top(), bifs[k]);
		if (access(path, R_OK) != 0) {
			absent++;
			continue;
		}
		bn = fb_bif_read(path, &err);
		assert_non_null(bn);
		g = fb_bn_graph(bn);
		round_trip(g, bifs[k]);
		fb_graph_free(g);
		fb_bn_free(bn);
	}
	if (absent > 0)
		printf("skipped: %zu of the networks in ../shared/data are absent\n", absent);
}

/* Remove the scratch folder and what it holds. */
static int cleanup(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch());
	return system(cmd) == 0 ? 0 : -1;
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_files),
		cmocka_unit_test(test_dag_formats),
		cmocka_unit_test(test_lossy_marks),
		cmocka_unit_test(test_pag_marks),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
