/* compare: one row per run of the session, on screen or into a CSV or Markdown file; runs can
 * be dropped from the table, brought back, and labelled. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "files.h"
#include "history.h"
#include "report.h"
#include "session.h"

/* Parse run number word (1 to nruns) into *n; FB_ERR after printing the error. */
static int compare_run_number(fb_cmd_ctx *ctx, const char *key, const char *word, size_t *n)
{
	int64_t v;

	if (fb_parse_int64(word, &v) != FB_OK || v < 1)
		return fb_cmd_error(ctx, "%s: '%s' is not a run number", key, word);
	if ((size_t)v > ctx->s->nruns)
		return fb_cmd_error(ctx, "%s: there is no run %" PRId64 " (runs 1 to %zu)",
		                    key, v, ctx->s->nruns);
	*n = (size_t)v;
	return FB_OK;
}

/* Mark the runs of list (comma-separated numbers, or "all" when all_ok) in pick (nruns
 * flags); FB_ERR after printing the error, pick then partly filled. */
static int compare_run_list(fb_cmd_ctx *ctx, const char *key, const char *list, bool all_ok,
                            bool *pick)
{
	char *copy, *word, *save = NULL;
	int ret = FB_OK;
	size_t n;

	if (all_ok && strcmp(list, "all") == 0) {
		for (size_t i = 0; i < ctx->s->nruns; i++)
			pick[i] = true;
		return FB_OK;
	}
	if (list[0] == '\0')
		return fb_cmd_error(ctx, "%s: give run numbers such as 2,3", key);
	copy = fb_xstrdup(list);
	for (word = strtok_r(copy, ",", &save); word != NULL && ret == FB_OK;
	     word = strtok_r(NULL, ",", &save)) {
		if ((ret = compare_run_number(ctx, key, word, &n)) == FB_OK)
			pick[n - 1] = true;
	}
	free(copy);
	return ret;
}

/* Split label=N:TEXT into the run number and the text; FB_ERR after printing the error. */
static int compare_label_parse(fb_cmd_ctx *ctx, const char *word, size_t *n, const char **text)
{
	const char *colon = strchr(word, ':');
	char num[32];

	if (colon == NULL || (size_t)(colon - word) >= sizeof num)
		return fb_cmd_error(ctx, "label: write label=N:TEXT (e.g. label=2:\"pooled "
		                         "pc\"), not '%s'", word);
	memcpy(num, word, (size_t)(colon - word));
	num[colon - word] = '\0';
	*text = colon + 1;
	return compare_run_number(ctx, "label", num, n);
}

/* Apply drop=, restore= and label= to the session, all or nothing. */
static int compare_edit(fb_cmd_ctx *ctx, const fb_params *p)
{
	fb_session *s = ctx->s;
	const char *drop = fb_params_str(p, "drop"), *restore = fb_params_str(p, "restore");
	const char *label = fb_params_str(p, "label"), *text = NULL;
	bool *dr = fb_xcalloc(s->nruns, sizeof *dr), *re = fb_xcalloc(s->nruns, sizeof *re);
	size_t ln = 0;
	int ret = FB_OK;

	if ((drop != NULL && compare_run_list(ctx, "drop", drop, false, dr) != FB_OK) ||
	    (restore != NULL && compare_run_list(ctx, "restore", restore, true, re) != FB_OK) ||
	    (label != NULL && compare_label_parse(ctx, label, &ln, &text) != FB_OK))
		ret = FB_ERR;
	for (size_t i = 0; ret == FB_OK && i < s->nruns; i++)
		s->meta[i].dropped = (s->meta[i].dropped && !re[i]) || dr[i];
	if (ret == FB_OK && ln > 0) {
		free(s->meta[ln - 1].label);
		s->meta[ln - 1].label = text[0] != '\0' ? fb_xstrdup(text) : NULL;
	}
	free(dr);
	free(re);
	return ret;
}

/* The runs left in the table, in order, into items (room for nruns); returns how many. */
size_t fb_report_items(const fb_session *s, fb_compare_item *items)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nruns; i++)
		if (!s->meta[i].dropped)
			items[n++] = (fb_compare_item){ s->runs[i], i + 1, s->meta[i].data,
				                        s->meta[i].label, s->meta[i].classified,
				                        s->meta[i].accuracy,
				                        s->runs[i]->whole == s->data ? s->truth_pag
				                                                     : NULL,
				                        NULL, NULL,
				                        s->meta[i].fitted ? s->meta[i].fit_ll : NULL };
	return n;
}

/* The loaded graphs as items, scored against the truth when it is over their variables. */
size_t fb_report_graph_items(const fb_session *s, fb_compare_item *items)
{
	for (size_t i = 0; i < s->ngraphs; i++)
		items[i] = (fb_compare_item){ .no = i + 1, .data = s->graphs[i].data,
			                      .graph = s->graphs[i].g, .truth = s->truth,
			                      .label = s->graphs[i].source };
	return s->ngraphs;
}

/* Write the table to path, its format taken from the extension (force: replace a file the
 * session may not replace otherwise). */
static int compare_write(fb_cmd_ctx *ctx, const char *path, const fb_compare_item *items,
                         size_t n, bool force)
{
	const char *dot = strrchr(path, '.');
	enum fb_table_format fmt;
	fb_error err = { { 0 } };
	fb_atomic_file af;

	if (dot != NULL && strcmp(dot, ".csv") == 0)
		fmt = FB_TABLE_CSV;
	else if (dot != NULL && strcmp(dot, ".md") == 0)
		fmt = FB_TABLE_MARKDOWN;
	else
		return fb_cmd_error(ctx, "cannot tell the format of '%s' (use .csv or .md)",
		                    path);
	if (fb_files_check_target(ctx, path, force) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_atomic_open(&af, path, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_report_compare(af.fp, items, n, fmt);
	if (fb_atomic_commit(&af, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%zu run%s)\n", path, n, n == 1 ? "" : "s");
	return FB_CMD_OK;
}

/* Save a compare that wrote a file as its edits alone (drop=, restore=, label=): a replay
 * must make the same edits and replace no file. */
static void compare_history(fb_cmd_ctx *ctx, const fb_params *p)
{
	static const char *const edits[] = { "drop", "restore", "label", NULL };
	fb_buf b = { 0 };

	fb_history_word(&b, "compare");
	for (size_t i = 0; edits[i] != NULL; i++) {
		if (fb_params_given(p, edits[i])) {
			char *w = fb_xasprintf("%s=%s", edits[i], fb_params_str(p, edits[i]));

			fb_history_word(&b, w);
			free(w);
		}
	}
	if (b.len > strlen("compare"))
		fb_history_as(ctx->s, "%s", b.data);
	fb_buf_release(&b);
}

/* compare [drop=N,...] [restore=N,...|all] [label=N:TEXT] [out=FILE.csv|.md]. */
static int exec_compare(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *path = fb_params_str(&a->params, "out");
	fb_compare_item *items;
	size_t n;
	int ret = FB_CMD_OK;

	if (ctx->s->nruns == 0 && ctx->s->ngraphs == 0)
		return fb_cmd_need(ctx, FB_NEEDS_RUN);
	if (compare_edit(ctx, &a->params) != FB_OK)
		return FB_CMD_ERROR;
	items = fb_xcalloc(ctx->s->nruns + ctx->s->ngraphs, sizeof *items);
	n = fb_report_items(ctx->s, items);
	n += fb_report_graph_items(ctx->s, items + n);
	if (n == 0)
		fprintf(ctx->out, "every run is dropped from the table; compare restore=all brings "
		                  "them back\n");
	else if (path == NULL)
		fb_report_compare(ctx->out, items, n, FB_TABLE_TEXT);
	else
		ret = compare_write(ctx, path, items, n, fb_params_bool(&a->params, "force"));
	if (path != NULL)
		compare_history(ctx, &a->params);
	free(items);
	return ret;
}

/* compare's parameters. */
static const fb_param_def compare_params[] = {
	{ "out", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "write the table to FILE.csv or FILE.md instead of the screen" },
	{ "drop", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "leave runs out of the table from now on: run numbers, e.g. 2,3" },
	{ "restore", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "bring dropped runs back: run numbers, or all" },
	{ "label", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "name a run in the table: N:TEXT, e.g. label=2:\"pooled pc\" (N: removes it)" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_compare = {
	.name = "compare",
	.usage = "[drop=N,...] [restore=N,...|all] [label=N:TEXT] [out=FILE.csv|FILE.md] "
	         "[force=yes]",
	.summary = "compare every run",
	.help = "One row per run of the session: its number and label, algorithm, dataset, "
	        "split, the parameters that differ from the defaults, four structural Hamming "
	        "distances: SHD (a reversed edge counted once), SHD-rev2 (a reversed edge "
	        "counted twice, as a deletion and an insertion), SHD-DAG (the estimate extended "
	        "to a DAG first) and SHD-CPDAG (between the CPDAGs of the estimate and the "
	        "truth, each pair that differs counted once), TPR, FDR, F1, NNZ (when a run "
	        "learned a graph), LL-train, LL-valid, "
	        "LL-test (a circuit's mean log-likelihood per row of each part, or that of the "
	        "network fit made of a run's graph), classified and "
	        "accuracy (the variable the newest classify of the run predicted, and how well), "
	        "nodes (the circuit's size; these when a run learned a circuit), rounds, seconds "
	        "and bytes exchanged (in kB, MB, ...; plain bytes in CSV). A graph's figures follow "
	        "one definition, that of result (see help result), and a run scores against the "
	        "truth as soon as one is loaded. Each graph loaded with graph load is a row of "
	        "its own, g1, g2, ..., its file in the label column, scored the same way. "
	        "drop=2,3 leaves runs 2 and 3 out of this and later tables (they keep their "
	        "numbers; restore=2 or restore=all brings them back); label=2:\"pooled pc\" names "
	        "run 2 in the label column (label=2: removes the name). out= writes the table as "
	        "CSV or Markdown (an existing file only when fedbn wrote it, unchanged since, "
	        "and this session did not read it; or with force=yes). On a screen narrower than "
	        "the table, the figures come first, a column empty in every row left out, and the "
	        "words that name a run (label, algorithm, parameters, dataset, split) follow under "
	        "its figures, wrapped, a name too long for a line shortened to its end (out= "
	        "writes it whole); rounds, seconds and bytes join those words when the figures "
	        "alone fill the line.",
	.min_args = 0, .max_args = 0, .params = compare_params, .exec = exec_compare,
};
