/* bench-feddag: MCSL, the learner each GS-/AS-FedDAG client runs, against gCastle's MCSL
 * (PyTorch) on the same file: for d = 10 and d = 40 a GP SEM of 600 rows (as the shared
 * FedDAG files are drawn) is written to a CSV file, then fedbn and gCastle each run in a
 * process of their own, one after the other, on it: 1,000 Adam steps of one sub-problem
 * (rho by the paper's Table 7, alpha 0), one thread.  Each figure is processor time: of the
 * steps alone (as each process measures it) and of the whole process (read from wait4, so
 * start-up, imports and reading the file count).  gCastle runs from
 * bench/mcsl-gcastle.py with the checkout named by GCASTLE (its gcastle folder) and Python
 * PYTHON or /usr/bin/python3.  The goal is fedbn five times faster.  Then the wall time of
 * one GS-FedDAG aggregation round (10 clients x 600 rows, 200 steps each) on two threads.
 *
 *   bench-feddag [STEPS]          the comparison (STEPS defaults to 1000), then the round
 *   bench-feddag --client FILE STEPS RHO   one fedbn process: prints "cpu S" and "loss L"
 */
#include "config.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/csv.h"
#include "fedbn/feddag.h"
#include "fedbn/mcsl.h"
#include "fedbn/sim.h"

extern char **environ;

/* n rows of a d-variable SEM of the given family on an ER graph with 2d edges. */
static fb_dataset *bench_data(size_t d, size_t n, enum fb_sem sem)
{
	fb_sim_options o;
	fb_error err = { "" };
	fb_dataset *ds = NULL;
	fb_graph *g = NULL;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = 2 * d;
	o.n = n;
	o.seed = 2022;
	o.sem = sem;
	if (fb_sim_generate(&o, &ds, &g, &err) != FB_OK)
		printf("bench-feddag: %s\n", err.msg);
	fb_graph_free(g);
	return ds;
}

/* The child's side: read path, make one MCSL client at its defaults and run steps Adam
 * steps at rho, alpha 0; prints the steps' processor seconds and the last loss. */
static int client_main(const char *path, size_t steps, double rho)
{
	fb_error err = { "" };
	fb_dataset *ds = fb_csv_read(path, NULL, NULL, &err);
	fb_mcsl_options o;
	fb_mcsl_client *c = NULL;
	fb_mcsl_parts parts = { 0 };
	double t0;
	int ret = FB_ERR;

	fb_mcsl_options_init(&o);
	if (ds != NULL)
		c = fb_mcsl_client_alloc(ds, 0, &o, &err);
	t0 = bench_cpu_now();
	for (size_t s = 0; c != NULL && s < steps; s++)
		if (fb_mcsl_client_step(c, 0.0, rho, &parts, &err) != FB_OK)
			goto done;
	if (c != NULL) {
		printf("cpu %.6f\nloss %.6g\n", bench_cpu_now() - t0, parts.loss);
		ret = FB_OK;
	}
done:
	if (ret != FB_OK)
		printf("error %s\n", err.msg);
	fb_mcsl_client_free(c);
	fb_dataset_free(ds);
	return ret == FB_OK ? 0 : 1;
}

/* A process's figures. */
typedef struct run_figs {
	double cpu;   /* processor seconds of the steps, as it printed them */
	double whole; /* processor seconds of the whole process (user + system) */
	double loss;  /* its last loss (the two programs' objectives differ in their terms) */
} run_figs;

/* Run argv (stdout to a temporary file) and read its "cpu" and "loss" lines and its
 * processor time; FB_ERR (a line printed) when it fails. */
static int run_child(char *const argv[], run_figs *f)
{
	char out[] = "/tmp/bench-feddag.XXXXXX", line[512];
	int fd = mkstemp(out), status = 0, got = 0;
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	pid_t pid;
	FILE *fp;

	if (fd < 0)
		return printf("  %s: no temporary file\n", argv[0]), FB_ERR;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0 ||
	    wait4(pid, &status, 0, &ru) != pid)
		status = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(fd);
	f->whole = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
	           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
	fp = fopen(out, "r");
	while (fp != NULL && fgets(line, sizeof line, fp) != NULL)
		got += sscanf(line, "cpu %lf", &f->cpu) + sscanf(line, "loss %lf", &f->loss);
	if (fp != NULL)
		fclose(fp);
	unlink(out);
	if (status != 0 || got != 2) {
		printf("  %s did not run (exit status %d)\n", argv[0], status);
		return FB_ERR;
	}
	return FB_OK;
}

/* gCastle's run on path (FB_ERR, a line printed, without GCASTLE or Python). */
static int run_gcastle(const char *path, const char *steps, const char *rho, run_figs *f)
{
	const char *gc = getenv("GCASTLE"), *top = getenv("top_srcdir"), *py = getenv("PYTHON");
	char script[4096];

	if (gc == NULL || gc[0] == '\0') {
		printf("  gCastle: not run (set GCASTLE to the gcastle folder of a checkout)\n");
		return FB_ERR;
	}
	if (py == NULL || py[0] == '\0')
		py = "/usr/bin/python3";
	snprintf(script, sizeof script, "%s/bench/mcsl-gcastle.py",
	         top != NULL ? top : FB_TOP_SRCDIR);
	setenv("PYTHONPATH", gc, 1);
	setenv("OPENBLAS_NUM_THREADS", "1", 1);
	setenv("OMP_NUM_THREADS", "1", 1);
	return run_child((char *const[]){ (char *)py, script, (char *)path, (char *)steps,
	                                  (char *)rho, NULL }, f);
}

/* fedbn then gCastle on one file of d variables; prints their figures. */
static int bench_pair(const char *self, size_t d, size_t steps, const char *dir)
{
	fb_dataset *ds = bench_data(d, 600, FB_SEM_GP);
	fb_error err = { "" };
	char path[4096], nsteps[32], rho[32];
	double rho_v, beta;
	run_figs mine, theirs;
	int ret;

	snprintf(path, sizeof path, "%s/gp-d%zu-n600.csv", dir, d);
	if (ds == NULL || fb_csv_write_dataset(ds, path, &err) != FB_OK) {
		printf("mcsl d=%zu: no data (%s)\n", d, err.msg);
		fb_dataset_free(ds);
		return 1;
	}
	fb_dataset_free(ds);
	fb_mcsl_table7(d, true, &rho_v, &beta);
	snprintf(nsteps, sizeof nsteps, "%zu", steps);
	snprintf(rho, sizeof rho, "%.17g", rho_v);
	ret = run_child((char *const[]){ (char *)self, (char *)"--client", path, nsteps, rho, NULL },
	                &mine);
	if (ret != FB_OK)
		return 1;
	printf("mcsl d=%-2zu 600 rows, %zu Adam steps, rho %g: fedbn %.3f s (whole process "
	       "%.3f s)\n", d, steps, rho_v, mine.cpu, mine.whole);
	fflush(stdout);
	if (run_gcastle(path, nsteps, rho, &theirs) != FB_OK)
		return 0;
	printf("  gCastle %.3f s (whole process %.3f s): fedbn %.1fx faster in the steps, "
	       "%.1fx over the whole process (goal >= 5x)\n", theirs.cpu, theirs.whole,
	       theirs.cpu / mine.cpu, theirs.whole / mine.whole);
	return 0;
}

/* Wall seconds of one GS-FedDAG round over 10 clients of 600 rows on two threads. */
static int bench_round(void)
{
	fb_dataset *ds = bench_data(10, 6000, FB_SEM_MIM);
	fb_fed_options fo;
	fb_error err = { "" };
	fb_partition *p = ds != NULL ? fb_split(ds, FB_SPLIT_HORIZONTAL, 10, NULL, &err) : NULL;
	fb_run *run = NULL;
	double t0;

	fb_fed_options_init(&fo);
	fo.threads = 2;
	if (p != NULL)
		run = fb_run_alloc(&(fb_run_spec){ .algo = "gs-feddag", .fedopt = &fo, .data = ds,
		                                   .part = p },
		                   &err);
	t0 = bench_now();
	if (run == NULL || fb_run_step(run, &err) != FB_OK) {
		printf("gs-feddag round: %s\n", err.msg);
	} else {
		printf("gs-feddag round, d=10, 10 x 600 rows, 200 steps, 2 threads: %.2f s wall "
		       "(a run of 25 outer iterations is at most 125 rounds)\n", bench_now() - t0);
	}
	fb_run_free(run);
	fb_partition_free(p);
	fb_dataset_free(ds);
	return run == NULL;
}

/* The comparison at d = 10 and 40 in a temporary folder, then one federated round. */
int main(int argc, char **argv)
{
	char model[256], dir[] = "/tmp/bench-feddag-data.XXXXXX", path[4096];
	size_t steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	int ret;

	if (argc == 5 && strcmp(argv[1], "--client") == 0)
		return client_main(argv[2], strtoul(argv[3], NULL, 10), strtod(argv[4], NULL));
	if (mkdtemp(dir) == NULL)
		return printf("bench-feddag: no temporary folder\n"), 1;
	printf("processor: %s; BLAS: %s, one thread; processor time, one run each\n",
	       bench_processor(model, sizeof model), FB_BLAS_NAME);
	ret = bench_pair("/proc/self/exe", 10, steps > 0 ? steps : 1000, dir) |
	      bench_pair("/proc/self/exe", 40, steps > 0 ? steps : 1000, dir);
	for (size_t d = 10; d <= 40; d += 30) {
		snprintf(path, sizeof path, "%s/gp-d%zu-n600.csv", dir, d);
		unlink(path);
	}
	rmdir(dir);
	return ret | bench_round();
}
