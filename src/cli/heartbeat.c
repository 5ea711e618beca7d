/* The heartbeat: one thread that sleeps until the round under way has run `every` seconds
 * since it began or since the last line, then writes a line; the main thread only notes when
 * each round begins. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fedbn/core.h"
#include "heartbeat.h"

/* Whether heartbeats are on (--quiet clears it). */
static bool heartbeat_on = true;

struct fb_heartbeat {
	pthread_t thread;     /* the writer */
	pthread_mutex_t lock; /* guards what follows */
	pthread_cond_t wake;  /* signalled to stop */
	FILE *out;            /* where the lines go */
	char what[128];       /* what runs */
	double every;         /* seconds between lines */
	size_t round;         /* the round under way (0: none yet) */
	double began;         /* when it began */
	double last;          /* when it began or the last line was written */
	bool stop;            /* the thread ends */
};

/* Switch heartbeats on or off. */
void fb_heartbeat_set_enabled(bool on)
{
	heartbeat_on = on;
}

/* The seconds between two lines. */
double fb_heartbeat_every(void)
{
	const char *s = getenv("FEDBN_HEARTBEAT");
	double v;

	if (s != NULL && fb_parse_double(s, &v) == 0 && v > 0 && v <= 1e6)
		return v;
	return FB_HEARTBEAT_EVERY;
}

/* The absolute time (CLOCK_REALTIME, as pthread_cond_timedwait takes) secs from now. */
static struct timespec heartbeat_deadline(double secs)
{
	struct timespec ts;
	double whole;

	clock_gettime(CLOCK_REALTIME, &ts);
	secs = secs < 0 ? 0 : secs;
	ts.tv_nsec += (long)(modf(secs, &whole) * 1e9);
	ts.tv_sec += (time_t)whole + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

/* Write a line when the round under way has gone `every` seconds without one (locked). */
static void heartbeat_beat(fb_heartbeat *hb)
{
	double now = fb_clock_now();

	if (hb->round == 0 || now - hb->last < hb->every)
		return;
	fprintf(hb->out, "%s: round %zu under way for %.*f s\n", hb->what, hb->round,
	        now - hb->began < 10 ? 1 : 0, now - hb->began);
	fflush(hb->out);
	hb->last = now;
}

/* The thread: wait until the next line is due or the heartbeat stops. */
static void *heartbeat_main(void *arg)
{
	fb_heartbeat *hb = arg;

	pthread_mutex_lock(&hb->lock);
	while (!hb->stop) {
		struct timespec due = heartbeat_deadline(hb->last + hb->every - fb_clock_now());
		int rc = pthread_cond_timedwait(&hb->wake, &hb->lock, &due);

		if (!hb->stop && (rc == ETIMEDOUT || rc == 0))
			heartbeat_beat(hb);
	}
	pthread_mutex_unlock(&hb->lock);
	return NULL;
}

/* Start a heartbeat. */
fb_heartbeat *fb_heartbeat_start(FILE *out, const char *what, double every)
{
	fb_heartbeat *hb;

	if (!heartbeat_on || !(every > 0))
		return NULL;
	hb = fb_xcalloc(1, sizeof *hb);
	hb->out = out;
	hb->every = every;
	hb->last = fb_clock_now();
	snprintf(hb->what, sizeof hb->what, "%s", what);
	pthread_mutex_init(&hb->lock, NULL);
	pthread_cond_init(&hb->wake, NULL);
	if (pthread_create(&hb->thread, NULL, heartbeat_main, hb) != 0) {
		pthread_cond_destroy(&hb->wake);
		pthread_mutex_destroy(&hb->lock);
		free(hb);
		return NULL;
	}
	return hb;
}

/* Round r begins. */
void fb_heartbeat_round(fb_heartbeat *hb, size_t r)
{
	if (hb == NULL)
		return;
	pthread_mutex_lock(&hb->lock);
	hb->round = r;
	hb->began = hb->last = fb_clock_now();
	pthread_mutex_unlock(&hb->lock);
}

/* Stop and free. */
void fb_heartbeat_stop(fb_heartbeat *hb)
{
	if (hb == NULL)
		return;
	pthread_mutex_lock(&hb->lock);
	hb->stop = true;
	pthread_cond_signal(&hb->wake);
	pthread_mutex_unlock(&hb->lock);
	pthread_join(hb->thread, NULL);
	pthread_cond_destroy(&hb->wake);
	pthread_mutex_destroy(&hb->lock);
	free(hb);
}
