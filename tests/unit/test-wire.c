/* Tests of the wire format: a frame comes back with the same bits, its control numbers and
 * flags too; a short frame, another version, an unknown type, too many control numbers and
 * lengths that do not add up are each refused by a sentence;
 * a site's description comes back whole, and a garbled one is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/wire.h"

/* A message of three numbers (one of them -0.0 and one NaN) and five bytes. */
static void sample(fb_msg *m)
{
	double *d = fb_msg_doubles(m, 3);

	d[0] = -0.0;
	d[1] = 1.0 / 3.0;
	d[2] = NAN;
	memcpy(fb_msg_bytes(m, 5), "ab\0cd", 5);
}

/* A frame decodes to the same header and the same bits. */
static void test_round_trip(void **unused)
{
	fb_msg m = { 0 }, back = { 0 };
	fb_wire_head h = { FB_WIRE_REPLY, 7, 12, 2.5, 0 }, g;
	fb_error err;
	size_t len;
	unsigned char *buf;

	sample(&m);
	buf = fb_wire_encode(&h, &m, &len);
	assert_int_equal(len, FB_WIRE_HEADER + 3 * 8 + 5);
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_OK);
	assert_int_equal(g.type, FB_WIRE_REPLY);
	assert_int_equal(g.run, 7);
	assert_int_equal(g.round, 12);
	assert_true(g.figure == 2.5);
	assert_int_equal(back.nd, 3);
	assert_int_equal(back.nb, 5);
	assert_memory_equal(back.d, m.d, 3 * sizeof(double));
	assert_memory_equal(back.b, m.b, 5);
	assert_int_equal(back.nc, 0);
	free(buf);
	fb_msg_release(&m);
	fb_msg_release(&back);
}

/* Control numbers travel between the header and the payload, 8 bytes each, and come back
 * with the same bits; the flags come back too. */
static void test_control(void **unused)
{
	fb_msg m = { 0 }, back = { 0 };
	fb_wire_head h = { FB_WIRE_ROUND, 2, 3, 0, FB_WIRE_LISTEN }, g;
	const double c[3] = { 0.5, 1e300, -0.0 };
	double first;
	fb_error err;
	size_t len;
	unsigned char *buf;

	sample(&m);
	fb_msg_control(&m, c, 3);
	assert_int_equal(fb_msg_size(&m), 3 * 8 + 5); /* the payload alone */
	buf = fb_wire_encode(&h, &m, &len);
	assert_int_equal(len, FB_WIRE_HEADER + 3 * 8 + 3 * 8 + 5);
	memcpy(&first, buf + FB_WIRE_HEADER, sizeof first);
	assert_true(first == 0.5);
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_OK);
	assert_int_equal(g.flags, FB_WIRE_LISTEN);
	assert_int_equal(back.nc, 3);
	assert_memory_equal(back.c, c, sizeof c);
	assert_memory_equal(back.d, m.d, 3 * sizeof(double));
	assert_memory_equal(back.b, m.b, 5);
	buf[5] = FB_MSG_CONTROL + 1;
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "5 control numbers, more than 4"));
	buf[5] = 2; /* one control number fewer: the lengths no longer add up */
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "announces 2 control numbers, 3 numbers and 5 bytes"));
	fb_msg_copy(&back, &m);
	assert_int_equal(back.nc, 3);
	assert_memory_equal(back.c, c, sizeof c);
	free(buf);
	fb_msg_release(&m);
	fb_msg_release(&back);
}

/* Every malformed frame is refused with a sentence saying what is wrong. */
static void test_malformed(void **unused)
{
	fb_msg m = { 0 }, back = { 0 };
	fb_wire_head h = { FB_WIRE_ROUND, 1, 1, 0, 0 }, g;
	fb_error err;
	size_t len;
	unsigned char *buf;

	sample(&m);
	buf = fb_wire_encode(&h, &m, &len);
	assert_int_equal(fb_wire_decode(buf, 39, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "shorter than the 40-byte header"));
	assert_int_equal(fb_wire_decode(buf, len - 1, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "announces 0 control numbers, 3 numbers and 5 bytes"));
	buf[3] = 9;
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "wire version 9"));
	buf[3] = FB_WIRE_VERSION;
	buf[4] = 99;
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "unknown type 99"));
	buf[4] = FB_WIRE_ROUND;
	buf[16] = 0xff; /* a huge count of numbers */
	buf[23] = 0xff;
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	buf[0] = 'X';
	assert_int_equal(fb_wire_decode(buf, len, &g, &back, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "fedbn's mark"));
	free(buf);
	fb_msg_release(&m);
	fb_msg_release(&back);
}

/* A site's description: rows, names, kinds and levels come back; no value travels. */
static void test_schema(void **unused)
{
	fb_dataset *ds = fb_dataset_alloc(4, 3), *back;
	char lo[] = "lo", hi[] = "hi", *lev[] = { lo, hi }, *src = NULL;
	fb_msg m = { 0 };
	fb_error err;
	size_t rows = 0;

	assert_int_equal(fb_dataset_set_name(ds, 0, "X3", &err), FB_ERR); /* variable 3's name */
	assert_int_equal(fb_dataset_set_name(ds, 2, "b", &err), FB_OK);
	assert_int_equal(fb_dataset_set_name(ds, 0, "X3", &err), FB_OK);
	assert_int_equal(fb_dataset_set_levels(ds, 1, lev, 2, &err), FB_OK);
	fb_wire_schema_encode(ds, "site-1.csv", &m);
	back = fb_wire_schema_decode(&m, &rows, &src, &err);
	assert_non_null(back);
	assert_int_equal(rows, 4);
	assert_int_equal(back->n, 0);
	assert_int_equal(back->d, 3);
	assert_string_equal(src, "site-1.csv");
	assert_string_equal(back->vars[0].name, "X3");
	assert_string_equal(back->vars[2].name, "b");
	assert_int_equal(back->vars[1].kind, FB_DISCRETE);
	assert_string_equal(back->vars[1].levels[1], "hi");
	fb_dataset_free(back);
	free(src);
	m.nb -= 2; /* cut inside the last name */
	assert_null(fb_wire_schema_decode(&m, &rows, &src, &err));
	assert_non_null(strstr(err.msg, "cut short or garbled"));
	m.d[2] = 2.0;
	assert_null(fb_wire_schema_decode(&m, &rows, &src, &err));
	assert_non_null(strstr(err.msg, "byte order"));
	fb_msg_release(&m);
	fb_dataset_free(ds);
}

/* A site's keys ride on its description and come off again, leaving the description whole;
 * a description without keys has none, and garbled keys are refused. */
static void test_keys(void **unused)
{
	fb_dataset *ds = fb_dataset_alloc(5, 2), *back;
	fb_site_keys keys = { "patient id", 5, 0xfedcba9876543210ULL }, got;
	fb_msg m = { 0 };
	fb_error err;
	size_t rows = 0;
	char *src = NULL;

	fb_wire_schema_encode(ds, "site-2.csv", &m);
	assert_int_equal(fb_wire_keys_take(&m, &got, &err), 0);
	fb_wire_keys_put(&m, &keys);
	assert_int_equal(fb_wire_keys_take(&m, &got, &err), 1);
	assert_string_equal(got.name, "patient id");
	assert_int_equal(got.n, 5);
	assert_true(got.digest == keys.digest);
	back = fb_wire_schema_decode(&m, &rows, &src, &err);
	assert_non_null(back);
	assert_int_equal(rows, 5);
	assert_string_equal(src, "site-2.csv");
	fb_dataset_free(back);
	free(src);
	fb_wire_keys_put(&m, &keys);
	m.nb--; /* the key's name loses its end */
	assert_int_equal(fb_wire_keys_take(&m, &got, &err), FB_ERR);
	assert_non_null(strstr(err.msg, "garbled"));
	fb_msg_release(&m);
	fb_dataset_free(ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_control),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
