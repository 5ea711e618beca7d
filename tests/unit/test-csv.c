/* Unit tests of CSV in and out: tokenising quirks, header and delimiter detection, missing
 * values, column kinds and level order, every error message, round trips, atomic writes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/csv.h"
#include "../../src/lib/data/csv-private.h"

/* A temporary folder for the tests that need files. */
static char tmpdir[64];

/* Warnings received, one per line. */
static fb_buf warnings;

/* Warning sink: collect the message. */
static void collect_warning(void *ctx, const char *msg)
{
	fb_buf_printf(ctx, "%s\n", msg);
}

/* Options with defaults and warnings going to the collector (emptied). */
static fb_csv_options options(void)
{
	fb_csv_options o;

	fb_csv_options_init(&o);
	o.warn.fn = collect_warning;
	o.warn.ctx = &warnings;
	warnings.len = 0;
	if (warnings.data != NULL)
		warnings.data[0] = '\0';
	return o;
}

/* Path of a file in the temporary folder (static storage, one at a time per slot). */
static const char *tmp_path(int slot, const char *name)
{
	static char paths[4][256];

	if (snprintf(paths[slot], sizeof paths[slot], "%s/%s", tmpdir, name) >= 256)
		fail_msg("path too long: %s", name);
	return paths[slot];
}

/* Write text to a file in the temporary folder and return its path. */
static const char *tmp_file(int slot, const char *name, const char *text, size_t len)
{
	const char *path = tmp_path(slot, name);
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* Check that two datasets are the same: shape, values bit for bit, names, kinds, levels,
 * missing counts. */
static void assert_same_dataset(const fb_dataset *a, const fb_dataset *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->d, b->d);
	assert_memory_equal(a->x, b->x, a->n * a->d * sizeof *a->x);
	for (size_t j = 0; j < a->d; j++) {
		assert_string_equal(a->vars[j].name, b->vars[j].name);
		assert_int_equal(a->vars[j].kind, b->vars[j].kind);
		assert_int_equal(a->vars[j].missing, b->vars[j].missing);
		assert_int_equal(a->vars[j].nlevels, b->vars[j].nlevels);
		for (size_t k = 0; k < a->vars[j].nlevels; k++)
			assert_string_equal(a->vars[j].levels[k], b->vars[j].levels[k]);
	}
}

/* text with every 'path' in it said as 't.csv' (a new string). */
static char *as_t_csv(const char *text, const char *path)
{
	fb_buf out = { 0 };
	size_t plen = strlen(path);
	const char *p;

	fb_buf_printf(&out, "%s", "");
	while ((p = strstr(text, path)) != NULL) {
		fb_buf_append(&out, text, (size_t)(p - text));
		fb_buf_printf(&out, "t.csv");
		text = p + plen;
	}
	fb_buf_printf(&out, "%s", text);
	return out.data;
}

/* Read len bytes of csv written to a file with 1, 2 and 3 threads (the fast reader, or the
 * general one when it gives up) and check each gives what the buffer reader gave: want and
 * its report, or the error werr (about 't.csv'), and the same warnings (those the buffer
 * reader added after the first mark bytes of the collected ones). */
static void same_from_file(const char *csv, size_t len, const fb_csv_options *o,
                           const fb_dataset *want, const fb_csv_report *wrep, const char *werr,
                           size_t mark)
{
	char *all = strdup(warnings.data != NULL ? warnings.data : ""), *said = all + mark;
	const char *path = tmp_file(2, "t.csv", csv, len);
	fb_csv_options ot = *o;

	for (size_t t = 1; t <= 3; t++) {
		fb_error err = { { 0 } };
		fb_csv_report rep = { 0 };
		fb_dataset *ds;
		char *got;

		warnings.len = 0;
		fb_buf_printf(&warnings, "%s", "");
		ot.threads = t;
		ds = fb_csv_read(path, &ot, &rep, &err);
		if (want != NULL) {
			if (ds == NULL)
				fail_msg("the file gave an error, the buffer none: %s", err.msg);
			assert_same_dataset(ds, want);
			assert_int_equal(rep.rows_dropped, wrep->rows_dropped);
			assert_int_equal(rep.header_detected, wrep->header_detected);
			assert_int_equal(rep.delim, wrep->delim);
		} else {
			char *msg = as_t_csv(err.msg, path);

			assert_null(ds);
			assert_string_equal(msg, werr);
			free(msg);
		}
		got = as_t_csv(warnings.data, path);
		assert_string_equal(got, said);
		free(got);
		fb_dataset_free(ds);
	}
	warnings.len = 0;
	fb_buf_printf(&warnings, "%s", all);
	free(all);
	unlink(path);
}

/* Read csv from a string named "t.csv"; the test fails on an error.  The same text read from
 * a file must give the same dataset. */
static fb_dataset *read_ok(const char *csv, const fb_csv_options *o, fb_csv_report *rep)
{
	fb_error err = { { 0 } };
	fb_csv_report got = { 0 };
	size_t mark = warnings.len;
	fb_dataset *ds = fb_csv_read_buffer(csv, strlen(csv), "t.csv", o, &got, &err);

	if (ds == NULL)
		fail_msg("unexpected error: %s", err.msg);
	same_from_file(csv, strlen(csv), o, ds, &got, NULL, mark);
	if (rep != NULL)
		*rep = got;
	return ds;
}

/* Read csv from a string and check that it fails with exactly msg, from a file too. */
static void read_fails(const char *csv, const fb_csv_options *o, const char *msg)
{
	fb_error err = { { 0 } };
	size_t mark = warnings.len;
	fb_dataset *ds = fb_csv_read_buffer(csv, strlen(csv), "t.csv", o, NULL, &err);

	if (ds != NULL) {
		fb_dataset_free(ds);
		fail_msg("expected the error: %s", msg);
	}
	assert_string_equal(err.msg, msg);
	same_from_file(csv, strlen(csv), o, NULL, NULL, msg, mark);
}

/* Number of entries in the temporary folder. */
static size_t tmp_count(void)
{
	DIR *dir = opendir(tmpdir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dir);
	return n;
}

/* Remove every file of the temporary folder. */
static void tmp_clear(void)
{
	DIR *dir = opendir(tmpdir);
	struct dirent *e;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(tmp_path(3, e->d_name));
	closedir(dir);
}

/* Group set-up: make the temporary folder. */
static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/fedbn-test-csv-XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

/* Group tear-down: remove the temporary folder. */
static int teardown(void **state)
{
	(void)state;
	tmp_clear();
	rmdir(tmpdir);
	fb_buf_release(&warnings);
	return 0;
}

/* Check variable j's name and levels (NULL-terminated list; none for continuous). */
static void assert_var(const fb_dataset *ds, size_t j, const char *name, ...)
{
	va_list ap;
	const char *level;
	size_t k = 0;

	assert_string_equal(ds->vars[j].name, name);
	va_start(ap, name);
	while ((level = va_arg(ap, const char *)) != NULL) {
		assert_int_equal(ds->vars[j].kind, FB_DISCRETE);
		assert_true(k < ds->vars[j].nlevels);
		assert_string_equal(ds->vars[j].levels[k], level);
		k++;
	}
	va_end(ap);
	if (k == 0)
		assert_int_equal(ds->vars[j].kind, FB_CONTINUOUS);
	else
		assert_int_equal(ds->vars[j].nlevels, k);
}

/* A plain numeric file with a header. */
static void test_basic(void **state)
{
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_dataset *ds = read_ok("a,b,c\n1,2.5,-3\n4,5e2,0.125\n", &o, &rep);

	(void)state;
	assert_int_equal(ds->n, 2);
	assert_int_equal(ds->d, 3);
	assert_var(ds, 0, "a", NULL);
	assert_var(ds, 2, "c", NULL);
	assert_true(rep.header_detected);
	assert_int_equal(rep.delim, ',');
	assert_int_equal(rep.rows_dropped, 0);
	assert_true(fb_dataset_get(ds, 0, 1) == 2.5);
	assert_true(fb_dataset_get(ds, 0, 2) == -3);
	assert_true(fb_dataset_get(ds, 1, 1) == 500);
	assert_true(fb_dataset_get(ds, 1, 2) == 0.125);
	assert_string_equal(warnings.data == NULL ? "" : warnings.data, "");
	fb_dataset_free(ds);
}

/* Header detection both ways, and forced by the option. */
static void test_header(void **state)
{
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_dataset *ds;

	(void)state;
	ds = read_ok("1,2\n3,4\n", &o, &rep);
	assert_false(rep.header_detected);
	assert_int_equal(ds->n, 2);
	assert_var(ds, 0, "X1", NULL);
	assert_var(ds, 1, "X2", NULL);
	fb_dataset_free(ds);
	/* one text field is enough; missing markers do not count */
	ds = read_ok("NA,x\n3,4\n5,6\n", &o, &rep);
	assert_true(rep.header_detected);
	assert_var(ds, 0, "NA", NULL);
	fb_dataset_free(ds);
	read_fails("NA,?\n3,4\n5,6\n", &o,
	           "cannot read 't.csv': line 1, column 1: missing value 'NA' for variable 'X1'");
	o.header = 1;
	ds = read_ok("10,20\n3,4\n5,6\n", &o, &rep);
	assert_true(rep.header_detected);
	assert_int_equal(ds->n, 2);
	assert_var(ds, 1, "20", NULL);
	fb_dataset_free(ds);
	o.header = 0;
	ds = read_ok("u,v\n3,w\n", &o, &rep);
	assert_false(rep.header_detected);
	assert_var(ds, 0, "X1", "3", "u", NULL);
	assert_var(ds, 1, "X2", "v", "w", NULL);
	fb_dataset_free(ds);
}

/* Byte order mark, CRLF line ends, blank lines before, between and after the rows. */
static void test_bom_crlf_blank(void **state)
{
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_dataset *ds;

	(void)state;
	ds = read_ok("\xEF\xBB\xBF" "x,y\r\n1,2\r\n\r\n3,4\r\n\r\n\r\n", &o, &rep);
	assert_true(rep.header_detected);
	assert_var(ds, 0, "x", NULL);
	assert_int_equal(ds->n, 2);
	assert_true(fb_dataset_get(ds, 1, 1) == 4);
	fb_dataset_free(ds);
	ds = read_ok("\n\n  \nx,y\n1,2\n3,4", &o, &rep);
	assert_int_equal(ds->n, 2);
	assert_true(fb_dataset_get(ds, 1, 0) == 3);
	fb_dataset_free(ds);
	/* CRLF and blank lines still give the real line number */
	read_fails("x,y\r\n\r\n1,2\r\n3\r\n", &o,
	           "cannot read 't.csv': line 4: expected 2 fields, found 1");
	/* old Mac line ends (CR alone) count as lines too, mixed with the others */
	read_fails("x,y\r1,2\r\r3\r", &o, "cannot read 't.csv': line 4: expected 2 fields, "
	           "found 1");
	read_fails("x,y\r\n1,2\n\r3,4,5\r\n", &o, "cannot read 't.csv': line 4: expected 2 "
	           "fields, found 3");
	ds = read_ok("x,y\r1,2\r3,4", &o, &rep);
	assert_int_equal(ds->n, 2);
	fb_dataset_free(ds);
}

/* Quoted fields holding delimiters, doubled quotes and line ends; real line numbers. */
static void test_quotes(void **state)
{
	fb_csv_options o = options();
	fb_dataset *ds;

	(void)state;
	ds = read_ok("\"name, full\",\"v\"\n\"a \"\"q\"\" b\",1\n\"two\nlines\",\"2\"\n", &o, NULL);
	assert_var(ds, 0, "name, full", "a \"q\" b", "two\nlines", NULL);
	assert_var(ds, 1, "v", NULL);
	assert_true(fb_dataset_get(ds, 1, 1) == 2);
	fb_dataset_free(ds);
	read_fails("a,b\n\"x\ny\r\nz\",1\nw,abc\n", &o,
	           "cannot read 't.csv': line 5, column 2: expected a number, found 'abc'");
	read_fails("a,b\n1,\"2\n\n3\n", &o,
	           "cannot read 't.csv': line 2, column 2: unterminated quote");
	read_fails("a,b\n1,2\"3\n", &o,
	           "cannot read 't.csv': line 2, column 2: quote inside an unquoted field");
	read_fails("a,b\n1,\"x\ny\"z\n", &o,
	           "cannot read 't.csv': line 3, column 2: unexpected text after a closing quote");
}

/* Semicolons and tabs are detected from the first line, outside quotes; or given. */
static void test_delimiters(void **state)
{
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_dataset *ds;

	(void)state;
	ds = read_ok("\"a,b\";c;d\n1;2;3\n4;5;6\n", &o, &rep);
	assert_int_equal(rep.delim, ';');
	assert_var(ds, 0, "a,b", NULL);
	assert_int_equal(ds->d, 3);
	fb_dataset_free(ds);
	o.na = FB_NA_DROP;
	ds = read_ok("a\tb\n1\t\n3\t4\n5\t 6\n", &o, &rep);
	assert_int_equal(rep.delim, '\t');
	assert_int_equal(ds->n, 2);
	assert_true(fb_dataset_get(ds, 1, 1) == 6);
	fb_dataset_free(ds);
	o.na = FB_NA_ERROR;
	read_fails("a\tb\n1\t\n3\t4\n", &o, "cannot read 't.csv': line 2, column 2: missing "
	           "value (empty field) for variable 'b'");
	o.delim = ';';
	ds = read_ok("a,b;c\n1,5;2\n3;4\n", &o, &rep);
	assert_int_equal(rep.delim, ';');
	assert_var(ds, 0, "a,b", "1,5", "3", NULL);
	fb_dataset_free(ds);
}

/* Each missing-value marker stops the read by default, naming line, column and variable. */
static void test_missing_error(void **state)
{
	fb_csv_options o = options();

	(void)state;
	read_fails("a,b\n1,2\n3,NA\n", &o,
	           "cannot read 't.csv': line 3, column 2: missing value 'NA' for variable 'b'");
	read_fails("a,b\n1,2\n nan ,4\n", &o,
	           "cannot read 't.csv': line 3, column 1: missing value 'nan' for variable 'a'");
	read_fails("a,b\n1,2\nNaN,4\n", &o,
	           "cannot read 't.csv': line 3, column 1: missing value 'NaN' for variable 'a'");
	read_fails("a,b\n1,?\n", &o,
	           "cannot read 't.csv': line 2, column 2: missing value '?' for variable 'b'");
	read_fails("a,b\n1,2\n,4\n", &o, "cannot read 't.csv': line 3, column 1: missing value "
	           "(empty field) for variable 'a'");
}

/* FB_NA_DROP drops the rows with any missing value, counts and reports them. */
static void test_missing_drop(void **state)
{
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_dataset *ds;

	(void)state;
	o.na = FB_NA_DROP;
	ds = read_ok("a,b,c\n1,2,x\nNA,3,y\n4,?,z\n5,6,\"\"\n7,8,x\n9,10,w\n", &o, &rep);
	assert_int_equal(rep.rows_dropped, 3);
	assert_int_equal(ds->n, 3);
	assert_true(fb_dataset_get(ds, 1, 0) == 7);
	/* labels of dropped rows (y, z) are not levels */
	assert_var(ds, 2, "c", "w", "x", NULL);
	assert_string_equal(warnings.data, "'t.csv': dropped 3 rows with missing values\n");
	fb_dataset_free(ds);
	read_fails("a,b\n1,2\nNA,3\n4,?\n", &o, "cannot read 't.csv': need at least 2 rows, "
	           "found 1 (2 dropped for missing values)");
}

/* Text columns are discrete; levels in byte order, whatever the row order. */
static void test_levels_text(void **state)
{
	fb_csv_options o = options();
	fb_dataset *a, *b;

	(void)state;
	a = read_ok("s,v\nlow,1\nhigh,2\nmid,3\nlow,4\nMid,5\n", &o, NULL);
	b = read_ok("s,v\nMid,5\nmid,3\nlow,4\nhigh,2\nlow,1\n", &o, NULL);
	assert_var(a, 0, "s", "Mid", "high", "low", "mid", NULL);
	assert_var(b, 0, "s", "Mid", "high", "low", "mid", NULL);
	assert_true(fb_dataset_get(a, 0, 0) == 2);
	assert_true(fb_dataset_get(a, 1, 0) == 1);
	assert_true(fb_dataset_get(a, 4, 0) == 0);
	assert_true(fb_dataset_get(b, 1, 0) == 3);
	/* a later number in a text column is a label */
	fb_dataset_free(b);
	b = read_ok("s,v\nx,1\n10,2\n9,3\n", &o, NULL);
	assert_var(b, 0, "s", "10", "9", "x", NULL);
	fb_dataset_free(b);
	fb_dataset_free(a);
}

/* FB_DISCRETE_ALL: every column discrete, labels are the text, numbers in numeric order. */
static void test_discrete_all(void **state)
{
	fb_csv_options o = options();
	fb_dataset *ds;

	(void)state;
	o.discrete = FB_DISCRETE_ALL;
	ds = read_ok("n,s\n10,b\n9,a\n-1.5,b\n1e1,c\n", &o, NULL);
	assert_var(ds, 0, "n", "-1.5", "9", "10", "1e1", NULL);
	assert_var(ds, 1, "s", "a", "b", "c", NULL);
	assert_true(fb_dataset_get(ds, 0, 0) == 2);
	assert_true(fb_dataset_get(ds, 3, 0) == 3);
	assert_true(fb_dataset_get(ds, 2, 1) == 1);
	fb_dataset_free(ds);
}

/* FB_DISCRETE_AUTO: integer columns with few distinct values become discrete. */
static void test_discrete_auto(void **state)
{
	fb_csv_options o = options();
	fb_dataset *ds;

	(void)state;
	o.discrete = FB_DISCRETE_AUTO;
	o.max_levels = 3;
	ds = read_ok("few,many,frac,text\n2,1,1,a\n-1,2,2,b\n2.0,3,3,a\n10,4,3.5,a\n", &o, NULL);
	assert_var(ds, 0, "few", "-1", "2", "10", NULL);
	assert_var(ds, 1, "many", NULL);
	assert_var(ds, 2, "frac", NULL);
	assert_var(ds, 3, "text", "a", "b", NULL);
	assert_true(fb_dataset_get(ds, 0, 0) == 1);
	assert_true(fb_dataset_get(ds, 1, 0) == 0);
	assert_true(fb_dataset_get(ds, 2, 0) == 1);
	assert_true(fb_dataset_get(ds, 3, 0) == 2);
	assert_true(fb_dataset_get(ds, 3, 1) == 4);
	fb_dataset_free(ds);
	/* a huge limit costs nothing up front */
	o.max_levels = SIZE_MAX;
	ds = read_ok("a,b\n1,2\n3,2\n", &o, NULL);
	assert_var(ds, 0, "a", "1", "3", NULL);
	assert_var(ds, 1, "b", "2", NULL);
	fb_dataset_free(ds);
}

/* FB_DISCRETE_LIST: the named columns are discrete; unknown names are an error. */
static void test_discrete_list(void **state)
{
	fb_csv_options o = options();
	fb_dataset *ds;

	(void)state;
	o.discrete = FB_DISCRETE_LIST;
	o.discrete_list = " c , a";
	ds = read_ok("a,b,c\n3,1.5,x\n1,2,y\n20,3,x\n", &o, NULL);
	assert_var(ds, 0, "a", "1", "3", "20", NULL);
	assert_var(ds, 1, "b", NULL);
	assert_var(ds, 2, "c", "x", "y", NULL);
	assert_true(fb_dataset_get(ds, 2, 0) == 2);
	fb_dataset_free(ds);
	o.discrete_list = "a,zz";
	read_fails("a,b\n1,2\n3,4\n", &o,
	           "cannot read 't.csv': unknown variable 'zz' in the discrete list");
	o.discrete_list = "q,a,r";
	read_fails("a,b\n1,2\n3,4\n", &o,
	           "cannot read 't.csv': unknown variables 'q', 'r' in the discrete list");
}

/* A constant column is a warning, not an error. */
static void test_constant(void **state)
{
	fb_csv_options o = options();
	fb_dataset *ds = read_ok("a,b,c\n1,2,k\n1,3,k\n1,4,k\n", &o, NULL);

	(void)state;
	assert_string_equal(warnings.data, "'t.csv': variable 'a' is constant\n"
	                                   "'t.csv': variable 'c' is constant\n");
	fb_dataset_free(ds);
}

/* Every structural error, with its exact message. */
static void test_errors(void **state)
{
	fb_csv_options o = options();

	(void)state;
	read_fails("a,b\n1,2\n3,4,5\n", &o, "cannot read 't.csv': line 3: expected 2 fields, "
	           "found 3");
	read_fails("a,b,c\n1,2,3\n4,5\n", &o, "cannot read 't.csv': line 3: expected 3 fields, "
	           "found 2");
	read_fails("a,b\n1,2\n3,x4\n", &o, "cannot read 't.csv': line 3, column 2: expected a "
	           "number, found 'x4'");
	read_fails("a,b\n1,2\n3,0x10\n", &o, "cannot read 't.csv': line 3, column 2: expected a "
	           "number, found '0x10'");
	read_fails("a,b\n1,2\n3,inf\n", &o, "cannot read 't.csv': line 3, column 2: expected a "
	           "number, found 'inf'");
	read_fails("x,y,x\n1,2,3\n4,5,6\n", &o, "cannot read 't.csv': line 1: duplicate "
	           "variable name 'x' in columns 1 and 3");
	read_fails("x,\" \",z\n1,2,3\n4,5,6\n", &o, "cannot read 't.csv': line 1, column 2: "
	           "empty variable name");
	read_fails("a,b\n1,2\n", &o, "cannot read 't.csv': need at least 2 rows, found 1");
	read_fails("a,b\n", &o, "cannot read 't.csv': need at least 2 rows, found 0");
	read_fails("", &o, "cannot read 't.csv': need at least 2 rows, found 0");
	read_fails("a\n1\n2\n", &o, "cannot read 't.csv': need at least 2 columns, found 1");
	read_fails("a,b\n1,\"2\n", &o, "cannot read 't.csv': line 2, column 2: unterminated "
	           "quote");
}

/* Errors of fb_csv_read itself: missing file, a folder, a NUL byte in a label. */
static void test_file_errors(void **state)
{
	fb_csv_options o = options();
	fb_error err = { { 0 } };
	char want[512];
	const char *path;

	(void)state;
	assert_null(fb_csv_read("/nonexistent/fedbn.csv", &o, NULL, &err));
	assert_string_equal(err.msg,
	                    "cannot read '/nonexistent/fedbn.csv': no such file or directory");
	assert_null(fb_csv_read(tmpdir, &o, NULL, &err));
	snprintf(want, sizeof want, "cannot read '%s': is a directory", tmpdir);
	assert_string_equal(err.msg, want);
	path = tmp_file(0, "nul.csv", "s,t\na,1\nb\0c,2\n", 14);
	assert_null(fb_csv_read(path, &o, NULL, &err));
	snprintf(want, sizeof want, "cannot read '%s': line 3, column 1: unexpected NUL byte",
	         path);
	assert_string_equal(err.msg, want);
	unlink(path);
	/* an empty file: one sentence (and, under clang's UBSan, no arithmetic on NULL) */
	path = tmp_file(0, "empty.csv", "", 0);
	assert_null(fb_csv_read(path, &o, NULL, &err));
	snprintf(want, sizeof want, "cannot read '%s': need at least 2 rows, found 0", path);
	assert_string_equal(err.msg, want);
	unlink(path);
}

/* Print x in one of nine forms. */
static void format_number(char *out, size_t size, int form, double x)
{
	switch (form) {
	case 0: snprintf(out, size, "%.17g", x); break;
	case 1: snprintf(out, size, "%.15g", x); break;
	case 2: snprintf(out, size, "%.9g", x); break;
	case 3: snprintf(out, size, "%.6f", x); break;
	case 4: snprintf(out, size, "%.3e", x); break;
	case 5: snprintf(out, size, "%.1f", x); break;
	case 6: snprintf(out, size, "%.20e", x); break;
	case 7: snprintf(out, size, "%.18g", x); break;
	default: snprintf(out, size, "%.0f", x); break;
	}
}

/* Random decimal strings against strtod, bit for bit: 1 to 19 digits (the most the
 * parser keeps) with the point anywhere and exponents from -80 to 80 (past the 128-bit
 * powers of ten on both sides), the bench's 17-digit fixed-point values, and the extremes of
 * the mantissa (10^19 - 1, 2^53 + 1, 2^64 - 1 as 20 digits). */
static void number_parse_decimals(uint64_t *s)
{
	static const char *const edges[] = { "9999999999999999999", "9007199254740993",
	                                     "18446744073709551615", "1e-64", "1e64",
	                                     "9999999999999999999e-64", "4.9406564584124654e-324",
	                                     "2.2250738585072011e-308", "1.7976931348623157e308",
	                                     "0.000000000000000000000000000000000000001" };
	char text[64];
	double v;

	for (int k = 0; k < 1000000; k++) {
		int nd, point, len = 0, e;

		*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
		nd = 1 + (int)(*s >> 40) % 19;
		point = (int)(*s >> 20) % (nd + 1);
		e = (int)(*s >> 50) % 161 - 80;
		if (*s & 1)
			text[len++] = '-';
		for (int i = 0; i < nd; i++) {
			*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
			if (i == point && k % 2)
				text[len++] = '.';
			text[len++] = (char)('0' + (int)(*s >> 33) % 10);
		}
		if (k % 4 == 3)
			snprintf(text + len, sizeof text - (size_t)len, "e%d", e);
		else
			text[len] = '\0';
		assert_true(fb_csv_number_parse(text, strlen(text), &v));
		if (memcmp(&v, &(double){ strtod(text, NULL) }, sizeof v) != 0)
			fail_msg("'%s' parsed as %.17g", text, v);
	}
	for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
		assert_true(fb_csv_number_parse(edges[k], strlen(edges[k]), &v));
		if (memcmp(&v, &(double){ strtod(edges[k], NULL) }, sizeof v) != 0)
			fail_msg("'%s' parsed as %.17g", edges[k], v);
	}
}

/* The number parser agrees bit for bit with strtod on many forms of many values. */
static void test_number_parse(void **state)
{
	static const char *const bad[] = { "", "-", "+", ".", "1e", "1e+", "e3", "1.2.3", "--1",
	                                   "1 2", "0x1p3", "inf", "nan", "1e999", "1,5", "1d" };
	uint64_t s = 12345;
	char text[512];
	double v;

	(void)state;
	for (int k = 0; k < 200000; k++) {
		double x;

		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		memcpy(&x, &s, sizeof x);
		if (!isfinite(x))
			continue;
		if (k % 2)
			x = ldexp((double)(s >> 11) / 9007199254740992.0, (int)(s % 80) - 40);
		format_number(text, sizeof text, k % 9, k % 3 ? x : -x);
		assert_true(fb_csv_number_parse(text, strlen(text), &v));
		assert_true(memcmp(&v, &(double){ strtod(text, NULL) }, sizeof v) == 0);
	}
	/* full precision in the range of everyday data, the form fb_csv_write_dataset uses */
	for (int k = 0; k < 1000000; k++) {
		double x;

		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		x = ldexp((double)(s >> 11), (int)(s % 128) - 100);
		snprintf(text, sizeof text, k % 2 ? "%.17g" : "%.16g", x);
		assert_true(fb_csv_number_parse(text, strlen(text), &v));
		if (memcmp(&v, &(double){ strtod(text, NULL) }, sizeof v) != 0)
			fail_msg("'%s' parsed as %.17g", text, v);
	}
	/* halfway points between two large doubles (and their neighbours), written so that
	 * the parser must divide by a power of ten: the ties must go to even */
	for (int k = 0; k < 20000; k++) {
		uint64_t x, half;

		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		x = (s >> 5 >> s % 6) | (UINT64_C(1) << 53);
		half = (uint64_t)ldexp(1, (int)floor(log2((double)x)) - 53);
		x = x / (2 * half) * (2 * half) + half + (uint64_t)(k % 3) - 1;
		snprintf(text, sizeof text, "%" PRIu64 "0e-1", x);
		assert_true(fb_csv_number_parse(text, strlen(text), &v));
		if (memcmp(&v, &(double){ strtod(text, NULL) }, sizeof v) != 0)
			fail_msg("'%s' parsed as %.17g", text, v);
	}
	number_parse_decimals(&s);
	assert_true(fb_csv_number_parse("-0", 2, &v) && v == 0 && signbit(v));
	assert_true(fb_csv_number_parse("+.5e-3", 6, &v) && v == 0.0005);
	assert_true(fb_csv_number_parse("12345678901234567890123", 23, &v) &&
	            v == 12345678901234567890123.0);
	assert_true(fb_csv_number_parse("1e-400", 6, &v) && v == 0);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
		assert_false(fb_csv_number_parse(bad[k], strlen(bad[k]), &v));
}

/* Fill a dataset with awkward doubles and a discrete column with awkward labels. */
static fb_dataset *awkward_dataset(void)
{
	static const double specials[] = { 0.1, 1.0 / 3, -0.0, 5e-324, 2.2250738585072014e-308,
	                                   1.7976931348623157e308, -123456789.125, 1e22, 1e23 };
	/* in the order the reader gives them: bytes, after trimming */
	static const char *const labels[] = { "a,b", " padded ", "say \"hi\"", "semi;colon",
	                                      "two\nlines", "z" };
	size_t n = 40, ns = sizeof specials / sizeof specials[0];
	fb_dataset *ds = fb_dataset_alloc(n, 3);
	uint64_t s = 99;

	assert_non_null(ds);
	assert_int_equal(fb_dataset_set_name(ds, 1, "name, with comma", NULL), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 2, (char *const *)labels, 6, NULL), FB_OK);
	for (size_t i = 0; i < n; i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		ds->x[i * 3] = i < ns ? specials[i] : ldexp((double)(s >> 11), -(int)(s % 60));
		ds->x[i * 3 + 1] = (double)(s >> 40) / 7.0 - 1e5;
		ds->x[i * 3 + 2] = (double)(i % 6);
	}
	return ds;
}

/* A dataset written and read back is the same, bit for bit. */
static void test_roundtrip_dataset(void **state)
{
	fb_csv_options o = options();
	fb_error err = { { 0 } };
	fb_dataset *ds = awkward_dataset(), *back;
	const char *path = tmp_path(0, "round.csv");

	(void)state;
	assert_int_equal(fb_csv_write_dataset(ds, path, &err), FB_OK);
	back = fb_csv_read(path, &o, NULL, &err);
	if (back == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(back->n, ds->n);
	assert_int_equal(back->d, ds->d);
	assert_string_equal(back->vars[1].name, "name, with comma");
	assert_int_equal(back->vars[2].nlevels, 6);
	for (size_t k = 0; k < 6; k++) {
		const char *want = ds->vars[2].levels[k];

		/* the reader trims labels, so padding does not survive */
		assert_string_equal(back->vars[2].levels[k], k == 1 ? "padded" : want);
	}
	assert_memory_equal(back->x, ds->x, ds->n * ds->d * sizeof *ds->x);
	assert_int_equal(tmp_count(), 1);
	unlink(path);
	fb_dataset_free(back);
	fb_dataset_free(ds);
}

/* Failed writes leave nothing: no folder, or a bad level code half-way. */
static void test_atomic_write(void **state)
{
	fb_error err = { { 0 } };
	fb_dataset *ds = awkward_dataset();
	const char *path = tmp_path(0, "keep.csv");
	fb_graph *g = fb_graph_alloc(2);
	FILE *fp;
	char text[16] = "", want[512];

	(void)state;
	assert_int_equal(fb_csv_write_dataset(ds, "/nonexistent-dir/x.csv", &err), FB_ERR);
	assert_non_null(strstr(err.msg, "cannot write '/nonexistent-dir/x.csv': "));
	tmp_file(0, "keep.csv", "old\n", 4);
	ds->x[30 * 3 + 2] = 17;
	assert_int_equal(fb_csv_write_dataset(ds, path, &err), FB_ERR);
	snprintf(want, sizeof want, "cannot write '%s': row 31, variable 'X3': 17 is not a "
	         "level code (6 levels)", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(tmp_count(), 1);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(text, sizeof text, fp));
	fclose(fp);
	assert_string_equal(text, "old\n");
	assert_int_equal(fb_graph_write_edges(g, "/nonexistent-dir/g.csv", &err), FB_ERR);
	assert_int_equal(fb_graph_write_matrix(g, "/nonexistent-dir/g.csv", &err), FB_ERR);
	assert_int_equal(tmp_count(), 1);
	fb_graph_free(g);
	unlink(path);
	fb_dataset_free(ds);
}

/* A graph with directed, undirected and weighted edges on four named nodes. */
static fb_graph *sample_graph(bool weighted, bool undirected)
{
	static const char *const names[] = { "A", "B b", "C,c", "D" };
	fb_graph *g = fb_graph_alloc(4);

	for (size_t i = 0; i < 4; i++)
		assert_int_equal(fb_graph_set_name(g, i, names[i], NULL), FB_OK);
	fb_graph_set_directed(g, 0, 1, weighted ? 0.1 : 1);
	fb_graph_set_directed(g, 3, 2, weighted ? -2.5 : 1);
	fb_graph_set_directed(g, 1, 3, weighted ? 1.0 / 3 : 1);
	if (undirected)
		fb_graph_set_undirected(g, 0, 2);
	g->weighted = weighted;
	return g;
}

/* Two graphs have the same edges, marks and (when weighted) weights. */
static void assert_same_graph(const fb_graph *a, const fb_graph *b)
{
	assert_true(fb_graph_same_nodes(a, b));
	assert_int_equal(a->weighted, b->weighted);
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = 0; j < a->d; j++) {
			assert_int_equal(fb_graph_edge(a, i, j), fb_graph_edge(b, i, j));
			if (a->weighted && fb_graph_edge(a, i, j) == FB_EDGE_FORWARD)
				assert_true(a->w[i * a->d + j] == b->w[i * b->d + j]);
		}
}

/* Graphs written as edge lists and as matrices read back the same. */
static void test_roundtrip_graph(void **state)
{
	const char *path = tmp_path(0, "g.csv");
	fb_error err = { { 0 } };

	(void)state;
	for (int k = 0; k < 8; k++) {
		fb_graph *g = sample_graph(k & 1, k & 2), *back;

		if (k & 4)
			assert_int_equal(fb_graph_write_matrix(g, path, &err), FB_OK);
		else
			assert_int_equal(fb_graph_write_edges(g, path, &err), FB_OK);
		back = fb_graph_read_csv(path, g->names, g->d, &err);
		if (back == NULL)
			fail_msg("%s", err.msg);
		assert_same_graph(g, back);
		fb_graph_free(back);
		fb_graph_free(g);
	}
	unlink(path);
}

/* The exact text of an edge list with undirected edges, and of a matrix. */
static void test_graph_text(void **state)
{
	const char *path = tmp_path(0, "g.csv");
	fb_graph *g = sample_graph(false, true);
	fb_error err = { { 0 } };
	char text[256] = "";
	FILE *fp;

	(void)state;
	assert_int_equal(fb_graph_write_edges(g, path, &err), FB_OK);
	fp = fopen(path, "r");
	assert_int_equal(fread(text, 1, sizeof text - 1, fp) > 0, 1);
	fclose(fp);
	assert_string_equal(text, "from,to,type\nA,B b,->\nA,\"C,c\",--\nB b,D,->\nD,\"C,c\",->\n");
	memset(text, 0, sizeof text);
	assert_int_equal(fb_graph_write_matrix(g, path, &err), FB_OK);
	fp = fopen(path, "r");
	assert_int_equal(fread(text, 1, sizeof text - 1, fp) > 0, 1);
	fclose(fp);
	assert_string_equal(text, "A,B b,\"C,c\",D\n0,1,1,0\n0,0,0,1\n1,0,0,0\n0,0,1,0\n");
	unlink(path);
	fb_graph_free(g);
}

/* Read graph text over nodes A, B, C and expect msg ("" for success, then edges checked). */
static fb_graph *graph_from(const char *text, const char *msg)
{
	static const char *const names[] = { "A", "B", "C" };
	const char *path = tmp_file(0, "in.csv", text, strlen(text));
	fb_error err = { { 0 } };
	fb_graph *g = fb_graph_read_csv(path, (char *const *)names, 3, &err);
	char want[512];

	if (*msg == '\0') {
		if (g == NULL)
			fail_msg("%s", err.msg);
		return g;
	}
	assert_null(g);
	snprintf(want, sizeof want, "cannot read '%s': %s", path, msg);
	assert_string_equal(err.msg, want);
	return NULL;
}

/* The forms the graph reader accepts: edge lists and matrices with or without names. */
static void test_graph_forms(void **state)
{
	fb_graph *g;

	(void)state;
	g = graph_from("From,To\nA,B\n\nC,B\n", "");
	assert_false(g->weighted);
	assert_int_equal(fb_graph_n_edges(g), 2);
	assert_true(fb_graph_has_arc(g, 2, 1));
	fb_graph_free(g);
	g = graph_from("weight;to;from\n0.5;B;A\n", "");
	assert_true(g->weighted);
	assert_true(fb_graph_has_arc(g, 0, 1) && g->w[1] == 0.5);
	fb_graph_free(g);
	g = graph_from("from,to\n", "");
	assert_int_equal(fb_graph_n_edges(g), 0);
	fb_graph_free(g);
	g = graph_from("0,1,0\n0,0,2\n0,1,0\n", "");
	assert_true(g->weighted);
	assert_int_equal(fb_graph_edge(g, 1, 2), FB_EDGE_UNDIRECTED);
	assert_true(fb_graph_has_arc(g, 0, 1));
	fb_graph_free(g);
	g = graph_from(",A,B,C\nA,0,1,0\nB,0,0,0\nC,1,0,0\n", "");
	assert_false(g->weighted);
	assert_true(fb_graph_has_arc(g, 0, 1) && fb_graph_has_arc(g, 2, 0));
	assert_int_equal(fb_graph_n_edges(g), 2);
	fb_graph_free(g);
	g = graph_from("A,0,0,1\nB,0,0,0\nC,0,0,0\n", "");
	assert_true(fb_graph_has_arc(g, 0, 2));
	fb_graph_free(g);
}

/* Every graph reading error, with its exact message. */
static void test_graph_errors(void **state)
{
	(void)state;
	graph_from("from,to\nA,B\nA,Q\n", "line 3, column 2: unknown node 'Q'");
	graph_from("from,to,weight\nA,B,x\n", "line 2, column 3: expected a number, found 'x'");
	graph_from("from,to,kind\nA,B,x\n", "line 1, column 3: unexpected column 'kind' in an "
	           "edge list (expected from, to, weight, type)");
	graph_from("from,to,type\nA,B,<-\n", "line 2, column 3: unknown edge type '<-' "
	           "(expected -> or --)");
	graph_from("from,to\nA,B,C\n", "line 2: expected 2 fields, found 3");
	graph_from("from,to\n\"B\",B\n", "line 2: self-loop on 'B'");
	graph_from("from,to\nA,B\nC,B\nB,A\n", "line 4: the pair 'B', 'A' is already an edge "
	           "on line 2; list each pair once (type -- for an undirected edge)");
	graph_from("from,to,type\nA,B,--\nA,B,->\n", "line 3: the pair 'A', 'B' is already an "
	           "edge on line 2; list each pair once (type -- for an undirected edge)");
	graph_from("A,C,B\n0,0,0\n0,0,0\n0,0,0\n", "line 1, column 2: expected node 'B', found "
	           "'C' (the nodes must be in the data's order)");
	graph_from("A,B,Z\n0,0,0\n0,0,0\n0,0,0\n", "line 1, column 3: unknown node 'Z'");
	graph_from("0,0,0\n0,0\n0,0,0\n", "line 2: expected 3 fields, found 2");
	graph_from("0,0,0\n0,0,0\n", "expected 3 rows in the adjacency matrix, found 2");
	graph_from("0,0,0\n0,0,0\n0,0,0\n0,0,0\n", "line 4: more than 3 rows in the adjacency "
	           "matrix");
	graph_from("0,0,0\n0,1,0\n0,0,0\n", "line 2, column 2: self-loop on 'B'");
	graph_from("0,0,0\n0,y,0\n0,0,0\n", "line 2, column 2: expected a number, found 'y'");
	graph_from("A,0,0,0\nC,0,0,0\nC,0,0,0\n", "line 2, column 1: expected node 'B', found "
	           "'C' (the nodes must be in the data's order)");
	graph_from("", "the file is empty");
	graph_from("from,to\n\"A,B\n", "line 2, column 1: unterminated quote");
}

/* Streaming from a file gives what the buffer reader gives: quoted fields across chunk
 * boundaries, and a first line longer than a chunk (its delimiter still detected). */
static void test_stream_chunks(void **state)
{
	fb_csv_options o = options();
	fb_buf text = { 0 };
	fb_error err = { { 0 } };
	fb_csv_report rep;
	fb_dataset *a, *b;
	const char *path;

	(void)state;
	for (size_t j = 0; j < 12000; j++)
		fb_buf_printf(&text, "%svariable_%zu", j ? ";" : "", j);
	fb_buf_append(&text, "\n", 1);
	for (size_t i = 0; i < 12; i++) {
		for (size_t j = 0; j < 12000; j++)
			fb_buf_printf(&text, j ? ";%zu" : "\"%zu\n\"", (i * 7 + j) % 13);
		fb_buf_append(&text, "\n", 1);
	}
	path = tmp_file(0, "wide.csv", text.data, text.len);
	a = fb_csv_read(path, &o, &rep, &err);
	if (a == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(rep.delim, ';');
	b = read_ok(text.data, &o, NULL);
	assert_int_equal(a->n, 12);
	assert_int_equal(a->d, 12000);
	assert_memory_equal(a->x, b->x, a->n * a->d * sizeof *a->x);
	assert_string_equal(a->vars[11999].name, "variable_11999");
	fb_buf_printf(&text, "1;2\n");
	tmp_file(0, "wide.csv", text.data, text.len);
	fb_dataset_free(fb_csv_read(path, &o, &rep, &err));
	assert_non_null(strstr(err.msg, ": line 26: expected 12000 fields, found 2"));
	unlink(path);
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_buf_release(&text);
}

/* A named pipe is read once, by the general reader: the fast one, which needs a regular
 * file, must not open it first (it used to, taking the writer's end and then waiting for
 * a second writer that never came; the alarm turns such a hang into a failure). */
static void test_fifo(void **state)
{
	const char *path = tmp_path(0, "pipe.csv");
	fb_error err = { { 0 } };
	fb_dataset *ds;
	pid_t pid;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *fp = fopen(path, "w");

		_exit(fp != NULL && fputs("a,b\n1,2\n3,4\n", fp) >= 0 && fclose(fp) == 0 ? 0 : 1);
	}
	alarm(20);
	ds = fb_csv_read(path, NULL, NULL, &err);
	alarm(0);
	waitpid(pid, NULL, 0);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(ds->n, 2);
	fb_dataset_free(ds);
	unlink(path);
}

/* fb_cancel callback: counts its calls in ctx[0] and says stop from call ctx[1] on (0:
 * never). */
static bool cancel_after(void *ctx)
{
	size_t *c = ctx;

	return ++c[0] >= c[1] && c[1] != 0;
}

/* A read that is asked to stop fails with the cancel message and builds nothing; one never
 * asked reads the same data as without a cancel: both for a plain numeric file (the fast
 * reader, several blocks of it) and for one with a quoted field (the general reader). */
static void test_cancel(void **state)
{
	static const char *const heads[2] = { "a,b,c\n", "\"a\",b,c\n" };
	fb_buf text = { 0 };
	fb_csv_options o;

	(void)state;
	for (int k = 0; k < 2; k++) {
		size_t count[2] = { 0, 0 };
		fb_error err = { { 0 } };
		fb_dataset *plain, *ds;
		const char *path;

		text.len = 0;
		fb_buf_append(&text, heads[k], strlen(heads[k]));
		for (size_t i = 0; i < 200000; i++)
			fb_buf_printf(&text, "%zu.25,%zu,-%zu.5\n", i, i % 7, i % 13);
		path = tmp_file(0, "cancel.csv", text.data, text.len);
		plain = fb_csv_read(path, NULL, NULL, &err);
		assert_non_null(plain);
		fb_csv_options_init(&o);
		o.cancel = (fb_cancel){ cancel_after, count };
		ds = fb_csv_read(path, &o, NULL, &err);
		if (ds == NULL)
			fail_msg("%s", err.msg);
		assert_same_dataset(plain, ds);
		assert_true(count[0] >= 2);
		fb_dataset_free(ds);
		count[0] = 0;
		count[1] = 2;
		assert_null(fb_csv_read(path, &o, NULL, &err));
		assert_non_null(strstr(err.msg, FB_CANCELLED_MSG));
		fb_dataset_free(plain);
		unlink(path);
	}
	fb_buf_release(&text);
}

/* Next value of a 64-bit linear congruential generator (high bits). */
static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 20;
}

/* A numeric file as full-precision writers make it: 17 significant digits, exponents,
 * integers, a negative zero, numbers longer than 19 digits, ends given by eol. */
static void numeric_text(fb_buf *t, size_t rows, const char *eol, uint64_t seed)
{
	fb_buf_printf(t, "a,b,c,d,e,f%s", eol);
	for (size_t i = 0; i < rows; i++) {
		double v = (double)(int64_t)lcg(&seed) / 1e11 - 20000;

		fb_buf_printf(t, "%.17g,%.17g,%d,%.16e,", v, v * 1e-7, (int)(lcg(&seed) % 3),
		              (double)lcg(&seed) * 1e200);
		if (i % 97 == 5)
			fb_buf_printf(t, "-0,");
		else
			fb_buf_printf(t, "%.3f,", (double)(lcg(&seed) % 100000) / 1000);
		if (i % 31 == 0)
			fb_buf_printf(t, "0.12345678901234567890123%s", eol);
		else
			fb_buf_printf(t, "%.17g%s", (double)lcg(&seed) / 3.0, eol);
	}
}

/* The fast reader of plain numeric files gives what the general one gives, bit for bit and
 * correctly rounded, for any thread count; so does it when it gives up late in a file. */
static void test_fast_reader(void **state)
{
	static const char *const eols[] = { "\n", "\r\n" };
	fb_csv_options o = options();
	fb_csv_report rep;
	fb_buf t = { 0 };
	fb_dataset *ds;

	(void)state;
	o.discrete = FB_DISCRETE_AUTO;
	for (size_t e = 0; e < 2; e++) {
		t.len = 0;
		numeric_text(&t, 3000, eols[e], 11 + e);
		ds = read_ok(t.data, &o, &rep);
		assert_int_equal(ds->n, 3000);
		assert_int_equal(ds->vars[2].kind, FB_DISCRETE);
		assert_int_equal(ds->vars[0].kind, FB_CONTINUOUS);
		/* every value is strtod's: check a whole row near the end */
		{
			const char *line = t.data;
			char *end;

			for (size_t i = 0; i < 2999; i++)
				line = strchr(line, '\n') + 1;
			line = strchr(line, '\n') + 1;
			assert_true(fb_dataset_get(ds, 2999, 0) == strtod(line, &end));
			assert_true(fb_dataset_get(ds, 2999, 1) == strtod(end + 1, &end));
		}
		fb_dataset_free(ds);
	}
	/* no line end at the end, blank lines inside and after */
	t.len = 0;
	numeric_text(&t, 500, "\n", 5);
	fb_buf_printf(&t, "\n\n1,2,0,3,4,5\n\n\n6,7,1,8,9,10");
	fb_dataset_free(read_ok(t.data, &o, NULL));
	/* a quoted number in the last row: the general reader takes over */
	t.len = 0;
	numeric_text(&t, 500, "\n", 6);
	fb_buf_printf(&t, "1,2,0,3,4,\"5\"\n");
	fb_dataset_free(read_ok(t.data, &o, NULL));
	/* a bad field in the last row: the general reader's message */
	t.len = 0;
	numeric_text(&t, 500, "\n", 7);
	fb_buf_printf(&t, "1,2,0,3,4,x5\n");
	read_fails(t.data, &o, "cannot read 't.csv': line 502, column 6: expected a number, "
	           "found 'x5'");
	fb_buf_release(&t);
}

/* A header of 100,000 names loads (each name checked against the others once, by hash),
 * and a repeated name far from its first use is still found. */
static void test_wide_header(void **state)
{
	fb_csv_options o = options();
	fb_buf t = { 0 };
	fb_dataset *ds;
	size_t d = 100000;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		t.len = 0;
		for (size_t j = 0; j < d; j++)
			fb_buf_printf(&t, "%sv%zu", j ? "," : "", pass == 1 && j == d - 1 ? 7 : j);
		for (size_t i = 0; i < 2; i++)
			for (size_t j = 0; j < d; j++)
				fb_buf_printf(&t, "%c%zu", j ? ',' : '\n', (i + j) % 5);
		if (pass == 1) {
			read_fails(t.data, &o, "cannot read 't.csv': line 1: duplicate variable "
			           "name 'v7' in columns 8 and 100000");
			continue;
		}
		ds = read_ok(t.data, &o, NULL);
		assert_int_equal(ds->d, d);
		assert_string_equal(ds->vars[d - 1].name, "v99999");
		fb_dataset_free(ds);
	}
	fb_buf_release(&t);
}

/* In a child: reset the resident high-water mark (which getrusage then reports from the
 * current size up), read path, and send how far the peak rose (bytes) through fd. */
static void child_peak(const char *path, int fd)
{
	FILE *clear = fopen("/proc/self/clear_refs", "w");
	fb_error err = { { 0 } };
	struct rusage before, after;
	long grew = -1;

	if (clear != NULL && fputs("5", clear) >= 0 && fclose(clear) == 0) {
		getrusage(RUSAGE_SELF, &before);
		fb_dataset_free(fb_csv_read(path, NULL, NULL, &err));
		getrusage(RUSAGE_SELF, &after);
		grew = (after.ru_maxrss - before.ru_maxrss) * 1024;
	}
	_exit(write(fd, &grew, sizeof grew) == (ssize_t)sizeof grew ? 0 : 1);
}

/* Peak memory a read of path adds, in bytes (measured in a child process); -1 when it cannot
 * be measured. */
static long read_peak(const char *path)
{
	int fds[2], status;
	long got = -1;
	pid_t pid;

	if (pipe(fds) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		child_peak(path, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &got, sizeof got) != (ssize_t)sizeof got)
		got = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return got;
}

/* A file of one 10 MB line costs about its own size to refuse, not a column state per field
 * (it used to peak at 80 times its size). */
static void test_one_line_memory(void **state)
{
	size_t fields = 5000000;
	char *text = malloc(2 * fields);
	const char *path;
	fb_error err = { { 0 } };
	long peak;

	(void)state;
	for (size_t j = 0; j < fields; j++) {
		text[2 * j] = (char)('0' + j % 10);
		text[2 * j + 1] = j + 1 < fields ? ',' : '\n';
	}
	path = tmp_file(0, "line.csv", text, 2 * fields);
	assert_null(fb_csv_read(path, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, ": need at least 2 rows, found 1"));
#if defined(__SANITIZE_ADDRESS__)
	printf("memory not measured under AddressSanitizer\n");
#else
	peak = read_peak(path);
	if (peak < 0)
		printf("memory not measured: /proc/self/clear_refs is not writable\n");
	else if (peak >= 4 * (long)(2 * fields))
		fail_msg("a 10 MB line peaked at %ld bytes", peak);
#endif
	(void)peak;
	unlink(path);
	free(text);
}

/* One 8 MB field, in a file of one line and quoted in a buffer, is read in time linear in its
 * length: the tokeniser's field buffer grew by 128 bytes at a time, a copy of the field each
 * time realloc moved it (always under AddressSanitizer: 335 s for 10 MB).  The alarm turns a
 * read that slow into a failure. */
static void test_long_field(void **state)
{
	size_t len = 8 << 20;
	char *text = malloc(len + 16);
	fb_error err = { { 0 } };
	fb_dataset *ds;
	const char *path;

	(void)state;
	assert_non_null(text);
	memset(text, 'a', len + 16);
	memcpy(text + len, ",b\n", 3);
	path = tmp_file(0, "field.csv", text, len + 3);
	alarm(60);
	assert_null(fb_csv_read(path, NULL, NULL, &err));
	assert_non_null(strstr(err.msg, ": need at least 2 rows, found 0"));
	text[0] = '"';
	memcpy(text + len, "\",b\n1,2\n3,4\n", 12);
	ds = fb_csv_read_buffer(text, len + 12, "field", NULL, NULL, &err);
	alarm(0);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(ds->n, 2);
	assert_int_equal(strlen(ds->vars[0].name), len - 1);
	fb_dataset_free(ds);
	unlink(path);
	free(text);
}

/* The shared Sachs data and its 17-arc truth load (skipped without the shared data). */
static void test_shared_sachs(void **state)
{
	const char *top = getenv("top_srcdir");
	char data[512], truth[512];
	fb_csv_options o = options();
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *g;
	char **names;

	(void)state;
	snprintf(data, sizeof data, "%s/../shared/data/sachs.csv", top ? top : ".");
	snprintf(truth, sizeof truth, "%s/../shared/data/sachs_truth.csv", top ? top : ".");
	if (access(data, R_OK) != 0 || access(truth, R_OK) != 0) {
		printf("skipped: %s is absent\n", data);
		skip();
	}
	ds = fb_csv_read(data, &o, NULL, &err);
	if (ds == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(ds->n, 853);
	assert_int_equal(ds->d, 11);
	assert_var(ds, 0, "Raf", NULL);
	assert_var(ds, 10, "Jnk", NULL);
	names = calloc(ds->d, sizeof *names);
	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	g = fb_graph_read_csv(truth, names, ds->d, &err);
	if (g == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(fb_graph_n_directed(g), 17);
	assert_true(fb_graph_is_dag(g));
	fb_graph_free(g);
	free(names);
	fb_dataset_free(ds);
}

/* One field: quoted by the reader's rule (empty, blank at an end, a delimiter, quote or line
 * end), or by a caller's set of bytes; inner quotes doubled either way. */
static void test_put_field(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	fb_csv_put_field(fp, "a b");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field(fp, "");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field(fp, " x;");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field(fp, "say \"hi\"");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field_if(fp, "a b", ",\" ");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field_if(fp, "", ",\" ");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field_if(fp, "x;y", ",\" ");
	fb_csv_put_field(fp, "|");
	fb_csv_put_field_if(fp, "q\"", ",\" ");
	fclose(fp);
	assert_string_equal(text, "a b|\"\"|\" x;\"|\"say \"\"hi\"\"\"|\"a b\"||x;y|\"q\"\"\"");
	free(text);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_bom_crlf_blank),
		cmocka_unit_test(test_quotes),
		cmocka_unit_test(test_delimiters),
		cmocka_unit_test(test_missing_error),
		cmocka_unit_test(test_missing_drop),
		cmocka_unit_test(test_levels_text),
		cmocka_unit_test(test_discrete_all),
		cmocka_unit_test(test_discrete_auto),
		cmocka_unit_test(test_discrete_list),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_number_parse),
		cmocka_unit_test(test_roundtrip_dataset),
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_roundtrip_graph),
		cmocka_unit_test(test_graph_text),
		cmocka_unit_test(test_graph_forms),
		cmocka_unit_test(test_graph_errors),
		cmocka_unit_test(test_stream_chunks),
		cmocka_unit_test(test_fast_reader),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_wide_header),
		cmocka_unit_test(test_one_line_memory),
		cmocka_unit_test(test_long_field),
		cmocka_unit_test(test_shared_sachs),
		cmocka_unit_test(test_put_field),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
