/* Writing a dataset as CSV: a header row of names, then one row per observation, discrete
 * values as their labels and numbers with 17 significant digits so that they read back
 * bit for bit.  Every write goes through a temporary file renamed on success. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fedbn/csv.h"
#include "csv-private.h"

/* True when s needs quotes: empty, blank at either end, or holding a delimiter, a quote or a
 * line end (semicolons and tabs too, so that delimiter detection is never misled). */
bool fb_csv_needs_quotes(const char *s)
{
	size_t len = strlen(s);

	if (len == 0)
		return true;
	if (s[0] == ' ' || s[0] == '\t' || s[len - 1] == ' ' || s[len - 1] == '\t')
		return true;
	return strpbrk(s, ",;\t\"\r\n") != NULL;
}

/* Write s to fp, in quotes with doubled inner quotes when quote says so. */
static void put_text(FILE *fp, const char *s, bool quote)
{
	if (!quote) {
		fputs(s, fp);
		return;
	}
	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			putc('"', fp);
		putc(*s, fp);
	}
	putc('"', fp);
}

/* Write one field, quoted with doubled inner quotes when needed. */
void fb_csv_put_field(FILE *fp, const char *s)
{
	put_text(fp, s, fb_csv_needs_quotes(s));
}

/* Write one field, quoted with doubled inner quotes when it holds a byte of chars. */
void fb_csv_put_field_if(FILE *fp, const char *s, const char *chars)
{
	put_text(fp, s, strpbrk(s, chars) != NULL);
}

/* Write value i of variable j: a label, a number, or NA for a missing one. */
static int put_value(FILE *fp, const fb_dataset *ds, size_t i, size_t j, const char *path,
                     fb_error *err)
{
	const fb_var *v = &ds->vars[j];
	double x = fb_dataset_get(ds, i, j);

	if (v->kind == FB_DISCRETE) {
		if (!(x >= 0 && x < (double)v->nlevels && x == floor(x)))
			return fb_fail(err, "cannot write '%s': row %zu, variable '%s': %g is "
			               "not a level code (%zu levels)", path, i + 1, v->name, x,
			               v->nlevels);
		fb_csv_put_field(fp, v->levels[(size_t)x]);
	} else if (isnan(x)) {
		fputs("NA", fp);
	} else if (isinf(x)) {
		return fb_fail(err, "cannot write '%s': row %zu, variable '%s': the value is "
		               "infinite", path, i + 1, v->name);
	} else {
		fprintf(fp, "%.17g", x);
	}
	return FB_OK;
}

/* Write the header row and every row of ds to fp. */
static int put_dataset(FILE *fp, const fb_dataset *ds, const char *path, fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++) {
		if (j > 0)
			putc(',', fp);
		fb_csv_put_field(fp, ds->vars[j].name);
	}
	putc('\n', fp);
	for (size_t i = 0; i < ds->n; i++) {
		for (size_t j = 0; j < ds->d; j++) {
			if (j > 0)
				putc(',', fp);
			if (put_value(fp, ds, i, j, path, err) != FB_OK)
				return FB_ERR;
		}
		putc('\n', fp);
	}
	return FB_OK;
}

/* Write a dataset as CSV, atomically. */
int fb_csv_write_dataset(const fb_dataset *ds, const char *path, fb_error *err)
{
	fb_atomic_file af;

	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	if (put_dataset(af.fp, ds, path, err) != FB_OK) {
		fb_atomic_abort(&af);
		return FB_ERR;
	}
	return fb_atomic_commit(&af, err);
}
