/* Tables of text cells read from and written to CSV: the rows a sweep writes, which plot and
 * the summaries read back.  Every cell is kept as the text of its field (trimmed of blanks);
 * callers parse numbers where they want them. */
#ifndef FEDBN_TABLE_H
#define FEDBN_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "fedbn/core.h"

/* A table: a header of column names and rows of as many text cells. */
typedef struct fb_table {
	size_t ncols;  /* columns */
	char **head;   /* the ncols column names (owned) */
	size_t nrows;  /* rows */
	size_t cap;    /* rows allocated */
	char **cell;   /* nrows * ncols texts, row-major (owned) */
} fb_table;

/* An empty table with the given ncols column names (copied). */
void fb_table_init(fb_table *t, size_t ncols, const char *const *head);
/* Free the table's memory (an all-zero table is fine). */
void fb_table_release(fb_table *t);
/* Append one row of ncols texts (copied; NULL stands for ""). */
void fb_table_add_row(fb_table *t, const char *const *cells);
/* The index of the column called name, or -1. */
int fb_table_col(const fb_table *t, const char *name);
/* The text in row r, column c. */
const char *fb_table_get(const fb_table *t, size_t r, size_t c);
/* The number in row r, column c into *v: FB_OK when the cell holds a finite number, FB_ERR
 * (nothing recorded) when it is empty or text. */
int fb_table_number(const fb_table *t, size_t r, size_t c, double *v);

/* Read a CSV file whose first line names the columns (distinct, not empty) into t; every
 * row must have as many fields.  FB_ERR with err naming the file, line and fault (t is then
 * empty). */
int fb_table_read(fb_table *t, const char *path, fb_error *err);
/* Write the table as CSV (header, then rows; fields quoted when needed). */
void fb_table_write_csv(const fb_table *t, FILE *fp);
/* Write the table as a Markdown table; columns named in right (NULL-terminated, may be
 * NULL) are aligned right. */
void fb_table_write_markdown(const fb_table *t, FILE *fp, const char *const *right);

#endif
