/* The clients view: one row per client with the rows and columns it holds, whether it took
 * part in the last round, the bytes it sent and received in that round and in all, and its
 * own figure (the algorithm's client_figure), as the last trace record and the ledger have
 * them; the list scrolls when K exceeds the screen. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pane-int.h"

/* Column headings and widths. */
static const struct {
	const char *head; /* heading */
	int w;            /* width, the gap included */
} cols[] = {
	{ "client", 7 }, { "rows", 7 }, { "cols", 5 }, { "round", 6 }, { "up/round", 10 },
	{ "dn/round", 10 }, { "up total", 10 }, { "dn total", 10 }, { "", 11 },
};

/* How many columns. */
#define NCOLS ((int)(sizeof cols / sizeof *cols))

/* Bytes of every client, in one pass over the ledger (the per-client query would scan it
 * once per client and direction). */
typedef struct client_bytes {
	size_t *round[2]; /* this round's bytes, down and up, per client (owned) */
	size_t *total[2]; /* all rounds' bytes, down and up, per client (owned) */
} client_bytes;

/* Sum the bytes of k clients over the trace's records up to round upto (the round's own
 * from its record). */
static void clients_sum(const fb_trace *t, size_t k, size_t upto, client_bytes *b)
{
	for (int d = 0; d < 2; d++) {
		b->round[d] = fb_xcalloc(k, sizeof **b->round);
		b->total[d] = fb_xcalloc(k, sizeof **b->total);
	}
	for (size_t i = 0; i < upto && i < t->n; i++) {
		const fb_trace_rec *r = &t->r[i];

		for (size_t c = 0; c < k && c < r->nclients; c++) {
			b->total[FB_UP][c] += r->sent[c];
			b->total[FB_DOWN][c] += r->received[c];
			if (i + 1 == upto) {
				b->round[FB_UP][c] = r->sent[c];
				b->round[FB_DOWN][c] = r->received[c];
			}
		}
	}
}

/* Free the sums. */
static void clients_sum_free(client_bytes *b)
{
	for (int d = 0; d < 2; d++) {
		free(b->round[d]);
		free(b->total[d]);
	}
}

/* The headings; the last is the client figure's name. */
static void clients_head(const pane *p, int y, int w)
{
	const char *fig = p->run->algo->client_figure;
	int x = 1;

	for (int c = 0; c < NCOLS && x < w; c++) {
		const char *h = c == NCOLS - 1 ? (fig != NULL ? fig : "") : cols[c].head;

		pane_putf(p, y, x, cols[c].w, ROLE_TITLE, "%*.*s", cols[c].w, cols[c].w - 1, h);
		x += cols[c].w;
	}
}

/* The record of the round shown when it has the clients' part in it, or NULL. */
static const fb_trace_rec *clients_last(const pane *p)
{
	const fb_trace_rec *rec = pane_rec(p);

	return rec != NULL && rec->nclients > 0 ? rec : NULL;
}

/* Client k's row. */
static void clients_row(const pane *p, const client_bytes *b, size_t k, int y, int w)
{
	const fb_run *run = p->run;
	const fb_dataset *ds = run->part->clients[k].data;
	const fb_trace_rec *last = clients_last(p);
	bool took = last != NULL && k < last->nclients && last->took[k];
	char cell[NCOLS][32];
	int x = 1;

	snprintf(cell[0], sizeof cell[0], "%zu", k + 1);
	snprintf(cell[1], sizeof cell[1], "%zu", ds->n);
	snprintf(cell[2], sizeof cell[2], "%zu", ds->d);
	snprintf(cell[3], sizeof cell[3], "%s", last == NULL ? "-" : took ? "yes" : "no");
	pane_fmt_bytes(b->round[FB_UP][k], cell[4], sizeof cell[4]);
	pane_fmt_bytes(b->round[FB_DOWN][k], cell[5], sizeof cell[5]);
	pane_fmt_bytes(b->total[FB_UP][k], cell[6], sizeof cell[6]);
	pane_fmt_bytes(b->total[FB_DOWN][k], cell[7], sizeof cell[7]);
	if (last != NULL && last->client_fig != NULL && k < last->nclients)
		pane_fmt_client(run, last->client_fig[k], cols[8].w - 1, cell[8], sizeof cell[8]);
	else
		cell[8][0] = '\0';
	for (int c = 0; c < NCOLS && x < w; c++) {
		enum pane_role role = c == 3 && last != NULL ? (took ? ROLE_GOOD : ROLE_DIM) : ROLE_TEXT;

		pane_putf(p, y, x, cols[c].w, role, "%*s", cols[c].w, cell[c]);
		x += cols[c].w;
	}
}

/* The clients view. */
void pane_draw_clients(pane *p, int top, int h, int w)
{
	const fb_run *run = p->run;
	size_t k, rows = h > 3 ? (size_t)(h - 3) : 1, took = 0;
	const fb_trace_rec *last;
	client_bytes b;

	if (run->fed == NULL || run->part == NULL) {
		pane_put(p, top + 1, 1, w - 2, ROLE_DIM, "this run has no clients: it learns from all "
		         "rows in one place");
		return;
	}
	k = fb_fed_k(run->fed);
	last = clients_last(p);
	for (size_t c = 0; last != NULL && c < k && c < last->nclients; c++)
		took += last->took[c];
	pane_putf(p, top, 1, w - 2, ROLE_TEXT, "round %zu: %zu of %zu clients took part (share "
	          "%g); split %s", pane_upto(p), took, k, run->fedopt.share, run->part->desc);
	clients_head(p, top + 1, w - 1);
	if (p->list_first + rows > k)
		p->list_first = k > rows ? k - rows : 0;
	clients_sum(&run->trace, k, pane_upto(p), &b);
	for (size_t c = p->list_first; c < k && c < p->list_first + rows; c++)
		clients_row(p, &b, c, top + 2 + (int)(c - p->list_first), w - 1);
	clients_sum_free(&b);
	if (k > rows)
		pane_putf(p, top + h - 1, 1, w - 2, ROLE_DIM, "clients %zu-%zu of %zu (arrows scroll)",
		          p->list_first + 1, p->list_first + rows, k);
}
