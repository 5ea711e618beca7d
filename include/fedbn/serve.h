/* A client process of a study between processes: it describes its own data to the server,
 * then builds each run the server opens from that data alone and answers its rounds, over
 * the protocol's link (fedbn/proto.h). */
#ifndef FEDBN_SERVE_H
#define FEDBN_SERVE_H

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/proto.h"
#include "fedbn/sites.h"

/* Serve the server p reaches until it ends the study (FB_OK) or falls silent or breaks the
 * protocol (FB_ERR with the reason).  ds (the site's data, source its file name) is only
 * read.  keys (or NULL) are those of a site whose rows are in its keys' order
 * (fb_site_keyed): the server hears their count and digest, and lays the site out in a
 * vertical or hybrid federation. */
int fb_run_serve(fb_proto *p, const fb_dataset *ds, const char *source,
                 const fb_site_keys *keys, fb_error *err);

#endif
