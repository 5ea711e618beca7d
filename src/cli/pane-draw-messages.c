/* The messages view: the round shown in one sentence (the algorithm's own), the broadcast the
 * clients received and what each client sent, their sizes always and their values where the
 * algorithm writes them in words (FedPC's votes and separating sets, NOTEARS-ADMM's matrices
 * for d <= 12), after what the server received (ledger's line: under secure=yes the sum of
 * the clients' vectors and its numbers).  It reads the run's trace alone; the list scrolls with the arrows. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ledger-view.h"
#include "pane-int.h"

/* Append the message client k sent or received in rec, in words or why not. */
static void messages_text(const fb_run *run, const fb_trace_rec *rec, enum fb_dir dir,
                          size_t k, fb_buf *b)
{
	fb_error err = { { 0 } };
	size_t before = b->len;

	if (fb_run_message_text(run, rec, dir, k, b, &err) != FB_OK) {
		b->len = before;
		if (b->data != NULL)
			b->data[before] = '\0';
		fb_buf_printf(b, "(%s)", err.msg);
	}
	fb_buf_printf(b, "\n");
}

/* The whole view as text: what the server received (under secure=yes the clients' sum,
 * with its numbers), the broadcast, then one paragraph per client. */
static void messages_build(const pane *p, const fb_trace_rec *rec, fb_buf *b)
{
	const fb_run *run = p->run;
	char sz[32], rz[32];
	size_t first = 0;

	while (first < rec->nclients && !rec->took[first])
		first++;
	fb_ledger_round(b, run, rec, true, false);
	if (first < rec->nclients) {
		fb_buf_printf(b, "broadcast: each client taking part received %s\n",
		              pane_fmt_bytes(rec->received[first], rz, sizeof rz));
		messages_text(run, rec, FB_DOWN, first, b);
	}
	for (size_t k = 0; k < rec->nclients; k++) {
		if (!rec->took[k]) {
			fb_buf_printf(b, "client %zu sat this round out\n", k + 1);
			continue;
		}
		fb_buf_printf(b, "client %zu sent %s, received %s\n", k + 1,
		              pane_fmt_bytes(rec->sent[k], sz, sizeof sz),
		              pane_fmt_bytes(rec->received[k], rz, sizeof rz));
		messages_text(run, rec, FB_UP, k, b);
	}
}

/* The messages view. */
void pane_draw_messages(pane *p, int top, int h, int w)
{
	const fb_trace_rec *rec = pane_rec(p);
	fb_buf b = { 0 };
	int used, rows;

	if (rec == NULL) {
		pane_put(p, top + 1, 1, w - 2, ROLE_DIM, "no round yet: n steps one");
		return;
	}
	fb_buf_printf(&b, "round %zu: %s", rec->round, rec->say != NULL ? rec->say : "");
	used = pane_text(p, b.data, 0, top, h / 4, 1, w - 2, ROLE_TITLE);
	used = used < h / 4 ? used : h / 4;
	if (rec->nclients == 0) {
		pane_put(p, top + used + 1, 1, w - 2, ROLE_DIM, "no message this round: it ran in "
		         "one place");
		fb_buf_release(&b);
		return;
	}
	b.len = 0;
	messages_build(p, rec, &b);
	rows = pane_text(p, b.data, p->list_first, top + used + 1, h - used - 2, 1, w - 2,
	                 ROLE_TEXT);
	if (p->list_first > 0 && (int)p->list_first >= rows)
		p->list_first = rows > 0 ? (size_t)rows - 1 : 0;
	if (rows > h - used - 2)
		pane_putf(p, top + h - 1, 1, w - 2, ROLE_DIM, "lines %zu-%zu of %d (arrows scroll)",
		          p->list_first + 1, p->list_first + (size_t)(h - used - 2), rows);
	fb_buf_release(&b);
}
