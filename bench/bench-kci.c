/* bench-kci: processor time of one KCI test (gamma approximation, causal-learn's widths) at
 * n = 1000, given nothing, one and two variables, beside the target of 20 times causal-learn's
 * KCI_UInd / KCI_CInd on the same kind of data (x = sin z1 + z2/2 + e, y = cos z1 - z2/2 + e;
 * causal-learn, commit e30895b, takes 0.020 s, 0.62 s and 0.63 s of processor time with one
 * BLAS thread, the least of three runs on numpy data of the same form).  Each figure is the
 * least over three runs with the cache off, with the BLAS on one thread as in fedbn's runs;
 * p-values are printed in full.  Given nothing and given one or two variables the kernels
 * here have low rank, so these times are the low-rank route's.  The comparison is of one
 * thread with one thread: fb_blas_single_thread also shuts OpenBLAS's idle thread pool down,
 * whose threads otherwise call sched_yield in a loop for about 0.1 s after the library loads,
 * which on an idle machine doubled the processor time of these short tests.
 *
 * Then PC with KCI end to end as causal-learn runs it (alpha 0.05, compat=causal-learn) on
 * the shared M_d10_n200_mlp_s1 and on a sample drawn the same way with n = 1000, the least
 * processor time of three runs, beside causal-learn's pc(stable=True, uc_rule=0,
 * uc_priority=-1) with KCI run on the same file right after (bench/pc-kci-causal-learn.py,
 * with the checkout CAUSAL_LEARN names; not run without it), and whether the two graphs are
 * equal.  The processor's model is printed first. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "bench-common.h"
#include "fedbn/ci.h"
#include "fedbn/core.h"
#include "fedbn/csv.h"
#include "fedbn/dataset.h"
#include "fedbn/pc.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* Rows of the sample. */
#define BENCH_N 1000

/* causal-learn's processor seconds given 0, 1 and 2 variables (one BLAS thread). */
static const double bench_reference[3] = { 0.020, 0.62, 0.63 };

/* The sample: columns x, y, z1, z2 as in the header comment (seed 1). */
static fb_dataset *bench_sample(void)
{
	fb_dataset *ds = fb_dataset_alloc(BENCH_N, 4);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	if (ds == NULL || r == NULL) {
		fb_dataset_free(ds);
		if (r != NULL)
			gsl_rng_free(r);
		return NULL;
	}
	gsl_rng_set(r, 1);
	for (size_t i = 0; i < BENCH_N; i++) {
		double z1 = gsl_ran_gaussian(r, 1.0), z2 = gsl_ran_gaussian(r, 1.0);

		ds->x[i * 4 + 0] = sin(z1) + 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		ds->x[i * 4 + 1] = cos(z1) - 0.5 * z2 + gsl_ran_gaussian(r, 0.3);
		ds->x[i * 4 + 2] = z1;
		ds->x[i * 4 + 3] = z2;
	}
	gsl_rng_free(r);
	return ds;
}

/* A KCI object over ds with the cache off; NULL (a line printed) when it cannot be made. */
static fb_ci *bench_kci_object(const fb_dataset *ds)
{
	fb_ci_options o;
	fb_error err = { "" };
	fb_ci *ci;

	fb_ci_options_init(&o);
	o.test = FB_CI_KCI;
	o.cache = false;
	if ((ci = fb_ci_alloc(ds, &o, &err)) == NULL)
		fprintf(stderr, "bench-kci: %s\n", err.msg);
	return ci;
}

/* Time x _||_ y given the first ns of z1, z2, each run on a new object (an object remembers
 * the factors of its tests' sides); print it beside the target. */
static int bench_one(const fb_dataset *ds, size_t ns)
{
	static const size_t S[2] = { 2, 3 };
	double best = INFINITY, target = bench_reference[ns] / 20.0;
	fb_ci_result res;
	fb_error err = { "" };

	for (int rep = 0; rep < 3; rep++) {
		fb_ci *ci = bench_kci_object(ds);
		double t = bench_cpu_now();
		int ret;

		if (ci == NULL)
			return 1;
		ret = fb_ci_test(ci, 0, 1, S, ns, &res, &err);
		t = bench_cpu_now() - t;
		fb_ci_free(ci);
		if (ret != FB_OK) {
			fprintf(stderr, "bench-kci: %s\n", err.msg);
			return 1;
		}
		if (t < best)
			best = t;
	}
	printf("kci n=%d |S|=%zu: %.4f s (p %.17g), causal-learn %.3f s, %.1fx (target <= %.4f s, "
	       ">= 20x)\n", BENCH_N, ns, best, res.p, bench_reference[ns],
	       bench_reference[ns] / best, target);
	return 0;
}

/* The edges of g as lines "i -> j" or "i -- j" (i < j) in the order of i, then j, into buf
 * (cap bytes), as bench/pc-kci-causal-learn.py prints causal-learn's. */
static void bench_edges(const fb_graph *g, size_t d, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d && len < cap; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);
			const char *kind = e == FB_EDGE_FORWARD                 ? "->"
			                   : i < j && e == FB_EDGE_UNDIRECTED ? "--" : NULL;

			if (kind != NULL)
				len += (size_t)snprintf(buf + len, cap - len, "%zu %s %zu\n", i, kind, j);
		}
}

/* PC with KCI as causal-learn runs it (alpha 0.05, compat=causal-learn) on ds: the least
 * processor time of three runs into *cpu, the CPDAG's edges into edges (cap bytes). */
static int bench_pc_kci(const fb_dataset *ds, double *cpu, char *edges, size_t cap)
{
	*cpu = INFINITY;
	for (int rep = 0; rep < 3; rep++) {
		fb_pc_options o;
		fb_pc_round r;
		fb_error err = { "" };
		double t = bench_cpu_now();
		fb_pc *pc;

		fb_pc_options_init(&o);
		o.alpha = 0.05;
		o.compat = FB_PC_COMPAT_CAUSAL_LEARN;
		o.ci.test = FB_CI_KCI;
		if ((pc = fb_pc_alloc(ds, &o, &err)) == NULL) {
			printf("pc kci: %s\n", err.msg);
			return FB_ERR;
		}
		while (!fb_pc_done(pc) && fb_pc_step(pc, &r, &err) == FB_OK)
			;
		t = bench_cpu_now() - t;
		if (err.msg[0] != '\0') {
			printf("pc kci: %s\n", err.msg);
			fb_pc_free(pc);
			return FB_ERR;
		}
		*cpu = t < *cpu ? t : *cpu;
		bench_edges(fb_pc_graph(pc), ds->d, edges, cap);
		fb_pc_free(pc);
	}
	return FB_OK;
}

/* causal-learn's pc with KCI on the file at path (bench/pc-kci-causal-learn.py with the
 * checkout named by CAUSAL_LEARN, one BLAS thread, Python PYTHON or /usr/bin/python3): its processor seconds into *cpu and its
 * edges into edges; FB_ERR (a line printed) when it cannot be run. */
static int bench_causal_learn(const char *path, double *cpu, char *edges, size_t cap)
{
	const char *cl = getenv("CAUSAL_LEARN"), *top = getenv("top_srcdir");
	const char *py = getenv("PYTHON");
	char cmd[3 * 4096], line[256];
	size_t len = 0;
	FILE *p;

	if (cl == NULL || cl[0] == '\0') {
		printf("  causal-learn: not run (set CAUSAL_LEARN to a checkout of it)\n");
		return FB_ERR;
	}
	if (py == NULL || py[0] == '\0')
		py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=1 PYTHONPATH='%s' '%s' "
	         "'%s/bench/pc-kci-causal-learn.py' '%s'", cl, py, top != NULL ? top : FB_TOP_SRCDIR,
	         path);
	if ((p = popen(cmd, "r")) == NULL || fgets(line, sizeof line, p) == NULL ||
	    sscanf(line, "cpu %lf", cpu) != 1) {
		printf("  causal-learn: did not run (%s)\n", cmd);
		if (p != NULL)
			pclose(p);
		return FB_ERR;
	}
	edges[0] = '\0';
	while (fgets(line, sizeof line, p) != NULL && len + strlen(line) < cap)
		len += (size_t)snprintf(edges + len, cap - len, "%s", line);
	return pclose(p) == 0 ? FB_OK : FB_ERR;
}

/* PC with KCI end to end on the CSV file at path, beside causal-learn on the same file. */
static int bench_end_to_end(const char *what, const char *path)
{
	char mine[4096], theirs[4096];
	double cpu, ref;
	fb_error err = { "" };
	fb_dataset *ds = fb_csv_read(path, NULL, NULL, &err);
	int ret;

	if (ds == NULL) {
		printf("pc kci %s: skipped (%s)\n", what, err.msg);
		return 0;
	}
	ret = bench_pc_kci(ds, &cpu, mine, sizeof mine);
	printf("pc kci %s (n=%zu, d=%zu): fedbn %.4f s", what, ds->n, ds->d, cpu);
	fb_dataset_free(ds);
	if (ret != FB_OK)
		return 1;
	printf("\n");
	fflush(stdout);
	if (bench_causal_learn(path, &ref, theirs, sizeof theirs) == FB_OK)
		printf("  causal-learn %.3f s: %.1fx (goal >= 20x), graphs %s\n", ref, ref / cpu,
		       strcmp(mine, theirs) == 0 ? "equal" : "DIFFER");
	return 0;
}

/* A sample drawn like M_d10_n200_mlp_s1 with n rows (gen er d=10 edges=10 sem=mlp seed=1)
 * written to path; FB_ERR with a line printed when it cannot be. */
static int bench_mlp_sample(size_t n, const char *path)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err = { "" };
	int ret;

	fb_sim_options_init(&so);
	so.d = 10;
	so.edges = 10;
	so.n = n;
	so.sem = FB_SEM_MLP;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("pc kci: %s\n", err.msg);
		return FB_ERR;
	}
	ret = fb_csv_write_dataset(ds, path, &err);
	if (ret != FB_OK)
		printf("pc kci: %s\n", err.msg);
	fb_dataset_free(ds);
	fb_graph_free(truth);
	return ret;
}

/* PC with KCI end to end at n = 200 (the shared file) and n = 1000 (drawn here). */
static int bench_pc_rows(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096 + 64], tmp[] = "/tmp/bench-kci-XXXXXX";
	int fd, ret;

	snprintf(path, sizeof path, "%s/../shared/data/synth/M_d10_n200_mlp_s1/X.csv",
	         top != NULL ? top : FB_TOP_SRCDIR);
	ret = bench_end_to_end("M_d10_n200_mlp_s1", path);
	if (ret != 0 || (fd = mkstemp(tmp)) < 0)
		return ret;
	close(fd);
	if (bench_mlp_sample(1000, tmp) == FB_OK)
		ret = bench_end_to_end("gen er d=10 edges=10 n=1000 sem=mlp seed=1", tmp);
	remove(tmp);
	return ret;
}

/* Run the three tests, then PC with KCI end to end. */
int main(void)
{
	fb_dataset *ds;
	int ret = 0;
	char model[256];

	printf("processor: %s\n", bench_processor(model, sizeof model));
	ds = bench_sample();
	if (ds == NULL)
		return 1;
	fb_blas_single_thread();
	for (size_t ns = 0; ns <= 2 && ret == 0; ns++)
		ret = bench_one(ds, ns);
	fb_dataset_free(ds);
	return ret != 0 ? ret : bench_pc_rows();
}
