/* The MPI link: frames of the wire format over MPI_COMM_WORLD, rank 0 the server, rank
 * k + 1 client k.  No wait blocks: sends are MPI_Isend completed by MPI_Test, receives are
 * MPI_Iprobe polled, each against a deadline.  While it waits, the link looks every fifth of
 * a second whether the peers that share this machine's process table are still there (their
 * process ids and start times, gathered when the job starts), so that a peer that died is
 * told at once rather than at the deadline; a peer on another machine is found out at the
 * deadline.  The only code that includes mpi.h. */
#include "config.h"

#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Seconds between two looks at the peers' processes. */
#define LOOK_EVERY 0.2

/* A process of the job as the others can look it up: where its process id means it (the
 * kernel's boot id and the process-id namespace; empty when unknown), its id and its start
 * time in clock ticks since boot. */
typedef struct mpi_proc {
	char space[160];
	long pid;
	unsigned long long start;
} mpi_proc;

/* The link's own state. */
typedef struct mpi_link {
	fb_link link;     /* what the protocol sees (impl: this) */
	mpi_proc *procs;  /* per rank, as each said at the start (NULL: no looking) */
	bool *ended;      /* per rank: its process is seen to have ended */
	bool *told;       /* per rank: a receive from any has reported it */
	double next_look; /* when to look again */
} mpi_link;

/* The first line of file into buf, without its end; false when it cannot be read. */
static bool read_line(const char *file, char *buf, size_t n)
{
	FILE *fp = fopen(file, "r");
	bool ok = fp != NULL && fgets(buf, (int)n, fp) != NULL;

	if (fp != NULL)
		fclose(fp);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Process pid's state letter and start time from /proc: 1; 0 when there is no such process;
 * -1 when /proc could not say (no /proc, no file descriptor left). */
static int proc_stat(long pid, char *state, unsigned long long *start)
{
	char file[64], line[1024];
	const char *p;

	snprintf(file, sizeof file, "/proc/%ld/stat", pid);
	errno = 0;
	if (!read_line(file, line, sizeof line))
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	/* after the name: state (field 3), then 18 fields up to the start time (field 22) */
	if ((p = strrchr(line, ')')) == NULL ||
	    sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
	                  "%*s %*s %llu", state, start) != 2)
		return -1;
	return 1;
}

/* This process as the others can look it up (space empty where /proc says nothing). */
static void proc_self(mpi_proc *me)
{
	char boot[64], ns[64];
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	char state;

	memset(me, 0, sizeof *me);
	me->pid = (long)getpid();
	if (n <= 0 || !read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot) ||
	    proc_stat(me->pid, &state, &me->start) != 1)
		return;
	ns[n] = '\0';
	snprintf(me->space, sizeof me->space, "%s %s", boot, ns);
}

/* Gather every rank's process at the start (a collective: every rank starts the link). */
static void gather_procs(mpi_link *ml)
{
	size_t n = (size_t)ml->link.size;
	mpi_proc me;

	proc_self(&me);
	ml->procs = fb_xcalloc(n, sizeof *ml->procs);
	ml->ended = fb_xcalloc(n, sizeof *ml->ended);
	ml->told = fb_xcalloc(n, sizeof *ml->told);
	if (MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, ml->procs, (int)sizeof me, MPI_BYTE,
	                  MPI_COMM_WORLD) != MPI_SUCCESS) {
		free(ml->procs);
		ml->procs = NULL;
	}
}

/* Whether rank r's process is seen to have ended: it shares this process table, and its
 * id is gone, a zombie, or another process's. */
static bool proc_ended(mpi_link *ml, int r)
{
	const mpi_proc *me, *it;
	unsigned long long start;
	char state;

	if (ml->procs == NULL || r == ml->link.rank)
		return false;
	if (ml->ended[r])
		return true;
	me = &ml->procs[ml->link.rank];
	it = &ml->procs[r];
	if (me->space[0] == '\0' || strncmp(me->space, it->space, sizeof me->space) != 0)
		return false;
	switch (proc_stat(it->pid, &state, &start)) {
	case 0:
		ml->ended[r] = true;
		break;
	case 1:
		ml->ended[r] = state == 'Z' || state == 'X' || start != it->start;
		break;
	default:
		break; /* unknown: not taken as ended */
	}
	return ml->ended[r];
}

/* The link's ended: whether rank's process is seen to have ended (looked up now). */
static bool mpi_ended(fb_link *l, int rank)
{
	mpi_link *ml = l->impl;

	return rank >= 0 && rank < l->size && proc_ended(ml, rank);
}

/* Whether it is time to look at the peers again (then the next look is set). */
static bool look_due(mpi_link *ml)
{
	double now = fb_clock_now();

	if (ml->procs == NULL || now < ml->next_look)
		return false;
	ml->next_look = now + LOOK_EVERY;
	return true;
}

/* A peer a receive from src (-1: any) waits on that has ended and is not yet told: its
 * rank, else -1.  A client hears only the server; a peer named as src is told each time. */
static int ended_peer(mpi_link *ml, int src)
{
	int self = ml->link.rank;

	for (int r = 0; r < ml->link.size; r++) {
		bool waits = src >= 0 ? r == src : self == 0 ? r != 0 : r == 0;

		if (waits && proc_ended(ml, r) && (src >= 0 || !ml->told[r])) {
			ml->told[r] = true;
			return r;
		}
	}
	return -1;
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

/* Test every send still under way: how many are; a failed test sets why[i], and so does a
 * destination seen to have ended when look is set (then the send is cancelled). */
static size_t test_all(mpi_link *ml, size_t n, const int *dest, MPI_Request *req, int *why,
                       bool look)
{
	size_t left = 0;

	for (size_t i = 0; i < n; i++) {
		int done = 0;

		if (req[i] == MPI_REQUEST_NULL || why[i] != 0)
			continue;
		if (MPI_Test(&req[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			why[i] = 4;
		} else if (!done && look && proc_ended(ml, dest[i])) {
			MPI_Cancel(&req[i]);
			MPI_Request_free(&req[i]);
			why[i] = 5;
		}
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
	if (why == 5 && dest == 0)
		return fb_fail(err, "the server (rank 0) has ended (its process is gone)");
	if (why == 5)
		return fb_fail(err, "rank %d has ended (its process is gone)", dest);
	return fb_fail(err, "MPI failed while sending to rank %d", dest);
}

/* Send n frames at once, each taken by deadline; those still pending then are cancelled. */
static int mpi_send(fb_link *l, size_t n, const int *dest, unsigned char *const *buf,
                    const size_t *len, double deadline, bool *failed, fb_error *err)
{
	mpi_link *ml = l->impl;
	MPI_Request *req = fb_xcalloc(n, sizeof *req);
	int *why = fb_xcalloc(n, sizeof *why);
	unsigned spins = 0;
	int ret = FB_OK;

	for (size_t i = 0; i < n; i++)
		post(i, dest, buf, len, req, why);
	while (test_all(ml, n, dest, req, why, look_due(ml)) > 0 && fb_clock_now() <= deadline)
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

/* Receive the next frame from src (-1: any) by deadline; 2 with *from when a peer it waits
 * on has ended (what it sent before comes first). */
static int mpi_recv(fb_link *l, int src, double deadline, unsigned char **buf, size_t *len,
                    int *from)
{
	mpi_link *ml = l->impl;
	MPI_Status st;
	unsigned spins = 0;
	int flag = 0, count, gone;

	while (MPI_Iprobe(src < 0 ? MPI_ANY_SOURCE : src, MPI_TAG_FRAME, MPI_COMM_WORLD, &flag,
	                  &st) == MPI_SUCCESS && !flag) {
		if (fb_clock_now() > deadline)
			return 1;
		if (look_due(ml) && (gone = ended_peer(ml, src)) >= 0) {
			*from = gone;
			return 2;
		}
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

/* Seconds the server gives the other processes of a lost study to end by themselves. */
#define END_GRACE 2.0

/* Whether every process but this one is seen to have ended, waiting up to END_GRACE (the
 * processes on other machines are never seen: the whole grace). */
static bool others_ended(mpi_link *ml)
{
	double until = fb_clock_now() + END_GRACE;
	struct timespec ts = { 0, 50000000 };

	for (;;) {
		int r = 0;

		while (r < ml->link.size && (r == ml->link.rank || proc_ended(ml, r)))
			r++;
		if (r == ml->link.size)
			return true;
		if (fb_clock_now() > until)
			return false;
		nanosleep(&ts, NULL);
	}
}

/* Leave MPI.  When a peer is gone MPI cannot end in order (its finalisation waits for every
 * process): then a client just ends; the server gives the others a moment to end (they were
 * told) and, when one may still run (hung, or on another machine), ends the job with
 * MPI_Abort. */
static void mpi_stop(fb_link *l, bool lost)
{
	mpi_link *ml = l->impl;
	bool abort_job = lost && l->rank == 0 && !others_ended(ml);

	free(ml->procs);
	free(ml->ended);
	free(ml->told);
	free(ml);
	if (abort_job)
		MPI_Abort(MPI_COMM_WORLD, 1);
	else if (!lost)
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
	mpi_link *ml;
	fb_link *l;
	int on = 0;

	if (MPI_Initialized(&on) != MPI_SUCCESS || on)
		return fb_fail(err, "MPI has started already in this process"), NULL;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
		return fb_fail(err, "MPI could not start"), NULL;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	ml = fb_xcalloc(1, sizeof *ml);
	l = &ml->link;
	l->impl = ml;
	l->name = "mpi";
	l->title = "MPI";
	MPI_Comm_rank(MPI_COMM_WORLD, &l->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &l->size);
	l->send = mpi_send;
	l->recv = mpi_recv;
	l->stop = mpi_stop;
	l->ended = mpi_ended;
	gather_procs(ml);
	return l;
}
