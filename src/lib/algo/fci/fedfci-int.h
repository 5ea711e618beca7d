/* fedfci's halves (fedfci.c: the server and the algorithm; fedfci-client.c: the clients and
 * the entries both read and write).
 *
 * Rounds, variables as ranks of their sorted names (as fedpc's):
 *   layer l >= 0: down d = { l }, b = the server's skeleton (one bit per pair).  Each client
 *     runs PC level l on its rows from it and replies b = its skeleton, then one entry per
 *     pair it removed (in pair order): the set's first end a, its size n, its n members
 *     (w bytes each), and d = the p-value of each removed pair given its set.
 *   possible-d-sep: down d = { -1 }, b = the skeleton, then per adjacent pair (in pair order)
 *     one byte: the mark at its first end times 4 plus the mark at its second.  Each client
 *     runs FCI's possible-d-sep stage on its rows from that PAG and replies as in a layer.
 *   tests: down d = { -2 }, b = the number Q of tests (4 bytes), then each test x, y, n and
 *     the n members (w bytes each).  Each client replies b = one byte per test, 1 when its
 *     rows find x and y independent given the members.
 * The server keeps a pair when enough clients kept it (fedpc_count_votes, fedpc_vote_keep),
 * takes as the separating set of a removed pair the set of the client with the highest
 * p-value among those that removed it, and finds a test dependent when enough clients do. */
#ifndef FEDBN_ALGO_FEDFCI_INT_H
#define FEDBN_ALGO_FEDFCI_INT_H

#include "fci-int.h"
#include "../pc/fedpc-int.h"

/* The phases of the server's broadcasts (d[0] of a down message when negative). */
#define FEDFCI_PDSEP (-1.0)
#define FEDFCI_TESTS (-2.0)

/* A test the orientation asked. */
typedef struct fedfci_query {
	size_t x, y, n; /* the pair and the set's size */
	size_t *S;      /* the members, increasing (owned) */
	bool indep;     /* the server's answer (once answered) */
} fedfci_query;

/* The state of a fedfci run. */
typedef struct fedfci_state {
	fedpc_common c;        /* alignment, votes, knowledge (rank space) */
	fb_pc_options opt;     /* the clients' tests (alpha, depth, test settings) */
	double share;          /* vote share */
	bool code_rule;        /* vote_rule=code */
	fb_ci **ci;            /* per client: its tests on its rows, columns in rank order */
	unsigned char *sent;   /* server: the skeleton it broadcast last */
	unsigned char *before; /* server: the skeleton before the last vote */
	uint32_t *removed_at;  /* server: per pair, the layer that removed it */
	size_t layer;          /* the layer the next skeleton round runs */
	int phase;             /* the round the clients run next: 0 layer, -1, -2 as above */
	fci_seps *seps;        /* server: the chosen separating sets */
	size_t *rank;          /* the identity: possible-d-sep members by rank */
	fb_pag *pag;           /* server: the current PAG (rank space) */
	fedfci_query *ans;     /* server: the tests answered */
	size_t nans;
	fedfci_query *ask;     /* server: the tests the last orientation needed */
	size_t nask;
	size_t removed;        /* figures of the last round: edges removed, */
	size_t asked;          /* tests sent to the clients for the next round, */
	size_t answered;       /* tests the clients answered */
	bool done;             /* oriented */
} fedfci_state;

/* Client k's tests, built from its own rows on first use. */
int fedfci_client_ready(fedfci_state *st, size_t k, const fb_dataset *local, fb_error *err);
/* Client k's half of a round. */
int fedfci_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                  fb_msg *up, double *figure, fb_error *err);
/* Write the entry of the removed pair (a, b) with set S (n members) at q; returns the end. */
unsigned char *fedfci_put_entry(unsigned char *q, size_t w, size_t a, const size_t *S,
                                size_t n);
/* Read an entry for the pair {i, j} at *p (end: the message's end) into *a, S and *n;
 * FB_ERR when it runs past the end or names a variable out of range or an end. */
int fedfci_get_entry(const unsigned char **p, const unsigned char *end, size_t w, size_t d,
                     size_t i, size_t j, size_t *a, size_t *S, size_t *n);
/* The PAG of the packed skeleton, every edge o-o (rank space). */
fb_pag *fedfci_pag_of_bits(const unsigned char *bits, size_t d);

#endif
