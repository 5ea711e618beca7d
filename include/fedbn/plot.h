/* Line plots drawn by gnuplot: one line per series with optional error bars, axis labels, a
 * legend and a title, into a PNG or SVG file or as text for a terminal.  gnuplot runs as a
 * child process reading its commands from a socket; this module is the only code that
 * talks to it, and it never prints: what gnuplot says comes back in err or in the text. */
#ifndef FEDBN_PLOT_H
#define FEDBN_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"

/* Where a plot goes. */
enum fb_plot_format {
	FB_PLOT_TEXT = 0, /* characters for a terminal (gnuplot's dumb terminal) */
	FB_PLOT_PNG,      /* a PNG file (cairo) */
	FB_PLOT_SVG,      /* an SVG file */
};

/* One line of a plot. */
typedef struct fb_plot_series {
	char *label;  /* the legend's text (owned) */
	size_t n;     /* points */
	double *x;    /* n abscissae, drawn in the order given (owned) */
	double *y;    /* n ordinates (owned) */
	double *err;  /* n half-widths of the error bars, or NULL for none (owned) */
} fb_plot_series;

/* A plot. */
typedef struct fb_plot {
	char *title;            /* above the plot (owned) */
	char *xlabel, *ylabel;  /* the axes' labels (owned) */
	bool logx;              /* logarithmic x axis (every x must be > 0) */
	bool logy;              /* logarithmic y axis (every y must be > 0) */
	size_t font;            /* font size in points for PNG and SVG (0: 10 for PNG, 12 SVG) */
	enum fb_plot_format format; /* file kind or text */
	size_t width, height;   /* pixels for PNG and SVG, characters for text */
	fb_plot_series *series; /* the lines (owned) */
	size_t nseries;         /* how many */
} fb_plot;

/* An empty plot with the given title and axis labels (copied), 800 x 500 pixels. */
void fb_plot_init(fb_plot *p, const char *title, const char *xlabel, const char *ylabel);
/* Free the plot. */
void fb_plot_release(fb_plot *p);
/* Add a line of n points (copied); err may be NULL.  Returns it. */
fb_plot_series *fb_plot_add(fb_plot *p, const char *label, size_t n, const double *x,
                            const double *y, const double *err);

/* Series longer than this are drawn as lines without a marker on each point. */
#define FB_PLOT_MARKED_MAX 40

/* The gnuplot commands that draw p into path (ignored for text) into b (appended): axes
 * clipped to the data (y from 0 when no value is below it), markers on short series only,
 * the error bars of series that share their x values set a little apart. */
void fb_plot_script(const fb_plot *p, const char *path, fb_buf *b);

/* The Debian package that holds the plotting tool. */
#define FB_PLOT_PACKAGE "gnuplot-nox"

/* Whether gnuplot is on the PATH. */
bool fb_plot_available(void);
/* Draw p: into path (written atomically: a failed plot leaves nothing) for PNG and SVG, or
 * into text (appended) for FB_PLOT_TEXT.  FB_ERR with a sentence: gnuplot is missing (naming
 * the Debian package), a logarithmic axis with x <= 0, nothing to draw, or what gnuplot
 * said when it failed. */
int fb_plot_draw(const fb_plot *p, const char *path, fb_buf *text, fb_error *err);

#endif
