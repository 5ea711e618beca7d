/* sample: draw a discrete dataset from a Bayesian network read from a BIF file. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "fedbn/bif.h"
#include "cmd.h"
#include "files.h"
#include "history.h"
#include "session.h"

/* sample FILE.bif [n=N] [seed=S]: forward-sample the network; its DAG becomes the truth. */
static int exec_sample(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	const char *path = a->argv[0];
	size_t n = (size_t)fb_params_int(p, "n");
	uint64_t seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed")
	                                            : ctx->s->seed;
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *truth;
	char *source;
	fb_bn *bn;
	int dropped;

	bn = fb_bif_read(path, &err);
	if (bn == NULL)
		return fb_cmd_error(ctx, "sample: %s", err.msg);
	ds = fb_bn_sample(bn, n, seed, &err);
	truth = ds != NULL ? fb_bn_graph(bn) : NULL;
	fb_bn_free(bn);
	if (ds == NULL)
		return fb_cmd_error(ctx, "sample: %s", err.msg);
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
	{ "n", FB_PARAM_INT, "5000", 1, 1e9, NULL, "number of rows" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the sampling stream; default the session seed" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_sample = {
	.name = "sample", .alias = NULL, .usage = "FILE.bif [key=value ...]",
	.summary = "draw a discrete dataset from a Bayesian network (BIF)",
	.help = "Read a discrete Bayesian network in the BIF interchange format (as in the "
	        "bnlearn repository: variable blocks with their states, probability blocks with "
	        "one row per parent configuration, a table, or a default row) and draw n rows by "
	        "forward sampling: each variable after its parents, from its row of the "
	        "conditional probability table. The columns are the network's variables in "
	        "declaration order, discrete, with the state names as levels. The dataset and "
	        "the network's DAG, as the truth, replace the current ones. The same seed gives "
	        "the same rows on every machine.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .params = sample_params,
	.exec = exec_sample,
};
