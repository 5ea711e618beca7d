/* Commands about the shell itself: help, quit, echo, seed, source. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/core.h"
#include "cmd.h"
#include "session.h"

/* Print an algorithm's name and summary, its plain introduction and its precise description,
 * wrapped at width. */
static void print_algo(FILE *out, const fb_algo *al, size_t width)
{
	fprintf(out, "%s: %s\n", al->name, al->summary);
	fb_cmd_print_wrapped(out, al->intro, width, 0);
	fputc('\n', out);
	fb_cmd_print_wrapped(out, al->help, width, 0);
	fputc('\n', out);
}

/* help algo NAME: an algorithm's description and parameters. */
static int help_algo(fb_cmd_ctx *ctx, const char *name)
{
	fb_error err = { { 0 } };
	const fb_algo *al, *inner;
	size_t width = fb_cmd_width(ctx->out);

	if (fb_algo_lookup(name, &al, &inner, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	print_algo(ctx->out, al, width);
	if (inner != NULL)
		print_algo(ctx->out, inner, width);
	fb_cmd_print_params(ctx->out, fb_algo_params(al, inner), 14, width);
	return FB_CMD_OK;
}

/* help [COMMAND | algo NAME]: the list, one command's help, or an algorithm's. */
static int exec_help(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_error err;
	const fb_cmd_entry *e;

	if (a->argc == 2 && strcmp(a->argv[0], "algo") == 0)
		return help_algo(ctx, a->argv[1]);
	if (a->argc == 2)
		return fb_cmd_error(ctx, "usage: help [COMMAND | algo NAME]");
	if (a->argc == 0) {
		fb_cmd_print_list(ctx->out);
		return FB_CMD_OK;
	}
	if ((e = fb_cmd_find(a->argv[0], &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_cmd_print_help(ctx->out, e);
	return FB_CMD_OK;
}

/* quit: leave the shell. */
static int exec_quit(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	return FB_CMD_QUIT;
}

/* echo TEXT...: print the words. */
static int exec_echo(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	for (int i = 0; i < a->argc; i++)
		fprintf(ctx->out, "%s%s", i ? " " : "", a->argv[i]);
	fputc('\n', ctx->out);
	return FB_CMD_OK;
}

/* seed [N]: show or set the session seed. */
static int exec_seed(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	int64_t v;

	if (a->argc == 0) {
		fprintf(ctx->out, "seed %" PRIu64 "\n", ctx->s->seed);
		return FB_CMD_OK;
	}
	if (fb_parse_int64(a->argv[0], &v) != FB_OK || v < 0)
		return fb_cmd_error(ctx, "'%s' is not a whole number >= 0", a->argv[0]);
	ctx->s->seed = (uint64_t)v;
	return FB_CMD_OK;
}

/* source FILE: run a script's commands; 'quit' in it ends the script only. */
static int exec_source(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	int ret = fb_cmd_run_file(ctx, a->argv[0]);

	return ret == FB_CMD_QUIT ? FB_CMD_OK : ret;
}

const fb_cmd_entry fb_cmd_help = {
	.name = "help", .alias = "?", .usage = "[COMMAND | algo NAME]",
	.summary = "list the commands, or explain one",
	.help = "Without an argument, list every command with a one-line summary. With a "
	        "command name (or a unique prefix), show its usage, what it does and its "
	        "key=value parameters with their ranges and defaults. 'help algo NAME' describes "
	        "an algorithm and its parameters.",
	.min_args = 0, .max_args = 2, .complete = FB_COMPLETE_COMMAND, .exec = exec_help,
};

const fb_cmd_entry fb_cmd_quit = {
	.name = "quit", .alias = "exit", .usage = "",
	.summary = "leave fedbn (Ctrl-D does the same)",
	.help = "Leave fedbn. In a file run by source, stop reading that file.",
	.min_args = 0, .max_args = 0, .exec = exec_quit,
	.unrecorded = true,
};

const fb_cmd_entry fb_cmd_echo = {
	.name = "echo", .usage = "[TEXT ...]", .summary = "print text",
	.help = "Print the words given, separated by single spaces (useful in scripts).",
	.min_args = 0, .max_args = -1, .exec = exec_echo,
};

const fb_cmd_entry fb_cmd_seed = {
	.name = "seed", .usage = "[N]", .summary = "show or set the session's default seed",
	.help = "Show the session seed, or set it to N. gen and split use it when they are not "
	        "given seed=; the same seed, data and parameters always give the same result.",
	.min_args = 0, .max_args = 1, .exec = exec_seed,
};

const fb_cmd_entry fb_cmd_source = {
	.name = "source", .usage = "FILE", .summary = "run the commands in a script file",
	.help = "Run FILE's commands one line at a time, as if typed. Errors name the file and "
	        "line; with --bail the script stops at the first one.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .exec = exec_source,
	.unrecorded = true,
};
