/* fedpc-simple1 and fedpc-simple2, the FedPC paper's ablations (§4, ALGORITHMS.md §7.5), as
 * one-round federated algorithms: every client runs PC to the end on its own rows (columns in
 * rank order) and sends one message; the server combines them.
 *
 * simple1, up: the client's DAG (its CPDAG extended by Dor and Tarsi) as two bits per pair
 *   (i < j): 1 for i -> j, 2 for j -> i, 0 for none.
 * simple2, up: the client's skeleton (one bit per pair), then for each pair it does not hold,
 *   in pair order, its separating set: the size and the members, w bytes each (size d when
 *   it has none). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/fedpc.h"
#include "fedpc-int.h"

/* The state of a simple1 or simple2 run. */
typedef struct simple_state {
	fedpc_common c;     /* alignment, votes, sets, estimate (must come first) */
	fb_pc_options opt;  /* the clients' PC */
	double share;       /* vote share */
	bool code_rule;     /* vote_rule=code */
	bool two;           /* fedpc-simple2 */
	size_t colliders;   /* simple2: colliders oriented by the server */
	size_t conflicts;   /* simple2: collider candidates skipped for a conflict */
	bool secure;        /* simple1 with secure=yes: the server receives the sum of the
	                       clients' direction votes as numbers */
} simple_state;

/* Run PC to the end on the client's rows in rank order; the run, NULL with the reason. */
static fb_pc *client_pc(const simple_state *st, const fb_dataset *local, double *tests,
                        fb_error *err)
{
	fb_dataset *ranked;
	fb_ci_stats cs;
	fb_pc *pc;

	if (local->d != st->c.d)
		return fb_fail(err, "it holds %zu variables, not %zu", local->d, st->c.d), NULL;
	if ((ranked = fedpc_rank_dataset(local)) == NULL)
		return fb_fail(err, "out of memory"), NULL;
	pc = fb_pc_alloc(ranked, &st->opt, err);
	fb_dataset_free(ranked);
	while (pc != NULL && !fb_pc_done(pc))
		if (fb_pc_step(pc, NULL, err) != FB_OK) {
			fb_pc_free(pc);
			return NULL;
		}
	if (pc != NULL) {
		fb_ci_get_stats(fb_pc_ci(pc), &cs);
		*tests = (double)cs.queries;
	}
	return pc;
}

/* simple1's message: the DAG, two bits per pair. */
static void send_dag(const fb_graph *dag, fb_msg *up)
{
	size_t d = dag->d, p = 0, nb = (fedpc_npairs(d) + 3) / 4;
	unsigned char *b = fb_msg_bytes(up, nb);

	memset(b, 0, nb);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			unsigned v = fb_graph_has_arc(dag, i, j) ? 1u
			           : fb_graph_has_arc(dag, j, i) ? 2u : 0u;

			b[p >> 2] |= (unsigned char)(v << (2 * (p & 3)));
		}
}

/* simple1's message under secure=yes: 1, then per pair (i < j) two numbers, 1 for the
 * client's i -> j and 1 for its j -> i, so that their sum is the server's count. */
static void send_dag_sum(const fb_graph *dag, fb_msg *up)
{
	size_t d = dag->d, p = 0, n = 1 + 2 * fedpc_npairs(d);
	double *v = fb_msg_doubles(up, n);

	v[0] = 1.0;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			v[1 + 2 * p] = fb_graph_has_arc(dag, i, j) ? 1.0 : 0.0;
			v[2 + 2 * p] = fb_graph_has_arc(dag, j, i) ? 1.0 : 0.0;
		}
	fb_msg_bytes(up, 0);
}

/* simple2's message: the skeleton, then the separating set of every pair it lacks. */
static void send_skeleton(const simple_state *st, const fb_pc *pc, fb_msg *up)
{
	const fb_graph *g = fb_pc_graph(pc);
	size_t d = st->c.d, w = st->c.w, nb = fedpc_bits_bytes(d), len = nb, n;
	size_t *Z = fb_xmalloc(d * sizeof *Z);
	unsigned char *b, *q;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (!fb_graph_adjacent(g, i, j))
				len += w * (1 + fb_sepsets_get(fb_pc_sepsets(pc), i, j, Z));
	b = fb_msg_bytes(up, len);
	fedpc_skel_pack(g, b);
	q = b + nb;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			if (fb_graph_adjacent(g, i, j))
				continue;
			n = fb_sepsets_get(fb_pc_sepsets(pc), i, j, Z);
			q = fedpc_put_id(q, w, fb_sepsets_has(fb_pc_sepsets(pc), i, j) ? n : d);
			for (size_t t = 0; t < n; t++)
				q = fedpc_put_id(q, w, Z[t]);
		}
	free(Z);
}

/* Client k: PC on its own rows, then its DAG (simple1) or skeleton and sets (simple2). */
static int simple_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                         fb_msg *up, double *figure, fb_error *err)
{
	const simple_state *st = state;
	fb_pc *pc = client_pc(st, local, figure, err);
	fb_graph *dag;

	if (pc == NULL)
		return FB_ERR;
	fb_msg_doubles(up, 0);
	if (st->two) {
		send_skeleton(st, pc, up);
	} else {
		dag = fb_cpdag_to_dag(fb_pc_graph(pc), NULL);
		if (st->secure)
			send_dag_sum(dag, up);
		else
			send_dag(dag, up);
		fb_graph_free(dag);
	}
	fb_pc_free(pc);
	return FB_OK;
}

/* simple1's cut of the counted votes of heard clients: keep the directions with enough
 * votes, the more voted when both have enough, an undirected edge when they tie. */
static void simple1_keep(simple_state *st, size_t heard)
{
	size_t d = st->c.d, need = fedpc_common_need(&st->c, st->share, st->code_rule, heard);
	const uint32_t *v = st->c.votes;

	st->c.graph = fb_graph_alloc(d);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			uint32_t f = v[i * d + j], b = v[j * d + i];

			if (f >= need && f > b)
				fb_graph_set_directed(st->c.graph, i, j, 1.0);
			else if (b >= need && b > f)
				fb_graph_set_directed(st->c.graph, j, i, 1.0);
			else if (f >= need)
				fb_graph_set_undirected(st->c.graph, i, j);
		}
	fb_pc_orient_knowledge(st->c.graph, st->c.know);
}

/* simple1's server: count each direction, then cut. */
static int simple1_server(simple_state *st, const fb_msg *const *up, size_t k, fb_error *err)
{
	size_t d = st->c.d, nb = (fedpc_npairs(d) + 3) / 4, heard = 0;
	uint32_t *v = st->c.votes;

	for (size_t m = 0; m < k; m++) {
		size_t p = 0;

		if (up[m] == NULL)
			continue;
		if (up[m]->nb != nb)
			return fb_fail(err, "client %zu sent %zu bytes, not %zu", m + 1,
			               up[m]->nb, nb);
		heard++;
		for (size_t i = 0; i < d; i++)
			for (size_t j = i + 1; j < d; j++, p++) {
				unsigned x = (up[m]->b[p >> 2] >> (2 * (p & 3))) & 3;

				v[i * d + j] += x == 1;
				v[j * d + i] += x == 2;
			}
	}
	simple1_keep(st, heard);
	return FB_OK;
}

/* simple1's server under secure=yes: the counts from the summed votes, then cut. */
static int simple1_server_sum(simple_state *st, const fb_fed_total *in, fb_error *err)
{
	size_t d = st->c.d, p = 0;
	uint32_t *v = st->c.votes;

	if (in->n != 1 + 2 * fedpc_npairs(d) || in->count == 0)
		return fb_fail(err, "the sum holds %zu numbers of %zu clients", in->n, in->count);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			v[i * d + j] = (uint32_t)fmax(0.0, round(in->sum[1 + 2 * p]));
			v[j * d + i] = (uint32_t)fmax(0.0, round(in->sum[2 + 2 * p]));
		}
	simple1_keep(st, in->count);
	return FB_OK;
}

/* Intersect the set at q (advanced past it) into sepset(i, j), or define it when first;
 * false when a member is out of range (nothing is changed then). */
static bool intersect_set(fb_sepsets *s, size_t d, size_t i, size_t j,
                          const unsigned char **q, size_t n, size_t w, size_t *old, size_t *Z)
{
	size_t no = 0, nz = 0;
	bool first = !fb_sepsets_has(s, i, j);

	if (!first)
		no = fb_sepsets_get(s, i, j, old);
	for (size_t t = 0; t < n; t++) {
		size_t v = fedpc_get_id(q, w);
		bool in = first;

		if (v >= d)
			return false;
		for (size_t u = 0; u < no && !in; u++)
			in = old[u] == v;
		for (size_t u = 0; u < nz && in; u++)
			in = Z[u] != v;
		if (in && v != i && v != j)
			Z[nz++] = v;
	}
	fb_sepsets_set(s, i, j, Z, nz);
	return true;
}

/* Count the skeleton votes of every client heard into st->c.votes; the count heard. */
static int skeleton_votes(simple_state *st, const fb_msg *const *up, size_t k, size_t *heard,
                          fb_error *err)
{
	size_t np = fedpc_npairs(st->c.d), nb = fedpc_bits_bytes(st->c.d);

	*heard = 0;
	for (size_t m = 0; m < k; m++) {
		if (up[m] == NULL)
			continue;
		if (up[m]->nb < nb)
			return fb_fail(err, "client %zu sent %zu bytes, fewer than a skeleton",
			               m + 1, up[m]->nb);
		(*heard)++;
		for (size_t p = 0; p < np; p++)
			st->c.votes[p] += fedpc_bit(up[m]->b, p);
	}
	return FB_OK;
}

/* Read client m's sets and intersect those of the pairs the server's skeleton lacks. */
static int client_sets(simple_state *st, const fb_msg *up, size_t m, size_t *old, size_t *Z,
                       fb_error *err)
{
	size_t d = st->c.d, w = st->c.w, p = 0;
	const unsigned char *q = up->b + fedpc_bits_bytes(d), *end = up->b + up->nb;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			size_t n;

			if (fedpc_bit(up->b, p))
				continue;
			if ((size_t)(end - q) < w)
				return fb_fail(err, "client %zu sent too few sets", m + 1);
			if ((n = fedpc_get_id(&q, w)) == d)
				continue;
			if (n > d || (size_t)(end - q) < n * w)
				return fb_fail(err, "client %zu sent a set that runs past its "
				                    "message", m + 1);
			if (fb_graph_adjacent(st->c.graph, i, j))
				q += n * w;
			else if (!intersect_set(st->c.seps, d, i, j, &q, n, w, old, Z))
				return fb_fail(err, "client %zu sent a variable out of range",
				               m + 1);
		}
	if (q != end)
		return fb_fail(err, "client %zu sent %zu bytes too many", m + 1, (size_t)(end - q));
	return FB_OK;
}

/* The collider candidates of the skeleton: unshielded triples whose middle is outside the
 * intersected set of their ends (pairs without one give none); their count. */
static size_t simple2_cands(const simple_state *st, fedpc_cand **out)
{
	size_t *tri, n = fb_graph_unshielded_triples(st->c.graph, &tri), nc = 0;
	fedpc_cand *c = fb_xmalloc((n + 1) * sizeof *c);

	for (size_t t = 0; t < n; t++) {
		const size_t *x = tri + 3 * t;

		if (fb_sepsets_has(st->c.seps, x[0], x[2]) &&
		    !fb_sepsets_contains(st->c.seps, x[0], x[2], x[1]))
			c[nc++] = (fedpc_cand){ 0.0, 0.0, 0, x[0], x[1], x[2] };
	}
	free(tri);
	*out = c;
	return nc;
}

/* simple2's server: vote the skeletons, intersect the sets, orient by index, Meek. */
static int simple2_server(simple_state *st, const fb_msg *const *up, size_t k,
                          size_t *colliders, size_t *conflicts, fb_error *err)
{
	size_t d = st->c.d, heard, need, n, p = 0;
	size_t *old = fb_xmalloc(d * sizeof *old), *Z = fb_xmalloc(d * sizeof *Z);
	fedpc_cand *cands;
	int ret = skeleton_votes(st, up, k, &heard, err);

	if (ret != FB_OK || heard == 0) {
		free(old);
		free(Z);
		return ret != FB_OK ? ret : fb_fail(err, "no client answered");
	}
	need = fedpc_common_need(&st->c, st->share, st->code_rule, heard);
	st->c.graph = fb_graph_alloc(d);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++)
			if (st->c.votes[p] >= need)
				fb_graph_set_undirected(st->c.graph, i, j);
	st->c.seps = fb_sepsets_alloc(d);
	for (size_t m = 0; m < k && ret == FB_OK; m++)
		if (up[m] != NULL)
			ret = client_sets(st, up[m], m, old, Z, err);
	if (ret == FB_OK) {
		fb_pc_orient_knowledge(st->c.graph, st->c.know);
		n = simple2_cands(st, &cands);
		fedpc_orient(st->c.graph, cands, n, false, colliders, conflicts, NULL);
		free(cands);
	}
	free(old);
	free(Z);
	return ret;
}

/* Server: simple1's or simple2's combination. */
static int simple_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                         fb_error *err)
{
	simple_state *st = state;
	int ret;

	st->c.votes = fb_xcalloc(st->two ? fedpc_npairs(st->c.d) + 1 : st->c.d * st->c.d,
	                         sizeof *st->c.votes);
	if (st->two)
		ret = simple2_server(st, up, k, &st->colliders, &st->conflicts, err);
	else
		ret = simple1_server(st, up, k, err);
	fb_msg_doubles(down, 0);
	fb_msg_bytes(down, 0);
	st->c.done = ret == FB_OK;
	return ret;
}

/* simple1's server half under secure=yes, on the summed votes. */
static int simple_server_sum(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	simple_state *st = state;
	int ret;

	st->c.votes = fb_xcalloc(st->c.d * st->c.d, sizeof *st->c.votes);
	ret = simple1_server_sum(st, in, err);
	fb_msg_doubles(down, 0);
	fb_msg_bytes(down, 0);
	st->c.done = ret == FB_OK;
	return ret;
}

/* The numbers of simple1's vote vector. */
static size_t simple_sum_len(const void *state)
{
	return 1 + 2 * fedpc_npairs(((const simple_state *)state)->c.d);
}

/* The two halves; simple1's with secure=yes. */
static const fb_fed_ops simple_ops = { .client = simple_client, .server = simple_server };
static const fb_fed_ops simple_sum_ops = { .client = simple_client,
	                                   .server_sum = simple_server_sum,
	                                   .sum_len = simple_sum_len };

/* Free the state. */
static void simple_destroy(fb_run *run)
{
	simple_state *st = run->state;

	fedpc_common_release(&st->c);
	free(st);
	run->state = NULL;
}

/* Build the state; the opening broadcast is empty (the clients need nothing); on failure
 * nothing is left. */
static int simple_create(fb_run *run, fb_error *err)
{
	simple_state *st = fb_xcalloc(1, sizeof *st);

	run->state = st;
	fedpc_common_init(&st->c, run);
	st->two = run->algo == &fb_algo_fedpc_simple2;
	st->c.directed = !st->two;
	fb_pc_options_from_params(&run->params, &st->opt);
	st->opt.knowledge = st->c.know;
	st->share = fb_params_double(&run->params, "vote");
	st->code_rule = fb_params_choice(&run->params, "vote_rule") == FB_FEDPC_VOTE_CODE;
	st->c.extend = fb_params_bool(&run->params, "extend");
	st->secure = !st->two && run->fedopt.secure;
	if (fedpc_check(run, &st->opt, err) != FB_OK || (!st->two &&
	    fedpc_secure_check(run, err) != FB_OK)) {
		simple_destroy(run);
		return FB_ERR;
	}
	fb_msg_doubles(fb_fed_broadcast(run->fed), 0);
	fb_msg_bytes(fb_fed_broadcast(run->fed), 0);
	return FB_OK;
}

/* The one round. */
static int simple_step(fb_run *run, double *fig, fb_error *err)
{
	simple_state *st = run->state;
	double tests = 0;

	if (fb_fed_round(run->fed, st->secure ? &simple_sum_ops : &simple_ops, st, err) != FB_OK)
		return FB_ERR;
	for (size_t m = 0; m < st->c.k; m++)
		if (fb_fed_took_part(run->fed, m))
			tests += fb_fed_client_figure(run->fed, m);
	fig[0] = (double)fb_graph_n_edges(st->c.graph);
	fig[1] = tests;
	fig[2] = (double)st->colliders;
	fig[3] = (double)st->conflicts;
	fb_run_say(run, "each client ran PC alone and sent its %s; the server kept the %zu edge%s "
	           "that at least %zu of %zu clients found%s", st->two ? "skeleton and separating "
	           "sets" : "graph", (size_t)fig[0], fig[0] == 1 ? "" : "s", st->c.need,
	           st->c.heard, st->two ? ", then oriented colliders" : "");
	return FB_OK;
}

/* Finished after the round. */
static bool simple_done(const fb_run *run)
{
	return ((const simple_state *)run->state)->c.done;
}

/* The combined graph. */
static fb_graph *simple_result(const fb_run *run, fb_error *err)
{
	return fedpc_common_result(run->state, run->name, err);
}

/* What the result is. */
static const char *simple_note(const fb_run *run)
{
	const simple_state *st = run->state;

	if (st->c.extend)
		return "extended to a DAG (Dor and Tarsi), as the FedPC paper scores it";
	if (!st->two)
		return "directed edges kept by enough client DAGs; a pair whose two directions tie "
		       "is undirected; no cycle removal";
	return "the result is a CPDAG (undirected edges where the data cannot tell the "
	       "direction; SHD counts an undirected estimate over a true edge as correct)";
}

/* Parameters: the clients' PC, the vote, the result's form. */
static const fb_param_def simple_params[] = {
	FEDPC_TEST_PARAMS,
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL,
	  "largest conditioning set of the clients' PC (-1: no limit)" },
	{ "colliders", FB_PARAM_CHOICE, "strength", 0, 0, fb_pc_colliders,
	  "the clients' PC orients colliders by increasing p of their test, or by index" },
	FEDPC_VOTE_PARAMS,
	{ "extend", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "return a DAG extension of the result (Dor and Tarsi), as the FedPC paper scores" },
	{ 0 },
};

/* Per-round figures. */
static const char *const simple_figures[] = { "edges", "tests", "colliders", "conflicts",
	                                      NULL };

/* PC's options, read from the parameters (FedPC's clients run PC). */
FB_ALGO_OPTIONS(pc_options, fb_pc_options, fb_pc_options_init, fb_pc_options_from_params);

const fb_algo fb_algo_fedpc_simple1 = {
	.name = "fedpc-simple1", .summary = "FedPC-Simple-I: vote on the clients' PC DAGs",
	.intro = "A simpler variant of FedPC, kept for comparison: each client learns a whole "
	         "graph on its own rows and points every edge, and the server keeps the arrows "
	         "that enough clients agree on. It takes one round, and the result can contain "
	         "cycles.",
	.help = "FedPC-Simple-I, an ablation in the FedPC paper: each client runs PC on its own "
	        "rows (the pc learner's settings) and extends its CPDAG to a DAG (Dor and "
	        "Tarsi); it sends the DAG, two bits per pair. The server keeps i -> j when more "
	        "than vote (0.3) of the clients have it (vote_rule as in fedpc); when both "
	        "directions of a pair pass, the one with more votes, and an undirected edge on "
	        "a tie; knowledge: each client's PC honours it as pc does, and the server "
	        "joins required arcs and points the edges with a forbidden direction the other "
	        "way. One round; the result may be cyclic.",
	.flags = FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = simple_params, .figures = simple_figures, .client_figure = "tests",
	.create = simple_create, .step = simple_step, .done = simple_done,
	.result = simple_result, .destroy = simple_destroy, .note = simple_note,
	.options = &pc_options,
};

const fb_algo fb_algo_fedpc_simple2 = {
	.name = "fedpc-simple2",
	.summary = "FedPC-Simple-II: voted PC skeletons, intersected separating sets",
	.intro = "A simpler variant of FedPC, kept for comparison: each client learns a graph "
	         "on its own rows and sends which pairs it kept joined and which variables "
	         "separated the others; the server votes on the edges, then points them. It "
	         "takes one round.",
	.help = "FedPC-Simple-II, an ablation in the FedPC paper: each client runs PC on its "
	        "own rows and sends its skeleton (one bit per pair) and the separating set of "
	        "every pair it separated. The server keeps an edge found by more than vote "
	        "(0.3) of the clients (vote_rule as in fedpc); the separating set of a pair it "
	        "drops is the intersection of the sets of the clients that separated it "
	        "(clients that kept the edge have no set and take no part; at least one "
	        "client separated every dropped pair). A triple i - k - j with k outside that "
	        "set becomes i -> k <- j, in index order (middle, then ends), never "
	        "re-orienting an edge; then Meek's R1-R3. Knowledge: each client's PC honours "
	        "it as pc does, and before the colliders the server joins required arcs and "
	        "points the edges with a forbidden direction the other way. One round; the "
	        "result is a CPDAG.",
	.flags = FB_ALGO_REMOTE,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = simple_params, .figures = simple_figures, .client_figure = "tests",
	.create = simple_create, .step = simple_step, .done = simple_done,
	.result = simple_result, .destroy = simple_destroy, .note = simple_note,
	.options = &pc_options, .detail = FB_DETAIL_VOTES,
};
