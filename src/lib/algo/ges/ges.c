/* Greedy Equivalence Search on a CPDAG: the operators' validity, their gains, and the
 * stepper (see ges.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/ges.h"
#include "fedbn/honour.h"

/* The best operator found by a scan. */
typedef struct ges_op {
	bool found;   /* some valid operator was scored */
	size_t x, y;  /* its edge */
	size_t pos;   /* x d + y: its place in the scan's order */
	size_t *set;  /* T or H (d, owned) */
	size_t nset;  /* its size */
	double gain;  /* its score gain */
} ges_op;

typedef struct ges_scratch ges_scratch;

struct fb_ges {
	fb_lscore *ls;            /* the local score and its cache (owned) */
	fb_graph *g;              /* the current CPDAG (owned) */
	size_t d;                 /* variables */
	enum fb_ges_phase phase;  /* the phase the next step works in */
	double score;             /* the CPDAG's score */
	size_t *pa;               /* d: scratch list of the serial parts */
	ges_op best;              /* the best operator of the last scan */
	const fb_knowledge *k;    /* background knowledge, or NULL (none) */
	size_t operators;         /* valid operators scored in the last scan */
	size_t threads;           /* threads scanning (>= 1) */
	ges_scratch *sc;          /* threads: each one's scratch (owned) */
	enum fb_ges_phase scan;   /* the phase being scanned */
	double *cost;             /* threads > 1: d, each node's processor seconds in the last
	                             scan that took it (0 before any) */
	size_t *owner;            /* threads > 1: d, the thread each node is dealt to */
	double *load;             /* threads > 1: threads, scratch of the deal */
	bool dealt;               /* the nodes were dealt once */
};

/* One scanning thread: its scratch, and the best operator among its nodes Y. */
struct ges_scratch {
	fb_ges *s;                /* the search */
	size_t *nb, *pa, *na, *t0, *idx, *sub, *list, *queue; /* d each: scratch lists */
	bool *mark, *seen;        /* d each: scratch sets */
	fb_lscore_work *w;        /* its scratch for local scores (owned) */
	ges_op best;              /* the best operator of its nodes */
	size_t operators;         /* valid operators it scored */
	int status;               /* FB_OK, or FB_ERR with err */
	fb_error err;             /* why it failed */
};

/* Advance the k-subset idx of {0..m-1} to the next one in size-then-lexicographic order;
 * false after the whole set. */
static bool ges_subset_next(size_t *idx, size_t *k, size_t m)
{
	size_t p = *k;

	while (p > 0 && idx[p - 1] == m - *k + p - 1)
		p--;
	if (p == 0) {
		if (*k == m)
			return false;
		(*k)++;
		for (size_t a = 0; a < *k; a++)
			idx[a] = a;
		return true;
	}
	idx[p - 1]++;
	for (size_t a = p; a < *k; a++)
		idx[a] = idx[a - 1] + 1;
	return true;
}

/* Whether the n nodes of list are pairwise adjacent. */
static bool ges_clique(const fb_graph *g, const size_t *list, size_t n)
{
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			if (!fb_graph_adjacent(g, list[a], list[b]))
				return false;
	return true;
}

/* Whether a semi-directed path (edges u -> v or u - v) leads from y to x in g through no
 * node marked in blocked; seen and queue are scratch for d. */
static bool ges_semi_path(const fb_graph *g, const bool *blocked, size_t y, size_t x,
                          bool *seen, size_t *queue)
{
	size_t head = 0, tail = 0, d = g->d;

	memset(seen, 0, d * sizeof *seen);
	seen[y] = true;
	queue[tail++] = y;
	while (head < tail) {
		size_t u = queue[head++];

		for (size_t v = 0; v < d; v++) {
			if (!g->mark[u * d + v] || seen[v] || blocked[v])
				continue;
			if (v == x)
				return true;
			seen[v] = true;
			queue[tail++] = v;
		}
	}
	return false;
}

/* NA_{y,x}: the neighbours of y adjacent to x, into na (room for d); their count. */
static size_t ges_na(const fb_graph *g, size_t x, size_t y, size_t *na)
{
	size_t n = fb_graph_neighbours(g, y, na), k = 0;

	for (size_t a = 0; a < n; a++)
		if (fb_graph_adjacent(g, na[a], x))
			na[k++] = na[a];
	return k;
}

/* The local score of y given the nodes marked in c->mark. */
static int ges_local(ges_scratch *c, size_t y, double *out, fb_error *err)
{
	size_t np = 0;

	for (size_t v = 0; v < c->s->d; v++)
		if (c->mark[v])
			c->list[np++] = v;
	return fb_lscore_get_at(c->s->ls, c->w, y, c->list, np, out, err);
}

/* s(y, marked u {x}) - s(y, marked), or its opposite when del; x is unmarked after. */
static int ges_gain(ges_scratch *c, size_t x, size_t y, bool del, double *gain,
                    fb_error *err)
{
	double with, without;

	c->mark[x] = false;
	if (ges_local(c, y, &without, err) != FB_OK)
		return FB_ERR;
	c->mark[x] = true;
	if (ges_local(c, y, &with, err) != FB_OK)
		return FB_ERR;
	c->mark[x] = false;
	*gain = del ? without - with : with - without;
	return FB_OK;
}

/* Whether an operator of gain at place pos beats best: a larger gain, or an equal one
 * earlier in the scan's order (the first of equal gains wins).  A gain that is not a number
 * beats nothing. */
static bool ges_beats(const ges_op *best, double gain, size_t pos)
{
	if (isnan(gain))
		return false;
	return !best->found || gain > best->gain || (gain == best->gain && pos < best->pos);
}

/* Keep operator (x, y, set of n) with gain when it beats c's best so far. */
static void ges_offer(ges_scratch *c, size_t x, size_t y, const size_t *set, size_t n,
                      double gain)
{
	size_t pos = x * c->s->d + y;

	c->operators++;
	if (!ges_beats(&c->best, gain, pos))
		return;
	c->best.found = true;
	c->best.x = x;
	c->best.y = y;
	c->best.pos = pos;
	c->best.gain = gain;
	c->best.nset = n;
	memcpy(c->best.set, set, n * sizeof *set);
}

/* Mark the np parents of y (c->pa), the nn nodes of c->na and the k nodes of from chosen
 * by c->idx (copied into c->sub); the nodes of na and the chosen ones are also listed in
 * c->queue, for the clique test; returns how many are listed. */
static size_t ges_mark(ges_scratch *c, size_t np, size_t nn, const size_t *from, size_t k)
{
	size_t n = 0;

	memset(c->mark, 0, c->s->d * sizeof *c->mark);
	for (size_t a = 0; a < np; a++)
		c->mark[c->pa[a]] = true;
	for (size_t a = 0; a < nn; a++)
		c->mark[c->queue[a] = c->na[a]] = true, n++;
	for (size_t a = 0; a < k; a++)
		c->mark[c->queue[n++] = c->sub[a] = from[c->idx[a]]] = true;
	return n;
}

/* Whether k forbids some arc set[a] -> y (a < n). */
static bool ges_forbids_into(const fb_knowledge *k, const size_t *set, size_t n, size_t y)
{
	for (size_t a = 0; a < n; a++)
		if (fb_knowledge_forbids(k, set[a], y))
			return true;
	return false;
}

/* Whether k forbids some arc y -> h or x -> h for h in set[0..n) (Tetrad's FGES refuses
 * such a Delete(x, y, H), which would orient them). */
static bool ges_forbids_from(const fb_knowledge *k, size_t x, size_t y, const size_t *set,
                             size_t n)
{
	for (size_t a = 0; a < n; a++)
		if (fb_knowledge_forbids(k, y, set[a]) || fb_knowledge_forbids(k, x, set[a]))
			return true;
	return false;
}

/* Whether knowledge k (NULL: none) rules out every operator on (x, y) in the phase: an
 * insertion of a forbidden x -> y, a deletion of an edge a required arc joins. */
static bool ges_known_skip(const fb_knowledge *k, enum fb_ges_phase phase, size_t x, size_t y)
{
	if (k == NULL)
		return false;
	if (phase == FB_GES_FORWARD)
		return fb_knowledge_forbids(k, x, y);
	return fb_knowledge_requires(k, x, y) || fb_knowledge_requires(k, y, x);
}

/* Every Insert(x, y, T) for one non-adjacent pair. */
static int ges_scan_insert_pair(ges_scratch *c, size_t x, size_t y, fb_error *err)
{
	const fb_ges *s = c->s;
	size_t nnb = fb_graph_neighbours(s->g, y, c->nb), np = fb_graph_parents(s->g, y, c->pa);
	size_t nna = 0, nt = 0, k = 0;

	for (size_t a = 0; a < nnb; a++) {
		if (fb_graph_adjacent(s->g, c->nb[a], x))
			c->na[nna++] = c->nb[a];
		else
			c->t0[nt++] = c->nb[a];
	}
	do {
		size_t n = ges_mark(c, 0, nna, c->t0, k);
		double gain;

		if ((s->k != NULL && ges_forbids_into(s->k, c->sub, k, y)) ||
		    !ges_clique(s->g, c->queue, n) ||
		    ges_semi_path(s->g, c->mark, y, x, c->seen, c->queue))
			continue;
		ges_mark(c, np, nna, c->t0, k);
		if (ges_gain(c, x, y, false, &gain, err) != FB_OK)
			return FB_ERR;
		ges_offer(c, x, y, c->sub, k, gain);
	} while (ges_subset_next(c->idx, &k, nt));
	return FB_OK;
}

/* Every Delete(x, y, H) for x - y or x -> y. */
static int ges_scan_delete_pair(ges_scratch *c, size_t x, size_t y, fb_error *err)
{
	const fb_ges *s = c->s;
	size_t np = fb_graph_parents(s->g, y, c->pa), k = 0, *all = c->t0;
	size_t nna = ges_na(s->g, x, y, all);

	do {
		size_t nrest = 0, h = 0;
		double gain;

		for (size_t a = 0; a < nna; a++) {
			if (h < k && c->idx[h] == a)
				c->sub[h++] = all[a];
			else
				c->na[nrest++] = all[a];
		}
		if (!ges_clique(s->g, c->na, nrest) ||
		    (s->k != NULL && ges_forbids_from(s->k, x, y, c->sub, k)))
			continue;
		memset(c->mark, 0, s->d * sizeof *c->mark);
		for (size_t a = 0; a < np; a++)
			c->mark[c->pa[a]] = true;
		for (size_t a = 0; a < nrest; a++)
			c->mark[c->na[a]] = true;
		if (ges_gain(c, x, y, true, &gain, err) != FB_OK)
			return FB_ERR;
		ges_offer(c, x, y, c->sub, k, gain);
	} while (ges_subset_next(c->idx, &k, nna));
	return FB_OK;
}

/* Every operator of the phase into node y, for x in index order. */
static int ges_scan_node(ges_scratch *c, enum fb_ges_phase phase, size_t y, fb_error *err)
{
	const fb_ges *s = c->s;

	for (size_t x = 0; x < s->d; x++) {
		enum fb_edge e = fb_graph_edge(s->g, x, y);
		int ret = FB_OK;

		if (ges_known_skip(s->k, phase, x, y))
			continue;
		if (phase == FB_GES_FORWARD && x != y && e == FB_EDGE_NONE)
			ret = ges_scan_insert_pair(c, x, y, err);
		else if (phase == FB_GES_BACKWARD &&
		         (e == FB_EDGE_FORWARD || e == FB_EDGE_UNDIRECTED))
			ret = ges_scan_delete_pair(c, x, y, err);
		if (ret != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Scanning thread t: the nodes Y dealt to it (ges_deal), each timed on the thread's
 * processor clock for the next deal.  Each node's local scores (and cache) are those of the
 * one thread that has it in this scan. */
static void *ges_scan_thread(void *arg)
{
	ges_scratch *c = arg;
	fb_ges *s = c->s;
	size_t t = (size_t)(c - s->sc);
	double t0 = s->threads > 1 ? fb_thread_seconds() : 0;

	c->best.found = false;
	c->operators = 0;
	c->status = FB_OK;
	for (size_t y = 0; y < s->d && c->status == FB_OK; y++) {
		double t1;

		if (s->threads > 1 && s->owner[y] != t)
			continue;
		c->status = ges_scan_node(c, s->scan, y, &c->err);
		if (s->threads < 2)
			continue;
		t1 = fb_thread_seconds();
		s->cost[y] = t1 - t0;
		t0 = t1;
	}
	return NULL;
}

/* The node of thread h whose move to a thread gap lighter evens them best (its cost c < gap,
 * |gap - 2 c| least, the first of equals), or d when none would lower the heavier. */
static size_t ges_deal_pick(const fb_ges *s, size_t h, double gap)
{
	size_t pick = s->d;
	double best = gap;

	for (size_t y = 0; y < s->d; y++) {
		double c = s->cost[y];

		if (s->owner[y] != h || !(c > 0 && c < gap) || !(fabs(gap - 2 * c) < best))
			continue;
		best = fabs(gap - 2 * c);
		pick = y;
	}
	return pick;
}

/* Deal the nodes to the threads: in turn before any scan, then each node kept by the thread
 * that had it (its local scores' cache stays in that core's cache) but for the moves that even
 * the threads' loads, the processor times the nodes took in their last scans: one at a time
 * from the heaviest thread to the lightest while a move lowers the heavier (about one move a
 * scan at d = 80, where dealing afresh by cost moved half the nodes).  Which thread takes a
 * node changes no result: the best operator is chosen by gain, then place, and a node's
 * scores have the same bits on any thread. */
static void ges_deal(fb_ges *s)
{
	double *load = s->load;

	if (!s->dealt) {
		for (size_t y = 0; y < s->d; y++)
			s->owner[y] = y % s->threads;
		s->dealt = true;
		return;
	}
	memset(load, 0, s->threads * sizeof *load);
	for (size_t y = 0; y < s->d; y++)
		load[s->owner[y]] += s->cost[y];
	for (size_t moves = 0; moves < s->d; moves++) {
		size_t h = 0, l = 0, y;

		for (size_t t = 1; t < s->threads; t++) {
			h = load[t] > load[h] ? t : h;
			l = load[t] < load[l] ? t : l;
		}
		if ((y = ges_deal_pick(s, h, load[h] - load[l])) == s->d)
			break;
		s->owner[y] = l;
		load[h] -= s->cost[y];
		load[l] += s->cost[y];
	}
}

/* Find the best operator of the phase into s->best: the threads' bests compared by gain,
 * then place, which gives the one walk's answer (the first of the largest gains in x, then
 * y, then set order) whichever thread took which node. */
static int ges_scan(fb_ges *s, enum fb_ges_phase phase, fb_error *err)
{
	s->scan = phase;
	if (s->threads > 1)
		ges_deal(s);
	fb_threads_run(ges_scan_thread, s->sc, sizeof *s->sc, s->threads);
	s->best.found = false;
	s->operators = 0;
	for (size_t t = 0; t < s->threads; t++) {
		const ges_op *b = &s->sc[t].best;

		if (s->sc[t].status != FB_OK) {
			*err = s->sc[t].err;
			return FB_ERR;
		}
		s->operators += s->sc[t].operators;
		if (!b->found || !ges_beats(&s->best, b->gain, b->pos))
			continue;
		s->best = (ges_op){ true, b->x, b->y, b->pos, s->best.set, b->nset, b->gain };
		memcpy(s->best.set, b->set, b->nset * sizeof *b->set);
	}
	return FB_OK;
}

/* Under knowledge, orient the CPDAG as Tetrad's FGES does: the undirected edges one of
 * whose directions is forbidden the other way, the required arcs set, then Meek's rules
 * R1-R4 (the graph then honours the knowledge; fb_honour_graph breaks what orientations
 * that contradict the data's would leave inconsistent). */
static void ges_orient_known(fb_ges *s)
{
	if (s->k == NULL)
		return;
	fb_honour_graph(s->k, s->g, true);
	fb_cpdag_meek(s->g, true);
}

/* Apply the best operator of the phase, then replace the PDAG by its CPDAG. */
static int ges_apply(fb_ges *s, enum fb_ges_phase phase, fb_error *err)
{
	const ges_op *op = &s->best;
	fb_graph *dag, *cpdag;

	if (phase == FB_GES_FORWARD) {
		fb_graph_set_directed(s->g, op->x, op->y, 1.0);
		for (size_t a = 0; a < op->nset; a++)
			fb_graph_set_directed(s->g, op->set[a], op->y, 1.0);
	} else {
		fb_graph_remove(s->g, op->x, op->y);
		for (size_t a = 0; a < op->nset; a++) {
			fb_graph_set_directed(s->g, op->y, op->set[a], 1.0);
			if (fb_graph_adjacent(s->g, op->x, op->set[a]))
				fb_graph_set_directed(s->g, op->x, op->set[a], 1.0);
		}
	}
	dag = fb_cpdag_to_dag(s->g, NULL);
	cpdag = fb_cpdag_from_dag(dag, err);
	fb_graph_free(dag);
	if (cpdag == NULL)
		return FB_ERR;
	fb_graph_free(s->g);
	s->g = cpdag;
	s->score += op->gain;
	ges_orient_known(s);
	return FB_OK;
}

/* Try the phase: apply its best operator when it gains; *applied says whether it did. */
static int ges_try(fb_ges *s, enum fb_ges_phase phase, bool *applied, fb_error *err)
{
	*applied = false;
	if (ges_scan(s, phase, err) != FB_OK)
		return FB_ERR;
	if (!s->best.found || !(s->best.gain > 0.0))
		return FB_OK;
	*applied = true;
	return ges_apply(s, phase, err);
}

/* One operator. */
int fb_ges_step(fb_ges *g, fb_ges_round *r, fb_error *err)
{
	bool applied = false;

	memset(r, 0, sizeof *r);
	if (g->phase == FB_GES_FORWARD) {
		if (ges_try(g, FB_GES_FORWARD, &applied, err) != FB_OK)
			return FB_ERR;
		r->operators = g->operators;
		if (!applied)
			g->phase = FB_GES_BACKWARD;
	}
	if (!applied && g->phase == FB_GES_BACKWARD) {
		if (ges_try(g, FB_GES_BACKWARD, &applied, err) != FB_OK)
			return FB_ERR;
		r->operators += g->operators;
		if (!applied)
			g->phase = FB_GES_DONE;
	}
	r->phase = applied ? g->phase : FB_GES_DONE;
	if (applied) {
		r->x = g->best.x;
		r->y = g->best.y;
		r->nset = g->best.nset;
		r->gain = g->best.gain;
	}
	r->score = g->score;
	r->edges = fb_graph_n_edges(g->g);
	return FB_OK;
}

/* The empty graph's score: every node without parents. */
static int ges_init_score(fb_ges *s, fb_error *err)
{
	s->score = 0.0;
	for (size_t i = 0; i < s->d; i++) {
		double v;

		if (fb_lscore_get(s->ls, i, NULL, 0, &v, err) != FB_OK)
			return FB_ERR;
		s->score += v;
	}
	return FB_OK;
}

/* The score of the current PDAG: the sum of the local scores of a DAG extension of it. */
static int ges_rescore(fb_ges *s, fb_error *err)
{
	fb_graph *dag = fb_cpdag_to_dag(s->g, NULL);
	int ret = FB_OK;

	s->score = 0.0;
	for (size_t y = 0; y < s->d && ret == FB_OK; y++) {
		size_t np = fb_graph_parents(dag, y, s->pa);
		double v;

		ret = fb_lscore_get(s->ls, y, s->pa, np, &v, err);
		s->score += v;
	}
	fb_graph_free(dag);
	return ret;
}

/* Search under knowledge k: the required arcs start the graph (see ges.h). */
int fb_ges_set_knowledge(fb_ges *g, const fb_knowledge *k, fb_error *err)
{
	if (fb_knowledge_is_empty(k))
		return FB_OK;
	g->k = k;
	ges_orient_known(g);
	return ges_rescore(g, err);
}

/* The local score for the data under o; FB_ERR naming what does not fit. */
static int ges_pick_score(const fb_dataset *ds, const fb_ges_options *o,
                          fb_lscore_options *lo, fb_error *err)
{
	size_t disc = fb_dataset_n_discrete(ds);

	if (o->score == FB_GES_SCORE_BDEU && disc != ds->d)
		return fb_fail(err, "'score=bdeu' needs discrete variables (the data has %zu "
		                    "continuous)", ds->d - disc);
	if (o->score == FB_GES_SCORE_AUTO)
		lo->kind = disc == 0 ? FB_LSCORE_BIC : disc == ds->d ? FB_LSCORE_BDEU : FB_LSCORE_DG;
	else
		lo->kind = o->score == FB_GES_SCORE_BDEU ? FB_LSCORE_BDEU
		           : o->score == FB_GES_SCORE_DG ? FB_LSCORE_DG
		                                         : FB_LSCORE_BIC;
	lo->lambda = o->lambda;
	lo->ess = o->ess;
	lo->structure_prior = o->structure_prior;
	return FB_OK;
}

/* Thread t's scratch for a search over d variables; FB_ERR when out of memory. */
static int ges_scratch_init(fb_ges *s, ges_scratch *c, fb_error *err)
{
	size_t d = s->d;

	c->s = s;
	c->nb = fb_xcalloc(d + 1, sizeof *c->nb);
	c->pa = fb_xcalloc(d + 1, sizeof *c->pa);
	c->na = fb_xcalloc(d + 1, sizeof *c->na);
	c->t0 = fb_xcalloc(d + 1, sizeof *c->t0);
	c->idx = fb_xcalloc(d + 1, sizeof *c->idx);
	c->sub = fb_xcalloc(d + 1, sizeof *c->sub);
	c->list = fb_xcalloc(d + 1, sizeof *c->list);
	c->queue = fb_xcalloc(d + 1, sizeof *c->queue);
	c->mark = fb_xcalloc(d + 1, sizeof *c->mark);
	c->seen = fb_xcalloc(d + 1, sizeof *c->seen);
	c->best.set = fb_xcalloc(d + 1, sizeof *c->best.set);
	c->w = fb_lscore_work_alloc(s->ls, err);
	return c->w != NULL ? FB_OK : FB_ERR;
}

/* Free a thread's scratch. */
static void ges_scratch_release(ges_scratch *c)
{
	fb_lscore_work_free(c->w);
	free(c->nb);
	free(c->pa);
	free(c->na);
	free(c->t0);
	free(c->idx);
	free(c->sub);
	free(c->list);
	free(c->queue);
	free(c->mark);
	free(c->seen);
	free(c->best.set);
}

/* Start GES on ds. */
fb_ges *fb_ges_alloc(const fb_dataset *ds, const fb_ges_options *o, fb_error *err)
{
	fb_lscore_options lo;
	fb_ges *s;
	size_t d = ds->d;

	if (ges_pick_score(ds, o, &lo, err) != FB_OK)
		return NULL;
	s = fb_xcalloc(1, sizeof *s);
	s->d = d;
	s->phase = FB_GES_FORWARD;
	s->ls = fb_lscore_alloc(ds, &lo, err);
	s->g = fb_graph_alloc(d);
	if (s->ls == NULL || s->g == NULL) {
		if (s->g == NULL)
			fb_fail(err, "too many variables (%zu) for a graph", d);
		fb_ges_free(s);
		return NULL;
	}
	for (size_t j = 0; j < d; j++)
		fb_graph_set_name(s->g, j, ds->vars[j].name, NULL);
	s->pa = fb_xcalloc(d + 1, sizeof *s->pa);
	s->best.set = fb_xcalloc(d + 1, sizeof *s->best.set);
	s->threads = o->threads > 1 ? (o->threads < d ? o->threads : (d > 0 ? d : 1)) : 1;
	s->sc = fb_xcalloc(s->threads, sizeof *s->sc);
	if (s->threads > 1) {
		s->cost = fb_xcalloc(d, sizeof *s->cost);
		s->owner = fb_xcalloc(d, sizeof *s->owner);
		s->load = fb_xcalloc(s->threads, sizeof *s->load);
	}
	for (size_t t = 0; t < s->threads; t++)
		if (ges_scratch_init(s, &s->sc[t], err) != FB_OK) {
			fb_ges_free(s);
			return NULL;
		}
	if (ges_init_score(s, err) != FB_OK) {
		fb_ges_free(s);
		return NULL;
	}
	return s;
}

/* Free a search. */
void fb_ges_free(fb_ges *g)
{
	if (g == NULL)
		return;
	for (size_t t = 0; g->sc != NULL && t < g->threads; t++)
		ges_scratch_release(&g->sc[t]);
	free(g->sc);
	free(g->cost);
	free(g->owner);
	free(g->load);
	fb_lscore_free(g->ls);
	fb_graph_free(g->g);
	free(g->pa);
	free(g->best.set);
	free(g);
}

/* Whether finished. */
bool fb_ges_done(const fb_ges *g)
{
	return g->phase == FB_GES_DONE;
}

/* The current CPDAG. */
const fb_graph *fb_ges_graph(const fb_ges *g)
{
	return g->g;
}

/* The current score. */
double fb_ges_score(const fb_ges *g)
{
	return g->score;
}

/* Local scores computed so far. */
size_t fb_ges_scores_computed(const fb_ges *g)
{
	return fb_lscore_computed(g->ls);
}

/* Whether Insert(x, y, T) is valid on g. */
bool fb_ges_insert_valid(const fb_graph *g, size_t x, size_t y, const size_t *t, size_t nt)
{
	size_t d = g->d, *list = fb_xcalloc(d + nt + 1, sizeof *list), *queue;
	bool *blocked = fb_xcalloc(d + 1, sizeof *blocked), *seen, ok;
	size_t n = ges_na(g, x, y, list);

	memcpy(list + n, t, nt * sizeof *t);
	for (size_t a = 0; a < n + nt; a++)
		blocked[list[a]] = true;
	seen = fb_xcalloc(d + 1, sizeof *seen);
	queue = fb_xcalloc(d + 1, sizeof *queue);
	ok = ges_clique(g, list, n + nt) && !ges_semi_path(g, blocked, y, x, seen, queue);
	free(list);
	free(blocked);
	free(seen);
	free(queue);
	return ok;
}

/* Whether Delete(x, y, H) is valid on g. */
bool fb_ges_delete_valid(const fb_graph *g, size_t x, size_t y, const size_t *h, size_t nh)
{
	size_t *na = fb_xcalloc(g->d + 1, sizeof *na), n = ges_na(g, x, y, na), k = 0;
	bool ok;

	for (size_t a = 0; a < n; a++) {
		bool in_h = false;

		for (size_t b = 0; b < nh; b++)
			in_h = in_h || h[b] == na[a];
		if (!in_h)
			na[k++] = na[a];
	}
	ok = ges_clique(g, na, k);
	free(na);
	return ok;
}
