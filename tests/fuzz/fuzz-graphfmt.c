/* libFuzzer target: the graph format readers on arbitrary bytes.  The first byte picks the
 * format (Tetrad, causal-learn, bnlearn, GML, DOT, JSON); a graph read must have distinct,
 * non-empty names and no self-loop, and written back in every format that holds it and read
 * again it must be the same graph. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/graphfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the fuzzer with a message when cond is false. */
static void check(int cond, const char *what)
{
	if (!cond) {
		fprintf(stderr, "fuzz-graphfmt: broken invariant: %s\n", what);
		abort();
	}
}

/* Write g in format f into memory and read it back as the same graph (when f holds it). */
static void round_trip(const fb_graph *g, enum fb_graph_format f)
{
	fb_error err = { { 0 } };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	fb_graph *back;
	int rc;

	check(fp != NULL, "memory stream");
	rc = fb_graph_put(fp, g, f, &err);
	fclose(fp);
	if (rc == FB_OK) {
		back = fb_graph_parse(buf, len, f, "back", NULL, &err);
		check(back != NULL && back->d == g->d, "read back");
		check(memcmp(back->mark, g->mark, g->d * g->d) == 0, "same edges");
		for (size_t i = 0; f != FB_GRAPH_CAUSAL_LEARN && i < g->d; i++)
			check(strcmp(back->names[i], g->names[i]) == 0, "same names");
		fb_graph_free(back);
	}
	free(buf);
}

/* Read the input, check the result, free it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum fb_graph_format pick[] = { FB_GRAPH_TETRAD, FB_GRAPH_CAUSAL_LEARN,
		FB_GRAPH_BNLEARN, FB_GRAPH_GML, FB_GRAPH_DOT, FB_GRAPH_JSON };
	fb_error err = { { 0 } };
	fb_graph *g;

	if (size == 0)
		return 0;
	g = fb_graph_parse((const char *)data + 1, size - 1, pick[data[0] % 6], "fuzz", NULL,
	                   &err);
	if (g == NULL) {
		check(strncmp(err.msg, "cannot read 'fuzz': ", 20) == 0, "error message");
		return 0;
	}
	for (size_t i = 0; i < g->d; i++) {
		check(g->names[i][0] != '\0' && g->mark[i * g->d + i] == 0, "name, no self-loop");
		for (size_t j = 0; j < i; j++)
			check(strcmp(g->names[i], g->names[j]) != 0, "distinct names");
	}
	for (size_t k = 0; k < 6; k++)
		round_trip(g, pick[k]);
	fb_graph_free(g);
	return 0;
}
