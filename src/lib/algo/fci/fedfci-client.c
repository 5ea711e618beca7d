/* fedfci's clients: one PC level, the possible-d-sep stage or the orientation's tests on the
 * client's own rows (the wire format is in fedfci-int.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedfci-int.h"

/* Client k's tests on its own rows, columns in rank order. */
int fedfci_client_ready(fedfci_state *st, size_t k, const fb_dataset *local, fb_error *err)
{
	fb_dataset *ranked;

	if (st->ci[k] != NULL)
		return FB_OK;
	if (local->d != st->c.d)
		return fb_fail(err, "it holds %zu variables, not %zu", local->d, st->c.d);
	if ((ranked = fedpc_rank_dataset(local)) == NULL)
		return fb_fail(err, "out of memory");
	st->ci[k] = fb_ci_alloc(ranked, &st->opt.ci, err);
	fb_dataset_free(ranked);
	return st->ci[k] != NULL ? FB_OK : FB_ERR;
}

/* Write an entry: a, n, the members. */
unsigned char *fedfci_put_entry(unsigned char *q, size_t w, size_t a, const size_t *S,
                                size_t n)
{
	q = fedpc_put_id(q, w, a);
	q = fedpc_put_id(q, w, n);
	for (size_t t = 0; t < n; t++)
		q = fedpc_put_id(q, w, S[t]);
	return q;
}

/* Read an entry for {i, j}. */
int fedfci_get_entry(const unsigned char **p, const unsigned char *end, size_t w, size_t d,
                     size_t i, size_t j, size_t *a, size_t *S, size_t *n)
{
	if ((size_t)(end - *p) < 2 * w)
		return FB_ERR;
	*a = fedpc_get_id(p, w);
	*n = fedpc_get_id(p, w);
	if ((*a != i && *a != j) || *n > d || (size_t)(end - *p) / w < *n)
		return FB_ERR;
	for (size_t t = 0; t < *n; t++)
		if ((S[t] = fedpc_get_id(p, w)) >= d || S[t] == i || S[t] == j)
			return FB_ERR;
	return FB_OK;
}

/* The PAG of a packed skeleton, every edge o-o. */
fb_pag *fedfci_pag_of_bits(const unsigned char *bits, size_t d)
{
	fb_pag *g = fb_pag_alloc(d);
	size_t p = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++)
			if (fedpc_bit(bits, p))
				fb_pag_set(g, i, j, FB_PAG_CIRCLE, FB_PAG_CIRCLE);
	return g;
}

/* The reply of a client that removed pairs from the skeleton sent (bits) to the skeleton
 * kept (of g): the kept bits, then an entry and a p-value per removed pair, its set read by
 * set(ctx, i, j, &a, S) (returns the size). */
static int reply_removed(fedfci_state *st, fb_ci *ci, const unsigned char *bits,
                         const fb_pag *g, size_t (*set)(const void *, size_t, size_t, size_t *,
                                                        size_t *),
                         const void *ctx, fb_msg *up, fb_error *err)
{
	size_t d = st->c.d, w = st->c.w, nb = fedpc_bits_bytes(d), nrem = 0, p = 0, a, n;
	size_t *S = fb_xmalloc((d + 1) * sizeof *S);
	unsigned char *buf = fb_xcalloc(nb + 1, 1), *q;
	double *pv = NULL;
	fb_ci_result r;
	int ret = FB_OK;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++)
			if (fb_pag_adjacent(g, i, j))
				buf[p >> 3] |= (unsigned char)(1u << (p & 7));
			else if (fedpc_bit(bits, p))
				nrem++;
	buf = fb_xrealloc(buf, nb + nrem * (d + 2) * w + 1);
	pv = fb_xmalloc((nrem + 1) * sizeof *pv);
	q = buf + nb;
	nrem = p = 0;
	for (size_t i = 0; i < d && ret == FB_OK; i++)
		for (size_t j = i + 1; j < d && ret == FB_OK; j++, p++) {
			if (!fedpc_bit(bits, p) || fb_pag_adjacent(g, i, j))
				continue;
			n = set(ctx, i, j, &a, S);
			q = fedfci_put_entry(q, w, a, S, n);
			ret = fb_ci_test(ci, a, a == i ? j : i, S, n, &r, err);
			pv[nrem++] = r.p;
		}
	if (ret == FB_OK) {
		unsigned char *b = fb_msg_bytes(up, (size_t)(q - buf));
		double *dd = fb_msg_doubles(up, nrem);

		if (q > buf)
			memcpy(b, buf, (size_t)(q - buf));
		if (nrem > 0)
			memcpy(dd, pv, nrem * sizeof *pv);
	}
	free(S);
	free(buf);
	free(pv);
	return ret;
}

/* A layer's separating set of {i, j}: PC's (either order, written from i). */
static size_t layer_set(const void *ctx, size_t i, size_t j, size_t *a, size_t *S)
{
	*a = i;
	return fb_sepsets_get(ctx, i, j, S);
}

/* Client k, layer l: one PC level on the server's skeleton. */
static int layer_client(fedfci_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err)
{
	size_t d = st->c.d, nb = fedpc_bits_bytes(d);
	fb_graph *g;
	fb_sepsets *seps;
	fb_pc_level lv;
	fb_pag *kept;
	int ret;

	if (down->nb != nb)
		return fb_fail(err, "the skeleton has %zu bytes, not %zu", down->nb, nb);
	g = fedpc_skel_unpack(down->b, d);
	seps = fb_sepsets_alloc(d);
	ret = fb_pc_skeleton_level(g, st->ci[k], (size_t)down->d[0], &st->opt, seps, &lv, err);
	if (ret == FB_OK) {
		kept = fb_pag_from_graph(g);
		ret = reply_removed(st, st->ci[k], down->b, kept, layer_set, seps, up, err);
		fb_pag_free(kept);
		*figure = (double)lv.tests;
	}
	fb_sepsets_free(seps);
	fb_graph_free(g);
	return ret;
}

/* What a client's possible-d-sep tests read: its tests and the level. */
typedef struct pd_ctx {
	fb_ci *ci;
	double alpha;
} pd_ctx;

/* x _||_ y | S on the client's rows. */
static int pd_test(void *ctx, size_t x, size_t y, const size_t *S, size_t ns, bool *indep,
                   fb_error *err)
{
	pd_ctx *c = ctx;

	return fb_ci_independent(c->ci, x, y, S, ns, c->alpha, indep, err);
}

/* The possible-d-sep stage's set of {i, j}: in the order the stage wrote it. */
static size_t pd_set(const void *ctx, size_t i, size_t j, size_t *a, size_t *S)
{
	const fci_seps *s = ctx;
	size_t x = fci_seps_has(s, i, j) ? i : j, y = x == i ? j : i;

	*a = x;
	memcpy(S, s->set[x * s->d + y], s->n[x * s->d + y] * sizeof *S);
	return s->n[x * s->d + y];
}

/* The server's PAG from a possible-d-sep broadcast; NULL when malformed. */
static fb_pag *read_pag(const fedfci_state *st, const fb_msg *down)
{
	size_t d = st->c.d, nb = fedpc_bits_bytes(d), p = 0, t = nb;
	fb_pag *g;

	if (down->nb < nb)
		return NULL;
	g = fb_pag_alloc(d);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			unsigned m;

			if (!fedpc_bit(down->b, p))
				continue;
			if (t >= down->nb || (m = down->b[t++]) / 4 < 1 || m / 4 > 3 || m % 4 < 1) {
				fb_pag_free(g);
				return NULL;
			}
			fb_pag_set(g, i, j, (enum fb_pag_mark)(m / 4), (enum fb_pag_mark)(m % 4));
		}
	if (t != down->nb) {
		fb_pag_free(g);
		return NULL;
	}
	return g;
}

/* Client k, possible-d-sep: FCI's stage on the server's PAG with the client's tests. */
static int pdsep_client(fedfci_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err)
{
	fb_pag *g = read_pag(st, down);
	pd_ctx ctx = { st->ci[k], st->opt.alpha };
	fci_env env;
	int ret;

	if (g == NULL)
		return fb_fail(err, "the PAG message is malformed");
	env = fci_env_new(fci_seps_alloc(st->c.d), pd_test, &ctx, st->rank, st->c.d);
	env.pdsep_max = st->opt.depth;
	ret = fci_possible_dsep(g, &env, err);
	if (ret == FB_OK)
		ret = reply_removed(st, st->ci[k], down->b, g, pd_set, env.seps, up, err);
	*figure = (double)env.tests;
	free(env.scratch);
	fci_seps_free(env.seps);
	fb_pag_free(g);
	return ret;
}

/* Read a test at *p: x, y, n, the members into S; FB_ERR when malformed. */
static int get_test(const unsigned char **p, const unsigned char *end, size_t w, size_t d,
                    size_t *x, size_t *y, size_t *S, size_t *n)
{
	if ((size_t)(end - *p) < 3 * w)
		return FB_ERR;
	*x = fedpc_get_id(p, w);
	*y = fedpc_get_id(p, w);
	*n = fedpc_get_id(p, w);
	if (*x >= d || *y >= d || *x == *y || *n > d || (size_t)(end - *p) / w < *n)
		return FB_ERR;
	for (size_t t = 0; t < *n; t++)
		if ((S[t] = fedpc_get_id(p, w)) >= d || S[t] == *x || S[t] == *y)
			return FB_ERR;
	return FB_OK;
}

/* Client k, tests: each of the server's tests on the client's rows. */
static int tests_client(fedfci_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err)
{
	size_t d = st->c.d, w = st->c.w, Q, *S = fb_xmalloc((d + 1) * sizeof *S);
	const unsigned char *p = down->b, *end = down->b + down->nb;
	unsigned char *out;
	int ret = FB_OK;

	if (down->nb < 4 || (Q = fedpc_get_id(&p, 4)) > (size_t)(end - p)) {
		free(S);
		return fb_fail(err, "the tests message is malformed");
	}
	out = fb_msg_bytes(up, Q);
	for (size_t t = 0; t < Q && ret == FB_OK; t++) {
		size_t x, y, n;
		bool indep;

		if (get_test(&p, end, w, d, &x, &y, S, &n) != FB_OK) {
			ret = fb_fail(err, "the tests message is malformed");
			break;
		}
		ret = fb_ci_independent(st->ci[k], x, y, S, n, st->opt.alpha, &indep, err);
		out[t] = indep;
	}
	if (ret == FB_OK && p != end)
		ret = fb_fail(err, "the tests message is malformed");
	fb_msg_doubles(up, 0);
	*figure = (double)Q;
	free(S);
	return ret;
}

/* Client k's half: the round the message names. */
int fedfci_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                  fb_msg *up, double *figure, fb_error *err)
{
	fedfci_state *st = state;

	if (down->nd < 1)
		return fb_fail(err, "the server's message has no phase");
	if (fedfci_client_ready(st, k, local, err) != FB_OK)
		return FB_ERR;
	if (down->d[0] == FEDFCI_PDSEP)
		return pdsep_client(st, k, down, up, figure, err);
	if (down->d[0] == FEDFCI_TESTS)
		return tests_client(st, k, down, up, figure, err);
	if (down->d[0] < 0)
		return fb_fail(err, "the server's message names no phase");
	return layer_client(st, k, down, up, figure, err);
}
