/* The line-oriented graph formats: Tetrad's graph text, causal-learn's endpoint matrix and
 * a bnlearn model string. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "csv-private.h"
#include "graphfmt-private.h"

/* An edge's end, as Tetrad and causal-learn mark it. */
enum mark { MARK_TAIL, MARK_ARROW, MARK_CIRCLE };

/* Add the edge a (ma)-(mc) c: the relation fedbn can hold, counting those read as the
 * nearest one (o-> as ->; <->, o-o, o-- as -). */
static void mark_edge_near(gf_build *b, size_t a, size_t c, enum mark ma, enum mark mc,
                           size_t line, size_t col)
{
	if (ma != MARK_ARROW && mc == MARK_ARROW) {
		gf_edge_add(b, a, c, false, 1, line, col);
	} else if (ma == MARK_ARROW && mc != MARK_ARROW) {
		gf_edge_add(b, c, a, false, 1, line, col);
	} else {
		gf_edge_add(b, a, c, true, 1, line, col);
		if (ma == MARK_TAIL && mc == MARK_TAIL)
			return;
	}
	if (ma == MARK_CIRCLE || mc == MARK_CIRCLE || (ma == MARK_ARROW && mc == MARK_ARROW))
		b->lossy++;
}

/* Add the edge a (ma)-(mc) c as mark_edge_near does, keeping its marks for the PAG. */
static void mark_edge(gf_build *b, size_t a, size_t c, enum mark ma, enum mark mc,
                      size_t line, size_t col)
{
	static const unsigned char pag_of[] = { [MARK_TAIL] = FB_PAG_TAIL,
		                                [MARK_ARROW] = FB_PAG_ARROW,
		                                [MARK_CIRCLE] = FB_PAG_CIRCLE };
	gf_edge *e;

	mark_edge_near(b, a, c, ma, mc, line, col);
	e = &b->e[b->ne - 1];
	e->ma = pag_of[e->a == a ? ma : mc];
	e->mb = pag_of[e->a == a ? mc : ma];
	if (ma == MARK_CIRCLE || mc == MARK_CIRCLE || (ma == MARK_ARROW && mc == MARK_ARROW))
		b->pag = true;
}

/* How many of the n bytes at s are blanks or tabs before anything else. */
static size_t lead_blanks(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	return k;
}

/* Whether the n bytes at s are all decimal digits. */
static bool all_digits(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!isdigit((unsigned char)s[k]))
			return false;
	return true;
}

/* One line of t: its bytes [*s, *s + *n) without the line end, and its number; false at
 * the end of the text. */
static bool next_line(gf_text *t, const char **s, size_t *n, size_t *line)
{
	size_t k = 0;

	if (t->pos >= t->len)
		return false;
	*s = t->s + t->pos;
	*line = t->line;
	while (t->pos + k < t->len && t->s[t->pos + k] != '\n')
		k++;
	gf_advance(t, k + 1);
	while (k > 0 && isspace((unsigned char)(*s)[k - 1]))
		k--;
	*n = k;
	return true;
}

/* The next word of [s, end) from *p on (blanks skipped), its start and length; false when
 * none is left. */
static bool next_word(const char *s, size_t end, size_t *p, size_t *start, size_t *len,
                      char stop)
{
	size_t k = *p;

	while (k < end && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k >= end)
		return false;
	*start = k;
	while (k < end && s[k] != ' ' && s[k] != '\t' && s[k] != stop)
		k++;
	*len = k - *start;
	*p = k;
	return true;
}

/* Tetrad: the node line "A;B;C" (names trimmed). */
static int tetrad_nodes(const gf_text *t, gf_build *b, const char *s, size_t n, size_t line)
{
	size_t k = 0;

	while (k <= n) {
		size_t e = k, a, z;

		while (e < n && s[e] != ';')
			e++;
		for (a = k; a < e && isspace((unsigned char)s[a]); a++)
			;
		for (z = e; z > a && isspace((unsigned char)s[z - 1]); z--)
			;
		if (!(e == n && z == a && k > 0) &&
		    gf_node_new(b, t, s + a, z - a, line, a + 1) == SIZE_MAX)
			return FB_ERR;
		k = e + 1;
	}
	return FB_OK;
}

/* The mark at one end of a Tetrad edge ('<' or '>' arrow, 'o' circle, '-' tail). */
static bool tetrad_end(char ch, enum mark *m)
{
	*m = ch == '-' ? MARK_TAIL : ch == 'o' ? MARK_CIRCLE : MARK_ARROW;
	return ch == '-' || ch == 'o' || ch == '<' || ch == '>';
}

/* Tetrad: the node of the word at [s + a, len) of line; SIZE_MAX after the error. */
static size_t tetrad_node(const gf_text *t, const gf_build *b, const char *s, size_t a,
                          size_t len, size_t line)
{
	char ex[FB_CSV_EXCERPT_MAX];
	size_t i = gf_find(b, s + a, len);

	if (i == SIZE_MAX)
		gf_fail_at(t, line, a + 1, "node '%s' is not among the graph's nodes",
		           fb_csv_excerpt(ex, s + a, len));
	return i;
}

/* Tetrad: one edge line "1. A --> B" (words after the second node are properties). */
static int tetrad_edge(const gf_text *t, gf_build *b, const char *s, size_t n, size_t line)
{
	size_t p = 0, w[4], l[4], x, y;
	enum mark m1, m2;
	char ex[FB_CSV_EXCERPT_MAX];

	for (int k = 0; k < 4; k++)
		if (!next_word(s, n, &p, &w[k], &l[k], '\0'))
			return gf_fail_at(t, line, n + 1, "expected an edge such as '1. X1 --> X2'");
	if (l[0] < 2 || s[w[0] + l[0] - 1] != '.' || !all_digits(s + w[0], l[0] - 1))
		return gf_fail_at(t, line, w[0] + 1, "expected an edge number such as '1.', "
		                  "found '%s'", fb_csv_excerpt(ex, s + w[0], l[0]));
	if (l[2] != 3 || s[w[2] + 1] != '-' || !tetrad_end(s[w[2]], &m1) ||
	    !tetrad_end(s[w[2] + 2], &m2) || s[w[2]] == '>' || s[w[2] + 2] == '<')
		return gf_fail_at(t, line, w[2] + 1, "unknown edge '%s' (expected -->, <--, ---, "
		                  "<->, o->, <-o, o-o)", fb_csv_excerpt(ex, s + w[2], l[2]));
	if ((x = tetrad_node(t, b, s, w[1], l[1], line)) == SIZE_MAX ||
	    (y = tetrad_node(t, b, s, w[3], l[3], line)) == SIZE_MAX)
		return FB_ERR;
	mark_edge(b, x, y, m1, m2, line, w[1] + 1);
	return FB_OK;
}

/* Whether the line [s, s + n) is, trimmed, the text want. */
static bool line_is(const char *s, size_t n, const char *want)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	return n == strlen(want) && memcmp(s, want, n) == 0;
}

/* Tetrad: one line of the text in state *at (blank lines are passed over). */
static int tetrad_line(const gf_text *t, gf_build *b, const char *s, size_t n, size_t line,
                       int *at)
{
	size_t lead = lead_blanks(s, n);

	if (lead >= n)
		return FB_OK;
	switch (*at) {
	case 0: /* before the nodes */
		if (!line_is(s, n, "Graph Nodes:"))
			return gf_fail_at(t, line, lead + 1, "expected 'Graph Nodes:'");
		break;
	case 1: /* the names, or no node at all */
		if (line_is(s, n, "Graph Edges:"))
			*at = 2;
		else if (tetrad_nodes(t, b, s, n, line) != FB_OK)
			return FB_ERR;
		break;
	case 2: /* before the edges */
		if (!line_is(s, n, "Graph Edges:"))
			return gf_fail_at(t, line, lead + 1, "expected 'Graph Edges:'");
		break;
	default: /* the edges, up to another section */
		if (s[n - 1] == ':' && !isdigit((unsigned char)s[lead]))
			return (*at = 4), FB_OK;
		return tetrad_edge(t, b, s, n, line);
	}
	(*at)++;
	return FB_OK;
}

/* Tetrad's graph text: "Graph Nodes:", the names joined by ';', "Graph Edges:", then one
 * numbered edge a line; a later section ("Graph Attributes:") ends the edges. */
fb_graph *gf_read_tetrad(gf_text *t, gf_build *b)
{
	int at = 0;
	const char *s;
	size_t n, line;

	while (at < 4 && next_line(t, &s, &n, &line))
		if (tetrad_line(t, b, s, n, line, &at) != FB_OK)
			return NULL;
	if (at < 3) {
		gf_fail(t, "expected '%s'", at == 0 ? "Graph Nodes:" : "Graph Edges:");
		return NULL;
	}
	return gf_build_graph(b, t);
}

/* causal-learn: the cells read so far, with where each was written. */
struct cells {
	int *v;           /* the marks, row after row */
	size_t *line;     /* each cell's line */
	size_t *col;      /* and column */
	size_t n, cap;    /* cells held, and room */
	size_t d;         /* cells a row (from the first row) */
};

/* causal-learn: keep one cell. */
static void cells_add(struct cells *c, int v, size_t line, size_t col)
{
	if (c->n == c->cap) {
		c->cap = c->cap == 0 ? 64 : 2 * c->cap;
		c->v = fb_xreallocarray(c->v, c->cap, sizeof *c->v);
		c->line = fb_xreallocarray(c->line, c->cap, sizeof *c->line);
		c->col = fb_xreallocarray(c->col, c->cap, sizeof *c->col);
	}
	c->v[c->n] = v;
	c->line[c->n] = line;
	c->col[c->n++] = col;
}

/* causal-learn: one row of blank-separated marks (-1, 0, 1, 2; "1.0" and "1e+00" too). */
static int cl_row(const gf_text *t, struct cells *c, const char *s, size_t n, size_t line)
{
	size_t p = 0, a, len, got = 0;
	char ex[FB_CSV_EXCERPT_MAX];
	double v;

	while (next_word(s, n, &p, &a, &len, ',')) {
		if (!fb_csv_number_parse(s + a, len, &v) || (v != -1 && v != 0 && v != 1 && v != 2))
			return gf_fail_at(t, line, a + 1, "expected an endpoint mark -1, 0, 1 or 2, "
			                  "found '%s'", fb_csv_excerpt(ex, s + a, len));
		cells_add(c, (int)v, line, a + 1);
		got++;
	}
	if (c->d == 0)
		c->d = got;
	if (got != c->d)
		return gf_fail_at(t, line, n + 1, "expected %zu marks in the row, found %zu", c->d,
		                  got);
	return FB_OK;
}

/* causal-learn: the mark a cell holds (-1 tail, 1 arrow, 2 circle). */
static enum mark cl_mark(int v)
{
	return v == -1 ? MARK_TAIL : v == 1 ? MARK_ARROW : MARK_CIRCLE;
}

/* causal-learn: the edges of the marks; FB_ERR at a mark without its other end or on the
 * diagonal. */
static int cl_edges(const gf_text *t, gf_build *b, const struct cells *c)
{
	size_t d = c->d;

	for (size_t i = 0; i < d; i++) {
		if (c->v[i * d + i] != 0)
			return gf_fail_at(t, c->line[i * d + i], c->col[i * d + i], "a mark on the "
			                  "diagonal (X%zu with itself)", i + 1);
		for (size_t j = i + 1; j < d; j++) {
			int ij = c->v[i * d + j], ji = c->v[j * d + i];
			size_t k = ij != 0 ? i * d + j : j * d + i;

			if ((ij == 0) != (ji == 0))
				return gf_fail_at(t, c->line[k], c->col[k], "X%zu and X%zu: a mark at one "
				                  "end of the edge and none at the other (G[%zu,%zu] = %d, "
				                  "G[%zu,%zu] = %d)", i + 1, j + 1, i, j, ij, j, i, ji);
			if (ij != 0)
				mark_edge(b, i, j, cl_mark(ij), cl_mark(ji), c->line[k], c->col[k]);
		}
	}
	return FB_OK;
}

/* causal-learn's endpoint matrix: d rows of d marks, the nodes named X1..Xd. */
fb_graph *gf_read_causal_learn(gf_text *t, gf_build *b)
{
	struct cells c = { 0 };
	const char *s;
	size_t n, line, rows = 0;
	fb_graph *g = NULL;
	int rc = FB_OK;

	while (rc == FB_OK && next_line(t, &s, &n, &line))
		if (lead_blanks(s, n) < n) {
			rc = cl_row(t, &c, s, n, line);
			rows++;
		}
	if (rc == FB_OK && rows != c.d)
		rc = gf_fail(t, "expected %zu rows of marks (a square matrix), found %zu", c.d,
		             rows);
	for (size_t i = 0; rc == FB_OK && i < c.d; i++) {
		char name[32];

		snprintf(name, sizeof name, "X%zu", i + 1);
		gf_node(b, name, strlen(name));
	}
	if (rc == FB_OK && cl_edges(t, b, &c) == FB_OK)
		g = gf_build_graph(b, t);
	free(c.v);
	free(c.line);
	free(c.col);
	return g;
}

/* bnlearn: a parent named in a node's brackets, resolved once every node is known. */
struct pending {
	size_t child;     /* the node whose brackets name it */
	size_t at, len;   /* its name in the text */
	size_t line, col; /* where */
};

/* bnlearn: the name ending at one of stops, trimmed, at the cursor; its start and length. */
static void bn_name(gf_text *t, const char *stops, size_t *at, size_t *len, size_t *line,
                    size_t *col)
{
	size_t end;

	gf_skip_space(t);
	*at = t->pos;
	*line = t->line;
	*col = t->col;
	while (gf_peek(t) >= 0 && strchr(stops, gf_peek(t)) == NULL)
		gf_advance(t, 1);
	for (end = t->pos; end > *at && isspace((unsigned char)t->s[end - 1]); end--)
		;
	*len = end - *at;
}

/* bnlearn: one "[X|P1:P2]" at the cursor (on its '['). */
static int bn_node(gf_text *t, gf_build *b, struct pending **p, size_t *np)
{
	size_t at, len, line, col, child;
	char found[FB_CSV_EXCERPT_MAX + 2];

	gf_advance(t, 1);
	bn_name(t, "[]|:", &at, &len, &line, &col);
	if ((child = gf_node_new(b, t, t->s + at, len, line, col)) == SIZE_MAX)
		return FB_ERR;
	if (gf_peek(t) == '|') {
		do {
			gf_advance(t, 1);
			bn_name(t, "[]|:", &at, &len, &line, &col);
			if (len == 0)
				return gf_fail_at(t, line, col, "a parent of '%s' needs a name",
				                  b->names[child]);
			*p = fb_xreallocarray(*p, *np + 1, sizeof **p);
			(*p)[(*np)++] = (struct pending){ child, at, len, line, col };
		} while (gf_peek(t) == ':');
	}
	if (gf_peek(t) != ']')
		return gf_fail(t, "expected ']' to close the node '%s', found %s", b->names[child],
		               gf_found(t, found, sizeof found));
	gf_advance(t, 1);
	return FB_OK;
}

/* bnlearn: the arcs of the parents named, each from a node with brackets of its own. */
static int bn_arcs(const gf_text *t, gf_build *b, const struct pending *p, size_t np)
{
	char ex[FB_CSV_EXCERPT_MAX];

	for (size_t k = 0; k < np; k++) {
		size_t i = gf_find(b, t->s + p[k].at, p[k].len);

		if (i == SIZE_MAX)
			return gf_fail_at(t, p[k].line, p[k].col, "parent '%s' of '%s' has no "
			                  "brackets of its own", fb_csv_excerpt(ex, t->s + p[k].at,
			                                                        p[k].len),
			                  b->names[p[k].child]);
		gf_edge_add(b, i, p[k].child, false, 1, p[k].line, p[k].col);
	}
	return FB_OK;
}

/* A bnlearn model string: [A][B|A][C|A:B], blanks and line ends allowed between nodes. */
fb_graph *gf_read_bnlearn(gf_text *t, gf_build *b)
{
	struct pending *p = NULL;
	size_t np = 0;
	fb_graph *g = NULL;
	char found[FB_CSV_EXCERPT_MAX + 2];
	int rc = FB_OK;

	for (gf_skip_space(t); rc == FB_OK && gf_peek(t) >= 0; gf_skip_space(t))
		rc = gf_peek(t) == '[' ? bn_node(t, b, &p, &np)
		                       : gf_fail(t, "expected '[' to open a node, found %s",
		                                 gf_found(t, found, sizeof found));
	if (rc == FB_OK && bn_arcs(t, b, p, np) == FB_OK)
		g = gf_build_graph(b, t);
	free(p);
	return g;
}
