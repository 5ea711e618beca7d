/* The interactive shell: readline's callback interface, so that Ctrl-C at the prompt only
 * sets a flag and the loop clears the line; history on a terminal; completion from the
 * command table.  The only code that includes readline. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "fedbn/core.h"
#include "shell.h"

/* Lines of history kept in the file. */
#define HISTORY_MAX 1000

/* Set by the signal handlers, read by the loop. */
static volatile sig_atomic_t got_sigint, got_sigwinch;

/* The shell's state while it runs (readline's callbacks take no context). */
static struct {
	fb_cmd_ctx *ctx;  /* where commands run */
	char *history;    /* history file, or NULL */
	bool done;        /* quit or end of input */
	char **cands;     /* completion candidates of the current attempt */
	bool files;       /* offer file names after the candidates */
	size_t next;      /* next candidate to hand out */
	bool in_files;    /* the file generator has started */
} sh;

/* SIGINT: set the flag, nothing more. */
static void on_sigint(int sig)
{
	got_sigint = 1;
}

/* SIGWINCH: set the flag, nothing more. */
static void on_sigwinch(int sig)
{
	got_sigwinch = 1;
}

/* Install handler for sig without SA_RESTART, so that select() wakes up. */
static void catch_signal(int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* The history file: $FEDBN_HISTORY, else ~/.fedbn_history, else none. */
static char *history_path(void)
{
	const char *env = getenv("FEDBN_HISTORY"), *home = getenv("HOME");

	if (env != NULL && *env != '\0')
		return fb_xstrdup(env);
	if (home != NULL && *home != '\0')
		return fb_xasprintf("%s/.fedbn_history", home);
	return NULL;
}

/* Run one complete line (NULL: end of input). */
static void on_line(char *line)
{
	if (line == NULL) {
		fputc('\n', sh.ctx->out);
		sh.done = true;
		return;
	}
	if (*line != '\0') {
		add_history(line);
		if (sh.history != NULL && append_history(1, sh.history) != 0)
			write_history(sh.history);
	}
	got_sigint = 0;
	if (fb_cmd_run_line(sh.ctx, line) == FB_CMD_QUIT)
		sh.done = true;
	free(line);
}

/* Readline's generator: the table's candidates, then file names when wanted. */
static char *next_candidate(const char *text, int state)
{
	char *f;

	if (sh.cands != NULL && sh.cands[sh.next] != NULL)
		return fb_xstrdup(sh.cands[sh.next++]);
	if (!sh.files)
		return NULL;
	f = rl_filename_completion_function(text, sh.in_files);
	sh.in_files = 1;
	return f;
}

/* Completion entry point: candidates from the command table for the word at start. */
static char **complete(const char *text, int start, int end)
{
	char **matches;

	sh.cands = fb_cmd_complete(sh.ctx->s, rl_line_buffer, (size_t)start, text, &sh.files);
	sh.next = 0;
	sh.in_files = false;
	rl_attempted_completion_over = 1;
	if (sh.cands[0] != NULL && sh.cands[1] == NULL && !sh.files) {
		size_t len = strlen(sh.cands[0]);

		rl_completion_suppress_append = len > 0 && (sh.cands[0][len - 1] == '=' ||
		                                            sh.cands[0][len - 1] == ':');
	}
	matches = rl_completion_matches(text, next_candidate);
	for (size_t i = 0; sh.cands[i] != NULL; i++)
		free(sh.cands[i]);
	free(sh.cands);
	sh.cands = NULL;
	return matches;
}

/* Ctrl-C at the prompt: drop the line and show a fresh prompt. */
static void clear_line(void)
{
	rl_free_line_state();
	rl_callback_sigcleanup();
	rl_crlf();
	rl_replace_line("", 0);
	rl_on_new_line();
	rl_redisplay();
}

/* Set up readline: history, completion, signals. */
static void shell_open(fb_cmd_ctx *ctx)
{
	memset(&sh, 0, sizeof sh);
	sh.ctx = ctx;
	rl_readline_name = "fedbn";
	rl_catch_signals = 0;
	rl_catch_sigwinch = 0;
	rl_attempted_completion_function = complete;
	rl_basic_word_break_characters = " \t\n;\"'";
	sh.history = history_path();
	stifle_history(HISTORY_MAX);
	if (sh.history != NULL && read_history(sh.history) != 0)
		write_history(sh.history);
	catch_signal(SIGINT, on_sigint);
	catch_signal(SIGWINCH, on_sigwinch);
	rl_callback_handler_install("fedbn> ", on_line);
}

/* Tear readline down and trim the history file. */
static void shell_close(void)
{
	rl_callback_handler_remove();
	if (sh.history != NULL)
		history_truncate_file(sh.history, HISTORY_MAX);
	free(sh.history);
	signal(SIGINT, SIG_DFL);
	signal(SIGWINCH, SIG_DFL);
}

/* Act on the signals that arrived since the last look (also those caught while a command
 * ran, the pane included). */
static void handle_signals(void)
{
	if (got_sigint) {
		got_sigint = 0;
		clear_line();
	}
	if (got_sigwinch) {
		got_sigwinch = 0;
		rl_resize_terminal();
	}
}

/* The interactive loop. */
int fb_shell_run(fb_cmd_ctx *ctx)
{
	fprintf(ctx->out, "type 'help' for the commands or 'demo' for a guided run; Ctrl-D "
	                  "leaves\n");
	shell_open(ctx);
	while (!sh.done) {
		fd_set fds;

		handle_signals();
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		if (select(STDIN_FILENO + 1, &fds, NULL, NULL, NULL) < 0) {
			if (errno != EINTR)
				break;
			continue;
		}
		rl_callback_read_char();
	}
	shell_close();
	return FB_CMD_OK;
}
