/* Discrete Bayesian networks: reading the BIF interchange format (as written by bnlearn,
 * pgmpy and JavaBayes) and forward sampling.
 *
 * What the reader accepts:
 *   network NAME { property ...; }          optional, at most once; properties are ignored
 *   variable X { type discrete [ k ] { s1, s2, ..., sk }; property ...; }
 *   probability ( X | P1, P2 ) { ... }      '|' and the commas are optional separators
 * and, inside a probability block, in any order:
 *   (p1state, p2state) v1, ..., vk;   one row: P(X | P1 = p1state, P2 = p2state)
 *   table v1, ..., vN;                every row at once; for a root N = k, else N = k times
 *                                     the number of parent configurations, child-major: all
 *                                     configurations for X's first state, then for its second,
 *                                     ..., configurations ordered with the first parent
 *                                     slowest (the order of JavaBayes and pgmpy)
 *   default v1, ..., vk;              the row of every configuration not given otherwise
 *   property ...;                     ignored
 * Names and states are runs of characters other than blanks and { } ( ) [ ] ; , | " (so
 * "0", "HIGH" and "a-b.c" are all fine) or "double-quoted" text.  Comments run from // to
 * the end of the line, or are C block comments.  Numbers are decimal
 * ([+-]digits[.digits][e[+-]digits]; ".5" and "1." too).
 * A variable is declared before the probability blocks that name it.
 *
 * What it checks: every variable declared once with distinct states and exactly one
 * probability block; parents declared, distinct and not the child; every parent
 * configuration given exactly once (a table gives all; default fills the rest); each row k
 * probabilities >= 0 summing to 1 within 1e-6 (rows within that tolerance are divided by
 * their sum); no directed cycle.  Every error names the input and its line:
 *   cannot read 'asia.bif': line 12: expected '{' after the variable name, found 'type' */
#ifndef FEDBN_BIF_H
#define FEDBN_BIF_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"

/* Largest table (configurations x states) the reader accepts for one variable. */
#define FB_BIF_MAX_TABLE ((size_t)1 << 24)

/* One variable with its conditional probability table (CPT).
 *
 * A parent configuration is numbered in mixed radix with the first parent most significant:
 * for parents p_1..p_m in states s_1..s_m, c = (..((s_1 * k_2 + s_2) * k_3 + s_3)..) * k_m +
 * s_m, where k_j is the number of states of p_j (fb_bn_config computes it).  The CPT is
 * cpt[c * nstates + s] = P(X = s | configuration c); each row sums to 1. */
typedef struct fb_bn_node {
	char *name;      /* unique, non-empty (owned) */
	size_t nstates;  /* number of states, at least 1 */
	char **states;   /* nstates distinct state names, in declaration order (owned) */
	size_t nparents; /* number of parents */
	size_t *parents; /* parent indices in the order the probability block lists them
	                    (owned; NULL for a root) */
	size_t nconfigs; /* parent configurations: product of the parents' nstates (1 for a root) */
	double *cpt;     /* nconfigs * nstates probabilities, row c = configuration c (owned) */
} fb_bn_node;

/* A discrete Bayesian network; owns all its memory. */
typedef struct fb_bn {
	char *name;         /* the network's name ("" when the file has none) (owned) */
	size_t d;           /* number of variables, at least 1 */
	fb_bn_node *nodes;  /* d variables in declaration order (owned) */
	size_t *order;      /* a topological order: every parent before its children (owned) */
} fb_bn;

/* Read a BIF file (caller frees with fb_bn_free); NULL with err naming the file and line.
 * Messages name the file as path is written. */
fb_bn *fb_bif_read(const char *path, fb_error *err);
/* The same from len bytes at buf (need not be NUL-terminated); name stands for the file in
 * messages. */
fb_bn *fb_bif_read_buffer(const char *buf, size_t len, const char *name, fb_error *err);
/* Free a network (NULL is fine). */
void fb_bn_free(fb_bn *bn);

/* Number of variables. */
size_t fb_bn_d(const fb_bn *bn);
/* Name of variable i (i < d). */
const char *fb_bn_name(const fb_bn *bn, size_t i);
/* Number of states of variable i. */
size_t fb_bn_nstates(const fb_bn *bn, size_t i);
/* Name of state s of variable i (s < nstates). */
const char *fb_bn_state(const fb_bn *bn, size_t i, size_t s);
/* Number of parents of variable i; their indices, in the written order, go to *parents
 * (set to NULL for a root) when parents is not NULL. */
size_t fb_bn_parents(const fb_bn *bn, size_t i, const size_t **parents);
/* Index of the variable called name (exact match), or -1. */
int fb_bn_find(const fb_bn *bn, const char *name);
/* Index of a state of variable i by name, or -1. */
int fb_bn_find_state(const fb_bn *bn, size_t i, const char *state);
/* Configuration number of variable i's parents in the given states (one per parent, in the
 * written order, each below that parent's nstates); see fb_bn_node. */
size_t fb_bn_config(const fb_bn *bn, size_t i, const size_t *parent_states);
/* Row of variable i's CPT for configuration c (c < nconfigs): nstates probabilities. */
const double *fb_bn_cpt_row(const fb_bn *bn, size_t i, size_t c);
/* Number of arcs (the sum of the parent counts). */
size_t fb_bn_n_arcs(const fb_bn *bn);

/* The network's DAG: nodes named as the variables, in declaration order, an unweighted arc
 * parent -> child for every parent (weight 1).  Caller frees with fb_graph_free. */
fb_graph *fb_bn_graph(const fb_bn *bn);

/* Draw n >= 1 rows by forward (ancestral) sampling (caller frees with fb_dataset_free).
 * Columns are the variables in declaration order, discrete, with the state names as level
 * labels and codes 0..k-1.  For each row, d uniforms on [0, 1) are drawn from the stream
 * fb_rng_stream(seed, "sample") in column order, then the variables are set in topological
 * order, variable j taking the first state whose cumulative probability in its CPT row
 * exceeds its uniform (states of probability 0 are never drawn).  So the same seed gives the
 * same rows on every machine.  NULL with err on n = 0 or out of memory. */
fb_dataset *fb_bn_sample(const fb_bn *bn, size_t n, uint64_t seed, fb_error *err);

#endif
