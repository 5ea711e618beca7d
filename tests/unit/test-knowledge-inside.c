/* Background knowledge inside the optimisation of the weight learners, before any
 * post-processing: the weights each run holds (fb_run_weights) are exactly 0 where an arc is
 * forbidden (directly, by tiers or by a required reverse), in every solver, while without
 * the knowledge they are not; required arcs are left out of the l1 term, so that a penalty
 * that zeroes every other weight leaves them; the masked FedDAG learners' masks are exactly 0
 * and 1 there.  A NOTEARS-ADMM client's local step is the exact minimiser with its forbidden
 * entries at 0, an MCSL client's fixed logits stay put, and fb_owlqn's roles do what they
 * say. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>

#include "fedbn/admm.h"
#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/mcsl.h"
#include "fedbn/notears.h"
#include "fedbn/optim.h"
#include "fedbn/sim.h"
#include "knowledge-data.h"

/* Knowledge sets per learner. */
#define SETS 6

/* A draw in [0, n) from the stream s. */
static size_t pick(uint64_t *s, size_t n)
{
	*s = *s * 2862933555777941757ULL + 3037000493ULL;
	return (size_t)((*s >> 29) % n);
}

/* Knowledge over w: the truth's arcs required at random, some arcs forbidden whatever the
 * truth says (both ways now and then), and in every other set tiers along a random order of
 * the variables. */
static fb_knowledge *knowledge_draw(const fixture *w, uint64_t *s)
{
	size_t d = w->ds->d, perm[16];
	fb_knowledge *k = fb_knowledge_alloc(d, (const char *const *)w->truth->names);

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			if (fb_graph_has_arc(w->truth, i, j) && pick(s, 3) == 0)
				fb_knowledge_require(k, i, j, NULL);
	for (size_t t = 0; t < 3; t++) {
		size_t i = pick(s, d), j = pick(s, d);

		if (i != j)
			fb_knowledge_forbid(k, i, j, NULL);
		if (i != j && pick(s, 2) == 0)
			fb_knowledge_forbid(k, j, i, NULL);
	}
	for (size_t i = 0; i < d; i++)
		perm[i] = i;
	for (size_t i = d; i > 1; i--) {
		size_t j = pick(s, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t p = 0; pick(s, 2) == 0 && p < d; p++)
		fb_knowledge_set_tier(k, perm[p], 1 + (int)(2 * p / d), NULL);
	return k;
}

/* The weights of a run of name with the settings (words split at spaces) under k (NULL:
 * none) after steps steps or at its end, into a new d*d array. */
static double *weights_of(const char *name, const char *settings, const fixture *w,
                          const fb_knowledge *k, size_t steps)
{
	const fb_algo *a, *inner;
	fb_params p;
	fb_error err = { { 0 } };
	fb_run_spec spec = { 0 };
	char buf[256], *word, *save = NULL;
	double *out = fb_xcalloc(w->ds->d * w->ds->d, sizeof *out);
	fb_run *run;

	assert_int_equal(fb_algo_lookup(name, &a, &inner, &err), FB_OK);
	assert_int_equal(fb_params_init(&p, fb_algo_params(a, inner), NULL), FB_OK);
	snprintf(buf, sizeof buf, "%s", settings);
	for (word = strtok_r(buf, " ", &save); word != NULL; word = strtok_r(NULL, " ", &save))
		assert_int_equal(fb_params_set_word(&p, word, "test", NULL), FB_OK);
	spec.algo = name;
	spec.params = &p;
	spec.data = w->ds;
	spec.part = w->part;
	spec.knowledge = k;
	run = fb_run_alloc(&spec, &err);
	if (run == NULL)
		fail_msg("%s: %s", name, err.msg);
	for (size_t t = 0; t < steps && !fb_run_done(run); t++)
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s: %s", name, err.msg);
	assert_int_equal(fb_run_weights(run, out, &err), FB_OK);
	fb_run_free(run);
	fb_params_release(&p);
	return out;
}

/* A learner and quick settings. */
typedef struct learner {
	const char *name;
	const char *settings;
	bool masked;  /* its weights are a mask: required entries exactly 1 */
} learner;

/* Every weight learner, each solver of its W step. */
static const learner learners[] = {
	{ "notears", "max_iter=4", false },
	{ "notears-admm", "max_rounds=30 solver=owlqn", false },
	{ "notears-admm", "max_rounds=30 solver=subgradient", false },
	{ "notears-admm", "max_rounds=30 solver=lbfgsb", false },
	{ "notears-mlp", "max_iter=2 hidden=3", false },
	{ "notears-mlp", "max_iter=2 hidden=3 solver=owlqn", false },
	{ "notears-mlp-admm", "max_rounds=3 hidden=3", false },
	{ "mcsl", "it_in=20 it_max=2 hidden=4 layers=1", true },
	{ "gs-feddag", "it_in=20 it_fl=10 it_max=2 hidden=4 layers=1", true },
	{ "as-feddag", "it_in=20 it_fl=10 it_max=2 hidden=4 layers=1", true },
	{ "as-feddag-linear", "it_in=20 it_fl=10 it_max=2", false },
};

/* One learner over SETS knowledge sets: forbidden weights exactly 0 with the knowledge (a
 * mask's required ones exactly 1); returns how many forbidden weights were not 0 without it
 * (the check would have caught a learner that ignored the knowledge). */
static size_t check_learner(const learner *l, const fixture *w, uint64_t *s)
{
	size_t d = w->ds->d, missed = 0;
	double *free_w = weights_of(l->name, l->settings, w, NULL, 40);

	for (size_t t = 0; t < SETS; t++) {
		fb_knowledge *k = knowledge_draw(w, s);
		double *kw = weights_of(l->name, l->settings, w, k, 40);

		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++) {
				if (fb_knowledge_forbids(k, i, j)) {
					if (kw[i * d + j] != 0.0)
						fail_msg("%s %s: forbidden %zu -> %zu holds %g", l->name,
						         l->settings, i, j, kw[i * d + j]);
					missed += free_w[i * d + j] != 0.0;
				}
				if (l->masked && fb_knowledge_requires(k, i, j) && kw[i * d + j] != 1.0)
					fail_msg("%s: required %zu -> %zu has mask %g", l->name, i, j,
					         kw[i * d + j]);
			}
		free(kw);
		fb_knowledge_free(k);
	}
	free(free_w);
	return missed;
}

/* Forbidden weights are exactly 0 in every learner's own weights, and were not without the
 * knowledge. */
static void test_forbidden_held_at_zero(void **state)
{
	fixture w = make_data(5, 240, 31);
	uint64_t s = 77;

	(void)state;
	for (size_t l = 0; l < sizeof learners / sizeof learners[0]; l++) {
		size_t missed = check_learner(&learners[l], &w, &s);

		print_message("%s %s: %zu forbidden weights not 0 without the knowledge\n",
		              learners[l].name, learners[l].settings, missed);
		assert_true(missed > 0);
	}
	free_data(&w);
}

/* A learner whose l1 weight can be set so high that it zeroes every penalised weight. */
typedef struct heavy {
	const char *name;
	const char *settings;
} heavy;

/* Under a heavy l1 term a required arc keeps its weight (it is outside the term) while
 * without the knowledge the same weight is 0 (nearly, for the MLP's bounded solver). */
static void test_required_outside_l1(void **state)
{
	static const heavy heavies[] = {
		{ "notears", "lambda=50 max_iter=3" },
		{ "notears-admm", "lambda=50 max_rounds=30 solver=owlqn" },
		{ "notears-mlp", "lambda1=50 max_iter=2 hidden=3" },
		{ "notears-mlp", "lambda1=50 max_iter=2 hidden=3 solver=owlqn" },
		{ "notears-mlp-admm", "lambda1=50 max_rounds=4 hidden=3" },
	};
	fixture w = make_data(5, 400, 5);
	size_t d = 5, req[2] = { 0, 0 }, found = 0;
	fb_knowledge *k = fb_knowledge_alloc(d, (const char *const *)w.truth->names);

	(void)state;
	for (size_t i = 0; i < d && found == 0; i++)
		for (size_t j = 0; j < d && found == 0; j++)
			if (fb_graph_has_arc(w.truth, i, j)) {
				req[0] = i, req[1] = j, found = 1;
				assert_int_equal(fb_knowledge_require(k, i, j, NULL), FB_OK);
			}
	assert_int_equal(found, 1);
	for (size_t h = 0; h < sizeof heavies / sizeof heavies[0]; h++) {
		double *with = weights_of(heavies[h].name, heavies[h].settings, &w, k, 20);
		double *without = weights_of(heavies[h].name, heavies[h].settings, &w, NULL, 20);
		double a = fabs(with[req[0] * d + req[1]]), b = fabs(without[req[0] * d + req[1]]);

		print_message("%s %s: required weight %g, %g without the knowledge\n",
		              heavies[h].name, heavies[h].settings, a, b);
		if (!(a > 0.1 && b < 1e-3))
			fail_msg("%s %s: required weight %g with the knowledge, %g without",
			         heavies[h].name, heavies[h].settings, a, b);
		free(with);
		free(without);
	}
	fb_knowledge_free(k);
	free_data(&w);
}

/* Linear NOTEARS with each of its three solvers: forbidden entries of W exactly 0. */
static void test_notears_solvers(void **state)
{
	static const enum fb_notears_solver solvers[] = { FB_NOTEARS_OWLQN, FB_NOTEARS_SPLIT,
		                                          FB_NOTEARS_LBFGSB };
	fixture w = make_data(6, 300, 8);
	uint64_t s = 3;
	fb_error err = { { 0 } };

	(void)state;
	for (size_t v = 0; v < 3; v++) {
		fb_knowledge *k = knowledge_draw(&w, &s);
		fb_notears_options o;
		fb_notears *nt;
		const gsl_matrix *W;

		fb_notears_options_init(&o);
		o.solver = solvers[v];
		o.max_iter = 3;
		o.knowledge = k;
		nt = fb_notears_alloc(w.ds, &o, &err);
		assert_non_null(nt);
		while (!fb_notears_done(nt))
			assert_int_equal(fb_notears_step(nt, NULL, &err), FB_OK);
		W = fb_notears_weights(nt);
		for (size_t i = 0; i < 6; i++)
			for (size_t j = 0; j < 6; j++)
				if (fb_knowledge_forbids(k, i, j))
					assert_true(gsl_matrix_get(W, i, j) == 0.0);
		fb_notears_free(nt);
		fb_knowledge_free(k);
	}
	free_data(&w);
}

/* S = Xc^T Xc / n of ds, Xc centred on its column means, into S (d x d). */
static void moments(const fb_dataset *ds, gsl_matrix *S)
{
	size_t n = ds->n, d = ds->d;
	double *mean = fb_xcalloc(d, sizeof *mean);

	for (size_t r = 0; r < n; r++)
		for (size_t j = 0; j < d; j++)
			mean[j] += ds->x[r * d + j] / (double)n;
	gsl_matrix_set_zero(S);
	for (size_t r = 0; r < n; r++)
		for (size_t i = 0; i < d; i++)
			for (size_t j = 0; j < d; j++)
				*gsl_matrix_ptr(S, i, j) += (ds->x[r * d + i] - mean[i]) *
				                            (ds->x[r * d + j] - mean[j]) / (double)n;
	free(mean);
}

/* A NOTEARS-ADMM client's local step under knowledge: B is 0 where forbidden, and elsewhere
 * the gradient of its objective, S B - S + beta + rho2 (B - W), is 0 (the exact minimiser
 * with those entries fixed); beta is 0 at the first step. */
static void test_admm_client_exact(void **state)
{
	fixture w = make_data(6, 300, 12);
	fb_knowledge *k = fb_knowledge_alloc(6, (const char *const *)w.truth->names);
	fb_admm_options o;
	fb_admm_client *c;
	gsl_matrix *W = gsl_matrix_calloc(6, 6), *S = gsl_matrix_alloc(6, 6);
	gsl_matrix *G = gsl_matrix_alloc(6, 6);
	fb_error err = { { 0 } };
	const gsl_matrix *B;
	double rho2;
	size_t fixed = 0;

	(void)state;
	for (size_t v = 0; v < 6; v++)
		assert_int_equal(fb_knowledge_set_tier(k, v, 1 + (int)(v / 3), &err), FB_OK);
	assert_int_equal(fb_knowledge_forbid(k, 0, 2, &err), FB_OK);
	fb_admm_options_init(&o);
	o.rho2 = 0.5;
	o.knowledge = k;
	c = fb_admm_client_alloc(w.ds, w.ds->n, &o, &err);
	assert_non_null(c);
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++)
			if (!fb_knowledge_forbids(k, i, j))
				gsl_matrix_set(W, i, j, 0.1 * (double)((i * 7 + j * 3) % 5) - 0.2);
	assert_int_equal(fb_admm_client_local(c, W, NULL, &err), FB_OK);
	B = fb_admm_client_B(c);
	rho2 = fb_admm_client_rho2(c);
	moments(w.ds, S);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, S, B, 0.0, G);
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 6; j++) {
			double g = gsl_matrix_get(G, i, j) - gsl_matrix_get(S, i, j) +
			           rho2 * (gsl_matrix_get(B, i, j) - gsl_matrix_get(W, i, j));

			if (fb_knowledge_forbids(k, i, j)) {
				assert_true(gsl_matrix_get(B, i, j) == 0.0);
				fixed += fabs(g) > 1e-6; /* held, not at the unconstrained minimum */
				continue;
			}
			if (fabs(g) > 1e-9)
				fail_msg("B[%zu][%zu]: gradient %g", i, j, g);
		}
	assert_true(fixed > 0);
	gsl_matrix_free(W);
	gsl_matrix_free(S);
	gsl_matrix_free(G);
	fb_admm_client_free(c);
	fb_knowledge_free(k);
	free_data(&w);
}

/* An MCSL client under knowledge: the masked model's fixed logits and the linear model's
 * forbidden entries stay where they are pinned through Adam steps and an unpacked message
 * that moved them; the linear model's l1 term leaves the required entries out. */
static void test_mcsl_client_pinned(void **state)
{
	fixture w = make_data(4, 100, 21);
	fb_knowledge *k = fb_knowledge_alloc(4, (const char *const *)w.truth->names);
	fb_error err = { { 0 } };
	fb_mcsl_parts parts;

	(void)state;
	assert_int_equal(fb_knowledge_forbid(k, 0, 1, &err), FB_OK);
	assert_int_equal(fb_knowledge_require(k, 2, 3, &err), FB_OK);
	for (int linear = 0; linear < 2; linear++) {
		fb_mcsl_options o;
		fb_mcsl_client *c;
		double *U, *msg, on, l1 = 0.0;

		if (linear)
			fb_mcsl_linear_options_init(&o);
		else
			fb_mcsl_options_init(&o);
		o.hidden = 4;
		o.layers = 1;
		o.knowledge = k;
		c = fb_mcsl_client_alloc(w.ds, 0, &o, &err);
		assert_non_null(c);
		U = fb_mcsl_client_graph(c);
		on = FB_MCSL_PIN_TAU * o.tau + FB_MCSL_PIN_MARGIN;
		msg = fb_xcalloc(fb_mcsl_wire_len(c, true), sizeof *msg);
		for (size_t t = 0; t < 20; t++)
			assert_int_equal(fb_mcsl_client_step(c, 0.1, 1.0, &parts, &err), FB_OK);
		fb_mcsl_wire_pack(c, true, msg);
		msg[1] += 3.0, msg[11] -= 2.0; /* an average a little off */
		fb_mcsl_wire_unpack(c, true, msg);
		assert_true(U[1] == (linear ? 0.0 : -on));
		if (!linear)
			assert_true(U[11] == on);
		for (size_t q = 0; q < 16; q++)
			l1 += q != 11 ? fabs(U[q]) : 0.0;
		assert_int_equal(fb_mcsl_client_objective(c, 0.0, 1.0, NULL, &parts, NULL, NULL,
		                                          &err), FB_OK);
		if (linear)
			assert_true(fabs(parts.l1 - o.lambda * l1) <= 1e-12 * (1.0 + l1));
		free(msg);
		fb_mcsl_client_free(c);
	}
	fb_knowledge_free(k);
	free_data(&w);
}

/* fb_owlqn's roles on f = |x - c|^2 / 2 with l1 = 1: a fixed variable stays at its start, a
 * free one goes to c, a penalised one to c soft-thresholded by 1. */
static double quad_objective(const double *x, double *g, size_t n, void *ctx)
{
	const double *c = ctx;
	double f = 0.0;

	for (size_t i = 0; i < n; i++) {
		f += 0.5 * (x[i] - c[i]) * (x[i] - c[i]);
		if (g != NULL)
			g[i] = x[i] - c[i];
	}
	return f;
}

/* The roles of fb_owlqn. */
static void test_owlqn_roles(void **state)
{
	double c[6] = { 3.0, -2.5, 0.5, 4.0, -3.0, 2.0 }, x[6] = { 0, 0, 0, 0.7, 0, 0 };
	unsigned char role[6] = { FB_OWLQN_PENALISED, FB_OWLQN_FREE, FB_OWLQN_PENALISED,
		                  FB_OWLQN_FIXED, FB_OWLQN_PENALISED, FB_OWLQN_FREE };
	double want[6] = { 2.0, -2.5, 0.0, 0.7, -2.0, 2.0 };
	fb_owlqn_options oo = { 0 };
	fb_lbfgs_report rep = { 0 };
	fb_error err = { { 0 } };

	(void)state;
	oo.l1 = 1.0;
	oo.role = role;
	assert_int_equal(fb_owlqn(6, x, quad_objective, c, &oo, &rep, &err), FB_OK);
	for (size_t i = 0; i < 6; i++)
		assert_true(fabs(x[i] - want[i]) < 1e-6);
	assert_true(x[3] == 0.7 && x[2] == 0.0);
	/* every variable fixed: x as it was */
	memset(role, FB_OWLQN_FIXED, sizeof role);
	assert_int_equal(fb_owlqn(6, x, quad_objective, c, &oo, &rep, &err), FB_OK);
	assert_true(x[3] == 0.7 && x[0] == want[0]);
	/* a range with roles is refused */
	oo.l1_end = 3;
	assert_int_equal(fb_owlqn(6, x, quad_objective, c, &oo, &rep, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "roles"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owlqn_roles),
		cmocka_unit_test(test_notears_solvers),
		cmocka_unit_test(test_admm_client_exact),
		cmocka_unit_test(test_mcsl_client_pinned),
		cmocka_unit_test(test_required_outside_l1),
		cmocka_unit_test(test_forbidden_held_at_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
