/* Ctrl-C during a run sets a flag, nothing more; a second one exits. */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

/* Set by the handler, read between rounds. */
static volatile sig_atomic_t interrupted;
/* The handlers before the run began. */
static struct sigaction saved_int, saved_term;

/* SIGINT during a run: ask the loop to stop; a second time, leave at once. */
static void on_interrupt(int sig)
{
	static const char msg[] = "\nfedbn: interrupted twice, leaving\n";

	if (interrupted) {
		if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0)
			_exit(130);
		_exit(130);
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
