/* NOTEARS-MLP-ADMM (Ng and Zhang 2022; ALGORITHMS.md §4.4): the client half and the server
 * half of consensus ADMM over the full parameter vector of the MLP stack {d, hidden, 1}.
 *
 * Round t: each taking-part client first moves beta_k by rho2 (theta_k - theta) against the
 * broadcast theta it now receives (it is theta^t, the result of the round after its last
 * step), then solves its local step by L-BFGS from its previous theta_k and sends theta_k:
 * liblbfgs's iteration under scipy's stopping rules, fb_lbfgs_scipy's (its inner products
 * in 16 partial sums), or under knowledge liblbfgs's own through fb_owlqn's roles.
 * The server moves its copies of those beta_k the same way, then solves the global step:
 * the consensus terms over the clients heard so far equal (K' rho2 / 2)|theta - tbar|^2 + a
 * constant, tbar = mean(theta_k + beta_k / rho2), so the first layer is the proximal problem
 * lambda1 |t|_1 + alpha h + (rho1/2) h^2 + (lambda2/2)|t|^2 + (K' rho2/2)|t - tbar|^2 (OWL-QN,
 * warm-started), the output weights have the closed form K' rho2 tbar / (K' rho2 + lambda2)
 * and the biases tbar.  The penalties follow the schedule rho^t = rho^1 gamma^(t-1), each
 * factor taken only while below rho_max, so a client that sat rounds out knows them from the
 * round number alone.  Only parameter vectors travel. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/honour.h"
#include "fedbn/notears-mlp.h"
#include "mlp-int.h"

/* The penalty of round t (1-based): rho0 times gamma for each earlier round it was below
 * rho_max. */
static double mlp_rho_at(double rho0, double gamma, double rho_max, size_t t)
{
	double r = rho0;

	for (size_t s = 1; s < t; s++)
		if (r < rho_max)
			r *= gamma;
	return r;
}

/* Parameters of the stack {d, hidden, 1}. */
size_t fb_mlp_admm_nparams(size_t d, size_t hidden)
{
	return hidden * d * d + 2 * hidden * d + d;
}

/* |a - b| over n entries. */
static double mlp_distance(const double *a, const double *b, size_t n)
{
	double s = 0.0;

	for (size_t k = 0; k < n; k++)
		s += (a[k] - b[k]) * (a[k] - b[k]);
	return sqrt(s);
}

/* ---- client ---- */

/* The roles of a client's np parameters under knowledge k (NULL without any, fb_mlp_layer_roles
 * with it; the fixed weights of theta set to 0); FB_ERR on knowledge of another size. */
static int mlp_knowledge_roles(const fb_knowledge *k, size_t d, size_t hidden, size_t np,
                               double *theta, unsigned char **role, fb_error *err)
{
	unsigned char *entry;

	*role = NULL;
	if (fb_honour_roles(k, d, &entry, err) != FB_OK)
		return FB_ERR;
	if (entry != NULL)
		*role = fb_mlp_layer_roles(entry, d, hidden, np, theta);
	free(entry);
	return FB_OK;
}

struct fb_mlp_client {
	fb_mlp_admm_options opt; /* the settings */
	const fb_dataset *xk;    /* its rows (not owned) */
	double share;            /* n_k / n: its loss is (1/2n)|X_k - f(X_k)|^2 */
	fb_nn_stack *net;        /* the model, set from theta at each evaluation */
	size_t np;               /* parameters */
	double *theta;           /* theta_k (owned) */
	double *beta;            /* beta_k (owned) */
	double *glob;            /* the broadcast theta of its last step (owned) */
	double *g;               /* the model's gradient at the last evaluation (owned) */
	double *gbest;           /* and at the best point of the step under way (owned) */
	double lbest;            /* the MSE there */
	double fbest;            /* the objective there (HUGE_VAL: none yet) */
	int best_ok;             /* 1: gbest and lbest are the model's at that best point */
	int cached;              /* 1: gbest and lbest are the model's at theta_k */
	int first;               /* 1: the next evaluation is the step's first */
	double rho2;             /* the rho2 of its last step */
	size_t last;             /* the round of its last step (0: none) */
	double loss;             /* its data loss at theta_k */
	unsigned char *role;     /* with knowledge: fb_owlqn's np roles (the first-layer weights
	                            of forbidden arcs fixed at 0), else NULL */
};

/* The model's MSE at x, and its gradient when grad is wanted (*mg then points at it): from
 * the cache when x is theta_k, where the last step ended and its model was evaluated;
 * FB_ERR when the model fails. */
static int client_model(fb_mlp_client *c, const double *x, int grad, double *loss,
                        const double **mg)
{
	int first = c->first;

	c->first = 0;
	if (first && c->cached && grad && memcmp(x, c->theta, c->np * sizeof *x) == 0) {
		*loss = c->lbest;
		*mg = c->gbest;
		return FB_OK;
	}
	*mg = c->g;
	if (x != fb_nn_stack_params(c->net)) /* fb_lbfgs_scipy's iterates are the model's own */
		fb_nn_stack_set_params(c->net, x);
	return fb_nn_stack_mse(c->net, c->xk->n, c->xk->x, NULL, loss, grad ? c->g : NULL, NULL,
	                       NULL);
}

/* Keep the model's loss and gradient of an evaluation with objective f and model gradient
 * mg (NULL: not computed) when it is the lowest of the step so far, as the optimiser's
 * adapter keeps its point: the buffers swap, nothing is copied. */
static void client_keep_best(fb_mlp_client *c, double f, double loss, const double *mg)
{
	double *t;

	if (!isfinite(f) || !(f < c->fbest))
		return;
	c->fbest = f;
	c->lbest = loss;
	c->best_ok = mg != NULL;
	if (mg == c->g) {
		t = c->gbest;
		c->gbest = c->g;
		c->g = t;
	}
}

/* Four doubles (GCC's vector extension: each lane its own IEEE operations). */
typedef double mlp_v4 __attribute__((vector_size(32)));

/* f plus, one at a time in k's order, the consensus terms beta_k r + (rho2/2 r) r of the n
 * entries from x (r = x - the broadcast theta), and with grad, grad = share mg + beta +
 * rho2 r.  The terms and the gradient are formed four entries at a time, and only the
 * additions to f wait for one another; each value is the one-at-a-time loop's. */
static double client_terms(const fb_mlp_client *c, const double *x, const double *mg,
                           double f, double *grad, size_t n)
{
	const double *glob = c->glob, *beta = c->beta;
	double share = c->share, rho2 = c->rho2, half = 0.5 * rho2;
	mlp_v4 sv = { share, share, share, share }, rv = { rho2, rho2, rho2, rho2 };
	mlp_v4 hv = { half, half, half, half };
	size_t k = 0;

	for (; k + 4 <= n; k += 4) {
		mlp_v4 xv, gv, bv, t;

		memcpy(&xv, x + k, sizeof xv), memcpy(&gv, glob + k, sizeof gv);
		memcpy(&bv, beta + k, sizeof bv);
		xv -= gv;
		t = bv * xv + (hv * xv) * xv;
		f += t[0], f += t[1], f += t[2], f += t[3];
		if (grad != NULL) {
			memcpy(&gv, mg + k, sizeof gv);
			gv = (sv * gv + bv) + rv * xv;
			memcpy(grad + k, &gv, sizeof gv);
		}
	}
	for (; k < n; k++) {
		double r = x[k] - glob[k];

		f += beta[k] * r + half * r * r;
		if (grad != NULL)
			grad[k] = share * mg[k] + beta[k] + rho2 * r;
	}
	return f;
}

/* The local objective at x: share x MSE + beta'(x - theta) + rho2/2 |x - theta|^2. */
static double client_objective(const double *x, double *grad, size_t np, void *ctx)
{
	fb_mlp_client *c = ctx;
	const double *mg;
	double loss, f;

	if (client_model(c, x, grad != NULL, &loss, &mg) != FB_OK) {
		if (grad != NULL)
			memset(grad, 0, np * sizeof *grad);
		return INFINITY;
	}
	f = client_terms(c, x, mg, c->share * loss, grad, np);
	client_keep_best(c, f, loss, grad != NULL ? mg : NULL);
	return f;
}

/* Client k of a split with n_total rows. */
fb_mlp_client *fb_mlp_client_alloc(const fb_dataset *xk, size_t k, size_t n_total,
                                   const fb_mlp_admm_options *opt, fb_error *err)
{
	fb_mlp_client *c;
	char name[64];
	gsl_rng *r;

	if (fb_mlp_check_data(xk, "notears-mlp-admm", err) != FB_OK)
		return NULL;
	if (n_total < xk->n)
		return fb_fail(err, "notears-mlp-admm: %zu rows in all but %zu on one client",
		               n_total, xk->n), NULL;
	c = fb_xcalloc(1, sizeof *c);
	c->opt = *opt;
	c->xk = xk;
	c->share = (double)xk->n / (double)n_total;
	if ((c->net = fb_mlp_stack_alloc(xk->d, opt->hidden, err)) == NULL) {
		free(c);
		return NULL;
	}
	c->np = fb_nn_stack_nparams(c->net);
	snprintf(name, sizeof name, "mlp-admm client %zu", k + 1);
	r = fb_rng_stream(opt->seed, name);
	fb_nn_stack_init(c->net, FB_NN_INIT_TORCH, r);
	gsl_rng_free(r);
	c->theta = fb_xcalloc(c->np, sizeof *c->theta);
	fb_nn_stack_get_params(c->net, c->theta);
	if (mlp_knowledge_roles(opt->knowledge, xk->d, opt->hidden, c->np, c->theta, &c->role,
	                        err) != FB_OK) {
		fb_nn_stack_free(c->net);
		free(c->theta);
		free(c);
		return NULL;
	}
	c->opt.knowledge = NULL; /* read into the roles, not kept */
	c->beta = fb_xcalloc(c->np, sizeof *c->beta);
	c->glob = fb_xcalloc(c->np, sizeof *c->glob);
	c->g = fb_xcalloc(c->np, sizeof *c->g);
	c->gbest = fb_xcalloc(c->np, sizeof *c->gbest);
	return c;
}

/* Free a client. */
void fb_mlp_client_free(fb_mlp_client *c)
{
	if (c == NULL)
		return;
	fb_nn_stack_free(c->net);
	free(c->theta);
	free(c->beta);
	free(c->glob);
	free(c->g);
	free(c->gbest);
	free(c->role);
	free(c);
}

/* Minimise the local objective from theta_k into theta_k: with knowledge by fb_owlqn's
 * roles, else by fb_lbfgs_scipy on the model's own parameter array, so that no evaluation
 * copies its point into the model. */
static int client_solve(fb_mlp_client *c, const fb_owlqn_options *oo, fb_lbfgs_report *rep,
                        fb_error *err)
{
	double *x = fb_nn_stack_params(c->net);

	if (c->role != NULL)
		return fb_owlqn(c->np, c->theta, client_objective, c, oo, rep, err);
	memcpy(x, c->theta, c->np * sizeof *x);
	if (fb_lbfgs_scipy(c->np, x, client_objective, c, oo, FB_SUMS_LANES, rep, err) != FB_OK)
		return FB_ERR;
	memcpy(c->theta, x, c->np * sizeof *x);
	return FB_OK;
}

/* The local step of round t. */
int fb_mlp_client_local(fb_mlp_client *c, size_t round, const double *theta, double *out,
                        fb_error *err)
{
	fb_owlqn_options oo = { 0 };
	fb_lbfgs_report rep = { 0 };

	if (c->last > 0)
		for (size_t k = 0; k < c->np; k++)
			c->beta[k] += c->rho2 * (c->theta[k] - theta[k]);
	c->rho2 = mlp_rho_at(c->opt.rho2, c->opt.gamma2, c->opt.rho_max, round);
	memcpy(c->glob, theta, c->np * sizeof *theta);
	oo.memory = 10;
	oo.max_eval = 15000;
	oo.ftol_rel = 2.220446049250313e-09;
	oo.gtol = 1e-5;
	oo.scipy_stop = 1; /* liblbfgs's own decrease test, relative to f alone, stops at once
	                      once f < 0, which these objectives reach in late rounds */
	oo.role = c->role;
	c->first = 1;
	c->fbest = HUGE_VAL;
	c->best_ok = 0;
	if (client_solve(c, &oo, &rep, err) != FB_OK) {
		c->cached = 0;
		return FB_ERR;
	}
	/* theta_k is the adapter's best point, the one client_keep_best kept */
	c->cached = c->best_ok;
	if (!c->cached) {
		fb_nn_stack_set_params(c->net, c->theta);
		if (fb_nn_stack_mse(c->net, c->xk->n, c->xk->x, NULL, &c->lbest, NULL, NULL,
		                    err) != FB_OK)
			return FB_ERR;
	}
	c->loss = c->share * c->lbest;
	c->last = round;
	memcpy(out, c->theta, c->np * sizeof *out);
	return FB_OK;
}

/* Its data loss and |theta_k - theta| for the theta of its last step. */
void fb_mlp_client_figures(const fb_mlp_client *c, double *loss, double *residual)
{
	*loss = c->loss;
	*residual = mlp_distance(c->theta, c->glob, c->np);
}

/* ---- server ---- */

struct fb_mlp_server {
	fb_mlp_admm_options opt; /* the settings */
	size_t d, m, k;          /* variables, hidden units, clients */
	size_t np, P;            /* parameters; first-layer weights among them */
	size_t w1;               /* offset of the output weights (hidden d of them) */
	double *theta;           /* the global theta (owned) */
	double *thk;             /* k x np: each client's last theta_k (owned) */
	double *beta;            /* k x np: the server's copy of each beta_k (owned) */
	double *rho2k;           /* per client: the rho2 of its last step (owned) */
	size_t *last;            /* per client: the round it was last heard (0: never) (owned) */
	double *bar;             /* mean of theta_k + beta_k / rho2 over the heard (owned) */
	double alpha;            /* the multiplier of h */
	double rho1, rho2;       /* the penalties of the round under way */
	size_t heard;            /* clients heard so far */
	size_t round;            /* rounds done */
	fb_mlp_h_work hw;        /* the acyclicity term's scratch */
	unsigned char *entry;    /* with knowledge: the d*d arcs' roles (fb_honour_roles) */
	unsigned char *role;     /* with knowledge: fb_owlqn's P roles of the first layer */
};

/* A server for d variables and k clients. */
fb_mlp_server *fb_mlp_server_alloc(size_t d, size_t k, const fb_mlp_admm_options *opt,
                                   fb_error *err)
{
	fb_mlp_server *s;
	fb_nn_stack *net;
	fb_nn_span sp;
	gsl_rng *r;

	if (k < 1 || d < 2 || opt->hidden < 1)
		return fb_fail(err, "notears-mlp-admm: it needs a client, 2 variables and a hidden "
		               "unit"), NULL;
	if ((net = fb_mlp_stack_alloc(d, opt->hidden, err)) == NULL)
		return NULL;
	s = fb_xcalloc(1, sizeof *s);
	s->opt = *opt;
	s->d = d;
	s->m = opt->hidden;
	s->k = k;
	s->np = fb_nn_stack_nparams(net);
	s->P = s->m * d * d;
	fb_nn_stack_span(net, 1, &sp);
	s->w1 = sp.weight;
	r = fb_rng_stream(opt->seed, "mlp-admm init");
	fb_nn_stack_init(net, FB_NN_INIT_TORCH, r);
	gsl_rng_free(r);
	s->theta = fb_xcalloc(s->np, sizeof *s->theta);
	fb_nn_stack_get_params(net, s->theta);
	fb_nn_stack_free(net);
	if (fb_honour_roles(opt->knowledge, d, &s->entry, err) != FB_OK) {
		free(s->theta);
		free(s);
		return NULL;
	}
	if (s->entry != NULL)
		s->role = fb_mlp_layer_roles(s->entry, d, s->m, s->P, s->theta);
	s->opt.knowledge = NULL; /* read into the roles, not kept */
	s->thk = fb_xcalloc(k * s->np, sizeof *s->thk);
	s->beta = fb_xcalloc(k * s->np, sizeof *s->beta);
	s->rho2k = fb_xcalloc(k, sizeof *s->rho2k);
	s->last = fb_xcalloc(k, sizeof *s->last);
	s->bar = fb_xcalloc(s->np, sizeof *s->bar);
	fb_mlp_h_init(&s->hw, d, s->m);
	return s;
}

/* Free a server. */
void fb_mlp_server_free(fb_mlp_server *s)
{
	if (s == NULL)
		return;
	fb_mlp_h_release(&s->hw);
	free(s->entry);
	free(s->role);
	free(s->theta);
	free(s->thk);
	free(s->beta);
	free(s->rho2k);
	free(s->last);
	free(s->bar);
	free(s);
}

/* The current theta. */
const double *fb_mlp_server_theta(const fb_mlp_server *s)
{
	return s->theta;
}

/* The smooth part of the first layer's problem at t: alpha h + rho1/2 h^2 + lambda2/2 |t|^2
 * + (K' rho2/2)|t - tbar|^2, and its gradient. */
static double server_smooth(fb_mlp_server *s, const double *t, double *grad, fb_error *err)
{
	double h, f, c = (double)s->heard * s->rho2, lam2 = s->opt.lambda2;

	if (fb_mlp_h_eval(&s->hw, t, &h, err) != FB_OK) {
		if (grad != NULL)
			memset(grad, 0, s->P * sizeof *grad);
		return INFINITY;
	}
	f = s->alpha * h + 0.5 * s->rho1 * h * h;
	for (size_t q = 0; q < s->P; q++) {
		double r = t[q] - s->bar[q];

		f += 0.5 * lam2 * t[q] * t[q] + 0.5 * c * r * r;
		if (grad != NULL)
			grad[q] = lam2 * t[q] + c * r;
	}
	if (grad != NULL)
		fb_mlp_h_grad_add(&s->hw, t, s->rho1 * h + s->alpha, grad);
	return f;
}

/* server_smooth as an fb_objective. */
static double server_objective(const double *t, double *grad, size_t n, void *ctx)
{
	(void)n;
	return server_smooth(ctx, t, grad, NULL);
}

/* The smooth part of the first layer's problem at t, for the current round's messages. */
int fb_mlp_server_objective(fb_mlp_server *s, const double *t, double *f, double *grad,
                            fb_error *err)
{
	*f = server_smooth(s, t, grad, err);
	return isfinite(*f) ? FB_OK : FB_ERR;
}

/* Take in this round's messages: move the beta copies of the clients that took part and
 * keep their theta_k, then tbar over every client heard so far. */
static void server_take(fb_mlp_server *s, const double *const *up, size_t t)
{
	size_t np = s->np;

	s->heard = 0;
	memset(s->bar, 0, np * sizeof *s->bar);
	for (size_t k = 0; k < s->k; k++) {
		double *th = s->thk + k * np, *be = s->beta + k * np;

		if (up[k] != NULL) {
			if (s->last[k] > 0)
				for (size_t q = 0; q < np; q++)
					be[q] += s->rho2k[k] * (th[q] - s->theta[q]);
			memcpy(th, up[k], np * sizeof *th);
			s->last[k] = t;
			s->rho2k[k] = s->rho2;
		}
		if (s->last[k] == 0)
			continue;
		s->heard++;
		for (size_t q = 0; q < np; q++)
			s->bar[q] += th[q] + be[q] / s->rho2k[k];
	}
	for (size_t q = 0; q < np; q++)
		s->bar[q] /= (double)s->heard;
}

/* The global objective at the current theta, from its definition. */
static double server_total(fb_mlp_server *s, double h)
{
	double f = s->alpha * h + 0.5 * s->rho1 * h * h, l1 = 0.0, l2 = 0.0;

	for (size_t q = 0; q < s->P; q++) {
		if (fb_mlp_penalised(s->entry, s->d, s->m, q))
			l1 += fabs(s->theta[q]);
		l2 += s->theta[q] * s->theta[q];
	}
	for (size_t q = 0; q < s->m * s->d; q++)
		l2 += s->theta[s->w1 + q] * s->theta[s->w1 + q];
	f += s->opt.lambda1 * l1 + 0.5 * s->opt.lambda2 * l2;
	for (size_t k = 0; k < s->k; k++) {
		const double *th = s->thk + k * s->np, *be = s->beta + k * s->np;

		for (size_t q = 0; s->last[k] > 0 && q < s->np; q++) {
			double r = th[q] - s->theta[q];

			f += be[q] * r + 0.5 * s->rho2 * r * r;
		}
	}
	return f;
}

/* Mean over the heard clients of |theta_k - theta|^2. */
static double server_consensus(const fb_mlp_server *s)
{
	double c = 0.0;

	for (size_t k = 0; k < s->k; k++)
		if (s->last[k] > 0) {
			double r = mlp_distance(s->thk + k * s->np, s->theta, s->np);

			c += r * r;
		}
	return c / (double)s->heard;
}

/* Every coordinate outside the first layer's weights: its exact minimiser. */
static void server_closed_form(fb_mlp_server *s)
{
	double c = (double)s->heard * s->rho2;

	for (size_t q = s->P; q < s->np; q++) {
		bool weight = q >= s->w1 && q < s->w1 + s->m * s->d;

		s->theta[q] = weight ? c * s->bar[q] / (c + s->opt.lambda2) : s->bar[q];
	}
}

/* One round on the messages. */
int fb_mlp_server_global(fb_mlp_server *s, const double *const *up, fb_mlp_admm_figures *fig,
                         fb_error *err)
{
	size_t t = s->round + 1;
	fb_owlqn_options oo = { 0 };
	fb_lbfgs_report rep = { 0 };
	double h;

	if (fb_mlp_server_done(s))
		return fb_fail(err, "notears-mlp-admm: the run has finished");
	s->rho1 = mlp_rho_at(s->opt.rho1, s->opt.gamma1, s->opt.rho_max, t);
	s->rho2 = mlp_rho_at(s->opt.rho2, s->opt.gamma2, s->opt.rho_max, t);
	server_take(s, up, t);
	oo.memory = 10;
	oo.max_eval = 15000;
	oo.ftol_rel = 2.220446049250313e-09;
	oo.gtol = 1e-5;
	oo.l1 = s->opt.lambda1;
	oo.l1_end = s->role != NULL ? 0 : s->P;
	oo.role = s->role;
	if (fb_owlqn(s->P, s->theta, server_objective, s, &oo, &rep, err) != FB_OK)
		return FB_ERR;
	server_closed_form(s);
	if (fb_mlp_h_eval(&s->hw, s->theta, &h, err) != FB_OK)
		return FB_ERR;
	if (fig != NULL)
		*fig = (fb_mlp_admm_figures){ t, server_total(s, h), h, s->rho1, s->rho2, s->alpha,
		                              server_consensus(s), rep.evals };
	s->alpha += s->rho1 * h;
	s->round = t;
	return FB_OK;
}

/* Finished after max_rounds or once both penalties reached rho_max. */
bool fb_mlp_server_done(const fb_mlp_server *s)
{
	size_t t = s->round + 1;

	return s->round >= s->opt.max_rounds ||
	       (s->round > 0 && mlp_rho_at(s->opt.rho1, s->opt.gamma1, s->opt.rho_max, t) >=
	        s->opt.rho_max && mlp_rho_at(s->opt.rho2, s->opt.gamma2, s->opt.rho_max, t) >=
	        s->opt.rho_max);
}

/* W = sqrt(A) of theta. */
void fb_mlp_server_adjacency(const fb_mlp_server *s, double *w)
{
	fb_mlp_adjacency(s->d, s->m, s->theta, w);
	for (size_t q = 0; q < s->d * s->d; q++)
		w[q] = sqrt(w[q]);
}

/* |theta_k - theta| for client k's last message. */
double fb_mlp_server_residual(const fb_mlp_server *s, size_t k)
{
	if (k >= s->k || s->last[k] == 0)
		return NAN;
	return mlp_distance(s->thk + k * s->np, s->theta, s->np);
}
