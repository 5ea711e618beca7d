/* The algorithms fedcircuit (one-pass federated circuits) and fedcircuit-em (one-pass, then
 * distributed EM rounds on the server's weights): steppers over fb_fc, one communication
 * round per phase, and a note that sets the bytes beside FedAvg's and SplitNN's. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/fedcircuit.h"

/* A run's state. */
typedef struct fcalgo_state {
	fb_fc *fc;             /* the federated circuit */
	fb_fc_cost_model cm;   /* what FedAvg and SplitNN are assumed to do */
	fb_circuit_report rep; /* the assembled circuit's figures, once finished */
	size_t eval_bytes;     /* log values the clients sent to evaluate every part */
	bool evaluated;        /* the evaluation round has run */
	char small[512];       /* a warning that the clients' circuits are too small to split,
	                          or "" */
	char note[1280];       /* the last note */
} fcalgo_state;

/* Glue choices. */
static const fb_choice fcalgo_glue[] = {
	{ "all", FB_FC_GLUE_ALL },
	{ "random", FB_FC_GLUE_RANDOM },
	{ NULL, 0 },
};

/* The parameters both algorithms share: the server's, the cost model's, the learner's. */
#define FCALGO_PARAMS \
	{ "clusters", FB_PARAM_INT, "2", 1, 1000, NULL, \
	  "K: k-means clusters of each private subspace, one circuit each" }, \
	{ "cluster_shared", FB_PARAM_BOOL, "no", 0, 0, NULL, \
	  "clients also split their rows of a shared subspace into K k-means clusters, one " \
	  "circuit each (the authors' code on horizontal splits; the paper: one circuit)" }, \
	{ "glue", FB_PARAM_CHOICE, "all", 0, 0, fcalgo_glue, \
	  "products: one per combination of clusters (the paper's experiments) or P random " \
	  "ones using every cluster (the paper's rule)" }, \
	{ "products", FB_PARAM_INT, "0", 0, 1e6, NULL, \
	  "P under glue=random (0: K; raised to the largest cluster count)" }, \
	{ "cluster_seed", FB_PARAM_INT, "1", 0, 4294967295.0, NULL, \
	  "seeds the private subspaces' k-means and the random glue" }, \
	{ "fedavg_rounds", FB_PARAM_INT, "100", 1, 1e9, NULL, \
	  "cost model: FedAvg's aggregation rounds R" }, \
	{ "splitnn_epochs", FB_PARAM_INT, "10", 1, 1e9, NULL, \
	  "cost model: SplitNN's epochs E" }, \
	{ "splitnn_dim", FB_PARAM_INT, "100", 1, 1e9, NULL, \
	  "cost model: SplitNN's embedding size F" }, \
	FB_LEARNSPN_PARAM_DEFS

/* fedcircuit's parameters. */
static const fb_param_def fcalgo_params[] = {
	FCALGO_PARAMS,
	{ 0 },
};

/* fedcircuit-em's parameters. */
static const fb_param_def fcalgo_em_params[] = {
	FCALGO_PARAMS,
	{ "em", FB_PARAM_INT, "5", 1, 100000, NULL, /* FB_FC_EM_ITERS */
	  "EM rounds on the server's weights after assembly (the paper's code runs 5)" },
	{ 0 },
};

/* Per-round figures. */
static const char *const fcalgo_figures[] = { "phase", "subspaces", "circuits", "nodes",
	                                      "train_ll", NULL };

/* The phases a round ran, as its figure phase gives them (enum fb_fc_phase + 1). */
static const fb_figure_level fcalgo_levels[] = {
	{ "phase", FB_FC_INDICATOR + 1, "matrix" }, { "phase", FB_FC_LEARN + 1, "learning" },
	{ "phase", FB_FC_ASSEMBLE + 1, "assembly" }, { "phase", FB_FC_EM + 1, "EM" },
	{ "phase", FB_FC_DONE + 1, "evaluate" }, { 0 },
};

/* Free the state. */
static void fcalgo_destroy(fb_run *run)
{
	fcalgo_state *st = run->state;

	if (st != NULL)
		fb_fc_free(st->fc);
	free(st);
	run->state = NULL;
}

/* The options a parameter table gives. */
void fb_fc_options_from_params(const fb_params *p, fb_fc_options *o)
{
	fb_fc_options_init(o);
	o->clusters = (size_t)fb_params_int(p, "clusters");
	o->cluster_shared = fb_params_bool(p, "cluster_shared");
	o->glue = fb_params_choice(p, "glue");
	o->products = (size_t)fb_params_int(p, "products");
	fb_learnspn_options_from_params(p, &o->learn);
	o->seed = (uint64_t)fb_params_int(p, "cluster_seed");
	o->em_iters = fb_params_find(p, "em") >= 0 ? (size_t)fb_params_int(p, "em") : 0;
}

/* The cost model from the run's parameters. */
static void fcalgo_cost_model(const fb_params *p, fb_fc_cost_model *cm)
{
	fb_fc_cost_model_init(cm);
	cm->fedavg_rounds = (size_t)fb_params_int(p, "fedavg_rounds");
	cm->splitnn_epochs = (size_t)fb_params_int(p, "splitnn_epochs");
	cm->splitnn_dim = (size_t)fb_params_int(p, "splitnn_dim");
}

/* The advice after a warning that circuits learned on at most min rows, the fewest lo, were
 * factorised whole: half of lo for min_instances_slice and, on a horizontal split in this
 * process, the most clients among which the training rows stay above min each. */
static void small_advice(const fb_run *run, size_t lo, size_t min, fb_buf *b)
{
	size_t n = run->data->n, most = n / (min + 1);

	fb_buf_printf(b, ": set min_instances_slice=%zu (half the fewest rows)", lo > 1 ? lo / 2 : 1);
	if (run->part->kind == FB_SPLIT_HORIZONTAL && run->part->transport == NULL && most >= 1 &&
	    most < run->part->k)
		fb_buf_printf(b, ", or split the %zu training rows among at most %zu client%s", n,
		              most, most == 1 ? "" : "s");
}

/* Before round 1, in one process: warn into st->small when every client holds at most
 * min_instances_slice training rows, so that every circuit it learns will be one product
 * of independent leaves. */
static void small_predict(const fb_run *run, fcalgo_state *st, size_t min)
{
	const fb_partition *p = run->part;
	size_t lo = SIZE_MAX, hi = 0;
	fb_buf b = { 0 };

	if (p->transport != NULL || p->d < 2)
		return;
	for (size_t k = 0; k < p->k; k++) {
		size_t n = p->clients[k].data != NULL ? p->clients[k].data->n : 0;

		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (hi > min || lo == 0)
		return;
	fb_buf_printf(&b, "note: every client holds at most min_instances_slice=%zu training rows "
	              "(%zu to %zu), so each circuit a client learns will be one product of "
	              "independent leaves, which models no dependence between variables", min,
	              lo, hi);
	small_advice(run, lo, min, &b);
	snprintf(st->small, sizeof st->small, "%s", b.data);
	fb_buf_release(&b);
}

/* After round 2: warn into st->small (else clear it) when circuits the clients learned over
 * two or more variables had at most min_instances_slice rows, the count the server sees. */
static void small_count(const fb_run *run, fcalgo_state *st, size_t min)
{
	fb_fc_small sm;
	fb_buf b = { 0 };

	fb_fc_small_circuits(st->fc, &sm);
	st->small[0] = '\0';
	if (sm.small == 0)
		return;
	fb_buf_printf(&b, "note: %s%zu of the %zu circuits the clients learned over several "
	              "variables had at most min_instances_slice=%zu training rows (%zu to %zu), "
	              "so %s one product of independent leaves, which models no dependence "
	              "between variables", sm.small == sm.multi ? "all " : "", sm.small,
	              sm.multi, min, sm.lo, sm.hi, sm.small == 1 ? "it is" : "each is");
	small_advice(run, sm.lo, min, &b);
	snprintf(st->small, sizeof st->small, "%s", b.data);
	fb_buf_release(&b);
}

/* Build the state. */
static int fcalgo_create(fb_run *run, fb_error *err)
{
	fcalgo_state *st = fb_xcalloc(1, sizeof *st);
	fb_fc_options o;

	run->state = st;
	fb_fc_options_from_params(&run->params, &o);
	fcalgo_cost_model(&run->params, &st->cm);
	st->fc = fb_fc_alloc(run->part, &o, err);
	if (st->fc == NULL) {
		fcalgo_destroy(run);
		return FB_ERR;
	}
	fb_fc_set_whole(st->fc, run->whole_part);
	small_predict(run, st, o.learn.min_instances_slice);
	return FB_OK;
}

/* The federated log-likelihood of the rows of part p of ds, added to ll. */
static int fcalgo_part_ll(fcalgo_state *st, const fb_dataset *ds, enum fb_part p,
                          fb_loglik *ll, fb_error *err)
{
	size_t n, sent = 0, *rows = fb_dataset_part_rows(ds, p, &n);
	double *x = fb_xcalloc(n * ds->d + 1, sizeof *x), *lp = fb_xcalloc(n + 1, sizeof *lp);
	int rc;

	for (size_t i = 0; i < n; i++)
		memcpy(x + i * ds->d, ds->x + rows[i] * ds->d, ds->d * sizeof *x);
	rc = n == 0 ? FB_OK : fb_fc_loglik(st->fc, x, n, lp, &sent, err);
	for (size_t i = 0; rc == FB_OK && i < n; i++) {
		ll->n++;
		ll->sum += lp[i];
		ll->sumsq += lp[i] * lp[i];
	}
	st->eval_bytes += sent;
	free(rows);
	free(x);
	free(lp);
	return rc;
}

/* The finished circuit's figures: its size, and every part's log-likelihood as the sites
 * evaluated it in the last round; where they could not (sites holding different rows and
 * variables), in this process the federated way on the rows the server has (each client its
 * circuits on its own variables of the rows), over MPI none. */
static int fcalgo_report(const fb_run *run, fcalgo_state *st, fb_error *err)
{
	memset(&st->rep, 0, sizeof st->rep);
	st->rep.ncircuits = 1;
	if (fb_circuit_stats_compute(fb_fc_circuit(st->fc), &st->rep.stats, err) != FB_OK)
		return FB_ERR;
	if (fb_fc_part_loglik(st->fc, st->rep.ll)) {
		st->eval_bytes = fb_fc_eval_bytes(st->fc);
		return FB_OK;
	}
	for (int p = 0; p < FB_NPARTS; p++)
		if (fcalgo_part_ll(st, run->whole, (enum fb_part)p, &st->rep.ll[p], err) != FB_OK)
			return FB_ERR;
	return FB_OK;
}

/* The round in words, by the phase it ran (small: the warning of round 2, or ""). */
static void fcalgo_say(fb_run *run, enum fb_fc_phase ph, size_t subspaces, size_t circuits,
                       double nodes, double ll, const char *small)
{
	if (ph == FB_FC_INDICATOR)
		fb_run_say(run, "the clients told the server which variables they hold; it found "
		           "%zu subspaces of variables to learn on", subspaces);
	else if (ph == FB_FC_LEARN)
		fb_run_say(run, "every client learned circuits on its own rows and subspaces: %zu "
		           "circuits in all%s%s", circuits, small[0] ? "; " : "", small);
	else if (ph == FB_FC_ASSEMBLE)
		fb_run_say(run, "the server assembled the clients' circuits into one of %.0f nodes",
		           nodes);
	else if (ph == FB_FC_EM)
		fb_run_say(run, "an EM step on the assembled circuit's weights: mean training "
		           "log-likelihood %.4g", ll);
	else if (!isnan(ll))
		fb_run_say(run, "every client evaluated the circuit on its own rows and sent only log "
		           "values: mean training log-likelihood %.4g", ll);
	else
		fb_run_say(run, "the clients hold different rows and different variables, so none "
		           "can evaluate the circuit on its rows: they sent nothing");
}

/* The mean training log-likelihood the sites' evaluation gave (NaN where they could not). */
static double sites_train_ll(const fb_fc *fc)
{
	fb_loglik ll[FB_NPARTS];

	return fb_fc_part_loglik(fc, ll) ? fb_loglik_mean(&ll[FB_PART_TRAIN]) : NAN;
}

/* One round: a phase of one-pass training, an EM step, or, once trained, the evaluation. */
static int fcalgo_step(fb_run *run, double *fig, fb_error *err)
{
	fcalgo_state *st = run->state;
	enum fb_fc_phase ph = fb_fc_phase(st->fc);
	bool eval = fb_fc_done(st->fc);
	const fb_fc_subspaces *s;
	size_t circ = 0;

	if ((eval ? fb_fc_evaluate(st->fc, run->fed, err) : fb_fc_step(st->fc, run->fed, err)) !=
	    FB_OK)
		return FB_ERR;
	st->evaluated = eval;
	s = fb_fc_subspaces_of(st->fc);
	for (size_t k = 0; k < run->part->k; k++)
		circ += fb_fc_client_circuits(st->fc, k);
	fig[0] = (double)ph + 1;
	fig[1] = s != NULL ? (double)s->n : 0;
	fig[2] = (double)circ;
	fig[3] = (double)fb_fc_nodes(st->fc);
	fig[4] = eval ? sites_train_ll(st->fc) : fb_fc_em_loglik(st->fc);
	if (ph == FB_FC_LEARN)
		small_count(run, st, (size_t)fb_params_int(&run->params, "min_instances_slice"));
	fcalgo_say(run, ph, s != NULL ? s->n : 0, circ, fig[3], fig[4], st->small);
	return eval ? fcalgo_report(run, st, err) : FB_OK;
}

/* Finished after assembly (and the EM rounds) and the evaluation round. */
static bool fcalgo_done(const fb_run *run)
{
	const fcalgo_state *st = run->state;

	return fb_fc_done(st->fc) && st->evaluated;
}

/* A circuit is not a graph. */
static fb_graph *fcalgo_result(const fb_run *run, fb_error *err)
{
	return fb_fail(err, "%s learns a circuit, not a graph", run->name), NULL;
}

/* The assembled circuit. */
static const fb_circuit *fcalgo_circuit(const fb_run *run, fb_error *err)
{
	const fb_circuit *c = fb_fc_circuit(((const fcalgo_state *)run->state)->fc);

	if (c == NULL)
		fb_fail(err, "%s has not assembled its circuit yet (round 3 does): run it",
		        run->name);
	return c;
}

/* The finished circuit's figures. */
static int fcalgo_circuit_report(const fb_run *run, fb_circuit_report *rep, fb_error *err)
{
	const fcalgo_state *st = run->state;

	if (!fcalgo_done(run))
		return fb_fail(err, "%s has not finished: run it", run->name);
	*rep = st->rep;
	return FB_OK;
}

/* Nodes of c on the server. */
static size_t server_nodes(const fb_circuit *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nnodes; i++)
		n += c->nodes[i].machine == FB_CIRCUIT_SERVER;
	return n;
}

/* Bytes sent in direction dir to learn the circuit: every round but the evaluation. */
static double learn_bytes(const fb_run *run, enum fb_dir dir)
{
	const fcalgo_state *st = run->state;
	size_t all = fb_run_bytes(run, dir);

	if (!st->evaluated)
		return (double)all;
	return (double)(all - fb_ledger_bytes(fb_fed_ledger(run->fed), fb_fed_rounds(run->fed),
	                                      dir));
}

/* The circuit's size, the bytes sent, and the baselines' bytes with their assumptions. */
static const char *fcalgo_note(const fb_run *run)
{
	fcalgo_state *st = run->state;
	const fb_circuit *c = fb_fc_circuit(st->fc);
	size_t k = run->part->k, m = fb_fc_client_params(st->fc);
	size_t rows = run->part->transport != NULL ? run->part->n : run->data->n; /* over MPI
	                                                      the server holds no row */
	double up = learn_bytes(run, FB_UP), down = learn_bytes(run, FB_DOWN);

	if (c == NULL) {
		snprintf(st->note, sizeof st->note, "the circuit is not assembled yet (it is, after "
		         "the third round)%s%s", st->small[0] ? "; " : "", st->small);
		return st->note;
	}
	snprintf(st->note, sizeof st->note,
	         "a circuit, not a graph: %zu nodes (%zu on the server), %zu parameters; sent "
	         "%.0f B up, %.0f B down to learn it (one-pass bound 8 C (M + 1) or 8 (K M C + P): %.0f B); "
	         "FedAvg would send %.3g B (8 M C R: M = %zu parameters per client model, C = %zu, "
	         "R = %zu rounds), SplitNN %.3g B (8 E C F S: E = %zu epochs, F = %zu, S = %zu "
	         "rows); evaluating every part, %zu B of log values%s%s", c->nnodes,
	         server_nodes(c), fb_circuit_nparams(c, FB_CIRCUIT_ANY), up, down,
	         fb_fc_cost_onepass(st->fc), fb_fc_cost_fedavg(&st->cm, (m + k - 1) / k, k),
	         (m + k - 1) / k, k, st->cm.fedavg_rounds, fb_fc_cost_splitnn(&st->cm, k, rows),
	         st->cm.splitnn_epochs, st->cm.splitnn_dim, rows, st->eval_bytes,
	         st->small[0] ? "; " : "", st->small);
	return st->note;
}

/* The run's federated circuit state, or NULL when run is not one of these algorithms. */
const fb_fc *fb_fc_of_run(const fb_run *run)
{
	if (run == NULL || run->state == NULL ||
	    (run->algo != &fb_algo_fedcircuit && run->algo != &fb_algo_fedcircuit_em))
		return NULL;
	return ((const fcalgo_state *)run->state)->fc;
}

/* What both algorithms' help says about the evaluation round. */
#define FCALGO_EVAL_HELP \
	"A last round evaluates every part of the data (train, valid, test) at the sites, which " \
	"send only row counts and log values: where every site holds every row (vertical), " \
	"each evaluates its own circuits on its own variables and the server its nodes; where " \
	"every site holds every variable and rows are not shared (horizontal), the broadcast " \
	"carries the assembled circuit and each site evaluates it on its rows. Each row's value " \
	"is, bit for bit, the assembled circuit evaluated in one place; the sums run over the " \
	"sites' rows in their order. Where sites hold different rows and variables (hybrid), no " \
	"site can: in one process the server evaluates the rows it holds the federated way, " \
	"over MPI the log-likelihood is not evaluated."

/* What both algorithms' help says about the protocol. */
#define FCALGO_HELP \
	"Federated circuits (Algorithm 1 of the federated-circuits paper), on any split. Round " \
	"1: each client sends the ids of its variables; the server groups variables held by " \
	"the same clients into subspaces. Round 2: every client learns on its own rows, with " \
	"the LearnSPN / MSPN learner (threshold, min_instances_slice, leaves), one circuit per " \
	"shared subspace and, over the variables only it holds, clusters (K) circuits, one per " \
	"k-means cluster; it sends them with their row counts (a circuit learned on at most " \
	"min_instances_slice rows is one product of independent leaves: the run says so " \
	"before round 1 when every client holds that few rows, and after round 2 with the " \
	"count, and suggests a smaller min_instances_slice). Round 3: the server puts a sum " \
	"over each shared subspace's circuits, products over every shared sum and one cluster " \
	"circuit per private subspace (glue=all: every combination), and a root sum over " \
	"them; every server weight is the child's training rows over its siblings' (no pass " \
	"over the data). "

/* Federated circuits' options, read from their parameters. */
FB_ALGO_OPTIONS(fc_options, fb_fc_options, fb_fc_options_init, fb_fc_options_from_params);

const fb_algo fb_algo_fedcircuit = {
	.name = "fedcircuit", .summary = "federated probabilistic circuits, one-pass training",
	.intro = "Learns one probabilistic circuit from data split by rows, by columns or both. "
	         "Each client learns small circuits on its own data; the server joins them with "
	         "sum nodes (same variables, different rows) and product nodes (different "
	         "variables), weighting them by row counts, so only the learned circuits and "
	         "counts travel.",
	.help = FCALGO_HELP FCALGO_EVAL_HELP " The note gives the bytes sent to learn the circuit "
	        "beside FedAvg's 8 M C R and SplitNN's 8 E C F S (the paper's section 3.4, with the "
	        "assumed R, E and F).",
	.flags = FB_ALGO_CIRCUIT | FB_ALGO_REMOTE,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_SPLITS,
	.params = fcalgo_params, .figures = fcalgo_figures, .levels = fcalgo_levels,
	.client_figure = "circuits",
	.create = fcalgo_create, .step = fcalgo_step, .done = fcalgo_done,
	.result = fcalgo_result, .destroy = fcalgo_destroy, .note = fcalgo_note,
	.circuit = fcalgo_circuit, .circuit_report = fcalgo_circuit_report,
	.options = &fc_options, .detail = FB_DETAIL_CIRCUITS,
};

/* fedcircuit-em's defaults: fedcircuit's, then FB_FC_EM_ITERS rounds of EM. */
static void fc_em_options_init(void *opt)
{
	fb_fc_options *o = opt;

	fb_fc_options_init(o);
	o->em_iters = FB_FC_EM_ITERS;
}

/* fedcircuit-em's options: its defaults, read as fedcircuit's. */
static const fb_algo_options fc_em_options = { sizeof(fb_fc_options), fc_em_options_init,
						fc_options_from };

const fb_algo fb_algo_fedcircuit_em = {
	.name = "fedcircuit-em",
	.summary = "federated circuits, one-pass then distributed EM (vertical, hybrid splits)",
	.intro = "Learns a federated circuit in one pass, then improves the server's weights "
	         "by expectation-maximisation on the rows every client holds: all rows of a "
	         "vertical split, the shared rows of a hybrid one (split hybrid ... shared=S). "
	         "Each client sends its circuits' values on those rows once, and the server runs "
	         "the EM steps.",
	.help = FCALGO_HELP "Then em rounds (Algorithms 2-3) over the training rows every client "
	        "holds: on a vertical split all of them, on a hybrid split the rows the split "
	        "gave every client (shared=S; each client knows them from the split, no row id "
	        "travels; rows a client holds alone are not used by EM, and a hybrid split "
	        "without shared rows is refused). In the first round each client sends the log "
	        "values of its circuits on those rows (8 bytes each); the server keeps them (the "
	        "clients' circuits do not change) and each round is one EM step on its sum "
	        "weights, which never lowers those rows' likelihood (figure train_ll, their "
	        "mean). Over MPI, only vertical federations. "
	        FCALGO_EVAL_HELP,
	.flags = FB_ALGO_CIRCUIT | FB_ALGO_REMOTE,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_SPLITS,
	.params = fcalgo_em_params, .figures = fcalgo_figures, .levels = fcalgo_levels,
	.client_figure = "circuits",
	.create = fcalgo_create, .step = fcalgo_step, .done = fcalgo_done,
	.result = fcalgo_result, .destroy = fcalgo_destroy, .note = fcalgo_note,
	.circuit = fcalgo_circuit, .circuit_report = fcalgo_circuit_report,
	.options = &fc_em_options, .detail = FB_DETAIL_CIRCUITS,
};
