/* Unit tests of fedfci: on one client it gives fci's PAG (compat=none) on the columns in
 * the order of their names, mark by mark, on stored bnlearn networks and a confounded
 * continuous file; over three clients it finds the bidirected edge of two variables that a
 * hidden cause joins; bad parameters and malformed messages are refused in a sentence;
 * fedfci-pooled gives all:fci's PAG mark by mark (compat=causal-learn too). */
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

#include "fedbn/algo.h"
#include "fedbn/csv.h"
#include "fedbn/fci.h"
#include "fedbn/pag.h"
#include "test-slurp.h"
#include "../../src/lib/algo/fci/fedfci-int.h"

/* The data file top_srcdir/rel (discrete or continuous); NULL when absent. */
static fb_dataset *load(const char *rel, bool discrete)
{
	const char *top = getenv("top_srcdir");
	char path[4096], *buf;
	size_t len = 0;
	fb_csv_options co;
	fb_error err = { "" };
	fb_dataset *ds;

	snprintf(path, sizeof path, "%s/%s", top != NULL ? top : ".", rel);
	if ((buf = slurp(path, &len)) == NULL)
		return NULL;
	fb_csv_options_init(&co);
	if (discrete)
		co.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read_buffer(buf, len, path, &co, NULL, &err);
	free(buf);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	return ds;
}

/* Run the algorithm name with the words (NULL: defaults) on ds cut into k clients, to its
 * end; its PAG (caller frees), or NULL with the reason in err. */
static fb_pag *run_pag(const char *name, const fb_dataset *ds, size_t k, const char *words,
                       fb_error *err)
{
	fb_split_options so;
	fb_partition *part;
	fb_params params;
	fb_run *run;
	fb_pag *p = NULL;
	const fb_algo *algo, *inner;
	char buf[256], *save = NULL;

	fb_split_options_init(&so);
	part = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &so, err);
	assert_non_null(part);
	assert_int_equal(fb_algo_lookup(name, &algo, &inner, err), FB_OK);
	assert_int_equal(fb_params_init(&params, fb_algo_params(algo, inner), err), FB_OK);
	snprintf(buf, sizeof buf, "%s", words != NULL ? words : "");
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (fb_params_set_word(&params, w, name, err) != FB_OK)
			goto out;
	run = fb_run_alloc(&(fb_run_spec){ .algo = name, .params = &params, .data = ds,
	                                   .part = part }, err);
	while (run != NULL && !fb_run_done(run))
		if (fb_run_step(run, err) != FB_OK)
			break;
	if (run != NULL && fb_run_done(run))
		p = fb_run_pag(run, err);
	fb_run_free(run);
out:
	fb_params_release(&params);
	fb_partition_free(part);
	return p;
}

/* fedfci with the words on ds cut into k clients (run_pag). */
static fb_pag *fedfci(const fb_dataset *ds, size_t k, const char *words, fb_error *err)
{
	return run_pag("fedfci", ds, k, words, err);
}

/* fci (compat=none, alpha 0.05, the test given) on ds's columns in name order, mapped back
 * to ds's order (caller frees). */
static fb_pag *fci_by_names(const fb_dataset *ds, enum fb_ci_test test)
{
	fb_dataset *ranked = fedpc_rank_dataset(ds);
	size_t d = ds->d, *col = fb_xmalloc(d * sizeof *col);
	fb_fci_options o;
	fb_error err = { "" };
	fb_pag *r, *p = fb_pag_alloc(d);

	fedpc_ranks(ds, col);
	fb_fci_options_init(&o);
	o.pc.ci.test = test;
	r = fb_fci_run(ranked, &o, NULL, &err);
	if (r == NULL)
		fail_msg("%s", err.msg);
	for (size_t a = 0; a < d; a++)
		for (size_t b = a + 1; b < d; b++)
			if (fb_pag_adjacent(r, a, b))
				fb_pag_set(p, col[a], col[b], fb_pag_mark(r, b, a), fb_pag_mark(r, a, b));
	fb_pag_free(r);
	fb_dataset_free(ranked);
	free(col);
	return p;
}

/* One client: fedfci's PAG is fci's on the columns in name order, mark by mark. */
static void check_one_client(const char *rel, enum fb_ci_test test)
{
	fb_dataset *ds = load(rel, test != FB_CI_FISHER_Z);
	fb_error err = { "" };
	fb_pag *got, *want;
	size_t bad = 0;

	if (ds == NULL) {
		printf("skipped: %s is absent\n", rel);
		skip();
	}
	got = fedfci(ds, 1, test == FB_CI_FISHER_Z ? "test=fisher-z" : "test=chi2", &err);
	if (got == NULL)
		fail_msg("%s: %s", rel, err.msg);
	want = fci_by_names(ds, test);
	for (size_t i = 0; i < ds->d * ds->d; i++)
		bad += got->mark[i] != want->mark[i];
	printf("%s: %zu edges (%zu bidirected, %zu with a circle), %zu marks differ from fci's\n",
	       rel, fb_pag_n_edges(got), fb_pag_n_bidirected(got), fb_pag_n_circles(got), bad);
	assert_int_equal(bad, 0);
	assert_true(fb_pag_n_edges(got) > 0);
	fb_pag_free(got);
	fb_pag_free(want);
	fb_dataset_free(ds);
}

/* One client on the stored networks and the confounded file. */
static void test_one_client(void **state)
{
	(void)state;
	check_one_client("tests/data/causal-learn/child.csv.gz", FB_CI_CHI2);
	check_one_client("tests/data/causal-learn/insurance.csv.gz", FB_CI_CHI2);
	check_one_client("tests/data/fci/confounded.csv.gz", FB_CI_FISHER_Z);
}

/* A -> X <- H -> Y <- B with H hidden, linear Gaussian, n rows: columns A, X, Y, B. */
static fb_dataset *confounded(size_t n)
{
	static const char *const names[4] = { "A", "X", "Y", "B" };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	fb_dataset *ds = fb_dataset_alloc(n, 4);

	gsl_rng_set(r, 7);
	for (size_t t = 0; t < n; t++) {
		double a = gsl_ran_gaussian(r, 1), b = gsl_ran_gaussian(r, 1);
		double h = gsl_ran_gaussian(r, 1);
		double *row = ds->x + t * 4;

		row[0] = a;
		row[1] = 0.8 * a + 0.8 * h + gsl_ran_gaussian(r, 1);
		row[2] = 0.8 * b + 0.8 * h + gsl_ran_gaussian(r, 1);
		row[3] = b;
	}
	for (size_t j = 0; j < 4; j++)
		assert_int_equal(fb_dataset_set_name(ds, j, names[j], NULL), FB_OK);
	gsl_rng_free(r);
	return ds;
}

/* Three clients: A o-> X <-> Y <-o B. */
static void test_hidden(void **state)
{
	fb_dataset *ds = confounded(6000);
	fb_error err = { "" };
	fb_pag *p = fedfci(ds, 3, NULL, &err);

	(void)state;
	if (p == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(fb_pag_n_edges(p), 3);
	assert_int_equal(fb_pag_mark(p, 1, 2), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(p, 2, 1), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(p, 0, 1), FB_PAG_ARROW);
	assert_int_equal(fb_pag_mark(p, 3, 2), FB_PAG_ARROW);
	assert_int_equal(fb_pag_n_bidirected(p), 1);
	fb_pag_free(p);
	fb_dataset_free(ds);
}

/* Bad input: a sentence each. */
static void test_errors(void **state)
{
	fb_dataset *ds = confounded(200);
	fb_error err = { "" };
	fb_msg down = { 0 }, up = { 0 };
	fedfci_state st = { 0 };
	double fig;

	(void)state;
	assert_null(fedfci(ds, 2, "alpha=1", &err));
	assert_non_null(strstr(err.msg, "alpha must lie strictly between 0 and 1"));
	assert_null(strchr(err.msg, '\n'));

	fedpc_common_init(&st.c, &(fb_run){ .data = ds });
	st.ci = fb_xcalloc(1, sizeof *st.ci);
	st.opt.alpha = 0.05;
	fb_ci_options_init(&st.opt.ci);
	fb_msg_doubles(&down, 1)[0] = -2.0;
	memcpy(fb_msg_bytes(&down, 6), "\x01\0\0\0\x09\x01", 6);
	assert_int_equal(fedfci_client(&st, 0, ds, &down, &up, &fig, &err), FB_ERR);
	assert_string_equal(err.msg, "the tests message is malformed");
	fb_msg_doubles(&down, 1)[0] = -1.0;
	assert_int_equal(fedfci_client(&st, 0, ds, &down, &up, &fig, &err), FB_ERR);
	assert_string_equal(err.msg, "the PAG message is malformed");
	fb_ci_free(st.ci[0]);
	free(st.ci);
	fedpc_common_release(&st.c);
	fb_msg_release(&down);
	fb_msg_release(&up);
	fb_dataset_free(ds);
}

/* fedfci-pooled over k clients gives all:fci's PAG (fci on every row), mark by mark. */
static void check_pooled(const char *rel, size_t k, const char *test)
{
	fb_dataset *ds = load(rel, true);
	fb_error err = { "" };
	fb_fci_options o;
	fb_pag *got, *want;
	size_t bad = 0;

	if (ds == NULL) {
		printf("skipped: %s is absent\n", rel);
		skip();
	}
	got = run_pag("fedfci-pooled", ds, k, test, &err);
	if (got == NULL)
		fail_msg("%s: %s", rel, err.msg);
	fb_fci_options_init(&o);
	o.pc.ci.test = strstr(test, "test=chi2") != NULL ? FB_CI_CHI2 : FB_CI_G2;
	if (strstr(test, "compat=causal-learn") != NULL)
		o.pc.compat = FB_PC_COMPAT_CAUSAL_LEARN;
	want = fb_fci_run(ds, &o, NULL, &err);
	assert_non_null(want);
	for (size_t i = 0; i < ds->d * ds->d; i++)
		bad += got->mark[i] != want->mark[i];
	printf("%s over %zu clients (%s): %zu edges (%zu bidirected), %zu marks differ from "
	       "all:fci's\n", rel, k, test, fb_pag_n_edges(got), fb_pag_n_bidirected(got), bad);
	assert_int_equal(bad, 0);
	assert_true(fb_pag_n_edges(got) > 0);
	fb_pag_free(got);
	fb_pag_free(want);
	fb_dataset_free(ds);
}

/* The pooled variant on stored networks; continuous data refused in a sentence. */
static void test_pooled(void **state)
{
	fb_dataset *ds = confounded(100);
	fb_error err = { "" };

	(void)state;
	check_pooled("tests/data/causal-learn/child.csv.gz", 4, "test=g2");
	check_pooled("tests/data/causal-learn/child.csv.gz", 7, "test=chi2");
	check_pooled("tests/data/causal-learn/survey.csv.gz", 3, "test=g2");
	check_pooled("tests/data/causal-learn/child.csv.gz", 5, "test=chi2 compat=causal-learn");
	assert_null(run_pag("fedfci-pooled", ds, 2, NULL, &err));
	assert_true(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
	printf("continuous data: %s\n", err.msg);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_client),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_pooled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
