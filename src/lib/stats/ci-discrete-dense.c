/* The dense path of G² and χ² (ALGORITHMS.md §6.5): a test's rows counted into one joint
 * table over S, x and y, from which each stratum's c_x x c_y table is read.
 *
 * Each row's key over S is its mixed-radix number below prod_S c_v, built column by column
 * from S's prefixes, whose keys are kept between tests (consecutive sets often share their
 * smallest members): block k of the key stack holds the keys over S[0..k].  The strata are
 * summed in order of first row (the statistic's order), listed once per set by their keys.
 * The path is taken while prod_S c_v c_x c_y is at most max(8n, 2^16) cells (below 2^30,
 * so that every key fits 32 bits).
 *
 * A skeleton search tests the same few variables many times in other roles (x against y
 * given z, then x against z given y, ...), so the joint tables of up to eight variables
 * (past six only where the set's strata fill a quarter of the table) are kept in a ring of
 * CI_JOINT_CELLS cells and found again by a hash of their sorted variables: a later test
 * over the same variables reads its strata's tables from the kept counts, through each
 * variable's stride, instead of passing over the rows.  Counts are whole numbers, so every
 * statistic has the bits a new count gives.  A table is kept until the ring comes round to
 * its cells or a table with the same slot replaces it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ci-private.h"

/* Most cells of the dense path for n rows: max(8n, 2^16), and below 2^30 so that a stratum
 * key always fits 32 bits. */
static size_t dense_limit(size_t n)
{
	size_t cap = (size_t)1 << 30;

	if (n >= cap / 8)
		return cap;
	return 8 * n > ((size_t)1 << 16) ? 8 * n : (size_t)1 << 16;
}

/* Make room for the tables and the stratum marks of cells cells; false when out of memory
 * (the hashed path is then used). */
static bool dense_reserve(ci_disc_ws *w, size_t cells)
{
	uint32_t *cube, *scnt;

	if (cells <= w->cube_cap)
		return true;
	cube = calloc(cells, sizeof *cube);
	scnt = calloc(cells, sizeof *scnt);
	if (cube == NULL || scnt == NULL) {
		free(cube);
		free(scnt);
		return false;
	}
	free(w->cube);
	free(w->scnt);
	w->cube = cube;
	w->scnt = scnt;
	w->cube_cap = cells;
	return true;
}

/* Make room for k blocks of keys; false when out of memory. */
static bool keys_reserve(ci_disc_ws *w, size_t k, size_t n)
{
	uint32_t *p;

	if (k <= w->kcap)
		return true;
	if (k > SIZE_MAX / n / sizeof *p || (p = realloc(w->kstack, k * n * sizeof *p)) == NULL)
		return false;
	w->kstack = p;
	w->kcap = k;
	return true;
}

/* The keys of one more column: key = prev m + c, row by row (eight rows a step, which the
 * compiler does in vector registers). */
static inline __attribute__((always_inline)) void
keys_step(const uint32_t *restrict prev, const uint16_t *restrict c, uint32_t m,
          uint32_t *restrict key, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		for (size_t k = 0; k < 8; k++)
			key[i + k] = prev[i + k] * m + c[i + k];
	for (; i < n; i++)
		key[i] = prev[i] * m + c[i];
}

#if defined(__GNUC__) && defined(__x86_64__)
/* keys_step with AVX2's eight-lane multiply, where the processor has it. */
__attribute__((target("avx2"))) static void keys_step_avx2(const uint32_t *prev,
                                                           const uint16_t *c, uint32_t m,
                                                           uint32_t *key, size_t n)
{
	keys_step(prev, c, m, key, n);
}
#endif

/* The keys of one more column (keys_step), the widest way this processor has. */
static void keys_level(const uint32_t *prev, const uint16_t *c, uint32_t m, uint32_t *key,
                       size_t n)
{
#if defined(__GNUC__) && defined(__x86_64__)
	if (__builtin_cpu_supports("avx2")) {
		keys_step_avx2(prev, c, m, key, n);
		return;
	}
#endif
	keys_step(prev, c, m, key, n);
}

/* Build the row keys of S (ns >= 1) in the key stack from the longest prefix of S whose
 * keys are kept: block ns - 1 then labels each row's stratum over S one-to-one, below
 * prod_S c_v; false when out of memory. */
static bool dense_keys(fb_ci *ci, const size_t *S, size_t ns)
{
	ci_disc_ws *w = &ci->dws;
	size_t n = ci->n;

	if (w->zeros == NULL && (w->zeros = calloc(n, sizeof *w->zeros)) == NULL)
		return false;
	if (!keys_reserve(w, ns, n))
		return false;
	for (size_t v = w->kvalid; v < ns; v++) {
		const uint16_t *c = ci->codes + S[v] * n;
		const uint32_t *prev = v > 0 ? w->kstack + (v - 1) * n : w->zeros;

		keys_level(prev, c, (uint32_t)ci->nlev[S[v]], w->kstack + v * n, n);
	}
	w->kvalid = ns;
	return true;
}

/* Number each row's stratum over S (ns >= 1) in order of first occurrence into ids, from
 * the kept keys of S's prefixes and a map of every key, for tests whose tables are too large
 * for the dense path while S's configurations are within its limit; the number of strata,
 * or 0 (nothing done) when they are not or memory is short. */
size_t ci_disc_dense_strata(fb_ci *ci, const size_t *S, size_t ns, double prod, uint32_t *ids)
{
	ci_disc_ws *w = &ci->dws;
	const uint32_t *key;
	uint32_t *map, nstr = 0;

	if (!(prod <= (double)dense_limit(ci->n)) || !dense_reserve(w, (size_t)prod) ||
	    !dense_keys(ci, S, ns))
		return 0;
	key = w->kstack + (ns - 1) * ci->n;
	map = w->scnt;
	for (size_t i = 0; i < ci->n; i++) {
		uint32_t k = key[i], s = map[k];

		if (s == 0) {
			map[k] = s = ++nstr;
			w->mfirst[s - 1] = k;
		}
		ids[i] = s - 1;
	}
	for (uint32_t s = 0; s < nstr; s++)
		map[w->mfirst[s]] = 0;
	return nstr;
}

/* The hash of a sorted set of nv variables: a slot of the kept joint tables. */
static size_t joint_hash(const uint32_t *set, size_t nv)
{
	uint64_t z = nv;

	for (size_t k = 0; k < nv; k++) {
		z = (z + set[k] + 1) * UINT64_C(0x9E3779B97F4A7C15);
		z ^= z >> 29;
	}
	return (size_t)(z % CI_JOINT_SLOTS);
}

/* The kept table over the nv sorted variables at set, or NULL when there is none (never
 * kept, pushed out by its slot's next table, or overwritten in the ring since). */
static const ci_joint *joint_find(const ci_disc_ws *w, const uint32_t *set, size_t nv)
{
	const ci_joint *e;

	if (w->jslot == NULL)
		return NULL;
	e = &w->jslot[joint_hash(set, nv)];
	if (e->nv != nv || memcmp(e->set, set, nv * sizeof *set) != 0 ||
	    w->jnext > e->at + w->jcap)
		return NULL;
	return e;
}

/* Room in the ring for a new table of cells cells, its place into *at; NULL when it would
 * take over a quarter of the ring or the ring cannot be had (the table is then not kept). */
static uint32_t *joint_place(ci_disc_ws *w, size_t cells, uint64_t *at)
{
	uint64_t pos;

	if (w->jring == NULL) {
		w->jring = malloc(CI_JOINT_CELLS * sizeof *w->jring);
		w->jslot = calloc(CI_JOINT_SLOTS, sizeof *w->jslot);
		if (w->jring == NULL || w->jslot == NULL) {
			free(w->jring);
			free(w->jslot);
			w->jring = NULL;
			w->jslot = NULL;
			return NULL;
		}
		w->jcap = CI_JOINT_CELLS;
	}
	if (cells > w->jcap / 4)
		return NULL;
	pos = w->jnext;
	if (pos % w->jcap + cells > w->jcap)
		pos = (pos / w->jcap + 1) * w->jcap; /* the ring's end skipped: no table wraps */
	*at = pos;
	w->jnext = pos + cells;
	return w->jring + pos % w->jcap;
}

/* Room for S's order and the keys of S (ns >= 0) from the longest prefix of S whose keys are
 * kept; false when out of memory. */
static bool order_ready(fb_ci *ci, const size_t *S, size_t ns)
{
	ci_disc_ws *w = &ci->dws;

	if (w->mord == NULL && (w->mord = malloc(ci->n * sizeof *w->mord)) == NULL)
		return false;
	return ns == 0 || dense_keys(ci, S, ns);
}

/* The order of S's strata into w->mord from S's keys (order_ready): the key over S of each
 * stratum, in order of first row, with w->scnt (room for prod_S c_v keys, zero; left zero)
 * marking those seen. */
static void dense_order(fb_ci *ci, size_t ns)
{
	ci_disc_ws *w = &ci->dws;
	const uint32_t *key = ns > 0 ? w->kstack + (ns - 1) * ci->n : w->zeros;
	uint32_t *seen = w->scnt;
	size_t nstr = 0;

	for (size_t i = 0; i < ci->n; i++) {
		uint32_t k = key[i];

		if (seen[k] == 0) {
			seen[k] = 1;
			w->mord[nstr++] = k;
		}
	}
	for (size_t s = 0; s < nstr; s++)
		seen[w->mord[s]] = 0;
	w->mdense = nstr;
}

/* dense_count and dense_order in one pass over the rows. */
static void dense_count_order(fb_ci *ci, size_t x, size_t y, size_t ns, uint32_t *restrict tab)
{
	ci_disc_ws *w = &ci->dws;
	size_t n = ci->n, nstr = 0;
	const uint32_t *restrict key = ns > 0 ? w->kstack + (ns - 1) * n : w->zeros;
	const uint16_t *restrict cx = ci->codes + x * n, *restrict cy = ci->codes + y * n;
	uint32_t ly = (uint32_t)ci->nlev[y], lxy = (uint32_t)(ci->nlev[x] * ci->nlev[y]);
	uint32_t *restrict seen = w->scnt, *restrict ord = w->mord;

	for (size_t i = 0; i < n; i++) {
		uint32_t k = key[i];

		if (seen[k] == 0) {
			seen[k] = 1;
			ord[nstr++] = k;
		}
		tab[k * lxy + cx[i] * ly + cy[i]]++;
	}
	for (size_t s = 0; s < nstr; s++)
		seen[ord[s]] = 0;
	w->mdense = nstr;
}

/* Count every row of the test of x and y given S into tab (zero, prod_S c_x c_y cells in
 * mixed radix over S, x, y: the kept keys of S, then x's code, then y's). */
static void dense_count(const fb_ci *ci, size_t x, size_t y, size_t ns, uint32_t *restrict tab)
{
	const ci_disc_ws *w = &ci->dws;
	size_t n = ci->n;
	const uint32_t *restrict key = ns > 0 ? w->kstack + (ns - 1) * n : w->zeros;
	const uint16_t *restrict cx = ci->codes + x * n, *restrict cy = ci->codes + y * n;
	uint32_t ly = (uint32_t)ci->nlev[y], lxy = (uint32_t)(ci->nlev[x] * ci->nlev[y]);

	for (size_t i = 0; i < n; i++)
		tab[key[i] * lxy + cx[i] * ly + cy[i]]++;
}

/* Where one test's variables step in a joint table: natural when its radix is S (in the
 * order of w->mS), x, y, so that stratum key k's table is the lx ly cells from k lx ly on;
 * else each variable's stride. */
typedef struct dense_view {
	const uint32_t *cells;
	bool natural;
	size_t sx, sy;              /* the strides of x and y */
	size_t sS[CI_JOINT_VARS];   /* of S's members, in the order of w->mS */
} dense_view;

/* The view of the test of x and y given S in the table e (NULL: one counted in the natural
 * radix), whose cells are at cells. */
static dense_view view_of(const fb_ci *ci, const ci_joint *e, const uint32_t *cells, size_t x,
                          size_t y, const size_t *S, size_t ns)
{
	dense_view v = { .cells = cells, .natural = true };
	size_t stride[CI_JOINT_VARS], st = 1;

	for (size_t k = 0; e != NULL && k < e->nv; k++)
		v.natural = v.natural && e->var[k] == (k < ns ? S[k] : k == ns ? x : y);
	if (v.natural)
		return v;
	for (size_t k = e->nv; k-- > 0;) {
		stride[k] = st;
		st *= ci->nlev[e->var[k]];
	}
	for (size_t k = 0; k < e->nv; k++) {
		if (e->var[k] == x)
			v.sx = stride[k];
		else if (e->var[k] == y)
			v.sy = stride[k];
		for (size_t j = 0; j < ns; j++)
			if (e->var[k] == S[j])
				v.sS[j] = stride[k];
	}
	return v;
}

/* The c_x x c_y table of stratum s of S (keys in w->mord) in the view v: in place when its
 * cells lie so, else gathered into w->jtab. */
static const uint32_t *view_table(const fb_ci *ci, const dense_view *v, size_t s,
                                  const size_t *S, size_t ns, size_t lx, size_t ly)
{
	const ci_disc_ws *w = &ci->dws;
	uint32_t key = w->mord[s];
	const uint32_t *base;
	size_t off = 0;

	if (v->natural)
		return v->cells + (size_t)key * lx * ly;
	for (size_t j = ns; j-- > 0;) { /* the key's digits, the last member fastest */
		uint32_t l = (uint32_t)ci->nlev[S[j]];

		off += (key % l) * v->sS[j];
		key /= l;
	}
	base = v->cells + off;
	if (v->sy == 1 && v->sx == ly)
		return base;
	for (size_t a = 0; a < lx; a++)
		for (size_t b = 0; b < ly; b++)
			w->jtab[a * ly + b] = base[a * v->sx + b * v->sy];
	return w->jtab;
}

/* The strata of the test of x and y given S (order in w->mord) summed from the view v into
 * *sum, stopping once a χ² dependence is sure; how many strata there are. */
static size_t view_sum(fb_ci *ci, const dense_view *v, size_t x, size_t y, const size_t *S,
                       size_t ns, ci_stratum_sum *sum)
{
	ci_disc_ws *w = &ci->dws;
	size_t lx = ci->nlev[x], ly = ci->nlev[y], nstr = w->mdense;

	for (size_t s = 0; s < nstr; s++) {
		ci_stratum_sum t = ci_disc_table_keep(ci, view_table(ci, v, s, S, ns, lx, ly), lx, ly);

		sum->stat += t.stat;
		sum->df_adj += t.df_adj;
		sum->empty += t.empty;
		if (ci_disc_stop(w, sum, nstr - s - 1, (double)(lx - 1) * (double)(ly - 1)))
			break;
	}
	return nstr;
}

/* The variables of the test of x and y given S, ascending, into set (ns + 2 <=
 * CI_JOINT_VARS), and in the radix order of a table counted for it (S, x, y) into var. */
static void test_vars(size_t x, size_t y, const size_t *S, size_t ns, uint32_t *set,
                      uint32_t *var)
{
	size_t nv = ns + 2;

	for (size_t k = 0; k < ns; k++)
		var[k] = (uint32_t)S[k];
	var[ns] = (uint32_t)x;
	var[ns + 1] = (uint32_t)y;
	memcpy(set, var, nv * sizeof *set);
	for (size_t k = 1; k < nv; k++) { /* insertion sort: a handful */
		uint32_t t = set[k];
		size_t j = k;

		for (; j > 0 && set[j - 1] > t; j--)
			set[j] = set[j - 1];
		set[j] = t;
	}
}

/* Whether to keep the joint table (cells cells) of a test given ns variables: up to four
 * always; more (up to CI_JOINT_VARS in all) only when the set's strata, already listed,
 * fill at least a quarter of it, since a kept table is cleared whole and a large set's
 * configurations are mostly absent. */
static bool dense_keep(const ci_disc_ws *w, size_t ns, size_t cells, size_t lxy)
{
	if (ns + 2 > CI_JOINT_VARS)
		return false;
	if (ns <= 4)
		return true;
	return w->mdense != CI_MEMO_NONE && 4 * w->mdense * lxy >= cells;
}

/* Count the test's rows into a new kept table over its variables, described by cand (its
 * cells, variables and radix; NULL: too many variables to keep), or, when the table is not
 * kept, into w->cube, in the natural radix, and sum its strata. */
static void dense_fresh(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns,
                        const ci_joint *cand, ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;
	size_t lxy = ci->nlev[x] * ci->nlev[y];
	uint32_t *tab = NULL;
	dense_view v;

	if (cand != NULL && dense_keep(w, ns, cand->cells, lxy)) {
		ci_joint e = *cand;

		if ((tab = joint_place(w, e.cells, &e.at)) != NULL) {
			w->jslot[joint_hash(e.set, e.nv)] = e;
			memset(tab, 0, e.cells * sizeof *tab);
		}
	}
	if (tab == NULL)
		tab = w->cube; /* zero between uses */
	if (w->mdense == CI_MEMO_NONE)
		dense_count_order(ci, x, y, ns, tab);
	else
		dense_count(ci, x, y, ns, tab);
	v = view_of(ci, NULL, tab, x, y, S, ns);
	*nstr = view_sum(ci, &v, x, y, S, ns, sum);
	if (tab == w->cube) /* clear the strata that occur: no other cell was counted */
		for (size_t s = 0; s < *nstr; s++)
			memset(tab + (size_t)w->mord[s] * lxy, 0, lxy * sizeof *tab);
}

/* The dense path over all strata: the test's joint table kept from an earlier test over the
 * same variables, or counted now; false (nothing done) when the tables would be too large. */
bool ci_disc_dense_run(fb_ci *ci, size_t x, size_t y, const size_t *S, size_t ns, double prod,
                       ci_stratum_sum *sum, size_t *nstr)
{
	ci_disc_ws *w = &ci->dws;
	double cells = prod * (double)ci->nlev[x] * (double)ci->nlev[y];
	ci_joint cand = { .cells = (uint32_t)cells, .nv = (uint32_t)(ns + 2) };
	const ci_joint *e;
	dense_view v;

	if (!(cells <= (double)dense_limit(ci->n)) || !dense_reserve(w, (size_t)cells))
		return false;
	if (w->zeros == NULL && (w->zeros = calloc(ci->n, sizeof *w->zeros)) == NULL)
		return false;
	if (w->jtab == NULL && (w->jtab = malloc(ci->cmax * ci->cmax * sizeof *w->jtab)) == NULL)
		return false;
	if (w->mdense == CI_MEMO_NONE && !order_ready(ci, S, ns))
		return false;
	if (ns + 2 > CI_JOINT_VARS) {
		dense_fresh(ci, x, y, S, ns, NULL, sum, nstr);
		return true;
	}
	test_vars(x, y, S, ns, cand.set, cand.var);
	if ((e = joint_find(w, cand.set, cand.nv)) == NULL) {
		dense_fresh(ci, x, y, S, ns, &cand, sum, nstr);
		return true;
	}
	if (w->mdense == CI_MEMO_NONE)
		dense_order(ci, ns);
	v = view_of(ci, e, w->jring + e->at % w->jcap, x, y, S, ns);
	*nstr = view_sum(ci, &v, x, y, S, ns, sum);
	return true;
}
