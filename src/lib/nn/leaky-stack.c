/* The squared loss of a LeakyReLU stack {d, h_1, ..., h_{L-1}, 1} (MCSL's networks) and its
 * gradient, network by network: one network's activations over a block of rows stay in the
 * first-level cache from its first layer to its last and back, where layer by layer every
 * pass would stream all d networks' values through memory, and its small products (h x h,
 * or h x 1 at the output) run as register tiles instead of d small BLAS calls per layer.
 * Every sum runs in a fixed order (along its inner index, one after the other), so the bits
 * depend neither on the tiling, the processor's vector width nor the thread count. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "nn-int.h"

/* Four doubles, and their comparison masks, as GCC's and Clang's generic vectors (each
 * lane's arithmetic is the scalar one, rounding for rounding). */
typedef double v4d __attribute__((vector_size(32)));
typedef double v4u __attribute__((vector_size(32), aligned(8)));
typedef int64_t v4i __attribute__((vector_size(32)));

/* The loops below compiled for AVX2 besides the baseline, chosen at load time (GCC). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define LK_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LK_CLONES
#endif
/* Helpers inlined into each clone. */
#define LK_INLINE static inline __attribute__((always_inline))

/* Four doubles at p (aligned as a double), and x in every lane; macros, as functions that
 * take or return 256-bit vectors have another calling convention with AVX than without. */
#define V4(p) (*(v4u *)(p))
#define V4C(p) (*(const v4u *)(p))
#define V4_SPLAT(x) ((v4d){ (x), (x), (x), (x) })

/* out[r*ldo + 4c + t] = init[4c + t] (0 without init) + sum_k P[r*pr + k*pk] V[k*vk + 4c + t]
 * for r < R and c < C (R <= 2, C <= 4), each sum in the order of k. */
LK_INLINE void tile(size_t R, size_t C, size_t K, const double *P, size_t pr, size_t pk,
                    const double *V, size_t vk, const double *init, double *out, size_t ldo)
{
	v4d acc[2][4], v[4];

#pragma GCC unroll 2
	for (size_t r = 0; r < R; r++)
#pragma GCC unroll 4
		for (size_t c = 0; c < C; c++)
			acc[r][c] = init != NULL ? V4C(init + 4 * c) : V4_SPLAT(0.0);
	for (size_t k = 0; k < K; k++) {
#pragma GCC unroll 4
		for (size_t c = 0; c < C; c++)
			v[c] = V4C(V + k * vk + 4 * c);
#pragma GCC unroll 2
		for (size_t r = 0; r < R; r++) {
			v4d p = V4_SPLAT(P[r * pr + k * pk]);

#pragma GCC unroll 4
			for (size_t c = 0; c < C; c++)
				acc[r][c] = acc[r][c] + p * v[c];
		}
	}
#pragma GCC unroll 2
	for (size_t r = 0; r < R; r++)
#pragma GCC unroll 4
		for (size_t c = 0; c < C; c++)
			V4(out + r * ldo + 4 * c) = acc[r][c];
}

/* The R x width product of tile (width a multiple of 4): two rows and sixteen columns at a
 * time where they remain, then fewer. */
LK_INLINE void product(size_t R, size_t width, size_t K, const double *P, size_t pr,
                       size_t pk, const double *V, size_t vk, const double *init, double *out,
                       size_t ldo)
{
	for (size_t r = 0; r < R; r += 2) {
		bool two = R - r >= 2;
		const double *Pr = P + r * pr;
		double *o = out + r * ldo;

		for (size_t u = 0; u < width; u += 4) {
			const double *in = init != NULL ? init + u : NULL;

			if (width - u >= 16 && two)
				tile(2, 4, K, Pr, pr, pk, V + u, vk, in, o + u, ldo);
			else if (width - u >= 16)
				tile(1, 4, K, Pr, pr, pk, V + u, vk, in, o + u, ldo);
			else if (two)
				tile(2, 1, K, Pr, pr, pk, V + u, vk, in, o + u, ldo);
			else
				tile(1, 1, K, Pr, pr, pk, V + u, vk, in, o + u, ldo);
			if (width - u >= 16)
				u += 12;
		}
	}
}

/* x[k] *= (a[k] > 0 ? 1 : slope) for len entries (a multiple of 4), the factor picked by bit
 * masks: with x = a the activation itself, else its derivative times x (a = f(z) is positive
 * exactly where z is, slope >= 0). */
LK_INLINE void leaky_mul(size_t len, double slope, const double *a, double *x)
{
	const v4d one = V4_SPLAT(1.0), sl = V4_SPLAT(slope), zero = V4_SPLAT(0.0);

	for (size_t k = 0; k < len; k += 4) {
		v4i m = (v4i)(V4C(a + k) > zero);

		V4(x + k) = V4C(x + k) * (v4d)(((v4i)one & m) | ((v4i)sl & ~m));
	}
}

/* db[u] = sum_s D[s][u] over m rows of width entries, in the order of s. */
LK_INLINE void col_sums(size_t m, size_t width, const double *D, double *db)
{
	for (size_t u = 0; u < width; u += 4) {
		v4d acc = V4_SPLAT(0.0);

		for (size_t s = 0; s < m; s++)
			acc = acc + V4C(D + s * width + u);
		V4(db + u) = acc;
	}
}

/* sum_q a[q] w[q] over h entries (a multiple of 4): four lanes along q, then the lanes. */
LK_INLINE double dot4(size_t h, const double *a, const double *w)
{
	v4d acc = V4_SPLAT(0.0);

	for (size_t q = 0; q < h; q += 4)
		acc = acc + V4C(a + q) * V4C(w + q);
	return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* Where one network's pass keeps its values (see fb_nn_leaky_work_len). */
typedef struct lk_work {
	double *w0t;  /* its first layer's weight, masked, as [d][h_1] */
	double *g0t;  /* that weight's gradient, [d][h_1] */
	double *wt;   /* a hidden layer's weight transposed, [out][in] */
	double *g;    /* the output's gradient per row */
	double *d1;   /* back-propagation buffers, [m][width] */
	double *d2;
	double *act;  /* the activations of layers 0 .. L-2, [m][h_{l+1}] one after the other */
} lk_work;

/* Lay the work array out for m rows. */
static void work_layout(const fb_nn_leaky_net *k, size_t m, double *w, lk_work *lw)
{
	size_t h1 = k->dims[1], width = 0;

	for (size_t l = 1; l < k->L; l++)
		width = k->dims[l] > width ? k->dims[l] : width;
	lw->w0t = w;
	lw->g0t = lw->w0t + k->d * h1;
	lw->wt = lw->g0t + k->d * h1;
	lw->g = lw->wt + width * width;
	lw->d1 = lw->g + m;
	lw->d2 = lw->d1 + m * width;
	lw->act = lw->d2 + m * width;
}

/* Doubles of work fb_nn_leaky_mse needs for n rows. */
size_t fb_nn_leaky_work_len(const fb_nn_leaky_net *k, size_t n)
{
	size_t width = 0, acts = 0;

	for (size_t l = 1; l < k->L; l++) {
		width = k->dims[l] > width ? k->dims[l] : width;
		acts += k->dims[l];
	}
	return 2 * k->d * k->dims[1] + width * width + n * (1 + 2 * width + acts);
}

/* Whether the stack runs here: LeakyReLU with a slope >= 0, at least one hidden layer, each
 * of a multiple of 4 units, and one output per network. */
bool fb_nn_leaky_fits(size_t L, const size_t *dims, const fb_nn_act *act)
{
	if (act->kind != FB_NN_ACT_LEAKY_RELU || !(act->slope >= 0.0) || L < 2 || dims[L] != 1)
		return false;
	for (size_t l = 1; l < L; l++)
		if (dims[l] % 4 != 0)
			return false;
	return true;
}

/* Network j's forward pass over m rows of X: its activations in lw->act, its output's
 * gradient (out - x_j) / m in lw->g; returns its sum of squared residuals. */
LK_INLINE double net_forward(const fb_nn_leaky_net *k, size_t j, size_t m, const double *X,
                          const double *mask, const lk_work *lw)
{
	size_t d = k->d, h1 = k->dims[1], L = k->L, in;
	const double *p = k->params, *w0 = p + k->span[0].weight + j * h1 * d, *a;
	double *z = lw->act, sse = 0.0;

	for (size_t i = 0; i < d; i++)
		for (size_t u = 0; u < h1; u++)
			lw->w0t[i * h1 + u] = mask != NULL ? w0[u * d + i] * mask[i * d + j]
			                                   : w0[u * d + i];
	product(m, h1, d, X, d, 1, lw->w0t, h1, p + k->span[0].bias + j * h1, z, h1);
	leaky_mul(m * h1, k->slope, z, z);
	for (size_t l = 1; l + 1 < L; l++) {
		size_t inl = k->dims[l], out = k->dims[l + 1];

		a = z;
		z += m * inl;
		product(m, out, inl, a, inl, 1, p + k->span[l].weight + j * inl * out, out,
		        p + k->span[l].bias + j * out, z, out);
		leaky_mul(m * out, k->slope, z, z);
	}
	in = k->dims[L - 1];
	for (size_t s = 0; s < m; s++) {
		double y = p[k->span[L - 1].bias + j] +
		           dot4(in, z + s * in, p + k->span[L - 1].weight + j * in);
		double r = y - X[s * d + j];

		sse += r * r;
		lw->g[s] = r / (double)m;
	}
	return sse;
}

/* Network j's first layer's gradient from D = dL/dz_0 ([m][h_1]): its bias's, its weight's
 * (times the mask) and, with a mask, the mask's column j. */
LK_INLINE void net_first_grad(const fb_nn_leaky_net *k, size_t j, size_t m, const double *X,
                           const double *mask, const double *D, double *grad, double *dmask,
                           const lk_work *lw)
{
	size_t d = k->d, h1 = k->dims[1];
	const double *w0 = k->params + k->span[0].weight + j * h1 * d;
	double *g0 = grad + k->span[0].weight + j * h1 * d;

	col_sums(m, h1, D, grad + k->span[0].bias + j * h1);
	product(d, h1, m, X, 1, d, D, h1, NULL, lw->g0t, h1);
	for (size_t i = 0; i < d; i++) {
		double dm = 0.0;

		for (size_t u = 0; u < h1; u++) {
			double gu = lw->g0t[i * h1 + u];

			dm += gu * w0[u * d + i];
			g0[u * d + i] = mask != NULL ? gu * mask[i * d + j] : gu;
		}
		if (mask != NULL && dmask != NULL)
			dmask[i * d + j] = dm;
	}
}

/* Network j's backward pass after net_forward: its share of grad and dmask. */
LK_INLINE void net_backward(const fb_nn_leaky_net *k, size_t j, size_t m, const double *X,
                         const double *mask, double *grad, double *dmask, const lk_work *lw)
{
	size_t L = k->L, in = k->dims[L - 1], off = 0;
	const double *p = k->params, *w = p + k->span[L - 1].weight + j * in, *a;
	double *D = lw->d1, *E = lw->d2, *t, db = 0.0;

	for (size_t l = 1; l + 1 < L; l++)
		off += m * k->dims[l];
	a = lw->act + off; /* the last hidden layer's activations */
	product(1, in, m, lw->g, 0, 1, a, in, NULL, grad + k->span[L - 1].weight + j * in, in);
	for (size_t s = 0; s < m; s++) {
		v4d gs = V4_SPLAT(lw->g[s]);

		db += lw->g[s];
		for (size_t q = 0; q < in; q += 4)
			V4(D + s * in + q) = gs * V4C(w + q);
	}
	grad[k->span[L - 1].bias + j] = db;
	leaky_mul(m * in, k->slope, a, D);
	for (size_t l = L - 2; l > 0; l--) {
		size_t inl = k->dims[l], out = k->dims[l + 1];
		const double *W = p + k->span[l].weight + j * inl * out;

		a -= m * inl; /* layer l's input */
		col_sums(m, out, D, grad + k->span[l].bias + j * out);
		product(inl, out, m, a, 1, inl, D, out, NULL, grad + k->span[l].weight + j * inl * out,
		        out);
		for (size_t q = 0; q < inl; q++)
			for (size_t u = 0; u < out; u++)
				lw->wt[u * inl + q] = W[q * out + u];
		product(m, inl, out, D, out, 1, lw->wt, inl, NULL, E, inl);
		leaky_mul(m * inl, k->slope, a, E);
		t = D, D = E, E = t;
	}
	net_first_grad(k, j, m, X, mask, D, grad, dmask, lw);
}

/* Every network's pass, one after the other. */
LK_CLONES static double nets_run(const fb_nn_leaky_net *k, size_t m, const double *X,
                                 const double *mask, double *grad, double *dmask,
                                 const lk_work *lw)
{
	double sse = 0.0;

	for (size_t j = 0; j < k->d; j++) {
		sse += net_forward(k, j, m, X, mask, lw);
		if (grad != NULL)
			net_backward(k, j, m, X, mask, grad, dmask, lw);
	}
	return sse;
}

/* (1/2n) sum_sj (out[s,j] - X[s,j])^2 over n rows and, when grad is not NULL, its gradient
 * (and the mask's in dmask when both are given); work holds fb_nn_leaky_work_len(k, n). */
double fb_nn_leaky_mse(const fb_nn_leaky_net *k, size_t n, const double *X, const double *mask,
                       double *grad, double *dmask, double *work)
{
	lk_work lw;

	work_layout(k, n, work, &lw);
	return nets_run(k, n, X, mask, grad, dmask, &lw) / (2.0 * (double)n);
}
