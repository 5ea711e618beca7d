/* truth: show, load or save the true graph of the current dataset. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fedbn/csv.h"
#include "fedbn/graph.h"
#include "cmd.h"
#include "files.h"
#include "report.h"
#include "session.h"

/* Print the truth's edges, one per line. */
static int truth_show(fb_cmd_ctx *ctx)
{
	const fb_graph *g = ctx->s->truth;

	if (g == NULL) {
		fprintf(ctx->out, "truth: none (gen makes one; truth load FILE reads one)\n");
		return FB_CMD_OK;
	}
	fprintf(ctx->out, "truth: %zu edges over %zu variables (%s)\n", fb_graph_n_edges(g), g->d,
	        ctx->s->truth_source);
	fb_report_edge_lines(ctx->out, g);
	if (ctx->s->truth_pag != NULL) {
		fprintf(ctx->out, "the true PAG over the observed variables (what fci can learn "
		        "with the hidden ones unmeasured):\n");
		fb_report_pag_lines(ctx->out, ctx->s->truth_pag);
	}
	return FB_CMD_OK;
}

/* The error of a failed truth load of path, whose reader said msg: for a file that is no CSV,
 * what truth load reads and what to use instead (a BIF network, by its name or first word,
 * or a first line with no delimiter, as causal-learn's blank-separated matrices); owned. */
static char *truth_load_error(const char *path, const char *msg)
{
	static const char reads[] = "truth load reads CSV only, an edge list (header from,to) "
	                            "or an adjacency matrix headed by the variables' names";
	char line[4096] = "";
	size_t n = strlen(path);
	bool bif = n > 4 && fb_strcasecmp(path + n - 4, ".bif") == 0;
	struct stat st;
	FILE *fp = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;

	if (fp == NULL)
		return fb_xstrdup(msg); /* not there, or a device or pipe not to be read again */
	for (int k = 0; k < 64 && fgets(line, sizeof line, fp) != NULL; k++)
		if (line[strspn(line, " \t\r\n")] != '\0')
			break; /* the first line that is not blank */
	fclose(fp);
	if (bif || strncmp(line + strspn(line, " \t"), "network", 7) == 0)
		return fb_xasprintf("cannot read '%s' as a truth: it is a BIF network, and %s; "
		                    "sample %s sets the truth from the network, with data drawn "
		                    "from it", path, reads, path);
	if (line[strspn(line, " \t\r\n")] != '\0' && strpbrk(line, ",;\t") == NULL)
		return fb_xasprintf("%s; %s, so a graph in another format (a blank-separated "
		                    "matrix) must be written as one first", msg, reads);
	return fb_xstrdup(msg);
}

/* Read a truth over the dataset's variables. */
static int truth_load(fb_cmd_ctx *ctx, const char *path)
{
	fb_error err = { { 0 } };
	fb_graph *g;
	size_t n;

	if (ctx->s->data == NULL)
		return fb_cmd_error(ctx, "no dataset: load or generate the data first, so "
		                         "that the truth's names can be checked");
	if ((g = fb_graph_read_csv_for(path, ctx->s->data, &err)) == NULL) {
		char *msg = truth_load_error(path, err.msg);
		int ret = fb_cmd_error_plain(ctx, "%s", msg);

		free(msg);
		return ret;
	}
	n = fb_session_set_truth(ctx->s, g, path);
	fb_files_note_read(ctx, path, "the truth was read from it");
	fprintf(ctx->out, "truth: %zu edges from '%s'%s", fb_graph_n_edges(g), path,
	        fb_graph_is_acyclic(g) ? "" : " (warning: it has a cycle)");
	if (n > 0)
		fprintf(ctx->out, "; %zu run%s over this dataset scored against it", n,
		        n == 1 ? "" : "s");
	fputc('\n', ctx->out);
	return FB_CMD_OK;
}

/* Write the truth as CSV (edge list or matrix). */
static int truth_save(fb_cmd_ctx *ctx, const char *path, const fb_params *p)
{
	bool matrix = fb_params_choice(p, "format") == FB_CMD_FORMAT_MATRIX;
	fb_error err = { { 0 } };
	int ret;

	if (ctx->s->truth == NULL)
		return fb_cmd_error(ctx, "no truth to save");
	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	ret = matrix ? fb_graph_write_matrix(ctx->s->truth, path, &err)
	             : fb_graph_write_edges(ctx->s->truth, path, &err);
	if (ret != FB_OK)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%s)\n", path, matrix ? "adjacency matrix" : "edge list");
	return FB_CMD_OK;
}

/* What truth does, its first word. */
enum truth_sub { TRUTH_SHOW, TRUTH_LOAD, TRUTH_SAVE };
/* Their names. */
static const fb_choice truth_subs[] = {
	{ "show", TRUTH_SHOW }, { "load", TRUTH_LOAD }, { "save", TRUTH_SAVE }, { 0 },
};

/* truth [show | load FILE | save FILE [format=edges|matrix]]. */
static int exec_truth(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *sub = a->argc > 0 ? a->argv[0] : "show";
	enum truth_sub what = (enum truth_sub)fb_cmd_word_value(&fb_cmd_truth, sub);

	if (what == TRUTH_SHOW) {
		if (a->argc > 1)
			return fb_cmd_error(ctx, "show takes no file");
		return truth_show(ctx);
	}
	if (a->argc < 2)
		return fb_cmd_error(ctx, "%s needs a FILE", sub);
	if (what == TRUTH_LOAD)
		return truth_load(ctx, a->argv[1]);
	return truth_save(ctx, a->argv[1], &a->params);
}

/* truth's parameters. */
static const fb_param_def truth_params[] = {
	{ "format", FB_PARAM_CHOICE, "edges", 0, 0, fb_cmd_formats,
	  "save: an edge list from,to[,weight] or a d x d adjacency matrix" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_truth = {
	.name = "truth", .usage = "[show | load FILE | save FILE [format=edges|matrix] [force=yes]]",
	.summary = "show, load or save the true graph",
	.help = "show lists the true edges. load reads an edge list (header from,to[,weight]) "
	        "or an adjacency matrix (row = parent, column = child), CSV only, and checks its "
	        "names against the dataset's variables (a BIF network's DAG becomes the truth "
	        "with sample FILE.bif); an edge list that names a pair twice (X1,X2 "
	        "and X2,X1, or the same row again) is refused. save writes it as CSV (an "
	        "existing file only when fedbn wrote it and nobody changed it since, or with "
	        "force=yes).",
	.min_args = 0, .max_args = 2, .words = truth_subs, .complete = FB_COMPLETE_FILE,
	.params = truth_params, .exec = exec_truth,
};
