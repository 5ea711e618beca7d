/* Graphs written in the formats of other tools: Tetrad's graph text, causal-learn's
 * endpoint matrix, a bnlearn model string, GML, DOT and node-link JSON (and fedbn's CSV). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "csv-private.h"
#include "graphfmt-private.h"

/* The first node of g whose name holds one of the bytes of bad (or a blank when blanks),
 * or SIZE_MAX. */
static size_t bad_name(const fb_graph *g, const char *bad, bool blanks)
{
	for (size_t i = 0; i < g->d; i++)
		if (strpbrk(g->names[i], bad) != NULL ||
		    (blanks && strpbrk(g->names[i], " \t\r\n\f\v") != NULL))
			return i;
	return SIZE_MAX;
}

/* Fail naming node i's name, which format cannot hold (why: the bytes it may not have). */
static int name_refused(const fb_graph *g, size_t i, const char *format, const char *why,
                        fb_error *err)
{
	char ex[FB_CSV_EXCERPT_MAX];

	return fb_fail(err, "cannot write node '%s' in %s: a name there has no %s",
	               fb_csv_excerpt(ex, g->names[i], strlen(g->names[i])), format, why);
}

/* Tetrad's graph text. */
static int put_tetrad(FILE *fp, const fb_graph *g, fb_error *err)
{
	size_t bad = bad_name(g, ";", true), k = 0;

	if (bad != SIZE_MAX)
		return name_refused(g, bad, "Tetrad's graph text", "blank or ';'", err);
	fputs("Graph Nodes:\n", fp);
	for (size_t i = 0; i < g->d; i++)
		fprintf(fp, "%s%s", i > 0 ? ";" : "", g->names[i]);
	fputs("\n\nGraph Edges:\n", fp);
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);

			if (e == FB_EDGE_FORWARD || (e == FB_EDGE_UNDIRECTED && i < j))
				fprintf(fp, "%zu. %s %s %s\n", ++k, g->names[i],
				        e == FB_EDGE_FORWARD ? "-->" : "---", g->names[j]);
		}
	return FB_OK;
}

/* causal-learn's endpoint matrix: the mark at the row's node (-1 tail, 1 arrow). */
static int put_causal_learn(FILE *fp, const fb_graph *g)
{
	for (size_t i = 0; i < g->d; i++) {
		for (size_t j = 0; j < g->d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);
			int v = e == FB_EDGE_NONE ? 0 : e == FB_EDGE_BACKWARD ? 1 : -1;

			fprintf(fp, j > 0 ? " %d" : "%d", v);
		}
		putc('\n', fp);
	}
	return FB_OK;
}

/* A bnlearn model string, the nodes in their order, each with its parents. */
static int put_bnlearn(FILE *fp, const fb_graph *g, fb_error *err)
{
	size_t bad = bad_name(g, "[]|:", false), *par = fb_xcalloc(g->d + 1, sizeof *par);

	for (size_t i = 0; bad == SIZE_MAX && i < g->d; i++)
		if (isspace((unsigned char)g->names[i][0]) ||
		    isspace((unsigned char)g->names[i][strlen(g->names[i]) - 1]))
			bad = i;
	if (bad != SIZE_MAX) {
		free(par);
		return name_refused(g, bad, "a bnlearn model string", "'[', ']', '|' or ':' and "
		                    "no blank at either end", err);
	}
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++)
			if (fb_graph_edge(g, i, j) == FB_EDGE_UNDIRECTED) {
				free(par);
				return fb_fail(err, "cannot write '%s' - '%s' in a bnlearn model string, "
				               "which holds directed arcs only", g->names[i], g->names[j]);
			}
	for (size_t i = 0; i < g->d; i++) {
		size_t np = fb_graph_parents(g, i, par);

		fprintf(fp, "[%s", g->names[i]);
		for (size_t k = 0; k < np; k++)
			fprintf(fp, "%s%s", k == 0 ? "|" : ":", g->names[par[k]]);
		putc(']', fp);
	}
	putc('\n', fp);
	free(par);
	return FB_OK;
}

/* A name in GML quotes, its '"' and '&' as entities. */
static void gml_string(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s; s++)
		fputs(*s == '"' ? "&quot;" : *s == '&' ? "&amp;" : (char[2]){ *s, 0 }, fp);
	putc('"', fp);
}

/* One GML edge. */
static void gml_edge(FILE *fp, const fb_graph *g, size_t i, size_t j)
{
	char num[32];

	fprintf(fp, "  edge [\n    source %zu\n    target %zu\n", i, j);
	if (g->weighted)
		fprintf(fp, "    weight %s\n", fb_format_double(g->w[i * g->d + j], num, sizeof num));
	fputs("  ]\n", fp);
}

/* GML as networkx writes it; an undirected edge as two opposite edges. */
static int put_gml(FILE *fp, const fb_graph *g)
{
	fputs("graph [\n  directed 1\n", fp);
	for (size_t i = 0; i < g->d; i++) {
		fprintf(fp, "  node [\n    id %zu\n    label ", i);
		gml_string(fp, g->names[i]);
		fputs("\n  ]\n", fp);
	}
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++)
			if (g->mark[i * g->d + j])
				gml_edge(fp, g, i, j);
	fputs("]\n", fp);
	return FB_OK;
}

/* A name as a DOT quoted ID: '"' and '\' escaped, a line end as \n (as fedbn's pictures
 * write names). */
static void dot_string(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s; s++)
		fputs(*s == '"' ? "\\\"" : *s == '\\' ? "\\\\" : *s == '\n' ? "\\n"
		                                                            : (char[2]){ *s, 0 },
		      fp);
	putc('"', fp);
}

/* DOT: every node, then every edge, an undirected one with dir=none. */
static int put_dot(FILE *fp, const fb_graph *g)
{
	fputs("digraph {\n", fp);
	for (size_t i = 0; i < g->d; i++) {
		fputs("  ", fp);
		dot_string(fp, g->names[i]);
		fputs(";\n", fp);
	}
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);

			if (e != FB_EDGE_FORWARD && !(e == FB_EDGE_UNDIRECTED && i < j))
				continue;
			fputs("  ", fp);
			dot_string(fp, g->names[i]);
			fputs(" -> ", fp);
			dot_string(fp, g->names[j]);
			fputs(e == FB_EDGE_UNDIRECTED ? " [dir=none];\n" : ";\n", fp);
		}
	fputs("}\n", fp);
	return FB_OK;
}

/* A name as a JSON string. */
static void json_string(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
	putc('"', fp);
}

/* Node-link JSON as networkx's node_link_data writes it; an undirected edge as two
 * opposite links. */
static int put_json(FILE *fp, const fb_graph *g)
{
	char num[32];
	bool first = true;

	fputs("{\"directed\": true, \"multigraph\": false, \"graph\": {},\n \"nodes\": [", fp);
	for (size_t i = 0; i < g->d; i++) {
		fputs(i > 0 ? ",\n  {\"id\": " : "\n  {\"id\": ", fp);
		json_string(fp, g->names[i]);
		putc('}', fp);
	}
	fputs("],\n \"links\": [", fp);
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++) {
			if (!g->mark[i * g->d + j])
				continue;
			fputs(first ? "\n  {\"source\": " : ",\n  {\"source\": ", fp);
			json_string(fp, g->names[i]);
			fputs(", \"target\": ", fp);
			json_string(fp, g->names[j]);
			if (g->weighted)
				fprintf(fp, ", \"weight\": %s",
				        fb_format_double(g->w[i * g->d + j], num, sizeof num));
			putc('}', fp);
			first = false;
		}
	fputs("]}\n", fp);
	return FB_OK;
}

/* Write g to fp in format. */
int fb_graph_put(FILE *fp, const fb_graph *g, enum fb_graph_format format, fb_error *err)
{
	switch (format) {
	case FB_GRAPH_EDGES: fb_csv_put_graph_edges(fp, g); return FB_OK;
	case FB_GRAPH_MATRIX: fb_csv_put_graph_matrix(fp, g); return FB_OK;
	case FB_GRAPH_TETRAD: return put_tetrad(fp, g, err);
	case FB_GRAPH_CAUSAL_LEARN: return put_causal_learn(fp, g);
	case FB_GRAPH_BNLEARN: return put_bnlearn(fp, g, err);
	case FB_GRAPH_GML: return put_gml(fp, g);
	case FB_GRAPH_DOT: return put_dot(fp, g);
	case FB_GRAPH_JSON: return put_json(fp, g);
	default:
		return fb_fail(err, "cannot write a graph as %s: a BIF network needs its "
		               "probabilities", fb_graph_format_name(format));
	}
}

/* fb_graph_put into path, atomically. */
int fb_graph_write_file(const fb_graph *g, enum fb_graph_format format, const char *path,
                        fb_error *err)
{
	fb_atomic_file af;

	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	if (fb_graph_put(af.fp, g, format, err) != FB_OK) {
		fb_atomic_abort(&af);
		return FB_ERR;
	}
	return fb_atomic_commit(&af, err);
}

/* The parents of every node of g for a BIF probability block, in a topological order. */
int fb_graph_bif_structure(const fb_graph *g, size_t *order, size_t **par, size_t **start,
                           fb_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++)
			if (fb_graph_edge(g, i, j) == FB_EDGE_UNDIRECTED)
				return fb_fail(err, "a BIF network holds directed arcs only, and '%s' - "
				               "'%s' is undirected", g->names[i], g->names[j]);
	if (fb_graph_topo_order(g, order, err) != FB_OK)
		return FB_ERR;
	*start = fb_xcalloc(g->d + 1, sizeof **start);
	*par = fb_xcalloc(fb_graph_n_directed(g) + 1, sizeof **par);
	for (size_t i = 0; i < g->d; i++) {
		(*start)[i] = n;
		n += fb_graph_parents(g, i, *par + n);
	}
	(*start)[g->d] = n;
	return FB_OK;
}
