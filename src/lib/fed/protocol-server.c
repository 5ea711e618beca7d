/* The protocol, the server's side of runs and rounds: it opens a run on every client, sends
 * each round's broadcast and collects the replies, each wait with a deadline; a client that
 * misses one is named and marked as gone, so that later rounds stop at once, or, where the
 * round tolerates it, left out.  At the end of the study it tells every client. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "protocol-int.h"

/* Name client m (from 0) in a sentence's subject: "client 2 ('site-2.csv')". */
static const char *client_name(const fb_proto *p, size_t m, char *buf, size_t n)
{
	if (p->sources == NULL || p->sources[m] == NULL)
		snprintf(buf, n, "client %zu", m + 1); /* before its hello */
	else
		snprintf(buf, n, "client %zu ('%s')", m + 1, p->sources[m]);
	return buf;
}

/* Why client m did not take a message from the server, for a sentence: its process ended,
 * or the deadline passed. */
static const char *not_taken(const fb_proto *p, size_t m, char *buf, size_t n)
{
	if (p->link->ended != NULL && p->link->ended(p->link, (int)m + 1))
		snprintf(buf, n, "has ended (its process is gone)");
	else
		snprintf(buf, n, "did not take the server's message within %g s: it has stopped or "
		         "hung", p->opt.timeout);
	return buf;
}

/* Refuse a round or run that needs a client gone earlier. */
static int check_alive(const fb_proto *p, const bool *part, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	for (size_t m = 0; m < p->k; m++)
		if ((part == NULL || part[m]) && p->gone[m])
			return fb_fail(err, "%s stopped answering earlier: the federation cannot go on "
			                    "without it", client_name(p, m, who, sizeof who));
	return FB_OK;
}

/* Send buf to every client flagged in part (all when NULL), one after another by one
 * deadline. */
int fb_proto_send_clients(fb_proto *p, const bool *part, const unsigned char *buf, size_t len,
                          fb_error *err)
{
	double deadline = fb_clock_now() + p->opt.timeout;
	char who[FB_ERROR_MAX / 2], why[FB_ERROR_MAX / 4];

	for (size_t m = 0; m < p->k; m++) {
		if (part != NULL && !part[m])
			continue;
		if (fb_proto_send(p, (int)m + 1, buf, len, deadline, NULL) != FB_OK) {
			p->gone[m] = true;
			return fb_fail(err, "%s %s, and the run stops", client_name(p, m, who, sizeof who),
			               not_taken(p, m, why, sizeof why));
		}
	}
	return FB_OK;
}

/* The first client still awaited in wait[], named as gone after a deadline. */
static int name_silent(fb_proto *p, const bool *wait, const char *what, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	p->silent = true;
	for (size_t m = 0; m < p->k; m++)
		if (wait[m]) {
			p->gone[m] = true;
			return fb_fail(err, "%s did not answer %s within %g s: it has stopped or hung, "
			                    "and the run stops", client_name(p, m, who, sizeof who),
			               what, p->opt.timeout);
		}
	return fb_fail(err, "%s failed while waiting for %s", p->link->title, what);
}

/* Where a client's frame is decoded, and what it is. */
typedef struct reply {
	fb_msg *into;     /* per client, its reply decoded here, or NULL: into scratch */
	fb_msg *scratch;  /* where a frame goes when into is NULL */
	size_t m;         /* the client it came from */
	fb_wire_head h;   /* its header */
	size_t len;       /* its length */
} reply;

/* One frame of this run and round from a client still awaited: FB_OK with r's client and
 * header filled, 1 for a stale frame to skip, FB_ERR when malformed. */
static int take_reply(fb_proto *p, const unsigned char *buf, int from, const bool *wait,
                      uint32_t round, reply *r, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];
	fb_error why;

	if (from < 1 || from > (int)p->k || !wait[from - 1])
		return 1;
	r->m = (size_t)from - 1;
	if (fb_wire_decode(buf, r->len, &r->h, r->into != NULL ? &r->into[r->m] : r->scratch,
	                   &why) != FB_OK) {
		p->gone[r->m] = true;
		return fb_fail(err, "%s sent a malformed message: %s; the run stops",
		               client_name(p, r->m, who, sizeof who), why.msg);
	}
	if (r->h.run != p->run || r->h.round != round)
		return 1; /* left over from a run or round that stopped early */
	return FB_OK;
}

/* Client m's process was seen to end while the server waited for what: named as gone. */
static int name_ended(fb_proto *p, size_t m, const char *what, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	p->gone[m] = true;
	return fb_fail(err, "%s has ended (its process is gone) before it answered %s, and the "
	                    "run stops", client_name(p, m, who, sizeof who), what);
}

/* The next frame of this run and round from a client in wait[], skipping stale ones, into
 * r; FB_ERR naming the client that stayed silent past deadline or sent garbage; 2 with r->m
 * and err naming the awaited client whose process has ended (one not awaited is marked as
 * gone, and the wait goes on). */
static int await_frame(fb_proto *p, const bool *wait, double deadline, uint32_t round,
                       const char *what, reply *r, fb_error *err)
{
	p->silent = false;
	for (;;) {
		unsigned char *buf;
		int from, got = p->link->recv(p->link, -1, deadline, &buf, &r->len, &from);

		if (got == 2 && from >= 1 && from <= (int)p->k) {
			r->m = (size_t)from - 1;
			if (wait[r->m])
				return name_ended(p, r->m, what, err), 2;
			p->gone[r->m] = true;
			continue;
		}
		if (got != FB_OK)
			return name_silent(p, wait, what, err);
		got = take_reply(p, buf, from, wait, round, r, err);
		free(buf);
		if (got != 1)
			return got;
	}
}

/* Leave out every client still awaited in wait[] (gone and lost this round), when the
 * round tolerates losing clients and the wait ended in silence rather than garbage. */
static bool lose_silent(fb_proto *p, fb_round_io *io, bool *wait)
{
	char who[FB_ERROR_MAX / 2];

	if (!io->tolerate || !p->silent)
		return false;
	for (size_t c = 0; c < io->k; c++)
		if (wait[c]) {
			p->gone[c] = true;
			io->lost[c] = true;
			wait[c] = false;
			snprintf(io->errs[c].msg, sizeof io->errs[c].msg, "%s did not answer round %zu "
			         "within %g s", client_name(p, c, who, sizeof who), io->round,
			         p->opt.timeout);
		}
	return true;
}

/* Leave out client m, whose process has ended, of a round that tolerates losing clients. */
static void lose_ended(fb_proto *p, fb_round_io *io, size_t m, bool *wait)
{
	char who[FB_ERROR_MAX / 2];

	io->lost[m] = true;
	wait[m] = false;
	snprintf(io->errs[m].msg, sizeof io->errs[m].msg, "%s has ended (its process is gone) "
	         "before it answered round %zu", client_name(p, m, who, sizeof who), io->round);
}

/* Collect one round's replies into io, each by the deadline (a client not drawn replies
 * with its figure alone). */
static int collect_replies(fb_proto *p, fb_round_io *io, fb_error *err)
{
	bool *wait = fb_xcalloc(io->k, sizeof *wait);
	size_t left = 0;
	double deadline = fb_clock_now() + p->opt.timeout;
	reply r = { io->up, NULL, 0, { 0 }, 0 };
	char what[64];
	int ret = FB_OK;

	for (size_t c = 0; c < io->k; c++)
		left += wait[c] = io->part[c] && !(io->lost != NULL && io->lost[c]);
	snprintf(what, sizeof what, "round %zu", io->round);
	while (left > 0 && ret == FB_OK) {
		if ((ret = await_frame(p, wait, deadline, (uint32_t)io->round, what, &r, err)) == 2 &&
		    io->tolerate) {
			lose_ended(p, io, r.m, wait);
			left--;
			ret = FB_OK;
			continue;
		}
		if (ret != FB_OK) {
			if (ret == FB_ERR && lose_silent(p, io, wait))
				ret = FB_OK;
			ret = ret == 2 ? FB_ERR : ret;
			break;
		}
		wait[r.m] = false;
		left--;
		io->bytes_up[r.m] = r.len;
		io->figure[r.m] = r.h.figure;
		if (r.h.type == FB_WIRE_FAIL) {
			io->status[r.m] = FB_ERR;
			fb_proto_fail_text(&io->up[r.m], &io->errs[r.m]);
		} else if (r.h.type != FB_WIRE_REPLY) {
			ret = fb_fail(err, "client %zu sent a %s message during round %zu", r.m + 1,
			              fb_wire_type_name(r.h.type), io->round);
		}
	}
	free(wait);
	return ret;
}

/* Client m did not take the round's broadcast in time: lost when the round tolerates it
 * (FB_OK), else named (FB_ERR); gone either way. */
static int send_failed(fb_proto *p, fb_round_io *io, size_t m, fb_error *err)
{
	char who[FB_ERROR_MAX / 2], why[FB_ERROR_MAX / 4];

	p->gone[m] = true;
	if (!io->tolerate)
		return fb_fail(err, "%s %s, and the run stops", client_name(p, m, who, sizeof who),
		               not_taken(p, m, why, sizeof why));
	io->lost[m] = true;
	if (p->link->ended != NULL && p->link->ended(p->link, (int)m + 1))
		snprintf(io->errs[m].msg, sizeof io->errs[m].msg, "%s has ended (its process is "
		         "gone) before round %zu", client_name(p, m, who, sizeof who), io->round);
	else
		snprintf(io->errs[m].msg, sizeof io->errs[m].msg, "%s did not take round %zu's "
		         "broadcast within %g s", client_name(p, m, who, sizeof who), io->round,
		         p->opt.timeout);
	return FB_OK;
}

/* Send the round's broadcast to every client in io->part at once, buf[0] to a drawn one and
 * buf[1] (flagged listen-only) to one that runs its half undrawn, all by one deadline: a
 * client that has not taken it by then is lost or named (send_failed). */
static int send_round(fb_proto *p, fb_round_io *io, unsigned char *const *buf,
                      const size_t *len, fb_error *err)
{
	int *dest = fb_xcalloc(io->k, sizeof *dest);
	unsigned char **bufs = fb_xcalloc(io->k, sizeof *bufs);
	size_t *lens = fb_xcalloc(io->k, sizeof *lens), n = 0;
	bool *failed = fb_xcalloc(io->k, sizeof *failed);
	int ret = FB_OK;

	for (size_t m = 0; m < io->k; m++) {
		int b = io->drawn != NULL && !io->drawn[m];

		if (!io->part[m])
			continue;
		io->bytes_down[m] = len[b];
		dest[n] = (int)m + 1;
		bufs[n] = buf[b];
		lens[n++] = len[b];
	}
	if (n > 0)
		p->link->send(p->link, n, dest, bufs, lens, fb_clock_now() + p->opt.timeout, failed,
		              NULL);
	for (size_t i = 0; i < n; i++)
		if (failed[i] && ret == FB_OK)
			ret = send_failed(p, io, (size_t)dest[i] - 1, err);
	free(dest);
	free(bufs);
	free(lens);
	free(failed);
	return ret;
}

/* Server: one round through the link. */
static int server_exchange(fb_transport *t, fb_round_io *io, fb_error *err)
{
	fb_proto *p = t->impl;
	fb_wire_head h = { FB_WIRE_ROUND, p->run, (uint32_t)io->round, 0, 0 };
	size_t len[2];
	unsigned char *buf[2];
	int ret;

	if (check_alive(p, io->part, err) != FB_OK)
		return FB_ERR;
	buf[0] = fb_wire_encode(&h, io->down, &len[0]);
	h.flags = FB_WIRE_LISTEN;
	buf[1] = fb_wire_encode(&h, io->down, &len[1]);
	ret = send_round(p, io, buf, len, err);
	free(buf[0]);
	free(buf[1]);
	return ret == FB_OK ? collect_replies(p, io, err) : FB_ERR;
}

/* The OPEN frame's payload: k, n, share, and secure aggregation's options (on, t, fraction
 * bits, then the differential privacy's epsilon, delta, sigma and clip) as numbers; algo,
 * seed and words as bytes. */
static void open_payload(const fb_proto *p, const char *algo, char *const *words,
                         size_t nwords, const fb_fed_options *o, fb_msg *m)
{
	fb_buf b = { 0 };
	double *d = fb_msg_doubles(m, 10);
	char seed[32];

	d[0] = (double)p->k;
	d[1] = (double)p->n;
	d[2] = o->share;
	d[3] = o->secure ? 1.0 : 0.0;
	d[4] = (double)o->threshold;
	d[5] = (double)o->secure_bits;
	d[6] = o->dp_epsilon;
	d[7] = o->dp_delta;
	d[8] = o->dp_sigma;
	d[9] = o->dp_clip;
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	fb_buf_append(&b, algo, strlen(algo) + 1);
	fb_buf_append(&b, seed, strlen(seed) + 1);
	for (size_t i = 0; i < nwords; i++)
		fb_buf_append(&b, words[i], strlen(words[i]) + 1);
	memcpy(fb_msg_bytes(m, b.len), b.data, b.len);
	fb_buf_release(&b);
}

/* Wait for every client's READY (or FAIL) to the run just opened. */
static int collect_ready(fb_proto *p, fb_error *err)
{
	size_t left = p->k;
	bool *wait = fb_xcalloc(p->k, sizeof *wait);
	double deadline = fb_clock_now() + p->opt.timeout;
	fb_msg scratch = { 0 };
	reply r = { NULL, &scratch, 0, { 0 }, 0 };
	char who[FB_ERROR_MAX / 2];
	int ret = FB_OK;

	for (size_t c = 0; c < p->k; c++)
		wait[c] = true;
	while (left > 0 && ret == FB_OK) {
		fb_error why;

		if ((ret = await_frame(p, wait, deadline, 0, "the opening of the run", &r, err)) !=
		    FB_OK) {
			ret = FB_ERR;
			break;
		}
		wait[r.m] = false;
		left--;
		if (r.h.type == FB_WIRE_FAIL) {
			fb_proto_fail_text(&scratch, &why);
			ret = fb_fail(err, "%s cannot take part: %s", client_name(p, r.m, who, sizeof who),
			              why.msg);
		}
	}
	fb_msg_release(&scratch);
	free(wait);
	return ret;
}

/* Server: ask every client to build the run. */
static int server_open(fb_transport *t, const char *algo, char *const *words, size_t nwords,
                       const fb_fed_options *o, fb_error *err)
{
	fb_proto *p = t->impl;
	fb_msg m = { 0 };
	fb_wire_head h = { FB_WIRE_OPEN, 0, 0, 0, 0 };
	size_t len;
	unsigned char *buf;
	int ret;

	if (check_alive(p, NULL, err) != FB_OK)
		return FB_ERR;
	h.run = ++p->run;
	open_payload(p, algo, words, nwords, o, &m);
	buf = fb_wire_encode(&h, &m, &len);
	ret = fb_proto_send_clients(p, NULL, buf, len, err);
	free(buf);
	fb_msg_release(&m);
	return ret == FB_OK ? collect_ready(p, err) : FB_ERR;
}

/* The server's transport: the rounds and the runs of its partitions go through p. */
void fb_proto_server_init(fb_proto *p)
{
	p->tr.local = (size_t)-1;
	p->tr.exchange = server_exchange;
	p->tr.open = server_open;
}

/* Send QUIT to every client not gone, each by the deadline; its figure 1 tells them that a
 * client is gone.  Then, within a second, to the gone ones too: one that was only too slow,
 * and is still waiting for the server, ends rather than idles. */
static void quit_clients(fb_proto *p)
{
	fb_wire_head h = { FB_WIRE_QUIT, p->run, 0, p->lost ? 1.0 : 0.0, 0 };
	size_t len;
	unsigned char *buf = fb_wire_encode(&h, NULL, &len);
	double deadline = fb_clock_now() + p->opt.timeout;

	for (size_t m = 0; m < p->k; m++)
		if (!p->gone[m])
			fb_proto_send(p, (int)m + 1, buf, len, deadline, NULL);
	deadline = fb_clock_now() + (p->opt.timeout < 1 ? p->opt.timeout : 1);
	for (size_t m = 0; m < p->k; m++)
		if (p->gone[m])
			fb_proto_send(p, (int)m + 1, buf, len, deadline, NULL);
	free(buf);
}

/* Server: the clients gone, those whose process the link sees ended now included. */
size_t fb_proto_gone(fb_proto *p, fb_error *who)
{
	size_t n = 0;
	char name[FB_ERROR_MAX / 2];

	for (size_t m = 0; p->link->rank == 0 && p->gone != NULL && m < p->k; m++) {
		if (!p->gone[m] && p->link->ended != NULL && p->link->ended(p->link, (int)m + 1))
			p->gone[m] = true;
		if (p->gone[m] && n++ == 0 && who != NULL)
			snprintf(who->msg, sizeof who->msg, "%s", client_name(p, m, name, sizeof name));
	}
	return n;
}

/* End the server's side: once it has heard of its clients, tell them the study is over (a
 * client gone, or seen to have ended, makes the study lost); free what it held. */
void fb_proto_server_end(fb_proto *p)
{
	if (p->gone != NULL) {
		p->lost |= fb_proto_gone(p, NULL) > 0;
		quit_clients(p);
	}
	for (size_t m = 0; p->sources != NULL && m < p->k; m++)
		free(p->sources[m]);
	free(p->sources);
	free(p->gone);
}
