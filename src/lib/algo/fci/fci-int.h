/* FCI's stages inside the fci folder: ordered separating sets, the rules that orient a PAG
 * (R0, Zhang's R1-R10 in causal-learn's order and form) and the possible-d-sep stage, over
 * any independence test (data, or a d-separation oracle for the true PAG). */
#ifndef FEDBN_FCI_INT_H
#define FEDBN_FCI_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/knowledge.h"
#include "fedbn/pag.h"
#include "fedbn/pc.h"

/* Separating sets of ordered pairs (causal-learn keeps (x, y) and (y, x) apart: the
 * possible-d-sep stage writes one order only). */
typedef struct fci_seps {
	size_t d;           /* variables */
	size_t **set;       /* d*d: the members, increasing (owned), or NULL */
	size_t *n;          /* d*d: how many */
	unsigned char *def; /* d*d: defined */
} fci_seps;

/* Empty sets for d variables. */
fci_seps *fci_seps_alloc(size_t d);
void fci_seps_free(fci_seps *s);
/* Make sepset(x, y) the ns members of S (any order). */
void fci_seps_set(fci_seps *s, size_t x, size_t y, const size_t *S, size_t ns);
/* Whether sepset(x, y) is defined and holds k. */
bool fci_seps_contains(const fci_seps *s, size_t x, size_t y, size_t k);
/* Whether sepset(x, y) is defined. */
bool fci_seps_has(const fci_seps *s, size_t x, size_t y);
/* Both orders of every set PC's skeleton found. */
void fci_seps_from_pc(fci_seps *s, const fb_sepsets *pc);

/* An independence test: *indep says whether x _||_ y | S (ns members, increasing). */
typedef int (*fci_test_fn)(void *ctx, size_t x, size_t y, const size_t *S, size_t ns,
                           bool *indep, fb_error *err);

/* What the rules read besides the PAG. */
typedef struct fci_env {
	fci_seps *seps;           /* separating sets */
	fci_test_fn test;         /* the test (possible-d-sep, discriminating paths) */
	void *ctx;                /* its context */
	const fb_knowledge *bk;   /* background knowledge, or NULL */
	const size_t *rank;       /* the order of the possible-d-sep sets' members (larger
	                             first): causal-learn sorts them by name */
	long pdsep_max;           /* largest possible-d-sep subset tried (-1: every size) */
	bool skip_first;          /* causal-learn's possible-d-sep stage: the first subset of
	                             each size below the set's own is never tried */
	size_t *scratch;          /* 4d scratch */
	size_t removed;           /* edges the possible-d-sep stage removed */
	size_t tests;             /* tests asked by the stages */
	bool *missed;             /* or NULL; set by a test that has no answer yet (a server
	                             that collects the tests to ask): the possible-d-sep stage
	                             then tries no larger subsets for that edge */
} fci_env;

/* The rules' environment over d variables: the sets, the test with its context and the
 * ranks; every possible-d-sep size tried, no knowledge, its 4d scratch allocated (the
 * caller frees env.scratch). */
fci_env fci_env_new(fci_seps *seps, fci_test_fn test, void *ctx, const size_t *rank,
                    size_t d);

/* Ranks of d variables: by index, or by the names X1..Xd as strings (causal-learn's sort);
 * caller frees. */
size_t *fci_name_ranks(size_t d, bool by_name);
/* p's edges: o-o over the skeleton g (p's other edges removed). */
void fci_pag_skeleton(fb_pag *p, const fb_graph *g);
/* Remove from p the pairs the knowledge bk (or NULL) forbids both ways, their separating
 * sets empty. */
void fci_remove_forbidden(fb_pag *p, fci_seps *seps, const fb_knowledge *bk);
/* Test x _||_ y | S through env (S sorted in place first; the pair given in increasing
 * order); counts the test. */
int fci_env_test(fci_env *env, size_t x, size_t y, size_t *S, size_t ns, bool *indep,
                 fb_error *err);
/* fedbn's own mode, before R0 of the orientation: join as o-o every pair the knowledge bk
 * (NULL: none) requires that a test removed, so that R0 makes it the required arc
 * (causal-learn's fci, as compat=causal-learn, leaves it out). */
void fci_join_required(fb_pag *p, const fb_knowledge *bk);
/* Every edge o-o, the knowledge's orientations, then the unshielded colliders (R0). */
void fci_rule0(fb_pag *p, const fci_env *env);
/* The possible-d-sep stage: remove each edge whose ends some subset (2 members or more)
 * of a possible-d-sep set separates. */
int fci_possible_dsep(fb_pag *p, fci_env *env, fb_error *err);
/* R5 to R10 once each, in causal-learn's order (buf: 3d scratch); whether any oriented. */
bool fci_rules5to10(fb_pag *p, size_t *buf);
/* R1-R10 until none applies. */
int fci_orient_rules(fb_pag *p, fci_env *env, fb_error *err);

/* The parameters fci and fedfci share: alpha, test, depth and the discrete tests' settings
 * (pc-params.h's), with fci's defaults. */
#define FCI_PARAMS_TEST \
	{ "alpha", FB_PARAM_DOUBLE, "0.05", 0, 1, NULL, \
	  "significance level: a pair is independent when p > alpha" }, \
	{ "test", FB_PARAM_CHOICE, "auto", 0, 0, fb_pc_tests, \
	  "CI test; auto: fisher-z for continuous data, g2 for discrete data; kci: kernel test " \
	  "for nonlinear data" }, \
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL, \
	  "largest conditioning set of the skeleton and of the possible-d-sep stage (-1: no " \
	  "limit)" }, \
	PC_PARAMS_DISCRETE

struct fb_run;
/* What the result of fci or fedfci is, in words. */
const char *fci_note(const struct fb_run *run);

#endif
