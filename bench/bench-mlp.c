/* bench-mlp: processor time and accuracy of notears-mlp and notears-mlp-admm on the shared
 * nonlinear files drawn by the authors' generators (synth/M_*, synth/MA_*), each beside the
 * reference code run on the same file by bench/mlp-reference.py, back to back in the same
 * process tree (so on the same processors: run it as `taskset -c 1 bench/bench-mlp`): the
 * processor seconds of both learning calls and of both whole runs (fedbn: reading the file
 * and the run; the reference: its whole Python process), their ratios against the goal of
 * 20 times, each graph's score against the truth and the SHD between the two graphs.  Both
 * sides at the papers' settings: notears-mlp as notears_nonlinear(NotearsMLP([d, 10, 1]),
 * lambda1 = lambda2 = 0.01) of xunzheng/notears, notears-mlp-admm over K contiguous equal
 * blocks as notears_nonlinear_admm(lambda1 = 0.001, lambda2 = 0.01) of
 * ignavierng/notears-admm then its postprocess at 0.3; torch, the BLAS and fedbn on one
 * thread.  The two sides start from different random weights (their own generators), so
 * their graphs may differ.
 *
 * Usage: bench-mlp [--owlqn] [DATA_DIR] [TAG:K ...], or bench-mlp --optimisers   (K = 1:
 * notears-mlp, with L-BFGS-B or with --owlqn OWL-QN; K > 1: notears-mlp-admm over K blocks).
 * DATA_DIR defaults to $top_srcdir/../shared/data; without TAG:K it runs
 * M_d10_n200_mlp_s1:1 and MA_d20_n512_K8_s1:8.  The reference's seed is the tag's s number.
 * NOTEARS_DIR and NOTEARS_ADMM_DIR name the reference checkouts (default ../ref/... beside
 * the source tree), PYTHON the interpreter (default /usr/bin/python3).
 *
 * bench-mlp --optimisers times the optimiser libraries' own work per evaluation (outside
 * the objective) at the client's and the server's sizes of MA: liblbfgs through fb_owlqn
 * under scipy's rules, and liblbfgsb through fb_lbfgsb. */
#include "config.h"

#define _GNU_SOURCE 1
#include <sched.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/algo.h"
#include "fedbn/metrics.h"
#include "fedbn/optim.h"
#include "fedbn/partition.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* The solver= word of notears-mlp ("solver=lbfgsb" unless --owlqn). */
static const char *bench_solver = "solver=lbfgsb";

/* Run notears-mlp (K = 1) or notears-mlp-admm over K contiguous equal blocks on ds to its end;
 * its graph in *g and the processor seconds of the run in *cpu.  FB_ERR with the reason
 * printed. */
static int bench_one(const fb_dataset *ds, size_t K, fb_graph **g, double *cpu, size_t *rounds)
{
	fb_split_options so;
	fb_error err = { "" };
	fb_partition *p = NULL;
	fb_run *run = NULL;
	fb_params params;
	double c0;

	*g = NULL;
	fb_split_options_init(&so);
	so.shuffle = 0;
	if (K > 1 && (p = fb_split(ds, FB_SPLIT_HORIZONTAL, K, &so, &err)) == NULL)
		goto out;
	if (K > 1) {
		run = fb_run_alloc(&(fb_run_spec){ .algo = "notears-mlp-admm", .data = ds,
		                                   .part = p },
		                   &err);
	} else {
		params = fb_params_defaults(fb_algo_notears_mlp.params);
		if (fb_params_set_word(&params, bench_solver, "bench", &err) == FB_OK)
			run = fb_run_alloc(&(fb_run_spec){ .algo = "notears-mlp",
			                                   .params = &params, .data = ds },
			                   &err);
		fb_params_release(&params);
	}
	if (run == NULL)
		goto out;
	c0 = bench_cpu_now();
	while (!fb_run_done(run) && fb_run_step(run, &err) == FB_OK)
		;
	*cpu = bench_cpu_now() - c0;
	*rounds = fb_run_rounds(run);
	*g = fb_run_result(run, &err);
	fb_run_free(run);
out:
	if (*g == NULL)
		printf("  failed: %s\n", err.msg);
	fb_partition_free(p);
	return *g != NULL ? FB_OK : FB_ERR;
}

/* The reference's run on DIR/synth/TAG (bench/mlp-reference.py with /usr/bin/python3 or
 * PYTHON, the checkout NOTEARS_DIR for K = 1 or NOTEARS_ADMM_DIR, by default
 * ../ref/xunzheng+notears and ../ref/ignavierng+notears-admm beside the source tree, torch
 * and the BLAS on one thread, on this process's processors): the processor seconds of its
 * learning call and of its whole process, its graph over ds's variables in *g.  FB_ERR with
 * a line printed when it cannot be run. */
static int bench_reference(const char *dir, const char *tag, size_t K, const fb_dataset *ds,
                           double *call, double *proc, fb_graph **g)
{
	const char *top = getenv("top_srcdir"), *py = getenv("PYTHON");
	const char *env = getenv(K > 1 ? "NOTEARS_ADMM_DIR" : "NOTEARS_DIR");
	const char *s = strrchr(tag, 's');
	char ref[4096], cmd[3 * 4096], line[256];
	size_t i, j;
	FILE *p;

	if (top == NULL)
		top = FB_TOP_SRCDIR;
	if (env != NULL && env[0] != '\0')
		snprintf(ref, sizeof ref, "%s", env);
	else
		snprintf(ref, sizeof ref, "%s/../ref/%s", top,
		         K > 1 ? "ignavierng+notears-admm" : "xunzheng+notears");
	if (py == NULL || py[0] == '\0')
		py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH='%s' '%s' "
	         "'%s/bench/mlp-reference.py' '%s/synth/%s' %zu %lu", ref, py, top, dir, tag, K,
	         s != NULL ? strtoul(s + 1, NULL, 10) : 1UL);
	if ((p = popen(cmd, "r")) == NULL || fgets(line, sizeof line, p) == NULL ||
	    sscanf(line, "cpu_call %lf", call) != 1 || fgets(line, sizeof line, p) == NULL ||
	    sscanf(line, "cpu_process %lf", proc) != 1) {
		printf("  reference: did not run (%s)\n", cmd);
		if (p != NULL)
			pclose(p);
		return FB_ERR;
	}
	*g = fb_graph_alloc(ds->d);
	for (i = 0; i < ds->d; i++)
		fb_graph_set_name(*g, i, ds->vars[i].name, NULL);
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%zu %zu", &i, &j) == 2 && i < ds->d && j < ds->d)
			fb_graph_set_directed(*g, i, j, 1.0);
	return pclose(p) == 0 ? FB_OK : FB_ERR;
}

/* One graph's line: its score against truth. */
static void bench_graph_line(const char *who, const fb_graph *g, const fb_graph *truth)
{
	fb_score s;
	fb_error err = { "" };

	if (fb_score_graph(g, truth, &s, &err) != FB_OK) {
		printf("  %-9s cannot be scored: %s\n", who, err.msg);
		return;
	}
	printf("  %-9s SHD %2zu TPR %.2f FDR %.2f NNZ %2zu\n", who, (size_t)s.shd, s.tpr, s.fdr,
	       (size_t)s.nnz);
}

/* Benchmark one TAG:K: fedbn's run, then the reference's on the same file. */
static void bench_tag(const char *dir, const char *spec)
{
	char tag[256];
	const char *colon = strchr(spec, ':');
	size_t K = colon != NULL ? (size_t)strtoul(colon + 1, NULL, 10) : 1;
	fb_dataset *ds;
	fb_graph *truth, *mine = NULL, *theirs = NULL;
	fb_score s;
	double c0 = bench_cpu_now(), cpu, whole, call, proc;
	size_t rounds;

	snprintf(tag, sizeof tag, "%.*s", colon != NULL ? (int)(colon - spec) : (int)strlen(spec),
	         spec);
	if (bench_load_synth(dir, tag, &ds, &truth) != FB_OK)
		return;
	if (bench_one(ds, K, &mine, &cpu, &rounds) == FB_OK) {
		whole = bench_cpu_now() - c0;
		printf("%s %s K=%zu: fedbn %.3f s cpu (run), %.3f s (reading the file and the run), "
		       "%zu rounds\n", tag, K > 1 ? "notears-mlp-admm" : "notears-mlp", K, cpu,
		       whole, rounds);
		bench_graph_line("fedbn", mine, truth);
		if (bench_reference(dir, tag, K, ds, &call, &proc, &theirs) == FB_OK) {
			bench_graph_line("reference", theirs, truth);
			printf("  reference %.3f s cpu (call), %.3f s (whole process): %.1fx and %.1fx "
			       "(goal >= 20x)", call, proc, call / cpu, proc / whole);
			if (fb_score_graph(mine, theirs, &s, NULL) == FB_OK)
				printf(", graphs %s (SHD between them %zu)", s.shd == 0 ? "equal" : "differ",
				       (size_t)s.shd);
			printf("\n");
		}
	}
	fb_graph_free(mine);
	fb_graph_free(theirs);
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Evaluations of optim_objective and the processor seconds they took. */
static size_t optim_evals;
static double optim_seconds;

/* A cheap smooth objective that keeps an optimiser busy for a few hundred iterations:
 * sum_k a_k x_k^2 / 2 + cos(x_k) / 10 with a_k from 1 to 1,153. */
static double optim_objective(const double *x, double *grad, size_t n, void *ctx)
{
	double c0 = bench_cpu_now(), f = 0.0;

	(void)ctx;
	for (size_t k = 0; k < n; k++) {
		double a = 1.0 + (double)((k % 97) * (k % 13));

		f += 0.5 * a * x[k] * x[k] + 0.1 * cos(x[k]);
		if (grad != NULL)
			grad[k] = a * x[k] - 0.1 * sin(x[k]);
	}
	optim_evals++;
	optim_seconds += bench_cpu_now() - c0;
	return f;
}

/* Microseconds per evaluation that one library spends outside optim_objective over n
 * variables (lbfgsb: liblbfgsb, else liblbfgs), memory 10 and tolerances that do not stop
 * it before 2,000 evaluations or convergence. */
static double optim_cost(size_t n, int lbfgsb)
{
	double *x = malloc(n * sizeof *x), c0;
	fb_lbfgs_options lo = { 10, 2000, 1e-300, 0.0, NULL, NULL, 1e-300 };
	fb_owlqn_options oo = { 0 };
	fb_lbfgs_report rep;
	int rc;

	if (x == NULL)
		return NAN;
	for (size_t k = 0; k < n; k++)
		x[k] = 3.0 * sin((double)k);
	oo.memory = 10;
	oo.max_eval = 2000;
	oo.ftol_rel = 1e-300;
	oo.gtol = 1e-300;
	oo.scipy_stop = 1;
	optim_evals = 0;
	optim_seconds = 0.0;
	c0 = bench_cpu_now();
	rc = lbfgsb ? fb_lbfgsb(n, x, optim_objective, NULL, &lo, &rep, NULL)
	            : fb_owlqn(n, x, optim_objective, NULL, &oo, &rep, NULL);
	c0 = bench_cpu_now() - c0 - optim_seconds;
	free(x);
	return rc == FB_OK && optim_evals > 0 ? 1e6 * c0 / (double)optim_evals : NAN;
}

/* Both libraries at the client's and the server's sizes. */
static void bench_optimisers(void)
{
	static const size_t sizes[] = { 4420, 4000 };

	printf("optimiser work per evaluation, outside the objective (one thread):\n");
	for (size_t i = 0; i < 2; i++)
		printf("%5zu variables  liblbfgs (fb_owlqn) %6.1f us  liblbfgsb (fb_lbfgsb) %6.1f us\n",
		       sizes[i], optim_cost(sizes[i], 0), optim_cost(sizes[i], 1));
}

/* The processors this process may run on, as "0-1" or "1", into buf. */
static const char *bench_cpus(char *buf, size_t cap)
{
	cpu_set_t set;
	size_t len = 0;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return "unknown";
	for (int c = 0; c < CPU_SETSIZE && len + 8 < cap; c++)
		if (CPU_ISSET(c, &set))
			len += (size_t)snprintf(buf + len, cap - len, "%s%d", len > 0 ? "," : "", c);
	return buf;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "M_d10_n200_mlp_s1:1", "MA_d20_n512_K8_s1:8",
		                                NULL };
	const char *top = getenv("top_srcdir");
	char dir[4096], buf[256];
	int first = 1;

	if (argc > 1 && strcmp(argv[1], "--optimisers") == 0) {
		bench_optimisers();
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--owlqn") == 0) {
		bench_solver = "solver=owlqn";
		argc--, argv++;
	}
	if (argc > 1 && strchr(argv[1], ':') == NULL) {
		snprintf(dir, sizeof dir, "%s", argv[1]);
		first = 2;
	} else {
		snprintf(dir, sizeof dir, "%s/../shared/data", top != NULL ? top : FB_TOP_SRCDIR);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fb_gsl_install_handler();
	printf("notears-mlp and notears-mlp-admm against their reference code on the shared "
	       "nonlinear files\n(one thread each; processor time; processor: %s; ",
	       bench_processor(buf, sizeof buf));
	printf("on CPUs %s):\n", bench_cpus(buf, sizeof buf));
	if (first < argc)
		for (int i = first; i < argc; i++)
			bench_tag(dir, argv[i]);
	else
		for (size_t i = 0; defaults[i] != NULL; i++)
			bench_tag(dir, defaults[i]);
	return 0;
}
