/* What the graph format readers share: a text with a cursor that knows its line and
 * column, and a graph under construction whose nodes are found by name. */
#ifndef FEDBN_GRAPHFMT_PRIVATE_H
#define FEDBN_GRAPHFMT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/graphfmt.h"

/* A whole file in memory, read from front to back. */
typedef struct gf_text {
	const char *s;    /* the bytes */
	size_t len;       /* how many */
	size_t pos;       /* the cursor */
	size_t line, col; /* where the cursor is, from 1 */
	const char *name; /* the file, for messages */
	fb_error *err;    /* where a failure goes */
} gf_text;

/* Start t over buf. */
void gf_text_init(gf_text *t, const char *buf, size_t len, const char *name, fb_error *err);
/* The byte under the cursor, or -1 at the end. */
int gf_peek(const gf_text *t);
/* Move the cursor n bytes on, counting lines and columns. */
void gf_advance(gf_text *t, size_t n);
/* Skip blanks and line ends. */
void gf_skip_space(gf_text *t);
/* Record "cannot read 'NAME': line L, column C: ..." and return FB_ERR. */
int gf_fail_at(const gf_text *t, size_t line, size_t col, const char *fmt, ...)
	FB_PRINTF(4, 5);
/* gf_fail_at at the cursor. */
int gf_fail(const gf_text *t, const char *fmt, ...) FB_PRINTF(2, 3);
/* Where the C block comment at s[k] ends: just after its close, or n. */
size_t gf_block_comment_end(const char *s, size_t n, size_t k);
/* What is at the cursor, quoted for a message ("'abc'", or "the end of the file"). */
const char *gf_found(const gf_text *t, char *buf, size_t len);

/* One edge as read. */
typedef struct gf_edge {
	size_t a, b;      /* the nodes: a -> b, or a - b */
	bool undirected;  /* a - b */
	double w;         /* its weight (1 unless the file gives one) */
	size_t line, col; /* where it was written */
	unsigned char ma, mb; /* the marks at a and at b as written (enum fb_pag_mark), or 0
	                         where the format has none */
} gf_edge;

/* A graph being read. */
typedef struct gf_build {
	char **names;    /* the nodes so far (owned) */
	size_t n, cap;   /* how many, and room */
	gf_edge *e;      /* the edges so far */
	size_t ne, ecap; /* how many, and room */
	bool weighted;   /* a weight was read */
	bool opposite;   /* two opposite arcs make an undirected edge (GML, JSON) */
	size_t lossy;    /* edges read as the nearest relation fedbn can hold */
	bool pag;        /* an edge had a circle or two arrowheads: the marks make a PAG */
} gf_build;

/* Index of the node called name (len bytes), or SIZE_MAX. */
size_t gf_find(const gf_build *b, const char *name, size_t len);
/* Add a node (name of len bytes); SIZE_MAX after the error when it is empty or there
 * already (line, col: where it was written). */
size_t gf_node_new(gf_build *b, const gf_text *t, const char *name, size_t len, size_t line,
                   size_t col);
/* The node called name, added when it is new. */
size_t gf_node(gf_build *b, const char *name, size_t len);
/* Add an edge as read. */
void gf_edge_add(gf_build *b, size_t a, size_t c, bool undirected, double w, size_t line,
                 size_t col);
/* The graph of b: FB_ERR (NULL) naming the line of a self-loop or a pair joined twice. */
fb_graph *gf_build_graph(const gf_build *b, const gf_text *t);
/* The PAG of b's edges' marks over its nodes (an edge without marks as its relation). */
fb_pag *gf_build_pag(const gf_build *b);
/* Free what b holds. */
void gf_build_release(gf_build *b);

/* A token of DOT, GML or JSON: an identifier, number or string (quoted) with its text. */
typedef struct gf_token {
	char *text;       /* the text, unquoted and unescaped (owned) */
	size_t len;       /* its length */
	bool quoted;      /* it was a string */
	size_t line, col; /* where it began */
} gf_token;

/* How a quoted string's escapes are written. */
enum gf_quoting {
	GF_QUOTE_DOT,  /* \" and \\ (and fedbn's \n), a backslash before a line end joins lines */
	GF_QUOTE_JSON, /* JSON's \" \\ \/ \b \f \n \r \t \uXXXX */
	GF_QUOTE_GML,  /* no backslash escapes; &quot; &amp; &lt; &gt; &apos; &#N; */
};

/* Read a double-quoted string at the cursor (on its '"') into tok (text owned by tok, free
 * it), undoing the escapes of q; FB_ERR at an unterminated string or a bad escape. */
int gf_quoted(gf_text *t, gf_token *tok, enum gf_quoting q);

/* The readers, each over the file's own names. */
fb_graph *gf_read_tetrad(gf_text *t, gf_build *b);
fb_graph *gf_read_causal_learn(gf_text *t, gf_build *b);
fb_graph *gf_read_bnlearn(gf_text *t, gf_build *b);
fb_graph *gf_read_gml(gf_text *t, gf_build *b);
fb_graph *gf_read_dot(gf_text *t, gf_build *b);
fb_graph *gf_read_json(gf_text *t, gf_build *b);

#endif
