/* demo: a short guided run on data the program makes itself. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "fedbn/export.h"
#include "cmd.h"
#include "files.h"
#include "session.h"

/* The demo's steps, in order. */
enum { DEMO_STEPS = 8 };

/* One key from the terminal, without echo or waiting for a line; -1 at end of input or when
 * a signal (Ctrl-C) interrupts the wait. */
static int demo_key_read(void)
{
	struct termios saved, raw;
	unsigned char c;
	ssize_t got;

	if (tcgetattr(STDIN_FILENO, &saved) != 0)
		return -1;
	raw = saved;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	got = read(STDIN_FILENO, &c, 1);
	tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return got == 1 ? c : -1;
}

/* Print the sentence before a step; on a terminal, wait for Enter (true) or q (false). */
static bool demo_pause(fb_cmd_ctx *ctx, const char *sentence)
{
	int c;

	if (!ctx->interactive) {
		fprintf(ctx->out, "\n%s\n", sentence);
		return true;
	}
	fprintf(ctx->out, "\n%s [Enter: next step, q: stop]", sentence);
	fflush(ctx->out);
	do
		c = demo_key_read();
	while (c != -1 && c != '\n' && c != '\r' && c != ' ' && c != 'q' && c != 'Q' && c != 27);
	fputc('\n', ctx->out);
	if (c == '\n' || c == '\r' || c == ' ')
		return true;
	fprintf(ctx->out, "demo stopped; the session keeps what it made so far\n");
	return false;
}

/* Show a command as if typed at the prompt, then run it. */
static int demo_step(fb_cmd_ctx *ctx, const char *line)
{
	fprintf(ctx->out, "fedbn> %s\n", line);
	fflush(ctx->out);
	return fb_cmd_run_line(ctx, line);
}

/* The demo's introduction: what it does, and whether it pauses between steps. */
static void demo_intro(fb_cmd_ctx *ctx)
{
	fprintf(ctx->out, "fedbn demo: simulate a linear-Gaussian dataset from a random DAG, "
	                  "split its rows over 10 clients, learn the DAG by NOTEARS-ADMM (only "
	                  "weight matrices travel), and draw it against the truth.\n");
	if (!ctx->interactive)
		fprintf(ctx->out, "(not guided here: the steps run one after another; 'demo' typed "
		                  "in the interactive shell pauses before each one)\n");
}

/* Whether the demo may draw into path (param names it): a picture format, not a folder, in a
 * folder that exists; checked before any step, so that a bad name leaves the session as it
 * was.  FB_CMD_ERROR after saying why. */
static int demo_check_target(fb_cmd_ctx *ctx, const char *param, const char *path)
{
	fb_error err = { { 0 } };
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? fb_xstrdup(".")
	                          : fb_xasprintf("%.*s", slash == path ? 1 : (int)(slash - path),
	                                         path);
	struct stat st;
	int ret = FB_CMD_OK;

	if (fb_export_format_check(path, &err) != FB_OK)
		ret = fb_cmd_error(ctx, "%s=: %s", param, err.msg);
	else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		ret = fb_cmd_error(ctx, "%s=: cannot write '%s': its folder '%s' does not exist",
		                   param, path, dir);
	else
		ret = fb_files_check_target(ctx, path, true); /* a folder of that name */
	free(dir);
	return ret;
}

/* The demo's two pictures: both writable, and not one file. */
static int demo_check_files(fb_cmd_ctx *ctx, const char *truth, const char *diff)
{
	if (strcmp(truth, diff) == 0)
		return fb_cmd_error(ctx, "truth= and diff= name the same file '%s'; the second "
		                         "picture would replace the first", truth);
	if (demo_check_target(ctx, "truth", truth) != FB_CMD_OK ||
	    demo_check_target(ctx, "diff", diff) != FB_CMD_OK)
		return FB_CMD_ERROR;
	return FB_CMD_OK;
}

/* demo [truth=FILE] [diff=FILE]: simulate, split, learn by NOTEARS-ADMM, draw.  Its case is
 * fixed (seed 1): 12 edges in 300 rows, which NOTEARS-ADMM learns with one error to discuss;
 * guided, the pane opens at 3 rounds a second so that the rounds can be followed. */
static int exec_demo(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *truth = fb_params_str(&a->params, "truth");
	const char *diff = fb_params_str(&a->params, "diff");
	char *exp_truth = fb_xasprintf("export \"%s\" what=truth force=yes", truth);
	char *exp_diff = fb_xasprintf("export \"%s\" what=diff force=yes", diff);
	const char *steps[DEMO_STEPS] = { "gen er d=10 edges=12 n=300 seed=1",
		                          "split horizontal 10", "clients", "algo notears-admm",
		                          ctx->interactive ? "run pace=3" : "run", "result",
		                          exp_truth, exp_diff };
	static const char *const why[DEMO_STEPS] = {
		"First the data: 300 rows drawn from a linear-Gaussian model on a random DAG of 10 "
		"variables and 12 edges; that DAG is the truth to recover.",
		"Split the rows over 10 clients of 30 rows each; no client sees another's rows.",
		"Each client holds its own rows of all 10 variables.",
		"NOTEARS-ADMM: each round every client sends its weight matrix to the server and "
		"gets the consensus matrix W back; rows never travel.",
		"Run it: about 200 rounds, one line each (on a terminal a live pane at 3 rounds a "
		"second: + and - change the pace, b and f go back and forward, m shows the "
		"matrices, q comes back here).",
		"Why rho and the objective grew: the penalties follow a fixed schedule, rho1 x1.75 "
		"and rho2 x1.25 every round (gamma1, gamma2) whatever the progress, so acyclicity "
		"and consensus weigh more each round; alpha also grows by rho1 h per round, and as "
		"floating point never brings h exactly to 0, alpha h keeps raising the objective "
		"after the graph has settled. Next, the learned DAG against the truth.",
		"Draw the true DAG.",
		"Draw the learned DAG against the truth: missing, extra and reversed edges stand "
		"out. Which edge is wrong, and how large is its weight beside the threshold 0.3?",
	};
	int ret = demo_check_files(ctx, truth, diff);

	if (ret != FB_CMD_OK) {
		free(exp_truth);
		free(exp_diff);
		return ret;
	}
	demo_intro(ctx);
	for (size_t i = 0; i < DEMO_STEPS && ret == FB_CMD_OK; i++) {
		if (!demo_pause(ctx, why[i]))
			break;
		ret = demo_step(ctx, steps[i]);
	}
	if (ret == FB_CMD_OK)
		fprintf(ctx->out, "\nThe true DAG is in '%s', the learned one against it in '%s'. "
		                  "Type 'help' for every command.\n", truth, diff);
	free(exp_truth);
	free(exp_diff);
	return ret;
}

/* demo's parameters. */
static const fb_param_def demo_params[] = {
	{ "truth", FB_PARAM_STRING, "demo-truth.png", 0, 0, NULL,
	  "where to draw the true DAG (.png, .svg or .dot)" },
	{ "diff", FB_PARAM_STRING, "demo-diff.png", 0, 0, NULL,
	  "where to draw the learned DAG against the truth" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_demo = {
	.name = "demo", .usage = "[truth=FILE] [diff=FILE]", .summary = "a guided run on simulated data",
	.help = "Simulate a dataset (gen er d=10 edges=12 n=300 seed=1: a case the learner gets "
	        "nearly right, with an error to discuss), split "
	        "it horizontally over 10 clients, learn its DAG by NOTEARS-ADMM round by round, "
	        "show the result, and draw the true DAG (truth=FILE) and the learned one against "
	        "it (diff=FILE), replacing those two files when they exist (their names are "
	        "checked before the first step: a picture format, an existing folder, two "
	        "files). Each step is printed "
	        "as the command it runs, to be typed again, after one sentence saying what it "
	        "does. Typed in the interactive shell, the demo is guided: it waits before each "
	        "step for Enter (go on) or q (stop, keeping what was made so far), and the pane "
	        "opens at 3 rounds a second (run pace=3); elsewhere the steps run one after "
	        "another at full speed.",
	.min_args = 0, .max_args = 0, .params = demo_params, .exec = exec_demo,
	.unrecorded = true,
};
