/* Ctrl-C during a run sets a flag, nothing more; a second one exits.  SIGTERM sets the same
 * flag and asks the program to end once the command has cleaned up. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

/* Set by the handler, read between rounds. */
static volatile sig_atomic_t interrupted;
/* Set by SIGTERM: the program ends after the current command. */
static volatile sig_atomic_t terminating;
/* The handlers before the run began. */
static struct sigaction saved_int, saved_term;

/* Write msg to standard error and leave with status, async-signal-safe. */
static void leave_now(const char *msg, size_t len, int status)
{
	if (write(STDERR_FILENO, msg, len) < 0)
		_exit(status);
	_exit(status);
}

/* SIGINT or SIGTERM during a command: ask it to stop; a second time, leave at once. */
static void on_interrupt(int sig)
{
	static const char twice[] = "\nfedbn: interrupted twice, leaving\n";
	static const char term[] = "\nfedbn: terminated twice, leaving\n";

	if (sig == SIGTERM) {
		if (terminating)
			leave_now(term, sizeof term - 1, 128 + SIGTERM);
		terminating = 1;
	} else if (interrupted) {
		leave_now(twice, sizeof twice - 1, 130);
	}
	interrupted = 1;
}

/* Catch SIGINT and SIGTERM for the run. */
void fb_interrupt_begin(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_interrupt;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &saved_int);
	sigaction(SIGTERM, &sa, &saved_term);
}

/* Restore the previous handlers. */
void fb_interrupt_end(void)
{
	sigaction(SIGINT, &saved_int, NULL);
	sigaction(SIGTERM, &saved_term, NULL);
}

/* Whether Ctrl-C was pressed. */
bool fb_interrupted(void)
{
	return interrupted != 0;
}

/* What stopped the command, for its sentence. */
const char *fb_interrupt_cause(void)
{
	return terminating ? "SIGTERM" : "Ctrl-C";
}

/* Whether SIGTERM asked the program to end. */
bool fb_terminating(void)
{
	return terminating != 0;
}

/* End the program by SIGTERM, with the default action, when SIGTERM asked for it. */
void fb_interrupt_leave(void)
{
	if (!terminating)
		return;
	fflush(NULL);
	signal(SIGTERM, SIG_DFL);
	raise(SIGTERM);
}

/* fb_cancel callback: the flag. */
static bool interrupt_asked(void *ctx)
{
	(void)ctx;
	return interrupted != 0;
}

/* A cancel request for library calls that reads the Ctrl-C flag. */
fb_cancel fb_interrupt_cancel(void)
{
	return (fb_cancel){ .fn = interrupt_asked, .ctx = NULL };
}
