/* bench-admm: wall time of linear NOTEARS-ADMM run in-process (every client's local step,
 * the server's W step, every client's update) on the shared synthetic data, and the SHD of
 * the thresholded result against the truth.
 *
 * Usage: bench-admm [--owlqn | --lbfgsb] [DATA_DIR] [TAG:K ...]
 * --owlqn solves the W step by OWL-QN, --lbfgsb by L-BFGS-B on the subgradient objective (the
 * reference code's solver), instead of NLopt's L-BFGS on the subgradient objective.
 * DATA_DIR defaults to $top_srcdir/../shared/data/synth (or ../shared/data/synth); each TAG
 * names a folder holding X.csv and truth.csv, whose rows are cut into K contiguous equal
 * blocks.  Without TAG:K it runs B_d20_n256_s{1,2,3}:8, A_d50_n150_s1:10 and
 * A_d100_n300_s1:10.  Times exclude reading the files.  For single-threaded figures run
 * with OPENBLAS_NUM_THREADS=1.
 *
 * bench-admm --settle [SEEDS [FIRST [D]]] compares the fixed schedule with the settle rule
 * (settle=10, OWL-QN) on simulated ER graphs (d edges, n = 3d rows, 10 contiguous clients)
 * for d = 100 and 200 (or D alone) over SEEDS seeds (10) from seed FIRST (1): processor time
 * and mean SHD of each.
 *
 * settle=10 stops once h(W) <= 2e-6, the edges have held for 10 rounds as a DAG, and no
 * weight's last change, carried on as a geometric tail at the rate sqrt(h) falls, would take
 * it across the threshold.  Without that last condition (d = 100 seeds 1-30, d = 200 seeds
 * 11-30) three false edges, 4e-4 to 8e-4 beyond 0.3 and shrinking by 1e-4 to 2e-4 a round,
 * crossed 5 to 11 rounds after the stop (at h 2e-7 to 6e-7), one SHD each (d = 100 seed 23,
 * d = 200 seeds 20 and 27); the tail puts each within 2e-4 of where it ends.  Reversed
 * edges 1e-2 beyond it, shrinking at a steady 7e-4 to 1e-3 a round until rho1 reaches
 * rho_max (round 79), cross later still (d = 100 seeds 13 and 20, d = 200 seeds 20 and 24)
 * beyond the tail's reach, at no cost in SHD (reversed and missing count one each).  None
 * of the seven has a reverse weight (w_ji = 0), and W's support at 0.05 has cycles at every
 * stop and at the end, so neither tells them apart.  Fixed schedule / settle=10, processor
 * seconds (speed-up), mean SHD fixed / settle, mean rounds of settle=10, OPENBLAS_NUM_THREADS=1
 * under a load near 8:
 *   d = 100 seeds 21-30: 48.5 / 19.4 s (2.50x), SHD 10.50 / 10.50, 67.4 rounds
 *   d = 200 seeds 11-20: 317.8 / 138.0 s (2.30x), SHD 29.80 / 29.80, 73.5 rounds
 *   d = 200 seeds 21-30: 320.4 / 131.5 s (2.44x), SHD 27.00 / 27.00, 69.7 rounds
 *   d = 100 seeds 31-40: 50.4 / 19.8 s (2.55x), SHD 13.50 / 13.50, 67.0 rounds (first run)
 *   d = 200 seeds 31-40: 310.2 / 137.4 s (2.26x), SHD 30.50 / 30.50, 74.4 rounds (first run)
 * d = 100 seeds 1-10 and 11-20 stop where the edges alone stop (the condition never waits
 * there). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_matrix.h>

#include "bench-common.h"
#include "fedbn/admm.h"
#include "fedbn/notears.h"
#include "fedbn/csv.h"
#include "fedbn/metrics.h"
#include "fedbn/sim.h"

/* The W-step solver chosen on the command line. */
static enum fb_admm_solver bench_solver = FB_ADMM_SUBGRADIENT;
/* The settle rule of the runs (0: the paper's fixed schedule). */
static size_t bench_settle;

/* What one run produced. */
typedef struct bench_result {
	size_t rounds;    /* server rounds */
	size_t evals;     /* objective evaluations, all W steps */
	double seconds;   /* wall time of all rounds */
	double cpu;       /* processor time of all rounds (less disturbed by other processes) */
	double local_s;   /* of which in the clients' local steps and updates */
	double h;         /* h(W) after the last round */
} bench_result;

/* Cut ds into K contiguous equal blocks (the remainder dropped) and make one client each. */
static int clients_make(const fb_dataset *ds, size_t K, const fb_admm_options *o,
                        fb_admm_client **c, fb_error *err)
{
	size_t per = ds->n / K, *rows = malloc(per * sizeof *rows);

	if (rows == NULL || per == 0) {
		free(rows);
		return fb_fail(err, "cannot cut %zu rows into %zu clients", ds->n, K);
	}
	for (size_t k = 0; k < K; k++) {
		fb_dataset *xk;

		for (size_t i = 0; i < per; i++)
			rows[i] = k * per + i;
		xk = fb_dataset_subset(ds, rows, per, NULL, 0);
		c[k] = xk != NULL ? fb_admm_client_alloc(xk, per * K, o, err) : NULL;
		fb_dataset_free(xk);
		if (c[k] == NULL) {
			free(rows);
			return FB_ERR;
		}
	}
	free(rows);
	return FB_OK;
}

/* One round of the in-process loop; adds the clients' time to *local_s. */
static int round_run(fb_admm_client **c, fb_admm_server *s, gsl_matrix **B, gsl_matrix *W,
                     size_t K, bench_result *res, fb_error *err)
{
	fb_admm_figures fig;
	double t0 = bench_now();
	size_t n = fb_admm_message_len(W->size1);
	double *u = fb_xcalloc(n, sizeof *u), *sum = fb_xcalloc(n, sizeof *sum);
	int ret = FB_OK;

	for (size_t k = 0; k < K && ret == FB_OK; k++) {
		ret = fb_admm_client_local(c[k], W, B[k], err);
		if (ret == FB_OK)
			ret = fb_admm_client_message(c[k], u, err);
		for (size_t q = 0; q < n; q++)
			sum[q] += u[q];
	}
	res->local_s += bench_now() - t0;
	if (ret == FB_OK)
		ret = fb_admm_server_global(s, sum, W, &fig, err);
	free(u);
	free(sum);
	if (ret != FB_OK)
		return FB_ERR;
	t0 = bench_now();
	for (size_t k = 0; k < K; k++) {
		if (fb_admm_client_update(c[k], W, err) != FB_OK)
			return FB_ERR;
	}
	res->local_s += bench_now() - t0;
	res->evals += fig.evals;
	res->h = fig.h;
	res->rounds++;
	return FB_OK;
}

/* Run until the server is done on ds over K clients; the final W goes to W. */
static int admm_run(const fb_dataset *ds, size_t K, gsl_matrix *W, bench_result *res,
                    fb_error *err)
{
	fb_admm_options o;
	fb_admm_client **c = calloc(K, sizeof *c);
	gsl_matrix **B = calloc(K, sizeof *B);
	fb_admm_server *s = NULL;
	int status = FB_ERR;
	double t0, c0;

	fb_admm_options_init(&o);
	o.solver = bench_solver;
	o.settle = bench_settle;
	memset(res, 0, sizeof *res);
	if (c == NULL || B == NULL || clients_make(ds, K, &o, c, err) != FB_OK)
		goto out;
	for (size_t k = 0; k < K; k++)
		B[k] = gsl_matrix_alloc(ds->d, ds->d);
	s = fb_admm_server_alloc(ds->d, K, &o, err);
	if (s == NULL)
		goto out;
	gsl_matrix_memcpy(W, fb_admm_server_W(s));
	t0 = bench_now();
	c0 = bench_cpu_now();
	while (!fb_admm_server_done(s)) {
		if (round_run(c, s, B, W, K, res, err) != FB_OK)
			goto out;
	}
	res->seconds = bench_now() - t0;
	res->cpu = bench_cpu_now() - c0;
	status = FB_OK;
out:
	for (size_t k = 0; c != NULL && B != NULL && k < K; k++) {
		fb_admm_client_free(c[k]);
		gsl_matrix_free(B[k]);
	}
	fb_admm_server_free(s);
	free(c);
	free(B);
	return status;
}

/* The SHD of W (post-processed) against the truth file over the dataset's names. */
static int shd_compute(gsl_matrix *W, const fb_dataset *ds, const char *truth_path,
                       size_t *shd, fb_error *err)
{
	char **names = calloc(ds->d, sizeof *names);
	fb_graph *truth, *est = NULL;
	fb_metrics m;
	int status = FB_ERR;

	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	truth = fb_graph_read_csv_for(truth_path, ds, err);
	if (truth == NULL)
		goto out;
	if ((est = fb_weights_to_dag(W, 0.3, names, NULL, err)) == NULL)
		goto out;
	if (fb_metrics_compute(est, truth, &m, err) == FB_OK) {
		*shd = m.shd;
		status = FB_OK;
	}
out:
	fb_graph_free(truth);
	fb_graph_free(est);
	free(names);
	return status;
}

/* Run one TAG:K case from dir and print its line; FB_ERR with err on failure. */
static int bench_case(const char *dir, const char *spec, fb_error *err)
{
	char tag[256], xpath[1024], tpath[1024];
	const char *colon = strchr(spec, ':');
	size_t K = colon != NULL ? (size_t)strtoul(colon + 1, NULL, 10) : 0, shd = 0;
	fb_csv_options co;
	fb_dataset *ds;
	gsl_matrix *W;
	bench_result res;
	int status;

	if (colon == NULL || K == 0 || (size_t)(colon - spec) >= sizeof tag)
		return fb_fail(err, "'%s' is not TAG:K", spec);
	memcpy(tag, spec, (size_t)(colon - spec));
	tag[colon - spec] = '\0';
	snprintf(xpath, sizeof xpath, "%s/%s/X.csv", dir, tag);
	snprintf(tpath, sizeof tpath, "%s/%s/truth.csv", dir, tag);
	fb_csv_options_init(&co);
	ds = fb_csv_read(xpath, &co, NULL, err);
	if (ds == NULL)
		return FB_ERR;
	W = gsl_matrix_alloc(ds->d, ds->d);
	status = admm_run(ds, K, W, &res, err);
	if (status == FB_OK)
		status = shd_compute(W, ds, tpath, &shd, err);
	if (status == FB_OK)
		printf("%-16s d=%-3zu K=%-2zu rounds %zu  wall %.3f s (%.2f ms/round)  cpu %.3f s "
		       "(%.2f ms/round)  clients %.3f s  evals %zu (%.0f/round)  h %.2e  SHD %zu\n",
		       tag, ds->d, K, res.rounds, res.seconds,
		       1e3 * res.seconds / (double)res.rounds, res.cpu,
		       1e3 * res.cpu / (double)res.rounds, res.local_s, res.evals,
		       (double)res.evals / (double)res.rounds, res.h, shd);
	gsl_matrix_free(W);
	fb_dataset_free(ds);
	return status;
}

/* Run seeds first..first+seeds-1 of one size, fixed schedule then settle rule; print the
 * comparison. */
static int settle_size(size_t d, size_t first, size_t seeds, fb_error *err)
{
	double cpu[2] = { 0, 0 }, shd[2] = { 0, 0 };
	size_t rounds[2] = { 0, 0 };

	for (size_t seed = first; seed < first + seeds; seed++) {
		fb_sim_options so;
		fb_dataset *ds;
		fb_graph *truth;

		fb_sim_options_init(&so);
		so.d = d;
		so.edges = d;
		so.n = 3 * d;
		so.seed = seed;
		if (fb_sim_generate(&so, &ds, &truth, err) != FB_OK)
			return FB_ERR;
		for (int rule = 0; rule < 2; rule++) {
			gsl_matrix *W = gsl_matrix_alloc(d, d);
			char **names = fb_dataset_names(ds);
			bench_result res;
			fb_graph *est = NULL;
			fb_metrics m;
			int ret;

			bench_settle = rule ? 10 : 0;
			ret = admm_run(ds, 10, W, &res, err);
			if (ret == FB_OK &&
			    (est = fb_weights_to_dag(W, 0.3, names, NULL, err)) != NULL &&
			    fb_metrics_compute(est, truth, &m, err) == FB_OK) {
				cpu[rule] += res.cpu;
				shd[rule] += (double)m.shd;
				rounds[rule] += res.rounds;
			} else {
				ret = FB_ERR;
			}
			fb_graph_free(est);
			fb_names_free(names, d);
			gsl_matrix_free(W);
			if (ret != FB_OK)
				return FB_ERR;
		}
		fb_dataset_free(ds);
		fb_graph_free(truth);
	}
	printf("d=%-3zu %zu seeds from %zu: fixed schedule cpu %.2f s, %.1f rounds, mean SHD %.2f; "
	       "settle=10 cpu %.2f s, %.1f rounds, mean SHD %.2f; %.2fx faster (target >= 2x, "
	       "SHD no worse)\n", d, seeds, first, cpu[0], (double)rounds[0] / (double)seeds,
	       shd[0] / (double)seeds, cpu[1], (double)rounds[1] / (double)seeds,
	       shd[1] / (double)seeds, cpu[0] / cpu[1]);
	fflush(stdout);
	bench_settle = 0;
	return FB_OK;
}

/* The settle rule against the fixed schedule at d = 100 and 200. */
static int settle_main(int argc, char **argv)
{
	size_t seeds = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 10;
	size_t first = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : 1;
	size_t only = argc > 4 ? (size_t)strtoul(argv[4], NULL, 10) : 0;
	fb_error err = { { 0 } };

	bench_solver = FB_ADMM_OWLQN;
	if (seeds == 0)
		seeds = 10;
	if (first == 0)
		first = 1;
	for (size_t d = 100; d <= 200; d += 100)
		if ((only == 0 || only == d) && settle_size(d, first, seeds, &err) != FB_OK) {
			fprintf(stderr, "bench-admm: %s\n", err.msg);
			return 1;
		}
	return 0;
}

/* Run the cases named on the command line, or the default set. */
int main(int argc, char **argv)
{
	static const char *defaults[] = {
		"B_d20_n256_s1:8", "B_d20_n256_s2:8", "B_d20_n256_s3:8",
		"A_d50_n150_s1:10", "A_d100_n300_s1:10",
	};
	const char *top = getenv("top_srcdir");
	char dir[1024];
	fb_error err = { { 0 } };
	int first = 1;

	fb_gsl_install_handler();
	if (argc > 1 && strcmp(argv[1], "--settle") == 0)
		return settle_main(argc, argv);
	if (argc > 1 && (strcmp(argv[1], "--owlqn") == 0 || strcmp(argv[1], "--lbfgsb") == 0)) {
		bench_solver = strcmp(argv[1], "--owlqn") == 0 ? FB_ADMM_OWLQN : FB_ADMM_LBFGSB;
		argv++;
		argc--;
	}
	if (argc > 1 && strchr(argv[1], ':') == NULL) {
		snprintf(dir, sizeof dir, "%s", argv[1]);
		first = 2;
	} else {
		snprintf(dir, sizeof dir, "%s/../shared/data/synth", top != NULL ? top : ".");
	}
	for (int i = first; i < argc; i++) {
		if (bench_case(dir, argv[i], &err) != FB_OK) {
			fprintf(stderr, "bench-admm: %s\n", err.msg);
			return 1;
		}
	}
	for (size_t i = 0; first == argc && i < sizeof defaults / sizeof *defaults; i++) {
		if (bench_case(dir, defaults[i], &err) != FB_OK) {
			fprintf(stderr, "bench-admm: %s\n", err.msg);
			return 1;
		}
	}
	return 0;
}
