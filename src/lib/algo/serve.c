/* A client process of a study over MPI.  For each run the server opens, the client builds the
 * same run the server has, over a partition in which only its own client holds data, and
 * steps it: the federation then answers the server's rounds with the algorithm's client half
 * until the server moves on. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/serve.h"

/* Client me's data and columns from its site's ds laid out as the server says: its columns
 * in ascending global order (the order the in-process split gives) and their global ids;
 * without a layout, its own columns as they are. */
static void client_columns(const fb_dataset *ds, const fb_mpi_layout *l, fb_client *me)
{
	size_t *perm = fb_xcalloc(ds->d + 1, sizeof *perm);
	bool laid = l->gid != NULL && l->ncols == ds->d;

	for (size_t j = 0; j < ds->d; j++) {
		size_t at = j;

		while (laid && at > 0 && l->gid[perm[at - 1]] > l->gid[j]) {
			perm[at] = perm[at - 1];
			at--;
		}
		perm[at] = j;
	}
	me->data = fb_dataset_subset(ds, NULL, 0, perm, ds->d);
	if (me->data == NULL)
		fb_xmalloc(SIZE_MAX); /* reports out of memory and exits */
	me->cols = fb_xcalloc(ds->d > 0 ? ds->d : 1, sizeof *me->cols);
	for (size_t j = 0; j < ds->d; j++)
		me->cols[j] = laid ? l->gid[perm[j]] : j;
	free(perm);
}

/* The partition as this client sees it: k clients, its own holding ds (copied, laid out as
 * the server says), the others elsewhere. */
static fb_partition *client_view(const fb_dataset *ds, const fb_mpi_open *op)
{
	const fb_mpi_layout *l = fb_mpi_client_layout();
	fb_partition *p = fb_xcalloc(1, sizeof *p);

	p->kind = l->gid != NULL ? l->kind : FB_SPLIT_HORIZONTAL;
	p->k = op->k;
	p->n = op->n;
	p->d = l->gid != NULL ? l->d : ds->d;
	p->clients = fb_xcalloc(op->k, sizeof *p->clients);
	p->desc = fb_xasprintf("mpi %zu (client %zu)", op->k, op->client + 1);
	p->transport = fb_mpi_client_transport();
	client_columns(ds, l, &p->clients[op->client]);
	return p;
}

/* The run's parameters from the server's words. */
static int open_params(const fb_mpi_open *op, fb_params *p, fb_error *err)
{
	const fb_algo *a, *inner;

	if (fb_algo_lookup(op->algo, &a, &inner, err) != FB_OK ||
	    fb_params_init(p, fb_algo_params(a, inner), err) != FB_OK)
		return FB_ERR;
	if (fb_params_set_words(p, (int)op->nwords, op->words, op->algo, err) != FB_OK) {
		fb_params_release(p);
		return FB_ERR;
	}
	return FB_OK;
}

/* Build the run the server opened, tell the server, and answer its rounds. */
static int serve_run(const fb_dataset *ds, const fb_mpi_open *op, const fb_mpi_options *o,
                     fb_error *err)
{
	fb_partition *part = NULL;
	fb_params params = { 0 };
	fb_run *run = NULL;
	fb_error why = { { 0 } };
	int ret;

	if (op->client >= op->k)
		snprintf(why.msg, sizeof why.msg, "it is client %zu of %zu", op->client + 1, op->k);
	else if (open_params(op, &params, &why) == FB_OK) {
		part = client_view(ds, op);
		run = fb_run_alloc(op->algo, &params, &op->fed, ds, part, NULL, &why);
		fb_params_release(&params);
	}
	ret = fb_mpi_answer(run != NULL ? NULL : why.msg, o, err);
	if (ret == FB_OK && run != NULL) {
		double *fig = fb_xcalloc(run->trace.nfig + 1, sizeof *fig);

		run->algo->step(run, fig, &why); /* returns when the server moves on */
		free(fig);
		if (!fb_mpi_moved_on())
			ret = fb_fail(err, "%s", why.msg);
	}
	fb_run_free(run);
	fb_partition_free(part);
	return ret;
}

/* Serve the server until it ends the study. */
int fb_run_serve(const fb_dataset *ds, const char *source, const fb_mpi_options *o,
                 fb_error *err)
{
	return fb_run_serve_keyed(ds, source, NULL, o, err);
}

/* Serve the server, the site's rows matched to the others' by keys. */
int fb_run_serve_keyed(const fb_dataset *ds, const char *source, const fb_site_keys *keys,
                       const fb_mpi_options *o, fb_error *err)
{
	if (fb_mpi_hello_keys(ds, source, keys, o, err) != FB_OK)
		return FB_ERR;
	for (;;) {
		fb_mpi_open op;
		int got = fb_mpi_next(o, &op, err);

		if (got != 1)
			return got == 0 ? FB_OK : FB_ERR;
		got = serve_run(ds, &op, o, err);
		fb_mpi_open_release(&op);
		if (got != FB_OK)
			return FB_ERR;
	}
}
