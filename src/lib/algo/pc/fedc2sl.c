/* fedc2sl: PC-stable over horizontal clients whose G² / χ² tests are computed from
 * contingency tables summed across the clients (FedC2SL's federated conditional independence
 * test, Wang, Ma and Wang, ECML-PKDD 2023).  One round per PC level: the server lists every
 * test the level may ask (each once), every client answers with the tables of all of them
 * counted on its own rows, one vector, and the server receives only their sum (FB_ALGO_SUMMED:
 * with secure=yes the vector is masked, and a client lost on the wire is recovered from the
 * others' shares).  The server answers each test from its pooled table (fb_ci_pooled_answer)
 * and runs fedbn's own PC step on those answers, so that the CPDAG is all:pc's.  The first
 * round also carries each variable's level counts (the pooled rows and the levels that
 * occur), and a last round, when there are collider candidates, the tests of the strength
 * rule.
 *
 * The length of the summed vector changes from round to round (the tests of a level): the
 * federation reads sum_len when it wraps the round and again for the server half, and the
 * state changes it only between rounds (fed.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/pc.h"
#include "fedc2sl-int.h"
#include "pc-params.h"

/* A run. */
typedef struct c2_state {
	size_t d, k;
	size_t *nlev;       /* d: the declared levels */
	fb_pc_options o;    /* PC's settings */
	fb_ci *ci;          /* the answers from pooled tables */
	fb_pc *pc;          /* fedbn's PC on them */
	double dropout;     /* chance that a client drops out of a round */
	uint64_t seed;      /* the dropout draw's stream */
	c2_batch b;         /* the round's tests */
	c2_codes **codes;   /* k: each client's rows as codes (made by its own half) */
	size_t ncells;      /* numbers in each client's reply this round */
	bool dp;            /* differential privacy: the sums come noisy */
	double *clean;      /* ncells: a noisy sum rounded to counts */
	size_t margin;      /* of which the margins (first round) */
	size_t count;       /* clients whose tables were in the last sum */
	size_t silent;      /* clients that dropped out of the last round */
	bool asked;         /* the margins have been asked */
} c2_state;

/* Client k: the tables of the broadcast's tests on its own rows. */
static int c2_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                     fb_msg *up, double *figure, fb_error *err)
{
	c2_state *st = state;

	*figure = (double)local->n;
	return c2_client_tables(local, down, k, st->dropout, st->seed, &st->codes[k], up, err);
}

/* Noisy level counts m (rounded) made to agree on the rows: n the mean of the variables'
 * totals, rounded; a variable short of it gets the difference on its first level, one over
 * it gives rows back from its levels in order. */
static void c2_margins_agree(const c2_state *st, double *m)
{
	double n = 0, *c = m;

	for (size_t q = 0; q < st->margin; q++)
		n += m[q];
	n = nearbyint(n / (double)st->d);
	for (size_t j = 0; j < st->d; c += st->nlev[j], j++) {
		double diff = n;

		for (size_t a = 0; a < st->nlev[j]; a++)
			diff -= c[a];
		if (diff >= 0)
			c[0] += diff;
		for (size_t a = 0; diff < 0 && a < st->nlev[j]; a++) {
			double take = c[a] < -diff ? c[a] : -diff;

			c[a] -= take;
			diff += take;
		}
	}
}

/* A noisy sum as counts the tests take (into st->clean): each number rounded to the nearest
 * integer and a negative one to 0, and the level counts made to agree on the rows. */
static const double *c2_counts(c2_state *st, const double *sum)
{
	st->clean = fb_xrealloc(st->clean, (st->ncells > 0 ? st->ncells : 1) * sizeof *sum);
	for (size_t q = 0; q < st->ncells; q++)
		st->clean[q] = sum[q] > 0 ? nearbyint(sum[q]) : 0;
	if (st->margin > 0)
		c2_margins_agree(st, st->clean);
	return st->clean;
}

/* Row-level differential privacy: adding or removing one row adds 1 to one cell of each
 * table of the round and, in the first round, to one level count of each variable, so the
 * summed vector's L2 sensitivity is the square root of the tables and margins it touches. */
static double c2_dp_rows(const void *state, const fb_msg *down)
{
	const c2_state *st = state;
	double cells;

	if (down->nc != C2_NCONTROL)
		return 1;
	cells = down->c[C2_C_QUERIES] + (down->c[C2_C_MARGINS] > 0 ? (double)st->d : 0);
	return sqrt(cells > 1 ? cells : 1);
}

/* The server on the summed tables: the margins, then each test's answer from its pooled
 * table, kept for PC's step. */
static int c2_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	c2_state *st = state;
	const double *sum;

	(void)down; /* the step writes the next broadcast */
	st->count = in->count;
	st->silent = in->silent;
	if (in->count == 0)
		return fb_fail(err, "every client dropped out of the round, so no table reached the "
		               "server");
	if (in->n != st->ncells)
		return fb_fail(err, "the sum holds %zu numbers where the tests need %zu", in->n,
		               st->ncells);
	sum = st->dp ? c2_counts(st, in->sum) : in->sum;
	return c2_batch_answer(&st->b, st->ci, sum, st->margin, err);
}

/* Numbers in each client's reply this round. */
static size_t c2_sum_len(const void *state)
{
	return ((const c2_state *)state)->ncells;
}

static const fb_fed_ops c2_ops = { .client = c2_client, .server_sum = c2_server,
	                           .sum_len = c2_sum_len, .dp_rows = c2_dp_rows };

/* fedc2sl's options: PC's and the dropout. */
typedef struct c2_opts {
	fb_pc_options pc; /* PC-stable with fedbn's rules, the test's settings */
	double dropout;   /* chance that a client drops out of a round */
} c2_opts;

/* The options the parameters p give. */
static void c2_options_from(const fb_params *p, c2_opts *o)
{
	memset(o, 0, sizeof *o);
	fb_pc_options_init(&o->pc);
	o->pc.alpha = fb_params_double(p, "alpha");
	o->pc.depth = (long)fb_params_int(p, "depth");
	o->pc.ci.test = (enum fb_ci_test)fb_params_choice(p, "test");
	o->pc.ci.df = (enum fb_ci_df)fb_params_choice(p, "df");
	o->pc.ci.small = (enum fb_ci_small)fb_params_choice(p, "small");
	o->pc.ci.zero_df = (enum fb_ci_zero_df)fb_params_choice(p, "zero_df");
	o->pc.colliders = (enum fb_pc_colliders)fb_params_choice(p, "colliders");
	o->dropout = fb_params_double(p, "dropout");
}

/* Check the split's variables: discrete, two at least, the same levels as the data's. */
static int c2_check(const fb_run *run, fb_error *err)
{
	if (run->data->d < 2)
		return fb_fail(err, "fedc2sl needs at least two variables, and the data has %zu",
		               run->data->d);
	return FB_OK;
}

/* Build the server's answer object and PC over it. */
static int c2_create(fb_run *run, fb_error *err)
{
	c2_state *st = fb_xcalloc(1, sizeof *st);
	c2_opts opts;
	char **names;

	run->state = st;
	if (c2_check(run, err) != FB_OK)
		return FB_ERR;
	c2_options_from(&run->params, &opts);
	st->o = opts.pc;
	st->o.knowledge = fb_run_knowledge(run);
	st->d = run->data->d;
	st->k = run->part->k;
	st->dropout = opts.dropout;
	st->seed = run->fedopt.seed;
	st->dp = run->fedopt.dp_epsilon > 0;
	if (run->fed != NULL) /* a client lost on the wire: its tables missing, as dropout= */
		fb_fed_set_tolerant(run->fed, true);
	st->codes = fb_xcalloc(st->k, sizeof *st->codes);
	st->nlev = fb_xmalloc(st->d * sizeof *st->nlev);
	for (size_t j = 0; j < st->d; j++)
		st->nlev[j] = run->data->vars[j].nlevels;
	if ((st->ci = fb_ci_alloc_pooled(st->d, st->nlev, &st->o.ci, err)) == NULL)
		return FB_ERR;
	names = fb_dataset_names(run->data);
	st->pc = fb_pc_alloc_ci(st->ci, names, &st->o, err);
	fb_names_free(names, st->d);
	return st->pc != NULL ? FB_OK : FB_ERR;
}

/* The next round's tests: the level's, or the collider rule's (none under the order rule);
 * the broadcast written.  FB_ERR when their tables would be too large. */
static int c2_batch_next(fb_run *run, c2_state *st, size_t level, fb_error *err)
{
	c2_batch_clear(&st->b);
	if (!fb_pc_skeleton_done(st->pc))
		c2_batch_level(&st->b, fb_pc_graph(st->pc), level);
	else if (st->o.colliders == FB_PC_COLLIDERS_STRENGTH) {
		fb_graph *g = fb_graph_copy(fb_pc_graph(st->pc));

		fb_pc_orient_knowledge(g, st->o.knowledge); /* as PC's orientation starts */
		c2_batch_colliders(&st->b, g, fb_pc_sepsets(st->pc));
		fb_graph_free(g);
	}
	c2_batch_sort(&st->b);
	st->margin = 0;
	if (!st->asked)
		for (size_t j = 0; j < st->d; j++)
			st->margin += st->nlev[j];
	if (c2_batch_cells(&st->b, st->nlev, st->margin, &st->ncells, err) != FB_OK)
		return FB_ERR;
	c2_batch_write(&st->b, st->margin > 0, fb_fed_rounds(run->fed) + 1,
	               fb_fed_broadcast(run->fed));
	return FB_OK;
}

/* The round in words. */
static void c2_say(fb_run *run, const c2_state *st, const fb_pc_round *r, bool asked)
{
	char heard[160] = "no table was needed";

	if (asked)
		snprintf(heard, sizeof heard, "%zu of %zu clients sent the %zu contingency tables "
		         "of the round (%zu counts each%s) and the server received only their sum",
		         st->count, st->k, st->b.n, st->ncells,
		         st->silent > 0 ? "; the others dropped out" : "");
	if (r->orientation)
		fb_run_say(run, "%s; it oriented the skeleton: %zu collider%s, %zu conflict%s "
		           "skipped, %zu edge%s directed by Meek's rules", heard, r->colliders,
		           r->colliders == 1 ? "" : "s", r->conflicts, r->conflicts == 1 ? "" : "s",
		           r->meek, r->meek == 1 ? "" : "s");
	else
		fb_run_say(run, "%s; given %zu other variable%s the pooled tests removed %zu edge%s, "
		           "%zu remain%s", heard, r->level.level, r->level.level == 1 ? "" : "s",
		           r->level.removed, r->level.removed == 1 ? "" : "s", r->level.edges,
		           r->level.edges == 1 ? "s" : "");
}

/* One PC level (or the orientation) on tables summed in one round. */
static int c2_step(fb_run *run, double *fig, fb_error *err)
{
	c2_state *st = run->state;
	size_t level = fb_run_rounds(run);
	fb_pc_round r;
	bool ask;

	if (c2_batch_next(run, st, level, err) != FB_OK)
		return FB_ERR;
	ask = st->b.n > 0 || st->margin > 0;
	if (ask && fb_fed_round(run->fed, &c2_ops, st, err) != FB_OK)
		return FB_ERR;
	st->asked = true;
	if (fb_pc_step(st->pc, &r, err) != FB_OK)
		return FB_ERR;
	fig[0] = r.orientation ? -1.0 : (double)r.level.level;
	fig[1] = (double)st->b.n;
	fig[2] = ask ? (double)st->ncells : 0.0;
	fig[3] = (double)r.level.removed;
	fig[4] = (double)r.level.edges;
	fig[5] = (double)r.colliders;
	fig[6] = ask ? (double)st->silent : 0.0;
	c2_say(run, st, &r, ask);
	return FB_OK;
}

/* Finished once oriented. */
static bool c2_done(const fb_run *run)
{
	return fb_pc_done(((const c2_state *)run->state)->pc);
}

/* The skeleton so far, or the CPDAG. */
static fb_graph *c2_result(const fb_run *run, fb_error *err)
{
	(void)err;
	return fb_graph_copy(fb_pc_graph(((const c2_state *)run->state)->pc));
}

/* Free the state. */
static void c2_destroy(fb_run *run)
{
	c2_state *st = run->state;

	if (st == NULL)
		return;
	fb_pc_free(st->pc);
	fb_ci_free(st->ci);
	c2_batch_release(&st->b);
	for (size_t c = 0; st->codes != NULL && c < st->k; c++)
		c2_codes_free(st->codes[c]);
	free(st->codes);
	free(st->nlev);
	free(st->clean);
	free(st);
	run->state = NULL;
}

/* What the result is. */
static const char *c2_note(const fb_run *run)
{
	if (run->fedopt.dp_epsilon > 0)
		return "the result is a CPDAG from noisy tables (dp_epsilon=: each count rounded, "
		       "negative ones to 0)";
	return "the result is a CPDAG, all:pc's with the same test (the tables are pooled "
	       "exactly)";
}

/* The names of test='s values: the discrete tests. */
static const fb_choice c2_tests[] = {
	{ "g2", FB_CI_G2 }, { "chi2", FB_CI_CHI2 }, { "chisq", FB_CI_CHI2 }, { 0 },
};

/* fedc2sl's parameters: PC's, less what needs rows (compat, stable), and the dropout. */
static const fb_param_def c2_params[] = {
	{ "alpha", FB_PARAM_DOUBLE, "0.01", 0, 1, NULL,
	  "significance level: a pair is independent when p > alpha" },
	{ "test", FB_PARAM_CHOICE, "g2", 0, 0, c2_tests,
	  "G2 (all:pc's default on discrete data) or Pearson's chi2 (chisq: the paper's name)" },
	{ "depth", FB_PARAM_INT, "-1", -1, 1e6, NULL,
	  "largest conditioning set (-1: no limit)" },
	PC_PARAMS_DISCRETE,
	{ "colliders", FB_PARAM_CHOICE, "strength", 0, 0, fb_pc_colliders,
	  "orient colliders by increasing p of their test (one more round), or by index order" },
	{ "dropout", FB_PARAM_DOUBLE, "0", 0, 1, NULL,
	  "chance that a client drops out of a round (the FedC2SL paper's dropout): its tables "
	  "are missing from that round's sum" },
	{ 0 },
};

/* The defaults: the parameter table's, the one place they are written. */
static void c2_options_init(c2_opts *o)
{
	fb_params p = fb_params_defaults(c2_params);

	c2_options_from(&p, o);
	fb_params_release(&p);
}

/* fedc2sl's options, read from the parameters. */
FB_ALGO_OPTIONS(c2_algo_options, c2_opts, c2_options_init, c2_options_from);

/* fedc2sl's per-round figures. */
static const char *const c2_figures[] = { "level", "tests", "cells", "removed", "edges",
	                                  "colliders", "dropped", NULL };

const fb_algo fb_algo_fedc2sl = {
	.name = "fedc2sl",
	.summary = "PC whose tests use contingency tables summed over the clients (FedC2SL)",
	.intro = "Runs the PC algorithm as if all rows were in one place, without moving a row: "
	         "for each level of PC every client counts the contingency tables of the "
	         "level's tests on its own rows, and the server receives only their sum, from "
	         "which it computes the same G2 or chi2 tests as on the pooled data.",
	.help = "FedC2SL (Wang, Ma and Wang, ECML-PKDD 2023): PC-stable over a horizontal split "
	        "whose conditional independence tests use contingency tables summed across the "
	        "clients. One round per level: the server broadcasts every test the level may "
	        "ask (x, y and S, each once), each client answers with all their tables counted "
	        "on its own rows as one vector, and the server, handed only the sum (secure=yes "
	        "masks each vector; a client lost on the wire is recovered from the others' "
	        "Shamir shares), answers every test from its pooled table and runs fedbn's PC "
	        "level on those answers. The first round also sums each variable's level counts; "
	        "a last round sums the collider tests of the strength rule. The pooled counts "
	        "are exact, so the CPDAG is all:pc's with the same test and settings (the "
	        "statistic sums its strata in the order of their codes, where the test on rows "
	        "takes them in order of first occurrence: the p-values agree to the last bits). "
	        "The server thus sees the pooled tables, never a client's; the authors' code "
	        "instead estimates each chi2 from random projections of the clients' "
	        "standardised tables (the server seeing the pooled margins and a sketch), so "
	        "its p-values are noisy. "
	        "dropout=p drops each client from each round with chance p (the paper's client "
	        "dropout; the same draw in process and over MPI); its tables are then missing "
	        "from that round's sum. Discrete data only (test=g2 or chi2, alias chisq); a "
	        "vertical split is refused, since a table over x, y and S needs each row's values "
	        "of all of them at one client. dp_epsilon= (secure=yes) adds row-level privacy, "
	        "nothing clipped: a row adds 1 to one cell of each of the round's tables and, "
	        "first, to one level count per variable, so the sum's L2 sensitivity is sqrt(T'), "
	        "T' the tables and counts it touches, and the noise is dp_sigma times it; the "
	        "server rounds each noisy count (negative ones to 0) and makes the level counts "
	        "agree on their mean total before the test. Background knowledge acts as in pc: "
	        "a pair forbidden both ways is never joined and none of its tables is asked (only "
	        "the server uses it). "
	        "Each client sends c_x c_y prod_S c_v counts per test; "
	        "a round whose tables pass 2^22 counts is refused (limit depth=).",
	.flags = FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_DISCRETE | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = c2_params, .figures = c2_figures,
	.create = c2_create, .step = c2_step, .done = c2_done, .result = c2_result,
	.destroy = c2_destroy, .note = c2_note,
	.options = &c2_algo_options,
};
