/* Fisher's z test (ALGORITHMS.md §6.4): the correlation matrix of a dataset, and the test of
 * x and y given S from their partial correlation (ci-partial.c: the Schur complement of S in
 * the sub-matrix over (S, x, y) through a Cholesky factor of R_SS, the same number as
 * -P_xy / sqrt(P_xx P_yy) with P its inverse), or, when that sub-matrix is not positive
 * definite, from its pseudo-inverse.
 *
 * GSL's error handler reports a failed singular value decomposition; the library expects
 * fb_gsl_install_handler to be in place (it records and returns). */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cblas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>

#include "ci-private.h"

/* What fisher_blocked returns when the single call must build the matrix. */
#define BUILD_NONE 1

/* Largest |r| used, so that z stays finite. */
#define CI_R_MAX (1.0 - 1e-12)

/* The rows a build reads: n x d row-major, variable j in column col[j] (col NULL: column j),
 * less the column means (mean NULL: nothing subtracted). */
typedef struct build_src {
	const double *x;    /* n x d */
	const double *mean; /* d (NULL: nothing subtracted) */
	size_t n, d;
	const size_t *col;  /* d: the column of each variable (NULL: in order) */
} build_src;

/* The column of ds's rows that variable j reads. */
static size_t src_col(const build_src *s, size_t j)
{
	return s->col != NULL ? s->col[j] : j;
}

/* The means of s's variables into mean (d), the rows summed in order, and (constant not
 * NULL) which of them hold one value only: one pass over the rows. */
static void column_scan(const build_src *s, double *mean, bool *constant)
{
	size_t d = s->d;

	for (size_t j = 0; j < d; j++) {
		mean[j] = 0.0;
		if (constant != NULL)
			constant[j] = true;
	}
	for (size_t i = 0; i < s->n; i++) {
		const double *row = s->x + i * d;

		for (size_t j = 0; j < d; j++) {
			double v = row[src_col(s, j)];

			mean[j] += v;
			if (constant != NULL && v != s->x[src_col(s, j)])
				constant[j] = false;
		}
	}
	for (size_t j = 0; j < d; j++)
		mean[j] /= (double)s->n;
}

/* s's variables less their means (s->mean) into the n x d row-major X. */
static void centre_rows(const build_src *s, double *X)
{
	for (size_t i = 0; i < s->n; i++) {
		const double *row = s->x + i * s->d;
		double *to = X + i * s->d;

		for (size_t j = 0; j < s->d; j++)
			to[j] = row[src_col(s, j)] - s->mean[j];
	}
}

/* Centre the columns of ds into a new n x d matrix; NULL when out of memory. */
gsl_matrix *ci_centred_copy(const fb_dataset *ds)
{
	build_src s = { ds->x, NULL, ds->n, ds->d, NULL };
	gsl_matrix *X = gsl_matrix_alloc(ds->n, ds->d);
	double *mean = calloc(ds->d, sizeof *mean);

	if (X == NULL || mean == NULL) {
		if (X != NULL)
			gsl_matrix_free(X);
		free(mean);
		return NULL;
	}
	column_scan(&s, mean, NULL);
	s.mean = mean;
	centre_rows(&s, X->data);
	free(mean);
	return X;
}

/* Scale the cross-product (upper triangle filled, in R itself) into the correlation matrix's
 * upper triangle, in place: the diagonal is set aside first. */
static void corr_from_cross(double *R, const bool *constant, double *diag, size_t d)
{
	for (size_t i = 0; i < d; i++)
		diag[i] = R[i * d + i];
	for (size_t i = 0; i < d; i++) {
		R[i * d + i] = 1.0;
		for (size_t j = i + 1; j < d; j++) {
			double r = 0.0;

			if (!constant[i] && !constant[j])
				r = R[i * d + j] / sqrt(diag[i] * diag[j]);
			R[i * d + j] = r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
		}
	}
}

/* Pack the upper triangle of the d x d row-major R into its first d (d + 1) / 2 entries, row
 * by row: entry (i, j) moves down to ci_packed_at(d, i, j) <= i d + j, and every entry is
 * read before a later write can reach it (the moves go in increasing order of both). */
static void ci_corr_pack(double *R, size_t d)
{
	for (size_t i = 1; i < d; i++)
		memmove(R + ci_packed_at(d, i, i), R + i * d + i, (d - i) * sizeof *R);
}

/* The packed correlation matrix of a d x d row-major one: a new array of d (d + 1) / 2
 * entries (realloc gives the rest back), NULL when out of memory. */
double *ci_corr_packed(double *R, size_t d)
{
	double *p;

	ci_corr_pack(R, d);
	p = realloc(R, (d * (d + 1) / 2 > 0 ? d * (d + 1) / 2 : 1) * sizeof *R);
	return p != NULL ? p : R;
}

/* The threaded build.  A single BLAS call X^T X over the centred copy (n x d) needs that copy
 * beside the data; the build instead takes the upper triangle in blocks of columns, each
 * block's centred columns gathered on its thread, each pair of blocks one unit of work, and
 * gives every entry the bits of the single call: on OpenBLAS an entry's sum depends on how
 * the rows are cut into chunks (GEMM_Q, different per kernel, and dgemm rounds the last two
 * chunks differently from dsyrk) and, for the last few columns, on where tiles end.  So the
 * blocks start at multiples of BUILD_ALIGN (the tiles of every kernel fall where the single
 * call's do), a diagonal block is a dsyrk over the block and the columns past the last
 * multiple of BUILD_ALIGN (the strip, where tiles end as in the single call), and an
 * off-diagonal block is one dgemm per chunk of rows, the chunks cut as dsyrk cuts them.  The
 * cut is found by a probe: a pseudo-random matrix with the same rows and strip is built
 * both ways for each candidate chunk length, and the build runs only when one reproduces
 * the single call bit for bit (else the single call runs, as on a BLAS where no cut does). */

/* Block width of large matrices (d = 10,000: 190 block pairs, units for 16 threads). */
#define BUILD_BLOCK 512
/* Blocks start at multiples of this; the probe's blocks are this wide. */
#define BUILD_ALIGN 64
/* Width of the probe's two blocks (wide enough that no BLAS takes them as small). */
#define BUILD_PROBE 128
/* Least rows and variables of the build (smaller ones: the single call). */
#define BUILD_MIN_ROWS 1024
#define BUILD_MIN_VARS (2 * BUILD_PROBE)
/* Candidate chunk lengths of the probe: multiples of this, up to BUILD_Q_MAX. */
#define BUILD_Q_STEP 16
#define BUILD_Q_MAX 1024

/* A build's plan and its units. */
typedef struct build_plan {
	build_src src;
	size_t b, L, nb;       /* block width; the strip [L, d); blocks over [0, L) */
	const size_t *chunk;   /* nc chunk lengths of the rows */
	size_t nc;
	double *out;           /* d (d + 1) / 2: the cross products, packed upper triangle */
	const bool *constant;  /* scale phase: constant columns */
	double *diag;          /* scale phase: the cross products' diagonal */
	bool scale;            /* the phase: blocks, or scaling rows into correlations */
	size_t nu, next;       /* units, and the next to take (atomic) */
	double *seconds;       /* nu: each unit's processor time */
	size_t *thread;        /* nu: the thread that ran it */
} build_plan;

/* One thread's buffers. */
typedef struct build_thread {
	build_plan *p;
	size_t t;   /* its number */
	double *A;  /* n x (b + strip): a block's centred columns, and the strip's */
	double *B;  /* n x b: the other block's */
	double *T;  /* (b + strip)^2: the BLAS's output */
} build_thread;

/* The lengths of the chunks dsyrk cuts k rows into for chunk length q; their count. */
static size_t build_split(size_t k, size_t q, size_t *chunk)
{
	size_t nc = 0;

	for (size_t at = 0; at < k;) {
		size_t c = k - at;

		if (c >= 2 * q)
			c = q;
		else if (c > q)
			c = (c + 1) / 2;
		chunk[nc++] = c;
		at += c;
	}
	return nc;
}

/* Gather w centred columns from col into buf (row i at buf + i ld + off). */
static void build_gather(const build_src *s, size_t col, size_t w, double *buf, size_t ld,
                         size_t off)
{
	for (size_t i = 0; i < s->n; i++) {
		const double *row = s->x + i * s->d;
		double *to = buf + i * ld + off;

		if (s->col == NULL)
			row += col;
		for (size_t c = 0; c < w; c++) {
			double v = s->col != NULL ? row[s->col[col + c]] : row[c];

			to[c] = s->mean != NULL ? v - s->mean[col + c] : v;
		}
	}
}

/* Width of block p. */
static size_t build_width(const build_plan *p, size_t blk)
{
	return blk * p->b + p->b <= p->L ? p->b : p->L - blk * p->b;
}

/* Diagonal unit of block blk: one dsyrk over the block and the strip; the block's triangle,
 * its rows over the strip, and (last block) the strip's own triangle. */
static void build_diag(build_plan *p, build_thread *w, size_t blk)
{
	size_t d = p->src.d, P = blk * p->b, bi = build_width(p, blk), t = d - p->L, W = bi + t;

	build_gather(&p->src, P, bi, w->A, W, 0);
	build_gather(&p->src, p->L, t, w->A, W, bi);
	cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)W, (int)p->src.n, 1.0, w->A,
	            (int)W, 0.0, w->T, (int)W);
	for (size_t i = 0; i < bi; i++) {
		memcpy(p->out + ci_packed_at(d, P + i, P + i), w->T + i * W + i,
		       (bi - i) * sizeof *w->T);
		memcpy(p->out + ci_packed_at(d, P + i, p->L), w->T + i * W + bi, t * sizeof *w->T);
	}
	for (size_t i = 0; blk + 1 == p->nb && i < t; i++)
		memcpy(p->out + ci_packed_at(d, p->L + i, p->L + i), w->T + (bi + i) * W + bi + i,
		       (t - i) * sizeof *w->T);
}

/* Off-diagonal unit of blocks bp < bq: one dgemm per chunk of rows, summed in order. */
static void build_off(build_plan *p, build_thread *w, size_t bp, size_t bq)
{
	size_t d = p->src.d, P = bp * p->b, Q = bq * p->b;
	size_t bi = build_width(p, bp), bj = build_width(p, bq), at = 0;

	build_gather(&p->src, P, bi, w->A, bi, 0);
	build_gather(&p->src, Q, bj, w->B, bj, 0);
	for (size_t c = 0; c < p->nc; c++) {
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)bi, (int)bj,
		            (int)p->chunk[c], 1.0, w->A + at * bi, (int)bi, w->B + at * bj, (int)bj,
		            c > 0 ? 1.0 : 0.0, w->T, (int)bj);
		at += p->chunk[c];
	}
	for (size_t i = 0; i < bi; i++)
		memcpy(p->out + ci_packed_at(d, P + i, Q), w->T + i * bj, bj * sizeof *w->T);
}

/* Scale unit k: rows [k BUILD_ALIGN, ...) of the cross products into correlations, as
 * corr_from_cross does. */
static void build_scale(build_plan *p, size_t k)
{
	size_t d = p->src.d, end = (k + 1) * BUILD_ALIGN < d ? (k + 1) * BUILD_ALIGN : d;

	for (size_t i = k * BUILD_ALIGN; i < end; i++) {
		double *row = p->out + ci_packed_at(d, i, i);

		row[0] = 1.0;
		for (size_t j = i + 1; j < d; j++) {
			double r = 0.0;

			if (!p->constant[i] && !p->constant[j])
				r = row[j - i] / sqrt(p->diag[i] * p->diag[j]);
			row[j - i] = r > 1.0 ? 1.0 : r < -1.0 ? -1.0 : r;
		}
	}
}

/* Unit k of the plan's phase (the block pairs in row order: (0, 0), (0, 1), ...). */
static void build_unit(build_plan *p, build_thread *w, size_t k)
{
	size_t bp = 0;

	if (p->scale) {
		build_scale(p, k);
		return;
	}
	while (k >= p->nb - bp) {
		k -= p->nb - bp;
		bp++;
	}
	if (k == 0)
		build_diag(p, w, bp);
	else
		build_off(p, w, bp, bp + k);
}

/* A thread: take units until none is left. */
static void *build_thread_run(void *arg)
{
	build_thread *w = arg;
	build_plan *p = w->p;

	for (;;) {
		size_t k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		double t0;

		if (k >= p->nu)
			break;
		t0 = fb_thread_seconds();
		build_unit(p, w, k);
		p->seconds[k] = fb_thread_seconds() - t0;
		p->thread[k] = w->t;
	}
	return NULL;
}

/* Free nt threads' buffers. */
static void build_threads_free(build_thread *w, size_t nt)
{
	for (size_t k = 0; w != NULL && k < nt; k++) {
		free(w[k].A);
		free(w[k].B);
		free(w[k].T);
	}
	free(w);
}

/* Buffers for nt threads of the plan; NULL when out of memory. */
static build_thread *build_threads_alloc(build_plan *p, size_t nt)
{
	size_t n = p->src.n, W = p->b + p->src.d - p->L;
	build_thread *w = calloc(nt, sizeof *w);
	bool ok = w != NULL;

	for (size_t k = 0; ok && k < nt; k++) {
		w[k] = (build_thread){ p, k, malloc(n * W * sizeof(double)),
		                       malloc(n * p->b * sizeof(double)),
		                       malloc(W * W * sizeof(double)) };
		ok = w[k].A != NULL && w[k].B != NULL && w[k].T != NULL;
	}
	if (!ok) {
		build_threads_free(w, nt);
		return NULL;
	}
	return w;
}

/* Add the phase's units to the figures in st (busy: each thread's processor time). */
static void build_figures(const build_plan *p, double *busy, fb_ci_stats *st)
{
	for (size_t k = 0; k < p->nu; k++) {
		st->build_work += p->seconds[k];
		busy[p->thread[k]] += p->seconds[k];
	}
	st->build_units += p->nu;
}

/* Run the plan's two phases on nt threads: the blocks, then the scaling into correlations;
 * the figures into st.  FB_ERR when out of memory. */
static int build_run(build_plan *p, size_t nt, fb_ci_stats *st)
{
	size_t d = p->src.d, scale_units = (d + BUILD_ALIGN - 1) / BUILD_ALIGN;
	size_t most = p->nu > scale_units ? p->nu : scale_units;
	build_thread *w = build_threads_alloc(p, nt);
	double *busy = calloc(nt, sizeof *busy);
	int ret = FB_ERR;

	p->seconds = calloc(most, sizeof *p->seconds);
	p->thread = calloc(most, sizeof *p->thread);
	p->diag = malloc(d * sizeof *p->diag);
	if (w != NULL && busy != NULL && p->seconds != NULL &&
	    p->thread != NULL && p->diag != NULL) {
		p->next = 0;
		fb_threads_run(build_thread_run, w, sizeof *w, nt);
		build_figures(p, busy, st);
		for (size_t i = 0; i < d; i++)
			p->diag[i] = p->out[ci_packed_at(d, i, i)];
		p->scale = true;
		p->nu = scale_units;
		p->next = 0;
		fb_threads_run(build_thread_run, w, sizeof *w, nt);
		build_figures(p, busy, st);
		st->build_threads = nt;
		for (size_t t = 0; t < nt; t++)
			st->build_busiest = busy[t] > st->build_busiest ? busy[t] : st->build_busiest;
		ret = FB_OK;
	}
	build_threads_free(w, nt);
	free(busy);
	free(p->seconds);
	free(p->thread);
	free(p->diag);
	return ret;
}

/* A pseudo-random n x w matrix, values in [-0.5, 0.5); NULL when out of memory. */
static double *build_probe_data(size_t n, size_t w)
{
	double *x = malloc(n * w * sizeof *x);
	uint64_t s = 88172645463325252ull;

	for (size_t k = 0; x != NULL && k < n * w; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
	}
	return x;
}

/* Whether entries (i, j), i0 <= i < i1, max(i, j0) <= j < w, of the packed out equal the
 * single call's ref (w x w, row-major) bit for bit. */
static bool build_same(const double *out, const double *ref, size_t w, size_t i0, size_t i1,
                       size_t j0)
{
	for (size_t i = i0; i < i1; i++) {
		size_t j = i > j0 ? i : j0;

		if (memcmp(out + ci_packed_at(w, i, j), ref + i * w + j, (w - j) * sizeof *ref) != 0)
			return false;
	}
	return true;
}

/* The chunk lengths to try, the common ones first. */
static size_t build_candidate(size_t k)
{
	static const size_t first[] = { 256, 384, 128, 512 };
	size_t nf = sizeof first / sizeof first[0], q = BUILD_Q_STEP;

	if (k < nf)
		return first[k];
	for (k -= nf;; q += BUILD_Q_STEP) {
		bool seen = false;

		for (size_t f = 0; f < nf; f++)
			seen |= first[f] == q;
		if (!seen && k-- == 0)
			return q;
	}
}

/* Whether the probe's off-diagonal block (rows [0, BUILD_PROBE), the next BUILD_PROBE
 * columns) in the packed out equals the single call's ref (w wide). */
static bool build_block_same(const double *out, const double *ref, size_t w)
{
	for (size_t i = 0; i < BUILD_PROBE; i++)
		if (memcmp(out + ci_packed_at(w, i, BUILD_PROBE), ref + i * w + BUILD_PROBE,
		           BUILD_PROBE * sizeof *ref) != 0)
			return false;
	return true;
}

/* Try the candidate cuts on the probe plan p against the single call's ref (w wide): the
 * first whose off-diagonal block matches, kept only if the whole probe then matches. */
static bool build_try_cuts(build_plan *p, build_thread *w, const double *ref, size_t width,
                           size_t *chunk)
{
	size_t tries = BUILD_Q_MAX / BUILD_Q_STEP;

	p->chunk = chunk;
	for (size_t k = 0; k < tries; k++) {
		p->nc = build_split(p->src.n, build_candidate(k), chunk);
		build_off(p, w, 0, 1);
		if (!build_block_same(p->out, ref, width))
			continue;
		build_diag(p, w, 0);
		build_diag(p, w, 1);
		return build_same(p->out, ref, width, 0, width, 0);
	}
	return false;
}

/* Find how the BLAS's dsyrk cuts n rows, for a strip of t columns: the chunk lengths into
 * chunk (room for n / BUILD_Q_STEP + 2) and their count into *nc; false when no candidate
 * reproduces the single call on the probe, or out of memory. */
static bool build_find_cut(size_t n, size_t t, size_t *chunk, size_t *nc)
{
	size_t width = 2 * BUILD_PROBE + t;
	double *x = build_probe_data(n, width), *ref = malloc(width * width * sizeof *ref);
	double *out = malloc(width * (width + 1) / 2 * sizeof *out);
	build_plan p = { .src = { x, NULL, n, width, NULL }, .b = BUILD_PROBE, .L = 2 * BUILD_PROBE,
	                 .nb = 2, .out = out };
	build_thread *w = NULL;
	bool ok = false;

	if (x != NULL && ref != NULL && out != NULL && (w = build_threads_alloc(&p, 1)) != NULL) {
		cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)width, (int)n, 1.0, x,
		            (int)width, 0.0, ref, (int)width);
		ok = build_try_cuts(&p, w, ref, width, chunk);
		*nc = p.nc;
	}
	build_threads_free(w, 1);
	free(x);
	free(ref);
	free(out);
	return ok;
}

/* The blocked build of s's correlation matrix (s->mean: the means) into ci->corr on nt
 * threads: FB_OK, FB_ERR when out of memory, or BUILD_NONE when it cannot give the single
 * call's bits (too small, or no cut of the rows reproduces the BLAS's). */
static int fisher_blocked(fb_ci *ci, const build_src *s, const bool *constant, size_t nt,
                          fb_error *err)
{
	size_t n = s->n, d = s->d, L = d / BUILD_ALIGN * BUILD_ALIGN, nc = 0;
	size_t *chunk;
	build_plan p;
	int ret;

	if (n < BUILD_MIN_ROWS || d < BUILD_MIN_VARS || n > INT_MAX || d > INT_MAX)
		return BUILD_NONE;
	if ((chunk = malloc((n / BUILD_Q_STEP + 2) * sizeof *chunk)) == NULL)
		return fb_fail(err, "out of memory for the correlation matrix of %zu variables", d);
	ret = BUILD_NONE;
	if (build_find_cut(n, d - L, chunk, &nc)) {
		p = (build_plan){ .src = *s, .L = L, .chunk = chunk, .nc = nc,
		                  .constant = constant };
		p.b = L >= 4 * BUILD_BLOCK ? BUILD_BLOCK : 2 * BUILD_ALIGN;
		p.nb = (L + p.b - 1) / p.b;
		p.nu = p.nb * (p.nb + 1) / 2;
		p.out = malloc(d * (d + 1) / 2 * sizeof *p.out);
		ret = p.out != NULL ? build_run(&p, nt, &ci->st) : FB_ERR;
		if (ret == FB_OK)
			ci->corr = p.out;
		else
			free(p.out);
		if (ret != FB_OK)
			ret = fb_fail(err, "out of memory for the correlation matrix of %zu variables",
			              d);
	}
	free(chunk);
	return ret;
}

/* Room for n values in the scratch sc (NULL: none kept; the caller allocates): its values,
 * or NULL when out of memory or without a scratch. */
static double *scratch_room(fb_ci_scratch *sc, size_t n)
{
	if (sc == NULL)
		return NULL;
	if (sc->cap < n) {
		free(sc->v);
		sc->cap = 0;
		if ((sc->v = malloc(n * sizeof *sc->v)) == NULL)
			return NULL;
		sc->cap = n;
	}
	return sc->v;
}

/* Free a scratch's memory (the scratch stays usable). */
void fb_ci_scratch_release(fb_ci_scratch *sc)
{
	free(sc->v);
	sc->v = NULL;
	sc->cap = 0;
}

/* The single call: centre s (s->mean: the means) into sc's memory when given, else a copy
 * of its own, X^T X by dsyrk straight into a d x d matrix (whose lower half, never written,
 * takes no memory until the packing reaches it), scale its upper triangle, pack it. */
static int fisher_single(fb_ci *ci, const build_src *s, const bool *constant,
                         fb_ci_scratch *sc, fb_error *err)
{
	size_t d = s->d;
	bool fits = s->n <= SIZE_MAX / sizeof(double) / d;
	double *X = !fits ? NULL : sc != NULL ? scratch_room(sc, s->n * d)
	                                      : malloc(s->n * d * sizeof *X);
	double *diag = calloc(d, sizeof *diag);
	gsl_matrix_view A;
	gsl_matrix_view C;
	int ret = FB_OK;

	ci->corr = malloc(d * d * sizeof *ci->corr);
	if (X == NULL || diag == NULL || ci->corr == NULL) {
		ret = fb_fail(err, "out of memory for the correlation matrix of %zu variables", d);
		goto out;
	}
	centre_rows(s, X);
	A = gsl_matrix_view_array(X, s->n, d);
	C = gsl_matrix_view_array(ci->corr, d, d);
	gsl_blas_dsyrk(CblasUpper, CblasTrans, 1.0, &A.matrix, 0.0, &C.matrix);
	/* the centred copy goes before the packing touches the matrix's lower half */
	if (sc == NULL)
		free(X);
	X = NULL;
	corr_from_cross(ci->corr, constant, diag, d);
	ci->corr = ci_corr_packed(ci->corr, d);
out:
	if (sc == NULL)
		free(X);
	free(diag);
	return ret;
}

/* Correlation matrix into ci->corr of ds's columns, variable j in column col[j] (col NULL:
 * in order): in column blocks on ci's build threads where that gives the single call's bits
 * (the BLAS on one thread either way), else the single call (its centred copy in sc when not
 * NULL). */
int ci_fisher_init(fb_ci *ci, const fb_dataset *ds, const size_t *col, fb_ci_scratch *sc,
                   fb_error *err)
{
	size_t d = ds->d, nt = ci->opt.threads > 1 ? ci->opt.threads : 1;
	build_src s = { ds->x, NULL, ds->n, d, col };
	bool *constant = calloc(d, sizeof *constant);
	double *mean = malloc(d * sizeof *mean);
	int ret;

	if (constant == NULL || mean == NULL) {
		free(constant);
		free(mean);
		return fb_fail(err, "out of memory for the correlation matrix of %zu variables", d);
	}
	fb_blas_single_thread();
	column_scan(&s, mean, constant);
	s.mean = mean;
	for (size_t j = 0; j < d; j++)
		ci->st.constant_columns += constant[j];
	ret = fisher_blocked(ci, &s, constant, nt, err);
	if (ret == BUILD_NONE)
		ret = fisher_single(ci, &s, constant, sc, err);
	free(constant);
	free(mean);
	return ret;
}

/* The packed correlation matrix of the object. */
ci_corr ci_fisher_corr(const fb_ci *ci)
{
	ci_corr R = { ci->corr, ci->d, true, ci->lazy };

	return R;
}

/* Free the pseudo-inverse's matrices. */
static void pinv_release(ci_fisher_ws *ws)
{
	if (ws->m != NULL)
		gsl_matrix_free(ws->m);
	if (ws->v != NULL)
		gsl_matrix_free(ws->v);
	if (ws->s != NULL)
		gsl_vector_free(ws->s);
	ws->m = ws->v = NULL;
	ws->s = NULL;
	ws->cap = 0;
}

/* Free Fisher-z's work space. */
void ci_fisher_ws_release(ci_fisher_ws *ws)
{
	ci_partial_memo_release(&ws->pm);
	pinv_release(ws);
}

/* Make room for a k x k pseudo-inverse; FB_ERR when out of memory. */
static int ws_reserve(ci_fisher_ws *ws, size_t k)
{
	size_t cap;

	if (k <= ws->cap)
		return FB_OK;
	cap = ci_room_for(ws->cap, k);
	pinv_release(ws);
	ws->m = gsl_matrix_alloc(cap, cap);
	ws->v = gsl_matrix_alloc(cap, cap);
	ws->s = gsl_vector_alloc(cap);
	if (ws->m == NULL || ws->v == NULL || ws->s == NULL) {
		pinv_release(ws);
		return FB_ERR;
	}
	ws->cap = cap;
	return FB_OK;
}

/* Fill the k x k view M with R over the indices (S, x, y). */
static void fill_sub(gsl_matrix *M, const ci_corr *R, size_t x, size_t y, const size_t *S,
                     size_t ns)
{
	size_t k = ns + 2;

	for (size_t a = 0; a < k; a++) {
		size_t ia = a < ns ? S[a] : a == ns ? x : y;
		double *out = M->data + a * M->tda;

		for (size_t b = 0; b < ns; b++)
			out[b] = ci_corr_get(R, ia, S[b]);
		out[ns] = ci_corr_get(R, ia, x);
		out[ns + 1] = ci_corr_get(R, ia, y);
	}
}

/* r from the Moore-Penrose pseudo-inverse of the k x k view M (overwritten); NaN when
 * P_xx or P_yy is not positive. */
static double pinv_partial(gsl_matrix *M, ci_fisher_ws *ws, size_t k)
{
	gsl_matrix_view V = gsl_matrix_submatrix(ws->v, 0, 0, k, k);
	gsl_vector_view s = gsl_vector_subvector(ws->s, 0, k);
	double pxx = 0.0, pyy = 0.0, pxy = 0.0, tol;

	if (gsl_linalg_SV_decomp_jacobi(M, &V.matrix, &s.vector) != GSL_SUCCESS) {
		fb_gsl_last_error();
		return NAN;
	}
	tol = 1e-12 * gsl_vector_get(&s.vector, 0);
	for (size_t l = 0; l < k; l++) {
		double sl = gsl_vector_get(&s.vector, l);

		if (!(sl > tol))
			continue;
		pxx += gsl_matrix_get(&V.matrix, k - 2, l) * gsl_matrix_get(M, k - 2, l) / sl;
		pyy += gsl_matrix_get(&V.matrix, k - 1, l) * gsl_matrix_get(M, k - 1, l) / sl;
		pxy += gsl_matrix_get(&V.matrix, k - 2, l) * gsl_matrix_get(M, k - 1, l) / sl;
	}
	if (!(pxx > 0.0 && pyy > 0.0))
		return NAN;
	return -pxy / sqrt(pxx * pyy);
}

/* Partial correlation of x and y given S; NaN when it cannot be formed (singular and the
 * setting says dependent, or the pseudo-inverse gives none).  FB_ERR when out of memory. */
static int partial_corr(const ci_corr *R, size_t x, size_t y, const size_t *S, size_t ns,
                        const fb_ci_options *opt, ci_fisher_ws *ws, double *r,
                        unsigned *flags)
{
	size_t k = ns + 2;
	gsl_matrix_view M;
	int ret;

	if (ns == 0) {
		*r = ci_corr_get(R, x, y);
		return FB_OK;
	}
	if ((ret = ci_partial_corr(&ws->pm, R, x, y, S, ns, r)) != CI_PARTIAL_SINGULAR)
		return ret;
	*flags |= FB_CI_SINGULAR;
	*r = NAN;
	if (opt->singular == FB_CI_SINGULAR_PINV) {
		if (ws_reserve(ws, k) != FB_OK)
			return FB_ERR;
		M = gsl_matrix_submatrix(ws->m, 0, 0, k, k);
		fill_sub(&M.matrix, R, x, y, S, ns);
		*r = pinv_partial(&M.matrix, ws, k);
	}
	return FB_OK;
}

/* Fisher-z on a correlation matrix. */
void ci_fisher_compute(const ci_corr *R, size_t n, size_t x, size_t y, const size_t *S,
                       size_t ns, const fb_ci_options *opt, ci_fisher_ws *ws,
                       fb_ci_result *res)
{
	double dof = (double)n - (double)ns - 3.0, r, z;

	memset(res, 0, sizeof *res);
	res->r = NAN;
	if (!(dof > 0.0)) {
		res->p = 1.0;
		res->flags = FB_CI_UNDEFINED;
		return;
	}
	if (partial_corr(R, x, y, S, ns, opt, ws, &r, &res->flags) != FB_OK) {
		res->p = res->stat = NAN;
		res->flags = FB_CI_INVALID;
		return;
	}
	if (isnan(r)) { /* singular, and no partial correlation: dependent */
		res->p = 0.0;
		res->stat = INFINITY;
		return;
	}
	r = r > CI_R_MAX ? CI_R_MAX : r < -CI_R_MAX ? -CI_R_MAX : r;
	z = atanh(r);
	res->r = r;
	res->stat = sqrt(dof) * fabs(z);
	if (opt->fisher_p == FB_CI_FISHER_P_COMPLEMENT)
		res->p = 2.0 * (1.0 - gsl_cdf_ugaussian_P(res->stat));
	else
		res->p = 2.0 * gsl_cdf_ugaussian_Q(res->stat);
	if (res->p > 1.0)
		res->p = 1.0;
}

/* The band of |r| around the critical value of level alpha given ns variables, outside
 * which the decision needs no p-value: the critical statistic t solves 2 Q(t) = alpha (the
 * two p-value forms differ by rounding only, far below the band's relative width of 1e-6),
 * and |r| maps to the statistic sqrt(n - ns - 3) atanh|r| monotonically. */
static void band_set(fb_ci *ci, double alpha, size_t ns)
{
	double t = gsl_cdf_ugaussian_Qinv(alpha / 2.0);
	double s = sqrt((double)ci->n - (double)ns - 3.0);

	ci->band_alpha = alpha;
	ci->band_ns = ns;
	ci->band_lo = tanh(t * (1.0 - 1e-6) / s) * (1.0 - 1e-9);
	ci->band_hi = tanh(t * (1.0 + 1e-6) / s) * (1.0 + 1e-9);
}

/* The band of |r| of (alpha, ns) into *lo and *hi; false when the band cannot tell:
 * n - ns - 3 <= 0, or alpha outside [1e-6, 1) (below 1e-6, 2 (1 - Phi(t))
 * (compat=causal-learn's form) rounds too coarsely for the band). */
bool ci_fisher_band(fb_ci *ci, size_t ns, double alpha, double *lo, double *hi)
{
	if (!((double)ci->n - (double)ns - 3.0 > 0.0) || !(alpha >= 1e-6 && alpha < 1.0))
		return false;
	if (ci->band_alpha != alpha || ci->band_ns != ns)
		band_set(ci, alpha, ns);
	*lo = ci->band_lo;
	*hi = ci->band_hi;
	return true;
}

/* 1 when |r| lies below the band of (alpha, ns) (p > alpha for sure), 0 above it, -1 inside
 * it or when the band cannot tell. */
static int band_decide(fb_ci *ci, double r, size_t ns, double alpha)
{
	double lo, hi;

	if (!ci_fisher_band(ci, ns, alpha, &lo, &hi))
		return -1;
	r = fabs(r);
	if (r < lo)
		return 1;
	return r > hi ? 0 : -1;
}

/* Fisher-z given the empty set at level alpha from the correlation alone. */
int ci_fisher_decide0(fb_ci *ci, size_t x, size_t y, double alpha)
{
	ci_corr R = ci_fisher_corr(ci);

	return band_decide(ci, ci_corr_get(&R, x, y), 0, alpha);
}

/* Fisher-z of x < y given sorted S (ns >= 1) at level alpha from the partial correlation
 * alone (a singular sub-matrix is left to the full test): as ci_fisher_decide0. */
int ci_fisher_decide(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double alpha)
{
	ci_corr R = ci_fisher_corr(ci);
	double r;

	if (!((double)ci->n - (double)ns - 3.0 > 0.0) ||
	    ci_partial_corr(&ci->fws.pm, &R, x, y, S, ns, &r) != FB_OK)
		return -1;
	return band_decide(ci, r, ns, alpha);
}

/* Fisher-z for a canonical query on the object. */
void ci_fisher_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res)
{
	ci_corr R = ci_fisher_corr(ci);

	ci_fisher_compute(&R, ci->n, x, y, S, ns, &ci->opt, &ci->fws, res);
}
