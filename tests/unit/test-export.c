/* Unit tests of the Graphviz export: DOT text read back with cgraph, diff colours, PNG and
 * SVG files, atomic writes and error messages. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cgraph.h>

#include "fedbn/export.h"

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer's built-in suppressions: Graphviz 2.43's layout and HTML labels, and the
 * pango, cairo and fontconfig libraries it renders with, leak memory we cannot free. */
const char *__lsan_default_suppressions(void);

/* The suppressions, one library per line. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\n"
	       "leak:libgvplugin_\n"
	       "leak:libpango\n"
	       "leak:libcairo.so\n"
	       "leak:libfontconfig.so\n"
	       "leak:libglib-2.0.so\n";
}
#endif

/* A temporary folder for one test, removed with its contents afterwards. */
struct tmpdir {
	char path[64]; /* the folder made by mkdtemp */
};

/* Make the test's temporary folder. */
static int setup_dir(void **state)
{
	struct tmpdir *t = calloc(1, sizeof *t);

	if (t == NULL)
		return -1;
	snprintf(t->path, sizeof t->path, "/tmp/fedbn-test-export-XXXXXX");
	if (mkdtemp(t->path) == NULL) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

/* Remove the temporary folder and every file in it. */
static int teardown_dir(void **state)
{
	struct tmpdir *t = *state;
	DIR *dir = opendir(t->path);
	struct dirent *ent;
	char file[512];

	while (dir != NULL && (ent = readdir(dir)) != NULL) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		snprintf(file, sizeof file, "%s/%s", t->path, ent->d_name);
		unlink(file);
	}
	if (dir != NULL)
		closedir(dir);
	rmdir(t->path);
	free(t);
	return 0;
}

/* Number of entries in folder, not counting . and .. */
static size_t dir_count(const char *folder)
{
	DIR *dir = opendir(folder);
	struct dirent *ent;
	size_t n = 0;

	assert_non_null(dir);
	while ((ent = readdir(dir)) != NULL)
		if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
			n++;
	closedir(dir);
	return n;
}

/* The first up to cap bytes of file into buf (NUL-terminated); returns how many. */
static size_t file_head(const char *file, char *buf, size_t cap)
{
	FILE *fp = fopen(file, "rb");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, cap - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return n;
}

/* Attribute name of obj, "" when unset or undeclared. */
static const char *attr(void *obj, const char *name)
{
	const char *v = agget(obj, (char *)name);

	return v == NULL ? "" : v;
}

/* The node of g called name, or NULL. */
static Agnode_t *node_of(Agraph_t *g, const char *name)
{
	return agnode(g, (char *)name, 0);
}

/* The edge tail -> head of g by node names; fails the test when absent. */
static Agedge_t *edge_of(Agraph_t *g, const char *tail, const char *head)
{
	Agnode_t *t = node_of(g, tail), *h = node_of(g, head);
	Agedge_t *e;

	assert_non_null(t);
	assert_non_null(h);
	e = agedge(g, t, h, NULL, 0);
	if (e == NULL)
		fail_msg("no edge %s -> %s", tail, head);
	return e;
}

/* A weighted graph a -> b (0.5), c -> b (-2), a - c, and a node named with a backslash. */
static fb_graph *make_weighted(void)
{
	fb_graph *g = fb_graph_alloc(4);

	fb_graph_set_name(g, 0, "a", NULL);
	fb_graph_set_name(g, 1, "b", NULL);
	fb_graph_set_name(g, 2, "c", NULL);
	fb_graph_set_name(g, 3, "x\\y", NULL);
	fb_graph_set_directed(g, 0, 1, 0.5);
	fb_graph_set_directed(g, 2, 1, -2.0);
	fb_graph_set_undirected(g, 2, 0);
	g->weighted = true;
	return g;
}

/* The graph view's DOT text has the nodes, edges, labels, pen widths (max |w| = 2:
 * 1 + 3 * 0.5 / 2 = 1.75 and 1 + 3 * 2 / 2 = 4) and an undirected edge without arrows. */
static void test_dot_graph_view(void **state)
{
	fb_graph *g = make_weighted();
	fb_error err = { "" };
	char *dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &err);
	Agraph_t *ag;
	Agedge_t *e;

	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	assert_int_equal(agnnodes(ag), 4);
	assert_int_equal(agnedges(ag), 3);
	assert_string_equal(attr(node_of(ag, "a"), "label"), "a");
	assert_string_equal(attr(node_of(ag, "x\\y"), "label"), "x\\\\y");
	e = edge_of(ag, "a", "b");
	assert_string_equal(attr(e, "label"), "0.50");
	assert_string_equal(attr(e, "penwidth"), "1.75");
	assert_string_equal(attr(e, "dir"), "");
	e = edge_of(ag, "c", "b");
	assert_string_equal(attr(e, "label"), "-2.00");
	assert_string_equal(attr(e, "penwidth"), "4.00");
	e = edge_of(ag, "a", "c");
	assert_string_equal(attr(e, "dir"), "none");
	assert_string_equal(attr(e, "label"), "");
	agclose(ag);
	free(dot);

	/* unweighted: no weight labels at all */
	g->weighted = false;
	dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &err);
	assert_non_null(dot);
	assert_null(strstr(dot, "label=\"0.50\""));
	assert_null(strstr(dot, "penwidth"));
	free(dot);
	fb_graph_free(g);
}

/* Truth X1 -> X2 -> X3 -> X4 -> X5; estimate X1 -> X2 (correct), X3 -> X2 (reversed),
 * X1 -> X4 (extra), X4 - X5 (undirected over a true edge), X3 -> X4 missing.  Counts:
 * tp 2, reversed 1, extra 1, missing 1, SHD 3. */
static void make_diff(fb_graph **est, fb_graph **truth)
{
	size_t k;

	*truth = fb_graph_alloc(5);
	for (k = 0; k + 1 < 5; k++)
		fb_graph_set_directed(*truth, k, k + 1, 1.0);
	*est = fb_graph_alloc(5);
	fb_graph_set_directed(*est, 0, 1, 1.0);
	fb_graph_set_directed(*est, 2, 1, 1.0);
	fb_graph_set_directed(*est, 0, 3, 1.0);
	fb_graph_set_undirected(*est, 3, 4);
}

/* The diff view colours each kind of edge and adds a legend with the counts. */
static void test_dot_diff_view(void **state)
{
	fb_graph *est, *truth;
	fb_error err = { "" };
	char *dot;
	Agraph_t *ag;
	Agedge_t *e;
	const char *legend;

	make_diff(&est, &truth);
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, &err);
	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	assert_int_equal(agnnodes(ag), 6);
	assert_int_equal(agnedges(ag), 5);
	assert_string_equal(attr(edge_of(ag, "X1", "X2"), "color"), "black");
	assert_string_equal(attr(edge_of(ag, "X1", "X2"), "dir"), "");
	assert_string_equal(attr(edge_of(ag, "X3", "X2"), "color"), "orange");
	assert_string_equal(attr(edge_of(ag, "X1", "X4"), "color"), "red");
	e = edge_of(ag, "X3", "X4");
	assert_string_equal(attr(e, "color"), "grey");
	assert_string_equal(attr(e, "style"), "dashed");
	e = edge_of(ag, "X4", "X5");
	assert_string_equal(attr(e, "color"), "black");
	assert_string_equal(attr(e, "dir"), "none");
	assert_string_equal(attr(e, "style"), "");
	assert_non_null(node_of(ag, "legend"));
	legend = attr(node_of(ag, "legend"), "label");
	assert_non_null(strstr(legend, "correct: 2"));
	assert_non_null(strstr(legend, "extra: 1"));
	assert_non_null(strstr(legend, "reversed: 1"));
	assert_non_null(strstr(legend, "missing: 1"));
	assert_non_null(strstr(legend, "SHD 3"));
	/* the words result prints, by the same function: 2 of 4 estimated pairs are right */
	assert_non_null(strstr(legend, "SHD 3, TPR 0.500, FDR 0.500, precision 0.500, F1 0.500"));
	agclose(ag);
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* A .png export starts with the PNG signature; an .SVG one (any case) holds an svg tag in
 * its first 200 bytes; a .dot export is the DOT string. */
static void test_files(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	char file[128], head[4096];
	char *dot;

	make_diff(&est, &truth);
	snprintf(file, sizeof file, "%s/diff.png", t->path);
	assert_int_equal(fb_export_graph(est, truth, FB_VIEW_DIFF, file, &err), FB_OK);
	assert_true(file_head(file, head, sizeof head) >= 8);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	snprintf(file, sizeof file, "%s/graph.SVG", t->path);
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_GRAPH, file, &err), FB_OK);
	file_head(file, head, 201);
	assert_true(strstr(head, "<?xml") != NULL || strstr(head, "<svg") != NULL);
	snprintf(file, sizeof file, "%s/graph.gv", t->path);
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_GRAPH, file, &err), FB_OK);
	dot = fb_export_dot_string(est, NULL, FB_VIEW_GRAPH, &err);
	assert_non_null(dot);
	file_head(file, head, sizeof head);
	assert_string_equal(head, dot);
	assert_int_equal(dir_count(t->path), 3);
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* A cancel callback that says stop once its counter (ctx) has counted down to zero. */
static bool cancel_countdown(void *ctx)
{
	int *left = ctx;

	return (*left)-- <= 0;
}

/* Rendered in a child process (a cancel callback is given) the SVG is the same as rendered
 * in-process; cancelled, the export fails with the cancel message and leaves the old file. */
static void test_cancellable(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *g = make_weighted();
	int never = 1 << 30, now = 0;
	fb_cancel keep_on = { cancel_countdown, &never }, stop = { cancel_countdown, &now };
	fb_error err = { "" };
	char a[128], b[128], want[256], head_a[8192], head_b[8192];

	snprintf(a, sizeof a, "%s/here.svg", t->path);
	snprintf(b, sizeof b, "%s/apart.svg", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, a, &err), FB_OK);
	assert_int_equal(fb_export_graph_cancellable(g, NULL, FB_VIEW_GRAPH, b, &keep_on, &err),
	                 FB_OK);
	file_head(a, head_a, sizeof head_a);
	file_head(b, head_b, sizeof head_b);
	assert_true(strlen(head_a) > 100);
	assert_string_equal(head_a, head_b);
	assert_int_equal(fb_export_graph_cancellable(g, NULL, FB_VIEW_GRAPH, b, &stop, &err),
	                 FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': " FB_CANCELLED_MSG, b);
	assert_string_equal(err.msg, want);
	file_head(b, head_b, sizeof head_b);
	assert_string_equal(head_a, head_b);
	assert_int_equal(dir_count(t->path), 2);
	fb_graph_free(g);
}

/* Unknown or missing extensions fail naming the file and the formats, creating nothing. */
static void test_bad_extension(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *g = make_weighted();
	fb_error err = { "" };
	char file[128], want[256];

	snprintf(file, sizeof file, "%s/graph.pdf", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': unknown format '.pdf' "
	         "(use .dot, .gv, .png or .svg)", file);
	assert_string_equal(err.msg, want);
	snprintf(file, sizeof file, "%s/graph", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': no file extension "
	         "(use .dot, .gv, .png or .svg)", file);
	assert_string_equal(err.msg, want);
	assert_int_equal(dir_count(t->path), 0);
	fb_graph_free(g);
}

/* Writing into a missing folder fails and leaves nothing behind. */
static void test_missing_dir(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *g = make_weighted();
	fb_error err = { "" };
	char file[128], want[256];

	snprintf(file, sizeof file, "%s/missing/graph.png", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot write '%s': no such file or directory", file);
	assert_string_equal(err.msg, want);
	assert_int_equal(dir_count(t->path), 0);
	fb_graph_free(g);
}

/* The diff view without a truth, or with a truth over other variables, fails cleanly: no
 * file, and the existing file untouched. */
static void test_diff_errors(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth, *other = fb_graph_alloc(3);
	fb_error err = { "" };
	char file[128], want[256], head[64];
	FILE *fp;

	make_diff(&est, &truth);
	snprintf(file, sizeof file, "%s/diff.svg", t->path);
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_DIFF, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': the diff view needs a truth graph to "
	         "compare with", file);
	assert_string_equal(err.msg, want);
	assert_int_equal(dir_count(t->path), 0);
	assert_null(fb_export_dot_string(est, NULL, FB_VIEW_DIFF, &err));
	assert_string_equal(err.msg, "the diff view needs a truth graph to compare with");

	fp = fopen(file, "w");
	assert_non_null(fp);
	fputs("old", fp);
	fclose(fp);
	assert_int_equal(fb_export_graph(est, other, FB_VIEW_DIFF, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': estimate and truth have different "
	         "variables: 5 against 3 nodes", file);
	assert_string_equal(err.msg, want);
	file_head(file, head, sizeof head);
	assert_string_equal(head, "old");
	assert_int_equal(dir_count(t->path), 1);
	fb_graph_free(est);
	fb_graph_free(truth);
	fb_graph_free(other);
}

/* Two variables with one name cannot be drawn. */
static void test_duplicate_names(void **state)
{
	fb_graph *g = fb_graph_alloc(2);
	fb_error err = { "" };

	fb_graph_set_name(g, 1, "X1", &err);
	assert_null(fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &err));
	assert_string_equal(err.msg, "variable name 'X1' appears twice");
	fb_graph_free(g);
}

/* A PNG export prints nothing on stderr: Graphviz's messages are captured. */
static void test_quiet(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	char file[128], log[128], head[64];
	int saved, fd;

	make_diff(&est, &truth);
	snprintf(file, sizeof file, "%s/quiet.png", t->path);
	snprintf(log, sizeof log, "%s/stderr.txt", t->path);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	assert_int_equal(fb_export_graph(est, truth, FB_VIEW_DIFF, file, &err), FB_OK);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(file_head(log, head, sizeof head), 0);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* Run the export tests, each in its own temporary folder. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot_graph_view),
		cmocka_unit_test(test_dot_diff_view),
		cmocka_unit_test_setup_teardown(test_files, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_cancellable, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_bad_extension, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_missing_dir, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_diff_errors, setup_dir, teardown_dir),
		cmocka_unit_test(test_duplicate_names),
		cmocka_unit_test_setup_teardown(test_quiet, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
