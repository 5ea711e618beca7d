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

/* demo [out=FILE]: simulate, split, show the clients, draw the true DAG. */
static int exec_demo(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *out = fb_params_str(&a->params, "out");
	char *gen = fb_xasprintf("gen er d=10 edges=10 n=300 seed=%" PRIu64, ctx->s->seed);
	char *exp = fb_xasprintf("export \"%s\" what=truth", out);
	const char *steps[] = { gen, "info", "split horizontal 10", "clients", exp };
	int ret = FB_CMD_OK;

	fprintf(ctx->out, "fedbn demo: simulate a linear-Gaussian dataset from a random DAG, "
	                  "split its rows over 10 clients, and draw the true DAG.\n");
	for (size_t i = 0; i < sizeof steps / sizeof *steps && ret == FB_CMD_OK; i++)
		ret = demo_step(ctx, steps[i]);
	if (ret == FB_CMD_OK)
		fprintf(ctx->out, "\nThe true DAG is in '%s'. Type 'help' for every command.\n", out);
	free(gen);
	free(exp);
	return ret;
}

/* demo's parameters. */
static const fb_param_def demo_params[] = {
	{ "out", FB_PARAM_STRING, "demo-truth.png", 0, 0, NULL,
	  "where to draw the true DAG (.png, .svg or .dot)" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_demo = {
	.name = "demo", .usage = "[out=FILE]", .summary = "a guided run on simulated data",
	.help = "Simulate a dataset (gen er d=10 edges=10 n=300 with the session seed), split "
	        "it horizontally over 10 clients, show the clients, and draw the true DAG into "
	        "out=FILE. Each step is printed as the command it runs, to be typed again.",
	.min_args = 0, .max_args = 0, .params = demo_params, .exec = exec_demo,
};
