/* The PAG queries FCI's rules ask, in causal-learn's GeneralGraph terms and node orders
 * (inside the fci folder only). */
#ifndef FEDBN_FCI_GRAPH_H
#define FEDBN_FCI_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/knowledge.h"
#include "fedbn/pag.h"

/* The mark at b of the edge a - b (causal-learn's get_endpoint(a, b)). */
static inline enum fb_pag_mark fci_end(const fb_pag *p, size_t a, size_t b)
{
	return (enum fb_pag_mark)p->mark[a * p->d + b];
}

/* Whether a and b are adjacent. */
static inline bool fci_adj(const fb_pag *p, size_t a, size_t b)
{
	return a != b && p->mark[a * p->d + b] != FB_PAG_NONE;
}

/* a -> b. */
static inline bool fci_parent(const fb_pag *p, size_t a, size_t b)
{
	return fci_end(p, a, b) == FB_PAG_ARROW && fci_end(p, b, a) == FB_PAG_TAIL;
}

/* a *-> b <-* c, both edges present. */
static inline bool fci_collider(const fb_pag *p, size_t a, size_t b, size_t c)
{
	return fci_end(p, a, b) == FB_PAG_ARROW && fci_end(p, c, b) == FB_PAG_ARROW;
}

/* The nodes adjacent to x, increasing, into out; their count. */
size_t fci_adjacent(const fb_pag *p, size_t x, size_t *out);
/* The nodes j whose edge has mark m at x (get_nodes_into(x, m)), increasing. */
size_t fci_into(const fb_pag *p, size_t x, enum fb_pag_mark m, size_t *out);
/* The nodes j with x *-> j (get_nodes_out_of(x, ARROW)), increasing. */
size_t fci_out_arrow(const fb_pag *p, size_t x, size_t *out);
/* Whether an arrowhead may be put at y on x *-* y (causal-learn's is_arrow_point_allowed). */
bool fci_arrow_allowed(const fb_pag *p, size_t x, size_t y, const fb_knowledge *bk);
/* Whether a path leaves `from` over edges whose mark at the near end is a tail or a circle,
 * and reaches `to` (causal-learn's existsSemiDirectedPath: `from` itself is not checked);
 * q (d + 1) and seen (d, all false, left so) are scratch. */
bool fci_semi_directed(const fb_pag *p, size_t from, size_t to, size_t *q, bool *seen);
/* Whether no two nodes two apart on path (n nodes) are adjacent. */
bool fci_uncovered(const fb_pag *p, const size_t *path, size_t n);
/* Call fn(p, a, b, c, ctx) for every node b and every pair a < c of b's neighbours (listed
 * once per b into adj, room d), in order; whether any call returned true. */
bool fci_each_triple(fb_pag *p, size_t *adj,
                     bool (*fn)(fb_pag *p, size_t a, size_t b, size_t c, const void *ctx),
                     const void *ctx);

#endif
