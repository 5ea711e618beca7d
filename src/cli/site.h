/* The processes of a study over MPI: the server's connection to its clients, and a client's
 * whole life. */
#ifndef FEDBN_CLI_SITE_H
#define FEDBN_CLI_SITE_H

#include <stdio.h>

#include "fedbn/fedmpi.h"
#include "session.h"

/* A client process: load the file pattern names (%r: the client's number), with key (or
 * NULL) take that column out and put the rows in its order, describe it on out, serve the
 * server; the process's exit status. */
int fb_site_client(const char *pattern, const char *key, const fb_mpi_options *o, FILE *out,
                   FILE *err);
/* The server process under mpirun: connect to the clients and make their variables and
 * their split the session's; 0, or 1 after a sentence on err (the session unchanged). */
int fb_site_server(fb_session *s, const fb_mpi_options *o, FILE *out, FILE *err);

#endif
