/* The processes of a study over MPI.  A client reads only its own file and never prints a
 * value of it; the server holds only the clients' variables and row counts. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "fedbn/serve.h"
#include "site.h"

/* pattern with every %r replaced by rank and %% by % (caller frees). */
static char *site_file(const char *pattern, int rank)
{
	fb_buf b = { 0 };
	char *out;

	for (const char *p = pattern; *p != '\0'; p++) {
		if (p[0] == '%' && p[1] == 'r') {
			fb_buf_printf(&b, "%d", rank);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			fb_buf_append(&b, "%", 1);
			p++;
		} else {
			fb_buf_append(&b, p, 1);
		}
	}
	out = fb_xstrdup(b.data != NULL ? b.data : "");
	fb_buf_release(&b);
	return out;
}

/* A client process. */
int fb_site_client(const char *pattern, const fb_mpi_options *o, FILE *out, FILE *err)
{
	fb_error e = { { 0 } };
	int rank, size, ret = 1;
	char *file;
	fb_dataset *ds;

	if (fb_mpi_start(&rank, &size, &e) != FB_OK) {
		fprintf(err, "fedbn: --client: %s\n", e.msg);
		return 1;
	}
	file = site_file(pattern, rank);
	if (rank == 0)
		fprintf(err, "fedbn: --client: rank 0 is the server: start the clients as ranks 1 "
		             "and up\n");
	else if ((ds = fb_csv_read(file, NULL, NULL, &e)) == NULL) {
		fprintf(err, "fedbn: client %d: cannot read '%s': %s\n", rank, file, e.msg);
		fb_mpi_refuse(e.msg, o, &e);
	} else {
		fprintf(out, "client %d: '%s': %zu rows x %zu variables (%zu discrete)\n", rank, file,
		        ds->n, ds->d, fb_dataset_n_discrete(ds));
		fflush(out);
		if (fb_run_serve(ds, file, o, &e) == FB_OK)
			ret = 0;
		else
			fprintf(err, "fedbn: client %d: %s\n", rank, e.msg);
		fb_dataset_free(ds);
	}
	free(file);
	fb_mpi_stop();
	return ret;
}

/* The server process. */
int fb_site_server(fb_session *s, const fb_mpi_options *o, FILE *out, FILE *err)
{
	fb_error e = { { 0 } };
	fb_dataset *schema = NULL;
	fb_partition *part;
	int rank, size, dropped;
	char *source;

	if (fb_mpi_start(&rank, &size, &e) != FB_OK) {
		fprintf(err, "fedbn: %s\n", e.msg);
		return 1;
	}
	if (size < 2)
		return 0; /* a job of one process: no clients, nothing to connect */
	setvbuf(out, NULL, _IOLBF, 0); /* whole lines, so that mpirun does not cut one with a
	                                  client's */
	if ((part = fb_mpi_connect(o, &schema, &e)) == NULL) {
		fprintf(err, "fedbn: %s\n", e.msg);
		return 1;
	}
	source = fb_xasprintf("%zu MPI clients", part->k);
	fb_session_set_data(s, schema, source, NULL, NULL, &dropped);
	fb_session_set_split(s, part);
	fprintf(out, "connected to %zu clients over MPI: %zu rows x %zu variables (%s)\n",
	        part->k, part->n, part->d, part->desc);
	free(source);
	return 0;
}
