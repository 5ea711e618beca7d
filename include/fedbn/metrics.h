/* Accuracy of an estimated graph against the truth (ALGORITHMS.md §9). */
#ifndef FEDBN_METRICS_H
#define FEDBN_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/graph.h"

/* Counts and rates of one comparison of an estimate (DAG, PDAG or CPDAG, possibly cyclic)
 * with a true DAG over the same d nodes, following NOTEARS' count_accuracy: each unordered
 * pair {i, j} with an estimated edge falls in exactly one of tp, reversed, extra:
 *   estimated i -> j:  tp when the truth has i -> j, reversed when it has j -> i, extra when
 *                      i and j are not adjacent in the truth;
 *   estimated i - j:   tp when i and j are adjacent in the truth (either direction: an
 *                      undirected edge is "treated favourably"), extra otherwise;
 * and each true edge whose pair has no estimated edge is missing.  So nnz = tp + reversed +
 * extra and true_edges = tp + reversed + missing.  Rates never divide by zero: an empty
 * denominator is replaced by 1 (NOTEARS' max(., 1)), which makes them 0. */
typedef struct fb_metrics {
	size_t true_edges; /* |E|, directed edges of the truth */
	size_t nnz;        /* estimated edges, directed plus undirected (each pair once) */
	size_t tp;         /* estimated edges matching a true edge: same direction, or undirected
	                      over a true edge */
	size_t reversed;   /* estimated i -> j where the truth has j -> i */
	size_t extra;      /* estimated edges (either kind) whose pair is not adjacent in the
	                      truth: NOTEARS' false positives */
	size_t missing;    /* true edges whose pair is not adjacent in the estimate */
	size_t shd;        /* extra + missing + reversed: pairs adjacent in only one graph, plus
	                      reversals counted once; an undirected edge over a true edge is 0 */
	double tpr;        /* tp / max(|E|, 1) */
	double fdr;        /* (reversed + extra) / max(nnz, 1) */
	double fpr;        /* (reversed + extra) / max(d(d-1)/2 - |E|, 1): over true non-edges */
	double precision;  /* gCastle, on matrices where i -> j is one entry and i - j two:
	                      tp / max(entries, 1) with entries = directed + 2 * undirected
	                      (an undirected edge adds 2 entries and at most 1 true positive) */
	double recall;     /* gCastle: tp / max(|E|, 1) (equal to tpr) */
	double f1;         /* 2 * precision * recall / (precision + recall), 0 when both are 0 */
	double gscore;     /* gCastle: max(0, tp - (entries - tp)) / max(|E|, 1), where
	                      entries - tp counts the reversed and false matrix entries */
	bool cyclic;       /* the estimate's directed part has a cycle (metrics still computed) */
} fb_metrics;

/* Compare est with truth.  Both must have the same node count and the same names in the
 * same order, and truth must have no undirected edges (a cyclic truth is not rejected);
 * otherwise FB_ERR with the reason in err and m untouched. */
int fb_metrics_compute(const fb_graph *est, const fb_graph *truth, fb_metrics *m,
                       fb_error *err);

#endif
