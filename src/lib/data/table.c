/* Tables of text cells: built in memory, read from CSV through the shared scanner, written as
 * CSV or Markdown. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/csv.h"
#include "fedbn/table.h"
#include "csv-private.h"

/* An empty table with the given column names. */
void fb_table_init(fb_table *t, size_t ncols, const char *const *head)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->head = fb_xcalloc(ncols > 0 ? ncols : 1, sizeof *t->head);
	for (size_t c = 0; c < ncols; c++)
		t->head[c] = fb_xstrdup(head[c]);
}

/* Free the table. */
void fb_table_release(fb_table *t)
{
	for (size_t c = 0; t->head != NULL && c < t->ncols; c++)
		free(t->head[c]);
	for (size_t i = 0; t->cell != NULL && i < t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->head);
	free(t->cell);
	memset(t, 0, sizeof *t);
}

/* Append one row; FB_ERR, the table as it was, when memory runs out. */
static int table_try_add_row(fb_table *t, const char *const *cells)
{
	char **row;
	size_t c;

	if (t->nrows == t->cap) {
		size_t cap = t->cap > 0 ? 2 * t->cap : 16;
		char **grown = reallocarray(t->cell, cap * (t->ncols > 0 ? t->ncols : 1),
		                            sizeof *t->cell);

		if (grown == NULL)
			return FB_ERR;
		t->cell = grown;
		t->cap = cap;
	}
	row = t->cell + t->nrows * t->ncols;
	for (c = 0; c < t->ncols; c++)
		if ((row[c] = strdup(cells[c] != NULL ? cells[c] : "")) == NULL)
			break;
	if (c == t->ncols) {
		t->nrows++;
		return FB_OK;
	}
	while (c-- > 0)
		free(row[c]);
	return FB_ERR;
}

/* Append one row. */
void fb_table_add_row(fb_table *t, const char *const *cells)
{
	if (table_try_add_row(t, cells) != FB_OK)
		fb_xalloc_fail(t->ncols * sizeof *t->cell);
}

/* The index of a column. */
int fb_table_col(const fb_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->head[c], name) == 0)
			return (int)c;
	return -1;
}

/* One cell's text. */
const char *fb_table_get(const fb_table *t, size_t r, size_t c)
{
	return t->cell[r * t->ncols + c];
}

/* One cell as a number. */
int fb_table_number(const fb_table *t, size_t r, size_t c, double *v)
{
	const char *s = fb_table_get(t, r, c);

	return s[0] != '\0' && fb_parse_double(s, v) == 0 ? FB_OK : FB_ERR;
}

/* What a table read keeps between the scanner's callbacks. */
typedef struct table_read {
	fb_table *t;       /* the table being filled */
	bool have_head;    /* the header row has been read */
	char **fields;     /* the current row's fields (owned) */
	size_t nfields;    /* how many */
	size_t cap;        /* room in fields */
} table_read;

/* One field: trimmed and kept for the row. */
static void table_field(fb_csv_scan *sc, const char *s, size_t len, size_t line)
{
	table_read *tr = sc->ctx;

	fb_csv_trim(&s, &len);
	fb_csv_keep_field(sc, &tr->fields, &tr->nfields, &tr->cap, s, len, line);
}

/* Drop the current row's fields. */
static void table_clear_fields(table_read *tr)
{
	for (size_t i = 0; i < tr->nfields; i++)
		free(tr->fields[i]);
	tr->nfields = 0;
}

/* Check the header's names: none empty, none twice. */
static void table_check_head(fb_csv_scan *sc, table_read *tr)
{
	for (size_t c = 0; c < tr->nfields; c++) {
		if (tr->fields[c][0] == '\0')
			fb_csv_scan_fail(sc, "line %zu: column %zu has no name", sc->row_line, c + 1);
		for (size_t e = 0; e < c && !sc->failed; e++)
			if (strcmp(tr->fields[c], tr->fields[e]) == 0)
				fb_csv_scan_fail(sc, "line %zu: two columns are called '%s'",
				                 sc->row_line, tr->fields[c]);
	}
}

/* The end of a row: the header, or one more row of as many fields. */
static void table_row(fb_csv_scan *sc)
{
	table_read *tr = sc->ctx;

	if (sc->failed) {
		table_clear_fields(tr);
		return;
	}
	if (!tr->have_head) {
		table_check_head(sc, tr);
		fb_table_init(tr->t, tr->nfields, (const char *const *)tr->fields);
		tr->have_head = true;
	} else if (tr->nfields != tr->t->ncols) {
		fb_csv_scan_fail(sc, "line %zu: %zu fields where the header names %zu",
		                 sc->row_line, tr->nfields, tr->t->ncols);
	} else if (table_try_add_row(tr->t, (const char *const *)tr->fields) != FB_OK) {
		fb_csv_scan_fail(sc, "line %zu: out of memory after %zu rows", sc->row_line,
		                 tr->t->nrows);
	}
	table_clear_fields(tr);
}

/* Read a CSV file with a header. */
int fb_table_read(fb_table *t, const char *path, fb_error *err)
{
	table_read tr = { .t = t };
	fb_csv_scan sc;
	int ret;

	memset(t, 0, sizeof *t);
	fb_csv_scan_init(&sc, path, ',', err);
	sc.field = table_field;
	sc.row = table_row;
	sc.ctx = &tr;
	ret = fb_csv_scan_file(&sc, path);
	if (ret == FB_OK && !tr.have_head)
		ret = fb_fail(err, "cannot read '%s': it has no header line", path);
	table_clear_fields(&tr);
	free(tr.fields);
	if (ret != FB_OK)
		fb_table_release(t);
	return ret;
}

/* Write as CSV. */
void fb_table_write_csv(const fb_table *t, FILE *fp)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c > 0)
			fputc(',', fp);
		fb_csv_put_field(fp, t->head[c]);
	}
	fputc('\n', fp);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c > 0)
				fputc(',', fp);
			fb_csv_put_field(fp, fb_table_get(t, r, c));
		}
		fputc('\n', fp);
	}
}

/* Whether name is among the NULL-terminated list. */
static bool table_listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* One Markdown cell, with '|' escaped. */
static void table_md_cell(FILE *fp, const char *s)
{
	fputs("| ", fp);
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputc('\\', fp);
		fputc(*s == '\n' ? ' ' : *s, fp);
	}
	fputc(' ', fp);
}

/* Write as Markdown. */
void fb_table_write_markdown(const fb_table *t, FILE *fp, const char *const *right)
{
	for (size_t c = 0; c < t->ncols; c++)
		table_md_cell(fp, t->head[c]);
	fputs("|\n", fp);
	for (size_t c = 0; c < t->ncols; c++)
		fputs(table_listed(right, t->head[c]) ? "|---:" : "|---", fp);
	fputs("|\n", fp);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++)
			table_md_cell(fp, fb_table_get(t, r, c));
		fputs("|\n", fp);
	}
}
