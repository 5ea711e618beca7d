/* libFuzzer target: a saved session's words read back.  The input is a command's words,
 * split at NUL bytes (any other byte allowed, control characters and quotes included).  Each
 * word is saved as session save writes it (fb_history_word); the saved line must hold no
 * control character (a new line would end it and start a command of its own), split back
 * into exactly one command with the same words, byte for byte, and, written as the comment a
 * command that wrote a file is saved as, split into no command at all. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "../../src/cli/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop the run with a message: the saved line of words broke the rule named by what. */
static void broken(const char *what, const char *line)
{
	fprintf(stderr, "fuzz-history: %s: %s\n", what, line);
	abort();
}

/* The line must split into one command whose words are the nw words at words. */
static void check_split(const char *line, char **words, size_t nw)
{
	fb_error err;
	char ***cmds;
	int n = fb_cmd_split_line(line, &cmds, &err);
	size_t k = 0;

	if (n != 1)
		broken("not one command", line);
	for (; cmds[0][k] != NULL; k++)
		if (k >= nw || strcmp(cmds[0][k], words[k]) != 0)
			broken("other words", line);
	if (k != nw)
		broken("fewer words", line);
	fb_cmd_free_split(cmds, n);
}

/* The comment form must split into no command. */
static void check_comment(const char *line)
{
	char *comment = fb_xasprintf("# %s", line);
	fb_error err;
	char ***cmds;
	int n = fb_cmd_split_line(comment, &cmds, &err);

	if (n != 0)
		broken("a comment that runs a command", comment);
	fb_cmd_free_split(cmds, n);
	free(comment);
}

/* Save the words of one input and read them back. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), **words = malloc((size + 1) * sizeof *words);
	size_t nw = 0, start = 0;
	fb_buf b = { 0 };

	memcpy(text, data, size);
	text[size] = '\0';
	for (size_t i = 0; i <= size; i++)
		if (i == size || text[i] == '\0') {
			words[nw++] = text + start;
			start = i + 1;
		}
	for (size_t k = 0; k < nw; k++)
		fb_history_word(&b, words[k]);
	for (size_t i = 0; i < b.len; i++)
		if ((unsigned char)b.data[i] < 0x20 || b.data[i] == 0x7f)
			broken("a control character in the saved line", b.data);
	check_split(b.data, words, nw);
	check_comment(b.data);
	fb_buf_release(&b);
	free(words);
	free(text);
	return 0;
}
