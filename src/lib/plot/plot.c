/* Plots as data: series of points, and the gnuplot commands that draw them. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/plot.h"

/* An empty plot. */
void fb_plot_init(fb_plot *p, const char *title, const char *xlabel, const char *ylabel)
{
	memset(p, 0, sizeof *p);
	p->title = fb_xstrdup(title);
	p->xlabel = fb_xstrdup(xlabel);
	p->ylabel = fb_xstrdup(ylabel);
	p->format = FB_PLOT_SVG;
	p->width = 800;
	p->height = 500;
}

/* Free the plot. */
void fb_plot_release(fb_plot *p)
{
	for (size_t s = 0; s < p->nseries; s++) {
		free(p->series[s].label);
		free(p->series[s].x);
		free(p->series[s].y);
		free(p->series[s].err);
	}
	free(p->series);
	free(p->title);
	free(p->xlabel);
	free(p->ylabel);
	memset(p, 0, sizeof *p);
}

/* A copy of n doubles (NULL for NULL). */
static double *plot_copy(const double *v, size_t n)
{
	double *c;

	if (v == NULL)
		return NULL;
	c = fb_xcalloc(n > 0 ? n : 1, sizeof *c);
	memcpy(c, v, n * sizeof *c);
	return c;
}

/* Add a line. */
fb_plot_series *fb_plot_add(fb_plot *p, const char *label, size_t n, const double *x,
                            const double *y, const double *err)
{
	fb_plot_series *s;

	p->series = fb_xreallocarray(p->series, p->nseries + 1, sizeof *p->series);
	s = &p->series[p->nseries++];
	s->label = fb_xstrdup(label);
	s->n = n;
	s->x = plot_copy(x, n);
	s->y = plot_copy(y, n);
	s->err = plot_copy(err, n);
	return s;
}

/* Append text to b as a gnuplot double-quoted string that reads back as the same bytes: a
 * quote and a backslash escaped by a backslash, a control character and the backquote (which
 * gnuplot runs as a shell command even inside double quotes) as octal escapes.  Single
 * quotes cannot do it: gnuplot 5.4 does not read a doubled quote at a string's start. */
static void plot_quote(fb_buf *b, const char *text)
{
	fb_buf_append(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			fb_buf_printf(b, "\\%c", *c);
		else if (*c < 32 || *c == 127 || *c == '`')
			fb_buf_printf(b, "\\%03o", *c);
		else
			fb_buf_append(b, (const char *)c, 1);
	}
	fb_buf_append(b, "\"", 1);
}

/* The terminal and output lines. */
static void plot_terminal(const fb_plot *p, const char *path, fb_buf *b)
{
	if (p->format == FB_PLOT_TEXT) {
		fb_buf_printf(b, "set terminal dumb size %zu,%zu noenhanced\n", p->width, p->height);
		return;
	}
	if (p->format == FB_PLOT_PNG)
		fb_buf_printf(b, "set terminal pngcairo size %zu,%zu noenhanced font 'sans,%zu'\n",
		              p->width, p->height, p->font > 0 ? p->font : 10);
	else
		fb_buf_printf(b, "set terminal svg size %zu,%zu noenhanced font 'sans,%zu' "
		                 "background 'white'\n", p->width, p->height,
		              p->font > 0 ? p->font : 12);
	fb_buf_printf(b, "set output ");
	plot_quote(b, path);
	fb_buf_printf(b, "\n");
}

/* The smallest gap between two different x values of one series, over the series with
 * error bars (0 when there is none). */
static double plot_min_gap(const fb_plot *p)
{
	double gap = 0;

	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 1; p->series[s].err != NULL && i < p->series[s].n; i++) {
			const double *x = p->series[s].x;
			double g = p->logx && x[i] > 0 && x[i - 1] > 0 ? fabs(log2(x[i] / x[i - 1]))
			                                               : fabs(x[i] - x[i - 1]);

			if (g > 0 && (gap == 0 || g < gap))
				gap = g;
		}
	return gap;
}

/* How far series s is set apart along x, so that the error bars of several series at the
 * same x do not hide each other: a twentieth of the smallest gap per series, centred (in
 * log2 units on a logarithmic axis); 0 for one series with bars or none. */
static double plot_offset(const fb_plot *p, size_t s, double gap)
{
	size_t with = 0, rank = 0;

	for (size_t t = 0; t < p->nseries; t++)
		if (p->series[t].err != NULL && p->series[t].n > 0) {
			rank += t < s;
			with++;
		}
	if (with < 2 || p->series[s].err == NULL)
		return 0;
	return gap * 0.05 * ((double)rank - (double)(with - 1) / 2);
}

/* The x column of series s as the plot command reads it: $1, or $1 set apart by plot_offset
 * (times a power of 2 on a logarithmic axis), so that the data stay as they are. */
static void plot_xcol(const fb_plot *p, size_t s, double gap, fb_buf *b)
{
	double off = plot_offset(p, s, gap);

	if (off == 0)
		fb_buf_printf(b, "1");
	else if (p->logx)
		fb_buf_printf(b, "($1*2**(%.6g))", off);
	else
		fb_buf_printf(b, "($1%+.6g)", off);
}

/* Each series as a data block $sN of "x y [err]" lines. */
static void plot_data(const fb_plot *p, fb_buf *b)
{
	for (size_t s = 0; s < p->nseries; s++) {
		const fb_plot_series *se = &p->series[s];

		fb_buf_printf(b, "$s%zu << EOD\n", s);
		for (size_t i = 0; i < se->n; i++) {
			fb_buf_printf(b, "%.17g %.17g", se->x[i], se->y[i]);
			if (se->err != NULL)
				fb_buf_printf(b, " %.17g", se->err[i]);
			fb_buf_printf(b, "\n");
		}
		fb_buf_printf(b, "EOD\n");
	}
}

/* The extent of every point of p, error bars included, into lo and hi (x: [0], y: [1]); false
 * when there is no point. */
static bool plot_extent(const fb_plot *p, double lo[2], double hi[2])
{
	bool any = false;

	for (size_t s = 0; s < p->nseries; s++)
		for (size_t i = 0; i < p->series[s].n; i++) {
			const fb_plot_series *se = &p->series[s];
			double e = se->err != NULL && isfinite(se->err[i]) ? fabs(se->err[i]) : 0;
			double ylo = se->y[i] - e, yhi = se->y[i] + e;

			if (p->logy && !(ylo > 0))
				ylo = se->y[i];
			lo[0] = any ? fmin(lo[0], se->x[i]) : se->x[i];
			hi[0] = any ? fmax(hi[0], se->x[i]) : se->x[i];
			lo[1] = any ? fmin(lo[1], ylo) : ylo;
			hi[1] = any ? fmax(hi[1], yhi) : yhi;
			any = true;
		}
	return any;
}

/* Axes clipped to the data: x from the first point to the last (and a fiftieth of the width
 * on each side), y with a twentieth of its
 * span above and below (from 0 when no value is below 0), a point alone given room; log
 * scales where asked. */
static void plot_ranges(const fb_plot *p, fb_buf *b)
{
	double lo[2], hi[2], pad;

	if (p->logx)
		fb_buf_printf(b, "set logscale x 2\n");
	if (p->logy)
		fb_buf_printf(b, "set logscale y 10\n");
	if (!plot_extent(p, lo, hi))
		return;
	if (hi[0] > lo[0])
		fb_buf_printf(b, "set autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n");
	else if (p->logx)
		fb_buf_printf(b, "set xrange [%.17g:%.17g]\n", lo[0] / 2, lo[0] * 2);
	else
		fb_buf_printf(b, "set xrange [%.17g:%.17g]\n", lo[0] - 1, lo[0] + 1);
	if (p->logy) {
		fb_buf_printf(b, "set yrange [%.17g:%.17g]\n", lo[1] / 1.25, hi[1] * 1.25);
		return;
	}
	pad = hi[1] > lo[1] ? (hi[1] - lo[1]) / 20 : fmax(fabs(hi[1]) / 10, 1);
	fb_buf_printf(b, "set yrange [%.17g:%.17g]\n",
	              lo[1] >= 0 && lo[1] - pad < 0 ? 0 : lo[1] - pad, hi[1] + pad);
}

/* The gnuplot commands that draw p. */
void fb_plot_script(const fb_plot *p, const char *path, fb_buf *b)
{
	double gap = plot_min_gap(p);

	plot_terminal(p, path, b);
	plot_data(p, b);
	fb_buf_printf(b, "set title ");
	plot_quote(b, p->title);
	fb_buf_printf(b, "\nset xlabel ");
	plot_quote(b, p->xlabel);
	fb_buf_printf(b, "\nset ylabel ");
	plot_quote(b, p->ylabel);
	fb_buf_printf(b, "\nset key outside right top\nset grid\n");
	plot_ranges(p, b);
	fb_buf_printf(b, "plot ");
	for (size_t s = 0, drawn = 0; s < p->nseries; s++) {
		const fb_plot_series *se = &p->series[s];
		bool marked = se->n <= FB_PLOT_MARKED_MAX;

		if (se->n == 0)
			continue;
		fb_buf_printf(b, "%s$s%zu using ", drawn++ ? ", " : "", s);
		plot_xcol(p, s, gap, b);
		fb_buf_printf(b, ":2%s with %s lw 2 pt %zu title ", se->err != NULL ? ":3" : "",
		              se->err != NULL ? (marked ? "yerrorlines" : "yerrorbars")
		                              : (marked ? "linespoints" : "lines"), s % 12 + 1);
		plot_quote(b, se->label);
	}
	fb_buf_printf(b, "\n");
	if (p->format != FB_PLOT_TEXT)
		fb_buf_printf(b, "unset output\n");
}
