/* Unit tests of linear NOTEARS and of the weight post-processing: the loss against a direct
 * computation and finite differences (both evaluation paths), the stepper's contract and
 * determinism on a simulated chain, threshold-till-DAG on hand-made cyclic matrices and
 * against a one-edge-at-a-time reference, and accuracy on the shared synthetic data. */
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

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "fedbn/csv.h"
#include "fedbn/dataset.h"
#include "fedbn/metrics.h"
#include "fedbn/notears.h"
#include "fedbn/optim.h"

/* Fail unless got equals want to relative tolerance rel (absolute below 1). */
static void assert_rel(double got, double want, double rel)
{
	double tol = rel * (fabs(want) > 1.0 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* A dataset of n rows from the linear SEM x = x B + noise over d variables, where B has
 * the given arcs (from, to, weight); Gaussian noise, columns shifted by 3 so that centring
 * matters.  Variables are generated in index order, so arcs must go from low to high. */
static fb_dataset *sem_data(size_t n, size_t d, const double (*arcs)[3], size_t narcs,
                            uint64_t seed)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);
	gsl_rng *r = fb_rng_stream(seed, "test-notears");
	size_t i, j, k;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++) {
			double v = gsl_ran_gaussian(r, 1.0);

			for (k = 0; k < narcs; k++)
				if ((size_t)arcs[k][1] == j)
					v += arcs[k][2] * (ds->x[i * d + (size_t)arcs[k][0]] - 3.0);
			ds->x[i * d + j] = v + 3.0;
		}
	gsl_rng_free(r);
	return ds;
}

/* The loss 1/(2n) |Xc - Xc W|^2 computed from the rows, with the column means subtracted
 * here (independent of the library's two paths). */
static double direct_loss(const fb_dataset *ds, const gsl_matrix *W)
{
	size_t n = ds->n, d = ds->d, i, j, k;
	double *mean = calloc(d, sizeof *mean), sum = 0.0;

	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++)
			mean[j] += ds->x[i * d + j] / (double)n;
	for (i = 0; i < n; i++)
		for (j = 0; j < d; j++) {
			double r = ds->x[i * d + j] - mean[j];

			for (k = 0; k < d; k++)
				r -= (ds->x[i * d + k] - mean[k]) * gsl_matrix_get(W, k, j);
			sum += r * r;
		}
	free(mean);
	return sum / (2.0 * (double)n);
}

/* Loss and gradient agree with the direct formula and central differences, on a tall
 * dataset (the second-moment path) and a wide one (the row path). */
static void test_loss_paths(void **state)
{
	const size_t shape[2][2] = { { 60, 5 }, { 3, 8 } };
	const double arcs[][3] = { { 0, 1, 1.5 }, { 1, 3, -0.8 } };
	fb_error err = { "" };
	size_t s, i, j;

	for (s = 0; s < 2; s++) {
		size_t n = shape[s][0], d = shape[s][1];
		fb_dataset *ds = sem_data(n, d, arcs, 2, 17 + s);
		fb_notears *nt = fb_notears_alloc(ds, NULL, &err);
		gsl_matrix *W = gsl_matrix_alloc(d, d), *G = gsl_matrix_alloc(d, d);
		gsl_rng *r = fb_rng_stream(5, "test-loss");
		double loss, lp, lm, num = 0.0, den = 0.0;

		assert_non_null(nt);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				gsl_matrix_set(W, i, j, gsl_rng_uniform(r) - 0.5);
		assert_int_equal(fb_notears_loss(nt, W, &loss, G, &err), FB_OK);
		assert_rel(loss, direct_loss(ds, W), 1e-12);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				double x = gsl_matrix_get(W, i, j), step = 1e-5, fd;

				gsl_matrix_set(W, i, j, x + step);
				assert_int_equal(fb_notears_loss(nt, W, &lp, NULL, &err), FB_OK);
				gsl_matrix_set(W, i, j, x - step);
				assert_int_equal(fb_notears_loss(nt, W, &lm, NULL, &err), FB_OK);
				gsl_matrix_set(W, i, j, x);
				fd = (lp - lm) / (2.0 * step) - gsl_matrix_get(G, i, j);
				num += fd * fd;
				den += gsl_matrix_get(G, i, j) * gsl_matrix_get(G, i, j);
			}
		if (!(sqrt(num / den) < 1e-7))
			fail_msg("shape %zu: gradient off by %g", s, sqrt(num / den));
		{
			gsl_matrix *bad = gsl_matrix_alloc(d + 1, d + 1);

			assert_int_equal(fb_notears_loss(nt, bad, &loss, NULL, &err), FB_ERR);
			assert_non_null(strstr(err.msg, "W must be"));
			assert_int_equal(fb_notears_loss(nt, W, &loss, bad, &err), FB_ERR);
			gsl_matrix_free(bad);
		}
		gsl_matrix_free(W);
		gsl_matrix_free(G);
		gsl_rng_free(r);
		fb_notears_free(nt);
		fb_dataset_free(ds);
	}
}

/* Bad data and bad options are refused with a message naming them. */
static void test_alloc_errors(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(10, 3);
	char la[] = "a", lb[] = "b";
	char *levels[] = { la, lb };
	fb_notears_options opt;
	fb_error err = { "" };

	fb_notears_options_init(&opt);
	assert_rel(opt.lambda1, 0.01, 0);
	assert_int_equal(opt.max_iter, 100);
	assert_rel(opt.w_threshold, 0.3, 0);
	opt.rho_max = 1.0;
	assert_null(fb_notears_alloc(ds, &opt, &err));
	assert_non_null(strstr(err.msg, "rho_max"));
	fb_notears_options_init(&opt);
	opt.lambda1 = -1.0;
	assert_null(fb_notears_alloc(ds, &opt, &err));
	assert_non_null(strstr(err.msg, "lambda1"));
	fb_notears_options_init(&opt);
	opt.solver = (enum fb_notears_solver)7;
	assert_null(fb_notears_alloc(ds, &opt, &err));
	assert_non_null(strstr(err.msg, "solver"));
	ds->x[4] = NAN;
	assert_null(fb_notears_alloc(ds, NULL, &err));
	assert_non_null(strstr(err.msg, "row 2 of variable 'X2'"));
	ds->x[4] = 0.0;
	assert_int_equal(fb_dataset_set_levels(ds, 2, levels, 2, &err), FB_OK);
	assert_null(fb_notears_alloc(ds, NULL, &err));
	assert_non_null(strstr(err.msg, "'X3' is discrete"));
	assert_null(fb_notears_alloc(NULL, NULL, &err));
	fb_dataset_free(ds);
	ds = fb_dataset_alloc(10, 1);
	assert_null(fb_notears_alloc(ds, NULL, &err));
	assert_non_null(strstr(err.msg, "at least 2 variables"));
	fb_dataset_free(ds);
}

/* The figures of a round agree with the weights it left, recomputed here: h by fb_dag_h,
 * the loss, |W|_1 and the count of entries above the threshold. */
static void check_round(fb_notears *nt, const fb_notears_round *rd, double thr)
{
	const gsl_matrix *W = fb_notears_weights(nt);
	size_t d = W->size1, k, edges = 0;
	fb_dag_h_work *hw = fb_dag_h_work_alloc(d);
	fb_error err = { "" };
	double h, loss, l1 = 0.0;

	assert_int_equal(fb_dag_h(W, hw, &h, NULL, &err), FB_OK);
	assert_int_equal(fb_notears_loss(nt, W, &loss, NULL, &err), FB_OK);
	for (k = 0; k < d * d; k++) {
		l1 += fabs(W->data[k]);
		edges += fabs(W->data[k]) > thr;
	}
	assert_rel(rd->h, h, 1e-12);
	assert_rel(rd->loss, loss, 1e-12);
	assert_rel(rd->l1, l1, 1e-12);
	assert_int_equal(rd->edges, edges);
	fb_dag_h_work_free(hw);
}

/* Run NOTEARS to the end on ds; returns the rounds done and the final W (caller frees). */
static size_t run_all(const fb_dataset *ds, const fb_notears_options *opt, gsl_matrix **W)
{
	fb_error err = { "" };
	fb_notears *nt = fb_notears_alloc(ds, opt, &err);
	fb_notears_round rd;
	size_t rounds = 0;
	double alpha = 0.0, rho = 1.0;

	if (nt == NULL)
		fail_msg("alloc: %s", err.msg);
	while (!fb_notears_done(nt)) {
		if (fb_notears_step(nt, &rd, &err) != FB_OK)
			fail_msg("step: %s", err.msg);
		rounds++;
		check_round(nt, &rd, opt != NULL ? opt->w_threshold : 0.3);
		assert_int_equal(rd.iter, rounds);
		assert_true(rd.rho >= rho && rd.alpha >= alpha && rd.h >= 0.0);
		assert_true(rd.solves >= 1 && rd.evals >= rd.solves);
		assert_rel(rd.alpha, alpha + rd.rho * rd.h, 1e-12);
		assert_true(rd.objective >= rd.loss);
		rho = rd.rho;
		alpha = rd.alpha;
	}
	assert_int_equal(fb_notears_step(nt, &rd, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "finished"));
	*W = gsl_matrix_alloc(ds->d, ds->d);
	gsl_matrix_memcpy(*W, fb_notears_weights(nt));
	fb_notears_free(nt);
	return rounds;
}

/* A simulated chain with a collider is recovered by every solver: weights near the truth,
 * h below its tolerance, a DAG after thresholding; and a second run gives the same bits. */
static void test_chain_recovery(void **state)
{
	const double arcs[][3] = { { 0, 1, 1.2 }, { 1, 2, -0.9 }, { 0, 3, 0.8 },
	                           { 2, 3, 1.0 } };
	const enum fb_notears_solver solvers[3] = { FB_NOTEARS_OWLQN, FB_NOTEARS_SPLIT,
	                                            FB_NOTEARS_LBFGSB };
	fb_dataset *ds = sem_data(1000, 4, arcs, 4, 42);
	fb_dag_h_work *hw = fb_dag_h_work_alloc(4);
	fb_notears_options opt;
	fb_error err = { "" };
	size_t i, j, k, s, rounds;

	for (s = 0; s < 3; s++) {
		gsl_matrix *W, *W2;
		fb_graph *g;
		bool pruned = true;
		double h;

		fb_notears_options_init(&opt);
		opt.solver = solvers[s];
		rounds = run_all(ds, &opt, &W);
		assert_true(rounds >= 2);
		g = fb_weights_to_dag(W, 0.3, NULL, &pruned, &err);
		assert_non_null(g);
		assert_false(pruned);
		assert_int_equal(fb_graph_n_directed(g), 4);
		for (k = 0; k < 4; k++) {
			i = (size_t)arcs[k][0];
			j = (size_t)arcs[k][1];
			assert_true(fb_graph_has_arc(g, i, j));
			if (!(fabs(gsl_matrix_get(W, i, j) - arcs[k][2]) < 0.1))
				fail_msg("solver %zu: W[%zu][%zu] = %g, true %g", s, i, j,
				         gsl_matrix_get(W, i, j), arcs[k][2]);
		}
		for (i = 0; i < 4; i++)
			assert_true(gsl_matrix_get(W, i, i) == 0.0);
		assert_int_equal(fb_dag_h(W, hw, &h, NULL, &err), FB_OK);
		assert_true(h <= 1e-8);
		assert_int_equal(run_all(ds, &opt, &W2), rounds);
		assert_memory_equal(W->data, W2->data, 16 * sizeof(double));
		fb_graph_free(g);
		gsl_matrix_free(W);
		gsl_matrix_free(W2);
	}
	fb_dag_h_work_free(hw);
	fb_dataset_free(ds);
}

/* max_iter bounds the rounds, and the weights stay the last accepted ones. */
static void test_max_iter(void **state)
{
	const double arcs[][3] = { { 0, 1, 1.2 }, { 1, 2, -0.9 } };
	fb_dataset *ds = sem_data(200, 3, arcs, 2, 7);
	fb_notears_options opt;
	gsl_matrix *W;

	fb_notears_options_init(&opt);
	opt.max_iter = 1;
	assert_int_equal(run_all(ds, &opt, &W), 1);
	assert_true(fabs(gsl_matrix_get(W, 0, 1)) + fabs(gsl_matrix_get(W, 1, 0)) > 0.5);
	gsl_matrix_free(W);
	fb_dataset_free(ds);
}

/* A d x d matrix from a row-major array. */
static gsl_matrix *matrix_from(size_t d, const double *v)
{
	gsl_matrix *m = gsl_matrix_alloc(d, d);

	memcpy(m->data, v, d * d * sizeof *v);
	return m;
}

/* Threshold till DAG on a hand-made matrix with two cycles, a self-loop, an entry exactly
 * at the threshold and one below: the greedy deletion leaves 0->1 and 1->2. */
static void test_weights_to_dag(void **state)
{
	const double v[16] = {
		0.0, 1.0, 0.0, 0.3,   /* 0->1 1.0; 0->3 exactly at the threshold */
		0.0, 0.0, 0.8, 0.2,   /* 1->2 0.8; 1->3 below */
		-0.5, 0.0, 0.0, 0.35, /* 2->0 -0.5 closes 0-1-2; 2->3 0.35 */
		0.0, -0.31, 0.0, 0.9, /* 3->1 -0.31 closes 1-2-3; a self-loop */
	};
	char na[] = "a", nb[] = "b", nc[] = "c", nd[] = "d";
	char *names[] = { na, nb, nc, nd };
	gsl_matrix *W = matrix_from(4, v);
	fb_error err = { "" };
	bool pruned = false;
	fb_graph *g = fb_weights_to_dag(W, 0.3, names, &pruned, &err);

	assert_non_null(g);
	assert_true(pruned);
	assert_true(g->weighted);
	assert_string_equal(g->names[3], "d");
	assert_int_equal(fb_graph_n_edges(g), 2);
	assert_true(fb_graph_has_arc(g, 0, 1) && fb_graph_has_arc(g, 1, 2));
	assert_rel(g->w[0 * 4 + 1], 1.0, 0);
	assert_rel(g->w[1 * 4 + 2], 0.8, 0);
	assert_true(fb_graph_is_dag(g));
	fb_graph_free(g);
	/* threshold only: all five arcs above 0.3, cyclic */
	g = fb_weights_to_graph(W, 0.3, NULL, &err);
	assert_non_null(g);
	assert_int_equal(fb_graph_n_directed(g), 5);
	assert_false(fb_graph_is_acyclic(g));
	assert_rel(g->w[3 * 4 + 1], -0.31, 0);
	assert_string_equal(g->names[0], "X1");
	fb_graph_free(g);
	/* a higher threshold leaves a DAG, nothing pruned */
	g = fb_weights_to_dag(W, 0.95, NULL, &pruned, &err);
	assert_false(pruned);
	assert_int_equal(fb_graph_n_edges(g), 1);
	fb_graph_free(g);
	gsl_matrix_free(W);
}

/* A two-cycle keeps its larger arc both ways; bad inputs are refused. */
static void test_two_cycle_and_errors(void **state)
{
	const double v[4] = { 0.0, 0.4, -0.9, 0.0 };
	char ba[] = "a", bb[] = "";
	char *bad[] = { ba, bb };
	gsl_matrix *W = matrix_from(2, v), *R = gsl_matrix_alloc(2, 3);
	fb_error err = { "" };
	bool pruned = false;
	fb_graph *g = fb_weights_to_dag(W, 0.3, NULL, &pruned, &err);

	assert_true(pruned);
	assert_true(fb_graph_has_arc(g, 1, 0) && !fb_graph_adjacent(g, 0, 0));
	assert_int_equal(fb_graph_n_edges(g), 1);
	fb_graph_free(g);
	g = fb_weights_to_graph(W, 0.3, NULL, &err);
	assert_true(fb_graph_has_arc(g, 1, 0));
	assert_rel(g->w[2], -0.9, 0);
	fb_graph_free(g);
	assert_null(fb_weights_to_dag(R, 0.3, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "square"));
	assert_null(fb_weights_to_dag(W, -1.0, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "threshold"));
	assert_null(fb_weights_to_graph(W, 0.3, bad, &err));
	gsl_matrix_set(W, 0, 1, NAN);
	assert_null(fb_weights_to_graph(W, 0.3, NULL, &err));
	assert_non_null(strstr(err.msg, "W[0][1]"));
	gsl_matrix_free(W);
	gsl_matrix_free(R);
}

/* Depth-first search from v over the arcs of M above thr (off-diagonal); colour 1 = on the
 * current path, 2 = finished.  True when a cycle is reachable. */
static bool dfs_cycle(const gsl_matrix *M, double thr, size_t v, unsigned char *colour)
{
	size_t d = M->size1, k;

	colour[v] = 1;
	for (k = 0; k < d; k++) {
		if (k == v || !(fabs(gsl_matrix_get(M, v, k)) > thr))
			continue;
		if (colour[k] == 1 || (colour[k] == 0 && dfs_cycle(M, thr, k, colour)))
			return true;
	}
	colour[v] = 2;
	return false;
}

/* True when the off-diagonal arcs of M above thr contain a cycle (two-cycles included). */
static bool has_cycle(const gsl_matrix *M, double thr)
{
	unsigned char colour[64] = { 0 };
	size_t v;

	for (v = 0; v < M->size1; v++)
		if (colour[v] == 0 && dfs_cycle(M, thr, v, colour))
			return true;
	return false;
}

/* The reference rule, one edge at a time: while the arcs of W above thr have a cycle, zero
 * the smallest |w| (ties: the later entry); returns the surviving arcs as a 0/1 matrix. */
static gsl_matrix *dag_one_at_a_time(const gsl_matrix *W, double thr)
{
	size_t d = W->size1, i, j, bi = 0, bj = 0;
	gsl_matrix *M = gsl_matrix_alloc(d, d);

	gsl_matrix_memcpy(M, W);
	while (has_cycle(M, thr)) {
		double best = HUGE_VAL;

		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++) {
				double a = fabs(gsl_matrix_get(M, i, j));

				if (i != j && a > thr && a <= best) {
					best = a;
					bi = i;
					bj = j;
				}
			}
		gsl_matrix_set(M, bi, bj, 0.0);
	}
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++)
			gsl_matrix_set(M, i, j, i != j && fabs(gsl_matrix_get(M, i, j)) > thr);
	return M;
}

/* Bisection gives the same DAG as deleting edges one at a time, on random dense matrices. */
static void test_dag_matches_greedy(void **state)
{
	gsl_rng *r = fb_rng_stream(9, "test-greedy");
	size_t d = 9, t, i, j;
	fb_error err = { "" };

	for (t = 0; t < 40; t++) {
		gsl_matrix *W = gsl_matrix_alloc(d, d);
		fb_graph *g;
		gsl_matrix *ref;

		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				gsl_matrix_set(W, i, j, (gsl_rng_uniform(r) < 0.3) ?
				               2.0 * gsl_rng_uniform(r) - 1.0 : 0.0);
		g = fb_weights_to_dag(W, 0.3, NULL, NULL, &err);
		ref = dag_one_at_a_time(W, 0.3);
		assert_non_null(g);
		for (i = 0; i < d; i++)
			for (j = 0; j < d; j++)
				if ((gsl_matrix_get(ref, i, j) != 0.0) != fb_graph_has_arc(g, i, j))
					fail_msg("trial %zu: arc %zu->%zu differs", t, i, j);
		fb_graph_free(g);
		gsl_matrix_free(ref);
		gsl_matrix_free(W);
	}
	gsl_rng_free(r);
}

/* The shared data folder, or NULL (with the reason printed) when absent. */
static const char *data_dir(char *buf, size_t size)
{
	const char *top = getenv("top_srcdir");
	FILE *fp;

	snprintf(buf, size, "%s/../shared/data/synth", top != NULL ? top : ".");
	{
		char probe[1100];

		snprintf(probe, sizeof probe, "%s/B_d20_n256_s1/X.csv", buf);
		fp = fopen(probe, "r");
	}
	if (fp == NULL) {
		printf("skipped: no shared data under %s\n", buf);
		return NULL;
	}
	fclose(fp);
	return buf;
}

/* SHD of NOTEARS (defaults but the solver, threshold till DAG at 0.3) on one synthetic
 * data folder. */
static size_t shd_on(const char *dir, const char *tag, enum fb_notears_solver solver)
{
	fb_notears_options opt;
	char path[1200];
	fb_csv_options co;
	fb_error err = { "" };
	fb_dataset *ds;
	fb_graph *truth, *est;
	fb_metrics m;
	gsl_matrix *W;
	char **names;
	size_t j;

	fb_csv_options_init(&co);
	snprintf(path, sizeof path, "%s/%s/X.csv", dir, tag);
	ds = fb_csv_read(path, &co, NULL, &err);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	names = malloc(ds->d * sizeof *names);
	for (j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	snprintf(path, sizeof path, "%s/%s/truth.csv", dir, tag);
	truth = fb_graph_read_csv(path, names, ds->d, &err);
	if (truth == NULL)
		fail_msg("%s", err.msg);
	fb_notears_options_init(&opt);
	opt.solver = solver;
	run_all(ds, &opt, &W);
	est = fb_weights_to_dag(W, 0.3, names, NULL, &err);
	assert_non_null(est);
	assert_int_equal(fb_metrics_compute(est, truth, &m, &err), FB_OK);
	printf("%s (%s): shd %zu (edges %zu, true %zu)\n", tag,
	       solver == FB_NOTEARS_SPLIT ? "split" : "owl-qn", m.shd, m.nnz, m.true_edges);
	fb_graph_free(est);
	fb_graph_free(truth);
	gsl_matrix_free(W);
	free(names);
	fb_dataset_free(ds);
	return m.shd;
}

/* On B_d20_n256_s1..3 the reference NOTEARS gets SHD 0; allow 1 (OWL-QN on all three, the
 * reference split formulation on the first). */
static void test_accuracy_synth(void **state)
{
	const char *tags[] = { "B_d20_n256_s1", "B_d20_n256_s2", "B_d20_n256_s3" };
	char buf[1024];
	const char *dir = data_dir(buf, sizeof buf);
	size_t k;

	if (dir == NULL)
		skip();
	for (k = 0; k < 3; k++)
		assert_true(shd_on(dir, tags[k], FB_NOTEARS_OWLQN) <= 1);
	assert_true(shd_on(dir, tags[0], FB_NOTEARS_SPLIT) <= 1);
}

/* Run the NOTEARS tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loss_paths),
		cmocka_unit_test(test_alloc_errors),
		cmocka_unit_test(test_chain_recovery),
		cmocka_unit_test(test_max_iter),
		cmocka_unit_test(test_weights_to_dag),
		cmocka_unit_test(test_two_cycle_and_errors),
		cmocka_unit_test(test_dag_matches_greedy),
		cmocka_unit_test(test_accuracy_synth),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
