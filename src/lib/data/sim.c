/* Simulated data: random DAGs (Erdős–Rényi, Barabási–Albert) and structural equation
 * models on them (ALGORITHMS.md §1.1–1.4; the nonlinear mechanisms are in sim-mech.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "fedbn/sim.h"

/* Defaults: ER, d=10, edges=10, n=300, seed=1, linear, Gaussian, scale 1, [0.5, 2], no
 * clients, not heterogeneous. */
void fb_sim_options_init(fb_sim_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->dag = FB_DAG_ER;
	opt->d = 10;
	opt->edges = 10;
	opt->n = 300;
	opt->seed = 1;
	opt->sem = FB_SEM_LINEAR;
	opt->noise = FB_NOISE_GAUSS;
	opt->noise_scale = 1.0;
	opt->wmin = 0.5;
	opt->wmax = 2.0;
	opt->levels = 3;
}

/* Number of unordered pairs among d nodes, d(d-1)/2. */
static size_t pair_count(size_t d)
{
	return d % 2 == 0 ? d / 2 * (d - 1) : (d - 1) / 2 * d;
}

/* Refuse a graph request no DAG can satisfy. */
static int dag_check(enum fb_dag_type type, size_t d, size_t edges, fb_error *err)
{
	if (type != FB_DAG_ER && type != FB_DAG_ER_BERNOULLI && type != FB_DAG_SF &&
	    type != FB_DAG_SF_GCASTLE)
		return fb_fail(err, "unknown graph type %d", (int)type);
	if (d < 2)
		return fb_fail(err, "cannot draw a DAG on d=%zu variables: it needs at least 2",
		               d);
	if (edges > pair_count(d))
		return fb_fail(err, "cannot draw %zu edges on d=%zu variables: a DAG on them "
		               "has at most d(d-1)/2 = %zu", edges, d, pair_count(d));
	return FB_OK;
}

/* Decode a pair index 0..d(d-1)/2-1 into (a, b), a < b, with index = b(b-1)/2 + a. */
static void pair_decode(size_t idx, size_t *a, size_t *b)
{
	size_t hi = (size_t)((1.0 + sqrt(1.0 + 8.0 * (double)idx)) / 2.0);

	/* the square root is only a first guess; settle it with exact integer steps */
	while (hi > 1 && hi * (hi - 1) / 2 > idx)
		hi--;
	while ((hi + 1) * hi / 2 <= idx)
		hi++;
	*b = hi;
	*a = idx - hi * (hi - 1) / 2;
}

/* Position of each node in order: rank[order[p]] = p. */
static void order_ranks(const size_t *order, size_t d, size_t *rank)
{
	for (size_t p = 0; p < d; p++)
		rank[order[p]] = p;
}

/* A random permutation of 0..d-1 into order. */
static void random_order(gsl_rng *r, size_t *order, size_t d)
{
	for (size_t i = 0; i < d; i++)
		order[i] = i;
	fb_rng_shuffle(r, order, d);
}

/* Add the edge {a, b} to g, from the endpoint earlier in the order (smaller rank) to the
 * later one. */
static void orient_pair(fb_graph *g, const size_t *rank, size_t a, size_t b)
{
	if (rank[a] < rank[b])
		fb_graph_set_directed(g, a, b, 1.0);
	else
		fb_graph_set_directed(g, b, a, 1.0);
}

/* ER variant A: exactly `edges` pairs uniformly (Floyd's sampling), oriented along order.
 * FB_ERR when its d x d scratch table does not fit in memory. */
static int dag_er_exact(fb_graph *g, size_t edges, gsl_rng *r, size_t *order)
{
	size_t d = g->d, total = pair_count(d), a, b;
	unsigned char *chosen = calloc(d * d, 1);
	size_t *rank;

	if (chosen == NULL)
		return FB_ERR;
	rank = fb_xcalloc(d, sizeof *rank);
	for (size_t j = total - edges; j < total; j++) {
		size_t t = fb_rng_index(r, j + 1);

		pair_decode(t, &a, &b);
		if (chosen[a * d + b])
			pair_decode(j, &a, &b);
		chosen[a * d + b] = 1;
	}
	random_order(r, order, d);
	order_ranks(order, d, rank);
	for (b = 1; b < d; b++) {
		for (a = 0; a < b; a++) {
			if (chosen[a * d + b])
				orient_pair(g, rank, a, b);
		}
	}
	free(rank);
	free(chosen);
	return FB_OK;
}

/* ER variant B: each forward pair of a random order with p = 2s/(d^2-d). */
static int dag_er_bernoulli(fb_graph *g, size_t edges, gsl_rng *r, size_t *order)
{
	size_t d = g->d;
	double p = (double)edges / (double)pair_count(d);

	random_order(r, order, d);
	for (size_t u = 0; u < d; u++) {
		for (size_t v = u + 1; v < d; v++) {
			if (gsl_rng_uniform(r) < p)
				fb_graph_set_directed(g, order[u], order[v], 1.0);
		}
	}
	return FB_OK;
}

/* round(s/d) with ties to even, as Python's round() in the NOTEARS utilities; at least 1. */
static size_t attach_count(size_t edges, size_t d)
{
	size_t q = edges / d, rem = edges % d;

	if (2 * rem > d || (2 * rem == d && q % 2 == 1))
		q++;
	return q < 1 ? 1 : q;
}

/* Pick one earlier vertex (< t) not yet taken, with probability proportional to weight. */
static size_t ba_pick(gsl_rng *r, const size_t *weight, const unsigned char *taken,
                      size_t t, size_t total)
{
	size_t u = fb_rng_index(r, total), v;

	for (v = 0; v < t; v++) {
		if (taken[v])
			continue;
		if (u < weight[v])
			break;
		u -= weight[v];
	}
	return v;
}

/* Barabási–Albert, NOTEARS flavour: vertex t sends min(m,t) edges to distinct earlier
 * vertices with probability ∝ in-degree + 1, edges new -> old, then relabelled.  FB_ERR
 * when its table of d x m targets does not fit in memory. */
static int dag_scale_free(fb_graph *g, size_t edges, gsl_rng *r, size_t *order)
{
	size_t d = g->d, m = attach_count(edges, d);
	size_t *target = calloc(d * m, sizeof *target); /* target[t*m + e] */
	size_t *weight, *label;                          /* in-degree + 1; the relabelling */
	unsigned char *taken;

	if (target == NULL)
		return FB_ERR;
	weight = fb_xcalloc(d, sizeof *weight);
	taken = fb_xcalloc(d, 1);
	label = fb_xcalloc(d, sizeof *label);
	for (size_t t = 0; t < d; t++) {
		size_t k = t < m ? t : m, total = 0;

		for (size_t v = 0; v < t; v++)
			total += weight[v];
		for (size_t e = 0; e < k; e++) {
			size_t v = ba_pick(r, weight, taken, t, total);

			taken[v] = 1;
			total -= weight[v];
			target[t * m + e] = v;
		}
		for (size_t e = 0; e < k; e++) {
			taken[target[t * m + e]] = 0;
			weight[target[t * m + e]]++;
		}
		weight[t] = 1;
	}
	random_order(r, label, d);
	for (size_t t = 0; t < d; t++) {
		for (size_t e = 0; e < (t < m ? t : m); e++)
			fb_graph_set_directed(g, label[t], label[target[t * m + e]], 1.0);
		order[d - 1 - t] = label[t]; /* the newest vertex comes first */
	}
	free(label);
	free(target);
	free(taken);
	free(weight);
	return FB_OK;
}

/* Vertex t of the gCastle-flavour growth joins m distinct earlier vertices, each drawn
 * uniformly from ends[0..2e-1] (so with probability ∝ degree) until m distinct ones are
 * found; it appends each new edge (target, t) to ends and returns the new e. */
static size_t ba_attach_gcastle(gsl_rng *r, size_t *ends, size_t e, size_t t, size_t m,
                                unsigned char *taken)
{
	size_t len = 2 * e, k = 0, first = e;

	while (k < m) {
		size_t v = ends[fb_rng_index(r, len)];

		if (taken[v])
			continue;
		taken[v] = 1;
		ends[2 * e] = v;
		ends[2 * e + 1] = t;
		e++;
		k++;
	}
	for (size_t q = first; q < e; q++)
		taken[ends[2 * q]] = 0;
	return e;
}

/* Barabási–Albert, gCastle / FedDAG flavour (networkx barabasi_albert_graph, then their
 * random acyclic orientation): a star with centre 0 and leaves 1..m, then vertex
 * t = m+1..d-1 joins m distinct vertices with probability ∝ degree (m(d - m) edges in all);
 * the undirected graph is relabelled by a random permutation and every edge oriented along
 * a second random order, written into order.  FB_ERR when its edge list does not fit. */
static int dag_scale_free_gcastle(fb_graph *g, size_t edges, gsl_rng *r, size_t *order)
{
	size_t d = g->d, m = attach_count(edges, d), e = 0;
	size_t *ends = calloc(2 * m * d, sizeof *ends); /* edge q joins ends[2q], ends[2q+1] */
	size_t *label, *rank;
	unsigned char *taken;

	if (ends == NULL)
		return FB_ERR;
	taken = fb_xcalloc(d, 1);
	label = fb_xcalloc(d, sizeof *label);
	rank = fb_xcalloc(d, sizeof *rank);
	for (; e < m; e++) {
		ends[2 * e] = 0;
		ends[2 * e + 1] = e + 1;
	}
	for (size_t t = m + 1; t < d; t++)
		e = ba_attach_gcastle(r, ends, e, t, m, taken);
	random_order(r, label, d);
	random_order(r, order, d);
	order_ranks(order, d, rank);
	for (size_t q = 0; q < e; q++)
		orient_pair(g, rank, label[ends[2 * q]], label[ends[2 * q + 1]]);
	free(rank);
	free(label);
	free(taken);
	free(ends);
	return FB_OK;
}

/* Draw a random DAG and the topological order its generator used. */
fb_graph *fb_sim_dag_ordered(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r,
                             size_t *order, fb_error *err)
{
	fb_graph *g;
	int rc;

	if (dag_check(type, d, edges, err) != FB_OK)
		return NULL;
	g = fb_graph_try_alloc(d);
	if (g == NULL) {
		fb_fail(err, "cannot draw a DAG on d=%zu variables: out of memory (its graph "
		        "takes %.3g GB)", d, (double)fb_graph_bytes(d) / 1e9);
		return NULL;
	}
	if (type == FB_DAG_ER)
		rc = dag_er_exact(g, edges, r, order);
	else if (type == FB_DAG_ER_BERNOULLI)
		rc = dag_er_bernoulli(g, edges, r, order);
	else if (type == FB_DAG_SF)
		rc = dag_scale_free(g, edges, r, order);
	else
		rc = dag_scale_free_gcastle(g, edges, r, order);
	if (rc != FB_OK) {
		fb_fail(err, "cannot draw a DAG on d=%zu variables: out of memory", d);
		fb_graph_free(g);
		return NULL;
	}
	g->weighted = false;
	return g;
}

/* Draw a random DAG (binary, unweighted) with node names X1..Xd. */
fb_graph *fb_sim_dag(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r, fb_error *err)
{
	size_t *order = fb_xcalloc(d == 0 ? 1 : d, sizeof *order);
	fb_graph *g = fb_sim_dag_ordered(type, d, edges, r, order, err);

	free(order);
	return g;
}

/* Give every edge of g a weight ±U[wmin, wmax], in row-major order of (parent, child);
 * FB_ERR (FB_CANCELLED_MSG) when cancel asks to stop, between rows. */
static int sim_weights(fb_graph *g, double wmin, double wmax, gsl_rng *r,
                       const fb_cancel *cancel, fb_error *err)
{
	for (size_t i = 0; i < g->d; i++) {
		if (fb_cancel_requested(cancel))
			return fb_fail(err, FB_CANCELLED_MSG);
		for (size_t j = 0; j < g->d; j++) {
			if (fb_graph_has_arc(g, i, j))
				fb_graph_set_directed(g, i, j, fb_sim_weight_draw(r, wmin, wmax));
		}
	}
	g->weighted = true;
	return FB_OK;
}

/* One draw of N(0, scale^2). */
static double noise_gauss(gsl_rng *r, double scale)
{
	return gsl_ran_gaussian(r, scale);
}

/* One draw of Exp with mean scale. */
static double noise_exp(gsl_rng *r, double scale)
{
	return gsl_ran_exponential(r, scale);
}

/* One draw of Gumbel(location 0, scale): gumbel1 with a = 1/scale, b = 1. */
static double noise_gumbel(gsl_rng *r, double scale)
{
	return gsl_ran_gumbel1(r, 1.0 / scale, 1.0);
}

/* One draw of U(-scale, scale). */
static double noise_uniform(gsl_rng *r, double scale)
{
	return gsl_ran_flat(r, -scale, scale);
}

/* Noise samplers indexed by enum fb_noise. */
static double (*const noise_draw[])(gsl_rng *, double) = {
	[FB_NOISE_GAUSS] = noise_gauss,
	[FB_NOISE_EXP] = noise_exp,
	[FB_NOISE_GUMBEL] = noise_gumbel,
	[FB_NOISE_UNIFORM] = noise_uniform,
};

/* What a mechanism sees: the true graph, the options and scratch room. */
struct sim_model {
	const fb_graph *g;         /* the true DAG (weighted for the linear SEM) */
	const fb_sim_options *opt; /* the parameter range */
	enum fb_sem sem;           /* the mechanism */
	gsl_rng *r;                /* the mechanism stream */
	size_t *parents;           /* scratch: room for d parent ids */
	double *f;                 /* scratch: room for n values of f_j */
};

/* A mechanism adds f_j(parents) to column j, which already holds the noise z_j; the
 * parents' columns are complete (topological order).  FB_ERR with the reason on failure. */
typedef int (*sim_mechanism_fn)(struct sim_model *m, size_t j, fb_dataset *ds, fb_error *err);

/* Linear mechanism: x_j += sum over parents p of W[p][j] x_p. */
static int mechanism_linear(struct sim_model *m, size_t j, fb_dataset *ds, fb_error *err)
{
	size_t np = fb_graph_parents(m->g, j, m->parents), d = ds->d;

	(void)err;
	for (size_t i = 0; i < ds->n; i++) {
		double *row = ds->x + i * d;
		double s = 0.0;

		for (size_t q = 0; q < np; q++)
			s += m->g->w[m->parents[q] * d + j] * row[m->parents[q]];
		row[j] += s;
	}
	return FB_OK;
}

/* Nonlinear mechanism (fb_sim_mechanism): x_j += f_j(x_pa(j)). */
static int mechanism_nonlinear(struct sim_model *m, size_t j, fb_dataset *ds, fb_error *err)
{
	size_t np = fb_graph_parents(m->g, j, m->parents);

	if (fb_sim_mechanism(m->sem, ds->x, ds->n, ds->d, m->parents, np, m->opt->wmin,
	                     m->opt->wmax, m->r, m->f, err) != FB_OK)
		return FB_ERR;
	for (size_t i = 0; i < ds->n; i++)
		ds->x[i * ds->d + j] += m->f[i];
	return FB_OK;
}

/* Mechanisms indexed by enum fb_sem. */
static const sim_mechanism_fn mechanisms[] = {
	[FB_SEM_LINEAR] = mechanism_linear,
	[FB_SEM_MLP] = mechanism_nonlinear,
	[FB_SEM_MIM] = mechanism_nonlinear,
	[FB_SEM_GP] = mechanism_nonlinear,
	[FB_SEM_GP_ADD] = mechanism_nonlinear,
};

/* Refuse options no simulation can satisfy (the graph part is checked by dag_check). */
static int sim_check(const fb_sim_options *opt, fb_error *err)
{
	if (opt->n < 1)
		return fb_fail(err, "cannot simulate n=%zu rows: n must be at least 1", opt->n);
	if ((size_t)opt->sem >= sizeof mechanisms / sizeof mechanisms[0])
		return fb_fail(err, "unknown mechanism %d", (int)opt->sem);
	if ((size_t)opt->noise >= sizeof noise_draw / sizeof noise_draw[0])
		return fb_fail(err, "unknown noise family %d", (int)opt->noise);
	if (!isfinite(opt->noise_scale) || opt->noise_scale <= 0.0)
		return fb_fail(err, "cannot use noise scale %g: it must be positive and finite",
		               opt->noise_scale);
	if (!isfinite(opt->wmin) || !isfinite(opt->wmax) || opt->wmin < 0.0 ||
	    opt->wmin > opt->wmax)
		return fb_fail(err, "cannot draw weight magnitudes in [%g, %g]: they need "
		               "0 <= wmin <= wmax", opt->wmin, opt->wmax);
	if (opt->discrete > opt->d)
		return fb_fail(err, "cannot make discrete=%zu of %zu variables discrete",
		               opt->discrete, opt->d);
	if (opt->discrete > 0 && (opt->levels < 2 || opt->levels > opt->n))
		return fb_fail(err, "cannot cut %zu rows into levels=%zu levels: it takes 2 to "
		               "n", opt->n, opt->levels);
	if (opt->discrete > 0 && opt->clients > 0)
		return fb_fail(err, "discrete= cannot go with clients=: a client's levels would "
		               "be cut on its own rows");
	if (opt->d > 0 && opt->n > ((size_t)-1) / sizeof(double) / opt->d)
		return fb_fail(err, "cannot simulate %zu x %zu values: too many", opt->n, opt->d);
	return fb_sim_mechanism_check(opt->sem, opt->n, err);
}

/* Compare two doubles for qsort. */
static int sim_double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The discrete variables of a simulation (fb_sim_options.discrete): which they are, the
 * value each level stands for in its children's mechanisms, and the rows' levels. */
typedef struct sim_disc {
	size_t L;           /* levels */
	unsigned char *is;  /* d flags */
	double *effect;     /* d x L: the value level l of variable j stands for */
	double *code;       /* d x n: the rows' levels (discrete columns only) */
} sim_disc;

/* Cut column j of ds into L equal-frequency levels: the thresholds are the column's values
 * of rank floor(n l / L), l = 1..L-1, and a value's level is how many of them it reaches;
 * the level goes to z's codes and the value it stands for into the column, for the
 * children.  sorted has room for n values. */
static void sim_cut_levels(fb_dataset *ds, size_t j, const sim_disc *z, double *sorted)
{
	size_t n = ds->n, L = z->L;

	for (size_t i = 0; i < n; i++)
		sorted[i] = ds->x[i * ds->d + j];
	qsort(sorted, n, sizeof *sorted, sim_double_cmp);
	for (size_t i = 0; i < n; i++) {
		double v = ds->x[i * ds->d + j];
		size_t code = 0;

		for (size_t l = 1; l < L; l++)
			code += v >= sorted[n * l / L];
		z->code[j * n + i] = (double)code;
		ds->x[i * ds->d + j] = z->effect[j * L + code];
	}
}

/* Which variables are discrete (opt->discrete of them) and, for each, the standard normal
 * value each of its levels stands for, so that a child's mean moves by level and not
 * along the codes: all from the stream "discrete". */
static void sim_discrete_draw(const fb_sim_options *opt, sim_disc *z, size_t n)
{
	size_t *perm = fb_xcalloc(opt->d, sizeof *perm);
	gsl_rng *r = fb_rng_stream(opt->seed, "discrete");

	z->L = opt->levels;
	z->is = fb_xcalloc(opt->d, 1);
	z->effect = fb_xcalloc(opt->d * z->L, sizeof *z->effect);
	z->code = fb_xcalloc(opt->d * n, sizeof *z->code);
	for (size_t j = 0; j < opt->d; j++)
		perm[j] = j;
	fb_rng_shuffle(r, perm, opt->d);
	for (size_t t = 0; t < opt->discrete && t < opt->d; t++)
		z->is[perm[t]] = 1;
	for (size_t j = 0; j < opt->d; j++)
		for (size_t l = 0; z->is[j] && l < z->L; l++)
			z->effect[j * z->L + l] = gsl_ran_gaussian(r, 1.0);
	gsl_rng_free(r);
	free(perm);
}

/* Free z's memory. */
static void sim_discrete_free(sim_disc *z)
{
	free(z->is);
	free(z->effect);
	free(z->code);
}

/* Put the discrete variables' levels in their columns, labelled "0".."L-1". */
static int sim_discrete_finish(const sim_disc *z, fb_dataset *ds, fb_error *err)
{
	char **lab = fb_xcalloc(z->L, sizeof *lab);
	int rc = FB_OK;

	for (size_t l = 0; l < z->L; l++)
		lab[l] = fb_xasprintf("%zu", l);
	for (size_t j = 0; j < ds->d && rc == FB_OK; j++) {
		if (!z->is[j])
			continue;
		for (size_t i = 0; i < ds->n; i++)
			ds->x[i * ds->d + j] = z->code[j * ds->n + i];
		rc = fb_dataset_set_levels(ds, j, lab, z->L, err);
	}
	for (size_t l = 0; l < z->L; l++)
		free(lab[l]);
	free(lab);
	return rc;
}

/* Values drawn between two questions to opt->cancel. */
#define SIM_CANCEL_BLOCK 65536

/* One SEM to sample: the graph, the mechanism, the noise scale and the two streams. */
struct sim_sem {
	const fb_graph *g; /* the true DAG, weighted for the linear mechanism */
	enum fb_sem sem;   /* the mechanism */
	double scale;      /* the noise scale */
	gsl_rng *noise;    /* the noise stream */
	gsl_rng *mech;     /* the nonlinear mechanisms' stream */
	const sim_disc *discrete; /* the variables cut into levels as simulated (NULL: none) */
};

/* Fill ds from the SEM s: noise row by row, then the mechanism column by column in the
 * topological order; opt->cancel is asked every block of values and before every column. */
static int sim_sample_sem(const fb_sim_options *opt, const struct sim_sem *s,
                          const size_t *order, fb_dataset *ds, fb_error *err)
{
	struct sim_model m = { s->g, opt, s->sem, s->mech, fb_xcalloc(s->g->d, sizeof(size_t)),
	                       calloc(ds->n > 0 ? ds->n : 1, sizeof(double)) };
	int rc = FB_OK;

	if (m.f == NULL)
		rc = fb_fail(err, "cannot simulate %zu x %zu values: out of memory (a column's "
		             "%zu values)", ds->n, ds->d, ds->n);
	for (size_t i = 0; i < ds->n * ds->d && rc == FB_OK; i++) {
		if (i % SIM_CANCEL_BLOCK == 0 && fb_cancel_requested(&opt->cancel))
			rc = fb_fail(err, FB_CANCELLED_MSG);
		ds->x[i] = noise_draw[opt->noise](s->noise, s->scale);
	}
	for (size_t p = 0; p < s->g->d && rc == FB_OK; p++) {
		if (fb_cancel_requested(&opt->cancel))
			rc = fb_fail(err, FB_CANCELLED_MSG);
		else
			rc = mechanisms[s->sem](&m, order[p], ds, err);
		if (rc == FB_OK && s->discrete != NULL && s->discrete->is[order[p]])
			sim_cut_levels(ds, order[p], s->discrete, m.f);
	}
	if (rc == FB_OK && s->discrete != NULL)
		rc = sim_discrete_finish(s->discrete, ds, err);
	free(m.f);
	free(m.parents);
	return rc;
}

/* Fill ds from the SEM of opt on the weighted graph g, streams "noise" and "mechanism". */
static int sim_sample(const fb_sim_options *opt, const fb_graph *g, const size_t *order,
                      fb_dataset *ds, fb_error *err)
{
	sim_disc z = { 0 };
	struct sim_sem s = { g, opt->sem, opt->noise_scale, fb_rng_stream(opt->seed, "noise"),
	                     fb_rng_stream(opt->seed, "mechanism"), opt->discrete > 0 ? &z : NULL };
	int rc;

	if (opt->discrete > 0)
		sim_discrete_draw(opt, &z, ds->n);
	rc = sim_sample_sem(opt, &s, order, ds, err);
	gsl_rng_free(s.mech);
	gsl_rng_free(s.noise);
	sim_discrete_free(&z);
	return rc;
}

/* Check opt, draw the DAG (stream "graph") with its topological order (room for d) and
 * allocate the n x d dataset; FB_ERR with the reason, nothing left allocated. */
static int sim_prepare(const fb_sim_options *opt, size_t *order, fb_graph **truth,
                       fb_dataset **data, fb_error *err)
{
	gsl_rng *r;

	*data = NULL;
	*truth = NULL;
	if (dag_check(opt->dag, opt->d, opt->edges, err) != FB_OK || sim_check(opt, err) != FB_OK)
		return FB_ERR;
	r = fb_rng_stream(opt->seed, "graph");
	*truth = fb_sim_dag_ordered(opt->dag, opt->d, opt->edges, r, order, err);
	gsl_rng_free(r);
	if (*truth == NULL)
		return FB_ERR;
	*data = fb_dataset_alloc(opt->n, opt->d);
	if (*data == NULL) {
		fb_graph_free(*truth);
		*truth = NULL;
		return fb_fail(err, "cannot simulate %zu x %zu values: out of memory (they take "
		               "%.3g GB)", opt->n, opt->d,
		               (double)opt->n * (double)opt->d * sizeof(double) / 1e9);
	}
	return FB_OK;
}

/* Hand *data and *truth to the caller on success, or free them. */
static int sim_finish(int rc, fb_dataset **data, fb_graph **truth)
{
	if (rc == FB_OK)
		return FB_OK;
	fb_graph_free(*truth);
	fb_dataset_free(*data);
	*truth = NULL;
	*data = NULL;
	return FB_ERR;
}

/* Simulate: a new dataset (continuous, names X1..Xd) and its weighted true DAG. */
int fb_sim_generate(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                    fb_error *err)
{
	size_t *order = fb_xcalloc(opt->d == 0 ? 1 : opt->d, sizeof *order);
	int rc = sim_prepare(opt, order, truth, data, err);

	if (rc == FB_OK && opt->sem == FB_SEM_LINEAR) {
		gsl_rng *r = fb_rng_stream(opt->seed, "weights");

		rc = sim_weights(*truth, opt->wmin, opt->wmax, r, &opt->cancel, err);
		gsl_rng_free(r);
	}
	if (rc == FB_OK)
		rc = sim_sample(opt, *truth, order, *data, err);
	free(order);
	return sim_finish(rc, data, truth);
}

/* The nonlinear families a heterogeneous client draws from, in ALGORITHMS.md §1.6's order. */
static const enum fb_sem hetero_families[] = {
	FB_SEM_MLP, FB_SEM_GP, FB_SEM_MIM, FB_SEM_GP_ADD,
};

/* Client cl's family and scale from its stream r; a linear client also draws its weights
 * onto w (its copy of the DAG). */
static int client_draw(const fb_sim_options *opt, gsl_rng *r, fb_graph *w, fb_sim_client *cl,
                       fb_error *err)
{
	cl->sem = FB_SEM_LINEAR;
	if (gsl_rng_uniform(r) >= 0.5)
		cl->sem = hetero_families[fb_rng_index(r, sizeof hetero_families /
		                                          sizeof hetero_families[0])];
	cl->scale = (gsl_rng_uniform(r) < 0.5 ? 0.8 : 1.0) * opt->noise_scale;
	if (cl->sem != FB_SEM_LINEAR)
		return FB_OK;
	return sim_weights(w, opt->wmin, opt->wmax, r, &opt->cancel, err);
}

/* The stream named "client C" followed by suffix (C = c + 1). */
static gsl_rng *client_stream(uint64_t seed, size_t c, const char *suffix)
{
	char name[64];

	snprintf(name, sizeof name, "client %zu%s", c + 1, suffix);
	return fb_rng_stream(seed, name);
}

/* Draw client c's own SEM on the DAG g and sample its rows, block (a view of them). */
static int client_sample(const fb_sim_options *opt, const fb_graph *g, const size_t *order,
                         size_t c, fb_sim_client *cl, fb_dataset *block, fb_error *err)
{
	fb_graph *w = fb_graph_copy(g);
	gsl_rng *r = client_stream(opt->seed, c, "");
	int rc = client_draw(opt, r, w, cl, err);

	gsl_rng_free(r);
	if (rc == FB_OK) {
		struct sim_sem s = { w, cl->sem, cl->scale, client_stream(opt->seed, c, " noise"),
		                     client_stream(opt->seed, c, " mechanism"), NULL };

		rc = sim_sample_sem(opt, &s, order, block, err);
		gsl_rng_free(s.mech);
		gsl_rng_free(s.noise);
	}
	fb_graph_free(w);
	return rc;
}

/* Heterogeneous clients: one DAG, each client's block from its own SEM. */
static int sim_generate_hetero(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                               fb_sim_client *cl, fb_error *err)
{
	size_t *order = fb_xcalloc(opt->d == 0 ? 1 : opt->d, sizeof *order), first = 0;
	int rc = sim_prepare(opt, order, truth, data, err);

	for (size_t c = 0; c < opt->clients && rc == FB_OK; c++) {
		fb_dataset block = { .n = cl[c].rows, .d = opt->d,
		                     .x = (*data)->x + first * opt->d, .vars = (*data)->vars };

		rc = client_sample(opt, *truth, order, c, &cl[c], &block, err);
		first += cl[c].rows;
	}
	free(order);
	return sim_finish(rc, data, truth);
}

/* Simulate data with a natural partition over opt->clients clients. */
int fb_sim_generate_clients(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                            fb_sim_client **clients, fb_error *err)
{
	size_t k = opt->clients;
	fb_sim_client *cl;
	int rc;

	*data = NULL;
	*truth = NULL;
	*clients = NULL;
	if (k < 1 || k > opt->n)
		return fb_fail(err, "cannot cut n=%zu rows into clients=%zu: each client needs at "
		               "least one row", opt->n, k);
	if (opt->hetero && fb_sim_mechanism_check(FB_SEM_GP, opt->n / k + 1, err) != FB_OK)
		return FB_ERR;
	cl = fb_xcalloc(k, sizeof *cl);
	for (size_t c = 0; c < k; c++) {
		cl[c].rows = opt->n / k + (c < opt->n % k);
		cl[c].sem = opt->sem;
		cl[c].scale = opt->noise_scale;
	}
	if (opt->hetero)
		rc = sim_generate_hetero(opt, data, truth, cl, err);
	else
		rc = fb_sim_generate(opt, data, truth, err);
	if (rc != FB_OK) {
		free(cl);
		return FB_ERR;
	}
	*clients = cl;
	return FB_OK;
}
