/* What a study over MPI needs to know before MPI starts, with or without Open MPI built in:
 * whether mpirun started this process. */
#include "config.h"

#include <stdlib.h>

#include "fedbn/fedmpi.h"

/* Whether mpirun (Open MPI's, or another launcher speaking PMI) started this process. */
bool fb_mpi_launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
	       getenv("PMI_RANK") != NULL;
}
