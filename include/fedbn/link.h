/* A link: how the frames of a study between processes move.  Process 0 is the server and
 * process k + 1 client k; a link only carries frames (fedbn/wire.h), each whole, between the
 * server and each client.  The protocol of a study (fedbn/proto.h) runs over any link.  A
 * peer that has gone is silent: a frame to it may be dropped, and the protocol finds it out
 * at its deadline, as it would a peer that hung, unless the link sees its process end and
 * says so at once.  Two links are built in: MPI (fedbn/fedmpi.h,
 * one process per rank of mpirun's job) and a local one, K client processes forked from the
 * server and joined to it by socket pairs. */
#ifndef FEDBN_LINK_H
#define FEDBN_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"

/* What a link provides. */
typedef struct fb_link {
	const char *name;  /* "mpi", "local": the prefix of a federation's description */
	const char *title; /* "MPI": how a sentence names it */
	int rank;          /* this process: 0 the server, k + 1 client k */
	int size;          /* processes of the study, the server included */
	void *impl;        /* the link's own state */
	/* Send n frames, frame i (len[i] bytes of buf[i]) to process dest[i], all under way at
	 * once and each taken by the deadline (fb_clock_now seconds): FB_OK; else FB_ERR with
	 * failed[i] set for each frame not taken (no longer under way) and err naming the
	 * first. */
	int (*send)(struct fb_link *l, size_t n, const int *dest, unsigned char *const *buf,
	            const size_t *len, double deadline, bool *failed, fb_error *err);
	/* Receive the next whole frame from process src (-1: from any) by the deadline: FB_OK
	 * with *buf (caller frees), *len and *from; 1 when the deadline passed first; 2 with
	 * *from when a process the receive waits on is seen to have ended (a receive from any
	 * tells each such process once; one from src each time); FB_ERR when the link failed or
	 * no frame can come any more. */
	int (*recv)(struct fb_link *l, int src, double deadline, unsigned char **buf,
	            size_t *len, int *from);
	/* Leave the study and free the link; lost: a peer has gone, so that the link may not
	 * wait for it. */
	void (*stop)(struct fb_link *l, bool lost);
	/* Whether process rank is seen to have ended (NULL: the link cannot tell). */
	bool (*ended)(struct fb_link *l, int rank);
} fb_link;

/* The local link: fork k client processes, each joined to this one by a socket pair; FB_OK
 * with *link in each of the k + 1 processes (rank 0 here, k + 1 in client k's), FB_ERR with
 * the reason (no process started).  A client process ends with _exit after stopping its
 * link; the server's stop waits for them all. */
int fb_link_local_start(size_t k, fb_link **link, fb_error *err);

#endif
