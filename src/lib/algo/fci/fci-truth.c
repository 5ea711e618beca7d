/* The true PAG of a DAG with hidden nodes: FCI's stages with d-separation in the DAG as the
 * test, over the observed nodes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/fci.h"
#include "fci-graph.h"
#include "fci-int.h"

/* The oracle: the DAG, which of its nodes are observed, and scratch. */
typedef struct oracle {
	const fb_graph *dag; /* the DAG */
	size_t *obs;         /* m observed nodes, as DAG indices */
	bool *keep, *zset;   /* DAG-sized scratch: in the ancestral set, in Z */
	bool *seen;          /* DAG-sized scratch */
	size_t *stack;       /* DAG-sized scratch */
} oracle;

/* Mark into keep the ancestors (themselves included) of the nodes already marked. */
static void ancestors(const fb_graph *g, bool *keep, size_t *stack)
{
	size_t n = 0, d = g->d;

	for (size_t v = 0; v < d; v++)
		if (keep[v])
			stack[n++] = v;
	while (n > 0) {
		size_t v = stack[--n];

		for (size_t u = 0; u < d; u++)
			if (!keep[u] && fb_graph_has_arc(g, u, v))
				keep[u] = true, stack[n++] = u;
	}
}

/* Whether u and v are joined in the moral graph of the ancestral set keep: an arc either
 * way, or a common child in keep. */
static bool moral_edge(const fb_graph *g, const bool *keep, size_t u, size_t v)
{
	if (fb_graph_has_arc(g, u, v) || fb_graph_has_arc(g, v, u))
		return true;
	for (size_t c = 0; c < g->d; c++)
		if (keep[c] && fb_graph_has_arc(g, u, c) && fb_graph_has_arc(g, v, c))
			return true;
	return false;
}

/* Whether x and y (DAG indices) are d-separated by the nodes marked in zset. */
static bool d_separated(oracle *o, size_t x, size_t y)
{
	const fb_graph *g = o->dag;
	size_t d = g->d, n = 0;
	bool reached = false;

	for (size_t v = 0; v < d; v++)
		o->keep[v] = o->zset[v] || v == x || v == y, o->seen[v] = false;
	ancestors(g, o->keep, o->stack);
	o->stack[n++] = x;
	o->seen[x] = true;
	while (n > 0 && !reached) {
		size_t v = o->stack[--n];

		for (size_t u = 0; u < d && !reached; u++) {
			if (!o->keep[u] || o->seen[u] || o->zset[u] || !moral_edge(g, o->keep, v, u))
				continue;
			reached = u == y;
			o->seen[u] = true;
			o->stack[n++] = u;
		}
	}
	return !reached;
}

/* The test: observed x _||_ y | S by d-separation. */
static int oracle_test(void *ctx, size_t x, size_t y, const size_t *S, size_t ns, bool *indep,
                       fb_error *err)
{
	oracle *o = ctx;

	(void)err;
	memset(o->zset, 0, o->dag->d * sizeof *o->zset);
	for (size_t i = 0; i < ns; i++)
		o->zset[o->obs[S[i]]] = true;
	*indep = d_separated(o, o->obs[x], o->obs[y]);
	return FB_OK;
}

/* Whether pair (x, y) is separated by some l-subset of x's neighbours (frozen in adj,
 * n of them) other than y; the set into sepsets (both orders). */
static bool oracle_pair(fb_pag *p, fci_env *env, const size_t *adj, size_t n, size_t x,
                        size_t y, size_t l)
{
	size_t *nb = env->scratch, *comb = env->scratch + p->d, *S = env->scratch + 2 * p->d, m = 0;
	bool indep = false;

	for (size_t k = 0; k < n; k++)
		if (adj[k] != y)
			nb[m++] = adj[k];
	if (m < l)
		return false;
	for (size_t i = 0; i < l; i++)
		comb[i] = i;
	do {
		for (size_t i = 0; i < l; i++)
			S[i] = nb[comb[i]];
		env->test(env->ctx, x, y, S, l, &indep, NULL);
	} while (!indep && fb_pc_subset_next(comb, l, m));
	if (indep) {
		fci_seps_set(env->seps, x, y, S, l);
		fci_seps_set(env->seps, y, x, S, l);
	}
	return indep;
}

/* PC-stable's skeleton over the complete PAG p with the oracle. */
static void oracle_skeleton(fb_pag *p, fci_env *env)
{
	size_t m = p->d, *adj = fb_xmalloc((m * m + 1) * sizeof *adj), *deg = fb_xcalloc(m + 1,
	                                                                             sizeof *deg);

	for (size_t l = 0;; l++) {
		bool more = false;

		for (size_t x = 0; x < m; x++) {
			deg[x] = fci_adjacent(p, x, adj + x * m);
			more |= deg[x] >= l + 1;
		}
		if (!more)
			break;
		for (size_t x = 0; x < m; x++)
			for (size_t k = 0; k < deg[x]; k++) {
				size_t y = adj[x * m + k];

				if (fb_pag_adjacent(p, x, y) &&
				    oracle_pair(p, env, adj + x * m, deg[x], x, y, l))
					fb_pag_remove(p, x, y);
			}
	}
	free(adj);
	free(deg);
}

/* The PAG over the observed nodes of dag, complete and o-o, and the oracle over them. */
static fb_pag *observed_pag(const fb_graph *dag, const bool *hidden, oracle *o)
{
	size_t m = 0, d = dag->d;
	fb_pag *p;

	o->dag = dag;
	o->obs = fb_xmalloc((d + 1) * sizeof *o->obs);
	o->keep = fb_xcalloc(3 * d + 3, sizeof *o->keep);
	o->zset = o->keep + d + 1;
	o->seen = o->zset + d + 1;
	o->stack = fb_xmalloc((d + 1) * sizeof *o->stack);
	for (size_t v = 0; v < d; v++)
		if (hidden == NULL || !hidden[v])
			o->obs[m++] = v;
	p = fb_pag_alloc(m);
	for (size_t i = 0; i < m; i++) {
		fb_pag_set_name(p, i, dag->names[o->obs[i]], NULL);
		for (size_t j = i + 1; j < m; j++)
			fb_pag_set(p, i, j, FB_PAG_CIRCLE, FB_PAG_CIRCLE);
	}
	return p;
}

/* The true PAG. */
fb_pag *fb_pag_of_dag(const fb_graph *dag, const bool *hidden, fb_error *err)
{
	oracle o;
	fci_env env = { 0 };
	fb_pag *p;
	size_t *rank;

	if (!fb_graph_is_dag(dag)) {
		fb_fail(err, "the true PAG needs a DAG (this graph has undirected edges or a cycle)");
		return NULL;
	}
	p = observed_pag(dag, hidden, &o);
	rank = fb_xmalloc((p->d + 1) * sizeof *rank);
	for (size_t i = 0; i < p->d; i++)
		rank[i] = i;
	env.seps = fci_seps_alloc(p->d);
	env.test = oracle_test;
	env.ctx = &o;
	env.rank = rank;
	env.pdsep_max = -1;
	env.scratch = fb_xmalloc((4 * p->d + 4) * sizeof *env.scratch);
	oracle_skeleton(p, &env);
	fci_rule0(p, &env);
	if (fci_possible_dsep(p, &env, err) != FB_OK) {
		fb_pag_free(p);
		p = NULL;
	} else {
		fci_rule0(p, &env);
		fci_orient_rules(p, &env, err); /* the oracle never fails */
	}
	fci_seps_free(env.seps);
	free(env.scratch);
	free(rank);
	free(o.obs);
	free(o.keep);
	free(o.stack);
	return p;
}
