/* Whole-graph scans of the d x d marks: edge counts, degrees, adjacency lists and the joined
 * pairs of one or two graphs.  Reading a column of the marks (mark[j * d + i] for every j)
 * touches one cache line per row, so at d = 10,000 a scan that tests both marks of every pair
 * in index order is slow; these read the marks in square blocks, whose rows and columns both
 * stay in cache, in O(d^2) bytes. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"

/* Side of the square blocks (a block of marks and its transpose take 8 kB). */
#define SCAN_TILE 64

/* The end of the block that starts at b, below d. */
static size_t tile_end(size_t b, size_t d)
{
	return d - b < SCAN_TILE ? d : b + SCAN_TILE;
}

/* True when the n bytes at p are all zero (eight at a time). */
static bool bytes_zero(const unsigned char *p, size_t n)
{
	uint64_t acc = 0, w;
	size_t k = 0;

	for (; k + 8 <= n; k += 8) {
		memcpy(&w, p + k, 8);
		acc |= w;
	}
	for (; k < n; k++)
		acc |= p[k];
	return acc == 0;
}

/* True when the block rows [i0, i1) x columns [j0, j1) of the marks m (d x d) has no mark. */
static bool block_zero(const unsigned char *m, size_t d, size_t i0, size_t i1, size_t j0,
                       size_t j1)
{
	for (size_t i = i0; i < i1; i++)
		if (!bytes_zero(m + i * d + j0, j1 - j0))
			return false;
	return true;
}

/* True when neither the block (rows i0.., columns j0..) nor its transpose holds a mark of m,
 * nor of mb (which may be m itself). */
static bool tile_zero(const unsigned char *m, const unsigned char *mb, size_t d, size_t i0,
                      size_t j0)
{
	size_t i1 = tile_end(i0, d), j1 = tile_end(j0, d);

	return block_zero(m, d, i0, i1, j0, j1) && block_zero(m, d, j0, j1, i0, i1) &&
	       (mb == m || (block_zero(mb, d, i0, i1, j0, j1) && block_zero(mb, d, j0, j1, i0, i1)));
}

/* Call fn(ctx, i, j) for every pair i < j joined in a or in b (b NULL: a alone). */
void fb_graph_pairs_joined(const fb_graph *a, const fb_graph *b,
                           void (*fn)(void *ctx, size_t i, size_t j), void *ctx)
{
	size_t d = a->d;
	const unsigned char *ma = a->mark, *mb = b != NULL ? b->mark : a->mark;

	for (size_t i0 = 0; i0 < d; i0 += SCAN_TILE)
		for (size_t j0 = i0; j0 < d; j0 += SCAN_TILE) {
			if (tile_zero(ma, mb, d, i0, j0))
				continue;
			for (size_t i = i0; i < tile_end(i0, d); i++)
				for (size_t j = j0 > i ? j0 : i + 1; j < tile_end(j0, d); j++)
					if (ma[i * d + j] | ma[j * d + i] | mb[i * d + j] | mb[j * d + i])
						fn(ctx, i, j);
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

/* For every node i, the nodes joined to it in increasing order: each band of rows goes
 * through the columns block by block; fill NULL counts them into pos[i], else they are
 * written at fill[pos[i]++]. */
static void adjacency_walk(const fb_graph *g, size_t *pos, size_t *fill)
{
	size_t d = g->d;
	const unsigned char *m = g->mark;

	for (size_t i0 = 0; i0 < d; i0 += SCAN_TILE)
		for (size_t j0 = 0; j0 < d; j0 += SCAN_TILE) {
			if (tile_zero(m, m, d, i0, j0))
				continue;
			for (size_t i = i0; i < tile_end(i0, d); i++)
				for (size_t j = j0; j < tile_end(j0, d); j++) {
					if (!(m[i * d + j] | m[j * d + i]))
						continue;
					if (fill != NULL)
						fill[pos[i]] = j;
					pos[i]++;
				}
		}
}

/* Every node's degree (edges of any kind). */
void fb_graph_degrees(const fb_graph *g, size_t *deg)
{
	for (size_t i = 0; i < g->d; i++)
		deg[i] = 0;
	adjacency_walk(g, deg, NULL);
}

/* Every node's adjacent nodes at once, as compressed rows. */
size_t *fb_graph_adjacency(const fb_graph *g, size_t **start_out)
{
	size_t d = g->d, *start = fb_xmalloc((d + 1) * sizeof *start), *pos, *adj;

	fb_graph_degrees(g, start + 1);
	start[0] = 0;
	for (size_t i = 0; i < d; i++)
		start[i + 1] += start[i];
	adj = fb_xmalloc((start[d] > 0 ? start[d] : 1) * sizeof *adj);
	pos = fb_xmalloc((d > 0 ? d : 1) * sizeof *pos);
	for (size_t i = 0; i < d; i++)
		pos[i] = start[i];
	adjacency_walk(g, pos, adj);
	free(pos);
	*start_out = start;
	return adj;
}
