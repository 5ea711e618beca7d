/* Plain L-BFGS under scipy's stopping rules, written out here rather than called from
 * liblbfgs: the iteration of liblbfgs 1.10's lbfgs() with its More-Thuente line search, as
 * fb_owlqn runs it with l1 = 0 and scipy_stop = 1 (memory m, the line search's constants
 * ftol 1e-3, gtol 0.9, xtol 1e-16 and at most 20 evaluations, steps in [1e-20, 1e20]), the
 * same steps in the same order.  What differs is the inner products: liblbfgs sums each one
 * from the first entry to the last, one addition waiting for the one before, which costs
 * about four cycles an entry; here (FB_SUMS_LANES) each is summed in 16 interleaved
 * partial sums, entry i into sum i mod 16, added in a fixed tree, which the processor runs
 * several at a time.  Passes over the same vectors are fused, each value still formed by
 * the same operations: an update of the direction and the next inner product of the
 * two-loop recursion; the newest pair's store and the direction's start, d = -g; the first
 * loop's last update and the scaling by y's / y'y; the last update and the next line
 * search's initial slope; a search's first step and the copy of its start; a trial's slope
 * and the gradient's norm.  With FB_SUMS_SEQUENTIAL the sums are
 * liblbfgs's and so are the iterates, to the last bit over the first 20 points of every
 * test problem and over whole runs on most of them (tests/unit/test-lbfgs-scipy); Debian
 * builds liblbfgs with -ffast-math, which lets its compiler re-associate a few scalar
 * expressions, so a last bit may differ later in a run.  With FB_SUMS_LANES an inner product
 * of n terms moves by at most about n eps times the sum of their sizes. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lbfgs.h>

#include "fedbn/optim.h"

/* The lanes' loops are compiled twice, the copy for processors with AVX2 chosen at run
 * time: the same operations on the same lanes (no fused multiply-add, nothing
 * re-associated), so the same bits either way. */
#define LBS_CLONES __attribute__((target_clones("avx2", "default")))

/* The line search's constants (liblbfgs's defaults and fb_owlqn's scipy settings). */
#define LS_FTOL 1e-3
#define LS_GTOL 0.9
#define LS_XTOL 1e-16
#define LS_MAX 20
#define LS_MIN_STEP 1e-20
#define LS_MAX_STEP 1e20

/* The codes fb_owlqn's progress callback stops with: the evaluation limit, and the
 * gradient test (reported as LBFGS_SUCCESS). */
#define LBS_EVAL_LIMIT 4242
#define LBS_PGTOL 4243

/* Where the best point is: nowhere yet, in x (the point just evaluated, not yet moved
 * from), in xp (x copied there and x moved on), in best_x.  It is copied to best_x only
 * when the array holding it is about to be overwritten, which an accepted step, better than
 * the point before, seldom leaves to happen. */
enum { LBS_BEST_NONE, LBS_BEST_X, LBS_BEST_XP, LBS_BEST_KEPT };

/* One run's state. */
typedef struct lbs_run {
	size_t n, m;          /* variables and stored pairs */
	int lanes;            /* 1: inner products in 16 partial sums */
	fb_objective f;       /* the objective */
	void *ctx;            /* its context */
	double *xp, *g, *gp;  /* the previous point, the gradient, the previous gradient */
	double *d;            /* the direction */
	double *s, *y;        /* m x n stored pairs */
	double *alpha, *ys;   /* m: the recursion's coefficients and y's */
	double *x;            /* the iterate (the caller's array) */
	double *best_x;       /* the evaluated point with the lowest finite f, when kept here */
	int best_at;          /* where that point's bits are now (LBS_BEST_*) */
	double best_f;        /* f there */
	size_t evals;         /* evaluations so far */
	size_t max_eval;      /* stop after this many (checked between iterations) */
	double ftol, gtol;    /* scipy's two tolerances */
	double f_prev;        /* f at the previous iterate */
	double dg;            /* g'd of the new direction, formed with it (dg_known) */
	int dg_known;         /* 1: dg is the next line search's initial slope */
	double gg;            /* g'g at the line search's last trial, formed with g'd */
} lbs_run;

/* liblbfgs's max2 and min2 (the first argument on a tie or a NaN second). */
static double lbs_max(double a, double b)
{
	return a >= b ? a : b;
}

/* As lbs_max, the smaller. */
static double lbs_min(double a, double b)
{
	return a <= b ? a : b;
}

/* Four doubles (GCC's vector extension: each lane its own IEEE operations, whatever the
 * processor; AVX2 does four at once, SSE2 two, plain code one). */
typedef double lbs_v4 __attribute__((vector_size(32)));

/* The 16 partial sums of the lanes' inner products, entry i into lane i mod 16. */
typedef struct lbs_acc {
	lbs_v4 q[4];
} lbs_acc;

/* v = the four doubles at p (any alignment); a macro, as a function returning a vector
 * would change the calling convention between the two compiled copies. */
#define LBS_LOAD(v, p) memcpy(&(v), (p), sizeof(v))

/* The four doubles v stored at p (any alignment). */
#define LBS_STORE(p, v) memcpy((p), &(v), sizeof(v))

/* v0..v3 = the 16 doubles at p, and the reverse. */
#define LBS_LOAD16(v0, v1, v2, v3, p)                                                       \
	(LBS_LOAD(v0, (p)), LBS_LOAD(v1, (p) + 4), LBS_LOAD(v2, (p) + 8), LBS_LOAD(v3, (p) + 12))
#define LBS_STORE16(p, v0, v1, v2, v3)                                                      \
	(LBS_STORE((p), v0), LBS_STORE((p) + 4, v1), LBS_STORE((p) + 8, v2),                 \
	 LBS_STORE((p) + 12, v3))

/* The partial sums a0..a3 plus x0..x3 times y0..y3, lane by lane. */
#define LBS_ACC16(x0, x1, x2, x3, y0, y1, y2, y3)                                           \
	(a0 += (x0) * (y0), a1 += (x1) * (y1), a2 += (x2) * (y2), a3 += (x3) * (y3))

/* The main loops keep their 16 partial sums in four named vectors a0..a3 (lanes 0-3, ...,
 * 12-15), which the compiler holds in registers: summed into a struct's array indexed by a
 * loop counter, each partial sum went through memory at every step, and the store and reload
 * between two additions to it cost more than the rest of the step.  The same additions in
 * the same order, so the same bits. */
#define LBS_ACC(a0, a1, a2, a3) ((lbs_acc){ { (a0), (a1), (a2), (a3) } })

/* The 16 partial sums added in a fixed tree. */
static inline double lbs_acc_sum(const lbs_acc *a)
{
	lbs_v4 t = (a->q[0] + a->q[1]) + (a->q[2] + a->q[3]);

	return (t[0] + t[1]) + (t[2] + t[3]);
}

/* Entries from..n of a b into their lanes, one at a time (fewer than 16). */
static inline void lbs_acc_tail(lbs_acc *acc, const double *a, const double *b, size_t from,
                                size_t n)
{
	for (size_t i = from; i < n; i++)
		acc->q[(i % 16) / 4][i % 4] += a[i] * b[i];
}

/* The inner product in 16 interleaved partial sums (lbs_acc). */
LBS_CLONES static double lbs_dot_lanes(const double *a, const double *b, size_t n)
{
	lbs_v4 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
	lbs_acc acc;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		lbs_v4 x0, x1, x2, x3, y0, y1, y2, y3;

		LBS_LOAD16(x0, x1, x2, x3, a + i);
		LBS_LOAD16(y0, y1, y2, y3, b + i);
		LBS_ACC16(x0, x1, x2, x3, y0, y1, y2, y3);
	}
	acc = LBS_ACC(a0, a1, a2, a3);
	lbs_acc_tail(&acc, a, b, i, n);
	return lbs_acc_sum(&acc);
}

/* sum a[i] b[i]: in order (sequential) or in 16 interleaved partial sums. */
static double lbs_dot(const double *a, const double *b, size_t n, int lanes)
{
	double s0 = 0.0;

	if (lanes)
		return lbs_dot_lanes(a, b, n);
	for (size_t i = 0; i < n; i++)
		s0 += a[i] * b[i];
	return s0;
}

/* lbs_axpy_dot's lanes: d = (d + c y) e and s'd in 16 partial sums, in one pass. */
LBS_CLONES static double lbs_axpy_dot_lanes(double *d, const double *y, double c, double e,
                                            const double *s, size_t n)
{
	lbs_v4 a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
	lbs_v4 cv = { c, c, c, c }, ev = { e, e, e, e };
	lbs_acc acc;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		lbs_v4 v0, v1, v2, v3, y0, y1, y2, y3, s0, s1, s2, s3;

		LBS_LOAD16(v0, v1, v2, v3, d + i);
		LBS_LOAD16(y0, y1, y2, y3, y + i);
		LBS_LOAD16(s0, s1, s2, s3, s + i);
		v0 += cv * y0, v1 += cv * y1, v2 += cv * y2, v3 += cv * y3;
		v0 *= ev, v1 *= ev, v2 *= ev, v3 *= ev;
		LBS_STORE16(d + i, v0, v1, v2, v3);
		LBS_ACC16(s0, s1, s2, s3, v0, v1, v2, v3);
	}
	acc = LBS_ACC(a0, a1, a2, a3);
	for (size_t k = i; k < n; k++) {
		d[k] += c * y[k];
		d[k] = d[k] * e;
	}
	lbs_acc_tail(&acc, s, d, i, n);
	return lbs_acc_sum(&acc);
}

/* out = a + c b, entry by entry (out may be a), and keep = a first unless keep is NULL: four
 * at a time, the same operations on each entry as one at a time. */
LBS_CLONES static void lbs_axpby_lanes(double *out, const double *a, double c, const double *b,
                                       double *keep, size_t n)
{
	lbs_v4 cv = { c, c, c, c };
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		lbs_v4 va, vb;

		LBS_LOAD(va, a + i);
		LBS_LOAD(vb, b + i);
		if (keep != NULL)
			LBS_STORE(keep + i, va);
		va += cv * vb;
		LBS_STORE(out + i, va);
	}
	for (; i < n; i++) {
		double v = a[i];

		if (keep != NULL)
			keep[i] = v;
		out[i] = v + c * b[i];
	}
}

/* lbs_dot2's lanes: a'b and a'a in 16 partial sums each, in one pass (each sum as
 * lbs_dot_lanes forms it). */
LBS_CLONES static void lbs_dot2_lanes(const double *a, const double *b, size_t n, double *ab,
                                      double *aa)
{
	lbs_v4 p0 = { 0 }, p1 = { 0 }, p2 = { 0 }, p3 = { 0 };
	lbs_v4 q0 = { 0 }, q1 = { 0 }, q2 = { 0 }, q3 = { 0 };
	lbs_acc ap, aq;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		lbs_v4 x0, x1, x2, x3, y0, y1, y2, y3;

		LBS_LOAD16(x0, x1, x2, x3, a + i);
		LBS_LOAD16(y0, y1, y2, y3, b + i);
		p0 += x0 * y0, p1 += x1 * y1, p2 += x2 * y2, p3 += x3 * y3;
		q0 += x0 * x0, q1 += x1 * x1, q2 += x2 * x2, q3 += x3 * x3;
	}
	ap = LBS_ACC(p0, p1, p2, p3);
	aq = LBS_ACC(q0, q1, q2, q3);
	lbs_acc_tail(&ap, a, b, i, n);
	lbs_acc_tail(&aq, a, a, i, n);
	*ab = lbs_acc_sum(&ap);
	*aa = lbs_acc_sum(&aq);
}

/* One group of four of lbs_store_lanes from entry at: s and y there, d = -g, and their
 * products into the partial sums sa (y's), ya (y'y) and da (s'd). */
#define LBS_PAIR_STEP(at, sa, ya, da)                                                       \
	do {                                                                                \
		lbs_v4 vx, vxp, vg, vgp, vd;                                                \
		LBS_LOAD(vx, x + (at)), LBS_LOAD(vxp, xp + (at));                           \
		LBS_LOAD(vg, g + (at)), LBS_LOAD(vgp, gp + (at));                           \
		vd = vg * minus;                                                            \
		vx -= vxp, vg -= vgp;                                                       \
		LBS_STORE(s + (at), vx), LBS_STORE(y + (at), vg), LBS_STORE(d + (at), vd);  \
		sa += vg * vx, ya += vg * vg, da += vx * vd;                                \
	} while (0)

/* lbs_store's lanes: s = x - xp, y = g - gp, the first direction d = -g, and y's, y'y and
 * s'd in 16 partial sums each, in one pass (each sum as lbs_dot_lanes forms it; each
 * d[i] is g[i] times -1, exactly -g[i]). */
LBS_CLONES static void lbs_store_lanes(double *s, double *y, double *d, const double *x,
                                       const double *xp, const double *g, const double *gp,
                                       size_t n, double out[3])
{
	lbs_v4 s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
	lbs_v4 y0 = { 0 }, y1 = { 0 }, y2 = { 0 }, y3 = { 0 };
	lbs_v4 d0 = { 0 }, d1 = { 0 }, d2 = { 0 }, d3 = { 0 };
	const lbs_v4 minus = { -1.0, -1.0, -1.0, -1.0 };
	lbs_acc as, ay, ad;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		LBS_PAIR_STEP(i, s0, y0, d0);
		LBS_PAIR_STEP(i + 4, s1, y1, d1);
		LBS_PAIR_STEP(i + 8, s2, y2, d2);
		LBS_PAIR_STEP(i + 12, s3, y3, d3);
	}
	as = LBS_ACC(s0, s1, s2, s3);
	ay = LBS_ACC(y0, y1, y2, y3);
	ad = LBS_ACC(d0, d1, d2, d3);
	for (size_t k = i; k < n; k++) {
		s[k] = x[k] - xp[k];
		y[k] = g[k] - gp[k];
		d[k] = g[k] * -1.0;
	}
	lbs_acc_tail(&as, y, s, i, n);
	lbs_acc_tail(&ay, y, y, i, n);
	lbs_acc_tail(&ad, s, d, i, n);
	out[0] = lbs_acc_sum(&as);
	out[1] = lbs_acc_sum(&ay);
	out[2] = lbs_acc_sum(&ad);
}

/* d += c y, then d = d e (e = 1: unchanged, exactly) and the inner product of s with the
 * new d, in one pass: each d[i] rounded after the addition and again after the product, as
 * two passes would leave it, and the sum as lbs_dot forms it. */
static double lbs_axpy_dot(double *d, const double *y, double c, double e, const double *s,
                           size_t n, int lanes)
{
	double s0 = 0.0;

	if (lanes)
		return lbs_axpy_dot_lanes(d, y, c, e, s, n);
	for (size_t i = 0; i < n; i++) {
		d[i] += c * y[i];
		d[i] = d[i] * e;
		s0 += s[i] * d[i];
	}
	return s0;
}

/* *ab = a'b and *aa = a'a in one pass, each as lbs_dot forms it. */
static void lbs_dot2(const double *a, const double *b, size_t n, int lanes, double *ab,
                     double *aa)
{
	double s0 = 0.0, s1 = 0.0;

	if (lanes) {
		lbs_dot2_lanes(a, b, n, ab, aa);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		s0 += a[i] * b[i];
		s1 += a[i] * a[i];
	}
	*ab = s0;
	*aa = s1;
}

/* A trial of a line search: x = xp + c d; the first (first set) from x itself, which it
 * copies to xp as it goes, in one pass. */
static void lbs_step(double *x, double *xp, double c, const double *d, size_t n, int lanes,
                     bool first)
{
	if (lanes) {
		lbs_axpby_lanes(x, first ? x : xp, c, d, first ? xp : NULL, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (first)
			xp[i] = x[i];
		x[i] = xp[i] + c * d[i];
	}
}

/* f and its gradient g at x (r->x); the best point noted (fb_owlqn's evaluation
 * callback). */
static double lbs_eval(lbs_run *r, const double *x, double *g)
{
	double fx = r->f(x, g, r->n, r->ctx);

	r->evals++;
	if (r->evals == 1)
		r->f_prev = fx;
	if (isfinite(fx) && fx < r->best_f) {
		r->best_f = fx;
		r->best_at = LBS_BEST_X;
	}
	return fx;
}

/* The minimiser of the cubic through (u, fu, du) and (v, fv, dv). */
static double lbs_cubic(double u, double fu, double du, double v, double fv, double dv)
{
	double d = v - u, theta = (fu - fv) * 3 / d + du + dv;
	double s = lbs_max(lbs_max(fabs(theta), fabs(du)), fabs(dv)), a = theta / s;
	double gamma = s * sqrt(a * a - (du / s) * (dv / s)), p, q;

	if (v < u)
		gamma = -gamma;
	p = gamma - du + theta;
	q = gamma - du + gamma + dv;
	return u + p / q * d;
}

/* The cubic's minimiser when it may lie outside [u, v]: tmin or tmax where it has none. */
static double lbs_cubic2(double u, double fu, double du, double v, double fv, double dv,
                         double tmin, double tmax)
{
	double d = v - u, theta = (fu - fv) * 3 / d + du + dv;
	double s = lbs_max(lbs_max(fabs(theta), fabs(du)), fabs(dv)), a = theta / s;
	double gamma = s * sqrt(lbs_max(0.0, a * a - (du / s) * (dv / s))), p, q, r;

	if (u < v)
		gamma = -gamma;
	p = gamma - dv + theta;
	q = gamma - dv + gamma + du;
	r = p / q;
	if (r < 0.0 && gamma != 0.0)
		return v - r * d;
	return a < 0 ? tmax : tmin;
}

/* The end points (x, fx, dx) and (y, fy, dy) of the interval and the trial t. */
typedef struct lbs_pt {
	double t, f, d;
} lbs_pt;

/* The new trial step of More and Thuente's case analysis; *bound: whether it is kept away
 * from the far end. */
static double lbs_trial_step(const lbs_pt *x, const lbs_pt *y, const lbs_pt *t, double tmin,
                             double tmax, int *brackt, int *bound)
{
	int dsign = t->d * (x->d / fabs(x->d)) < 0.0;
	double mc, mq;

	if (x->f < t->f) { /* a higher value: the cubic one if nearer x, else the midpoint */
		*brackt = *bound = 1;
		mc = lbs_cubic(x->t, x->f, x->d, t->t, t->f, t->d);
		mq = x->t + x->d / ((x->f - t->f) / (t->t - x->t) + x->d) / 2 * (t->t - x->t);
		return fabs(mc - x->t) < fabs(mq - x->t) ? mc : mc + 0.5 * (mq - mc);
	}
	mq = t->t + t->d / (t->d - x->d) * (x->t - t->t); /* the secant step */
	if (dsign) { /* derivatives of opposite sign */
		*brackt = 1;
		*bound = 0;
		mc = lbs_cubic(x->t, x->f, x->d, t->t, t->f, t->d);
		return fabs(mc - t->t) > fabs(mq - t->t) ? mc : mq;
	}
	if (fabs(t->d) < fabs(x->d)) { /* same sign, the derivative shrinking */
		*bound = 1;
		mc = lbs_cubic2(x->t, x->f, x->d, t->t, t->f, t->d, tmin, tmax);
		if (*brackt)
			return fabs(t->t - mc) < fabs(t->t - mq) ? mc : mq;
		return fabs(t->t - mc) > fabs(t->t - mq) ? mc : mq;
	}
	*bound = 0;
	if (*brackt)
		return lbs_cubic(t->t, t->f, t->d, y->t, y->f, y->d);
	return x->t < t->t ? tmax : tmin;
}

/* Update the interval [x, y] with the trial t and put the next trial step in t->t; nonzero
 * when the trial was out of the interval or not a descent from x. */
static int lbs_trial(lbs_pt *x, lbs_pt *y, lbs_pt *t, double tmin, double tmax, int *brackt)
{
	int bound, dsign = t->d * (x->d / fabs(x->d)) < 0.0;
	double newt;

	if (*brackt && (t->t <= lbs_min(x->t, y->t) || lbs_max(x->t, y->t) <= t->t))
		return LBFGSERR_OUTOFINTERVAL;
	if (*brackt && (0.0 <= x->d * (t->t - x->t)))
		return LBFGSERR_INCREASEGRADIENT;
	if (*brackt && tmax < tmin)
		return LBFGSERR_INCORRECT_TMINMAX;
	newt = lbs_trial_step(x, y, t, tmin, tmax, brackt, &bound);
	if (x->f < t->f) {
		*y = *t;
	} else {
		if (dsign)
			*y = *x;
		*x = *t;
	}
	newt = tmax < newt ? tmax : newt;
	newt = newt < tmin ? tmin : newt;
	if (*brackt && bound) {
		double mq = x->t + 0.66 * (y->t - x->t);

		if (x->t < y->t ? mq < newt : newt < mq)
			newt = mq;
	}
	t->t = newt;
	return 0;
}

/* The line search's state besides the interval. */
typedef struct lbs_ls {
	double finit, dginit, dgtest;  /* f and f' at the start, ftol f' */
	double width, prev_width;      /* the interval's widths */
	int brackt, stage1, uinfo;     /* More and Thuente's flags */
} lbs_ls;

/* The next trial: the interval, stage 1's modified function where it applies, the forced
 * shrinking of a slow interval. */
static void lbs_ls_update(lbs_ls *ls, lbs_pt *x, lbs_pt *y, lbs_pt *t, double stmin,
                          double stmax)
{
	double dgtest = ls->dgtest;

	if (ls->stage1 && t->f <= ls->finit + t->t * dgtest &&
	    lbs_min(LS_FTOL, LS_GTOL) * ls->dginit <= t->d)
		ls->stage1 = 0;
	if (ls->stage1 && ls->finit + t->t * dgtest < t->f && t->f <= x->f) {
		lbs_pt xm = { x->t, x->f - x->t * dgtest, x->d - dgtest };
		lbs_pt ym = { y->t, y->f - y->t * dgtest, y->d - dgtest };
		lbs_pt tm = { t->t, t->f - t->t * dgtest, t->d - dgtest };

		ls->uinfo = lbs_trial(&xm, &ym, &tm, stmin, stmax, &ls->brackt);
		*x = (lbs_pt){ xm.t, xm.f + xm.t * dgtest, xm.d + dgtest };
		*y = (lbs_pt){ ym.t, ym.f + ym.t * dgtest, ym.d + dgtest };
		t->t = tm.t;
	} else {
		ls->uinfo = lbs_trial(x, y, t, stmin, stmax, &ls->brackt);
	}
	if (ls->brackt) {
		if (0.66 * ls->prev_width <= fabs(y->t - x->t))
			t->t = x->t + 0.5 * (y->t - x->t);
		ls->prev_width = ls->width;
		ls->width = fabs(y->t - x->t);
	}
}

/* liblbfgs's ending tests of a trial at t (f and f' in t), after count evaluations: a
 * negative code, the count when the step is accepted, 0 to go on. */
static int lbs_ls_test(const lbs_ls *ls, const lbs_pt *t, double stmin, double stmax,
                       int count)
{
	double ftest1 = ls->finit + t->t * ls->dgtest;

	if (ls->brackt && ((t->t <= stmin || stmax <= t->t) || ls->uinfo != 0))
		return LBFGSERR_ROUNDING_ERROR;
	if (t->t == LS_MAX_STEP && t->f <= ftest1 && t->d <= ls->dgtest)
		return LBFGSERR_MAXIMUMSTEP;
	if (t->t == LS_MIN_STEP && (ftest1 < t->f || ls->dgtest <= t->d))
		return LBFGSERR_MINIMUMSTEP;
	if (ls->brackt && (stmax - stmin) <= LS_XTOL * stmax)
		return LBFGSERR_WIDTHTOOSMALL;
	if (LS_MAX <= count)
		return LBFGSERR_MAXIMUMLINESEARCH;
	if (t->f <= ftest1 && fabs(t->d) <= LS_GTOL * (-ls->dginit))
		return count;
	return 0;
}

/* x is about to be overwritten: when it holds the best point, that point is now xp's
 * (same, when x has not moved since it was copied there) or is copied to best_x. */
static void lbs_best_leave_x(lbs_run *r, int same)
{
	if (r->best_at != LBS_BEST_X)
		return;
	if (same) {
		r->best_at = LBS_BEST_XP;
		return;
	}
	memcpy(r->best_x, r->x, r->n * sizeof *r->x);
	r->best_at = LBS_BEST_KEPT;
}

/* More and Thuente's line search from x (gradient r->gp; x is copied to r->xp at the first
 * trial) along d, starting at *stp: x, *f and r->g end at the accepted step, r->gg at g'g
 * there; the evaluations it took, or a negative liblbfgs code.  The initial slope is the one
 * lbs_direction formed, when it did. */
static int lbs_search(lbs_run *r, double *x, double *f, double *stp)
{
	lbs_ls ls = { *f, 0.0, 0.0, LS_MAX_STEP - LS_MIN_STEP, 0.0, 0, 1, 0 };
	lbs_pt bx, by, t;
	double stmin, stmax;
	int count = 0, rc;

	ls.dginit = r->dg_known ? r->dg : lbs_dot(r->gp, r->d, r->n, r->lanes);
	r->dg_known = 0;
	if (*stp <= 0.0)
		return LBFGSERR_INVALIDPARAMETERS;
	if (0 < ls.dginit)
		return LBFGSERR_INCREASEGRADIENT;
	ls.dgtest = LS_FTOL * ls.dginit;
	ls.prev_width = 2.0 * ls.width;
	bx = by = (lbs_pt){ 0.0, *f, ls.dginit };
	t.t = *stp;
	for (;;) {
		stmin = ls.brackt ? lbs_min(bx.t, by.t) : bx.t;
		stmax = ls.brackt ? lbs_max(bx.t, by.t) : t.t + 4.0 * (t.t - bx.t);
		t.t = t.t < LS_MIN_STEP ? LS_MIN_STEP : t.t;
		t.t = LS_MAX_STEP < t.t ? LS_MAX_STEP : t.t;
		if (ls.brackt && ((t.t <= stmin || stmax <= t.t) || LS_MAX <= count + 1 ||
		                  ls.uinfo != 0 || stmax - stmin <= LS_XTOL * stmax))
			t.t = bx.t;
		lbs_best_leave_x(r, count == 0);
		lbs_step(x, r->xp, t.t, r->d, r->n, r->lanes, count == 0);
		*stp = t.t;
		t.f = *f = lbs_eval(r, x, r->g);
		lbs_dot2(r->g, r->d, r->n, r->lanes, &t.d, &r->gg); /* g'g: the iteration's norm */
		if ((rc = lbs_ls_test(&ls, &t, stmin, stmax, ++count)) != 0)
			return rc;
		lbs_ls_update(&ls, &bx, &by, &t, stmin, stmax);
	}
}

/* The direction -H g by the two-loop recursion over the bound newest pairs, the newest
 * in slot end - 1, from d = -g and a = s'd there (lbs_store formed both); ys / yy scales the
 * initial matrix.  The first loop's last pass scales d too, and the last pass forms g'd
 * (r->dg), the next line search's initial slope. */
static void lbs_direction(lbs_run *r, size_t end, size_t bound, double ys, double yy, double a)
{
	size_t n = r->n, m = r->m, j = (end + m - 1) % m, oldest = j;
	double beta;

	for (size_t i = 0; i < bound; i++) {
		size_t next = (j + m - 1) % m;

		r->alpha[j] = a / r->ys[j];
		if (i + 1 < bound)
			a = lbs_axpy_dot(r->d, r->y + j * n, -r->alpha[j], 1.0, r->s + next * n, n,
			                 r->lanes);
		else /* d = (d - alpha y) ys / yy, and y'd */
			a = lbs_axpy_dot(r->d, r->y + j * n, -r->alpha[j], ys / yy, r->y + j * n, n,
			                 r->lanes);
		oldest = j;
		j = next;
	}
	j = oldest;
	for (size_t i = 0; i < bound; i++) {
		size_t next = (j + 1) % m;

		beta = a / r->ys[j];
		a = lbs_axpy_dot(r->d, r->s + j * n, r->alpha[j] - beta, 1.0,
		                 i + 1 < bound ? r->y + next * n : r->g, n, r->lanes);
		j = next;
	}
	r->dg = a;
	r->dg_known = 1;
}

/* scipy's stopping rules after an iteration that ended at fx (fb_owlqn's with l1 = 0): the
 * largest gradient entry at most gtol (LBS_PGTOL), or (f_prev - fx) / max(|f_prev|,
 * |fx|, 1) <= ftol (LBFGS_STOP); then the evaluation limit; 0 to go on. */
static int lbs_stop(lbs_run *r, double fx, double gnorm)
{
	double scale = fmax(fmax(fabs(r->f_prev), fabs(fx)), 1.0), big = 0.0;
	int stop = 0;

	if (gnorm <= sqrt((double)r->n) * r->gtol * (1.0 + 1e-12)) {
		for (size_t i = 0; i < r->n; i++)
			big = fabs(r->g[i]) > big ? fabs(r->g[i]) : big;
		stop = big <= r->gtol ? LBS_PGTOL : 0;
	}
	if (stop == 0 && r->f_prev - fx <= r->ftol * scale)
		stop = LBFGS_STOP;
	r->f_prev = fx;
	if (stop != 0)
		return stop;
	return r->evals >= r->max_eval ? LBS_EVAL_LIMIT : 0;
}

/* Store the newest pair in slot end: s = x - xp, y = g - gp, and start the direction,
 * d = -g exactly; out[] = y's, y'y and s'd. */
static void lbs_store(lbs_run *r, const double *x, size_t end, double out[3])
{
	double *s = r->s + end * r->n, *y = r->y + end * r->n;

	if (r->lanes) {
		lbs_store_lanes(s, y, r->d, x, r->xp, r->g, r->gp, r->n, out);
		r->ys[end] = out[0];
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		s[i] = x[i] - r->xp[i];
		y[i] = r->g[i] - r->gp[i];
		r->d[i] = r->g[i] * -1.0;
	}
	out[0] = lbs_dot(y, s, r->n, r->lanes);
	out[1] = lbs_dot(y, y, r->n, r->lanes);
	out[2] = lbs_dot(s, r->d, r->n, r->lanes);
	r->ys[end] = out[0];
}

/* liblbfgs's iteration from x: a liblbfgs code (LBFGS_STOP, a line search's error) or
 * LBS_PGTOL or LBS_EVAL_LIMIT.  liblbfgs's own gradient test |g| / max(1, |x|) <= 0 is
 * met only by g = 0, so |x| is not formed after the start. */
static int lbs_iterate(lbs_run *r, double *x)
{
	size_t n = r->n, k = 1, end = 0;
	double fx, xnorm, gnorm, step, sums[3];
	int ls, stop;

	fx = lbs_eval(r, x, r->g);
	for (size_t i = 0; i < n; i++)
		r->d[i] = -r->g[i];
	xnorm = sqrt(lbs_dot(x, x, n, r->lanes));
	gnorm = sqrt(lbs_dot(r->g, r->g, n, r->lanes));
	if (gnorm / (xnorm < 1.0 ? 1.0 : xnorm) <= 0.0)
		return LBFGS_ALREADY_MINIMIZED;
	step = 1.0 / sqrt(lbs_dot(r->d, r->d, n, r->lanes));
	for (;;) {
		double *t = r->gp; /* the gradient at x becomes gp; g takes the search's */

		r->gp = r->g;
		r->g = t;
		if (r->best_at == LBS_BEST_XP) { /* xp is about to be overwritten */
			memcpy(r->best_x, r->xp, n * sizeof *x);
			r->best_at = LBS_BEST_KEPT;
		}
		if ((ls = lbs_search(r, x, &fx, &step)) < 0)
			return ls;
		gnorm = sqrt(r->gg);
		if ((stop = lbs_stop(r, fx, gnorm)) != 0)
			return stop;
		if (gnorm == 0.0)
			return LBFGS_SUCCESS;
		lbs_store(r, x, end, sums);
		end = (end + 1) % r->m;
		lbs_direction(r, end, k < r->m ? k : r->m, sums[0], sums[1], sums[2]);
		k++;
		step = 1.0;
	}
}

/* Free a run's arrays. */
static void lbs_free(lbs_run *r)
{
	free(r->xp);
	free(r->g);
	free(r->gp);
	free(r->d);
	free(r->s);
	free(r->y);
	free(r->alpha);
	free(r->ys);
	free(r->best_x);
}

/* True when a code leaves a usable point (fb_owlqn's list). */
static int lbs_usable(int code)
{
	return code == LBFGS_SUCCESS || code == LBS_PGTOL || code == LBFGS_STOP ||
	       code == LBFGS_ALREADY_MINIMIZED ||
	       code == LBS_EVAL_LIMIT || code == LBFGSERR_ROUNDING_ERROR ||
	       code == LBFGSERR_MINIMUMSTEP || code == LBFGSERR_MAXIMUMLINESEARCH ||
	       code == LBFGSERR_WIDTHTOOSMALL || code == LBFGSERR_INCREASEGRADIENT;
}

/* Minimise f from x (in place) as fb_owlqn does with l1 = 0 and scipy_stop = 1. */
int fb_lbfgs_scipy(size_t n, double *x, fb_objective f, void *ctx, const fb_owlqn_options *opt,
                   int sums, fb_lbfgs_report *rep, fb_error *err)
{
	lbs_run r;
	int code, status = FB_ERR;

	if (n == 0 || n > 2147483647u || x == NULL || f == NULL || opt == NULL ||
	    opt->l1 != 0.0 || opt->role != NULL || opt->memory > 1000)
		return fb_fail(err, "l-bfgs: n, x, f or the options are missing or out of range");
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return fb_fail(err, "l-bfgs: x[%zu] is not finite", i);
	memset(&r, 0, sizeof r);
	r.n = n;
	r.m = opt->memory > 0 ? opt->memory : 10;
	r.lanes = sums == FB_SUMS_LANES;
	r.f = f;
	r.ctx = ctx;
	r.max_eval = opt->max_eval > 0 ? opt->max_eval : 15000;
	r.ftol = opt->ftol_rel > 0.0 ? opt->ftol_rel : 2.220446049250313e-09;
	r.gtol = opt->gtol > 0.0 ? opt->gtol : 1e-5;
	r.best_f = HUGE_VAL;
	r.x = x;
	r.xp = fb_xmalloc(n * sizeof *x);
	r.g = fb_xmalloc(n * sizeof *x);
	r.gp = fb_xmalloc(n * sizeof *x);
	r.d = fb_xmalloc(n * sizeof *x);
	r.best_x = fb_xmalloc(n * sizeof *x);
	r.s = fb_xmalloc(r.m * n * sizeof *x);
	r.y = fb_xmalloc(r.m * n * sizeof *x);
	r.alpha = fb_xcalloc(r.m, sizeof *x);
	r.ys = fb_xcalloc(r.m, sizeof *x);
	code = lbs_iterate(&r, x);
	if (rep != NULL)
		*rep = (fb_lbfgs_report){ r.best_f, r.evals,
		                          code == LBS_PGTOL ? LBFGS_SUCCESS : code };
	if (!lbs_usable(code) || !isfinite(r.best_f))
		fb_fail(err, "l-bfgs: the optimiser stopped with code %d after %zu evaluations%s",
		        code, r.evals, isfinite(r.best_f) ? "" : " (no finite objective value)");
	else
		status = FB_OK;
	if (status == FB_OK && r.best_at != LBS_BEST_X)
		memcpy(x, r.best_at == LBS_BEST_XP ? r.xp : r.best_x, n * sizeof *x);
	lbs_free(&r);
	return status;
}
