/* bench-threads: every threaded path but PC's Fisher-z levels (bench-pc times those), once
 * with one thread (or job) and once with two, side by side: fedcircuit on a million binary
 * rows over 10 clients, GES (its operators scored on threads), FedPC (its 10 clients on
 * threads), bootstrap of GES (jobs=) and a sweep of GES cells (jobs=, forked processes).
 *
 * Each line gives the wall and processor time of both (the processor time of a sweep counts
 * its cells' processes), the system part of the latter (page faults, mapping memory, waking
 * threads: what two threads of one process contend for in the kernel) and the minor page
 * faults (first touches of memory), then what two threads would give on two idle cores, read
 * off the processor times (fb_threads_times), since the wall times of a loaded machine say
 * little (other work shares the cores by session group, and a second thread gets little more
 * of them): the processor time of two threads against one (o, the work a second thread
 * adds), the time that would leave one core idle (the serial parts between the threaded
 * calls, and the busiest thread's lead over the other in each call) as a fraction f of the
 * two threads' processor time, and Amdahl's speed-up with the measured overhead,
 * 1 / (o (f + (1 - f) / 2)) (target 1.7x; a sweep's jobs are processes, whose threads are
 * not timed: its f is taken as 0, a bound).  On a loaded machine the two threads seldom run
 * at once, so o misses what they cost each other on one memory bus and in the kernel.  The line ends with the wall speed-up, the load average
 * before the pair ran (/proc/loadavg), and whether the two results are the same bits: a digest
 * of every round's figures and bytes and of the result (a graph's marks and weights, a
 * circuit's text, a bootstrap's strengths and consensus, a sweep's rows less their two time
 * columns).  The exit status is 1 when some pair differs or fails.
 *
 * Usage: bench-threads [CASE...]   (CASE: fedcircuit ges fedpc bootstrap sweep; default all)
 * The sweep runs FEDBN (default ./fedbn, beside the benchmark in the build folder). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/algo.h"
#include "fedbn/bootstrap.h"
#include "fedbn/circuit.h"
#include "fedbn/partition.h"
#include "fedbn/sim.h"

/* The FNV-1a offset basis. */
#define DIGEST_START UINT64_C(1469598103934665603)

/* Mix len bytes of v into the digest h. */
static uint64_t mix(uint64_t h, const void *v, size_t len)
{
	const unsigned char *b = v;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * UINT64_C(1099511628211);
	return h;
}

/* What one case needs: its data, and how to run it once. */
typedef struct bcase {
	const char *name;        /* as named on the command line */
	const char *what;        /* the data and settings, in words */
	const char *algo;        /* the learner run (fb_run_spec.algo) */
	fb_dataset *data;        /* its data (owned) */
	fb_partition *part;      /* its split, or NULL (owned) */
	int (*once)(const struct bcase *c, size_t threads, uint64_t *digest, fb_error *err);
	const char *fedbn;       /* sweep: the program to run */
} bcase;

/* Data simulated as `gen er d= edges= n= seed=` does, with the first discrete variables cut
 * into levels levels (0: none); NULL with the reason printed. */
static fb_dataset *simulate(size_t d, size_t edges, size_t n, size_t discrete, size_t levels)
{
	fb_sim_options so;
	fb_dataset *ds = NULL;
	fb_graph *truth = NULL;
	fb_error err = { "" };

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = edges;
	so.n = n;
	so.seed = 2;
	so.discrete = discrete;
	so.levels = levels;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK)
		fprintf(stderr, "bench-threads: %s\n", err.msg);
	fb_graph_free(truth);
	return ds;
}

/* The digest of a run's rounds (figures, bytes, edges) and of its result. */
static uint64_t run_digest(const fb_run *run, fb_error *err)
{
	uint64_t h = DIGEST_START;
	fb_graph *g;

	for (size_t r = 0; r < run->trace.n; r++) {
		const fb_trace_rec *rec = &run->trace.r[r];

		h = mix(h, rec->fig, run->trace.nfig * sizeof *rec->fig);
		h = mix(h, &rec->bytes_up, sizeof rec->bytes_up);
		h = mix(h, &rec->bytes_down, sizeof rec->bytes_down);
		h = mix(h, &rec->edges, sizeof rec->edges);
	}
	if (fb_run_is_circuit(run)) {
		const fb_circuit *c = fb_run_circuit(run, err);
		char *buf = NULL;
		size_t len = 0;
		FILE *fp = c != NULL ? open_memstream(&buf, &len) : NULL;

		if (fp == NULL)
			return 0;
		fb_circuit_write(c, fp, NULL);
		fclose(fp);
		h = mix(h, buf, len);
		free(buf);
		return h;
	}
	if ((g = fb_run_result(run, err)) == NULL)
		return 0;
	h = mix(h, g->mark, g->d * g->d * sizeof *g->mark);
	h = mix(h, g->w, g->d * g->d * sizeof *g->w);
	fb_graph_free(g);
	return h;
}

/* A run of the case's learner to its end with the given threads. */
static int run_once(const bcase *c, size_t threads, uint64_t *digest, fb_error *err)
{
	fb_fed_options fo;
	fb_run_spec spec = { .algo = c->algo, .fedopt = &fo, .data = c->data, .part = c->part };
	fb_run *run;

	fb_fed_options_init(&fo);
	fo.threads = threads;
	if ((run = fb_run_alloc(&spec, err)) == NULL)
		return FB_ERR;
	while (!fb_run_done(run))
		if (fb_run_step(run, err) != FB_OK) {
			fb_run_free(run);
			return FB_ERR;
		}
	*digest = run_digest(run, err);
	fb_run_free(run);
	return *digest != 0 ? FB_OK : FB_ERR;
}

/* A bootstrap of 12 resamples of the case's learner on jobs jobs. */
static int boot_once(const bcase *c, size_t jobs, uint64_t *digest, fb_error *err)
{
	fb_run_spec spec = { .algo = c->algo, .data = c->data };
	fb_boot_options o;
	fb_boot *b;
	size_t d = c->data->d;

	fb_boot_options_init(&o);
	o.resamples = 12;
	o.jobs = jobs;
	if ((b = fb_bootstrap(&spec, &o, err)) == NULL)
		return FB_ERR;
	*digest = mix(DIGEST_START, b->strength, d * d * sizeof *b->strength);
	*digest = mix(*digest, b->direction, d * d * sizeof *b->direction);
	*digest = mix(*digest, &b->threshold, sizeof b->threshold);
	*digest = mix(*digest, b->consensus->mark, d * d * sizeof *b->consensus->mark);
	fb_boot_free(b);
	return FB_OK;
}

/* The digest of a sweep's CSV rows at path, less the columns named seconds and wall. */
static int csv_digest(const char *path, uint64_t *digest, fb_error *err)
{
	FILE *fp = fopen(path, "r");
	char line[8192];
	bool skip[256] = { false };
	size_t rows = 0;

	if (fp == NULL)
		return fb_fail(err, "the sweep wrote no '%s'", path);
	*digest = DIGEST_START;
	while (fgets(line, sizeof line, fp) != NULL) {
		size_t col = 0;

		for (char *f = strtok(line, ",\n"); f != NULL; f = strtok(NULL, ",\n"), col++) {
			if (rows == 0 && col < 256)
				skip[col] = strcmp(f, "seconds") == 0 || strcmp(f, "wall") == 0;
			if (col >= 256 || !skip[col])
				*digest = mix(*digest, f, strlen(f) + 1);
		}
		rows++;
	}
	fclose(fp);
	return rows > 1 ? FB_OK : fb_fail(err, "the sweep's '%s' has no rows", path);
}

/* A sweep of 12 GES cells (d = 40, n = 3000, seeds 1 to 12) run by c->fedbn on jobs
 * processes. */
static int sweep_once(const bcase *c, size_t jobs, uint64_t *digest, fb_error *err)
{
	char dir[] = "/tmp/bench-threads.XXXXXX", cmd[8192], out[64];
	int ret;

	if (mkdtemp(dir) == NULL)
		return fb_fail(err, "cannot make a folder in /tmp");
	snprintf(out, sizeof out, "%s/sweep.csv", dir);
	snprintf(cmd, sizeof cmd, "FEDBN_HISTORY=/dev/null '%s' --no-pane --quiet -c 'sweep "
	         "seed=1..12 do=\"gen er d=40 edges=60 n=3000 seed=${seed}; algo ges; run\" "
	         "out=%s jobs=%zu progress=1000' > %s/log 2>&1", c->fedbn, out, jobs, dir);
	if (system(cmd) != 0)
		ret = fb_fail(err, "'%s' failed (see %s/log)", cmd, dir);
	else
		ret = csv_digest(out, digest, err);
	if (ret == FB_OK) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		ret = system(cmd) == 0 ? FB_OK : fb_fail(err, "cannot remove %s", dir);
	}
	return ret;
}

/* Seconds of a struct timeval. */
static double tv_seconds(struct timeval tv)
{
	return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

/* Processor seconds of this process and of its waited-for children. */
static double cpu_all(void)
{
	struct rusage ru;
	double s = bench_cpu_now();

	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		s += tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
	return s;
}

/* System (kernel) seconds of this process and of its waited-for children: page faults,
 * mapping and unmapping memory, starting and waking threads; their minor page faults (first
 * touches of memory) into *faults. */
static double sys_all(double *faults)
{
	struct rusage me, kids;

	*faults = 0;
	if (getrusage(RUSAGE_SELF, &me) != 0 || getrusage(RUSAGE_CHILDREN, &kids) != 0)
		return 0;
	*faults = (double)me.ru_minflt + (double)kids.ru_minflt;
	return tv_seconds(me.ru_stime) + tv_seconds(kids.ru_stime);
}

/* The 1-, 5- and 15-minute load averages, as /proc/loadavg gives them, into buf. */
static const char *load_now(char *buf, size_t cap)
{
	FILE *fp = fopen("/proc/loadavg", "r");
	double a = 0, b = 0, c = 0;

	if (fp == NULL || fscanf(fp, "%lf %lf %lf", &a, &b, &c) != 3)
		snprintf(buf, cap, "unknown");
	else
		snprintf(buf, cap, "%.2f %.2f %.2f", a, b, c);
	if (fp != NULL)
		fclose(fp);
	return buf;
}

/* The figures of one case's pair: [0] one thread, [1] two. */
typedef struct bpair {
	double wall[2], cpu[2]; /* wall and processor seconds (a sweep's with its cells') */
	double sys[2];          /* the system part of cpu */
	double faults[2];       /* minor page faults */
	double work[2], span[2]; /* fb_threads_times over the run: the threads' sum, the busiest */
} bpair;

/* Print case c's line from its pair p: the times, the processor time of two threads against
 * one (o: what a second thread adds), the time two threads would leave one thread busy on
 * idle cores (the serial parts, cpu - work, plus the busiest threads' lead over the others,
 * 2 span - work) as the fraction f of the two threads' processor time, and Amdahl's speed-up
 * with the overhead measured: 1 / (o (f + (1 - f) / 2)).  A sweep's jobs are processes,
 * whose threads are not timed: its f is taken as 0 (a bound). */
static void bench_print(const bcase *c, const bpair *p, const char *load, bool same,
                        uint64_t digest)
{
	bool sweep = c->once == sweep_once;
	double o = p->cpu[1] / p->cpu[0], serial = sweep ? 0 : p->cpu[1] - p->work[1];
	double lead = sweep ? 0 : 2 * p->span[1] - p->work[1], f = (serial + lead) / p->cpu[1];

	printf("%s (%s): 1: %.2f s wall, %.2f s processor (%.2f s system, %.0f page faults); "
	       "2: %.2f s wall, %.2f s processor (%.2f s system, %.0f page faults); processor "
	       "2/1 %.3f; one thread busy %.3f s "
	       "(serial %.3f s, uneven shares %.3f s%s), %.1f %% of 2's processor time; Amdahl "
	       "with the overhead: 1 / (%.3f (%.3f + %.3f / 2)) = %.2fx on idle cores%s (target "
	       "1.7x); wall %.2fx; load before %s; results %s (%016llx)\n",
	       c->name, c->what, p->wall[0], p->cpu[0], p->sys[0], p->faults[0], p->wall[1],
	       p->cpu[1], p->sys[1], p->faults[1], o, serial + lead,
	       serial, lead, sweep ? ": processes, not timed, taken as 0" : "", 100 * f, o, f,
	       1 - f, 1 / (o * (f + (1 - f) / 2)), sweep ? " (a bound)" : "",
	       p->wall[0] / p->wall[1], load, same ? "identical" : "DIFFER",
	       (unsigned long long)digest);
	fflush(stdout);
}

/* Run case c with one thread and with two, print its line; false when they differ or
 * fail. */
static bool bench_case(const bcase *c)
{
	bpair p;
	double w0, s0, f;
	uint64_t dig[2] = { 0, 0 };
	char load[64];
	fb_error err = { "" };

	load_now(load, sizeof load);
	/* two threads first: the later run finds memory the earlier one mapped and freed, so
	 * that the speed-up is not flattered */
	for (size_t k = 0; k < 2; k++) {
		size_t t = 1 - k;

		fb_threads_times(&w0, &s0);
		p.wall[t] = bench_now();
		p.cpu[t] = cpu_all();
		p.sys[t] = sys_all(&p.faults[t]);
		if (c->once(c, t + 1, &dig[t], &err) != FB_OK) {
			printf("%s: FAILED with %zu: %s\n", c->name, t + 1, err.msg);
			return false;
		}
		p.wall[t] = bench_now() - p.wall[t];
		p.cpu[t] = cpu_all() - p.cpu[t];
		p.sys[t] = sys_all(&f) - p.sys[t];
		p.faults[t] = f - p.faults[t];
		fb_threads_times(&p.work[t], &p.span[t]);
		p.work[t] -= w0;
		p.span[t] -= s0;
	}
	bench_print(c, &p, load, dig[0] == dig[1], dig[0]);
	return dig[0] == dig[1];
}

/* Whether case name is to run: named on the command line, or none named. */
static bool wanted(const char *name, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return argc < 2;
}

/* Fill case c's data (an even horizontal split into k clients when k > 0); false when it
 * cannot be made. */
static bool make_data(bcase *c, size_t d, size_t edges, size_t n, size_t discrete, size_t k)
{
	fb_error err = { "" };

	if ((c->data = simulate(d, edges, n, discrete, 2)) == NULL)
		return false;
	if (k > 0 && (c->part = fb_split(c->data, FB_SPLIT_HORIZONTAL, k, NULL, &err)) == NULL) {
		fprintf(stderr, "bench-threads: %s\n", err.msg);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	const char *fedbn = getenv("FEDBN") != NULL ? getenv("FEDBN") : "./fedbn";
	bcase cases[] = {
		{ "fedcircuit", "1,000,000 rows x 16 binary variables over 10 clients",
		  "fedcircuit", NULL, NULL, run_once, NULL },
		{ "ges", "d = 80, 160 edges, n = 10,000, BIC", "ges", NULL, NULL, run_once, NULL },
		{ "fedpc", "d = 200, 300 edges, n = 200,000 over 10 clients, Fisher-z", "fedpc",
		  NULL, NULL, run_once, NULL },
		{ "bootstrap", "12 resamples of GES, d = 50, n = 4,000, jobs=", "ges", NULL, NULL,
		  boot_once, NULL },
		{ "sweep", "12 cells of GES, d = 40, n = 3,000, jobs=", "ges", NULL, NULL,
		  sweep_once, fedbn },
	};
	size_t shape[][5] = { { 16, 24, 1000000, 16, 10 }, { 80, 160, 10000, 0, 0 },
		              { 200, 300, 200000, 0, 10 }, { 50, 75, 4000, 0, 0 } };
	char cpu[256], load[64];
	bool ok = true;

	fb_blas_single_thread();
	printf("threads: %s, %ld processors online, load average %s\n",
	       bench_processor(cpu, sizeof cpu), sysconf(_SC_NPROCESSORS_ONLN),
	       load_now(load, sizeof load));
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bcase *c = &cases[i];
		const size_t *s = shape[i < 4 ? i : 0];

		if (!wanted(c->name, argc, argv))
			continue;
		if (c->once != sweep_once && !make_data(c, s[0], s[1], s[2], s[3], s[4]))
			ok = false;
		else
			ok = bench_case(c) && ok;
		fb_partition_free(c->part);
		fb_dataset_free(c->data);
	}
	printf("threads: %s\n", ok ? "every pair gave the same results"
	                           : "SOME PAIR DIFFERED OR FAILED");
	return ok ? 0 : 1;
}
