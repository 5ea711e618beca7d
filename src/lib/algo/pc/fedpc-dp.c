/* fedpc with dp_epsilon= (secure=yes): client-level differential privacy of the summed
 * votes.  Every number of a client's vector is 0 or 1 (its first the 1 that counts it), so
 * adding or removing one client changes each number of the sum by at most 1 and the sum's L2
 * sensitivity is the square root of its length: 1 + the pairs voted on, in a FedSkele
 * layer.  Each client adds its share of Gaussian noise of dp_sigma times that inside secure
 * aggregation (fed ops' dp_rows), and the federation spends one zCDP release per round and
 * stops the run in one sentence when the next would pass dp_epsilon.  The server rounds each
 * noisy count to a whole vote between 0 and the clients heard (their number is exact: secure
 * aggregation counts the vectors apart from the noise).
 *
 * FedOrien's choice of the client with the highest p-value per pair cannot take noise (20
 * rounds that learn the winning p-value's bits exactly), so under dp_epsilon= FedOrien is one
 * round of noisy collider votes instead: after its search each client sends, per end pair, a
 * 1 when one of its sets separated the ends (p > alpha), and per unshielded triple i - k - j a
 * 1 when its set separated them and leaves k out.  The server counts a pair separated when
 * the noisy count of the first rounds to at least 1, and orients i -> k <- j when more than
 * half of those clients left k out; the pair's separating set is the middles the others kept
 * (no client's, no p-value), and under colliders=strength the candidates go in decreasing
 * share of their votes (then by index).  A client's figure (the tests it ran, which depend on
 * its rows and would reach the server without noise) is withheld: 0. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedpc-int.h"

/* The numbers of a FedSkele layer's vector for the skeleton down: 1 + the pairs sent. */
static size_t layer_len(const fedpc_state *st, const fb_msg *down)
{
	size_t np = fedpc_npairs(st->c.d), n = 1, nb = fedpc_bits_bytes(st->c.d);

	if (down->nb < nb)
		return 1;
	for (size_t p = 0; p < np; p++)
		n += fedpc_bit(down->b, p);
	return n;
}

/* End pairs (*P) and triples of a FedOrien broadcast down; 0 pairs when it is malformed. */
size_t fedpc_orient_sizes(const fedpc_state *st, const fb_msg *down, size_t *P)
{
	size_t w = st->c.w, T = 0;
	const unsigned char *p = down->b + fedpc_bits_bytes(st->c.d), *end = down->b + down->nb;

	*P = 0;
	if (down->nb < fedpc_bits_bytes(st->c.d) + 4)
		return 0;
	*P = fedpc_get_id(&p, 4);
	for (size_t a = 0; a < *P; a++) {
		size_t m;

		if ((size_t)(end - p) < 4 * w) {
			*P = 0;
			return 0;
		}
		p += 3 * w;
		m = fedpc_get_id(&p, w);
		if ((size_t)(end - p) < m * w) {
			*P = 0;
			return 0;
		}
		p += m * w;
		T += m;
	}
	return T;
}

/* The sum's L2 sensitivity to one client: the square root of the numbers of its vector (each
 * 0 or 1); 1 without dp_epsilon= (not used then). */
double fedpc_dp_rows(const void *state, const fb_msg *down)
{
	const fedpc_state *st = state;
	size_t n = 1, P, T;

	if (!st->dp || down->nd < 1)
		return 1;
	if (down->d[0] >= 0) {
		n = layer_len(st, down);
	} else if (down->d[0] == -1.0) {
		T = fedpc_orient_sizes(st, down, &P);
		n = 1 + P + T;
	}
	return sqrt((double)n);
}

/* Client k's FedOrien answer under dp_epsilon= (after its search, kept in best): its 1, then
 * per end pair whether it separated the ends, then per triple whether its set leaves the
 * middle out. */
void fedpc_dp_orient_answer(const fedpc_state *st, size_t k, size_t P, fb_msg *up)
{
	const fedpc_client *cl = &st->clients[k];
	size_t d = st->c.d, w = st->c.w, T = cl->ntri, n = 1 + P + T;
	const unsigned char *set = cl->best.b;
	unsigned char *in = fb_xcalloc(d + 1, 1);
	double *v = fb_msg_doubles(up, n);

	memset(v, 0, n * sizeof *v);
	v[0] = 1.0;
	for (size_t a = 0, t = 0; a < P; a++) {
		const unsigned char *members;
		size_t m = fedpc_get_id(&set, w), t1 = t + 1;
		bool found = cl->best.d[a] > st->opt.alpha;

		members = set;
		for (size_t q = 0; q < m; q++)
			in[fedpc_get_id(&set, w)] = 1;
		v[1 + a] = found ? 1.0 : 0.0;
		while (t1 < T && cl->tri[3 * t1] == cl->tri[3 * t] &&
		       cl->tri[3 * t1 + 2] == cl->tri[3 * t + 2])
			t1++;
		for (; t < t1; t++)
			v[1 + P + t] = found && !in[cl->tri[3 * t + 1]] ? 1.0 : 0.0;
		for (size_t q = 0; q < m; q++)
			in[fedpc_get_id(&members, w)] = 0;
	}
	fb_msg_bytes(up, 0);
	free(in);
}

/* Client k under secure=yes: fedpc's half; with dp_epsilon= its figure withheld (0). */
int fedpc_sum_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	int ret = fedpc_client_half(state, k, local, down, up, figure, err);

	if (((const fedpc_state *)state)->dp)
		*figure = 0;
	return ret;
}

/* A noisy count as a whole number between 0 and top. */
static double whole(double x, double top)
{
	x = round(x);
	return x < 0 ? 0 : x > top ? top : x;
}

/* The noisy FedOrien sum as one reply the plain server reads (one client's, which "won"
 * every separated pair): p 1 where the pair counts as separated (-1 elsewhere), its set the
 * middles the majority kept, and under colliders=strength each triple's p the share of the
 * separating clients that kept its middle. */
static void dp_reply(const fedpc_state *st, const fb_fed_total *in, size_t P, fb_msg *out)
{
	size_t w = st->c.w, T = st->ntri, nd = P + (st->strength ? 2 * T : 0);
	double *v = fb_msg_doubles(out, nd), *found = fb_xcalloc(P + 1, sizeof *found);
	unsigned char *q = fb_msg_bytes(out, (P + T) * w);
	const double *votes = in->sum + 1 + P;
	size_t nb = 0;

	for (size_t x = 0; x < nd; x++)
		v[x] = NAN;
	for (size_t a = 0, t = 0; a < P; a++) {
		size_t t0 = t, kept = 0;

		found[a] = whole(in->sum[1 + a], (double)in->count);
		v[a] = found[a] >= 1 ? 1.0 : -1.0;
		while (t + 1 < T && st->tri[3 * (t + 1)] == st->tri[3 * t0] &&
		       st->tri[3 * (t + 1) + 2] == st->tri[3 * t0 + 2])
			t++;
		for (size_t u = t0; u <= t && found[a] >= 1; u++)
			kept += 2 * whole(votes[u], found[a]) <= found[a];
		q = fedpc_put_id(q, w, kept);
		nb += w * (1 + kept);
		for (size_t u = t0; u <= t && found[a] >= 1; u++) {
			double c = whole(votes[u], found[a]);

			if (2 * c <= found[a])
				q = fedpc_put_id(q, w, st->tri[3 * u + 1]);
			if (st->strength)
				v[P + 2 * u] = 1.0 - c / found[a];
		}
		t++;
	}
	fb_msg_bytes(out, nb); /* the sets as written, shorter than the room made */
	free(found);
}

/* The end of FedOrien under dp_epsilon=: the plain server's orientation on the reply the
 * noisy votes make (dp_reply); no pair's set is a client's, and none has a p-value. */
int fedpc_dp_orient_finish(fedpc_state *st, const fb_fed_total *in, fb_msg *down,
                           fb_error *err)
{
	size_t k = st->c.k, P = fedpc_pairs_count(st->tri, st->ntri);
	fb_msg reply = { 0 };
	const fb_msg **up = fb_xcalloc(k + 1, sizeof *up);
	int ret;

	dp_reply(st, in, P, &reply);
	up[0] = &reply;
	ret = fedpc_orient_server(st, up, k, down, err);
	if (ret == FB_OK) { /* the noisy sum's picks (client 0) name no client: drop them */
		size_t at = 0;

		for (size_t p = 0; p < st->c.picks.n; p++)
			if (st->c.picks.at[p].client != 0)
				st->c.picks.at[at++] = st->c.picks.at[p];
		st->c.picks.n = at;
	}
	fb_msg_release(&reply);
	free(up);
	return ret;
}
