/* FedPC's messages in words, for a reader of the trace: a layer's skeleton and each client's
 * votes as lists of named pairs, FedOrien's pairs and triples, and each client's separating
 * sets with their p-values.  Only small messages are written (d <= FEDPC_TEXT_MAX_D). */
#include "config.h"

#include <math.h>

#include "fedpc-int.h"

/* The largest number of variables whose messages are written out. */
#define FEDPC_TEXT_MAX_D 40

/* The name of the variable of rank r. */
static const char *rank_name(const fedpc_common *c, size_t r)
{
	return c->names[c->global_of[r]];
}

/* The pairs set in a packed skeleton, as "A-B, C-D"; returns how many. */
static size_t text_pairs(const fedpc_common *c, const unsigned char *bits, fb_buf *out)
{
	size_t n = 0, p = 0;

	for (size_t i = 0; i < c->d; i++)
		for (size_t j = i + 1; j < c->d; j++, p++)
			if (fedpc_bit(bits, p))
				fb_buf_printf(out, "%s%s-%s", n++ ? ", " : "", rank_name(c, i),
				              rank_name(c, j));
	if (n == 0)
		fb_buf_printf(out, "none");
	return n;
}

/* FedOrien's broadcast: each end pair with the middles of its triples. */
static void text_orient_down(const fedpc_common *c, const fb_msg *m, fb_buf *out)
{
	size_t nb = fedpc_bits_bytes(c->d), P;
	const unsigned char *p = m->b + nb, *end = m->b + m->nb;

	if (m->nb < nb + 4)
		return;
	P = fedpc_get_id(&p, 4);
	fb_buf_printf(out, "FedOrien: find a separating set for %zu pair%s:", P, P == 1 ? "" : "s");
	for (size_t a = 0; a < P && (size_t)(end - p) >= 4 * c->w; a++) {
		size_t i = fedpc_get_id(&p, c->w), j = fedpc_get_id(&p, c->w);
		size_t layer = fedpc_get_id(&p, c->w), nm = fedpc_get_id(&p, c->w);

		if (i >= c->d || j >= c->d || (size_t)(end - p) < nm * c->w)
			return;
		fb_buf_printf(out, "%s %s, %s (removed at layer %zu; middle%s", a ? ";" : "",
		              rank_name(c, i), rank_name(c, j), layer, nm == 1 ? "" : "s");
		for (size_t t = 0; t < nm; t++) {
			size_t k = fedpc_get_id(&p, c->w);

			fb_buf_printf(out, " %s", k < c->d ? rank_name(c, k) : "?");
		}
		fb_buf_printf(out, ")");
	}
}

/* A client's FedOrien reply: per end pair (in the order of the server's triples), its
 * highest p-value and the set that gave it. */
static void text_orient_up(const fedpc_state *st, const fb_msg *m, fb_buf *out)
{
	const fedpc_common *c = &st->c;
	const unsigned char *p = m->b, *end = m->b + m->nb;
	size_t a = 0;

	fb_buf_printf(out, "separating sets (highest p over the sets tried):");
	for (size_t t0 = 0, t1; t0 < st->ntri && a < m->nd; t0 = t1, a++) {
		const size_t *tri = st->tri + 3 * t0;
		size_t n;

		for (t1 = t0 + 1; t1 < st->ntri && st->tri[3 * t1] == tri[0] &&
		     st->tri[3 * t1 + 2] == tri[2];)
			t1++;
		if ((size_t)(end - p) < c->w || (n = fedpc_get_id(&p, c->w)) > c->d ||
		    (size_t)(end - p) < n * c->w)
			return;
		fb_buf_printf(out, "%s %s, %s: ", a ? ";" : "", rank_name(c, tri[0]),
		              rank_name(c, tri[2]));
		if (m->d[a] < 0)
			fb_buf_printf(out, "no set with p > alpha");
		else
			fb_buf_printf(out, "p = %.3g given {", m->d[a]);
		for (size_t t = 0; t < n; t++) {
			size_t v = fedpc_get_id(&p, c->w);

			if (m->d[a] >= 0)
				fb_buf_printf(out, "%s%s", t ? ", " : "", v < c->d ? rank_name(c, v) : "?");
		}
		if (m->d[a] >= 0)
			fb_buf_printf(out, "}");
	}
}

/* A fedpc message in words. */
void fedpc_message_text(const fb_run *run, enum fb_dir dir, const fb_msg *m, fb_buf *out)
{
	const fedpc_state *st = run->state;
	const fedpc_common *c = &st->c;
	size_t nb = fedpc_bits_bytes(c->d);

	if (c->d > FEDPC_TEXT_MAX_D)
		return;
	if (dir == FB_DOWN && m->nd >= 2 && m->d[0] == FEDPC_DIGIT) {
		fb_buf_printf(out, "FedOrien through sums: the first %.0f hex digit%s of each end "
		              "pair's highest key (its p-value's bits, then the client); each client "
		              "whose key begins so marks its next digit", m->d[1],
		              m->d[1] == 1 ? "" : "s");
	} else if (dir == FB_DOWN && m->nd >= 1 && m->d[0] == FEDPC_REVEAL) {
		fb_buf_printf(out, "FedOrien through sums: the client whose set wins each of %zu end "
		              "pair%s; only the winner of a pair fills its slots", m->nb / 4,
		              m->nb == 4 ? "" : "s");
	} else if (dir == FB_DOWN && m->nd >= 1 && m->d[0] < 0) {
		text_orient_down(c, m, out);
	} else if (dir == FB_DOWN && m->nd >= 1 && m->nb == nb) {
		fb_buf_printf(out, "layer %.0f: test the pairs of this skeleton given %.0f other "
		              "variable%s: ", m->d[0], m->d[0], m->d[0] == 1 ? "" : "s");
		text_pairs(c, m->b, out);
	} else if (dir == FB_UP && m->nd == 0 && m->nb == nb) {
		fb_buf_printf(out, "votes to keep: ");
		text_pairs(c, m->b, out);
	} else if (dir == FB_UP && st->tri != NULL) {
		text_orient_up(st, m, out);
	}
}
