/* fedbn: a workbench for structure learning over partitioned data. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "fedbn/fedmpi.h"
#include "aslimit.h"
#include "cmd.h"
#include "heartbeat.h"
#include "interrupt.h"
#include "pane.h"
#include "session.h"
#include "shell.h"
#include "site.h"

/* A study over MPI: this process's part in it. */
static struct {
	const char *client; /* --client FILE: this process is a client reading FILE, or NULL */
	const char *key;    /* --key NAME: the column matching the sites' rows, or NULL */
	fb_proto_options opt; /* --timeout: the deadlines */
} site;

/* The longest --timeout: a day, the time a client idles between runs. */
#define TIMEOUT_MAX 86400

/* One thing to run, in command-line order. */
typedef struct job {
	char kind;        /* 'f' script file, 'c' command text */
	const char *arg;  /* the file or the text */
} job;

/* Print the usage text. */
static void usage(FILE *out)
{
	fprintf(out,
	        "usage: fedbn [options] [COMMAND [ARG ...]]\n"
	        "  -f, --file FILE     run the commands in FILE (repeatable)\n"
	        "  -c, --command CMDS  run CMDS, separated by ';' (repeatable)\n"
	        "      --bail          stop at the first failing command\n"
	        "      --no-pane       print one line per round instead of the live pane\n"
	        "      --quiet         no heartbeat on standard error while a long round runs\n"
	        "                      without the pane (a line every 10 s of a round)\n"
	        "      --client FILE   be a client of a study over MPI, reading FILE (%%r: the\n"
	        "                      client's number): mpirun -np 1 fedbn -f study.fbn :\n"
	        "                      -np 4 fedbn --client site-%%r.csv\n"
	        "      --key NAME      with --client: the column that matches the sites' rows\n"
	        "                      (sites holding other variables: vertical or hybrid)\n"
	        "      --timeout SECS  over MPI: how long a client may take to answer (30)\n"
	        "      --man-commands  print the man page's command list (mdoc) and exit\n"
	        "      --man-algorithms  print the man page's algorithm list (mdoc) and exit\n"
	        "  -h, --help          show this help and exit\n"
	        "  -V, --version       show the version and exit\n"
	        "With COMMAND, run that one shell command and exit (e.g. 'fedbn demo'); one\n"
	        "argument holding blanks is a whole command line ('fedbn \"gen er d=3\"').\n"
	        "Without -f, -c or COMMAND: the interactive shell on a terminal, otherwise the\n"
	        "commands read from standard input. Exit status: 0 when every command\n"
	        "succeeded, 1 when one failed, 2 for a usage error.\n");
}

/* Join argv[from..argc) into one command line, quoting each word; a single argument holding
 * blanks or ';' is taken as the command line itself. */
static char *join_command(int argc, char **argv, int from)
{
	fb_buf b = { 0 };

	/* one argument holding blanks or ';' ('fedbn "gen er d=3"') is a command line, as sh -c
	 * takes one: no command's name holds a blank, so it cannot mean one quoted word */
	if (argc - from == 1 && strpbrk(argv[from], " \t;") != NULL)
		return fb_xstrdup(argv[from]);
	for (int i = from; i < argc; i++) {
		fb_buf_append(&b, i > from ? " '" : "'", i > from ? 2 : 1);
		for (const char *p = argv[i]; *p != '\0'; p++) {
			if (*p == '\'')
				fb_buf_append(&b, "'\\''", 4);
			else
				fb_buf_append(&b, p, 1);
		}
		fb_buf_append(&b, "'", 1);
	}
	return b.data;
}

/* Run the jobs in order; the worst status. */
static int run_jobs(fb_cmd_ctx *ctx, const job *jobs, size_t njobs)
{
	int worst = FB_CMD_OK;

	for (size_t i = 0; i < njobs; i++) {
		int ret = jobs[i].kind == 'f' ? fb_cmd_run_file(ctx, jobs[i].arg)
		                              : fb_cmd_run_line(ctx, jobs[i].arg);

		if (ret > worst)
			worst = ret;
		if (ret == FB_CMD_QUIT || (ret == FB_CMD_ERROR && ctx->bail))
			break;
	}
	return worst;
}

/* Parse options into jobs; returns -1 to exit 0 (help, version), 2 on a usage error. */
static int parse_options(int argc, char **argv, fb_cmd_ctx *ctx, job *jobs, size_t *njobs)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "command", required_argument, NULL, 'c' },
		{ "bail", no_argument, NULL, 'b' },
		{ "no-pane", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "client", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "key", required_argument, NULL, 'K' },
		{ "man-commands", no_argument, NULL, 'M' },
		{ "man-algorithms", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+f:c:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
		case 'c':
			jobs[(*njobs)++] = (job){ (char)c, optarg };
			break;
		case 'b':
			ctx->bail = true;
			break;
		case 'P':
			fb_pane_set_enabled(false);
			break;
		case 'q':
			fb_heartbeat_set_enabled(false);
			break;
		case 'C':
			site.client = optarg;
			break;
		case 'K':
			site.key = optarg;
			break;
		case 'T':
			if (fb_parse_double(optarg, &site.opt.timeout) != 0 || !(site.opt.timeout > 0) ||
			    site.opt.timeout > TIMEOUT_MAX) {
				fprintf(stderr, "fedbn: --timeout: '%s' is not a number of seconds above 0 "
				                "and at most %d (a day)\n", optarg, TIMEOUT_MAX);
				return 2;
			}
			break;
		case 'M':
			fb_cmd_print_man(stdout);
			return -1;
		case 'A':
			fb_cmd_print_man_algos(stdout);
			return -1;
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
			printf("fedbn %s (BLAS: %s)\n", PACKAGE_VERSION, FB_BLAS_NAME);
			return -1;
		default:
			usage(stderr);
			return 2;
		}
	}
	return 0;
}

/* Start-up, dispatch to batch or interactive mode, exit status. */
int main(int argc, char **argv)
{
	fb_session session;
	fb_cmd_ctx ctx = { .s = &session, .out = stdout, .err = stderr };
	job *jobs;
	size_t njobs = 0;
	char *single = NULL;
	fb_proto *study = NULL; /* under mpirun: the server's side of the study */
	int ret = fb_aslimit_settle(argv); /* first: it may start the program again */

	if (ret != 0)
		return ret;
	jobs = fb_xcalloc((size_t)argc + 1, sizeof *jobs);
	fb_gsl_install_handler();
	fb_proto_options_init(&site.opt);
	ret = parse_options(argc, argv, &ctx, jobs, &njobs);
	if (ret != 0) {
		free(jobs);
		return ret < 0 ? 0 : ret;
	}
	if (site.key != NULL && site.client == NULL) {
		fprintf(stderr, "fedbn: --key names the key column of a client's file: give it with "
		                "--client\n");
		free(jobs);
		return 2;
	}
	if (site.client != NULL && !fb_mpi_launched()) {
		fprintf(stderr, "fedbn: --client: run it under mpirun, beside a server: mpirun -np 1 "
		                "fedbn -f study.fbn : -np 4 fedbn --client %s\n", site.client);
		free(jobs);
		return 2;
	}
	if (site.client != NULL) {
		free(jobs);
		return fb_site_client(fb_link_mpi_start, site.client, site.key, &site.opt, stdout,
		                      stderr);
	}
	if (optind < argc) {
		single = join_command(argc, argv, optind);
		jobs[njobs++] = (job){ 'c', single };
	}
	fb_session_init(&session);
	if (fb_mpi_launched() &&
	    fb_site_server(&session, fb_link_mpi_start, &site.opt, &study, stdout, stderr) != 0) {
		fb_session_release(&session);
		fb_site_end(study, stderr);
		free(single);
		free(jobs);
		return 1;
	}
	ctx.interactive = njobs == 0 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (njobs > 0)
		ret = run_jobs(&ctx, jobs, njobs);
	else if (ctx.interactive)
		ret = fb_shell_run(&ctx);
	else
		ret = fb_cmd_run_stream(&ctx, stdin, "stdin");
	fb_pane_release();
	fb_session_release(&session);
	if (fb_site_end(study, stderr) != 0)
		ret = FB_CMD_ERROR;
	free(single);
	free(jobs);
	fb_interrupt_leave(); /* SIGTERM stopped a command: end by it, now that all is released */
	return ret == FB_CMD_ERROR ? 1 : 0;
}
