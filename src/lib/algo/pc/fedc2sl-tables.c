/* fedc2sl's batches and tables: the server lists every test a PC level (or the collider
 * rule) may ask, once each, and broadcasts them as numbers (x, y, |S|, S...); a client
 * answers with one contingency table per test counted on its own rows, the tables one after
 * the other in a single vector, so that the whole level is one secure sum. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "fedc2sl-int.h"

/* Empty the batch. */
void c2_batch_clear(c2_batch *b)
{
	b->n = 0;
	if (b->hash != NULL)
		memset(b->hash, 0, b->hcap * sizeof *b->hash);
}

/* Free the batch. */
void c2_batch_release(c2_batch *b)
{
	free(b->x);
	free(b->y);
	free(b->ns);
	free(b->off);
	free(b->S);
	free(b->cell);
	free(b->hash);
	memset(b, 0, sizeof *b);
}

/* The hash of a test (a number at a time, the bits mixed at the end: it only finds a test,
 * the batch keeps its own order). */
static uint64_t test_hash(size_t x, size_t y, const size_t *S, size_t ns)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	uint64_t h = ((uint64_t)x * k + (uint64_t)y) * k + (uint64_t)ns;

	for (size_t v = 0; v < ns; v++)
		h = h * k + (uint64_t)S[v];
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* Whether test t of b is x _||_ y | S. */
static bool test_is(const c2_batch *b, size_t t, size_t x, size_t y, const size_t *S,
                    size_t ns)
{
	return b->x[t] == x && b->y[t] == y && b->ns[t] == ns &&
	       (ns == 0 || memcmp(b->S + b->off[t], S, ns * sizeof *S) == 0);
}

/* Grow the hash to hold twice the tests, and put them back in. */
static void hash_grow(c2_batch *b)
{
	size_t cap = b->hcap ? 2 * b->hcap : 1024;

	free(b->hash);
	b->hash = fb_xcalloc(cap, sizeof *b->hash);
	b->hcap = cap;
	for (size_t t = 0; t < b->n; t++) {
		size_t s = test_hash(b->x[t], b->y[t], b->S + b->off[t], b->ns[t]) & (cap - 1);

		while (b->hash[s] != 0)
			s = (s + 1) & (cap - 1);
		b->hash[s] = t + 1;
	}
}

/* Room for one more test of ns variables (the hash apart). */
static void batch_room(c2_batch *b, size_t ns)
{
	if (b->n + 1 >= b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->x = fb_xreallocarray(b->x, b->cap, sizeof *b->x);
		b->y = fb_xreallocarray(b->y, b->cap, sizeof *b->y);
		b->ns = fb_xreallocarray(b->ns, b->cap, sizeof *b->ns);
		b->off = fb_xreallocarray(b->off, b->cap + 1, sizeof *b->off);
		b->cell = fb_xreallocarray(b->cell, b->cap + 1, sizeof *b->cell);
	}
	if (b->n == 0)
		b->off[0] = 0;
	while (b->off[b->n] + ns > b->scap) {
		b->scap = b->scap ? 2 * b->scap : 1024;
		b->S = fb_xreallocarray(b->S, b->scap, sizeof *b->S);
	}
}

/* Append x _||_ y | S (x < y) as test b->n, with room made. */
static void batch_push(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns)
{
	b->x[b->n] = x;
	b->y[b->n] = y;
	b->ns[b->n] = ns;
	if (ns > 0)
		memcpy(b->S + b->off[b->n], S, ns * sizeof *S);
	b->off[b->n + 1] = b->off[b->n] + ns;
	b->n++;
}

/* The index of a test, added unless it is there. */
size_t c2_batch_put(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns)
{
	size_t a = x < y ? x : y, c = x < y ? y : x, s;

	batch_room(b, ns);
	if (2 * (b->n + 1) > b->hcap)
		hash_grow(b);
	s = test_hash(a, c, S, ns) & (b->hcap - 1);
	for (; b->hash[s] != 0; s = (s + 1) & (b->hcap - 1))
		if (test_is(b, b->hash[s] - 1, a, c, S, ns))
			return b->hash[s] - 1;
	b->hash[s] = b->n + 1;
	batch_push(b, a, c, S, ns);
	return b->n - 1;
}

/* Add a test unless it is there. */
void c2_batch_add(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns)
{
	c2_batch_put(b, x, y, S, ns);
}

/* Every test of level l. */
void c2_batch_level(c2_batch *b, const fb_graph *g, size_t l)
{
	size_t *start, *adj = fb_graph_adjacency(g, &start);
	size_t *comb = fb_xmalloc((l + 1) * sizeof *comb), *S = fb_xmalloc((l + 1) * sizeof *S);
	size_t *rest = fb_xmalloc((g->d + 1) * sizeof *rest);

	for (size_t i = 0; i < g->d; i++) {
		const size_t *a = adj + start[i];
		size_t m = start[i + 1] - start[i];

		if (m < l + 1)
			continue;
		for (size_t p = 0; p < m; p++) {
			size_t r = 0;

			for (size_t q = 0; q < m; q++)
				if (q != p)
					rest[r++] = a[q];
			for (size_t t = 0; t < l; t++)
				comb[t] = t;
			do {
				for (size_t t = 0; t < l; t++)
					S[t] = rest[comb[t]];
				c2_batch_add(b, i, a[p], S, l);
			} while (l > 0 && fb_pc_subset_next(comb, l, m - 1));
		}
	}
	free(rest);
	free(S);
	free(comb);
	free(start);
	free(adj);
}

/* The collider tests. */
void c2_batch_colliders(c2_batch *b, const fb_graph *g, const fb_sepsets *seps)
{
	size_t d = g->d, *start, *adj = fb_graph_adjacency(g, &start);
	size_t *S = fb_xmalloc((d + 1) * sizeof *S);

	for (size_t k = 0; k < d; k++)
		for (size_t p = start[k]; p < start[k + 1]; p++)
			for (size_t q = p + 1; q < start[k + 1]; q++) {
				size_t i = adj[p], j = adj[q], ns, t;

				if (fb_graph_adjacent(g, i, j) || !fb_sepsets_has(seps, i, j) ||
				    fb_sepsets_contains(seps, i, j, k))
					continue;
				ns = fb_sepsets_get(seps, i, j, S);
				for (t = ns; t > 0 && S[t - 1] > k; t--)
					S[t] = S[t - 1];
				S[t] = k;
				c2_batch_add(b, i, j, S, ns + 1);
			}
	free(S);
	free(start);
	free(adj);
}

/* One test, for sorting. */
typedef struct test_ref {
	size_t x, y, ns;
	const size_t *S;
} test_ref;

/* Order tests by the size of their set, the set, then x and y. */
static int test_cmp(const void *pa, const void *pb)
{
	const test_ref *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	for (size_t v = 0; v < a->ns; v++)
		if (a->S[v] != b->S[v])
			return a->S[v] < b->S[v] ? -1 : 1;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	return (a->y > b->y) - (a->y < b->y);
}

/* The margins, then each test's answer from its pooled table. */
int c2_batch_answer(const c2_batch *b, fb_ci *ci, const double *sum, size_t margin,
                    fb_error *err)
{
	fb_ci_result res;

	if (margin > 0 && fb_ci_pooled_margins(ci, sum, err) != FB_OK)
		return FB_ERR;
	for (size_t t = 0; t < b->n; t++)
		if (fb_ci_pooled_answer(ci, b->x[t], b->y[t], b->S + b->off[t], b->ns[t],
		                        sum + b->cell[t], &res, err) != FB_OK)
			return FB_ERR;
	return FB_OK;
}

/* Sort the tests by their set. */
void c2_batch_sort(c2_batch *b)
{
	test_ref *r = fb_xmalloc((b->n > 0 ? b->n : 1) * sizeof *r);
	size_t *S = fb_xmalloc((b->off[b->n] > 0 ? b->off[b->n] : 1) * sizeof *S), n = b->n;

	if (n == 0) {
		free(r);
		free(S);
		return;
	}
	if (b->off[n] > 0) /* level 0's tests have no sets, and no set list */
		memcpy(S, b->S, b->off[n] * sizeof *S);
	for (size_t t = 0; t < n; t++)
		r[t] = (test_ref){ b->x[t], b->y[t], b->ns[t], S + b->off[t] };
	qsort(r, n, sizeof *r, test_cmp);
	c2_batch_clear(b);
	for (size_t t = 0; t < n; t++)
		c2_batch_add(b, r[t].x, r[t].y, r[t].S, r[t].ns);
	free(S);
	free(r);
}

/* Lay out the tables. */
int c2_batch_cells(c2_batch *b, const size_t *nlev, size_t margin, size_t *total,
                   fb_error *err)
{
	double cells = (double)margin;

	for (size_t t = 0; t < b->n; t++) {
		double one = (double)nlev[b->x[t]] * (double)nlev[b->y[t]];

		for (size_t v = 0; v < b->ns[t]; v++)
			one *= (double)nlev[b->S[b->off[t] + v]];
		b->cell[t] = (size_t)cells;
		cells += one;
		if (cells > (double)C2_CELLS_MAX)
			return fb_fail(err, "the %zu tests of this round need tables of more than %zu "
			               "counts from each client (%zu tests so far); limit the "
			               "conditioning sets with depth=", b->n, C2_CELLS_MAX, t + 1);
	}
	b->cell[b->n] = (size_t)cells;
	*total = (size_t)cells;
	return FB_OK;
}

/* The batch as numbers. */
void c2_batch_write(const c2_batch *b, bool margins, size_t round, fb_msg *down)
{
	double *v = fb_msg_doubles(down, 3 * b->n + b->off[b->n]);
	double c[C2_NCONTROL];

	for (size_t t = 0; t < b->n; t++) {
		*v++ = (double)b->x[t];
		*v++ = (double)b->y[t];
		*v++ = (double)b->ns[t];
		for (size_t s = 0; s < b->ns[t]; s++)
			*v++ = (double)b->S[b->off[t] + s];
	}
	c[C2_C_QUERIES] = (double)b->n;
	c[C2_C_MARGINS] = margins ? 1.0 : 0.0;
	c[C2_C_ROUND] = (double)round;
	fb_msg_control(down, c, C2_NCONTROL);
}

/* Whether client k drops out of a round. */
bool c2_drops(uint64_t seed, size_t round, size_t k, double p)
{
	uint64_t key[3] = { seed, (uint64_t)round, (uint64_t)k };
	uint64_t h = fb_hash_bytes(FB_HASH_INIT, key, sizeof key);

	return p > 0.0 && (double)(h >> 11) * 0x1.0p-53 < p;
}

/* The codes of ds's values into c (row by row, as ds keeps them); FB_ERR naming the first
 * value that is no level code of its variable. */
static int codes_fill(c2_codes *c, const fb_dataset *ds, fb_error *err)
{
	for (size_t i = 0; i < ds->n; i++) {
		const double *row = ds->x + i * ds->d;

		for (size_t j = 0; j < ds->d; j++) {
			double v = row[j];

			if (!(v >= 0.0 && v < (double)c->nlev[j]) || v != (double)(uint16_t)v)
				return fb_fail(err, "row %zu of '%s' holds %g, not a level code below %zu",
				               i + 1, ds->vars[j].name, v, c->nlev[j]);
			c->v[j * ds->n + i] = (uint16_t)v;
		}
	}
	return FB_OK;
}

/* The client's values as level codes, column by column; NULL naming a value that is no
 * level code of its variable, a continuous variable, or one of more than 65,535 levels. */
c2_codes *c2_codes_new(const fb_dataset *ds, fb_error *err)
{
	c2_codes *c = fb_xcalloc(1, sizeof *c);

	c->n = ds->n;
	c->d = ds->d;
	c->nlev = fb_xmalloc(ds->d * sizeof *c->nlev);
	c->v = fb_xmalloc((ds->n * ds->d > 0 ? ds->n * ds->d : 1) * sizeof *c->v);
	for (size_t j = 0; j < ds->d; j++) {
		const fb_var *var = &ds->vars[j];

		c->nlev[j] = var->nlevels;
		if (var->kind != FB_DISCRETE || var->nlevels > UINT16_MAX) {
			fb_fail(err, var->kind != FB_DISCRETE ? "variable '%s' is continuous; fedc2sl "
			        "counts discrete values" : "variable '%s' has more than 65,535 levels",
			        var->name);
			c2_codes_free(c);
			return NULL;
		}
	}
	if (codes_fill(c, ds, err) != FB_OK) {
		c2_codes_free(c);
		return NULL;
	}
	c2_bits_init(c);
	return c;
}

/* Free the codes (NULL is fine). */
void c2_codes_free(c2_codes *c)
{
	if (c == NULL)
		return;
	free(c->nlev);
	free(c->v);
	free(c->bits);
	free(c->levn);
	free(c->bitoff);
	free(c);
}

/* Most variables of a test a client takes (its set, x and y). */
#define C2_AXES_MAX 66

/* Read the tests of down into b; FB_ERR naming what is malformed. */
static int read_batch(const fb_msg *down, size_t d, c2_batch *b, fb_error *err)
{
	size_t q = 0, nq, S[C2_AXES_MAX - 2];

	if (down->nc != C2_NCONTROL || !(down->c[C2_C_QUERIES] >= 0) ||
	    down->c[C2_C_QUERIES] > (double)down->nd)
		return fb_fail(err, "fedc2sl: the broadcast holds %zu control numbers, not %d",
		               down->nc, C2_NCONTROL);
	nq = (size_t)down->c[C2_C_QUERIES];
	c2_batch_clear(b);
	for (size_t t = 0; t < nq; t++) {
		size_t x, y, ns;

		if (q + 3 > down->nd || (x = (size_t)down->d[q]) >= d ||
		    (y = (size_t)down->d[q + 1]) >= d || x == y ||
		    (ns = (size_t)down->d[q + 2]) + 2 > d || ns + 2 > C2_AXES_MAX || q + 3 + ns > down->nd)
			return fb_fail(err, "fedc2sl: test %zu of the broadcast is malformed", t + 1);
		for (size_t s = 0; s < ns; s++)
			if ((S[s] = (size_t)down->d[q + 3 + s]) >= d || S[s] == x || S[s] == y)
				return fb_fail(err, "fedc2sl: test %zu conditions on a variable out of "
				               "place", t + 1);
		batch_room(b, ns);
		batch_push(b, x < y ? x : y, x < y ? y : x, S, ns);
		q += 3 + ns;
	}
	return FB_OK;
}

/* Whether tests t and u of b condition on the same set. */
static bool same_set(const c2_batch *b, size_t t, size_t u)
{
	return b->ns[t] == b->ns[u] &&
	       (b->ns[t] == 0 || memcmp(b->S + b->off[t], b->S + b->off[u],
	                                b->ns[t] * sizeof *b->S) == 0);
}

/* Each row's stratum code over test t's conditioning set into key. */
static void count_strata(const c2_codes *c, const c2_batch *b, size_t t, uint32_t *key)
{
	const size_t *S = b->S + b->off[t];

	memset(key, 0, c->n * sizeof *key);
	for (size_t v = 0; v < b->ns[t]; v++) {
		const uint16_t *col = c->v + S[v] * c->n;
		uint32_t lev = (uint32_t)c->nlev[S[v]];

		for (size_t i = 0; i < c->n; i++)
			key[i] = key[i] * lev + col[i];
	}
}

/* Most cells a table is counted in four interleaved copies (rows 4i, 4i + 1, ... each to
 * its own, so that neighbouring rows of the same cell do not wait on each other), and only
 * when the rows are at least four times the cells: with fewer rows per cell they seldom
 * wait, and the copies cost more to clear and add than they save. */
#define C2_SPLIT_CELLS 16384

/* Count test t's table of cells counts into tab (zeros), the rows' stratum codes in key;
 * scratch holds 4 C2_SPLIT_CELLS counts. */
static void count_table(const c2_codes *c, const c2_batch *b, size_t t, const uint32_t *key,
                        uint32_t *scratch, double *tab)
{
	const uint16_t *cx = c->v + b->x[t] * c->n, *cy = c->v + b->y[t] * c->n;
	size_t ly = c->nlev[b->y[t]], lxy = c->nlev[b->x[t]] * ly, n = c->n, i = 0;
	size_t cells = b->cell[t + 1] - b->cell[t];

	if (cells > C2_SPLIT_CELLS || 4 * cells > n) {
		for (; i < n; i++)
			tab[key[i] * lxy + (size_t)cx[i] * ly + cy[i]] += 1.0;
		return;
	}
	memset(scratch, 0, 4 * cells * sizeof *scratch);
	for (; i + 4 <= n; i += 4)
		for (size_t u = 0; u < 4; u++)
			scratch[u * cells + key[i + u] * lxy + (size_t)cx[i + u] * ly + cy[i + u]]++;
	for (; i < n; i++)
		scratch[key[i] * lxy + (size_t)cx[i] * ly + cy[i]]++;
	for (size_t q = 0; q < cells; q++)
		tab[q] = (double)scratch[q] + (double)scratch[cells + q] +
		         (double)scratch[2 * cells + q] + (double)scratch[3 * cells + q];
}

/* The margins: each variable's level counts, one variable after the other (the sizes of
 * its row sets where the bit path keeps them). */
static void count_margins(const c2_codes *c, double *out)
{
	for (size_t j = 0; j < c->d; j++) {
		const uint16_t *col = c->v + j * c->n;

		if (c->bits != NULL)
			for (size_t a = 0; a < c->nlev[j]; a++)
				out[a] = (double)c->levn[c->bitoff[j] + a];
		else
			for (size_t i = 0; i < c->n; i++)
				out[col[i]] += 1.0;
		out += c->nlev[j];
	}
}

/* Test t's variables in the order of its table's axes (its set, x, y) into u; how many. */
static size_t test_axes(const c2_batch *b, size_t t, size_t *u)
{
	if (b->ns[t] > 0) /* level 0's batch has no set list */
		memcpy(u, b->S + b->off[t], b->ns[t] * sizeof *u);
	u[b->ns[t]] = b->x[t];
	u[b->ns[t] + 1] = b->y[t];
	return b->ns[t] + 2;
}

/* Test t's table (cells counts into to) from test f's, counted over the same variables
 * in another order: each cell of t read where f keeps it. */
static void table_permute(const c2_codes *c, const c2_batch *b, size_t f, size_t t,
                          const double *from, double *to)
{
	size_t uf[C2_AXES_MAX], ut[C2_AXES_MAX], str[C2_AXES_MAX], dig[C2_AXES_MAX] = { 0 };
	size_t m = test_axes(b, f, uf), idx = 0, cells = b->cell[t + 1] - b->cell[t];

	test_axes(b, t, ut);
	for (size_t k = 0; k < m; k++) { /* the stride in f's table of t's axis k */
		size_t s = 1, j = m;

		while (uf[--j] != ut[k])
			s *= c->nlev[uf[j]];
		str[k] = s;
	}
	for (size_t q = 0; q < cells; q++) {
		to[q] = from[idx];
		for (size_t k = m; k-- > 0;) {
			idx += str[k];
			if (++dig[k] < c->nlev[ut[k]])
				break;
			idx -= str[k] * c->nlev[ut[k]];
			dig[k] = 0;
		}
	}
}

/* Test t's table counted: on the bit path when small, else row by row (key holding the
 * strata of test *keyed's set, made anew for another set). */
static void count_one(const c2_codes *c, const c2_batch *b, size_t t, c2_bits_ws *w,
                      uint32_t *key, size_t *keyed, uint32_t *scratch, double *tab)
{
	if (c2_bits_table(w, c, b->x[t], b->y[t], b->S + b->off[t], b->ns[t],
	                  b->cell[t + 1] - b->cell[t], tab))
		return;
	if (*keyed == SIZE_MAX || !same_set(b, t, *keyed))
		count_strata(c, b, t, key);
	*keyed = t;
	count_table(c, b, t, key, scratch, tab);
}

/* Count every table of b after margin numbers of margins into v (zeros).  Tests over the
 * same variables (x _||_ y | z and x _||_ z | y) count one table: the others, when no
 * larger than the rows, are copied from it in their own order. */
static void count_all(const c2_codes *c, const c2_batch *b, size_t margin, double *v)
{
	uint32_t *key = fb_xmalloc((c->n > 0 ? c->n : 1) * sizeof *key);
	uint32_t *scratch = fb_xmalloc(4 * C2_SPLIT_CELLS * sizeof *scratch);
	size_t *first = fb_xmalloc((b->n > 0 ? b->n : 1) * sizeof *first), u[C2_AXES_MAX];
	c2_bits_ws w = { 0 };
	c2_batch vars = { 0 }; /* each variable set counted, as a test x < y | the rest */
	size_t keyed = SIZE_MAX; /* the test whose set key holds the strata of */

	if (margin > 0)
		count_margins(c, v);
	for (size_t t = 0; t < b->n; t++) {
		size_t m = test_axes(b, t, u), e;

		for (size_t k = m - 2; k < m; k++) /* x and y into the increasing set */
			for (size_t j = k; j > 0 && u[j - 1] > u[j]; j--) {
				size_t tmp = u[j];

				u[j] = u[j - 1];
				u[j - 1] = tmp;
			}
		e = c2_batch_put(&vars, u[0], u[1], u + 2, m - 2);
		if (e + 1 == vars.n)
			first[e] = t;
		if (e + 1 < vars.n && (b->cell[t + 1] - b->cell[t] <= c->n ||
		                       b->cell[t + 1] - b->cell[t] <= C2_BITS_CELLS))
			table_permute(c, b, first[e], t, v + b->cell[first[e]], v + b->cell[t]);
		else
			count_one(c, b, t, &w, key, &keyed, scratch, v + b->cell[t]);
	}
	c2_batch_release(&vars);
	c2_bits_release(&w);
	free(first);
	free(scratch);
	free(key);
}

#if defined(__GLIBC__)
/* Numbers the block at p holds (0 for NULL). */
static size_t reply_room(double *p)
{
	return p != NULL ? malloc_usable_size(p) / sizeof *p : 0;
}
#else
/* Where the room of a block is not known, none is counted on. */
static size_t reply_room(double *p)
{
	(void)p;
	return 0;
}
#endif

/* The reply's total numbers, zeros: in the memory it has when that holds them (a client's
 * replies then take new pages only as they grow), else in new memory, nothing copied. */
static double *reply_zeros(fb_msg *up, size_t total)
{
	if (reply_room(up->d) < total) {
		free(up->d);
		up->d = fb_xcalloc(total, sizeof *up->d);
	} else if (total > 0)
		memset(up->d, 0, total * sizeof *up->d);
	up->nd = total;
	return up->d;
}

/* The client half. */
int c2_client_tables(const fb_dataset *local, const fb_msg *down, size_t k, double dropout,
                     uint64_t seed, c2_codes **codes, fb_msg *up, fb_error *err)
{
	c2_batch b = { 0 };
	size_t margin = 0, total = 0;
	int ret = FB_OK;

	if (*codes == NULL && (*codes = c2_codes_new(local, err)) == NULL)
		ret = FB_ERR;
	if (ret == FB_OK)
		ret = read_batch(down, local->d, &b, err);
	if (ret == FB_OK && down->c[C2_C_MARGINS] == 1.0)
		for (size_t j = 0; j < local->d; j++)
			margin += (*codes)->nlev[j];
	if (ret == FB_OK)
		ret = c2_batch_cells(&b, (*codes)->nlev, margin, &total, err);
	free(up->b);
	up->b = NULL;
	up->nd = up->nb = up->nc = 0;
	if (ret == FB_OK && !c2_drops(seed, (size_t)down->c[C2_C_ROUND], k, dropout))
		count_all(*codes, &b, margin, reply_zeros(up, total));
	c2_batch_release(&b);
	return ret;
}
