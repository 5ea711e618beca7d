/* The MPI link: frames of the wire format over MPI_COMM_WORLD, rank 0 the server, rank k + 1
 * client k (fedbn/link.h says what a link does; the study's protocol is fedbn/proto.h).
 * Without Open MPI at build time the link says so and fails. */
#ifndef FEDBN_FEDMPI_H
#define FEDBN_FEDMPI_H

#include <stdbool.h>

#include "fedbn/core.h"
#include "fedbn/link.h"

/* Whether this fedbn was built with MPI. */
bool fb_mpi_built(void);
/* Whether this process was started by mpirun (without initialising MPI). */
bool fb_mpi_launched(void);
/* Join the MPI job: the link of this process (its rank and the job's size in it; the
 * protocol's fb_proto_end stops it), or NULL with the reason. */
fb_link *fb_link_mpi_start(fb_error *err);

#endif
