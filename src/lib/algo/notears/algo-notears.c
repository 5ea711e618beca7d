/* notears: linear NOTEARS on one dataset as a stepper; one step = one outer iteration. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/notears.h"

/* The state of a notears run. */
typedef struct nt_state {
	fb_notears *nt;     /* the optimiser */
	double threshold;   /* post-processing threshold */
	char **names;       /* the variables' names */
	size_t d;           /* how many */
} nt_state;

/* Read NOTEARS' parameters into options; the loss and the solver's settings, which are no
 * parameters, are set here. */
void fb_notears_options_from_params(const fb_params *p, fb_notears_options *o)
{
	memset(o, 0, sizeof *o);
	o->loss = FB_NOTEARS_L2;
	o->solver = FB_NOTEARS_OWLQN;
	o->lbfgs_memory = 10;
	o->lbfgs_max_eval = 15000;
	o->lbfgs_ftol = 2.220446049250313e-09;
	o->lambda1 = fb_params_double(p, "lambda");
	o->max_iter = (size_t)fb_params_int(p, "max_iter");
	o->h_tol = fb_params_double(p, "h_tol");
	o->rho_max = fb_params_double(p, "rho_max");
	o->w_threshold = fb_params_double(p, "threshold");
}

/* Start NOTEARS on the run's dataset with its parameters. */
static int nt_create(fb_run *run, fb_error *err)
{
	fb_notears_options o;
	nt_state *st = fb_xcalloc(1, sizeof *st);

	fb_notears_options_from_params(&run->params, &o);
	o.knowledge = fb_run_knowledge(run);
	st->threshold = o.w_threshold;
	st->d = run->data->d;
	st->names = fb_dataset_names(run->data);
	run->state = st;
	st->nt = fb_notears_alloc(run->data, &o, err);
	return st->nt != NULL ? FB_OK : FB_ERR;
}

/* One outer iteration. */
static int nt_step(fb_run *run, double *fig, fb_error *err)
{
	nt_state *st = run->state;
	fb_notears_round r;

	if (fb_notears_step(st->nt, &r, err) != FB_OK)
		return FB_ERR;
	fig[0] = r.objective;
	fig[1] = r.loss;
	fig[2] = r.h;
	fig[3] = r.rho;
	fig[4] = r.alpha;
	fig[5] = (double)r.evals;
	fb_run_say(run, "iteration %zu: fitted W with the acyclicity penalty at rho = %g; h(W) = "
	           "%.3g (0 means no cycle), %zu weight%s beyond the threshold", r.iter, r.rho,
	           r.h, r.edges, r.edges == 1 ? "" : "s");
	return FB_OK;
}

/* Finished when the optimiser is. */
static bool nt_done(const fb_run *run)
{
	return fb_notears_done(((const nt_state *)run->state)->nt);
}

/* The thresholded, acyclic estimate. */
static fb_graph *nt_result(const fb_run *run, fb_error *err)
{
	const nt_state *st = run->state;

	return fb_honour_weights_dag(fb_notears_weights(st->nt), st->threshold, st->names,
	                             fb_run_knowledge(run), NULL, err);
}

/* Threshold the kept weights at t from now on. */
static void nt_rethreshold(fb_run *run, double t)
{
	((nt_state *)run->state)->threshold = t;
}

/* The unthresholded weights. */
static int nt_weights(const fb_run *run, double *w, fb_error *err)
{
	const gsl_matrix *W = fb_notears_weights(((const nt_state *)run->state)->nt);

	for (size_t i = 0; i < W->size1; i++)
		for (size_t j = 0; j < W->size2; j++)
			w[i * W->size2 + j] = gsl_matrix_get(W, i, j);
	return FB_OK;
}

/* Free the state. */
static void nt_destroy(fb_run *run)
{
	nt_state *st = run->state;

	fb_notears_free(st->nt);
	fb_names_free(st->names, st->d);
	free(st);
	run->state = NULL;
}

/* How the graph is made from W. */
static const char *nt_note(const fb_run *run)
{
	return "weights with |w| <= threshold dropped, then the smallest removed until acyclic";
}

/* NOTEARS' parameters (ALGORITHMS.md §2). */
static const fb_param_def nt_params[] = {
	{ "lambda", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL,
	  "l1 penalty (the NOTEARS-ADMM paper's 0.01; the NOTEARS demo uses 0.1)" },
	{ "max_iter", FB_PARAM_INT, "100", 1, 1e6, NULL, "most outer iterations" },
	{ "h_tol", FB_PARAM_DOUBLE, "1e-8", 0, 1, NULL, "stop once h(W) is at most this" },
	{ "rho_max", FB_PARAM_DOUBLE, "1e16", 2, 1e300, NULL, "stop once the penalty reaches this" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL, "weights with |w| at most this are no edge" },
	{ 0 },
};

/* The defaults: the parameter table, the one place they are written, read into options. */
void fb_notears_options_init(fb_notears_options *o)
{
	fb_params p = fb_params_defaults(nt_params);

	fb_notears_options_from_params(&p, o);
	fb_params_release(&p);
}

/* NOTEARS' per-round figures. */
static const char *const nt_figures[] = { "objective", "loss", "h", "rho", "alpha", "evals",
	                                  NULL };

/* NOTEARS' options, read from its parameters. */
FB_ALGO_OPTIONS(nt_options, fb_notears_options, fb_notears_options_init,
		fb_notears_options_from_params);

const fb_algo fb_algo_notears = {
	.name = "notears", .summary = "linear NOTEARS on one dataset (continuous optimisation)",
	.intro = "Finds a causal graph by fitting a matrix of edge weights to the data, as a "
	         "regression of each variable on the others, while a penalty pushes the graph "
	         "towards having no cycles. It needs all the rows in one place. Small weights "
	         "are dropped at the end, leaving a directed graph without cycles.",
	.help = "Linear NOTEARS (Zheng et al. 2018): least squares on centred data plus an l1 "
	        "penalty, under the acyclicity constraint h(W) = tr(exp(W o W)) - d = 0, by an "
	        "augmented Lagrangian whose inner problems OWL-QN (liblbfgs) solves on the "
	        "off-diagonal weights, stopping by the reference's L-BFGS-B rules (projected "
	        "gradient 1e-5, relative reduction 2.2e-9). One round is one outer iteration. "
	        "Used alone it needs "
	        "the data in one place; federated, it is the learner of all:, sep:, voting:, "
	        "avg: and best:.",
	.flags = FB_ALGO_LOCAL | FB_ALGO_WEIGHTED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = nt_params, .figures = nt_figures,
	.create = nt_create, .step = nt_step, .done = nt_done, .result = nt_result,
	.destroy = nt_destroy, .note = nt_note, .weights = nt_weights,
	.rethreshold = nt_rethreshold,
	.options = &nt_options,
};
