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

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "fedbn/core.h"

/* OpenBLAS's setter and pool shutdown, when the program is linked to OpenBLAS (weak: absent
 * otherwise). */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));
/* OpenBLAS's name of the kernel it chose (weak as well). */
extern char *openblas_get_corename(void) __attribute__((weak));

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

/* OpenBLAS's pool of work buffers (weak: absent with another BLAS).  Each computing thread
 * takes a buffer of OPENBLAS_BUFFER bytes from the pool at its first computation, and OpenBLAS
 * retries a failed mapping of it forever. */
extern void *blas_memory_alloc(int procpos) __attribute__((weak));
extern void blas_memory_free(void *buffer) __attribute__((weak));
#define OPENBLAS_BUFFER (128UL << 20) /* BUFFER_SIZE of OpenBLAS's x86-64 builds */

/* The bytes the BLAS maps for a thread's first computation: 0 when it maps none. */
size_t fb_blas_buffer_bytes(void)
{
	return blas_memory_alloc != NULL && blas_memory_free != NULL ? OPENBLAS_BUFFER : 0;
}

/* Have the BLAS map the calling thread's work buffer now: OpenBLAS keeps a freed buffer mapped
 * for the next computation, so later ones do not need that memory again. */
void fb_blas_reserve(void)
{
	if (fb_blas_buffer_bytes() > 0)
		blas_memory_free(blas_memory_alloc(1));
}

/* The BLAS kernel the program runs. */
const char *fb_blas_kernel(void)
{
	if (openblas_get_corename != NULL && openblas_get_corename() != NULL)
		return openblas_get_corename();
	return FB_BLAS_NAME;
}

/* The family of a kernel name, lower case. */
const char *fb_blas_family(const char *kernel, char *buf, size_t size)
{
	static const char *const same[][2] = {
		{ "zen", "haswell" }, { "cooperlake", "skylakex" }, { "sapphirerapids", "skylakex" },
	};
	size_t i;

	if (size == 0)
		return "";
	for (i = 0; kernel[i] != '\0' && i + 1 < size; i++)
		buf[i] = (char)tolower((unsigned char)kernel[i]);
	buf[i] = '\0';
	for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
		if (strcmp(buf, same[k][0]) == 0)
			snprintf(buf, size, "%s", same[k][1]);
	return buf;
}
