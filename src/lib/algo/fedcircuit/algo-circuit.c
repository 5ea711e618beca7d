/* circuit: a LearnSPN-style probabilistic circuit learned on one dataset's training rows, as
 * a stepper of two rounds: learn the structure and leaves, then evaluate every part. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"

/* The phases of a circuit run, one round each. */
enum circ_phase {
	CIRC_LEARN = 0,    /* learn the circuit on the training rows */
	CIRC_EVALUATE = 1, /* log-likelihood of every part */
	CIRC_DONE = 2,     /* finished */
};

/* The state of a circuit run. */
typedef struct circ_state {
	fb_learnspn_options o;  /* the learner's settings */
	enum circ_phase phase;  /* the next round's phase */
	fb_circuit *c;          /* the learned circuit, or NULL before the first round */
	fb_circuit_report rep;  /* its figures, complete after the second round */
	char note[512];         /* what the result is, with a warning when it cannot split */
} circ_state;

/* Start a circuit run. */
static int circ_create(fb_run *run, fb_error *err)
{
	circ_state *st = fb_xcalloc(1, sizeof *st);

	fb_learnspn_options_from_params(&run->params, &st->o);
	run->state = st;
	if (run->data->n == 0)
		return fb_fail(err, "circuit needs training rows, and there are none");
	for (size_t j = 0; j < run->data->d && st->o.split == FB_SPLIT_GTEST; j++)
		if (run->data->vars[j].kind != FB_DISCRETE)
			return fb_fail(err, "split=gtest tests discrete variables, and '%s' is "
			                    "continuous (use split=rdc)", run->data->vars[j].name);
	return FB_OK;
}

/* Learn the circuit on the training rows. */
static int circ_learn(fb_run *run, circ_state *st, fb_error *err)
{
	const fb_dataset *ds = run->data;
	size_t *nlevels = fb_xcalloc(ds->d > 0 ? ds->d : 1, sizeof *nlevels);
	int rc;

	for (size_t j = 0; j < ds->d; j++)
		nlevels[j] = ds->vars[j].kind == FB_DISCRETE ? ds->vars[j].nlevels : 0;
	rc = fb_learnspn(ds->x, ds->n, ds->d, nlevels, &st->o, FB_CIRCUIT_SERVER, &st->c, err);
	free(nlevels);
	if (rc == FB_OK)
		rc = fb_circuit_stats_compute(st->c, &st->rep.stats, err);
	st->rep.ncircuits = 1;
	return rc;
}

/* One phase: learn, or evaluate every part. */
static int circ_step(fb_run *run, double *fig, fb_error *err)
{
	circ_state *st = run->state;

	for (size_t f = 0; f < 5; f++)
		fig[f] = NAN;
	if (st->phase == CIRC_LEARN && circ_learn(run, st, err) != FB_OK)
		return FB_ERR;
	if (st->phase == CIRC_EVALUATE) {
		memset(st->rep.ll, 0, sizeof st->rep.ll);
		if (fb_circuit_loglik_add(st->c, run->whole, st->rep.ll, err) != FB_OK)
			return FB_ERR;
		for (int p = 0; p < FB_NPARTS; p++)
			fig[2 + p] = fb_loglik_mean(&st->rep.ll[p]);
	}
	fig[0] = (double)st->rep.stats.nodes;
	fig[1] = (double)st->rep.stats.depth;
	if (st->phase == CIRC_LEARN)
		fb_run_say(run, "learned a circuit of %zu nodes, %zu deep, on %zu training rows by "
		           "splitting rows into clusters and variables into independent groups",
		           st->rep.stats.nodes, st->rep.stats.depth, run->data->n);
	else
		fb_run_say(run, "evaluated the circuit: mean log-likelihood per row %.4g on the "
		           "training rows, %.4g on the validation rows, %.4g on the test rows",
		           fig[2], fig[3], fig[4]);
	st->phase++;
	return FB_OK;
}

/* Finished after both phases. */
static bool circ_done(const fb_run *run)
{
	return ((const circ_state *)run->state)->phase == CIRC_DONE;
}

/* A circuit run has no graph. */
static fb_graph *circ_result(const fb_run *run, fb_error *err)
{
	return fb_fail(err, "%s learns a circuit, not a graph", run->name), NULL;
}

/* The learned circuit. */
static const fb_circuit *circ_circuit(const fb_run *run, fb_error *err)
{
	const circ_state *st = run->state;

	if (st->c == NULL)
		fb_fail(err, "%s has not learned its circuit yet: run it", run->name);
	return st->c;
}

/* The circuit's figures. */
static int circ_report(const fb_run *run, fb_circuit_report *rep, fb_error *err)
{
	const circ_state *st = run->state;

	if (st->c == NULL)
		return fb_fail(err, "%s has not learned its circuit yet: run it", run->name);
	*rep = st->rep;
	return FB_OK;
}

/* Free the state. */
static void circ_destroy(fb_run *run)
{
	circ_state *st = run->state;

	fb_circuit_free(st->c);
	free(st);
	run->state = NULL;
}

/* What the result is; a warning when there are at most min_instances_slice training rows
 * over two or more variables, which LearnSPN factorises into independent leaves at once. */
static const char *circ_note(const fb_run *run)
{
	circ_state *st = run->state;
	size_t n = run->data->n, min = st->o.min_instances_slice;

	if (run->data->d < 2 || n > min || n == 0)
		return "a probabilistic circuit learned on the training rows";
	snprintf(st->note, sizeof st->note, "a probabilistic circuit learned on the training "
	         "rows; note: the %zu training rows are at most min_instances_slice=%zu, so the "
	         "circuit is one product of independent leaves, which models no dependence "
	         "between variables: set min_instances_slice=%zu (half the rows)", n, min,
	         n > 1 ? n / 2 : 1);
	return st->note;
}

/* The figures of each round. */
static const char *const circ_figures[] = { "nodes", "depth", "train_ll", "valid_ll",
	                                    "test_ll", NULL };

/* LearnSPN's options, read from the circuit learner's parameters. */
FB_ALGO_OPTIONS(spn_options, fb_learnspn_options, fb_learnspn_options_init,
		fb_learnspn_options_from_params);

const fb_algo fb_algo_circuit = {
	.name = "circuit", .summary = "a probabilistic circuit (LearnSPN / MSPN) on one dataset",
	.intro = "Learns a probabilistic circuit: a network of sums (mixtures of row clusters), "
	         "products (groups of independent variables) and simple one-variable "
	         "distributions, which answers probability queries exactly. It needs all the "
	         "training rows in one place.",
	.help = "LearnSPN as mixed sum-product networks learn it (Gens and Domingos 2013; "
	        "Molina et al. 2018; SPFlow's learn_mspn defaults): the columns of a slice of "
	        "rows split where the randomized dependence coefficient (RDC) graph falls "
	        "apart at threshold, the rows split by k-means into two clusters, and slices of "
	        "at most min_instances_slice rows are factorised into leaves (the note says so "
	        "when all the training rows are that few, and suggests a smaller value). Leaves are "
	        "histograms (one bin per value of a discrete variable, automatic bins for a "
	        "continuous one, each a normalised density: SPFlow's continuous histograms are "
	        "not) or, with leaves=parametric, Gaussians (variance floor 1e-3) and "
	        "categoricals (Laplace smoothing). Round 1 learns on the training rows; round 2 "
	        "evaluates the log-likelihood of the training, validation and test rows.",
	.flags = FB_ALGO_LOCAL | FB_ALGO_CIRCUIT,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_ONE,
	.params = fb_learnspn_params, .figures = circ_figures,
	.create = circ_create, .step = circ_step, .done = circ_done, .result = circ_result,
	.destroy = circ_destroy, .note = circ_note, .circuit = circ_circuit,
	.circuit_report = circ_report,
	.options = &spn_options,
};

/* A run of circuit holding a given circuit, its learning round done. */
fb_run *fb_circuit_run_from(fb_circuit *c, const fb_dataset *data, fb_error *err)
{
	fb_run_spec spec = { .algo = "circuit", .data = data };
	fb_run *run;
	circ_state *st;

	if (c->nvars != data->d) {
		fb_fail(err, "the circuit is over %zu variables and the dataset has %zu", c->nvars,
		        data->d);
		fb_circuit_free(c);
		return NULL;
	}
	if ((run = fb_run_alloc(&spec, err)) == NULL) {
		fb_circuit_free(c);
		return NULL;
	}
	st = run->state;
	st->c = c;
	st->rep.ncircuits = 1;
	st->phase = CIRC_EVALUATE;
	if (fb_circuit_stats_compute(c, &st->rep.stats, err) != FB_OK) {
		fb_run_free(run);
		return NULL;
	}
	return run;
}
