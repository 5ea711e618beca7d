/* fedpc: FedPC (Huang, Guo, Yu et al.) over a horizontal split, one communication round per
 * FedSkele layer and one for FedOrien.
 *
 * FedSkele, layer l: the server broadcasts its skeleton (one bit per pair of variable
 * ranks); every client runs one PC level l on its own rows from that skeleton and sends its
 * skeleton back in the same form; the server keeps an edge when enough clients kept it
 * (fedpc_min_votes).  Layers go on while some variable has |ne| - 1 >= l + 1 in the server's
 * skeleton (and l + 1 <= depth when depth >= 0).  FedOrien is in fedpc-orient.c.
 *
 * Variables travel as ranks of their sorted names: each client sorts its own names, so the
 * server never sees a name.  The run (not the server) maps ranks back to the data's order for
 * whoever reads the result. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/ci-lazy.h"
#include "fedbn/fedpc.h"
#include "fedpc-int.h"

/* Variables per side of a block of level 0's correlations on demand. */
#define FEDPC_BLOCK 512
/* corr=auto computes correlations on demand when the clients' matrices together would take
 * more than this many bytes. */
#define FEDPC_MATRIX_BYTES ((double)(1u << 30))

/* The values of corr=. */
enum { FEDPC_CORR_AUTO, FEDPC_CORR_MATRIX, FEDPC_CORR_DEMAND };

/* The names of corr='s values. */
static const fb_choice fedpc_corrs[] = {
	{ "auto", FEDPC_CORR_AUTO }, { "matrix", FEDPC_CORR_MATRIX },
	{ "demand", FEDPC_CORR_DEMAND }, { 0 },
};

/* Client k's test object with correlations on demand over its rows (columns read in rank
 * order through the ranks, no copy). */
static fb_ci *client_lazy(const fedpc_state *st, const fb_dataset *local, fb_error *err)
{
	size_t *col_of = malloc(local->d * sizeof *col_of);
	fb_ci *ci;

	if (col_of == NULL) {
		fb_fail(err, "out of memory");
		return NULL;
	}
	fedpc_ranks(local, col_of);
	ci = fb_ci_alloc_lazy(local, col_of, &st->opt.ci, err);
	free(col_of);
	return ci;
}

/* An item a client left in pool p, or NULL. */
static void *pool_take(fedpc_state *st, fedpc_pool *p)
{
	void *item = NULL;

	pthread_mutex_lock(&st->pool_lock);
	if (p->n > 0)
		item = p->item[--p->n];
	pthread_mutex_unlock(&st->pool_lock);
	return item;
}

/* Leave item in pool p for the next client (as many as clients ran at once). */
static void pool_give(fedpc_state *st, fedpc_pool *p, void *item)
{
	pthread_mutex_lock(&st->pool_lock);
	p->item = fb_xreallocarray(p->item, p->n + 1, sizeof *p->item);
	p->item[p->n++] = item;
	pthread_mutex_unlock(&st->pool_lock);
}

/* Free a pool's scratches (no client is running). */
static void scratches_drop(fedpc_pool *p)
{
	for (size_t m = 0; m < p->n; m++) {
		fb_ci_scratch_release(p->item[m]);
		free(p->item[m]);
	}
	free(p->item);
	*p = (fedpc_pool){ 0 };
}

/* Free a pool's cache spares (no client is running). */
static void spares_drop(fedpc_pool *p)
{
	for (size_t m = 0; m < p->n; m++)
		fb_ci_spare_free(p->item[m]);
	free(p->item);
	*p = (fedpc_pool){ 0 };
}

/* Client k's Fisher-z object over its own rows read in rank order: no reordered copy, and
 * the centred copy of the rows in a scratch the clients run one after another pass on (the
 * last of this process's clients to build frees it). */
static fb_ci *client_fisher(fedpc_state *st, const fb_dataset *local, fb_error *err)
{
	size_t *col_of = fb_xmalloc(local->d * sizeof *col_of);
	fb_ci_scratch *sc = pool_take(st, &st->scratches);
	fb_ci *ci;
	bool last;

	if (sc == NULL)
		sc = fb_xcalloc(1, sizeof *sc);
	fedpc_ranks(local, col_of);
	ci = fb_ci_alloc_cols(local, col_of, &st->opt.ci, sc, err);
	pthread_mutex_lock(&st->pool_lock);
	last = st->unbuilt == 0 || --st->unbuilt == 0;
	pthread_mutex_unlock(&st->pool_lock);
	if (last) { /* no client of this process builds after it */
		fb_ci_scratch_release(sc);
		free(sc);
	} else {
		pool_give(st, &st->scratches, sc);
	}
	free(col_of);
	return ci;
}

/* Client k's tests on its own rows, columns in rank order. */
int fedpc_client_ready(fedpc_state *st, size_t k, const fb_dataset *local, fb_error *err)
{
	fedpc_client *cl = &st->clients[k];
	fb_dataset *ranked;

	if (cl->ci != NULL)
		return fb_ci_is_lazy(cl->ci) ? fb_ci_lazy_bind(cl->ci, local, err) : FB_OK;
	if (local->d != st->c.d)
		return fb_fail(err, "it holds %zu variables, not %zu", local->d, st->c.d);
	if (st->lazy) {
		cl->ci = client_lazy(st, local, err);
		return cl->ci != NULL ? FB_OK : FB_ERR;
	}
	if (st->opt.ci.test == FB_CI_FISHER_Z) {
		cl->ci = client_fisher(st, local, err);
		return cl->ci != NULL ? FB_OK : FB_ERR;
	}
	if ((ranked = fedpc_rank_dataset(local)) == NULL)
		return fb_fail(err, "out of memory");
	cl->ci = fb_ci_alloc(ranked, &st->opt.ci, err);
	fb_dataset_free(ranked);
	return cl->ci != NULL ? FB_OK : FB_ERR;
}

/* Level 0 of PC straight on the packed skeleton, without a d x d graph: each pair still
 * joined is tested given the empty set and its bit cleared at independence; a kept pair is
 * asked again from its second end, as PC's level does (the same counters).  The tests asked
 * go to *tests. */
static int skele_layer0(fb_ci *ci, size_t d, double alpha, unsigned char *bits,
                        size_t *tests, fb_error *err)
{
	fb_ci_stats before, after;
	size_t p = 0;
	bool indep;

	fb_ci_get_stats(ci, &before);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			if (!fedpc_bit(bits, p))
				continue;
			if (fb_ci_independent(ci, i, j, NULL, 0, alpha, &indep, err) != FB_OK)
				return FB_ERR;
			if (indep)
				bits[p >> 3] &= (unsigned char)~(1u << (p & 7));
			else if (fb_ci_independent(ci, j, i, NULL, 0, alpha, &indep, err) != FB_OK)
				return FB_ERR;
		}
	fb_ci_get_stats(ci, &after);
	*tests = after.queries - before.queries;
	return FB_OK;
}

/* Test the joined pairs of the block [i0, i1) x [j0, j1) (j0 >= i0) given the empty set from
 * their correlations r, as skele_layer0 tests them: a removed pair counts one test, a kept
 * one two (asked from both ends). */
static void layer0_block(fb_ci *ci, size_t d, double alpha, unsigned char *bits,
                         const double *r, size_t i0, size_t i1, size_t j0, size_t j1,
                         size_t *tests)
{
	for (size_t i = i0; i < i1; i++)
		for (size_t j = j0 > i + 1 ? j0 : i + 1; j < j1; j++) {
			size_t p = fedpc_pair(d, i, j);

			if (!fedpc_bit(bits, p))
				continue;
			if (fb_ci_lazy_indep0(ci, r[(i - i0) * (j1 - j0) + j - j0], alpha)) {
				bits[p >> 3] &= (unsigned char)~(1u << (p & 7));
				*tests += 1;
			} else {
				*tests += 2;
			}
		}
}

/* Level 0 on correlations on demand: the correlations come a block of FEDPC_BLOCK x
 * FEDPC_BLOCK variables at a time (one BLAS product each), none kept after its block. */
static int skele_layer0_blocks(fb_ci *ci, size_t d, double alpha, unsigned char *bits,
                               size_t *tests, fb_error *err)
{
	double *r = malloc(FEDPC_BLOCK * FEDPC_BLOCK * sizeof *r);

	*tests = 0;
	if (r == NULL)
		return fb_fail(err, "out of memory for a block of correlations");
	for (size_t i0 = 0; i0 < d; i0 += FEDPC_BLOCK) {
		size_t i1 = i0 + FEDPC_BLOCK < d ? i0 + FEDPC_BLOCK : d;

		for (size_t j0 = i0; j0 < d; j0 += FEDPC_BLOCK) {
			size_t j1 = j0 + FEDPC_BLOCK < d ? j0 + FEDPC_BLOCK : d;

			if (fb_ci_lazy_block(ci, i0, i1, j0, j1, r, err) != FB_OK) {
				free(r);
				return FB_ERR;
			}
			layer0_block(ci, d, alpha, bits, r, i0, i1, j0, j1, tests);
		}
	}
	fb_ci_lazy_blocks_done(ci);
	free(r);
	return FB_OK;
}

/* Order pairs (two variables each) by first, then second variable. */
static int pair_cmp(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* With correlations on demand, compute in one pass over the client's rows the correlations
 * of every pair within each of the ng groups of variables (group g: mem[gs[g] .. gs[g + 1]),
 * distinct), each pair once. */
int fedpc_prefetch_groups(fb_ci *ci, const size_t *mem, const size_t *gs, size_t ng,
                          fb_error *err)
{
	size_t cap = 0, np = 0, u = 0, *pairs;
	int ret;

	if (!fb_ci_is_lazy(ci))
		return FB_OK;
	for (size_t g = 0; g < ng; g++)
		cap += (gs[g + 1] - gs[g]) * (gs[g + 1] - gs[g]) / 2;
	pairs = fb_xmalloc((cap > 0 ? cap : 1) * 2 * sizeof *pairs);
	for (size_t g = 0; g < ng; g++)
		for (size_t a = gs[g]; a < gs[g + 1]; a++)
			for (size_t b = a + 1; b < gs[g + 1]; b++, np++) {
				pairs[2 * np] = mem[a] < mem[b] ? mem[a] : mem[b];
				pairs[2 * np + 1] = mem[a] < mem[b] ? mem[b] : mem[a];
			}
	qsort(pairs, np, 2 * sizeof *pairs, pair_cmp);
	for (size_t q = 0; q < np; q++)
		if (q == 0 || pair_cmp(pairs + 2 * q, pairs + 2 * (u - 1)) != 0) {
			pairs[2 * u] = pairs[2 * q];
			pairs[2 * u++ + 1] = pairs[2 * q + 1];
		}
	ret = fb_ci_lazy_prefetch(ci, pairs, u, err);
	free(pairs);
	return ret;
}

/* Before a level on correlations on demand: the correlations among each variable and its
 * neighbours in the skeleton bits (the tests of x - y given S, S among x's neighbours, read
 * no other). */
static int skele_prefetch(fb_ci *ci, const unsigned char *bits, size_t d, fb_error *err)
{
	size_t *start, *adj = fedpc_skel_lists(bits, d, &start);
	size_t *mem = fb_xmalloc((start[d] + d + 1) * sizeof *mem);
	size_t *gs = fb_xmalloc((d + 1) * sizeof *gs), n = 0;
	int ret;

	for (size_t x = 0; x < d; x++) {
		gs[x] = n;
		mem[n++] = x;
		for (size_t a = start[x]; a < start[x + 1]; a++)
			mem[n++] = adj[a];
	}
	gs[d] = n;
	ret = fedpc_prefetch_groups(ci, mem, gs, d, err);
	free(mem);
	free(gs);
	free(adj);
	free(start);
	return ret;
}

/* A d x d graph for a client's level: one a client left in the pool, or a new one. */
static fb_graph *skel_take(fedpc_state *st)
{
	fb_graph *g = pool_take(st, &st->graphs);

	return g != NULL ? g : fb_graph_alloc(st->c.d);
}

/* Lend ci a cache's memory for a level: one a client left in the pool, or a new one (ci's
 * own, empty, kept in the spare till skele_unlend); NULL when out of memory (ci keeps its
 * own cache). */
static fb_ci_spare *skele_lend(fedpc_state *st, fb_ci *ci)
{
	fb_ci_spare *sp = pool_take(st, &st->spares);

	if (sp == NULL && (sp = fb_ci_spare_alloc()) == NULL)
		return NULL;
	fb_ci_cache_swap(ci, sp);
	return sp;
}

/* Take back the memory skele_lend lent ci (its answers forgotten) and leave it in the pool
 * for the next client's level. */
static void skele_unlend(fedpc_state *st, fb_ci *ci, fb_ci_spare *sp)
{
	if (sp == NULL)
		return;
	fb_ci_cache_swap(ci, sp);
	pool_give(st, &st->spares, sp);
}

/* Client k, FedSkele: one PC level on the server's skeleton; send the skeleton back. */
static int skele_client(fedpc_state *st, size_t k, const fb_msg *down, fb_msg *up,
                        double *figure, fb_error *err)
{
	size_t d = st->c.d, nb = fedpc_bits_bytes(d), tests = 0;
	fb_ci *ci = st->clients[k].ci;
	/* Fisher-z given the empty set is one correlation: cheaper than its cache look-up */
	bool layer0_fast = down->nd >= 1 && down->d[0] == 0 &&
	                   fb_ci_kind(ci) == FB_CI_FISHER_Z &&
	                   st->opt.compat != FB_PC_COMPAT_CAUSAL_LEARN;
	fb_pc_level lv;
	fb_ci_spare *sp;
	fb_graph *g;
	int ret;

	if (down->nb != nb)
		return fb_fail(err, "the skeleton has %zu bytes, not %zu", down->nb, nb);
	if (layer0_fast) {
		fb_ci_cache_set(ci, false);
		memcpy(fb_msg_bytes(up, nb), down->b, nb);
		fedpc_skel_knowledge(&st->c, up->b);
		if (fb_ci_is_lazy(ci))
			ret = skele_layer0_blocks(ci, d, st->opt.alpha, up->b, &tests, err);
		else
			ret = skele_layer0(ci, d, st->opt.alpha, up->b, &tests, err);
		fb_ci_cache_set(ci, true);
		fb_msg_doubles(up, 0);
		*figure = (double)tests;
		if (ret == FB_OK && st->secure)
			fedpc_votes_vector(down->b, up->b, d, up);
		return ret;
	}
	if (fb_ci_is_lazy(ci) && skele_prefetch(ci, down->b, d, err) != FB_OK)
		return FB_ERR;
	g = skel_take(st);
	sp = fb_ci_is_lazy(ci) ? NULL : skele_lend(st, ci);
	fedpc_skel_load(g, down->b);
	for (size_t i = 0; st->c.know != NULL && i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (fb_knowledge_forbids_pair(st->c.know, i, j))
				fb_graph_remove(g, i, j);
	ret = fb_pc_skeleton_level(g, ci, (size_t)down->d[0], &st->opt, NULL, &lv, err);
	if (ret == FB_OK) {
		fedpc_skel_pack(g, fb_msg_bytes(up, nb));
		fb_msg_doubles(up, 0);
		*figure = (double)lv.tests;
		if (st->secure)
			fedpc_votes_vector(down->b, up->b, d, up);
	}
	/* a layer's answers are never asked for by a later layer (it asks larger sets), and
	 * FedOrien asks again only for the end pairs of unshielded triples: those few are
	 * computed anew (the same bits) rather than all kept.  The memory that held them goes
	 * to the next client's level (the clients on one thread fill the same pages); with
	 * correlations on demand (thousands of variables) the answers go with their memory */
	if (fb_ci_is_lazy(ci))
		fb_ci_cache_clear(ci);
	skele_unlend(st, ci, sp);
	/* the next layer asks fewer correlations (its skeleton is smaller) and computes them
	 * in one pass: meanwhile the clients keep none */
	fb_ci_lazy_forget(ci);
	pool_give(st, &st->graphs, g);
	return ret;
}

/* Client k: the layer the message names (d[0] >= 0), or FedOrien (d[0] < 0; under
 * secure=yes its rounds of sums, fedpc-secure.c). */
int fedpc_client_half(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	fedpc_state *st = state;
	int ret;

	if (down->nd < 1)
		return fb_fail(err, "the server's message has no phase");
	if (fedpc_client_ready(st, k, local, err) != FB_OK)
		return FB_ERR;
	if (down->d[0] >= 0)
		return skele_client(st, k, down, up, figure, err);
	if (st->secure)
		ret = fedpc_orient_client_sum(st, k, down, up, figure, err);
	else
		ret = fedpc_orient_client(st, k, down, up, figure, err);
	fb_ci_lazy_forget(st->clients[k].ci); /* FedOrien's correlations: none kept after */
	return ret;
}

/* Count, per pair, the heard clients whose reply (its first fedpc_bits_bytes(d) bytes; tail:
 * more may follow) keeps a pair the server sent, into votes. */
int fedpc_count_votes(uint32_t *votes, size_t d, const unsigned char *sent,
                      const fb_msg *const *up, size_t k, bool tail, size_t *heard, fb_error *err)
{
	size_t nb = fedpc_bits_bytes(d);

	memset(votes, 0, fedpc_npairs(d) * sizeof *votes);
	*heard = 0;
	for (size_t m = 0; m < k; m++) {
		if (up[m] == NULL)
			continue;
		if (tail ? up[m]->nb < nb : up[m]->nb != nb)
			return fb_fail(err, "client %zu sent %zu bytes, not %s%zu", m + 1,
			               up[m]->nb, tail ? "at least " : "", nb);
		(*heard)++;
		for (size_t b = 0; b < nb; b++) {
			unsigned x = sent[b] & up[m]->b[b];

			for (unsigned t = 0; x != 0; t++, x >>= 1)
				votes[8 * b + t] += x & 1;
		}
	}
	return *heard > 0 ? FB_OK : fb_fail(err, "no client answered");
}

/* Note that layer's vote removed pair p (layers >= 1 only). */
static void removals_add(fedpc_removals *rm, size_t p, size_t layer)
{
	if (layer == 0)
		return;
	if (rm->n == rm->cap) {
		rm->cap = rm->cap ? 2 * rm->cap : 256;
		rm->at = fb_xreallocarray(rm->at, rm->cap, sizeof *rm->at);
	}
	rm->sorted = rm->sorted && (rm->n == 0 || rm->at[rm->n - 1].pair < p);
	rm->at[rm->n++] = (fedpc_removal){ p, layer };
}

/* Order removals by pair (each pair is removed once: no ties). */
static int removal_cmp(const void *a, const void *b)
{
	uint64_t x = ((const fedpc_removal *)a)->pair, y = ((const fedpc_removal *)b)->pair;

	return x < y ? -1 : x > y;
}

/* The layer whose vote removed pair p. */
uint32_t fedpc_removed_layer(fedpc_removals *rm, size_t p)
{
	size_t lo = 0, hi = rm->n;

	if (!rm->sorted && rm->n > 0)
		qsort(rm->at, rm->n, sizeof *rm->at, removal_cmp);
	rm->sorted = true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rm->at[mid].pair == p)
			return (uint32_t)rm->at[mid].layer;
		if (rm->at[mid].pair < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Free the list. */
void fedpc_removals_release(fedpc_removals *rm)
{
	free(rm->at);
	*rm = (fedpc_removals){ 0 };
}

/* Clear from sent the pairs with fewer than need votes, noting layer in removed_at (when not
 * NULL) or rm (when not NULL); how many it cleared (*kept: how many stay). */
static size_t vote_keep(unsigned char *sent, const uint32_t *votes, size_t d, size_t need,
                        uint32_t *removed_at, fedpc_removals *rm, size_t layer, size_t *kept)
{
	size_t before = 0, after = 0;

	for (size_t p = 0, np = fedpc_npairs(d); p < np; p++) {
		bool had, keep;

		if ((p & 7) == 0 && sent[p >> 3] == 0) { /* none of the byte's 8 pairs was sent */
			p += 7;
			continue;
		}
		had = fedpc_bit(sent, p);
		keep = had && votes[p] >= need;

		before += had;
		after += keep;
		if (had && !keep) {
			sent[p >> 3] &= (unsigned char)~(1u << (p & 7));
			if (removed_at != NULL)
				removed_at[p] = (uint32_t)layer;
			if (rm != NULL)
				removals_add(rm, p, layer);
		}
	}
	if (kept != NULL)
		*kept = after;
	return before - after;
}

/* Clear the pairs with too few votes, noting layer in removed_at. */
size_t fedpc_vote_keep(unsigned char *sent, const uint32_t *votes, size_t d, size_t need,
                       uint32_t *removed_at, size_t layer, size_t *kept)
{
	return vote_keep(sent, votes, d, need, removed_at, NULL, layer, kept);
}

/* Clear the pairs with too few votes, noting layer in the list rm. */
size_t fedpc_vote_keep_list(unsigned char *sent, const uint32_t *votes, size_t d, size_t need,
                            fedpc_removals *rm, size_t layer, size_t *kept)
{
	return vote_keep(sent, votes, d, need, NULL, rm, layer, kept);
}

/* Server, FedSkele: keep the pairs with enough votes; broadcast the next layer or FedOrien. */
static int skele_server(fedpc_state *st, const fb_msg *const *up, size_t k, fb_msg *down,
                        fb_error *err)
{
	size_t heard;

	if (fedpc_count_votes(st->c.votes, st->c.d, st->sent, up, k, false, &heard, err) != FB_OK)
		return FB_ERR;
	fedpc_skele_next(st, heard, down);
	return FB_OK;
}

/* The server after a layer's count: keep the pairs with enough votes of the heard clients;
 * broadcast the next layer or FedOrien. */
void fedpc_skele_next(fedpc_state *st, size_t heard, fb_msg *down)
{
	size_t d = st->c.d, nb = fedpc_bits_bytes(d), need;

	scratches_drop(&st->scratches); /* the clients' correlations are built */
	need = fedpc_common_need(&st->c, st->share, st->code_rule, heard);
	st->removed = fedpc_vote_keep_list(st->sent, st->c.votes, d, need, &st->gone, st->layer,
	                                   &st->nsent);
	fb_graph_free(st->c.graph);
	st->c.graph = fedpc_skel_unpack(st->sent, d);
	st->last_layer = st->layer++;
	if ((st->opt.depth < 0 || st->layer <= (size_t)st->opt.depth) &&
	    fb_pc_level_possible(st->c.graph, st->layer)) {
		fb_msg_doubles(down, 1)[0] = (double)st->layer;
		memcpy(fb_msg_bytes(down, nb), st->sent, nb);
	} else {
		st->orienting = true;
		spares_drop(&st->spares); /* no client's level runs again */
		fedpc_orient_broadcast(st, down);
	}
}

/* Server: FedSkele's vote or FedOrien's choice, as the round was. */
static int fedpc_server_half(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                             fb_error *err)
{
	fedpc_state *st = state;

	if (st->orienting)
		return fedpc_orient_server(st, up, k, down, err);
	return skele_server(st, up, k, down, err);
}

/* The two halves. */
static const fb_fed_ops fedpc_ops = { .client = fedpc_client_half,
	                               .server = fedpc_server_half };

/* Check alpha and the data, and settle the test the clients will all use. */
int fedpc_check(const fb_run *run, fb_pc_options *o, fb_error *err)
{
	if (!(o->alpha > 0.0 && o->alpha < 1.0))
		return fb_fail(err, "alpha must lie strictly between 0 and 1, not %g", o->alpha);
	if (run->data->d < 2)
		return fb_fail(err, "%s needs at least two variables", run->algo->name);
	if (o->ci.test == FB_CI_AUTO && fb_ci_test_for(run->data, &o->ci.test, err) != FB_OK)
		return FB_ERR;
	return FB_OK;
}

/* Free the state. */
static void fedpc_destroy(fb_run *run)
{
	fedpc_state *st = run->state;

	for (size_t m = 0; st->clients != NULL && m < st->c.k; m++) {
		fb_ci_free(st->clients[m].ci);
		free(st->clients[m].tri);
		free(st->clients[m].cap);
		free(st->clients[m].buf);
		fb_msg_release(&st->clients[m].best);
	}
	free(st->maxkey);
	free(st->clients);
	free(st->sent);
	fedpc_removals_release(&st->gone);
	free(st->tri);
	free(st->ktri);
	for (size_t m = 0; m < st->graphs.n; m++)
		fb_graph_free(st->graphs.item[m]);
	free(st->graphs.item);
	scratches_drop(&st->scratches);
	spares_drop(&st->spares);
	pthread_mutex_destroy(&st->pool_lock);
	fedpc_common_release(&st->c);
	free(st);
	run->state = NULL;
}

/* Whether the clients compute their correlations on demand: corr=demand, or corr=auto when
 * their K packed matrices would pass FEDPC_MATRIX_BYTES; only for Fisher-z with the level 0
 * that tests the packed skeleton straight (not compat=causal-learn). */
static bool fedpc_lazy_wanted(const fb_run *run, const fb_pc_options *o, size_t clients)
{
	int corr = fb_params_choice(&run->params, "corr");
	double d = (double)run->data->d, k = (double)clients;

	if (o->ci.test != FB_CI_FISHER_Z || o->compat == FB_PC_COMPAT_CAUSAL_LEARN ||
	    corr == FEDPC_CORR_MATRIX)
		return false;
	return corr == FEDPC_CORR_DEMAND || k * d * (d + 1) / 2 * 8 > FEDPC_MATRIX_BYTES;
}

/* Build the state and the opening broadcast: layer 0 on the complete skeleton; on failure
 * nothing is left. */
static int fedpc_create(fb_run *run, fb_error *err)
{
	fedpc_state *st = fb_xcalloc(1, sizeof *st);
	size_t d = run->data->d, nb, np;

	pthread_mutex_init(&st->pool_lock, NULL);
	run->state = st;
	fedpc_common_init(&st->c, run);
	fb_pc_options_from_params(&run->params, &st->opt);
	if (fedpc_check(run, &st->opt, err) != FB_OK || fedpc_secure_check(run, err) != FB_OK) {
		fedpc_destroy(run);
		return FB_ERR;
	}
	st->share = fb_params_double(&run->params, "vote");
	st->code_rule = fb_params_choice(&run->params, "vote_rule") == FB_FEDPC_VOTE_CODE;
	st->strength = st->opt.colliders == FB_PC_COLLIDERS_STRENGTH;
	st->c.extend = fb_params_bool(&run->params, "extend");
	st->clients = fb_xcalloc(st->c.k, sizeof *st->clients);
	for (size_t m = 0; m < st->c.k; m++)
		st->unbuilt += fb_fed_local(run->fed, m);
	np = fedpc_npairs(d);
	nb = fedpc_bits_bytes(d);
	st->c.votes = fb_xcalloc(np > 0 ? np : 1, sizeof *st->c.votes);
	st->sent = fb_xcalloc(nb > 0 ? nb : 1, 1);
	for (size_t p = 0; p < np; p++)
		st->sent[p >> 3] |= (unsigned char)(1u << (p & 7));
	fedpc_skel_knowledge(&st->c, st->sent);
	for (size_t p = 0; p < np; p++)
		st->nsent += fedpc_bit(st->sent, p);
	st->secure = run->fedopt.secure;
	st->lazy = fedpc_lazy_wanted(run, &st->opt, st->c.k);
	st->dp = run->fedopt.dp_epsilon > 0;
	fb_msg_doubles(fb_fed_broadcast(run->fed), 1)[0] = 0.0;
	memcpy(fb_msg_bytes(fb_fed_broadcast(run->fed), nb), st->sent, nb);
	return FB_OK;
}

/* The round in words: the vote of a layer, or FedOrien's choice of sets. */
static void fedpc_say(fb_run *run, const fedpc_state *st, bool orient, size_t layer)
{
	size_t after = fb_graph_n_edges(st->c.graph);

	if (orient && st->dp)
		fb_run_say(run, "clients sent noisy votes on whether they separated the ends of %zu "
		           "unshielded triple%s and left the middle out; the server oriented %zu "
		           "collider%s a majority voted for (%zu conflict%s skipped)", st->ntri,
		           st->ntri == 1 ? "" : "s", st->colliders, st->colliders == 1 ? "" : "s",
		           st->conflicts, st->conflicts == 1 ? "" : "s");
	else if (orient)
		fb_run_say(run, "clients sent their best separating set for the ends of %zu "
		           "unshielded triple%s; the server kept the highest-p set of each pair and "
		           "oriented %zu collider%s (%zu conflict%s skipped)", st->ntri,
		           st->ntri == 1 ? "" : "s", st->colliders, st->colliders == 1 ? "" : "s",
		           st->conflicts, st->conflicts == 1 ? "" : "s");
	else
		fb_run_say(run, "layer %zu: clients voted on %zu edge%s; the server kept %zu that at "
		           "least %zu of %zu clients kept", layer, after + st->removed,
		           after + st->removed == 1 ? "" : "s", after, st->c.need, st->c.heard);
}

/* One round: a FedSkele layer, or FedOrien. */
static int fedpc_step(fb_run *run, double *fig, fb_error *err)
{
	fedpc_state *st = run->state;
	bool orient = st->orienting;
	size_t layer = st->layer;
	double tests = 0;

	if (fb_fed_round(run->fed, st->secure ? &fedpc_sum_ops : &fedpc_ops, st, err) != FB_OK)
		return FB_ERR;
	while (orient && st->secure && !st->c.done) /* FedOrien's comparisons through sums */
		if (fb_fed_round(run->fed, &fedpc_sum_ops, st, err) != FB_OK)
			return FB_ERR;
	for (size_t m = 0; m < st->c.k; m++)
		if (fb_fed_took_part(run->fed, m))
			tests += fb_fed_client_figure(run->fed, m);
	fig[0] = orient ? -1.0 : (double)layer;
	fig[1] = (double)fb_graph_n_edges(st->c.graph);
	fig[2] = orient ? 0.0 : (double)st->removed;
	fig[3] = tests;
	fig[4] = orient ? (double)st->ntri : 0.0;
	fig[5] = orient ? (double)st->unresolved : 0.0;
	fig[6] = orient ? (double)st->colliders : 0.0;
	fig[7] = orient ? (double)st->conflicts : 0.0;
	fedpc_say(run, st, orient, layer);
	return FB_OK;
}

/* Finished after FedOrien. */
static bool fedpc_done(const fb_run *run)
{
	return ((const fedpc_state *)run->state)->c.done;
}

/* The skeleton so far, then the CPDAG (or its DAG extension). */
static fb_graph *fedpc_result(const fb_run *run, fb_error *err)
{
	return fedpc_common_result(run->state, run->name, err);
}

/* What the result is. */
static const char *fedpc_note(const fb_run *run)
{
	const fedpc_state *st = run->state;

	if (st->c.extend)
		return "the CPDAG extended to a DAG (Dor and Tarsi), as the FedPC paper scores it";
	return "the result is a CPDAG (undirected edges where the data cannot tell the "
	       "direction; SHD counts an undirected estimate over a true edge as correct)";
}

/* The run's common state when it is one of the FedPC family, else NULL. */
static const fedpc_common *family(const fb_run *run)
{
	if (run == NULL || run->state == NULL ||
	    (run->algo != &fb_algo_fedpc && run->algo != &fb_algo_fedpc_simple1 &&
	     run->algo != &fb_algo_fedpc_simple2))
		return NULL;
	return run->state;
}

/* Votes of a pair. */
long fb_fedpc_votes(const fb_run *run, size_t i, size_t j)
{
	const fedpc_common *c = family(run);
	size_t a, b;

	if (c == NULL || c->votes == NULL || c->graph == NULL || i >= c->d || j >= c->d ||
	    i == j)
		return -1;
	a = c->rank_of[i];
	b = c->rank_of[j];
	return (long)(c->directed ? c->votes[a * c->d + b] : c->votes[fedpc_pair(c->d, a, b)]);
}

/* The threshold of the server's last count. */
int fb_fedpc_threshold(const fb_run *run, fb_fedpc_vote *v)
{
	const fedpc_common *c = family(run);

	if (c == NULL || c->need == 0)
		return FB_ERR;
	v->need = c->need;
	v->heard = c->heard;
	v->share = c->share;
	v->rule = c->code_rule ? "code" : "paper";
	return FB_OK;
}

/* The separating set chosen for a pair. */
long fb_fedpc_sepset(const fb_run *run, size_t i, size_t j, size_t *out, double *p,
                     long *client)
{
	const fedpc_common *c = family(run);
	size_t n, pi;

	if (c == NULL || c->seps == NULL || i >= c->d || j >= c->d || i == j ||
	    !fb_sepsets_has(c->seps, c->rank_of[i], c->rank_of[j]))
		return -1;
	n = fb_sepsets_get(c->seps, c->rank_of[i], c->rank_of[j], out);
	for (size_t t = 0; t < n; t++)
		out[t] = c->global_of[out[t]];
	for (size_t t = 1; t < n; t++) /* back to increasing order in the data's numbering */
		for (size_t u = t; u > 0 && out[u - 1] > out[u]; u--) {
			size_t x = out[u];

			out[u] = out[u - 1];
			out[u - 1] = x;
		}
	pi = fedpc_pair(c->d, c->rank_of[i], c->rank_of[j]);
	fedpc_picks_get(&c->picks, pi, p, client);
	return (long)n;
}

/* The names of vote_rule's values (shared by the family's tables). */
const fb_choice fb_fedpc_vote_rules[] = {
	{ "paper", FB_FEDPC_VOTE_PAPER }, { "code", FB_FEDPC_VOTE_CODE }, { 0 },
};

/* Parameters shared with the pc learner, then FedPC's own. */
static const fb_param_def fedpc_params[] = {
	FEDPC_TEST_PARAMS,
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL,
	  "last FedSkele layer (-1: until no variable has enough neighbours; 3: the code's)" },
	{ "colliders", FB_PARAM_CHOICE, "strength", 0, 0, fb_pc_colliders,
	  "orient colliders by increasing p of their test on the client whose set was chosen, "
	  "or by index order" },
	FEDPC_VOTE_PARAMS,
	{ "extend", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "return a DAG extension of the CPDAG (Dor and Tarsi), as the FedPC paper scores" },
	{ "corr", FB_PARAM_CHOICE, "auto", 0, 0, fedpc_corrs,
	  "fisher-z's correlations on each client: matrix (a packed d x d matrix, 4 d^2 "
	  "bytes), demand (from the rows when asked: level 0 a block at a time, each later "
	  "layer's in one pass, kept in a table of at most 32 MB while the layer runs; "
	  "p-values within about 1e-12 of the matrix's), or auto (demand when the clients' "
	  "matrices would pass 1 GiB)" },
	{ 0 },
};

/* Per-round figures. */
static const char *const fedpc_figures[] = { "layer", "edges", "removed", "tests", "triples",
	                                     "unresolved", "colliders", "conflicts", NULL };

/* The named value of layer: -1 is the orienting round (FedOrien). */
static const fb_figure_level fedpc_levels[] = { { "layer", -1, "orient" }, { 0 } };

/* PC's options, read from the parameters (FedPC's clients run PC). */
FB_ALGO_OPTIONS(pc_options, fb_pc_options, fb_pc_options_init, fb_pc_options_from_params);

const fb_algo fb_algo_fedpc = {
	.name = "fedpc", .summary = "FedPC: layer-wise federated PC skeleton, then FedOrien",
	.intro = "Runs the PC algorithm over clients that each hold some of the rows, sharing "
	         "graphs and test results but never the rows. Each round every client removes "
	         "the edges its own rows do not support, and the server keeps an edge only "
	         "when enough clients kept it; at the end the clients help the server choose "
	         "the edges' directions. Edges whose direction cannot be told stay undirected.",
	.help = "FedPC (Huang, Guo, Yu, Cao and Liang): PC over clients that exchange skeletons, "
	        "never rows. FedSkele, one round per layer l: the server broadcasts its skeleton "
	        "(one bit per pair of variables, which travel as ranks of their sorted names); "
	        "each client runs one PC level l on its rows from it (stable unless stable=no) "
	        "and sends its skeleton back; the server keeps an edge when more than vote (0.3) "
	        "of the clients kept it: vote_rule=paper needs floor(0.3 K)+1 clients (K = 1: 1, "
	        "3: 1, 5: 2, 10: 4, 15: 5), vote_rule=code the authors' code's round(0.3 K) with "
	        "halves up, at least 1 (1, 1, 2, 3, 5). Layers stop when no variable has "
	        "|ne| - 1 >= l + 1 (or after depth). FedOrien, one more round: the server sends "
	        "the final skeleton and its unshielded triples i - k - j, each end pair with the "
	        "layer whose vote removed it; a client tests every subset of ne(i) minus j, then "
	        "of ne(j) minus i, of at most that layer's size, and returns the set with the "
	        "highest p > alpha (a Fisher-z test with too few rows does not count) with its p, "
	        "and for each middle k outside it the p of the test given the set plus k; the "
	        "server keeps the highest-p set over the clients (ties: the first client), makes "
	        "i -> k <- j when k is not in it, strongest collider test first (colliders=order: "
	        "by index), never re-orienting an edge or closing a directed cycle (figure "
	        "conflicts), and leaves a triple unoriented when no client separated its ends "
	        "(figure unresolved); then Meek's R1-R3, which likewise never close a directed "
	        "cycle. The result is a CPDAG; extend=yes returns a DAG extension of it (Dor and "
	        "Tarsi), the graph the FedPC paper scores. One client runs exactly PC's levels. "
	        "Knowledge (sent to every client once, at the opening, and counted by the "
	        "ledger): pairs forbidden both ways are left out of the first skeleton, and no "
	        "client ever tests them: FedOrien asks no client about such a pair at the ends "
	        "of an unshielded triple, which counts as separated by the empty set (its "
	        "colliders first); before FedOrien the server joins required arcs and points "
	        "every edge with a forbidden direction the other way, which colliders and Meek "
	        "never reverse. secure=yes: each layer's votes travel as numbers whose sum is "
	        "the server's count, and FedOrien's choice of the highest-p client per pair is "
	        "learnt through sums 4 bits a round (20 rounds), the winners then sending their "
	        "sets and collider tests in one more: the same graph, sets and figures as the "
	        "plain run, no client's reply at the server. dp_epsilon= (secure=yes) adds "
	        "client-level privacy: every number of a client's vector is 0 or 1, so one "
	        "client changes each number of a sum by at most 1 and the sum's L2 sensitivity "
	        "is sqrt(1 + the pairs voted on), the noise dp_sigma times it, one zCDP release a "
	        "round (the run stops in one sentence when the next would pass the budget); the "
	        "server rounds each noisy count to a whole vote between 0 and the clients heard. "
	        "FedOrien's exact choice of the highest-p client cannot take noise, so under "
	        "dp_epsilon= it is one round of noisy collider votes instead: per end pair each "
	        "client votes whether one of its sets separated the ends, and per unshielded "
	        "triple i - k - j whether its set separated them and leaves k out; the server "
	        "counts a pair separated when that noisy count rounds to 1 or more, orients "
	        "i -> k <- j when more than half of those clients left k out (colliders=strength: "
	        "in decreasing share of their votes), and keeps as the pair's set the middles the "
	        "others kept (no client's set, no p-value). Under dp_epsilon= the clients' test "
	        "counts, which depend on their rows, are not sent: figure tests is 0.",
	.flags = FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = fedpc_params, .figures = fedpc_figures, .levels = fedpc_levels,
	.client_figure = "tests",
	.create = fedpc_create, .step = fedpc_step, .done = fedpc_done, .result = fedpc_result,
	.destroy = fedpc_destroy, .note = fedpc_note, .message = fedpc_message_text,
	.options = &pc_options, .detail = FB_DETAIL_VOTES,
};
