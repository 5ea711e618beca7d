/* Fisher-z's search for separating sets of the pairs (x, y) of one vertex x, among the
 * l-subsets of its neighbours A, in PC's order (ALGORITHMS.md §6.1), with the bits of one
 * query at a time (ci-partial.c).
 *
 * PC tries the subsets of A \ {y} in lexicographic order, pair after pair.  Those are the
 * subsets of A that avoid y, and lexicographic order on the subsets of A keeps their order:
 * so the subsets of A are walked once, in order, and each is tried for every pair still
 * open that it avoids.  Every pair meets its tests in its own order and stops at the same
 * first independence; the tests of one vertex only interleave.
 *
 * Consecutive subsets share a prefix, and every number is kept for as long as the prefix it
 * depends on stays, for every variable of A and for x (the lanes, stored depth by depth):
 *   - entry k of w_z = L^-1 R_Sz (the Cholesky row of z when z joins S after S[0..k], or the
 *     solve of an end of a pair) depends on S[0..k] alone, and ci-partial.c's rows and
 *     solves compute it by the same operations in the same order;
 *   - so do the chain R_zz - w_z[0]^2 - ... (z's pivot squared) and the sums w_z.w_z and
 *     w_x.w_z over the leading entries (u.u, v.v and u.v), built one term at a time.
 * A change of the subset at position k recomputes the depths from k on, lane by lane, four
 * lanes a vector (each lane's operations and roundings are the scalar ones: the build
 * contracts no multiply-add); a subset then costs the last numerators of every lane (one
 * short dot product each) and a test the decision alone.  That decision is the one
 * fisher_independent (ci.c) takes: from r outside the band around the critical value, else
 * (or when the matrix is not positive definite) from the full test; most decisions are read,
 * with bounds on the roundings, from the last pivot squared and numerators before their
 * square root and quotients (sep_lanes_scaled), the rest from r with the same bits. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Free the search's work space and make it empty. */
void ci_sep_ws_release(ci_sep_ws *w)
{
	free(w->RA);
	free(w->W);
	free(w->P);
	free(w->VV);
	free(w->UV);
	free(w->t);
	free(w->code);
	free(w->open);
	free(w->inS);
	free(w->piv);
	free(w->comb);
	free(w->S);
	memset(w, 0, sizeof *w);
}

/* Make room for m neighbours and subsets of l; FB_ERR when out of memory (the room is then
 * empty). */
static int sep_reserve(ci_sep_ws *w, size_t m, size_t l)
{
	size_t mc, lc;

	if (m + 1 <= w->mcap && l <= w->lcap)
		return FB_OK;
	mc = ci_room_for(w->mcap, m + 1);
	lc = ci_room_for(w->lcap, l);
	ci_sep_ws_release(w);
	w->RA = malloc(mc * mc * sizeof *w->RA);
	w->W = malloc(lc * mc * sizeof *w->W);
	w->P = malloc((lc + 1) * mc * sizeof *w->P);
	w->VV = malloc((lc + 1) * mc * sizeof *w->VV);
	w->UV = malloc((lc + 1) * mc * sizeof *w->UV);
	w->t = malloc(mc * sizeof *w->t);
	w->code = malloc(mc * sizeof *w->code);
	w->open = malloc(mc * sizeof *w->open);
	w->inS = malloc(mc);
	w->piv = malloc(lc * sizeof *w->piv);
	w->comb = malloc((lc + 1) * sizeof *w->comb);
	w->S = malloc((lc + 1) * sizeof *w->S);
	if (w->RA == NULL || w->W == NULL || w->P == NULL || w->VV == NULL || w->UV == NULL ||
	    w->t == NULL || w->code == NULL || w->open == NULL || w->inS == NULL || w->piv == NULL ||
	    w->comb == NULL || w->S == NULL) {
		ci_sep_ws_release(w);
		return FB_ERR;
	}
	w->mcap = mc;
	w->lcap = lc;
	return FB_OK;
}

/* What one vertex's search works on. */
typedef struct sep_ctx {
	ci_sep_ws *w;          /* the work space */
	const size_t *A;       /* m neighbours of x, increasing (lane m stands for x) */
	size_t m, l, x;        /* neighbours, the subsets' size, the vertex */
	size_t L;              /* lanes: m + 1 rounded up to a multiple of SEP_LANES */
	bool band;             /* whether the band decides (else every test is run in full) */
	double lo, hi;         /* the band of |r| (ci_fisher_band) */
	double lo2, hi2;       /* their squares */
	size_t depths;         /* leading depths whose lanes are those of the current prefix */
	bool rows;             /* RA's rows come a subset at a time (sep_row) */
	fb_ci_stats *pst;      /* m: each pair's counters (NULL: the object's) */
} sep_ctx;

/* Lanes handled together: four doubles, one vector of the compiler's (each lane's
 * arithmetic is the scalar one, rounding for rounding). */
#define SEP_LANES 4
typedef double sep_vec __attribute__((vector_size(4 * sizeof(double)), aligned(8)));
/* Their comparisons' masks (all bits set where true). */
typedef int64_t sep_mask __attribute__((vector_size(4 * sizeof(int64_t)), aligned(8)));
/* The lane loops, compiled for AVX2 besides the baseline and chosen at load time (GCC). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SEP_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SEP_CLONES
#endif

/* a[v] -= b[v] * f over the L lanes (L a multiple of SEP_LANES), in one instruction a
 * vector where the processor has them (the same roundings either way). */
SEP_CLONES static void sep_lanes_sub(double *restrict a, const double *restrict b, double f,
                                     size_t L)
{
	for (size_t z = 0; z < L; z += SEP_LANES)
		*(sep_vec *)(a + z) -= *(const sep_vec *)(b + z) * f;
}

/* Gather R over the neighbours and x (lane m) into the L x L matrix RA (unused lanes: the
 * identity), and start every chain: R_zz, and zero sums.  The neighbours increase, so
 * their block is read along rows of the packed R.  With c->rows, only the diagonal and x's
 * row and column: the rest comes a subset at a time (sep_row). */
static void sep_gather(sep_ctx *c, const ci_corr *R)
{
	ci_sep_ws *w = c->w;
	size_t L = c->L, m = c->m;

	for (size_t i = 0; i < L; i++)
		for (size_t j = 0; j < L; j++)
			w->RA[i * L + j] = i == j;
	for (size_t i = 0; i < m; i++) {
		const double *row = R->lazy != NULL ? NULL :
		                    R->v + ci_packed_at(R->d, c->A[i], c->A[i]) - c->A[i];

		for (size_t j = i; j < (c->rows ? i + 1 : m); j++)
			w->RA[i * L + j] = w->RA[j * L + i] =
				row != NULL ? row[c->A[j]] : ci_corr_get(R, c->A[i], c->A[j]);
		w->RA[i * L + m] = w->RA[m * L + i] = ci_corr_get(R, c->A[i], c->x);
	}
	w->RA[m * L + m] = ci_corr_get(R, c->x, c->x);
	for (size_t i = 0; i < L; i++) {
		w->P[i] = w->RA[i * L + i];
		w->VV[i] = w->UV[i] = 0.0;
	}
}

/* With c->rows (subsets of one, R in memory): the row of RA of the subset {A[k]} at the
 * lanes of the open pairs (w->open, nopen), all that its tests read (a pivot is its
 * diagonal entry, a pair's numbers its entry in that row).  A pair found early then reads
 * none of the rest of its row, and a vertex with few pairs open reads few entries. */
static void sep_row(sep_ctx *c, const ci_corr *R, size_t k, size_t nopen)
{
	ci_sep_ws *w = c->w;

	for (size_t o = 0; o < nopen; o++)
		w->RA[k * c->L + w->open[o]] = ci_corr_get(R, c->A[k], c->A[w->open[o]]);
}

/* Divide the numerators w by piv, and from them the next links of the chains over the L
 * lanes: p1 = pk - w^2, v1 = vk + w^2, u1 = uk + w[m] w (as sep_lanes_sub, one instruction
 * a vector where the processor has them). */
SEP_CLONES static void
sep_lanes_chains(double *restrict w, double piv, const double *restrict pk,
                 const double *restrict vk, const double *restrict uk, double *restrict p1,
                 double *restrict v1, double *restrict u1, size_t m, size_t L)
{
	double wm;

	for (size_t z = 0; z < L; z += SEP_LANES) {
		sep_vec e = *(sep_vec *)(w + z) / piv;

		*(sep_vec *)(w + z) = e;
		*(sep_vec *)(p1 + z) = *(const sep_vec *)(pk + z) - e * e;
		*(sep_vec *)(v1 + z) = *(const sep_vec *)(vk + z) + e * e;
	}
	wm = w[m];
	for (size_t z = 0; z < L; z += SEP_LANES)
		*(sep_vec *)(u1 + z) = *(const sep_vec *)(uk + z) + wm * *(sep_vec *)(w + z);
}

/* Depth k's lanes for the current prefix: entry k of w_z for every lane z, as factor_row and
 * solve_from compute it (ci-partial.c; lanes of the prefix itself get numbers never read),
 * then the chains: R_zz minus the squares, the sum of the squares, and the sum of the
 * products with x's entries.  False when the pivot of position k is singular
 * (ci_pivot_singular, as factor_row decides). */
static bool sep_depth(sep_ctx *c, size_t k)
{
	ci_sep_ws *w = c->w;
	size_t L = c->L, sk = w->comb[k];
	double *wk = w->W + k * L, piv;
	const double *pk = w->P + k * L, *vk = w->VV + k * L, *uk = w->UV + k * L;
	double *p1 = w->P + (k + 1) * L, *v1 = w->VV + (k + 1) * L, *u1 = w->UV + (k + 1) * L;

	if (ci_pivot_singular(pk[sk], k, w->RA[sk * L + sk]))
		return false;
	piv = w->piv[k] = sqrt(pk[sk]);
	memcpy(wk, w->RA + sk * L, L * sizeof *wk);
	for (size_t q = 0; q < k; q++)
		sep_lanes_sub(wk, w->W + q * L, w->W[q * L + sk], L);
	sep_lanes_chains(wk, piv, pk, vk, uk, p1, v1, u1, c->m, L);
	return true;
}

/* What every test of the current subset shares: the depths below l - 1, the last pivot
 * squared *p, and each lane's last numerator (entry l - 1 of w_z before its quotient, as
 * solve_from computes it) in w->t; false when a pivot is singular (ci_pivot_singular). */
static bool sep_shared(sep_ctx *c, double *p)
{
	ci_sep_ws *w = c->w;
	size_t L = c->L, l = c->l, sl = w->comb[l - 1];
	double *t = w->t;

	for (; c->depths + 1 < l; c->depths++)
		if (!sep_depth(c, c->depths))
			return false;
	*p = w->P[(l - 1) * L + sl];
	if (ci_pivot_singular(*p, l - 1, w->RA[sl * L + sl]))
		return false;
	memcpy(t, w->RA + sl * L, L * sizeof *t);
	for (size_t q = 0; q + 1 < l; q++)
		sep_lanes_sub(t, w->W + q * L, w->W[q * L + sl], L);
	return true;
}

/* The last step's sums and ends of one test (the pair of x and position y). */
typedef struct sep_last {
	double p;             /* the last pivot squared */
	double s, t;          /* the last numerators of x and y */
	double uu, vv, uv;    /* w_x.w_x, w_y.w_y, w_x.w_y over the entries below l - 1 */
	double rxy, rxx, ryy; /* R_xy, R_xx, R_yy */
	double ss, al, ga;    /* x's part of sep_lanes_scaled: s^2, (R_xx - uu) p - s^2 and its bound */
	double tol;           /* ci_pivot_tol of the subset's size */
} sep_last;

/* The part of sep_lanes_scaled that x's side and the subset fix, into e. */
static void sep_scaled_x(sep_last *e)
{
	e->ss = e->s * e->s;
	e->al = (e->rxx - e->uu) * e->p - e->ss;
	e->ga = 1e-14 * ((e->rxx + e->uu) * e->p + e->ss) + e->tol * e->rxx * e->p;
}

/* The band's decision for every lane (1 below, 0 above, -1 inside or not sure) into code,
 * without the last step's square root and quotients.  With the last pivot squared p and
 * numerators s (x's, in e) and t, the exact route's ea = R_xx - u.u, eb = R_yy - v.v and
 * num = R_xy - u.v times p are, in real numbers and up to its roundings, (R_xx - uu') p - s^2,
 * (R_yy - vv') p - t^2 and (R_xy - uv') p - s t (uu', vv', uv' the sums over the other
 * entries).  Its roundings (the root of p, the quotients, products and sums: about 8 of
 * 1.1e-16 each, relative to R_xx + uu' + s^2 / p and its kin) and ours (about 4 more) stay
 * within the bounds g below, built with 1e-14 (about 45 roundings); the comparisons keep a
 * relative 1e-12 for the rest (r's own root and quotient included).  The bounds on ea p and
 * eb p also hold ci_pivot_tol(l) R_xx p and R_yy p, the margin below which the exact route
 * calls them singular.  Where the three products are clear of the band's squares, the exact
 * route is positive definite and lands on the same side.  The lanes' numbers: t, vv' (vv), uv' (uv), R_xy (rx), R_yy (diag). */
SEP_CLONES static void
sep_lanes_scaled(const sep_last *e, double lo2, double hi2, const double *restrict t,
                 const double *restrict vv, const double *restrict uv,
                 const double *restrict rx, const double *restrict diag,
                 int64_t *restrict code, size_t L)
{
	const sep_mask nosign = (sep_mask){ 0 } + INT64_MAX;
	double p = e->p, s = e->s, tol = e->tol * p;

	for (size_t z = 0; z < L; z += SEP_LANES) {
		sep_vec tz = *(const sep_vec *)(t + z), vz = *(const sep_vec *)(vv + z);
		sep_vec uz = *(const sep_vec *)(uv + z), rz = *(const sep_vec *)(rx + z);
		sep_vec dz = *(const sep_vec *)(diag + z), tt = tz * tz, st = s * tz;
		sep_vec be = (dz - vz) * p - tt, gb = 1e-14 * ((dz + vz) * p + tt) + tol * dz;
		sep_vec nu = (sep_vec)((sep_mask)((rz - uz) * p - st) & nosign);
		sep_vec gn = 1e-14 * (((sep_vec)((sep_mask)rz & nosign) +
		                       (sep_vec)((sep_mask)uz & nosign)) * p +
		                      (sep_vec)((sep_mask)st & nosign));
		sep_vec lo = (e->al - e->ga) * (be - gb), hi = (e->al + e->ga) * (be + gb);
		sep_vec nmax = (nu + gn) * (nu + gn) * (1.0 + 1e-12), dn = nu - gn;
		sep_mask ok = ((sep_vec)((sep_mask)tz & nosign) < 1e100) & (be > gb) & (lo > nmax);
		sep_mask in = ok & (nmax < lo2 * lo);
		sep_mask de = ok & (nu > gn) & (dn * dn > hi2 * hi * (1.0 + 1e-12)) & ~in;

		*(sep_mask *)(code + z) = -1 - 2 * in - de;
	}
}

/* The band's decision on r = num / sqrt(den), num and den as ci_partial_corr computes them
 * from the last step: 1 below the band, 0 above it, -1 inside it or when the matrix is not
 * positive definite.  Where r^2 = num^2 / den lies clear of lo^2 or hi^2 (by a relative
 * 1e-10, against a few roundings of 1.1e-16 each in r and in the products), r itself lies on
 * the same side, and its square root and quotient are spared. */
static int sep_exact(const sep_ctx *c, const sep_last *e)
{
	double piv = sqrt(e->p), ua = e->s / piv, ub = e->t / piv;
	double uu = e->uu + ua * ua, vv = e->vv + ub * ub, uv = e->uv + ua * ub;
	double num = e->rxy - uv, den = (e->rxx - uu) * (e->ryy - vv), r, n2 = num * num;

	if (ci_pivot_singular(e->rxx - uu, c->l, e->rxx) ||
	    ci_pivot_singular(e->ryy - vv, c->l, e->ryy) || !(den > n2))
		return -1;
	if (den > 1e-200) {
		if (n2 < c->lo2 * den * (1.0 - 1e-10))
			return 1;
		if (n2 > c->hi2 * den * (1.0 + 1e-10))
			return 0;
	}
	r = fabs(num / sqrt(den));
	return r < c->lo ? 1 : r > c->hi ? 0 : -1;
}

/* The band's decision for x and lane y given the current subset (e: what sep_shared and
 * sep_scaled_x left, the lanes' codes made): 1 or 0, or -1 when only the full test can
 * tell. */
static int sep_decide(const sep_ctx *c, size_t y, sep_last *e)
{
	const ci_sep_ws *w = c->w;
	size_t at = (c->l - 1) * c->L + y;

	if (w->code[y] >= 0)
		return (int)w->code[y];
	e->t = w->t[y];
	e->vv = w->VV[at];
	e->uv = w->UV[at];
	e->rxy = w->RA[c->m * c->L + y];
	e->ryy = w->RA[y * c->L + y];
	return sep_exact(c, e);
}

/* The lanes' codes of sep_lanes_scaled, or -1 everywhere when the subset's own numbers rule
 * it out (not sane: a pivot not positive or no band; or out of its range).  Only the lanes
 * of the pairs y[0..ny) are read: when they are few, only their vectors are coded. */
static void sep_codes(sep_ctx *c, const sep_last *e, bool sane, const size_t *y, size_t ny)
{
	ci_sep_ws *w = c->w;
	size_t L = c->L, at = (c->l - 1) * L;

	if (!(sane && e->p > 1e-100 && fabs(e->s) < 1e100 && e->al > e->ga)) {
		for (size_t z = 0; z < L; z++)
			w->code[z] = -1;
		return;
	}
	if (4 * ny * SEP_LANES >= L) {
		sep_lanes_scaled(e, c->lo2, c->hi2, w->t, w->VV + at, w->UV + at, w->RA + c->m * L,
		                 w->P, w->code, L);
		return;
	}
	for (size_t k = 0; k < ny; k++) {
		size_t z = y[k] / SEP_LANES * SEP_LANES;

		sep_lanes_scaled(e, c->lo2, c->hi2, w->t + z, w->VV + at + z, w->UV + at + z,
		                 w->RA + c->m * L + z, w->P + z, w->code + z, SEP_LANES);
	}
}

/* Take the subset's positions from ch on as new: its variables, and the depths kept no
 * further than ch. */
static void sep_changed(sep_ctx *c, size_t ch)
{
	ci_sep_ws *w = c->w;

	for (size_t k = ch; k < c->l; k++)
		w->S[k] = c->A[w->comb[k]];
	c->depths = c->depths < ch ? c->depths : ch;
}

/* Advance comb to the next subset in lexicographic order (see ci.h). */
size_t fb_ci_subset_next(size_t *comb, size_t l, size_t m)
{
	size_t k = l;

	while (k > 0 && comb[k - 1] == m - l + k - 1)
		k--;
	if (k == 0)
		return l;
	comb[k - 1]++;
	for (size_t t = k; t < l; t++)
		comb[t] = comb[t - 1] + 1;
	return k - 1;
}

/* Whether the cache would hold the test of the pair at position y given the current subset
 * as dependent: the pair's second visit, and the subset within the marks of its row. */
static bool sep_kept(const sep_ctx *c, const unsigned char *kept, size_t y)
{
	const unsigned char *ky = kept + y * c->m;

	if (c->A[y] > c->x)
		return false;
	for (size_t k = 0; k < c->l; k++)
		if (!ky[c->w->comb[k]])
			return false;
	return true;
}

/* One test of x and the pair at position y given the current subset, answered and counted
 * into st as fisher_independent answers a query that is not kept (sure: the band's decision,
 * or -1): *indep; FB_ERR when out of memory. */
static int sep_test(fb_ci *ci, sep_ctx *c, fb_ci_stats *st, size_t y, int sure, double alpha,
                    bool *indep)
{
	size_t a = c->x < c->A[y] ? c->x : c->A[y], b = c->x < c->A[y] ? c->A[y] : c->x;
	fb_ci_result res;

	if (sure >= 0) {
		st->computed++;
		*indep = sure == 1;
		return FB_OK;
	}
	ci_fisher_run(ci, a, b, c->w->S, c->l, &res);
	if (res.flags & FB_CI_INVALID)
		return FB_ERR;
	ci_count_into(st, &res);
	*indep = res.p > alpha;
	return FB_OK;
}

/* Try the current subset for every open pair it avoids; a pair whose test accepts takes the
 * subset as its set and is closed.  FB_ERR when out of memory. */
static int sep_subset(fb_ci *ci, sep_ctx *c, double alpha, const unsigned char *kept,
                      unsigned char *found, size_t *sets, size_t *nopen)
{
	ci_sep_ws *w = c->w;
	size_t keep = 0;
	sep_last e;
	bool shared = false, sane = false;

	memset(&e, 0, sizeof e);
	e.tol = ci_pivot_tol(c->l);
	for (size_t k = 0; k < c->l; k++)
		w->inS[w->comb[k]] = 1;
	for (size_t o = 0; o < *nopen; o++) {
		size_t y = w->open[o];
		fb_ci_stats *st = c->pst != NULL ? &c->pst[y] : &ci->st;
		bool indep = false;

		w->open[keep++] = y;
		if (w->inS[y])
			continue;
		st->queries++;
		if (kept != NULL && sep_kept(c, kept, y)) {
			st->hits++;
			continue;
		}
		if (!shared) {
			sane = c->band && sep_shared(c, &e.p);
			e.s = w->t[c->m];
			e.uu = w->VV[(c->l - 1) * c->L + c->m];
			e.rxx = w->RA[c->m * c->L + c->m];
			sep_scaled_x(&e);
			sep_codes(c, &e, sane, w->open + o, *nopen - o);
			shared = true;
		}
		if (sep_test(ci, c, st, y, sane ? sep_decide(c, y, &e) : -1, alpha, &indep) != FB_OK)
			return FB_ERR;
		if (indep) {
			found[y] = 1;
			memcpy(sets + y * c->l, w->S, c->l * sizeof *sets);
			keep--;
		}
	}
	for (size_t k = 0; k < c->l; k++)
		w->inS[w->comb[k]] = 0;
	*nopen = keep;
	return FB_OK;
}

/* Check a search's query; FB_ERR naming the fault. */
static int sep_check(const fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                     fb_error *err)
{
	if (ci->opt.test != FB_CI_FISHER_Z)
		return fb_fail(err, "the search for separating sets needs fisher-z, not %s",
		               fb_ci_test_name(ci->opt.test));
	if (fb_ci_released(ci))
		return fb_fail(err, "the test object was released when its run finished: it "
		               "searches no further");
	if (x >= ci->d)
		return fb_fail(err, "variable %zu is out of range (there are %zu)", x + 1, ci->d);
	if (l < 1 || l + 1 > m)
		return fb_fail(err, "subsets of %zu leave no pair among %zu neighbours", l, m);
	for (size_t k = 0; k < m; k++)
		if (A[k] >= ci->d || A[k] == x || (k > 0 && A[k] <= A[k - 1]))
			return fb_fail(err, "neighbour %zu (variable %zu) is out of range, the vertex "
			                    "itself, or out of order", k + 1, A[k] + 1);
	return FB_OK;
}

/* Whether comb (l positions) is a subset of m positions in increasing order. */
static bool sep_comb_ok(const size_t *comb, size_t l, size_t m)
{
	for (size_t k = 0; k < l; k++)
		if (comb[k] >= m || (k > 0 && comb[k] <= comb[k - 1]))
			return false;
	return true;
}

/* Whether the subsets a and b (l positions each) are equal. */
static bool sep_comb_equal(const size_t *a, const size_t *b, size_t l)
{
	return memcmp(a, b, l * sizeof *a) == 0;
}

/* Search the separating sets of the open pairs of x (see ci.h). */
int fb_ci_fisher_separate(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                          double alpha, const unsigned char *open, const unsigned char *kept,
                          unsigned char *found, size_t *sets, fb_error *err)
{
	return fb_ci_fisher_separate_range(ci, x, A, m, l, alpha, open, kept, NULL, found, sets,
	                                   err);
}

/* Search the separating sets of the open pairs of x over a range of the subsets (see ci.h). */
int fb_ci_fisher_separate_range(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                                double alpha, const unsigned char *open,
                                const unsigned char *kept, const fb_ci_sep_range *rg,
                                unsigned char *found, size_t *sets, fb_error *err)
{
	ci_corr R;
	sep_ctx c;
	size_t ch = 0, nopen = 0;
	const size_t *stop = rg != NULL ? rg->stop : NULL;

	if (sep_check(ci, x, A, m, l, err) != FB_OK)
		return FB_ERR;
	if (rg != NULL && ((rg->first != NULL && !sep_comb_ok(rg->first, l, m)) ||
	                   (stop != NULL && !sep_comb_ok(stop, l, m))))
		return fb_fail(err, "a range of subsets of %zu among %zu neighbours is out of order",
		               l, m);
	if (sep_reserve(&ci->sws, (m + SEP_LANES) / SEP_LANES * SEP_LANES, l) != FB_OK)
		return fb_fail(err, "out of memory for a search among %zu neighbours", m);
	R = ci_fisher_corr(ci);
	c = (sep_ctx){ &ci->sws, A, m, l, x, 0, false, 0.0, 0.0, 0.0, 0.0, 0, false,
	               rg != NULL ? rg->pair : NULL };
	c.L = (m + 1 + SEP_LANES - 1) / SEP_LANES * SEP_LANES;
	c.band = ci_fisher_band(ci, l, alpha, &c.lo, &c.hi);
	c.lo2 = c.lo * c.lo;
	c.hi2 = c.hi * c.hi;
	kept = ci->opt.cache ? kept : NULL;
	c.rows = l == 1 && R.lazy == NULL;
	sep_gather(&c, &R);
	for (size_t k = 0; k < m; k++) {
		found[k] = 0;
		c.w->inS[k] = 0;
		if (open[k])
			c.w->open[nopen++] = k;
	}
	for (size_t k = 0; k < l; k++)
		c.w->comb[k] = rg != NULL && rg->first != NULL ? rg->first[k] : k;
	while (ch < l && nopen > 0 && (stop == NULL || !sep_comb_equal(c.w->comb, stop, l))) {
		sep_changed(&c, ch);
		if (c.rows)
			sep_row(&c, &R, c.w->comb[0], nopen);
		if (sep_subset(ci, &c, alpha, kept, found, sets, &nopen) != FB_OK)
			return fb_fail(err, "out of memory for a test with %zu conditioning variables",
			               l);
		ch = fb_ci_subset_next(c.w->comb, l, m);
	}
	return FB_OK;
}
