/* What the FedPC family (fedpc, fedpc-simple1, fedpc-simple2) shares inside libalgo: the
 * wire format of skeletons, graphs and id lists, the alphabetical alignment of variables, the
 * vote threshold, the state every run of the family starts with, and FedOrien's collider
 * orientation at the server. */
#ifndef FEDBN_ALGO_FEDPC_INT_H
#define FEDBN_ALGO_FEDPC_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/algo.h"
#include "fedbn/pc.h"
#include "pc-params.h"

/* Number of unordered pairs of d variables. */
size_t fedpc_npairs(size_t d);
/* Index of the pair {i, j} (i != j) among them, row by row: (0,1), (0,2), ..., (1,2), ... */
size_t fedpc_pair(size_t d, size_t i, size_t j);
/* Bytes of a skeleton packed one bit per pair: ceil(d (d - 1) / 2 / 8). */
size_t fedpc_bits_bytes(size_t d);
/* Pack the adjacencies of g (any mark) into bits, pair p in bit p % 8 of byte p / 8. */
void fedpc_skel_pack(const fb_graph *g, unsigned char *bits);
/* An undirected graph on d nodes with the edges of the packed skeleton (caller frees). */
fb_graph *fedpc_skel_unpack(const unsigned char *bits, size_t d);
/* Make g (on d nodes) the undirected graph of the packed skeleton, whatever it held: its
 * own edges are removed and the skeleton's set, so reusing a graph costs its edges, not the
 * d^2 marks and weights of a new one. */
void fedpc_skel_load(fb_graph *g, const unsigned char *bits);
/* The adjacency lists of a packed skeleton: returns adj and sets *start (both caller frees)
 * so that adj[start[i] .. start[i + 1]) lists i's neighbours in increasing order. */
size_t *fedpc_skel_lists(const unsigned char *bits, size_t d, size_t **start);
/* Whether bit p is set. */
static inline bool fedpc_bit(const unsigned char *bits, size_t p)
{
	return (bits[p >> 3] >> (p & 7)) & 1;
}

/* Bytes per variable id on the wire: 1 up to 256 variables, 2 up to 65,536, else 4. */
size_t fedpc_id_width(size_t d);
/* Write v in w bytes, least significant first, at p; returns p + w. */
unsigned char *fedpc_put_id(unsigned char *p, size_t w, size_t v);
/* Read an id of w bytes at *p and advance *p. */
size_t fedpc_get_id(const unsigned char **p, size_t w);

/* The columns of ds sorted by name (plain byte order, as strcmp): rank r is column
 * col_of[r].  This is the identifier alignment of the FedPC paper (§3.3, S-2): every client
 * ranks its own names, and since all hold the same variables the ranks agree. */
void fedpc_ranks(const fb_dataset *ds, size_t *col_of);
/* ds with its columns in rank order (caller frees); NULL on out of memory. */
fb_dataset *fedpc_rank_dataset(const fb_dataset *ds);

/* Votes an edge needs among k clients heard: under the paper's rule more than share * k,
 * i.e. floor(share * k) + 1; under the code's rule round(share * k) with halves away from
 * zero (MATLAB), at least 1.  share * k is nudged by 1e-9 so that 0.3 * 10 counts as 3. */
size_t fedpc_min_votes(double share, bool code_rule, size_t k);

/* Count, per pair, the heard clients whose reply (its first fedpc_bits_bytes(d) bytes; tail:
 * more may follow) keeps a pair the server sent, into votes (*heard: the replies). */
int fedpc_count_votes(uint32_t *votes, size_t d, const unsigned char *sent,
                      const fb_msg *const *up, size_t k, bool tail, size_t *heard, fb_error *err);
/* The layers whose votes removed pairs, listed for the pairs removed after layer 0 only: a
 * pair not joined and not listed was removed at layer 0 (or never joined), so the list stays
 * as short as the skeleton after layer 0 while a layer per pair would take 4 d^2 / 2 bytes. */
typedef struct fedpc_removal {
	uint64_t pair;  /* the pair (fedpc_pair) */
	uint64_t layer; /* the layer whose vote removed it (>= 1) */
} fedpc_removal;
typedef struct fedpc_removals {
	fedpc_removal *at; /* n removals */
	size_t n, cap;
	bool sorted;       /* by increasing pair */
} fedpc_removals;

/* The layer whose vote removed pair p (0 for a pair removed at layer 0 or never joined). */
uint32_t fedpc_removed_layer(fedpc_removals *rm, size_t p);
/* Free the list. */
void fedpc_removals_release(fedpc_removals *rm);

/* Clear from sent the pairs with fewer than need votes, noting layer in removed_at; how many
 * it cleared (*kept, when not NULL: how many stay). */
size_t fedpc_vote_keep(unsigned char *sent, const uint32_t *votes, size_t d, size_t need,
                       uint32_t *removed_at, size_t layer, size_t *kept);
/* The same, noting layer in the list rm. */
size_t fedpc_vote_keep_list(unsigned char *sent, const uint32_t *votes, size_t d, size_t need,
                            fedpc_removals *rm, size_t layer, size_t *kept);

/* PC's options from a run's parameters (alpha, test, depth, stable, colliders, df, small,
 * zero_df), the same names and meanings as the pc learner's. */

/* The parameters every algorithm of the family shares with the pc learner: same names,
 * meanings and defaults, so that fedpc and sep:pc run the same tests. */
#define FEDPC_TEST_PARAMS \
	PC_PARAMS_TEST, \
	{ "stable", FB_PARAM_BOOL, "yes", 0, 0, NULL, \
	  "PC-stable levels on the clients: adjacencies frozen for a whole level" }, \
	PC_PARAMS_DISCRETE

/* The vote of the family's servers. */
#define FEDPC_VOTE_PARAMS \
	{ "vote", FB_PARAM_DOUBLE, "0.3", 0, 0.99, NULL, \
	  "keep an edge kept by more than this share of the clients" }, \
	{ "vote_rule", FB_PARAM_CHOICE, "paper", 0, 0, fb_fedpc_vote_rules, \
	  "paper: more than vote*K clients, i.e. floor(vote*K)+1 (K=10: 4); code: at least " \
	  "round(vote*K), halves up, and at least 1 (K=10: 3)" }

/* Check alpha (strictly inside (0, 1)) and that the data has two variables or more, and
 * settle the test FB_CI_AUTO means for the data's kind, so that every client uses it. */
int fedpc_check(const fb_run *run, fb_pc_options *o, fb_error *err);

/* The set FedOrien chose for one end pair: its p-value and the client that found it. */
typedef struct fedpc_pick {
	uint64_t pair; /* the pair (fedpc_pair) */
	double p;      /* the p-value of the chosen set */
	long client;   /* the client whose set it is */
} fedpc_pick;
/* The picks, in increasing pair order: only end pairs of unshielded triples are listed, so
 * the list stays as short as the triples while a figure per pair would take 16 d^2 / 2
 * bytes. */
typedef struct fedpc_picks {
	fedpc_pick *at; /* n picks */
	size_t n, cap;
} fedpc_picks;

/* Note pair's pick (replacing one the pair had). */
void fedpc_picks_put(fedpc_picks *s, size_t pair, double p, long client);
/* Pair's pick into *p and *client (either may be NULL): false, with NaN and -1, when it has
 * none. */
bool fedpc_picks_get(const fedpc_picks *s, size_t pair, double *p, long *client);
/* Free the list. */
void fedpc_picks_release(fedpc_picks *s);

/* The start of the state of every run of the family, read by the accessors of fedpc.h. */
typedef struct fedpc_common {
	size_t k, d;        /* clients, variables */
	size_t w;           /* bytes per id on the wire */
	size_t *global_of;  /* rank -> column of the run's data (for the reader of the result) */
	size_t *rank_of;    /* column of the run's data -> rank */
	char **names;       /* the data's variable names, in the data's order (metadata) */
	uint32_t *votes;    /* votes per pair (or per ordered pair, d * d, when directed), in
	                       rank space; NULL before the first aggregation */
	bool directed;      /* votes are per ordered pair (fedpc-simple1) */
	fb_sepsets *seps;   /* separating sets chosen by the server, rank space (or NULL) */
	fedpc_picks picks;  /* the end pairs whose set a client's answer chose: the set's
	                       p-value and that client (a pair not listed: NaN and -1) */
	fb_graph *graph;    /* the server's current estimate in rank space (or NULL) */
	bool extend;        /* the result is a DAG extension of the estimate (Dor and Tarsi) */
	bool done;          /* the last round has run */
	size_t need;        /* the last count: votes a pair needed to stay (0 before it), */
	size_t heard;       /* the clients it heard, */
	double share;       /* the vote share */
	bool code_rule;     /* and whether the code's rule made the threshold */
	fb_knowledge *know; /* the run's background knowledge in rank space, NULL when it says
	                       nothing */
} fedpc_common;

/* The votes a pair needs among the heard clients (fedpc_min_votes), kept in c as the
 * threshold of the last count. */
size_t fedpc_common_need(fedpc_common *c, double share, bool code_rule, size_t heard);
/* Fill c's alignment from the run's data and split: k, d, w, global_of, rank_of, names. */
void fedpc_common_init(fedpc_common *c, const fb_run *run);
/* Free what c holds. */
void fedpc_common_release(fedpc_common *c);
/* Clear the bits of the pairs that c's knowledge forbids both ways from a packed skeleton:
 * they are never joined, so no client tests them. */
void fedpc_skel_knowledge(const fedpc_common *c, unsigned char *bits);
/* The run's estimate: c->graph in the data's order and names, extended to a DAG when
 * c->extend (caller frees); NULL with the reason before the first round. */
fb_graph *fedpc_common_result(const fedpc_common *c, const char *name, fb_error *err);

/* One collider candidate i -> k <- j at the server, with its strength. */
typedef struct fedpc_cand {
	double p, stat; /* the collider test (i _||_ j | Z + {k}); 0 under the order rule */
	size_t pos;     /* place in index order (middle, then i, then j) */
	size_t i, k, j; /* the triple, k in the middle, i < j */
} fedpc_cand;

/* Orient the candidates on g in order of strength (increasing p, then decreasing statistic,
 * then index order) or of index alone (order), each only when neither edge already points
 * out of k and no directed path leads from k back to i or j, then Meek's R1-R3; oriented
 * colliders, conflicts and Meek orientations go to the counters (any may be NULL).  cands
 * is sorted in place. */
void fedpc_orient(fb_graph *g, fedpc_cand *cands, size_t n, bool strength, size_t *colliders,
                  size_t *conflicts, size_t *meek);

/* The unshielded triples i - k - j of g (i, j not adjacent) as (i, k, j) with i < j, sorted
 * by (i, j, k), into *out (caller frees); their count. */

/* Sort candidates into index order (middle, then i, then j) and number them (pos). */
void fedpc_cands_index(fedpc_cand *cands, size_t n);

/* One client's half of a fedpc run: touched only by that client's thread. */
/* What clients that run one after another pass on: a stack of items, guarded by the
 * state's pool_lock. */
typedef struct fedpc_pool {
	void **item;
	size_t n;
} fedpc_pool;

typedef struct fedpc_client {
	fb_ci *ci;    /* tests on the client's own rows, columns in rank order (round 1) */
	size_t *tri;  /* FedOrien: the triples received, 3 ids each */
	size_t *cap;  /* FedOrien: per end pair, the largest set to try */
	size_t *buf;  /* FedOrien: pool, subset, test set and best set (4 d) */
	fb_msg best;  /* secure=yes: the client's FedOrien reply, kept for the rounds that
	                 compare it with the others' through sums (fedpc-secure.c) */
	size_t ntri;  /* secure=yes: the triples of the FedOrien message it answered */
	double tests; /* secure=yes: the tests its FedOrien search asked */
} fedpc_client;

/* The state of a fedpc run. */
typedef struct fedpc_state {
	fedpc_common c;          /* alignment, votes, sets, estimate (must come first) */
	fb_pc_options opt;       /* the clients' test and level settings */
	bool code_rule;          /* vote_rule=code */
	double share;            /* vote share */
	bool strength;           /* colliders ordered by the clients' collider tests */
	fedpc_client *clients;   /* the K client halves */
	unsigned char *sent;     /* server: the skeleton it broadcast last, packed */
	fedpc_removals gone;     /* server: the layer whose vote removed each pair */
	size_t layer;            /* the layer the next skeleton round runs */
	size_t last_layer;       /* the last layer run */
	bool orienting;          /* the next round is FedOrien */
	size_t *tri;             /* server: the unshielded triples sent (i, k, j), i < j */
	size_t ntri;             /* how many */
	size_t *ktri;            /* server: those whose ends the knowledge keeps apart, kept
	                            back (their pair counts as separated by the empty set) */
	size_t nktri;            /* how many */
	size_t removed;          /* figures of the last round: edges the vote removed, */
	size_t unresolved;       /* triples whose ends no client could separate, */
	size_t colliders;        /* colliders oriented, */
	size_t conflicts;        /* collider candidates skipped for a conflict */
	pthread_mutex_t pool_lock; /* guards the pools: clients may run on several threads */
	fedpc_pool graphs;       /* d x d skeletons (fb_graph) free for a client's level */
	fedpc_pool scratches;    /* centred copies' memory (fb_ci_scratch) free for a build */
	size_t unbuilt;          /* this process's clients whose test object is not built yet */
	fedpc_pool spares;       /* caches' memory (fb_ci_spare) free for a client's level */
	bool secure;             /* secure=yes: the server receives only sums (fedpc-secure.c) */
	bool lazy;               /* the clients' Fisher-z correlations come on demand (corr=) */
	size_t nsent;            /* secure: the pairs of the skeleton broadcast last */
	int sphase;              /* secure FedOrien: 0 before it, FEDPC_DIGIT while the server
	                            learns each pair's highest key 4 bits a round, FEDPC_REVEAL
	                            while the winners send their sets */
	size_t digit;            /* secure: the key's digit (4 bits) the round asks */
	unsigned char *maxkey;   /* secure: per end pair, the highest key so far (FEDPC_KEY) */
	bool dp;                 /* dp_epsilon=: noisy sums, FedOrien by noisy collider votes
	                            (fedpc-dp.c) */
} fedpc_state;

/* secure=yes, FedOrien: the key of a client's answer for one end pair is FEDPC_KEY bytes
 * compared as an unsigned number: its p-value's bits (0 when it found no set), then 65535
 * minus the client's index, so that the highest key is the plain server's choice (the
 * highest p, ties to the first client). */
#define FEDPC_KEY 10
/* The phases of a secure FedOrien (the first number of the broadcast, d[0]). */
#define FEDPC_DIGIT (-2)
#define FEDPC_REVEAL (-3)

/* The phase of a message: its first number. */
static inline double fedpc_phase(const fb_msg *m)
{
	return m->nd >= 1 ? m->d[0] : 0.0;
}

/* Number of distinct end pairs of n triples sorted by ends. */
size_t fedpc_pairs_count(const size_t *tri, size_t n);

/* Refuse differential privacy (but for fedpc's, fedpc-dp.c), and more clients than
 * FedOrien's keys tell apart under secure=yes, in one sentence. */
int fedpc_secure_check(const fb_run *run, fb_error *err);
/* The halves fedpc runs with secure=yes (fedpc-secure.c): each client's reply a vector whose
 * sum over the clients is all the server takes. */
extern const fb_fed_ops fedpc_sum_ops;
/* Client k's reply to a layer under secure=yes: its votes (1: kept) on the pairs of the
 * server's skeleton sent, in pair order, as numbers, from its packed skeleton kept. */
void fedpc_votes_vector(const unsigned char *sent, const unsigned char *kept, size_t d,
                        fb_msg *up);
/* The server's count of a layer from the summed votes; the heard clients: in->count. */
int fedpc_votes_from_sum(fedpc_state *st, const fb_fed_total *in, fb_error *err);
/* The server after a layer's count (need votes of heard): cut, then the next broadcast. */
void fedpc_skele_next(fedpc_state *st, size_t heard, fb_msg *down);
/* Client k's answer to a FedOrien round under secure=yes: the search (and the key's first
 * byte), a byte of the key, or its sets where it won. */
int fedpc_orient_client_sum(fedpc_state *st, size_t k, const fb_msg *down, fb_msg *up,
                            double *figure, fb_error *err);
/* dp_epsilon= (fedpc-dp.c): the sum's L2 sensitivity to one client (fed ops' dp_rows); the
 * end pairs (*P) and triples of a FedOrien broadcast; client k's FedOrien answer of noisy
 * collider votes; the server's orientation from their noisy sum. */
double fedpc_dp_rows(const void *state, const fb_msg *down);
size_t fedpc_orient_sizes(const fedpc_state *st, const fb_msg *down, size_t *P);
void fedpc_dp_orient_answer(const fedpc_state *st, size_t k, size_t P, fb_msg *up);
int fedpc_dp_orient_finish(fedpc_state *st, const fb_fed_total *in, fb_msg *down,
                           fb_error *err);
/* Client k's half under secure=yes: fedpc_client_half, its figure withheld (0) under
 * dp_epsilon= (the tests a client ran depend on its rows). */
int fedpc_sum_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err);
/* With correlations on demand (else nothing), compute in one pass over the client's rows
 * those of every pair within each of ng groups of distinct variables, group g
 * mem[gs[g] .. gs[g + 1]). */
int fedpc_prefetch_groups(fb_ci *ci, const size_t *mem, const size_t *gs, size_t ng,
                          fb_error *err);
/* The client half of any fedpc round (fedpc.c). */
int fedpc_client_half(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err);

/* A fedpc message in words (the algorithm's message operation): skeletons and votes as
 * named pairs, FedOrien's pairs and the clients' separating sets; nothing past 40 variables. */
void fedpc_message_text(const fb_run *run, enum fb_dir dir, const fb_msg *m, fb_buf *out);

/* FedOrien's halves (fedpc-orient.c): the server's opening message of the round (after the
 * last layer), the client's search, the server's choice and orientation. */
void fedpc_orient_broadcast(fedpc_state *st, fb_msg *down);
int fedpc_orient_client(fedpc_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err);
int fedpc_orient_server(fedpc_state *st, const fb_msg *const *up, size_t k, fb_msg *down,
                        fb_error *err);
/* Client k's tests, built from its own rows on first use. */
int fedpc_client_ready(fedpc_state *st, size_t k, const fb_dataset *local, fb_error *err);

/* The algorithms' tables (fedpc.c, fedpc-simple.c). */
extern const fb_algo fb_algo_fedpc, fb_algo_fedpc_simple1, fb_algo_fedpc_simple2;

#endif
