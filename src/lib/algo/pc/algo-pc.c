/* pc: the PC algorithm on one dataset as a stepper; one step = one skeleton level, and the
 * last step orients the skeleton into a CPDAG. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/pc.h"
#include "pc-params.h"

/* The names of test='s values. */
const fb_choice fb_pc_tests[] = {
	{ "auto", FB_CI_AUTO }, { "fisher-z", FB_CI_FISHER_Z }, { "g2", FB_CI_G2 },
	{ "chi2", FB_CI_CHI2 }, { "kci", FB_CI_KCI }, { "dg", FB_CI_DG }, { 0 },
};
/* The names of df='s values. */
const fb_choice fb_pc_dfs[] = {
	{ "adjusted", FB_CI_DF_ADJUSTED }, { "classical", FB_CI_DF_CLASSICAL },
	{ "adaptdf", FB_CI_DF_ADAPT }, { 0 },
};
/* The names of small='s values. */
const fb_choice fb_pc_smalls[] = {
	{ "none", FB_CI_SMALL_NONE }, { "pcalg", FB_CI_SMALL_PCALG },
	{ "fedpc", FB_CI_SMALL_FEDPC }, { 0 },
};
/* The names of zero_df='s values. */
const fb_choice fb_pc_zero_dfs[] = {
	{ "dependent", FB_CI_ZERO_DF_DEPENDENT }, { "independent", FB_CI_ZERO_DF_INDEPENDENT },
	{ 0 },
};
/* The names of colliders='s values. */
const fb_choice fb_pc_colliders[] = {
	{ "strength", FB_PC_COLLIDERS_STRENGTH }, { "order", FB_PC_COLLIDERS_ORDER }, { 0 },
};
/* The names of compat='s values. */
static const fb_choice pc_compats[] = {
	{ "none", FB_PC_COMPAT_NONE }, { "causal-learn", FB_PC_COMPAT_CAUSAL_LEARN }, { 0 },
};

/* Read PC's parameters (by name: pc's table or a table sharing its names) into options;
 * what no parameter sets comes from fb_ci_options_init. */
void fb_pc_options_from_params(const fb_params *p, fb_pc_options *o)
{
	memset(o, 0, sizeof *o);
	fb_ci_options_init(&o->ci);
	o->alpha = fb_params_double(p, "alpha");
	o->depth = (long)fb_params_int(p, "depth");
	o->stable = fb_params_bool(p, "stable");
	o->compat = fb_params_find(p, "compat") >= 0
	                    ? (enum fb_pc_compat)fb_params_choice(p, "compat")
	                    : FB_PC_COMPAT_NONE;
	o->ci.test = (enum fb_ci_test)fb_params_choice(p, "test");
	o->ci.df = (enum fb_ci_df)fb_params_choice(p, "df");
	o->ci.small = (enum fb_ci_small)fb_params_choice(p, "small");
	o->ci.zero_df = (enum fb_ci_zero_df)fb_params_choice(p, "zero_df");
	o->colliders = (enum fb_pc_colliders)fb_params_choice(p, "colliders");
	o->threads = 1;
}

/* Start PC on the run's dataset. */
static int pc_create(fb_run *run, fb_error *err)
{
	fb_pc_options o;

	fb_pc_options_from_params(&run->params, &o);
	o.threads = run->fedopt.threads > 0 ? run->fedopt.threads : 1;
	o.knowledge = fb_run_knowledge(run);
	run->state = fb_pc_alloc(run->data, &o, err);
	return run->state != NULL ? FB_OK : FB_ERR;
}

/* The pairs the run's knowledge forbids both ways (never joined, never tested). */
static size_t pc_forbidden_pairs(const fb_run *run)
{
	const fb_knowledge *k = fb_run_knowledge(run);
	size_t d = fb_knowledge_d(k), n = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			n += fb_knowledge_forbids_pair(k, i, j);
	return n;
}

/* One level, or the orientation. */
static int pc_step(fb_run *run, double *fig, fb_error *err)
{
	fb_pc_round r;
	size_t nf;
	char skipped[96] = "";

	if (fb_pc_step(run->state, &r, err) != FB_OK)
		return FB_ERR;
	fb_pc_release_tests(run->state); /* once oriented: nothing more is tested */
	if (!r.orientation && r.level.level == 0 && (nf = pc_forbidden_pairs(run)) > 0)
		snprintf(skipped, sizeof skipped, " (%zu pair%s forbidden by the knowledge never "
		         "joined, not tested)", nf, nf == 1 ? "" : "s");
	fig[0] = r.orientation ? -1.0 : (double)r.level.level;
	fig[1] = (double)r.level.tests;
	fig[2] = (double)r.level.hits;
	fig[3] = (double)r.level.removed;
	fig[4] = (double)r.level.edges;
	fig[5] = (double)r.colliders;
	fig[6] = (double)r.conflicts;
	if (r.orientation)
		fb_run_say(run, "oriented the skeleton: %zu collider%s (X -> Z <- Y), %zu conflict%s "
		           "skipped, %zu edge%s directed by Meek's rules", r.colliders,
		           r.colliders == 1 ? "" : "s", r.conflicts, r.conflicts == 1 ? "" : "s",
		           r.meek, r.meek == 1 ? "" : "s");
	else
		fb_run_say(run, "tested the pairs still joined given %zu other variable%s: %zu "
		           "test%s removed %zu edge%s, %zu remain%s", r.level.level,
		           r.level.level == 1 ? "" : "s", r.level.tests,
		           r.level.tests == 1 ? "" : "s", r.level.removed,
		           r.level.removed == 1 ? "" : "s", r.level.edges, skipped);
	return FB_OK;
}

/* Finished once oriented. */
static bool pc_done(const fb_run *run)
{
	return fb_pc_done(run->state);
}

/* The skeleton so far, or the CPDAG. */
static fb_graph *pc_result(const fb_run *run, fb_error *err)
{
	return fb_graph_copy(fb_pc_graph(run->state));
}

/* The skeleton so far, or the CPDAG, itself. */
static const fb_graph *pc_graph(const fb_run *run)
{
	return fb_pc_graph(run->state);
}

/* Free the state. */
static void pc_destroy(fb_run *run)
{
	fb_pc_free(run->state);
	run->state = NULL;
}

/* What the result is. */
static const char *pc_note(const fb_run *run)
{
	return "the result is a CPDAG (undirected edges where the data cannot tell the direction; "
	       "SHD counts an undirected estimate over a true edge as correct)";
}

/* PC's parameters (ALGORITHMS.md §6). */
static const fb_param_def pc_params[] = {
	PC_PARAMS_TEST,
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL,
	  "largest conditioning set (-1: no limit)" },
	{ "stable", FB_PARAM_BOOL, "yes", 0, 0, NULL,
	  "PC-stable: adjacencies frozen for a whole level" },
	PC_PARAMS_DISCRETE,
	{ "colliders", FB_PARAM_CHOICE, "strength", 0, 0, fb_pc_colliders,
	  "orient colliders by increasing p of their test, or by index order" },
	{ "compat", FB_PARAM_CHOICE, "none", 0, 0, pc_compats,
	  "mirror causal-learn's pc(stable=True, uc_rule=0, uc_priority=-1) exactly" },
	{ 0 },
};

/* The defaults: pc's parameter table, the one place they are written, read into options. */
void fb_pc_options_init(fb_pc_options *o)
{
	fb_params p = fb_params_defaults(pc_params);

	fb_pc_options_from_params(&p, o);
	fb_params_release(&p);
}

/* PC's per-round figures. */
static const char *const pc_figures[] = { "level", "tests", "hits", "removed", "edges",
	                                  "colliders", "conflicts", NULL };

/* PC's options, read from the parameters (FedPC's clients run PC). */
FB_ALGO_OPTIONS(pc_options, fb_pc_options, fb_pc_options_init, fb_pc_options_from_params);

const fb_algo fb_algo_pc = {
	.name = "pc", .summary = "the PC algorithm on one dataset (conditional independence)",
	.intro = "Finds a causal graph by testing which variables are independent of each "
	         "other. It starts with every pair joined, removes an edge as soon as some of "
	         "the pair's neighbours make the two look independent, then points the edges "
	         "whose direction the data reveals. Edges whose direction the data cannot tell "
	         "stay undirected.",
	.help = "The PC algorithm (Spirtes, Glymour and Scheines), stable by default (Colombo "
	        "and Maathuis): from the complete graph, level l removes every edge whose ends "
	        "are independent given some l neighbours (Fisher-z for continuous data, G2 or "
	        "chi2 for discrete data; p > alpha), keeping the separating set; then "
	        "v-structures are oriented (strongest collider test first; an edge already "
	        "pointing out of the middle wins) and Meek's rules R1-R3 close the CPDAG, never "
	        "closing a directed cycle when conflicting colliders would make one. One round "
	        "is one level (figure level = l); the last round orients (level -1). Every test "
	        "is cached (figure hits). compat=causal-learn reproduces causal-learn's pc with "
	        "stable=True, uc_rule=0, uc_priority=-1. Knowledge: a pair forbidden both ways "
	        "is never joined and none of its skeleton tests runs (level 0 says how many such "
	        "pairs; it counts as separated by the empty set); before the colliders, "
	        "required arcs are joined (even when a test removed the pair) and every edge with "
	        "a forbidden direction is pointed the other way; colliders and Meek's rules never "
	        "reverse them. With compat=causal-learn the knowledge acts as in causal-learn's "
	        "pc(background_knowledge=...), which leaves out a required arc whose pair a test "
	        "removed. As a learner it serves all:, sep:, voting: and best:.",
	.flags = FB_ALGO_LOCAL,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = pc_params, .figures = pc_figures,
	.create = pc_create, .step = pc_step, .done = pc_done, .result = pc_result,
	.graph = pc_graph, .destroy = pc_destroy, .note = pc_note,
	.options = &pc_options,
};
