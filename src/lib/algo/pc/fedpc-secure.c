/* fedpc with secure=yes: every round's reply is a vector of numbers and the server takes
 * only their sum over the clients (and the count), so that secure aggregation can form it.
 * Every vector starts with a 1 (its sum: the clients in it).
 *
 * A FedSkele layer: each client's votes, 1 for a pair of the server's skeleton it kept, 0 for
 * one it removed, in pair order; their sum is the plain server's count of votes.
 *
 * FedOrien: the plain server keeps, per end pair, the set of the client with the highest
 * p-value (ties: the first client), and that client's collider tests.  Through sums it learns
 * the same and nothing else.  Each client's answer for a pair has a key of FEDPC_KEY bytes
 * (its p-value's bits, then 65535 minus its index); the highest key names the plain server's
 * choice.  Round 1 (the search, as the plain round's) and the 19 after it each learn 4 bits
 * (a digit) of every pair's highest key: a client whose key agrees with the digits learnt so
 * far puts a 1 in the slot of its next digit's value (15 slots a pair, none for 0), so the
 * sum counts the clients at each value and the highest slot reached is the digit.  Then the server
 * names each pair's winner, and in a last round only the winner of a pair fills its slots:
 * its set as d flags, and its collider tests' p-values and statistics as the four 16-bit
 * words of each double's bits, so that the sum is the winner's own numbers exactly.  The
 * server then orients from them as the plain server does (fedpc_orient_server), so the graph
 * and every figure are the plain run's. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedpc-int.h"

/* What fedpc and fedpc-simple1 cannot take with secure aggregation: differential privacy
 * for fedpc-simple1 (its sums are whole votes per direction, and its orientation compares
 * the clients' p-values exactly; fedpc takes it, fedpc-dp.c), or more clients than a key
 * tells apart. */
int fedpc_secure_check(const fb_run *run, fb_error *err)
{
	if (run->fedopt.dp_epsilon > 0 && run->algo != &fb_algo_fedpc)
		return fb_fail(err, "%s's sums are whole votes, which the clipping and noise of "
		               "differential privacy would destroy: set dp_epsilon=0 (fedpc takes "
		               "it)", run->algo->name);
	if (run->fedopt.secure && run->part != NULL && run->part->k > 65534)
		return fb_fail(err, "fedpc with secure=yes tells up to 65,534 clients apart in "
		               "FedOrien's keys, not %zu", run->part->k);
	return FB_OK;
}

/* A key is learnt 4 bits a round: KEY_DIGITS rounds of DIGIT_SLOTS slots a pair (values
 * 1..15; 0 has none), a balance of the rounds against the numbers each carries. */
#define DIGIT_SLOTS 15
#define KEY_DIGITS (2 * FEDPC_KEY)

/* Digit t of a key: its bytes' high halves first. */
static unsigned key_digit(const unsigned char *key, size_t t)
{
	return t % 2 == 0 ? key[t / 2] >> 4 : key[t / 2] & 15u;
}

/* Whether the first t digits of two keys agree. */
static bool key_agrees(const unsigned char *a, const unsigned char *b, size_t t)
{
	for (size_t u = 0; u < t; u++)
		if (key_digit(a, u) != key_digit(b, u))
			return false;
	return true;
}

/* The pairs of the server's FedOrien. */
static size_t orient_pairs(const fedpc_state *st)
{
	return fedpc_pairs_count(st->tri, st->ntri);
}

/* Numbers in each client's vector this round. */
static size_t sum_len(const void *state)
{
	const fedpc_state *st = state;
	size_t P;

	if (!st->orienting)
		return 1 + st->nsent;
	P = orient_pairs(st);
	if (st->dp)
		return 1 + P + st->ntri;
	if (st->sphase == FEDPC_DIGIT)
		return 1 + P * DIGIT_SLOTS;
	return 1 + P * st->c.d + (st->strength ? 8 * st->ntri : 0);
}

/* A client's layer votes as numbers (see the top). */
void fedpc_votes_vector(const unsigned char *sent, const unsigned char *kept, size_t d,
                        fb_msg *up)
{
	size_t np = fedpc_npairs(d), n = 0, q = 1;
	double *v;

	for (size_t p = 0; p < np; p++)
		n += fedpc_bit(sent, p);
	v = fb_msg_doubles(up, 1 + n);
	v[0] = 1.0;
	for (size_t p = 0; p < np; p++)
		if (fedpc_bit(sent, p))
			v[q++] = fedpc_bit(kept, p) ? 1.0 : 0.0;
	fb_msg_bytes(up, 0);
}

/* The server's votes per pair from the layer's sum (a noisy one rounded to a whole vote
 * between 0 and the clients heard). */
int fedpc_votes_from_sum(fedpc_state *st, const fb_fed_total *in, fb_error *err)
{
	size_t np = fedpc_npairs(st->c.d), q = 1;

	if (in->count == 0)
		return fb_fail(err, "no client answered");
	memset(st->c.votes, 0, np * sizeof *st->c.votes);
	for (size_t p = 0; p < np; p++)
		if (fedpc_bit(st->sent, p)) {
			double x = round(in->sum[q++]);

			if (x > (double)in->count)
				x = (double)in->count;
			st->c.votes[p] = x > 0 ? (uint32_t)x : 0;
		}
	return FB_OK;
}

/* Client k's key for end pair a of its kept FedOrien reply. */
static void client_key(const fedpc_state *st, size_t k, size_t a, unsigned char *key)
{
	double p = st->clients[k].best.d[a];
	uint64_t bits = 0;

	memset(key, 0, FEDPC_KEY);
	if (!(p > st->opt.alpha))
		return;
	memcpy(&bits, &p, sizeof bits);
	for (int b = 0; b < 8; b++)
		key[b] = (unsigned char)(bits >> (56 - 8 * b));
	key[8] = (unsigned char)((65535 - k) >> 8);
	key[9] = (unsigned char)((65535 - k) & 0xff);
}

/* Client k's answer to the round asking digit t of the keys, the first t digits of each
 * pair's highest key given in prefix (P keys, the digits not yet learnt 0). */
static void digit_answer(const fedpc_state *st, size_t k, size_t P, size_t t,
                         const unsigned char *prefix, fb_msg *up)
{
	double *v = fb_msg_doubles(up, 1 + P * DIGIT_SLOTS);
	unsigned char key[FEDPC_KEY];

	memset(v, 0, (1 + P * DIGIT_SLOTS) * sizeof *v);
	v[0] = 1.0;
	for (size_t a = 0; a < P; a++) {
		client_key(st, k, a, key);
		if ((t == 0 || key_agrees(key, prefix + a * FEDPC_KEY, t)) && key_digit(key, t) > 0)
			v[1 + a * DIGIT_SLOTS + key_digit(key, t) - 1] = 1.0;
	}
	fb_msg_bytes(up, 0);
}

/* The four 16-bit words of x's bits into w[0..4). */
static void put_words(double x, double *w)
{
	uint64_t bits;

	memcpy(&bits, &x, sizeof bits);
	for (int c = 0; c < 4; c++)
		w[c] = (double)((bits >> (16 * c)) & 0xffff);
}

/* The double whose bits are the four 16-bit words at w. */
static double get_words(const double *w)
{
	uint64_t bits = 0;
	double x;

	for (int c = 0; c < 4; c++)
		bits |= (uint64_t)round(w[c]) << (16 * c);
	memcpy(&x, &bits, sizeof x);
	return x;
}

/* Client k's last answer: for each pair it won (the broadcast names winner k + 1), its set
 * as flags and its collider tests as words; zeros elsewhere. */
static int reveal_answer(const fedpc_state *st, size_t k, size_t P, const fb_msg *down,
                         fb_msg *up, fb_error *err)
{
	const fedpc_client *cl = &st->clients[k];
	size_t d = st->c.d, w = st->c.w, T = cl->ntri, n = 1 + P * d + (st->strength ? 8 * T : 0);
	const unsigned char *win = down->b, *set = cl->best.b;
	double *v;

	if (down->nb != 4 * P)
		return fb_fail(err, "the winners' message has %zu bytes, not %zu", down->nb, 4 * P);
	v = fb_msg_doubles(up, n);
	memset(v, 0, n * sizeof *v);
	v[0] = 1.0;
	for (size_t a = 0, t = 0; a < P; a++) {
		size_t m = fedpc_get_id(&set, w), t1 = t + 1;
		bool mine = fedpc_get_id(&win, 4) == k + 1;

		for (size_t q = 0; q < m; q++) {
			size_t x = fedpc_get_id(&set, w);

			if (mine)
				v[1 + a * d + x] = 1.0;
		}
		while (t1 < T && cl->tri[3 * t1] == cl->tri[3 * t] &&
		       cl->tri[3 * t1 + 2] == cl->tri[3 * t + 2])
			t1++;
		for (; t < t1; t++)
			if (mine && st->strength) {
				put_words(cl->best.d[P + 2 * t], v + 1 + P * d + 8 * t);
				put_words(cl->best.d[P + 2 * t + 1], v + 1 + P * d + 8 * t + 4);
			}
	}
	fb_msg_bytes(up, 0);
	return FB_OK;
}

/* Client k, secure FedOrien: the search (kept) and the first byte, a byte, or the sets. */
int fedpc_orient_client_sum(fedpc_state *st, size_t k, const fb_msg *down, fb_msg *up,
                            double *figure, fb_error *err)
{
	fedpc_client *cl = &st->clients[k];
	double phase = fedpc_phase(down);
	size_t P, t;

	if (phase == -1.0) {
		if (fedpc_orient_client(st, k, down, &cl->best, &cl->tests, err) != FB_OK)
			return FB_ERR;
		cl->ntri = fedpc_orient_sizes(st, down, &P);
		if (st->dp)
			fedpc_dp_orient_answer(st, k, fedpc_pairs_count(cl->tri, cl->ntri), up);
		else
			digit_answer(st, k, fedpc_pairs_count(cl->tri, cl->ntri), 0, NULL, up);
		*figure = cl->tests;
		return FB_OK;
	}
	if (cl->tri == NULL && cl->ntri > 0)
		return fb_fail(err, "a FedOrien round of sums came before the search");
	P = fedpc_pairs_count(cl->tri, cl->ntri);
	*figure = cl->tests;
	if (phase == FEDPC_REVEAL)
		return reveal_answer(st, k, P, down, up, err);
	if (phase != FEDPC_DIGIT || down->nd < 2 || !(down->d[1] >= 1 && down->d[1] < KEY_DIGITS))
		return fb_fail(err, "the server's message has an unknown phase");
	t = (size_t)down->d[1];
	if (down->nb != P * FEDPC_KEY)
		return fb_fail(err, "the keys' message has %zu bytes, not %zu", down->nb,
		               P * FEDPC_KEY);
	digit_answer(st, k, P, t, down->b, up);
	return FB_OK;
}

/* The winner of pair a (its client's index), or -1 when no client found a set, and its p. */
static long key_winner(const fedpc_state *st, size_t a, double *p)
{
	const unsigned char *key = st->maxkey + a * FEDPC_KEY;
	uint64_t bits = 0;

	for (int b = 0; b < 8; b++)
		bits = bits << 8 | key[b];
	if (bits == 0)
		return -1;
	memcpy(p, &bits, sizeof *p);
	return 65535 - (long)(key[8] << 8 | key[9]);
}

/* Client m's FedOrien reply as the plain server would have read it, where m won; where it
 * did not, a reply with no set (p -1, size 0). */
static void winner_reply(const fedpc_state *st, const fb_fed_total *in, size_t m, size_t P,
                         fb_msg *out)
{
	size_t d = st->c.d, w = st->c.w, T = st->ntri, nd = P + (st->strength ? 2 * T : 0);
	size_t nb = 0, t = 0;
	double *v = fb_msg_doubles(out, nd), p;
	unsigned char *q;

	for (size_t x = 0; x < nd; x++)
		v[x] = x < P ? -1.0 : NAN;
	for (size_t a = 0; a < P; a++) {
		nb += w;
		for (size_t x = 0; key_winner(st, a, &p) == (long)m && x < d; x++)
			nb += w * (in->sum[1 + a * d + x] > 0.5);
	}
	q = fb_msg_bytes(out, nb);
	for (size_t a = 0; a < P; a++) {
		bool mine = key_winner(st, a, &p) == (long)m;
		size_t n = 0, t1 = t + 1;

		for (size_t x = 0; mine && x < d; x++)
			n += in->sum[1 + a * d + x] > 0.5;
		q = fedpc_put_id(q, w, n);
		for (size_t x = 0; mine && x < d; x++)
			if (in->sum[1 + a * d + x] > 0.5)
				q = fedpc_put_id(q, w, x);
		if (mine)
			v[a] = p;
		while (t1 < T && st->tri[3 * t1] == st->tri[3 * t] &&
		       st->tri[3 * t1 + 2] == st->tri[3 * t + 2])
			t1++;
		for (; t < t1; t++)
			if (mine && st->strength) {
				v[P + 2 * t] = get_words(in->sum + 1 + P * d + 8 * t);
				v[P + 2 * t + 1] = get_words(in->sum + 1 + P * d + 8 * t + 4);
			}
	}
}

/* The end of a secure FedOrien: the plain server's choice and orientation on the winners'
 * replies (in: the last round's sum, NULL when there were no pairs). */
static int orient_finish(fedpc_state *st, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	size_t k = st->c.k, P = in != NULL ? orient_pairs(st) : 0;
	fb_msg *reply = fb_xcalloc(k + 1, sizeof *reply);
	const fb_msg **up = fb_xcalloc(k + 1, sizeof *up);
	int ret;

	for (size_t m = 0; m < k; m++) {
		if (in != NULL)
			winner_reply(st, in, m, P, &reply[m]);
		up[m] = &reply[m];
	}
	ret = fedpc_orient_server(st, up, k, down, err);
	st->sphase = 0;
	for (size_t m = 0; m < k; m++)
		fb_msg_release(&reply[m]);
	free(reply);
	free(up);
	return ret;
}

/* The server on a key round's sum: the digit of each pair's highest key, then the next
 * round's broadcast (the next digit, or the winners). */
static void digit_take(fedpc_state *st, const fb_fed_total *in, fb_msg *down)
{
	size_t P = orient_pairs(st), t = st->digit;
	unsigned char *q;

	for (size_t a = 0; a < P; a++) {
		unsigned v = 0;

		for (unsigned s = DIGIT_SLOTS; s >= 1 && v == 0; s--)
			if (in->sum[1 + a * DIGIT_SLOTS + s - 1] > 0.5)
				v = s;
		st->maxkey[a * FEDPC_KEY + t / 2] |= (unsigned char)(t % 2 == 0 ? v << 4 : v);
	}
	st->digit = ++t;
	if (t < KEY_DIGITS) {
		double *v = fb_msg_doubles(down, 2);

		v[0] = FEDPC_DIGIT;
		v[1] = (double)t;
		memcpy(fb_msg_bytes(down, P * FEDPC_KEY), st->maxkey, P * FEDPC_KEY);
		return;
	}
	st->sphase = FEDPC_REVEAL;
	fb_msg_doubles(down, 1)[0] = FEDPC_REVEAL;
	q = fb_msg_bytes(down, 4 * P);
	for (size_t a = 0; a < P; a++) {
		double p;

		q = fedpc_put_id(q, 4, (size_t)(key_winner(st, a, &p) + 1));
	}
}

/* The server half under secure=yes: a layer's count from the summed votes, or a step of
 * FedOrien's comparisons. */
static int sum_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fedpc_state *st = state;

	if (in->n != sum_len(st))
		return fb_fail(err, "the sum holds %zu numbers, not %zu", in->n, sum_len(st));
	if (in->count < 1 || (!st->dp && round(in->sum[0]) != (double)in->count))
		return fb_fail(err, "the sum counts %.0f clients where %zu sent a vector", in->sum[0],
		               in->count);
	if (!st->orienting) {
		if (fedpc_votes_from_sum(st, in, err) != FB_OK)
			return FB_ERR;
		fedpc_skele_next(st, in->count, down);
		if (st->orienting && !st->dp) {
			st->sphase = FEDPC_DIGIT;
			st->digit = 0;
			free(st->maxkey);
			st->maxkey = fb_xcalloc(orient_pairs(st) * FEDPC_KEY + 1, 1);
		}
		return FB_OK;
	}
	if (orient_pairs(st) == 0)
		return orient_finish(st, NULL, down, err);
	if (st->dp)
		return fedpc_dp_orient_finish(st, in, down, err);
	if (st->sphase == FEDPC_DIGIT) {
		digit_take(st, in, down);
		return FB_OK;
	}
	return orient_finish(st, in, down, err);
}

const fb_fed_ops fedpc_sum_ops = { .client = fedpc_sum_client, .server_sum = sum_server,
	                           .sum_len = sum_len, .dp_rows = fedpc_dp_rows };
