/* FedPC and its two ablations as federated algorithms (ALGORITHMS.md §7):
 *
 *   fedpc           FedSkele (one round per PC layer: clients send skeletons, the server
 *                   votes) then FedOrien (one round: clients send their highest-p separating
 *                   sets of the ends of every unshielded triple, the server orients);
 *   fedpc-simple1   one round: each client runs PC and extends its CPDAG to a DAG; the
 *                   server keeps a directed edge found by more than the vote share;
 *   fedpc-simple2   one round: each client runs PC and sends its skeleton and separating
 *                   sets; the server votes the skeleton, intersects the sets of the clients
 *                   that separated a pair, orients v-structures and closes under Meek.
 *
 * Variables travel as ranks of their sorted names (the FedPC paper's alignment); the
 * accessors below take and give variables in the data's order. */
#ifndef FEDBN_FEDPC_H
#define FEDBN_FEDPC_H

#include <stddef.h>

#include "fedbn/algo.h"

/* The algorithms (to be listed in fb_algo_table). */
extern const fb_algo fb_algo_fedpc, fb_algo_fedpc_simple1, fb_algo_fedpc_simple2;

/* How many clients the server's vote needs (the parameter vote_rule). */
enum fb_fedpc_vote_rule {
	FB_FEDPC_VOTE_PAPER, /* more than vote * K, i.e. floor(vote * K) + 1 */
	FB_FEDPC_VOTE_CODE,  /* the authors' code: round(vote * K), halves up, at least 1 */
};
/* The names of vote_rule's values. */
extern const fb_choice fb_fedpc_vote_rules[];

/* Votes the server counted for variables i and j (the data's order): fedpc, the clients
 * that kept i - j in the last FedSkele layer (0 for a pair removed in an earlier layer);
 * fedpc-simple2, the clients whose skeleton has i - j; fedpc-simple1, the clients whose DAG
 * has i -> j.  -1 when run is none of these, has not aggregated yet, or i, j are not two
 * distinct variables. */
long fb_fedpc_votes(const fb_run *run, size_t i, size_t j);

/* The vote threshold of the server's last count. */
typedef struct fb_fedpc_vote {
	size_t need;      /* votes a pair needed to stay */
	size_t heard;     /* the clients counted */
	double share;     /* the vote parameter */
	const char *rule; /* the vote_rule that made need of share and heard: "paper", "code" */
} fb_fedpc_vote;

/* The threshold the server applied at its last count (fedpc: the last FedSkele layer;
 * fedpc-simple1 and -simple2: their one round) into v; FB_ERR when run is none of these or
 * has not counted votes yet. */
int fb_fedpc_threshold(const fb_run *run, fb_fedpc_vote *v);

/* The separating set the server settled on for the pair {i, j} (fedpc: the highest-p set
 * any client found, for pairs that end an unshielded triple; fedpc-simple2: the
 * intersection of the sets of the clients that separated the pair).  Writes its members
 * (the data's order, increasing) into out (room for d) and returns their count; *p (may
 * be NULL) receives its p-value (NaN for fedpc-simple2) and *client (may be NULL) the
 * client, from 0, that found it (-1 for fedpc-simple2, and for a pair that background
 * knowledge forbids both ways: fedpc asks no client, its set is the empty one).  -1 when
 * there is none (no client
 * found one, the pair was not asked about, or the orientation has not run). */
long fb_fedpc_sepset(const fb_run *run, size_t i, size_t j, size_t *out, double *p,
                     long *client);

#endif
