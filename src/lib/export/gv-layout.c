/* The layout every picture of one dataset shares: the union of its graphs laid out once by
 * dot (sfdp above 100 variables) on the variables with an edge, the lone ones in a grid
 * beside them, the whole kept at most twice as wide as high. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gv-int.h"

/* The edges of the union of gs[0..n) into layout graph lg over nodes: each adjacent pair
 * once, in the direction of the first graph that has it directed. */
static void gv_layout_edges(Agraph_t *lg, Agnode_t **nodes, const fb_graph *const *gs,
                            size_t n)
{
	size_t d = gs[0]->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			enum fb_edge rel = FB_EDGE_NONE;

			for (size_t k = 0; k < n && (rel == FB_EDGE_NONE || rel == FB_EDGE_UNDIRECTED);
			     k++)
				if (fb_graph_edge(gs[k], i, j) != FB_EDGE_NONE)
					rel = fb_graph_edge(gs[k], i, j);
			if (rel == FB_EDGE_BACKWARD)
				agedge(lg, nodes[j], nodes[i], NULL, 1);
			else if (rel != FB_EDGE_NONE)
				agedge(lg, nodes[i], nodes[j], NULL, 1);
		}
}

/* Whether n has one edge in all. */
static bool gv_is_leaf(Agraph_t *lg, Agnode_t *n)
{
	return agdegree(lg, n, 1, 1) == 1;
}

/* Whether n has one edge in and one out. */
static bool gv_is_chain(Agraph_t *lg, Agnode_t *n)
{
	return agdegree(lg, n, 1, 0) == 1 && agdegree(lg, n, 0, 1) == 1;
}

/* Stagger the ranks of the leaves around each node (edge lengths 1, 2, 3 in turn) so that
 * a node with many leaf parents or children spreads them over three rows instead of one
 * long row: the drawing gets taller and narrower. */
static void gv_layout_stagger(Agraph_t *lg)
{
	char len[8];

	for (Agnode_t *n = agfstnode(lg); n != NULL; n = agnxtnode(lg, n)) {
		int in = 0, out = 0;

		if (agdegree(lg, n, 1, 1) < 2)
			continue;
		for (Agedge_t *e = agfstin(lg, n); e != NULL; e = agnxtin(lg, e))
			if (gv_is_leaf(lg, agtail(e))) {
				snprintf(len, sizeof len, "%d", in++ % 3 + 1);
				gv_set(e, "minlen", len);
			}
		for (Agedge_t *e = agfstout(lg, n); e != NULL; e = agnxtout(lg, e))
			if (gv_is_leaf(lg, aghead(e)) || gv_is_chain(lg, aghead(e))) {
				snprintf(len, sizeof len, "%d", out++ % 3 + 1);
				gv_set(e, "minlen", len);
			}
	}
}

/* Height of a grid cell of the lone nodes, in points. */
#define GV_LONE_CELL_H 40.0

/* Extents in points of the nodes a layout has placed. */
struct gv_extent {
	double x0, y0, x1, y1; /* lower-left and upper-right corners */
};

/* The extent of the laid-out nodes (nodes[i] NULL for a lone variable); all zero when none. */
static struct gv_extent gv_layout_extent(Agnode_t **nodes, size_t d)
{
	struct gv_extent e = { HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL };

	for (size_t i = 0; i < d; i++)
		if (nodes[i] != NULL) {
			e.x0 = fmin(e.x0, ND_coord(nodes[i]).x - 36.0 * ND_width(nodes[i]));
			e.x1 = fmax(e.x1, ND_coord(nodes[i]).x + 36.0 * ND_width(nodes[i]));
			e.y0 = fmin(e.y0, ND_coord(nodes[i]).y - 36.0 * ND_height(nodes[i]));
			e.y1 = fmax(e.y1, ND_coord(nodes[i]).y + 36.0 * ND_height(nodes[i]));
		}
	if (e.x0 > e.x1)
		memset(&e, 0, sizeof e);
	return e;
}

/* Width of a grid cell of the lone variables of g: room for the longest name. */
static double gv_lone_cell_w(Agnode_t **nodes, const fb_graph *g)
{
	double w = 54.0;

	for (size_t i = 0; i < g->d; i++)
		if (nodes[i] == NULL)
			w = fmax(w, 8.5 * (double)strlen(g->names[i]) + 20.0);
	return w;
}

/* Rows of the lone nodes' grid beside a drawing of height h (all in one square block when
 * there is no drawing). */
static size_t gv_lone_rows(size_t lone, double h)
{
	size_t rows = h > 0.0 ? (size_t)(h / GV_LONE_CELL_H) : (size_t)ceil(sqrt((double)lone));

	return rows > 0 ? rows : 1;
}

/* How much to stretch the drawing e upwards so that it and the lone nodes' grid beside it are
 * at most twice as wide as high (1: no stretch). */
static double gv_layout_stretch(const struct gv_extent *e, size_t lone, double cell_w)
{
	double h = e->y1 - e->y0, w, stretch = 1.0;

	for (int k = 0; k < 8 && h > 0.0; k++) {
		size_t rows = gv_lone_rows(lone, h * stretch);
		size_t cols = lone > 0 ? (lone + rows - 1) / rows : 0;

		w = e->x1 - e->x0 + (cols > 0 ? 24.0 + (double)cols * cell_w : 0.0);
		if (w <= 2.0 * h * stretch)
			break;
		stretch = w / (2.0 * h);
	}
	return stretch;
}

/* The laid-out nodes' centres into l, stretched upwards when the picture would be more than
 * twice as wide as high; the lone variables (nodes[i] NULL) in a grid on the right, filled
 * column by column from the top. */
static void gv_layout_place(fb_export_layout *l, Agnode_t **nodes, const fb_graph *g)
{
	struct gv_extent e = gv_layout_extent(nodes, g->d);
	size_t lone = 0, k = 0, rows;
	double cell_w = gv_lone_cell_w(nodes, g), stretch;

	for (size_t i = 0; i < g->d; i++)
		lone += nodes[i] == NULL;
	stretch = gv_layout_stretch(&e, lone, cell_w);
	rows = gv_lone_rows(lone, (e.y1 - e.y0) * stretch);
	for (size_t i = 0; i < g->d; i++) {
		if (nodes[i] != NULL) {
			l->x[i] = ND_coord(nodes[i]).x;
			l->y[i] = e.y0 + (ND_coord(nodes[i]).y - e.y0) * stretch;
			continue;
		}
		l->x[i] = e.x1 + (e.x1 > e.x0 ? 24.0 : 0.0) + ((double)(k / rows) + 0.5) * cell_w;
		l->y[i] = e.y0 + (e.y1 - e.y0) * stretch - ((double)(k % rows) + 0.5) * GV_LONE_CELL_H;
		k++;
	}
}

/* A layout over g's variables, every position 0 (caller frees). */
static fb_export_layout *gv_layout_new(const fb_graph *g)
{
	fb_export_layout *l = fb_xcalloc(1, sizeof *l);

	l->d = g->d;
	l->names = fb_xcalloc(g->d > 0 ? g->d : 1, sizeof *l->names);
	l->x = fb_xcalloc(g->d > 0 ? g->d : 1, sizeof *l->x);
	l->y = fb_xcalloc(g->d > 0 ? g->d : 1, sizeof *l->y);
	for (size_t i = 0; i < g->d; i++)
		l->names[i] = fb_xstrdup(g->names[i]);
	return l;
}

/* A new layout over g's variables from the laid-out nodes (NULL: lone variables). */
static fb_export_layout *gv_layout_read(Agnode_t **nodes, const fb_graph *g)
{
	fb_export_layout *l = gv_layout_new(g);

	gv_layout_place(l, nodes, g);
	return l;
}

/* Whether variable i has an edge in any of gs[0..n). */
static bool gv_joined(const fb_graph *const *gs, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < gs[k]->d; j++)
			if (fb_graph_adjacent(gs[k], i, j))
				return true;
	return false;
}

/* Build the layout graph of gs[0..n) into lg: one node per variable with an edge in nodes
 * (NULL for the lone ones, which gv_layout_read puts in a grid); FB_ERR when two variables
 * share a name. */
static int gv_layout_graph(Agraph_t *lg, Agnode_t **nodes, const fb_graph *const *gs,
                           size_t n, fb_error *err)
{
	const fb_graph *g = gs[0];

	for (size_t i = 0; i < g->d; i++) {
		char *label;

		for (size_t j = 0; j < i; j++)
			if (strcmp(g->names[i], g->names[j]) == 0)
				return fb_fail(err, "variable name '%s' appears twice", g->names[i]);
		if (!gv_joined(gs, n, i))
			continue;
		nodes[i] = agnode(lg, g->names[i], 1);
		label = gv_label_escape(g->names[i]);
		gv_set(nodes[i], "label", label);
		free(label);
	}
	gv_layout_edges(lg, nodes, gs, n);
	gv_layout_stagger(lg);
	gv_set(lg, "pack", "16");
	gv_set(lg, "packmode", "array_t");
	if (g->d > 100) {
		gv_set(lg, "overlap", "prism");
		gv_set(lg, "sep", "+16");
	}
	return FB_OK;
}

/* Lay out the union of gs[0..n) once, for every picture of its variables. */
fb_export_layout *fb_export_layout_alloc(const fb_graph *const *gs, size_t n, fb_error *err)
{
	fb_export_layout *l = NULL;
	Agnode_t **nodes;
	Agraph_t *lg;
	struct gv_quiet q;

	for (size_t k = 1; k < n; k++)
		if (!fb_graph_same_nodes(gs[0], gs[k])) {
			fb_fail(err, "cannot lay out graphs over different variables");
			return NULL;
		}
	nodes = fb_xcalloc(gs[0]->d > 0 ? gs[0]->d : 1, sizeof *nodes);
	gv_quiet_begin(&q);
	if ((lg = gv_graph_open("fedbn_layout")) == NULL)
		fb_fail(err, "graphviz cannot create a graph: %s", gv_reason("no reason"));
	else if (gv_layout_graph(lg, nodes, gs, n, err) == FB_OK && gv_context_get(err) != NULL) {
		if (gvLayout(gv_context_get(err), lg, gs[0]->d > 100 ? "sfdp" : "dot") != 0)
			fb_fail(err, "graphviz cannot lay out the graph: %s", gv_reason("no reason"));
		else
			l = gv_layout_read(nodes, gs[0]);
		gvFreeLayout(gv_context_get(err), lg);
	}
	if (lg != NULL)
		agclose(lg);
	gv_quiet_end(&q);
	free(nodes);
	return l;
}

/* What gv_layout_job lays out: the graphs to unite. */
struct gv_layout_job {
	const fb_graph *const *gs; /* the graphs */
	size_t n;                  /* how many */
};

/* gv_job_fn: lay out the graphs of arg (a struct gv_layout_job) and append the x then the y
 * coordinates of their d variables to out, as doubles. */
static int gv_layout_job(void *arg, fb_buf *out, fb_error *err)
{
	struct gv_layout_job *job = arg;
	fb_export_layout *l = fb_export_layout_alloc(job->gs, job->n, err);

	if (l == NULL)
		return FB_ERR;
	fb_buf_append(out, (const char *)l->x, l->d * sizeof *l->x);
	fb_buf_append(out, (const char *)l->y, l->d * sizeof *l->y);
	fb_export_layout_free(l);
	return FB_OK;
}

/* fb_export_layout_alloc that cancel can stop: the layout is made in a child process. */
fb_export_layout *fb_export_layout_alloc_cancellable(const fb_graph *const *gs, size_t n,
                                                     const fb_cancel *cancel, fb_error *err)
{
	struct gv_layout_job job = { gs, n };
	fb_export_layout *l;
	fb_buf xy = { 0 };
	size_t d = gs[0]->d;

	if (cancel == NULL || cancel->fn == NULL)
		return fb_export_layout_alloc(gs, n, err);
	if (gv_apart(gv_layout_job, &job, cancel, &xy, err) != FB_OK) {
		fb_buf_release(&xy);
		return NULL;
	}
	if (xy.len != 2 * d * sizeof(double)) {
		fb_buf_release(&xy);
		fb_fail(err, "graphviz ended while laying the graph out");
		return NULL;
	}
	l = gv_layout_new(gs[0]);
	memcpy(l->x, xy.data, d * sizeof *l->x);
	memcpy(l->y, xy.data + d * sizeof *l->x, d * sizeof *l->y);
	fb_buf_release(&xy);
	return l;
}

/* Free a layout. */
void fb_export_layout_free(fb_export_layout *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->d; i++)
		free(l->names[i]);
	free(l->names);
	free(l->x);
	free(l->y);
	free(l);
}
