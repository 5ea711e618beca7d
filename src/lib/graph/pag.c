/* Partial ancestral graphs: marks at both ends of each edge, text, conversion to and from
 * plain graphs, and the mark-by-mark SHD. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/pag.h"

/* True when i and j name two different nodes of p. */
static bool pag_pair_ok(const fb_pag *p, size_t i, size_t j)
{
	return p != NULL && i < p->d && j < p->d && i != j;
}

/* An empty PAG on d nodes. */
fb_pag *fb_pag_alloc(size_t d)
{
	fb_pag *p = fb_xcalloc(1, sizeof *p);

	p->d = d;
	p->names = fb_xcalloc(d == 0 ? 1 : d, sizeof *p->names);
	p->mark = fb_xcalloc(d == 0 ? 1 : d * d, 1);
	for (size_t i = 0; i < d; i++)
		p->names[i] = fb_xasprintf("X%zu", i + 1);
	return p;
}

/* Free a PAG. */
void fb_pag_free(fb_pag *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->d; i++)
		free(p->names[i]);
	free(p->names);
	free(p->mark);
	free(p);
}

/* Deep copy. */
fb_pag *fb_pag_copy(const fb_pag *p)
{
	fb_pag *c;

	if (p == NULL)
		return NULL;
	c = fb_pag_alloc(p->d);
	for (size_t i = 0; i < p->d; i++) {
		free(c->names[i]);
		c->names[i] = fb_xstrdup(p->names[i]);
	}
	memcpy(c->mark, p->mark, p->d * p->d);
	return c;
}

/* Set node i's name. */
int fb_pag_set_name(fb_pag *p, size_t i, const char *name, fb_error *err)
{
	if (i >= p->d)
		return fb_fail(err, "node %zu is out of range (the PAG has %zu)", i + 1, p->d);
	if (name == NULL || name[0] == '\0')
		return fb_fail(err, "node %zu needs a name that is not empty", i + 1);
	free(p->names[i]);
	p->names[i] = fb_xstrdup(name);
	return FB_OK;
}

/* Put the edge i mi-mj j. */
void fb_pag_set(fb_pag *p, size_t i, size_t j, enum fb_pag_mark mi, enum fb_pag_mark mj)
{
	if (!pag_pair_ok(p, i, j) || mi == FB_PAG_NONE || mj == FB_PAG_NONE)
		return;
	p->mark[j * p->d + i] = (unsigned char)mi;
	p->mark[i * p->d + j] = (unsigned char)mj;
}

/* Change the mark at j. */
void fb_pag_set_mark(fb_pag *p, size_t i, size_t j, enum fb_pag_mark mj)
{
	if (fb_pag_adjacent(p, i, j) && mj != FB_PAG_NONE)
		p->mark[i * p->d + j] = (unsigned char)mj;
}

/* Remove the edge between i and j. */
void fb_pag_remove(fb_pag *p, size_t i, size_t j)
{
	if (!pag_pair_ok(p, i, j))
		return;
	p->mark[i * p->d + j] = p->mark[j * p->d + i] = FB_PAG_NONE;
}

/* The mark at j. */
enum fb_pag_mark fb_pag_mark(const fb_pag *p, size_t i, size_t j)
{
	return pag_pair_ok(p, i, j) ? (enum fb_pag_mark)p->mark[i * p->d + j] : FB_PAG_NONE;
}

/* Whether i and j are adjacent. */
bool fb_pag_adjacent(const fb_pag *p, size_t i, size_t j)
{
	return fb_pag_mark(p, i, j) != FB_PAG_NONE;
}

/* Pairs i < j adjacent in p whose marks (at i, at j) satisfy want (NULL: every edge). */
static size_t pag_count(const fb_pag *p, bool (*want)(enum fb_pag_mark, enum fb_pag_mark))
{
	size_t n = 0;

	for (size_t i = 0; i < p->d; i++)
		for (size_t j = i + 1; j < p->d; j++)
			if (fb_pag_adjacent(p, i, j) &&
			    (want == NULL || want(fb_pag_mark(p, j, i), fb_pag_mark(p, i, j))))
				n++;
	return n;
}

/* Arrowheads at both ends. */
static bool is_bidirected(enum fb_pag_mark a, enum fb_pag_mark b)
{
	return a == FB_PAG_ARROW && b == FB_PAG_ARROW;
}

/* A circle at either end. */
static bool has_circle(enum fb_pag_mark a, enum fb_pag_mark b)
{
	return a == FB_PAG_CIRCLE || b == FB_PAG_CIRCLE;
}

/* Edges. */
size_t fb_pag_n_edges(const fb_pag *p)
{
	return pag_count(p, NULL);
}

/* Bidirected edges. */
size_t fb_pag_n_bidirected(const fb_pag *p)
{
	return pag_count(p, is_bidirected);
}

/* Edges with a circle. */
size_t fb_pag_n_circles(const fb_pag *p)
{
	return pag_count(p, has_circle);
}

/* The character of a mark at the left or right end. */
char fb_pag_mark_char(enum fb_pag_mark m, bool left)
{
	switch (m) {
	case FB_PAG_TAIL:
		return '-';
	case FB_PAG_ARROW:
		return left ? '<' : '>';
	case FB_PAG_CIRCLE:
		return 'o';
	default:
		return ' ';
	}
}

/* "X o-> Y". */
void fb_pag_edge_text(const fb_pag *p, size_t i, size_t j, fb_buf *out)
{
	fb_buf_printf(out, "%s %c-%c %s", p->names[i], fb_pag_mark_char(fb_pag_mark(p, j, i), true),
	              fb_pag_mark_char(fb_pag_mark(p, i, j), false), p->names[j]);
}

/* Every edge, one a line. */
void fb_pag_text(const fb_pag *p, fb_buf *out)
{
	for (size_t i = 0; i < p->d; i++)
		for (size_t j = i + 1; j < p->d; j++)
			if (fb_pag_adjacent(p, i, j)) {
				fb_pag_edge_text(p, i, j, out);
				fb_buf_append(out, "\n", 1);
			}
}

/* A plain graph's marks as a PAG's. */
fb_pag *fb_pag_from_graph(const fb_graph *g)
{
	fb_pag *p = fb_pag_alloc(g->d);

	for (size_t i = 0; i < g->d; i++) {
		free(p->names[i]);
		p->names[i] = fb_xstrdup(g->names[i]);
		for (size_t j = i + 1; j < g->d; j++)
			switch (fb_graph_edge(g, i, j)) {
			case FB_EDGE_FORWARD:
				fb_pag_set(p, i, j, FB_PAG_TAIL, FB_PAG_ARROW);
				break;
			case FB_EDGE_BACKWARD:
				fb_pag_set(p, i, j, FB_PAG_ARROW, FB_PAG_TAIL);
				break;
			case FB_EDGE_UNDIRECTED:
				fb_pag_set(p, i, j, FB_PAG_TAIL, FB_PAG_TAIL);
				break;
			default:
				break;
			}
	}
	return p;
}

/* The PAG's directed edges kept, every other adjacency undirected. */
fb_graph *fb_pag_to_graph(const fb_pag *p)
{
	fb_graph *g = fb_graph_alloc(p->d);

	for (size_t i = 0; i < p->d; i++) {
		free(g->names[i]);
		g->names[i] = fb_xstrdup(p->names[i]);
		for (size_t j = i + 1; j < p->d; j++) {
			enum fb_pag_mark mi = fb_pag_mark(p, j, i), mj = fb_pag_mark(p, i, j);

			if (mi == FB_PAG_NONE)
				continue;
			if (mi == FB_PAG_TAIL && mj == FB_PAG_ARROW)
				fb_graph_set_directed(g, i, j, 1.0);
			else if (mi == FB_PAG_ARROW && mj == FB_PAG_TAIL)
				fb_graph_set_directed(g, j, i, 1.0);
			else
				fb_graph_set_undirected(g, i, j);
		}
	}
	return g;
}

/* Same node count and names. */
bool fb_pag_same_nodes(const fb_pag *a, const fb_pag *b)
{
	if (a->d != b->d)
		return false;
	for (size_t i = 0; i < a->d; i++)
		if (strcmp(a->names[i], b->names[i]) != 0)
			return false;
	return true;
}

/* Mark-by-mark SHD. */
int fb_pag_shd(const fb_pag *a, const fb_pag *b, size_t *shd, fb_error *err)
{
	size_t n = 0;

	if (!fb_pag_same_nodes(a, b))
		return fb_fail(err, "the two PAGs are over different variables (%zu and %zu, or "
		                    "other names)", a->d, b->d);
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = i + 1; j < a->d; j++) {
			bool ea = fb_pag_adjacent(a, i, j), eb = fb_pag_adjacent(b, i, j);

			if (ea != eb)
				n++;
			else if (ea)
				n += (fb_pag_mark(a, i, j) != fb_pag_mark(b, i, j)) +
				     (fb_pag_mark(a, j, i) != fb_pag_mark(b, j, i));
		}
	*shd = n;
	return FB_OK;
}
