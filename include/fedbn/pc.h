/* The PC algorithm (ALGORITHMS.md §6) in building blocks that FedPC reuses: separating sets,
 * one level of the skeleton search, the orientation of v-structures, and a stepper that runs
 * the whole algorithm one level per step with the orientation as its last step.
 *
 * Skeleton, level l (independent iff p > alpha).  From the current undirected skeleton, for
 * every i in increasing order and every j in a(i) in increasing order, the sets S of l
 * members of a(i) \ {j} are tried in lexicographic order:
 *   stable (PC-stable, Colombo & Maathuis): a(i) is the adjacency of i when the level
 *     started; the pair is skipped once i - j is gone; the first S with p > alpha removes
 *     i - j and becomes sepset(i, j);
 *   not stable (the original PC): a(i) is i's adjacency at the moment the pair is visited;
 *     otherwise the same;
 *   compat=causal-learn (causal-learn's stable mode, checked in its
 *     utils/PCUtils/SkeletonDiscovery.py): a(i) frozen, every adjacent ordered pair is visited
 *     even when the other order already found it independent, every S is tested (no stop at
 *     the first), removals happen at the end of the level, and sepset(i, j) is the union of
 *     all the S with p > alpha from both orders.
 * A level runs while some vertex has |adj| - 1 >= l (and l <= depth when depth >= 0).
 *
 * Orientation (fedbn's rules).  A collider candidate is an unshielded triple i - k - j
 * (i < j not adjacent, with a separating set) whose middle k is not in sepset(i, j).  The
 * candidates are oriented one after the other, both edges into k, unless one of them already
 * points out of k: then the candidate is skipped and counted as a conflict (nothing is ever
 * re-oriented and no bidirected edge is made).  The order is the collider rule:
 *   strength (default): increasing p-value of i _||_ j | sepset(i, j) + {k} (the test that
 *     makes the collider: the smaller p, the stronger the evidence), ties by larger
 *     statistic, then by the order below; one test per candidate (cached);
 *   order (ALGORITHMS.md §6.2's recommendation): the middle k first, then i, then j, all
 *     increasing; no test.
 * On simulated ER data (d = 20, n = 10,000, seeds 1..10) the order rule leaves a mean
 * CPDAG-SHD of 2.3 and the strength rule 1.1, because a wrong separating set at one triple no
 * longer overrides well-supported colliders that come later in index order.  A non-adjacent
 * pair without a separating set (only with a skeleton from elsewhere) gives no collider.
 * Then Meek's R1-R3 to closure (fb_cpdag_meek).
 *
 * Orientation, compat=causal-learn (causal-learn's uc_sepset with uc_priority -1, which maps
 * to its default priority 3 "prioritize stronger colliders", then its meek): a triple is a
 * collider candidate when k is in no separating set of (i, j); each candidate is scored by
 * the largest p-value of i _||_ j | S over every S that contains k and is a subset of adj(i)
 * or of adj(j) in the skeleton; candidates are oriented in increasing score (ties in
 * causal-learn's triple order: middle, then i, then j), each only when neither edge
 * already points out of k.  Meek: R1, R2, R3 only, over triple lists built once in
 * causal-learn's order, repeated until a pass orients nothing; an orientation a -> b is
 * skipped when b counts as an ancestor of a in causal-learn's ancestor table, which follows
 * directed paths only partly (pc-causal-learn.c says how), so that a cycle it misses is
 * made here too, as in its output on hepar2.
 *
 * Background knowledge (fb_pc_options.knowledge).  A pair forbidden both ways is never
 * adjacent: it is left out of the complete graph with an empty separating set, so none of its
 * skeleton tests run (a collider's strength test may still ask about it, with the middle).  Before the colliders, every edge with a forbidden direction (directly, by the
 * tiers, or because the other direction is required) and every required one is directed the
 * allowed way; the colliders and Meek's rules only orient edges still undirected, so they
 * never reverse a knowledge arc or make a forbidden one.  compat=causal-learn does exactly
 * what causal-learn's pc(background_knowledge=...) does (its orient_by_background_knowledge,
 * then the knowledge checks of uc_sepset and meek, the ancestor table updated arc by arc in
 * its edge order), which leaves a required arc out when a test removed the pair; fedbn's own
 * mode joins such a pair again as the required arc before orienting. */
#ifndef FEDBN_PC_H
#define FEDBN_PC_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/ci.h"
#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/param.h"

/* Separating sets of the unordered pairs of d variables. */
typedef struct fb_sepsets fb_sepsets;

/* Empty separating sets for d variables (caller frees); out of memory exits. */
fb_sepsets *fb_sepsets_alloc(size_t d);
/* Free (NULL is fine). */
void fb_sepsets_free(fb_sepsets *s);
/* Make sepset(i, j) exactly the ns members of S (any order, no repeats). */
void fb_sepsets_set(fb_sepsets *s, size_t i, size_t j, const size_t *S, size_t ns);
/* Add the members of S to sepset(i, j), defining it (empty) if it was not. */
void fb_sepsets_add(fb_sepsets *s, size_t i, size_t j, const size_t *S, size_t ns);
/* Forget sepset(i, j). */
void fb_sepsets_clear(fb_sepsets *s, size_t i, size_t j);
/* Whether sepset(i, j) is defined (possibly empty). */
bool fb_sepsets_has(const fb_sepsets *s, size_t i, size_t j);
/* Whether k is a member of sepset(i, j) (false when undefined). */
bool fb_sepsets_contains(const fb_sepsets *s, size_t i, size_t j, size_t k);
/* The members of sepset(i, j) in increasing order into out (room for d); their count (0
 * when undefined). */
size_t fb_sepsets_get(const fb_sepsets *s, size_t i, size_t j, size_t *out);

/* Which behaviour to mirror. */
enum fb_pc_compat {
	FB_PC_COMPAT_NONE = 0,     /* fedbn's PC as ALGORITHMS.md §6 describes it */
	FB_PC_COMPAT_CAUSAL_LEARN, /* causal-learn's pc(data, alpha, test, stable=True,
	                              uc_rule=0, uc_priority=-1), see above; also forces the
	                              adjusted df, no small-sample rule, p = 1 for df = 0 and
	                              Fisher-z p-values computed as 2 (1 - Phi(T)) */
};

/* Order in which collider candidates are oriented (see above). */
enum fb_pc_colliders {
	FB_PC_COLLIDERS_STRENGTH = 0, /* by the p-value of the collider test */
	FB_PC_COLLIDERS_ORDER,        /* by index: middle, then ends */
};

/* Settings of PC. */
typedef struct fb_pc_options {
	double alpha;              /* significance level, in (0, 1) (0.01) */
	long depth;                /* largest conditioning set, -1 for no limit (-1) */
	bool stable;               /* PC-stable (true); ignored by compat=causal-learn */
	enum fb_pc_compat compat;  /* (FB_PC_COMPAT_NONE) */
	enum fb_pc_colliders colliders; /* collider rule (FB_PC_COLLIDERS_STRENGTH); ignored by
	                              compat=causal-learn */
	fb_ci_options ci;          /* the test and its settings (fb_ci_options_init) */
	size_t threads;            /* threads computing compat=causal-learn's tests (1): the
	                              vertices of a level, the collider candidates; and the
	                              pair searches of a stable Fisher-z level; results, cache
	                              and counters do not depend on it */
	const fb_knowledge *knowledge; /* background knowledge over the variables, or NULL:
	                              none (borrowed: it must outlive the run) */
} fb_pc_options;

/* Defaults, read from the pc learner's parameter table (the one place they are written):
 * alpha 0.01, no depth limit, stable, no compat, the strength rule, and fb_ci_options_init
 * except that a conditional discrete test with 0 degrees of freedom is taken as dependent
 * (FB_CI_ZERO_DF_DEPENDENT: see ci.h; compat=causal-learn reverts it). */
void fb_pc_options_init(fb_pc_options *opt);
/* The names of the values of the parameters test, df, small, zero_df and colliders, shared
 * by every table that has them (pc, fedpc and its ablations). */
extern const fb_choice fb_pc_tests[], fb_pc_dfs[], fb_pc_smalls[], fb_pc_zero_dfs[],
	fb_pc_colliders[];
/* Options from declared parameters named as the pc learner's (alpha, depth, stable, test, df,
 * small, zero_df, colliders, and compat when the table has it). */
void fb_pc_options_from_params(const fb_params *p, fb_pc_options *opt);
/* Advance comb (l increasing indices below m) to the next subset in lexicographic order;
 * false after the last. */
bool fb_pc_subset_next(size_t *comb, size_t l, size_t m);

/* What one skeleton level did. */
typedef struct fb_pc_level {
	size_t level;   /* l, the size of the conditioning sets */
	size_t tests;   /* tests asked for */
	size_t hits;    /* of which answered by the cache */
	size_t removed; /* edges removed */
	size_t edges;   /* edges left */
	/* a stable Fisher-z level on threads (pc-split.c; else all 0): */
	size_t units;   /* the units of work its searches were cut into */
	size_t cut;     /* the vertices whose search was cut into ranges (several units) */
	size_t spare;   /* tests asked in ranges past a pair's first find (the price of the cut,
	                   in no counter) */
	size_t threads; /* the threads that ran them */
	double work;    /* the units' processor seconds */
	double busiest; /* the busiest thread's processor seconds (phase by phase) */
	double span16;  /* the same for 16 threads, were the units dealt in their order to the
	                   thread free first: work / 16 over it is how busy 16 could be kept */
} fb_pc_level;

/* Whether level l can run on skel: some vertex has |adj| - 1 >= l. */
bool fb_pc_level_possible(const fb_graph *skel, size_t level);

/* Run level l of the skeleton search on skel (an undirected graph over ci's variables,
 * edited in place) with the tests of ci, as opt says (alpha, stable, compat); the
 * separating sets of removed pairs go to seps (may be NULL), figures to out (may be NULL).
 * FB_ERR with the reason when a test fails (out of memory) or the sizes disagree. */
int fb_pc_skeleton_level(fb_graph *skel, fb_ci *ci, size_t level, const fb_pc_options *opt,
                         fb_sepsets *seps, fb_pc_level *out, fb_error *err);
/* fb_pc_skeleton_level for a caller whose ci serves this search alone (PC's own tests): with
 * fedbn's rules the cache keeps only answers the level may ask again (at or below alpha,
 * from the first end of a pair whose second end can condition on the same set) and is left
 * empty after it, since no later level or collider test asks a set already tested; the
 * counters come out exactly as with every answer kept.  compat=causal-learn keeps all.
 * Otherwise skel is taken as PC's own: both marks of each edge set, no weight written. */
int fb_pc_skeleton_level_owned(fb_graph *skel, fb_ci *ci, size_t level,
                               const fb_pc_options *opt, fb_sepsets *seps, fb_pc_level *out,
                               fb_error *err);

/* Orient the v-structures of the skeleton g by fedbn's rules (see above): ci is needed by the
 * strength rule only (NULL is fine for the order rule).  The colliders oriented go to
 * *oriented and the candidates skipped for a conflict to *conflicts (either may be NULL).
 * FB_ERR with the reason when a test fails or the strength rule has no ci. */
int fb_pc_orient_colliders(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                           enum fb_pc_colliders rule, size_t *oriented, size_t *conflicts,
                           fb_error *err);

/* causal-learn's orientation of the skeleton g (uc_sepset, priority 3, then its meek); the
 * scores are tested with ci.  An undefined separating set counts as empty.  Returns the
 * colliders oriented in *colliders and the edges Meek oriented in *meek (either may be
 * NULL).  FB_ERR with the reason when a test fails or a candidate's end has more than 24
 * neighbours (causal-learn tests every subset of a neighbourhood). */
int fb_pc_orient_causal_learn(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                              size_t *colliders, size_t *meek, fb_error *err);

/* Leave the pairs that k forbids both ways out of the skeleton g, each with an empty
 * separating set in seps; the number left out (0 when k is NULL). */
size_t fb_pc_skeleton_knowledge(fb_graph *g, fb_sepsets *seps, const fb_knowledge *k);
/* fedbn's knowledge step before the colliders: join every required pair the skeleton g lacks
 * as its arc, and direct every undirected edge that has a forbidden direction (or is
 * required) the allowed way; the number of arcs set. */
size_t fb_pc_orient_knowledge(fb_graph *g, const fb_knowledge *k);
/* fb_pc_orient_causal_learn with causal-learn's background knowledge k (NULL: none). */
int fb_pc_orient_causal_learn_knowledge(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                                        const fb_knowledge *k, size_t *colliders,
                                        size_t *meek, fb_error *err);

/* A PC run as a stepper: each step is one skeleton level, and the last step orients. */
typedef struct fb_pc fb_pc;

/* What one step did. */
typedef struct fb_pc_round {
	bool orientation;   /* this was the orientation step (the last) */
	fb_pc_level level;  /* skeleton level figures (orientation: tests and hits it made,
	                       level = the number of levels run, removed 0) */
	size_t colliders;   /* orientation: v-structures oriented */
	size_t conflicts;   /* orientation: collider triples skipped for a conflict */
	size_t meek;        /* orientation: edges oriented by Meek's rules */
} fb_pc_round;

/* Start PC on ds (opt NULL: defaults); the test FB_CI_AUTO becomes fisher-z for continuous
 * data and g2 for discrete data.  Caller frees with fb_pc_free; ds may go after this call.
 * NULL with the reason (a bad alpha or test, mixed column kinds for auto). */
fb_pc *fb_pc_alloc(const fb_dataset *ds, const fb_pc_options *opt, fb_error *err);
/* The test settings a run with options o uses: o->ci, with the adjusted df, no small-sample
 * rule, p = 1 for df = 0 and Fisher-z's complement p-values under compat=causal-learn (for a
 * test object shared by several runs, fb_pc_alloc_ci). */
void fb_pc_ci_options(const fb_pc_options *o, fb_ci_options *ci);
/* Start PC on the tests of ci (kept, not freed by the run; it must outlive the run) over
 * variables called names (d = fb_ci_d(ci) names, copied; NULL for X1..Xd).  opt's test
 * settings are ignored (ci has its own). */
fb_pc *fb_pc_alloc_ci(fb_ci *ci, char *const *names, const fb_pc_options *opt, fb_error *err);
/* Free a run (NULL is fine). */
void fb_pc_free(fb_pc *pc);
/* One step; r (may be NULL) receives its figures.  FB_ERR once done, or when a test fails. */
int fb_pc_step(fb_pc *pc, fb_pc_round *r, fb_error *err);
/* Whether no further skeleton level can run (the next step orients). */
bool fb_pc_skeleton_done(const fb_pc *pc);
/* Whether the orientation has been done. */
bool fb_pc_done(const fb_pc *pc);
/* The current graph: the skeleton during the search, then the CPDAG (owned by the run). */
const fb_graph *fb_pc_graph(const fb_pc *pc);
/* The separating sets found so far (owned by the run). */
const fb_sepsets *fb_pc_sepsets(const fb_pc *pc);
/* The run's test object (owned by the run unless given to fb_pc_alloc_ci). */
fb_ci *fb_pc_ci(const fb_pc *pc);
/* Once pc has finished, free what its own test object's tests read (fb_ci_release: the
 * correlation matrix, the cached answers), keeping the counters; nothing for a run on a
 * caller's test object, or before the end. */
void fb_pc_release_tests(fb_pc *pc);
/* Run PC to the end on ds and return the CPDAG (caller frees); NULL with the reason. */
fb_graph *fb_pc_run(const fb_dataset *ds, const fb_pc_options *opt, fb_error *err);

#endif
