/* Unit tests of background knowledge: what each statement forbids and requires, the
 * contradictions refused (knowledge unchanged), counts, violations and renaming. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fedbn/knowledge.h"

/* Variable names A..E used throughout. */
static const char *const names[] = { "A", "B", "C", "D", "E" };

/* Fail unless err holds exactly want. */
static void assert_sentence(const fb_error *err, const char *want)
{
	if (strcmp(err->msg, want) != 0)
		fail_msg("error '%s', want '%s'", err->msg, want);
}

/* Forbidding, requiring and tiers answer the learners' questions. */
static void test_questions(void **state)
{
	fb_knowledge *k = fb_knowledge_alloc(5, names);
	fb_error err = { "" };

	(void)state;
	assert_true(fb_knowledge_is_empty(k));
	assert_int_equal(fb_knowledge_forbid(k, 0, 1, &err), FB_OK);
	assert_true(fb_knowledge_forbids(k, 0, 1));
	assert_false(fb_knowledge_forbids(k, 1, 0));
	assert_false(fb_knowledge_forbids_pair(k, 0, 1));
	assert_int_equal(fb_knowledge_require(k, 2, 3, &err), FB_OK);
	assert_true(fb_knowledge_requires(k, 2, 3));
	assert_true(fb_knowledge_forbids(k, 3, 2));
	assert_false(fb_knowledge_forbids(k, 2, 3));
	assert_int_equal(fb_knowledge_set_tier(k, 4, 1, &err), FB_OK);
	assert_int_equal(fb_knowledge_set_tier(k, 0, 2, &err), FB_OK);
	assert_true(fb_knowledge_forbids(k, 0, 4));
	assert_false(fb_knowledge_forbids(k, 4, 0));
	assert_false(fb_knowledge_forbids(k, 1, 4)); /* B is in no tier */
	assert_false(fb_knowledge_is_empty(k));
	fb_knowledge_free(k);
}

/* Tiers that forbid arcs within them make a pair forbidden both ways. */
static void test_within_tier(void **state)
{
	fb_knowledge *k = fb_knowledge_alloc(5, names);
	fb_error err = { "" };

	(void)state;
	fb_knowledge_set_tier(k, 0, 2, &err);
	fb_knowledge_set_tier(k, 1, 2, &err);
	assert_false(fb_knowledge_forbids(k, 0, 1));
	assert_int_equal(fb_knowledge_forbid_within_tier(k, 2, &err), FB_OK);
	assert_true(fb_knowledge_forbids_pair(k, 0, 1));
	assert_int_equal(fb_knowledge_n_tiers(k), 1);
	assert_int_equal(fb_knowledge_n_forbidden(k), 2);
	fb_knowledge_free(k);
}

/* Each contradiction is refused in one sentence and changes nothing. */
static void test_contradictions(void **state)
{
	fb_knowledge *k = fb_knowledge_alloc(5, names);
	fb_error err = { "" };

	(void)state;
	fb_knowledge_forbid(k, 0, 1, &err);
	assert_int_equal(fb_knowledge_require(k, 0, 1, &err), FB_ERR);
	assert_sentence(&err, "A->B is forbidden, so it cannot also be required");
	fb_knowledge_require(k, 1, 2, &err);
	assert_int_equal(fb_knowledge_forbid(k, 1, 2, &err), FB_ERR);
	assert_sentence(&err, "B->C is required, so it cannot also be forbidden");
	assert_int_equal(fb_knowledge_require(k, 2, 1, &err), FB_ERR);
	assert_sentence(&err, "B->C is required, so C->B cannot also be");
	fb_knowledge_require(k, 2, 3, &err);
	assert_int_equal(fb_knowledge_require(k, 3, 1, &err), FB_ERR);
	assert_sentence(&err, "required arcs would form a cycle: D->B->C->D");
	fb_knowledge_set_tier(k, 2, 1, &err);
	assert_int_equal(fb_knowledge_set_tier(k, 1, 2, &err), FB_ERR);
	assert_sentence(&err, "B->C cannot be required: B is in tier 2, after C's tier 1");
	assert_int_equal(fb_knowledge_tier(k, 1), 0);
	fb_knowledge_set_tier(k, 1, 1, &err);
	assert_int_equal(fb_knowledge_forbid_within_tier(k, 1, &err), FB_ERR);
	assert_sentence(&err, "B->C cannot be required: both are in tier 1, which forbids arcs "
	                      "within it");
	assert_false(fb_knowledge_within_forbidden(k, 1));
	assert_int_equal(fb_knowledge_require(k, 4, 4, &err), FB_ERR);
	assert_sentence(&err, "an arc from E to itself cannot be stated");
	assert_int_equal(fb_knowledge_n_required(k), 2);
	fb_knowledge_free(k);
}

/* Violations: forbidden arc present, required arc absent or reversed or undirected, an
 * arc into an earlier tier; a graph that keeps everything has none. */
static void test_violations(void **state)
{
	fb_knowledge *k = fb_knowledge_alloc(5, names);
	fb_graph *g = fb_graph_alloc(5);
	fb_error err = { "" };

	(void)state;
	fb_knowledge_forbid(k, 0, 1, &err);
	fb_knowledge_require(k, 2, 3, &err);
	fb_knowledge_set_tier(k, 4, 1, &err);
	fb_knowledge_set_tier(k, 1, 2, &err);
	fb_graph_set_directed(g, 2, 3, 1);
	fb_graph_set_directed(g, 1, 0, 1);
	fb_graph_set_directed(g, 4, 1, 1);
	assert_int_equal(fb_knowledge_violations(k, g, &err), 0);
	fb_graph_set_directed(g, 0, 1, 1);
	assert_int_equal(fb_knowledge_violations(k, g, &err), 1);
	assert_sentence(&err, "forbidden arc A->B is present");
	fb_graph_set_undirected(g, 2, 3);
	assert_int_equal(fb_knowledge_violations(k, g, &err), 2);
	fb_graph_remove(g, 0, 1);
	assert_int_equal(fb_knowledge_violations(k, g, &err), 1);
	assert_sentence(&err, "required arc C->D is undirected");
	fb_graph_set_directed(g, 3, 2, 1);
	fb_graph_set_directed(g, 1, 4, 1);
	assert_int_equal(fb_knowledge_violations(k, g, &err), 2);
	assert_sentence(&err, "forbidden arc B->E is present");
	fb_graph_free(g);
	fb_knowledge_free(k);
}

/* Captions count required arcs, forbidden ordered pairs and tiers. */
static void test_caption(void **state)
{
	fb_knowledge *k = fb_knowledge_alloc(5, names);
	fb_error err = { "" };
	char buf[80];

	(void)state;
	fb_knowledge_caption(k, buf, sizeof buf);
	assert_string_equal(buf, "");
	fb_knowledge_require(k, 0, 1, &err);
	fb_knowledge_forbid(k, 2, 3, &err);
	fb_knowledge_set_tier(k, 3, 1, &err);
	fb_knowledge_set_tier(k, 4, 2, &err);
	fb_knowledge_caption(k, buf, sizeof buf);
	/* B->A (the required arc's reverse), C->D, E->D */
	assert_string_equal(buf, "knowledge: 1 required, 3 forbidden, 2 tiers");
	fb_knowledge_clear(k);
	assert_true(fb_knowledge_is_empty(k));
	fb_knowledge_free(k);
}

/* Renaming carries statements whose variables exist and names those dropped. */
static void test_rename(void **state)
{
	static const char *const other[] = { "C", "A", "Z" };
	fb_knowledge *k = fb_knowledge_alloc(5, names), *c, *e;
	fb_error err = { "" };
	char dropped[64];

	(void)state;
	fb_knowledge_require(k, 0, 2, &err);
	fb_knowledge_forbid(k, 1, 0, &err);
	fb_knowledge_set_tier(k, 2, 3, &err);
	fb_knowledge_forbid_within_tier(k, 3, &err);
	c = fb_knowledge_rename(k, 3, other, dropped, sizeof dropped);
	assert_string_equal(dropped, "B");
	assert_true(fb_knowledge_requires(c, 1, 0));
	assert_int_equal(fb_knowledge_tier(c, 0), 3);
	assert_true(fb_knowledge_within_forbidden(c, 3));
	assert_int_equal(fb_knowledge_n_required(c), 1);
	e = fb_knowledge_copy(c);
	assert_true(fb_knowledge_requires(e, 1, 0));
	fb_knowledge_free(e);
	fb_knowledge_free(c);
	fb_knowledge_free(k);
}

/* Write text into a new temporary file; its path into path (room for 64). */
static void temp_file(char *path, const char *text)
{
	int fd;
	FILE *fp;

	strcpy(path, "/tmp/fedbn-knowledge-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* Read text as a knowledge file over names A..E: the knowledge, or NULL with err set. */
static fb_knowledge *read_text(const char *text, fb_error *err, char *path)
{
	fb_knowledge *k;

	temp_file(path, text);
	k = fb_knowledge_read(path, 5, names, err);
	unlink(path);
	return k;
}

/* Tetrad's text: tiers (2* forbids arcs within), forbidden and required arcs, comments and
 * blank lines; writing it back and reading that gives the same knowledge. */
static void test_read_tetrad(void **state)
{
	fb_error err = { "" };
	char path[64], again[64];
	fb_knowledge *k = read_text("/knowledge\n# a comment\naddtemporal\n1 A B\n2* C D\n\n"
	                            "forbiddirect\nE A\nrequiredirect\nA C\n", &err, path);
	fb_knowledge *b;

	(void)state;
	assert_non_null(k);
	assert_int_equal(fb_knowledge_tier(k, 1), 1);
	assert_true(fb_knowledge_within_forbidden(k, 2));
	assert_true(fb_knowledge_forbids_pair(k, 2, 3));
	assert_true(fb_knowledge_forbidden_directly(k, 4, 0));
	assert_true(fb_knowledge_requires(k, 0, 2));
	strcpy(again, "/tmp/fedbn-knowledge-again");
	assert_int_equal(fb_knowledge_write(k, again, &err), FB_OK);
	b = fb_knowledge_read(again, 5, names, &err);
	unlink(again);
	assert_non_null(b);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(fb_knowledge_tier(b, i), fb_knowledge_tier(k, i));
		for (size_t j = 0; j < 5; j++) {
			assert_true(fb_knowledge_forbids(b, i, j) == fb_knowledge_forbids(k, i, j));
			assert_true(fb_knowledge_requires(b, i, j) == fb_knowledge_requires(k, i, j));
		}
	}
	fb_knowledge_free(b);
	fb_knowledge_free(k);
}

/* bnlearn-style CSV: whitelist rows required, blacklist rows forbidden. */
static void test_read_csv(void **state)
{
	fb_error err = { "" };
	char path[64];
	fb_knowledge *k = read_text("from,to,type\nA,B,whitelist\n\"C\",\"D\",blacklist\n",
	                            &err, path);

	(void)state;
	assert_non_null(k);
	assert_true(fb_knowledge_requires(k, 0, 1));
	assert_true(fb_knowledge_forbidden_directly(k, 2, 3));
	assert_int_equal(fb_knowledge_n_required(k), 1);
	fb_knowledge_free(k);
}

/* Each bad file is refused in one sentence naming its line and column. */
static void test_read_errors(void **state)
{
	static const struct {
		const char *text, *want; /* want: what follows "PATH:" */
	} bad[] = {
		{ "/knowledge\naddtemporal\n1 A Z\n", "3:5: 'Z' is not a variable of the data" },
		{ "/knowledge\nA B\n", "2:1: 'A' comes before any section (addtemporal, "
		                         "forbiddirect or requiredirect)" },
		{ "/knowledge\naddtemporal\nx A\n", "3:1: 'x' is not a tier number (1, 2, ..., or "
		                                       "2* to forbid arcs within tier 2)" },
		{ "/knowledge\nforbiddirect\nA B C\n", "3:1: an arc is two names, FROM TO, not 3 "
		                                          "words" },
		{ "/knowledge\nforbiddirect\nA B\nrequiredirect\nA B\n",
		  "5:1: A->B is forbidden, so it cannot also be required" },
		{ "/knowledge\nrequiredirect\nA B\nB C\nC A\n",
		  "5:1: required arcs would form a cycle: C->A->B->C" },
		{ "from,to,type\nA,B,maybe\n", "2:5: 'maybe' is neither whitelist nor blacklist" },
		{ "a,b\n", "1:1: a knowledge CSV needs columns 'from' and 'to' (and one saying "
		            "whitelist or blacklist), or a Tetrad file starting '/knowledge'" },
	};
	fb_error err = { "" };
	char path[64], want[512];

	(void)state;
	for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
		assert_null(read_text(bad[c].text, &err, path));
		snprintf(want, sizeof want, "%s:%s", path, bad[c].want);
		assert_sentence(&err, want);
	}
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_questions),    cmocka_unit_test(test_within_tier),
		cmocka_unit_test(test_contradictions), cmocka_unit_test(test_violations),
		cmocka_unit_test(test_caption),      cmocka_unit_test(test_rename),
		cmocka_unit_test(test_read_tetrad),  cmocka_unit_test(test_read_csv),
		cmocka_unit_test(test_read_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
