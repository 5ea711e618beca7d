/* The cost of running a federation over MPI on one machine, against the same run in-process:
 *   mpirun -np 9 bench/bench-mpi admm     notears-admm, d = 20, 8 clients, 50 rounds
 *   mpirun -np 11 bench/bench-mpi fedpc   FedPC, d = 1000, 10 clients (best of 3 each, and
 *                                         the processor time of every process)
 * Every rank simulates the same data and cuts the same contiguous blocks; rank 0 runs the
 * algorithm in-process on them, then over MPI with ranks 1..K serving their own block, and
 * prints both times, the minimum and median overhead per round (the MPI exchange less the
 * slowest client's half, timed in-process) beside the 1 ms target, rounds per second and
 * bytes per second. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fedbn/algo.h"
#include "fedbn/fedmpi.h"
#include "fedbn/serve.h"
#include "fedbn/sim.h"

/* One benchmark's shape. */
typedef struct shape {
	const char *algo;    /* what runs */
	const char *params;  /* its parameters, "key=value", or NULL */
	size_t d, edges, n;  /* the simulated data */
} shape;

/* Simulate the shape's data (the same bits on every rank). */
static fb_dataset *make_data(const shape *s)
{
	fb_sim_options o;
	fb_dataset *ds;
	fb_graph *truth;
	fb_error err;

	fb_sim_options_init(&o);
	o.d = s->d;
	o.edges = s->edges;
	o.n = s->n;
	o.seed = 5;
	if (fb_sim_generate(&o, &ds, &truth, &err) != FB_OK) {
		fprintf(stderr, "bench-mpi: %s\n", err.msg);
		exit(1);
	}
	fb_graph_free(truth);
	return ds;
}

/* What one run measured. */
typedef struct timing {
	double seconds;    /* the whole run */
	size_t rounds;     /* its rounds */
	size_t bytes;      /* its ledger, both ways */
	double *exchange;  /* per round: wall seconds of the exchange */
	double *slowest;   /* per round: the slowest client's half, where it ran here (NaN
	                      elsewhere) */
} timing;

/* The slowest client's half in the last round, NaN when none ran in this process. */
static double slowest_client(const fb_federation *f)
{
	double worst = NAN;

	for (size_t c = 0; c < fb_fed_k(f); c++) {
		double t = fb_fed_client_seconds(f, c);

		if (!isnan(t) && (isnan(worst) || t > worst))
			worst = t;
	}
	return worst;
}

/* Run s's algorithm on data over part to its end, timing each round's exchange. */
static void timed_run(const shape *s, const fb_dataset *data, const fb_partition *part,
                      timing *tm)
{
	fb_params p;
	fb_error err;
	fb_run *run;
	const fb_algo *a, *inner;
	size_t cap = 64;
	double t0 = fb_clock_now();

	fb_algo_lookup(s->algo, &a, &inner, &err);
	fb_params_init(&p, fb_algo_params(a, inner), &err);
	if (s->params != NULL)
		fb_params_set_word(&p, s->params, s->algo, &err);
	if ((run = fb_run_alloc(&(fb_run_spec){ .algo = s->algo, .params = &p, .data = data,
	                                        .part = part },
	                        &err)) == NULL) {
		fprintf(stderr, "bench-mpi: %s\n", err.msg);
		exit(1);
	}
	tm->exchange = fb_xcalloc(cap, sizeof *tm->exchange);
	tm->slowest = fb_xcalloc(cap, sizeof *tm->slowest);
	for (tm->rounds = 0; !fb_run_done(run); tm->rounds++) {
		if (fb_run_step(run, &err) != FB_OK) {
			fprintf(stderr, "bench-mpi: %s\n", err.msg);
			exit(1);
		}
		if (tm->rounds == cap) {
			cap *= 2;
			tm->exchange = fb_xreallocarray(tm->exchange, cap, sizeof *tm->exchange);
			tm->slowest = fb_xreallocarray(tm->slowest, cap, sizeof *tm->slowest);
		}
		tm->exchange[tm->rounds] = fb_fed_exchange_seconds(run->fed);
		tm->slowest[tm->rounds] = slowest_client(run->fed);
	}
	tm->seconds = fb_clock_now() - t0;
	tm->bytes = fb_run_bytes(run, FB_UP) + fb_run_bytes(run, FB_DOWN);
	fb_run_free(run);
	fb_params_release(&p);
}

/* Order doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Per round, the MPI exchange less the slowest client's half of the same round in-process
 * (the bits are the same, so the clients' work is too): what the transport adds, waits and
 * copies included; its minimum and median into *lo and *mid (seconds). */
static void overhead(const timing *in, const timing *over, double *lo, double *mid)
{
	size_t n = in->rounds < over->rounds ? in->rounds : over->rounds;
	double *o = fb_xcalloc(n > 0 ? n : 1, sizeof *o);

	for (size_t r = 0; r < n; r++)
		o[r] = over->exchange[r] - in->slowest[r];
	qsort(o, n, sizeof *o, cmp_double);
	*lo = n > 0 ? o[0] : NAN;
	*mid = n == 0 ? NAN : n % 2 ? o[n / 2] : 0.5 * (o[n / 2 - 1] + o[n / 2]);
	free(o);
}

/* FedPC: processor time per run in-process and of the server over MPI. */
static double fedpc_cpu[2];

/* Seconds of processor time this process has used. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FedPC's target: over MPI within 1.5 times the in-process time (t1 in-process, t2 MPI). */
static void fedpc_target(const shape *s, double t1, double t2)
{
	if (strcmp(s->algo, "fedpc") != 0)
		return;
	printf("  target: MPI within 1.5x of in-process: in-process %.3f s, MPI %.3f s, %.2fx "
	       "(%s)\n", t1, t2, t2 / t1, t2 <= 1.5 * t1 ? "met" : "missed");
	printf("  processor time per run: in-process %.3f s; over MPI the server %.3f s and "
	       "each client its own below\n", fedpc_cpu[0], fedpc_cpu[1]);
	fflush(stdout);
}

/* Free a timing's per-round arrays. */
static void timing_free(timing *tm)
{
	free(tm->exchange);
	free(tm->slowest);
}

/* FedPC's runs take seconds on a machine others share: two more of each, alternating, and
 * the best time of each kind (the same rounds and bytes every time); then the processor
 * time per run of the in-process run and of the server over MPI (each client prints its
 * own when the study ends), which the machine's other load does not change. */
static void fedpc_best(const shape *s, const fb_dataset *ds, const fb_partition *local,
                       const fb_dataset *schema, const fb_partition *remote, double *t1,
                       double *t2)
{
	double c1 = 0, c2 = 0;

	for (int i = 0; i < 2 && strcmp(s->algo, "fedpc") == 0; i++) {
		timing a = { 0 }, m = { 0 };
		double c0 = cpu_now(), cm;

		timed_run(s, ds, local, &a);
		cm = cpu_now();
		timed_run(s, schema, remote, &m);
		c1 += cm - c0;
		c2 += cpu_now() - cm;
		*t1 = a.seconds < *t1 ? a.seconds : *t1;
		*t2 = m.seconds < *t2 ? m.seconds : *t2;
		timing_free(&a);
		timing_free(&m);
	}
	fedpc_cpu[0] = c1 / 2;
	fedpc_cpu[1] = c2 / 2;
}

/* Rank 0: both runs and the figures. */
static void server(fb_proto *study, const shape *s, const fb_dataset *ds,
                   const fb_partition *local)
{
	fb_dataset *schema;
	fb_partition *remote;
	fb_error err;
	timing a = { 0 }, b = { 0 };
	double lo, mid, per;

	if ((remote = fb_proto_connect(study, &schema, &err)) == NULL) {
		fprintf(stderr, "bench-mpi: %s\n", err.msg);
		exit(1);
	}
	timed_run(s, ds, local, &a);
	timed_run(s, schema, remote, &b);
	overhead(&a, &b, &lo, &mid);
	fedpc_best(s, ds, local, schema, remote, &a.seconds, &b.seconds);
	per = (double)b.bytes / (double)b.rounds;
	printf("%s d=%zu n=%zu over %zu clients: in-process %.3f s, MPI %.3f s (%.2fx), "
	       "%zu rounds\n", s->algo, s->d, s->n, local->k, a.seconds, b.seconds,
	       b.seconds / a.seconds, b.rounds);
	printf("  per round: in-process %.3f ms, MPI %.3f ms; %.1f rounds/s over MPI\n",
	       1e3 * a.seconds / (double)a.rounds, 1e3 * b.seconds / (double)b.rounds,
	       (double)b.rounds / b.seconds);
	printf("  overhead per round (MPI exchange - slowest client's half): min %.3f ms, "
	       "median %.3f ms (target < 1 ms plus moving %.1f kB)\n", 1e3 * lo, 1e3 * mid,
	       per / 1e3);
	printf("  bytes over MPI: %zu (%.0f per round), %.2f MB/s; in-process ledger %zu\n", b.bytes,
	       per, (double)b.bytes / b.seconds / 1e6, a.bytes);
	fedpc_target(s, a.seconds, b.seconds);
	timing_free(&a);
	timing_free(&b);
	fb_partition_free(remote);
	fb_dataset_free(schema);
}

/* A client: serve the study; for FedPC print the processor time it took over the study
 * per run over MPI (three of them). */
static void serve_timed(fb_proto *study, const shape *s, const fb_dataset *mine, int rank)
{
	fb_error err;
	double c0 = cpu_now();

	if (fb_run_serve(study, mine, "bench", NULL, &err) != FB_OK)
		fprintf(stderr, "bench-mpi: client %d: %s\n", rank, err.msg);
	else if (strcmp(s->algo, "fedpc") == 0)
		printf("  client %d: processor time per run over MPI %.3f s (its rounds, and its "
		       "polls while it waited, through the in-process runs too)\n", rank,
		       (cpu_now() - c0) / 3);
}

/* Choose the benchmark, play this rank's part. */
int main(int argc, char **argv)
{
	static const shape admm = { "notears-admm", "max_rounds=50", 20, 20, 1600 };
	static const shape fedpc = { "fedpc", NULL, 1000, 1000, 2000 };
	const shape *s = argc > 1 && strcmp(argv[1], "fedpc") == 0 ? &fedpc : &admm;
	fb_dataset *ds = make_data(s);
	fb_split_options so;
	fb_partition *local;
	fb_proto_options o;
	fb_proto *study;
	fb_link *link;
	fb_error err;
	int rank, size;

	fb_proto_options_init(&o);
	if ((link = fb_link_mpi_start(&err)) == NULL || link->size < 2) {
		fprintf(stderr, "bench-mpi: run me under mpirun with 2 processes or more\n");
		return 1;
	}
	rank = link->rank;
	size = link->size;
	study = fb_proto_new(link, &o);
	fb_split_options_init(&so);
	so.shuffle = 0;
	local = fb_split(ds, FB_SPLIT_HORIZONTAL, (size_t)size - 1, &so, &err);
	if (rank == 0)
		server(study, s, ds, local);
	else
		serve_timed(study, s, local->clients[rank - 1].data, rank);
	fb_partition_free(local);
	fb_dataset_free(ds);
	fb_proto_end(study);
	return 0;
}
