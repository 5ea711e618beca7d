/* Linear NOTEARS-ADMM (ALGORITHMS.md §4): the client's closed-form local step and the
 * server's L-BFGS step on W, with their multiplier and penalty updates. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>

#include "fedbn/admm.h"
#include "fedbn/honour.h"
#include "fedbn/optim.h"

/* One client: everything it needs between rounds, derived from its own rows only. */
struct fb_admm_client {
	size_t d;            /* variables */
	fb_admm_options opt; /* settings (a copy) */
	double rho2;         /* current consensus penalty */
	gsl_matrix *S;       /* X_k^T X_k / n_total with X_k centred on its own means */
	gsl_matrix *beta;    /* multiplier beta_k */
	gsl_matrix *B;       /* solution of the last local step */
	gsl_matrix *chol;    /* Cholesky factor of S + rho2 I (scratch) */
	gsl_matrix *tmp;     /* d x d scratch */
	double loss;         /* l(B_k; X_k) at the last local step, once computed */
	bool loss_valid;     /* loss is up to date with B */
	double dist;         /* ||B_k - W_new||_F at the last update */
	double gap2;         /* ||B_k - W||_F^2 for the W of the last local step */
	double gap_beta;     /* <beta_k, B_k - W> there */
	bool pending;        /* a local step waits for its update */
	unsigned char *role; /* d*d entries under the knowledge (fb_honour_roles), or NULL */
	size_t *rows;        /* with knowledge: d, the rows of a column that may be parents */
	gsl_vector *rhs;     /* with knowledge: d, one column's right-hand side */
	bool *solved;        /* with knowledge: d, the columns a local step has solved again */
};

/* The server: W, alpha and the penalties, the sum of the clients' multipliers as it follows
 * from the summed messages (for the figures only), and the workspace of its W step. */
struct fb_admm_server {
	size_t d;            /* variables */
	size_t k;            /* clients */
	fb_admm_options opt; /* settings (a copy) */
	size_t round;        /* rounds done */
	double alpha;        /* multiplier of h */
	double rho1;         /* penalty on h */
	double rho2;         /* consensus penalty */
	gsl_matrix *W;       /* the global W */
	double *beta_sum;    /* d*d, sum_k beta_k as it follows from the sums (figures only) */
	double *Bsum;        /* d*d, sum_k B_k of the current step (figures only) */
	double *wbar;        /* d*d, (1/K) sum_k (B_k + beta_k / rho2) for the current step */
	double *x;           /* d*d iterate of L-BFGS (row-major W) */
	double *g;           /* d*d gradient scratch */
	double *best;        /* d*d, the evaluated W with the lowest objective in this step */
	double best_f;       /* the objective there (HUGE_VAL before any finite value) */
	fb_dag_h_work *hw;   /* scratch of h(W) */
	bool smooth_only;    /* leave the l1 term out of values and gradients (OWL-QN adds it) */
	fb_admm_settle *settle; /* the settle rule's memory of the last round */
	bool settled;        /* the settle rule stopped the run */
	bool eval_failed;    /* an objective evaluation met an overflowing exponential */
	fb_error eval_err;   /* the reason of the first such failure */
	unsigned char *role; /* d*d entries under the knowledge (fb_honour_roles), or NULL */
	unsigned char *xrole; /* with knowledge: OWL-QN's roles (forbidden fixed, required free
	                         of the l1 term) */
	double *lower;       /* with knowledge: the bounds of the other solvers (forbidden */
	double *upper;       /* entries in [0, 0], the rest unbounded) */
};

/* FB_OK when every setting is usable, else FB_ERR naming the first bad one. */
static int admm_options_check(const fb_admm_options *opt, fb_error *err)
{
	if (opt == NULL)
		return fb_fail(err, "admm: no options given");
	if (!(opt->settle_h >= 0 && isfinite(opt->settle_h)))
		return fb_fail(err, "admm: 'settle_h' must be non-negative and finite");
	if (!(opt->rho1 > 0 && isfinite(opt->rho1)))
		return fb_fail(err, "admm: 'rho1' must be positive and finite");
	if (!(opt->rho2 > 0 && isfinite(opt->rho2)))
		return fb_fail(err, "admm: 'rho2' must be positive and finite");
	if (!(opt->gamma1 >= 1 && isfinite(opt->gamma1)))
		return fb_fail(err, "admm: 'gamma1' must be at least 1");
	if (!(opt->gamma2 >= 1 && isfinite(opt->gamma2)))
		return fb_fail(err, "admm: 'gamma2' must be at least 1");
	if (!(opt->lambda >= 0 && isfinite(opt->lambda)))
		return fb_fail(err, "admm: 'lambda' must be non-negative and finite");
	if (!(opt->rho_max > 0))
		return fb_fail(err, "admm: 'rho_max' must be positive");
	if (opt->max_rounds == 0)
		return fb_fail(err, "admm: 'max_rounds' must be at least 1");
	if (!(opt->threshold >= 0 && isfinite(opt->threshold)))
		return fb_fail(err, "admm: 'threshold' must be non-negative and finite");
	if (!(opt->ftol_rel >= 0 && isfinite(opt->ftol_rel)))
		return fb_fail(err, "admm: 'ftol_rel' must be non-negative and finite");
	if (!(opt->gtol >= 0 && isfinite(opt->gtol)))
		return fb_fail(err, "admm: 'gtol' must be non-negative and finite");
	if (opt->solver != FB_ADMM_SUBGRADIENT && opt->solver != FB_ADMM_OWLQN &&
	    opt->solver != FB_ADMM_LBFGSB)
		return fb_fail(err, "admm: unknown W-step solver %d", (int)opt->solver);
	return FB_OK;
}

/* FB_OK when m exists and is d x d, else FB_ERR naming what. */
static int admm_shape_check(const gsl_matrix *m, size_t d, const char *what, fb_error *err)
{
	if (m == NULL)
		return fb_fail(err, "admm: no %s given", what);
	if (m->size1 != d || m->size2 != d)
		return fb_fail(err, "admm: %s is %zu x %zu, expected %zu x %zu", what, m->size1,
		               m->size2, d, d);
	return FB_OK;
}

/* beta += rho2 (B - W), entry by entry (the client's multiplier update, eq. 7). */
static void admm_beta_step(gsl_matrix *beta, const gsl_matrix *B, const gsl_matrix *W,
                           double rho2)
{
	for (size_t i = 0; i < beta->size1; i++) {
		double *be = gsl_matrix_ptr(beta, i, 0);
		const double *b = gsl_matrix_const_ptr(B, i, 0), *w = gsl_matrix_const_ptr(W, i, 0);

		for (size_t j = 0; j < beta->size2; j++)
			be[j] += rho2 * (b[j] - w[j]);
	}
}

/* The penalty after a round: times gamma while below rho_max (the reference code's rule). */
static double admm_rho_grow(double rho, double gamma, double rho_max)
{
	return rho < rho_max ? rho * gamma : rho;
}

/* ||A - B||_F^2 over two d x d matrices. */
static double admm_dist2(const gsl_matrix *A, const gsl_matrix *B)
{
	double sum = 0;

	for (size_t i = 0; i < A->size1; i++) {
		const double *a = gsl_matrix_const_ptr(A, i, 0), *b = gsl_matrix_const_ptr(B, i, 0);

		for (size_t j = 0; j < A->size2; j++)
			sum += (a[j] - b[j]) * (a[j] - b[j]);
	}
	return sum;
}

/* ---- client half ---- */

/* Free a client (NULL is fine). */
void fb_admm_client_free(fb_admm_client *c)
{
	if (c == NULL)
		return;
	gsl_matrix_free(c->S);
	gsl_matrix_free(c->beta);
	gsl_matrix_free(c->B);
	gsl_matrix_free(c->chol);
	gsl_matrix_free(c->tmp);
	free(c->role);
	free(c->rows);
	free(c->solved);
	gsl_vector_free(c->rhs);
	free(c);
}

/* S = Xc^T Xc / n_total with Xc the rows of xk centred on their own column means. */
static int client_moments_form(fb_admm_client *c, const fb_dataset *xk, size_t n_total,
                               fb_error *err)
{
	size_t n = xk->n, d = xk->d;
	gsl_matrix *xc = gsl_matrix_alloc(n, d);

	if (xc == NULL)
		return fb_fail(err, "admm: out of memory for %zu x %zu client rows", n, d);
	for (size_t j = 0; j < d; j++) {
		double mean = 0;

		for (size_t i = 0; i < n; i++) {
			double v = xk->x[i * d + j];

			if (!isfinite(v)) {
				gsl_matrix_free(xc);
				return fb_fail(err, "admm: client value at row %zu, column '%s' is "
				               "not finite", i + 1, xk->vars[j].name);
			}
			mean += v;
		}
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			gsl_matrix_set(xc, i, j, xk->x[i * d + j] - mean);
	}
	gsl_blas_dsyrk(CblasLower, CblasTrans, 1.0 / (double)n_total, xc, 0.0, c->S);
	for (size_t i = 0; i < d; i++) {
		for (size_t j = i + 1; j < d; j++)
			gsl_matrix_set(c->S, i, j, gsl_matrix_get(c->S, j, i));
	}
	gsl_matrix_free(xc);
	return FB_OK;
}

/* A client for the rows xk out of n_total rows in all; xk is read here and not kept. */
fb_admm_client *fb_admm_client_alloc(const fb_dataset *xk, size_t n_total,
                                     const fb_admm_options *opt, fb_error *err)
{
	fb_admm_client *c;
	size_t d;

	if (admm_options_check(opt, err) != FB_OK)
		return NULL;
	if (xk == NULL || xk->n == 0 || xk->d == 0) {
		fb_fail(err, "admm: a client needs at least one row and one variable");
		return NULL;
	}
	if (n_total < xk->n) {
		fb_fail(err, "admm: total rows %zu is below the client's %zu", n_total, xk->n);
		return NULL;
	}
	d = xk->d;
	c = calloc(1, sizeof *c);
	if (c == NULL) {
		fb_fail(err, "admm: out of memory for a client");
		return NULL;
	}
	c->d = d;
	c->opt = *opt;
	c->rho2 = opt->rho2;
	c->S = gsl_matrix_alloc(d, d);
	c->beta = gsl_matrix_calloc(d, d);
	c->B = gsl_matrix_calloc(d, d);
	c->chol = gsl_matrix_alloc(d, d);
	c->tmp = gsl_matrix_alloc(d, d);
	if (c->S == NULL || c->beta == NULL || c->B == NULL || c->chol == NULL ||
	    c->tmp == NULL) {
		fb_admm_client_free(c);
		fb_fail(err, "admm: out of memory for a client over %zu variables", d);
		return NULL;
	}
	if (client_moments_form(c, xk, n_total, err) != FB_OK ||
	    fb_honour_roles(opt->knowledge, d, &c->role, err) != FB_OK) {
		fb_admm_client_free(c);
		return NULL;
	}
	if (c->role != NULL) {
		c->rows = fb_xmalloc(d * sizeof *c->rows);
		c->solved = fb_xmalloc(d * sizeof *c->solved);
		if ((c->rhs = gsl_vector_alloc(d)) == NULL) {
			fb_admm_client_free(c);
			fb_fail(err, "admm: out of memory for a client over %zu variables", d);
			return NULL;
		}
	}
	c->opt.knowledge = NULL; /* read into the roles, not kept */
	return c;
}

/* l(B; X_k) = tr((I - B)^T S (I - B)) / 2, using c->chol and c->tmp as scratch. */
static double client_loss_compute(fb_admm_client *c)
{
	gsl_matrix *M = c->tmp, *P = c->chol;
	double sum = 0;

	gsl_matrix_memcpy(M, c->B);
	gsl_matrix_scale(M, -1.0);
	for (size_t i = 0; i < c->d; i++)
		gsl_matrix_set(M, i, i, gsl_matrix_get(M, i, i) + 1.0);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1.0, c->S, M, 0.0, P);
	for (size_t i = 0; i < c->d; i++) {
		const double *m = gsl_matrix_const_ptr(M, i, 0), *p = gsl_matrix_const_ptr(P, i, 0);

		for (size_t j = 0; j < c->d; j++)
			sum += m[j] * p[j];
	}
	return 0.5 * sum;
}

/* The client's distance from the W of its local step, squared, and its multiplier's product
 * with that difference: the two numbers the server's figures need from it. */
static void client_gaps(fb_admm_client *c, const gsl_matrix *W)
{
	c->gap2 = c->gap_beta = 0;
	for (size_t i = 0; i < c->d; i++) {
		const double *b = gsl_matrix_const_ptr(c->B, i, 0);
		const double *be = gsl_matrix_const_ptr(c->beta, i, 0);
		const double *w = gsl_matrix_const_ptr(W, i, 0);

		for (size_t j = 0; j < c->d; j++) {
			double diff = b[j] - w[j];

			c->gap2 += diff * diff;
			c->gap_beta += be[j] * diff;
		}
	}
}

/* The local step's normal equations over the m rows F (c->rows) that may be parents:
 * S_FF + rho2 I, factored by Cholesky in the corner of c->chol. */
static int client_fixed_factor(fb_admm_client *c, size_t m, gsl_matrix_view *A,
                               fb_error *err)
{
	*A = gsl_matrix_submatrix(c->chol, 0, 0, m, m);
	for (size_t a = 0; a < m; a++)
		for (size_t q = 0; q < m; q++)
			gsl_matrix_set(&A->matrix, a, q, gsl_matrix_get(c->S, c->rows[a], c->rows[q]) +
			               (a == q ? c->rho2 : 0.0));
	if (gsl_linalg_cholesky_decomp1(&A->matrix) != GSL_SUCCESS)
		return fb_fail(err, "admm: S_k + rho2 I over a column's allowed parents is not "
		               "positive definite: %s", fb_gsl_last_error());
	return FB_OK;
}

/* Column j of B over the rows F with that factor: b_F solves
 * (S_FF + rho2 I) b_F = rho2 W_Fj - beta_Fj + S_Fj, the other rows 0. */
static int client_fixed_column(fb_admm_client *c, const gsl_matrix *W, size_t j, size_t m,
                               const gsl_matrix *A, fb_error *err)
{
	gsl_vector_view b = gsl_vector_subvector(c->rhs, 0, m);

	for (size_t a = 0; a < m; a++) {
		size_t i = c->rows[a];

		gsl_vector_set(&b.vector, a, c->rho2 * gsl_matrix_get(W, i, j) -
		               gsl_matrix_get(c->beta, i, j) + gsl_matrix_get(c->S, i, j));
	}
	if (gsl_linalg_cholesky_svx(A, &b.vector) != GSL_SUCCESS)
		return fb_fail(err, "admm: the local solve of column %zu failed: %s", j + 1,
		               fb_gsl_last_error());
	for (size_t i = 0; i < c->d; i++)
		gsl_matrix_set(c->B, i, j, 0.0);
	for (size_t a = 0; a < m; a++)
		gsl_matrix_set(c->B, c->rows[a], j, gsl_vector_get(&b.vector, a));
	return FB_OK;
}

/* Whether columns j and k have the same forbidden rows (tiers give whole groups of them). */
static bool client_same_rows(const fb_admm_client *c, size_t j, size_t k)
{
	for (size_t i = 0; i < c->d; i++)
		if ((c->role[i * c->d + j] == FB_ENTRY_FORBIDDEN) !=
		    (c->role[i * c->d + k] == FB_ENTRY_FORBIDDEN))
			return false;
	return true;
}

/* Every column of B with an entry the knowledge forbids, solved again with those entries 0
 * (the exact minimiser of the local step over B with them fixed): one factor for each set
 * of forbidden rows, shared by the columns that have it. */
static int client_fixed_columns(fb_admm_client *c, const gsl_matrix *W, fb_error *err)
{
	size_t d = c->d;
	gsl_matrix_view A;

	memset(c->solved, 0, d * sizeof *c->solved);
	for (size_t j = 0; j < d; j++) {
		size_t m = 0;

		for (size_t i = 0; i < d; i++)
			if (c->role[i * d + j] != FB_ENTRY_FORBIDDEN)
				c->rows[m++] = i;
		if (m == d || c->solved[j])
			continue;
		if (client_fixed_factor(c, m, &A, err) != FB_OK)
			return FB_ERR;
		for (size_t k = j; k < d; k++)
			if (!c->solved[k] && client_same_rows(c, j, k)) {
				if (client_fixed_column(c, W, k, m, &A.matrix, err) != FB_OK)
					return FB_ERR;
				c->solved[k] = true;
			}
	}
	return FB_OK;
}

/* Local step (eq. 10) by a Cholesky factor of S + rho2 I and d right-hand sides. */
int fb_admm_client_local(fb_admm_client *c, const gsl_matrix *W, gsl_matrix *B_out,
                         fb_error *err)
{
	size_t d;

	if (c == NULL)
		return fb_fail(err, "admm: no client given");
	d = c->d;
	if (admm_shape_check(W, d, "W", err) != FB_OK ||
	    (B_out != NULL && admm_shape_check(B_out, d, "B", err) != FB_OK))
		return FB_ERR;
	gsl_matrix_memcpy(c->chol, c->S);
	for (size_t i = 0; i < d; i++)
		gsl_matrix_set(c->chol, i, i, gsl_matrix_get(c->chol, i, i) + c->rho2);
	if (gsl_linalg_cholesky_decomp1(c->chol) != GSL_SUCCESS)
		return fb_fail(err, "admm: S_k + rho2 I is not positive definite: %s",
		               fb_gsl_last_error());
	for (size_t i = 0; i < d; i++) {
		const double *w = gsl_matrix_const_ptr(W, i, 0);
		const double *b = gsl_matrix_const_ptr(c->beta, i, 0);
		const double *sk = gsl_matrix_const_ptr(c->S, i, 0);
		double *rhs = gsl_matrix_ptr(c->tmp, i, 0);

		for (size_t j = 0; j < d; j++)
			rhs[j] = c->rho2 * w[j] - b[j] + sk[j];
	}
	if (gsl_linalg_cholesky_svx_mat(c->chol, c->tmp) != GSL_SUCCESS)
		return fb_fail(err, "admm: local solve failed: %s", fb_gsl_last_error());
	gsl_matrix_memcpy(c->B, c->tmp);
	if (c->role != NULL && client_fixed_columns(c, W, err) != FB_OK)
		return FB_ERR;
	client_gaps(c, W);
	if (B_out != NULL)
		gsl_matrix_memcpy(B_out, c->B);
	c->loss_valid = false;
	c->pending = true;
	return FB_OK;
}

/* The client's message after its local step: B_k + beta_k / rho2 entry by entry (the one
 * vector the server's W step needs, summed over the clients), then ||B_k - W||^2 and
 * <beta_k, B_k - W> for the W of the local step (the two numbers its figures need). */
int fb_admm_client_message(const fb_admm_client *c, double *u, fb_error *err)
{
	size_t d;

	if (c == NULL)
		return fb_fail(err, "admm: no client given");
	if (!c->pending)
		return fb_fail(err, "admm: a client message needs a local step before it");
	d = c->d;
	for (size_t i = 0; i < d; i++) {
		const double *b = gsl_matrix_const_ptr(c->B, i, 0);
		const double *be = gsl_matrix_const_ptr(c->beta, i, 0);

		for (size_t j = 0; j < d; j++)
			u[i * d + j] = b[j] + be[j] / c->rho2;
	}
	u[d * d] = c->gap2;
	u[d * d + 1] = c->gap_beta;
	return FB_OK;
}

/* Multiplier and penalty update (eq. 7 and 9) after the server's step. */
int fb_admm_client_update(fb_admm_client *c, const gsl_matrix *W_new, fb_error *err)
{
	if (c == NULL)
		return fb_fail(err, "admm: no client given");
	if (admm_shape_check(W_new, c->d, "W", err) != FB_OK)
		return FB_ERR;
	if (!c->pending)
		return fb_fail(err, "admm: client update without a local step before it");
	admm_beta_step(c->beta, c->B, W_new, c->rho2);
	c->dist = sqrt(admm_dist2(c->B, W_new));
	c->rho2 = admm_rho_grow(c->rho2, c->opt.gamma2, c->opt.rho_max);
	c->pending = false;
	return FB_OK;
}

/* The client's loss at its last local step, computed on the first call after it. */
double fb_admm_client_loss(fb_admm_client *c)
{
	if (!c->loss_valid) {
		c->loss = client_loss_compute(c);
		c->loss_valid = true;
	}
	return c->loss;
}

/* ||B_k - W_new||_F at the last update. */
double fb_admm_client_distance(const fb_admm_client *c)
{
	return c->dist;
}

/* The client's current rho2. */
double fb_admm_client_rho2(const fb_admm_client *c)
{
	return c->rho2;
}

/* The client's beta_k. */
const gsl_matrix *fb_admm_client_beta(const fb_admm_client *c)
{
	return c->beta;
}

/* The client's last B_k. */
const gsl_matrix *fb_admm_client_B(const fb_admm_client *c)
{
	return c->B;
}

/* ---- server half ---- */

/* Free a server (NULL is fine). */
void fb_admm_server_free(fb_admm_server *s)
{
	if (s == NULL)
		return;
	free(s->beta_sum);
	free(s->Bsum);
	gsl_matrix_free(s->W);
	free(s->wbar);
	free(s->x);
	free(s->g);
	free(s->best);
	free(s->role);
	free(s->xrole);
	free(s->lower);
	free(s->upper);
	fb_admm_settle_free(s->settle);
	fb_dag_h_work_free(s->hw);
	free(s);
}

/* The server's W step under knowledge: OWL-QN's roles and the other solvers' bounds hold a
 * forbidden entry at 0 (where W starts), and a required one is left out of the l1 term
 * (admm_penalised).  Nothing without knowledge. */
static int server_knowledge(fb_admm_server *s, const fb_knowledge *k, fb_error *err)
{
	size_t dd = s->d * s->d;

	s->opt.knowledge = NULL; /* read into the roles, not kept */
	if (fb_honour_roles(k, s->d, &s->role, err) != FB_OK)
		return FB_ERR;
	if (s->role == NULL)
		return FB_OK;
	s->xrole = fb_xmalloc(dd);
	s->lower = fb_xmalloc(dd * sizeof *s->lower);
	s->upper = fb_xmalloc(dd * sizeof *s->upper);
	for (size_t q = 0; q < dd; q++) {
		bool fixed = s->role[q] == FB_ENTRY_FORBIDDEN;

		s->xrole[q] = fixed ? FB_OWLQN_FIXED
		              : s->role[q] == FB_ENTRY_REQUIRED ? FB_OWLQN_FREE : FB_OWLQN_PENALISED;
		s->lower[q] = fixed ? 0.0 : -HUGE_VAL;
		s->upper[q] = fixed ? 0.0 : HUGE_VAL;
	}
	return FB_OK;
}

/* Whether entry q of W is under the l1 term: every entry but the required ones. */
static bool admm_penalised(const fb_admm_server *s, size_t q)
{
	return s->role == NULL || s->role[q] != FB_ENTRY_REQUIRED;
}

/* A server for d variables and k clients, starting from W = 0, alpha = 0, beta_k = 0. */
fb_admm_server *fb_admm_server_alloc(size_t d, size_t k, const fb_admm_options *opt,
                                     fb_error *err)
{
	fb_admm_server *s;
	bool ok;

	if (admm_options_check(opt, err) != FB_OK)
		return NULL;
	if (d == 0 || k == 0 || d > 65536) {
		fb_fail(err, "admm: a server needs 1 to 65536 variables and at least one client");
		return NULL;
	}
	s = calloc(1, sizeof *s);
	if (s == NULL) {
		fb_fail(err, "admm: out of memory for the server");
		return NULL;
	}
	s->d = d;
	s->k = k;
	s->opt = *opt;
	s->rho1 = opt->rho1;
	s->rho2 = opt->rho2;
	s->W = gsl_matrix_calloc(d, d);
	s->beta_sum = calloc(d * d, sizeof *s->beta_sum);
	s->Bsum = calloc(d * d, sizeof *s->Bsum);
	s->wbar = calloc(d * d, sizeof *s->wbar);
	s->x = calloc(d * d, sizeof *s->x);
	s->g = calloc(d * d, sizeof *s->g);
	s->best = calloc(d * d, sizeof *s->best);
	s->settle = fb_admm_settle_alloc(d);
	s->hw = fb_dag_h_work_alloc(d);
	ok = s->W != NULL && s->beta_sum != NULL && s->Bsum != NULL && s->wbar != NULL &&
	     s->x != NULL && s->g != NULL && s->best != NULL && s->settle != NULL && s->hw != NULL;
	if (!ok) {
		fb_admm_server_free(s);
		fb_fail(err, "admm: out of memory for a server over %zu variables", d);
		return NULL;
	}
	if (server_knowledge(s, opt->knowledge, err) != FB_OK) {
		fb_admm_server_free(s);
		return NULL;
	}
	return s;
}

/* Form wbar = (1/K) sum_k (B_k + beta_k / rho2) from the sum of the K clients' messages,
 * and sum_k B_k with the multipliers' sum the server follows (for the figures). */
static int server_wbar_form(fb_admm_server *s, const double *sum, fb_error *err)
{
	size_t dd = s->d * s->d;

	if (sum == NULL)
		return fb_fail(err, "admm: no sum of the client messages given");
	for (size_t i = 0; i < dd; i++) {
		s->wbar[i] = sum[i] / (double)s->k;
		s->Bsum[i] = sum[i] - s->beta_sum[i] / s->rho2;
	}
	return FB_OK;
}

/* The W-step objective for L-BFGS: lambda ||W||_1 + alpha h + rho1 h^2 / 2
 * + K rho2 ||W - wbar||^2 / 2 (equal to (5) up to a constant), and its gradient; without the
 * l1 term when s->smooth_only.  Remembers the point with the lowest full value. */
static double server_eval(const double *x, double *grad, size_t n, void *ctx)
{
	fb_admm_server *s = ctx;
	size_t d = s->d;
	gsl_matrix_const_view Wv = gsl_matrix_const_view_array(x, d, d);
	gsl_matrix_view gv = gsl_matrix_view_array(grad != NULL ? grad : s->g, d, d);
	double h, l1 = 0, quad = 0, kr = (double)s->k * s->rho2, coef, f;
	double lam = s->smooth_only ? 0.0 : s->opt.lambda;

	if (fb_dag_h(&Wv.matrix, s->hw, &h, grad != NULL ? &gv.matrix : NULL,
	             s->eval_failed ? NULL : &s->eval_err) != FB_OK) {
		s->eval_failed = true;
		if (grad != NULL)
			memset(grad, 0, n * sizeof *grad);
		return HUGE_VAL;
	}
	coef = s->alpha + s->rho1 * h;
	for (size_t i = 0; i < n; i++) {
		double diff = x[i] - s->wbar[i];
		double sign = x[i] > 0 ? 1.0 : x[i] < 0 ? -1.0 : 0.0;

		if (!admm_penalised(s, i))
			sign = 0.0;
		else
			l1 += fabs(x[i]);
		quad += diff * diff;
		if (grad != NULL)
			grad[i] = coef * grad[i] + kr * diff + lam * sign;
	}
	f = s->alpha * h + 0.5 * s->rho1 * h * h + 0.5 * kr * quad;
	if (isfinite(f) && f + s->opt.lambda * l1 < s->best_f) {
		s->best_f = f + s->opt.lambda * l1;
		memcpy(s->best, x, n * sizeof *x);
	}
	return f + lam * l1;
}

/* The W-step objective and gradient at W for this sum of client messages (state kept). */
int fb_admm_server_objective(fb_admm_server *s, const double *sum,
                             const gsl_matrix *W, double *f, gsl_matrix *grad, fb_error *err)
{
	size_t d;
	double val;

	if (s == NULL)
		return fb_fail(err, "admm: no server given");
	d = s->d;
	if (admm_shape_check(W, d, "W", err) != FB_OK)
		return FB_ERR;
	if (grad != NULL && admm_shape_check(grad, d, "the gradient", err) != FB_OK)
		return FB_ERR;
	if (server_wbar_form(s, sum, err) != FB_OK)
		return FB_ERR;
	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++)
			s->x[i * d + j] = gsl_matrix_get(W, i, j);
	}
	s->eval_failed = false;
	val = server_eval(s->x, grad != NULL ? s->g : NULL, d * d, s);
	if (s->eval_failed)
		return fb_fail(err, "%s", s->eval_err.msg);
	if (f != NULL)
		*f = val;
	for (size_t i = 0; grad != NULL && i < d; i++) {
		for (size_t j = 0; j < d; j++)
			gsl_matrix_set(grad, i, j, s->g[i * d + j]);
	}
	return FB_OK;
}

/* Fill fig for the new W (in s->x, with h; the W the clients had is still in s->W) before
 * the multipliers move: (5) from its definition, the l1 norm and the mean squared consensus
 * distance.  The server has sums alone: with D = W_new - W_old and the clients' sums of
 * ||B_k - W_old||^2 (gap2) and <beta_k, B_k - W_old> (gap_beta),
 * sum_k ||B_k - W_new||^2 = gap2 - 2 <sum_k B_k - K W_old, D> + K ||D||^2 and
 * sum_k <beta_k, B_k - W_new> = gap_beta - <sum_k beta_k, D>; both are sums of small terms
 * once the copies agree, so rounding stays small where the figures are (not below 0). */
static void server_figures_fill(const fb_admm_server *s, double gap2, double gap_beta,
                                double h, fb_admm_figures *fig)
{
	double l1 = 0, bd = 0, sd = 0, dd = 0, dist2, K = (double)s->k;
	const double *w = s->x, *old = s->W->data;

	for (size_t i = 0; i < s->d; i++) {
		for (size_t j = 0; j < s->d; j++) {
			size_t q = i * s->d + j;
			double dq = w[q] - old[i * s->W->tda + j];

			l1 += admm_penalised(s, q) ? fabs(w[q]) : 0.0;
			bd += s->beta_sum[q] * dq;
			sd += (s->Bsum[q] - K * old[i * s->W->tda + j]) * dq;
			dd += dq * dq;
		}
	}
	dist2 = fmax(gap2 - 2.0 * sd + K * dd, 0.0);
	fig->round = s->round + 1;
	fig->objective = s->opt.lambda * l1 + s->alpha * h + 0.5 * s->rho1 * h * h +
	                 (gap_beta - bd) + 0.5 * s->rho2 * dist2;
	fig->h = h;
	fig->rho1 = s->rho1;
	fig->rho2 = s->rho2;
	fig->alpha = s->alpha;
	fig->consensus = dist2 / K;
	fig->l1 = l1;
}

/* After the W step: sum_k beta_k += rho2 (sum_k B_k - K W), the clients' updates added. */
static void server_beta_sum_step(fb_admm_server *s)
{
	for (size_t i = 0; i < s->d * s->d; i++)
		s->beta_sum[i] += s->rho2 * (s->Bsum[i] - (double)s->k * s->x[i]);
}

/* Run the configured solver on the W-step objective from s->x, in place.  L-BFGS on the
 * non-smooth subgradient objective often ends on a failed line search (NLopt's
 * NLOPT_FAILURE, L-BFGS-B's and scipy's ABNORMAL_TERMINATION_IN_LNSRCH, which the reference
 * code accepts): NLopt's best point evaluated is then kept, as it is never worse than the
 * start, and L-BFGS-B's last iterate, as scipy keeps it. */
static int server_w_run(fb_admm_server *s, fb_admm_figures *fig, fb_error *err)
{
	size_t n = s->d * s->d;
	fb_lbfgs_report rep = { 0 };
	fb_error lerr = { { 0 } };
	int status;

	s->eval_failed = false;
	s->best_f = HUGE_VAL;
	s->smooth_only = s->opt.solver == FB_ADMM_OWLQN;
	if (s->smooth_only) {
		fb_owlqn_options oo = { 0 };

		oo.memory = 10;
		oo.max_eval = s->opt.max_eval;
		oo.ftol_rel = s->opt.ftol_rel;
		oo.gtol = s->opt.gtol;
		oo.l1 = s->opt.lambda;
		oo.role = s->xrole;
		status = fb_owlqn(n, s->x, server_eval, s, &oo, &rep, &lerr);
	} else {
		fb_lbfgs_options lo = { 0 };

		lo.memory = 10;
		lo.max_eval = s->opt.max_eval;
		lo.ftol_rel = s->opt.ftol_rel;
		lo.pgtol = s->opt.gtol;
		lo.lower = s->lower;
		lo.upper = s->upper;
		if (s->opt.solver == FB_ADMM_LBFGSB)
			status = fb_lbfgsb(n, s->x, server_eval, s, &lo, &rep, &lerr);
		else
			status = fb_lbfgs(n, s->x, server_eval, s, &lo, &rep, &lerr);
	}
	s->smooth_only = false;
	fig->evals = rep.evals;
	fig->code = rep.code;
	if (status == FB_OK)
		return FB_OK;
	if (!isfinite(s->best_f) && s->eval_failed)
		return fb_fail(err, "admm: W step failed: %s", s->eval_err.msg);
	if (!isfinite(s->best_f))
		return fb_fail(err, "admm: W step failed: %s", lerr.msg);
	memcpy(s->x, s->best, n * sizeof *s->x);
	return FB_OK;
}

/* Minimise the W-step objective from the current W into s->x; h at the result in *h. */
static int server_w_solve(fb_admm_server *s, double *h, fb_admm_figures *fig, fb_error *err)
{
	size_t d = s->d;
	gsl_matrix_const_view Wv = gsl_matrix_const_view_array(s->x, d, d);

	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++)
			s->x[i * d + j] = gsl_matrix_get(s->W, i, j);
	}
	if (server_w_run(s, fig, err) != FB_OK)
		return FB_ERR;
	return fb_dag_h(&Wv.matrix, s->hw, h, NULL, err);
}

/* True when the d x d edge marks have no directed cycle (Kahn's peeling of sources). */
static bool edges_acyclic(const unsigned char *e, size_t d)
{
	size_t *indeg = fb_xcalloc(d > 0 ? d : 1, sizeof *indeg);
	size_t *stack = fb_xmalloc((d > 0 ? d : 1) * sizeof *stack), top = 0, seen = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			indeg[j] += e[i * d + j] && i != j;
	for (size_t j = 0; j < d; j++)
		if (indeg[j] == 0)
			stack[top++] = j;
	while (top > 0) {
		size_t i = stack[--top];

		seen++;
		for (size_t j = 0; j < d; j++)
			if (e[i * d + j] && i != j && --indeg[j] == 0)
				stack[top++] = j;
	}
	free(indeg);
	free(stack);
	return seen == d;
}

/* What the settle rule remembers of the last round. */
struct fb_admm_settle {
	size_t d;             /* variables */
	size_t rounds;        /* rounds seen */
	size_t same;          /* rounds in a row the edges have not changed */
	double h;             /* h(W) of the last round */
	double *w;            /* d*d, the last W (row-major) */
	unsigned char *edges; /* d*d, its entries beyond threshold */
};

/* Memory for the settle rule over d x d weights, NULL when out of memory. */
fb_admm_settle *fb_admm_settle_alloc(size_t d)
{
	fb_admm_settle *st = calloc(1, sizeof *st);

	if (st == NULL)
		return NULL;
	st->d = d;
	st->w = calloc(d * d > 0 ? d * d : 1, sizeof *st->w);
	st->edges = calloc(d * d > 0 ? d * d : 1, sizeof *st->edges);
	if (st->w == NULL || st->edges == NULL) {
		fb_admm_settle_free(st);
		return NULL;
	}
	return st;
}

/* Free the settle rule's memory (NULL is fine). */
void fb_admm_settle_free(fb_admm_settle *st)
{
	if (st == NULL)
		return;
	free(st->w);
	free(st->edges);
	free(st);
}

/* The factor on a weight's last change that gives the rest of its drift: once h falls by
 * q^2 a round, the weights still closing cycles fall with sqrt(h), by q, and those they pull
 * with them follow, so the rest is a geometric tail, q / (1 - q) times the last change (q is
 * near 0.91 while h is near settle_h, a factor near 10; the edges seen to cross the
 * threshold after the edges alone had settled ended within 2e-4 of w plus that tail);
 * HUGE_VAL when h is not falling (no tail to sum). */
static double settle_tail(double h_prev, double h)
{
	double q = h_prev > 0 && h < h_prev ? sqrt(h / h_prev) : 1;

	return q < 1 ? q / (1 - q) : HUGE_VAL;
}

/* True when w, moving on by tail times its last change (w - w_prev), ends on the other side
 * of threshold from where it is. */
static bool settle_crosses(double w, double w_prev, double tail, double threshold)
{
	double step = w - w_prev;

	if (step == 0)
		return false;
	if (isinf(tail))
		return true;
	return (fabs(w + tail * step) > threshold) != (fabs(w) > threshold);
}

/* Take the next round's W (row-major d*d) and h(W); true once h <= opt->settle_h, the edges
 * (entries beyond opt->threshold) have stayed the same for opt->settle rounds and form a
 * DAG, and no weight's drift, extrapolated as h falls (settle_tail), would take it across
 * the threshold.  Always false when opt->settle is 0. */
bool fb_admm_settle_step(fb_admm_settle *st, const fb_admm_options *opt, const double *W,
                         double h)
{
	size_t dd = st->d * st->d;
	double tail = settle_tail(st->h, h);
	bool same = st->rounds > 0, drifting = false;

	for (size_t t = 0; t < dd; t++) {
		unsigned char e = fabs(W[t]) > opt->threshold;

		same = same && e == st->edges[t];
		drifting = drifting || (st->rounds > 0 &&
		                        settle_crosses(W[t], st->w[t], tail, opt->threshold));
		st->edges[t] = e;
		st->w[t] = W[t];
	}
	st->same = same ? st->same + 1 : 0;
	st->h = h;
	st->rounds++;
	return opt->settle > 0 && h <= opt->settle_h && st->same >= opt->settle && !drifting &&
	       edges_acyclic(st->edges, st->d);
}

/* Numbers in a client's message. */
size_t fb_admm_message_len(size_t d)
{
	return d * d + 2;
}

/* One server round on the sum of the clients' messages: the W step (5), then alpha, the
 * multipliers' sum and both penalties. */
int fb_admm_server_global(fb_admm_server *s, const double *sum, gsl_matrix *W_out,
                          fb_admm_figures *fig, fb_error *err)
{
	fb_admm_figures local;
	double h;

	if (s == NULL)
		return fb_fail(err, "admm: no server given");
	if (W_out != NULL && admm_shape_check(W_out, s->d, "W", err) != FB_OK)
		return FB_ERR;
	if (fb_admm_server_done(s))
		return fb_fail(err, "admm: the run is finished after %zu rounds", s->round);
	if (fig == NULL)
		fig = &local;
	if (server_wbar_form(s, sum, err) != FB_OK || server_w_solve(s, &h, fig, err) != FB_OK)
		return FB_ERR;
	server_figures_fill(s, sum[s->d * s->d], sum[s->d * s->d + 1], h, fig);
	for (size_t i = 0; i < s->d; i++) {
		for (size_t j = 0; j < s->d; j++)
			gsl_matrix_set(s->W, i, j, s->x[i * s->d + j]);
	}
	s->settled = s->opt.settle > 0 && fb_admm_settle_step(s->settle, &s->opt, s->x, h);
	s->alpha += s->rho1 * h;
	server_beta_sum_step(s);
	s->rho1 = admm_rho_grow(s->rho1, s->opt.gamma1, s->opt.rho_max);
	s->rho2 = admm_rho_grow(s->rho2, s->opt.gamma2, s->opt.rho_max);
	s->round++;
	if (W_out != NULL)
		gsl_matrix_memcpy(W_out, s->W);
	return FB_OK;
}

/* True when the round limit is reached, both penalties are at rho_max, or (settle > 0) the
 * edges have settled. */
bool fb_admm_server_done(const fb_admm_server *s)
{
	return s->round >= s->opt.max_rounds || s->settled ||
	       (s->rho1 >= s->opt.rho_max && s->rho2 >= s->opt.rho_max);
}

/* Rounds done so far. */
size_t fb_admm_server_rounds(const fb_admm_server *s)
{
	return s->round;
}

/* The current W. */
const gsl_matrix *fb_admm_server_W(const fb_admm_server *s)
{
	return s->W;
}

/* The sum of the clients' multipliers as the server follows it (d*d, row-major). */
const double *fb_admm_server_beta_sum(const fb_admm_server *s)
{
	return s->beta_sum;
}

/* The current alpha, rho1 and rho2. */
void fb_admm_server_params(const fb_admm_server *s, double *alpha, double *rho1, double *rho2)
{
	if (alpha != NULL)
		*alpha = s->alpha;
	if (rho1 != NULL)
		*rho1 = s->rho1;
	if (rho2 != NULL)
		*rho2 = s->rho2;
}
