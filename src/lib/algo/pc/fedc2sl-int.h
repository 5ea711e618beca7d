/* Inside fedc2sl (PC over securely summed contingency tables): the batch of one round's
 * tests and the client half that counts their tables (fedc2sl-tables.c), shared with the
 * stepper (fedc2sl.c). */
#ifndef FEDBN_FEDC2SL_INT_H
#define FEDBN_FEDC2SL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/graph.h"
#include "fedbn/pc.h"

/* The broadcast's control numbers. */
enum {
	C2_C_QUERIES = 0, /* tests in the batch */
	C2_C_MARGINS = 1, /* 1: each variable's level counts come first */
	C2_C_ROUND = 2,   /* the round, for the dropout draw */
	C2_NCONTROL = 3,
};

/* Most numbers of one client's reply (tables of one round): 2^22, 32 MiB. */
#define C2_CELLS_MAX ((size_t)1 << 22)

/* One round's tests: each x < y, then its ns increasing conditioning variables. */
typedef struct c2_batch {
	size_t n;       /* tests */
	size_t *x, *y;  /* n each */
	size_t *ns;     /* n: size of each conditioning set */
	size_t *off;    /* n + 1: where each set starts in S */
	size_t *S;      /* the sets, one after the other */
	size_t *cell;   /* n + 1: where each table starts in the reply (after the margins) */
	size_t cap, scap; /* room in the arrays and in S */
	size_t *hash;   /* hcap slots: a test's index + 1, or 0 (duplicates are asked once) */
	size_t hcap;
} c2_batch;

/* Empty b (keeping its memory). */
void c2_batch_clear(c2_batch *b);
/* Free b's memory. */
void c2_batch_release(c2_batch *b);
/* Add x _||_ y | S (any order of x and y; S increasing, ns of them) unless it is already in
 * b. */
void c2_batch_add(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns);
/* The index in b of x _||_ y | S (any order of x and y; S increasing, ns of them), added
 * unless it is there. */
size_t c2_batch_put(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns);
/* Every test level l of PC-stable may ask on the skeleton g (for every ordered adjacent
 * pair (i, j) with |adj(i)| - 1 >= l, the l-subsets of adj(i) \ {j}) into b. */
void c2_batch_level(c2_batch *b, const fb_graph *g, size_t l);
/* The collider tests of fedbn's strength rule on the skeleton g with separating sets seps:
 * i _||_ j | sepset(i, j) + {k} for each candidate i - k - j. */
void c2_batch_colliders(c2_batch *b, const fb_graph *g, const fb_sepsets *seps);
/* Lay out the replies' tables: each test's cells after margin numbers, by the levels nlev;
 * the total into *total.  FB_ERR when it passes C2_CELLS_MAX. */
int c2_batch_cells(c2_batch *b, const size_t *nlev, size_t margin, size_t *total,
                   fb_error *err);
/* The batch as the broadcast down (control numbers: margins flag, round). */
void c2_batch_write(const c2_batch *b, bool margins, size_t round, fb_msg *down);

/* Give ci the pooled answers of a round's sum: the level counts first when the round asked
 * them (margin > 0), then each of b's tests from its table at b->cell[t]. */
int c2_batch_answer(const c2_batch *b, fb_ci *ci, const double *sum, size_t margin,
                    fb_error *err);

/* Order b's tests by their conditioning set (then x, y), so that a client counts each set's
 * strata once for the tests that share it. */
void c2_batch_sort(c2_batch *b);

/* A client's rows as level codes, column by column. */
typedef struct c2_codes {
	size_t n, d;    /* rows and variables */
	size_t *nlev;   /* d: declared levels */
	uint16_t *v;    /* n x d codes, column-major (v[j * n + i]) */
	uint64_t *bits; /* the rows at each level of each variable, words words each, or NULL */
	uint32_t *levn; /* the rows at each level, as bits */
	size_t *bitoff; /* d: where variable j's levels start in levn (and, times words, bits) */
	size_t words;   /* 64-bit words of a row set */
} c2_codes;

/* The codes of ds; NULL naming a value that is no level code, a continuous variable or one
 * of more than 65,535 levels. */
c2_codes *c2_codes_new(const fb_dataset *ds, fb_error *err);
/* Free (NULL is fine). */
void c2_codes_free(c2_codes *c);

/* Most cells of a table counted on the bit path (fedc2sl-bits.c); beyond it counting row by
 * row is cheaper. */
#define C2_BITS_CELLS 256
/* Most variables of a table on the bit path. */
#define C2_BITS_DEPTH 10

/* A non-empty row set of a table's prefix: its cell index over the prefix, rows, count. */
typedef struct c2_bits_ent {
	size_t idx;          /* the prefix's levels as one index (first variable most significant) */
	const uint64_t *set; /* the rows holding them */
	uint32_t n;          /* how many */
} c2_bits_ent;

/* The kept prefixes of the last table counted on the bit path (zeros to start). */
typedef struct c2_bits_ws {
	size_t valid;                   /* depths that hold the last table's prefixes */
	size_t var[C2_BITS_DEPTH];      /* each depth's variable */
	size_t m[C2_BITS_DEPTH];        /* its non-empty sets */
	size_t cap[C2_BITS_DEPTH];      /* room for them */
	c2_bits_ent *ent[C2_BITS_DEPTH]; /* the sets */
	uint64_t *set[C2_BITS_DEPTH];   /* their rows past depth 0 (depth 0 points into codes) */
} c2_bits_ws;

/* Build c's row sets (c->bits), or leave them NULL where the path is off. */
void c2_bits_init(c2_codes *c);
/* Free w's memory. */
void c2_bits_release(c2_bits_ws *w);
/* Count x _||_ y | S's table of cells counts into tab (zeros) on the bit path; false, tab
 * untouched, where the path is off or the table too large. */
bool c2_bits_table(c2_bits_ws *w, const c2_codes *c, size_t x, size_t y, const size_t *S,
                   size_t ns, size_t cells, double *tab);

/* The client half: client k reads the tests of down and answers with its tables counted
 * on its own rows local (the margins first when asked), or with nothing when it drops out
 * of the round (dropout: the chance, seed: the draw's stream); *codes holds local's codes,
 * made at the first round.  FB_ERR naming a malformed broadcast or a value that is no level
 * code. */
int c2_client_tables(const fb_dataset *local, const fb_msg *down, size_t k, double dropout,
                     uint64_t seed, c2_codes **codes, fb_msg *up, fb_error *err);
/* Whether client k drops out of round r (chance p, from seed): the same draw wherever the
 * client runs. */
bool c2_drops(uint64_t seed, size_t round, size_t k, double p);

#endif
