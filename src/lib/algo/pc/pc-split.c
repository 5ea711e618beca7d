/* A stable Fisher-z level's vertex searches as units of work on threads (pc-split.h).
 *
 * A vertex's search walks the l-subsets of its m frozen neighbours in lexicographic order,
 * and each open pair stops at its first accepted subset.  A vertex whose search is large
 * (its neighbours times the subsets, against the phase's whole) is cut at ranks of that
 * order into ranges; each range is searched apart with every pair open (fb_ci_fisher_
 * separate_range), into its own found flags, sets and per-pair counters, and the pair then
 * takes its answer from the first range that found one, its counters summed over the ranges
 * up to that one: the sets, removals and counters of one walk, whatever the threads and
 * their timing.  A range that starts after an earlier range of its vertex has finished
 * leaves out the pairs that range found (their later answers are never read); that is the
 * only thing ranges share, read once when the range starts.  Threads take units from one
 * list (one atomic step a unit, never a test): vertices by decreasing size, each vertex's
 * ranges in order.  Each unit's processor time is kept, so that the level can say how
 * evenly its threads were loaded and how 16 would be. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/graph.h"
#include "pc-split.h"

/* Rows of a unit of level 0. */
#define LEVEL0_ROWS 64

/* Threads whose balance a level simulates. */
#define SPLIT_SIM_THREADS 16
/* Units aimed at per simulated thread (ranges are cut to the phase's work over this many). */
#define SPLIT_GRAIN 16
/* Most ranges one vertex is cut into. */
#define SPLIT_MAX_RANGES 512
/* Least estimated tests of a range. */
#define SPLIT_MIN_TESTS 5000.0

/* One unit: a vertex's whole search, or a range of its subsets. */
typedef struct split_unit {
	size_t i;          /* the vertex */
	size_t first;      /* index of its vertex's first unit */
	size_t n;          /* units of its vertex */
	const size_t *lo;  /* the range's first subset (NULL: the first of all) */
	const size_t *hi;  /* the first subset past it (NULL: none) */
	size_t rec;        /* its records' index among the ranges (SIZE_MAX: a whole vertex) */
	double seconds;    /* processor time it took */
	size_t thread;     /* the thread that ran it */
	int done;          /* set (release) when finished */
} split_unit;

/* The phase's units and their records. */
typedef struct split_plan {
	const pc_split_phase *ph;
	split_unit *u;        /* nu units in the order taken */
	size_t nu, next;      /* units, and the next to take (atomic) */
	size_t *cuts;         /* the ranges' bounds, level positions each */
	size_t most;          /* the largest frozen neighbourhood */
	unsigned char *found; /* per range: most flags */
	size_t *sets;         /* per range: most x level */
	fb_ci_stats *pst;     /* per range: most counters */
} split_plan;

/* What one thread does. */
typedef struct split_thread {
	split_plan *p;
	fb_ci *ci;            /* its test object */
	size_t t;             /* its number */
	unsigned char *open;  /* most */
	unsigned char *kept;  /* most x most */
	fb_ci_stats *pst;     /* most: a whole vertex's counters, pair by pair */
	int ret;              /* FB_OK, or FB_ERR with err */
	fb_error err;
} split_thread;

/* The binomial coefficient C(n, k) as a double (an estimate where it is huge). */
static double binom(size_t n, size_t k)
{
	double c = 1.0;

	if (k > n)
		return 0.0;
	for (size_t t = 0; t < k; t++)
		c = c * (double)(n - t) / (double)(t + 1);
	return c;
}

/* The l-subset of m positions at rank r of the lexicographic order into comb. */
static void unrank(double r, size_t m, size_t l, size_t *comb)
{
	size_t v = 0;

	for (size_t p = 0; p < l; p++) {
		for (;; v++) {
			double c = binom(m - 1 - v, l - 1 - p);

			if (v + (l - p) >= m || r < c)
				break;
			r -= c;
		}
		comb[p] = v++;
	}
}

/* Whether the subset a comes after b in lexicographic order (l positions each). */
static bool comb_after(const size_t *a, const size_t *b, size_t l)
{
	for (size_t k = 0; k < l; k++)
		if (a[k] != b[k])
			return a[k] > b[k];
	return false;
}

/* The estimated tests of vertex i's search: its neighbours times its subsets. */
static double vertex_tests(const pc_split_phase *ph, size_t i)
{
	size_t m = ph->start[i + 1] - ph->start[i];

	return m < ph->level + 1 ? 0.0 : (double)m * binom(m, ph->level);
}

/* A vertex and its estimated tests, for the order of the units. */
typedef struct split_vertex {
	double tests;
	size_t i;
} split_vertex;

/* Order of the vertices: larger searches first, then by index. */
static int vertex_cmp(const void *a, const void *b)
{
	const split_vertex *x = a, *y = b;

	if (x->tests != y->tests)
		return x->tests < y->tests ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* How many ranges vertex i is cut into, for a range of about target tests. */
static size_t vertex_ranges(const pc_split_phase *ph, size_t i, double target)
{
	size_t m = ph->start[i + 1] - ph->start[i];
	double e = vertex_tests(ph, i), n = ceil(e / target), subsets = binom(m, ph->level);

	if (e <= 2.0 * target)
		return 1;
	n = n < SPLIT_MAX_RANGES ? n : SPLIT_MAX_RANGES;
	return (size_t)(n < subsets ? n : subsets);
}

/* Add vertex i's units (n ranges wanted) to the plan, its bounds at *ncut of the cuts. */
static void plan_vertex(split_plan *p, size_t i, size_t n, size_t *ncut, size_t *nrec)
{
	size_t l = p->ph->level, m = p->ph->start[i + 1] - p->ph->start[i], first = p->nu;
	double subsets = binom(m, l);
	const size_t *prev = NULL;

	for (size_t k = 1; k < n; k++) {
		size_t *c = p->cuts + *ncut * l;

		/* rank k subsets / n >= 1 (n <= subsets): never the first subset of all */
		unrank(floor((double)k * subsets / (double)n), m, l, c);
		if (prev != NULL && !comb_after(c, prev, l))
			continue;
		p->u[p->nu++] = (split_unit){ i, first, 0, prev, c, 0, 0.0, 0, 0 };
		prev = c;
		(*ncut)++;
	}
	p->u[p->nu++] = (split_unit){ i, first, 0, prev, NULL, 0, 0.0, 0, 0 };
	for (size_t k = first; k < p->nu; k++) {
		p->u[k].n = p->nu - first;
		p->u[k].rec = p->nu - first > 1 ? (*nrec)++ : SIZE_MAX;
	}
}

/* Cut the phase into units; FB_ERR when out of memory. */
static int plan_make(split_plan *p, fb_error *err)
{
	const pc_split_phase *ph = p->ph;
	size_t d = ph->d, nv = 0, total_units = 0, ncut = 0, nrec = 0, l = ph->level;
	split_vertex *order = malloc((d > 0 ? d : 1) * sizeof *order);
	double work = 0.0, target;

	if (order == NULL)
		return fb_fail(err, "out of memory for the units of %zu vertices", d);
	for (size_t i = 0; i < d; i++) {
		size_t m = ph->start[i + 1] - ph->start[i];

		p->most = m > p->most ? m : p->most;
		if (vertex_tests(ph, i) > 0.0) {
			order[nv++] = (split_vertex){ vertex_tests(ph, i), i };
			work += order[nv - 1].tests;
		}
	}
	target = work / (SPLIT_SIM_THREADS * SPLIT_GRAIN);
	target = target > SPLIT_MIN_TESTS ? target : SPLIT_MIN_TESTS;
	for (size_t k = 0; k < nv; k++)
		total_units += vertex_ranges(ph, order[k].i, target);
	qsort(order, nv, sizeof *order, vertex_cmp);
	p->u = malloc((total_units > 0 ? total_units : 1) * sizeof *p->u);
	p->cuts = malloc((total_units * l > 0 ? total_units * l : 1) * sizeof *p->cuts);
	if (p->u == NULL || p->cuts == NULL) {
		free(order);
		return fb_fail(err, "out of memory for %zu units", total_units);
	}
	for (size_t k = 0; k < nv; k++)
		plan_vertex(p, order[k].i, vertex_ranges(ph, order[k].i, target), &ncut, &nrec);
	free(order);
	p->found = calloc(nrec > 0 ? nrec * p->most : 1, 1);
	p->sets = malloc((nrec * p->most * l > 0 ? nrec * p->most * l : 1) * sizeof *p->sets);
	p->pst = calloc(nrec > 0 ? nrec * p->most : 1, sizeof *p->pst);
	if (p->found == NULL || p->sets == NULL || p->pst == NULL)
		return fb_fail(err, "out of memory for the answers of %zu ranges", nrec);
	return FB_OK;
}

/* Leave out of open the pairs that an earlier range of the unit's vertex, already
 * finished, found; false when none is left. */
static bool unit_prune(const split_plan *p, const split_unit *u, unsigned char *open,
                       size_t m)
{
	bool any = false;

	for (size_t k = u->first; k < (size_t)(u - p->u); k++) {
		const unsigned char *f = p->found + p->u[k].rec * p->most;

		if (!__atomic_load_n(&p->u[k].done, __ATOMIC_ACQUIRE))
			continue;
		for (size_t y = 0; y < m; y++)
			open[y] &= !f[y];
	}
	for (size_t y = 0; y < m; y++)
		any |= open[y];
	return any;
}

/* Add n's counters to ci's. */
void pc_split_count_take(fb_ci *ci, const pc_split_count *n)
{
	fb_ci_stats st = { .queries = n->queries, .hits = n->hits, .computed = n->computed,
	                   .undefined = n->undefined, .singular = n->singular };

	fb_ci_add_counts(ci, &st);
}

/* Add st's counters to n's. */
static void count_add(pc_split_count *n, const fb_ci_stats *st)
{
	n->queries += st->queries;
	n->hits += st->hits;
	n->computed += st->computed;
	n->undefined += st->undefined;
	n->singular += st->singular;
}

/* Move the counters of the pair at position y of vertex i: a second visit's (a neighbour
 * before i) into the phase's second when it has one, else into ci's. */
static void count_pair(const pc_split_phase *ph, fb_ci *ci, size_t i, size_t y,
                       const fb_ci_stats *st)
{
	if (ph->second != NULL && ph->adj[ph->start[i] + y] < i)
		count_add(&ph->second[ph->start[i] + y], st);
	else
		fb_ci_add_counts(ci, st);
}

/* Run one unit on thread w's object. */
static int unit_run(split_thread *w, split_unit *u, fb_error *err)
{
	split_plan *p = w->p;
	const pc_split_phase *ph = p->ph;
	size_t i = u->i, m = ph->start[i + 1] - ph->start[i], l = ph->level;
	unsigned char *found = ph->found + ph->start[i];
	size_t *sets = ph->sets + ph->start[i] * l;
	fb_ci_sep_range rg = { u->lo, u->hi, NULL };
	int ret = FB_OK;

	if (u->rec != SIZE_MAX) {
		found = p->found + u->rec * p->most;
		sets = p->sets + u->rec * p->most * l;
		rg.pair = p->pst + u->rec * p->most;
	} else {
		rg.pair = w->pst;
		memset(w->pst, 0, m * sizeof *w->pst);
	}
	if (!ph->mark(ph->ctx, i, w->open, w->kept))
		memset(found, 0, m);
	else if (u->rec != SIZE_MAX && !unit_prune(p, u, w->open, m))
		memset(found, 0, m);
	else
		ret = fb_ci_fisher_separate_range(w->ci, i, ph->adj + ph->start[i], m, l, ph->alpha,
		                                  w->open, w->kept, &rg, found, sets, err);
	for (size_t y = 0; u->rec == SIZE_MAX && y < m; y++)
		count_pair(ph, w->ci, i, y, &w->pst[y]);
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return ret;
}

/* A thread: take units until none is left or one fails. */
static void *split_thread_run(void *arg)
{
	split_thread *w = arg;
	split_plan *p = w->p;

	w->ret = FB_OK;
	for (;;) {
		size_t k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		double t0;

		if (k >= p->nu)
			break;
		t0 = fb_thread_seconds();
		p->u[k].thread = w->t;
		w->ret = unit_run(w, &p->u[k], &w->err);
		p->u[k].seconds = fb_thread_seconds() - t0;
		if (w->ret != FB_OK)
			break;
	}
	return NULL;
}

/* Take each pair of a cut vertex (units first .. first + n) from its ranges in order: its
 * counters up to the first range that found a set, and that set; the tests of the ranges
 * after it are added to *spare. */
static void merge_vertex(const split_plan *p, fb_ci *ci, size_t first, size_t n,
                         size_t *spare)
{
	const pc_split_phase *ph = p->ph;
	size_t i = p->u[first].i, m = ph->start[i + 1] - ph->start[i], l = ph->level;

	for (size_t y = 0; y < m; y++) {
		size_t at = ph->start[i] + y;

		ph->found[at] = 0;
		for (size_t k = first; k < first + n; k++) {
			size_t r = p->u[k].rec;

			count_pair(ph, ci, i, y, &p->pst[r * p->most + y]);
			if (p->found[r * p->most + y]) {
				ph->found[at] = 1;
				memcpy(ph->sets + at * l, p->sets + (r * p->most + y) * l,
				       l * sizeof *ph->sets);
				for (size_t q = k + 1; q < first + n; q++)
					*spare += p->pst[p->u[q].rec * p->most + y].queries;
				break;
			}
		}
	}
}

/* The busiest of nt threads' loads when the units go in order to whichever thread is free
 * first (their processor times as measured). */
static double simulate(const split_plan *p, size_t nt)
{
	double load[SPLIT_SIM_THREADS] = { 0 }, most = 0.0;

	nt = nt < SPLIT_SIM_THREADS ? nt : SPLIT_SIM_THREADS;
	for (size_t k = 0; k < p->nu; k++) {
		size_t f = 0;

		for (size_t t = 1; t < nt; t++)
			f = load[t] < load[f] ? t : f;
		load[f] += p->u[k].seconds;
	}
	for (size_t t = 0; t < nt; t++)
		most = load[t] > most ? load[t] : most;
	return most;
}

/* Add the phase's figures to bal: units, their processor time, the busiest thread's, and
 * the busiest of 16 simulated threads'. */
static void balance_add(const split_plan *p, size_t nt, fb_pc_level *bal)
{
	double *busy = calloc(nt, sizeof *busy), most = 0.0;

	bal->units += p->nu;
	bal->threads = nt;
	for (size_t k = 0; k < p->nu; k++) {
		bal->cut += p->u[k].n > 1 && k == p->u[k].first;
		bal->work += p->u[k].seconds;
		if (busy != NULL)
			busy[p->u[k].thread] += p->u[k].seconds;
	}
	for (size_t t = 0; busy != NULL && t < nt; t++)
		most = busy[t] > most ? busy[t] : most;
	bal->busiest += most;
	bal->span16 += simulate(p, SPLIT_SIM_THREADS);
	free(busy);
}

/* Start the threads' work: each its helper and buffers; FB_ERR when out of memory. */
static int threads_prepare(split_plan *p, fb_ci *ci, split_thread *w, size_t nt,
                           fb_error *err)
{
	for (size_t t = 0; t < nt; t++) {
		w[t] = (split_thread){ p, fb_ci_helper(ci, t), t, malloc(p->most > 0 ? p->most : 1),
		                       malloc(p->most > 0 ? p->most * p->most : 1),
		                       malloc((p->most > 0 ? p->most : 1) * sizeof *w[t].pst), FB_OK,
		                       { "" } };
		if (w[t].open == NULL || w[t].kept == NULL || w[t].pst == NULL)
			return fb_fail(err, "out of memory for a search among %zu neighbours",
			               p->most);
	}
	return FB_OK;
}

/* Gather the threads' answers and counters into ph and ci (the spare tests into *spare);
 * FB_ERR with the first failure. */
static int threads_finish(split_plan *p, fb_ci *ci, split_thread *w, size_t nt,
                          size_t *spare, fb_error *err)
{
	int ret = FB_OK;

	for (size_t t = 0; t < nt; t++) {
		fb_ci_take_counts(ci, w[t].ci);
		if (w[t].ret != FB_OK && ret == FB_OK)
			ret = fb_fail(err, "%s", w[t].err.msg);
	}
	for (size_t k = 0; ret == FB_OK && k < p->nu; k += p->u[k].n)
		if (p->u[k].n > 1)
			merge_vertex(p, ci, k, p->u[k].n, spare);
	return ret;
}

/* Run the phase on the helpers' threads (see pc-split.h). */
int pc_split_search(fb_ci *ci, const pc_split_phase *ph, fb_pc_level *bal, fb_error *err)
{
	size_t nt = fb_ci_n_helpers(ci);
	split_plan p = { .ph = ph };
	size_t spare = 0;
	split_thread *w = calloc(nt > 0 ? nt : 1, sizeof *w);
	int ret;

	if (nt == 0 || w == NULL)
		ret = fb_fail(err, nt == 0 ? "no helper threads" : "out of memory for %zu threads",
		              nt);
	else if ((ret = plan_make(&p, err)) == FB_OK &&
	         (ret = threads_prepare(&p, ci, w, nt, err)) == FB_OK) {
		fb_threads_run(split_thread_run, w, sizeof *w, nt);
		ret = threads_finish(&p, ci, w, nt, &spare, err);
		if (ret == FB_OK && bal != NULL) {
			balance_add(&p, nt, bal);
			bal->spare += spare;
		}
	}
	for (size_t t = 0; w != NULL && t < nt; t++) {
		free(w[t].open);
		free(w[t].kept);
		free(w[t].pst);
	}
	free(w);
	free(p.u);
	free(p.cuts);
	free(p.found);
	free(p.sets);
	free(p.pst);
	return ret;
}

/* A thread of level 0: its test object and the rows' answers. */
typedef struct level0_thread {
	split_plan *p;         /* the units (rows LEVEL0_ROWS at a time) and their times */
	const fb_graph *g;     /* the skeleton at the level's start (read only) */
	fb_ci *ci;             /* its test object */
	double alpha;
	unsigned char *dep;    /* d (d - 1) / 2: each pair i < j, packed by rows */
	size_t t;              /* its number */
	int ret;
	fb_error err;
} level0_thread;

/* Where the pair i < j stands among the d (d - 1) / 2 pairs, by rows. */
static size_t level0_at(size_t d, size_t i, size_t j)
{
	return i * (2 * d - i - 1) / 2 + (j - i - 1);
}

/* Test the pairs still joined of rows [i0, i1) given the empty set, as the first visit of
 * each pair tests it: dep 1 independent, 2 dependent, 0 not joined. */
static int level0_rows(level0_thread *w, size_t i0, size_t i1)
{
	size_t d = w->g->d, none = 0;

	for (size_t i = i0; i < i1; i++)
		for (size_t j = i + 1; j < d; j++) {
			unsigned char *out = w->dep + level0_at(d, i, j);
			bool indep;

			if (!w->g->mark[i * d + j] && !w->g->mark[j * d + i]) {
				*out = 0;
				continue;
			}
			if (fb_ci_independent(w->ci, i, j, &none, 0, w->alpha, &indep, &w->err) != FB_OK)
				return FB_ERR;
			*out = indep ? 1 : 2;
		}
	return FB_OK;
}

/* A thread of level 0: take units of rows until none is left or one fails. */
static void *level0_thread_run(void *arg)
{
	level0_thread *w = arg;
	split_plan *p = w->p;
	size_t d = w->g->d;

	w->ret = FB_OK;
	for (;;) {
		size_t k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		size_t i0 = k * LEVEL0_ROWS, i1 = i0 + LEVEL0_ROWS < d ? i0 + LEVEL0_ROWS : d;
		double t0;

		if (k >= p->nu)
			break;
		t0 = fb_thread_seconds();
		p->u[k].thread = w->t;
		w->ret = level0_rows(w, i0, i1);
		p->u[k].seconds = fb_thread_seconds() - t0;
		if (w->ret != FB_OK)
			break;
	}
	return NULL;
}

/* Ready the helpers for level 0's first visits (keep nothing, look nothing up: each pair is
 * asked once here), or back to their defaults. */
static void level0_helpers(fb_ci *ci, size_t nt, bool start)
{
	for (size_t t = 0; t < nt; t++) {
		fb_ci *h = fb_ci_helper(ci, t);

		fb_ci_cache_keep(h, start ? -1.0 : INFINITY);
		fb_ci_cache_fresh(h, start);
	}
}

/* Run level 0's first visits on ci's helpers' threads (see pc-split.h). */
int pc_split_level0(fb_ci *ci, const fb_graph *g, double alpha, unsigned char *dep,
                    fb_pc_level *bal, fb_error *err)
{
	size_t nt = fb_ci_n_helpers(ci), d = g->d;
	split_plan p = { .nu = (d + LEVEL0_ROWS - 1) / LEVEL0_ROWS };
	level0_thread *w = calloc(nt > 0 ? nt : 1, sizeof *w);
	int ret = FB_OK;

	p.u = calloc(p.nu > 0 ? p.nu : 1, sizeof *p.u);
	if (nt == 0 || w == NULL || p.u == NULL)
		ret = fb_fail(err, nt == 0 ? "no helper threads" : "out of memory for %zu threads",
		              nt);
	for (size_t k = 0; ret == FB_OK && k < p.nu; k++)
		p.u[k] = (split_unit){ k, k, 1, NULL, NULL, SIZE_MAX, 0.0, 0, 0 };
	if (ret == FB_OK) {
		level0_helpers(ci, nt, true);
		for (size_t t = 0; t < nt; t++)
			w[t] = (level0_thread){ &p, g, fb_ci_helper(ci, t), alpha, dep, t, FB_OK,
			                        { "" } };
		fb_threads_run(level0_thread_run, w, sizeof *w, nt);
		level0_helpers(ci, nt, false);
		for (size_t t = 0; t < nt; t++) {
			fb_ci_take_counts(ci, w[t].ci);
			if (w[t].ret != FB_OK && ret == FB_OK)
				ret = fb_fail(err, "%s", w[t].err.msg);
		}
		if (ret == FB_OK && bal != NULL)
			balance_add(&p, nt, bal);
	}
	free(w);
	free(p.u);
	return ret;
}
