/* A client process of a study over MPI: it describes its own data to the server, then builds
 * each run the server opens from that data alone and answers its rounds. */
#ifndef FEDBN_SERVE_H
#define FEDBN_SERVE_H

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fedmpi.h"

/* Serve the server until it ends the study (FB_OK) or falls silent or breaks the protocol
 * (FB_ERR with the reason).  ds (the site's data, source its file name) is only read. */
int fb_run_serve(const fb_dataset *ds, const char *source, const fb_mpi_options *o,
                 fb_error *err);
/* The same for a site whose rows are in its keys' order (fb_site_keyed): the server hears
 * their count and digest, and lays the site out in a vertical or hybrid federation. */
int fb_run_serve_keyed(const fb_dataset *ds, const char *source, const fb_site_keys *keys,
                       const fb_mpi_options *o, fb_error *err);

#endif
