/* bench-fedcircuit: one-pass federated circuit learning on one million rows x 16 binary
 * columns split horizontally over 10 clients (100,000 rows each), against the targets of
 * under 30 s and a peak resident memory under twice the data's size.
 *
 * Each client's rows are simulated where they live (a federation has no pooled copy): X1 a
 * fair coin, each next column copies the one before with probability 0.8, a client's own
 * stream per client.  The run goes through the federation round by round with SPFlow's
 * learn_mspn defaults; the figures are the wall time of the rounds, the processor time, the
 * circuit's size, the bytes on the wire, and the peak resident set size (VmHWM) of the whole
 * process beside the data's 8 bytes per value.
 *
 * The clients learn at the same time on THREADS threads (default 2, the machine's cores);
 * BLAS runs single-threaded inside each, as in a run.
 *
 * Usage: bench-fedcircuit [ROWS [CLIENTS [THREADS]]]. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-common.h"
#include "fedbn/fedcircuit.h"

#define COLS 16

/* Client c's n rows, simulated from its own stream. */
static fb_dataset *client_data(size_t c, size_t n)
{
	fb_dataset *ds = fb_dataset_alloc(n, COLS);
	char l0[] = "0", l1[] = "1", *lv[2] = { l0, l1 }, name[48];
	gsl_rng *r;

	snprintf(name, sizeof name, "bench-client-%zu", c);
	r = fb_rng_stream(1, name);
	for (size_t j = 0; ds != NULL && j < COLS; j++)
		fb_dataset_set_levels(ds, j, lv, 2, NULL);
	for (size_t i = 0; ds != NULL && i < n; i++)
		for (size_t j = 0; j < COLS; j++) {
			double u = gsl_rng_uniform(r), *x = ds->x + i * COLS;

			x[j] = j == 0 ? (u < 0.5) : (u < 0.8 ? x[j - 1] : 1 - x[j - 1]);
		}
	gsl_rng_free(r);
	return ds;
}

/* A horizontal partition of k clients of n / k rows each, built client by client. */
static fb_partition *partition(size_t n, size_t k)
{
	fb_partition *p = calloc(1, sizeof *p);

	p->kind = FB_SPLIT_HORIZONTAL;
	p->k = k;
	p->n = n;
	p->d = COLS;
	p->clients = calloc(k, sizeof *p->clients);
	p->desc = strdup("horizontal (simulated per client)");
	for (size_t c = 0; c < k; c++) {
		size_t m = n / k + (c < n % k), first = c * (n / k) + (c < n % k ? c : n % k);
		fb_client *cl = &p->clients[c];

		cl->data = client_data(c, m);
		cl->rows = malloc(m * sizeof *cl->rows);
		cl->cols = malloc(COLS * sizeof *cl->cols);
		for (size_t i = 0; i < m; i++)
			cl->rows[i] = first + i;
		for (size_t j = 0; j < COLS; j++)
			cl->cols[j] = j;
	}
	return p;
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

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t k = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	fb_partition *p = partition(n, k);
	fb_fed_options fo;
	fb_fc_options o;
	fb_federation *fed;
	fb_fc *fc;
	fb_error err;
	double t, cpu, data_mb = (double)n * COLS * 8 / 1e6, peak;

	fb_blas_single_thread();
	fb_fc_options_init(&o);
	fb_fed_options_init(&fo);
	fo.threads = argc > 3 ? strtoul(argv[3], NULL, 10) : 2;
	fed = fb_fed_alloc(p, &fo, &err);
	fc = fb_fc_alloc(p, &o, &err);
	if (fed == NULL || fc == NULL) {
		fprintf(stderr, "bench-fedcircuit: %s\n", err.msg);
		return 1;
	}
	t = bench_now();
	cpu = bench_cpu_now();
	while (!fb_fc_done(fc))
		if (fb_fc_step(fc, fed, &err) != FB_OK) {
			fprintf(stderr, "bench-fedcircuit: %s\n", err.msg);
			return 1;
		}
	t = bench_now() - t;
	cpu = bench_cpu_now() - cpu;
	peak = (double)hwm_kib() * 1024 / 1e6;
	printf("fedcircuit: %zu rows x %d binary columns over %zu clients (horizontal, %zu threads): "
	       "%.2f s wall, %.2f s processor (target < 30 s); %zu nodes; up %zu B; peak memory %.0f MB "
	       "for %.0f MB of data (%.2fx, target < 2x)\n", n, COLS, k, fo.threads, t, cpu,
	       fb_fc_circuit(fc)->nnodes, fb_ledger_bytes(fb_fed_ledger(fed), 0, FB_UP), peak,
	       data_mb, peak / data_mb);
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	return 0;
}
