/* export: graphs out, as pictures through Graphviz or as CSV. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/csv.h"
#include "fedbn/export.h"
#include "cmd.h"
#include "files.h"
#include "interrupt.h"
#include "session.h"

/* The file name's extension (after the last dot of the last component), or "". */
static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash != NULL ? slash : path, '.');

	return dot != NULL ? dot + 1 : "";
}

/* Write g as CSV in the chosen form. */
static int export_csv(fb_cmd_ctx *ctx, const fb_graph *g, const char *path, bool matrix)
{
	fb_error err = { { 0 } };
	int ret = matrix ? fb_graph_write_matrix(g, path, &err) : fb_graph_write_edges(g, path, &err);

	if (ret != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%s, %zu edges)\n", path,
	        matrix ? "adjacency matrix" : "edge list", fb_graph_n_edges(g));
	return FB_CMD_OK;
}

/* Read graph=FILE over the dataset's variables; NULL after printing the error. */
static fb_graph *read_graph_file(fb_cmd_ctx *ctx, const char *file)
{
	fb_error err = { { 0 } };
	fb_graph *g;

	if (ctx->s->data == NULL) {
		fb_cmd_error(ctx, "export: no dataset: graph= names are checked against its variables");
		return NULL;
	}
	if ((g = fb_graph_read_csv_for(file, ctx->s->data, &err)) == NULL)
		fb_cmd_error(ctx, "%s", err.msg);
	else
		fb_files_note_read(ctx, file, "a graph was read from it");
	return g;
}

/* Draw g (against truth for the diff view) into path, or write it as CSV; Ctrl-C stops a
 * long drawing and leaves path as it was. */
static int export_graph(fb_cmd_ctx *ctx, const fb_graph *g, const fb_graph *truth,
                        const char *path, const fb_params *p)
{
	fb_cancel cancel = fb_interrupt_cancel();
	fb_error err = { { 0 } };
	int rc;

	if (fb_files_check(ctx, "export", path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (strcmp(extension(path), "csv") == 0)
		return export_csv(ctx, g, path,
		                  fb_params_choice(p, "format") == FB_CMD_FORMAT_MATRIX);
	fb_interrupt_begin();
	rc = fb_export_graph_cancellable(g, truth, truth != NULL ? FB_VIEW_DIFF : FB_VIEW_GRAPH,
	                                 path, &cancel, &err);
	fb_interrupt_end();
	if (rc != FB_OK && fb_interrupted())
		return fb_cmd_error(ctx, "export: stopped by Ctrl-C; '%s' is as it was", path);
	if (rc != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%zu nodes, %zu edges%s)\n", path, g->d,
	        fb_graph_n_edges(g), truth != NULL ? ", against the truth" : "");
	return FB_CMD_OK;
}

/* The values of what=. */
enum export_what { WHAT_AUTO, WHAT_TRUTH, WHAT_ESTIMATE, WHAT_DIFF };

/* The names of what='s values. */
static const fb_choice export_whats[] = {
	{ "auto", WHAT_AUTO }, { "truth", WHAT_TRUTH }, { "estimate", WHAT_ESTIMATE },
	{ "diff", WHAT_DIFF }, { 0 },
};

/* The estimate to draw: graph=FILE, else run=N (0: the newest run); NULL after the error. */
static fb_graph *estimate(fb_cmd_ctx *ctx, const fb_params *p)
{
	const char *file = fb_params_str(p, "graph");
	fb_error err = { { 0 } };
	fb_run *run;
	fb_graph *g;

	if (file != NULL)
		return read_graph_file(ctx, file);
	if (ctx->s->nruns == 0) {
		fb_cmd_error(ctx, "export: no estimate: run an algorithm, or give graph=FILE.csv");
		return NULL;
	}
	if ((run = fb_cmd_pick_run(ctx, "export", fb_params_int(p, "run"))) == NULL)
		return NULL;
	if ((g = fb_run_result(run, &err)) == NULL)
		fb_cmd_error(ctx, "export: %s", err.msg);
	return g;
}

/* export FILE [what=auto|truth|estimate|diff] [graph=CSV] [run=N] [format=edges|matrix]. */
static int exec_export(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	enum export_what what = (enum export_what)fb_params_choice(p, "what");
	bool have_est = fb_params_str(p, "graph") != NULL || ctx->s->nruns > 0;
	fb_graph *est;
	int ret;

	if (what == WHAT_AUTO)
		what = have_est ? WHAT_ESTIMATE : WHAT_TRUTH;
	if (what != WHAT_ESTIMATE && ctx->s->truth == NULL)
		return fb_cmd_error(ctx, "export: no truth: gen makes one, truth load reads one");
	if (what == WHAT_TRUTH)
		return export_graph(ctx, ctx->s->truth, NULL, a->argv[0], p);
	if ((est = estimate(ctx, p)) == NULL)
		return FB_CMD_ERROR;
	ret = export_graph(ctx, est, what == WHAT_DIFF ? ctx->s->truth : NULL, a->argv[0], p);
	fb_graph_free(est);
	return ret;
}

/* export's parameters. */
static const fb_param_def export_params[] = {
	{ "what", FB_PARAM_CHOICE, "auto", 0, 0, export_whats,
	  "the truth, the estimate, or the estimate against the truth (auto: the estimate "
	  "when there is one, else the truth)" },
	{ "graph", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the estimate from a CSV graph (edge list or adjacency matrix) instead of a run" },
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL,
	  "the estimate of this run (1 is the first; 0: the newest)" },
	{ "format", FB_PARAM_CHOICE, "edges", 0, 0, fb_cmd_formats,
	  ".csv files: an edge list or a d x d adjacency matrix" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_export = {
	.name = "export", .usage = "FILE.dot|.gv|.png|.svg|.csv [key=value ...]",
	.summary = "write a graph as a picture or as CSV",
	.help = "Draw a graph through Graphviz (in-process) into FILE; the format follows the "
	        "extension. Variable names label the nodes, weights label the edges and set "
	        "their pen widths. The diff view marks correct edges plain, extra red, reversed "
	        "orange and missing dashed grey, with a legend. .csv writes an edge list or an "
	        "adjacency matrix. The estimate is the newest run's graph, another run's "
	        "(run=N), or a CSV graph (graph=FILE.csv, names checked against the dataset). "
	        "Files are replaced atomically; an existing file only when fedbn wrote it in this "
	        "session and the session did not read it, or with force=yes.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .params = export_params,
	.exec = exec_export,
};
