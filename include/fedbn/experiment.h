/* Experiments: a grid of variables that a script is run over (one cell per combination of
 * values), the substitution of ${NAME} in the script, the summary of a table of results
 * (mean and standard error per group over a repeated variable such as the seed), and a
 * sweep's rows (one per cell: its variables, its figures, its error) with the resumption of
 * a results file. */
#ifndef FEDBN_EXPERIMENT_H
#define FEDBN_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/table.h"

/* One grid variable: its name and its values in the order given. */
typedef struct fb_grid_var {
	char *name;     /* a name of letters, digits and '_', not starting with a digit (owned) */
	char **values;  /* its values (owned) */
	size_t n;       /* how many (at least one) */
} fb_grid_var;

/* A grid: the cells are every combination of the variables' values, the first variable
 * varying slowest (as nested loops written in the order given). */
typedef struct fb_grid {
	fb_grid_var *vars; /* the variables, in the order given (owned) */
	size_t nvars;      /* how many */
} fb_grid;

/* Most cells a grid may have. */
#define FB_GRID_MAX_CELLS 100000

/* Add the variable of one word NAME=VALUES, VALUES a comma-separated list whose items are
 * texts or whole-number ranges A..B (A <= B, both included).  FB_ERR with a sentence naming
 * the word at fault: no values, an empty item, a backwards or endless range, a bad or
 * repeated name, too many cells. */
int fb_grid_add(fb_grid *g, const char *word, fb_error *err);
/* Free the grid (an all-zero grid is fine). */
void fb_grid_release(fb_grid *g);
/* The number of cells (1 for a grid without variables). */
size_t fb_grid_cells(const fb_grid *g);
/* The value of variable v in cell c. */
const char *fb_grid_value(const fb_grid *g, size_t c, size_t v);
/* The index of the variable called name, or -1. */
int fb_grid_find(const fb_grid *g, const char *name);

/* The cell's variables as "K=4 seed=2" into buf (len bytes); returns buf. */
const char *fb_grid_label(const fb_grid *g, size_t cell, char *buf, size_t len);

/* Check every ${NAME} of text (called source in messages, its lines counted from 1) against
 * the grid, marking used[v] for each variable used.  FB_ERR naming the line and the name
 * that is not a grid variable, or an unclosed "${". */
int fb_grid_check(const fb_grid *g, const char *text, const char *source, bool *used,
                  fb_error *err);
/* text with every ${NAME} replaced by its value in cell c (caller frees); text must have
 * passed fb_grid_check. */
char *fb_grid_expand(const fb_grid *g, size_t c, const char *text);

/* The mean, standard error and count of one figure over one group's rows. */
typedef struct fb_summary_stat {
	double mean; /* the mean of the rows that have a number (NaN when none) */
	double se;   /* the sample standard deviation over sqrt(n) (NaN when n < 2) */
	size_t n;    /* the rows that have a number in this column */
	bool whole;  /* every one of those numbers is a whole number (a count: rows, edges, bytes) */
} fb_summary_stat;

/* The summary of a table: one group per distinct combination of the key columns, in the
 * order of their first row; for each group and figure column its statistics. */
typedef struct fb_summary {
	size_t nkeys;          /* key columns */
	size_t nfigs;          /* figure columns */
	char **key_names;      /* their names (owned) */
	char **fig_names;      /* (owned) */
	size_t ngroups;        /* groups */
	char **keys;           /* ngroups * nkeys texts (owned) */
	size_t *rows;          /* per group: the rows it has (owned) */
	fb_summary_stat *stat; /* ngroups * nfigs statistics (owned) */
} fb_summary;

/* Group t's rows by the columns keys[0..nkeys) and summarise the columns figs[0..nfigs):
 * cells that hold no number (a failed cell's empty fields) are left out of their column's
 * statistics.  FB_ERR naming a column t does not have. */
int fb_summary_compute(fb_summary *s, const fb_table *t, const char *const *keys,
                       size_t nkeys, const char *const *figs, size_t nfigs, fb_error *err);
/* Free the summary. */
void fb_summary_release(fb_summary *s);
/* The statistics of group gr, figure f. */
const fb_summary_stat *fb_summary_get(const fb_summary *s, size_t gr, size_t f);
/* The summary as a table: the key columns, "count" (the group's rows), then per figure F the
 * columns F_mean and F_se (empty when undefined); numbers written so that they read back
 * exactly.  t is initialised here. */
void fb_summary_table(const fb_summary *s, fb_table *t);

/* The figures of a sweep's row, after its grid variables, in this order (NULL after the
 * last): a graph's accuracy against the truth (shd ... nnz), the run's rounds, seconds and
 * bytes, a circuit's log-likelihoods, classification and size, and the cell's wall time. */
extern const char *const fb_sweep_figures[];
/* How many. */
#define FB_SWEEP_NFIGS 24
/* The name of the last column: the cell's error, empty when it succeeded. */
#define FB_SWEEP_ERROR_COL "error"

/* What one cell gave. */
typedef struct fb_sweep_record {
	bool failed;                  /* the cell failed: error says why */
	char fig[FB_SWEEP_NFIGS][32]; /* its figures as text ("" when it has none) */
	char error[FB_ERROR_MAX];     /* the reason of a failure */
} fb_sweep_record;

/* The index of the figure called name in fb_sweep_figures, or -1. */
int fb_sweep_figure(const char *name);
/* Whether name is a column of the rows or of the summary besides the variables (a figure,
 * "error" or "count"), which no grid variable may be called. */
bool fb_sweep_reserved(const char *name);
/* Add to g the variables of the n NAME=VALUES words (fb_grid_add).  FB_ERR with a sentence
 * naming the word at fault, when there is no word, or when a variable has a reserved
 * name. */
int fb_sweep_grid(fb_grid *g, char *const *words, size_t n, fb_error *err);

/* A sweep's rows: per cell of the grid its record when it has one (run this time or taken
 * from a results file), and the rows of a resumed file that are no cell of the grid. */
typedef struct fb_sweep_rows {
	const fb_grid *grid;     /* the grid (borrowed) */
	size_t total;            /* its cells */
	fb_sweep_record *recs;   /* per cell: its record, when have[] says so (owned) */
	bool *have;              /* per cell: a row (owned) */
	fb_table foreign;        /* rows of a resumed file that are no cell of the grid */
	size_t resumed;          /* cells taken from a file */
} fb_sweep_rows;

/* No rows yet for the cells of g (which must outlive r). */
void fb_sweep_rows_init(fb_sweep_rows *r, const fb_grid *g);
/* Free the rows (an all-zero one is fine). */
void fb_sweep_rows_release(fb_sweep_rows *r);
/* Keep rec as cell's row. */
void fb_sweep_rows_set(fb_sweep_rows *r, size_t cell, const fb_sweep_record *rec);
/* Every cell with a row, in grid order, then the foreign rows, as a table whose columns
 * are the variables, the figures and the error.  t is initialised here. */
void fb_sweep_rows_table(const fb_sweep_rows *r, fb_table *t);
/* Take the cells the results file path already holds without an error (the failed ones are
 * left to run again) and keep its rows that are no cell of the grid; nothing when path
 * does not exist.  FB_ERR with the reason when it cannot be read or has other columns. */
int fb_sweep_rows_resume(fb_sweep_rows *r, const char *path, fb_error *err);
/* The cells without a row, in grid order, into a new array (caller frees); their count in
 * *n. */
size_t *fb_sweep_rows_pending(const fb_sweep_rows *r, size_t *n);
/* Whether some cell that did not fail has a value of the figure called fig. */
bool fb_sweep_rows_any(const fb_sweep_rows *r, const char *fig);

/* One statistic of the figure fig as "3.20 ± 0.45" into buf (len bytes): three decimals
 * for rates and times, two otherwise, the mean alone without a standard error, "-" without
 * a value; returns buf. */
const char *fb_sweep_stat_text(const fb_summary_stat *st, const char *fig, char *buf,
                               size_t len);
/* The summary as a table for people: the keys, "count", and per figure its statistic as
 * fb_sweep_stat_text writes it, a figure that no group has a number of left out (a graph
 * sweep's circuit figures).  t is initialised here. */
void fb_sweep_summary_text(const fb_summary *s, fb_table *t);

#endif
