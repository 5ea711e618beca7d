/* The progress view: what runs on what, a table of the latest rounds, and a plot over rounds
 * of every figure the algorithm reports, SHD when scored, edges and bytes.  Plots that do not
 * fit scroll with the arrows. */
#include "config.h"

#include <string.h>

#include "pane-int.h"

/* Smallest and largest height of one plot, title and round labels included. */
#define PLOT_MIN_H 5
#define PLOT_MAX_H 12
/* Width of one column of the table. */
#define COL_W 10

/* The line saying what runs on what. */
static void progress_header(const pane *p, int y, int w)
{
	const fb_run *run = p->run;
	char data[160];

	if (p->req->data != NULL)
		snprintf(data, sizeof data, "%s", p->req->data);
	else
		snprintf(data, sizeof data, "a dataset");
	pane_putf(p, y, 1, w - 2, ROLE_TEXT, "split %s; truth %s; data %zu x %zu from %s",
	          run->part != NULL ? run->part->desc : "none (all rows)",
	          run->truth != NULL ? "known" : "unknown", run->data->n, run->data->d, data);
}

/* One row of the table: round, edges, SHD when scored, the figures, bytes, seconds. */
static void progress_row(const pane *p, const fb_trace_rec *r, int y, int w, bool scored)
{
	char buf[32];
	int x = 1;

	pane_putf(p, y, x, 6, ROLE_TEXT, "%6zu", r->round);
	x += 6;
	if (!fb_run_is_circuit(p->run)) {
		pane_putf(p, y, x, 7, ROLE_TEXT, "%7zu", r->edges);
		x += 7;
	}
	if (scored) {
		pane_putf(p, y, x, 6, ROLE_TEXT, "%6s",
		          r->scored ? pane_fmt(r->score.shd, 5, buf, sizeof buf) : "-");
		x += 6;
	}
	for (size_t f = 0; f < p->run->trace.nfig && x + COL_W <= w; f++) {
		if (pane_figure_own(p->run, f))
			continue;
		pane_putf(p, y, x, COL_W, ROLE_TEXT, "%*s", COL_W,
		          pane_fmt_fig(p->run, (int)f, r->fig[f], COL_W - 1, buf, sizeof buf));
		x += COL_W;
	}
	if (x + COL_W <= w)
		pane_putf(p, y, x, COL_W, ROLE_TEXT, "%*s", COL_W,
		          pane_fmt_bytes(r->bytes_up + r->bytes_down, buf, sizeof buf));
	if (x + 2 * COL_W <= w)
		pane_putf(p, y, x + COL_W, COL_W, ROLE_TEXT, "%*.4f", COL_W, r->seconds);
}

/* The sentence of the round shown, as its algorithm wrote it, on up to two rows from y (a
 * longer one is cut after a word and ends in an ellipsis: the messages view has it whole);
 * the rows used. */
static int progress_sentence(const pane *p, int y, int w)
{
	const fb_trace_rec *rec = pane_rec(p);
	char full[1024], line[1040];
	int n, rows;

	if (rec == NULL || rec->say == NULL)
		return 1;
	n = snprintf(full, sizeof full, "round %zu: %s", rec->round, rec->say);
	n = n < (int)sizeof full ? n : (int)sizeof full - 1;
	snprintf(line, sizeof line, "%s", full);
	while (n > 0 && pane_text(p, line, 0, y, 0, 1, w - 2, ROLE_TITLE) > 2) {
		while (n > 0 && full[n - 1] != ' ') /* drop the last word */
			n--;
		while (n > 0 && full[n - 1] == ' ')
			n--;
		snprintf(line, sizeof line, "%.*s %s", n, full, p->utf8 ? "\u2026" : "...");
	}
	rows = pane_text(p, line, 0, y, 2, 1, w - 2, ROLE_TITLE);
	return rows < 2 ? rows : 2;
}

/* The table's header and its m rows up to the round shown; returns the rows used. */
static int progress_table(const pane *p, int y, int w, int m)
{
	const fb_run *run = p->run;
	fb_trace view = run->trace;
	const fb_trace *t = &view;
	size_t first;
	bool scored;

	view.n = pane_upto(p);
	first = t->n > (size_t)m ? t->n - (size_t)m : 0;
	scored = t->n > 0 && t->r[t->n - 1].scored;
	int x = 1;

	pane_put(p, y, x, 6, ROLE_TITLE, " round");
	x += 6;
	if (!fb_run_is_circuit(run)) { /* a circuit has no edges */
		pane_putf(p, y, x, w - x, ROLE_TITLE, "%7s", "edges");
		x += 7;
	}
	if (scored) {
		pane_putf(p, y, x, w - x, ROLE_TITLE, "%6s", "SHD");
		x += 6;
	}
	for (size_t f = 0; f < t->nfig && x + COL_W <= w; f++) {
		if (pane_figure_own(run, f))
			continue;
		pane_putf(p, y, x, COL_W, ROLE_TITLE, "%*.*s", COL_W, COL_W - 1, run->figures[f]);
		x += COL_W;
	}
	if (x + COL_W <= w)
		pane_putf(p, y, x, COL_W, ROLE_TITLE, "%*s", COL_W, "bytes");
	if (x + 2 * COL_W <= w)
		pane_putf(p, y, x + COL_W, COL_W, ROLE_TITLE, "%*s", COL_W, "seconds");
	if (t->n == 0)
		pane_put(p, y + 1, 1, w - 2, ROLE_DIM, "no round yet: n steps one, r runs to the end");
	for (size_t i = first; i < t->n; i++)
		progress_row(p, &t->r[i], y + 1 + (int)(i - first), w, scored);
	return 1 + m;
}

/* The plots in rows y..y+h-1, scrolled to the row of plots p->plot_first (rows, not plots,
 * so that a key moves one row of plots at any number of columns). */
static void progress_plots(pane *p, int y, int h, int w)
{
	pane_series *s;
	size_t n = pane_series_all(p->run, pane_upto(p), &s);
	int cols = w >= 120 ? 3 : w >= 70 ? 2 : 1, cw = (w - 1) / cols;
	size_t need = (n + (size_t)cols - 1) / (size_t)cols, shown, first;
	int ph, rows;

	ph = need > 0 ? (h - 1) / (int)need : PLOT_MAX_H;
	ph = ph < PLOT_MIN_H ? PLOT_MIN_H : ph > PLOT_MAX_H ? PLOT_MAX_H : ph;
	rows = (h - 1) / ph;
	if (p->plot_first + (size_t)rows > need)
		p->plot_first = need > (size_t)rows ? need - (size_t)rows : 0;
	first = p->plot_first * (size_t)cols;
	shown = (size_t)(rows * cols);
	if (n > shown)
		pane_putf(p, y, 1, w - 2, ROLE_DIM, "plots %zu-%zu of %zu (arrows scroll)", first + 1,
		          first + shown < n ? first + shown : n, n);
	for (size_t i = first; i < n && i < first + shown; i++) {
		int slot = (int)(i - first);

		pane_plot(p, &s[i], y + 1 + (slot / cols) * ph, 1 + (slot % cols) * cw, ph, cw - 1);
	}
	pane_series_free(s, n);
}

/* The progress view. */
void pane_draw_progress(pane *p, int top, int h, int w)
{
	int m = (h - 10) / 4, used;

	m = m < 3 ? 2 : m > 7 ? 6 : m - 1;
	progress_header(p, top, w);
	used = 1 + progress_sentence(p, top + 1, w);
	used += progress_table(p, top + used, w - 1, m);
	progress_plots(p, top + used, h - used, w);
}
