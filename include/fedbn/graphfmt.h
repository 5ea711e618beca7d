/* Graphs in the file formats other tools speak, in and out: fedbn's CSV (edge list or
 * matrix), Tetrad's graph text (causal-learn's txt2generalgraph), causal-learn's endpoint
 * matrix, a bnlearn model string, GML, DOT, the structure of a BIF network and a node-link
 * JSON (networkx's node_link_data).
 *
 * Reading finds the format from the file name's extension and its content (a file that
 * matches none is refused in one sentence naming the formats tried), reads the graph over
 * the file's own node names and puts it over the caller's names (a dataset's variables):
 * every name the file gives must be one of them and every one of them must be in the file,
 * else one sentence names the differences.  causal-learn's matrix has no names: its rows are
 * the caller's names in order.  Errors name the file, and the line and column at fault.
 *
 * Endpoint marks fedbn's graphs cannot hold (a circle 'o', both ends arrows '<->') are read
 * as the nearest relation: o-> as ->, and <->, o-o, o-- as an undirected edge; the reader
 * counts them (fb_graph_read_info.lossy) so that the caller can say so. */
#ifndef FEDBN_GRAPHFMT_H
#define FEDBN_GRAPHFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"
#include "fedbn/pag.h"

/* A graph file format. */
enum fb_graph_format {
	FB_GRAPH_AUTO = 0,     /* reading: found from the extension and the content */
	FB_GRAPH_EDGES,        /* fedbn's CSV edge list from,to[,weight][,type] */
	FB_GRAPH_MATRIX,       /* fedbn's CSV d x d adjacency matrix headed by the names */
	FB_GRAPH_TETRAD,       /* "Graph Nodes:" / "Graph Edges:" text, edges "1. A --> B" */
	FB_GRAPH_CAUSAL_LEARN, /* blank-separated d x d endpoint marks: G[j,i] = 1 and
	                          G[i,j] = -1 is i -> j, -1 both ways i - j (1 arrow, -1
	                          tail, 2 circle: the mark at the row's node) */
	FB_GRAPH_BNLEARN,      /* a bnlearn model string [A][B|A][C|A:B] */
	FB_GRAPH_GML,          /* GML: graph [ directed 1 node [ id 0 label "A" ] edge [
	                          source 0 target 1 ] ]; an undirected edge of a directed
	                          graph as two opposite edges */
	FB_GRAPH_DOT,          /* DOT: digraph { "A" -> "B"; "B" -> "C" [dir=none] } */
	FB_GRAPH_BIF,          /* a BIF network's DAG (reading only) */
	FB_GRAPH_JSON,         /* node-link JSON: {"directed": true, "nodes": [{"id": "A"}],
	                          "links": [{"source": "A", "target": "B"}]}; an undirected
	                          edge as two opposite links */
	FB_GRAPH_NFORMATS
};

/* The format's name as format= takes it ("edges", "causal-learn", ...). */
const char *fb_graph_format_name(enum fb_graph_format f);
/* The format a file name's extension names when writing (.csv edges, .txt tetrad, .gml,
 * .json, .dot and .gv dot, .bif bif), or FB_GRAPH_AUTO for any other. */
enum fb_graph_format fb_graph_format_of_path(const char *path);

/* What a read found beside the graph. */
typedef struct fb_graph_read_info {
	enum fb_graph_format format; /* the format the file was read as */
	size_t lossy;                /* edges whose marks fedbn's graphs cannot hold, read as
	                                the nearest relation (see above) */
	fb_pag *pag;                 /* when an edge had a circle or two arrowheads (Tetrad
	                                text, causal-learn's matrix): every edge with its
	                                marks, over the graph's nodes (the caller frees it);
	                                else NULL */
} fb_graph_read_info;

/* Read the graph in path over the d names (FB_GRAPH_AUTO: find the format; another: read
 * the file as that format).  Caller frees; NULL with the reason in err.  info may be NULL. */
fb_graph *fb_graph_read_file(const char *path, enum fb_graph_format format,
                             char *const *names, size_t d, fb_graph_read_info *info,
                             fb_error *err);
/* fb_graph_read_file over the variables of ds, in their order. */
fb_graph *fb_graph_read_file_for(const char *path, enum fb_graph_format format,
                                 const fb_dataset *ds, fb_graph_read_info *info,
                                 fb_error *err);
/* Read len bytes at buf (need not end in NUL) in format (not AUTO, not the CSV ones) over the
 * file's own names, as the file lists them (causal-learn: X1..Xd); name stands for the file
 * in messages.  Caller frees; NULL with the reason. */
fb_graph *fb_graph_parse(const char *buf, size_t len, enum fb_graph_format format,
                         const char *name, fb_graph_read_info *info, fb_error *err);

/* Write g to fp in format (not AUTO, not BIF): FB_ERR naming the node or edge the format
 * cannot hold (an undirected edge in a bnlearn model string; a name with a blank or ';' in
 * Tetrad text, with [ ] | : in a model string).  Weights are kept by CSV, GML and JSON. */
int fb_graph_put(FILE *fp, const fb_graph *g, enum fb_graph_format format, fb_error *err);
/* fb_graph_put into path, atomically (path left as it was on failure). */
int fb_graph_write_file(const fb_graph *g, enum fb_graph_format format, const char *path,
                        fb_error *err);

/* The parents of every node of g for a BIF probability block, child by child in a
 * topological order (ties by index): order (room for d) gets the nodes, and the parents of
 * node i, in increasing index order, are par[start[i] .. start[i + 1]) (both allocated,
 * caller frees).  FB_ERR naming a node when g has an undirected edge or a cycle. */
int fb_graph_bif_structure(const fb_graph *g, size_t *order, size_t **par, size_t **start,
                           fb_error *err);

#endif
