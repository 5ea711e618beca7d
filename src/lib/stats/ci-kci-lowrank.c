/* KCI's low-rank route (ALGORITHMS.md §6.6): every kernel as a centred factor C (r x n,
 * K ~ C'C) from pivoted incomplete Cholesky, so no n x n kernel is ever formed.  The
 * regression on Z goes through the Woodbury identity, R = eps (C_z'C_z + eps I)^-1 =
 * I - C_z'(eps I + C_z C_z')^-1 C_z, the residual kernels are F'F with F = C R, and their
 * eigenpairs come from the r x r matrices F F' (LAPACK's dsyevd).  When the kernel of x or
 * y needs more than 2n / 3 rows the caller takes the dense route instead: up to that rank
 * the low-rank route is still several times faster (its costs are n r^2 and n^2 r where the
 * dense route's is about 12 n^3), and finding out costs a few percent of the dense route.
 * z's kernel is factored up to rank n / 3; above that its regression is exact, through the
 * Cholesky factor of the n x n kernel (n^3 / 3, the dense route's cheapest step). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <lapacke.h>

#include "ci-private.h"

/* The mean variance the factors of the kernels of x and y may leave out (the kernels'
 * diagonal is 1), and that of z, whose errors the regression magnifies by 1 / eps: with
 * these the p-values agree with the dense route's to a few 1e-7. */
#define KCI_FACTOR_TOL 1e-7
#define KCI_FACTOR_TOL_Z 1e-11
/* Rows of the n x n products the null's variance is summed over at a time: each block is
 * computed out to its diagonal, past the lower triangle the sums need, by half a block's
 * width; 48 rows waste little and keep the products large enough for the BLAS. */
#define KCI_BLOCK 48

/* A factor: r rows of n values. */
typedef struct kci_factor {
	double *c; /* r x n, row-major */
	size_t r;  /* rank */
} kci_factor;

/* The most conditioning variables of a remembered factor. */
#define KCI_MEMO_SET 8
/* Factors remembered at most, and their bytes at most. */
#define KCI_MEMO_SLOTS 64
#define KCI_MEMO_BYTES ((size_t)64 << 20)

/* The memo's part for y's centred factor before the regression on S: its kernel depends on
 * the size of S alone (through the width), not on S. */
#define KCI_MEMO_Y_RAW 3

/* One remembered side of a test: the kernel of v (as x, with half of S beside it, or as y)
 * given S: its residual factor F and its eigenrows Psi' (given nothing: the centred factor
 * alone, the same for either side); or, as KCI_MEMO_Y_RAW, y's centred factor given any S
 * of size ns (no eigenrows). */
typedef struct kci_memo_entry {
	int part;                /* CI_KCI_X, CI_KCI_Y or KCI_MEMO_Y_RAW; -1: empty */
	size_t v, ns;            /* the variable and the size of S */
	size_t S[KCI_MEMO_SET];  /* S, sorted */
	kci_factor f;            /* F (or the centred factor given nothing) */
	kci_factor psi;          /* Psi' (none given nothing) */
	double top;              /* the largest eigenvalue of F'F */
} kci_memo_entry;

/* Regressions on S remembered (PC's level 1 over ten variables meets ten sets in turn),
 * the bytes of the one matrix each holds at most, and of all of them. */
#define KCI_ZMEMO_SLOTS 16
#define KCI_ZMEMO_BYTES ((size_t)16 << 20)
#define KCI_ZMEMO_TOTAL ((size_t)64 << 20)

/* The regression on S: the centred low-rank factor of z's kernel and the Cholesky factor of
 * its middle matrix eps I + Cz Cz', or, when z's kernel has high rank, the Cholesky factor
 * of the n x n Kz + eps I. */
typedef struct kci_regressor {
	size_t ns;              /* the size of S; SIZE_MAX: an empty slot */
	size_t S[KCI_MEMO_SET]; /* S, sorted */
	bool exact;             /* the n x n route */
	kci_factor fz;          /* low-rank: z's factor */
	gsl_matrix *L;          /* the Cholesky factor (NULL: low-rank of rank 0) */
} kci_regressor;

/* The factors a test object remembers, replaced oldest first. */
struct ci_kci_memo {
	kci_memo_entry e[KCI_MEMO_SLOTS];
	size_t next;  /* the slot replaced next */
	size_t bytes; /* held by all entries */
	kci_regressor z[KCI_ZMEMO_SLOTS];
	size_t znext; /* the regression replaced next */
	size_t zbytes; /* held by the regressions */
};

/* Bytes held by an entry's factors for n rows. */
static size_t kci_memo_size(const kci_memo_entry *m, size_t n)
{
	return (m->f.r + m->psi.r) * n * sizeof(double);
}

/* Empty slot k of memo. */
static void kci_memo_clear(ci_kci_memo *memo, size_t k, size_t n)
{
	kci_memo_entry *m = &memo->e[k];

	if (m->part >= 0)
		memo->bytes -= kci_memo_size(m, n);
	free(m->f.c);
	free(m->psi.c);
	*m = (kci_memo_entry){ .part = -1 };
}

/* Bytes a regression holds for n rows. */
static size_t kci_regressor_size(const kci_regressor *g, size_t n)
{
	if (g->ns == SIZE_MAX)
		return 0;
	return ((g->fz.c != NULL ? g->fz.r * n : 0) +
	        (g->L != NULL ? g->L->size1 * g->L->size2 : 0)) * sizeof(double);
}

/* Free what a regression holds and make it an empty slot. */
static void kci_regressor_free(kci_regressor *g)
{
	free(g->fz.c);
	if (g->L != NULL)
		gsl_matrix_free(g->L);
	*g = (kci_regressor){ .ns = SIZE_MAX };
}

/* Free a test object's remembered factors (ci-private.h). */
void ci_kci_memo_free(ci_kci_memo *memo, size_t n)
{
	if (memo == NULL)
		return;
	for (size_t k = 0; k < KCI_MEMO_SLOTS; k++)
		kci_memo_clear(memo, k, n);
	for (size_t k = 0; k < KCI_ZMEMO_SLOTS; k++)
		kci_regressor_free(&memo->z[k]);
	free(memo);
}

/* The object's memo, made empty on first use; NULL when out of memory. */
static ci_kci_memo *kci_memo_of(fb_ci *ci)
{
	if (ci->kmemo == NULL && (ci->kmemo = malloc(sizeof *ci->kmemo)) != NULL) {
		*ci->kmemo = (ci_kci_memo){ .next = 0 };
		for (size_t k = 0; k < KCI_MEMO_SLOTS; k++)
			ci->kmemo->e[k].part = -1;
		for (size_t k = 0; k < KCI_ZMEMO_SLOTS; k++)
			ci->kmemo->z[k].ns = SIZE_MAX;
	}
	return ci->kmemo;
}

/* The remembered side (part, v, S), or NULL. */
static const kci_memo_entry *kci_memo_find(const fb_ci *ci, int part, size_t v,
                                           const size_t *S, size_t ns)
{
	const ci_kci_memo *memo = ci->kmemo;

	if (memo == NULL || ns > KCI_MEMO_SET)
		return NULL;
	for (size_t k = 0; k < KCI_MEMO_SLOTS; k++) {
		const kci_memo_entry *m = &memo->e[k];

		if (m->part == part && m->v == v && m->ns == ns &&
		    (ns == 0 || part == KCI_MEMO_Y_RAW || memcmp(m->S, S, ns * sizeof *S) == 0))
			return m;
	}
	return NULL;
}

/* Remember copies of f and psi as the side (part, v, S); nothing when they do not fit or
 * memory runs out (the memo only saves time). */
static void kci_memo_put(fb_ci *ci, int part, size_t v, const size_t *S, size_t ns,
                         const kci_factor *f, const kci_factor *psi, double top)
{
	size_t n = ci->n, bytes = (f->r + (psi != NULL ? psi->r : 0)) * n * sizeof(double);
	kci_memo_entry m = { .part = part, .v = v, .ns = ns, .top = top };
	ci_kci_memo *memo;

	if (ns > KCI_MEMO_SET || bytes > KCI_MEMO_BYTES || (memo = kci_memo_of(ci)) == NULL)
		return;
	memcpy(m.S, S, ns * sizeof *S);
	m.f = (kci_factor){ malloc((f->r > 0 ? f->r : 1) * n * sizeof(double)), f->r };
	m.psi = (kci_factor){ malloc((psi != NULL && psi->r > 0 ? psi->r : 1) * n *
	                             sizeof(double)), psi != NULL ? psi->r : 0 };
	if (m.f.c == NULL || m.psi.c == NULL) {
		free(m.f.c);
		free(m.psi.c);
		return;
	}
	memcpy(m.f.c, f->c, f->r * n * sizeof(double));
	if (m.psi.r > 0)
		memcpy(m.psi.c, psi->c, m.psi.r * n * sizeof(double));
	do {
		kci_memo_clear(memo, memo->next, n);
		memo->next = (memo->next + 1) % KCI_MEMO_SLOTS;
	} while (memo->bytes + bytes > KCI_MEMO_BYTES);
	memo->e[(memo->next + KCI_MEMO_SLOTS - 1) % KCI_MEMO_SLOTS] = m;
	memo->bytes += bytes;
}

/* The centred factor of one kernel of the test into f: false when its rank is above 2n / 3
 * (n / 3 for z's kernel, whose regression then goes exact) or when out of memory. */
static bool kci_factor_of(const fb_ci *ci, enum ci_kci_part part, size_t x, size_t y,
                          const size_t *S, size_t ns, kci_factor *f)
{
	size_t n = ci->n, p, rmax = part == CI_KCI_Z ? n / 3 : 2 * n / 3;
	double tol = part == CI_KCI_Z ? KCI_FACTOR_TOL_Z : KCI_FACTOR_TOL;
	double *pts = ci_kci_points(ci, part, x, y, S, ns, &p);
	bool ok = false;

	f->c = pts == NULL || rmax == 0 ? NULL : malloc(rmax * n * sizeof *f->c);
	if (f->c != NULL)
		ok = fb_kernel_factor_rbf_fast(pts, n, p, ci_kci_theta(n, ns), tol, rmax,
		                               f->c, &f->r);
	free(pts);
	if (!ok) {
		free(f->c);
		f->c = NULL;
		return false;
	}
	for (size_t k = 0; k < f->r; k++) {
		double *row = f->c + k * n, mean = 0.0;

		for (size_t i = 0; i < n; i++)
			mean += row[i];
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			row[i] -= mean;
	}
	return true;
}

/* The GSL view of a factor. */
static gsl_matrix_view kci_view(const kci_factor *f, size_t n)
{
	return gsl_matrix_view_array(f->c, f->r, n);
}

/* Sum of squares of the entries of A. */
static double kci_sumsq(const gsl_matrix *A)
{
	double s = 0.0;

	for (size_t i = 0; i < A->size1; i++) {
		const double *row = A->data + i * A->tda;

		for (size_t j = 0; j < A->size2; j++)
			s += row[j] * row[j];
	}
	return s;
}

/* |F G'|_F^2 = sum over all entries of (F'F) o (G'G); FB_ERR when out of memory. */
static int kci_cross(const kci_factor *f, const kci_factor *g, size_t n, double *out)
{
	gsl_matrix *P;
	gsl_matrix_view F, G;

	*out = 0.0;
	if (f->r == 0 || g->r == 0)
		return FB_OK;
	P = gsl_matrix_alloc(f->r, g->r);
	if (P == NULL)
		return FB_ERR;
	F = kci_view(f, n);
	G = kci_view(g, n);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &F.matrix, &G.matrix, 0.0, P);
	*out = kci_sumsq(P);
	gsl_matrix_free(P);
	return FB_OK;
}

/* tr(F'F), the sum of squares of F's entries. */
static double kci_trace(const kci_factor *f, size_t n)
{
	double s = 0.0;

	for (size_t k = 0; k < f->r; k++)
		s += cblas_ddot((int)n, f->c + k * n, 1, f->c + k * n, 1);
	return s;
}

/* Unconditional test from the centred factors of x and y. */
static int kci_lr_uncond(const kci_factor *fx, const kci_factor *fy, size_t n,
                         fb_ci_result *res)
{
	double nn = (double)n, trx = kci_trace(fx, n), try = kci_trace(fy, n), ssx, ssy;

	if (kci_cross(fx, fx, n, &ssx) != FB_OK || kci_cross(fy, fy, n, &ssy) != FB_OK ||
	    kci_cross(fx, fy, n, &res->stat) != FB_OK)
		return FB_ERR;
	res->p = ci_kci_gamma_p(res->stat, trx * try / nn, 2.0 * ssx * ssy / (nn * nn));
	return FB_OK;
}

/* F := F R with R = I - Cz'(eps I + Cz Cz')^-1 Cz, given L (lower Cholesky factor of the
 * middle matrix, rz x rz); FB_ERR when out of memory. */
static int kci_regress(const gsl_matrix *L, const kci_factor *fz, kci_factor *f, size_t n)
{
	gsl_matrix_view F, Z;
	gsl_matrix *P;

	if (f->r == 0 || fz->r == 0)
		return FB_OK;
	P = gsl_matrix_alloc(f->r, fz->r);
	if (P == NULL)
		return FB_ERR;
	F = kci_view(f, n);
	Z = kci_view(fz, n);
	gsl_blas_dgemm(CblasNoTrans, CblasTrans, 1.0, &F.matrix, &Z.matrix, 0.0, P);
	/* P := P (L L')^-1 */
	gsl_blas_dtrsm(CblasRight, CblasLower, CblasTrans, CblasNonUnit, 1.0, L, P);
	gsl_blas_dtrsm(CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, L, P);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, -1.0, P, &Z.matrix, 1.0, &F.matrix);
	gsl_matrix_free(P);
	return FB_OK;
}

/* The lower Cholesky factor of eps I + Cz Cz' (rz x rz, rz >= 1); NULL when out of memory
 * or when LAPACK fails. */
static gsl_matrix *kci_middle(const kci_factor *fz, size_t n)
{
	gsl_matrix_view Z = kci_view(fz, n);
	gsl_matrix *M = gsl_matrix_alloc(fz->r, fz->r);

	if (M == NULL)
		return NULL;
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, &Z.matrix, 0.0, M);
	for (size_t i = 0; i < fz->r; i++)
		gsl_matrix_set(M, i, i, gsl_matrix_get(M, i, i) + CI_KCI_EPSILON);
	/* the row-major lower triangle is LAPACK's column-major upper one */
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', (lapack_int)fz->r, M->data,
	                   (lapack_int)M->tda) != 0) {
		gsl_matrix_free(M);
		return NULL;
	}
	return M;
}

/* psi := Psi' (p x n), the rows sqrt(lambda_a) u_a over the eigenpairs of F'F (F the
 * factor f) whose value is above CI_KCI_EIG_CUT times the largest (the largest into *top);
 * FB_ERR when out of memory or when LAPACK fails.  The eigenpairs of the r x r F F' come
 * from LAPACK's divide and conquer (dsyevd), at these sizes (r up to a few hundred) about a
 * quarter faster than dsyevr's MRRR. */
static int kci_eigen_rows(const kci_factor *f, size_t n, kci_factor *psi, double *top)
{
	size_t r = f->r, keep = 0;
	gsl_matrix *G = r > 0 ? gsl_matrix_alloc(r, r) : NULL;
	double *val = malloc((r > 0 ? r : 1) * sizeof *val);
	gsl_matrix_const_view F = gsl_matrix_const_view_array(f->c, r > 0 ? r : 1, n);
	int ret = FB_ERR;

	*top = 0.0;
	*psi = (kci_factor){ NULL, 0 };
	if (r == 0) {
		ret = FB_OK;
		goto out;
	}
	if (G == NULL || val == NULL)
		goto out;
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1.0, &F.matrix, 0.0, G);
	/* eigenvector a replaces row a of G, in ascending order of value */
	if (LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', (lapack_int)r, G->data, (lapack_int)G->tda,
	                   val) != 0)
		goto out;
	*top = val[r - 1] > 0.0 ? val[r - 1] : 0.0;
	while (keep < r && val[r - 1 - keep] > CI_KCI_EIG_CUT * *top)
		keep++;
	if (keep > 0) {
		gsl_matrix_view Vk = gsl_matrix_submatrix(G, r - keep, 0, keep, r), P;

		if ((psi->c = malloc(keep * n * sizeof *psi->c)) == NULL)
			goto out;
		P = gsl_matrix_view_array(psi->c, keep, n);
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, &Vk.matrix, &F.matrix, 0.0,
		               &P.matrix);
	}
	psi->r = keep;
	ret = FB_OK;
out:
	if (G != NULL)
		gsl_matrix_free(G);
	free(val);
	return ret;
}

/* The null's mean tr(Omega) and variance 2 tr(Omega^2) from the rows Psi' and Phi':
 * Omega's traces are those of A o B with A = Psi Psi', B = Phi Phi' (n x n), summed over
 * blocks of rows of their lower triangles; FB_ERR when out of memory. */
static int kci_lr_moments(const kci_factor *fx, const kci_factor *fy, size_t n, double *mean,
                          double *var)
{
	double *a = malloc(KCI_BLOCK * n * sizeof *a), *b = malloc(KCI_BLOCK * n * sizeof *b);
	double m = 0.0, off = 0.0, diag2 = 0.0;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return FB_ERR;
	}
	for (size_t i0 = 0; i0 < n; i0 += KCI_BLOCK) {
		size_t bs = n - i0 < KCI_BLOCK ? n - i0 : KCI_BLOCK, w = i0 + bs;

		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)bs, (int)w, (int)fx->r,
		            1.0, fx->c + i0, (int)n, fx->c, (int)n, 0.0, a, (int)w);
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)bs, (int)w, (int)fy->r,
		            1.0, fy->c + i0, (int)n, fy->c, (int)n, 0.0, b, (int)w);
		for (size_t i = 0; i < bs; i++) {
			double c = a[i * w + i0 + i] * b[i * w + i0 + i];

			m += c;
			diag2 += c * c;
			for (size_t j = 0; j < i0 + i; j++) {
				double e = a[i * w + j] * b[i * w + j];

				off += e * e;
			}
		}
	}
	free(a);
	free(b);
	*mean = m;
	*var = 2.0 * (diag2 + 2.0 * off);
	return FB_OK;
}

/* One side of a test (x with half of S beside it, or y): remembered, or computed here. */
typedef struct kci_side {
	enum ci_kci_part part;      /* CI_KCI_X or CI_KCI_Y */
	size_t v;                   /* its variable */
	const kci_memo_entry *memo; /* remembered (f, psi and top are then not used) */
	kci_factor f;               /* computed: the centred factor, then F */
	kci_factor psi;             /* computed: Psi' */
	double top;                 /* computed: the largest eigenvalue of F'F */
} kci_side;

/* The memo's part for a side: given nothing both sides' kernels are the same. */
static int kci_side_key(const kci_side *sd, size_t ns)
{
	return ns == 0 ? CI_KCI_X : (int)sd->part;
}

/* The side's factor (F given S), remembered or computed. */
static const kci_factor *kci_side_f(const kci_side *sd)
{
	return sd->memo != NULL ? &sd->memo->f : &sd->f;
}

/* The centred factor of y's kernel given ns >= 1 variables into f: a copy of the one
 * remembered for (y, ns), else computed (and remembered); false as kci_factor_of. */
static bool kci_y_factor(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                         kci_factor *f)
{
	const kci_memo_entry *m = kci_memo_find(ci, KCI_MEMO_Y_RAW, y, S, ns);
	size_t bytes = (m != NULL ? m->f.r : 0) * ci->n * sizeof(double);

	if (m == NULL) {
		if (!kci_factor_of(ci, CI_KCI_Y, x, y, S, ns, f))
			return false;
		kci_memo_put(ci, KCI_MEMO_Y_RAW, y, S, ns, f, NULL, 0.0);
		return true;
	}
	if ((f->c = malloc(bytes > 0 ? bytes : 1)) == NULL)
		return false;
	memcpy(f->c, m->f.c, bytes);
	f->r = m->f.r;
	return true;
}

/* Find each side in the memo, else factor its kernel (x's first; y's given S from the one
 * remembered given any S of its size); false when a factor is refused (the dense route
 * then). */
static bool kci_sides_factor(fb_ci *ci, kci_side *sd, size_t x, size_t y, const size_t *S,
                             size_t ns)
{
	for (size_t k = 0; k < 2; k++) {
		sd[k].memo = kci_memo_find(ci, kci_side_key(&sd[k], ns), sd[k].v, S, ns);
		if (sd[k].memo != NULL)
			continue;
		if (sd[k].part == CI_KCI_Y && ns > 0 ? !kci_y_factor(ci, x, y, S, ns, &sd[k].f)
		                                      : !kci_factor_of(ci, sd[k].part, x, y, S, ns,
		                                                       &sd[k].f))
			return false;
	}
	return true;
}

/* The regression on S into g: low-rank when z's kernel has low rank, else exact (Cholesky
 * of the centred n x n Kz + eps I); CI_KCI_DENSE when that is not positive definite (the
 * dense route says what then), FB_ERR when out of memory. */
static int kci_regressor_make(fb_ci *ci, const size_t *S, size_t ns, kci_regressor *g)
{
	size_t n = ci->n;
	gsl_matrix *K;

	*g = (kci_regressor){ .ns = ns };
	if (ns <= KCI_MEMO_SET)
		memcpy(g->S, S, ns * sizeof *S);
	if (kci_factor_of(ci, CI_KCI_Z, 0, 0, S, ns, &g->fz))
		return g->fz.r > 0 && (g->L = kci_middle(&g->fz, n)) == NULL ? FB_ERR : FB_OK;
	g->exact = true;
	if ((K = gsl_matrix_alloc(n, n)) == NULL)
		return FB_ERR;
	g->L = K;
	if (ci_kci_kernel(ci, CI_KCI_Z, 0, 0, S, ns, ci_kci_theta(n, ns), K) != FB_OK)
		return FB_ERR;
	for (size_t i = 0; i < n; i++)
		K->data[i * K->tda + i] += CI_KCI_EPSILON;
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', (lapack_int)n, K->data, (lapack_int)K->tda) != 0)
		return CI_KCI_DENSE;
	return FB_OK;
}

/* F := C R for the factor f by the regression g: F - F Cz'(eps I + Cz Cz')^-1 Cz, or
 * eps F (Kz + eps I)^-1; FB_ERR when out of memory or when LAPACK fails. */
static int kci_regressor_apply(const kci_regressor *g, kci_factor *f, size_t n)
{
	if (!g->exact)
		return kci_regress(g->L, &g->fz, f, n);
	/* a factor's r x n rows are LAPACK's n x r column-major right-hand sides */
	if (f->r > 0 && LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'U', (lapack_int)n, (lapack_int)f->r,
	                               g->L->data, (lapack_int)g->L->tda, f->c,
	                               (lapack_int)n) != 0)
		return FB_ERR;
	cblas_dscal((int)(f->r * n), CI_KCI_EPSILON, f->c, 1);
	return FB_OK;
}

/* The remembered regression on S, or NULL. */
static const kci_regressor *kci_regressor_find(const fb_ci *ci, const size_t *S, size_t ns)
{
	if (ci->kmemo == NULL || ns > KCI_MEMO_SET)
		return NULL;
	for (size_t k = 0; k < KCI_ZMEMO_SLOTS; k++) {
		const kci_regressor *g = &ci->kmemo->z[k];

		if (g->ns == ns && memcmp(g->S, S, ns * sizeof *S) == 0)
			return g;
	}
	return NULL;
}

/* Empty regression slot k of memo. */
static void kci_regressor_clear(ci_kci_memo *memo, size_t k, size_t n)
{
	memo->zbytes -= kci_regressor_size(&memo->z[k], n);
	kci_regressor_free(&memo->z[k]);
}

/* Keep g (made for S) in the memo, the oldest replaced until all fit, or free it when it
 * does not fit. */
static void kci_regressor_keep(fb_ci *ci, kci_regressor *g)
{
	size_t n = ci->n, bytes = kci_regressor_size(g, n);
	ci_kci_memo *memo;

	if (g->ns > KCI_MEMO_SET || (g->exact && n * n * sizeof(double) > KCI_ZMEMO_BYTES) ||
	    bytes > KCI_ZMEMO_TOTAL || (memo = kci_memo_of(ci)) == NULL) {
		kci_regressor_free(g);
		return;
	}
	do {
		kci_regressor_clear(memo, memo->znext, n);
		memo->znext = (memo->znext + 1) % KCI_ZMEMO_SLOTS;
	} while (memo->zbytes + bytes > KCI_ZMEMO_TOTAL);
	memo->z[(memo->znext + KCI_ZMEMO_SLOTS - 1) % KCI_ZMEMO_SLOTS] = *g;
	memo->zbytes += bytes;
}

/* F := C R for the nf factors f, the regression on S remembered or made (and kept). */
static int kci_regress_all(fb_ci *ci, const size_t *S, size_t ns, kci_factor **f, size_t nf)
{
	const kci_regressor *found = kci_regressor_find(ci, S, ns);
	kci_regressor g;
	int ret = FB_OK;

	if (found == NULL) {
		ret = kci_regressor_make(ci, S, ns, &g);
		found = &g;
	}
	for (size_t k = 0; k < nf && ret == FB_OK; k++)
		ret = kci_regressor_apply(found, f[k], ci->n);
	if (found == &g && ret == FB_OK)
		kci_regressor_keep(ci, &g);
	else if (found == &g)
		kci_regressor_free(&g);
	return ret;
}

/* The computed sides' residual factors F and their eigenrows. */
static int kci_sides_residual(fb_ci *ci, kci_side *sd, const size_t *S, size_t ns)
{
	kci_factor *f[2];
	size_t nf = 0;
	int ret;

	for (size_t k = 0; k < 2; k++)
		if (sd[k].memo == NULL)
			f[nf++] = &sd[k].f;
	ret = nf > 0 ? kci_regress_all(ci, S, ns, f, nf) : FB_OK;
	for (size_t k = 0; k < 2 && ret == FB_OK; k++)
		if (sd[k].memo == NULL)
			ret = kci_eigen_rows(&sd[k].f, ci->n, &sd[k].psi, &sd[k].top);
	return ret;
}

/* Conditional test from the two sides: the statistic |Fx Fy'|^2 and the null's moments from
 * the eigenrows. */
static int kci_lr_cond(fb_ci *ci, kci_side *sd, const size_t *S, size_t ns,
                       fb_ci_result *res)
{
	const kci_factor *psi[2];
	double top[2], mean = 0.0, var = 0.0;
	size_t n = ci->n;
	int ret = kci_sides_residual(ci, sd, S, ns);

	if (ret != FB_OK)
		return ret;
	for (size_t k = 0; k < 2; k++) {
		psi[k] = sd[k].memo != NULL ? &sd[k].memo->psi : &sd[k].psi;
		top[k] = sd[k].memo != NULL ? sd[k].memo->top : sd[k].top;
	}
	if (kci_cross(kci_side_f(&sd[0]), kci_side_f(&sd[1]), n, &res->stat) != FB_OK ||
	    (psi[0]->r > 0 && psi[1]->r > 0 &&
	     kci_lr_moments(psi[0], psi[1], n, &mean, &var) != FB_OK))
		return FB_ERR;
	res->p = top[0] > 0.0 && top[1] > 0.0 ? ci_kci_gamma_p(res->stat, mean, var) : 1.0;
	return FB_OK;
}

/* The low-rank route (ci-private.h).  The factor of [x, z/2], the widest, comes first: when
 * one is refused the others are not computed.  When only z's kernel has high rank, the
 * regression on it is exact (Cholesky of its n x n kernel) and the rest low-rank.  Each
 * side's factors are remembered (KCI_MEMO_SLOTS of them, KCI_MEMO_BYTES at most): a side
 * met again (the same variable on the same side given the same S; given nothing, on either
 * side) costs nothing, and its factors are the same bits as computed afresh. */
int ci_kci_lowrank(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res)
{
	kci_side sd[2] = { { .part = CI_KCI_X, .v = x }, { .part = CI_KCI_Y, .v = y } };
	int ret = CI_KCI_DENSE;

	if (kci_sides_factor(ci, sd, x, y, S, ns))
		ret = ns == 0 ? kci_lr_uncond(kci_side_f(&sd[0]), kci_side_f(&sd[1]), ci->n, res)
		              : kci_lr_cond(ci, sd, S, ns, res);
	for (size_t k = 0; k < 2 && ret == FB_OK; k++)
		if (sd[k].memo == NULL)
			kci_memo_put(ci, kci_side_key(&sd[k], ns), sd[k].v, S, ns, &sd[k].f,
			             ns > 0 ? &sd[k].psi : NULL, sd[k].top);
	for (size_t k = 0; k < 2; k++) {
		free(sd[k].f.c);
		free(sd[k].psi.c);
	}
	return ret;
}
