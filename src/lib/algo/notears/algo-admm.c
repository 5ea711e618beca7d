/* notears-admm: linear NOTEARS-ADMM over a horizontal split (Ng and Zhang 2022).  Each round
 * the server broadcasts W; each client folds W into its own multiplier, solves its closed-form
 * local step and sends B_k + beta_k / rho2 with two numbers for the figures; the server,
 * handed only the sum of these over the clients, solves for the next W.  d x d numbers
 * travel down, d x d + 2 up, per client per round; the multipliers stay with the clients. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/admm.h"
#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/notears.h"

/* The state of a notears-admm run. */
typedef struct admm_state {
	size_t k, d;               /* clients, variables */
	fb_admm_client **clients;  /* each client's own half (built from its own rows only) */
	fb_admm_server *server;    /* the server's half (built from d and k only) */
	fb_admm_figures fig;       /* the server's figures of the last round */
	double threshold;          /* post-processing threshold */
	char **names;              /* variable names (metadata) */
	bool *answered;            /* k flags: the client has answered a round (its own record:
	                              a client in another process sees no server state) */
} admm_state;

/* Client k: take the broadcast W, update the multiplier (after the first round), solve the
 * local step, send B_k + beta_k / rho2, ||B_k||^2 and <beta_k, B_k>. */
static int admm_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                       fb_msg *up, double *figure, fb_error *err)
{
	admm_state *st = state;
	size_t d = st->d;
	gsl_matrix_const_view W = gsl_matrix_const_view_array(down->d, d, d);
	double *u = fb_msg_doubles(up, fb_admm_message_len(d));
	fb_admm_client *c = st->clients[k];

	if (st->answered[k] && fb_admm_client_update(c, &W.matrix, err) != FB_OK)
		return FB_ERR;
	if (fb_admm_client_local(c, &W.matrix, NULL, err) != FB_OK ||
	    fb_admm_client_message(c, u, err) != FB_OK)
		return FB_ERR;
	st->answered[k] = true;
	*figure = fb_admm_client_distance(c);
	return FB_OK;
}

/* Server: the W step on the sum of the clients' messages; the new W is the next
 * broadcast. */
static int admm_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	admm_state *st = state;
	size_t d = st->d;
	gsl_matrix_view W = gsl_matrix_view_array(fb_msg_doubles(down, d * d), d, d);

	if (in->count != st->k)
		return fb_fail(err, "notears-admm needs every client's message each round, and %zu "
		               "of %zu sent one", in->count, st->k);
	return fb_admm_server_global(st->server, in->sum, &W.matrix, &st->fig, err);
}

/* Numbers in each client's message. */
static size_t admm_sum_len(const void *state)
{
	return fb_admm_message_len(((const admm_state *)state)->d);
}

/* The two halves. */
static const fb_fed_ops admm_ops = { .client = admm_client, .server_sum = admm_server,
	                             .sum_len = admm_sum_len };

/* The names of solver='s values. */
static const fb_choice admm_solvers[] = {
	{ "owlqn", FB_ADMM_OWLQN }, { "subgradient", FB_ADMM_SUBGRADIENT },
	{ "lbfgsb", FB_ADMM_LBFGSB }, { 0 },
};

/* Read notears-admm's parameters into options; the solvers' stopping rules, which are no
 * parameters, are set here. */
void fb_admm_options_from_params(const fb_params *p, fb_admm_options *o)
{
	memset(o, 0, sizeof *o);
	o->ftol_rel = 2.220446049250313e-09; /* scipy: factr 1e7 x machine epsilon */
	o->max_eval = 15000;
	o->gtol = 1e-5;
	/* h levels off near 1e-8 (NOTEARS's own tolerance, out of reach) and falls by about
	 * gamma1 a round before that, while the edges beyond threshold stop changing some 20 to
	 * 30 rounds before h reaches 1e-6; an edge may still flip once h is near 3e-6 (seen over
	 * 10 seeds at d = 100), so 2e-6 */
	o->settle_h = 2e-6;
	o->rho1 = fb_params_double(p, "rho1");
	o->rho2 = fb_params_double(p, "rho2");
	o->gamma1 = fb_params_double(p, "gamma1");
	o->gamma2 = fb_params_double(p, "gamma2");
	o->lambda = fb_params_double(p, "lambda");
	o->rho_max = fb_params_double(p, "rho_max");
	o->max_rounds = (size_t)fb_params_int(p, "max_rounds");
	o->threshold = fb_params_double(p, "threshold");
	o->settle = (size_t)fb_params_int(p, "settle");
	o->solver = (enum fb_admm_solver)fb_params_choice(p, "solver");
}

/* Build each client's half from its own rows, the server's from the shape alone, and the
 * opening broadcast W = 0. */
static int admm_create(fb_run *run, fb_error *err)
{
	admm_state *st = fb_xcalloc(1, sizeof *st);
	fb_admm_options o;

	fb_admm_options_from_params(&run->params, &o);
	o.knowledge = fb_run_knowledge(run);
	run->state = st;
	st->k = run->part->k;
	st->d = run->part->d;
	st->threshold = o.threshold;
	st->names = fb_dataset_names(run->data);
	st->clients = fb_xcalloc(st->k, sizeof *st->clients);
	st->answered = fb_xcalloc(st->k, sizeof *st->answered);
	for (size_t m = 0; m < st->k; m++) {
		if (!fb_fed_local(run->fed, m))
			continue; /* its half runs in another process */
		st->clients[m] = fb_admm_client_alloc(run->part->clients[m].data, run->part->n, &o,
		                                      err);
		if (st->clients[m] == NULL)
			return FB_ERR;
	}
	if ((st->server = fb_admm_server_alloc(st->d, st->k, &o, err)) == NULL)
		return FB_ERR;
	memset(fb_msg_doubles(fb_fed_broadcast(run->fed), st->d * st->d), 0,
	       st->d * st->d * sizeof(double));
	return FB_OK;
}

/* The round in words: who sent what, what the server made of it. */
static void admm_say(fb_run *run, const admm_state *st)
{
	size_t heard = 0, k = fb_fed_k(run->fed);

	for (size_t m = 0; m < k; m++)
		heard += fb_fed_took_part(run->fed, m);
	fb_run_say(run, "%zu of %zu clients solved their local problem and sent their %zu x %zu "
	           "B_k + beta_k/rho2; the server, handed only their sum, fitted a new W (h(W) = "
	           "%.3g, 0 means no cycle; distance to the clients %.3g); the penalties are now "
	           "rho1 = %.3g, rho2 = %.3g", heard, k, st->d, st->d, st->fig.h, st->fig.consensus,
	           st->fig.rho1, st->fig.rho2);
}

/* One ADMM round through the federation. */
static int admm_step(fb_run *run, double *fig, fb_error *err)
{
	admm_state *st = run->state;

	if (fb_fed_round(run->fed, &admm_ops, st, err) != FB_OK)
		return FB_ERR;
	fig[0] = st->fig.objective;
	fig[1] = st->fig.h;
	fig[2] = st->fig.rho1;
	fig[3] = st->fig.rho2;
	fig[4] = st->fig.alpha;
	fig[5] = st->fig.consensus;
	fig[6] = (double)st->fig.evals;
	admm_say(run, st);
	return FB_OK;
}

/* Finished after max_rounds, when both penalties reached their cap, or when settled. */
static bool admm_done(const fb_run *run)
{
	return fb_admm_server_done(((const admm_state *)run->state)->server);
}

/* The server's W, thresholded and made acyclic. */
static fb_graph *admm_result(const fb_run *run, fb_error *err)
{
	const admm_state *st = run->state;

	return fb_honour_weights_dag(fb_admm_server_W(st->server), st->threshold, st->names,
	                             fb_run_knowledge(run), NULL, err);
}

/* Threshold the server's W at t from now on. */
static void admm_rethreshold(fb_run *run, double t)
{
	((admm_state *)run->state)->threshold = t;
}

/* The server's unthresholded W. */
static int admm_weights(const fb_run *run, double *w, fb_error *err)
{
	const gsl_matrix *W = fb_admm_server_W(((const admm_state *)run->state)->server);

	for (size_t i = 0; i < W->size1; i++)
		for (size_t j = 0; j < W->size2; j++)
			w[i * W->size2 + j] = gsl_matrix_get(W, i, j);
	return FB_OK;
}

/* Free both halves. */
static void admm_destroy(fb_run *run)
{
	admm_state *st = run->state;

	for (size_t m = 0; m < st->k; m++)
		fb_admm_client_free(st->clients[m]);
	fb_admm_server_free(st->server);
	free(st->clients);
	free(st->answered);
	fb_names_free(st->names, st->d);
	free(st);
	run->state = NULL;
}

/* How the graph is made from W. */
static const char *admm_note(const fb_run *run)
{
	return "weights with |w| <= threshold dropped, then the smallest removed until acyclic";
}

/* The paper's linear defaults (App. B; ALGORITHMS.md §4.3). */
static const fb_param_def admm_params[] = {
	{ "lambda", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL, "l1 penalty on W" },
	{ "rho1", FB_PARAM_DOUBLE, "0.001", 1e-12, 1e12, NULL, "initial penalty on h(W)" },
	{ "rho2", FB_PARAM_DOUBLE, "0.001", 1e-12, 1e12, NULL, "initial consensus penalty" },
	{ "gamma1", FB_PARAM_DOUBLE, "1.75", 1, 100, NULL, "growth of rho1 per round" },
	{ "gamma2", FB_PARAM_DOUBLE, "1.25", 1, 100, NULL, "growth of rho2 per round" },
	{ "rho_max", FB_PARAM_DOUBLE, "1e16", 1, 1e300, NULL, "a penalty grows only below this" },
	{ "max_rounds", FB_PARAM_INT, "200", 1, 1e6, NULL, "most communication rounds" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL, "weights with |w| at most this are no edge" },
	{ "settle", FB_PARAM_INT, "0", 0, 1e6, NULL,
	  "0: the paper's schedule; N: also stop once h(W) <= 2e-6, the edges beyond threshold "
	  "form a DAG that has not changed for N rounds, and no weight's drift, extrapolated as "
	  "h falls, would take it across threshold" },
	{ "solver", FB_PARAM_CHOICE, "owlqn", 0, 0, admm_solvers,
	  "W step: OWL-QN (L-BFGS that handles the l1 term exactly), NLopt's L-BFGS with the "
	  "l1 subgradient, or L-BFGS-B with the l1 subgradient (the reference code's solver, "
	  "scipy's stopping rules)" },
	{ 0 },
};

/* The defaults: the parameter table, the one place they are written, read into options. */
void fb_admm_options_init(fb_admm_options *o)
{
	fb_params p = fb_params_defaults(admm_params);

	fb_admm_options_from_params(&p, o);
	fb_params_release(&p);
}

/* The largest number of variables whose matrices are written out in words. */
#define ADMM_TEXT_MAX_D 12

/* A message in words: the d x d matrix it carries, row by row (d <= ADMM_TEXT_MAX_D), and
 * an up-message's two numbers. */
static void admm_message(const fb_run *run, enum fb_dir dir, const fb_msg *m, fb_buf *out)
{
	size_t d = run->data->d;

	if (d > ADMM_TEXT_MAX_D || m->nd != (dir == FB_UP ? fb_admm_message_len(d) : d * d))
		return;
	fb_buf_printf(out, dir == FB_UP ? "B_k + beta_k/rho2, the client's own solution moved by "
	                                  "its multiplier (row: parent, column: child):"
	                                : "W, the server's consensus (row: parent, column: "
	                                  "child):");
	fb_run_matrix_text(run, m->d, d, out);
	if (dir == FB_UP)
		fb_buf_printf(out, "\n||B_k||^2 = %.6g, <beta_k, B_k> = %.6g (for the figures)",
		              m->d[d * d], m->d[d * d + 1]);
}

/* Figures of each round. */
static const char *const admm_figures[] = { "objective", "h", "rho1", "rho2", "alpha",
	                                    "consensus", "evals", NULL };

/* NOTEARS-ADMM's options, read from its parameters. */
FB_ALGO_OPTIONS(admm_options, fb_admm_options, fb_admm_options_init,
		fb_admm_options_from_params);

const fb_algo fb_algo_notears_admm = {
	.name = "notears-admm", .summary = "NOTEARS by consensus ADMM over horizontal clients",
	.intro = "Learns one causal graph from rows spread over several clients, without the "
	         "rows leaving them. Each round every client fits its own copy of the weight "
	         "matrix to its rows, and the server blends the copies into one shared matrix "
	         "pushed towards having no cycles; only these matrices travel. Once the copies "
	         "agree, small weights are dropped to give the graph.",
	.help = "Linear NOTEARS-ADMM (Ng and Zhang, AISTATS 2022). Each client keeps a local "
	        "copy B_k solved in closed form from its own centred covariance; the server "
	        "solves for the shared W under the acyclicity penalty by L-BFGS; multipliers "
	        "stay with the clients, which send B_k + beta_k/rho2 (and ||B_k||^2, "
	        "<beta_k, B_k> for the figures); the server is handed only the sum of these "
	        "over the clients. One round is one ADMM iteration; W (d x d numbers) goes "
	        "down and d x d + 2 numbers come up from each client.",
	.flags = FB_ALGO_WEIGHTED | FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = admm_params, .figures = admm_figures, .client_figure = "distance",
	.create = admm_create, .step = admm_step, .done = admm_done, .result = admm_result,
	.destroy = admm_destroy, .note = admm_note, .weights = admm_weights,
	.rethreshold = admm_rethreshold,
	.message = admm_message,
	.options = &admm_options, .detail = FB_DETAIL_PENALTIES,
};
