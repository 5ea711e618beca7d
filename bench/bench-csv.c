/* bench-csv: how fast fb_csv_read loads a large numeric file, and how much memory it needs.
 *
 * It writes a deterministic 1,000,000 x 20 numeric CSV (values with six decimals, about
 * 190 MB) into /tmp, times fb_csv_read on it (best of 3) and prints MB/s, then measures the
 * peak memory of one more load relative to the n x d double matrix it returns.
 *
 * Memory method: the load runs in a forked child.  The child notes its resident set size
 * just before the read (from /proc/self/statm) and its peak resident set size just after
 * (getrusage(RUSAGE_SELF).ru_maxrss, the kernel's high-water mark); the difference is the
 * memory the read added at its worst moment, file buffers and the final matrix included.
 * The parent is small when it forks, so the inherited high-water mark stays below that. */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fedbn/csv.h"

/* Rows and columns of the benchmark file. */
#define BENCH_ROWS 1000000
#define BENCH_COLS 20

/* Advance a 64-bit linear congruential generator and return its high bits. */
static uint64_t lcg_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 24;
}

/* Append v / 1e6 with exactly six decimals at p (a fast, exact fixed-point print). */
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
	} while (u > 0 || n < 7);
	while (n > 6)
		*p++ = digits[--n];
	*p++ = '.';
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* Write the benchmark file; returns its size in bytes, 0 on failure. */
static size_t write_file(const char *path)
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
	for (long i = 0; i < BENCH_ROWS; i++) {
		p = line;
		for (int j = 0; j < BENCH_COLS; j++) {
			if (j > 0)
				*p++ = ',';
			/* values in (-1000, 1000) with six decimals */
			p = put_fixed(p, (int64_t)(lcg_next(&s) % 2000000000) - 1000000000);
		}
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), fp);
		bytes += (size_t)(p - line);
	}
	return fclose(fp) == 0 ? bytes : 0;
}

/* Seconds on the given clock. */
static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Load the file once; exits on an error. */
static fb_dataset *load(const char *path)
{
	fb_error err = { { 0 } };
	fb_dataset *ds = fb_csv_read(path, NULL, NULL, &err);

	if (ds == NULL) {
		fprintf(stderr, "bench-csv: %s\n", err.msg);
		exit(1);
	}
	if (ds->n != BENCH_ROWS || ds->d != BENCH_COLS) {
		fprintf(stderr, "bench-csv: read %zu x %zu, expected %d x %d\n", ds->n, ds->d,
		        BENCH_ROWS, BENCH_COLS);
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

/* In a child: load once and send (rss before, peak rss after) in KiB through fd. */
static void child_measure(const char *path, int fd)
{
	long before = rss_kib(), out[2];
	struct rusage ru;
	fb_dataset *ds = load(path);

	getrusage(RUSAGE_SELF, &ru);
	out[0] = before;
	out[1] = ru.ru_maxrss;
	if (write(fd, out, sizeof out) != (ssize_t)sizeof out)
		_exit(1);
	fb_dataset_free(ds);
	_exit(0);
}

/* The peak memory a load adds, in bytes; -1 on failure. */
static double peak_growth(const char *path)
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
		child_measure(path, fds[1]);
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

/* Write the file, time three loads, measure the memory of a fourth. */
int main(void)
{
	char path[128];
	double best = 1e30, best_cpu = 1e30, matrix = (double)BENCH_ROWS * BENCH_COLS * sizeof(double), peak;
	size_t bytes;

	snprintf(path, sizeof path, "/tmp/fedbn-bench-csv-%ld.csv", (long)getuid());
	bytes = write_file(path);
	if (bytes == 0) {
		fprintf(stderr, "bench-csv: cannot write '%s'\n", path);
		return 1;
	}
	for (int k = 0; k < 3; k++) {
		double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		fb_dataset *ds = load(path);
		double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;

		fb_dataset_free(ds);
		best = t < best ? t : best;
		best_cpu = c < best_cpu ? c : best_cpu;
	}
	peak = peak_growth(path);
	unlink(path);
	/* CPU time too: on a shared machine the wall clock also counts other people's work */
	printf("bench-csv: fb_csv_read %d x %d numeric, %.1f MB: best of 3 %.3f s, %.1f MB/s "
	       "(CPU time %.3f s, %.1f MB/s)\n", BENCH_ROWS, BENCH_COLS, (double)bytes / 1e6,
	       best, (double)bytes / best / 1e6, best_cpu, (double)bytes / best_cpu / 1e6);
	if (peak < 0) {
		fprintf(stderr, "bench-csv: cannot measure the peak memory\n");
		return 1;
	}
	printf("bench-csv: peak memory of a load %.1f MB = %.2f x the %.1f MB matrix\n",
	       peak / 1e6, peak / matrix, matrix / 1e6);
	return 0;
}
