/* fedc2sl's bit path for a client's small tables: each level of each variable is kept as
 * the set of rows holding it, one bit per row, so that a cell count is the number of bits
 * set in the AND of the sets of its levels, 64 rows per instruction, where counting row by
 * row takes a few steps per row and test.  A table is built variable by variable in its own
 * order (the conditioning variables, x, then y): the non-empty rows sets of each prefix are
 * kept, so the tests of one conditioning set (and one x) that follow each other in a sorted
 * batch only AND what differs.  The counts are the same numbers as row by row; the path is
 * taken for tables of few cells, on processors that count bits in one instruction. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedc2sl-int.h"

/* Most bytes of a client's row sets (beyond it its tables are counted row by row). */
#define C2_BITS_MEMORY_MAX ((size_t)64 << 20)

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
/* Functions that count bits are compiled for the instruction, used only where present. */
#define C2_POPCNT __attribute__((target("popcnt")))
/* True when the processor counts bits in one instruction. */
static bool c2_bits_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt");
}
#else
#define C2_POPCNT
/* Elsewhere the bit path is off (a bit count in software gains too little). */
static bool c2_bits_usable(void)
{
	return false;
}
#endif

/* Rows of the set s (W words). */
C2_POPCNT static uint32_t set_count(const uint64_t *s, size_t W)
{
	uint32_t n = 0;

	for (size_t k = 0; k < W; k++)
		n += (uint32_t)__builtin_popcountll(s[k]);
	return n;
}

/* The row sets of each level of each variable of c, with their sizes; nothing when the
 * processor lacks the instruction or they would pass C2_BITS_MEMORY_MAX. */
void c2_bits_init(c2_codes *c)
{
	size_t W = (c->n + 63) / 64, total = 0, off = 0;

	for (size_t j = 0; j < c->d; j++)
		total += c->nlev[j];
	if (!c2_bits_usable() || c->n == 0 || total > C2_BITS_MEMORY_MAX / 8 / W)
		return;
	c->bits = fb_xcalloc(total * W, sizeof *c->bits);
	c->levn = fb_xmalloc(total * sizeof *c->levn);
	c->bitoff = fb_xmalloc(c->d * sizeof *c->bitoff);
	c->words = W;
	for (size_t j = 0; j < c->d; j++) {
		const uint16_t *col = c->v + j * c->n;

		c->bitoff[j] = off;
		for (size_t i = 0; i < c->n; i++)
			c->bits[(off + col[i]) * W + i / 64] |= UINT64_C(1) << (i % 64);
		for (size_t a = 0; a < c->nlev[j]; a++)
			c->levn[off + a] = set_count(c->bits + (off + a) * W, W);
		off += c->nlev[j];
	}
}

/* Free the workspace's memory. */
void c2_bits_release(c2_bits_ws *w)
{
	for (size_t k = 0; k < C2_BITS_DEPTH; k++) {
		free(w->set[k]);
		free(w->ent[k]);
	}
	memset(w, 0, sizeof *w);
}

/* Write the rows in both a and b (W words) to out; their count. */
C2_POPCNT static uint32_t and_store(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                    size_t W)
{
	for (size_t k = 0; k < W; k++)
		out[k] = a[k] & b[k];
	return set_count(out, W);
}

/* Rows in both a and b (W words). */
C2_POPCNT static uint32_t and_count(const uint64_t *a, const uint64_t *b, size_t W)
{
	uint32_t n = 0;

	for (size_t k = 0; k < W; k++)
		n += (uint32_t)__builtin_popcountll(a[k] & b[k]);
	return n;
}

/* Room at depth k for m entries (and their sets past depth 0). */
static void depth_room(c2_bits_ws *w, size_t k, size_t m, size_t W)
{
	if (m <= w->cap[k])
		return;
	w->cap[k] = m;
	w->ent[k] = fb_xreallocarray(w->ent[k], m, sizeof *w->ent[k]);
	if (k > 0)
		w->set[k] = fb_xreallocarray(w->set[k], m * W, sizeof *w->set[k]);
}

/* The non-empty row sets of the prefix ending at depth k, whose last variable is u: those
 * of depth k - 1 split by u's levels (at depth 0, u's own sets). */
static void depth_build(c2_bits_ws *w, const c2_codes *c, size_t k, size_t u)
{
	size_t W = c->words, lu = c->nlev[u], off = c->bitoff[u], m = 0;
	size_t prev = k == 0 ? 1 : w->m[k - 1];

	depth_room(w, k, prev * lu, W);
	for (size_t e = 0; e < prev; e++)
		for (size_t a = 0; a < lu; a++) {
			const uint64_t *ua = c->bits + (off + a) * W;
			c2_bits_ent *out = &w->ent[k][m];

			if (c->levn[off + a] == 0)
				continue;
			if (k == 0) {
				*out = (c2_bits_ent){ a, ua, c->levn[off + a] };
			} else {
				uint64_t *s = w->set[k] + m * W;
				const c2_bits_ent *in = &w->ent[k - 1][e];

				*out = (c2_bits_ent){ in->idx * lu + a, s, and_store(s, in->set, ua, W) };
				if (out->n == 0)
					continue;
			}
			m++;
		}
	w->m[k] = m;
	w->var[k] = u;
}

/* The counts of the last depth's sets against each level of y into tab (zeros): the last
 * level takes what the others leave, since y's levels part the rows. */
static void last_count(const c2_bits_ws *w, const c2_codes *c, size_t k, size_t y,
                       double *tab)
{
	size_t W = c->words, ly = c->nlev[y], off = c->bitoff[y];

	for (size_t e = 0; e < w->m[k]; e++) {
		const c2_bits_ent *in = &w->ent[k][e];
		uint32_t rest = in->n;
		double *row = tab + in->idx * ly;

		for (size_t b = 0; b + 1 < ly; b++) {
			uint32_t n = c->levn[off + b] > 0 ? and_count(in->set, c->bits + (off + b) * W, W)
			                                  : 0;

			row[b] = (double)n;
			rest -= n;
		}
		row[ly - 1] = (double)rest;
	}
}

/* Count x _||_ y | S's table (cells counts, tab zeros) on the bit path when it is there and
 * the table small enough; false (tab untouched) otherwise. */
bool c2_bits_table(c2_bits_ws *w, const c2_codes *c, size_t x, size_t y, const size_t *S,
                   size_t ns, size_t cells, double *tab)
{
	size_t depth = ns + 1, keep = 0;

	if (c->bits == NULL || cells > C2_BITS_CELLS || depth > C2_BITS_DEPTH)
		return false;
	while (keep < w->valid && keep < depth &&
	       w->var[keep] == (keep < ns ? S[keep] : x))
		keep++;
	for (size_t k = keep; k < depth; k++)
		depth_build(w, c, k, k < ns ? S[k] : x);
	w->valid = depth;
	last_count(w, c, depth - 1, y, tab);
	return true;
}
