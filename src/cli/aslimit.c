/* Start-up under an address-space limit (ulimit -v, RLIMIT_AS).
 *
 * OpenBLAS (pthread build) starts its thread pool in a constructor, before main, and each pool
 * thread at once maps a 128 MiB work buffer; the thread that computes maps one more at its
 * first computation.  When the mapping fails OpenBLAS tries again, forever: under a limit too
 * small for the buffers a pool thread spins, and exit() waits for it (exit's handlers join the
 * pool), so even `fedbn -c "echo hi"` never ends; a computation spins the same way.
 *
 * Nothing fedbn can set in main reaches the pool, which is already running, and the buffer
 * size is fixed when OpenBLAS is built.  So under a finite limit fedbn (1) starts itself again
 * with OPENBLAS_NUM_THREADS=1 unless it is already set so, which the constructor reads: no pool
 * threads, no buffers mapped at load (fedbn runs the BLAS on one thread anyway, see
 * fb_blas_single_thread, so results are the same); (2) refuses to start, in one sentence, when
 * the limit leaves no room for one buffer beside what the program already maps; (3) has the
 * buffer mapped now, while that room is there, so that a computation after a large load reuses
 * it instead of spinning.  Without a limit nothing of this happens. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "aslimit.h"

/* Room kept beside the program and the BLAS buffer: the first commands' own allocations. */
#define ASLIMIT_SLACK (4UL << 20)
/* What the program maps at start, where /proc/self/statm cannot be read (64 MiB measured). */
#define ASLIMIT_GUESS ((size_t)64 << 20)

/* The address space the process maps now, in bytes (ASLIMIT_GUESS when /proc cannot say). */
static size_t aslimit_mapped(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (fp == NULL)
		return ASLIMIT_GUESS;
	if (fscanf(fp, "%lu", &pages) != 1)
		pages = 0;
	fclose(fp);
	return pages > 0 ? (size_t)pages * (size_t)sysconf(_SC_PAGESIZE) : ASLIMIT_GUESS;
}

/* Start the program again with the BLAS pool off; returns only when that fails. */
static int aslimit_restart(char **argv)
{
	char why[128];

	if (setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)
		execv("/proc/self/exe", argv);
	fprintf(stderr, "fedbn: under the address-space limit (ulimit -v) fedbn must start again "
	        "with OPENBLAS_NUM_THREADS=1 and could not (%s): set OPENBLAS_NUM_THREADS=1 or "
	        "raise the limit\n", fb_strerror(errno, why, sizeof why));
	fflush(stderr);
	_exit(2); /* not exit(): its handlers wait for OpenBLAS's pool thread, which may spin */
}

/* Settle the BLAS under a finite address-space limit. */
int fb_aslimit_settle(char **argv)
{
	struct rlimit rl;
	const char *threads = getenv("OPENBLAS_NUM_THREADS");
	size_t buffer = fb_blas_buffer_bytes(), mapped, need;

	if (buffer == 0 || getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (threads == NULL || strcmp(threads, "1") != 0)
		return aslimit_restart(argv);
	mapped = aslimit_mapped();
	need = mapped + buffer + ASLIMIT_SLACK;
	if ((rlim_t)need > rl.rlim_cur) {
		fprintf(stderr, "fedbn: the address-space limit (ulimit -v) of %lu MiB is too small: "
		        "fedbn needs at least %zu MiB (%zu MiB of its own, %zu MiB for the BLAS's work "
		        "buffer, %lu MiB for the first commands), more for large data\n",
		        (unsigned long)(rl.rlim_cur >> 20), (need + (1UL << 20) - 1) >> 20,
		        (mapped + (1UL << 20) - 1) >> 20, buffer >> 20, ASLIMIT_SLACK >> 20);
		return 2;
	}
	fb_blas_reserve();
	return 0;
}
