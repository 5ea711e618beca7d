/* Tests of secure aggregation: Shamir's shares rebuild a secret from any t of them and not
 * from fewer; the fixed point keeps a number within half a step and refuses one beyond its
 * range, naming secure_bits=; the clients' masks cancel in the sum while no masked vector
 * shows its client's numbers; a lost client's masks are removed from the survivors' shares;
 * the same seed gives the same bits.  The federation with secure=yes hands its summed server
 * only sums over at least two clients, never a client's vector (the server half is
 * instrumented); the algorithms that take it give the plain run's graphs, their weights
 * within the fixed point's precision; every other is refused in one sentence, as are fewer
 * than 3 clients and t= above the client count.  fedpc's rounds, its orientation's
 * comparisons of the clients' p-values among them, go through the instrumented server half
 * as sums only, and its graph, sets and figures are the plain run's on generated and shared
 * data; with dp_epsilon= a huge epsilon gives the plain run, a noisy run the same bits on any
 * thread count, a small epsilon stops it in one sentence.  Over the local link the runs are the
 * in-process ones bit for bit, and a client killed mid-run has its masks removed from the
 * survivors' shares.  Differential privacy: the formula, the noise, the budget's stop. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../mpi/compare.h"
#include "../../src/lib/algo/pc/fedpc-int.h"
#include "fedbn/algo.h"
#include "fedbn/fedpc.h"
#include "fedbn/link.h"
#include "fedbn/secure.h"
#include "fedbn/sim.h"

/* Report one check of the shared study code (compare.c): a failure fails the test. */
void check(bool ok, const char *what, const char *name)
{
	if (!ok)
		fail_msg("%s: %s", name, what);
}

/* Clients of the protocol-level tests. */
#define K 5
/* Numbers of each vector there. */
#define N 4

/* Shamir: every choice of t of the n shares rebuilds the secret; t - 1 of them do not;
 * equal points are refused; the field's product and inverse agree. */
static void test_shamir(void **unused)
{
	unsigned char secret[32], seed[32], back[32];
	uint64_t shares[6 * FB_SHAMIR_WORDS], xs[6], pick[6 * FB_SHAMIR_WORDS];
	fb_error err;

	assert_int_equal(fb_sa_init(&err), FB_OK);
	for (int i = 0; i < 32; i++)
		secret[i] = (unsigned char)(7 * i + 1), seed[i] = (unsigned char)i;
	assert_int_equal(fb_gf_mul(fb_gf_inv(123456789), 123456789), 1);
	assert_int_equal(fb_gf_mul(FB_SHAMIR_P - 1, FB_SHAMIR_P - 1), 1);
	fb_shamir_split(secret, 3, 6, seed, shares);
	for (unsigned mask = 0; mask < 64; mask++) {
		size_t m = 0;

		for (size_t i = 0; i < 6; i++)
			if (mask & (1u << i)) {
				xs[m] = i + 1;
				memcpy(pick + m * FB_SHAMIR_WORDS, shares + i * FB_SHAMIR_WORDS,
				       sizeof *shares * FB_SHAMIR_WORDS);
				m++;
			}
		if (m < 2)
			continue;
		if (fb_shamir_combine(xs, pick, m, back, &err) == FB_OK && m >= 3)
			assert_memory_equal(back, secret, 32);
		else if (m >= 3)
			fail_msg("%zu shares did not combine: %s", m, err.msg);
		if (m == 2 && fb_shamir_combine(xs, pick, m, back, &err) == FB_OK)
			assert_memory_not_equal(back, secret, 32);
	}
	xs[0] = xs[1] = 2;
	assert_int_equal(fb_shamir_combine(xs, shares, 3, back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "same point"));
}

/* Fixed point: within half a step of 2^-bits; the range's edge; NaN and beyond refused. */
static void test_fixed(void **unused)
{
	double x[5] = { 0.1, -3.75, 1e-12, 123456.789, -0.5 }, back[5];
	uint64_t enc[5];
	double big = fb_fixed_bound(30, 8) * 1.01;
	fb_error err;

	assert_int_equal(fb_fixed_encode(x, 5, 30, 8, enc, &err), FB_OK);
	fb_fixed_decode(enc, 5, 30, back);
	for (int i = 0; i < 5; i++)
		assert_true(fabs(back[i] - x[i]) <= ldexp(1.0, -31));
	assert_true(fb_fixed_bound(30, 8) > 1e9 && fb_fixed_bound(30, 8) < 1.1e9);
	assert_int_equal(fb_fixed_encode(&big, 1, 30, 8, enc, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "set secure_bits= lower"));
	x[2] = NAN;
	assert_int_equal(fb_fixed_encode(x, 5, 30, 8, enc, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "number 3 of 5"));
}

/* The toy client: its vector is (k + 1) * (1, 0.5, -0.25, 1/3); client 3 (index 2) sends
 * nothing when silent is set. */
static int toy_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	const bool *silent = state;
	double *d;

	if (silent != NULL && *silent && k == 2) {
		fb_msg_doubles(up, 0);
		return FB_OK;
	}
	d = fb_msg_doubles(up, N);
	d[0] = (double)(k + 1), d[1] = 0.5 * (double)(k + 1);
	d[2] = -0.25 * (double)(k + 1), d[3] = (double)(k + 1) / 3.0;
	*figure = (double)k;
	return FB_OK;
}

/* The toy's halves (its server is never called here). */
static const fb_fed_ops toy_ops = { .client = toy_client };

/* A protocol of K clients: each side, their keys and shares exchanged. */
typedef struct study {
	fb_secure_client *c[K];
	fb_secure_server *s;
	fb_msg up[K];
} study;

/* Every client answers down (those flagged in to, all when NULL). */
static void answer_all(study *st, const fb_msg *down, const bool *to, void *state)
{
	fb_error err;

	for (size_t k = 0; k < K; k++) {
		double fig;

		if (to != NULL && !to[k])
			continue;
		if (fb_secure_answer(st->c[k], &toy_ops, state, k, NULL, down, &st->up[k], &fig,
		                     &err) != FB_OK)
			fail_msg("client %zu: %s", k + 1, err.msg);
	}
}

/* Set a study up with seed and threshold t. */
static void study_open(study *st, uint64_t seed, size_t t)
{
	fb_fed_options o;
	fb_msg down = { 0 };
	const fb_msg *up[K];
	fb_error err;

	fb_fed_options_init(&o);
	o.secure = true;
	o.seed = seed;
	o.threshold = t;
	memset(st, 0, sizeof *st);
	assert_int_equal(fb_secure_check(&o, K, &err), FB_OK);
	st->s = fb_secure_server_new(K, &o);
	for (size_t k = 0; k < K; k++) {
		st->c[k] = fb_secure_client_new(K, k, &o);
		up[k] = &st->up[k];
	}
	for (int stage = FB_SECURE_KEYS; stage <= FB_SECURE_SHARES; stage++) {
		fb_secure_setup_down(st->s, (enum fb_secure_stage)stage, &down);
		answer_all(st, &down, NULL, NULL);
		assert_int_equal(fb_secure_setup_take(st->s, (enum fb_secure_stage)stage, up, &err),
		                 FB_OK);
	}
	assert_true(fb_secure_ready(st->s));
	fb_msg_release(&down);
}

/* Free a study. */
static void study_close(study *st)
{
	for (size_t k = 0; k < K; k++) {
		fb_secure_client_free(st->c[k]);
		fb_msg_release(&st->up[k]);
	}
	fb_secure_server_free(st->s);
}

/* One masked round of the toy among the clients in part; the algorithm's broadcast (one
 * number) goes inside the envelope and comes out unchanged. */
static void masked_round(study *st, uint64_t round, const bool *part, void *state)
{
	fb_msg down = { 0 };
	fb_error err;

	fb_msg_doubles(&down, 1)[0] = 42;
	assert_int_equal(fb_secure_wrap(st->s, &down, round, N, part, &err), FB_OK);
	assert_true(fb_secure_envelope_bytes(&down) > 0);
	answer_all(st, &down, part, state);
	fb_secure_unwrap(&down);
	assert_int_equal(down.nb, 0);
	assert_int_equal(down.nd, 1);
	fb_msg_release(&down);
}

/* The plain sum of the toy's vectors over the clients flagged in from. */
static void toy_sum(const bool *from, bool silent3, double *want, size_t *count)
{
	*count = 0;
	memset(want, 0, N * sizeof *want);
	for (size_t k = 0; k < K; k++) {
		fb_msg m = { 0 };
		double fig;
		bool s = silent3;

		if (!from[k])
			continue;
		toy_client(&s, k, NULL, NULL, &m, &fig, NULL);
		for (size_t q = 0; q < m.nd; q++)
			want[q] += m.d[q];
		*count += m.nd > 0;
		fb_msg_release(&m);
	}
}

/* The masks cancel: the sum is the plain one within K half-steps, the count is right, a
 * silent client is counted as one; no masked vector holds its client's fixed-point numbers. */
static void test_masks_cancel(void **unused)
{
	bool all[K] = { true, true, true, true, true }, silent = true;
	const fb_msg *up[K];
	double sum[N], want[N];
	size_t count, quiet, n;
	study st;
	fb_msg ask = { 0 };
	bool surv[K];
	fb_error err;

	study_open(&st, 9, 0);
	masked_round(&st, 1, all, &silent);
	for (size_t k = 0; k < K; k++) {
		uint64_t enc[N];
		double fig;
		fb_msg plain = { 0 };

		up[k] = &st.up[k];
		assert_int_equal(st.up[k].nd, 0);
		assert_int_equal(st.up[k].nb, 8 * (N + 1));
		toy_client(NULL, k, NULL, NULL, &plain, &fig, NULL);
		fb_fixed_encode(plain.d, N, 30, K, enc, &err);
		for (size_t q = 0; q < N; q++)
			assert_memory_not_equal(st.up[k].b + 8 * q, &enc[q], 8);
		fb_msg_release(&plain);
	}
	assert_int_equal(fb_secure_sum(st.s, up, sum, &count, &quiet, &ask, surv, &err), FB_OK);
	toy_sum(all, true, want, &n);
	assert_int_equal(count, n);
	assert_int_equal(quiet, 1);
	for (size_t q = 0; q < N; q++)
		assert_true(fabs(sum[q] - want[q]) <= K * ldexp(1.0, -31));
	fb_msg_release(&ask);
	study_close(&st);
}

/* A client that took part and was lost: the sum asks the survivors for its shares, which
 * rebuild its key; its masks come off and the sum is the survivors'.  With t above the
 * survivors, the sum is refused naming t=; a round drawing fewer than t, none lost, is
 * summed. */
static void test_dropout(void **unused)
{
	bool part[K] = { true, true, true, true, false }, surv[K];
	const fb_msg *up[K];
	double sum[N], want[N];
	size_t count, quiet, n;
	fb_msg ask = { 0 };
	study st;
	fb_error err;

	study_open(&st, 5, 3);
	masked_round(&st, 7, part, NULL);
	for (size_t k = 0; k < K; k++)
		up[k] = part[k] && k != 1 ? &st.up[k] : NULL; /* client 2 lost */
	assert_int_equal(fb_secure_sum(st.s, up, sum, &count, &quiet, &ask, surv, &err), 1);
	assert_true(surv[0] && !surv[1] && surv[2] && surv[3] && !surv[4]);
	answer_all(&st, &ask, surv, NULL);
	for (size_t k = 0; k < K; k++)
		up[k] = surv[k] ? &st.up[k] : NULL;
	assert_int_equal(fb_secure_recover(st.s, up, &err), FB_OK);
	masked_round(&st, 7, part, NULL); /* the same round's vectors again */
	for (size_t k = 0; k < K; k++)
		up[k] = surv[k] ? &st.up[k] : NULL;
	assert_int_equal(fb_secure_sum(st.s, up, sum, &count, &quiet, &ask, surv, &err), FB_OK);
	toy_sum(surv, false, want, &n);
	assert_int_equal(count, 3);
	for (size_t q = 0; q < N; q++)
		assert_true(fabs(sum[q] - want[q]) <= K * ldexp(1.0, -31));
	/* two lost of four, t = 3: too few survivors */
	masked_round(&st, 8, part, NULL);
	for (size_t k = 0; k < K; k++)
		up[k] = k == 0 || k == 3 ? &st.up[k] : NULL;
	assert_int_equal(fb_secure_sum(st.s, up, sum, &count, &quiet, &ask, surv, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "threshold t=3"));
	/* two drawn of five, t = 3, none lost: no threshold to meet */
	part[2] = part[3] = false;
	masked_round(&st, 9, part, NULL);
	for (size_t k = 0; k < K; k++)
		up[k] = part[k] ? &st.up[k] : NULL;
	assert_int_equal(fb_secure_sum(st.s, up, sum, &count, &quiet, &ask, surv, &err), FB_OK);
	toy_sum(part, false, want, &n);
	assert_int_equal(count, 2);
	for (size_t q = 0; q < N; q++)
		assert_true(fabs(sum[q] - want[q]) <= K * ldexp(1.0, -31));
	fb_msg_release(&ask);
	study_close(&st);
}

/* Same seed, same masked bytes; another seed, other bytes. */
static void test_determinism(void **unused)
{
	bool all[K] = { true, true, true, true, true };
	study a, b, c;

	study_open(&a, 11, 0);
	study_open(&b, 11, 0);
	study_open(&c, 12, 0);
	masked_round(&a, 3, all, NULL);
	masked_round(&b, 3, all, NULL);
	masked_round(&c, 3, all, NULL);
	for (size_t k = 0; k < K; k++) {
		assert_memory_equal(a.up[k].b, b.up[k].b, 8 * (N + 1));
		assert_memory_not_equal(a.up[k].b, c.up[k].b, 8 * (N + 1));
	}
	study_close(&a);
	study_close(&b);
	study_close(&c);
}

/* What the instrumented server saw. */
typedef struct seen {
	size_t sums, rounds;
	double big;   /* the toy's values are scaled by it */
} seen;

/* The summed toy of the federation: (k + 1) * big * (1, 0.5, -0.25, 1/3). */
static int fed_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	const seen *s = state;

	toy_client(NULL, k, local, down, up, figure, err);
	for (size_t q = 0; q < N; q++)
		up->d[q] *= s->big;
	return FB_OK;
}

/* The instrumented server half: it fails the test when a sum over fewer than two clients, or
 * any one client's vector, reaches it. */
static int fed_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	seen *s = state;

	if (in->count < 2)
		fail_msg("a sum over %zu client(s) reached the server", in->count);
	for (size_t k = 0; k < K; k++)
		if (fabs(in->sum[0] - (double)(k + 1) * s->big) < 0.5 * s->big)
			fail_msg("client %zu's own vector reached the server", k + 1);
	if (fabs(in->sum[0] - 15.0 * s->big) > 1e-6 * s->big)
		fail_msg("the sum is %g, not %g", in->sum[0], 15.0 * s->big);
	s->sums++;
	fb_msg_doubles(down, 0);
	return FB_OK;
}

/* A server half on the replies: never reached under secure aggregation. */
static int fed_replies(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                       fb_error *err)
{
	fail_msg("the server was handed the clients' replies");
	return FB_ERR;
}

/* The toy's vector length. */
static size_t fed_len(const void *state)
{
	return N;
}

/* Simulated data: d variables, d edges (1.5 d when discrete), n rows; levels > 0: every
 * variable discrete with that many levels.  The truth in *truth. */
static fb_dataset *sim_data(size_t d, size_t n, uint64_t seed, size_t levels, fb_graph **truth)
{
	fb_sim_options o;
	fb_dataset *ds;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = levels > 0 ? d + d / 2 : d;
	o.n = n;
	o.seed = seed;
	o.discrete = levels > 0 ? d : 0;
	o.levels = levels > 0 ? levels : o.levels;
	assert_int_equal(fb_sim_generate(&o, &ds, truth, NULL), FB_OK);
	return ds;
}

/* A dataset split into k clients. */
static fb_partition *make_split(size_t k, size_t d, size_t n, fb_dataset **ds, fb_graph **truth)
{
	fb_split_options so;
	fb_error err;

	*ds = sim_data(d, n, 4, 0, truth);
	fb_split_options_init(&so);
	return fb_split(*ds, FB_SPLIT_HORIZONTAL, k, &so, &err);
}

/* The federation with secure=yes: the server sees sums of all five, never a vector; what
 * it received of each client is masked bytes; the ledger's own figures are the plain run's
 * and secure aggregation's bytes and exchanges are counted apart; a value beyond the fixed
 * point's range stops the round with a sentence naming secure_bits=. */
static void test_federation(void **unused)
{
	static const fb_fed_ops ops = { .client = fed_client, .server = fed_replies,
		                        .server_sum = fed_server, .sum_len = fed_len };
	fb_dataset *ds;
	fb_graph *truth;
	fb_partition *p = make_split(K, 3, 50, &ds, &truth);
	fb_fed_options o;
	fb_federation *f;
	seen s = { 0, 0, 1.0 };
	size_t up, down, ex;
	fb_error err;

	fb_fed_options_init(&o);
	o.secure = true;
	o.threads = 2;
	f = fb_fed_alloc(p, &o, &err);
	assert_non_null(f);
	for (int r = 0; r < 3; r++)
		assert_int_equal(fb_fed_round(f, &ops, &s, &err), FB_OK);
	assert_int_equal(s.sums, 3);
	for (size_t k = 0; k < K; k++) {
		const fb_msg *m = fb_fed_round_up(f, k);

		assert_int_equal(m->nd, 0);
		assert_int_equal(m->nb, 8 * (N + 1));
	}
	assert_int_equal(fb_ledger_bytes(fb_fed_ledger(f), 0, FB_UP), 3 * K * 8 * N);
	fb_fed_secure_cost(f, &up, &down, &ex);
	assert_int_equal(ex, 2);
	assert_true(up == K * 32 + K * K * FB_SA_BOX + 3 * K * 8);
	assert_true(down > 0);
	s.big = 1e9; /* beyond +-8.6e8 for 5 clients at 30 bits */
	assert_int_equal(fb_fed_round(f, &ops, &s, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "secure_bits="));
	fb_fed_free(f);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Differential privacy: epsilon of rho-zCDP as Bun and Steinke give it; clipping to an L2
 * norm; the noise repeats with the seed and has the asked spread. */
static void test_dp_math(void **unused)
{
	double x[3] = { 3, 4, 0 }, *z = fb_xcalloc(20000, sizeof *z), *z2;
	double m = 0, v = 0;
	unsigned char root[FB_SA_KEY];

	assert_true(fabs(fb_dp_epsilon(0.005, 1e-5) - (0.005 + 2 * sqrt(0.005 * log(1e5)))) < 1e-15);
	assert_true(fabs(fb_dp_rho(10) - 0.005) < 1e-15);
	fb_dp_clip(x, 3, 1);
	assert_true(fabs(x[0] - 0.6) < 1e-15 && fabs(x[1] - 0.8) < 1e-15);
	fb_dp_clip(x, 3, 2); /* within: unchanged */
	assert_true(fabs(x[0] - 0.6) < 1e-15);
	fb_sa_root(3, root);
	fb_dp_noise(root, 1, 7, z, 20000, 2.0);
	for (size_t i = 0; i < 20000; i++)
		m += z[i] / 20000;
	for (size_t i = 0; i < 20000; i++)
		v += (z[i] - m) * (z[i] - m) / 19999;
	assert_true(fabs(m) < 0.1 && fabs(sqrt(v) - 2.0) < 0.05);
	z2 = fb_xcalloc(20000, sizeof *z2);
	fb_dp_noise(root, 1, 7, z2, 20000, 2.0);
	assert_memory_equal(z, z2, 20000 * sizeof *z);
	free(z);
	free(z2);
}

/* A server half that only counts the noisy sums it is handed. */
static int dp_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	seen *s = state;

	if (in->count < 2)
		fail_msg("a sum over %zu client(s) reached the server", in->count);
	s->sums++;
	s->rounds += fabs(in->sum[0] - 15.0 * s->big) > 1e-6; /* the noise shows */
	fb_msg_doubles(down, 0);
	return FB_OK;
}

/* With dp_epsilon=1 and noise of 10 times the sensitivity, four sums fit the budget (epsilon
 * 0.98) and the fifth is refused in one sentence; every sum carries noise; the round's
 * sentence says what was spent; dp_epsilon= without secure=yes is refused. */
static void test_dp_budget(void **unused)
{
	static const fb_fed_ops ops = { .client = fed_client, .server = fed_replies,
		                        .server_sum = dp_server, .sum_len = fed_len };
	fb_dataset *ds;
	fb_graph *truth;
	fb_partition *p = make_split(K, 3, 50, &ds, &truth);
	fb_fed_options o;
	fb_federation *f;
	seen s = { 0, 0, 1.0 };
	char saw[256];
	fb_error err;

	fb_fed_options_init(&o);
	o.dp_epsilon = 1;
	assert_null(fb_fed_alloc(p, &o, &err));
	assert_non_null(strstr(err.msg, "set secure=yes too"));
	o.secure = true;
	o.dp_clip = 20;
	f = fb_fed_alloc(p, &o, &err);
	assert_non_null(f);
	for (int r = 0; r < 4; r++)
		assert_int_equal(fb_fed_round(f, &ops, &s, &err), FB_OK);
	assert_true(fb_fed_server_saw(f, saw, sizeof saw));
	assert_non_null(strstr(saw, "epsilon spent 0.98 of 1"));
	assert_int_equal(fb_fed_round(f, &ops, &s, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "the privacy budget is spent: epsilon 0.98 of 1 after 4"));
	assert_int_equal(s.sums, 4);
	assert_int_equal(s.rounds, 4);
	fb_fed_free(f);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Start algo with words on p under the federation's options o. */
static fb_run *run_start(const char *algo, const char *words, const fb_dataset *ds,
                         fb_partition *p, const fb_fed_options *o)
{
	const fb_algo *a, *inner;
	fb_params params;
	fb_run *run;
	fb_error err;
	char *copy = fb_xstrdup(words), *save = NULL;

	assert_int_equal(fb_algo_lookup(algo, &a, &inner, &err), FB_OK);
	assert_int_equal(fb_params_init(&params, fb_algo_params(a, inner), &err), FB_OK);
	for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
		assert_int_equal(fb_params_set_word(&params, t, algo, &err), FB_OK);
	free(copy);
	run = fb_run_alloc(&(fb_run_spec){ .algo = algo, .params = &params, .fedopt = o,
	                                   .data = ds, .part = p }, &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("%s: %s", algo, err.msg);
	return run;
}

/* Run algo with words on p, secure or not, to its end; its graph and weights (d * d), and
 * secure aggregation's exchanges in *ex when ex is not NULL. */
static fb_graph *run_ex(const char *algo, const char *words, const fb_dataset *ds,
                        fb_partition *p, bool secure, size_t threads, double *w, size_t *ex)
{
	fb_fed_options o;
	fb_run *run;
	fb_graph *g;
	fb_error err;

	fb_fed_options_init(&o);
	o.secure = secure;
	o.threads = threads;
	run = run_start(algo, words, ds, p, &o);
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s: %s", algo, err.msg);
	g = fb_run_result(run, &err);
	assert_non_null(g);
	if (w != NULL && fb_run_has_weights(run))
		assert_int_equal(fb_run_weights(run, w, &err), FB_OK);
	if (ex != NULL) {
		size_t up, down;

		fb_fed_secure_cost(run->fed, &up, &down, ex);
	}
	fb_run_free(run);
	return g;
}

/* Run algo with words on p under o (dp_epsilon=) to its end: every client figure its trace
 * records, and each client's last figure at the federation's server, is NAN, withheld. */
static void dp_run_figures(const char *algo, const char *words, const fb_dataset *ds,
                           fb_partition *p, const fb_fed_options *o)
{
	fb_run *run = run_start(algo, words, ds, p, o);
	size_t figs = 0;
	fb_error err;

	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s: %s", algo, err.msg);
	for (size_t r = 0; r < run->trace.n; r++)
		for (size_t c = 0; run->trace.r[r].client_fig != NULL && c < run->trace.r[r].nclients;
		     c++, figs++)
			if (!isnan(run->trace.r[r].client_fig[c]))
				fail_msg("%s: round %zu, client %zu's figure %g is not withheld", algo, r + 1,
				         c + 1, run->trace.r[r].client_fig[c]);
	for (size_t c = 0; c < p->k; c++, figs++)
		if (!isnan(fb_fed_client_figure(run->fed, c)))
			fail_msg("%s: client %zu's figure %g reached the server", algo, c + 1,
			         fb_fed_client_figure(run->fed, c));
	assert_true(figs >= p->k);
	fb_run_free(run);
}

/* run_ex without the exchanges. */
static fb_graph *run_one(const char *algo, const char *words, const fb_dataset *ds,
                         fb_partition *p, bool secure, size_t threads, double *w)
{
	return run_ex(algo, words, ds, p, secure, threads, w, NULL);
}

/* The federation and the server's view of its client figures. */
typedef struct fig_seen {
	fb_federation *f;   /* the federation the server half reads */
	size_t sums;        /* sums the server was handed */
} fig_seen;

/* The toy client with a figure of its own, 1000 + k (a row count, a loss). */
static int fig_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	toy_client(NULL, k, local, down, up, figure, err);
	*figure = 1000.0 + (double)k;
	return FB_OK;
}

/* The instrumented server half: it fails the test when any client's figure reaches it. */
static int fig_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fig_seen *s = state;

	for (size_t k = 0; k < K; k++)
		if (!isnan(fb_fed_client_figure(s->f, k)))
			fail_msg("client %zu's figure %g reached the server under dp_epsilon=", k + 1,
			         fb_fed_client_figure(s->f, k));
	s->sums++;
	fb_msg_doubles(down, 0);
	return FB_OK;
}

/* Under dp_epsilon= no client's own figure reaches the server: a client's secure side sends
 * NAN in its place, whatever the message; the federation's server half and the ledger's
 * records see NAN for every client of fedc2sl, notears-admm and as-feddag-linear; without
 * dp_epsilon= the figure is the client's. */
static void test_dp_figures(void **unused)
{
	static const fb_fed_ops ops = { .client = fig_client, .server = fed_replies,
		                        .server_sum = fig_server, .sum_len = fed_len };
	static const struct { const char *algo, *words; } cases[] = {
		{ "notears-admm", "max_rounds=3" }, { "as-feddag-linear", "it_in=10 it_fl=5 it_max=1" },
	};
	fb_graph *truth, *dt;
	fb_dataset *ds, *dd = sim_data(4, 200, 5, 3, &dt);
	fb_partition *p = make_split(K, 3, 50, &ds, &truth), *pd;
	fb_split_options so;
	fb_fed_options o;
	fig_seen s = { NULL, 0 };
	fb_secure_client *c;
	fb_msg down = { 0 }, up = { 0 };
	double fig = 0;
	fb_error err;

	fb_fed_options_init(&o);
	o.secure = true;
	o.dp_epsilon = 1e9;
	c = fb_secure_client_new(K, 1, &o);
	fb_msg_doubles(&down, 1);
	assert_int_equal(fb_secure_answer(c, &ops, NULL, 1, NULL, &down, &up, &fig, &err), FB_OK);
	assert_true(isnan(fig));
	fb_secure_client_free(c);
	s.f = fb_fed_alloc(p, &o, &err);
	assert_non_null(s.f);
	for (int r = 0; r < 3; r++)
		assert_int_equal(fb_fed_round(s.f, &ops, &s, &err), FB_OK);
	assert_int_equal(s.sums, 3);
	fb_fed_free(s.f);
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		dp_run_figures(cases[i].algo, cases[i].words, ds, p, &o);
	fb_split_options_init(&so);
	pd = fb_split(dd, FB_SPLIT_HORIZONTAL, K, &so, &err);
	dp_run_figures("fedc2sl", "", dd, pd, &o);
	fb_partition_free(pd);
	fb_dataset_free(dd);
	fb_graph_free(dt);
	o.dp_epsilon = 0;
	c = fb_secure_client_new(K, 1, &o);
	assert_int_equal(fb_secure_answer(c, &ops, NULL, 1, NULL, &down, &up, &fig, &err), FB_OK);
	assert_true(fig == 1001.0);
	fb_secure_client_free(c);
	fb_msg_release(&down);
	fb_msg_release(&up);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Each algorithm that takes secure=yes gives the plain run's graph, mark for mark, its
 * weights within 1e-6 (the fixed point's steps are 2^-30, about 9.3e-10, per number summed;
 * the iterative learners carry the difference through their rounds); on two threads the
 * same bits as on one. */
static void test_algorithms(void **unused)
{
	static const struct { const char *algo, *words; } cases[] = {
		{ "as-feddag-linear", "it_in=30 it_fl=10 it_max=3" },
		{ "as-feddag", "it_in=12 it_fl=6 it_max=2 hidden=4 layers=2" },
		{ "gs-feddag", "it_in=12 it_fl=6 it_max=2 hidden=4 layers=2" },
		{ "notears-admm", "max_rounds=30" },
		{ "avg:notears", "" },
		{ "voting:pc", "" },
		{ "voting:notears", "" },
		{ "fedpc-simple1", "" },
	};
	fb_dataset *ds;
	fb_graph *truth;
	fb_partition *p = make_split(4, 5, 400, &ds, &truth);
	double *w[3];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fb_graph *plain, *sec, *sec2;
		double worst = 0;

		for (int j = 0; j < 3; j++)
			w[j] = fb_xcalloc(25, sizeof *w[j]);
		plain = run_one(cases[i].algo, cases[i].words, ds, p, false, 1, w[0]);
		sec = run_one(cases[i].algo, cases[i].words, ds, p, true, 1, w[1]);
		sec2 = run_one(cases[i].algo, cases[i].words, ds, p, true, 2, w[2]);
		for (size_t a = 0; a < 5; a++)
			for (size_t b = 0; b < 5; b++)
				if (fb_graph_edge(plain, a, b) != fb_graph_edge(sec, a, b))
					fail_msg("%s: the mark %zu-%zu differs under secure=yes", cases[i].algo,
					         a + 1, b + 1);
		for (size_t e = 0; e < 25; e++) {
			worst = fmax(worst, fabs(w[0][e] - w[1][e]));
			if (plain->weighted && sec->weighted) /* avg:'s mean weights */
				worst = fmax(worst, fabs(plain->w[e] - sec->w[e]));
		}
		printf("%s: graphs equal; weights differ by at most %.3g\n", cases[i].algo, worst);
		assert_true(worst <= 1e-6);
		assert_memory_equal(w[1], w[2], 25 * sizeof *w[1]);
		fb_graph_free(plain);
		fb_graph_free(sec);
		fb_graph_free(sec2);
		for (int j = 0; j < 3; j++)
			free(w[j]);
	}
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* A fedpc run with words on p under the options o, not yet run. */
static fb_run *fedpc_start(const char *words, const fb_dataset *ds, fb_partition *p,
                           const fb_fed_options *o)
{
	const fb_algo *a, *inner;
	fb_params params;
	fb_run *run;
	fb_error err;
	char *copy = fb_xstrdup(words), *save = NULL;

	assert_int_equal(fb_algo_lookup("fedpc", &a, &inner, &err), FB_OK);
	assert_int_equal(fb_params_init(&params, fb_algo_params(a, inner), &err), FB_OK);
	for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
		assert_int_equal(fb_params_set_word(&params, t, "fedpc", &err), FB_OK);
	free(copy);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "fedpc", .params = &params, .fedopt = o,
	                                   .data = ds, .part = p }, &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("fedpc: %s", err.msg);
	return run;
}

/* fedpc with words on p, secure or not, on threads, run to its end. */
static fb_run *fedpc_run(const char *words, const fb_dataset *ds, fb_partition *p, bool secure,
                         size_t threads)
{
	fb_fed_options o;
	fb_run *run;
	fb_error err;

	fb_fed_options_init(&o);
	o.secure = secure;
	o.threads = threads;
	run = fedpc_start(words, ds, p, &o);
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("fedpc: %s", err.msg);
	return run;
}

/* Two fedpc runs agree on the rounds and every figure of each (but figure skip, or none when
 * skip is past them), every mark of the CPDAG, and each pair's votes. */
static void fedpc_agree_graph(const fb_run *a, const fb_run *b, const char *what, size_t skip)
{
	size_t d = a->data->d;
	fb_graph *ga, *gb;
	fb_error err;

	if (a->trace.n != b->trace.n)
		fail_msg("%s: %zu rounds, not %zu", what, b->trace.n, a->trace.n);
	for (size_t r = 0; r < a->trace.n; r++)
		for (size_t f = 0; f < a->trace.nfig; f++)
			if (f != skip &&
			    memcmp(&a->trace.r[r].fig[f], &b->trace.r[r].fig[f], sizeof(double)) != 0)
				fail_msg("%s: round %zu's figure %zu is %g, not %g", what, r + 1, f,
				         b->trace.r[r].fig[f], a->trace.r[r].fig[f]);
	ga = fb_run_result(a, &err);
	gb = fb_run_result(b, &err);
	assert_true(ga != NULL && gb != NULL);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			if (fb_graph_edge(ga, i, j) != fb_graph_edge(gb, i, j))
				fail_msg("%s: the mark %zu-%zu differs", what, i + 1, j + 1);
			if (i != j)
				assert_int_equal(fb_fedpc_votes(a, i, j), fb_fedpc_votes(b, i, j));
		}
	fb_graph_free(ga);
	fb_graph_free(gb);
}

/* Two fedpc runs agree (fedpc_agree_graph), and on each pair's chosen separating set, its
 * p-value and client. */
static void fedpc_agree(const fb_run *a, const fb_run *b, const char *what)
{
	size_t d = a->data->d, Za[64], Zb[64];

	assert_true(d <= 64);
	fedpc_agree_graph(a, b, what, SIZE_MAX);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			double pa = 0, pb = 0;
			long ca = 0, cb = 0, na, nb;

			if (i == j)
				continue;
			na = fb_fedpc_sepset(a, i, j, Za, &pa, &ca);
			nb = fb_fedpc_sepset(b, i, j, Zb, &pb, &cb);
			if (na != nb || ca != cb || (na > 0 && memcmp(Za, Zb, (size_t)na * sizeof *Za)) ||
			    (!(isnan(pa) && isnan(pb)) && pa != pb))
				fail_msg("%s: the separating set of %zu-%zu differs", what, i + 1, j + 1);
		}
}

/* fedpc with secure=yes is the plain run, figure for figure and set for set, on generated
 * continuous and discrete data and the shared discrete files, with each K, collider rule,
 * vote rule and thread count; over the sums its server never holds a client's reply. */
static void test_fedpc_same(void **unused)
{
	static const struct { const char *file; size_t d, n, k; uint64_t seed; const char *words; }
	cases[] = {
		{ NULL, 8, 800, 4, 3, "" },
		{ NULL, 12, 1500, 3, 5, "colliders=order" },
		{ NULL, 10, 1000, 7, 2, "vote_rule=code vote=0.5" },
		{ "levels", 8, 2000, 5, 9, "" },
		{ "asia.csv", 0, 0, 3, 1, "" },
		{ "sachs.csv", 0, 0, 10, 1, "" },
		{ "alarm.csv", 0, 0, 5, 1, "depth=2" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fb_graph *truth = NULL;
		fb_dataset *ds = NULL;
		fb_split_options so;
		fb_partition *p;
		fb_run *plain, *sec;
		char what[128];
		fb_error err;

		if (cases[i].file == NULL)
			ds = sim_data(cases[i].d, cases[i].n, 4, 0, &truth);
		else if (strcmp(cases[i].file, "levels") == 0)
			ds = sim_data(cases[i].d, cases[i].n, cases[i].seed, 3, &truth);
		else if ((ds = shared_discrete(cases[i].file)) == NULL)
			continue;
		fb_split_options_init(&so);
		so.seed = cases[i].seed;
		p = fb_split(ds, FB_SPLIT_HORIZONTAL, cases[i].k, &so, &err);
		assert_non_null(p);
		snprintf(what, sizeof what, "%s K=%zu %s", cases[i].file != NULL ? cases[i].file
		         : "generated", cases[i].k, cases[i].words);
		plain = fedpc_run(cases[i].words, ds, p, false, 1);
		sec = fedpc_run(cases[i].words, ds, p, true, 1 + i % 2);
		fedpc_agree(plain, sec, what);
		printf("%s: %zu rounds, every figure and set the plain run's\n", what, sec->trace.n);
		fb_run_free(plain);
		fb_run_free(sec);
		fb_partition_free(p);
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
}

/* fedpc with dp_epsilon= and noise dp_sigma= on words over p (threads of them) until it
 * ends or stops: the run, and FB_ERR in *ret with the sentence in err when it stopped. */
static fb_run *fedpc_dp(const char *words, const fb_dataset *ds, fb_partition *p,
                        size_t threads, double eps, double sigma, int *ret, fb_error *err)
{
	fb_fed_options o;
	fb_run *run;

	fb_fed_options_init(&o);
	o.secure = true;
	o.threads = threads;
	o.dp_epsilon = eps;
	o.dp_sigma = sigma;
	run = fedpc_start(words, ds, p, &o);
	*ret = FB_OK;
	while (*ret == FB_OK && !fb_run_done(run))
		*ret = fb_run_step(run, err);
	return run;
}

/* fedpc with dp_epsilon=: on three clients holding the same rows a huge epsilon is the plain
 * run, every figure (but the clients' tests, withheld) and mark (each client's set is the others', so the majority's collider
 * votes are the highest-p client's; colliders=order, the plain run's order); on other
 * clients its layers are the plain run's, figures, votes and skeleton; a noisy run gives
 * the same bits on 1 and 3 threads; a small epsilon stops the run in one sentence. */
static void test_fedpc_dp(void **unused)
{
	fb_graph *truth, *ga, *gb;
	fb_dataset *base = sim_data(8, 500, 6, 0, &truth), *ds;
	size_t rows[1500];
	fb_split_options so;
	fb_partition *p;
	fb_run *plain, *dp, *dp3;
	fb_error err;
	size_t noisy = 0;
	int ret;

	for (size_t i = 0; i < 1500; i++)
		rows[i] = i % 500;
	ds = fb_dataset_subset(base, rows, 1500, NULL, 0);
	fb_split_options_init(&so);
	so.shuffle = 0;
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, 3, &so, &err);
	plain = fedpc_run("colliders=order", ds, p, false, 1);
	dp = fedpc_dp("colliders=order", ds, p, 1, 1e9, 1e-3, &ret, &err);
	assert_int_equal(ret, FB_OK);
	fedpc_agree_graph(plain, dp, "the same rows, dp_epsilon=1e9", 3); /* tests: withheld */
	for (size_t r = 0; r < dp->trace.n; r++)
		assert_true(isnan(dp->trace.r[r].fig[3]));
	assert_true(fb_run_last(plain)->fig[6] > 0); /* colliders were oriented */
	printf("the same rows: %zu rounds, %g colliders, the plain run's\n", dp->trace.n,
	       fb_run_last(plain)->fig[6]);
	fb_run_free(plain);
	fb_run_free(dp);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_dataset_free(base);
	fb_graph_free(truth);

	p = make_split(5, 10, 1500, &ds, &truth);
	plain = fedpc_run("", ds, p, false, 1);
	dp = fedpc_dp("", ds, p, 1, 1e9, 1e-3, &ret, &err);
	assert_int_equal(ret, FB_OK);
	assert_int_equal(dp->trace.n, plain->trace.n);
	for (size_t r = 0; r + 1 < plain->trace.n; r++)
		for (size_t f = 0; f < plain->trace.nfig; f++)
			if (f != 3) /* tests: withheld under dp_epsilon= */
				assert_memory_equal(&plain->trace.r[r].fig[f], &dp->trace.r[r].fig[f],
				                    sizeof(double));
	ga = fb_run_result(plain, &err);
	gb = fb_run_result(dp, &err);
	for (size_t i = 0; i < 10; i++)
		for (size_t j = 0; j < 10; j++)
			if (i != j) {
				assert_int_equal(fb_fedpc_votes(plain, i, j), fb_fedpc_votes(dp, i, j));
				assert_int_equal(fb_graph_adjacent(ga, i, j), fb_graph_adjacent(gb, i, j));
			}
	fb_graph_free(ga);
	fb_graph_free(gb);
	fb_run_free(dp);

	dp = fedpc_dp("", ds, p, 1, 20, 3, &ret, &err);
	dp3 = fedpc_dp("", ds, p, 3, 20, 3, &ret, &err);
	assert_int_equal(ret, FB_OK);
	fedpc_agree(dp, dp3, "dp_epsilon=20 on 1 and 3 threads");
	for (size_t i = 0; i < 10; i++) /* the noise shows in the votes */
		for (size_t j = i + 1; j < 10; j++)
			noisy += fb_fedpc_votes(dp, i, j) != fb_fedpc_votes(plain, i, j);
	assert_true(noisy > 0);
	printf("dp_epsilon=20 dp_sigma=3: %zu rounds, epsilon %.3g, %zu pairs' votes moved by the "
	       "noise, the same bits on 3 threads\n", dp->trace.n, fb_fed_dp_spent(dp->fed), noisy);
	fb_run_free(dp);
	fb_run_free(dp3);

	dp = fedpc_dp("", ds, p, 1, 1.3, 6, &ret, &err); /* two sums: 1.16, three: 1.43 */
	assert_int_equal(ret, FB_ERR);
	assert_false(fb_run_done(dp));
	assert_int_equal(dp->trace.n, 2);
	if (strstr(err.msg, "the privacy budget is spent: epsilon 1.16 of 1.3 after 2 noisy "
	                    "sums") == NULL)
		fail_msg("dp_epsilon=1.3: '%s'", err.msg);
	printf("dp_epsilon=1.3 dp_sigma=6: stopped after %zu rounds: %s\n", dp->trace.n, err.msg);
	fb_run_free(dp);
	fb_run_free(plain);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* fedpc's server half under the instrument: every sum it is handed is over at least two
 * clients and counts them in its first number (so that no sum is one client's vector, whose
 * first number is 1), and what the federation keeps of each client is masked bytes. */
static int fedpc_spy(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	if (in->count < 2)
		fail_msg("fedpc: a sum over %zu client(s) reached the server", in->count);
	if (in->n < 1 || in->sum[0] != (double)in->count)
		fail_msg("fedpc: the sum does not count its %zu clients", in->count);
	return fedpc_sum_ops.server_sum(state, in, down, err);
}

/* fedpc's rounds run through the instrumented server half give the plain run's CPDAG. */
static void test_fedpc_server_sees_sums(void **unused)
{
	static const fb_fed_ops spy = { .client = fedpc_client_half, .server_sum = fedpc_spy,
		                        .sum_len = NULL };
	fb_fed_ops ops = spy;
	fb_dataset *ds;
	fb_graph *truth, *g, *want;
	fb_partition *p = make_split(5, 9, 900, &ds, &truth);
	fb_run *plain = fedpc_run("", ds, p, false, 1), *run;
	fedpc_state *st;
	size_t rounds = 0;
	fb_fed_options o;
	fb_error err;

	ops.sum_len = fedpc_sum_ops.sum_len;
	fb_fed_options_init(&o);
	o.secure = true;
	run = fb_run_alloc(&(fb_run_spec){ .algo = "fedpc", .fedopt = &o, .data = ds, .part = p },
	                   &err);
	assert_non_null(run);
	st = run->state;
	while (!st->c.done) {
		assert_int_equal(fb_fed_round(run->fed, &ops, st, &err), FB_OK);
		for (size_t k = 0; k < 5; k++) {
			const fb_msg *m = fb_fed_round_up(run->fed, k);

			assert_int_equal(m->nd, 0); /* masked: ring elements as bytes */
			assert_true(m->nb > 0);
		}
		rounds++;
	}
	g = fb_run_result(run, &err);
	want = fb_run_result(plain, &err);
	for (size_t i = 0; i < 9; i++)
		for (size_t j = 0; j < 9; j++)
			assert_int_equal(fb_graph_edge(g, i, j), fb_graph_edge(want, i, j));
	printf("fedpc: %zu rounds of sums (the plain run: %zu), the server never held a reply\n",
	       rounds, plain->trace.n);
	fb_graph_free(g);
	fb_graph_free(want);
	fb_run_free(run);
	fb_run_free(plain);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* A kept up-message of a secure run reads as masked, not as the algorithm's numbers (which
 * it does not hold); the broadcast reads as the algorithm's. */
static void test_message_text(void **unused)
{
	fb_dataset *ds;
	fb_graph *truth;
	fb_partition *p = make_split(4, 5, 400, &ds, &truth);
	fb_fed_options o;
	fb_params params;
	const fb_algo *a, *inner;
	fb_buf b = { 0 };
	fb_error err;
	fb_run *run;

	fb_fed_options_init(&o);
	o.secure = true;
	assert_int_equal(fb_algo_lookup("notears-admm", &a, &inner, &err), FB_OK);
	fb_params_init(&params, fb_algo_params(a, inner), &err);
	assert_int_equal(fb_params_set_word(&params, "max_rounds=2", "notears-admm", &err), FB_OK);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "notears-admm", .params = &params, .fedopt = &o,
	                                   .data = ds, .part = p }, &err);
	fb_params_release(&params);
	assert_non_null(run);
	assert_int_equal(fb_run_step(run, &err), FB_OK);
	assert_int_equal(fb_run_message_text(run, &run->trace.r[0], FB_UP, 1, &b, &err), FB_OK);
	assert_non_null(strstr(b.data, "masked by secure aggregation"));
	assert_non_null(strstr(b.data, "client 2's own vector"));
	fb_buf_release(&b);
	fb_run_free(run);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Refused in one sentence, nothing run: fewer than 3 clients, t= above them, an algorithm
 * whose server must see each client's message, a learner without a federation, differential
 * privacy where the sums must stay whole. */
static void test_refusals(void **unused)
{
	static const struct { const char *algo; size_t k, t; double eps; const char *says; }
	cases[] = {
		{ "as-feddag-linear", 2, 0, 0, "needs at least 3 clients" },
		{ "as-feddag-linear", 4, 5, 0, "t=5 is above the 4 clients" },
		{ "fedpc-simple2", 4, 0, 0, "separating sets (it intersects the sets" },
		{ "fedpc-simple1", 4, 0, 1, "whole votes, which the clipping and noise" },
		{ "sep:pc", 4, 0, 0, "on its own" },
		{ "best:pc", 4, 0, 0, "on its own" },
		{ "pc", 4, 0, 0, "no server and no sum" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fb_dataset *ds;
		fb_graph *truth;
		fb_partition *p = make_split(cases[i].k, 4, 120, &ds, &truth);
		fb_fed_options o;
		fb_error err = { { 0 } };
		fb_run *run;

		fb_fed_options_init(&o);
		o.secure = true;
		o.threshold = cases[i].t;
		o.dp_epsilon = cases[i].eps;
		run = fb_run_alloc(&(fb_run_spec){ .algo = cases[i].algo, .fedopt = &o, .data = ds,
		                                   .part = p, .truth = truth }, &err);
		assert_null(run);
		if (strstr(err.msg, cases[i].says) == NULL)
			fail_msg("%s: '%s' does not say '%s'", cases[i].algo, err.msg, cases[i].says);
		fb_partition_free(p);
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
}

/* The cases run over a link: each learner with its short settings. */
static const struct { const char *algo, *words; } link_cases[] = {
	{ "as-feddag-linear", "it_in=30 it_fl=10 it_max=3" },
	{ "notears-admm", "max_rounds=20" },
	{ "avg:notears", NULL },
	{ "voting:notears", NULL },
	{ "fedpc", NULL },
	{ "fedpc-simple1", NULL },
};

/* Over the local link (four client processes, the same protocol code as over MPI), each
 * algorithm with secure=yes gives the in-process secure run's graph and weights bit for bit
 * (the same masks, the same ring sums), with the same two exchanges of its own. */
static void test_link(void **unused)
{
	fb_graph *truth;
	fb_dataset *ds = make_data(&truth), *schema = NULL;
	fb_partition *local = blocks(ds, 4, FB_SPLIT_HORIZONTAL), *remote;
	fb_proto_options po;
	fb_link *link;
	fb_proto *pr;
	fb_error err;

	fb_proto_options_init(&po);
	po.timeout = 60;
	po.idle = 120;
	assert_int_equal(fb_link_local_start(4, &link, &err), FB_OK);
	pr = fb_proto_new(link, &po);
	if (link->rank > 0) {
		int ret = serve_block(pr, local, false, false);

		fb_proto_end(pr);
		_exit(ret);
	}
	remote = fb_proto_connect(pr, &schema, &err);
	assert_non_null(remote);
	for (size_t i = 0; i < sizeof link_cases / sizeof *link_cases; i++)
		compare_secure(link_cases[i].algo, link_cases[i].words, ds, local, schema, remote);
	fb_partition_free(remote);
	fb_dataset_free(schema);
	fb_proto_end(pr);
	fb_partition_free(local);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* The first round after the second (from 0) that draws client 2, in the in-process run of
 * the same parameters and seed (the draws are the same over a link). */
static size_t drawn_round(const fb_params *p, const fb_fed_options *o, const fb_dataset *ds,
                          fb_partition *local)
{
	fb_error err;
	fb_run *run = fb_run_alloc(&(fb_run_spec){ .algo = "gs-feddag", .params = p,
	                                           .fedopt = o, .data = ds, .part = local }, &err);
	size_t at = 0;

	assert_non_null(run);
	while (!fb_run_done(run) && at == 0) {
		assert_int_equal(fb_run_step(run, &err), FB_OK);
		if (run->trace.n > 2 && fb_run_last(run)->took[1])
			at = run->trace.n - 1;
	}
	fb_run_free(run);
	assert_true(at > 0);
	return at;
}

/* Over the local link, client 2 is killed after round 2 of gs-feddag drawing 3 of 4 clients
 * a round (t=2): the round that drew it is left without its vector, the survivors are asked
 * for its key's shares, the server removes its masks, and the run finishes without it. */
static void test_link_dropout(void **unused)
{
	fb_graph *truth;
	fb_dataset *ds = make_data(&truth), *schema = NULL;
	fb_partition *local = blocks(ds, 4, FB_SPLIT_HORIZONTAL), *remote;
	fb_proto_options po;
	fb_fed_options o;
	fb_params p;
	fb_link *link;
	fb_proto *pr;
	fb_run *run;
	fb_error err;
	pid_t victim = 0;
	int fds[2], recovered = 0;
	size_t up, down, ex, kill_at;

	fb_proto_options_init(&po);
	po.timeout = 5; /* the wait for the killed client */
	po.idle = 120;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fb_link_local_start(4, &link, &err), FB_OK);
	pr = fb_proto_new(link, &po);
	if (link->rank > 0) {
		pid_t me = getpid();
		int ret;

		close(fds[0]);
		if (link->rank == 2 && write(fds[1], &me, sizeof me) != sizeof me)
			_exit(1);
		close(fds[1]);
		ret = serve_block(pr, local, false, false);
		fb_proto_end(pr);
		_exit(ret);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &victim, sizeof victim), sizeof victim);
	close(fds[0]);
	remote = fb_proto_connect(pr, &schema, &err);
	assert_non_null(remote);
	fb_fed_options_init(&o);
	o.secure = true;
	o.threshold = 2;
	{
		const fb_algo *a, *inner;
		char *copy = fb_xstrdup("it_in=24 it_fl=4 it_max=2 hidden=4 layers=2 r=3");
		char *save = NULL;

		assert_int_equal(fb_algo_lookup("gs-feddag", &a, &inner, &err), FB_OK);
		fb_params_init(&p, fb_algo_params(a, inner), &err);
		for (char *t = strtok_r(copy, " ", &save); t != NULL; t = strtok_r(NULL, " ", &save))
			assert_int_equal(fb_params_set_word(&p, t, "gs-feddag", &err), FB_OK);
		free(copy);
	}
	kill_at = drawn_round(&p, &o, ds, local);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "gs-feddag", .params = &p, .fedopt = &o,
	                                   .data = schema, .part = remote }, &err);
	fb_params_release(&p);
	if (run == NULL)
		fail_msg("%s", err.msg);
	for (size_t r = 0; !fb_run_done(run); r++) {
		if (r == kill_at)
			kill(victim, SIGKILL);
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("round %zu: %s", r + 1, err.msg);
		recovered += fb_run_last(run)->say != NULL &&
		             strstr(fb_run_last(run)->say, "masks of the lost clients removed") != NULL;
	}
	fb_fed_secure_cost(run->fed, &up, &down, &ex);
	printf("client 2 lost: %d recovery, %zu exchanges of secure aggregation's own\n",
	       recovered, ex);
	assert_true(fb_fed_gone(run->fed, 1));
	assert_int_equal(recovered, 1);
	assert_int_equal(ex, 3);
	fb_run_free(run);
	fb_partition_free(remote);
	fb_dataset_free(schema);
	fb_proto_end(pr);
	fb_partition_free(local);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shamir),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_masks_cancel),
		cmocka_unit_test(test_dropout),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_federation),
		cmocka_unit_test(test_algorithms),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_fedpc_same),
		cmocka_unit_test(test_fedpc_server_sees_sums),
		cmocka_unit_test(test_fedpc_dp),
		cmocka_unit_test(test_message_text),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_dp_math),
		cmocka_unit_test(test_dp_budget),
		cmocka_unit_test(test_dp_figures),
		cmocka_unit_test(test_link_dropout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
