/* Secure aggregation's envelope, shared by its client's and its server's sides. */
#ifndef FEDBN_SECURE_INT_H
#define FEDBN_SECURE_INT_H

#include "fedbn/secure.h"

/* Append an envelope of stage to m after its own bytes: the clients k, the round (the
 * masks' nonce), the numbers n of a vector, k flags (1: takes part; 2: lost, in a
 * recovery) and npay bytes of payload. */
void fb_sa_env_put(fb_msg *m, enum fb_secure_stage stage, size_t k, uint64_t round, size_t n,
                   const unsigned char *flags, const unsigned char *pay, size_t npay);
/* The 8 little-endian bytes at p as a number. */
uint64_t fb_sa_get_u64(const unsigned char *p);

#endif
