/* Background knowledge honoured by every graph learner and combinator of the registry: a
 * property test over random knowledge sets (forbidden and required arcs, tiers), half drawn
 * to agree with the truth and half against it, on small simulated data, each result checked
 * with fb_knowledge_violations; circuits refuse knowledge; and a result that ignores the
 * knowledge is caught. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/sim.h"
#include "knowledge-data.h"

/* Knowledge sets drawn in all. */
#define DRAWS 1000
/* Whole-number parameters (iterations, rounds, epochs) are cut to this. */
#define STEPS 3
/* Steps a run takes at most: the final result (or this step's) must honour the knowledge. */
#define MAX_STEPS 400

/* A draw in [0, n). */
static size_t draw(uint64_t *s, size_t n)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (size_t)((*s >> 33) % n);
}

/* Random knowledge over f's variables: with agree, forbidden arcs absent from the truth,
 * required arcs of the truth and tiers along its order; else forbidden true arcs, required
 * reversed ones and tiers against its order.  Statements the knowledge refuses as
 * contradictory are left out. */
static fb_knowledge *random_knowledge(const fixture *f, bool agree, uint64_t *s)
{
	size_t d = f->ds->d, order[16];
	char *const *names = f->truth->names;
	fb_knowledge *k = fb_knowledge_alloc(d, (const char *const *)names);

	assert_int_equal(fb_graph_topo_order(f->truth, order, NULL), FB_OK);
	for (size_t a = 0, n = draw(s, 4); a < n; a++) {
		size_t i = draw(s, d), j = draw(s, d);
		bool arc = fb_graph_has_arc(f->truth, i, j);

		if (i != j && arc == !agree)
			fb_knowledge_forbid(k, i, j, NULL);
		if (i != j && arc)
			fb_knowledge_require(k, agree ? i : j, agree ? j : i, NULL);
	}
	if (draw(s, 2) == 0)
		for (size_t p = 0; p < d; p++)
			fb_knowledge_set_tier(k, order[p], agree ? (int)(1 + 3 * p / d)
			                                         : (int)(3 - 3 * p / d), NULL);
	if (draw(s, 4) == 0)
		fb_knowledge_forbid_within_tier(k, 1 + (int)draw(s, 3), NULL);
	return k;
}

/* Parameters of a (combined) algorithm with every whole number above STEPS cut to STEPS,
 * so that each run is quick. */
static void quick_params(const fb_algo *a, const fb_algo *inner, fb_params *p)
{
	char word[128];

	assert_int_equal(fb_params_init(p, fb_algo_params(a, inner), NULL), FB_OK);
	for (size_t i = 0; i < p->n; i++)
		if (p->defs[i].type == FB_PARAM_INT && p->v[i].i > STEPS) {
			snprintf(word, sizeof word, "%s=%d", p->defs[i].name, STEPS);
			fb_params_set_word(p, word, "test", NULL);
		}
}

/* Results found breaking their knowledge. */
static size_t broken;

/* Run name on f under k to its end; count (in broken) its result or clients' that break k. */
static void check_run(const char *name, const fixture *f, const fb_knowledge *k)
{
	const fb_algo *a, *inner;
	fb_params p;
	fb_error err = { { 0 } };
	fb_run *run;
	fb_run_spec spec = { 0 };

	assert_int_equal(fb_algo_lookup(name, &a, &inner, &err), FB_OK);
	quick_params(a, inner, &p);
	spec.algo = name;
	spec.params = &p;
	spec.data = f->ds;
	spec.part = f->part;
	spec.truth = f->truth;
	spec.knowledge = k;
	run = fb_run_alloc(&spec, &err);
	if (run == NULL)
		fail_msg("%s: %s", name, err.msg);
	for (size_t st = 0; st < MAX_STEPS && !fb_run_done(run); st++)
		assert_int_equal(fb_run_step(run, &err), FB_OK);
	for (size_t c = 0; c <= (inner != NULL ? f->part->k : 0); c++) {
		/* the result, then each client's own (sep:, voting:, avg:, best:) */
		fb_graph *g = c == 0 ? fb_run_result(run, &err)
		                     : fb_run_client_result(run, c - 1, &err);

		if (g != NULL && fb_knowledge_violations(k, g, &err) != 0) {
			print_message("%s%s broke the knowledge: %s\n", name,
			              c > 0 ? " (a client)" : "", err.msg);
			broken++;
		}
		fb_graph_free(g);
	}
	fb_params_release(&p);
	fb_run_free(run);
}

/* The graph algorithms of the registry, combinators over one of two learners; n of them. */
static size_t graph_algos(char names[][64])
{
	static const char *const learners[] = { "ges", "notears" };
	size_t n = 0, c = 0;

	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];

		if ((a->flags & FB_ALGO_CIRCUIT) || !(a->accepts & FB_ACCEPTS_CONTINUOUS))
			continue; /* no graph, or discrete data only (fedc2sl: its own tests) */
		if (!(a->accepts & FB_ACCEPTS_KNOWLEDGE) && !(a->flags & FB_ALGO_COMBINATOR)) {
			/* the PC family is made to honour knowledge on its own */
			if (strncmp(a->name, "pc", 2) == 0 || strncmp(a->name, "fedpc", 5) == 0)
				continue;
			fail_msg("graph learner %s does not take background knowledge", a->name);
		}
		if (a->flags & FB_ALGO_COMBINATOR)
			snprintf(names[n++], 64, "%s:%s", a->name,
			         (a->flags & FB_ALGO_NEEDS_WEIGHTS) ? "notears" : learners[c++ % 2]);
		else
			snprintf(names[n++], 64, "%s", a->name);
	}
	return n;
}

/* DRAWS knowledge sets, spread over every graph algorithm, each result honouring its set. */
static void test_every_algorithm(void **state)
{
	char names[64][64];
	size_t n = graph_algos(names);
	uint64_t s = 42;
	fixture f = { 0 };

	(void)state;
	for (size_t t = 0; t < DRAWS; t++) {
		fb_knowledge *k;

		if (t % 50 == 0) {
			if (t > 0)
				free_data(&f);
			f = make_data(5 + draw(&s, 2), 200 + draw(&s, 101), 1000 + t);
		}
		k = random_knowledge(&f, t % 2 == 0, &s);
		check_run(names[t % n], &f, k);
		fb_knowledge_free(k);
	}
	free_data(&f);
	assert_int_equal(broken, 0);
}

/* Circuits learn no graph: knowledge is refused in one sentence saying so. */
static void test_circuits_refuse(void **state)
{
	static const char *const circuits[] = { "circuit", "fedcircuit", "sep:circuit" };
	fixture f = make_data(5, 200, 7);
	fb_knowledge *k = fb_knowledge_alloc(5, (const char *const *)f.truth->names);

	(void)state;
	assert_int_equal(fb_knowledge_forbid(k, 0, 1, NULL), FB_OK);
	for (size_t i = 0; i < sizeof circuits / sizeof circuits[0]; i++) {
		fb_error err = { { 0 } };
		fb_run_spec spec = { .algo = circuits[i], .data = f.ds, .part = f.part,
		                     .knowledge = k };

		assert_null(fb_run_alloc(&spec, &err));
		assert_non_null(strstr(err.msg, "a circuit learns no graph"));
	}
	fb_knowledge_free(k);
	free_data(&f);
}

/* The check can fail: the truth itself, given knowledge against it, is caught; after
 * fb_honour_graph it passes. */
static void test_ignoring_caught(void **state)
{
	fixture f = make_data(6, 200, 11);
	uint64_t s = 5;
	size_t caught = 0;

	(void)state;
	for (size_t t = 0; t < 200; t++) {
		fb_knowledge *k = random_knowledge(&f, false, &s);
		fb_graph *g = fb_graph_copy(f.truth);

		if (!fb_knowledge_is_empty(k) && fb_knowledge_violations(k, g, NULL) > 0) {
			caught++;
			fb_honour_graph(k, g, true);
			assert_int_equal(fb_knowledge_violations(k, g, NULL), 0);
			assert_true(fb_graph_is_acyclic(g));
		}
		fb_graph_free(g);
		fb_knowledge_free(k);
	}
	assert_true(caught > 50);
	free_data(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ignoring_caught),
		cmocka_unit_test(test_circuits_refuse),
		cmocka_unit_test(test_every_algorithm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
