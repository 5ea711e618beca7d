/* Unit tests of the simulator: random DAG families, weights, SEM sampling, determinism. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/sim.h"

/* Set to 1 to print the fixed-seed reference values once. */
#define PRINT_REFERENCE 0

/* Number of arcs leaving node i. */
static size_t out_degree(const fb_graph *g, size_t i)
{
	size_t count = 0;

	for (size_t j = 0; j < g->d; j++)
		count += fb_graph_has_arc(g, i, j);
	return count;
}

/* Assert that order is a permutation of 0..d-1 and every arc goes forward in it. */
static void assert_topological(const fb_graph *g, const size_t *order)
{
	size_t d = g->d, *rank = calloc(d, sizeof *rank);
	unsigned char *seen = calloc(d, 1);

	for (size_t p = 0; p < d; p++) {
		assert_true(order[p] < d);
		assert_false(seen[order[p]]);
		seen[order[p]] = 1;
		rank[order[p]] = p;
	}
	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++) {
			if (fb_graph_has_arc(g, i, j))
				assert_true(rank[i] < rank[j]);
		}
	}
	free(seen);
	free(rank);
}

/* ER variant A: exact edge count and acyclicity over many seeds and sizes. */
static void test_er_exact(void **state)
{
	static const size_t cases[][2] = { { 2, 0 }, { 2, 1 }, { 5, 4 }, { 5, 10 }, { 12, 12 },
	                                   { 12, 30 }, { 12, 66 }, { 30, 60 } };
	size_t order[30];

	(void)state;
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
		for (uint64_t seed = 1; seed <= 60; seed++) {
			gsl_rng *r = fb_rng_stream(seed, "graph");
			fb_error err = { "" };
			fb_graph *g = fb_sim_dag_ordered(FB_DAG_ER, cases[t][0], cases[t][1], r,
			                                 order, &err);

			assert_non_null(g);
			assert_true(fb_graph_is_dag(g));
			assert_int_equal(fb_graph_n_directed(g), cases[t][1]);
			assert_false(g->weighted);
			assert_topological(g, order);
			fb_graph_free(g);
			gsl_rng_free(r);
		}
	}
}

/* ER variant A picks pairs uniformly: each of the 6 pairs of 4 nodes is used about s/6 of
 * the time (a sampler that favours some pairs fails this). */
static void test_er_exact_uniform_pairs(void **state)
{
	size_t hits[4][4] = { { 0 } }, runs = 3000;
	gsl_rng *r = fb_rng_stream(3, "graph");

	(void)state;
	for (size_t t = 0; t < runs; t++) {
		fb_graph *g = fb_sim_dag(FB_DAG_ER, 4, 2, r, NULL);

		for (size_t i = 0; i < 4; i++) {
			for (size_t j = i + 1; j < 4; j++)
				hits[i][j] += fb_graph_adjacent(g, i, j);
		}
		fb_graph_free(g);
	}
	/* expected 3000 * 2 / 6 = 1000 each, standard deviation about 26 */
	for (size_t i = 0; i < 4; i++) {
		for (size_t j = i + 1; j < 4; j++)
			assert_in_range(hits[i][j], 900, 1100);
	}
	gsl_rng_free(r);
}

/* ER variant B: the mean edge count is near s (fails if p were off by a factor of 2). */
static void test_er_bernoulli_mean(void **state)
{
	size_t total = 0, runs = 300, order[20];

	(void)state;
	for (uint64_t seed = 1; seed <= runs; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");
		fb_graph *g = fb_sim_dag_ordered(FB_DAG_ER_BERNOULLI, 20, 20, r, order, NULL);

		assert_non_null(g);
		assert_true(fb_graph_is_dag(g));
		assert_topological(g, order);
		total += fb_graph_n_directed(g);
		fb_graph_free(g);
		gsl_rng_free(r);
	}
	/* each count ~ Binomial(190, 2/19): mean 20, sd of the mean over 300 runs about 0.25 */
	assert_in_range(total, 18 * runs, 22 * runs);
}

/* Check one Barabási–Albert graph: out-degree min(m, t) and arcs towards older vertices. */
static void check_scale_free(const fb_graph *g, const size_t *order, size_t m)
{
	size_t d = g->d, expected = 0, *added = calloc(d, sizeof *added);

	for (size_t t = 0; t < d; t++) {
		added[order[d - 1 - t]] = t; /* step at which each vertex was added */
		expected += t < m ? t : m;
	}
	assert_int_equal(fb_graph_n_directed(g), expected);
	for (size_t v = 0; v < d; v++) {
		assert_int_equal(out_degree(g, v), added[v] < m ? added[v] : m);
		for (size_t u = 0; u < d; u++) {
			if (fb_graph_has_arc(g, v, u))
				assert_true(added[u] < added[v]);
		}
	}
	free(added);
}

/* Scale-free: edge count sum of min(m, t), edges new -> old, m = round(s/d) ties to even. */
static void test_scale_free(void **state)
{
	/* d, s, m */
	static const size_t cases[][3] = { { 20, 40, 2 }, { 15, 45, 3 }, { 10, 15, 2 },
	                                   { 10, 25, 2 }, { 10, 0, 1 }, { 10, 36, 4 },
	                                   { 4, 6, 2 } };
	size_t order[20];

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		for (uint64_t seed = 1; seed <= 40; seed++) {
			gsl_rng *r = fb_rng_stream(seed, "graph");
			fb_graph *g = fb_sim_dag_ordered(FB_DAG_SF, cases[c][0], cases[c][1], r,
			                                 order, NULL);

			assert_non_null(g);
			assert_true(fb_graph_is_dag(g));
			check_scale_free(g, order, cases[c][2]);
			fb_graph_free(g);
			gsl_rng_free(r);
		}
	}
}

/* Scale-free attachment is preferential: with m = 1 on 30 vertices the first vertex expects
 * in-degree prod_{t=1..29} 2t/(2t-1) - 1 = 8.59, against 3.96 if targets were uniform. */
static void test_scale_free_hubs(void **state)
{
	size_t hits = 0, runs = 200, order[30];

	(void)state;
	for (uint64_t seed = 1; seed <= runs; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");
		fb_graph *g = fb_sim_dag_ordered(FB_DAG_SF, 30, 30, r, order, NULL);

		for (size_t u = 0; u < 30; u++)
			hits += fb_graph_has_arc(g, u, order[29]);
		fb_graph_free(g);
		gsl_rng_free(r);
	}
	assert_in_range(hits, 7 * runs, 10 * runs);
}

/* Weights: magnitudes within [wmin, wmax], both signs, zero where there is no arc. */
static void test_weights(void **state)
{
	size_t pos = 0, neg = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 30; seed++) {
		fb_sim_options opt;
		fb_dataset *ds;
		fb_graph *g;

		fb_sim_options_init(&opt);
		opt.seed = seed;
		opt.n = 5;
		opt.d = 12;
		opt.edges = 20;
		opt.wmin = 0.7;
		opt.wmax = 1.3;
		assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
		assert_true(g->weighted);
		for (size_t i = 0; i < 144; i++) {
			if (!g->mark[i] || i % 13 == 0) {
				assert_true(g->w[i] == 0.0);
				continue;
			}
			assert_true(fabs(g->w[i]) >= 0.7 && fabs(g->w[i]) <= 1.3);
			pos += g->w[i] > 0;
			neg += g->w[i] < 0;
		}
		fb_dataset_free(ds);
		fb_graph_free(g);
	}
	assert_int_equal(pos + neg, 600);
	assert_in_range(pos, 240, 360);
}

/* The reference run d=10 edges=10 n=300 seed=7: exact arcs, weights and data sum.  Any
 * change in a generator, a stream or the order of draws changes these. */
static void test_fixed_seed_checksum(void **state)
{
	static const struct {
		size_t i, j; /* the arc i -> j (0-based) */
		double w;    /* its weight */
	} arcs[] = {
		{ 0, 5, -0.83803387638181448 }, { 2, 8, 1.9130019313888624 },
		{ 3, 8, 0.84590725542511791 },  { 4, 6, -1.9818107368191704 },
		{ 6, 0, -1.2319701235974208 },  { 7, 0, 1.2463331597391516 },
		{ 7, 1, -1.4334356905892491 },  { 7, 9, -1.5746654613176361 },
		{ 8, 0, 1.9244660988915712 },   { 8, 7, -1.6192189395660535 },
	};
	static const double want_sum = 31.451055953965955;
	fb_sim_options opt;
	fb_dataset *ds;
	fb_graph *g;
	double sum = 0.0;
	size_t found = 0;

	(void)state;
	fb_sim_options_init(&opt);
	opt.seed = 7;
	assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
	for (size_t i = 0; i < ds->n * ds->d; i++)
		sum += ds->x[i];
	for (size_t i = 0; i < 10; i++) {
		for (size_t j = 0; j < 10; j++) {
			if (!fb_graph_has_arc(g, i, j))
				continue;
			if (PRINT_REFERENCE)
				printf("{ %zu, %zu }, w=%.17g\n", i, j, g->w[i * 10 + j]);
			assert_true(found < 10);
			assert_int_equal(arcs[found].i, i);
			assert_int_equal(arcs[found].j, j);
			assert_true(g->w[i * 10 + j] == arcs[found].w);
			found++;
		}
	}
	if (PRINT_REFERENCE)
		printf("sum=%.17g\n", sum);
	assert_int_equal(found, 10);
	assert_true(sum == want_sum);
	fb_dataset_free(ds);
	fb_graph_free(g);
}

/* Same options twice: bit-identical data and graph. */
static void test_same_seed_identical(void **state)
{
	fb_sim_options opt;
	fb_dataset *a, *b;
	fb_graph *ga, *gb;

	(void)state;
	fb_sim_options_init(&opt);
	opt.dag = FB_DAG_SF;
	opt.d = 15;
	opt.edges = 30;
	opt.noise = FB_NOISE_GUMBEL;
	opt.seed = 12345;
	assert_int_equal(fb_sim_generate(&opt, &a, &ga, NULL), FB_OK);
	assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
	assert_memory_equal(a->x, b->x, a->n * a->d * sizeof(double));
	assert_memory_equal(ga->mark, gb->mark, 15 * 15);
	assert_memory_equal(ga->w, gb->w, 15 * 15 * sizeof(double));
	opt.seed = 12346;
	fb_dataset_free(b);
	fb_graph_free(gb);
	assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
	assert_memory_not_equal(a->x, b->x, a->n * a->d * sizeof(double));
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_graph_free(ga);
	fb_graph_free(gb);
}

/* Changing only n keeps the graph and the weights, and the first rows (separate streams,
 * noise drawn row by row). */
static void test_n_changes_only_rows(void **state)
{
	fb_sim_options opt;
	fb_dataset *a, *b;
	fb_graph *ga, *gb;

	(void)state;
	fb_sim_options_init(&opt);
	opt.dag = FB_DAG_ER_BERNOULLI;
	opt.d = 12;
	opt.edges = 18;
	opt.seed = 99;
	assert_int_equal(fb_sim_generate(&opt, &a, &ga, NULL), FB_OK);
	opt.n = 40;
	assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
	assert_int_equal(b->n, 40);
	assert_memory_equal(ga->mark, gb->mark, 12 * 12);
	assert_memory_equal(ga->w, gb->w, 12 * 12 * sizeof(double));
	assert_memory_equal(a->x, b->x, 40 * 12 * sizeof(double));
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_graph_free(ga);
	fb_graph_free(gb);
}

/* Sample mean and covariance of columns p and q of ds. */
static void moments(const fb_dataset *ds, size_t p, size_t q, double *mp, double *mq,
                    double *cov)
{
	double sp = 0.0, sq = 0.0, spq = 0.0;

	for (size_t i = 0; i < ds->n; i++) {
		sp += fb_dataset_get(ds, i, p);
		sq += fb_dataset_get(ds, i, q);
	}
	*mp = sp / (double)ds->n;
	*mq = sq / (double)ds->n;
	for (size_t i = 0; i < ds->n; i++)
		spq += (fb_dataset_get(ds, i, p) - *mp) * (fb_dataset_get(ds, i, q) - *mq);
	*cov = spq / (double)(ds->n - 1);
}

/* x_child = w x_parent + z with standard Gaussian noise: Var(parent) = 1,
 * Cov(parent, child) = w, Var(child) = w^2 + 1, both means 0. */
static void test_two_variable_covariance(void **state)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		fb_sim_options opt;
		fb_dataset *ds;
		fb_graph *g;
		double m0, m1, v_par, v_child, c, w;
		size_t par, child;

		(void)state;
		fb_sim_options_init(&opt);
		opt.d = 2;
		opt.edges = 1;
		opt.n = 100000;
		opt.seed = seed;
		assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
		par = fb_graph_has_arc(g, 0, 1) ? 0 : 1;
		child = 1 - par;
		assert_true(fb_graph_has_arc(g, par, child));
		w = g->w[par * 2 + child];
		moments(ds, par, par, &m0, &m0, &v_par);
		moments(ds, child, child, &m1, &m1, &v_child);
		moments(ds, par, child, &m0, &m1, &c);
		assert_true(fabs(m0) < 0.02 && fabs(m1) < 0.05);
		assert_true(fabs(v_par - 1.0) < 0.03);
		assert_true(fabs(c - w) < 0.05);
		assert_true(fabs(v_child - (w * w + 1.0)) < 0.05 * (w * w + 1.0));
		fb_dataset_free(ds);
		fb_graph_free(g);
	}
}

/* Each noise family has its documented mean and variance at scale 2 (a root variable). */
static void test_noise_families(void **state)
{
	static const double euler = 0.57721566490153286;
	static const struct {
		enum fb_noise noise; /* the family */
		double mean;         /* its mean at scale 2 */
		double var;          /* its variance at scale 2 */
	} cases[] = {
		{ FB_NOISE_GAUSS, 0.0, 4.0 },
		{ FB_NOISE_EXP, 2.0, 4.0 },
		{ FB_NOISE_GUMBEL, 2.0 * euler, 4.0 * M_PI * M_PI / 6.0 },
		{ FB_NOISE_UNIFORM, 0.0, 4.0 / 3.0 },
	};

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fb_sim_options opt;
		fb_dataset *ds;
		fb_graph *g;
		double m, v;

		fb_sim_options_init(&opt);
		opt.d = 2;
		opt.edges = 0;
		opt.n = 100000;
		opt.noise = cases[c].noise;
		opt.noise_scale = 2.0;
		assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
		for (size_t j = 0; j < 2; j++) {
			moments(ds, j, j, &m, &m, &v);
			assert_true(fabs(m - cases[c].mean) < 0.03);
			assert_true(fabs(v - cases[c].var) < 0.04 * cases[c].var);
		}
		if (cases[c].noise == FB_NOISE_UNIFORM) {
			for (size_t i = 0; i < ds->n * ds->d; i++)
				assert_true(fabs(ds->x[i]) <= 2.0);
		}
		fb_dataset_free(ds);
		fb_graph_free(g);
	}
}

/* Names X1..Xd on the dataset and on the truth. */
static void test_names(void **state)
{
	fb_sim_options opt;
	fb_dataset *ds;
	fb_graph *g;

	(void)state;
	fb_sim_options_init(&opt);
	opt.d = 11;
	assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
	assert_string_equal(ds->vars[0].name, "X1");
	assert_string_equal(ds->vars[10].name, "X11");
	assert_string_equal(g->names[10], "X11");
	assert_int_equal(ds->n, 300);
	assert_int_equal(fb_dataset_n_discrete(ds), 0);
	fb_dataset_free(ds);
	fb_graph_free(g);
}

/* One refused request: FB_ERR, the exact sentence, and NULL outputs. */
static void expect_refusal(const fb_sim_options *opt, const char *msg)
{
	fb_dataset *ds = (fb_dataset *)1;
	fb_graph *g = (fb_graph *)1;
	fb_error err = { "" };

	assert_int_equal(fb_sim_generate(opt, &ds, &g, &err), FB_ERR);
	assert_string_equal(err.msg, msg);
	assert_null(ds);
	assert_null(g);
}

/* Impossible requests are refused with one clear sentence. */
static void test_refusals(void **state)
{
	fb_sim_options opt;
	fb_error err = { "" };
	gsl_rng *r = fb_rng_stream(1, "graph");

	(void)state;
	fb_sim_options_init(&opt);
	opt.d = 1;
	expect_refusal(&opt, "cannot draw a DAG on d=1 variables: it needs at least 2");
	opt.d = 5;
	opt.edges = 11;
	expect_refusal(&opt, "cannot draw 11 edges on d=5 variables: a DAG on them has at "
	               "most d(d-1)/2 = 10");
	opt.dag = FB_DAG_SF;
	expect_refusal(&opt, "cannot draw 11 edges on d=5 variables: a DAG on them has at "
	               "most d(d-1)/2 = 10");
	fb_sim_options_init(&opt);
	opt.n = 0;
	expect_refusal(&opt, "cannot simulate n=0 rows: n must be at least 1");
	opt.n = 10;
	opt.noise_scale = 0.0;
	expect_refusal(&opt, "cannot use noise scale 0: it must be positive and finite");
	opt.noise_scale = 1.0;
	opt.wmin = 3.0;
	expect_refusal(&opt, "cannot draw weight magnitudes in [3, 2]: they need "
	               "0 <= wmin <= wmax");
	assert_null(fb_sim_dag(FB_DAG_ER_BERNOULLI, 0, 0, r, &err));
	assert_string_equal(err.msg, "cannot draw a DAG on d=0 variables: it needs at least 2");
	gsl_rng_free(r);
}

/* Run the simulator tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_er_exact),
		cmocka_unit_test(test_er_exact_uniform_pairs),
		cmocka_unit_test(test_er_bernoulli_mean),
		cmocka_unit_test(test_scale_free),
		cmocka_unit_test(test_scale_free_hubs),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_fixed_seed_checksum),
		cmocka_unit_test(test_same_seed_identical),
		cmocka_unit_test(test_n_changes_only_rows),
		cmocka_unit_test(test_two_variable_covariance),
		cmocka_unit_test(test_noise_families),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_refusals),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
