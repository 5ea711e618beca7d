/* FCI as a stepper: PC's skeleton one level a step, then the possible-d-sep stage, then the
 * orientation (fedbn/fci.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/fci.h"
#include "fci-int.h"

/* An FCI run. */
struct fb_fci {
	fb_pc *pc;              /* the skeleton search and its tests */
	double alpha;           /* the level */
	fb_pag *pag;            /* the PAG (o-o over the skeleton until the pdsep stage) */
	fci_seps *seps;         /* ordered separating sets */
	fb_knowledge *bk;       /* knowledge, or NULL (owned) */
	size_t *rank;           /* the order of the possible-d-sep members */
	long pdsep_max;         /* largest possible-d-sep subset (-1: any) */
	bool compat;            /* compat=causal-learn */
	enum fb_fci_stage next; /* the stage of the next step */
	bool done;              /* oriented */
};

/* Test on the run's data: p > alpha. */
static int data_test(void *ctx, size_t x, size_t y, const size_t *S, size_t ns, bool *indep,
                     fb_error *err)
{
	fb_fci *f = ctx;

	return fb_ci_independent(fb_pc_ci(f->pc), x, y, S, ns, f->alpha, indep, err);
}

/* Ranks of d variables: by index, or by the names X1..Xd as strings (causal-learn's sort). */
size_t *fci_name_ranks(size_t d, bool by_name)
{
	size_t *rank = fb_xmalloc((d + 1) * sizeof *rank);

	for (size_t i = 0; i < d; i++) {
		rank[i] = 0;
		if (!by_name) {
			rank[i] = i;
			continue;
		}
		for (size_t j = 0; j < d; j++) {
			char a[32], b[32];

			snprintf(a, sizeof a, "X%zu", i + 1);
			snprintf(b, sizeof b, "X%zu", j + 1);
			rank[i] += strcmp(b, a) < 0;
		}
	}
	return rank;
}

/* Start FCI. */
fb_fci *fb_fci_alloc(const fb_dataset *ds, const fb_fci_options *opt, const fb_knowledge *bk,
                     fb_error *err)
{
	fb_fci_options o;
	fb_fci *f;

	if (opt != NULL)
		o = *opt;
	else
		fb_fci_options_init(&o);
	o.pc.stable = true;
	if (bk != NULL && fb_knowledge_d(bk) != ds->d) {
		fb_fail(err, "the knowledge is over %zu variables and the data have %zu",
		        fb_knowledge_d(bk), ds->d);
		return NULL;
	}
	f = fb_xcalloc(1, sizeof *f);
	if ((f->pc = fb_pc_alloc(ds, &o.pc, err)) == NULL) {
		free(f);
		return NULL;
	}
	f->alpha = o.pc.alpha;
	f->bk = bk != NULL && !fb_knowledge_is_empty(bk) ? fb_knowledge_copy(bk) : NULL;
	f->rank = fci_name_ranks(ds->d, o.pc.compat == FB_PC_COMPAT_CAUSAL_LEARN);
	f->compat = o.pc.compat == FB_PC_COMPAT_CAUSAL_LEARN;
	f->pdsep_max = f->compat ? -1 : o.pc.depth;
	f->seps = fci_seps_alloc(ds->d);
	f->pag = fb_pag_alloc(ds->d);
	for (size_t i = 0; i < ds->d; i++)
		fb_pag_set_name(f->pag, i, ds->vars[i].name, NULL);
	f->next = fb_pc_skeleton_done(f->pc) ? FB_FCI_PDSEP : FB_FCI_SKELETON;
	return f;
}

/* Free a run. */
void fb_fci_free(fb_fci *f)
{
	if (f == NULL)
		return;
	fb_pc_free(f->pc);
	fb_pag_free(f->pag);
	fci_seps_free(f->seps);
	fb_knowledge_free(f->bk);
	free(f->rank);
	free(f);
}

/* p's edges: o-o over the skeleton g. */
void fci_pag_skeleton(fb_pag *p, const fb_graph *g)
{
	memset(p->mark, 0, p->d * p->d);
	for (size_t i = 0; i < g->d; i++)
		for (size_t j = i + 1; j < g->d; j++)
			if (fb_graph_adjacent(g, i, j))
				fb_pag_set(p, i, j, FB_PAG_CIRCLE, FB_PAG_CIRCLE);
}

/* The PAG's edges: o-o over the current skeleton. */
static void pag_from_skeleton(fb_fci *f)
{
	fci_pag_skeleton(f->pag, fb_pc_graph(f->pc));
}

/* The rules' environment over d variables, its scratch allocated. */
fci_env fci_env_new(fci_seps *seps, fci_test_fn test, void *ctx, const size_t *rank,
                    size_t d)
{
	fci_env env = { 0 };

	env.seps = seps;
	env.test = test;
	env.ctx = ctx;
	env.rank = rank;
	env.pdsep_max = -1;
	env.scratch = fb_xmalloc((4 * d + 4) * sizeof *env.scratch);
	return env;
}

/* The environment of the rules. */
static fci_env run_env(fb_fci *f)
{
	fci_env env = fci_env_new(f->seps, data_test, f, f->rank, f->pag->d);

	env.bk = f->bk;
	env.pdsep_max = f->pdsep_max;
	env.skip_first = f->compat;
	return env;
}

/* Remove from p the pairs the knowledge bk (or NULL) forbids both ways, their separating
 * sets empty. */
void fci_remove_forbidden(fb_pag *p, fci_seps *seps, const fb_knowledge *bk)
{
	for (size_t i = 0; bk != NULL && i < p->d; i++)
		for (size_t j = i + 1; j < p->d; j++)
			if (fb_pag_adjacent(p, i, j) && fb_knowledge_forbids(bk, i, j) &&
			    fb_knowledge_forbids(bk, j, i)) {
				fb_pag_remove(p, i, j);
				fci_seps_set(seps, i, j, NULL, 0);
				fci_seps_set(seps, j, i, NULL, 0);
			}
}

/* The possible-d-sep stage or the orientation. */
static int fci_stage(fb_fci *f, fb_fci_round *r, fb_error *err)
{
	fci_env env = run_env(f);
	int ret = FB_OK;

	if (f->next == FB_FCI_PDSEP) {
		pag_from_skeleton(f);
		fci_seps_from_pc(f->seps, fb_pc_sepsets(f->pc));
		fci_remove_forbidden(f->pag, f->seps, f->bk);
		fci_rule0(f->pag, &env);
		/* the stage asks only whether pairs are independent, and seldom one test
		 * twice: no answer is kept, so that chi2 may stop once a dependence is sure */
		fb_ci_cache_keep(fb_pc_ci(f->pc), -1.0);
		ret = fci_possible_dsep(f->pag, &env, err);
		f->next = FB_FCI_ORIENT;
	} else {
		if (!f->compat)
			fci_join_required(f->pag, f->bk);
		fci_rule0(f->pag, &env);
		ret = fci_orient_rules(f->pag, &env, err);
		f->done = ret == FB_OK;
	}
	r->tests = env.tests;
	r->removed = env.removed;
	free(env.scratch);
	return ret;
}

/* One step. */
int fb_fci_step(fb_fci *f, fb_fci_round *r, fb_error *err)
{
	fb_fci_round tmp;
	fb_pc_round pr;

	if (r == NULL)
		r = &tmp;
	memset(r, 0, sizeof *r);
	if (f->done)
		return fb_fail(err, "fci has finished");
	r->stage = f->next;
	if (f->next == FB_FCI_SKELETON) {
		if (fb_pc_step(f->pc, &pr, err) != FB_OK)
			return FB_ERR;
		/* no later level asks a set of this level's size, and the stages after the
		 * skeleton ask few tests: compat=causal-learn's level keeps every answer, which
		 * would hold millions at d = 1000 (their answers are the same computed anew) */
		fb_ci_cache_clear(fb_pc_ci(f->pc));
		r->level = pr.level.level;
		r->tests = pr.level.tests;
		r->removed = pr.level.removed;
		r->edges = pr.level.edges;
		if (fb_pc_skeleton_done(f->pc))
			f->next = FB_FCI_PDSEP;
		pag_from_skeleton(f);
		return FB_OK;
	}
	if (fci_stage(f, r, err) != FB_OK)
		return FB_ERR;
	r->edges = fb_pag_n_edges(f->pag);
	return FB_OK;
}

/* Whether oriented. */
bool fb_fci_done(const fb_fci *f)
{
	return f->done;
}

/* The current PAG. */
const fb_pag *fb_fci_pag(const fb_fci *f)
{
	return f->pag;
}

/* Run FCI to the end. */
fb_pag *fb_fci_run(const fb_dataset *ds, const fb_fci_options *opt, const fb_knowledge *bk,
                   fb_error *err)
{
	fb_fci *f = fb_fci_alloc(ds, opt, bk, err);
	fb_pag *p = NULL;

	if (f == NULL)
		return NULL;
	while (!fb_fci_done(f))
		if (fb_fci_step(f, NULL, err) != FB_OK)
			goto out;
	p = fb_pag_copy(f->pag);
out:
	fb_fci_free(f);
	return p;
}
