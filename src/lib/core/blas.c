/* The BLAS thread count: fedbn computes clients in parallel itself, so the BLAS under GSL runs
 * on one thread.  That keeps results bit-identical whatever threads= says and stops BLAS
 * threads from competing with client threads. */
#include "config.h"

#include "fedbn/core.h"

/* OpenBLAS's setter, when the program is linked to OpenBLAS (weak: absent otherwise). */
extern void openblas_set_num_threads(int n) __attribute__((weak));

/* Run the BLAS on one thread, when the BLAS lets us say so. */
void fb_blas_single_thread(void)
{
	if (openblas_set_num_threads != NULL)
		openblas_set_num_threads(1);
}
