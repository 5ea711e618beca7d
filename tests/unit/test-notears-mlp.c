/* Unit tests of NOTEARS-MLP and NOTEARS-MLP-ADMM: gradients against finite differences, the
 * message sizes, bit identity over thread counts and participation, and recovery of a small
 * nonlinear graph. */
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

#include "fedbn/algo.h"
#include "fedbn/metrics.h"
#include "fedbn/nn.h"
#include "fedbn/notears-mlp.h"
#include "fedbn/partition.h"
#include "fedbn/sim.h"

/* A dataset from the mlp SEM and its truth. */
typedef struct fixture {
	fb_dataset *ds; /* the rows */
	fb_graph *truth; /* the DAG */
} fixture;

/* d variables, d edges, n rows of the mlp SEM from seed. */
static fixture make_data(size_t d, size_t n, uint64_t seed)
{
	fb_sim_options o;
	fixture f;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = d;
	o.n = n;
	o.seed = seed;
	o.sem = FB_SEM_MLP;
	assert_int_equal(fb_sim_generate(&o, &f.ds, &f.truth, NULL), FB_OK);
	return f;
}

/* Free a fixture. */
static void fixture_free(fixture *f)
{
	fb_dataset_free(f->ds);
	fb_graph_free(f->truth);
}

/* Central finite differences of f along coordinate q against the analytic gradient, with a
 * relative tolerance. */
static void check_fd(double (*f)(void *, double *), void *ctx, double *x, const double *grad,
                     size_t q)
{
	double save = x[q], e = 1e-6 * fmax(1.0, fabs(save)), fp, fm, fd;

	x[q] = save + e;
	fp = f(ctx, x);
	x[q] = save - e;
	fm = f(ctx, x);
	x[q] = save;
	fd = (fp - fm) / (2.0 * e);
	if (fabs(fd - grad[q]) > 1e-5 * fmax(1.0, fabs(grad[q])))
		fail_msg("coordinate %zu: finite difference %.10g, gradient %.10g", q, fd, grad[q]);
}

/* The NOTEARS-MLP objective at x with rho 3 and alpha 0.7, for check_fd. */
static double nm_value(void *ctx, double *x)
{
	double f;

	assert_int_equal(fb_notears_mlp_objective(ctx, x, 3.0, 0.7, &f, NULL, NULL), FB_OK);
	return f;
}

/* The full augmented objective's gradient (loss, l2, split l1, rho/2 h^2 + alpha h) matches
 * finite differences at a point with every part active. */
static void test_mlp_gradient(void **state)
{
	fixture f = make_data(4, 40, 3);
	fb_mlp_options o;
	fb_notears_mlp *nm;
	double *x, *g, fv;
	size_t nx;
	gsl_rng *r = fb_rng_stream(5, "test");

	(void)state;
	fb_mlp_options_init(&o);
	o.hidden = 3;
	o.lambda1 = 0.05;
	o.lambda2 = 0.02;
	nm = fb_notears_mlp_alloc(f.ds, &o, NULL);
	assert_non_null(nm);
	nx = fb_notears_mlp_nvars(nm);
	assert_int_equal(nx, 2 * 3 * 16 + 3 * 4 + 3 * 4 + 4);
	x = fb_xcalloc(nx, sizeof *x);
	g = fb_xcalloc(nx, sizeof *g);
	for (size_t q = 0; q < nx; q++)
		x[q] = q < 96 ? 0.8 * gsl_rng_uniform(r) : gsl_rng_uniform(r) - 0.5;
	assert_int_equal(fb_notears_mlp_objective(nm, x, 3.0, 0.7, &fv, g, NULL), FB_OK);
	assert_true(isfinite(fv));
	for (size_t q = 0; q < nx; q++)
		check_fd(nm_value, nm, x, g, q);
	free(x);
	free(g);
	gsl_rng_free(r);
	fb_notears_mlp_free(nm);
	fixture_free(&f);
}

/* The server objective at t, for check_fd. */
static double server_value(void *ctx, double *t)
{
	double f;

	assert_int_equal(fb_mlp_server_objective(ctx, t, &f, NULL, NULL), FB_OK);
	return f;
}

/* After a round of two clients, the gradient of the server's first-layer problem matches
 * finite differences. */
static void test_server_gradient(void **state)
{
	fixture f = make_data(4, 60, 4);
	fb_mlp_admm_options o;
	fb_mlp_client *c[2];
	fb_mlp_server *s;
	fb_dataset half[2];
	size_t np, P = 3 * 16;
	double *up[2], *t, *g, fv;

	(void)state;
	fb_mlp_admm_options_init(&o);
	o.hidden = 3;
	o.lambda2 = 0.05;
	np = fb_mlp_admm_nparams(4, 3);
	s = fb_mlp_server_alloc(4, 2, &o, NULL);
	for (size_t k = 0; k < 2; k++) {
		half[k] = (fb_dataset){ 30, 4, f.ds->x + k * 30 * 4, f.ds->vars, NULL };
		c[k] = fb_mlp_client_alloc(&half[k], k, 60, &o, NULL);
		up[k] = fb_xcalloc(np, sizeof *up[k]);
		assert_int_equal(fb_mlp_client_local(c[k], 1, fb_mlp_server_theta(s), up[k], NULL),
		                 FB_OK);
	}
	assert_int_equal(fb_mlp_server_global(s, (const double *const *)up, NULL, NULL), FB_OK);
	t = fb_xcalloc(P, sizeof *t);
	g = fb_xcalloc(P, sizeof *g);
	for (size_t q = 0; q < P; q++)
		t[q] = fb_mlp_server_theta(s)[q] + 0.3 * sin((double)q);
	assert_int_equal(fb_mlp_server_objective(s, t, &fv, g, NULL), FB_OK);
	for (size_t q = 0; q < P; q++)
		check_fd(server_value, s, t, g, q);
	for (size_t k = 0; k < 2; k++) {
		fb_mlp_client_free(c[k]);
		free(up[k]);
	}
	free(t);
	free(g);
	fb_mlp_server_free(s);
	fixture_free(&f);
}

/* share x the MSE of the stack {d, hidden, 1} with parameters theta on ds. */
static double client_mse(const fb_dataset *ds, size_t hidden, const double *theta,
                         double share)
{
	const size_t dims[3] = { ds->d, hidden, 1 };
	const fb_nn_act sigmoid = { FB_NN_ACT_SIGMOID, 0.0 };
	fb_nn_stack *net = fb_nn_stack_alloc(dims, 3, &sigmoid, NULL);
	double loss = NAN;

	assert_non_null(net);
	fb_nn_stack_set_params(net, theta);
	assert_int_equal(fb_nn_stack_mse(net, ds->n, ds->x, NULL, &loss, NULL, NULL, NULL),
	                 FB_OK);
	fb_nn_stack_free(net);
	return share * loss;
}

/* Over three rounds of two clients (the second taking part in the first and third only),
 * each client's data loss is that of the model at the theta_k it sent, bit for bit: the
 * loss kept from the local step's evaluations is the one at the point it returns. */
static void test_client_loss(void **state)
{
	fixture f = make_data(4, 60, 5);
	fb_mlp_admm_options o;
	fb_mlp_client *c[2];
	fb_mlp_server *s;
	fb_dataset part[2];
	size_t np;
	double *up[2], loss, res;

	(void)state;
	fb_mlp_admm_options_init(&o);
	o.hidden = 3;
	np = fb_mlp_admm_nparams(4, 3);
	s = fb_mlp_server_alloc(4, 2, &o, NULL);
	for (size_t k = 0; k < 2; k++) {
		part[k] = (fb_dataset){ 20 + 20 * k, 4, f.ds->x + k * 20 * 4, f.ds->vars, NULL };
		c[k] = fb_mlp_client_alloc(&part[k], k, 60, &o, NULL);
		up[k] = fb_xcalloc(np, sizeof *up[k]);
	}
	for (size_t t = 1; t <= 3; t++) {
		double *sent[2] = { up[0], t == 2 ? NULL : up[1] };

		for (size_t k = 0; k < 2; k++) {
			if (sent[k] == NULL)
				continue;
			assert_int_equal(fb_mlp_client_local(c[k], t, fb_mlp_server_theta(s), up[k],
			                                     NULL), FB_OK);
			fb_mlp_client_figures(c[k], &loss, &res);
			assert_true(loss == client_mse(&part[k], 3, up[k], part[k].n / 60.0));
		}
		assert_int_equal(fb_mlp_server_global(s, (const double *const *)sent, NULL, NULL),
		                 FB_OK);
	}
	for (size_t k = 0; k < 2; k++) {
		fb_mlp_client_free(c[k]);
		free(up[k]);
	}
	fb_mlp_server_free(s);
	fixture_free(&f);
}

/* A run of name over p with threads, share and the key=value words (NULL-terminated). */
static fb_run *start(const fixture *f, const fb_partition *p, const char *name, size_t threads,
                     double share, ...)
{
	fb_fed_options fo;
	fb_error err = { { 0 } };
	const fb_algo *a, *inner;
	fb_params params;
	fb_run *run;
	va_list ap;

	fb_fed_options_init(&fo);
	fo.threads = threads;
	fo.share = share;
	assert_int_equal(fb_algo_lookup(name, &a, &inner, &err), FB_OK);
	fb_params_init(&params, fb_algo_params(a, inner), &err);
	va_start(ap, share);
	for (const char *w = va_arg(ap, const char *); w != NULL; w = va_arg(ap, const char *))
		assert_int_equal(fb_params_set_word(&params, w, "t", &err), FB_OK);
	va_end(ap);
	run = fb_run_alloc(&(fb_run_spec){ .algo = name, .params = &params, .fedopt = &fo,
	                                   .data = f->ds, .part = p, .truth = f->truth },
	                   &err);
	fb_params_release(&params);
	if (run == NULL)
		fail_msg("%s", err.msg);
	return run;
}

/* Horizontal split into k even shuffled blocks. */
static fb_partition *split(const fb_dataset *ds, size_t k)
{
	fb_split_options o;

	fb_split_options_init(&o);
	return fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, NULL);
}

/* Step a run to its end; its unthresholded weights into w (d*d), or for a combinator the
 * weights of its result graph. */
static void run_to_end(fb_run *run, double *w)
{
	fb_error err = { { 0 } };
	fb_graph *g;

	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s", err.msg);
	if (fb_run_has_weights(run)) {
		assert_int_equal(fb_run_weights(run, w, &err), FB_OK);
		return;
	}
	g = fb_run_result(run, &err);
	assert_non_null(g);
	memcpy(w, g->w, g->d * g->d * sizeof *w);
	fb_graph_free(g);
}

/* Every message is 10 d^2 + 21 d numbers each way (hidden 10), whatever the client's rows;
 * the global residuals reach the trace beside the clients' local ones. */
static void test_ledger(void **state)
{
	fixture f = make_data(5, 90, 6);
	fb_partition *p = split(f.ds, 3);
	fb_run *run = start(&f, p, "notears-mlp-admm", 1, 1.0, "max_rounds=2", NULL);
	double w[25];
	const fb_ledger *l;
	const fb_trace_rec *rec;

	(void)state;
	run_to_end(run, w);
	l = fb_fed_ledger(run->fed);
	assert_int_equal(l->n, 2 * 3 * 2);
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(l->e[i].bytes, (10 * 25 + 21 * 5) * sizeof(double));
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(fb_ledger_client_bytes(l, 2, FB_UP, k), 355 * 8);
		assert_int_equal(fb_ledger_client_bytes(l, 2, FB_DOWN, k), 355 * 8);
	}
	rec = fb_run_last(run);
	assert_non_null(rec->server_fig);
	for (size_t k = 0; k < 3; k++) {
		assert_true(rec->server_fig[k] > 0.0 && rec->client_fig[k] > 0.0);
		assert_true(rec->server_fig[k] != rec->client_fig[k]);
	}
	fb_run_free(run);
	fb_partition_free(p);
	fixture_free(&f);
}

/* threads=1 and threads=3 give the same weights bit for bit, with every client and with half
 * of them per round; voting:notears-mlp too; and half the clients is another run. */
static void test_threads(void **state)
{
	fixture f = make_data(4, 120, 7);
	fb_partition *p = split(f.ds, 4);
	double a[16], b[16], c[16];
	fb_run *r;

	(void)state;
	for (int half = 0; half < 2; half++) {
		r = start(&f, p, "notears-mlp-admm", 1, half ? 0.5 : 1.0, "max_rounds=4",
		          "hidden=4", NULL);
		run_to_end(r, a);
		fb_run_free(r);
		r = start(&f, p, "notears-mlp-admm", 3, half ? 0.5 : 1.0, "max_rounds=4",
		          "hidden=4", NULL);
		run_to_end(r, half ? c : b);
		fb_run_free(r);
		assert_memory_equal(a, half ? c : b, sizeof a);
	}
	assert_memory_not_equal(b, c, sizeof b);
	r = start(&f, p, "avg:notears-mlp", 1, 1.0, "max_iter=2", "hidden=4", NULL);
	run_to_end(r, a);
	fb_run_free(r);
	r = start(&f, p, "avg:notears-mlp", 2, 1.0, "max_iter=2", "hidden=4", NULL);
	run_to_end(r, b);
	fb_run_free(r);
	assert_memory_equal(a, b, sizeof a);
	fb_partition_free(p);
	fixture_free(&f);
}

/* On a 4-variable mlp SEM with 300 rows NOTEARS-MLP finds the graph up to one mistake,
 * with either subproblem solver. */
static void test_recovers(void **state)
{
	fixture f = make_data(4, 300, 2);
	const char *solvers[] = { "solver=lbfgsb", "solver=owlqn" };
	fb_score s;
	double w[16];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		fb_run *run = start(&f, NULL, "notears-mlp", 1, 1.0, solvers[i], NULL);

		run_to_end(run, w);
		assert_int_equal(fb_run_score(run, &s, NULL), FB_OK);
		assert_true(s.shd <= 1);
		fb_run_free(run);
	}
	fixture_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlp_gradient),
		cmocka_unit_test(test_server_gradient),
		cmocka_unit_test(test_client_loss),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_recovers),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
