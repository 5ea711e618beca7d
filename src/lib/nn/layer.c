/* Dense and locally-connected layers on CBLAS, and the activations with their derivatives.
 * Every product over a batch is one dgemm (per network, for the locally-connected layer, with
 * strides that pick that network's slice out of the shared [n, d, m] arrays). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>

#include "fedbn/nn.h"
#include "nn-int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* glibc's libmvec (linked with libm): exp of two, four and eight doubles at once.  The
 * eight-lane AVX-512 exp is the four-lane AVX2 one lane for lane: the same operations (the
 * same fused multiply-adds, table and exponent arithmetic, the same scalar exp for the lanes
 * out of range) on the same constants, in glibc's source and in Debian's libmvec alike. */
__m128d _ZGVbN2v_exp(__m128d x);
__attribute__((target("avx2"))) __m256d _ZGVdN4v_exp(__m256d x);
__attribute__((target("avx512f"))) __m512d _ZGVeN8v_exp(__m512d x);

/* sigmoid_avx2 eight at a time by libmvec's AVX-512 exp: the same operations on each value,
 * so the same bits; the last len mod 8 through the same call padded with zeros. */
__attribute__((target("avx512f"))) static void sigmoid_avx512(size_t len, const double *z,
                                                              const double *b, double *a)
{
	const __m512d one = _mm512_set1_pd(1.0), zero = _mm512_setzero_pd();
	size_t k = 0;

	for (; k < len; k += 8) {
		__mmask8 m = (__mmask8)(len - k >= 8 ? 0xff : (1u << (len - k)) - 1);
		__m512d x = _mm512_maskz_loadu_pd(m, z + k), e;

		if (b != NULL)
			x = _mm512_add_pd(x, _mm512_maskz_loadu_pd(m, b + k));
		e = _ZGVeN8v_exp(_mm512_sub_pd(zero, x));
		_mm512_mask_storeu_pd(a + k, m, _mm512_div_pd(one, _mm512_add_pd(one, e)));
	}
}

/* a[k] = sigmoid(z[k] + b[k]) (b NULL: sigmoid(z[k])) four at a time by libmvec's AVX2 exp;
 * the last len mod 4 go through the same call padded with zeros, so every value is the same
 * function of its argument alone. */
__attribute__((target("avx2"))) static void sigmoid_avx2(size_t len, const double *z,
                                                         const double *b, double *a)
{
	const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
	double t[4] = { 0.0, 0.0, 0.0, 0.0 };
	size_t k = 0, m = len % 4;

	for (; k + 4 <= len; k += 4) {
		__m256d x = _mm256_loadu_pd(z + k), e;

		if (b != NULL)
			x = _mm256_add_pd(x, _mm256_loadu_pd(b + k));
		e = _ZGVdN4v_exp(_mm256_sub_pd(zero, x));
		_mm256_storeu_pd(a + k, _mm256_div_pd(one, _mm256_add_pd(one, e)));
	}
	if (m > 0) {
		for (size_t i = 0; i < m; i++)
			t[i] = b != NULL ? z[k + i] + b[k + i] : z[k + i];
		_mm256_storeu_pd(t, _mm256_div_pd(one, _mm256_add_pd(one, _ZGVdN4v_exp(
		                 _mm256_sub_pd(zero, _mm256_loadu_pd(t))))));
		memcpy(a + k, t, m * sizeof *t);
	}
}

/* The same two at a time by libmvec's SSE2 exp. */
static void sigmoid_sse2(size_t len, const double *z, const double *b, double *a)
{
	const __m128d one = _mm_set1_pd(1.0), zero = _mm_setzero_pd();
	double t[2] = { 0.0, 0.0 };
	size_t k = 0;

	for (; k + 2 <= len; k += 2) {
		__m128d x = _mm_loadu_pd(z + k), e;

		if (b != NULL)
			x = _mm_add_pd(x, _mm_loadu_pd(b + k));
		e = _ZGVbN2v_exp(_mm_sub_pd(zero, x));
		_mm_storeu_pd(a + k, _mm_div_pd(one, _mm_add_pd(one, e)));
	}
	if (k < len) {
		t[0] = b != NULL ? z[k] + b[k] : z[k];
		_mm_storeu_pd(t, _mm_div_pd(one, _mm_add_pd(one, _ZGVbN2v_exp(
		              _mm_sub_pd(zero, _mm_loadu_pd(t))))));
		a[k] = t[0];
	}
}

/* a[k] = sigmoid(z[k] + b[k]) (b NULL: no b) through libmvec: AVX-512 or AVX2 (the same
 * bits) where the processor has it, else SSE2 (the choice is the machine's, so one machine
 * always computes the same bits). */
static void sigmoid_all(size_t len, const double *z, const double *b, double *a)
{
	if (__builtin_cpu_supports("avx512f"))
		sigmoid_avx512(len, z, b, a);
	else if (__builtin_cpu_supports("avx2"))
		sigmoid_avx2(len, z, b, a);
	else
		sigmoid_sse2(len, z, b, a);
}
#else
/* a[k] = 1/(1 + exp(-(z[k] + b[k]))) (b NULL: no b); exp(-x) = inf for very negative x gives
 * 0. */
static void sigmoid_all(size_t len, const double *z, const double *b, double *a)
{
	for (size_t k = 0; k < len; k++)
		a[k] = 1.0 / (1.0 + exp(-(b != NULL ? z[k] + b[k] : z[k])));
}
#endif

/* A[s, k] = sigmoid(Z[s, k] + b[k]) for the n rows of length len; A may be Z. */
void fb_nn_sigmoid_rows(size_t n, size_t len, const double *b, const double *Z, double *A)
{
	for (size_t s = 0; s < n; s++)
		sigmoid_all(len, Z + s * len, b, A + s * len);
}

/* Two doubles and their comparison masks, as GCC's and Clang's generic vectors (SSE2 at
 * least; no target flags needed). */
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));

/* 1 where z > 0, else the slope, picked by bit masks: the signs of z are a coin toss, so a
 * branch would be mispredicted half the time. */
static inline v2d leaky_factor2(v2d z, v2i one, v2i slope)
{
	v2i m = (v2i)(z > (v2d){ 0.0, 0.0 });

	return (v2d)((one & m) | (slope & ~m));
}

/* out[k] = leaky_factor(z[k]) * (by ? by[k] : z[k]): the forward pass (by NULL) or the
 * derivative times by, two entries at a time; each product is the scalar one, bit for bit. */
static void leaky_apply(size_t len, double slope, const double *z, const double *by,
                        double *out)
{
	v2d onev = { 1.0, 1.0 }, slv = { slope, slope };
	v2i one = (v2i)onev, sl = (v2i)slv;
	size_t k = 0;

	for (; k + 2 <= len; k += 2) {
		v2d zk, bk;

		memcpy(&zk, z + k, sizeof zk);
		if (by != NULL)
			memcpy(&bk, by + k, sizeof bk);
		else
			bk = zk;
		bk *= leaky_factor2(zk, one, sl);
		memcpy(out + k, &bk, sizeof bk);
	}
	for (; k < len; k++)
		out[k] = (z[k] > 0.0 ? 1.0 : slope) * (by != NULL ? by[k] : z[k]);
}

/* dz[k] = da[k] (a[k] (1 - a[k])), two entries at a time, each the scalar product bit for
 * bit. */
static void sigmoid_backward(size_t len, const double *a, const double *da, double *dz)
{
	const v2d one = { 1.0, 1.0 };
	size_t k = 0;

	for (; k + 2 <= len; k += 2) {
		v2d ak, dk;

		memcpy(&ak, a + k, sizeof ak);
		memcpy(&dk, da + k, sizeof dk);
		dk *= ak * (one - ak);
		memcpy(dz + k, &dk, sizeof dk);
	}
	for (; k < len; k++)
		dz[k] = da[k] * (a[k] * (1.0 - a[k]));
}

/* a[k] = f(z[k]). */
void fb_nn_act_forward(const fb_nn_act *act, size_t len, const double *z, double *a)
{

	switch (act->kind) {
	case FB_NN_ACT_SIGMOID:
		sigmoid_all(len, z, NULL, a);
		break;
	case FB_NN_ACT_LEAKY_RELU:
		leaky_apply(len, act->slope, z, NULL, a);
		break;
	case FB_NN_ACT_IDENTITY:
	default:
		if (a != z)
			memmove(a, z, len * sizeof *a);
		break;
	}
}

/* dz[k] = da[k] f'(z[k]). */
void fb_nn_act_backward(const fb_nn_act *act, size_t len, const double *z, const double *a,
                        const double *da, double *dz)
{
	switch (act->kind) {
	case FB_NN_ACT_SIGMOID:
		sigmoid_backward(len, a, da, dz);
		break;
	case FB_NN_ACT_LEAKY_RELU:
		leaky_apply(len, act->slope, z, da, dz);
		break;
	case FB_NN_ACT_IDENTITY:
	default:
		if (dz != da)
			memmove(dz, da, len * sizeof *dz);
		break;
	}
}

/* Fill each of the n rows of Y (len entries each) with b, or with zeros when b is NULL. */
static void rows_fill(size_t n, size_t len, const double *b, double *Y)
{
	size_t s;

	for (s = 0; s < n; s++) {
		if (b != NULL)
			memcpy(Y + s * len, b, len * sizeof *Y);
		else
			memset(Y + s * len, 0, len * sizeof *Y);
	}
}

/* db = the column sums of the n x len matrix dY, as dY^T times a vector of ones. */
static void rows_sum(size_t n, size_t len, const double *dY, double *db)
{
	double *ones = fb_xmalloc(n * sizeof *ones);

	for (size_t s = 0; s < n; s++)
		ones[s] = 1.0;
	cblas_dgemv(CblasRowMajor, CblasTrans, (int)n, (int)len, 1.0, dY, (int)len, ones, 1, 0.0,
	            db, 1);
	free(ones);
}

/* Y = X W^T + b (without b, the dgemm overwrites Y: no pass to clear it first). */
void fb_nn_dense_forward(size_t n, size_t in, size_t out, const double *X, const double *W,
                         const double *b, double *Y)
{
	if (b != NULL)
		rows_fill(n, out, b, Y);
	cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)out, (int)in, 1.0, X,
	            (int)in, W, (int)in, b != NULL ? 1.0 : 0.0, Y, (int)out);
}

/* dW = dY^T X, db = column sums of dY, dX = dY W. */
void fb_nn_dense_backward(size_t n, size_t in, size_t out, const double *X, const double *W,
                          const double *dY, double *dX, double *dW, double *db)
{
	if (dW != NULL)
		cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)out, (int)in, (int)n, 1.0,
		            dY, (int)out, X, (int)in, 0.0, dW, (int)in);
	if (db != NULL)
		rows_sum(n, out, dY, db);
	if (dX != NULL)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)in, (int)out, 1.0,
		            dY, (int)out, W, (int)in, 0.0, dX, (int)in);
}

/* Y[:, j, :] = X[:, j, :] W[j] + b[j], one strided dgemm per network. */
void fb_nn_local_forward(size_t n, size_t d, size_t in, size_t out, const double *X,
                         const double *W, const double *b, double *Y)
{
	size_t j;

	rows_fill(n, d * out, b, Y);
	for (j = 0; j < d; j++)
		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)out, (int)in, 1.0,
		            X + j * in, (int)(d * in), W + j * in * out, (int)out, 1.0, Y + j * out,
		            (int)(d * out));
}

/* Per network j: dW[j] = X[:, j, :]^T dY[:, j, :], dX[:, j, :] = dY[:, j, :] W[j]^T; db = the
 * column sums of dY seen as n x (d*out). */
void fb_nn_local_backward(size_t n, size_t d, size_t in, size_t out, const double *X,
                          const double *W, const double *dY, double *dX, double *dW,
                          double *db)
{
	size_t j;

	for (j = 0; j < d; j++) {
		if (dW != NULL)
			cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)in, (int)out, (int)n,
			            1.0, X + j * in, (int)(d * in), dY + j * out, (int)(d * out), 0.0,
			            dW + j * in * out, (int)out);
		if (dX != NULL)
			cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)in, (int)out,
			            1.0, dY + j * out, (int)(d * out), W + j * in * out, (int)out, 0.0,
			            dX + j * in, (int)(d * in));
	}
	if (db != NULL)
		rows_sum(n, d * out, dY, db);
}
