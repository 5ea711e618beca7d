/* DOT as fedbn and Graphviz write it: a graph or digraph of node and edge statements, edge
 * chains (A -> B -> C), attribute lists, default attributes and subgraphs.  An edge's dir
 * attribute (none, back, both, forward, or its default from 'edge [dir=...]') says which
 * way it points: an edge with dir=none (or '--' in a graph) is undirected. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "csv-private.h"
#include "graphfmt-private.h"

/* Deepest nesting of subgraphs read. */
#define DOT_DEPTH_MAX 64

/* The kinds of DOT token. */
enum dkind { D_END, D_ID, D_LBRACE, D_RBRACE, D_LBRACK, D_RBRACK, D_SEMI, D_COMMA, D_EQ,
	     D_COLON, D_EDGEOP, D_OTHER };

/* How an edge points, from its dir attribute. */
enum ddir { DIR_DEFAULT, DIR_FORWARD, DIR_BACK, DIR_NONE, DIR_BOTH };

/* A DOT text being read. */
struct dot {
	gf_text *t;       /* the text */
	gf_build *b;      /* the graph being read */
	bool directed;    /* digraph */
	enum ddir dflt;   /* the edges' default dir in the current (sub)graph */
	enum dkind kind;  /* the current token's kind */
	gf_token tok;     /* its text (an ID's, owned) and place */
};

/* Skip blanks and comments (// and # to the end of the line, C block comments). */
static void dot_skip(gf_text *t)
{
	for (;;) {
		gf_skip_space(t);
		if (gf_peek(t) == '#' || (gf_peek(t) == '/' && t->pos + 1 < t->len &&
		                          t->s[t->pos + 1] == '/')) {
			while (gf_peek(t) >= 0 && gf_peek(t) != '\n')
				gf_advance(t, 1);
		} else if (gf_peek(t) == '/' && t->pos + 1 < t->len && t->s[t->pos + 1] == '*') {
			gf_advance(t, gf_block_comment_end(t->s, t->len, t->pos) - t->pos);
		} else {
			return;
		}
	}
}

/* Whether byte c may be part of an unquoted ID. */
static bool id_char(int c)
{
	return c >= 0 && (isalnum(c) || c == '_' || c == '.' || c >= 0x80);
}

/* Take n bytes at the cursor as the current token's text. */
static void dot_take(struct dot *p, size_t n)
{
	p->tok.text = fb_xmalloc(n + 1);
	memcpy(p->tok.text, p->t->s + p->t->pos, n);
	p->tok.text[n] = '\0';
	p->tok.len = n;
	gf_advance(p->t, n);
}

/* An HTML string <...> at the cursor: its text without the outer brackets. */
static int dot_html(struct dot *p)
{
	gf_text *t = p->t;
	size_t n = 1, depth = 1;

	while (t->pos + n < t->len && depth > 0) {
		depth += t->s[t->pos + n] == '<' ? 1 : t->s[t->pos + n] == '>' ? (size_t)-1 : 0;
		n++;
	}
	if (depth > 0)
		return gf_fail(t, "an HTML string '<' is not closed");
	gf_advance(t, 1);
	dot_take(p, n - 2);
	gf_advance(t, 1);
	return FB_OK;
}

/* A quoted ID, and those joined to it by '+'. */
static int dot_quoted(struct dot *p)
{
	gf_token more = { 0 };
	fb_buf b = { 0 };

	if (gf_quoted(p->t, &p->tok, GF_QUOTE_DOT) != FB_OK)
		return FB_ERR;
	for (dot_skip(p->t); gf_peek(p->t) == '+'; dot_skip(p->t)) {
		gf_advance(p->t, 1);
		dot_skip(p->t);
		if (gf_peek(p->t) != '"')
			return gf_fail(p->t, "expected a quoted string after '+'");
		if (gf_quoted(p->t, &more, GF_QUOTE_DOT) != FB_OK)
			return FB_ERR;
		fb_buf_append(&b, p->tok.text, p->tok.len);
		fb_buf_append(&b, more.text, more.len);
		free(p->tok.text);
		free(more.text);
		p->tok.text = b.data;
		p->tok.len = b.len;
		b = (fb_buf){ 0 };
	}
	return FB_OK;
}

/* Read the next token into p. */
static int dot_next(struct dot *p)
{
	static const char punct[] = "{}[];,=:";
	static const enum dkind pk[] = { D_LBRACE, D_RBRACE, D_LBRACK, D_RBRACK, D_SEMI,
		                         D_COMMA, D_EQ, D_COLON };
	gf_text *t = p->t;
	int c, c1;
	size_t n = 0;

	free(p->tok.text);
	p->tok = (gf_token){ 0 };
	dot_skip(t);
	p->tok.line = t->line;
	p->tok.col = t->col;
	c = gf_peek(t);
	c1 = t->pos + 1 < t->len ? (unsigned char)t->s[t->pos + 1] : -1;
	p->kind = c < 0 ? D_END : D_ID;
	if (c < 0)
		return FB_OK;
	if (c != 0 && strchr(punct, c) != NULL) {
		p->kind = pk[strchr(punct, c) - punct];
		gf_advance(t, 1);
		return FB_OK;
	}
	if (c == '-' && (c1 == '>' || c1 == '-')) {
		p->kind = D_EDGEOP;
		dot_take(p, 2);
		return FB_OK;
	}
	if (c == '"')
		return dot_quoted(p);
	if (c == '<')
		return dot_html(p);
	n = c == '-' ? 1 : 0;
	while (id_char(t->pos + n < t->len ? (unsigned char)t->s[t->pos + n] : -1))
		n++;
	if (n == 0 || (n == 1 && c == '-')) {
		p->kind = D_OTHER;
		dot_take(p, 1);
		return FB_OK;
	}
	dot_take(p, n);
	return FB_OK;
}

/* Whether the current token is the unquoted keyword kw (in any case). */
static bool dot_keyword(const struct dot *p, const char *kw)
{
	return p->kind == D_ID && !p->tok.quoted && fb_strcasecmp(p->tok.text, kw) == 0;
}

/* Fail at the current token, saying what was expected. */
static int dot_expected(const struct dot *p, const char *what)
{
	char ex[FB_CSV_EXCERPT_MAX];
	const char *found = p->kind == D_END  ? "the end of the file"
	                    : p->tok.text != NULL ? fb_csv_excerpt(ex, p->tok.text, p->tok.len)
	                                      : NULL;
	char one[2] = { p->t->pos > 0 ? p->t->s[p->t->pos - 1] : '?', '\0' };

	return gf_fail_at(p->t, p->tok.line, p->tok.col, "expected %s, found %s%s%s", what,
	                  p->kind == D_END ? "" : "'", found != NULL ? found : one,
	                  p->kind == D_END ? "" : "'");
}

/* An attribute's value as a dir. */
static enum ddir dir_of(const char *v)
{
	return fb_strcasecmp(v, "none") == 0   ? DIR_NONE
	       : fb_strcasecmp(v, "back") == 0 ? DIR_BACK
	       : fb_strcasecmp(v, "both") == 0 ? DIR_BOTH
	                                       : DIR_FORWARD;
}

/* Attribute lists [a=b, c=d][...] at the current token (none is fine); *dir gets the dir
 * attribute's value when one is given. */
static int dot_attrs(struct dot *p, enum ddir *dir)
{
	while (p->kind == D_LBRACK) {
		if (dot_next(p) != FB_OK)
			return FB_ERR;
		while (p->kind == D_ID) {
			bool is_dir = !p->tok.quoted && strcmp(p->tok.text, "dir") == 0;

			if (dot_next(p) != FB_OK)
				return FB_ERR;
			if (p->kind == D_EQ) {
				if (dot_next(p) != FB_OK)
					return FB_ERR;
				if (p->kind != D_ID)
					return dot_expected(p, "an attribute's value");
				if (is_dir)
					*dir = dir_of(p->tok.text);
				if (dot_next(p) != FB_OK)
					return FB_ERR;
			}
			if ((p->kind == D_COMMA || p->kind == D_SEMI) && dot_next(p) != FB_OK)
				return FB_ERR;
		}
		if (p->kind != D_RBRACK)
			return dot_expected(p, "an attribute or ']'");
		if (dot_next(p) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* A node's port (":port[:compass]") after its ID, passed over. */
static int dot_port(struct dot *p)
{
	for (int k = 0; k < 2 && p->kind == D_COLON; k++) {
		if (dot_next(p) != FB_OK)
			return FB_ERR;
		if (p->kind != D_ID)
			return dot_expected(p, "a port name");
		if (dot_next(p) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Add the edge a to c of a chain written at line, col, pointing as dir says. */
static void dot_edge(struct dot *p, size_t a, size_t c, enum ddir dir, size_t line,
                     size_t col)
{
	if (dir == DIR_DEFAULT)
		dir = p->directed ? DIR_FORWARD : DIR_NONE;
	if (dir == DIR_BOTH)
		p->b->lossy++;
	if (dir == DIR_FORWARD || dir == DIR_BACK)
		gf_edge_add(p->b, dir == DIR_BACK ? c : a, dir == DIR_BACK ? a : c, false, 1, line,
		            col);
	else
		gf_edge_add(p->b, a, c, true, 1, line, col);
}

/* The node called by token tok, added when new; SIZE_MAX after the error when the name is
 * empty or holds a NUL byte. */
static size_t dot_node(struct dot *p, const gf_token *tok)
{
	if (tok->len == 0 || memchr(tok->text, '\0', tok->len) != NULL) {
		gf_fail_at(p->t, tok->line, tok->col, "a node needs a name");
		return SIZE_MAX;
	}
	return gf_node(p->b, tok->text, tok->len);
}

/* The rest of a node or edge statement after its first ID, node first (already added,
 * written at line, col; the current token is the one after it). */
static int dot_node_stmt(struct dot *p, size_t first, size_t line, size_t col)
{
	size_t *chain = fb_xmalloc(sizeof *chain), n = 1;
	enum ddir dir = p->dflt;
	int rc = dot_port(p);

	chain[0] = first;
	while (rc == FB_OK && p->kind == D_EDGEOP) {
		if (strcmp(p->tok.text, p->directed ? "->" : "--") != 0) {
			rc = gf_fail_at(p->t, p->tok.line, p->tok.col, "'%s' in a %s (edges there are "
			                "written '%s')", p->tok.text, p->directed ? "digraph" : "graph",
			                p->directed ? "->" : "--");
			break;
		}
		if ((rc = dot_next(p)) != FB_OK)
			break;
		if (p->kind != D_ID) {
			rc = dot_expected(p, "a node after the edge (an edge to a subgraph is not read)");
			break;
		}
		chain = fb_xreallocarray(chain, n + 1, sizeof *chain);
		if ((chain[n++] = dot_node(p, &p->tok)) == SIZE_MAX) {
			rc = FB_ERR;
			break;
		}
		if ((rc = dot_next(p)) == FB_OK)
			rc = dot_port(p);
	}
	if (rc == FB_OK)
		rc = dot_attrs(p, &dir);
	for (size_t k = 1; rc == FB_OK && k < n; k++)
		dot_edge(p, chain[k - 1], chain[k], dir, line, col);
	free(chain);
	return rc;
}

static int dot_stmts(struct dot *p, int depth);

/* A subgraph at the current token ('subgraph [ID] {' or '{'): its statements, with the
 * edges' default dir restored after it. */
static int dot_subgraph(struct dot *p, int depth)
{
	enum ddir saved = p->dflt;
	int rc;

	if (depth > DOT_DEPTH_MAX)
		return gf_fail_at(p->t, p->tok.line, p->tok.col, "subgraphs nested more than %d "
		                  "deep", DOT_DEPTH_MAX);
	if (dot_keyword(p, "subgraph") && dot_next(p) != FB_OK)
		return FB_ERR;
	if (p->kind == D_ID && dot_next(p) != FB_OK)
		return FB_ERR;
	if (p->kind != D_LBRACE)
		return dot_expected(p, "'{' to open the subgraph");
	if (dot_next(p) != FB_OK)
		return FB_ERR;
	rc = dot_stmts(p, depth + 1);
	p->dflt = saved;
	if (rc == FB_OK && p->kind == D_EDGEOP)
		return dot_expected(p, "a statement (an edge from a subgraph is not read)");
	return rc;
}

/* One statement at the current token. */
static int dot_stmt(struct dot *p, int depth)
{
	enum ddir dir = p->dflt;
	gf_token name;
	size_t first;
	int rc;

	if (p->kind == D_LBRACE || dot_keyword(p, "subgraph"))
		return dot_subgraph(p, depth);
	if (dot_keyword(p, "graph") || dot_keyword(p, "node") || dot_keyword(p, "edge")) {
		bool edge = dot_keyword(p, "edge");

		if (dot_next(p) != FB_OK || dot_attrs(p, &dir) != FB_OK)
			return FB_ERR;
		if (edge)
			p->dflt = dir;
		return FB_OK;
	}
	if (p->kind != D_ID)
		return dot_expected(p, "a statement");
	name = p->tok;
	p->tok.text = NULL; /* kept until the next token says what the ID is */
	rc = dot_next(p);
	if (rc == FB_OK && p->kind == D_EQ) { /* a graph attribute ID = ID */
		rc = dot_next(p);
		if (rc == FB_OK)
			rc = p->kind != D_ID ? dot_expected(p, "a value") : dot_next(p);
	} else if (rc == FB_OK) {
		first = dot_node(p, &name);
		rc = first == SIZE_MAX ? FB_ERR : dot_node_stmt(p, first, name.line, name.col);
	}
	free(name.text);
	return rc;
}

/* Statements up to the '}' that closes them (the current token after it). */
static int dot_stmts(struct dot *p, int depth)
{
	while (p->kind != D_RBRACE) {
		if (p->kind == D_END)
			return dot_expected(p, "'}'");
		if (dot_stmt(p, depth) != FB_OK)
			return FB_ERR;
		if (p->kind == D_SEMI && dot_next(p) != FB_OK)
			return FB_ERR;
	}
	return dot_next(p);
}

/* DOT: [strict] graph|digraph [ID] { statements }. */
fb_graph *gf_read_dot(gf_text *t, gf_build *b)
{
	struct dot p = { t, b, false, DIR_DEFAULT, D_END, { 0 } };
	fb_graph *g = NULL;
	int rc = dot_next(&p);

	if (rc == FB_OK && dot_keyword(&p, "strict"))
		rc = dot_next(&p);
	if (rc == FB_OK && !dot_keyword(&p, "graph") && !dot_keyword(&p, "digraph"))
		rc = dot_expected(&p, "'graph' or 'digraph'");
	p.directed = rc == FB_OK && dot_keyword(&p, "digraph");
	if (rc == FB_OK)
		rc = dot_next(&p);
	if (rc == FB_OK && p.kind == D_ID)
		rc = dot_next(&p);
	if (rc == FB_OK && p.kind != D_LBRACE)
		rc = dot_expected(&p, "'{'");
	if (rc == FB_OK)
		rc = dot_next(&p);
	if (rc == FB_OK)
		rc = dot_stmts(&p, 0);
	if (rc == FB_OK && p.kind != D_END)
		rc = dot_expected(&p, "the end of the file");
	if (rc == FB_OK)
		g = gf_build_graph(b, t);
	free(p.tok.text);
	return g;
}
