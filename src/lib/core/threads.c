/* Work split over threads: one call runs a function on several works at once and returns
 * when all are done, and counts the processor time its threads spent, so that a benchmark
 * on a loaded machine can still tell what the threads would give on idle cores. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "fedbn/core.h"

/* Nanoseconds of processor time of the outermost calls: summed over their threads, and
 * summed over calls of the busiest thread's. */
static atomic_uint_fast64_t work_ns, span_ns;

/* Set on a thread while it runs a work: a call from inside one is not counted again. */
static _Thread_local bool in_work;

/* One work on its thread. */
typedef struct threads_job {
	void *(*fn)(void *); /* the function */
	void *arg;           /* its work */
	uint64_t ns;         /* the processor time it took on its thread */
} threads_job;

/* The calling thread's processor time in nanoseconds. */
static uint64_t thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * UINT64_C(1000000000) + (uint64_t)t.tv_nsec;
}

/* Run one work and time it on its thread. */
static void *threads_job_run(void *arg)
{
	threads_job *j = arg;
	uint64_t t0 = thread_ns();

	in_work = true;
	j->fn(j->arg);
	in_work = false;
	j->ns = thread_ns() - t0;
	return NULL;
}

/* Count the jobs' processor time: their sum, and the most one thread ran (run_here[t]: job t
 * ran on the calling thread after the others, adding to its time). */
static void threads_count(const threads_job *job, const bool *run_here, size_t nt)
{
	uint64_t sum = 0, here = 0, most = 0;

	for (size_t t = 0; t < nt; t++) {
		sum += job[t].ns;
		if (t == 0 || run_here[t])
			here += job[t].ns;
		else if (job[t].ns > most)
			most = job[t].ns;
	}
	atomic_fetch_add(&work_ns, sum);
	atomic_fetch_add(&span_ns, here > most ? here : most);
}

/* Run fn on each of nt works (size bytes each, from works): the first on the calling thread,
 * the others on threads of their own (or after the first, on the calling thread, where one
 * cannot start). */
void fb_threads_run(void *(*fn)(void *), void *works, size_t size, size_t nt)
{
	char *at = works;
	pthread_t *tid;
	threads_job *job;
	bool *here, outer = !in_work;

	if (nt == 0)
		return;
	tid = fb_xcalloc(nt, sizeof *tid);
	job = fb_xcalloc(nt, sizeof *job);
	here = fb_xcalloc(nt, sizeof *here);
	for (size_t t = 0; t < nt; t++)
		job[t] = (threads_job){ fn, at + t * size, 0 };
	for (size_t t = 1; t < nt; t++)
		here[t] = pthread_create(&tid[t], NULL, threads_job_run, &job[t]) != 0;
	threads_job_run(&job[0]);
	in_work = !outer;
	for (size_t t = 1; t < nt; t++) {
		if (!here[t])
			pthread_join(tid[t], NULL);
		else
			threads_job_run(&job[t]);
		in_work = !outer;
	}
	if (outer)
		threads_count(job, here, nt);
	free(tid);
	free(job);
	free(here);
}

/* Processor time of the calling thread, in seconds. */
double fb_thread_seconds(void)
{
	return 1e-9 * (double)thread_ns();
}

/* Processor seconds the outermost fb_threads_run calls spent. */
void fb_threads_times(double *work, double *span)
{
	*work = 1e-9 * (double)atomic_load(&work_ns);
	*span = 1e-9 * (double)atomic_load(&span_ns);
}
