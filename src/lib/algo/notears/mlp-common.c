/* The MLP learners' shared pieces: the acyclicity term h = tr(exp(A)) - d on the first layer
 * of the stack {d, hidden, 1}, its gradient, and the data check. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fedbn/honour.h"
#include "fedbn/notears-mlp.h"
#include "mlp-int.h"

/* A_ij = sum over m of theta[(j*hidden + m)*d + i]^2. */
void fb_mlp_adjacency(size_t d, size_t hidden, const double *theta, double *a)
{
	memset(a, 0, d * d * sizeof *a);
	for (size_t j = 0; j < d; j++) {
		for (size_t m = 0; m < hidden; m++) {
			const double *row = theta + (j * hidden + m) * d;

			for (size_t i = 0; i < d; i++)
				a[i * d + j] += row[i] * row[i];
		}
	}
}

/* Scratch for d variables. */
void fb_mlp_h_init(fb_mlp_h_work *hw, size_t d, size_t hidden)
{
	hw->d = d;
	hw->hidden = hidden;
	hw->A = gsl_matrix_alloc(d, d);
	hw->E = gsl_matrix_alloc(d, d);
	hw->w = fb_dag_h_work_alloc(d);
	if (hw->A == NULL || hw->E == NULL || hw->w == NULL)
		fb_xalloc_fail(d * d * sizeof(double));
}

/* Free the scratch. */
void fb_mlp_h_release(fb_mlp_h_work *hw)
{
	gsl_matrix_free(hw->A);
	gsl_matrix_free(hw->E);
	fb_dag_h_work_free(hw->w);
	memset(hw, 0, sizeof *hw);
}

/* h = tr(exp(A)) - d. */
int fb_mlp_h_eval(fb_mlp_h_work *hw, const double *theta, double *h, fb_error *err)
{
	double tr = 0.0;

	fb_mlp_adjacency(hw->d, hw->hidden, theta, hw->A->data);
	if (fb_expm(hw->A, hw->w, hw->E, err) != FB_OK)
		return FB_ERR;
	for (size_t i = 0; i < hw->d; i++)
		tr += gsl_matrix_get(hw->E, i, i);
	*h = tr - (double)hw->d;
	return FB_OK;
}

/* g += c dh/dtheta: dh/dA_ij = exp(A)_ji and dA_ij/dtheta_(j,m),i = 2 theta_(j,m),i. */
void fb_mlp_h_grad_add(const fb_mlp_h_work *hw, const double *theta, double c, double *g)
{
	size_t d = hw->d;

	for (size_t j = 0; j < d; j++) {
		const double *e = hw->E->data + j * hw->E->tda; /* exp(A)_j. */

		for (size_t m = 0; m < hw->hidden; m++) {
			size_t off = (j * hw->hidden + m) * d;

			for (size_t i = 0; i < d; i++)
				g[off + i] += c * e[i] * 2.0 * theta[off + i];
		}
	}
}

/* Refuse data the MLP learners cannot use. */
int fb_mlp_check_data(const fb_dataset *ds, const char *who, fb_error *err)
{
	if (ds == NULL || ds->n == 0 || ds->d == 0)
		return fb_fail(err, "%s: the dataset is empty", who);
	if (ds->d < 2)
		return fb_fail(err, "%s: the dataset needs at least 2 variables", who);
	for (size_t j = 0; j < ds->d; j++)
		if (ds->vars[j].kind != FB_CONTINUOUS)
			return fb_fail(err, "%s: variable '%s' is discrete; the MLP learners need "
			               "continuous columns", who, ds->vars[j].name);
	for (size_t i = 0; i < ds->n * ds->d; i++)
		if (!isfinite(ds->x[i]))
			return fb_fail(err, "%s: row %zu of variable '%s' is not finite", who,
			               i / ds->d + 1, ds->vars[i % ds->d].name);
	return FB_OK;
}

/* The stack {d, hidden, 1} with sigmoid units. */
fb_nn_stack *fb_mlp_stack_alloc(size_t d, size_t hidden, fb_error *err)
{
	size_t dims[3] = { d, hidden, 1 };
	fb_nn_act act = { FB_NN_ACT_SIGMOID, 0.0 };

	return fb_nn_stack_alloc(dims, 3, &act, err);
}

/* The arc of first-layer weight k: input i = k mod d into network j = (k / d) / hidden, as
 * the index i d + j of the entry roles. */
static size_t mlp_layer_entry(size_t d, size_t hidden, size_t k)
{
	return (k % d) * d + (k / d) / hidden;
}

/* Roles of a vector that starts with the first layer, under the entry roles. */
unsigned char *fb_mlp_layer_roles(const unsigned char *entry, size_t d, size_t hidden,
                                  size_t n, double *theta)
{
	unsigned char *role = fb_xmalloc(n > 0 ? n : 1);
	size_t P = d * hidden * d;

	for (size_t k = 0; k < n; k++) {
		unsigned char e = k < P ? entry[mlp_layer_entry(d, hidden, k)] : FB_ENTRY_FREE;

		role[k] = k >= P ? FB_OWLQN_FREE
		          : e == FB_ENTRY_FORBIDDEN ? FB_OWLQN_FIXED
		          : e == FB_ENTRY_REQUIRED ? FB_OWLQN_FREE : FB_OWLQN_PENALISED;
		if (theta != NULL && role[k] == FB_OWLQN_FIXED)
			theta[k] = 0.0;
	}
	return role;
}

/* Whether first-layer weight k is under the l1 term. */
bool fb_mlp_penalised(const unsigned char *entry, size_t d, size_t hidden, size_t k)
{
	return entry == NULL || entry[mlp_layer_entry(d, hidden, k)] != FB_ENTRY_REQUIRED;
}
