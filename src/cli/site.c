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

/* A client's read of its file: stop once the server's wait for its hello is over. */
typedef struct read_clock {
	double until; /* fb_clock_now seconds */
} read_clock;

/* fb_cancel callback: the deadline has passed. */
static bool read_late(void *ctx)
{
	return fb_clock_now() > ((const read_clock *)ctx)->until;
}

/* Read the site's file within the time the server waits for its hello (o's timeout): an
 * endless or too slow file is given up with a sentence. */
static fb_dataset *site_read(const char *file, const fb_proto_options *o, fb_error *e)
{
	read_clock clock = { fb_clock_now() + o->timeout };
	fb_csv_options opt;
	fb_dataset *ds;

	fb_csv_options_init(&opt);
	opt.cancel = (fb_cancel){ read_late, &clock };
	ds = fb_csv_read(file, &opt, NULL, e);
	if (ds == NULL && read_late(&clock))
		fb_fail(e, "reading '%s' took longer than the %g s the server waits for it (--timeout)",
		        file, o->timeout);
	return ds;
}

/* Load the site's file, and with a key column put its rows in the keys' order; NULL after
 * telling the server why not (the reader's sentence names the file). */
static fb_dataset *site_load(fb_proto *study, const char *file, const char *key,
                             const fb_proto_options *o, fb_site_keys *keys, FILE *err)
{
	fb_error e = { { 0 } };
	fb_dataset *ds = site_read(file, o, &e), *keyed;

	if (ds != NULL && key != NULL) {
		keyed = fb_site_keyed(ds, key, file, keys, &e);
		fb_dataset_free(ds);
		ds = keyed;
	}
	if (ds == NULL) {
		fprintf(err, "fedbn: client %d: %s\n", fb_proto_link(study)->rank, e.msg);
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
	else if ((ds = site_load(study, file, key, o, &keys, err)) != NULL) {
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

/* The end of the server's study: a lost one is named in one sentence before its end ends the
 * other processes; 1 then, else 0. */
int fb_site_end(fb_proto *study, FILE *err)
{
	fb_error who = { { 0 } };
	size_t gone = study != NULL ? fb_proto_gone(study, &who) : 0;

	if (gone > 0)
		fprintf(err, "fedbn: the study lost %s%s: it ends here, and so does the %s job\n",
		        who.msg, gone > 1 ? " and others" : "", fb_proto_link(study)->title);
	fflush(NULL);
	fb_proto_end(study);
	return gone > 0;
}
