/* A federation over MPI: one process per site.  Rank 0 is the server (it runs the shell or
 * the script); ranks 1..K are the clients, each holding only its own file.  Every wait has a
 * deadline: a client that does not answer in time is named and the run stops.  Without
 * Open MPI at build time every function says so and fails. */
#ifndef FEDBN_FEDMPI_H
#define FEDBN_FEDMPI_H

#include <stdbool.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/partition.h"
#include "fedbn/sites.h"

/* Deadlines of an MPI federation. */
typedef struct fb_mpi_options {
	double timeout; /* seconds a peer may take to answer before it is named (30) */
	double idle;    /* seconds a client waits for the server between runs (86400) */
} fb_mpi_options;

/* Defaults: 30 s to answer, a day of idling. */
void fb_mpi_options_init(fb_mpi_options *o);
/* Whether this fedbn was built with MPI. */
bool fb_mpi_built(void);
/* Whether this process was started by mpirun (without initialising MPI). */
bool fb_mpi_launched(void);
/* Join the MPI job: this process's rank and the job's size. */
int fb_mpi_start(int *rank, int *size, fb_error *err);
/* Server: wait for every client's hello and build the partition over them (its clients'
 * datasets of 0 rows holding their variables only; caller frees it with
 * fb_partition_free before fb_mpi_stop) and *schema, the variables as a dataset of 0 rows
 * (caller frees).  The sites' variables and keys make the federation horizontal, vertical
 * or hybrid (fb_sites_partition, which says when they do not fit); each client is then told
 * its layout. */
fb_partition *fb_mpi_connect(const fb_mpi_options *o, fb_dataset **schema, fb_error *err);
/* A run the server asks a client to build. */
typedef struct fb_mpi_open {
	char *algo;        /* the algorithm's name (owned) */
	char **words;      /* its parameters, "key=value" (owned) */
	size_t nwords;     /* how many */
	size_t k;          /* clients of the federation */
	size_t client;     /* this client's index, from 0 */
	size_t n;          /* rows of all clients together (the maths of some algorithms uses it) */
	fb_fed_options fed; /* share and seed of the federation */
} fb_mpi_open;

/* Client: say hello with ds's description (source names its file; no value travels). */
int fb_mpi_hello(const fb_dataset *ds, const char *source, const fb_mpi_options *o,
                 fb_error *err);
/* The same, with the count and digest of its keys when keys is not NULL (no key travels). */
int fb_mpi_hello_keys(const fb_dataset *ds, const char *source, const fb_site_keys *keys,
                      const fb_mpi_options *o, fb_error *err);
/* The federation as the server lays it out for one client once the sites connected. */
typedef struct fb_mpi_layout {
	enum fb_split_kind kind; /* horizontal, vertical or hybrid */
	size_t d;                /* the federation's variables */
	size_t n;                /* its rows (vertical: every site's) */
	size_t *gid;             /* per column of the client's file, its global variable id
	                            (owned by the transport; NULL before the layout arrives) */
	size_t ncols;            /* the client's columns */
} fb_mpi_layout;
/* Client: its layout, as the last fb_mpi_next found it. */
const fb_mpi_layout *fb_mpi_client_layout(void);
/* Client: tell the server, in place of a hello, why it cannot take part (its file). */
int fb_mpi_refuse(const char *why, const fb_mpi_options *o, fb_error *err);
/* Client: whether the server has moved on (a run ended because another opened or the study
 * ended), rather than fallen silent. */
bool fb_mpi_moved_on(void);
/* Client: wait for the server's next word: 1 and *open filled (release it with
 * fb_mpi_open_release) when it opens a run, 0 when the study is over; FB_ERR when the server
 * falls silent for o->idle seconds or sends something malformed. */
int fb_mpi_next(const fb_mpi_options *o, fb_mpi_open *open, fb_error *err);
/* Free what an open holds. */
void fb_mpi_open_release(fb_mpi_open *open);
/* Client: tell the server the run is built (failure NULL) or why it cannot be. */
int fb_mpi_answer(const char *failure, const fb_mpi_options *o, fb_error *err);
/* Client: the transport its partition carries (its half runs here, the server elsewhere). */
fb_transport *fb_mpi_client_transport(void);
/* Server: tell the clients the study is over; then leave MPI (any rank). */
void fb_mpi_stop(void);

#endif
