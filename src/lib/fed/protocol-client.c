/* The protocol, a client's side: it says hello with its data's description, hears the
 * server's layout and the runs it opens, answers that each is built, and answers its rounds
 * with the algorithm's client half until the server moves on. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol-int.h"

/* The next frame from the server by deadline (a frame read ahead comes first); FB_OK with
 * *buf and *len, FB_ERR naming the silence or the server's end (then the study is lost). */
static int client_recv(fb_proto *p, double wait, unsigned char **buf, size_t *len,
                       fb_error *err)
{
	int from, ret;

	if (p->pending != NULL) {
		*buf = p->pending;
		*len = p->npending;
		p->pending = NULL;
		return FB_OK;
	}
	ret = p->link->recv(p->link, 0, fb_clock_now() + wait, buf, len, &from);
	if (ret == FB_OK)
		return FB_OK;
	p->lost = true; /* the server is gone or hung: the link cannot end in order */
	if (ret == 1)
		return fb_fail(err, "the server sent nothing for %g s", wait);
	if (ret == 2)
		return fb_fail(err, "the server has ended (its process is gone)");
	return fb_fail(err, "%s failed while waiting for the server", p->link->title);
}

/* Answer one round: run the client half on the broadcast, send the reply or the failure. */
static int answer_round(fb_proto *p, const fb_fed_ops *ops, void *state,
                        const fb_dataset *local, const fb_msg *down, const fb_wire_head *at,
                        fb_msg *up, fb_error *err)
{
	fb_wire_head h = { FB_WIRE_REPLY, p->run, at->round, NAN, 0 };
	fb_error why = { { 0 } };
	fb_msg failure = { 0 };
	unsigned char *buf;
	size_t len;
	int ret;

	if ((p->sec != NULL && ops->server_sum != NULL
	     ? fb_secure_answer(p->sec, ops, state, p->tr.local, local, down, up, &h.figure, &why)
	     : ops->client(state, p->tr.local, local, down, up, &h.figure, &why)) != FB_OK) {
		h.type = FB_WIRE_FAIL;
		memcpy(fb_msg_bytes(&failure, strlen(why.msg) + 1), why.msg, strlen(why.msg) + 1);
	}
	/* not drawn: the half ran (its state moves on), the figure alone goes back */
	buf = fb_wire_encode(&h, h.type == FB_WIRE_FAIL ? &failure
	                         : (at->flags & FB_WIRE_LISTEN) ? NULL : up, &len);
	ret = fb_proto_send(p, 0, buf, len, fb_clock_now() + p->opt.timeout, err);
	free(buf);
	fb_msg_release(&failure);
	return ret;
}

/* Client: answer the run's rounds until the server opens another run or ends. */
int fb_client_serve(fb_proto *p, const fb_fed_ops *ops, void *state, const fb_dataset *local,
                    fb_error *err)
{
	fb_msg down = { 0 }, up = { 0 };
	int ret = FB_OK;

	while (ret == FB_OK) {
		unsigned char *buf;
		size_t len;
		fb_wire_head h;
		fb_error why;

		if ((ret = client_recv(p, p->opt.idle, &buf, &len, err)) != FB_OK)
			break;
		if (fb_wire_decode(buf, len, &h, &down, &why) != FB_OK) {
			free(buf);
			ret = fb_fail(err, "the server sent a malformed message: %s", why.msg);
			break;
		}
		if (h.type == FB_WIRE_OPEN || h.type == FB_WIRE_QUIT) {
			p->pending = buf; /* the next run's business */
			p->npending = len;
			break;
		}
		free(buf);
		if (h.type == FB_WIRE_ROUND && h.run == p->run)
			ret = answer_round(p, ops, state, local, &down, &h, &up, err);
	}
	fb_msg_release(&down);
	fb_msg_release(&up);
	return ret;
}

/* Client-side entry of the server's part: never used. */
static int client_exchange(fb_transport *t, fb_round_io *io, fb_error *err)
{
	return fb_fail(err, "a client runs no server");
}

/* Client-side entry of opening a run: never used. */
static int client_open(fb_transport *t, const char *algo, char *const *words, size_t nwords,
                       const fb_fed_options *o, fb_error *err)
{
	return fb_fail(err, "a client opens no run");
}

/* The client's transport: its own half runs here. */
fb_transport *fb_proto_client_transport(fb_proto *p)
{
	p->tr.exchange = client_exchange;
	p->tr.open = client_open;
	return &p->tr;
}

/* Client: refuse to act on the server's side. */
static int check_client(const fb_proto *p, fb_error *err)
{
	if (p->link->rank == 0)
		return fb_fail(err, "a client needs an %s job in which it is not rank 0",
		               p->link->title);
	return FB_OK;
}

/* Client: describe its data and its keys to the server. */
int fb_proto_hello(fb_proto *p, const fb_dataset *ds, const char *source,
                   const fb_site_keys *keys, fb_error *err)
{
	fb_msg m = { 0 };
	int ret;

	if (check_client(p, err) != FB_OK)
		return FB_ERR;
	fb_wire_schema_encode(ds, source, &m);
	if (keys != NULL)
		fb_wire_keys_put(&m, keys);
	ret = fb_proto_send_head(p, 0, FB_WIRE_HELLO, 0, &m, err);
	fb_msg_release(&m);
	return ret;
}

/* Client: a FAIL frame with the sentence why (or READY when why is NULL). */
static int send_word(fb_proto *p, const char *why, fb_error *err)
{
	fb_msg m = { 0 };
	int ret;

	if (check_client(p, err) != FB_OK)
		return FB_ERR;
	if (why != NULL)
		memcpy(fb_msg_bytes(&m, strlen(why) + 1), why, strlen(why) + 1);
	ret = fb_proto_send_head(p, 0, why != NULL ? FB_WIRE_FAIL : FB_WIRE_READY, 0, &m, err);
	fb_msg_release(&m);
	return ret;
}

/* Client: why it cannot take part, in place of its hello. */
int fb_proto_refuse(fb_proto *p, const char *why, fb_error *err)
{
	return send_word(p, why, err);
}

/* Client: the run is built, or why not. */
int fb_proto_answer(fb_proto *p, const char *failure, fb_error *err)
{
	return send_word(p, failure, err);
}

/* Read an OPEN frame's payload into open. */
static int read_open(const fb_proto *p, const fb_msg *m, fb_proto_open *open, fb_error *err)
{
	size_t at = 0, n = 0;
	const char *w[2];

	memset(open, 0, sizeof *open);
	if (m->nd != 10 || !(m->d[0] >= 1 && m->d[0] < 1e9 && m->d[1] >= 0 && m->d[1] < 1e15) ||
	    !(m->d[4] >= 0 && m->d[4] <= m->d[0] && m->d[5] >= 8 && m->d[5] <= 52))
		return fb_fail(err, "the server's opening of a run is garbled");
	for (int i = 0; i < 2; i++) {
		const unsigned char *end = at < m->nb ? memchr(m->b + at, 0, m->nb - at) : NULL;

		if (end == NULL)
			return fb_fail(err, "the server's opening of a run is cut short");
		w[i] = (const char *)m->b + at;
		at = (size_t)(end - m->b) + 1;
	}
	if (at < m->nb && m->b[m->nb - 1] != 0)
		return fb_fail(err, "the server's opening of a run ends inside a parameter");
	open->algo = fb_xstrdup(w[0]);
	fb_fed_options_init(&open->fed);
	open->fed.seed = strtoull(w[1], NULL, 10);
	open->fed.share = m->d[2];
	open->fed.secure = m->d[3] != 0.0;
	open->fed.threshold = (size_t)m->d[4];
	open->fed.secure_bits = (unsigned)m->d[5];
	open->fed.dp_epsilon = m->d[6];
	open->fed.dp_delta = m->d[7];
	open->fed.dp_sigma = m->d[8];
	open->fed.dp_clip = m->d[9];
	open->k = (size_t)m->d[0];
	open->n = (size_t)m->d[1];
	open->client = p->tr.local;
	open->words = fb_xcalloc(m->nb - at + 1, sizeof *open->words);
	for (size_t i = at; i < m->nb; i++)
		if (i == at || m->b[i - 1] == 0)
			open->words[n++] = fb_xstrdup((const char *)m->b + i);
	open->nwords = n;
	return FB_OK;
}

/* Keep the server's LAYOUT frame: kind, variables, rows, the global id of each column. */
static int read_layout(fb_proto *p, const fb_msg *m, fb_error *err)
{
	const double *d = m->d;

	if (m->nd < 3 || !(d[0] >= 0 && d[0] <= FB_SPLIT_HYBRID && d[1] >= 1 && d[1] < 1e9))
		return fb_fail(err, "the server's layout of the federation is garbled");
	for (size_t j = 3; j < m->nd; j++)
		if (!(d[j] >= 0 && d[j] < d[1]))
			return fb_fail(err, "the server's layout places a column at %g of %g variables",
			               d[j], d[1]);
	free(p->layout.gid);
	p->layout.kind = (enum fb_split_kind)d[0];
	p->layout.d = (size_t)d[1];
	p->layout.n = (size_t)d[2];
	p->layout.ncols = m->nd - 3;
	p->layout.gid = fb_xcalloc(m->nd - 2, sizeof *p->layout.gid);
	for (size_t j = 3; j < m->nd; j++)
		p->layout.gid[j - 3] = (size_t)d[j];
	return FB_OK;
}

/* Client: the federation as the server laid it out (gid NULL before its layout arrived). */
const fb_proto_layout *fb_proto_client_layout(const fb_proto *p)
{
	return &p->layout;
}

/* Client: the server's next word. */
int fb_proto_next(fb_proto *p, fb_proto_open *open, fb_error *err)
{
	fb_msg m = { 0 };
	int ret = FB_ERR;

	for (;;) {
		unsigned char *buf;
		size_t len;
		fb_wire_head h;
		fb_error why;

		if (client_recv(p, p->opt.idle, &buf, &len, err) != FB_OK)
			break;
		ret = fb_wire_decode(buf, len, &h, &m, &why);
		free(buf);
		if (ret != FB_OK) {
			ret = fb_fail(err, "the server sent a malformed message: %s", why.msg);
			break;
		}
		if (h.type == FB_WIRE_QUIT) {
			p->lost = h.figure != 0.0;
			ret = 0;
			break;
		}
		if (h.type == FB_WIRE_OPEN) {
			p->run = h.run;
			ret = read_open(p, &m, open, err) == FB_OK ? 1 : FB_ERR;
			fb_secure_client_free(p->sec);
			p->sec = ret == 1 && open->fed.secure && open->client < open->k
			         ? fb_secure_client_new(open->k, open->client, &open->fed) : NULL;
			break;
		}
		if (h.type == FB_WIRE_LAYOUT && (ret = read_layout(p, &m, err)) != FB_OK)
			break;
	}
	fb_msg_release(&m);
	return ret;
}

/* Free an open. */
void fb_proto_open_release(fb_proto_open *open)
{
	free(open->algo);
	for (size_t i = 0; i < open->nwords; i++)
		free(open->words[i]);
	free(open->words);
	memset(open, 0, sizeof *open);
}
