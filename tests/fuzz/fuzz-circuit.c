/* libFuzzer target: the circuit text reader on arbitrary bytes.  A file it accepts must be
 * a valid circuit that marginalises to log 1, completes and samples a row, and writes back
 * to text that reads again to the same text; a file it refuses must leave one sentence. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the fuzzer with a message when cond is false. */
static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-circuit: broken invariant: %s\n", what);
		abort();
	}
}

/* The circuit written as text (caller frees). */
static char *write_text(const fb_circuit *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	check(fp != NULL, "open_memstream");
	check(fb_circuit_write(c, fp, NULL) == FB_OK, "a circuit read writes back");
	fclose(fp);
	return text;
}

/* Queries on an accepted circuit: all-unobserved rows, MPE, a sample, a round trip. */
static void exercise(const fb_circuit *c)
{
	double *row = malloc(c->nvars * sizeof *row), lp;
	gsl_rng *r = fb_rng_stream(1, "fuzz");
	char *a = write_text(c), *b;
	fb_circuit *d = NULL;
	FILE *fp;

	check(row != NULL, "memory");
	for (size_t j = 0; j < c->nvars; j++)
		row[j] = NAN;
	check(fb_circuit_logpdf(c, row, 1, &lp, NULL) == FB_OK, "logpdf");
	check(fabs(lp) < 1e-6, "marginalising every variable gives log 1");
	check(fb_circuit_mpe(c, row, 1, &lp, NULL) == FB_OK, "mpe");
	check(fb_circuit_sample(c, 1, r, row, NULL) == FB_OK, "sample");
	fp = fmemopen(a, strlen(a), "r");
	check(fp != NULL && fb_circuit_read(fp, "again", &d, NULL) == FB_OK, "text reads again");
	fclose(fp);
	b = write_text(d);
	check(strcmp(a, b) == 0, "a round trip keeps the text");
	fb_circuit_free(d);
	free(a);
	free(b);
	gsl_rng_free(r);
	free(row);
}

/* Read data as a circuit file. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = size > 0 ? fmemopen((void *)data, size, "r") : NULL;
	fb_circuit *c = NULL;
	fb_error err = { { 0 } };

	if (fp == NULL)
		return 0;
	if (fb_circuit_read(fp, "fuzz", &c, &err) == FB_OK) {
		check(fb_circuit_check(c, NULL) == FB_OK, "a circuit read is valid");
		exercise(c);
		fb_circuit_free(c);
	} else {
		check(c == NULL && err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL,
		      "a refusal leaves one sentence");
	}
	fclose(fp);
	return 0;
}
