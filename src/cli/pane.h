/* The live pane: a full-screen ncurses view of one run that steps it round by round and draws
 * its trace (progress plots, the weighted graph against the truth, the clients, the
 * algorithm's own detail).  It only reads run and trace state; the caller decides whether the
 * pane is wanted (a terminal, not switched off) and prints what happened after it closes.
 * Nothing here needs the curses headers. */
#ifndef FEDBN_CLI_PANE_H
#define FEDBN_CLI_PANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fedbn/algo.h"
#include "fedbn/core.h"

/* What the pane does as soon as it opens. */
enum fb_pane_start {
	FB_PANE_IDLE = 0,   /* nothing: wait for keys (watch) */
	FB_PANE_ROUNDS,     /* step the given number of rounds (step N, run rounds=N) */
	FB_PANE_UNTIL_DONE, /* step until the run finishes (run) */
};

/* One visit's request. */
typedef struct fb_pane_request {
	enum fb_pane_start start; /* the opening action */
	size_t rounds;            /* rounds for FB_PANE_ROUNDS */
	double pace;              /* rounds a second it opens at (0: as fast as they come) */
	size_t run_no;            /* the run's number in the session, from 1 (header) */
	const char *data;         /* where the run's data came from (header), or NULL */
} fb_pane_request;

/* How a visit ended. */
typedef struct fb_pane_outcome {
	size_t rounds;     /* rounds stepped during the visit */
	bool interrupted;  /* a loop was stopped by Ctrl-C */
	bool failed;       /* a round failed: err says why, and the pane stopped stepping */
	size_t failed_round; /* the round that failed */
	fb_error err;      /* the reason of the failure, or why the pane could not open */
} fb_pane_outcome;

/* Switch the pane on or off for the whole session (on at start). */
void fb_pane_set_enabled(bool on);
/* Whether the pane is switched on. */
bool fb_pane_enabled(void);
/* Whether run and step should open the pane: it is on, and standard input and out are both
 * terminals. */
bool fb_pane_usable(FILE *out);

/* Show run in the pane until the user leaves it (q, Esc, a second Ctrl-C, end of input) or
 * SIGTERM/SIGHUP arrive (the terminal is restored, then the signal is raised again).  FB_OK
 * when the pane was shown, whatever its rounds did (see out); FB_ERR with out->err when the
 * terminal could not be taken over (nothing was stepped). */
int fb_pane_show(fb_run *run, const fb_pane_request *req, fb_pane_outcome *out);

/* Whether FEDBN_PANE_STATS asks for timing figures on standard error. */
bool fb_pane_stats_wanted(void);

/* Free what the pane keeps between visits (its screen); at exit. */
void fb_pane_release(void);

#endif
