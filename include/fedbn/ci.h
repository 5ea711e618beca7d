/* Conditional-independence tests (ALGORITHMS.md §6.4–§6.6): one object per dataset holds the
 * sufficient statistics of a test and a cache of the p-values it has computed.
 *
 *   fisher-z  the correlation matrix and n (continuous, linear-Gaussian data);
 *   g2, chi2  the level codes and level counts of every column (discrete data);
 *   kci       the standardised columns (continuous data, nonlinear relations).
 *
 * A query is (x, y | S): the order of x and y and the order of S never matter, neither for
 * the value (the computation always uses x < y and S sorted) nor for the cache, whose key is
 * (min, max, sorted S).  Decision rule everywhere: independent iff p > alpha.
 *
 * Fisher-z.  r is the partial correlation of x and y given S, (R_xy - u.v) /
 * sqrt((1 - u.u)(1 - v.v)) with u, v the solves of R_Sx, R_Sy by a Cholesky factor of R_SS
 * (the Schur complement of S; plain C, so the bits do not depend on the BLAS kernel, and
 * for one variable the recursive formula; the matrix is kept as its packed upper triangle);
 * then z = atanh(r) with |r| clipped to 1 - 1e-12, T = sqrt(n - |S| - 3) |z|, p = 2 Q(T) by
 * gsl_cdf_ugaussian_Q, so that small p-values keep their digits.  When n - |S| - 3 <= 0 the
 * test is undefined: p = 1 and FB_CI_UNDEFINED.  When the sub-matrix is not positive definite
 * (a constant combination of columns: duplicated or collinear variables), FB_CI_SINGULAR and,
 * by the singular setting, either r from its Moore-Penrose pseudo-inverse (singular values
 * below 1e-12 times the largest dropped) as r = -P_xy / sqrt(P_xx P_yy), p = 0 when that is
 * not defined, or p = 0 ("dependent") directly.  A constant column has correlation 0 with
 * every other column (counted in constant_columns).
 *
 * G² and χ².  Strata are the configurations of S that occur in the data, found by hashing
 * the rows' S codes (never a table of all prod c_S configurations).  In stratum s with table
 * O_sxy and margins, E = O_sx. O_s.y / O_s..; G² = 2 sum_{O>0} O log(O/E),
 * χ² = sum_{E>0} (O - E)^2 / E, p = gsl_cdf_chisq_Q(stat, df).  The degrees of freedom follow
 * one of three conventions (enum fb_ci_df; c_v is the number of levels the dataset declares
 * for v, occurring or not); df = 0 gives p = 1 or, by the zero_df setting,
 * p = 0 (FB_CI_ZERO_DF either way).
 *
 * KCI.  Every column is standardised (z-score with n - 1); Gaussian kernels with
 * causal-learn's empirical widths by n; unconditional: the HSIC statistic of the centred
 * kernels; conditional: the kernels of [x, S/2] and y regressed on S's kernel with ridge
 * 1e-3; p from the gamma approximation of the null (eigenvalues at or below 1e-5 of the
 * largest dropped).  A constant variable leaves nothing to test: p = 1.  O(n^3) per test.
 *
 * DG (degenerate Gaussian, Andrews, Ramsey and Cooper 2019), for data mixing continuous
 * and discrete columns: a discrete variable becomes indicator columns, one per level that
 * occurs but the first, and a continuous one stays a column; every model is a Gaussian over
 * these columns, read from their covariance (divisor n, formed in plain loops).  The
 * statistic is the likelihood ratio of y's columns given S's and x's against given S's,
 * n (log det C(y | S) - log det C(y | S, x)), by Cholesky factors of the covariance; a
 * column that the columns before it determine (squared pivot <= 1e-10 of its variance) is
 * left out, except a column of y that x (with S) determines, which enters at that pivot, as
 * strong evidence.  p = Q_chi2(stat, df), df = (columns of x kept) (columns of y kept);
 * df = 0 gives p = 1 (FB_CI_ZERO_DF).  The test is symmetric in x and y in exact
 * arithmetic; it is computed with x < y.  Continuous data alone give the Gaussian
 * likelihood-ratio test of partial correlation, n log(1 / (1 - r^2)) on 1 df.
 *
 * Not thread-safe: the cache and the work space change on every query; use one object per
 * thread (per client). */
#ifndef FEDBN_CI_H
#define FEDBN_CI_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"

/* Which test. */
enum fb_ci_test {
	FB_CI_AUTO = 0,  /* by the columns' kind: all continuous fisher-z, all discrete g2,
	                    mixed dg */
	FB_CI_FISHER_Z,  /* Fisher's z on the partial correlation (§6.4) */
	FB_CI_G2,        /* likelihood-ratio G² (§6.5) */
	FB_CI_CHI2,      /* Pearson's χ² (§6.5) */
	FB_CI_KCI,       /* kernel conditional independence, gamma approximation (§6.6) */
	FB_CI_DG,        /* degenerate Gaussian likelihood ratio, for mixed data */
};

/* Degrees of freedom of the discrete tests (§6.5). */
enum fb_ci_df {
	FB_CI_DF_ADJUSTED = 0, /* causal-learn and the FedPC code: the sum over the strata that
	                          occur of (c_x - 1 - zx_s)(c_y - 1 - zy_s), zx_s (zy_s) the levels
	                          of x (y) with no row in stratum s */
	FB_CI_DF_CLASSICAL,    /* pcalg's default and bnlearn: (c_x - 1)(c_y - 1) prod_S c_v */
	FB_CI_DF_ADAPT,        /* pcalg's adaptDF: with S non-empty, the classical df minus the
	                          empty cells among all prod_S c_v strata, at least 1 (pcalg does
	                          this for up to 4 conditioning variables; beyond that it counts a
	                          missing stratum as 4 cells, a binary shortcut not copied here) */
};

/* What a discrete test does when its table is too sparse to trust (§6.5). */
enum fb_ci_small {
	FB_CI_SMALL_NONE = 0, /* always test (causal-learn) */
	FB_CI_SMALL_PCALG,    /* n < 10 df_classical: p = 1, independent (pcalg's gSquareDis) */
	FB_CI_SMALL_FEDPC,    /* n / (c_x c_y prod_S c_v) < 5: p = 0, dependent (the FedPC code,
	                         which also ignores such a test when it looks for separating
	                         sets: callers see FB_CI_SMALL and decide) */
};

/* What a conditional discrete test with 0 degrees of freedom concludes (adjusted df only:
 * the classical df is 0 only for a constant variable). */
enum fb_ci_zero_df {
	FB_CI_ZERO_DF_INDEPENDENT = 0, /* p = 1 (causal-learn, the FedPC code) */
	FB_CI_ZERO_DF_DEPENDENT,       /* p = 0 when S is not empty and x and y both take two or
	                                  more values in the data: then in every stratum x or y
	                                  is constant, a function of S, the table holds no
	                                  evidence either way, and such a test must not remove an
	                                  edge (a deterministic variable such as Asia's 'either'
	                                  = tub or lung is otherwise separated from its children
	                                  by its parents).  A constant x or y still gives p = 1 */
};

/* What Fisher-z does with a correlation sub-matrix that is not positive definite. */
enum fb_ci_singular {
	FB_CI_SINGULAR_PINV = 0, /* r from the pseudo-inverse */
	FB_CI_SINGULAR_DEPENDENT, /* p = 0 */
};

/* How a Fisher-z p-value is formed from T. */
enum fb_ci_fisher_p {
	FB_CI_FISHER_P_UPPER = 0, /* 2 Q(T), accurate in the far tail */
	FB_CI_FISHER_P_COMPLEMENT, /* 2 (1 - Phi(T)) as causal-learn computes it: exactly 0
	                              once T is above about 8.3 (for compat=causal-learn) */
};

/* Settings of a test object. */
typedef struct fb_ci_options {
	enum fb_ci_test test;         /* which test (FB_CI_AUTO) */
	enum fb_ci_df df;             /* discrete degrees of freedom (FB_CI_DF_ADJUSTED) */
	enum fb_ci_small small;       /* discrete small-sample rule (FB_CI_SMALL_NONE) */
	enum fb_ci_zero_df zero_df;   /* discrete df = 0 (FB_CI_ZERO_DF_INDEPENDENT) */
	enum fb_ci_singular singular; /* Fisher-z on a singular matrix (FB_CI_SINGULAR_PINV) */
	enum fb_ci_fisher_p fisher_p; /* Fisher-z p-value form (FB_CI_FISHER_P_UPPER) */
	bool cache;                   /* remember every p-value (true) */
	size_t threads;               /* threads that build Fisher-z's correlation matrix or a
	                                 discrete test's codes (0 or 1: one); the same bits for
	                                 any count */
} fb_ci_options;

/* Flags of one answer. */
enum fb_ci_flag {
	FB_CI_CACHED = 1 << 0,    /* answered from the cache */
	FB_CI_UNDEFINED = 1 << 1, /* Fisher-z with n - |S| - 3 <= 0: p = 1 */
	FB_CI_SINGULAR = 1 << 2,  /* Fisher-z on a sub-matrix that is not positive definite */
	FB_CI_SMALL = 1 << 3,     /* the small-sample rule decided p */
	FB_CI_ZERO_DF = 1 << 4,   /* a discrete test with 0 degrees of freedom: p = 1 or 0 */
	FB_CI_INVALID = 1 << 5,   /* a bad query (index out of range, x = y, x or y in S):
	                             p is NaN */
};

/* One answer in full. */
typedef struct fb_ci_result {
	double p;       /* the p-value, in [0, 1] (NaN only with FB_CI_INVALID) */
	double stat;    /* |T| for Fisher-z, G² or χ² for the discrete tests, the statistic
	                   for KCI */
	double df;      /* degrees of freedom of a discrete test; 0 for Fisher-z */
	double r;       /* Fisher-z: the partial correlation (clipped); NaN for the others */
	unsigned flags; /* enum fb_ci_flag */
} fb_ci_result;

/* Counters since the object was made. */
typedef struct fb_ci_stats {
	size_t queries;  /* p-values asked for */
	size_t computed; /* p-values computed (queries not answered by the cache) */
	size_t hits;     /* queries answered by the cache */
	size_t undefined; /* computed Fisher-z tests with n - |S| - 3 <= 0 */
	size_t singular; /* computed Fisher-z tests on a singular sub-matrix */
	size_t small;    /* computed discrete tests decided by the small-sample rule */
	size_t zero_df;  /* computed discrete tests with 0 degrees of freedom */
	size_t constant_columns; /* Fisher-z: columns without variance (correlation 0) */
	size_t build_threads; /* Fisher-z: threads that built the matrix in column blocks (0: one
	                         call of the BLAS over the whole centred copy) */
	size_t build_units;   /* the blocks' units of work */
	double build_work;    /* their processor time, seconds */
	double build_busiest; /* the busiest thread's processor time, seconds */
} fb_ci_stats;

/* A test object. */
typedef struct fb_ci fb_ci;

/* Defaults: auto, adjusted df, no small-sample rule, df = 0 independent, pseudo-inverse,
 * 2 Q(T), cache on. */
void fb_ci_options_init(fb_ci_options *opt);

/* The test that FB_CI_AUTO means for ds (fisher-z, g2, or dg for mixed columns); FB_ERR
 * when ds has no column. */
int fb_ci_test_for(const fb_dataset *ds, enum fb_ci_test *test, fb_error *err);

/* Build the statistics of ds for opt's test (opt NULL: defaults); caller frees with
 * fb_ci_free.  ds is not kept.  Fisher-z uses the stored values (level codes for discrete
 * columns); g2 and chi2 need every column discrete.  NULL with the reason (no column or
 * row, a continuous column for a discrete test, mixed kinds for auto). */
fb_ci *fb_ci_alloc(const fb_dataset *ds, const fb_ci_options *opt, fb_error *err);

/* Memory a caller keeps across the Fisher-z objects it builds with fb_ci_alloc_cols (the
 * centred copy of their rows), so that a build reuses what an earlier one touched instead of
 * mapping fresh memory; zero it to start, free it with fb_ci_scratch_release.  One build
 * uses it at a time. */
typedef struct fb_ci_scratch {
	double *v;  /* cap values, or NULL */
	size_t cap;
} fb_ci_scratch;

/* fb_ci_alloc's Fisher-z object (opt->test must be FB_CI_FISHER_Z) over ds's columns in
 * another order, variable j reading column col_of[j] (a permutation of ds's d columns),
 * without a copy of ds: the same bits as fb_ci_alloc over the reordered dataset.  The centred
 * copy of the rows it may need goes in scratch (grown as needed; NULL: a copy of its own,
 * freed).  NULL with the reason. */
fb_ci *fb_ci_alloc_cols(const fb_dataset *ds, const size_t *col_of, const fb_ci_options *opt,
                        fb_ci_scratch *scratch, fb_error *err);

/* Free a scratch's memory; it may be used again. */
void fb_ci_scratch_release(fb_ci_scratch *scratch);

/* A Fisher-z object from sufficient statistics alone: the d x d correlation matrix R
 * (row-major, copied; symmetric with a unit diagonal) of n rows.  opt->test must be
 * FB_CI_FISHER_Z or FB_CI_AUTO.  NULL with the reason (d < 1, n < 1, R not symmetric or
 * an entry outside [-1, 1] or a diagonal entry other than 1). */
fb_ci *fb_ci_alloc_corr(const double *R, size_t d, size_t n, const fb_ci_options *opt,
                        fb_error *err);

/* Free a test object (NULL is fine). */
void fb_ci_free(fb_ci *ci);
/* Free what a Fisher-z object's tests read (its correlation matrix or the source of its
 * correlations on demand, its cached answers, its helpers and work spaces), keeping its
 * counters, for a run that will ask nothing more: every test asked afterwards fails,
 * saying so.  Another kind of object is left as it is. */
void fb_ci_release(fb_ci *ci);
/* Whether fb_ci_release has freed ci's tests. */
bool fb_ci_released(const fb_ci *ci);

/* Test x _||_ y | S (S holds ns distinct indices); fills res (flags as in enum fb_ci_flag).
 * FB_ERR with the reason on a bad query (res->p is then NaN). */
int fb_ci_test(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res,
               fb_error *err);

/* Whether x _||_ y | S is accepted at level alpha (p > alpha), answered and counted as
 * fb_ci_test would; Fisher-z given the empty set decides from the correlation alone where
 * that is sure and the answer would not be kept (cache off, or keep <= alpha).  FB_ERR with
 * the reason on a bad query. */
int fb_ci_independent(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double alpha,
                      bool *indep, fb_error *err);

/* Fisher-z's search for sets that separate the vertex x from its neighbours: for each
 * position y with open[y] set, the pair (x, A[y]) tries the l-subsets (l >= 1) of A \ {A[y]}
 * (A: m variables, increasing, without x; m > l) in lexicographic order of their positions,
 * as PC's skeleton tries them, up to the first accepted at level alpha: found[y] is then set
 * and the set goes to sets[y l .. y l + l) (else found[y] is cleared).  Each subset tried is
 * a query answered and counted as fb_ci_independent would, with the same partial-correlation
 * bits, but kept nowhere: on a level's cache owned as fb_pc_skeleton_level_owned owns it,
 * kept (m x m, may be NULL; ignored with the cache off) marks in row y which of A are joined
 * to A[y], and for A[y] < x (the pair's second visit) a subset within them counts as a hit,
 * dependent, untested, as that cache would hold it.  FB_ERR with the reason on a bad query,
 * a test other than fisher-z, or out of memory. */
int fb_ci_fisher_separate(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                          double alpha, const unsigned char *open, const unsigned char *kept,
                          unsigned char *found, size_t *sets, fb_error *err);
/* A range of the subsets a search walks, in their lexicographic order, and where its
 * counters go. */
typedef struct fb_ci_sep_range {
	const size_t *first; /* l positions: the first subset tried (NULL: the first of all) */
	const size_t *stop;  /* l positions: the first subset past the range (NULL: none) */
	fb_ci_stats *pair;   /* m: the counters of the pair at position y go to pair[y] (NULL:
	                        the object's) */
} fb_ci_sep_range;

/* fb_ci_fisher_separate over the subsets from rg->first up to rg->stop alone (rg NULL: all):
 * each pair stops at its first accepted set within the range, so that the ranges of a
 * vertex's subsets, searched apart and taken in order up to each pair's first find, give the
 * whole search's sets and counters.  FB_ERR as fb_ci_fisher_separate, or when a bound is not
 * a subset of increasing positions below m. */
int fb_ci_fisher_separate_range(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                                double alpha, const unsigned char *open,
                                const unsigned char *kept, const fb_ci_sep_range *rg,
                                unsigned char *found, size_t *sets, fb_error *err);
/* Advance comb (l increasing indices below m) to the next subset in lexicographic order:
 * the first index changed, or l after the last subset (comb is then unchanged). */
size_t fb_ci_subset_next(size_t *comb, size_t l, size_t m);

/* Take res, computed by another object over the same data and options (a helper, on another
 * thread), as the answer to x _||_ y | S: the counters and the cache change exactly as
 * fb_ci_test would have changed them.  FB_ERR with the reason on a bad query. */
int fb_ci_record(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                 const fb_ci_result *res, fb_error *err);

/* Give ci n helpers: objects over the same data and options, one for each extra thread that
 * computes tests for it (their answers then go through fb_ci_record, or their counters
 * through fb_ci_take_counts); Fisher-z's read ci's correlation matrix.  FB_ERR with the
 * reason (the helpers made so far are kept). */
int fb_ci_helpers_alloc(fb_ci *ci, const fb_dataset *ds, size_t n, fb_error *err);
/* Add the query counters of from (a helper) to ci's, and zero them in from. */
void fb_ci_take_counts(fb_ci *ci, fb_ci *from);
/* Add the query counters of st (all but constant_columns) to ci's. */
void fb_ci_add_counts(fb_ci *ci, const fb_ci_stats *st);
/* The number of helpers, and helper k (below it). */
size_t fb_ci_n_helpers(const fb_ci *ci);
fb_ci *fb_ci_helper(const fb_ci *ci, size_t k);

/* The p-value of x _||_ y | S; flags (may be NULL) receives the answer's flags.  A bad query
 * returns NaN with FB_CI_INVALID. */
double fb_ci_pvalue(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                    unsigned *flags);

/* Fisher-z straight from a correlation matrix, without an object or cache: R is d x d
 * row-major, n the rows behind it; opt may be NULL (defaults).  For FedPC, where a client's
 * (R, n) is all there is.  FB_ERR with the reason on a bad query. */
int fb_ci_fisher_from_corr(const double *R, size_t d, size_t n, size_t x, size_t y,
                           const size_t *S, size_t ns, const fb_ci_options *opt,
                           fb_ci_result *res, fb_error *err);

/* Discrete tests from contingency tables alone (ci-pooled.c), for a server that holds only
 * tables summed over clients (FedC2SL): an object over d variables of nlev levels each
 * (opt->test g2 or chi2; auto is g2) that computes nothing from rows.  Its answers are
 * given, table by table, with fb_ci_pooled_answer, and kept in its cache; a query asked of
 * it later (fb_ci_test, PC's search) is answered from the cache, and one never given fails
 * with a sentence.  NULL with the reason (another test, a variable of 0 or over 8192
 * levels, d < 2). */
fb_ci *fb_ci_alloc_pooled(size_t d, const size_t *nlev, const fb_ci_options *opt,
                          fb_error *err);
/* The pooled count of each level of each variable (nlev[0] numbers for variable 0, then
 * variable 1's, ...): the rows and the levels that occur, which the df = 0 rule reads.
 * FB_ERR naming a count that is not a whole number, or variables whose rows disagree. */
int fb_ci_pooled_margins(fb_ci *ci, const double *counts, fb_error *err);
/* Cells of the pooled table of x and y given S: c_x c_y prod_S c_v. */
double fb_ci_pooled_cells(const fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns);
/* Answer x _||_ y | S (x < y, S increasing) from its pooled table tab: prod_S c_v strata,
 * the code of S's first variable most significant, each c_x x c_y counts with x's level
 * the row; the answer goes to res and to the cache.  The statistic, degrees of freedom and
 * rules are those of the test on the pooled rows (the small-sample rule over the table's
 * rows), the strata summed in the order of their codes.  FB_ERR with the reason (a query
 * not in that form, a cell that is no whole count). */
int fb_ci_pooled_answer(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                        const double *tab, fb_ci_result *res, fb_error *err);

/* The test the object runs (never FB_CI_AUTO). */
enum fb_ci_test fb_ci_kind(const fb_ci *ci);
/* Number of variables and rows behind the object. */
size_t fb_ci_d(const fb_ci *ci);
size_t fb_ci_n(const fb_ci *ci);
/* The counters. */
void fb_ci_get_stats(const fb_ci *ci, fb_ci_stats *st);
/* Forget every cached p-value (the counters stay). */
void fb_ci_cache_clear(fb_ci *ci);
/* The memory of a test object's cache held apart from any object, for objects used one
 * after another to fill the same pages without touching fresh ones: fb_ci_cache_swap
 * forgets ci's cached p-values (the counters stay), keeping their memory, and exchanges it
 * with the spare's.  fb_ci_spare_alloc: a spare with none yet; NULL when out of memory. */
typedef struct fb_ci_spare fb_ci_spare;
fb_ci_spare *fb_ci_spare_alloc(void);
void fb_ci_cache_swap(fb_ci *ci, fb_ci_spare *spare);
/* Free a spare and its memory (NULL: nothing). */
void fb_ci_spare_free(fb_ci_spare *spare);
/* Use the cache from now on (on), or neither look answers up nor keep them (off); answers
 * already kept stay for when it is on again.  A test that is no dearer than its look-up
 * (Fisher-z given the empty set: one correlation) is better left out of a cache. */
void fb_ci_cache_set(fb_ci *ci, bool on);
/* Whether ci keeps answers (fb_ci_cache_set). */
bool fb_ci_cache_on(const fb_ci *ci);
/* From now on keep only the answers with p <= pmax (INFINITY, the default: every answer);
 * the others are computed anew if asked again (the same bits), and counted as computed. */
void fb_ci_cache_keep(fb_ci *ci, double pmax);
/* Whether the coming queries are known to be absent from the cache (PC's first visit of a
 * pair in a level whose cache starts empty): true skips their look-up, which then counts as
 * a miss; answers are kept as usual.  A query that is in fact kept must not be asked so. */
void fb_ci_cache_fresh(fb_ci *ci, bool fresh);
/* Name of a test: "auto", "fisher-z", "g2", "chi2", "kci", "dg". */
const char *fb_ci_test_name(enum fb_ci_test test);

#endif
