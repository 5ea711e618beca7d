/* Graph files in and out for the commands that take or write one (truth, graph, export):
 * every format fedbn reads, names checked against the dataset's, and format= or the
 * extension choosing what is written. */
#include "config.h"

#include <string.h>

#include "fedbn/graphfmt.h"
#include "cmd.h"
#include "files.h"
#include "graph-files.h"
#include "session.h"

/* The words for a format in messages. */
const char *fb_graph_files_words(int f)
{
	static const char *const words[FB_GRAPH_NFORMATS] = {
		[FB_GRAPH_EDGES] = "edge list", [FB_GRAPH_MATRIX] = "adjacency matrix",
		[FB_GRAPH_TETRAD] = "Tetrad graph text",
		[FB_GRAPH_CAUSAL_LEARN] = "causal-learn endpoint matrix",
		[FB_GRAPH_BNLEARN] = "bnlearn model string", [FB_GRAPH_GML] = "GML",
		[FB_GRAPH_DOT] = "DOT", [FB_GRAPH_BIF] = "BIF network", [FB_GRAPH_JSON] =
		"node-link JSON",
	};

	return f > 0 && f < FB_GRAPH_NFORMATS ? words[f] : "graph";
}

/* Read path over the dataset's variables; with pag, a file whose marks make a PAG (a
 * circle or <->) also gives them in *pag (else NULL), without the warning. */
fb_graph *fb_graph_files_read_pag(fb_cmd_ctx *ctx, const char *path, int *format,
                                  fb_pag **pag)
{
	fb_graph_read_info info = { FB_GRAPH_AUTO, 0, NULL };
	fb_error err = { { 0 } };
	fb_graph *g = fb_graph_read_file_for(path, FB_GRAPH_AUTO, ctx->s->data, &info, &err);

	if (g == NULL) {
		fb_cmd_error_plain(ctx, "%s", err.msg);
		return NULL;
	}
	if (info.lossy > 0 && (pag == NULL || info.pag == NULL))
		fb_cmd_warn(ctx, "'%s': %zu edge%s with a circle or two arrowheads (o->, <->, o-o) "
		            "read as the nearest edge fedbn holds (o-> as ->, the others as -)",
		            path, info.lossy, info.lossy == 1 ? "" : "s");
	if (pag != NULL)
		*pag = info.pag;
	else
		fb_pag_free(info.pag);
	if (format != NULL)
		*format = (int)info.format;
	return g;
}

/* Read path over the dataset's variables. */
fb_graph *fb_graph_files_read(fb_cmd_ctx *ctx, const char *path, int *format)
{
	return fb_graph_files_read_pag(ctx, path, format, NULL);
}

/* The format to write path in: format= when given, else its extension's. */
int fb_graph_files_format(const fb_params *p, const char *path, bool pictures)
{
	int f = fb_params_given(p, "format") ? fb_params_choice(p, "format")
	                                     : (int)fb_graph_format_of_path(path);

	if (!fb_params_given(p, "format") && (f == FB_GRAPH_BIF || (pictures && f == FB_GRAPH_DOT)))
		return FB_GRAPH_AUTO;
	return f;
}

/* Write g to path in format f. */
int fb_graph_files_write(fb_cmd_ctx *ctx, const fb_graph *g, const char *path, int f,
                         bool count)
{
	fb_error err = { { 0 } };

	if (fb_graph_write_file(g, (enum fb_graph_format)f, path, &err) != FB_OK)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	if (count)
		fprintf(ctx->out, "wrote '%s' (%s, %zu edges)\n", path, fb_graph_files_words(f),
		        fb_graph_n_edges(g));
	else
		fprintf(ctx->out, "wrote '%s' (%s)\n", path, fb_graph_files_words(f));
	return FB_CMD_OK;
}
