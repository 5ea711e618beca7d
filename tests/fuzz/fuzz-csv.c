/* libFuzzer target: the CSV dataset reader on arbitrary bytes.  The first byte picks the
 * options (discrete mode, missing-value policy, header, delimiter); the rest is the file,
 * written to a memory file and read by name through fb_csv_read, the path 'load' takes
 * (fopen, the first line sniffed, then the stream in chunks).  Every dataset read must be well
 * formed: codes within the levels, levels distinct and in the documented order, names
 * unique and non-empty, values finite; and the memory reader must give the same dataset, or
 * the same error, for the same bytes. */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fedbn/csv.h"
#include "../../src/lib/data/csv-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the fuzzer with a message when cond is false. */
static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-csv: broken invariant: %s\n", what);
		abort();
	}
}

/* Options from the bits of one byte. */
static void pick_options(uint8_t b, fb_csv_options *o)
{
	static const char delims[] = { 0, ',', ';', '\t' };

	fb_csv_options_init(o);
	o->discrete = (enum fb_discrete_mode)(b & 3);
	o->discrete_list = "X1,a,b";
	o->max_levels = (size_t)(b >> 2 & 3) * 2;
	o->na = b & 16 ? FB_NA_DROP : FB_NA_ERROR;
	o->header = b & 32 ? -1 : (b >> 6 & 1);
	o->delim = delims[b >> 6 & 3];
}

/* True when level a comes strictly before level b in the reader's order. */
static int level_before(const char *a, const char *b, int numeric)
{
	double x, y;

	if (numeric) {
		fb_csv_number_parse(a, strlen(a), &x);
		fb_csv_number_parse(b, strlen(b), &y);
		if (x != y)
			return x < y;
	}
	return strcmp(a, b) < 0;
}

/* Check one discrete variable's levels and codes. */
static void check_discrete(const fb_dataset *ds, size_t j)
{
	const fb_var *v = &ds->vars[j];
	int numeric = 1;
	double x;

	for (size_t k = 0; k < v->nlevels; k++)
		numeric = numeric && fb_csv_number_parse(v->levels[k], strlen(v->levels[k]), &x);
	for (size_t k = 1; k < v->nlevels; k++)
		check(level_before(v->levels[k - 1], v->levels[k], numeric), "level order");
	for (size_t i = 0; i < ds->n; i++) {
		x = fb_dataset_get(ds, i, j);
		check(x >= 0 && x < (double)v->nlevels && x == (double)(size_t)x, "level code");
	}
}

/* Check the whole dataset. */
static void check_dataset(const fb_dataset *ds)
{
	check(ds->n >= 2 && ds->d >= 2, "size");
	for (size_t j = 0; j < ds->d; j++) {
		check(ds->vars[j].name[0] != '\0', "empty name");
		for (size_t k = 0; k < j; k++)
			check(strcmp(ds->vars[j].name, ds->vars[k].name) != 0, "unique names");
		if (ds->vars[j].kind == FB_DISCRETE)
			check_discrete(ds, j);
		for (size_t i = 0; i < ds->n; i++)
			check(ds->x[i * ds->d + j] - ds->x[i * ds->d + j] == 0, "finite value");
	}
}

/* Check that two datasets read from the same bytes are the same, bit for bit. */
static void check_same(const fb_dataset *a, const fb_dataset *b)
{
	check(a->n == b->n && a->d == b->d, "file and buffer: same size");
	for (size_t j = 0; j < a->d; j++) {
		const fb_var *u = &a->vars[j], *v = &b->vars[j];

		check(strcmp(u->name, v->name) == 0 && u->kind == v->kind &&
		              u->nlevels == v->nlevels,
		      "file and buffer: same variables");
		for (size_t k = 0; k < u->nlevels; k++)
			check(strcmp(u->levels[k], v->levels[k]) == 0, "file and buffer: same levels");
	}
	check(memcmp(a->x, b->x, a->n * a->d * sizeof *a->x) == 0, "file and buffer: same values");
}

/* The file the input is written to: a memory file (made once) opened by its /proc path, so
 * that rewriting it for every input costs no disk traffic. */
static char path[64];

/* Write the bytes to the memory file (made at the first call). */
static void path_write(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-csv", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
}

/* Read the input with the options its first byte picks, from a file and from memory; check
 * the result and that both agree, free them. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fb_csv_options o;
	fb_csv_report rep, rep2;
	fb_error err = { { 0 } }, err2 = { { 0 } };
	fb_dataset *ds, *ds2;

	if (size == 0)
		return 0;
	pick_options(data[0], &o);
	path_write(data + 1, size - 1);
	ds = fb_csv_read(path, &o, &rep, &err);
	ds2 = fb_csv_read_buffer((const char *)data + 1, size - 1, path, &o, &rep2, &err2);
	check((ds == NULL) == (ds2 == NULL), "file and buffer: both read or both fail");
	if (ds == NULL) {
		check(err.msg[0] != '\0', "an error without a message");
		check(strcmp(err.msg, err2.msg) == 0, "file and buffer: the same error");
		return 0;
	}
	check(rep.rows_dropped == rep2.rows_dropped && rep.delim == rep2.delim &&
	              rep.header_detected == rep2.header_detected,
	      "file and buffer: the same report");
	check_dataset(ds);
	check_same(ds, ds2);
	fb_dataset_free(ds);
	fb_dataset_free(ds2);
	return 0;
}
