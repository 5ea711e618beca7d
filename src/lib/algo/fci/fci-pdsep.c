/* FCI's possible-d-sep stage as causal-learn's fci writes it (its FCI.py:
 * removeByPossibleDsep, getPossibleDsep, existOnePathWithPossibleParents), its quirks
 * included: the search queues the pair (a, c) where Tetrad queues (b, c), a removed edge's
 * separating set is kept for one order of the pair only, and the members are tried in the
 * order of their names, largest first. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fci-graph.h"
#include "fci-int.h"

/* The most members of a possible-d-sep set whose subsets are all tried. */
#define PDSEP_MAX_ALL 30

/* Scratch of the possible-d-sep searches, reset after each. */
typedef struct pd_work {
	size_t d;
	unsigned char *pair_seen; /* d*d: (a, c) queued */
	unsigned char *prev_has;  /* d*d: prev_has[c*d+b]: b is in previous(c) */
	size_t **prev;            /* d lists: previous(c) */
	size_t *nprev, *capprev;  /* their lengths and room */
	size_t *queue, nq, capq;  /* queued pairs, two numbers each */
	bool *in_dsep;            /* d */
	size_t *adj, *q;          /* d + 1 each */
	bool *seen;               /* d */
} pd_work;

/* Add b to previous(c). */
static void prev_add(pd_work *w, size_t c, size_t b)
{
	if (w->prev_has[c * w->d + b])
		return;
	w->prev_has[c * w->d + b] = 1;
	if (w->nprev[c] == w->capprev[c]) {
		w->capprev[c] = w->capprev[c] ? 2 * w->capprev[c] : 4;
		w->prev[c] = fb_xrealloc(w->prev[c], w->capprev[c] * sizeof *w->prev[c]);
	}
	w->prev[c][w->nprev[c]++] = b;
}

/* Queue the pair (a, c) unless seen; whether it was new. */
static bool pair_push(pd_work *w, size_t a, size_t c)
{
	if (w->pair_seen[a * w->d + c])
		return false;
	w->pair_seen[a * w->d + c] = 1;
	if (w->nq == w->capq) {
		w->capq = w->capq ? 2 * w->capq : 64;
		w->queue = fb_xrealloc(w->queue, 2 * w->capq * sizeof *w->queue);
	}
	w->queue[2 * w->nq] = a;
	w->queue[2 * w->nq++ + 1] = c;
	return true;
}

/* Forget the last search. */
static void pd_reset(pd_work *w)
{
	for (size_t k = 0; k < w->nq; k++)
		w->pair_seen[w->queue[2 * k] * w->d + w->queue[2 * k + 1]] = 0;
	for (size_t c = 0; c < w->d; c++) {
		for (size_t k = 0; k < w->nprev[c]; k++)
			w->prev_has[c * w->d + w->prev[c][k]] = 0;
		w->nprev[c] = 0;
		w->in_dsep[c] = false;
	}
	w->nq = 0;
}

/* existOnePathWithPossibleParents(previous, b, x, b): some r in previous(b), not x, has a
 * semi-directed path to x or to b. */
static bool possible_parent_path(const fb_pag *p, pd_work *w, size_t b, size_t x)
{
	for (size_t k = 0; k < w->nprev[b]; k++) {
		size_t r = w->prev[b][k];

		if (r == b || r == x)
			continue;
		if (fci_semi_directed(p, r, x, w->q, w->seen) ||
		    fci_semi_directed(p, r, b, w->q, w->seen))
			return true;
	}
	return false;
}

/* Expand the queued pair (a, b) of the search from x (y left out); *e is the pair that
 * ends the current distance. */
static void pd_expand(const fb_pag *p, pd_work *w, size_t a, size_t b, size_t x, size_t y,
                      size_t *e)
{
	size_t n = fci_adjacent(p, b, w->adj);

	for (size_t k = 0; k < n; k++) {
		size_t c = w->adj[k];

		if (c == a || c == x || c == y)
			continue;
		prev_add(w, c, b);
		if ((fci_collider(p, a, b, c) || fci_adj(p, a, c)) && pair_push(w, a, c) &&
		    *e == (size_t)-1)
			*e = w->nq - 1;
	}
}

/* getPossibleDsep(x, y): into w->in_dsep. */
static void pd_search(const fb_pag *p, pd_work *w, size_t x, size_t y)
{
	size_t n = fci_adjacent(p, x, w->adj), e = (size_t)-1, distance = 0;

	pd_reset(w);
	for (size_t k = 0; k < n; k++) {
		size_t b = w->adj[k];

		if (b == y)
			continue;
		pair_push(w, x, b);
		if (e == (size_t)-1)
			e = w->nq - 1;
		prev_add(w, x, b);
		w->in_dsep[b] = true;
	}
	for (size_t head = 0; head < w->nq; head++) {
		size_t a = w->queue[2 * head], b = w->queue[2 * head + 1];

		if (e == head) {
			e = (size_t)-1;
			if (++distance > 1000)
				break;
		}
		if (possible_parent_path(p, w, b, x))
			w->in_dsep[b] = true;
		pd_expand(p, w, a, b, x, y, &e);
	}
	w->in_dsep[x] = w->in_dsep[y] = false;
}

/* Whether every member of S is adjacent to a. */
static bool all_adjacent(const fb_pag *p, size_t a, const size_t *S, size_t ns)
{
	for (size_t i = 0; i < ns; i++)
		if (!fci_adj(p, a, S[i]))
			return false;
	return true;
}

/* The members of w->in_dsep, largest rank first, into out; their count. */
static size_t pd_members(const pd_work *w, const size_t *rank, size_t *out)
{
	size_t n = 0, tmp;

	for (size_t v = 0; v < w->d; v++)
		if (w->in_dsep[v])
			out[n++] = v;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && rank[out[j - 1]] < rank[out[j]]; j--)
			tmp = out[j], out[j] = out[j - 1], out[j - 1] = tmp;
	return n;
}

/* Try the subsets of 2 members or more of the possible-d-sep set of (from, to) in
 * causal-learn's order (by size, then lexicographically; with skip_first, causal-learn's
 * own: without the first of each size below the set's), testing a _||_ b; remove a - b at the first that separates them,
 * keeping sepset(a, b).  *removed says so. */
static int pd_try(fb_pag *p, fci_env *env, pd_work *w, size_t a, size_t b, size_t from,
                  size_t to, bool *removed, fb_error *err)
{
	size_t d = p->d, *mem = env->scratch, *comb = env->scratch + d, *S = env->scratch + 2 * d;
	size_t m, top;

	pd_search(p, w, from, to);
	m = pd_members(w, env->rank, mem);
	top = env->pdsep_max >= 0 && (size_t)env->pdsep_max < m ? (size_t)env->pdsep_max : m;
	if (top > PDSEP_MAX_ALL)
		return fb_fail(err, "the possible-d-sep set of %s and %s has %zu members, too many "
		                    "to try every subset of up to %zu (give depth= to limit the "
		                    "sets' size)", p->names[a], p->names[b], m, top);
	*removed = false;
	if (env->missed != NULL)
		*env->missed = false;
	for (size_t l = 2; l <= top && !*removed && (env->missed == NULL || !*env->missed);
	     l++) {
		for (size_t i = 0; i < l; i++)
			comb[i] = i;
		/* causal-learn reads each subset after asking for the next (its generator
		 * reuses one list per size), so it never tries the first of a size below m */
		if (env->skip_first && l < m && !fb_pc_subset_next(comb, l, m))
			continue;
		do {
			bool indep;

			for (size_t i = 0; i < l; i++)
				S[i] = mem[comb[i]];
			if (all_adjacent(p, a, S, l) || all_adjacent(p, b, S, l))
				continue;
			if (fci_env_test(env, a, b, S, l, &indep, err) != FB_OK)
				return FB_ERR;
			if (indep) {
				fb_pag_remove(p, a, b);
				fci_seps_set(env->seps, a, b, S, l);
				env->removed++;
				*removed = true;
				break;
			}
		} while (fb_pc_subset_next(comb, l, m));
	}
	return FB_OK;
}

/* A fresh search scratch for d nodes. */
static void pd_work_init(pd_work *w, size_t d)
{
	memset(w, 0, sizeof *w);
	w->d = d;
	w->pair_seen = fb_xcalloc(d * d + 1, 1);
	w->prev_has = fb_xcalloc(d * d + 1, 1);
	w->prev = fb_xcalloc(d + 1, sizeof *w->prev);
	w->nprev = fb_xcalloc(d + 1, sizeof *w->nprev);
	w->capprev = fb_xcalloc(d + 1, sizeof *w->capprev);
	w->in_dsep = fb_xcalloc(d + 1, sizeof *w->in_dsep);
	w->adj = fb_xmalloc((d + 1) * sizeof *w->adj);
	w->q = fb_xmalloc((d + 1) * sizeof *w->q);
	w->seen = fb_xcalloc(d + 1, sizeof *w->seen);
}

/* Free the scratch. */
static void pd_work_release(pd_work *w)
{
	for (size_t c = 0; c < w->d; c++)
		free(w->prev[c]);
	free(w->pair_seen);
	free(w->prev_has);
	free(w->prev);
	free(w->nprev);
	free(w->capprev);
	free(w->queue);
	free(w->in_dsep);
	free(w->adj);
	free(w->q);
	free(w->seen);
}

/* The edges when the stage starts, as causal-learn lists them: pairs i < j, written j, i
 * when the edge is i <-o j or i <-- j (its Edge turns such edges round); 2 numbers each. */
static size_t pd_edges(const fb_pag *p, size_t **out)
{
	size_t n = 0, d = p->d, *e = fb_xmalloc((fb_pag_n_edges(p) + 1) * 2 * sizeof *e);

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			enum fb_pag_mark at_i = fci_end(p, j, i), at_j = fci_end(p, i, j);
			bool turn = at_i == FB_PAG_ARROW && (at_j == FB_PAG_TAIL || at_j == FB_PAG_CIRCLE);

			if (at_i == FB_PAG_NONE)
				continue;
			e[2 * n] = turn ? j : i;
			e[2 * n++ + 1] = turn ? i : j;
		}
	*out = e;
	return n;
}

/* The possible-d-sep stage. */
int fci_possible_dsep(fb_pag *p, fci_env *env, fb_error *err)
{
	size_t *edges, n = pd_edges(p, &edges);
	pd_work w;
	int ret = FB_OK;

	pd_work_init(&w, p->d);
	for (size_t k = 0; k < n && ret == FB_OK; k++) {
		size_t a = edges[2 * k], b = edges[2 * k + 1];
		bool removed;

		ret = pd_try(p, env, &w, a, b, a, b, &removed, err);
		if (ret == FB_OK && !removed)
			ret = pd_try(p, env, &w, a, b, b, a, &removed, err);
	}
	pd_work_release(&w);
	free(edges);
	return ret;
}
