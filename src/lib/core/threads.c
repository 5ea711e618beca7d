/* Work split over threads: one call runs a function on several works at once and returns
 * when all are done. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fedbn/core.h"

/* Run fn on each of nt works (size bytes each, from works): the first on the calling thread,
 * the others on threads of their own (or after the first, on the calling thread, where one
 * cannot start). */
void fb_threads_run(void *(*fn)(void *), void *works, size_t size, size_t nt)
{
	char *at = works;
	pthread_t *tid;
	bool *started;

	if (nt <= 1) {
		if (nt == 1)
			fn(works);
		return;
	}
	tid = fb_xcalloc(nt, sizeof *tid);
	started = fb_xcalloc(nt, sizeof *started);
	for (size_t t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, fn, at + t * size) == 0;
	fn(at);
	for (size_t t = 1; t < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn(at + t * size);
	}
	free(tid);
	free(started);
}
