/* An adapter over L-BFGS-B 3.0 (Byrd, Lu, Nocedal and Zhu; Morales and Nocedal 2011), the
 * Debian liblbfgsb library: the same algorithm and stopping rules as scipy's
 * minimize(method="L-BFGS-B"), so that a learner can run exactly the solver its reference
 * code ran.  The library is driven by reverse communication through its Fortran entry
 * point setulb. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/optim.h"

/* Defaults (scipy's: maxcor 10, maxfun = maxiter = 15000, factr 1e7, pgtol 1e-5). */
#define LBFGSB_MEMORY 10
#define LBFGSB_MAX_EVAL 15000
#define LBFGSB_MAX_ITER 15000
#define LBFGSB_FTOL_REL 2.220446049250313e-09
#define LBFGSB_PGTOL 1e-5
#define LBFGSB_TEXT 60 /* length of the library's task and scratch strings */

/* The library's entry point (gfortran calling convention: every argument by address, the
 * lengths of the two character arguments appended by value). */
extern void setulb_(int *n, int *m, double *x, double *l, double *u, int *nbd, double *f,
                    double *g, double *factr, double *pgtol, double *wa, int *iwa, char *task,
                    int *iprint, char *csave, int *lsave, int *isave, double *dsave,
                    size_t task_len, size_t csave_len);

/* Everything one run needs besides the caller's arrays. */
typedef struct lbfgsb_run {
	int n, m;              /* variables and stored correction pairs */
	double factr, pgtol;   /* the library's two stopping tolerances */
	double *l, *u, *g, *wa; /* bounds, gradient and the library's real workspace */
	int *nbd, *iwa;        /* bound kinds and the integer workspace */
	char task[LBFGSB_TEXT + 1], csave[LBFGSB_TEXT + 1];
	int lsave[4], isave[44];
	double dsave[29];
} lbfgsb_run;

/* Set a Fortran character argument: the text, padded with blanks. */
static void lbfgsb_set_text(char *dst, const char *text)
{
	size_t len = strlen(text);

	memset(dst, ' ', LBFGSB_TEXT);
	memcpy(dst, text, len);
	dst[LBFGSB_TEXT] = '\0';
}

/* True when the library's task string starts with prefix. */
static int lbfgsb_task_is(const lbfgsb_run *r, const char *prefix)
{
	return strncmp(r->task, prefix, strlen(prefix)) == 0;
}

/* Free a run's workspace. */
static void lbfgsb_run_free(lbfgsb_run *r)
{
	free(r->l);
	free(r->u);
	free(r->g);
	free(r->wa);
	free(r->nbd);
	free(r->iwa);
}

/* The library's bound kind of one variable: 0 free, 1 lower, 2 both, 3 upper. */
static int lbfgsb_bound_kind(const fb_lbfgs_options *opt, size_t i, double *lo, double *hi)
{
	int has_lo = opt != NULL && opt->lower != NULL && isfinite(opt->lower[i]);
	int has_hi = opt != NULL && opt->upper != NULL && isfinite(opt->upper[i]);

	*lo = has_lo ? opt->lower[i] : 0.0;
	*hi = has_hi ? opt->upper[i] : 0.0;
	if (has_lo && has_hi)
		return 2;
	return has_lo ? 1 : (has_hi ? 3 : 0);
}

/* Allocate the workspace and translate the options; FB_ERR naming the option at fault. */
static int lbfgsb_run_init(lbfgsb_run *r, size_t n, const double *x,
                           const fb_lbfgs_options *opt, fb_error *err)
{
	size_t m = (opt != NULL && opt->memory > 0) ? opt->memory : LBFGSB_MEMORY;
	double ftol = (opt != NULL && opt->ftol_rel > 0.0) ? opt->ftol_rel : LBFGSB_FTOL_REL;
	double pgtol = (opt != NULL && opt->pgtol > 0.0) ? opt->pgtol : LBFGSB_PGTOL;
	size_t i;

	if (n > 100000000 || m > 1000)
		return fb_fail(err, "l-bfgs-b: %zu variables or %zu corrections is too many", n, m);
	if (!isfinite(ftol) || !isfinite(pgtol))
		return fb_fail(err, "l-bfgs-b: ftol_rel and pgtol must be finite");
	if (opt != NULL && opt->xtol_rel != 0.0)
		return fb_fail(err, "l-bfgs-b: xtol_rel is not a stopping rule of L-BFGS-B");
	r->n = (int)n;
	r->m = (int)m;
	r->factr = ftol / DBL_EPSILON;
	r->pgtol = pgtol;
	r->l = malloc(n * sizeof *r->l);
	r->u = malloc(n * sizeof *r->u);
	r->g = calloc(n, sizeof *r->g);
	r->wa = malloc((2 * m * n + 5 * n + 11 * m * m + 8 * m) * sizeof *r->wa);
	r->nbd = malloc(n * sizeof *r->nbd);
	r->iwa = malloc(3 * n * sizeof *r->iwa);
	if (!r->l || !r->u || !r->g || !r->wa || !r->nbd || !r->iwa)
		return fb_fail(err, "l-bfgs-b: out of memory for %zu variables", n);
	for (i = 0; i < n; i++) {
		r->nbd[i] = lbfgsb_bound_kind(opt, i, &r->l[i], &r->u[i]);
		if (!isfinite(x[i]))
			return fb_fail(err, "l-bfgs-b: x[%zu] is not finite", i);
		if ((r->nbd[i] == 1 || r->nbd[i] == 2) && x[i] < r->l[i])
			return fb_fail(err, "l-bfgs-b: x[%zu] is below its lower bound", i);
		if ((r->nbd[i] == 2 || r->nbd[i] == 3) && x[i] > r->u[i])
			return fb_fail(err, "l-bfgs-b: x[%zu] is above its upper bound", i);
	}
	lbfgsb_set_text(r->task, "START");
	lbfgsb_set_text(r->csave, "");
	return FB_OK;
}

/* The length of the library's task string without its trailing blanks. */
static int lbfgsb_task_len(const lbfgsb_run *r)
{
	int len = LBFGSB_TEXT;

	while (len > 0 && (r->task[len - 1] == ' ' || r->task[len - 1] == '\0'))
		len--;
	return len;
}

/* The report code of the library's final task string. */
static int lbfgsb_code(const lbfgsb_run *r, int stopped)
{
	if (stopped)
		return FB_LBFGSB_LIMIT;
	if (lbfgsb_task_is(r, "CONV"))
		return FB_LBFGSB_CONVERGED;
	if (lbfgsb_task_is(r, "ABNORMAL"))
		return FB_LBFGSB_ABNORMAL;
	return FB_LBFGSB_ERROR;
}

/* Minimise f from x in place with L-BFGS-B: iterate the library, evaluating f when it asks,
 * and stop as scipy does (after max_eval evaluations or 15000 iterations, checked at each new
 * iterate).  The returned x is the library's last iterate, as scipy returns it. */
int fb_lbfgsb(size_t n, double *x, fb_objective f, void *ctx, const fb_lbfgs_options *opt,
              fb_lbfgs_report *rep, fb_error *err)
{
	size_t max_eval = (opt != NULL && opt->max_eval > 0) ? opt->max_eval : LBFGSB_MAX_EVAL;
	size_t evals = 0, iters = 0;
	lbfgsb_run r = { 0 };
	int iprint = -1, stopped = 0, code, status = FB_ERR;
	double fx = 0.0;

	if (n == 0 || x == NULL || f == NULL)
		return fb_fail(err, "l-bfgs-b: n, x or f is missing");
	if (lbfgsb_run_init(&r, n, x, opt, err) != FB_OK)
		goto out;
	for (;;) {
		setulb_(&r.n, &r.m, x, r.l, r.u, r.nbd, &fx, r.g, &r.factr, &r.pgtol, r.wa, r.iwa,
		        r.task, &iprint, r.csave, r.lsave, r.isave, r.dsave, LBFGSB_TEXT,
		        LBFGSB_TEXT);
		if (lbfgsb_task_is(&r, "FG")) {
			fx = f(x, r.g, n, ctx);
			evals++;
		} else if (lbfgsb_task_is(&r, "NEW_X")) {
			iters++;
			if (iters >= LBFGSB_MAX_ITER || evals > max_eval) {
				stopped = 1;
				break;
			}
		} else {
			break;
		}
	}
	code = lbfgsb_code(&r, stopped);
	if (rep != NULL) {
		rep->code = code;
		rep->evals = evals;
		rep->f = fx;
	}
	if (code == FB_LBFGSB_ERROR || !isfinite(fx)) {
		fb_fail(err, "l-bfgs-b: the optimiser stopped after %zu evaluations: %.*s%s", evals,
		        lbfgsb_task_len(&r), r.task, isfinite(fx) ? "" : " (no finite objective)");
		goto out;
	}
	status = FB_OK;
out:
	lbfgsb_run_free(&r);
	return status;
}
