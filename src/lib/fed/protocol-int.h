/* The protocol's state, shared by its server and client sides: it lives in the side's
 * object, which the transport of a partition over the study points to. */
#ifndef FEDBN_PROTOCOL_INT_H
#define FEDBN_PROTOCOL_INT_H

#include "fedbn/proto.h"
#include "fedbn/secure.h"
#include "fedbn/wire.h"

/* This process's side of a study. */
struct fb_proto {
	fb_link *link;            /* how frames move (owned) */
	fb_proto_options opt;     /* deadlines */
	fb_transport tr;          /* the transport a partition over the study carries (impl: this) */
	size_t k;                 /* clients of the study */
	uint32_t run;             /* server: the run last opened; client: the run it serves */
	size_t n;                 /* server: rows of all clients */
	bool *gone;               /* server: k flags, the client missed a deadline */
	char **sources;           /* server: k client file names (owned) */
	bool lost;                /* a client is gone: the link cannot end in order */
	bool silent;              /* server: the last wait for clients ended at its deadline */
	unsigned char *pending;   /* client: a frame read ahead of its run's end (owned) */
	size_t npending;          /* its length */
	fb_proto_layout layout;   /* client: the federation as the server laid it out */
	fb_secure_client *sec;    /* client: its side of secure aggregation in the open run,
	                             or NULL (sums in the clear) */
};

/* Send len bytes to process dest by deadline; FB_ERR (err naming it, may be NULL). */
int fb_proto_send(fb_proto *p, int dest, const unsigned char *buf, size_t len,
                  double deadline, fb_error *err);
/* Encode a frame of type with figure and m (NULL: empty) in the open run and send it to
 * dest by the answer deadline. */
int fb_proto_send_head(fb_proto *p, int dest, enum fb_wire_type type, double figure,
                       const fb_msg *m, fb_error *err);
/* The text of a FAIL frame's bytes, bounded and terminated. */
void fb_proto_fail_text(const fb_msg *m, fb_error *out);
/* Server: send buf to every client flagged in to (all when NULL), one after another by one
 * deadline; FB_ERR naming the first that did not take it (then gone). */
int fb_proto_send_clients(fb_proto *p, const bool *to, const unsigned char *buf, size_t len,
                          fb_error *err);
/* Server: the transport of its partitions. */
void fb_proto_server_init(fb_proto *p);
/* Server: tell every client the study is over, and free the server's state. */
void fb_proto_server_end(fb_proto *p);

#endif
