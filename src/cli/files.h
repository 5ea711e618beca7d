/* The files a session has read and written, and the one rule every command that writes a
 * file follows before replacing one. */
#ifndef FEDBN_CLI_FILES_H
#define FEDBN_CLI_FILES_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "cmd.h"

/* One file the session read or wrote, known by its device and inode (so that two spellings
 * of one path, or a link to it, are the same file). */
typedef struct fb_file_mark {
	dev_t dev;        /* the file's device */
	ino_t ino;        /* the file's inode */
	const char *role; /* what the session read from it ("the dataset was loaded from it"),
	                     or NULL when the session only wrote it (static text) */
	struct timespec mtime; /* its modification time when the session last wrote it */
	off_t size;       /* its size then */
} fb_file_mark;

/* The force= parameter of every command that writes a file. */
#define FB_CMD_PARAM_FORCE                                                                 \
	{ "force", FB_PARAM_BOOL, "no", 0, 0, NULL,                                         \
	  "replace FILE even when it is a file this session read, one fedbn did not write, " \
	  "or one changed since fedbn wrote it" }

/* Remember that the session read path; role says what it read ("a script", "the dataset
 * was loaded from it"; static text). */
void fb_files_note_read(fb_cmd_ctx *ctx, const char *path, const char *role);
/* Remember that the session wrote path. */
void fb_files_note_written(fb_cmd_ctx *ctx, const char *path);
/* Forget path (a scratch file about to be removed, whose inode a later file may get). */
void fb_files_forget(fb_cmd_ctx *ctx, const char *path);
/* May the command write path?  Yes when it does not exist, is a device or pipe (written in place),
 * or is a regular file this session did not read that fedbn wrote, in this session or an
 * earlier one (written.h), and nobody changed since (same file, modification time and size);
 * otherwise only with force.
 * FB_CMD_ERROR after printing the reason. */
int fb_files_check_target(fb_cmd_ctx *ctx, const char *path, bool force);
/* fb_files_check_target with force taken from the command's force= parameter. */
int fb_files_check(fb_cmd_ctx *ctx, const char *path, const fb_params *p);

#endif
