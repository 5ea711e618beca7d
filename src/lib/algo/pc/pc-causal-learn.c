/* causal-learn's orientation, mirrored step by step (its utils/PCUtils/UCSepset.py uc_sepset
 * with priority 3, and Meek.py meek; the triple lists of graph/GraphClass.py).
 *
 * causal-learn lists adjacencies as ordered pairs: first one pair (c, r) for every matrix
 * entry (r, c) holding a tail (r -> c or r - c), in row-major order, then one pair (c, r)
 * for every entry holding an arrowhead (c -> r), in row-major order.  Its unshielded triples
 * and triangles (a, b, e) come from every two pairs (a, b), (b, e) of that list, the first
 * pair's position outer and the second's inner, with a != e and a, e non-adjacent
 * (triple) or adjacent (triangle); its kites (i, j, k, l) from every two triangles (i, j, l),
 * (i, k, l) with j < k and j, k non-adjacent, in the same nested order.  The order matters
 * only where orientations disagree, and it is kept so that those cases agree too.
 *
 * Its Meek rules skip an orientation a -> b when b is already an ancestor of a.  It reads
 * ancestry from a table of its graph (graph/GeneralGraph.py, dpath) that is not a full
 * transitive closure: a new arc a -> b makes a and a's ancestors ancestors of b, and a an
 * ancestor of b's descendants, but not a's ancestors ancestors of b's descendants; removing
 * an arc rebuilds the table from the remaining arcs, visited from the last pair (i, j),
 * i < j, in row-major order to the first.  The table is kept here the same way, so that a
 * cycle it misses is missed here too. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/pc.h"
#include "pc-tester.h"

/* Most neighbours (besides the middle) whose subsets are scored. */
#define CL_MAX_NEIGHBOURS 24

/* A growable list of tuples of w indices. */
typedef struct cl_list {
	size_t *v;     /* n * w indices */
	size_t n, cap; /* tuples used and allocated */
	size_t w;      /* indices per tuple */
} cl_list;

/* The ordered adjacency pairs and, per first element, their positions. */
typedef struct cl_pairs {
	size_t *a, *b;     /* np pairs (a[k], b[k]) in causal-learn's order */
	size_t np;         /* number of pairs */
	size_t *start;     /* d + 1: positions with a == v are pos[start[v] .. start[v + 1]) */
	size_t *pos;       /* np positions, increasing within each v */
} cl_pairs;

/* causal-learn's ancestor table of the graph being oriented. */
typedef struct cl_anc {
	unsigned char *m; /* d * d: m[b * d + a] is 1 when a counts as an ancestor of b */
	size_t d;         /* number of vertices */
} cl_anc;

/* True when a - b is undirected. */
static bool is_und(const fb_graph *g, size_t a, size_t b)
{
	return g->mark[a * g->d + b] && g->mark[b * g->d + a];
}

/* True when a -> b is directed. */
static bool is_arc(const fb_graph *g, size_t a, size_t b)
{
	return g->mark[a * g->d + b] && !g->mark[b * g->d + a];
}

/* Append a tuple to a list. */
static void list_push(cl_list *l, const size_t *t)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = fb_xreallocarray(l->v, l->cap, l->w * sizeof *l->v);
	}
	memcpy(l->v + l->n * l->w, t, l->w * sizeof *t);
	l->n++;
}

/* Record the new arc a -> b: a and a's ancestors become ancestors of b, and a an ancestor
 * of b's descendants (and no more). */
static void anc_add(cl_anc *t, size_t a, size_t b)
{
	size_t d = t->d;

	t->m[b * d + a] = 1;
	for (size_t k = 0; k < d; k++) {
		if (t->m[a * d + k])
			t->m[b * d + k] = 1;
		if (t->m[k * d + b])
			t->m[k * d + a] = 1;
	}
}

/* Rebuild the table from g's arcs: every vertex its own ancestor, then the pairs (i, j),
 * i < j, from the last in row-major order to the first. */
static void anc_rebuild(cl_anc *t, const fb_graph *g)
{
	size_t d = t->d;

	memset(t->m, 0, d * d);
	for (size_t v = 0; v < d; v++)
		anc_add(t, v, v);
	for (size_t i = d; i-- > 0;)
		for (size_t j = d; j-- > i + 1;) {
			if (is_arc(g, i, j))
				anc_add(t, i, j);
			else if (is_arc(g, j, i))
				anc_add(t, j, i);
		}
}

/* A table for g (caller frees t->m). */
static void anc_init(cl_anc *t, const fb_graph *g)
{
	t->d = g->d;
	t->m = fb_xmalloc(g->d * g->d + 1);
	anc_rebuild(t, g);
}

/* Direct a -> b unless the table counts b an ancestor of a; true when it was directed. */
static bool anc_orient(fb_graph *g, cl_anc *t, size_t a, size_t b)
{
	if (t->m[a * t->d + b])
		return false;
	fb_graph_set_directed(g, a, b, 1.0);
	anc_add(t, a, b);
	return true;
}

/* Orient a collider's edge a -> b as causal-learn does: an arc a -> b already there is
 * removed first (which rebuilds the table), then added again. */
static void anc_collide(fb_graph *g, cl_anc *t, size_t a, size_t b)
{
	if (is_arc(g, a, b)) {
		fb_graph_remove(g, a, b);
		anc_rebuild(t, g);
	}
	fb_graph_set_directed(g, a, b, 1.0);
	anc_add(t, a, b);
}

/* Build the ordered adjacency pairs of g, tails first, then arrowheads. */
static void pairs_build(const fb_graph *g, cl_pairs *p)
{
	size_t d = g->d, n = 0, cap = 2 * fb_graph_n_edges(g) + 1, *fill;

	p->a = fb_xmalloc(cap * sizeof *p->a);
	p->b = fb_xmalloc(cap * sizeof *p->b);
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < d; r++)
			for (size_t c = 0; c < d; c++) {
				bool tail = is_und(g, r, c) || is_arc(g, r, c);

				if (r == c || (pass == 0 ? !tail : !is_arc(g, c, r)))
					continue;
				p->a[n] = c;
				p->b[n] = r;
				n++;
			}
	p->np = n;
	p->start = fb_xcalloc(d + 1, sizeof *p->start);
	p->pos = fb_xmalloc(cap * sizeof *p->pos);
	for (size_t k = 0; k < n; k++)
		p->start[p->a[k] + 1]++;
	for (size_t v = 0; v < d; v++)
		p->start[v + 1] += p->start[v];
	fill = fb_xmalloc((d + 1) * sizeof *fill);
	memcpy(fill, p->start, (d + 1) * sizeof *fill);
	for (size_t k = 0; k < n; k++)
		p->pos[fill[p->a[k]]++] = k;
	free(fill);
}

/* Free the pairs. */
static void pairs_free(cl_pairs *p)
{
	free(p->a);
	free(p->b);
	free(p->start);
	free(p->pos);
}

/* Unshielded triples into ut and triangles into tri (either may be NULL), in order. */
static void triples_build(const fb_graph *g, const cl_pairs *p, cl_list *ut, cl_list *tri)
{
	for (size_t k = 0; k < p->np; k++) {
		size_t a = p->a[k], b = p->b[k];

		for (size_t t = p->start[b]; t < p->start[b + 1]; t++) {
			size_t e = p->b[p->pos[t]], tup[3] = { a, b, e };

			if (e == a)
				continue;
			if (!fb_graph_adjacent(g, a, e) && ut != NULL)
				list_push(ut, tup);
			else if (fb_graph_adjacent(g, a, e) && tri != NULL)
				list_push(tri, tup);
		}
	}
}

/* A triangle's key (first, third) and its position, for grouping. */
typedef struct tri_key {
	size_t first, third, pos; /* the triangle's ends and its place in the list */
} tri_key;

/* Order triangle keys by ends, then position. */
static int tri_key_cmp(const void *x, const void *y)
{
	const tri_key *a = x, *b = y;

	if (a->first != b->first)
		return (a->first > b->first) - (a->first < b->first);
	if (a->third != b->third)
		return (a->third > b->third) - (a->third < b->third);
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Kites from the triangles: (i, j, k, l) for triangles (i, j, l) then (i, k, l), j < k, j and
 * k not adjacent. */
static void kites_build(const fb_graph *g, const cl_list *tri, cl_list *kite)
{
	size_t n = tri->n;
	tri_key *key = fb_xmalloc((n > 0 ? n : 1) * sizeof *key);
	size_t *where = fb_xmalloc((n > 0 ? n : 1) * sizeof *where);

	for (size_t t = 0; t < n; t++)
		key[t] = (tri_key){ tri->v[3 * t], tri->v[3 * t + 2], t };
	qsort(key, n, sizeof *key, tri_key_cmp);
	for (size_t s = 0; s < n; s++)
		where[key[s].pos] = s;
	for (size_t t = 0; t < n; t++) {
		const size_t *T = tri->v + 3 * t;
		size_t s = where[t];

		while (s > 0 && key[s - 1].first == T[0] && key[s - 1].third == T[2])
			s--;
		for (; s < n && key[s].first == T[0] && key[s].third == T[2]; s++) {
			const size_t *U = tri->v + 3 * key[s].pos;
			size_t q[4] = { T[0], T[1], U[1], T[2] };

			if (key[s].pos != t && T[1] < U[1] && !fb_graph_adjacent(g, T[1], U[1]))
				list_push(kite, q);
		}
	}
	free(key);
	free(where);
}

/* Largest p of x _||_ z | S over the S that hold y and part of adj(end) (end = x or z). */
static int score_end(pc_tester *t, const fb_graph *g, size_t x, size_t z, size_t y, size_t end,
                     size_t *buf, double *best, fb_error *err)
{
	size_t m = 0, nb[CL_MAX_NEIGHBOURS];

	for (size_t v = 0; v < g->d; v++) {
		if (v == y || !fb_graph_adjacent(g, end, v))
			continue;
		if (m == CL_MAX_NEIGHBOURS)
			return fb_fail(err, "compat=causal-learn: '%s' has more than %d neighbours, too "
			                    "many for causal-learn's collider scores (every subset is "
			                    "tested)", g->names[end], CL_MAX_NEIGHBOURS);
		nb[m++] = v;
	}
	for (unsigned long mask = 0; mask < (1UL << m); mask++) {
		size_t ns = 0;
		fb_ci_result res;

		/* bit 0 stands for the last neighbour, so that consecutive sets differ in their
		 * largest members and the tests can reuse what they computed for the common
		 * smallest ones; the largest p does not depend on the order */
		buf[ns++] = y;
		for (size_t b = 0; b < m; b++)
			if (mask & (1UL << (m - 1 - b)))
				buf[ns++] = nb[b];
		if (pc_tester_test(t, x, z, buf, ns, &res, err) != FB_OK)
			return FB_ERR;
		if (res.p > *best)
			*best = res.p;
	}
	return FB_OK;
}

/* One collider candidate with its score. */
typedef struct cl_cand {
	double score; /* largest p-value with the middle conditioned on */
	size_t pos;   /* place in causal-learn's triple order */
	size_t x, y, z; /* the triple, y in the middle, x < z */
} cl_cand;

/* Order candidates by score, then by their place (a stable sort's order). */
static int cand_cmp(const void *p, const void *q)
{
	const cl_cand *a = p, *b = q;

	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* What the collider scores work on. */
typedef struct cands_ctx {
	const fb_graph *g; /* the skeleton */
	cl_cand *c;        /* the candidates, scores to fill */
} cands_ctx;

/* Score candidate k (an item of pc_items_run): the largest p over both ends' sets. */
static int cand_score(void *ctx, pc_tester *t, size_t k, fb_error *err)
{
	cands_ctx *cc = ctx;
	cl_cand *c = &cc->c[k];
	size_t *buf = fb_xmalloc((cc->g->d + 1) * sizeof *buf);
	double best = -INFINITY;
	int ret = score_end(t, cc->g, c->x, c->z, c->y, c->x, buf, &best, err);

	if (ret == FB_OK)
		ret = score_end(t, cc->g, c->x, c->z, c->y, c->z, buf, &best, err);
	if (!pc_tester_recording(t))
		c->score = best;
	free(buf);
	return ret;
}

/* The collider candidates of the skeleton g (less those whose arcs into the middle k
 * forbids, as causal-learn skips them before scoring), scored (on the test object's helper threads
 * when it has them), in orientation order; their count. */
static int cands_build(fb_graph *g, const fb_sepsets *seps, fb_ci *ci, const fb_knowledge *k,
                       cl_cand **out, size_t *nout, fb_error *err)
{
	cl_pairs p;
	cl_list ut = { NULL, 0, 0, 3 };
	size_t n = 0;
	cl_cand *c;
	cands_ctx cc;
	int ret;

	pairs_build(g, &p);
	triples_build(g, &p, &ut, NULL);
	c = fb_xmalloc((ut.n > 0 ? ut.n : 1) * sizeof *c);
	for (size_t t = 0; t < ut.n; t++) {
		size_t x = ut.v[3 * t], y = ut.v[3 * t + 1], z = ut.v[3 * t + 2];

		if (x > z || fb_knowledge_forbids(k, x, y) || fb_knowledge_forbids(k, z, y) ||
		    fb_sepsets_contains(seps, x, z, y))
			continue;
		c[n++] = (cl_cand){ -INFINITY, t, x, y, z };
	}
	cc = (cands_ctx){ g, c };
	ret = pc_items_run(ci, n, cand_score, &cc, err);
	qsort(c, n, sizeof *c, cand_cmp);
	pairs_free(&p);
	free(ut.v);
	*out = c;
	*nout = n;
	return ret;
}

/* One pass of causal-learn's R1, R2 and R3 over its lists, none closing a cycle that the
 * table t sees nor making an arc that k forbids; edges oriented. */
static size_t cl_meek_pass(fb_graph *g, cl_anc *t, const cl_list *ut, const cl_list *tri,
                           const cl_list *kite, const fb_knowledge *kn)
{
	size_t n = 0;

	for (size_t k = 0; k < ut->n; k++) {
		const size_t *u = ut->v + 3 * k;

		if (is_arc(g, u[0], u[1]) && is_und(g, u[1], u[2]) &&
		    !fb_knowledge_forbids(kn, u[1], u[2]))
			n += anc_orient(g, t, u[1], u[2]);
	}
	for (size_t k = 0; k < tri->n; k++) {
		const size_t *u = tri->v + 3 * k;

		if (is_arc(g, u[0], u[1]) && is_arc(g, u[1], u[2]) && is_und(g, u[0], u[2]) &&
		    !fb_knowledge_forbids(kn, u[0], u[2]))
			n += anc_orient(g, t, u[0], u[2]);
	}
	for (size_t k = 0; k < kite->n; k++) {
		const size_t *u = kite->v + 4 * k;

		if (is_und(g, u[0], u[1]) && is_und(g, u[0], u[2]) && is_arc(g, u[1], u[3]) &&
		    is_arc(g, u[2], u[3]) && is_und(g, u[0], u[3]) &&
		    !fb_knowledge_forbids(kn, u[0], u[3]))
			n += anc_orient(g, t, u[0], u[3]);
	}
	return n;
}

/* causal-learn's Meek rules R1-R3 over lists built once, passes until one orients nothing;
 * edges oriented. */
static size_t cl_meek(fb_graph *g, cl_anc *t, const fb_knowledge *kn)
{
	cl_pairs p;
	cl_list ut = { NULL, 0, 0, 3 }, tri = { NULL, 0, 0, 3 }, kite = { NULL, 0, 0, 4 };
	size_t n = 0, k;

	pairs_build(g, &p);
	triples_build(g, &p, &ut, &tri);
	kites_build(g, &tri, &kite);
	while ((k = cl_meek_pass(g, t, &ut, &tri, &kite, kn)) > 0)
		n += k;
	pairs_free(&p);
	free(ut.v);
	free(tri.v);
	free(kite.v);
	return n;
}

/* causal-learn's orient_by_background_knowledge: each undirected edge (i, j), i < j, in
 * row-major order, directed the one way k allows (a required arc forbids its reverse), the
 * table t updated arc by arc as causal-learn's add_directed_edge does. */
static void cl_knowledge(fb_graph *g, cl_anc *t, const fb_knowledge *k)
{
	if (k == NULL || fb_knowledge_is_empty(k))
		return;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++) {
			if (!is_und(g, i, j))
				continue;
			if (fb_knowledge_forbids(k, j, i)) {
				fb_graph_set_directed(g, i, j, 1.0);
				anc_add(t, i, j);
			} else if (fb_knowledge_forbids(k, i, j)) {
				fb_graph_set_directed(g, j, i, 1.0);
				anc_add(t, j, i);
			}
		}
}

/* causal-learn's orientation of a skeleton with background knowledge. */
int fb_pc_orient_causal_learn_knowledge(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                                        const fb_knowledge *k, size_t *colliders,
                                        size_t *meek, fb_error *err)
{
	cl_cand *c = NULL;
	cl_anc t;
	size_t n = 0, done = 0, m;

	if (fb_ci_d(ci) != g->d)
		return fb_fail(err, "the skeleton has %zu variables and the tests %zu", g->d,
		               fb_ci_d(ci));
	if (k != NULL && fb_knowledge_d(k) != g->d)
		return fb_fail(err, "the skeleton has %zu variables and the knowledge %zu", g->d,
		               fb_knowledge_d(k));
	anc_init(&t, g);
	cl_knowledge(g, &t, k);
	if (cands_build(g, seps, ci, k, &c, &n, err) != FB_OK) {
		free(c);
		free(t.m);
		return FB_ERR;
	}
	for (size_t q = 0; q < n; q++) {
		if (is_arc(g, c[q].y, c[q].x) || is_arc(g, c[q].y, c[q].z))
			continue;
		anc_collide(g, &t, c[q].x, c[q].y);
		anc_collide(g, &t, c[q].z, c[q].y);
		done++;
	}
	free(c);
	m = cl_meek(g, &t, k);
	free(t.m);
	if (colliders != NULL)
		*colliders = done;
	if (meek != NULL)
		*meek = m;
	return FB_OK;
}

/* causal-learn's orientation of a skeleton. */
int fb_pc_orient_causal_learn(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                              size_t *colliders, size_t *meek, fb_error *err)
{
	return fb_pc_orient_causal_learn_knowledge(g, seps, ci, NULL, colliders, meek, err);
}
