/* Reading and writing datasets and graphs as CSV.
 *
 * The reader takes RFC 4180 files and their usual variants: comma, semicolon or tab
 * delimiters, a UTF-8 byte order mark, LF, CR LF or CR line ends, quoted fields holding
 * delimiters, doubled quotes and line ends, blank lines anywhere.  Fields are trimmed of
 * blanks.  Error messages name the file and the real line of the file (line ends inside
 * quoted fields count) and, for a field, its column. */
#ifndef FEDBN_CSV_H
#define FEDBN_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"

/* Which columns are discrete. */
enum fb_discrete_mode {
	FB_DISCRETE_NONE = 0, /* only non-numeric columns (the default) */
	FB_DISCRETE_ALL,      /* every column */
	FB_DISCRETE_AUTO,     /* non-numeric, and integer columns with at most max_levels levels */
	FB_DISCRETE_LIST,     /* non-numeric, and the columns named in discrete_list */
};

/* What to do with missing values: an empty field, NA, ? or NaN (in any letter case). */
enum fb_na_policy {
	FB_NA_ERROR = 0, /* stop at the first one, naming line and column (the default) */
	FB_NA_DROP,      /* drop the rows that have any, and report how many */
};

/* Options for fb_csv_read. */
typedef struct fb_csv_options {
	char delim;                   /* ',', ';' or '\t'; 0 = detect from the first line */
	int header;                   /* 1 yes, 0 no (names X1..Xd), -1 detect */
	enum fb_discrete_mode discrete; /* which columns are discrete */
	const char *discrete_list;    /* FB_DISCRETE_LIST: comma-separated names */
	size_t max_levels;            /* FB_DISCRETE_AUTO: most levels of an integer column */
	enum fb_na_policy na;         /* missing values */
	fb_warn warn;                 /* warnings (constant columns, dropped rows) */
	size_t threads;               /* threads reading a large plain numeric file (0: one per
	                               * processor); the result does not depend on it */
	fb_cancel cancel;             /* asked between blocks of the file: when it says stop, the
	                               * read fails with FB_CANCELLED_MSG (fn NULL: never) */
} fb_csv_options;

/* What a read found besides the data. */
typedef struct fb_csv_report {
	size_t rows_dropped;   /* rows dropped for missing values (FB_NA_DROP) */
	bool header_detected;  /* the first line was taken as names */
	char delim;            /* the delimiter used */
} fb_csv_report;

/* Defaults: detect delimiter and header, discrete=none, max_levels 10, na=error. */
void fb_csv_options_init(fb_csv_options *opt);
/* Mark in codes[] (d entries) the continuous columns of ds that FB_DISCRETE_AUTO would have
 * read as discrete: every value an integer, at most max_levels distinct ones; how many. */
size_t fb_csv_integer_codes(const fb_dataset *ds, size_t max_levels, bool *codes);

/* Read a CSV file into a new dataset (caller frees with fb_dataset_free); NULL with err naming
 * file, line and column.  opt may be NULL (defaults); rep may be NULL.
 * A column is continuous when its first value is a number, else discrete; its labels are
 * the trimmed texts, in numeric order when every label is a number, else in byte order, so
 * that codes never depend on the row order.  The reader streams the file in chunks: its
 * peak memory stays near the final n x d matrix. */
fb_dataset *fb_csv_read(const char *path, const fb_csv_options *opt, fb_csv_report *rep,
                        fb_error *err);
/* The same from a memory buffer; name is used in messages in place of a file name. */
fb_dataset *fb_csv_read_buffer(const char *buf, size_t len, const char *name,
                               const fb_csv_options *opt, fb_csv_report *rep, fb_error *err);

/* Write a dataset with a header row (discrete values as their labels, quoted when needed,
 * numbers with 17 significant digits so that they read back bit for bit, NaN as NA);
 * atomic.  A code that is not a level, or an infinite value, is an error. */
int fb_csv_write_dataset(const fb_dataset *ds, const char *path, fb_error *err);

/* Write s to fp as one comma-separated field, quoted (inner quotes doubled) when it must be
 * to read back as the same text: when it is empty, has a blank at either end, or holds a
 * comma, semicolon, tab, quote or line end. */
void fb_csv_put_field(FILE *fp, const char *s);
/* Write s to fp as one field, quoted (inner quotes doubled) when, and only when, it holds a
 * byte of chars (which should hold '"' and the delimiter): for files whose readers expect
 * that rule, such as compare's CSV, which quotes every cell with a comma, quote or space and
 * leaves empty cells empty. */
void fb_csv_put_field_if(FILE *fp, const char *s, const char *chars);

/* Write a graph as an edge list "from,to[,weight]" (undirected edges once, type column
 * added when the graph has any); atomic. */
int fb_graph_write_edges(const fb_graph *g, const char *path, fb_error *err);
/* Write a graph as a d x d adjacency matrix with a header row of names; entry (i,j) is the
 * weight of i -> j (1 when unweighted); atomic. */
int fb_graph_write_matrix(const fb_graph *g, const char *path, fb_error *err);

/* Read a graph over the given node names (caller frees with fb_graph_free) from an edge list
 * (header from,to with optional weight and type columns, type "->" or "--") or an adjacency
 * matrix (d x d numbers, optional header row of names in the given order, optional first
 * column of names); the form is detected.  In a matrix, two non-zero entries (i,j) and (j,i)
 * make an undirected edge, and the graph is weighted when an entry is neither 0 nor 1.
 * Names in the file must be among names; err names the line and the unknown name. */
fb_graph *fb_graph_read_csv(const char *path, char *const *names, size_t d, fb_error *err);
/* fb_graph_read_csv over the variables of ds, in their order. */
fb_graph *fb_graph_read_csv_for(const char *path, const fb_dataset *ds, fb_error *err);

#endif
