/* Whole-graph scans of the d x d marks: edge counts, degrees, adjacency lists and the joined
 * pairs of one or two graphs.  Testing both marks of every pair in index order reads a
 * column of the marks for each row, one cache line per entry; these go along the rows
 * instead, skipping zero marks eight at a time, and read the transposed mark only where a
 * row holds one, so a sparse graph costs d^2 / 8 word reads plus its edges. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"
#include "graph-int.h"

/* The first column k >= j whose mark in row or in row2 is set, or d. */
size_t graph_row_next(const unsigned char *row, const unsigned char *row2, size_t j, size_t d)
{
	uint64_t w, w2;

	while (j < d && (j & 7) != 0 && (row[j] | row2[j]) == 0)
		j++;
	while (j + 8 <= d) {
		memcpy(&w, row + j, 8);
		memcpy(&w2, row2 + j, 8);
		if ((w | w2) != 0)
			break;
		j += 8;
	}
	while (j < d && (row[j] | row2[j]) == 0)
		j++;
	return j;
}

/* Call fn(ctx, i, j) for every pair i < j joined in a or in b (b NULL: a alone).  A pair is
 * met from the row of its smaller end when that row holds a mark of it, else from the other
 * row. */
void fb_graph_pairs_joined(const fb_graph *a, const fb_graph *b,
                           void (*fn)(void *ctx, size_t i, size_t j), void *ctx)
{
	size_t d = a->d;
	const unsigned char *ma = a->mark, *mb = b != NULL ? b->mark : a->mark;

	for (size_t r = 0; r < d; r++) {
		const unsigned char *ra = ma + r * d, *rb = mb + r * d;

		for (size_t c = graph_row_next(ra, rb, 0, d); c < d; c = graph_row_next(ra, rb, c + 1, d)) {
			if (c > r)
				fn(ctx, r, c);
			else if ((ma[c * d + r] | mb[c * d + r]) == 0)
				fn(ctx, c, r);
		}
	}
}

/* Counts of one pair scan. */
typedef struct scan_counts {
	const unsigned char *m; /* the marks */
	size_t d;               /* nodes */
	size_t directed;        /* pairs with one mark */
	size_t undirected;      /* pairs with both */
} scan_counts;

/* Count the joined pair (i, j). */
static void count_pair(void *ctx, size_t i, size_t j)
{
	scan_counts *c = ctx;

	if (c->m[i * c->d + j] && c->m[j * c->d + i])
		c->undirected++;
	else
		c->directed++;
}

/* Directed and undirected edges of g in one scan (either pointer may be NULL). */
void fb_graph_count_edges(const fb_graph *g, size_t *directed, size_t *undirected)
{
	scan_counts c = { g->mark, g->d, 0, 0 };

	fb_graph_pairs_joined(g, NULL, count_pair, &c);
	if (directed != NULL)
		*directed = c.directed;
	if (undirected != NULL)
		*undirected = c.undirected;
}

/* Adjacency lists in the making. */
typedef struct scan_lists {
	size_t *pos;  /* d: each node's count so far, or where its next entry goes */
	size_t *fill; /* NULL: count only; else the entries */
} scan_lists;

/* Enter the pair (i, j) at both ends. */
static void list_pair(void *ctx, size_t i, size_t j)
{
	scan_lists *l = ctx;

	if (l->fill != NULL) {
		l->fill[l->pos[i]] = j;
		l->fill[l->pos[j]] = i;
	}
	l->pos[i]++;
	l->pos[j]++;
}

/* Walk the joined pairs of the graph g (a walker for fb_adjacency_lists). */
static void graph_walk(void *g, void (*fn)(void *ctx, size_t i, size_t j), void *ctx)
{
	fb_graph_pairs_joined(g, NULL, fn, ctx);
}

/* Every node's degree (edges of any kind). */
void fb_graph_degrees(const fb_graph *g, size_t *deg)
{
	scan_lists l = { deg, NULL };

	for (size_t i = 0; i < g->d; i++)
		deg[i] = 0;
	fb_graph_pairs_joined(g, NULL, list_pair, &l);
}

/* Compare two indices for qsort. */
static int cmp_index(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return (a > b) - (a < b);
}

/* Adjacency lists of the pairs a walk meets, each list in increasing order. */
size_t *fb_adjacency_lists(size_t d, void (*walk)(void *wctx, void (*fn)(void *, size_t, size_t),
                                                  void *fctx),
                           void *wctx, bool sorted, size_t **start_out)
{
	size_t *start = fb_xcalloc(d + 1, sizeof *start), *adj;
	scan_lists l = { start + 1, NULL };

	walk(wctx, list_pair, &l);
	for (size_t i = 0; i < d; i++)
		start[i + 1] += start[i];
	adj = fb_xmalloc((start[d] > 0 ? start[d] : 1) * sizeof *adj);
	l.pos = fb_xmalloc((d > 0 ? d : 1) * sizeof *l.pos);
	l.fill = adj;
	memcpy(l.pos, start, d * sizeof *start);
	walk(wctx, list_pair, &l);
	free(l.pos);
	for (size_t i = 0; i < d && !sorted; i++)
		qsort(adj + start[i], start[i + 1] - start[i], sizeof *adj, cmp_index);
	*start_out = start;
	return adj;
}

/* Every node's adjacent nodes at once, as compressed rows in increasing order. */
size_t *fb_graph_adjacency(const fb_graph *g, size_t **start_out)
{
	return fb_adjacency_lists(g->d, graph_walk, (void *)g, false, start_out);
}
