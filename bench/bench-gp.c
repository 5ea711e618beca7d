/* bench-gp: time of `gen er d=40 n=6000 sem=gp` (seed 1, the library call gen makes) beside
 * its target of 30 s; with one dense Cholesky draw per variable it took about 42 s here.
 * Prints processor and wall seconds (the BLAS on one thread, so on an idle machine they
 * agree; under load the processor time is the fairer figure) and a checksum of the data's
 * bytes, which must not change from run to run. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench-common.h"
#include "fedbn/core.h"
#include "fedbn/sim.h"

/* The target, seconds. */
#define BENCH_TARGET 30.0

/* FNV-1a over the bytes of the n x d values. */
static uint64_t bench_checksum(const fb_dataset *ds)
{
	const unsigned char *b = (const unsigned char *)ds->x;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < ds->n * ds->d * sizeof *ds->x; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return h;
}

/* Generate once and print the figures. */
int main(void)
{
	fb_sim_options o;
	fb_dataset *ds = NULL;
	fb_graph *truth = NULL;
	fb_error err = { "" };
	double cpu, wall;

	fb_blas_single_thread();
	fb_sim_options_init(&o);
	o.d = 40;
	o.edges = 40;
	o.n = 6000;
	o.seed = 1;
	o.sem = FB_SEM_GP;
	cpu = bench_cpu_now();
	wall = bench_now();
	if (fb_sim_generate(&o, &ds, &truth, &err) != FB_OK) {
		fprintf(stderr, "bench-gp: %s\n", err.msg);
		return 1;
	}
	cpu = bench_cpu_now() - cpu;
	wall = bench_now() - wall;
	printf("gen er d=40 n=6000 sem=gp: %.2f s processor, %.2f s wall (target < %.0f s), "
	       "checksum %016llx\n", cpu, wall, BENCH_TARGET,
	       (unsigned long long)bench_checksum(ds));
	fb_dataset_free(ds);
	fb_graph_free(truth);
	return 0;
}
