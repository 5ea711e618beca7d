/* Batch mode: commands from a script file or a non-terminal standard input. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "files.h"
#include "history.h"

/* How deep 'source' may nest before it is taken for a loop. */
#define MAX_SOURCE_DEPTH 16

/* Read the next line of fp, its line end kept, into line; 1 when one was read, 0 at the end
 * of the input (or a read error), -1 when the line is longer than FB_LINE_MAX (an endless
 * input such as /dev/zero: the rest is not read). */
static int read_line(FILE *fp, fb_buf *line)
{
	int c;

	line->len = 0;
	fb_buf_append(line, "", 0);
	while ((c = getc(fp)) != EOF) {
		char byte = (char)c;

		if (line->len >= FB_LINE_MAX)
			return -1;
		fb_buf_append(line, &byte, 1);
		if (c == '\n')
			return 1;
	}
	return line->len > 0 ? 1 : 0;
}

/* Run every line of fp; positions in messages are "name:LINE". */
int fb_cmd_run_stream(fb_cmd_ctx *ctx, FILE *fp, const char *name)
{
	const char *saved = ctx->where;
	char *where = NULL, why[128];
	fb_buf line = { 0 };
	size_t lineno = 0;
	int worst = FB_CMD_OK, got;

	while ((got = read_line(fp, &line)) > 0) {
		int ret;

		lineno++;
		free(where);
		where = fb_xasprintf("%s:%zu", name, lineno);
		ctx->where = where;
		if (lineno == 1)
			fb_history_check_saved(ctx, line.data);
		ret = fb_cmd_run_line(ctx, line.data);
		if (ret > worst)
			worst = ret;
		if (ret == FB_CMD_QUIT || (ret == FB_CMD_ERROR && ctx->bail))
			break;
	}
	ctx->where = saved;
	if (got < 0)
		worst = fb_cmd_error_plain(ctx, "cannot read '%s': line %zu is longer than "
		                           FB_LINE_MAX_TEXT ", the longest line fedbn reads; the rest "
		                           "is not run", name, lineno + 1);
	else if (got == 0 && ferror(fp))
		worst = fb_cmd_error_plain(ctx, "cannot read '%s': %s", name,
		                           fb_strerror(errno, why, sizeof why));
	free(where);
	fb_buf_release(&line);
	return worst;
}

/* Run a script file. */
int fb_cmd_run_file(fb_cmd_ctx *ctx, const char *path)
{
	char why[128];
	struct stat st;
	FILE *fp;
	int ret;

	if (ctx->depth >= MAX_SOURCE_DEPTH)
		return fb_cmd_error_plain(ctx, "cannot source '%s': scripts nested more than %d "
		                               "deep", path, MAX_SOURCE_DEPTH);
	fp = fopen(path, "r");
	if (fp == NULL)
		return fb_cmd_error_plain(ctx, "cannot read '%s': %s", path,
		                          fb_strerror(errno, why, sizeof why));
	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(fp);
		return fb_cmd_error_plain(ctx, "cannot read '%s': it is a folder, not a script",
		                          path);
	}
	fb_files_note_read(ctx, path, "it was run as a script");
	ctx->depth++;
	ret = fb_cmd_run_stream(ctx, fp, path);
	ctx->depth--;
	fclose(fp);
	return ret;
}
