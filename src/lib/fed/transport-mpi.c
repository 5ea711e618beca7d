/* The MPI transport: frames of the wire format over MPI_COMM_WORLD, rank 0 the server, rank
 * k + 1 client k.  No wait blocks: sends are MPI_Isend completed by MPI_Test, receives are
 * MPI_Iprobe polled, each against a deadline; a peer that misses it is named and, on the
 * server, marked as gone so that later rounds stop at once. */
#include "config.h"

#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fedbn/fedmpi.h"
#include "fedbn/wire.h"

/* The one tag of fedbn's frames. */
#define MPI_TAG_FRAME 7

/* This process's side of the job. */
static struct mpi_side {
	bool started;             /* MPI is initialised */
	int rank, size;           /* this process, and the job */
	fb_mpi_options opt;       /* deadlines */
	uint32_t run;             /* server: the run last opened; client: the run it serves */
	size_t n;                 /* server: rows of all clients */
	bool *gone;               /* server: size - 1 flags, the client missed a deadline */
	char **sources;           /* server: size - 1 client file names (owned) */
	bool lost;                /* a client is gone: MPI cannot be finalised in order */
	bool silent;              /* server: the last wait for clients ended at its deadline */
	unsigned char *pending;   /* client: a frame read ahead of its run's end (owned) */
	size_t npending;          /* its length */
	fb_mpi_layout layout;     /* client: the federation as the server laid it out */
} mpi;

/* Wait a little between polls: yield a few times, then sleep for a time that doubles from
 * 10 us up to 200 us (a millisecond after ten idle seconds), so that processes sharing cores
 * with a busy peer leave it the processor yet answer a message within a fraction of a
 * millisecond. */
static void poll_pause(unsigned *spins)
{
	struct timespec ts = { 0, 10000 };
	unsigned k = ++*spins;

	if (k < 16) {
		sched_yield();
		return;
	}
	for (unsigned i = 16; i < k && ts.tv_nsec < 200000; i += 16)
		ts.tv_nsec *= 2;
	if (ts.tv_nsec > 200000)
		ts.tv_nsec = 200000;
	if (k > 50000)
		ts.tv_nsec = 1000000;
	nanosleep(&ts, NULL);
}

/* Send len bytes to dest, done by deadline; FB_ERR naming the peer otherwise. */
static int send_frame(int dest, const unsigned char *buf, size_t len, double deadline,
                      fb_error *err)
{
	MPI_Request req;
	unsigned spins = 0;
	int done = 0;

	if (len > (size_t)INT32_MAX)
		return fb_fail(err, "a message of %zu bytes is too large to send", len);
	if (MPI_Isend(buf, (int)len, MPI_BYTE, dest, MPI_TAG_FRAME, MPI_COMM_WORLD, &req) !=
	    MPI_SUCCESS)
		return fb_fail(err, "MPI could not send to rank %d", dest);
	while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
		if (fb_clock_now() > deadline) {
			MPI_Cancel(&req);
			MPI_Request_free(&req);
			return fb_fail(err, "rank %d did not take a message within the deadline", dest);
		}
		poll_pause(&spins);
	}
	return done ? FB_OK : fb_fail(err, "MPI failed while sending to rank %d", dest);
}

/* Receive the next frame from src (or MPI_ANY_SOURCE) by deadline: FB_OK with *buf (caller
 * frees), *len and *from; 1 when the deadline passed; FB_ERR on an MPI failure. */
static int recv_frame(int src, double deadline, unsigned char **buf, size_t *len, int *from)
{
	MPI_Status st;
	unsigned spins = 0;
	int flag = 0, count;

	while (MPI_Iprobe(src, MPI_TAG_FRAME, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && !flag) {
		if (fb_clock_now() > deadline)
			return 1;
		poll_pause(&spins);
	}
	if (!flag || MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
		return FB_ERR;
	*buf = fb_xmalloc(count > 0 ? (size_t)count : 1);
	*len = (size_t)count;
	*from = st.MPI_SOURCE;
	if (MPI_Recv(*buf, count, MPI_BYTE, st.MPI_SOURCE, MPI_TAG_FRAME, MPI_COMM_WORLD,
	             MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		free(*buf);
		return FB_ERR;
	}
	return FB_OK;
}

/* Encode and send one frame to dest by the answer deadline. */
static int send_head(int dest, enum fb_wire_type type, double figure, const fb_msg *m,
                     fb_error *err)
{
	fb_wire_head h = { type, mpi.run, 0, figure, 0 };
	size_t len;
	unsigned char *buf = fb_wire_encode(&h, m, &len);
	int ret = send_frame(dest, buf, len, fb_clock_now() + mpi.opt.timeout, err);

	free(buf);
	return ret;
}

/* ---- server side ---- */

/* Name client m (from 0) in a sentence's subject: "client 2 ('site-2.csv')". */
static const char *client_name(size_t m, char *buf, size_t n)
{
	snprintf(buf, n, "client %zu ('%s')", m + 1, mpi.sources[m]);
	return buf;
}

/* Refuse a round or run that needs a client gone earlier. */
static int check_alive(const bool *part, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	for (int m = 0; m + 1 < mpi.size; m++)
		if ((part == NULL || part[m]) && mpi.gone[m])
			return fb_fail(err, "%s stopped answering earlier: the federation cannot go on "
			                    "without it", client_name((size_t)m, who, sizeof who));
	return FB_OK;
}

/* Send buf to every client flagged in part (all when NULL); bytes sent into sent[m]. */
static int send_to_clients(const bool *part, const unsigned char *buf, size_t len,
                           size_t *sent, fb_error *err)
{
	double deadline = fb_clock_now() + mpi.opt.timeout;
	char who[FB_ERROR_MAX / 2];

	for (int m = 0; m + 1 < mpi.size; m++) {
		if (part != NULL && !part[m])
			continue;
		if (send_frame(m + 1, buf, len, deadline, NULL) != FB_OK) {
			mpi.gone[m] = true;
			return fb_fail(err, "%s did not take the server's message within %g s: it has "
			                    "stopped or hung, and the run stops",
			               client_name((size_t)m, who, sizeof who), mpi.opt.timeout);
		}
		if (sent != NULL)
			sent[m] = len;
	}
	return FB_OK;
}

/* The first client still awaited in wait[], named as gone after a deadline. */
static int name_silent(const bool *wait, const char *what, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	mpi.silent = true;
	for (int m = 0; m + 1 < mpi.size; m++)
		if (wait[m]) {
			mpi.gone[m] = true;
			return fb_fail(err, "%s did not answer %s within %g s: it has stopped or hung, "
			                    "and the run stops", client_name((size_t)m, who, sizeof who),
			               what, mpi.opt.timeout);
		}
	return fb_fail(err, "MPI failed while waiting for %s", what);
}

/* One frame of this run and round from a client still awaited: FB_OK with *m and *h filled
 * (m decoded into into[*m] when into != NULL, else into scratch), 1 for a stale frame to
 * skip, FB_ERR when malformed. */
static int take_reply(const unsigned char *buf, size_t len, int from, const bool *wait,
                      uint32_t round, fb_msg *into, fb_msg *scratch, size_t *m,
                      fb_wire_head *h, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];
	fb_error why;

	if (from < 1 || from >= mpi.size || !wait[from - 1])
		return 1;
	*m = (size_t)from - 1;
	if (fb_wire_decode(buf, len, h, into != NULL ? &into[*m] : scratch, &why) != FB_OK) {
		mpi.gone[*m] = true;
		return fb_fail(err, "%s sent a malformed message: %s; the run stops",
		               client_name(*m, who, sizeof who), why.msg);
	}
	if (h->run != mpi.run || h->round != round)
		return 1; /* left over from a run or round that stopped early */
	return FB_OK;
}

/* The text of a FAIL frame's bytes, bounded and terminated. */
static void fail_text(const fb_msg *m, fb_error *out)
{
	size_t n = m->nb < FB_ERROR_MAX - 1 ? m->nb : FB_ERROR_MAX - 1;

	if (n > 0)
		memcpy(out->msg, m->b, n);
	out->msg[n] = '\0';
	if (out->msg[0] == '\0')
		snprintf(out->msg, sizeof out->msg, "it gave no reason");
}

/* The next frame of this run and round from a client in wait[], skipping stale ones: FB_OK
 * with its client *m, header *h and length *len (decoded into into[*m], or scratch when into
 * is NULL); FB_ERR naming the client that stayed silent past deadline or sent garbage. */
static int await_frame(const bool *wait, double deadline, uint32_t round, const char *what,
                       fb_msg *into, fb_msg *scratch, size_t *m, fb_wire_head *h,
                       size_t *len, fb_error *err)
{
	mpi.silent = false;
	for (;;) {
		unsigned char *buf;
		int from, got = recv_frame(MPI_ANY_SOURCE, deadline, &buf, len, &from);

		if (got != FB_OK)
			return name_silent(wait, what, err);
		got = take_reply(buf, *len, from, wait, round, into, scratch, m, h, err);
		free(buf);
		if (got != 1)
			return got;
	}
}

/* Leave out every client still awaited in wait[] (gone and lost this round), when the
 * round tolerates losing clients and the wait ended in silence rather than garbage. */
static bool lose_silent(fb_round_io *io, bool *wait)
{
	char who[FB_ERROR_MAX / 2];

	if (!io->tolerate || !mpi.silent)
		return false;
	for (size_t c = 0; c < io->k; c++)
		if (wait[c]) {
			mpi.gone[c] = true;
			io->lost[c] = true;
			wait[c] = false;
			snprintf(io->errs[c].msg, sizeof io->errs[c].msg, "%s did not answer round %zu "
			         "within %g s", client_name(c, who, sizeof who), io->round,
			         mpi.opt.timeout);
		}
	return true;
}

/* Collect one round's replies into io, each by the deadline (a client not drawn replies
 * with its figure alone). */
static int collect_replies(fb_round_io *io, fb_error *err)
{
	bool *wait = fb_xcalloc(io->k, sizeof *wait);
	size_t left = 0, m;
	double deadline = fb_clock_now() + mpi.opt.timeout;
	char what[64];
	int ret = FB_OK;

	for (size_t c = 0; c < io->k; c++)
		left += wait[c] = io->part[c] && !(io->lost != NULL && io->lost[c]);
	snprintf(what, sizeof what, "round %zu", io->round);
	while (left > 0 && ret == FB_OK) {
		size_t len;
		fb_wire_head h;

		if ((ret = await_frame(wait, deadline, (uint32_t)io->round, what, io->up, NULL, &m,
		                       &h, &len, err)) != FB_OK) {
			if (lose_silent(io, wait))
				ret = FB_OK;
			break;
		}
		wait[m] = false;
		left--;
		io->bytes_up[m] = len;
		io->figure[m] = h.figure;
		if (h.type == FB_WIRE_FAIL) {
			io->status[m] = FB_ERR;
			fail_text(&io->up[m], &io->errs[m]);
		} else if (h.type != FB_WIRE_REPLY) {
			ret = fb_fail(err, "client %zu sent a %s message during round %zu", m + 1,
			              fb_wire_type_name(h.type), io->round);
		}
	}
	free(wait);
	return ret;
}

/* Client m did not take the round's broadcast in time: lost when the round tolerates it
 * (FB_OK), else named (FB_ERR); gone either way. */
static int send_failed(fb_round_io *io, size_t m, fb_error *err)
{
	char who[FB_ERROR_MAX / 2];

	mpi.gone[m] = true;
	if (!io->tolerate)
		return fb_fail(err, "%s did not take the server's message within %g s: it has "
		                    "stopped or hung, and the run stops",
		               client_name(m, who, sizeof who), mpi.opt.timeout);
	io->lost[m] = true;
	snprintf(io->errs[m].msg, sizeof io->errs[m].msg, "%s did not take round %zu's broadcast "
	         "within %g s", client_name(m, who, sizeof who), io->round, mpi.opt.timeout);
	return FB_OK;
}

/* Post the round's broadcast to every client in io->part at once, buf[0] to a drawn one and
 * buf[1] (flagged listen-only) to one that runs its half undrawn, then wait for them all by
 * one deadline: a client that has not taken it by then is lost or named (send_failed). */
static int send_round(fb_round_io *io, unsigned char *const *buf, const size_t *len,
                      fb_error *err)
{
	MPI_Request *req = fb_xcalloc(io->k, sizeof *req);
	bool *bad = fb_xcalloc(io->k, sizeof *bad);
	double deadline = fb_clock_now() + mpi.opt.timeout;
	size_t left = 0;
	unsigned spins = 0;
	int ret = FB_OK;

	for (size_t m = 0; m < io->k; m++) {
		int b = io->drawn != NULL && !io->drawn[m];

		req[m] = MPI_REQUEST_NULL;
		if (!io->part[m])
			continue;
		io->bytes_down[m] = len[b];
		bad[m] = len[b] > (size_t)INT32_MAX ||
		         MPI_Isend(buf[b], (int)len[b], MPI_BYTE, (int)m + 1, MPI_TAG_FRAME,
		                   MPI_COMM_WORLD, &req[m]) != MPI_SUCCESS;
		left += !bad[m];
	}
	while (left > 0) {
		left = 0;
		for (size_t m = 0; m < io->k; m++) {
			int done = 0;

			if (req[m] == MPI_REQUEST_NULL || bad[m])
				continue;
			bad[m] = MPI_Test(&req[m], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS;
			left += !bad[m] && !done;
		}
		if (left > 0 && fb_clock_now() > deadline)
			break;
		if (left > 0)
			poll_pause(&spins);
	}
	for (size_t m = 0; m < io->k; m++) {
		if (req[m] != MPI_REQUEST_NULL && !bad[m]) { /* still pending at the deadline */
			MPI_Cancel(&req[m]);
			MPI_Request_free(&req[m]);
			bad[m] = true;
		}
		if (bad[m] && ret == FB_OK)
			ret = send_failed(io, m, err);
	}
	free(req);
	free(bad);
	return ret;
}

/* Server: one round over MPI. */
static int server_exchange(fb_transport *t, fb_round_io *io, fb_error *err)
{
	fb_wire_head h = { FB_WIRE_ROUND, mpi.run, (uint32_t)io->round, 0, 0 };
	size_t len[2];
	unsigned char *buf[2];
	int ret;

	if (check_alive(io->part, err) != FB_OK)
		return FB_ERR;
	buf[0] = fb_wire_encode(&h, io->down, &len[0]);
	h.flags = FB_WIRE_LISTEN;
	buf[1] = fb_wire_encode(&h, io->down, &len[1]);
	ret = send_round(io, buf, len, err);
	free(buf[0]);
	free(buf[1]);
	return ret == FB_OK ? collect_replies(io, err) : FB_ERR;
}

/* The OPEN frame's payload: k, n, share as numbers; algo, seed and words as bytes. */
static void open_payload(const char *algo, char *const *words, size_t nwords,
                         const fb_fed_options *o, fb_msg *m)
{
	fb_buf b = { 0 };
	double *d = fb_msg_doubles(m, 3);
	char seed[32];

	d[0] = (double)(mpi.size - 1);
	d[1] = (double)mpi.n;
	d[2] = o->share;
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
	fb_buf_append(&b, algo, strlen(algo) + 1);
	fb_buf_append(&b, seed, strlen(seed) + 1);
	for (size_t i = 0; i < nwords; i++)
		fb_buf_append(&b, words[i], strlen(words[i]) + 1);
	memcpy(fb_msg_bytes(m, b.len), b.data, b.len);
	fb_buf_release(&b);
}

/* Wait for every client's READY (or FAIL) to the run just opened. */
static int collect_ready(fb_error *err)
{
	size_t k = (size_t)mpi.size - 1, left = k, m;
	bool *wait = fb_xcalloc(k, sizeof *wait);
	double deadline = fb_clock_now() + mpi.opt.timeout;
	fb_msg scratch = { 0 };
	char who[FB_ERROR_MAX / 2];
	int ret = FB_OK;

	for (size_t c = 0; c < k; c++)
		wait[c] = true;
	while (left > 0 && ret == FB_OK) {
		size_t len;
		fb_wire_head h;
		fb_error why;

		if ((ret = await_frame(wait, deadline, 0, "the opening of the run", NULL, &scratch,
		                       &m, &h, &len, err)) != FB_OK)
			break;
		wait[m] = false;
		left--;
		if (h.type == FB_WIRE_FAIL) {
			fail_text(&scratch, &why);
			ret = fb_fail(err, "%s cannot take part: %s", client_name(m, who, sizeof who),
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
	fb_msg m = { 0 };
	fb_wire_head h = { FB_WIRE_OPEN, 0, 0, 0, 0 };
	size_t len;
	unsigned char *buf;
	int ret;

	if (check_alive(NULL, err) != FB_OK)
		return FB_ERR;
	h.run = ++mpi.run;
	open_payload(algo, words, nwords, o, &m);
	buf = fb_wire_encode(&h, &m, &len);
	ret = send_to_clients(NULL, buf, len, NULL, err);
	free(buf);
	fb_msg_release(&m);
	return ret == FB_OK ? collect_ready(err) : FB_ERR;
}

/* Client-side entry of the server's transport: never used (no client runs on the server). */
static int server_serve(fb_transport *t, const fb_fed_ops *ops, void *state,
                        const fb_dataset *local, fb_error *err)
{
	return fb_fail(err, "the server runs no client");
}

/* The server's transport. */
static fb_transport server_tr = { "mpi", (size_t)-1, NULL, server_exchange, server_serve,
	                          server_open };

/* Read client from's hello into schemas[from - 1], rows[from - 1] and its keys. */
static int take_hello(const unsigned char *buf, size_t len, int from, fb_dataset **schemas,
                      size_t *rows, fb_site_keys *keys, int *keyed, fb_error *err)
{
	fb_msg m = { 0 };
	fb_wire_head h = { 0 };
	fb_error why = { { 0 } };
	size_t c = (size_t)from - 1;

	if (fb_wire_decode(buf, len, &h, &m, &why) == FB_OK && h.type == FB_WIRE_FAIL) {
		fail_text(&m, &why);
		fb_msg_release(&m);
		return fb_fail(err, "client %zu cannot take part: %s", c + 1, why.msg);
	}
	if (why.msg[0] == '\0' && h.type != FB_WIRE_HELLO)
		snprintf(why.msg, sizeof why.msg, "it did not start with a hello");
	if (why.msg[0] == '\0' && (keyed[c] = fb_wire_keys_take(&m, &keys[c], &why)) < 0)
		keyed[c] = 0;
	if (why.msg[0] != '\0' ||
	    (schemas[c] = fb_wire_schema_decode(&m, &rows[c], &mpi.sources[c], &why)) == NULL) {
		fb_msg_release(&m);
		return fb_fail(err, "client %zu sent a malformed description of its data: %s", c + 1,
		               why.msg);
	}
	fb_msg_release(&m);
	return FB_OK;
}

/* What the clients' hellos tell: each one's variables, rows and keys. */
typedef struct hellos {
	fb_dataset **schemas; /* per client (owned) */
	size_t *rows;         /* per client */
	fb_site_keys *keys;   /* per client */
	int *keyed;           /* per client: 1 when it named a key column */
} hellos;

/* Wait for every client's hello. */
static int collect_hellos(hellos *hs, fb_error *err)
{
	size_t k = (size_t)mpi.size - 1, left = k;
	double deadline = fb_clock_now() + mpi.opt.timeout;

	while (left > 0) {
		unsigned char *buf;
		size_t len;
		int from, ret;

		if (recv_frame(MPI_ANY_SOURCE, deadline, &buf, &len, &from) != FB_OK) {
			for (size_t c = 0; c < k; c++)
				if (hs->schemas[c] == NULL)
					return fb_fail(err, "client %zu did not describe its data within %g s "
					                    "(did its file load?)", c + 1, mpi.opt.timeout);
			return fb_fail(err, "MPI failed while waiting for the clients");
		}
		ret = from >= 1 && hs->schemas[from - 1] == NULL
		      ? take_hello(buf, len, from, hs->schemas, hs->rows, hs->keys, hs->keyed, err)
		      : FB_OK;
		free(buf);
		if (ret != FB_OK)
			return FB_ERR;
		left -= from >= 1 && hs->schemas[from - 1] != NULL;
	}
	return FB_OK;
}

/* Either every client named a key column or none did. */
static int check_keyed(const int *keyed, size_t k, fb_error *err)
{
	for (size_t c = 1; c < k; c++)
		if (keyed[c] != keyed[0])
			return fb_fail(err, "client %zu ('%s') %s a key column and client 1 ('%s') %s: "
			                    "start every client with the same --key", c + 1,
			               mpi.sources[c], keyed[c] ? "names" : "names no",
			               mpi.sources[0], keyed[0] ? "does" : "none");
	return FB_OK;
}

/* Tell client c its place in the federation p: the kind, the variables, the rows, and the
 * global id of each of its columns in its own order (site holds them). */
static int send_layout(const fb_partition *p, const fb_dataset *schema,
                       const fb_dataset *site, size_t c, fb_error *err)
{
	fb_msg m = { 0 };
	double *d = fb_msg_doubles(&m, 3 + site->d);
	bool *part = fb_xcalloc(p->k, sizeof *part);
	fb_wire_head h = { .type = FB_WIRE_LAYOUT };
	unsigned char *buf;
	size_t len;
	int ret;

	d[0] = (double)p->kind;
	d[1] = (double)p->d;
	d[2] = (double)p->n;
	for (size_t j = 0; j < site->d; j++)
		d[3 + j] = (double)fb_dataset_find(schema, site->vars[j].name);
	part[c] = true;
	buf = fb_wire_encode(&h, &m, &len);
	ret = send_to_clients(part, buf, len, NULL, err);
	free(buf);
	free(part);
	fb_msg_release(&m);
	return ret;
}

/* The federation of the clients' sites, reached through the server's transport; each client
 * told its place. */
static fb_partition *remote_partition(hellos *hs, fb_dataset **schema, fb_error *err)
{
	size_t k = (size_t)mpi.size - 1;
	fb_partition *p;
	char *desc;

	if (check_keyed(hs->keyed, k, err) != FB_OK)
		return NULL;
	p = fb_sites_partition((const fb_dataset *const *)hs->schemas, hs->rows,
	                       hs->keyed[0] ? hs->keys : NULL, mpi.sources, k, schema, err);
	if (p == NULL)
		return NULL;
	p->transport = &server_tr;
	desc = fb_xasprintf("mpi %s", p->desc);
	free(p->desc);
	p->desc = desc;
	mpi.n = p->n;
	for (size_t c = 0; c < k; c++)
		if (send_layout(p, *schema, hs->schemas[c], c, err) != FB_OK) {
			fb_partition_free(p);
			fb_dataset_free(*schema);
			*schema = NULL;
			return NULL;
		}
	return p;
}

/* Server: wait for the hellos, check the sites agree, build the partition. */
fb_partition *fb_mpi_connect(const fb_mpi_options *o, fb_dataset **schema, fb_error *err)
{
	size_t k = mpi.size > 1 ? (size_t)mpi.size - 1 : 0;
	hellos hs;
	fb_partition *p = NULL;

	if (!mpi.started || mpi.rank != 0 || k == 0)
		return fb_fail(err, "the server needs an MPI job with at least one client"), NULL;
	mpi.opt = *o;
	hs.schemas = fb_xcalloc(k, sizeof *hs.schemas);
	hs.rows = fb_xcalloc(k, sizeof *hs.rows);
	hs.keys = fb_xcalloc(k, sizeof *hs.keys);
	hs.keyed = fb_xcalloc(k, sizeof *hs.keyed);
	mpi.gone = fb_xcalloc(k, sizeof *mpi.gone);
	mpi.sources = fb_xcalloc(k, sizeof *mpi.sources);
	if (collect_hellos(&hs, err) == FB_OK)
		p = remote_partition(&hs, schema, err);
	for (size_t c = 0; c < k; c++)
		fb_dataset_free(hs.schemas[c]);
	free(hs.schemas);
	free(hs.rows);
	free(hs.keys);
	free(hs.keyed);
	return p;
}

/* ---- client side ---- */

/* The next frame from the server by deadline (a frame read ahead comes first); FB_OK with
 * *buf and *len, FB_ERR naming the silence. */
static int client_recv(double wait, unsigned char **buf, size_t *len, fb_error *err)
{
	int from, ret;

	if (mpi.pending != NULL) {
		*buf = mpi.pending;
		*len = mpi.npending;
		mpi.pending = NULL;
		return FB_OK;
	}
	ret = recv_frame(0, fb_clock_now() + wait, buf, len, &from);
	if (ret == 1)
		return fb_fail(err, "the server sent nothing for %g s", wait);
	return ret == FB_OK ? FB_OK : fb_fail(err, "MPI failed while waiting for the server");
}

/* Answer one round: run the client half on the broadcast, send the reply or the failure. */
static int answer_round(fb_transport *t, const fb_fed_ops *ops, void *state,
                        const fb_dataset *local, const fb_msg *down, const fb_wire_head *at,
                        fb_msg *up, fb_error *err)
{
	fb_wire_head h = { FB_WIRE_REPLY, mpi.run, at->round, NAN, 0 };
	fb_error why = { { 0 } };
	fb_msg failure = { 0 };
	unsigned char *buf;
	size_t len;
	int ret;

	if (ops->client(state, t->local, local, down, up, &h.figure, &why) != FB_OK) {
		h.type = FB_WIRE_FAIL;
		memcpy(fb_msg_bytes(&failure, strlen(why.msg) + 1), why.msg, strlen(why.msg) + 1);
	}
	/* not drawn: the half ran (its state moves on), the figure alone goes back */
	buf = fb_wire_encode(&h, h.type == FB_WIRE_FAIL ? &failure
	                         : (at->flags & FB_WIRE_LISTEN) ? NULL : up, &len);
	ret = send_frame(0, buf, len, fb_clock_now() + mpi.opt.timeout, err);
	free(buf);
	fb_msg_release(&failure);
	return ret;
}

/* Client: answer the run's rounds until the server opens another run or ends. */
static int client_serve(fb_transport *t, const fb_fed_ops *ops, void *state,
                        const fb_dataset *local, fb_error *err)
{
	fb_msg down = { 0 }, up = { 0 };
	int ret = FB_OK;

	while (ret == FB_OK) {
		unsigned char *buf;
		size_t len;
		fb_wire_head h;
		fb_error why;

		if ((ret = client_recv(mpi.opt.idle, &buf, &len, err)) != FB_OK)
			break;
		if (fb_wire_decode(buf, len, &h, &down, &why) != FB_OK) {
			free(buf);
			ret = fb_fail(err, "the server sent a malformed message: %s", why.msg);
			break;
		}
		if (h.type == FB_WIRE_OPEN || h.type == FB_WIRE_QUIT) {
			mpi.pending = buf; /* the next run's business */
			mpi.npending = len;
			ret = fb_fail(err, "the server ended run %u", mpi.run);
			break;
		}
		free(buf);
		if (h.type == FB_WIRE_ROUND && h.run == mpi.run)
			ret = answer_round(t, ops, state, local, &down, &h, &up, err);
	}
	fb_msg_release(&down);
	fb_msg_release(&up);
	return FB_ERR;
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
static fb_transport client_tr = { "mpi", 0, NULL, client_exchange, client_serve,
	                          client_open };

/* The client's transport, its index set from its rank. */
fb_transport *fb_mpi_client_transport(void)
{
	client_tr.local = mpi.rank > 0 ? (size_t)mpi.rank - 1 : 0;
	return &client_tr;
}

/* Client: describe its data to the server. */
int fb_mpi_hello(const fb_dataset *ds, const char *source, const fb_mpi_options *o,
                 fb_error *err)
{
	return fb_mpi_hello_keys(ds, source, NULL, o, err);
}

/* Client: describe its data and its keys to the server. */
int fb_mpi_hello_keys(const fb_dataset *ds, const char *source, const fb_site_keys *keys,
                      const fb_mpi_options *o, fb_error *err)
{
	fb_msg m = { 0 };
	int ret;

	if (!mpi.started || mpi.rank == 0)
		return fb_fail(err, "a client needs an MPI job in which it is not rank 0");
	mpi.opt = *o;
	fb_wire_schema_encode(ds, source, &m);
	if (keys != NULL)
		fb_wire_keys_put(&m, keys);
	ret = send_head(0, FB_WIRE_HELLO, 0, &m, err);
	fb_msg_release(&m);
	return ret;
}

/* Client: why it cannot take part, in place of its hello. */
int fb_mpi_refuse(const char *why, const fb_mpi_options *o, fb_error *err)
{
	fb_msg m = { 0 };
	int ret;

	if (!mpi.started || mpi.rank == 0)
		return fb_fail(err, "a client needs an MPI job in which it is not rank 0");
	mpi.opt = *o;
	memcpy(fb_msg_bytes(&m, strlen(why) + 1), why, strlen(why) + 1);
	ret = send_head(0, FB_WIRE_FAIL, 0, &m, err);
	fb_msg_release(&m);
	return ret;
}

/* Whether the last run ended because the server moved on. */
bool fb_mpi_moved_on(void)
{
	return mpi.pending != NULL;
}

/* Read an OPEN frame's payload into open. */
static int read_open(const fb_msg *m, fb_mpi_open *open, fb_error *err)
{
	size_t at = 0, n = 0;
	const char *w[2];

	memset(open, 0, sizeof *open);
	if (m->nd != 3 || !(m->d[0] >= 1 && m->d[0] < 1e9 && m->d[1] >= 0 && m->d[1] < 1e15))
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
	open->k = (size_t)m->d[0];
	open->n = (size_t)m->d[1];
	open->client = (size_t)mpi.rank - 1;
	open->words = fb_xcalloc(m->nb - at + 1, sizeof *open->words);
	for (size_t i = at; i < m->nb; i++)
		if (i == at || m->b[i - 1] == 0)
			open->words[n++] = fb_xstrdup((const char *)m->b + i);
	open->nwords = n;
	return FB_OK;
}

/* Keep the server's LAYOUT frame: kind, variables, rows, the global id of each column. */
static int read_layout(const fb_msg *m, fb_error *err)
{
	const double *d = m->d;

	if (m->nd < 3 || !(d[0] >= 0 && d[0] <= FB_SPLIT_HYBRID && d[1] >= 1 && d[1] < 1e9))
		return fb_fail(err, "the server's layout of the federation is garbled");
	for (size_t j = 3; j < m->nd; j++)
		if (!(d[j] >= 0 && d[j] < d[1]))
			return fb_fail(err, "the server's layout places a column at %g of %g variables",
			               d[j], d[1]);
	free(mpi.layout.gid);
	mpi.layout.kind = (enum fb_split_kind)d[0];
	mpi.layout.d = (size_t)d[1];
	mpi.layout.n = (size_t)d[2];
	mpi.layout.ncols = m->nd - 3;
	mpi.layout.gid = fb_xcalloc(m->nd - 2, sizeof *mpi.layout.gid);
	for (size_t j = 3; j < m->nd; j++)
		mpi.layout.gid[j - 3] = (size_t)d[j];
	return FB_OK;
}

/* Client: the federation as the server laid it out (gid NULL before its layout arrived). */
const fb_mpi_layout *fb_mpi_client_layout(void)
{
	return &mpi.layout;
}

/* Client: the server's next word. */
int fb_mpi_next(const fb_mpi_options *o, fb_mpi_open *open, fb_error *err)
{
	fb_msg m = { 0 };
	int ret = FB_ERR;

	for (;;) {
		unsigned char *buf;
		size_t len;
		fb_wire_head h;
		fb_error why;

		if (client_recv(o->idle, &buf, &len, err) != FB_OK)
			break;
		ret = fb_wire_decode(buf, len, &h, &m, &why);
		free(buf);
		if (ret != FB_OK) {
			ret = fb_fail(err, "the server sent a malformed message: %s", why.msg);
			break;
		}
		if (h.type == FB_WIRE_QUIT) {
			mpi.lost = h.figure != 0.0;
			ret = 0;
			break;
		}
		if (h.type == FB_WIRE_OPEN) {
			mpi.run = h.run;
			ret = read_open(&m, open, err) == FB_OK ? 1 : FB_ERR;
			break;
		}
		if (h.type == FB_WIRE_LAYOUT && (ret = read_layout(&m, err)) != FB_OK)
			break;
	}
	fb_msg_release(&m);
	return ret;
}

/* Free an open. */
void fb_mpi_open_release(fb_mpi_open *open)
{
	free(open->algo);
	for (size_t i = 0; i < open->nwords; i++)
		free(open->words[i]);
	free(open->words);
	memset(open, 0, sizeof *open);
}

/* Client: the run is built, or why not. */
int fb_mpi_answer(const char *failure, const fb_mpi_options *o, fb_error *err)
{
	fb_msg m = { 0 };
	int ret;

	if (failure != NULL)
		memcpy(fb_msg_bytes(&m, strlen(failure) + 1), failure, strlen(failure) + 1);
	ret = send_head(0, failure != NULL ? FB_WIRE_FAIL : FB_WIRE_READY, 0, &m, err);
	fb_msg_release(&m);
	return ret;
}

/* ---- both ---- */

/* Built with MPI. */
bool fb_mpi_built(void)
{
	return true;
}

/* Join the job, MPI errors returned rather than fatal. */
int fb_mpi_start(int *rank, int *size, fb_error *err)
{
	if (!mpi.started) {
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
			return fb_fail(err, "MPI could not start");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank);
		MPI_Comm_size(MPI_COMM_WORLD, &mpi.size);
		fb_mpi_options_init(&mpi.opt);
		mpi.started = true;
	}
	*rank = mpi.rank;
	*size = mpi.size;
	return FB_OK;
}

/* Send QUIT to every client not gone, each by the deadline; its figure 1 tells them that a
 * client is gone.  Then, within a second, to the gone ones too: one that was only too slow,
 * and is still waiting for the server, ends rather than idles. */
static void quit_clients(void)
{
	fb_wire_head h = { FB_WIRE_QUIT, mpi.run, 0, mpi.lost ? 1.0 : 0.0, 0 };
	size_t len;
	unsigned char *buf = fb_wire_encode(&h, NULL, &len);
	double deadline = fb_clock_now() + mpi.opt.timeout;

	for (int m = 0; m + 1 < mpi.size; m++)
		if (!mpi.gone[m])
			send_frame(m + 1, buf, len, deadline, NULL);
	deadline = fb_clock_now() + (mpi.opt.timeout < 1 ? mpi.opt.timeout : 1);
	for (int m = 0; m + 1 < mpi.size; m++)
		if (mpi.gone[m])
			send_frame(m + 1, buf, len, deadline, NULL);
	free(buf);
}

/* End the study: the server tells every client still there, then everyone leaves MPI.  When
 * a client is gone MPI cannot end in order (its finalisation waits for every process): then
 * nobody finalises, every process just ends, and mpirun (with --enable-recovery) ends the
 * job. */
void fb_mpi_stop(void)
{
	bool lost = false;

	if (!mpi.started)
		return;
	if (mpi.rank == 0 && mpi.gone != NULL) {
		for (int m = 0; m + 1 < mpi.size; m++)
			mpi.lost |= mpi.gone[m];
		quit_clients();
	}
	lost = mpi.lost;
	for (int m = 0; mpi.sources != NULL && m + 1 < mpi.size; m++)
		free(mpi.sources[m]);
	free(mpi.sources);
	free(mpi.gone);
	free(mpi.pending);
	free(mpi.layout.gid);
	memset(&mpi, 0, sizeof mpi);
	if (!lost)
		MPI_Finalize();
}
