/* Splitting a command line into commands and words (the parser the fuzzer drives). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "cmd.h"

/* The words and commands being built while scanning a line. */
typedef struct line_parse {
	char ***cmds;  /* commands so far, each a NULL-terminated word array */
	int ncmds;     /* how many */
	char **words;  /* words of the current command */
	size_t nwords; /* how many */
	fb_buf word;   /* the current word */
	bool inword;   /* a word has started (possibly empty: "") */
} line_parse;

/* End the current word, if any. */
static void end_word(line_parse *lp)
{
	if (!lp->inword)
		return;
	lp->words = fb_xreallocarray(lp->words, lp->nwords + 2, sizeof *lp->words);
	lp->words[lp->nwords++] = lp->word.data != NULL ? lp->word.data : fb_xstrdup("");
	lp->words[lp->nwords] = NULL;
	lp->word = (fb_buf){ 0 };
	lp->inword = false;
}

/* End the current command, if it has words. */
static void end_cmd(line_parse *lp)
{
	end_word(lp);
	if (lp->nwords == 0)
		return;
	lp->cmds = fb_xreallocarray(lp->cmds, (size_t)lp->ncmds + 1, sizeof *lp->cmds);
	lp->cmds[lp->ncmds++] = lp->words;
	lp->words = NULL;
	lp->nwords = 0;
}

/* Free everything built so far. */
static void discard(line_parse *lp)
{
	end_cmd(lp);
	fb_cmd_free_split(lp->cmds, lp->ncmds);
	fb_buf_release(&lp->word);
}

/* Append one character to the current word. */
static void put(line_parse *lp, char c)
{
	fb_buf_append(&lp->word, &c, 1);
	lp->inword = true;
}

/* The value of the hexadecimal digit c, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The byte of the escape \xHH at s (HH two hexadecimal digits, not 00), or -1 when s does
 * not start one (then the backslash keeps the next character as it is). */
static int hex_escape(const char *s)
{
	int hi, lo;

	if (s[0] != '\\' || s[1] != 'x' || (hi = hex_digit(s[2])) < 0 || (lo = hex_digit(s[3])) < 0)
		return -1;
	return hi * 16 + lo > 0 ? hi * 16 + lo : -1;
}

/* Scan a quoted run starting after the opening quote at line[*i]; FB_ERR when unclosed.
 * Inside "...", \xHH is the byte HH (how a saved session writes control characters, a new
 * line above all), and a backslash keeps any other next character as it is. */
static int scan_quoted(line_parse *lp, const char *line, size_t *i, fb_error *err)
{
	char q = line[*i];
	size_t open = *i;

	lp->inword = true;
	for ((*i)++; line[*i] != q; (*i)++) {
		int byte;

		if (line[*i] == '\0')
			return fb_fail(err, "column %zu: unterminated %s quote", open + 1,
			               q == '"' ? "double" : "single");
		if (q == '"' && (byte = hex_escape(line + *i)) >= 0) {
			put(lp, (char)byte);
			*i += 3;
			continue;
		}
		if (q == '"' && line[*i] == '\\' && line[*i + 1] != '\0')
			(*i)++;
		put(lp, line[*i]);
	}
	return FB_OK;
}

/* Split a line into commands and words. */
int fb_cmd_split_line(const char *line, char ****cmds, fb_error *err)
{
	line_parse lp = { 0 };

	for (size_t i = 0; line[i] != '\0'; i++) {
		char c = line[i];

		if (c == '"' || c == '\'') {
			if (scan_quoted(&lp, line, &i, err) != FB_OK) {
				discard(&lp);
				return FB_ERR;
			}
		} else if (c == '\\' && line[i + 1] != '\0') {
			put(&lp, line[++i]);
		} else if (c == ';') {
			end_cmd(&lp);
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			end_word(&lp);
		} else if (c == '#' && !lp.inword) {
			break;
		} else {
			put(&lp, c);
		}
	}
	end_cmd(&lp);
	*cmds = lp.cmds;
	return lp.ncmds;
}

/* Free what fb_cmd_split_line returned. */
void fb_cmd_free_split(char ***cmds, int n)
{
	for (int c = 0; c < n; c++) {
		for (size_t w = 0; cmds[c][w] != NULL; w++)
			free(cmds[c][w]);
		free(cmds[c]);
	}
	free(cmds);
}
