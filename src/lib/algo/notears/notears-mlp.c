/* NOTEARS-MLP (Zheng et al. 2020; ALGORITHMS.md §3): the MLP stack {d, hidden, 1} fitted by
 * L-BFGS-B with its first layer split into nonnegative parts, in NOTEARS' augmented-
 * Lagrangian schedule.  One step is one outer iteration. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/honour.h"
#include "fedbn/notears-mlp.h"
#include "mlp-int.h"

struct fb_notears_mlp {
	fb_mlp_options opt;    /* the settings */
	const fb_dataset *ds;  /* the rows (not owned) */
	size_t d, m;           /* variables, hidden units */
	fb_nn_stack *net;      /* the model; its parameters are set from x at each evaluation */
	size_t P;              /* first-layer weights, d*m*d */
	size_t nx;             /* length of x: 2P + the other parameters */
	size_t w1;             /* offset of the output weights in x */
	size_t nw1;            /* their count */
	double *x;             /* [theta+; theta-; the rest] (owned) */
	double *lower, *upper; /* the bounds of x (owned) */
	double *g;             /* the stack's parameter gradient (owned) */
	fb_mlp_h_work hw;      /* the acyclicity term's scratch */
	double rho, alpha;     /* the penalty and the multiplier */
	double h;              /* h at the last accepted point (+inf before) */
	double eval_rho;       /* the rho of the solve under way */
	double eval_alpha;     /* the alpha of the solve under way */
	size_t iter;           /* outer iterations done */
	bool done;             /* finished (or failed) */
	unsigned char *role;   /* d*d arcs under the knowledge (fb_honour_roles), or NULL */
	unsigned char *pen;    /* P: whether first-layer weight k is under the l1 term */
};

/* The smooth part at the stack's current parameters p: loss + (lambda2/2)(|theta|^2 +
 * |v|^2) + (rho/2) h^2 + alpha h, with (want_grad) its gradient over p in nm->g; loss and h
 * out (may be NULL).  +inf when the model cannot be evaluated there. */
static double mlp_smooth(fb_notears_mlp *nm, double rho, double alpha, bool want_grad,
                         double *loss_out, double *h_out, fb_error *err)
{
	const double *p = fb_nn_stack_params(nm->net);
	size_t P = nm->P, w1 = nm->w1 - P;
	double loss, h, l2 = 0.0, lam2 = nm->opt.lambda2;

	for (size_t k = 0; k < P; k++)
		l2 += p[k] * p[k];
	for (size_t k = 0; k < nm->nw1; k++)
		l2 += p[w1 + k] * p[w1 + k];
	if (fb_nn_stack_mse(nm->net, nm->ds->n, nm->ds->x, NULL, &loss, want_grad ? nm->g : NULL,
	                    NULL, err) != FB_OK || fb_mlp_h_eval(&nm->hw, p, &h, err) != FB_OK)
		return INFINITY;
	if (loss_out != NULL)
		*loss_out = loss;
	if (h_out != NULL)
		*h_out = h;
	if (want_grad) {
		fb_mlp_h_grad_add(&nm->hw, p, rho * h + alpha, nm->g);
		for (size_t k = 0; k < P; k++)
			nm->g[k] += lam2 * p[k];
		for (size_t k = 0; k < nm->nw1; k++)
			nm->g[w1 + k] += lam2 * p[w1 + k];
	}
	return loss + 0.5 * lam2 * l2 + 0.5 * rho * h * h + alpha * h;
}

/* The augmented objective at the split x; loss and h out (may be NULL); grad (nx) when not
 * NULL.  +inf (grad zero) when the model cannot be evaluated there. */
static double mlp_eval(fb_notears_mlp *nm, const double *x, double rho, double alpha,
                       double *grad, double *loss_out, double *h_out, fb_error *err)
{
	size_t P = nm->P, rest = nm->nx - 2 * P;
	double *p = fb_nn_stack_params(nm->net), l1 = 0.0, f, lam1 = nm->opt.lambda1;
	const unsigned char *pen = nm->pen;

	for (size_t k = 0; k < P; k++) {
		p[k] = x[k] - x[P + k];
		if (pen[k])
			l1 += x[k] + x[P + k];
	}
	memcpy(p + P, x + 2 * P, rest * sizeof *p);
	f = mlp_smooth(nm, rho, alpha, grad != NULL, loss_out, h_out, err);
	if (grad == NULL)
		return f + lam1 * l1;
	if (!isfinite(f)) {
		memset(grad, 0, nm->nx * sizeof *grad);
		return INFINITY;
	}
	for (size_t k = 0; k < P; k++) {
		double l = pen[k] ? lam1 : 0.0;

		grad[k] = nm->g[k] + l;
		grad[P + k] = -nm->g[k] + l;
	}
	memcpy(grad + 2 * P, nm->g + P, rest * sizeof *grad);
	return f + lam1 * l1;
}

/* The smooth part at the unsplit y = [theta; the rest] for fb_owlqn (which adds lambda1
 * |theta|_1); the self-inputs' gradient is zero, so from zero they stay there. */
static double mlp_owlqn_objective(const double *y, double *grad, size_t ny, void *ctx)
{
	fb_notears_mlp *nm = ctx;
	double f;

	fb_nn_stack_set_params(nm->net, y);
	f = mlp_smooth(nm, nm->eval_rho, nm->eval_alpha, grad != NULL, NULL, NULL, NULL);
	if (grad == NULL)
		return f;
	if (!isfinite(f)) {
		memset(grad, 0, ny * sizeof *grad);
		return INFINITY;
	}
	memcpy(grad, nm->g, ny * sizeof *grad);
	for (size_t k = 0; k < nm->P; k++)
		if (nm->upper[k] == 0.0)
			grad[k] = 0.0;
	return f;
}

/* The objective of the solve under way, for fb_lbfgsb. */
static double mlp_objective(const double *x, double *grad, size_t nx, void *ctx)
{
	fb_notears_mlp *nm = ctx;

	(void)nx;
	return mlp_eval(nm, x, nm->eval_rho, nm->eval_alpha, grad, NULL, NULL, NULL);
}

/* The augmented objective at x with rho and alpha, and its gradient. */
int fb_notears_mlp_objective(fb_notears_mlp *nm, const double *x, double rho, double alpha,
                             double *f, double *grad, fb_error *err)
{
	fb_error e = { { 0 } };

	*f = mlp_eval(nm, x, rho, alpha, grad, NULL, NULL, &e);
	if (isfinite(*f))
		return FB_OK;
	return fb_fail(err, "notears-mlp: the model cannot be evaluated: %s", e.msg);
}

/* Bounds: theta+- in [0, inf), self-inputs (i = j) and the inputs of the arcs the knowledge
 * forbids in [0, 0]; the rest free. */
static void mlp_bounds(fb_notears_mlp *nm)
{
	size_t d = nm->d, P = nm->P;

	for (size_t k = 0; k < nm->nx; k++) {
		nm->lower[k] = k < 2 * P ? 0.0 : -INFINITY;
		nm->upper[k] = INFINITY;
	}
	for (size_t k = 0; k < P; k++) {
		if (k % d == (k / d) / nm->m || /* row j*m + mm, column i: i == j */
		    (nm->role != NULL && nm->role[(k % d) * d + (k / d) / nm->m] ==
		                         FB_ENTRY_FORBIDDEN)) {
			nm->upper[k] = 0.0;
			nm->upper[P + k] = 0.0;
		}
	}
}

/* PyTorch's default initialisation, from stream "notears-mlp init": theta+, theta- and the
 * first-layer bias U(+-1/sqrt d), then the output weights and bias U(+-1/sqrt hidden); the
 * split parts projected onto their bounds, as L-BFGS-B does with its starting point. */
static void mlp_init(fb_notears_mlp *nm)
{
	gsl_rng *r = fb_rng_stream(nm->opt.seed, "notears-mlp init");
	size_t P = nm->P, dm = nm->d * nm->m;
	double b0 = 1.0 / sqrt((double)nm->d), b1 = 1.0 / sqrt((double)nm->m);

	fb_nn_uniform_fill(nm->x, 2 * P + dm, b0, r);
	fb_nn_uniform_fill(nm->x + 2 * P + dm, nm->nx - 2 * P - dm, b1, r);
	for (size_t k = 0; k < 2 * P; k++)
		nm->x[k] = fmin(fmax(nm->x[k], nm->lower[k]), nm->upper[k]);
	gsl_rng_free(r);
}

/* Refuse settings no run can use. */
static int mlp_check_options(const fb_mlp_options *o, fb_error *err)
{
	if (o->hidden < 1)
		return fb_fail(err, "notears-mlp: hidden=%zu: it needs at least one unit", o->hidden);
	if (!(o->lambda1 >= 0.0 && o->lambda2 >= 0.0 && isfinite(o->lambda1) &&
	      isfinite(o->lambda2)))
		return fb_fail(err, "notears-mlp: lambda1 and lambda2 must be finite and >= 0");
	if (!(o->rho_max > 1.0))
		return fb_fail(err, "notears-mlp: rho_max=%g must exceed 1", o->rho_max);
	return FB_OK;
}

/* Start a run on ds. */
fb_notears_mlp *fb_notears_mlp_alloc(const fb_dataset *ds, const fb_mlp_options *opt,
                                     fb_error *err)
{
	fb_notears_mlp *nm;
	fb_nn_span sp;

	if (fb_mlp_check_data(ds, "notears-mlp", err) != FB_OK)
		return NULL;
	nm = fb_xcalloc(1, sizeof *nm);
	if (opt != NULL)
		nm->opt = *opt;
	else
		fb_mlp_options_init(&nm->opt);
	if (mlp_check_options(&nm->opt, err) != FB_OK ||
	    (nm->net = fb_mlp_stack_alloc(ds->d, nm->opt.hidden, err)) == NULL) {
		free(nm);
		return NULL;
	}
	nm->ds = ds;
	nm->d = ds->d;
	nm->m = nm->opt.hidden;
	nm->P = nm->d * nm->m * nm->d;
	nm->nx = fb_nn_stack_nparams(nm->net) + nm->P;
	fb_nn_stack_span(nm->net, 1, &sp);
	nm->w1 = sp.weight + nm->P;
	nm->nw1 = sp.nweight;
	nm->x = fb_xcalloc(nm->nx, sizeof *nm->x);
	nm->lower = fb_xcalloc(nm->nx, sizeof *nm->lower);
	nm->upper = fb_xcalloc(nm->nx, sizeof *nm->upper);
	nm->g = fb_xcalloc(fb_nn_stack_nparams(nm->net), sizeof *nm->g);
	fb_mlp_h_init(&nm->hw, nm->d, nm->m);
	if (fb_honour_roles(nm->opt.knowledge, nm->d, &nm->role, err) != FB_OK) {
		fb_notears_mlp_free(nm);
		return NULL;
	}
	nm->opt.knowledge = NULL; /* read into the roles, not kept */
	nm->pen = fb_xmalloc(nm->P);
	for (size_t k = 0; k < nm->P; k++)
		nm->pen[k] = fb_mlp_penalised(nm->role, nm->d, nm->m, k);
	mlp_bounds(nm);
	mlp_init(nm);
	nm->rho = 1.0;
	nm->h = INFINITY;
	return nm;
}

/* Free a run. */
void fb_notears_mlp_free(fb_notears_mlp *nm)
{
	if (nm == NULL)
		return;
	fb_nn_stack_free(nm->net);
	fb_mlp_h_release(&nm->hw);
	free(nm->x);
	free(nm->lower);
	free(nm->upper);
	free(nm->g);
	free(nm->role);
	free(nm->pen);
	free(nm);
}

/* One OWL-QN solve on the unsplit parameters, from the current x; the result is split back
 * into x (theta+ = max(theta, 0), theta- = max(-theta, 0)). */
static int mlp_solve_owlqn(fb_notears_mlp *nm, size_t *evals, fb_error *err)
{
	size_t P = nm->P, ny = nm->nx - P;
	double *y = fb_xcalloc(ny, sizeof *y);
	unsigned char *yrole = NULL;
	fb_owlqn_options oo = { 0 };
	fb_lbfgs_report rep = { 0 };
	int rc;

	for (size_t k = 0; k < P; k++)
		y[k] = nm->x[k] - nm->x[P + k];
	memcpy(y + P, nm->x + 2 * P, (ny - P) * sizeof *y);
	oo.memory = 10;
	oo.max_eval = 15000;
	oo.ftol_rel = 2.220446049250313e-09;
	oo.gtol = 1e-5;
	oo.l1 = nm->opt.lambda1;
	oo.l1_end = P;
	if (nm->role != NULL) { /* the zero-bounded weights fixed, the required ones free */
		oo.role = yrole = fb_mlp_layer_roles(nm->role, nm->d, nm->m, ny, NULL);
		oo.l1_end = 0;
		for (size_t k = 0; k < P; k++)
			if (nm->upper[k] == 0.0)
				yrole[k] = FB_OWLQN_FIXED;
	}
	rc = fb_owlqn(ny, y, mlp_owlqn_objective, nm, &oo, &rep, err);
	free(yrole);
	*evals += rep.evals;
	for (size_t k = 0; k < P; k++) {
		nm->x[k] = y[k] > 0.0 ? y[k] : 0.0;
		nm->x[P + k] = y[k] < 0.0 ? -y[k] : 0.0;
	}
	memcpy(nm->x + 2 * P, y + P, (ny - P) * sizeof *y);
	free(y);
	return rc;
}

/* One solve at the current rho and alpha, from the current x, in place: L-BFGS-B on the
 * split parameters with their bounds, or OWL-QN on the unsplit ones. */
static int mlp_solve(fb_notears_mlp *nm, size_t *evals, fb_error *err)
{
	fb_lbfgs_options lo = { 0 };
	fb_lbfgs_report rep = { 0 };
	int rc;

	nm->eval_rho = nm->rho;
	nm->eval_alpha = nm->alpha;
	if (nm->opt.solver == FB_MLP_OWLQN)
		return mlp_solve_owlqn(nm, evals, err);
	lo.memory = 10;
	lo.max_eval = 15000;
	lo.ftol_rel = 2.220446049250313e-09; /* scipy: factr 1e7 x machine epsilon */
	lo.pgtol = 1e-5;
	lo.lower = nm->lower;
	lo.upper = nm->upper;
	rc = fb_lbfgsb(nm->nx, nm->x, mlp_objective, nm, &lo, &rep, err);
	*evals += rep.evals;
	return rc;
}

/* Count the entries of W = sqrt(A) beyond the threshold. */
static size_t mlp_edges(const fb_notears_mlp *nm)
{
	size_t d = nm->d, e = 0;
	double *w = fb_xcalloc(d * d, sizeof *w);

	fb_notears_mlp_adjacency(nm, w);
	for (size_t k = 0; k < d * d; k++)
		e += w[k] > nm->opt.w_threshold;
	free(w);
	return e;
}

/* One outer iteration: solves with rho x10 while h > h_prev/4, then alpha += rho h. */
int fb_notears_mlp_step(fb_notears_mlp *nm, fb_mlp_round *out, fb_error *err)
{
	size_t solves = 0, evals = 0;
	double h = INFINITY, loss = 0.0, f = INFINITY;

	if (nm->done)
		return fb_fail(err, "notears-mlp: the run has finished");
	while (nm->rho < nm->opt.rho_max) {
		solves++;
		if (mlp_solve(nm, &evals, err) != FB_OK) {
			nm->done = true;
			return FB_ERR;
		}
		f = mlp_eval(nm, nm->x, nm->rho, nm->alpha, NULL, &loss, &h, NULL);
		if (!(h > 0.25 * nm->h))
			break;
		nm->rho *= 10.0;
	}
	nm->alpha += nm->rho * h;
	nm->h = h;
	nm->iter++;
	nm->done = !(h > nm->opt.h_tol) || nm->rho >= nm->opt.rho_max ||
	           nm->iter >= nm->opt.max_iter;
	if (out != NULL)
		*out = (fb_mlp_round){ nm->iter, f, loss, h, nm->rho, nm->alpha, solves, evals,
		                       mlp_edges(nm) };
	return FB_OK;
}

/* Whether the run has finished. */
bool fb_notears_mlp_done(const fb_notears_mlp *nm)
{
	return nm->done;
}

/* W = sqrt(A) of the current first layer. */
void fb_notears_mlp_adjacency(const fb_notears_mlp *nm, double *w)
{
	size_t P = nm->P;
	double *theta = fb_xcalloc(P, sizeof *theta);

	for (size_t k = 0; k < P; k++)
		theta[k] = nm->x[k] - nm->x[P + k];
	fb_mlp_adjacency(nm->d, nm->m, theta, w);
	for (size_t k = 0; k < nm->d * nm->d; k++)
		w[k] = sqrt(w[k]);
	free(theta);
}

/* Length of x. */
size_t fb_notears_mlp_nvars(const fb_notears_mlp *nm)
{
	return nm->nx;
}

/* The current x. */
double *fb_notears_mlp_vars(fb_notears_mlp *nm)
{
	return nm->x;
}
