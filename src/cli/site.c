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

/* Load the site's file, and with a key column put its rows in the keys' order; NULL after
 * telling the server why not. */
static fb_dataset *site_load(const char *file, const char *key, int rank, fb_site_keys *keys,
                             const fb_mpi_options *o, FILE *err)
{
	fb_error e = { { 0 } };
	fb_dataset *ds = fb_csv_read(file, NULL, NULL, &e), *keyed;

	if (ds != NULL && key != NULL) {
		keyed = fb_site_keyed(ds, key, file, keys, &e);
		fb_dataset_free(ds);
		ds = keyed;
	} else if (ds == NULL) {
		char *why = fb_xasprintf("cannot read '%s': %s", file, e.msg);

		snprintf(e.msg, sizeof e.msg, "%s", why);
		free(why);
	}
	if (ds == NULL) {
		fprintf(err, "fedbn: client %d: %s\n", rank, e.msg);
		fb_mpi_refuse(e.msg, o, &e);
	}
	return ds;
}

/* A client process. */
int fb_site_client(const char *pattern, const char *key, const fb_mpi_options *o, FILE *out,
                   FILE *err)
{
	fb_error e = { { 0 } };
	fb_site_keys keys;
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
	else if ((ds = site_load(file, key, rank, &keys, o, err)) != NULL) {
		fprintf(out, "client %d: '%s': %zu rows x %zu variables (%zu discrete)", rank, file,
		        ds->n, ds->d, fb_dataset_n_discrete(ds));
		fprintf(out, key != NULL ? ", rows matched by key '%s'\n" : "\n", key);
		fflush(out);
		if (fb_run_serve_keyed(ds, file, key != NULL ? &keys : NULL, o, &e) == FB_OK)
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
