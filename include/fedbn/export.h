/* Graph pictures through Graphviz (libcgraph + libgvc, in-process). */
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

/* Write g to path; the format follows the extension: .dot, .gv, .png, .svg.  For
 * FB_VIEW_DIFF, truth must be given (same nodes).  The write is atomic. */
int fb_export_graph(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                    const char *path, fb_error *err);

/* The DOT text of the picture fb_export_graph would draw (caller frees). */
char *fb_export_dot_string(const fb_graph *g, const fb_graph *truth, enum fb_export_view view,
                           fb_error *err);

#endif
