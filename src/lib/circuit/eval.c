/* Log-space inference in batches of rows: likelihood, marginals, conditionals, MPE. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"

/* Rows evaluated together: every node's values for a batch stay in cache. */
#define EVAL_BATCH 128

/* Scratch memory of one evaluation. */
typedef struct eval_ws {
	double *val;     /* nnodes x EVAL_BATCH node values, node-major: val[i * nb + r] */
	double *acc;     /* EVAL_BATCH partial sums of a sum node */
	size_t *arg;     /* MPE: nnodes x EVAL_BATCH best child positions of sum nodes */
	double *mode;    /* MPE: nnodes leaf modes */
	double *mode_lp; /* MPE: nnodes log densities of the leaf modes */
	double *rows;    /* conditionals: a copy of one batch of rows */
	size_t *stack;   /* MPE: nnodes node ids still to visit downward */
} eval_ws;

/* Free the scratch memory. */
static void ws_release(eval_ws *ws)
{
	free(ws->val);
	free(ws->acc);
	free(ws->arg);
	free(ws->mode);
	free(ws->mode_lp);
	free(ws->rows);
	free(ws->stack);
}

/* Allocate the scratch memory: MPE parts when mpe, a row copy when copy; FB_ERR on out of
 * memory (ws released). */
static int ws_init(eval_ws *ws, const fb_circuit *c, int mpe, int copy, fb_error *err)
{
	size_t m = c->nnodes;

	memset(ws, 0, sizeof *ws);
	ws->val = malloc(m * EVAL_BATCH * sizeof *ws->val);
	ws->acc = malloc(EVAL_BATCH * sizeof *ws->acc);
	if (mpe) {
		ws->arg = calloc(m * EVAL_BATCH, sizeof *ws->arg);
		ws->mode = malloc(m * sizeof *ws->mode);
		ws->mode_lp = malloc(m * sizeof *ws->mode_lp);
		ws->stack = malloc(m * sizeof *ws->stack);
	}
	if (copy)
		ws->rows = malloc(EVAL_BATCH * (c->nvars ? c->nvars : 1) * sizeof *ws->rows);
	if (ws->val == NULL || ws->acc == NULL || (copy && ws->rows == NULL) ||
	    (mpe && (ws->arg == NULL || ws->mode == NULL || ws->mode_lp == NULL ||
	             ws->stack == NULL))) {
		ws_release(ws);
		return fb_fail(err, "out of memory evaluating a circuit of %zu nodes", m);
	}
	for (size_t i = 0; mpe && i < m; i++)
		if (c->nodes[i].kind == FB_NODE_LEAF) {
			ws->mode[i] = fb_leaf_mode(&c->nodes[i].leaf);
			ws->mode_lp[i] = fb_leaf_logpdf(&c->nodes[i].leaf, ws->mode[i]);
		}
	return FB_OK;
}

/* Values of leaf node i on nb rows: log p, or `missing` where the variable is NAN. */
static void eval_leaf(const fb_circuit *c, size_t i, const double *x, size_t nb,
                      double missing, double *v)
{
	const fb_leaf *lf = &c->nodes[i].leaf;
	const double *col = x + lf->var;
	size_t d = c->nvars;

	if (lf->kind == FB_LEAF_GAUSSIAN) {
		for (size_t r = 0; r < nb; r++) {
			double z = (col[r * d] - lf->mean) / lf->sd;

			v[r] = isnan(col[r * d]) ? missing : lf->log_norm - 0.5 * z * z;
		}
		return;
	}
	for (size_t r = 0; r < nb; r++)
		v[r] = isnan(col[r * d]) ? missing : fb_leaf_logpdf(lf, col[r * d]);
}

/* Values of product node i on nb rows: the sum of its children's logs. */
static void eval_product(const fb_circuit *c, size_t i, size_t nb, double *val)
{
	const fb_circuit_node *nd = &c->nodes[i];
	double *v = val + i * nb;

	memcpy(v, val + nd->children[0] * nb, nb * sizeof *v);
	for (size_t k = 1; k < nd->nchildren; k++) {
		const double *cv = val + nd->children[k] * nb;

		for (size_t r = 0; r < nb; r++)
			v[r] += cv[r];
	}
}

/* Values of sum node i on nb rows: logsumexp of log weight plus child, shifted by the
 * maximum; with arg != NULL the maximum alone (max-product) and its child position. */
static void eval_sum(const fb_circuit *c, size_t i, size_t nb, double *val, double *acc,
                     size_t *arg)
{
	const fb_circuit_node *nd = &c->nodes[i];
	double *m = val + i * nb;

	for (size_t r = 0; r < nb; r++)
		m[r] = -INFINITY;
	for (size_t k = 0; k < nd->nchildren; k++) {
		const double *cv = val + nd->children[k] * nb;

		for (size_t r = 0; r < nb; r++) {
			double t = nd->logw[k] + cv[r];

			if (t > m[r]) {
				m[r] = t;
				if (arg != NULL)
					arg[r] = k;
			}
		}
	}
	if (arg != NULL)
		return;
	memset(acc, 0, nb * sizeof *acc);
	for (size_t k = 0; k < nd->nchildren; k++) {
		const double *cv = val + nd->children[k] * nb;

		for (size_t r = 0; r < nb; r++)
			acc[r] += exp(nd->logw[k] + cv[r] - m[r]);
	}
	for (size_t r = 0; r < nb; r++)
		if (m[r] > -INFINITY)
			m[r] += log(acc[r]);
}

/* One upward pass over nb rows of x; mpe selects max-product with modes for unobserved
 * leaves and records each sum's best child. */
static void eval_upward(const fb_circuit *c, const double *x, size_t nb, int mpe, eval_ws *ws)
{
	for (size_t i = 0; i < c->nnodes; i++) {
		switch (c->nodes[i].kind) {
		case FB_NODE_LEAF:
			eval_leaf(c, i, x, nb, mpe ? ws->mode_lp[i] : 0, ws->val + i * nb);
			break;
		case FB_NODE_PRODUCT:
			eval_product(c, i, nb, ws->val);
			break;
		case FB_NODE_SUM:
			eval_sum(c, i, nb, ws->val, ws->acc, mpe ? ws->arg + i * nb : NULL);
			break;
		}
	}
}

/* What one query asks of each batch of rows. */
typedef struct eval_job {
	const double *x;            /* the n rows */
	double *xw;                 /* MPE: the same rows, written */
	const unsigned char *query; /* conditionals: the query variables */
	double *out;                /* one value per row (may be NULL for MPE) */
} eval_job;

/* A query's work on the nb rows from row r0. */
typedef void (*batch_fn)(const fb_circuit *c, const eval_job *job, size_t r0, size_t nb,
                         eval_ws *ws);

/* Run fn over n rows in batches of EVAL_BATCH with scratch for MPE (mpe) or row copies
 * (copy); FB_ERR on out of memory. */
static int eval_batches(const fb_circuit *c, const eval_job *job, size_t n, int mpe, int copy,
                        batch_fn fn, fb_error *err)
{
	eval_ws ws;

	if (ws_init(&ws, c, mpe, copy, err) != FB_OK)
		return FB_ERR;
	for (size_t r0 = 0; r0 < n; r0 += EVAL_BATCH)
		fn(c, job, r0, n - r0 < EVAL_BATCH ? n - r0 : EVAL_BATCH, &ws);
	ws_release(&ws);
	return FB_OK;
}

/* log p of one batch. */
static void batch_logpdf(const fb_circuit *c, const eval_job *job, size_t r0, size_t nb,
                         eval_ws *ws)
{
	eval_upward(c, job->x + r0 * c->nvars, nb, 0, ws);
	memcpy(job->out + r0, ws->val + fb_circuit_root(c) * nb, nb * sizeof *job->out);
}

/* log p(x) of n rows, NAN marginalised. */
int fb_circuit_logpdf(const fb_circuit *c, const double *x, size_t n, double *out,
                      fb_error *err)
{
	eval_job job = { .x = x, .out = out };

	return eval_batches(c, &job, n, 0, 0, batch_logpdf, err);
}

/* Conditional log p of one batch: the joint minus the marginal with the query hidden. */
static void batch_conditional(const fb_circuit *c, const eval_job *job, size_t r0, size_t nb,
                              eval_ws *ws)
{
	size_t root = fb_circuit_root(c), d = c->nvars;
	double *out = job->out + r0;

	memcpy(ws->rows, job->x + r0 * d, nb * d * sizeof *ws->rows);
	for (size_t r = 0; r < nb; r++)
		for (size_t j = 0; j < d; j++)
			if (job->query[j])
				ws->rows[r * d + j] = NAN;
	eval_upward(c, ws->rows, nb, 0, ws);
	memcpy(out, ws->val + root * nb, nb * sizeof *out);
	eval_upward(c, job->x + r0 * d, nb, 0, ws);
	for (size_t r = 0; r < nb; r++)
		out[r] = ws->val[root * nb + r] - out[r];
}

/* log p(x_Q | x_E) of n rows: the joint minus the marginal of the evidence. */
int fb_circuit_log_conditional(const fb_circuit *c, const double *x, size_t n,
                               const unsigned char *query, double *out, fb_error *err)
{
	eval_job job = { .x = x, .query = query, .out = out };

	return eval_batches(c, &job, n, 0, 1, batch_conditional, err);
}

/* Downward MPE pass for row r of a batch of nb rows at xr: follow each sum's best child and
 * write the mode of every leaf whose variable is NAN. */
static void mpe_downward(const fb_circuit *c, eval_ws *ws, size_t r, size_t nb, double *xr)
{
	size_t top = 0;

	ws->stack[top++] = fb_circuit_root(c);
	while (top > 0) {
		size_t i = ws->stack[--top];
		const fb_circuit_node *nd = &c->nodes[i];

		if (nd->kind == FB_NODE_LEAF) {
			if (isnan(xr[nd->leaf.var]))
				xr[nd->leaf.var] = ws->mode[i];
		} else if (nd->kind == FB_NODE_SUM) {
			ws->stack[top++] = nd->children[ws->arg[i * nb + r]];
		} else {
			/* a valid circuit visits each node once per row, so nnodes slots suffice */
			for (size_t k = nd->nchildren; k-- > 0 && top < c->nnodes;)
				ws->stack[top++] = nd->children[k];
		}
	}
}

/* MPE of one batch: max-product upward, then each row downward. */
static void batch_mpe(const fb_circuit *c, const eval_job *job, size_t r0, size_t nb,
                      eval_ws *ws)
{
	size_t root = fb_circuit_root(c), d = c->nvars;

	eval_upward(c, job->xw + r0 * d, nb, 1, ws);
	for (size_t r = 0; r < nb; r++) {
		if (job->out != NULL)
			job->out[r0 + r] = ws->val[root * nb + r];
		mpe_downward(c, ws, r, nb, job->xw + (r0 + r) * d);
	}
}

/* MPE completion of the NANs of n rows by max-product. */
int fb_circuit_mpe(const fb_circuit *c, double *x, size_t n, double *logval, fb_error *err)
{
	eval_job job = { .x = x, .xw = x, .out = logval };

	return eval_batches(c, &job, n, 1, 0, batch_mpe, err);
}

/* Evaluate on n rows of x the nodes that live on machine, children first, into val (nnodes x
 * n, node-major); the other machines' nodes are read from val. */
int fb_circuit_eval_machine(const fb_circuit *c, const double *x, size_t n, int machine,
                            double *val, fb_error *err)
{
	double *acc = malloc((n ? n : 1) * sizeof *acc);

	if (acc == NULL)
		return fb_fail(err, "out of memory evaluating %zu rows", n);
	for (size_t i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].machine != machine)
			continue;
		switch (c->nodes[i].kind) {
		case FB_NODE_LEAF:
			eval_leaf(c, i, x, n, 0, val + i * n);
			break;
		case FB_NODE_PRODUCT:
			eval_product(c, i, n, val);
			break;
		case FB_NODE_SUM:
			eval_sum(c, i, n, val, acc, NULL);
			break;
		}
	}
	free(acc);
	return FB_OK;
}
