/* Secure aggregation's protocol, the same in process and over a link: the envelope on the
 * server's messages, a client's answers to each stage (its masked vector in a summed
 * round), and the server's side: the keys and boxed shares it relays, the masked sum, and
 * the removal of a lost client's masks from the shares of the survivors. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/secure.h"
#include "secure-int.h"

/* The last four bytes of a message that carries an envelope. */
#define ENV_MAGIC UINT32_C(0x41534246) /* "FBSA" */
/* Bytes of the envelope's head (stage, clients, round, numbers) and of its tail (section
 * length, the algorithm's bytes, magic). */
#define ENV_HEAD 24
#define ENV_TAIL 12

/* A client's side. */
struct fb_secure_client {
	size_t k, me, t;            /* clients, this one, the threshold */
	unsigned bits;              /* fixed-point fraction bits */
	double dp_sd, dp_clip;      /* differential privacy: the sum's noise (0: none) and the
	                               vector's clip */
	double dp_sigma;            /* the noise in multiples of the sensitivity */
	unsigned char root[FB_SA_KEY], pk[FB_SA_KEY], sk[FB_SA_KEY];
	unsigned char *mask_seed;   /* k x FB_SA_KEY: the pair seeds with each other client */
	unsigned char *box_key;     /* k x FB_SA_KEY: the keys of the boxes with each */
	bool keyed;                 /* the others' keys have arrived */
};


/* Little-endian numbers in and out of bytes. */
static void put_u64(unsigned char *p, uint64_t v)
{
	for (int b = 0; b < 8; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

/* The 8 bytes at p as a number. */
uint64_t fb_sa_get_u64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int b = 0; b < 8; b++)
		v |= (uint64_t)p[b] << (8 * b);
	return v;
}

/* Four bytes at p. */
static void put_u32(unsigned char *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (unsigned char)(v >> (8 * b));
}

/* The 4 bytes at p as a number. */
static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)fb_sa_get_u64((const unsigned char[8]){ p[0], p[1], p[2], p[3] });
}

/* An envelope as read from a message. */
typedef struct envelope {
	enum fb_secure_stage stage;
	size_t k;                   /* clients */
	uint64_t round;             /* the round (the masks' nonce) */
	size_t n;                   /* numbers of a vector (summed rounds) */
	const unsigned char *flags; /* k: 1 takes part (2: lost, in a recovery) */
	const unsigned char *pay;   /* the stage's payload */
	size_t npay;                /* its bytes */
	fb_msg inner;               /* the algorithm's message inside (not owned) */
} envelope;

/* Append an envelope of stage to m: head, k flags, payload, tail. */
void fb_sa_env_put(fb_msg *m, enum fb_secure_stage stage, size_t k, uint64_t round, size_t n,
                    const unsigned char *flags, const unsigned char *pay, size_t npay)
{
	size_t nb = m->nb, sec = ENV_HEAD + k + npay;
	unsigned char *b = fb_msg_bytes(m, nb + sec + ENV_TAIL) + nb;

	memset(b, 0, ENV_HEAD);
	b[0] = (unsigned char)stage;
	put_u32(b + 4, (uint32_t)k);
	put_u64(b + 8, round);
	put_u64(b + 16, (uint64_t)n);
	memcpy(b + ENV_HEAD, flags, k);
	if (npay > 0)
		memcpy(b + ENV_HEAD + k, pay, npay);
	put_u32(b + sec, (uint32_t)sec);
	put_u32(b + sec + 4, (uint32_t)nb);
	put_u32(b + sec + 8, ENV_MAGIC);
}

/* Read the envelope at the end of m: 1 with e filled, 0 when m carries none, FB_ERR when it
 * is garbled. */
static int env_take(const fb_msg *m, envelope *e, fb_error *err)
{
	const unsigned char *t;
	size_t sec, nb;

	if (m->nb < ENV_TAIL || get_u32(m->b + m->nb - 4) != ENV_MAGIC)
		return 0;
	t = m->b + m->nb - ENV_TAIL;
	sec = get_u32(t);
	nb = get_u32(t + 4);
	if (sec < ENV_HEAD || nb + sec + ENV_TAIL != m->nb)
		return fb_fail(err, "the server's secure aggregation envelope is garbled");
	t = m->b + nb;
	e->stage = (enum fb_secure_stage)t[0];
	e->k = get_u32(t + 4);
	e->round = fb_sa_get_u64(t + 8);
	e->n = (size_t)fb_sa_get_u64(t + 16);
	if (e->k + ENV_HEAD > sec || e->stage < FB_SECURE_KEYS || e->stage > FB_SECURE_RECOVER)
		return fb_fail(err, "the server's secure aggregation envelope is garbled");
	e->flags = t + ENV_HEAD;
	e->pay = e->flags + e->k;
	e->npay = sec - ENV_HEAD - e->k;
	e->inner = *m;
	e->inner.nb = nb;
	return 1;
}

/* Bytes of down's envelope. */
size_t fb_secure_envelope_bytes(const fb_msg *down)
{
	envelope e;

	return env_take(down, &e, NULL) == 1 ? down->nb - e.inner.nb : 0;
}

/* Take the envelope off. */
void fb_secure_unwrap(fb_msg *down)
{
	envelope e;

	if (env_take(down, &e, NULL) == 1)
		down->nb = e.inner.nb;
}

/* The threshold: t= or a majority. */
size_t fb_secure_threshold(const fb_fed_options *o, size_t k)
{
	return o->threshold > 0 ? o->threshold : k / 2 + 1;
}

/* The options against the clients. */
int fb_secure_check(const fb_fed_options *o, size_t k, fb_error *err)
{
	if (!o->secure)
		return FB_OK;
	if (k < 3)
		return fb_fail(err, "secure=yes needs at least 3 clients: with %zu, a client learns "
		               "the other's vector from the sum (split into more clients)", k);
	if (o->threshold > k)
		return fb_fail(err, "t=%zu is above the %zu clients: no %zu of them can rebuild a lost "
		               "client's key (set t= to at most %zu)", o->threshold, k, o->threshold,
		               k);
	if (o->threshold == 1)
		return fb_fail(err, "t=1 would hand each client's key whole to every other (set t= "
		               "to at least 2, or 0 for a majority)");
	if (o->secure_bits < 8 || o->secure_bits > 52)
		return fb_fail(err, "secure_bits=%u is not in 8 .. 52", o->secure_bits);
	if (o->dp_epsilon > 0 && !(o->dp_delta > 0 && o->dp_delta < 1 && o->dp_sigma > 0 &&
	                           o->dp_clip > 0))
		return fb_fail(err, "dp_epsilon= needs dp_delta= in (0, 1), and dp_sigma= and "
		               "dp_clip= above 0");
	return fb_sa_init(err);
}

/* A client's side. */
fb_secure_client *fb_secure_client_new(size_t k, size_t me, const fb_fed_options *o)
{
	fb_secure_client *c = fb_xcalloc(1, sizeof *c);

	c->k = k;
	c->me = me;
	c->t = fb_secure_threshold(o, k);
	c->bits = o->secure_bits;
	c->dp_sd = o->dp_epsilon > 0 ? o->dp_sigma * o->dp_clip : 0;
	c->dp_clip = o->dp_clip;
	c->dp_sigma = o->dp_sigma;
	fb_sa_root(o->seed, c->root);
	fb_sa_keypair(c->root, me, c->pk, c->sk);
	c->mask_seed = fb_xcalloc(k, FB_SA_KEY);
	c->box_key = fb_xcalloc(k, FB_SA_KEY);
	return c;
}

/* Free it, its secrets wiped. */
void fb_secure_client_free(fb_secure_client *c)
{
	if (c == NULL)
		return;
	memset(c->mask_seed, 0, c->k * FB_SA_KEY);
	memset(c->box_key, 0, c->k * FB_SA_KEY);
	memset(c->sk, 0, sizeof c->sk);
	free(c->mask_seed);
	free(c->box_key);
	free(c);
}

/* The shares stage: the pair seeds with every other client, then the key's shares, each
 * boxed to its receiver (the own slot left zero). */
static int client_shares(fb_secure_client *c, const envelope *e, fb_msg *up, fb_error *err)
{
	uint64_t *shares;
	unsigned char seed[FB_SA_KEY], *out;

	if (e->npay != c->k * FB_SA_KEY)
		return fb_fail(err, "the server sent %zu bytes of keys for %zu clients", e->npay, c->k);
	for (size_t v = 0; v < c->k; v++)
		if (v != c->me && fb_sa_pair(c->sk, c->pk, e->pay + v * FB_SA_KEY,
		                             c->mask_seed + v * FB_SA_KEY, c->box_key + v * FB_SA_KEY,
		                             err) != FB_OK)
			return FB_ERR;
	shares = fb_xcalloc(c->k * FB_SHAMIR_WORDS, sizeof *shares);
	fb_sa_derive(c->root, "shamir", c->me, seed, sizeof seed);
	fb_shamir_split(c->sk, c->t, c->k, seed, shares);
	fb_msg_doubles(up, 0);
	out = fb_msg_bytes(up, c->k * FB_SA_BOX);
	memset(out, 0, c->k * FB_SA_BOX);
	for (size_t v = 0; v < c->k; v++)
		if (v != c->me)
			fb_sa_box(shares + v * FB_SHAMIR_WORDS, c->me, v, c->box_key + v * FB_SA_KEY,
			          out + v * FB_SA_BOX);
	memset(shares, 0, c->k * FB_SHAMIR_WORDS * sizeof *shares);
	free(shares);
	c->keyed = true;
	return FB_OK;
}

/* The ring numbers y (n of them) as the reply's bytes. */
static void put_ring(fb_msg *up, const uint64_t *y, size_t n)
{
	unsigned char *b;

	fb_msg_doubles(up, 0);
	b = fb_msg_bytes(up, 8 * n);
	for (size_t q = 0; q < n; q++)
		put_u64(b + 8 * q, y[q]);
}

/* Mask the algorithm's reply in place: its n numbers in fixed point and a 1 (0 for an
 * empty reply), plus the pair masks with every other client taking part.  rows: the sum's
 * sensitivity to one row (row-level privacy: nothing clipped), or 0 (each vector clipped
 * to dp_clip). */
static int client_mask(fb_secure_client *c, const envelope *e, double rows, fb_msg *up,
                       fb_error *err)
{
	uint64_t *y = fb_xcalloc(e->n + 1, sizeof *y);
	double *x = fb_xcalloc(e->n + 1, sizeof *x);
	size_t kp = 0;
	int ret = FB_OK;

	for (size_t v = 0; v < c->k; v++)
		kp += e->flags[v] == 1;
	if (up->nd != 0 || up->nb != 0) {
		if (up->nd != e->n || up->nb != 0)
			ret = fb_fail(err, "its half gave %zu numbers and %zu bytes where the sum takes "
			              "%zu numbers", up->nd, up->nb, e->n);
		else
			memcpy(x, up->d, e->n * sizeof *x);
		y[e->n] = 1;
	}
	if (c->dp_sd > 0 && rows > 0) /* its share of the noise of row-level privacy */
		fb_dp_noise(c->root, c->me, e->round, x, e->n, c->dp_sigma * rows / sqrt((double)kp));
	else if (c->dp_sd > 0) { /* its share of the sum's noise, on its clipped vector or none */
		fb_dp_clip(x, e->n, c->dp_clip);
		fb_dp_noise(c->root, c->me, e->round, x, e->n, c->dp_sd / sqrt((double)kp));
	}
	if (ret == FB_OK)
		ret = fb_fixed_encode(x, e->n, c->bits, kp, y, err);
	free(x);
	for (size_t v = 0; v < c->k && ret == FB_OK; v++)
		if (v != c->me && e->flags[v] == 1)
			fb_sa_mask(y, e->n + 1, c->mask_seed + v * FB_SA_KEY, e->round,
			           v > c->me ? 1 : -1);
	if (ret == FB_OK)
		put_ring(up, y, e->n + 1);
	memset(y, 0, (e->n + 1) * sizeof *y);
	free(y);
	return ret;
}

/* A summed round: the algorithm's half on the message inside, its vector masked; a client
 * not taking part keeps nothing to send. */
static int client_sum(fb_secure_client *c, const envelope *e, const fb_fed_ops *ops,
                      void *state, const fb_dataset *local, fb_msg *up, double *figure,
                      fb_error *err)
{
	if (!c->keyed)
		return fb_fail(err, "the server asked for a masked vector before the keys were "
		               "exchanged");
	fb_msg_doubles(up, 0); /* not the masked bytes of the last round */
	fb_msg_bytes(up, 0);
	if (ops->client(state, c->me, local, &e->inner, up, figure, err) != FB_OK)
		return FB_ERR;
	if (e->flags[c->me] != 1) {
		fb_msg_doubles(up, 0);
		fb_msg_bytes(up, 0);
		return FB_OK;
	}
	return client_mask(c, e, ops->dp_rows != NULL ? ops->dp_rows(state, &e->inner) : 0, up,
	                   err);
}

/* A recovery: open the share each lost client boxed to this one. */
static int client_recover(fb_secure_client *c, const envelope *e, fb_msg *up, fb_error *err)
{
	size_t nlost = 0, i = 0;
	uint64_t share[FB_SHAMIR_WORDS];

	for (size_t u = 0; u < c->k; u++)
		nlost += e->flags[u] == 2;
	if (e->npay != nlost * c->k * FB_SA_BOX || e->flags[c->me] != 1)
		return fb_fail(err, "the server's request for shares is garbled");
	fb_msg_doubles(up, 0);
	fb_msg_bytes(up, nlost * 8 * FB_SHAMIR_WORDS);
	for (size_t u = 0; u < c->k; u++) {
		if (e->flags[u] != 2)
			continue;
		if (fb_sa_unbox(e->pay + (i * c->k + c->me) * FB_SA_BOX, u, c->me,
		                c->box_key + u * FB_SA_KEY, share, err) != FB_OK)
			return FB_ERR;
		for (size_t w = 0; w < FB_SHAMIR_WORDS; w++)
			put_u64(up->b + (i * FB_SHAMIR_WORDS + w) * 8, share[w]);
		i++;
	}
	return FB_OK;
}

/* Answer the server's message, the figure as the client half gave it. */
static int answer(fb_secure_client *c, const fb_fed_ops *ops, void *state, size_t me,
                  const fb_dataset *local, const fb_msg *down, fb_msg *up, double *figure,
                  fb_error *err)
{
	envelope e;
	int got = env_take(down, &e, err);

	if (got == 0)
		return ops->client(state, me, local, down, up, figure, err);
	if (got != 1)
		return FB_ERR;
	if (e.k != c->k)
		return fb_fail(err, "the server's envelope names %zu clients, not %zu", e.k, c->k);
	switch (e.stage) {
	case FB_SECURE_KEYS:
		fb_msg_doubles(up, 0);
		memcpy(fb_msg_bytes(up, FB_SA_KEY), c->pk, FB_SA_KEY);
		return FB_OK;
	case FB_SECURE_SHARES:
		return client_shares(c, &e, up, err);
	case FB_SECURE_SUM:
		return client_sum(c, &e, ops, state, local, up, figure, err);
	default:
		return client_recover(c, &e, up, err);
	}
}

/* Answer the server's message; under dp_epsilon= the client's own figure (a row count, a
 * local loss) never leaves it: NAN goes up instead, as it is in no noisy sum. */
int fb_secure_answer(fb_secure_client *c, const fb_fed_ops *ops, void *state, size_t me,
                     const fb_dataset *local, const fb_msg *down, fb_msg *up, double *figure,
                     fb_error *err)
{
	int ret = answer(c, ops, state, me, local, down, up, figure, err);

	if (c->dp_sd > 0)
		*figure = NAN;
	return ret;
}
