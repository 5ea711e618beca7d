/* truth: show, load or save the true graph of the current dataset. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"
#include "fedbn/graphfmt.h"
#include "cmd.h"
#include "files.h"
#include "graph-files.h"
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

/* Read a truth over the dataset's variables. */
static int truth_load(fb_cmd_ctx *ctx, const char *path)
{
	fb_pag *pag = NULL;
	fb_graph *g;
	int format;
	size_t n;

	if (ctx->s->data == NULL)
		return fb_cmd_error(ctx, "no dataset: load or generate the data first, so "
		                         "that the truth's names can be checked");
	if ((g = fb_graph_files_read_pag(ctx, path, &format, &pag)) == NULL)
		return FB_CMD_ERROR;
	n = fb_session_set_truth(ctx->s, g, path);
	ctx->s->truth_pag = pag;
	fb_files_note_read(ctx, path, "the truth was read from it");
	fprintf(ctx->out, "truth: %zu edges from '%s'", fb_graph_n_edges(g), path);
	if (format != FB_GRAPH_EDGES)
		fprintf(ctx->out, " (%s)", fb_graph_files_words(format));
	if (!fb_graph_is_acyclic(g))
		fputs(" (warning: it has a cycle)", ctx->out);
	if (n > 0)
		fprintf(ctx->out, "; %zu run%s over this dataset scored against it", n,
		        n == 1 ? "" : "s");
	fputc('\n', ctx->out);
	if (pag != NULL)
		fprintf(ctx->out, "truth: a PAG (%zu edge%s with a circle or <->): its marks are kept "
		        "as the true PAG, against which compare scores the PAG-SHD of fci and "
		        "fedfci runs; where a DAG is needed (SHD of other learners, gen, fit, "
		        "pictures) it is read as its nearest DAG (o-> as ->, the others as -)\n",
		        fb_pag_n_circles(pag) + fb_pag_n_bidirected(pag),
		        fb_pag_n_circles(pag) + fb_pag_n_bidirected(pag) == 1 ? "" : "s");
	return FB_CMD_OK;
}

/* Write the truth in the format format= or the extension names (an edge list for any
 * other). */
static int truth_save(fb_cmd_ctx *ctx, const char *path, const fb_params *p)
{
	int f = fb_graph_files_format(p, path, false);

	if (ctx->s->truth == NULL)
		return fb_cmd_error(ctx, "no truth to save");
	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	return fb_graph_files_write(ctx, ctx->s->truth, path, f == FB_GRAPH_AUTO ? FB_GRAPH_EDGES : f,
	                            false);
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
	  "save: fedbn's CSV edge list or d x d matrix, Tetrad's graph text, causal-learn's "
	  "endpoint matrix, a bnlearn model string, GML, DOT or node-link JSON (default: the "
	  "extension's: .csv edges, .txt tetrad, .gml, .dot, .gv, .json; else edges)" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_truth = {
	.name = "truth", .usage = "[show | load FILE | save FILE [format=NAME] [force=yes]]",
	.summary = "show, load or save the true graph",
	.help = "show lists the true edges. load reads a graph in any format fedbn reads, found "
	        "from the content and the extension: fedbn's CSV edge list (header "
	        "from,to[,weight]) or adjacency matrix (row = parent, column = child), Tetrad's "
	        "graph text (as causal-learn writes it), causal-learn's endpoint matrix (its rows "
	        "are the variables in order), a bnlearn model string [A][B|A], GML, DOT, a BIF "
	        "network's DAG, node-link JSON; its names must be the dataset's variables (the "
	        "differences are named), and a pair given twice is refused. save writes it in "
	        "format= or the extension's format (an existing file only when fedbn wrote it "
	        "and nobody changed it since, or with force=yes).",
	.min_args = 0, .max_args = 2, .words = truth_subs, .complete = FB_COMPLETE_FILE,
	.params = truth_params, .exec = exec_truth,
};
