/* The federation: a server and K clients that talk only through messages, a transport that
 * moves the messages, and a ledger of every message.  An algorithm is written as two halves:
 * the client half sees its own client dataset and the server's last message; the server half
 * sees only the clients' messages.  The server half is never handed a dataset. */
#ifndef FEDBN_FED_H
#define FEDBN_FED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"
#include "fedbn/partition.h"

/* Most control numbers a message carries beside its payload. */
#define FB_MSG_CONTROL 4

/* What travels between a client and the server: numbers and other bytes (the maths
 * payload), and up to FB_MSG_CONTROL control numbers that steer the other side's half (a
 * round number, a penalty, a step count).  The in-process ledger counts the payload alone;
 * a transport between processes counts every byte it moves. */
typedef struct fb_msg {
	double *d;        /* numbers (owned) */
	size_t nd;        /* how many numbers */
	unsigned char *b; /* other bytes: bit matrices, index lists (owned) */
	size_t nb;        /* how many bytes */
	double c[FB_MSG_CONTROL]; /* control numbers */
	size_t nc;        /* how many of them */
} fb_msg;

/* Room for n numbers (contents undefined); returns m->d. */
double *fb_msg_doubles(fb_msg *m, size_t n);
/* Room for n bytes (contents undefined); returns m->b. */
unsigned char *fb_msg_bytes(fb_msg *m, size_t n);
/* Copy src into dst. */
void fb_msg_copy(fb_msg *dst, const fb_msg *src);
/* Bytes of the payload: 8 per number plus the other bytes (control numbers not counted). */
size_t fb_msg_size(const fb_msg *m);
/* Set m's control numbers to the n (at most FB_MSG_CONTROL) values v. */
void fb_msg_control(fb_msg *m, const double *v, size_t n);
/* Free the payload and empty the message. */
void fb_msg_release(fb_msg *m);

/* Direction of a message. */
enum fb_dir {
	FB_DOWN = 0, /* server to client */
	FB_UP = 1,   /* client to server */
};

/* One message in the ledger. */
typedef struct fb_ledger_entry {
	size_t round;   /* communication round, from 1 */
	enum fb_dir dir; /* which way */
	size_t client;  /* client index, from 0 */
	size_t bytes;   /* its size */
} fb_ledger_entry;

/* Every message of a federation, in order. */
typedef struct fb_ledger {
	fb_ledger_entry *e; /* the entries (owned) */
	size_t n, cap;      /* used and allocated */
	size_t total[2];    /* bytes down and up so far */
} fb_ledger;

/* Record one message. */
void fb_ledger_add(fb_ledger *l, size_t round, enum fb_dir dir, size_t client, size_t bytes);
/* Bytes in one direction in one round (round 0: all rounds). */
size_t fb_ledger_bytes(const fb_ledger *l, size_t round, enum fb_dir dir);
/* Bytes in one direction for one client in one round (round 0: all rounds). */
size_t fb_ledger_client_bytes(const fb_ledger *l, size_t round, enum fb_dir dir,
                              size_t client);
/* Free the entries. */
void fb_ledger_release(fb_ledger *l);

/* What the server half of a summed algorithm receives: the clients' vectors added up by
 * the federation, and how many there were.  Never a single client's vector. */
typedef struct fb_fed_total {
	const double *sum; /* n numbers: the sum over the clients that sent a vector */
	size_t n;          /* numbers in each client's vector */
	size_t count;      /* clients whose vector is in the sum */
	size_t silent;     /* clients that took part but sent an empty reply (lost on the way,
	                      or nothing to give this round) */
} fb_fed_total;

/* Add the clients' up-messages of a round into sum (n numbers): sum = 0, then each reply of
 * n numbers added in client order (up[c] NULL: sat out; an empty reply: silent), so that
 * the doubles do not depend on threads or transport.  The one place a round's vectors are
 * summed: secure aggregation (masks that cancel in the sum) replaces the clear sum here,
 * with the same result.  FB_ERR naming the client whose reply is neither empty nor a vector
 * of n numbers, or holds a NaN. */
int fb_fed_sum(const fb_msg *const *up, size_t k, size_t n, double *sum, size_t *count,
               size_t *silent, fb_error *err);

/* The two halves of a federated algorithm.  client may run on several threads at once, for
 * different k: it must touch only client k's part of state. */
typedef struct fb_fed_ops {
	/* Client k: read its own data and the server's message, write its reply; figure (may be
	 * ignored) is the client's own figure of the round (local loss, distance, ...). */
	int (*client)(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
	              fb_msg *up, double *figure, fb_error *err);
	/* Server: read the replies (up[k] is NULL where client k sat the round out) and write
	 * the next broadcast.  NULL when server_sum is set. */
	int (*server)(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
	              fb_error *err);
	/* Or, for an algorithm whose reply is a vector of numbers whose sum over the clients is
	 * all its server needs: the server half on the sum the federation formed (fb_fed_sum)
	 * and the count, writing the next broadcast.  It is never handed a client's reply. */
	int (*server_sum)(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err);
	/* With server_sum: the numbers in each client's vector this round.  It may change from
	 * round to round (fedc2sl's tables of a PC level): the federation reads it as the round
	 * is wrapped and again for server_sum, so the state must keep it between the two. */
	size_t (*sum_len)(const void *state);
	/* Optional, with server_sum: row-level differential privacy.  The L2 sensitivity of the
	 * round's summed vector to one row of a client's data, read off the round's broadcast
	 * down; with it set, dp_epsilon='s noise has standard deviation dp_sigma times it and no
	 * vector is clipped (NULL: each client's vector is clipped to dp_clip). */
	double (*dp_rows)(const void *state, const fb_msg *down);
} fb_fed_ops;

/* Options of a federation. */
typedef struct fb_fed_options {
	size_t threads;   /* clients computed at once (1); results do not depend on it */
	double share;     /* share of clients taking part in each round, in (0, 1] (1) */
	uint64_t seed;    /* the "participation" stream derives from it */
	bool secure;      /* every sum a summed server half receives is formed by secure
	                     aggregation (fedbn/secure.h) instead of in the clear (no) */
	size_t threshold; /* t: the shares that rebuild a lost client's key (0: a majority) */
	unsigned secure_bits; /* fraction bits of secure sums' fixed point (30) */
	double dp_epsilon;    /* differential privacy of the secure sums: the (epsilon, delta)
	                         budget of the run (0: none) */
	double dp_delta;      /* (1e-5) */
	double dp_sigma;      /* the noise of each sum, in multiples of its sensitivity (10) */
	double dp_clip;       /* each client's vector is clipped to this L2 norm, the sum's
	                         sensitivity (1) */
} fb_fed_options;

/* One round as a transport sees it: what to deliver, where the replies go. */
typedef struct fb_round_io {
	size_t k;               /* clients */
	size_t round;           /* the round, from 1 */
	const fb_msg *down;     /* the broadcast */
	const bool *part;       /* k flags: runs its half this round */
	fb_msg *up;             /* k replies (filled for those taking part) */
	double *figure;         /* k client figures (filled for those taking part) */
	int *status;            /* k client results (FB_OK or FB_ERR) */
	fb_error *errs;         /* k client errors */
	size_t *bytes_down;     /* k: bytes that reached each client */
	size_t *bytes_up;       /* k: bytes each client's reply took */
	const bool *drawn;      /* k flags, or NULL (every client in part): whose reply reaches
	                           the server; one in part but not drawn runs its half and
	                           answers with its figure alone */
	bool tolerate;          /* the algorithm allows partial participation: a client that
	                           stops answering is left out (lost) instead of ending the run */
	bool *lost;             /* k flags the transport sets: the client stopped answering this
	                           round (only when tolerate) */
} fb_round_io;

/* A transport moves one round's messages: the broadcast to the participating clients, the
 * clients' replies back.  The in-process one is built in; another (MPI, one process per
 * client) is attached to the partition whose clients it reaches.  Every algorithm passes the
 * same fb_fed_ops to every round of a run, and its client half depends only on its own data,
 * its own part of the state and the broadcast: a client in another process builds the run's
 * state from its own data alone and answers the rounds with those ops. */
typedef struct fb_transport {
	const char *name; /* "in-process", "mpi", "local" */
	size_t local;     /* the one client whose half runs in this process, or (size_t)-1
	                     when none does (the server's side of a remote transport) */
	void *impl;       /* the transport's own state */
	/* Server side: move one round (io) and fill the replies; FB_ERR names what broke (a
	 * client that did not answer in time, a malformed reply). */
	int (*exchange)(struct fb_transport *t, fb_round_io *io, fb_error *err);
	/* Server side: tell the clients to build a run of algo with params (words
	 * "key=value", nwords of them) and fed options; FB_ERR when a client refuses. */
	int (*open)(struct fb_transport *t, const char *algo, char *const *words, size_t nwords,
	            const fb_fed_options *o, fb_error *err);
} fb_transport;

/* A federation over a partition (not owned: it must outlive the federation). */
typedef struct fb_federation fb_federation;

/* Defaults: one thread, every client, seed 1, sums in the clear. */
void fb_fed_options_init(fb_fed_options *o);

/* A federation over p with the in-process transport; NULL with the reason. */
fb_federation *fb_fed_alloc(const fb_partition *p, const fb_fed_options *o, fb_error *err);
/* Free it (NULL is fine). */
void fb_fed_free(fb_federation *f);

/* The message the server will broadcast next round (the algorithm writes the opening one). */
fb_msg *fb_fed_broadcast(fb_federation *f);
/* One communication round: broadcast, clients' replies, server.  On error the round is not
 * counted and err names the client or the server. */
int fb_fed_round(fb_federation *f, const fb_fed_ops *ops, void *state, fb_error *err);

/* Draw m clients per round from now on instead of ceil(share * K) (0: by the share again;
 * m >= K: all). */
void fb_fed_set_draw(fb_federation *f, size_t m);
/* With on, every client runs its half in every round (so its own state moves on) and the
 * broadcast is counted to every client, but only the drawn clients' replies reach the server
 * and are counted; fb_fed_took_part still says who was drawn. */
void fb_fed_set_everyone(fb_federation *f, bool on);
/* With on, a client that stops answering (over a transport between processes) is left out
 * and the run goes on over the others, as when each round draws only some clients, though
 * every client is drawn; under secure=yes the masks of a client lost in a summed round come
 * off the survivors' shares.  For an algorithm whose sums may lack a client's vector
 * (fedc2sl: its tables are then missing from the round's sum, as its dropout= makes them). */
void fb_fed_set_tolerant(fb_federation *f, bool on);

/* What secure aggregation added to the ledger's messages (the algorithm's own bytes): its
 * bytes up and down (the envelopes, each vector's count, the keys, the boxed shares, the
 * shares of lost clients' keys) and its exchanges of its own (the setup's two, one per
 * recovery); all 0 when the sums are formed in the clear. */
void fb_fed_secure_cost(const fb_federation *f, size_t *up, size_t *down, size_t *exchanges);

/* The sum the last round's summed server half was handed (ops->server_sum): *n numbers over
 * *count clients, formed in the clear or by secure aggregation; NULL (*n 0) when the last
 * round's server was handed the replies themselves, or before the first round. */
const double *fb_fed_last_sum(const fb_federation *f, size_t *n, size_t *count);
/* The epsilon of differential privacy spent so far by the noisy sums (0 without
 * dp_epsilon=). */
double fb_fed_dp_spent(const fb_federation *f);

/* When secure aggregation formed the last round's sum: true, with a sentence saying what the
 * server received (the masked vectors, how many, their length) in buf; false otherwise. */
bool fb_fed_server_saw(const fb_federation *f, char *buf, size_t n);

/* Rounds completed. */
size_t fb_fed_rounds(const fb_federation *f);
/* Number of clients. */
size_t fb_fed_k(const fb_federation *f);
/* The ledger. */
const fb_ledger *fb_fed_ledger(const fb_federation *f);
/* Whether client k's half runs in this process (every client in-process; only its own in a
 * client process of a remote transport; none on the server of one).  An algorithm builds
 * client state only for these. */
bool fb_fed_local(const fb_federation *f, size_t k);
/* In a client process (its partition's transport names a local client), fb_fed_round runs
 * no round: it keeps the algorithm's halves and their state for the client's own loop
 * (fb_client_serve) and fails with a sentence saying so.  The halves kept: FB_OK with *ops,
 * *state and *local (the client's data), FB_ERR (nothing kept yet) otherwise. */
int fb_fed_halves(const fb_federation *f, const fb_fed_ops **ops, void **state,
                  const fb_dataset **local);
/* Tell a remote federation's clients which run to build (algo, its parameters, and the
 * run's background knowledge k, NULL or empty for none).  Knowledge that says something goes
 * to every client once, with the opening (fb_fed_knowledge_words), and the ledger counts it,
 * in-process too, as round 0 going down: its words' bytes per client.  In-process nothing
 * else happens. */
int fb_fed_open(fb_federation *f, const char *algo, const fb_params *params,
                const fb_knowledge *k, fb_error *err);
/* The knowledge k as words for the opening of a run (see knowledge-wire.c): an empty word,
 * then its statements by variable name; *words is caller-freed with fb_names_free.  Their
 * count, 0 (and *words NULL) when k says nothing. */
size_t fb_fed_knowledge_words(const fb_knowledge *k, char ***words);
/* Bytes n words take on the wire, each with its NUL. */
size_t fb_fed_words_bytes(char *const *words, size_t n);
/* A client's copy of the knowledge sent as words (fb_fed_knowledge_words), over the
 * variables of its data ds by name; NULL with a sentence when a statement names a variable
 * ds lacks or is garbled. */
fb_knowledge *fb_fed_knowledge_read(char *const *words, size_t n, const fb_dataset *ds,
                                    fb_error *err);
/* Wall seconds of the last round's exchange: the clients' halves in-process, or sending the
 * broadcast and collecting the replies over a transport. */
double fb_fed_exchange_seconds(const fb_federation *f);
/* Seconds client k's half took in this process in the last round (NaN when it ran
 * elsewhere or not at all). */
double fb_fed_client_seconds(const fb_federation *f, size_t k);
/* What befell the clients in the last round (over a transport between processes: a client
 * that stopped answering, left out because the draw allows it), or NULL. */
const char *fb_fed_news(const fb_federation *f);
/* Whether client k stopped answering and was left out of the rounds since. */
bool fb_fed_gone(const fb_federation *f, size_t k);
/* Whether client k took part in the last round. */
bool fb_fed_took_part(const fb_federation *f, size_t k);
/* Client k's figure of the last round it took part in (NaN before). */
double fb_fed_client_figure(const fb_federation *f, size_t k);
/* The broadcast the clients received in the last round (empty before the first). */
const fb_msg *fb_fed_round_down(const fb_federation *f);
/* The message client k sent in the last round, or NULL when it sat that round out. */
const fb_msg *fb_fed_round_up(const fb_federation *f, size_t k);

#endif
