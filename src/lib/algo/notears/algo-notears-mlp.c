/* notears-mlp (NOTEARS-MLP on one dataset, one step = one outer iteration) and
 * notears-mlp-admm (NOTEARS-MLP-ADMM over horizontal clients, one step = one round in which
 * each taking-part client sends its parameter vector and the server broadcasts its own). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/notears.h"
#include "fedbn/notears-mlp.h"

/* Write the d x d weights w as a graph: thresholded, then made acyclic, under the run's
 * knowledge. */
static fb_graph *mlp_graph(const fb_run *run, const double *w, size_t d, double threshold,
                           char *const *names, fb_error *err)
{
	gsl_matrix_const_view W = gsl_matrix_const_view_array(w, d, d);

	return fb_honour_weights_dag(&W.matrix, threshold, names, fb_run_knowledge(run), NULL,
	                             err);
}

/* ---- notears-mlp ---- */

/* The state of a notears-mlp run. */
typedef struct nm_state {
	fb_notears_mlp *nm; /* the optimiser */
	double threshold;   /* post-processing threshold */
	char **names;       /* the variables' names */
	size_t d;           /* how many */
} nm_state;

/* Read notears-mlp's parameters. */
void fb_mlp_options_from_params(const fb_params *p, fb_mlp_options *o)
{
	memset(o, 0, sizeof *o);
	o->hidden = (size_t)fb_params_int(p, "hidden");
	o->lambda1 = fb_params_double(p, "lambda1");
	o->lambda2 = fb_params_double(p, "lambda2");
	o->max_iter = (size_t)fb_params_int(p, "max_iter");
	o->h_tol = fb_params_double(p, "h_tol");
	o->rho_max = fb_params_double(p, "rho_max");
	o->w_threshold = fb_params_double(p, "threshold");
	o->seed = (uint64_t)fb_params_int(p, "seed");
	o->solver = (enum fb_mlp_solver)fb_params_choice(p, "solver");
}

/* Start NOTEARS-MLP on the run's dataset. */
static int nm_create(fb_run *run, fb_error *err)
{
	fb_mlp_options o;
	nm_state *st = fb_xcalloc(1, sizeof *st);

	fb_mlp_options_from_params(&run->params, &o);
	o.knowledge = fb_run_knowledge(run);
	st->threshold = o.w_threshold;
	st->d = run->data->d;
	st->names = fb_dataset_names(run->data);
	run->state = st;
	st->nm = fb_notears_mlp_alloc(run->data, &o, err);
	return st->nm != NULL ? FB_OK : FB_ERR;
}

/* One outer iteration. */
static int nm_step(fb_run *run, double *fig, fb_error *err)
{
	fb_mlp_round r;

	if (fb_notears_mlp_step(((nm_state *)run->state)->nm, &r, err) != FB_OK)
		return FB_ERR;
	fig[0] = r.objective;
	fig[1] = r.loss;
	fig[2] = r.h;
	fig[3] = r.rho;
	fig[4] = r.alpha;
	fig[5] = (double)r.evals;
	fb_run_say(run, "fitted the per-variable networks with the acyclicity penalty "
	           "at rho = %g; h of their first layers = %.3g (0 means no cycle)", r.rho, r.h);
	return FB_OK;
}

/* Finished when the optimiser is. */
static bool nm_done(const fb_run *run)
{
	return fb_notears_mlp_done(((const nm_state *)run->state)->nm);
}

/* The current sqrt(A). */
static int nm_weights(const fb_run *run, double *w, fb_error *err)
{
	(void)err;
	fb_notears_mlp_adjacency(((const nm_state *)run->state)->nm, w);
	return FB_OK;
}

/* sqrt(A), thresholded and made acyclic. */
static fb_graph *nm_result(const fb_run *run, fb_error *err)
{
	const nm_state *st = run->state;
	double *w = fb_xcalloc(st->d * st->d, sizeof *w);
	fb_graph *g;

	fb_notears_mlp_adjacency(st->nm, w);
	g = mlp_graph(run, w, st->d, st->threshold, st->names, err);
	free(w);
	return g;
}

/* Threshold at t from now on. */
static void nm_rethreshold(fb_run *run, double t)
{
	((nm_state *)run->state)->threshold = t;
}

/* Free the state. */
static void nm_destroy(fb_run *run)
{
	nm_state *st = run->state;

	fb_notears_mlp_free(st->nm);
	fb_names_free(st->names, st->d);
	free(st);
	run->state = NULL;
}

/* How the graph is made. */
static const char *nm_note(const fb_run *run)
{
	(void)run;
	return "edge weights are sqrt(A_ij), the first layer's strength of input i in network j; "
	       "those at most threshold dropped, then the smallest removed until acyclic";
}

/* The names of solver='s values. */
static const fb_choice nm_solvers[] = {
	{ "lbfgsb", FB_MLP_LBFGSB }, { "owlqn", FB_MLP_OWLQN }, { 0 },
};

/* NOTEARS-MLP's parameters (ALGORITHMS.md §3: the reference's defaults). */
static const fb_param_def nm_params[] = {
	{ "lambda1", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL, "l1 penalty on the first layer" },
	{ "lambda2", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL, "l2 penalty on the weights" },
	{ "hidden", FB_PARAM_INT, "10", 1, 1000, NULL, "hidden sigmoid units per variable" },
	{ "max_iter", FB_PARAM_INT, "100", 1, 1e6, NULL, "most outer iterations" },
	{ "h_tol", FB_PARAM_DOUBLE, "1e-8", 0, 1, NULL, "stop once h is at most this" },
	{ "rho_max", FB_PARAM_DOUBLE, "1e16", 2, 1e300, NULL, "stop once the penalty reaches this" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL,
	  "sqrt(A_ij) at most this is no edge" },
	{ "seed", FB_PARAM_INT, "1", 0, 9.2e18, NULL, "seed of the initial parameters" },
	{ "solver", FB_PARAM_CHOICE, "lbfgsb", 0, 0, nm_solvers,
	  "subproblem solver: L-BFGS-B on the first layer split into bounded nonnegative parts "
	  "(the reference's), or OWL-QN on the unsplit first layer with its l1 term (half the "
	  "variables, no bounds; faster)" },
	{ 0 },
};

/* The defaults, from the parameter table. */
void fb_mlp_options_init(fb_mlp_options *o)
{
	fb_params p = fb_params_defaults(nm_params);

	fb_mlp_options_from_params(&p, o);
	fb_params_release(&p);
}

/* NOTEARS-MLP's per-round figures. */
static const char *const nm_figures[] = { "objective", "loss", "h", "rho", "alpha", "evals",
	                                  NULL };

/* NOTEARS-MLP's options, read from its parameters. */
FB_ALGO_OPTIONS(mlp_options, fb_mlp_options, fb_mlp_options_init, fb_mlp_options_from_params);

const fb_algo fb_algo_notears_mlp = {
	.name = "notears-mlp", .summary = "nonlinear NOTEARS with one small network per variable",
	.intro = "Finds a causal graph when the variables depend on each other in nonlinear "
	         "ways: each variable is predicted from the others by its own small neural "
	         "network, and a penalty pushes the pattern of inputs the networks use towards "
	         "having no cycles. It needs all the rows in one place.",
	.help = "NOTEARS-MLP (Zheng et al. 2020): network j has hidden sigmoid units fed by "
	        "every variable; the strength of input i in network j, A_ij (the sum of its "
	        "squared first-layer weights), must satisfy h = tr(exp(A)) - d = 0. Least "
	        "squares plus l2 (lambda2) and l1 (lambda1, by splitting the first layer into "
	        "nonnegative parts) penalties, minimised by L-BFGS-B from the current "
	        "parameters in an augmented Lagrangian (rho x10 while h does not fall below a "
	        "quarter). One round is one outer iteration; the graph is sqrt(A) thresholded. "
	        "Federated, it is the learner of all:, sep:, voting:, avg: and best:.",
	.flags = FB_ALGO_LOCAL | FB_ALGO_WEIGHTED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = nm_params, .figures = nm_figures,
	.create = nm_create, .step = nm_step, .done = nm_done, .result = nm_result,
	.destroy = nm_destroy, .note = nm_note, .weights = nm_weights,
	.rethreshold = nm_rethreshold,
	.options = &mlp_options, .detail = FB_DETAIL_STRENGTHS,
};

/* ---- notears-mlp-admm ---- */

/* The state of a notears-mlp-admm run. */
typedef struct am_state {
	size_t k, d, np;           /* clients, variables, parameters */
	fb_mlp_client **clients;   /* each client's half (its own rows only) */
	fb_mlp_server *server;     /* the server's half (shapes only) */
	size_t round;              /* the round under way (1-based) */
	fb_mlp_admm_figures fig;   /* the server's figures of the last round */
	double threshold;          /* post-processing threshold */
	char **names;              /* variable names (metadata) */
} am_state;

/* Client k: its local step from the broadcast theta of the round its control number names
 * (a client that sat rounds out knows the penalties from it); sends theta_k; its figure is
 * |theta_k - theta|, the local residual. */
static int am_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	am_state *st = state;
	double loss;

	(void)local;
	if (down->nd != st->np || down->nc != 1 || !(down->c[0] >= 1 && down->c[0] < 1e15))
		return fb_fail(err, "notears-mlp-admm: the broadcast holds %zu numbers and %zu "
		               "control numbers, not %zu and the round", down->nd, down->nc, st->np);
	if (fb_mlp_client_local(st->clients[k], (size_t)down->c[0], down->d,
	                        fb_msg_doubles(up, st->np), err) != FB_OK)
		return FB_ERR;
	fb_mlp_client_figures(st->clients[k], &loss, figure);
	return FB_OK;
}

/* The broadcast of round t: the server's theta, and t as its control number. */
static void am_broadcast(const am_state *st, fb_msg *down, size_t t)
{
	double round = (double)t;

	memcpy(fb_msg_doubles(down, st->np), fb_mlp_server_theta(st->server),
	       st->np * sizeof(double));
	fb_msg_control(down, &round, 1);
}

/* Server: the global step on the clients' vectors; the new theta is the next broadcast,
 * with the next round's number as its control number. */
static int am_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                     fb_error *err)
{
	am_state *st = state;
	const double **th = fb_xcalloc(k, sizeof *th);
	int rc;

	for (size_t m = 0; m < k; m++)
		th[m] = up[m] != NULL ? up[m]->d : NULL;
	rc = fb_mlp_server_global(st->server, th, &st->fig, err);
	free(th);
	if (rc == FB_OK)
		am_broadcast(st, down, st->round + 1);
	return rc;
}

/* The two halves. */
static const fb_fed_ops am_ops = { .client = am_client, .server = am_server };

/* Read notears-mlp-admm's parameters. */
void fb_mlp_admm_options_from_params(const fb_params *p, fb_mlp_admm_options *o)
{
	memset(o, 0, sizeof *o);
	o->hidden = (size_t)fb_params_int(p, "hidden");
	o->lambda1 = fb_params_double(p, "lambda1");
	o->lambda2 = fb_params_double(p, "lambda2");
	o->rho1 = fb_params_double(p, "rho1");
	o->rho2 = fb_params_double(p, "rho2");
	o->gamma1 = fb_params_double(p, "gamma1");
	o->gamma2 = fb_params_double(p, "gamma2");
	o->rho_max = fb_params_double(p, "rho_max");
	o->max_rounds = (size_t)fb_params_int(p, "max_rounds");
	o->threshold = fb_params_double(p, "threshold");
	o->seed = (uint64_t)fb_params_int(p, "seed");
}

/* Build each client's half from its own rows, the server's from the shapes, and the
 * opening broadcast (the server's initial theta). */
static int am_create(fb_run *run, fb_error *err)
{
	am_state *st = fb_xcalloc(1, sizeof *st);
	fb_mlp_admm_options o;

	fb_mlp_admm_options_from_params(&run->params, &o);
	o.knowledge = fb_run_knowledge(run);
	run->state = st;
	st->k = run->part->k;
	st->d = run->part->d;
	st->np = fb_mlp_admm_nparams(st->d, o.hidden);
	st->threshold = o.threshold;
	st->names = fb_dataset_names(run->data);
	st->clients = fb_xcalloc(st->k, sizeof *st->clients);
	for (size_t m = 0; m < st->k; m++) {
		if (!fb_fed_local(run->fed, m))
			continue; /* its half runs in another process */
		st->clients[m] = fb_mlp_client_alloc(run->part->clients[m].data, m, run->part->n,
		                                     &o, err);
		if (st->clients[m] == NULL)
			return FB_ERR;
	}
	if ((st->server = fb_mlp_server_alloc(st->d, st->k, &o, err)) == NULL)
		return FB_ERR;
	am_broadcast(st, fb_fed_broadcast(run->fed), 1);
	return FB_OK;
}

/* One round through the federation. */
static int am_step(fb_run *run, double *fig, fb_error *err)
{
	am_state *st = run->state;

	st->round = fb_fed_rounds(run->fed) + 1;
	if (fb_fed_round(run->fed, &am_ops, st, err) != FB_OK)
		return FB_ERR;
	fig[0] = st->fig.objective;
	fig[1] = st->fig.h;
	fig[2] = st->fig.rho1;
	fig[3] = st->fig.rho2;
	fig[4] = st->fig.alpha;
	fig[5] = st->fig.consensus;
	fig[6] = (double)st->fig.evals;
	fb_run_say(run, "%zu clients took a local step on their own rows and sent their %zu "
	           "network parameters; the server fitted the shared ones to them (h = %.3g, 0 "
	           "means no cycle; distance to the clients %.3g); the penalties are now rho1 = "
	           "%.3g, rho2 = %.3g", st->k, st->np, st->fig.h, st->fig.consensus,
	           st->fig.rho1, st->fig.rho2);
	return FB_OK;
}

/* Finished after max_rounds or when both penalties reached their cap. */
static bool am_done(const fb_run *run)
{
	return fb_mlp_server_done(((const am_state *)run->state)->server);
}

/* The server's sqrt(A). */
static int am_weights(const fb_run *run, double *w, fb_error *err)
{
	(void)err;
	fb_mlp_server_adjacency(((const am_state *)run->state)->server, w);
	return FB_OK;
}

/* The server's sqrt(A), thresholded and made acyclic. */
static fb_graph *am_result(const fb_run *run, fb_error *err)
{
	const am_state *st = run->state;
	double *w = fb_xcalloc(st->d * st->d, sizeof *w);
	fb_graph *g;

	fb_mlp_server_adjacency(st->server, w);
	g = mlp_graph(run, w, st->d, st->threshold, st->names, err);
	free(w);
	return g;
}

/* The global residual |theta_k - theta| of client k after the round. */
static double am_server_client(const fb_run *run, size_t k)
{
	return fb_mlp_server_residual(((const am_state *)run->state)->server, k);
}

/* Threshold at t from now on. */
static void am_rethreshold(fb_run *run, double t)
{
	((am_state *)run->state)->threshold = t;
}

/* Free both halves. */
static void am_destroy(fb_run *run)
{
	am_state *st = run->state;

	for (size_t m = 0; m < st->k; m++)
		fb_mlp_client_free(st->clients[m]);
	fb_mlp_server_free(st->server);
	free(st->clients);
	fb_names_free(st->names, st->d);
	free(st);
	run->state = NULL;
}

/* The paper's MLP defaults (App. B; ALGORITHMS.md §4.3). */
static const fb_param_def am_params[] = {
	{ "lambda1", FB_PARAM_DOUBLE, "0.001", 0, 1e6, NULL,
	  "l1 penalty on the global first layer" },
	{ "lambda2", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL, "l2 penalty on the global weights" },
	{ "hidden", FB_PARAM_INT, "10", 1, 1000, NULL, "hidden sigmoid units per variable" },
	{ "rho1", FB_PARAM_DOUBLE, "0.1", 1e-12, 1e12, NULL, "initial penalty on h" },
	{ "rho2", FB_PARAM_DOUBLE, "0.1", 1e-12, 1e12, NULL, "initial consensus penalty" },
	{ "gamma1", FB_PARAM_DOUBLE, "1.75", 1, 100, NULL, "growth of rho1 per round" },
	{ "gamma2", FB_PARAM_DOUBLE, "1.25", 1, 100, NULL, "growth of rho2 per round" },
	{ "rho_max", FB_PARAM_DOUBLE, "1e16", 1, 1e300, NULL, "a penalty grows only below this" },
	{ "max_rounds", FB_PARAM_INT, "200", 1, 1e6, NULL, "most communication rounds" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL,
	  "sqrt(A_ij) at most this is no edge" },
	{ "seed", FB_PARAM_INT, "1", 0, 9.2e18, NULL,
	  "seed of the initial parameters (the server's and each client's own stream)" },
	{ 0 },
};

/* The defaults, from the parameter table. */
void fb_mlp_admm_options_init(fb_mlp_admm_options *o)
{
	fb_params p = fb_params_defaults(am_params);

	fb_mlp_admm_options_from_params(&p, o);
	fb_params_release(&p);
}

/* Figures of each round. */
static const char *const am_figures[] = { "objective", "h", "rho1", "rho2", "alpha",
	                                  "consensus", "evals", NULL };

/* NOTEARS-MLP-ADMM's options, read from its parameters. */
FB_ALGO_OPTIONS(mlp_admm_options, fb_mlp_admm_options, fb_mlp_admm_options_init,
		fb_mlp_admm_options_from_params);

const fb_algo fb_algo_notears_mlp_admm = {
	.name = "notears-mlp-admm",
	.summary = "NOTEARS-MLP by consensus ADMM over horizontal clients",
	.intro = "Learns one causal graph with nonlinear dependencies from rows spread over "
	         "several clients, without the rows leaving them. Each round every client fits "
	         "its own copy of the small neural networks to its rows, and the server blends "
	         "the copies into one shared model pushed towards having no cycles; only the "
	         "networks' parameters travel.",
	.help = "NOTEARS-MLP-ADMM (Ng and Zhang, AISTATS 2022, the MLP variant): each client's "
	        "local step fits the whole parameter vector of the NOTEARS-MLP networks to its "
	        "rows plus the consensus terms, by L-BFGS (liblbfgs's method) from its previous "
	        "parameters; the "
	        "server's step minimises l1 (lambda1, on |theta|), l2 (lambda2), alpha h + rho1/2 "
	        "h^2 and the consensus terms over the first layer by OWL-QN, and every other "
	        "coordinate exactly. rho1, rho2 grow by gamma1, gamma2 each round. Per round "
	        "and client 10 d^2 + 21 d numbers travel each way (hidden 10). With share < 1, "
	        "the server uses the last parameters of every client heard so far.",
	.flags = FB_ALGO_WEIGHTED | FB_ALGO_PARTIAL | FB_ALGO_REMOTE,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = am_params, .figures = am_figures, .client_figure = "local residual",
	.server_figure = "global residual",
	.create = am_create, .step = am_step, .done = am_done, .result = am_result,
	.destroy = am_destroy, .note = nm_note, .weights = am_weights,
	.server_client = am_server_client, .rethreshold = am_rethreshold,
	.options = &mlp_admm_options, .detail = FB_DETAIL_RESIDUALS,
};
