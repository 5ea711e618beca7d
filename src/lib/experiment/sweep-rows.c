/* A sweep's rows: its grid from NAME=VALUES words, one row of figures per cell (the grid's
 * variables, the figures, the error) as a table, the cells a results file already holds
 * (resume), and the summary's figures as text. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fedbn/core.h"
#include "fedbn/experiment.h"
#include "fedbn/table.h"

/* The figures of a row. */
const char *const fb_sweep_figures[FB_SWEEP_NFIGS + 1] = {
	"shd", "shd_dag", "shd_cpdag", "extra", "missing", "reversed", "tpr", "fdr",
	"precision", "f1", "nnz", "rounds", "seconds", "bytes_up", "bytes_down", "bytes",
	"train_ll", "test_ll", "accuracy", "class_f1", "nodes", "params", "circuit_bytes", "wall",
	NULL,
};

/* The index of the figure called name, or -1. */
int fb_sweep_figure(const char *name)
{
	for (int f = 0; f < FB_SWEEP_NFIGS; f++)
		if (strcmp(fb_sweep_figures[f], name) == 0)
			return f;
	return -1;
}

/* Whether name is a column the results or the summary have besides the variables. */
bool fb_sweep_reserved(const char *name)
{
	return fb_sweep_figure(name) >= 0 || strcmp(name, FB_SWEEP_ERROR_COL) == 0 ||
	       strcmp(name, "count") == 0;
}

/* Build g from the NAME=VALUES words. */
int fb_sweep_grid(fb_grid *g, char *const *words, size_t n, fb_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (fb_grid_add(g, words[i], err) != FB_OK)
			return FB_ERR;
	if (g->nvars == 0)
		return fb_fail(err, "no grid: give NAME=VALUES words such as K=2,4,8 seed=1..10");
	for (size_t v = 0; v < g->nvars; v++)
		if (fb_sweep_reserved(g->vars[v].name))
			return fb_fail(err, "'%s' names a column of the results: call the variable "
			                    "something else", g->vars[v].name);
	return FB_OK;
}

/* The cell's variables as "K=4 seed=2" into buf. */
const char *fb_grid_label(const fb_grid *g, size_t cell, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t v = 0; v < g->nvars && used < len; v++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", v ? " " : "",
		                         g->vars[v].name, fb_grid_value(g, cell, v));
	return buf;
}

/* No rows yet for the cells of g. */
void fb_sweep_rows_init(fb_sweep_rows *r, const fb_grid *g)
{
	memset(r, 0, sizeof *r);
	r->grid = g;
	r->total = fb_grid_cells(g);
	r->recs = fb_xcalloc(r->total + 1, sizeof *r->recs);
	r->have = fb_xcalloc(r->total + 1, sizeof *r->have);
}

/* Free the rows (an all-zero one is fine). */
void fb_sweep_rows_release(fb_sweep_rows *r)
{
	free(r->recs);
	free(r->have);
	fb_table_release(&r->foreign);
	memset(r, 0, sizeof *r);
}

/* Keep rec as cell's row. */
void fb_sweep_rows_set(fb_sweep_rows *r, size_t cell, const fb_sweep_record *rec)
{
	r->recs[cell] = *rec;
	r->have[cell] = true;
}

/* The header of the rows: the variables, the figures, the error (the names are borrowed). */
static char **rows_head(const fb_sweep_rows *r, size_t *ncols)
{
	const fb_grid *g = r->grid;
	char **head;

	*ncols = g->nvars + FB_SWEEP_NFIGS + 1;
	head = fb_xcalloc(*ncols, sizeof *head);
	for (size_t v = 0; v < g->nvars; v++)
		head[v] = g->vars[v].name;
	for (size_t f = 0; f < FB_SWEEP_NFIGS; f++)
		head[g->nvars + f] = (char *)fb_sweep_figures[f];
	head[*ncols - 1] = (char *)FB_SWEEP_ERROR_COL;
	return head;
}

/* Every cell with a row, in grid order, then the foreign rows, as a table. */
void fb_sweep_rows_table(const fb_sweep_rows *r, fb_table *t)
{
	const fb_grid *g = r->grid;
	size_t ncols;
	char **head = rows_head(r, &ncols);
	const char **cells = fb_xcalloc(ncols, sizeof *cells);

	fb_table_init(t, ncols, (const char *const *)head);
	for (size_t c = 0; c < r->total; c++) {
		if (!r->have[c])
			continue;
		for (size_t v = 0; v < g->nvars; v++)
			cells[v] = fb_grid_value(g, c, v);
		for (size_t f = 0; f < FB_SWEEP_NFIGS; f++)
			cells[g->nvars + f] = r->recs[c].fig[f];
		cells[ncols - 1] = r->recs[c].failed ? r->recs[c].error : "";
		fb_table_add_row(t, cells);
	}
	for (size_t i = 0; i < r->foreign.nrows; i++)
		fb_table_add_row(t, (const char *const *)&r->foreign.cell[i * ncols]);
	free(cells);
	free(head);
}

/* The cell whose variables row i of t holds (the variables are t's first columns), or
 * SIZE_MAX when some value is not in the grid. */
static size_t rows_cell_of(const fb_sweep_rows *r, const fb_table *t, size_t i)
{
	size_t cell = 0;

	for (size_t v = 0; v < r->grid->nvars; v++) {
		const fb_grid_var *var = &r->grid->vars[v];
		size_t k = 0;

		while (k < var->n && strcmp(var->values[k], fb_table_get(t, i, v)) != 0)
			k++;
		if (k == var->n)
			return SIZE_MAX;
		cell = cell * var->n + k;
	}
	return cell;
}

/* Whether t's columns are the ones these rows have. */
static bool rows_same_columns(const fb_sweep_rows *r, const fb_table *t)
{
	size_t ncols;
	char **head = rows_head(r, &ncols);
	bool same = t->ncols == ncols;

	for (size_t c = 0; same && c < ncols; c++)
		same = strcmp(t->head[c], head[c]) == 0;
	free(head);
	return same;
}

/* Take row i of t as cell's row. */
static void rows_take(fb_sweep_rows *r, const fb_table *t, size_t i, size_t cell)
{
	fb_sweep_record *rec = &r->recs[cell];

	memset(rec, 0, sizeof *rec);
	for (size_t f = 0; f < FB_SWEEP_NFIGS; f++)
		snprintf(rec->fig[f], sizeof rec->fig[f], "%s",
		         fb_table_get(t, i, r->grid->nvars + f));
	if (!r->have[cell])
		r->resumed++;
	r->have[cell] = true;
}

/* Take the cells the results file path already has (failed ones are left to run again). */
int fb_sweep_rows_resume(fb_sweep_rows *r, const char *path, fb_error *err)
{
	struct stat st;
	fb_table t;

	if (stat(path, &st) != 0 && errno == ENOENT)
		return FB_OK;
	if (fb_table_read(&t, path, err) != FB_OK)
		return FB_ERR;
	if (!rows_same_columns(r, &t)) {
		fb_table_release(&t);
		return fb_fail(err, "'%s' has other columns than this sweep writes (other grid "
		                    "variables): give another out= or the same grid", path);
	}
	fb_table_release(&r->foreign);
	fb_table_init(&r->foreign, t.ncols, (const char *const *)t.head);
	for (size_t i = 0; i < t.nrows; i++) {
		size_t cell = rows_cell_of(r, &t, i);

		if (cell == SIZE_MAX)
			fb_table_add_row(&r->foreign, (const char *const *)&t.cell[i * t.ncols]);
		else if (fb_table_get(&t, i, t.ncols - 1)[0] == '\0')
			rows_take(r, &t, i, cell);
	}
	fb_table_release(&t);
	return FB_OK;
}

/* The cells without a row, in grid order, into a new array; their count in *n. */
size_t *fb_sweep_rows_pending(const fb_sweep_rows *r, size_t *n)
{
	size_t *cells = fb_xcalloc(r->total + 1, sizeof *cells);

	*n = 0;
	for (size_t c = 0; c < r->total; c++)
		if (!r->have[c])
			cells[(*n)++] = c;
	return cells;
}

/* Whether some cell that did not fail has a value of the figure called fig. */
bool fb_sweep_rows_any(const fb_sweep_rows *r, const char *fig)
{
	int f = fb_sweep_figure(fig);

	for (size_t c = 0; c < r->total && f >= 0; c++)
		if (r->have[c] && !r->recs[c].failed && r->recs[c].fig[f][0] != '\0')
			return true;
	return false;
}

/* Whether fig is a rate or a time, shown with three decimals. */
static bool stat_fine(const char *fig)
{
	static const char *const fine[] = { "tpr", "fdr", "precision", "f1", "seconds", "wall",
		                            "accuracy", "class_f1", NULL };

	for (size_t i = 0; fine[i] != NULL; i++)
		if (strcmp(fig, fine[i]) == 0)
			return true;
	return false;
}

/* One statistic of the figure fig as "3.20 ± 0.45" into buf; a count (every value a whole
 * number, fig no rate or time) that does not vary as that number alone ("315200"), one
 * that does without decimals from 1000 on ("1221 ± 1"). */
const char *fb_sweep_stat_text(const fb_summary_stat *st, const char *fig, char *buf,
                               size_t len)
{
	bool whole = st->whole && !stat_fine(fig);
	int dec = stat_fine(fig) ? 3 : whole && fabs(st->mean) >= 1000 ? 0 : 2;

	if (st->n == 0)
		snprintf(buf, len, "-");
	else if (whole && (isnan(st->se) || st->se == 0))
		snprintf(buf, len, "%.0f", st->mean);
	else if (isnan(st->se))
		snprintf(buf, len, "%.*f", dec, st->mean);
	else
		snprintf(buf, len, "%.*f ± %.*f", dec, st->mean, dec, st->se);
	return buf;
}

/* Whether figure f of s has a number in some group (a graph sweep's circuit figures have
 * none). */
static bool summary_fig_used(const fb_summary *s, size_t f)
{
	for (size_t gr = 0; gr < s->ngroups; gr++)
		if (fb_summary_get(s, gr, f)->n > 0)
			return true;
	return false;
}

/* The summary as a table for people: the keys, the count, and per figure "mean ± se"; a
 * figure no group has a number of is left out. */
void fb_sweep_summary_text(const fb_summary *s, fb_table *t)
{
	size_t ncols = s->nkeys + 1 + s->nfigs, m;
	const char **head = fb_xcalloc(ncols, sizeof *head), **cells = fb_xcalloc(ncols, sizeof *cells);
	char (*buf)[64] = fb_xcalloc(ncols, sizeof *buf);
	size_t *figs = fb_xcalloc(s->nfigs + 1, sizeof *figs), nf = 0;

	for (size_t f = 0; f < s->nfigs; f++)
		if (summary_fig_used(s, f))
			figs[nf++] = f;
	for (size_t k = 0; k < s->nkeys; k++)
		head[k] = s->key_names[k];
	head[s->nkeys] = "count";
	for (size_t i = 0; i < nf; i++)
		head[s->nkeys + 1 + i] = s->fig_names[figs[i]];
	m = s->nkeys + 1 + nf;
	fb_table_init(t, m, head);
	for (size_t gr = 0; gr < s->ngroups; gr++) {
		for (size_t k = 0; k < s->nkeys; k++)
			cells[k] = s->keys[gr * s->nkeys + k];
		snprintf(buf[s->nkeys], sizeof buf[0], "%zu", s->rows[gr]);
		cells[s->nkeys] = buf[s->nkeys];
		for (size_t i = 0; i < nf; i++)
			cells[s->nkeys + 1 + i] = fb_sweep_stat_text(fb_summary_get(s, gr, figs[i]),
			                                             s->fig_names[figs[i]],
			                                             buf[s->nkeys + 1 + i], sizeof buf[0]);
		fb_table_add_row(t, cells);
	}
	free(head);
	free(cells);
	free(buf);
	free(figs);
}
