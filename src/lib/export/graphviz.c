/* Graph pictures through Graphviz, in-process: the picture is built with cgraph, written as
 * DOT with agwrite, or laid out with dot and rendered with libgvc.  Graphviz's messages are
 * captured (agseterrf) so that nothing reaches stderr; a failure reports them in err. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gvc.h>
#include <cgraph.h>

#include "fedbn/export.h"
#include "fedbn/metrics.h"

/* The extensions understood, as shown in messages. */
#define EXPORT_FORMATS "use .dot, .gv, .png or .svg"

/* One file extension and how it is produced. */
struct export_ext {
	const char *ext;      /* the extension, with its dot, lower case */
	const char *renderer; /* the gvRender format, NULL for DOT text written by agwrite */
};

/* The extensions fb_export_graph accepts. */
static const struct export_ext export_exts[] = {
	{ ".dot", NULL },
	{ ".gv", NULL },
	{ ".png", "png" },
	{ ".svg", "svg" },
};

/* Graphviz's messages during the current call, gathered instead of printed. */
static char gv_messages[FB_ERROR_MAX];

/* The Graphviz context, created on first use and kept for the life of the process. */
static GVC_t *gv_context;

/* Graphviz's error settings saved by gv_quiet_begin. */
struct gv_quiet {
	agusererrf fn;      /* the previous message function */
	agerrlevel_t level; /* the previous reporting level */
};

/* agseterrf callback: append one piece of a Graphviz message to gv_messages. */
static int gv_keep_message(char *msg)
{
	size_t n = strlen(gv_messages);

	snprintf(gv_messages + n, sizeof gv_messages - n, "%s", msg);
	return 0;
}

/* Route Graphviz's messages into gv_messages until gv_quiet_end. */
static void gv_quiet_begin(struct gv_quiet *q)
{
	gv_messages[0] = '\0';
	q->fn = agseterrf(gv_keep_message);
	q->level = agseterr(AGWARN);
}

/* Restore Graphviz's previous message settings. */
static void gv_quiet_end(const struct gv_quiet *q)
{
	agseterrf(q->fn);
	agseterr(q->level);
}

/* The gathered Graphviz messages on one line, without "Error: " prefixes, or a fallback. */
static const char *gv_reason(const char *fallback)
{
	static char out[FB_ERROR_MAX];
	const char *p = gv_messages;
	size_t n = 0;

	while (*p != '\0' && n + 3 < sizeof out) {
		if (strncmp(p, "Error: ", 7) == 0 || strncmp(p, "Warning: ", 9) == 0) {
			p = strchr(p, ' ') + 1;
			continue;
		}
		if (*p == '\n') {
			if (p[1] != '\0' && n > 0)
				out[n++] = ';', out[n++] = ' ';
		} else {
			out[n++] = *p;
		}
		p++;
	}
	out[n] = '\0';
	return n > 0 ? out : fallback;
}

/* Set attribute name of obj to value, declaring it (default "") when new. */
static void gv_set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

/* The renderer for file's extension into *renderer (NULL = DOT); FB_ERR when unknown. */
static int export_format(const char *file, const char **renderer, fb_error *err)
{
	const char *slash = strrchr(file, '/');
	const char *dot = strrchr(file, '.');
	size_t k;

	if (dot == NULL || (slash != NULL && dot < slash))
		return fb_fail(err, "cannot export '%s': no file extension (" EXPORT_FORMATS ")",
		               file);
	for (k = 0; k < sizeof export_exts / sizeof export_exts[0]; k++)
		if (fb_strcasecmp(dot, export_exts[k].ext) == 0) {
			*renderer = export_exts[k].renderer;
			return FB_OK;
		}
	return fb_fail(err, "cannot export '%s': unknown format '%s' (" EXPORT_FORMATS ")",
	               file, dot);
}

/* putstr of the in-memory DOT writer: append str to the fb_buf chan. */
static int gv_buf_put(void *chan, const char *str)
{
	fb_buf_append(chan, str, strlen(str));
	return 0;
}

/* flush of the in-memory DOT writer: nothing to do. */
static int gv_buf_flush(void *chan)
{
	return 0;
}

/* I/O discipline that makes agwrite append to an fb_buf. */
static Agiodisc_t gv_buf_io = { NULL, gv_buf_put, gv_buf_flush };

/* Memory, id and I/O disciplines of every graph built here. */
static Agdisc_t gv_disc = { &AgMemDisc, &AgIdDisc, &gv_buf_io };

/* A picture being built: the cgraph graph and its nodes in the fb_graph's order. */
struct gv_picture {
	Agraph_t *g;      /* the graph, opened with gv_disc; NULL once closed */
	Agnode_t **nodes; /* d nodes: nodes[i] draws variable i */
};

/* A copy of name safe as a Graphviz label: each backslash doubled, so none is an escape. */
static char *gv_label_escape(const char *name)
{
	fb_buf b = { 0 };
	const char *p;

	fb_buf_append(&b, "", 0);
	for (p = name; *p != '\0'; p++) {
		if (*p == '\\')
			fb_buf_append(&b, "\\", 1);
		fb_buf_append(&b, p, 1);
	}
	return b.data;
}

/* Close the picture's graph and free its node table. */
static void gv_picture_close(struct gv_picture *p)
{
	if (p->g != NULL)
		agclose(p->g);
	free(p->nodes);
	p->g = NULL;
	p->nodes = NULL;
}

/* Open a picture named title with one node per variable of g, labelled with its name. */
static int gv_picture_open(struct gv_picture *p, const fb_graph *g, const char *title,
                           fb_error *err)
{
	size_t i;

	p->nodes = fb_xcalloc(g->d, sizeof *p->nodes);
	p->g = agopen((char *)title, Agdirected, &gv_disc);
	if (p->g == NULL) {
		gv_picture_close(p);
		return fb_fail(err, "graphviz cannot create a graph: %s", gv_reason("no reason"));
	}
	agattr(p->g, AGNODE, (char *)"label", (char *)"\\N");
	for (i = 0; i < g->d; i++) {
		char *label;

		if (agnode(p->g, g->names[i], 0) != NULL) {
			gv_picture_close(p);
			return fb_fail(err, "variable name '%s' appears twice", g->names[i]);
		}
		p->nodes[i] = agnode(p->g, g->names[i], 1);
		label = gv_label_escape(g->names[i]);
		gv_set(p->nodes[i], "label", label);
		free(label);
	}
	return FB_OK;
}

/* Add the edge tail -> head (variable indices) with colour and style; dir=none when
 * undirected. */
static Agedge_t *gv_picture_edge(struct gv_picture *p, size_t tail, size_t head,
                                 const char *color, const char *style, bool undirected)
{
	Agedge_t *e = agedge(p->g, p->nodes[tail], p->nodes[head], NULL, 1);

	gv_set(e, "color", color);
	if (style != NULL)
		gv_set(e, "style", style);
	if (undirected)
		gv_set(e, "dir", "none");
	return e;
}

/* Largest |w| over the directed edges of g (0 when there is none). */
static double gv_max_weight(const fb_graph *g)
{
	double max = 0.0;
	size_t i, j;

	for (i = 0; i < g->d; i++)
		for (j = 0; j < g->d; j++)
			if (fb_graph_has_arc(g, i, j) && fabs(g->w[i * g->d + j]) > max)
				max = fabs(g->w[i * g->d + j]);
	return max;
}

/* Label e with weight w and give it a pen width from 1 (w = 0) to 4 (|w| = max). */
static void gv_weight_draw(Agedge_t *e, double w, double max)
{
	char text[64];

	snprintf(text, sizeof text, "%.2f", w);
	gv_set(e, "label", text);
	snprintf(text, sizeof text, "%.2f", max > 0.0 ? 1.0 + 3.0 * fabs(w) / max : 1.0);
	gv_set(e, "penwidth", text);
}

/* FB_VIEW_GRAPH: every edge of g, arrows for directed ones, weights when g is weighted. */
static void gv_graph_draw(struct gv_picture *p, const fb_graph *g)
{
	double max = gv_max_weight(g);
	size_t i, j;

	for (i = 0; i < g->d; i++)
		for (j = i + 1; j < g->d; j++) {
			enum fb_edge rel = fb_graph_edge(g, i, j);
			size_t t = rel == FB_EDGE_BACKWARD ? j : i, h = t == i ? j : i;
			Agedge_t *e;

			if (rel == FB_EDGE_NONE)
				continue;
			e = gv_picture_edge(p, t, h, "black", NULL, rel == FB_EDGE_UNDIRECTED);
			if (g->weighted && rel != FB_EDGE_UNDIRECTED)
				gv_weight_draw(e, g->w[t * g->d + h], max);
		}
}

/* FB_VIEW_DIFF, the pair {i, j} (i < j): correct black, extra red, reversed orange (in the
 * estimated direction), missing dashed grey (in the true direction); an undirected estimate
 * is drawn without arrowheads, black over a true edge and red elsewhere. */
static void gv_diff_pair(struct gv_picture *p, const fb_graph *est, const fb_graph *truth,
                         size_t i, size_t j)
{
	enum fb_edge e = fb_graph_edge(est, i, j), t = fb_graph_edge(truth, i, j);
	size_t et = e == FB_EDGE_BACKWARD ? j : i, eh = et == i ? j : i;
	size_t tt = t == FB_EDGE_BACKWARD ? j : i, th = tt == i ? j : i;

	if (e == FB_EDGE_NONE) {
		if (t != FB_EDGE_NONE)
			gv_picture_edge(p, tt, th, "grey", "dashed", false);
	} else if (e == FB_EDGE_UNDIRECTED) {
		gv_picture_edge(p, i, j, t == FB_EDGE_NONE ? "red" : "black", NULL, true);
	} else if (t == FB_EDGE_NONE) {
		gv_picture_edge(p, et, eh, "red", NULL, false);
	} else {
		gv_picture_edge(p, et, eh, e == t ? "black" : "orange", NULL, false);
	}
}

/* The legend's HTML-like table: the four styles with their counts, then the score in words. */
static char *gv_legend_html(const fb_metrics *m)
{
	char text[200];
	fb_score s;

	fb_score_from_metrics(&s, m);
	return fb_xasprintf(
		"<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">"
		"<tr><td colspan=\"2\"><b>estimate against truth</b></td></tr>"
		"<tr><td>black</td><td align=\"left\">correct: %zu"
		"<br align=\"left\"/>(no arrowhead: undirected over a true edge)</td></tr>"
		"<tr><td><font color=\"red\">red</font></td>"
		"<td align=\"left\">extra: %zu</td></tr>"
		"<tr><td><font color=\"orange\">orange</font></td>"
		"<td align=\"left\">reversed: %zu</td></tr>"
		"<tr><td><font color=\"grey\">grey, dashed</font></td>"
		"<td align=\"left\">missing: %zu</td></tr>"
		"<tr><td colspan=\"2\">%s</td></tr>"
		"</table>",
		m->tp, m->extra, m->reversed, m->missing, fb_score_text(&s, true, text, sizeof text));
}

/* Add the legend node, kept at the bottom, under a name no variable uses. */
static void gv_legend_add(struct gv_picture *p, const fb_metrics *m)
{
	char name[64] = "legend";
	Agraph_t *bottom = agsubg(p->g, (char *)"fedbn_legend", 1);
	Agnode_t *n;
	char *html, *label;
	int k;

	for (k = 1; agnode(p->g, name, 0) != NULL; k++)
		snprintf(name, sizeof name, "legend_%d", k);
	gv_set(bottom, "rank", "sink");
	n = agnode(bottom, name, 1);
	gv_set(n, "shape", "plaintext");
	gv_set(n, "fontsize", "10");
	html = gv_legend_html(m);
	label = agstrdup_html(p->g, html);
	gv_set(n, "label", label);
	agstrfree(p->g, label);
	free(html);
}

/* FB_VIEW_DIFF: est against truth, with the legend. */
static int gv_diff_draw(struct gv_picture *p, const fb_graph *est, const fb_graph *truth,
                        fb_error *err)
{
	fb_metrics m;
	size_t i, j;

	if (fb_metrics_compute(est, truth, &m, err) != FB_OK)
		return FB_ERR;
	for (i = 0; i < est->d; i++)
		for (j = i + 1; j < est->d; j++)
			gv_diff_pair(p, est, truth, i, j);
	gv_legend_add(p, &m);
	return FB_OK;
}

/* Build the picture of g in view; FB_ERR (nothing left open) on failure. */
static int gv_picture_build(struct gv_picture *p, const fb_graph *g, const fb_graph *truth,
                            enum fb_export_view view, fb_error *err)
{
	if (view != FB_VIEW_GRAPH && view != FB_VIEW_DIFF)
		return fb_fail(err, "unknown view '%d'", (int)view);
	if (view == FB_VIEW_DIFF && truth == NULL)
		return fb_fail(err, "the diff view needs a truth graph to compare with");
	if (gv_picture_open(p, g, view == FB_VIEW_DIFF ? "fedbn_diff" : "fedbn", err) != FB_OK)
		return FB_ERR;
	if (view == FB_VIEW_GRAPH) {
		gv_graph_draw(p, g);
		return FB_OK;
	}
	if (gv_diff_draw(p, g, truth, err) != FB_OK) {
		gv_picture_close(p);
		return FB_ERR;
	}
	return FB_OK;
}

/* Append the DOT text of the picture to out. */
static int gv_picture_dot(struct gv_picture *p, fb_buf *out, fb_error *err)
{
	if (agwrite(p->g, out) != 0)
		return fb_fail(err, "graphviz cannot write DOT text: %s", gv_reason("no reason"));
	return FB_OK;
}

/* Lay the picture out with dot and render it in format into memory: Graphviz's own file
 * writer ends the program on a write error, so fedbn writes the bytes itself.  *data is
 * freed with gvFreeRenderData. */
static int gv_picture_render(struct gv_picture *p, const char *format, char **data,
                             size_t *len, fb_error *err)
{
	unsigned int n = 0;
	int rc;

	*data = NULL;
	if (gv_context == NULL)
		gv_context = gvContext();
	if (gv_context == NULL)
		return fb_fail(err, "graphviz cannot start: %s", gv_reason("no reason"));
	if (gvLayout(gv_context, p->g, "dot") != 0)
		return fb_fail(err, "graphviz cannot lay out the graph: %s",
		               gv_reason("no reason"));
	rc = gvRenderData(gv_context, p->g, format, data, &n);
	gvFreeLayout(gv_context, p->g);
	*len = n;
	if (rc != 0 || *data == NULL) {
		if (*data != NULL)
			gvFreeRenderData(*data);
		*data = NULL;
		return fb_fail(err, "graphviz cannot render %s: %s", format,
		               gv_reason("no reason"));
	}
	return FB_OK;
}

/* Write the picture into the open atomic file: DOT text, or a rendering in renderer. */
static int gv_picture_write(struct gv_picture *p, const char *renderer, fb_atomic_file *af,
                            fb_error *err)
{
	fb_buf text = { 0 };
	char *data = NULL, why[128];
	size_t len = 0;
	int rc;

	if (renderer != NULL)
		rc = gv_picture_render(p, renderer, &data, &len, err);
	else if ((rc = gv_picture_dot(p, &text, err)) == FB_OK)
		data = text.data, len = text.len;
	if (rc == FB_OK && fwrite(data, 1, len, af->fp) != len)
		rc = fb_fail(err, "%s", fb_strerror(errno, why, sizeof why));
	if (renderer != NULL && data != NULL)
		gvFreeRenderData(data);
	fb_buf_release(&text);
	return rc;
}

/* Build, write and commit; on failure err holds the reason without the file name. */
static int export_to_file(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                          const char *renderer, const char *file, fb_error *err,
                          bool *named)
{
	struct gv_picture p = { 0 };
	fb_atomic_file af;
	int rc;

	if (gv_picture_build(&p, g, truth, view, err) != FB_OK)
		return FB_ERR;
	rc = fb_atomic_open(&af, file, err);
	if (rc != FB_OK) {
		*named = true;
	} else if (gv_picture_write(&p, renderer, &af, err) != FB_OK) {
		fb_atomic_abort(&af);
		rc = FB_ERR;
	} else if (fb_atomic_commit(&af, err) != FB_OK) {
		*named = true;
		rc = FB_ERR;
	}
	gv_picture_close(&p);
	return rc;
}

/* Write g to file in the format of its extension, atomically. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const char *file, fb_error *err)
{
	struct gv_quiet q;
	const char *renderer = NULL;
	fb_error inner = { "" };
	bool named = false;
	int rc;

	if (export_format(file, &renderer, err) != FB_OK)
		return FB_ERR;
	gv_quiet_begin(&q);
	rc = export_to_file(g, truth, view, renderer, file, &inner, &named);
	gv_quiet_end(&q);
	if (rc == FB_OK)
		return FB_OK;
	if (named)
		return fb_fail(err, "%s", inner.msg);
	return fb_fail(err, "cannot export '%s': %s", file, inner.msg);
}

/* The DOT text of the picture of g (caller frees). */
char *fb_export_dot_string(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                           fb_error *err)
{
	struct gv_quiet q;
	struct gv_picture p = { 0 };
	fb_buf text = { 0 };

	gv_quiet_begin(&q);
	if (gv_picture_build(&p, g, truth, view, err) == FB_OK) {
		if (gv_picture_dot(&p, &text, err) != FB_OK)
			fb_buf_release(&text);
		gv_picture_close(&p);
	}
	gv_quiet_end(&q);
	return text.data;
}
