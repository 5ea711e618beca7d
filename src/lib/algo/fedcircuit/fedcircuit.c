/* Federated circuits, one-pass training: the indicator matrix and its subspaces, the plan,
 * each client's learning on its own rows and columns, and the wire format of what travels. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fc-int.h"

/* Defaults: K = 2, shared subspaces unclustered, all combinations, no EM, SPFlow's
 * learn_mspn, seed 1. */
void fb_fc_options_init(fb_fc_options *o)
{
	memset(o, 0, sizeof *o);
	o->clusters = 2;
	o->glue = FB_FC_GLUE_ALL;
	o->products = 0;
	o->em_iters = 0;
	fb_learnspn_options_init(&o->learn);
	o->seed = 1;
}

/* Free what s owns. */
void fb_fc_subspaces_release(fb_fc_subspaces *s)
{
	free(s->m);
	free(s->of);
	free(s->nvars);
	free(s->nowners);
	memset(s, 0, sizeof *s);
}

/* Whether variables a and b have the same column in the k x d matrix m. */
static bool same_column(const unsigned char *m, size_t k, size_t d, size_t a, size_t b)
{
	for (size_t c = 0; c < k; c++)
		if (m[c * d + a] != m[c * d + b])
			return false;
	return true;
}

/* Number the subspaces: variable j joins the subspace of the first earlier variable with the
 * same column (first[l] is subspace l's first variable), or opens a new one. */
static void subspaces_number(fb_fc_subspaces *s, size_t *first)
{
	for (size_t j = 0; j < s->d; j++) {
		size_t l = 0;

		while (l < s->n && !same_column(s->m, s->k, s->d, j, first[l]))
			l++;
		if (l == s->n) {
			first[s->n++] = j;
			for (size_t c = 0; c < s->k; c++)
				s->nowners[l] += s->m[c * s->d + j];
		}
		s->of[j] = l;
		s->nvars[l]++;
	}
}

/* The subspaces of m: identical columns share one, numbered by first variable. */
int fb_fc_subspaces_build(const unsigned char *m, size_t k, size_t d, fb_fc_subspaces *s,
                          fb_error *err)
{
	size_t *first = malloc((d ? d : 1) * sizeof *first);

	memset(s, 0, sizeof *s);
	s->k = k;
	s->d = d;
	s->m = malloc(k * d + 1);
	s->of = malloc((d ? d : 1) * sizeof *s->of);
	s->nvars = calloc(d ? d : 1, sizeof *s->nvars);
	s->nowners = calloc(d ? d : 1, sizeof *s->nowners);
	if (first == NULL || s->m == NULL || s->of == NULL || s->nvars == NULL ||
	    s->nowners == NULL) {
		free(first);
		fb_fc_subspaces_release(s);
		return fb_fail(err, "out of memory for the subspaces of %zu variables", d);
	}
	memcpy(s->m, m, k * d);
	subspaces_number(s, first);
	free(first);
	for (size_t l = 0; l < s->n; l++)
		if (s->nowners[l] == 0) {
			size_t j = 0;

			while (s->of[j] != l)
				j++;
			fb_fc_subspaces_release(s);
			return fb_fail(err, "variable %zu is held by no client", j);
		}
	return FB_OK;
}

/* The ascending global variables of subspace sub into vars; their number. */
size_t fc_subspace_vars(const fb_fc_subspaces *s, size_t sub, size_t *vars)
{
	size_t n = 0;

	for (size_t j = 0; j < s->d; j++)
		if (s->of[j] == sub)
			vars[n++] = j;
	return n;
}

/* The n query rows x (d columns) restricted to vars, in a new n x nv array (NULL on out of
 * memory). */
double *fc_gather(const double *x, size_t n, size_t d, const size_t *vars, size_t nv)
{
	double *y = malloc((n * nv + 1) * sizeof *y);

	for (size_t r = 0; y != NULL && r < n; r++)
		for (size_t j = 0; j < nv; j++)
			y[r * nv + j] = x[r * d + vars[j]];
	return y;
}

/* Free the circuits of a list. */
static void circs_free(fc_circ *cs, size_t n)
{
	for (size_t i = 0; cs != NULL && i < n; i++)
		fb_circuit_free(cs[i].c);
	free(cs);
}

/* A run over p. */
fb_fc *fb_fc_alloc(const fb_partition *p, const fb_fc_options *o, fb_error *err)
{
	fb_fc *fc;

	if (o->clusters == 0)
		return fb_fail(err, "'clusters' must be at least 1"), NULL;
	if (o->em_iters > 0 && p->transport != NULL && p->kind != FB_SPLIT_VERTICAL)
		return fb_fail(err, "EM needs every client to hold the same rows: over MPI, sites "
		                    "holding different variables whose rows are matched by a key "
		                    "column (a vertical federation), not %s", p->desc), NULL;
	fc = calloc(1, sizeof *fc);
	if (fc == NULL || (fc->cl = calloc(p->k, sizeof *fc->cl)) == NULL) {
		free(fc);
		return fb_fail(err, "out of memory for a federated circuit run"), NULL;
	}
	fc->p = p;
	fc->o = *o;
	fc->em_ll = NAN;
	if (o->em_iters > 0 && p->transport == NULL && fc_em_rows(fc, err) != FB_OK) {
		fb_fc_free(fc);
		return NULL;
	}
	return fc;
}

/* Free a run. */
void fb_fc_free(fb_fc *fc)
{
	if (fc == NULL)
		return;
	for (size_t c = 0; c < fc->p->k; c++) {
		free(fc->cl[c].of);
		free(fc->cl[c].shared);
		free(fc->cl[c].emrows);
		circs_free(fc->cl[c].circ, fc->cl[c].ncirc);
	}
	free(fc->cl);
	fb_fc_subspaces_release(&fc->sub);
	circs_free(fc->recv, fc->nrecv);
	free(fc->owner);
	fb_circuit_free(fc->circ);
	free(fc->croot);
	free(fc->emval);
	free(fc);
}

/* Write a 32-bit unsigned integer little-endian at b. */
static void put_u32(unsigned char *b, size_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

/* Read a little-endian 32-bit unsigned integer at b. */
static size_t get_u32(const unsigned char *b)
{
	size_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | b[i];
	return v;
}

/* Client k, round 1: the ids of the variables it holds. */
static void client_indicator(const fb_fc *fc, size_t k, fb_msg *up)
{
	const fb_client *cl = &fc->p->clients[k];
	unsigned char *b = fb_msg_bytes(up, 4 * cl->data->d);

	for (size_t j = 0; j < cl->data->d; j++)
		put_u32(b + 4 * j, cl->cols[j]);
}

/* Server, round 1: the indicator matrix from the clients' ids, its subspaces, and the plan
 * as the next broadcast. */
static int server_indicator(fb_fc *fc, const fb_msg *const *up, fb_msg *down, fb_error *err)
{
	size_t k = fc->p->k, d = fc->p->d;
	unsigned char *m = calloc(k * d + 1, 1), *b;
	int rc;

	if (m == NULL)
		return fb_fail(err, "out of memory for the indicator matrix");
	for (size_t c = 0; c < k; c++)
		for (size_t i = 0; up[c] != NULL && i + 4 <= up[c]->nb; i += 4) {
			size_t j = get_u32(up[c]->b + i);

			if (j < d)
				m[c * d + j] = 1;
		}
	rc = fb_fc_subspaces_build(m, k, d, &fc->sub, err);
	free(m);
	if (rc != FB_OK)
		return rc;
	fc->have_sub = true;
	b = fb_msg_bytes(down, 4 * d + fc->sub.n);
	for (size_t j = 0; j < d; j++)
		put_u32(b + 4 * j, fc->sub.of[j]);
	for (size_t l = 0; l < fc->sub.n; l++)
		b[4 * d + l] = fc->sub.nowners[l] > 1;
	return FB_OK;
}

/* Client k keeps the plan of the broadcast down (4 bytes per variable, 1 per subspace). */
static int client_plan(fb_fc *fc, size_t k, const fb_msg *down, fb_error *err)
{
	fc_client *me = &fc->cl[k];
	size_t d = fc->p->d;

	if (down->nb < 4 * d)
		return fb_fail(err, "client %zu: the plan is %zu bytes, short of %zu", k + 1,
		               down->nb, 4 * d);
	me->nsub = down->nb - 4 * d;
	me->of = malloc((d ? d : 1) * sizeof *me->of);
	me->shared = malloc(me->nsub ? me->nsub : 1);
	if (me->of == NULL || me->shared == NULL)
		return fb_fail(err, "client %zu: out of memory for the plan", k + 1);
	for (size_t j = 0; j < d; j++)
		me->of[j] = get_u32(down->b + 4 * j);
	memcpy(me->shared, down->b + 4 * d, me->nsub);
	return FB_OK;
}

/* Client k's local columns in subspace sub into cols; their number. */
static size_t client_cols(const fb_fc *fc, size_t k, size_t sub, size_t *cols)
{
	const fb_client *cl = &fc->p->clients[k];
	size_t n = 0;

	for (size_t j = 0; j < cl->data->d; j++)
		if (fc->cl[k].of[cl->cols[j]] == sub)
			cols[n++] = j;
	return n;
}

/* What one client's learning writes: the circuits' texts and their headers. */
typedef struct fc_wire {
	FILE *fp;     /* the texts, one after another */
	char *buf;    /* the memory stream's buffer (owned) */
	size_t size;  /* its size */
	double *head; /* per circuit: subspace, cluster, rows, text length (owned) */
	size_t n;     /* circuits written */
} fc_wire;

/* Learn one circuit of client k on n rows x (nv columns) and write it to the wire. */
static int learn_one(fb_fc *fc, size_t k, const double *x, size_t n, size_t nv,
                     const size_t *nlev, const size_t tag[2], fc_wire *w, fb_error *err)
{
	fb_circuit *c;
	long at = ftell(w->fp);
	double *h = realloc(w->head, 4 * (w->n + 1) * sizeof *h);
	int rc;

	if (h == NULL)
		return fb_fail(err, "client %zu: out of memory", k + 1);
	w->head = h;
	if (fb_learnspn(x, n, nv, nlev, &fc->o.learn, (int)k, &c, err) != FB_OK)
		return FB_ERR;
	rc = fb_circuit_write(c, w->fp, err);
	fb_circuit_free(c);
	if (rc != FB_OK)
		return rc;
	h += 4 * w->n++;
	h[0] = (double)tag[0];
	h[1] = (double)tag[1];
	h[2] = (double)n;
	h[3] = (double)(ftell(w->fp) - at);
	return FB_OK;
}

/* k-means of client k's n rows x into K clusters, a circuit per cluster. */
static int learn_clusters(fb_fc *fc, size_t k, const double *x, size_t n, size_t nv,
                          const size_t *nlev, size_t sub, fc_wire *w, fb_error *err)
{
	size_t K = fc->o.clusters < n ? fc->o.clusters : n, *label = malloc(n * sizeof *label);
	double *xs = malloc(n * nv * sizeof *xs);
	char name[48];
	gsl_rng *r;
	int rc;

	snprintf(name, sizeof name, "fedcircuit-kmeans-%zu", k);
	r = fb_rng_stream(fc->o.seed, name);
	rc = label == NULL || xs == NULL || r == NULL
	             ? fb_fail(err, "client %zu: out of memory", k + 1)
	             : fb_kmeans(x, n, nv, K, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, r, label,
	                         NULL, err);
	for (size_t c = 0; rc == FB_OK && c < K; c++) {
		size_t m = 0, tag[2] = { sub, c };

		for (size_t i = 0; i < n; i++)
			if (label[i] == c)
				memcpy(xs + nv * m++, x + i * nv, nv * sizeof *xs);
		rc = learn_one(fc, k, xs, m, nv, nlev, tag, w, err);
	}
	if (r != NULL)
		gsl_rng_free(r);
	free(label);
	free(xs);
	return rc;
}

/* Client k learns over one subspace it holds: one circuit if shared (K under
 * cluster_shared), K if private. */
static int learn_subspace(fb_fc *fc, size_t k, const fb_dataset *local, size_t sub,
                          fc_wire *w, fb_error *err)
{
	size_t *cols = malloc(local->d * sizeof *cols), *nlev = malloc(local->d * sizeof *nlev);
	size_t nv = cols == NULL ? 0 : client_cols(fc, k, sub, cols), tag[2] = { sub, 0 };
	bool all = nv == local->d; /* every column: learn on the client's rows in place */
	double *copy = cols == NULL || all ? NULL
	                                   : fc_gather(local->x, local->n, local->d, cols, nv);
	const double *x = all ? local->x : copy;
	int rc;

	if (cols == NULL || nlev == NULL || x == NULL)
		rc = fb_fail(err, "client %zu: out of memory", k + 1);
	else {
		for (size_t j = 0; j < nv; j++)
			nlev[j] = local->vars[cols[j]].nlevels;
		rc = nv == 0 ? FB_OK
		     : fc->cl[k].shared[sub] && !fc->o.cluster_shared
		             ? learn_one(fc, k, x, local->n, nv, nlev, tag, w, err)
		             : learn_clusters(fc, k, x, local->n, nv, nlev, sub, w, err);
	}
	free(cols);
	free(nlev);
	free(copy);
	return rc;
}

/* Client k keeps what it sent: each circuit read back from the wire's texts. */
static int client_keep(fb_fc *fc, size_t k, const fc_wire *w, fb_error *err)
{
	fc_client *me = &fc->cl[k];
	size_t off = 0;

	me->circ = calloc(w->n ? w->n : 1, sizeof *me->circ);
	if (me->circ == NULL)
		return fb_fail(err, "client %zu: out of memory", k + 1);
	for (size_t i = 0; i < w->n; i++, me->ncirc++) {
		const double *h = w->head + 4 * i;
		FILE *fp = fmemopen(w->buf + off, (size_t)h[3], "r");
		int rc = fp == NULL ? fb_fail(err, "client %zu: cannot read its circuit", k + 1)
		                    : fb_circuit_read(fp, "the wire", &me->circ[i].c, err);

		if (fp != NULL)
			fclose(fp);
		if (rc != FB_OK)
			return rc;
		me->circ[i].sub = (size_t)h[0];
		me->circ[i].cluster = (size_t)h[1];
		me->circ[i].rows = (size_t)h[2];
		off += (size_t)h[3];
	}
	return FB_OK;
}

/* Client k's learning round: every subspace it holds, then the message: per circuit its
 * header (4 numbers after their count) and its text. */
static int client_learn(fb_fc *fc, size_t k, const fb_dataset *local, fb_msg *up,
                        fb_error *err)
{
	fc_wire w = { 0 };
	int rc = FB_OK;

	w.fp = open_memstream(&w.buf, &w.size);
	if (w.fp == NULL)
		return fb_fail(err, "client %zu: out of memory", k + 1);
	for (size_t s = 0; rc == FB_OK && s < fc->cl[k].nsub; s++)
		rc = learn_subspace(fc, k, local, s, &w, err);
	if (fclose(w.fp) != 0 && rc == FB_OK)
		rc = fb_fail(err, "client %zu: out of memory", k + 1);
	if (rc == FB_OK)
		rc = client_keep(fc, k, &w, err);
	if (rc == FB_OK) {
		double *d = fb_msg_doubles(up, 1 + 4 * w.n);

		d[0] = (double)w.n;
		memcpy(d + 1, w.head, 4 * w.n * sizeof *d);
		memcpy(fb_msg_bytes(up, w.size), w.buf, w.size);
	}
	free(w.buf);
	free(w.head);
	return rc;
}

/* Empty a message (nothing to send this round). */
static void msg_empty(fb_msg *m)
{
	fb_msg_doubles(m, 0);
	fb_msg_bytes(m, 0);
}

/* Room for one more received circuit. */
static int recv_reserve(fb_fc *fc, fb_error *err)
{
	if (fc->nrecv == fc->caprecv) {
		size_t cap = fc->caprecv ? 2 * fc->caprecv : 8;
		fc_circ *r = realloc(fc->recv, cap * sizeof *r);
		size_t *o = r == NULL ? NULL : realloc(fc->owner, cap * sizeof *o);

		if (r != NULL)
			fc->recv = r;
		if (o == NULL)
			return fb_fail(err, "out of memory for the clients' circuits");
		fc->owner = o;
		fc->caprecv = cap;
	}
	return FB_OK;
}

/* Server: read client k's circuits from its message. */
static int server_receive(fb_fc *fc, size_t k, const fb_msg *m, fb_error *err)
{
	size_t n = m != NULL && m->nd > 0 ? (size_t)m->d[0] : 0, off = 0;

	if (m == NULL || m->nd != 1 + 4 * n)
		return fb_fail(err, "client %zu sent no circuits", k + 1);
	for (size_t i = 0; i < n; i++) {
		const double *h = m->d + 1 + 4 * i;
		size_t len = (size_t)h[3];
		FILE *fp = off + len <= m->nb ? fmemopen(m->b + off, len, "r") : NULL;
		fc_circ *rc;
		int ok;

		if (fp == NULL || recv_reserve(fc, err) != FB_OK) {
			if (fp != NULL)
				fclose(fp);
			return fb_fail(err, "client %zu: a circuit's text is cut short", k + 1);
		}
		rc = &fc->recv[fc->nrecv];
		ok = fb_circuit_read(fp, "a client's message", &rc->c, err);
		fclose(fp);
		if (ok != FB_OK)
			return ok;
		rc->sub = (size_t)h[0];
		rc->cluster = (size_t)h[1];
		rc->rows = (size_t)h[2];
		if (rc->sub >= fc->sub.n)
			return fb_circuit_free(rc->c), fb_fail(err, "client %zu: no subspace %zu",
			                                       k + 1, rc->sub);
		fc->owner[fc->nrecv++] = k;
		fc->recv_nodes += rc->c->nnodes;
		off += len;
	}
	return FB_OK;
}

/* The phase of a client's round r (from 0): every client answers every round, so its own
 * count of rounds tells it the phase the server runs (after training, the evaluation). */
static enum fb_fc_phase client_phase(const fb_fc *fc, size_t r)
{
	if (r < FB_FC_EM)
		return (enum fb_fc_phase)r;
	if (r - FB_FC_EM < fc->o.em_iters)
		return FB_FC_EM;
	return r - FB_FC_EM == fc->o.em_iters ? FB_FC_EVAL : FB_FC_DONE;
}

/* The client half: what client k sends in the current phase. */
static int fc_client_half(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	fb_fc *fc = state;
	size_t r = fc->cl[k].rounds++;

	msg_empty(up);
	*figure = (double)fc->cl[k].ncirc;
	switch (client_phase(fc, r)) {
	case FB_FC_INDICATOR:
		client_indicator(fc, k, up);
		return FB_OK;
	case FB_FC_LEARN:
		if (client_plan(fc, k, down, err) != FB_OK)
			return FB_ERR;
		if (client_learn(fc, k, local, up, err) != FB_OK)
			return FB_ERR;
		*figure = (double)fc->cl[k].ncirc;
		return FB_OK;
	case FB_FC_EM:
		return r == FB_FC_EM ? fc_client_em_values(fc, k, local, up, err) : FB_OK;
	case FB_FC_EVAL:
		return fc_client_eval(fc, k, down, up, err);
	default:
		return FB_OK;
	}
}

/* The server half: what it does with the replies in the current phase. */
static int fc_server_half(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                     fb_error *err)
{
	fb_fc *fc = state;

	(void)k;
	msg_empty(down);
	switch (fc->phase) {
	case FB_FC_INDICATOR:
		return server_indicator(fc, up, down, err);
	case FB_FC_LEARN:
		for (size_t c = 0; c < fc->p->k; c++)
			if (server_receive(fc, c, up[c], err) != FB_OK)
				return FB_ERR;
		return FB_OK;
	case FB_FC_ASSEMBLE:
		return fc_assemble(fc, err);
	case FB_FC_EM:
		return fc_server_em(fc, up, err);
	case FB_FC_EVAL:
		return fc_server_eval(fc, up, err);
	default:
		return FB_OK;
	}
}

/* The phase after the current one. */
static void phase_next(fb_fc *fc)
{
	switch (fc->phase) {
	case FB_FC_INDICATOR:
		fc->phase = FB_FC_LEARN;
		break;
	case FB_FC_LEARN:
		fc->phase = FB_FC_ASSEMBLE;
		break;
	case FB_FC_ASSEMBLE:
		fc->phase = fc->o.em_iters > 0 ? FB_FC_EM : FB_FC_DONE;
		break;
	case FB_FC_EM:
		if (++fc->em_done == fc->o.em_iters)
			fc->phase = FB_FC_DONE;
		break;
	default:
		break;
	}
}

/* Both halves of a round, by the phase. */
const fb_fed_ops *fc_ops(void)
{
	static const fb_fed_ops ops = { .client = fc_client_half, .server = fc_server_half };

	return &ops;
}

/* One round through the federation. */
int fb_fc_step(fb_fc *fc, fb_federation *f, fb_error *err)
{
	if (fc->phase == FB_FC_DONE)
		return fb_fail(err, "the federated circuit is finished");
	if (fb_fed_round(f, fc_ops(), fc, err) != FB_OK)
		return FB_ERR;
	phase_next(fc);
	return FB_OK;
}

/* The next round's phase. */
enum fb_fc_phase fb_fc_phase(const fb_fc *fc)
{
	return fc->phase;
}

/* Whether the run has finished. */
bool fb_fc_done(const fb_fc *fc)
{
	return fc->phase == FB_FC_DONE;
}

/* The received circuits over two or more variables learned on too few rows to split. */
void fb_fc_small_circuits(const fb_fc *fc, fb_fc_small *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < fc->nrecv; i++) {
		size_t rows = fc->recv[i].rows;

		if (fc->recv[i].c->nvars < 2)
			continue;
		s->multi++;
		if (rows > fc->o.learn.min_instances_slice)
			continue;
		s->lo = s->small++ == 0 || rows < s->lo ? rows : s->lo;
		s->hi = rows > s->hi ? rows : s->hi;
	}
}

/* The subspaces once known. */
const fb_fc_subspaces *fb_fc_subspaces_of(const fb_fc *fc)
{
	return fc->have_sub ? &fc->sub : NULL;
}

/* The assembled circuit once built. */
const fb_circuit *fb_fc_circuit(const fb_fc *fc)
{
	return fc->circ;
}

/* Nodes the server knows of. */
size_t fb_fc_nodes(const fb_fc *fc)
{
	return fc->circ != NULL ? fc->circ->nnodes : fc->recv_nodes;
}

/* The circuits the server received from client k. */
size_t fb_fc_client_circuits(const fb_fc *fc, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < fc->nrecv; i++)
		n += fc->owner[i] == k;
	return n;
}

/* The training log-likelihood of the last EM round. */
double fb_fc_em_loglik(const fb_fc *fc)
{
	return fc->em_ll;
}

/* Free parameters of every client circuit. */
size_t fb_fc_client_params(const fb_fc *fc)
{
	size_t m = 0;

	for (size_t i = 0; i < fc->nrecv; i++)
		m += fb_circuit_nparams(fc->recv[i].c, FB_CIRCUIT_ANY);
	return m;
}
