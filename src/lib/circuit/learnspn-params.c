/* The LearnSPN learner's parameter table and its reading into options: the one place its
 * settings and their defaults are written (the shell and the algorithms use it). */
#include "config.h"

#include <string.h>

#include "fedbn/circuit.h"
#include "fedbn/param.h"

/* leaves=: the leaf families. */
const fb_choice fb_learnspn_leaves[] = {
	{ "histogram", FB_LEARN_HISTOGRAM }, { "parametric", FB_LEARN_PARAMETRIC }, { 0 },
};

/* split=: the column splitters. */
const fb_choice fb_learnspn_splits[] = {
	{ "rdc", FB_SPLIT_RDC }, { "gtest", FB_SPLIT_GTEST }, { 0 },
};

/* The learner's parameters (ALGORITHMS.md §8.3: SPFlow's learn_mspn defaults). */
const fb_param_def fb_learnspn_params[] = {
	FB_LEARNSPN_PARAM_DEFS,
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
