/* Unit tests of FedPC and its ablations: the wire helpers and the vote threshold; a hand-made
 * federation where the vote decides (an edge kept by exactly 30 % of 10 clients); one client
 * runs PC's levels exactly; clients with their columns in another order (alignment by
 * names); message sizes against the row counts; threads; the server's highest-p choice on
 * hand-made messages; a collider from three clients; and accuracy on the shared synthetic
 * data against the FedPC authors' code and on alarm against the FedPC paper; correlations on
 * demand (corr=demand) against the packed matrix. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>

#include "fedbn/bif.h"
#include "fedbn/ci-lazy.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/fedpc.h"
#include "fedbn/pc.h"
#include "fedbn/sim.h"
#include "../../src/lib/algo/pc/fedpc-int.h"

/* Start algo a on part (data ds, truth may be NULL) with the words "k=v k=v" and threads;
 * built by hand, as fb_run_alloc would, so that the tests do not need the registry. */
static fb_run *start(const fb_algo *a, const char *words, const fb_dataset *ds,
                     const fb_partition *part, const fb_graph *truth, size_t threads)
{
	fb_error err = { "" };
	fb_run *run = fb_xcalloc(1, sizeof *run);
	char buf[512], *w, *save = NULL;

	run->algo = a;
	run->name = fb_xstrdup(a->name);
	run->data = ds;
	run->part = part;
	run->truth = truth;
	run->figures = a->figures;
	while (a->figures[run->trace.nfig] != NULL)
		run->trace.nfig++;
	assert_int_equal(fb_params_init(&run->params, a->params, &err), FB_OK);
	snprintf(buf, sizeof buf, "%s", words);
	for (w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (fb_params_set_word(&run->params, w, a->name, &err) != FB_OK)
			fail_msg("%s", err.msg);
	fb_fed_options_init(&run->fedopt);
	run->fedopt.threads = threads;
	run->fed = fb_fed_alloc(part, &run->fedopt, &err);
	assert_non_null(run->fed);
	if (a->create(run, &err) != FB_OK)
		fail_msg("%s", err.msg);
	return run;
}

/* Step run to its end and return its result (caller frees). */
static fb_graph *finish(fb_run *run)
{
	fb_error err = { "" };
	fb_graph *g;

	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s", err.msg);
	g = fb_run_result(run, &err);
	if (g == NULL)
		fail_msg("%s", err.msg);
	return g;
}

/* Split ds horizontally into k contiguous even blocks. */
static fb_partition *split_even(const fb_dataset *ds, size_t k)
{
	fb_split_options o;
	fb_error err = { "" };
	fb_partition *p;

	fb_split_options_init(&o);
	o.shuffle = 0;
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, &err);
	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

/* Pairs, packed skeletons, ids and the vote thresholds of both rules. */
static void test_wire(void **state)
{
	static const size_t ks[5] = { 1, 3, 5, 10, 15 };
	static const size_t paper[5] = { 1, 1, 2, 4, 5 }, code[5] = { 1, 1, 2, 3, 5 };
	fb_graph *g = fb_graph_alloc(7), *h;
	unsigned char bits[3], buf[8], *end;
	const unsigned char *p = buf;

	assert_int_equal(fedpc_npairs(7), 21);
	assert_int_equal(fedpc_bits_bytes(7), 3);
	assert_int_equal(fedpc_pair(7, 0, 1), 0);
	assert_int_equal(fedpc_pair(7, 6, 5), 20);
	assert_int_equal(fedpc_pair(7, 1, 2), 6);
	fb_graph_set_directed(g, 4, 1, 1.0);
	fb_graph_set_undirected(g, 5, 6);
	fedpc_skel_pack(g, bits);
	assert_int_equal(bits[0], 0);
	assert_int_equal(bits[1], 1 << (fedpc_pair(7, 1, 4) - 8));
	assert_int_equal(bits[2], 1 << (20 - 16));
	h = fedpc_skel_unpack(bits, 7);
	assert_int_equal(fb_graph_edge(h, 1, 4), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_edge(h, 5, 6), FB_EDGE_UNDIRECTED);
	assert_int_equal(fb_graph_n_edges(h), 2);
	assert_int_equal(fedpc_id_width(256), 1);
	assert_int_equal(fedpc_id_width(257), 2);
	assert_int_equal(fedpc_id_width(70000), 4);
	end = fedpc_put_id(fedpc_put_id(buf, 2, 4660), 4, 70000);
	assert_int_equal(end - buf, 6);
	assert_int_equal(fedpc_get_id(&p, 2), 4660);
	assert_int_equal(fedpc_get_id(&p, 4), 70000);
	for (size_t t = 0; t < 5; t++) {
		assert_int_equal(fedpc_min_votes(0.3, false, ks[t]), paper[t]);
		assert_int_equal(fedpc_min_votes(0.3, true, ks[t]), code[t]);
	}
	assert_int_equal(fedpc_min_votes(0.5, false, 4), 3); /* more than half of 4 */
	assert_int_equal(fedpc_min_votes(0.5, true, 3), 2);  /* round(1.5) = 2 */
	fb_graph_free(g);
	fb_graph_free(h);
}

/* Ten clients of 300 rows over x, z, y (so the ranks of the sorted names, x y z, are not
 * the column order) in a chain
 * x -> z -> y; clients 1-3 also have x -> y directly, so only they keep x - y given z. */
static fb_dataset *vote_data(void)
{
	size_t n = 3000;
	fb_dataset *ds = fb_dataset_alloc(n, 3);
	gsl_rng *r = fb_rng_stream(11, "noise");

	assert_int_equal(fb_dataset_set_name(ds, 0, "x", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 1, "z", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 2, "y", NULL), FB_OK);
	for (size_t i = 0; i < n; i++) {
		double x = gsl_ran_gaussian(r, 1.0), z = x + gsl_ran_gaussian(r, 1.0);

		ds->x[i * 3] = x;
		ds->x[i * 3 + 1] = z;
		ds->x[i * 3 + 2] = (i < 900 ? 3.0 * z - 4.0 * x : z) + gsl_ran_gaussian(r, 1.0);
	}
	gsl_rng_free(r);
	return ds;
}

/* The vote decides: x - y has exactly 3 votes of 10 after layer 1.  The paper's rule
 * (more than 30 %: 4 votes) drops it, and the highest-p set of the seven other clients is
 * {z}, so x - z - y stays unoriented; the code's rule (round(3) = 3) keeps the triangle.
 * fedpc-simple2 decides the same way, intersecting the sets {z} of the separating clients. */
static void test_vote_decides(void **state)
{
	fb_dataset *ds = vote_data();
	fb_partition *part = split_even(ds, 10);
	size_t Z[3];
	double p;
	long client;

	for (int code = 0; code < 2; code++) {
		for (int simple = 0; simple < 2; simple++) {
			fb_run *run = start(simple ? &fb_algo_fedpc_simple2 : &fb_algo_fedpc,
			                    code ? "vote_rule=code" : "vote_rule=paper", ds, part,
			                    NULL, 1);
			fb_graph *g = finish(run);

			assert_int_equal(fb_fedpc_votes(run, 0, 2), 3);
			assert_int_equal(fb_fedpc_votes(run, 2, 0), 3);
			assert_int_equal(fb_fedpc_votes(run, 0, 1), 10);
			assert_int_equal(fb_fedpc_votes(run, 1, 2), 10);
			assert_int_equal(fb_graph_adjacent(g, 0, 2), code);
			assert_int_equal(fb_graph_edge(g, 0, 1), FB_EDGE_UNDIRECTED);
			assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_UNDIRECTED);
			if (!code) {
				assert_int_equal(fb_fedpc_sepset(run, 2, 0, Z, &p, &client), 1);
				assert_int_equal(Z[0], 1);
				if (!simple) {
					assert_true(p > 0.01 && p <= 1.0);
					assert_true(client >= 3);
				} else {
					assert_true(isnan(p));
					assert_int_equal(client, -1);
				}
			} else {
				assert_int_equal(fb_fedpc_sepset(run, 0, 2, Z, NULL, NULL), -1);
			}
			fb_graph_free(g);
			fb_run_free(run);
		}
	}
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* Simulated linear-Gaussian data whose names sort in column order (v00, v01, ...). */
static fb_dataset *sim_sorted(size_t d, size_t edges, size_t n, uint64_t seed,
                              fb_graph **truth)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *t;
	char name[32];

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = edges;
	so.n = n;
	so.seed = seed;
	assert_int_equal(fb_sim_generate(&so, &ds, &t, NULL), FB_OK);
	for (size_t j = 0; j < d; j++) {
		snprintf(name, sizeof name, "v%02zu", j);
		assert_int_equal(fb_dataset_set_name(ds, j, name, NULL), FB_OK);
		assert_int_equal(fb_graph_set_name(t, j, name, NULL), FB_OK);
	}
	if (truth != NULL)
		*truth = t;
	else
		fb_graph_free(t);
	return ds;
}

/* Whether a and b hold the same relation on every pair. */
static bool same_graph(const fb_graph *a, const fb_graph *b)
{
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = i + 1; j < a->d; j++)
			if (fb_graph_edge(a, i, j) != fb_graph_edge(b, i, j))
				return false;
	return true;
}

/* FedPC's chosen sets as separating sets (pairs without one stay undefined). */
static fb_sepsets *chosen_sets(const fb_run *run, size_t d)
{
	fb_sepsets *s = fb_sepsets_alloc(d);
	size_t *Z = fb_xmalloc(d * sizeof *Z);

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			long n = fb_fedpc_sepset(run, i, j, Z, NULL, NULL);

			if (n >= 0)
				fb_sepsets_set(s, i, j, Z, (size_t)n);
		}
	free(Z);
	return s;
}

/* Whether i - k - j is an unshielded triple of g. */
static bool unshielded(const fb_graph *g, size_t i, size_t k, size_t j)
{
	return fb_graph_adjacent(g, i, k) && fb_graph_adjacent(g, j, k) &&
	       !fb_graph_adjacent(g, i, j);
}

/* Whether PC's and FedPC's sets agree on the middle of every unshielded triple of g. */
static bool same_middles(const fb_graph *g, const fb_sepsets *a, const fb_sepsets *b)
{
	size_t d = g->d;

	for (size_t k = 0; k < d; k++)
		for (size_t i = 0; i < d; i++)
			for (size_t j = i + 1; j < d; j++) {
				bool in_a = fb_sepsets_contains(a, i, j, k);
				bool in_b = fb_sepsets_contains(b, i, j, k);

				if (unshielded(g, i, k, j) && (in_a != in_b ||
				    fb_sepsets_has(a, i, j) != fb_sepsets_has(b, i, j)))
					return false;
			}
	return true;
}

/* PC to the end on ds with the given collider rule. */
static fb_pc *pc_full(const fb_dataset *ds, enum fb_pc_colliders rule)
{
	fb_pc_options o;
	fb_pc *pc;

	fb_pc_options_init(&o);
	o.colliders = rule;
	pc = fb_pc_alloc(ds, &o, NULL);
	assert_non_null(pc);
	while (!fb_pc_done(pc))
		assert_int_equal(fb_pc_step(pc, NULL, NULL), FB_OK);
	return pc;
}

/* Check one client's fedpc run against PC on the same rows: the same skeleton, and the
 * CPDAG PC's orientation makes of it with the sets FedOrien chose; true when FedOrien's
 * sets agree with PC's on every middle (then the CPDAG must be PC's under the order rule). */
static bool check_one_client(const fb_dataset *ds, const fb_partition *part, bool order)
{
	size_t d = ds->d;
	fb_run *run = start(&fb_algo_fedpc, order ? "colliders=order" : "", ds, part, NULL, 1);
	fb_graph *g = finish(run), *sk;
	fb_pc *pc = pc_full(ds, order ? FB_PC_COLLIDERS_ORDER : FB_PC_COLLIDERS_STRENGTH);
	fb_sepsets *ours = chosen_sets(run, d);
	bool agree;

	sk = fb_graph_copy(fb_pc_graph(pc));
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			assert_int_equal(fb_graph_adjacent(g, i, j), fb_graph_adjacent(sk, i, j));
			if (fb_graph_adjacent(sk, i, j))
				fb_graph_set_undirected(sk, i, j);
		}
	assert_int_equal(fb_pc_orient_colliders(sk, ours, fb_pc_ci(pc), order ?
	                                        FB_PC_COLLIDERS_ORDER : FB_PC_COLLIDERS_STRENGTH,
	                                        NULL, NULL, NULL), FB_OK);
	fb_cpdag_meek(sk, false);
	assert_true(same_graph(g, sk));
	agree = same_middles(g, ours, fb_pc_sepsets(pc));
	if (agree && order)
		assert_true(same_graph(g, fb_pc_graph(pc)));
	fb_sepsets_free(ours);
	fb_graph_free(sk);
	fb_graph_free(g);
	fb_pc_free(pc);
	fb_run_free(run);
	return agree;
}

/* One client: FedSkele runs PC's levels, so the skeleton is PC's on every seed; FedOrien's
 * orientation is PC's orientation (either collider rule, then Meek) of that skeleton with
 * the sets FedOrien chose; and where those sets agree with PC's own on every middle, the
 * CPDAG is PC's exactly (order rule). */
static void test_one_client(void **state)
{
	size_t agree = 0;

	for (uint64_t seed = 1; seed <= 6; seed++) {
		fb_dataset *ds = sim_sorted(12, 16, 400, seed, NULL);
		fb_partition *part = split_even(ds, 1);

		check_one_client(ds, part, false);
		agree += check_one_client(ds, part, true);
		fb_partition_free(part);
		fb_dataset_free(ds);
	}
	printf("FedOrien agrees with PC's separating sets on every middle on %zu of 6 seeds\n",
	       agree);
	assert_true(agree >= 1);
}

/* Clients that hold their columns in other orders align them by name: the run gives the
 * same graph, votes and bytes as when every client has the data's order. */
static void test_alignment(void **state)
{
	static const size_t mult[3] = { 2, 4, 5 }; /* prime to 9: j -> mult j + c permutes */
	fb_dataset *ds = sim_sorted(9, 12, 1500, 4, NULL);
	fb_partition *plain = split_even(ds, 3), *mixed = split_even(ds, 3);
	fb_run *a, *b;
	fb_graph *ga, *gb;

	for (size_t c = 0; c < 3; c++) {
		size_t perm[9];
		fb_dataset *moved;

		for (size_t j = 0; j < 9; j++)
			perm[j] = (j * mult[c] + c) % 9;
		moved = fb_dataset_subset(mixed->clients[c].data, NULL, 0, perm, 9);
		assert_non_null(moved);
		fb_dataset_free(mixed->clients[c].data);
		mixed->clients[c].data = moved;
	}
	a = start(&fb_algo_fedpc, "", ds, plain, NULL, 1);
	b = start(&fb_algo_fedpc, "", ds, mixed, NULL, 1);
	ga = finish(a);
	gb = finish(b);
	assert_true(same_graph(ga, gb));
	assert_true(fb_graph_n_edges(ga) > 0);
	for (size_t i = 0; i < 9; i++)
		for (size_t j = 0; j < 9; j++)
			if (i != j)
				assert_int_equal(fb_fedpc_votes(a, i, j), fb_fedpc_votes(b, i, j));
	assert_int_equal(fb_run_bytes(a, FB_UP), fb_run_bytes(b, FB_UP));
	assert_int_equal(fb_run_bytes(a, FB_DOWN), fb_run_bytes(b, FB_DOWN));
	fb_graph_free(ga);
	fb_graph_free(gb);
	fb_run_free(a);
	fb_run_free(b);
	fb_partition_free(plain);
	fb_partition_free(mixed);
	fb_dataset_free(ds);
}

/* Split ds horizontally with the given row counts, contiguous. */
static fb_partition *split_sizes(const fb_dataset *ds, size_t k, const char *sizes)
{
	fb_split_options o;
	fb_error err = { "" };
	fb_partition *p;

	fb_split_options_init(&o);
	o.shuffle = 0;
	o.sizes = FB_SIZES_LIST;
	o.size_list = sizes;
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, &err);
	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

/* Message sizes follow d and the skeleton, never a client's rows: with 100, 400 and 1500
 * rows every client sends ceil(d(d-1)/16) bytes per layer and receives the same broadcast;
 * in FedOrien every client sends P + 2T numbers (P end pairs, T triples) and P sets of at
 * most the pair's layer members. */
static void test_ledger(void **state)
{
	size_t d = 10, bits = fedpc_bits_bytes(d);
	fb_dataset *ds = sim_sorted(d, 14, 2000, 2, NULL);
	fb_partition *part = split_sizes(ds, 3, "100,400,1500");
	fb_run *run = start(&fb_algo_fedpc, "", ds, part, NULL, 1);
	const fedpc_state *st;
	const fb_ledger *l;
	size_t rounds, P = 0, T, sum[2] = { 0, 0 };

	fb_graph_free(finish(run));
	st = run->state;
	l = fb_fed_ledger(run->fed);
	rounds = fb_fed_rounds(run->fed);
	T = st->ntri;
	for (size_t t = 0; t < T; t++)
		P += t == 0 || st->tri[3 * t] != st->tri[3 * t - 3] ||
		     st->tri[3 * t + 2] != st->tri[3 * t - 1];
	assert_true(rounds >= 3 && T > 0);
	for (size_t r = 1; r <= rounds; r++)
		for (size_t c = 0; c < 3; c++) {
			size_t up = fb_ledger_client_bytes(l, r, FB_UP, c);
			size_t down = fb_ledger_client_bytes(l, r, FB_DOWN, c);

			assert_int_equal(down, fb_ledger_client_bytes(l, r, FB_DOWN, 0));
			sum[FB_UP] += up;
			sum[FB_DOWN] += down;
			if (r < rounds) {
				assert_int_equal(up, bits);
				assert_int_equal(down, 8 + bits);
				continue;
			}
			assert_true(up >= 8 * (P + 2 * T) + P);
			assert_true(up <= 8 * (P + 2 * T) + P * (1 + st->last_layer));
		}
	assert_int_equal(sum[FB_UP], fb_run_bytes(run, FB_UP));
	assert_int_equal(sum[FB_DOWN], fb_run_bytes(run, FB_DOWN));
	fb_run_free(run);
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* Whether two runs of the family agree on every figure, byte, vote and chosen set. */
static void assert_same_runs(const fb_run *a, const fb_run *b, size_t d)
{
	size_t za[32], zb[32];

	assert_int_equal(a->trace.n, b->trace.n);
	for (size_t r = 0; r < a->trace.n; r++) {
		assert_memory_equal(a->trace.r[r].fig, b->trace.r[r].fig,
		                    a->trace.nfig * sizeof(double));
		assert_int_equal(a->trace.r[r].bytes_up, b->trace.r[r].bytes_up);
		assert_int_equal(a->trace.r[r].bytes_down, b->trace.r[r].bytes_down);
	}
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			double pa = 0, pb = 0;
			long na, nb;

			if (i == j)
				continue;
			assert_int_equal(fb_fedpc_votes(a, i, j), fb_fedpc_votes(b, i, j));
			na = fb_fedpc_sepset(a, i, j, za, &pa, NULL);
			nb = fb_fedpc_sepset(b, i, j, zb, &pb, NULL);
			assert_int_equal(na, nb);
			if (na > 0)
				assert_memory_equal(za, zb, (size_t)na * sizeof *za);
			if (na >= 0 && !isnan(pa))
				assert_memory_equal(&pa, &pb, sizeof pa);
		}
}

/* Every round's trace record keeps each client's part and own figure (fedpc: the tests it
 * ran), as the federation had them right after the round, and later rounds leave them be;
 * the clients' figures add up to the round's "tests"; the threshold the server applied is
 * published for each rule and K. */
static void test_trace_clients(void **state)
{
	size_t d = 10, K = 3, rounds = 0;
	fb_dataset *ds = sim_sorted(d, 14, 1500, 3, NULL);
	fb_partition *part = split_sizes(ds, K, "300,500,700");
	fb_run *run = start(&fb_algo_fedpc, "vote_rule=code", ds, part, NULL, 1);
	double seen[16][3];
	fb_fedpc_vote v;
	fb_error err = { "" };

	assert_int_equal(fb_fedpc_threshold(run, &v), FB_ERR); /* nothing counted yet */
	while (!fb_run_done(run) && rounds < 16) {
		const fb_trace_rec *r;
		double sum = 0;

		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s", err.msg);
		r = fb_run_last(run);
		assert_int_equal(r->nclients, K);
		assert_non_null(r->took);
		assert_non_null(r->client_fig);
		for (size_t c = 0; c < K; c++) {
			assert_true(r->took[c]);
			seen[rounds][c] = fb_fed_client_figure(run->fed, c);
			assert_memory_equal(&r->client_fig[c], &seen[rounds][c], sizeof(double));
			sum += r->client_fig[c];
		}
		assert_true(sum == r->fig[3]); /* "tests": the sum the algorithm reports */
		rounds++;
	}
	assert_true(rounds >= 3 && fb_run_done(run));
	for (size_t i = 0; i < rounds; i++)
		assert_memory_equal(run->trace.r[i].client_fig, seen[i], K * sizeof(double));
	assert_true(run->trace.r[0].client_fig[0] != run->trace.r[1].client_fig[0]);
	assert_int_equal(fb_fedpc_threshold(run, &v), FB_OK);
	assert_int_equal(v.need, 1); /* round(0.3 * 3) = 1 */
	assert_int_equal(v.heard, K);
	assert_string_equal(v.rule, "code");
	assert_true(v.share == 0.3);
	fb_run_free(run);
	run = start(&fb_algo_fedpc_simple2, "vote=0.5", ds, part, NULL, 1);
	fb_graph_free(finish(run));
	assert_int_equal(fb_fedpc_threshold(run, &v), FB_OK);
	assert_int_equal(v.need, 2); /* more than 0.5 * 3 */
	assert_string_equal(v.rule, "paper");
	fb_run_free(run);
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* The largest difference between the p-values of a and b over random queries on ds (S of 0
 * to 3 variables), each p-value asked through fb_ci_test. */
static double max_p_gap(fb_ci *a, fb_ci *b, size_t d, uint64_t seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double gap = 0.0;

	gsl_rng_set(rng, seed);
	for (size_t q = 0; q < 400; q++) {
		size_t v[5], ns = q % 4, n = 0;
		fb_ci_result ra, rb;
		fb_error err = { "" };

		while (n < ns + 2) {
			size_t x = gsl_rng_uniform_int(rng, d);
			bool fresh = true;

			for (size_t t = 0; t < n; t++)
				fresh = fresh && v[t] != x;
			if (fresh)
				v[n++] = x;
		}
		assert_int_equal(fb_ci_test(a, v[0], v[1], v + 2, ns, &ra, &err), FB_OK);
		assert_int_equal(fb_ci_test(b, v[0], v[1], v + 2, ns, &rb, &err), FB_OK);
		if (fabs(ra.p - rb.p) > gap)
			gap = fabs(ra.p - rb.p);
	}
	gsl_rng_free(rng);
	return gap;
}

/* A test object with correlations on demand answers as the packed matrix does up to
 * rounding (p-values within 1e-9, a constant column's correlation 0 on both); an entry has
 * the same bits asked alone, in a prefetched list or after the table let it go; its blocks
 * agree with the entries to 1e-12. */
static void test_lazy_ci(void **state)
{
	size_t d = 12, pairs[6] = { 0, 3, 2, 7, 1, 4 };
	fb_dataset *ds = sim_sorted(d, 16, 500, 9, NULL);
	fb_ci_options o;
	fb_error err = { "" };
	fb_ci *dense, *lazy, *fresh;
	fb_ci_result ra, rb;
	double blk[4 * 5];
	size_t none[1] = { 0 };

	(void)state;
	for (size_t t = 0; t < ds->n; t++)
		ds->x[t * d + 5] = 2.5; /* a constant column */
	fb_ci_options_init(&o);
	o.test = FB_CI_FISHER_Z;
	o.cache = false;
	dense = fb_ci_alloc(ds, &o, &err);
	lazy = fb_ci_alloc_lazy(ds, NULL, &o, &err);
	fresh = fb_ci_alloc_lazy(ds, NULL, &o, &err);
	assert_non_null(dense);
	assert_non_null(lazy);
	assert_non_null(fresh);
	assert_true(fb_ci_is_lazy(lazy) && !fb_ci_is_lazy(dense));
	assert_true(max_p_gap(dense, lazy, d, 4) < 1e-9);
	assert_int_equal(fb_ci_test(lazy, 5, 8, none, 0, &ra, &err), FB_OK);
	assert_true(ra.r == 0.0 && ra.p == 1.0);
	assert_int_equal(fb_ci_lazy_prefetch(fresh, pairs, 3, &err), FB_OK);
	for (size_t q = 0; q < 3; q++) {
		assert_int_equal(fb_ci_test(lazy, pairs[2 * q], pairs[2 * q + 1], none, 0, &ra,
		                            &err), FB_OK);
		assert_int_equal(fb_ci_test(fresh, pairs[2 * q], pairs[2 * q + 1], none, 0, &rb,
		                            &err), FB_OK);
		assert_memory_equal(&ra.p, &rb.p, sizeof ra.p);
	}
	assert_int_equal(fb_ci_lazy_block(lazy, 2, 6, 4, 9, blk, &err), FB_OK);
	for (size_t i = 2; i < 6; i++)
		for (size_t j = 4; j < 9; j++) {
			if (i == j) {
				assert_true(blk[(i - 2) * 5 + j - 4] == 1.0);
				continue;
			}
			assert_int_equal(fb_ci_test(lazy, i < j ? i : j, i < j ? j : i, none, 0, &ra,
			                            &err), FB_OK);
			assert_true(fabs(blk[(i - 2) * 5 + j - 4] - ra.r) < 1e-12);
		}
	assert_int_equal(fb_ci_lazy_block(lazy, 4, 2, 0, 3, blk, &err), FB_ERR);
	assert_int_equal(fb_ci_lazy_prefetch(lazy, pairs + 1, 1, &err), FB_ERR); /* (3, 2) */
	assert_int_equal(fb_ci_helpers_alloc(lazy, ds, 1, &err), FB_ERR);
	fb_ci_free(dense);
	fb_ci_free(lazy);
	fb_ci_free(fresh);
	fb_dataset_free(ds);
}

/* fedpc with corr=demand learns what corr=matrix learns: the same rounds and figures, votes,
 * graph and chosen sets, their p-values within 1e-9 (a few ulps apart: the entries are
 * summed another way); one thread or two, the same bits. */
static void test_corr_demand(void **state)
{
	static const struct {
		size_t d, edges, n, k;
		uint64_t seed;
		const char *sizes;
	} cases[] = { { 30, 40, 2400, 4, 11, "300,500,700,900" }, { 45, 45, 3000, 3, 12, NULL },
		      { 20, 35, 1200, 5, 13, NULL } };

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		size_t d = cases[c].d, za[64], zb[64];
		fb_dataset *ds = sim_sorted(d, cases[c].edges, cases[c].n, cases[c].seed, NULL);
		fb_partition *part = cases[c].sizes != NULL ? split_sizes(ds, cases[c].k,
		                                                          cases[c].sizes) :
		                                              split_even(ds, cases[c].k);
		fb_run *m = start(&fb_algo_fedpc, "corr=matrix", ds, part, NULL, 1);
		fb_run *z = start(&fb_algo_fedpc, "corr=demand", ds, part, NULL, 1);
		fb_run *z2 = start(&fb_algo_fedpc, "corr=demand", ds, part, NULL, 2);
		fb_graph *gm = finish(m), *gz = finish(z), *gz2 = finish(z2);
		double gap = 0.0;

		assert_true(same_graph(gm, gz));
		assert_true(same_graph(gz, gz2));
		assert_same_runs(z, z2, d);
		assert_int_equal(m->trace.n, z->trace.n);
		for (size_t r = 0; r < m->trace.n; r++)
			assert_memory_equal(m->trace.r[r].fig, z->trace.r[r].fig,
			                    m->trace.nfig * sizeof(double));
		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++) {
				double pa = NAN, pb = NAN;
				long na, nb;

				if (i == j)
					continue;
				assert_int_equal(fb_fedpc_votes(m, i, j), fb_fedpc_votes(z, i, j));
				na = fb_fedpc_sepset(m, i, j, za, &pa, NULL);
				nb = fb_fedpc_sepset(z, i, j, zb, &pb, NULL);
				assert_int_equal(na, nb);
				if (na > 0)
					assert_memory_equal(za, zb, (size_t)na * sizeof *za);
				if (na >= 0 && !isnan(pa) && fabs(pa - pb) > gap)
					gap = fabs(pa - pb);
			}
		print_message("d = %zu, %zu clients: largest gap of a chosen set's p-value %.3g\n", d,
		              cases[c].k, gap);
		assert_true(gap < 1e-9);
		fb_graph_free(gm);
		fb_graph_free(gz);
		fb_graph_free(gz2);
		fb_run_free(m);
		fb_run_free(z);
		fb_run_free(z2);
		fb_partition_free(part);
		fb_dataset_free(ds);
	}
}

/* Two threads give the same run as one, bit for bit, for all three algorithms. */
static void test_threads(void **state)
{
	static const fb_algo *const algos[3] = { &fb_algo_fedpc, &fb_algo_fedpc_simple1,
		                                 &fb_algo_fedpc_simple2 };
	size_t d = 15;
	fb_dataset *ds = sim_sorted(d, 20, 2400, 5, NULL);
	fb_partition *part = split_sizes(ds, 4, "300,500,700,900");

	for (size_t t = 0; t < 3; t++) {
		fb_run *one = start(algos[t], "", ds, part, NULL, 1);
		fb_run *two = start(algos[t], "", ds, part, NULL, 2);
		fb_graph *g1 = finish(one), *g2 = finish(two);

		assert_true(same_graph(g1, g2));
		assert_same_runs(one, two, d);
		fb_graph_free(g1);
		fb_graph_free(g2);
		fb_run_free(one);
		fb_run_free(two);
	}
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* One FedOrien reply by hand: the pair's p-value, the triple's collider test, the set. */
static void reply(fb_msg *m, double p, double pcol, double stat, const unsigned char *set,
                  size_t nset)
{
	double *x = fb_msg_doubles(m, 3);

	x[0] = p;
	x[1] = pcol;
	x[2] = stat;
	memcpy(fb_msg_bytes(m, nset), set, nset);
}

/* The server keeps the highest-p set over the clients: for the triple 0 - 1 - 2, client 1
 * separates 0 and 2 by {1} (no collider) and client 2 by {} (a collider); whichever has
 * the higher p-value decides. */
static void test_max_p(void **state)
{
	static const unsigned char with_k[2] = { 1, 1 }, empty[1] = { 0 };
	fedpc_state st;
	fb_msg up[2] = { { 0 } }, down = { 0 };
	const fb_msg *ups[2] = { &up[0], &up[1] };
	fb_error err = { "" };
	double pick_p;
	long pick_c;

	for (int flip = 0; flip < 2; flip++) {
		memset(&st, 0, sizeof st);
		st.c.k = 2;
		st.c.d = 3;
		st.c.w = 1;
		st.c.names = fb_xcalloc(3, sizeof *st.c.names);
		st.opt.alpha = 0.01;
		st.strength = true;
		st.orienting = true;
		st.c.graph = fb_graph_alloc(3);
		fb_graph_set_undirected(st.c.graph, 0, 1);
		fb_graph_set_undirected(st.c.graph, 1, 2);
		st.ntri = fb_graph_unshielded_triples(st.c.graph, &st.tri);
		assert_int_equal(st.ntri, 1);
		reply(&up[0], flip ? 0.9 : 0.5, NAN, NAN, with_k, 2);
		reply(&up[1], flip ? 0.6 : 0.8, 1e-6, 25.0, empty, 1);
		assert_int_equal(fedpc_orient_server(&st, ups, 2, &down, &err), FB_OK);
		assert_true(st.c.done);
		assert_true(fedpc_picks_get(&st.c.picks, fedpc_pair(3, 0, 2), &pick_p, &pick_c));
		assert_int_equal(pick_c, flip ? 0 : 1);
		assert_true(pick_p == (flip ? 0.9 : 0.8));
		assert_false(fedpc_picks_get(&st.c.picks, fedpc_pair(3, 0, 1), &pick_p, &pick_c));
		assert_true(isnan(pick_p) && pick_c == -1);
		if (flip) {
			assert_int_equal(fb_graph_n_undirected(st.c.graph), 2);
			assert_int_equal(st.colliders, 0);
		} else {
			assert_int_equal(fb_graph_edge(st.c.graph, 0, 1), FB_EDGE_FORWARD);
			assert_int_equal(fb_graph_edge(st.c.graph, 2, 1), FB_EDGE_FORWARD);
			assert_int_equal(st.colliders, 1);
		}
		assert_int_equal(st.unresolved, 0);
		free(st.tri);
		fedpc_common_release(&st.c);
	}
	/* no client separated the ends: the triple is counted and left alone */
	memset(&st, 0, sizeof st);
	st.c.k = 2;
	st.c.d = 3;
	st.c.w = 1;
	st.c.names = fb_xcalloc(3, sizeof *st.c.names);
	st.opt.alpha = 0.01;
	st.c.graph = fb_graph_alloc(3);
	fb_graph_set_undirected(st.c.graph, 0, 1);
	fb_graph_set_undirected(st.c.graph, 1, 2);
	st.ntri = fb_graph_unshielded_triples(st.c.graph, &st.tri);
	for (int m = 0; m < 2; m++) {
		fb_msg_doubles(&up[m], 1)[0] = -1.0;
		memcpy(fb_msg_bytes(&up[m], 1), empty, 1);
	}
	assert_int_equal(fedpc_orient_server(&st, ups, 2, &down, &err), FB_OK);
	assert_int_equal(st.unresolved, 1);
	assert_int_equal(fb_graph_n_undirected(st.c.graph), 2);
	/* a reply that does not parse is refused with the client named */
	fb_msg_bytes(&up[1], 0);
	assert_int_equal(fedpc_orient_server(&st, ups, 2, &down, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "client 2"));
	free(st.tri);
	fedpc_common_release(&st.c);
	fb_msg_release(&up[0]);
	fb_msg_release(&up[1]);
	fb_msg_release(&down);
}

/* n rows of x, y ~ N(0, 1), z = x + y + N(0, 1) (noise stream 7). */
static fb_dataset *collider_data(size_t n)
{
	fb_dataset *ds = fb_dataset_alloc(n, 3);
	gsl_rng *r = fb_rng_stream(7, "noise");

	for (size_t i = 0; i < n; i++) {
		double x = gsl_ran_gaussian(r, 1.0), y = gsl_ran_gaussian(r, 1.0);

		ds->x[i * 3] = x;
		ds->x[i * 3 + 1] = y;
		ds->x[i * 3 + 2] = x + y + gsl_ran_gaussian(r, 1.0);
	}
	gsl_rng_free(r);
	return ds;
}

/* x, y ~ N(0, 1), z = x + y + N(0, 1), 3000 rows over three clients: fedpc and
 * fedpc-simple2 give x -> z <- y, fedpc-simple1 keeps both arcs. */
static void test_collider(void **state)
{
	static const fb_algo *const algos[3] = { &fb_algo_fedpc, &fb_algo_fedpc_simple1,
		                                 &fb_algo_fedpc_simple2 };
	fb_dataset *ds = collider_data(3000);
	fb_partition *part = split_even(ds, 3);

	for (size_t t = 0; t < 3; t++) {
		fb_run *run = start(algos[t], "", ds, part, NULL, 2);
		fb_graph *g = finish(run);

		assert_int_equal(fb_graph_n_edges(g), 2);
		assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_FORWARD);
		assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_FORWARD);
		if (t != 1)
			assert_int_equal(fb_fedpc_votes(run, 0, 1), 0);
		fb_graph_free(g);
		fb_run_free(run);
	}
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* The collider data with x - y forbidden both ways: fedpc's FedOrien asks no client about
 * x and y (their set is the empty one, found by no client), where without the knowledge a
 * client's set is chosen; x -> z <- y either way. */
static void test_knowledge_pair(void **state)
{
	fb_dataset *ds = collider_data(3000);
	fb_partition *part = split_even(ds, 3);

	for (int with = 0; with < 2; with++) {
		fb_knowledge *k = fb_knowledge_alloc(3, NULL);
		fb_run_spec spec = { .algo = "fedpc", .data = ds, .part = part, .knowledge = k };
		fb_error err = { "" };
		fb_run *run;
		fb_graph *g;
		size_t S[3];
		long client = -2, ns;

		if (with) {
			assert_int_equal(fb_knowledge_forbid(k, 0, 1, &err), FB_OK);
			assert_int_equal(fb_knowledge_forbid(k, 1, 0, &err), FB_OK);
		}
		run = fb_run_alloc(&spec, &err);
		if (run == NULL)
			fail_msg("%s", err.msg);
		g = finish(run);
		assert_int_equal(fb_graph_edge(g, 0, 2), FB_EDGE_FORWARD);
		assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_FORWARD);
		ns = fb_fedpc_sepset(run, 0, 1, S, NULL, &client);
		assert_int_equal(ns, 0);
		if (with)
			assert_int_equal(client, -1);
		else
			assert_true(client >= 0);
		fb_graph_free(g);
		fb_run_free(run);
		fb_knowledge_free(k);
	}
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* Colliders that would close a directed cycle are conflicts: 0 -> 1 <- 2 and 1 -> 3 <- 4
 * are oriented, then 3 -> 0 <- 5 would make 0 -> 1 -> 3 -> 0, so it is skipped; Meek's R2
 * then gives 0 -> 3 (from 0 -> 1 -> 3) and 0 - 5 stays undirected: no directed cycle. */
static void test_collider_cycle(void **state)
{
	static const size_t edges[6][2] = { { 0, 1 }, { 2, 1 }, { 1, 3 }, { 4, 3 }, { 3, 0 },
		                            { 5, 0 } };
	fedpc_cand cands[3] = { { 0.001, 0, 0, 0, 1, 2 }, { 0.002, 0, 0, 1, 3, 4 },
		                { 0.003, 0, 0, 3, 0, 5 } };
	fb_graph *g = fb_graph_alloc(6);
	size_t colliders, conflicts;

	(void)state;
	for (size_t e = 0; e < 6; e++)
		fb_graph_set_undirected(g, edges[e][0], edges[e][1]);
	fedpc_orient(g, cands, 3, true, &colliders, &conflicts, NULL);
	assert_int_equal(colliders, 2);
	assert_int_equal(conflicts, 1);
	assert_int_equal(fb_graph_edge(g, 0, 1), FB_EDGE_FORWARD);
	assert_int_equal(fb_graph_edge(g, 1, 3), FB_EDGE_FORWARD);
	assert_int_equal(fb_graph_edge(g, 0, 3), FB_EDGE_FORWARD);
	assert_int_equal(fb_graph_edge(g, 0, 5), FB_EDGE_UNDIRECTED);
	assert_true(fb_graph_is_acyclic(g));
	fb_graph_free(g);
}

/* The FedPC paper's SHD: the estimate extended to a DAG, then extra + missing + reversed. */
static size_t paper_shd(const fb_graph *g, const fb_graph *truth)
{
	fb_graph *dag = fb_cpdag_to_dag(g, NULL);
	fb_metrics m;

	assert_int_equal(fb_metrics_compute(dag, truth, &m, NULL), FB_OK);
	fb_graph_free(dag);
	return m.shd;
}

/* Read one synthetic folder of the shared data; false when it is absent. */
static bool read_synth(const char *tag, fb_dataset **ds, fb_graph **truth)
{
	const char *top = getenv("top_srcdir");
	char path[4096];

	snprintf(path, sizeof path, "%s/../shared/data/synth/%s/X.csv",
	         top != NULL ? top : ".", tag);
	if (access(path, R_OK) != 0)
		return false;
	*ds = fb_csv_read(path, NULL, NULL, NULL);
	assert_non_null(*ds);
	snprintf(path, sizeof path, "%s/../shared/data/synth/%s/truth.csv",
	         top != NULL ? top : ".", tag);
	*truth = fb_graph_read_csv_for(path, *ds, NULL);
	assert_non_null(*truth);
	return true;
}

/* B_d20_n256 s1-s3, 8 contiguous clients of 32 rows, Fisher-z, alpha 0.01: the FedPC
 * authors' code gets SHD 16, 18 and 5 (mean 13); fedpc must do at least as well on
 * average, with the extension to a DAG (extend=yes) and without it. */
static void test_synth_accuracy(void **state)
{
	double total = 0;

	for (int s = 1; s <= 3; s++) {
		char tag[64];
		fb_dataset *ds;
		fb_graph *truth, *g, *e;
		fb_partition *part;
		fb_run *run, *ext;
		size_t shd;

		snprintf(tag, sizeof tag, "B_d20_n256_s%d", s);
		if (!read_synth(tag, &ds, &truth)) {
			printf("skipped: the shared data folder synth/%s is absent\n", tag);
			skip();
		}
		part = split_even(ds, 8);
		run = start(&fb_algo_fedpc, "test=fisher-z alpha=0.01", ds, part, truth, 1);
		ext = start(&fb_algo_fedpc, "test=fisher-z alpha=0.01 extend=yes", ds, part,
		            truth, 1);
		g = finish(run);
		e = finish(ext);
		shd = paper_shd(g, truth);
		assert_true(fb_graph_is_dag(e));
		assert_int_equal(paper_shd(e, truth), shd);
		printf("%s: SHD %zu\n", tag, shd);
		total += (double)shd;
		fb_graph_free(g);
		fb_graph_free(e);
		fb_run_free(run);
		fb_run_free(ext);
		fb_partition_free(part);
		fb_graph_free(truth);
		fb_dataset_free(ds);
	}
	printf("mean SHD %.2f (the authors' code: 13)\n", total / 3);
	assert_true(total / 3 <= 13.0);
}

/* The mean over the clients of the FedPC paper's SHD of PC (the pc learner's defaults with
 * test) on each client alone: PC-Avg, sep:pc. */
static double sep_pc_shd(const fb_partition *part, const fb_graph *truth, enum fb_ci_test test)
{
	fb_pc_options o;
	double sum = 0;

	fb_pc_options_init(&o);
	o.ci.test = test;
	for (size_t c = 0; c < part->k; c++) {
		fb_graph *g = fb_pc_run(part->clients[c].data, &o, NULL);

		assert_non_null(g);
		sum += (double)paper_shd(g, truth);
		fb_graph_free(g);
	}
	return sum / (double)part->k;
}

/* alarm.bif of the shared data sampled to 5000 rows (seed 1), with its DAG; skips the test
 * when the shared data is absent. */
static void alarm_5000(fb_dataset **ds, fb_graph **truth)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	fb_bn *bn;

	snprintf(path, sizeof path, "%s/../shared/data/bif/alarm.bif", top != NULL ? top : ".");
	if (access(path, R_OK) != 0) {
		printf("skipped: %s is absent\n", path);
		skip();
	}
	bn = fb_bif_read(path, NULL);
	assert_non_null(bn);
	*ds = fb_bn_sample(bn, 5000, 1, NULL);
	*truth = fb_bn_graph(bn);
	fb_bn_free(bn);
}

/* An uneven horizontal split of ds over k clients. */
static fb_partition *split_uneven(const fb_dataset *ds, size_t k, uint64_t seed)
{
	fb_split_options o;
	fb_partition *part;

	fb_split_options_init(&o);
	o.sizes = FB_SIZES_UNEVEN;
	o.seed = seed;
	part = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, NULL);
	assert_non_null(part);
	return part;
}

/* alarm sampled to 5000 rows (seed 1), uneven splits over 5 and 10 clients (split seeds 1-3),
 * G2 at alpha 0.01: fedpc's mean SHD is below PC-Avg's and within 25 % of the paper's
 * figures (20 and 23); examples/fedpc-alarm.sh runs the whole table. */
static void test_alarm(void **state)
{
	static const size_t ks[2] = { 5, 10 };
	static const double paper[2] = { 20, 23 };
	fb_dataset *ds;
	fb_graph *truth;

	alarm_5000(&ds, &truth);
	for (size_t t = 0; t < 2; t++) {
		double ours = 0, sep = 0;

		for (uint64_t seed = 1; seed <= 3; seed++) {
			fb_partition *part = split_uneven(ds, ks[t], seed);
			fb_run *run;
			fb_graph *g;

			run = start(&fb_algo_fedpc, "test=g2 alpha=0.01", ds, part, truth, 2);
			g = finish(run);
			ours += (double)paper_shd(g, truth) / 3;
			sep += sep_pc_shd(part, truth, FB_CI_G2) / 3;
			fb_graph_free(g);
			fb_run_free(run);
			fb_partition_free(part);
		}
		printf("alarm, K = %zu: fedpc SHD %.2f, sep:pc %.2f, the paper's FedPC %.0f\n",
		       ks[t], ours, sep, paper[t]);
		assert_true(ours < sep);
		assert_true(ours <= 1.25 * paper[t]);
	}
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* An alarm run whose separating sets conflict (small=fedpc, K = 3, split seed 5): before
 * Meek's rules refused to close cycles, one of them oriented an edge against a directed path,
 * so the result had a cycle and no DAG extension.  It must now be acyclic and extend to a
 * DAG. */
static void test_alarm_acyclic(void **state)
{
	fb_dataset *ds;
	fb_graph *truth, *g;
	fb_partition *part;
	fb_run *run;

	alarm_5000(&ds, &truth);
	part = split_uneven(ds, 3, 5);
	run = start(&fb_algo_fedpc, "test=g2 alpha=0.01 small=fedpc", ds, part, truth, 2);
	g = finish(run);
	assert_true(fb_graph_is_acyclic(g));
	fb_graph_free(g);
	fb_run_free(run);
	run = start(&fb_algo_fedpc, "test=g2 alpha=0.01 small=fedpc extend=yes", ds, part, truth,
	            2);
	g = finish(run);
	assert_true(fb_graph_is_dag(g));
	fb_graph_free(g);
	fb_run_free(run);
	fb_partition_free(part);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* Bad settings and data are refused with a sentence. */
static void test_errors(void **state)
{
	fb_dataset *ds = sim_sorted(4, 3, 100, 1, NULL);
	fb_partition *part = split_even(ds, 2);
	fb_error err = { "" };
	fb_run *run = fb_xcalloc(1, sizeof *run);

	run->algo = &fb_algo_fedpc;
	run->name = fb_xstrdup("fedpc");
	run->data = ds;
	run->part = part;
	assert_int_equal(fb_params_init(&run->params, fb_algo_fedpc.params, &err), FB_OK);
	assert_int_equal(fb_params_set_word(&run->params, "alpha=0", "fedpc", &err), FB_OK);
	fb_fed_options_init(&run->fedopt);
	run->fed = fb_fed_alloc(part, &run->fedopt, &err);
	assert_int_equal(fb_algo_fedpc.create(run, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "alpha"));
	assert_null(run->state); /* a failed create leaves nothing */
	fb_run_free(run);
	run = start(&fb_algo_fedpc_simple2, "", ds, part, NULL, 1);
	assert_null(fb_run_result(run, &err));
	assert_non_null(strstr(err.msg, "not run a round"));
	assert_int_equal(fb_fedpc_votes(run, 0, 1), -1);
	assert_int_equal(fb_fedpc_sepset(run, 0, 1, NULL, NULL, NULL), -1);
	assert_int_equal(fb_fedpc_sepset(NULL, 0, 1, NULL, NULL, NULL), -1);
	fb_run_free(run);
	run = start(&fb_algo_fedpc, "", ds, part, NULL, 1);
	assert_int_equal(fb_fedpc_votes(run, 0, 1), -1);
	assert_int_equal(fb_run_step(run, &err), FB_OK);
	assert_true(fb_fedpc_votes(run, 0, 1) >= 0);
	assert_int_equal(fb_fedpc_votes(run, 1, 1), -1);
	assert_int_equal(fb_fedpc_votes(run, 0, 4), -1);
	fb_run_free(run);
	fb_partition_free(part);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_vote_decides),
		cmocka_unit_test(test_one_client),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_lazy_ci),
		cmocka_unit_test(test_corr_demand),
		cmocka_unit_test(test_max_p),
		cmocka_unit_test(test_collider),
		cmocka_unit_test(test_knowledge_pair),
		cmocka_unit_test(test_collider_cycle),
		cmocka_unit_test(test_synth_accuracy),
		cmocka_unit_test(test_alarm),
		cmocka_unit_test(test_alarm_acyclic),
		cmocka_unit_test(test_trace_clients),
		cmocka_unit_test(test_errors),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
