/* The federation: rounds of broadcast, client replies and server step, moved by a transport
 * and counted in the ledger.  The in-process transport runs clients on a few threads; each
 * client writes only its own reply, so the result does not depend on the thread count. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/fed.h"
#include "fedbn/secure.h"

/* The federation. */
struct fb_federation {
	const fb_partition *part;   /* the clients' data (not owned) */
	fb_transport *tr;           /* how messages move: another process's clients, or NULL:
	                               in this process, on threads */
	fb_fed_options opt;         /* threads, share, seed */
	gsl_rng *rng;               /* the "participation" stream */
	size_t rounds;              /* rounds completed */
	fb_msg down;                /* the next broadcast */
	fb_msg round_down;          /* the broadcast of the last round */
	fb_msg *up;                 /* k replies of the current round */
	bool *part_now;             /* k flags: taking part in the current round */
	double *figure;             /* k client figures, last round each took part */
	int *status;                /* k client results of the current round */
	fb_error *errs;             /* k client errors of the current round */
	size_t *bytes;              /* 2k: bytes down, then up, of each client this round */
	fb_ledger ledger;           /* every message */
	size_t draw;                /* clients drawn per round (0: from opt.share) */
	bool everyone;              /* every client computes each round; only the drawn ones'
	                               replies reach the server, the broadcast reaches all */
	bool *computes;             /* k flags: runs its half in the current round */
	bool partial;               /* fewer clients are drawn per round than there are */
	bool tolerant;              /* a lost client is left out even when every client is
	                               drawn (fb_fed_set_tolerant) */
	bool *gone;                 /* k flags: stopped answering, left out from then on */
	bool *lost;                 /* k flags: stopped answering in the current round */
	fb_buf news;                /* what befell the clients in the last round, or empty */
	double exchange_s;          /* wall seconds of the last round's exchange */
	double *client_s;           /* k: seconds each client's half took here last round */
	const fb_fed_ops *halves;   /* a client process: the algorithm's halves, or NULL */
	void *halves_state;         /* and their state */
	fb_secure_server *sec;      /* secure aggregation's server side, or NULL: sums in the
	                               clear */
	fb_secure_client **sec_client; /* k: each in-process client's side (NULL remote) */
	size_t sec_bytes[2];        /* secure aggregation's own bytes down and up */
	size_t sec_exchanges;       /* and its exchanges of its own */
	size_t saw_clients, saw_n;  /* the last secure sum: the masked vectors in it, their
	                               numbers (0: the last round had none) */
	bool saw_lost;              /* lost clients' masks came off in it */
	size_t dp_releases;         /* noisy sums released so far (differential privacy) */
	double *last_sum;           /* the sum the last round's summed server half was handed */
	size_t last_n, last_count;  /* its numbers and clients (last_n 0: the last round's
	                               server was handed the replies themselves) */
};

/* One worker's share of a round: clients first, first + stride, ... */
typedef struct worker {
	fb_federation *f;        /* the federation */
	const fb_fed_ops *ops;   /* the algorithm's halves */
	void *state;             /* the algorithm's state */
	size_t first, stride;    /* which clients */
	bool secure;             /* through secure aggregation's client side */
} worker;

/* Under dp_epsilon= no client's own figure reaches the server (a row count or a local loss
 * would bypass the noise): each is withheld as NAN before anything reads it. */
static void withhold_figures(fb_federation *f)
{
	if (f->opt.dp_epsilon <= 0)
		return;
	for (size_t c = 0; c < f->part->k; c++)
		f->figure[c] = NAN;
}

/* Run the client halves assigned to one worker. */
static void *run_clients(void *arg)
{
	worker *w = arg;
	fb_federation *f = w->f;

	for (size_t k = w->first; k < f->part->k; k += w->stride) {
		double t0;

		if (!f->computes[k])
			continue;
		t0 = fb_clock_now();
		if (w->secure)
			f->status[k] = fb_secure_answer(f->sec_client[k], w->ops, w->state, k,
			                                f->part->clients[k].data, &f->down, &f->up[k],
			                                &f->figure[k], &f->errs[k]);
		else
			f->status[k] = w->ops->client(w->state, k, f->part->clients[k].data, &f->down,
			                              &f->up[k], &f->figure[k], &f->errs[k]);
		f->client_s[k] = fb_clock_now() - t0;
	}
	return NULL;
}

/* In-process exchange: clients read the broadcast in place, on up to opt.threads threads;
 * the bytes counted are the messages' sizes. */
static void inproc_exchange(fb_federation *f, const fb_fed_ops *ops, void *state)
{
	size_t nt = f->opt.threads < f->part->k ? f->opt.threads : f->part->k;
	worker *w = fb_xcalloc(nt, sizeof *w);

	for (size_t t = 0; t < nt; t++)
		w[t] = (worker){ f, ops, state, t, nt, f->sec != NULL && ops->server_sum != NULL };
	fb_threads_run(run_clients, w, sizeof *w, nt);
	free(w);
	for (size_t c = 0; c < f->part->k; c++) {
		f->bytes[c] = fb_msg_size(&f->down);
		f->bytes[f->part->k + c] = fb_msg_size(&f->up[c]);
	}
}

/* A remote transport's round: the broadcast goes out, the replies come back. */
static int remote_exchange(fb_federation *f, size_t round, fb_error *err)
{
	size_t k = f->part->k;
	fb_round_io io = { k, round, &f->down, f->computes, f->up, f->figure, f->status,
	                   f->errs, f->bytes, f->bytes + k, f->part_now,
	                   f->partial || f->tolerant, f->lost };

	memset(f->lost, 0, k * sizeof *f->lost);

	return f->tr->exchange(f->tr, &io, err);
}

/* Defaults. */
void fb_fed_options_init(fb_fed_options *o)
{
	o->threads = 1;
	o->share = 1.0;
	o->seed = 1;
	o->secure = false;
	o->threshold = 0;
	o->secure_bits = 30;
	o->dp_epsilon = 0;
	o->dp_delta = 1e-5;
	o->dp_sigma = 10;
	o->dp_clip = 1;
}

/* Secure aggregation's sides in this process: the server's unless this is a client's
 * process, each client's when they run here. */
static int secure_alloc(fb_federation *f, fb_error *err)
{
	size_t k = f->part->k;

	if (!f->opt.secure && f->opt.dp_epsilon > 0)
		return fb_fail(err, "dp_epsilon= adds its noise inside secure aggregation: set "
		               "secure=yes too");
	if (!f->opt.secure)
		return FB_OK;
	if (fb_secure_check(&f->opt, k, err) != FB_OK)
		return FB_ERR;
	if (f->tr != NULL && f->tr->local < k)
		return FB_OK; /* a client process: its side lives with its protocol */
	f->sec = fb_secure_server_new(k, &f->opt);
	if (f->tr == NULL) {
		f->sec_client = fb_xcalloc(k, sizeof *f->sec_client);
		for (size_t c = 0; c < k; c++)
			f->sec_client[c] = fb_secure_client_new(k, c, &f->opt);
	}
	return FB_OK;
}

/* A federation over p. */
fb_federation *fb_fed_alloc(const fb_partition *p, const fb_fed_options *o, fb_error *err)
{
	fb_federation *f;

	if (p == NULL || p->k == 0)
		return fb_fail(err, "a federation needs a split with at least one client"), NULL;
	if (!(o->share > 0.0 && o->share <= 1.0))
		return fb_fail(err, "participation share %g is not in (0, 1]", o->share), NULL;
	f = fb_xcalloc(1, sizeof *f);
	f->part = p;
	f->tr = p->transport;
	f->opt = *o;
	if (f->opt.threads == 0)
		f->opt.threads = 1;
	f->rng = fb_rng_stream(o->seed, "participation");
	f->up = fb_xcalloc(p->k, sizeof *f->up);
	f->part_now = fb_xcalloc(p->k, sizeof *f->part_now);
	f->computes = fb_xcalloc(p->k, sizeof *f->computes);
	f->figure = fb_xcalloc(p->k, sizeof *f->figure);
	f->status = fb_xcalloc(p->k, sizeof *f->status);
	f->errs = fb_xcalloc(p->k, sizeof *f->errs);
	f->bytes = fb_xcalloc(2 * p->k, sizeof *f->bytes);
	f->gone = fb_xcalloc(p->k, sizeof *f->gone);
	f->lost = fb_xcalloc(p->k, sizeof *f->lost);
	f->client_s = fb_xcalloc(p->k, sizeof *f->client_s);
	for (size_t k = 0; k < p->k; k++)
		f->figure[k] = NAN;
	if (secure_alloc(f, err) != FB_OK) {
		fb_fed_free(f);
		return NULL;
	}
	return f;
}

/* Free a federation. */
void fb_fed_free(fb_federation *f)
{
	if (f == NULL)
		return;
	for (size_t k = 0; k < f->part->k; k++)
		fb_msg_release(&f->up[k]);
	fb_msg_release(&f->down);
	fb_msg_release(&f->round_down);
	gsl_rng_free(f->rng);
	fb_ledger_release(&f->ledger);
	free(f->up);
	free(f->part_now);
	free(f->computes);
	free(f->figure);
	free(f->status);
	free(f->errs);
	free(f->bytes);
	free(f->gone);
	free(f->lost);
	free(f->client_s);
	fb_buf_release(&f->news);
	fb_secure_server_free(f->sec);
	for (size_t k = 0; f->sec_client != NULL && k < f->part->k; k++)
		fb_secure_client_free(f->sec_client[k]);
	free(f->sec_client);
	free(f->last_sum);
	free(f);
}

/* Clients gone in earlier rounds neither compute nor take part, drawn or not. */
static void leave_out_gone(fb_federation *f)
{
	for (size_t c = 0; c < f->part->k; c++)
		if (f->gone[c])
			f->computes[c] = f->part_now[c] = false;
}

/* Leave out the clients the transport lost this round, saying so in one sentence each;
 * FB_ERR once none is left. */
static int leave_out_lost(fb_federation *f, fb_error *err)
{
	size_t k = f->part->k, left = 0;

	for (size_t c = 0; c < k; c++) {
		if (!f->lost[c])
			continue;
		f->gone[c] = true;
		f->computes[c] = f->part_now[c] = false;
		f->figure[c] = NAN;
		fb_buf_printf(&f->news, "%s%s; the run goes on without it, as %s.",
		              f->news.len > 0 ? " " : "",
		              f->errs[c].msg[0] != '\0' ? f->errs[c].msg : "a client stopped answering",
		              f->partial ? "each round draws only some of the clients"
		                         : "the algorithm's sums may miss a client");
		fb_error_clear(&f->errs[c]);
	}
	for (size_t c = 0; c < k; c++)
		left += !f->gone[c];
	return left > 0 ? FB_OK : fb_fail(err, "every client has stopped answering");
}

/* Choose this round's clients: all, the set number, or ceil(share * K) drawn from the
 * stream; mark who computes. */
static void choose_clients(fb_federation *f)
{
	size_t k = f->part->k, m = f->draw > 0 ? f->draw : (size_t)ceil(f->opt.share * (double)k);
	size_t *idx;

	for (size_t c = 0; c < k; c++)
		f->computes[c] = true;
	f->partial = m < k;
	if (m >= k) {
		for (size_t c = 0; c < k; c++)
			f->part_now[c] = true;
		leave_out_gone(f);
		return;
	}
	idx = fb_xcalloc(k, sizeof *idx);
	for (size_t c = 0; c < k; c++) {
		idx[c] = c;
		f->part_now[c] = false;
	}
	fb_rng_shuffle(f->rng, idx, k);
	for (size_t c = 0; c < (m == 0 ? 1 : m); c++)
		f->part_now[idx[c]] = true;
	for (size_t c = 0; c < k && !f->everyone; c++)
		f->computes[c] = f->part_now[c];
	free(idx);
	leave_out_gone(f);
}

/* Draw m clients per round from now on (0: by the share). */
void fb_fed_set_draw(fb_federation *f, size_t m)
{
	f->draw = m;
}

/* Every client computes in every round; the draw picks whose replies count. */
void fb_fed_set_everyone(fb_federation *f, bool on)
{
	f->everyone = on;
}

/* Leave a lost client out instead of ending the run. */
void fb_fed_set_tolerant(fb_federation *f, bool on)
{
	f->tolerant = on;
}

/* Clear the clients' results, the news and the timings before a round. */
static void round_reset(fb_federation *f)
{
	for (size_t c = 0; c < f->part->k; c++) {
		f->status[c] = FB_OK;
		fb_error_clear(&f->errs[c]);
		f->client_s[c] = NAN;
	}
	f->news.len = 0;
	if (f->news.data != NULL)
		f->news.data[0] = '\0';
}

/* Record the round's messages in the ledger and point up[c] at each drawn client's reply. */
static void ledger_round(fb_federation *f, size_t round, const fb_msg **up)
{
	size_t k = f->part->k;

	for (size_t c = 0; c < k; c++) {
		if (f->computes[c] && !f->part_now[c]) {
			/* it ran its half undrawn: the broadcast reached it; over a transport between
			 * processes its figure came back, alone */
			fb_ledger_add(&f->ledger, round, FB_DOWN, c, f->bytes[c]);
			if (f->tr != NULL)
				fb_ledger_add(&f->ledger, round, FB_UP, c, f->bytes[k + c]);
		}
		if (!f->part_now[c])
			continue;
		fb_ledger_add(&f->ledger, round, FB_DOWN, c, f->bytes[c]);
		fb_ledger_add(&f->ledger, round, FB_UP, c, f->bytes[k + c]);
		up[c] = &f->up[c];
	}
}

/* What a side exchange of secure aggregation's own changes in the round's record, kept to
 * be put back: who takes part and computes, the figures and timings, the draw's leniency. */
typedef struct saved_round {
	bool *part_now, *computes;
	double *figure, *client_s;
	bool partial, tolerant;
} saved_round;

/* Keep the round's record (put back, and freed, by restore_round). */
static void save_round(const fb_federation *f, saved_round *sv)
{
	size_t k = f->part->k;

	sv->part_now = fb_xmalloc(k * sizeof *sv->part_now);
	sv->computes = fb_xmalloc(k * sizeof *sv->computes);
	sv->figure = fb_xmalloc(k * sizeof *sv->figure);
	sv->client_s = fb_xmalloc(k * sizeof *sv->client_s);
	memcpy(sv->part_now, f->part_now, k * sizeof *sv->part_now);
	memcpy(sv->computes, f->computes, k * sizeof *sv->computes);
	memcpy(sv->figure, f->figure, k * sizeof *sv->figure);
	memcpy(sv->client_s, f->client_s, k * sizeof *sv->client_s);
	sv->partial = f->partial;
	sv->tolerant = f->tolerant;
}

/* Put the round's record back. */
static void restore_round(fb_federation *f, saved_round *sv)
{
	size_t k = f->part->k;

	memcpy(f->part_now, sv->part_now, k * sizeof *sv->part_now);
	memcpy(f->computes, sv->computes, k * sizeof *sv->computes);
	memcpy(f->figure, sv->figure, k * sizeof *sv->figure);
	memcpy(f->client_s, sv->client_s, k * sizeof *sv->client_s);
	f->partial = sv->partial;
	f->tolerant = sv->tolerant;
	free(sv->part_now);
	free(sv->computes);
	free(sv->figure);
	free(sv->client_s);
}

/* One exchange of secure aggregation's own in round: msg to the clients flagged in to, their
 * answers left in f->up (ans[c] pointing at them, NULL for the others); its bytes go to the
 * secure tally, not the ledger.  FB_ERR naming a client that failed or did not answer. */
static int secure_exchange(fb_federation *f, const fb_fed_ops *ops, void *state, size_t round,
                           fb_msg *msg, const bool *to, const fb_msg **ans, fb_error *err)
{
	size_t k = f->part->k;
	fb_msg keep = f->down;
	saved_round sv;
	int ret = FB_OK;

	save_round(f, &sv);
	for (size_t c = 0; c < k; c++) {
		f->part_now[c] = f->computes[c] = to[c];
		f->status[c] = FB_OK;
		fb_error_clear(&f->errs[c]);
	}
	f->partial = f->tolerant = false;
	f->down = *msg;
	if (f->tr == NULL)
		inproc_exchange(f, ops, state);
	else
		ret = remote_exchange(f, round, err);
	f->down = keep;
	for (size_t c = 0; c < k; c++) {
		if (ret == FB_OK && to[c] && f->status[c] != FB_OK)
			ret = fb_fail(err, "client %zu: %s", c + 1, f->errs[c].msg);
		f->sec_bytes[FB_DOWN] += to[c] ? f->bytes[c] : 0;
		f->sec_bytes[FB_UP] += to[c] ? f->bytes[k + c] : 0;
		ans[c] = to[c] ? &f->up[c] : NULL;
	}
	f->sec_exchanges++;
	restore_round(f, &sv);
	return ret;
}

/* Secure aggregation's setup, before the first summed round: every client advertises its
 * public key, then sends its key's shares boxed to the others. */
static int secure_setup(fb_federation *f, const fb_fed_ops *ops, void *state, size_t round,
                        fb_error *err)
{
	size_t k = f->part->k;
	bool *all = fb_xcalloc(k, sizeof *all);
	const fb_msg **ans = fb_xcalloc(k, sizeof *ans);
	fb_msg msg = { 0 };
	int ret = FB_OK;

	for (size_t c = 0; c < k; c++)
		all[c] = !f->gone[c];
	for (int stage = FB_SECURE_KEYS; stage <= FB_SECURE_SHARES && ret == FB_OK; stage++) {
		fb_secure_setup_down(f->sec, (enum fb_secure_stage)stage, &msg);
		ret = secure_exchange(f, ops, state, round, &msg, all, ans, err);
		if (ret == FB_OK)
			ret = fb_secure_setup_take(f->sec, (enum fb_secure_stage)stage, ans, err);
	}
	fb_msg_release(&msg);
	free(ans);
	free(all);
	return ret;
}

/* The round's envelope and each masked vector's count are secure aggregation's bytes: moved
 * from the ledger's figures of the round to its own tally. */
static void secure_ledger(fb_federation *f, size_t env)
{
	size_t k = f->part->k;

	for (size_t c = 0; c < k; c++) {
		if (!f->computes[c] && !f->part_now[c])
			continue;
		f->bytes[c] -= f->bytes[c] >= env ? env : 0;
		f->sec_bytes[FB_DOWN] += env;
		if (f->part_now[c] && f->bytes[k + c] >= 8) {
			f->bytes[k + c] -= 8;
			f->sec_bytes[FB_UP] += 8;
		}
	}
}

/* The round's sum by secure aggregation; a client that took part and was lost has its masks
 * removed from the shares of the survivors, asked in an exchange of its own (the masked
 * vectors kept meanwhile). */
static int secure_sum(fb_federation *f, const fb_fed_ops *ops, void *state,
                      const fb_msg *const *up, double *sum, fb_fed_total *in, fb_error *err)
{
	size_t k = f->part->k;
	fb_msg ask = { 0 }, *kept = fb_xcalloc(k, sizeof *kept);
	bool *surv = fb_xcalloc(k, sizeof *surv);
	const fb_msg **ans = fb_xcalloc(k, sizeof *ans);
	int got;

	f->saw_lost = false;
	while ((got = fb_secure_sum(f->sec, up, sum, &in->count, &in->silent, &ask, surv,
	                            err)) == 1) {
		f->saw_lost = true;
		for (size_t c = 0; c < k; c++)
			fb_msg_copy(&kept[c], &f->up[c]);
		got = secure_exchange(f, ops, state, f->rounds + 1, &ask, surv, ans, err);
		if (got == FB_OK)
			got = fb_secure_recover(f->sec, ans, err);
		for (size_t c = 0; c < k; c++)
			fb_msg_copy(&f->up[c], &kept[c]);
		if (got != FB_OK)
			break;
	}
	f->saw_clients = 0;
	for (size_t c = 0; c < k; c++) {
		f->saw_clients += up[c] != NULL;
		fb_msg_release(&kept[c]);
	}
	f->saw_n = in->n;
	f->dp_releases += got == FB_OK && f->opt.dp_epsilon > 0;
	fb_msg_release(&ask);
	free(kept);
	free(surv);
	free(ans);
	return got;
}

/* The server half on the round's replies (up[c] NULL where client c's did not reach it):
 * handed the replies themselves, or, for an algorithm that declares its replies summable
 * (ops->server_sum), only their sum and count, formed by fb_fed_sum or by secure
 * aggregation. */
static int server_half(fb_federation *f, const fb_fed_ops *ops, void *state,
                       const fb_msg *const *up, fb_error *err)
{
	fb_fed_total in = { NULL, 0, 0, 0 };
	double *sum;
	int ret;

	f->last_n = 0;
	if (ops->server_sum == NULL)
		return ops->server(state, up, f->part->k, &f->down, err);
	in.n = ops->sum_len(state);
	in.sum = sum = fb_xcalloc(in.n > 0 ? in.n : 1, sizeof *sum);
	if (f->sec != NULL)
		ret = secure_sum(f, ops, state, up, sum, &in, err);
	else
		ret = fb_fed_sum(up, f->part->k, in.n, sum, &in.count, &in.silent, err);
	if (ret == FB_OK) {
		free(f->last_sum); /* kept as handed, for a view of what the server learnt */
		f->last_sum = fb_xmalloc((in.n > 0 ? in.n : 1) * sizeof *sum);
		memcpy(f->last_sum, sum, in.n * sizeof *sum);
		f->last_n = in.n;
		f->last_count = in.count;
		ret = ops->server_sum(state, &in, &f->down, err);
	}
	free(sum);
	return ret;
}

/* The epsilon of differential privacy spent after releases noisy sums. */
static double dp_spent(const fb_federation *f, size_t releases)
{
	return releases == 0 ? 0
	       : fb_dp_epsilon((double)releases * fb_dp_rho(f->opt.dp_sigma), f->opt.dp_delta);
}

/* Differential privacy: one more noisy sum must fit the budget; FB_ERR in one sentence when
 * it would not. */
static int dp_check(const fb_federation *f, fb_error *err)
{
	double next;

	if (f->opt.dp_epsilon <= 0)
		return FB_OK;
	next = dp_spent(f, f->dp_releases + 1);
	if (next <= f->opt.dp_epsilon)
		return FB_OK;
	return fb_fail(err, "the privacy budget is spent: epsilon %.3g of %g after %zu noisy "
	               "sum%s, and one more would take it to %.3g (raise dp_epsilon= or "
	               "dp_sigma=)", dp_spent(f, f->dp_releases), f->opt.dp_epsilon,
	               f->dp_releases, f->dp_releases == 1 ? "" : "s", next);
}

/* The round's exchange: the clients' halves here or over the transport; with secure
 * aggregation the broadcast carries the round's envelope (taken off again after), after the
 * keys were exchanged before the first summed round. */
static int round_exchange(fb_federation *f, const fb_fed_ops *ops, void *state, size_t round,
                          fb_error *err)
{
	bool secure = f->sec != NULL && ops->server_sum != NULL;
	size_t env = 0;
	int ret = FB_OK;

	if (secure && dp_check(f, err) != FB_OK)
		return FB_ERR;
	if (secure && !fb_secure_ready(f->sec) && secure_setup(f, ops, state, round, err) != FB_OK)
		return FB_ERR;
	choose_clients(f);
	round_reset(f);
	if (secure && fb_secure_wrap(f->sec, &f->down, round, ops->sum_len(state), f->part_now,
	                             err) != FB_OK)
		return FB_ERR;
	env = secure ? fb_secure_envelope_bytes(&f->down) : 0;
	f->saw_n = 0;
	f->exchange_s = fb_clock_now();
	if (f->tr == NULL)
		inproc_exchange(f, ops, state);
	else if (remote_exchange(f, round, err) != FB_OK || leave_out_lost(f, err) != FB_OK)
		ret = FB_ERR;
	f->exchange_s = fb_clock_now() - f->exchange_s;
	if (secure) {
		fb_secure_unwrap(&f->down);
		secure_ledger(f, env);
	}
	return ret;
}

/* One round: broadcast, clients, server; the ledger records both directions. */
int fb_fed_round(fb_federation *f, const fb_fed_ops *ops, void *state, fb_error *err)
{
	size_t k = f->part->k, round = f->rounds + 1;
	const fb_msg **up;
	int ret = FB_OK;

	if (f->tr != NULL && f->tr->local < k) { /* a client process: its own loop serves */
		f->halves = ops;
		f->halves_state = state;
		return fb_fail(err, "client %zu answers the server's rounds in its own loop",
		               f->tr->local + 1);
	}
	if (round_exchange(f, ops, state, round, err) != FB_OK)
		return FB_ERR;
	for (size_t c = 0; c < k && ret == FB_OK; c++)
		if (f->computes[c] && f->status[c] != FB_OK)
			ret = fb_fail(err, "client %zu: %s", c + 1, f->errs[c].msg);
	if (ret != FB_OK)
		return FB_ERR;
	withhold_figures(f);
	up = fb_xcalloc(k, sizeof *up);
	ledger_round(f, round, up);
	fb_msg_copy(&f->round_down, &f->down);
	if (server_half(f, ops, state, up, err) != FB_OK) {
		char why[FB_ERROR_MAX];

		snprintf(why, sizeof why, "%s", err != NULL ? err->msg : "");
		ret = fb_fail(err, "server: %s", why);
	}
	if (ret == FB_OK)
		f->rounds = round;
	free(up);
	return ret;
}

/* What the server of the last round received, when secure aggregation formed its sum. */
bool fb_fed_server_saw(const fb_federation *f, char *buf, size_t n)
{
	int len;

	if (f->sec == NULL || f->saw_n == 0)
		return false;
	len = snprintf(buf, n, "the server received %zu masked vectors of %zu numbers and their "
	               "sum, no client's own%s", f->saw_clients, f->saw_n,
	               f->saw_lost ? ", the masks of the lost clients removed from the "
	                             "survivors' shares" : "");
	if (f->opt.dp_epsilon > 0 && len > 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, ", with Gaussian noise: epsilon spent %.2f of "
		         "%g (delta %g)", dp_spent(f, f->dp_releases), f->opt.dp_epsilon,
		         f->opt.dp_delta);
	return true;
}

/* The sum the last round's summed server half was handed. */
const double *fb_fed_last_sum(const fb_federation *f, size_t *n, size_t *count)
{
	*n = f->last_n;
	*count = f->last_count;
	return f->last_n > 0 ? f->last_sum : NULL;
}

/* The epsilon spent so far. */
double fb_fed_dp_spent(const fb_federation *f)
{
	return dp_spent(f, f->dp_releases);
}

/* Secure aggregation's own bytes and exchanges. */
void fb_fed_secure_cost(const fb_federation *f, size_t *up, size_t *down, size_t *exchanges)
{
	*up = f->sec_bytes[FB_UP];
	*down = f->sec_bytes[FB_DOWN];
	*exchanges = f->sec_exchanges;
}

/* The next broadcast. */
fb_msg *fb_fed_broadcast(fb_federation *f)
{
	return &f->down;
}

/* Rounds completed. */
size_t fb_fed_rounds(const fb_federation *f)
{
	return f->rounds;
}

/* Number of clients. */
size_t fb_fed_k(const fb_federation *f)
{
	return f->part->k;
}

/* The ledger. */
const fb_ledger *fb_fed_ledger(const fb_federation *f)
{
	return &f->ledger;
}

/* Whether client k's half runs here. */
bool fb_fed_local(const fb_federation *f, size_t k)
{
	return f->tr == NULL || f->tr->local == k;
}

/* A client process: the halves its first round kept, and its data. */
int fb_fed_halves(const fb_federation *f, const fb_fed_ops **ops, void **state,
                  const fb_dataset **local)
{
	if (f->halves == NULL)
		return FB_ERR;
	*ops = f->halves;
	*state = f->halves_state;
	*local = f->part->clients[f->tr->local].data;
	return FB_OK;
}

/* Count the knowledge's words in the ledger: round 0, down, once per client. */
static void open_ledger(fb_federation *f, char *const *kw, size_t nk)
{
	size_t bytes = fb_fed_words_bytes(kw, nk);

	if (nk == 0)
		return;
	for (size_t c = 0; c < f->part->k; c++)
		fb_ledger_add(&f->ledger, 0, FB_DOWN, c, bytes);
}

/* Tell a remote federation's clients which run to build, the knowledge with it. */
int fb_fed_open(fb_federation *f, const char *algo, const fb_params *params,
                const fb_knowledge *k, fb_error *err)
{
	char **words, **kw;
	size_t n = 0, nk;
	int ret;

	if (f->tr != NULL && f->tr->local < f->part->k)
		return FB_OK;
	nk = fb_fed_knowledge_words(k, &kw);
	open_ledger(f, kw, nk);
	if (f->tr == NULL) {
		fb_names_free(kw, nk);
		return FB_OK;
	}
	words = fb_xcalloc(params->n + nk + 1, sizeof *words);
	for (size_t i = 0; i < params->n; i++)
		if (params->v[i].set && params->v[i].s != NULL)
			words[n++] = fb_xasprintf("%s=%s", params->defs[i].name, params->v[i].s);
	for (size_t i = 0; i < nk; i++)
		words[n++] = kw[i];
	free(kw);
	ret = f->tr->open(f->tr, algo, words, n, &f->opt, err);
	fb_names_free(words, n);
	return ret;
}

/* Wall seconds of the last round's exchange. */
double fb_fed_exchange_seconds(const fb_federation *f)
{
	return f->exchange_s;
}

/* Seconds client k's half took here in the last round. */
double fb_fed_client_seconds(const fb_federation *f, size_t k)
{
	return f->client_s[k];
}

/* What befell the clients in the last round. */
const char *fb_fed_news(const fb_federation *f)
{
	return f->news.len > 0 ? f->news.data : NULL;
}

/* Whether client k stopped answering and was left out. */
bool fb_fed_gone(const fb_federation *f, size_t k)
{
	return f->gone[k];
}

/* Whether client k took part in the last round. */
bool fb_fed_took_part(const fb_federation *f, size_t k)
{
	return f->part_now[k];
}

/* Client k's last figure. */
double fb_fed_client_figure(const fb_federation *f, size_t k)
{
	return f->figure[k];
}

/* The last round's broadcast. */
const fb_msg *fb_fed_round_down(const fb_federation *f)
{
	return &f->round_down;
}

/* Client k's message of the last round. */
const fb_msg *fb_fed_round_up(const fb_federation *f, size_t k)
{
	return f->part_now[k] ? &f->up[k] : NULL;
}
