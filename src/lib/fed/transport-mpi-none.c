/* The MPI transport where fedbn was built without Open MPI: every entry says so. */
#include "config.h"

#include <stdlib.h>

#include "fedbn/fedmpi.h"

/* The one sentence of a build without MPI. */
#define NO_MPI "this fedbn was built without MPI: install Open MPI (libopenmpi-dev) and " \
	       "configure again"

/* Built without MPI. */
bool fb_mpi_built(void)
{
	return false;
}

/* No job to join. */
int fb_mpi_start(int *rank, int *size, fb_error *err)
{
	*rank = 0;
	*size = 1;
	return fb_fail(err, NO_MPI);
}

/* No clients to connect. */
fb_partition *fb_mpi_connect(const fb_mpi_options *o, fb_dataset **schema, fb_error *err)
{
	return fb_fail(err, NO_MPI), NULL;
}

/* No server to greet. */
int fb_mpi_hello(const fb_dataset *ds, const char *source, const fb_mpi_options *o,
                 fb_error *err)
{
	return fb_fail(err, NO_MPI);
}

/* No server to greet. */
int fb_mpi_hello_keys(const fb_dataset *ds, const char *source, const fb_site_keys *keys,
                      const fb_mpi_options *o, fb_error *err)
{
	return fb_fail(err, NO_MPI);
}

/* No layout. */
const fb_mpi_layout *fb_mpi_client_layout(void)
{
	static const fb_mpi_layout none = { FB_SPLIT_HORIZONTAL, 0, 0, NULL, 0 };

	return &none;
}

/* No server to hear. */
int fb_mpi_next(const fb_mpi_options *o, fb_mpi_open *open, fb_error *err)
{
	return fb_fail(err, NO_MPI);
}

/* Nothing to free. */
void fb_mpi_open_release(fb_mpi_open *open)
{
}

/* No server to answer. */
int fb_mpi_answer(const char *failure, const fb_mpi_options *o, fb_error *err)
{
	return fb_fail(err, NO_MPI);
}

/* No transport. */
fb_transport *fb_mpi_client_transport(void)
{
	return NULL;
}

/* Nothing to stop. */
void fb_mpi_stop(void)
{
}

/* No server to refuse. */
int fb_mpi_refuse(const char *why, const fb_mpi_options *o, fb_error *err)
{
	return fb_fail(err, NO_MPI);
}

/* Never moved on. */
bool fb_mpi_moved_on(void)
{
	return false;
}
