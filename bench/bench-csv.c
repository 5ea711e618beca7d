/* bench-csv: how fast fb_csv_read loads a large numeric file, and how much memory it needs.
 *
 * It writes a deterministic 1,000,000 x 20 numeric CSV (values with 17 significant digits,
 * as a full-precision writer prints doubles, about 390 MB) into /tmp, times fb_csv_read on it
 * (best of 3) and prints MB/s beside the target, then measures the peak memory of one more
 * load relative to the n x d double matrix it returns.  An argument sets a smaller row count
 * (for profiling under an instruction counter).  Then pandas.read_csv and numpy.loadtxt
 * read the same file (bench/csv-reference.py; FB_BENCH_CSV_REFERENCE=0 leaves them out),
 * and their processor times are printed beside fedbn's one-thread one.
 *
 * Memory method: the load runs in a forked child.  The child notes its resident set size
 * just before the read (from /proc/self/statm) and its peak resident set size just after
 * (getrusage(RUSAGE_SELF).ru_maxrss, the kernel's high-water mark); the difference is the
 * memory the read added at its worst moment, file buffers and the final matrix included.
 * The parent is small when it forks, so the inherited high-water mark stays below that. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-common.h"
#include "fedbn/csv.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* Rows (by default) and columns of the benchmark file. */
#define BENCH_ROWS 1000000
#define BENCH_COLS 20

/* Rows of the file being read. */
static long bench_rows = BENCH_ROWS;

/* Advance a 64-bit linear congruential generator and return its high bits. */
static uint64_t lcg_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 24;
}

/* Append v / 1e14 with exactly fourteen decimals at p (a fast, exact fixed-point print). */
static char *put_fixed(char *p, int64_t v)
{
	char digits[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;

	if (v < 0)
		*p++ = '-';
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0 || n < 15);
	while (n > 14)
		*p++ = digits[--n];
	*p++ = '.';
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* Write the benchmark file of rows rows; returns its size in bytes, 0 on failure. */
static size_t write_file(const char *path, long rows)
{
	FILE *fp = fopen(path, "w");
	char line[BENCH_COLS * 24 + 2], *p;
	uint64_t s = 20240611;
	size_t bytes = 0;

	if (fp == NULL)
		return 0;
	for (int j = 0; j < BENCH_COLS; j++)
		bytes += (size_t)fprintf(fp, j ? ",X%d" : "X%d", j + 1);
	bytes += (size_t)fprintf(fp, "\n");
	for (long i = 0; i < rows; i++) {
		p = line;
		for (int j = 0; j < BENCH_COLS; j++) {
			if (j > 0)
				*p++ = ',';
			/* values of 17 significant digits: +-[100, 1000) with fourteen decimals */
			uint64_t hi = lcg_next(&s), lo = lcg_next(&s);
			int64_t v = (int64_t)(((hi << 24) ^ lo) % UINT64_C(90000000000000000)) +
			            INT64_C(10000000000000000);

			p = put_fixed(p, hi & 1 ? -v : v);
		}
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), fp);
		bytes += (size_t)(p - line);
	}
	return fclose(fp) == 0 ? bytes : 0;
}

/* Load the file once with threads threads (0: one per processor); exits on an error. */
static fb_dataset *load(const char *path, size_t threads)
{
	fb_error err = { { 0 } };
	fb_csv_options o;
	fb_dataset *ds;

	fb_csv_options_init(&o);
	o.threads = threads;
	ds = fb_csv_read(path, &o, NULL, &err);

	if (ds == NULL) {
		fprintf(stderr, "bench-csv: %s\n", err.msg);
		exit(1);
	}
	if (ds->n != (size_t)bench_rows || ds->d != BENCH_COLS) {
		fprintf(stderr, "bench-csv: read %zu x %zu, expected %ld x %d\n", ds->n, ds->d,
		        bench_rows, BENCH_COLS);
		exit(1);
	}
	return ds;
}

/* Resident set size of this process in KiB. */
static long rss_kib(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	long size = 0, resident = 0;

	if (fp == NULL)
		return 0;
	if (fscanf(fp, "%ld %ld", &size, &resident) != 2)
		resident = 0;
	fclose(fp);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Reset the kernel's resident high-water mark of this process, where Linux allows it (a child
 * otherwise starts with its parent's). */
static void reset_peak(void)
{
	FILE *fp = fopen("/proc/self/clear_refs", "w");

	if (fp != NULL) {
		fputs("5", fp);
		fclose(fp);
	}
}

/* The resident high-water mark (VmHWM) in KiB; -1 when unknown. */
static long hwm_kib(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof line, fp) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			v = atol(line + 6);
	fclose(fp);
	return v;
}

/* In a child: load once (the benchmark file when full, any file else) and send (rss before,
 * peak rss after) in KiB through fd. */
static void child_measure(const char *path, int fd, bool full)
{
	long before, out[2];
	struct rusage ru;
	fb_error err = { { 0 } };
	fb_dataset *ds;

	reset_peak();
	before = rss_kib();
	ds = full ? load(path, 0) : fb_csv_read(path, NULL, NULL, &err);
	getrusage(RUSAGE_SELF, &ru);
	out[0] = before;
	out[1] = hwm_kib();
	if (out[1] < 0)
		out[1] = ru.ru_maxrss;
	if (write(fd, out, sizeof out) != (ssize_t)sizeof out)
		_exit(1);
	fb_dataset_free(ds);
	_exit(0);
}

/* The peak memory a load adds, in bytes; -1 on failure. */
static double peak_growth(const char *path, bool full)
{
	int fds[2], status;
	long got[2];
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		child_measure(path, fds[1], full);
	}
	close(fds[1]);
	if (read(fds[0], got, sizeof got) != (ssize_t)sizeof got)
		got[0] = got[1] = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (got[0] < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return (double)(got[1] - got[0]) * 1024.0;
}

/* Columns of the wide file and fields of the one-line file. */
#define WIDE_COLS 100000
#define LINE_FIELDS 5000000

/* Write the wide file (a header of WIDE_COLS names, two rows) or the one-line file (10 MB of
 * one-digit fields); its size in bytes, 0 on failure. */
static size_t write_shape(const char *path, bool wide)
{
	FILE *fp = fopen(path, "w");
	size_t bytes = 0;

	if (fp == NULL)
		return 0;
	if (wide)
		for (int r = 0; r < 3; r++)
			for (long j = 0; j < WIDE_COLS; j++)
				bytes += (size_t)fprintf(fp, r == 0 ? "%sv%ld" : "%s%ld",
				                         j ? "," : r ? "\n" : "",
				                         r ? (j + r) % 7 : j);
	else
		for (long j = 0; j < LINE_FIELDS; j++)
			bytes += (size_t)fprintf(fp, "%s%ld", j ? "," : "", j % 10);
	bytes += (size_t)fprintf(fp, "\n");
	return fclose(fp) == 0 ? bytes : 0;
}

/* The peak memory of refusing a one-line file, then the load time of a 100,000-column file
 * (run first, while this process has no freed memory that a child could reuse unseen). */
static int bench_shapes(const char *path)
{
	fb_error err = { { 0 } };
	fb_dataset *ds;
	double t0, t, peak;
	size_t bytes = write_shape(path, false);

	peak = bytes > 0 ? peak_growth(path, false) : -1;
	if (peak < 0)
		return 1;
	printf("bench-csv: one line of %d fields (%.1f MB), refused: peak %.1f MB = %.2f x the "
	       "file (target < 4 x)\n", LINE_FIELDS, (double)bytes / 1e6, peak / 1e6,
	       peak / (double)bytes);
	if (write_shape(path, true) == 0)
		return 1;
	t0 = bench_cpu_now();
	ds = fb_csv_read(path, NULL, NULL, &err);
	t = bench_cpu_now() - t0;
	unlink(path);
	if (ds == NULL) {
		fprintf(stderr, "bench-csv: %s\n", err.msg);
		return 1;
	}
	fb_dataset_free(ds);
	printf("bench-csv: %d columns (header + 2 rows): load %.3f s CPU (target < 1 s)\n",
	       WIDE_COLS, t);
	return 0;
}

/* Time three loads of the file (bytes long) with threads threads (0: one per processor),
 * print the best wall and processor times and return the best processor time. */
static double time_loads(const char *path, size_t bytes, size_t threads)
{
	double best = 1e30, best_cpu = 1e30;

	for (int k = 0; k < 3; k++) {
		double t0 = bench_now(), c0 = bench_cpu_now();
		fb_dataset *ds = load(path, threads);
		double t = bench_now() - t0, c = bench_cpu_now() - c0;

		fb_dataset_free(ds);
		best = t < best ? t : best;
		best_cpu = c < best_cpu ? c : best_cpu;
	}
	/* CPU time too: on a shared machine the wall clock also counts other people's work; it
	 * adds up every thread */
	printf("bench-csv: fb_csv_read %ld x %d numeric (17 digits), %.1f MB, %s: best of 3 "
	       "%.3f s, %.1f MB/s (target >= 500 MB/s); CPU time %.3f s (%.1f MB/s)\n",
	       bench_rows, BENCH_COLS, (double)bytes / 1e6,
	       threads == 1 ? "one thread" : "a thread per processor", best,
	       (double)bytes / best / 1e6, best_cpu, (double)bytes / best_cpu / 1e6);
	return best_cpu;
}

/* The reference readers on the same file right after (bench/csv-reference.py: pandas's
 * read_csv and numpy's loadtxt, processor time of one run each, with Python PYTHON or
 * /usr/bin/python3), beside fedbn's one-thread processor time cpu and the goal of 5 times
 * pandas. */
static void reference_loads(const char *path, double cpu)
{
	const char *top = getenv("top_srcdir"), *py = getenv("PYTHON");
	char cmd[4096 + 256], line[128], name[32];
	double t;
	FILE *p;

	if (py == NULL || py[0] == '\0')
		py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
	snprintf(cmd, sizeof cmd, "OPENBLAS_NUM_THREADS=1 '%s' '%s/bench/csv-reference.py' '%s'",
	         py, top != NULL ? top : FB_TOP_SRCDIR, path);
	if ((p = popen(cmd, "r")) == NULL) {
		printf("bench-csv: the reference readers did not run (%s)\n", cmd);
		return;
	}
	while (fgets(line, sizeof line, p) != NULL)
		if (sscanf(line, "%31s %lf", name, &t) == 2)
			printf("bench-csv: %s on the same file: CPU time %.3f s; fedbn (one thread) "
			       "%.1fx faster%s\n", strcmp(name, "pandas") == 0 ? "pandas.read_csv" :
			       "numpy.loadtxt", t, t / cpu,
			       strcmp(name, "pandas") == 0 ? " (goal >= 5x)" : "");
	pclose(p);
}

/* Write the file (argument: rows, default 1,000,000), time three loads, measure the memory of
 * a fourth. */
int main(int argc, char **argv)
{
	char path[128];
	double matrix, peak, cpu;
	char model[256];
	const char *ref;
	size_t bytes;

	if (argc > 1 && (bench_rows = atol(argv[1])) < 2) {
		fprintf(stderr, "bench-csv: rows must be at least 2\n");
		return 1;
	}
	printf("processor: %s\n", bench_processor(model, sizeof model));
	matrix = (double)bench_rows * BENCH_COLS * sizeof(double);
	snprintf(path, sizeof path, "/tmp/fedbn-bench-csv-%ld.csv", (long)getuid());
	if (bench_shapes(path) != 0) {
		fprintf(stderr, "bench-csv: cannot measure the wide and one-line files\n");
		return 1;
	}
	bytes = write_file(path, bench_rows);
	if (bytes == 0) {
		fprintf(stderr, "bench-csv: cannot write '%s'\n", path);
		return 1;
	}
	cpu = time_loads(path, bytes, 1);
	time_loads(path, bytes, 0);
	ref = getenv("FB_BENCH_CSV_REFERENCE");
	if (ref == NULL || strcmp(ref, "0") != 0)
		reference_loads(path, cpu);
	peak = peak_growth(path, true);
	unlink(path);
	if (peak < 0) {
		fprintf(stderr, "bench-csv: cannot measure the peak memory\n");
		return 1;
	}
	printf("bench-csv: peak memory of a load %.1f MB = %.2f x the %.1f MB matrix "
	       "(target 1.0 x)\n", peak / 1e6, peak / matrix, matrix / 1e6);
	return 0;
}
