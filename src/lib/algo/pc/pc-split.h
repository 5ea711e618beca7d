/* A stable Fisher-z level's vertex searches cut into units of work for threads (inside the
 * algo folder only): a vertex whose search is large is cut into ranges of its subsets, the
 * rest stay whole; threads take the units from one list, biggest vertices first, each on
 * its own test object; each pair's answers are then taken from its ranges in order up to
 * its first find, so that the sets and counters are those of one walk a vertex. */
#ifndef FEDBN_PC_SPLIT_H
#define FEDBN_PC_SPLIT_H

#include "fedbn/ci.h"
#include "fedbn/pc.h"

/* The counters of one pair's second visit (from its larger end), kept apart until the
 * walk in vertex order knows whether its first visit left it joined. */
typedef struct pc_split_count {
	size_t queries, hits, computed, undefined, singular;
} pc_split_count;

/* Add n's counters to ci's. */
void pc_split_count_take(fb_ci *ci, const pc_split_count *n);

/* A level's searches. */
typedef struct pc_split_phase {
	size_t d, level;           /* variables, the subsets' size */
	const size_t *start, *adj; /* frozen adjacency: adj[start[i] .. start[i + 1]) */
	double alpha;              /* the level's alpha */
	/* mark in open (m) which of vertex i's m frozen neighbours its search pairs it with,
	 * and in kept (m x m) what fb_ci_fisher_separate needs; false when none */
	bool (*mark)(void *ctx, size_t i, unsigned char *open, unsigned char *kept);
	void *ctx;                 /* mark's context */
	unsigned char *found;      /* start[d]: the pairs that found a set, by frozen position */
	size_t *sets;              /* start[d] x level: their sets */
	pc_split_count *second;    /* start[d]: by frozen position, the counters of the pairs'
	                              second visits (neighbours before the vertex), zero on
	                              entry; the first visits' go into the object's (NULL: all
	                              go there) */
} pc_split_phase;

/* Run the searches on ci's helpers' threads: found and sets filled, the first visits'
 * counters moved into ci's and the second visits' into second (when not NULL); the units' figures added to
 * bal (units, work, busiest, span16, threads).  FB_ERR with the reason of the first unit
 * that failed. */
int pc_split_search(fb_ci *ci, const pc_split_phase *ph, fb_pc_level *bal, fb_error *err);

/* Level 0's first visits on ci's helpers' threads, rows of g cut into units: for each pair
 * i < j joined in g (read only), dep (d (d - 1) / 2, by rows) is set to 1 when ci finds it
 * independent given the empty set at alpha, 2 when dependent, 0 when not joined; the tests
 * are counted into ci as the serial first visits count them, and nothing is kept (each pair
 * is asked once).  The units' figures go to bal.  FB_ERR with the first failure. */
int pc_split_level0(fb_ci *ci, const fb_graph *g, double alpha, unsigned char *dep,
                    fb_pc_level *bal, fb_error *err);

#endif
