/* Accuracy of an estimated graph against the truth (ALGORITHMS.md §9): the one scoring
 * function behind every screen, table and picture that shows it.
 *
 * The definition (NOTEARS' count_accuracy, for DAG, PDAG and CPDAG estimates alike).  Every
 * unordered pair {i, j} joined in the estimate is ONE estimated edge, whatever its mark, and
 * falls in exactly one class:
 *   tp        the truth joins i and j and the estimate does not contradict its direction:
 *             i -> j over a true i -> j, or i - j over a true edge either way (an undirected
 *             edge claims the adjacency and leaves the direction open, so it is "treated
 *             favourably");
 *   reversed  the estimate has i -> j where the truth has j -> i;
 *   extra     i and j are not adjacent in the truth (directed or undirected estimate);
 * and every true edge whose pair is not joined in the estimate is missing.  So
 *   nnz = tp + reversed + extra,   |E| = tp + reversed + missing,
 *   FDR = (reversed + extra) / nnz,   precision = tp / nnz = 1 - FDR,
 *   TPR = recall = tp / |E|,   F1 = 2 precision recall / (precision + recall),
 *   SHD = extra + missing + reversed (an undirected edge over a true edge costs 0).
 * Empty denominators: with no estimated edge FDR is 0 and precision 1 (nothing was claimed,
 * so nothing false was); with no true edge TPR and recall are 0 (NOTEARS' max(., 1)).  The
 * matrix-entry counting of gCastle (an undirected edge as two entries) is not used.  Two
 * other SHDs are given beside it: after extending a CPDAG estimate to a DAG (the FedPC
 * paper's convention) and between CPDAGs (Tsamardinos' count). */
#ifndef FEDBN_METRICS_H
#define FEDBN_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/graph.h"

/* Counts and rates of one comparison of an estimate (possibly cyclic) with a true DAG over
 * the same d nodes, as defined above. */
typedef struct fb_metrics {
	size_t true_edges; /* |E|, directed edges of the truth */
	size_t nnz;        /* estimated edges, directed plus undirected (each pair once) */
	size_t tp;         /* estimated edges over a true edge, not against its direction */
	size_t reversed;   /* estimated i -> j where the truth has j -> i */
	size_t extra;      /* estimated edges (either kind) whose pair is not adjacent in the
	                      truth: NOTEARS' false positives */
	size_t missing;    /* true edges whose pair is not adjacent in the estimate */
	size_t shd;        /* extra + missing + reversed */
	double tpr;        /* tp / max(|E|, 1) */
	double fdr;        /* (reversed + extra) / nnz; 0 when nnz is 0 */
	double fpr;        /* (reversed + extra) / max(d(d-1)/2 - |E|, 1): over true non-edges */
	double precision;  /* tp / nnz = 1 - fdr; 1 when nnz is 0 */
	double recall;     /* tp / max(|E|, 1) (equal to tpr) */
	double f1;         /* 2 * precision * recall / (precision + recall), 0 when both are 0 */
	bool cyclic;       /* the estimate's directed part has a cycle (metrics still computed) */
} fb_metrics;

/* Compare est with truth.  Both must have the same node count and the same names in the
 * same order, and truth must have no undirected edges (a cyclic truth is not rejected);
 * otherwise FB_ERR with the reason in err and m untouched. */
int fb_metrics_compute(const fb_graph *est, const fb_graph *truth, fb_metrics *m,
                       fb_error *err);

/* The figures as reals, so that a run over several client graphs can report their average
 * (fields as in fb_metrics). */
typedef struct fb_score {
	double shd, extra, missing, reversed, tp, nnz; /* counts (or mean counts) */
	double tpr, fdr, precision, recall, f1;        /* rates (or mean rates) */
	double shd_dag;   /* SHD after extending the estimate to a DAG (Dor-Tarsi), as the FedPC
	                     paper scores CPDAGs; equals shd for a DAG estimate */
	double shd_cpdag; /* SHD between the CPDAGs of the estimate and of the truth
	                     (Tsamardinos: a differing pair costs 1); NaN for a cyclic estimate */
	bool cyclic;      /* the estimate has a directed cycle */
} fb_score;

/* The score of one comparison (shd_dag and shd_cpdag set to shd). */
void fb_score_from_metrics(fb_score *s, const fb_metrics *m);
/* Every figure of est against truth, the DAG and CPDAG SHDs included: what the pane, result,
 * compare and the pictures' legends show.  FB_ERR as fb_metrics_compute. */
int fb_score_graph(const fb_graph *est, const fb_graph *truth, fb_score *s, fb_error *err);
/* fb_score_graph given the truth's CPDAG already made (fb_cpdag_from_dag(truth)), as a run
 * that scores every round keeps it; truth_cpdag NULL: made here. */
int fb_score_graph_with(const fb_graph *est, const fb_graph *truth,
                        const fb_graph *truth_cpdag, fb_score *s, fb_error *err);
/* The score in words, the same on every screen: "SHD 1 (extra 0, missing 1, reversed 0),
 * TPR 0.875, FDR 0.000, precision 1.000, recall 0.875, F1 0.933, NNZ 7", or when brief
 * "SHD 1, TPR 0.875, FDR 0.000, precision 1.000, F1 0.933"; either followed by " (the
 * estimate has a cycle)" when it has one.  Written into buf (len bytes); returns buf. */
const char *fb_score_text(const fb_score *s, bool brief, char *buf, size_t len);

#endif
