/* The MPI link where fedbn was built without Open MPI: it says so. */
#include "config.h"

#include <stdlib.h>

#include "fedbn/fedmpi.h"

/* Built without MPI. */
bool fb_mpi_built(void)
{
	return false;
}

/* No job to join. */
fb_link *fb_link_mpi_start(fb_error *err)
{
	return fb_fail(err, "this fedbn was built without MPI: install Open MPI (libopenmpi-dev) "
	                    "and configure again"), NULL;
}
