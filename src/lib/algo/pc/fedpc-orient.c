/* FedOrien, FedPC's orientation round (ALGORITHMS.md §7.2).
 *
 * Down: d = { -1 }; b = the final skeleton S* (one bit per pair), the number P of end pairs
 * of its unshielded triples (4 bytes), then for each pair (i, j), i < j, in increasing
 * order: i, j, the layer l whose vote removed the pair, the number m of middles and the
 * middles k (each triple i - k - j), every value in w bytes.  The skeleton gives every
 * neighbour list, so none travels twice.
 * Up, per end pair in the same order: d holds the highest p-value over the sets the client
 * tried (-1 when no set gave p > alpha), then, with colliders=strength, two numbers per
 * triple: p and statistic of i _||_ j | Z + {k}, Z the client's set (NaN when it has none
 * or k is in it); b holds each pair's set as its size and its members, w bytes each.
 *
 * A client's candidate sets for (i, j) are the subsets of ne(S*, i) \ {j}, then of
 * ne(S*, j) \ {i}, with at most l members (the size of the sets the clients were testing
 * when the vote removed the pair: larger sets hold fewer rows per stratum and their high
 * p-values are mostly lack of power), in increasing size and lexicographic order; a Fisher-z
 * test with too few rows (p = 1 by default) does not count, and the first of equal p-values
 * is kept. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/ci-lazy.h"
#include "fedbn/cpdag.h"
#include "fedpc-int.h"

/* Number of distinct end pairs of n sorted triples. */
size_t fedpc_pairs_count(const size_t *tri, size_t n)
{
	size_t P = 0;

	for (size_t t = 0; t < n; t++)
		P += t == 0 || tri[3 * t] != tri[3 * t - 3] || tri[3 * t + 2] != tri[3 * t - 1];
	return P;
}

/* Keep back from the triples those whose ends the knowledge forbids both ways: no client
 * is asked about such a pair. */
static void triples_knowledge(fedpc_state *st)
{
	size_t kept = 0;

	st->nktri = 0;
	if (st->c.know == NULL)
		return;
	st->ktri = fb_xreallocarray(st->ktri, 3 * st->ntri + 1, sizeof *st->ktri);
	for (size_t t = 0; t < st->ntri; t++) {
		const size_t *x = st->tri + 3 * t;
		size_t *to = st->c.know != NULL && fb_knowledge_forbids_pair(st->c.know, x[0], x[2])
		                     ? st->ktri + 3 * st->nktri++ : st->tri + 3 * kept++;

		memmove(to, x, 3 * sizeof *x);
	}
	st->ntri = kept;
}

/* The server's FedOrien broadcast over its final skeleton, the knowledge's arcs set first
 * (required pairs joined, edges with a forbidden direction directed). */
void fedpc_orient_broadcast(fedpc_state *st, fb_msg *down)
{
	size_t d = st->c.d, w = st->c.w, nb = fedpc_bits_bytes(d), P, len;
	unsigned char *p;

	free(st->tri);
	fb_pc_orient_knowledge(st->c.graph, st->c.know);
	st->ntri = fb_graph_unshielded_triples(st->c.graph, &st->tri);
	triples_knowledge(st);
	P = fedpc_pairs_count(st->tri, st->ntri);
	len = nb + 4 + w * (4 * P + st->ntri);
	fb_msg_doubles(down, 1)[0] = -1.0;
	p = fb_msg_bytes(down, len);
	memcpy(p, st->sent, nb);
	p = fedpc_put_id(p + nb, 4, P);
	for (size_t t0 = 0, t1; t0 < st->ntri; t0 = t1) {
		const size_t *a = st->tri + 3 * t0;

		for (t1 = t0 + 1; t1 < st->ntri && st->tri[3 * t1] == a[0] &&
		     st->tri[3 * t1 + 2] == a[2];)
			t1++;
		p = fedpc_put_id(p, w, a[0]);
		p = fedpc_put_id(p, w, a[2]);
		p = fedpc_put_id(p, w, fedpc_removed_layer(&st->gone, fedpc_pair(d, a[0], a[2])));
		p = fedpc_put_id(p, w, t1 - t0);
		for (size_t t = t0; t < t1; t++)
			p = fedpc_put_id(p, w, st->tri[3 * t + 1]);
	}
}

/* A client's best set so far for one pair. */
typedef struct best_set {
	double p;   /* its p-value, -1 while none */
	size_t n;   /* its size */
	size_t *Z;  /* its members (room for d) */
} best_set;

/* Try every subset of pool[0..m) with at most cap members as a separating set of (i, j). */
static int pool_search(fb_ci *ci, size_t i, size_t j, const size_t *pool, size_t m, size_t cap,
                       double alpha, size_t *comb, size_t *S, best_set *b, fb_error *err)
{
	size_t top = m < cap ? m : cap;
	fb_ci_result r;

	for (size_t l = 0; l <= top; l++) {
		bool more = true;

		for (size_t t = 0; t < l; t++)
			comb[t] = t;
		while (more) {
			for (size_t t = 0; t < l; t++)
				S[t] = pool[comb[t]];
			if (fb_ci_test(ci, i, j, S, l, &r, err) != FB_OK)
				return FB_ERR;
			if (r.p > alpha && r.p > b->p && !(r.flags & FB_CI_UNDEFINED)) {
				b->p = r.p;
				b->n = l;
				memcpy(b->Z, S, l * sizeof *S);
			}
			more = fb_pc_subset_next(comb, l, m);
		}
	}
	return FB_OK;
}

/* The server's skeleton as adjacency lists. */
typedef struct skel_lists {
	size_t *start; /* d + 1 */
	size_t *adj;   /* i's neighbours adj[start[i] .. start[i + 1]), increasing */
} skel_lists;

/* The client's highest-p separating set of (i, j) over both neighbourhoods in the skeleton. */
static int pair_search(const fedpc_state *st, fb_ci *ci, const skel_lists *g, size_t i,
                       size_t j, size_t cap, size_t *buf, best_set *b, fb_error *err)
{
	size_t d = st->c.d, *pool = buf, *comb = buf + d, *S = buf + 2 * d, m;
	size_t ends[2] = { i, j };

	b->p = -1.0;
	b->n = 0;
	for (int e = 0; e < 2; e++) {
		size_t a = ends[e], other = ends[1 - e];

		m = 0;
		for (size_t t = g->start[a]; t < g->start[a + 1]; t++)
			if (g->adj[t] != other)
				pool[m++] = g->adj[t];
		if (pool_search(ci, i, j, pool, m, cap, st->opt.alpha, comb, S, b, err) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Whether v is among the n members of Z. */
static bool member(const size_t *Z, size_t n, size_t v)
{
	for (size_t t = 0; t < n; t++)
		if (Z[t] == v)
			return true;
	return false;
}

/* Read the pairs of the down message into the client's triples (sorted by i, j, k) and
 * caps; the number of triples, or -1 when the message is malformed. */
static long read_triples(const fedpc_state *st, fedpc_client *cl, const fb_msg *down)
{
	size_t d = st->c.d, w = st->c.w, nb = fedpc_bits_bytes(d), P, T = 0;
	const unsigned char *p = down->b + nb, *end = down->b + down->nb;

	if (down->nb < nb + 4)
		return -1;
	P = fedpc_get_id(&p, 4);
	if ((size_t)(end - p) / w < 4 * P)
		return -1;
	free(cl->tri);
	free(cl->cap);
	cl->tri = fb_xmalloc((3 * ((size_t)(end - p) / w) + 1) * sizeof *cl->tri);
	cl->cap = fb_xmalloc((P + 1) * sizeof *cl->cap);
	for (size_t a = 0; a < P; a++) {
		size_t i, j, m, k;

		if ((size_t)(end - p) < 4 * w)
			return -1;
		i = fedpc_get_id(&p, w);
		j = fedpc_get_id(&p, w);
		cl->cap[a] = fedpc_get_id(&p, w);
		m = fedpc_get_id(&p, w);
		if (i >= j || j >= d || m == 0 || (size_t)(end - p) < m * w)
			return -1;
		for (size_t t = 0; t < m; t++, T++) {
			if ((k = fedpc_get_id(&p, w)) >= d || k == i || k == j)
				return -1;
			cl->tri[3 * T] = i;
			cl->tri[3 * T + 1] = k;
			cl->tri[3 * T + 2] = j;
		}
	}
	return p == end ? (long)T : -1;
}

/* The collider tests of the triples tri[t0..t1) of one pair, given the client's set. */
static int collider_tests(const fedpc_state *st, fb_ci *ci, const size_t *tri, size_t t0,
                          size_t t1, const best_set *b, size_t *S, double *out, fb_error *err)
{
	fb_ci_result r;

	for (size_t t = t0; t < t1; t++) {
		size_t k = tri[3 * t + 1];

		out[2 * t] = out[2 * t + 1] = NAN;
		if (b->p < 0 || member(b->Z, b->n, k))
			continue;
		memcpy(S, b->Z, b->n * sizeof *S);
		S[b->n] = k;
		if (fb_ci_test(ci, tri[3 * t], tri[3 * t + 2], S, b->n + 1, &r, err) != FB_OK)
			return FB_ERR;
		out[2 * t] = r.p;
		out[2 * t + 1] = r.stat;
	}
	return FB_OK;
}

/* With correlations on demand, those FedOrien's searches read, in one pass over the rows:
 * for each end pair (i, j) of the T triples, among i, j and i's neighbours, and among i, j
 * and j's. */
static int orient_prefetch(const fedpc_client *cl, const skel_lists *g, size_t T,
                           fb_error *err)
{
	size_t P = fedpc_pairs_count(cl->tri, T), n = 0, ng = 0, len = 0, *mem, *gs;
	int ret;

	if (!fb_ci_is_lazy(cl->ci))
		return FB_OK;
	for (size_t t = 0; t < T; t++)
		if (t == 0 || cl->tri[3 * t] != cl->tri[3 * t - 3] ||
		    cl->tri[3 * t + 2] != cl->tri[3 * t - 1])
			for (int e = 0; e < 3; e += 2)
				len += 2 + g->start[cl->tri[3 * t + e] + 1] - g->start[cl->tri[3 * t + e]];
	mem = fb_xmalloc((len + 1) * sizeof *mem);
	gs = fb_xmalloc((2 * P + 1) * sizeof *gs);
	for (size_t t = 0; t < T; t++) {
		const size_t *a = cl->tri + 3 * t;

		if (t > 0 && a[0] == a[-3] && a[2] == a[-1])
			continue;
		for (int e = 0; e < 3; e += 2) {
			gs[ng++] = n;
			mem[n++] = a[0];
			mem[n++] = a[2];
			for (size_t u = g->start[a[e]]; u < g->start[a[e] + 1]; u++)
				mem[n++] = g->adj[u];
		}
	}
	gs[ng] = n;
	ret = fedpc_prefetch_groups(cl->ci, mem, gs, ng, err);
	free(mem);
	free(gs);
	return ret;
}

/* Client k, FedOrien: for each end pair its best set, p-value and collider tests. */
int fedpc_orient_client(fedpc_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err)
{
	fedpc_client *cl = &st->clients[k];
	size_t d = st->c.d, w = st->c.w, T, P, pair = 0, cap = 0, used = 0;
	long got = read_triples(st, cl, down);
	fb_ci_stats before, after;
	unsigned char *bytes, *q;
	best_set b;
	skel_lists g;
	double *dd;
	int ret = FB_OK;

	if (got < 0)
		return fb_fail(err, "the triples message is malformed");
	T = (size_t)got;
	P = fedpc_pairs_count(cl->tri, T);
	for (size_t a = 0; a < P; a++)
		cap = cl->cap[a] > cap ? cl->cap[a] : cap;
	cl->buf = fb_xreallocarray(cl->buf, 4 * d, sizeof *cl->buf);
	b.Z = cl->buf + 3 * d;
	g.adj = fedpc_skel_lists(down->b, d, &g.start);
	if (orient_prefetch(cl, &g, T, err) != FB_OK) {
		free(g.start);
		free(g.adj);
		return FB_ERR;
	}
	dd = fb_msg_doubles(up, P + (st->strength ? 2 * T : 0));
	q = bytes = fb_xmalloc(P * ((cap < d ? cap : d) + 1) * w + 1);
	fb_ci_get_stats(cl->ci, &before);
	for (size_t t0 = 0, t1; t0 < T && ret == FB_OK; t0 = t1, pair++) {
		const size_t *a = cl->tri + 3 * t0;

		for (t1 = t0 + 1; t1 < T && cl->tri[3 * t1] == a[0] && cl->tri[3 * t1 + 2] == a[2];)
			t1++;
		ret = pair_search(st, cl->ci, &g, a[0], a[2], cl->cap[pair], cl->buf, &b, err);
		if (ret == FB_OK && st->strength)
			ret = collider_tests(st, cl->ci, cl->tri, t0, t1, &b, cl->buf + 2 * d,
			                     dd + P, err);
		dd[pair] = b.p;
		q = fedpc_put_id(q, w, b.n);
		for (size_t t = 0; t < b.n; t++)
			q = fedpc_put_id(q, w, b.Z[t]);
	}
	fb_ci_get_stats(cl->ci, &after);
	used = (size_t)(q - bytes);
	if (ret == FB_OK) {
		memcpy(fb_msg_bytes(up, used), bytes, used);
		*figure = (double)(after.queries - before.queries);
	}
	free(bytes);
	free(g.start);
	free(g.adj);
	return ret;
}

/* Check client m's reply and note where each pair's set starts in it (off, P entries). */
static int parse_reply(const fedpc_state *st, const fb_msg *up, size_t m, size_t P,
                       const unsigned char **off, fb_error *err)
{
	size_t d = st->c.d, w = st->c.w, nd = P + (st->strength ? 2 * st->ntri : 0);
	const unsigned char *p = up->b, *end = up->b + up->nb;

	if (up->nd != nd)
		return fb_fail(err, "client %zu sent %zu numbers, not %zu", m + 1, up->nd, nd);
	for (size_t a = 0; a < P; a++) {
		size_t n;

		if ((size_t)(end - p) < w)
			return fb_fail(err, "client %zu sent too few sets", m + 1);
		off[a] = p;
		n = fedpc_get_id(&p, w);
		if (n > d || (size_t)(end - p) < n * w)
			return fb_fail(err, "client %zu sent a set that runs past its message",
			               m + 1);
		for (size_t t = 0, last = 0; t < n; t++) {
			size_t v = fedpc_get_id(&p, w);

			if (v >= d || (t > 0 && v <= last))
				return fb_fail(err, "client %zu sent a set out of order or range",
				               m + 1);
			last = v;
		}
	}
	if (p != end)
		return fb_fail(err, "client %zu sent %zu bytes too many", m + 1, (size_t)(end - p));
	return FB_OK;
}

/* Keep, for pair a (ends i, j), the set of the client with the highest p-value. */
static long choose_set(fedpc_state *st, const fb_msg *const *up, size_t k, size_t P, size_t a,
                       size_t i, size_t j, const unsigned char *const *off, size_t *Z)
{
	size_t w = st->c.w, n, kept = 0, pi = fedpc_pair(st->c.d, i, j);
	double best = st->opt.alpha;
	const unsigned char *p;
	long c = -1;

	for (size_t m = 0; m < k; m++)
		if (up[m] != NULL && up[m]->d[a] > best) {
			best = up[m]->d[a];
			c = (long)m;
		}
	if (c < 0)
		return -1;
	p = off[(size_t)c * P + a];
	n = fedpc_get_id(&p, w);
	for (size_t t = 0, v; t < n; t++)
		if ((v = fedpc_get_id(&p, w)) != i && v != j)
			Z[kept++] = v;
	fb_sepsets_set(st->c.seps, i, j, Z, kept);
	fedpc_picks_put(&st->c.picks, pi, best, c);
	return c;
}

/* The collider candidates of the triples, from the chosen sets; counts unresolved ones. */
static size_t orient_cands(fedpc_state *st, const fb_msg *const *up, size_t k, size_t P,
                           const unsigned char *const *off, fedpc_cand *cands)
{
	size_t n = 0, a = 0, *Z = fb_xmalloc((st->c.d + 1) * sizeof *Z);
	long c = -1;

	st->unresolved = 0;
	for (size_t t = 0; t < st->ntri; t++) {
		const size_t *x = st->tri + 3 * t;
		double pv, sv;

		if (t == 0 || x[0] != x[-3] || x[2] != x[-1])
			c = choose_set(st, up, k, P, a++, x[0], x[2], off, Z);
		if (c < 0) {
			st->unresolved++;
			continue;
		}
		if (fb_sepsets_contains(st->c.seps, x[0], x[2], x[1]))
			continue;
		pv = st->strength ? up[c]->d[P + 2 * t] : 0.0;
		sv = st->strength ? up[c]->d[P + 2 * t + 1] : 0.0;
		cands[n++] = (fedpc_cand){ isnan(pv) ? 1.0 : pv, isnan(sv) ? 0.0 : sv, 0,
			                   x[0], x[1], x[2] };
	}
	free(Z);
	return n;
}

/* The collider candidates of the triples kept back: each pair separated by the empty set,
 * so every middle makes one, strongest of all (p 0, no client's test); their count. */
static size_t knowledge_cands(fedpc_state *st, fedpc_cand *cands)
{
	for (size_t t = 0; t < st->nktri; t++) {
		const size_t *x = st->ktri + 3 * t;

		fb_sepsets_set(st->c.seps, x[0], x[2], NULL, 0);
		cands[t] = (fedpc_cand){ 0.0, 0.0, 0, x[0], x[1], x[2] };
	}
	return st->nktri;
}

/* Server, FedOrien: the highest-p set per pair, then colliders and Meek's rules. */
int fedpc_orient_server(fedpc_state *st, const fb_msg *const *up, size_t k, fb_msg *down,
                        fb_error *err)
{
	size_t d = st->c.d, P = fedpc_pairs_count(st->tri, st->ntri), n;
	const unsigned char **off = fb_xcalloc(k * P + 1, sizeof *off);
	fedpc_cand *cands = fb_xmalloc((st->ntri + st->nktri + 1) * sizeof *cands);
	int ret = FB_OK;

	for (size_t m = 0; m < k && ret == FB_OK; m++)
		if (up[m] != NULL)
			ret = parse_reply(st, up[m], m, P, off + m * P, err);
	if (ret == FB_OK) {
		fb_sepsets_free(st->c.seps);
		st->c.seps = fb_sepsets_alloc(d);
		st->c.picks.n = 0;
		n = orient_cands(st, up, k, P, off, cands);
		n += knowledge_cands(st, cands + n);
		fedpc_orient(st->c.graph, cands, n, st->strength, &st->colliders, &st->conflicts,
		             NULL);
		fb_msg_doubles(down, 0);
		fb_msg_bytes(down, 0);
		st->orienting = false;
		st->c.done = true;
	}
	free(off);
	free(cands);
	return ret;
}
