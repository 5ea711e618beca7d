/* The MPI link: frames of the wire format over MPI_COMM_WORLD, rank 0 the server, rank
 * k + 1 client k.  No wait blocks: sends are MPI_Isend completed by MPI_Test, receives are
 * MPI_Iprobe polled, each against a deadline.  The only code that includes mpi.h. */
#include "config.h"

#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "fedbn/fedmpi.h"

/* The one tag of fedbn's frames. */
#define MPI_TAG_FRAME 7

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

/* Post frame i's send; why[i] says what went wrong (0: under way). */
static void post(size_t i, const int *dest, unsigned char *const *buf, const size_t *len,
                 MPI_Request *req, int *why)
{
	req[i] = MPI_REQUEST_NULL;
	if (len[i] > (size_t)INT32_MAX)
		why[i] = 1;
	else if (MPI_Isend(buf[i], (int)len[i], MPI_BYTE, dest[i], MPI_TAG_FRAME, MPI_COMM_WORLD,
	                   &req[i]) != MPI_SUCCESS)
		why[i] = 2;
}

/* Test every send still under way: how many are; a failed test sets why[i]. */
static size_t test_all(size_t n, MPI_Request *req, int *why)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++) {
		int done = 0;

		if (req[i] == MPI_REQUEST_NULL || why[i] != 0)
			continue;
		if (MPI_Test(&req[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			why[i] = 4;
		left += why[i] == 0 && !done;
	}
	return left;
}

/* The sentence of frame i's failure why into err. */
static int send_failure(int why, int dest, size_t len, fb_error *err)
{
	if (why == 1)
		return fb_fail(err, "a message of %zu bytes is too large to send", len);
	if (why == 2)
		return fb_fail(err, "MPI could not send to rank %d", dest);
	if (why == 3)
		return fb_fail(err, "rank %d did not take a message within the deadline", dest);
	return fb_fail(err, "MPI failed while sending to rank %d", dest);
}

/* Send n frames at once, each taken by deadline; those still pending then are cancelled. */
static int mpi_send(fb_link *l, size_t n, const int *dest, unsigned char *const *buf,
                    const size_t *len, double deadline, bool *failed, fb_error *err)
{
	MPI_Request *req = fb_xcalloc(n, sizeof *req);
	int *why = fb_xcalloc(n, sizeof *why);
	unsigned spins = 0;
	int ret = FB_OK;

	for (size_t i = 0; i < n; i++)
		post(i, dest, buf, len, req, why);
	while (test_all(n, req, why) > 0 && fb_clock_now() <= deadline)
		poll_pause(&spins);
	for (size_t i = 0; i < n; i++) {
		if (req[i] != MPI_REQUEST_NULL && why[i] == 0) { /* still pending at the deadline */
			MPI_Cancel(&req[i]);
			MPI_Request_free(&req[i]);
			why[i] = 3;
		}
		failed[i] = why[i] != 0;
		if (failed[i] && ret == FB_OK)
			ret = send_failure(why[i], dest[i], len[i], err);
	}
	free(req);
	free(why);
	return ret;
}

/* Receive the next frame from src (-1: any) by deadline. */
static int mpi_recv(fb_link *l, int src, double deadline, unsigned char **buf, size_t *len,
                    int *from)
{
	MPI_Status st;
	unsigned spins = 0;
	int flag = 0, count;

	while (MPI_Iprobe(src < 0 ? MPI_ANY_SOURCE : src, MPI_TAG_FRAME, MPI_COMM_WORLD, &flag,
	                  &st) == MPI_SUCCESS && !flag) {
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

/* Leave MPI.  When a peer is gone MPI cannot end in order (its finalisation waits for every
 * process): then this process does not finalise, it just ends, and mpirun (with
 * --enable-recovery) ends the job. */
static void mpi_stop(fb_link *l, bool lost)
{
	free(l);
	if (!lost)
		MPI_Finalize();
}

/* Built with MPI. */
bool fb_mpi_built(void)
{
	return true;
}

/* Join the job, MPI errors returned rather than fatal. */
fb_link *fb_link_mpi_start(fb_error *err)
{
	fb_link *l;
	int on = 0;

	if (MPI_Initialized(&on) != MPI_SUCCESS || on)
		return fb_fail(err, "MPI has started already in this process"), NULL;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return fb_fail(err, "MPI could not start"), NULL;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	l = fb_xcalloc(1, sizeof *l);
	l->name = "mpi";
	l->title = "MPI";
	MPI_Comm_rank(MPI_COMM_WORLD, &l->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &l->size);
	l->send = mpi_send;
	l->recv = mpi_recv;
	l->stop = mpi_stop;
	return l;
}
