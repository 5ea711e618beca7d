/* bench-pc: wall and processor time (of the run with the least processor time) of PC with
 * Fisher-z (stable, alpha 0.05 and 0.01) on the shared synthetic data A_d50_n150_s1 and
 * A_d100_n300_s1 (causal-learn's pc takes about 0.9 s and 5.2 s on them), and on a simulated
 * linear-Gaussian sample with d = 1000, n = 5000 and 1000 edges; then PC with chi-square as causal-learn runs it (compat=causal-learn, alpha 0.05) on
 * 10,000 rows sampled from alarm and andes (causal-learn takes about 17 s on the 76-variable
 * win95pts network, which the shared data lacks: the 37-variable alarm and the 223-variable
 * andes stand on either side of it; pigs is left out, its hub of 39 children makes the run
 * take minutes), with one thread and with two (the processor time is then of both); with
 * tests asked, cache hits, levels and the CPDAG-SHD against the truth, then the two threads'
 * speed-up in wall time and whether their CPDAG and separating sets equal one thread's (the
 * exit status is 1 when they differ).
 *
 * Last, when FB_BENCH_HUGE is set (not empty, not 0; `make bench` sets it), the scale rows,
 * each in a child process so that its peak memory is its own: PC with Fisher-z on a
 * simulated sample of d = 10,000, n = 10,000 (10,000 edges; 2.1e9 tests over 24 levels) with
 * one thread and with two (the bench fails when their CPDAG and separating sets differ), then
 * d = 20,000, n = 3,000 with two; each with the processor's model, wall and processor time,
 * the correlation matrix's build and level 0 apart (wall and processor time; the build's
 * units of work and how much busier its busiest thread was than the mean), the speed-up of
 * two threads in wall time and their processor time against one thread's, peak memory
 * (bytes a variable and an edge), and for the threaded levels the units of work
 * their searches were cut into, the tests spent past a pair's find, how much busier the
 * busiest thread was than the mean, and the same for 16 threads simulated from the units'
 * measured processor times (so that a 2-core machine shows whether 16 could be kept busy).
 *
 * Each scale row is followed by the processor time of its stages (simulation, correlation
 * matrix, level 0, level 1, later levels, orientation), the share of PC's processor time
 * outside the threaded units, and the same size run as a user would, by this build's fedbn
 * in its own process (gen, set threads=T, algo pc, run, result): its peak memory and
 * processor time; then the processor time of two threads against one's stage by stage, and
 * one thread's wall time over two's (level 1, whose searches run in two phases, always with
 * its units' line: the busiest thread against the mean).
 *
 * Usage: bench-pc [SRCDIR [DATADIR]], or bench-pc --scale [D N] for the scale rows alone
 * (D N: those rows at d = D, n = N, without the d = 20,000 row)
 * DATADIR defaults to SRCDIR/../shared/data, SRCDIR to the configured source folder.  Set
 * OPENBLAS_NUM_THREADS=1 to measure one thread. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/algo.h"
#include "fedbn/bif.h"
#include "fedbn/cpdag.h"
#include "fedbn/csv.h"
#include "fedbn/pc.h"
#include "fedbn/sim.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif
#ifndef FB_TOP_BUILDDIR
#define FB_TOP_BUILDDIR "."
#endif

/* What one run of PC did. */
typedef struct bench_run {
	double seconds;   /* wall time from the data to the CPDAG */
	double cpu;       /* processor time of the same (less disturbed by a loaded machine) */
	size_t levels;    /* skeleton levels run */
	size_t tests;     /* tests asked for */
	size_t hits;      /* of which the cache answered */
	size_t shd;       /* CPDAG-SHD against the truth's CPDAG */
	size_t edges;     /* edges of the CPDAG */
	double extend;    /* wall time of the CPDAG's DAG extension (Dor and Tarsi), as every
	                     round's score against the truth needs it */
	uint64_t digest;  /* the CPDAG and the separating sets, hashed (pc_digest) */
} bench_run;

/* The test of the runs: Fisher-z, or chi-square in causal-learn's conventions. */
static bool bench_discrete;

/* Threads of the chi-square runs (their tests; results do not depend on it). */
static size_t bench_threads = 1;

/* Fold the n bytes at p into the FNV-1a hash h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t k = 0; k < n; k++)
		h = (h ^ b[k]) * 1099511628211ull;
	return h;
}

/* A hash of pc's CPDAG and separating sets (equal runs, equal hashes). */
static uint64_t pc_digest(const fb_pc *pc)
{
	const fb_graph *g = fb_pc_graph(pc);
	const fb_sepsets *s = fb_pc_sepsets(pc);
	size_t d = g->d, *S = fb_xmalloc((d > 0 ? d : 1) * sizeof *S);
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			int e = (int)fb_graph_edge(g, i, j);

			h = fnv(h, &e, sizeof e);
			if (fb_sepsets_has(s, i, j)) {
				size_t k = fb_sepsets_get(s, i, j, S);

				h = fnv(h, &i, sizeof i);
				h = fnv(h, S, k * sizeof *S);
			}
		}
	free(S);
	return h;
}

/* Run PC (stable) on ds at alpha and compare with truth's CPDAG. */
static int bench_once(const fb_dataset *ds, const fb_graph *truth, double alpha,
                      bench_run *b)
{
	fb_pc_options o;
	fb_pc *pc;
	fb_pc_round r;
	fb_ci_stats st;
	fb_graph *cp;
	fb_error err = { "" };
	double t0 = bench_now(), c0 = bench_cpu_now();

	fb_pc_options_init(&o);
	o.alpha = alpha;
	o.ci.test = bench_discrete ? FB_CI_CHI2 : FB_CI_FISHER_Z;
	if (bench_discrete) {
		o.compat = FB_PC_COMPAT_CAUSAL_LEARN;
		o.threads = bench_threads;
	}
	if ((pc = fb_pc_alloc(ds, &o, &err)) == NULL) {
		printf("pc: %s\n", err.msg);
		return FB_ERR;
	}
	b->levels = 0;
	while (!fb_pc_done(pc)) {
		if (fb_pc_step(pc, &r, &err) != FB_OK) {
			printf("pc: %s\n", err.msg);
			fb_pc_free(pc);
			return FB_ERR;
		}
		b->levels += !r.orientation;
	}
	b->seconds = bench_now() - t0;
	b->cpu = bench_cpu_now() - c0;
	fb_ci_get_stats(fb_pc_ci(pc), &st);
	b->tests = st.queries;
	b->hits = st.hits;
	b->edges = fb_graph_n_edges(fb_pc_graph(pc));
	b->digest = pc_digest(pc);
	t0 = bench_now();
	fb_graph_free(fb_cpdag_to_dag(fb_pc_graph(pc), NULL));
	b->extend = bench_now() - t0;
	cp = fb_cpdag_from_dag(truth, NULL);
	b->shd = 0;
	if (cp != NULL)
		fb_cpdag_shd(fb_pc_graph(pc), cp, &b->shd, NULL);
	fb_graph_free(cp);
	fb_pc_free(pc);
	return FB_OK;
}

/* Print one line of figures, the time the best of reps runs, and the target (or NULL); that
 * run's figures returned (its tests 0 when a run failed). */
static bench_run bench_print(const char *what, double alpha, const fb_dataset *ds,
                             const fb_graph *truth, int reps, const char *target)
{
	bench_run b, best = { 0 };

	for (int k = 0; k < reps; k++) {
		if (bench_once(ds, truth, alpha, &b) != FB_OK)
			return (bench_run){ .tests = 0 };
		if (k == 0 || b.cpu < best.cpu)
			best = b;
	}
	printf("%-16s alpha %-5g %9.4f s (CPU %.4f s)  levels %zu  tests %8zu  hits %8zu  "
	       "edges %4zu  truth %4zu  CPDAG-SHD %zu  DAG extension %.4f s%s%s%s\n", what, alpha,
	       best.seconds, best.cpu, best.levels, best.tests, best.hits, best.edges,
	       fb_graph_n_edges(truth), best.shd, best.extend, target != NULL ? " (target " : "",
	       target != NULL ? target : "", target != NULL ? ")" : "");
	return best;
}

/* Benchmark the shared synthetic folders. */
static void bench_shared(const char *dir)
{
	static const char *const tags[] = { "A_d50_n150_s1", "A_d100_n300_s1" };

	for (size_t t = 0; t < 2; t++) {
		fb_dataset *ds;
		fb_graph *truth;

		if (bench_load_synth(dir, tags[t], &ds, &truth) != FB_OK)
			continue;
		bench_print(tags[t], 0.05, ds, truth, 20, NULL);
		bench_print(tags[t], 0.01, ds, truth, 20, NULL);
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
}

/* PC as the shell runs it (alpha 0.01) on ds with the truth loaded: every level's estimate
 * kept and scored against the truth; print the wall and processor time of all rounds. */
static void bench_scored(const char *what, const fb_dataset *ds, const fb_graph *truth,
                         const char *target)
{
	fb_params params;
	fb_error err = { "" };
	fb_run *run = NULL;
	double t0 = bench_now(), c0 = bench_cpu_now();
	fb_score sc = { 0 };

	if (fb_params_init(&params, fb_algo_pc.params, &err) != FB_OK ||
	    fb_params_set_word(&params, "alpha=0.01", "pc", &err) != FB_OK ||
	    (run = fb_run_alloc(&(fb_run_spec){ .algo = "pc", .params = &params, .data = ds,
	                                        .truth = truth },
	                        &err)) == NULL) {
		printf("%s: %s\n", what, err.msg);
		fb_params_release(&params);
		return;
	}
	while (!fb_run_done(run))
		if (fb_run_step(run, &err) != FB_OK) {
			printf("%s: %s\n", what, err.msg);
			break;
		}
	t0 = bench_now() - t0;
	c0 = bench_cpu_now() - c0;
	fb_run_score(run, &sc, &err);
	printf("%-16s alpha 0.01  %9.4f s (CPU %.4f s) with the truth loaded: %zu rounds, each "
	       "scored (SHD %g, CPDAG-SHD %g)%s%s%s\n", what, t0, c0, fb_run_rounds(run), sc.shd,
	       sc.shd_cpdag, target != NULL ? " (target " : "", target != NULL ? target : "",
	       target != NULL ? ")" : "");
	fb_run_free(run);
	fb_params_release(&params);
}

/* Benchmark a simulated linear-Gaussian sample of d variables, n rows and d edges (seed 1)
 * against target, then as the shell runs it. */
static void bench_large(size_t d, size_t n, const char *target)
{
	fb_sim_options so;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err = { "" };
	double t0 = bench_now();
	char what[64];

	fb_sim_options_init(&so);
	so.d = d;
	so.edges = d;
	so.n = n;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("simulation: %s\n", err.msg);
		return;
	}
	printf("simulated d %zu, n %zu, %zu edges in %.2f s\n", d, n, d, bench_now() - t0);
	snprintf(what, sizeof what, "sim_d%zu_n%zu", d, n);
	bench_print(what, 0.01, ds, truth, 1, target);
	bench_scored(what, ds, truth, "end to end under 1 s");
	fb_dataset_free(ds);
	fb_graph_free(truth);
}

/* Benchmark chi-square PC on 10,000 rows sampled from each shared BIF network, on one thread
 * and on two; false when the two differ in their CPDAG or separating sets. */
static bool bench_bif(const char *dir)
{
	bool same = true;
	static const char *const nets[] = { "alarm", "andes" };
	static const char *const targets[] = { "under 0.05 s", "under 1 s" };
	static const int reps[] = { 20, 3 }; /* alarm's run is about 10 ms: its best of 3
	                                        moved by a tenth between runs */

	bench_discrete = true;
	printf("PC, chi-square, compat=causal-learn; 10,000 rows sampled with seed 1; best of 20 "
	       "runs (alarm), 3 (andes)\n");
	for (size_t t = 0; t < sizeof nets / sizeof nets[0]; t++) {
		char path[4096 + 64];
		fb_error err = { "" };
		fb_bn *bn;
		fb_dataset *ds = NULL;
		fb_graph *truth = NULL;
		bench_run runs[2] = { { .tests = 0 }, { .tests = 0 } };

		snprintf(path, sizeof path, "%s/bif/%s.bif", dir, nets[t]);
		if ((bn = fb_bif_read(path, &err)) == NULL) {
			printf("%s: skipped (%s)\n", nets[t], err.msg);
			continue;
		}
		ds = fb_bn_sample(bn, 10000, 1, &err);
		truth = fb_bn_graph(bn);
		for (bench_threads = 1; bench_threads <= 2 && ds != NULL && truth != NULL;
		     bench_threads++) {
			char what[64];

			snprintf(what, sizeof what, "%s, %zu thr", nets[t], bench_threads);
			runs[bench_threads - 1] = bench_print(what, 0.05, ds, truth, reps[t], targets[t]);
		}
		if (ds != NULL && truth != NULL && runs[0].tests > 0 && runs[1].tests > 0) {
			bool eq = runs[0].digest == runs[1].digest;

			printf("%-16s two threads %.2fx one's wall time (goal 1.7x on an idle 2-core "
			       "machine), results %s\n", nets[t], runs[0].seconds / runs[1].seconds,
			       eq ? "the same" : "DIFFER");
			same = same && eq;
		}
		if (ds == NULL || truth == NULL)
			printf("%s: skipped (%s)\n", nets[t], ds == NULL ? err.msg : "out of memory");
		fb_dataset_free(ds);
		fb_graph_free(truth);
		fb_bn_free(bn);
	}
	bench_discrete = false;
	return same;
}

/* What a scale row's run (in a child process) sends back. */
typedef struct scale_res {
	int ok;              /* 1 when the run finished */
	double gen, gen_cpu;   /* the simulation's wall and processor time */
	double wall, cpu;      /* PC's wall and processor time */
	size_t levels, tests, edges, shd;
	uint64_t digest;     /* the CPDAG's relations and the separating sets, hashed */
	fb_pc_level tot;     /* the threaded levels' figures summed */
	double build_wall, build_cpu;   /* the correlation matrix's build (in fb_pc_alloc) */
	double level0_wall, level0_cpu; /* level 0 */
	double level1_wall, level1_cpu; /* level 1 */
	double later_wall, later_cpu;   /* the levels after level 1 */
	double orient_wall, orient_cpu; /* the orientation */
	fb_ci_stats st;      /* the test object's counters and build figures */
} scale_res;

/* Add a threaded level's balance to tot and print it when it ran long enough to matter. */
static void scale_level(const fb_pc_level *lv, fb_pc_level *tot)
{
	tot->units += lv->units;
	tot->cut += lv->cut;
	tot->spare += lv->spare;
	tot->work += lv->work;
	tot->busiest += lv->busiest;
	tot->span16 += lv->span16;
	tot->threads = lv->threads > 0 ? lv->threads : tot->threads;
	if (lv->units == 0 || (lv->work < 0.5 && lv->level > 1))
		return;
	printf("  level %2zu: %7zu units (%3zu vertices cut, %.3g tests past a find), %7.2f s of "
	       "work; busiest of %zu threads %.2f x the mean; of 16 simulated %.2f x the mean\n",
	       lv->level, lv->units, lv->cut, (double)lv->spare, lv->work, lv->threads, lv->busiest / (lv->work / (double)lv->threads),
	       lv->span16 / (lv->work / 16.0));
}

/* The child's run: simulate d variables, n rows, d edges (seed 1), PC at alpha 0.01 with
 * threads threads, and the figures into r. */
static void scale_child(size_t d, size_t n, size_t threads, scale_res *r)
{
	fb_sim_options so;
	fb_pc_options o;
	fb_dataset *ds;
	fb_graph *truth, *cp;
	fb_pc *pc;
	fb_pc_round rd;
	fb_error err = { "" };
	double t0 = bench_now(), c0 = bench_cpu_now();

	fb_sim_options_init(&so);
	so.d = so.edges = d;
	so.n = n;
	so.seed = 1;
	if (fb_sim_generate(&so, &ds, &truth, &err) != FB_OK) {
		printf("simulation: %s\n", err.msg);
		return;
	}
	r->gen = bench_now() - t0;
	r->gen_cpu = bench_cpu_now() - c0;
	fb_pc_options_init(&o);
	o.alpha = 0.01;
	o.threads = threads;
	t0 = bench_now();
	c0 = bench_cpu_now();
	if ((pc = fb_pc_alloc(ds, &o, &err)) == NULL) {
		printf("pc: %s\n", err.msg);
		return;
	}
	r->build_wall = bench_now() - t0;
	r->build_cpu = bench_cpu_now() - c0;
	while (!fb_pc_done(pc)) {
		double lw = bench_now(), lc = bench_cpu_now();

		if (fb_pc_step(pc, &rd, &err) != FB_OK)
			break;
		lw = bench_now() - lw;
		lc = bench_cpu_now() - lc;
		if (rd.orientation) {
			r->orient_wall = lw;
			r->orient_cpu = lc;
		} else if (r->levels == 0) {
			r->level0_wall = lw;
			r->level0_cpu = lc;
		} else if (r->levels == 1) {
			r->level1_wall = lw;
			r->level1_cpu = lc;
		} else {
			r->later_wall += lw;
			r->later_cpu += lc;
		}
		r->levels += !rd.orientation;
		scale_level(&rd.level, &r->tot);
	}
	r->wall = bench_now() - t0;
	r->cpu = bench_cpu_now() - c0;
	r->ok = fb_pc_done(pc);
	if (!r->ok)
		printf("pc: %s\n", err.msg);
	r->tests = 0;
	{
		fb_ci_stats st;

		fb_ci_get_stats(fb_pc_ci(pc), &st);
		r->tests = st.queries;
		r->st = st;
	}
	r->edges = fb_graph_n_edges(fb_pc_graph(pc));
	r->digest = pc_digest(pc);
	cp = fb_cpdag_from_dag(truth, NULL);
	if (cp != NULL)
		fb_cpdag_shd(fb_pc_graph(pc), cp, &r->shd, NULL);
	fb_graph_free(cp);
	fb_pc_free(pc);
	fb_graph_free(truth);
	fb_dataset_free(ds);
}

/* Run scale_child in a child process (so that its peak memory is its own): its figures into
 * r, its peak resident memory in bytes into *peak; false when it failed. */
static bool scale_fork(size_t d, size_t n, size_t threads, scale_res *r, double *peak)
{
	int fd[2];
	pid_t pid;
	int status = 0;
	struct rusage ru;

	memset(r, 0, sizeof *r);
	fflush(stdout);
	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return false;
	if (pid == 0) {
		close(fd[0]);
		scale_child(d, n, threads, r);
		fflush(stdout);
		_exit(write(fd[1], r, sizeof *r) == (ssize_t)sizeof *r ? 0 : 1);
	}
	close(fd[1]);
	if (read(fd[0], r, sizeof *r) != (ssize_t)sizeof *r)
		r->ok = 0;
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return false;
	*peak = (double)ru.ru_maxrss * 1024.0;
	return r->ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* What the whole session did: fedbn's own process running gen, pc, run and result. */
typedef struct scale_session {
	double peak;      /* its peak resident memory in bytes */
	double cpu, wall; /* its processor time (user and system) and wall time */
} scale_session;

/* Run fedbn (of this build) as a user would on d x n with threads threads, its output and
 * progress lines discarded, into *s; false when it could not run or failed. */
static bool scale_session_run(size_t d, size_t n, size_t threads, scale_session *s)
{
	char cmd[256];
	pid_t pid;
	int status = 0;
	struct rusage ru;
	double t0 = bench_now();

	snprintf(cmd, sizeof cmd, "gen er d=%zu edges=%zu n=%zu seed=1; set threads=%zu; "
	         "algo pc; run; result", d, d, n, threads);
	fflush(stdout);
	if ((pid = fork()) < 0)
		return false;
	if (pid == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL ||
		    freopen("/dev/null", "w", stderr) == NULL)
			_exit(127);
		setenv("OPENBLAS_NUM_THREADS", "1", 1);
		execl(FB_TOP_BUILDDIR "/fedbn", "fedbn", "--no-pane", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return false;
	s->wall = bench_now() - t0;
	s->peak = (double)ru.ru_maxrss * 1024.0;
	s->cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
	         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Print a row's processor time stage by stage and, on threads, the share of PC's processor
 * time no thread shares (all but the threaded work of the matrix's build and the levels). */
static void scale_stages(const scale_res *r)
{
	double threaded = r->st.build_work + r->tot.work;

	printf("  processor time by stage: simulation %.2f s, correlation matrix %.2f s, level 0 "
	       "%.2f s, level 1 %.2f s, later levels %.2f s, orientation %.2f s (wall %.2f, %.2f, "
	       "%.2f, %.2f, %.2f, %.2f s)", r->gen_cpu, r->build_cpu, r->level0_cpu, r->level1_cpu,
	       r->later_cpu, r->orient_cpu, r->gen, r->build_wall, r->level0_wall, r->level1_wall,
	       r->later_wall, r->orient_wall);
	if (r->tot.units > 0)
		printf("; serial share of PC %.1f%% (%.2f s outside the threaded units)",
		       100.0 * (r->cpu - threaded) / (r->cpu > 0.0 ? r->cpu : 1.0), r->cpu - threaded);
	printf("\n");
}

/* Run and print the whole session's row for d x n on threads threads. */
static bool scale_session_row(size_t d, size_t n, size_t threads)
{
	scale_session s = { 0 };

	if (!scale_session_run(d, n, threads, &s)) {
		printf("  session (fedbn --no-pane -c \"gen ...; set threads=%zu; algo pc; run; "
		       "result\"): failed\n", threads);
		return false;
	}
	printf("  session (fedbn --no-pane -c \"gen ...; set threads=%zu; algo pc; run; "
	       "result\"): peak %.2f GB, %.2f s processor, %.2f s wall (goal: peak under 2 GB)\n",
	       threads, s.peak / 1e9, s.cpu, s.wall);
	return true;
}

/* One scale row: PC on d x n with threads threads against its goals; false when it failed. */
static bool scale_row(size_t d, size_t n, size_t threads, const char *goal, scale_res *r)
{
	double peak = 0.0;

	printf("PC sim_d%zu_n%zu, %zu thread%s:\n", d, n, threads, threads == 1 ? "" : "s");
	if (!scale_fork(d, n, threads, r, &peak)) {
		printf("  failed\n");
		return false;
	}
	printf("  %.2f s wall, %.2f s processor (simulation before it: %.2f s wall); %zu levels, "
	       "%.3g tests, %zu edges, CPDAG-SHD %zu, result hash %016llx; peak %.2f GB: %.0f bytes a "
	       "variable, %.0f an edge of the result (goal: %s)\n", r->wall, r->cpu, r->gen,
	       r->levels, (double)r->tests, r->edges, r->shd, (unsigned long long)r->digest,
	       peak / 1e9, peak / (double)d,
	       peak / (double)(r->edges > 0 ? r->edges : 1), goal);
	printf("  correlation matrix: %.2f s wall, %.2f s processor", r->build_wall, r->build_cpu);
	if (r->st.build_threads > 0)
		printf(" (%zu units on %zu thread%s, %.2f s of work, busiest thread %.2f x the mean)",
		       r->st.build_units, r->st.build_threads, r->st.build_threads == 1 ? "" : "s",
		       r->st.build_work, r->st.build_busiest /
		       (r->st.build_work / (double)r->st.build_threads));
	else
		printf(" (one BLAS call: the blocks could not reproduce its bits here)");
	printf("; level 0: %.2f s wall, %.2f s processor\n", r->level0_wall, r->level0_cpu);
	scale_stages(r);
	if (r->tot.units > 0)
		printf("  threaded levels: %zu units, %.3g tests past a find (%.2f%% of the tests), "
		       "%.2f s of work; busiest of %zu threads %.2f x the mean; 16 simulated threads "
		       "%.2f x the mean, i.e. at most %.1f x one thread on those levels\n",
		       r->tot.units, (double)r->tot.spare, 100.0 * (double)r->tot.spare /
		       (double)(r->tests > 0 ? r->tests : 1), r->tot.work, r->tot.threads,
		       r->tot.busiest / (r->tot.work / (double)r->tot.threads),
		       r->tot.span16 / (r->tot.work / 16.0), r->tot.work / r->tot.span16);
	return true;
}

/* Print the processor time of two threads against one's, stage by stage. */
static void scale_ratios(const scale_res *one, const scale_res *two)
{
	printf("  processor time of 2 threads against 1: correlation matrix %.2f x, level 0 %.2f x, "
	       "level 1 %.2f x, later levels %.2f x, orientation %.2f x; PC %.2f x (%+.2f s)\n",
	       two->build_cpu / one->build_cpu, two->level0_cpu / one->level0_cpu,
	       two->level1_cpu / one->level1_cpu, two->later_cpu / one->later_cpu,
	       two->orient_cpu / one->orient_cpu, two->cpu / one->cpu, two->cpu - one->cpu);
	printf("  wall time of 1 thread over 2: correlation matrix %.2f x, level 0 %.2f x, level 1 "
	       "%.2f x, later levels %.2f x\n", one->build_wall / two->build_wall,
	       one->level0_wall / two->level0_wall, one->level1_wall / two->level1_wall,
	       one->later_wall / two->later_wall);
}

/* The scale rows: d x n (d = 10,000, n = 10,000 unless given) on 1 and 2 threads (which must
 * agree bit for bit, else the bench fails), each also as the whole fedbn session, then (when
 * big_row) d = 20,000, n = 3,000 on 2; false on a failure or a disagreement. */
static bool bench_scale(size_t d, size_t n, bool big_row)
{
	char cpu[256];
	scale_res one, two, big;
	bool ok;

	printf("scale rows on %s, %ld processors online\n", bench_processor(cpu, sizeof cpu),
	       sysconf(_SC_NPROCESSORS_ONLN));
	ok = scale_row(d, n, 1, "under 60 s on one idle core, peak under 2 GB", &one);
	ok &= scale_session_row(d, n, 1);
	ok &= scale_row(d, n, 2, "1.8 x one thread, same result", &two);
	ok &= scale_session_row(d, n, 2);
	if (ok) {
		printf("  2 threads against 1: %.2f x in wall time (%.2f x the processor time); "
		       "results %s\n", one.wall / two.wall, two.cpu / one.cpu,
		       one.digest == two.digest && one.tests == two.tests ? "identical" : "DIFFER");
		scale_ratios(&one, &two);
	}
	ok &= one.digest == two.digest && one.tests == two.tests;
	if (big_row)
		ok &= scale_row(20000, 3000, 2, "under 5 minutes on 2 cores and 16 GB", &big);
	return ok;
}

/* The size --scale was given (D N after it), or d = n = 10,000; false when they do not
 * read as two numbers above 1. */
static bool scale_size(int argc, char **argv, size_t *d, size_t *n)
{
	char *e1 = NULL, *e2 = NULL;

	*d = *n = 10000;
	if (argc < 4)
		return argc == 2;
	*d = (size_t)strtoul(argv[2], &e1, 10);
	*n = (size_t)strtoul(argv[3], &e2, 10);
	return *e1 == '\0' && *e2 == '\0' && *d > 1 && *n > 1;
}

/* Run the benchmarks. */
int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : FB_TOP_SRCDIR;
	char dir[4096];
	bool same;

	fb_gsl_install_handler();
	if (argc > 1 && strcmp(argv[1], "--scale") == 0) {
		size_t d, n;

		if (!scale_size(argc, argv, &d, &n)) {
			fprintf(stderr, "bench-pc: --scale takes no size or two: D N (each above 1)\n");
			return 2;
		}
		return bench_scale(d, n, argc == 2) ? 0 : 1;
	}
	if (argc > 2)
		snprintf(dir, sizeof dir, "%s", argv[2]);
	else
		snprintf(dir, sizeof dir, "%s/../shared/data", src);
	printf("PC, Fisher-z, stable, strength rule; best of 20 runs (1 for d = 1000)\n");
	bench_shared(dir);
	bench_large(1000, 5000, "PC under 1 s");
	same = bench_bif(dir);
	if (bench_huge())
		return bench_scale(10000, 10000, true) && same ? 0 : 1;
	printf("sim_d10000_n10000: skipped (2.1e9 tests over 24 levels, about a minute of "
	       "processor time; set FB_BENCH_HUGE=1 to run it) (target under 60 s)\n");
	return same ? 0 : 1;
}
