/* sample: draw a discrete dataset from a Bayesian network read from a BIF file. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "fedbn/algo.h"
#include "fedbn/bif.h"
#include "fedbn/bnfit.h"
#include "cmd.h"
#include "files.h"
#include "history.h"
#include "session.h"

/* Where sample draws from. */
enum sample_from { SAMPLE_FILE, SAMPLE_CIRCUIT, SAMPLE_FIT };
/* Its names. */
static const fb_choice sample_froms[] = {
	{ "file", SAMPLE_FILE }, { "circuit", SAMPLE_CIRCUIT }, { "fit", SAMPLE_FIT }, { 0 },
};

/* The number of run in the session, from 1. */
static size_t run_no(const fb_session *s, const fb_run *run)
{
	size_t i = 0;

	while (i < s->nruns && s->runs[i] != run)
		i++;
	return i + 1;
}

/* sample from=circuit [n=N] [seed=S] [run=R]: forward-sample a run's circuit into a new
 * dataset over the same variables. */
static int sample_circuit(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	size_t n = (size_t)fb_params_int(p, "n");
	uint64_t seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed")
	                                            : ctx->s->seed;
	fb_run *run = fb_cmd_pick_run(ctx, fb_params_int(p, "run"));
	fb_error err = { { 0 } };
	const fb_circuit *c;
	fb_dataset *ds;
	gsl_rng *r;
	char *source;
	int dropped;

	if (run == NULL)
		return FB_CMD_ERROR;
	if (!fb_run_is_circuit(run))
		return fb_cmd_error(ctx, "run '%s' learns a graph, not a circuit", run->name);
	if ((c = fb_run_circuit(run, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	ds = fb_dataset_subset(run->whole, (size_t[]){ 0 }, 0, NULL, 0);
	free(ds->x);
	free(ds->part);
	ds->part = NULL;
	ds->x = fb_xcalloc(n * ds->d + 1, sizeof *ds->x);
	ds->n = n;
	r = fb_rng_stream(seed, "sample-circuit");
	if (fb_circuit_sample(c, n, r, ds->x, &err) != FB_OK) {
		gsl_rng_free(r);
		fb_dataset_free(ds);
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	gsl_rng_free(r);
	source = fb_xasprintf("sample from=circuit run=%zu n=%zu seed=%" PRIu64,
	                      run_no(ctx->s, run), n, seed);
	fb_session_set_data(ctx->s, ds, source, NULL, NULL, &dropped);
	fprintf(ctx->out, "sampled %zu rows x %zu variables from the circuit of run %zu (seed %"
	        PRIu64 ")\n", n, ds->d, run_no(ctx->s, run), seed);
	free(source);
	return FB_CMD_OK;
}

/* sample from=fit [n=N] [seed=S]: forward-sample the fitted network (fit) into a new
 * dataset; its DAG becomes the truth. */
static int sample_fit(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	size_t n = (size_t)fb_params_int(p, "n");
	uint64_t seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed")
	                                            : ctx->s->seed;
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *truth;
	char *source;
	int dropped;

	if (ctx->s->fit == NULL)
		return fb_cmd_error(ctx, "no fitted network to draw from: fit one first (fit)");
	if ((ds = fb_bnfit_sample(ctx->s->fit, n, seed, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	truth = fb_bnfit_graph(ctx->s->fit);
	source = fb_xasprintf("sample from=fit n=%zu seed=%" PRIu64, n, seed);
	fb_session_set_data(ctx->s, ds, source, truth, source, &dropped);
	fprintf(ctx->out, "sampled %zu rows x %zu variables from the fitted network; its DAG, "
	        "with %zu edges, is the truth (seed %" PRIu64 ")\n", n, ds->d,
	        fb_graph_n_edges(truth), seed);
	free(source);
	return FB_CMD_OK;
}

/* sample FILE.bif [n=N] [seed=S]: forward-sample the network; its DAG becomes the truth. */
static int exec_sample(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	const char *path = a->argc > 0 ? a->argv[0] : NULL;
	size_t n = (size_t)fb_params_int(p, "n");
	uint64_t seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed")
	                                            : ctx->s->seed;
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *truth;
	char *source;
	fb_bn *bn;
	int dropped;

	if (fb_params_choice(p, "from") != SAMPLE_FILE) {
		if (a->argc > 0)
			return fb_cmd_error(ctx, "from=%s draws from %s, not from '%s'",
			                    fb_params_str(p, "from"),
			                    fb_params_choice(p, "from") == SAMPLE_FIT
			                        ? "the fitted network" : "a run's circuit", a->argv[0]);
		return fb_params_choice(p, "from") == SAMPLE_FIT ? sample_fit(ctx, a)
		                                                 : sample_circuit(ctx, a);
	}
	if (a->argc == 0)
		return fb_cmd_error(ctx, "name a network file (FILE.bif), or sample a run's "
		                         "circuit with from=circuit");
	bn = fb_bif_read(path, &err);
	if (bn == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	ds = fb_bn_sample(bn, n, seed, &err);
	truth = ds != NULL ? fb_bn_graph(bn) : NULL;
	fb_bn_free(bn);
	if (ds == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_read(ctx, path, "a network was read from it");
	source = fb_xasprintf("sample %s n=%zu seed=%" PRIu64, path, n, seed);
	fb_session_set_data(ctx->s, ds, source, truth, source, &dropped);
	if (!fb_params_given(p, "seed"))
		fb_history_add(ctx->s, "seed=%" PRIu64, seed);
	fprintf(ctx->out, "sampled %zu rows x %zu variables from '%s'; true DAG has %zu edges "
	        "(seed %" PRIu64 ")\n", ds->n, ds->d, path, fb_graph_n_edges(truth), seed);
	free(source);
	return FB_CMD_OK;
}

/* sample's parameters. */
static const fb_param_def sample_params[] = {
	{ "from", FB_PARAM_CHOICE, "file", 0, 0, sample_froms,
	  "file: the network FILE.bif; circuit: the circuit of a run (run=); fit: the fitted "
	  "network (fit)" },
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL,
	  "from=circuit: the circuit of this run (1 is the first; 0: the newest)" },
	{ "n", FB_PARAM_INT, "5000", 1, 1e9, NULL, "number of rows" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the sampling stream; default the session seed" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_sample = {
	.name = "sample", .alias = NULL, .usage = "FILE.bif | from=circuit | from=fit",
	.summary = "draw a dataset from a Bayesian network (BIF) or a run's circuit",
	.help = "Read a discrete Bayesian network in the BIF interchange format (as in the "
	        "bnlearn repository: variable blocks with their states, probability blocks with "
	        "one row per parent configuration, a table, or a default row) and draw n rows by "
	        "forward sampling: each variable after its parents, from its row of the "
	        "conditional probability table. The columns are the network's variables in "
	        "declaration order, discrete, with the state names as levels. The dataset and "
	        "the network's DAG, as the truth, replace the current ones. The same seed gives "
	        "the same rows on every machine. from=circuit instead draws n rows from the "
	        "circuit of the newest run (or run=N) by forward sampling (each sum picks a "
	        "child by its weights, leaves draw a value) as the new dataset over the same "
	        "variables (the truth stays, as for load). from=fit draws from the network "
	        "fit made (tables, or linear Gaussian regressions with their residual sd), "
	        "whose DAG becomes the truth.",
	.min_args = 0, .max_args = 1, .complete = FB_COMPLETE_FILE, .params = sample_params,
	.exec = exec_sample,
};
