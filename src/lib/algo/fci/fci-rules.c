/* FCI's orientation rules R0-R4 as causal-learn's fci writes them (its FCI.py: rule0,
 * ruleR1, ruleR2, rulesR1R2cycle, ruleR3, ruleR4B with ddpOrient and doDdpOrientation),
 * node orders included, so that the marks come out the same. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fci-graph.h"
#include "fci-int.h"

/* Set the mark at b of a *-* b to an arrowhead, keeping the mark at a. */
static void put_arrow(fb_pag *p, size_t a, size_t b)
{
	fb_pag_set_mark(p, a, b, FB_PAG_ARROW);
}

/* causal-learn's fci_orient_bk: forbidden and required arcs made directed. */
static void orient_knowledge(fb_pag *p, const fb_knowledge *bk)
{
	if (bk == NULL || fb_knowledge_is_empty(bk))
		return;
	for (size_t i = 0; i < p->d; i++)
		for (size_t j = i + 1; j < p->d; j++) {
			if (!fci_adj(p, i, j))
				continue;
			if (fb_knowledge_forbids(bk, i, j))
				fb_pag_set(p, j, i, FB_PAG_TAIL, FB_PAG_ARROW);
			else if (fb_knowledge_forbids(bk, j, i))
				fb_pag_set(p, i, j, FB_PAG_TAIL, FB_PAG_ARROW);
			else if (fb_knowledge_requires(bk, i, j))
				fb_pag_set(p, i, j, FB_PAG_TAIL, FB_PAG_ARROW);
			else if (fb_knowledge_requires(bk, j, i))
				fb_pag_set(p, j, i, FB_PAG_TAIL, FB_PAG_ARROW);
		}
}

/* Join the required pairs a test removed. */
void fci_join_required(fb_pag *p, const fb_knowledge *bk)
{
	for (size_t i = 0; bk != NULL && i < p->d; i++)
		for (size_t j = 0; j < p->d; j++)
			if (i != j && fb_knowledge_requires(bk, i, j) && !fci_adj(p, i, j))
				fb_pag_set(p, i, j, FB_PAG_CIRCLE, FB_PAG_CIRCLE);
}

/* R0: every edge o-o, the knowledge, then a *-> b <-* c for each unshielded triple whose
 * separating set (a, c) (a before c) is defined and leaves b out. */
void fci_rule0(fb_pag *p, const fci_env *env)
{
	size_t d = p->d, *adj = env->scratch;

	for (size_t k = 0; k < d * d; k++)
		if (p->mark[k] != FB_PAG_NONE)
			p->mark[k] = FB_PAG_CIRCLE;
	orient_knowledge(p, env->bk);
	for (size_t b = 0; b < d; b++) {
		size_t n = fci_adjacent(p, b, adj);

		for (size_t x = 0; x < n; x++)
			for (size_t y = x + 1; y < n; y++) {
				size_t a = adj[x], c = adj[y];

				if (fci_adj(p, a, c) || fci_collider(p, a, b, c))
					continue;
				if (!fci_seps_has(env->seps, a, c) ||
				    fci_seps_contains(env->seps, a, c, b))
					continue;
				if (!fci_arrow_allowed(p, a, b, env->bk) ||
				    !fci_arrow_allowed(p, c, b, env->bk))
					continue;
				put_arrow(p, a, b);
				put_arrow(p, c, b);
			}
	}
}

/* R1: a *-> b o-* c, a and c not adjacent: b -> c. */
static bool rule1(fb_pag *p, size_t a, size_t b, size_t c, const fb_knowledge *bk)
{
	if (fci_adj(p, a, c))
		return false;
	if (fci_end(p, a, b) != FB_PAG_ARROW || fci_end(p, c, b) != FB_PAG_CIRCLE)
		return false;
	if (!fci_arrow_allowed(p, b, c, bk))
		return false;
	fb_pag_set(p, b, c, FB_PAG_TAIL, FB_PAG_ARROW);
	return true;
}

/* R2: a -> b *-> c or a *-> b -> c, and a *-o c: a *-> c. */
static bool rule2(fb_pag *p, size_t a, size_t b, size_t c, const fb_knowledge *bk)
{
	if (!fci_adj(p, a, c) || fci_end(p, a, c) != FB_PAG_CIRCLE)
		return false;
	if (fci_end(p, a, b) != FB_PAG_ARROW || fci_end(p, b, c) != FB_PAG_ARROW ||
	    (fci_end(p, b, a) != FB_PAG_TAIL && fci_end(p, c, b) != FB_PAG_TAIL))
		return false;
	if (!fci_arrow_allowed(p, a, c, bk))
		return false;
	put_arrow(p, a, c);
	return true;
}

/* R1 and R2 at the triple a, b, c, both ways. */
static bool rules12_at(fb_pag *p, size_t a, size_t b, size_t c, const void *bk)
{
	bool changed = rule1(p, a, b, c, bk);

	changed |= rule1(p, c, b, a, bk);
	changed |= rule2(p, a, b, c, bk);
	changed |= rule2(p, c, b, a, bk);
	return changed;
}

/* R1 and R2 over every b and every pair of its neighbours. */
static bool rules12(fb_pag *p, fci_env *env)
{
	return fci_each_triple(p, env->scratch, rules12_at, env->bk);
}

/* R3 at b for one d *-o b: a *-> b <-* c, a *-o d o-* c, a and c not adjacent, d in
 * sepset(a, c): d *-> b. */
static bool rule3_at(fb_pag *p, const fci_env *env, size_t b, size_t dd, const size_t *arr,
                     size_t na)
{
	bool changed = false;

	for (size_t x = 0; x < na; x++)
		for (size_t y = x + 1; y < na; y++) {
			size_t a = arr[x], c = arr[y];

			if (fci_adj(p, a, c) || !fci_adj(p, a, dd) || !fci_adj(p, c, dd))
				continue;
			if (!fci_seps_contains(env->seps, a, c, dd))
				continue;
			if (fci_end(p, a, dd) != FB_PAG_CIRCLE || fci_end(p, c, dd) != FB_PAG_CIRCLE)
				continue;
			if (!fci_arrow_allowed(p, dd, b, env->bk))
				continue;
			put_arrow(p, dd, b);
			changed = true;
		}
	return changed;
}

/* R3 over every b. */
static bool rule3(fb_pag *p, fci_env *env)
{
	size_t d = p->d, *arr = env->scratch, *circ = env->scratch + d;
	bool changed = false;

	for (size_t b = 0; b < d; b++) {
		size_t na = fci_into(p, b, FB_PAG_ARROW, arr);
		size_t nc = fci_into(p, b, FB_PAG_CIRCLE, circ);

		for (size_t k = 0; k < nc && na >= 2; k++)
			changed |= rule3_at(p, env, b, circ[k], arr, na);
	}
	return changed;
}

/* causal-learn's doDdpOrientation for the discriminating path that reaches dd through
 * prev (prev[a] = b): both tests, then b -> c or a *-> b <-* c.  *done says it decided. */
static int ddp_orient(fb_pag *p, fci_env *env, size_t dd, size_t a, size_t b, size_t c,
                      const size_t *prev, bool *done, fb_error *err)
{
	size_t *path = env->scratch + 2 * p->d, n = 0, m = 0, *path2 = env->scratch + 3 * p->d;
	bool ind, ind2;

	for (size_t v = prev[dd]; v != (size_t)-1; v = prev[v])
		path[n++] = v;
	for (size_t k = 0; k < n; k++)
		if (path[k] != b)
			path2[m++] = path[k];
	*done = false;
	if (fci_env_test(env, dd, c, path, n, &ind, err) != FB_OK ||
	    fci_env_test(env, dd, c, path2, m, &ind2, err) != FB_OK)
		return FB_ERR;
	if (!ind && !ind2) {
		if (!fci_seps_has(env->seps, dd, c))
			return FB_OK;
		ind = fci_seps_contains(env->seps, dd, c, b);
	}
	if (ind) {
		fb_pag_set_mark(p, c, b, FB_PAG_TAIL);
	} else {
		if (!fci_arrow_allowed(p, a, b, env->bk) || !fci_arrow_allowed(p, c, b, env->bk))
			return FB_OK;
		put_arrow(p, a, b);
		put_arrow(p, c, b);
	}
	*done = true;
	return FB_OK;
}

/* Scratch of one discriminating-path search. */
typedef struct ddp_work {
	size_t *queue;  /* d */
	size_t *prev;   /* d: the node before each on the path, (size_t)-1 for none */
	bool *seen;     /* d */
	bool *cparent;  /* d: the parents of c */
	size_t *into;   /* d */
} ddp_work;

/* causal-learn's ddpOrient: breadth first back from a over colliders that are parents of
 * c, deciding at the first end dd not adjacent to c. */
static int ddp_search(fb_pag *p, fci_env *env, ddp_work *w, size_t a, size_t b, size_t c,
                      bool *changed, fb_error *err)
{
	size_t d = p->d, head = 0, tail = 0;
	bool done = false;

	for (size_t v = 0; v < d; v++) {
		w->prev[v] = (size_t)-1;
		w->seen[v] = false;
		w->cparent[v] = fci_parent(p, v, c);
	}
	w->queue[tail++] = a;
	w->seen[a] = w->seen[b] = true;
	w->prev[a] = b;
	while (head < tail && !done) {
		size_t t = w->queue[head++], n = fci_into(p, t, FB_PAG_ARROW, w->into);

		for (size_t k = 0; k < n && !done; k++) {
			size_t dd = w->into[k];

			if (w->seen[dd])
				continue;
			w->prev[dd] = t;
			if (!fci_collider(p, dd, t, w->prev[t]))
				continue;
			if (!fci_adj(p, dd, c) && dd != c &&
			    ddp_orient(p, env, dd, a, b, c, w->prev, &done, err) != FB_OK)
				return FB_ERR;
			if (!done && w->cparent[dd]) {
				w->queue[tail++] = dd;
				w->seen[dd] = true;
			}
		}
	}
	*changed |= done;
	return FB_OK;
}

/* R4 over every b: a <-* b o-> c with a -> c starts a search for a discriminating path;
 * *changed is set when one decided. */
static int rule4(fb_pag *p, fci_env *env, bool *changed, fb_error *err)
{
	size_t d = p->d, *pa = fb_xmalloc(2 * d * sizeof *pa), *pc = pa + d;
	ddp_work w;
	int ret = FB_OK;

	w.queue = fb_xmalloc(3 * d * sizeof *w.queue);
	w.prev = w.queue + d;
	w.into = w.queue + 2 * d;
	w.seen = fb_xcalloc(2 * d, sizeof *w.seen);
	w.cparent = w.seen + d;
	for (size_t b = 0; b < d && ret == FB_OK; b++) {
		size_t na = fci_out_arrow(p, b, pa), nc = fci_into(p, b, FB_PAG_CIRCLE, pc);

		for (size_t x = 0; x < na && ret == FB_OK; x++)
			for (size_t y = 0; y < nc && ret == FB_OK; y++)
				if (fci_parent(p, pa[x], pc[y]) &&
				    fci_end(p, b, pc[y]) == FB_PAG_ARROW)
					ret = ddp_search(p, env, &w, pa[x], b, pc[y], changed,
					                 err);
	}
	free(pa);
	free(w.queue);
	free(w.seen);
	return ret;
}

/* causal-learn's loop: R1-R2, R3, then R4 when they changed something (or on the first
 * pass when the knowledge has forbidden arcs, required arcs and tiers), then R5-R10, until
 * a pass changes nothing. */
int fci_orient_rules(fb_pag *p, fci_env *env, fb_error *err)
{
	bool changed = true, first = env->bk != NULL && fb_knowledge_n_forbidden(env->bk) > 0 &&
	                              fb_knowledge_n_required(env->bk) > 0 &&
	                              fb_knowledge_n_tiers(env->bk) > 0;

	while (changed) {
		changed = rules12(p, env);
		changed |= rule3(p, env);
		if ((changed || first) && rule4(p, env, &changed, err) != FB_OK)
			return FB_ERR;
		first = false;
		changed |= fci_rules5to10(p, env->scratch);
	}
	return FB_OK;
}
