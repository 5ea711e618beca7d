/* Graph files in and out for the commands: every format fedbn reads, over the dataset's
 * variables; format= or the extension choosing what is written. */
#ifndef FEDBN_CLI_GRAPH_FILES_H
#define FEDBN_CLI_GRAPH_FILES_H

#include <stdbool.h>

#include "fedbn/graph.h"
#include "fedbn/pag.h"
#include "fedbn/param.h"
#include "cmd.h"

/* Read the graph in path, in any format fedbn reads, over the current dataset's variables
 * (there must be one); NULL after printing the error.  Warns when marks were read as the
 * nearest relation.  *format (may be NULL) gets the format read, an enum fb_graph_format. */
fb_graph *fb_graph_files_read(fb_cmd_ctx *ctx, const char *path, int *format);
/* fb_graph_files_read that also gives, for a file whose marks make a PAG (Tetrad text or
 * causal-learn's matrix with a circle or <->), those marks over the data's variables in
 * *pag (the caller frees; else NULL), instead of warning that they were read as the nearest
 * edges. */
fb_graph *fb_graph_files_read_pag(fb_cmd_ctx *ctx, const char *path, int *format,
                                  fb_pag **pag);
/* The format (enum fb_graph_format) to write path in: format= when given, else the one its
 * extension names, FB_GRAPH_AUTO when none does (and, with pictures, for .dot and .gv, which
 * export draws; .bif is left to a writer with probabilities). */
int fb_graph_files_format(const fb_params *p, const char *path, bool pictures);
/* Write g to path in format f and say so ("wrote 'x' (edge list)", with count ", N edges");
 * the command's status after printing. */
int fb_graph_files_write(fb_cmd_ctx *ctx, const fb_graph *g, const char *path, int f,
                         bool count);
/* The words for format f in messages ("edge list", "Tetrad graph text", ...). */
const char *fb_graph_files_words(int f);

#endif
