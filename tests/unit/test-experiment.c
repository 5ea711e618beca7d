/* Tests of grids, ${NAME} substitution, summaries (against hand computations), text tables,
 * the shortest number format, and a sweep's rows and their resumption. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "fedbn/experiment.h"
#include "fedbn/table.h"

/* Build a grid from words; asserts each is accepted. */
static void grid_of(fb_grid *g, const char *const *words)
{
	fb_error err = { { 0 } };

	memset(g, 0, sizeof *g);
	for (size_t i = 0; words[i] != NULL; i++)
		assert_int_equal(fb_grid_add(g, words[i], &err), FB_OK);
}

/* Cells are every combination, the first variable slowest; ranges expand in full. */
static void test_grid_cells(void **state)
{
	static const char *const words[] = { "K=2,4,8", "seed=1..3", "algo=a,b:c", NULL };
	fb_grid g;

	(void)state;
	grid_of(&g, words);
	assert_int_equal(fb_grid_cells(&g), 18);
	assert_string_equal(fb_grid_value(&g, 0, 0), "2");
	assert_string_equal(fb_grid_value(&g, 0, 2), "a");
	assert_string_equal(fb_grid_value(&g, 1, 2), "b:c");
	assert_string_equal(fb_grid_value(&g, 2, 1), "2");
	assert_string_equal(fb_grid_value(&g, 17, 0), "8");
	assert_string_equal(fb_grid_value(&g, 17, 1), "3");
	assert_string_equal(fb_grid_value(&g, 6, 0), "4");
	assert_string_equal(fb_grid_value(&g, 6, 1), "1");
	assert_int_equal(fb_grid_find(&g, "seed"), 1);
	assert_int_equal(fb_grid_find(&g, "Seed"), -1);
	fb_grid_release(&g);
}

/* Check that word is refused with a message containing want. */
static void check_refused(fb_grid *g, const char *word, const char *want)
{
	fb_error err = { { 0 } };
	size_t before = g->nvars;

	assert_int_equal(fb_grid_add(g, word, &err), FB_ERR);
	if (strstr(err.msg, want) == NULL)
		fail_msg("'%s': got '%s', wanted '%s'", word, err.msg, want);
	assert_int_equal(g->nvars, before);
}

/* Bad grids get one sentence naming the word and the fault. */
static void test_grid_refused(void **state)
{
	static const char *const words[] = { "K=2", NULL };
	fb_grid g;

	(void)state;
	grid_of(&g, words);
	check_refused(&g, "x=", "'x=' has no values");
	check_refused(&g, "seed=5..1", "runs backwards (write 1..5)");
	check_refused(&g, "y=1,,2", "empty value");
	check_refused(&g, "K=3", "'K' is given twice");
	check_refused(&g, "2x=1", "is not NAME=VALUES");
	check_refused(&g, "big=1..99999999", "more than");
	fb_grid_release(&g);
}

/* ${NAME} is replaced by the cell's value; an unknown name and an open brace are named with
 * their line. */
static void test_grid_expand(void **state)
{
	static const char *const words[] = { "K=2,4", "algo=avg:notears", NULL };
	fb_error err = { { 0 } };
	bool used[2] = { false, false };
	char *text;
	fb_grid g;

	(void)state;
	grid_of(&g, words);
	assert_int_equal(fb_grid_check(&g, "split ${K}\nrun $K ${K}x", "s.fbn", used, &err), FB_OK);
	assert_true(used[0]);
	assert_false(used[1]);
	text = fb_grid_expand(&g, 1, "split ${K}\nalgo ${algo}; echo $K {K} ${K}${K}");
	assert_string_equal(text, "split 4\nalgo avg:notears; echo $K {K} 44");
	free(text);
	assert_int_equal(fb_grid_check(&g, "a\nb ${k}", "s.fbn", used, &err), FB_ERR);
	assert_string_equal(err.msg, "s.fbn:2: '${k}' is not a grid variable (the grid has K and "
	                             "algo)");
	assert_int_equal(fb_grid_check(&g, "run ${K\n}", "do", used, &err), FB_ERR);
	assert_string_equal(err.msg, "do:1: '${' is not closed by '}' on its line");
	fb_grid_release(&g);
}

/* A table of rows, columns "g,seed,v,w". */
static void table_of(fb_table *t, const char *const *rows)
{
	static const char *const head[] = { "g", "seed", "v", "w" };

	fb_table_init(t, 4, head);
	for (size_t r = 0; rows[r] != NULL; r += 4)
		fb_table_add_row(t, &rows[r]);
}

/* Means and standard errors equal the hand computations; empty cells are left out. */
static void test_summary_hand(void **state)
{
	/* group a: v = 1, 2, 6 -> mean 3, sample variance ((4 + 1 + 9) / 2) = 7, se sqrt(7/3);
	 * w = 10, (empty), 14 -> mean 12, variance 8, se 2; group b: v = 5 alone -> se NaN */
	static const char *const rows[] = {
		"a", "1", "1", "10", "b", "1", "5", "", "a", "2", "2", "", "a", "3", "6", "14", NULL,
	};
	static const char *const keys[] = { "g" }, *const figs[] = { "v", "w" };
	fb_error err = { { 0 } };
	fb_summary s;
	fb_table t;

	(void)state;
	table_of(&t, rows);
	assert_int_equal(fb_summary_compute(&s, &t, keys, 1, figs, 2, &err), FB_OK);
	assert_int_equal(s.ngroups, 2);
	assert_string_equal(s.keys[0], "a");
	assert_string_equal(s.keys[1], "b");
	assert_int_equal(s.rows[0], 3);
	assert_int_equal(fb_summary_get(&s, 0, 0)->n, 3);
	assert_true(fabs(fb_summary_get(&s, 0, 0)->mean - 3.0) < 1e-15);
	assert_true(fabs(fb_summary_get(&s, 0, 0)->se - sqrt(7.0 / 3.0)) < 1e-15);
	assert_int_equal(fb_summary_get(&s, 0, 1)->n, 2);
	assert_true(fabs(fb_summary_get(&s, 0, 1)->mean - 12.0) < 1e-15);
	assert_true(fabs(fb_summary_get(&s, 0, 1)->se - 2.0) < 1e-15);
	assert_true(fabs(fb_summary_get(&s, 1, 0)->mean - 5.0) < 1e-15);
	assert_true(isnan(fb_summary_get(&s, 1, 0)->se));
	assert_int_equal(fb_summary_get(&s, 1, 1)->n, 0);
	assert_true(isnan(fb_summary_get(&s, 1, 1)->mean));
	fb_summary_release(&s);
	fb_table_release(&t);
}

/* The summary as a table: n, F_mean, F_se, empty where undefined; a missing column is named. */
static void test_summary_table(void **state)
{
	static const char *const rows[] = { "a", "1", "0.1", "1", "a", "2", "0.2", "3", NULL };
	static const char *const keys[] = { "g" }, *const figs[] = { "v" }, *const bad[] = { "x" };
	fb_error err = { { 0 } };
	fb_summary s;
	fb_table t, st;

	(void)state;
	table_of(&t, rows);
	assert_int_equal(fb_summary_compute(&s, &t, keys, 1, bad, 1, &err), FB_ERR);
	assert_string_equal(err.msg, "the table has no column 'x'");
	assert_int_equal(fb_summary_compute(&s, &t, keys, 1, figs, 1, &err), FB_OK);
	fb_summary_table(&s, &st);
	assert_int_equal(st.ncols, 4);
	assert_string_equal(st.head[2], "v_mean");
	assert_string_equal(st.head[3], "v_se");
	assert_string_equal(fb_table_get(&st, 0, 1), "2");
	/* mean (0.1 + 0.2) / 2 in doubles, se |0.2 - 0.1| / 2 */
	assert_string_equal(fb_table_get(&st, 0, 2), "0.15000000000000002");
	assert_string_equal(fb_table_get(&st, 0, 3), "0.05");
	fb_table_release(&st);
	fb_summary_release(&s);
	fb_table_release(&t);
}

/* A table written as CSV reads back cell for cell (quotes, commas, empty cells). */
static void test_table_roundtrip(void **state)
{
	static const char *const rows[] = { "a,b", "1", "", "say \"hi\"", "x", "2", "3.5", "", NULL };
	char path[] = "/tmp/test-experiment-XXXXXX";
	fb_error err = { { 0 } };
	fb_table t, back;
	double v;
	FILE *fp;
	int fd;

	(void)state;
	table_of(&t, rows);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	fb_table_write_csv(&t, fp);
	fclose(fp);
	assert_int_equal(fb_table_read(&back, path, &err), FB_OK);
	assert_int_equal(back.nrows, 2);
	assert_int_equal(back.ncols, 4);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(back.cell[i], rows[i]);
	assert_int_equal(fb_table_number(&back, 1, 2, &v), FB_OK);
	assert_true(v == 3.5);
	assert_int_equal(fb_table_number(&back, 0, 2, &v), FB_ERR);
	fb_table_release(&back);
	fp = fopen(path, "w");
	fputs("a,b\n1,2\n3\n", fp);
	fclose(fp);
	assert_int_equal(fb_table_read(&back, path, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "line 3: 1 fields where the header names 2"));
	unlink(path);
	fb_table_release(&t);
}

/* The shortest text that reads back, whole numbers in full. */
static void test_format_double(void **state)
{
	char buf[40];

	(void)state;
	assert_string_equal(fb_format_double(0.85, buf, sizeof buf), "0.85");
	assert_string_equal(fb_format_double(2880, buf, sizeof buf), "2880");
	assert_string_equal(fb_format_double(1.0 / 3.0, buf, sizeof buf), "0.3333333333333333");
	assert_string_equal(fb_format_double(0.1 + 0.2, buf, sizeof buf), "0.30000000000000004");
	assert_string_equal(fb_format_double(-0.5, buf, sizeof buf), "-0.5");
	assert_string_equal(fb_format_double(1e-7, buf, sizeof buf), "1e-07");
}

/* A sweep's grid: the words' variables; no word, or a variable named as a column of the rows,
 * is refused. */
static void test_sweep_grid(void **state)
{
	char k[] = "K=2,4", seed[] = "seed=1..2", shd[] = "shd=1", count[] = "count=1";
	char *words[] = { k, seed }, *bad1[] = { shd }, *bad2[] = { count };
	fb_error err = { { 0 } };
	fb_grid g = { 0 };
	char label[64];

	(void)state;
	assert_int_equal(fb_sweep_grid(&g, words, 0, &err), FB_ERR);
	assert_string_equal(err.msg, "no grid: give NAME=VALUES words such as K=2,4,8 seed=1..10");
	assert_int_equal(fb_sweep_grid(&g, bad1, 1, &err), FB_ERR);
	assert_string_equal(err.msg, "'shd' names a column of the results: call the variable "
	                             "something else");
	fb_grid_release(&g);
	memset(&g, 0, sizeof g);
	assert_int_equal(fb_sweep_grid(&g, bad2, 1, &err), FB_ERR);
	fb_grid_release(&g);
	memset(&g, 0, sizeof g);
	assert_int_equal(fb_sweep_grid(&g, words, 2, &err), FB_OK);
	assert_int_equal(fb_grid_cells(&g), 4);
	assert_string_equal(fb_grid_label(&g, 2, label, sizeof label), "K=4 seed=1");
	assert_int_equal(fb_sweep_figure("shd"), 0);
	assert_int_equal(fb_sweep_figure("wall"), FB_SWEEP_NFIGS - 1);
	assert_int_equal(fb_sweep_figure("error"), -1);
	fb_grid_release(&g);
}

/* A record with shd = s (its other figures empty), failed with why when why is not NULL. */
static fb_sweep_record sweep_rec(const char *s, const char *why)
{
	fb_sweep_record rec;

	memset(&rec, 0, sizeof rec);
	snprintf(rec.fig[0], sizeof rec.fig[0], "%s", s);
	rec.failed = why != NULL;
	snprintf(rec.error, sizeof rec.error, "%s", why != NULL ? why : "");
	return rec;
}

/* Rows in grid order whatever order the cells end in; the failed cell's error in the last
 * column; the cells without a row are pending. */
static void test_sweep_rows(void **state)
{
	static const char *const words[] = { "K=2,4", "seed=1..2", NULL };
	fb_sweep_record ok = sweep_rec("3", NULL), bad = sweep_rec("", "no data");
	fb_sweep_rows r;
	fb_grid g;
	fb_table t;
	size_t n, *pend;

	(void)state;
	grid_of(&g, words);
	fb_sweep_rows_init(&r, &g);
	assert_false(fb_sweep_rows_any(&r, "shd"));
	fb_sweep_rows_set(&r, 3, &bad);
	fb_sweep_rows_set(&r, 1, &ok);
	assert_true(fb_sweep_rows_any(&r, "shd"));
	assert_false(fb_sweep_rows_any(&r, "tpr"));
	fb_sweep_rows_table(&r, &t);
	assert_int_equal(t.ncols, 2 + FB_SWEEP_NFIGS + 1);
	assert_string_equal(t.head[2], "shd");
	assert_string_equal(t.head[t.ncols - 1], "error");
	assert_int_equal(t.nrows, 2);
	assert_string_equal(fb_table_get(&t, 0, 1), "2");
	assert_string_equal(fb_table_get(&t, 0, 2), "3");
	assert_string_equal(fb_table_get(&t, 0, t.ncols - 1), "");
	assert_string_equal(fb_table_get(&t, 1, 0), "4");
	assert_string_equal(fb_table_get(&t, 1, t.ncols - 1), "no data");
	pend = fb_sweep_rows_pending(&r, &n);
	assert_int_equal(n, 2);
	assert_true(pend[0] == 0 && pend[1] == 2);
	free(pend);
	fb_table_release(&t);
	fb_sweep_rows_release(&r);
	fb_grid_release(&g);
}

/* Write the rows of the grid words with cells 0 (ok) and 3 (failed) and a foreign row
 * (K=16) to path. */
static void sweep_file(const char *path, const char *const *words)
{
	fb_sweep_record ok = sweep_rec("5", NULL), bad = sweep_rec("", "boom");
	fb_sweep_rows r;
	fb_grid g;
	fb_table t;
	FILE *fp = fopen(path, "w");

	grid_of(&g, words);
	fb_sweep_rows_init(&r, &g);
	fb_sweep_rows_set(&r, 0, &ok);
	fb_sweep_rows_set(&r, 3, &bad);
	fb_sweep_rows_table(&r, &t);
	fb_table_write_csv(&t, fp);
	fclose(fp);
	fb_table_release(&t);
	fb_sweep_rows_release(&r);
	fb_grid_release(&g);
}

/* Resuming takes the file's good cells of this grid, runs its failed ones again, keeps the
 * rows of other cells after the grid's; a file of other columns is refused, a missing one
 * is nothing to resume. */
static void test_sweep_resume(void **state)
{
	static const char *const wide[] = { "K=2,4,16", "seed=1..2", NULL };
	static const char *const words[] = { "K=2,4", "seed=1..2", NULL };
	static const char *const other[] = { "L=2,4", "seed=1..2", NULL };
	char path[] = "/tmp/test-experiment-XXXXXX";
	fb_error err = { { 0 } };
	fb_sweep_rows r;
	fb_grid g;
	fb_table t;
	size_t n, *pend;

	(void)state;
	close(mkstemp(path));
	sweep_file(path, wide); /* cells 0 (2, 1) good, 3 (4, 2) failed; no row of K=16 */
	grid_of(&g, words);
	fb_sweep_rows_init(&r, &g);
	assert_int_equal(fb_sweep_rows_resume(&r, path, &err), FB_OK);
	assert_int_equal(r.resumed, 1);
	assert_int_equal(r.foreign.nrows, 0);
	pend = fb_sweep_rows_pending(&r, &n);
	assert_true(n == 3 && pend[0] == 1 && pend[1] == 2 && pend[2] == 3);
	free(pend);
	fb_sweep_rows_release(&r);
	fb_grid_release(&g);
	sweep_file(path, words);
	grid_of(&g, (const char *const[]){ "K=4", "seed=1..2", NULL });
	fb_sweep_rows_init(&r, &g);
	assert_int_equal(fb_sweep_rows_resume(&r, path, &err), FB_OK);
	assert_int_equal(r.resumed, 0); /* (4, 2) failed, (2, 1) is no cell of this grid */
	fb_sweep_rows_table(&r, &t);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(fb_table_get(&t, 0, 0), "2");
	assert_string_equal(fb_table_get(&t, 0, 2), "5");
	fb_table_release(&t);
	fb_sweep_rows_release(&r);
	fb_grid_release(&g);
	grid_of(&g, other);
	fb_sweep_rows_init(&r, &g);
	assert_int_equal(fb_sweep_rows_resume(&r, path, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "has other columns than this sweep writes"));
	unlink(path);
	assert_int_equal(fb_sweep_rows_resume(&r, path, &err), FB_OK);
	assert_int_equal(r.resumed, 0);
	fb_sweep_rows_release(&r);
	fb_grid_release(&g);
}

/* A statistic as text: rates with three decimals, counts with two, "-" without a value. */
static void test_sweep_stat_text(void **state)
{
	fb_summary_stat a = { 0.25, 0.125, 3 }, b = { 4, NAN, 1 }, none = { NAN, NAN, 0 };
	char buf[64];

	(void)state;
	assert_string_equal(fb_sweep_stat_text(&a, "tpr", buf, sizeof buf), "0.250 ± 0.125");
	assert_string_equal(fb_sweep_stat_text(&a, "shd", buf, sizeof buf), "0.25 ± 0.12");
	assert_string_equal(fb_sweep_stat_text(&b, "shd", buf, sizeof buf), "4.00");
	assert_string_equal(fb_sweep_stat_text(&none, "f1", buf, sizeof buf), "-");
}

/* A count (every value whole) as a whole number, with ± only when it varies, and without
 * decimals from 1000 on; a rate that happens to be whole keeps its decimals. */
static void test_sweep_stat_count(void **state)
{
	fb_summary_stat same = { 315200, 0, 3, true }, one = { 17, NAN, 1, true },
	                big = { 1221, 1, 2, true }, small = { 16.0 / 3, 1.0 / 3, 3, true },
	                rate = { 1, 0, 3, true };
	char buf[64];

	(void)state;
	assert_string_equal(fb_sweep_stat_text(&same, "bytes", buf, sizeof buf), "315200");
	assert_string_equal(fb_sweep_stat_text(&one, "nodes", buf, sizeof buf), "17");
	assert_string_equal(fb_sweep_stat_text(&big, "bytes", buf, sizeof buf), "1221 ± 1");
	assert_string_equal(fb_sweep_stat_text(&small, "nnz", buf, sizeof buf), "5.33 ± 0.33");
	assert_string_equal(fb_sweep_stat_text(&rate, "tpr", buf, sizeof buf), "1.000 ± 0.000");
}

/* A summary marks a column whole when every number in the group is. */
static void test_summary_whole(void **state)
{
	static const char *const head[] = { "k", "rows", "ll" };
	static const char *const r1[] = { "a", "315200", "-2.5" };
	static const char *const r2[] = { "a", "315200", "-2" };
	static const char *const keys[] = { "k" }, *const figs[] = { "rows", "ll" };
	fb_error err;
	fb_summary s;
	fb_table t;

	(void)state;
	fb_table_init(&t, 3, head);
	fb_table_add_row(&t, r1);
	fb_table_add_row(&t, r2);
	assert_int_equal(fb_summary_compute(&s, &t, keys, 1, figs, 2, &err), FB_OK);
	assert_true(fb_summary_get(&s, 0, 0)->whole);
	assert_false(fb_summary_get(&s, 0, 1)->whole);
	fb_summary_release(&s);
	fb_table_release(&t);
}

/* The table for people leaves out a figure that no group has a number of. */
static void test_summary_text_empty(void **state)
{
	static const char *const head[] = { "k", "shd", "train_ll", "nnz" };
	static const char *const r1[] = { "a", "2", "", "3" }, *const r2[] = { "b", "4", "", "" };
	static const char *const keys[] = { "k" }, *const figs[] = { "shd", "train_ll", "nnz" };
	fb_error err;
	fb_summary s;
	fb_table t, text;

	(void)state;
	fb_table_init(&t, 4, head);
	fb_table_add_row(&t, r1);
	fb_table_add_row(&t, r2);
	assert_int_equal(fb_summary_compute(&s, &t, keys, 1, figs, 3, &err), FB_OK);
	fb_sweep_summary_text(&s, &text);
	assert_int_equal(text.ncols, 4);
	assert_string_equal(text.head[2], "shd");
	assert_string_equal(text.head[3], "nnz");
	assert_string_equal(fb_table_get(&text, 0, 3), "3");
	assert_string_equal(fb_table_get(&text, 1, 3), "-");
	fb_table_release(&text);
	fb_summary_release(&s);
	fb_table_release(&t);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grid_cells),
		cmocka_unit_test(test_grid_refused),
		cmocka_unit_test(test_grid_expand),
		cmocka_unit_test(test_summary_hand),
		cmocka_unit_test(test_summary_table),
		cmocka_unit_test(test_table_roundtrip),
		cmocka_unit_test(test_format_double),
		cmocka_unit_test(test_sweep_grid),
		cmocka_unit_test(test_sweep_rows),
		cmocka_unit_test(test_sweep_resume),
		cmocka_unit_test(test_sweep_stat_text),
		cmocka_unit_test(test_sweep_stat_count),
		cmocka_unit_test(test_summary_whole),
		cmocka_unit_test(test_summary_text_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
