/* FCI's PAG queries and its ordered separating sets. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fci-graph.h"
#include "fci-int.h"

/* Nodes adjacent to x. */
size_t fci_adjacent(const fb_pag *p, size_t x, size_t *out)
{
	size_t n = 0;
	const unsigned char *row = p->mark + x * p->d;

	for (size_t j = 0; j < p->d; j++)
		if (row[j] != FB_PAG_NONE)
			out[n++] = j;
	return n;
}

/* Nodes whose edge has mark m at x. */
size_t fci_into(const fb_pag *p, size_t x, enum fb_pag_mark m, size_t *out)
{
	size_t n = 0;

	for (size_t j = 0; j < p->d; j++)
		if (j != x && p->mark[j * p->d + x] == m)
			out[n++] = j;
	return n;
}

/* Nodes j with x *-> j. */
size_t fci_out_arrow(const fb_pag *p, size_t x, size_t *out)
{
	size_t n = 0;
	const unsigned char *row = p->mark + x * p->d;

	for (size_t j = 0; j < p->d; j++)
		if (row[j] == FB_PAG_ARROW)
			out[n++] = j;
	return n;
}

/* causal-learn's is_arrow_point_allowed. */
bool fci_arrow_allowed(const fb_pag *p, size_t x, size_t y, const fb_knowledge *bk)
{
	enum fb_pag_mark at_y = fci_end(p, x, y), at_x = fci_end(p, y, x);

	if (at_y == FB_PAG_ARROW)
		return true;
	if (at_y == FB_PAG_TAIL)
		return false;
	if ((at_x == FB_PAG_ARROW || at_x == FB_PAG_TAIL) && bk != NULL &&
	    fb_knowledge_forbids(bk, x, y))
		return false;
	return at_y == FB_PAG_CIRCLE;
}

/* causal-learn's existsSemiDirectedPath, breadth first. */
bool fci_semi_directed(const fb_pag *p, size_t from, size_t to, size_t *q, bool *seen)
{
	size_t head = 0, tail = 0, d = p->d;
	bool found = false;

	q[tail++] = from;
	for (bool first = true; head < tail; first = false) {
		size_t t = q[head++];
		const unsigned char *row = p->mark + t * d;

		if (!first && t == to) {
			found = true;
			break;
		}
		for (size_t u = 0; u < d; u++) {
			enum fb_pag_mark near = (enum fb_pag_mark)p->mark[u * d + t];

			if (row[u] == FB_PAG_NONE || seen[u] ||
			    (near != FB_PAG_TAIL && near != FB_PAG_CIRCLE))
				continue;
			seen[u] = true;
			q[tail++] = u;
		}
	}
	for (size_t k = 0; k < tail; k++)
		seen[q[k]] = false;
	return found;
}

/* Whether no two nodes two apart on the path are adjacent. */
bool fci_uncovered(const fb_pag *p, const size_t *path, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if (fci_adj(p, path[i], path[i + 2]))
			return false;
	return true;
}

/* Empty ordered separating sets. */
fci_seps *fci_seps_alloc(size_t d)
{
	fci_seps *s = fb_xcalloc(1, sizeof *s);

	s->d = d;
	s->set = fb_xcalloc(d == 0 ? 1 : d * d, sizeof *s->set);
	s->n = fb_xcalloc(d == 0 ? 1 : d * d, sizeof *s->n);
	s->def = fb_xcalloc(d == 0 ? 1 : d * d, 1);
	return s;
}

/* Free. */
void fci_seps_free(fci_seps *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->d * s->d; k++)
		free(s->set[k]);
	free(s->set);
	free(s->n);
	free(s->def);
	free(s);
}

/* Increasing order of two indices. */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* sepset(x, y) = S. */
void fci_seps_set(fci_seps *s, size_t x, size_t y, const size_t *S, size_t ns)
{
	size_t k = x * s->d + y;

	free(s->set[k]);
	s->set[k] = NULL;
	if (ns > 0) {
		s->set[k] = fb_xmalloc(ns * sizeof *S);
		memcpy(s->set[k], S, ns * sizeof *S);
		qsort(s->set[k], ns, sizeof *S, cmp_size);
	}
	s->n[k] = ns;
	s->def[k] = 1;
}

/* Whether sepset(x, y) is defined. */
bool fci_seps_has(const fci_seps *s, size_t x, size_t y)
{
	return s->def[x * s->d + y] != 0;
}

/* Whether sepset(x, y) is defined and holds k. */
bool fci_seps_contains(const fci_seps *s, size_t x, size_t y, size_t k)
{
	size_t at = x * s->d + y;

	for (size_t i = 0; s->def[at] && i < s->n[at]; i++)
		if (s->set[at][i] == k)
			return true;
	return false;
}

/* Both orders of PC's sets. */
void fci_seps_from_pc(fci_seps *s, const fb_sepsets *pc)
{
	size_t *buf = fb_xmalloc((s->d + 1) * sizeof *buf);

	for (size_t i = 0; i < s->d; i++)
		for (size_t j = i + 1; j < s->d; j++)
			if (fb_sepsets_has(pc, i, j)) {
				size_t n = fb_sepsets_get(pc, i, j, buf);

				fci_seps_set(s, i, j, buf, n);
				fci_seps_set(s, j, i, buf, n);
			}
	free(buf);
}

/* Test x _||_ y | S (sorted first) through the environment. */
int fci_env_test(fci_env *env, size_t x, size_t y, size_t *S, size_t ns, bool *indep,
                    fb_error *err)
{
	size_t tmp;

	for (size_t i = 1; i < ns; i++) /* insertion sort: the sets are short */
		for (size_t j = i; j > 0 && S[j - 1] > S[j]; j--)
			tmp = S[j], S[j] = S[j - 1], S[j - 1] = tmp;
	env->tests++;
	return env->test(env->ctx, x < y ? x : y, x < y ? y : x, S, ns, indep, err);
}

/* fn at every b and every pair a < c of its neighbours, in causal-learn's order. */
bool fci_each_triple(fb_pag *p, size_t *adj,
                     bool (*fn)(fb_pag *p, size_t a, size_t b, size_t c, const void *ctx),
                     const void *ctx)
{
	bool changed = false;

	for (size_t b = 0; b < p->d; b++) {
		size_t n = fci_adjacent(p, b, adj);

		for (size_t x = 0; x < n; x++)
			for (size_t y = x + 1; y < n; y++)
				changed |= fn(p, adj[x], b, adj[y], ctx);
	}
	return changed;
}
