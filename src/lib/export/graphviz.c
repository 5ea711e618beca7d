/* Graph pictures through Graphviz, in-process: the picture is built with cgraph, written as
 * DOT with agwrite, or laid out with dot and rendered with libgvc.  Graphviz's messages are
 * captured (agseterrf) so that nothing reaches stderr; a failure reports them in err. */
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

/* The Graphviz context, created on first use; NULL with err set when it cannot start. */
static GVC_t *gv_context_get(fb_error *err)
{
	if (gv_context == NULL)
		gv_context = gvContext();
	if (gv_context == NULL)
		fb_fail(err, "graphviz cannot start: %s", gv_reason("no reason"));
	return gv_context;
}

/* Lay the picture out with dot and render it in format, appending the bytes to out.
 * Graphviz's own file writer ends the program on a write error, so the picture is rendered
 * into memory and fedbn writes the file itself. */
static int gv_picture_render(struct gv_picture *p, const char *format, fb_buf *out,
                             fb_error *err)
{
	char *data = NULL;
	unsigned int n = 0;
	int rc;

	if (gv_context_get(err) == NULL)
		return FB_ERR;
	if (gvLayout(gv_context, p->g, "dot") != 0)
		return fb_fail(err, "graphviz cannot lay out the graph: %s",
		               gv_reason("no reason"));
	rc = gvRenderData(gv_context, p->g, format, &data, &n);
	gvFreeLayout(gv_context, p->g);
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

/* In the drawing process: render, send the head and the picture (or the reason) down fd, and
 * leave without running the parent's exit handlers. */
static void gv_child_main(struct gv_picture *p, const char *format, int fd)
{
	struct gv_child_head h = { 1, 0 };
	fb_error err = { { 0 } };
	fb_buf out = { 0 };
	const char *bytes = "";

	if (gv_picture_render(p, format, &out, &err) == FB_OK) {
		h.len = out.len;
		bytes = out.data;
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

/* gv_picture_render in a child process, so that cancel can stop a long layout (Graphviz
 * has no way to interrupt one) and Graphviz ending its process cannot end the caller's. */
static int gv_picture_render_apart(struct gv_picture *p, const char *format,
                                   const fb_cancel *cancel, fb_buf *out, fb_error *err)
{
	fb_buf in = { 0 };
	int fds[2], rc, status = 0;
	char why[128];
	pid_t pid;

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
		close(fds[0]);
		gv_child_main(p, format, fds[1]);
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

/* The bytes of the picture in out: DOT text, or a rendering in renderer (in a child process
 * when the caller can cancel). */
static int gv_picture_bytes(struct gv_picture *p, const char *renderer, const fb_cancel *cancel,
                            fb_buf *out, fb_error *err)
{
	if (renderer == NULL)
		return gv_picture_dot(p, out, err);
	if (cancel != NULL && cancel->fn != NULL)
		return gv_picture_render_apart(p, renderer, cancel, out, err);
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

/* Build, render, write and commit; on failure err holds the reason without the file name
 * unless *named is set. */
static int export_to_file(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                          const char *renderer, const char *file, const fb_cancel *cancel,
                          fb_error *err, bool *named)
{
	struct gv_picture p = { 0 };
	fb_buf bytes = { 0 };
	fb_atomic_file af;
	int rc;

	if (gv_picture_build(&p, g, truth, view, err) != FB_OK)
		return FB_ERR;
	rc = gv_picture_bytes(&p, renderer, cancel, &bytes, err);
	gv_picture_close(&p);
	if (rc == FB_OK && fb_cancel_requested(cancel))
		rc = fb_fail(err, FB_CANCELLED_MSG);
	if (rc == FB_OK && (rc = fb_atomic_open(&af, file, err)) != FB_OK) {
		*named = true;
	} else if (rc == FB_OK && gv_file_write(&af, bytes.data, bytes.len, err) != FB_OK) {
		fb_atomic_abort(&af);
		rc = FB_ERR;
	} else if (rc == FB_OK && (rc = fb_atomic_commit(&af, err)) != FB_OK) {
		*named = true;
	}
	fb_buf_release(&bytes);
	return rc;
}

/* Write g to file in the format of its extension, atomically. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const char *file, fb_error *err)
{
	return fb_export_graph_cancellable(g, truth, view, file, NULL, err);
}

/* fb_export_graph that cancel can stop. */
int fb_export_graph_cancellable(const fb_graph *g, const fb_graph *truth,
                                enum fb_export_view view, const char *file,
                                const fb_cancel *cancel, fb_error *err)
{
	struct gv_quiet q;
	const char *renderer = NULL;
	fb_error inner = { "" };
	bool named = false;
	int rc;

	if (export_format(file, &renderer, err) != FB_OK)
		return FB_ERR;
	gv_quiet_begin(&q);
	rc = export_to_file(g, truth, view, renderer, file, cancel, &inner, &named);
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
