/* What the unit tests that compare with stored outputs share: reading a data file that may
 * be gzip-compressed (header-only, for tests/unit). */
#ifndef FEDBN_TEST_SLURP_H
#define FEDBN_TEST_SLURP_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#endif
