/* Accuracy of an estimated graph against a true DAG: NOTEARS' count_accuracy over unordered
 * pairs, the rates that follow from it, and the DAG and CPDAG SHDs (ALGORITHMS.md §9); the
 * definition is stated in metrics.h. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/metrics.h"

/* Check that est and truth can be compared; FB_ERR with the reason otherwise. */
static int metrics_check(const fb_graph *est, const fb_graph *truth, fb_error *err)
{
	size_t i, j, und;

	if (est->d != truth->d)
		return fb_fail(err, "estimate and truth have different variables: "
		               "%zu against %zu nodes", est->d, truth->d);
	for (i = 0; i < est->d; i++)
		if (strcmp(est->names[i], truth->names[i]) != 0)
			return fb_fail(err, "estimate and truth have different variables: "
			               "node %zu is '%s' in the estimate and '%s' in the truth",
			               i + 1, est->names[i], truth->names[i]);
	fb_graph_count_edges(truth, NULL, &und);
	for (i = 0; und > 0 && i < truth->d; i++)
		for (j = i + 1; j < truth->d; j++)
			if (fb_graph_edge(truth, i, j) == FB_EDGE_UNDIRECTED)
				return fb_fail(err, "the truth must be directed: '%s' - '%s' is "
				               "undirected", truth->names[i], truth->names[j]);
	return FB_OK;
}

/* A comparison in progress. */
typedef struct metrics_walk {
	const fb_graph *est, *truth; /* the graphs */
	fb_metrics *m;               /* the counts */
} metrics_walk;

/* Add the pair {i, j} (i < j) to the counts of m. */
static void metrics_count_pair(void *ctx, size_t i, size_t j)
{
	const metrics_walk *w = ctx;
	const fb_graph *est = w->est, *truth = w->truth;
	fb_metrics *m = w->m;
	enum fb_edge e = fb_graph_edge(est, i, j);
	enum fb_edge t = fb_graph_edge(truth, i, j);

	if (t != FB_EDGE_NONE)
		m->true_edges++;
	if (e == FB_EDGE_NONE) {
		if (t != FB_EDGE_NONE)
			m->missing++;
		return;
	}
	m->nnz++;
	if (t == FB_EDGE_NONE)
		m->extra++;
	else if (e == FB_EDGE_UNDIRECTED || e == t)
		m->tp++;
	else
		m->reversed++;
}

/* Divide, with an empty denominator counting as 1 (NOTEARS' max(., 1)). */
static double metrics_ratio(double num, double den)
{
	return num / (den < 1.0 ? 1.0 : den);
}

/* Fill the rates of m from its counts over d nodes. */
static void metrics_rates(fb_metrics *m, size_t d)
{
	double e = (double)m->true_edges;
	double wrong = (double)(m->reversed + m->extra);
	double negatives = 0.5 * (double)d * ((double)d - 1.0) - e;

	m->shd = m->extra + m->missing + m->reversed;
	m->tpr = metrics_ratio((double)m->tp, e);
	m->fdr = metrics_ratio(wrong, (double)m->nnz);
	m->fpr = metrics_ratio(wrong, negatives);
	m->precision = 1.0 - m->fdr; /* tp / nnz: every estimated pair is tp or wrong */
	m->recall = m->tpr;
	if (m->precision + m->recall > 0.0)
		m->f1 = 2.0 * m->precision * m->recall / (m->precision + m->recall);
	else
		m->f1 = 0.0;
}

/* Compare est with truth. */
int fb_metrics_compute(const fb_graph *est, const fb_graph *truth, fb_metrics *m,
                       fb_error *err)
{
	fb_metrics r;
	metrics_walk w = { est, truth, &r };

	if (metrics_check(est, truth, err) != FB_OK)
		return FB_ERR;
	memset(&r, 0, sizeof r);
	/* pairs joined in neither graph count nowhere */
	fb_graph_pairs_joined(est, truth, metrics_count_pair, &w);
	metrics_rates(&r, est->d);
	r.cyclic = !fb_graph_is_acyclic(est);
	*m = r;
	return FB_OK;
}

/* The score of one comparison. */
void fb_score_from_metrics(fb_score *s, const fb_metrics *m)
{
	s->shd = (double)m->shd;
	s->extra = (double)m->extra;
	s->missing = (double)m->missing;
	s->reversed = (double)m->reversed;
	s->tp = (double)m->tp;
	s->nnz = (double)m->nnz;
	s->tpr = m->tpr;
	s->fdr = m->fdr;
	s->precision = m->precision;
	s->recall = m->recall;
	s->f1 = m->f1;
	s->shd_dag = s->shd_cpdag = (double)m->shd;
	s->cyclic = m->cyclic;
}

/* The extension's arcs that the truth has the other way round, counted. */
typedef struct shd_reversed {
	const fb_graph *truth;
	size_t n;
} shd_reversed;

/* Count from -> to when the truth has to -> from. */
static void shd_reversed_arc(void *ctx, size_t from, size_t to)
{
	shd_reversed *r = ctx;

	r->n += fb_graph_edge(r->truth, to, from) == FB_EDGE_FORWARD;
}

/* SHD of est's DAG extension against the truth (est itself when it has no undirected edge),
 * given est's own SHD shd: the extension only directs est's undirected edges, each counted
 * as found over a true edge, so it adds those the truth directs the other way.  Only when
 * the extension falls back is it made as a graph. */
static int score_shd_dag(const fb_graph *est, const fb_graph *truth, size_t shd, double *out,
                         fb_error *err)
{
	shd_reversed r = { truth, 0 };
	fb_graph *dag;
	fb_metrics m;
	int ret;

	if (fb_graph_n_undirected(est) == 0 || fb_cpdag_extension_each(est, shd_reversed_arc, &r)) {
		*out = (double)(shd + r.n);
		return FB_OK;
	}
	dag = fb_cpdag_to_dag(est, NULL);
	ret = fb_metrics_compute(dag, truth, &m, err);
	*out = (double)m.shd;
	fb_graph_free(dag);
	return ret;
}

/* SHD between the CPDAG of est (a DAG) or est itself (a PDAG) and the truth's CPDAG (tc, or
 * made here when NULL). */
static int score_shd_cpdag(const fb_graph *est, const fb_graph *truth, const fb_graph *tc,
                           double *out, fb_error *err)
{
	fb_graph *made = tc == NULL ? fb_cpdag_from_dag(truth, err) : NULL, *ec = NULL;
	size_t shd = 0;
	int ret;

	if (tc == NULL)
		tc = made;
	if (fb_graph_n_undirected(est) == 0)
		ec = fb_cpdag_from_dag(est, err);
	ret = tc != NULL ? fb_cpdag_shd(ec != NULL ? ec : est, tc, &shd, err) : FB_ERR;
	*out = (double)shd;
	fb_graph_free(made);
	fb_graph_free(ec);
	return ret;
}

/* Every figure of est against the truth. */
int fb_score_graph(const fb_graph *est, const fb_graph *truth, fb_score *s, fb_error *err)
{
	return fb_score_graph_with(est, truth, NULL, s, err);
}

/* Every figure of est against the truth, whose CPDAG may be given. */
int fb_score_graph_with(const fb_graph *est, const fb_graph *truth,
                        const fb_graph *truth_cpdag, fb_score *s, fb_error *err)
{
	fb_metrics m;

	if (fb_metrics_compute(est, truth, &m, err) != FB_OK)
		return FB_ERR;
	fb_score_from_metrics(s, &m);
	if (m.cyclic) {
		s->shd_cpdag = NAN;
		return FB_OK;
	}
	if (score_shd_dag(est, truth, m.shd, &s->shd_dag, err) != FB_OK ||
	    score_shd_cpdag(est, truth, truth_cpdag, &s->shd_cpdag, err) != FB_OK)
		return FB_ERR;
	return FB_OK;
}

/* The score in words. */
const char *fb_score_text(const fb_score *s, bool brief, char *buf, size_t len)
{
	const char *cycle = s->cyclic ? " (the estimate has a cycle)" : "";

	if (brief)
		snprintf(buf, len, "SHD %g, TPR %.3f, FDR %.3f, precision %.3f, F1 %.3f%s", s->shd,
		         s->tpr, s->fdr, s->precision, s->f1, cycle);
	else
		snprintf(buf, len, "SHD %g (extra %g, missing %g, reversed %g), TPR %.3f, FDR %.3f, "
		                   "precision %.3f, recall %.3f, F1 %.3f, NNZ %g%s",
		         s->shd, s->extra, s->missing, s->reversed, s->tpr, s->fdr, s->precision,
		         s->recall, s->f1, s->nnz, cycle);
	return buf;
}
