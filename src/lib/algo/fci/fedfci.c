/* fedfci: FCI over a horizontal split with FedPC's votes (the rounds and messages are in
 * fedfci-int.h).  The skeleton runs one round per PC level, as fedpc's FedSkele, each
 * client also sending the set that separated each pair it removed; the server keeps the
 * votes' skeleton and, for each removed pair, the set of the highest p-value.  Then the
 * server orients the unshielded colliders (R0) and the clients run the possible-d-sep stage
 * on that PAG, voted on the same way.  The server orients the final skeleton with R0 and
 * R1-R10 from the chosen sets; the tests of the discriminating-path rule go to the clients
 * (rounds of tests, each answered by the clients' vote), the orientation started again with
 * the answers until it asks nothing new.  One client gives FCI's PAG on the columns in the
 * order of their names. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/fci.h"
#include "fedbn/fedpc.h"
#include "fedfci-int.h"

/* Free the state. */
static void fedfci_destroy(fb_run *run)
{
	fedfci_state *st = run->state;

	for (size_t m = 0; st->ci != NULL && m < st->c.k; m++)
		fb_ci_free(st->ci[m]);
	free(st->ci);
	free(st->sent);
	free(st->before);
	free(st->removed_at);
	fci_seps_free(st->seps);
	free(st->rank);
	fb_pag_free(st->pag);
	for (size_t t = 0; t < st->nans; t++)
		free(st->ans[t].S);
	for (size_t t = 0; t < st->nask; t++)
		free(st->ask[t].S);
	free(st->ans);
	free(st->ask);
	fedpc_common_release(&st->c);
	free(st);
	run->state = NULL;
}

/* The layer broadcast: d = { l }, b = the skeleton. */
static void layer_broadcast(fedfci_state *st, fb_msg *down)
{
	size_t nb = fedpc_bits_bytes(st->c.d);

	fb_msg_doubles(down, 1)[0] = (double)st->layer;
	memcpy(fb_msg_bytes(down, nb), st->sent, nb);
	st->phase = 0;
}

/* Build the state and the opening broadcast (layer 0 over every pair). */
static int fedfci_create(fb_run *run, fb_error *err)
{
	fedfci_state *st = fb_xcalloc(1, sizeof *st);
	size_t d = run->data->d, np = fedpc_npairs(d), nb = fedpc_bits_bytes(d);
	fb_fci_options o;

	run->state = st;
	fedpc_common_init(&st->c, run);
	fb_fci_options_from_params(&run->params, &o);
	st->opt = o.pc;
	if (fedpc_check(run, &st->opt, err) != FB_OK) {
		fedfci_destroy(run);
		return FB_ERR;
	}
	st->share = fb_params_double(&run->params, "vote");
	st->code_rule = fb_params_choice(&run->params, "vote_rule") == FB_FEDPC_VOTE_CODE;
	st->ci = fb_xcalloc(st->c.k + 1, sizeof *st->ci);
	st->c.votes = fb_xcalloc(np + 1, sizeof *st->c.votes);
	st->sent = fb_xcalloc(nb + 1, 1);
	st->before = fb_xcalloc(nb + 1, 1);
	st->removed_at = fb_xcalloc(np + 1, sizeof *st->removed_at);
	st->seps = fci_seps_alloc(d);
	st->rank = fb_xmalloc((d + 1) * sizeof *st->rank);
	for (size_t i = 0; i < d; i++)
		st->rank[i] = i;
	for (size_t p = 0; p < np; p++)
		st->sent[p >> 3] |= (unsigned char)(1u << (p & 7));
	layer_broadcast(st, fb_fed_broadcast(run->fed));
	return FB_OK;
}

/* For each pair the last vote removed, the set of the client with the highest p-value
 * among those that removed it (both orders for a layer's, the client's order for the
 * possible-d-sep stage's). */
static int combine_sets(fedfci_state *st, const fb_msg *const *up, size_t k, bool both,
                        fb_error *err)
{
	size_t d = st->c.d, w = st->c.w, nb = fedpc_bits_bytes(d), p = 0, a, n, ba = 0, bn;
	const unsigned char **at = fb_xcalloc(k + 1, sizeof *at);
	size_t *nd = fb_xcalloc(k + 1, sizeof *nd), *S = fb_xmalloc((d + 1) * sizeof *S);
	size_t *B = fb_xmalloc((d + 1) * sizeof *B);
	int ret = FB_OK;

	for (size_t m = 0; m < k; m++)
		at[m] = up[m] != NULL ? up[m]->b + nb : NULL;
	for (size_t i = 0; i < d && ret == FB_OK; i++)
		for (size_t j = i + 1; j < d && ret == FB_OK; j++, p++) {
			double best = -1.0;

			for (size_t m = 0; m < k && ret == FB_OK; m++) {
				if (at[m] == NULL || !fedpc_bit(st->before, p) || fedpc_bit(up[m]->b, p))
					continue;
				if (fedfci_get_entry(&at[m], up[m]->b + up[m]->nb, w, d, i, j, &a, S,
				                     &n) != FB_OK || nd[m] >= up[m]->nd) {
					ret = fb_fail(err, "client %zu sent a malformed set", m + 1);
					break;
				}
				if (!fedpc_bit(st->sent, p) && up[m]->d[nd[m]] > best) {
					best = up[m]->d[nd[m]];
					ba = a;
					bn = n;
					memcpy(B, S, n * sizeof *S);
				}
				nd[m]++;
			}
			if (ret == FB_OK && best >= 0.0) {
				fci_seps_set(st->seps, ba, ba == i ? j : i, B, bn);
				if (both)
					fci_seps_set(st->seps, ba == i ? j : i, ba, B, bn);
			}
		}
	free(at);
	free(nd);
	free(S);
	free(B);
	return ret;
}

/* Count the votes on the skeleton sent, keep the pairs enough clients kept, and choose the
 * sets of the others. */
static int vote(fedfci_state *st, const fb_msg *const *up, size_t k, bool both, fb_error *err)
{
	size_t d = st->c.d, heard, need;

	if (fedpc_count_votes(st->c.votes, d, st->sent, up, k, true, &heard, err) != FB_OK)
		return FB_ERR;
	need = fedpc_common_need(&st->c, st->share, st->code_rule, heard);
	memcpy(st->before, st->sent, fedpc_bits_bytes(d));
	st->removed = fedpc_vote_keep(st->sent, st->c.votes, d, need, st->removed_at, st->layer,
	                              NULL);
	return combine_sets(st, up, k, both, err);
}

/* The test the orientation asks at the server: the clients' answer when there is one,
 * else it is noted for the next round of tests (and taken as dependent meanwhile). */
static int server_test(void *ctx, size_t x, size_t y, const size_t *S, size_t ns, bool *indep,
                       fb_error *err)
{
	fedfci_state *st = ctx;
	fedfci_query *q;

	*indep = false;
	for (size_t t = 0; t < st->nans + st->nask; t++) {
		q = t < st->nans ? &st->ans[t] : &st->ask[t - st->nans];
		if (q->x == x && q->y == y && q->n == ns && memcmp(q->S, S, ns * sizeof *S) == 0) {
			*indep = t < st->nans && q->indep;
			return FB_OK;
		}
	}
	st->ask = fb_xreallocarray(st->ask, st->nask + 1, sizeof *st->ask);
	q = &st->ask[st->nask++];
	*q = (fedfci_query){ x, y, ns, fb_xmalloc((ns + 1) * sizeof *S), false };
	memcpy(q->S, S, ns * sizeof *S);
	return FB_OK;
}

/* The rules' environment at the server. */
static fci_env server_env(fedfci_state *st)
{
	fci_env env = fci_env_new(st->seps, server_test, st, st->rank, st->c.d);

	env.bk = st->c.know;
	env.pdsep_max = st->opt.depth;
	return env;
}

/* Remove the pairs the knowledge forbids both ways, their sets empty (as fci does). */
static void remove_forbidden(fedfci_state *st)
{
	size_t p = 0;

	for (size_t i = 0; st->c.know != NULL && i < st->c.d; i++)
		for (size_t j = i + 1; j < st->c.d; j++, p++)
			if (fedpc_bit(st->sent, p) && fb_knowledge_forbids_pair(st->c.know, i, j)) {
				st->sent[p >> 3] &= (unsigned char)~(1u << (p & 7));
				fci_seps_set(st->seps, i, j, NULL, 0);
				fci_seps_set(st->seps, j, i, NULL, 0);
			}
}

/* The possible-d-sep broadcast: the skeleton and the marks after R0. */
static void pdsep_broadcast(fedfci_state *st, fb_msg *down)
{
	size_t d = st->c.d, nb = fedpc_bits_bytes(d);
	fci_env env = server_env(st);
	unsigned char *q;

	remove_forbidden(st);
	fb_pag_free(st->pag);
	st->pag = fedfci_pag_of_bits(st->sent, d);
	fci_rule0(st->pag, &env);
	free(env.scratch);
	fb_msg_doubles(down, 1)[0] = FEDFCI_PDSEP;
	q = fb_msg_bytes(down, nb + fb_pag_n_edges(st->pag));
	memcpy(q, st->sent, nb);
	q += nb;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (fb_pag_adjacent(st->pag, i, j))
				*q++ = (unsigned char)(4 * fb_pag_mark(st->pag, j, i) +
				                       fb_pag_mark(st->pag, i, j));
	st->phase = -1;
}

/* The tests broadcast: the tests the orientation asked. */
static void tests_broadcast(fedfci_state *st, fb_msg *down)
{
	size_t w = st->c.w, len = 4;
	unsigned char *q;

	for (size_t t = 0; t < st->nask; t++)
		len += (3 + st->ask[t].n) * w;
	fb_msg_doubles(down, 1)[0] = FEDFCI_TESTS;
	q = fedpc_put_id(fb_msg_bytes(down, len), 4, st->nask);
	for (size_t t = 0; t < st->nask; t++) {
		q = fedpc_put_id(q, w, st->ask[t].x);
		q = fedfci_put_entry(q, w, st->ask[t].y, st->ask[t].S, st->ask[t].n);
	}
	st->asked = st->nask;
	st->phase = -2;
}

/* Orient the final skeleton (required pairs joined, as fci does) with the answers so far:
 * done, or a round of tests. */
static int orient(fedfci_state *st, fb_msg *down, fb_error *err)
{
	fci_env env = server_env(st);
	int ret;

	fb_pag_free(st->pag);
	st->pag = fedfci_pag_of_bits(st->sent, st->c.d);
	fci_join_required(st->pag, st->c.know);
	fci_rule0(st->pag, &env);
	ret = fci_orient_rules(st->pag, &env, err);
	free(env.scratch);
	if (ret != FB_OK)
		return FB_ERR;
	if (st->nask > 0) {
		tests_broadcast(st, down);
		return FB_OK;
	}
	fb_msg_doubles(down, 0);
	fb_msg_bytes(down, 0);
	st->done = true;
	return FB_OK;
}

/* Server, tests: each test dependent when enough clients find it so; then orient again. */
static int tests_server(fedfci_state *st, const fb_msg *const *up, size_t k, fb_msg *down,
                        fb_error *err)
{
	size_t heard = 0, need;

	for (size_t m = 0; m < k; m++) {
		if (up[m] == NULL)
			continue;
		if (up[m]->nb != st->nask)
			return fb_fail(err, "client %zu answered %zu tests, not %zu", m + 1,
			               up[m]->nb, st->nask);
		heard++;
	}
	if (heard == 0)
		return fb_fail(err, "no client answered");
	need = fedpc_common_need(&st->c, st->share, st->code_rule, heard);
	st->ans = fb_xreallocarray(st->ans, st->nans + st->nask, sizeof *st->ans);
	for (size_t t = 0; t < st->nask; t++) {
		size_t dep = 0;

		for (size_t m = 0; m < k; m++)
			dep += up[m] != NULL && up[m]->b[t] == 0;
		st->ask[t].indep = dep < need;
		st->ans[st->nans++] = st->ask[t];
	}
	st->answered = st->nask;
	st->nask = 0;
	return orient(st, down, err);
}

/* Server: the vote of a layer or of the possible-d-sep stage, or the tests' answers. */
static int fedfci_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                         fb_error *err)
{
	fedfci_state *st = state;
	fb_graph *g;
	bool more;

	st->removed = st->asked = st->answered = 0;
	if (st->phase == -2)
		return tests_server(st, up, k, down, err);
	if (vote(st, up, k, st->phase == 0, err) != FB_OK)
		return FB_ERR;
	if (st->phase == -1)
		return orient(st, down, err);
	g = fedpc_skel_unpack(st->sent, st->c.d);
	st->layer++;
	more = (st->opt.depth < 0 || st->layer <= (size_t)st->opt.depth) &&
	       fb_pc_level_possible(g, st->layer);
	fb_graph_free(g);
	if (more)
		layer_broadcast(st, down);
	else
		pdsep_broadcast(st, down);
	return FB_OK;
}

/* The two halves. */
static const fb_fed_ops fedfci_ops = { .client = fedfci_client, .server = fedfci_server };

/* The server's PAG in the data's order and names: the oriented one, else o-o over the
 * skeleton (caller frees). */
static fb_pag *data_pag(const fedfci_state *st)
{
	size_t d = st->c.d;
	fb_pag *p = st->pag != NULL ? st->pag : fedfci_pag_of_bits(st->sent, d);
	fb_pag *q = fb_pag_alloc(d);

	for (size_t i = 0; i < d; i++)
		fb_pag_set_name(q, i, st->c.names[i], NULL);
	for (size_t a = 0; a < d; a++)
		for (size_t b = a + 1; b < d; b++)
			if (fb_pag_adjacent(p, a, b))
				fb_pag_set(q, st->c.global_of[a], st->c.global_of[b],
				           fb_pag_mark(p, b, a), fb_pag_mark(p, a, b));
	if (p != st->pag)
		fb_pag_free(p);
	return q;
}

/* The round in words. */
static void fedfci_say(fb_run *run, const fedfci_state *st, int phase, size_t layer,
                       size_t edges)
{
	if (phase == 0)
		fb_run_say(run, "layer %zu: clients voted on %zu edge%s; the server kept %zu that at "
		           "least %zu of %zu clients kept, with the highest-p set of each removed",
		           layer, edges + st->removed, edges + st->removed == 1 ? "" : "s", edges,
		           st->c.need, st->c.heard);
	else if (phase == -1)
		fb_run_say(run, "possible-d-sep: clients tested the edges against their possible-d-"
		           "sep sets; the vote removed %zu, %zu remain", st->removed, edges);
	else
		fb_run_say(run, "clients answered %zu test%s of discriminating paths",
		           st->answered, st->answered == 1 ? "" : "s");
	if (st->done)
		fb_run_say(run, "oriented the PAG: %zu edge%s, %zu bidirected, %zu with a circle",
		           edges, edges == 1 ? "" : "s", fb_pag_n_bidirected(st->pag),
		           fb_pag_n_circles(st->pag));
}

/* One round. */
static int fedfci_step(fb_run *run, double *fig, fb_error *err)
{
	fedfci_state *st = run->state;
	int phase = st->phase;
	size_t layer = st->layer, edges;
	double tests = 0;

	if (fb_fed_round(run->fed, &fedfci_ops, st, err) != FB_OK)
		return FB_ERR;
	for (size_t m = 0; m < st->c.k; m++)
		if (fb_fed_took_part(run->fed, m))
			tests += fb_fed_client_figure(run->fed, m);
	edges = 0;
	for (size_t p = 0, np = fedpc_npairs(st->c.d); p < np; p++)
		edges += fedpc_bit(st->sent, p);
	fig[0] = phase == 0 ? (double)layer : (double)phase;
	fig[1] = (double)edges;
	fig[2] = (double)st->removed;
	fig[3] = tests;
	fig[4] = (double)st->asked;
	fig[5] = st->done ? (double)fb_pag_n_bidirected(st->pag) : 0.0;
	fig[6] = st->done ? (double)fb_pag_n_circles(st->pag) : 0.0;
	fedfci_say(run, st, phase, layer, edges);
	return FB_OK;
}

/* Finished once oriented. */
static bool fedfci_done(const fb_run *run)
{
	return ((const fedfci_state *)run->state)->done;
}

/* The PAG as a plain graph. */
static fb_graph *fedfci_result(const fb_run *run, fb_error *err)
{
	fb_pag *p = data_pag(run->state);
	fb_graph *g = fb_pag_to_graph(p);

	fb_pag_free(p);
	return g;
}

/* The PAG. */
static fb_pag *fedfci_pag(const fb_run *run, fb_error *err)
{
	return data_pag(run->state);
}

/* fedfci's parameters: fci's tests, then FedPC's vote. */
static const fb_param_def fedfci_params[] = {
	FCI_PARAMS_TEST,
	FEDPC_VOTE_PARAMS,
	{ 0 },
};

/* Per-round figures. */
static const char *const fedfci_figures[] = { "layer", "edges", "removed", "tests", "asked",
	                                      "bidirected", "circles", NULL };

/* The named values of layer. */
static const fb_figure_level fedfci_levels[] = {
	{ "layer", -1, "possible-d-sep" }, { "layer", -2, "tests" }, { 0 },
};

/* FCI's options, read from the parameters. */
FB_ALGO_OPTIONS(fedfci_options, fb_fci_options, fb_fci_options_init,
                fb_fci_options_from_params);

const fb_algo fb_algo_fedfci = {
	.name = "fedfci",
	.summary = "FedFCI: FCI over clients with FedPC's votes (a PAG)",
	.intro = "Runs FCI over clients that each hold some of the rows, sharing graphs and test "
	         "results but never the rows: the clients vote on each edge, as in fedpc, and "
	         "the server orients a PAG, which allows hidden common causes.",
	.help = "FedFCI with FedPC's votes: one round per PC level (layer), as fedpc's FedSkele: "
	        "the server broadcasts its skeleton, each client runs that level of PC on its rows "
	        "and sends back its skeleton and, for each pair it removed, the separating set "
	        "and its p-value; the server keeps an edge when more than vote (0.3) of the "
	        "clients kept it (vote_rule as fedpc's) and takes for each removed pair the set of "
	        "the highest p. Then the server orients the unshielded colliders (FCI's R0) and "
	        "sends the PAG; each client runs FCI's possible-d-sep stage on it with its rows "
	        "and replies as in a layer, voted on the same way. The server orients the final "
	        "skeleton (R0, then Zhang's R1-R10 from the chosen sets); the two tests of each "
	        "discriminating path (R4) go to the clients in rounds of tests, a test dependent "
	        "when enough clients find it so, and the orientation runs again with the answers "
	        "until it asks nothing new. Variables travel as ranks of their sorted names, so "
	        "one client gives exactly fci's PAG (compat=none) on the columns in the order of "
	        "their names. Knowledge is honoured as fci honours it. The result as a plain "
	        "graph keeps X -> Y and draws the other edges undirected.",
	.flags = FB_ALGO_REMOTE,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = fedfci_params, .figures = fedfci_figures, .levels = fedfci_levels,
	.client_figure = "tests",
	.create = fedfci_create, .step = fedfci_step, .done = fedfci_done,
	.result = fedfci_result, .pag = fedfci_pag, .destroy = fedfci_destroy,
	.note = fci_note, .options = &fedfci_options,
};
