/* Graphs as CSV: edge lists ("from,to[,weight][,type]") and d x d adjacency matrices, in and
 * out.  Graph files are small (at most d x d cells), so the reader keeps every row as text
 * and then interprets the whole table; the writers go through atomic files. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "csv-private.h"

/* One row of the file, kept whole. */
struct trow {
	char **field;  /* trimmed fields (owned) */
	size_t n;      /* fields */
	size_t line;   /* the line where the row began */
};

/* The whole file as rows of text. */
struct table {
	struct trow *row;  /* the non-blank rows in file order */
	size_t n;          /* rows held */
	size_t cap;        /* room in row */
	struct trow cur;   /* the row being read */
	size_t curcap;     /* room in cur.field */
	size_t max_rows;   /* most rows a graph file over its variables may hold */
};

/* The columns of an edge list, found by their names in the header. */
struct edge_cols {
	size_t from;    /* column of the parent */
	size_t to;      /* column of the child */
	size_t weight;  /* column of the weight, or SIZE_MAX */
	size_t type;    /* column of "->" or "--", or SIZE_MAX */
};

/* Free a row's fields. */
static void trow_release(struct trow *r)
{
	for (size_t k = 0; k < r->n; k++)
		free(r->field[k]);
	free(r->field);
}

/* Free the table. */
static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		trow_release(&t->row[i]);
	trow_release(&t->cur);
	free(t->row);
}

/* Scanner callback: keep a field of the current row. */
static void table_field(fb_csv_scan *sc, const char *s, size_t len, size_t line)
{
	struct table *t = sc->ctx;

	fb_csv_trim(&s, &len);
	if (memchr(s, '\0', len) != NULL) {
		fb_csv_scan_fail(sc, "line %zu, column %zu: unexpected NUL byte", line,
		                 sc->nfield + 1);
		return;
	}
	fb_csv_keep_field(sc, &t->cur.field, &t->cur.n, &t->curcap, s, len, line);
}

/* Scanner callback: the current row is complete. */
static void table_row(fb_csv_scan *sc)
{
	struct table *t = sc->ctx;

	if (t->n == t->max_rows) {
		fb_csv_scan_fail(sc, "line %zu: more than %zu rows, more than a graph over its "
		                 "variables can have", sc->row_line, t->max_rows);
		return;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap == 0 ? 16 : 2 * t->cap;
		struct trow *grown = reallocarray(t->row, cap, sizeof *t->row);

		if (grown == NULL) {
			fb_csv_scan_fail(sc, "line %zu: out of memory", sc->row_line);
			return;
		}
		t->row = grown;
		t->cap = cap;
	}
	t->cur.line = sc->row_line;
	t->row[t->n++] = t->cur;
	memset(&t->cur, 0, sizeof t->cur);
	t->curcap = 0;
}

/* Index of name among the d names, or SIZE_MAX. */
static size_t node_index(char *const *names, size_t d, const char *name)
{
	for (size_t i = 0; i < d; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return SIZE_MAX;
}

/* Find the edge list columns in a header row; false (no error) when it is not one. */
static bool edge_header(const struct trow *r, struct edge_cols *c)
{
	c->from = c->to = c->weight = c->type = SIZE_MAX;
	for (size_t k = 0; k < r->n; k++) {
		const char *s = r->field[k];

		if (fb_strcasecmp(s, "from") == 0 && c->from == SIZE_MAX)
			c->from = k;
		else if (fb_strcasecmp(s, "to") == 0 && c->to == SIZE_MAX)
			c->to = k;
	}
	return c->from != SIZE_MAX && c->to != SIZE_MAX;
}

/* Check the rest of an edge list header: only weight and type may follow from and to. */
static int edge_header_check(fb_csv_scan *sc, const struct trow *r, struct edge_cols *c)
{
	for (size_t k = 0; k < r->n; k++) {
		const char *s = r->field[k];
		char ex[FB_CSV_EXCERPT_MAX];

		if (k == c->from || k == c->to)
			continue;
		if (fb_strcasecmp(s, "weight") == 0 && c->weight == SIZE_MAX)
			c->weight = k;
		else if (fb_strcasecmp(s, "type") == 0 && c->type == SIZE_MAX)
			c->type = k;
		else {
			fb_csv_excerpt(ex, s, strlen(s));
			fb_csv_scan_fail(sc, "line %zu, column %zu: unexpected column '%s' in an "
			                 "edge list (expected from, to, weight, type)", r->line,
			                 k + 1, ex);
			return FB_ERR;
		}
	}
	return FB_OK;
}

/* The node named in field k of row r; SIZE_MAX with an error when unknown. */
static size_t edge_node(fb_csv_scan *sc, const struct trow *r, size_t k, char *const *names,
                        size_t d)
{
	size_t i = node_index(names, d, r->field[k]);
	char ex[FB_CSV_EXCERPT_MAX];

	if (i == SIZE_MAX)
		fb_csv_scan_fail(sc, "line %zu, column %zu: unknown node '%s'", r->line, k + 1,
		                 fb_csv_excerpt(ex, r->field[k], strlen(r->field[k])));
	return i;
}

/* The number in field k of row r; FB_ERR with an error when it is not one. */
static int cell_number(fb_csv_scan *sc, const struct trow *r, size_t k, double *v)
{
	const char *s = r->field[k];
	char ex[FB_CSV_EXCERPT_MAX];

	if (fb_csv_number_parse(s, strlen(s), v))
		return FB_OK;
	fb_csv_scan_fail(sc, "line %zu, column %zu: expected a number, found '%s'", r->line, k + 1,
	                 fb_csv_excerpt(ex, s, strlen(s)));
	return FB_ERR;
}

/* Is the edge of row r undirected?  From its type field; FB_ERR on an unknown type. */
static int edge_type(fb_csv_scan *sc, const struct trow *r, const struct edge_cols *c,
                     bool *undirected)
{
	const char *s;
	char ex[FB_CSV_EXCERPT_MAX];

	*undirected = false;
	if (c->type == SIZE_MAX)
		return FB_OK;
	s = r->field[c->type];
	if (strcmp(s, "->") == 0 || strcmp(s, "--") == 0) {
		*undirected = s[1] == '-';
		return FB_OK;
	}
	fb_csv_scan_fail(sc, "line %zu, column %zu: unknown edge type '%s' (expected -> or --)",
	                 r->line, c->type + 1, fb_csv_excerpt(ex, s, strlen(s)));
	return FB_ERR;
}

/* The line of the first of rows[0..n) that joins i and j (in either direction). */
static size_t edge_first_line(const struct trow *rows, size_t n, const struct edge_cols *c,
                              char *const *names, size_t d, size_t i, size_t j)
{
	for (size_t k = 0; k < n; k++) {
		size_t a = node_index(names, d, rows[k].field[c->from]);
		size_t b = node_index(names, d, rows[k].field[c->to]);

		if ((a == i && b == j) || (a == j && b == i))
			return rows[k].line;
	}
	return 0;
}

/* A pair listed twice is refused: the second row repeats or contradicts the first (X1,X2
 * then X2,X1 would otherwise keep only the last). */
static int edge_twice(fb_csv_scan *sc, const struct trow *r, const struct trow *prev,
                      size_t nprev, const struct edge_cols *c, char *const *names, size_t d,
                      size_t i, size_t j)
{
	size_t line = edge_first_line(prev, nprev, c, names, d, i, j);

	fb_csv_scan_fail(sc, "line %zu: the pair '%s', '%s' is already an edge on line %zu; "
	                 "list each pair once (type -- for an undirected edge)", r->line,
	                 names[i], names[j], line);
	return FB_ERR;
}

/* Add the edge of one edge list row to g; prev holds the nprev rows before it. */
static int edge_row(fb_csv_scan *sc, const struct trow *r, const struct trow *prev,
                    size_t nprev, const struct edge_cols *c, char *const *names, fb_graph *g)
{
	size_t i, j;
	double w = 1;
	bool undirected;

	if ((i = edge_node(sc, r, c->from, names, g->d)) == SIZE_MAX ||
	    (j = edge_node(sc, r, c->to, names, g->d)) == SIZE_MAX)
		return FB_ERR;
	if (c->weight != SIZE_MAX && cell_number(sc, r, c->weight, &w) != FB_OK)
		return FB_ERR;
	if (edge_type(sc, r, c, &undirected) != FB_OK)
		return FB_ERR;
	if (i == j) {
		fb_csv_scan_fail(sc, "line %zu: self-loop on '%s'", r->line, names[i]);
		return FB_ERR;
	}
	if (fb_graph_adjacent(g, i, j))
		return edge_twice(sc, r, prev, nprev, c, names, g->d, i, j);
	if (undirected) {
		fb_graph_set_undirected(g, i, j);
		g->w[i * g->d + j] = g->w[j * g->d + i] = w;
	} else {
		fb_graph_set_directed(g, i, j, w);
	}
	return FB_OK;
}

/* Read an edge list: the header row, then one edge per row. */
static int read_edges(fb_csv_scan *sc, const struct table *t, struct edge_cols *c,
                      char *const *names, fb_graph *g)
{
	const struct trow *head = &t->row[0];

	if (edge_header_check(sc, head, c) != FB_OK)
		return FB_ERR;
	g->weighted = c->weight != SIZE_MAX;
	for (size_t i = 1; i < t->n; i++) {
		const struct trow *r = &t->row[i];

		if (r->n != head->n) {
			fb_csv_scan_fail(sc, "line %zu: expected %zu fields, found %zu", r->line,
			                 head->n, r->n);
			return FB_ERR;
		}
		if (edge_row(sc, r, &t->row[1], i - 1, c, names, g) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Field k of row r must name node want; FB_ERR with an error otherwise. */
static int matrix_name(fb_csv_scan *sc, const struct trow *r, size_t k, char *const *names,
                       size_t d, size_t want)
{
	const char *s = r->field[k];
	char ex[FB_CSV_EXCERPT_MAX];

	if (strcmp(s, names[want]) == 0)
		return FB_OK;
	fb_csv_excerpt(ex, s, strlen(s));
	if (node_index(names, d, s) == SIZE_MAX)
		fb_csv_scan_fail(sc, "line %zu, column %zu: unknown node '%s'", r->line, k + 1, ex);
	else
		fb_csv_scan_fail(sc, "line %zu, column %zu: expected node '%s', found '%s' "
		                 "(the nodes must be in the data's order)", r->line, k + 1,
		                 names[want], ex);
	return FB_ERR;
}

/* True when field k of row r is a number. */
static bool is_number(const struct trow *r, size_t k)
{
	double v;

	return fb_csv_number_parse(r->field[k], strlen(r->field[k]), &v);
}

/* Is the first row of a matrix a header of names?  Yes when a field that would hold a
 * value is not a number (a leading corner or row-name field is passed over). */
static bool matrix_has_header(const struct trow *r, size_t d)
{
	for (size_t k = r->n == d + 1 ? 1 : 0; k < r->n; k++)
		if (!is_number(r, k))
			return true;
	return false;
}

/* Check a header row of names: d names in the data's order, after an optional corner. */
static int matrix_header(fb_csv_scan *sc, const struct trow *r, char *const *names, size_t d)
{
	size_t off = r->n == d + 1 ? 1 : 0;

	if (r->n != d && r->n != d + 1) {
		fb_csv_scan_fail(sc, "line %zu: expected %zu node names, found %zu fields", r->line,
		                 d, r->n);
		return FB_ERR;
	}
	for (size_t k = 0; k < d; k++)
		if (matrix_name(sc, r, off + k, names, d, k) != FB_OK)
			return FB_ERR;
	return FB_OK;
}

/* Read row i of the matrix into a[i*d ...], after an optional row name. */
static int matrix_row(fb_csv_scan *sc, const struct trow *r, char *const *names, size_t d,
                      size_t i, double *a)
{
	size_t off = 0;

	if (r->n == d + 1 && !is_number(r, 0)) {
		if (matrix_name(sc, r, 0, names, d, i) != FB_OK)
			return FB_ERR;
		off = 1;
	} else if (r->n != d) {
		fb_csv_scan_fail(sc, "line %zu: expected %zu fields, found %zu", r->line, d, r->n);
		return FB_ERR;
	}
	for (size_t j = 0; j < d; j++)
		if (cell_number(sc, r, off + j, &a[i * d + j]) != FB_OK)
			return FB_ERR;
	if (a[i * d + i] != 0) {
		fb_csv_scan_fail(sc, "line %zu, column %zu: self-loop on '%s'", r->line,
		                 off + i + 1, names[i]);
		return FB_ERR;
	}
	return FB_OK;
}

/* Put the edges of adjacency matrix a into g: both entries non-zero is an undirected edge. */
static void matrix_build(fb_graph *g, const double *a)
{
	size_t d = g->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			double ij = a[i * d + j], ji = a[j * d + i];

			if (ij != 0 && ji != 0) {
				fb_graph_set_undirected(g, i, j);
				g->w[i * d + j] = ij;
				g->w[j * d + i] = ji;
			} else if (ij != 0) {
				fb_graph_set_directed(g, i, j, ij);
			} else if (ji != 0) {
				fb_graph_set_directed(g, j, i, ji);
			}
		}
	for (size_t k = 0; k < d * d; k++)
		if (a[k] != 0 && a[k] != 1)
			g->weighted = true;
}

/* Read an adjacency matrix: an optional header row of names, then d rows of d numbers. */
static int read_matrix(fb_csv_scan *sc, const struct table *t, char *const *names,
                       fb_graph *g)
{
	size_t d = g->d, first = 0;
	double *a = fb_xcalloc(d * d == 0 ? 1 : d * d, sizeof *a);
	int rc = FB_ERR;

	if (t->n > 0 && matrix_has_header(&t->row[0], d)) {
		if (matrix_header(sc, &t->row[0], names, d) != FB_OK)
			goto out;
		first = 1;
	}
	for (size_t i = first; i < t->n; i++) {
		if (i - first == d) {
			fb_csv_scan_fail(sc, "line %zu: more than %zu rows in the adjacency matrix",
			                 t->row[i].line, d);
			goto out;
		}
		if (matrix_row(sc, &t->row[i], names, d, i - first, a) != FB_OK)
			goto out;
	}
	if (t->n - first < d) {
		fb_csv_scan_fail(sc, "expected %zu rows in the adjacency matrix, found %zu", d,
		                 t->n - first);
		goto out;
	}
	matrix_build(g, a);
	rc = FB_OK;
out:
	free(a);
	return rc;
}

/* A graph with no edges over the given names. */
static fb_graph *graph_named(fb_csv_scan *sc, char *const *names, size_t d)
{
	fb_graph *g = fb_graph_alloc(d);

	if (g == NULL) {
		fb_csv_scan_fail(sc, "out of memory for a graph of %zu nodes", d);
		return NULL;
	}
	for (size_t i = 0; i < d; i++)
		if (fb_graph_set_name(g, i, names[i], sc->err) != FB_OK) {
			fb_graph_free(g);
			return NULL;
		}
	return g;
}

/* Read a graph over the given names from an edge list or an adjacency matrix. */
fb_graph *fb_graph_read_csv(const char *path, char *const *names, size_t d, fb_error *err)
{
	struct table t = { 0 };
	struct edge_cols c;
	fb_csv_scan sc;
	fb_graph *g = NULL;
	int rc;

	fb_csv_scan_init(&sc, path, 0, err);
	sc.field = table_field;
	sc.row = table_row;
	sc.ctx = &t;
	/* a header and a matrix's d rows, or a header and at most d x d edges: an endless
	 * input ends here */
	t.max_rows = d < 65536 ? d * d + 2 : SIZE_MAX;
	if (fb_csv_scan_file(&sc, path) == FB_OK && (g = graph_named(&sc, names, d)) != NULL) {
		if (t.n == 0 && d > 0) {
			fb_csv_scan_fail(&sc, "the file is empty");
			rc = FB_ERR;
		} else if (t.n > 0 && edge_header(&t.row[0], &c)) {
			rc = read_edges(&sc, &t, &c, names, g);
		} else {
			rc = read_matrix(&sc, &t, names, g);
		}
		if (rc != FB_OK) {
			fb_graph_free(g);
			g = NULL;
		}
	}
	table_release(&t);
	return g;
}

/* Write one edge list row. */
static void put_edge(FILE *fp, const fb_graph *g, size_t i, size_t j, bool typed,
                     bool undirected)
{
	fb_csv_put_field(fp, g->names[i]);
	putc(',', fp);
	fb_csv_put_field(fp, g->names[j]);
	if (g->weighted)
		fprintf(fp, ",%.17g", g->w[i * g->d + j]);
	if (typed)
		fputs(undirected ? ",--" : ",->", fp);
	putc('\n', fp);
}

/* Write the edge list of g to fp. */
void fb_csv_put_graph_edges(FILE *fp, const fb_graph *g)
{
	bool typed = fb_graph_n_undirected(g) > 0;

	fprintf(fp, "from,to%s%s\n", g->weighted ? ",weight" : "", typed ? ",type" : "");
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);

			if (e == FB_EDGE_FORWARD)
				put_edge(fp, g, i, j, typed, false);
			else if (e == FB_EDGE_UNDIRECTED && i < j)
				put_edge(fp, g, i, j, typed, true);
		}
}

/* Write a graph as an edge list, atomically. */
int fb_graph_write_edges(const fb_graph *g, const char *path, fb_error *err)
{
	fb_atomic_file af;

	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	fb_csv_put_graph_edges(af.fp, g);
	return fb_atomic_commit(&af, err);
}

/* Write the adjacency matrix of g to fp: weights when weighted, else 1 for each edge. */
void fb_csv_put_graph_matrix(FILE *fp, const fb_graph *g)
{
	size_t d = g->d;

	for (size_t j = 0; j < d; j++) {
		if (j > 0)
			putc(',', fp);
		fb_csv_put_field(fp, g->names[j]);
	}
	putc('\n', fp);
	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++) {
			double w = g->w[i * d + j], v = 0;

			if (g->mark[i * d + j])
				v = g->weighted && w != 0 ? w : 1;
			fprintf(fp, j > 0 ? ",%.17g" : "%.17g", v);
		}
		putc('\n', fp);
	}
}

/* Write a graph as an adjacency matrix, atomically. */
int fb_graph_write_matrix(const fb_graph *g, const char *path, fb_error *err)
{
	fb_atomic_file af;

	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	fb_csv_put_graph_matrix(af.fp, g);
	return fb_atomic_commit(&af, err);
}

/* Read a graph over the variables of ds. */
fb_graph *fb_graph_read_csv_for(const char *path, const fb_dataset *ds, fb_error *err)
{
	char **names = fb_xcalloc(ds->d, sizeof *names);
	fb_graph *g;

	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	g = fb_graph_read_csv(path, names, ds->d, err);
	free(names);
	return g;
}
