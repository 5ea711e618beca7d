/* Secure aggregation's arithmetic and cryptography: Shamir secret sharing over the prime
 * field of 2^61 - 1 (arithmetic, not a cipher), the fixed-point encoding of numbers modulo
 * 2^64, and the libsodium calls: X25519 key agreement, ChaCha20 streams for masks and for
 * every random byte, BLAKE2b hashes, XSalsa20-Poly1305 boxes for the shares. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "fedbn/secagg.h"

/* Start libsodium once. */
int fb_sa_init(fb_error *err)
{
	if (sodium_init() < 0)
		return fb_fail(err, "libsodium could not start, so secure aggregation cannot run");
	return FB_OK;
}

/* (a * b) mod p, p = 2^61 - 1: the 122-bit product folded twice. */
uint64_t fb_gf_mul(uint64_t a, uint64_t b)
{
	unsigned __int128 z = (unsigned __int128)a * b;
	uint64_t lo = (uint64_t)(z & FB_SHAMIR_P), hi = (uint64_t)(z >> 61);
	uint64_t r = lo + hi;

	r = (r & FB_SHAMIR_P) + (r >> 61);
	return r >= FB_SHAMIR_P ? r - FB_SHAMIR_P : r;
}

/* a + b mod p. */
static uint64_t gf_add(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;

	return r >= FB_SHAMIR_P ? r - FB_SHAMIR_P : r;
}

/* a - b mod p. */
static uint64_t gf_sub(uint64_t a, uint64_t b)
{
	return a >= b ? a - b : a + FB_SHAMIR_P - b;
}

/* a^-1 = a^(p-2) mod p. */
uint64_t fb_gf_inv(uint64_t a)
{
	uint64_t r = 1, e = FB_SHAMIR_P - 2;

	for (; e > 0; e >>= 1, a = fb_gf_mul(a, a))
		if (e & 1)
			r = fb_gf_mul(r, a);
	return r;
}

/* Word w of a 32-byte secret, little-endian. */
static uint64_t secret_word(const unsigned char *s, size_t w)
{
	return (uint64_t)s[4 * w] | (uint64_t)s[4 * w + 1] << 8 | (uint64_t)s[4 * w + 2] << 16 |
	       (uint64_t)s[4 * w + 3] << 24;
}

/* Shamir split: per word, a polynomial of degree t - 1 with the word as constant term. */
void fb_shamir_split(const unsigned char *secret, size_t t, size_t n, const unsigned char *seed,
                     uint64_t *shares)
{
	size_t nc = (t - 1) * FB_SHAMIR_WORDS;
	uint64_t *coef = fb_xcalloc(nc > 0 ? nc : 1, sizeof *coef);

	randombytes_buf_deterministic(coef, nc * sizeof *coef, seed);
	for (size_t c = 0; c < nc; c++)
		coef[c] = coef[c] % FB_SHAMIR_P;
	for (size_t i = 0; i < n; i++)
		for (size_t w = 0; w < FB_SHAMIR_WORDS; w++) {
			uint64_t y = 0;

			/* Horner from the highest coefficient down to the secret word */
			for (size_t j = t - 1; j >= 1; j--)
				y = gf_add(fb_gf_mul(y, (uint64_t)i + 1), coef[(j - 1) * FB_SHAMIR_WORDS + w]);
			y = gf_add(fb_gf_mul(y, (uint64_t)i + 1), secret_word(secret, w));
			shares[i * FB_SHAMIR_WORDS + w] = y;
		}
	sodium_memzero(coef, nc * sizeof *coef);
	free(coef);
}

/* The Lagrange basis at 0 of point a among xs: prod_{b != a} x_b / (x_b - x_a). */
static uint64_t lagrange_at_zero(const uint64_t *xs, size_t m, size_t a)
{
	uint64_t num = 1, den = 1;

	for (size_t b = 0; b < m; b++)
		if (b != a) {
			num = fb_gf_mul(num, xs[b]);
			den = fb_gf_mul(den, gf_sub(xs[b], xs[a]));
		}
	return fb_gf_mul(num, fb_gf_inv(den));
}

/* Shamir combine: each word by Lagrange interpolation at 0. */
int fb_shamir_combine(const uint64_t *xs, const uint64_t *shares, size_t m,
                      unsigned char *secret, fb_error *err)
{
	uint64_t word[FB_SHAMIR_WORDS] = { 0 };

	for (size_t a = 0; a < m; a++) {
		if (xs[a] == 0 || xs[a] >= FB_SHAMIR_P)
			return fb_fail(err, "share %zu is at the point %llu, outside 1 .. p-1", a + 1,
			               (unsigned long long)xs[a]);
		for (size_t b = 0; b < a; b++)
			if (xs[b] == xs[a])
				return fb_fail(err, "shares %zu and %zu are at the same point", b + 1, a + 1);
		for (size_t w = 0; w < FB_SHAMIR_WORDS; w++)
			if (shares[a * FB_SHAMIR_WORDS + w] >= FB_SHAMIR_P)
				return fb_fail(err, "share %zu holds a number outside the field", a + 1);
	}
	for (size_t a = 0; a < m; a++) {
		uint64_t l = lagrange_at_zero(xs, m, a);

		for (size_t w = 0; w < FB_SHAMIR_WORDS; w++)
			word[w] = gf_add(word[w], fb_gf_mul(l, shares[a * FB_SHAMIR_WORDS + w]));
	}
	for (size_t w = 0; w < FB_SHAMIR_WORDS; w++) {
		if (word[w] > UINT32_MAX)
			return fb_fail(err, "the shares do not come from one secret (too few of them?)");
		for (int b = 0; b < 4; b++)
			secret[4 * w + b] = (unsigned char)(word[w] >> (8 * b));
	}
	return FB_OK;
}

/* The largest |x| whose fixed-point form, k of them added, stays inside +-2^63. */
double fb_fixed_bound(unsigned bits, size_t k)
{
	return ldexp(1.0, 63 - (int)bits) / (double)(k > 0 ? k : 1) - ldexp(1.0, -(int)bits);
}

/* Fixed-point encoding: round(x * 2^bits) as a two's complement ring number. */
int fb_fixed_encode(const double *x, size_t n, unsigned bits, size_t k, uint64_t *out,
                    fb_error *err)
{
	double bound = fb_fixed_bound(bits, k);

	for (size_t q = 0; q < n; q++) {
		if (!isfinite(x[q]))
			return fb_fail(err, "number %zu of %zu is %g, which secure aggregation cannot "
			               "encode", q + 1, n, x[q]);
		if (fabs(x[q]) > bound)
			return fb_fail(err, "number %zu of %zu (%g) is beyond secure aggregation's "
			               "fixed-point range of +-%.3g for %zu clients at secure_bits=%u: "
			               "set secure_bits= lower", q + 1, n, x[q], bound, k, bits);
		out[q] = (uint64_t)(int64_t)llround(ldexp(x[q], (int)bits));
	}
	return FB_OK;
}

/* Fixed-point decoding of sums. */
void fb_fixed_decode(const uint64_t *sum, size_t n, unsigned bits, double *out)
{
	for (size_t q = 0; q < n; q++)
		out[q] = ldexp((double)(int64_t)sum[q], -(int)bits);
}

/* epsilon of rho-zCDP at delta. */
double fb_dp_epsilon(double rho, double delta)
{
	return rho + 2.0 * sqrt(rho * log(1.0 / delta));
}

/* rho of one Gaussian release with noise sigma_mult times the sensitivity. */
double fb_dp_rho(double sigma_mult)
{
	return 1.0 / (2.0 * sigma_mult * sigma_mult);
}

/* Clip to an L2 norm of clip. */
void fb_dp_clip(double *x, size_t n, double clip)
{
	double ss = 0;

	for (size_t q = 0; q < n; q++)
		ss += x[q] * x[q];
	if (ss > clip * clip)
		for (size_t q = 0; q < n; q++)
			x[q] *= clip / sqrt(ss);
}

/* Gaussian noise from the root's stream: two uniforms in (0, 1) of 53 bits per pair. */
void fb_dp_noise(const unsigned char *root, size_t me, uint64_t round, double *x, size_t n,
                 double sd)
{
	size_t np = (n + 1) / 2;
	unsigned char *b = fb_xmalloc(16 * (np > 0 ? np : 1));

	fb_sa_derive(root, "dp noise", ((uint64_t)me << 40) ^ round, b, 16 * np);
	for (size_t i = 0; i < np; i++) {
		uint64_t a = 0, c = 0;
		double u, v, r;

		for (int k = 0; k < 8; k++) {
			a |= (uint64_t)b[16 * i + (size_t)k] << (8 * k);
			c |= (uint64_t)b[16 * i + 8 + (size_t)k] << (8 * k);
		}
		u = ((double)(a >> 11) + 0.5) * ldexp(1.0, -53);
		v = ((double)(c >> 11) + 0.5) * ldexp(1.0, -53);
		r = sd * sqrt(-2.0 * log(u));
		x[2 * i] += r * cos(2.0 * M_PI * v);
		if (2 * i + 1 < n)
			x[2 * i + 1] += r * sin(2.0 * M_PI * v);
	}
	free(b);
}

/* The root: BLAKE2b of a label and the seed's 8 bytes. */
void fb_sa_root(uint64_t seed, unsigned char *root)
{
	static const char label[] = "fedbn secure aggregation";
	unsigned char in[sizeof label + 8];

	memcpy(in, label, sizeof label);
	for (int b = 0; b < 8; b++)
		in[sizeof label + (size_t)b] = (unsigned char)(seed >> (8 * b));
	crypto_generichash(root, FB_SA_KEY, in, sizeof in, NULL, 0);
}

/* A 64-bit ChaCha20 nonce holding index, little-endian. */
static void nonce_of(uint64_t index, unsigned char *nonce)
{
	for (int b = 0; b < 8; b++)
		nonce[b] = (unsigned char)(index >> (8 * b));
}

/* A labelled stream of the root. */
void fb_sa_derive(const unsigned char *root, const char *label, uint64_t index,
                  unsigned char *out, size_t len)
{
	unsigned char key[crypto_stream_chacha20_KEYBYTES], nonce[crypto_stream_chacha20_NONCEBYTES];

	crypto_generichash(key, sizeof key, (const unsigned char *)label, strlen(label), root,
	                   FB_SA_KEY);
	nonce_of(index, nonce);
	crypto_stream_chacha20(out, len, nonce, key);
	sodium_memzero(key, sizeof key);
}

/* Client me's key pair: crypto_kx's from a derived seed. */
void fb_sa_keypair(const unsigned char *root, size_t me, unsigned char *pk, unsigned char *sk)
{
	unsigned char seed[crypto_kx_SEEDBYTES];

	fb_sa_derive(root, "x25519 key", me, seed, sizeof seed);
	crypto_kx_seed_keypair(pk, sk, seed);
	sodium_memzero(seed, sizeof seed);
}

/* The public key of sk. */
void fb_sa_public(const unsigned char *sk, unsigned char *pk)
{
	crypto_scalarmult_base(pk, sk);
}

/* The pair's shared secret hashed with both public keys in a fixed order, once for the
 * masks and once for the boxes. */
int fb_sa_pair(const unsigned char *sk, const unsigned char *own_pk,
               const unsigned char *peer_pk, unsigned char *mask_seed, unsigned char *box_key,
               fb_error *err)
{
	unsigned char shared[crypto_scalarmult_BYTES];
	bool own_first = memcmp(own_pk, peer_pk, FB_SA_KEY) < 0;
	crypto_generichash_state h;

	if (crypto_scalarmult(shared, sk, peer_pk) != 0)
		return fb_fail(err, "a client's public key is unusable for key agreement");
	for (int use = 0; use < 2; use++) {
		crypto_generichash_init(&h, NULL, 0, FB_SA_KEY);
		crypto_generichash_update(&h, (const unsigned char *)(use ? "box" : "mask"),
		                          use ? 3 : 4);
		crypto_generichash_update(&h, shared, sizeof shared);
		crypto_generichash_update(&h, own_first ? own_pk : peer_pk, FB_SA_KEY);
		crypto_generichash_update(&h, own_first ? peer_pk : own_pk, FB_SA_KEY);
		crypto_generichash_final(&h, use ? box_key : mask_seed, FB_SA_KEY);
	}
	sodium_memzero(shared, sizeof shared);
	return FB_OK;
}

/* Add or subtract the round's mask: 8 bytes of ChaCha20 per number. */
void fb_sa_mask(uint64_t *y, size_t n, const unsigned char *seed, uint64_t round, int sign)
{
	unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];
	unsigned char *s = fb_xmalloc(n > 0 ? 8 * n : 1);

	nonce_of(round, nonce);
	crypto_stream_chacha20(s, 8 * n, nonce, seed);
	for (size_t q = 0; q < n; q++) {
		uint64_t m = 0;

		for (int b = 0; b < 8; b++)
			m |= (uint64_t)s[8 * q + (size_t)b] << (8 * b);
		y[q] = sign > 0 ? y[q] + m : y[q] - m;
	}
	free(s);
}

/* The box's nonce: the sender and the receiver, so that each direction has its own. */
static void box_nonce(size_t from, size_t to, unsigned char *nonce)
{
	memset(nonce, 0, crypto_secretbox_NONCEBYTES);
	nonce_of((uint64_t)from, nonce);
	nonce_of((uint64_t)to, nonce + 8);
}

/* Encrypt a share to its receiver. */
void fb_sa_box(const uint64_t *share, size_t from, size_t to, const unsigned char *key,
               unsigned char *box)
{
	unsigned char plain[8 * FB_SHAMIR_WORDS], nonce[crypto_secretbox_NONCEBYTES];

	for (size_t w = 0; w < FB_SHAMIR_WORDS; w++)
		for (int b = 0; b < 8; b++)
			plain[8 * w + (size_t)b] = (unsigned char)(share[w] >> (8 * b));
	box_nonce(from, to, nonce);
	crypto_secretbox_easy(box, plain, sizeof plain, nonce, key);
	sodium_memzero(plain, sizeof plain);
}

/* Open a share's box. */
int fb_sa_unbox(const unsigned char *box, size_t from, size_t to, const unsigned char *key,
                uint64_t *share, fb_error *err)
{
	unsigned char plain[8 * FB_SHAMIR_WORDS], nonce[crypto_secretbox_NONCEBYTES];

	box_nonce(from, to, nonce);
	if (crypto_secretbox_open_easy(plain, box, FB_SA_BOX, nonce, key) != 0)
		return fb_fail(err, "client %zu's share for client %zu does not open with their "
		               "key", from + 1, to + 1);
	for (size_t w = 0; w < FB_SHAMIR_WORDS; w++) {
		share[w] = 0;
		for (int b = 0; b < 8; b++)
			share[w] |= (uint64_t)plain[8 * w + (size_t)b] << (8 * b);
	}
	sodium_memzero(plain, sizeof plain);
	return FB_OK;
}
