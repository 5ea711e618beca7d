/* The graph formats read as a tree of values: node-link JSON and GML.  Both are parsed into
 * one kind of tree (lists of keyed values, keys repeating in GML), then read as a graph. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "csv-private.h"
#include "graphfmt-private.h"

/* Deepest nesting read (a deeper file is refused rather than exhausting the stack). */
#define TREE_DEPTH_MAX 64

/* A value of the tree. */
typedef struct tval {
	enum { T_NULL, T_BOOL, T_NUM, T_STR, T_LIST } type; /* what it is */
	bool object;        /* a list with keys (a JSON object, any GML list) */
	char *text;         /* a number's, string's or true/false's text (owned) */
	double num;         /* a number's value; a boolean's 0 or 1 */
	struct tval *kid;   /* a list's values (owned) */
	char **key;         /* their keys (owned; NULL entries in a JSON array) */
	size_t n;           /* how many */
	size_t line, col;   /* where it began */
} tval;

/* Free what v holds. */
static void tval_release(tval *v)
{
	for (size_t k = 0; k < v->n; k++) {
		tval_release(&v->kid[k]);
		free(v->key[k]);
	}
	free(v->kid);
	free(v->key);
	free(v->text);
}

/* Append a value under key (owned, may be NULL) to list l; returns it. */
static tval *tval_push(tval *l, char *key)
{
	l->kid = fb_xreallocarray(l->kid, l->n + 1, sizeof *l->kid);
	l->key = fb_xreallocarray(l->key, l->n + 1, sizeof *l->key);
	l->key[l->n] = key;
	memset(&l->kid[l->n], 0, sizeof l->kid[l->n]);
	return &l->kid[l->n++];
}

/* The first value of list l under key, or NULL. */
static const tval *tval_get(const tval *l, const char *key)
{
	for (size_t k = 0; l->type == T_LIST && k < l->n; k++)
		if (l->key[k] != NULL && strcmp(l->key[k], key) == 0)
			return &l->kid[k];
	return NULL;
}

/* Append the UTF-8 bytes of code point u to b. */
static void put_utf8(fb_buf *b, unsigned long u)
{
	char c[4];
	size_t n;

	if (u < 0x80) {
		c[0] = (char)u;
		n = 1;
	} else if (u < 0x800) {
		c[0] = (char)(0xc0 | (u >> 6));
		c[1] = (char)(0x80 | (u & 0x3f));
		n = 2;
	} else {
		c[0] = (char)(0xe0 | (u >> 12));
		c[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		c[2] = (char)(0x80 | (u & 0x3f));
		n = 3;
	}
	fb_buf_append(b, c, n);
}

/* One backslash escape of q at the cursor (after the backslash) onto b; FB_ERR when q has
 * no such escape (JSON) or the text ends. */
static int unescape(gf_text *t, fb_buf *b, enum gf_quoting q)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = gf_peek(t);
	const char *at = c > 0 ? strchr(from, c) : NULL;

	if (q == GF_QUOTE_DOT && (c == '"' || c == '\\' || c == 'n')) {
		fb_buf_append(b, c == 'n' ? "\n" : (const char *)&t->s[t->pos], 1);
	} else if (q == GF_QUOTE_DOT && (c == '\n' || c == '\r')) {
		gf_advance(t, c == '\r' && t->pos + 1 < t->len && t->s[t->pos + 1] == '\n' ? 1 : 0);
	} else if (q == GF_QUOTE_DOT && c >= 0) {
		fb_buf_append(b, "\\", 1);
		fb_buf_append(b, &t->s[t->pos], 1);
	} else if (c == 'u' && t->pos + 4 < t->len && isxdigit((unsigned char)t->s[t->pos + 1]) &&
	           isxdigit((unsigned char)t->s[t->pos + 2]) &&
	           isxdigit((unsigned char)t->s[t->pos + 3]) &&
	           isxdigit((unsigned char)t->s[t->pos + 4])) {
		char hex[5] = { 0 };

		memcpy(hex, t->s + t->pos + 1, 4);
		put_utf8(b, strtoul(hex, NULL, 16));
		gf_advance(t, 4);
	} else if (at != NULL) {
		fb_buf_append(b, &to[at - from], 1);
	} else {
		return gf_fail(t, "unknown escape '\\%c' in a string", c > 31 && c < 127 ? c : '?');
	}
	gf_advance(t, 1);
	return FB_OK;
}

/* One GML entity (&quot; &amp; &lt; &gt; &apos; &#N; &#xN;) at the cursor onto b; an '&'
 * that starts none is kept. */
static void gml_entity(gf_text *t, fb_buf *b)
{
	static const char *const name[] = { "&quot;", "&amp;", "&lt;", "&gt;", "&apos;" };
	static const char ch[] = "\"&<>'";
	const char *s = t->s + t->pos;
	size_t left = t->len - t->pos;

	for (size_t k = 0; k < 5; k++)
		if (left >= strlen(name[k]) && memcmp(s, name[k], strlen(name[k])) == 0) {
			fb_buf_append(b, &ch[k], 1);
			gf_advance(t, strlen(name[k]));
			return;
		}
	if (left > 3 && s[1] == '#') {
		char num[16], *end;
		size_t m = left - 2 < sizeof num - 1 ? left - 2 : sizeof num - 1;
		unsigned long u;

		memcpy(num, s + 2, m); /* the text need not end in NUL */
		num[m] = '\0';
		u = num[0] == 'x' ? strtoul(num + 1, &end, 16) : strtoul(num, &end, 10);
		if (isxdigit((unsigned char)num[num[0] == 'x']) && *end == ';' && u > 0 &&
		    u < 0x10000) {
			put_utf8(b, u);
			gf_advance(t, (size_t)(end - num) + 3);
			return;
		}
	}
	fb_buf_append(b, "&", 1);
	gf_advance(t, 1);
}

/* Read a double-quoted string at the cursor. */
int gf_quoted(gf_text *t, gf_token *tok, enum gf_quoting q)
{
	fb_buf b = { 0 };
	int c;

	tok->line = t->line;
	tok->col = t->col;
	tok->quoted = true;
	gf_advance(t, 1);
	fb_buf_append(&b, "", 0);
	while ((c = gf_peek(t)) != '"') {
		if (c < 0 || c == '\0') {
			fb_buf_release(&b);
			return gf_fail_at(t, tok->line, tok->col, c < 0 ? "a string is not closed"
			                                                : "a NUL byte in a string");
		}
		if (c == '\\' && q != GF_QUOTE_GML) {
			gf_advance(t, 1);
			if (unescape(t, &b, q) != FB_OK) {
				fb_buf_release(&b);
				return FB_ERR;
			}
		} else if (c == '&' && q == GF_QUOTE_GML) {
			gml_entity(t, &b);
		} else {
			fb_buf_append(&b, &t->s[t->pos], 1);
			gf_advance(t, 1);
		}
	}
	gf_advance(t, 1);
	tok->text = b.data;
	tok->len = b.len;
	return FB_OK;
}

/* A number at the cursor into v (its text kept as written); FB_ERR when none starts here. */
static int tree_number(gf_text *t, tval *v)
{
	const char *stop;
	char found[FB_CSV_EXCERPT_MAX + 2];

	if (!fb_csv_number_scan(t->s + t->pos, t->s + t->len, &stop, &v->num))
		return gf_fail(t, "expected a value, found %s", gf_found(t, found, sizeof found));
	v->type = T_NUM;
	v->text = fb_xmalloc((size_t)(stop - (t->s + t->pos)) + 1);
	memcpy(v->text, t->s + t->pos, (size_t)(stop - (t->s + t->pos)));
	v->text[stop - (t->s + t->pos)] = '\0';
	gf_advance(t, (size_t)(stop - (t->s + t->pos)));
	return FB_OK;
}

/* A string at the cursor into v. */
static int tree_string(gf_text *t, tval *v, enum gf_quoting q)
{
	gf_token tok = { 0 };

	if (gf_quoted(t, &tok, q) != FB_OK)
		return FB_ERR;
	v->type = T_STR;
	v->text = tok.text;
	return FB_OK;
}

static int json_value(gf_text *t, tval *v, int depth);

/* JSON: true, false or null at the cursor into v. */
static int json_word(gf_text *t, tval *v)
{
	static const char *const word[] = { "true", "false", "null" };
	char found[FB_CSV_EXCERPT_MAX + 2];

	for (int k = 0; k < 3; k++) {
		size_t n = strlen(word[k]);

		if (t->len - t->pos >= n && memcmp(t->s + t->pos, word[k], n) == 0) {
			v->type = k == 2 ? T_NULL : T_BOOL;
			v->num = k == 0;
			v->text = fb_xstrdup(word[k]);
			gf_advance(t, n);
			return FB_OK;
		}
	}
	return gf_fail(t, "expected a value, found %s", gf_found(t, found, sizeof found));
}

/* JSON: an object's or array's members at the cursor (after its '{' or '[') into v. */
static int json_members(gf_text *t, tval *v, bool object, int depth)
{
	char close = object ? '}' : ']', found[FB_CSV_EXCERPT_MAX + 2];

	v->type = T_LIST;
	v->object = object;
	gf_skip_space(t);
	if (gf_peek(t) == close)
		return gf_advance(t, 1), FB_OK;
	for (;;) {
		gf_token key = { 0 };

		gf_skip_space(t);
		if (object && gf_peek(t) != '"')
			return gf_fail(t, "expected a quoted key, found %s",
			               gf_found(t, found, sizeof found));
		if (object && gf_quoted(t, &key, GF_QUOTE_JSON) != FB_OK)
			return FB_ERR;
		gf_skip_space(t);
		if (object && gf_peek(t) != ':') {
			free(key.text);
			return gf_fail(t, "expected ':' after a key, found %s",
			               gf_found(t, found, sizeof found));
		}
		gf_advance(t, object ? 1 : 0);
		if (json_value(t, tval_push(v, key.text), depth + 1) != FB_OK)
			return FB_ERR;
		gf_skip_space(t);
		if (gf_peek(t) == close)
			return gf_advance(t, 1), FB_OK;
		if (gf_peek(t) != ',')
			return gf_fail(t, "expected ',' or '%c', found %s", close,
			               gf_found(t, found, sizeof found));
		gf_advance(t, 1);
	}
}

/* JSON: one value at the cursor into v. */
static int json_value(gf_text *t, tval *v, int depth)
{
	int c;

	gf_skip_space(t);
	v->line = t->line;
	v->col = t->col;
	if (depth > TREE_DEPTH_MAX)
		return gf_fail(t, "nested more than %d deep", TREE_DEPTH_MAX);
	c = gf_peek(t);
	if (c == '{' || c == '[') {
		gf_advance(t, 1);
		return json_members(t, v, c == '{', depth);
	}
	if (c == '"')
		return tree_string(t, v, GF_QUOTE_JSON);
	if (c == 't' || c == 'f' || c == 'n')
		return json_word(t, v);
	return tree_number(t, v);
}

/* GML: skip blanks and '#' comment lines. */
static void gml_skip(gf_text *t)
{
	for (gf_skip_space(t); gf_peek(t) == '#'; gf_skip_space(t))
		while (gf_peek(t) >= 0 && gf_peek(t) != '\n')
			gf_advance(t, 1);
}

/* GML: key-value pairs at the cursor into v, up to ']' (closed) or the end of the text. */
static int gml_list(gf_text *t, tval *v, bool closed, int depth)
{
	char found[FB_CSV_EXCERPT_MAX + 2];

	v->type = T_LIST;
	v->object = true;
	if (depth > TREE_DEPTH_MAX)
		return gf_fail(t, "nested more than %d deep", TREE_DEPTH_MAX);
	for (gml_skip(t); gf_peek(t) >= 0 && gf_peek(t) != ']'; gml_skip(t)) {
		size_t n = 0;
		char *key;
		tval *kid;

		while (t->pos + n < t->len && (isalnum((unsigned char)t->s[t->pos + n]) ||
		                               t->s[t->pos + n] == '_'))
			n++;
		if (n == 0 || isdigit((unsigned char)t->s[t->pos]))
			return gf_fail(t, "expected a key, found %s", gf_found(t, found, sizeof found));
		key = fb_xmalloc(n + 1);
		memcpy(key, t->s + t->pos, n);
		key[n] = '\0';
		kid = tval_push(v, key);
		gf_advance(t, n);
		gml_skip(t);
		kid->line = t->line;
		kid->col = t->col;
		if (gf_peek(t) == '[') {
			gf_advance(t, 1);
			if (gml_list(t, kid, true, depth + 1) != FB_OK)
				return FB_ERR;
		} else if ((gf_peek(t) == '"' ? tree_string(t, kid, GF_QUOTE_GML)
		                              : tree_number(t, kid)) != FB_OK) {
			return FB_ERR;
		}
	}
	if (closed && gf_peek(t) != ']')
		return gf_fail(t, "expected ']' to close the list opened on line %zu", v->line);
	if (!closed && gf_peek(t) == ']')
		return gf_fail(t, "a ']' closes no list");
	gf_advance(t, closed ? 1 : 0);
	return FB_OK;
}

/* The ids of the nodes read so far, to find an edge's ends by. */
struct ids {
	char **id;  /* node k's id as written (borrowed from the tree) */
	size_t n;   /* how many */
};

/* The text of a string or number, or NULL. */
static const char *id_text(const tval *v)
{
	return v != NULL && (v->type == T_STR || v->type == T_NUM) ? v->text : NULL;
}

/* The node whose id is the value v (a member of the list at); SIZE_MAX after the error. */
static size_t id_node(const gf_text *t, const struct ids *ids, const tval *v, const tval *at,
                      const char *what)
{
	char ex[FB_CSV_EXCERPT_MAX];
	const char *s = id_text(v);

	if (s == NULL) {
		gf_fail_at(t, at->line, at->col, "an edge needs a %s", what);
		return SIZE_MAX;
	}
	for (size_t k = 0; k < ids->n; k++)
		if (strcmp(ids->id[k], s) == 0)
			return k;
	gf_fail_at(t, v->line, v->col, "the edge's %s '%s' is not among the nodes", what,
	           fb_csv_excerpt(ex, s, strlen(s)));
	return SIZE_MAX;
}

/* Add the node of list v (its id, named by its label when label_key is given and the node
 * has one); FB_ERR after the error. */
static int tree_node(const gf_text *t, gf_build *b, struct ids *ids, const tval *v,
                     const char *label_key)
{
	const tval *idv = v->type == T_LIST && v->object ? tval_get(v, "id") : NULL;
	const tval *lv = label_key != NULL ? tval_get(v, label_key) : NULL;
	const char *id = id_text(idv), *name = lv != NULL && lv->type == T_STR ? lv->text : id;

	if (id == NULL)
		return gf_fail_at(t, v->line, v->col, "a node needs an id");
	for (size_t k = 0; k < ids->n; k++)
		if (strcmp(ids->id[k], id) == 0)
			return gf_fail_at(t, idv->line, idv->col, "the id '%s' is given twice", id);
	if (gf_node_new(b, t, name, strlen(name), v->line, v->col) == SIZE_MAX)
		return FB_ERR;
	ids->id = fb_xreallocarray(ids->id, ids->n + 1, sizeof *ids->id);
	ids->id[ids->n++] = (char *)id;
	return FB_OK;
}

/* Add the edge of list v: source, target and an optional number weight. */
static int tree_edge(const gf_text *t, gf_build *b, const struct ids *ids, const tval *v,
                     bool directed)
{
	const tval *w = v->type == T_LIST && v->object ? tval_get(v, "weight") : NULL;
	size_t a, c;

	if (v->type != T_LIST || !v->object)
		return gf_fail_at(t, v->line, v->col, "an edge is a list of source and target");
	if ((a = id_node(t, ids, tval_get(v, "source"), v, "source")) == SIZE_MAX ||
	    (c = id_node(t, ids, tval_get(v, "target"), v, "target")) == SIZE_MAX)
		return FB_ERR;
	if (w != NULL && w->type != T_NUM)
		return gf_fail_at(t, w->line, w->col, "a weight is a number");
	b->weighted |= w != NULL;
	gf_edge_add(b, a, c, !directed, w != NULL ? w->num : 1, v->line, v->col);
	return FB_OK;
}

/* The graph of the node and edge lists: every member of nodes a node (named by its
 * label_key when given and present, else by its id), every member of edges an edge. */
static fb_graph *tree_graph(const gf_text *t, gf_build *b, const tval *nodes,
                            const tval *edges, const char *label_key, bool directed)
{
	struct ids ids = { 0 };
	fb_graph *g = NULL;
	int rc = FB_OK;

	b->opposite = directed;
	for (size_t k = 0; rc == FB_OK && k < nodes->n; k++)
		rc = tree_node(t, b, &ids, &nodes->kid[k], label_key);
	for (size_t k = 0; rc == FB_OK && edges != NULL && k < edges->n; k++)
		rc = tree_edge(t, b, &ids, &edges->kid[k], directed);
	if (rc == FB_OK)
		g = gf_build_graph(b, t);
	free(ids.id);
	return g;
}

/* Node-link JSON: {"directed": true, "nodes": [{"id": ...}], "links" (or "edges"): [{
 * "source": ..., "target": ..., "weight": ...}]}. */
fb_graph *gf_read_json(gf_text *t, gf_build *b)
{
	tval root = { 0 };
	const tval *nodes, *links, *dir;
	char found[FB_CSV_EXCERPT_MAX + 2];
	fb_graph *g = NULL;

	if (json_value(t, &root, 0) != FB_OK)
		goto out;
	gf_skip_space(t);
	if (gf_peek(t) >= 0) {
		gf_fail(t, "expected the end of the file, found %s", gf_found(t, found, sizeof found));
		goto out;
	}
	nodes = root.object ? tval_get(&root, "nodes") : NULL;
	if ((links = root.object ? tval_get(&root, "links") : NULL) == NULL)
		links = root.object ? tval_get(&root, "edges") : NULL;
	dir = root.object ? tval_get(&root, "directed") : NULL;
	if (nodes == NULL || nodes->type != T_LIST || nodes->object ||
	    (links != NULL && (links->type != T_LIST || links->object))) {
		gf_fail_at(t, root.line, root.col, "expected an object with a \"nodes\" array and "
		           "a \"links\" array");
		goto out;
	}
	g = tree_graph(t, b, nodes, links, NULL, dir == NULL || dir->num != 0);
out:
	tval_release(&root);
	return g;
}

/* The members of list v under key, gathered into out (borrowed values, freed with free). */
static void tree_members(const tval *v, const char *key, tval *out)
{
	memset(out, 0, sizeof *out);
	out->type = T_LIST;
	for (size_t k = 0; k < v->n; k++)
		if (strcmp(v->key[k], key) == 0) {
			out->kid = fb_xreallocarray(out->kid, out->n + 1, sizeof *out->kid);
			out->kid[out->n++] = v->kid[k];
		}
}

/* GML: graph [ directed 1 node [ id 0 label "A" ] ... edge [ source 0 target 1 ] ... ]. */
fb_graph *gf_read_gml(gf_text *t, gf_build *b)
{
	tval root = { 0 }, nodes, edges;
	const tval *graph, *dir;
	fb_graph *g = NULL;

	if (gml_list(t, &root, false, 0) != FB_OK)
		goto out;
	if ((graph = tval_get(&root, "graph")) == NULL || graph->type != T_LIST) {
		gf_fail_at(t, 1, 1, "expected 'graph [ ... ]'");
		goto out;
	}
	dir = tval_get(graph, "directed");
	tree_members(graph, "node", &nodes);
	tree_members(graph, "edge", &edges);
	g = tree_graph(t, b, &nodes, &edges, "label", dir != NULL && dir->num != 0);
	free(nodes.kid);
	free(edges.kid);
out:
	tval_release(&root);
	return g;
}
