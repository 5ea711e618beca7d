/* What a study over MPI needs to know before MPI starts, with or without Open MPI built in:
 * its deadlines, and whether mpirun started this process. */
#include "config.h"

#include <stdlib.h>

#include "fedbn/fedmpi.h"

/* Defaults: 30 s to answer, a day of idling. */
void fb_mpi_options_init(fb_mpi_options *o)
{
	o->timeout = 30;
	o->idle = 86400;
}

/* Whether mpirun (Open MPI's, or another launcher speaking PMI) started this process. */
bool fb_mpi_launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMIX_RANK") != NULL ||
	       getenv("PMI_RANK") != NULL;
}
