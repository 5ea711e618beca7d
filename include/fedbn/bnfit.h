/* Fitted networks: the parameters of a DAG estimated from data (bnlearn's bn.fit), over a
 * federation that carries only sufficient statistics, and what a fitted network does:
 * sampling, per-row log-likelihood, BIF and XMLBIF files.
 *
 * Discrete data (every variable discrete): one conditional probability table per variable,
 * from the counts n_ijk of variable i in state k under parent configuration j
 * (n_ij = sum_k n_ijk; r_i states, q_i configurations):
 *   mle:    theta_ijk = n_ijk / n_ij; a configuration without a training row (bnlearn leaves
 *           NaN there) gets the uniform row 1/r_i, and the fit counts such rows (unseen);
 *   bayes:  theta_ijk = (n_ijk + iss/(q_i r_i)) / (n_ij + iss/q_i), bnlearn's posterior
 *           mean under a uniform Dirichlet prior of imaginary sample size iss (BDeu-style).
 * Continuous data (every variable continuous): a linear Gaussian regression of each variable
 * on its parents by ordinary least squares: intercept, coefficients and the residual
 * standard deviation sd = sqrt(RSS / (n - p - 1)) with p parents (the unbiased estimate,
 * R's summary(lm)$sigma, which bnlearn's bn.fit reports); a variable needs n > p + 1 rows.
 * Mixed data are refused.
 *
 * Federated: each client sends, per family (a variable and its parents) it holds whole, the
 * family's statistics over its training rows: the counts n_ijk (discrete), or the row count,
 * the sums and the cross-products of the family's columns (continuous).  The federation adds
 * the clients' vectors in client order (fb_fed_sum); the server fits from the sums alone.
 * Counts are whole numbers below 2^53, so their sum is exact and a horizontal split gives
 * the pooled fit (the same computation with one client) bit for bit.  Gaussian sums and
 * cross-products are exact: each is a fixed-point integer of 25 limbs of 30 bits (bits from
 * 2^-450 up; each product enters as its double and that double's rounding error, both cut
 * below 2^-450 towards zero, a row's own cut), sent as 25 whole numbers below 2^30, so that
 * the clients' limbs add exactly and a horizontal split gives the pooled fit bit for bit
 * too; a value of 2^149 or more in magnitude is refused, naming its column.
 * With fo->secure the sum is formed by secure aggregation (fixed point of fo->secure_bits
 * fraction bits): counts and limbs stay whole, so the fit is the same.
 * A vertical split: each family goes to the first client that holds all its columns; a
 * family that no client holds whole is refused, naming it.  A hybrid split (rows held by
 * several clients) is refused. */
#ifndef FEDBN_BNFIT_H
#define FEDBN_BNFIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fedbn/bif.h"
#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/graph.h"
#include "fedbn/partition.h"

/* How discrete tables are estimated. */
enum fb_bnfit_method {
	FB_BNFIT_MLE = 0,   /* maximum likelihood */
	FB_BNFIT_BAYES = 1, /* posterior mean, uniform Dirichlet prior of size iss */
};

/* Options of a fit. */
typedef struct fb_bnfit_options {
	enum fb_bnfit_method method; /* discrete tables (mle) */
	double iss;                  /* bayes: imaginary sample size, > 0 (1) */
} fb_bnfit_options;

/* One variable of a linear Gaussian network: X = intercept + sum_j coef[j] X_parents[j] +
 * N(0, sd^2). */
typedef struct fb_gnode {
	char *name;        /* the variable's name (owned) */
	size_t nparents;   /* number of parents */
	size_t *parents;   /* parent indices, ascending (owned; NULL for a root) */
	double intercept;  /* the regression's intercept */
	double *coef;      /* nparents coefficients, in the parents' order (owned) */
	double sd;         /* residual standard deviation (divisor n - p - 1) */
} fb_gnode;

/* A linear Gaussian network; owns its memory. */
typedef struct fb_gbn {
	size_t d;         /* variables */
	fb_gnode *nodes;  /* d variables, in the data's column order (owned) */
	size_t *order;    /* a topological order (owned) */
} fb_gbn;

/* A fitted network: discrete (bn) or linear Gaussian (gbn), exactly one set. */
typedef struct fb_bnfit {
	fb_bn *bn;       /* discrete tables, or NULL (owned) */
	fb_gbn *gbn;     /* Gaussian regressions, or NULL (owned) */
	size_t n;        /* training rows the statistics came from */
	size_t unseen;   /* mle: parent configurations without a row (given uniform rows) */
	size_t nstats;   /* numbers each client sent */
	size_t bytes[2]; /* bytes down and up the ledger counted */
	size_t clients;  /* clients whose statistics were summed */
	bool secure;     /* the sum was formed by secure aggregation (fixed point: counts and
	                    the moments' limbs stay whole) */
} fb_bnfit;

/* Defaults: mle, iss 1. */
void fb_bnfit_options_init(fb_bnfit_options *o);

/* Fit the DAG dag (over p's variables, by name and order) on the training rows of the
 * partition p through a federation of its clients (fo: its options, NULL for the defaults).
 * Caller frees with fb_bnfit_free; NULL with one sentence (mixed data, a cycle or an
 * undirected edge, a family no client holds whole, a singular regression, too few rows). */
fb_bnfit *fb_bnfit_federated(const fb_partition *p, const fb_graph *dag,
                             const fb_bnfit_options *o, const fb_fed_options *fo,
                             fb_error *err);
/* The pooled fit: the same computation with every training row of ds at one client. */
fb_bnfit *fb_bnfit_pooled(const fb_dataset *ds, const fb_graph *dag,
                          const fb_bnfit_options *o, fb_error *err);
/* Free a fit (NULL is fine). */
void fb_bnfit_free(fb_bnfit *f);

/* Number of variables. */
size_t fb_bnfit_d(const fb_bnfit *f);
/* The fitted DAG (caller frees with fb_graph_free). */
fb_graph *fb_bnfit_graph(const fb_bnfit *f);

/* The fitted network's log-density of row i of ds (whose columns are the network's
 * variables by name, in order; discrete codes as its states): -inf where a table gives
 * probability 0. */
double fb_bnfit_row_loglik(const fb_bnfit *f, const fb_dataset *ds, size_t i);
/* Check that ds has the network's variables (names, order, kinds, levels); FB_ERR names the
 * first difference. */
int fb_bnfit_check_data(const fb_bnfit *f, const fb_dataset *ds, fb_error *err);

/* Draw n rows by forward sampling (caller frees with fb_dataset_free): discrete networks as
 * fb_bn_sample, Gaussian ones variable by variable in topological order with d standard
 * normal draws per row from fb_rng_stream(seed, "sample") in column order.  NULL with err on
 * n = 0. */
fb_dataset *fb_bnfit_sample(const fb_bnfit *f, size_t n, uint64_t seed, fb_error *err);

/* Write a discrete network as BIF (bnlearn's layout: a variable block each, then a
 * probability block each with one row per parent configuration, probabilities with 17
 * significant digits so that they read back as the same doubles). */
void fb_bn_write_bif(FILE *fp, const fb_bn *bn);
/* Write a discrete network as XMLBIF 0.3 (JavaBayes, pgmpy, Weka): VARIABLE and DEFINITION
 * elements, a TABLE with the child's states fastest. */
void fb_bn_write_xmlbif(FILE *fp, const fb_bn *bn);
/* Read back an XMLBIF file fb_bn_write_xmlbif wrote (the subset of XMLBIF 0.3 it writes:
 * NAME, VARIABLE with OUTCOME, DEFINITION with FOR, GIVEN and TABLE); NULL with a sentence
 * naming the file and what is wrong. */
fb_bn *fb_xmlbif_read(const char *path, fb_error *err);

#endif
