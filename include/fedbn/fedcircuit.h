/* Federated probabilistic circuits (federated-circuits paper, Algorithms 1-3): one-pass
 * training over horizontal, vertical and hybrid splits, distributed EM on the server's sum
 * weights for vertical and hybrid splits, the federated evaluation of a query, and the communication
 * cost formulas of the paper's section 3.4.
 *
 * One-pass training, one communication round per phase:
 *   round 1        every client sends the ids of the variables it holds (4 bytes each); the
 *                  server forms the clients x variables indicator matrix M and its
 *                  subspaces (the distinct columns of M: variables held by the same set of
 *                  clients), ordered by their first variable;
 *   round 2        the server's plan (each variable's subspace, 4 bytes each, and one byte
 *                  per subspace: shared or private) reaches the clients; every client learns,
 *                  on its own rows, at the same time as the others (the federation's
 *                  threads): one circuit over each shared subspace it holds (K, one per
 *                  k-means cluster of its rows, under cluster_shared), and, over its
 *                  private subspace (variables no one else holds), K circuits, one per k-means
 *                  cluster of its rows; it sends them (the text format of fedbn/circuit.h)
 *                  with each one's row count;
 *   round 3        the server assembles: a sum over the owners' circuits for each shared
 *                  subspace, weighted by their row counts; products that each take every
 *                  shared sum and one cluster circuit of every private subspace (glue=all:
 *                  one product per combination, as the paper's experiments ran; glue=random:
 *                  P products, product p taking cluster p mod K_l for p < K_l, a uniformly
 *                  drawn one afterwards, the paper's rule); a root sum over the products.
 *                  Every server weight is rho(child) / sum rho, rho(N) the training rows of
 *                  the client circuits below N (the paper's rule, no pass over the data).
 *                  With one subspace and no private one the shared sum is the root.
 *   EM rounds      (em_iters > 0; vertical splits, and in one process hybrid ones) over the
 *                  n training rows every client holds: a vertical split's all, a hybrid
 *                  split's shared rows (each distinct row id once, ascending; the split
 *                  tells each client which they are, no id travels; rows a client holds
 *                  alone are not used); in the first, each client sends its
 *                  circuits' log values on those n rows (8 n bytes per circuit); the
 *                  server keeps them (the client circuits do not change) and each EM round
 *                  is one EM step on the server's sum weights (fb_circuit_em_step).
 * Client circuits live on their client (machine k), server nodes on the server (-1). */
#ifndef FEDBN_FEDCIRCUIT_H
#define FEDBN_FEDCIRCUIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/circuit.h"
#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/partition.h"

/* How products pick the cluster circuits of private subspaces. */
enum fb_fc_glue {
	FB_FC_GLUE_ALL = 0,    /* one product per combination of clusters (the experiments) */
	FB_FC_GLUE_RANDOM = 1, /* P products, every cluster used at least once (the paper) */
};

/* Settings of federated circuit learning. */
typedef struct fb_fc_options {
	size_t clusters;           /* K: clusters of each private subspace (2) */
	bool cluster_shared;       /* clients also cluster their rows of a shared subspace into
	                              K, one circuit each, all children of its sum (as the
	                              authors' code does on horizontal splits; the paper learns
	                              one circuit per client) (false) */
	enum fb_fc_glue glue;      /* how products are formed (all) */
	size_t products;           /* P under glue=random; 0 means K (0) */
	size_t em_iters;           /* EM rounds after assembly, vertical and hybrid splits (0) */
	fb_learnspn_options learn; /* each client's learner (SPFlow's learn_mspn defaults) */
	uint64_t seed;             /* the clusters' k-means and the random glue (1) */
} fb_fc_options;

/* The EM rounds fedcircuit-em runs unless told (the paper's code runs 5). */
#define FB_FC_EM_ITERS 5

/* Fill o with the defaults (padding zeroed). */
void fb_fc_options_init(fb_fc_options *o);

/* The subspaces of a clients x variables indicator matrix. */
typedef struct fb_fc_subspaces {
	size_t k, d;            /* clients, variables */
	unsigned char *m;       /* k x d, row-major: m[c * d + j] = 1 iff client c holds j */
	size_t n;               /* number of subspaces */
	size_t *of;             /* d: the subspace of each variable */
	size_t *nvars;          /* n: variables of each subspace */
	size_t *nowners;        /* n: clients holding each subspace */
} fb_fc_subspaces;

/* The subspaces of m (k x d, copied): variables with identical columns share one, numbered
 * in the order of their first variables.  FB_ERR when a variable is held by no client or
 * on out of memory.  Release with fb_fc_subspaces_release. */
int fb_fc_subspaces_build(const unsigned char *m, size_t k, size_t d, fb_fc_subspaces *s,
                          fb_error *err);
/* Free what s owns. */
void fb_fc_subspaces_release(fb_fc_subspaces *s);

/* Phases of a run. */
enum fb_fc_phase {
	FB_FC_INDICATOR = 0, /* next round: the indicator matrix */
	FB_FC_LEARN,         /* next round: every client learns */
	FB_FC_ASSEMBLE,      /* next round: the server assembles */
	FB_FC_EM,            /* next round: an EM step */
	FB_FC_DONE,          /* finished */
	FB_FC_EVAL,          /* the evaluation round (fb_fc_evaluate) is under way */
};

/* A federated circuit run: both halves' state (each half reads only its own part). */
typedef struct fb_fc fb_fc;

/* A run over partition p (not owned; it must outlive the run); NULL with the reason (EM on a
 * horizontal split, on a hybrid one without rows every client holds or over MPI, K = 0). */
fb_fc *fb_fc_alloc(const fb_partition *p, const fb_fc_options *o, fb_error *err);
/* Free it (NULL is fine). */
void fb_fc_free(fb_fc *fc);
/* One round through the federation f (over the same partition); FB_ERR with the reason. */
int fb_fc_step(fb_fc *fc, fb_federation *f, fb_error *err);
/* The phase the next round will run. */
enum fb_fc_phase fb_fc_phase(const fb_fc *fc);
/* Whether the run has finished. */
bool fb_fc_done(const fb_fc *fc);
/* The subspaces once round 1 is done, else NULL. */
const fb_fc_subspaces *fb_fc_subspaces_of(const fb_fc *fc);
/* The assembled circuit once assembly is done, else NULL (owned by the run). */
const fb_circuit *fb_fc_circuit(const fb_fc *fc);
/* Nodes the server knows of so far: the received client circuits' nodes, then the
 * assembled circuit's. */
size_t fb_fc_nodes(const fb_fc *fc);
/* The circuits the server has received from client k (0 before the learning round). */
size_t fb_fc_client_circuits(const fb_fc *fc, size_t k);
/* Mean log-likelihood of the training rows EM runs on (all, or a hybrid split's shared
 * rows) under the assembled circuit, as the server last computed it in an EM round (NaN
 * before). */
double fb_fc_em_loglik(const fb_fc *fc);
/* Free parameters of the clients' circuits (the models FedAvg would average), summed. */
size_t fb_fc_client_params(const fb_fc *fc);
/* The circuits the clients sent over two or more variables that LearnSPN factorised whole
 * because they were learned on at most min_instances_slice rows. */
typedef struct fb_fc_small {
	size_t multi; /* circuits received over two or more variables */
	size_t small; /* of those, learned on at most min_instances_slice rows */
	size_t lo;    /* the fewest rows of a small one */
	size_t hi;    /* the most rows of a small one */
} fb_fc_small;
/* Count them among the circuits the server has received (all zero before round 2). */
void fb_fc_small_circuits(const fb_fc *fc, fb_fc_small *s);

/* Federated log-likelihood of n query rows x (global variables, row-major): each client
 * evaluates its own circuits on its own variables of the queries and sends their log values
 * (8 bytes each; the total goes to *bytes_up, may be NULL); the server combines them with
 * its nodes.  out[n] equals, bit for bit, fb_circuit_logpdf of the assembled circuit.
 * FB_ERR before assembly or on out of memory. */
int fb_fc_loglik(const fb_fc *fc, const double *x, size_t n, double *out, size_t *bytes_up,
                 fb_error *err);

/* The clients' data with their held-out rows (by default the split the run learns on), which
 * the evaluation round evaluates; whole must outlive the run. */
void fb_fc_set_whole(fb_fc *fc, const fb_partition *whole);
/* The evaluation round, after training: where every site holds every row, each sends its
 * own circuits' log values on its rows of each part and the server evaluates its nodes;
 * where every site holds every variable, the broadcast carries the assembled circuit and
 * each site sends its log values on its rows; elsewhere (sites holding different rows and
 * variables) the sites send nothing.  Only log values and row counts travel up, counted in
 * the ledger.  FB_ERR before training or on a malformed reply. */
int fb_fc_evaluate(fb_fc *fc, fb_federation *f, fb_error *err);
/* Whether the evaluation round evaluated every part; the log-likelihoods of each part (the
 * sites' rows in their order, site after site) into ll. */
bool fb_fc_part_loglik(const fb_fc *fc, fb_loglik ll[FB_NPARTS]);
/* Bytes of log values the sites sent in the evaluation round. */
size_t fb_fc_eval_bytes(const fb_fc *fc);

/* What the baselines of the paper's section 3.4 are assumed to do. */
typedef struct fb_fc_cost_model {
	size_t fedavg_rounds;  /* R: FedAvg aggregations (100) */
	size_t splitnn_epochs; /* E: SplitNN epochs (10) */
	size_t splitnn_dim;    /* F: SplitNN embedding size (100) */
} fb_fc_cost_model;

/* Defaults of the cost model. */
void fb_fc_cost_model_init(fb_fc_cost_model *m);
/* Bytes FedAvg sends up: 8 M C R (M parameters per client model, C clients, R rounds). */
double fb_fc_cost_fedavg(const fb_fc_cost_model *m, size_t params, size_t clients);
/* Bytes SplitNN sends up: 8 E C F S (S rows). */
double fb_fc_cost_splitnn(const fb_fc_cost_model *m, size_t clients, size_t rows);
/* The paper's bound for one-pass training, in bytes: horizontal 8 C (M + 1); vertical
 * 8 (K M C + P); hybrid the shared subspaces' count times the first plus the private ones'
 * times the second. */
double fb_fc_cost_onepass(const fb_fc *fc);

/* The algorithms (a run's result is an edgeless graph; the circuit is fb_fc_circuit of
 * fb_fc_of_run). */
struct fb_algo;
struct fb_run;
extern const struct fb_algo fb_algo_fedcircuit, fb_algo_fedcircuit_em;
/* The options a fedcircuit or fedcircuit-em parameter table p gives (em_iters 0 when it
 * has no "em"). */
struct fb_params;
void fb_fc_options_from_params(const struct fb_params *p, fb_fc_options *o);
/* The federated circuit of a fedcircuit or fedcircuit-em run, else NULL. */
const fb_fc *fb_fc_of_run(const struct fb_run *run);

#endif
