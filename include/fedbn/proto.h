/* The protocol of a study between processes, over any link (fedbn/link.h): the clients say
 * hello with their data's description, the server lays the federation out and tells each
 * client its place, opens runs, moves their rounds and ends the study.  Every wait has a
 * deadline: a client that does not answer in time is named and the run stops, or, where the
 * algorithm draws only some clients a round, it is left out while the run goes on. */
#ifndef FEDBN_PROTO_H
#define FEDBN_PROTO_H

#include <stdbool.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/link.h"
#include "fedbn/partition.h"
#include "fedbn/sites.h"

/* Deadlines of a study. */
typedef struct fb_proto_options {
	double timeout; /* seconds a peer may take to answer before it is named (30) */
	double idle;    /* seconds a client waits for the server between runs (86400) */
} fb_proto_options;

/* Defaults: 30 s to answer, a day of idling. */
void fb_proto_options_init(fb_proto_options *o);

/* This process's side of a study: the server's or one client's. */
typedef struct fb_proto fb_proto;

/* The side of a study over link (owned from now on: fb_proto_end stops it) with deadlines o;
 * link->rank says which side. */
fb_proto *fb_proto_new(fb_link *link, const fb_proto_options *o);
/* End the study: the server tells every client still there; then the link stops and p is
 * freed (NULL is fine). */
void fb_proto_end(fb_proto *p);
/* The link the study runs over. */
const fb_link *fb_proto_link(const fb_proto *p);
/* Server: how many clients are gone (named at a deadline, or their process seen to end,
 * now included), the first named in who ("client 2 ('site-2.csv')"); 0 on a client's side
 * or before the clients connected.  A study that lost a client cannot end in order: its
 * fb_proto_end ends the others' processes. */
size_t fb_proto_gone(fb_proto *p, fb_error *who);

/* Server: wait for every client's hello and build the partition over them (its clients'
 * datasets of 0 rows holding their variables only; its transport reaches them through p;
 * caller frees it with fb_partition_free before fb_proto_end) and *schema, the variables as
 * a dataset of 0 rows (caller frees).  The sites' variables and keys make the federation
 * horizontal, vertical or hybrid (fb_sites_partition, which says when they do not fit); each
 * client is then told its layout. */
fb_partition *fb_proto_connect(fb_proto *p, fb_dataset **schema, fb_error *err);

/* A run the server asks a client to build. */
typedef struct fb_proto_open {
	char *algo;        /* the algorithm's name (owned) */
	char **words;      /* its parameters, "key=value" (owned) */
	size_t nwords;     /* how many */
	size_t k;          /* clients of the federation */
	size_t client;     /* this client's index, from 0 */
	size_t n;          /* rows of all clients together (the maths of some algorithms uses it) */
	fb_fed_options fed; /* share and seed of the federation */
} fb_proto_open;

/* The federation as the server lays it out for one client once the sites connected. */
typedef struct fb_proto_layout {
	enum fb_split_kind kind; /* horizontal, vertical or hybrid */
	size_t d;                /* the federation's variables */
	size_t n;                /* its rows (vertical: every site's) */
	size_t *gid;             /* per column of the client's file, its global variable id
	                            (owned by p; NULL before the layout arrives) */
	size_t ncols;            /* the client's columns */
} fb_proto_layout;

/* Client: say hello with ds's description (source names its file; no value travels), with
 * the count and digest of its keys when keys is not NULL (no key travels). */
int fb_proto_hello(fb_proto *p, const fb_dataset *ds, const char *source,
                   const fb_site_keys *keys, fb_error *err);
/* Client: tell the server, in place of a hello, why it cannot take part (its file). */
int fb_proto_refuse(fb_proto *p, const char *why, fb_error *err);
/* Client: its layout, as the last fb_proto_next found it. */
const fb_proto_layout *fb_proto_client_layout(const fb_proto *p);
/* Client: wait for the server's next word: 1 and *open filled (release it with
 * fb_proto_open_release) when it opens a run, 0 when the study is over; FB_ERR when the
 * server falls silent for the idle time or sends something malformed. */
int fb_proto_next(fb_proto *p, fb_proto_open *open, fb_error *err);
/* Free what an open holds. */
void fb_proto_open_release(fb_proto_open *open);
/* Client: tell the server the run is built (failure NULL) or why it cannot be. */
int fb_proto_answer(fb_proto *p, const char *failure, fb_error *err);
/* Client: the transport its partition carries (its own half runs here, the server
 * elsewhere): a federation over it hands fb_fed_round's halves over (fb_fed_halves) rather
 * than running a round. */
fb_transport *fb_proto_client_transport(fb_proto *p);
/* Client: answer the open run's rounds with the algorithm's halves ops on state and local
 * (this client's data) until the server opens another run or ends the study (FB_OK), or
 * falls silent or breaks the protocol (FB_ERR with the reason). */
int fb_client_serve(fb_proto *p, const fb_fed_ops *ops, void *state, const fb_dataset *local,
                    fb_error *err);

#endif
