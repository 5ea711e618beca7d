/* bootstrap: the chosen learner on resamples of the rows (each client its own), per pair
 * the share of graphs with an edge and with each direction, and the consensus graph. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "fedbn/bootstrap.h"
#include "fedbn/metrics.h"
#include "cmd.h"
#include "interrupt.h"
#include "pane.h"
#include "session.h"

/* A pair with an edge in some resample: its variables and strength, for sorting. */
struct pair {
	size_t i, j;  /* i < j */
	double s;     /* strength */
};

/* Decreasing strength, then index order. */
static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? 1 : -1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

/* Print each pair with an edge in some resample: strength and the two directions' shares. */
static void print_pairs(FILE *out, const fb_boot *b, const fb_dataset *ds)
{
	size_t d = b->d, n = 0;
	struct pair *p = fb_xcalloc(d * d + 1, sizeof *p);

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (b->strength[i * d + j] > 0)
				p[n++] = (struct pair){ i, j, b->strength[i * d + j] };
	qsort(p, n, sizeof *p, cmp_pair);
	fprintf(out, "%-28s %8s %9s %9s\n", "pair", "strength", "i -> j", "j -> i");
	for (size_t q = 0; q < n; q++) {
		char name[64];

		snprintf(name, sizeof name, "%s - %s", fb_cmd_name(ds->vars[p[q].i].name),
		         fb_cmd_name(ds->vars[p[q].j].name));
		fprintf(out, "%-28s %8.3f %9.3f %9.3f\n", name, p[q].s,
		        b->direction[p[q].i * d + p[q].j], b->direction[p[q].j * d + p[q].i]);
	}
	free(p);
}

/* Print the consensus graph's edges and, with a truth, its accuracy. */
static void print_consensus(FILE *out, const fb_boot *b, const fb_graph *truth)
{
	const fb_graph *g = b->consensus;
	size_t dir = 0, und = 0;
	fb_error err = { { 0 } };
	fb_metrics m;

	fb_graph_count_edges(g, &dir, &und);
	fprintf(out, "threshold %.4g (%s); consensus: %zu arc%s, %zu undirected edge%s",
	        b->threshold, b->estimated ? "estimated as Scutari and Nagarajan 2013" : "given",
	        dir, dir == 1 ? "" : "s", und, und == 1 ? "" : "s");
	if (b->dropped > 0)
		fprintf(out, " (%zu arc%s left out: %s a cycle)", b->dropped,
		        b->dropped == 1 ? "" : "s", b->dropped == 1 ? "it closed" : "each closed");
	fprintf(out, "\n");
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++)
			if (fb_graph_has_arc(g, i, j) ||
			    (i < j && fb_graph_edge(g, i, j) == FB_EDGE_UNDIRECTED))
				fprintf(out, "  %s %s %s\n", fb_cmd_name(g->names[i]),
				        fb_graph_has_arc(g, i, j) ? "->" : "--", fb_cmd_name(g->names[j]));
	if (truth != NULL && fb_metrics_compute(g, truth, &m, &err) == FB_OK)
		fprintf(out, "consensus against the truth: SHD %zu, TPR %.3f, FDR %.3f\n", m.shd,
		        m.tpr, m.fdr);
}

/* How far the bootstrap is: a bar on a terminal, else a line on standard error now and
 * then. */
struct progress {
	fb_cmd_ctx *ctx;
	bool bar;        /* redraw a bar on the terminal */
	double every;    /* seconds between lines without a terminal (0: every resample) */
	double t0, last; /* when it started, when progress was last shown */
};

/* A resample ended (called by the job that ran it, one call at a time). */
static void show_progress(void *arg, size_t finished, size_t total)
{
	struct progress *pr = arg;
	double now = fb_clock_now();
	double left = (now - pr->t0) / (double)finished * (double)(total - finished);
	int fill = (int)(30 * finished / total);

	if (pr->bar) {
		fprintf(pr->ctx->out, "\r[%.*s%*s] %zu/%zu resamples, about %.0f s left\033[K",
		        fill, "##############################", 30 - fill, "", finished, total,
		        left);
		fflush(pr->ctx->out);
	} else if (now - pr->last >= pr->every) {
		fprintf(pr->ctx->err, "bootstrap: %zu of %zu resamples done, about %.0f s left\n",
		        finished, total, left);
		fflush(pr->ctx->err);
	} else
		return;
	pr->last = now;
}

/* Keep the consensus as a graph compare scores and report shows, weighted by strength. */
static void keep_consensus(fb_session *s, const fb_boot *b)
{
	fb_graph *g = fb_graph_copy(b->consensus);
	size_t d = b->d;

	g->weighted = true;
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			if (g->w[i * d + j] != 0) /* an arc's, or both of an undirected edge's */
				g->w[i * d + j] = b->strength[i * d + j];
	s->graphs = fb_xreallocarray(s->graphs, s->ngraphs + 1, sizeof *s->graphs);
	s->graphs[s->ngraphs++] = (fb_session_graph){
		g, fb_xasprintf("bootstrap consensus: %s, %zu resamples, threshold %.4g", s->algo,
		                b->resamples, b->threshold),
		fb_xstrdup(s->data_source), true
	};
}

/* Learn the resamples with progress shown and Ctrl-C heard; NULL after the error. */
static fb_boot *boot_run(fb_cmd_ctx *ctx, const fb_run_spec *spec, fb_boot_options *o,
                         double every)
{
	struct progress pr = { ctx, fb_pane_usable(ctx->out), every, fb_clock_now(), 0 };
	fb_error err = { { 0 } };
	fb_boot *b;

	pr.last = pr.t0;
	o->cancel = fb_interrupt_cancel();
	o->done = show_progress;
	o->done_ctx = &pr;
	fb_interrupt_begin();
	b = fb_bootstrap(spec, o, &err);
	fb_interrupt_end();
	if (pr.bar) {
		fputs("\r\033[K", ctx->out);
		fflush(ctx->out);
	}
	if (b == NULL && fb_interrupted())
		fb_cmd_error(ctx, "stopped by %s before any resample finished", fb_interrupt_cause());
	else if (b == NULL)
		fb_cmd_error(ctx, "%s", err.msg);
	return b;
}

/* bootstrap N [fraction= seed= jobs= threshold= rounds= cpdag= progress=]. */
static int exec_bootstrap(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_session *s = ctx->s;
	const fb_params *p = &a->params;
	fb_boot_options o;
	fb_fed_options fo;
	fb_run_spec spec = { .algo = s->algo, .params = &s->params, .fedopt = &fo,
	                     .data = s->data, .part = s->split, .knowledge = s->knowledge };
	char *end;
	long long r = strtoll(a->argv[0], &end, 10);
	fb_boot *b;
	bool cut;

	if (*end != '\0' || r < 1 || r > 100000)
		return fb_cmd_error(ctx, "the number of resamples must be a whole number from 1 to "
		                    "100000, not '%s'", a->argv[0]);
	if (s->algo == NULL)
		return fb_cmd_error(ctx, "no algorithm chosen: choose one with algo NAME");
	fb_boot_options_init(&o);
	o.resamples = (size_t)r;
	o.fraction = fb_params_double(p, "fraction");
	o.seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed") : s->seed;
	o.jobs = (size_t)fb_params_int(p, "jobs");
	o.threshold = fb_params_given(p, "threshold") ? fb_params_double(p, "threshold") : NAN;
	o.max_rounds = (size_t)fb_params_int(p, "rounds");
	o.cpdag = fb_params_bool(p, "cpdag");
	fb_fed_options_init(&fo);
	fo.seed = s->seed;
	if ((b = boot_run(ctx, &spec, &o, fb_params_double(p, "progress"))) == NULL)
		return FB_CMD_ERROR;
	if ((cut = b->resamples < b->requested))
		fprintf(ctx->out, "stopped by %s: resamples 1 to %zu of %zu had finished; the "
		        "figures below are theirs (bootstrap %zu with this seed gives them again)\n",
		        fb_interrupt_cause(), b->resamples, b->requested, b->resamples);
	fprintf(ctx->out, "bootstrap: %s on %zu resamples of %s (fraction %g, seed %" PRIu64
	        ")\n", s->algo, b->resamples, s->split != NULL ? "each client's own rows" :
	        "the rows", o.fraction, o.seed);
	print_pairs(ctx->out, b, s->data);
	print_consensus(ctx->out, b, s->truth);
	keep_consensus(s, b);
	fprintf(ctx->out, "g%zu: the consensus, its edges weighted by strength; compare scores "
	        "it, report shows it, export FILE what=consensus draws it\n", s->ngraphs);
	fb_boot_free(b);
	if (cut && !ctx->interactive) /* batch mode: the script learns it was cut short */
		return fb_cmd_error(ctx, "stopped by %s", fb_interrupt_cause());
	return FB_CMD_OK;
}

/* bootstrap's parameters. */
static const fb_param_def bootstrap_params[] = {
	{ "fraction", FB_PARAM_DOUBLE, "1", 1e-6, 1, NULL,
	  "share of the training rows each resample draws (with replacement)" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the resamples' streams; default the session seed" },
	{ "jobs", FB_PARAM_INT, "1", 1, 256, NULL,
	  "resamples learnt at once (the result is the same for any number)" },
	{ "threshold", FB_PARAM_DOUBLE, NULL, 0, 1, NULL,
	  "the consensus keeps pairs whose strength is above this; default estimated "
	  "(Scutari and Nagarajan 2013)" },
	{ "rounds", FB_PARAM_INT, "0", 0, 1e9, NULL,
	  "stop each run after this many rounds (0: when it is done)" },
	{ "cpdag", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "tally each learned DAG's equivalence class (its CPDAG), as bnlearn's boot.strength "
	  "does by default, instead of the DAG itself" },
	{ "progress", FB_PARAM_DOUBLE, "10", 0, 1e9, NULL,
	  "without a terminal, a progress line on standard error every this many seconds" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_bootstrap = {
	.name = "bootstrap", .alias = NULL, .usage = "N",
	.summary = "edge and direction frequencies of the chosen learner over N resamples",
	.help = "Run the chosen algorithm with its parameters on N resamples of the training "
	        "rows, drawn with replacement (fraction= of them); over a horizontal split each "
	        "client resamples its own rows. For each pair of variables it prints the share "
	        "of the N graphs with an edge between them (strength) and, among those, the "
	        "share with each direction (an undirected edge counts half each way), as "
	        "bnlearn's boot.strength; then a consensus graph of the pairs whose strength is "
	        "above the threshold (default: Scutari and Nagarajan's estimate, the quantile of "
	        "the strengths at the median of their empirical CDF over [0, 1]), each oriented "
	        "by its more frequent direction and, for a learner of DAGs, added in decreasing "
	        "strength unless it closes a cycle. The same seed gives the same result for any "
	        "jobs=. A terminal shows a progress bar; otherwise a line on standard error "
	        "every progress= seconds. Ctrl-C stops it and keeps the resamples 1 to K that had "
	        "finished (the result of bootstrap K). The consensus is kept as a graph weighted "
	        "by strength: compare scores it as a row, report shows it, and export FILE "
	        "what=consensus draws it with each edge's strength as its label and pen width.",
	.min_args = 1, .max_args = 1, .params = bootstrap_params,
	.needs = FB_NEEDS_DATA, .exec = exec_bootstrap,
};
