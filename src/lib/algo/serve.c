/* A client process of a study between processes.  For each run the server opens, the client
 * builds the same run the server has, over a partition in which only its own client holds
 * data, and steps it once: its federation hands over the algorithm's halves instead of
 * running a round, and the client's own loop answers the server's rounds with them until the
 * server moves on. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/serve.h"

/* Client me's data and columns from its site's ds laid out as the server says: its columns
 * in ascending global order (the order the in-process split gives) and their global ids;
 * without a layout, its own columns as they are. */
static void client_columns(const fb_dataset *ds, const fb_proto_layout *l, fb_client *me)
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
static fb_partition *client_view(fb_proto *pr, const fb_dataset *ds, const fb_proto_open *op)
{
	const fb_proto_layout *l = fb_proto_client_layout(pr);
	fb_partition *p = fb_xcalloc(1, sizeof *p);

	p->kind = l->gid != NULL ? l->kind : FB_SPLIT_HORIZONTAL;
	p->k = op->k;
	p->n = op->n;
	p->d = l->gid != NULL ? l->d : ds->d;
	p->clients = fb_xcalloc(op->k, sizeof *p->clients);
	p->desc = fb_xasprintf("%s %zu (client %zu)", fb_proto_link(pr)->name, op->k,
	                       op->client + 1);
	p->transport = fb_proto_client_transport(pr);
	client_columns(ds, l, &p->clients[op->client]);
	return p;
}

/* The parameters' words of an opening: those before the empty word that starts the run's
 * knowledge (fb_fed_knowledge_words), or all. */
static size_t open_nparams(const fb_proto_open *op)
{
	size_t n = 0;

	while (n < op->nwords && op->words[n][0] != '\0')
		n++;
	return n;
}

/* The run's knowledge from the opening's words after the parameters, over the client's data
 * ds; NULL with a sentence when it cannot be rebuilt, an empty one when none came. */
static fb_knowledge *open_knowledge(const fb_proto_open *op, const fb_dataset *ds,
                                    fb_error *err)
{
	size_t at = open_nparams(op);

	return fb_fed_knowledge_read(op->words + at, op->nwords - at, ds, err);
}

/* The run's parameters from the server's words. */
static int open_params(const fb_proto_open *op, fb_params *p, fb_error *err)
{
	const fb_algo *a, *inner;

	if (fb_algo_lookup(op->algo, &a, &inner, err) != FB_OK ||
	    fb_params_init(p, fb_algo_params(a, inner), err) != FB_OK)
		return FB_ERR;
	if (fb_params_set_words(p, (int)open_nparams(op), op->words, op->algo, err) != FB_OK) {
		fb_params_release(p);
		return FB_ERR;
	}
	return FB_OK;
}

/* Answer the rounds of run, built here: its first step hands over the algorithm's halves,
 * which answer every round until the server moves on. */
static int answer_run(fb_proto *pr, fb_run *run, fb_error *err)
{
	double *fig = fb_xcalloc(run->trace.nfig + 1, sizeof *fig);
	const fb_fed_ops *ops;
	const fb_dataset *local;
	void *state;
	fb_error why = { { 0 } };

	run->algo->step(run, fig, &why); /* runs no round in a client process */
	free(fig);
	if (fb_fed_halves(run->fed, &ops, &state, &local) != FB_OK)
		return fb_fail(err, "%s", why.msg[0] != '\0' ? why.msg
		               : "the run's first step did not reach the federation");
	return fb_client_serve(pr, ops, state, local, err);
}

/* Build the run the server opened, tell the server, and answer its rounds. */
static int serve_run(fb_proto *pr, const fb_dataset *ds, const fb_proto_open *op,
                     fb_error *err)
{
	fb_partition *part = NULL;
	fb_params params = { 0 };
	fb_knowledge *know = NULL;
	fb_run *run = NULL;
	fb_error why = { { 0 } };
	int ret;

	if (op->client >= op->k)
		snprintf(why.msg, sizeof why.msg, "it is client %zu of %zu", op->client + 1, op->k);
	else if ((know = open_knowledge(op, ds, &why)) != NULL &&
	         open_params(op, &params, &why) == FB_OK) {
		fb_run_spec spec = { .algo = op->algo, .params = &params, .fedopt = &op->fed,
		                     .data = ds, .knowledge = know };

		spec.part = part = client_view(pr, ds, op);
		run = fb_run_alloc(&spec, &why);
		fb_params_release(&params);
	}
	fb_knowledge_free(know);
	ret = fb_proto_answer(pr, run != NULL ? NULL : why.msg, err);
	if (ret == FB_OK && run != NULL)
		ret = answer_run(pr, run, err);
	fb_run_free(run);
	fb_partition_free(part);
	return ret;
}

/* Serve the server, the site's rows matched to the others' by keys (or NULL). */
int fb_run_serve(fb_proto *pr, const fb_dataset *ds, const char *source,
                 const fb_site_keys *keys, fb_error *err)
{
	if (fb_proto_hello(pr, ds, source, keys, err) != FB_OK)
		return FB_ERR;
	for (;;) {
		fb_proto_open op;
		int got = fb_proto_next(pr, &op, err);

		if (got != 1)
			return got == 0 ? FB_OK : FB_ERR;
		got = serve_run(pr, ds, &op, err);
		fb_proto_open_release(&op);
		if (got != FB_OK)
			return FB_ERR;
	}
}
