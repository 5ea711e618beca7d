/* history and session: the commands of the session, and the session saved as a script. */
#include "config.h"

#include <string.h>

#include "cmd.h"
#include "files.h"
#include "history.h"
#include "session.h"

/* history: every command of the session, numbered, with its saved form when it differs. */
static int exec_history(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_session *s = ctx->s;

	for (size_t i = 0; i < s->nhist; i++) {
		const fb_history_entry *h = &s->hist[i];

		fprintf(ctx->out, "%5zu  %s%s\n", i + 1, h->typed, h->failed ? "  (failed)" : "");
		if (!h->failed && strcmp(h->saved, h->typed) != 0)
			fprintf(ctx->out, "       saved as: %s\n", h->saved);
	}
	if (s->nhist == 0)
		fprintf(ctx->out, "no command yet\n");
	return FB_CMD_OK;
}

/* The words session takes first. */
enum session_word { SESSION_SAVE };
/* Their names. */
static const fb_choice session_words[] = { { "save", SESSION_SAVE }, { 0 } };

/* session save FILE: the session as a script that replays it. */
static int exec_session(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_error err = { { 0 } };
	fb_atomic_file af;
	size_t n = 0;

	if (a->argc != 2)
		return fb_cmd_error(ctx, "give the file to write, as in 'session save "
		                         "s.fbn'");
	if (fb_files_check(ctx, a->argv[1], &a->params) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_atomic_open(&af, a->argv[1], &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_history_write(ctx->s, af.fp);
	if (fb_atomic_commit(&af, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, a->argv[1]);
	for (size_t i = 0; i < ctx->s->nhist; i++)
		n += !ctx->s->hist[i].failed;
	fprintf(ctx->out, "wrote '%s' (%zu command%s); 'fedbn -f %s' replays it\n", a->argv[1], n,
	        n == 1 ? "" : "s", a->argv[1]);
	return FB_CMD_OK;
}

/* session's parameters. */
static const fb_param_def session_params[] = {
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_history = {
	.name = "history", .usage = "", .summary = "list the commands of the session",
	.help = "List every command run in this session, numbered, failed ones marked. Where "
	        "session save writes a command differently, the saved form follows: a gen, "
	        "split or sample without seed= is saved with the seed it drew from the session "
	        "seed, a run or step with the rounds it actually ran (step N when it stopped "
	        "early), and a command that wrote a file as a comment. history and session are "
	        "not listed; the commands of a sourced script or of the demo are, one by one.",
	.min_args = 0, .max_args = 0, .exec = exec_history, .unrecorded = true,
};

const fb_cmd_entry fb_cmd_session = {
	.name = "session", .usage = "save FILE",
	.summary = "save the session as a script that replays it",
	.help = "Write the commands of the session that succeeded, in their saved form (see "
	        "help history), to FILE. 'fedbn -f FILE' (or source FILE in a new session) "
	        "replays them and gives the same data, splits and results bit for bit: every "
	        "seed is written out, and a run is stepped exactly the rounds it was. Commands "
	        "that wrote a file (save, export, truth save, compare out=, report) are kept as "
	        "comments, so that a replay replaces no file; paths are as typed, so replay from "
	        "the same folder. An existing FILE is replaced only when this session wrote it "
	        "and did not read it, or with force=yes.",
	.min_args = 1, .max_args = 2, .words = session_words, .complete = FB_COMPLETE_FILE,
	.params = session_params, .exec = exec_session, .unrecorded = true,
};
