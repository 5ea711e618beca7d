/* Graph pictures through Graphviz (libcgraph + libgvc, in-process: no dot subprocess).
 *
 * Not thread-safe: Graphviz keeps global state (its error hooks, and one layout context that
 * this module creates on first use and keeps), so call these functions from one thread at a
 * time.  Graphviz's own messages never reach stderr; a failure reports them in err. */
#ifndef FEDBN_EXPORT_H
#define FEDBN_EXPORT_H

#include "fedbn/core.h"
#include "fedbn/circuit.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/pag.h"

/* What to draw. */
enum fb_export_view {
	FB_VIEW_GRAPH = 0, /* the graph itself: names as labels, weights as labels and pen widths */
	FB_VIEW_DIFF,      /* the graph against the truth: correct black, extra vermillion,
	                      reversed orange with hollow heads, missing blue and dashed
	                      (Okabe-Ito colours), with a legend */
};

/* How edge weights are shown. */
enum fb_export_weights {
	FB_WEIGHTS_LABELS = 0, /* a "%.2f" label beside each weighted edge, and pen width by |w| */
	FB_WEIGHTS_WIDTH,      /* pen width by |w| only, with the scale in the legend */
	FB_WEIGHTS_NONE,       /* neither */
};

/* How the diff view tells edges apart. */
enum fb_export_style {
	FB_STYLE_COLOR = 0, /* Okabe-Ito colours (safe for the common colour blindnesses) */
	FB_STYLE_PRINT,     /* black only: solid, dotted, bold with hollow arrowheads, dashed */
};

/* Node positions computed once and reused by every picture of one dataset, so that the same
 * variable is always in the same place. */
typedef struct fb_export_layout {
	size_t d;      /* variables */
	char **names;  /* their names, in the graph's order (owned) */
	double *x, *y; /* their centres in points (owned) */
} fb_export_layout;

/* Lay out the union of graphs[0..n) (n >= 1, same variables) once: dot for d <= 100, sfdp
 * beyond, on the variables with an edge (leaves staggered over three ranks, components packed
 * in an array), the lone variables in a grid on the right, and the whole stretched upwards
 * when it would be more than twice as wide as high.  Caller frees
 * with fb_export_layout_free; NULL with the reason. */
fb_export_layout *fb_export_layout_alloc(const fb_graph *const *graphs, size_t n,
                                         fb_error *err);
/* fb_export_layout_alloc that cancel can stop (NULL with FB_CANCELLED_MSG in err): with a
 * cancel callback the layout is made in a child process, which is killed when cancel says
 * stop, since Graphviz cannot interrupt a layout; the positions are the same either way. */
fb_export_layout *fb_export_layout_alloc_cancellable(const fb_graph *const *gs, size_t n,
                                                     const fb_cancel *cancel, fb_error *err);
/* Free a layout (NULL is fine). */
void fb_export_layout_free(fb_export_layout *l);

/* Everything about a picture beyond the graphs: all zero is a plain picture laid out alone. */
typedef struct fb_export_opts {
	const fb_export_layout *layout; /* fixed node positions (same variables), or NULL: a
	                                   layout of this picture's own graphs, made now */
	const char *title;              /* the line above the picture, or NULL */
	const char *caption;            /* smaller lines under the title ('\n' between), or NULL */
	const char *panel_title[2];     /* compare: each panel's title, or NULL */
	enum fb_export_weights weights; /* how weights are shown */
	const char *weights_name;       /* FB_VIEW_GRAPH of a weighted graph: what its weights
	                                   are ("bootstrap strength"), named in a legend with
	                                   the pen widths' scale, labels or not; or NULL: only
	                                   FB_WEIGHTS_WIDTH has that legend, "weights" */
	enum fb_export_style style;     /* colours or line styles */
	double width;                   /* picture width in inches (0: natural size) */
	double dpi;                     /* pixels per inch of PNG (0: 96); SVG and PDF are in
	                                   points (72 an inch) whatever it is */
	const fb_pag *pag;              /* FB_VIEW_GRAPH of one graph: draw this PAG's marks
	                                   (over g's nodes, g its fb_pag_to_graph) with their
	                                   legend: each edge dir=both, a circle arrowtail or
	                                   arrowhead odot, an arrowhead normal, a tail none; <->
	                                   dashed vermillion; or NULL */
	const fb_knowledge *knowledge;  /* the run's background knowledge, or NULL: the arcs it
	                                   requires are drawn as double lines (in the graph
	                                   view, and in the diff view in whatever colour their
	                                   kind takes) */
} fb_export_opts;

/* Write g to path; the format follows the extension, in any case: .dot and .gv write the
 * DOT text of fb_export_dot_string (node positions pinned, edges not routed), .png, .svg and
 * .pdf are routed on the pinned positions (Graphviz's nop), their labels placed, and
 * rendered: an SVG's width and height are its viewBox's (or, with a width, that width in
 * points and the height in proportion), so that a browser shows it whole; a PNG of more
 * than 100 million pixels or 30000 on a side fails before it is drawn, naming width= and
 * dpi=.  Any other extension fails naming the file and the formats.  FB_VIEW_GRAPH ignores
 * truth; FB_VIEW_DIFF needs a truth with the same nodes and no undirected edge, and adds a
 * legend node with the counts of fb_metrics_compute.  Variable names must be distinct.  opts
 * may be NULL (all zero).  The write is atomic: on any failure path is left as it was. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const fb_export_opts *opts, const char *path, fb_error *err);
/* FB_OK when path's extension names a format the pictures are written in (.dot, .gv, .png,
 * .svg, .pdf), else FB_ERR naming the file and the formats: a check before any work. */
int fb_export_format_check(const char *path, fb_error *err);

/* Write two graphs side by side in one picture (panel 0 left, panel 1 right), the diff view
 * against truth when truth is given and the panel is not the truth itself, else the graph
 * view, with the same node positions: opts->layout, or one layout of the union of both. */
int fb_export_compare(const fb_graph *const g[2], const fb_graph *truth,
                      const fb_export_opts *opts, const char *path, fb_error *err);
/* fb_export_compare that cancel can stop, as fb_export_graph_cancellable. */
int fb_export_compare_cancellable(const fb_graph *const g[2], const fb_graph *truth,
                                  const fb_export_opts *opts, const char *path,
                                  const fb_cancel *cancel, fb_error *err);

/* fb_export_graph that cancel can stop (FB_CANCELLED_MSG in err, path left as it was): a
 * .png, .svg or .pdf is then laid out and rendered in a child process, which is killed when
 * cancel says stop, since Graphviz cannot interrupt a layout. */
int fb_export_graph_cancellable(const fb_graph *g, const fb_graph *truth,
                                enum fb_export_view view, const fb_export_opts *opts,
                                const char *path, const fb_cancel *cancel, fb_error *err);

/* The DOT text of the picture fb_export_graph would draw, NUL-terminated (caller frees with
 * free); NULL with the reason in err.  Nodes are named after the variables and carry them as
 * labels, both as Graphviz escape strings (each backslash doubled, each newline \n, so that
 * Graphviz reads every name back intact), and pos "x,y!" in points; edges carry color,
 * style, penwidth, arrowhead (empty: reversed), dir=none (undirected), and, for a weighted
 * graph with FB_WEIGHTS_LABELS, label "%.2f"; pen widths are 1 + 3 |w| / max |w| unless
 * FB_WEIGHTS_NONE. */
char *fb_export_dot_string(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                           const fb_export_opts *opts, fb_error *err);

/* The widest circuit picture drawn without a width (inches: 1584 pixels at 96 dpi). */
#define FB_EXPORT_CIRCUIT_WIDTH 16.5

/* Draw circuit c (over the variables of ds, which name them and their values) to file in
 * the format of its extension (.dot, .gv, .png, .svg, .pdf), atomically, laid out top down:
 * sums as circles (+), products as boxes (x), leaves as ellipses saying their variable and
 * distribution ("lung: p(yes) = 0.06" of a two-valued variable's positive value, the rarer
 * in ds's training rows, as classify takes it; the likeliest value's of more; "= v" for a
 * single value; "age: N(45.2, sd 3.1)"; a continuous histogram's bins and support), the
 * two or more leaves of a product drawn as one box of rows, each filled with the colour of
 * its machine (the server white, client k the k-th Okabe-Ito colour), sum edges labelled
 * with their weights.  depth > 0 draws the nodes at most depth edges below the root and
 * folds each inner node at that depth into one node counting what is below it.  On top:
 * o's title and caption (either may be NULL) and a legend of the shapes and the machines'
 * colours.  o's width (inches, 0: the natural size but at most 16.5 inches, 1584 pixels at
 * 96 dpi) and dpi (a PNG's) size it; o may be NULL.  natural (may be NULL) receives the
 * drawing's width in inches before it was scaled (0 for DOT text).  FB_ERR naming the
 * file. */
int fb_export_circuit(const fb_circuit *c, const fb_dataset *ds, size_t depth,
                      const fb_export_opts *o, const char *file, double *natural,
                      fb_error *err);

#endif
