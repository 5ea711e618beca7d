/* PC as a stepper: one skeleton level per step from the complete graph (less the pairs the
 * knowledge forbids), then one step that orients (the knowledge's arcs, fedbn's collider rule
 * and Meek R1-R3, or causal-learn's orientation with its knowledge checks). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/pc.h"

/* A PC run. */
struct fb_pc {
	fb_pc_options opt;  /* settings */
	fb_ci *ci;          /* the tests */
	bool own_ci;        /* ci is freed with the run */
	fb_graph *g;        /* skeleton, then CPDAG */
	fb_sepsets *seps;   /* separating sets */
	size_t level;       /* the next level to run */
	bool skeleton_done; /* no further level can run */
	bool done;          /* oriented */
};

/* Check the settings; the test options compat=causal-learn forces. */
static int pc_check(fb_pc_options *o, fb_error *err)
{
	if (o->threads < 1)
		return fb_fail(err, "threads must be at least 1, not %zu", o->threads);
	if (!(o->alpha > 0.0 && o->alpha < 1.0))
		return fb_fail(err, "alpha must lie strictly between 0 and 1, not %g", o->alpha);
	if (o->depth < -1)
		return fb_fail(err, "depth must be -1 (no limit) or at least 0, not %ld", o->depth);
	if (o->compat == FB_PC_COMPAT_CAUSAL_LEARN)
		o->stable = true;
	fb_pc_ci_options(o, &o->ci);
	return FB_OK;
}

/* The test settings of a run with o: its own, with what compat=causal-learn forces. */
void fb_pc_ci_options(const fb_pc_options *o, fb_ci_options *ci)
{
	*ci = o->ci;
	if (o->compat != FB_PC_COMPAT_CAUSAL_LEARN)
		return;
	ci->df = FB_CI_DF_ADJUSTED;
	ci->small = FB_CI_SMALL_NONE;
	ci->zero_df = FB_CI_ZERO_DF_INDEPENDENT;
	ci->fisher_p = FB_CI_FISHER_P_COMPLEMENT;
}

/* Whether level l may run under the depth limit and on the skeleton. */
static bool pc_more(const fb_pc *pc, size_t l)
{
	if (pc->opt.depth >= 0 && l > (size_t)pc->opt.depth)
		return false;
	return fb_pc_level_possible(pc->g, l);
}

/* Join every pair of g by its marks alone: the skeleton's weights (which an unweighted graph
 * does not read) stay unwritten, so that the d x d weights of a large run take no memory. */
static void skeleton_complete(fb_graph *g)
{
	size_t d = g->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < d; j++)
			g->mark[i * d + j] = i != j;
}

/* A run over ci's variables with the complete skeleton. */
static fb_pc *pc_new(fb_ci *ci, bool own, char *const *names, const fb_pc_options *o,
                     fb_error *err)
{
	size_t d = fb_ci_d(ci);
	fb_pc *pc = fb_xcalloc(1, sizeof *pc);

	pc->opt = *o;
	pc->ci = ci;
	pc->own_ci = own;
	pc->g = fb_graph_alloc(d);
	pc->seps = fb_sepsets_alloc(d);
	for (size_t i = 0; i < d; i++) {
		if (names != NULL && fb_graph_set_name(pc->g, i, names[i], err) != FB_OK) {
			pc->own_ci = false; /* the caller still has it */
			fb_pc_free(pc);
			return NULL;
		}
	}
	skeleton_complete(pc->g);
	fb_pc_skeleton_knowledge(pc->g, pc->seps, o->knowledge);
	pc->skeleton_done = !pc_more(pc, 0);
	return pc;
}

/* Start PC on a dataset. */
fb_pc *fb_pc_alloc(const fb_dataset *ds, const fb_pc_options *opt, fb_error *err)
{
	fb_pc_options o;
	fb_ci *ci;
	char **names;
	fb_pc *pc;

	if (opt != NULL)
		o = *opt;
	else
		fb_pc_options_init(&o);
	if (pc_check(&o, err) != FB_OK)
		return NULL;
	o.ci.threads = o.threads; /* the statistics are built on them, the same on any number */
	if ((ci = fb_ci_alloc(ds, &o.ci, err)) == NULL)
		return NULL;
	/* threads take the tests of compat=causal-learn's levels, or the pair searches of stable
	 * Fisher-z levels, each on its own object */
	if (o.threads > 1 &&
	    (o.compat == FB_PC_COMPAT_CAUSAL_LEARN ||
	     (o.compat == FB_PC_COMPAT_NONE && o.stable && fb_ci_kind(ci) == FB_CI_FISHER_Z)) &&
	    fb_ci_helpers_alloc(ci, ds, o.threads, err) != FB_OK) {
		fb_ci_free(ci);
		return NULL;
	}
	names = fb_xmalloc(ds->d * sizeof *names);
	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	pc = pc_new(ci, true, names, &o, err);
	free(names);
	if (pc == NULL)
		fb_ci_free(ci);
	return pc;
}

/* Start PC on a test object. */
fb_pc *fb_pc_alloc_ci(fb_ci *ci, char *const *names, const fb_pc_options *opt, fb_error *err)
{
	fb_pc_options o;

	if (opt != NULL)
		o = *opt;
	else
		fb_pc_options_init(&o);
	if (pc_check(&o, err) != FB_OK)
		return NULL;
	return pc_new(ci, false, names, &o, err);
}

/* Free a run. */
void fb_pc_free(fb_pc *pc)
{
	if (pc == NULL)
		return;
	if (pc->own_ci)
		fb_ci_free(pc->ci);
	fb_graph_free(pc->g);
	fb_sepsets_free(pc->seps);
	free(pc);
}

/* The orientation step. */
static int pc_orient(fb_pc *pc, fb_pc_round *r, fb_error *err)
{
	fb_ci_stats before, after;

	fb_ci_get_stats(pc->ci, &before);
	if (pc->opt.compat == FB_PC_COMPAT_CAUSAL_LEARN) {
		if (fb_pc_orient_causal_learn_knowledge(pc->g, pc->seps, pc->ci, pc->opt.knowledge,
		                                        &r->colliders, &r->meek, err) != FB_OK)
			return FB_ERR;
	} else {
		fb_pc_orient_knowledge(pc->g, pc->opt.knowledge);
		if (fb_pc_orient_colliders(pc->g, pc->seps, pc->ci, pc->opt.colliders,
		                           &r->colliders, &r->conflicts, err) != FB_OK)
			return FB_ERR;
		r->meek = fb_cpdag_meek(pc->g, false);
	}
	fb_ci_get_stats(pc->ci, &after);
	r->orientation = true;
	r->level.level = pc->level;
	r->level.tests = after.queries - before.queries;
	r->level.hits = after.hits - before.hits;
	r->level.edges = fb_graph_n_edges(pc->g);
	pc->done = true;
	return FB_OK;
}

/* One step. */
int fb_pc_step(fb_pc *pc, fb_pc_round *r, fb_error *err)
{
	fb_pc_round tmp;
	int ret;

	if (r == NULL)
		r = &tmp;
	memset(r, 0, sizeof *r);
	if (pc->done)
		return fb_fail(err, "pc has finished");
	if (pc->skeleton_done)
		return pc_orient(pc, r, err);
	if (pc->own_ci)
		ret = fb_pc_skeleton_level_owned(pc->g, pc->ci, pc->level, &pc->opt, pc->seps,
		                                 &r->level, err);
	else
		ret = fb_pc_skeleton_level(pc->g, pc->ci, pc->level, &pc->opt, pc->seps, &r->level,
		                           err);
	if (ret != FB_OK)
		return FB_ERR;
	pc->level++;
	pc->skeleton_done = !pc_more(pc, pc->level);
	return FB_OK;
}

/* Whether no further skeleton level can run. */
bool fb_pc_skeleton_done(const fb_pc *pc)
{
	return pc->skeleton_done;
}

/* Whether the orientation has been done. */
bool fb_pc_done(const fb_pc *pc)
{
	return pc->done;
}

/* The current graph. */
const fb_graph *fb_pc_graph(const fb_pc *pc)
{
	return pc->g;
}

/* The separating sets. */
const fb_sepsets *fb_pc_sepsets(const fb_pc *pc)
{
	return pc->seps;
}

/* The test object. */
fb_ci *fb_pc_ci(const fb_pc *pc)
{
	return pc->ci;
}

/* Free the finished run's own tests. */
void fb_pc_release_tests(fb_pc *pc)
{
	if (pc->done && pc->own_ci)
		fb_ci_release(pc->ci);
}

/* Run PC to the end. */
fb_graph *fb_pc_run(const fb_dataset *ds, const fb_pc_options *opt, fb_error *err)
{
	fb_pc *pc = fb_pc_alloc(ds, opt, err);
	fb_graph *g = NULL;

	if (pc == NULL)
		return NULL;
	while (!fb_pc_done(pc))
		if (fb_pc_step(pc, NULL, err) != FB_OK)
			goto out;
	g = fb_graph_copy(pc->g);
out:
	fb_pc_free(pc);
	return g;
}
