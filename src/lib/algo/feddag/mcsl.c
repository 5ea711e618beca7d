/* One MCSL / FedDAG client: the Gumbel-sigmoid mask over logits U and the masked networks
 * (or the linear W), the objective with its gradients, and Adam steps on its own rows. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_matrix.h>

#include "fedbn/honour.h"
#include "fedbn/mcsl.h"
#include "fedbn/nn.h"
#include "fedbn/optim.h"

/* A client. */
struct fb_mcsl_client {
	fb_mcsl_options o;      /* its settings */
	const fb_dataset *data; /* its rows (not owned) */
	size_t d;               /* variables */
	double *graph;          /* U or W, d x d */
	fb_nn_stack *net;       /* the masked networks (NULL for the linear model) */
	fb_adam adam_g;         /* Adam state of the graph parameters */
	fb_adam adam_n;         /* Adam state of the networks (unused for the linear model) */
	gsl_rng *noise_rng;     /* the client's mask noise */
	fb_dag_h_work *hw;      /* scratch of h */
	double *noise;          /* this step's noise, d x d */
	double *mask;           /* this step's mask, d x d */
	double *gmask;          /* the objective's gradient with respect to the mask */
	double *gg;             /* the graph gradient */
	double *gn;             /* the network gradient */
	double *gblock;         /* one block of rows' network gradient */
	double *gmblock;        /* one block of rows' mask gradient */
	double *xtx;            /* linear model: X^T X, d x d */
	double trxx;            /* linear model: tr(X^T X) */
	unsigned char *role;    /* d*d arcs under the knowledge (fb_honour_roles), or NULL */
};

/* The logistic function in its overflow-free forms. */
static double logistic(double z)
{
	double e = exp(-fabs(z)), s = 1.0 / (1.0 + e);

	return z >= 0.0 ? s : e * s;
}

/* Standard logistic draws off the diagonal. */
void fb_mcsl_logistic_fill(gsl_rng *r, size_t d, double *noise)
{
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			double u;

			if (i == j) {
				noise[i * d + j] = 0.0;
				continue;
			}
			u = gsl_rng_uniform_pos(r);
			noise[i * d + j] = log(u) - log1p(-u);
		}
}

/* sigma((U + noise) / tau) off the diagonal (noise NULL: none); with roles (NULL: none), 0
 * where an arc is forbidden and 1 where it is required. */
static void mask_fill(const double *U, const double *noise, size_t d, double tau,
                      const unsigned char *role, double *M)
{
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			size_t k = i * d + j;

			M[k] = i == j ? 0.0 : logistic((U[k] + (noise != NULL ? noise[k] : 0.0)) / tau);
			if (role != NULL && role[k] != FB_ENTRY_FREE)
				M[k] = role[k] == FB_ENTRY_REQUIRED ? 1.0 : 0.0;
		}
}

/* Hold the graph parameters where the roles fix them. */
void fb_mcsl_pin(const unsigned char *role, size_t d, enum fb_mcsl_model model, double tau,
                 double *graph)
{
	double on = FB_MCSL_PIN_TAU * tau + FB_MCSL_PIN_MARGIN;

	for (size_t k = 0; role != NULL && k < d * d; k++) {
		if (model == FB_MCSL_LINEAR && role[k] == FB_ENTRY_FORBIDDEN)
			graph[k] = 0.0;
		else if (model == FB_MCSL_MASKED && role[k] != FB_ENTRY_FREE)
			graph[k] = role[k] == FB_ENTRY_REQUIRED ? on : -on;
	}
}

/* The noiseless mask. */
void fb_mcsl_mask_mean(const double *U, size_t d, double tau, double *P)
{
	mask_fill(U, NULL, d, tau, NULL, P);
}

/* h and, when g is not NULL, its gradient, on a given workspace. */
static int h_with(const double *M, size_t d, fb_dag_h_work *w, double *h, double *g,
                  fb_error *err)
{
	gsl_matrix_const_view Mv = gsl_matrix_const_view_array(M, d, d);
	gsl_matrix_view Gv;

	if (g == NULL)
		return fb_dag_h(&Mv.matrix, w, h, NULL, err);
	Gv = gsl_matrix_view_array(g, d, d);
	return fb_dag_h(&Mv.matrix, w, h, &Gv.matrix, err);
}

/* h(M o M) on scratch of its own. */
int fb_mcsl_h(const double *M, size_t d, double *h, fb_error *err)
{
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	int ret;

	if (w == NULL)
		return fb_fail(err, "mcsl: out of memory");
	ret = h_with(M, d, w, h, NULL, err);
	fb_dag_h_work_free(w);
	return ret;
}

/* The mean of h over sampled masks. */
int fb_mcsl_h_expected(const double *U, size_t d, double tau, gsl_rng *r, size_t samples,
                       double *h, fb_error *err)
{
	double *noise = fb_xcalloc(2 * d * d, sizeof *noise), *M = noise + d * d, sum = 0.0, one;
	fb_dag_h_work *w = fb_dag_h_work_alloc(d);
	int ret = w == NULL ? fb_fail(err, "mcsl: out of memory") : FB_OK;

	for (size_t s = 0; s < samples && ret == FB_OK; s++) {
		fb_mcsl_logistic_fill(r, d, noise);
		mask_fill(U, noise, d, tau, NULL, M);
		ret = h_with(M, d, w, &one, NULL, err);
		sum += one;
	}
	*h = sum / (double)(samples > 0 ? samples : 1);
	fb_dag_h_work_free(w);
	free(noise);
	return ret;
}

/* Glorot-uniform networks: layer 0 over the d - 1 real inputs (a network's own variable's
 * weights stay 0), the others over their sizes; biases 0. */
static void nets_init(fb_nn_stack *s, size_t d, size_t hidden, gsl_rng *r)
{
	double *p = fb_nn_stack_params(s);
	size_t L = fb_nn_stack_layers(s);
	fb_nn_span sp;
	double b0 = sqrt(6.0 / ((double)(d - 1) + (double)hidden));

	memset(p, 0, fb_nn_stack_nparams(s) * sizeof *p);
	fb_nn_stack_span(s, 0, &sp);
	for (size_t row = 0; row < d * hidden; row++)
		for (size_t i = 0; i < d; i++)
			if (i != row / hidden)
				p[sp.weight + row * d + i] = b0 * (2.0 * gsl_rng_uniform(r) - 1.0);
	for (size_t l = 1; l < L; l++) {
		double in, out;

		fb_nn_stack_span(s, l, &sp);
		in = (double)(sp.nweight / sp.nbias);
		out = (double)(sp.nbias / d);
		fb_nn_uniform_fill(p + sp.weight, sp.nweight, sqrt(6.0 / (in + out)), r);
	}
}

/* The masked networks, drawn from the shared "mcsl-init" stream. */
static int client_nets(fb_mcsl_client *c, fb_error *err)
{
	size_t *dims = fb_xcalloc(c->o.layers + 2, sizeof *dims);
	fb_nn_act act = { FB_NN_ACT_LEAKY_RELU, c->o.slope };
	gsl_rng *r;

	dims[0] = c->d;
	for (size_t l = 1; l <= c->o.layers; l++)
		dims[l] = c->o.hidden;
	dims[c->o.layers + 1] = 1;
	c->net = fb_nn_stack_alloc(dims, c->o.layers + 2, &act, err);
	free(dims);
	if (c->net == NULL)
		return FB_ERR;
	r = fb_rng_stream(c->o.seed, "mcsl-init");
	nets_init(c->net, c->d, c->o.hidden, r);
	gsl_rng_free(r);
	c->gn = fb_xcalloc(fb_nn_stack_nparams(c->net), sizeof *c->gn);
	c->gblock = fb_xcalloc(fb_nn_stack_nparams(c->net), sizeof *c->gblock);
	c->gmblock = fb_xcalloc(c->d * c->d, sizeof *c->gmblock);
	return fb_adam_init(&c->adam_n, fb_nn_stack_nparams(c->net), c->o.lr, err);
}

/* X^T X of the client's rows, for the linear model. */
static void client_gram(fb_mcsl_client *c)
{
	size_t d = c->d;
	gsl_matrix_const_view X = gsl_matrix_const_view_array(c->data->x, c->data->n, d);
	gsl_matrix_view G;

	c->xtx = fb_xcalloc(d * d, sizeof *c->xtx);
	G = gsl_matrix_view_array(c->xtx, d, d);
	gsl_blas_dgemm(CblasTrans, CblasNoTrans, 1.0, &X.matrix, &X.matrix, 0.0, &G.matrix);
	c->trxx = 0.0;
	for (size_t i = 0; i < d; i++)
		c->trxx += c->xtx[i * d + i];
}

/* FB_ERR unless the options and the data can make a client. */
static int client_check(const fb_dataset *data, const fb_mcsl_options *o, fb_error *err)
{
	if (data->d < 2)
		return fb_fail(err, "mcsl needs at least 2 variables, not %zu", data->d);
	if (data->n == 0)
		return fb_fail(err, "mcsl needs at least one row");
	if (o->model == FB_MCSL_MASKED && (o->hidden == 0 || o->layers == 0))
		return fb_fail(err, "mcsl: 'hidden' and 'layers' must be at least 1");
	if (o->model == FB_MCSL_MASKED && !(o->tau > 0.0))
		return fb_fail(err, "mcsl: 'tau' must be positive, not %g", o->tau);
	return FB_OK;
}

/* A client over data. */
fb_mcsl_client *fb_mcsl_client_alloc(const fb_dataset *data, size_t index,
                                     const fb_mcsl_options *o, fb_error *err)
{
	fb_mcsl_client *c;
	char name[48];
	size_t d = data->d;

	if (client_check(data, o, err) != FB_OK)
		return NULL;
	c = fb_xcalloc(1, sizeof *c);
	c->o = *o;
	c->data = data;
	c->d = d;
	c->graph = fb_xcalloc(d * d, sizeof *c->graph);
	c->noise = fb_xcalloc(d * d, sizeof *c->noise);
	c->mask = fb_xcalloc(d * d, sizeof *c->mask);
	c->gmask = fb_xcalloc(d * d, sizeof *c->gmask);
	c->gg = fb_xcalloc(d * d, sizeof *c->gg);
	if (o->same_noise)
		snprintf(name, sizeof name, "mcsl-noise");
	else
		snprintf(name, sizeof name, "mcsl-noise-%zu", index);
	c->noise_rng = fb_rng_stream(o->seed, name);
	c->hw = fb_dag_h_work_alloc(d);
	if (c->hw == NULL || fb_adam_init(&c->adam_g, d * d, o->lr, err) != FB_OK)
		goto fail;
	if (o->model == FB_MCSL_LINEAR)
		client_gram(c);
	else if (client_nets(c, err) != FB_OK)
		goto fail;
	if (fb_honour_roles(o->knowledge, d, &c->role, err) != FB_OK)
		goto fail;
	c->o.knowledge = NULL; /* read into the roles, not kept */
	fb_mcsl_pin(c->role, d, o->model, o->tau, c->graph);
	return c;
fail:
	if (c->hw == NULL)
		fb_fail(err, "mcsl: out of memory");
	fb_mcsl_client_free(c);
	return NULL;
}

/* Free a client. */
void fb_mcsl_client_free(fb_mcsl_client *c)
{
	if (c == NULL)
		return;
	fb_nn_stack_free(c->net);
	fb_adam_release(&c->adam_g);
	fb_adam_release(&c->adam_n);
	gsl_rng_free(c->noise_rng);
	fb_dag_h_work_free(c->hw);
	free(c->graph);
	free(c->noise);
	free(c->mask);
	free(c->gmask);
	free(c->gg);
	free(c->gn);
	free(c->gblock);
	free(c->gmblock);
	free(c->xtx);
	free(c->role);
	free(c);
}

/* U or W. */
double *fb_mcsl_client_graph(fb_mcsl_client *c)
{
	return c->graph;
}

/* The networks. */
double *fb_mcsl_client_net(fb_mcsl_client *c, size_t *len)
{
	*len = c->net != NULL ? fb_nn_stack_nparams(c->net) : 0;
	return c->net != NULL ? fb_nn_stack_params(c->net) : NULL;
}

/* Whether flat network entry k is a weight of a network's own variable (never used). */
static bool net_own_input(const fb_mcsl_client *c, size_t k)
{
	fb_nn_span sp;

	fb_nn_stack_span(c->net, 0, &sp);
	return k < sp.nweight && (k / c->d) / c->o.hidden == k % c->d;
}

/* Numbers that travel. */
size_t fb_mcsl_wire_len(const fb_mcsl_client *c, bool with_net)
{
	fb_nn_span sp;

	if (!with_net || c->net == NULL)
		return c->d * c->d;
	fb_nn_stack_span(c->net, 0, &sp);
	return c->d * c->d + fb_nn_stack_nparams(c->net) - sp.nweight / c->d;
}

/* Pack (dir > 0) or unpack (dir < 0) the travelling numbers. */
static void wire_move(fb_mcsl_client *c, bool with_net, double *buf, int dir)
{
	size_t d2 = c->d * c->d, len, at = d2;
	double *p;

	if (dir > 0)
		memcpy(buf, c->graph, d2 * sizeof *buf);
	else
		memcpy(c->graph, buf, d2 * sizeof *buf);
	if (dir < 0)
		fb_mcsl_pin(c->role, c->d, c->o.model, c->o.tau, c->graph);
	if (!with_net || c->net == NULL)
		return;
	p = fb_nn_stack_params(c->net);
	len = fb_nn_stack_nparams(c->net);
	for (size_t k = 0; k < len; k++) {
		if (net_own_input(c, k))
			continue;
		if (dir > 0)
			buf[at++] = p[k];
		else
			p[k] = buf[at++];
	}
}

/* Pack. */
void fb_mcsl_wire_pack(const fb_mcsl_client *c, bool with_net, double *out)
{
	wire_move((fb_mcsl_client *)c, with_net, out, 1);
}

/* Unpack. */
void fb_mcsl_wire_unpack(fb_mcsl_client *c, bool with_net, const double *in)
{
	wire_move(c, with_net, (double *)in, -1);
}

/* The linear model's objective: (1/2n)|X - XW|^2 from X^T X, l1 on W, h(W o W). */
static int linear_objective(fb_mcsl_client *c, double alpha, double rho, fb_mcsl_parts *pt,
                            double *gg, fb_error *err)
{
	size_t d = c->d, n = c->data->n;
	const double *W = c->graph, *G = c->xtx;
	double quad = 0.0, cross = 0.0, l1 = 0.0, h;

	/* gmask holds G W; quad = tr(W^T G W), cross = tr(G W) */
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++) {
			double s = 0.0;

			for (size_t k = 0; k < d; k++)
				s += G[i * d + k] * W[k * d + j];
			c->gmask[i * d + j] = s;
		}
	for (size_t k = 0; k < d * d; k++) {
		quad += W[k] * c->gmask[k];
		cross += G[k] * W[k];
		if (c->role == NULL || c->role[k] != FB_ENTRY_REQUIRED)
			l1 += fabs(W[k]);
	}
	if (h_with(W, d, c->hw, &h, gg, err) != FB_OK)
		return FB_ERR;
	pt->mse = (c->trxx - 2.0 * cross + quad) / (2.0 * (double)n);
	pt->l1 = c->o.lambda * l1;
	pt->h = h;
	pt->loss = pt->mse + pt->l1 + alpha * h + 0.5 * rho * h * h;
	if (gg != NULL)
		for (size_t k = 0; k < d * d; k++) {
			double sg = W[k] > 0.0 ? 1.0 : W[k] < 0.0 ? -1.0 : 0.0;

			if (c->role != NULL && c->role[k] == FB_ENTRY_REQUIRED)
				sg = 0.0;
			gg[k] = (c->gmask[k] - G[k]) / (double)n + c->o.lambda * sg +
			        (alpha + rho * h) * gg[k];
			if (k / d == k % d || (c->role != NULL && c->role[k] == FB_ENTRY_FORBIDDEN))
				gg[k] = 0.0;
		}
	return FB_OK;
}

/* Rows per pass of the networks: blocks this small keep a pass's activations in the
 * processor's cache, which is worth more than fewer, larger products. */
#define MCSL_BLOCK 64

/* The networks' squared loss (1/2n) SSE over the client's rows with mask M, and with grads
 * its gradients in c->gn and c->gmask: block by block of MCSL_BLOCK rows, each block's
 * share weighted by its rows, added in block order. */
static int masked_mse(fb_mcsl_client *c, const double *M, double *mse, bool grads,
                      fb_error *err)
{
	size_t n = c->data->n, d = c->d, np = fb_nn_stack_nparams(c->net);
	double part;

	*mse = 0.0;
	if (grads) {
		memset(c->gn, 0, np * sizeof *c->gn);
		memset(c->gmask, 0, d * d * sizeof *c->gmask);
	}
	for (size_t at = 0; at < n; at += MCSL_BLOCK) {
		size_t m = n - at < MCSL_BLOCK ? n - at : MCSL_BLOCK;
		double w = (double)m / (double)n;

		if (fb_nn_stack_mse(c->net, m, c->data->x + at * d, M, &part,
		                    grads ? c->gblock : NULL, grads ? c->gmblock : NULL,
		                    err) != FB_OK)
			return FB_ERR;
		*mse += w * part;
		for (size_t k = 0; grads && k < np; k++)
			c->gn[k] += w * c->gblock[k];
		for (size_t k = 0; grads && k < d * d; k++)
			c->gmask[k] += w * c->gmblock[k];
	}
	return FB_OK;
}

/* The masked model's objective: the networks' squared loss on the masked rows, l1 and h on
 * the mask, and the chain rule back to U. */
static int masked_objective(fb_mcsl_client *c, double alpha, double rho, const double *noise,
                            fb_mcsl_parts *pt, double *gg, double *gn, fb_error *err)
{
	size_t d = c->d;
	double *M = c->mask, *gM = c->gmask, *gh = c->gg, sum = 0.0, h;
	bool grads = gg != NULL || gn != NULL;

	mask_fill(c->graph, noise, d, c->o.tau, c->role, M);
	if (masked_mse(c, M, &pt->mse, grads, err) != FB_OK)
		return FB_ERR;
	if (h_with(M, d, c->hw, &h, grads ? gh : NULL, err) != FB_OK)
		return FB_ERR;
	for (size_t k = 0; k < d * d; k++)
		sum += (c->role == NULL || c->role[k] != FB_ENTRY_REQUIRED) ? M[k] : 0.0;
	pt->l1 = c->o.lambda * sum;
	pt->h = h;
	pt->loss = pt->mse + pt->l1 + alpha * h + 0.5 * rho * h * h;
	if (gn != NULL && gn != c->gn)
		memcpy(gn, c->gn, fb_nn_stack_nparams(c->net) * sizeof *gn);
	if (gg != NULL)
		for (size_t k = 0; k < d * d; k++) {
			double dm = gM[k] + c->o.lambda + (alpha + rho * h) * gh[k];

			gg[k] = k / d == k % d ? 0.0 : dm * M[k] * (1.0 - M[k]) / c->o.tau;
			if (c->role != NULL && c->role[k] != FB_ENTRY_FREE)
				gg[k] = 0.0;
		}
	return FB_OK;
}

/* The objective and its gradients. */
int fb_mcsl_client_objective(fb_mcsl_client *c, double alpha, double rho, const double *noise,
                             fb_mcsl_parts *parts, double *gg, double *gn, fb_error *err)
{
	if (c->o.model == FB_MCSL_LINEAR)
		return linear_objective(c, alpha, rho, parts, gg, err);
	return masked_objective(c, alpha, rho, noise, parts, gg, gn, err);
}

/* x -= lr g, or an Adam step. */
static void update(const fb_mcsl_client *c, fb_adam *a, double *x, const double *g)
{
	if (!c->o.plain) {
		fb_adam_step(a, x, g);
		return;
	}
	for (size_t k = 0; k < a->n; k++)
		x[k] -= c->o.lr * g[k];
}

/* One step on fresh noise. */
int fb_mcsl_client_step(fb_mcsl_client *c, double alpha, double rho, fb_mcsl_parts *parts,
                        fb_error *err)
{
	double *gg = fb_xcalloc(c->d * c->d, sizeof *gg);
	int ret;

	if (c->o.model == FB_MCSL_MASKED)
		fb_mcsl_logistic_fill(c->noise_rng, c->d, c->noise);
	ret = fb_mcsl_client_objective(c, alpha, rho, c->noise, parts, gg, c->gn, err);
	if (ret == FB_OK && !(isfinite(parts->loss)))
		ret = fb_fail(err, "mcsl: the objective is no longer finite (rho %g too large?)", rho);
	if (ret == FB_OK) {
		update(c, &c->adam_g, c->graph, gg);
		fb_mcsl_pin(c->role, c->d, c->o.model, c->o.tau, c->graph);
		if (c->net != NULL)
			update(c, &c->adam_n, fb_nn_stack_params(c->net), c->gn);
	}
	free(gg);
	return ret;
}

/* The outer loop's move after a sub-problem. */
bool fb_mcsl_alm_update(fb_mcsl_alm *a, double h_new, double h_mean)
{
	a->h_last = h_new;
	if (a->loop == FB_MCSL_LOOP_CODE) {
		if (h_new > a->gamma * a->h_prev) {
			a->rho *= a->beta;
			if (a->rho < a->rho_max)
				return false; /* the same sub-problem again */
		}
		a->outer++;
		if ((h_new <= a->h_tol && h_mean <= a->h_tol && a->outer > a->init_iter) ||
		    a->rho >= a->rho_max || a->outer >= a->it_max)
			a->done = true;
		a->h_prev = h_new;
		a->alpha += a->rho * h_new;
		return true;
	}
	a->alpha += a->rho * h_new;
	if (h_new > a->gamma * a->h_prev)
		a->rho *= a->beta;
	a->h_prev = h_new;
	a->outer++;
	if (a->outer >= a->it_max || h_new < a->h_tol || a->rho > a->rho_max)
		a->done = true;
	return true;
}

/* Table 7. */
void fb_mcsl_table7(size_t d, bool gs, double *rho_init, double *beta)
{
	if (d < 15) {
		*rho_init = 6e-3;
		*beta = 10.0;
	} else if (d < 30) {
		*rho_init = gs ? 6e-5 : 1e-5;
		*beta = 20.0;
	} else {
		*rho_init = 1e-11;
		*beta = 120.0;
	}
}
