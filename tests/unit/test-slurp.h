/* What the unit tests that compare with stored outputs share: reading a data file that may
 * be gzip-compressed, and causal-learn's d x d output matrices (header-only, for
 * tests/unit). */
#ifndef FEDBN_TEST_SLURP_H
#define FEDBN_TEST_SLURP_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/graph.h"

/* Read all of path into a new buffer (through gzip -dc when the name ends in .gz); NULL when
 * it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	size_t n = strlen(path), cap = 1 << 16, got = 0, k;
	bool gz = n > 3 && strcmp(path + n - 3, ".gz") == 0;
	char cmd[4200], *buf;
	FILE *fp;

	if (access(path, R_OK) != 0 || strchr(path, '\'') != NULL)
		return NULL;
	snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
	fp = gz ? popen(cmd, "r") : fopen(path, "r");
	assert_non_null(fp);
	buf = malloc(cap);
	while ((k = fread(buf + got, 1, cap - got, fp)) > 0)
		if ((got += k) == cap)
			buf = realloc(buf, cap *= 2);
	if (gz)
		assert_int_equal(pclose(fp), 0);
	else
		fclose(fp);
	*len = got;
	return buf;
}

/* Read causal-learn's d x d output: G[j][i] = 1, G[i][j] = -1 is i -> j; -1 both ways is
 * i - j; anything else (1 both ways, i <-> j, which a graph cannot hold) fails the test. */
static inline fb_graph *read_cl_matrix(const char *path, size_t d)
{
	FILE *fp = fopen(path, "r");
	int *G = calloc(d * d, sizeof *G);
	fb_graph *g = fb_graph_alloc(d);

	assert_non_null(fp);
	for (size_t k = 0; k < d * d; k++)
		assert_int_equal(fscanf(fp, "%d", &G[k]), 1);
	fclose(fp);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			int a = G[i * d + j], b = G[j * d + i];

			if (a == -1 && b == 1)
				fb_graph_set_directed(g, i, j, 1.0);
			else if (a == 1 && b == -1)
				fb_graph_set_directed(g, j, i, 1.0);
			else if (a == -1 && b == -1)
				fb_graph_set_undirected(g, i, j);
			else if (a != 0 || b != 0)
				fail_msg("%s: entries (%zu,%zu) = %d, %d", path, i, j, a, b);
		}
	free(G);
	return g;
}

#endif
