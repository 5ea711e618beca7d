/* fedfci-pooled: FCI over horizontal clients whose G2 / chi2 tests read contingency tables
 * summed across the clients (FedC2SL's FedFCI), so that its PAG is all:fci's.  The skeleton
 * runs one round per PC level as fedc2sl's (every test the level may ask, the tables summed;
 * the first round also the level counts).  The possible-d-sep stage and the orientation ask
 * tests that depend on earlier answers: the server runs the stage with the answers it has,
 * takes a test without one as dependent and collects it (in the possible-d-sep stage trying
 * no larger subsets for that edge), asks the collected tests in one round, and runs the
 * stage again from its start, until a run asks nothing new: that run is fci's. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/pc.h"
#include "fci-int.h"
#include "../pc/fedc2sl-int.h"
#include "../pc/pc-params.h"

/* Most rounds of one stage before the server gives up (each asks a new test at least). */
#define FP_ROUNDS_MAX 10000

/* A run. */
typedef struct fp_state {
	size_t d, k;
	size_t *nlev;          /* d: the declared levels */
	fb_pc_options o;       /* PC-stable's settings (alpha, depth, the test's) */
	fb_ci *ci;             /* the answers from pooled tables */
	fb_pc *pc;             /* the skeleton on them */
	const fb_knowledge *bk; /* the run's knowledge, or NULL */
	uint64_t seed;         /* the dropout draw's stream (no dropout) */
	c2_batch b;            /* the round's tests */
	c2_codes **codes;      /* k: each client's rows as codes */
	size_t ncells, margin; /* numbers in each reply this round, of which the margins */
	bool asked;            /* the margins have been asked */
	int stage;             /* 0 skeleton, 1 possible-d-sep, 2 orientation, 3 done */
	size_t rounds;         /* rounds of the current stage */
	fci_seps *seps;        /* the separating sets */
	size_t *rank;          /* the identity */
	fb_pag *pag;           /* after the possible-d-sep stage, then the PAG */
	bool missed;           /* a test of the current edge had no answer */
	bool compat;           /* compat=causal-learn */
} fp_state;

/* Client k: the tables of the broadcast's tests on its own rows. */
static int fp_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	fp_state *st = state;

	*figure = (double)local->n;
	return c2_client_tables(local, down, k, 0.0, st->seed, &st->codes[k], up, err);
}

/* The server on the summed tables: the margins, then each test's answer. */
static int fp_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fp_state *st = state;

	(void)down;
	if (in->count == 0 || in->n != st->ncells)
		return fb_fail(err, "the sum holds %zu numbers from %zu clients where the tests "
		               "need %zu", in->n, in->count, st->ncells);
	return c2_batch_answer(&st->b, st->ci, in->sum, st->margin, err);
}

/* Numbers in each client's reply this round. */
static size_t fp_sum_len(const void *state)
{
	return ((const fp_state *)state)->ncells;
}

static const fb_fed_ops fp_ops = { .client = fp_client, .server_sum = fp_server,
	                           .sum_len = fp_sum_len };

/* A test at the server: the pooled answer, or, when none was given yet, dependent and
 * collected for the next round. */
static int fp_test(void *ctx, size_t x, size_t y, const size_t *S, size_t ns, bool *indep,
                   fb_error *err)
{
	fp_state *st = ctx;
	fb_error none;

	(void)err;
	if (fb_ci_independent(st->ci, x, y, S, ns, st->o.alpha, indep, &none) == FB_OK)
		return FB_OK;
	c2_batch_add(&st->b, x, y, S, ns);
	st->missed = true;
	*indep = false;
	return FB_OK;
}

/* The rules' environment. */
static fci_env fp_env(fp_state *st)
{
	fci_env env = fci_env_new(st->seps, fp_test, st, st->rank, st->d);

	env.bk = st->bk;
	env.pdsep_max = st->compat ? -1 : st->o.depth;
	env.skip_first = st->compat;
	env.missed = &st->missed;
	return env;
}

/* One run of the stage (from its start): the possible-d-sep stage on the skeleton with
 * PC's sets, or the orientation of its result.  Done when it asked nothing new. */
static int fp_stage(fp_state *st, bool *done, fb_error *err)
{
	fci_env env;
	fb_pag *p;
	int ret;

	c2_batch_clear(&st->b);
	if (st->stage == 1) {
		fci_seps_free(st->seps);
		st->seps = fci_seps_alloc(st->d);
		fci_seps_from_pc(st->seps, fb_pc_sepsets(st->pc));
	}
	env = fp_env(st);
	p = fb_pag_alloc(st->d);
	if (st->stage == 1) {
		fci_pag_skeleton(p, fb_pc_graph(st->pc));
		fci_remove_forbidden(p, st->seps, st->bk);
		fci_rule0(p, &env);
		ret = fci_possible_dsep(p, &env, err);
	} else {
		memcpy(p->mark, st->pag->mark, st->d * st->d);
		if (!st->compat)
			fci_join_required(p, st->bk);
		fci_rule0(p, &env);
		ret = fci_orient_rules(p, &env, err);
	}
	free(env.scratch);
	*done = ret == FB_OK && st->b.n == 0;
	if (*done) {
		fb_pag_free(st->pag);
		st->pag = p;
		st->stage++;
		st->rounds = 0;
	} else
		fb_pag_free(p);
	if (ret == FB_OK && !*done && ++st->rounds > FP_ROUNDS_MAX)
		return fb_fail(err, "the stage asked new tests in %d rounds", FP_ROUNDS_MAX);
	return ret;
}

/* After the round: PC's level, or a run of the current stage (the possible-d-sep stage
 * going on to the orientation when it asked nothing new). */
static int fp_after(fp_state *st, fb_pc_round *r, fb_error *err)
{
	bool done = true;

	if (st->stage == 0) {
		if (fb_pc_step(st->pc, r, err) != FB_OK)
			return FB_ERR;
		if (!fb_pc_skeleton_done(st->pc))
			return FB_OK;
		st->stage = 1;
	}
	while (done && st->stage < 3)
		if (fp_stage(st, &done, err) != FB_OK)
			return FB_ERR;
	return FB_OK;
}

/* Keep of a stage's collected tests the first whose tables fit in one reply (one at
 * least): the stage runs again after the round and collects the others anew. */
static void fp_batch_fit(fp_state *st)
{
	c2_batch *b = &st->b;
	double cells = (double)st->margin;

	for (size_t t = 0; t < b->n; t++) {
		cells += fb_ci_pooled_cells(st->ci, b->x[t], b->y[t], b->S + b->off[t], b->ns[t]);
		if (t > 0 && cells > (double)C2_CELLS_MAX) {
			b->n = t;
			return;
		}
	}
}

/* Lay out and broadcast the round's tests: the level's (skeleton), else those collected. */
static int fp_broadcast(fb_run *run, fp_state *st, fb_error *err)
{
	if (st->stage == 0) {
		c2_batch_clear(&st->b);
		c2_batch_level(&st->b, fb_pc_graph(st->pc), fb_run_rounds(run));
	}
	if (st->b.n > 0 && st->b.off[st->b.n] > 0) /* sets to share (none at level 0) */
		c2_batch_sort(&st->b);
	st->margin = 0;
	for (size_t j = 0; !st->asked && j < st->d; j++)
		st->margin += st->nlev[j];
	if (st->stage > 0)
		fp_batch_fit(st);
	if (c2_batch_cells(&st->b, st->nlev, st->margin, &st->ncells, err) != FB_OK)
		return FB_ERR;
	c2_batch_write(&st->b, st->margin > 0, fb_fed_rounds(run->fed) + 1,
	               fb_fed_broadcast(run->fed));
	return FB_OK;
}

/* One round: the tables of a level's tests (then PC's level), or of the tests a stage
 * collected (then the stage again). */
static int fp_step(fb_run *run, double *fig, fb_error *err)
{
	fp_state *st = run->state;
	int stage = st->stage;
	fb_pc_round r = { 0 };
	size_t tests;

	if (fp_broadcast(run, st, err) != FB_OK)
		return FB_ERR;
	tests = st->b.n;
	if ((tests > 0 || st->margin > 0) && fb_fed_round(run->fed, &fp_ops, st, err) != FB_OK)
		return FB_ERR;
	st->asked = true;
	if (fp_after(st, &r, err) != FB_OK)
		return FB_ERR;
	fig[0] = stage == 0 ? (double)r.level.level : -(double)stage;
	fig[1] = (double)tests;
	fig[2] = (double)st->ncells;
	fig[3] = st->pag != NULL ? (double)fb_pag_n_edges(st->pag) : (double)r.level.edges;
	fig[4] = st->stage == 3 ? (double)fb_pag_n_bidirected(st->pag) : 0.0;
	fb_run_say(run, "the clients sent the contingency tables of %zu test%s and the server "
	           "received only their sum; %s", tests, tests == 1 ? "" : "s",
	           st->stage == 3 ? "it oriented the PAG"
	           : stage == 0 ? "it ran a level of the skeleton"
	           : "the stage asks more tests");
	return FB_OK;
}

/* Finished once oriented. */
static bool fp_done(const fb_run *run)
{
	return ((const fp_state *)run->state)->stage == 3;
}

/* The PAG: o-o over the skeleton until the orientation ends (caller frees). */
static fb_pag *fp_pag(const fb_run *run, fb_error *err)
{
	const fp_state *st = run->state;
	fb_pag *p = fb_pag_alloc(st->d);

	(void)err;
	for (size_t i = 0; i < st->d; i++)
		fb_pag_set_name(p, i, run->data->vars[i].name, NULL);
	if (st->stage == 3)
		memcpy(p->mark, st->pag->mark, st->d * st->d);
	else
		fci_pag_skeleton(p, fb_pc_graph(st->pc));
	return p;
}

/* The PAG as a plain graph. */
static fb_graph *fp_result(const fb_run *run, fb_error *err)
{
	fb_pag *p = fp_pag(run, err);
	fb_graph *g = fb_pag_to_graph(p);

	fb_pag_free(p);
	return g;
}

/* Free the state. */
static void fp_destroy(fb_run *run)
{
	fp_state *st = run->state;

	if (st == NULL)
		return;
	fb_pc_free(st->pc);
	fb_ci_free(st->ci);
	c2_batch_release(&st->b);
	for (size_t c = 0; st->codes != NULL && c < st->k; c++)
		c2_codes_free(st->codes[c]);
	free(st->codes);
	free(st->nlev);
	fci_seps_free(st->seps);
	free(st->rank);
	fb_pag_free(st->pag);
	free(st);
	run->state = NULL;
}

/* PC-stable's settings for the pooled tests, read from the parameters. */
static void fp_options_from(const fb_params *p, fb_pc_options *o)
{
	fb_pc_options_init(o);
	o->alpha = fb_params_double(p, "alpha");
	o->depth = (long)fb_params_int(p, "depth");
	o->stable = true;
	o->ci.test = (enum fb_ci_test)fb_params_choice(p, "test");
	o->ci.df = (enum fb_ci_df)fb_params_choice(p, "df");
	o->ci.small = (enum fb_ci_small)fb_params_choice(p, "small");
	o->ci.zero_df = (enum fb_ci_zero_df)fb_params_choice(p, "zero_df");
	o->compat = (enum fb_pc_compat)fb_params_choice(p, "compat");
}

/* Build the server's answer object and PC-stable over it (fci's settings). */
static int fp_create(fb_run *run, fb_error *err)
{
	fp_state *st = fb_xcalloc(1, sizeof *st);
	char **names;

	run->state = st;
	if (run->fedopt.dp_epsilon > 0)
		return fb_fail(err, "fedfci-pooled's sums are contingency counts, which the clipping "
		               "of differential privacy would destroy: set dp_epsilon=0");
	fp_options_from(&run->params, &st->o);
	st->compat = st->o.compat == FB_PC_COMPAT_CAUSAL_LEARN;
	st->d = run->data->d;
	st->k = run->part->k;
	st->bk = fb_knowledge_is_empty(fb_run_knowledge(run)) ? NULL : fb_run_knowledge(run);
	st->seed = run->fedopt.seed;
	st->codes = fb_xcalloc(st->k + 1, sizeof *st->codes);
	st->nlev = fb_xmalloc((st->d + 1) * sizeof *st->nlev);
	st->rank = fci_name_ranks(st->d, st->compat);
	for (size_t j = 0; j < st->d; j++)
		st->nlev[j] = run->data->vars[j].nlevels;
	if (st->d < 2)
		return fb_fail(err, "fedfci-pooled needs at least two variables, and the data has "
		               "%zu", st->d);
	fb_pc_ci_options(&st->o, &st->o.ci); /* what compat=causal-learn forces */
	if ((st->ci = fb_ci_alloc_pooled(st->d, st->nlev, &st->o.ci, err)) == NULL)
		return FB_ERR;
	names = fb_dataset_names(run->data);
	st->pc = fb_pc_alloc_ci(st->ci, names, &st->o, err);
	fb_names_free(names, st->d);
	return st->pc != NULL ? FB_OK : FB_ERR;
}

/* The names of test='s values: the discrete tests. */
static const fb_choice fp_tests[] = {
	{ "g2", FB_CI_G2 }, { "chi2", FB_CI_CHI2 }, { "chisq", FB_CI_CHI2 }, { 0 },
};

/* The names of compat='s values. */
static const fb_choice fp_compats[] = {
	{ "none", FB_PC_COMPAT_NONE }, { "causal-learn", FB_PC_COMPAT_CAUSAL_LEARN }, { 0 },
};

/* fedfci-pooled's parameters: fci's, the discrete tests alone. */
static const fb_param_def fp_params[] = {
	{ "alpha", FB_PARAM_DOUBLE, "0.05", 0, 1, NULL,
	  "significance level: a pair is independent when p > alpha" },
	{ "test", FB_PARAM_CHOICE, "g2", 0, 0, fp_tests,
	  "G2 (all:fci's default on discrete data) or Pearson's chi2 (chisq, FedC2SL's)" },
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL,
	  "largest conditioning set of the skeleton and of the possible-d-sep stage (-1: no "
	  "limit)" },
	PC_PARAMS_DISCRETE,
	{ "compat", FB_PARAM_CHOICE, "none", 0, 0, fp_compats,
	  "causal-learn: FCI as causal-learn's fci(data, test, alpha), on which FedC2SL's "
	  "FedFCI is built: the PAG is all:fci compat=causal-learn's" },
	{ 0 },
};

/* The defaults: the parameter table's, the one place they are written. */
static void fp_options_init(fb_pc_options *o)
{
	fb_params p = fb_params_defaults(fp_params);

	fp_options_from(&p, o);
	fb_params_release(&p);
}

/* fedfci-pooled's options, read from the parameters. */
FB_ALGO_OPTIONS(fp_algo_options, fb_pc_options, fp_options_init, fp_options_from);

/* Per-round figures. */
static const char *const fp_figures[] = { "level", "tests", "cells", "edges", "bidirected",
	                                  NULL };

/* The named values of level. */
static const fb_figure_level fp_levels[] = {
	{ "level", -1, "possible-d-sep" }, { "level", -2, "orient" }, { 0 },
};

const fb_algo fb_algo_fedfci_pooled = {
	.name = "fedfci-pooled",
	.summary = "FedC2SL's FedFCI: FCI on contingency tables summed over the clients (a PAG)",
	.intro = "Runs FCI as if all rows were in one place, without moving a row: every test "
	         "reads a contingency table that the clients count on their own rows and the "
	         "server receives only summed, so the PAG is the one fci learns on all rows.",
	.help = "FedC2SL's FedFCI (Wang, Ma and Wang): FCI over a horizontal split whose G2 or "
	        "chi2 tests use contingency tables summed across the clients (secure=yes masks "
	        "each client's vector). The skeleton takes one round per PC level, as fedc2sl "
	        "(every test the level may ask; the first round also sums each variable's level "
	        "counts). The possible-d-sep stage and the orientation ask tests that depend on "
	        "earlier answers: the server runs the stage on the answers it has, takes a test "
	        "without one as dependent (trying no larger possible-d-sep subsets for that "
	        "edge), asks all such tests in one round and runs the stage again from its start "
	        "until it asks nothing new, so the PAG is all:fci's with the same test and "
	        "settings. Discrete data only; each client sends c_x c_y prod_S c_v counts per "
	        "test, and a round whose tables pass 2^22 counts is refused (limit depth=). "
	        "Knowledge is honoured as fci honours it (at the server).",
	.flags = FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_DISCRETE | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = fp_params, .figures = fp_figures, .levels = fp_levels,
	.client_figure = "rows",
	.create = fp_create, .step = fp_step, .done = fp_done, .result = fp_result,
	.pag = fp_pag, .destroy = fp_destroy, .note = fci_note, .options = &fp_algo_options,
};
