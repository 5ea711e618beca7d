/* Ctrl-C during a run: the first sets a flag that the run loop reads between rounds; a second
 * one while the run is stopping ends the program.  SIGTERM (a scheduler's, timeout's) stops
 * the command the same way, and the program then ends by SIGTERM instead of going on. */
#ifndef FEDBN_CLI_INTERRUPT_H
#define FEDBN_CLI_INTERRUPT_H

#include <stdbool.h>

#include "fedbn/core.h"

/* Catch SIGINT (and SIGTERM) for the length of a run, with the flag cleared. */
void fb_interrupt_begin(void);
/* Put back the handlers that were there before fb_interrupt_begin. */
void fb_interrupt_end(void);
/* Whether Ctrl-C was pressed since fb_interrupt_begin. */
bool fb_interrupted(void);
/* A cancel request for a long library call (gen, export) that says stop once Ctrl-C was
 * pressed between fb_interrupt_begin and fb_interrupt_end. */
fb_cancel fb_interrupt_cancel(void);
/* "SIGTERM" when SIGTERM stopped the command, else "Ctrl-C": for the stop sentences. */
const char *fb_interrupt_cause(void);
/* Whether SIGTERM arrived while a command held the handlers: no further command runs. */
bool fb_terminating(void);
/* When fb_terminating, flush the output and end the program by SIGTERM (status 143 to a
 * shell); otherwise nothing. */
void fb_interrupt_leave(void);

#endif
