/* Unit tests of federated circuits: the subspaces of an indicator matrix, the assembled
 * circuit's validity and normalisation over every state of a small discrete case in each
 * split kind, server weights from row counts against a hand computation, the federated
 * log-likelihood against the centralised one bit for bit, EM that never lowers the
 * likelihood (vertical, and hybrid over the shared rows, there bit for bit centralised EM's
 * weights), and the ledger's bytes. */
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
#include "fedbn/fedcircuit.h"

/* A dataset of n rows over d binary variables: X1 a coin, each next one copies the one
 * before with probability 0.8 (so the variables are dependent across any split). */
static fb_dataset *binary_data(size_t n, size_t d, uint64_t seed)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);
	gsl_rng *r = fb_rng_stream(seed, "test");
	char l0[] = "0", l1[] = "1", *lv[2] = { l0, l1 };

	assert_non_null(ds);
	for (size_t j = 0; j < d; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, lv, 2, NULL), FB_OK);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++) {
			double u = gsl_rng_uniform(r);

			ds->x[i * d + j] = j == 0 ? (u < 0.5) : (u < 0.8 ? ds->x[i * d + j - 1]
			                                                 : 1 - ds->x[i * d + j - 1]);
		}
	gsl_rng_free(r);
	return ds;
}

/* Options for small tests: small slices so the clients' circuits have inner nodes. */
static void small_options(fb_fc_options *o)
{
	fb_fc_options_init(o);
	o->learn.min_instances_slice = 20;
	o->learn.leaves = FB_LEARN_PARAMETRIC;
}

/* Run a federated circuit to the end over p with the federation's clients on threads
 * threads; the caller frees both. */
static fb_fc *run_fc_threads(const fb_partition *p, const fb_fc_options *o, size_t threads,
                             fb_federation **fed)
{
	fb_fed_options fo;
	fb_error err;
	fb_fc *fc = fb_fc_alloc(p, o, &err);

	assert_non_null(fc);
	fb_fed_options_init(&fo);
	fo.threads = threads;
	*fed = fb_fed_alloc(p, &fo, &err);
	assert_non_null(*fed);
	while (!fb_fc_done(fc))
		if (fb_fc_step(fc, *fed, &err) != FB_OK)
			fail_msg("%s", err.msg);
	return fc;
}

/* Run a federated circuit to the end over p on one thread. */
static fb_fc *run_fc(const fb_partition *p, const fb_fc_options *o, fb_federation **fed)
{
	return run_fc_threads(p, o, 1, fed);
}

/* The text of a circuit (malloc'd, NUL-terminated). */
static char *circuit_text(const fb_circuit *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	assert_int_equal(fb_circuit_write(c, fp, NULL), FB_OK);
	fclose(fp);
	return buf;
}

/* The clients of p learning on one thread and on threads threads write the same circuit
 * text, byte for byte, of more than min_nodes nodes. */
static void assert_thread_free(const fb_partition *p, const fb_fc_options *o, size_t threads,
                               size_t min_nodes)
{
	fb_federation *f1, *fn;
	fb_fc *a = run_fc_threads(p, o, 1, &f1), *b = run_fc_threads(p, o, threads, &fn);
	char *ta = circuit_text(fb_fc_circuit(a)), *tb = circuit_text(fb_fc_circuit(b));

	assert_true(fb_fc_circuit(a)->nnodes > min_nodes);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	fb_fc_free(a);
	fb_fc_free(b);
	fb_fed_free(f1);
	fb_fed_free(fn);
}

/* Learning on several threads gives the same circuit as on one: a hybrid federation with
 * parametric leaves on three threads, and a horizontal one with the learner's defaults
 * (histogram leaves, RDC column splits, k-means row splits on repeated binary rows) but
 * small slices on two. */
static void test_threads(void **state)
{
	static const struct {
		enum fb_split_kind kind;
		size_t n, d, k, threads, min_slice, min_nodes;
		int parametric;
	} cases[] = { { FB_SPLIT_HYBRID, 300, 6, 3, 3, 20, 10, 1 },
		      { FB_SPLIT_HORIZONTAL, 1200, 8, 4, 2, 40, 40, 0 } };

	(void)state;
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fb_dataset *ds = binary_data(cases[c].n, cases[c].d, 10 + c);
		fb_partition *p = fb_split(ds, cases[c].kind, cases[c].k, NULL, NULL);
		fb_fc_options o;

		fb_fc_options_init(&o);
		o.learn.min_instances_slice = cases[c].min_slice;
		if (cases[c].parametric)
			o.learn.leaves = FB_LEARN_PARAMETRIC;
		assert_thread_free(p, &o, cases[c].threads, cases[c].min_nodes);
		fb_partition_free(p);
		fb_dataset_free(ds);
	}
}

/* Subspaces of a hand-made hybrid indicator matrix. */
static void test_subspaces(void **state)
{
	const unsigned char m[3 * 5] = { 1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1 };
	const unsigned char none[2 * 2] = { 1, 0, 1, 0 };
	fb_fc_subspaces s;
	fb_error err;

	(void)state;
	assert_int_equal(fb_fc_subspaces_build(m, 3, 5, &s, &err), FB_OK);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.of[0], 0);
	assert_int_equal(s.of[1], 0);
	assert_int_equal(s.of[2], 1);
	assert_int_equal(s.of[3], 2);
	assert_int_equal(s.of[4], 3);
	assert_int_equal(s.nowners[0], 2);
	assert_int_equal(s.nowners[1], 1);
	assert_int_equal(s.nvars[0], 2);
	fb_fc_subspaces_release(&s);
	assert_int_equal(fb_fc_subspaces_build(none, 2, 2, &s, &err), FB_ERR);
	assert_string_equal(err.msg, "variable 1 is held by no client");
}

/* log of the total mass of c over every binary state of its d variables. */
static double total_mass(const fb_circuit *c, size_t d)
{
	size_t ns = (size_t)1 << d;
	double *x = malloc(ns * d * sizeof *x), *lp = malloc(ns * sizeof *lp), m = -INFINITY, s = 0;

	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < d; j++)
			x[i * d + j] = (double)((i >> j) & 1);
	assert_int_equal(fb_circuit_logpdf(c, x, ns, lp, NULL), FB_OK);
	for (size_t i = 0; i < ns; i++)
		m = lp[i] > m ? lp[i] : m;
	for (size_t i = 0; i < ns; i++)
		s += exp(lp[i] - m);
	free(x);
	free(lp);
	return m + log(s);
}

/* Whether the nodes of c on a client are over that client's variables only, and the root
 * is on the server. */
static void assert_machines(const fb_circuit *c, const fb_partition *p)
{
	assert_int_equal(c->nodes[fb_circuit_root(c)].machine, FB_CIRCUIT_SERVER);
	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];
		const fb_client *cl;

		if (nd->machine == FB_CIRCUIT_SERVER)
			continue;
		assert_true(nd->machine >= 0 && (size_t)nd->machine < p->k);
		cl = &p->clients[nd->machine];
		for (size_t s = 0; s < nd->nscope; s++) {
			size_t j = 0;

			while (j < cl->data->d && cl->cols[j] != nd->scope[s])
				j++;
			assert_true(j < cl->data->d);
		}
	}
}

/* Each split kind: a valid circuit that sums to 1, machines right, and the federated
 * log-likelihood equal to the centralised one bit for bit. */
static void test_kinds(void **state)
{
	const enum fb_split_kind kinds[3] = { FB_SPLIT_HORIZONTAL, FB_SPLIT_VERTICAL,
	                                      FB_SPLIT_HYBRID };
	fb_dataset *ds = binary_data(400, 6, 3), *test = binary_data(50, 6, 4);

	(void)state;
	for (int t = 0; t < 3; t++) {
		fb_partition *p = fb_split(ds, kinds[t], 3, NULL, NULL);
		fb_federation *fed;
		fb_fc_options o;
		fb_fc *fc;
		double fl[50], cl[50];
		size_t up;

		assert_non_null(p);
		small_options(&o);
		fc = run_fc(p, &o, &fed);
		assert_int_equal(fb_circuit_check(fb_fc_circuit(fc), NULL), FB_OK);
		assert_true(fabs(total_mass(fb_fc_circuit(fc), 6)) < 1e-12);
		assert_machines(fb_fc_circuit(fc), p);
		assert_int_equal(fb_fc_loglik(fc, test->x, 50, fl, &up, NULL), FB_OK);
		assert_int_equal(fb_circuit_logpdf(fb_fc_circuit(fc), test->x, 50, cl, NULL), FB_OK);
		assert_memory_equal(fl, cl, sizeof fl);
		assert_true(up > 0 && up % (50 * 8) == 0);
		fb_fc_free(fc);
		fb_fed_free(fed);
		fb_partition_free(p);
	}
	fb_dataset_free(ds);
	fb_dataset_free(test);
}

/* ds split horizontally over clients of the given row counts ("30,50,20"). */
static fb_partition *horizontal_sizes(const fb_dataset *ds, const char *list)
{
	fb_split_options so;
	fb_partition *p;

	fb_split_options_init(&so);
	so.sizes = FB_SIZES_LIST;
	so.size_list = list;
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, 3, &so, NULL);
	assert_non_null(p);
	return p;
}

/* Horizontal: the root is a sum whose weights are the clients' row shares; the circuits
 * learned on at most min_instances_slice rows are counted. */
static void test_horizontal_weights(void **state)
{
	fb_dataset *ds = binary_data(100, 4, 5);
	fb_partition *p = horizontal_sizes(ds, "30,50,20");
	fb_federation *fed, *fed2;
	fb_fc_small sm;
	fb_fc_options o;
	fb_fc *fc;
	const fb_circuit_node *root;

	(void)state;
	small_options(&o);
	fc = run_fc(p, &o, &fed);
	root = &fb_fc_circuit(fc)->nodes[fb_circuit_root(fb_fc_circuit(fc))];
	assert_int_equal(root->kind, FB_NODE_SUM);
	assert_int_equal(root->nchildren, 3);
	assert_true(root->weights[0] == 0.3 && root->weights[1] == 0.5 &&
	            root->weights[2] == 0.2);
	/* round 1: each client sends 4 bytes per variable it holds */
	assert_int_equal(fb_ledger_bytes(fb_fed_ledger(fed), 1, FB_UP), 3 * 4 * 4);
	/* the third client's 20 rows are at most min_instances_slice = 20: factorised whole */
	fb_fc_small_circuits(fc, &sm);
	assert_true(sm.multi == 3 && sm.small == 1 && sm.lo == 20 && sm.hi == 20);
	fb_fc_free(fc);
	o.learn.min_instances_slice = 50; /* 30 and 50 too, 20 to 50 rows */
	fc = run_fc(p, &o, &fed2);
	fb_fc_small_circuits(fc, &sm);
	assert_true(sm.multi == 3 && sm.small == 3 && sm.lo == 20 && sm.hi == 50);
	fb_fed_free(fed2);
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* The cluster sizes client k's k-means gives its rows over its columns (as the client
 * computes them), into size[K]. */
static void cluster_sizes(const fb_partition *p, size_t k, size_t K, uint64_t seed,
                          size_t *size)
{
	const fb_dataset *d = p->clients[k].data;
	size_t *label = malloc(d->n * sizeof *label);
	char name[48];
	gsl_rng *r;

	snprintf(name, sizeof name, "fedcircuit-kmeans-%zu", k);
	r = fb_rng_stream(seed, name);
	assert_int_equal(fb_kmeans(d->x, d->n, d->d, K, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r,
	                           label, NULL, NULL), FB_OK);
	memset(size, 0, K * sizeof *size);
	for (size_t i = 0; i < d->n; i++)
		size[label[i]]++;
	gsl_rng_free(r);
	free(label);
}

/* Horizontal with cluster_shared, K = 2: the root sums the clients' cluster circuits,
 * client by client, each weighted by its cluster's rows over all rows. */
static void test_horizontal_cluster_shared(void **state)
{
	fb_dataset *ds = binary_data(200, 4, 7);
	fb_partition *p = horizontal_sizes(ds, "60,100,40");
	size_t size[2];
	const fb_circuit_node *root;
	fb_fc_options o;
	fb_federation *fed;
	fb_fc *fc;

	(void)state;
	small_options(&o);
	o.cluster_shared = true;
	fc = run_fc(p, &o, &fed);
	root = fb_fc_circuit(fc)->nodes + fb_circuit_root(fb_fc_circuit(fc));
	assert_true(root->kind == FB_NODE_SUM && root->nchildren == 6);
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(fb_fc_client_circuits(fc, k), 2);
		cluster_sizes(p, k, 2, o.seed, size);
		for (size_t c = 0; c < 2; c++)
			assert_true(fabs(root->weights[2 * k + c] - (double)size[c] / 200.0) < 1e-15);
	}
	assert_int_equal(fb_circuit_check(fb_fc_circuit(fc), NULL), FB_OK);
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Vertical, two clients, K = 2: four products (a, b), weight (n1a + n2b) / sum. */
static void test_vertical_weights(void **state)
{
	fb_dataset *ds = binary_data(300, 4, 6);
	fb_partition *p = fb_split(ds, FB_SPLIT_VERTICAL, 2, NULL, NULL);
	fb_federation *fed;
	fb_fc_options o;
	fb_fc *fc;
	size_t n1[2], n2[2];
	const fb_circuit *c;
	const fb_circuit_node *root;

	(void)state;
	small_options(&o);
	fc = run_fc(p, &o, &fed);
	c = fb_fc_circuit(fc);
	root = &c->nodes[fb_circuit_root(c)];
	cluster_sizes(p, 0, 2, o.seed, n1);
	cluster_sizes(p, 1, 2, o.seed, n2);
	assert_int_equal(root->nchildren, 4);
	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 2; b++) {
			double want = (double)(n1[a] + n2[b]) / (2.0 * 300 + 2.0 * 300);

			assert_true(fabs(root->weights[a + 2 * b] - want) < 1e-15);
			assert_int_equal(c->nodes[root->children[a + 2 * b]].kind, FB_NODE_PRODUCT);
		}
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Mean log-likelihood of the rows of ds under c. */
static double mean_loglik(const fb_circuit *c, const fb_dataset *ds)
{
	double *lp = malloc(ds->n * sizeof *lp), m = 0;

	assert_int_equal(fb_circuit_logpdf(c, ds->x, ds->n, lp, NULL), FB_OK);
	for (size_t i = 0; i < ds->n; i++)
		m += lp[i] / (double)ds->n;
	free(lp);
	return m;
}

/* EM on a vertical split: the training log-likelihood never falls, it equals the
 * centralised evaluation, and only the first EM round carries values. */
static void test_em(void **state)
{
	fb_dataset *ds = binary_data(300, 6, 7);
	fb_partition *p = fb_split(ds, FB_SPLIT_VERTICAL, 2, NULL, NULL);
	fb_fed_options fo;
	fb_federation *fed;
	fb_fc_options o;
	fb_fc *fc;
	double prev = -INFINITY, first = 0;
	fb_error err;

	(void)state;
	small_options(&o);
	o.clusters = 3;
	o.em_iters = 6;
	fc = fb_fc_alloc(p, &o, &err);
	fb_fed_options_init(&fo);
	fed = fb_fed_alloc(p, &fo, &err);
	while (!fb_fc_done(fc)) {
		int em = fb_fc_phase(fc) == FB_FC_EM;

		if (em && prev == -INFINITY)
			prev = first = mean_loglik(fb_fc_circuit(fc), ds);
		assert_int_equal(fb_fc_step(fc, fed, &err), FB_OK);
		if (!em)
			continue;
		assert_true(fb_fc_em_loglik(fc) >= prev - 1e-12);
		if (prev == first) {
			/* each client sends 3 circuits' values on 300 rows */
			assert_int_equal(fb_ledger_bytes(fb_fed_ledger(fed), fb_fed_rounds(fed), FB_UP),
			                 2 * 3 * 300 * 8);
		} else {
			assert_int_equal(fb_ledger_bytes(fb_fed_ledger(fed), fb_fed_rounds(fed), FB_UP),
			                 0);
		}
		prev = fb_fc_em_loglik(fc);
	}
	assert_true(fabs(mean_loglik(fb_fc_circuit(fc), ds) - prev) < 1e-9);
	/* the dependence across the two clients is there to be found */
	assert_true(prev > first + 0.01);
	assert_true(fabs(total_mass(fb_fc_circuit(fc), 6)) < 1e-12);
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* EM needs every client to hold every row. */
static void test_em_refused(void **state)
{
	fb_dataset *ds = binary_data(60, 4, 8);
	fb_partition *p = fb_split(ds, FB_SPLIT_HORIZONTAL, 3, NULL, NULL);
	fb_fc_options o;
	fb_error err;

	(void)state;
	fb_fc_options_init(&o);
	o.em_iters = 2;
	assert_null(fb_fc_alloc(p, &o, &err));
	assert_string_equal(err.msg, "EM needs every client to hold the same rows (a vertical "
	                             "split); clients 1 and 2 hold 20 and 20 rows, not all the "
	                             "same");
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* A copy of c through its text (weights written to 17 digits read back to the same bits). */
static fb_circuit *circuit_copy(const fb_circuit *c)
{
	char *t = circuit_text(c);
	FILE *fp = fmemopen(t, strlen(t), "r");
	fb_circuit *out = NULL;

	assert_non_null(fp);
	assert_int_equal(fb_circuit_read(fp, "copy", &out, NULL), FB_OK);
	fclose(fp);
	free(t);
	return out;
}

/* The ids of the rows every client of p holds (each once, ascending) into ids; their
 * number. */
static size_t rows_all_hold(const fb_partition *p, size_t *ids)
{
	size_t m = 0;

	for (size_t r = 0; r < p->n; r++) {
		size_t c = 0;

		while (c < p->k) {
			const fb_client *cl = &p->clients[c];
			size_t i = 0;

			while (i < cl->data->n && cl->rows[i] != r)
				i++;
			if (i == cl->data->n)
				break;
			c++;
		}
		if (c == p->k)
			ids[m++] = r;
	}
	return m;
}

/* Centralised EM on c: iters steps on the server's weights over the n rows x, every node
 * evaluated in one place (clients' machines, then the server's); the rows' mean
 * log-likelihood after the last. */
static double central_em(fb_circuit *c, const double *x, size_t n, size_t k, size_t iters)
{
	double *val = malloc(c->nnodes * n * sizeof *val), m = 0;

	for (size_t it = 0; it <= iters; it++) {
		for (int mc = 0; mc < (int)k; mc++)
			assert_int_equal(fb_circuit_eval_machine(c, x, n, mc, val, NULL), FB_OK);
		assert_int_equal(fb_circuit_eval_machine(c, x, n, FB_CIRCUIT_SERVER, val, NULL),
		                 FB_OK);
		if (it < iters)
			assert_int_equal(fb_circuit_em_step(c, val, n, FB_CIRCUIT_SERVER, NULL), FB_OK);
	}
	for (size_t r = 0; r < n; r++)
		m += val[fb_circuit_root(c) * n + r];
	free(val);
	return m / (double)n;
}

/* Run fc to the end; EM rounds must not lower the shared rows' likelihood and only the
 * first carries values: 8 bytes per circuit and shared row, nothing down. */
static void run_em_checked(fb_fc *fc, fb_federation *fed, const fb_partition *p,
                           size_t nshared)
{
	double prev = -INFINITY;
	size_t circ = 0, rounds = 0;
	fb_error err;

	while (!fb_fc_done(fc)) {
		int em = fb_fc_phase(fc) == FB_FC_EM;
		size_t up, down;

		assert_int_equal(fb_fc_step(fc, fed, &err), FB_OK);
		if (!em)
			continue;
		for (size_t c = 0; rounds == 0 && c < p->k; c++)
			circ += fb_fc_client_circuits(fc, c);
		up = fb_ledger_bytes(fb_fed_ledger(fed), fb_fed_rounds(fed), FB_UP);
		down = fb_ledger_bytes(fb_fed_ledger(fed), fb_fed_rounds(fed), FB_DOWN);
		assert_int_equal(up, rounds++ == 0 ? circ * nshared * 8 : 0);
		assert_int_equal(down, 0);
		assert_true(fb_fc_em_loglik(fc) >= prev);
		prev = fb_fc_em_loglik(fc);
	}
	assert_true(rounds > 0);
}

/* EM on a hybrid split (rows cut, and drawn with replacement): over the rows every client
 * holds it never lowers their likelihood, the ledger holds exactly the clients' values on
 * those rows, and the weights are, bit for bit, centralised EM's on the one-pass circuit
 * over the same rows. */
static void test_em_hybrid(void **state)
{
	fb_dataset *ds = binary_data(300, 6, 11);

	(void)state;
	for (int draw = FB_DRAW_CUT; draw <= FB_DRAW_REPLACE; draw++) {
		fb_split_options so;
		fb_partition *p;
		fb_federation *f0, *fed;
		fb_fc_options o;
		fb_fc *one, *fc;
		fb_circuit *c;
		size_t *ids = malloc(ds->n * sizeof *ids), n;
		double *x, ll, ll0;
		fb_fed_options fo;
		char *ta, *tb;
		fb_error err;

		fb_split_options_init(&so);
		so.draw = (enum fb_split_draw)draw;
		p = fb_split(ds, FB_SPLIT_HYBRID, 2, &so, NULL);
		assert_non_null(p);
		n = rows_all_hold(p, ids);
		assert_true(n >= 60);
		x = malloc(n * ds->d * sizeof *x);
		for (size_t r = 0; r < n; r++)
			memcpy(x + r * ds->d, ds->x + ids[r] * ds->d, ds->d * sizeof *x);
		small_options(&o);
		one = run_fc(p, &o, &f0);
		c = circuit_copy(fb_fc_circuit(one));
		o.em_iters = 4;
		fc = fb_fc_alloc(p, &o, &err);
		assert_non_null(fc);
		fb_fed_options_init(&fo);
		fed = fb_fed_alloc(p, &fo, &err);
		assert_non_null(fed);
		run_em_checked(fc, fed, p, n);
		ll0 = central_em(c, x, n, p->k, 0);
		ll = central_em(c, x, n, p->k, 4);
		assert_true(ll == fb_fc_em_loglik(fc));
		ta = circuit_text(c);
		tb = circuit_text(fb_fc_circuit(fc));
		assert_string_equal(ta, tb);
		/* the dependence across the two clients is there to be found */
		assert_true(ll > ll0 + 0.01);
		free(ta);
		free(tb);
		fb_circuit_free(c);
		fb_fc_free(one);
		fb_fc_free(fc);
		fb_fed_free(f0);
		fb_fed_free(fed);
		fb_partition_free(p);
		free(ids);
		free(x);
	}
	fb_dataset_free(ds);
}

/* EM on a hybrid split without rows every client holds is refused. */
static void test_em_hybrid_refused(void **state)
{
	fb_dataset *ds = binary_data(60, 4, 8);
	fb_split_options so;
	fb_partition *p;
	fb_fc_options o;
	fb_error err;

	(void)state;
	fb_split_options_init(&so);
	so.shared = 0;
	p = fb_split(ds, FB_SPLIT_HYBRID, 2, &so, NULL);
	fb_fc_options_init(&o);
	o.em_iters = 2;
	assert_null(fb_fc_alloc(p, &o, &err));
	assert_string_equal(err.msg, "EM on a hybrid split runs on the rows every client holds, "
	                             "and no row is held by all 2 clients: split with shared= "
	                             "above 0");
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* The cost formulas against hand values. */
static void test_costs(void **state)
{
	fb_fc_cost_model m;

	(void)state;
	fb_fc_cost_model_init(&m);
	assert_true(fb_fc_cost_fedavg(&m, 50, 5) == 8.0 * 50 * 5 * 100);
	assert_true(fb_fc_cost_splitnn(&m, 2, 398) == 8.0 * 10 * 2 * 100 * 398);
}

/* A fedcircuit run on data with held-out rows: its report's log-likelihoods, evaluated the
 * federated way, are those of the assembled circuit evaluated in one place, bit for bit. */
static void test_run_report(void **state)
{
	fb_dataset *ds = binary_data(300, 5, 9);
	fb_partition *p;
	fb_params prm;
	fb_fed_options fo;
	fb_circuit_report rep;
	fb_loglik ll[FB_NPARTS] = { { 0, 0, 0 } };
	fb_error err;
	fb_run *run;

	(void)state;
	assert_int_equal(fb_dataset_hold_out(ds, 0.2, 0.1, 3, &err), FB_OK);
	p = fb_split(ds, FB_SPLIT_HYBRID, 2, NULL, &err);
	assert_non_null(p);
	prm = fb_params_defaults(fb_algo_params(&fb_algo_fedcircuit, NULL));
	assert_int_equal(fb_params_set_word(&prm, "min_instances_slice=30", "t", &err), FB_OK);
	fb_fed_options_init(&fo);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "fedcircuit", .params = &prm, .fedopt = &fo,
	                                   .data = ds, .part = p },
	                   &err);
	assert_non_null(run);
	while (!fb_run_done(run))
		assert_int_equal(fb_run_step(run, &err), FB_OK);
	assert_int_equal(fb_run_circuit_report(run, &rep, &err), FB_OK);
	assert_int_equal(fb_circuit_loglik_add(fb_run_circuit(run, &err), ds, ll, &err), FB_OK);
	for (int k = 0; k < FB_NPARTS; k++) {
		assert_int_equal(rep.ll[k].n, ll[k].n);
		assert_true(rep.ll[k].n > 0);
		assert_memory_equal(&rep.ll[k].sum, &ll[k].sum, sizeof ll[k].sum);
	}
	assert_null(fb_run_result(run, &err));
	fb_run_free(run);
	fb_params_release(&prm);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* fedcircuit on unshuffled horizontal and on vertical splits of data with held-out rows:
 * the sites evaluate every part in a last round, whose log values the ledger counts, and
 * the log-likelihoods are those of the assembled circuit evaluated in one place, bit for
 * bit. */
static void test_sites_evaluate(void **state)
{
	static const enum fb_split_kind kinds[] = { FB_SPLIT_HORIZONTAL, FB_SPLIT_VERTICAL };
	fb_dataset *ds = binary_data(300, 5, 9);
	fb_error err;

	(void)state;
	assert_int_equal(fb_dataset_hold_out(ds, 0.2, 0.1, 3, &err), FB_OK);
	for (size_t i = 0; i < 2; i++) {
		fb_split_options so;
		fb_partition *p;
		fb_params prm = fb_params_defaults(fb_algo_params(&fb_algo_fedcircuit, NULL));
		fb_circuit_report rep;
		fb_loglik ll[FB_NPARTS] = { { 0, 0, 0 } };
		fb_run *run;
		size_t last, k = kinds[i] == FB_SPLIT_VERTICAL ? 2 : 3;

		fb_split_options_init(&so);
		so.shuffle = 0;
		p = fb_split(ds, kinds[i], k, &so, &err);
		assert_non_null(p);
		assert_int_equal(fb_params_set_word(&prm, "min_instances_slice=30", "t", &err), FB_OK);
		run = fb_run_alloc(&(fb_run_spec){ .algo = "fedcircuit", .params = &prm, .data = ds,
		                                   .part = p },
		                   &err);
		assert_non_null(run);
		while (!fb_run_done(run))
			assert_int_equal(fb_run_step(run, &err), FB_OK);
		assert_int_equal(fb_run_rounds(run), 4);
		assert_int_equal(fb_run_circuit_report(run, &rep, &err), FB_OK);
		assert_int_equal(fb_circuit_loglik_add(fb_run_circuit(run, &err), ds, ll, &err), FB_OK);
		for (int q = 0; q < FB_NPARTS; q++) {
			assert_true(rep.ll[q].n > 0);
			assert_memory_equal(&rep.ll[q], &ll[q], sizeof ll[q]);
		}
		/* up: per client 3 counts and 8 bytes per value (vertical: one per circuit and
		 * row; horizontal: one per row) */
		last = fb_ledger_bytes(fb_fed_ledger(run->fed), 4, FB_UP);
		if (kinds[i] == FB_SPLIT_HORIZONTAL)
			assert_int_equal(last, 8 * (3 * k + ds->n));
		else
			assert_int_equal(last, 8 * (3 * k + ds->n * fb_fc_client_circuits(
			                                                    fb_fc_of_run(run), 0) +
			                            ds->n * fb_fc_client_circuits(fb_fc_of_run(run), 1)));
		fb_run_free(run);
		fb_params_release(&prm);
		fb_partition_free(p);
	}
	fb_dataset_free(ds);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subspaces),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_horizontal_weights),
		cmocka_unit_test(test_horizontal_cluster_shared),
		cmocka_unit_test(test_vertical_weights),
		cmocka_unit_test(test_em),
		cmocka_unit_test(test_em_refused),
		cmocka_unit_test(test_em_hybrid),
		cmocka_unit_test(test_em_hybrid_refused),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_run_report),
		cmocka_unit_test(test_sites_evaluate),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
