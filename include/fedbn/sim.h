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
} fb_sim_options;

/* Defaults: ER, d=10, edges=10, n=300, seed=1, linear, Gaussian, scale 1, [0.5, 2]. */
void fb_sim_options_init(fb_sim_options *opt);

/* Draw a random DAG (binary, unweighted) with node names X1..Xd. */
fb_graph *fb_sim_dag(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r, fb_error *err);

/* Simulate: a new dataset (continuous, names X1..Xd) and its weighted true DAG. */
int fb_sim_generate(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                    fb_error *err);

#endif
