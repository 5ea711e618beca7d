/* What a fitted network offers whatever its kind: its graph, a check of data against it,
 * sampling, freeing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bn-private.h"

/* Free a fit. */
void fb_bnfit_free(fb_bnfit *f)
{
	if (f == NULL)
		return;
	fb_bn_free(f->bn);
	fb_gbn_free(f->gbn);
	free(f);
}

/* Number of variables. */
size_t fb_bnfit_d(const fb_bnfit *f)
{
	return f->bn != NULL ? f->bn->d : f->gbn->d;
}

/* Name of variable i. */
static const char *var_name(const fb_bnfit *f, size_t i)
{
	return f->bn != NULL ? f->bn->nodes[i].name : f->gbn->nodes[i].name;
}

/* The fitted DAG. */
fb_graph *fb_bnfit_graph(const fb_bnfit *f)
{
	fb_graph *g;

	if (f->bn != NULL)
		return fb_bn_graph(f->bn);
	g = fb_graph_alloc(f->gbn->d);
	for (size_t i = 0; i < f->gbn->d; i++) {
		const fb_gnode *nd = &f->gbn->nodes[i];

		fb_graph_set_name(g, i, nd->name, NULL);
		for (size_t j = 0; j < nd->nparents; j++)
			fb_graph_set_directed(g, nd->parents[j], i, nd->coef[j]);
	}
	return g;
}

/* Check that discrete column i of ds has node i's states in order. */
static int check_levels(const fb_bn_node *nd, const fb_var *v, fb_error *err)
{
	if (v->kind != FB_DISCRETE)
		return fb_fail(err, "'%s' is continuous in the data and discrete in the network",
		               v->name);
	if (v->nlevels != nd->nstates)
		return fb_fail(err, "'%s' has %zu levels in the data and %zu states in the network",
		               v->name, v->nlevels, nd->nstates);
	for (size_t s = 0; s < nd->nstates; s++)
		if (strcmp(v->levels[s], nd->states[s]) != 0)
			return fb_fail(err, "level %zu of '%s' is '%s' in the data and '%s' in the "
			               "network", s + 1, v->name, v->levels[s], nd->states[s]);
	return FB_OK;
}

/* Check that ds has the network's variables. */
int fb_bnfit_check_data(const fb_bnfit *f, const fb_dataset *ds, fb_error *err)
{
	size_t d = fb_bnfit_d(f);

	if (ds->d != d)
		return fb_fail(err, "the data have %zu variables and the network %zu", ds->d, d);
	for (size_t i = 0; i < d; i++) {
		if (strcmp(ds->vars[i].name, var_name(f, i)) != 0)
			return fb_fail(err, "variable %zu is '%s' in the data and '%s' in the network",
			               i + 1, ds->vars[i].name, var_name(f, i));
		if (f->bn != NULL && check_levels(&f->bn->nodes[i], &ds->vars[i], err) != FB_OK)
			return FB_ERR;
		if (f->gbn != NULL && ds->vars[i].kind != FB_CONTINUOUS)
			return fb_fail(err, "'%s' is discrete in the data and continuous in the network",
			               ds->vars[i].name);
	}
	return FB_OK;
}

/* Draw n rows by forward sampling. */
fb_dataset *fb_bnfit_sample(const fb_bnfit *f, size_t n, uint64_t seed, fb_error *err)
{
	fb_dataset *ds;
	gsl_rng *r;

	if (f->bn != NULL)
		return fb_bn_sample(f->bn, n, seed, err);
	if (n == 0) {
		fb_fail(err, "n must be at least 1");
		return NULL;
	}
	if ((ds = fb_dataset_alloc(n, f->gbn->d)) == NULL) {
		fb_fail(err, "out of memory for %zu rows", n);
		return NULL;
	}
	for (size_t i = 0; i < f->gbn->d; i++) {
		free(ds->vars[i].name);
		ds->vars[i].name = fb_xstrdup(f->gbn->nodes[i].name);
	}
	r = fb_rng_stream(seed, "sample");
	fb_gbn_sample_rows(f->gbn, n, r, ds->x);
	gsl_rng_free(r);
	return ds;
}
