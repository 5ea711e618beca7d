/* Simulated data for the background-knowledge tests. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fedbn/sim.h"
#include "knowledge-data.h"

/* Simulate d variables and n rows with seed, and split them. */
fixture make_data(size_t d, size_t n, uint64_t seed)
{
	fb_sim_options o;
	fb_split_options so;
	fixture f;
	fb_error err;

	fb_sim_options_init(&o);
	o.d = d;
	o.edges = d;
	o.n = n;
	o.seed = seed;
	assert_int_equal(fb_sim_generate(&o, &f.ds, &f.truth, &err), FB_OK);
	fb_split_options_init(&so);
	f.part = fb_split(f.ds, FB_SPLIT_HORIZONTAL, 3, &so, &err);
	assert_non_null(f.part);
	return f;
}

/* Free a fixture. */
void free_data(fixture *f)
{
	fb_partition_free(f->part);
	fb_graph_free(f->truth);
	fb_dataset_free(f->ds);
}
