/* Simulated data: random DAGs and structural equation models on them (ALGORITHMS.md §1). */
#ifndef FEDBN_SIM_H
#define FEDBN_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/graph.h"

/* Random DAG families. */
enum fb_dag_type {
	FB_DAG_ER = 0, /* Erdős–Rényi, exact edge count, random orientation (variant A) */
	FB_DAG_ER_BERNOULLI, /* Erdős–Rényi, each forward pair with p = 2s/(d^2-d) (variant B) */
	FB_DAG_SF,     /* scale-free, Barabási–Albert, edges new -> old, then relabelled
	                * (NOTEARS flavour: hubs collect parents) */
	FB_DAG_SF_GCASTLE, /* scale-free, undirected Barabási–Albert, randomly relabelled and
	                    * oriented (gCastle / FedDAG flavour: hub edges point both ways) */
};

/* Noise families of the SEM. */
enum fb_noise {
	FB_NOISE_GAUSS = 0, /* N(0, scale^2) */
	FB_NOISE_EXP,       /* Exp(scale) (mean scale) */
	FB_NOISE_GUMBEL,    /* Gumbel(0, scale) */
	FB_NOISE_UNIFORM,   /* U(-scale, scale) */
};

/* Mechanisms of the SEM: x_j = f_j(x_pa(j)) + z_j, roots x_j = z_j (ALGORITHMS.md §1.3-1.4). */
enum fb_sem {
	FB_SEM_LINEAR = 0, /* f_j = sum_i W_ij x_i */
	FB_SEM_MLP,        /* f_j = sum_h v_h sigmoid(x' U_h), 100 hidden units, no biases */
	FB_SEM_MIM,        /* f_j = tanh(x' w1) + cos(x' w2) + sin(x' w3) */
	FB_SEM_GP,         /* f_j one joint draw over the rows of a GP, RBF kernel, scale 1 */
	FB_SEM_GP_ADD,     /* f_j = sum over parents of independent 1-D GP draws g_i(x_i) */
};

/* Everything that defines one simulated dataset. */
typedef struct fb_sim_options {
	enum fb_dag_type dag;  /* graph family */
	size_t d;              /* variables */
	size_t edges;          /* expected (ER-B) or exact (ER, SF: s/d attachments) edges */
	size_t n;              /* rows */
	uint64_t seed;         /* one seed; streams "graph", "weights", "noise", "mechanism"
	                        * derive from it */
	enum fb_sem sem;       /* mechanism */
	enum fb_noise noise;   /* noise family */
	double noise_scale;    /* noise scale (1) */
	double wmin, wmax;     /* weight magnitudes uniform on [wmin, wmax], sign +/- (0.5, 2);
	                        * also the mlp and mim parameters' */
	size_t clients;        /* fb_sim_generate_clients: K clients, rows cut into K even
	                        * contiguous blocks (0: none) */
	bool hetero;           /* fb_sim_generate_clients: each client its own SEM (false) */
	size_t discrete;       /* fb_sim_generate: this many variables, drawn from the stream
	                        * "discrete", are cut into levels equal-frequency levels as
	                        * they are simulated, and each level stands for a standard
	                        * normal value of the same stream in its children's
	                        * mechanisms (a conditional Gaussian network of mixed data:
	                        * a child's mean moves by level, not along the codes); 0: none */
	size_t levels;         /* the levels of each such variable (3) */
	fb_cancel cancel;      /* asked between rows of the graph and blocks of the data (none) */
} fb_sim_options;

/* One client of a generated natural partition. */
typedef struct fb_sim_client {
	enum fb_sem sem; /* its mechanism family */
	double scale;    /* its noise scale */
	size_t rows;     /* its rows, one contiguous block, blocks in client order */
} fb_sim_client;

/* Defaults: ER, d=10, edges=10, n=300, seed=1, linear, Gaussian, scale 1, [0.5, 2], no
 * clients, not heterogeneous, no discrete variable (3 levels when there are). */
void fb_sim_options_init(fb_sim_options *opt);

/* Draw a random DAG (binary, unweighted) with node names X1..Xd; NULL with the reason when
 * impossible (d < 2, edges > d(d-1)/2, an unknown type).  Caller frees with fb_graph_free.
 * ER: exactly `edges` of the d(d-1)/2 pairs, uniformly, oriented along a random order.
 * ER_BERNOULLI: each forward pair of a random order with p = edges / (d(d-1)/2).
 * SF: m = round(edges/d) (ties to even, at least 1); vertex t = 0..d-1 sends min(m, t) edges
 * to distinct earlier vertices drawn one by one with probability ∝ in-degree + 1, edges
 * new -> old; vertices are then relabelled by a random permutation.
 * SF_GCASTLE (networkx barabasi_albert_graph, then gCastle's orientation): same m; a star
 * with centre 0 and leaves 1..m, then vertex t = m+1..d-1 joins m distinct vertices, each
 * drawn uniformly from the list holding every vertex once per incident edge (so ∝ degree)
 * until m distinct ones are found: m(d - m) edges.  Then a random permutation relabels the
 * vertices and each edge points from the endpoint earlier in a second random order. */
fb_graph *fb_sim_dag(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r, fb_error *err);

/* Like fb_sim_dag, and writes into order (room for d) the topological order (parents first)
 * the generator used: the random order for ER, ER_BERNOULLI and SF_GCASTLE (the second
 * one); for SF the vertices from the last added to the first (so order reversed is the order
 * in which they were added). */
fb_graph *fb_sim_dag_ordered(enum fb_dag_type type, size_t d, size_t edges, gsl_rng *r,
                             size_t *order, fb_error *err);

/* One weight ±U[wmin, wmax]: gsl_ran_flat(r, wmin, wmax) for the magnitude, then one
 * gsl_rng_uniform(r) < 0.5 for a minus sign. */
double fb_sim_weight_draw(gsl_rng *r, double wmin, double wmax);

/* Write into f (n values) the nonlinear mechanism sem (not FB_SEM_LINEAR) of a variable with
 * parents pa[0..np-1], over rows x[a*ld + pa[q]], a < n; all its draws come from r.  No
 * parents: f = 0 and nothing is drawn.  Order of draws, each weight by fb_sim_weight_draw:
 * mlp: U (np x 100, row-major by parent), then v (100);  mim: w1, w2, w3 (np each);
 * gp (K_ab = exp(-|x_a - x_b|^2 / 2) over the parent vectors): when the pivoted incomplete
 * Cholesky factor K ~ G'G (fb_kernel_factor_rbf, mean left-out variance per row at most
 * 1e-10) needs r <= n / 16 rows, u_k = gsl_ran_gaussian(r, 1), k < r, then f = G'u (the
 * low-rank draw); otherwise, after factorising K + eps I = L L' (eps = 1e-10, x10 on
 * failure), u_a = gsl_ran_gaussian(r, 1), a < n, f = L u (the dense draw);
 * gp-add: the gp draw on each parent's column alone, in parent order, summed.  FB_ERR with
 * the reason (a kernel that does not fit in memory, with its size). */
int fb_sim_mechanism(enum fb_sem sem, const double *x, size_t n, size_t ld, const size_t *pa,
                     size_t np, double wmin, double wmax, gsl_rng *r, double *f,
                     fb_error *err);

/* Refuse (FB_ERR, the kernel's size) a gp or gp-add mechanism over n rows whose n x n
 * kernel of doubles cannot be addressed; FB_OK for every other case. */
int fb_sim_mechanism_check(enum fb_sem sem, size_t n, fb_error *err);

/* Simulate: a new dataset (continuous, names X1..Xd) and its true DAG; both are the caller's
 * (fb_dataset_free, fb_graph_free).  Stream "graph" draws the DAG; for the linear SEM
 * "weights" draws the weights (one magnitude then one sign per edge, edges in row-major
 * order) and the truth is weighted, for the others the truth is binary (weights 1).
 * "noise" draws the noise row by row, so the first rows do not depend on n.  Then each
 * variable, in topological order, gets its mechanism added to its noise; the nonlinear
 * mechanisms draw from stream "mechanism", variable after variable (fb_sim_mechanism).
 * FB_ERR with the reason (n < 1, a scale that is not positive, wmin > wmax, or any
 * fb_sim_dag refusal, memory that cannot be had, or FB_CANCELLED_MSG when opt->cancel asked
 * to stop); *data and *truth are then NULL. */
int fb_sim_generate(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                    fb_error *err);

/* Simulate data with a natural partition over opt->clients = K clients (1 <= K <= n): the
 * n rows are cut into K contiguous blocks (the first n mod K one row longer) and *clients
 * (K entries, the caller frees) says each block's size, family and noise scale.
 * hetero false: one SEM for all, exactly fb_sim_generate's bytes; each client reports
 * opt->sem and opt->noise_scale.
 * hetero true (ALGORITHMS.md §1.6): one DAG from stream "graph", unweighted in *truth; client
 * c (1-based) draws from its own stream "client c": the family (linear when a uniform draw is
 * below 1/2, else one of mlp, gp, mim, gp-add uniformly), the scale (0.8 when a uniform draw
 * is below 1/2, else 1; multiplied by opt->noise_scale, and used by a linear client too),
 * then a linear client's weights (as fb_sim_generate's); its noise comes from stream
 * "client c noise" (row by row) and its nonlinear mechanisms from "client c mechanism", over
 * its own rows alone.  Refusals as fb_sim_generate's, and K outside [1, n]. */
int fb_sim_generate_clients(const fb_sim_options *opt, fb_dataset **data, fb_graph **truth,
                            fb_sim_client **clients, fb_error *err);

#endif
