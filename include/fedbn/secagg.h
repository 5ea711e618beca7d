/* Secure aggregation (Bonawitz et al., CCS 2017) of the sums a summed server half receives:
 * each client encodes its vector in fixed point modulo 2^64 and adds pairwise masks that
 * cancel in the sum; the server only ever holds masked vectors and their sum.  The pair seeds
 * come from X25519 key agreement; the masks are ChaCha20 streams with the round as nonce;
 * each client's secret key is Shamir-shared among the others (threshold t) and encrypted to
 * each of them, so that the server can remove a lost client's masks from the shares of t
 * survivors.  Every random byte derives from the run's seed (same seed, same bits).  The
 * only code that links libsodium. */
#ifndef FEDBN_SECAGG_H
#define FEDBN_SECAGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"

/* Bytes of a key, a seed, a secret. */
#define FB_SA_KEY 32
/* Field elements of one Shamir share of a 32-byte secret (4 bytes per element). */
#define FB_SHAMIR_WORDS 8
/* The prime of the field the shares live in: 2^61 - 1. */
#define FB_SHAMIR_P ((UINT64_C(1) << 61) - 1)
/* Bytes of one encrypted share (8 words of 8 bytes, plus the box's tag). */
#define FB_SA_BOX (8 * FB_SHAMIR_WORDS + 16)

/* Start libsodium once; FB_ERR when it cannot start. */
int fb_sa_init(fb_error *err);

/* (a * b) mod p and a^-1 mod p (a != 0) in the field of the shares. */
uint64_t fb_gf_mul(uint64_t a, uint64_t b);
uint64_t fb_gf_inv(uint64_t a);

/* Shamir: split the 32-byte secret into n shares of which any t recover it (1 < t <= n);
 * share i (the point x = i + 1) is FB_SHAMIR_WORDS field elements at shares + i *
 * FB_SHAMIR_WORDS; the polynomials' coefficients come from randombytes_buf_deterministic
 * keyed by seed. */
void fb_shamir_split(const unsigned char *secret, size_t t, size_t n, const unsigned char *seed,
                     uint64_t *shares);
/* Shamir: the secret from m shares at the points xs[0..m-1] (distinct, non-zero); right when
 * m is at least the threshold the shares were made with.  FB_ERR when two points are equal,
 * a point is 0 or a share holds no field element. */
int fb_shamir_combine(const uint64_t *xs, const uint64_t *shares, size_t m,
                      unsigned char *secret, fb_error *err);

/* Fixed point: the largest |x| that k clients' sum of round(x * 2^bits) holds in a signed
 * 64-bit ring. */
double fb_fixed_bound(unsigned bits, size_t k);
/* Encode n numbers for a sum over k clients; FB_ERR naming the first that is not finite or
 * beyond fb_fixed_bound (its position from 1, its value, the bound and secure_bits=). */
int fb_fixed_encode(const double *x, size_t n, unsigned bits, size_t k, uint64_t *out,
                    fb_error *err);
/* Decode n sums: the signed ring value times 2^-bits. */
void fb_fixed_decode(const uint64_t *sum, size_t n, unsigned bits, double *out);

/* The 32-byte root of a run's key material, from its seed. */
void fb_sa_root(uint64_t seed, unsigned char *root);
/* len bytes of the stream labelled label, number index, of root (ChaCha20 keyed by a hash of
 * root and label, nonce index). */
void fb_sa_derive(const unsigned char *root, const char *label, uint64_t index,
                  unsigned char *out, size_t len);
/* Client me's X25519 key pair, from root. */
void fb_sa_keypair(const unsigned char *root, size_t me, unsigned char *pk, unsigned char *sk);
/* The public key of the secret key sk. */
void fb_sa_public(const unsigned char *sk, unsigned char *pk);
/* The seed of the masks between the holder of sk and the holder of peer_pk (own_pk its own
 * public key), the same from both ends, and the key of the box their shares travel in;
 * FB_ERR when the peer's key is unusable. */
int fb_sa_pair(const unsigned char *sk, const unsigned char *own_pk,
               const unsigned char *peer_pk, unsigned char *mask_seed, unsigned char *box_key,
               fb_error *err);
/* Add (sign +1) or subtract (-1) the round's mask of seed to the n ring numbers y. */
void fb_sa_mask(uint64_t *y, size_t n, const unsigned char *seed, uint64_t round, int sign);
/* Encrypt client from's share (FB_SHAMIR_WORDS words) to client to: FB_SA_BOX bytes. */
void fb_sa_box(const uint64_t *share, size_t from, size_t to, const unsigned char *key,
               unsigned char *box);
/* Open such a box; FB_ERR when it was not made with key for this pair. */
int fb_sa_unbox(const unsigned char *box, size_t from, size_t to, const unsigned char *key,
                uint64_t *share, fb_error *err);

/* Differential privacy by the Gaussian mechanism (Bun and Steinke 2016): the (epsilon,
 * delta) of rho-zCDP, epsilon = rho + 2 sqrt(rho ln(1/delta)). */
double fb_dp_epsilon(double rho, double delta);
/* The zCDP of one release of a sum of sensitivity clip with noise of standard deviation
 * sigma_mult * clip: 1 / (2 sigma_mult^2). */
double fb_dp_rho(double sigma_mult);
/* Scale the n numbers x down to an L2 norm of at most clip (unchanged within it). */
void fb_dp_clip(double *x, size_t n, double clip);
/* Add to x (n numbers) client me's share of the round's noise: N(0, sd^2) each, from the
 * stream "dp noise" of root (Box-Muller on its ChaCha20 bytes). */
void fb_dp_noise(const unsigned char *root, size_t me, uint64_t round, double *x, size_t n,
                 double sd);

#endif
