/* ges: Greedy Equivalence Search on one dataset as a stepper; one step = one operator
 * (an insertion in the forward phase, a deletion in the backward phase). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/ges.h"

/* The names of score='s values. */
static const fb_choice ges_scores[] = {
	{ "auto", FB_GES_SCORE_AUTO }, { "bic", FB_GES_SCORE_BIC }, { "bdeu", FB_GES_SCORE_BDEU },
	{ "dg", FB_GES_SCORE_DG },
	{ 0 },
};

/* Read GES's parameters into options. */
void fb_ges_options_from_params(const fb_params *p, fb_ges_options *o)
{
	memset(o, 0, sizeof *o);
	o->score = (enum fb_ges_score)fb_params_choice(p, "score");
	o->lambda = fb_params_double(p, "lambda");
	o->ess = fb_params_double(p, "ess");
	o->structure_prior = fb_params_double(p, "structure_prior");
}

/* Start GES on the run's dataset. */
static int ges_create(fb_run *run, fb_error *err)
{
	fb_ges_options o;

	fb_ges_options_from_params(&run->params, &o);
	o.threads = run->fedopt.threads;
	run->state = fb_ges_alloc(run->data, &o, err);
	if (run->state == NULL)
		return FB_ERR;
	return fb_ges_set_knowledge(run->state, fb_run_knowledge(run), err);
}

/* The step in words: the edge inserted or deleted and what it gained, or the end. */
static void ges_say(fb_run *run, const fb_ges_round *r)
{
	const char *x = run->data->vars[r->x].name, *y = run->data->vars[r->y].name;

	if (r->phase == FB_GES_DONE)
		fb_run_say(run, "no insertion or deletion among %zu improves the score %.6g: the "
		           "search ends with %zu edges", r->operators, r->score, r->edges);
	else
		fb_run_say(run, "%s the edge %s - %s, the best of %zu operators: the score rose by "
		           "%.4g to %.6g; %zu edges", r->phase == FB_GES_FORWARD ? "inserted"
		                                                                : "deleted", x, y,
		           r->operators, r->gain, r->score, r->edges);
}

/* One operator. */
static int ges_step(fb_run *run, double *fig, fb_error *err)
{
	fb_ges_round r;

	if (fb_ges_step(run->state, &r, err) != FB_OK)
		return FB_ERR;
	fig[0] = (double)r.phase;
	fig[1] = r.score;
	fig[2] = r.gain;
	fig[3] = (double)r.operators;
	fig[4] = (double)fb_ges_scores_computed(run->state);
	ges_say(run, &r);
	return FB_OK;
}

/* Finished when no operator gains. */
static bool ges_done(const fb_run *run)
{
	return fb_ges_done(run->state);
}

/* The current CPDAG. */
static fb_graph *ges_result(const fb_run *run, fb_error *err)
{
	return fb_graph_copy(fb_ges_graph(run->state));
}

/* Free the state. */
static void ges_destroy(fb_run *run)
{
	fb_ges_free(run->state);
	run->state = NULL;
}

/* What the result is. */
static const char *ges_note(const fb_run *run)
{
	return "the result is a CPDAG (undirected edges where the score cannot tell the "
	       "direction; SHD counts an undirected estimate over a true edge as correct)";
}

/* GES's parameters (causal-learn's defaults). */
static const fb_param_def ges_params[] = {
	{ "score", FB_PARAM_CHOICE, "auto", 0, 0, ges_scores,
	  "local score: bic (linear Gaussian), bdeu (discrete), dg (degenerate Gaussian BIC "
	  "for mixed data: discrete variables as indicator columns), auto by the data's kind" },
	{ "lambda", FB_PARAM_DOUBLE, "0.5", 0, 1e6, NULL,
	  "BIC and dg penalty discount: lambda * (parameters) * log n (0.5: Schwarz's BIC)" },
	{ "ess", FB_PARAM_DOUBLE, "1", 1e-9, 1e9, NULL,
	  "BDeu equivalent sample size (sample prior)" },
	{ "structure_prior", FB_PARAM_DOUBLE, "1", 0, 1e9, NULL,
	  "BDeu expected number of parents per node (0: no structure prior)" },
	{ 0 },
};

/* The defaults: ges's parameter table, the one place they are written, read into options. */
void fb_ges_options_init(fb_ges_options *o)
{
	fb_params p = fb_params_defaults(ges_params);

	fb_ges_options_from_params(&p, o);
	fb_params_release(&p);
}

/* GES's per-round figures. */
static const char *const ges_figures[] = { "phase", "score", "gain", "operators", "scores",
	                                   NULL };

/* The phases, as the figure phase gives them. */
static const fb_figure_level ges_levels[] = {
	{ "phase", 1, "insert" }, { "phase", 2, "delete" }, { "phase", 0, "finished" }, { 0 },
};

/* GES's options, read from its parameters. */
FB_ALGO_OPTIONS(ges_options, fb_ges_options, fb_ges_options_init, fb_ges_options_from_params);

const fb_algo fb_algo_ges = {
	.name = "ges", .summary = "Greedy Equivalence Search on one dataset (score-based)",
	.intro = "Finds a causal graph by climbing a score. It starts with no edges, adds the "
	         "one edge that raises the score most, again and again, then removes edges "
	         "while that raises the score. It works on classes of graphs the data cannot "
	         "tell apart, so edges whose direction the data cannot tell stay undirected.",
	.help = "Greedy Equivalence Search (Chickering 2002) over CPDAGs: the forward phase "
	        "applies the Insert(X, Y, T) of largest gain (NA_{Y,X} u T a clique, every "
	        "semi-directed path from Y to X blocked by it), the backward phase the "
	        "Delete(X, Y, H) of largest gain (NA_{Y,X} \\ H a clique); each phase ends when "
	        "no operator gains. Scores: BIC for linear Gaussian data, -n/2 (1 + log "
	        "sigma2) - lambda (|Pa| + 1) log n from the covariance (lambda=0.5), and BDeu "
	        "for discrete data (ess=1, structure_prior=1), both as causal-learn computes "
	        "them; every local score is cached (figure scores). One round is one operator "
	        "(figure phase: 1 insert, 2 delete, 0 finished); operators are tried in index "
	        "order and the first of equal gains wins, as in causal-learn's ges, whose "
	        "results it reproduces. Background knowledge is honoured as Tetrad's FGES honours it: "
	        "required arcs start the graph and are never deleted, an insertion of a "
	        "forbidden arc (or one that would orient a forbidden T -> Y) and a deletion "
	        "that would orient a forbidden arc are skipped, and after each operator the "
	        "undirected edges with a forbidden direction are oriented the other way and "
	        "Meek's rules R1-R4 run. Where FGES differs: when the knowledge's orientations "
	        "and the data's close a directed cycle (knowledge against the data), fedbn "
	        "deletes arcs of the cycle that are not required, the last in index order "
	        "first, so that the result is a PDAG honouring the knowledge. As a learner it serves all:, sep:, voting: and best:.",
	.flags = FB_ALGO_LOCAL,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = ges_params, .figures = ges_figures, .levels = ges_levels,
	.create = ges_create, .step = ges_step, .done = ges_done, .result = ges_result,
	.destroy = ges_destroy, .note = ges_note,
	.options = &ges_options,
};
