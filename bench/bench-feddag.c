/* bench-feddag: one MCSL / FedDAG client's optimiser step (the masked networks' forward and
 * backward passes, the mask, h and Adam) on 600 rows at d = 10 and d = 40, single-threaded,
 * in processor milliseconds per step (best of five batches), beside the target: five times
 * faster than gCastle's MCSL (PyTorch, CPU, one thread), measured on this machine at
 * 10.3 ms (d = 10) and 98 ms (d = 40) per step.  Then the wall time of one GS-FedDAG
 * aggregation round (10 clients x 600 rows, 200 steps each) on two threads. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench-common.h"
#include "fedbn/feddag.h"
#include "fedbn/mcsl.h"
#include "fedbn/sim.h"

/* n rows of a d-variable mim SEM. */
static fb_dataset *bench_data(size_t d, size_t n)
{
	fb_sim_options o;
	fb_error err = { "" };
	fb_dataset *ds = NULL;
	fb_graph *g = NULL;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = 2 * d;
	o.n = n;
	o.sem = FB_SEM_MIM;
	if (fb_sim_generate(&o, &ds, &g, &err) != FB_OK)
		printf("bench-feddag: %s\n", err.msg);
	fb_graph_free(g);
	return ds;
}

/* Milliseconds of processor time per client step at d variables; prints one line. */
static int bench_client(size_t d, size_t steps, double reference_ms)
{
	fb_dataset *ds = bench_data(d, 600);
	fb_mcsl_options o;
	fb_error err = { "" };
	fb_mcsl_client *c;
	fb_mcsl_parts parts;
	double best = 1e300;

	if (ds == NULL)
		return 1;
	fb_mcsl_options_init(&o);
	c = fb_mcsl_client_alloc(ds, 0, &o, &err);
	for (int rep = 0; c != NULL && rep < 6; rep++) { /* the first batch warms up */
		double t0 = bench_cpu_now(), t;

		for (size_t s = 0; s < steps; s++)
			if (fb_mcsl_client_step(c, 0.0, 6e-3, &parts, &err) != FB_OK)
				goto fail;
		t = (bench_cpu_now() - t0) / (double)steps;
		if (rep > 0 && t < best)
			best = t;
	}
	if (c == NULL)
		goto fail;
	printf("mcsl client step, d=%-3zu 600 rows   %8.2f ms  (target <= %.2f ms: gCastle's "
	       "%.1f ms / 5; %.1fx faster)\n", d, 1e3 * best, reference_ms / 5.0, reference_ms,
	       reference_ms / (1e3 * best));
	fb_mcsl_client_free(c);
	fb_dataset_free(ds);
	return 0;
fail:
	printf("mcsl client step, d=%zu: %s\n", d, err.msg);
	fb_mcsl_client_free(c);
	fb_dataset_free(ds);
	return 1;
}

/* Wall seconds of one GS-FedDAG round over 10 clients of 600 rows on two threads. */
static int bench_round(void)
{
	fb_dataset *ds = bench_data(10, 6000);
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

/* Both sizes, then one federated round. */
int main(void)
{
	printf("BLAS: %s, one thread\n", FB_BLAS_NAME);
	return bench_client(10, 200, 10.3) | bench_client(40, 20, 98.0) | bench_round();
}
