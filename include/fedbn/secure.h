/* Secure aggregation as the federation runs it, the same code in process and over a link:
 * the server's messages carry an envelope (the stage, the round, who takes part, and what
 * the stage needs) after the algorithm's own bytes; a client's side reads it, runs the
 * algorithm's client half on what is inside and masks the vector it returns.  Stages: the
 * clients advertise their public keys, then send their key's Shamir shares boxed to each
 * other (once a run, two extra exchanges), then every summed round is masked; when a client
 * that took part in a round is lost, the survivors are asked for its shares (one extra
 * exchange) and the server removes its masks from the sum. */
#ifndef FEDBN_SECURE_H
#define FEDBN_SECURE_H

#include "fedbn/fed.h"
#include "fedbn/secagg.h"

/* The stages an envelope names. */
enum fb_secure_stage {
	FB_SECURE_KEYS = 1,    /* advertise your public key */
	FB_SECURE_SHARES = 2,  /* here are everyone's keys: send your key's shares, boxed */
	FB_SECURE_SUM = 3,     /* a summed round: answer with your masked vector */
	FB_SECURE_RECOVER = 4, /* these clients were lost: open their shares to you */
};

/* One client's side (its keys, the others' public keys, its pair seeds). */
typedef struct fb_secure_client fb_secure_client;
/* The server's side (the public keys, the boxed shares, the round's takers). */
typedef struct fb_secure_server fb_secure_server;

/* Check a federation's secure options for k clients: FB_ERR in one sentence (fewer than 3
 * clients, t above k or below 2). */
int fb_secure_check(const fb_fed_options *o, size_t k, fb_error *err);
/* The threshold o asks for among k clients (0: a majority, k / 2 + 1). */
size_t fb_secure_threshold(const fb_fed_options *o, size_t k);

/* Client me of k's side, its keys from seed. */
fb_secure_client *fb_secure_client_new(size_t k, size_t me, const fb_fed_options *o);
void fb_secure_client_free(fb_secure_client *c);
/* Answer the server's message down: with an envelope, the stage's answer (a summed round:
 * ops->client on the message inside, its vector masked); without one, ops->client alone. */
int fb_secure_answer(fb_secure_client *c, const fb_fed_ops *ops, void *state, size_t me,
                     const fb_dataset *local, const fb_msg *down, fb_msg *up, double *figure,
                     fb_error *err);

/* The server's side for k clients. */
fb_secure_server *fb_secure_server_new(size_t k, const fb_fed_options *o);
void fb_secure_server_free(fb_secure_server *s);
/* Whether the keys and shares have been exchanged. */
bool fb_secure_ready(const fb_secure_server *s);
/* The message of setup stage (FB_SECURE_KEYS, then FB_SECURE_SHARES) into down. */
void fb_secure_setup_down(const fb_secure_server *s, enum fb_secure_stage stage, fb_msg *down);
/* Take the clients' answers to a setup stage; FB_ERR naming a client whose answer is
 * malformed. */
int fb_secure_setup_take(fb_secure_server *s, enum fb_secure_stage stage,
                         const fb_msg *const *up, fb_error *err);
/* Append the summed round's envelope to the algorithm's broadcast down (part: k flags, who
 * takes part; n: the numbers of each vector); FB_ERR when fewer than 2 take part. */
int fb_secure_wrap(fb_secure_server *s, fb_msg *down, uint64_t round, size_t n,
                   const bool *part, fb_error *err);
/* Take the envelope off again: down as the algorithm wrote it. */
void fb_secure_unwrap(fb_msg *down);
/* Bytes the envelope of down takes (0 without one). */
size_t fb_secure_envelope_bytes(const fb_msg *down);
/* The sum of the masked vectors in up (up[c] NULL: no vector reached the server) of the
 * round last wrapped: FB_OK with its n sums, the count of clients that gave a vector and of
 * those that gave none; 1 when a client that took part is lost and its masks must be
 * removed: ask holds the recovery message for the survivors (flags in survivors); FB_ERR
 * naming a malformed reply, a sum over a single client, or too few survivors. */
int fb_secure_sum(fb_secure_server *s, const fb_msg *const *up, double *sum, size_t *count,
                  size_t *silent, fb_msg *ask, bool *survivors, fb_error *err);
/* Take the survivors' shares of the lost clients' keys (answers to ask); FB_ERR when fewer
 * than t came or they do not agree with a lost client's public key. */
int fb_secure_recover(fb_secure_server *s, const fb_msg *const *up, fb_error *err);

#endif
