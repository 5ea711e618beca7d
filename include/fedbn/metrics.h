/* Accuracy of an estimated graph against the truth (ALGORITHMS.md §9). */
#ifndef FEDBN_METRICS_H
#define FEDBN_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/graph.h"

/* Counts and rates of one comparison.  Conventions (NOTEARS count_accuracy): a predicted
 * undirected edge over a true edge is a true positive and costs nothing in SHD; a reversed
 * edge counts once in SHD. */
typedef struct fb_metrics {
	size_t true_edges; /* |E|, directed edges of the truth */
	size_t nnz;        /* predicted edges, directed plus undirected */
	size_t tp;         /* predicted edges matching a true edge (undirected: either way) */
	size_t reversed;   /* predicted i -> j where the truth has j -> i */
	size_t extra;      /* predicted edges whose pair is not adjacent in the truth (FP) */
	size_t missing;    /* true edges whose pair is not adjacent in the estimate */
	size_t shd;        /* extra + missing + reversed */
	double tpr;        /* tp / max(|E|, 1) */
	double fdr;        /* (reversed + extra) / max(nnz, 1) */
	double fpr;        /* (reversed + extra) / max(d(d-1)/2 - |E|, 1) */
	double precision;  /* gCastle: tp / (predicted matrix entries), undirected counting 2 */
	double recall;     /* tp / max(|E|, 1) */
	double f1;         /* 2PR / (P + R), 0 when both are 0 */
	bool cyclic;       /* the estimate's directed part has a cycle */
} fb_metrics;

/* Compare est with truth (same nodes, same order; truth must be directed). */
int fb_metrics_compute(const fb_graph *est, const fb_graph *truth, fb_metrics *m,
                       fb_error *err);

#endif
