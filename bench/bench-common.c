/* Helpers shared by the benchmark programs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fedbn/csv.h"
#include "bench-common.h"

/* Seconds on the given clock. */
static double clock_seconds(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds on the monotonic clock. */
double bench_now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

/* Processor seconds used by this process. */
double bench_cpu_now(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

/* Read X.csv and truth.csv of one synthetic folder. */
int bench_load_synth(const char *dir, const char *tag, fb_dataset **ds, fb_graph **truth)
{
	char path[4096 + 64];
	fb_error err = { "" };

	snprintf(path, sizeof path, "%s/synth/%s/X.csv", dir, tag);
	if ((*ds = fb_csv_read(path, NULL, NULL, &err)) == NULL) {
		printf("%s: skipped (%s)\n", tag, err.msg);
		return FB_ERR;
	}
	snprintf(path, sizeof path, "%s/synth/%s/truth.csv", dir, tag);
	*truth = fb_graph_read_csv_for(path, *ds, &err);
	if (*truth == NULL) {
		printf("%s: skipped (%s)\n", tag, err.msg);
		fb_dataset_free(*ds);
		return FB_ERR;
	}
	return FB_OK;
}

/* True when FB_BENCH_HUGE asks for the d = 10,000 cases. */
bool bench_huge(void)
{
	const char *v = getenv("FB_BENCH_HUGE");

	return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* The processor's model name from /proc/cpuinfo. */
const char *bench_processor(char *buf, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, cap, "unknown processor");
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, cap, "%s", colon);
		break;
	}
	if (f != NULL)
		fclose(f);
	return buf;
}
