/* compare: one row per run of the session, on screen or into a CSV or Markdown file. */
#include "config.h"

#include <string.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "report.h"
#include "session.h"

/* compare [out=FILE.csv|.md]. */
static int exec_compare(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *path = fb_params_str(&a->params, "out");
	enum fb_table_format fmt = FB_TABLE_TEXT;
	fb_error err = { { 0 } };
	fb_atomic_file af;
	const char *dot;

	if (ctx->s->nruns == 0)
		return fb_cmd_error(ctx, "compare: no run yet: choose an algorithm and run it");
	if (path == NULL) {
		fb_report_compare(ctx->out, ctx->s->runs, ctx->s->nruns, FB_TABLE_TEXT);
		return FB_CMD_OK;
	}
	dot = strrchr(path, '.');
	if (dot != NULL && strcmp(dot, ".csv") == 0)
		fmt = FB_TABLE_CSV;
	else if (dot != NULL && strcmp(dot, ".md") == 0)
		fmt = FB_TABLE_MARKDOWN;
	else
		return fb_cmd_error(ctx, "compare: cannot tell the format of '%s' (use .csv or .md)",
		                    path);
	if (fb_atomic_open(&af, path, &err) != FB_OK)
		return fb_cmd_error(ctx, "compare: %s", err.msg);
	fb_report_compare(af.fp, ctx->s->runs, ctx->s->nruns, fmt);
	if (fb_atomic_commit(&af, &err) != FB_OK)
		return fb_cmd_error(ctx, "compare: %s", err.msg);
	fprintf(ctx->out, "wrote '%s' (%zu runs)\n", path, ctx->s->nruns);
	return FB_CMD_OK;
}

/* compare's parameters. */
static const fb_param_def compare_params[] = {
	{ "out", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "write the table to FILE.csv or FILE.md instead of the screen" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_compare = {
	.name = "compare", .usage = "[out=FILE.csv|FILE.md]", .summary = "compare every run",
	.help = "One row per run of the session: algorithm, split, the parameters that differ "
	        "from the defaults, SHD, TPR, FDR, F1, NNZ, rounds, seconds and bytes exchanged. "
	        "out= writes it as CSV or Markdown.",
	.min_args = 0, .max_args = 0, .params = compare_params, .exec = exec_compare,
};
