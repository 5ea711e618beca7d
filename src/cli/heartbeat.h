/* A heartbeat on standard error while a long round runs without the pane: a line every few
 * seconds within a round, so that a script whose rounds take seconds or minutes is not
 * silent (--quiet switches it off). */
#ifndef FEDBN_CLI_HEARTBEAT_H
#define FEDBN_CLI_HEARTBEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Seconds between two lines within one round (FEDBN_HEARTBEAT, seconds above 0, sets
 * another: the tests' short rounds). */
#define FB_HEARTBEAT_EVERY 10.0

/* A heartbeat under way. */
typedef struct fb_heartbeat fb_heartbeat;

/* Switch heartbeats on or off for the whole program (--quiet: off; on at start). */
void fb_heartbeat_set_enabled(bool on);

/* The seconds between two lines: FEDBN_HEARTBEAT when it is a number above 0, else
 * FB_HEARTBEAT_EVERY. */
double fb_heartbeat_every(void);

/* Start a heartbeat that writes to out every `every` seconds of a round that is still under
 * way, naming it by what ("run 2 (gs-feddag)"); NULL when heartbeats are off or no thread can
 * be started (then nothing is written, and the other calls take NULL). */
fb_heartbeat *fb_heartbeat_start(FILE *out, const char *what, double every);

/* Round r (from 1) begins now. */
void fb_heartbeat_round(fb_heartbeat *hb, size_t r);

/* Stop the heartbeat and free it. */
void fb_heartbeat_stop(fb_heartbeat *hb);

#endif
