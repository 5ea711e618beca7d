/* Unit tests of the Graphviz export: DOT text read back with cgraph, diff colours, PNG, SVG
 * and PDF files, shared layouts, titles, label placement, compactness, atomic writes and error
 * messages. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cgraph.h>

#include "fedbn/csv.h"
#include "fedbn/export.h"
#include "fedbn/sim.h"

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
	char *dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, NULL, &err);
	Agraph_t *ag;
	Agedge_t *e;

	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	assert_int_equal(agnnodes(ag), 4);
	assert_int_equal(agnedges(ag), 3);
	assert_string_equal(attr(node_of(ag, "a"), "label"), "a");
	assert_string_equal(attr(node_of(ag, "x\\\\y"), "label"), "x\\\\y");
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
	dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, NULL, &err);
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
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	assert_int_equal(agnnodes(ag), 6);
	assert_int_equal(agnedges(ag), 5);
	assert_string_equal(attr(edge_of(ag, "X1", "X2"), "color"), "#000000");
	assert_string_equal(attr(edge_of(ag, "X1", "X2"), "dir"), "");
	assert_string_equal(attr(edge_of(ag, "X3", "X2"), "color"), "#E69F00");
	assert_string_equal(attr(edge_of(ag, "X1", "X4"), "color"), "#D55E00");
	e = edge_of(ag, "X3", "X4");
	assert_string_equal(attr(e, "color"), "#0072B2");
	assert_string_equal(attr(e, "style"), "dashed");
	assert_string_equal(attr(e, "penwidth"), "2.5");
	e = edge_of(ag, "X4", "X5");
	assert_string_equal(attr(e, "color"), "#000000");
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
 * its first 200 bytes; a .pdf one starts with %PDF; a .dot export is the DOT string. */
static void test_files(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	char file[128], head[4096];
	char *dot;

	make_diff(&est, &truth);
	snprintf(file, sizeof file, "%s/diff.png", t->path);
	assert_int_equal(fb_export_graph(est, truth, FB_VIEW_DIFF, NULL, file, &err), FB_OK);
	assert_true(file_head(file, head, sizeof head) >= 8);
	assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
	snprintf(file, sizeof file, "%s/graph.SVG", t->path);
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_GRAPH, NULL, file, &err), FB_OK);
	file_head(file, head, 201);
	assert_true(strstr(head, "<?xml") != NULL || strstr(head, "<svg") != NULL);
	snprintf(file, sizeof file, "%s/graph.gv", t->path);
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_GRAPH, NULL, file, &err), FB_OK);
	dot = fb_export_dot_string(est, NULL, FB_VIEW_GRAPH, NULL, &err);
	assert_non_null(dot);
	file_head(file, head, sizeof head);
	assert_string_equal(head, dot);
	snprintf(file, sizeof file, "%s/diff.Pdf", t->path);
	assert_int_equal(fb_export_graph(est, truth, FB_VIEW_DIFF, NULL, file, &err), FB_OK);
	assert_true(file_head(file, head, sizeof head) >= 5);
	assert_memory_equal(head, "%PDF-", 5);
	assert_int_equal(dir_count(t->path), 4);
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
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, NULL, a, &err), FB_OK);
	assert_int_equal(fb_export_graph_cancellable(g, NULL, FB_VIEW_GRAPH, NULL, b, &keep_on,
	                                             &err),
	                 FB_OK);
	file_head(a, head_a, sizeof head_a);
	file_head(b, head_b, sizeof head_b);
	assert_true(strlen(head_a) > 100);
	assert_string_equal(head_a, head_b);
	assert_int_equal(fb_export_graph_cancellable(g, NULL, FB_VIEW_GRAPH, NULL, b, &stop, &err),
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

	snprintf(file, sizeof file, "%s/graph.jpg", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, NULL, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': unknown format '.jpg' "
	         "(use .dot, .gv, .png, .svg or .pdf)", file);
	assert_string_equal(err.msg, want);
	snprintf(file, sizeof file, "%s/graph", t->path);
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, NULL, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': no file extension "
	         "(use .dot, .gv, .png, .svg or .pdf)", file);
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
	assert_int_equal(fb_export_graph(g, NULL, FB_VIEW_GRAPH, NULL, file, &err), FB_ERR);
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
	assert_int_equal(fb_export_graph(est, NULL, FB_VIEW_DIFF, NULL, file, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot export '%s': the diff view needs a truth graph to "
	         "compare with", file);
	assert_string_equal(err.msg, want);
	assert_int_equal(dir_count(t->path), 0);
	assert_null(fb_export_dot_string(est, NULL, FB_VIEW_DIFF, NULL, &err));
	assert_string_equal(err.msg, "the diff view needs a truth graph to compare with");

	fp = fopen(file, "w");
	assert_non_null(fp);
	fputs("old", fp);
	fclose(fp);
	assert_int_equal(fb_export_graph(est, other, FB_VIEW_DIFF, NULL, file, &err), FB_ERR);
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
	assert_null(fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, NULL, &err));
	assert_string_equal(err.msg, "variable name 'X1' appears twice");
	fb_graph_free(g);
}

/* Export the diff of est against truth with options o (NULL: none) into file with stderr
 * sent to a file in t, check that nothing was printed there, and return what the export
 * returned. */
static int export_quietly(const struct tmpdir *t, const fb_graph *est, const fb_graph *truth,
                          const fb_export_opts *o, const char *file, fb_error *err)
{
	char log[128], head[64];
	int saved, fd, rc;

	snprintf(log, sizeof log, "%s/stderr.txt", t->path);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = fb_export_graph(est, truth, FB_VIEW_DIFF, o, file, err);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(file_head(log, head, sizeof head), 0);
	unlink(log);
	return rc;
}

/* A PNG export prints nothing on stderr: Graphviz's messages are captured. */
static void test_quiet(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	char file[128];

	make_diff(&est, &truth);
	snprintf(file, sizeof file, "%s/quiet.png", t->path);
	assert_int_equal(export_quietly(t, est, truth, NULL, file, &err), FB_OK);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* The whole of file, NUL-terminated (caller frees). */
static char *file_read(const char *file)
{
	FILE *fp = fopen(file, "rb");
	char *buf;
	long n;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* The number after key=" in text at or after from; fails the test when absent. */
static double svg_number(const char *from, const char *key)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof pat, " %s=\"", key);
	p = strstr(from, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

/* The centre of node name's ellipse in svg (Graphviz writes the node's title first). */
static void svg_node(const char *svg, const char *name, double *x, double *y)
{
	char title[128];
	const char *p;

	snprintf(title, sizeof title, "class=\"node\">\n<title>%s</title>", name);
	p = strstr(svg, title);
	if (p == NULL)
		fail_msg("no node %s", name);
	p = strstr(p, "<ellipse");
	assert_non_null(p);
	*x = svg_number(p, "cx");
	*y = svg_number(p, "cy");
}

/* The picture's width and height in points, from the svg element. */
static void svg_size(const char *svg, double *w, double *h)
{
	const char *p = strstr(svg, "<svg ");

	assert_non_null(p);
	*w = svg_number(p, "width");
	*h = svg_number(p, "height");
}

/* A label's box in SVG coordinates (y downwards). */
struct lbox {
	double x0, y0, x1, y1; /* corners */
};

/* The ink box of every text inside an edge group of svg into boxes (room for max); returns
 * how many.  A character is at most 0.6 em wide, and digits, points and minus signs stand
 * on the baseline and reach at most 0.8 em above it. */
static size_t svg_edge_labels(const char *svg, struct lbox *boxes, size_t max)
{
	size_t n = 0;
	const char *g = svg;

	while ((g = strstr(g, "class=\"edge\"")) != NULL) {
		const char *end = strstr(g, "</g>"), *t = g;

		assert_non_null(end);
		while ((t = strstr(t, "<text ")) != NULL && t < end) {
			double x = svg_number(t, "x"), y = svg_number(t, "y");
			double fs = svg_number(t, "font-size"), chars = 0;
			const char *c = strchr(t, '>') + 1;

			for (; *c != '<'; c++, chars++)
				if (*c == '&')
					c = strchr(c, ';');
			assert_true(n < max);
			boxes[n].x0 = x - 0.3 * fs * chars;
			boxes[n].x1 = x + 0.3 * fs * chars;
			boxes[n].y0 = y - 0.8 * fs;
			boxes[n].y1 = y + 0.05 * fs;
			n++;
			t++;
		}
		g = end;
	}
	return n;
}

/* Fails when two of the edge labels of the SVG file overlap; returns how many there are. */
static size_t assert_labels_apart(const char *file)
{
	char *svg = file_read(file);
	struct lbox b[1024];
	size_t n = svg_edge_labels(svg, b, 1024);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (b[i].x0 < b[j].x1 && b[j].x0 < b[i].x1 && b[i].y0 < b[j].y1 &&
			    b[j].y0 < b[i].y1)
				fail_msg("%s: labels %zu (%.1f, %.1f) and %zu (%.1f, %.1f) overlap", file,
				         i, b[i].x0, b[i].y0, j, b[j].x0, b[j].y0);
	free(svg);
	return n;
}

/* A simulated weighted 60-variable truth (ER, 60 edges, seed 7). */
static fb_graph *make_truth60(void)
{
	fb_sim_options opt;
	fb_dataset *data;
	fb_graph *truth;
	fb_error err = { "" };

	fb_sim_options_init(&opt);
	opt.d = 60;
	opt.edges = 60;
	opt.n = 5;
	opt.seed = 7;
	assert_int_equal(fb_sim_generate(&opt, &data, &truth, &err), FB_OK);
	fb_dataset_free(data);
	return truth;
}

/* An estimate of truth: every fifth edge dropped, every seventh reversed, and a few extra
 * edges between far-apart variables, weights kept. */
static fb_graph *make_estimate(const fb_graph *truth)
{
	fb_graph *est = fb_graph_copy(truth);
	size_t d = truth->d, k = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			if (fb_graph_has_arc(truth, i, j) && ++k % 5 == 0)
				fb_graph_remove(est, i, j);
			else if (fb_graph_has_arc(truth, i, j) && k % 7 == 0)
				fb_graph_set_directed(est, j, i, truth->w[i * d + j]);
	for (size_t i = 0; i + d / 2 < d; i += 9)
		if (!fb_graph_adjacent(est, i, i + d / 2))
			fb_graph_set_directed(est, i, i + d / 2, 0.75);
	return est;
}

/* Write a picture into the test folder as name and return its full path in file. */
static void write_picture(const struct tmpdir *t, const char *name, const fb_graph *g,
                          const fb_graph *truth, enum fb_export_view view,
                          const fb_export_opts *o, char *file, size_t len)
{
	fb_error err = { "" };

	snprintf(file, len, "%s/%s", t->path, name);
	if (fb_export_graph(g, truth, view, o, file, &err) != FB_OK)
		fail_msg("%s", err.msg);
}

/* Whether every variable of g sits at the same place in the SVG files a and b. */
static bool same_positions(const fb_graph *g, const char *a, const char *b)
{
	char *sa = file_read(a), *sb = file_read(b);
	bool same = true;

	for (size_t i = 0; i < g->d; i++) {
		double xa, ya, xb, yb;

		svg_node(sa, g->names[i], &xa, &ya);
		svg_node(sb, g->names[i], &xb, &yb);
		same = same && xa == xb && ya == yb;
	}
	free(sa);
	free(sb);
	return same;
}

/* On one layout, truth, estimate, diff and a second estimate put every variable at the same
 * place; a diff laid out alone does not. */
static void test_shared_layout(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *truth = make_truth60(), *est = make_estimate(truth), *est2 = fb_graph_copy(est);
	fb_error err = { "" };
	fb_export_layout *l = fb_export_layout_alloc((const fb_graph *const *)&truth, 1, &err);
	fb_export_opts o = { 0 };
	char ft[256], fe[256], fd[256], f2[256], ff[256];

	assert_non_null(l);
	o.layout = l;
	fb_graph_remove(est2, 0, 30);
	fb_graph_set_directed(est2, 1, 40, -1.5);
	write_picture(t, "truth.svg", truth, NULL, FB_VIEW_GRAPH, &o, ft, sizeof ft);
	write_picture(t, "est.svg", est, NULL, FB_VIEW_GRAPH, &o, fe, sizeof fe);
	write_picture(t, "diff.svg", est, truth, FB_VIEW_DIFF, &o, fd, sizeof fd);
	write_picture(t, "est2.svg", est2, truth, FB_VIEW_DIFF, &o, f2, sizeof f2);
	assert_true(same_positions(truth, ft, fe));
	assert_true(same_positions(truth, ft, fd));
	assert_true(same_positions(truth, fd, f2));
	write_picture(t, "fresh.svg", est, truth, FB_VIEW_DIFF, NULL, ff, sizeof ff);
	assert_false(same_positions(truth, ft, ff));
	fb_export_layout_free(l);
	fb_graph_free(truth);
	fb_graph_free(est);
	fb_graph_free(est2);
}

/* The DOT pins each node at its layout position; a layout over other variables is refused. */
static void test_layout_pins(void **state)
{
	fb_graph *est, *truth, *other = fb_graph_alloc(3);
	fb_error err = { "" };
	fb_export_layout *l;
	fb_export_opts o = { 0 };
	char *dot, want[64];
	Agraph_t *ag;

	make_diff(&est, &truth);
	l = fb_export_layout_alloc((const fb_graph *const *)&truth, 1, &err);
	assert_non_null(l);
	o.layout = l;
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, &o, &err);
	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	for (size_t i = 0; i < 5; i++) {
		snprintf(want, sizeof want, "%.2f,%.2f!", l->x[i], l->y[i]);
		assert_string_equal(attr(node_of(ag, l->names[i]), "pos"), want);
	}
	agclose(ag);
	free(dot);
	assert_null(fb_export_dot_string(other, NULL, FB_VIEW_GRAPH, &o, &err));
	assert_string_equal(err.msg, "the layout is for other variables than the graph's");
	fb_export_layout_free(l);
	fb_graph_free(est);
	fb_graph_free(truth);
	fb_graph_free(other);
}

/* The title and every caption line reach the DOT and the SVG, with HTML's special
 * characters escaped; no title and no caption, no graph label. */
static void test_title_caption(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	char *dot, *svg, file[256];

	make_diff(&est, &truth);
	o.title = "run 2: notears against the truth";
	o.caption = "notears with lambda1=0.05, round 7\ndata: a<b.csv; split: horizontal 2";
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, &o, &err);
	assert_non_null(dot);
	assert_non_null(strstr(dot, "<b>run 2: notears against the truth</b>"));
	assert_non_null(strstr(dot, ">notears with lambda1=0.05, round 7<"));
	assert_non_null(strstr(dot, ">data: a&lt;b.csv; split: horizontal 2<"));
	free(dot);
	write_picture(t, "titled.svg", est, truth, FB_VIEW_DIFF, &o, file, sizeof file);
	svg = file_read(file);
	assert_non_null(strstr(svg, ">run 2: notears against the truth</text>"));
	assert_non_null(strstr(svg, ">data: a&lt;b.csv; split: horizontal 2</text>"));
	free(svg);
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_null(strstr(dot, "labelloc"));
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* No two weight labels overlap on the 60-variable truth and its diff, on one layout. */
static void test_labels_apart_60(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *truth = make_truth60(), *est = make_estimate(truth);
	fb_error err = { "" };
	fb_export_layout *l = fb_export_layout_alloc((const fb_graph *const *)&truth, 1, &err);
	fb_export_opts o = { 0 };
	char file[256];

	o.layout = l;
	write_picture(t, "truth60.svg", truth, NULL, FB_VIEW_GRAPH, &o, file, sizeof file);
	assert_int_equal(assert_labels_apart(file), fb_graph_n_edges(truth));
	write_picture(t, "diff60.svg", est, truth, FB_VIEW_DIFF, &o, file, sizeof file);
	assert_true(assert_labels_apart(file) > 50);
	fb_export_layout_free(l);
	fb_graph_free(truth);
	fb_graph_free(est);
}

/* The shared Sachs truth (weights 0.5, -0.6, 0.7, ... given here) has no two weight labels
 * overlapping, on its own layout. */
static void test_labels_apart_sachs(void **state)
{
	static const char *const names[] = { "Raf", "Mek", "Plcg", "PIP2", "PIP3", "Erk", "Akt", "PKA",
	                               "PKC", "P38", "Jnk" };
	struct tmpdir *t = *state;
	const char *top = getenv("top_srcdir");
	char path[512], file[256];
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	fb_graph *g;
	int k = 0;

	snprintf(path, sizeof path, "%s/../shared/data/sachs_truth.csv", top ? top : "..");
	if (access(path, R_OK) != 0)
		skip();
	g = fb_graph_read_csv(path, (char *const *)names, 11, &err);
	assert_non_null(g);
	for (size_t i = 0; i < 11; i++)
		for (size_t j = 0; j < 11; j++)
			if (fb_graph_has_arc(g, i, j))
				g->w[i * 11 + j] = (k % 2 ? -1 : 1) * (0.5 + 0.1 * k), k++;
	g->weighted = true;
	o.layout = fb_export_layout_alloc((const fb_graph *const *)&g, 1, &err);
	assert_non_null(o.layout);
	write_picture(t, "sachs.svg", g, NULL, FB_VIEW_GRAPH, &o, file, sizeof file);
	assert_int_equal(assert_labels_apart(file), 17);
	fb_export_layout_free((fb_export_layout *)o.layout);
	fb_graph_free(g);
}

/* A 60-variable estimate on the truth's layout is at most twice as wide as high, alone and
 * against the truth. */
static void test_compact_60(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *truth = make_truth60(), *est = make_estimate(truth);
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	char file[256], *svg;
	double w, h;

	o.layout = fb_export_layout_alloc((const fb_graph *const *)&truth, 1, &err);
	o.title = "run 1: notears";
	o.caption = "notears with default parameters, round 11 (finished)";
	write_picture(t, "est60.svg", est, NULL, FB_VIEW_GRAPH, &o, file, sizeof file);
	svg = file_read(file);
	svg_size(svg, &w, &h);
	free(svg);
	print_message("estimate: %.0f x %.0f pt\n", w, h);
	assert_true(w <= 2.0 * h);
	write_picture(t, "diff60.svg", est, truth, FB_VIEW_DIFF, &o, file, sizeof file);
	svg = file_read(file);
	svg_size(svg, &w, &h);
	free(svg);
	print_message("diff: %.0f x %.0f pt\n", w, h);
	assert_true(w <= 2.0 * h);
	fb_export_layout_free((fb_export_layout *)o.layout);
	fb_graph_free(truth);
	fb_graph_free(est);
}

/* Two panels side by side: each titled, each variable at the same place in both up to one
 * horizontal shift, the run panel against the truth and the truth panel plain. */
static void test_compare(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	const fb_graph *g[2];
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	char file[256], name[32], *svg;
	double x0, y0, x1, y1, shift = 0.0;

	make_diff(&est, &truth);
	g[0] = est;
	g[1] = truth;
	o.panel_title[0] = "run 3: pc";
	o.panel_title[1] = "truth";
	snprintf(file, sizeof file, "%s/compare.svg", t->path);
	assert_int_equal(fb_export_compare(g, truth, &o, file, &err), FB_OK);
	svg = file_read(file);
	assert_non_null(strstr(svg, ">run 3: pc</text>"));
	assert_non_null(strstr(svg, ">truth</text>"));
	assert_non_null(strstr(svg, ">reversed: 1</text>"));
	assert_null(strstr(strstr(svg, ">reversed: 1</text>") + 1, ">reversed:"));
	for (size_t i = 0; i < 5; i++) {
		svg_node(svg, truth->names[i], &x0, &y0);
		snprintf(name, sizeof name, "%s_1", truth->names[i]);
		svg_node(svg, name, &x1, &y1);
		if (i == 0)
			shift = x1 - x0;
		assert_true(shift > 50.0);
		assert_true(fabs(x1 - x0 - shift) < 1e-9 && y1 == y0);
	}
	free(svg);
	{
		int now = 0;
		fb_cancel stop = { cancel_countdown, &now };
		char want[320];

		snprintf(file, sizeof file, "%s/stopped.svg", t->path);
		assert_int_equal(fb_export_compare_cancellable(g, truth, &o, file, &stop, &err),
		                 FB_ERR);
		snprintf(want, sizeof want, "cannot export '%s': " FB_CANCELLED_MSG, file);
		assert_string_equal(err.msg, want);
		assert_int_equal(access(file, F_OK), -1);
	}
	g[1] = fb_graph_alloc(3);
	assert_int_equal(fb_export_compare(g, truth, &o, file, &err), FB_ERR);
	fb_graph_free((fb_graph *)g[1]);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* style=print draws every diff edge black, told apart by style, width and arrowhead. */
static void test_print_style(void **state)
{
	fb_graph *est, *truth;
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	Agraph_t *ag;
	Agedge_t *e;
	char *dot;

	make_diff(&est, &truth);
	o.style = FB_STYLE_PRINT;
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, &o, &err);
	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	for (Agnode_t *n = agfstnode(ag); n != NULL; n = agnxtnode(ag, n))
		for (e = agfstout(ag, n); e != NULL; e = agnxtout(ag, e))
			assert_string_equal(attr(e, "color"), "#000000");
	assert_string_equal(attr(edge_of(ag, "X1", "X2"), "style"), "");
	assert_string_equal(attr(edge_of(ag, "X1", "X4"), "style"), "dotted");
	assert_string_equal(attr(edge_of(ag, "X3", "X2"), "arrowhead"), "empty");
	assert_string_equal(attr(edge_of(ag, "X3", "X2"), "penwidth"), "2.5");
	assert_string_equal(attr(edge_of(ag, "X3", "X4"), "style"), "dashed");
	assert_non_null(strstr(attr(node_of(ag, "legend"), "label"), "dotted"));
	agclose(ag);
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* weights=width: pen widths and a scale, no labels; weights=none: neither; the diff view
 * labels the estimate's weights. */
static void test_weight_modes(void **state)
{
	fb_graph *g = make_weighted(), *est, *truth;
	fb_error err = { "" };
	fb_export_opts o = { 0 };
	char *dot;

	o.weights = FB_WEIGHTS_WIDTH;
	dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &o, &err);
	assert_non_null(dot);
	assert_null(strstr(dot, "label=\"0.50\""));
	assert_non_null(strstr(dot, "penwidth=1.75"));
	assert_non_null(strstr(dot, "weights as pen widths"));
	assert_non_null(strstr(dot, "4 pt: |w| = 2.00"));
	free(dot);
	o.weights = FB_WEIGHTS_NONE;
	dot = fb_export_dot_string(g, NULL, FB_VIEW_GRAPH, &o, &err);
	assert_null(strstr(dot, "penwidth"));
	assert_null(strstr(dot, "0.50"));
	free(dot);
	make_diff(&est, &truth);
	est->w[0 * 5 + 1] = 0.25;
	est->weighted = true;
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_non_null(strstr(dot, "label=0.25"));
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
	fb_graph_free(g);
}

/* text read as a Graphviz escape string: \\ is a backslash, \n a newline (caller frees). */
static char *unescape(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *p = text; *p != '\0'; p++) {
		if (p[0] == '\\' && (p[1] == '\\' || p[1] == 'n')) {
			*o++ = p[1] == 'n' ? '\n' : '\\';
			p++;
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* Whether the DOT text dot reads back with a node for each variable of g (and, with two
 * panels, a second one), whose name and label both read as the variable's name, and with
 * the edge count of the picture. */
static void assert_names_reread(const char *dot, const fb_graph *g, size_t panels,
                                int edges)
{
	Agraph_t *ag = agmemread(dot);
	size_t found = 0;

	if (ag == NULL)
		fail_msg("graphviz cannot read the DOT text:\n%s", dot);
	for (Agnode_t *n = agfstnode(ag); n != NULL; n = agnxtnode(ag, n)) {
		char *name = unescape(agnameof(n)), *label = unescape(attr(n, "label"));

		for (size_t i = 0; i < g->d; i++) {
			size_t len = strlen(g->names[i]);

			if (strcmp(label, g->names[i]) != 0)
				continue;
			found++;
			assert_memory_equal(name, g->names[i], len);
			assert_true(name[len] == '\0' || (panels == 2 && name[len] == '_'));
		}
		free(name);
		free(label);
	}
	assert_int_equal(found, g->d * panels);
	assert_int_equal(agnedges(ag), edges);
	agclose(ag);
}

/* Names holding a backslash (last, or before a quote), quotes, semicolons, brackets,
 * newlines (last, too) and HTML-like text give DOT text that Graphviz reads back with every
 * name intact, in the graph, diff and compare pictures. */
static void test_dot_names_reread(void **state)
{
	static const char *const names[] = { "end\\", "q\"t", "a;b", "c[d]", "two\nlines",
		                              "nl\n", "<b>x</b>", "bs\\\"q", "x\\n", "\\\\" };
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_error err = { "" };
	char file[256];
	char *dot;

	est = fb_graph_alloc(10);
	truth = fb_graph_alloc(10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(fb_graph_set_name(est, i, names[i], &err), FB_OK);
		assert_int_equal(fb_graph_set_name(truth, i, names[i], &err), FB_OK);
	}
	for (size_t i = 0; i + 1 < 10; i++) {
		fb_graph_set_directed(truth, i, i + 1, 1.0);
		fb_graph_set_directed(est, i + 1 - (i % 2), i + (i % 2), 1.0);
	}
	dot = fb_export_dot_string(est, NULL, FB_VIEW_GRAPH, NULL, &err);
	assert_non_null(dot);
	assert_names_reread(dot, est, 1, 9);
	free(dot);
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_non_null(dot);
	assert_names_reread(dot, est, 1, 9);
	free(dot);
	snprintf(file, sizeof file, "%s/c.dot", t->path);
	assert_int_equal(fb_export_compare((const fb_graph *const[2]){ est, truth }, truth, NULL,
	                                   file, &err), FB_OK);
	dot = file_read(file);
	assert_names_reread(dot, est, 2, 18);
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* The big-endian 32-bit number at p. */
static unsigned long be32(const unsigned char *p)
{
	return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 |
	       p[3];
}

/* The width in pixels of the PNG of est against truth with options o, written as name. */
static unsigned long png_width(const struct tmpdir *t, const char *name, const fb_graph *est,
                               const fb_graph *truth, const fb_export_opts *o)
{
	char file[256], head[64];

	write_picture(t, name, est, truth, FB_VIEW_DIFF, o, file, sizeof file);
	assert_true(file_head(file, head, sizeof head) >= 24);
	return be32((unsigned char *)head + 16);
}

/* width=4 inches at 100 dpi gives a PNG 400 pixels wide; at 200 dpi, 800. */
static void test_width_dpi(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_export_opts o = { 0 };

	make_diff(&est, &truth);
	o.width = 4.0;
	o.dpi = 100.0;
	assert_int_equal(png_width(t, "w.png", est, truth, &o), 400);
	o.dpi = 200.0;
	assert_int_equal(png_width(t, "w2.png", est, truth, &o), 800);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* A PNG over the pixel limit (1000 inches at 2400 dpi) is refused at once in one sentence
 * naming width= and dpi=, nothing written and nothing on stderr; within the limit (20
 * inches at 300 dpi: 6000 pixels wide) it is drawn. */
static void test_pixel_cap(void **state)
{
	struct tmpdir *t = *state;
	fb_graph *est, *truth;
	fb_export_opts o = { 0 };
	fb_error err = { "" };
	char file[256];

	make_diff(&est, &truth);
	o.width = 1000.0;
	o.dpi = 2400.0;
	snprintf(file, sizeof file, "%s/huge.png", t->path);
	assert_int_equal(export_quietly(t, est, truth, &o, file, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "cannot export '"));
	assert_non_null(strstr(err.msg, "over the limit of 100 million pixels and 30000 on a side: "
	                                "lower width= or dpi="));
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(dir_count(t->path), 0);
	o.width = 20.0;
	o.dpi = 300.0;
	assert_int_equal(png_width(t, "big.png", est, truth, &o), 6000);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* The colour style's reversed edges have hollow heads, as in print, and the legend says so;
 * the legend speaks of weight labels only when the estimate has weights to label. */
static void test_color_legend(void **state)
{
	fb_graph *est, *truth;
	fb_error err = { "" };
	Agraph_t *ag;
	char *dot;

	make_diff(&est, &truth);
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_non_null(dot);
	ag = agmemread(dot);
	assert_non_null(ag);
	assert_string_equal(attr(edge_of(ag, "X3", "X2"), "arrowhead"), "empty");
	assert_string_equal(attr(edge_of(ag, "X1", "X4"), "arrowhead"), "");
	assert_non_null(strstr(attr(node_of(ag, "legend"), "label"), "orange, hollow head"));
	assert_null(strstr(attr(node_of(ag, "legend"), "label"), "labels: estimated weights"));
	agclose(ag);
	free(dot);
	est->weighted = true;
	dot = fb_export_dot_string(est, truth, FB_VIEW_DIFF, NULL, &err);
	assert_non_null(strstr(dot, "labels: estimated weights"));
	free(dot);
	fb_graph_free(est);
	fb_graph_free(truth);
}

/* Lone variables stand in a grid on the right of the drawing, filled column by column from
 * the top: not in one long row. */
static void test_lone_grid(void **state)
{
	fb_graph *g = fb_graph_alloc(16);
	fb_error err = { "" };
	fb_export_layout *l;
	double right = -1e300, top = -1e300;

	for (size_t k = 0; k < 5; k++)
		fb_graph_set_directed(g, k, k + 1, 1.0);
	l = fb_export_layout_alloc((const fb_graph *const *)&g, 1, &err);
	assert_non_null(l);
	for (size_t i = 0; i < 6; i++) {
		right = fmax(right, l->x[i]);
		top = fmax(top, l->y[i]);
	}
	for (size_t i = 6; i < 16; i++) {
		assert_true(l->x[i] > right + 20.0);
		assert_true(l->y[i] <= top);
	}
	assert_true(l->x[6] == l->x[7] && l->y[6] > l->y[7]);
	assert_true(l->x[15] > l->x[6]);
	fb_export_layout_free(l);
	fb_graph_free(g);
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
		cmocka_unit_test_setup_teardown(test_shared_layout, setup_dir, teardown_dir),
		cmocka_unit_test(test_layout_pins),
		cmocka_unit_test_setup_teardown(test_title_caption, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_labels_apart_60, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_labels_apart_sachs, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_compact_60, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_compare, setup_dir, teardown_dir),
		cmocka_unit_test(test_print_style),
		cmocka_unit_test(test_weight_modes),
		cmocka_unit_test_setup_teardown(test_width_dpi, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_dot_names_reread, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_pixel_cap, setup_dir, teardown_dir),
		cmocka_unit_test(test_color_legend),
		cmocka_unit_test(test_lone_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
