/* Greedy Equivalence Search (Chickering 2002) on one dataset, as a stepper.
 *
 * The state is a CPDAG, empty at the start.  The forward phase applies, one per step, the
 * Insert(X, Y, T) of largest score gain: X and Y not adjacent, T a subset of the
 * neighbours of Y not adjacent to X, valid when NA_{Y,X} u T is a clique (NA_{Y,X}: the
 * neighbours of Y adjacent to X) and every semi-directed path from Y to X meets
 * NA_{Y,X} u T; its gain is s(Y, NA u T u Pa_Y u {X}) - s(Y, NA u T u Pa_Y).  Insert adds
 * X -> Y and turns every T - Y into T -> Y.  The backward phase applies the
 * Delete(X, Y, H) of largest gain: X - Y or X -> Y, H a subset of NA_{Y,X}, valid when
 * NA_{Y,X} \ H is a clique; gain s(Y, (NA \ H) u Pa_Y \ {X}) - s(Y, (NA \ H) u Pa_Y u {X}).
 * Delete removes the edge and turns Y - h and X - h into Y -> h and X -> h for h in H.
 * After each operator the PDAG is extended to a DAG (Dor and Tarsi) and its CPDAG taken.
 * A phase ends when the best gain is not positive.
 *
 * The operators are tried for X, then Y, in increasing index order, and the sets T (H) by
 * size, then in lexicographic order; the first of several equal gains wins.  That order,
 * the scores (lscore.h) and their defaults are those of causal-learn's ges, whose outputs
 * fedbn reproduces. */
#ifndef FEDBN_GES_H
#define FEDBN_GES_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/lscore.h"
#include "fedbn/param.h"

/* Which local score GES climbs. */
enum fb_ges_score {
	FB_GES_SCORE_AUTO = 0, /* BDeu when every variable is discrete, BIC when every one is
	                          continuous, else DG */
	FB_GES_SCORE_BIC = 1,  /* linear Gaussian BIC */
	FB_GES_SCORE_BDEU = 2, /* discrete BDeu (every variable discrete) */
	FB_GES_SCORE_DG = 3,   /* degenerate Gaussian BIC (mixed data; lscore.h) */
};

/* GES's settings (defaults: the "ges" parameter table, read by fb_ges_options_init). */
typedef struct fb_ges_options {
	enum fb_ges_score score;  /* the local score */
	double lambda;            /* BIC penalty discount */
	double ess;               /* BDeu equivalent sample size */
	double structure_prior;   /* BDeu expected number of parents (0: none) */
	size_t threads;           /* threads scoring the operators of a step (0 or 1: one); the
	                             result does not depend on it */
} fb_ges_options;

/* The defaults of the "ges" parameter table. */
void fb_ges_options_init(fb_ges_options *o);
/* Read the "ges" parameters of p into o. */
void fb_ges_options_from_params(const fb_params *p, fb_ges_options *o);

/* The phase a step worked in. */
enum fb_ges_phase {
	FB_GES_FORWARD = 1,  /* inserting edges */
	FB_GES_BACKWARD = 2, /* deleting edges */
	FB_GES_DONE = 0,     /* finished: no operator improves the score */
};

/* What one step did. */
typedef struct fb_ges_round {
	enum fb_ges_phase phase; /* the phase of the operator applied (DONE: none applied) */
	size_t x, y;             /* the operator's edge X, Y (when one was applied) */
	size_t nset;             /* |T| or |H| */
	double gain;             /* its score gain (0 when none applied) */
	double score;            /* the CPDAG's score after the step */
	size_t edges;            /* edges of the CPDAG after the step */
	size_t operators;        /* valid operators scored this step */
} fb_ges_round;

/* A GES search. */
typedef struct fb_ges fb_ges;

/* Start GES on ds (which must outlive it) with settings o; NULL with the reason (a score
 * that does not fit the data's kinds, a bad setting). */
fb_ges *fb_ges_alloc(const fb_dataset *ds, const fb_ges_options *o, fb_error *err);
/* Free (NULL is fine). */
void fb_ges_free(fb_ges *g);
/* Search under background knowledge k (kept, not copied: it must outlive g; call before the
 * first step), as Tetrad's FGES does: the required arcs make the starting graph; an
 * Insert(X, Y, T) is skipped when X -> Y or some T -> Y is forbidden, a Delete(X, Y, H) when
 * an arc between X and Y is required or some Y -> h or X -> h is forbidden; after each
 * operator the CPDAG's undirected edges with a forbidden direction are oriented the other
 * way and the required arcs set, then Meek's rules (R1-R4) run.  Empty k changes nothing.
 * FB_ERR with the reason (a local score failed). */
int fb_ges_set_knowledge(fb_ges *g, const fb_knowledge *k, fb_error *err);
/* Apply the best operator of the current phase (moving to the backward phase, in the same
 * step, when no insertion improves the score); FB_ERR with the reason (out of memory). */
int fb_ges_step(fb_ges *g, fb_ges_round *r, fb_error *err);
/* Whether no operator improves the score any more. */
bool fb_ges_done(const fb_ges *g);
/* The current CPDAG (owned by g; i -> j is row i, column j). */
const fb_graph *fb_ges_graph(const fb_ges *g);
/* The current CPDAG's score (the sum of its local scores). */
double fb_ges_score(const fb_ges *g);
/* The validity conditions alone, on a CPDAG g (x, y not adjacent for Insert; x - y or
 * x -> y for Delete; T within the neighbours of y not adjacent to x, H within NA_{Y,X}). */
bool fb_ges_insert_valid(const fb_graph *g, size_t x, size_t y, const size_t *t, size_t nt);
bool fb_ges_delete_valid(const fb_graph *g, size_t x, size_t y, const size_t *h, size_t nh);
/* Distinct local scores computed so far. */
size_t fb_ges_scores_computed(const fb_ges *g);

#endif
