/* What the federated-circuit files share: the run's state, both halves. */
#ifndef FEDBN_FC_INT_H
#define FEDBN_FC_INT_H

#include "fedbn/fedcircuit.h"

/* One circuit a client learned, over one subspace (its variables in ascending order). */
typedef struct fc_circ {
	size_t sub;     /* the subspace */
	size_t cluster; /* the cluster of a private subspace, 0 for a shared one */
	size_t rows;    /* the training rows it was learned on */
	fb_circuit *c;  /* over the subspace's variables 0..|S|-1 (owned) */
} fc_circ;

/* Client k's own part of the state. */
typedef struct fc_client {
	size_t *of;            /* the plan: each global variable's subspace (owned) */
	unsigned char *shared; /* the plan: per subspace, 1 when shared (owned) */
	size_t nsub;           /* subspaces in the plan (0 before it arrives) */
	fc_circ *circ;         /* its circuits, as it sent them (owned) */
	size_t ncirc;          /* how many */
	size_t rounds;         /* rounds it has answered: its own clock of the phases (in
	                          another process it never sees the server's) */
	size_t *emrows;        /* EM: its local rows every client holds, ascending by id, each
	                          once (owned), or NULL: all its rows (every client holds them) */
	size_t nem;            /* how many */
} fc_client;

/* The run: clients' parts, then the server's. */
struct fb_fc {
	const fb_partition *p;  /* the split (not owned); the server reads only k and d */
	fb_fc_options o;        /* the settings */
	enum fb_fc_phase phase; /* what the next round does */
	fc_client *cl;          /* k clients' own state (owned) */
	fb_fc_subspaces sub;    /* server: the subspaces (after round 1) */
	bool have_sub;          /* sub is built */
	fc_circ *recv;          /* server: received circuits, client by client (owned) */
	size_t *owner;          /* server: the client of each received circuit (owned) */
	size_t nrecv, caprecv;  /* received and allocated */
	size_t recv_nodes;      /* server: nodes of the received circuits */
	fb_circuit *circ;       /* server: the assembled circuit (owned) */
	size_t *croot;          /* server: each received circuit's root in circ (owned) */
	size_t nproducts;       /* server: products under the root */
	double *emval;          /* server: EM node values, nnodes x emn (owned) */
	size_t emn;             /* EM: training rows */
	size_t em_done;         /* EM rounds done */
	double em_ll;           /* EM: mean training log-likelihood after the last step */
	const fb_partition *whole; /* the clients' data with their held-out rows (not owned) */
	int eval_mode;          /* server: how the evaluation round goes (fc_eval_mode) */
	bool evaluated;         /* server: ll holds the sites' evaluation of every part */
	fb_loglik ll[FB_NPARTS]; /* server: the log-likelihood of each part, from the sites */
	size_t eval_bytes;      /* server: bytes of log values the sites sent to evaluate */
};

/* How the sites evaluate the assembled circuit in the evaluation round. */
enum fc_eval_mode {
	FC_EVAL_NONE = 0,  /* no site holds whole rows nor every row (hybrid): not by the sites */
	FC_EVAL_OWN = 1,   /* every site holds every row: each its own circuits' log values */
	FC_EVAL_WHOLE = 2, /* every site holds every variable: each the whole circuit on its rows,
	                      which the broadcast carries */
};

/* Assemble the received circuits into fc->circ (server, round K+2). */
int fc_assemble(fb_fc *fc, fb_error *err);
/* The ascending global variables of subspace s into vars (room for d). */
size_t fc_subspace_vars(const fb_fc_subspaces *s, size_t sub, size_t *vars);
/* Whether the clients of w all hold the same rows (over MPI: a vertical federation). */
bool fc_same_rows(const fb_partition *w);
/* The rows EM runs on: all when every client holds the same rows, on a hybrid split those
 * every client holds (fc->cl[k].emrows); refused otherwise or when there are none. */
int fc_em_rows(fb_fc *fc, fb_error *err);
/* Client k's EM reply: its circuits' log values on its rows (circuit-major). */
int fc_client_em_values(const fb_fc *fc, size_t k, const fb_dataset *local, fb_msg *up,
                        fb_error *err);
/* Log values of client k's circuits on the n rows x (d global columns) into out
 * (circuit-major, n per circuit). */
int fc_client_values(const fb_fc *fc, size_t k, const double *x, size_t n, size_t d,
                     double *out, fb_error *err);
/* Client k's rows of local as rows over the global variables (others NAN), in a new array. */
double *fc_client_rows_global(const fb_fc *fc, size_t k, const fb_dataset *local);
/* Server: the clients' values (up, or vals when up is NULL; circuit-major, n rows) at the
 * roots of their grafted circuits in val (nnodes x n). */
int fc_place_values(const fb_fc *fc, const fb_msg *const *up, const double *const *vals,
                    size_t n, double *val, fb_error *err);
/* Client k's reply in the evaluation round: its rows' counts per part, then log values. */
int fc_client_eval(const fb_fc *fc, size_t k, const fb_msg *down, fb_msg *up, fb_error *err);
/* Server, evaluation round: every part's log-likelihood from the sites' log values. */
int fc_server_eval(fb_fc *fc, const fb_msg *const *up, fb_error *err);
/* Both halves of a round, by the phase. */
const fb_fed_ops *fc_ops(void);
/* Server EM round: keep the values of the first, then one EM step. */
int fc_server_em(fb_fc *fc, const fb_msg *const *up, fb_error *err);
/* The rows x of n queries restricted to the variables vars[nv] into a new array. */
double *fc_gather(const double *x, size_t n, size_t d, const size_t *vars, size_t nv);

#endif
