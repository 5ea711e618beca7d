/* The local link: K client processes forked from the server, each joined to it by a socket
 * pair.  A frame travels as its length (8 bytes, the sender's order) and its bytes; sockets
 * never block: every wait is a poll against the deadline.  A peer that has gone is silent:
 * a frame to it is dropped, and what it sent before it went can still be read. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fedbn/link.h"

/* Longest frame a peer may announce. */
#define MAX_FRAME ((uint64_t)1 << 40)

/* One peer: the server, or (on the server) one client. */
typedef struct peer {
	int fd;      /* the socket to it, or -1 once it closed or broke */
	bool closed; /* frames to it are dropped (it has gone) */
	fb_buf in;   /* bytes read from it, not yet a whole frame's */
	pid_t pid;   /* server: the client's process */
} peer;

/* The link of one process. */
typedef struct local_link {
	fb_link link;  /* what the protocol sees (impl: this) */
	peer *peers;   /* server: k, peer c is process c + 1; client: 1, the server */
	size_t n;      /* how many */
	size_t next;   /* the peer a receive from any looks at first (turn by turn) */
} local_link;

/* The peer of process rank, or NULL. */
static peer *peer_of(local_link *ll, int rank)
{
	size_t i = ll->link.rank == 0 ? (size_t)rank - 1 : 0;

	if ((ll->link.rank == 0 && rank < 1) || (ll->link.rank != 0 && rank != 0) || i >= ll->n)
		return NULL;
	return &ll->peers[i];
}

/* The process of peer i. */
static int rank_of(const local_link *ll, size_t i)
{
	return ll->link.rank == 0 ? (int)i + 1 : 0;
}

/* Stop reading from peer q and drop what it left. */
static void shut(peer *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	q->closed = true;
}

/* Write what is left of one frame (its length prefix first) to q: 1 when all of it went (or
 * was dropped: q has gone), 0 while some is left, FB_ERR when the socket failed. */
static int write_some(peer *q, const unsigned char *pre, const unsigned char *buf,
                      size_t len, size_t *done)
{
	while (*done < 8 + len) {
		const unsigned char *from = *done < 8 ? pre + *done : buf + (*done - 8);
		size_t n = *done < 8 ? 8 - *done : 8 + len - *done;
		ssize_t w;

		if (q->closed)
			return 1;
		w = send(q->fd, from, n, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			q->closed = true; /* it has gone: the frame is dropped */
			return 1;
		}
		if (w < 0)
			return FB_ERR;
		*done += (size_t)w;
	}
	return 1;
}

/* Milliseconds to wait in poll before deadline (at least 0, at most a minute). */
static int wait_ms(double deadline)
{
	double left = deadline - fb_clock_now();

	return left <= 0 ? 0 : left > 60 ? 60000 : (int)(left * 1000) + 1;
}

/* Send n frames, all under way at once, each written by the deadline; a frame half written
 * then leaves its peer's stream broken: the link to that peer is shut. */
static int local_send(fb_link *l, size_t n, const int *dest, unsigned char *const *buf,
                      const size_t *len, double deadline, bool *failed, fb_error *err)
{
	local_link *ll = l->impl;
	size_t *done = fb_xcalloc(n, sizeof *done), left = n;
	struct pollfd *pf = fb_xcalloc(n, sizeof *pf);
	int ret = FB_OK;

	for (size_t i = 0; i < n; i++)
		failed[i] = peer_of(ll, dest[i]) == NULL;
	while (left > 0) {
		size_t np = 0;

		left = 0;
		for (size_t i = 0; i < n; i++) {
			peer *q = peer_of(ll, dest[i]);
			uint64_t pre = len[i];
			int got = failed[i] ? 1 : write_some(q, (unsigned char *)&pre, buf[i], len[i],
			                                     &done[i]);

			failed[i] |= got == FB_ERR;
			if (got == 0)
				pf[np++] = (struct pollfd){ q->fd, POLLOUT, 0 };
			left += got == 0;
		}
		if (left > 0 && fb_clock_now() > deadline)
			break;
		if (left > 0)
			poll(pf, np, wait_ms(deadline));
	}
	for (size_t i = 0; i < n; i++) {
		peer *q = peer_of(ll, dest[i]);

		if (q != NULL && !failed[i] && !q->closed && done[i] < 8 + len[i]) {
			failed[i] = true;
			if (done[i] > 0)
				shut(q);
		}
		if (failed[i] && ret == FB_OK)
			ret = fb_fail(err, "process %d did not take a message within the deadline",
			              dest[i]);
	}
	free(done);
	free(pf);
	return ret;
}

/* Take a whole frame from the bytes read from q: 1 with *buf (caller frees) and *len, 0
 * while it is not all there, FB_ERR when q announced an impossible length (then shut). */
static int take_frame(peer *q, unsigned char **buf, size_t *len)
{
	uint64_t n;

	if (q->in.len < 8)
		return 0;
	memcpy(&n, q->in.data, 8);
	if (n > MAX_FRAME) {
		shut(q);
		q->in.len = 0;
		return FB_ERR;
	}
	if (q->in.len - 8 < n)
		return 0;
	*len = (size_t)n;
	*buf = fb_xmalloc(n > 0 ? (size_t)n : 1);
	memcpy(*buf, q->in.data + 8, (size_t)n);
	memmove(q->in.data, q->in.data + 8 + n, q->in.len - 8 - (size_t)n);
	q->in.len -= 8 + (size_t)n;
	return 1;
}

/* Read what q has sent so far; its end (or a failure) shuts it. */
static void read_some(peer *q)
{
	char chunk[65536];

	while (q->fd >= 0) {
		ssize_t r = read(q->fd, chunk, sizeof chunk);

		if (r > 0)
			fb_buf_append(&q->in, chunk, (size_t)r);
		else if (r < 0 && errno == EINTR)
			continue;
		else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		else {
			close(q->fd); /* its end: frames to it are dropped, its bytes stay */
			q->fd = -1;
			q->closed = true;
		}
	}
}

/* A whole frame already read from a peer src admits, turn by turn: 1, 0 or FB_ERR as
 * take_frame says. */
static int buffered(local_link *ll, int src, unsigned char **buf, size_t *len, int *from)
{
	for (size_t t = 0; t < ll->n; t++) {
		size_t i = (ll->next + t) % ll->n;
		int got;

		if (src >= 0 && rank_of(ll, i) != src)
			continue;
		if ((got = take_frame(&ll->peers[i], buf, len)) != 0) {
			*from = rank_of(ll, i);
			ll->next = (i + 1) % ll->n;
			return got;
		}
	}
	return 0;
}

/* Receive the next whole frame from src (-1: any) by deadline; FB_ERR at once when every
 * peer it may come from has ended. */
static int local_recv(fb_link *l, int src, double deadline, unsigned char **buf, size_t *len,
                      int *from)
{
	local_link *ll = l->impl;
	struct pollfd *pf = fb_xcalloc(ll->n, sizeof *pf);
	peer **of = fb_xcalloc(ll->n, sizeof *of);
	int got;

	while ((got = buffered(ll, src, buf, len, from)) == 0) {
		size_t np = 0;

		for (size_t i = 0; i < ll->n; i++)
			if ((src < 0 || rank_of(ll, i) == src) && ll->peers[i].fd >= 0) {
				of[np] = &ll->peers[i];
				pf[np++] = (struct pollfd){ ll->peers[i].fd, POLLIN, 0 };
			}
		if (np == 0) {
			got = FB_ERR;
			break;
		}
		if (fb_clock_now() > deadline) {
			got = 2; /* the deadline */
			break;
		}
		if (poll(pf, np, wait_ms(deadline)) > 0)
			for (size_t j = 0; j < np; j++)
				if (pf[j].revents != 0)
					read_some(of[j]);
	}
	free(pf);
	free(of);
	return got == 1 ? FB_OK : got == 2 ? 1 : FB_ERR;
}

/* Close every socket; the server waits for its clients' processes to end. */
static void local_stop(fb_link *l, bool lost)
{
	local_link *ll = l->impl;

	for (size_t i = 0; i < ll->n; i++) {
		if (ll->peers[i].fd >= 0)
			close(ll->peers[i].fd);
		fb_buf_release(&ll->peers[i].in);
	}
	for (size_t i = 0; l->rank == 0 && i < ll->n; i++)
		while (waitpid(ll->peers[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(ll->peers);
	free(ll);
}

/* A link of n peers for process rank of size. */
static local_link *link_new(int rank, int size, size_t n)
{
	local_link *ll = fb_xcalloc(1, sizeof *ll);

	ll->link = (fb_link){ "local", "local", rank, size, ll, local_send, local_recv,
		              local_stop, NULL };
	ll->peers = fb_xcalloc(n, sizeof *ll->peers);
	ll->n = n;
	return ll;
}

/* Make fd a peer's socket: no blocking, not inherited by a program started later. */
static int own_socket(peer *q, int fd)
{
	q->fd = fd;
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	       fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ? FB_ERR : FB_OK;
}

/* Client c's process: keep its end of pair c, close every other socket. */
static fb_link *client_side(int (*sv)[2], size_t k, size_t c)
{
	local_link *ll = link_new((int)c + 1, (int)k + 1, 1);

	for (size_t j = 0; j < k; j++) {
		close(sv[j][0]);
		if (j != c)
			close(sv[j][1]);
	}
	own_socket(&ll->peers[0], sv[c][1]);
	return &ll->link;
}

/* Close the pairs from the first one up to (not with) pair k. */
static void close_pairs(int (*sv)[2], size_t k)
{
	for (size_t j = 0; j < k; j++) {
		close(sv[j][0]);
		close(sv[j][1]);
	}
}

/* Fork the k clients, each joined by a socket pair. */
int fb_link_local_start(size_t k, fb_link **link, fb_error *err)
{
	int (*sv)[2] = fb_xcalloc(k + 1, sizeof *sv);
	local_link *ll;
	size_t c, started;
	bool ok = true;
	int why;

	if (k == 0 || k > 4096) {
		free(sv);
		return fb_fail(err, "a local link joins 1 to 4096 clients, not %zu", k);
	}
	for (c = 0; c < k && socketpair(AF_UNIX, SOCK_STREAM, 0, sv[c]) == 0; c++)
		;
	if (c < k) {
		close_pairs(sv, c);
		free(sv);
		return fb_fail(err, "could not make a socket pair for client %zu: %s", c + 1,
		               strerror(errno));
	}
	fflush(NULL); /* nothing buffered is written twice */
	ll = link_new(0, (int)k + 1, k);
	for (c = 0; c < k; c++) {
		pid_t pid = fork();

		if (pid == 0) {
			free(ll->peers);
			free(ll);
			*link = client_side(sv, k, c);
			free(sv);
			return FB_OK;
		}
		if (pid < 0)
			break;
		ll->peers[c].pid = pid;
	}
	started = c;
	why = errno;
	for (size_t j = 0; j < k; j++) {
		close(sv[j][1]);
		if (j < started)
			ok &= own_socket(&ll->peers[j], sv[j][0]) == FB_OK;
		else
			close(sv[j][0]);
	}
	free(sv);
	if (started < k || !ok) {
		ll->n = started; /* the clients started see their sockets close, and end */
		local_stop(&ll->link, true);
		if (started == k)
			return fb_fail(err, "could not set the clients' sockets up: %s", strerror(errno));
		return fb_fail(err, "could not start client %zu's process: %s", started + 1,
		               strerror(why));
	}
	*link = &ll->link;
	return FB_OK;
}
