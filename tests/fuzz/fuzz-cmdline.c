/* libFuzzer target: the shell's line splitter, the argument checker (each command found and
 * its key=value words checked against its table, without running it) and completion, on
 * arbitrary text.  A command the checker refuses must say why. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "../../src/cli/cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Check the arguments of each command of the line; a refusal must print its reason. */
static void check_commands(char ***cmds, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	fb_cmd_ctx ctx = { .out = err, .err = err };

	if (err == NULL)
		abort();
	for (int c = 0; c < n; c++) {
		fb_cmd_args a;
		size_t before;

		if (cmds[c][0] == NULL)
			continue;
		fflush(err);
		before = len;
		if (fb_cmd_parse_words(&ctx, cmds[c], &a) == NULL && (fflush(err), len == before)) {
			fprintf(stderr, "fuzz-cmdline: '%s' refused without a message\n", cmds[c][0]);
			abort();
		}
		fb_cmd_args_release(&a);
	}
	fclose(err);
	free(buf);
}

/* Split, check and complete one NUL-terminated copy of the input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	fb_error err;
	char ***cmds;
	bool files;
	char **c;
	int n;

	memcpy(line, data, size);
	line[size] = '\0';
	n = fb_cmd_split_line(line, &cmds, &err);
	if (n >= 0) {
		check_commands(cmds, n);
		fb_cmd_free_split(cmds, n);
	}
	c = fb_cmd_complete(NULL, line, strlen(line), "", &files);
	for (size_t i = 0; c[i] != NULL; i++)
		free(c[i]);
	free(c);
	free(line);
	return 0;
}
