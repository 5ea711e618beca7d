/* The detail view: what only one algorithm has.  Each algorithm names its view in its
 * fb_algo entry (detail): notears-admm's penalties and multiplier over the last rounds and
 * each client's consensus distance; FedPC's votes per pair and separating sets
 * (pane-draw-fedpc.c); federated circuits' clients x variables matrix
 * (pane-draw-fedcircuit.c); the FedDAG learners' averaged mask against the truth and each
 * client's local objective and distance from the average.  The others get every figure of
 * the last rounds and their clients' own figure. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "fedbn/feddag.h"
#include "pane-int.h"

/* Width of one column of numbers. */
#define COL_W 11

/* An algorithm's own detail: draws in rows top..top+h-1. */
typedef void (*detail_fn)(pane *p, int top, int h, int w);

/* A table of the last m rounds up to the round shown of the named figures (those the run
 * has); returns rows used. */
int pane_detail_figures(const pane *p, int y, int m, int w, const char *const *names,
                          const char *const *heads)
{
	fb_trace view = p->run->trace, *t = &view;
	size_t first;
	char buf[32];
	int x = 1 + 6;

	view.n = pane_upto(p);
	first = t->n > (size_t)m ? t->n - (size_t)m : 0;
	pane_put(p, y, 1, 6, ROLE_TITLE, " round");
	for (size_t f = 0; names[f] != NULL && x + COL_W <= w; f++) {
		if (pane_figure_index(p->run, names[f]) < 0)
			continue;
		pane_putf(p, y, x, COL_W, ROLE_TITLE, "%*s", COL_W, heads[f]);
		x += COL_W;
	}
	for (size_t i = first; i < t->n; i++) {
		int row = y + 1 + (int)(i - first);

		x = 1 + 6;
		pane_putf(p, row, 1, 6, ROLE_TEXT, "%6zu", t->r[i].round);
		for (size_t f = 0; names[f] != NULL && x + COL_W <= w; f++) {
			int k = pane_figure_index(p->run, names[f]);

			if (k < 0)
				continue;
			pane_putf(p, row, x, COL_W, ROLE_TEXT, "%*s", COL_W,
			          pane_fmt_fig(p->run, k, t->r[i].fig[k], COL_W - 1, buf, sizeof buf));
			x += COL_W;
		}
	}
	if (t->n == 0)
		pane_put(p, y + 1, 1, w - 2, ROLE_DIM, "no round yet");
	return 1 + (t->n == 0 ? 1 : (int)(t->n - first));
}

/* The trace records up to the round shown that carry k clients' own figures, oldest first,
 * into *out (caller frees); how many. */
static size_t detail_client_recs(const pane *p, size_t k, const fb_trace_rec ***out)
{
	const fb_trace *t = &p->run->trace;
	const fb_trace_rec **r = fb_xcalloc(t->n + 1, sizeof *r);
	size_t n = 0, upto = pane_upto(p);

	for (size_t i = 0; i < upto && i < t->n; i++)
		if (t->r[i].client_fig != NULL && t->r[i].nclients == k)
			r[n++] = &t->r[i];
	*out = r;
	return n;
}

/* Client c's row: its figure in the last shown records as numbers ("out" when it sat the
 * round out), then a sparkline of all nh records. */
static void detail_client_row(const pane *p, const fb_trace_rec *const *recs, size_t nh,
                              size_t shown, size_t c, int row, int w)
{
	double *trend = fb_xcalloc(nh + 1, sizeof *trend);
	char buf[32];

	pane_putf(p, row, 1, 7, ROLE_TEXT, "%7zu", c + 1);
	for (size_t i = 0; i < nh; i++) {
		bool took = recs[i]->took[c];

		trend[i] = took ? recs[i]->client_fig[c] : NAN;
		if (i >= nh - shown)
			pane_putf(p, row, 8 + (int)(i - (nh - shown)) * COL_W, COL_W,
			          took ? ROLE_TEXT : ROLE_DIM, "%*s", COL_W,
			          took ? pane_fmt(trend[i], COL_W - 1, buf, sizeof buf) : "out");
	}
	pane_spark(p, trend, nh, row, 8 + (int)shown * COL_W + 2, w - 10 - (int)shown * COL_W);
	free(trend);
}

/* Each client's own figure over the rounds of the trace: the last few as numbers, then a
 * sparkline of all of them; rows y..y+h-1, scrolled to p->list_first. */
void pane_detail_clients(pane *p, int y, int h, int w, const char *what)
{
	const fb_run *run = p->run;
	const fb_trace_rec **recs;
	size_t k = run->fed != NULL ? fb_fed_k(run->fed) : 0, nh = detail_client_recs(p, k, &recs);
	size_t shown, cols, rows = h > 2 ? (size_t)(h - 2) : 0;
	char buf[32];

	pane_putf(p, y, 1, w - 2, ROLE_TITLE, "%s of each client%s", what,
	          nh > 0 ? ": last rounds, then the trend" : "");
	if (k == 0 || nh == 0 || rows == 0) {
		pane_put(p, y + 1, 1, w - 2, ROLE_DIM, k == 0 ? "no clients" : "no round yet");
		free(recs);
		return;
	}
	cols = w > 8 + 12 + COL_W ? (size_t)((w - 8 - 12) / COL_W) : 1;
	shown = nh < cols ? nh : cols;
	pane_put(p, y + 1, 1, 7, ROLE_TITLE, " client");
	for (size_t i = 0; i < shown; i++) {
		snprintf(buf, sizeof buf, "round %zu", recs[nh - shown + i]->round);
		pane_putf(p, y + 1, 8 + (int)i * COL_W, COL_W, ROLE_TITLE, "%*s", COL_W, buf);
	}
	if (p->list_first + rows > k)
		p->list_first = k > rows ? k - rows : 0;
	for (size_t c = p->list_first; c < k && c < p->list_first + rows; c++)
		detail_client_row(p, recs, nh, shown, c, y + 2 + (int)(c - p->list_first), w);
	free(recs);
}

/* notears-admm: rho1, rho2, alpha, h and the consensus over the last rounds, then each
 * client's distance ||B_k - W||_F. */
static void detail_admm(pane *p, int top, int h, int w)
{
	static const char *const names[] = { "rho1", "rho2", "alpha", "h", "consensus",
		                             "objective", NULL };
	static const char *const heads_u[] = { "\u03c11", "\u03c12", "\u03b1", "h(W)",
		                               "consensus", "objective" };
	static const char *const heads_a[] = { "rho1", "rho2", "alpha", "h(W)", "consensus",
		                               "objective" };
	int m = (h - 6) / 3, used;

	m = m < 2 ? 2 : m > 8 ? 8 : m;
	pane_put(p, top, 1, w - 2, ROLE_TITLE, p->utf8 ? "penalties \u03c11, \u03c12 and multiplier "
	         "\u03b1 of the last rounds" : "penalties rho1, rho2 and multiplier alpha of the "
	         "last rounds");
	used = 1 + pane_detail_figures(p, top + 1, m, w - 1, names, p->utf8 ? heads_u : heads_a);
	pane_detail_clients(p, top + used + 1, h - used - 1, w,
	               "consensus distance ||B_k - W||_F");
}

/* Rows the heat map of d variables takes, with its two summary rows and labels, at most
 * max. */
static int detail_heat_rows(const pane *p, int max)
{
	int want = (int)p->run->data->d + 2 + 4;

	return want < max ? want : max;
}

/* notears-mlp: sqrt(A), the strength of each input in each network, against the truth;
 * then its augmented-Lagrangian figures of the last rounds. */
static void detail_mlp(pane *p, int top, int h, int w)
{
	static const char *const names[] = { "h", "rho", "alpha", "loss", "objective", NULL };
	int rows = detail_heat_rows(p, h - 5), m = h - rows - 3;

	pane_put(p, top, 1, w - 2, ROLE_TITLE, p->utf8 ? "√A: each input's strength in each "
	         "variable's network (first-layer weights), against the truth" : "sqrt(A): each "
	         "input's strength in each variable's network (first-layer weights), against the "
	         "truth");
	pane_graph_heat(p, top + 1, rows, w);
	pane_detail_figures(p, top + 1 + rows, m < 1 ? 1 : m > 8 ? 8 : m, w - 1, names, names);
}

/* Client c's local and global residuals in the last record, and the trend of the global one
 * over the records, in row y. */
static void detail_residual_row(const pane *p, const fb_trace_rec *const *recs, size_t nh,
                                size_t c, int y, int w)
{
	const fb_trace_rec *r = recs[nh - 1];
	double *trend = fb_xcalloc(nh + 1, sizeof *trend);
	char a[32], b[32];

	for (size_t i = 0; i < nh; i++)
		trend[i] = recs[i]->server_fig != NULL ? recs[i]->server_fig[c] : NAN;
	pane_putf(p, y, 1, 7, ROLE_TEXT, "%7zu", c + 1);
	pane_putf(p, y, 8, 2 * COL_W, r->took[c] ? ROLE_TEXT : ROLE_DIM, "%*s%*s", COL_W,
	          r->took[c] ? pane_fmt_client(p->run, r->client_fig[c], COL_W - 1, a, sizeof a)
	                     : "out", COL_W,
	          pane_fmt(trend[nh - 1], COL_W - 1, b, sizeof b));
	pane_spark(p, trend, nh, y, 8 + 2 * COL_W + 2, w - 12 - 2 * COL_W);
	free(trend);
}

/* Each client's local residual |theta_k - theta| (against the broadcast it solved from) and
 * global residual (against the server's new theta), then the global one's trend. */
static void detail_residuals(pane *p, int y, int h, int w)
{
	const fb_run *run = p->run;
	const fb_trace_rec **recs;
	size_t k = run->fed != NULL ? fb_fed_k(run->fed) : 0, nh = detail_client_recs(p, k, &recs);
	size_t rows = h > 2 ? (size_t)(h - 2) : 0;

	pane_put(p, y, 1, w - 2, ROLE_TITLE, "residuals of each client in the last round: "
	         "local |theta_k - theta sent|, global |theta_k - theta new|; global trend");
	if (nh == 0 || rows == 0) {
		pane_put(p, y + 1, 1, w - 2, ROLE_DIM, "no round yet");
		free(recs);
		return;
	}
	pane_putf(p, y + 1, 1, w - 2, ROLE_TITLE, " client%*s%*s", COL_W, "local", COL_W,
	          "global");
	if (p->list_first + rows > k)
		p->list_first = k > rows ? k - rows : 0;
	for (size_t c = p->list_first; c < k && c < p->list_first + rows; c++)
		detail_residual_row(p, recs, nh, c, y + 2 + (int)(c - p->list_first), w);
	free(recs);
}

/* notears-mlp-admm: the server's sqrt(A) against the truth, then each client's residuals. */
static void detail_mlp_admm(pane *p, int top, int h, int w)
{
	int rows = detail_heat_rows(p, h / 2 > 8 ? h / 2 : h - 4);

	pane_put(p, top, 1, w - 2, ROLE_TITLE, p->utf8 ? "the server's √A (first-layer "
	         "strengths), against the truth" : "the server's sqrt(A) (first-layer strengths), "
	         "against the truth");
	pane_graph_heat(p, top + 1, rows, w);
	detail_residuals(p, top + 2 + rows, h - rows - 2, w);
}

/* One FedDAG client's row: drawn this round or not (or drawn but its reply lost), its local
 * objective, the distance of its U from the server's average, and the trend of its objective over the rounds. */
static void detail_feddag_row(const pane *p, const fb_trace_rec *const *recs, size_t nh,
                              size_t c, int row, int w)
{
	const fb_trace_rec *last = nh > 0 ? recs[nh - 1] : NULL;
	double loss = NAN, dist = NAN, *trend = fb_xcalloc(nh + 1, sizeof *trend);
	char b1[32], b2[32];
	const char *how;

	if (pane_upto(p) == fb_run_rounds(p->run))
		fb_feddag_client(p->run, c, &loss, &dist); /* the newest round's state alone */
	else if (last != NULL && last->took[c])
		loss = last->client_fig[c];
	how = last == NULL || !last->took[c] ? "out"
	      : last->sent == NULL || fb_feddag_replied(p->run, last->sent[c]) ? "drawn" : "lost";
	for (size_t i = 0; i < nh; i++)
		trend[i] = recs[i]->took[c] ? recs[i]->client_fig[c] : NAN;
	pane_putf(p, row, 1, 44, last != NULL && last->took[c] ? ROLE_TEXT : ROLE_DIM,
	          "%7zu  %-5s %*s %*s", c + 1, how,
	          COL_W, pane_fmt_client(p->run, loss, COL_W - 1, b1, sizeof b1), COL_W,
	          isnan(dist) ? "-" : pane_fmt(dist, COL_W - 1, b2, sizeof b2));
	pane_spark(p, trend, nh, row, 46, w - 48);
	free(trend);
}

/* gs-feddag, as-feddag, as-feddag-linear: the server's averaged mask sigma(U/tau) (or W) as
 * the graph view's heat map against the truth, then each client's local objective and the
 * distance ||U_k - U_avg||_F of its last reply from the average. */
static void detail_feddag(pane *p, int top, int h, int w)
{
	const fb_run *run = p->run;
	const fb_trace_rec **recs;
	size_t k = run->fed != NULL ? fb_fed_k(run->fed) : 0, nh = detail_client_recs(p, k, &recs);
	int gh = h > 16 ? h / 2 : h, rows;

	pane_draw_graph(p, top, gh, w);
	rows = h - gh - 2;
	if (rows <= 0 || k == 0) {
		free(recs);
		return;
	}
	pane_put(p, top + gh, 1, w - 2, ROLE_TITLE, "each client: drawn, out or lost in the last "
	         "round, local objective, ||U_k - U_avg||_F, objective over the rounds");
	pane_putf(p, top + gh + 1, 1, 44, ROLE_TITLE, " client  round %*s %*s", COL_W, "loss",
	          COL_W, "distance");
	if (p->list_first + (size_t)rows > k)
		p->list_first = k > (size_t)rows ? k - (size_t)rows : 0;
	for (size_t c = p->list_first; c < k && c < p->list_first + (size_t)rows; c++)
		detail_feddag_row(p, recs, nh, c, top + gh + 2 + (int)(c - p->list_first), w);
	free(recs);
}

/* Any algorithm without its own detail: every figure, then the clients' own figure. */
static void detail_generic(pane *p, int top, int h, int w)
{
	const char *names[32], *fig = p->run->algo->client_figure;
	size_t n = 0;
	int m = (h - 6) / 3, used;

	for (; n < p->run->trace.nfig && n < 31; n++)
		names[n] = p->run->figures[n];
	names[n] = NULL;
	m = m < 2 ? 2 : m > 8 ? 8 : m;
	pane_putf(p, top, 1, w - 2, ROLE_TITLE, "%s has no detail view of its own yet: its "
	          "figures of the last rounds", p->run->name);
	used = 1 + pane_detail_figures(p, top + 1, m, w - 1, names, names);
	if (fig != NULL && p->run->fed != NULL)
		pane_detail_clients(p, top + used + 1, h - used - 1, w, fig);
}

/* One algorithm's detail, and what of it only the newest round has (NULL: it all follows the
 * round shown, as it reads the trace alone). */
typedef struct detail_entry {
	detail_fn draw;     /* draws it */
	const char *newest; /* the part drawn from the algorithm's newest state, or NULL */
} detail_entry;

/* The detail views, by the fb_algo_detail an algorithm names. */
static const detail_entry details[] = {
	[FB_DETAIL_FIGURES] = { detail_generic, NULL },
	[FB_DETAIL_PENALTIES] = { detail_admm, NULL },
	[FB_DETAIL_STRENGTHS] = { detail_mlp, NULL },
	[FB_DETAIL_RESIDUALS] = { detail_mlp_admm, NULL },
	[FB_DETAIL_VOTES] = { pane_detail_fedpc, "the votes and separating sets" },
	[FB_DETAIL_CIRCUITS] = { pane_detail_fedcircuit, "the clients x variables matrix" },
	[FB_DETAIL_MASK] = { detail_feddag, "the distances" },
};

/* The detail view: the round shown, but for what the algorithm keeps of its newest round
 * alone (it keeps no copy per round), which a line above says. */
void pane_draw_detail(pane *p, int top, int h, int w)
{
	const detail_entry *e = NULL;
	char line[240];

	if ((size_t)p->run->algo->detail < sizeof details / sizeof *details &&
	    details[p->run->algo->detail].draw != NULL)
		e = &details[p->run->algo->detail];
	if (e != NULL && e->newest != NULL && pane_upto(p) < fb_run_rounds(p->run)) {
		snprintf(line, sizeof line, "round %zu shown; %s are of the newest round (%zu): %s "
		         "keeps no earlier copy of them", pane_upto(p), e->newest,
		         fb_run_rounds(p->run), p->run->name);
		int used = pane_text(p, line, 0, top, 2, 1, w - 2, ROLE_DIM);

		used = used < 2 ? used : 2;
		top += used;
		h -= used;
	}
	if (e != NULL)
		e->draw(p, top, h, w);
	else
		detail_generic(p, top, h, w);
}
