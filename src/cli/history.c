/* The commands of a session: recorded as they run, with what each handler resolved (seeds
 * drawn from the session seed, rounds actually stepped), and written as a script. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

/* Start recording a command. */
fb_history_pending *fb_history_begin(fb_session *s, fb_history_pending *pending)
{
	fb_history_pending *outer = s->pending;

	memset(pending, 0, sizeof *pending);
	pending->written = s->nwritten;
	s->pending = pending;
	return outer;
}

/* Whether the byte c is a control character: written as \xHH inside double quotes, so that
 * no saved line holds a new line (which would end it, and start a command of its own) or
 * another byte a terminal or an editor acts on. */
static bool byte_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Whether w must be quoted to be read back as one word. */
static bool word_needs_quotes(const char *w)
{
	if (w[0] == '\0' || w[0] == '#' || strpbrk(w, " \t\"'\\;") != NULL)
		return true;
	for (const char *p = w; *p != '\0'; p++)
		if (byte_is_control((unsigned char)*p))
			return true;
	return false;
}

/* Append one word, quoted when it must be: inside double quotes, '"' and '\\' behind a
 * backslash, control characters as \xHH (the parser, cmd-parse.c, reads both back). */
void fb_history_word(fb_buf *b, const char *w)
{
	if (b->len > 0)
		fb_buf_append(b, " ", 1);
	if (!word_needs_quotes(w)) {
		fb_buf_append(b, w, strlen(w));
		return;
	}
	fb_buf_append(b, "\"", 1);
	for (const char *p = w; *p != '\0'; p++) {
		if (byte_is_control((unsigned char)*p)) {
			char hex[5];

			snprintf(hex, sizeof hex, "\\x%02X", (unsigned)(unsigned char)*p);
			fb_buf_append(b, hex, 4);
			continue;
		}
		if (*p == '"' || *p == '\\')
			fb_buf_append(b, "\\", 1);
		fb_buf_append(b, p, 1);
	}
	fb_buf_append(b, "\"", 1);
}

/* The words as one line (caller frees). */
static char *history_join(char **words)
{
	fb_buf b = { 0 };

	for (size_t i = 0; words[i] != NULL; i++)
		fb_history_word(&b, words[i]);
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* The saved form of a command that ran: its replacement, or its words plus what it
 * resolved, or a comment when it wrote a file (a replay must not replace files). */
static char *history_saved(const fb_session *s, const fb_history_pending *p, const char *typed,
                           int ret)
{
	if (p->as != NULL)
		return fb_xstrdup(p->as);
	if (ret != FB_CMD_OK)
		return NULL;
	if (s->nwritten > p->written)
		return fb_xasprintf("# %s", typed);
	if (p->extra.len > 0)
		return fb_xasprintf("%s %s", typed, p->extra.data);
	return fb_xstrdup(typed);
}

/* Record a command that ran. */
void fb_history_end(fb_session *s, fb_history_pending *outer, const fb_cmd_entry *e,
                    char **words, int ret)
{
	fb_history_pending *p = s->pending;
	fb_history_entry *h;

	s->pending = outer;
	if (e == NULL || !e->unrecorded) {
		s->hist = fb_xreallocarray(s->hist, s->nhist + 1, sizeof *s->hist);
		h = &s->hist[s->nhist++];
		h->typed = history_join(words);
		h->saved = history_saved(s, p, h->typed, e != NULL ? ret : FB_CMD_ERROR);
		h->failed = h->saved == NULL;
	}
	fb_buf_release(&p->extra);
	free(p->as);
}

/* Add a word to the saved form. */
void fb_history_add(fb_session *s, const char *fmt, ...)
{
	va_list ap;
	char *word;

	if (s->pending == NULL)
		return;
	va_start(ap, fmt);
	word = fb_xvasprintf(fmt, ap);
	va_end(ap);
	fb_history_word(&s->pending->extra, word);
	free(word);
}

/* Replace the saved form. */
void fb_history_as(fb_session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->pending == NULL)
		return;
	free(s->pending->as);
	va_start(ap, fmt);
	s->pending->as = fb_xvasprintf(fmt, ap);
	va_end(ap);
}

/* The start of a saved session's first line: then the version, the BLAS and its kernel. */
#define SAVED_BY "# saved by fedbn "

/* Write the script. */
void fb_history_write(const fb_session *s, FILE *out)
{
	fprintf(out, SAVED_BY "%s, BLAS %s kernel %s (another version or kernel family may give "
	        "other last bits)\n", PACKAGE_VERSION, FB_BLAS_NAME, fb_blas_kernel());
	fprintf(out, "# fedbn session: 'fedbn -f FILE' replays it with the same results.\n"
	             "# Seeds and round counts are written out; commands that wrote a file are\n"
	             "# kept as comments, so that a replay replaces no file.\n");
	for (size_t i = 0; i < s->nhist; i++)
		if (!s->hist[i].failed)
			fprintf(out, "%s\n", s->hist[i].saved);
}

/* The first line of a script: when session save wrote it under another version of fedbn or
 * another BLAS kernel family, a note saying that the results may differ in their last bits. */
void fb_history_check_saved(fb_cmd_ctx *ctx, const char *line)
{
	char version[32], kernel[32], fam[32], ours[32];
	const char *now = fb_blas_kernel();

	if (strncmp(line, SAVED_BY, strlen(SAVED_BY)) != 0 ||
	    sscanf(line + strlen(SAVED_BY), "%31[^, ], BLAS %*s kernel %31[^ \r\n]", version,
	           kernel) != 2)
		return;
	if (strcmp(version, PACKAGE_VERSION) == 0 &&
	    strcmp(fb_blas_family(kernel, fam, sizeof fam), fb_blas_family(now, ours, sizeof ours)) ==
	            0)
		return;
	fflush(ctx->err);
	fprintf(ctx->out, "%s%snote: saved by fedbn %s with the BLAS kernel %s, replayed by fedbn %s "
	        "with %s: results may differ in their last bits\n", ctx->where ? ctx->where : "",
	        ctx->where ? ": " : "", fb_cmd_name(version), fb_cmd_name(kernel), PACKAGE_VERSION,
	        now);
}
