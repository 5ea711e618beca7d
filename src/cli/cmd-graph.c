/* graph: load graphs from files to compare with the runs (compare scores them beside the
 * runs, against the truth), list them, or forget them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"
#include "fedbn/graphfmt.h"
#include "cmd.h"
#include "files.h"
#include "graph-files.h"
#include "session.h"

/* List the loaded graphs, one a line. */
static int graph_list(fb_cmd_ctx *ctx)
{
	const fb_session *s = ctx->s;

	if (s->ngraphs == 0) {
		fprintf(ctx->out, "graphs: none (graph load FILE reads one to compare with the "
		                  "runs)\n");
		return FB_CMD_OK;
	}
	for (size_t i = 0; i < s->ngraphs; i++)
		fprintf(ctx->out, "g%zu: %zu edges over %zu variables from '%s' (data: %s)\n", i + 1,
		        fb_graph_n_edges(s->graphs[i].g), s->graphs[i].g->d, s->graphs[i].source,
		        s->graphs[i].data);
	return FB_CMD_OK;
}

/* Read a graph over the dataset's variables and keep it for compare. */
static int graph_load(fb_cmd_ctx *ctx, const char *path)
{
	fb_session *s = ctx->s;
	fb_graph *g;
	int format;

	if (s->data == NULL)
		return fb_cmd_error(ctx, "no dataset: load or generate the data first, so that "
		                         "the graph's names can be checked");
	if ((g = fb_graph_files_read(ctx, path, &format)) == NULL)
		return FB_CMD_ERROR;
	s->graphs = fb_xreallocarray(s->graphs, s->ngraphs + 1, sizeof *s->graphs);
	s->graphs[s->ngraphs++] = (fb_session_graph){ g, fb_xstrdup(path),
		                                      fb_xstrdup(s->data_source), false };
	fb_files_note_read(ctx, path, "a graph was read from it");
	fprintf(ctx->out, "g%zu: %zu edges from '%s' (%s)%s; compare scores it beside the runs\n",
	        s->ngraphs, fb_graph_n_edges(g), path, fb_graph_files_words(format),
	        fb_graph_is_acyclic(g) ? "" : " (it has a cycle)");
	return FB_CMD_OK;
}

/* Forget every loaded graph. */
static int graph_clear(fb_cmd_ctx *ctx)
{
	fb_session *s = ctx->s;

	for (size_t i = 0; i < s->ngraphs; i++) {
		fb_graph_free(s->graphs[i].g);
		free(s->graphs[i].source);
		free(s->graphs[i].data);
	}
	fprintf(ctx->out, "graphs: %zu forgotten\n", s->ngraphs);
	free(s->graphs);
	s->graphs = NULL;
	s->ngraphs = 0;
	return FB_CMD_OK;
}

/* What graph does, its first word. */
enum graph_sub { GRAPH_LIST, GRAPH_LOAD, GRAPH_CLEAR };
/* Their names. */
static const fb_choice graph_subs[] = {
	{ "list", GRAPH_LIST }, { "load", GRAPH_LOAD }, { "clear", GRAPH_CLEAR }, { 0 },
};

/* graph [list | load FILE | clear]. */
static int exec_graph(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *sub = a->argc > 0 ? a->argv[0] : "list";
	enum graph_sub what = (enum graph_sub)fb_cmd_word_value(&fb_cmd_graph, sub);

	if (what == GRAPH_LOAD && a->argc < 2)
		return fb_cmd_error(ctx, "load needs a FILE");
	if (what != GRAPH_LOAD && a->argc > 1)
		return fb_cmd_error(ctx, "%s takes no file", sub);
	if (what == GRAPH_LOAD)
		return graph_load(ctx, a->argv[1]);
	return what == GRAPH_CLEAR ? graph_clear(ctx) : graph_list(ctx);
}

const fb_cmd_entry fb_cmd_graph = {
	.name = "graph", .usage = "[list | load FILE | clear]",
	.summary = "load graphs from files to compare with the runs",
	.help = "load reads a graph in any format truth load reads (fedbn's CSV, Tetrad's graph "
	        "text, causal-learn's endpoint matrix, a bnlearn model string, GML, DOT, a BIF "
	        "network's DAG, node-link JSON), its names checked against the dataset's "
	        "variables, and keeps it as g1, g2, ...: compare scores each beside the runs, "
	        "against the truth, as it scores a run's graph (another tool's output, or a "
	        "published graph). list names them; clear forgets them.",
	.min_args = 0, .max_args = 2, .words = graph_subs, .complete = FB_COMPLETE_FILE,
	.exec = exec_graph,
};
