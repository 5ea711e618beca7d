/* The sigmoid stack {d, m, 1} (NOTEARS-MLP's) as straight loops around its one dgemm per
 * pass: the last layer, d dot products of length m per row, and its back-propagation through
 * the sigmoid into the first layer's bias run as passes over each row's d*m hidden values,
 * two (with AVX2, four) at a time.  d small dgemm calls per layer and pass cost more than the
 * arithmetic they carry.  Each row is read in a fixed order, so the bits do not depend on the thread
 * count. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "nn-int.h"

/* Two doubles as GCC's and Clang's generic vector (one SSE2 register). */
typedef double v2d __attribute__((vector_size(16)));

/* Load two doubles from p (any alignment). */
static inline v2d v2_load(const double *p)
{
	v2d v;

	memcpy(&v, p, sizeof v);
	return v;
}

/* Store two doubles to p (any alignment). */
static inline void v2_store(double *p, v2d v)
{
	memcpy(p, &v, sizeof v);
}

/* sum_q a[q] w[q] over q < in: pairs summed lane-wise, then the two lanes, then the odd
 * last term. */
static inline double dot_pairs(size_t in, const double *a, const double *w)
{
	v2d acc = { 0.0, 0.0 };
	double sum;
	size_t q = 0;

	for (; q + 2 <= in; q += 2)
		acc += v2_load(a + q) * v2_load(w + q);
	sum = acc[0] + acc[1];
	if (q < in)
		sum += a[q] * w[q];
	return sum;
}

/* Y[s, j] = b[j] + sum_q A[s, j, q] w[j, q]. */
void fb_nn_one_forward(size_t n, size_t d, size_t in, const double *A, const double *w,
                       const double *b, double *Y)
{
	for (size_t s = 0; s < n; s++)
		for (size_t j = 0; j < d; j++)
			Y[s * d + j] = b[j] + dot_pairs(in, A + (s * d + j) * in, w + j * in);
}

/* One network's units in one row from q0 on, given its output gradient g: dw[q] += a[q] g,
 * dz[q] = (g w[q]) (a[q] (1 - a[q])), db0[q] += dz[q]. */
static inline void unit_back(size_t q0, size_t in, double g, const double *a, const double *w,
                             double *dw, double *dz, double *db0)
{
	const v2d one = { 1.0, 1.0 }, gv = { g, g };
	size_t q = q0;

	for (; q + 2 <= in; q += 2) {
		v2d aq = v2_load(a + q), dzq = (gv * v2_load(w + q)) * (aq * (one - aq));

		v2_store(dw + q, v2_load(dw + q) + aq * gv);
		v2_store(dz + q, dzq);
		v2_store(db0 + q, v2_load(db0 + q) + dzq);
	}
	if (q < in) {
		dw[q] += a[q] * g;
		dz[q] = (g * w[q]) * (a[q] * (1.0 - a[q]));
		db0[q] += dz[q];
	}
}

/* One row: unit_back for each of the d networks, with their output gradients gs. */
static void row_back(size_t d, size_t in, const double *gs, const double *a, const double *w,
                     double *dw, double *dz, double *db0)
{
	for (size_t j = 0, k = 0; j < d; j++, k += in)
		unit_back(0, in, gs[j], a + k, w + k, dw + k, dz + k, db0 + k);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* row_back four units at a time with AVX2, the rest of each network's two at a time: the
 * same operations in the same order on each unit, so the same bits. */
__attribute__((target("avx2"))) static void row_back_avx2(size_t d, size_t in,
                                                          const double *gs, const double *a,
                                                          const double *w, double *dw,
                                                          double *dz, double *db0)
{
	const __m256d one = _mm256_set1_pd(1.0);

	for (size_t j = 0, k = 0; j < d; j++, k += in) {
		__m256d gv = _mm256_set1_pd(gs[j]);
		size_t q = 0;

		for (; q + 4 <= in; q += 4) {
			__m256d aq = _mm256_loadu_pd(a + k + q);
			__m256d dzq = _mm256_mul_pd(_mm256_mul_pd(gv, _mm256_loadu_pd(w + k + q)),
			                            _mm256_mul_pd(aq, _mm256_sub_pd(one, aq)));

			_mm256_storeu_pd(dw + k + q, _mm256_add_pd(_mm256_loadu_pd(dw + k + q),
			                                           _mm256_mul_pd(aq, gv)));
			_mm256_storeu_pd(dz + k + q, dzq);
			_mm256_storeu_pd(db0 + k + q, _mm256_add_pd(_mm256_loadu_pd(db0 + k + q), dzq));
		}
		unit_back(q, in, gs[j], a + k, w + k, dw + k, dz + k, db0 + k);
	}
}

/* Whether the processor runs row_back_avx2. */
static bool one_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}
#else
/* Without x86 intrinsics: row_back alone. */
static void row_back_avx2(size_t d, size_t in, const double *gs, const double *a,
                          const double *w, double *dw, double *dz, double *db0)
{
	row_back(d, in, gs, a, w, dw, dz, db0);
}

/* No AVX2 path. */
static bool one_avx2(void)
{
	return false;
}
#endif

/* Back-propagate g = dL/dY through fb_nn_one_forward and A = sigmoid(Z + b0). */
void fb_nn_one_backward(size_t n, size_t d, size_t in, const double *A, const double *w,
                        const double *g, const fb_nn_one_grad *out)
{
	size_t len = d * in;
	bool avx2 = one_avx2();

	memset(out->dw, 0, len * sizeof *out->dw);
	memset(out->db, 0, d * sizeof *out->db);
	memset(out->db0, 0, len * sizeof *out->db0);
	for (size_t s = 0; s < n; s++) {
		for (size_t j = 0; j < d; j++)
			out->db[j] += g[s * d + j];
		if (avx2)
			row_back_avx2(d, in, g + s * d, A + s * len, w, out->dw, out->dZ + s * len,
			              out->db0);
		else
			row_back(d, in, g + s * d, A + s * len, w, out->dw, out->dZ + s * len,
			         out->db0);
	}
}
