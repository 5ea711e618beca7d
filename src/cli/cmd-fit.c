/* fit: the parameters of a run's DAG (or the truth's) over the current split; the fitted
 * network that export writes as BIF or XMLBIF and sample draws from. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bnfit.h"
#include "fedbn/circuit.h"
#include "fedbn/cpdag.h"
#include "cmd.h"
#include "files.h"
#include "session.h"

/* Which graph fit takes. */
enum fit_graph { FIT_RUN, FIT_TRUTH };
/* Its names. */
static const fb_choice fit_graphs[] = { { "run", FIT_RUN }, { "truth", FIT_TRUTH }, { 0 } };
/* The names of method=. */
static const fb_choice fit_methods[] = {
	{ "mle", FB_BNFIT_MLE }, { "bayes", FB_BNFIT_BAYES }, { 0 },
};

/* What one fit works on: the graph (a DAG), the data and split, and how it was had. */
struct fit_input {
	fb_graph *dag;              /* the DAG to fit (owned) */
	const fb_dataset *data;     /* every row, held-out ones included */
	const fb_partition *split;  /* the clients, or NULL: the pooled fit */
	char *what;                 /* "the DAG of run 2 (pc), its CPDAG extended ..." (owned) */
	size_t run;                 /* the run whose graph it is (from 1), 0 for the truth */
};

/* The run's graph as a DAG: a CPDAG (or a PDAG) extended (Dor and Tarsi), said in what. */
static int run_input(fb_cmd_ctx *ctx, const fb_params *p, struct fit_input *in)
{
	fb_run *run = fb_cmd_pick_run(ctx, fb_params_int(p, "run"));
	fb_error err = { { 0 } };
	fb_graph *g;
	bool fallback = false;
	size_t no;

	if (run == NULL)
		return FB_CMD_ERROR;
	no = fb_cmd_run_number(ctx->s, run);
	if (fb_run_is_circuit(run) || fb_run_is_pag(run))
		return fb_cmd_error(ctx, "run %zu learns a %s, not a DAG; fit takes a run that "
		                    "learns a DAG or a CPDAG, or graph=truth", no,
		                    fb_run_is_circuit(run) ? "circuit" : "PAG");
	if ((g = fb_run_result(run, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	in->data = run->whole;
	in->split = run->whole_part;
	in->run = no;
	if (fb_graph_n_undirected(g) == 0) {
		in->dag = g;
		in->what = fb_xasprintf("the DAG of run %zu (%s)", no, run->name);
		return FB_CMD_OK;
	}
	in->dag = fb_cpdag_to_dag(g, &fallback);
	in->what = fb_xasprintf("the DAG of run %zu (%s): its %zu undirected edge%s oriented by "
	                        "a consistent extension (Dor and Tarsi)%s", no, run->name,
	                        fb_graph_n_undirected(g), fb_graph_n_undirected(g) == 1 ? "" : "s",
	                        fallback ? "; none exists, so along a topological order of the "
	                                   "arcs" : "");
	fb_graph_free(g);
	return FB_CMD_OK;
}

/* The fit's input from p: the run's graph or the truth over the current data and split. */
static int fit_input(fb_cmd_ctx *ctx, const fb_params *p, struct fit_input *in)
{
	if (fb_params_choice(p, "graph") == FIT_RUN)
		return run_input(ctx, p, in);
	if (fb_cmd_need(ctx, FB_NEEDS_DATA | FB_NEEDS_TRUTH) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_graph_n_undirected(ctx->s->truth) > 0 || !fb_graph_is_dag(ctx->s->truth))
		return fb_cmd_error(ctx, "the truth is not a DAG");
	in->dag = fb_graph_copy(ctx->s->truth);
	in->data = ctx->s->data;
	in->split = ctx->s->split;
	in->what = fb_xstrdup("the true DAG");
	return FB_CMD_OK;
}

/* Free parameters of a fit: q (r - 1) per table, p + 2 per regression. */
static size_t free_params(const fb_bnfit *f)
{
	size_t k = 0;

	for (size_t i = 0; i < fb_bnfit_d(f); i++)
		k += f->bn != NULL ? f->bn->nodes[i].nconfigs * (f->bn->nodes[i].nstates - 1)
		                   : f->gbn->nodes[i].nparents + 2;
	return k;
}

/* Each part's log-likelihood of data under f into ll, then printed as means per row. */
static void print_loglik(FILE *out, const fb_bnfit *f, const fb_dataset *data,
                         fb_loglik ll[FB_NPARTS])
{
	memset(ll, 0, FB_NPARTS * sizeof *ll);
	for (size_t i = 0; i < data->n; i++) {
		double v = fb_bnfit_row_loglik(f, data, i);
		fb_loglik *l = &ll[fb_dataset_part(data, i)];

		l->n++;
		l->sum += v;
		l->sumsq += v * v;
	}
	fprintf(out, "log-likelihood per row (mean +- standard error):\n");
	for (int p = 0; p < FB_NPARTS; p++)
		if (ll[p].n > 0)
			fprintf(out, "  %-5s  %.4f +- %.4f  (%zu rows)\n", fb_part_names[p],
			        fb_loglik_mean(&ll[p]), fb_loglik_se(&ll[p]), ll[p].n);
}

/* Print a table: the variable and its parents, then a line per configuration. */
static void show_table(FILE *out, const fb_bn *bn, size_t i)
{
	const fb_bn_node *nd = &bn->nodes[i];

	fprintf(out, "  %s", fb_cmd_name(nd->name));
	for (size_t j = 0; j < nd->nparents; j++)
		fprintf(out, "%s%s", j == 0 ? " | " : ", ", fb_cmd_name(bn->nodes[nd->parents[j]].name));
	fprintf(out, ":");
	for (size_t s = 0; s < nd->nstates; s++)
		fprintf(out, " %s", fb_cmd_name(nd->states[s]));
	fprintf(out, "\n");
	for (size_t c = 0; c < nd->nconfigs; c++) {
		size_t rest = c, st[64];

		for (size_t j = nd->nparents; j-- > 0;) {
			st[j] = rest % bn->nodes[nd->parents[j]].nstates;
			rest /= bn->nodes[nd->parents[j]].nstates;
		}
		fprintf(out, "    ");
		for (size_t j = 0; j < nd->nparents; j++)
			fprintf(out, "%s%s", j == 0 ? "(" : ", ",
			        fb_cmd_name(bn->nodes[nd->parents[j]].states[st[j]]));
		fprintf(out, "%s", nd->nparents > 0 ? ") " : "");
		for (size_t s = 0; s < nd->nstates; s++)
			fprintf(out, "%s%.4f", s > 0 ? " " : "", nd->cpt[c * nd->nstates + s]);
		fprintf(out, "\n");
	}
}

/* Print a regression: X = a + b P + ... + N(0, sd^2). */
static void show_regression(FILE *out, const fb_gbn *g, size_t i)
{
	const fb_gnode *nd = &g->nodes[i];

	fprintf(out, "  %s = %.4g", fb_cmd_name(nd->name), nd->intercept);
	for (size_t j = 0; j < nd->nparents; j++)
		fprintf(out, " %c %.4g %s", nd->coef[j] < 0 ? '-' : '+', fabs(nd->coef[j]),
		        fb_cmd_name(g->nodes[nd->parents[j]].name));
	fprintf(out, " + N(0, %.4g^2)\n", nd->sd);
}

/* The summary of a fit; each part's log-likelihood into ll. */
static void print_fit(fb_cmd_ctx *ctx, const fb_bnfit *f, const struct fit_input *in,
                      const fb_params *p, fb_loglik ll[FB_NPARTS])
{
	FILE *out = ctx->out;
	size_t d = fb_bnfit_d(f);

	fprintf(out, "fitted %s: ", in->what);
	if (f->bn != NULL)
		fprintf(out, "%zu tables (%s", d, fb_params_str(p, "method"));
	else
		fprintf(out, "%zu linear Gaussian regressions (least squares, sd with n - p - 1",
		        d);
	if (f->bn != NULL && fb_params_choice(p, "method") == FB_BNFIT_BAYES)
		fprintf(out, ", iss %g", fb_params_double(p, "iss"));
	if (f->unseen > 0)
		fprintf(out, "; %zu parent configuration%s without a training row given the "
		        "uniform row", f->unseen, f->unseen == 1 ? "" : "s");
	fprintf(out, "), %zu free parameters, %zu training rows\n", free_params(f), f->n);
	if (in->split != NULL)
		fprintf(out, "over %s: %zu clients sent %zu numbers each (sufficient statistics), "
		        "%zu bytes down, %zu bytes up%s\n", in->split->desc, f->clients, f->nstats,
		        f->bytes[FB_DOWN], f->bytes[FB_UP],
		        f->secure ? ", summed by secure aggregation" : "");
	print_loglik(out, f, in->data, ll);
	for (size_t i = 0; fb_params_bool(p, "show") && i < d; i++) {
		if (f->bn != NULL)
			show_table(out, f->bn, i);
		else
			show_regression(out, f->gbn, i);
	}
}

/* The federation's options from the session's run options: its sums are secure when runs'
 * are (secure=, t=, secure_bits=); differential privacy, whose clipping is for model
 * vectors, not counts, is not applied, and fit says so. */
static void fit_fed_options(fb_cmd_ctx *ctx, fb_fed_options *fo)
{
	const fb_params *ro = &ctx->s->runopt;

	fb_fed_options_init(fo);
	fo->seed = ctx->s->seed;
	fo->secure = fb_params_bool(ro, "secure");
	fo->threshold = (size_t)fb_params_int(ro, "t");
	fo->secure_bits = (unsigned)fb_params_int(ro, "secure_bits");
	if (fo->secure && fb_params_double(ro, "dp_epsilon") > 0)
		fprintf(ctx->out, "note: fit's sums are secure but carry no differential-privacy "
		        "noise (dp_epsilon= applies to runs)\n");
}

/* fit [graph=run|truth] [run=N] [method=mle|bayes] [iss=X] [show=yes]. */
static int exec_fit(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	struct fit_input in = { 0 };
	fb_bnfit_options o;
	fb_fed_options fo;
	fb_error err = { { 0 } };
	fb_loglik ll[FB_NPARTS];
	fb_bnfit *f;

	if (fit_input(ctx, p, &in) != FB_CMD_OK)
		return FB_CMD_ERROR;
	fit_fed_options(ctx, &fo);
	fb_bnfit_options_init(&o);
	o.method = (enum fb_bnfit_method)fb_params_choice(p, "method");
	o.iss = fb_params_double(p, "iss");
	f = in.split != NULL ? fb_bnfit_federated(in.split, in.dag, &o, &fo, &err)
	                     : fb_bnfit_pooled(in.data, in.dag, &o, &err);
	if (f == NULL) {
		fb_graph_free(in.dag);
		free(in.what);
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	print_fit(ctx, f, &in, p, ll);
	if (in.run > 0) { /* compare shows them beside the run */
		ctx->s->meta[in.run - 1].fitted = true;
		memcpy(ctx->s->meta[in.run - 1].fit_ll, ll, sizeof ll);
	}
	fb_bnfit_free(ctx->s->fit);
	ctx->s->fit = f;
	fb_graph_free(in.dag);
	free(in.what);
	return FB_CMD_OK;
}

/* Whether path names a fitted network's file (.bif or .xmlbif). */
bool fb_cmd_fit_file(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot != NULL && (strcmp(dot, ".bif") == 0 || strcmp(dot, ".xmlbif") == 0);
}

/* export FILE.bif | FILE.xmlbif: write the session's fitted network. */
int fb_cmd_fit_export(fb_cmd_ctx *ctx, const fb_params *p, const char *path)
{
	bool xml = strcmp(strrchr(path, '.'), ".xmlbif") == 0;
	const fb_bnfit *f = ctx->s->fit;
	fb_atomic_file af;
	fb_error err = { { 0 } };

	if (f == NULL)
		return fb_cmd_error(ctx, "no fitted network to write to '%s': fit one first (fit)",
		                    path);
	if (f->bn == NULL)
		return fb_cmd_error(ctx, "'%s': BIF and XMLBIF hold discrete networks, and the "
		                    "fitted one is linear Gaussian", path);
	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_atomic_open(&af, path, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	if (xml)
		fb_bn_write_xmlbif(af.fp, f->bn);
	else
		fb_bn_write_bif(af.fp, f->bn);
	if (fb_atomic_commit(&af, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (the fitted network as %s: %zu variables, %zu arcs)\n",
	        path, xml ? "XMLBIF" : "BIF", f->bn->d, fb_bn_n_arcs(f->bn));
	return FB_CMD_OK;
}

/* fit's parameters. */
static const fb_param_def fit_params[] = {
	{ "graph", FB_PARAM_CHOICE, "run", 0, 0, fit_graphs,
	  "run: the graph of a run (run=) over its data and split; truth: the true DAG over the "
	  "current data and split" },
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "the run (1 is the first; 0: the newest)" },
	{ "method", FB_PARAM_CHOICE, "mle", 0, 0, fit_methods,
	  "discrete tables: mle n_ijk / n_ij, or bayes (n_ijk + iss/(q r)) / (n_ij + iss/q)" },
	{ "iss", FB_PARAM_DOUBLE, "1", 1e-9, 1e9, NULL,
	  "method=bayes: the imaginary sample size of the uniform Dirichlet prior" },
	{ "show", FB_PARAM_BOOL, "no", 0, 0, NULL, "print every table or regression" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_fit = {
	.name = "fit", .alias = NULL, .usage = "",
	.summary = "fit the parameters of a run's DAG (or the truth's) from summed statistics",
	.help = "Estimate the parameters of the newest run's graph over the run's data and "
	        "split (run=N another run's; graph=truth the true DAG over the current data "
	        "and split) from the training rows, as "
	        "bnlearn's bn.fit: discrete data get a conditional probability table per "
	        "variable (method=mle: n_ijk / n_ij, a parent configuration without a row "
	        "given the uniform row; method=bayes: (n_ijk + iss/(q_i r_i)) / (n_ij + "
	        "iss/q_i)), continuous data a least-squares regression on the parents "
	        "(intercept, coefficients, residual sd with n - p - 1). A CPDAG is first "
	        "extended to a DAG, and fit says so. Over a split the clients send only "
	        "sufficient statistics (counts, or sums and cross-products), which the "
	        "federation adds up and the ledger counts; a horizontal split gives the pooled "
	        "tables and regressions bit for bit (sums and cross-products are summed "
	        "exactly, in fixed point, |x| < 2^149), and a vertical split is refused where a variable and its "
	        "parents are not all at one client. fit prints the log-likelihood of each part "
	        "of the data; the fitted network is what export FILE.bif or FILE.xmlbif writes "
	        "and sample from=fit draws from.",
	.min_args = 0, .max_args = 0, .params = fit_params, .exec = exec_fit,
};
