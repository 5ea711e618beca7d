/* Choosing an algorithm and its parameters: algos, algo, set, params. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "cmd.h"
#include "session.h"

/* Print the algorithms whose combinator flag equals comb, their names in a column as wide as
 * the longest. */
static void list_algos(FILE *out, bool comb)
{
	int width = 14;

	for (size_t i = 0; fb_algo_table[i] != NULL; i++)
		if ((int)strlen(fb_algo_table[i]->name) > width)
			width = (int)strlen(fb_algo_table[i]->name);
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];

		if (((a->flags & FB_ALGO_COMBINATOR) != 0) == comb)
			fprintf(out, "  %-*s %s%s\n", width, a->name, a->summary,
			        (a->accepts & FB_ACCEPTS_SPLITS) && !comb ? " [federated]" : "");
	}
}

/* algos: every learner and combinator. */
static int exec_algos(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fprintf(ctx->out, "learners:\n");
	list_algos(ctx->out, false);
	fprintf(ctx->out, "combinators over a learner (write COMBINATOR:LEARNER, e.g. "
	                  "voting:notears):\n");
	list_algos(ctx->out, true);
	return FB_CMD_OK;
}

/* algo [NAME]: show or choose the algorithm. */
static int exec_algo(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_error err = { { 0 } };
	const fb_algo *al, *inner;

	if (a->argc == 0) {
		if (ctx->s->algo == NULL)
			fprintf(ctx->out, "algorithm: none (see algos)\n");
		else
			fprintf(ctx->out, "algorithm: %s\n", ctx->s->algo);
		return FB_CMD_OK;
	}
	if (fb_session_set_algo(ctx->s, a->argv[0], &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_algo_lookup(a->argv[0], &al, &inner, &err);
	fprintf(ctx->out, "algorithm: %s: %s%s%s\n", a->argv[0], al->summary,
	        inner != NULL ? ", over " : "", inner != NULL ? inner->summary : "");
	return FB_CMD_OK;
}

/* Whether every word is threshold=VALUE (the last one's value in *value). */
static bool only_threshold(const fb_cmd_args *a, const char **value)
{
	for (int i = 0; i < a->argc; i++) {
		if (strncmp(a->argv[i], "threshold=", 10) != 0)
			return false;
		*value = a->argv[i] + 10;
	}
	return a->argc > 0;
}

/* After set threshold=V alone, with nothing else changed since the newest run started:
 * threshold that run's kept weights again instead of asking for a new run.  Says so in one
 * line and returns true; false when the run's algorithm cannot. */
static bool rethreshold_last(fb_cmd_ctx *ctx, const fb_cmd_args *a)
{
	fb_session *s = ctx->s;
	fb_run *last = fb_session_last_run(s);
	const fb_trace_rec *rec;
	const char *value = NULL;
	fb_error err = { { 0 } };
	char words[160], text[168] = "";

	if (last == NULL || s->stale || s->algo == NULL || strcmp(last->name, s->algo) != 0 ||
	    !only_threshold(a, &value) || fb_run_set_threshold(last, value, &err) != FB_OK)
		return false;
	rec = fb_run_last(last);
	if (rec != NULL && rec->scored)
		snprintf(text, sizeof text, "; %s", fb_score_text(&rec->score, true, words,
		                                                   sizeof words));
	fprintf(ctx->out, "run %zu: its kept weights thresholded again at |w| > %s, no new run: "
	                  "%zu edges%s\n", s->nruns, value, rec != NULL ? rec->edges : 0, text);
	return true;
}

/* set key=value ...: algorithm parameters and run options, all or nothing. */
static int exec_set(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_session *s = ctx->s;
	fb_error err = { { 0 } };
	fb_params p, r;
	int ret = FB_CMD_OK;

	if (a->argc == 0)
		return fb_cmd_error(ctx, "give key=value words (see params)");
	if (fb_params_check_repeats(a->argc, a->argv, "set", &err) != FB_OK)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	fb_params_copy(&r, &s->runopt);
	if (s->algo != NULL)
		fb_params_copy(&p, &s->params);
	for (int i = 0; i < a->argc && ret == FB_CMD_OK; i++) {
		const char *w = a->argv[i];
		size_t klen = strcspn(w, "=");
		bool is_run = false;

		for (size_t k = 0; k < r.n; k++)
			is_run |= strlen(r.defs[k].name) == klen && strncmp(r.defs[k].name, w, klen) == 0;
		if (is_run || s->algo == NULL) {
			if (fb_params_set_word(&r, w, "set", &err) != FB_OK)
				ret = fb_cmd_error_plain(ctx, "%s%s", err.msg, s->algo == NULL ?
				                         " (choose an algorithm first: algo "
				                         "NAME)" : "");
		} else if (fb_params_set_word(&p, w, s->algo, &err) != FB_OK) {
			ret = fb_cmd_error(ctx, "%s", err.msg);
		}
	}
	if (ret == FB_CMD_OK) {
		fb_params_release(&s->runopt);
		s->runopt = r;
		if (s->algo != NULL) {
			fb_params_release(&s->params);
			s->params = p;
		}
		if (!rethreshold_last(ctx, a))
			s->stale = true;
		return FB_CMD_OK;
	}
	fb_params_release(&r);
	if (s->algo != NULL)
		fb_params_release(&p);
	return ret;
}

/* Print one table of values with defaults and ranges; each meaning is wrapped to the
 * terminal, beside the row when it fits there or 30 columns are left, else on lines of its
 * own. */
static void print_values(FILE *out, const fb_params *p)
{
	size_t width = fb_cmd_width(out);
	char desc[128];
	int namew = 14, valuew = 10;

	for (size_t i = 0; i < p->n; i++) {
		namew = fb_cmd_name_column(strlen(p->defs[i].name), namew);
		if (p->v[i].s != NULL && strlen(p->v[i].s) > (size_t)valuew && strlen(p->v[i].s) <= 20)
			valuew = (int)strlen(p->v[i].s);
	}
	for (size_t i = 0; i < p->n; i++) {
		const fb_param_def *d = &p->defs[i];
		bool alone = strlen(d->name) > (size_t)namew;
		char *row = fb_xasprintf("  %-*s %-*s %-9s %-30s ", namew, alone ? "" : d->name, valuew,
		                         p->v[i].s != NULL ? p->v[i].s : "-",
		                         p->v[i].given ? "(set)" : "",
		                         fb_param_describe(d, desc, sizeof desc));
		size_t col = strlen(row);

		if (alone)
			fprintf(out, "  %s\n", d->name);
		if (col + 30 <= width || col + strlen(d->help) <= width) {
			fputs(row, out);
			fb_cmd_print_wrapped(out, d->help, width, col);
		} else {
			while (col > 0 && row[col - 1] == ' ')
				col--;
			fprintf(out, "%.*s\n      ", (int)col, row);
			fb_cmd_print_wrapped(out, d->help, width, 6);
		}
		free(row);
	}
}

/* params: the current algorithm's parameters and the run options. */
static int exec_params(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	if (ctx->s->algo == NULL) {
		fprintf(ctx->out, "algorithm: none (see algos, then algo NAME)\n");
	} else {
		fprintf(ctx->out, "%s parameters:\n", ctx->s->algo);
		print_values(ctx->out, &ctx->s->params);
	}
	fprintf(ctx->out, "run options:\n");
	print_values(ctx->out, &ctx->s->runopt);
	return FB_CMD_OK;
}

const fb_cmd_entry fb_cmd_algos = {
	.name = "algos", .usage = "", .summary = "list the learners and combinators",
	.help = "List every learner with a one-line summary, and the combinators that turn a "
	        "learner into a baseline (all:, sep:, voting:, avg:, best:). 'help algo NAME' "
	        "explains one.",
	.min_args = 0, .max_args = 0, .exec = exec_algos,
};

const fb_cmd_entry fb_cmd_algo = {
	.name = "algo", .usage = "[NAME | COMBINATOR:LEARNER]",
	.summary = "show or choose the algorithm",
	.help = "Choose the algorithm that run and step use, with its parameters at the "
	        "papers' defaults. Without a name, show the current one.",
	.min_args = 0, .max_args = 1, .complete = FB_COMPLETE_ALGO, .exec = exec_algo,
};

const fb_cmd_entry fb_cmd_set = {
	.name = "set", .usage = "key=value ...", .summary = "set algorithm parameters",
	.help = "Set parameters of the current algorithm, or the run options threads=, "
	        "share= and reuse=, each checked against its type and range; all or nothing. "
	        "reuse=yes lets voting:, avg:, sep: and best: take each client's fit of an "
	        "earlier run over the same split with the same learner and parameters (voting: "
	        "then avg: learns once; the result is the same, bit for bit). The next run "
	        "or step starts a new run with them, except threshold= alone right after a run "
	        "of notears, notears-admm or all:notears: that run's kept weights are "
	        "thresholded again at once (no new run), and result, compare and export show "
	        "the new graph.",
	.min_args = 1, .max_args = -1, .complete = FB_COMPLETE_SETTINGS, .exec = exec_set,
};

const fb_cmd_entry fb_cmd_params = {
	.name = "params", .usage = "", .summary = "show parameters, defaults and ranges",
	.help = "Show the current algorithm's parameters (value, whether set, range, meaning) "
	        "and the run options.",
	.min_args = 0, .max_args = 0, .exec = exec_params,
};
