/* An adapter over NLopt's limited-memory BFGS with simple bounds (NLOPT_LD_LBFGS, Luksan's
 * PLIS).  The adapter keeps the best point the library has evaluated, so that a run that
 * ends on its evaluation limit or on rounding noise still returns the best x seen. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nlopt.h>

#include "fedbn/optim.h"

/* Defaults of fb_lbfgs_options (those of scipy's L-BFGS-B where they exist). */
#define LBFGS_MEMORY 10
#define LBFGS_MAX_EVAL 15000
#define LBFGS_FTOL_REL 2.220446049250313e-09

/* What the NLopt callback needs: the caller's objective and the best point so far. */
typedef struct lbfgs_call {
	fb_objective f;   /* the caller's objective */
	void *ctx;        /* its context */
	size_t n;         /* variables */
	double *best_x;   /* the evaluated point with the lowest finite f */
	double best_f;    /* f there (HUGE_VAL until a finite value is seen) */
	size_t evals;     /* evaluations so far */
} lbfgs_call;

/* NLopt callback: evaluate the caller's objective and remember the best point. */
static double lbfgs_eval(unsigned n, const double *x, double *grad, void *data)
{
	lbfgs_call *c = data;
	double fx = c->f(x, grad, n, c->ctx);

	c->evals++;
	if (isfinite(fx) && fx < c->best_f) {
		c->best_f = fx;
		memcpy(c->best_x, x, n * sizeof *x);
	}
	return fx;
}

/* The name of an NLopt result code, for messages. */
static const char *lbfgs_code_name(nlopt_result r)
{
	switch (r) {
	case NLOPT_FAILURE: return "NLOPT_FAILURE";
	case NLOPT_INVALID_ARGS: return "NLOPT_INVALID_ARGS";
	case NLOPT_OUT_OF_MEMORY: return "NLOPT_OUT_OF_MEMORY";
	case NLOPT_ROUNDOFF_LIMITED: return "NLOPT_ROUNDOFF_LIMITED";
	case NLOPT_FORCED_STOP: return "NLOPT_FORCED_STOP";
	case NLOPT_SUCCESS: return "NLOPT_SUCCESS";
	case NLOPT_STOPVAL_REACHED: return "NLOPT_STOPVAL_REACHED";
	case NLOPT_FTOL_REACHED: return "NLOPT_FTOL_REACHED";
	case NLOPT_XTOL_REACHED: return "NLOPT_XTOL_REACHED";
	case NLOPT_MAXEVAL_REACHED: return "NLOPT_MAXEVAL_REACHED";
	case NLOPT_MAXTIME_REACHED: return "NLOPT_MAXTIME_REACHED";
	default: return "an unknown code";
	}
}

/* True when the run ended in a way whose best point is usable. */
static int lbfgs_usable(nlopt_result r)
{
	return r > 0 || r == NLOPT_ROUNDOFF_LIMITED;
}

/* Apply the options to a fresh optimiser; FB_OK or FB_ERR naming the option at fault. */
static int lbfgs_configure(nlopt_opt o, const fb_lbfgs_options *opt, fb_error *err)
{
	size_t memory = (opt != NULL && opt->memory > 0) ? opt->memory : LBFGS_MEMORY;
	size_t max_eval = (opt != NULL && opt->max_eval > 0) ? opt->max_eval : LBFGS_MAX_EVAL;
	double ftol = (opt != NULL && opt->ftol_rel > 0.0) ? opt->ftol_rel : LBFGS_FTOL_REL;
	double xtol = (opt != NULL) ? opt->xtol_rel : 0.0;

	if (memory > (unsigned)-1 || max_eval > (size_t)2147483647)
		return fb_fail(err, "l-bfgs: memory or max_eval is too large");
	if (!(xtol >= 0.0) || !isfinite(ftol))
		return fb_fail(err, "l-bfgs: ftol_rel and xtol_rel must be finite and >= 0");
	if (opt != NULL && opt->lower != NULL &&
	    nlopt_set_lower_bounds(o, opt->lower) != NLOPT_SUCCESS)
		return fb_fail(err, "l-bfgs: lower bounds were refused");
	if (opt != NULL && opt->upper != NULL &&
	    nlopt_set_upper_bounds(o, opt->upper) != NLOPT_SUCCESS)
		return fb_fail(err, "l-bfgs: upper bounds were refused");
	if (nlopt_set_vector_storage(o, (unsigned)memory) != NLOPT_SUCCESS ||
	    nlopt_set_maxeval(o, (int)max_eval) != NLOPT_SUCCESS ||
	    nlopt_set_ftol_rel(o, ftol) != NLOPT_SUCCESS ||
	    nlopt_set_xtol_rel(o, xtol) != NLOPT_SUCCESS)
		return fb_fail(err, "l-bfgs: the stopping options were refused");
	return FB_OK;
}

/* Check x against the bounds: NLopt refuses a start outside them. */
static int lbfgs_check_start(size_t n, const double *x, const fb_lbfgs_options *opt,
                             fb_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return fb_fail(err, "l-bfgs: x[%zu] is not finite", i);
		if (opt != NULL && opt->lower != NULL && x[i] < opt->lower[i])
			return fb_fail(err, "l-bfgs: x[%zu] is below its lower bound", i);
		if (opt != NULL && opt->upper != NULL && x[i] > opt->upper[i])
			return fb_fail(err, "l-bfgs: x[%zu] is above its upper bound", i);
	}
	return FB_OK;
}

/* Minimise f from x in place with NLopt's L-BFGS. */
int fb_lbfgs(size_t n, double *x, fb_objective f, void *ctx, const fb_lbfgs_options *opt,
             fb_lbfgs_report *rep, fb_error *err)
{
	lbfgs_call call = { f, ctx, n, NULL, HUGE_VAL, 0 };
	nlopt_opt o = NULL;
	nlopt_result r;
	double fx = HUGE_VAL;
	int status = FB_ERR;

	if (n == 0 || n > (unsigned)-1 || x == NULL || f == NULL)
		return fb_fail(err, "l-bfgs: n, x or f is missing or out of range");
	if (lbfgs_check_start(n, x, opt, err) != FB_OK)
		return FB_ERR;
	call.best_x = malloc(n * sizeof *x);
	o = nlopt_create(NLOPT_LD_LBFGS, (unsigned)n);
	if (call.best_x == NULL || o == NULL) {
		fb_fail(err, "l-bfgs: out of memory for %zu variables", n);
		goto out;
	}
	if (lbfgs_configure(o, opt, err) != FB_OK ||
	    nlopt_set_min_objective(o, lbfgs_eval, &call) != NLOPT_SUCCESS)
		goto out;
	r = nlopt_optimize(o, x, &fx);
	if (rep != NULL) {
		rep->code = (int)r;
		rep->evals = call.evals;
		rep->f = call.best_f;
	}
	if (!lbfgs_usable(r) || !isfinite(call.best_f)) {
		fb_fail(err, "l-bfgs: the optimiser stopped with %s after %zu evaluations%s",
		        lbfgs_code_name(r), call.evals,
		        isfinite(call.best_f) ? "" : " (no finite objective value)");
		goto out;
	}
	memcpy(x, call.best_x, n * sizeof *x);
	status = FB_OK;
out:
	if (o != NULL)
		nlopt_destroy(o);
	free(call.best_x);
	return status;
}
