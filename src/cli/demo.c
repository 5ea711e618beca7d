/* demo: a short guided run on data the program makes itself. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "session.h"

/* Show a command as if typed at the prompt, then run it. */
static int demo_step(fb_cmd_ctx *ctx, const char *line)
{
	fprintf(ctx->out, "\nfedbn> %s\n", line);
	fflush(ctx->out);
	return fb_cmd_run_line(ctx, line);
}

/* demo [truth=FILE] [diff=FILE]: simulate, split, learn by NOTEARS-ADMM, draw. */
static int exec_demo(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *truth = fb_params_str(&a->params, "truth");
	const char *diff = fb_params_str(&a->params, "diff");
	char *gen = fb_xasprintf("gen er d=10 edges=10 n=300 seed=%" PRIu64, ctx->s->seed);
	char *exp_truth = fb_xasprintf("export \"%s\" what=truth force=yes", truth);
	char *exp_diff = fb_xasprintf("export \"%s\" what=diff force=yes", diff);
	const char *steps[] = { gen, "split horizontal 10", "clients", "algo notears-admm",
		                "run", "result", exp_truth, exp_diff };
	int ret = FB_CMD_OK;

	fprintf(ctx->out, "fedbn demo: simulate a linear-Gaussian dataset from a random DAG, "
	                  "split its rows over 10 clients, learn the DAG by NOTEARS-ADMM (only "
	                  "weight matrices travel), and draw it against the truth.\n");
	for (size_t i = 0; i < sizeof steps / sizeof *steps && ret == FB_CMD_OK; i++)
		ret = demo_step(ctx, steps[i]);
	if (ret == FB_CMD_OK)
		fprintf(ctx->out, "\nThe true DAG is in '%s', the learned one against it in '%s'. "
		                  "Type 'help' for every command.\n", truth, diff);
	free(gen);
	free(exp_truth);
	free(exp_diff);
	return ret;
}

/* demo's parameters. */
static const fb_param_def demo_params[] = {
	{ "truth", FB_PARAM_STRING, "demo-truth.png", 0, 0, NULL,
	  "where to draw the true DAG (.png, .svg or .dot)" },
	{ "diff", FB_PARAM_STRING, "demo-diff.png", 0, 0, NULL,
	  "where to draw the learned DAG against the truth" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_demo = {
	.name = "demo", .usage = "[truth=FILE] [diff=FILE]", .summary = "a guided run on simulated data",
	.help = "Simulate a dataset (gen er d=10 edges=10 n=300 with the session seed), split "
	        "it horizontally over 10 clients, learn its DAG by NOTEARS-ADMM round by round, "
	        "show the result, and draw the true DAG (truth=FILE) and the learned one against "
	        "it (diff=FILE), replacing those two files when they exist. Each step is printed "
	        "as the command it runs, to be typed again.",
	.min_args = 0, .max_args = 0, .params = demo_params, .exec = exec_demo,
};
