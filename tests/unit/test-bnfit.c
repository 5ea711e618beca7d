/* Unit tests of fitted networks: tables counted by hand (mle, bayes, an unseen
 * configuration), regressions against numpy, federated fits against the pooled fit
 * (horizontal: tables and regressions bit for bit; vertical: bit for bit, and a
 * family that crosses clients refused by name), the log-density, and the Asia round trip
 * (sample, fit within 0.01 of the tables, BIF and XMLBIF out and back). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>

#include "fedbn/bnfit.h"
#include "fedbn/bootstrap.h"
#include "test-near.h"

/* A graph over ds's variables with the arcs given as "from to" index pairs. */
static fb_graph *dag_of(const fb_dataset *ds, const size_t *arcs, size_t narcs)
{
	fb_graph *g = fb_graph_alloc(ds->d);

	for (size_t i = 0; i < ds->d; i++)
		assert_int_equal(fb_graph_set_name(g, i, ds->vars[i].name, NULL), FB_OK);
	for (size_t a = 0; a < narcs; a++)
		fb_graph_set_directed(g, arcs[2 * a], arcs[2 * a + 1], 1.0);
	g->weighted = false;
	return g;
}

/* The hand data: A in {a0, a1, a2} (a2 never seen), B in {b0, b1}, rows (A, B) = (0,0),
 * (0,0), (0,1), (1,1), (1,1), (1,0). */
static fb_dataset *hand_data(void)
{
	static const double rows[] = { 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0 };
	char a0[] = "a0", a1[] = "a1", a2[] = "a2", b0[] = "b0", b1[] = "b1";
	char *la[] = { a0, a1, a2 }, *lb[] = { b0, b1 };
	fb_dataset *ds = fb_dataset_alloc(6, 2);

	assert_int_equal(fb_dataset_set_name(ds, 0, "A", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 1, "B", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 0, la, 3, NULL), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 1, lb, 2, NULL), FB_OK);
	memcpy(ds->x, rows, sizeof rows);
	return ds;
}

/* Fit dag on ds pooled; the test fails on an error. */
static fb_bnfit *pooled_ok(const fb_dataset *ds, const fb_graph *g, const fb_bnfit_options *o)
{
	fb_error err = { { 0 } };
	fb_bnfit *f = fb_bnfit_pooled(ds, g, o, &err);

	if (f == NULL)
		fail_msg("unexpected error: %s", err.msg);
	return f;
}

/* mle by hand: A 3/6, 3/6, 0; B | a0 = 2/3, 1/3; B | a1 = 1/3, 2/3; B | a2 unseen: 1/2. */
static void test_mle_by_hand(void **state)
{
	fb_dataset *ds = hand_data();
	fb_graph *g = dag_of(ds, (size_t[]){ 0, 1 }, 1);
	fb_bnfit_options o;
	fb_bnfit *f;
	const double want_b[] = { 2.0 / 3, 1.0 / 3, 1.0 / 3, 2.0 / 3, 0.5, 0.5 };

	(void)state;
	fb_bnfit_options_init(&o);
	f = pooled_ok(ds, g, &o);
	assert_int_equal(f->n, 6);
	assert_int_equal(f->unseen, 1);
	assert_near(f->bn->nodes[0].cpt[0], 0.5, 1e-15);
	assert_near(f->bn->nodes[0].cpt[2], 0.0, 0);
	for (size_t c = 0; c < 6; c++)
		assert_near(f->bn->nodes[1].cpt[c], want_b[c], 1e-15);
	/* row 0 (a0, b0): log(1/2) + log(2/3) */
	assert_near(fb_bnfit_row_loglik(f, ds, 0), log(0.5) + log(2.0 / 3), 1e-14);
	fb_bnfit_free(f);
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* bayes, iss 6, by bnlearn's formula: A (3 + 2) / (6 + 6) for a0, a1 and 2/12 for a2;
 * B (q 3, r 2, 1 a cell): a0 (2+1)/(3+2), (1+1)/5; a1 0.4, 0.6; a2 0.5, 0.5. */
static void test_bayes_by_hand(void **state)
{
	fb_dataset *ds = hand_data();
	fb_graph *g = dag_of(ds, (size_t[]){ 0, 1 }, 1);
	fb_bnfit_options o;
	fb_bnfit *f;
	const double want_a[] = { 5.0 / 12, 5.0 / 12, 2.0 / 12 };
	const double want_b[] = { 0.6, 0.4, 0.4, 0.6, 0.5, 0.5 };

	(void)state;
	fb_bnfit_options_init(&o);
	o.method = FB_BNFIT_BAYES;
	o.iss = 6;
	f = pooled_ok(ds, g, &o);
	assert_int_equal(f->unseen, 0);
	for (size_t s = 0; s < 3; s++)
		assert_near(f->bn->nodes[0].cpt[s], want_a[s], 1e-15);
	for (size_t c = 0; c < 6; c++)
		assert_near(f->bn->nodes[1].cpt[c], want_b[c], 1e-15);
	fb_bnfit_free(f);
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* Ten rows of X, Y, Z (continuous). */
static fb_dataset *gauss_data(void)
{
	static const double c[3][10] = {
		{ 0.5, 1.2, -0.3, 2.1, 0.9, -1.4, 0.0, 1.7, 0.4, -0.8 },
		{ 1.1, 2.0, 0.2, 3.9, 1.5, -2.2, 0.6, 2.8, 1.0, -1.1 },
		{ 2.3, 4.1, 0.1, 6.8, 3.0, -3.9, 0.9, 5.2, 1.9, -2.0 },
	};
	fb_dataset *ds = fb_dataset_alloc(10, 3);

	assert_int_equal(fb_dataset_set_name(ds, 0, "X", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 1, "Y", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 2, "Z", NULL), FB_OK);
	for (size_t i = 0; i < 10; i++)
		for (size_t j = 0; j < 3; j++)
			ds->x[i * 3 + j] = c[j][i];
	return ds;
}

/* Check the regressions of X -> Y, X -> Z, Y -> Z against numpy's lstsq (sd with n - p - 1)
 * to a relative tol. */
static void check_gauss(const fb_bnfit *f, double tol)
{
	const fb_gnode *x = &f->gbn->nodes[0], *y = &f->gbn->nodes[1], *z = &f->gbn->nodes[2];

	assert_near(x->intercept, 0.43000000000000005, tol);
	assert_near(x->sd, 1.0954958288880479, tol);
	assert_near(y->intercept, 0.2898342746042036, tol);
	assert_near(y->coef[0], 1.6050365706878988, tol);
	assert_near(y->sd, 0.25765432524862125, tol);
	assert_near(z->intercept, 0.28647603142116884, tol);
	assert_near(z->coef[0], 1.3418778088859296, tol);
	assert_near(z->coef[1], 0.9964454191406943, tol);
	assert_near(z->sd, 0.16917896864457926, tol);
}

/* Whether two Gaussian fits hold the same regressions, bit for bit. */
static void same_gauss_bits(const fb_bnfit *a, const fb_bnfit *b)
{
	assert_int_equal(a->gbn->d, b->gbn->d);
	for (size_t v = 0; v < a->gbn->d; v++) {
		const fb_gnode *x = &a->gbn->nodes[v], *y = &b->gbn->nodes[v];

		assert_int_equal(x->nparents, y->nparents);
		assert_memory_equal(&x->intercept, &y->intercept, sizeof x->intercept);
		assert_memory_equal(&x->sd, &y->sd, sizeof x->sd);
		assert_memory_equal(x->coef, y->coef, x->nparents * sizeof *x->coef);
	}
}

/* Regressions as numpy computes them; the log-density of row 0 too; the federated fit
 * over 3 clients equal to the pooled one bit for bit. */
static void test_gauss_numpy(void **state)
{
	fb_dataset *ds = gauss_data();
	fb_graph *g = dag_of(ds, (size_t[]){ 0, 1, 0, 2, 1, 2 }, 3);
	fb_error err = { { 0 } };
	fb_split_options so;
	fb_partition *p;
	fb_bnfit *f, *h;

	(void)state;
	f = pooled_ok(ds, g, NULL);
	check_gauss(f, 1e-12);
	assert_near(fb_bnfit_row_loglik(f, ds, 0), -0.7790061655586495, 1e-12);
	fb_split_options_init(&so);
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, 3, &so, &err);
	assert_non_null(p);
	h = fb_bnfit_federated(p, g, NULL, NULL, &err);
	assert_non_null(h);
	assert_int_equal(h->clients, 3);
	check_gauss(h, 1e-12);
	same_gauss_bits(f, h);
	fb_bnfit_free(h);
	fb_partition_free(p);
	fb_bnfit_free(f);
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* 3000 rows of W -> X -> Y, W -> Y, Y -> Z with values from 1e-3 to 1e6 and far from zero
 * means (where sums in a row order round differently): every horizontal split (2, 3 and 7
 * clients, even and uneven, shuffled), in the clear or (3 and 7) securely summed, gives the pooled
 * fit bit for bit; a value beyond the exact sums' range is refused, naming its column. */
static void test_gauss_bits(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(3000, 4);
	fb_graph *g;
	gsl_rng *r = fb_rng_stream(7, "test");
	fb_error err = { { 0 } };
	fb_fed_options fo;
	fb_bnfit *f;

	(void)state;
	for (size_t j = 0; j < 4; j++)
		assert_int_equal(fb_dataset_set_name(ds, j, (const char *[]){ "W", "X", "Y", "Z" }[j],
		                                     NULL), FB_OK);
	for (size_t i = 0; i < ds->n; i++) {
		double *x = ds->x + i * 4;

		x[0] = 1e6 + 1e3 * gsl_ran_gaussian(r, 1);
		x[1] = 1e-3 * x[0] + gsl_ran_gaussian(r, 0.1);
		x[2] = 0.7 * x[1] - 2e-4 * x[0] + gsl_ran_gaussian(r, 1e-3);
		x[3] = 3.3 * x[2] + gsl_ran_gaussian(r, 2);
	}
	gsl_rng_free(r);
	g = dag_of(ds, (size_t[]){ 0, 1, 1, 2, 0, 2, 2, 3 }, 4);
	f = pooled_ok(ds, g, NULL);
	for (size_t t = 0; t < 3; t++) {
		size_t k = (size_t[]){ 2, 3, 7 }[t];

		for (int secure = 0; secure < (k >= 3 ? 2 : 1); secure++) { /* secure: 3 or more */
			fb_split_options so;
			fb_partition *p;
			fb_bnfit *h;

			fb_split_options_init(&so);
			so.sizes = k == 3 ? FB_SIZES_UNEVEN : FB_SIZES_EVEN;
			p = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &so, &err);
			assert_non_null(p);
			fb_fed_options_init(&fo);
			fo.secure = secure;
			h = fb_bnfit_federated(p, g, NULL, &fo, &err);
			assert_non_null(h);
			same_gauss_bits(f, h);
			fb_bnfit_free(h);
			fb_partition_free(p);
		}
	}
	fb_bnfit_free(f);
	ds->x[5 * 4 + 2] = 0x1p150;
	assert_null(fb_bnfit_pooled(ds, g, NULL, &err));
	assert_non_null(strstr(err.msg, "column 'Y'"));
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* A vertical split: X -> Y at client 1 and Z alone at client 2 equals the pooled fit bit
 * for bit; Y -> Z crosses the clients and is refused, naming Z. */
static void test_vertical(void **state)
{
	fb_dataset *ds = gauss_data();
	fb_graph *ok = dag_of(ds, (size_t[]){ 0, 1 }, 1), *bad = dag_of(ds, (size_t[]){ 1, 2 }, 1);
	fb_error err = { { 0 } };
	fb_split_options so;
	fb_partition *p;
	fb_bnfit *f, *h;

	(void)state;
	fb_split_options_init(&so);
	so.cols = "X,Y;Z";
	p = fb_split(ds, FB_SPLIT_VERTICAL, 2, &so, &err);
	assert_non_null(p);
	f = pooled_ok(ds, ok, NULL);
	h = fb_bnfit_federated(p, ok, NULL, NULL, &err);
	assert_non_null(h);
	for (size_t i = 0; i < 3; i++) {
		assert_memory_equal(&f->gbn->nodes[i].intercept, &h->gbn->nodes[i].intercept,
		                    sizeof(double));
		assert_memory_equal(&f->gbn->nodes[i].sd, &h->gbn->nodes[i].sd, sizeof(double));
	}
	assert_memory_equal(f->gbn->nodes[1].coef, h->gbn->nodes[1].coef, sizeof(double));
	assert_null(fb_bnfit_federated(p, bad, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, "the family of 'Z'"));
	assert_non_null(strstr(err.msg, "crosses clients: 'Y' at client 1, 'Z' at client 2"));
	fb_bnfit_free(h);
	fb_bnfit_free(f);
	fb_partition_free(p);
	fb_graph_free(ok);
	fb_graph_free(bad);
	fb_dataset_free(ds);
}

/* Mixed data, a CPDAG and a singular regression are refused in one sentence each. */
static void test_refusals(void **state)
{
	fb_dataset *ds = gauss_data();
	fb_graph *g = dag_of(ds, (size_t[]){ 0, 2, 1, 2 }, 2);
	fb_error err = { { 0 } };
	char u[] = "u", v[] = "v";
	char *lv[] = { u, v };

	(void)state;
	for (size_t i = 0; i < 10; i++)
		ds->x[i * 3 + 1] = 2 * ds->x[i * 3]; /* Y = 2 X */
	assert_null(fb_bnfit_pooled(ds, g, NULL, &err));
	assert_non_null(strstr(err.msg, "regression of 'Z' is singular: its parent 'Y'"));
	fb_graph_set_undirected(g, 0, 1);
	assert_null(fb_bnfit_pooled(ds, g, NULL, &err));
	assert_non_null(strstr(err.msg, "not a DAG"));
	for (size_t i = 0; i < 10; i++)
		ds->x[i * 3] = (double)(i % 2);
	assert_int_equal(fb_dataset_set_levels(ds, 0, lv, 2, NULL), FB_OK);
	assert_null(fb_bnfit_pooled(ds, g, NULL, &err));
	assert_non_null(strstr(err.msg, "mix 1 discrete and 2 continuous"));
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* Every table of a and b equal to the bit (tol 0) or within tol (same variables, parents
 * and states). */
static void same_tables(const fb_bn *a, const fb_bn *b, double tol)
{
	assert_int_equal(a->d, b->d);
	for (size_t i = 0; i < a->d; i++) {
		const fb_bn_node *x = &a->nodes[i], *y = &b->nodes[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->nparents, y->nparents);
		if (x->nparents > 0)
			assert_memory_equal(x->parents, y->parents, x->nparents * sizeof(size_t));
		assert_int_equal(x->nconfigs * x->nstates, y->nconfigs * y->nstates);
		if (tol == 0)
			assert_memory_equal(x->cpt, y->cpt, x->nconfigs * x->nstates * sizeof(double));
		for (size_t c = 0; c < x->nconfigs * x->nstates; c++)
			assert_near(x->cpt[c], y->cpt[c], tol);
	}
}

/* P(X_i = s | configuration c of fit's parents) in the true network truth, whose parents
 * of i are the same set in its own order. */
static double true_prob(const fb_bn *truth, const fb_bn *fit, size_t i, size_t c, size_t s)
{
	const fb_bn_node *fn = &fit->nodes[i], *tn = &truth->nodes[i];
	size_t st[16], ts[16];

	for (size_t j = fn->nparents; j-- > 0;) {
		size_t k = fit->nodes[fn->parents[j]].nstates;

		st[j] = c % k;
		c /= k;
	}
	for (size_t j = 0; j < tn->nparents; j++)
		for (size_t q = 0; q < fn->nparents; q++)
			if (fn->parents[q] == tn->parents[j])
				ts[j] = st[q];
	return fb_bn_cpt_row(truth, i, fb_bn_config(truth, i, ts))[s];
}

/* Write f's tables to a file in a temporary folder in fmt (0 BIF, 1 XMLBIF), read it back. */
static fb_bn *write_read(const fb_bn *bn, int fmt)
{
	char path[] = "/tmp/test-bnfit-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fdopen(fd, "w");
	fb_error err = { { 0 } };
	fb_bn *back;

	assert_non_null(fp);
	if (fmt == 0)
		fb_bn_write_bif(fp, bn);
	else
		fb_bn_write_xmlbif(fp, bn);
	fclose(fp);
	back = fmt == 0 ? fb_bif_read(path, &err) : fb_xmlbif_read(path, &err);
	unlink(path);
	if (back == NULL)
		fail_msg("unexpected error: %s", err.msg);
	return back;
}

/* Asia: 100,000 rows sampled, split over 4 clients: the federated tables are the pooled
 * ones bit for bit, within 0.01 of the network's, and come back from BIF and XMLBIF the
 * same (to the rounding of the reader's rescaling of rows whose sum is not exactly 1). */
static void test_asia_round_trip(void **state)
{
	char path[512];
	fb_error err = { { 0 } };
	fb_split_options so;
	fb_partition *p;
	fb_bn *truth, *back;
	fb_dataset *ds;
	fb_graph *g;
	fb_bnfit *f, *h;

	(void)state;
	snprintf(path, sizeof path, "%s/../shared/data/bif/asia.bif", top());
	if (access(path, R_OK) != 0) {
		printf("skipped: %s is absent\n", path);
		skip();
	}
	truth = fb_bif_read(path, &err);
	assert_non_null(truth);
	ds = fb_bn_sample(truth, 100000, 7, &err);
	g = fb_bn_graph(truth);
	f = pooled_ok(ds, g, NULL);
	fb_split_options_init(&so);
	so.sizes = FB_SIZES_UNEVEN;
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, 4, &so, &err);
	h = fb_bnfit_federated(p, g, NULL, NULL, &err);
	assert_non_null(h);
	same_tables(f->bn, h->bn, 0);
	for (size_t i = 0; i < f->bn->d; i++) {
		const fb_bn_node *nd = &f->bn->nodes[i];

		for (size_t c = 0; c < nd->nconfigs; c++)
			for (size_t s = 0; s < nd->nstates; s++)
				assert_near(nd->cpt[c * nd->nstates + s], true_prob(truth, f->bn, i, c, s),
				            0.01);
	}
	for (int fmt = 0; fmt < 2; fmt++) {
		back = write_read(f->bn, fmt); /* the reader rescales a row whose sum is not 1 */
		same_tables(f->bn, back, 1e-15);
		fb_bn_free(back);
	}
	fb_bnfit_free(h);
	fb_bnfit_free(f);
	fb_partition_free(p);
	fb_graph_free(g);
	fb_dataset_free(ds);
	fb_bn_free(truth);
}

/* A Gaussian network samples its own regressions back (10,000 rows, coefficients within
 * 0.05) and a discrete one samples as fb_bn_sample. */
static void test_sample(void **state)
{
	fb_dataset *ds = gauss_data(), *s;
	fb_graph *g = dag_of(ds, (size_t[]){ 0, 1, 0, 2, 1, 2 }, 3);
	fb_error err = { { 0 } };
	fb_bnfit *f, *back;

	(void)state;
	f = pooled_ok(ds, g, NULL);
	s = fb_bnfit_sample(f, 10000, 3, &err);
	assert_non_null(s);
	assert_string_equal(s->vars[2].name, "Z");
	back = pooled_ok(s, g, NULL);
	assert_near(back->gbn->nodes[1].coef[0], f->gbn->nodes[1].coef[0], 0.05);
	assert_near(back->gbn->nodes[2].coef[1], f->gbn->nodes[2].coef[1], 0.05);
	assert_near(back->gbn->nodes[0].sd, f->gbn->nodes[0].sd, 0.05);
	assert_null(fb_bnfit_sample(f, 0, 3, &err));
	fb_bnfit_free(back);
	fb_dataset_free(s);
	fb_bnfit_free(f);
	fb_graph_free(g);
	fb_dataset_free(ds);
}

/* The estimated threshold against a brute-force L1 fit over a fine grid and numpy's
 * quantile(method='inverted_cdf') at its p0: 0 (p0 0.7), 0.3 (p0 0.6), and 0.3 (p0 25/28)
 * for the strengths of 28 pairs. */
static void test_threshold(void **state)
{
	const double a[] = { 0, 0, 0, 0, 0, 0, 0, 0.9, 1, 1 };
	const double b[] = { 0.9, 0.1, 0.8, 0.3, 0.2 };
	double c[28] = { 1.0, 0.95, 0.85, 0.3, 0.1, 0.1, 0.05 };

	(void)state;
	assert_near(fb_boot_threshold(a, 10), 0, 0);
	assert_near(fb_boot_threshold(b, 5), 0.3, 0);
	assert_near(fb_boot_threshold(c, 28), 0.3, 0);
}

/* The bootstrap of pc on 600 Asia rows: the same strengths and consensus for 1 and 3 jobs;
 * every strength and direction share a share; a vertical split refused. */
static void test_bootstrap_jobs(void **state)
{
	char path[512];
	fb_error err = { { 0 } };
	fb_boot_options o;
	fb_split_options so;
	fb_partition *p;
	fb_boot *b1, *b3;
	fb_bn *bn;
	fb_dataset *ds;
	fb_run_spec spec = { .algo = "pc" };

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/bif-asia.bif", top());
	bn = fb_bif_read(path, &err);
	assert_non_null(bn);
	ds = fb_bn_sample(bn, 600, 2, &err);
	spec.data = ds;
	fb_boot_options_init(&o);
	o.resamples = 12;
	o.seed = 5;
	b1 = fb_bootstrap(&spec, &o, &err);
	o.jobs = 3;
	b3 = fb_bootstrap(&spec, &o, &err);
	assert_non_null(b1);
	assert_non_null(b3);
	assert_memory_equal(b1->strength, b3->strength, 64 * sizeof(double));
	assert_memory_equal(b1->direction, b3->direction, 64 * sizeof(double));
	assert_int_equal(fb_graph_n_edges(b1->consensus), fb_graph_n_edges(b3->consensus));
	for (size_t i = 0; i < 64; i++) {
		assert_true(b1->strength[i] >= 0 && b1->strength[i] <= 1);
		if (i / 8 != i % 8 && b1->strength[i] > 0)
			assert_near(b1->direction[i] + b1->direction[(i % 8) * 8 + i / 8], 1, 1e-12);
	}
	fb_split_options_init(&so);
	p = fb_split(ds, FB_SPLIT_VERTICAL, 2, &so, &err);
	spec.part = p;
	assert_null(fb_bootstrap(&spec, &o, &err));
	assert_non_null(strstr(err.msg, "horizontal split"));
	fb_partition_free(p);
	fb_boot_free(b1);
	fb_boot_free(b3);
	fb_dataset_free(ds);
	fb_bn_free(bn);
}

/* cpdag=yes tallies each DAG's equivalence class: notears on a chain X1 -> X2 -> X3 (no
 * v-structure, so the class leaves both edges undirected) keeps the strengths and gives
 * each direction of X1 - X2 half. */
static void test_bootstrap_cpdag(void **state)
{
	fb_dataset *ds = fb_dataset_alloc(300, 3);
	fb_error err = { { 0 } };
	fb_boot_options o;
	fb_boot *plain, *cp;
	fb_run_spec spec = { .algo = "notears" };
	gsl_rng *r = fb_rng_stream(4, "test");

	(void)state;
	for (size_t i = 0; i < 300; i++) {
		double *x = ds->x + 3 * i;

		x[0] = gsl_ran_gaussian(r, 1);
		x[1] = 1.5 * x[0] + gsl_ran_gaussian(r, 1);
		x[2] = -1.2 * x[1] + gsl_ran_gaussian(r, 1);
	}
	gsl_rng_free(r);
	spec.data = ds;
	fb_boot_options_init(&o);
	o.resamples = 4;
	plain = fb_bootstrap(&spec, &o, &err);
	o.cpdag = true;
	cp = fb_bootstrap(&spec, &o, &err);
	assert_non_null(plain);
	assert_non_null(cp);
	assert_memory_equal(plain->strength, cp->strength, 9 * sizeof(double));
	assert_near(cp->strength[1], 1, 0);
	assert_near(cp->direction[1], 0.5, 0);
	assert_near(cp->direction[3], 0.5, 0);
	fb_boot_free(plain);
	fb_boot_free(cp);
	fb_dataset_free(ds);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mle_by_hand),
		cmocka_unit_test(test_bayes_by_hand),
		cmocka_unit_test(test_gauss_numpy),
		cmocka_unit_test(test_gauss_bits),
		cmocka_unit_test(test_vertical),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_asia_round_trip),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_bootstrap_jobs),
		cmocka_unit_test(test_bootstrap_cpdag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
