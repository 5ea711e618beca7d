/* The BLAS thread count: fedbn computes clients in parallel itself, so the BLAS under GSL runs
 * on one thread.  That keeps results bit-identical whatever threads= says and stops BLAS
 * threads from competing with client threads.
 *
 * OpenBLAS (pthread build) starts its pool when the library loads, one thread per further
 * core, and an idle pool thread calls sched_yield in a loop for 2^28 time-stamp ticks (about
 * 0.1 s here) before it sleeps; setting one thread at run time leaves the pool as it is.  On
 * an otherwise idle core that loop is 0.1 s of processor time counted to the program, as
 * much as a short command or a KCI test computes.  So, once, the pool is also shut down with
 * OpenBLAS's own blas_thread_shutdown_ (the call its fork handler makes).  Setting the thread
 * count again would start the pool again, so it is done only once. */
#include "config.h"

#include <pthread.h>

#include "fedbn/core.h"

/* OpenBLAS's setter and pool shutdown, when the program is linked to OpenBLAS (weak: absent
 * otherwise). */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

/* Guards blas_settle. */
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

/* One BLAS thread, and no idle pool left behind. */
static void blas_settle(void)
{
	if (openblas_set_num_threads != NULL)
		openblas_set_num_threads(1);
	if (openblas_set_num_threads != NULL && blas_thread_shutdown_ != NULL)
		blas_thread_shutdown_();
}

/* Run the BLAS on one thread, when the BLAS lets us say so. */
void fb_blas_single_thread(void)
{
	pthread_once(&blas_once, blas_settle);
}
