/* Graph file formats: finding a file's format, the readers' shared text cursor and graph
 * under construction, and putting a graph read over its own names over the data's. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bif.h"
#include "fedbn/csv.h"
#include "csv-private.h"
#include "graphfmt-private.h"

/* The largest graph file read (a graph over thousands of variables is far smaller). */
#define GF_FILE_MAX ((size_t)256 << 20)

/* format= names, by enum fb_graph_format. */
static const char *const format_names[FB_GRAPH_NFORMATS] = {
	"auto", "edges", "matrix", "tetrad", "causal-learn", "bnlearn", "gml", "dot", "bif",
	"json",
};

/* The format's name. */
const char *fb_graph_format_name(enum fb_graph_format f)
{
	return (unsigned)f < FB_GRAPH_NFORMATS ? format_names[f] : "?";
}

/* The file name's extension (after the last dot of the last component), or "". */
static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash != NULL ? slash : path, '.');

	return dot != NULL ? dot + 1 : "";
}

/* The format an extension names. */
enum fb_graph_format fb_graph_format_of_path(const char *path)
{
	static const struct {
		const char *ext;
		enum fb_graph_format f;
	} ext[] = {
		{ "csv", FB_GRAPH_EDGES }, { "txt", FB_GRAPH_TETRAD }, { "gml", FB_GRAPH_GML },
		{ "json", FB_GRAPH_JSON }, { "dot", FB_GRAPH_DOT },    { "gv", FB_GRAPH_DOT },
		{ "bif", FB_GRAPH_BIF },
	};
	const char *e = extension(path);

	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (fb_strcasecmp(e, ext[i].ext) == 0)
			return ext[i].f;
	return FB_GRAPH_AUTO;
}

/* Start t over buf. */
void gf_text_init(gf_text *t, const char *buf, size_t len, const char *name, fb_error *err)
{
	*t = (gf_text){ buf, len, 0, 1, 1, name, err };
}

/* The byte under the cursor, or -1 at the end. */
int gf_peek(const gf_text *t)
{
	return t->pos < t->len ? (unsigned char)t->s[t->pos] : -1;
}

/* Move the cursor n bytes on. */
void gf_advance(gf_text *t, size_t n)
{
	for (size_t k = 0; k < n && t->pos < t->len; k++) {
		if (t->s[t->pos++] == '\n') {
			t->line++;
			t->col = 1;
		} else {
			t->col++;
		}
	}
}

/* Skip blanks and line ends. */
void gf_skip_space(gf_text *t)
{
	int c;

	while ((c = gf_peek(t)) == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v')
		gf_advance(t, 1);
}

/* Record a failure at line, column. */
int gf_fail_at(const gf_text *t, size_t line, size_t col, const char *fmt, ...)
{
	char what[FB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return fb_fail(t->err, "cannot read '%s': line %zu, column %zu: %s", t->name, line, col,
	               what);
}

/* Record a failure at the cursor. */
int gf_fail(const gf_text *t, const char *fmt, ...)
{
	char what[FB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return gf_fail_at(t, t->line, t->col, "%s", what);
}

/* What is at the cursor, for a message: up to 20 bytes of the line, quoted (buf: room
 * for FB_CSV_EXCERPT_MAX + 2 bytes at least). */
const char *gf_found(const gf_text *t, char *buf, size_t len)
{
	char ex[FB_CSV_EXCERPT_MAX];
	size_t n = 0;

	if (t->pos >= t->len) {
		snprintf(buf, len, "the end of the file");
		return buf;
	}
	while (t->pos + n < t->len && n < 20 && t->s[t->pos + n] != '\n' &&
	       t->s[t->pos + n] != '\r')
		n++;
	snprintf(buf, len, "'%s'", fb_csv_excerpt(ex, t->s + t->pos, n));
	return buf;
}

/* Where the C block comment at s[k] ("/" "*") ends: just after its close, or n. */
size_t gf_block_comment_end(const char *s, size_t n, size_t k)
{
	for (k += 2; k + 1 < n; k++)
		if (s[k] == '*' && s[k + 1] == '/')
			return k + 2;
	return n;
}

/* Index of the node called name, or SIZE_MAX. */
size_t gf_find(const gf_build *b, const char *name, size_t len)
{
	for (size_t i = 0; i < b->n; i++)
		if (strlen(b->names[i]) == len && memcmp(b->names[i], name, len) == 0)
			return i;
	return SIZE_MAX;
}

/* Append a node without checks. */
static size_t node_append(gf_build *b, const char *name, size_t len)
{
	if (b->n == b->cap) {
		b->cap = b->cap == 0 ? 16 : 2 * b->cap;
		b->names = fb_xreallocarray(b->names, b->cap, sizeof *b->names);
	}
	b->names[b->n] = fb_xmalloc(len + 1);
	memcpy(b->names[b->n], name, len);
	b->names[b->n][len] = '\0';
	return b->n++;
}

/* Add a new node; SIZE_MAX after the error when it is empty, holds a NUL or is there. */
size_t gf_node_new(gf_build *b, const gf_text *t, const char *name, size_t len, size_t line,
                   size_t col)
{
	char ex[64];

	if (len == 0 || memchr(name, '\0', len) != NULL) {
		gf_fail_at(t, line, col, "a node needs a name");
		return SIZE_MAX;
	}
	if (gf_find(b, name, len) != SIZE_MAX) {
		gf_fail_at(t, line, col, "node '%s' is listed twice", fb_csv_excerpt(ex, name, len));
		return SIZE_MAX;
	}
	return node_append(b, name, len);
}

/* The node called name, added when new. */
size_t gf_node(gf_build *b, const char *name, size_t len)
{
	size_t i = gf_find(b, name, len);

	return i != SIZE_MAX ? i : node_append(b, name, len);
}

/* Add an edge as read. */
void gf_edge_add(gf_build *b, size_t a, size_t c, bool undirected, double w, size_t line,
                 size_t col)
{
	if (b->ne == b->ecap) {
		b->ecap = b->ecap == 0 ? 16 : 2 * b->ecap;
		b->e = fb_xreallocarray(b->e, b->ecap, sizeof *b->e);
	}
	b->e[b->ne++] = (gf_edge){ a, c, undirected, w, line, col, 0, 0 };
}

/* The edge before e[k] that joins the same pair. */
static const gf_edge *edge_before(const gf_build *b, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if ((b->e[i].a == b->e[k].a && b->e[i].b == b->e[k].b) ||
		    (b->e[i].a == b->e[k].b && b->e[i].b == b->e[k].a))
			return &b->e[i];
	return &b->e[k];
}

/* Put edge k into g; FB_ERR at a self-loop or a pair already joined (two opposite arcs
 * make an undirected edge when b->opposite). */
static int put_edge(const gf_build *b, const gf_text *t, fb_graph *g, size_t k)
{
	const gf_edge *e = &b->e[k];
	size_t d = g->d;

	if (e->a == e->b)
		return gf_fail_at(t, e->line, e->col, "self-loop on '%s'", b->names[e->a]);
	if (b->opposite && !e->undirected && fb_graph_edge(g, e->a, e->b) == FB_EDGE_BACKWARD &&
	    g->w[e->b * d + e->a] == e->w) {
		fb_graph_set_undirected(g, e->a, e->b);
		g->w[e->a * d + e->b] = g->w[e->b * d + e->a] = e->w;
		return FB_OK;
	}
	if (fb_graph_adjacent(g, e->a, e->b))
		return gf_fail_at(t, e->line, e->col, "'%s' and '%s' are already joined on line "
		                  "%zu; a pair takes one edge", b->names[e->a], b->names[e->b],
		                  edge_before(b, k)->line);
	if (e->undirected) {
		fb_graph_set_undirected(g, e->a, e->b);
		g->w[e->a * d + e->b] = g->w[e->b * d + e->a] = e->w;
	} else {
		fb_graph_set_directed(g, e->a, e->b, e->w);
	}
	return FB_OK;
}

/* The graph of b. */
fb_graph *gf_build_graph(const gf_build *b, const gf_text *t)
{
	fb_graph *g = fb_graph_try_alloc(b->n);

	if (g == NULL) {
		fb_fail(t->err, "cannot read '%s': out of memory for a graph of %zu nodes", t->name,
		        b->n);
		return NULL;
	}
	for (size_t i = 0; i < b->n; i++)
		fb_graph_set_name(g, i, b->names[i], NULL);
	g->weighted = b->weighted;
	for (size_t k = 0; k < b->ne; k++)
		if (put_edge(b, t, g, k) != FB_OK) {
			fb_graph_free(g);
			return NULL;
		}
	return g;
}

/* The PAG of b's edges' marks (an edge without marks as its relation: a tail at a parent
 * and at both ends of an undirected edge). */
fb_pag *gf_build_pag(const gf_build *b)
{
	fb_pag *p = fb_pag_alloc(b->n);

	for (size_t i = 0; i < b->n; i++)
		fb_pag_set_name(p, i, b->names[i], NULL);
	for (size_t k = 0; k < b->ne; k++) {
		const gf_edge *e = &b->e[k];

		if (e->ma != 0)
			fb_pag_set(p, e->a, e->b, (enum fb_pag_mark)e->ma, (enum fb_pag_mark)e->mb);
		else
			fb_pag_set(p, e->a, e->b, FB_PAG_TAIL,
			           e->undirected ? FB_PAG_TAIL : FB_PAG_ARROW);
	}
	return p;
}

/* Free what b holds. */
void gf_build_release(gf_build *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->names[i]);
	free(b->names);
	free(b->e);
}

/* The formats reading tries, in words, for the sentence on a file that matches none. */
#define GF_TRIED "fedbn's CSV edge list or matrix, Tetrad's graph text, causal-learn's " \
	"endpoint matrix, a bnlearn model string, GML, DOT, BIF, node-link JSON"

/* Whether [s, s + n) starts with the word w (followed by no letter, digit or '_'). */
static bool starts_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);

	return n >= k && memcmp(s, w, k) == 0 &&
	       (n == k || !(isalnum((unsigned char)s[k]) || s[k] == '_'));
}

/* Skip blanks and comments (C, C++ and '#' lines) from s on; returns where the text is. */
static size_t skip_comments(const char *s, size_t n, size_t k)
{
	for (;;) {
		while (k < n && isspace((unsigned char)s[k]))
			k++;
		if (k + 1 < n && s[k] == '/' && s[k + 1] == '*') {
			k = gf_block_comment_end(s, n, k);
		} else if ((k + 1 < n && s[k] == '/' && s[k + 1] == '/') || (k < n && s[k] == '#')) {
			while (k < n && s[k] != '\n')
				k++;
		} else {
			return k;
		}
	}
}

/* Whether the first line from k on is blank-separated numbers and nothing else. */
static bool numbers_line(const char *s, size_t n, size_t k)
{
	size_t e = k;
	double v;

	while (e < n && s[e] != '\n')
		e++;
	while (k < e) {
		size_t a;

		while (k < e && (s[k] == ' ' || s[k] == '\r'))
			k++;
		for (a = k; k < e && s[k] != ' ' && s[k] != '\r'; k++)
			;
		if (k > a && !fb_csv_number_parse(s + a, k - a, &v))
			return false;
	}
	return true;
}

/* The format the content shows plainly, or AUTO. */
static enum fb_graph_format sniff(const char *s, size_t n)
{
	size_t k = n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0, g;

	k = skip_comments(s, n, k);
	if (k >= n)
		return FB_GRAPH_AUTO;
	if (n - k >= 12 && memcmp(s + k, "Graph Nodes:", 12) == 0)
		return FB_GRAPH_TETRAD;
	if (s[k] == '[')
		return FB_GRAPH_BNLEARN;
	if (s[k] == '{')
		return FB_GRAPH_JSON;
	if (starts_word(s + k, n - k, "graph")) {
		g = skip_comments(s, n, k + 5);
		return g < n && s[g] == '[' ? FB_GRAPH_GML : FB_GRAPH_DOT;
	}
	if (starts_word(s + k, n - k, "digraph") || starts_word(s + k, n - k, "strict"))
		return FB_GRAPH_DOT;
	if (starts_word(s + k, n - k, "Creator") || starts_word(s + k, n - k, "Version"))
		return FB_GRAPH_GML;
	if (starts_word(s + k, n - k, "network") || starts_word(s + k, n - k, "variable"))
		return FB_GRAPH_BIF;
	if (s[k] != '/' && s[k] != '#' && numbers_line(s, n, k))
		return FB_GRAPH_CAUSAL_LEARN;
	return FB_GRAPH_AUTO;
}

/* The format of path with content buf: what the content shows plainly, else what the
 * extension names, else CSV when the first line has a delimiter; AUTO for none. */
static enum fb_graph_format detect(const char *path, const char *buf, size_t len)
{
	enum fb_graph_format f = sniff(buf, len), e = fb_graph_format_of_path(path);
	const char *nl;

	if (f != FB_GRAPH_AUTO)
		return f;
	if (e != FB_GRAPH_AUTO && e != FB_GRAPH_TETRAD)
		return e;
	nl = memchr(buf, '\n', len);
	if (memchr(buf, ',', nl != NULL ? (size_t)(nl - buf) : len) != NULL ||
	    memchr(buf, ';', nl != NULL ? (size_t)(nl - buf) : len) != NULL ||
	    memchr(buf, '\t', nl != NULL ? (size_t)(nl - buf) : len) != NULL)
		return FB_GRAPH_EDGES;
	return FB_GRAPH_AUTO;
}

/* Read the whole of path into *buf (caller frees) and *len; FB_ERR naming the file (its
 * size beyond what a graph file holds, or the memory its bytes would take: a file's size
 * comes from the input, so memory running out is a sentence, not the end). */
static int slurp(const char *path, char **buf, size_t *len, fb_error *err)
{
	FILE *fp = fopen(path, "rb");
	char why[128];
	size_t n = 0, cap = 1 << 16, got;
	char *b, *more;

	if (fp == NULL)
		return fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
	b = fb_xmalloc(cap + 1);
	while ((got = fread(b + n, 1, cap - n, fp)) > 0) {
		n += got;
		if (n == cap && cap > GF_FILE_MAX) {
			fclose(fp);
			free(b);
			return fb_fail(err, "cannot read '%s': larger than %zu MiB, more than a graph "
			               "file holds", path, GF_FILE_MAX >> 20);
		}
		if (n == cap && (more = realloc(b, cap * 2 + 1)) == NULL) {
			fclose(fp);
			free(b);
			return fb_fail(err, "cannot read '%s': out of memory after %zu MiB of it", path,
			               n >> 20);
		}
		if (n == cap) {
			b = more;
			cap *= 2;
		}
	}
	if (ferror(fp)) {
		fclose(fp);
		free(b);
		return fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
	}
	fclose(fp);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return FB_OK;
}

/* Read buf as format over the file's own names. */
fb_graph *fb_graph_parse(const char *buf, size_t len, enum fb_graph_format format,
                         const char *name, fb_graph_read_info *info, fb_error *err)
{
	gf_text t;
	gf_build b = { 0 };
	fb_graph *g = NULL;
	fb_bn *bn;

	gf_text_init(&t, buf, len, name, err);
	switch (format) {
	case FB_GRAPH_TETRAD: g = gf_read_tetrad(&t, &b); break;
	case FB_GRAPH_CAUSAL_LEARN: g = gf_read_causal_learn(&t, &b); break;
	case FB_GRAPH_BNLEARN: g = gf_read_bnlearn(&t, &b); break;
	case FB_GRAPH_GML: g = gf_read_gml(&t, &b); break;
	case FB_GRAPH_DOT: g = gf_read_dot(&t, &b); break;
	case FB_GRAPH_JSON: g = gf_read_json(&t, &b); break;
	case FB_GRAPH_BIF:
		if ((bn = fb_bif_read_buffer(buf, len, name, err)) != NULL)
			g = fb_bn_graph(bn);
		fb_bn_free(bn);
		break;
	default:
		fb_fail(err, "cannot read '%s' as %s here", name, fb_graph_format_name(format));
	}
	if (info != NULL)
		*info = (fb_graph_read_info){ format, b.lossy,
			                      g != NULL && b.pag ? gf_build_pag(&b) : NULL };
	gf_build_release(&b);
	return g;
}

/* Append to b the names of the nodes of a (na of them) that are not among b_names (nb),
 * at most three then how many more; returns how many there are. */
static size_t list_absent(fb_buf *b, char *const *a, size_t na, char *const *names,
                          size_t nb)
{
	char ex[FB_CSV_EXCERPT_MAX];
	size_t count = 0;

	for (size_t i = 0; i < na; i++) {
		size_t j = 0;

		while (j < nb && strcmp(a[i], names[j]) != 0)
			j++;
		if (j < nb)
			continue;
		if (count < 3)
			fb_buf_printf(b, "%s'%s'", count > 0 ? ", " : "",
			              fb_csv_excerpt(ex, a[i], strlen(a[i])));
		count++;
	}
	if (count > 3)
		fb_buf_printf(b, " and %zu more", count - 3);
	return count;
}

/* The sentence on nodes of g and names that do not match; FB_ERR. */
static int mismatch(const fb_graph *g, char *const *names, size_t d, const char *path,
                    fb_error *err)
{
	fb_buf extra = { 0 }, missing = { 0 };
	size_t ne = list_absent(&extra, g->names, g->d, names, d);
	size_t nm = list_absent(&missing, names, d, g->names, g->d);

	fb_fail(err, "cannot read '%s': its nodes are not the data's variables: %s%s%s%s%s%s",
	        path, ne > 0 ? extra.data : "", ne == 0 ? "" : ne == 1 ? " is not in the data"
	                                                              : " are not in the data",
	        ne > 0 && nm > 0 ? "; " : "", nm > 0 ? missing.data : "",
	        nm == 0 ? "" : nm == 1 ? " is not in the graph" : " are not in the graph",
	        ne + nm == 0 ? "a name is given twice" : "");
	fb_buf_release(&extra);
	fb_buf_release(&missing);
	return FB_ERR;
}

/* g put over the d names (by name, or by position when positional); NULL after the
 * sentence naming what does not match. */
static fb_graph *over_names(const fb_graph *g, char *const *names, size_t d, bool positional,
                            const char *path, fb_error *err)
{
	size_t *at = fb_xcalloc(g->d + 1, sizeof *at);
	fb_graph *out = NULL;

	if (positional && g->d != d) {
		fb_fail(err, "cannot read '%s': its matrix is over %zu nodes and the data have %zu "
		        "variables", path, g->d, d);
		goto done;
	}
	for (size_t i = 0; i < g->d; i++) {
		for (at[i] = 0; !positional && at[i] < d && strcmp(g->names[i], names[at[i]]) != 0;)
			at[i]++;
		if (positional)
			at[i] = i;
		else if (at[i] == d || g->d != d)
			goto wrong;
	}
	out = fb_graph_alloc(d);
	for (size_t i = 0; i < d; i++)
		fb_graph_set_name(out, i, names[i], NULL);
	out->weighted = g->weighted;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++)
			if (g->mark[i * g->d + j]) {
				out->mark[at[i] * d + at[j]] = 1;
				out->w[at[i] * d + at[j]] = g->w[i * g->d + j];
			}
	goto done;
wrong:
	mismatch(g, names, d, path, err);
done:
	free(at);
	return out;
}

/* The PAG p (over the file's nodes) put over g's nodes, which are the data's (by name, or
 * by position when positional); NULL when p or g is.  Frees p. */
static fb_pag *pag_over_names(fb_pag *p, const fb_graph *g, bool positional)
{
	size_t *at;
	fb_pag *out;

	if (p == NULL || g == NULL) {
		fb_pag_free(p);
		return NULL;
	}
	at = fb_xcalloc(p->d + 1, sizeof *at);
	for (size_t i = 0; i < p->d; i++)
		for (at[i] = 0; !positional && at[i] < g->d && strcmp(p->names[i], g->names[at[i]]) != 0;)
			at[i]++;
	for (size_t i = 0; positional && i < p->d; i++)
		at[i] = i;
	out = fb_pag_alloc(g->d);
	for (size_t i = 0; i < g->d; i++)
		fb_pag_set_name(out, i, g->names[i], NULL);
	for (size_t i = 0; i < p->d; i++)
		for (size_t j = i + 1; j < p->d; j++)
			if (fb_pag_mark(p, i, j) != FB_PAG_NONE)
				fb_pag_set(out, at[i], at[j], fb_pag_mark(p, j, i), fb_pag_mark(p, i, j));
	free(at);
	fb_pag_free(p);
	return out;
}

/* Read the graph in path over the d names. */
fb_graph *fb_graph_read_file(const char *path, enum fb_graph_format format,
                             char *const *names, size_t d, fb_graph_read_info *info,
                             fb_error *err)
{
	fb_graph_read_info got = { FB_GRAPH_EDGES, 0, NULL };
	fb_graph *g = NULL, *own;
	char *buf = NULL;
	size_t len = 0;

	if (format != FB_GRAPH_EDGES && format != FB_GRAPH_MATRIX &&
	    slurp(path, &buf, &len, err) != FB_OK)
		return NULL;
	if (buf != NULL && len == strspn(buf, " \t\r\n")) {
		fb_fail(err, "cannot read '%s': the file is empty", path);
	} else if (format == FB_GRAPH_AUTO &&
	           (format = detect(path, buf, len)) == FB_GRAPH_AUTO) {
		fb_fail(err, "cannot read '%s': it is in none of the graph formats fedbn reads "
		        "(tried %s)", path, GF_TRIED);
	} else if (format == FB_GRAPH_EDGES || format == FB_GRAPH_MATRIX) {
		g = fb_graph_read_csv(path, names, d, err);
	} else if ((own = fb_graph_parse(buf, len, format, path, &got, err)) != NULL) {
		g = over_names(own, names, d, format == FB_GRAPH_CAUSAL_LEARN, path, err);
		fb_graph_free(own);
		got.pag = pag_over_names(got.pag, g, format == FB_GRAPH_CAUSAL_LEARN);
	}
	got.format = format;
	if (info != NULL)
		*info = got;
	free(buf);
	return g;
}

/* fb_graph_read_file over the variables of ds. */
fb_graph *fb_graph_read_file_for(const char *path, enum fb_graph_format format,
                                 const fb_dataset *ds, fb_graph_read_info *info,
                                 fb_error *err)
{
	char **names = fb_xcalloc(ds->d + 1, sizeof *names);
	fb_graph *g;

	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	g = fb_graph_read_file(path, format, names, ds->d, info, err);
	free(names);
	return g;
}
