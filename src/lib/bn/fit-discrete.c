/* Discrete fits: counts on the clients, conditional probability tables on the server. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bn-private.h"

/* The global variables of p as a one-row dataset of zeros. */
fb_dataset *fb_fit_global_vars(const fb_partition *p, fb_error *err)
{
	fb_dataset *ds = fb_dataset_alloc(1, p->d);

	if (ds == NULL) {
		fb_fail(err, "out of memory");
		return NULL;
	}
	for (size_t c = p->k; c-- > 0;) {
		const fb_dataset *cd = p->clients[c].data;

		for (size_t j = 0; j < cd->d; j++) {
			size_t v = p->clients[c].cols[j];
			const fb_var *src = &cd->vars[j];

			free(ds->vars[v].name); /* names are unique over the whole data */
			ds->vars[v].name = fb_xstrdup(src->name);
			if (src->kind == FB_DISCRETE &&
			    fb_dataset_set_levels(ds, v, src->levels, src->nlevels, err) != FB_OK) {
				fb_dataset_free(ds);
				return NULL;
			}
		}
	}
	return ds;
}

/* Whether row r of ds is a training row. */
static bool training(const fb_dataset *ds, size_t r)
{
	return fb_dataset_part(ds, r) == FB_PART_TRAIN;
}

/* Add family fm's counts over ds's training rows to v. */
void fb_fit_count(const fb_dataset *ds, const fb_family *fm, const size_t *cols, double *v)
{
	size_t m = fm->nparents, r = ds->vars[cols[m]].nlevels;

	for (size_t row = 0; row < ds->n; row++) {
		size_t c = 0;

		if (!training(ds, row))
			continue;
		for (size_t j = 0; j < m; j++)
			c = c * ds->vars[cols[j]].nlevels + (size_t)fb_dataset_get(ds, row, cols[j]);
		v[c * r + (size_t)fb_dataset_get(ds, row, cols[m])] += 1.0;
	}
}

/* Node i of the fitted network: its name, states and parents from the job. */
static void node_init(fb_bn_node *nd, const fb_fit_job *job, size_t i)
{
	const fb_var *var = &job->whole->vars[i];
	const fb_family *fm = &job->fam[i];

	nd->name = fb_xstrdup(var->name);
	nd->nstates = var->nlevels;
	nd->states = fb_xcalloc(var->nlevels, sizeof *nd->states);
	for (size_t s = 0; s < var->nlevels; s++)
		nd->states[s] = fb_xstrdup(var->levels[s]);
	nd->nparents = fm->nparents;
	nd->parents = NULL;
	if (fm->nparents > 0) {
		nd->parents = fb_xcalloc(fm->nparents, sizeof *nd->parents);
		memcpy(nd->parents, fm->parents, fm->nparents * sizeof *nd->parents);
	}
	nd->nconfigs = 1;
	for (size_t j = 0; j < fm->nparents; j++)
		nd->nconfigs *= job->whole->vars[fm->parents[j]].nlevels;
	nd->cpt = fb_xcalloc(nd->nconfigs * nd->nstates, sizeof *nd->cpt);
}

/* One row of a table from its counts n[0..r): mle (uniform when the configuration has no
 * row; returns 1 then) or bayes with the prior a = iss / (q r) per cell. */
static size_t table_row(const double *n, size_t r, size_t q, const fb_bnfit_options *o,
                        double *theta)
{
	double nij = 0, a = o->method == FB_BNFIT_BAYES ? o->iss / ((double)q * (double)r) : 0;

	for (size_t s = 0; s < r; s++)
		nij += n[s];
	if (o->method == FB_BNFIT_MLE && nij == 0) {
		for (size_t s = 0; s < r; s++)
			theta[s] = 1.0 / (double)r;
		return 1;
	}
	for (size_t s = 0; s < r; s++)
		theta[s] = (n[s] + a) / (nij + a * (double)r);
	return 0;
}

/* The tables from the summed counts. */
int fb_fit_tables(const fb_fit_job *job, const fb_bnfit_options *o, fb_bnfit *fit,
                  fb_error *err)
{
	fb_bn *bn = fb_xcalloc(1, sizeof *bn);
	fb_graph *g;

	bn->name = fb_xstrdup("fitted");
	bn->d = job->d;
	bn->nodes = fb_xcalloc(job->d, sizeof *bn->nodes);
	bn->order = fb_xcalloc(job->d, sizeof *bn->order);
	fit->bn = bn;
	for (size_t i = 0; i < job->d; i++) {
		fb_bn_node *nd = &bn->nodes[i];
		const double *cnt = job->stats + job->fam[i].start;

		node_init(nd, job, i);
		for (size_t c = 0; c < nd->nconfigs; c++)
			fit->unseen += table_row(cnt + c * nd->nstates, nd->nstates, nd->nconfigs, o,
			                         nd->cpt + c * nd->nstates);
		if (i == 0)
			for (size_t s = 0; s < nd->nconfigs * nd->nstates; s++)
				fit->n += (size_t)cnt[s];
	}
	g = fb_bn_graph(bn);
	if (g == NULL || fb_graph_topo_order(g, bn->order, err) != FB_OK) {
		fb_graph_free(g);
		return g == NULL ? fb_fail(err, "out of memory") : FB_ERR;
	}
	fb_graph_free(g);
	return FB_OK;
}

/* Log-probability of row i of ds under the tables. */
static double bn_row_loglik(const fb_bn *bn, const fb_dataset *ds, size_t i)
{
	double ll = 0;

	for (size_t v = 0; v < bn->d; v++) {
		const fb_bn_node *nd = &bn->nodes[v];
		size_t c = 0;

		for (size_t j = 0; j < nd->nparents; j++)
			c = c * bn->nodes[nd->parents[j]].nstates +
			    (size_t)fb_dataset_get(ds, i, nd->parents[j]);
		ll += log(nd->cpt[c * nd->nstates + (size_t)fb_dataset_get(ds, i, v)]);
	}
	return ll;
}

/* Log-density of row i of ds under the fitted network. */
double fb_bnfit_row_loglik(const fb_bnfit *f, const fb_dataset *ds, size_t i)
{
	if (f->bn != NULL)
		return bn_row_loglik(f->bn, ds, i);
	return fb_gbn_row_loglik(f->gbn, ds, i);
}
