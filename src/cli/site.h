/* The processes of a study between processes: the server's connection to its clients, and a
 * client's whole life, over a link the caller chooses (start joins it). */
#ifndef FEDBN_CLI_SITE_H
#define FEDBN_CLI_SITE_H

#include <stdio.h>

#include "fedbn/proto.h"
#include "session.h"

/* How a process joins the link of its study: the link, or NULL with the reason. */
typedef fb_link *fb_site_start(fb_error *err);

/* A client process: join the link, load the file pattern names (%r: the client's number),
 * with key (or NULL) take that column out and put the rows in its order, describe it on out,
 * serve the server; the process's exit status. */
int fb_site_client(fb_site_start *start, const char *pattern, const char *key,
                   const fb_proto_options *o, FILE *out, FILE *err);
/* The server process: join the link, connect to the clients and make their variables and
 * their split the session's; 0, or 1 after a sentence on err (the session unchanged).
 * *study is the server's side of the study once the link is joined (NULL before): end it
 * with fb_site_end after the session is released. */
int fb_site_server(fb_session *s, fb_site_start *start, const fb_proto_options *o,
                   fb_proto **study, FILE *out, FILE *err);
/* End the server's study (NULL is fine): when it lost a client, say so on err in one
 * sentence (its end then ends the other processes, MPI_Abort where they may still run);
 * 1 when it did, else 0. */
int fb_site_end(fb_proto *study, FILE *err);

#endif
