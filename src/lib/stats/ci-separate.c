/* Fisher-z's search for a separating set of one pair among the l-subsets of its candidates,
 * in PC's order (ALGORITHMS.md §6.1), with the bits of one query at a time (ci-partial.c).
 *
 * The subsets come in lexicographic order, so consecutive ones share a prefix.  ci-partial.c
 * already keeps the Cholesky rows of a shared prefix; here every number is also kept for as
 * long as the prefix it depends on stays, for every candidate at once:
 *   - entry k of w_z = L^-1 R_Sz (the Cholesky row of z when z joins S after S[0..k], or the
 *     solve of x or y) depends on S[0..k] alone;
 *   - the chain diag_z - w_z[0]^2 - ... - w_z[k-1]^2 (z's pivot squared), and the sums
 *     u.u, v.v and u.v of the last step, are built in the same order as ci-partial.c builds
 *     them, one term at a time.
 * So a test whose last element changes costs the new row's last entry and the last entries
 * of u and v (three short dot products), not a fresh factor, and reads the correlation
 * matrix along one row; each number goes through the very operations ci-partial.c performs,
 * in the same order (the build contracts no multiply-add), so r has the same bits.  The
 * decision is then the one fisher_independent (ci.c) takes: from r outside the band around
 * the critical value, else (or when the matrix is not positive definite) from the full test.
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
	free(w->eid);
	free(w->row);
	free(w->ra);
	free(w->rb);
	free(w->node);
	free(w->piv);
	free(w->ua);
	free(w->ub);
	free(w->sum);
	free(w->comb);
	free(w->loose);
	memset(w, 0, sizeof *w);
}

/* Make room for m candidates and subsets of l; FB_ERR when out of memory (the room is then
 * empty). */
static int sep_reserve(ci_sep_ws *w, size_t m, size_t l)
{
	size_t mc, lc;

	if (m <= w->mcap && l <= w->lcap)
		return FB_OK;
	mc = ci_room_for(w->mcap, m);
	lc = ci_room_for(w->lcap, l);
	ci_sep_ws_release(w);
	w->W = malloc(mc * lc * sizeof *w->W);
	w->P = malloc(mc * (lc + 1) * sizeof *w->P);
	w->eid = calloc(mc * lc, sizeof *w->eid);
	w->row = malloc(mc * sizeof *w->row);
	w->ra = malloc(mc * sizeof *w->ra);
	w->rb = malloc(mc * sizeof *w->rb);
	w->node = malloc(lc * sizeof *w->node);
	w->piv = malloc(lc * sizeof *w->piv);
	w->ua = malloc(lc * sizeof *w->ua);
	w->ub = malloc(lc * sizeof *w->ub);
	w->sum = malloc(3 * (lc + 1) * sizeof *w->sum);
	w->comb = malloc((lc + 1) * sizeof *w->comb);
	w->loose = malloc((lc + 1) * sizeof *w->loose);
	if (w->W == NULL || w->P == NULL || w->eid == NULL || w->row == NULL || w->ra == NULL ||
	    w->rb == NULL || w->node == NULL || w->piv == NULL || w->ua == NULL || w->ub == NULL ||
	    w->sum == NULL || w->comb == NULL || w->loose == NULL) {
		ci_sep_ws_release(w);
		return FB_ERR;
	}
	w->mcap = mc;
	w->lcap = lc;
	return FB_OK;
}

/* What one search works on. */
typedef struct sep_ctx {
	ci_sep_ws *w;          /* the work space */
	const size_t *cand;    /* m candidates, increasing */
	size_t m, l;           /* candidates and the subsets' size */
	double rab, daa, dbb;  /* R_ab, R_aa, R_bb */
	bool band;             /* whether the band decides (else every test is run in full) */
	double lo, hi;         /* the band of |r| (ci_fisher_band) */
	double lo2, hi2;       /* their squares */
	size_t pivots;         /* leading positions whose pivot is that of the current subset */
	size_t solved;         /* leading entries of u and v (and their sums) likewise */
} sep_ctx;

/* Gather what the pair's search reads apart from rows of candidates: R_a., R_b. over the
 * candidates, each candidate's row of the packed R and its diagonal (the start of its pivot
 * chain). */
static void sep_gather(sep_ctx *c, const ci_corr *R, size_t a, size_t b)
{
	ci_sep_ws *w = c->w;
	size_t lc = w->lcap + 1;

	for (size_t i = 0; i < c->m; i++) {
		size_t z = c->cand[i];

		w->ra[i] = ci_corr_get(R, a, z);
		w->rb[i] = ci_corr_get(R, b, z);
		w->row[i] = R->v + ci_packed_at(R->d, z, z) - z;
		w->P[i * lc] = ci_corr_get(R, z, z);
	}
	c->rab = ci_corr_get(R, a, b);
	c->daa = ci_corr_get(R, a, a);
	c->dbb = ci_corr_get(R, b, b);
}

/* Entries below t of the Cholesky row of candidate position z (for z at position t of the
 * subset), each computed, if not kept for the current prefix, as factor_row computes it
 * (ci-partial.c); the pivots of positions below t must be current. */
static void sep_row(sep_ctx *c, size_t z, size_t t)
{
	ci_sep_ws *w = c->w;
	size_t lc = w->lcap, k = t, cz = c->cand[z];
	double *wz = w->W + z * lc, *pz = w->P + z * (lc + 1);
	uint64_t *ez = w->eid + z * lc;

	while (k > 0 && ez[k - 1] != w->node[k - 1])
		k--;
	for (; k < t; k++) {
		size_t sk = w->comb[k];
		const double *lt = w->W + sk * lc;
		double s = w->row[sk][cz];

		for (size_t q = 0; q < k; q++)
			s -= wz[q] * lt[q];
		wz[k] = s / w->piv[k];
		pz[k + 1] = pz[k] - wz[k] * wz[k];
		ez[k] = w->node[k];
	}
}

/* The numerators of entry k of u (for a) and v (for b), as solve_from computes them. */
static void sep_numer(const sep_ctx *c, size_t k, double *s, double *t)
{
	const ci_sep_ws *w = c->w;
	size_t sk = w->comb[k];
	const double *lk = w->W + sk * w->lcap;
	double x = w->ra[sk], y = w->rb[sk];

	for (size_t q = 0; q < k; q++) {
		x -= lk[q] * w->ua[q];
		y -= lk[q] * w->ub[q];
	}
	*s = x;
	*t = y;
}

/* Entry k of u and v from their numerators s and t, and the sums over entries 0..k, as
 * solve_from and ci_partial_corr compute them. */
static void sep_entry(sep_ctx *c, size_t k, double s, double t)
{
	ci_sep_ws *w = c->w;
	double *uu = w->sum, *vv = uu + w->lcap + 1, *uv = vv + w->lcap + 1;

	w->ua[k] = s / w->piv[k];
	w->ub[k] = t / w->piv[k];
	uu[k + 1] = uu[k] + w->ua[k] * w->ua[k];
	vv[k + 1] = vv[k] + w->ub[k] * w->ub[k];
	uv[k + 1] = uv[k] + w->ua[k] * w->ub[k];
	c->solved = k + 1;
}

/* The pivots of positions below upto: false when one is not positive. */
static bool sep_pivots(sep_ctx *c, size_t upto)
{
	ci_sep_ws *w = c->w;
	size_t lc = w->lcap;

	for (; c->pivots < upto; c->pivots++) {
		size_t t = c->pivots, z = w->comb[t];
		double p;

		sep_row(c, z, t);
		p = w->P[z * (lc + 1) + t];
		if (!(p > 0.0))
			return false;
		w->piv[t] = sqrt(p);
	}
	return true;
}

/* What the last step needs before its pivot's square root: the pivots and the entries of u
 * and v below l - 1, the last row, its pivot squared *p and the last numerators *s and *t;
 * false when a pivot is not positive. */
static bool sep_last(sep_ctx *c, double *p, double *s, double *t)
{
	ci_sep_ws *w = c->w;
	size_t l = c->l, z = w->comb[l - 1];

	if (!sep_pivots(c, l - 1))
		return false;
	for (size_t k = c->solved; k + 1 < l; k++) {
		double x, y;

		sep_numer(c, k, &x, &y);
		sep_entry(c, k, x, y);
	}
	sep_row(c, z, l - 1);
	*p = w->P[z * (w->lcap + 1) + l - 1];
	if (!(*p > 0.0))
		return false;
	sep_numer(c, l - 1, s, t);
	return true;
}

/* The band's decision (1 below, 0 above, -1 inside or not sure) without the last step's
 * square root and quotients.  With the last pivot squared p and numerators s, t, the exact
 * route's ea = R_aa - u.u, eb = R_bb - v.v and num = R_ab - u.v times p are, in real numbers
 * and up to its roundings, (R_aa - uu') p - s^2, (R_bb - vv') p - t^2 and (R_ab - uv') p - s t
 * (uu', vv', uv' the sums over the other entries).  Its roundings (the root of p, the
 * quotients, products and sums: about 8 of 1.1e-16 each, relative to R_aa + uu' + s^2 / p
 * and its kin) and ours (about 4 more) stay within the bounds g below, built with 1e-14
 * (about 45 roundings); the comparisons keep a relative 1e-12 for the rest (r's own root and
 * quotient included).  Where the three products are clear of the band's squares, the exact
 * route is positive definite and lands on the same side. */
static int sep_scaled(const sep_ctx *c, double p, double s, double t)
{
	const ci_sep_ws *w = c->w;
	size_t l = c->l, lc = w->lcap;
	const double *uu = w->sum + l - 1, *vv = uu + lc + 1, *uv = vv + lc + 1;
	double ss = s * s, tt = t * t, st = s * t;
	double al = (c->daa - *uu) * p - ss, be = (c->dbb - *vv) * p - tt;
	double nu = fabs((c->rab - *uv) * p - st);
	double ga = 1e-14 * ((c->daa + *uu) * p + ss), gb = 1e-14 * ((c->dbb + *vv) * p + tt);
	double gn = 1e-14 * ((fabs(c->rab) + fabs(*uv)) * p + fabs(st));
	double lo = (al - ga) * (be - gb), hi = (al + ga) * (be + gb);
	double nmax = (nu + gn) * (nu + gn) * (1.0 + 1e-12);

	if (!(p > 1e-100 && fabs(s) < 1e100 && fabs(t) < 1e100 && al > ga && be > gb &&
	      lo > nmax))
		return -1;
	if (nmax < c->lo2 * lo)
		return 1;
	if (nu > gn && (nu - gn) * (nu - gn) > c->hi2 * hi * (1.0 + 1e-12))
		return 0;
	return -1;
}

/* The partial correlation of a and b given the current subset as r = num / sqrt(den) (the
 * two as ci_partial_corr computes them), from what sep_last left (p, s, t): FB_OK, or
 * CI_PARTIAL_SINGULAR when the matrix over (S, a, b) is not positive definite. */
static int sep_partial(sep_ctx *c, double p, double s, double t, double *num, double *den)
{
	ci_sep_ws *w = c->w;
	size_t lc = w->lcap, l = c->l;
	const double *uu = w->sum, *vv = uu + lc + 1, *uv = vv + lc + 1;

	w->piv[l - 1] = sqrt(p);
	c->pivots = l;
	sep_entry(c, l - 1, s, t);
	*num = c->rab - uv[l];
	*den = (c->daa - uu[l]) * (c->dbb - vv[l]);
	if (!(c->daa - uu[l] > 0.0 && c->dbb - vv[l] > 0.0 && *den > *num * *num))
		return CI_PARTIAL_SINGULAR;
	return FB_OK;
}

/* The band's decision on r = num / sqrt(den): 1 below it, 0 above it, -1 inside it.  Where
 * r^2 = num^2 / den lies clear of lo^2 or hi^2 (by a relative 1e-10, against a few roundings
 * of 1.1e-16 each in r and in the products), r itself lies on the same side, and its square
 * root and quotient are spared. */
static int sep_band(const sep_ctx *c, double num, double den)
{
	double r, n2 = num * num;

	if (den > 1e-200) {
		if (n2 < c->lo2 * den * (1.0 - 1e-10))
			return 1;
		if (n2 > c->hi2 * den * (1.0 + 1e-10))
			return 0;
	}
	r = fabs(num / sqrt(den));
	return r < c->lo ? 1 : r > c->hi ? 0 : -1;
}

/* The band's decision for the current subset: 1 or 0, or -1 when only the full test can
 * tell (inside the band, or not positive definite). */
static int sep_decide(sep_ctx *c)
{
	double p, s, t, num, den;
	int sure;

	if (!sep_last(c, &p, &s, &t))
		return -1;
	if ((sure = sep_scaled(c, p, s, t)) >= 0)
		return sure;
	if (sep_partial(c, p, s, t, &num, &den) != FB_OK)
		return -1;
	return sep_band(c, num, den);
}

/* Take the subset's positions from ch on as new: new prefix numbers, the count of unmarked
 * candidates, and what is kept no further than ch. */
static void sep_changed(sep_ctx *c, size_t ch, const unsigned char *kept)
{
	ci_sep_ws *w = c->w;

	for (size_t k = ch; k < c->l; k++) {
		w->node[k] = ++w->next;
		w->loose[k + 1] = w->loose[k] + (kept != NULL && !kept[w->comb[k]]);
	}
	c->pivots = c->pivots < ch ? c->pivots : ch;
	c->solved = c->solved < ch ? c->solved : ch;
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

/* One test of a < b given the current subset (its variables in S), answered and counted as
 * fisher_independent answers a query that is not kept: *indep; FB_ERR when out of memory. */
static int sep_test(fb_ci *ci, sep_ctx *c, size_t a, size_t b, const size_t *S, double alpha,
                    bool *indep)
{
	fb_ci_result res;
	int sure;

	if (c->band && (sure = sep_decide(c)) >= 0) {
		ci->st.computed++;
		*indep = sure == 1;
		return FB_OK;
	}
	ci_fisher_run(ci, a, b, S, c->l, &res);
	if (res.flags & FB_CI_INVALID)
		return FB_ERR;
	ci_count(ci, &res);
	*indep = res.p > alpha;
	return FB_OK;
}

/* Check a search's query; FB_ERR naming the fault. */
static int sep_check(const fb_ci *ci, size_t x, size_t y, const size_t *cand, size_t m,
                     size_t l, fb_error *err)
{
	if (ci->opt.test != FB_CI_FISHER_Z)
		return fb_fail(err, "the search for a separating set needs fisher-z, not %s",
		               fb_ci_test_name(ci->opt.test));
	if (x >= ci->d || y >= ci->d || x == y)
		return fb_fail(err, "the pair (%zu, %zu) is not two of the %zu variables", x + 1,
		               y + 1, ci->d);
	if (l < 1 || l > m)
		return fb_fail(err, "subsets of %zu cannot be taken from %zu candidates", l, m);
	for (size_t k = 0; k < m; k++)
		if (cand[k] >= ci->d || cand[k] == x || cand[k] == y ||
		    (k > 0 && cand[k] <= cand[k - 1]))
			return fb_fail(err, "candidate %zu (variable %zu) is out of range, tested, or "
			                    "out of order", k + 1, cand[k] + 1);
	return FB_OK;
}

/* Search the l-subsets of cand for the first one that separates x and y (see ci.h). */
int fb_ci_fisher_separate(fb_ci *ci, size_t x, size_t y, const size_t *cand, size_t m,
                          size_t l, double alpha, const unsigned char *kept, size_t *S,
                          bool *found, fb_error *err)
{
	size_t a = x < y ? x : y, b = x < y ? y : x, ch = 0;
	ci_corr R;
	sep_ctx c;

	*found = false;
	if (sep_check(ci, x, y, cand, m, l, err) != FB_OK)
		return FB_ERR;
	if (sep_reserve(&ci->sws, m, l) != FB_OK)
		return fb_fail(err, "out of memory for a search among %zu candidates", m);
	R = ci_fisher_corr(ci);
	c = (sep_ctx){ &ci->sws, cand, m, l, 0.0, 0.0, 0.0, false, 0.0, 0.0, 0.0, 0.0, 0, 0 };
	c.band = ci_fisher_band(ci, l, alpha, &c.lo, &c.hi);
	c.lo2 = c.lo * c.lo;
	c.hi2 = c.hi * c.hi;
	kept = ci->opt.cache ? kept : NULL;
	sep_gather(&c, &R, a, b);
	c.w->sum[0] = c.w->sum[c.w->lcap + 1] = c.w->sum[2 * (c.w->lcap + 1)] = 0.0;
	c.w->loose[0] = 0;
	for (size_t k = 0; k < l; k++)
		c.w->comb[k] = k;
	while (ch < l) {
		sep_changed(&c, ch, kept);
		for (size_t k = ch; k < l; k++)
			S[k] = cand[c.w->comb[k]];
		ci->st.queries++;
		if (kept != NULL && c.w->loose[l] == 0) {
			ci->st.hits++;
		} else {
			if (sep_test(ci, &c, a, b, S, alpha, found) != FB_OK)
				return fb_fail(err, "out of memory for a test with %zu conditioning "
				                    "variables", l);
			if (*found)
				return FB_OK;
		}
		ch = fb_ci_subset_next(c.w->comb, l, m);
	}
	return FB_OK;
}
