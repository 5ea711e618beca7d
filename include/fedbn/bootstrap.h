/* Edge confidence by the bootstrap (bnlearn's boot.strength and averaged.network): a learner
 * run on R resamples of the training rows, per pair of variables the share of the R graphs
 * with an edge between them (strength) and, among those, the share with each direction, and
 * a consensus graph of the pairs whose strength passes a threshold.
 *
 * Resample r (from 0) draws its rows from the stream fb_rng_stream(seed, "bootstrap-r"):
 * pooled, round(fraction n) of the n training rows uniformly with replacement; over a
 * horizontal split each client draws round(fraction n_k) of its own n_k training rows, in
 * client order, so that no row leaves its client.  Other splits are refused.  The R runs are
 * independent and their graphs are tallied in resample order, so the result is the same for
 * any number of jobs.  A cancel request (o->cancel) stops the runs between rounds and starts
 * no new one; the result then tallies the resamples 1 to K that had all finished (K >= 1), so
 * that it is the result of a bootstrap of K resamples with the same seed.
 *
 * A CPDAG's undirected edge counts once for the pair and half for each direction, as
 * boot.strength counts one; a learner's DAG is tallied as it is, unless o->cpdag asks for
 * its equivalence class (its CPDAG), as boot.strength's default cpdag = TRUE does.  The threshold, unless given, is Scutari and Nagarajan's
 * (2013) estimate: with F the empirical CDF of the d(d-1)/2 strengths, p0 minimises the L1
 * distance between F and the step function equal to p on [0, 1), i.e. p0 is the median of F
 * over [0, 1] (the smallest value at which F's level sets reach half of [0, 1]), and the
 * threshold is F's quantile of type 1 at p0 (the smallest strength s with F(s) >= p0).
 * (bnlearn finds p0 with optimize(), which can land elsewhere in a flat stretch of the L1
 * distance; this takes the smallest minimiser.)
 * The consensus keeps a pair whose strength is above the threshold (averaged.network's
 * strength > threshold): an arc a -> b when a -> b's direction share is above one half,
 * undirected when the two are equal; for a learner of DAGs (no resample's graph had an
 * undirected edge) the arcs are added in decreasing strength (then direction share, then
 * index order), each kept only when it closes no directed cycle, and an equal pair is
 * oriented from the lower index. */
#ifndef FEDBN_BOOTSTRAP_H
#define FEDBN_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/algo.h"
#include "fedbn/core.h"
#include "fedbn/graph.h"

/* Options of a bootstrap. */
typedef struct fb_boot_options {
	size_t resamples;  /* R >= 1 */
	double fraction;   /* share of the rows each resample draws, in (0, 1] ... (1) */
	uint64_t seed;     /* the resamples' streams derive from it */
	size_t jobs;       /* runs at once (1); the result does not depend on it */
	double threshold;  /* the consensus threshold in [0, 1], or NAN: estimated */
	size_t max_rounds; /* a run stops after this many rounds (0: when it is done) */
	bool cpdag;        /* tally each DAG's equivalence class (its CPDAG), as boot.strength's
	                      default cpdag = TRUE, instead of the DAG itself (no) */
	fb_cancel cancel;  /* stop early, keeping the finished resamples (fn NULL: never) */
	void (*done)(void *ctx, size_t finished, size_t total); /* after each resample ends,
	                      from the job that ran it, one call at a time, or NULL */
	void *done_ctx;    /* passed back to done */
} fb_boot_options;

/* What a bootstrap found. */
typedef struct fb_boot {
	size_t d;           /* variables */
	size_t resamples;   /* R: the resamples tallied */
	size_t requested;   /* the resamples asked for (R is fewer when cancelled) */
	double *strength;   /* d x d, symmetric: share of the graphs with an edge i - j (owned) */
	double *direction;  /* d x d: [i*d+j] share of the graphs with the edge that have i -> j
	                       (0 where the pair never has an edge) (owned) */
	double threshold;   /* the threshold used */
	bool estimated;     /* it was estimated (Scutari and Nagarajan) */
	fb_graph *consensus; /* the consensus graph, named as the data (owned) */
	size_t dropped;     /* arcs the consensus left out because they closed a cycle */
} fb_boot;

/* Defaults: R 100, fraction 1, seed 1, one job, estimated threshold, runs to the end, DAGs
 * tallied as they are. */
void fb_boot_options_init(fb_boot_options *o);

/* Run spec's learner (its algo, params, fedopt, data and, when set, part) on R resamples
 * of the training rows (caller frees with fb_boot_free); NULL with one sentence (a split
 * other than horizontal, a run that fails, a learner of circuits or PAGs, or
 * FB_CANCELLED_MSG when cancelled before the first resample finished). */
fb_boot *fb_bootstrap(const fb_run_spec *spec, const fb_boot_options *o, fb_error *err);
/* Free it (NULL is fine). */
void fb_boot_free(fb_boot *b);

/* The estimated threshold of the n strengths s (Scutari and Nagarajan 2013; see above). */
double fb_boot_threshold(const double *s, size_t n);

#endif
