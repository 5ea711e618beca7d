/* Unit tests of GES and its local scores: BIC and BDeu against values computed with numpy
 * and scipy (and equal to causal-learn's local_score_BIC and local_score_BDeu) on small
 * hand-made data; the cache; exact agreement with causal-learn's stored GES outputs; the
 * CPDAG of a simulated DAG recovered from many rows; the same bits on any number of threads;
 * the stepper behind "ges". */
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

#include "fedbn/algo.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/ges.h"
#include "fedbn/lscore.h"
#include "fedbn/sim.h"

/* Fail unless a and b agree to a relative 1e-12. */
static void assert_close(double a, double b)
{
	if (!(fabs(a - b) <= 1e-12 * fabs(b)))
		fail_msg("%.17g differs from %.17g", a, b);
}

/* A dataset of n x d values, discrete (level codes) when disc. */
static fb_dataset *make_data(const double *x, size_t n, size_t d, bool disc)
{
	static char l0[] = "0", l1[] = "1", l2[] = "2";
	fb_dataset *ds = fb_dataset_alloc(n, d);
	char *levels[3] = { l0, l1, l2 };

	memcpy(ds->x, x, n * d * sizeof *x);
	for (size_t j = 0; disc && j < d; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, levels, 3, NULL), FB_OK);
	return ds;
}

/* s(i, P) from s, failing on an error. */
static double score_of(fb_lscore *s, size_t i, const size_t *pa, size_t np)
{
	fb_error err = { "" };
	double v = NAN;

	if (fb_lscore_get(s, i, pa, np, &v, &err) != FB_OK)
		fail_msg("%s", err.msg);
	return v;
}

/* Eight rows of four columns; column 3 repeats column 1, whose variance is exactly 4, so
 * that S_PP over {1, 3} is singular and the pseudo-inverse is used. */
static const double bic_x[] = {
	1, 2, 0.5, 2,   2, -2, 1.5, -2,  0.5, 2, -1, 2,  3, -2, 2, -2,
	-1, 2, 0, 2,    2.5, -2, 1, -2,  0, 2, -0.5, 2,  1.5, -2, 3, -2,
};

/* BIC against numpy: -n/2 (1 + log sigma2) - lambda (|P| + 1) log n, covariance divisor n. */
static void test_bic_by_hand(void **state)
{
	fb_lscore_options o = { FB_LSCORE_BIC, 0.5, 1.0, 1.0 };
	fb_dataset *ds = make_data(bic_x, 8, 4, false);
	fb_lscore *s = fb_lscore_alloc(ds, &o, NULL);
	size_t p1[] = { 1 }, p12[] = { 1, 2 }, p01[] = { 0, 1 }, p13[] = { 1, 3 },
	       p21[] = { 2, 1 }, p2[] = { 2 };

	assert_non_null(s);
	assert_close(score_of(s, 0, NULL, 0), -6.814856660481122);
	assert_close(score_of(s, 0, p1, 1), -2.700653226931251);
	assert_close(score_of(s, 0, p12, 2), -3.5452794562495167);
	assert_close(score_of(s, 2, p01, 2), -3.54527945624951);
	assert_close(score_of(s, 0, p13, 2), -3.7403739977711727); /* singular: pinv */
	assert_int_equal(fb_lscore_computed(s), 5);
	assert_close(score_of(s, 0, p21, 2), -3.5452794562495167); /* same set: cached */
	assert_int_equal(fb_lscore_computed(s), 5);
	fb_lscore_free(s);
	o.lambda = 1.0;
	s = fb_lscore_alloc(ds, &o, NULL);
	assert_close(score_of(s, 0, p2, 1), -7.606815435591349);
	fb_lscore_free(s);
	fb_dataset_free(ds);
}

/* Twelve rows of three ternary variables. */
static const double bdeu_x[] = {
	0, 1, 0,  1, 1, 2,  2, 0, 1,  0, 0, 0,  1, 1, 1,  1, 0, 2,
	2, 1, 0,  0, 1, 1,  1, 1, 2,  2, 0, 2,  0, 0, 1,  1, 1, 0,
};

/* BDeu against scipy's gammaln with the formula of lscore.h (r from the observed values,
 * structure prior over d - 1 possible parents). */
static void test_bdeu_by_hand(void **state)
{
	fb_lscore_options o = { FB_LSCORE_BDEU, 0.5, 1.0, 1.0 };
	fb_dataset *ds = make_data(bdeu_x, 12, 3, true);
	fb_lscore *s = fb_lscore_alloc(ds, &o, NULL);
	size_t p0[] = { 0 }, p01[] = { 1, 0 }, p2[] = { 2 };

	assert_non_null(s);
	assert_close(score_of(s, 0, NULL, 0), -17.390123246823855);
	assert_close(score_of(s, 1, p0, 1), -13.577764668965242);
	assert_close(score_of(s, 2, p01, 2), -24.91823177882);
	assert_close(score_of(s, 0, p2, 1), -21.621816376496376);
	fb_lscore_free(s);
	o.ess = 10.0;
	o.structure_prior = 0.5;
	s = fb_lscore_alloc(ds, &o, NULL);
	assert_close(score_of(s, 2, p0, 1), -16.171411635739393);
	fb_lscore_free(s);
	fb_dataset_free(ds);
}

/* Settings a local score refuses, each with a sentence naming it. */
static void test_lscore_refusals(void **state)
{
	fb_lscore_options o = { FB_LSCORE_BDEU, 0.5, 0.0, 1.0 };
	fb_dataset *ds = make_data(bdeu_x, 12, 3, true);
	fb_error err = { "" };

	assert_null(fb_lscore_alloc(ds, &o, &err));
	assert_non_null(strstr(err.msg, "'ess'"));
	o.ess = 1.0;
	o.structure_prior = 2.0; /* not below d - 1 = 2 */
	assert_null(fb_lscore_alloc(ds, &o, &err));
	assert_non_null(strstr(err.msg, "'structure_prior'"));
	ds->n = 1;
	assert_null(fb_lscore_alloc(ds, &o, &err));
	assert_non_null(strstr(err.msg, "2 rows"));
	ds->n = 12;
	fb_dataset_free(ds);
}

/* $top_srcdir/tests/data/ges/name into path. */
static void data_path(char *path, size_t len, const char *name)
{
	const char *top = getenv("top_srcdir");

	snprintf(path, len, "%s/tests/data/ges/%s", top != NULL ? top : ".", name);
}

/* Read a data file of the folder (tab or comma separated), discrete when disc. */
static fb_dataset *read_data(const char *name, bool disc, int header)
{
	fb_csv_options opt;
	fb_error err = { "" };
	fb_dataset *ds;
	char path[4096];

	data_path(path, sizeof path, name);
	fb_csv_options_init(&opt);
	opt.header = header;
	opt.discrete = disc ? FB_DISCRETE_ALL : FB_DISCRETE_NONE;
	ds = fb_csv_read(path, &opt, NULL, &err);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	return ds;
}

/* Fail unless g is the causal-learn matrix in the file name: m[j][i] = 1 and m[i][j] = -1
 * for i -> j, m[i][j] = m[j][i] = -1 for i - j, 0 where there is no edge. */
static void assert_matrix(const fb_graph *g, const char *name)
{
	char path[4096];
	FILE *f;
	size_t d = g->d;

	data_path(path, sizeof path, name);
	f = fopen(path, "r");
	assert_non_null(f);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			double v, want;

			assert_int_equal(fscanf(f, "%lf", &v), 1);
			want = fb_graph_edge(g, i, j) == FB_EDGE_NONE         ? 0.0
			       : fb_graph_edge(g, i, j) == FB_EDGE_BACKWARD ? 1.0
			                                                    : -1.0;
			if (v != want)
				fail_msg("%s: entry (%zu, %zu) is %g, fedbn's is %g", name, i, j, v,
				         want);
		}
	assert_int_equal(fscanf(f, "%*f"), EOF);
	fclose(f);
}

/* Run GES on ds to the end; the CPDAG (caller frees). */
static fb_graph *run_ges(const fb_dataset *ds, enum fb_ges_score kind, double lambda)
{
	fb_ges_options o = { kind, lambda, 1.0, 1.0 };
	fb_error err = { "" };
	fb_ges *g = fb_ges_alloc(ds, &o, &err);
	fb_ges_round r;
	fb_graph *out;

	if (g == NULL)
		fail_msg("%s", err.msg);
	while (!fb_ges_done(g))
		assert_int_equal(fb_ges_step(g, &r, &err), FB_OK);
	out = fb_graph_copy(fb_ges_graph(g));
	fb_ges_free(g);
	return out;
}

/* Fail unless GES on the data file (discrete when disc; header as fb_csv_options) with the
 * score kind and lambda returns the causal-learn matrix in the file want. */
static void check_stored(const char *data, bool disc, int header, enum fb_ges_score kind,
                         double lambda, const char *want)
{
	fb_dataset *ds = read_data(data, disc, header);
	fb_graph *g = run_ges(ds, kind, lambda);

	assert_matrix(g, want);
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* causal-learn's ges(data_linear_10, 'local_score_BIC'): the stored CPDAG exactly (the
 * same with lambda 1, the penalty of the version that stored it). */
static void test_causal_learn_linear10(void **state)
{
	const char *want = "linear_10_ges_local_score_BIC_none_none.txt";

	check_stored("data_linear_10.txt", false, -1, FB_GES_SCORE_BIC, 0.5, want);
	check_stored("data_linear_10.txt", false, -1, FB_GES_SCORE_BIC, 1.0, want);
}

/* causal-learn's ges(data_discrete_10, 'local_score_BDeu'): the stored CPDAG exactly. */
static void test_causal_learn_discrete10(void **state)
{
	check_stored("data_discrete_10.txt", true, -1, FB_GES_SCORE_BDEU, 0.5,
	             "discrete_10_ges_local_score_BDeu_none_none.txt");
}

/* The simulated linear Gaussian data of causal-learn's tests (DAG 0->1, 0->3, 1->2, 1->3,
 * 2->3, 2->4, 3->4; 10,000 rows): with lambda 1 GES finds the true CPDAG stored beside it;
 * with lambda 0.5 (causal-learn's present default) the graph causal-learn's ges returns. */
static void test_causal_learn_simulated(void **state)
{
	const char *data = "test_ges_simulated_linear_gaussian_data.csv";

	check_stored(data, false, 0, FB_GES_SCORE_BIC, 1.0,
	             "test_ges_simulated_linear_gaussian_CPDAG.txt");
	check_stored(data, false, 0, FB_GES_SCORE_BIC, 0.5, "simulated_ges_causal_learn_head.txt");
}

/* A simulated linear Gaussian DAG (d = 8, 8 edges, 20,000 rows): GES's CPDAG is the true
 * DAG's CPDAG. */
static void test_recovery(void **state)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth, *cp, *g;
	size_t shd = 99;

	fb_sim_options_init(&so);
	so.d = 8;
	so.edges = 8;
	so.n = 20000;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	cp = fb_cpdag_from_dag(truth, NULL);
	g = run_ges(ds, FB_GES_SCORE_BIC, 0.5);
	assert_int_equal(fb_cpdag_shd(g, cp, &shd, NULL), FB_OK);
	assert_int_equal(shd, 0);
	assert_true(fb_cpdag_n_vstructures(cp) > 0); /* the test covers directed edges too */
	fb_graph_free(g);
	fb_graph_free(cp);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* Mix the bits of v into the FNV-1a digest h. */
static uint64_t mix_bits(uint64_t h, const void *v, size_t len)
{
	const unsigned char *b = v;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * UINT64_C(1099511628211);
	return h;
}

/* A digest of GES on ds with the given threads: every step's operator, gain, score, edges
 * and operators scored, the local scores computed, and the final CPDAG. */
static uint64_t ges_digest(const fb_dataset *ds, enum fb_ges_score kind, size_t threads)
{
	fb_ges_options o = { kind, 0.5, 1.0, 1.0, threads };
	fb_error err = { "" };
	fb_ges *g = fb_ges_alloc(ds, &o, &err);
	uint64_t h = UINT64_C(1469598103934665603);
	fb_ges_round r;
	size_t steps = 0;

	if (g == NULL)
		fail_msg("%s", err.msg);
	while (!fb_ges_done(g)) {
		size_t computed;

		assert_int_equal(fb_ges_step(g, &r, &err), FB_OK);
		computed = fb_ges_scores_computed(g);
		h = mix_bits(h, &r, sizeof r);
		h = mix_bits(h, &computed, sizeof computed);
		steps++;
	}
	for (size_t i = 0; i < ds->d; i++)
		for (size_t j = 0; j < ds->d; j++) {
			enum fb_edge e = fb_graph_edge(fb_ges_graph(g), i, j);

			h = mix_bits(h, &e, sizeof e);
		}
	assert_true(steps > 3); /* the search did something */
	fb_ges_free(g);
	return h;
}

/* GES's steps, scores computed and CPDAG are the same bits for 1, 2, 3 and 7 threads, with
 * BIC on simulated data and with BDeu on causal-learn's discrete data. */
static void test_threads(void **state)
{
	fb_sim_options so;
	fb_dataset *ds, *disc = read_data("data_discrete_10.txt", true, -1);
	fb_graph *truth;
	size_t counts[] = { 2, 3, 7 };
	uint64_t h;

	fb_sim_options_init(&so);
	so.d = 14;
	so.edges = 20;
	so.n = 3000;
	assert_int_equal(fb_sim_generate(&so, &ds, &truth, NULL), FB_OK);
	h = ges_digest(ds, FB_GES_SCORE_BIC, 1);
	for (size_t t = 0; t < sizeof counts / sizeof *counts; t++)
		assert_true(ges_digest(ds, FB_GES_SCORE_BIC, counts[t]) == h);
	h = ges_digest(disc, FB_GES_SCORE_BDEU, 1);
	for (size_t t = 0; t < sizeof counts / sizeof *counts; t++)
		assert_true(ges_digest(disc, FB_GES_SCORE_BDEU, counts[t]) == h);
	fb_graph_free(truth);
	fb_dataset_free(ds);
	fb_dataset_free(disc);
}

/* The validity conditions on hand-made graphs: the clique of NA u T, the semi-directed path
 * from y to x (blocked by NA u T or not), the clique of NA \ H. */
static void test_validity(void **state)
{
	fb_graph *g = fb_graph_alloc(5);
	size_t a[] = { 2 }, ab[] = { 2, 3 }, none[1];

	/* x = 0 isolated, 2 - 1 - 3 with 2, 3 not adjacent */
	fb_graph_set_undirected(g, 1, 2);
	fb_graph_set_undirected(g, 1, 3);
	assert_true(fb_ges_insert_valid(g, 0, 1, none, 0));
	assert_true(fb_ges_insert_valid(g, 0, 1, a, 1));
	assert_false(fb_ges_insert_valid(g, 0, 1, ab, 2)); /* 2, 3 not a clique */
	fb_graph_set_undirected(g, 2, 3);
	assert_true(fb_ges_insert_valid(g, 0, 1, ab, 2));
	/* 1 -> 4 -> 0: a directed path from y = 1 to x = 0, unless 4 is in NA */
	fb_graph_set_directed(g, 1, 4, 1.0);
	fb_graph_set_directed(g, 4, 0, 1.0);
	assert_false(fb_ges_insert_valid(g, 0, 1, none, 0));
	fb_graph_set_undirected(g, 4, 1); /* 1 - 4 -> 0: semi-directed, 4 in NA_{1,0} blocks */
	assert_true(fb_ges_insert_valid(g, 0, 1, none, 0));
	fb_graph_set_directed(g, 0, 4, 1.0); /* 4 -> 0 reversed: 1 - 4, 0 -> 4, no path */
	fb_graph_remove(g, 1, 4);
	assert_true(fb_ges_insert_valid(g, 0, 1, none, 0));
	fb_graph_free(g);
	/* 0 - 1 with 2 and 3 neighbours of both, 2 and 3 not adjacent: NA_{1,0} = {2, 3} */
	g = fb_graph_alloc(4);
	fb_graph_set_undirected(g, 0, 1);
	for (size_t v = 2; v < 4; v++) {
		fb_graph_set_undirected(g, 0, v);
		fb_graph_set_undirected(g, 1, v);
	}
	assert_false(fb_ges_delete_valid(g, 0, 1, none, 0));
	assert_true(fb_ges_delete_valid(g, 0, 1, a, 1));
	assert_true(fb_ges_delete_valid(g, 0, 1, ab, 2));
	fb_graph_set_undirected(g, 2, 3);
	assert_true(fb_ges_delete_valid(g, 0, 1, none, 0));
	fb_graph_free(g);
}

/* Start a run of "ges" on ds with one parameter word (or none). */
static int start(fb_run *run, const fb_dataset *ds, const char *word, fb_error *err)
{
	memset(run, 0, sizeof *run);
	run->algo = &fb_algo_ges;
	run->data = ds;
	assert_int_equal(fb_params_init(&run->params, fb_algo_ges.params, err), FB_OK);
	if (word != NULL)
		assert_int_equal(fb_params_set_word(&run->params, word, "ges", err), FB_OK);
	return fb_algo_ges.create(run, err);
}

/* The stepper behind "ges": one operator a round, insertions then deletions, the score
 * rising by each gain; refusals of a wrong score. */
static void test_algo(void **state)
{
	fb_dataset *ds = read_data("data_linear_10.txt", false, -1);
	fb_error err = { "" };
	static char la[] = "a", lb[] = "b";
	fb_run run;
	double fig[5], last = -INFINITY, ops = 0.0, scores = 0.0;
	size_t inserts = 0, deletes = 0;

	assert_int_equal(start(&run, ds, NULL, &err), FB_OK);
	while (!fb_algo_ges.done(&run)) {
		assert_int_equal(fb_algo_ges.step(&run, fig, &err), FB_OK);
		inserts += fig[0] == FB_GES_FORWARD;
		deletes += fig[0] == FB_GES_BACKWARD;
		assert_true(fig[0] != FB_GES_FORWARD || deletes == 0);
		assert_true(fig[1] > last || fig[0] == FB_GES_DONE);
		assert_true(fig[0] == FB_GES_DONE || fig[2] > 0.0);
		last = fig[1];
		ops += fig[3];
		/* every score computed is one of an operator's two, or an empty graph's */
		assert_true(fig[4] <= 20.0 + 2.0 * ops);
		assert_true(fig[4] >= scores);
		scores = fig[4];
	}
	assert_int_equal(inserts, 32); /* causal-learn's update1 and update2 have 32 and 2 */
	assert_int_equal(deletes, 2);
	assert_non_null(strstr(fb_algo_ges.note(&run), "CPDAG"));
	fb_algo_ges.destroy(&run);
	fb_buf_release(&run.say); /* the sentence its steps wrote */
	fb_params_release(&run.params);
	assert_int_equal(start(&run, ds, "score=bdeu", &err), FB_ERR);
	assert_string_equal(err.msg, "'score=bdeu' needs discrete variables (the data has 20 "
	                             "continuous)");
	fb_params_release(&run.params);
	assert_int_equal(fb_dataset_set_levels(ds, 0, (char *[]){ la, lb }, 2, NULL), FB_OK);
	assert_int_equal(start(&run, ds, "score=bic", &err), FB_OK); /* codes as numbers */
	fb_algo_ges.destroy(&run);
	fb_buf_release(&run.say);
	fb_params_release(&run.params);
	assert_int_equal(start(&run, ds, "score=bdeu", &err), FB_ERR);
	assert_string_equal(err.msg, "'score=bdeu' needs discrete variables (the data has 19 "
	                             "continuous)");
	fb_params_release(&run.params);
	assert_int_equal(start(&run, ds, NULL, &err), FB_ERR); /* auto on mixed data: dg */
	assert_non_null(strstr(err.msg, "not a level code below 2"));
	fb_params_release(&run.params);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bic_by_hand),
		cmocka_unit_test(test_bdeu_by_hand),
		cmocka_unit_test(test_lscore_refusals),
		cmocka_unit_test(test_causal_learn_linear10),
		cmocka_unit_test(test_causal_learn_discrete10),
		cmocka_unit_test(test_causal_learn_simulated),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_recovery),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_algo),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
