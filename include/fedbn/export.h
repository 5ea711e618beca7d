/* Graph pictures through Graphviz (libcgraph + libgvc, in-process: no dot subprocess).
 *
 * Not thread-safe: Graphviz keeps global state (its error hooks, and one layout context that
 * this module creates on first use and keeps), so call these functions from one thread at a
 * time.  Graphviz's own messages never reach stderr; a failure reports them in err. */
#ifndef FEDBN_EXPORT_H
#define FEDBN_EXPORT_H

#include "fedbn/core.h"
#include "fedbn/graph.h"

/* What to draw. */
enum fb_export_view {
	FB_VIEW_GRAPH = 0, /* the graph itself: names as labels, weights as labels and pen widths */
	FB_VIEW_DIFF,      /* the graph against the truth: correct plain, extra red, reversed
	                      orange, missing dashed grey, with a legend */
};

/* Write g to path; the format follows the extension, in any case: .dot and .gv write the
 * DOT text of fb_export_dot_string (no layout), .png and .svg are laid out with dot and
 * rendered.  Any other extension fails naming the file and the formats.  FB_VIEW_GRAPH
 * ignores truth; FB_VIEW_DIFF needs a truth with the same nodes and no undirected edge, and
 * adds a legend node with the counts of fb_metrics_compute.  Variable names must be
 * distinct.  The write is atomic: on any failure path is left as it was. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const char *path, fb_error *err);
/* fb_export_graph that cancel can stop (FB_CANCELLED_MSG in err, path left as it was): a
 * .png or .svg is then laid out and rendered in a child process, which is killed when cancel
 * says stop, since Graphviz cannot interrupt a layout. */
int fb_export_graph_cancellable(const fb_graph *g, const fb_graph *truth,
                                enum fb_export_view view, const char *path,
                                const fb_cancel *cancel, fb_error *err);

/* The DOT text of the picture fb_export_graph would draw, NUL-terminated (caller frees with
 * free); NULL with the reason in err.  Nodes are named after the variables and carry them as
 * labels; edges carry color (black, red, orange, grey), style=dashed (missing), dir=none
 * (undirected), and, for a weighted graph in FB_VIEW_GRAPH, label "%.2f" and penwidth
 * 1 + 3 |w| / max |w|. */
char *fb_export_dot_string(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                           fb_error *err);

#endif
