/* bench-ges: wall and processor time of GES, from the dataset to the CPDAG (the local score's
 * set-up included, the CSV read not), on the causal-learn data of tests/data/ges: 20
 * continuous variables with BIC, 20 ternary variables with BDeu, 5 continuous variables with
 * BIC, 10,000 rows each; best of five runs.
 *
 * Usage: bench-ges [SRCDIR] */
#include "config.h"

#include <stdio.h>

#include "bench-common.h"
#include "fedbn/csv.h"
#include "fedbn/ges.h"

#ifndef FB_TOP_SRCDIR
#define FB_TOP_SRCDIR "."
#endif

/* Runs per dataset. */
#define BENCH_REPS 5

/* One dataset and its score. */
struct bench_case {
	const char *file;         /* under tests/data/ges */
	bool discrete;            /* read every column as discrete */
	enum fb_ges_score kind; /* the score */
};

/* Run GES on ds to the end; its steps and edges, FB_ERR with the reason printed. */
static int bench_once(const fb_dataset *ds, enum fb_ges_score kind, size_t *steps,
                      size_t *edges)
{
	fb_ges_options o = { kind, 0.5, 1.0, 1.0 };
	fb_error err = { "" };
	fb_ges *g = fb_ges_alloc(ds, &o, &err);
	fb_ges_round r;

	if (g == NULL) {
		printf("ges: %s\n", err.msg);
		return FB_ERR;
	}
	for (*steps = 0; !fb_ges_done(g); (*steps)++)
		if (fb_ges_step(g, &r, &err) != FB_OK) {
			printf("ges: %s\n", err.msg);
			fb_ges_free(g);
			return FB_ERR;
		}
	*edges = fb_graph_n_edges(fb_ges_graph(g));
	fb_ges_free(g);
	return FB_OK;
}

/* Read one case and time it. */
static int bench_case_run(const char *top, const struct bench_case *c)
{
	fb_csv_options opt;
	fb_error err = { "" };
	fb_dataset *ds;
	char path[4096];
	double best = 1e300, best_cpu = 1e300;
	size_t steps = 0, edges = 0;

	snprintf(path, sizeof path, "%s/tests/data/ges/%s", top, c->file);
	fb_csv_options_init(&opt);
	opt.discrete = c->discrete ? FB_DISCRETE_ALL : FB_DISCRETE_NONE;
	if ((ds = fb_csv_read(path, &opt, NULL, &err)) == NULL) {
		printf("%s: skipped (%s)\n", c->file, err.msg);
		return FB_ERR;
	}
	for (int rep = 0; rep < BENCH_REPS; rep++) {
		double t0 = bench_now(), c0 = bench_cpu_now();

		if (bench_once(ds, c->kind, &steps, &edges) != FB_OK)
			break;
		if (bench_now() - t0 < best)
			best = bench_now() - t0;
		if (bench_cpu_now() - c0 < best_cpu)
			best_cpu = bench_cpu_now() - c0;
	}
	printf("ges %-4s %-44s n %zu d %zu: %zu steps, %zu edges, best of %d: %.4f s wall, "
	       "%.4f s cpu\n", c->kind == FB_GES_SCORE_BIC ? "bic" : "bdeu", c->file, ds->n, ds->d,
	       steps, edges, BENCH_REPS, best, best_cpu);
	fb_dataset_free(ds);
	return FB_OK;
}

int main(int argc, char **argv)
{
	static const struct bench_case cases[] = {
		{ "data_linear_10.txt", false, FB_GES_SCORE_BIC },
		{ "data_discrete_10.txt", true, FB_GES_SCORE_BDEU },
		{ "test_ges_simulated_linear_gaussian_data.csv", false, FB_GES_SCORE_BIC },
	};
	const char *top = argc > 1 ? argv[1] : FB_TOP_SRCDIR;

	fb_gsl_install_handler();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		bench_case_run(top, &cases[i]);
	return 0;
}
