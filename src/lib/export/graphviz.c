/* Graph pictures through Graphviz, in-process: the picture is built with cgraph, written as
 * DOT with agwrite, or laid out (dot alone, nop on fixed positions, sfdp when large) and
 * rendered with libgvc.  Graphviz's messages are captured (agseterrf) so that nothing reaches
 * stderr; a failure reports them in err. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fedbn/metrics.h"
#include "gv-int.h"

/* The extensions understood, as shown in messages. */
#define EXPORT_FORMATS "use .dot, .gv, .png, .svg or .pdf"

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
	{ ".pdf", "pdf:cairo" },
};

/* Most nodes in a picture whose edges are routed as splines around the nodes; beyond, the
 * routing's cost grows too fast (1 s for 60 nodes, 8 s for 120, 30 s for 200) and edges are
 * straight lines. */
#define GV_SPLINE_NODES 100

/* Graphviz's messages during the current call, gathered instead of printed. */
static char gv_messages[FB_ERROR_MAX];

/* The Graphviz context, created on first use and kept for the life of the process. */
static GVC_t *gv_context;

/* agseterrf callback: append one piece of a Graphviz message to gv_messages. */
static int gv_keep_message(char *msg)
{
	size_t n = strlen(gv_messages);

	snprintf(gv_messages + n, sizeof gv_messages - n, "%s", msg);
	return 0;
}

/* Route Graphviz's messages into gv_messages until gv_quiet_end. */
void gv_quiet_begin(struct gv_quiet *q)
{
	gv_messages[0] = '\0';
	q->fn = agseterrf(gv_keep_message);
	q->level = agseterr(AGWARN);
}

/* Restore Graphviz's previous message settings. */
void gv_quiet_end(const struct gv_quiet *q)
{
	agseterrf(q->fn);
	agseterr(q->level);
}

/* The gathered Graphviz messages on one line, without "Error: " prefixes, or a fallback. */
const char *gv_reason(const char *fallback)
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
void gv_set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

/* The renderer for file's extension into *renderer (NULL = DOT); FB_ERR when unknown. */
int gv_export_format(const char *file, const char **renderer, fb_error *err)
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

/* Whether path names a picture format. */
int fb_export_format_check(const char *file, fb_error *err)
{
	const char *renderer;

	return gv_export_format(file, &renderer, err);
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

/* Open an empty directed graph with this module's disciplines and drawing defaults. */
Agraph_t *gv_graph_open(const char *name)
{
	Agraph_t *g = agopen((char *)name, Agdirected, &gv_disc);

	if (g == NULL)
		return NULL;
	agattr(g, AGRAPH, (char *)"fontname", (char *)"Helvetica");
	agattr(g, AGRAPH, (char *)"pad", (char *)"0.2");
	agattr(g, AGRAPH, (char *)"nodesep", (char *)"0.4");
	agattr(g, AGRAPH, (char *)"ranksep", (char *)"0.6");
	agattr(g, AGNODE, (char *)"fontname", (char *)"Helvetica");
	agattr(g, AGNODE, (char *)"fontsize", (char *)"14");
	agattr(g, AGNODE, (char *)"height", (char *)"0.4");
	agattr(g, AGNODE, (char *)"margin", (char *)"0.06,0.03");
	agattr(g, AGNODE, (char *)"label", (char *)"\\N");
	agattr(g, AGEDGE, (char *)"fontname", (char *)"Helvetica");
	agattr(g, AGEDGE, (char *)"fontsize", (char *)"10");
	agattr(g, AGEDGE, (char *)"arrowsize", (char *)"0.8");
	return g;
}

/* A copy of name as a Graphviz escape string: each backslash doubled, so that none is an
 * escape (and none escapes a closing quote in DOT text), and each newline written \n, which
 * DOT text keeps where a raw newline before a quote would be dropped. */
char *gv_label_escape(const char *name)
{
	fb_buf b = { 0 };
	const char *p;

	fb_buf_append(&b, "", 0);
	for (p = name; *p != '\0'; p++) {
		if (*p == '\n') {
			fb_buf_append(&b, "\\n", 2);
			continue;
		}
		if (*p == '\\')
			fb_buf_append(&b, "\\", 1);
		fb_buf_append(&b, p, 1);
	}
	return b.data;
}

/* Append text to b with &, <, > and " written as HTML entities. */
void gv_html_append(fb_buf *b, const char *text, size_t n)
{
	for (size_t k = 0; k < n && text[k] != '\0'; k++) {
		switch (text[k]) {
		case '&': fb_buf_printf(b, "&amp;"); break;
		case '<': fb_buf_printf(b, "&lt;"); break;
		case '>': fb_buf_printf(b, "&gt;"); break;
		case '"': fb_buf_printf(b, "&quot;"); break;
		default: fb_buf_append(b, text + k, 1);
		}
	}
}

/* Set obj's label to the HTML-like label html. */
void gv_set_html(Agraph_t *g, void *obj, const char *html)
{
	char *label = agstrdup_html(g, (char *)html);

	gv_set(obj, "label", label);
	agstrfree(g, label);
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

/* A new node of g named base, or base_K for the first K that the graph does not use yet. */
static Agnode_t *gv_new_node(Agraph_t *g, const char *base)
{
	char *name = fb_xstrdup(base);
	Agnode_t *n;

	for (int k = 1; agnode(g, name, 0) != NULL; k++) {
		free(name);
		name = fb_xasprintf("%s_%d", base, k);
	}
	n = agnode(g, name, 1);
	free(name);
	return n;
}

/* Pin node n at (x, y) points. */
static void gv_pin(Agnode_t *n, double x, double y)
{
	char pos[64];

	snprintf(pos, sizeof pos, "%.2f,%.2f!", x, y);
	gv_set(n, "pos", pos);
}

/* Horizontal distance in points between the panels of a compare picture over layout l: the
 * drawing's width and a gap, and room for two legends side by side under a small one. */
static double gv_panel_shift(const fb_export_layout *l)
{
	double lo = 0.0, hi = 0.0;

	for (size_t i = 0; i < l->d; i++) {
		lo = i == 0 || l->x[i] < lo ? l->x[i] : lo;
		hi = i == 0 || l->x[i] > hi ? l->x[i] : hi;
	}
	return fmax(hi - lo + 150.0, 420.0);
}

/* Add panel k's nodes, one per variable of g labelled with its name (panel 0 named after the
 * variables, panel 1 under free names; both as escape strings, as the labels), pinned to
 * their places in layout. */
static int gv_panel_nodes(struct gv_picture *p, const fb_graph *g, size_t k,
                          const fb_export_layout *layout, fb_error *err)
{
	double shift = (double)k * gv_panel_shift(layout);

	for (size_t i = 0; i < g->d; i++) {
		char *label = gv_label_escape(g->names[i]);
		Agnode_t *n = NULL;

		if (k > 0 || agnode(p->g, label, 0) == NULL)
			n = gv_new_node(p->g, label);
		if (n != NULL) {
			gv_set(n, "label", label);
			gv_pin(n, layout->x[i] + shift, layout->y[i]);
		}
		free(label);
		if (n == NULL)
			return fb_fail(err, "variable name '%s' appears twice", g->names[i]);
		p->nodes[k * g->d + i] = n;
	}
	return FB_OK;
}

/* The lowest and highest node centre of layout l (0 when it has none). */
static void gv_layout_span(const fb_export_layout *l, double *lo, double *hi)
{
	*lo = *hi = 0.0;
	for (size_t i = 0; i < l->d; i++) {
		*lo = i == 0 || l->y[i] < *lo ? l->y[i] : *lo;
		*hi = i == 0 || l->y[i] > *hi ? l->y[i] : *hi;
	}
}

/* Whether layout holds g's variables, by name and order. */
static bool gv_layout_fits(const fb_export_layout *l, const fb_graph *g)
{
	if (l->d != g->d)
		return false;
	for (size_t i = 0; i < g->d; i++)
		if (strcmp(l->names[i], g->names[i]) != 0)
			return false;
	return true;
}

/* Open a picture named title with npanels panels of one node per variable of g. */
static int gv_picture_open(struct gv_picture *p, const fb_graph *g, size_t npanels,
                           const char *title, const fb_export_layout *layout, fb_error *err)
{
	p->d = g->d;
	p->npanels = npanels;
	gv_layout_span(layout, &p->park_y0, &p->park_y1);
	if (!gv_layout_fits(layout, g))
		return fb_fail(err, "the layout is for other variables than the graph's");
	p->nodes = fb_xcalloc(g->d * npanels, sizeof *p->nodes);
	p->g = gv_graph_open(title);
	if (p->g == NULL) {
		gv_picture_close(p);
		return fb_fail(err, "graphviz cannot create a graph: %s", gv_reason("no reason"));
	}
	for (size_t k = 0; k < npanels; k++)
		if (gv_panel_nodes(p, g, k, layout, err) != FB_OK) {
			gv_picture_close(p);
			return FB_ERR;
		}
	gv_set(p->g, "splines", g->d * npanels > GV_SPLINE_NODES ? "line" : "true");
	gv_set(p->g, "notranslate", "true");
	return FB_OK;
}

/* Add the edge tail -> head (variable indices) of panel k; dir=none when undirected. */
static Agedge_t *gv_picture_edge(struct gv_picture *p, size_t k, size_t tail, size_t head,
                                 bool undirected)
{
	Agedge_t *e = agedge(p->g, p->nodes[k * p->d + tail], p->nodes[k * p->d + head], NULL, 1);

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

/* Show weight w on e as the options ask: a label, and a pen width from 1 (w = 0) to 4
 * (|w| = max) unless width is false. */
static void gv_weight_draw(Agedge_t *e, double w, double max, enum fb_export_weights how,
                           bool width)
{
	char text[64];

	if (how == FB_WEIGHTS_NONE)
		return;
	if (how == FB_WEIGHTS_LABELS) {
		snprintf(text, sizeof text, "%.2f", w);
		gv_set(e, "label", text);
	}
	if (width) {
		snprintf(text, sizeof text, "%.2f", max > 0.0 ? 1.0 + 3.0 * fabs(w) / max : 1.0);
		gv_set(e, "penwidth", text);
	}
}

/* Whether g drawn with how shows weight labels: a weighted graph with a directed edge. */
static bool gv_weight_labels(const fb_graph *g, enum fb_export_weights how)
{
	for (size_t i = 0; g->weighted && how == FB_WEIGHTS_LABELS && i < g->d; i++)
		for (size_t j = 0; j < g->d; j++)
			if (fb_graph_has_arc(g, i, j))
				return true;
	return false;
}

/* Draw e, an arc t -> h, as a double line of its colour when k requires it. */
static void gv_required(Agedge_t *e, const fb_knowledge *k, size_t t, size_t h)
{
	char colors[64];
	const char *c;

	if (k == NULL || !fb_knowledge_requires(k, t, h))
		return;
	c = agget(e, (char *)"color");
	snprintf(colors, sizeof colors, "%s:invis:%s", c != NULL && c[0] ? c : "black",
	         c != NULL && c[0] ? c : "black");
	gv_set(e, "color", colors);
}

/* FB_VIEW_GRAPH in panel k: every edge of g, arrows for directed ones, weights when g is
 * weighted, arcs the knowledge requires doubled. */
static void gv_graph_draw(struct gv_picture *p, size_t k, const fb_graph *g,
                          enum fb_export_weights how, const fb_knowledge *kn)
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
			e = gv_picture_edge(p, k, t, h, rel == FB_EDGE_UNDIRECTED);
			gv_set(e, "color", "black");
			if (g->weighted && rel != FB_EDGE_UNDIRECTED)
				gv_weight_draw(e, g->w[t * g->d + h], max, how, true);
			if (rel != FB_EDGE_UNDIRECTED)
				gv_required(e, kn, t, h);
		}
}

/* The kinds of edge of the diff view. */
enum gv_kind { GV_CORRECT, GV_EXTRA, GV_REVERSED, GV_MISSING, GV_NKINDS };

/* How one kind of edge is drawn. */
struct gv_look {
	const char *color; /* pen colour */
	const char *style; /* Graphviz style */
	const char *width; /* pen width in points */
	const char *arrow; /* arrowhead shape */
	const char *name;  /* what the legend calls it */
};

/* The diff view's looks: Okabe-Ito colours (black, vermillion, orange, blue; reversed edges
 * also have hollow heads, since vermillion and orange look alike on a projector), and for
 * print black lines told apart by style, width and arrowhead. */
static const struct gv_look gv_looks[2][GV_NKINDS] = {
	{ { "#000000", "solid", "1.2", "normal", "black" },
	  { "#D55E00", "solid", "2", "normal", "vermillion" },
	  { "#E69F00", "solid", "2", "empty", "orange, hollow head" },
	  { "#0072B2", "dashed", "2.5", "normal", "blue, dashed" } },
	{ { "#000000", "solid", "1.2", "normal", "thin" },
	  { "#000000", "dotted", "2", "normal", "dotted" },
	  { "#000000", "solid", "2.5", "empty", "thick, hollow head" },
	  { "#000000", "dashed", "2", "normal", "dashed" } },
};

/* Draw e as kind in style. */
static void gv_look_set(Agedge_t *e, enum gv_kind kind, enum fb_export_style style)
{
	const struct gv_look *look = &gv_looks[style == FB_STYLE_PRINT][kind];

	gv_set(e, "color", look->color);
	if (strcmp(look->style, "solid") != 0)
		gv_set(e, "style", look->style);
	gv_set(e, "penwidth", look->width);
	if (strcmp(look->arrow, "normal") != 0)
		gv_set(e, "arrowhead", look->arrow);
}

/* FB_VIEW_DIFF in panel k, the pair {i, j} (i < j): correct, extra, reversed (in the
 * estimated direction), missing (in the true direction); an undirected estimate is drawn
 * without arrowheads, correct over a true edge and extra elsewhere.  Estimated directed edges
 * carry the estimate's weight label. */
static void gv_diff_pair(struct gv_picture *p, size_t k, const fb_graph *est,
                         const fb_graph *truth, size_t i, size_t j, const fb_export_opts *o)
{
	enum fb_edge e = fb_graph_edge(est, i, j), t = fb_graph_edge(truth, i, j);
	size_t et = e == FB_EDGE_BACKWARD ? j : i, eh = et == i ? j : i;
	size_t tt = t == FB_EDGE_BACKWARD ? j : i, th = tt == i ? j : i;
	enum gv_kind kind;
	Agedge_t *edge;

	if (e == FB_EDGE_NONE && t == FB_EDGE_NONE)
		return;
	if (e == FB_EDGE_NONE) {
		edge = gv_picture_edge(p, k, tt, th, false);
		gv_look_set(edge, GV_MISSING, o->style);
		gv_required(edge, o->knowledge, tt, th);
		return;
	}
	if (e == FB_EDGE_UNDIRECTED) {
		edge = gv_picture_edge(p, k, i, j, true);
		gv_look_set(edge, t == FB_EDGE_NONE ? GV_EXTRA : GV_CORRECT, o->style);
		return;
	}
	kind = t == FB_EDGE_NONE ? GV_EXTRA : e == t ? GV_CORRECT : GV_REVERSED;
	edge = gv_picture_edge(p, k, et, eh, false);
	gv_look_set(edge, kind, o->style);
	gv_required(edge, o->knowledge, et, eh);
	if (est->weighted)
		gv_weight_draw(edge, est->w[et * est->d + eh], 0.0, o->weights, false);
}

/* One legend row: the look of kind, named in its colour, and what it means. */
static void gv_legend_row(fb_buf *b, enum gv_kind kind, enum fb_export_style style,
                          const char *meaning, size_t count)
{
	const struct gv_look *look = &gv_looks[style == FB_STYLE_PRINT][kind];

	fb_buf_printf(b, "<tr><td><font color=\"%s\">%s</font></td>"
	              "<td align=\"left\">%s: %zu</td></tr>", look->color, look->name, meaning,
	              count);
}

/* The legend's HTML-like table: the four looks with their counts, what missing arrowheads
 * and (when labels shows them) edge labels mean, then the score in words. */
static char *gv_legend_html(const fb_metrics *m, enum fb_export_style style, bool labels)
{
	fb_buf b = { 0 };
	char text[200];
	fb_score s;

	fb_buf_printf(&b, "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
	              "cellpadding=\"4\"><tr><td colspan=\"2\"><b>estimate against truth</b>"
	              "</td></tr>");
	gv_legend_row(&b, GV_CORRECT, style, "correct", m->tp);
	gv_legend_row(&b, GV_EXTRA, style, "extra", m->extra);
	gv_legend_row(&b, GV_REVERSED, style, "reversed", m->reversed);
	gv_legend_row(&b, GV_MISSING, style, "missing", m->missing);
	fb_score_from_metrics(&s, m);
	fb_buf_printf(&b, "<tr><td colspan=\"2\">no arrowhead: undirected%s</td></tr>"
	              "<tr><td colspan=\"2\">%s</td></tr></table>",
	              labels ? "; labels: estimated weights" : "",
	              fb_score_text(&s, true, text, sizeof text));
	return b.data;
}

/* The scale of pen widths, 1 to 4 points for |w| from 0 to max: "weights as pen widths", or
 * with name (what the weights are) "name: labels and pen widths" when labels are drawn. */
static char *gv_scale_html(double max, const char *name, bool labels)
{
	char *head = name == NULL ? fb_xstrdup("weights as pen widths")
	                          : fb_xasprintf("%s: %s", name, labels ? "labels and pen widths"
	                                                                : "pen widths");
	char *html = fb_xasprintf("<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
	                          "cellpadding=\"4\"><tr><td><b>%s</b></td></tr>"
	                          "<tr><td align=\"left\">1 pt: |w| = 0<br align=\"left\"/>"
	                          "2.5 pt: |w| = %.2f<br align=\"left\"/>4 pt: |w| = %.2f"
	                          "<br align=\"left\"/></td></tr></table>", head, max / 2.0, max);

	free(head);
	return html;
}

/* Add panel k's legend node showing html, pinned provisionally far under the graph (so that
 * no node touches it and edges can be routed as splines; gv_finish moves it under the
 * panel). */
static void gv_legend_add(struct gv_picture *p, size_t k, const char *html)
{
	Agnode_t *n = p->legend[k] = gv_new_node(p->g, "legend");

	gv_set(n, "shape", "plaintext");
	gv_set(n, "fontsize", "10");
	gv_set_html(p->g, n, html);
	gv_pin(n, 0.0, p->park_y0 - 400.0 * (double)(k + 1));
}

/* FB_VIEW_DIFF in panel k: est against truth, with the legend. */
static int gv_diff_draw(struct gv_picture *p, size_t k, const fb_graph *est,
                        const fb_graph *truth, const fb_export_opts *o, fb_error *err)
{
	fb_metrics m;
	char *html;
	size_t i, j;

	if (fb_metrics_compute(est, truth, &m, err) != FB_OK)
		return FB_ERR;
	for (i = 0; i < est->d; i++)
		for (j = i + 1; j < est->d; j++)
			gv_diff_pair(p, k, est, truth, i, j, o);
	html = gv_legend_html(&m, o->style, gv_weight_labels(est, o->weights));
	gv_legend_add(p, k, html);
	free(html);
	return FB_OK;
}

/* The Graphviz arrow of a PAG mark: a circle odot, an arrowhead normal, a tail none. */
static const char *gv_pag_arrow(enum fb_pag_mark m)
{
	return m == FB_PAG_CIRCLE ? "odot" : m == FB_PAG_ARROW ? "normal" : "none";
}

/* The legend of a PAG picture: the three marks and the bidirected edge in words. */
static const char gv_pag_legend[] =
	"<table border=\"0\" cellspacing=\"2\"><tr><td align=\"left\"><b>reading a PAG</b>"
	"</td></tr><tr><td align=\"left\">o  circle: not known (either mark fits the data)"
	"</td></tr><tr><td align=\"left\">&gt;  arrowhead: this end does not cause the other"
	"</td></tr><tr><td align=\"left\">(plain end)  tail: this end causes the other</td>"
	"</tr><tr><td align=\"left\"><font color=\"#D55E00\">dashed &lt;-&gt;: a hidden "
	"common cause</font></td></tr></table>";

/* FB_VIEW_GRAPH of a PAG in panel k: every edge with its two marks, and the legend. */
static void gv_pag_draw(struct gv_picture *p, size_t k, const fb_pag *pag)
{
	for (size_t i = 0; i < pag->d; i++)
		for (size_t j = i + 1; j < pag->d; j++) {
			enum fb_pag_mark mi = fb_pag_mark(pag, j, i), mj = fb_pag_mark(pag, i, j);
			bool bi = mi == FB_PAG_ARROW && mj == FB_PAG_ARROW;
			Agedge_t *e;

			if (mi == FB_PAG_NONE)
				continue;
			e = gv_picture_edge(p, k, i, j, false);
			gv_set(e, "dir", "both");
			gv_set(e, "arrowtail", gv_pag_arrow(mi));
			gv_set(e, "arrowhead", gv_pag_arrow(mj));
			gv_set(e, "color", bi ? "#D55E00" : "black");
			if (bi)
				gv_set(e, "style", "dashed");
		}
	gv_legend_add(p, k, gv_pag_legend);
}

/* Draw g in panel k in view (against truth for the diff view), with its legend. */
static int gv_panel_draw(struct gv_picture *p, size_t k, const fb_graph *g,
                         const fb_graph *truth, enum fb_export_view view,
                         const fb_export_opts *o, fb_error *err)
{
	char *html;

	if (view == FB_VIEW_DIFF)
		return gv_diff_draw(p, k, g, truth, o, err);
	if (o->pag != NULL && p->npanels == 1 && o->pag->d == g->d) {
		gv_pag_draw(p, k, o->pag);
		return FB_OK;
	}
	gv_graph_draw(p, k, g, o->weights, o->knowledge);
	if ((o->weights == FB_WEIGHTS_WIDTH ||
	     (o->weights == FB_WEIGHTS_LABELS && o->weights_name != NULL)) &&
	    g->weighted && gv_max_weight(g) > 0.0) {
		html = gv_scale_html(gv_max_weight(g), o->weights_name,
		                     o->weights == FB_WEIGHTS_LABELS);
		gv_legend_add(p, k, html);
		free(html);
	}
	return FB_OK;
}

/* The title block: title in bold, then each line of caption smaller. */
char *gv_title_html(const char *title, const char *caption)
{
	fb_buf b = { 0 };
	const char *line, *end;

	fb_buf_printf(&b, "<table border=\"0\" cellborder=\"0\" cellspacing=\"0\" "
	              "cellpadding=\"1\">");
	if (title != NULL && title[0] != '\0') {
		fb_buf_printf(&b, "<tr><td><font point-size=\"18\"><b>");
		gv_html_append(&b, title, strlen(title));
		fb_buf_printf(&b, "</b></font></td></tr>");
	}
	for (line = caption; line != NULL && line[0] != '\0'; line = end[0] ? end + 1 : end) {
		end = strchr(line, '\n');
		end = end != NULL ? end : line + strlen(line);
		fb_buf_printf(&b, "<tr><td><font point-size=\"12\">");
		gv_html_append(&b, line, (size_t)(end - line));
		fb_buf_printf(&b, "</font></td></tr>");
	}
	fb_buf_printf(&b, "</table>");
	return b.data;
}

/* Panel k's heading node, pinned provisionally far over the graph and moved over the panel
 * by gv_finish. */
static void gv_heading_add(struct gv_picture *p, size_t k, const char *text)
{
	Agnode_t *n = p->heading[k] = gv_new_node(p->g, "heading");
	fb_buf b = { 0 };

	gv_set(n, "shape", "plaintext");
	fb_buf_printf(&b, "<b>");
	gv_html_append(&b, text, strlen(text));
	fb_buf_printf(&b, "</b>");
	gv_set_html(p->g, n, b.data);
	fb_buf_release(&b);
	gv_pin(n, 0.0, p->park_y1 + 400.0 * (double)(k + 1));
}

/* The picture's title, caption, panel headings, width and resolution (kept for a PNG alone:
 * Graphviz's SVG writer scales the drawing by dpi / 72 but not its viewBox, and a PDF's
 * size in inches does not depend on it). */
static void gv_page_set(struct gv_picture *p, const fb_export_opts *o)
{
	char text[64];
	char *html;

	if ((o->title != NULL && o->title[0] != '\0') || (o->caption != NULL && o->caption[0])) {
		html = gv_title_html(o->title, o->caption);
		gv_set_html(p->g, p->g, html);
		gv_set(p->g, "labelloc", "t");
		free(html);
	}
	for (size_t k = 0; k < p->npanels; k++)
		if (o->panel_title[k] != NULL)
			gv_heading_add(p, k, o->panel_title[k]);
	if (o->width > 0.0) {
		snprintf(text, sizeof text, "%g,%g!", o->width, o->width * 1000.0);
		gv_set(p->g, "size", text);
	}
	p->width = o->width;
	p->dpi = o->dpi > 0.0 ? o->dpi : GV_DEFAULT_DPI;
	gv_set(p->g, "outputorder", "edgesfirst");
}

/* The options in force: opts, or all zero. */
static fb_export_opts gv_opts(const fb_export_opts *opts)
{
	fb_export_opts o = { 0 };

	return opts != NULL ? *opts : o;
}

/* Build the picture of g in view; FB_ERR (nothing left open) on failure. */
static int gv_picture_build(struct gv_picture *p, const fb_graph *g, const fb_graph *truth,
                            enum fb_export_view view, const fb_export_opts *o, fb_error *err)
{
	if (view != FB_VIEW_GRAPH && view != FB_VIEW_DIFF)
		return fb_fail(err, "unknown view '%d'", (int)view);
	if (view == FB_VIEW_DIFF && truth == NULL)
		return fb_fail(err, "the diff view needs a truth graph to compare with");
	if (gv_picture_open(p, g, 1, view == FB_VIEW_DIFF ? "fedbn_diff" : "fedbn", o->layout,
	                    err) != FB_OK)
		return FB_ERR;
	if (gv_panel_draw(p, 0, g, truth, view, o, err) != FB_OK) {
		gv_picture_close(p);
		return FB_ERR;
	}
	gv_page_set(p, o);
	return FB_OK;
}

/* Build the two panels of a compare picture over layout; FB_ERR (nothing left open). */
static int gv_compare_build(struct gv_picture *p, const fb_graph *const g[2],
                            const fb_graph *truth, const fb_export_opts *o, fb_error *err)
{
	if (!fb_graph_same_nodes(g[0], g[1]))
		return fb_fail(err, "the two graphs have different variables");
	if (gv_picture_open(p, g[0], 2, "fedbn_compare", o->layout, err) != FB_OK)
		return FB_ERR;
	for (size_t k = 0; k < 2; k++) {
		bool diff = truth != NULL && g[k] != truth;

		if (gv_panel_draw(p, k, g[k], truth, diff ? FB_VIEW_DIFF : FB_VIEW_GRAPH, o,
		                  err) != FB_OK) {
			gv_picture_close(p);
			return FB_ERR;
		}
	}
	gv_page_set(p, o);
	return FB_OK;
}

/* Append the DOT text of the picture to out. */
static int gv_picture_dot(struct gv_picture *p, fb_buf *out, fb_error *err)
{
	if (agwrite(p->g, out) != 0)
		return fb_fail(err, "graphviz cannot write DOT text: %s", gv_reason("no reason"));
	return FB_OK;
}

/* The process's Graphviz context, created on first use. */
GVC_t *gv_context_get(fb_error *err)
{
	if (gv_context == NULL)
		gv_context = gvContext();
	if (gv_context == NULL)
		fb_fail(err, "graphviz cannot start: %s", gv_reason("no reason"));
	return gv_context;
}

/* Check that g, laid out, drawn width inches wide (0: natural size) at dpi, has at most
 * GV_MAX_PIXELS pixels and GV_MAX_SIDE on a side, as Graphviz sizes it: width inches at
 * its height's share of the bounding box, or the bounding box with a pad of 0.2 inches
 * around; else FB_ERR ending with advice. */
int gv_pixels_check(Agraph_t *g, double width, double dpi, const char *advice, fb_error *err)
{
	double w = GD_bb(g).UR.x - GD_bb(g).LL.x, h = GD_bb(g).UR.y - GD_bb(g).LL.y;
	double pw = (w / 72.0 + 0.4) * dpi, ph = (h / 72.0 + 0.4) * dpi;

	if (width > 0.0 && w > 0.0) {
		pw = width * dpi;
		ph = pw * h / w;
	}

	if (pw * ph <= GV_MAX_PIXELS && pw <= GV_MAX_SIDE && ph <= GV_MAX_SIDE)
		return FB_OK;
	return fb_fail(err, "the picture would be %.0f x %.0f pixels (%.4g x %.4g inches at %g "
	               "dpi), over the limit of %.0f million pixels and %.0f on a side: %s", pw,
	               ph, pw / dpi, ph / dpi, dpi, GV_MAX_PIXELS / 1e6, GV_MAX_SIDE, advice);
}

/* Render the laid-out g in format, appending the bytes to out.  Graphviz's own file writer
 * ends the program on a write error, so the picture is rendered into memory and fedbn
 * writes the file itself. */
int gv_render_data(Agraph_t *g, const char *format, fb_buf *out, fb_error *err)
{
	char *data = NULL;
	unsigned int n = 0;
	int rc = gvRenderData(gv_context, g, format, &data, &n);

	if (rc != 0 || data == NULL) {
		if (data != NULL)
			gvFreeRenderData(data);
		return fb_fail(err, "graphviz cannot render %s: %s", format,
		               gv_reason("no reason"));
	}
	fb_buf_append(out, data, n);
	gvFreeRenderData(data);
	return FB_OK;
}

/* Give the SVG text in svg (from offset from on) the width of width inches, its height in
 * proportion: the root's width and height attributes are set, its viewBox kept, so that the
 * viewer scales the whole drawing (Graphviz's own scaling writes the factor rounded to two
 * digits and its drawing overflows the viewBox by up to half a percent). */
int gv_svg_resize(fb_buf *svg, size_t from, double width, fb_error *err)
{
	char *root = strstr(svg->data + from, "<svg width=\"");
	char *vbox = root != NULL ? strstr(root, "viewBox=\"") : NULL;
	double x0, y0, w, h;
	fb_buf b = { 0 };

	if (vbox == NULL || sscanf(vbox, "viewBox=\"%lf %lf %lf %lf\"", &x0, &y0, &w, &h) != 4 ||
	    w <= 0.0 || h <= 0.0)
		return fb_fail(err, "graphviz wrote an SVG picture without its size");
	fb_buf_append(&b, svg->data, (size_t)(root - svg->data));
	fb_buf_printf(&b, "<svg width=\"%.2fpt\" height=\"%.2fpt\"\n ", width * 72.0,
	              width * 72.0 * h / w);
	fb_buf_append(&b, vbox, svg->len - (size_t)(vbox - svg->data));
	fb_buf_release(svg);
	*svg = b;
	return FB_OK;
}

/* Lay the picture out on its fixed positions (nop: edges routed around the nodes), finish
 * it, and render it in format (a PNG at the picture's dpi, checked against the pixel
 * limits first; an SVG at its natural size, then given its width by gv_svg_resize),
 * appending the bytes to out. */
static int gv_picture_render(struct gv_picture *p, const char *format, fb_buf *out,
                             fb_error *err)
{
	bool png = strcmp(format, "png") == 0, svg = strcmp(format, "svg") == 0;
	size_t from = out->len;
	char dpi[32];
	int rc;

	if (gv_context_get(err) == NULL)
		return FB_ERR;
	snprintf(dpi, sizeof dpi, "%g", p->dpi);
	if (png)
		gv_set(p->g, "dpi", dpi);
	if (svg)
		gv_set(p->g, "size", "");
	if (gvLayout(gv_context, p->g, "nop") != 0)
		return fb_fail(err, "graphviz cannot lay out the graph: %s",
		               gv_reason("no reason"));
	gv_finish(p);
	rc = png ? gv_pixels_check(p->g, p->width, p->dpi, "lower width= or dpi=", err) : FB_OK;
	if (rc == FB_OK)
		rc = gv_render_data(p->g, format, out, err);
	gvFreeLayout(gv_context, p->g);
	if (rc == FB_OK && svg && p->width > 0.0)
		rc = gv_svg_resize(out, from, p->width, err);
	return rc;
}

/* What the drawing process sends before its bytes. */
struct gv_child_head {
	int ok;     /* 1: the picture follows; 0: the reason it failed follows */
	size_t len; /* bytes that follow */
};

/* Write the n bytes of buf to fd; false on a failure. */
static bool gv_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* In the drawing process: run job, send the head and its bytes (or the reason) down fd, and
 * leave without running the parent's exit handlers. */
static void gv_child_main(gv_job_fn *job, void *arg, int fd)
{
	struct gv_child_head h = { 1, 0 };
	fb_error err = { { 0 } };
	fb_buf out = { 0 };
	const char *bytes = "";

	if (job(arg, &out, &err) == FB_OK) {
		h.len = out.len;
		bytes = out.data != NULL ? out.data : "";
	} else {
		h.ok = 0;
		h.len = strlen(err.msg);
		bytes = err.msg;
	}
	_exit(gv_write_all(fd, &h, sizeof h) && gv_write_all(fd, bytes, h.len) ? 0 : 1);
}

/* Read what the drawing process sends on fd into in, asking cancel every tenth of a
 * second; FB_ERR when cancel says stop or the pipe fails. */
static int gv_child_read(int fd, const fb_cancel *cancel, fb_buf *in, fb_error *err)
{
	char chunk[65536], why[128];

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (fb_cancel_requested(cancel))
			return fb_fail(err, FB_CANCELLED_MSG);
		r = poll(&pf, 1, 100);
		if (r == 0 || (r < 0 && errno == EINTR))
			continue;
		r = r < 0 ? -1 : read(fd, chunk, sizeof chunk);
		if (r == 0)
			return FB_OK;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fb_fail(err, "cannot read the drawing: %s",
			               fb_strerror(errno, why, sizeof why));
		fb_buf_append(in, chunk, (size_t)r);
	}
}

/* The picture (appended to out), or the reason, from what the drawing process sent and
 * how it ended. */
static int gv_child_result(const fb_buf *in, int status, fb_buf *out, fb_error *err)
{
	struct gv_child_head h;

	if (in->len < sizeof h)
		return fb_fail(err, "graphviz ended while drawing (%s %d)",
		               WIFSIGNALED(status) ? "signal" : "exit status",
		               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	memcpy(&h, in->data, sizeof h);
	if (in->len - sizeof h != h.len)
		return fb_fail(err, "graphviz ended while drawing");
	if (!h.ok)
		return fb_fail(err, "%.*s", (int)h.len, in->data + sizeof h);
	fb_buf_append(out, in->data + sizeof h, h.len);
	return FB_OK;
}

/* Run job in a child process, appending its bytes to out, so that cancel can stop a long
 * layout (Graphviz has no way to interrupt one) and Graphviz ending its process cannot end
 * the caller's. */
int gv_apart(gv_job_fn *job, void *arg, const fb_cancel *cancel, fb_buf *out, fb_error *err)
{
	fb_buf in = { 0 };
	int fds[2], rc, status = 0;
	char why[128];
	pid_t pid, parent = getpid();

	if (gv_context_get(err) == NULL)
		return FB_ERR;
	if (pipe(fds) != 0)
		return fb_fail(err, "cannot start drawing: %s", fb_strerror(errno, why, sizeof why));
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return fb_fail(err, "cannot start drawing: %s", fb_strerror(errno, why, sizeof why));
	}
	if (pid == 0) {
		fb_child_tie(parent); /* the drawing ends with fedbn */
		close(fds[0]);
		gv_child_main(job, arg, fds[1]);
	}
	close(fds[1]);
	rc = gv_child_read(fds[0], cancel, &in, err);
	close(fds[0]);
	if (rc != FB_OK)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		continue;
	if (rc == FB_OK)
		rc = gv_child_result(&in, status, out, err);
	fb_buf_release(&in);
	return rc;
}

/* What gv_render_job renders: a built picture and the format. */
struct gv_render_job {
	struct gv_picture *p; /* the picture */
	const char *format;   /* the renderer */
};

/* gv_job_fn: render the picture of arg (a struct gv_render_job) into out. */
static int gv_render_job(void *arg, fb_buf *out, fb_error *err)
{
	struct gv_render_job *r = arg;

	return gv_picture_render(r->p, r->format, out, err);
}

/* The bytes of the picture in out: DOT text, or a rendering in renderer (in a child process
 * when the caller can cancel). */
static int gv_picture_bytes(struct gv_picture *p, const char *renderer, const fb_cancel *cancel,
                            fb_buf *out, fb_error *err)
{
	if (renderer == NULL)
		return gv_picture_dot(p, out, err);
	if (cancel != NULL && cancel->fn != NULL) {
		struct gv_render_job r = { p, renderer };

		return gv_apart(gv_render_job, &r, cancel, out, err);
	}
	return gv_picture_render(p, renderer, out, err);
}

/* Write the n bytes of data into the open atomic file, checked. */
static int gv_file_write(fb_atomic_file *af, const char *data, size_t n, fb_error *err)
{
	char why[128];

	if (n > 0 && fwrite(data, 1, n, af->fp) != n)
		return fb_fail(err, "%s", fb_strerror(errno, why, sizeof why));
	return FB_OK;
}

/* Write the n bytes of data to file atomically; on failure err holds the reason, without
 * the file name unless *named is set. */
int gv_bytes_save(const char *file, const char *data, size_t n, fb_error *err, bool *named)
{
	fb_atomic_file af;

	if (fb_atomic_open(&af, file, err) != FB_OK) {
		*named = true;
		return FB_ERR;
	}
	if (gv_file_write(&af, data, n, err) != FB_OK) {
		fb_atomic_abort(&af);
		return FB_ERR;
	}
	if (fb_atomic_commit(&af, err) != FB_OK) {
		*named = true;
		return FB_ERR;
	}
	return FB_OK;
}

/* Render the built picture, write it and commit; on failure err holds the reason without
 * the file name unless *named is set. */
static int export_to_file(struct gv_picture *p, const char *renderer, const char *file,
                          const fb_cancel *cancel, fb_error *err, bool *named)
{
	fb_buf bytes = { 0 };
	int rc;

	rc = gv_picture_bytes(p, renderer, cancel, &bytes, err);
	if (rc == FB_OK && fb_cancel_requested(cancel))
		rc = fb_fail(err, FB_CANCELLED_MSG);
	if (rc == FB_OK)
		rc = gv_bytes_save(file, bytes.data != NULL ? bytes.data : "", bytes.len, err, named);
	fb_buf_release(&bytes);
	return rc;
}

/* What to build: one graph in a view, or two side by side. */
struct export_what {
	const fb_graph *g[2];       /* the graph, and the second panel's or NULL */
	const fb_graph *truth;      /* the truth, or NULL */
	enum fb_export_view view;   /* the view of a single graph */
	const fb_export_opts *opts; /* the options in force */
	const fb_cancel *cancel;    /* asked while rendering, or NULL: never stopped */
};

/* Build the picture of w into p on the options' layout or, without one, on a layout of w's
 * own graphs made into *own (caller frees); FB_ERR (nothing left open) on failure. */
static int export_build(const struct export_what *w, struct gv_picture *p,
                        fb_export_layout **own, fb_error *err)
{
	fb_export_opts o = *w->opts;
	const fb_graph *gs[2] = { w->g[0], w->g[1] != NULL ? w->g[1] : w->truth };
	size_t n = 1;

	if (o.layout == NULL) {
		if (gs[1] != NULL && (w->g[1] != NULL || w->view == FB_VIEW_DIFF) &&
		    fb_graph_same_nodes(gs[0], gs[1]))
			n = 2;
		if ((*own = fb_export_layout_alloc_cancellable(gs, n, w->cancel, err)) == NULL)
			return FB_ERR;
		o.layout = *own;
	}
	if (w->g[1] != NULL)
		return gv_compare_build(p, w->g, w->truth, &o, err);
	return gv_picture_build(p, w->g[0], w->truth, w->view, &o, err);
}

/* Build what, write it to file in the format of its extension, atomically. */
static int export_file(const struct export_what *w, const char *file, fb_error *err)
{
	struct gv_picture p = { 0 };
	struct gv_quiet q;
	const char *renderer = NULL;
	fb_export_layout *own = NULL;
	fb_error inner = { "" };
	bool named = false;
	int rc;

	if (gv_export_format(file, &renderer, err) != FB_OK)
		return FB_ERR;
	gv_quiet_begin(&q);
	rc = export_build(w, &p, &own, &inner);
	if (rc == FB_OK)
		rc = export_to_file(&p, renderer, file, w->cancel, &inner, &named);
	gv_picture_close(&p);
	fb_export_layout_free(own);
	gv_quiet_end(&q);
	if (rc == FB_OK)
		return FB_OK;
	if (named)
		return fb_fail(err, "%s", inner.msg);
	return fb_fail(err, "cannot export '%s': %s", file, inner.msg);
}

/* Write g to file in the format of its extension, atomically. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const fb_export_opts *opts, const char *file, fb_error *err)
{
	return fb_export_graph_cancellable(g, truth, view, opts, file, NULL, err);
}

/* fb_export_graph that cancel can stop. */
int fb_export_graph_cancellable(const fb_graph *g, const fb_graph *truth,
                                enum fb_export_view view, const fb_export_opts *opts,
                                const char *file, const fb_cancel *cancel, fb_error *err)
{
	fb_export_opts o = gv_opts(opts);
	struct export_what w = { { g, NULL }, truth, view, &o, cancel };

	return export_file(&w, file, err);
}

/* Write g[0] and g[1] side by side on one layout. */
int fb_export_compare(const fb_graph *const g[2], const fb_graph *truth,
                      const fb_export_opts *opts, const char *file, fb_error *err)
{
	return fb_export_compare_cancellable(g, truth, opts, file, NULL, err);
}

/* fb_export_compare that cancel can stop. */
int fb_export_compare_cancellable(const fb_graph *const g[2], const fb_graph *truth,
                                  const fb_export_opts *opts, const char *file,
                                  const fb_cancel *cancel, fb_error *err)
{
	fb_export_opts o = gv_opts(opts);
	struct export_what w = { { g[0], g[1] }, truth, FB_VIEW_GRAPH, &o, cancel };

	return export_file(&w, file, err);
}

/* The DOT text of the picture of g (caller frees). */
char *fb_export_dot_string(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                           const fb_export_opts *opts, fb_error *err)
{
	fb_export_opts o = gv_opts(opts);
	struct export_what w = { { g, NULL }, truth, view, &o, NULL };
	struct gv_quiet q;
	struct gv_picture p = { 0 };
	fb_export_layout *own = NULL;
	fb_buf text = { 0 };

	gv_quiet_begin(&q);
	if (export_build(&w, &p, &own, err) == FB_OK) {
		if (gv_picture_dot(&p, &text, err) != FB_OK)
			fb_buf_release(&text);
		gv_picture_close(&p);
	}
	fb_export_layout_free(own);
	gv_quiet_end(&q);
	return text.data;
}
