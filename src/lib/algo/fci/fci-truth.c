/* The true PAG of a DAG with hidden nodes: FCI's stages with d-separation in the DAG as the
 * test, over the observed nodes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/fci.h"
#include "fci-graph.h"
#include "fci-int.h"

/* The oracle: the DAG's parents and children lists, which of its nodes are observed, and
 * scratch. */
typedef struct oracle {
	const fb_graph *dag; /* the DAG */
	size_t *obs;         /* m observed nodes, as DAG indices */
	size_t *par, *pstart; /* parents of v: par[pstart[v] .. pstart[v + 1]) */
	size_t *chi, *cstart; /* children of v: chi[cstart[v] .. cstart[v + 1]) */
	bool *anc, *zset;    /* DAG-sized scratch: an ancestor of Z (or in it), in Z */
	unsigned char *seen; /* DAG-sized scratch: bit 1 reached going up, bit 2 going down */
	size_t *stack;       /* 2 d scratch */
} oracle;

/* Mark into anc every node of Z and its ancestors. */
static void z_ancestors(oracle *o)
{
	size_t n = 0, d = o->dag->d;

	for (size_t v = 0; v < d; v++)
		if ((o->anc[v] = o->zset[v]))
			o->stack[n++] = v;
	while (n > 0) {
		size_t v = o->stack[--n];

		for (size_t k = o->pstart[v]; k < o->pstart[v + 1]; k++)
			if (!o->anc[o->par[k]])
				o->anc[o->par[k]] = true, o->stack[n++] = o->par[k];
	}
}

/* Push (v, dir) onto the search unless seen (dir 1: reached from a child, going up; 2: from a
 * parent, going down); *n counts the stack. */
static void ball_push(oracle *o, size_t v, unsigned char dir, size_t *n)
{
	if (o->seen[v] & dir)
		return;
	o->seen[v] |= dir;
	o->stack[(*n)++] = 2 * v + (dir == 2);
}

/* Whether x and y (DAG indices) are d-separated by the nodes marked in zset: the
 * reachability ("Bayes ball") search of Koller and Friedman's Algorithm 3.1. */
static bool d_separated(oracle *o, size_t x, size_t y)
{
	size_t d = o->dag->d, n = 0;

	z_ancestors(o);
	memset(o->seen, 0, d);
	ball_push(o, x, 1, &n);
	while (n > 0) {
		size_t top = o->stack[--n], v = top / 2;
		bool down = top % 2 == 1;

		if (v == y && !o->zset[v])
			return false;
		if (!down && !o->zset[v]) {
			for (size_t k = o->pstart[v]; k < o->pstart[v + 1]; k++)
				ball_push(o, o->par[k], 1, &n);
			for (size_t k = o->cstart[v]; k < o->cstart[v + 1]; k++)
				ball_push(o, o->chi[k], 2, &n);
		} else if (down) {
			for (size_t k = o->cstart[v]; k < o->cstart[v + 1] && !o->zset[v]; k++)
				ball_push(o, o->chi[k], 2, &n);
			for (size_t k = o->pstart[v]; k < o->pstart[v + 1] && o->anc[v]; k++)
				ball_push(o, o->par[k], 1, &n);
		}
	}
	return true;
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

/* The parents (or children) lists of dag: returns the members and sets *start (room d + 1;
 * both caller frees). */
static size_t *oracle_lists(const fb_graph *dag, bool parents, size_t **start)
{
	size_t d = dag->d, n = 0, *out = fb_xmalloc((fb_graph_n_edges(dag) + 1) * sizeof *out);

	*start = fb_xmalloc((d + 1) * sizeof **start);
	for (size_t v = 0; v < d; v++) {
		(*start)[v] = n;
		n += parents ? fb_graph_parents(dag, v, out + n) : fb_graph_children(dag, v, out + n);
	}
	(*start)[d] = n;
	return out;
}

/* The PAG over the observed nodes of dag, complete and o-o, and the oracle over them. */
static fb_pag *observed_pag(const fb_graph *dag, const bool *hidden, oracle *o)
{
	size_t m = 0, d = dag->d;
	fb_pag *p;

	o->dag = dag;
	o->obs = fb_xmalloc((d + 1) * sizeof *o->obs);
	o->anc = fb_xcalloc(2 * d + 2, sizeof *o->anc);
	o->zset = o->anc + d + 1;
	o->seen = fb_xcalloc(d + 1, 1);
	o->stack = fb_xmalloc((2 * d + 2) * sizeof *o->stack);
	o->par = oracle_lists(dag, true, &o->pstart);
	o->chi = oracle_lists(dag, false, &o->cstart);
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
	fci_env env;
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
	env = fci_env_new(fci_seps_alloc(p->d), oracle_test, &o, rank, p->d);
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
	free(o.anc);
	free(o.seen);
	free(o.stack);
	free(o.par);
	free(o.pstart);
	free(o.chi);
	free(o.cstart);
	return p;
}
