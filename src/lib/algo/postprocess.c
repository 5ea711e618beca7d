/* From a weight matrix to a graph: thresholding, and "threshold till DAG" (ALGORITHMS.md
 * §4.3): after thresholding, delete the remaining edge of smallest |w| while a cycle is left.
 *
 * Deleting edges never creates a cycle, so "the first k smallest edges deleted leave a DAG"
 * is monotone in k; the smallest such k is found by bisection with one O(d^2) acyclicity test
 * per probe, which gives the same graph as deleting edges one at a time. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "fedbn/honour.h"
#include "fedbn/notears.h"

/* One candidate edge. */
typedef struct pp_edge {
	size_t i;   /* parent (row) */
	size_t j;   /* child (column) */
	double a;   /* |w| */
} pp_edge;

/* Order edges by |w| ascending; ties: the later row-major entry first. */
static int pp_edge_cmp(const void *pa, const void *pb)
{
	const pp_edge *a = pa, *b = pb;
	size_t ka = a->i, kb = b->i;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return a->j > b->j ? -1 : (a->j < b->j);
}

/* Check W and the threshold; FB_ERR naming the one at fault. */
static int pp_check(const gsl_matrix *W, double threshold, fb_error *err)
{
	size_t i, j;

	if (W == NULL || W->size1 != W->size2)
		return fb_fail(err, "weights: W must be a square matrix");
	if (!(threshold >= 0.0) || !isfinite(threshold))
		return fb_fail(err, "weights: the threshold must be finite and >= 0");
	for (i = 0; i < W->size1; i++)
		for (j = 0; j < W->size2; j++)
			if (!isfinite(gsl_matrix_get(W, i, j)))
				return fb_fail(err, "weights: W[%zu][%zu] is not finite", i, j);
	return FB_OK;
}

/* A graph on d nodes with the given names (NULL: X1..Xd); NULL with err on a bad name. */
static fb_graph *pp_graph_alloc(size_t d, char *const *names, fb_error *err)
{
	fb_graph *g = fb_graph_alloc(d);
	size_t i;

	if (g == NULL) {
		fb_fail(err, "weights: too many nodes (%zu)", d);
		return NULL;
	}
	g->weighted = true;
	for (i = 0; names != NULL && i < d; i++)
		if (fb_graph_set_name(g, i, names[i], err) != FB_OK) {
			fb_graph_free(g);
			return NULL;
		}
	return g;
}

/* True when the edges e[from..m) form an acyclic graph on d nodes (Kahn's algorithm);
 * indeg and queue are scratch for d entries, adj for d*d. */
static bool pp_acyclic(const pp_edge *e, size_t from, size_t m, size_t d, unsigned char *adj,
                       size_t *indeg, size_t *queue)
{
	size_t k, head = 0, tail = 0, seen = 0, v;

	for (k = 0; k < d * d; k++)
		adj[k] = 0;
	for (k = 0; k < d; k++)
		indeg[k] = 0;
	for (k = from; k < m; k++) {
		adj[e[k].i * d + e[k].j] = 1;
		indeg[e[k].j]++;
	}
	for (k = 0; k < d; k++)
		if (indeg[k] == 0)
			queue[tail++] = k;
	while (head < tail) {
		v = queue[head++];
		seen++;
		for (k = 0; k < d; k++)
			if (adj[v * d + k] && --indeg[k] == 0)
				queue[tail++] = k;
	}
	return seen == d;
}

/* Whether entry (i, j) of |w| a is a candidate edge under k (NULL: none): above the
 * threshold and not forbidden, or required (then *a becomes +inf, so that it sorts last and
 * is never deleted). */
static bool pp_keep(const fb_knowledge *k, size_t i, size_t j, double *a, double threshold)
{
	if (k == NULL)
		return *a > threshold;
	if (fb_knowledge_requires(k, i, j)) {
		*a = HUGE_VAL;
		return true;
	}
	return *a > threshold && !fb_knowledge_forbids(k, i, j);
}

/* The off-diagonal entries with |w| > threshold (under k, NULL when empty: see pp_keep),
 * sorted by pp_edge_cmp, into *out (caller frees); their count in *m; *loops tells whether
 * a diagonal entry passed.  FB_ERR on OOM. */
static int pp_collect(const gsl_matrix *W, double threshold, const fb_knowledge *kn,
                      pp_edge **out, size_t *m, bool *loops, fb_error *err)
{
	size_t d = W->size1, i, j, k = 0;
	pp_edge *e = malloc((d * d > 0 ? d * d : 1) * sizeof *e);

	if (e == NULL)
		return fb_fail(err, "weights: out of memory for d = %zu", d);
	*loops = false;
	for (i = 0; i < d; i++)
		for (j = 0; j < d; j++) {
			double a = fabs(gsl_matrix_get(W, i, j));

			if (i == j) {
				*loops = *loops || a > threshold;
				continue;
			}
			if (!pp_keep(kn, i, j, &a, threshold))
				continue;
			e[k].i = i;
			e[k].j = j;
			e[k].a = a;
			k++;
		}
	qsort(e, k, sizeof *e, pp_edge_cmp);
	*out = e;
	*m = k;
	return FB_OK;
}

/* The fewest smallest edges of e[0..m) to delete for acyclicity (bisection); SIZE_MAX on
 * out-of-memory. */
static size_t pp_prune_count(const pp_edge *e, size_t m, size_t d)
{
	unsigned char *adj = malloc(d * d > 0 ? d * d : 1);
	size_t *indeg = malloc((d > 0 ? d : 1) * sizeof *indeg);
	size_t *queue = malloc((d > 0 ? d : 1) * sizeof *queue);
	size_t lo = 0, hi = m, mid;

	if (adj == NULL || indeg == NULL || queue == NULL) {
		lo = (size_t)-1;
		goto out;
	}
	/* invariant: deleting hi edges leaves a DAG (hi = m deletes them all) */
	if (pp_acyclic(e, 0, m, d, adj, indeg, queue))
		goto out;
	lo = 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pp_acyclic(e, mid, m, d, adj, indeg, queue))
			hi = mid;
		else
			lo = mid + 1;
	}
out:
	free(adj);
	free(indeg);
	free(queue);
	return lo;
}

/* Threshold, then delete the smallest remaining edges until the graph is a DAG. */
fb_graph *fb_weights_to_dag(const gsl_matrix *W, double threshold, char *const *names,
                            bool *pruned, fb_error *err)
{
	return fb_honour_weights_dag(W, threshold, names, NULL, pruned, err);
}

/* Threshold under k, then delete the smallest edges not required until the graph is a DAG. */
fb_graph *fb_honour_weights_dag(const gsl_matrix *W, double threshold, char *const *names,
                                const fb_knowledge *kn, bool *pruned, fb_error *err)
{
	pp_edge *e = NULL;
	size_t m = 0, cut, k;
	bool loops = false;
	fb_graph *g;

	if (pp_check(W, threshold, err) != FB_OK ||
	    pp_collect(W, threshold, fb_knowledge_is_empty(kn) ? NULL : kn, &e, &m, &loops,
	               err) != FB_OK)
		return NULL;
	cut = pp_prune_count(e, m, W->size1);
	if (cut == (size_t)-1) {
		free(e);
		fb_fail(err, "weights: out of memory for d = %zu", W->size1);
		return NULL;
	}
	g = pp_graph_alloc(W->size1, names, err);
	for (k = cut; g != NULL && k < m; k++)
		fb_graph_set_directed(g, e[k].i, e[k].j, gsl_matrix_get(W, e[k].i, e[k].j));
	if (pruned != NULL)
		*pruned = loops || cut > 0;
	free(e);
	return g;
}

/* Threshold only: the result may be cyclic; of two opposite arcs the larger |w| is kept. */
fb_graph *fb_weights_to_graph(const gsl_matrix *W, double threshold, char *const *names,
                              fb_error *err)
{
	size_t d, i, j;
	fb_graph *g;

	if (pp_check(W, threshold, err) != FB_OK)
		return NULL;
	d = W->size1;
	g = pp_graph_alloc(d, names, err);
	if (g == NULL)
		return NULL;
	for (i = 0; i < d; i++)
		for (j = i + 1; j < d; j++) {
			double wij = gsl_matrix_get(W, i, j), wji = gsl_matrix_get(W, j, i);

			if (fabs(wij) > threshold && fabs(wij) >= fabs(wji))
				fb_graph_set_directed(g, i, j, wij);
			else if (fabs(wji) > threshold)
				fb_graph_set_directed(g, j, i, wji);
		}
	return g;
}

/* The forbidden arc i -> j that thresholding kept is dropped; the reverse takes its place
 * when it passed the threshold and is allowed (the larger |w| had hidden it). */
static void pp_replace_forbidden(fb_graph *g, const gsl_matrix *W, double threshold,
                                 const fb_knowledge *k, size_t i, size_t j)
{
	double wji = gsl_matrix_get(W, j, i);

	fb_graph_remove(g, i, j);
	if (fabs(wji) > threshold && !fb_knowledge_forbids(k, j, i))
		fb_graph_set_directed(g, j, i, wji);
}

/* Threshold under k: forbidden entries are no edge, required ones an edge whatever |w|. */
fb_graph *fb_honour_weights_graph(const gsl_matrix *W, double threshold, char *const *names,
                                  const fb_knowledge *k, fb_error *err)
{
	fb_graph *g = fb_weights_to_graph(W, threshold, names, err);
	size_t d = W->size1;

	if (g == NULL || fb_knowledge_is_empty(k))
		return g;
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			if (fb_knowledge_requires(k, i, j))
				fb_graph_set_directed(g, i, j, gsl_matrix_get(W, i, j));
			else if (fb_knowledge_forbids(k, i, j) && fb_graph_has_arc(g, i, j))
				pp_replace_forbidden(g, W, threshold, k, i, j);
	return g;
}

/* The weight g gives i -> j (1 when unweighted or zero). */
static double pp_weight(const fb_graph *g, size_t i, size_t j)
{
	double w = g->w[i * g->d + j];

	return g->weighted && w != 0.0 ? w : 1.0;
}

/* Make the pair {i, j} of g honour k; whether it changed. */
static bool pp_honour_pair(const fb_knowledge *k, fb_graph *g, size_t i, size_t j)
{
	enum fb_edge e = fb_graph_edge(g, i, j);
	bool fij = fb_knowledge_forbids(k, i, j), fji = fb_knowledge_forbids(k, j, i);

	if (fb_knowledge_requires(k, i, j) || fb_knowledge_requires(k, j, i)) {
		size_t a = fb_knowledge_requires(k, i, j) ? i : j, b = a == i ? j : i;

		if (fb_graph_has_arc(g, a, b))
			return false;
		fb_graph_set_directed(g, a, b, pp_weight(g, fb_graph_has_arc(g, b, a) ? b : a,
		                                         fb_graph_has_arc(g, b, a) ? a : b));
		return true;
	}
	if ((e == FB_EDGE_FORWARD && fij) || (e == FB_EDGE_BACKWARD && fji) ||
	    (e == FB_EDGE_UNDIRECTED && fij && fji)) {
		fb_graph_remove(g, i, j);
		return true;
	}
	if (e != FB_EDGE_UNDIRECTED || !(fij || fji))
		return false;
	if (fij)
		fb_graph_set_directed(g, j, i, 1.0);
	else
		fb_graph_set_directed(g, i, j, 1.0);
	return true;
}

/* Delete the arcs of g of smallest |w| that k does not require until its directed part has
 * no cycle (the same bisection as fb_weights_to_dag); how many were deleted. */
static size_t pp_break_cycles(const fb_knowledge *k, fb_graph *g)
{
	size_t d = g->d, m = 0, cut;
	pp_edge *e;

	if (fb_graph_is_acyclic(g))
		return 0;
	e = fb_xmalloc((d * d > 0 ? d * d : 1) * sizeof *e);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			if (fb_graph_has_arc(g, i, j)) {
				e[m].i = i;
				e[m].j = j;
				e[m].a = fb_knowledge_requires(k, i, j) ? HUGE_VAL
				                                          : fabs(pp_weight(g, i, j));
				m++;
			}
	qsort(e, m, sizeof *e, pp_edge_cmp);
	cut = pp_prune_count(e, m, d);
	for (size_t a = 0; a < cut && a < m; a++)
		fb_graph_remove(g, e[a].i, e[a].j);
	free(e);
	return cut;
}

/* Make g honour k in place; how many pairs changed. */
size_t fb_honour_graph(const fb_knowledge *k, fb_graph *g, bool acyclic)
{
	size_t n = 0;

	if (fb_knowledge_is_empty(k) || g == NULL || fb_knowledge_d(k) != g->d)
		return 0;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++)
			n += pp_honour_pair(k, g, i, j);
	if (acyclic)
		n += pp_break_cycles(k, g);
	return n;
}

/* The role of every entry of a d x d weight matrix under k. */
int fb_honour_roles(const fb_knowledge *k, size_t d, unsigned char **roles, fb_error *err)
{
	unsigned char *r;

	*roles = NULL;
	if (fb_knowledge_is_empty(k))
		return FB_OK;
	if (fb_knowledge_d(k) != d)
		return fb_fail(err, "knowledge: it is over %zu variables but the learner has %zu",
		               fb_knowledge_d(k), d);
	r = fb_xcalloc(d * d > 0 ? d * d : 1, sizeof *r);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			r[i * d + j] = fb_knowledge_requires(k, i, j) ? FB_ENTRY_REQUIRED
			               : fb_knowledge_forbids(k, i, j) ? FB_ENTRY_FORBIDDEN
			                                               : FB_ENTRY_FREE;
	*roles = r;
	return FB_OK;
}
