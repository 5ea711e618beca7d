/* fedc2sl's batches and tables: the server lists every test a PC level (or the collider
 * rule) may ask, once each, and broadcasts them as numbers (x, y, |S|, S...); a client
 * answers with one contingency table per test counted on its own rows, the tables one after
 * the other in a single vector, so that the whole level is one secure sum. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The hash of a test. */
static uint64_t test_hash(size_t x, size_t y, const size_t *S, size_t ns)
{
	uint64_t h = fb_hash_bytes(FB_HASH_INIT, &x, sizeof x);

	h = fb_hash_bytes(h, &y, sizeof y);
	h = fb_hash_bytes(h, &ns, sizeof ns);
	return ns > 0 ? fb_hash_bytes(h, S, ns * sizeof *S) : h;
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

/* Room for one more test of ns variables. */
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
	if (2 * (b->n + 1) > b->hcap)
		hash_grow(b);
}

/* Add a test unless it is there. */
void c2_batch_add(c2_batch *b, size_t x, size_t y, const size_t *S, size_t ns)
{
	size_t a = x < y ? x : y, c = x < y ? y : x, s;

	batch_room(b, ns);
	s = test_hash(a, c, S, ns) & (b->hcap - 1);
	for (; b->hash[s] != 0; s = (s + 1) & (b->hcap - 1))
		if (test_is(b, b->hash[s] - 1, a, c, S, ns))
			return;
	b->hash[s] = b->n + 1;
	b->x[b->n] = a;
	b->y[b->n] = c;
	b->ns[b->n] = ns;
	if (ns > 0)
		memcpy(b->S + b->off[b->n], S, ns * sizeof *S);
	b->off[b->n + 1] = b->off[b->n] + ns;
	b->n++;
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

/* Check the client's values: each a level code of its variable. */
static int check_codes(const fb_dataset *ds, fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++) {
		if (ds->vars[j].kind != FB_DISCRETE)
			return fb_fail(err, "variable '%s' is continuous; fedc2sl counts discrete "
			               "values", ds->vars[j].name);
		for (size_t i = 0; i < ds->n; i++) {
			double c = ds->x[i * ds->d + j];

			if (!(c >= 0.0 && c < (double)ds->vars[j].nlevels) || c != floor(c))
				return fb_fail(err, "row %zu of '%s' holds %g, not a level code below %zu",
				               i + 1, ds->vars[j].name, c, ds->vars[j].nlevels);
		}
	}
	return FB_OK;
}

/* Read the tests of down into b; FB_ERR naming what is malformed. */
static int read_batch(const fb_msg *down, size_t d, c2_batch *b, fb_error *err)
{
	size_t q = 0, nq, S[64];

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
		    (ns = (size_t)down->d[q + 2]) + 2 > d || ns > 64 || q + 3 + ns > down->nd)
			return fb_fail(err, "fedc2sl: test %zu of the broadcast is malformed", t + 1);
		for (size_t s = 0; s < ns; s++)
			if ((S[s] = (size_t)down->d[q + 3 + s]) >= d || S[s] == x || S[s] == y)
				return fb_fail(err, "fedc2sl: test %zu conditions on a variable out of "
				               "place", t + 1);
		c2_batch_add(b, x, y, S, ns);
		q += 3 + ns;
	}
	return FB_OK;
}

/* Count test t's table over the rows of ds into tab (zeros). */
static void count_table(const c2_batch *b, size_t t, const fb_dataset *ds, double *tab)
{
	size_t d = ds->d, x = b->x[t], y = b->y[t], ly = ds->vars[y].nlevels;
	size_t lx = ds->vars[x].nlevels;
	const size_t *S = b->S + b->off[t];

	for (size_t i = 0; i < ds->n; i++) {
		const double *row = ds->x + i * d;
		size_t s = 0;

		for (size_t v = 0; v < b->ns[t]; v++)
			s = s * ds->vars[S[v]].nlevels + (size_t)row[S[v]];
		tab[(s * lx + (size_t)row[x]) * ly + (size_t)row[y]] += 1.0;
	}
}

/* The margins: each variable's level counts, one variable after the other. */
static void count_margins(const fb_dataset *ds, double *out)
{
	for (size_t j = 0; j < ds->d; j++) {
		for (size_t i = 0; i < ds->n; i++)
			out[(size_t)ds->x[i * ds->d + j]] += 1.0;
		out += ds->vars[j].nlevels;
	}
}

/* The client half. */
int c2_client_tables(const fb_dataset *local, const fb_msg *down, size_t k, double dropout,
                     uint64_t seed, fb_msg *up, fb_error *err)
{
	c2_batch b = { 0 };
	size_t *nlev = fb_xmalloc(local->d * sizeof *nlev), margin = 0, total = 0;
	int ret;

	for (size_t j = 0; j < local->d; j++)
		nlev[j] = local->vars[j].nlevels;
	ret = read_batch(down, local->d, &b, err);
	if (ret == FB_OK && down->c[C2_C_MARGINS] == 1.0)
		for (size_t j = 0; j < local->d; j++)
			margin += nlev[j];
	if (ret == FB_OK)
		ret = check_codes(local, err);
	if (ret == FB_OK)
		ret = c2_batch_cells(&b, nlev, margin, &total, err);
	fb_msg_release(up);
	if (ret == FB_OK && !c2_drops(seed, (size_t)down->c[C2_C_ROUND], k, dropout)) {
		double *v = fb_msg_doubles(up, total);

		memset(v, 0, total * sizeof *v);
		if (margin > 0)
			count_margins(local, v);
		for (size_t t = 0; t < b.n; t++)
			count_table(&b, t, local, v + b.cell[t]);
	}
	c2_batch_release(&b);
	free(nlev);
	return ret;
}
