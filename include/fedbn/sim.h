/* Simulated data: random DAGs and structural equation models on them (ALGORITHMS.md §1). */
#ifndef FEDBN_SIM_H
#define FEDBN_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"

/* Random DAG families. */
enum fb_dag_type {
	FB_DAG_ER = 0, /* Erdős–Rényi, exact edge count, random orientation (variant A) */
	FB_DAG_ER_BERNOULLI, /* Erdős–Rényi, each forward pair with p = 2s/(d^2-d) (variant B) */
	FB_DAG_SF,     /* scale-free, Barabási–Albert, edges new -> old, then relabelled */
};

/* Noise families of the SEM. */
enum fb_noise {
	FB_NOISE_GAUSS = 0, /* N(0, scale^2) */
	FB_NOISE_EXP,       /* Exp(scale) (mean scale) */
	FB_NOISE_GUMBEL,    /* Gumbel(0, scale) */
	FB_NOISE_UNIFORM,   /* U(-scale, scale) */
};

/* Mechanisms of the SEM (only linear exists now; nonlinear ones join this list). */
enum fb_sem {
	FB_SEM_LINEAR = 0, /* x_j = sum_i W_ij x_i + z_j */
};

/* Everything that defines one simulated dataset. */
typedef struct fb_sim_options {
	enum fb_dag_type dag;  /* graph family */
	size_t d;              /* variables */
	size_t edges;          /* expected (ER-B) or exact (ER, SF: s/d attachments) edges */
	size_t n;              /* rows */
	uint64_t seed;         /* one seed; streams "graph", "weights", "noise" derive from it */
	enum fb_sem sem;       /* mechanism */
	enum fb_noise noise;   /* noise family */
	double noise_scale;    /* noise scale (1) */
	double wmin, wmax;     /* weight magnitudes uniform on [wmin, wmax], sign +/- (0.5, 2) */
	fb_cancel cancel;      /* asked between rows of the graph and blocks of the data (none) */
} fb_sim_options;

/* Defaults: ER, d=10, edges=10, n=300, seed=1, linear, Gaussian, scale 1, [0.5, 2]. */
void fb_sim_options_init(fb_sim_options *opt);

/* Draw a random DAG (binary, unweighted) with node names X1..Xd; NULL with the reason when
 * impossible (d < 2, edges > d(d-1)/2, an unknown type).  Caller frees with fb_graph_free.
 * ER: exactly `edges` of the d(d-1)/2 pairs, uniformly, oriented along a random order.
 * ER_BERNOULLI: each forward pair of a random order with p = edges / (d(d-1)/2).
 * SF: m = round(edges/d) (ties to even, at least 1); vertex t = 0..d-1 sends min(m, t) edges
 * to distinct earlier vertices drawn one by one with probability ∝ in-degree + 1, edges
 * new -> old; vertices are then relabelled by a random permutation. */
fb_graph *fb_sim_dag(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r, fb_error *err);

/* Like fb_sim_dag, and writes into order (room for d) the topological order (parents first)
 * the generator used: the random order for ER and ER_BERNOULLI; for SF the vertices from the
 * last added to the first (so order reversed is the order in which they were added). */
fb_graph *fb_sim_dag_ordered(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r,
                             size_t *order, fb_error *err);

/* Simulate: a new dataset (continuous, names X1..Xd) and its weighted true DAG; both are the
 * caller's (fb_dataset_free, fb_graph_free).  Stream "graph" draws the DAG, "weights" the
 * weights (one magnitude then one sign per edge, edges in row-major order), "noise" the noise
 * row by row, so the first rows do not depend on n.  Then each variable, in topological order,
 * gets its mechanism added to its noise.  FB_ERR with the reason (n < 1, a scale that is not
 * positive, wmin > wmax, or any fb_sim_dag refusal, memory that cannot be had, or
 * FB_CANCELLED_MSG when opt->cancel asked to stop); *data and *truth are then NULL. */
int fb_sim_generate(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                    fb_error *err);

#endif
