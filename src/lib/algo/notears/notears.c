/* Linear NOTEARS (ALGORITHMS.md §2): least squares on centred data, an l1 penalty, and the
 * augmented Lagrangian outer loop of the reference code, one outer iteration per step.
 *
 * Each subproblem is solved either by OWL-QN on the off-diagonal entries of W (the l1 term
 * handled by the method; the default) or, as in the reference code, by L-BFGS with bounds
 * on the split W = W+ - W- (2d^2 variables, diagonals fixed at 0), by NLopt or by
 * L-BFGS-B 3.0, the reference's own solver.  OWL-QN stops by the reference's rules (scipy's
 * relative reduction of the objective and largest projected-gradient entry), so only the
 * method differs; on the split nearly every step hits a bound, and both bounded solvers
 * need about 5 times more evaluations (on A_d50_n150_s1: OWL-QN 20326, L-BFGS-B 112555,
 * the reference itself 97464; SHD 25, 27 and 27).
 *
 * Speed: the loss needs only the second moments.  With S = Xc^T Xc / n computed once,
 * loss = 1/2 sum((I - W) o S(I - W)) and its gradient -S(I - W) cost one d x d x d product,
 * against two n x d x d products when working from the rows; the cheaper of the two is
 * chosen at allocation (S when d <= 2n).  No allocation happens inside the objective.
 * A run puts the BLAS on one thread: its matrices are small enough that more threads only
 * spin (at d = 100 two threads doubled the processor time). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>

#include "fedbn/core.h"
#include "fedbn/honour.h"
#include "fedbn/notears.h"
#include "fedbn/optim.h"

/* Growth of rho and the progress h must make, as in the reference code. */
#define NOTEARS_RHO_GROWTH 10.0
#define NOTEARS_PROGRESS 0.25

/* A NOTEARS run in progress. */
struct fb_notears {
	fb_notears_options opt; /* the settings, validated */
	size_t n;          /* rows of the data */
	size_t d;          /* variables */
	int gram;          /* 1: the loss works from S; 0: from the centred rows */
	gsl_matrix *S;     /* d x d: Xc^T Xc / n (gram), else NULL */
	gsl_matrix *X;     /* n x d: the centred rows (not gram), else NULL */
	gsl_matrix *res;   /* residual scratch: d x d S(I - W) (gram) or n x d Xc - Xc W */
	gsl_matrix *W;     /* d x d: the last accepted W */
	gsl_matrix *Wt;    /* d x d: W at the point being evaluated */
	gsl_matrix *G;     /* d x d: gradient of the smooth part at Wt */
	gsl_matrix *Gh;    /* d x d: gradient of h at Wt */
	fb_dag_h_work *hw; /* scratch of h */
	size_t nx;         /* optimisation variables: 2 d^2 (split) or d(d - 1) (OWL-QN) */
	double *x;         /* nx: the accepted point, [vec W+; vec W-] (split) or the
	                      off-diagonal entries of W row by row (OWL-QN) */
	double *xt;        /* nx: the point a solve starts from and returns */
	double *lower;     /* split: 2 d^2 lower bounds (all 0); else NULL */
	double *upper;     /* split: 2 d^2 upper bounds (0 on the diagonals, +inf elsewhere) */
	unsigned char *role;  /* d^2: each entry of W under the knowledge (fb_honour_roles), or
	                         NULL without knowledge */
	unsigned char *xrole; /* OWL-QN with knowledge: the nx roles for fb_owlqn (forbidden
	                         entries fixed at 0, required ones free of the l1 term), else
	                         NULL */
	double rho;        /* penalty on h^2 / 2 */
	double alpha;      /* multiplier of h */
	double h_prev;     /* h at the last accepted point (+inf at the start) */
	size_t iter;       /* outer iterations done */
	int done;          /* finished (converged, limits reached or failed) */
};

/* Check the settings; FB_ERR naming the first one out of range. */
static int notears_check_options(const fb_notears_options *o, fb_error *err)
{
	if (!(o->lambda1 >= 0.0) || !isfinite(o->lambda1))
		return fb_fail(err, "notears: lambda1 must be finite and >= 0");
	if (o->max_iter == 0)
		return fb_fail(err, "notears: max_iter must be at least 1");
	if (!(o->h_tol >= 0.0))
		return fb_fail(err, "notears: h_tol must be >= 0");
	if (!(o->rho_max > 1.0))
		return fb_fail(err, "notears: rho_max must exceed 1");
	if (!(o->w_threshold >= 0.0) || !isfinite(o->w_threshold))
		return fb_fail(err, "notears: w_threshold must be finite and >= 0");
	if (o->loss != FB_NOTEARS_L2)
		return fb_fail(err, "notears: loss must be least squares (l2)");
	if (o->solver != FB_NOTEARS_OWLQN && o->solver != FB_NOTEARS_SPLIT &&
	    o->solver != FB_NOTEARS_LBFGSB)
		return fb_fail(err, "notears: solver must be owlqn, split or lbfgsb");
	if (!(o->lbfgs_ftol >= 0.0) || !isfinite(o->lbfgs_ftol))
		return fb_fail(err, "notears: lbfgs_ftol must be finite and >= 0");
	return FB_OK;
}

/* Check that ds can be used: present, non-empty, continuous and finite. */
static int notears_check_data(const fb_dataset *ds, fb_error *err)
{
	size_t i, j;

	if (ds == NULL || ds->n == 0 || ds->d == 0)
		return fb_fail(err, "notears: the dataset is empty");
	if (ds->d < 2)
		return fb_fail(err, "notears: the dataset needs at least 2 variables");
	for (j = 0; j < ds->d; j++)
		if (ds->vars[j].kind != FB_CONTINUOUS)
			return fb_fail(err, "notears: variable '%s' is discrete; linear NOTEARS "
			               "needs continuous columns", ds->vars[j].name);
	for (i = 0; i < ds->n; i++)
		for (j = 0; j < ds->d; j++)
			if (!isfinite(ds->x[i * ds->d + j]))
				return fb_fail(err, "notears: row %zu of variable '%s' is not "
				               "finite", i + 1, ds->vars[j].name);
	return FB_OK;
}

/* The centred data as a new n x d matrix (column means subtracted); NULL on out-of-memory. */
static gsl_matrix *notears_centre(const fb_dataset *ds)
{
	gsl_matrix *X = gsl_matrix_alloc(ds->n, ds->d);
	size_t i, j;

	if (X == NULL)
		return NULL;
	for (j = 0; j < ds->d; j++) {
		double mean = 0.0;

		for (i = 0; i < ds->n; i++)
			mean += ds->x[i * ds->d + j];
		mean /= (double)ds->n;
		for (i = 0; i < ds->n; i++)
			gsl_matrix_set(X, i, j, ds->x[i * ds->d + j] - mean);
	}
	return X;
}

/* S = X^T X / n, exactly symmetric (lower triangle by dsyrk, mirrored); NULL on OOM. */
static gsl_matrix *notears_second_moments(const gsl_matrix *X)
{
	size_t d = X->size2, i, j;
	gsl_matrix *S = gsl_matrix_calloc(d, d);

	if (S == NULL)
		return NULL;
	gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0 / (double)X->size1, X, 0.0, S);
	for (i = 0; i < d; i++)
		for (j = i + 1; j < d; j++)
			gsl_matrix_set(S, i, j, gsl_matrix_get(S, j, i));
	return S;
}

/* True when the solver works on the split W = W+ - W- (2 d^2 bounded variables). */
static int notears_is_split(const fb_notears *nt)
{
	return nt->opt.solver != FB_NOTEARS_OWLQN;
}

/* The bounds of the split: all >= 0, the diagonals of W+ and W- fixed at 0. */
static void notears_bounds(fb_notears *nt)
{
	size_t d = nt->d, d2 = d * d, k;

	for (k = 0; k < 2 * d2; k++) {
		nt->lower[k] = 0.0;
		nt->upper[k] = ((k % d2) / d == (k % d2) % d) ? 0.0 : HUGE_VAL;
	}
}

/* Allocate the matrices and vectors of a run for the chosen loss path; FB_ERR on OOM. */
static int notears_alloc_parts(fb_notears *nt, gsl_matrix *Xc, fb_error *err)
{
	size_t d = nt->d, d2 = d * d;

	nt->gram = (d <= 2 * nt->n);
	if (nt->gram) {
		nt->S = notears_second_moments(Xc);
		nt->res = gsl_matrix_alloc(d, d);
		gsl_matrix_free(Xc);
	} else {
		nt->X = Xc;
		nt->res = gsl_matrix_alloc(nt->n, d);
	}
	nt->W = gsl_matrix_calloc(d, d);
	nt->Wt = gsl_matrix_alloc(d, d);
	nt->G = gsl_matrix_alloc(d, d);
	nt->Gh = gsl_matrix_alloc(d, d);
	nt->hw = fb_dag_h_work_alloc(d);
	nt->nx = (notears_is_split(nt)) ? 2 * d2 : d2 - d;
	nt->x = calloc(nt->nx > 0 ? nt->nx : 1, sizeof *nt->x);
	nt->xt = calloc(nt->nx > 0 ? nt->nx : 1, sizeof *nt->xt);
	if (notears_is_split(nt)) {
		nt->lower = malloc(2 * d2 * sizeof *nt->lower);
		nt->upper = malloc(2 * d2 * sizeof *nt->upper);
	}
	if ((nt->gram ? nt->S == NULL : nt->X == NULL) || nt->res == NULL || nt->W == NULL ||
	    nt->Wt == NULL || nt->G == NULL || nt->Gh == NULL || nt->hw == NULL ||
	    nt->x == NULL || nt->xt == NULL ||
	    (notears_is_split(nt) && (nt->lower == NULL || nt->upper == NULL)))
		return fb_fail(err, "notears: out of memory for d = %zu", d);
	if (nt->lower != NULL)
		notears_bounds(nt);
	return FB_OK;
}

/* Knowledge inside the solvers: the split's bounds hold a forbidden entry's W+ and W- at 0;
 * OWL-QN's roles fix a forbidden entry at 0 (where every solve starts) and leave a required
 * one out of the l1 term.  Nothing without knowledge; FB_ERR on knowledge of another size. */
static int notears_knowledge(fb_notears *nt, const fb_knowledge *k, fb_error *err)
{
	size_t d = nt->d, d2 = d * d, i, j, q = 0;

	if (fb_honour_roles(k, d, &nt->role, err) != FB_OK)
		return FB_ERR;
	if (nt->role == NULL)
		return FB_OK;
	if (notears_is_split(nt)) {
		for (q = 0; q < d2; q++)
			if (nt->role[q] == FB_ENTRY_FORBIDDEN)
				nt->upper[q] = nt->upper[d2 + q] = 0.0;
		return FB_OK;
	}
	nt->xrole = fb_xmalloc(nt->nx > 0 ? nt->nx : 1);
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			if (i != j)
				nt->xrole[q++] = nt->role[i * d + j] == FB_ENTRY_FORBIDDEN ? FB_OWLQN_FIXED
				                 : nt->role[i * d + j] == FB_ENTRY_REQUIRED ? FB_OWLQN_FREE
				                                                          : FB_OWLQN_PENALISED;
	return FB_OK;
}

/* Start a run on ds. */
fb_notears *fb_notears_alloc(const fb_dataset *ds, const fb_notears_options *opt,
                             fb_error *err)
{
	fb_notears *nt;
	gsl_matrix *Xc;

	if (notears_check_data(ds, err) != FB_OK)
		return NULL;
	nt = calloc(1, sizeof *nt);
	if (nt == NULL) {
		fb_fail(err, "notears: out of memory");
		return NULL;
	}
	if (opt != NULL)
		nt->opt = *opt;
	else
		fb_notears_options_init(&nt->opt);
	if (notears_check_options(&nt->opt, err) != FB_OK) {
		free(nt);
		return NULL;
	}
	fb_blas_single_thread();
	nt->n = ds->n;
	nt->d = ds->d;
	nt->rho = 1.0;
	nt->alpha = 0.0;
	nt->h_prev = HUGE_VAL;
	Xc = notears_centre(ds);
	if (Xc == NULL || notears_alloc_parts(nt, Xc, err) != FB_OK ||
	    notears_knowledge(nt, nt->opt.knowledge, err) != FB_OK) {
		if (Xc == NULL)
			fb_fail(err, "notears: out of memory for n = %zu, d = %zu", ds->n, ds->d);
		fb_notears_free(nt);
		return NULL;
	}
	nt->opt.knowledge = NULL; /* read into the roles, not kept */
	return nt;
}

/* Free a run. */
void fb_notears_free(fb_notears *nt)
{
	if (nt == NULL)
		return;
	gsl_matrix_free(nt->S);
	gsl_matrix_free(nt->X);
	gsl_matrix_free(nt->res);
	gsl_matrix_free(nt->W);
	gsl_matrix_free(nt->Wt);
	gsl_matrix_free(nt->G);
	gsl_matrix_free(nt->Gh);
	fb_dag_h_work_free(nt->hw);
	free(nt->x);
	free(nt->xt);
	free(nt->lower);
	free(nt->upper);
	free(nt->role);
	free(nt->xrole);
	free(nt);
}

/* sum over i, j of A_ij B_ij (plain loops: the order is fixed whatever the BLAS). */
static double mat_dot(const gsl_matrix *a, const gsl_matrix *b)
{
	double sum = 0.0;
	size_t i, j;

	for (i = 0; i < a->size1; i++) {
		const double *x = gsl_matrix_const_ptr(a, i, 0), *y = gsl_matrix_const_ptr(b, i, 0);

		for (j = 0; j < a->size2; j++)
			sum += x[j] * y[j];
	}
	return sum;
}

/* The least-squares loss at W and its gradient into G (both paths; no checks). */
static double notears_loss_eval(fb_notears *nt, const gsl_matrix *W, gsl_matrix *G)
{
	size_t d = nt->d, i;

	if (nt->gram) {
		/* R = S W - S = -S(I - W) is the gradient; loss = 1/2 sum((I - W) o S(I - W))
		 * = -1/2 (tr R - sum(W o R)) */
		gsl_matrix *R = (G != NULL) ? G : nt->res;
		double tr = 0.0;

		gsl_matrix_memcpy(R, nt->S);
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, nt->S, W, -1.0, R);
		for (i = 0; i < d; i++)
			tr += gsl_matrix_get(R, i, i);
		return -0.5 * (tr - mat_dot(W, R));
	}
	/* res = Xc - Xc W; loss = |res|^2 / (2n); gradient -Xc^T res / n */
	gsl_matrix_memcpy(nt->res, nt->X);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, -1.0, nt->X, W, 1.0, nt->res);
	if (G != NULL)
		gsl_blas_dgemm(CblasTrans, CblasNoTrans, -1.0 / (double)nt->n, nt->X, nt->res, 0.0,
		               G);
	return mat_dot(nt->res, nt->res) / (2.0 * (double)nt->n);
}

/* The data-fit term at any W, with size checks. */
int fb_notears_loss(fb_notears *nt, const gsl_matrix *W, double *loss, gsl_matrix *grad,
                    fb_error *err)
{
	if (nt == NULL || W == NULL || W->size1 != nt->d || W->size2 != nt->d)
		return fb_fail(err, "notears: W must be %zu x %zu", nt ? nt->d : 0,
		               nt ? nt->d : 0);
	if (grad != NULL && (grad->size1 != nt->d || grad->size2 != nt->d))
		return fb_fail(err, "notears: grad must be %zu x %zu", nt->d, nt->d);
	*loss = notears_loss_eval(nt, W, grad);
	return FB_OK;
}

/* W from the optimisation vector x into M (d x d, contiguous rows): W+ - W- (split) or
 * the off-diagonal entries in row order with a zero diagonal (OWL-QN). */
static void notears_to_w(const fb_notears *nt, const double *x, gsl_matrix *M)
{
	size_t d = nt->d, d2 = d * d, i, j, k = 0;

	for (i = 0; i < d; i++) {
		double *row = gsl_matrix_ptr(M, i, 0);

		if (notears_is_split(nt)) {
			for (j = 0; j < d; j++)
				row[j] = x[i * d + j] - x[d2 + i * d + j];
			continue;
		}
		for (j = 0; j < d; j++)
			row[j] = (i == j) ? 0.0 : x[k++];
	}
}

/* The smooth part loss + rho/2 h^2 + alpha h at x, its d x d gradient in nt->G when
 * want_grad; +inf when exp(W o W) overflows (the line searches then step back). */
static double notears_smooth(fb_notears *nt, const double *x, int want_grad)
{
	size_t d2 = nt->d * nt->d;
	double loss, h, c;

	notears_to_w(nt, x, nt->Wt);
	loss = notears_loss_eval(nt, nt->Wt, want_grad ? nt->G : NULL);
	if (fb_dag_h(nt->Wt, nt->hw, &h, want_grad ? nt->Gh : NULL, NULL) != FB_OK)
		return HUGE_VAL;
	c = nt->rho * h + nt->alpha;
	if (want_grad) {
		gsl_vector_view g = gsl_vector_view_array(nt->G->data, d2);
		gsl_vector_const_view gh = gsl_vector_const_view_array(nt->Gh->data, d2);

		gsl_blas_daxpy(c, &gh.vector, &g.vector);
	}
	return loss + 0.5 * nt->rho * h * h + nt->alpha * h;
}

/* The split subproblem (an fb_objective for fb_lbfgs): the smooth part plus lambda1 times
 * the sum of W+ and W-; the gradient is [G + lambda1; -G + lambda1]. */
static double notears_split_objective(const double *x, double *grad, size_t nx, void *ctx)
{
	fb_notears *nt = ctx;
	size_t d2 = nt->d * nt->d, k;
	double f = notears_smooth(nt, x, grad != NULL), l1 = 0.0, lam = nt->opt.lambda1;

	for (k = 0; k < nx; k++)
		l1 += (nt->role == NULL || nt->role[k % d2] != FB_ENTRY_REQUIRED) ? x[k] : 0.0;
	if (grad != NULL)
		for (k = 0; k < d2; k++) {
			double g = isfinite(f) ? nt->G->data[k] : 0.0;
			double l = (nt->role == NULL || nt->role[k] != FB_ENTRY_REQUIRED) ? lam : 0.0;

			grad[k] = g + l;
			grad[d2 + k] = -g + l;
		}
	return f + lam * l1;
}

/* The OWL-QN subproblem's smooth part (an fb_objective for fb_owlqn, which adds the l1
 * term): the gradient is G at the off-diagonal entries. */
static double notears_owlqn_objective(const double *x, double *grad, size_t nx, void *ctx)
{
	fb_notears *nt = ctx;
	size_t d = nt->d, i, j, k = 0;
	double f = notears_smooth(nt, x, grad != NULL);

	if (grad != NULL)
		for (i = 0; i < d; i++) {
			const double *g = gsl_matrix_const_ptr(nt->G, i, 0);

			for (j = 0; j < d; j++)
				if (i != j)
					grad[k++] = isfinite(f) ? g[j] : 0.0;
		}
	(void)nx;
	return f;
}

/* One solve of the current subproblem from the accepted point into xt; h of the result in
 * *h.  FB_ERR with err when the optimiser or h fails. */
static int notears_solve(fb_notears *nt, fb_lbfgs_report *rep, double *h, fb_error *err)
{
	int status;

	memcpy(nt->xt, nt->x, nt->nx * sizeof *nt->x);
	if (notears_is_split(nt)) {
		fb_lbfgs_options lo = { 0 };

		lo.memory = nt->opt.lbfgs_memory;
		lo.max_eval = nt->opt.lbfgs_max_eval;
		lo.ftol_rel = nt->opt.lbfgs_ftol;
		lo.lower = nt->lower;
		lo.upper = nt->upper;
		status = (nt->opt.solver == FB_NOTEARS_LBFGSB ? fb_lbfgsb : fb_lbfgs)(
			nt->nx, nt->xt, notears_split_objective, nt, &lo, rep, err);
	} else {
		fb_owlqn_options oo = { 0 };

		oo.memory = nt->opt.lbfgs_memory;
		oo.max_eval = nt->opt.lbfgs_max_eval;
		oo.ftol_rel = nt->opt.lbfgs_ftol;
		oo.l1 = nt->opt.lambda1;
		oo.scipy_stop = 1;
		oo.role = nt->xrole;
		status = fb_owlqn(nt->nx, nt->xt, notears_owlqn_objective, nt, &oo, rep, err);
	}
	if (status != FB_OK)
		return FB_ERR;
	notears_to_w(nt, nt->xt, nt->Wt);
	return fb_dag_h(nt->Wt, nt->hw, h, NULL, err);
}

/* Fill a round record from the accepted state. */
static void notears_record(fb_notears *nt, const fb_lbfgs_report *rep, double h,
                           fb_notears_round *out)
{
	size_t k, d2 = nt->d * nt->d;

	out->iter = nt->iter;
	out->objective = rep->f;
	out->loss = notears_loss_eval(nt, nt->W, NULL);
	out->l1 = 0.0;
	out->edges = 0;
	for (k = 0; k < d2; k++) {
		double a = fabs(nt->W->data[k]);

		out->l1 += a;
		out->edges += (a > nt->opt.w_threshold);
	}
	out->h = h;
	out->rho = nt->rho;
	out->alpha = nt->alpha;
	out->lbfgs_code = rep->code;
}

/* Do one outer iteration. */
int fb_notears_step(fb_notears *nt, fb_notears_round *out, fb_error *err)
{
	fb_lbfgs_report rep = { 0 };
	size_t solves = 0, evals = 0;
	double h = HUGE_VAL;

	if (nt == NULL || nt->done)
		return fb_fail(err, "notears: the run is already finished");
	while (nt->rho < nt->opt.rho_max) {
		if (notears_solve(nt, &rep, &h, err) != FB_OK) {
			nt->done = 1;
			return FB_ERR;
		}
		solves++;
		evals += rep.evals;
		if (h > NOTEARS_PROGRESS * nt->h_prev)
			nt->rho *= NOTEARS_RHO_GROWTH;
		else
			break;
	}
	/* accept the last solve (also when rho reached rho_max without enough progress) */
	memcpy(nt->x, nt->xt, nt->nx * sizeof *nt->x);
	notears_to_w(nt, nt->x, nt->W);
	nt->h_prev = h;
	nt->alpha += nt->rho * h;
	nt->iter++;
	if (h <= nt->opt.h_tol || nt->rho >= nt->opt.rho_max || nt->iter >= nt->opt.max_iter)
		nt->done = 1;
	if (out != NULL) {
		notears_record(nt, &rep, h, out);
		out->solves = solves;
		out->evals = evals;
	}
	return FB_OK;
}

/* True once the run has finished. */
bool fb_notears_done(const fb_notears *nt)
{
	return nt == NULL || nt->done;
}

/* The current unthresholded W. */
const gsl_matrix *fb_notears_weights(const fb_notears *nt)
{
	return nt->W;
}
