/* Work split over threads: one call runs a function on several works at once and returns
 * when all are done, and counts the processor time its threads spent, so that a benchmark
 * on a loaded machine can still tell what the threads would give on idle cores.  The threads
 * of an outermost call are kept waiting for the next one (a pool), so that a search calling
 * once a step (GES) does not start and end a thread each time. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

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

/* The most threads the pool keeps. */
#define POOL_MAX 256

/* One kept thread: the job handed to it, NULL while it waits. */
typedef struct pool_slot {
	struct threads_pool *pool; /* its pool */
	threads_job *job;          /* the job to run next, or NULL */
} pool_slot;

/* The kept threads, used by one outermost call at a time (another finds it busy and starts
 * threads of its own). */
typedef struct threads_pool {
	pid_t pid;               /* the process that made it: a forked child makes its own */
	pthread_mutex_t busy;    /* held by the call using the pool */
	pthread_mutex_t lock;    /* guards the jobs and pending */
	pthread_cond_t go, done; /* a job was handed out; the last job came back */
	size_t n;                /* threads started */
	size_t pending;          /* jobs handed out and not yet back */
	pool_slot *slot[POOL_MAX]; /* the threads' slots */
	struct threads_pool *older; /* the pool of the process this one's was forked from */
} threads_pool;

/* The pool of this process, and the pools of the processes it was forked from (kept so that
 * what they hold stays reachable). */
static threads_pool *the_pool;
static threads_pool *forked_from;
static pthread_mutex_t pool_make = PTHREAD_MUTEX_INITIALIZER;

/* A kept thread: run each job handed to it, then wait for the next. */
static void *pool_main(void *arg)
{
	pool_slot *me = arg;
	threads_pool *p = me->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		threads_job *j;

		while (me->job == NULL)
			pthread_cond_wait(&p->go, &p->lock);
		j = me->job;
		pthread_mutex_unlock(&p->lock);
		threads_job_run(j);
		pthread_mutex_lock(&p->lock);
		me->job = NULL;
		if (--p->pending == 0)
			pthread_cond_signal(&p->done);
	}
	return NULL;
}

/* This process's pool, made on first use (a forked child's is new: the threads of the one
 * it copied are not in it); NULL when none can be made. */
static threads_pool *pool_get(void)
{
	threads_pool *p;

	pthread_mutex_lock(&pool_make);
	if (the_pool != NULL && the_pool->pid != getpid()) {
		the_pool->older = forked_from;
		forked_from = the_pool;
		the_pool = NULL;
	}
	if (the_pool == NULL && (p = calloc(1, sizeof *p)) != NULL) {
		p->pid = getpid();
		pthread_mutex_init(&p->busy, NULL);
		pthread_mutex_init(&p->lock, NULL);
		pthread_cond_init(&p->go, NULL);
		pthread_cond_init(&p->done, NULL);
		the_pool = p;
	}
	p = the_pool;
	pthread_mutex_unlock(&pool_make);
	return p;
}

/* The pool, held for the calling thread with at least want threads where they can start;
 * NULL when it is in use by another call (or cannot be made). */
static threads_pool *pool_take(size_t want)
{
	threads_pool *p = pool_get();

	if (p == NULL || pthread_mutex_trylock(&p->busy) != 0)
		return NULL;
	while (p->n < want && p->n < POOL_MAX) {
		pool_slot *s = calloc(1, sizeof *s);
		pthread_t tid;

		if (s == NULL)
			break;
		s->pool = p;
		if (pthread_create(&tid, NULL, pool_main, s) != 0) {
			free(s);
			break;
		}
		pthread_detach(tid);
		p->slot[p->n++] = s;
	}
	return p;
}

/* Hand job[1..m] to the pool's first m threads. */
static void pool_start(threads_pool *p, threads_job *job, size_t m)
{
	pthread_mutex_lock(&p->lock);
	for (size_t t = 0; t < m; t++)
		p->slot[t]->job = &job[t + 1];
	p->pending = m;
	if (m > 0)
		pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
}

/* Wait for the pool's jobs to come back, and let the next call have it. */
static void pool_finish(threads_pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->pending > 0)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->busy);
}

/* Start job[t] (t >= 1) on threads of its own, marking here[t] where none could start. */
static void threads_start(threads_job *job, pthread_t *tid, bool *here, size_t nt)
{
	for (size_t t = 1; t < nt; t++)
		here[t] = pthread_create(&tid[t], NULL, threads_job_run, &job[t]) != 0;
}

/* Wait for the threads started by threads_start, running the jobs that had none here. */
static void threads_join(threads_job *job, const pthread_t *tid, const bool *here,
                         size_t nt, bool outer)
{
	for (size_t t = 1; t < nt; t++) {
		if (!here[t])
			pthread_join(tid[t], NULL);
		else
			threads_job_run(&job[t]);
		in_work = !outer;
	}
}

/* Run fn on each of nt works (size bytes each, from works): the first on the calling thread,
 * the others on the pool's threads (an outermost call that finds the pool free) or on threads
 * of their own, or after the first, on the calling thread, where no thread can take them. */
void fb_threads_run(void *(*fn)(void *), void *works, size_t size, size_t nt)
{
	char *at = works;
	pthread_t *tid;
	threads_job *job;
	bool *here, outer = !in_work;
	threads_pool *pool;
	size_t m = 0;

	if (nt == 0)
		return;
	tid = fb_xcalloc(nt, sizeof *tid);
	job = fb_xcalloc(nt, sizeof *job);
	here = fb_xcalloc(nt, sizeof *here);
	for (size_t t = 0; t < nt; t++)
		job[t] = (threads_job){ fn, at + t * size, 0 };
	pool = outer && nt > 1 ? pool_take(nt - 1) : NULL;
	if (pool != NULL) {
		m = pool->n < nt - 1 ? pool->n : nt - 1;
		for (size_t t = m + 1; t < nt; t++)
			here[t] = true;
		pool_start(pool, job, m);
	} else {
		threads_start(job, tid, here, nt);
	}
	threads_job_run(&job[0]);
	in_work = !outer;
	if (pool != NULL) {
		for (size_t t = m + 1; t < nt; t++)
			threads_job_run(&job[t]);
		in_work = !outer;
		pool_finish(pool);
	} else {
		threads_join(job, tid, here, nt, outer);
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
