/* The combinators' aggregation rules on plain matrices, for the combinators and their tests. */
#ifndef FEDBN_ALGO_COMBINE_H
#define FEDBN_ALGO_COMBINE_H

#include <stddef.h>

#include "fedbn/graph.h"

/* The vote from counts alone: count (d x d) holds, per mark, how many of the heard clients
 * found it (a sum over clients of 0/1 indicators); keep each mark counted by more than share
 * of them.  A mark kept both ways is an undirected edge. */
fb_graph *fb_combine_vote_counts(const double *count, size_t heard, size_t d, double share,
                                 char *const *names);
/* k d x d matrices (row-major; NULL for a client that sat out), each encoding a graph:
 * (i,j) non-zero for i -> j, both (i,j) and (j,i) non-zero for i - j.  Keep each mark found
 * by more than share of the clients heard; a mark kept both ways is an undirected edge. */
fb_graph *fb_combine_vote(const double *const *mats, size_t k, size_t d, double share,
                          char *const *names);
/* The sum (d x d) of heard clients' weight matrices: their mean with |w| <= threshold and
 * the diagonal set to zero; where both directions of a pair survive, the larger |w| is kept
 * (fb_weights_to_graph); NULL when the mean is not finite. */
fb_graph *fb_combine_mean(const double *sum, size_t heard, size_t d, double threshold,
                          char *const *names);
/* The index of the graph with the lowest SHD against truth (ties: the lowest); k if none. */
size_t fb_combine_best(fb_graph *const *graphs, size_t k, const fb_graph *truth);

#endif
