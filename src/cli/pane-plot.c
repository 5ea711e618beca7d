/* Line plots over rounds in braille dots (2 x 4 per cell) or, without UTF-8, in ASCII
 * (1 x 3 per cell), with the y range labelled at the top and bottom of the axis, the rounds
 * below it, and a log scale when the values are positive and span three decades or more.
 * Also one-row sparklines in block characters. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pane-int.h"

/* Columns of the y labels, axis included. */
#define LABEL_W 8
/* Ratio of largest to smallest value from which the scale is logarithmic. */
#define LOG_SPAN 1e3

/* The y scale of a series. */
typedef struct plot_scale {
	double lo, hi; /* range (in log10 units when log) */
	bool log;      /* logarithmic */
	bool any;      /* there is at least one value to draw */
	bool flat;     /* every value is the same: drawn across the middle, labelled there */
} plot_scale;

/* A grid of dots for one plot. */
typedef struct plot_grid {
	int rows, cols;       /* cells */
	int dx, dy;           /* dots per cell across and down */
	unsigned char *cell;  /* rows x cols dot bits */
} plot_grid;

/* The scale of v[0..n-1]: finite values, log when positive and spanning decades. */
static plot_scale plot_scale_of(const double *v, size_t n)
{
	plot_scale s = { INFINITY, -INFINITY, false, false, false };
	bool positive = true;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		s.any = true;
		s.lo = fmin(s.lo, v[i]);
		s.hi = fmax(s.hi, v[i]);
		positive &= v[i] > 0;
	}
	if (!s.any)
		return s;
	if (positive && s.hi / s.lo >= LOG_SPAN) {
		s.log = true;
		s.lo = log10(s.lo);
		s.hi = log10(s.hi);
	}
	if (s.hi - s.lo <= 1e-9 * fmax(fabs(s.hi), fabs(s.lo))) { /* flat: centre it */
		double pad = s.log ? 0.5 : fmax(fabs(s.hi) * 0.05, 1);

		s.flat = true;
		s.lo -= pad;
		s.hi += pad;
	}
	return s;
}

/* v on the scale (NaN when it cannot be drawn). */
static double plot_map(const plot_scale *s, double v)
{
	if (!isfinite(v) || (s->log && v <= 0))
		return NAN;
	return s->log ? log10(v) : v;
}

/* The dot row (0 at the top) of a mapped value. */
static int plot_row(const plot_scale *s, const plot_grid *g, double m)
{
	int ph = g->rows * g->dy;
	double t = (m - s->lo) / (s->hi - s->lo);
	int r = (int)lround((1.0 - t) * (ph - 1));

	return r < 0 ? 0 : r >= ph ? ph - 1 : r;
}

/* Set the dots of column c from row a to row b. */
static void plot_span(plot_grid *g, int c, int a, int b)
{
	static const unsigned char braille[2][4] = { { 0x01, 0x02, 0x04, 0x40 },
		                                     { 0x08, 0x10, 0x20, 0x80 } };

	if (a > b) {
		int t = a;

		a = b;
		b = t;
	}
	for (int r = a; r <= b; r++) {
		unsigned char *cell = &g->cell[(r / g->dy) * g->cols + c / g->dx];

		*cell |= g->dx == 2 ? braille[c % 2][r % 4] : (unsigned char)(1 << (r % 3));
	}
}

/* Pixel column c when there are more samples than columns: the range of its samples, and
 * the last of them (for joining the next column). */
static bool plot_bucket(const double *m, size_t n, int c, int pw, double *lo, double *hi,
                        double *end)
{
	size_t a = (size_t)c * n / (size_t)pw, b = (size_t)(c + 1) * n / (size_t)pw;

	*lo = INFINITY;
	*hi = -INFINITY;
	*end = NAN;
	for (size_t i = a; i < b; i++) {
		if (isnan(m[i]))
			continue;
		*lo = fmin(*lo, m[i]);
		*hi = fmax(*hi, m[i]);
		*end = m[i];
	}
	return *lo <= *hi;
}

/* Pixel column c when there are fewer samples than columns: the line between the two
 * samples around it, or for steps the earlier sample's value (the next column's jump joins
 * them). */
static bool plot_between(const double *m, size_t n, int c, int pw, bool steps, double *lo,
                         double *hi, double *end)
{
	double t = n > 1 && pw > 1 ? (double)c * (double)(n - 1) / (double)(pw - 1) : 0;
	size_t i = (size_t)t;

	if (n == 1 && c > 0)
		return false;
	if (i + 1 >= n)
		*lo = m[n - 1];
	else if (steps)
		*lo = m[i];
	else
		*lo = m[i] + (m[i + 1] - m[i]) * (t - (double)i);
	*hi = *end = *lo;
	return !isnan(*lo);
}

/* Fill the grid with the series' line (steps: held values joined by jumps). */
static void plot_fill(plot_grid *g, const plot_scale *s, const double *v, size_t n, bool steps)
{
	int pw = g->cols * g->dx, prev = -1;
	double *m = fb_xcalloc(n, sizeof *m);

	for (size_t i = 0; i < n; i++)
		m[i] = plot_map(s, v[i]);
	for (int c = 0; c < pw; c++) {
		double lo, hi, end;
		bool ok = n > (size_t)pw ? plot_bucket(m, n, c, pw, &lo, &hi, &end)
		                         : plot_between(m, n, c, pw, steps, &lo, &hi, &end);
		int a, b;

		if (!ok) {
			prev = -1;
			continue;
		}
		a = plot_row(s, g, hi);
		b = plot_row(s, g, lo);
		if (prev >= 0) { /* join the previous column */
			a = prev < a ? prev : a;
			b = prev > b ? prev : b;
		}
		plot_span(g, c, a, b);
		prev = isnan(end) ? -1 : plot_row(s, g, end);
	}
	free(m);
}

/* The character of a cell of dots. */
static wchar_t plot_glyph(const plot_grid *g, unsigned char bits)
{
	if (g->dx == 2)
		return bits ? (wchar_t)(0x2800 + bits) : L' ';
	switch (bits) {
	case 0: return L' ';
	case 1: return L'\'';
	case 2: return L'-';
	case 4: return L'_';
	default: return L'|';
	}
}

/* Draw the grid at (y, x). */
static void plot_show(const pane *p, const plot_grid *g, int y, int x)
{
	wchar_t *row = fb_xcalloc((size_t)g->cols + 1, sizeof *row);

	attrset(pane_attr(p, ROLE_PLOT));
	for (int r = 0; r < g->rows; r++) {
		for (int c = 0; c < g->cols; c++)
			row[c] = plot_glyph(g, g->cell[r * g->cols + c]);
		mvaddnwstr(y + r, x, row, g->cols);
	}
	attrset(A_NORMAL);
	free(row);
}

/* An axis label of the scale's value at position lo or hi (by name for a categorical
 * series' named values). */
static const char *plot_label(const pane_series *ps, const plot_scale *s, double at, char *buf,
                              size_t len)
{
	return pane_fmt_fig(ps->run, ps->fig, s->log ? pow(10, at) : at, LABEL_W - 1, buf, len);
}

/* The axis: y labels at the top and bottom (a flat series': its value where it is drawn), a
 * rule between, the rounds underneath. */
static void plot_axes(const pane *p, const pane_series *ps, const plot_scale *s,
                      const plot_grid *g, int y, int x, int h, int w)
{
	char buf[32];
	const char *rule = p->utf8 ? "\u2502" : "|";
	size_t n = ps->n;

	for (int r = 1; r < h - 1; r++)
		pane_put(p, y + r, x + LABEL_W - 1, 1, ROLE_AXIS, rule);
	if (s->flat) {
		pane_putf(p, y + 1 + plot_row(s, g, (s->lo + s->hi) / 2) / g->dy, x, LABEL_W - 1,
		          ROLE_AXIS, "%*s", LABEL_W - 1,
		          plot_label(ps, s, (s->lo + s->hi) / 2, buf, sizeof buf));
	} else {
		pane_putf(p, y + 1, x, LABEL_W - 1, ROLE_AXIS, "%*s", LABEL_W - 1,
		          plot_label(ps, s, s->hi, buf, sizeof buf));
		pane_putf(p, y + h - 2, x, LABEL_W - 1, ROLE_AXIS, "%*s", LABEL_W - 1,
		          plot_label(ps, s, s->lo, buf, sizeof buf));
	}
	pane_put(p, y + h - 1, x + LABEL_W - 1, 1, ROLE_AXIS, p->utf8 ? "\u2514" : "+");
	pane_put(p, y + h - 1, x + LABEL_W, w - LABEL_W, ROLE_AXIS, "1");
	if (n > 1) {
		snprintf(buf, sizeof buf, "%zu", n);
		pane_put(p, y + h - 1, x + w - 1 - (int)strlen(buf), (int)strlen(buf), ROLE_AXIS, buf);
	}
	if (w - LABEL_W > 16)
		pane_put(p, y + h - 1, x + LABEL_W + (w - LABEL_W) / 2 - 3, 5, ROLE_DIM, "round");
}

/* A line plot of one series in the box (y, x, h, w). */
void pane_plot(const pane *p, const pane_series *s, int y, int x, int h, int w)
{
	plot_scale sc = plot_scale_of(s->v, s->n);
	plot_grid g;
	char last[32];

	pane_put(p, y, x, w, ROLE_TITLE, s->name);
	if (s->n > 0)
		pane_putf(p, y, x + (int)strlen(s->name) + 1, w - (int)strlen(s->name) - 1, ROLE_TEXT,
		          " %s%s", pane_fmt_fig(s->run, s->fig, s->v[s->n - 1], 10, last, sizeof last),
		          sc.log ? "  (log scale)" : s->steps ? "  (steps)" : "");
	if (h < 3 || w < LABEL_W + 4)
		return;
	if (!sc.any) {
		pane_put(p, y + 1, x + LABEL_W, w - LABEL_W, ROLE_DIM, s->n ? "no finite value"
		                                                            : "no round yet");
		return;
	}
	g.rows = h - 2;
	g.cols = w - LABEL_W - 1;
	g.dx = p->utf8 ? 2 : 1;
	g.dy = p->utf8 ? 4 : 3;
	g.cell = fb_xcalloc((size_t)g.rows * (size_t)g.cols, 1);
	plot_fill(&g, &sc, s->v, s->n, s->steps);
	plot_show(p, &g, y + 1, x + LABEL_W);
	plot_axes(p, s, &sc, &g, y, x, h, w - 1);
	free(g.cell);
}

/* One row of sparkline cells for v[0..n-1]: one value per cell, the last of each stretch
 * when there are more values than cells. */
void pane_spark(const pane *p, const double *v, size_t n, int y, int x, int w)
{
	static const char ascii[] = "_.-=+*#";
	plot_scale s = plot_scale_of(v, n);
	wchar_t row[512];
	int cells = w < 511 ? w : 511;

	if (!s.any || cells <= 0)
		return;
	if ((size_t)cells > n)
		cells = (int)n;
	for (int c = 0; c < cells; c++) {
		size_t i = ((size_t)c + 1) * n / (size_t)cells - 1;
		double m = plot_map(&s, v[i]);
		int level = isnan(m) ? -1 : (int)lround((m - s.lo) / (s.hi - s.lo) * 6);

		if (level < 0)
			row[c] = L' ';
		else
			row[c] = p->utf8 ? (wchar_t)(0x2581 + level) : (wchar_t)ascii[level];
	}
	attrset(pane_attr(p, ROLE_PLOT));
	mvaddnwstr(y, x, row, cells);
	attrset(A_NORMAL);
}
