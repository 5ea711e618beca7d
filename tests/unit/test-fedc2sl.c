/* Unit tests of fedc2sl: a pooled table answers as the test on the pooled rows (to the last
 * bits); fedc2sl's CPDAG is all:pc's with the same test exactly, on every shared discrete
 * file (skipped with a message when the shared data is absent) and on generated discrete
 * data, over several client counts, with secure=yes too; a client's tables are its rows'
 * counts on every path; dropout leaves tables out and says so; what it cannot take is
 * refused in one sentence. */
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
#include <unistd.h>

#include "fedbn/algo.h"
#include "fedbn/bif.h"
#include "fedbn/ci.h"
#include "fedbn/csv.h"
#include "fedbn/knowledge.h"
#include "fedbn/secagg.h"
#include "fedbn/sim.h"
#include "../../src/lib/algo/pc/fedc2sl-int.h"

/* Discrete data: d variables of 3 levels from the simulator (ER, 1.5 d edges). */
static fb_dataset *sim_discrete(size_t d, size_t n, uint64_t seed, size_t levels)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *t;

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = d + d / 2;
	so.n = n;
	so.seed = seed;
	so.discrete = d;
	so.levels = levels;
	assert_int_equal(fb_sim_generate(&so, &ds, &t, NULL), FB_OK);
	fb_graph_free(t);
	return ds;
}

/* A horizontal split of ds over k clients. */
static fb_partition *split_k(const fb_dataset *ds, size_t k, uint64_t seed)
{
	fb_split_options o;
	fb_partition *part;

	fb_split_options_init(&o);
	o.seed = seed;
	part = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &o, NULL);
	assert_non_null(part);
	return part;
}

/* Background knowledge for the runs (NULL: none). */
static const fb_knowledge *knowledge;

/* Run algo with words ("k=v k=v", may be NULL) on ds (split part, or NULL) to its end, under
 * the knowledge; its graph. */
static fb_graph *run_to_end(const char *algo, const char *words, const fb_dataset *ds,
                            const fb_partition *part, const fb_fed_options *fo)
{
	fb_error err = { "" };
	fb_params p;
	const fb_algo *a, *inner;
	fb_run_spec spec = { .algo = algo, .data = ds, .part = part, .fedopt = fo,
	                     .knowledge = knowledge };
	fb_run *run;
	fb_graph *g;
	char buf[256], *w, *save = NULL;

	assert_int_equal(fb_algo_lookup(algo, &a, &inner, &err), FB_OK);
	assert_int_equal(fb_params_init(&p, fb_algo_params(a, inner), &err), FB_OK);
	snprintf(buf, sizeof buf, "%s", words != NULL ? words : "");
	for (w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (fb_params_set_word(&p, w, algo, &err) != FB_OK)
			fail_msg("%s", err.msg);
	spec.params = &p;
	if ((run = fb_run_alloc(&spec, &err)) == NULL)
		fail_msg("%s: %s", algo, err.msg);
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK)
			fail_msg("%s: %s", algo, err.msg);
	g = fb_run_result(run, &err);
	assert_non_null(g);
	fb_run_free(run);
	fb_params_release(&p);
	return g;
}

/* Whether a and b have the same marks on every pair. */
static bool same_marks(const fb_graph *a, const fb_graph *b)
{
	if (a->d != b->d)
		return false;
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = 0; j < a->d; j++)
			if (fb_graph_edge(a, i, j) != fb_graph_edge(b, i, j))
				return false;
	return true;
}

/* fedc2sl over k clients (secure or not) against all:pc with the same words. */
static void check_equal(const char *label, const fb_dataset *ds, size_t k, const char *words,
                        bool secure)
{
	fb_partition *part = split_k(ds, k, 7);
	fb_fed_options fo;
	fb_graph *ref, *g;

	fb_fed_options_init(&fo);
	fo.secure = secure;
	ref = run_to_end("all:pc", words, ds, part, NULL);
	g = run_to_end("fedc2sl", words, ds, part, &fo);
	printf("%s, K = %zu, %s%s: %zu edges, %s\n", label, k, words, secure ? ", secure" : "",
	       fb_graph_n_edges(g), same_marks(g, ref) ? "all:pc's CPDAG" : "DIFFERENT");
	assert_true(same_marks(g, ref));
	fb_graph_free(ref);
	fb_graph_free(g);
	fb_partition_free(part);
}

/* A pooled table answers as the test on the rows: the statistic to 1e-12 relative, the
 * degrees of freedom and the flags the same, over random queries of both tests and every
 * df convention. */
static void test_pooled_answer(void **state)
{
	fb_dataset *ds = sim_discrete(6, 700, 3, 3);
	size_t nlev[6], S[3];
	double *tab = fb_xcalloc(3 * 3 * 27, sizeof *tab), *marg = fb_xcalloc(18, sizeof *marg);

	(void)state;
	for (size_t j = 0; j < 6; j++)
		nlev[j] = ds->vars[j].nlevels;
	for (size_t i = 0; i < ds->n; i++)
		for (size_t j = 0; j < 6; j++)
			marg[j * 3 + (size_t)ds->x[i * 6 + j]] += 1.0;
	for (int t = 0; t < 6; t++) {
		fb_ci_options o;
		fb_ci *rows, *pool;
		fb_error err;

		fb_ci_options_init(&o);
		o.test = t % 2 ? FB_CI_CHI2 : FB_CI_G2;
		o.df = (enum fb_ci_df)(t / 2);
		o.zero_df = FB_CI_ZERO_DF_DEPENDENT;
		rows = fb_ci_alloc(ds, &o, &err);
		pool = fb_ci_alloc_pooled(6, nlev, &o, &err);
		assert_non_null(rows);
		assert_non_null(pool);
		assert_int_equal(fb_ci_pooled_margins(pool, marg, &err), FB_OK);
		for (size_t q = 0; q < 40; q++) {
			size_t x = q % 5, y = 5, ns = q % 4;
			fb_ci_result a, b;

			for (size_t v = 0, u = 0; v < ns; u++)
				if (u != x && u != y)
					S[v++] = u;
			memset(tab, 0, 3 * 3 * 27 * sizeof *tab);
			for (size_t i = 0; i < ds->n; i++) {
				const double *r = ds->x + i * 6;
				size_t s = 0;

				for (size_t v = 0; v < ns; v++)
					s = s * 3 + (size_t)r[S[v]];
				tab[(s * 3 + (size_t)r[x]) * 3 + (size_t)r[y]] += 1.0;
			}
			assert_int_equal(fb_ci_pooled_answer(pool, x, y, S, ns, tab, &a, &err), FB_OK);
			assert_int_equal(fb_ci_test(rows, x, y, S, ns, &b, &err), FB_OK);
			assert_true(fabs(a.stat - b.stat) <= 1e-12 * fabs(b.stat) + 1e-300);
			assert_true(fabs(a.p - b.p) <= 1e-12);
			assert_true(a.df == b.df);
			assert_int_equal(a.flags & ~FB_CI_CACHED, b.flags & ~FB_CI_CACHED);
		}
		fb_ci_free(rows);
		fb_ci_free(pool);
	}
	free(tab);
	free(marg);
	fb_dataset_free(ds);
}

/* Discrete data of 7 variables and 777 rows whose levels differ: one of a single level,
 * some with levels that never occur, up to 7 levels. */
static fb_dataset *mixed_levels(void)
{
	fb_dataset *ds = sim_discrete(7, 777, 5, 3);
	static const size_t decl[7] = { 1, 5, 6, 4, 7, 2, 3 };
	static char labels[7][2] = { "a", "b", "c", "d", "e", "f", "g" };
	char *names[7];

	for (size_t i = 0; i < ds->n; i++) {
		double *r = ds->x + i * 7;

		r[0] = 0.0;
		r[2] += (double)(i % 2) * 3.0;
		r[3] += (double)(i % 5 == 0);
		r[4] = fmod(r[4] + r[1] * 3.0 + (double)(i % 3), 7.0);
		r[5] = fmin(r[5], 1.0);
	}
	for (size_t j = 0; j < 7; j++)
		names[j] = labels[j];
	for (size_t j = 0; j < 7; j++)
		assert_int_equal(fb_dataset_set_levels(ds, j, names, decl[j], NULL), FB_OK);
	return ds;
}

/* Every test x < y | S (|S| <= 3) over 7 variables into b. */
static void all_tests(c2_batch *b)
{
	for (size_t x = 0; x < 7; x++)
		for (size_t y = x + 1; y < 7; y++)
			for (unsigned mask = 0; mask < 128; mask++) {
				size_t S[7], ns = 0;

				if (mask & (1u << x) || mask & (1u << y) || __builtin_popcount(mask) > 3)
					continue;
				for (size_t v = 0; v < 7; v++)
					if (mask & (1u << v))
						S[ns++] = v;
				c2_batch_add(b, y, x, S, ns);
			}
}

/* Check a client's reply to b against its tables counted here row by row. */
static void check_tables(const fb_dataset *ds, const c2_batch *b, const double *reply)
{
	for (size_t t = 0; t < b->n; t++) {
		size_t cells = b->cell[t + 1] - b->cell[t];
		double *tab = fb_xcalloc(cells, sizeof *tab);

		for (size_t i = 0; i < ds->n; i++) {
			const double *r = ds->x + i * ds->d;
			size_t s = 0;

			for (size_t v = 0; v < b->ns[t]; v++) {
				size_t u = b->S[b->off[t] + v];

				s = s * ds->vars[u].nlevels + (size_t)r[u];
			}
			s = s * ds->vars[b->x[t]].nlevels + (size_t)r[b->x[t]];
			tab[s * ds->vars[b->y[t]].nlevels + (size_t)r[b->y[t]]] += 1.0;
		}
		assert_memory_equal(tab, reply + b->cell[t], cells * sizeof *tab);
		free(tab);
	}
}

/* A client's tables are the counts of its rows whichever way it counts them (bits or rows,
 * a table counted or copied from another over the same variables, the tests in the order
 * built or sorted by set), its level counts first. */
static void test_client_tables(void **state)
{
	fb_dataset *ds = mixed_levels();
	c2_batch b = { 0 };
	fb_error err = { "" };
	size_t nlev[7], margin = 0, total;

	(void)state;
	for (size_t j = 0; j < 7; j++)
		margin += nlev[j] = ds->vars[j].nlevels;
	all_tests(&b);
	for (int pass = 0; pass < 4; pass++) {
		fb_msg down = { 0 }, up = { 0 };
		c2_codes *codes = c2_codes_new(ds, &err);
		double *marg = fb_xcalloc(margin, sizeof *marg);

		assert_non_null(codes);
		if (pass % 2 == 1) { /* row by row only */
			free(codes->bits);
			codes->bits = NULL;
		}
		if (pass == 2)
			c2_batch_sort(&b);
		assert_int_equal(c2_batch_cells(&b, nlev, margin, &total, &err), FB_OK);
		c2_batch_write(&b, true, 1, &down);
		assert_int_equal(c2_client_tables(ds, &down, 0, 0.0, 1, &codes, &up, &err), FB_OK);
		assert_int_equal(up.nd, total);
		for (size_t i = 0, o = 0; i < ds->n; i++, o = 0)
			for (size_t j = 0; j < 7; o += nlev[j++])
				marg[o + (size_t)ds->x[i * 7 + j]] += 1.0;
		assert_memory_equal(marg, up.d, margin * sizeof *marg);
		check_tables(ds, &b, up.d);
		free(marg);
		fb_msg_release(&down);
		fb_msg_release(&up);
		c2_codes_free(codes);
	}
	c2_batch_release(&b);
	fb_dataset_free(ds);
}

/* A query never given to a pooled object fails with a sentence (nothing made up). */
static void test_pooled_missing(void **state)
{
	size_t nlev[3] = { 2, 2, 2 };
	fb_error err = { "" };
	fb_ci *pool = fb_ci_alloc_pooled(3, nlev, NULL, &err);
	fb_ci_result r;

	(void)state;
	assert_non_null(pool);
	assert_int_equal(fb_ci_test(pool, 0, 1, NULL, 0, &r, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "no pooled table"));
	fb_ci_free(pool);
}

/* Generated discrete data: 3 and 2 levels, several seeds, K = 2, 5 and 9, both tests. */
static void test_generated(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		fb_dataset *ds = sim_discrete(8 + (size_t)seed, 1500, seed, seed % 2 ? 3 : 2);
		char label[64];

		snprintf(label, sizeof label, "generated seed %llu", (unsigned long long)seed);
		check_equal(label, ds, 2 + 3 * (size_t)(seed % 3), "test=g2 alpha=0.01", false);
		check_equal(label, ds, 5, "test=chi2 alpha=0.05", false);
		fb_dataset_free(ds);
	}
}

/* Read a shared discrete file (every column discrete); NULL with a message when absent. */
static fb_dataset *shared_csv(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	fb_csv_options o;
	fb_dataset *ds;

	snprintf(path, sizeof path, "%s/../shared/data/discrete10000/%s",
	         top != NULL ? top : ".", name);
	if (access(path, R_OK) != 0) {
		printf("skipped: %s is absent\n", path);
		return NULL;
	}
	fb_csv_options_init(&o);
	o.discrete = FB_DISCRETE_ALL;
	ds = fb_csv_read(path, &o, NULL, NULL);
	assert_non_null(ds);
	return ds;
}

/* Every shared discrete file: asia, sachs and alarm (10,000 rows each), G2 and chi2 at
 * alpha 0.05, K = 3 and 10, and secure=yes on sachs. */
static void test_shared(void **state)
{
	static const char *const files[] = { "asia.csv", "sachs.csv", "alarm.csv" };
	size_t found = 0;

	(void)state;
	for (size_t f = 0; f < 3; f++) {
		fb_dataset *ds = shared_csv(files[f]);

		if (ds == NULL)
			continue;
		found++;
		check_equal(files[f], ds, 3, "test=chi2 alpha=0.05", false);
		check_equal(files[f], ds, 10, "test=g2 alpha=0.05", false);
		if (f == 1)
			check_equal(files[f], ds, 4, "test=chi2 alpha=0.05", true);
		fb_dataset_free(ds);
	}
	if (found == 0)
		skip();
}

/* The secure sums give the plain run's CPDAG on generated data too. */
static void test_secure(void **state)
{
	fb_dataset *ds = sim_discrete(7, 1200, 11, 3);

	(void)state;
	check_equal("generated seed 11", ds, 5, "test=g2 alpha=0.01", true);
	fb_dataset_free(ds);
}

/* Background knowledge: forbidden pairs, required arcs and tiers act as in all:pc (the same
 * CPDAG), for several knowledge sets on generated data. */
static void test_knowledge(void **state)
{
	fb_dataset *ds = sim_discrete(8, 2000, 9, 3);
	char **names = fb_dataset_names(ds);

	(void)state;
	for (size_t t = 0; t < 4; t++) {
		fb_knowledge *k = fb_knowledge_alloc(8, (const char *const *)names);

		assert_int_equal(fb_knowledge_forbid(k, t, t + 1, NULL), FB_OK);
		assert_int_equal(fb_knowledge_forbid(k, t + 1, t, NULL), FB_OK);
		assert_int_equal(fb_knowledge_require(k, t + 2, t + 4, NULL), FB_OK);
		if (t % 2 == 1) { /* the last variable first, the first last */
			assert_int_equal(fb_knowledge_set_tier(k, 7, 1, NULL), FB_OK);
			assert_int_equal(fb_knowledge_set_tier(k, 0, 2, NULL), FB_OK);
		}
		knowledge = k;
		check_equal("knowledge", ds, 4, "test=g2 alpha=0.05", false);
		knowledge = NULL;
		fb_knowledge_free(k);
	}
	fb_names_free(names, 8);
	fb_dataset_free(ds);
}

/* Dropout: some clients sit rounds out (the figure says how many), in process and with the
 * secure sums alike (the same draw, the same graph). */
static void test_dropout(void **state)
{
	fb_dataset *ds = sim_discrete(8, 2000, 5, 3);
	fb_partition *part = split_k(ds, 6, 1);
	fb_fed_options fo;
	fb_graph *plain, *sec;

	(void)state;
	fb_fed_options_init(&fo);
	plain = run_to_end("fedc2sl", "dropout=0.3", ds, part, &fo);
	fo.secure = true;
	sec = run_to_end("fedc2sl", "dropout=0.3", ds, part, &fo);
	assert_true(same_marks(plain, sec));
	fb_graph_free(plain);
	fb_graph_free(sec);
	{
		fb_error err = { "" };
		fb_params p;
		const fb_algo *a, *inner;
		fb_run *run;
		double dropped = 0;
		fb_run_spec spec = { .algo = "fedc2sl", .data = ds, .part = part, .params = &p };

		assert_int_equal(fb_algo_lookup("fedc2sl", &a, &inner, &err), FB_OK);
		assert_int_equal(fb_params_init(&p, a->params, &err), FB_OK);
		assert_int_equal(fb_params_set_word(&p, "dropout=0.3", "fedc2sl", &err), FB_OK);
		run = fb_run_alloc(&spec, &err);
		assert_non_null(run);
		while (!fb_run_done(run))
			assert_int_equal(fb_run_step(run, &err), FB_OK);
		for (size_t r = 0; r < run->trace.n; r++)
			dropped += run->trace.r[r].fig[6];
		assert_true(dropped > 0);
		fb_run_free(run);
		fb_params_release(&p);
	}
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* Run fedc2sl under fo on part until it finishes or the privacy budget stops it (the
 * sentence checked); its graph, the epsilon spent, the rounds and the last noisy sum (a copy,
 * *n numbers) into the out-parameters. */
static fb_graph *run_dp(const fb_dataset *ds, const fb_partition *part,
                        const fb_fed_options *fo, double *spent, size_t *rounds,
                        double **last, size_t *n)
{
	fb_error err = { "" };
	fb_params p;
	const fb_algo *a, *inner;
	fb_run_spec spec = { .algo = "fedc2sl", .data = ds, .part = part, .fedopt = fo };
	fb_run *run;
	fb_graph *g;
	const double *sum;
	size_t count;

	assert_int_equal(fb_algo_lookup("fedc2sl", &a, &inner, &err), FB_OK);
	assert_int_equal(fb_params_init(&p, fb_algo_params(a, inner), &err), FB_OK);
	assert_int_equal(fb_params_set_word(&p, "test=g2", "fedc2sl", &err), FB_OK);
	spec.params = &p;
	if ((run = fb_run_alloc(&spec, &err)) == NULL)
		fail_msg("%s", err.msg);
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK) {
			printf("stopped: %s\n", err.msg);
			assert_non_null(strstr(err.msg, "the privacy budget is spent"));
			break;
		}
	*spent = fb_fed_dp_spent(run->fed);
	*rounds = fb_fed_rounds(run->fed);
	sum = fb_fed_last_sum(run->fed, n, &count);
	*last = fb_xmalloc((*n > 0 ? *n : 1) * sizeof **last);
	memcpy(*last, sum, *n * sizeof **last);
	g = fb_run_result(run, &err);
	assert_non_null(g);
	fb_run_free(run);
	fb_params_release(&p);
	return g;
}

/* Row-level differential privacy: with a budget too large to bind and little noise the
 * CPDAG is the plain run's; with a small budget each round spends the same rho, the run
 * stops within it in one sentence, and the noise is the same bits for the same seed
 * whatever the threads, and other bits for another seed. */
static void test_dp(void **state)
{
	fb_dataset *ds = sim_discrete(7, 1200, 11, 3);
	fb_partition *part = split_k(ds, 5, 7);
	fb_fed_options fo;
	fb_graph *ref, *g, *g2;
	double spent, spent2, *last, *last2, rho = 1.0 / (2.0 * 10 * 10);
	size_t rounds, rounds2, n, n2;

	(void)state;
	fb_fed_options_init(&fo);
	fo.secure = true;
	fo.dp_epsilon = 1e9;
	fo.dp_sigma = 1e-3;
	ref = run_to_end("fedc2sl", "test=g2", ds, part, NULL);
	g = run_dp(ds, part, &fo, &spent, &rounds, &last, &n);
	printf("dp_epsilon=1e9 dp_sigma=1e-3: %zu rounds, epsilon %.4g, %s\n", rounds, spent,
	       same_marks(g, ref) ? "the plain CPDAG" : "DIFFERENT");
	assert_true(same_marks(g, ref));
	fb_graph_free(g);
	free(last);
	fo.dp_epsilon = 1;
	fo.dp_sigma = 10;
	g = run_dp(ds, part, &fo, &spent, &rounds, &last, &n);
	printf("dp_epsilon=1 dp_sigma=10: %zu rounds, epsilon %.4g\n", rounds, spent);
	assert_true(rounds >= 1 && spent <= 1);
	assert_true(fabs(spent - fb_dp_epsilon((double)rounds * rho, fo.dp_delta)) < 1e-12);
	fo.threads = 3;
	g2 = run_dp(ds, part, &fo, &spent2, &rounds2, &last2, &n2);
	assert_true(rounds2 == rounds && n2 == n && memcmp(last, last2, n * sizeof *last) == 0);
	assert_true(same_marks(g, g2));
	fb_graph_free(g2);
	free(last2);
	fo.seed = 99;
	g2 = run_dp(ds, part, &fo, &spent2, &rounds2, &last2, &n2);
	assert_true(n2 != n || memcmp(last, last2, n * sizeof *last) != 0);
	fb_graph_free(g2);
	free(last2);
	free(last);
	fb_graph_free(g);
	fb_graph_free(ref);
	fb_partition_free(part);
	fb_dataset_free(ds);
}

/* What fedc2sl cannot take is refused in one sentence: continuous data, a vertical split,
 * differential privacy without a delta in (0, 1). */
static void test_refusals(void **state)
{
	fb_dataset *ds = sim_discrete(5, 300, 2, 3), *cont;
	fb_partition *part, *vert;
	fb_fed_options fo;
	fb_error err = { "" };
	fb_sim_options so;
	fb_graph *t;
	fb_split_options o;

	(void)state;
	fb_sim_options_init(&so);
	assert_int_equal(fb_sim_generate(&so, &cont, &t, NULL), FB_OK);
	fb_graph_free(t);
	fb_split_options_init(&o);
	vert = fb_split(ds, FB_SPLIT_VERTICAL, 2, &o, NULL);
	assert_non_null(vert);
	part = split_k(cont, 3, 1);
	{
		fb_run_spec s1 = { .algo = "fedc2sl", .data = cont, .part = part };
		fb_run_spec s2 = { .algo = "fedc2sl", .data = ds, .part = vert };

		assert_null(fb_run_alloc(&s1, &err));
		printf("continuous: %s\n", err.msg);
		assert_null(fb_run_alloc(&s2, &err));
		printf("vertical: %s\n", err.msg);
	}
	fb_partition_free(part);
	part = split_k(ds, 3, 1);
	fb_fed_options_init(&fo);
	fo.secure = true;
	fo.dp_epsilon = 1;
	fo.dp_delta = 0;
	{
		fb_run_spec s3 = { .algo = "fedc2sl", .data = ds, .part = part, .fedopt = &fo };

		assert_null(fb_run_alloc(&s3, &err));
		printf("dp: %s\n", err.msg);
		assert_non_null(strstr(err.msg, "dp_delta="));
	}
	fb_partition_free(part);
	fb_partition_free(vert);
	fb_dataset_free(cont);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pooled_answer),
		cmocka_unit_test(test_pooled_missing),
		cmocka_unit_test(test_client_tables),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_secure),
		cmocka_unit_test(test_knowledge),
		cmocka_unit_test(test_dropout),
		cmocka_unit_test(test_dp),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
