/* mcsl on one dataset, and FedDAG over horizontal clients (Gao et al. 2023): gs-feddag shares
 * the logits U alone, as-feddag U and every network weight, as-feddag-linear one weight
 * matrix.  Every client takes it_fl optimiser steps on its own rows per round; the server
 * averages what the drawn clients send and broadcasts it to every client.  After it_in steps
 * (one sub-problem) the server moves the augmented Lagrangian's alpha and rho. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/feddag.h"
#include "fedbn/mcsl.h"
#include "fedbn/notears.h"

/* Which learner a state runs. */
enum fd_kind {
	FD_MCSL = 0, /* centralised, one client, no federation */
	FD_GS,       /* graph shared */
	FD_AS,       /* all shared */
	FD_LINEAR,   /* all shared, linear */
};

/* The control numbers of a round's broadcast: alpha and rho of the sub-problem under way,
 * and the steps every client takes. */
enum { FD_C_ALPHA, FD_C_RHO, FD_C_STEPS, FD_NCONTROL };

/* The state of a run. */
typedef struct fd_state {
	enum fd_kind kind;        /* which learner */
	size_t k, d;              /* clients, variables */
	fb_mcsl_client **clients; /* each client's model (built from its own rows only) */
	fb_mcsl_alm alm;          /* the outer loop (the server's) */
	size_t it_in, it_fl;      /* steps per sub-problem, steps between aggregations */
	size_t done_in;           /* steps taken in the current sub-problem */
	size_t n_this;            /* steps every client takes this round */
	size_t steps;             /* optimiser steps per client so far */
	double tau;               /* temperature (masked model) */
	double threshold;         /* edge iff the noiseless mask (or |W|) is above it */
	bool with_net;            /* the networks travel too (as-feddag) */
	size_t wire;              /* numbers per message */
	double *avg;              /* the server's last average, wire numbers */
	gsl_rng *h_rng;           /* the server's sampled masks, code loop ("mcsl-h") */
	gsl_rng **drop_rng;       /* per client here: its own copy of the "dropout" stream, from
	                             which it replays every client's draw of each round */
	double dropout;           /* chance a drawn client's reply is lost in a round */
	double *loss;             /* per client: its local objective at its last step */
	double *dist;             /* per client, its own figure: ||U_k - U_avg||_F of the reply it
	                             sent before this round's from the average that came back,
	                             NaN when it sent none this round (kept on the client) */
	bool *sent;               /* per client: it sent its parameters in its last round (its
	                             own: the federation may still have left the reply out) */
	size_t heard, dropped;    /* replies averaged and replies lost in the last round */
	fb_mcsl_parts last;       /* mcsl: the parts at the last step */
	double h_est;             /* the h the outer loop last moved on */
	char **names;             /* variable names (metadata) */
	unsigned char *role;      /* d*d arcs under the run's knowledge (fb_honour_roles), or
	                             NULL: the server pins its average with them (fb_mcsl_pin) */
	enum fb_mcsl_model model; /* masked or linear, for the pins */
} fd_state;

/* The choices of loop=. */
static const fb_choice fd_loops[] = {
	{ "paper", FB_MCSL_LOOP_PAPER }, { "code", FB_MCSL_LOOP_CODE }, { 0 },
};

/* The choices of optimizer=. */
static const fb_choice fd_optimizers[] = { { "adam", 0 }, { "gd", 1 }, { 0 } };
/* The choices of noise=. */
static const fb_choice fd_noises[] = { { "client", 0 }, { "common", 1 }, { 0 } };

/* Read the model's options from the parameters. */
void fb_mcsl_options_from_params(const fb_params *p, fb_mcsl_options *o)
{
	bool linear = fb_params_find(p, "tau") < 0;

	memset(o, 0, sizeof *o);
	o->model = linear ? FB_MCSL_LINEAR : FB_MCSL_MASKED;
	o->slope = 0.05; /* App. B.5 */
	o->seed = 1;
	o->lambda = fb_params_double(p, "lambda");
	o->lr = fb_params_double(p, "lr");
	o->plain = fb_params_is(p, "optimizer", "gd");
	o->same_noise = fb_params_is(p, "noise", "common");
	if (!linear) {
		o->tau = fb_params_double(p, "tau");
		o->hidden = (size_t)fb_params_int(p, "hidden");
		o->layers = (size_t)fb_params_int(p, "layers");
	}
}

/* The options of a run. */
static void fd_options(const fb_run *run, fb_mcsl_options *o)
{
	fb_mcsl_options_from_params(&run->params, o);
	o->seed = run->fedopt.seed;
	o->knowledge = fb_run_knowledge(run);
}

/* Read the outer loop from the parameters; rho_init and beta from Table 7 when 0. */
static void fd_alm(const fb_run *run, enum fd_kind kind, size_t d, fb_mcsl_alm *a)
{
	const fb_params *p = &run->params;
	double rho0, beta;

	fb_mcsl_table7(d, kind == FD_GS, &rho0, &beta);
	memset(a, 0, sizeof *a);
	a->loop = (enum fb_mcsl_loop)fb_params_choice(p, "loop");
	a->rho = fb_params_double(p, "rho_init") > 0 ? fb_params_double(p, "rho_init") : rho0;
	a->beta = fb_params_double(p, "beta") > 0 ? fb_params_double(p, "beta") : beta;
	a->alpha = fb_params_double(p, "alpha_init");
	a->gamma = fb_params_double(p, "gamma");
	a->rho_max = fb_params_double(p, "rho_max");
	a->h_tol = fb_params_double(p, "h_tol");
	a->it_max = (size_t)fb_params_int(p, "it_max");
	a->init_iter = (size_t)fb_params_int(p, "init_iter");
	a->h_prev = INFINITY;
}

/* The travelling numbers' count and the opening average: every client starts from the same
 * parameters (drawn from the seed's "mcsl-init" stream, U or W at 0), so a model over one
 * row of zeros gives them where no client's data is here (a server whose clients are in
 * other processes). */
static int fd_opening(fd_state *st, const fb_dataset *const *data, size_t k,
                      const fb_mcsl_options *o, fb_error *err)
{
	fb_mcsl_client *model = NULL;
	fb_dataset *zeros = NULL;

	for (size_t c = 0; c < k && model == NULL; c++)
		model = st->clients[c];
	if (model == NULL) {
		zeros = fb_dataset_alloc(1, st->d);
		if ((model = fb_mcsl_client_alloc(zeros, 0, o, err)) == NULL) {
			fb_dataset_free(zeros);
			return FB_ERR;
		}
	}
	st->wire = fb_mcsl_wire_len(model, st->with_net);
	st->avg = fb_xcalloc(st->wire, sizeof *st->avg);
	fb_mcsl_wire_pack(model, st->with_net, st->avg);
	if (zeros != NULL) {
		fb_mcsl_client_free(model);
		fb_dataset_free(zeros);
	}
	return FB_OK;
}

/* The state common to every kind: clients over the given datasets (NULL for a client whose
 * half runs in another process), the outer loop. */
static int fd_build(fb_run *run, enum fd_kind kind, const fb_dataset *const *data, size_t k,
                    fb_error *err)
{
	fd_state *st = fb_xcalloc(1, sizeof *st);
	fb_mcsl_options o;

	run->state = st;
	st->kind = kind;
	st->k = k;
	st->d = run->data->d;
	fd_options(run, &o);
	fd_alm(run, kind, st->d, &st->alm);
	st->tau = o.tau;
	st->it_in = (size_t)fb_params_int(&run->params, "it_in");
	st->it_fl = kind == FD_MCSL ? st->it_in : (size_t)fb_params_int(&run->params, "it_fl");
	st->threshold = fb_params_double(&run->params, "threshold");
	st->with_net = kind == FD_AS;
	st->names = fb_dataset_names(run->data);
	st->model = o.model;
	if (fb_honour_roles(o.knowledge, st->d, &st->role, err) != FB_OK)
		return FB_ERR;
	st->clients = fb_xcalloc(k, sizeof *st->clients);
	st->loss = fb_xcalloc(k, sizeof *st->loss);
	st->dist = fb_xcalloc(k, sizeof *st->dist);
	st->sent = fb_xcalloc(k, sizeof *st->sent);
	st->drop_rng = fb_xcalloc(k, sizeof *st->drop_rng);
	for (size_t c = 0; c < k; c++) {
		st->loss[c] = st->dist[c] = NAN;
		if (data[c] == NULL)
			continue; /* its half runs in another process */
		if ((st->clients[c] = fb_mcsl_client_alloc(data[c], c, &o, err)) == NULL)
			return FB_ERR;
		st->drop_rng[c] = fb_rng_stream(run->fedopt.seed, "dropout");
	}
	if (fd_opening(st, data, k, &o, err) != FB_OK)
		return FB_ERR;
	st->h_rng = fb_rng_stream(run->fedopt.seed, "mcsl-h");
	return FB_OK;
}

/* Start mcsl on the run's dataset. */
static int mcsl_create(fb_run *run, fb_error *err)
{
	const fb_dataset *data[1] = { run->data };

	return fd_build(run, FD_MCSL, data, 1, err);
}

/* Start a FedDAG kind over the split's clients; the opening broadcast is the common start. */
static int fd_create_kind(fb_run *run, enum fd_kind kind, fb_error *err)
{
	const fb_dataset **data = fb_xcalloc(run->part->k, sizeof *data);
	fd_state *st;
	int ret;
	int64_t r = fb_params_int(&run->params, "r");

	for (size_t c = 0; c < run->part->k; c++)
		data[c] = fb_fed_local(run->fed, c) ? run->part->clients[c].data : NULL;
	ret = fd_build(run, kind, data, run->part->k, err);
	free(data);
	if (ret != FB_OK)
		return FB_ERR;
	st = run->state;
	if ((size_t)r > st->k)
		return fb_fail(err, "'r' is %lld but the split has only %zu clients", (long long)r,
		               st->k);
	st->dropout = fb_params_double(&run->params, "dropout");
	fb_fed_set_draw(run->fed, (size_t)r);
	fb_fed_set_everyone(run->fed, true);
	memcpy(fb_msg_doubles(fb_fed_broadcast(run->fed), st->wire), st->avg,
	       st->wire * sizeof *st->avg);
	return FB_OK;
}

/* gs-feddag. */
static int gs_create(fb_run *run, fb_error *err)
{
	return fd_create_kind(run, FD_GS, err);
}

/* as-feddag. */
static int as_create(fb_run *run, fb_error *err)
{
	return fd_create_kind(run, FD_AS, err);
}

/* as-feddag-linear. */
static int lin_create(fb_run *run, fb_error *err)
{
	return fd_create_kind(run, FD_LINEAR, err);
}

/* Whether client k's reply is lost this round: every client draws the round's K chances
 * from its own copy of the shared "dropout" stream, in client order, and reads its own, so
 * that its draw is the one a single stream would give it wherever it runs. */
static bool fd_drops(fd_state *st, size_t k)
{
	bool mine = false;

	if (!(st->dropout > 0.0))
		return false;
	for (size_t c = 0; c < st->k; c++) {
		bool lost = gsl_rng_uniform(st->drop_rng[k]) < st->dropout;

		if (c == k)
			mine = lost;
	}
	return mine;
}

/* Client k's own figure, before it takes the broadcast: the distance of the graph part of
 * the reply it sent last round (its parameters have not moved since) from the average the
 * broadcast brings back; NaN when it sent none. */
static void fd_client_distance(fd_state *st, size_t k, const double *avg)
{
	size_t d2 = st->d * st->d;
	double *mine, s = 0.0;

	st->dist[k] = NAN;
	if (!st->sent[k])
		return;
	mine = fb_xmalloc(st->wire * sizeof *mine);
	fb_mcsl_wire_pack(st->clients[k], st->with_net, mine);
	for (size_t q = 0; q < d2; q++)
		s += (mine[q] - avg[q]) * (mine[q] - avg[q]);
	st->dist[k] = sqrt(s);
	free(mine);
}

/* Client k: take the broadcast (parameters, alpha, rho and its step count), take those steps
 * on its own rows, send its parameters (nothing when it drops out). */
static int fd_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	fd_state *st = state;
	fb_mcsl_client *c = st->clients[k];
	fb_mcsl_parts parts = { 0 };
	size_t steps;

	(void)local; /* the client's model was built on these very rows */
	if (down->nd != st->wire || down->nc != FD_NCONTROL ||
	    !(down->c[FD_C_STEPS] >= 1 && down->c[FD_C_STEPS] <= 1e8))
		return fb_fail(err, "feddag: the broadcast holds %zu numbers and %zu control "
		               "numbers, not %zu and %d", down->nd, down->nc, st->wire, FD_NCONTROL);
	fd_client_distance(st, k, down->d);
	fb_mcsl_wire_unpack(c, st->with_net, down->d);
	steps = (size_t)down->c[FD_C_STEPS];
	for (size_t i = 0; i < steps; i++)
		if (fb_mcsl_client_step(c, down->c[FD_C_ALPHA], down->c[FD_C_RHO], &parts,
		                        err) != FB_OK)
			return FB_ERR;
	*figure = parts.loss;
	st->sent[k] = !fd_drops(st, k);
	if (!st->sent[k]) {
		st->dist[k] = NAN;
		fb_msg_doubles(up, 0);
		return FB_OK;
	}
	fb_mcsl_wire_pack(c, st->with_net, fb_msg_doubles(up, st->wire));
	return FB_OK;
}

/* Server: the mean of the replies that arrived, from their sum alone (the federation adds
 * them in client order); with none, the last broadcast stands. */
static int fd_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fd_state *st = state;

	(void)err;
	st->heard = in->count;
	st->dropped = in->silent;
	if (st->heard == 0) {
		memcpy(st->avg, down->d, st->wire * sizeof *st->avg);
		return FB_OK;
	}
	for (size_t q = 0; q < st->wire; q++)
		st->avg[q] = in->sum[q] / (double)st->heard;
	fb_mcsl_pin(st->role, st->d, st->model, st->tau, st->avg);
	memcpy(fb_msg_doubles(down, st->wire), st->avg, st->wire * sizeof *st->avg);
	return FB_OK;
}

/* The numbers of each reply the server sums. */
static size_t fd_sum_len(const void *state)
{
	return ((const fd_state *)state)->wire;
}

/* The two halves: the server needs only the sum of the replies. */
static const fb_fed_ops fd_ops = { .client = fd_client, .server_sum = fd_server,
	                           .sum_len = fd_sum_len };

/* The server's view of the graph after a sub-problem: h of the noiseless mask sigma(U/tau)
 * (h_mean; the paper's E[h(U)], in the sense in which its section 4.3 calls sigma(U/tau) the
 * mask's expectation), and h_new, the figure the outer loop moves on: h_mean itself (paper
 * loop) or h of one sampled mask (code loop, like the reference trainer's single sample). */
static int fd_h_estimate(fd_state *st, double *h_new, double *h_mean, fb_error *err)
{
	size_t d = st->d;
	double *P = fb_xcalloc(d * d, sizeof *P);
	int ret;

	if (st->kind == FD_LINEAR)
		memcpy(P, st->avg, d * d * sizeof *P);
	else
		fb_mcsl_mask_mean(st->avg, d, st->tau, P);
	ret = fb_mcsl_h(P, d, h_mean, err);
	*h_new = *h_mean;
	if (ret == FB_OK && st->kind != FD_LINEAR && st->alm.loop == FB_MCSL_LOOP_CODE)
		ret = fb_mcsl_h_expected(st->avg, d, st->tau, st->h_rng, 1, h_new, err);
	free(P);
	return ret;
}

/* After a round: count the steps, and at the end of a sub-problem move the outer loop. */
static int fd_after(fd_state *st, fb_error *err)
{
	double h_new, h_mean;

	st->done_in += st->n_this;
	st->steps += st->n_this;
	if (st->done_in < st->it_in)
		return FB_OK;
	if (fd_h_estimate(st, &h_new, &h_mean, err) != FB_OK)
		return FB_ERR;
	st->h_est = h_new;
	fb_mcsl_alm_update(&st->alm, h_new, h_mean);
	st->done_in = 0;
	return FB_OK;
}

/* The round's figures. */
static void fd_figures(const fd_state *st, double *fig)
{
	double sum = 0.0, hm;
	size_t n = 0;
	double *P = fb_xcalloc(st->d * st->d, sizeof *P);
	fb_error err;

	for (size_t c = 0; c < st->k; c++)
		if (!isnan(st->loss[c]))
			sum += st->loss[c], n++;
	if (st->kind == FD_LINEAR)
		memcpy(P, st->avg, st->d * st->d * sizeof *P);
	else
		fb_mcsl_mask_mean(st->avg, st->d, st->tau, P);
	fig[0] = n > 0 ? sum / (double)n : NAN;
	fig[1] = fb_mcsl_h(P, st->d, &hm, &err) == FB_OK ? hm : NAN;
	fig[2] = st->h_est;
	fig[3] = st->alm.rho;
	fig[4] = st->alm.alpha;
	fig[5] = (double)st->alm.outer;
	fig[6] = (double)st->steps;
	fig[7] = (double)st->heard;
	fig[8] = (double)st->dropped;
	free(P);
}

/* What travels, in words. */
static const char *fd_what(const fd_state *st)
{
	return st->kind == FD_LINEAR ? "weight matrix W"
	       : st->with_net        ? "mask logits and network weights"
	                             : "mask logits";
}

/* The round in words: who trained and sent what, what the server made of it. */
static void fd_say(fb_run *run, const fd_state *st, const double *fig)
{
	fb_run_say(run, "%zu clients took %zu optimiser steps on their own rows and sent their "
	           "%s (%zu numbers); the server averaged the %zu that arrived (%zu lost): h of "
	           "the shared graph = %.3g (0 means no cycle), penalty rho = %.3g",
	           st->heard + st->dropped, st->n_this, fd_what(st), st->wire, st->heard,
	           st->dropped, fig[1], st->alm.rho);
}

/* The largest number of variables whose graph part of a message is written out. */
#define FD_TEXT_MAX_D 12

/* A message in words: its graph part as the noiseless mask sigma(U / tau) (or W for the
 * linear model), row by row, for d <= FD_TEXT_MAX_D; the network weights are only counted. */
static void fd_message(const fb_run *run, enum fb_dir dir, const fb_msg *m, fb_buf *out)
{
	const fd_state *st = run->state;
	size_t d = st->d;
	double *P;

	if (d > FD_TEXT_MAX_D || m->nd < d * d)
		return;
	P = fb_xcalloc(d * d, sizeof *P);
	if (st->kind == FD_LINEAR)
		memcpy(P, m->d, d * d * sizeof *P);
	else
		fb_mcsl_mask_mean(m->d, d, st->tau, P);
	fb_buf_printf(out, "%s%s (row: parent, column: child; edges where above %g)%s",
	              dir == FB_UP ? "the client's " : "the server's average: ",
	              st->kind == FD_LINEAR ? "W" : "mask sigma(U/tau)", st->threshold,
	              m->nd > d * d ? "" : ":");
	if (m->nd > d * d)
		fb_buf_printf(out, ", then %zu network weights (not shown):", m->nd - d * d);
	fb_run_matrix_text(run, P, d, out);
	free(P);
}

/* One aggregation round through the federation. */
static int fd_step(fb_run *run, double *fig, fb_error *err)
{
	fd_state *st = run->state;
	double control[FD_NCONTROL];

	st->n_this = st->it_in - st->done_in < st->it_fl ? st->it_in - st->done_in : st->it_fl;
	control[FD_C_ALPHA] = st->alm.alpha;
	control[FD_C_RHO] = st->alm.rho;
	control[FD_C_STEPS] = (double)st->n_this;
	fb_msg_control(fb_fed_broadcast(run->fed), control, FD_NCONTROL);
	if (fb_fed_round(run->fed, &fd_ops, st, err) != FB_OK)
		return FB_ERR;
	for (size_t c = 0; c < st->k; c++) /* what each client ran on reports its objective */
		st->loss[c] = fb_fed_gone(run->fed, c) ? NAN : fb_fed_client_figure(run->fed, c);
	if (fd_after(st, err) != FB_OK)
		return FB_ERR;
	fd_figures(st, fig);
	fd_say(run, st, fig);
	return FB_OK;
}

/* mcsl: one outer iteration, i.e. one sub-problem of it_in steps (more under the code loop,
 * while rho grows). */
static int mcsl_step(fb_run *run, double *fig, fb_error *err)
{
	fd_state *st = run->state;
	size_t outer = st->alm.outer, before = st->steps;

	st->n_this = st->it_in;
	while (st->alm.outer == outer && !st->alm.done) {
		for (size_t i = 0; i < st->it_in; i++)
			if (fb_mcsl_client_step(st->clients[0], st->alm.alpha, st->alm.rho, &st->last,
			                        err) != FB_OK)
				return FB_ERR;
		st->loss[0] = st->last.loss;
		fb_mcsl_wire_pack(st->clients[0], false, st->avg);
		if (fd_after(st, err) != FB_OK)
			return FB_ERR;
	}
	fd_figures(st, fig);
	fig[6] = (double)(st->steps - before);
	fb_run_say(run, "outer iteration %zu: %zu optimiser steps on the masked networks; h of the "
	           "noiseless mask = %.3g (0 means no cycle), penalty rho now %.3g", outer + 1,
	           st->steps - before, fig[1], st->alm.rho);
	return FB_OK;
}

/* Finished when the outer loop is. */
static bool fd_done(const fb_run *run)
{
	return ((const fd_state *)run->state)->alm.done;
}

/* The server's noiseless mask sigma(U / tau), or W. */
static int fd_weights(const fb_run *run, double *w, fb_error *err)
{
	const fd_state *st = run->state;

	(void)err;
	if (st->kind == FD_LINEAR)
		memcpy(w, st->avg, st->d * st->d * sizeof *w);
	else
		fb_mcsl_mask_mean(st->avg, st->d, st->tau, w);
	return FB_OK;
}

/* Edges where the noiseless mask (|W|) passes the threshold, weakest dropped until acyclic. */
static fb_graph *fd_result(const fb_run *run, fb_error *err)
{
	const fd_state *st = run->state;
	gsl_matrix *P = gsl_matrix_alloc(st->d, st->d);
	fb_graph *g;

	fd_weights(run, P->data, err);
	g = fb_honour_weights_dag(P, st->threshold, st->names, fb_run_knowledge(run), NULL,
	                          err);
	gsl_matrix_free(P);
	return g;
}

/* Threshold at t from now on. */
static void fd_rethreshold(fb_run *run, double t)
{
	((fd_state *)run->state)->threshold = t;
}

/* Free the state. */
static void fd_destroy(fb_run *run)
{
	fd_state *st = run->state;

	for (size_t c = 0; st->clients != NULL && c < st->k; c++)
		fb_mcsl_client_free(st->clients[c]);
	free(st->clients);
	free(st->loss);
	free(st->dist);
	free(st->sent);
	free(st->avg);
	gsl_rng_free(st->h_rng);
	for (size_t c = 0; st->drop_rng != NULL && c < st->k; c++)
		gsl_rng_free(st->drop_rng[c]);
	free(st->drop_rng);
	fb_names_free(st->names, st->d);
	free(st->role);
	free(st);
	run->state = NULL;
}

/* How the graph is made. */
static const char *fd_note(const fb_run *run)
{
	if (((const fd_state *)run->state)->kind == FD_LINEAR)
		return "weights with |w| <= threshold dropped, then the smallest removed until acyclic";
	return "edges where sigma(U/tau) > threshold, then the weakest removed until acyclic";
}

/* Client k's local objective at its last step and its own distance figure (fd_state.dist);
 * FB_ERR when the run is no FedDAG run or k is out of range. */
int fb_feddag_client(const fb_run *run, size_t k, double *loss, double *dist)
{
	const fd_state *st;

	if (run == NULL || run->state == NULL || run->algo->step != fd_step)
		return FB_ERR;
	st = run->state;
	if (k >= st->k)
		return FB_ERR;
	*loss = st->loss[k];
	*dist = st->dist[k];
	return FB_OK;
}

/* Whether a client's reply of this many bytes (a trace record's sent[k]) carried its
 * parameters: a client whose reply was lost sends an empty message, which is shorter than the
 * parameters alone whatever the link adds around it.  False for a run that is no FedDAG run. */
bool fb_feddag_replied(const fb_run *run, size_t bytes)
{
	const fd_state *st;

	if (run == NULL || run->state == NULL || run->algo->step != fd_step)
		return false;
	st = run->state;
	return bytes >= st->wire * sizeof(double);
}

/* Client k's flat networks (NULL for the linear model or a bad run or k). */
const double *fb_feddag_client_net(const fb_run *run, size_t k, size_t *len)
{
	const fd_state *st;

	*len = 0;
	if (run == NULL || run->state == NULL || (run->algo->step != fd_step &&
	                                          run->algo->step != mcsl_step))
		return NULL;
	st = run->state;
	return k < st->k ? fb_mcsl_client_net(st->clients[k], len) : NULL;
}

/* The figures of each round. */
static const char *const fd_figure_names[] = { "loss", "h", "h_est", "rho", "alpha", "outer",
	                                       "steps", "heard", "dropped", NULL };

/* The parameter lines every masked learner shares (Tables 6 and 7, App. B.5). */
#define FD_MASKED_PARAMS \
	{ "lambda", FB_PARAM_DOUBLE, "0.01", 0, 1e6, NULL, "l1 penalty on the mask" }, \
	{ "rho_init", FB_PARAM_DOUBLE, "0", 0, 1e300, NULL, \
	  "initial penalty on h (0: the paper's Table 7 by d)" }, \
	{ "beta", FB_PARAM_DOUBLE, "0", 0, 1e6, NULL, "growth of rho (0: Table 7 by d)" }, \
	{ "alpha_init", FB_PARAM_DOUBLE, "0", -1e300, 1e300, NULL, "initial multiplier" }, \
	{ "gamma", FB_PARAM_DOUBLE, "0.25", 0, 1, NULL, \
	  "rho grows unless h dropped below gamma times its last value" }, \
	{ "rho_max", FB_PARAM_DOUBLE, "1e14", 1e-300, 1e300, NULL, "stop once rho passes this" }, \
	{ "h_tol", FB_PARAM_DOUBLE, "1e-10", 0, 1, NULL, "stop once h is below this" }, \
	{ "it_max", FB_PARAM_INT, "25", 1, 1e6, NULL, "most outer iterations" }, \
	{ "it_in", FB_PARAM_INT, "1000", 1, 1e8, NULL, "optimiser steps per sub-problem" }, \
	{ "lr", FB_PARAM_DOUBLE, "0.03", 1e-12, 1e3, NULL, "Adam step size" }, \
	{ "tau", FB_PARAM_DOUBLE, "0.2", 1e-6, 1e6, NULL, "Gumbel-sigmoid temperature" }, \
	{ "hidden", FB_PARAM_INT, "16", 1, 4096, NULL, "units per hidden layer" }, \
	{ "layers", FB_PARAM_INT, "4", 1, 64, NULL, "hidden layers per network" }, \
	{ "loop", FB_PARAM_CHOICE, "paper", 0, 0, fd_loops, \
	  "paper: one sub-problem per outer iteration (Algorithm 1); code: the reference trainer, " \
	  "which re-runs it under a larger rho until h drops enough" }, \
	{ "init_iter", FB_PARAM_INT, "3", 0, 1e6, NULL, \
	  "code loop: no early stop within this many outer iterations" }, \
	{ "threshold", FB_PARAM_DOUBLE, "0.5", 0, 1, NULL, \
	  "edge where the noiseless mask sigma(U/tau) is above this" }, \
	FD_COMMON_PARAMS

/* The lines of every learner here. */
#define FD_COMMON_PARAMS \
	{ "optimizer", FB_PARAM_CHOICE, "adam", 0, 0, fd_optimizers, \
	  "adam, or gd: plain gradient steps of size lr (with it_fl=1, every client and equal " \
	  "sizes, as-feddag then equals mcsl on the pooled rows)" }, \
	{ "noise", FB_PARAM_CHOICE, "client", 0, 0, fd_noises, \
	  "client: each client draws its own mask noise; common: all draw the one sequence " \
	  "mcsl draws with noise=common" }

/* The federation's lines. */
#define FD_FED_PARAMS(it_fl) \
	{ "it_fl", FB_PARAM_INT, it_fl, 1, 1e8, NULL, "optimiser steps between aggregations" }, \
	{ "r", FB_PARAM_INT, "0", 0, 1e6, NULL, \
	  "clients drawn per aggregation (0: every client)" }, \
	{ "dropout", FB_PARAM_DOUBLE, "0", 0, 1, NULL, \
	  "chance that a drawn client's reply is lost in a round" }

/* mcsl's parameters. */
static const fb_param_def mcsl_params[] = { FD_MASKED_PARAMS, { 0 } };
/* gs-feddag's and as-feddag's parameters. */
static const fb_param_def fd_params[] = { FD_MASKED_PARAMS, FD_FED_PARAMS("200"), { 0 } };

/* as-feddag-linear's parameters: the reference code's defaults (the paper gives none). */
static const fb_param_def lin_params[] = {
	{ "lambda", FB_PARAM_DOUBLE, "0.1", 0, 1e6, NULL, "l1 penalty on W" },
	{ "rho_init", FB_PARAM_DOUBLE, "1", 1e-300, 1e300, NULL, "initial penalty on h" },
	{ "beta", FB_PARAM_DOUBLE, "10", 1, 1e6, NULL, "growth of rho" },
	{ "alpha_init", FB_PARAM_DOUBLE, "0", -1e300, 1e300, NULL, "initial multiplier" },
	{ "gamma", FB_PARAM_DOUBLE, "0.25", 0, 1, NULL,
	  "rho grows unless h dropped below gamma times its last value" },
	{ "rho_max", FB_PARAM_DOUBLE, "1e16", 1e-300, 1e300, NULL, "stop once rho reaches this" },
	{ "h_tol", FB_PARAM_DOUBLE, "1e-8", 0, 1, NULL, "stop once h is at most this" },
	{ "it_max", FB_PARAM_INT, "20", 1, 1e6, NULL, "most outer iterations" },
	{ "it_in", FB_PARAM_INT, "1500", 1, 1e8, NULL, "optimiser steps per sub-problem" },
	{ "lr", FB_PARAM_DOUBLE, "0.001", 1e-12, 1e3, NULL, "Adam step size" },
	{ "loop", FB_PARAM_CHOICE, "code", 0, 0, fd_loops,
	  "code: the reference trainer (its defaults come with it); paper: Algorithm 1" },
	{ "init_iter", FB_PARAM_INT, "3", 0, 1e6, NULL,
	  "code loop: no early stop within this many outer iterations" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL, "weights with |w| at most this are no edge" },
	FD_COMMON_PARAMS,
	FD_FED_PARAMS("300"),
	{ 0 },
};

/* The defaults of a table, read into options. */
static void fd_options_defaults(const fb_param_def *defs, fb_mcsl_options *o)
{
	fb_params p = fb_params_defaults(defs);

	fb_mcsl_options_from_params(&p, o);
	fb_params_release(&p);
}

/* mcsl's defaults. */
void fb_mcsl_options_init(fb_mcsl_options *o)
{
	fd_options_defaults(mcsl_params, o);
}

/* as-feddag-linear's defaults. */
void fb_mcsl_linear_options_init(fb_mcsl_options *o)
{
	fd_options_defaults(lin_params, o);
}

/* The MCSL learners' options, read from their parameters. */
FB_ALGO_OPTIONS(mcsl_options, fb_mcsl_options, fb_mcsl_options_init,
		fb_mcsl_options_from_params);

const fb_algo fb_algo_mcsl = {
	.name = "mcsl", .summary = "MCSL: masked gradient-based causal structure learning",
	.intro = "Learns a causal graph on one dataset with neural networks: each variable gets "
	         "a small network that predicts it from the others, seen through a learnable "
	         "mask of possible edges, while a penalty pushes the mask towards having no "
	         "cycles. The mask's entries above one half are the edges.",
	.help = "MCSL (Ng et al. 2022) as the FedDAG paper runs it: logits U, a Gumbel-sigmoid "
	        "mask with fresh noise at every step (tau 0.2), one 4 x 16 LeakyReLU network per "
	        "variable on its masked inputs, squared loss plus l1 on the mask plus the "
	        "augmented Lagrangian of h(M o M), by Adam (lr 0.03, full batch, it_in steps per "
	        "sub-problem). One round is one outer iteration; rho_init and beta follow the "
	        "paper's Table 7 by d unless set (10, 20 or 40 nodes: the nearest). The paper "
	        "loop moves alpha and rho on h of the noiseless mask sigma(U/tau), the code loop "
	        "on h of one sampled mask. Networks start Glorot-uniform over their d - 1 inputs "
	        "from the seed's 'mcsl-init' stream, U at 0.",
	.flags = FB_ALGO_LOCAL | FB_ALGO_WEIGHTED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = mcsl_params, .figures = fd_figure_names,
	.create = mcsl_create, .step = mcsl_step, .done = fd_done, .result = fd_result,
	.destroy = fd_destroy, .note = fd_note, .weights = fd_weights,
	.rethreshold = fd_rethreshold,
	.options = &mcsl_options,
};

const fb_algo fb_algo_gs_feddag = {
	.name = "gs-feddag", .summary = "GS-FedDAG: a shared graph mask, personal networks",
	.intro = "Learns one causal graph from clients whose data may follow different "
	         "mechanisms. Every client fits its own networks to its own rows through a "
	         "shared mask of possible edges; only the mask's logits travel, and the server "
	         "averages them.",
	.help = "GS-FedDAG (Gao et al., TMLR 2023): each client runs MCSL's Adam steps on its own "
	        "rows; every it_fl steps the server averages the logits U of r drawn clients and "
	        "broadcasts them to all; the networks stay with their clients. One round is one "
	        "aggregation; after it_in steps the server moves alpha and rho. d x d numbers "
	        "travel per client per round (8 bytes each in the ledger; the reference sends "
	        "float32). The server's average is the plain mean of the replies that arrived; "
	        "every client starts from the same networks and keeps its own Adam state.",
	.flags = FB_ALGO_WEIGHTED | FB_ALGO_PARTIAL | FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = fd_params, .figures = fd_figure_names, .client_figure = "loss",
	.create = gs_create, .step = fd_step, .done = fd_done, .result = fd_result,
	.destroy = fd_destroy, .note = fd_note, .weights = fd_weights,
	.rethreshold = fd_rethreshold,
	.message = fd_message,
	.options = &mcsl_options, .detail = FB_DETAIL_MASK,
};

const fb_algo fb_algo_as_feddag = {
	.name = "as-feddag", .summary = "AS-FedDAG: the graph mask and the networks all shared",
	.intro = "Learns one causal graph from clients whose data follow the same mechanisms. "
	         "Every client fits the networks and the mask of possible edges to its own rows; "
	         "the server averages both (federated averaging) and sends them back.",
	.help = "AS-FedDAG (Gao et al., TMLR 2023): as gs-feddag, but every it_fl steps the "
	        "server averages the logits U and every network weight of the drawn clients. "
	        "d^2 + d(16d + 833) numbers travel per client per round with the defaults.",
	.flags = FB_ALGO_WEIGHTED | FB_ALGO_PARTIAL | FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = fd_params, .figures = fd_figure_names, .client_figure = "loss",
	.create = as_create, .step = fd_step, .done = fd_done, .result = fd_result,
	.destroy = fd_destroy, .note = fd_note, .weights = fd_weights,
	.rethreshold = fd_rethreshold,
	.message = fd_message,
	.options = &mcsl_options, .detail = FB_DETAIL_MASK,
};

/* as-feddag-linear's options: the linear defaults, read as MCSL's. */
FB_ALGO_OPTIONS(mcsl_linear_options, fb_mcsl_options, fb_mcsl_linear_options_init,
		fb_mcsl_options_from_params);

const fb_algo fb_algo_as_feddag_linear = {
	.name = "as-feddag-linear", .summary = "AS-FedDAG's linear variant: one shared weight matrix",
	.intro = "Learns one linear causal graph from clients: each fits a weight matrix to its "
	         "own rows by gradient steps, and the server averages the matrices.",
	.help = "The linear AS-FedDAG of the FedDAG paper's Table 1: least squares on X W with "
	        "l1 and the augmented Lagrangian of h(W o W), Adam steps on each client, W "
	        "averaged every it_fl steps. The paper gives no settings; the defaults are the "
	        "reference code's (lr 1e-3, lambda 0.1, it_in 1500, it_fl 300, rho 1 x 10, "
	        "threshold 0.3, its own outer loop).",
	.flags = FB_ALGO_WEIGHTED | FB_ALGO_PARTIAL | FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = lin_params, .figures = fd_figure_names, .client_figure = "loss",
	.create = lin_create, .step = fd_step, .done = fd_done, .result = fd_result,
	.destroy = fd_destroy, .note = fd_note, .weights = fd_weights,
	.rethreshold = fd_rethreshold,
	.message = fd_message,
	.options = &mcsl_linear_options, .detail = FB_DETAIL_MASK,
};
