/* Federated circuits after assembly: the distributed EM rounds on the server's weights
 * (Algorithms 2-3, over a vertical split's rows or a hybrid split's shared ones), the
 * federated evaluation of queries, and the communication cost formulas of the paper's
 * section 3.4. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc-int.h"

/* Log values of client k's circuits on the n rows x (global variables, d columns) into out
 * (circuit-major, n per circuit). */
int fc_client_values(const fb_fc *fc, size_t k, const double *x, size_t n, size_t d,
                     double *out, fb_error *err)
{
	const fc_client *me = &fc->cl[k];
	size_t *vars = malloc((fc->p->d ? fc->p->d : 1) * sizeof *vars);
	int rc = vars == NULL ? fb_fail(err, "client %zu: out of memory", k + 1) : FB_OK;

	for (size_t i = 0; rc == FB_OK && i < me->ncirc; i++) {
		size_t nv = 0;
		double *xs;

		for (size_t j = 0; j < fc->p->d; j++)
			if (me->of[j] == me->circ[i].sub)
				vars[nv++] = j;
		xs = fc_gather(x, n, d, vars, nv);
		rc = xs == NULL ? fb_fail(err, "client %zu: out of memory", k + 1)
		                : fb_circuit_logpdf(me->circ[i].c, xs, n, out + i * n, err);
		free(xs);
	}
	free(vars);
	return rc;
}

/* Client k's own rows as rows over the global variables (its columns in place, the others
 * NAN), in a new array. */
double *fc_client_rows_global(const fb_fc *fc, size_t k, const fb_dataset *local)
{
	const fb_client *cl = &fc->p->clients[k];
	size_t d = fc->p->d;
	double *x = malloc((local->n * d + 1) * sizeof *x);

	for (size_t r = 0; x != NULL && r < local->n; r++) {
		for (size_t j = 0; j < d; j++)
			x[r * d + j] = NAN;
		for (size_t j = 0; j < local->d; j++)
			x[r * d + cl->cols[j]] = local->x[r * local->d + j];
	}
	return x;
}

/* Client k's local rows whose ids every client holds, each id once (its first copy), into
 * its emrows; held[r] counts the clients holding global row r. */
static void em_rows_of(fc_client *me, const fb_client *cl, const size_t *held, size_t k)
{
	me->emrows = fb_xcalloc(cl->data->n + 1, sizeof *me->emrows);
	for (size_t i = 0; i < cl->data->n; i++)
		if (held[cl->rows[i]] == k && (i == 0 || cl->rows[i] != cl->rows[i - 1]))
			me->emrows[me->nem++] = i;
}

/* The rows EM runs on: all when every client holds the same rows, on a hybrid split those
 * every client holds (the split gave them to all; no row id travels); refused otherwise. */
int fc_em_rows(fb_fc *fc, fb_error *err)
{
	const fb_partition *p = fc->p;
	size_t *held;

	if (fc_same_rows(p))
		return FB_OK;
	if (p->kind != FB_SPLIT_HYBRID)
		return fb_fail(err, "EM needs every client to hold the same rows (a vertical "
		                    "split); clients 1 and 2 hold %zu and %zu rows, not all the same",
		               p->clients[0].data->n, p->clients[1].data->n);
	held = fb_xcalloc(p->n + 1, sizeof *held);
	for (size_t c = 0; c < p->k; c++)
		for (size_t i = 0; i < p->clients[c].data->n; i++)
			if (i == 0 || p->clients[c].rows[i] != p->clients[c].rows[i - 1])
				held[p->clients[c].rows[i]]++;
	for (size_t c = 0; c < p->k; c++)
		em_rows_of(&fc->cl[c], &p->clients[c], held, p->k);
	free(held);
	if (fc->cl[0].nem == 0)
		return fb_fail(err, "EM on a hybrid split runs on the rows every client holds, and "
		                    "no row is held by all %zu clients: split with shared= above 0",
		               p->k);
	return FB_OK;
}

/* Client k's first EM reply: its circuits' log values on its training rows that EM runs on
 * (all, or those every client holds). */
int fc_client_em_values(const fb_fc *fc, size_t k, const fb_dataset *local, fb_msg *up,
                        fb_error *err)
{
	const fc_client *me = &fc->cl[k];
	fb_dataset *some = me->emrows == NULL ? NULL
	                                      : fb_dataset_subset(local, me->emrows, me->nem,
	                                                          NULL, 0);
	const fb_dataset *rows = me->emrows == NULL ? local : some;
	double *x = rows == NULL ? NULL : fc_client_rows_global(fc, k, rows);
	int rc;

	if (x == NULL)
		rc = fb_fail(err, "client %zu: out of memory", k + 1);
	else
		rc = fc_client_values(fc, k, x, rows->n, fc->p->d,
		                      fb_msg_doubles(up, me->ncirc * rows->n), err);
	free(x);
	fb_dataset_free(some);
	return rc;
}

/* Server: place the clients' values (one message each, circuit-major) at the roots of their
 * grafted circuits in val (nnodes x n). */
int fc_place_values(const fb_fc *fc, const fb_msg *const *up, const double *const *vals,
                    size_t n, double *val, fb_error *err)
{
	size_t i = 0;

	for (size_t k = 0; k < fc->p->k; k++) {
		size_t first = i;
		const double *v = up != NULL ? (up[k] != NULL ? up[k]->d : NULL) : vals[k];

		while (i < fc->nrecv && fc->owner[i] == k)
			i++;
		if (up != NULL && (up[k] == NULL || up[k]->nd != (i - first) * n))
			return fb_fail(err, "client %zu sent %zu values, not %zu", k + 1,
			               up[k] == NULL ? 0 : up[k]->nd, (i - first) * n);
		for (size_t c = first; c < i; c++)
			memcpy(val + fc->croot[c] * n, v + (c - first) * n, n * sizeof *val);
	}
	return FB_OK;
}

/* Mean of the root's values. */
static double root_mean(const fb_circuit *c, const double *val, size_t n)
{
	const double *r = val + fb_circuit_root(c) * n;
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m += r[i];
	return m / (double)n;
}

/* The rows the clients' first EM messages cover: the first circuit's owner sends n values
 * for each of its circuits (the server holds no row; the others are checked as placed). */
static size_t em_rows(const fb_fc *fc, const fb_msg *const *up)
{
	size_t k = fc->nrecv > 0 ? fc->owner[0] : 0, m = 0;

	for (size_t i = 0; i < fc->nrecv; i++)
		m += fc->owner[i] == k;
	return m > 0 && up[k] != NULL ? up[k]->nd / m : 0;
}

/* Server EM round: keep the clients' values (first round), then one EM step. */
int fc_server_em(fb_fc *fc, const fb_msg *const *up, fb_error *err)
{
	size_t n = fc->emval != NULL ? fc->emn : em_rows(fc, up);

	if (n == 0)
		return fb_fail(err, "the clients sent no rows' values for EM");
	if (fc->emval == NULL) {
		fc->emval = malloc((fc->circ->nnodes * n + 1) *
		                   sizeof *fc->emval);
		if (fc->emval == NULL)
			return fb_fail(err, "out of memory for EM over %zu rows", n);
		fc->emn = n;
		if (fc_place_values(fc, up, NULL, n, fc->emval, err) != FB_OK)
			return FB_ERR;
	}
	if (fb_circuit_eval_machine(fc->circ, NULL, n, FB_CIRCUIT_SERVER, fc->emval, err) !=
	            FB_OK ||
	    fb_circuit_em_step(fc->circ, fc->emval, n, FB_CIRCUIT_SERVER, err) != FB_OK ||
	    fb_circuit_eval_machine(fc->circ, NULL, n, FB_CIRCUIT_SERVER, fc->emval, err) !=
	            FB_OK)
		return FB_ERR;
	fc->em_ll = root_mean(fc->circ, fc->emval, n);
	return FB_OK;
}

/* Federated log-likelihood of n queries: clients' values, then the server's nodes. */
int fb_fc_loglik(const fb_fc *fc, const double *x, size_t n, double *out, size_t *bytes_up,
                 fb_error *err)
{
	size_t k = fc->p->k, sent = 0;
	double **vals, *val;
	int rc = FB_OK;

	if (fc->circ == NULL)
		return fb_fail(err, "the federated circuit is not assembled yet");
	vals = calloc(k, sizeof *vals);
	val = malloc((fc->circ->nnodes * n + 1) * sizeof *val);
	if (vals == NULL || val == NULL)
		rc = fb_fail(err, "out of memory evaluating %zu queries", n);
	for (size_t c = 0; rc == FB_OK && c < k; c++) {
		vals[c] = malloc((fc->cl[c].ncirc * n + 1) * sizeof **vals);
		rc = vals[c] == NULL ? fb_fail(err, "out of memory evaluating %zu queries", n)
		                     : fc_client_values(fc, c, x, n, fc->p->d, vals[c], err);
		sent += fc->cl[c].ncirc * n * sizeof(double);
	}
	if (rc == FB_OK)
		rc = fc_place_values(fc, NULL, (const double *const *)vals, n, val, err);
	if (rc == FB_OK)
		rc = fb_circuit_eval_machine(fc->circ, NULL, n, FB_CIRCUIT_SERVER, val, err);
	if (rc == FB_OK)
		memcpy(out, val + fb_circuit_root(fc->circ) * n, n * sizeof *out);
	if (bytes_up != NULL)
		*bytes_up = sent;
	for (size_t c = 0; vals != NULL && c < k; c++)
		free(vals[c]);
	free(vals);
	free(val);
	return rc;
}

/* Defaults of the baselines' cost model. */
void fb_fc_cost_model_init(fb_fc_cost_model *m)
{
	m->fedavg_rounds = 100;
	m->splitnn_epochs = 10;
	m->splitnn_dim = 100;
}

/* FedAvg: 8 M C R bytes. */
double fb_fc_cost_fedavg(const fb_fc_cost_model *m, size_t params, size_t clients)
{
	return 8.0 * (double)params * (double)clients * (double)m->fedavg_rounds;
}

/* SplitNN: 8 E C F S bytes. */
double fb_fc_cost_splitnn(const fb_fc_cost_model *m, size_t clients, size_t rows)
{
	return 8.0 * (double)m->splitnn_epochs * (double)clients * (double)m->splitnn_dim *
	       (double)rows;
}

/* The paper's one-pass bound with M the mean parameters of a client circuit. */
double fb_fc_cost_onepass(const fb_fc *fc)
{
	double C = (double)fc->p->k, M = fc->nrecv ? (double)fb_fc_client_params(fc) /
	                                                     (double)fc->nrecv : 0;
	double K = (double)fc->o.clusters, P = (double)fc->nproducts;
	double ch = 8 * C * (M + 1), cv = 8 * (K * M * C + P);
	size_t rs = 0, rd = 0;

	for (size_t l = 0; fc->have_sub && l < fc->sub.n; l++)
		fc->sub.nowners[l] > 1 ? rs++ : rd++;
	if (rd == 0)
		return ch;
	if (rs == 0)
		return cv;
	return (double)rs * ch + (double)rd * cv;
}
