/* Helpers shared by the CSV reader, the CSV writer and the graph CSV reader; not part of
 * libfedbn's public interface. */
#ifndef FEDBN_CSV_PRIVATE_H
#define FEDBN_CSV_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fedbn/core.h"

/* Room for a field quoted in an error message (see fb_csv_excerpt). */
#define FB_CSV_EXCERPT_MAX 64

/* Strip spaces, tabs, carriage returns and line feeds from both ends of (*s, *len). */
void fb_csv_trim(const char **s, size_t *len);

/* True when the len bytes at s (already trimmed) mark a missing value: nothing, NA, ?, or
 * NaN in any letter case. */
bool fb_csv_is_missing(const char *s, size_t len);

/* Parse exactly the len bytes at s as a finite decimal number ([+-]digits[.digits][e[+-]digits],
 * no spaces, no hex, no inf/nan) into *out, correctly rounded; false when s is not one. */
bool fb_csv_number_parse(const char *s, size_t len, double *out);
/* Parse the decimal number that starts at s and ends at the first byte (before end) that
 * cannot continue it; *stop is that byte.  False when s starts no complete number. */
bool fb_csv_number_scan(const char *s, const char *end, const char **stop, double *out);

/* The distinct values of an integer column while it may still be discrete (FB_DISCRETE_AUTO). */
typedef struct fb_csv_ints {
	bool ok;      /* integers with at most max_levels distinct values so far */
	double *v;    /* the distinct values, in increasing order (owned) */
	size_t n;     /* entries used in v */
	size_t cap;   /* room in v */
} fb_csv_ints;

/* Follow one more value: still an integer, still few distinct values (at most max_levels)? */
void fb_csv_ints_add(fb_csv_ints *s, double v, size_t max_levels);
/* Fold the values of from into s (the result does not depend on the order of folding). */
void fb_csv_ints_merge(fb_csv_ints *s, const fb_csv_ints *from, size_t max_levels);
/* Free the set's memory. */
void fb_csv_ints_release(fb_csv_ints *s);

/* The part of a numeric file after its first line, for the fast reader (csv-fast.c). */
typedef struct fb_csv_fast {
	int fd;              /* the open file */
	long long start;     /* offset of the first byte after the first line */
	long long size;      /* the file's size */
	char delim;          /* the delimiter */
	size_t d;            /* fields in every row */
	size_t threads;      /* threads to use (0: one per processor) */
	size_t max_levels;   /* most distinct values of an integer column that may be discrete */
	fb_csv_ints *ints;   /* per column: the integer sets to extend (NULL: none tracked) */
	double *x;           /* in: rows already read (n0 of them), out: every row; realloc'd */
	size_t n;            /* in: rows already in x, out: all rows */
	const fb_cancel *cancel; /* asked before each block: stop gives up (NULL: never) */
} fb_csv_fast;

/* Read every line after the first as d numbers into f->x, on several threads with the same
 * result for any thread count.  FB_ERR when any line is not simply d numbers (a quote, a
 * missing value, a blank, a wrong count) or on a read or memory failure: the caller then
 * reads the file again the general way, which reports what is wrong. */
int fb_csv_fast_read(fb_csv_fast *f);

/* The delimiter of the first non-blank line of buf: the most frequent of comma, semicolon
 * and tab outside double quotes (comma on a tie or when there is none).  *complete is set
 * when that line ended inside buf, so that the answer cannot change with more input. */
char fb_csv_delim_detect(const char *buf, size_t len, bool *complete);

/* Copy the len bytes at s into out (FB_CSV_EXCERPT_MAX bytes) for a message, cut with "..."
 * when long; returns out. */
const char *fb_csv_excerpt(char *out, const char *s, size_t len);

/* Write graph g to fp as fedbn's CSV edge list, or as its adjacency matrix (graph-csv.c). */
struct fb_graph;
void fb_csv_put_graph_edges(FILE *fp, const struct fb_graph *g);
void fb_csv_put_graph_matrix(FILE *fp, const struct fb_graph *g);

/* True when s must be quoted to read back as the same text in a comma-separated file. */
bool fb_csv_needs_quotes(const char *s);

/* A CSV input being tokenised: where it is, and what to call for each field and row. */
typedef struct fb_csv_scan {
	const char *name;  /* the input's name in messages */
	fb_error *err;     /* where the first error goes */
	bool failed;       /* an error was recorded: no more callbacks come */
	char delim;        /* the delimiter: 0 before a scan to detect it, then the one used */
	size_t line;       /* line of the next input byte: 1 + line feeds consumed */
	size_t row_line;   /* line where the current row began */
	size_t nfield;     /* fields of the current row before the one being reported */
	bool after_cr;     /* the last thing seen was a line ended by a carriage return */
	/* one field (s[len] is NUL) of column nfield, beginning on the given line */
	void (*field)(struct fb_csv_scan *sc, const char *s, size_t len, size_t line);
	/* the end of a non-blank row of nfield fields */
	void (*row)(struct fb_csv_scan *sc);
	void *ctx;         /* the caller's state, for the callbacks */
	const fb_cancel *cancel; /* asked before each chunk of a file (NULL: never) */
	size_t line_bytes; /* bytes of a file read since its last line end (FB_LINE_MAX) */
} fb_csv_scan;

/* Append a copy of the len bytes at s to the n fields of *fields (room for *cap, doubled as
 * needed); false, with "line LINE: out of memory" recorded in sc, when memory runs out. */
bool fb_csv_keep_field(fb_csv_scan *sc, char ***fields, size_t *n, size_t *cap, const char *s,
                       size_t len, size_t line);

/* Prepare sc for the input called name (in messages); delim 0 detects it. */
void fb_csv_scan_init(fb_csv_scan *sc, const char *name, char delim, fb_error *err);
/* Record "cannot read 'name': <formatted>" unless an error is already recorded. */
void fb_csv_scan_fail(fb_csv_scan *sc, const char *fmt, ...) FB_PRINTF(2, 3);
/* Tokenise a buffer, calling sc->field and sc->row; FB_ERR once anything failed. */
int fb_csv_scan_buffer(fb_csv_scan *sc, const char *buf, size_t len);
/* Tokenise a file, read in fixed-size chunks; FB_ERR once anything failed. */
int fb_csv_scan_file(fb_csv_scan *sc, const char *path);

#endif
