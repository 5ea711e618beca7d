/* Unit tests of datasets and of splitting them over clients. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/partition.h"

/* An n x d dataset whose value at (i, j) is i * 1000 + j, so every cell is recognisable. */
static fb_dataset *data_make(size_t n, size_t d)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);

	assert_non_null(ds);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < d; j++)
			ds->x[i * d + j] = (double)(i * 1000 + j);
	}
	return ds;
}

/* Options with the defaults and the given seed. */
static fb_split_options opts(uint64_t seed)
{
	fb_split_options o;

	fb_split_options_init(&o);
	o.seed = seed;
	return o;
}

/* Every client's data equal the global data at its mapped rows and columns. */
static void check_client_data(const fb_partition *p, const fb_dataset *ds)
{
	assert_int_equal(p->n, ds->n);
	assert_int_equal(p->d, ds->d);
	for (size_t c = 0; c < p->k; c++) {
		const fb_client *cl = &p->clients[c];

		assert_true(cl->data->n >= 1 && cl->data->d >= 1);
		for (size_t b = 0; b < cl->data->d; b++) {
			assert_true(cl->cols[b] < ds->d);
			assert_string_equal(cl->data->vars[b].name, ds->vars[cl->cols[b]].name);
		}
		for (size_t a = 0; a < cl->data->n; a++) {
			assert_true(cl->rows[a] < ds->n);
			for (size_t b = 0; b < cl->data->d; b++)
				assert_true(fb_dataset_get(cl->data, a, b) ==
				            fb_dataset_get(ds, cl->rows[a], cl->cols[b]));
		}
	}
}

/* Rows are disjoint over clients and cover 0..n-1 exactly once. */
static void check_rows_partition(const fb_partition *p)
{
	size_t *seen = calloc(p->n, sizeof *seen);

	for (size_t c = 0; c < p->k; c++) {
		for (size_t a = 0; a < p->clients[c].data->n; a++)
			seen[p->clients[c].rows[a]]++;
	}
	for (size_t i = 0; i < p->n; i++)
		assert_int_equal(seen[i], 1);
	free(seen);
}

/* Every client has all rows, and the columns are disjoint and cover 0..d-1. */
static void check_cols_partition(const fb_partition *p)
{
	size_t *seen = calloc(p->d, sizeof *seen);

	for (size_t c = 0; c < p->k; c++) {
		assert_int_equal(p->clients[c].data->n, p->n);
		for (size_t a = 0; a < p->n; a++)
			assert_int_equal(p->clients[c].rows[a], a);
		for (size_t b = 0; b < p->clients[c].data->d; b++)
			seen[p->clients[c].cols[b]]++;
	}
	for (size_t j = 0; j < p->d; j++)
		assert_int_equal(seen[j], 1);
	free(seen);
}

/* Split and expect success. */
static fb_partition *split_ok(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                              const fb_split_options *o)
{
	fb_error err = { "" };
	fb_partition *p = fb_split(ds, kind, k, o, &err);

	if (p == NULL)
		fail_msg("unexpected refusal: %s", err.msg);
	assert_int_equal(p->k, k);
	assert_int_equal(p->kind, kind);
	check_client_data(p, ds);
	return p;
}

/* Split and expect the exact refusal msg. */
static void split_refused(const fb_dataset *ds, enum fb_split_kind kind, size_t k,
                          const fb_split_options *o, const char *msg)
{
	fb_error err = { "" };

	assert_null(fb_split(ds, kind, k, o, &err));
	assert_string_equal(err.msg, msg);
}

/* Assert the client row counts of p. */
static void check_sizes(const fb_partition *p, const size_t *want)
{
	for (size_t c = 0; c < p->k; c++)
		assert_int_equal(p->clients[c].data->n, want[c]);
}

/* Even horizontal sizes, and contiguous blocks in order without shuffling. */
static void test_horizontal_even(void **state)
{
	static const size_t thirty[10] = { 30, 30, 30, 30, 30, 30, 30, 30, 30, 30 };
	static const size_t small[3] = { 4, 3, 3 };
	fb_dataset *big = data_make(300, 4), *tiny = data_make(10, 2);
	fb_split_options o = opts(1);
	fb_partition *p = split_ok(big, FB_SPLIT_HORIZONTAL, 10, &o);

	(void)state;
	check_sizes(p, thirty);
	check_rows_partition(p);
	assert_int_equal(p->clients[3].data->d, 4);
	assert_string_equal(p->desc, "horizontal 10 sizes=even shuffle=yes seed=1");
	fb_partition_free(p);
	o.shuffle = 0;
	p = split_ok(tiny, FB_SPLIT_HORIZONTAL, 3, &o);
	check_sizes(p, small);
	check_rows_partition(p);
	for (size_t a = 0; a < 3; a++)
		assert_int_equal(p->clients[1].rows[a], 4 + a);
	assert_string_equal(p->desc, "horizontal 3 sizes=even shuffle=no seed=1");
	fb_partition_free(p);
	p = split_ok(tiny, FB_SPLIT_HORIZONTAL, 10, NULL);
	check_rows_partition(p);
	fb_partition_free(p);
	fb_dataset_free(big);
	fb_dataset_free(tiny);
}

/* With view: contiguous blocks with all columns read the dataset's rows in place (no copy),
 * with their own names and parts; shuffled rows, an order column, a vertical or a hybrid
 * split still copy; the values are the same either way, and freeing the views leaves the
 * dataset whole. */
static void test_horizontal_view(void **state)
{
	fb_dataset *ds = data_make(10, 3);
	fb_split_options o = opts(1);
	fb_partition *p;

	(void)state;
	ds->part = calloc(10, 1);
	assert_non_null(ds->part);
	ds->part[5] = FB_PART_TEST;
	o.shuffle = 0;
	o.view = true;
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, 3, &o);
	check_client_data(p, ds);
	for (size_t c = 0; c < 3; c++) {
		assert_true(p->clients[c].data->view);
		assert_ptr_equal(p->clients[c].data->x, ds->x + p->clients[c].rows[0] * 3);
	}
	assert_int_equal(fb_dataset_part(p->clients[1].data, 1), FB_PART_TEST);
	assert_int_equal(fb_dataset_part_count(p->clients[1].data, FB_PART_TEST), 1);
	assert_ptr_not_equal(p->clients[0].data->vars, ds->vars);
	fb_partition_free(p);
	assert_true(fb_dataset_get(ds, 9, 2) == 9002.0);
	o.shuffle = 1;
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, 3, &o);
	check_client_data(p, ds);
	assert_false(p->clients[0].data->view);
	fb_partition_free(p);
	p = split_ok(ds, FB_SPLIT_VERTICAL, 3, &o);
	check_client_data(p, ds);
	assert_false(p->clients[2].data->view);
	fb_partition_free(p);
	assert_null(fb_dataset_rows_view(ds, 8, 3));
	fb_dataset_free(ds);
}

/* Shuffled rows: the same seed gives the same split, another seed another one. */
static void test_horizontal_shuffle_seed(void **state)
{
	fb_dataset *ds = data_make(100, 3);
	fb_split_options o = opts(42);
	fb_partition *a = split_ok(ds, FB_SPLIT_HORIZONTAL, 4, &o);
	fb_partition *b = split_ok(ds, FB_SPLIT_HORIZONTAL, 4, &o);
	fb_partition *c;
	size_t contiguous = 1;

	(void)state;
	for (size_t k = 0; k < 4; k++)
		assert_memory_equal(a->clients[k].rows, b->clients[k].rows, 25 * sizeof(size_t));
	for (size_t r = 1; r < 25; r++)
		contiguous &= a->clients[0].rows[r] == a->clients[0].rows[r - 1] + 1;
	assert_false(contiguous);
	o.seed = 43;
	c = split_ok(ds, FB_SPLIT_HORIZONTAL, 4, &o);
	assert_memory_not_equal(a->clients[0].rows, c->clients[0].rows, 25 * sizeof(size_t));
	fb_partition_free(a);
	fb_partition_free(b);
	fb_partition_free(c);
	fb_dataset_free(ds);
}

/* Uneven (FedPC) sizes: every client gets at least ceil(n/(2K)), the sizes add to n, the last
 * client keeps more than 100 rows when n allows, and the sizes do vary. */
static void test_horizontal_uneven(void **state)
{
	/* n, K, minimum, last client's minimum */
	static const size_t cases[][4] = { { 1000, 5, 100, 101 }, { 6000, 10, 300, 300 },
	                                   { 20, 3, 4, 4 }, { 7, 7, 1, 1 }, { 50, 1, 50, 50 },
	                                   { 301, 4, 38, 101 } };
	size_t varied = 0;

	(void)state;
	for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
		fb_dataset *ds = data_make(cases[t][0], 2);

		for (uint64_t seed = 1; seed <= 50; seed++) {
			fb_split_options o = opts(seed);
			fb_partition *p;
			size_t k = cases[t][1];

			o.sizes = FB_SIZES_UNEVEN;
			p = split_ok(ds, FB_SPLIT_HORIZONTAL, k, &o);
			check_rows_partition(p);
			for (size_t c = 0; c < k; c++)
				assert_true(p->clients[c].data->n >= cases[t][2]);
			assert_true(p->clients[k - 1].data->n >= cases[t][3]);
			varied += p->clients[0].data->n != p->clients[k - 1].data->n;
			fb_partition_free(p);
		}
		fb_dataset_free(ds);
	}
	assert_true(varied > 100);
}

/* Dirichlet sizes: at least one row each, adding to n; a huge alpha is nearly even. */
static void test_horizontal_dirichlet(void **state)
{
	fb_dataset *ds = data_make(50, 2);
	fb_split_options o = opts(1);
	fb_partition *p;

	(void)state;
	o.sizes = FB_SIZES_DIRICHLET;
	o.alpha = 0.05;
	for (uint64_t seed = 1; seed <= 100; seed++) {
		o.seed = seed;
		p = split_ok(ds, FB_SPLIT_HORIZONTAL, 10, &o);
		check_rows_partition(p);
		fb_partition_free(p);
	}
	o.alpha = 1e6;
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, 5, &o);
	for (size_t c = 0; c < 5; c++)
		assert_in_range(p->clients[c].data->n, 9, 11);
	assert_string_equal(p->desc, "horizontal 5 sizes=dirichlet alpha=1e+06 shuffle=yes "
	                    "seed=100");
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Split with sizes=list and expect these row counts. */
static void check_list(const fb_dataset *ds, const char *list, const size_t *want, size_t k)
{
	fb_split_options o = opts(3);
	fb_partition *p;

	o.sizes = FB_SIZES_LIST;
	o.size_list = list;
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, k, &o);
	check_sizes(p, want);
	check_rows_partition(p);
	fb_partition_free(p);
}

/* Explicit sizes: counts adding to n, or percentages adding to 100. */
static void test_horizontal_list(void **state)
{
	static const size_t counts[] = { 50, 50, 100 }, thirds[] = { 3, 3, 4 };
	static const size_t pct[] = { 40, 60, 100 };
	fb_dataset *ds = data_make(200, 2), *ten = data_make(10, 2);
	fb_split_options o = opts(3);
	fb_partition *p;

	(void)state;
	check_list(ds, "50, 50,100", counts, 3);
	check_list(ds, "25,25,50", counts, 3);
	check_list(ds, "20%,30%,50%", pct, 3);
	check_list(ten, "33.3,33.3,33.4", thirds, 3);
	o.sizes = FB_SIZES_LIST;
	o.size_list = "50,50,100";
	o.shuffle = 0;
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, 3, &o);
	assert_string_equal(p->desc, "horizontal 3 sizes=50,50,100 shuffle=no seed=3");
	assert_int_equal(p->clients[2].rows[0], 100);
	fb_partition_free(p);
	fb_dataset_free(ds);
	fb_dataset_free(ten);
}

/* Vertical: even contiguous blocks by default; named blocks, each in global order. */
static void test_vertical(void **state)
{
	static const size_t widths[] = { 4, 3, 3 };
	fb_dataset *ds = data_make(20, 10);
	fb_split_options o = opts(1);
	fb_partition *p = split_ok(ds, FB_SPLIT_VERTICAL, 3, &o);

	(void)state;
	check_cols_partition(p);
	for (size_t c = 0, j = 0; c < 3; c++) {
		assert_int_equal(p->clients[c].data->d, widths[c]);
		for (size_t b = 0; b < widths[c]; b++)
			assert_int_equal(p->clients[c].cols[b], j++);
	}
	assert_string_equal(p->desc, "vertical 3");
	fb_partition_free(p);
	o.cols = "X3, X1 ;X2,X4,X5,X6;X10,X9,X8,X7";
	p = split_ok(ds, FB_SPLIT_VERTICAL, 3, &o);
	check_cols_partition(p);
	assert_int_equal(p->clients[0].data->d, 2);
	assert_int_equal(p->clients[0].cols[0], 0);
	assert_int_equal(p->clients[0].cols[1], 2);
	assert_string_equal(p->clients[0].data->vars[1].name, "X3");
	assert_int_equal(p->clients[2].cols[0], 6);
	assert_string_equal(p->desc, "vertical 3 cols=\"X3, X1 ;X2,X4,X5,X6;X10,X9,X8,X7\"");
	fb_partition_free(p);
	o.cols = NULL;
	p = split_ok(ds, FB_SPLIT_VERTICAL, 10, &o);
	check_cols_partition(p);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Number of clients of p holding variable j. */
static size_t holders(const fb_partition *p, size_t j)
{
	size_t count = 0;

	for (size_t c = 0; c < p->k; c++) {
		for (size_t b = 0; b < p->clients[c].data->d; b++)
			count += p->clients[c].cols[b] == j;
	}
	return count;
}

/* Hybrid rows: floor(shared n) rows held by every client (K >= 2), each other row by exactly
 * one, and every client holding at least one row of its own. */
static void check_hybrid_rows(const fb_partition *p, double shared)
{
	size_t *seen = calloc(p->n, sizeof *seen), m = (size_t)floor(shared * (double)p->n);
	size_t everyone = 0;

	for (size_t c = 0; c < p->k; c++) {
		assert_true(p->clients[c].data->n > (p->k >= 2 ? m : 0));
		for (size_t a = 0; a < p->clients[c].data->n; a++)
			seen[p->clients[c].rows[a]]++;
	}
	for (size_t i = 0; i < p->n; i++) {
		assert_true(seen[i] == 1 || seen[i] == p->k);
		everyone += p->k >= 2 && seen[i] == p->k;
	}
	if (p->k >= 2)
		assert_int_equal(everyone, m);
	free(seen);
}

/* Hybrid invariants: the rows above, every variable held, at least min(2, d) variables per
 * client, some variable shared, each client's columns ascending. */
static void check_hybrid(const fb_partition *p, double shared)
{
	size_t nshared = 0, want = p->d < 2 ? p->d : 2;

	check_hybrid_rows(p, shared);
	for (size_t j = 0; j < p->d; j++) {
		assert_true(holders(p, j) >= 1);
		nshared += holders(p, j) >= 2;
	}
	if (p->k >= 2)
		assert_true(nshared >= 1);
	for (size_t c = 0; c < p->k; c++) {
		assert_true(p->clients[c].data->d >= want);
		for (size_t b = 1; b < p->clients[c].data->d; b++)
			assert_true(p->clients[c].cols[b - 1] < p->clients[c].cols[b]);
	}
}

/* Hybrid over many seeds and shapes, including no overlap, full overlap and K > d. */
static void test_hybrid(void **state)
{
	static const double overlaps[] = { 0.0, 0.2, 0.5, 1.0 };
	/* n, d, K */
	static const size_t shapes[][3] = { { 100, 10, 5 }, { 60, 3, 5 }, { 30, 1, 3 },
	                                    { 40, 8, 2 }, { 50, 20, 4 } };

	(void)state;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		fb_dataset *ds = data_make(shapes[s][0], shapes[s][1]);

		for (size_t v = 0; v < 4; v++) {
			for (uint64_t seed = 1; seed <= 20; seed++) {
				fb_split_options o = opts(seed);
				fb_partition *p;

				o.overlap = overlaps[v];
				o.shared = seed % 2 ? 0.3 : 0.0;
				p = split_ok(ds, FB_SPLIT_HYBRID, shapes[s][2], &o);
				check_hybrid(p, o.shared);
				if (overlaps[v] == 1.0) {
					for (size_t c = 0; c < p->k; c++)
						assert_int_equal(p->clients[c].data->d, p->d);
				}
				fb_partition_free(p);
			}
		}
		fb_dataset_free(ds);
	}
}

/* Hybrid without overlap: the owned blocks plus exactly one added shared variable. */
static void test_hybrid_forced_share(void **state)
{
	fb_dataset *ds = data_make(100, 10);
	fb_split_options o = opts(9);
	fb_partition *p;
	size_t total = 0;

	(void)state;
	o.overlap = 0.0;
	o.sizes = FB_SIZES_UNEVEN;
	p = split_ok(ds, FB_SPLIT_HYBRID, 5, &o);
	check_hybrid(p, o.shared);
	for (size_t c = 0; c < 5; c++)
		total += p->clients[c].data->d;
	assert_int_equal(total, 11);
	assert_string_equal(p->desc, "hybrid 5 sizes=uneven overlap=0 shared=0.3 shuffle=yes "
	                             "seed=9");
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Hybrid rows: shared=0 gives the horizontal split's rows (same seed); shared=0.3 keeps the
 * shared rows out of the sizes, which a list then counts. */
static void test_hybrid_shared_rows(void **state)
{
	fb_dataset *ds = data_make(100, 6);
	fb_split_options o = opts(4);
	fb_partition *h, *p;

	(void)state;
	h = split_ok(ds, FB_SPLIT_HORIZONTAL, 3, &o);
	o.shared = 0.0;
	p = split_ok(ds, FB_SPLIT_HYBRID, 3, &o);
	for (size_t c = 0; c < 3; c++) {
		assert_int_equal(p->clients[c].data->n, h->clients[c].data->n);
		assert_memory_equal(p->clients[c].rows, h->clients[c].rows,
		                    h->clients[c].data->n * sizeof *h->clients[c].rows);
	}
	fb_partition_free(p);
	o.shared = 0.3;
	o.sizes = FB_SIZES_LIST;
	o.size_list = "10,20,40";
	p = split_ok(ds, FB_SPLIT_HYBRID, 3, &o);
	check_hybrid(p, 0.3);
	assert_int_equal(p->clients[0].data->n, 40);
	assert_int_equal(p->clients[1].data->n, 50);
	assert_int_equal(p->clients[2].data->n, 70);
	fb_partition_free(p);
	fb_partition_free(h);
	fb_dataset_free(ds);
}

/* Distinct ids in an ascending list of n row ids (0 when the list is not ascending). */
static size_t rows_distinct(const size_t *rows, size_t n)
{
	size_t count = n > 0;

	for (size_t a = 1; a < n; a++) {
		if (rows[a] < rows[a - 1])
			return 0;
		count += rows[a] != rows[a - 1];
	}
	return count;
}

/* Size of the common part of two ascending lists of row ids, counted with repeats. */
static size_t rows_common(const size_t *a, size_t na, const size_t *b, size_t nb)
{
	size_t i = 0, j = 0, count = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			count++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return count;
}

/* draw=replace, 2 clients over 398 rows (the reference code's breast-cancer hybrid): each
 * holds floor(0.3 n) + floor(n/2) = 318 rows, ascending, the 119 common draws in both.
 * Drawn with replacement, 318 uniform draws of 398 rows give about 398 (1 - (1 - 1/398)^318)
 * = 219 distinct rows (sd about 7); drawn without, 318.  Same seed, same rows. */
static void test_hybrid_draw_replace(void **state)
{
	fb_dataset *ds = data_make(398, 10);
	fb_split_options o = opts(3);
	fb_partition *p, *q;

	(void)state;
	o.draw = FB_DRAW_REPLACE;
	o.overlap = 0.0;
	p = split_ok(ds, FB_SPLIT_HYBRID, 2, &o);
	for (size_t c = 0; c < 2; c++) {
		size_t distinct = rows_distinct(p->clients[c].rows, p->clients[c].data->n);

		assert_int_equal(p->clients[c].data->n, 318);
		assert_in_range(distinct, 195, 245);
	}
	assert_true(rows_common(p->clients[0].rows, 318, p->clients[1].rows, 318) >= 119);
	assert_string_equal(p->desc, "hybrid 2 draw=replace overlap=0 shared=0.3 seed=3");
	q = split_ok(ds, FB_SPLIT_HYBRID, 2, &o);
	for (size_t c = 0; c < 2; c++) {
		assert_memory_equal(q->clients[c].rows, p->clients[c].rows, 318 * sizeof(size_t));
		assert_int_equal(q->clients[c].data->d, p->clients[c].data->d);
	}
	fb_partition_free(q);
	o.seed = 4;
	q = split_ok(ds, FB_SPLIT_HYBRID, 2, &o);
	assert_true(memcmp(q->clients[0].rows, p->clients[0].rows, 318 * sizeof(size_t)) != 0);
	fb_partition_free(q);
	fb_partition_free(p);
	o.shared = 0.0; /* floor(398 / 3) = 132 rows each, none common by construction */
	p = split_ok(ds, FB_SPLIT_HYBRID, 3, &o);
	check_sizes(p, (const size_t[]){ 132, 132, 132 });
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* draw=replace is refused on splits whose clients share no rows, with sizes other than
 * even, and with shuffle off; it lifts the cut's limit of K <= n - floor(shared n). */
static void test_hybrid_draw_refusals(void **state)
{
	fb_dataset *ds = data_make(30, 4);
	fb_split_options o = opts(1);
	fb_partition *p;

	(void)state;
	o.draw = FB_DRAW_REPLACE;
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o, "cannot use draw=replace on a horizontal "
	              "split: only a hybrid split's clients share rows, so only its rows can be "
	              "drawn with replacement");
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o, "cannot use draw=replace on a vertical "
	              "split: only a hybrid split's clients share rows, so only its rows can be "
	              "drawn with replacement");
	o.sizes = FB_SIZES_UNEVEN;
	split_refused(ds, FB_SPLIT_HYBRID, 3, &o, "cannot use sizes=uneven with draw=replace: "
	              "each client draws floor(n/K) rows of its own, as the reference code does");
	o.sizes = FB_SIZES_LIST;
	o.size_list = "10,20";
	split_refused(ds, FB_SPLIT_HYBRID, 2, &o, "cannot use sizes=10,20 with draw=replace: "
	              "each client draws floor(n/K) rows of its own, as the reference code does");
	o.sizes = FB_SIZES_EVEN;
	o.shuffle = 0;
	split_refused(ds, FB_SPLIT_HYBRID, 2, &o, "cannot use shuffle=no with draw=replace: the "
	              "rows are drawn at random, never taken in file order");
	o.shuffle = 1;
	o.shared = 0.9;
	p = split_ok(ds, FB_SPLIT_HYBRID, 4, &o); /* 27 common rows and 7 of each's own */
	check_sizes(p, (const size_t[]){ 34, 34, 34, 34 });
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* order=: the rows sorted stably by a column's values, then cut into contiguous blocks, so
 * every value of client c is at most every value of client c + 1; ties keep file order. */
static void test_horizontal_order(void **state)
{
	static const double col[12] = { 2, 0, 1, 2, 0, 1, 1, 0, 2, 2, 0, 1 };
	fb_dataset *ds = data_make(12, 3);
	fb_split_options o = opts(4), bad = opts(1);
	fb_partition *p;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		ds->x[i * 3 + 1] = col[i];
	o.shuffle = 0;
	o.order = "X2";
	p = split_ok(ds, FB_SPLIT_HORIZONTAL, 3, &o);
	check_rows_partition(p);
	check_client_data(p, ds);
	/* value 0: rows 1, 4, 7, 10; value 1: rows 2, 5, 6, 11; value 2: rows 0, 3, 8, 9 */
	for (size_t c = 0; c < 3; c++)
		for (size_t a = 0; a < 4; a++)
			assert_true(fb_dataset_get(p->clients[c].data, a, 1) == (double)c);
	assert_int_equal(p->clients[2].rows[0], 0);
	assert_string_equal(p->desc, "horizontal 3 sizes=even shuffle=no order=X2 seed=4");
	fb_partition_free(p);
	bad.shuffle = 0;
	bad.order = "X9";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &bad,
	              "cannot order the rows by 'X9': there is no such variable");
	o.shuffle = 1;
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o, "cannot use order=X2 with shuffle=yes: "
	              "the rows are cut in the column's order, so give shuffle=no");
	o.shuffle = 0;
	split_refused(ds, FB_SPLIT_VERTICAL, 3, &o, "cannot use order=X2 with a vertical "
	              "split: it orders the rows of a horizontal one");
	fb_dataset_free(ds);
}

/* shuffle_cols: vertical blocks are even in size but random sets of the variables, the same
 * for the same seed; refused with cols= and on a horizontal split. */
static void test_vertical_shuffle_cols(void **state)
{
	fb_dataset *ds = data_make(20, 10);
	fb_split_options o = opts(3);
	fb_partition *p, *q;
	int moved = 0;

	(void)state;
	o.shuffle_cols = 1;
	p = split_ok(ds, FB_SPLIT_VERTICAL, 3, &o);
	q = split_ok(ds, FB_SPLIT_VERTICAL, 3, &o);
	check_cols_partition(p);
	check_client_data(p, ds);
	for (size_t c = 0, j = 0; c < 3; c++) {
		assert_int_equal(p->clients[c].data->d, c == 0 ? 4 : 3);
		for (size_t b = 0; b < p->clients[c].data->d; b++, j++) {
			moved += p->clients[c].cols[b] != j;
			assert_int_equal(p->clients[c].cols[b], q->clients[c].cols[b]);
		}
	}
	assert_true(moved > 0);
	assert_string_equal(p->desc, "vertical 3 random_cols=yes seed=3");
	fb_partition_free(p);
	fb_partition_free(q);
	o.cols = "X1;X2,X3,X4,X5,X6,X7,X8,X9,X10";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o, "cannot use random_cols=yes with cols=: "
	              "the blocks given already say which client holds which variable");
	o.cols = NULL;
	split_refused(ds, FB_SPLIT_HORIZONTAL, 2, &o, "cannot use random_cols=yes with a "
	              "horizontal split: every client holds every variable");
	fb_dataset_free(ds);
}

/* Each impossible request is refused with a sentence giving the numbers or the name. */
static void test_refusals(void **state)
{
	fb_dataset *ds = data_make(30, 4), *none = data_make(0, 4);
	fb_split_options o = opts(1);

	(void)state;
	split_refused(ds, FB_SPLIT_HORIZONTAL, 0, &o,
	              "cannot split over 0 clients: at least one is needed");
	split_refused(ds, FB_SPLIT_HORIZONTAL, 40, &o,
	              "cannot split 30 rows over 40 clients: each client needs at least one row");
	split_refused(ds, FB_SPLIT_HYBRID, 31, &o,
	              "cannot split 30 rows over 31 clients: each client needs at least one row");
	split_refused(ds, FB_SPLIT_VERTICAL, 5, &o, "cannot split 4 variables over 5 clients: "
	              "each client needs at least one variable");
	split_refused(none, FB_SPLIT_VERTICAL, 1, &o,
	              "cannot split a dataset of 0 rows and 4 variables: it is empty");
	o.sizes = FB_SIZES_LIST;
	o.size_list = "10,10,5";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o, "cannot use sizes '10,10,5': they add to "
	              "25, neither n=30 rows nor 100 percent");
	o.size_list = "50%,40%,5%";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o,
	              "cannot use sizes '50%,40%,5%': the percentages add to 95, not 100");
	o.size_list = "10,20";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o,
	              "cannot use sizes '10,20' for 3 clients: it lists 2 sizes");
	o.size_list = "10,x,10";
	split_refused(ds, FB_SPLIT_HYBRID, 3, &o,
	              "cannot use sizes '10,x,10': size 2 is not a non-negative number");
	o.size_list = "10%,90,0";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o,
	              "cannot use sizes '10%,90,0': either every size or none ends with '%'");
	o.size_list = "1,99";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 2, &o,
	              "cannot split 30 rows by sizes '1,99': client 1 would get no rows");
	o.size_list = "0,30";
	split_refused(ds, FB_SPLIT_HORIZONTAL, 2, &o,
	              "cannot split 30 rows by sizes '0,30': client 1 would get no rows");
	o.sizes = FB_SIZES_DIRICHLET;
	o.alpha = 0.0;
	split_refused(ds, FB_SPLIT_HORIZONTAL, 3, &o,
	              "cannot use alpha=0: the Dirichlet concentration must be positive");
	o = opts(1);
	o.overlap = 1.5;
	split_refused(ds, FB_SPLIT_HYBRID, 3, &o, "cannot use overlap=1.5: it must lie in [0, 1]");
	o = opts(1);
	o.shared = 1.0;
	split_refused(ds, FB_SPLIT_HYBRID, 3, &o, "cannot use shared=1: the share of rows every "
	              "client holds must lie in [0, 1), so that each also has rows of its own");
	o.shared = 0.9;
	split_refused(ds, FB_SPLIT_HYBRID, 4, &o, "cannot split 30 rows over 4 clients with "
	              "shared=0.9: 27 rows are every client's, leaving 3, fewer than one of its "
	              "own per client");
	fb_dataset_free(ds);
	fb_dataset_free(none);
}

/* Column blocks naming unknown, repeated or missing variables, or too few blocks. */
static void test_refusals_cols(void **state)
{
	fb_dataset *ds = data_make(10, 4);
	fb_split_options o = opts(1);

	(void)state;
	o.cols = "X1,X2;X3,X5";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o,
	              "cannot use column blocks: unknown variable 'X5'");
	o.cols = "X1,X2;X3,X2,X4";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o,
	              "cannot use column blocks: variable 'X2' appears twice");
	o.cols = "X1,X2;X4";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o,
	              "cannot use column blocks: variable 'X3' is in no block");
	o.cols = "X1,X2,X3,X4";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o,
	              "cannot use column blocks 'X1,X2,X3,X4': they are 1 blocks for 2 clients");
	o.cols = "X1,X2; ;X3,X4";
	split_refused(ds, FB_SPLIT_VERTICAL, 3, &o,
	              "cannot use column blocks 'X1,X2; ;X3,X4': block 2 is empty");
	o.cols = "X1,,X2;X3,X4";
	split_refused(ds, FB_SPLIT_VERTICAL, 2, &o,
	              "cannot use column blocks 'X1,,X2;X3,X4': block 1 has an empty name");
	fb_dataset_free(ds);
}

/* Dataset basics the split relies on: names, levels, copies and subsets. */
static void test_dataset(void **state)
{
	char low[] = "low", high[] = "high", a[] = "a", changed[] = "changed";
	char *levels[] = { low, high }, *twice[] = { a, a };
	fb_dataset *ds = data_make(3, 3), *copy, *sub;
	size_t rows[] = { 2, 0 }, cols[] = { 1 }, bad[] = { 3 };
	fb_error err = { "" };

	(void)state;
	assert_string_equal(ds->vars[2].name, "X3");
	assert_int_equal(fb_dataset_set_name(ds, 0, "age", &err), FB_OK);
	assert_int_equal(fb_dataset_find(ds, "age"), 0);
	assert_int_equal(fb_dataset_find(ds, "X1"), -1);
	assert_int_equal(fb_dataset_set_name(ds, 1, "age", &err), FB_ERR);
	assert_string_equal(err.msg, "cannot name variable 2 'age': variable 1 already has "
	                    "that name");
	assert_int_equal(fb_dataset_set_name(ds, 1, "", &err), FB_ERR);
	assert_string_equal(err.msg, "cannot name variable 2 '': a name cannot be empty");
	assert_int_equal(fb_dataset_set_levels(ds, 1, twice, 2, &err), FB_ERR);
	assert_string_equal(err.msg, "cannot make 'X2' discrete: level 'a' is listed twice");
	assert_int_equal(fb_dataset_set_levels(ds, 1, levels, 2, &err), FB_OK);
	assert_int_equal(fb_dataset_n_discrete(ds), 1);
	copy = fb_dataset_copy(ds);
	levels[0] = changed;
	assert_string_equal(copy->vars[1].levels[0], "low");
	assert_int_equal(copy->vars[1].kind, FB_DISCRETE);
	assert_memory_equal(copy->x, ds->x, 9 * sizeof(double));
	sub = fb_dataset_subset(ds, rows, 2, cols, 1);
	assert_int_equal(sub->n, 2);
	assert_int_equal(sub->d, 1);
	assert_true(sub->x[0] == 2001.0 && sub->x[1] == 1.0);
	assert_string_equal(sub->vars[0].levels[1], "high");
	assert_null(fb_dataset_subset(ds, bad, 1, NULL, 0));
	fb_dataset_free(sub);
	fb_dataset_free(copy);
	fb_dataset_free(ds);
}

/* A 7 x 3 dataset whose middle column is a discrete site, levels "b", "a", "c" (code
 * order), rows' sites b a b c a b a; the other cells are i * 1000 + j. */
static fb_dataset *data_sites(void)
{
	static const double site[7] = { 0, 1, 0, 2, 1, 0, 1 };
	char *levels[3] = { "b", "a", "c" };
	fb_dataset *ds = data_make(7, 3);
	fb_error err = { { 0 } };

	for (size_t i = 0; i < 7; i++)
		ds->x[i * 3 + 1] = site[i];
	assert_int_equal(fb_dataset_set_name(ds, 1, "site", &err), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 1, levels, 3, &err), FB_OK);
	return ds;
}

/* by=: clients sorted by level label, rows in file order, the column gone, counts sum to n,
 * the same result twice. */
static void test_split_by_discrete(void **state)
{
	static const size_t want[3][3] = { { 1, 4, 6 }, { 0, 2, 5 }, { 3, 0, 0 } };
	static const size_t nwant[3] = { 3, 3, 1 };
	static const char *const label[3] = { "a", "b", "c" };
	fb_dataset *ds = data_sites(), *rest, *rest2;
	fb_error err = { { 0 } };
	fb_partition *p = fb_split_by(ds, "site", &rest, &err), *q;
	size_t total = 0;

	(void)state;
	assert_non_null(p);
	assert_string_equal(p->desc, "horizontal by=site");
	assert_int_equal(p->k, 3);
	assert_int_equal(rest->d, 2);
	assert_int_equal(fb_dataset_find(rest, "site"), -1);
	check_client_data(p, rest);
	check_rows_partition(p);
	for (size_t c = 0; c < 3; c++) {
		const fb_client *cl = &p->clients[c];

		assert_string_equal(cl->label, label[c]);
		assert_int_equal(cl->data->n, nwant[c]);
		assert_int_equal(cl->data->d, 2);
		assert_int_equal(fb_dataset_find(cl->data, "site"), -1);
		for (size_t a = 0; a < nwant[c]; a++) {
			assert_int_equal(cl->rows[a], want[c][a]);
			assert_true(fb_dataset_get(cl->data, a, 1) == (double)(want[c][a] * 1000 + 2));
		}
		total += cl->data->n;
	}
	assert_int_equal(total, 7);
	q = fb_split_by(ds, "site", &rest2, &err);
	for (size_t c = 0; c < 3; c++)
		assert_memory_equal(q->clients[c].data->x, p->clients[c].data->x,
		                    nwant[c] * 2 * sizeof(double));
	fb_partition_free(q);
	fb_partition_free(p);
	fb_dataset_free(rest2);
	fb_dataset_free(rest);
	fb_dataset_free(ds);
}

/* by= a continuous column: clients in numeric order, labelled by value. */
static void test_split_by_continuous(void **state)
{
	static const double site[5] = { 10, -2.5, 10, 3, -2.5 };
	fb_dataset *ds = data_make(5, 2), *rest;
	fb_error err = { { 0 } };
	fb_partition *p;

	(void)state;
	for (size_t i = 0; i < 5; i++)
		ds->x[i * 2] = site[i];
	p = fb_split_by(ds, "X1", &rest, &err);
	assert_non_null(p);
	assert_int_equal(p->k, 3);
	assert_string_equal(p->clients[0].label, "-2.5");
	assert_string_equal(p->clients[1].label, "3");
	assert_string_equal(p->clients[2].label, "10");
	assert_int_equal(p->clients[0].rows[1], 4);
	assert_int_equal(p->clients[2].rows[1], 2);
	assert_string_equal(rest->vars[0].name, "X2");
	check_client_data(p, rest);
	fb_partition_free(p);
	fb_dataset_free(rest);
	fb_dataset_free(ds);
}

/* by= refusals: unknown column, one value, too many continuous values. */
static void test_split_by_refusals(void **state)
{
	fb_dataset *ds = data_make(1001, 2), *rest = (fb_dataset *)1;
	fb_error err = { { 0 } };

	(void)state;
	assert_null(fb_split_by(ds, "nope", &rest, &err));
	assert_null(rest);
	assert_string_equal(err.msg, "cannot split by 'nope': there is no such column");
	assert_null(fb_split_by(ds, "X1", &rest, &err));
	assert_string_equal(err.msg, "cannot split by 'X1': it is continuous with 1001 distinct "
	                             "values (at most 1000), is it really a site column?");
	for (size_t i = 0; i < 1001; i++)
		ds->x[i * 2] = 4.0;
	assert_null(fb_split_by(ds, "X1", &rest, &err));
	assert_string_equal(err.msg, "cannot split by 'X1': it has only one value, so it would "
	                             "make a single client");
	fb_dataset_free(ds);
}

/* Held-out shares: round(test n) test and round(valid n) validation rows, the same rows for
 * the same seed and others for another, the values untouched; refusals leave ds as it was. */
static void test_hold_out(void **state)
{
	fb_dataset *a = data_make(50, 2), *b = data_make(50, 2);
	fb_error err = { { 0 } };
	size_t nt, *rows;
	int differ = 0;

	(void)state;
	assert_null(a->part);
	assert_int_equal(fb_dataset_hold_out(a, 0.2, 0.1, 7, &err), FB_OK);
	assert_int_equal(fb_dataset_part_count(a, FB_PART_TEST), 10);
	assert_int_equal(fb_dataset_part_count(a, FB_PART_VALID), 5);
	assert_int_equal(fb_dataset_part_count(a, FB_PART_TRAIN), 35);
	assert_int_equal(fb_dataset_hold_out(b, 0.2, 0.1, 7, &err), FB_OK);
	assert_memory_equal(a->part, b->part, 50);
	assert_int_equal(fb_dataset_hold_out(b, 0.2, 0.1, 8, &err), FB_OK);
	differ = memcmp(a->part, b->part, 50) != 0;
	assert_true(differ);
	rows = fb_dataset_part_rows(a, FB_PART_TEST, &nt);
	assert_int_equal(nt, 10);
	for (size_t i = 0; i < nt; i++) {
		assert_true(i == 0 || rows[i] > rows[i - 1]);
		assert_true(fb_dataset_get(a, rows[i], 1) == (double)(rows[i] * 1000 + 1));
	}
	free(rows);
	assert_int_equal(fb_dataset_hold_out(b, 0.6, 0.4, 1, &err), FB_ERR);
	assert_int_equal(fb_dataset_hold_out(b, 0.5, 0.49, 1, &err), FB_ERR);
	assert_string_equal(err.msg, "holding out 25 test and 25 validation rows of 50 leaves no "
	                             "row for training");
	fb_dataset_free(a);
	fb_dataset_free(b);
}

/* bins=: continuous columns cut at the training rows' values of rank floor(n l / k), the
 * held-out rows by the same points; a constant column gets one level, a discrete column is
 * left as it is; fewer than 2 bins is refused with the dataset unchanged. */
static void test_bin(void **state)
{
	fb_dataset *ds = data_make(12, 3);
	char *levels[2] = { (char *)"a", (char *)"b" };
	fb_error err = { { 0 } };
	static const double want[12] = { 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 2 };

	(void)state;
	for (size_t i = 0; i < 12; i++) {
		ds->x[i * 3] = i < 10 ? (double)(i + 1) : (i == 10 ? -5 : 99); /* 1..10 train */
		ds->x[i * 3 + 1] = (double)(i % 2);
		ds->x[i * 3 + 2] = 7;
	}
	assert_int_equal(fb_dataset_set_levels(ds, 1, levels, 2, &err), FB_OK);
	ds->part = calloc(12, 1);
	ds->part[10] = ds->part[11] = FB_PART_TEST;
	assert_int_equal(fb_dataset_bin(ds, 1, &err), FB_ERR);
	assert_string_equal(err.msg, "bins=1: cut into at least 2 bins");
	assert_true(ds->x[0] == 1 && ds->vars[0].kind == FB_CONTINUOUS);
	assert_int_equal(fb_dataset_bin(ds, 3, &err), FB_OK);
	for (size_t i = 0; i < 12; i++) {
		assert_true(ds->x[i * 3] == want[i]);
		assert_true(ds->x[i * 3 + 1] == (double)(i % 2));
		assert_true(ds->x[i * 3 + 2] == 0);
	}
	assert_int_equal(ds->vars[0].nlevels, 3);
	assert_string_equal(ds->vars[0].levels[0], "<4");
	assert_string_equal(ds->vars[0].levels[1], "[4,7)");
	assert_string_equal(ds->vars[0].levels[2], ">=7");
	assert_int_equal(ds->vars[1].nlevels, 2);
	assert_int_equal(ds->vars[2].nlevels, 1);
	fb_dataset_free(ds);
}

/* Standardising: a continuous column's training rows get mean 0 and population variance
 * 1 (sum of squares over n, not n - 1), its held-out rows the training rows' figures; a
 * discrete column is untouched; a column constant on the training rows is centred only
 * and flagged; no training row or a non-finite figure is refused with ds unchanged. */
static void test_standardize(void **state)
{
	fb_dataset *ds = data_make(6, 3), *copy;
	char *levels[3] = { (char *)"a", (char *)"b", (char *)"c" };
	bool flat[3] = { true, true, false };
	fb_error err = { { 0 } };
	double s = 0, ss = 0;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		ds->x[i * 3] = (double)(i + 1);        /* 1..4 train, 5 and 6 held out */
		ds->x[i * 3 + 1] = (double)(i % 3);   /* discrete codes */
		ds->x[i * 3 + 2] = i < 4 ? 0.1 : 0.3; /* constant on the training rows */
	}
	assert_int_equal(fb_dataset_set_levels(ds, 1, levels, 3, &err), FB_OK);
	ds->part = calloc(6, 1);
	ds->part[4] = FB_PART_VALID;
	ds->part[5] = FB_PART_TEST;
	copy = fb_dataset_copy(ds);
	assert_int_equal(fb_dataset_standardize(ds, flat, &err), FB_OK);
	for (size_t i = 0; i < 4; i++) {
		s += fb_dataset_get(ds, i, 0);
		ss += fb_dataset_get(ds, i, 0) * fb_dataset_get(ds, i, 0);
		assert_true(fb_dataset_get(ds, i, 2) == 0.0);
	}
	assert_true(fabs(s) < 1e-12 && fabs(ss / 4 - 1) < 1e-12);
	assert_true(fabs(fb_dataset_get(ds, 5, 0) - 3.5 / sqrt(1.25)) < 1e-12);
	assert_true(fb_dataset_get(ds, 4, 2) == 0.3 - 0.1);
	for (size_t i = 0; i < 6; i++)
		assert_true(fb_dataset_get(ds, i, 1) == (double)(i % 3));
	assert_true(!flat[0] && !flat[1] && flat[2]);
	memset(copy->part, FB_PART_TEST, 6);
	fb_dataset_free(ds);
	ds = fb_dataset_copy(copy);
	assert_int_equal(fb_dataset_standardize(ds, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "there is no training row to standardise by");
	copy->part[0] = FB_PART_TRAIN;
	copy->x[0] = INFINITY;
	fb_dataset_free(ds);
	ds = fb_dataset_copy(copy);
	assert_int_equal(fb_dataset_standardize(ds, NULL, &err), FB_ERR);
	assert_string_equal(err.msg, "column 'X1' cannot be standardised: the mean of its 1 "
	                             "training rows is not finite");
	assert_memory_equal(ds->x, copy->x, 18 * sizeof *ds->x);
	fb_dataset_free(ds);
	fb_dataset_free(copy);
}

/* Stacking files as parts: rows in order, parts marked, labels of a discrete column merged
 * (the first part's, then new ones) with the codes mapped; other names refused. */
static void test_stack(void **state)
{
	fb_dataset *p[2] = { data_make(3, 2), data_make(2, 2) }, *s;
	char *la[2] = { (char *)"yes", (char *)"no" }, *lb[2] = { (char *)"no", (char *)"maybe" };
	const enum fb_part which[2] = { FB_PART_TRAIN, FB_PART_TEST };
	fb_error err = { { 0 } };

	(void)state;
	for (size_t i = 0; i < 3; i++)
		p[0]->x[i * 2 + 1] = (double)(i % 2);     /* yes no yes */
	for (size_t i = 0; i < 2; i++)
		p[1]->x[i * 2 + 1] = (double)(1 - i % 2); /* maybe no */
	assert_int_equal(fb_dataset_set_levels(p[0], 1, la, 2, &err), FB_OK);
	assert_int_equal(fb_dataset_set_levels(p[1], 1, lb, 2, &err), FB_OK);
	s = fb_dataset_stack((const fb_dataset *const *)p, which, 2, &err);
	assert_non_null(s);
	assert_int_equal(s->n, 5);
	assert_int_equal(s->vars[1].nlevels, 3);
	assert_string_equal(s->vars[1].levels[2], "maybe");
	assert_true(fb_dataset_get(s, 3, 1) == 2.0 && fb_dataset_get(s, 4, 1) == 1.0);
	assert_true(fb_dataset_get(s, 2, 1) == 0.0 && fb_dataset_get(s, 4, 0) == 1000.0);
	assert_int_equal(fb_dataset_part(s, 2), FB_PART_TRAIN);
	assert_int_equal(fb_dataset_part(s, 3), FB_PART_TEST);
	fb_dataset_free(s);
	assert_int_equal(fb_dataset_set_name(p[1], 0, "Z", &err), FB_OK);
	assert_null(fb_dataset_stack((const fb_dataset *const *)p, which, 2, &err));
	assert_string_equal(err.msg, "part 2 names variable 1 'Z' and the first 'X1'");
	fb_dataset_free(p[0]);
	fb_dataset_free(p[1]);
}

/* A split keeps each row's part with the client holding it, and the learners' copy of the
 * split keeps only the training rows with their global ids. */
static void test_split_parts(void **state)
{
	fb_dataset *ds = data_make(40, 3);
	fb_split_options o = opts(2);
	fb_partition *p, *t;
	size_t test = 0;

	(void)state;
	assert_int_equal(fb_dataset_hold_out(ds, 0.25, 0, 5, NULL), FB_OK);
	p = fb_split(ds, FB_SPLIT_HORIZONTAL, 3, &o, NULL);
	assert_non_null(p);
	t = fb_partition_train(p);
	assert_non_null(t);
	for (size_t c = 0; c < 3; c++) {
		const fb_client *cl = &p->clients[c], *tl = &t->clients[c];

		for (size_t i = 0; i < cl->data->n; i++)
			assert_int_equal(fb_dataset_part(cl->data, i), fb_dataset_part(ds, cl->rows[i]));
		test += fb_dataset_part_count(cl->data, FB_PART_TEST);
		assert_int_equal(tl->data->n, fb_dataset_part_count(cl->data, FB_PART_TRAIN));
		assert_null(tl->data->part);
		for (size_t i = 0; i < tl->data->n; i++) {
			assert_int_equal(fb_dataset_part(ds, tl->rows[i]), FB_PART_TRAIN);
			assert_true(fb_dataset_get(tl->data, i, 2) == (double)(tl->rows[i] * 1000 + 2));
		}
	}
	assert_int_equal(test, 10);
	fb_partition_free(t);
	fb_partition_free(p);
	fb_dataset_free(ds);
}

/* Run the partition tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dataset),
		cmocka_unit_test(test_horizontal_even),
		cmocka_unit_test(test_horizontal_shuffle_seed),
		cmocka_unit_test(test_horizontal_uneven),
		cmocka_unit_test(test_horizontal_dirichlet),
		cmocka_unit_test(test_horizontal_list),
		cmocka_unit_test(test_vertical),
		cmocka_unit_test(test_horizontal_order),
		cmocka_unit_test(test_horizontal_view),
		cmocka_unit_test(test_vertical_shuffle_cols),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_hybrid_forced_share),
		cmocka_unit_test(test_hybrid_shared_rows),
		cmocka_unit_test(test_hybrid_draw_replace),
		cmocka_unit_test(test_hybrid_draw_refusals),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refusals_cols),
		cmocka_unit_test(test_split_by_discrete),
		cmocka_unit_test(test_split_by_continuous),
		cmocka_unit_test(test_split_by_refusals),
		cmocka_unit_test(test_hold_out),
		cmocka_unit_test(test_standardize),
		cmocka_unit_test(test_bin),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_split_parts),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
