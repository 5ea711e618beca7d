/* Federated circuits after training: the evaluation round, in which the sites evaluate the
 * assembled circuit on their own rows of every part (train, valid, test) and send only log
 * values; the server adds them up part by part. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fc-int.h"

/* The count of doubles before a reply's values: the rows of each part. */
#define EVAL_HEAD FB_NPARTS

/* The clients' data with their held-out rows. */
static const fb_partition *whole_of(const fb_fc *fc)
{
	return fc->whole != NULL ? fc->whole : fc->p;
}

/* Client k's data with its held-out rows. */
static const fb_dataset *client_whole(const fb_fc *fc, size_t k)
{
	return whole_of(fc)->clients[k].data;
}

/* Client k's log values on its rows of part p into out: its own circuits' (circuit-major)
 * or, with c, the whole circuit's; the number of values. */
static int part_values(const fb_fc *fc, size_t k, const fb_circuit *c, enum fb_part p,
                       double *out, size_t *wrote, fb_error *err)
{
	fb_dataset *rows = fb_dataset_part_subset(client_whole(fc, k), p);
	double *x = rows == NULL ? NULL : fc_client_rows_global(fc, k, rows);
	int rc = x == NULL ? fb_fail(err, "client %zu: out of memory", k + 1) : FB_OK;

	*wrote = 0;
	if (rc == FB_OK && rows->n > 0) {
		rc = c != NULL ? fb_circuit_logpdf(c, x, rows->n, out, err)
		               : fc_client_values(fc, k, x, rows->n, fc->p->d, out, err);
		*wrote = rows->n * (c != NULL ? 1 : fc->cl[k].ncirc);
	}
	free(x);
	fb_dataset_free(rows);
	return rc;
}

/* The circuit the broadcast carries (FC_EVAL_WHOLE) into *c. */
static int read_broadcast(const fb_msg *down, size_t k, fb_circuit **c, fb_error *err)
{
	FILE *fp = down->nb > 0 ? fmemopen(down->b, down->nb, "r") : NULL;
	int rc;

	if (fp == NULL)
		return fb_fail(err, "client %zu: the broadcast carries no circuit", k + 1);
	rc = fb_circuit_read(fp, "the server's broadcast", c, err);
	fclose(fp);
	return rc;
}

/* Client k's reply in the evaluation round: per part its rows' count, then per part the log
 * values (of its own circuits, or of the circuit the broadcast carries). */
int fc_client_eval(const fb_fc *fc, size_t k, const fb_msg *down, fb_msg *up, fb_error *err)
{
	int mode = down->nd > 0 ? (int)down->d[0] : FC_EVAL_NONE;
	const fb_dataset *mine = client_whole(fc, k);
	fb_circuit *c = NULL;
	size_t per = mode == FC_EVAL_WHOLE ? 1 : fc->cl[k].ncirc, at = EVAL_HEAD;
	double *d;
	int rc = FB_OK;

	if (mode == FC_EVAL_NONE)
		return FB_OK;
	if (mode == FC_EVAL_WHOLE && read_broadcast(down, k, &c, err) != FB_OK)
		return FB_ERR;
	d = fb_msg_doubles(up, EVAL_HEAD + per * mine->n);
	for (int p = 0; p < FB_NPARTS; p++)
		d[p] = (double)fb_dataset_part_count(mine, (enum fb_part)p);
	for (int p = 0; rc == FB_OK && p < FB_NPARTS; p++) {
		size_t wrote;

		rc = part_values(fc, k, c, (enum fb_part)p, d + at, &wrote, err);
		at += wrote;
	}
	fb_circuit_free(c);
	return rc;
}

/* Add n log values to ll. */
static void loglik_add(fb_loglik *ll, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ll->n++;
		ll->sum += v[i];
		ll->sumsq += v[i] * v[i];
	}
}

/* The circuits the server received from client k. */
static size_t circuits_of(const fb_fc *fc, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < fc->nrecv; i++)
		n += fc->owner[i] == k;
	return n;
}

/* Check client k's reply: a count per part, then per values per row counted; with first
 * (client 1's reply), the same counts as it. */
static int reply_check(const fb_msg *m, const fb_msg *first, size_t k, size_t per,
                       fb_error *err)
{
	size_t rows = 0;

	if (m == NULL || m->nd < EVAL_HEAD)
		return fb_fail(err, "client %zu sent no log values to evaluate the circuit", k + 1);
	for (int p = 0; p < FB_NPARTS; p++)
		rows += (size_t)m->d[p];
	if (m->nd != EVAL_HEAD + per * rows)
		return fb_fail(err, "client %zu sent %zu log values for %zu rows, not %zu", k + 1,
		               m->nd - EVAL_HEAD, rows, per * rows);
	for (int p = 0; first != NULL && p < FB_NPARTS; p++)
		if (m->d[p] != first->d[p])
			return fb_fail(err, "client %zu holds %zu rows of the %s part and client 1 "
			               "%zu: the sites do not hold the same rows", k + 1,
			               (size_t)m->d[p], fb_part_names[p], (size_t)first->d[p]);
	return FB_OK;
}

/* Every site holds every row: place the clients' values of each part at their circuits'
 * roots and evaluate the server's nodes, row by row in the sites' order. */
static int server_eval_own(fb_fc *fc, const fb_msg *const *up, fb_error *err)
{
	size_t k = fc->p->k, done = 0;
	const double **vals = calloc(k, sizeof *vals);
	int rc = vals == NULL ? fb_fail(err, "out of memory evaluating the circuit") : FB_OK;

	for (size_t c = 0; rc == FB_OK && c < k; c++)
		rc = reply_check(up[c], c > 0 ? up[0] : NULL, c, circuits_of(fc, c), err);
	for (int p = 0; rc == FB_OK && p < FB_NPARTS; p++) {
		size_t n = (size_t)up[0]->d[p];
		double *val = malloc((fc->circ->nnodes * n + 1) * sizeof *val);

		for (size_t c = 0; c < k; c++)
			vals[c] = up[c]->d + EVAL_HEAD + circuits_of(fc, c) * done;
		rc = val == NULL ? fb_fail(err, "out of memory evaluating %zu rows", n)
		     : n == 0    ? FB_OK
		                 : fc_place_values(fc, NULL, vals, n, val, err);
		if (rc == FB_OK && n > 0)
			rc = fb_circuit_eval_machine(fc->circ, NULL, n, FB_CIRCUIT_SERVER, val, err);
		if (rc == FB_OK)
			loglik_add(&fc->ll[p], val + fb_circuit_root(fc->circ) * n, n);
		done += n;
		free(val);
	}
	free(vals);
	return rc;
}

/* Every site holds every variable: each sent the whole circuit's log values on its rows;
 * add them part by part, site after site. */
static int server_eval_whole(fb_fc *fc, const fb_msg *const *up, fb_error *err)
{
	for (size_t c = 0; c < fc->p->k; c++) {
		const double *v;

		if (reply_check(up[c], NULL, c, 1, err) != FB_OK)
			return FB_ERR;
		v = up[c]->d + EVAL_HEAD;
		for (int p = 0; p < FB_NPARTS; p++) {
			loglik_add(&fc->ll[p], v, (size_t)up[c]->d[p]);
			v += (size_t)up[c]->d[p];
		}
	}
	return FB_OK;
}

/* Server, evaluation round: every part's log-likelihood from the sites' log values. */
int fc_server_eval(fb_fc *fc, const fb_msg *const *up, fb_error *err)
{
	int rc;

	memset(fc->ll, 0, sizeof fc->ll);
	fc->eval_bytes = 0;
	if (fc->eval_mode == FC_EVAL_NONE)
		return FB_OK;
	rc = fc->eval_mode == FC_EVAL_OWN ? server_eval_own(fc, up, err)
	                                  : server_eval_whole(fc, up, err);
	for (size_t c = 0; rc == FB_OK && c < fc->p->k; c++)
		fc->eval_bytes += (up[c]->nd - EVAL_HEAD) * sizeof(double);
	if (rc != FB_OK)
		memset(fc->ll, 0, sizeof fc->ll);
	fc->evaluated = rc == FB_OK;
	return rc;
}

/* Whether the clients all hold the same rows. */
bool fc_same_rows(const fb_partition *w)
{
	if (w->transport != NULL)
		return w->kind == FB_SPLIT_VERTICAL;
	for (size_t c = 1; c < w->k; c++)
		if (w->clients[c].data->n != w->clients[0].data->n ||
		    memcmp(w->clients[c].rows, w->clients[0].rows,
		           w->clients[0].data->n * sizeof *w->clients[0].rows) != 0)
			return false;
	return true;
}

/* Whether no row is held by two clients. */
static bool rows_apart(const fb_partition *w)
{
	unsigned char *seen;
	bool apart = true;

	if (w->transport != NULL)
		return w->kind == FB_SPLIT_HORIZONTAL;
	seen = fb_xcalloc(w->n + 1, 1);
	for (size_t c = 0; apart && c < w->k; c++)
		for (size_t i = 0; apart && i < w->clients[c].data->n; i++) {
			size_t r = w->clients[c].rows[i];

			apart = r < w->n && !seen[r];
			if (apart)
				seen[r] = 1;
		}
	free(seen);
	return apart;
}

/* The evaluation round's mode, and its broadcast (the mode; the circuit's text when every
 * site evaluates all of it). */
static int eval_broadcast(fb_fc *fc, fb_msg *down, fb_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;
	bool every_var = fc->sub.n == 1 && fc->sub.nowners[0] == fc->p->k;

	fc->eval_mode = fc_same_rows(whole_of(fc))              ? FC_EVAL_OWN
	                : every_var && rows_apart(whole_of(fc)) ? FC_EVAL_WHOLE
	                                                        : FC_EVAL_NONE;
	fb_msg_doubles(down, 0);
	fb_msg_bytes(down, 0);
	if (fc->eval_mode == FC_EVAL_NONE)
		return FB_OK;
	fb_msg_doubles(down, 1)[0] = fc->eval_mode;
	if (fc->eval_mode == FC_EVAL_OWN)
		return FB_OK;
	if ((fp = open_memstream(&buf, &len)) == NULL)
		return fb_fail(err, "out of memory writing the circuit");
	rc = fb_circuit_write(fc->circ, fp, err);
	fclose(fp);
	if (rc == FB_OK)
		memcpy(fb_msg_bytes(down, len), buf, len);
	free(buf);
	return rc;
}

/* The clients' data with their held-out rows, for the evaluation round. */
void fb_fc_set_whole(fb_fc *fc, const fb_partition *whole)
{
	fc->whole = whole;
}

/* The evaluation round, once trained. */
int fb_fc_evaluate(fb_fc *fc, fb_federation *f, fb_error *err)
{
	int rc;

	if (fc->phase != FB_FC_DONE || fc->circ == NULL)
		return fb_fail(err, "the federated circuit is not trained yet");
	if (eval_broadcast(fc, fb_fed_broadcast(f), err) != FB_OK)
		return FB_ERR;
	fc->phase = FB_FC_EVAL;
	rc = fb_fed_round(f, fc_ops(), fc, err);
	fc->phase = FB_FC_DONE;
	return rc;
}

/* Whether the sites evaluated every part; their log-likelihoods into ll. */
bool fb_fc_part_loglik(const fb_fc *fc, fb_loglik ll[FB_NPARTS])
{
	memcpy(ll, fc->ll, sizeof fc->ll);
	return fc->evaluated;
}

/* Bytes of log values the sites sent in the evaluation round. */
size_t fb_fc_eval_bytes(const fb_fc *fc)
{
	return fc->eval_bytes;
}
