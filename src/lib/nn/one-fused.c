/* The backward pass of the sigmoid stack {d, m, 1} (NOTEARS-MLP's) with AVX-512, eight
 * hidden units at a time: for each block, one pass over the rows forms dL/dz, the output
 * weights' and the first bias's gradients, and a second pass over the same rows (their dL/dz
 * kept in a block of 8 n doubles) forms that block's part of the first layer's weight
 * gradient dW = dZ^T X.  The full dZ is never written out, and the BLAS's packing, zeroing
 * and call are gone.
 *
 * Every value is made by the same operations in the same order as fb_nn_one_backward
 * followed by the dgemm of fb_nn_dense_backward: dL/dz = (g w)(a (1 - a)), the sums over the
 * rows in row order from 0, each product rounded before it is added (no fused multiply-add
 * there), and each entry of dW one chain of fused multiply-adds over the rows in order from
 * 0.  The last is how OpenBLAS's SkylakeX kernels (Cooperlake's and SapphireRapids' too) form
 * every entry of this dgemm while the inner dimension fits in one block of DGEMM_Q (384
 * rows); so this pass runs only under those kernels and up to those rows, and the bits are
 * the BLAS path's (test-nn compares the two bit for bit).  Its Haswell kernels (Zen's too)
 * form some entries at the edges of the blocks otherwise, so under them, under any other
 * BLAS, or past those rows, fb_nn_one_backward and the dgemm run as before. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "fedbn/core.h"
#include "nn-int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define FUSED_TARGET __attribute__((target("avx512f")))

/* The rows up to which the fused pass gives the BLAS path's bits (0: never), set once. */
static size_t fused_rows;
/* Guards fused_rows_set. */
static pthread_once_t fused_once = PTHREAD_ONCE_INIT;

/* fused_rows from the processor and the BLAS's kernel family. */
static void fused_rows_set(void)
{
	char fam[32];

	if (!__builtin_cpu_supports("avx512f"))
		return;
	fb_blas_family(fb_blas_kernel(), fam, sizeof fam);
	if (strcmp(fam, "skylakex") == 0)
		fused_rows = 384;
}

/* v as it is, opaque to the compiler, so that a product is rounded before the addition it
 * feeds instead of being fused with it. */
FUSED_TARGET static inline __m512d fused_keep(__m512d v)
{
	__asm__("" : "+v"(v));
	return v;
}

/* The lanes of the block of hidden units from k0: which network's output gradient each
 * takes, as an offset from network j0 = k0 / in (lanes past the last unit take the last
 * network's; they are never stored). */
FUSED_TARGET static __m512i fused_nets(size_t d, size_t in, size_t k0)
{
	int64_t ix[8];

	for (size_t t = 0; t < 8; t++) {
		size_t j = (k0 + t) / in;

		ix[t] = (int64_t)((j < d ? j : d - 1) - k0 / in);
	}
	return _mm512_loadu_si512(ix);
}

/* The block of units from k0 (lanes: those below d*in) over the n rows in order: dL/dz into
 * zb (8 a row), dw += a g and db0 += dL/dz, from 0. */
FUSED_TARGET static void fused_units(size_t n, size_t d, size_t in, size_t k0, __mmask8 lanes,
                                     const double *A, const double *w, const double *g,
                                     double *zb, const fb_nn_one_grad *out)
{
	size_t dm = d * in, j0 = k0 / in, nj = d - j0 < 8 ? d - j0 : 8;
	__mmask8 gl = (__mmask8)((1u << nj) - 1);
	__m512i idx = fused_nets(d, in, k0);
	__m512d one = _mm512_set1_pd(1.0), wv = _mm512_maskz_loadu_pd(lanes, w + k0);
	__m512d dw = _mm512_setzero_pd(), db0 = _mm512_setzero_pd();

	for (size_t s = 0; s < n; s++) {
		__m512d a = _mm512_maskz_loadu_pd(lanes, A + s * dm + k0);
		__m512d gv = _mm512_permutexvar_pd(idx, _mm512_maskz_loadu_pd(gl, g + s * d + j0));
		__m512d dz = fused_keep(_mm512_mul_pd(_mm512_mul_pd(gv, wv),
		                                      _mm512_mul_pd(a, _mm512_sub_pd(one, a))));

		_mm512_storeu_pd(zb + 8 * s, dz);
		dw = _mm512_add_pd(dw, fused_keep(_mm512_mul_pd(a, gv)));
		db0 = _mm512_add_pd(db0, dz);
	}
	_mm512_mask_storeu_pd(out->dw + k0, lanes, dw);
	_mm512_mask_storeu_pd(out->db0 + k0, lanes, db0);
}

/* dW[k][i] for the nk units from k0 and the inputs i0 .. i0 + C - 1 below d: one fused
 * multiply-add chain over the rows in order from 0 of X[s][i] zb[s][k - k0]; C is 8 or 4,
 * and an input past d reads input d - 1 into an accumulator never stored. */
FUSED_TARGET static inline __attribute__((always_inline)) void
fused_weights(size_t n, size_t d, size_t k0, size_t nk, size_t i0, const size_t C,
              const double *X, const double *zb, double *dW)
{
	__m512d acc[8];
	const double *xc[8];
	double t[8][8];

#pragma GCC unroll 8
	for (size_t c = 0; c < C; c++) {
		acc[c] = _mm512_setzero_pd();
		xc[c] = X + (i0 + c < d ? i0 + c : d - 1);
	}
	for (size_t s = 0; s < n; s++) {
		__m512d z = _mm512_loadu_pd(zb + 8 * s);

#pragma GCC unroll 8
		for (size_t c = 0; c < C; c++)
			acc[c] = _mm512_fmadd_pd(_mm512_set1_pd(xc[c][s * d]), z, acc[c]);
	}
#pragma GCC unroll 8
	for (size_t c = 0; c < C; c++)
		_mm512_storeu_pd(t[c], acc[c]);
	for (size_t k = 0; k < nk; k++)
		for (size_t c = 0; c < C && i0 + c < d; c++)
			dW[(k0 + k) * d + i0 + c] = t[c][k];
}

/* The blocks of eight units, each with its inputs eight (the last four) at a time. */
FUSED_TARGET static void fused_blocks(size_t n, size_t d, size_t in, const double *X,
                                      const double *A, const double *w, const double *g,
                                      const fb_nn_one_grad *out, double *dW, double *zb)
{
	size_t dm = d * in;

	for (size_t k0 = 0; k0 < dm; k0 += 8) {
		size_t nk = dm - k0 < 8 ? dm - k0 : 8;

		fused_units(n, d, in, k0, (__mmask8)((1u << nk) - 1), A, w, g, zb, out);
		for (size_t i0 = 0; i0 < d; i0 += 8) {
			if (d - i0 > 4)
				fused_weights(n, d, k0, nk, i0, 8, X, zb, dW);
			else
				fused_weights(n, d, k0, nk, i0, 4, X, zb, dW);
		}
	}
}

/* Whether the fused pass runs for n rows and d*in units (at least one block of eight). */
static bool fused_fits(size_t n, size_t d, size_t in)
{
	pthread_once(&fused_once, fused_rows_set);
	return n > 0 && n <= fused_rows && d * in >= 8;
}

/* The fused backward pass, when it fits: true when it ran. */
bool fb_nn_one_backward_fused(size_t n, size_t d, size_t in, const double *X, const double *A,
                              const double *w, const double *g, const fb_nn_one_grad *out,
                              double *dW, double *zb)
{
	if (!fused_fits(n, d, in))
		return false;
	memset(out->db, 0, d * sizeof *out->db);
	for (size_t s = 0; s < n; s++)
		for (size_t j = 0; j < d; j++)
			out->db[j] += g[s * d + j];
	fused_blocks(n, d, in, X, A, w, g, out, dW, zb);
	return true;
}
#else
/* Without x86 intrinsics there is no fused pass: the caller runs the BLAS path. */
bool fb_nn_one_backward_fused(size_t n, size_t d, size_t in, const double *X, const double *A,
                              const double *w, const double *g, const fb_nn_one_grad *out,
                              double *dW, double *zb)
{
	(void)n, (void)d, (void)in, (void)X, (void)A, (void)w, (void)g, (void)out, (void)dW,
		(void)zb;
	return false;
}
#endif
