/* Commands on a run's circuit: query (probabilities, MPE), classify, circuit save and load,
 * and the circuit pictures of export. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/export.h"
#include "cmd.h"
#include "files.h"
#include "session.h"

/* The circuit of run and the dataset naming its variables; NULL after printing the fault
 * (a graph run, a circuit not learned yet). */
static const fb_circuit *run_circuit(fb_cmd_ctx *ctx, fb_run *run, const fb_dataset **ds)
{
	fb_error err = { { 0 } };
	const fb_circuit *c;

	if (!fb_run_is_circuit(run)) {
		fb_cmd_error(ctx, "run '%s' learns a graph, not a circuit (algo circuit learns "
		                  "one)", run->name);
		return NULL;
	}
	if ((c = fb_run_circuit(run, &err)) == NULL)
		fb_cmd_error(ctx, "%s", err.msg);
	*ds = run->whole;
	return c;
}

/* The circuit of run n (0: the newest) and the dataset naming its variables; NULL after
 * printing the fault (no run, a graph run, a circuit not learned yet). */
static const fb_circuit *pick_circuit(fb_cmd_ctx *ctx, int64_t n, const fb_dataset **ds)
{
	fb_run *run = fb_cmd_pick_run(ctx, n);

	return run != NULL ? run_circuit(ctx, run, ds) : NULL;
}

/* Set x[var] from "NAME=VALUE" (a level label, or a number for a continuous variable);
 * FB_CMD_ERROR after printing the fault. */
static int parse_assign(fb_cmd_ctx *ctx, const fb_dataset *ds, const char *item, double *x)
{
	const char *eq = strchr(item, '=');
	char *name = fb_xasprintf("%.*s", eq != NULL ? (int)(eq - item) : (int)strlen(item), item);
	int j = fb_dataset_find(ds, name), ret = FB_CMD_OK;
	double v;

	if (eq == NULL || eq == item)
		ret = fb_cmd_error(ctx, "'%s' is not NAME=VALUE", item);
	else if (j < 0)
		ret = fb_cmd_error(ctx, "unknown variable '%s'", fb_cmd_name(name));
	else if (!isnan(x[j]))
		ret = fb_cmd_error(ctx, "variable '%s' is given twice", fb_cmd_name(name));
	else if (ds->vars[j].kind == FB_DISCRETE) {
		size_t l;

		for (l = 0; l < ds->vars[j].nlevels && strcmp(ds->vars[j].levels[l], eq + 1); l++)
			;
		if (l == ds->vars[j].nlevels)
			ret = fb_cmd_error(ctx, "'%s' is no value of '%s'", fb_cmd_name(eq + 1),
			                   fb_cmd_name(name));
		x[j] = (double)l;
	} else if (fb_parse_double(eq + 1, &v) != FB_OK || !isfinite(v)) {
		ret = fb_cmd_error(ctx, "'%s' is continuous and '%s' is no number",
		                   fb_cmd_name(name), fb_cmd_name(eq + 1));
	} else {
		x[j] = v;
	}
	free(name);
	return ret;
}

/* Parse a list "A=1, B=0 C=2" (commas or blanks between items) into x; FB_CMD_ERROR after
 * printing the fault. */
static int parse_list(fb_cmd_ctx *ctx, const fb_dataset *ds, char *list, double *x)
{
	for (char *tok = strtok(list, ", \t"); tok != NULL; tok = strtok(NULL, ", \t"))
		if (parse_assign(ctx, ds, tok, x) != FB_CMD_OK)
			return FB_CMD_ERROR;
	return FB_CMD_OK;
}

/* A row of d NANs (caller frees). */
static double *row_nan(size_t d)
{
	double *x = fb_xcalloc(d > 0 ? d : 1, sizeof *x);

	for (size_t j = 0; j < d; j++)
		x[j] = NAN;
	return x;
}

/* Print the value of variable j in x as its label or number. */
static void print_value(FILE *out, const fb_dataset *ds, size_t j, double v)
{
	if (ds->vars[j].kind == FB_DISCRETE && v >= 0 && (size_t)v < ds->vars[j].nlevels)
		fprintf(out, "%s", fb_cmd_name(ds->vars[j].levels[(size_t)v]));
	else
		fprintf(out, "%.6g", v);
}

/* query p(Q | E): the conditional (or joint) probability, density for continuous Q. */
static int query_prob(fb_cmd_ctx *ctx, const fb_circuit *c, const fb_dataset *ds, char *expr)
{
	size_t d = ds->d, len = strlen(expr);
	double *x = row_nan(d), *q = row_nan(d), lp;
	unsigned char *mask = fb_xcalloc(d > 0 ? d : 1, 1);
	char *bar = strchr(expr, '|');
	fb_error err = { { 0 } };
	bool dens = false, any = false;
	int ret = FB_CMD_ERROR;

	expr[len - 1] = '\0'; /* the closing parenthesis */
	if (bar != NULL)
		*bar = '\0';
	if (parse_list(ctx, ds, expr + 2, q) != FB_CMD_OK ||
	    (bar != NULL && parse_list(ctx, ds, bar + 1, x) != FB_CMD_OK))
		goto out;
	for (size_t j = 0; j < d; j++) {
		if (isnan(q[j]))
			continue;
		if (!isnan(x[j])) {
			fb_cmd_error(ctx, "'%s' is both asked and given", ds->vars[j].name);
			goto out;
		}
		x[j] = q[j], mask[j] = 1, any = true;
		dens |= ds->vars[j].kind == FB_CONTINUOUS;
	}
	if (!any) {
		fb_cmd_error(ctx, "p(...) names no variable to ask about");
		goto out;
	}
	if (fb_circuit_log_conditional(c, x, 1, mask, &lp, &err) != FB_OK) {
		fb_cmd_error(ctx, "%s", err.msg);
		goto out;
	}
	fprintf(ctx->out, "%s = %.6g  (log %.6f)\n", dens ? "density" : "probability", exp(lp), lp);
	ret = FB_CMD_OK;
out:
	free(x);
	free(q);
	free(mask);
	return ret;
}

/* query mpe E: the most probable completion of the unobserved variables. */
static int query_mpe(fb_cmd_ctx *ctx, const fb_circuit *c, const fb_dataset *ds, char *ev)
{
	double *x = row_nan(ds->d), lv;
	fb_error err = { { 0 } };
	int ret = FB_CMD_ERROR;

	if (parse_list(ctx, ds, ev, x) != FB_CMD_OK)
		goto out;
	if (fb_circuit_mpe(c, x, 1, &lv, &err) != FB_OK) {
		fb_cmd_error(ctx, "%s", err.msg);
		goto out;
	}
	fprintf(ctx->out, "most probable completion (max-product log value %.6f):\n", lv);
	for (size_t j = 0; j < ds->d; j++) {
		fprintf(ctx->out, "  %s = ", fb_cmd_name(ds->vars[j].name));
		print_value(ctx->out, ds, j, x[j]);
		fputc('\n', ctx->out);
	}
	ret = FB_CMD_OK;
out:
	free(x);
	return ret;
}

/* The words after the command, without a run=N word (whose number goes to *run), joined by
 * blanks (caller frees); NULL after printing a bad run=. */
static char *query_text(fb_cmd_ctx *ctx, const fb_cmd_args *a, int64_t *run)
{
	fb_buf b = { 0 };

	*run = 0;
	for (int i = 0; i < a->argc; i++) {
		if (strncmp(a->argv[i], "run=", 4) == 0) {
			if (fb_parse_int64(a->argv[i] + 4, run) != FB_OK || *run < 0) {
				fb_buf_release(&b);
				fb_cmd_error(ctx, "'run=' takes a run number, not '%s'",
				             a->argv[i] + 4);
				return NULL;
			}
			continue;
		}
		fb_buf_printf(&b, "%s%s", b.len ? " " : "", a->argv[i]);
	}
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* query p(A=1, B=0 | C=1) | mpe C=1 [run=N]: ask the circuit of a run. */
static int exec_query(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_dataset *ds = NULL;
	const fb_circuit *c;
	int64_t run;
	char *text = query_text(ctx, a, &run);
	size_t len = text != NULL ? strlen(text) : 0;
	int ret = FB_CMD_ERROR;

	if (text == NULL)
		return FB_CMD_ERROR;
	if ((c = pick_circuit(ctx, run, &ds)) == NULL)
		goto out;
	if (strncmp(text, "mpe", 3) == 0 && (text[3] == '\0' || text[3] == ' '))
		ret = query_mpe(ctx, c, ds, text + 3);
	else if (len >= 3 && strncmp(text, "p(", 2) == 0 && text[len - 1] == ')')
		ret = query_prob(ctx, c, ds, text);
	else
		ret = fb_cmd_error(ctx, "'%s' is neither p(A=a, ... | B=b, ...) nor mpe "
		                        "[B=b ...]", fb_cmd_name(text));
out:
	free(text);
	return ret;
}

const fb_cmd_entry fb_cmd_query = {
	.name = "query", .usage = "p(A=a, ... [| B=b, ...]) | mpe [B=b ...] [run=N]",
	.summary = "ask a run's circuit: a probability, or the most probable completion",
	.help = "Ask the circuit of the newest run (or run N): p(A=1, B=0 | C=1) is the "
	        "probability of A=1 and B=0 given C=1 (a density when a continuous variable is "
	        "asked about), computed exactly as p(A, B, C) / p(C) in log space, the "
	        "variables not named summed out; without '|' it is the marginal probability. "
	        "mpe C=1 fills every other variable with its most probable value by the "
	        "max-product pass (the usual approximation of the most probable explanation in "
	        "a circuit with sums). Values are a discrete variable's labels or a continuous "
	        "one's numbers. Leaves are normalised densities: histograms integrate to 1 over "
	        "their bins (SPFlow's continuous histograms do not), Gaussians have a variance "
	        "floor of 1e-3, categorical leaves are Laplace-smoothed.",
	.min_args = 1, .max_args = -1, .complete = FB_COMPLETE_QUERY, .exec = exec_query,
};

/* Print the confusion matrix (rows: true labels, columns: predicted) of variable j. */
static void print_confusion(FILE *out, const fb_dataset *ds, size_t j, const size_t *cm)
{
	size_t L = ds->vars[j].nlevels;

	fprintf(out, "confusion matrix (rows: true %s, columns: predicted):\n",
	        fb_cmd_name(ds->vars[j].name));
	fprintf(out, "  %12s", "");
	for (size_t b = 0; b < L; b++)
		fprintf(out, " %10.10s", fb_cmd_name(ds->vars[j].levels[b]));
	fputc('\n', out);
	for (size_t a = 0; a < L; a++) {
		fprintf(out, "  %12.12s", fb_cmd_name(ds->vars[j].levels[a]));
		for (size_t b = 0; b < L; b++)
			fprintf(out, " %10zu", cm[a * L + b]);
		fputc('\n', out);
	}
}

/* Print accuracy acc and F1 f1: of class positive (named: by positive=; else the rarer of
 * two classes in the training rows), or the mean over more than two classes (SIZE_MAX). */
static void print_scores(FILE *out, const fb_dataset *ds, size_t j, const size_t *cm, size_t n,
                         size_t positive, bool named)
{
	size_t L = ds->vars[j].nlevels;
	double acc, f1;

	fb_confusion_scores(cm, L, n, positive, &acc, &f1);
	fprintf(out, "accuracy %.4f (%zu of %zu)", acc, fb_confusion_right(cm, L), n);
	if (positive >= L)
		fprintf(out, ", F1 %.4f (the mean over the %zu classes)\n", f1, L);
	else
		fprintf(out, ", F1 %.4f (positive class '%s', %s)\n", f1,
		        fb_cmd_name(ds->vars[j].levels[positive]),
		        named ? "as positive= says" : "the rarer in the training rows; positive= "
		                                      "names another");
}

/* Keep on run's line of compare's table that classify predicted variable j of ds with
 * accuracy acc. */
static void note_classified(fb_cmd_ctx *ctx, const fb_run *run, const fb_dataset *ds,
                            size_t j, double acc)
{
	size_t no = fb_cmd_run_number(ctx->s, run);
	fb_session_run *m = no > 0 ? &ctx->s->meta[no - 1] : NULL;

	if (m == NULL)
		return;
	free(m->classified);
	m->classified = fb_xstrdup(ds->vars[j].name);
	m->accuracy = acc;
}

/* The positive class of F1 for variable j into *positive: positive='s level, else for two
 * classes the rarer in the training rows, else SIZE_MAX (the mean over classes); FB_CMD_ERROR
 * after printing a label that is no level of j. */
static int pick_positive(fb_cmd_ctx *ctx, const fb_params *p, const fb_dataset *ds, size_t j,
                         size_t *positive)
{
	const char *want = fb_params_str(p, "positive");
	const fb_var *v = &ds->vars[j];

	*positive = fb_class_positive(ds, j);
	if (want == NULL)
		return FB_CMD_OK;
	for (size_t l = 0; l < v->nlevels; l++)
		if (strcmp(v->levels[l], want) == 0) {
			*positive = l;
			return FB_CMD_OK;
		}
	return fb_cmd_error(ctx, "positive: '%s' is no value of '%s'", fb_cmd_name(want),
	                    fb_cmd_name(v->name));
}

/* classify TARGET [positive=LABEL] [run=N]: predict a discrete variable on the test rows
 * and score it. */
static int exec_classify(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_dataset *ds = NULL;
	fb_run *run = fb_cmd_pick_run(ctx, fb_params_int(&a->params, "run"));
	const fb_circuit *c = run != NULL ? run_circuit(ctx, run, &ds) : NULL;
	fb_error err = { { 0 } };
	size_t n, *cm, positive;
	bool all;
	int j;

	if (c == NULL)
		return FB_CMD_ERROR;
	if ((j = fb_dataset_find(ds, a->argv[0])) < 0)
		return fb_cmd_error(ctx, "unknown variable '%s'", fb_cmd_name(a->argv[0]));
	if (ds->vars[j].kind != FB_DISCRETE)
		return fb_cmd_error(ctx, "'%s' is continuous; classify predicts a "
		                         "discrete variable", fb_cmd_name(a->argv[0]));
	if (pick_positive(ctx, &a->params, ds, (size_t)j, &positive) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if ((cm = fb_circuit_confusion(c, ds, (size_t)j, &n, &all, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "classify %s on %s%zu rows:\n", fb_cmd_name(ds->vars[j].name),
	        all ? "all " : "the test part's ", n);
	print_scores(ctx->out, ds, (size_t)j, cm, n, positive,
	             fb_params_str(&a->params, "positive") != NULL);
	print_confusion(ctx->out, ds, (size_t)j, cm);
	note_classified(ctx, run, ds, (size_t)j,
	                n > 0 ? (double)fb_confusion_right(cm, ds->vars[j].nlevels) / (double)n : NAN);
	free(cm);
	return FB_CMD_OK;
}

/* classify's parameters. */
static const fb_param_def classify_params[] = {
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "which run (1 is the first; 0: the newest)" },
	{ "positive", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the class whose F1 is reported (default: of two classes the rarer in the training "
	  "rows; of more, the mean over the classes)" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_classify = {
	.name = "classify", .usage = "TARGET",
	.summary = "predict a discrete variable with a run's circuit; accuracy, F1, confusion",
	.help = "Predict the discrete variable TARGET of every test row (every row when the "
	        "dataset holds none out) from the row's other values with the circuit of the "
	        "newest run (or run N): the value y that maximises p(y, x), which is the argmax "
	        "of the conditional p(y | x). Prints the accuracy, F1 and the confusion matrix. "
	        "F1 is that of the positive class, which the output names: positive=LABEL, or "
	        "by default, of two classes, the rarer in the training rows (the disease rather "
	        "than its absence; the later label on a tie); of more classes without "
	        "positive=, the mean of every class's F1. compare shows the accuracy of the "
	        "run's newest classify.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_VARIABLE, .params = classify_params,
	.exec = exec_classify,
};

/* circuit's first word. */
enum circuit_verb { CIRCUIT_SAVE, CIRCUIT_LOAD };
/* Its names. */
static const fb_choice circuit_verbs[] = {
	{ "save", CIRCUIT_SAVE }, { "load", CIRCUIT_LOAD }, { 0 },
};

/* circuit save FILE [run=N]: write a run's circuit in the text format. */
static int circuit_save(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_dataset *ds = NULL;
	const fb_circuit *c = pick_circuit(ctx, fb_params_int(&a->params, "run"), &ds);
	fb_error err = { { 0 } };

	if (c == NULL || fb_files_check(ctx, a->argv[1], &a->params) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_circuit_save(c, a->argv[1], &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, a->argv[1]);
	fprintf(ctx->out, "wrote '%s' (%zu nodes over %zu variables)\n", a->argv[1], c->nnodes,
	        c->nvars);
	return FB_CMD_OK;
}

/* circuit load FILE: read a circuit over the dataset's variables as a new run, evaluated
 * on every part of the dataset. */
static int circuit_load(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_error err = { { 0 } };
	fb_circuit *c;
	fb_run *run;

	if (ctx->s->data == NULL)
		return fb_cmd_error(ctx, "no dataset: a circuit is read over the "
		                         "dataset's variables, load one first");
	if (fb_circuit_load(a->argv[1], &c, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	if ((run = fb_circuit_run_from(c, ctx->s->data, &err)) == NULL)
		return fb_cmd_error(ctx, "'%s': %s", a->argv[1], err.msg);
	if (fb_run_step(run, &err) != FB_OK) {
		fb_run_free(run);
		return fb_cmd_error(ctx, "'%s': %s", a->argv[1], err.msg);
	}
	fb_files_note_read(ctx, a->argv[1], "a circuit was read from it");
	fb_session_add_run(ctx->s, run);
	ctx->s->stale = true;
	fprintf(ctx->out, "run %zu: the circuit of '%s' (%zu nodes), evaluated on the dataset; "
	        "result shows it\n", ctx->s->nruns, a->argv[1], fb_run_circuit(run, &err)->nnodes);
	return FB_CMD_OK;
}

/* circuit save|load FILE: a circuit to or from a file. */
static int exec_circuit(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	return fb_cmd_word_value(&fb_cmd_circuit, a->argv[0]) == CIRCUIT_SAVE ? circuit_save(ctx, a)
	                                                                      : circuit_load(ctx, a);
}

/* circuit's parameters. */
static const fb_param_def circuit_params[] = {
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL,
	  "save: the circuit of this run (1 is the first; 0: the newest)" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_circuit = {
	.name = "circuit", .usage = "save|load FILE",
	.summary = "write a run's circuit to a file, or read one as a new run",
	.help = "circuit save FILE writes the circuit of the newest run (or run N) in fedbn's "
	        "text format: a first line 'fedbn-circuit 1', 'variables D', then one node a "
	        "line, children before parents and the root last: 'ID leaf gaussian MACHINE VAR "
	        "MEAN SD', 'ID leaf categorical MACHINE VAR V P_0 .. P_V-1', 'ID leaf histogram "
	        "MACHINE VAR discrete|continuous B EDGE_0 .. EDGE_B DENSITY_0 .. DENSITY_B-1', "
	        "'ID product MACHINE K CHILD ..', 'ID sum MACHINE K CHILD WEIGHT ..' (MACHINE -1 "
	        "is the server, k >= 0 client k; numbers with 17 digits, so a round trip is "
	        "exact). circuit load FILE reads such a file over the current dataset's "
	        "variables, checks it is a valid circuit (smooth, decomposable, normalised, "
	        "its root over every variable, so a file cut short is refused), and makes it a "
	        "new run, evaluated on the dataset's parts, which query, classify, sample and "
	        "export can use.",
	.min_args = 2, .max_args = 2, .words = circuit_verbs, .complete = FB_COMPLETE_FILE,
	.params = circuit_params, .exec = exec_circuit,
};

/* export FILE what=circuit [run=N] [depth=D] [title=] [caption=] [paths=] [width=] [dpi=]:
 * draw a run's circuit, titled with the run and its size, the caption a graph's picture of
 * the run would have. */
int fb_cmd_export_circuit(fb_cmd_ctx *ctx, const fb_params *p, const char *path)
{
	const fb_dataset *ds = NULL;
	fb_run *run = fb_cmd_pick_run(ctx, fb_params_int(p, "run"));
	const fb_circuit *c = run != NULL ? run_circuit(ctx, run, &ds) : NULL;
	fb_export_opts o = { 0 };
	fb_error err = { { 0 } };
	char *title, *caption;
	double natural = 0.0;
	int rc;

	if (c == NULL || fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	title = fb_xasprintf("run %zu: %s, a circuit of %zu nodes", fb_cmd_run_number(ctx->s, run),
	                     run->name, c->nnodes);
	caption = fb_cmd_run_caption(ctx->s, run, fb_params_choice(p, "paths"));
	o.title = fb_params_given(p, "title") ? fb_params_str(p, "title") : title;
	o.caption = fb_params_bool(p, "caption") ? caption : NULL;
	o.width = fb_params_double(p, "width");
	o.dpi = fb_params_double(p, "dpi");
	rc = fb_export_circuit(c, ds, (size_t)fb_params_int(p, "depth"), &o, path, &natural, &err);
	free(title);
	free(caption);
	if (rc != FB_OK)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (a circuit of %zu nodes", path, c->nnodes);
	if (o.width <= 0.0 && natural > FB_EXPORT_CIRCUIT_WIDTH)
		fprintf(ctx->out, ", %.0f inches wide, scaled down to %g: depth= folds it to fewer "
		        "nodes", natural, FB_EXPORT_CIRCUIT_WIDTH);
	fprintf(ctx->out, ")\n");
	return FB_CMD_OK;
}
