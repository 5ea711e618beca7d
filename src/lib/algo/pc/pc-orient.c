/* PC's orientation of v-structures by fedbn's rules (see pc.h): collider candidates in order
 * of strength (the p-value of the test that makes the collider) or of index, both edges into
 * the middle unless one already points out of it. */
#include "config.h"

#include <stdlib.h>

#include "fedbn/pc.h"

/* One collider candidate i -> k <- j. */
typedef struct cand {
	double p, stat; /* the collider test: i _||_ j | sepset(i, j) + {k} (0 under order) */
	size_t pos;     /* place in index order */
	size_t i, k, j; /* the triple, k in the middle */
} cand;

/* Order candidates: smaller p, then larger statistic, then index order. */
static int cand_cmp(const void *x, const void *y)
{
	const cand *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	if (a->stat != b->stat)
		return a->stat > b->stat ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Score candidate c by its collider test, S room for d. */
static int cand_score(fb_ci *ci, const fb_sepsets *seps, cand *c, size_t *S, fb_error *err)
{
	size_t ns = fb_sepsets_get(seps, c->i, c->j, S);
	fb_ci_result res;

	S[ns++] = c->k;
	if (fb_ci_test(ci, c->i, c->j, S, ns, &res, err) != FB_OK)
		return FB_ERR;
	c->p = res.p;
	c->stat = res.stat;
	return FB_OK;
}

/* The collider candidates of g in index order (middle, then i, then j); their count. */
static size_t cands_list(const fb_graph *g, const fb_sepsets *seps, cand **out)
{
	size_t d = g->d, n = 0, cap = 16, m, *start, *adj = fb_graph_adjacency(g, &start);
	cand *c = fb_xmalloc(cap * sizeof *c);

	for (size_t k = 0; k < d; k++) {
		const size_t *nb = adj + start[k];

		m = start[k + 1] - start[k];
		for (size_t p = 0; p < m; p++)
			for (size_t q = p + 1; q < m; q++) {
				size_t i = nb[p], j = nb[q];

				if (fb_graph_adjacent(g, i, j) || !fb_sepsets_has(seps, i, j) ||
				    fb_sepsets_contains(seps, i, j, k))
					continue;
				if (n == cap)
					c = fb_xreallocarray(c, cap *= 2, sizeof *c);
				c[n] = (cand){ 0.0, 0.0, n, i, k, j };
				n++;
			}
	}
	free(start);
	free(adj);
	*out = c;
	return n;
}

/* Orient the v-structures of the skeleton g. */
int fb_pc_orient_colliders(fb_graph *g, const fb_sepsets *seps, fb_ci *ci,
                           enum fb_pc_colliders rule, size_t *oriented, size_t *conflicts,
                           fb_error *err)
{
	cand *c;
	size_t n = cands_list(g, seps, &c), done = 0, bad = 0;
	size_t *S = fb_xmalloc((g->d + 1) * sizeof *S);
	int ret = FB_OK;

	if (rule == FB_PC_COLLIDERS_STRENGTH && ci == NULL)
		ret = fb_fail(err, "the strength rule for colliders needs the tests");
	for (size_t t = 0; t < n && ret == FB_OK && rule == FB_PC_COLLIDERS_STRENGTH; t++)
		ret = cand_score(ci, seps, &c[t], S, err);
	if (ret == FB_OK) {
		qsort(c, n, sizeof *c, cand_cmp);
		for (size_t t = 0; t < n; t++) {
			if (fb_graph_has_arc(g, c[t].k, c[t].i) || fb_graph_has_arc(g, c[t].k, c[t].j)) {
				bad++;
				continue;
			}
			fb_graph_set_directed(g, c[t].i, c[t].k, 1.0);
			fb_graph_set_directed(g, c[t].j, c[t].k, 1.0);
			done++;
		}
	}
	if (oriented != NULL)
		*oriented = done;
	if (conflicts != NULL)
		*conflicts = bad;
	free(c);
	free(S);
	return ret;
}

/* True when k says something about g's variables (same count, not empty). */
static bool knowledge_applies(const fb_graph *g, const fb_knowledge *k)
{
	return k != NULL && fb_knowledge_d(k) == g->d && !fb_knowledge_is_empty(k);
}

/* Leave the pairs forbidden both ways out of the skeleton. */
size_t fb_pc_skeleton_knowledge(fb_graph *g, fb_sepsets *seps, const fb_knowledge *k)
{
	size_t n = 0;

	if (!knowledge_applies(g, k))
		return 0;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++)
			if (fb_knowledge_forbids_pair(k, i, j)) {
				fb_graph_remove(g, i, j);
				fb_sepsets_set(seps, i, j, NULL, 0);
				n++;
			}
	return n;
}

/* Join the required pairs and direct the edges with a forbidden direction. */
size_t fb_pc_orient_knowledge(fb_graph *g, const fb_knowledge *k)
{
	size_t n = 0;

	if (!knowledge_applies(g, k))
		return 0;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++) {
			if (i == j || fb_graph_has_arc(g, i, j))
				continue;
			if ((fb_knowledge_requires(k, i, j) && !fb_graph_adjacent(g, i, j)) ||
			    (fb_graph_adjacent(g, i, j) && !fb_graph_has_arc(g, j, i) &&
			     fb_knowledge_forbids(k, j, i) && !fb_knowledge_forbids(k, i, j))) {
				fb_graph_set_directed(g, i, j, 1.0);
				n++;
			}
		}
	return n;
}
