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

#include <gsl/gsl_randist.h>

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

/* Scale-free, gCastle flavour: m(d - m) edges, as networkx's barabasi_albert_graph makes
 * them (checked there for (d, m) = (10, 2): 16, (20, 2): 36, (15, 3): 36, (10, 1): 9,
 * (7, 3): 12, (3, 1): 2, (40, 4): 144), acyclic along the order it reports. */
static void test_scale_free_gcastle(void **state)
{
	/* d, s, m(d - m) */
	static const size_t cases[][3] = { { 10, 20, 16 }, { 20, 40, 36 }, { 15, 45, 36 },
	                                   { 10, 10, 9 },  { 7, 21, 12 },  { 3, 3, 2 },
	                                   { 40, 160, 144 }, { 10, 25, 16 } };
	size_t order[40];

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		for (uint64_t seed = 1; seed <= 40; seed++) {
			gsl_rng *r = fb_rng_stream(seed, "graph");
			fb_graph *g = fb_sim_dag_ordered(FB_DAG_SF_GCASTLE, cases[c][0],
			                                 cases[c][1], r, order, NULL);

			assert_non_null(g);
			assert_true(fb_graph_is_dag(g));
			assert_int_equal(fb_graph_n_directed(g), cases[c][2]);
			assert_topological(g, order);
			fb_graph_free(g);
			gsl_rng_free(r);
		}
	}
}

/* Degree profile of one flavour over seeds 1..runs at d = 30, m = 1: the mean largest degree
 * (in + out), the share of the hubs' edges that leave them, and whether some hub sends more
 * than m = 1 edge. */
static void degree_profile(enum fb_dag_type type, size_t runs, double *max_deg,
                           double *out_share, bool *hub_sends_many)
{
	size_t total = 0, out = 0;

	*hub_sends_many = false;
	for (uint64_t seed = 1; seed <= runs; seed++) {
		gsl_rng *r = fb_rng_stream(seed, "graph");
		fb_graph *g = fb_sim_dag(type, 30, 30, r, NULL);
		size_t hub = 0, hub_deg = 0, parents[30];

		for (size_t v = 0; v < 30; v++) {
			size_t deg = out_degree(g, v) + fb_graph_parents(g, v, parents);

			if (deg > hub_deg) {
				hub = v;
				hub_deg = deg;
			}
		}
		total += hub_deg;
		out += out_degree(g, hub);
		*hub_sends_many |= out_degree(g, hub) > 1;
		fb_graph_free(g);
		gsl_rng_free(r);
	}
	*max_deg = (double)total / (double)runs;
	*out_share = (double)out / (double)total;
}

/* The flavours' degree profiles: with m = 1 on 30 vertices networkx's largest degree averages
 * 9.84 (sd 2.82 over 20000 graphs; 5.61 with uniform attachment), and a gCastle hub's edges
 * split about evenly between in and out; a NOTEARS hub sends at most m = 1 edge. */
static void test_scale_free_flavour_profiles(void **state)
{
	double max_deg, out_share;
	bool many;

	(void)state;
	degree_profile(FB_DAG_SF_GCASTLE, 300, &max_deg, &out_share, &many);
	assert_true(max_deg > 9.2 && max_deg < 10.5);
	assert_true(out_share > 0.42 && out_share < 0.58);
	assert_true(many);
	degree_profile(FB_DAG_SF, 300, &max_deg, &out_share, &many);
	assert_true(out_share < 0.2);
	assert_false(many);
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

/* Same options twice: bit-identical data and graph, for both scale-free flavours; the two
 * flavours draw different graphs from the same seed. */
static void test_same_seed_identical(void **state)
{
	static const enum fb_dag_type types[2] = { FB_DAG_SF, FB_DAG_SF_GCASTLE };
	fb_sim_options opt;
	fb_dataset *a, *b;
	fb_graph *ga, *gb;

	(void)state;
	fb_sim_options_init(&opt);
	opt.d = 15;
	opt.edges = 30;
	opt.noise = FB_NOISE_GUMBEL;
	for (int t = 0; t < 2; t++) {
		opt.dag = types[t];
		opt.seed = 12345;
		assert_int_equal(fb_sim_generate(&opt, &a, &ga, NULL), FB_OK);
		assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
		assert_memory_equal(a->x, b->x, a->n * a->d * sizeof(double));
		assert_memory_equal(ga->mark, gb->mark, 15 * 15);
		assert_memory_equal(ga->w, gb->w, 15 * 15 * sizeof(double));
		fb_dataset_free(b);
		fb_graph_free(gb);
		opt.dag = types[1 - t];
		assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
		assert_memory_not_equal(ga->mark, gb->mark, 15 * 15);
		opt.dag = types[t];
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

/* The nonlinear mechanisms, each named for the messages. */
static const enum fb_sem nonlinear_sems[] = { FB_SEM_MLP, FB_SEM_MIM, FB_SEM_GP,
                                              FB_SEM_GP_ADD };

/* Each nonlinear SEM: same seed, same bits; another seed, other data; the graph does not
 * depend on the mechanism and its truth is binary. */
static void test_nonlinear_same_seed(void **state)
{
	(void)state;
	for (size_t c = 0; c < 4; c++) {
		fb_sim_options opt;
		fb_dataset *a, *b, *lin;
		fb_graph *ga, *gb, *glin;

		fb_sim_options_init(&opt);
		opt.d = 8;
		opt.edges = 12;
		opt.n = 60;
		opt.seed = 31;
		assert_int_equal(fb_sim_generate(&opt, &lin, &glin, NULL), FB_OK);
		opt.sem = nonlinear_sems[c];
		assert_int_equal(fb_sim_generate(&opt, &a, &ga, NULL), FB_OK);
		assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
		assert_memory_equal(a->x, b->x, 60 * 8 * sizeof(double));
		assert_memory_equal(ga->mark, glin->mark, 8 * 8);
		assert_false(ga->weighted);
		assert_memory_not_equal(a->x, lin->x, 60 * 8 * sizeof(double));
		fb_dataset_free(b);
		fb_graph_free(gb);
		opt.seed = 32;
		assert_int_equal(fb_sim_generate(&opt, &b, &gb, NULL), FB_OK);
		assert_memory_not_equal(a->x, b->x, 60 * 8 * sizeof(double));
		fb_dataset_free(a);
		fb_dataset_free(b);
		fb_dataset_free(lin);
		fb_graph_free(ga);
		fb_graph_free(gb);
		fb_graph_free(glin);
	}
}

/* One weight ±U[0.5, 2] drawn as the simulator documents it: magnitude, then sign. */
static double test_weight(gsl_rng *r)
{
	double w = gsl_ran_flat(r, 0.5, 2.0);

	return gsl_rng_uniform(r) < 0.5 ? -w : w;
}

/* f of the mlp (mim false) or mim (mim true) mechanism on row of a variable with parents
 * pa[0..np-1], its parameters drawn afresh from r in the documented order. */
static double test_f(gsl_rng *r, bool mim, const double *row, const size_t *pa, size_t np)
{
	double u[8][100], v[100], w[3][8], t[3] = { 0.0, 0.0, 0.0 }, f = 0.0;

	if (mim) {
		for (size_t k = 0; k < 3; k++) {
			for (size_t q = 0; q < np; q++)
				w[k][q] = test_weight(r);
		}
		for (size_t k = 0; k < 3; k++) {
			for (size_t q = 0; q < np; q++)
				t[k] += w[k][q] * row[pa[q]];
		}
		return tanh(t[0]) + cos(t[1]) + sin(t[2]);
	}
	for (size_t q = 0; q < np; q++) {
		for (size_t h = 0; h < 100; h++)
			u[q][h] = test_weight(r);
	}
	for (size_t h = 0; h < 100; h++)
		v[h] = test_weight(r);
	for (size_t h = 0; h < 100; h++) {
		double z = 0.0;

		for (size_t q = 0; q < np; q++)
			z += row[pa[q]] * u[q][h];
		f += v[h] * 0.5 * (1.0 + tanh(0.5 * z)); /* the sigmoid, written another way */
	}
	return f;
}

/* mlp and mim recomputed from scratch: the graph and its order from stream "graph", the
 * noise from "noise", the parameters from "mechanism" variable by variable; every root equals
 * its noise bit for bit and every child's residual x_j - f_j equals its noise draw. */
static void test_mlp_mim_recomputed(void **state)
{
	(void)state;
	for (int mim = 0; mim <= 1; mim++) {
		fb_sim_options opt;
		fb_dataset *ds;
		fb_graph *g, *g2;
		size_t order[7], pa[7], n = 25, d = 7, roots = 0, children = 0;
		double z[25 * 7];
		gsl_rng *r;

		fb_sim_options_init(&opt);
		opt.d = d;
		opt.edges = 10;
		opt.n = n;
		opt.seed = 5;
		opt.noise_scale = 0.7;
		opt.sem = mim ? FB_SEM_MIM : FB_SEM_MLP;
		assert_int_equal(fb_sim_generate(&opt, &ds, &g, NULL), FB_OK);
		r = fb_rng_stream(5, "graph");
		g2 = fb_sim_dag_ordered(FB_DAG_ER, d, 10, r, order, NULL);
		gsl_rng_free(r);
		r = fb_rng_stream(5, "noise");
		for (size_t i = 0; i < n * d; i++)
			z[i] = gsl_ran_gaussian(r, 0.7);
		gsl_rng_free(r);
		r = fb_rng_stream(5, "mechanism");
		for (size_t p = 0; p < d; p++) {
			size_t j = order[p], np = 0;
			double f[25];

			for (size_t i = 0; i < d; i++) {
				if (fb_graph_has_arc(g2, i, j))
					pa[np++] = i;
			}
			assert_true(np <= 7);
			if (np == 0) {
				roots++;
				for (size_t a = 0; a < n; a++)
					assert_true(ds->x[a * d + j] == z[a * d + j]);
				continue;
			}
			children++;
			/* the parameters are drawn once per variable: every row but the last redraws
			 * them from a copy of the stream, the last from the stream itself */
			for (size_t a = 0; a < n; a++) {
				gsl_rng *copy = a + 1 < n ? gsl_rng_clone(r) : r;

				f[a] = test_f(copy, mim, ds->x + a * d, pa, np);
				if (copy != r)
					gsl_rng_free(copy);
			}
			for (size_t a = 0; a < n; a++)
				assert_true(fabs(ds->x[a * d + j] - f[a] - z[a * d + j]) <=
				            1e-12 * (1.0 + fabs(f[a])));
		}
		assert_true(roots > 0 && children > 0);
		gsl_rng_free(r);
		fb_dataset_free(ds);
		fb_graph_free(g);
		fb_graph_free(g2);
	}
}

/* The RBF kernel with length-scale 1 between rows a and b of x (width p), computed
 * directly; with additive true, the sum of the one-dimensional kernels per column. */
static double test_kernel(const double *x, size_t p, size_t a, size_t b, bool additive)
{
	double d2 = 0.0, sum = 0.0;

	for (size_t q = 0; q < p; q++) {
		double t = x[a * p + q] - x[b * p + q];

		d2 += t * t;
		sum += exp(-0.5 * t * t);
	}
	return additive ? sum : exp(-0.5 * d2);
}

/* Add one draw's values at the first 5 rows to the running moments (over draws draws). */
static void moments_add(const double *f, size_t draws, double m1[5], double m2[5][5])
{
	for (size_t a = 0; a < 5; a++) {
		m1[a] += f[a] / (double)draws;
		for (size_t b = 0; b < 5; b++)
			m2[a][b] += f[a] * f[b] / (double)draws;
	}
}

/* At the first 5 rows of x (p parents): E[f] = 0 to 0.1 and E[f_a f_b] = K_ab to 0.15. */
static void moments_check(const double m1[5], const double m2[5][5], const double *x,
                          size_t p, bool additive)
{
	for (size_t a = 0; a < 5; a++) {
		assert_true(fabs(m1[a]) < 0.1);
		for (size_t b = 0; b < 5; b++)
			assert_true(fabs(m2[a][b] - test_kernel(x, p, a, b, additive)) < 0.15);
	}
}

/* gp and gp-add: over 6000 draws at 5 fixed points in 2-D, E[f] = 0 and E[f_a f_b] = K_ab
 * (the RBF kernel for gp, the sum of the per-parent kernels for gp-add).  An entry of the
 * sample second moment has standard deviation at most sqrt(2 * 4 / 6000) = 0.037 (|K| <= 2),
 * so 0.15 is over four of them.  Off the diagonal the gp kernel ranges over 0.012 .. 0.84 and
 * gp-add's over 0.22 .. 1.84; they differ by more than 0.35 on nine of the ten pairs. */
static void test_gp_covariance(void **state)
{
	static const double x[5 * 2] = { 0.0, 0.0, 0.5, -0.3, 1.2, 0.4, -0.8, 1.5, 2.0, 2.2 };
	static const size_t pa[2] = { 0, 1 };
	enum { DRAWS = 6000 };

	(void)state;
	for (int additive = 0; additive <= 1; additive++) {
		gsl_rng *r = fb_rng_stream(11, "test-gp");
		double m2[5][5] = { { 0 } }, m1[5] = { 0 }, f[5];

		for (size_t t = 0; t < DRAWS; t++) {
			assert_int_equal(fb_sim_mechanism(additive ? FB_SEM_GP_ADD : FB_SEM_GP, x, 5,
			                                  2, pa, 2, 0.5, 2.0, r, f, NULL), FB_OK);
			moments_add(f, DRAWS, m1, m2);
		}
		moments_check(m1, m2, x, 2, additive);
		gsl_rng_free(r);
	}
}

/* Rows of the low-rank gp tests: 5 fixed points, then a grid over [-2.5, 2.5]. */
#define LOWRANK_N 480

/* How many normals the gp draw over the rows of x (p parents) took from its stream: the
 * position of the stream's next normal in a fresh copy of it (0 when not found). */
static size_t gp_normals_used(const double *x, size_t p)
{
	static const size_t pa[2] = { 0, 1 };
	gsl_rng *r = fb_rng_stream(4, "test-gp-rank"), *fresh = fb_rng_stream(4, "test-gp-rank");
	double f[LOWRANK_N], next;
	size_t used = 0;

	assert_int_equal(fb_sim_mechanism(FB_SEM_GP, x, LOWRANK_N, p, pa, p, 0.5, 2.0, r, f,
	                                  NULL), FB_OK);
	next = gsl_ran_gaussian(r, 1.0);
	for (size_t k = 1; k <= LOWRANK_N + 1 && used == 0; k++)
		if (gsl_ran_gaussian(fresh, 1.0) == next)
			used = k - 1;
	gsl_rng_free(r);
	gsl_rng_free(fresh);
	return used;
}

/* The low-rank gp draw: with one parent over LOWRANK_N rows its kernel has rank below n/16,
 * so a draw takes fewer normals than n; over 2000 draws E[f] = 0 and E[f_a f_b] = K_ab at
 * the 5 fixed points (the same bounds as test_gp_covariance, |K| <= 1 here).  Two parents
 * spread over [-10, 10]^2 need more than n/16 rows: the dense draw, n normals. */
static void test_gp_lowrank(void **state)
{
	static const double fixed[5] = { 0.0, 0.5, 1.2, -0.8, 2.0 };
	static const size_t pa[1] = { 0 };
	enum { DRAWS = 2000 };
	double x[LOWRANK_N], x2[2 * LOWRANK_N], f[LOWRANK_N], m2[5][5] = { { 0 } }, m1[5] = { 0 };
	gsl_rng *r = fb_rng_stream(12, "test-gp-lowrank");
	size_t used;

	(void)state;
	for (size_t a = 0; a < LOWRANK_N; a++) {
		x[a] = a < 5 ? fixed[a] : -2.5 + 5.0 * (double)(a - 5) / (LOWRANK_N - 6);
		x2[2 * a] = -10.0 + 20.0 * (double)(a % 22) / 21.0;
		x2[2 * a + 1] = -10.0 + 20.0 * (double)(a / 22) / 21.0;
	}
	used = gp_normals_used(x, 1);
	assert_true(used > 0 && used <= LOWRANK_N / 16);
	assert_int_equal(gp_normals_used(x2, 2), LOWRANK_N);
	for (size_t t = 0; t < DRAWS; t++) {
		assert_int_equal(fb_sim_mechanism(FB_SEM_GP, x, LOWRANK_N, 1, pa, 1, 0.5, 2.0, r,
		                                  f, NULL), FB_OK);
		moments_add(f, DRAWS, m1, m2);
	}
	moments_check(m1, m2, x, 1, false);
	gsl_rng_free(r);
}

/* gp-add is additive: on a 3 x 3 grid of two parents, f(x1, x2) - f(x1', x2) is the same
 * for every x2 (to the jitter's 1e-5 of noise between repeated inputs); the joint gp on the
 * same grid is not. */
static void test_gp_add_additive(void **state)
{
	static const double v1[3] = { -1.0, 0.3, 1.4 }, v2[3] = { -0.6, 0.8, 2.0 };
	static const size_t pa[2] = { 0, 1 };
	double x[9 * 2], f[9];
	double spread[2] = { 0.0, 0.0 };

	(void)state;
	for (size_t a = 0; a < 3; a++) {
		for (size_t b = 0; b < 3; b++) {
			x[(3 * b + a) * 2] = v1[a];
			x[(3 * b + a) * 2 + 1] = v2[b];
		}
	}
	for (int joint = 0; joint <= 1; joint++) {
		gsl_rng *r = fb_rng_stream(3, "test-gp-add");

		assert_int_equal(fb_sim_mechanism(joint ? FB_SEM_GP : FB_SEM_GP_ADD, x, 9, 2, pa,
		                                  2, 0.5, 2.0, r, f, NULL), FB_OK);
		for (size_t b = 1; b < 3; b++) {
			for (size_t a = 1; a < 3; a++) {
				double d0 = f[a] - f[0], db = f[3 * b + a] - f[3 * b];

				spread[joint] = fmax(spread[joint], fabs(db - d0));
			}
		}
		gsl_rng_free(r);
	}
	assert_true(spread[0] < 1e-3);
	assert_true(spread[1] > 1e-2);
}

/* A gp kernel that cannot be addressed is refused before anything is drawn, with its size;
 * mlp has no such limit. */
static void test_gp_too_large(void **state)
{
	fb_error err = { "" };

	(void)state;
	assert_int_equal(fb_sim_mechanism_check(FB_SEM_GP, 3000000000u, &err), FB_ERR);
	assert_string_equal(err.msg, "cannot draw a gp mechanism over n=3000000000 rows: out "
	                    "of memory (its n x n kernel takes 7.2e+10 GB)");
	assert_int_equal(fb_sim_mechanism_check(FB_SEM_GP_ADD, 3000000000u, NULL), FB_ERR);
	assert_int_equal(fb_sim_mechanism_check(FB_SEM_MLP, 3000000000u, NULL), FB_OK);
	assert_int_equal(fb_sim_mechanism_check(FB_SEM_GP, 6000, NULL), FB_OK);
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
/* clients=K hetero=no: the bytes of the same gen without clients, cut into even blocks. */
static void test_clients_iid(void **state)
{
	fb_sim_options opt;
	fb_dataset *a, *b;
	fb_graph *ga, *gb;
	fb_sim_client *cl;

	(void)state;
	fb_sim_options_init(&opt);
	opt.n = 23;
	opt.sem = FB_SEM_MIM;
	opt.seed = 4;
	assert_int_equal(fb_sim_generate(&opt, &a, &ga, NULL), FB_OK);
	opt.clients = 5;
	assert_int_equal(fb_sim_generate_clients(&opt, &b, &gb, &cl, NULL), FB_OK);
	assert_memory_equal(a->x, b->x, a->n * a->d * sizeof(double));
	assert_memory_equal(ga->mark, gb->mark, ga->d * ga->d);
	for (size_t c = 0; c < 5; c++) {
		assert_int_equal(cl[c].rows, c < 3 ? 5 : 4);
		assert_int_equal(cl[c].sem, FB_SEM_MIM);
		assert_true(cl[c].scale == 1.0);
	}
	free(cl);
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_graph_free(ga);
	fb_graph_free(gb);
}

/* Sample standard deviation of column j over rows [first, first + n). */
static double block_sd(const fb_dataset *ds, size_t first, size_t n, size_t j)
{
	double m = 0.0, v = 0.0;

	for (size_t i = first; i < first + n; i++)
		m += ds->x[i * ds->d + j] / (double)n;
	for (size_t i = first; i < first + n; i++)
		v += pow(ds->x[i * ds->d + j] - m, 2) / (double)(n - 1);
	return sqrt(v);
}

/* hetero=yes: one DAG (that of stream "graph"), unweighted; families and scales drawn per
 * client in the proportions of §1.6; roots are the client's own noise, of its own scale;
 * same seed, same bytes; a client's draws do not depend on how many clients follow. */
static void test_clients_hetero(void **state)
{
	fb_sim_options opt;
	fb_dataset *a, *b, *plain;
	fb_graph *ga, *gb, *gplain;
	fb_sim_client *cl, *cl2;
	size_t linear = 0, fam[5] = { 0 }, small = 0, first = 0;

	(void)state;
	fb_sim_options_init(&opt);
	opt.d = 6;
	opt.edges = 5;
	opt.n = 40 * 100;
	opt.clients = 40;
	opt.hetero = true;
	opt.seed = 9;
	assert_int_equal(fb_sim_generate_clients(&opt, &a, &ga, &cl, NULL), FB_OK);
	assert_int_equal(fb_sim_generate_clients(&opt, &b, &gb, &cl2, NULL), FB_OK);
	assert_memory_equal(a->x, b->x, a->n * a->d * sizeof(double));
	assert_memory_equal(cl, cl2, 40 * sizeof *cl);
	assert_false(ga->weighted);
	assert_int_equal(fb_sim_generate(&opt, &plain, &gplain, NULL), FB_OK);
	assert_memory_equal(ga->mark, gplain->mark, ga->d * ga->d);
	for (size_t c = 0; c < 40; c++) {
		size_t pa[6];

		fam[cl[c].sem]++;
		linear += cl[c].sem == FB_SEM_LINEAR;
		small += cl[c].scale == 0.8;
		assert_true(cl[c].scale == 0.8 || cl[c].scale == 1.0);
		for (size_t j = 0; j < 6; j++) {
			if (fb_graph_parents(ga, j, pa) == 0)
				assert_true(fabs(block_sd(a, first, 100, j) / cl[c].scale - 1.0) < 0.25);
		}
		first += 100;
	}
	assert_in_range(linear, 12, 28);
	assert_in_range(small, 12, 28);
	for (size_t f = 1; f < 5; f++)
		assert_in_range(fam[f], 1, 14);
	fb_dataset_free(b);
	fb_graph_free(gb);
	free(cl2);
	opt.clients = 20;
	opt.n = 20 * 100;
	assert_int_equal(fb_sim_generate_clients(&opt, &b, &gb, &cl2, NULL), FB_OK);
	assert_memory_equal(cl, cl2, 20 * sizeof *cl);
	assert_memory_equal(a->x, b->x, 20 * 100 * 6 * sizeof(double));
	free(cl);
	free(cl2);
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_dataset_free(plain);
	fb_graph_free(ga);
	fb_graph_free(gb);
	fb_graph_free(gplain);
}

/* A clients= count the rows cannot feed is refused with the reason. */
static void test_clients_refused(void **state)
{
	fb_sim_options opt;
	fb_dataset *a;
	fb_graph *g;
	fb_sim_client *cl;
	fb_error err = { { 0 } };

	(void)state;
	fb_sim_options_init(&opt);
	opt.n = 3;
	opt.clients = 4;
	assert_int_equal(fb_sim_generate_clients(&opt, &a, &g, &cl, &err), FB_ERR);
	assert_null(a);
	assert_null(cl);
	assert_string_equal(err.msg, "cannot cut n=3 rows into clients=4: each client needs at "
	                    "least one row");
}

/* discrete=: the variables the seed picks are cut into equal-frequency levels as they are
 * simulated (300 rows, 3 levels: 100 each), the others stay continuous, and a discrete
 * variable's child moves with its level: the child's means by level spread out. */
static void test_discrete_levels(void **state)
{
	fb_sim_options o;
	fb_dataset *ds = NULL;
	fb_graph *g = NULL;
	fb_error err;
	size_t ndisc = 0, child_seen = 0;

	(void)state;
	fb_sim_options_init(&o);
	o.d = 6;
	o.edges = 8;
	o.discrete = 3;
	o.seed = 4;
	assert_int_equal(fb_sim_generate(&o, &ds, &g, &err), FB_OK);
	for (size_t j = 0; j < 6; j++) {
		size_t count[3] = { 0 };
		double mean[3] = { 0 };

		if (ds->vars[j].kind != FB_DISCRETE)
			continue;
		ndisc++;
		assert_int_equal(ds->vars[j].nlevels, 3);
		for (size_t i = 0; i < 300; i++)
			count[(size_t)ds->x[i * 6 + j]]++;
		assert_true(count[0] == 100 && count[1] == 100 && count[2] == 100);
		for (size_t c = 0; c < 6; c++) {
			if (!fb_graph_has_arc(g, j, c) || ds->vars[c].kind == FB_DISCRETE)
				continue;
			for (size_t i = 0; i < 300; i++)
				mean[(size_t)ds->x[i * 6 + j]] += ds->x[i * 6 + c] / 100;
			assert_true(fmax(fmax(mean[0], mean[1]), mean[2]) -
			            fmin(fmin(mean[0], mean[1]), mean[2]) > 0.3);
			child_seen++;
		}
	}
	assert_int_equal(ndisc, 3);
	assert_true(child_seen > 0);
	fb_dataset_free(ds);
	fb_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_er_exact),
		cmocka_unit_test(test_er_exact_uniform_pairs),
		cmocka_unit_test(test_er_bernoulli_mean),
		cmocka_unit_test(test_scale_free),
		cmocka_unit_test(test_scale_free_hubs),
		cmocka_unit_test(test_scale_free_gcastle),
		cmocka_unit_test(test_scale_free_flavour_profiles),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_fixed_seed_checksum),
		cmocka_unit_test(test_same_seed_identical),
		cmocka_unit_test(test_n_changes_only_rows),
		cmocka_unit_test(test_two_variable_covariance),
		cmocka_unit_test(test_noise_families),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_nonlinear_same_seed),
		cmocka_unit_test(test_mlp_mim_recomputed),
		cmocka_unit_test(test_gp_covariance),
		cmocka_unit_test(test_gp_add_additive),
		cmocka_unit_test(test_gp_lowrank),
		cmocka_unit_test(test_gp_too_large),
		cmocka_unit_test(test_clients_iid),
		cmocka_unit_test(test_clients_hetero),
		cmocka_unit_test(test_clients_refused),
		cmocka_unit_test(test_discrete_levels),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
