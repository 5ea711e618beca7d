/* Unit tests of MCSL and FedDAG: the objective's gradients against central differences (masked
 * and linear), the mask noise's logistic law, AS-FedDAG with one step per aggregation against
 * mcsl on the pooled rows, GS-FedDAG's messages and personal networks, the ledger's sizes,
 * partial participation, the outer loops and the same bits for any thread count. */
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

#include "fedbn/feddag.h"
#include "fedbn/mcsl.h"
#include "fedbn/sim.h"

/* A small nonlinear dataset with its truth. */
typedef struct fixture {
	fb_dataset *ds;  /* the rows */
	fb_graph *truth; /* the DAG */
} fixture;

/* d variables, n rows of the mim SEM, seed 3. */
static void fixture_make(fixture *f, size_t d, size_t n)
{
	fb_sim_options o;
	fb_error err = { { 0 } };

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = d;
	o.n = n;
	o.seed = 3;
	o.sem = FB_SEM_MIM;
	if (fb_sim_generate(&o, &f->ds, &f->truth, &err) != FB_OK)
		fail_msg("%s", err.msg);
}

/* Free the fixture. */
static void fixture_free(fixture *f)
{
	fb_dataset_free(f->ds);
	fb_graph_free(f->truth);
}

/* What a central-difference check perturbs. */
typedef struct fd_ctx {
	fb_mcsl_client *c;   /* the client */
	const double *noise; /* fixed mask noise */
	double alpha, rho;   /* the Lagrangian's */
} fd_ctx;

/* The objective at the client's current parameters. */
static double fd_loss(const fd_ctx *x)
{
	fb_mcsl_parts pt;
	fb_error err;

	assert_int_equal(fb_mcsl_client_objective(x->c, x->alpha, x->rho, x->noise, &pt, NULL,
	                                          NULL, &err), FB_OK);
	return pt.loss;
}

/* Compare g with central differences over the len entries of p (skipping the diagonal of a
 * d x d graph when d > 0). */
static void check_fd(const fd_ctx *x, double *p, const double *g, size_t len, size_t d,
                     const char *what)
{
	const double h = 1e-6;
	size_t nonzero = 0;

	for (size_t k = 0; k < len; k++) {
		double keep = p[k], up, down, fd;

		if (d > 0 && k / d == k % d) {
			assert_true(g[k] == 0.0);
			continue;
		}
		p[k] = keep + h;
		up = fd_loss(x);
		p[k] = keep - h;
		down = fd_loss(x);
		p[k] = keep;
		fd = (up - down) / (2.0 * h);
		if (!(fabs(g[k] - fd) <= 1e-5 * fmax(fabs(fd), 1e-2)))
			fail_msg("%s[%zu]: analytic %.12g, central difference %.12g", what, k, g[k], fd);
		nonzero += g[k] != 0.0;
	}
	assert_true(nonzero > len / 2);
}

/* A client of the given model on f's rows, with small networks and random logits. */
static fb_mcsl_client *client_random(const fixture *f, enum fb_mcsl_model model)
{
	fb_mcsl_options o;
	fb_error err = { { 0 } };
	fb_mcsl_client *c;
	gsl_rng *r = fb_rng_stream(9, "test");
	size_t d = f->ds->d;

	fb_mcsl_options_init(&o);
	o.model = model;
	o.hidden = 5;
	o.layers = 2;
	c = fb_mcsl_client_alloc(f->ds, 0, &o, &err);
	if (c == NULL)
		fail_msg("%s", err.msg);
	for (size_t k = 0; k < d * d; k++)
		fb_mcsl_client_graph(c)[k] = model == FB_MCSL_LINEAR ?
			0.2 + 0.6 * gsl_rng_uniform(r) : 0.3 * (2.0 * gsl_rng_uniform(r) - 1.0);
	gsl_rng_free(r);
	return c;
}

/* The masked objective's gradients in U and in every network weight match central
 * differences, with the l1, alpha and rho terms all active. */
static void test_masked_gradients(void **state)
{
	fixture f;
	fb_mcsl_client *c;
	fb_mcsl_parts pt;
	fb_error err;
	size_t d = 5, len;
	double noise[25], gg[25], *gn, *net;
	gsl_rng *r = fb_rng_stream(4, "noise");

	(void)state;
	fixture_make(&f, d, 30);
	c = client_random(&f, FB_MCSL_MASKED);
	fb_mcsl_logistic_fill(r, d, noise);
	net = fb_mcsl_client_net(c, &len);
	gn = calloc(len, sizeof *gn);
	fd_ctx x = { c, noise, 0.7, 3.0 };
	assert_int_equal(fb_mcsl_client_objective(c, 0.7, 3.0, noise, &pt, gg, gn, &err), FB_OK);
	assert_true(pt.h > 1e-3); /* the penalty terms take part */
	check_fd(&x, fb_mcsl_client_graph(c), gg, d * d, d, "dU");
	check_fd(&x, net, gn, len, 0, "dPhi");
	free(gn);
	gsl_rng_free(r);
	fb_mcsl_client_free(c);
	fixture_free(&f);
}

/* The linear objective's gradient matches central differences away from W = 0. */
static void test_linear_gradients(void **state)
{
	fixture f;
	fb_mcsl_client *c;
	fb_mcsl_parts pt;
	fb_error err;
	size_t d = 4;
	double gg[16];

	(void)state;
	fixture_make(&f, d, 25);
	c = client_random(&f, FB_MCSL_LINEAR);
	fd_ctx x = { c, NULL, 0.4, 2.0 };
	assert_int_equal(fb_mcsl_client_objective(c, 0.4, 2.0, NULL, &pt, gg, NULL, &err), FB_OK);
	check_fd(&x, fb_mcsl_client_graph(c), gg, d * d, d, "dW");
	fb_mcsl_client_free(c);
	fixture_free(&f);
}

/* qsort's order on doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The mask noise is standard logistic: mean 0, variance pi^2/3, and its empirical CDF within
 * the Kolmogorov-Smirnov band of sigma(x); the diagonal stays 0. */
static void test_logistic_noise(void **state)
{
	const size_t d = 20, reps = 500, n = reps * d * (d - 1);
	double *all = malloc(n * sizeof *all), noise[400], sum = 0.0, sq = 0.0, ks = 0.0;
	gsl_rng *r = fb_rng_stream(5, "mcsl-noise");
	size_t m = 0;

	(void)state;
	for (size_t t = 0; t < reps; t++) {
		fb_mcsl_logistic_fill(r, d, noise);
		for (size_t k = 0; k < d * d; k++) {
			if (k / d == k % d) {
				assert_true(noise[k] == 0.0);
				continue;
			}
			all[m++] = noise[k];
			sum += noise[k];
			sq += noise[k] * noise[k];
		}
	}
	assert_int_equal(m, n);
	assert_true(fabs(sum / (double)n) < 4.0 * sqrt(M_PI * M_PI / 3.0 / (double)n));
	assert_true(fabs(sq / (double)n - M_PI * M_PI / 3.0) < 0.03 * M_PI * M_PI / 3.0);
	qsort(all, n, sizeof *all, cmp_double);
	for (size_t i = 0; i < n; i++) {
		double cdf = 1.0 / (1.0 + exp(-all[i]));

		ks = fmax(ks, fmax(fabs(cdf - (double)i / (double)n),
		                   fabs(cdf - (double)(i + 1) / (double)n)));
	}
	assert_true(ks < 1.63 / sqrt((double)n)); /* the 1 % critical value */
	free(all);
	gsl_rng_free(r);
}

/* Run name with the words over p (NULL: data alone), until done or rounds steps. */
static fb_run *run_words(const char *name, const fixture *f, const fb_partition *p,
                         size_t threads, const char *words, size_t rounds)
{
	fb_fed_options fo;
	fb_error err = { { 0 } };
	fb_params params;
	const fb_algo *a, *inner;
	fb_run *run;
	char *copy = strdup(words), *save = NULL;

	fb_fed_options_init(&fo);
	fo.threads = threads;
	assert_int_equal(fb_algo_lookup(name, &a, &inner, &err), FB_OK);
	fb_params_init(&params, fb_algo_params(a, inner), &err);
	for (char *w = strtok_r(copy, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (fb_params_set_word(&params, w, "t", &err) != FB_OK)
			fail_msg("%s", err.msg);
	free(copy);
	run = fb_run_alloc(&(fb_run_spec){ .algo = name, .params = &params, .fedopt = &fo,
	                                   .data = f->ds, .part = p, .truth = f->truth },
	                   &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < rounds && !fb_run_done(run); i++)
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s", err.msg);
	return run;
}

/* K contiguous equal blocks. */
static fb_partition *blocks(const fixture *f, size_t k)
{
	fb_split_options o;
	fb_error err = { { 0 } };
	fb_partition *p;

	fb_split_options_init(&o);
	o.shuffle = 0;
	p = fb_split(f->ds, FB_SPLIT_HORIZONTAL, k, &o, &err);
	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

/* The run's d x d weights. */
static double *weights(const fb_run *run, size_t d)
{
	double *w = calloc(d * d, sizeof *w);
	fb_error err;

	assert_int_equal(fb_run_weights(run, w, &err), FB_OK);
	return w;
}

/* Largest |a - b| over d x d entries. */
static double max_diff(const double *a, const double *b, size_t d)
{
	double m = 0.0;

	for (size_t k = 0; k < d * d; k++)
		m = fmax(m, fabs(a[k] - b[k]));
	return m;
}

/* With one gradient step per aggregation, every client, equal sizes and common noise,
 * as-feddag is mcsl on the pooled rows (App. E.2); with each client's own noise it is not. */
static void test_as_equals_central(void **state)
{
	fixture f;
	fb_partition *p;
	const char *common = "optimizer=gd lr=0.05 it_in=6 it_fl=1 it_max=3 noise=common "
	                     "hidden=4 layers=2";
	fb_run *as, *cen, *own;
	double *wa, *wc, *wo;
	size_t d = 4;

	(void)state;
	fixture_make(&f, d, 40);
	p = blocks(&f, 4);
	as = run_words("as-feddag", &f, p, 1, common, 100);
	cen = run_words("mcsl", &f, NULL, 1, "optimizer=gd lr=0.05 it_in=6 it_max=3 noise=common "
	                "hidden=4 layers=2", 100);
	own = run_words("as-feddag", &f, p, 1, "optimizer=gd lr=0.05 it_in=6 it_fl=1 it_max=3 "
	                "hidden=4 layers=2", 100);
	assert_int_equal(fb_run_rounds(as), 18);
	assert_int_equal(fb_run_rounds(cen), 3);
	wa = weights(as, d);
	wc = weights(cen, d);
	wo = weights(own, d);
	assert_true(max_diff(wa, wc, d) < 1e-9);
	assert_true(max_diff(wa, wc, d) > 0.0 || memcmp(wa, wc, d * d * sizeof *wa) == 0);
	assert_true(max_diff(wo, wc, d) > 1e-6);
	free(wa), free(wc), free(wo);
	fb_run_free(as), fb_run_free(cen), fb_run_free(own);
	fb_partition_free(p);
	fixture_free(&f);
}

/* GS-FedDAG sends d^2 numbers per client per round and no network: after two rounds every
 * client's networks differ from every other's; AS sends d^2 + d(16d + 833) numbers. */
static void test_gs_messages_and_nets(void **state)
{
	fixture f;
	fb_partition *p;
	fb_run *gs, *as;
	size_t d = 5, len0, len1;
	const fb_ledger *lg;

	(void)state;
	fixture_make(&f, d, 60);
	p = blocks(&f, 3);
	gs = run_words("gs-feddag", &f, p, 1, "it_in=10 it_fl=5", 2);
	lg = fb_fed_ledger(gs->fed);
	for (size_t e = 0; e < lg->n; e++)
		assert_int_equal(lg->e[e].bytes, 8 * d * d);
	assert_int_equal(lg->n, 2 * 2 * 3);
	for (size_t a = 0; a < 3; a++)
		for (size_t b = a + 1; b < 3; b++) {
			const double *na = fb_feddag_client_net(gs, a, &len0);
			const double *nb = fb_feddag_client_net(gs, b, &len1);

			assert_int_equal(len0, len1);
			assert_true(memcmp(na, nb, len0 * sizeof *na) != 0);
		}
	as = run_words("as-feddag", &f, p, 1, "it_in=10 it_fl=5", 1);
	lg = fb_fed_ledger(as->fed);
	for (size_t e = 0; e < lg->n; e++)
		assert_int_equal(lg->e[e].bytes, 8 * (d * d + d * (16 * d + 833)));
	fb_run_free(gs), fb_run_free(as);
	fb_partition_free(p);
	fixture_free(&f);
}

/* r=2 of 4: two replies per round reach the server, the broadcast reaches all four. */
static void test_partial(void **state)
{
	fixture f;
	fb_partition *p;
	fb_run *run;
	const fb_ledger *lg;
	size_t up = 0, down = 0;
	const fb_trace_rec *rec;

	(void)state;
	fixture_make(&f, 4, 40);
	p = blocks(&f, 4);
	run = run_words("gs-feddag", &f, p, 1, "it_in=4 it_fl=2 r=2 hidden=4 layers=1", 3);
	lg = fb_fed_ledger(run->fed);
	for (size_t e = 0; e < lg->n; e++) {
		if (lg->e[e].dir == FB_UP)
			up++;
		else
			down++;
	}
	assert_int_equal(up, 3 * 2);
	assert_int_equal(down, 3 * 4);
	rec = fb_run_last(run);
	assert_int_equal(rec->fig[7], 2.0); /* heard */
	fb_run_free(run);
	fb_partition_free(p);
	fixture_free(&f);
}

/* Same bits with one thread and with three. */
static void test_threads(void **state)
{
	fixture f;
	fb_partition *p;
	fb_run *a, *b;
	double *wa, *wb;
	size_t d = 4;

	(void)state;
	fixture_make(&f, d, 60);
	p = blocks(&f, 3);
	a = run_words("gs-feddag", &f, p, 1, "it_in=6 it_fl=3 hidden=4 layers=2 dropout=0.3", 4);
	b = run_words("gs-feddag", &f, p, 3, "it_in=6 it_fl=3 hidden=4 layers=2 dropout=0.3", 4);
	wa = weights(a, d);
	wb = weights(b, d);
	assert_memory_equal(wa, wb, d * d * sizeof *wa);
	free(wa), free(wb);
	fb_run_free(a), fb_run_free(b);
	fb_partition_free(p);
	fixture_free(&f);
}

/* The outer loops: the paper's moves alpha by rho h and grows rho when h did not drop to a
 * quarter; the code's re-runs the sub-problem under beta rho first, and stops early only past
 * init_iter with h below h_tol. */
static void test_alm(void **state)
{
	fb_mcsl_alm a = { .loop = FB_MCSL_LOOP_PAPER, .rho = 2.0, .beta = 10.0, .gamma = 0.25,
	                  .rho_max = 1e14, .h_tol = 1e-10, .h_prev = INFINITY, .it_max = 25,
	                  .init_iter = 3 };
	fb_mcsl_alm c;

	(void)state;
	c = a;
	c.loop = FB_MCSL_LOOP_CODE;
	assert_true(fb_mcsl_alm_update(&a, 1.0, 1.0));
	assert_true(a.alpha == 2.0 && a.rho == 2.0 && a.outer == 1);
	assert_true(fb_mcsl_alm_update(&a, 0.5, 0.5)); /* not below 0.25: rho grows */
	assert_true(a.alpha == 3.0 && a.rho == 20.0 && a.outer == 2 && !a.done);
	assert_true(fb_mcsl_alm_update(&a, 1e-11, 1e-11));
	assert_true(a.done);
	assert_true(fb_mcsl_alm_update(&c, 1.0, 1.0));
	assert_true(c.alpha == 2.0 && c.rho == 2.0 && c.outer == 1);
	assert_false(fb_mcsl_alm_update(&c, 0.5, 0.5)); /* the same sub-problem again */
	assert_true(c.rho == 20.0 && c.outer == 1 && c.alpha == 2.0);
	assert_true(fb_mcsl_alm_update(&c, 0.1, 0.1));
	assert_true(c.outer == 2 && c.alpha == 4.0);
	assert_true(fb_mcsl_alm_update(&c, 1e-12, 1e-12)); /* outer 3: not past init_iter */
	assert_false(c.done);
	assert_false(fb_mcsl_alm_update(&c, 1e-12, 1e-12)); /* h did not drop: again */
	assert_true(fb_mcsl_alm_update(&c, 1e-14, 1e-14));
	assert_true(c.done && c.outer == 4);
}

/* The first five Adam steps of a client (d = 5, 50 rows, alpha 0.5, rho 0.1) have the
 * objectives that gCastle's MCSL networks (castle/algorithms/gradient/mcsl/torch, in float64)
 * and PyTorch's Adam give from the same networks, the same U = 0 and the same mask noise, with
 * the element-wise l1 norm. */
static void test_reference_steps(void **state)
{
	static const double want[5] = { 8.002355260859991, 4.3000136518674834, 7.0567907402458632,
		                        7.8867114994013097, 5.8286552636642739 };
	fixture f;
	fb_mcsl_options o;
	fb_error err = { { 0 } };
	fb_mcsl_client *c;
	fb_mcsl_parts pt;

	(void)state;
	fixture_make(&f, 5, 50);
	fb_mcsl_options_init(&o);
	c = fb_mcsl_client_alloc(f.ds, 0, &o, &err);
	assert_non_null(c);
	for (int s = 0; s < 5; s++) {
		assert_int_equal(fb_mcsl_client_step(c, 0.5, 0.1, &pt, &err), FB_OK);
		if (!(fabs(pt.loss - want[s]) <= 1e-10 * want[s]))
			fail_msg("step %d: objective %.17g, the reference %.17g", s + 1, pt.loss, want[s]);
	}
	fb_mcsl_client_free(c);
	fixture_free(&f);
}

/* Layer 0 is Glorot-uniform over the d - 1 real inputs (bound sqrt(6 / (d - 1 + 16)), reached
 * within 5 %), a network's own input weights are 0, and every client starts alike. */
static void test_glorot(void **state)
{
	fixture f;
	fb_mcsl_options o;
	fb_error err = { { 0 } };
	fb_mcsl_client *a, *b;
	size_t d = 6, len, lb;
	double bound = sqrt(6.0 / (double)(d - 1 + 16)), big = 0.0;
	const double *w, *wb;

	(void)state;
	fixture_make(&f, d, 20);
	fb_mcsl_options_init(&o);
	a = fb_mcsl_client_alloc(f.ds, 0, &o, &err);
	b = fb_mcsl_client_alloc(f.ds, 7, &o, &err);
	w = fb_mcsl_client_net(a, &len);
	wb = fb_mcsl_client_net(b, &lb);
	assert_int_equal(len, lb);
	assert_memory_equal(w, wb, len * sizeof *w);
	for (size_t row = 0; row < d * 16; row++)
		for (size_t i = 0; i < d; i++) {
			double v = w[row * d + i];

			if (i == row / 16)
				assert_true(v == 0.0);
			assert_true(fabs(v) <= bound);
			big = fmax(big, fabs(v));
		}
	assert_true(big > 0.95 * bound);
	assert_int_equal(fb_mcsl_wire_len(a, true), d * d + d * (16 * d + 833));
	fb_mcsl_client_free(a);
	fb_mcsl_client_free(b);
	fixture_free(&f);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masked_gradients),
		cmocka_unit_test(test_linear_gradients),
		cmocka_unit_test(test_logistic_noise),
		cmocka_unit_test(test_as_equals_central),
		cmocka_unit_test(test_gs_messages_and_nets),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_alm),
		cmocka_unit_test(test_reference_steps),
		cmocka_unit_test(test_glorot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
