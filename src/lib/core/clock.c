/* The one clock: seconds on a monotonic clock, for durations and deadlines. */
#include "config.h"

#include <time.h>

#include "fedbn/core.h"

/* Seconds since an arbitrary start, never going back. */
double fb_clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
