/* FCI's orientation rules R5-R10 as causal-learn's fci writes them (its FCI.py: ruleR5,
 * ruleR6, ruleR7, rule8, rule9, rule10), node orders included. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fci-graph.h"
#include "fci-int.h"

/* One node reached by a breadth-first path search, and the item it came from. */
typedef struct path_item {
	size_t node;   /* the node */
	size_t from;   /* the item before it, or (size_t)-1 for the first after the start */
} path_item;

/* The path to item k: the start(s), then the nodes of its items; its length. */
static size_t path_of(const path_item *items, size_t k, const size_t *start, size_t ns,
                      size_t *path, size_t d)
{
	size_t n = 0, *rev = path + d + 2;

	for (size_t at = k; at != (size_t)-1; at = items[at].from)
		rev[n++] = items[at].node;
	memcpy(path, start, ns * sizeof *path);
	for (size_t i = 0; i < n; i++)
		path[ns + i] = rev[n - 1 - i];
	return ns + n;
}

/* Both marks of a - b circles. */
static bool circle_edge(const fb_pag *p, size_t a, size_t b)
{
	return fci_end(p, a, b) == FB_PAG_CIRCLE && fci_end(p, b, a) == FB_PAG_CIRCLE;
}

/* R5's orientation: a - b, a - path[0], b - path[n-1] and the path all tails. */
static void tails_along(fb_pag *p, size_t a, size_t b, const size_t *path, size_t n)
{
	fb_pag_set(p, a, b, FB_PAG_TAIL, FB_PAG_TAIL);
	fb_pag_set(p, a, path[0], FB_PAG_TAIL, FB_PAG_TAIL);
	fb_pag_set(p, b, path[n - 1], FB_PAG_TAIL, FB_PAG_TAIL);
	for (size_t i = 0; i + 1 < n; i++)
		fb_pag_set(p, path[i], path[i + 1], FB_PAG_TAIL, FB_PAG_TAIL);
}

/* Scratch of the path searches. */
typedef struct search_work {
	path_item *items; /* d + 2 */
	bool *seen;       /* d */
	size_t *path;     /* 2d + 4: a path, then room to build it */
	size_t *adj;      /* d */
} search_work;

/* Put the unseen neighbours u of t that step(p, t, u) allows, not a or b, in the search
 * as items after item `from`; *n counts the items. */
static void expand(const fb_pag *p, search_work *w, size_t t, size_t from, size_t a, size_t b,
                   bool (*step)(const fb_pag *, size_t, size_t), size_t *n)
{
	size_t na = fci_adjacent(p, t, w->adj);

	for (size_t k = 0; k < na; k++) {
		size_t u = w->adj[k];

		if (u == a || u == b || w->seen[u] || !step(p, t, u))
			continue;
		w->seen[u] = true;
		w->items[(*n)++] = (path_item){ u, from };
	}
}

/* causal-learn's GetUncoveredCirclePath from c to dd avoiding a and b, each path it yields
 * orienting R5 at once (the search then goes on over the changed marks). */
static bool r5_paths(fb_pag *p, search_work *w, size_t a, size_t b, size_t c, size_t dd)
{
	size_t d = p->d, n = 0, head = 0;
	bool found = false;

	memset(w->seen, 0, d * sizeof *w->seen);
	expand(p, w, c, (size_t)-1, a, b, circle_edge, &n);
	while (head < n) {
		size_t at = head++, t = w->items[at].node;

		if (t == dd) {
			size_t len = path_of(w->items, at, &c, 1, w->path, d);

			if (fci_uncovered(p, w->path, len)) {
				tails_along(p, a, b, w->path, len);
				found = true;
			}
		}
		expand(p, w, t, at, a, b, circle_edge, &n);
	}
	return found;
}

/* R5 at b for a o-o b: every uncovered circle path a o-o c ... dd o-o b with c not adjacent
 * to b and dd not adjacent to a makes it all tails. */
static bool rule5_at(fb_pag *p, search_work *w, size_t a, size_t b, size_t *ac, size_t *bc)
{
	size_t d = p->d, na = 0, nb = 0, np = 0, *pairs;
	bool changed = false;

	for (size_t v = 0; v < d; v++) {
		if (v != a && v != b && fci_adj(p, a, v) && circle_edge(p, a, v))
			ac[na++] = v;
		if (v != a && v != b && fci_adj(p, b, v) && circle_edge(p, b, v))
			bc[nb++] = v;
	}
	pairs = fb_xmalloc((na * nb + 1) * 2 * sizeof *pairs);
	for (size_t x = 0; x < na; x++)
		for (size_t y = 0; y < nb && !fci_adj(p, b, ac[x]); y++)
			if (!fci_adj(p, a, bc[y]))
				pairs[2 * np] = ac[x], pairs[2 * np++ + 1] = bc[y];
	for (size_t k = 0; k < np; k++)
		changed |= r5_paths(p, w, a, b, pairs[2 * k], pairs[2 * k + 1]);
	free(pairs);
	return changed;
}

/* R5 over every b. */
static bool rule5(fb_pag *p, search_work *w, size_t *buf)
{
	size_t d = p->d, *circ = buf, *ac = buf + d, *bc = buf + 2 * d;
	bool changed = false;

	for (size_t b = 0; b < d; b++) {
		size_t nc = fci_into(p, b, FB_PAG_CIRCLE, circ);

		for (size_t k = 0; k < nc; k++)
			if (fci_end(p, b, circ[k]) == FB_PAG_CIRCLE)
				changed |= rule5_at(p, w, circ[k], b, ac, bc);
	}
	return changed;
}

/* R6: a - b o-* c gives b -* c. */
static bool rule6(fb_pag *p, size_t *buf)
{
	bool changed = false;

	for (size_t b = 0; b < p->d; b++) {
		size_t nt = fci_into(p, b, FB_PAG_TAIL, buf), nc;
		bool undirected = false;

		for (size_t k = 0; k < nt; k++)
			undirected |= fci_end(p, b, buf[k]) == FB_PAG_TAIL;
		if (!undirected)
			continue;
		nc = fci_into(p, b, FB_PAG_CIRCLE, buf);
		for (size_t k = 0; k < nc; k++) {
			fb_pag_set_mark(p, buf[k], b, FB_PAG_TAIL);
			changed = true;
		}
	}
	return changed;
}

/* R7: a -o b o-* c, a and c not adjacent, gives b -* c. */
static bool rule7(fb_pag *p, size_t *buf)
{
	size_t d = p->d, *circ = buf, *as = buf + d;
	bool changed = false;

	for (size_t b = 0; b < d; b++) {
		size_t nc = fci_into(p, b, FB_PAG_CIRCLE, circ), na = 0;

		for (size_t k = 0; k < nc; k++)
			if (fci_end(p, b, circ[k]) == FB_PAG_TAIL)
				as[na++] = circ[k];
		for (size_t k = 0; k < nc; k++)
			for (size_t x = 0; x < na; x++)
				if (as[x] != circ[k] && !fci_adj(p, as[x], circ[k])) {
					fb_pag_set_mark(p, circ[k], b, FB_PAG_TAIL);
					changed = true;
				}
	}
	return changed;
}

/* R8 at a, b, c: a -> b -> c or a -o b -> c, with a o-> c, gives a -> c. */
static bool rule8_at(fb_pag *p, size_t a, size_t b, size_t c, const void *ctx)
{
	enum fb_pag_mark ab = fci_end(p, a, b);

	(void)ctx;
	if ((ab != FB_PAG_ARROW && ab != FB_PAG_CIRCLE) || fci_end(p, b, a) != FB_PAG_TAIL ||
	    !fci_parent(p, b, c) || !fci_adj(p, a, c) || fci_end(p, a, c) != FB_PAG_ARROW ||
	    fci_end(p, c, a) != FB_PAG_CIRCLE)
		return false;
	fb_pag_set(p, a, c, FB_PAG_TAIL, FB_PAG_ARROW);
	return true;
}

/* A potentially directed step from t to u: t's end a tail or circle, u's an arrowhead or
 * circle. */
static bool pd_edge(const fb_pag *p, size_t t, size_t u)
{
	enum fb_pag_mark at_t = fci_end(p, u, t), at_u = fci_end(p, t, u);

	return (at_t == FB_PAG_TAIL || at_t == FB_PAG_CIRCLE) &&
	       (at_u == FB_PAG_ARROW || at_u == FB_PAG_CIRCLE);
}

/* causal-learn's existsUncoveredPdPath: the first potentially directed path a, b, ... c
 * found breadth first, and whether it is uncovered. */
static bool uncovered_pd_path(const fb_pag *p, search_work *w, size_t a, size_t b, size_t c)
{
	size_t d = p->d, n = 0, head = 0, start[2] = { a, b };

	memset(w->seen, 0, d * sizeof *w->seen);
	w->seen[a] = w->seen[b] = true;
	expand(p, w, b, (size_t)-1, d, d, pd_edge, &n);
	while (head < n) {
		size_t at = head++, t = w->items[at].node;

		if (t == c && fci_uncovered(p, w->path, path_of(w->items, at, start, 2, w->path, d)))
			return true;
		expand(p, w, t, at, d, d, pd_edge, &n);
	}
	return false;
}

/* Whether c may be a child of a: adjacent, and no arrowhead at a. */
static bool possible_child(const fb_pag *p, size_t a, size_t c)
{
	return fci_adj(p, a, c) && fci_end(p, c, a) != FB_PAG_ARROW;
}

/* R9: a o-> c and an uncovered potentially directed path a, b, ..., c with b not adjacent
 * to c: a -> c. */
static bool rule9(fb_pag *p, search_work *w, size_t *arr)
{
	bool changed = false;

	for (size_t c = 0; c < p->d; c++) {
		size_t na = fci_into(p, c, FB_PAG_ARROW, arr);

		for (size_t k = 0; k < na; k++) {
			size_t a = arr[k];

			if (fci_end(p, c, a) != FB_PAG_CIRCLE)
				continue;
			for (size_t b = 0; b < p->d; b++)
				if (b != c && possible_child(p, a, b) && !fci_adj(p, b, c) &&
				    uncovered_pd_path(p, w, a, b, c)) {
					fb_pag_set(p, a, c, FB_PAG_TAIL, FB_PAG_ARROW);
					changed = true;
					break;
				}
		}
	}
	return changed;
}

/* Whether two possible children of a, k1 and k2 (either way round), not adjacent, lead by
 * semi-directed paths to b and to dd. */
static bool r10_children(const fb_pag *p, search_work *w, size_t k1, size_t k2, size_t b,
                         size_t dd)
{
	size_t *q = w->path;

	if (fci_adj(p, k1, k2))
		return false;
	return (fci_semi_directed(p, k1, b, q, w->seen) && fci_semi_directed(p, k2, dd, q, w->seen)) ||
	       (fci_semi_directed(p, k2, b, q, w->seen) && fci_semi_directed(p, k1, dd, q, w->seen));
}

/* R10 for a o-> c: b -> c <- dd and two possible children of a, not adjacent, with
 * semi-directed paths to b and dd: a -> c. */
static bool rule10_at(fb_pag *p, search_work *w, size_t a, size_t c, const size_t *arr,
                      size_t na, size_t *kids)
{
	size_t nk = 0;
	bool changed = false;

	for (size_t v = 0; v < p->d; v++)
		if (v != c && possible_child(p, a, v))
			kids[nk++] = v;
	for (size_t x = 0; x < na && nk >= 2; x++)
		for (size_t y = x + 1; y < na; y++) {
			if (fci_end(p, c, arr[x]) != FB_PAG_TAIL || fci_end(p, c, arr[y]) != FB_PAG_TAIL)
				continue;
			for (size_t i = 0; i < nk; i++)
				for (size_t j = i + 1; j < nk; j++)
					if (r10_children(p, w, kids[i], kids[j], arr[x], arr[y])) {
						fb_pag_set(p, a, c, FB_PAG_TAIL, FB_PAG_ARROW);
						changed = true;
						i = j = nk;
					}
		}
	return changed;
}

/* R10 over every c. */
static bool rule10(fb_pag *p, search_work *w, size_t *buf)
{
	size_t d = p->d, *arr = buf, *as = buf + d, *kids = buf + 2 * d;
	bool changed = false;

	memset(w->seen, 0, d * sizeof *w->seen);
	for (size_t c = 0; c < d; c++) {
		size_t na = fci_into(p, c, FB_PAG_ARROW, arr), nas = 0;

		for (size_t k = 0; k < na && na >= 2; k++)
			if (fci_end(p, c, arr[k]) == FB_PAG_CIRCLE)
				as[nas++] = arr[k];
		for (size_t k = 0; k < nas; k++)
			changed |= rule10_at(p, w, as[k], c, arr, na, kids);
	}
	return changed;
}

/* R5 to R10 in causal-learn's order, once each. */
bool fci_rules5to10(fb_pag *p, size_t *buf)
{
	size_t d = p->d;
	search_work w;
	bool changed;

	w.items = fb_xmalloc((d + 2) * sizeof *w.items);
	w.seen = fb_xcalloc(d + 1, sizeof *w.seen);
	w.path = fb_xmalloc((2 * d + 4) * sizeof *w.path);
	w.adj = fb_xmalloc((d + 1) * sizeof *w.adj);
	changed = rule5(p, &w, buf);
	changed |= rule6(p, buf);
	changed |= rule7(p, buf);
	changed |= fci_each_triple(p, buf, rule8_at, NULL); /* a before c only */
	changed |= rule9(p, &w, buf);
	changed |= rule10(p, &w, buf);
	free(w.items);
	free(w.seen);
	free(w.path);
	free(w.adj);
	return changed;
}
