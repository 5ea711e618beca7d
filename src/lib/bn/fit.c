/* Fitting a DAG's parameters over a federation: the server broadcasts the families, each
 * client answers with the sufficient statistics of the families it holds whole, the
 * federation sums them (fb_fed_sum), and the server fits from the sums (fit-discrete.c,
 * fit-gauss.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bn-private.h"

/* Defaults: mle, iss 1. */
void fb_bnfit_options_init(fb_bnfit_options *o)
{
	o->method = FB_BNFIT_MLE;
	o->iss = 1.0;
}

/* Free the families. */
static void families_release(fb_fit_job *job)
{
	for (size_t i = 0; job->fam != NULL && i < job->d; i++)
		free(job->fam[i].parents);
	free(job->fam);
	free(job->stats);
}

/* Numbers family i's statistics take: q r counts, or the row count and the limbs of the
 * m + m(m+1)/2 exact sums of its m columns (parents, then the variable). */
static size_t family_len(const fb_fit_job *job, const fb_dataset *ds, size_t i)
{
	const fb_family *fm = &job->fam[i];
	size_t m = fm->nparents + 1, q = 1;

	if (!job->discrete)
		return 1 + (m + m * (m + 1) / 2) * FB_FIT_LIMBS;
	for (size_t j = 0; j < fm->nparents; j++)
		q *= ds->vars[fm->parents[j]].nlevels;
	return q * ds->vars[i].nlevels;
}

/* The families of dag over ds's variables and where each one's statistics start. */
static int families_init(fb_fit_job *job, const fb_dataset *ds, const fb_graph *dag,
                         fb_error *err)
{
	size_t *buf = fb_xcalloc(job->d, sizeof *buf);

	job->fam = fb_xcalloc(job->d, sizeof *job->fam);
	for (size_t i = 0; i < job->d; i++) {
		fb_family *fm = &job->fam[i];
		double cells = 1;

		fm->nparents = fb_graph_parents(dag, i, buf);
		fm->parents = fb_xcalloc(fm->nparents + 1, sizeof *fm->parents);
		memcpy(fm->parents, buf, fm->nparents * sizeof *buf);
		for (size_t j = 0; job->discrete && j <= fm->nparents; j++)
			cells *= (double)ds->vars[j < fm->nparents ? fm->parents[j] : i].nlevels;
		if (cells > (double)FB_BIF_MAX_TABLE) {
			free(buf);
			return fb_fail(err, "the table of '%s' and its %zu parents would have %.0f cells "
			               "(at most %zu)", ds->vars[i].name, fm->nparents, cells,
			               (size_t)FB_BIF_MAX_TABLE);
		}
		fm->start = job->len;
		job->len += family_len(job, ds, i);
	}
	free(buf);
	return FB_OK;
}

/* Client k holds every column of family i (its local column ids into cols). */
static bool client_holds(const fb_client *cl, const fb_family *fm, size_t i, size_t *cols)
{
	for (size_t j = 0; j <= fm->nparents; j++) {
		size_t v = j < fm->nparents ? fm->parents[j] : i, c = 0;

		while (c < cl->data->d && cl->cols[c] != v)
			c++;
		if (c == cl->data->d)
			return false;
		if (cols != NULL)
			cols[j] = c;
	}
	return true;
}

/* The first client that holds global variable v (k when none does). */
static size_t holder(const fb_partition *p, size_t v)
{
	for (size_t c = 0; c < p->k; c++)
		for (size_t j = 0; j < p->clients[c].data->d; j++)
			if (p->clients[c].cols[j] == v)
				return c;
	return p->k;
}

/* Refuse family i, which no client holds whole: each member and the client that holds it. */
static int family_crosses(const fb_partition *p, const fb_family *fm, size_t i,
                          const fb_dataset *names, fb_error *err)
{
	fb_buf b = { 0 };
	int ret;

	for (size_t j = 0; j <= fm->nparents; j++) {
		size_t v = j < fm->nparents ? fm->parents[j] : i;

		fb_buf_printf(&b, "%s'%s' at client %zu", j > 0 ? ", " : "", names->vars[v].name,
		              holder(p, v) + 1);
	}
	ret = fb_fail(err, "the family of '%s' (the variable and its %s) crosses clients: %s; "
	              "its statistics cannot be formed without sending rows", names->vars[i].name,
	              fm->nparents == 1 ? "parent" : "parents", b.data);
	fb_buf_release(&b);
	return ret;
}

/* Give each family to the first client that holds it whole; refuse one none holds. */
static int families_assign(fb_fit_job *job, const fb_partition *p, const fb_dataset *names,
                           fb_error *err)
{
	for (size_t i = 0; i < job->d; i++) {
		fb_family *fm = &job->fam[i];
		size_t c = 0;

		while (c < p->k && !client_holds(&p->clients[c], fm, i, NULL))
			c++;
		if (c == p->k)
			return family_crosses(p, fm, i, names, err);
		fm->owner = p->kind == FB_SPLIT_HORIZONTAL ? SIZE_MAX : c;
	}
	return FB_OK;
}

/* The broadcast: per family its owner (-1: every client), where its statistics start, and
 * its parents, as numbers. */
static void write_broadcast(const fb_fit_job *job, fb_msg *down)
{
	size_t n = 0, w = 0;
	double *v;

	for (size_t i = 0; i < job->d; i++)
		n += 3 + job->fam[i].nparents;
	v = fb_msg_doubles(down, n);
	for (size_t i = 0; i < job->d; i++) {
		const fb_family *fm = &job->fam[i];

		v[w++] = fm->owner == SIZE_MAX ? -1.0 : (double)fm->owner;
		v[w++] = (double)fm->start;
		v[w++] = (double)fm->nparents;
		for (size_t j = 0; j < fm->nparents; j++)
			v[w++] = (double)fm->parents[j];
	}
}

/* Family i from the broadcast at *w (moved past it), its parents into parents; FB_ERR when
 * the broadcast is short or names what cannot be. */
static int read_family(const fb_msg *down, size_t *w, size_t i, size_t d, size_t len,
                       fb_family *fm, size_t *parents, fb_error *err)
{
	const double *v = down->d + *w;

	if (*w + 3 > down->nd || v[2] < 0 || v[2] >= FB_FIT_MAX_FAMILY || v[1] < 0 ||
	    v[1] >= (double)len || *w + 3 + (size_t)v[2] > down->nd)
		return fb_fail(err, "the broadcast's family %zu is cut short or out of range",
		               i + 1);
	fm->owner = v[0] < 0 ? SIZE_MAX : (size_t)v[0];
	fm->start = (size_t)v[1];
	fm->nparents = (size_t)v[2];
	fm->parents = parents;
	for (size_t j = 0; j < fm->nparents; j++) {
		if (!(v[3 + j] >= 0 && v[3 + j] < (double)d))
			return fb_fail(err, "the broadcast names variable %g of %zu", v[3 + j] + 1, d);
		parents[j] = (size_t)v[3 + j];
	}
	*w += 3 + fm->nparents;
	return FB_OK;
}

/* Client k: the statistics of the families the broadcast gives it, from its training rows
 * (the layout and the families read from the broadcast alone). */
static int fit_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                      fb_msg *up, double *figure, fb_error *err)
{
	fb_fit_job *job = state;
	const fb_client *cl = &job->part->clients[k];
	double *v = fb_msg_doubles(up, job->len);
	size_t cols[FB_FIT_MAX_FAMILY], parents[FB_FIT_MAX_FAMILY], w = 0;

	(void)figure;
	memset(v, 0, job->len * sizeof *v);
	for (size_t i = 0; i < job->d; i++) {
		fb_family fm;

		if (read_family(down, &w, i, job->d, job->len, &fm, parents, err) != FB_OK)
			return FB_ERR;
		if (fm.owner != SIZE_MAX && fm.owner != k)
			continue;
		if (!client_holds(cl, &fm, i, cols))
			return fb_fail(err, "client %zu lacks a column of family %zu", k + 1, i + 1);
		if (job->discrete)
			fb_fit_count(local, &fm, cols, v + fm.start);
		else if (fb_fit_moments(local, &fm, cols, v + fm.start, err) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Server: keep the sum. */
static int fit_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fb_fit_job *job = state;

	(void)down;
	(void)err;
	memcpy(job->stats, in->sum, job->len * sizeof *job->stats);
	job->clients = in->count;
	return FB_OK;
}

/* Numbers in each client's vector. */
static size_t fit_len(const void *state)
{
	return ((const fb_fit_job *)state)->len;
}

/* The fit's two halves. */
static const fb_fed_ops fit_ops = {
	.client = fit_client, .server = NULL, .server_sum = fit_server, .sum_len = fit_len,
};

/* Refuse what the fit cannot take: mixed data, a graph over other variables, not a DAG, a
 * family too large for the fixed scratch; *discrete says whether the data are discrete. */
static int check_input(const fb_dataset *ds, const fb_graph *dag, bool *discrete,
                       fb_error *err)
{
	size_t disc = fb_dataset_n_discrete(ds);

	*discrete = disc == ds->d;
	if (disc != 0 && disc != ds->d)
		return fb_fail(err, "the data mix %zu discrete and %zu continuous variables; a fit "
		               "takes all discrete (tables) or all continuous (regressions)", disc,
		               ds->d - disc);
	if (dag->d != ds->d)
		return fb_fail(err, "the graph has %zu nodes and the data %zu variables", dag->d,
		               ds->d);
	for (size_t i = 0; i < ds->d; i++)
		if (strcmp(dag->names[i], ds->vars[i].name) != 0)
			return fb_fail(err, "node %zu of the graph is '%s' where the data have '%s'",
			               i + 1, dag->names[i], ds->vars[i].name);
	if (!fb_graph_is_dag(dag))
		return fb_fail(err, "the graph is not a DAG (it has an undirected edge or a cycle)");
	for (size_t i = 0; i < ds->d; i++) {
		size_t np = 0;

		for (size_t j = 0; j < ds->d; j++)
			np += fb_graph_has_arc(dag, j, i);
		if (np + 1 > FB_FIT_MAX_FAMILY)
			return fb_fail(err, "'%s' has %zu parents (a fit takes at most %d)",
			               ds->vars[i].name, np, FB_FIT_MAX_FAMILY - 1);
	}
	return FB_OK;
}

/* Run the one round that sums the statistics; the ledger's bytes into fit. */
static int sum_round(fb_fit_job *job, const fb_fed_options *fo, fb_bnfit *fit, fb_error *err)
{
	fb_fed_options def;
	fb_federation *f;
	int ret;

	if (fo == NULL) {
		fb_fed_options_init(&def);
		fo = &def;
	}
	if ((f = fb_fed_alloc(job->part, fo, err)) == NULL)
		return FB_ERR;
	fb_fed_set_draw(f, job->part->k);
	write_broadcast(job, fb_fed_broadcast(f));
	ret = fb_fed_round(f, &fit_ops, job, err);
	if (ret == FB_OK) {
		fit->secure = fo->secure;
		fit->bytes[FB_DOWN] = fb_ledger_bytes(fb_fed_ledger(f), 0, FB_DOWN);
		fit->bytes[FB_UP] = fb_ledger_bytes(fb_fed_ledger(f), 0, FB_UP);
	}
	fb_fed_free(f);
	return ret;
}

/* Fit dag on the partition's training rows through a federation. */
fb_bnfit *fb_bnfit_federated(const fb_partition *p, const fb_graph *dag,
                             const fb_bnfit_options *o, const fb_fed_options *fo,
                             fb_error *err)
{
	fb_fit_job job = { 0 };
	fb_bnfit *fit = fb_xcalloc(1, sizeof *fit);
	fb_bnfit_options def;
	int ret = FB_ERR;

	if (o == NULL) {
		fb_bnfit_options_init(&def);
		o = &def;
	}
	job.part = p;
	job.d = p->d;
	if (p->kind == FB_SPLIT_HYBRID)
		fb_fail(err, "a hybrid split holds some rows at several clients, whose counts would "
		        "be added twice; fit takes a horizontal or a vertical split");
	else if (p->transport != NULL)
		fb_fail(err, "fit runs its clients in this process; the split's clients are other "
		        "processes");
	else if ((job.whole = fb_fit_global_vars(p, err)) != NULL &&
	         check_input(job.whole, dag, &job.discrete, err) == FB_OK &&
	         families_init(&job, job.whole, dag, err) == FB_OK &&
	         families_assign(&job, p, job.whole, err) == FB_OK) {
		job.stats = fb_xcalloc(job.len + 1, sizeof *job.stats);
		fit->nstats = job.len;
		if (sum_round(&job, fo, fit, err) == FB_OK)
			ret = job.discrete ? fb_fit_tables(&job, o, fit, err)
			                   : fb_fit_regressions(&job, fit, err);
	}
	fit->clients = job.clients;
	families_release(&job);
	fb_dataset_free(job.whole);
	if (ret != FB_OK) {
		fb_bnfit_free(fit);
		return NULL;
	}
	return fit;
}

/* The pooled fit: one client holding every training row. */
fb_bnfit *fb_bnfit_pooled(const fb_dataset *ds, const fb_graph *dag,
                          const fb_bnfit_options *o, fb_error *err)
{
	fb_split_options so;
	fb_partition *p;
	fb_bnfit *fit;

	fb_split_options_init(&so);
	so.shuffle = 0;
	if ((p = fb_split(ds, FB_SPLIT_HORIZONTAL, 1, &so, err)) == NULL)
		return NULL;
	fit = fb_bnfit_federated(p, dag, o, NULL, err);
	fb_partition_free(p);
	return fit;
}
