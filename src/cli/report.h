/* Text reports of runs: the line per round, the result, the comparison table. */
#ifndef FEDBN_CLI_REPORT_H
#define FEDBN_CLI_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "fedbn/algo.h"

/* How pages and pictures name the files data came from: base names ("sachs.csv"), so that a
 * shared page tells nothing of the author's folders, or as typed. */
enum fb_report_paths { FB_PATHS_BASE = 0, FB_PATHS_FULL };
/* The names of fb_report_paths's values, for a paths= parameter. */
extern const fb_choice fb_report_path_choices[];
/* source (a file's path, or a description holding paths such as "sample /x/net.bif n=500")
 * as a page shows it: as it is with FB_PATHS_FULL, else the base name of a source that
 * names a file, or each word's path cut to what follows its last '/' (caller frees). */
char *fb_report_path(const char *source, enum fb_report_paths how);

/* Write bytes as "812 B", "28.8 kB", "1.20 MB" into buf. */
const char *fb_report_bytes(size_t bytes, char *buf, size_t len);
/* The parameters run was given that differ from the defaults, as key=value words, into buf
 * ("" when there are none). */
void fb_report_params(const fb_run *run, char *buf, size_t len);
/* One line for one round. */
void fb_report_round(FILE *out, const fb_run *run, const fb_trace_rec *rec);
/* The line that sums a run up: "NAME finished: N rounds, ..." or, before the end, "NAME not
 * finished: N rounds so far, ...". */
void fb_report_finished(FILE *out, const fb_run *run);
/* The edges of g, one a line ("  A -> B  0.1234", "  A -- B"), names escaped. */
void fb_report_edge_lines(FILE *out, const fb_graph *g);
/* Print the edges of PAG p, one a line ("  X o-> Y"), under a line saying how to read
 * their marks. */
void fb_report_pag_lines(FILE *out, const fb_pag *p);
/* The result of a run; FB_ERR when it has no estimate yet. */
int fb_report_result(FILE *out, const fb_run *run);

/* Formats of the comparison table. */
enum fb_table_format { FB_TABLE_TEXT, FB_TABLE_CSV, FB_TABLE_MARKDOWN };
/* One run as the comparison shows it. */
typedef struct fb_compare_item {
	const fb_run *run; /* the run */
	size_t no;         /* its number in the session, from 1 */
	const char *data;  /* where its dataset came from */
	const char *label; /* the user's name for it, or NULL */
	const char *classified; /* a circuit run: the variable the newest classify predicted,
	                           or NULL */
	double accuracy;   /* that classify's accuracy */
	const fb_pag *truth_pag; /* the true PAG of its dataset (gen hide=), or NULL */
	const fb_graph *graph;   /* a graph loaded by graph load, shown as "gN" (run NULL, no
	                            its number, data the file it came from), or NULL */
	const fb_graph *truth;   /* the truth the loaded graph is scored against, or NULL */
	const fb_loglik *fit_ll; /* a graph run that fit fitted: the fitted network's
	                            log-likelihood of each part (FB_NPARTS), or NULL */
} fb_compare_item;

struct fb_session;
/* The runs of s left in the comparison (not dropped), in order, into items (room for every
 * run); returns how many. */
size_t fb_report_items(const struct fb_session *s, fb_compare_item *items);
/* The graphs s loaded (graph load) as items (room for every one); returns how many. */
size_t fb_report_graph_items(const struct fb_session *s, fb_compare_item *items);

/* Hand each row of the comparison table of items[0..n) to emit as cells, for people (seconds
 * with their unit, bytes in kB, MB, ...), the header first (head set). */
void fb_report_compare_rows(const fb_compare_item *items, size_t n,
                            void (*emit)(void *ctx, const char *const *cells, size_t ncells,
                                         bool head),
                            void *ctx);

/* The comparison table of items[0..n): one row per run with its label, algorithm, dataset,
 * split, parameters, a graph's accuracy against the truth (when a run learned a graph), a
 * circuit's mean log-likelihood of each part, the variable classify predicted and its
 * accuracy, and its nodes (when a run learned a circuit), rounds, seconds and bytes (in kB,
 * MB, ... except in CSV). */
void fb_report_compare(FILE *out, const fb_compare_item *items, size_t n,
                       enum fb_table_format fmt);

#endif
