/* libFuzzer target: whole sessions.  Each input is a few command lines (one a line) run
 * against a fresh session, as the shell would run them.  The harness confines the session to
 * a scratch folder: it changes into a folder of its own, refreshed for every input with a
 * small CSV, BIF, truth and script file, and skips any line that holds a '/', '..' or '~'.
 * It also keeps each input cheap, so that the fuzzer tries hundreds a second rather than a
 * few: it skips lines with a whole number above 12 (n= above 500; seed= any); an algorithm's
 * whole-number parameters that the input left at a default above 12 (iterations, epochs,
 * hidden units) are set to 12 before each command, the bound the input itself could write;
 * and a run stops between rounds after 4 rounds (16 in all per input), through its own
 * definition of the Ctrl-C flag that the run loop reads after each round (a count, not a
 * clock, so that an input always does the same).  A failing command must print why. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "../../src/cli/cmd.h"
#include "../../src/cli/interrupt.h"
#include "../../src/cli/pane.h"
#include "../../src/cli/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rounds one run, step or watch may go before it stops between rounds: a later round runs the
 * same code as the first ones, and the algorithms that end within a few rounds on the small
 * data here (PC, FedPC, the combinators, the circuits) still end. */
#define RUN_ROUNDS 4
/* Rounds (and other checks of the flag) one input may use in all. */
#define INPUT_ROUNDS 16
/* Largest whole number a line may hold (n= and seed= aside), and largest default of an
 * algorithm's whole-number parameter. */
#define NUMBER_MAX 12
/* Largest row count a line may ask for. */
#define ROWS_MAX 500

/* The files every input finds in its folder. */
static const struct {
	const char *name; /* file name in the scratch folder */
	const char *text; /* its contents */
} fixtures[] = {
	{ "data.csv", "a,b,c,d\n1.5,x,3,0.25\n2.5,y,1,0.5\n-1,x,2,0.75\n0,z,3,1\n"
	              "3.25,y,1,-0.5\n1,x,2,0\n" },
	{ "truth.csv", "from,to\na,b\nb,c\nc,d\n" },
	{ "net.bif", "network n {\n}\n"
	             "variable a { type discrete [ 2 ] { yes, no }; }\n"
	             "variable b { type discrete [ 3 ] { lo, mid, hi }; }\n"
	             "variable c { type discrete [ 2 ] { t, f }; }\n"
	             "probability ( a ) { table 0.3, 0.7; }\n"
	             "probability ( b | a ) { (yes) 0.2, 0.5, 0.3; (no) 0.6, 0.3, 0.1; }\n"
	             "probability ( c | a, b ) { default 0.5, 0.5; (yes, lo) 0.9, 0.1; }\n" },
	{ "script.fbn", "gen er d=4 n=40 seed=2\nsplit horizontal 2; info\n" },
};

/* The scratch folder (made once, in memory when /dev/shm exists), where every input runs. */
static char folder[] = "/dev/shm/fuzz-commands.XXXXXX";
/* Checks of the Ctrl-C flag since the last fb_interrupt_begin, and in the current input. */
static size_t bracket_checks, input_checks;

/* The program's Ctrl-C hooks (interrupt.c), replaced by a budget: no signal handling.  All of
 * interrupt.h is defined here, so that interrupt.c is not linked in. */
void fb_interrupt_begin(void)
{
	bracket_checks = 0;
}

/* Nothing to put back. */
void fb_interrupt_end(void)
{
}

/* Read after each round (and once after a long call): true once the run has used
 * RUN_ROUNDS rounds or the input INPUT_ROUNDS, so the run stops between rounds. */
bool fb_interrupted(void)
{
	bracket_checks++;
	input_checks++;
	return bracket_checks >= RUN_ROUNDS || input_checks >= INPUT_ROUNDS;
}

/* Long library calls (gen, export) are never cancelled here. */
fb_cancel fb_interrupt_cancel(void)
{
	return (fb_cancel){ .fn = NULL, .ctx = NULL };
}

/* A run stopped by the budget is told as one stopped by Ctrl-C. */
const char *fb_interrupt_cause(void)
{
	return "Ctrl-C";
}

/* No SIGTERM arrives here. */
bool fb_terminating(void)
{
	return false;
}

/* Nothing to end. */
void fb_interrupt_leave(void)
{
}

/* Remove the scratch folder at exit. */
static void folder_remove(void)
{
	DIR *d;
	struct dirent *e;

	if (chdir("/") != 0 || (d = opendir(folder)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(folder);
}

/* Empty the scratch folder and write the fixtures into it. */
static void folder_refresh(void)
{
	DIR *d = opendir(".");
	struct dirent *e;

	if (d == NULL)
		abort();
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(e->d_name);
	closedir(d);
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		FILE *f = fopen(fixtures[i].name, "w");

		if (f == NULL || fputs(fixtures[i].text, f) < 0 || fclose(f) != 0)
			abort();
	}
}

/* Make the scratch folder and move into it (once). */
static void folder_enter(void)
{
	static bool done;

	if (done)
		return;
	if (access("/dev/shm", W_OK) != 0)
		memcpy(folder, "/tmp/fuzz-commands.XXXXXX", sizeof "/tmp/fuzz-commands.XXXXXX");
	if (mkdtemp(folder) == NULL || chdir(folder) != 0)
		abort();
	atexit(folder_remove);
	done = true;
}

/* True when the number starting at p is allowed: the key before it sets the limit. */
static bool number_allowed(const char *line, const char *p, unsigned long long v)
{
	if (p - line >= 5 && strncmp(p - 5, "seed=", 5) == 0)
		return true;
	if (p - line >= 2 && strncmp(p - 2, "n=", 2) == 0 && (p - line == 2 || p[-3] == ' '))
		return v <= ROWS_MAX;
	return v <= NUMBER_MAX;
}

/* True when p starts a whole number: a digit after neither a digit nor a decimal point. */
static bool number_starts(const char *line, const char *p)
{
	bool digit = *p >= '0' && *p <= '9';

	return digit && (p == line || !((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.'));
}

/* True when the line stays inside the folder and asks for nothing too large. */
static bool line_allowed(const char *line)
{
	if (strchr(line, '/') != NULL || strchr(line, '~') != NULL || strstr(line, "..") != NULL)
		return false;
	for (const char *p = line; *p != '\0'; p++) {
		unsigned long long v = 0;

		if (!number_starts(line, p))
			continue;
		for (const char *q = p; *q >= '0' && *q <= '9' && v <= 1000000; q++)
			v = v * 10 + (unsigned)(*q - '0');
		if (!number_allowed(line, p, v))
			return false;
	}
	return true;
}

/* Set each whole-number parameter of the chosen algorithm that the input left at a default
 * above NUMBER_MAX to NUMBER_MAX, where its range allows. */
static void params_cap(fb_session *s)
{
	fb_params *p = &s->params;
	fb_error err = { { 0 } };
	char word[128];

	for (size_t i = 0; s->algo != NULL && i < p->n; i++) {
		const fb_param_def *def = &p->defs[i];

		if (def->type != FB_PARAM_INT || p->v[i].given || !p->v[i].set ||
		    p->v[i].i <= NUMBER_MAX || def->min > NUMBER_MAX)
			continue;
		snprintf(word, sizeof word, "%s=%d", def->name, NUMBER_MAX);
		fb_params_set_word(p, word, "fuzz-commands", &err);
	}
}

/* Run one command (words), or a whole line when words is NULL; a failing command must have
 * printed its reason. */
static int run_checked(fb_cmd_ctx *ctx, const char *line, char **words, FILE *err)
{
	long before, after;
	int ret;

	fflush(err);
	before = ftell(err);
	ret = words != NULL ? fb_cmd_run_words(ctx, words) : fb_cmd_run_line(ctx, line);
	fflush(err);
	after = ftell(err);
	if (ret == FB_CMD_ERROR && after == before) {
		fprintf(stderr, "fuzz-commands: '%s' failed without a message\n", line);
		abort();
	}
	return ret;
}

/* Run one line a command at a time, as fb_cmd_run_line would, with the parameters capped
 * before each command; a line that does not split runs whole, to fail with its message. */
static int run_line(fb_cmd_ctx *ctx, const char *line, FILE *err)
{
	fb_error split_err = { { 0 } };
	char ***cmds;
	int n = fb_cmd_split_line(line, &cmds, &split_err), ret = FB_CMD_OK;

	if (n < 0)
		return run_checked(ctx, line, NULL, err);
	for (int c = 0; c < n && ret != FB_CMD_QUIT; c++) {
		params_cap(ctx->s);
		ret = run_checked(ctx, line, cmds[c], err);
	}
	fb_cmd_free_split(cmds, n);
	return ret;
}

/* Run the input's lines against a fresh session in the refreshed folder. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *line, *save = NULL;
	char *errbuf = NULL;
	size_t errlen = 0;
	FILE *out = fopen("/dev/null", "w"), *err = open_memstream(&errbuf, &errlen);
	fb_session s;
	fb_cmd_ctx ctx = { .s = &s, .out = out, .err = err };

	if (text == NULL || out == NULL || err == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	folder_enter();
	folder_refresh();
	fb_gsl_install_handler();
	fb_pane_set_enabled(false);
	fb_session_init(&s);
	input_checks = 0;
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		if (line_allowed(line) && run_line(&ctx, line, err) == FB_CMD_QUIT)
			break;
	fb_session_release(&s);
	fclose(out);
	fclose(err);
	free(errbuf);
	free(text);
	return 0;
}
