/* The checks of a study between processes, shared by test-mpi (over MPI) and test-link (over
 * socket pairs).  Each program defines check, which reports one check. */
#ifndef FEDBN_TESTS_COMPARE_H
#define FEDBN_TESTS_COMPARE_H

#include <stdbool.h>

#include "fedbn/algo.h"
#include "fedbn/proto.h"

/* Report one check (defined by the program). */
void check(bool ok, const char *what, const char *name);

/* The shared data: d variables, n rows, seed 3, and its truth. */
fb_dataset *make_data(fb_graph **truth);
/* The shared data cut into levels (every variable 3 equal-frequency levels), and its truth. */
fb_dataset *make_discrete(fb_graph **truth);
/* The shared discrete file name (../shared/data/discrete10000 beside the source tree, every
 * column discrete), or NULL with a message when it is absent. */
fb_dataset *shared_discrete(const char *name);
/* The K blocks of ds: contiguous rows, the vertical split's columns, or the hybrid split's
 * rows and columns. */
fb_partition *blocks(const fb_dataset *ds, size_t k, enum fb_split_kind kind);
/* Step run to its end; FB_ERR with the reason. */
int finish(fb_run *run, fb_error *err);
/* EM over a hybrid federation (sites holding different rows) is refused with a sentence. */
void refused_em(const fb_dataset *schema, const fb_partition *remote);
/* Small settings of the slow learners (words "key=value"; share in *share), or NULL. */
const char *small_words(const char *name, int variant, double *share);
/* The parameters of name: its defaults, then the words "key=value" (may be NULL). */
void params_of(const char *name, const char *words, fb_params *p);
/* Background knowledge every run of compare takes (NULL: none; the test sets it). */
extern const fb_knowledge *compare_knowledge;
/* Run name in-process over local and over the link (remote) and compare them: the same
 * rounds and figures, the same result, the ledger the in-process one plus the frames'
 * headers and control numbers (one that is not ready for clients in other processes must be
 * refused), and the knowledge counted once per client before the first round; nothing when
 * in-process refuses it.  variant 1 draws or drops clients. */
void compare(const char *name, int variant, const fb_dataset *ds, const fb_partition *local,
             const fb_dataset *schema, const fb_partition *remote, const fb_graph *truth);
/* FedPC, fedpc-simple1 and fedpc-simple2 with knowledge over the study's data (X1 - X2
 * forbidden both ways, X3 -> X4 required, two tiers): compare each (the knowledge counted
 * once per client at the opening), and check that the in-process result honours it. */
void compare_knowledge_family(const fb_dataset *ds, const fb_partition *local,
                              const fb_dataset *schema, const fb_partition *remote,
                              const fb_graph *truth);
/* Whether the link of the study sees a peer's process end (MPI on one machine), so that
 * "die" expects client 2 named as ended well before the deadline (false: at the deadline,
 * as silent). */
extern bool link_sees_ends;
/* The server's side of "die": the run opens, then a round fails naming client 2 within the
 * deadline (timeout seconds), and the next one at once. */
void server_die(const fb_dataset *schema, const fb_partition *remote, double timeout);
/* The server's side of "die-partial": gs-feddag drawing 2 of 4 clients a round goes on
 * without client 2, says so once, and finishes. */
void server_die_partial(const fb_dataset *schema, const fb_partition *remote, double timeout);
/* Client 2's side of "die": build the run, then die without a word. */
void client_die(fb_proto *study, const fb_dataset *mine);
/* Client c's site file as read: its block with a key column "id" (the global row + 1) in
 * front and its rows in another order (reversed, or rotated by 7); then keyed by "id". */
fb_dataset *site_keyed(const fb_partition *p, size_t c, fb_site_keys *keys);
/* A client's side: serve the block of its rank (keyed: as a site file matched by key; die:
 * client 2 dies once the run is built); the process's exit status. */
int serve_block(fb_proto *study, const fb_partition *p, bool die, bool keyed);

/* Run name (parameters words) with secure=yes in-process over local and over the link
 * (remote): the same graph and weights bit for bit, two exchanges of its own each. */
void compare_secure(const char *name, const char *words, const fb_dataset *ds,
                    const fb_partition *local, const fb_dataset *schema,
                    const fb_partition *remote);
/* compare_secure with dp_epsilon= eps and dp_sigma= sigma (eps 0: none). */
void compare_secure_dp(const char *name, const char *words, double eps, double sigma,
                       const fb_dataset *ds, const fb_partition *local,
                       const fb_dataset *schema, const fb_partition *remote);

#endif
