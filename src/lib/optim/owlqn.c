/* An adapter over liblbfgs's OWL-QN (orthant-wise limited-memory quasi-Newton, Andrew and
 * Gao 2007): L-BFGS for f(x) + c |x|_1 with the l1 term handled by the method itself, so no
 * variable splitting and no bounds are needed.  The adapter keeps the best point seen, caps
 * the evaluations, and maps the library's codes to FB_OK / FB_ERR. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lbfgs.h>

#include "fedbn/optim.h"

/* Defaults of fb_owlqn_options. */
#define OWLQN_MEMORY 10
#define OWLQN_MAX_EVAL 15000
#define OWLQN_FTOL_REL 2.220446049250313e-09
#define OWLQN_GTOL 1e-5

/* The values the progress callback returns to stop on the evaluation limit and, under
 * scipy's rules, on the pseudo-gradient (scipy's ftol stop returns liblbfgs's own
 * LBFGS_STOP). */
#define OWLQN_EVAL_LIMIT 4242
#define OWLQN_PGTOL 4243

/* What the liblbfgs callbacks need. */
typedef struct owlqn_call {
	fb_objective f;   /* the smooth part of the objective */
	void *ctx;        /* its context */
	double c;         /* the l1 weight */
	size_t begin;     /* first variable under the l1 term */
	size_t end;       /* one past the last one */
	double *best_x;   /* the evaluated point with the lowest finite total objective */
	double best_f;    /* that objective, l1 included (HUGE_VAL until one is finite) */
	size_t evals;     /* evaluations so far */
	size_t max_eval;  /* stop after this many (checked between iterations) */
	int scipy_stop;   /* 1: the progress callback applies scipy's two stopping rules */
	double ftol;      /* their tolerances */
	double gtol;
	double f_prev;    /* total objective at the previous iterate (scipy's rules) */
} owlqn_call;

/* liblbfgs evaluation callback: the smooth part and its gradient; track the best point. */
static lbfgsfloatval_t owlqn_eval(void *inst, const lbfgsfloatval_t *x, lbfgsfloatval_t *g,
                                  const int n, const lbfgsfloatval_t step)
{
	owlqn_call *c = inst;
	double fx = c->f(x, g, (size_t)n, c->ctx), total = fx;
	size_t i;

	(void)step;
	c->evals++;
	for (i = c->begin; c->c != 0.0 && i < c->end; i++) /* plain L-BFGS: no l1 term to add */
		total += c->c * fabs(x[i]);
	if (c->evals == 1)
		c->f_prev = total;
	if (isfinite(total) && total < c->best_f) {
		c->best_f = total;
		memcpy(c->best_x, x, (size_t)n * sizeof *x);
	}
	return fx;
}

/* The largest of big and |g[i]| for i in [from, to). */
static double owlqn_abs_max(const double *g, size_t from, size_t to, double big)
{
	for (size_t i = from; i < to; i++) {
		double v = fabs(g[i]);

		big = v > big ? v : big;
	}
	return big;
}

/* The largest absolute entry of the pseudo-gradient at x given the smooth part's gradient g:
 * the minimum-norm subgradient of the l1 term's range, g elsewhere (for the split
 * W = W+ - W-, the projected gradient scipy's pgtol looks at).  Written as selections rather
 * than branches, which the random signs of g would mispredict (three times slower). */
static double owlqn_pg_max(const owlqn_call *c, const double *x, const double *g, size_t n)
{
	size_t begin = c->c != 0.0 ? c->begin : n, end = c->c != 0.0 ? c->end : n, i;
	double big = owlqn_abs_max(g, 0, begin, 0.0), l1 = c->c;

	for (i = begin; i < end; i++) {
		double up = g[i] + l1, down = g[i] - l1;
		double at_zero = -up > down ? -up : down; /* max(|g| - l1, 0) once floored */
		double v = fabs(x[i] > 0.0 ? up : down);

		at_zero = at_zero > 0.0 ? at_zero : 0.0;
		v = x[i] == 0.0 ? at_zero : v;
		big = v > big ? v : big;
	}
	return owlqn_abs_max(g, end, n, big);
}

/* scipy's stopping rules after an iteration that ended at fx, in scipy's order: the
 * largest pseudo-gradient entry <= gtol, or the relative reduction
 * (f_prev - fx) / max(|f_prev|, |fx|, 1) <= ftol; 0 to go on. */
static int owlqn_scipy_stop(owlqn_call *c, const double *x, const double *g, double fx,
                            double gnorm, size_t n)
{
	double scale = fmax(fmax(fabs(c->f_prev), fabs(fx)), 1.0);
	int stop = 0;

	/* gnorm, liblbfgs's 2-norm of the same pseudo-gradient, bounds its largest entry from
	 * above and sqrt(n) times it from below: the entries are looked at only when they
	 * can pass */
	if (gnorm <= sqrt((double)n) * c->gtol * (1.0 + 1e-12) &&
	    owlqn_pg_max(c, x, g, n) <= c->gtol)
		stop = OWLQN_PGTOL;
	else if (c->f_prev - fx <= c->ftol * scale)
		stop = LBFGS_STOP;
	c->f_prev = fx;
	return stop;
}

/* liblbfgs progress callback: stop once the evaluation limit is reached, or on scipy's
 * rules when asked for. */
static int owlqn_progress(void *inst, const lbfgsfloatval_t *x, const lbfgsfloatval_t *g,
                          const lbfgsfloatval_t fx, const lbfgsfloatval_t xnorm,
                          const lbfgsfloatval_t gnorm, const lbfgsfloatval_t step, int n,
                          int k, int ls)
{
	owlqn_call *c = inst;

	(void)xnorm, (void)step, (void)k, (void)ls;
	if (c->scipy_stop) {
		int stop = owlqn_scipy_stop(c, x, g, fx, gnorm, (size_t)n);

		if (stop != 0)
			return stop;
	}
	return c->evals >= c->max_eval ? OWLQN_EVAL_LIMIT : 0;
}

/* True when a liblbfgs result leaves a usable point: convergence, or a stop on a limit or
 * on rounding (the library then returns to its last accepted point). */
static int owlqn_usable(int r)
{
	switch (r) {
	case LBFGS_SUCCESS:
	case LBFGS_STOP:
	case LBFGS_ALREADY_MINIMIZED:
	case OWLQN_EVAL_LIMIT:
	case OWLQN_PGTOL:
	case LBFGSERR_MAXIMUMITERATION:
	case LBFGSERR_ROUNDING_ERROR:
	case LBFGSERR_MINIMUMSTEP:
	case LBFGSERR_MAXIMUMLINESEARCH:
	case LBFGSERR_WIDTHTOOSMALL:
	case LBFGSERR_INCREASEGRADIENT:
		return 1;
	default:
		return 0;
	}
}

/* A short name for a liblbfgs result code, for messages. */
static const char *owlqn_code_name(int r)
{
	switch (r) {
	case LBFGSERR_OUTOFMEMORY: return "out of memory";
	case LBFGSERR_LOGICERROR: return "a logic error";
	case LBFGSERR_INVALID_N: return "an invalid variable count";
	case LBFGSERR_MAXIMUMSTEP: return "a step above the maximum (unbounded objective?)";
	case LBFGSERR_OUTOFINTERVAL: return "a line search out of its interval";
	case LBFGSERR_INCORRECT_TMINMAX: return "a line search interval error";
	case LBFGSERR_INVALIDPARAMETERS: return "invalid line search parameters";
	default: return "an error";
	}
}

/* Translate the options into liblbfgs parameters. */
static void owlqn_params(const fb_owlqn_options *opt, size_t n, lbfgs_parameter_t *p,
                         owlqn_call *c)
{
	lbfgs_parameter_init(p);
	p->m = (opt != NULL && opt->memory > 0) ? (int)opt->memory : OWLQN_MEMORY;
	p->past = 1;
	p->delta = (opt != NULL && opt->ftol_rel > 0.0) ? opt->ftol_rel : OWLQN_FTOL_REL;
	p->epsilon = (opt != NULL && opt->gtol > 0.0) ? opt->gtol : OWLQN_GTOL;
	p->max_iterations = 0;
	c->max_eval = (opt != NULL && opt->max_eval > 0) ? opt->max_eval : OWLQN_MAX_EVAL;
	c->c = opt != NULL ? opt->l1 : 0.0;
	c->begin = opt != NULL ? opt->l1_begin : 0;
	c->end = (opt != NULL && opt->l1_end > 0) ? opt->l1_end : n;
	c->scipy_stop = opt != NULL && opt->scipy_stop;
	c->ftol = p->delta;
	c->gtol = p->epsilon;
	if (c->scipy_stop) { /* liblbfgs's own tests off: the progress callback applies them */
		p->past = 0;
		p->epsilon = 0.0;
	}
	if (c->scipy_stop && c->c == 0.0) { /* plain L-BFGS: L-BFGS-B's line-search constants
	                                       and its limit of 20 evaluations per search */
		p->ftol = 1e-3;
		p->max_linesearch = 20;
	}
	if (c->c > 0.0) {
		p->orthantwise_c = c->c;
		p->orthantwise_start = (int)c->begin;
		p->orthantwise_end = (int)c->end;
		p->linesearch = LBFGS_LINESEARCH_BACKTRACKING;
	}
}

/* Check the arguments; FB_ERR naming the one at fault. */
static int owlqn_check(size_t n, const double *x, fb_objective f, const fb_owlqn_options *opt,
                       fb_error *err)
{
	size_t i;

	if (n == 0 || n > 2147483647u || x == NULL || f == NULL)
		return fb_fail(err, "owl-qn: n, x or f is missing or out of range");
	if (opt != NULL && (!(opt->l1 >= 0.0) || !isfinite(opt->l1)))
		return fb_fail(err, "owl-qn: l1 must be finite and >= 0");
	if (opt != NULL && opt->l1 > 0.0 &&
	    (opt->l1_end > n || opt->l1_begin >= (opt->l1_end > 0 ? opt->l1_end : n)))
		return fb_fail(err, "owl-qn: l1_begin and l1_end must give a range within n");
	if (opt != NULL && (opt->memory > 1000 || !(opt->ftol_rel >= 0.0) || !(opt->gtol >= 0.0)))
		return fb_fail(err, "owl-qn: memory, ftol_rel or gtol is out of range");
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return fb_fail(err, "owl-qn: x[%zu] is not finite", i);
	return FB_OK;
}

/* Minimise f(x) + l1 |x[l1_begin..l1_end)|_1 from x (in place) with OWL-QN, every
 * variable optimised. */
static int owlqn_plain(size_t n, double *x, fb_objective f, void *ctx,
                       const fb_owlqn_options *opt, fb_lbfgs_report *rep, fb_error *err)
{
	owlqn_call call = { f, ctx, 0.0, 0, 0, NULL, HUGE_VAL, 0, 0, 0, 0.0, 0.0, HUGE_VAL };
	lbfgs_parameter_t p;
	lbfgsfloatval_t *xv = NULL, fx = 0.0;
	int r, status = FB_ERR;

	if (owlqn_check(n, x, f, opt, err) != FB_OK)
		return FB_ERR;
	owlqn_params(opt, n, &p, &call);
	xv = lbfgs_malloc((int)n);
	call.best_x = malloc(n * sizeof *x);
	if (xv == NULL || call.best_x == NULL) {
		fb_fail(err, "owl-qn: out of memory for %zu variables", n);
		goto out;
	}
	memcpy(xv, x, n * sizeof *x);
	r = lbfgs((int)n, xv, &fx, owlqn_eval, owlqn_progress, &call, &p);
	if (rep != NULL) {
		rep->code = r == OWLQN_PGTOL ? LBFGS_SUCCESS : r;
		rep->evals = call.evals;
		rep->f = call.best_f;
	}
	if (!owlqn_usable(r) || !isfinite(call.best_f)) {
		fb_fail(err, "owl-qn: the optimiser stopped with %s (code %d) after %zu "
		        "evaluations%s", owlqn_code_name(r), r, call.evals,
		        isfinite(call.best_f) ? "" : " (no finite objective value)");
		goto out;
	}
	memcpy(x, call.best_x, n * sizeof *x);
	status = FB_OK;
out:
	lbfgs_free(xv);
	free(call.best_x);
	return status;
}

/* A run under roles: the optimiser's vector holds the optimised variables, penalised ones
 * first; f is handed all of them. */
typedef struct owlqn_packed {
	fb_objective f;    /* the caller's smooth part, over all n variables */
	void *ctx;         /* its context */
	size_t n;          /* all variables */
	const size_t *at;  /* m: where each optimised variable sits among the n */
	double *full;      /* n: the point f is handed (fixed variables at their start) */
	double *gfull;     /* n: f's gradient */
} owlqn_packed;

/* The smooth part at the packed y: spread into the full point, f there, its gradient
 * gathered back. */
static double owlqn_packed_eval(const double *y, double *g, size_t m, void *ctx)
{
	owlqn_packed *p = ctx;
	double fx;
	size_t q;

	for (q = 0; q < m; q++)
		p->full[p->at[q]] = y[q];
	fx = p->f(p->full, g != NULL ? p->gfull : NULL, p->n, p->ctx);
	for (q = 0; g != NULL && q < m; q++)
		g[q] = p->gfull[p->at[q]];
	return fx;
}

/* Where the optimised variables sit, penalised ones first, into at (n entries); their count
 * in *m and that of the penalised ones in *pen. */
static void owlqn_roles_order(const unsigned char *role, size_t n, size_t *at, size_t *m,
                              size_t *pen)
{
	size_t i;

	*m = 0;
	for (i = 0; i < n; i++)
		if (role[i] == FB_OWLQN_PENALISED)
			at[(*m)++] = i;
	*pen = *m;
	for (i = 0; i < n; i++)
		if (role[i] == FB_OWLQN_FREE)
			at[(*m)++] = i;
}

/* fb_owlqn under roles: OWL-QN on the optimised variables alone; with none, f once at x. */
static int owlqn_roles(size_t n, double *x, fb_objective f, void *ctx,
                       const fb_owlqn_options *opt, fb_lbfgs_report *rep, fb_error *err)
{
	fb_owlqn_options po = *opt;
	owlqn_packed p = { f, ctx, n, NULL, NULL, NULL };
	size_t *at, m, pen, q;
	double *y;
	int status = FB_OK;

	if (opt->l1_begin != 0 || opt->l1_end != 0)
		return fb_fail(err, "owl-qn: l1_begin and l1_end must be 0 when roles are given");
	at = fb_xmalloc((n > 0 ? n : 1) * sizeof *at);
	owlqn_roles_order(opt->role, n, at, &m, &pen);
	p.at = at;
	p.full = fb_xmalloc((n > 0 ? n : 1) * sizeof *p.full);
	p.gfull = fb_xmalloc((n > 0 ? n : 1) * sizeof *p.gfull);
	memcpy(p.full, x, n * sizeof *x);
	y = fb_xmalloc((m > 0 ? m : 1) * sizeof *y);
	for (q = 0; q < m; q++)
		y[q] = x[at[q]];
	po.role = NULL;
	po.l1 = pen > 0 ? opt->l1 : 0.0;
	po.l1_end = pen;
	if (m > 0)
		status = owlqn_plain(m, y, owlqn_packed_eval, &p, &po, rep, err);
	else if (rep != NULL)
		*rep = (fb_lbfgs_report){ f(x, NULL, n, ctx), 1, LBFGS_SUCCESS };
	for (q = 0; status == FB_OK && q < m; q++)
		x[at[q]] = y[q];
	free(y);
	free(p.full);
	free(p.gfull);
	free(at);
	return status;
}

/* Minimise f(x) + l1 |x[l1_begin..l1_end)|_1 from x (in place) with OWL-QN, or under the
 * options' roles. */
int fb_owlqn(size_t n, double *x, fb_objective f, void *ctx, const fb_owlqn_options *opt,
             fb_lbfgs_report *rep, fb_error *err)
{
	if (opt != NULL && opt->role != NULL && x != NULL && f != NULL && n > 0)
		return owlqn_roles(n, x, f, ctx, opt, rep, err);
	return owlqn_plain(n, x, f, ctx, opt, rep, err);
}
