/* Tests of the federation, runs and combinators: messages never grow with a client's rows,
 * the ledger counts what the algorithm implies, threads and seeds change nothing, partial
 * participation takes the asked share, and the combinators' rules on hand-made graphs.  What
 * the trace keeps for replaying a run: every algorithm writes one sentence per round (FedPC's
 * counts in it are the round's own); each round keeps its estimate and its messages,
 * readable through the algorithm; the oldest rounds' detail goes first past the budget.  A
 * memo of local fits changes no result. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/sim.h"
#include "../../src/lib/algo/combine.h"

/* A simulated dataset with its truth. */
typedef struct fixture {
	fb_dataset *ds;  /* the data */
	fb_graph *truth; /* its DAG */
} fixture;

/* Generated linear Gaussian data with d variables and d edges, discrete of them cut into
 * three levels, and its truth. */
static fixture make_data_cut(size_t d, size_t n, uint64_t seed, size_t discrete)
{
	fb_sim_options o;
	fixture f;
	fb_error err;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = d;
	o.n = n;
	o.seed = seed;
	o.discrete = discrete;
	assert_int_equal(fb_sim_generate(&o, &f.ds, &f.truth, &err), FB_OK);
	return f;
}

/* Simulate d variables, n rows. */
static fixture make_data(size_t d, size_t n, uint64_t seed)
{
	return make_data_cut(d, n, seed, 0);
}

/* Split horizontally into k clients with the given sizes ("" for even). */
static fb_partition *split(const fb_dataset *ds, size_t k, const char *sizes)
{
	fb_split_options o;
	fb_error err;
	fb_partition *p;

	fb_split_options_init(&o);
	if (sizes[0] != '\0') {
		o.sizes = FB_SIZES_LIST;
		o.size_list = sizes;
	}
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, &err);
	assert_non_null(p);
	return p;
}

/* Start notears-admm with default parameters (and max_rounds when > 0). */
static fb_run *start_admm(const fixture *f, const fb_partition *p, size_t threads,
                          int64_t rounds)
{
	fb_fed_options fo;
	fb_error err = { { 0 } };
	fb_params params;
	char word[32];
	fb_run *run;

	fb_fed_options_init(&fo);
	fo.threads = threads;
	fb_params_init(&params, fb_algo_params(&fb_algo_notears_admm, NULL), &err);
	if (rounds > 0) {
		snprintf(word, sizeof word, "max_rounds=%lld", (long long)rounds);
		assert_int_equal(fb_params_set_word(&params, word, "t", &err), FB_OK);
	}
	run = fb_run_alloc(&(fb_run_spec){ .algo = "notears-admm", .params = &params, .fedopt = &fo,
	                                   .data = f->ds, .part = p, .truth = f->truth },
	                   &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("%s", err.msg);
	return run;
}

/* Every message is d*d numbers down and d*d + 2 up, whatever the client's rows; the
 * ledger's totals are rounds * clients * that * 8 bytes each way. */
static void test_message_sizes(void **state)
{
	fixture f = make_data(6, 120, 3);
	fb_partition *p = split(f.ds, 3, "10,30,80");
	fb_run *run = start_admm(&f, p, 1, 5);
	fb_error err;
	const fb_ledger *l;

	while (!fb_run_done(run))
		assert_int_equal(fb_run_step(run, &err), FB_OK);
	l = fb_fed_ledger(run->fed);
	assert_int_equal(fb_run_rounds(run), 5);
	assert_int_equal(l->n, 5 * 3 * 2);
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(l->e[i].bytes,
		                 (l->e[i].dir == FB_UP ? 38 : 36) * sizeof(double));
	assert_int_equal(fb_run_bytes(run, FB_UP), 5 * 3 * 38 * 8);
	assert_int_equal(fb_run_bytes(run, FB_DOWN), 5 * 3 * 36 * 8);
	assert_int_equal(fb_run_last(run)->bytes_up, 3 * 38 * 8);
	fb_run_free(run);
	fb_partition_free(p);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* threads=1 and threads=3 give the same W, bit for bit; so does a second identical run. */
static void test_threads_bit_identical(void **state)
{
	fixture f = make_data(8, 200, 5);
	fb_partition *p = split(f.ds, 5, "");
	fb_run *a = start_admm(&f, p, 1, 30), *b = start_admm(&f, p, 3, 30);
	fb_run *c = start_admm(&f, p, 1, 30);
	double wa[64], wb[64], wc[64];
	fb_error err;

	while (!fb_run_done(a)) {
		assert_int_equal(fb_run_step(a, &err), FB_OK);
		assert_int_equal(fb_run_step(b, &err), FB_OK);
		assert_int_equal(fb_run_step(c, &err), FB_OK);
	}
	assert_int_equal(fb_run_weights(a, wa, &err), FB_OK);
	assert_int_equal(fb_run_weights(b, wb, &err), FB_OK);
	assert_int_equal(fb_run_weights(c, wc, &err), FB_OK);
	assert_memory_equal(wa, wb, sizeof wa);
	assert_memory_equal(wa, wc, sizeof wa);
	assert_true(fabs(wa[1]) + fabs(wa[8]) > 0.0 || fb_graph_n_edges(f.truth) > 0);
	fb_run_free(a);
	fb_run_free(b);
	fb_run_free(c);
	fb_partition_free(p);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* The two halves of a toy algorithm: each client sends one number; the server counts. */
static int toy_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	fb_msg_doubles(up, 1)[0] = (double)k;
	*figure = (double)k;
	return FB_OK;
}

/* The toy server: counts the replies into the broadcast. */
static int toy_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                      fb_error *err)
{
	size_t *heard = state;

	*heard = 0;
	for (size_t m = 0; m < k; m++)
		*heard += up[m] != NULL;
	fb_msg_doubles(down, 1)[0] = (double)*heard;
	return FB_OK;
}

/* A share of 0.3 of 10 clients takes exactly 3 per round, chosen by the seed. */
static void test_participation(void **state)
{
	static const fb_fed_ops ops = { .client = toy_client, .server = toy_server };
	fixture f = make_data(4, 100, 1);
	fb_partition *p = split(f.ds, 10, "");
	fb_fed_options o;
	fb_federation *f1, *f2;
	fb_error err;
	size_t heard, differ = 0;

	fb_fed_options_init(&o);
	o.share = 0.3;
	o.seed = 9;
	f1 = fb_fed_alloc(p, &o, &err);
	f2 = fb_fed_alloc(p, &o, &err);
	for (int r = 0; r < 20; r++) {
		size_t took = 0;

		assert_int_equal(fb_fed_round(f1, &ops, &heard, &err), FB_OK);
		assert_int_equal(heard, 3);
		assert_int_equal(fb_fed_round(f2, &ops, &heard, &err), FB_OK);
		for (size_t k = 0; k < 10; k++) {
			took += fb_fed_took_part(f1, k);
			assert_int_equal(fb_fed_took_part(f1, k), fb_fed_took_part(f2, k));
			differ += r > 0 && fb_fed_took_part(f1, k) != (k < 3);
		}
		assert_int_equal(took, 3);
	}
	assert_true(differ > 0); /* not always the same three */
	assert_int_equal(fb_ledger_bytes(fb_fed_ledger(f1), 0, FB_UP), 20 * 3 * 8);
	fb_fed_free(f1);
	fb_fed_free(f2);
	fb_partition_free(p);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* A summed toy: client k sends three numbers whose sum depends on the order they are added
 * in, and sits out every third round after the first when k is 1 with an empty reply. */
static int sum_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	double *v;

	if (k == 1 && down->nd == 1 && (size_t)down->d[0] % 3 == 2) {
		fb_msg_doubles(up, 0);
		return FB_OK;
	}
	v = fb_msg_doubles(up, 3);
	v[0] = 0.1 * (double)(k + 1);
	v[1] = (k % 2 == 0 ? 1e16 : -1e16) + (double)k;
	v[2] = 1.0 / (double)(k + 3);
	*figure = v[0];
	return FB_OK;
}

/* What the summed toy's server saw: its last sum and count, the rounds it ran. */
typedef struct sum_seen {
	double sum[3];   /* the last sum */
	size_t count;    /* clients in it */
	size_t silent;   /* empty replies */
	size_t rounds;   /* rounds the server half ran */
} sum_seen;

/* The summed toy's server: keeps what the federation handed it; the broadcast is the round. */
static int sum_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	sum_seen *seen = state;

	assert_int_equal(in->n, 3);
	memcpy(seen->sum, in->sum, sizeof seen->sum);
	seen->count = in->count;
	seen->silent = in->silent;
	fb_msg_doubles(down, 1)[0] = (double)++seen->rounds;
	return FB_OK;
}

/* A server half on the replies themselves: a summed algorithm must never reach it. */
static int sum_server_replies(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                              fb_error *err)
{
	fail_msg("the server of a summed algorithm was handed the clients' replies");
	return FB_ERR;
}

/* The summed toy's vectors hold three numbers. */
static size_t sum_len(const void *state)
{
	return 3;
}

/* The summed toy over 7 clients for 6 rounds on threads threads: the server sees only sums,
 * each the replies added in client order, whatever the thread count; the ledger counts every
 * client's reply. */
static void sum_rounds(size_t threads, sum_seen *seen)
{
	static const fb_fed_ops ops = { .client = sum_client, .server = sum_server_replies,
		                        .server_sum = sum_server, .sum_len = sum_len };
	fixture f = make_data(4, 70, 2);
	fb_partition *p = split(f.ds, 7, "");
	fb_fed_options o;
	fb_federation *fed;
	fb_error err;

	fb_fed_options_init(&o);
	o.threads = threads;
	fed = fb_fed_alloc(p, &o, &err);
	fb_msg_doubles(fb_fed_broadcast(fed), 1)[0] = 0;
	memset(seen, 0, sizeof *seen);
	for (int r = 0; r < 6; r++) {
		double want[3] = { 0, 0, 0 };
		size_t n = 0;

		assert_int_equal(fb_fed_round(fed, &ops, seen, &err), FB_OK);
		for (size_t k = 0; k < 7; k++) {
			const fb_msg *m = fb_fed_round_up(fed, k);

			for (size_t q = 0; q < m->nd; q++)
				want[q] += m->d[q];
			n += m->nd > 0;
		}
		assert_memory_equal(seen->sum, want, sizeof want);
		assert_int_equal(seen->count, n);
		assert_int_equal(seen->silent, 7 - n);
		assert_int_equal(n, r % 3 == 2 ? 6 : 7);
		assert_int_equal(fb_ledger_bytes(fb_fed_ledger(fed), (size_t)r + 1, FB_UP), n * 24);
	}
	assert_int_equal(seen->rounds, 6);
	fb_fed_free(fed);
	fb_partition_free(p);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* A summed algorithm's server is handed the sum and the count alone, the same doubles on one
 * thread and on two (the sums here change with the order of the additions). */
static void test_summed_route(void **state)
{
	sum_seen one, two;
	double other = 0;

	sum_rounds(1, &one);
	sum_rounds(2, &two);
	assert_memory_equal(&one, &two, sizeof one);
	for (size_t k = 7; k-- > 0;) /* the last round's in the other order: other bits */
		if (k != 1)
			other += (k % 2 == 0 ? 1e16 : -1e16) + (double)k;
	assert_true(other != one.sum[1]);
}

/* fb_fed_sum: clients that sat out are skipped, empty replies counted as silent, and a reply
 * of another length, or holding a NaN, is refused, naming the client. */
static void test_fed_sum(void **state)
{
	fb_msg a = { 0 }, b = { 0 }, c = { 0 };
	const fb_msg *up[4] = { &a, NULL, &b, &c };
	double sum[2];
	size_t count, silent;
	fb_error err;

	fb_msg_doubles(&a, 2)[0] = 1.5, a.d[1] = -2;
	fb_msg_doubles(&b, 0);
	fb_msg_doubles(&c, 2)[0] = 0.25, c.d[1] = 4;
	assert_int_equal(fb_fed_sum(up, 4, 2, sum, &count, &silent, &err), FB_OK);
	assert_true(sum[0] == 1.75 && sum[1] == 2.0);
	assert_int_equal(count, 2);
	assert_int_equal(silent, 1);
	fb_msg_doubles(&b, 3);
	assert_int_equal(fb_fed_sum(up, 4, 2, sum, &count, &silent, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "client 3 sent 3 numbers"));
	fb_msg_doubles(&b, 0);
	c.d[1] = NAN;
	assert_int_equal(fb_fed_sum(up, 4, 2, sum, &count, &silent, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "client 4 sent NaN (number 2 of 2)"));
	fb_msg_release(&a);
	fb_msg_release(&b);
	fb_msg_release(&c);
}

/* The combinators that need only sums say so, and those that need each client's graph do
 * not; so do the learners (notears-admm's server is handed the sum of B_k + beta_k/rho2). */
static void test_summed_declared(void **state)
{
	static const char *const summed[] = { "voting", "avg", "gs-feddag", "as-feddag",
		                              "as-feddag-linear", "notears-admm", "fedpc",
		                              "fedpc-simple1", "fedc2sl",
		                              "fedfci-pooled", NULL };
	size_t found = 0;

	for (const fb_algo *const *a = fb_algo_table; *a != NULL; a++) {
		bool listed = false;

		for (const char *const *n = summed; *n != NULL; n++)
			listed = listed || strcmp(*n, (*a)->name) == 0;
		if ((((*a)->flags & FB_ALGO_SUMMED) != 0) != listed)
			fail_msg("%s %s FB_ALGO_SUMMED", (*a)->name, listed ? "lacks" : "has");
		found += listed;
	}
	assert_int_equal(found, 10);
	assert_false(fb_algo_best.flags & FB_ALGO_SUMMED);
	assert_false(fb_algo_sep.flags & FB_ALGO_SUMMED);
}

/* A transport to another "process" for the tests: each client in io->part answers with the
 * toy client's half, counted as its payload plus a 40-byte header and 8 bytes per control
 * number (a client not drawn sends the header alone), except that client 2 stops answering
 * from round 3 on: lost when the round tolerates it, else named in an error. */
static int lossy_exchange(fb_transport *t, fb_round_io *io, fb_error *err)
{
	for (size_t m = 0; m < io->k; m++) {
		bool listen = io->drawn != NULL && !io->drawn[m];

		if (!io->part[m])
			continue;
		if (m == 1 && io->round >= 3) {
			if (!io->tolerate)
				return fb_fail(err, "client 2 did not answer round %zu", io->round);
			io->lost[m] = true;
			snprintf(io->errs[m].msg, sizeof io->errs[m].msg, "client 2 did not answer "
			         "round %zu", io->round);
			continue;
		}
		toy_client(NULL, m, NULL, io->down, &io->up[m], &io->figure[m], err);
		io->bytes_down[m] = 40 + fb_msg_size(io->down) + 8 * io->down->nc;
		io->bytes_up[m] = 40 + (listen ? 0 : fb_msg_size(&io->up[m]));
	}
	return FB_OK;
}

/* Six rounds of the toy algorithm over p through the lossy transport, drawing draw clients a
 * round (0: by the share) with everyone computing when asked: the rounds that gave news in
 * *news, FB_ERR at the first failing round (its error in err). */
static int lossy_rounds(fb_partition *p, double share, size_t draw, bool everyone,
                        fb_federation **fed, size_t *news, fb_error *err)
{
	static const fb_fed_ops ops = { .client = toy_client, .server = toy_server };
	static fb_transport tr = { "lossy", (size_t)-1, NULL, lossy_exchange, NULL };
	fb_fed_options o;
	size_t heard;

	fb_fed_options_init(&o);
	o.share = share;
	o.seed = 4;
	p->transport = &tr;
	*fed = fb_fed_alloc(p, &o, err);
	fb_fed_set_draw(*fed, draw);
	fb_fed_set_everyone(*fed, everyone);
	*news = 0;
	for (int r = 0; r < 6; r++) {
		if (fb_fed_round(*fed, &ops, &heard, err) != FB_OK)
			return FB_ERR;
		if (fb_fed_news(*fed) != NULL) {
			assert_non_null(strstr(fb_fed_news(*fed), "client 2 did not answer round"));
			assert_non_null(strstr(fb_fed_news(*fed), "goes on without it"));
			++*news;
		}
		if (r >= 2)
			assert_false(fb_fed_took_part(*fed, 1));
	}
	return FB_OK;
}

/* A client that stops answering is left out where only some clients are drawn each round
 * (said once; it takes part in no later round), and ends the run where every client is
 * needed; a client that computes undrawn costs a bare header up over another process. */
static void test_lost_client(void **state)
{
	fixture f = make_data(4, 100, 1);
	fb_partition *p = split(f.ds, 4, "");
	fb_federation *fed;
	fb_error err = { { 0 } };
	const fb_ledger *l;
	size_t news;

	assert_int_equal(lossy_rounds(p, 0.5, 0, false, &fed, &news, &err), FB_OK);
	assert_int_equal(news, 1);
	assert_true(fb_fed_gone(fed, 1));
	assert_true(isnan(fb_fed_client_figure(fed, 1)));
	fb_fed_free(fed);
	assert_int_equal(lossy_rounds(p, 1.0, 0, false, &fed, &news, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "client 2 did not answer round 3"));
	assert_int_equal(fb_fed_rounds(fed), 2);
	fb_fed_free(fed);
	assert_int_equal(lossy_rounds(p, 1.0, 2, true, &fed, &news, &err), FB_OK);
	assert_int_equal(news, 1); /* every client computes: client 2 is missed in round 3 */
	l = fb_fed_ledger(fed);
	for (size_t r = 1; r <= 6; r++) {
		size_t ups = 0, bare = 0;

		for (size_t i = 0; i < l->n; i++) {
			if (l->e[i].round != r || l->e[i].dir != FB_UP)
				continue;
			assert_true(l->e[i].bytes == 40 || l->e[i].bytes == 48);
			ups++;
			bare += l->e[i].bytes == 40;
		}
		/* one reply from each client that computed: 4, then 3 once client 2 is gone;
		 * while all 4 are there, 2 of them undrawn, answering with a bare header */
		assert_int_equal(ups, r < 3 ? 4 : 3);
		if (r < 3)
			assert_int_equal(bare, 2);
	}
	fb_fed_free(fed);
	p->transport = NULL;
	fb_partition_free(p);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* Names A, B, C, D. */
static char name_text[4][2] = { "A", "B", "C", "D" };
static char *names4[] = { name_text[0], name_text[1], name_text[2], name_text[3] };

/* Voting keeps marks found by more than half of the clients heard. */
static void test_vote(void **state)
{
	/* A->B in 3 of 4; B->C in 2 of 4 (exactly half: dropped); C-D undirected in 3 of 4 */
	double g1[16] = { 0 }, g2[16] = { 0 }, g3[16] = { 0 }, g4[16] = { 0 };
	const double *mats[5] = { g1, g2, g3, g4, NULL };
	fb_graph *g;

	g1[0 * 4 + 1] = g2[0 * 4 + 1] = g3[0 * 4 + 1] = 1;
	g1[1 * 4 + 2] = g4[1 * 4 + 2] = 1;
	g1[2 * 4 + 3] = g1[3 * 4 + 2] = g2[2 * 4 + 3] = g2[3 * 4 + 2] = 1;
	g4[2 * 4 + 3] = g4[3 * 4 + 2] = 1;
	g = fb_combine_vote(mats, 5, 4, 0.5, names4);
	assert_int_equal(fb_graph_edge(g, 0, 1), FB_EDGE_FORWARD);
	assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_NONE);
	assert_int_equal(fb_graph_edge(g, 2, 3), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_n_edges(g), 2);
	fb_graph_free(g);
	g = fb_combine_vote(mats, 5, 4, 0.25, names4); /* more than 1 of 4: B->C now kept */
	assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_FORWARD);
	fb_graph_free(g);
}

/* The vote from the sum of the clients' 0/1 marks (what a summed federation hands the
 * server) is the vote from their matrices. */
static void test_vote_from_sum(void **state)
{
	double g[3][16] = { { 0 } }, count[16];
	fb_msg m[3] = { { 0 } };
	const fb_msg *up[4] = { &m[0], &m[1], NULL, &m[2] };
	const double *mats[4] = { g[0], g[1], NULL, g[2] };
	size_t heard, silent;
	fb_error err;

	g[0][1] = g[1][1] = 0.7, g[2][1] = -2; /* A->B, weights as a learner sends them */
	g[0][6] = 1, g[1][11] = g[1][14] = 1;  /* B->C once, C-D once */
	g[2][11] = g[2][14] = 1;               /* C-D twice */
	for (int c = 0; c < 3; c++)
		for (int e = 0; e < 16; e++)
			fb_msg_doubles(&m[c], 16)[e] = g[c][e] != 0.0;
	assert_int_equal(fb_fed_sum(up, 4, 16, count, &heard, &silent, &err), FB_OK);
	assert_int_equal(heard, 3);
	for (double share = 0.2; share < 1; share += 0.3) {
		fb_graph *a = fb_combine_vote(mats, 4, 4, share, names4);
		fb_graph *b = fb_combine_vote_counts(count, heard, 4, share, names4);

		assert_memory_equal(a->mark, b->mark, 16);
		fb_graph_free(a);
		fb_graph_free(b);
	}
	for (int c = 0; c < 3; c++)
		fb_msg_release(&m[c]);
}

/* Averaging: the mean, the threshold, the larger direction of a pair, no diagonal. */
static void test_average(void **state)
{
	double g1[16] = { 0 }, g2[16] = { 0 }, sum[16];
	fb_graph *g;

	g1[0 * 4 + 1] = 1.0, g2[0 * 4 + 1] = 0.0;   /* mean 0.5: kept */
	g1[1 * 4 + 2] = 0.5, g2[1 * 4 + 2] = 0.1;   /* mean 0.3: at the threshold, dropped */
	g1[2 * 4 + 3] = 0.8, g2[3 * 4 + 2] = -1.2;  /* C->D 0.4, D->C -0.6: D->C kept */
	g1[0] = 5.0;                                /* diagonal: never an edge */
	for (int e = 0; e < 16; e++)
		sum[e] = g1[e] + g2[e];
	g = fb_combine_mean(sum, 2, 4, 0.3, names4);
	assert_int_equal(fb_graph_edge(g, 0, 1), FB_EDGE_FORWARD);
	assert_true(g->w[0 * 4 + 1] == 0.5);
	assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_NONE);
	assert_int_equal(fb_graph_edge(g, 3, 2), FB_EDGE_FORWARD);
	assert_true(g->w[3 * 4 + 2] == -0.6);
	assert_int_equal(fb_graph_n_edges(g), 2);
	fb_graph_free(g);
}

/* Best: the lowest SHD against the truth, the first on a tie. */
static void test_best(void **state)
{
	fb_graph *truth = fb_graph_alloc(3), *gs[3];

	fb_graph_set_directed(truth, 0, 1, 1);
	fb_graph_set_directed(truth, 1, 2, 1);
	for (int m = 0; m < 3; m++)
		gs[m] = fb_graph_alloc(3);
	fb_graph_set_directed(gs[0], 1, 0, 1); /* reversed + missing: SHD 2 */
	fb_graph_set_directed(gs[1], 0, 1, 1); /* missing one: SHD 1 */
	fb_graph_set_directed(gs[2], 1, 2, 1); /* missing one: SHD 1 (tie, later) */
	assert_int_equal(fb_combine_best(gs, 3, truth), 1);
	for (int m = 0; m < 3; m++)
		fb_graph_free(gs[m]);
	fb_graph_free(truth);
}

/* Combinators refuse what they cannot do, with the reason. */
static void test_refusals(void **state)
{
	const fb_algo *a, *in;
	fb_error err = { { 0 } };
	fixture f = make_data(4, 60, 2);
	fb_run *run;

	assert_int_equal(fb_algo_lookup("voting", &a, &in, &err), FB_ERR);
	assert_string_equal(err.msg, "voting combines a learner's client graphs: write "
	                             "voting:LEARNER, e.g. voting:notears");
	assert_int_equal(fb_algo_lookup("voting:notears-admm", &a, &in, &err), FB_ERR);
	assert_string_equal(err.msg, "notears-admm is not a learner that runs on one dataset, so "
	                             "it cannot be combined");
	assert_int_equal(fb_algo_lookup("vote:notears", &a, &in, &err), FB_ERR);
	assert_string_equal(err.msg, "unknown combinator 'vote' (there are: all, sep, voting, "
	                             "avg, best)");
	run = fb_run_alloc(&(fb_run_spec){ .algo = "notears-admm", .data = f.ds, .truth = f.truth },
	                   &err);
	assert_null(run);
	assert_string_equal(err.msg, "notears-admm runs over clients: split the data first");
	run = fb_run_alloc(&(fb_run_spec){ .algo = "best:notears", .data = f.ds }, &err);
	assert_null(run);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* Every algorithm says which kinds of data and split it takes, and fb_run_alloc refuses the
 * others in one sentence: a learner's kind of data through its combinator, the kind of
 * split; a split given to a learner of one dataset is not used. */
static void test_accepts(void **state)
{
	char a[] = "a", b[] = "b", *levels[] = { a, b };
	fb_error err = { { 0 } };
	fixture f = make_data(4, 60, 2);
	fb_partition *h = split(f.ds, 2, ""), *v;
	fb_run *run;

	(void)state;
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		assert_true(fb_algo_table[i]->accepts & FB_ACCEPTS_ANY_DATA);
		assert_true(fb_algo_table[i]->accepts & (FB_ACCEPTS_ONE | FB_ACCEPTS_SPLITS));
	}
	v = fb_split(f.ds, FB_SPLIT_VERTICAL, 2, NULL, &err);
	assert_non_null(v);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "voting:notears", .data = f.ds, .part = v },
	                   &err);
	assert_null(run);
	assert_string_equal(err.msg, "voting:notears needs a horizontal split (every client "
	                             "holding every variable), not vertical 2");
	run = fb_run_alloc(&(fb_run_spec){ .algo = "pc", .data = f.ds, .part = h }, &err);
	assert_non_null(run);
	assert_null(run->part);
	fb_run_free(run);
	assert_int_equal(fb_dataset_set_levels(f.ds, 0, levels, 2, &err), FB_OK);
	for (size_t i = 0; i < f.ds->n; i++)
		f.ds->x[i * f.ds->d] = (double)(i % 2);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "voting:notears", .data = f.ds, .part = h },
	                   &err);
	assert_null(run);
	assert_string_equal(err.msg, "voting:notears needs continuous variables, and the data "
	                             "has 1 discrete one (pc, fedpc and ges take mixed data "
	                             "with the dg test and score)");
	run = fb_run_alloc(&(fb_run_spec){ .algo = "voting:pc", .data = f.ds, .part = h }, &err);
	assert_non_null(run);
	fb_run_free(run);
	fb_partition_free(v);
	fb_partition_free(h);
	fb_dataset_free(f.ds);
	fb_graph_free(f.truth);
}

/* A simulated dataset with its truth and a horizontal split over k clients. */
typedef struct split_fixture {
	fb_dataset *ds;     /* the data */
	fb_graph *truth;    /* its DAG */
	fb_partition *part; /* the split */
} split_fixture;

/* Simulate d variables, n rows, split evenly over k clients. */
static split_fixture make_fixture(size_t d, size_t n, size_t k, uint64_t seed)
{
	fixture f = make_data(d, n, seed);

	return (split_fixture){ f.ds, f.truth, split(f.ds, k, "") };
}

/* Free a split fixture. */
static void free_fixture(split_fixture *f)
{
	fb_partition_free(f->part);
	fb_dataset_free(f->ds);
	fb_graph_free(f->truth);
}

/* Start name with its defaults and the given parameter words (NULL-terminated). */
static fb_run *start_algo(const split_fixture *f, const char *name, const char *const *words)
{
	const fb_algo *a, *inner;
	fb_error err = { { 0 } };
	fb_params params;
	fb_run *run;

	assert_int_equal(fb_algo_lookup(name, &a, &inner, &err), FB_OK);
	fb_params_init(&params, fb_algo_params(a, inner), &err);
	for (size_t i = 0; words != NULL && words[i] != NULL; i++)
		assert_int_equal(fb_params_set_word(&params, words[i], name, &err), FB_OK);
	run = fb_run_alloc(&(fb_run_spec){ .algo = name, .params = &params, .data = f->ds,
	                                   .part = f->part, .truth = f->truth },
	                   &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("%s: %s", name, err.msg);
	return run;
}

/* Step run to its end (at most max rounds). */
static void run_to_end(fb_run *run, size_t max)
{
	fb_error err = { { 0 } };

	while (!fb_run_done(run) && fb_run_rounds(run) < max)
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s: %s", run->name, err.msg);
}

/* Run name on f (fedcircuit-em on v, clients holding the same rows) for a few rounds and
 * check that every round wrote a sentence. */
static void check_says(const split_fixture *f, const split_fixture *v, const char *name)
{
	static const char *const few[] = { "max_rounds=3", NULL };
	fb_run *run = start_algo(strcmp(name, "fedcircuit-em") == 0 ? v : f, name,
	                         strcmp(name, "notears-admm") == 0 ? few : NULL);

	/* the masked learners' rounds are slow: their first two are enough here */
	run_to_end(run, strstr(name, "dag") != NULL || strstr(name, "mcsl") ||
	                strstr(name, "mlp") ? 2 : 50);
	assert_true(fb_run_rounds(run) > 0);
	for (size_t r = 0; r < run->trace.n; r++) {
		const char *say = run->trace.r[r].say;

		if (say == NULL || strlen(say) < 20)
			fail_msg("%s, round %zu: no sentence", name, r + 1);
	}
	fb_run_free(run);
}

/* Every algorithm and combinator writes a sentence in every round: each learner of the
 * registry, each combinator over notears, and the combinations below. */
static void test_every_round_says(void **state)
{
	static const char *const also[] = { "all:pc", "best:pc", "all:circuit", "sep:circuit",
		                            NULL };
	split_fixture f = make_fixture(5, 200, 3, 4);
	fb_split_options vo;
	fb_error verr;
	split_fixture v = f;
	fixture c = make_data_cut(5, 400, 4, 5);
	split_fixture cut = { c.ds, c.truth, split(c.ds, 3, "") };

	fb_split_options_init(&vo);
	v.part = fb_split(f.ds, FB_SPLIT_VERTICAL, 2, &vo, &verr);
	assert_non_null(v.part);
	for (size_t a = 0; fb_algo_table[a] != NULL; a++) {
		const fb_algo *al = fb_algo_table[a];
		char *name = fb_xasprintf("%s%s", al->name,
		                          (al->flags & FB_ALGO_COMBINATOR) ? ":notears" : "");

		if (al->accepts & FB_ACCEPTS_CONTINUOUS)
			check_says(&f, &v, name);
		else
			check_says(&cut, &cut, name); /* discrete data only (fedc2sl) */
		free(name);
	}
	for (size_t i = 0; also[i] != NULL; i++)
		check_says(&f, &v, also[i]);
	fb_partition_free(v.part);
	free_fixture(&f);
	free_fixture(&cut);
}

/* fedpc's sentence says how many edges the clients voted on and the server kept, as the
 * round's figures count them. */
static void test_fedpc_sentence_counts(void **state)
{
	split_fixture f = make_fixture(6, 300, 4, 9);
	fb_run *run = start_algo(&f, "fedpc", NULL);

	run_to_end(run, 50);
	for (size_t r = 0; r + 1 < run->trace.n; r++) {
		const fb_trace_rec *rec = &run->trace.r[r];
		char want[160];

		snprintf(want, sizeof want, "layer %.0f: clients voted on %.0f edges; the server "
		         "kept %.0f that at least", rec->fig[0], rec->fig[1] + rec->fig[2],
		         rec->fig[1]);
		if (strncmp(rec->say, want, strlen(want)) != 0)
			fail_msg("round %zu says '%s', not '%s ...'", r + 1, rec->say, want);
		assert_non_null(strstr(rec->say, " of 4 clients kept"));
	}
	fb_run_free(run);
	free_fixture(&f);
}

/* Each round keeps the estimate it made: round 1's marks and weights, read after round 4,
 * are those the run gave right after round 1. */
static void test_rounds_keep_estimates(void **state)
{
	static const char *const words[] = { "max_rounds=4", NULL };
	split_fixture f = make_fixture(5, 200, 3, 6);
	fb_run *run = start_algo(&f, "notears-admm", words);
	fb_error err = { { 0 } };
	double w1[25];
	unsigned char m1[25];
	fb_graph *g1;

	run_to_end(run, 1);
	assert_int_equal(fb_run_weights(run, w1, &err), FB_OK);
	g1 = fb_run_result(run, &err);
	run_to_end(run, 4);
	assert_int_equal(fb_run_rounds(run), 4);
	assert_true(run->trace.r[0].est_kept);
	fb_trace_rec_marks(&run->trace.r[0], 5, m1);
	assert_memory_equal(m1, g1->mark, 25);
	assert_memory_equal(run->trace.r[0].w, w1, sizeof w1);
	assert_memory_not_equal(run->trace.r[0].w, run->trace.r[3].w, sizeof w1);
	fb_graph_free(g1);
	fb_run_free(run);
	free_fixture(&f);
}

/* A round keeps each client's message and its sizes; the algorithm writes NOTEARS-ADMM's
 * B_k out in words, value by value: a row per variable, named, its cells to two decimals
 * (0 below 0.005). */
static void test_messages_in_words(void **state)
{
	static const char *const words[] = { "max_rounds=3", NULL };
	split_fixture f = make_fixture(4, 200, 3, 8);
	fb_run *run = start_algo(&f, "notears-admm", words);
	const fb_trace_rec *rec;
	fb_error err = { { 0 } };
	fb_buf b = { 0 };
	char first[64], cell[16];
	double v;

	run_to_end(run, 3);
	rec = &run->trace.r[1];
	assert_int_equal(rec->nclients, 3);
	assert_int_equal(rec->sent[1], 18 * 8);
	assert_int_equal(rec->received[1], 16 * 8);
	assert_true(rec->msgs_kept);
	assert_int_equal(fb_run_message_text(run, rec, FB_UP, 1, &b, &err), FB_OK);
	v = rec->up[1].d[0];
	assert_true(fabs(v) < 10);
	if (fabs(v) < 0.005)
		snprintf(cell, sizeof cell, "0");
	else
		snprintf(cell, sizeof cell, "%.2f", v);
	snprintf(first, sizeof first, "\n%-5s %5s", f.ds->vars[0].name, cell);
	assert_non_null(strstr(b.data, "B_k"));
	assert_non_null(strstr(b.data, first));
	b.len = 0;
	assert_int_equal(fb_run_message_text(run, rec, FB_DOWN, 1, &b, &err), FB_OK);
	assert_non_null(strstr(b.data, "W, the server's consensus"));
	fb_buf_release(&b);
	fb_run_free(run);
	free_fixture(&f);
}

/* fedpc's votes are written as named pairs: a client's first-layer vote names every pair its
 * skeleton keeps. */
static void test_fedpc_votes_in_words(void **state)
{
	split_fixture f = make_fixture(5, 300, 3, 2);
	fb_run *run = start_algo(&f, "fedpc", NULL);
	fb_error err = { { 0 } };
	fb_buf b = { 0 };

	run_to_end(run, 1);
	assert_int_equal(fb_run_message_text(run, &run->trace.r[0], FB_UP, 0, &b, &err), FB_OK);
	assert_non_null(strstr(b.data, "votes to keep: "));
	assert_non_null(strstr(b.data, "-X"));
	b.len = 0;
	assert_int_equal(fb_run_message_text(run, &run->trace.r[0], FB_DOWN, 0, &b, &err), FB_OK);
	/* the first broadcast is the complete skeleton: all ten pairs */
	assert_non_null(strstr(b.data, "layer 0: "));
	assert_non_null(strstr(b.data, "X1-X2, X1-X3, X1-X4, X1-X5, X2-X3"));
	fb_buf_release(&b);
	fb_run_free(run);
	free_fixture(&f);
}

/* Past the budget the oldest rounds' detail is dropped, the newest always kept, and the
 * figures and sentences stay for every round. */
static void test_budget_drops_oldest(void **state)
{
	static const char *const words[] = { "max_rounds=6", NULL };
	split_fixture f = make_fixture(5, 200, 3, 6);
	fb_run *run = start_algo(&f, "notears-admm", words);
	size_t one;
	fb_error err = { { 0 } };
	fb_buf b = { 0 };

	run_to_end(run, 1);
	one = run->trace.r[0].kept;
	run->trace.keep_max = 2 * one; /* the newest round and two more */
	run_to_end(run, 6);
	for (size_t r = 0; r < 3; r++)
		assert_false(run->trace.r[r].est_kept || run->trace.r[r].msgs_kept);
	for (size_t r = 3; r < 6; r++)
		assert_true(run->trace.r[r].est_kept && run->trace.r[r].msgs_kept);
	assert_int_equal(run->trace.kept, 3 * one);
	assert_non_null(run->trace.r[0].say);
	assert_int_equal(fb_run_message_text(run, &run->trace.r[0], FB_UP, 0, &b, &err), FB_ERR);
	assert_string_equal(err.msg, "round 1's messages are no longer kept");
	fb_buf_release(&b);
	fb_run_free(run);
	free_fixture(&f);
}

/* Whether two graphs have the same marks and weights, bit for bit. */
static bool same_graph(const fb_graph *a, const fb_graph *b)
{
	return a->d == b->d && memcmp(a->mark, b->mark, a->d * a->d) == 0 &&
	       memcmp(a->w, b->w, a->d * a->d * sizeof *a->w) == 0;
}

/* Run name to its end with memo (NULL: none) and return its run. */
static fb_run *memo_run(const split_fixture *f, const char *name, const char *const *words,
                        fb_fit_memo *memo)
{
	fb_run *run = start_algo(f, name, words);

	run->memo = memo;
	run_to_end(run, 5);
	return run;
}

/* With a memo, avg: and sep: after voting: take the clients' fits instead of learning again,
 * and give what fresh runs give, bit for bit, client by client; another learner parameter,
 * or other rows, is another fit. */
static void test_memo_reuses_fits(void **state)
{
	split_fixture f = make_fixture(5, 150, 3, 8), g = make_fixture(5, 150, 3, 9);
	fb_fit_memo *memo = fb_fit_memo_alloc();
	const char *const other[] = { "lambda=0.05", NULL };
	fb_run *vote = memo_run(&f, "voting:notears", NULL, memo), *runs[4], *fresh[2];
	fb_error err;

	assert_int_equal(fb_fit_memo_hits(memo), 0);
	runs[0] = memo_run(&f, "avg:notears", NULL, memo);
	assert_int_equal(fb_fit_memo_hits(memo), 3);
	assert_non_null(strstr(fb_run_last(runs[0])->say, "(3 of them took their fit"));
	runs[1] = memo_run(&f, "sep:notears", NULL, memo);
	assert_int_equal(fb_fit_memo_hits(memo), 6);
	runs[2] = memo_run(&f, "avg:notears", other, memo);
	runs[3] = memo_run(&g, "avg:notears", NULL, memo);
	assert_int_equal(fb_fit_memo_hits(memo), 6);
	assert_null(strstr(fb_run_last(runs[2])->say, "took their fit"));
	fresh[0] = memo_run(&f, "avg:notears", NULL, NULL);
	fresh[1] = memo_run(&f, "sep:notears", NULL, NULL);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < (i == 0 ? 1 : 3); k++) {
			fb_graph *a = i == 0 ? fb_run_result(runs[0], &err)
			                     : runs[1]->algo->client_result(runs[1], k, &err);
			fb_graph *b = i == 0 ? fb_run_result(fresh[0], &err)
			                     : fresh[1]->algo->client_result(fresh[1], k, &err);

			assert_true(fb_graph_n_edges(b) > 0);
			assert_true(same_graph(a, b));
			fb_graph_free(a);
			fb_graph_free(b);
		}
	}
	fb_fit_memo_clear(memo);
	fb_run_free(memo_run(&f, "avg:notears", NULL, memo));
	assert_int_equal(fb_fit_memo_hits(memo), 6);
	for (int i = 0; i < 4; i++)
		fb_run_free(runs[i]);
	fb_run_free(fresh[0]);
	fb_run_free(fresh[1]);
	fb_run_free(vote);
	fb_fit_memo_free(memo);
	free_fixture(&f);
	free_fixture(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_sizes),
		cmocka_unit_test(test_threads_bit_identical),
		cmocka_unit_test(test_participation),
		cmocka_unit_test(test_lost_client),
		cmocka_unit_test(test_summed_route),
		cmocka_unit_test(test_fed_sum),
		cmocka_unit_test(test_summed_declared),
		cmocka_unit_test(test_vote),
		cmocka_unit_test(test_vote_from_sum),
		cmocka_unit_test(test_average),
		cmocka_unit_test(test_best),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_every_round_says),
		cmocka_unit_test(test_fedpc_sentence_counts),
		cmocka_unit_test(test_rounds_keep_estimates),
		cmocka_unit_test(test_messages_in_words),
		cmocka_unit_test(test_fedpc_votes_in_words),
		cmocka_unit_test(test_budget_drops_oldest),
		cmocka_unit_test(test_memo_reuses_fits),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
