/* The distinct rows of a matrix of small integers (level codes) with their counts: what
 * lets k-means iterate over distinct rows instead of rows. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* 1 when every value of x is an integer small enough that sums of n of them are exact. */
int fb_rows_integral(const double *x, size_t n, size_t d)
{
	double limit = 9007199254740992.0 / (double)(n ? n : 1); /* 2^53 / n */

	for (size_t e = 0; e < n * d; e++)
		if (!(fabs(x[e]) <= limit && x[e] == floor(x[e])))
			return 0;
	return 1;
}

/* Hash of a row of integral values. */
static uint64_t row_hash(const double *row, size_t d)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t t = 0; t < d; t++) {
		h ^= (uint64_t)(int64_t)row[t];
		h *= 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

/* Free what u holds. */
void fb_distinct_rows_free(fb_distinct_rows *u)
{
	free(u->x);
	free(u->w);
	free(u->of);
}

/* Room for one more distinct row of d values (doubling, at most max rows); FB_ERR past
 * max or on out of memory. */
static int distinct_grow(fb_distinct_rows *u, size_t d, size_t max)
{
	size_t cap = u->cap ? 2 * u->cap : 256;
	double *x, *w;

	if (u->p < u->cap)
		return FB_OK;
	if (u->p >= max)
		return FB_ERR;
	cap = cap < max ? cap : max;
	x = realloc(u->x, cap * d * sizeof *x);
	if (x == NULL)
		return FB_ERR;
	u->x = x;
	w = realloc(u->w, cap * sizeof *w);
	if (w == NULL)
		return FB_ERR;
	u->w = w;
	u->cap = cap;
	return FB_OK;
}

/* The distinct rows of x by a hash table of the rows. */
int fb_distinct_rows_find(const double *x, size_t n, size_t d, fb_distinct_rows *u)
{
	size_t size = 1;
	size_t *slot;

	if (n < 4)
		return FB_ERR;
	while (size < n + 2)
		size *= 2;
	slot = malloc(size * sizeof *slot);
	u->of = malloc(n * sizeof *u->of);
	if (slot == NULL || u->of == NULL) {
		free(slot);
		return FB_ERR;
	}
	for (size_t h = 0; h < size; h++)
		slot[h] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const double *row = x + i * d;
		size_t h = row_hash(row, d) & (size - 1);

		while (slot[h] != SIZE_MAX && memcmp(u->x + slot[h] * d, row, d * sizeof *row) != 0)
			h = (h + 1) & (size - 1);
		if (slot[h] == SIZE_MAX) {
			/* nearly every row new so far: most likely too many to pay */
			if ((i == 1024 && u->p > 900) || distinct_grow(u, d, n / 2) != FB_OK) {
				free(slot);
				return FB_ERR;
			}
			memcpy(u->x + u->p * d, row, d * sizeof *row);
			u->w[u->p] = 0;
			slot[h] = u->p++;
		}
		u->w[slot[h]] += 1;
		u->of[i] = slot[h];
	}
	free(slot);
	return FB_OK;
}
