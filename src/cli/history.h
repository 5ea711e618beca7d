/* The commands of a session as it ran them, and their saved form: a script that replays the
 * session exactly (every seed and round count written out). */
#ifndef FEDBN_CLI_HISTORY_H
#define FEDBN_CLI_HISTORY_H

#include <stdio.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "session.h"

/* Start recording the command words (the command name first) in s: pending becomes the
 * command's, and the one it interrupts (source runs commands of its own) is returned. */
fb_history_pending *fb_history_begin(fb_session *s, fb_history_pending *pending);
/* Record the command e (NULL: unknown) that ran as words and returned ret, then restore
 * outer as the pending command.  Commands whose entry is marked unrecorded leave no trace. */
void fb_history_end(fb_session *s, fb_history_pending *outer, const fb_cmd_entry *e,
                    char **words, int ret);
/* Add a word (formatted) to the saved form of the command being run, such as the seed it
 * drew from the session seed.  Nothing when no command is being recorded. */
void fb_history_add(fb_session *s, const char *fmt, ...) FB_PRINTF(2, 3);
/* Replace the saved form of the command being run by a whole line (formatted), such as
 * "step 4" for a run the user stopped after four rounds. */
void fb_history_as(fb_session *s, const char *fmt, ...) FB_PRINTF(2, 3);
/* Append w to b as one word the command parser reads back as w (quoted when it must be). */
void fb_history_word(fb_buf *b, const char *w);
/* Write the saved form of every command of s that succeeded to out, one a line, after a
 * header saying how to replay it. */
void fb_history_write(const fb_session *s, FILE *out);
/* Given the first line of a script, print a note when it says that session save wrote it
 * under another version of fedbn or another BLAS kernel family (its bits may differ). */
void fb_history_check_saved(fb_cmd_ctx *ctx, const char *line);

#endif
