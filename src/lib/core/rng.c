/* Named random streams derived from one seed. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"

/* SplitMix64 finaliser: spreads the bits of x. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* FNV-1a over n bytes, going on from h. */
uint64_t fb_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* FNV-1a hash of a stream name. */
static uint64_t hash_name(const char *s)
{
	return fb_hash_bytes(FB_HASH_INIT, s, strlen(s));
}

/* A Mersenne Twister seeded from (seed, stream); exits on out-of-memory like fb_xmalloc. */
gsl_rng *fb_rng_stream(uint64_t seed, const char *stream)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	uint64_t s = mix64(mix64(seed) ^ hash_name(stream));

	if (r == NULL)
		fb_xmalloc(SIZE_MAX); /* reports out of memory and exits */
	/* mt19937 takes 32 bits of seed; 0 would mean GSL's default seed, so avoid it */
	s = (s ^ (s >> 32)) & 0xffffffffULL;
	gsl_rng_set(r, (unsigned long)(s == 0 ? 1 : s));
	return r;
}

/* Uniform integer in [0, n). */
size_t fb_rng_index(gsl_rng *r, size_t n)
{
	return (size_t)gsl_rng_uniform_int(r, (unsigned long)n);
}

/* Fisher-Yates shuffle of idx. */
void fb_rng_shuffle(gsl_rng *r, size_t *idx, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = fb_rng_index(r, i);
		size_t t = idx[i - 1];

		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}
