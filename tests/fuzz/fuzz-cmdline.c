/* libFuzzer target: the shell's line splitter and completion on arbitrary text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "../../src/cli/cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Split and complete one NUL-terminated copy of the input. */
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
	if (n >= 0)
		fb_cmd_free_split(cmds, n);
	c = fb_cmd_complete(NULL, line, strlen(line), "", &files);
	for (size_t i = 0; c[i] != NULL; i++)
		free(c[i]);
	free(c);
	free(line);
	return 0;
}
