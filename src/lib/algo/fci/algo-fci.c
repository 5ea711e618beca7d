/* fci: FCI on one dataset as a stepper; one step = one skeleton level, then the
 * possible-d-sep stage, then the orientation into a PAG. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/fci.h"
#include "../pc/pc-params.h"
#include "fci-int.h"

/* The names of compat='s values. */
static const fb_choice fci_compats[] = {
	{ "none", FB_PC_COMPAT_NONE }, { "causal-learn", FB_PC_COMPAT_CAUSAL_LEARN }, { 0 },
};

/* Read FCI's parameters into options. */
void fb_fci_options_from_params(const fb_params *p, fb_fci_options *o)
{
	memset(o, 0, sizeof *o);
	fb_ci_options_init(&o->pc.ci);
	o->pc.alpha = fb_params_double(p, "alpha");
	o->pc.depth = (long)fb_params_int(p, "depth");
	o->pc.stable = true;
	o->pc.compat = fb_params_find(p, "compat") >= 0
	                       ? (enum fb_pc_compat)fb_params_choice(p, "compat")
	                       : FB_PC_COMPAT_NONE;
	o->pc.colliders = FB_PC_COLLIDERS_STRENGTH;
	o->pc.ci.test = (enum fb_ci_test)fb_params_choice(p, "test");
	o->pc.ci.df = (enum fb_ci_df)fb_params_choice(p, "df");
	o->pc.ci.small = (enum fb_ci_small)fb_params_choice(p, "small");
	o->pc.ci.zero_df = (enum fb_ci_zero_df)fb_params_choice(p, "zero_df");
	o->pc.threads = 1;
}

/* Start FCI on the run's dataset with the run's knowledge. */
static int fci_create(fb_run *run, fb_error *err)
{
	fb_fci_options o;

	fb_fci_options_from_params(&run->params, &o);
	o.pc.threads = run->fedopt.threads > 0 ? run->fedopt.threads : 1;
	run->state = fb_fci_alloc(run->data, &o, fb_run_knowledge(run), err);
	return run->state != NULL ? FB_OK : FB_ERR;
}

/* Say what a step did. */
static void fci_say(fb_run *run, const fb_fci_round *r)
{
	const fb_pag *p = fb_fci_pag(run->state);
	size_t bi = fb_pag_n_bidirected(p), circ = fb_pag_n_circles(p);

	if (r->stage == FB_FCI_SKELETON)
		fb_run_say(run, "tested the pairs still joined given %zu other variable%s: %zu "
		           "test%s removed %zu edge%s, %zu remain", r->level, r->level == 1 ? "" : "s",
		           r->tests, r->tests == 1 ? "" : "s", r->removed, r->removed == 1 ? "" : "s",
		           r->edges);
	else if (r->stage == FB_FCI_PDSEP)
		fb_run_say(run, "tested the edges against their possible-d-sep sets (variables "
		           "that may separate them through hidden causes): %zu test%s removed %zu "
		           "edge%s, %zu remain", r->tests, r->tests == 1 ? "" : "s", r->removed,
		           r->removed == 1 ? "" : "s", r->edges);
	else
		fb_run_say(run, "oriented the PAG: %zu edge%s, %zu bidirected (X <-> Y: a hidden "
		           "common cause), %zu with a circle (o: not known)", r->edges,
		           r->edges == 1 ? "" : "s", bi, circ);
}

/* One stage step. */
static int fci_step(fb_run *run, double *fig, fb_error *err)
{
	fb_fci_round r;
	const fb_pag *p;

	if (fb_fci_step(run->state, &r, err) != FB_OK)
		return FB_ERR;
	p = fb_fci_pag(run->state);
	fig[0] = (double)r.stage;
	fig[1] = r.stage == FB_FCI_SKELETON ? (double)r.level : -1.0;
	fig[2] = (double)r.tests;
	fig[3] = (double)r.removed;
	fig[4] = (double)r.edges;
	fig[5] = (double)fb_pag_n_bidirected(p);
	fig[6] = (double)fb_pag_n_circles(p);
	fci_say(run, &r);
	return FB_OK;
}

/* Finished once oriented. */
static bool fci_done(const fb_run *run)
{
	return fb_fci_done(run->state);
}

/* The PAG as a plain graph. */
static fb_graph *fci_result(const fb_run *run, fb_error *err)
{
	return fb_pag_to_graph(fb_fci_pag(run->state));
}

/* The PAG. */
static fb_pag *fci_pag(const fb_run *run, fb_error *err)
{
	return fb_pag_copy(fb_fci_pag(run->state));
}

/* Free the state. */
static void fci_destroy(fb_run *run)
{
	fb_fci_free(run->state);
	run->state = NULL;
}

/* What the result is (fci's and fedfci's). */
const char *fci_note(const fb_run *run)
{
	return "the result is a PAG; as a plain graph it keeps the PAG's X -> Y edges and draws "
	       "every other edge (o-o, o->, <->) undirected";
}

/* FCI's parameters. */
static const fb_param_def fci_params[] = {
	FCI_PARAMS_TEST,
	{ "compat", FB_PARAM_CHOICE, "none", 0, 0, fci_compats,
	  "mirror causal-learn's fci(data, test, alpha) exactly, mark by mark" },
	{ 0 },
};

/* The defaults, read from the table. */
void fb_fci_options_init(fb_fci_options *o)
{
	fb_params p = fb_params_defaults(fci_params);

	fb_fci_options_from_params(&p, o);
	fb_params_release(&p);
}

/* FCI's per-round figures. */
static const char *const fci_figures[] = { "stage", "level", "tests", "removed", "edges",
	                                   "bidirected", "circles", NULL };

/* The names of the stages. */
static const fb_figure_level fci_levels[] = {
	{ "stage", FB_FCI_SKELETON, "skeleton" }, { "stage", FB_FCI_PDSEP, "possible-d-sep" },
	{ "stage", FB_FCI_ORIENT, "orient" }, { NULL, 0, NULL },
};

/* FCI's options, read from the parameters. */
FB_ALGO_OPTIONS(fci_options, fb_fci_options, fb_fci_options_init, fb_fci_options_from_params);

const fb_algo fb_algo_fci = {
	.name = "fci", .summary = "FCI: causal structure when some causes may be hidden (a PAG)",
	.intro = "Like PC, finds a causal graph by testing which variables are independent, but "
	         "does not assume every common cause was measured. Its answer, a PAG, marks each "
	         "end of each edge: an arrowhead (>) means 'does not cause the other end', a tail "
	         "(-) means 'causes it', and a circle (o) means 'not known'. X <-> Y says a hidden "
	         "common cause joins X and Y; X o-> Y says Y does not cause X, and X may cause Y "
	         "or share a hidden cause with it.",
	.help = "FCI (Spirtes, Meek and Richardson; Zhang 2008's complete rules R1-R10): PC's "
	        "stable skeleton (tests, alpha=, depth= as pc; alpha 0.05 by default as in "
	        "causal-learn), then every edge o-o and the unshielded colliders oriented, then "
	        "edges removed whose ends a subset of a possible-d-sep set separates, then the "
	        "colliders again and R1-R10 until none applies. How to read a PAG: at each end "
	        "of an edge, > is an arrowhead (that end is not a cause of the other), - a tail "
	        "(it is a cause), o a circle (not known: the data allow both). So X -> Y: X "
	        "causes Y; X <-> Y: neither causes the other, a hidden common cause; X o-> Y: Y "
	        "does not cause X; X o-o Y: nothing known. One round is one skeleton level, then "
	        "one the possible-d-sep stage, then one the orientation (figure stage). The "
	        "result as a plain graph keeps X -> Y and draws the other edges undirected. "
	        "compat=causal-learn reproduces causal-learn's fci(data, test, alpha) mark by "
	        "mark. Background knowledge (knowledge) is honoured as causal-learn's "
	        "background_knowledge is.",
	.flags = FB_ALGO_LOCAL,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = fci_params, .figures = fci_figures, .levels = fci_levels,
	.create = fci_create, .step = fci_step, .done = fci_done, .result = fci_result,
	.pag = fci_pag,
	.destroy = fci_destroy, .note = fci_note,
	.options = &fci_options,
};
