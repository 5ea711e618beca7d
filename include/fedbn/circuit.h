/* Probabilistic circuits: sum, product and leaf nodes over the columns of a dataset, the
 * machine each node lives on, validity checks, log-space batched inference (likelihood,
 * marginals, conditionals, MPE completion), forward sampling, and a text format.
 *
 * A circuit is a flat array of nodes in topological order: every child comes before its
 * parent, and the last node is the root.  Node ids are indices into that array.  A node's
 * scope is the sorted list of variables (column indices) it models; a leaf has one variable,
 * an inner node the union of its children's scopes.  A row of data has one value per
 * variable; NAN means "not observed", which marginalises that variable.
 *
 * Leaves (univariate, each a normalised density or mass function):
 *   - Gaussian: mean and population standard deviation, with the variance floored at
 *     FB_LEAF_VAR_FLOOR (1e-3), so a constant column gives sd = sqrt(1e-3), not a spike;
 *   - categorical (Bernoulli when it has two values): values are level codes 0..V-1, fitted
 *     with Laplace smoothing (c_v + 1) / (n + V); any other value has probability 0;
 *   - histogram (as in mixed sum-product networks): bins [b_0, b_1), ..., [b_{B-1}, b_B]
 *     with density (c_b + 1) / ((n + B) (b_{b+1} - b_b)), so it integrates to exactly 1 over
 *     the training domain [min, max].  The last bin is closed, so the training maximum gets
 *     its bin's density.  Discrete variables get one bin [v, v + 1) per integer value v from
 *     the training minimum to the maximum (so the density is the mass of v).  Continuous
 *     ones get equal-width bins, B = max(Sturges, Freedman-Diaconis) = ceil(range / w) with
 *     w the smaller of range / (log2 n + 1) and 2 IQR n^(-1/3) (Sturges alone when IQR is 0),
 *     at most n bins; a constant column gets one bin [v - 1/2, v + 1/2].  Outside the domain
 *     the density is FB_LEAF_HIST_FLOOR rather than zero, so that an unseen value does not
 *     give log 0 (the floor is not part of the normalisation; sampling stays inside).
 *
 * Text format (fb_circuit_write / fb_circuit_read).  One item per line; fields are separated
 * by blanks; blank lines and lines whose first non-blank character is '#' are ignored.
 * Numbers are written with 17 significant digits, so a round trip is exact.
 *
 *   fedbn-circuit 1                             the first line: the format and its version
 *   variables D                                 the number of variables of a row (1..10^6)
 *   ID leaf gaussian MACHINE VAR MEAN SD
 *   ID leaf categorical MACHINE VAR V P_0 .. P_{V-1}
 *   ID leaf histogram MACHINE VAR discrete|continuous B B_0 .. B_B D_0 .. D_{B-1}
 *   ID product MACHINE K CHILD_1 .. CHILD_K
 *   ID sum MACHINE K CHILD_1 WEIGHT_1 .. CHILD_K WEIGHT_K
 *
 * IDs are 0, 1, 2, ... in order; a child must be defined before its parent; the last node is
 * the root.  MACHINE is -1 for the server or k >= 0 for client k.  For a histogram B_i are
 * the B + 1 bin edges and D_i the bin densities.  Scopes are not written: they follow from
 * the leaves.  Reading checks the syntax line by line, then the circuit's validity, and that
 * the root's scope is all D variables (a file cut short leaves some out). */
#ifndef FEDBN_CIRCUIT_H
#define FEDBN_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/param.h"

/* The variance floor of Gaussian leaves (in sd^2 terms). */
#define FB_LEAF_VAR_FLOOR 1e-3
/* The Laplace smoothing of categorical and histogram leaves. */
#define FB_LEAF_ALPHA 1.0
/* A histogram's density outside its training domain. */
#define FB_LEAF_HIST_FLOOR 1e-10
/* How far a sum node's weights (or a leaf's total mass) may be from 1. */
#define FB_CIRCUIT_NORM_TOL 1e-9
/* The machine id of the server. */
#define FB_CIRCUIT_SERVER (-1)
/* "Every machine" where a function counts the nodes of one machine. */
#define FB_CIRCUIT_ANY (-2)

/* The kind of a leaf distribution. */
enum fb_leaf_kind {
	FB_LEAF_GAUSSIAN = 0,    /* normal density */
	FB_LEAF_CATEGORICAL = 1, /* mass over level codes 0..V-1 */
	FB_LEAF_HISTOGRAM = 2,   /* piecewise-constant density over bins */
};

/* A univariate leaf distribution. */
typedef struct fb_leaf {
	enum fb_leaf_kind kind; /* which distribution */
	size_t var;             /* the variable (column) it models */
	int discrete;           /* histogram: 1 when the bins are the integer values */
	double mean;            /* Gaussian: mean */
	double sd;              /* Gaussian: standard deviation (> 0) */
	double log_norm;        /* Gaussian: -log(sd) - log(2 pi) / 2 */
	size_t nvalues;         /* categorical: number of values; histogram: number of bins */
	double *breaks;         /* histogram: nvalues + 1 increasing bin edges (owned) */
	double *p;              /* categorical: probabilities; histogram: densities (owned) */
	double *logp;           /* log of each p (owned) */
} fb_leaf;

/* A column of a dataset restricted to some rows: value i is x[rows[i] * stride], or
 * x[i * stride] when rows is NULL. */
typedef struct fb_column_slice {
	const double *x;     /* the column's value in row 0 */
	size_t stride;       /* distance between two rows' values */
	const size_t *rows;  /* the rows of the slice, or NULL for rows 0..n-1 */
	size_t n;            /* rows in the slice */
} fb_column_slice;

/* A Gaussian leaf over var; FB_ERR unless sd > 0 and both are finite. */
int fb_leaf_gaussian(fb_leaf *leaf, size_t var, double mean, double sd, fb_error *err);
/* A categorical leaf over var with the given V probabilities (copied); FB_ERR on a
 * negative or non-finite one, V = 0, or out of memory.  Their sum is checked by validity. */
int fb_leaf_categorical(fb_leaf *leaf, size_t var, const double *p, size_t nvalues,
                        fb_error *err);
/* A histogram leaf over var with B bins: B + 1 strictly increasing edges and B densities
 * (copied); FB_ERR on bad edges or densities, or out of memory. */
int fb_leaf_histogram(fb_leaf *leaf, size_t var, int discrete, const double *breaks,
                      const double *density, size_t nbins, fb_error *err);
/* Fit a Gaussian leaf (mean, population sd, variance floor) to a slice of column var. */
int fb_leaf_fit_gaussian(fb_leaf *leaf, size_t var, const fb_column_slice *col,
                         fb_error *err);
/* Fit a categorical leaf with nvalues values (Laplace smoothing) to a slice of column var;
 * every value must be a level code below nvalues. */
int fb_leaf_fit_categorical(fb_leaf *leaf, size_t var, size_t nvalues,
                            const fb_column_slice *col, fb_error *err);
/* Fit a histogram leaf (bins as described above, Laplace smoothing) to a slice of column
 * var; discrete values must be integers. */
int fb_leaf_fit_histogram(fb_leaf *leaf, size_t var, int discrete,
                          const fb_column_slice *col, fb_error *err);
/* Deep copy of src into dst; FB_ERR on out of memory. */
int fb_leaf_copy(fb_leaf *dst, const fb_leaf *src, fb_error *err);
/* Free what a leaf owns (a zeroed or released leaf is fine). */
void fb_leaf_release(fb_leaf *leaf);
/* log p(x) of a leaf at one value (x must not be NAN). */
double fb_leaf_logpdf(const fb_leaf *leaf, double x);
/* The leaf's most likely value: the mean, the likeliest code, the densest bin's middle (a
 * discrete histogram: its value); ties go to the smallest. */
double fb_leaf_mode(const fb_leaf *leaf);
/* One value drawn from the leaf (histograms: uniform within the drawn bin; discrete
 * histograms: the bin's value). */
double fb_leaf_sample(const fb_leaf *leaf, gsl_rng *r);

/* The kind of a node. */
enum fb_node_kind {
	FB_NODE_LEAF = 0,    /* a univariate distribution */
	FB_NODE_PRODUCT = 1, /* product of its children */
	FB_NODE_SUM = 2,     /* weighted mixture of its children */
};

/* One node of a circuit. */
typedef struct fb_circuit_node {
	enum fb_node_kind kind; /* leaf, product or sum */
	int machine;            /* FB_CIRCUIT_SERVER (-1) or client k >= 0 */
	size_t nchildren;       /* product and sum: number of children; leaf: 0 */
	size_t *children;       /* child node ids, each smaller than this node's id (owned) */
	double *weights;        /* sum: one weight per child (owned); NULL otherwise */
	double *logw;           /* sum: log of each weight (owned); NULL otherwise */
	size_t nscope;          /* number of variables in the scope */
	size_t *scope;          /* the scope, sorted ascending (owned) */
	fb_leaf leaf;           /* leaf: its distribution */
} fb_circuit_node;

/* A circuit: nodes in topological order, the root last. */
typedef struct fb_circuit {
	size_t nvars;           /* values per row of the data it evaluates */
	size_t nnodes;          /* nodes in use */
	size_t cap;             /* nodes allocated */
	fb_circuit_node *nodes; /* the nodes, children before parents */
} fb_circuit;

/* An empty circuit over rows of nvars values; NULL on out of memory.  Caller frees with
 * fb_circuit_free. */
fb_circuit *fb_circuit_alloc(size_t nvars);
/* Free a circuit and all its nodes (NULL is fine). */
void fb_circuit_free(fb_circuit *c);
/* Append a leaf (the circuit takes over what leaf owns; leaf is zeroed, also on failure,
 * where the circuit frees it); its id goes to *id.  FB_ERR when leaf->var >= nvars. */
int fb_circuit_add_leaf(fb_circuit *c, fb_leaf *leaf, int machine, size_t *id,
                        fb_error *err);
/* Append a product over n existing nodes (ids copied); its id goes to *id.  FB_ERR when a
 * child does not exist yet or n = 0.  Decomposability is left to fb_circuit_check. */
int fb_circuit_add_product(fb_circuit *c, const size_t *children, size_t n, int machine,
                           size_t *id, fb_error *err);
/* Append a sum over n existing nodes with the given weights (copied, logs taken); like
 * fb_circuit_add_product.  Smoothness and normalisation are left to fb_circuit_check. */
int fb_circuit_add_sum(fb_circuit *c, const size_t *children, const double *weights,
                       size_t n, int machine, size_t *id, fb_error *err);
/* FB_OK when the circuit is a valid sum-product network: non-empty; children before
 * parents (hence acyclic); scopes the union of the children's; sums smooth with
 * non-negative weights summing to 1 within FB_CIRCUIT_NORM_TOL; products decomposable;
 * leaves normalised over variables < nvars; machines >= -1.  Otherwise FB_ERR with one
 * sentence naming the first node at fault. */
int fb_circuit_check(const fb_circuit *c, fb_error *err);
/* The root's id (the last node); the circuit must not be empty. */
size_t fb_circuit_root(const fb_circuit *c);

/* log p(x) of n rows (row-major, nvars values each, NAN = marginalised) into out[n]:
 * leaves of unobserved variables give log 1.  Batched and in log space throughout.
 * FB_ERR on out of memory. */
int fb_circuit_logpdf(const fb_circuit *c, const double *x, size_t n, double *out,
                      fb_error *err);
/* log p(x_Q | x_E) of n rows, where query[j] != 0 marks the query variables Q and the
 * other observed values are the evidence E: log p(x_Q, x_E) - log p(x_E). */
int fb_circuit_log_conditional(const fb_circuit *c, const double *x, size_t n,
                               const unsigned char *query, double *out, fb_error *err);
/* MPE completion by max-product: every NAN in the n rows of x (in the root's scope) is
 * replaced by a most probable value.  Upward, sums take the maximum of their weighted
 * children and unobserved leaves their mode's log density; downward, from the root, each
 * sum follows its best child (the first on ties) and each leaf of an unobserved variable
 * writes its mode.  logval (may be NULL) receives each row's max-product log value. */
int fb_circuit_mpe(const fb_circuit *c, double *x, size_t n, double *logval, fb_error *err);
/* Classify n rows (row-major, nvars values; NAN marginalises, the target's own value is
 * ignored): label[i] receives the value y in 0..nlevels-1 of variable target that maximises
 * log p(y, x_E), the conditional's argmax (the first on ties), and logp[i] (may be NULL)
 * that maximum.  FB_ERR on out of memory or a target outside the circuit. */
int fb_circuit_classify(const fb_circuit *c, const double *x, size_t n, size_t target,
                        size_t nlevels, size_t *label, double *logp, fb_error *err);
/* Count into cm (L x L, zeroed here; rows: true, columns: predicted) the n pairs
 * (truth[i], pred[i]), each value below L. */
void fb_confusion_count(const size_t *truth, const size_t *pred, size_t n, size_t L,
                        size_t *cm);
/* F1 of class k from the L x L confusion matrix: 2 tp / (predicted + true), 0 when k is
 * never true nor predicted. */
double fb_confusion_f1(const size_t *cm, size_t L, size_t k);
/* The rows on the diagonal of the L x L confusion matrix: those classified right. */
size_t fb_confusion_right(const size_t *cm, size_t L);
/* Accuracy (NAN when n is 0) and F1 of the L x L confusion matrix cm over n rows: the F1 of
 * class positive when positive < L, else (SIZE_MAX) of the second label for two classes and
 * the mean over the classes for more. */
void fb_confusion_scores(const size_t *cm, size_t L, size_t n, size_t positive, double *acc,
                         double *f1);
/* The default positive class of F1 for the discrete variable j of ds: of two levels the one
 * with fewer training rows (every row when none is held out; the later on a tie), so that
 * for a disease it is the disease; SIZE_MAX (the mean over classes) for more levels. */
size_t fb_class_positive(const fb_dataset *ds, size_t j);
/* The L x L confusion matrix (rows: true, columns: predicted; L the levels of j) of
 * classifying the discrete variable j of ds's test rows (every row when none is held out:
 * *all) with c, over *n rows; NULL with the reason.  The caller frees it. */
size_t *fb_circuit_confusion(const fb_circuit *c, const fb_dataset *ds, size_t j, size_t *n,
                             bool *all, fb_error *err);
/* Draw n rows (row-major, nvars values) into x by forward sampling from r: sums choose a
 * child by weight, products visit all, leaves draw a value; variables outside the root's
 * scope are NAN.  FB_ERR on out of memory. */
int fb_circuit_sample(const fb_circuit *c, size_t n, gsl_rng *r, double *x, fb_error *err);

/* Evaluate on n rows of x (nvars values each, NAN marginalised) only the nodes that live on
 * machine, in topological order, into val (nnodes x n, node-major: node i's value on row r
 * is val[i * n + r]); the values of other machines' nodes are read from val, so a machine
 * evaluating its part after receiving its children's values computes, bit for bit, what
 * fb_circuit_logpdf computes for those nodes.  FB_ERR on out of memory. */
int fb_circuit_eval_machine(const fb_circuit *c, const double *x, size_t n, int machine,
                            double *val, fb_error *err);
/* Append a copy of src to dst: leaf variable v becomes varmap[v] (< dst->nvars) and every
 * node lives on machine; the copy's root id goes to *root.  FB_ERR on out of memory. */
int fb_circuit_graft(fb_circuit *dst, const fb_circuit *src, const size_t *varmap,
                     int machine, size_t *root, fb_error *err);
/* Free parameters of the nodes on machine (FB_CIRCUIT_ANY: all): each sum's weights but
 * one; a Gaussian leaf 2, a categorical one V - 1, a histogram 2B (its B - 1 free
 * densities and B + 1 edges). */
size_t fb_circuit_nparams(const fb_circuit *c, int machine);
/* One expectation-maximisation step on the weights of the sum nodes on machine, given
 * every node's log value on n rows in val (nnodes x n, node-major, as fb_circuit_eval_machine
 * fills it).  A backward pass from the root over machine's nodes gives each node N the log
 * of ds/dN (s the root); the expected count of child c of sum S is
 * sum_r exp(log w_Sc + log c(x_r) + log ds/dS(x_r) - log s(x_r)), and the new weights are
 * the counts normalised (a sum whose counts are all zero keeps its weights).  With the other
 * nodes fixed this never lowers the likelihood of the n rows.  FB_ERR on out of memory. */
int fb_circuit_em_step(fb_circuit *c, const double *val, size_t n, int machine,
                       fb_error *err);

/* The randomized dependence coefficient (Lopez-Paz et al. 2013) as mixed sum-product network
 * learners use it to split columns.  A variable's features: its copula design F, which is
 * [ecdf(x), 1] for a continuous variable or [ecdf(1{x = 0}), .., ecdf(1{x = L-1}), 1] for
 * one with L levels (ecdf: the rank with ties taking the largest rank, over n), projected
 * as sin((s / c) F G) with G a c x k standard normal matrix (c = columns of F).  The RDC of
 * two variables is the largest canonical correlation of their features: both blocks are
 * centred, each Gram matrix gets 1e-8 trace / k on its diagonal and its Cholesky factor L,
 * and the RDC is the largest singular value of Lx^-1 Cxy Ly^-T (0 when a block is
 * constant). */
#define FB_RDC_K 10
#define FB_RDC_S (1.0 / 6.0)

/* The n x k features (row-major, into out) of a column slice with nlevels levels (0 for a
 * continuous variable), for the given c x k projections g (c = 2, or nlevels + 1). */
int fb_rdc_features(const fb_column_slice *col, size_t nlevels, const double *g, size_t k,
                    double s, double *out, fb_error *err);
/* The largest canonical correlation (in [0, 1]) of two n x k feature blocks (row-major). */
int fb_rdc_cancor(const double *fx, const double *fy, size_t n, size_t k, double *out,
                  fb_error *err);
/* The nvars x nvars RDC matrix (row-major, diagonal 1) of column slices of one length, with
 * nlevels[j] levels (0: continuous) each; each variable's projections are drawn in turn
 * from r (row-major, standard normal), so a seeded stream gives the same matrix. */
int fb_rdc_matrix(const fb_column_slice *cols, const size_t *nlevels, size_t nvars, size_t k,
                  double s, gsl_rng *r, double *out, fb_error *err);

/* k-means as sum-product network learners split rows: the best (least inertia, the sum of
 * squared distances to the nearest centre) of n_init runs, each seeded by k-means++ from r
 * and iterated by Lloyd's rule until no row moves or max_iter rounds; an empty cluster
 * takes the row farthest from its centre.  label[n] receives clusters 0..k-1 numbered in
 * the order of their first rows; inertia (may be NULL) the best inertia.  x is n x d,
 * row-major.  FB_ERR unless 1 <= k <= n and d, n_init >= 1. */
#define FB_KMEANS_N_INIT 10
#define FB_KMEANS_MAX_ITER 300
int fb_kmeans(const double *x, size_t n, size_t d, size_t k, size_t n_init, size_t max_iter,
              gsl_rng *r, size_t *label, double *inertia, fb_error *err);

/* The leaves a learner fits. */
enum fb_learn_leaves {
	FB_LEARN_HISTOGRAM = 0,  /* histograms (mixed sum-product networks) */
	FB_LEARN_PARAMETRIC = 1, /* Gaussian for continuous, categorical for discrete */
};

/* How the learner finds independent groups of columns. */
enum fb_learn_split {
	FB_SPLIT_RDC = 0,   /* RDC at or above threshold joins two variables (MSPN) */
	FB_SPLIT_GTEST = 1, /* a G-test p-value below pvalue joins them (LearnSPN; discrete) */
};

/* The G-test of independence of two discrete column slices of one length with la and lb
 * levels: G = 2 sum O log(O / E) over the contingency table of the levels seen in the
 * slice, with (seen a levels - 1)(seen b levels - 1) degrees of freedom (0: a column is
 * constant there, and the p-value is 1).  The p-value goes to *p, G (may be NULL) to *g.
 * FB_ERR when a value is not a level code. */
int fb_gtest(const fb_column_slice *a, size_t la, const fb_column_slice *b, size_t lb,
             double *p, double *g, fb_error *err);

/* Settings of the LearnSPN-style learner (defaults: SPFlow's learn_mspn). */
typedef struct fb_learnspn_options {
	enum fb_learn_split split;  /* the column splitter (RDC) */
	double pvalue;              /* G-test: pairs with a p-value below this are dependent */
	double threshold;           /* RDC at or above which two variables are dependent (0.3) */
	size_t min_instances_slice; /* slices of at most this many rows are factorised (200) */
	size_t rdc_k;               /* RDC features per variable (10) */
	double rdc_s;               /* RDC projection scale (1/6) */
	uint64_t seed;              /* seeds the RDC projections and k-means (17) */
	enum fb_learn_leaves leaves; /* histogram (default) or parametric leaves */
	int cluster_first;          /* 1: split the root slice's rows first (default) */
} fb_learnspn_options;

/* Fill o with the defaults (those of fb_learnspn_params). */
void fb_learnspn_options_init(fb_learnspn_options *o);
/* The learner's parameters (threshold, min_instances_slice, rdc_k, rdc_s, leaves,
 * cluster_first, seed) with their defaults, for every algorithm that learns circuits. */
extern const fb_param_def fb_learnspn_params[];
/* The leaf families of leaves=. */
extern const fb_choice fb_learnspn_leaves[];
/* The column splitters of split=. */
extern const fb_choice fb_learnspn_splits[];
/* Those parameters' entries, the one place their defaults are written: tables of algorithms
 * whose clients run the learner list them (ALGORITHMS.md §8.3: SPFlow's learn_mspn). */
#define FB_LEARNSPN_PARAM_DEFS \
	{ "split", FB_PARAM_CHOICE, "rdc", 0, 0, fb_learnspn_splits, \
	  "column splitter: rdc (MSPN) or gtest (LearnSPN's G-test, discrete columns only)" }, \
	{ "pvalue", FB_PARAM_DOUBLE, "0.001", 0, 1, NULL, \
	  "split=gtest: two variables are dependent when the test's p-value is below this" }, \
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1, NULL, \
	  "variables whose RDC is at least this are dependent (column split)" }, \
	{ "min_instances_slice", FB_PARAM_INT, "200", 1, 1e9, NULL, \
	  "slices of at most this many rows are factorised into leaves" }, \
	{ "rdc_k", FB_PARAM_INT, "10", 1, 1000, NULL, "random features per variable of the RDC" }, \
	{ "rdc_s", FB_PARAM_DOUBLE, "0.16666666666666666", 1e-6, 1e6, NULL, \
	  "scale of the RDC's random projections (1/6)" }, \
	{ "leaves", FB_PARAM_CHOICE, "histogram", 0, 0, fb_learnspn_leaves, \
	  "histogram (MSPN) or parametric (Gaussian / categorical) leaves" }, \
	{ "cluster_first", FB_PARAM_BOOL, "yes", 0, 0, NULL, \
	  "split the first slice's rows before trying its columns" }, \
	{ "seed", FB_PARAM_INT, "17", 0, 9.007199254740992e15, NULL, \
	  "seeds the RDC projections and k-means" }
/* Read those parameters (by name, from any table that has them all) into options. */
void fb_learnspn_options_from_params(const fb_params *p, fb_learnspn_options *o);
/* Learn a circuit from the n x d rows of x (row-major; nlevels[j] levels for a discrete
 * column, 0 for a continuous one), recursively on slices (rows x scope): one variable gives
 * a leaf; constant variables become leaves of a product beside the rest; a slice of at
 * most min_instances_slice rows, or one where both splits failed, is factorised into
 * leaves; otherwise the root slice splits rows first (k-means, 2 clusters: a sum weighted
 * by cluster sizes) and the others columns first (connected components of the RDC graph:
 * a product), the other split being tried when one finds a single part.  Chains of sums or
 * of products are merged.  Every node lives on machine.  *out owns the checked result. */
int fb_learnspn(const double *x, size_t n, size_t d, const size_t *nlevels,
                const fb_learnspn_options *o, int machine, fb_circuit **out, fb_error *err);

/* The size of a circuit. */
typedef struct fb_circuit_stats {
	size_t nodes;    /* all nodes */
	size_t sums;     /* sum nodes */
	size_t products; /* product nodes */
	size_t leaves;   /* leaves */
	size_t depth;    /* edges on the longest path from the root to a leaf */
	size_t params;   /* sum weights plus leaf parameters (Gaussian 2, categorical V,
	                    histogram B densities and B + 1 edges) */
	size_t bytes;    /* bytes of its text format (what fb_circuit_write writes) */
} fb_circuit_stats;

/* Running sums of per-row log-likelihoods of one part of a dataset. */
typedef struct fb_loglik {
	size_t n;     /* rows */
	double sum;   /* sum of log p(x) */
	double sumsq; /* sum of (log p(x))^2 */
} fb_loglik;

/* What a circuit run reports. */
typedef struct fb_circuit_report {
	fb_loglik ll[FB_NPARTS]; /* log-likelihoods per part of the data (n = 0: no rows) */
	fb_circuit_stats stats;  /* the circuit's size (summed over circuits, depth the
	                            largest, when there are several) */
	size_t ncircuits;        /* how many circuits the figures cover */
} fb_circuit_report;

/* The size of c into st; FB_ERR on out of memory. */
int fb_circuit_stats_compute(const fb_circuit *c, fb_circuit_stats *st, fb_error *err);
/* Add st's counts to sum (depth: the larger). */
void fb_circuit_stats_add(fb_circuit_stats *sum, const fb_circuit_stats *st);
/* Evaluate c (over ds's d variables) on every row of ds and add each row's log p(x) to
 * ll[part of the row].  FB_ERR on out of memory or a circuit over other variables. */
int fb_circuit_loglik_add(const fb_circuit *c, const fb_dataset *ds, fb_loglik ll[FB_NPARTS],
                          fb_error *err);
/* The mean of the log-likelihoods (NAN without rows). */
double fb_loglik_mean(const fb_loglik *ll);
/* Their standard error: sample standard deviation / sqrt(n) (NAN below two rows). */
double fb_loglik_se(const fb_loglik *ll);

/* Write the circuit in the text format above.  FB_ERR on a write error. */
int fb_circuit_write(const fb_circuit *c, FILE *fp, fb_error *err);
/* Save the circuit to path atomically.  FB_ERR names the file. */
int fb_circuit_save(const fb_circuit *c, const char *path, fb_error *err);
/* Read a circuit in the text format from fp (name is used in errors) and check it (valid,
 * its root over every variable); on success *out owns a new circuit.  FB_ERR names the line
 * and the fault. */
int fb_circuit_read(FILE *fp, const char *name, fb_circuit **out, fb_error *err);
/* Load a circuit from path (fb_circuit_read on the opened file). */
int fb_circuit_load(const char *path, fb_circuit **out, fb_error *err);

#endif
