/* bench-fedcircuit: one-pass federated circuit learning on one million rows x 16 binary
 * columns split horizontally over 10 clients (100,000 rows each), against the targets of
 * under 30 s and a peak resident memory under twice the data's size.
 *
 * Each client's rows are simulated where they live (a federation has no pooled copy): X1 a
 * fair coin, each next column copies the one before with probability 0.8, a client's own
 * stream per client.  The run goes through the federation round by round with SPFlow's
 * learn_mspn defaults, once with the clients on one thread and once on two (the machine's
 * cores); BLAS runs single-threaded inside each, as in a run.  For each the figures are the
 * wall time of the rounds, the processor time, the circuit's size and a digest of its text
 * (the same for every thread count), the bytes on the wire, and the peak resident set size
 * (VmHWM, reset before each run where the kernel allows) of the whole process beside the
 * data's 8 bytes per value.  The last line compares the slower of wall and processor time
 * of every run, and the largest peak, with the targets.
 *
 * Usage: bench-fedcircuit [ROWS [CLIENTS [THREADS]]] (THREADS given: that count only). */
#include "config.h"

#include <stdint.h>
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

/* Reset the resident high-water mark (Linux: 5 into clear_refs); 0 when it could not. */
static int hwm_reset(void)
{
	FILE *fp = fopen("/proc/self/clear_refs", "w");
	int ok;

	if (fp == NULL)
		return 0;
	ok = fputs("5", fp) >= 0;
	return fclose(fp) == 0 && ok;
}

/* FNV-1a digest of the circuit's text format. */
static uint64_t circuit_digest(const fb_circuit *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	uint64_t h = 1469598103934665603ULL;

	if (fp == NULL)
		return 0;
	fb_circuit_write(c, fp, NULL);
	fclose(fp);
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
	free(buf);
	return h;
}

/* What one run measured. */
typedef struct run_figures {
	double wall, cpu, peak_mb; /* seconds, seconds, MB */
	uint64_t digest;           /* of the learned circuit */
} run_figures;

/* Learn over p with the clients on threads threads and print the run's figures; FB_ERR
 * (message printed) on failure. */
static int run_once(const fb_partition *p, size_t threads, double data_mb, run_figures *fig)
{
	fb_fed_options fo;
	fb_fc_options o;
	fb_federation *fed;
	fb_fc *fc;
	fb_error err;
	int reset = hwm_reset();

	fb_fc_options_init(&o);
	fb_fed_options_init(&fo);
	fo.threads = threads;
	fed = fb_fed_alloc(p, &fo, &err);
	fc = fed != NULL ? fb_fc_alloc(p, &o, &err) : NULL;
	if (fc == NULL) {
		fprintf(stderr, "bench-fedcircuit: %s\n", err.msg);
		fb_fed_free(fed);
		return FB_ERR;
	}
	fig->wall = bench_now();
	fig->cpu = bench_cpu_now();
	while (!fb_fc_done(fc))
		if (fb_fc_step(fc, fed, &err) != FB_OK) {
			fprintf(stderr, "bench-fedcircuit: %s\n", err.msg);
			return FB_ERR;
		}
	fig->wall = bench_now() - fig->wall;
	fig->cpu = bench_cpu_now() - fig->cpu;
	fig->peak_mb = (double)hwm_kib() * 1024 / 1e6;
	fig->digest = circuit_digest(fb_fc_circuit(fc));
	printf("  %zu thread%s: %.2f s wall, %.2f s processor; %zu nodes, digest %016llx; up %zu B; "
	       "peak memory %.0f MB%s (%.2fx the data)\n", threads, threads == 1 ? "" : "s",
	       fig->wall, fig->cpu, fb_fc_circuit(fc)->nnodes, (unsigned long long)fig->digest,
	       fb_ledger_bytes(fb_fed_ledger(fed), 0, FB_UP), fig->peak_mb,
	       reset ? "" : " (process peak)", fig->peak_mb / data_mb);
	fb_fc_free(fc);
	fb_fed_free(fed);
	return FB_OK;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	size_t k = argc > 2 ? strtoul(argv[2], NULL, 10) : 10;
	size_t threads[2] = { 1, 2 }, nt = 2;
	fb_partition *p;
	double data_mb = (double)n * COLS * 8 / 1e6, worst = 0, peak = 0;
	run_figures fig[2];
	int same = 1;

	if (argc > 3) {
		threads[0] = strtoul(argv[3], NULL, 10);
		nt = 1;
	}
	fb_blas_single_thread();
	p = partition(n, k);
	printf("fedcircuit: %zu rows x %d binary columns over %zu clients (horizontal), %.0f MB "
	       "of data\n", n, COLS, k, data_mb);
	for (size_t t = 0; t < nt; t++) {
		if (run_once(p, threads[t], data_mb, &fig[t]) != FB_OK)
			return 1;
		worst = fig[t].wall > worst ? fig[t].wall : worst;
		worst = fig[t].cpu > worst ? fig[t].cpu : worst;
		peak = fig[t].peak_mb > peak ? fig[t].peak_mb : peak;
		same &= fig[t].digest == fig[0].digest;
	}
	printf("fedcircuit: %.2f s (slowest wall or processor time; target < 30 s), peak memory "
	       "%.2fx the data (target < 2x), circuits %s\n", worst, peak / data_mb,
	       same ? "identical for every thread count" : "DIFFER between thread counts");
	fb_partition_free(p);
	return same ? 0 : 1;
}
