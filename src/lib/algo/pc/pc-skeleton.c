/* One level of PC's skeleton search (ALGORITHMS.md §6.1): stable, original, or as
 * causal-learn does it (every set tested, separating sets united, removals at the end). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/pc.h"
#include "pc-split.h"
#include "pc-tester.h"

/* What one level works with. */
typedef struct level_ctx {
	fb_graph *g;               /* the skeleton, edited */
	fb_ci *ci;                 /* the tests */
	const fb_pc_options *opt;  /* alpha, stable, compat */
	fb_sepsets *seps;          /* where separating sets go (may be NULL) */
	size_t level;              /* l */
	size_t *start, *adj;       /* frozen adjacency: adj[start[i] .. start[i + 1]) */
	size_t *cand;              /* d: candidates a(i) \ {j} */
	size_t *comb;              /* d: indices of the current subset into cand */
	size_t *S;                 /* d: the current subset */
	unsigned char *inj;        /* d: which of cand are adjacent to the pair's j */
	unsigned char *drop;       /* d * d: pairs to remove at the end (causal-learn) */
	size_t removed;            /* edges removed so far */
	size_t edges;              /* edges when the level began */
	bool owned;                /* the level owns ci's cache (fb_pc_skeleton_level_owned) */
	bool search;               /* each vertex's pairs go to fb_ci_fisher_separate */
	bool level0;               /* level 0's first visits go to the helpers' threads */
	unsigned char *open;       /* search: which of a vertex's neighbours to test it with */
	unsigned char *kept;       /* search: maxdeg x maxdeg, which neighbours of a vertex are
	                              joined to each of its neighbours */
	unsigned char *found;      /* search: which pairs found a separating set */
	size_t *sets;              /* search: maxdeg x level, their sets */
	size_t most;               /* search: the largest frozen neighbourhood */
	size_t threads;            /* search: threads (ci's helpers; 0: none, one walk a vertex) */
	int visits;                /* threaded search: the pairs its phase visits (enum
	                              search_visits) */
	fb_pc_level bal;           /* threaded search: its units' figures */
} level_ctx;

/* The columns of row i's marks in increasing order into list (room for them, or NULL to
 * count only), read eight at a time where none is set, stopping at the most-th; their
 * number. */
static size_t row_marks(const fb_graph *g, size_t i, size_t *list, size_t most)
{
	const unsigned char *row = g->mark + i * g->d;
	size_t d = g->d, n = 0, j = 0;

	while (j < d && n < most) {
		uint64_t w = 0;

		if (j + 8 <= d)
			memcpy(&w, row + j, 8);
		if (j + 8 <= d && w == 0) {
			j += 8;
			continue;
		}
		if (row[j] != 0 && list != NULL)
			list[n] = j;
		n += row[j++] != 0;
	}
	return n;
}

/* The frozen adjacency of a skeleton whose marks are symmetric (both set for each edge, as
 * PC's own): each row's marks in increasing order, as fb_graph_adjacency lists them, read
 * along the rows alone (no mark of the transposed pair, no sort). */
static size_t *skeleton_adjacency(const fb_graph *g, size_t **start_out)
{
	size_t d = g->d, *start = fb_xcalloc(d + 1, sizeof *start), *adj;

	for (size_t i = 0; i < d; i++)
		start[i + 1] = start[i] + row_marks(g, i, NULL, SIZE_MAX);
	adj = fb_xmalloc((start[d] > 0 ? start[d] : 1) * sizeof *adj);
	for (size_t i = 0; i < d; i++)
		row_marks(g, i, adj + start[i], SIZE_MAX);
	*start_out = start;
	return adj;
}

/* Whether some row of the marks holds at least k marks (each a joined pair, so that its
 * vertex has at least k neighbours), each row read until it has k. */
static bool row_with_marks(const fb_graph *g, size_t k)
{
	for (size_t i = 0; i < g->d; i++)
		if (row_marks(g, i, NULL, k) >= k)
			return true;
	return false;
}

/* Whether level l can run: some vertex has |adj| - 1 >= l.  A skeleton's marks are
 * symmetric, so one row with l + 1 marks answers at once (after a level that removed many
 * pairs, the first rows do); else every vertex's degree is counted. */
bool fb_pc_level_possible(const fb_graph *skel, size_t level)
{
	size_t *deg;
	bool possible = false;

	if (row_with_marks(skel, level + 1))
		return true;
	deg = fb_xmalloc((skel->d > 0 ? skel->d : 1) * sizeof *deg);
	fb_graph_degrees(skel, deg);
	for (size_t i = 0; i < skel->d && !possible; i++)
		possible = deg[i] >= level + 1;
	free(deg);
	return possible;
}

/* Advance comb (l indices below m, increasing) to the next subset in lexicographic order;
 * false after the last. */
bool fb_pc_subset_next(size_t *comb, size_t l, size_t m)
{
	return fb_ci_subset_next(comb, l, m) < l;
}

/* Mark in c->inj which of the m candidates of the pair (i, j) are adjacent to j (frozen, or
 * current for the original PC, which does not change while the pair is tested). */
static void mark_joined_to_j(level_ctx *c, size_t j, size_t m)
{
	size_t t, end;

	if (m == 0)
		return;
	if (!c->opt->stable) {
		for (size_t k = 0; k < m; k++)
			c->inj[k] = fb_graph_adjacent(c->g, j, c->cand[k]);
		return;
	}
	/* both lists increase: one merge */
	t = c->start[j];
	end = c->start[j + 1];
	for (size_t k = 0; k < m; k++) {
		while (t < end && c->adj[t] < c->cand[k])
			t++;
		c->inj[k] = t < end && c->adj[t] == c->cand[k];
	}
}

/* Whether the test of i _||_ j | c->S may be asked again in this level: only from j's side,
 * which comes later when i < j, and only if j's candidates (frozen, or current for the
 * original PC, which only shrink) hold all of S (c->inj, by the positions in c->comb).  No
 * later level asks a set of this size again, nor the orientation (a separating set plus
 * one). */
static bool may_ask_again(const level_ctx *c, size_t i, size_t j)
{
	if (i > j)
		return false;
	for (size_t k = 0; k < c->level; k++)
		if (!c->inj[c->comb[k]])
			return false;
	return true;
}

/* Test i _||_ j | S for the l-subsets S of cand[0..m) in turn, stopping at the first
 * independence: record its separating set and set *indep.  With the level's own cache, the
 * first visit of the pair (from i < j) cannot meet a kept answer: its look-ups are skipped. */
static int pair_test(level_ctx *c, size_t i, size_t j, size_t m, bool *indep, fb_error *err)
{
	size_t l = c->level;
	bool more = true;

	*indep = false;
	for (size_t k = 0; k < l; k++)
		c->comb[k] = k;
	if (c->owned) {
		mark_joined_to_j(c, j, m);
		fb_ci_cache_fresh(c->ci, i < j);
	}
	while (more) {
		for (size_t k = 0; k < l; k++)
			c->S[k] = c->cand[c->comb[k]];
		if (c->owned)
			fb_ci_cache_keep(c->ci, may_ask_again(c, i, j) ? c->opt->alpha : -1.0);
		if (fb_ci_independent(c->ci, i, j, c->S, l, c->opt->alpha, indep, err) != FB_OK)
			return FB_ERR;
		if (*indep) {
			if (c->seps != NULL)
				fb_sepsets_set(c->seps, i, j, c->S, l);
			return FB_OK;
		}
		more = fb_pc_subset_next(c->comb, l, m);
	}
	return FB_OK;
}

/* The candidates a(i) \ {j} into c->cand: frozen or current adjacency; their count. */
static size_t candidates(level_ctx *c, size_t i, size_t j, bool frozen)
{
	size_t m = 0;

	if (frozen) {
		for (size_t t = c->start[i]; t < c->start[i + 1]; t++)
			if (c->adj[t] != j)
				c->cand[m++] = c->adj[t];
		return m;
	}
	for (size_t k = 0; k < c->g->d; k++)
		if (k != j && k != i && fb_graph_adjacent(c->g, i, k))
			c->cand[m++] = k;
	return m;
}

/* Remove the pair (i, j) from the skeleton and count it.  PC's own skeleton (owned) is
 * joined by its marks alone, its weights never written: its marks are cleared without
 * reading the d x d weights (fb_graph_remove would find them zero). */
static void pair_remove(level_ctx *c, size_t i, size_t j)
{
	size_t d = c->g->d;

	if (c->owned)
		c->g->mark[i * d + j] = c->g->mark[j * d + i] = 0;
	else
		fb_graph_remove(c->g, i, j);
	c->removed++;
}

/* Whether i and j (i != j) are still joined (the marks read here: this runs d^2 times); PC's
 * own skeleton (owned) sets and clears both marks of a pair, so its row's mark tells. */
static bool joined(const level_ctx *c, size_t i, size_t j)
{
	const fb_graph *g = c->g;

	return g->mark[i * g->d + j] || (!c->owned && g->mark[j * g->d + i]);
}

/* Test the pair (i, j) of the level, still joined, if it has enough candidates, and remove
 * it at its first independence. */
static int pair_visit(level_ctx *c, size_t i, size_t j, fb_error *err)
{
	size_t m;
	bool indep;

	/* level 0 tests the empty set alone: no candidate list is needed, and copying d - 2
	 * candidates for each of d^2 pairs would cost O(d^3) */
	m = c->level == 0 ? 0 : candidates(c, i, j, c->opt->stable);
	if (m < c->level)
		return FB_OK;
	if (pair_test(c, i, j, m, &indep, err) != FB_OK)
		return FB_ERR;
	if (indep) {
		pair_remove(c, i, j);
	}
	return FB_OK;
}

/* Mark in row t of kept (m x m) which of the m neighbours A of a vertex are frozen
 * neighbours of A[t] (both lists increase: one merge). */
static void mark_kept(const level_ctx *c, unsigned char *kept, const size_t *A, size_t m,
                      size_t t)
{
	size_t u = c->start[A[t]], end = c->start[A[t] + 1];
	unsigned char *row = kept + t * m;

	for (size_t k = 0; k < m; k++) {
		while (u < end && c->adj[u] < A[k])
			u++;
		row[k] = u < end && c->adj[u] == A[k];
	}
}

/* Remove the pairs of vertex i that found a set (found and sets by the positions of its
 * frozen list), with their sets. */
static void search_take(level_ctx *c, size_t i, const unsigned char *found, const size_t *sets)
{
	const size_t *A = c->adj + c->start[i];
	size_t m = c->start[i + 1] - c->start[i], l = c->level;

	for (size_t t = 0; t < m; t++)
		if (found[t]) {
			if (c->seps != NULL)
				fb_sepsets_set(c->seps, i, A[t], sets + t * l, l);
			pair_remove(c, i, A[t]);
		}
}

/* Which of a vertex's pairs a search visits: those still joined, or (threaded) the first
 * visits (i < j) or the second ones of pairs still joined (i > j). */
enum search_visits { VISIT_JOINED, VISIT_FIRST, VISIT_SECOND };

/* Mark in open which of vertex i's m frozen neighbours A the search pairs it with, and in
 * kept the frozen neighbours of each one before i (its second visit); false when none. */
static bool search_mark(const level_ctx *c, size_t i, const size_t *A, size_t m,
                        enum search_visits v, unsigned char *open, unsigned char *kept)
{
	bool any = false;

	for (size_t k = 0; k < m; k++) {
		if (v == VISIT_FIRST)
			open[k] = A[k] > i;
		else
			open[k] = (v == VISIT_JOINED || A[k] < i) && joined(c, i, A[k]);
		if (open[k] && A[k] < i)
			mark_kept(c, kept, A, m, k);
		any |= open[k];
	}
	return any;
}

/* The stable level's pairs of vertex i, searched together by the test object: the pairs
 * still joined, each with the sets within i's other frozen neighbours, in the order
 * pair_test tries them; the second visit of a pair (i > j) meets kept answers exactly for
 * the sets within j's frozen neighbours (its first visit tried every set of those, all
 * dependent, and kept those within i's).  Found pairs are removed with their sets. */
static int vertex_search(level_ctx *c, size_t i, fb_error *err)
{
	const size_t *A = c->adj + c->start[i];
	size_t m = c->start[i + 1] - c->start[i], l = c->level;

	if (m < l + 1 || !search_mark(c, i, A, m, VISIT_JOINED, c->open, c->kept))
		return FB_OK;
	if (fb_ci_fisher_separate(c->ci, i, A, m, l, c->opt->alpha, c->open, c->kept, c->found,
	                          c->sets, err) != FB_OK)
		return FB_ERR;
	search_take(c, i, c->found, c->sets);
	return FB_OK;
}

/* Which pairs of vertex i the phase of the threaded search visits (pc_split_phase's mark):
 * all its pairs, its first visits (i < j), or its second (i > j) of pairs still joined. */
static bool phase_mark(void *ctx, size_t i, unsigned char *open, unsigned char *kept)
{
	const level_ctx *c = ctx;
	size_t m = c->start[i + 1] - c->start[i];

	return search_mark(c, i, c->adj + c->start[i], m, (enum search_visits)c->visits, open,
	                   kept);
}

/* Take vertex i's answers from the threaded searches as its serial walk would: a pair's
 * second visit (A[t] < i, its counters in second) counts and removes only when its first
 * visit, taken before, left the pair joined; a first visit always counts. */
static void search_resolve(level_ctx *c, size_t i, const pc_split_count *second)
{
	const size_t *A = c->adj + c->start[i];
	size_t m = c->start[i + 1] - c->start[i], l = c->level;
	const unsigned char *found = c->found + c->start[i];
	const size_t *sets = c->sets + c->start[i] * l;

	for (size_t t = 0; t < m; t++) {
		if (A[t] < i) {
			if (!joined(c, i, A[t]))
				continue;
			pc_split_count_take(c->ci, &second[t]);
		}
		if (found[t]) {
			if (c->seps != NULL)
				fb_sepsets_set(c->seps, i, A[t], sets + t * l, l);
			pair_remove(c, i, A[t]);
		}
	}
}

/* The first level whose threaded searches walk each vertex once: by then few pairs are left
 * to remove, and a second visit searched for a pair its first visit removes is rare, while
 * two walks of a vertex's subsets would cost twice their shared work (at d = 10,000 the
 * later levels' processor time on 2 threads went from 1.4 to 1.0 times one thread's); at
 * levels 1 and 2, where most pairs go, those wasted second visits would cost more. */
#define SEARCH_ONE_WALK_LEVEL 3

/* The stable level's searches on the helpers' threads in one phase (pc-split.c): each vertex
 * walks its subsets once for all its pairs, a pair's second visit as if its first had left
 * it joined, its counters kept apart; then in vertex order each vertex's answers are taken
 * as its serial walk takes them (the same pairs, sets and counters). */
static int level_search_once(level_ctx *c, fb_error *err)
{
	size_t d = c->g->d, np = c->start[d] > 0 ? c->start[d] : 1;
	pc_split_count *second = calloc(np, sizeof *second);
	pc_split_phase ph = { d, c->level, c->start, c->adj, c->opt->alpha, phase_mark, c,
	                      c->found, c->sets, second };

	if (second == NULL)
		return fb_fail(err, "out of memory for the counters of %zu pairs", np);
	c->visits = VISIT_JOINED;
	memset(c->found, 0, np);
	if (pc_split_search(c->ci, &ph, &c->bal, err) != FB_OK) {
		free(second);
		return FB_ERR;
	}
	for (size_t i = 0; i < d; i++)
		search_resolve(c, i, second + c->start[i]);
	free(second);
	return FB_OK;
}

/* The stable level's searches on the helpers' threads: from SEARCH_ONE_WALK_LEVEL on in one
 * phase (level_search_once), before it in two: every first visit (each pair's tests depend
 * on the frozen lists alone), then every second visit of a pair still joined, each phase cut
 * into units of work (pc-split.c); after each phase the found pairs go in vertex order, as
 * one walk a vertex would remove them (the same pairs, sets and counters). */
static int level_search_threads(level_ctx *c, fb_error *err)
{
	size_t d = c->g->d;
	pc_split_phase ph = { d, c->level, c->start, c->adj, c->opt->alpha, phase_mark, c,
	                      c->found, c->sets, NULL };

	if (c->level >= SEARCH_ONE_WALK_LEVEL)
		return level_search_once(c, err);
	for (int phase = 0; phase < 2; phase++) {
		c->visits = phase == 0 ? VISIT_FIRST : VISIT_SECOND;
		memset(c->found, 0, c->start[d] > 0 ? c->start[d] : 1);
		if (pc_split_search(c->ci, &ph, &c->bal, err) != FB_OK)
			return FB_ERR;
		for (size_t i = 0; i < d; i++)
			search_take(c, i, c->found + c->start[i], c->sets + c->start[i] * c->level);
	}
	return FB_OK;
}

/* Level 0 on the helpers' threads: every pair's first visit at once (pc_split_level0), then
 * in index order the removals, sets and counters of the serial walk, where a pair found
 * dependent is visited again from its other end and the level's cache answers it. */
static int level0_threads(level_ctx *c, fb_error *err)
{
	size_t d = c->g->d, at = 0, dependent = 0;
	unsigned char *dep = malloc(d * (d - 1) / 2 > 0 ? d * (d - 1) / 2 : 1);
	fb_ci_stats again = { 0 };

	if (dep == NULL)
		return fb_fail(err, "out of memory for the %zu pairs of level 0", d * (d - 1) / 2);
	if (pc_split_level0(c->ci, c->g, c->opt->alpha, dep, &c->bal, err) != FB_OK) {
		free(dep);
		return FB_ERR;
	}
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, at++) {
			if (dep[at] == 0)
				continue;
			c->edges++;
			if (dep[at] == 2) {
				dependent++;
				continue;
			}
			if (c->seps != NULL)
				fb_sepsets_set(c->seps, i, j, c->S, 0);
			pair_remove(c, i, j);
		}
	again.queries = again.hits = dependent;
	fb_ci_add_counts(c->ci, &again);
	free(dep);
	return FB_OK;
}

/* Visit every ordered pair of the level (stable or original PC: a pair goes at its first
 * independence), in index order.  Level 0 needs no frozen lists (c->start is NULL): it
 * tests each pair still joined, and lists of d^2 pairs would only cost memory. */
static int level_visit(level_ctx *c, fb_error *err)
{
	size_t d = c->g->d;

	if (c->search && c->threads > 0)
		return level_search_threads(c, err);
	if (c->level0)
		return level0_threads(c, err);
	for (size_t i = 0; i < d; i++) {
		size_t n = c->start != NULL ? c->start[i + 1] - c->start[i] : d;

		if (c->search) {
			if (vertex_search(c, i, err) != FB_OK)
				return FB_ERR;
			continue;
		}

		for (size_t t = 0; t < n; t++) {
			size_t j = c->start != NULL ? c->adj[c->start[i] + t] : t;

			if (j == i || !joined(c, i, j))
				continue;
			/* a pair i < j meets its first visit here, still joined if it was at the start */
			c->edges += c->start == NULL && j > i;
			if (pair_visit(c, i, j, err) != FB_OK)
				return FB_ERR;
		}
	}
	return FB_OK;
}

/* Whether position t of the vertex's neighbours is in the current subset (comb, l). */
static bool comb_has(const size_t *comb, size_t l, size_t t)
{
	for (size_t k = 0; k < l; k++)
		if (comb[k] == t)
			return true;
	return false;
}

/* Whether vertex j's tests in causal-learn's level ask j against i given S (l members): S
 * within j's frozen neighbours (the skeleton stays as it was until the level ends). */
static bool twin_asked(const level_ctx *c, size_t j, const size_t *S, size_t l)
{
	for (size_t k = 0; k < l; k++)
		if (!fb_graph_adjacent(c->g, j, S[k]))
			return false;
	return true;
}

/* Test i against every neighbour j outside S (c->S, positions comb into a[0..m)) given S;
 * unless t only records, mark independent pairs and unite their separating sets.  A test
 * that vertex j < i asks too is left to the replay when t records: the replay finds it in
 * the cache, as one thread would. */
static int set_test(level_ctx *c, pc_tester *t, size_t i, const size_t *a, size_t m,
                    const size_t *comb, const size_t *S, fb_error *err)
{
	size_t d = c->g->d, l = c->level;
	fb_ci_result res;

	for (size_t q = 0; q < m; q++) {
		size_t j = a[q];

		if (comb_has(comb, l, q))
			continue;
		if (pc_tester_recording(t) && j < i && twin_asked(c, j, S, l)) {
			if (pc_tester_later(t, err) != FB_OK)
				return FB_ERR;
			continue;
		}
		if (pc_tester_test(t, i, j, S, l, &res, err) != FB_OK)
			return FB_ERR;
		if (res.p > c->opt->alpha && !pc_tester_recording(t)) {
			c->drop[i * d + j] = c->drop[j * d + i] = 1;
			if (c->seps != NULL)
				fb_sepsets_add(c->seps, i, j, S, l);
		}
	}
	return FB_OK;
}

/* Tests of causal-learn's level an item holds at most (unless one set has more): small
 * enough that a vertex with a huge neighbourhood is spread over the threads. */
#define LEVEL_ITEM_TESTS 64

/* causal-learn's level cut into items: a run of consecutive l-subsets of one vertex's frozen
 * neighbours, each tested against every other neighbour. */
typedef struct level_items {
	level_ctx *c;
	size_t n, cap;  /* items, and room */
	size_t *vertex; /* n: the item's vertex */
	size_t *nsets;  /* n: how many subsets it tests */
	size_t *first;  /* n * l: the positions of its first subset */
} level_items;

/* Add an item of vertex i: nsets subsets from comb on. */
static void items_push(level_items *it, size_t i, const size_t *comb, size_t nsets)
{
	size_t l = it->c->level;

	if (it->n == it->cap) {
		it->cap = it->cap > 0 ? 2 * it->cap : 256;
		it->vertex = fb_xreallocarray(it->vertex, it->cap, sizeof *it->vertex);
		it->nsets = fb_xreallocarray(it->nsets, it->cap, sizeof *it->nsets);
		it->first = fb_xreallocarray(it->first, it->cap * (l > 0 ? l : 1), sizeof *it->first);
	}
	it->vertex[it->n] = i;
	it->nsets[it->n] = nsets;
	memcpy(it->first + it->n * l, comb, l * sizeof *comb);
	it->n++;
}

/* Cut the level into items, vertex by vertex and each vertex's subsets in order, about
 * LEVEL_ITEM_TESTS tests an item. */
static void items_plan(level_items *it)
{
	level_ctx *c = it->c;
	size_t l = c->level, *comb = fb_xmalloc((l > 0 ? l : 1) * sizeof *comb);
	size_t *head = fb_xmalloc((l > 0 ? l : 1) * sizeof *head);

	for (size_t i = 0; i < c->g->d; i++) {
		size_t m = c->start[i + 1] - c->start[i], per, nsets = 0;
		bool more = m >= l + 1;

		per = more ? (LEVEL_ITEM_TESTS + m - l - 1) / (m - l) : 1; /* sets an item */
		for (size_t k = 0; k < l; k++)
			comb[k] = k;
		while (more) {
			if (nsets == 0)
				memcpy(head, comb, l * sizeof *comb);
			more = fb_pc_subset_next(comb, l, m);
			if (++nsets == per || !more) {
				items_push(it, i, head, nsets);
				nsets = 0;
			}
		}
	}
	free(head);
	free(comb);
}

/* The tests of item k of causal-learn's level (an item of pc_items_run): its subsets S of
 * its vertex's frozen neighbours in order, each against every other neighbour. */
static int item_tests(void *ctx, pc_tester *t, size_t k, fb_error *err)
{
	level_items *it = ctx;
	level_ctx *c = it->c;
	size_t i = it->vertex[k], l = c->level, m = c->start[i + 1] - c->start[i];
	const size_t *a = c->adj + c->start[i];
	size_t *comb = fb_xmalloc((l + 1) * sizeof *comb), *S = fb_xmalloc((l + 1) * sizeof *S);
	int ret = FB_OK;

	memcpy(comb, it->first + k * l, l * sizeof *comb);
	for (size_t s = 0; s < it->nsets[k] && ret == FB_OK; s++) {
		for (size_t q = 0; q < l; q++)
			S[q] = a[comb[q]];
		ret = set_test(c, t, i, a, m, comb, S, err);
		fb_pc_subset_next(comb, l, m);
	}
	free(comb);
	free(S);
	return ret;
}

/* causal-learn's level, where every set is tested and the removals wait for the end: the
 * same tests as pair by pair, grouped by conditioning set (each l-subset S of a vertex's
 * frozen neighbours, then every other neighbour), so that the tests of one S follow each
 * other and the test object can reuse what it computed for S.  Separating sets are united
 * and kept sorted, so the order of the tests changes nothing; the items (runs of a vertex's
 * subsets, so that a vertex with a huge neighbourhood is shared) may be tested on the test
 * object's helper threads and are replayed in order. */
static int level_visit_sets(level_ctx *c, fb_error *err)
{
	level_items it = { .c = c };
	int ret;

	items_plan(&it);
	ret = pc_items_run(c->ci, it.n, item_tests, &it, err);
	free(it.vertex);
	free(it.nsets);
	free(it.first);
	return ret;
}

/* Remove the pairs causal-learn marked during the level. */
static void level_drop(level_ctx *c)
{
	size_t d = c->g->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			if (c->drop[i * d + j] && fb_graph_adjacent(c->g, i, j)) {
				fb_graph_remove(c->g, i, j);
				c->removed++;
			}
}

/* The vertex search's buffers, for the largest frozen neighbourhood, or with threads the
 * level's lists of found pairs and sets (the threads' buffers are pc-split.c's). */
static void search_alloc(level_ctx *c)
{
	size_t d = c->g->d, most = 1;

	for (size_t i = 0; i < d; i++)
		most = c->start[i + 1] - c->start[i] > most ? c->start[i + 1] - c->start[i] : most;
	c->most = most;
	c->threads = fb_ci_n_helpers(c->ci);
	if (c->threads > 0) {
		c->found = fb_xmalloc(c->start[d] > 0 ? c->start[d] : 1);
		c->sets = fb_xmalloc((c->start[d] > 0 ? c->start[d] : 1) * c->level * sizeof *c->sets);
		return;
	}
	c->open = fb_xmalloc(most);
	c->kept = fb_xmalloc(most * most);
	c->found = fb_xmalloc(most);
	c->sets = fb_xmalloc(most * c->level * sizeof *c->sets);
}

/* Run one level of the skeleton search (owned: the level owns ci's cache). */
static int skeleton_level(fb_graph *skel, fb_ci *ci, size_t level, const fb_pc_options *opt,
                          fb_sepsets *seps, fb_pc_level *out, bool owned, fb_error *err)
{
	size_t d = skel->d, dd = d > 0 ? d : 1;
	level_ctx c = { .g = skel, .ci = ci, .opt = opt, .seps = seps, .level = level,
	                .owned = owned };
	fb_ci_stats before, after;
	int ret;

	if (fb_ci_d(ci) != d)
		return fb_fail(err, "the skeleton has %zu variables and the tests %zu", d,
		               fb_ci_d(ci));
	fb_ci_get_stats(ci, &before);
	if (level > 0 || opt->compat == FB_PC_COMPAT_CAUSAL_LEARN) {
		/* frozen; PC's own skeleton (owned) joins and removes both marks of a pair */
		c.adj = owned ? skeleton_adjacency(skel, &c.start) : fb_graph_adjacency(skel, &c.start);
		c.edges = c.start[d] / 2; /* each edge is listed at both ends */
	}
	/* the stable level's own cache keeps nothing the search cannot tell from the lists */
	c.search = owned && opt->stable && level > 0 && fb_ci_kind(ci) == FB_CI_FISHER_Z;
	/* level 0 with helpers: the pairs' first visits are pure functions of the correlations,
	 * and with the cache on each second visit is a hit */
	c.level0 = owned && opt->stable && level == 0 && opt->compat == FB_PC_COMPAT_NONE &&
	           fb_ci_kind(ci) == FB_CI_FISHER_Z && fb_ci_n_helpers(ci) > 0 &&
	           fb_ci_cache_on(ci);
	c.cand = fb_xmalloc(dd * sizeof *c.cand);
	c.comb = fb_xmalloc(dd * sizeof *c.comb);
	c.S = fb_xmalloc(dd * sizeof *c.S);
	c.inj = fb_xmalloc(dd);
	if (c.search)
		search_alloc(&c);
	if (opt->compat == FB_PC_COMPAT_CAUSAL_LEARN)
		c.drop = fb_xcalloc(dd * dd, 1);
	ret = c.drop != NULL ? level_visit_sets(&c, err) : level_visit(&c, err);
	fb_ci_cache_fresh(ci, false);
	if (ret == FB_OK && c.drop != NULL)
		level_drop(&c);
	fb_ci_get_stats(ci, &after);
	if (out != NULL) {
		*out = c.bal;
		out->level = level;
		out->tests = after.queries - before.queries;
		out->hits = after.hits - before.hits;
		out->removed = c.removed;
		out->edges = c.edges - c.removed;
	}
	free(c.start);
	free(c.adj);
	free(c.cand);
	free(c.comb);
	free(c.S);
	free(c.inj);
	free(c.drop);
	free(c.open);
	free(c.kept);
	free(c.found);
	free(c.sets);
	return ret;
}

/* Run one level of the skeleton search. */
int fb_pc_skeleton_level(fb_graph *skel, fb_ci *ci, size_t level, const fb_pc_options *opt,
                         fb_sepsets *seps, fb_pc_level *out, fb_error *err)
{
	return skeleton_level(skel, ci, level, opt, seps, out, false, err);
}

/* Run one level with the cache of ci kept to what the level may ask again, and left empty. */
int fb_pc_skeleton_level_owned(fb_graph *skel, fb_ci *ci, size_t level,
                               const fb_pc_options *opt, fb_sepsets *seps, fb_pc_level *out,
                               fb_error *err)
{
	bool owned = opt->compat != FB_PC_COMPAT_CAUSAL_LEARN;
	int ret = skeleton_level(skel, ci, level, opt, seps, out, owned, err);

	if (owned) {
		fb_ci_cache_clear(ci);
		fb_ci_cache_keep(ci, INFINITY);
	}
	return ret;
}
