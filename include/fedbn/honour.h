/* Results that honour background knowledge (knowledge.h): the post-processing every graph
 * learner and combinator applies to what it found (postprocess.c).  Knowledge that is NULL
 * or empty changes nothing, and costs one test. */
#ifndef FEDBN_HONOUR_H
#define FEDBN_HONOUR_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_matrix.h>

#include "fedbn/core.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"

/* fb_weights_to_dag (notears.h) under k: a forbidden entry is no edge whatever its |w|, a
 * required entry is an edge whatever its |w| (exempt from the threshold), and the edges
 * deleted to break cycles are never required ones (k's required arcs form no cycle).  With
 * k empty the result is fb_weights_to_dag's. */
fb_graph *fb_honour_weights_dag(const gsl_matrix *W, double threshold, char *const *names,
                                const fb_knowledge *k, bool *pruned, fb_error *err);

/* fb_weights_to_graph (notears.h) under k: forbidden entries zero, required entries kept
 * whatever their |w|.  With k empty the result is fb_weights_to_graph's. */
fb_graph *fb_honour_weights_graph(const gsl_matrix *W, double threshold, char *const *names,
                                  const fb_knowledge *k, fb_error *err);

/* Make g honour k in place: a forbidden arc present is removed; an undirected edge one of
 * whose directions is forbidden is oriented the other way (removed when both are); a
 * required arc absent, reversed or undirected is set (its weight kept when g had the arc,
 * else 1).  With acyclic, directed cycles that this (or g) has are then broken by deleting
 * the arcs of smallest |w| that are not required.  Returns how many pairs changed (0: g
 * honoured k already); afterwards fb_knowledge_violations(k, g) is 0. */
size_t fb_honour_graph(const fb_knowledge *k, fb_graph *g, bool acyclic);

/* What knowledge says of entry (i, j) of a d x d weight matrix (row: parent), for the
 * learners that honour it inside their optimisation. */
enum fb_entry_role {
	FB_ENTRY_FREE = 0,      /* neither forbidden nor required (and every diagonal entry) */
	FB_ENTRY_FORBIDDEN = 1, /* i -> j may not appear: fb_knowledge_forbids (tiers included) */
	FB_ENTRY_REQUIRED = 2,  /* i -> j must appear */
};

/* The role of every entry of a d x d weight matrix under k into *roles, a new array of d*d
 * (caller frees); *roles NULL when k is NULL or empty, so that a learner without knowledge
 * takes its usual path.  FB_ERR with one sentence when k is over another number of
 * variables. */
int fb_honour_roles(const fb_knowledge *k, size_t d, unsigned char **roles, fb_error *err);

#endif
