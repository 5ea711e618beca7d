/* A low-rank factor of a Gaussian (RBF) kernel matrix by pivoted incomplete Cholesky: only
 * the r columns of the kernel chosen as pivots are ever evaluated, so the cost is n r kernel
 * values and n r^2 flops instead of the n^2 values and n^3 / 3 flops of a full factor.  The
 * Cholesky of a matrix given by a function of two rows, stopped early, is not in GSL or
 * LAPACK (whose pivoted factors need the whole matrix), hence this file. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cblas.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fedbn/core.h"

/* Marks a row already taken as a pivot in the remaining diagonal. */
#define KERNEL_TAKEN (-1.0)

/* -theta |x_a - x_b|^2 / 2 for rows a and b of x (p values each). */
static double kernel_arg(const double *x, size_t p, size_t a, size_t b, double theta)
{
	double s = 0.0;

	for (size_t q = 0; q < p; q++) {
		double t = x[a * p + q] - x[b * p + q];

		s += t * t;
	}
	return -0.5 * theta * s;
}

/* Constants of kernel_exp: 1.5 * 2^52 (adding it rounds to an integer, which lands in the
 * low bits), log2(e), ln 2 in two parts (the high one with 32 bits, so k ln2_hi is exact),
 * and the smallest argument whose exp is a normal number. */
#define KEXP_SHIFT 6755399441055744.0
#define KEXP_LOG2E 1.4426950408889634
#define KEXP_LN2_HI 6.93147180369123816490e-01
#define KEXP_LN2_LO 1.90821492927058770002e-10
#define KEXP_MIN (-708.0)
/* 1 / k! for k = 0..13: exp's Taylor coefficients. */
static const double kexp_c[] = { 1.0,
	                         1.0,
	                         0.5,
	                         1.0 / 6.0,
	                         1.0 / 24.0,
	                         1.0 / 120.0,
	                         1.0 / 720.0,
	                         1.0 / 5040.0,
	                         1.0 / 40320.0,
	                         1.0 / 362880.0,
	                         1.0 / 3628800.0,
	                         1.0 / 39916800.0,
	                         1.0 / 479001600.0,
	                         1.0 / 6227020800.0 };

/* exp(r) for |r| <= ln 2 / 2 by its Taylor polynomial of degree 13 (relative error below
 * 1e-17 before rounding), by Estrin's scheme: pairs c_k + c_(k+1) r joined by r^2, r^4 and
 * r^8, a short chain of dependent operations. */
static double kernel_exp_poly(double r)
{
	double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4, e[7];

	for (size_t k = 0; k < 7; k++)
		e[k] = kexp_c[2 * k] + kexp_c[2 * k + 1] * r;
	return ((e[0] + r2 * e[1]) + r4 * (e[2] + r2 * e[3])) +
	       r8 * ((e[4] + r2 * e[5]) + r4 * e[6]);
}

/* exp(v) for one v <= 0 (0 below KEXP_MIN): v = k ln 2 + r, exp(r) by the polynomial and
 * 2^k put in the exponent's bits.  kernel_exp_block does the same operations two at a
 * time, so both give the same bits. */
static double kernel_exp(double v)
{
	double kd = v * KEXP_LOG2E + KEXP_SHIFT, q;
	uint64_t ki, scale;

	if (!(v >= KEXP_MIN))
		return v != v ? v : 0.0;
	memcpy(&ki, &kd, sizeof ki);
	kd -= KEXP_SHIFT;
	q = kernel_exp_poly((v - kd * KEXP_LN2_HI) - kd * KEXP_LN2_LO);
	scale = (ki << 52) + ((uint64_t)1023 << 52);
	memcpy(&kd, &scale, sizeof kd);
	return q * kd;
}

#if defined(__SSE2__)
/* kernel_exp_poly of the two values in r, in SSE2's two lanes: the same operations. */
static __m128d kernel_exp_poly2(__m128d r)
{
	__m128d r2 = _mm_mul_pd(r, r), r4 = _mm_mul_pd(r2, r2), r8 = _mm_mul_pd(r4, r4), e[7];

	for (size_t k = 0; k < 7; k++)
		e[k] = _mm_add_pd(_mm_set1_pd(kexp_c[2 * k]),
		                  _mm_mul_pd(_mm_set1_pd(kexp_c[2 * k + 1]), r));
	return _mm_add_pd(
	        _mm_add_pd(_mm_add_pd(e[0], _mm_mul_pd(r2, e[1])),
	                   _mm_mul_pd(r4, _mm_add_pd(e[2], _mm_mul_pd(r2, e[3])))),
	        _mm_mul_pd(r8, _mm_add_pd(_mm_add_pd(e[4], _mm_mul_pd(r2, e[5])),
	                                  _mm_mul_pd(r4, e[6]))));
}

/* kernel_exp of the two values in v (both >= KEXP_MIN), in SSE2's two lanes. */
static __m128d kernel_exp2(__m128d v)
{
	const __m128d shift = _mm_set1_pd(KEXP_SHIFT);
	__m128d kd = _mm_add_pd(_mm_mul_pd(v, _mm_set1_pd(KEXP_LOG2E)), shift), r;
	__m128i ki = _mm_castpd_si128(kd);

	kd = _mm_sub_pd(kd, shift);
	r = _mm_sub_pd(_mm_sub_pd(v, _mm_mul_pd(kd, _mm_set1_pd(KEXP_LN2_HI))),
	               _mm_mul_pd(kd, _mm_set1_pd(KEXP_LN2_LO)));
	ki = _mm_add_epi64(_mm_slli_epi64(ki, 52), _mm_set1_epi64x((long long)1023 << 52));
	return _mm_mul_pd(kernel_exp_poly2(r), _mm_castsi128_pd(ki));
}
#endif

/* y[a] := exp(y[a]) for the n values y[a] <= 0 (kernel_exp's bits, pairs of them at a time
 * where SSE2 is there). */
static void kernel_exp_block(double *y, size_t n)
{
	size_t a = 0;

#if defined(__SSE2__)
	for (; a + 2 <= n; a += 2) {
		if (!(y[a] >= KEXP_MIN && y[a + 1] >= KEXP_MIN))
			break;
		_mm_storeu_pd(y + a, kernel_exp2(_mm_loadu_pd(y + a)));
	}
#endif
	for (; a < n; a++)
		y[a] = kernel_exp(y[a]);
}

/* Column piv of the kernel into row (n values): by glibc's exp (fast false), or by
 * kernel_exp_block's, a few times faster, to within a few units in the last place. */
static void kernel_column(const double *x, size_t n, size_t p, double theta, size_t piv,
                          bool fast, double *row)
{
	for (size_t a = 0; a < n; a++)
		row[a] = kernel_arg(x, p, a, piv, theta);
	if (fast)
		kernel_exp_block(row, n);
	else
		for (size_t a = 0; a < n; a++)
			row[a] = exp(row[a]);
}

/* The first row whose remaining diagonal entry is largest (taken rows hold KERNEL_TAKEN);
 * the sum of the positive remaining entries, the remainder's trace, into *trace. */
static size_t kernel_pivot(const double *diag, size_t n, double *trace)
{
	size_t best = 0;
	double t = 0.0;

	for (size_t a = 0; a < n; a++) {
		if (diag[a] > diag[best])
			best = a;
		if (diag[a] > 0.0)
			t += diag[a];
	}
	*trace = t;
	return best;
}

/* Row k of the factor for pivot row piv: the kernel's column piv minus what rows 0..k-1
 * already explain, over the square root of the remaining diagonal; updates diag. */
static void kernel_factor_row(const double *x, size_t n, size_t p, double theta, bool fast,
                              size_t k, size_t piv, double *diag, double *g)
{
	double *row = g + k * n, root = sqrt(diag[piv]);

	kernel_column(x, n, p, theta, piv, fast, row);
	if (k > 0)
		cblas_dgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, -1.0, g, (int)n, g + piv,
		            (int)n, 1.0, row, 1);
	for (size_t a = 0; a < n; a++) {
		if (diag[a] == KERNEL_TAKEN) {
			row[a] = 0.0;
			continue;
		}
		row[a] /= root;
		diag[a] -= row[a] * row[a];
	}
	row[piv] = root;
	diag[piv] = KERNEL_TAKEN;
}

/* Pivoted incomplete Cholesky of an RBF kernel, its entries by glibc's exp or, fast, by
 * kernel_exp_block's. */
static bool kernel_factor(const double *x, size_t n, size_t p, double theta, double tol,
                          bool fast, size_t rmax, double *g, size_t *rank)
{
	double *diag = malloc((n > 0 ? n : 1) * sizeof *diag);
	bool done = false;
	size_t r = 0;

	if (diag == NULL)
		return false;
	for (size_t a = 0; a < n; a++)
		diag[a] = 1.0;
	while (!done) {
		double trace = 0.0;
		size_t piv = n > 0 ? kernel_pivot(diag, n, &trace) : 0;

		done = n == 0 || trace <= tol * (double)n;
		if (done || r == rmax)
			break;
		kernel_factor_row(x, n, p, theta, fast, r, piv, diag, g);
		r++;
	}
	free(diag);
	*rank = r;
	return done;
}

/* Pivoted incomplete Cholesky of an RBF kernel (see fedbn/core.h). */
bool fb_kernel_factor_rbf(const double *x, size_t n, size_t p, double theta, double tol,
                          size_t rmax, double *g, size_t *rank)
{
	return kernel_factor(x, n, p, theta, tol, false, rmax, g, rank);
}

/* The same with a faster exp (see fedbn/core.h). */
bool fb_kernel_factor_rbf_fast(const double *x, size_t n, size_t p, double theta, double tol,
                               size_t rmax, double *g, size_t *rank)
{
	return kernel_factor(x, n, p, theta, tol, true, rmax, g, rank);
}
