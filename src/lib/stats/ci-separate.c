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
 * depends on stays, for every variable of A and for x:
 *   - entry k of w_z = L^-1 R_Sz (the Cholesky row of z when z joins S after S[0..k], or the
 *     solve of an end of a pair) depends on S[0..k] alone, and ci-partial.c's rows and
 *     solves compute it by the same operations in the same order;
 *   - so do the chain R_zz - w_z[0]^2 - ... (z's pivot squared) and the sums w_z.w_z and
 *     w_x.w_z over the leading entries (u.u, v.v and u.v), built one term at a time.
 * A test then costs the last numerator of its pair's end (one short dot product), the
 * subset's own numbers being shared by all the pairs it is tried for.  Its decision is the
 * one fisher_independent (ci.c) takes: from r outside the band around the critical value,
 * else (or when the matrix is not positive definite) from the full test; most decisions are
 * read, with bounds on the roundings, from the last pivot squared and numerators before
 * their square root and quotients (sep_scaled), the rest from r with the same bits.
 *
 * Each entry carries the number of the prefix it was computed for (numbers are never used
 * twice, so a stale entry never matches). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Free the search's work space and make it empty. */
void ci_sep_ws_release(ci_sep_ws *w)
{
	free(w->W);
	free(w->P);
	free(w->VV);
	free(w->UV);
	free(w->eid);
	free(w->row);
	free(w->rx);
	free(w->open);
	free(w->inS);
	free(w->node);
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
	w->W = malloc(mc * lc * sizeof *w->W);
	w->P = malloc(mc * (lc + 1) * sizeof *w->P);
	w->VV = malloc(mc * (lc + 1) * sizeof *w->VV);
	w->UV = malloc(mc * (lc + 1) * sizeof *w->UV);
	w->eid = calloc(mc * lc, sizeof *w->eid);
	w->row = malloc(mc * sizeof *w->row);
	w->rx = malloc(mc * sizeof *w->rx);
	w->open = malloc(mc * sizeof *w->open);
	w->inS = malloc(mc);
	w->node = malloc(lc * sizeof *w->node);
	w->piv = malloc(lc * sizeof *w->piv);
	w->comb = malloc((lc + 1) * sizeof *w->comb);
	w->S = malloc((lc + 1) * sizeof *w->S);
	if (w->W == NULL || w->P == NULL || w->VV == NULL || w->UV == NULL || w->eid == NULL ||
	    w->row == NULL || w->rx == NULL || w->open == NULL || w->inS == NULL ||
	    w->node == NULL || w->piv == NULL || w->comb == NULL || w->S == NULL) {
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
	const size_t *A;       /* m neighbours of x, increasing (position m stands for x) */
	size_t m, l, x;        /* neighbours, the subsets' size, the vertex */
	size_t lc;             /* the work space's depth room (strides) */
	bool band;             /* whether the band decides (else every test is run in full) */
	double lo, hi;         /* the band of |r| (ci_fisher_band) */
	double lo2, hi2;       /* their squares */
	size_t pivots;         /* leading positions whose pivot is that of the current subset */
} sep_ctx;

/* R between the variables at positions i and j (j may be m, for x). */
static inline double sep_r(const sep_ctx *c, size_t i, size_t j)
{
	const ci_sep_ws *w = c->w;

	if (j == c->m)
		return w->rx[i];
	return i < j ? w->row[i][c->A[j]] : w->row[j][c->A[i]];
}

/* Gather what the search reads apart from rows of neighbours: R_x. over them, each one's row
 * of the packed R, and the starts of every chain (R_zz, and zero sums). */
static void sep_gather(sep_ctx *c, const ci_corr *R)
{
	ci_sep_ws *w = c->w;
	size_t lc = c->lc + 1;

	for (size_t i = 0; i <= c->m; i++) {
		size_t z = i < c->m ? c->A[i] : c->x;

		if (i < c->m) {
			w->rx[i] = ci_corr_get(R, c->x, z);
			w->row[i] = R->v + ci_packed_at(R->d, z, z) - z;
		}
		w->P[i * lc] = ci_corr_get(R, z, z);
		w->VV[i * lc] = w->UV[i * lc] = 0.0;
	}
}

/* Entries below t of w_z for the variable at position z (m: x), each computed, if not kept
 * for the current prefix, as factor_row and solve_from compute it (ci-partial.c), with its
 * chains; the pivots below t must be current, and for z < m so must x's entries. */
static void sep_row(sep_ctx *c, size_t z, size_t t)
{
	ci_sep_ws *w = c->w;
	size_t lc = c->lc, k = t;
	double *wz = w->W + z * lc, *pz = w->P + z * (lc + 1);
	double *vz = w->VV + z * (lc + 1), *uz = w->UV + z * (lc + 1);
	const double *wx = w->W + c->m * lc;
	uint64_t *ez = w->eid + z * lc;

	while (k > 0 && ez[k - 1] != w->node[k - 1])
		k--;
	for (; k < t; k++) {
		size_t sk = w->comb[k];
		const double *lt = w->W + sk * lc;
		double s = sep_r(c, sk, z);

		for (size_t q = 0; q < k; q++)
			s -= wz[q] * lt[q];
		wz[k] = s / w->piv[k];
		pz[k + 1] = pz[k] - wz[k] * wz[k];
		vz[k + 1] = vz[k] + wz[k] * wz[k];
		uz[k + 1] = uz[k] + wx[k] * wz[k];
		ez[k] = w->node[k];
	}
}

/* The pivots of positions below upto (and x's entries as far): false when one is not
 * positive. */
static bool sep_pivots(sep_ctx *c, size_t upto)
{
	ci_sep_ws *w = c->w;

	for (; c->pivots < upto; c->pivots++) {
		size_t t = c->pivots, z = w->comb[t];
		double p;

		sep_row(c, c->m, t);
		sep_row(c, z, t);
		p = w->P[z * (c->lc + 1) + t];
		if (!(p > 0.0))
			return false;
		w->piv[t] = sqrt(p);
	}
	return true;
}

/* The last numerator of w_z (z at position z, m: x): entry l - 1 before its quotient, as
 * solve_from computes it; the last row's entries and z's below l - 1 must be current. */
static double sep_numer(const sep_ctx *c, size_t z)
{
	const ci_sep_ws *w = c->w;
	size_t l = c->l, sl = w->comb[l - 1];
	const double *lk = w->W + sl * c->lc, *wz = w->W + z * c->lc;
	double s = sep_r(c, sl, z);

	for (size_t q = 0; q + 1 < l; q++)
		s -= lk[q] * wz[q];
	return s;
}

/* What every test of the current subset shares: the pivots below l - 1, the last row and
 * its pivot squared *p, x's entries below l - 1 and its last numerator *sx; false when a
 * pivot is not positive. */
static bool sep_shared(sep_ctx *c, double *p, double *sx)
{
	ci_sep_ws *w = c->w;
	size_t l = c->l, z = w->comb[l - 1];

	if (!sep_pivots(c, l - 1))
		return false;
	sep_row(c, c->m, l - 1);
	sep_row(c, z, l - 1);
	*p = w->P[z * (c->lc + 1) + l - 1];
	if (!(*p > 0.0))
		return false;
	*sx = sep_numer(c, c->m);
	return true;
}

/* The last step's sums and ends of one test (the pair of x and position y). */
typedef struct sep_last {
	double p;             /* the last pivot squared */
	double s, t;          /* the last numerators of x and y */
	double uu, vv, uv;    /* w_x.w_x, w_y.w_y, w_x.w_y over the entries below l - 1 */
	double rxy, rxx, ryy; /* R_xy, R_xx, R_yy */
} sep_last;

/* The band's decision (1 below, 0 above, -1 inside or not sure) without the last step's
 * square root and quotients.  With the last pivot squared p and numerators s, t, the exact
 * route's ea = R_xx - u.u, eb = R_yy - v.v and num = R_xy - u.v times p are, in real numbers
 * and up to its roundings, (R_xx - uu') p - s^2, (R_yy - vv') p - t^2 and (R_xy - uv') p - s t
 * (uu', vv', uv' the sums over the other entries).  Its roundings (the root of p, the
 * quotients, products and sums: about 8 of 1.1e-16 each, relative to R_xx + uu' + s^2 / p
 * and its kin) and ours (about 4 more) stay within the bounds g below, built with 1e-14
 * (about 45 roundings); the comparisons keep a relative 1e-12 for the rest (r's own root and
 * quotient included).  Where the three products are clear of the band's squares, the exact
 * route is positive definite and lands on the same side. */
static int sep_scaled(const sep_ctx *c, const sep_last *e)
{
	double p = e->p, ss = e->s * e->s, tt = e->t * e->t, st = e->s * e->t;
	double al = (e->rxx - e->uu) * p - ss, be = (e->ryy - e->vv) * p - tt;
	double nu = fabs((e->rxy - e->uv) * p - st);
	double ga = 1e-14 * ((e->rxx + e->uu) * p + ss), gb = 1e-14 * ((e->ryy + e->vv) * p + tt);
	double gn = 1e-14 * ((fabs(e->rxy) + fabs(e->uv)) * p + fabs(st));
	double lo = (al - ga) * (be - gb), hi = (al + ga) * (be + gb);
	double nmax = (nu + gn) * (nu + gn) * (1.0 + 1e-12);

	if (!(p > 1e-100 && fabs(e->s) < 1e100 && fabs(e->t) < 1e100 && al > ga && be > gb &&
	      lo > nmax))
		return -1;
	if (nmax < c->lo2 * lo)
		return 1;
	if (nu > gn && (nu - gn) * (nu - gn) > c->hi2 * hi * (1.0 + 1e-12))
		return 0;
	return -1;
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

	if (!(e->rxx - uu > 0.0 && e->ryy - vv > 0.0 && den > n2))
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

/* The band's decision for x and position y given the current subset (sx, p: sep_shared):
 * 1 or 0, or -1 when only the full test can tell. */
static int sep_decide(sep_ctx *c, size_t y, double p, double sx)
{
	ci_sep_ws *w = c->w;
	size_t l = c->l, lc = c->lc + 1;
	sep_last e;
	int sure;

	sep_row(c, y, l - 1);
	e = (sep_last){ p, sx, sep_numer(c, y), w->VV[c->m * lc + l - 1], w->VV[y * lc + l - 1],
	                w->UV[y * lc + l - 1], w->rx[y], w->P[c->m * lc], w->P[y * lc] };
	if ((sure = sep_scaled(c, &e)) >= 0)
		return sure;
	return sep_exact(c, &e);
}

/* Take the subset's positions from ch on as new: new prefix numbers, its variables, and
 * what is kept no further than ch. */
static void sep_changed(sep_ctx *c, size_t ch)
{
	ci_sep_ws *w = c->w;

	for (size_t k = ch; k < c->l; k++) {
		w->node[k] = ++w->next;
		w->S[k] = c->A[w->comb[k]];
	}
	c->pivots = c->pivots < ch ? c->pivots : ch;
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
 * as fisher_independent answers a query that is not kept (sure: the band's decision, or -1):
 * *indep; FB_ERR when out of memory. */
static int sep_test(fb_ci *ci, sep_ctx *c, size_t y, int sure, double alpha, bool *indep)
{
	size_t a = c->x < c->A[y] ? c->x : c->A[y], b = c->x < c->A[y] ? c->A[y] : c->x;
	fb_ci_result res;

	if (sure >= 0) {
		ci->st.computed++;
		*indep = sure == 1;
		return FB_OK;
	}
	ci_fisher_run(ci, a, b, c->w->S, c->l, &res);
	if (res.flags & FB_CI_INVALID)
		return FB_ERR;
	ci_count(ci, &res);
	*indep = res.p > alpha;
	return FB_OK;
}

/* Try the current subset for every open pair it avoids; a pair whose test accepts takes the
 * subset as its set and is closed.  FB_ERR when out of memory. */
static int sep_subset(fb_ci *ci, sep_ctx *c, double alpha, const unsigned char *kept,
                      unsigned char *found, size_t *sets, size_t *nopen)
{
	ci_sep_ws *w = c->w;
	double p = 0.0, sx = 0.0;
	bool shared = false, sane = false;
	size_t keep = 0;

	for (size_t k = 0; k < c->l; k++)
		w->inS[w->comb[k]] = 1;
	for (size_t o = 0; o < *nopen; o++) {
		size_t y = w->open[o];
		bool indep = false;

		w->open[keep++] = y;
		if (w->inS[y])
			continue;
		ci->st.queries++;
		if (kept != NULL && sep_kept(c, kept, y)) {
			ci->st.hits++;
			continue;
		}
		if (!shared) {
			sane = c->band && sep_shared(c, &p, &sx);
			shared = true;
		}
		if (sep_test(ci, c, y, sane ? sep_decide(c, y, p, sx) : -1, alpha, &indep) != FB_OK)
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

/* Search the separating sets of the open pairs of x (see ci.h). */
int fb_ci_fisher_separate(fb_ci *ci, size_t x, const size_t *A, size_t m, size_t l,
                          double alpha, const unsigned char *open, const unsigned char *kept,
                          unsigned char *found, size_t *sets, fb_error *err)
{
	ci_corr R;
	sep_ctx c;
	size_t ch = 0, nopen = 0;

	if (sep_check(ci, x, A, m, l, err) != FB_OK)
		return FB_ERR;
	if (sep_reserve(&ci->sws, m, l) != FB_OK)
		return fb_fail(err, "out of memory for a search among %zu neighbours", m);
	R = ci_fisher_corr(ci);
	c = (sep_ctx){ &ci->sws, A, m, l, x, ci->sws.lcap, false, 0.0, 0.0, 0.0, 0.0, 0 };
	c.band = ci_fisher_band(ci, l, alpha, &c.lo, &c.hi);
	c.lo2 = c.lo * c.lo;
	c.hi2 = c.hi * c.hi;
	kept = ci->opt.cache ? kept : NULL;
	sep_gather(&c, &R);
	for (size_t k = 0; k < m; k++) {
		found[k] = 0;
		c.w->inS[k] = 0;
		if (open[k])
			c.w->open[nopen++] = k;
	}
	for (size_t k = 0; k < l; k++)
		c.w->comb[k] = k;
	while (ch < l && nopen > 0) {
		sep_changed(&c, ch);
		if (sep_subset(ci, &c, alpha, kept, found, sets, &nopen) != FB_OK)
			return fb_fail(err, "out of memory for a test with %zu conditioning variables",
			               l);
		ch = fb_ci_subset_next(c.w->comb, l, m);
	}
	return FB_OK;
}
