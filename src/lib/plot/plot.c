/* Plots as data: series of points, and the gnuplot commands that draw them. */
#include "config.h"

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
		fb_buf_printf(b, "set terminal pngcairo size %zu,%zu noenhanced font 'sans,10'\n",
		              p->width, p->height);
	else
		fb_buf_printf(b, "set terminal svg size %zu,%zu noenhanced font 'sans,12' "
		                 "background 'white'\n", p->width, p->height);
	fb_buf_printf(b, "set output ");
	plot_quote(b, path);
	fb_buf_printf(b, "\n");
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

/* The gnuplot commands that draw p. */
void fb_plot_script(const fb_plot *p, const char *path, fb_buf *b)
{
	plot_terminal(p, path, b);
	plot_data(p, b);
	fb_buf_printf(b, "set title ");
	plot_quote(b, p->title);
	fb_buf_printf(b, "\nset xlabel ");
	plot_quote(b, p->xlabel);
	fb_buf_printf(b, "\nset ylabel ");
	plot_quote(b, p->ylabel);
	fb_buf_printf(b, "\nset key outside right top\nset grid\nset offsets graph 0.03, graph "
	                 "0.03, graph 0.05, graph 0.05\n");
	if (p->logx)
		fb_buf_printf(b, "set logscale x 2\n");
	fb_buf_printf(b, "plot ");
	for (size_t s = 0, drawn = 0; s < p->nseries; s++) {
		const fb_plot_series *se = &p->series[s];

		if (se->n == 0)
			continue;
		fb_buf_printf(b, "%s$s%zu using 1:2%s with %s lw 2 pt %zu title ", drawn++ ? ", " : "",
		              s, se->err != NULL ? ":3" : "",
		              se->err != NULL ? "yerrorlines" : "linespoints", s % 12 + 1);
		plot_quote(b, se->label);
	}
	fb_buf_printf(b, "\n");
	if (p->format != FB_PLOT_TEXT)
		fb_buf_printf(b, "unset output\n");
}
