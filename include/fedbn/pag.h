/* Partial ancestral graphs (PAGs): the graphs FCI learns when variables may be hidden.
 * Every edge has a mark at each of its two ends:
 *   tail  (-): that end is an ancestor (a cause) of the other end;
 *   arrow (>): that end is not an ancestor of the other end;
 *   circle (o): not known: some graphs the data allow have a tail there, some an arrow.
 * So X -> Y: X causes Y; X <-> Y: neither causes the other, a hidden common cause joins
 * them; X o-> Y: Y does not cause X, X may cause Y or share a hidden cause with it;
 * X o-o Y: nothing known about the direction; X - Y (tails both ends): selection.
 * Storage: mark[i*d+j] is the mark at j of the edge between i and j (so i -> j has
 * mark[i*d+j] = ARROW and mark[j*d+i] = TAIL); both are NONE when i and j are not adjacent.
 * Functions taking node indices expect i != j, both below d; others do nothing (a query
 * answers "no edge"). */
#ifndef FEDBN_PAG_H
#define FEDBN_PAG_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/graph.h"

/* The mark at one end of an edge. */
enum fb_pag_mark {
	FB_PAG_NONE = 0,   /* no edge */
	FB_PAG_TAIL = 1,   /* - */
	FB_PAG_ARROW = 2,  /* > (or < at the left end) */
	FB_PAG_CIRCLE = 3, /* o: not known */
};

/* A PAG over d named nodes; owns its memory. */
typedef struct fb_pag {
	size_t d;            /* nodes */
	char **names;        /* d names (owned) */
	unsigned char *mark; /* d*d marks, as above */
} fb_pag;

/* An empty PAG on d nodes named X1..Xd; out of memory exits.  Free with fb_pag_free. */
fb_pag *fb_pag_alloc(size_t d);
/* Free (NULL is fine). */
void fb_pag_free(fb_pag *p);
/* Deep copy (NULL for NULL). */
fb_pag *fb_pag_copy(const fb_pag *p);
/* Set node i's name (copied); FB_ERR for i >= d or an empty name. */
int fb_pag_set_name(fb_pag *p, size_t i, const char *name, fb_error *err);
/* Put the edge between i and j with mark mi at i and mj at j (neither NONE), replacing
 * whatever joined them. */
void fb_pag_set(fb_pag *p, size_t i, size_t j, enum fb_pag_mark mi, enum fb_pag_mark mj);
/* Change only the mark at j of the edge between i and j (nothing when not adjacent). */
void fb_pag_set_mark(fb_pag *p, size_t i, size_t j, enum fb_pag_mark mj);
/* Remove the edge between i and j. */
void fb_pag_remove(fb_pag *p, size_t i, size_t j);
/* The mark at j of the edge between i and j (NONE when not adjacent). */
enum fb_pag_mark fb_pag_mark(const fb_pag *p, size_t i, size_t j);
/* Whether i and j are adjacent. */
bool fb_pag_adjacent(const fb_pag *p, size_t i, size_t j);
/* Edges (unordered adjacent pairs). */
size_t fb_pag_n_edges(const fb_pag *p);
/* Edges with arrowheads at both ends (i <-> j). */
size_t fb_pag_n_bidirected(const fb_pag *p);
/* Edges with a circle at either end. */
size_t fb_pag_n_circles(const fb_pag *p);
/* The character of mark m at the left end ('<', '-', 'o') or the right end ('>', '-',
 * 'o') of an edge written "X a-b Y". */
char fb_pag_mark_char(enum fb_pag_mark m, bool left);
/* Append "X o-> Y" for the edge between i and j (i written first) to out. */
void fb_pag_edge_text(const fb_pag *p, size_t i, size_t j, fb_buf *out);
/* Append every edge, one a line, pairs in index order (i < j), to out. */
void fb_pag_text(const fb_pag *p, fb_buf *out);
/* The PAG that writes g's marks as a PAG's: i -> j as tail-arrow, i - j as tail-tail
 * (names copied). */
fb_pag *fb_pag_from_graph(const fb_graph *g);
/* The graph that keeps the PAG's i -> j edges and joins every other adjacent pair
 * undirected, for the views that draw plain graphs (names copied). */
fb_graph *fb_pag_to_graph(const fb_pag *p);
/* Same node count and names. */
bool fb_pag_same_nodes(const fb_pag *a, const fb_pag *b);
/* Structural Hamming distance between two PAGs on the same nodes, mark by mark: a pair
 * adjacent in one and not the other counts 1, and each end mark that differs on a pair
 * adjacent in both counts 1 (so X -> Y against X <-> Y is 1, X -> Y against Y -> X is 2).
 * FB_ERR when the nodes differ. */
int fb_pag_shd(const fb_pag *a, const fb_pag *b, size_t *shd, fb_error *err);

#endif
