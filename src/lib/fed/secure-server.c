/* Secure aggregation, the server's side: it relays the clients' public keys, keeps the
 * shares they boxed to each other (it cannot open them), adds up the masked vectors of a
 * round, and, when a client that took part is lost, rebuilds its key from the survivors'
 * shares and removes its masks.  It never holds a client's vector in the clear. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/secure.h"
#include "secure-int.h"

/* The server's side. */
struct fb_secure_server {
	size_t k, t;                /* clients, threshold */
	unsigned bits;              /* fixed-point fraction bits */
	unsigned char *pks;         /* k x FB_SA_KEY public keys */
	unsigned char *boxes;       /* k x k boxes: from u to v at u * k + v */
	bool ready;                 /* keys and shares in */
	uint64_t round;             /* the round last wrapped */
	size_t n;                   /* its numbers per vector */
	bool *part;                 /* k: who takes part in it */
	bool *asked;                /* k: the lost clients of the pending recovery */
	bool *recovered;            /* k: lost clients whose key the server rebuilt */
	unsigned char *lost_sk;     /* k x FB_SA_KEY: those keys */
};

/* The server's side for k clients. */
fb_secure_server *fb_secure_server_new(size_t k, const fb_fed_options *o)
{
	fb_secure_server *s = fb_xcalloc(1, sizeof *s);

	s->k = k;
	s->t = fb_secure_threshold(o, k);
	s->bits = o->secure_bits;
	s->pks = fb_xcalloc(k, FB_SA_KEY);
	s->boxes = fb_xcalloc(k * k, FB_SA_BOX);
	s->part = fb_xcalloc(k, sizeof *s->part);
	s->asked = fb_xcalloc(k, sizeof *s->asked);
	s->recovered = fb_xcalloc(k, sizeof *s->recovered);
	s->lost_sk = fb_xcalloc(k, FB_SA_KEY);
	return s;
}

/* Free it. */
void fb_secure_server_free(fb_secure_server *s)
{
	if (s == NULL)
		return;
	memset(s->lost_sk, 0, s->k * FB_SA_KEY);
	free(s->pks);
	free(s->boxes);
	free(s->part);
	free(s->asked);
	free(s->recovered);
	free(s->lost_sk);
	free(s);
}

/* Whether the setup is done. */
bool fb_secure_ready(const fb_secure_server *s)
{
	return s->ready;
}

/* A setup stage's message: every client takes part; the shares stage carries the keys. */
void fb_secure_setup_down(const fb_secure_server *s, enum fb_secure_stage stage, fb_msg *down)
{
	unsigned char *all = fb_xmalloc(s->k);

	memset(all, 1, s->k);
	fb_msg_doubles(down, 0);
	fb_msg_bytes(down, 0);
	fb_msg_control(down, NULL, 0);
	if (stage == FB_SECURE_KEYS)
		fb_sa_env_put(down, stage, s->k, 0, 0, all, NULL, 0);
	else
		fb_sa_env_put(down, stage, s->k, 0, 0, all, s->pks, s->k * FB_SA_KEY);
	free(all);
}

/* Take a setup stage's answers: the public keys, then each client's boxes. */
int fb_secure_setup_take(fb_secure_server *s, enum fb_secure_stage stage,
                         const fb_msg *const *up, fb_error *err)
{
	size_t want = stage == FB_SECURE_KEYS ? FB_SA_KEY : s->k * FB_SA_BOX;

	for (size_t c = 0; c < s->k; c++)
		if (up[c] == NULL || up[c]->nb != want || up[c]->nd != 0)
			return fb_fail(err, "client %zu gave %s where secure aggregation's %s were due",
			               c + 1, up[c] == NULL ? "no answer" : "a malformed answer",
			               stage == FB_SECURE_KEYS ? "public keys" : "boxed shares");
	for (size_t c = 0; c < s->k; c++) {
		if (stage == FB_SECURE_KEYS)
			memcpy(s->pks + c * FB_SA_KEY, up[c]->b, FB_SA_KEY);
		else
			memcpy(s->boxes + c * s->k * FB_SA_BOX, up[c]->b, want);
	}
	for (size_t c = 0; c < s->k && stage == FB_SECURE_KEYS; c++)
		for (size_t v = 0; v < c; v++)
			if (memcmp(s->pks + c * FB_SA_KEY, s->pks + v * FB_SA_KEY, FB_SA_KEY) == 0)
				return fb_fail(err, "clients %zu and %zu advertised the same key", v + 1,
				               c + 1);
	s->ready = stage == FB_SECURE_SHARES;
	return FB_OK;
}

/* Wrap a summed round's broadcast. */
int fb_secure_wrap(fb_secure_server *s, fb_msg *down, uint64_t round, size_t n,
                   const bool *part, fb_error *err)
{
	unsigned char *flags = fb_xcalloc(s->k, 1);
	size_t kp = 0;

	for (size_t c = 0; c < s->k; c++) {
		s->part[c] = part[c];
		flags[c] = part[c] ? 1 : 0;
		kp += part[c];
	}
	s->round = round;
	s->n = n;
	memset(s->asked, 0, s->k * sizeof *s->asked);
	if (kp < 2) {
		free(flags);
		return fb_fail(err, "round %llu draws %zu client%s, and secure aggregation needs at "
		               "least 2 in each sum (raise share=)", (unsigned long long)round, kp,
		               kp == 1 ? "" : "s");
	}
	fb_sa_env_put(down, FB_SECURE_SUM, s->k, round, n, flags, NULL, 0);
	free(flags);
	return FB_OK;
}

/* Remove lost client u's masks from the sum y of the survivors' vectors. */
static int unmask_lost(const fb_secure_server *s, size_t u, const fb_msg *const *up,
                       uint64_t *y, fb_error *err)
{
	unsigned char seed[FB_SA_KEY], box[FB_SA_KEY];

	for (size_t v = 0; v < s->k; v++) {
		if (!s->part[v] || up[v] == NULL)
			continue;
		if (fb_sa_pair(s->lost_sk + u * FB_SA_KEY, s->pks + u * FB_SA_KEY,
		               s->pks + v * FB_SA_KEY, seed, box, err) != FB_OK)
			return FB_ERR;
		/* v added the mask with sign +1 when u > v */
		fb_sa_mask(y, s->n + 1, seed, s->round, u > v ? -1 : 1);
	}
	memset(seed, 0, sizeof seed);
	memset(box, 0, sizeof box);
	return FB_OK;
}

/* The recovery request for the lost clients not yet rebuilt; survivors flagged. */
static void ask_recovery(fb_secure_server *s, const fb_msg *const *up, fb_msg *ask,
                         bool *survivors)
{
	unsigned char *flags = fb_xcalloc(s->k, 1), *pay;
	size_t nlost = 0, i = 0;

	for (size_t c = 0; c < s->k; c++) {
		survivors[c] = s->part[c] && up[c] != NULL;
		s->asked[c] = s->part[c] && up[c] == NULL && !s->recovered[c];
		flags[c] = survivors[c] ? 1 : s->asked[c] ? 2 : 0;
		nlost += s->asked[c];
	}
	pay = fb_xcalloc(nlost * s->k, FB_SA_BOX);
	for (size_t u = 0; u < s->k; u++)
		if (s->asked[u])
			memcpy(pay + (i++) * s->k * FB_SA_BOX, s->boxes + u * s->k * FB_SA_BOX,
			       s->k * FB_SA_BOX);
	fb_msg_doubles(ask, 0);
	fb_msg_bytes(ask, 0);
	fb_msg_control(ask, NULL, 0);
	fb_sa_env_put(ask, FB_SECURE_RECOVER, s->k, s->round, 0, flags, pay,
	              nlost * s->k * FB_SA_BOX);
	free(pay);
	free(flags);
}

/* Add up the masked replies into y (n + 1 ring numbers); FB_ERR naming a malformed one.
 * *got counts them, *lost the takers without one whose key is not rebuilt yet. */
static int add_masked(const fb_secure_server *s, const fb_msg *const *up, uint64_t *y,
                      size_t *got, size_t *lost, fb_error *err)
{
	size_t want = 8 * (s->n + 1);

	*got = *lost = 0;
	for (size_t c = 0; c < s->k; c++) {
		if (!s->part[c])
			continue;
		if (up[c] == NULL) {
			*lost += !s->recovered[c];
			continue;
		}
		if (up[c]->nd != 0 || up[c]->nb != want)
			return fb_fail(err, "client %zu sent %zu numbers and %zu bytes where a masked "
			               "vector of %zu bytes was due", c + 1, up[c]->nd, up[c]->nb, want);
		for (size_t q = 0; q <= s->n; q++)
			y[q] += fb_sa_get_u64(up[c]->b + 8 * q);
		(*got)++;
	}
	return FB_OK;
}

/* The round's sum. */
int fb_secure_sum(fb_secure_server *s, const fb_msg *const *up, double *sum, size_t *count,
                  size_t *silent, fb_msg *ask, bool *survivors, fb_error *err)
{
	uint64_t *y = fb_xcalloc(s->n + 1, sizeof *y);
	size_t got, lost;
	int ret = add_masked(s, up, y, &got, &lost, err);

	if (ret == FB_OK && lost > 0 && got < (s->t > 2 ? s->t : 2))
		ret = fb_fail(err, "only %zu of the round's clients answered, fewer than the "
		              "threshold t=%zu that removing a lost client's masks needs", got,
		              s->t > 2 ? s->t : 2);
	if (ret == FB_OK && lost > 0) {
		ask_recovery(s, up, ask, survivors);
		free(y);
		return 1;
	}
	for (size_t u = 0; u < s->k && ret == FB_OK; u++)
		if (s->part[u] && up[u] == NULL)
			ret = unmask_lost(s, u, up, y, err);
	if (ret == FB_OK) {
		*count = (size_t)y[s->n];
		*silent = got - *count;
		if (*count > got)
			ret = fb_fail(err, "the masked sum does not unmask (a client's vector was "
			              "changed on the way)");
		else if (*count == 1)
			ret = fb_fail(err, "only one client sent a vector in round %llu, so the sum "
			              "would be its own vector: secure aggregation stops the run",
			              (unsigned long long)s->round);
	}
	if (ret == FB_OK)
		fb_fixed_decode(y, s->n, s->bits, sum);
	free(y);
	return ret;
}

/* Rebuild lost client u's key from the survivors' shares (the i-th lost in the answers). */
static int rebuild_key(fb_secure_server *s, size_t u, size_t i, size_t nlost,
                       const fb_msg *const *up, fb_error *err)
{
	uint64_t *xs = fb_xcalloc(s->k, sizeof *xs);
	uint64_t *sh = fb_xcalloc(s->k * FB_SHAMIR_WORDS, sizeof *sh);
	unsigned char pk[FB_SA_KEY];
	size_t m = 0;
	int ret = FB_OK;

	for (size_t v = 0; v < s->k; v++) {
		if (up[v] == NULL || up[v]->nb != nlost * 8 * FB_SHAMIR_WORDS)
			continue;
		xs[m] = v + 1;
		for (size_t w = 0; w < FB_SHAMIR_WORDS; w++)
			sh[m * FB_SHAMIR_WORDS + w] =
				fb_sa_get_u64(up[v]->b + (i * FB_SHAMIR_WORDS + w) * 8);
		m++;
	}
	if (m < s->t)
		ret = fb_fail(err, "only %zu clients gave their shares of lost client %zu's key, "
		              "fewer than the threshold t=%zu", m, u + 1, s->t);
	if (ret == FB_OK)
		ret = fb_shamir_combine(xs, sh, m, s->lost_sk + u * FB_SA_KEY, err);
	if (ret == FB_OK) {
		fb_sa_public(s->lost_sk + u * FB_SA_KEY, pk);
		if (memcmp(pk, s->pks + u * FB_SA_KEY, FB_SA_KEY) != 0)
			ret = fb_fail(err, "the shares of lost client %zu's key do not rebuild its "
			              "public key", u + 1);
	}
	s->recovered[u] = ret == FB_OK;
	memset(sh, 0, s->k * FB_SHAMIR_WORDS * sizeof *sh);
	free(sh);
	free(xs);
	return ret;
}

/* Take the survivors' shares of the lost clients' keys. */
int fb_secure_recover(fb_secure_server *s, const fb_msg *const *up, fb_error *err)
{
	size_t nlost = 0, i = 0;

	for (size_t u = 0; u < s->k; u++)
		nlost += s->asked[u];
	for (size_t u = 0; u < s->k; u++)
		if (s->asked[u] && rebuild_key(s, u, i++, nlost, up, err) != FB_OK)
			return FB_ERR;
	memset(s->asked, 0, s->k * sizeof *s->asked);
	return FB_OK;
}
