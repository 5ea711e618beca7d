/* Unit tests of sites that each hold their own file: the key column that matches their rows,
 * and the federation (horizontal, vertical, hybrid) their variables and keys make. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/sites.h"

/* An n x d dataset whose value at (i, j) is i * 1000 + j, so every cell is recognisable. */
static fb_dataset *data_make(size_t n, size_t d)
{
	fb_dataset *ds = fb_dataset_alloc(n, d);

	assert_non_null(ds);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < d; j++)
			ds->x[i * d + j] = (double)(i * 1000 + j);
	return ds;
}

/* A site's file as read: ds's rows rows[0..nr) in that order and its columns cols[0..nc),
 * with a column "id" (the global row + 1) put at position at. */
static fb_dataset *site_make(const fb_dataset *ds, const size_t *rows, size_t nr,
                             const size_t *cols, size_t nc, size_t at)
{
	fb_dataset *s = fb_dataset_alloc(nr, nc + 1);
	fb_error err;

	assert_non_null(s);
	for (size_t j = 0; j <= nc; j++) { /* names no variable of ds has, to rename freely */
		char tmp[32];

		snprintf(tmp, sizeof tmp, "tmp%zu", j);
		assert_int_equal(fb_dataset_set_name(s, j, tmp, &err), FB_OK);
	}
	for (size_t j = 0, c = 0; j <= nc; j++) {
		assert_int_equal(fb_dataset_set_name(s, j, j == at ? "id" : ds->vars[cols[c]].name,
		                                     &err), FB_OK);
		for (size_t i = 0; i < nr; i++)
			s->x[i * (nc + 1) + j] = j == at ? (double)(rows[i] + 1)
			                                 : ds->x[rows[i] * ds->d + cols[c]];
		c += j != at;
	}
	return s;
}

/* Sources for messages. */
static char src_a[] = "a.csv", src_b[] = "b.csv", src_c[] = "c.csv";
static char *const sources[] = { src_a, src_b, src_c };

/* s with the key of its row i changed to id (the key is its first column). */
static fb_dataset *with_id(fb_dataset *s, size_t i, double id)
{
	s->x[i * s->d] = id;
	return s;
}

/* Key each of k sites by "id" into out and keys (every one must succeed). */
static void key_all(fb_dataset **sites, size_t k, fb_dataset **out, fb_site_keys *keys)
{
	fb_error err;

	for (size_t c = 0; c < k; c++) {
		out[c] = fb_site_keyed(sites[c], "id", "site", &keys[c], &err);
		assert_non_null(out[c]);
	}
}

/* The federation of k sites keyed by "id" (keyed[] and keys[] filled; it must be built). */
static fb_partition *federate(fb_dataset **sites, size_t k, fb_dataset **keyed,
                              fb_site_keys *keys, fb_dataset **schema)
{
	fb_partition *p;
	fb_error err;

	key_all(sites, k, keyed, keys);
	p = fb_sites_partition((const fb_dataset *const *)keyed, NULL, keys, sources, k, schema,
	                       &err);
	if (p == NULL)
		fail_msg("%s", err.msg);
	return p;
}

/* Free k datasets. */
static void free_all(fb_dataset **ds, size_t k)
{
	for (size_t c = 0; c < k; c++)
		fb_dataset_free(ds[c]);
}

/* The key column leaves, the rows come in the keys' order, and the same keys in another
 * order give the same digest while other keys give another. */
static void test_keyed_order_and_digest(void **state)
{
	fb_dataset *ds = data_make(5, 2), *a, *b, *ka, *kb;
	size_t fwd[] = { 0, 1, 2, 3, 4 }, mixed[] = { 3, 0, 4, 2, 1 };
	size_t cols[] = { 1, 0 };
	fb_site_keys x, y, z;
	fb_error err;

	(void)state;
	a = site_make(ds, fwd, 5, cols, 2, 0);
	b = site_make(ds, mixed, 5, cols, 2, 2);
	ka = fb_site_keyed(a, "id", "a.csv", &x, &err);
	kb = fb_site_keyed(b, "id", "b.csv", &y, &err);
	assert_non_null(ka);
	assert_non_null(kb);
	assert_int_equal(kb->d, 2);
	assert_string_equal(kb->vars[0].name, "X2");
	assert_string_equal(kb->vars[1].name, "X1");
	for (size_t i = 0; i < 5; i++) {
		assert_true(kb->x[i * 2] == ds->x[i * 2 + 1]);
		assert_true(kb->x[i * 2 + 1] == ds->x[i * 2]);
	}
	assert_memory_equal(ka->x, kb->x, 10 * sizeof *ka->x);
	assert_int_equal(x.n, 5);
	assert_string_equal(x.name, "id");
	assert_true(x.digest == y.digest);
	fb_dataset_free(b);
	fb_dataset_free(kb);
	b = site_make(ds, fwd, 4, cols, 2, 0);
	b->x[3 * 3] = 8; /* ids 1, 2, 3, 8 */
	kb = fb_site_keyed(b, "id", "b.csv", &z, &err);
	assert_non_null(kb);
	assert_true(z.digest != x.digest);
	fb_dataset_free(a);
	fb_dataset_free(b);
	fb_dataset_free(ka);
	fb_dataset_free(kb);
	fb_dataset_free(ds);
}

/* A repeated key, a missing key column and a file of the key alone are refused by name. */
static void test_keyed_refusals(void **state)
{
	fb_dataset *ds = data_make(4, 2), *s;
	size_t rows[] = { 0, 1, 1, 3 }, cols[] = { 0, 1 };
	fb_site_keys keys;
	fb_error err;

	(void)state;
	s = site_make(ds, rows, 4, cols, 2, 0);
	assert_null(fb_site_keyed(s, "id", "a.csv", &keys, &err));
	assert_non_null(strstr(err.msg, "'a.csv': the key 'id' repeats the value '2' in rows 2 "
	                                "and 3"));
	assert_null(fb_site_keyed(s, "key", "a.csv", &keys, &err));
	assert_string_equal(err.msg, "'a.csv' has no key column 'key'");
	fb_dataset_free(s);
	s = site_make(ds, rows, 1, cols, 0, 0);
	assert_null(fb_site_keyed(s, "id", "a.csv", &keys, &err));
	assert_string_equal(err.msg, "'a.csv' holds only the key column 'id'");
	fb_dataset_free(s);
	fb_dataset_free(ds);
}

/* Three sites holding column blocks of the same rows, each in its own row order, make the
 * vertical split of the whole data, cell for cell. */
static void test_vertical_as_split(void **state)
{
	fb_dataset *ds = data_make(6, 5), *sites[3], *keyed[3], *schema = NULL;
	size_t fwd[] = { 0, 1, 2, 3, 4, 5 }, rev[] = { 5, 4, 3, 2, 1, 0 },
	       mix[] = { 2, 5, 0, 3, 1, 4 };
	size_t c1[] = { 0, 1 }, c2[] = { 2, 3 }, c3[] = { 4 };
	fb_site_keys keys[3];
	fb_split_options o;
	fb_partition *p, *q;
	fb_error err;

	(void)state;
	sites[0] = site_make(ds, fwd, 6, c1, 2, 0);
	sites[1] = site_make(ds, rev, 6, c2, 2, 1);
	sites[2] = site_make(ds, mix, 6, c3, 1, 1);
	p = federate(sites, 3, keyed, keys, &schema);
	fb_split_options_init(&o);
	o.cols = "X1,X2;X3,X4;X5";
	q = fb_split(ds, FB_SPLIT_VERTICAL, 3, &o, &err);
	assert_non_null(q);
	assert_int_equal(p->kind, FB_SPLIT_VERTICAL);
	assert_int_equal(p->n, 6);
	assert_int_equal(p->d, 5);
	assert_string_equal(p->desc, "vertical 3 key=id rows=6");
	assert_int_equal(schema->d, 5);
	assert_int_equal(schema->n, 0);
	assert_string_equal(schema->vars[4].name, "X5");
	for (size_t c = 0; c < 3; c++) {
		const fb_dataset *x = p->clients[c].data, *y = q->clients[c].data;

		assert_int_equal(x->d, y->d);
		assert_memory_equal(p->clients[c].cols, q->clients[c].cols, x->d * sizeof(size_t));
		assert_memory_equal(p->clients[c].rows, q->clients[c].rows, 6 * sizeof(size_t));
		assert_memory_equal(x->x, y->x, x->n * x->d * sizeof(double));
	}
	fb_partition_free(p);
	fb_partition_free(q);
	fb_dataset_free(schema);
	free_all(sites, 3);
	free_all(keyed, 3);
	fb_dataset_free(ds);
}

/* Two sites with different rows that share a variable make a hybrid federation: the
 * variables in order of first appearance, each site's columns in that order, the rows one
 * site after the other. */
static void test_hybrid(void **state)
{
	fb_dataset *ds = data_make(6, 4), *sites[2], *keyed[2], *schema = NULL;
	size_t r1[] = { 2, 0, 1 }, r2[] = { 5, 3, 4 }, c1[] = { 0, 1, 2 }, c2[] = { 3, 1 };
	fb_site_keys keys[2];
	fb_partition *p;

	(void)state;
	sites[0] = site_make(ds, r1, 3, c1, 3, 3);
	sites[1] = site_make(ds, r2, 3, c2, 2, 0);
	p = federate(sites, 2, keyed, keys, &schema);
	assert_int_equal(p->kind, FB_SPLIT_HYBRID);
	assert_int_equal(p->n, 6);
	assert_int_equal(p->d, 4);
	assert_string_equal(p->desc, "hybrid 2 key=id rows=3,3");
	assert_int_equal(p->clients[1].cols[0], 1);
	assert_int_equal(p->clients[1].cols[1], 3);
	assert_int_equal(p->clients[1].rows[0], 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(p->clients[1].data->x[i * 2] == ds->x[(3 + i) * 4 + 1]);
		assert_true(p->clients[1].data->x[i * 2 + 1] == ds->x[(3 + i) * 4 + 3]);
	}
	fb_partition_free(p);
	fb_dataset_free(schema);
	free_all(sites, 2);
	free_all(keyed, 2);
	fb_dataset_free(ds);
}

/* Site rows rows[0..nr) of ds with its columns cols[0..nc), without a key. */
static fb_dataset *site_plain(const fb_dataset *ds, const size_t *rows, size_t nr,
                              const size_t *cols, size_t nc)
{
	fb_dataset *s = site_make(ds, rows, nr, cols, nc, nc), *out;
	size_t keep[8];

	for (size_t j = 0; j < nc; j++)
		keep[j] = j;
	out = fb_dataset_subset(s, NULL, 0, keep, nc);
	fb_dataset_free(s);
	return out;
}

/* Sites holding the same variables in other orders, without a key, are a horizontal
 * federation: each client's columns in the first site's order, its rows after the last's. */
static void test_horizontal_orders(void **state)
{
	fb_dataset *ds = data_make(4, 3), *sites[2], *schema = NULL;
	size_t r1[] = { 0, 1 }, r2[] = { 2, 3 }, c1[] = { 0, 1, 2 }, c2[] = { 2, 0, 1 };
	fb_partition *p;
	fb_error err;

	(void)state;
	sites[0] = site_plain(ds, r1, 2, c1, 3);
	sites[1] = site_plain(ds, r2, 2, c2, 3);
	p = fb_sites_partition((const fb_dataset *const *)sites, NULL, NULL, sources, 2, &schema,
	                       &err);
	assert_non_null(p);
	assert_int_equal(p->kind, FB_SPLIT_HORIZONTAL);
	assert_string_equal(p->desc, "horizontal 2 rows=2,2");
	assert_int_equal(p->n, 4);
	assert_int_equal(p->clients[1].rows[0], 2);
	assert_memory_equal(p->clients[1].data->x, ds->x + 2 * 3, 6 * sizeof(double));
	assert_string_equal(p->clients[1].data->vars[0].name, "X1");
	fb_partition_free(p);
	fb_dataset_free(schema);
	free_all(sites, 2);
	fb_dataset_free(ds);
}

/* Build the federation of two keyed sites; it must be refused with a message holding
 * what. */
static void refused(fb_dataset *a, fb_dataset *b, bool keyed, const char *what)
{
	fb_dataset *sites[2] = { a, b }, *k[2], *schema = NULL;
	fb_site_keys keys[2];
	fb_error err;

	key_all(sites, 2, k, keys);
	assert_null(fb_sites_partition((const fb_dataset *const *)k, NULL, keyed ? keys : NULL,
	                               sources, 2, &schema, &err));
	if (strstr(err.msg, what) == NULL)
		fail_msg("'%s' lacks '%s'", err.msg, what);
	assert_null(schema);
	free_all(sites, 2);
	free_all(k, 2);
}

/* Sites that do not fit together are refused in one sentence naming them. */
static void test_refusals(void **state)
{
	fb_dataset *ds = data_make(6, 3);
	size_t all[] = { 0, 1, 2, 3, 4, 5 };
	size_t c1[] = { 0 }, c2[] = { 1, 2 }, c12[] = { 0, 1 }, c23[] = { 1, 2 };
	fb_dataset *b;
	fb_error err;
	char lo[] = "lo", hi[] = "hi", *lev[] = { lo, hi };

	(void)state;
	refused(site_make(ds, all, 6, c1, 1, 0), site_make(ds, all, 6, c2, 2, 0), false,
	        "client 2 ('b.csv') holds other variables than client 1 ('a.csv'): sites with "
	        "other columns need a key column");
	refused(site_make(ds, all, 6, c1, 1, 0), site_make(ds, all, 5, c2, 2, 0), true,
	        "client 2 ('b.csv') holds 5 keys and client 1 ('a.csv') 6: in a vertical "
	        "federation");
	refused(site_make(ds, all, 6, c1, 1, 0), with_id(site_make(ds, all, 6, c2, 2, 0), 5, 10), true,
	        "hold 6 keys each but not the same ones");
	refused(site_make(ds, all, 6, c12, 2, 0), site_make(ds, all, 6, c23, 2, 0), true,
	        "clients 1 ('a.csv') and 2 ('b.csv') hold the same keys and share variables");
	b = with_id(site_make(ds, all, 6, c23, 2, 0), 5, 10);
	for (size_t i = 0; i < 6; i++)
		b->x[i * 3 + 1] = (double)(i % 2);
	assert_int_equal(fb_dataset_set_levels(b, 1, lev, 2, &err), FB_OK);
	refused(site_make(ds, all, 6, c12, 2, 0), b, true,
	        "variable 'X2' is continuous at client 1 ('a.csv') and discrete at client 2");
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_order_and_digest),
		cmocka_unit_test(test_keyed_refusals),
		cmocka_unit_test(test_vertical_as_split),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_horizontal_orders),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
