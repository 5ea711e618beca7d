/* Inside the conditional-independence test object: shared by ci*.c only. */
#ifndef FEDBN_CI_PRIVATE_H
#define FEDBN_CI_PRIVATE_H

#include <float.h>
#include <stdint.h>

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "fedbn/ci.h"
#include "dg-private.h"

/* A cache of answers keyed by (min(x, y), max(x, y), sorted S): the answers in the order
 * kept, in blocks, found through an open-addressing table of their numbers. */
typedef struct ci_cache {
	uint64_t *slot;        /* cap slots: 0 when empty, else the key hash's high 32 bits over
	                          1 + the answer's number (NULL until the first insertion) */
	size_t cap;            /* a power of two, or 0 */
	struct ci_entry **blk; /* nblk blocks of answers, in the order kept */
	size_t nblk, used;     /* blocks allocated, answers kept */
	uint32_t *arena;       /* the keys, each as its length then its words */
	size_t alen, acap;     /* words used and allocated in arena */
} ci_cache;

/* The source of an object's correlations on demand (ci-lazy.c). */
typedef struct ci_lazy ci_lazy;

/* A correlation matrix as Fisher-z reads it: d x d row-major, or its upper triangle packed
 * by rows (row i holds (i, i) .. (i, d - 1); half the memory of a test object's matrix). */
typedef struct ci_corr {
	const double *v;  /* the entries */
	size_t d;         /* the order */
	bool packed;      /* v holds the packed upper triangle (else the full matrix) */
	ci_lazy *lazy;    /* or, when not NULL, the entries on demand (ci-lazy.c; v NULL) */
} ci_corr;

/* Entry (i, j) of an object's correlations on demand, computed when not kept (ci-lazy.c). */
double ci_lazy_get(ci_lazy *z, size_t i, size_t j);
/* Free the source of correlations on demand (NULL: nothing). */
void ci_lazy_free(ci_lazy *z);

/* The room to allocate for k items when cap are allocated: cap (at least 8) doubled until it
 * holds k. */
static inline size_t ci_room_for(size_t cap, size_t k)
{
	cap = cap ? cap : 8;
	while (cap < k)
		cap *= 2;
	return cap;
}

/* Where (i, j), i <= j, stands in the packed upper triangle of order d. */
static inline size_t ci_packed_at(size_t d, size_t i, size_t j)
{
	return i * (2 * d - i - 1) / 2 + j;
}

/* Entry (i, j) of R. */
static inline double ci_corr_get(const ci_corr *R, size_t i, size_t j)
{
	if (R->lazy != NULL)
		return ci_lazy_get(R->lazy, i, j);
	if (!R->packed)
		return R->v[i * R->d + j];
	return i <= j ? R->v[ci_packed_at(R->d, i, j)] : R->v[ci_packed_at(R->d, j, i)];
}

/* What the partial correlation of the last Fisher-z query leaves for the next (ci-partial.c). */
typedef struct ci_partial_memo {
	size_t cap;       /* most conditioning variables there is room for (0: none yet) */
	const double *R;  /* the entries of the correlation matrix the rows below are of (NULL:
	                     none) */
	size_t d;         /* its order */
	double *diag;     /* d: R's diagonal (one row each, far apart in R) */
	size_t *S;        /* cap: the conditioning set the rows are of */
	size_t rows;      /* rows of L that hold the factor of R over S[0..rows) */
	double *L;        /* cap x cap, row-major: the Cholesky factor's rows (lower triangle) */
	double *w[2];     /* cap each: L^-1 R_Sz for the variable var[t] */
	size_t var[2];    /* the variable of each w */
	size_t valid[2];  /* leading entries of each w that hold its solve over S */
} ci_partial_memo;

/* Work space of Fisher-z: the partial correlation's memo, and the sub-matrix and the
 * pseudo-inverse's parts for a singular one. */
typedef struct ci_fisher_ws {
	ci_partial_memo pm; /* the factor kept between queries */
	size_t cap;      /* largest order allocated (0: none yet) */
	gsl_matrix *m;   /* cap x cap: the sub-matrix */
	gsl_matrix *v;   /* cap x cap: right singular vectors */
	gsl_vector *s;   /* cap singular values */
} ci_fisher_ws;

/* Work space of Fisher-z's search for separating sets (ci-separate.c): lanes (mcap: a
 * vertex's neighbours, then the vertex, then unused ones) by depth k (lcap): entry k of
 * L^-1 R_Sz of each lane z and its chains, for the current prefix. */
typedef struct ci_sep_ws {
	size_t mcap, lcap;    /* room: lanes and subset size (0: none yet) */
	double *RA;           /* mcap x mcap: R over the lanes */
	double *W;            /* lcap x mcap: the entries */
	double *P;            /* (lcap + 1) x mcap: R_zz minus the squares of the first k */
	double *VV;           /* (lcap + 1) x mcap: the sum of the squares of the first k */
	double *UV;           /* (lcap + 1) x mcap: the sum of the first k times the vertex's */
	double *t;            /* mcap: each lane's last numerator */
	int64_t *code;        /* mcap: each lane's decision by the band (1, 0, or -1: not sure) */
	size_t *open;         /* mcap: the positions of the pairs still open */
	unsigned char *inS;   /* mcap: the positions in the current subset */
	double *piv;          /* lcap: the pivots of the current subset's rows */
	size_t *comb;         /* lcap + 1: the subset's positions among the neighbours */
	size_t *S;            /* lcap + 1: the subset's variables */
} ci_sep_ws;

/* Most conditioning variables of the bit path (depths of its kept strata). */
#define CI_BITS_DEPTH_MAX 16

/* Work space of the discrete tests. */
typedef struct ci_disc_ws {
	uint32_t *ids;    /* n: stratum of each row */
	uint32_t *order;  /* n: rows grouped by stratum */
	uint32_t *start;  /* n + 1: first position of each stratum in order */
	uint64_t *hkey;   /* hcap: key (or hash) of each hash slot */
	uint32_t *hrow;   /* hcap: a row of the slot's stratum */
	uint32_t *hid;    /* hcap: the slot's stratum */
	uint32_t *hstamp; /* hcap: query number that filled the slot */
	size_t hcap;      /* hash slots, a power of two */
	uint32_t stamp;   /* current query number */
	uint32_t *tab;    /* cmax * cmax cells of one stratum's table (kept zero between uses) */
	uint32_t *rowm;   /* cmax: x margins of one stratum */
	uint32_t *colm;   /* cmax: y margins of one stratum */
	double *colmd;    /* cmax: the y margins of the levels present, as numbers */
	uint32_t *nzr;    /* cmax: x levels present in the stratum */
	uint32_t *nzc;    /* cmax: y levels present in the stratum */
	uint32_t *cube;   /* dense path: the strata's c_x x c_y counts, one table after another
	                     (kept zero between uses) */
	uint32_t *scnt;   /* dense path: each key's stratum number plus 1 while the strata are
	                     numbered (kept zero between uses) */
	size_t cube_cap;  /* cells cube and scnt may hold (0 until first needed) */
	uint64_t *bits;   /* bit path: per column and level, the rows holding it, words each
	                     (NULL: no bit path) */
	size_t words;     /* bit path: 64-bit words per row set, ceil(n / 64) */
	uint32_t (*and_count)(const uint64_t *, const uint64_t *, size_t); /* bit path: the
	                     rows two sets of words words share, the widest way the processor
	                     has */
	uint32_t (*and_store)(uint64_t *, const uint64_t *, const uint64_t *, size_t); /* bit
	                     path: write the rows two sets share, and count them */
	size_t *bitoff;   /* bit path: d, where each column's sets start in bits */
	uint64_t *stack;  /* bit path: CI_BITS_DEPTH_MAX depths of budget + 1 row sets, depth k the
	                     non-empty strata of mS[0..k] (NULL until first needed) */
	size_t budget;    /* bit path: most strata kept at one depth */
	size_t bcount[CI_BITS_DEPTH_MAX]; /* bit path: strata at each depth, SIZE_MAX when over the budget */
	size_t bvalid;    /* bit path: depths that hold the strata of mS's prefixes */
	size_t *first;    /* bit path: budget, first row of each stratum (for their order) */
	size_t *rank;     /* bit path: budget, strata in order of first row */
	size_t mns;       /* memo: the size of mS, or SIZE_MAX while nothing is kept */
	size_t *mS;       /* memo: d, the sorted conditioning set whose strata are kept (tests
	                     with one set often follow each other) */
	size_t mbits;     /* memo, bit path: strata of mS in mptr, or CI_MEMO_NONE (not built)
	                     or CI_MEMO_MANY (too many for the path) */
	const uint64_t **mptr; /* memo, bit path: budget, the row sets of mS's strata in order of
	                          first row */
	size_t mu;        /* memo, bit path: the variable whose levels split the kept strata in
	                     musets, or SIZE_MAX */
	uint64_t *musets; /* memo, bit path: stratum r's rows at level a of mu, (r * levels + a)
	                     words from the start */
	uint32_t *mucnt;  /* memo, bit path: the sizes of those sets */
	size_t mlast[2];  /* memo, bit path: the pair of the last test (which variable recurs) */
	uint32_t *kstack; /* memo, dense path: kcap blocks of n, block k each row's mixed-radix
	                     key over mS[0..k], below the product of their levels (consecutive
	                     sets often share all but their last) */
	size_t kcap;      /* memo, dense path: blocks kstack holds */
	size_t kvalid;    /* memo, dense path: blocks that hold the keys of mS's prefixes */
	uint32_t *zeros;  /* memo, dense path: n zero keys */
	uint32_t *mfirst; /* dense path: n, the keys of the strata in order of first row while
	                     they are numbered */
	uint32_t *mord;   /* memo, dense path: n, the keys of mS's strata in order of first row */
	size_t mdense;    /* memo, dense path: how many strata mord lists, or CI_MEMO_NONE */
	uint32_t *jring;  /* dense path: jcap cells, an endless ring of joint tables kept for
	                     later tests over the same variables (NULL until first needed) */
	size_t jcap;      /* cells jring holds */
	uint64_t jnext;   /* cells placed in jring so far, counting the ends skipped at a wrap */
	struct ci_joint *jslot; /* dense path: CI_JOINT_SLOTS, the kept tables by a hash of their
	                           variables */
	uint32_t *jtab;   /* dense path: cmax * cmax cells, one stratum's table gathered */
	size_t msparse;   /* memo, hashed path: the strata of mS grouped in ids, order and start,
	                     or CI_MEMO_NONE */
	double stop_t;    /* χ² asked only whether it is a dependence: log(4 / alpha), the
	                     strata may stop once their sum makes that sure; 0: never stop */
	bool stopped;     /* the last test stopped so (a dependence, its p-value not computed) */
} ci_disc_ws;

/* Most variables of a kept joint table (a test and six conditioning variables). */
#define CI_JOINT_VARS 8
/* Slots of kept joint tables. */
#define CI_JOINT_SLOTS 16384
/* Cells of the ring of kept joint tables (16 MB); a table over a quarter of it is not kept. */
#define CI_JOINT_CELLS ((size_t)1 << 22)

/* A kept joint table: the counts of every configuration of a few variables over all rows,
 * in mixed radix with the last variable fastest. */
typedef struct ci_joint {
	uint64_t at;                 /* where its cells start in the endless ring */
	uint32_t cells;              /* how many: the product of the variables' levels */
	uint32_t nv;                 /* how many variables (0: an empty slot) */
	uint32_t set[CI_JOINT_VARS]; /* the variables, ascending (what a look-up compares) */
	uint32_t var[CI_JOINT_VARS]; /* the variables in the order of the radix */
} ci_joint;

/* A memo not built yet. */
#define CI_MEMO_NONE SIZE_MAX
/* A conditioning set with too many strata for the bit path. */
#define CI_MEMO_MANY (SIZE_MAX - 1)

/* What one stratum (or a sum of strata) adds to a discrete test. */
typedef struct ci_stratum_sum {
	double stat;      /* G² or χ² */
	double df_adj;    /* adjusted degrees of freedom */
	double empty;     /* empty cells of the c_x x c_y tables */
} ci_stratum_sum;

/* The test object. */
struct fb_ci {
	fb_ci_options opt;    /* settings, with the test resolved (never AUTO) */
	size_t d, n;          /* variables and rows */
	double *corr;         /* Fisher-z: the correlation matrix's upper triangle, packed by rows
	                         (d (d + 1) / 2 entries, ci_packed_at) */
	bool corr_shared;     /* corr belongs to the object this one helps (not freed here) */
	gsl_matrix *kdata;    /* KCI: n x d standardised columns */
	struct ci_kci_memo *kmemo; /* KCI: the factors of recent tests' sides (ci-kci-lowrank.c) */
	ci_fisher_ws fws;     /* Fisher-z work space */
	ci_sep_ws sws;        /* Fisher-z's separating-set search's work space */
	ci_lazy *lazy;        /* Fisher-z without corr: correlations on demand (ci-lazy.c) */
	uint16_t *codes;      /* discrete: n x d codes, column-major (codes[j * n + i]) */
	size_t *nlev;         /* discrete: levels of each column */
	size_t *present;      /* discrete: levels of each column that occur in the data */
	size_t cmax;          /* discrete: most levels of any column */
	bool codes_shared;    /* codes, nlev, present and the bit path's row sets belong to the
	                         object this one helps (not freed here) */
	ci_disc_ws dws;       /* discrete work space */
	ci_cache cache;       /* remembered answers */
	size_t *sorted;       /* d: the sorted conditioning set of the current query */
	uint32_t *key;        /* d + 2: the current query's cache key */
	bool key_hashed;      /* the look-up hashed key (else the hash is made when kept) */
	bool fresh;           /* the queries are known to be absent from the cache: not looked
	                         up (fb_ci_cache_fresh) */
	fb_ci_stats st;       /* counters */
	double keep_max;      /* answers with a larger p-value are not kept (fb_ci_cache_keep) */
	double band_alpha;    /* Fisher-z: the level band_lo and band_hi are for (NaN: none yet) */
	size_t band_ns;       /* and the size of the conditioning set */
	double band_lo, band_hi; /* |r| below band_lo: p > band_alpha for sure; above band_hi:
	                            p <= band_alpha for sure */
	dg_embed *dg;         /* the degenerate Gaussian test: the embedded columns' covariance */
	dg_work dgw;          /* its factors' scratch */
	unsigned char *dg_skip; /* its columns left out (2 D) */
	double *dg_lp;        /* its log pivots (2 D) */
	fb_ci **helpers;      /* nhelpers objects over the same data, for other threads */
	size_t nhelpers;      /* how many */
};

/* Look up key (nk words) with hash h; true with the stored answer in out when found. */
bool ci_cache_find(const ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                   fb_ci_result *out);
/* Remember res under key; FB_ERR when out of memory (the answer is then just not kept). */
int ci_cache_put(ci_cache *c, uint64_t h, const uint32_t *key, size_t nk,
                 const fb_ci_result *res);
/* Free the cache's memory and make it empty. */
void ci_cache_release(ci_cache *c);
/* Forget every answer, keeping the memory for the next ones. */
void ci_cache_reset(ci_cache *c);
/* Hash of a key of nk words. */
uint64_t ci_cache_hash(const uint32_t *key, size_t nk);

/* Correlation matrix of ds into ci->corr (constant columns get correlation 0), variable j
 * in column col[j] (col NULL: in order), the centred copy in sc when not NULL;
 * FB_ERR when out of memory. */
int ci_fisher_init(fb_ci *ci, const fb_dataset *ds, const size_t *col, fb_ci_scratch *sc,
                   fb_error *err);
/* The degenerate Gaussian test's embedding of ds (ci-dg.c); FB_ERR when out of memory. */
int ci_dg_init(fb_ci *ci, const fb_dataset *ds, fb_error *err);
/* Free it. */
void ci_dg_release(fb_ci *ci);
/* The degenerate Gaussian test for x < y and sorted S. */
void ci_dg_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res);
/* Count a computed answer's flags (ci.c). */
void ci_count(fb_ci *ci, const fb_ci_result *res);
/* Count a computed answer's flags into st (ci.c). */
void ci_count_into(fb_ci_stats *st, const fb_ci_result *res);
/* Free the separating-set search's work space. */
void ci_sep_ws_release(ci_sep_ws *w);
/* The band of |r| around Fisher-z's critical value of level alpha given ns variables, outside
 * which |r| decides without a p-value: below *lo, p > alpha for sure, above *hi, p <= alpha
 * for sure; false when the band cannot tell. */
bool ci_fisher_band(fb_ci *ci, size_t ns, double alpha, double *lo, double *hi);
/* Fisher-z given the empty set at level alpha from the correlation alone: 1 when p > alpha
 * for sure, 0 when p <= alpha for sure, -1 when |r| lies too near the critical value to
 * tell without the p-value. */
int ci_fisher_decide0(fb_ci *ci, size_t x, size_t y, double alpha);
/* The same for x < y given sorted S (ns >= 1) from the partial correlation (-1 as well when
 * the sub-matrix is singular). */
int ci_fisher_decide(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double alpha);
/* Fisher-z on ci->corr for x < y and sorted S. */
void ci_fisher_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res);
/* Fisher-z on a correlation matrix with a given work space. */
void ci_fisher_compute(const ci_corr *R, size_t n, size_t x, size_t y, const size_t *S,
                       size_t ns, const fb_ci_options *opt, ci_fisher_ws *ws,
                       fb_ci_result *res);
/* The packed correlation matrix of the object. */
ci_corr ci_fisher_corr(const fb_ci *ci);
/* R (d x d, row-major, malloc'ed) packed and shrunk to d (d + 1) / 2 entries: the array to
 * keep (R itself when it could not shrink). */
double *ci_corr_packed(double *R, size_t d);
/* Free Fisher-z's work space. */
void ci_fisher_ws_release(ci_fisher_ws *ws);

/* The constant c of ci_pivot_singular's tolerance c k eps diag. */
#define CI_PIVOT_C 8.0

/* The tolerance of ci_pivot_singular relative to the diagonal at position k: c k eps. */
static inline double ci_pivot_tol(size_t k)
{
	return CI_PIVOT_C * (double)k * DBL_EPSILON;
}

/* Whether a Cholesky pivot squared s = diag - (sum of k squares), computed at position k of
 * a factor (k entries subtracted; the 1 - u.u and 1 - v.v of a set of k variables are the
 * pivots at position k), counts as not positive: s <= 8 k eps diag.  The bound: the k
 * subtractions of terms whose sum is at most diag round by at most k eps diag together
 * (gamma_k = k eps / 2 times the 2 diag the terms and the running value add up to); the row's
 * entries carry about as much again from the rows before; and R's entries come from BLAS
 * (dsyrk), a few ulps apart between kernels, each ulp twice in s (s = diag - l^2 for one
 * duplicated column is 2 ulps under OpenBLAS's Prescott kernel, 0 under Haswell's).  Those
 * add to about (2 k + 4) eps diag <= 6 k eps diag for k >= 1; 8 leaves room.  A matrix with a
 * duplicated column or an exact linear combination so comes out singular under every
 * kernel, while a genuine pivot needs a correlation within about 1e-15 of a combination of
 * the others to be called singular.  Every route that decides singularity (ci-partial.c's
 * rows and last step, ci-separate.c's lanes and last step) asks this, so all decide alike. */
static inline bool ci_pivot_singular(double s, size_t k, double diag)
{
	return !(s > ci_pivot_tol(k) * diag);
}

/* What ci_partial_corr returns for a matrix over (S, x, y) that is not positive definite. */
#define CI_PARTIAL_SINGULAR 1
/* Partial correlation of x and y given S (sorted, ns >= 1) on the correlation matrix R into
 * *r, reusing what m keeps from the last query (bits as computed afresh): FB_OK,
 * CI_PARTIAL_SINGULAR, or FB_ERR when out of memory. */
int ci_partial_corr(ci_partial_memo *m, const ci_corr *R, size_t x, size_t y, const size_t *S,
                    size_t ns, double *r);
/* Free what the memo holds and make it empty. */
void ci_partial_memo_release(ci_partial_memo *m);

/* A new, empty object for d variables and n rows (ci.c); NULL when out of memory. */
fb_ci *ci_new(size_t d, size_t n, const fb_ci_options *opt);
/* The small-sample rule of a discrete test over n rows: true when it decides (p set). */
bool ci_disc_small(const fb_ci *ci, size_t x, size_t y, double prod, double n,
                   fb_ci_result *res);
/* A discrete test's answer from its strata's sums (nstr strata occur, prod_S c_v possible):
 * the degrees of freedom by the object's convention, the p-value or the df = 0 rule. */
void ci_disc_finish(const fb_ci *ci, size_t x, size_t y, size_t ns, double prod, size_t nstr,
                    const ci_stratum_sum *sum, fb_ci_result *res);
/* Copy the codes of ds and allocate the discrete work space; FB_ERR with the reason. */
int ci_disc_init(fb_ci *ci, const fb_dataset *ds, fb_error *err);
/* Read the codes, levels and row sets of from (kept by it, read only, and outliving ci) and
 * allocate ci's own work space; FB_ERR with the reason. */
int ci_disc_share(fb_ci *ci, const fb_ci *from, fb_error *err);
/* G² or χ² for x < y and sorted S. */
void ci_disc_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                 fb_ci_result *res);
/* Free the discrete work space. */
void ci_disc_ws_release(ci_disc_ws *ws);
/* The statistic of one stratum whose lx x ly counts are at tab (kept zero between uses: it
 * is cleared), summed in the one order every path uses. */
ci_stratum_sum ci_disc_table(fb_ci *ci, uint32_t *tab, size_t lx, size_t ly);
/* The same, leaving tab as it is. */
ci_stratum_sum ci_disc_table_keep(fb_ci *ci, const uint32_t *tab, size_t lx, size_t ly);

/* The dense path (ci-discrete-dense.c): when the strata's tables fit its limit, add every
 * stratum (in order of first row) to sum, their number to *nstr, and return true; false
 * (nothing done) otherwise. */
bool ci_disc_dense_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                       ci_stratum_sum *sum, size_t *nstr);
/* Number each row's stratum over S (ns >= 1) in order of first occurrence into ids (n),
 * through the dense path's keys, when prod_S c_v is within its limit; the number of strata,
 * or 0 (nothing done) otherwise. */
size_t ci_disc_dense_strata(fb_ci *ci, const size_t *S, size_t ns, double prod, uint32_t *ids);

/* Build the row sets of the bit path when the machine counts bits in one instruction and
 * they take little memory; without them the bit path is never taken. */
void ci_bits_init(fb_ci *ci);
/* Read the row sets of from's bit path (w's own scratch comes when first needed). */
void ci_bits_share(ci_disc_ws *w, const ci_disc_ws *from);
/* The bit path: when cheaper than counting row by row, add every stratum (in order of first
 * row) to sum, their number to *nstr, and return true; false (nothing done) otherwise. */
bool ci_bits_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                 ci_stratum_sum *sum, size_t *nstr);
/* Free the bit path's memory. */
void ci_bits_release(ci_disc_ws *w);
/* True when the χ² strata summed so far (sum, nrem strata left, each adding at most dmax
 * degrees of freedom) make the test a dependence at the level of w->stop_t; sets
 * w->stopped. */
bool ci_disc_stop(ci_disc_ws *w, const ci_stratum_sum *sum, size_t nrem, double dmax);

/* Let the coming χ² test stop early at level alpha (0: not) when it is asked only whether
 * it is a dependence and the answer would not be kept. */
void ci_disc_decide(fb_ci *ci, double alpha);

/* Forget the kept strata unless they are those of S (sorted, ns variables). */
void ci_memo_begin(ci_disc_ws *w, const size_t *S, size_t ns);

/* Standardise the columns of ds into ci->kdata for KCI; FB_ERR when out of memory. */
int ci_kci_init(fb_ci *ci, const fb_dataset *ds, fb_error *err);
/* KCI for x < y and sorted S. */
void ci_kci_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res);

/* The three kernels of a KCI test: over x with half of S (or x alone), y, and S. */
enum ci_kci_part { CI_KCI_X, CI_KCI_Y, CI_KCI_Z };
/* The ridge of KCI's regression on Z. */
#define CI_KCI_EPSILON 1e-3
/* Eigenvalues at or below this fraction of the largest are dropped from KCI's null. */
#define CI_KCI_EIG_CUT 1e-5
/* What ci_kci_lowrank returns when some kernel's rank is not small: use the dense route. */
#define CI_KCI_DENSE 1
/* KCI's kernel width theta for n rows given ns variables (causal-learn's defaults). */
double ci_kci_theta(size_t n, size_t ns);
/* The rows one kernel of the test is over: a new n x *p row-major array, NULL when out of
 * memory. */
double *ci_kci_points(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                      const size_t *S, size_t ns, size_t *p);
/* The factors of recent KCI tests' sides a test object remembers. */
typedef struct ci_kci_memo ci_kci_memo;
/* Free them (NULL: nothing); n the object's rows. */
void ci_kci_memo_free(ci_kci_memo *memo, size_t n);
/* The centred Gaussian kernel exp(-theta |a - b|^2 / 2) over the rows of one part of the
 * test (ci_kci_points) into K (n x n, full); FB_ERR when out of memory. */
int ci_kci_kernel(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                  const size_t *S, size_t ns, double theta, gsl_matrix *K);
/* The gamma approximation's p-value of stat given the null's mean and variance (1 when the
 * null is degenerate). */
double ci_kci_gamma_p(double stat, double mean, double var);
/* KCI's statistic and p-value into res on n x n matrices; FB_ERR when out of memory. */
int ci_kci_dense(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, fb_ci_result *res);
/* The same from low-rank factors of the kernels; CI_KCI_DENSE (nothing done) when a kernel
 * needs more than n / 3 rows, FB_ERR when out of memory. */
int ci_kci_lowrank(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res);

/* Centre the columns of ds into a new n x d matrix (caller frees); NULL when out of memory. */
gsl_matrix *ci_centred_copy(const fb_dataset *ds);

#endif
