/* bench-fci: FCI beside causal-learn's fci on the same files, back to back.
 *
 * For each of the thirteen bnlearn networks of test-fci (tests/data/causal-learn/NET.csv.gz,
 * and asia, sachs and alarm from ../shared/data/discrete10000 when that folder is beside the
 * tree), each file written out once as plain CSV and read by both: fedbn's fci
 * compat=causal-learn with chi2 at alpha 0.05 (the least processor time of three runs of
 * fb_fci_run, the file already read), then causal-learn's fci(data, "chisq", 0.05) on the
 * same file (bench/fci-causal-learn.py: time.process_time around the call, the file already
 * read, one BLAS thread), from the checkout named by CAUSAL_LEARN (default: py-why+causal-learn
 * in ../ref beside the tree; not run when absent).  Both run on one processor: the program
 * pins itself to CPU 1 (CPU 0 on a one-processor machine) before anything else, and the
 * Python child inherits the pinning.  Printed per network: both processor times, the ratio,
 * and whether the two PAGs are equal mark by mark; then the totals and the ratio of the
 * totals, the goal being >= 20x.  Arguments, when given, name the networks to run.
 *
 * Then FCI at d = 1,000, n = 5,000 as the shell runs `gen er d=1000 edges=1000 n=5000
 * seed=1; algo fci compat=causal-learn; run` (Fisher-z), its processor time against the goal
 * of 10 s.  The processor's model is printed first; the figures are processor time, which
 * other load on the machine disturbs least (but does disturb: say how loaded it was). */
#define _GNU_SOURCE /* sched_setaffinity */
#include "config.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/core.h"
#include "fedbn/csv.h"
#include "fedbn/dataset.h"
#include "fedbn/fci.h"
#include "fedbn/pag.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* The networks, in causal-learn's order of size; the last three are in the shared folder. */
static const char *const bench_nets[] = { "cancer", "earthquake", "survey", "asia", "sachs",
	                                   "child", "insurance", "water", "alarm", "barley",
	                                   "hailfinder", "hepar2", "win95pts" };

/* Processor seconds of the two sides summed over the networks whose PAGs were compared. */
typedef struct bench_total {
	double mine, theirs;
	size_t nets, equal;
} bench_total;

/* The source tree's top folder. */
static const char *bench_top(void)
{
	const char *top = getenv("top_srcdir");

	return top != NULL && top[0] != '\0' ? top : FB_TOP_SRCDIR;
}

/* Pin this process (and the children it starts) to CPU 1, or CPU 0 on a one-processor
 * machine; the CPU into *cpu, -1 when pinning is not possible here. */
static void bench_pin(int *cpu)
{
	*cpu = -1;
#ifdef CPU_SET
	cpu_set_t set;
	int want = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;

	CPU_ZERO(&set);
	CPU_SET(want, &set);
	if (sched_setaffinity(0, sizeof set, &set) == 0)
		*cpu = want;
#endif
}

/* Write the network's data as plain CSV to out (cap bytes, a temporary file); FB_ERR when its
 * file is absent or cannot be copied. */
static int bench_file(const char *net, char *out, size_t cap)
{
	char src[4096], cmd[3 * 4096];
	bool shared = strcmp(net, "asia") == 0 || strcmp(net, "sachs") == 0 ||
	              strcmp(net, "alarm") == 0;

	if (shared)
		snprintf(src, sizeof src, "%s/../shared/data/discrete10000/%s.csv", bench_top(), net);
	else
		snprintf(src, sizeof src, "%s/tests/data/causal-learn/%s.csv.gz", bench_top(), net);
	if (access(src, R_OK) != 0)
		return FB_ERR;
	snprintf(out, cap, "%s/fedbn-bench-fci-%ld-%s.csv", getenv("TMPDIR") != NULL ?
	         getenv("TMPDIR") : "/tmp", (long)getpid(), net);
	snprintf(cmd, sizeof cmd, shared ? "cp '%s' '%s'" : "gzip -dc '%s' > '%s'", src, out);
	return system(cmd) == 0 ? FB_OK : FB_ERR;
}

/* fedbn's fci compat=causal-learn with test (alpha 0.05) on ds: the least processor time of
 * reps runs into *cpu, the last run's PAG returned (NULL with a line printed on failure). */
static fb_pag *bench_fedbn(const fb_dataset *ds, enum fb_ci_test test, int reps, double *cpu)
{
	fb_pag *pag = NULL;

	*cpu = INFINITY;
	for (int rep = 0; rep < reps; rep++) {
		fb_fci_options o;
		fb_error err = { "" };
		double t;

		fb_fci_options_init(&o);
		o.pc.alpha = 0.05;
		o.pc.ci.test = test;
		o.pc.compat = FB_PC_COMPAT_CAUSAL_LEARN;
		fb_pag_free(pag);
		t = bench_cpu_now();
		pag = fb_fci_run(ds, &o, NULL, &err);
		t = bench_cpu_now() - t;
		if (pag == NULL) {
			printf("  fedbn: %s\n", err.msg);
			return NULL;
		}
		*cpu = t < *cpu ? t : *cpu;
	}
	return pag;
}

/* The marks of causal-learn's PAG (d lines of d numbers on p: G[i][j] the mark at i, -1 a
 * tail, 1 an arrowhead, 2 a circle, 0 none) that differ from pag's; SIZE_MAX when the
 * output is short or holds something else. */
static size_t bench_diff(FILE *p, const fb_pag *pag)
{
	size_t bad = 0, d = pag->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			int v;
			enum fb_pag_mark want;

			if (fscanf(p, "%d", &v) != 1)
				return SIZE_MAX;
			want = v == 0 ? FB_PAG_NONE : v == -1 ? FB_PAG_TAIL : v == 1 ? FB_PAG_ARROW
			                                                        : FB_PAG_CIRCLE;
			if (i != j && (v < -1 || v > 2 || fb_pag_mark(pag, j, i) != want))
				bad++;
		}
	return bad;
}

/* causal-learn's fci (chisq, alpha 0.05) on the file at path: its processor seconds into
 * *cpu and the marks that differ from pag's into *bad; FB_ERR (a line printed) when it
 * cannot be run. */
static int bench_causal_learn(const char *path, const fb_pag *pag, double *cpu, size_t *bad)
{
	const char *cl = getenv("CAUSAL_LEARN"), *py = getenv("PYTHON");
	char dflt[4096], cmd[4 * 4096], line[256];
	FILE *p;
	int st;

	if (cl == NULL || cl[0] == '\0') {
		snprintf(dflt, sizeof dflt, "%s/../ref/py-why+causal-learn", bench_top());
		cl = dflt;
	}
	if (py == NULL || py[0] == '\0')
		py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=1 PYTHONPATH='%s' '%s' "
	         "'%s/bench/fci-causal-learn.py' '%s' chisq 2>/dev/null", cl, py, bench_top(), path);
	if (access(cl, R_OK) != 0 || (p = popen(cmd, "r")) == NULL) {
		printf("  causal-learn: not run (no checkout at %s; set CAUSAL_LEARN)\n", cl);
		return FB_ERR;
	}
	if (fgets(line, sizeof line, p) == NULL || sscanf(line, "cpu %lf", cpu) != 1) {
		pclose(p);
		printf("  causal-learn: did not run (%s)\n", cmd);
		return FB_ERR;
	}
	*bad = bench_diff(p, pag);
	st = pclose(p);
	return st == 0 ? FB_OK : FB_ERR;
}

/* One network side by side; its figures added to tot. */
static void bench_net(const char *net, bench_total *tot)
{
	char path[4096];
	fb_csv_options co;
	fb_error err = { "" };
	fb_dataset *ds;
	fb_pag *pag;
	double mine, theirs;
	size_t bad;

	if (bench_file(net, path, sizeof path) != FB_OK) {
		printf("%-10s skipped (its file is absent)\n", net);
		return;
	}
	fb_csv_options_init(&co);
	co.discrete = FB_DISCRETE_ALL;
	if ((ds = fb_csv_read(path, &co, NULL, &err)) == NULL) {
		printf("%-10s skipped (%s)\n", net, err.msg);
		remove(path);
		return;
	}
	pag = bench_fedbn(ds, FB_CI_CHI2, 3, &mine);
	if (pag != NULL && bench_causal_learn(path, pag, &theirs, &bad) == FB_OK) {
		printf("%-10s d %3zu  fedbn %8.4f s  causal-learn %8.3f s  %6.1fx  PAGs %s\n", net,
		       ds->d, mine, theirs, theirs / mine,
		       bad == 0 ? "equal" : bad == SIZE_MAX ? "UNREADABLE" : "DIFFER");
		tot->mine += mine;
		tot->theirs += theirs;
		tot->nets++;
		tot->equal += bad == 0;
	}
	fflush(stdout);
	fb_pag_free(pag);
	fb_dataset_free(ds);
	remove(path);
}

/* FCI at d = 1,000, n = 5,000 (gen er d=1000 edges=1000 n=5000 seed=1), Fisher-z. */
static void bench_large(void)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err = { "" };
	fb_pag *pag;
	double cpu;

	fb_sim_options_init(&so);
	so.d = 1000;
	so.edges = 1000;
	so.n = 5000;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("fci d=1000 n=5000: %s\n", err.msg);
		return;
	}
	if ((pag = bench_fedbn(ds, FB_CI_AUTO, 1, &cpu)) != NULL)
		printf("fci d=1000 n=5000 (gen er edges=1000 seed=1, compat=causal-learn, fisher-z): "
		       "%.2f s, %zu edges (goal < 10 s)\n", cpu, fb_pag_n_edges(pag));
	fb_pag_free(pag);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

int main(int argc, char **argv)
{
	char cpu_name[256];
	bench_total tot = { 0.0, 0.0, 0, 0 };
	int cpu;

	bench_pin(&cpu);
	printf("bench-fci: %s, processor time, both sides on CPU %d\n",
	       bench_processor(cpu_name, sizeof cpu_name), cpu);
	printf("fci compat=causal-learn chi2 alpha 0.05 beside causal-learn's fci(data, \"chisq\", "
	       "0.05) on the same file:\n");
	if (argc > 1)
		for (int k = 1; k < argc; k++)
			bench_net(argv[k], &tot);
	else
		for (size_t k = 0; k < sizeof bench_nets / sizeof *bench_nets; k++)
			bench_net(bench_nets[k], &tot);
	if (tot.nets > 0)
		printf("total over %zu networks: fedbn %.3f s, causal-learn %.2f s, %.1fx (goal >= "
		       "20x), %zu of %zu PAGs equal mark by mark\n", tot.nets, tot.mine, tot.theirs,
		       tot.theirs / tot.mine, tot.equal, tot.nets);
	fflush(stdout);
	bench_large();
	return 0;
}
