/* bench-learnspn: wall time and held-out log-likelihood of the LearnSPN-style learner on the
 * shared breast-cancer table (30 continuous columns standardised with the training rows'
 * mean and population sd, and the diagnosis as a two-level discrete column).
 *
 * The rows are shuffled by a seeded stream and cut 398 / 85 / 86 (train / valid / test,
 * the sizes of the federated-circuits paper's split; not its rows).  The learner runs with
 * the paper's breast-cancer settings (min_instances_slice 300, threshold 0.4, histogram
 * leaves) and with the defaults; wall times are the best of 5.
 *
 * Then the six binary density-estimation benchmarks (fixed splits, no header): categorical
 * (Bernoulli) leaves and the G-test splitter, one run each, wall and processor time, test
 * log-likelihood beside LearnSPN's published one.
 *
 * Usage: bench-learnspn [CSV [DEBD-DIR]], CSV defaulting to SRCDIR/../shared/data/tabular/
 * breast_cancer.csv and DEBD-DIR to SRCDIR/../shared/data/debd. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench-common.h"
#include "fedbn/circuit.h"
#include "fedbn/csv.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* Standardise the continuous columns of ds with the mean and population sd of its first
 * ntrain rows (in the order of perm). */
static void standardise(fb_dataset *ds, const size_t *perm, size_t ntrain)
{
	for (size_t j = 0; j < ds->d; j++) {
		double m = 0, v = 0;

		if (ds->vars[j].kind != FB_CONTINUOUS)
			continue;
		for (size_t i = 0; i < ntrain; i++)
			m += ds->x[perm[i] * ds->d + j] / (double)ntrain;
		for (size_t i = 0; i < ntrain; i++)
			v += pow(ds->x[perm[i] * ds->d + j] - m, 2) / (double)ntrain;
		for (size_t i = 0; i < ds->n; i++)
			ds->x[i * ds->d + j] = (ds->x[i * ds->d + j] - m) / (v > 0 ? sqrt(v) : 1);
	}
}

/* Mean and standard error of the log-likelihoods of n rows. */
static void ll_stats(const fb_circuit *c, const double *x, size_t n, double *mean, double *se)
{
	double *lp = malloc(n * sizeof *lp), m = 0, v = 0;

	if (lp == NULL || fb_circuit_logpdf(c, x, n, lp, NULL) != FB_OK)
		exit(1);
	for (size_t i = 0; i < n; i++)
		m += lp[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		v += (lp[i] - m) * (lp[i] - m) / (double)(n - 1);
	*mean = m;
	*se = sqrt(v / (double)n);
	free(lp);
}

/* Learn on train with o (best of 5 wall times) and print the figures. */
static void run(const char *label, const double *train, size_t ntr, const double *test,
                size_t nte, size_t d, const size_t *lv, const fb_learnspn_options *o)
{
	double best = INFINITY, mtr, setr, mte, sete;
	fb_circuit *c = NULL;
	size_t kinds[3] = { 0, 0, 0 };
	fb_error err;

	for (int rep = 0; rep < 5; rep++) {
		double t = bench_now();

		fb_circuit_free(c);
		if (fb_learnspn(train, ntr, d, lv, o, 0, &c, &err) != FB_OK) {
			fprintf(stderr, "bench-learnspn: %s\n", err.msg);
			exit(1);
		}
		t = bench_now() - t;
		best = t < best ? t : best;
	}
	for (size_t i = 0; i < c->nnodes; i++)
		kinds[c->nodes[i].kind]++;
	ll_stats(c, train, ntr, &mtr, &setr);
	ll_stats(c, test, nte, &mte, &sete);
	printf("%s: %.4f s; %zu nodes (%zu sums, %zu products, %zu leaves); train LL %.3f; "
	       "test LL %.3f +- %.3f\n", label, best, c->nnodes, kinds[FB_NODE_SUM],
	       kinds[FB_NODE_PRODUCT], kinds[FB_NODE_LEAF], mtr, mte, sete);
	fb_circuit_free(c);
}

/* Read a headerless 0/1 file with every column discrete; NULL (printed) when it cannot. */
static fb_dataset *read_binary(const char *dir, const char *name, const char *part)
{
	char path[4096];
	fb_csv_options co;
	fb_error err;
	fb_dataset *ds;

	fb_csv_options_init(&co);
	co.header = 0;
	co.discrete = FB_DISCRETE_ALL;
	snprintf(path, sizeof path, "%s/%s.%s.data", dir, name, part);
	ds = fb_csv_read(path, &co, NULL, &err);
	if (ds == NULL)
		printf("%s: skipped (%s)\n", name, err.msg);
	return ds;
}

/* One binary benchmark: learn on train with categorical leaves and LearnSPN's G-test
 * splitter (p-value 0.001, slices of at most 50 rows factorised: the setting the
 * validation parts choose in examples/circuit-debd.sh). */
static void run_debd(const char *dir, const char *name, double published)
{
	fb_dataset *tr = read_binary(dir, name, "train"), *te = read_binary(dir, name, "test");
	size_t lv[512];
	fb_learnspn_options o;
	fb_circuit *c = NULL;
	double t, cpu, m, se;
	fb_error err;

	if (tr != NULL && te != NULL && tr->d <= 512 && te->d == tr->d) {
		for (size_t j = 0; j < tr->d; j++)
			lv[j] = 2; /* codes are the labels "0" and "1" in numeric order */
		fb_learnspn_options_init(&o);
		o.leaves = FB_LEARN_PARAMETRIC;
		o.split = FB_SPLIT_GTEST;
		o.pvalue = 0.001;
		o.min_instances_slice = 50;
		t = bench_now();
		cpu = bench_cpu_now();
		if (fb_learnspn(tr->x, tr->n, tr->d, lv, &o, 0, &c, &err) != FB_OK) {
			printf("%s: %s\n", name, err.msg);
		} else {
			t = bench_now() - t;
			cpu = bench_cpu_now() - cpu;
			ll_stats(c, te->x, te->n, &m, &se);
			printf("%s (%zu x %zu): %.2f s wall, %.2f s processor, %zu nodes; test LL %.3f "
			       "+- %.3f (LearnSPN published %.2f)\n", name, tr->n, tr->d, t, cpu,
			       c->nnodes, m, se, published);
		}
	}
	fb_circuit_free(c);
	fb_dataset_free(tr);
	fb_dataset_free(te);
}

/* The six binary benchmarks and LearnSPN's published test log-likelihoods. */
static const struct {
	const char *name; /* file stem */
	double learnspn;  /* Gens and Domingos 2013, Table 2 */
} debd[] = {
	{ "nltcs", -6.11 }, { "plants", -12.97 }, { "baudio", -40.50 },
	{ "jester", -53.48 }, { "bnetflix", -57.33 }, { "accidents", -30.03 },
};

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1]
	                            : FB_TOP_SRCDIR "/../shared/data/tabular/breast_cancer.csv";
	fb_error err;
	fb_dataset *ds = fb_csv_read(path, NULL, NULL, &err);
	size_t *perm, *lv, ntr = 398, nte = 86;
	double *train, *test;
	gsl_rng *r = fb_rng_stream(1, "bench-learnspn-split");
	fb_learnspn_options o;

	fb_blas_single_thread(); /* as runs do: the learner's products are small */
	if (ds == NULL) {
		printf("bench-learnspn: skipped (%s)\n", err.msg);
		return 0;
	}
	perm = malloc(ds->n * sizeof *perm);
	lv = malloc(ds->d * sizeof *lv);
	train = malloc(ntr * ds->d * sizeof *train);
	test = malloc(nte * ds->d * sizeof *test);
	if (perm == NULL || lv == NULL || train == NULL || test == NULL || ds->n < ntr + 85 + nte)
		return 1;
	for (size_t i = 0; i < ds->n; i++)
		perm[i] = i;
	fb_rng_shuffle(r, perm, ds->n);
	standardise(ds, perm, ntr);
	for (size_t j = 0; j < ds->d; j++)
		lv[j] = ds->vars[j].nlevels;
	for (size_t i = 0; i < ntr; i++)
		for (size_t j = 0; j < ds->d; j++)
			train[i * ds->d + j] = ds->x[perm[i] * ds->d + j];
	for (size_t i = 0; i < nte; i++)
		for (size_t j = 0; j < ds->d; j++)
			test[i * ds->d + j] = ds->x[perm[ds->n - nte + i] * ds->d + j];
	printf("breast cancer: %zu rows x %zu columns; train %zu, test %zu (seeded shuffle)\n",
	       ds->n, ds->d, ntr, nte);
	fb_learnspn_options_init(&o);
	o.min_instances_slice = 300;
	o.threshold = 0.4;
	run("min_instances_slice=300 threshold=0.4", train, ntr, test, nte, ds->d, lv, &o);
	fb_learnspn_options_init(&o);
	run("defaults (200, 0.3)", train, ntr, test, nte, ds->d, lv, &o);
	for (size_t k = 0; k < sizeof debd / sizeof debd[0]; k++)
		run_debd(argc > 2 ? argv[2] : FB_TOP_SRCDIR "/../shared/data/debd", debd[k].name,
		         debd[k].learnspn);
	gsl_rng_free(r);
	fb_dataset_free(ds);
	free(perm);
	free(lv);
	free(train);
	free(test);
	return 0;
}
