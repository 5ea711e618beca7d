/* The LearnSPN learner's parameter table and its reading into options: the one place its
 * settings and their defaults are written (the shell and the algorithms use it). */
#include "config.h"

#include <string.h>

#include "fedbn/circuit.h"
#include "fedbn/param.h"

/* leaves=: the leaf families. */
static const fb_choice circ_leaves[] = {
	{ "histogram", FB_LEARN_HISTOGRAM }, { "parametric", FB_LEARN_PARAMETRIC }, { 0 },
};

/* split=: the column splitters. */
static const fb_choice circ_splits[] = {
	{ "rdc", FB_SPLIT_RDC }, { "gtest", FB_SPLIT_GTEST }, { 0 },
};

/* The learner's parameters (ALGORITHMS.md §8.3: SPFlow's learn_mspn defaults). */
const fb_param_def fb_learnspn_params[] = {
	{ "split", FB_PARAM_CHOICE, "rdc", 0, 0, circ_splits,
	  "column splitter: rdc (MSPN) or gtest (LearnSPN's G-test, discrete columns only)" },
	{ "pvalue", FB_PARAM_DOUBLE, "0.001", 0, 1, NULL,
	  "split=gtest: two variables are dependent when the test's p-value is below this" },
	{ "threshold", FB_PARAM_DOUBLE, "0.3", 0, 1, NULL,
	  "variables whose RDC is at least this are dependent (column split)" },
	{ "min_instances_slice", FB_PARAM_INT, "200", 1, 1e9, NULL,
	  "slices of at most this many rows are factorised into leaves" },
	{ "rdc_k", FB_PARAM_INT, "10", 1, 1000, NULL, "random features per variable of the RDC" },
	{ "rdc_s", FB_PARAM_DOUBLE, "0.16666666666666666", 1e-6, 1e6, NULL,
	  "scale of the RDC's random projections (1/6)" },
	{ "leaves", FB_PARAM_CHOICE, "histogram", 0, 0, circ_leaves,
	  "histogram (MSPN) or parametric (Gaussian / categorical) leaves" },
	{ "cluster_first", FB_PARAM_BOOL, "yes", 0, 0, NULL,
	  "split the first slice's rows before trying its columns" },
	{ "seed", FB_PARAM_INT, "17", 0, 9.007199254740992e15, NULL,
	  "seeds the RDC projections and k-means" },
	{ 0 },
};

/* Read the learner's parameters into options. */
void fb_learnspn_options_from_params(const fb_params *p, fb_learnspn_options *o)
{
	memset(o, 0, sizeof *o);
	o->split = (enum fb_learn_split)fb_params_choice(p, "split");
	o->pvalue = fb_params_double(p, "pvalue");
	o->threshold = fb_params_double(p, "threshold");
	o->min_instances_slice = (size_t)fb_params_int(p, "min_instances_slice");
	o->rdc_k = (size_t)fb_params_int(p, "rdc_k");
	o->rdc_s = fb_params_double(p, "rdc_s");
	o->leaves = (enum fb_learn_leaves)fb_params_choice(p, "leaves");
	o->cluster_first = fb_params_bool(p, "cluster_first");
	o->seed = (uint64_t)fb_params_int(p, "seed");
}

/* The defaults: the parameter table, the one place they are written. */
void fb_learnspn_options_init(fb_learnspn_options *o)
{
	fb_params p = fb_params_defaults(fb_learnspn_params);

	fb_learnspn_options_from_params(&p, o);
	fb_params_release(&p);
}
