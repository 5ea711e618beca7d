/* The processes of a study between processes, over the link the caller chose.  A client
 * reads only its own file and never prints a value of it; the server holds only the clients'
 * variables and row counts. */
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
static fb_dataset *site_load(fb_proto *study, const char *file, const char *key, int rank,
                             fb_site_keys *keys, FILE *err)
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
		fb_proto_refuse(study, e.msg, &e);
	}
	return ds;
}

/* A client process. */
int fb_site_client(fb_site_start *start, const char *pattern, const char *key,
                   const fb_proto_options *o, FILE *out, FILE *err)
{
	fb_error e = { { 0 } };
	fb_site_keys keys;
	fb_link *link = start(&e);
	fb_proto *study;
	int rank, ret = 1;
	char *file;
	fb_dataset *ds;

	if (link == NULL) {
		fprintf(err, "fedbn: --client: %s\n", e.msg);
		return 1;
	}
	rank = link->rank;
	study = fb_proto_new(link, o);
	file = site_file(pattern, rank);
	if (rank == 0)
		fprintf(err, "fedbn: --client: rank 0 is the server: start the clients as ranks 1 "
		             "and up\n");
	else if ((ds = site_load(study, file, key, rank, &keys, err)) != NULL) {
		fprintf(out, "client %d: '%s': %zu rows x %zu variables (%zu discrete)", rank, file,
		        ds->n, ds->d, fb_dataset_n_discrete(ds));
		fprintf(out, key != NULL ? ", rows matched by key '%s'\n" : "\n", key);
		fflush(out);
		if (fb_run_serve(study, ds, file, key != NULL ? &keys : NULL, &e) == FB_OK)
			ret = 0;
		else
			fprintf(err, "fedbn: client %d: %s\n", rank, e.msg);
		fb_dataset_free(ds);
	}
	free(file);
	fb_proto_end(study);
	return ret;
}

/* The server process. */
int fb_site_server(fb_session *s, fb_site_start *start, const fb_proto_options *o,
                   fb_proto **study, FILE *out, FILE *err)
{
	fb_error e = { { 0 } };
	fb_dataset *schema = NULL;
	fb_partition *part;
	fb_link *link = start(&e);
	int dropped;
	char *source;

	if (link == NULL) {
		fprintf(err, "fedbn: %s\n", e.msg);
		return 1;
	}
	*study = fb_proto_new(link, o);
	if (link->size < 2)
		return 0; /* a job of one process: no clients, nothing to connect */
	setvbuf(out, NULL, _IOLBF, 0); /* whole lines, so that mpirun does not cut one with a
	                                  client's */
	if ((part = fb_proto_connect(*study, &schema, &e)) == NULL) {
		fprintf(err, "fedbn: %s\n", e.msg);
		return 1;
	}
	source = fb_xasprintf("%zu %s clients", part->k, link->title);
	fb_session_set_data(s, schema, source, NULL, NULL, &dropped);
	fb_session_set_split(s, part);
	fprintf(out, "connected to %zu clients over %s: %zu rows x %zu variables (%s)\n",
	        part->k, link->title, part->n, part->d, part->desc);
	free(source);
	return 0;
}
