/* Fisher-z's partial correlation of x and y given S, in plain C (no BLAS call: the bits do
 * not depend on the BLAS kernel), reusing what the previous query computed.
 *
 * With R_SS = L L^T (Cholesky, row by row), u = L^-1 R_Sx and v = L^-1 R_Sy,
 *   r = (R_xy - u.v) / sqrt((1 - u.u) (1 - v.v)),
 * the partial correlation of x and y given S (for one variable z: the recursive formula
 * (r_xy - r_xz r_yz) / sqrt((1 - r_xz^2) (1 - r_yz^2))).  The matrix over (S, x, y) is
 * positive definite exactly when every pivot of L, 1 - u.u and 1 - v.v are positive and
 * |r| < 1; the test reports it singular when a pivot squared, 1 - u.u or 1 - v.v is not
 * positive beyond its rounding (ci_pivot_singular: a duplicated column comes out singular
 * whatever BLAS kernel made R), or |r| >= 1.
 *
 * Row k of L and entry k of u and v depend on S[0..k] (and x, y) alone, and each is computed
 * by the same operations in the same order whether or not it was kept from an earlier query:
 * a query whose sorted S shares a prefix with the last one (PC tries the subsets of one
 * candidate list in lexicographic order) recomputes only the rows past the prefix, and gives
 * the same bits as one asked on its own. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Make room for a conditioning set of k variables (what was kept is forgotten when the room
 * grows); FB_ERR when out of memory. */
static int memo_reserve(ci_partial_memo *m, size_t k)
{
	size_t cap;

	if (k <= m->cap)
		return FB_OK;
	cap = ci_room_for(m->cap, k);
	ci_partial_memo_release(m);
	m->L = malloc(cap * cap * sizeof *m->L);
	m->S = malloc(cap * sizeof *m->S);
	for (size_t t = 0; t < 2; t++)
		m->w[t] = malloc(cap * sizeof *m->w[t]);
	if (m->L == NULL || m->S == NULL || m->w[0] == NULL || m->w[1] == NULL) {
		ci_partial_memo_release(m);
		return FB_ERR;
	}
	m->cap = cap;
	return FB_OK;
}

/* Free what the memo holds and make it empty. */
void ci_partial_memo_release(ci_partial_memo *m)
{
	free(m->L);
	free(m->S);
	free(m->diag);
	free(m->w[0]);
	free(m->w[1]);
	memset(m, 0, sizeof *m);
}

/* Row k of L for S[k] from rows 0..k-1 (stride cap); false when its pivot squared is not
 * positive beyond rounding (ci_pivot_singular).
 * R_S[t]S[k] is read from row S[t] (S increases, so that is the upper triangle): consecutive
 * queries move S[k] along the same rows, and the diagonal comes from the memo's copy, not
 * from a row of its own. */
static bool factor_row(ci_partial_memo *m, const ci_corr *R, size_t k)
{
	size_t sk = m->S[k];
	double *lk = m->L + k * m->cap, s;

	for (size_t t = 0; t < k; t++) {
		const double *lt = m->L + t * m->cap;

		s = ci_corr_get(R, m->S[t], sk);
		for (size_t q = 0; q < t; q++)
			s -= lk[q] * lt[q];
		lk[t] = s / lt[t];
	}
	s = m->diag[sk];
	for (size_t q = 0; q < k; q++)
		s -= lk[q] * lk[q];
	if (ci_pivot_singular(s, k, m->diag[sk]))
		return false;
	lk[k] = sqrt(s);
	return true;
}

/* Entries from..ns-1 of w = L^-1 R_Sz (entries below from kept). */
static void solve_from(ci_partial_memo *m, const ci_corr *R, size_t z, double *w, size_t from,
                       size_t ns)
{
	for (size_t k = from; k < ns; k++) {
		const double *lk = m->L + k * m->cap;
		double s = ci_corr_get(R, z, m->S[k]);

		for (size_t q = 0; q < k; q++)
			s -= lk[q] * w[q];
		w[k] = s / lk[k];
	}
}

/* How many leading entries of S the memo holds already (none when R is new to it: then its
 * diagonal is copied); FB_ERR when out of memory. */
static int memo_prefix(ci_partial_memo *m, const ci_corr *R, const size_t *S, size_t ns,
                       size_t *prefix)
{
	size_t p = 0, d = R->d;

	if (m->R != R->v || m->d != d) {
		double *diag = realloc(m->diag, (d > 0 ? d : 1) * sizeof *diag);

		if (diag == NULL)
			return FB_ERR;
		for (size_t i = 0; i < d; i++)
			diag[i] = ci_corr_get(R, i, i);
		m->diag = diag;
		m->R = R->v;
		m->d = d;
		m->rows = m->valid[0] = m->valid[1] = 0;
	}
	while (p < ns && p < m->rows && m->S[p] == S[p])
		p++;
	*prefix = p;
	return FB_OK;
}

/* The solve for z over S[0..ns) in one of the memo's two vectors (the one that holds z, else
 * the one that does not hold other), computed past what is kept. */
static const double *memo_solve(ci_partial_memo *m, const ci_corr *R, size_t z, size_t other,
                                size_t ns)
{
	size_t t = m->var[0] == z ? 0 : m->var[1] == z ? 1 : m->var[0] == other ? 1 : 0;
	size_t from = m->var[t] == z ? m->valid[t] : 0;

	solve_from(m, R, z, m->w[t], from, ns);
	m->var[t] = z;
	m->valid[t] = ns;
	return m->w[t];
}

/* Partial correlation of x and y given S (sorted, ns >= 1) into *r: FB_OK, or
 * CI_PARTIAL_SINGULAR when the matrix over (S, x, y) is not positive definite, or FB_ERR when
 * out of memory. */
int ci_partial_corr(ci_partial_memo *m, const ci_corr *R, size_t x, size_t y, const size_t *S,
                    size_t ns, double *r)
{
	size_t p;
	const double *u, *v;
	double uu = 0.0, vv = 0.0, uv = 0.0, num, den;

	if (memo_reserve(m, ns) != FB_OK || memo_prefix(m, R, S, ns, &p) != FB_OK)
		return FB_ERR;
	m->rows = p;
	for (size_t t = 0; t < 2; t++)
		m->valid[t] = m->valid[t] < p ? m->valid[t] : p;
	for (; m->rows < ns; m->rows++) {
		m->S[m->rows] = S[m->rows];
		if (!factor_row(m, R, m->rows))
			return CI_PARTIAL_SINGULAR;
	}
	u = memo_solve(m, R, x, y, ns);
	v = memo_solve(m, R, y, x, ns);
	for (size_t k = 0; k < ns; k++) {
		uu += u[k] * u[k];
		vv += v[k] * v[k];
		uv += u[k] * v[k];
	}
	num = ci_corr_get(R, x, y) - uv;
	den = (m->diag[x] - uu) * (m->diag[y] - vv);
	if (ci_pivot_singular(m->diag[x] - uu, ns, m->diag[x]) ||
	    ci_pivot_singular(m->diag[y] - vv, ns, m->diag[y]) || !(den > num * num))
		return CI_PARTIAL_SINGULAR;
	*r = num / sqrt(den);
	return FB_OK;
}
