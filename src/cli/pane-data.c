/* What the views read from a run: series over rounds, the current estimate, short numbers.
 * Only reading: nothing here changes the run. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/notears.h"
#include "pane-int.h"

/* Room for one more series named name with n values (not a figure: fig -1). */
static pane_series *pane_series_add(pane_series *s, size_t *count, const char *name, size_t n)
{
	pane_series *e = &s[(*count)++];

	e->fig = -1;
	snprintf(e->name, sizeof e->name, "%s", name);
	e->n = n;
	e->v = fb_xcalloc(n > 0 ? n : 1, sizeof *e->v);
	return e;
}

/* Whether figure f repeats a series the pane adds itself (FedPC's edges). */
bool pane_figure_own(const fb_run *run, size_t f)
{
	return f < run->trace.nfig && strcmp(run->figures[f], "edges") == 0;
}

/* Every series the progress view plots. */
size_t pane_series_all(const fb_run *run, size_t upto, pane_series **out)
{
	fb_trace view = run->trace, *t = &view;
	pane_series *s, *e;
	size_t count = 0;
	bool scored = false;

	if (upto < t->n)
		t->n = upto;
	s = fb_xcalloc(t->nfig + 3, sizeof *s);
	for (size_t f = 0; f < t->nfig; f++) {
		if (pane_figure_own(run, f))
			continue;
		e = pane_series_add(s, &count, run->figures[f], t->n);
		e->run = run;
		e->fig = (int)f;
		e->steps = fb_run_figure_categorical(run, f);
		for (size_t i = 0; i < t->n; i++)
			e->v[i] = t->r[i].fig[f];
	}
	for (size_t i = 0; i < t->n; i++)
		scored |= t->r[i].scored;
	if (scored) {
		e = pane_series_add(s, &count, "SHD", t->n);
		for (size_t i = 0; i < t->n; i++)
			e->v[i] = t->r[i].scored ? t->r[i].score.shd : NAN;
	}
	if (!fb_run_is_circuit(run)) { /* a circuit has no graph: no edges */
		e = pane_series_add(s, &count, "edges", t->n);
		for (size_t i = 0; i < t->n; i++)
			e->v[i] = (double)t->r[i].edges;
	}
	if (run->fed != NULL) {
		e = pane_series_add(s, &count, "bytes", t->n);
		for (size_t i = 0; i < t->n; i++)
			e->v[i] = (double)(t->r[i].bytes_up + t->r[i].bytes_down);
	}
	*out = s;
	return count;
}

/* Free n series. */
void pane_series_free(pane_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].v);
	free(s);
}

/* Index of a figure by name. */
int pane_figure_index(const fb_run *run, const char *name)
{
	for (size_t f = 0; f < run->trace.nfig; f++)
		if (strcmp(run->figures[f], name) == 0)
			return (int)f;
	return -1;
}

/* The round limit, when the algorithm itself (not a combinator) has one. */
size_t pane_max_rounds(const fb_run *run)
{
	if (run->inner != NULL || fb_params_find(&run->params, "max_rounds") < 0)
		return 0;
	return (size_t)fb_params_int(&run->params, "max_rounds");
}

/* Free the estimate. */
void pane_graph_release(pane_graph *g)
{
	free(g->w);
	free(g->mark);
	g->w = NULL;
	g->mark = NULL;
	g->round = (size_t)-1;
	g->scored = false;
}

/* The largest |w| off the diagonal into g->wmax (the diagonal is a self-weight, no edge,
 * which the acyclicity penalty drives to zero). */
static void pane_graph_wmax(pane_graph *g)
{
	g->wmax = 0;
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = 0; j < g->d; j++)
			if (i != j && fabs(g->w[i * g->d + j]) > g->wmax)
				g->wmax = fabs(g->w[i * g->d + j]);
}

/* The weights of the run, when its algorithm gives them. */
static void pane_graph_weights(const fb_run *run, pane_graph *g)
{
	fb_error err = { { 0 } };
	size_t dd = g->d * g->d;

	g->w = fb_xcalloc(dd > 0 ? dd : 1, sizeof *g->w);
	if (fb_run_weights(run, g->w, &err) != FB_OK) {
		snprintf(g->why, sizeof g->why, "no weights yet: %s", err.msg);
		free(g->w);
		g->w = NULL;
		return;
	}
	pane_graph_wmax(g);
}

/* The marks of the run's result. */
static void pane_graph_marks(const fb_run *run, pane_graph *g)
{
	fb_error err = { { 0 } };
	fb_graph *est;

	if (fb_run_is_circuit(run)) {
		snprintf(g->why, sizeof g->why, "%s learns a circuit, not a graph: no edges to "
		         "draw here; the detail view shows its clients and circuits", run->name);
		return;
	}
	if ((est = fb_run_result(run, &err)) == NULL) {
		snprintf(g->why, sizeof g->why, "no estimate yet: %s", err.msg);
		return;
	}
	if (est->d != g->d) {
		snprintf(g->why, sizeof g->why, "the estimate has %zu variables, the data %zu", est->d,
		         g->d);
		fb_graph_free(est);
		return;
	}
	g->mark = fb_xmalloc(g->d * g->d > 0 ? g->d * g->d : 1);
	memcpy(g->mark, est->mark, g->d * g->d);
	g->wmax = 1;
	g->scored = run->truth != NULL && fb_score_graph(est, run->truth, &g->score, &err) == FB_OK;
	fb_graph_free(est);
}

/* The estimate an earlier round kept in its record, or why there is none. */
static void pane_graph_kept(const fb_run *run, const fb_trace_rec *rec, pane_graph *g)
{
	fb_error err = { { 0 } };
	size_t dd = g->d * g->d;
	fb_graph *est;

	if (!rec->est_kept) {
		snprintf(g->why, sizeof g->why, "round %zu's estimate is no longer kept: a run keeps "
		         "the newest rounds' estimates and messages within %zu MB", rec->round,
		         run->trace.keep_max >> 20);
		return;
	}
	if (rec->w != NULL) {
		g->w = fb_xmalloc(dd * sizeof *g->w);
		memcpy(g->w, rec->w, dd * sizeof *g->w);
		pane_graph_wmax(g);
		return;
	}
	g->mark = fb_xmalloc(dd > 0 ? dd : 1);
	fb_trace_rec_marks(rec, g->d, g->mark);
	g->wmax = 1;
	if (run->truth == NULL)
		return;
	est = fb_graph_alloc(g->d);
	memcpy(est->mark, g->mark, dd);
	g->scored = fb_score_graph(est, run->truth, &g->score, &err) == FB_OK;
	fb_graph_free(est);
}

/* Bring the estimate up to the round shown: the run's own for the newest, the record's for
 * an earlier one. */
void pane_graph_update(pane *p)
{
	pane_graph *g = &p->g;
	size_t r = pane_upto(p);

	if (g->round == r && g->d == p->run->data->d)
		return;
	pane_graph_release(g);
	g->round = r;
	g->d = p->run->data->d;
	g->wmax = 0;
	g->why[0] = '\0';
	if (r > 0 && r < fb_run_rounds(p->run))
		pane_graph_kept(p->run, pane_rec(p), g);
	else if (fb_run_has_weights(p->run))
		pane_graph_weights(p->run, g);
	else
		pane_graph_marks(p->run, g);
}

/* The round the views show. */
size_t pane_upto(const pane *p)
{
	size_t n = fb_run_rounds(p->run);

	return p->at > 0 && p->at < n ? p->at : n;
}

/* The record of the round the views show. */
const fb_trace_rec *pane_rec(const pane *p)
{
	size_t r = pane_upto(p);

	return r > 0 ? &p->run->trace.r[r - 1] : NULL;
}

/* The score of the weights at the display threshold (threshold only, as drawn). */
static void pane_graph_score_weights(pane *p)
{
	pane_graph *g = &p->g;
	fb_error err = { { 0 } };
	gsl_matrix_const_view W = gsl_matrix_const_view_array(g->w, g->d, g->d);
	char **names = fb_dataset_names(p->run->data);
	fb_graph *est = fb_weights_to_graph(&W.matrix, p->thr, names, &err);

	g->scored = est != NULL && fb_score_graph(est, p->run->truth, &g->score, &err) == FB_OK;
	g->scored_thr = p->thr;
	fb_graph_free(est);
	fb_names_free(names, g->d);
}

/* The drawn estimate's score. */
const fb_score *pane_graph_score(pane *p)
{
	pane_graph *g = &p->g;

	if (p->run->truth == NULL || g->d == 0)
		return NULL;
	if (g->w != NULL && (!g->scored || g->scored_thr != p->thr))
		pane_graph_score_weights(p);
	return g->scored ? &g->score : NULL;
}

/* A figure's value by name or number. */
const char *pane_fmt_fig(const fb_run *run, int f, double v, int width, char *buf, size_t len)
{
	const char *name = f >= 0 ? fb_run_figure_level(run, (size_t)f, v) : NULL;

	if (name == NULL)
		return pane_fmt(v, width, buf, len);
	snprintf(buf, len, "%.*s", width, name);
	return buf;
}

/* Client figure v in at most width characters: "withheld" when dp_epsilon= kept it from the
 * server (NaN then), else as pane_fmt writes it. */
const char *pane_fmt_client(const fb_run *run, double v, int width, char *buf, size_t len)
{
	if (isnan(v) && run->fedopt.dp_epsilon > 0) {
		snprintf(buf, len, "%.*s", width, "withheld");
		return buf;
	}
	return pane_fmt(v, width, buf, len);
}

/* A number in at most width characters. */
const char *pane_fmt(double v, int width, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	for (int prec = 4; prec >= 1; prec--) {
		snprintf(buf, len, "%.*g", prec, v);
		if ((int)strlen(buf) <= width)
			return buf;
	}
	snprintf(buf, len, "%.0e", v);
	return buf;
}

/* Bytes in decimal units, short. */
const char *pane_fmt_bytes(size_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "kB", "MB", "GB", "TB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%zu B", bytes);
	else
		snprintf(buf, len, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}
