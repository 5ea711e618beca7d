/* Accuracy of an estimated graph against a true DAG: NOTEARS' count_accuracy counts and
 * rates, gCastle's precision, recall, F1 and gscore (ALGORITHMS.md §9). */
#include "config.h"

#include <string.h>

#include "fedbn/metrics.h"

/* Check that est and truth can be compared; FB_ERR with the reason otherwise. */
static int metrics_check(const fb_graph *est, const fb_graph *truth, fb_error *err)
{
	size_t i, j;

	if (est->d != truth->d)
		return fb_fail(err, "estimate and truth have different variables: "
		               "%zu against %zu nodes", est->d, truth->d);
	for (i = 0; i < est->d; i++)
		if (strcmp(est->names[i], truth->names[i]) != 0)
			return fb_fail(err, "estimate and truth have different variables: "
			               "node %zu is '%s' in the estimate and '%s' in the truth",
			               i + 1, est->names[i], truth->names[i]);
	for (i = 0; i < truth->d; i++)
		for (j = i + 1; j < truth->d; j++)
			if (fb_graph_edge(truth, i, j) == FB_EDGE_UNDIRECTED)
				return fb_fail(err, "the truth must be directed: '%s' - '%s' is "
				               "undirected", truth->names[i], truth->names[j]);
	return FB_OK;
}

/* Add the pair {i, j} (i < j) to the counts of m. */
static void metrics_count_pair(const fb_graph *est, const fb_graph *truth, size_t i, size_t j,
                               fb_metrics *m)
{
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

/* Fill the rates of m from its counts; d nodes, entries = predicted matrix entries. */
static void metrics_rates(fb_metrics *m, size_t d, size_t entries)
{
	double e = (double)m->true_edges;
	double wrong = (double)(m->reversed + m->extra);
	double negatives = 0.5 * (double)d * ((double)d - 1.0) - e;
	double false_entries = (double)entries - (double)m->tp;
	double gain = (double)m->tp - false_entries;

	m->shd = m->extra + m->missing + m->reversed;
	m->tpr = metrics_ratio((double)m->tp, e);
	m->fdr = metrics_ratio(wrong, (double)m->nnz);
	m->fpr = metrics_ratio(wrong, negatives);
	m->precision = metrics_ratio((double)m->tp, (double)entries);
	m->recall = m->tpr;
	if (m->precision + m->recall > 0.0)
		m->f1 = 2.0 * m->precision * m->recall / (m->precision + m->recall);
	else
		m->f1 = 0.0;
	m->gscore = metrics_ratio(gain > 0.0 ? gain : 0.0, e);
}

/* Compare est with truth. */
int fb_metrics_compute(const fb_graph *est, const fb_graph *truth, fb_metrics *m,
                       fb_error *err)
{
	fb_metrics r;
	size_t i, j;

	if (metrics_check(est, truth, err) != FB_OK)
		return FB_ERR;
	memset(&r, 0, sizeof r);
	for (i = 0; i < est->d; i++)
		for (j = i + 1; j < est->d; j++)
			metrics_count_pair(est, truth, i, j, &r);
	metrics_rates(&r, est->d, fb_graph_n_directed(est) + 2 * fb_graph_n_undirected(est));
	r.cyclic = !fb_graph_is_acyclic(est);
	*m = r;
	return FB_OK;
}
