/* sweep: one script run over every cell of a grid of variables, each cell in a fresh session,
 * one CSV row per cell, and a summary (mean ± standard error over the repeated variable). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/experiment.h"
#include "fedbn/table.h"
#include "cmd.h"
#include "files.h"
#include "interrupt.h"
#include "pane.h"
#include "session.h"
#include "sweep.h"

/* The state of one sweep. */
typedef struct sweep {
	fb_cmd_ctx *ctx;         /* where it runs */
	const fb_params *p;      /* its parameters */
	fb_grid grid;            /* the variables */
	char *script;            /* the commands (owned) */
	const char *source;      /* their name in messages */
	const char *out;         /* the CSV file, or NULL */
	fb_sweep_rows rows;      /* per cell its row: run this time or resumed */
	size_t ran, failed;      /* cells ended this time, and failed among them */
	size_t todo;             /* cells to run this time */
	size_t first_failed;     /* the first failed cell, SIZE_MAX when none */
	double own;              /* the wall seconds the cells ran measured inside them */
	double t0;               /* when the cells started */
	double last_write;       /* when the file was last written */
	double last_progress;    /* when progress was last shown */
	bool bar;                /* progress is a bar redrawn on the terminal */
	bool written;            /* the file was written at least once */
} sweep;

/* Write t to path as CSV or Markdown (by its extension); FB_ERR with the reason. */
static int sweep_write_table(const fb_table *t, const char *path, bool markdown,
                             fb_error *err)
{
	const char *right[FB_SWEEP_NFIGS + 2] = { "count" };
	fb_atomic_file af;

	memcpy(right + 1, fb_sweep_figures, FB_SWEEP_NFIGS * sizeof *right);
	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	if (markdown)
		fb_table_write_markdown(t, af.fp, right);
	else
		fb_table_write_csv(t, af.fp);
	return fb_atomic_commit(&af, err);
}

/* Write the rows so far to the CSV file; FB_CMD_ERROR after saying why. */
static int sweep_save(sweep *sw)
{
	fb_error err = { { 0 } };
	fb_table t;
	int ret;

	if (sw->out == NULL)
		return FB_CMD_OK;
	fb_sweep_rows_table(&sw->rows, &t);
	ret = sweep_write_table(&t, sw->out, false, &err);
	fb_table_release(&t);
	if (ret != FB_OK)
		return fb_cmd_error(sw->ctx, "%s", err.msg);
	fb_files_note_written(sw->ctx, sw->out);
	sw->written = true;
	sw->last_write = fb_clock_now();
	return FB_CMD_OK;
}

/* "1:05" or "2:03:10" for a duration in seconds. */
static const char *sweep_duration(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
	return buf;
}

/* Show how far the sweep is: a bar on a terminal, a line on standard error otherwise. */
static void sweep_progress(sweep *sw, bool force)
{
	double now = fb_clock_now(), every = fb_params_double(sw->p, "progress");
	double left = sw->ran > 0 ? (now - sw->t0) / (double)sw->ran * (double)(sw->todo - sw->ran)
	                          : 0;
	char eta[32];
	int fill;

	if (!force && !sw->bar && now - sw->last_progress < every)
		return;
	sw->last_progress = now;
	if (sw->ran > 0)
		sweep_duration(left, eta, sizeof eta);
	else
		snprintf(eta, sizeof eta, "--:--");
	if (sw->bar) {
		fill = sw->todo > 0 ? (int)(30 * sw->ran / sw->todo) : 30;
		fprintf(sw->ctx->out, "\r[%.*s%*s] %zu/%zu cells, %zu failed, %s left\033[K",
		        fill, "##############################", 30 - fill, "", sw->ran, sw->todo,
		        sw->failed, eta);
		fflush(sw->ctx->out);
		return;
	}
	fprintf(sw->ctx->err, "sweep: %zu of %zu cells done, %zu failed, about %s left\n",
	        sw->ran, sw->todo, sw->failed, eta);
	fflush(sw->ctx->err);
}

/* Clear the progress bar's line. */
static void sweep_bar_clear(const sweep *sw)
{
	if (sw->bar) {
		fputs("\r\033[K", sw->ctx->out);
		fflush(sw->ctx->out);
	}
}

/* A cell ended: keep its record, say so when it failed, save now and then. */
static void sweep_cell_done(void *ctx, size_t cell, const fb_sweep_record *rec)
{
	sweep *sw = ctx;
	double wall;
	char label[256];

	fb_sweep_rows_set(&sw->rows, cell, rec);
	sw->ran++;
	if (!rec->failed && fb_parse_double(rec->fig[FB_SWEEP_NFIGS - 1], &wall) == 0)
		sw->own += wall;
	if (rec->failed) {
		sw->failed++;
		if (sw->first_failed == SIZE_MAX || cell < sw->first_failed)
			sw->first_failed = cell;
		sweep_bar_clear(sw);
		fb_cmd_warn(sw->ctx, "sweep: cell %s failed: %s",
		            fb_grid_label(&sw->grid, cell, label, sizeof label), rec->error);
	}
	if (fb_clock_now() - sw->last_write >= 2.0)
		sweep_save(sw);
	sweep_progress(sw, false);
}

/* resume=yes: take the cells the file already has (failed ones run again); FB_CMD_ERROR
 * after saying why the file cannot be resumed. */
static int sweep_resume(sweep *sw)
{
	fb_error err = { { 0 } };

	if (fb_sweep_rows_resume(&sw->rows, sw->out, &err) != FB_OK)
		return fb_cmd_error(sw->ctx, "resume: %s", err.msg);
	return FB_CMD_OK;
}

/* Read the whole script file into *text; FB_CMD_ERROR after saying why. */
static int sweep_read_script(fb_cmd_ctx *ctx, const char *path, char **text)
{
	FILE *fp = fopen(path, "r");
	fb_buf b = { 0 };
	char chunk[4096], why[128];
	size_t n;

	if (fp == NULL)
		return fb_cmd_error(ctx, "cannot read '%s': %s", path,
		                    fb_strerror(errno, why, sizeof why));
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		fb_buf_append(&b, chunk, n);
	if (ferror(fp)) {
		fclose(fp);
		fb_buf_release(&b);
		return fb_cmd_error(ctx, "cannot read '%s': it is a folder or unreadable",
		                    path);
	}
	fclose(fp);
	fb_files_note_read(ctx, path, "it was run as a sweep's script");
	*text = b.data != NULL ? b.data : fb_xstrdup("");
	return FB_CMD_OK;
}

/* The figures show= names, checked, into idx (room for FB_SWEEP_NFIGS); their count, or
 * 0 after printing the error. */
static size_t sweep_show(fb_cmd_ctx *ctx, const char *list, size_t *idx)
{
	char *copy = fb_xstrdup(list), *w, *save = NULL;
	size_t n = 0;

	for (w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
		int f = fb_sweep_figure(w);

		if (f < 0) {
			fb_cmd_error(ctx, "show: '%s' is not a figure of the rows (shd, shd_dag, "
			             "tpr, fdr, f1, rounds, seconds, bytes, test_ll, accuracy, "
			             "nodes, ...)", w);
			n = 0;
			break;
		}
		if (n < FB_SWEEP_NFIGS)
			idx[n++] = (size_t)f;
	}
	free(copy);
	return n;
}

/* The display width of UTF-8 text (each '±' is one column). */
static size_t sweep_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Whether key k has one value in every group of several (the screen leaves it out). */
static bool sweep_key_constant(const fb_summary *s, size_t k)
{
	for (size_t gr = 1; gr < s->ngroups; gr++)
		if (strcmp(s->keys[gr * s->nkeys + k], s->keys[k]) != 0)
			return false;
	return s->ngroups > 1;
}

/* Print the summary as a text table of the figures show names; keys with one value are left
 * out (the files keep them). */
static void sweep_print_summary(FILE *out, const fb_summary *s, const size_t *show,
                                size_t nshow)
{
	size_t ncols = s->nkeys + 1 + nshow, nrows = s->ngroups + 1;
	char (*cell)[64] = fb_xcalloc(ncols * nrows, sizeof *cell);
	size_t *width = fb_xcalloc(ncols, sizeof *width);

	for (size_t k = 0; k < s->nkeys; k++)
		snprintf(cell[k], sizeof cell[k], "%s", s->key_names[k]);
	snprintf(cell[s->nkeys], sizeof cell[0], "count");
	for (size_t i = 0; i < nshow; i++)
		snprintf(cell[s->nkeys + 1 + i], sizeof cell[0], "%s", fb_sweep_figures[show[i]]);
	for (size_t gr = 0; gr < s->ngroups; gr++) {
		char (*row)[64] = cell + (gr + 1) * ncols;

		for (size_t k = 0; k < s->nkeys; k++)
			snprintf(row[k], sizeof row[k], "%s", s->keys[gr * s->nkeys + k]);
		snprintf(row[s->nkeys], sizeof row[0], "%zu", s->rows[gr]);
		for (size_t i = 0; i < nshow; i++)
			fb_sweep_stat_text(fb_summary_get(s, gr, show[i]), fb_sweep_figures[show[i]],
			                   row[s->nkeys + 1 + i], sizeof row[0]);
	}
	for (size_t i = 0; i < ncols * nrows; i++)
		if (sweep_width(cell[i]) > width[i % ncols])
			width[i % ncols] = sweep_width(cell[i]);
	for (size_t i = 0; i < ncols * nrows; i++) {
		size_t c = i % ncols, pad = width[c] - sweep_width(cell[i]);

		if (c < s->nkeys && sweep_key_constant(s, c))
			continue;
		if (c < s->nkeys)
			fprintf(out, "%s%*s", cell[i], (int)pad, "");
		else
			fprintf(out, "%*s%s", (int)pad, "", cell[i]);
		fputs(c + 1 < ncols ? "  " : "\n", out);
	}
	free(cell);
	free(width);
}

/* out= with ".csv" replaced by suffix (caller frees). */
static char *sweep_beside(const char *out, const char *suffix)
{
	size_t len = strlen(out);

	return fb_xasprintf("%.*s%s", (int)(len - 4), out, suffix);
}

/* Write the summary table s beside out as -summary.csv and -summary.md. */
static int sweep_write_summary(sweep *sw, const fb_summary *s)
{
	char *csv = sweep_beside(sw->out, "-summary.csv"), *md = sweep_beside(sw->out, "-summary.md");
	fb_error err = { { 0 } };
	int ret = FB_CMD_OK;
	fb_table t;

	fb_summary_table(s, &t);
	if (sweep_write_table(&t, csv, false, &err) == FB_OK) {
		fb_table_release(&t);
		fb_sweep_summary_text(s, &t);
	}
	if (err.msg[0] != '\0' || sweep_write_table(&t, md, true, &err) != FB_OK)
		ret = fb_cmd_error(sw->ctx, "%s", err.msg);
	else {
		fb_files_note_written(sw->ctx, csv);
		fb_files_note_written(sw->ctx, md);
		fb_session_add_product(sw->ctx->s, false, md, sw->out);
		fprintf(sw->ctx->out, "wrote '%s' and '%s' (%zu groups)\n", csv, md, s->ngroups);
	}
	fb_table_release(&t);
	free(csv);
	free(md);
	return ret;
}

/* The figures the summary prints: show='s, else a circuit's when the cells learned circuits
 * and no graph was scored, else a graph's. */
static const char *sweep_show_list(const sweep *sw)
{
	const char *show = fb_params_str(sw->p, "show");

	if (show != NULL)
		return show;
	if (fb_sweep_rows_any(&sw->rows, "shd") || !fb_sweep_rows_any(&sw->rows, "train_ll"))
		return "shd,tpr,fdr,f1,rounds";
	return fb_params_str(sw->p, "label") != NULL ? "train_ll,test_ll,accuracy,class_f1,nodes,bytes"
	                                            : "train_ll,test_ll,nodes,params,bytes";
}

/* The summary over the repeated variable (over=): printed, and written beside out. */
static int sweep_summary(sweep *sw)
{
	const char *over = fb_params_str(sw->p, "over");
	int ov = fb_grid_find(&sw->grid, over);
	const char **keys = fb_xcalloc(sw->grid.nvars + 1, sizeof *keys);
	size_t nk = 0, show[FB_SWEEP_NFIGS], nshow;
	fb_error err = { { 0 } };
	fb_summary s;
	fb_table t;
	int ret = FB_CMD_OK;

	nshow = sweep_show(sw->ctx, sweep_show_list(sw), show);
	if (ov < 0)
		fprintf(sw->ctx->out, "no summary: the grid has no variable '%s' to average over "
		                      "(over=NAME names the repeated one)\n", over);
	for (size_t v = 0; v < sw->grid.nvars; v++)
		if ((int)v != ov)
			keys[nk++] = sw->grid.vars[v].name;
	fb_sweep_rows_table(&sw->rows, &t);
	if (ov >= 0 && nshow > 0 && fb_summary_compute(&s, &t, keys, nk, fb_sweep_figures,
	                                               FB_SWEEP_NFIGS, &err) == FB_OK) {
		fprintf(sw->ctx->out, "mean ± standard error over %s:\n", over);
		sweep_print_summary(sw->ctx->out, &s, show, nshow);
		if (sw->out != NULL)
			ret = sweep_write_summary(sw, &s);
		fb_summary_release(&s);
	} else if (ov >= 0) {
		ret = nshow > 0 ? fb_cmd_error(sw->ctx, "%s", err.msg) : FB_CMD_ERROR;
	}
	fb_table_release(&t);
	free(keys);
	return ret;
}

/* Build the grid from the NAME=VALUES words. */
static int sweep_grid(sweep *sw, const fb_cmd_args *a)
{
	fb_error err = { { 0 } };

	if (fb_sweep_grid(&sw->grid, a->argv, (size_t)a->argc, &err) != FB_OK)
		return fb_cmd_error(sw->ctx, "%s", err.msg);
	return FB_CMD_OK;
}

/* The script from file= or do=, its ${NAME}s checked against the grid. */
static int sweep_script(sweep *sw)
{
	const char *file = fb_params_str(sw->p, "file"), *cmds = fb_params_str(sw->p, "do");
	bool *used;
	fb_error err = { { 0 } };
	int ret = FB_CMD_OK;

	if ((file == NULL) == (cmds == NULL))
		return fb_cmd_error(sw->ctx, "give the commands either in a script, "
		                             "file=SCRIPT, or inline, do=\"CMD; CMD\"");
	if (file != NULL && sweep_read_script(sw->ctx, file, &sw->script) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (cmds != NULL)
		sw->script = fb_xstrdup(cmds);
	sw->source = file != NULL ? file : "do";
	used = fb_xcalloc(sw->grid.nvars, sizeof *used);
	if (fb_grid_check(&sw->grid, sw->script, sw->source, used, &err) != FB_OK)
		ret = fb_cmd_error(sw->ctx, "%s", err.msg);
	for (size_t v = 0; ret == FB_CMD_OK && v < sw->grid.nvars; v++)
		if (!used[v] && sw->grid.vars[v].n > 1)
			fb_cmd_warn(sw->ctx, "sweep: the commands never use ${%s}: cells that differ only "
			            "in it repeat each other", sw->grid.vars[v].name);
	free(used);
	return ret;
}

/* Check out=, resume= and the files to be written before anything runs. */
static int sweep_target(sweep *sw)
{
	bool resume = fb_params_bool(sw->p, "resume");
	size_t len = sw->out != NULL ? strlen(sw->out) : 0;
	char *csv, *md;
	int ret = FB_CMD_OK;

	if (sw->out == NULL)
		return resume ? fb_cmd_error(sw->ctx, "resume=yes needs the file to go on "
		                                      "with: out=FILE.csv") : FB_CMD_OK;
	if (len < 5 || strcmp(sw->out + len - 4, ".csv") != 0)
		return fb_cmd_error(sw->ctx, "out= must name a .csv file, not '%s'", sw->out);
	if (resume)
		return sweep_resume(sw);
	csv = sweep_beside(sw->out, "-summary.csv");
	md = sweep_beside(sw->out, "-summary.md");
	if (fb_files_check(sw->ctx, sw->out, sw->p) != FB_CMD_OK ||
	    fb_files_check(sw->ctx, csv, sw->p) != FB_CMD_OK ||
	    fb_files_check(sw->ctx, md, sw->p) != FB_CMD_OK)
		ret = FB_CMD_ERROR;
	free(csv);
	free(md);
	return ret;
}

/* Say how many cells ran, how long they took, and what was written. */
static void sweep_report(sweep *sw, double wall, size_t jobs)
{
	fb_cmd_ctx *ctx = sw->ctx;

	fprintf(ctx->out, "sweep: %zu of %zu cells ran in %.3f s on %zu process%s (their own "
	                  "time %.3f s)", sw->ran, sw->todo, wall, jobs, jobs == 1 ? "" : "es",
	        sw->own);
	if (sw->failed > 0)
		fprintf(ctx->out, ", %zu failed", sw->failed);
	if (sw->rows.resumed > 0)
		fprintf(ctx->out, "; %zu cells were already in '%s'", sw->rows.resumed, sw->out);
	fputc('\n', ctx->out);
	if (sw->written)
		fprintf(ctx->out, "wrote '%s' (%zu rows)\n", sw->out,
		        sw->rows.resumed + sw->ran + sw->rows.foreign.nrows);
}

/* How the sweep ends: FB_CMD_ERROR when Ctrl-C (or SIGTERM) cut it short in batch mode or
 * every cell failed. */
static int sweep_status(sweep *sw, bool interrupted)
{
	fb_cmd_ctx *ctx = sw->ctx;

	if (interrupted && !ctx->interactive)
		return fb_cmd_error(ctx, "stopped by %s after %zu of %zu cells; "
		                         "resume=yes runs the rest", fb_interrupt_cause(), sw->ran,
		                    sw->todo);
	if (interrupted)
		fprintf(ctx->out, "stopped by %s after %zu of %zu cells; resume=yes runs the "
		                  "rest\n", fb_interrupt_cause(), sw->ran, sw->todo);
	if (sw->ran > 0 && sw->failed == sw->ran && sw->rows.resumed == 0)
		return fb_cmd_error(ctx, "every cell failed");
	return FB_CMD_OK;
}

/* Check everything, then run the pending cells. */
static int sweep_go(sweep *sw)
{
	size_t show[FB_SWEEP_NFIGS], *cells, jobs = (size_t)fb_params_int(sw->p, "jobs");
	fb_sweep_job job = { .grid = &sw->grid, .done = sweep_cell_done, .ctx = sw };
	bool interrupted = false;
	double wall;
	int ret;

	if ((fb_params_given(sw->p, "show") &&
	     sweep_show(sw->ctx, fb_params_str(sw->p, "show"), show) == 0) ||
	    sweep_script(sw) != FB_CMD_OK)
		return FB_CMD_ERROR;
	fb_sweep_rows_init(&sw->rows, &sw->grid);
	if (sweep_target(sw) != FB_CMD_OK || sweep_save(sw) != FB_CMD_OK) /* a bad out= fails now */
		return FB_CMD_ERROR;
	cells = fb_sweep_rows_pending(&sw->rows, &sw->todo);
	job.script = sw->script;
	job.source = sw->source;
	job.label = fb_params_str(sw->p, "label");
	job.cells = cells;
	job.ncells = sw->todo;
	job.jobs = jobs < sw->todo ? jobs : sw->todo > 0 ? sw->todo : 1;
	job.cell_timeout = fb_params_double(sw->p, "cell_timeout");
	sw->bar = fb_pane_usable(sw->ctx->out);
	sw->t0 = sw->last_progress = sw->last_write = fb_clock_now();
	if (sw->bar)
		sweep_progress(sw, true);
	fb_sweep_run(sw->ctx, &job, &interrupted);
	wall = fb_clock_now() - sw->t0;
	sweep_bar_clear(sw);
	free(cells);
	if (sweep_save(sw) != FB_CMD_OK)
		return FB_CMD_ERROR;
	sweep_report(sw, wall, job.jobs);
	ret = sweep_summary(sw);
	return sweep_status(sw, interrupted) != FB_CMD_OK ? FB_CMD_ERROR : ret;
}

/* sweep NAME=VALUES... file=SCRIPT|do="CMDS" [out=FILE.csv] [jobs=N] [resume=yes] ... */
static int exec_sweep(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	sweep sw = { .ctx = ctx, .p = &a->params, .first_failed = SIZE_MAX };
	int ret;

	if (fb_sweep_in_cell())
		return fb_cmd_error(ctx, "a sweep's cell cannot start another sweep");
	sw.out = fb_params_str(&a->params, "out");
	ret = sweep_grid(&sw, a);
	if (ret == FB_CMD_OK)
		ret = sweep_go(&sw);
	fb_sweep_rows_release(&sw.rows);
	fb_grid_release(&sw.grid);
	free(sw.script);
	return ret;
}

/* sweep's parameters; any other NAME=VALUES word is a grid variable. */
static const fb_param_def sweep_params[] = {
	{ "file", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the script each cell runs, its ${NAME}s replaced by the cell's values" },
	{ "do", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the commands each cell runs, given inline: do=\"gen er seed=${seed}; run\"" },
	{ "out", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "write one row per cell to FILE.csv, and the summary to FILE-summary.csv and .md" },
	{ "jobs", FB_PARAM_INT, "1", 1, 256, NULL,
	  "cells run at once, each in its own process (results do not depend on it)" },
	{ "resume", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "keep the cells out= already holds and run only the others (and the failed ones)" },
	{ "over", FB_PARAM_STRING, "seed", 0, 0, NULL,
	  "the repeated variable the summary averages over" },
	{ "show", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the figures of the printed summary (the files have every figure); default "
	  "shd,tpr,fdr,f1,rounds, or train_ll,test_ll,nodes,params,bytes for circuits" },
	{ "label", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "a discrete variable each cell's circuit predicts on the test rows: accuracy, "
	  "class_f1" },
	{ "progress", FB_PARAM_DOUBLE, "10", 0, 1e9, NULL,
	  "without a terminal, a progress line on standard error every this many seconds" },
	{ "cell_timeout", FB_PARAM_DOUBLE, "0", 0, 1e9, NULL,
	  "seconds a cell may run before it is stopped and recorded as failed (0: no limit)" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_sweep = {
	.name = "sweep",
	.usage = "NAME=VALUES... file=SCRIPT|do=\"CMDS\" [out=FILE.csv] [jobs=N] [resume=yes] "
	         "[over=VAR] [show=FIGS] [label=VAR] [progress=SECS] [cell_timeout=SECS] "
	         "[force=yes]",
	.summary = "run commands over a grid of variables",
	.help = "Run a block of commands once per cell of a grid, e.g. sweep K=2,4,8 seed=1..10 "
	        "algo=notears-admm,avg:notears file=exp.fbn out=k.csv jobs=2, where exp.fbn "
	        "uses ${K}, ${seed} and ${algo}. The grid is every combination of the values "
	        "(lists with commas, whole-number ranges A..B), the first variable varying "
	        "slowest. Each cell runs in a fresh session state (no data, split, algorithm or "
	        "run of this session is seen, the session seed is 1) in its own process, stops "
	        "at its first failing command, and is scored on its newest run as result scores "
	        "it. out= gets one row per cell, in grid order: the variables, shd, shd_dag, "
	        "shd_cpdag, extra, missing, reversed, tpr, fdr, precision, f1, nnz (a graph's "
	        "accuracy against the truth), rounds, seconds (the run's steps), bytes_up, "
	        "bytes_down, bytes, train_ll, test_ll (a circuit's mean log-likelihood of the "
	        "training and test rows), accuracy, class_f1 (of the circuit predicting the "
	        "discrete variable label= names on the test rows, every row when none is held "
	        "out; F1 as classify gives it), nodes, params, circuit_bytes (the circuit's "
	        "size), wall (the whole cell) and error (why a cell failed; its figures are "
	        "then empty). A failed cell is "
	        "reported and the sweep goes on; cell_timeout=SECS stops a cell that runs "
	        "longer (a script reading a pipe that never ends, say), with every process it "
	        "started, and records it as failed (default 0: no limit). jobs=N runs N cells "
	        "at once; the rows do not "
	        "depend on it (but for seconds and wall). A terminal shows a progress bar; "
	        "otherwise a line on standard error every progress= seconds. Ctrl-C stops the "
	        "sweep and keeps every finished cell in out=; resume=yes then runs only the "
	        "cells out= lacks or holds as failed. The summary averages every figure over "
	        "the repeated variable over= (seed) for each combination of the others: mean ± "
	        "standard error (the sample standard deviation over the square root of the "
	        "count; failed cells left out), printed for the figures show= names (by default "
	        "a graph's, or a circuit's when the cells learned circuits) and written "
	        "in full to FILE-summary.csv and FILE-summary.md.",
	.min_args = 0, .max_args = -1, .complete = FB_COMPLETE_NONE, .params = sweep_params,
	.free_params = true, .exec = exec_sweep,
};
