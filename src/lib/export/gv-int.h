/* What the Graphviz export files share: the picture being built and its finishing. */
#ifndef FEDBN_EXPORT_GV_INT_H
#define FEDBN_EXPORT_GV_INT_H

#include <stdbool.h>

#include <gvc.h>
#include <cgraph.h>

#include "fedbn/export.h"

/* Most pixels of a PNG picture, and most on one side (cairo's bitmaps end at 32767). */
#define GV_MAX_PIXELS 100e6
#define GV_MAX_SIDE 30000.0

/* Pixels per inch of a PNG when none is asked for. */
#define GV_DEFAULT_DPI 96.0

/* Point size of the weight labels (the label placer's boxes follow it). */
#define GV_EDGE_FONTSIZE 10.0

/* A picture being built: the cgraph graph, its nodes per panel, and its extra nodes. */
struct gv_picture {
	Agraph_t *g;          /* the graph, opened with the in-memory discipline; NULL once closed */
	size_t d;             /* variables per panel */
	size_t npanels;       /* 1, or 2 side by side */
	Agnode_t **nodes;     /* npanels * d nodes: nodes[k * d + i] draws variable i in panel k */
	Agnode_t *legend[2];  /* each panel's legend node, or NULL */
	Agnode_t *heading[2]; /* each panel's title node, or NULL */
	double park_y0;       /* legends wait below this height until gv_finish places them */
	double park_y1;       /* headings wait above this height until gv_finish places them */
	double width;         /* the width asked for in inches (0: natural size) */
	double dpi;           /* pixels per inch of a PNG */
};

/* Graphviz's error settings saved by gv_quiet_begin. */
struct gv_quiet {
	agusererrf fn;      /* the previous message function */
	agerrlevel_t level; /* the previous reporting level */
};

/* Route Graphviz's messages into a buffer (for gv_reason) until gv_quiet_end. */
void gv_quiet_begin(struct gv_quiet *q);
/* Restore Graphviz's previous message settings. */
void gv_quiet_end(const struct gv_quiet *q);
/* Open an empty directed graph with the module's disciplines and drawing defaults; NULL when
 * Graphviz cannot. */
Agraph_t *gv_graph_open(const char *name);
/* A copy of name as a Graphviz escape string, each backslash doubled and each newline
 * written \n, so that it is read back and drawn as itself (caller frees). */
char *gv_label_escape(const char *name);
/* Append the n bytes of text to b with &, <, > and " written as HTML entities. */
void gv_html_append(fb_buf *b, const char *text, size_t n);
/* Set obj's label (obj in g) to the HTML-like label html. */
void gv_set_html(Agraph_t *g, void *obj, const char *html);
/* The title block as an HTML-like table: title (may be NULL) in bold, then each line of
 * caption (may be NULL; '\n' between lines) smaller (caller frees). */
char *gv_title_html(const char *title, const char *caption);
/* Give the SVG text in svg (from offset from on) the width of width inches, its height in
 * proportion, its viewBox kept; FB_ERR when the SVG has no viewBox. */
int gv_svg_resize(fb_buf *svg, size_t from, double width, fb_error *err);
/* Set attribute name of obj to value, declaring it (default "") when new. */
void gv_set(void *obj, const char *name, const char *value);
/* The gathered Graphviz messages on one line, or fallback when there are none. */
const char *gv_reason(const char *fallback);
/* The process's Graphviz context, created on first use; NULL with the reason in err. */
GVC_t *gv_context_get(fb_error *err);

/* A piece of work for gv_apart: append its result to out, or fail with the reason in err. */
typedef int gv_job_fn(void *arg, fb_buf *out, fb_error *err);
/* Run job in a child process and append what it produced to out, asking cancel every tenth
 * of a second; when cancel says stop the child is killed and FB_CANCELLED_MSG is in err. */
int gv_apart(gv_job_fn *job, void *arg, const fb_cancel *cancel, fb_buf *out, fb_error *err);

/* Check that g, laid out, drawn width inches wide (0: its natural size) at dpi, stays
 * within the pixels a PNG may have (GV_MAX_PIXELS, GV_MAX_SIDE); FB_ERR saying why not,
 * ending with advice (what the user can change). */
int gv_pixels_check(Agraph_t *g, double width, double dpi, const char *advice, fb_error *err);
/* Render the laid-out g in format (a gvRender name), appending the bytes to out; FB_ERR with
 * Graphviz's reason.  Needs gv_context_get to have succeeded. */
int gv_render_data(Agraph_t *g, const char *format, fb_buf *out, fb_error *err);

/* The renderer of file's extension (NULL: DOT text); FB_ERR naming the file otherwise. */
int gv_export_format(const char *file, const char **renderer, fb_error *err);
/* Write the n bytes of data to file atomically; on failure err holds the reason, without
 * the file name unless *named is set. */
int gv_bytes_save(const char *file, const char *data, size_t n, fb_error *err, bool *named);

/* After the nop layout on fixed positions: put every weight label beside its edge, clear of nodes,
 * arrowheads and other labels; move legends under and headings over their panels; put the
 * title on top; make the bounding box hold it all. */
void gv_finish(struct gv_picture *p);

#endif
