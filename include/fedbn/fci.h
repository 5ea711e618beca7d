/* FCI, the Fast Causal Inference algorithm (Spirtes, Meek and Richardson 1995; Zhang 2008's
 * complete orientation rules), for data whose causes may be hidden.  It learns a PAG
 * (fedbn/pag.h): which pairs are adjacent, and at each end of each edge a tail, an
 * arrowhead or a circle (not known).
 *
 * Stages, one step each:
 *   skeleton: PC's skeleton search level by level (fb_pc_skeleton_level: PC-stable, alpha=,
 *     depth=, test= as pc);
 *   possible-d-sep: every edge o-o, unshielded colliders oriented (R0), then each edge whose
 *     ends some subset of 2 or more members of a possible-d-sep set separates is removed;
 *   orientation: R0 again over the new skeleton, then R1-R10 until none applies.
 * The possible-d-sep stage and the rules follow causal-learn's fci (its FCI.py) in their
 * order and form in both modes: its getPossibleDsep (which queues the pair (a, c) where
 * Tetrad queues (b, c)), a removed edge's separating set kept for one order of the pair,
 * its R4 that decides a discriminating path by two tests and then by the separating set,
 * R8 tried for one order of each pair, and R10 trying both assignments of the two children
 * (causal-learn takes one in an order that depends on Python's string hashing; on the 13
 * networks of tests/data/fci the result does not depend on it).  The possible-d-sep search
 * from x starts from x's neighbours in index order; causal-learn takes them from a Python
 * set, whose order follows the string hashing of the names (PYTHONHASHSEED), and since the
 * search keeps the first way it reaches each node, its sets (and so its output) can depend
 * on that order: on every file of tests/data/fci they do not; on `gen er d=100 edges=100
 * n=5000 seed=1` causal-learn gives three different PAGs over ten hash seeds, and with its set
 * replaced by the list of neighbours it gives fedbn's PAG exactly.  The sets' members are
 * tried largest name first, with causal-learn's names X1..Xd under compat=causal-learn and
 * by index otherwise.  depth= also bounds the possible-d-sep subsets (except under
 * compat=causal-learn, which tries every size as causal-learn does).
 *
 * compat=causal-learn mirrors causal-learn's fci(data, test, alpha, depth=-1,
 * max_path_length=-1): PC's compat=causal-learn skeleton (its fas is that search) and the
 * test settings it forces. */
#ifndef FEDBN_FCI_H
#define FEDBN_FCI_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/pag.h"
#include "fedbn/param.h"
#include "fedbn/pc.h"

/* Settings of FCI: PC's (alpha, depth, test and its settings, compat, threads; stable is
 * always on and the collider rule unused). */
typedef struct fb_fci_options {
	fb_pc_options pc;
} fb_fci_options;

/* Defaults, from the fci learner's parameter table: alpha 0.05, no depth limit, test auto,
 * no compat. */
void fb_fci_options_init(fb_fci_options *opt);
/* Options from parameters named as the fci learner's. */
void fb_fci_options_from_params(const fb_params *p, fb_fci_options *opt);

/* An FCI run as a stepper. */
typedef struct fb_fci fb_fci;

/* The stage a step ran. */
enum fb_fci_stage {
	FB_FCI_SKELETON = 0,  /* one level of the skeleton */
	FB_FCI_PDSEP,         /* the possible-d-sep stage */
	FB_FCI_ORIENT,        /* R0 and R1-R10 */
};

/* What one step did. */
typedef struct fb_fci_round {
	enum fb_fci_stage stage; /* which */
	size_t level;            /* skeleton: the level */
	size_t tests;            /* tests asked (counting the cache's answers) */
	size_t removed;          /* edges removed */
	size_t edges;            /* edges after it */
} fb_fci_round;

/* Start FCI on ds (opt NULL: defaults) with background knowledge bk (NULL or empty: none;
 * over ds's variables; a pair forbidden both ways is removed after the skeleton, and the
 * orientation honours the rest as causal-learn's fci(background_knowledge=) does; fedbn's
 * own mode, unlike compat=causal-learn, first joins a required pair that a test removed, so
 * that a required arc is always there).  NULL with the reason. */
fb_fci *fb_fci_alloc(const fb_dataset *ds, const fb_fci_options *opt, const fb_knowledge *bk,
                     fb_error *err);
/* Free (NULL is fine). */
void fb_fci_free(fb_fci *f);
/* One step; r (may be NULL) receives its figures.  FB_ERR once done, or when a test fails. */
int fb_fci_step(fb_fci *f, fb_fci_round *r, fb_error *err);
/* Whether the orientation has been done. */
bool fb_fci_done(const fb_fci *f);
/* The current PAG: o-o edges over the skeleton until the orientation (owned by the run). */
const fb_pag *fb_fci_pag(const fb_fci *f);
/* Run FCI to the end on ds and return the PAG (caller frees); NULL with the reason. */
fb_pag *fb_fci_run(const fb_dataset *ds, const fb_fci_options *opt, const fb_knowledge *bk,
                   fb_error *err);

/* The PAG of the DAG dag over its nodes with hidden[v] false (FCI's stages with
 * d-separation in dag as the test): the true PAG when the hidden nodes are not observed.
 * Names from dag.  NULL with the reason (dag has a cycle or undirected edges). */
fb_pag *fb_pag_of_dag(const fb_graph *dag, const bool *hidden, fb_error *err);

#endif
