/* Unbounded L-BFGS on liblbfgs's iterations with the stopping rules of L-BFGS-B 3.0 (the
 * rules of scipy's minimize(method="L-BFGS-B"), which the reference Python code runs on its
 * unbounded subproblems): stop when the largest gradient entry is at most pgtol, when one
 * iteration lowers f by at most ftol_rel max(|f_old|, |f|, 1), or on the iteration or
 * evaluation limit.  liblbfgs's own tests are off: its relative decrease is taken against f
 * alone, so with f below zero it stops after the first iteration, and its gradient test is
 * scaled by |x|.  The line search is liblbfgs's More-Thuente search with L-BFGS-B's
 * sufficient-decrease and curvature constants and its limit of 20 evaluations.  For an
 * unbounded problem this is L-BFGS-B's algorithm; liblbfgs's two-loop recursion costs less
 * per iteration than L-BFGS-B's compact form with its free-variable bookkeeping. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lbfgs.h>

#include "fedbn/optim.h"

/* Defaults (scipy's: maxcor 10, maxfun = maxiter = 15000, factr 1e7, pgtol 1e-5). */
#define STEPS_MEMORY 10
#define STEPS_MAX_EVAL 15000
#define STEPS_MAX_ITER 15000
#define STEPS_FTOL_REL 2.220446049250313e-09
#define STEPS_PGTOL 1e-5

/* The progress callback's codes for the three stops (positive: liblbfgs passes them on). */
enum { STEPS_GRADIENT = 5001, STEPS_DECREASE = 5002, STEPS_LIMIT = 5003 };

/* What the liblbfgs callbacks need. */
typedef struct steps_call {
	fb_objective f;   /* the objective */
	void *ctx;        /* its context */
	double ftol;      /* relative decrease that stops the run */
	double pgtol;     /* largest gradient entry that stops the run */
	size_t max_eval;  /* evaluations allowed (checked after each iteration) */
	size_t evals;     /* evaluations so far */
	double f_old;     /* f at the last iterate */
	double f0;        /* f at the start, evaluated before the library runs */
	const double *g0; /* its gradient (n), handed over at the library's first request */
} steps_call;

/* Largest |g[i]| (four running maxima, so that the loop does not wait on one compare). */
static double steps_gmax(const double *g, size_t n)
{
	double m[4] = { 0.0, 0.0, 0.0, 0.0 };
	size_t i = 0;

	for (; i + 4 <= n; i += 4)
		for (size_t k = 0; k < 4; k++) {
			double a = fabs(g[i + k]);

			m[k] = a > m[k] ? a : m[k];
		}
	for (; i < n; i++) {
		double a = fabs(g[i]);

		m[0] = a > m[0] ? a : m[0];
	}
	m[0] = m[1] > m[0] ? m[1] : m[0];
	m[2] = m[3] > m[2] ? m[3] : m[2];
	return m[2] > m[0] ? m[2] : m[0];
}

/* liblbfgs evaluation callback; its first request is the starting point, already known. */
static lbfgsfloatval_t steps_eval(void *inst, const lbfgsfloatval_t *x, lbfgsfloatval_t *g,
                                  const int n, const lbfgsfloatval_t step)
{
	steps_call *c = inst;

	(void)step;
	if (c->g0 != NULL) {
		memcpy(g, c->g0, (size_t)n * sizeof *g);
		c->g0 = NULL;
		return c->f0;
	}
	c->evals++;
	return c->f(x, g, (size_t)n, c->ctx);
}

/* liblbfgs progress callback, after iteration k: L-BFGS-B's tests in its order (the limits,
 * the gradient, the decrease). */
static int steps_progress(void *inst, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g,
                          const lbfgsfloatval_t fx, const lbfgsfloatval_t xnorm,
                          const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n,
                          int k, int ls)
{
	steps_call *c = inst;
	double f_old = c->f_old;

	(void)x, (void)xnorm, (void)gnorm, (void)step, (void)ls;
	c->f_old = fx;
	if (k >= STEPS_MAX_ITER || c->evals > c->max_eval)
		return STEPS_LIMIT;
	if (steps_gmax(g, (size_t)n) <= c->pgtol)
		return STEPS_GRADIENT;
	if (f_old - fx <= c->ftol * fmax(fmax(fabs(f_old), fabs(fx)), 1.0))
		return STEPS_DECREASE;
	return 0;
}

/* liblbfgs's parameters: its own stopping tests off, L-BFGS-B's line-search constants. */
static void steps_params(const fb_lbfgs_options *opt, lbfgs_parameter_t *p)
{
	lbfgs_parameter_init(p);
	p->m = (opt != NULL && opt->memory > 0) ? (int)opt->memory : STEPS_MEMORY;
	p->epsilon = 0.0;
	p->past = 0;
	p->max_iterations = 0;
	p->linesearch = LBFGS_LINESEARCH_MORETHUENTE;
	p->max_linesearch = 20;
	p->ftol = 1e-3;
	p->gtol = 0.9;
}

/* The report code of a liblbfgs result under these rules. */
static int steps_code(int r)
{
	switch (r) {
	case STEPS_GRADIENT:
	case STEPS_DECREASE:
	case LBFGS_SUCCESS: /* a gradient of exactly zero */
		return FB_LBFGSB_CONVERGED;
	case STEPS_LIMIT:
		return FB_LBFGSB_LIMIT;
	case LBFGSERR_OUTOFMEMORY:
	case LBFGSERR_INVALID_N:
	case LBFGSERR_INVALIDPARAMETERS:
	case LBFGSERR_LOGICERROR:
		return FB_LBFGSB_ERROR;
	default: /* the line search gave up; x is the last iterate */
		return FB_LBFGSB_ABNORMAL;
	}
}

/* Check the arguments; FB_ERR naming the one at fault. */
static int steps_check(size_t n, const double *x, fb_objective f, const fb_lbfgs_options *opt,
                       fb_error *err)
{
	if (n == 0 || n > 2147483647u || x == NULL || f == NULL)
		return fb_fail(err, "l-bfgs: n, x or f is missing or out of range");
	if (opt != NULL && (opt->lower != NULL || opt->upper != NULL || opt->xtol_rel != 0.0))
		return fb_fail(err, "l-bfgs: bounds and xtol_rel are not rules of this solver");
	if (opt != NULL && (opt->memory > 1000 || !(opt->ftol_rel >= 0.0) ||
	                    !(opt->pgtol >= 0.0) || !isfinite(opt->ftol_rel + opt->pgtol)))
		return fb_fail(err, "l-bfgs: memory, ftol_rel or pgtol is out of range");
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return fb_fail(err, "l-bfgs: x[%zu] is not finite", i);
	return FB_OK;
}

/* Run liblbfgs from x (f0, g0 already evaluated there) under call's rules. */
static int steps_run(size_t n, double *x, steps_call *call, const fb_lbfgs_options *opt,
                     double *fx)
{
	lbfgs_parameter_t p;
	lbfgsfloatval_t *xv = lbfgs_malloc((int)n);
	int r;

	if (xv == NULL)
		return LBFGSERR_OUTOFMEMORY;
	steps_params(opt, &p);
	memcpy(xv, x, n * sizeof *x);
	r = lbfgs((int)n, xv, fx, steps_eval, steps_progress, call, &p);
	memcpy(x, xv, n * sizeof *x);
	lbfgs_free(xv);
	return r;
}

/* Minimise f from x in place with liblbfgs's L-BFGS under L-BFGS-B's stopping rules. */
int fb_lbfgs_steps(size_t n, double *x, fb_objective f, void *ctx, const fb_lbfgs_options *opt,
                   fb_lbfgs_report *rep, fb_error *err)
{
	steps_call call = { f, ctx, STEPS_FTOL_REL, STEPS_PGTOL, STEPS_MAX_EVAL, 1, 0.0, 0.0,
		            NULL };
	double *g0, fx;
	int r = STEPS_GRADIENT, code;

	if (steps_check(n, x, f, opt, err) != FB_OK)
		return FB_ERR;
	if (opt != NULL && opt->ftol_rel > 0.0)
		call.ftol = opt->ftol_rel;
	if (opt != NULL && opt->pgtol > 0.0)
		call.pgtol = opt->pgtol;
	if (opt != NULL && opt->max_eval > 0)
		call.max_eval = opt->max_eval;
	if ((g0 = malloc(n * sizeof *g0)) == NULL)
		return fb_fail(err, "l-bfgs: out of memory for %zu variables", n);
	call.f0 = call.f_old = f(x, g0, n, ctx);
	call.g0 = g0;
	if (isfinite(call.f0) && steps_gmax(g0, n) > call.pgtol)
		r = steps_run(n, x, &call, opt, &fx);
	free(g0);
	fx = call.f_old; /* liblbfgs leaves a trial value in fx when its search gives up */
	code = steps_code(r);
	if (rep != NULL)
		*rep = (fb_lbfgs_report){ fx, call.evals, code };
	if (code == FB_LBFGSB_ERROR || !isfinite(fx))
		return fb_fail(err, "l-bfgs: the optimiser stopped after %zu evaluations (code %d)%s",
		               call.evals, r, isfinite(fx) ? "" : " with no finite objective");
	return FB_OK;
}
