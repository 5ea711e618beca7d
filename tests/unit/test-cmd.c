/* Tests of the shell's command layer: line splitting, name lookup, completion, parameters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "fedbn/partition.h"
#include "fedbn/sim.h"
#include "fedbn/algo.h"
#include "fedbn/fedpc.h"
#include "fedbn/param.h"
#include "../../src/cli/cmd.h"
#include "../../src/cli/session.h"

/* Split line and check the expected words; expected is "w1|w2;w3" (';' between commands). */
static void check_split(const char *line, const char *expected)
{
	fb_error err = { { 0 } };
	char ***cmds;
	int n = fb_cmd_split_line(line, &cmds, &err);
	fb_buf got = { 0 };

	assert_true(n >= 0);
	for (int c = 0; c < n; c++)
		for (size_t w = 0; cmds[c][w] != NULL; w++)
			fb_buf_printf(&got, "%s%s", w ? "|" : (c ? ";" : ""), cmds[c][w]);
	assert_string_equal(got.data != NULL ? got.data : "", expected);
	fb_buf_release(&got);
	fb_cmd_free_split(cmds, n);
}

/* Words, commands, quotes, escapes and comments. */
static void test_split_line(void **state)
{
	check_split("gen er d=10", "gen|er|d=10");
	check_split("  gen   er\td=10  ", "gen|er|d=10");
	check_split("a; b c ;; d", "a;b|c;d");
	check_split("load \"my file.csv\"", "load|my file.csv");
	check_split("load 'a;b.csv' x", "load|a;b.csv|x");
	check_split("echo \"say \\\"hi\\\"\"", "echo|say \"hi\"");
	check_split("echo a\\ b", "echo|a b");
	check_split("split vertical 2 cols=\"a,b;c\"", "split|vertical|2|cols=a,b;c");
	check_split("echo a # a comment; not a command", "echo|a");
	check_split("echo a#b", "echo|a#b");
	check_split("echo \"\" x", "echo||x");
	check_split("# only a comment", "");
	check_split("", "");
}

/* An unterminated quote names its column. */
static void test_split_unterminated(void **state)
{
	fb_error err = { { 0 } };
	char ***cmds;

	assert_int_equal(fb_cmd_split_line("load \"abc", &cmds, &err), -1);
	assert_string_equal(err.msg, "column 6: unterminated double quote");
	assert_int_equal(fb_cmd_split_line("echo ok; echo 'x", &cmds, &err), -1);
	assert_string_equal(err.msg, "column 15: unterminated single quote");
}

/* Exact names, aliases, unique prefixes, ambiguity and suggestions. */
static void test_find(void **state)
{
	fb_error err = { { 0 } };

	assert_ptr_equal(fb_cmd_find("split", &err), &fb_cmd_split);
	assert_ptr_equal(fb_cmd_find("exit", &err), &fb_cmd_quit);
	assert_ptr_equal(fb_cmd_find("cli", &err), &fb_cmd_clients);
	assert_ptr_equal(fb_cmd_find("cla", &err), &fb_cmd_classify);
	assert_ptr_equal(fb_cmd_find("ex", &err), &fb_cmd_export);
	assert_null(fb_cmd_find("s", &err));
	assert_string_equal(err.msg, "ambiguous command 's', could be: save, sample, split, set, step, sweep, seed, source, session");
	assert_null(fb_cmd_find("laod", &err));
	assert_string_equal(err.msg, "unknown command 'laod' (did you mean 'load'?)");
	assert_null(fb_cmd_find("zzzzzz", &err));
	assert_string_equal(err.msg, "unknown command 'zzzzzz' (type 'help' for the list)");
}

/* Join the completion candidates in session s (may be NULL) with '|' for comparison. */
static char *complete_in(const fb_session *s, const char *line, const char *text, bool *files)
{
	char **c = fb_cmd_complete(s, line, strlen(line) - strlen(text), text, files);
	fb_buf b = { 0 };

	for (size_t i = 0; c[i] != NULL; i++) {
		fb_buf_printf(&b, "%s%s", i ? "|" : "", c[i]);
		free(c[i]);
	}
	free(c);
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* Join the completion candidates outside any session with '|'. */
static char *complete_str(const char *line, const char *text, bool *files)
{
	return complete_in(NULL, line, text, files);
}

/* The candidates of line in s (the word being completed is the text after the last blank)
 * are expected ("a|b|c"). */
static void check_complete(const fb_session *s, const char *line, const char *expected)
{
	const char *blank = strrchr(line, ' ');
	bool files;
	char *got = complete_in(s, line, blank != NULL ? blank + 1 : line, &files);

	assert_string_equal(got, expected);
	free(got);
}

/* Completion of line (ending in a word that starts with prefix, or in a blank when prefix
 * is NULL) offers what the algorithm table holds: with no prefix every learner and every
 * "combinator:", in the table's order; after "combinator:" each learner it takes (as
 * fb_algo_lookup accepts). */
static void check_complete_table(const fb_session *s, const char *line, const char *prefix)
{
	fb_buf want = { 0 };

	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i], *al, *inner;
		bool comb = (a->flags & FB_ALGO_COMBINATOR) != 0;
		char *full = fb_xasprintf("%s%s", prefix != NULL ? prefix : "", a->name);
		fb_error err = { { 0 } };

		if (prefix == NULL)
			fb_buf_printf(&want, "%s%s%s", want.len ? "|" : "", a->name, comb ? ":" : "");
		else if (fb_algo_lookup(full, &al, &inner, &err) == FB_OK)
			fb_buf_printf(&want, "%s%s", want.len ? "|" : "", full);
		free(full);
	}
	check_complete(s, line, want.data != NULL ? want.data : "");
	fb_buf_release(&want);
}

/* Algorithm names, the chosen algorithm's parameters, and the values of choices complete
 * from the algorithm tables, as commands do from the command table. */
static void test_complete_algo(void **state)
{
	fb_error err = { { 0 } };
	int dropped;
	fb_session s;

	(void)state;
	fb_session_init(&s);
	check_complete_table(&s, "algo ", NULL);
	check_complete(&s, "algo fedpc-", "fedpc-simple1|fedpc-simple2");
	check_complete_table(&s, "algo avg:", "avg:");
	check_complete(&s, "algo voting:p", "voting:pc");
	check_complete(&s, "help algo n", "notears|notears-admm|notears-mlp|notears-mlp-admm");
	check_complete(&s, "help al", "algos|algo");
	check_complete(&s, "set ", "threads=|share=|reuse=|secure=|t=|secure_bits=|dp_epsilon=|"
	                                  "dp_delta=|dp_sigma=|dp_clip=");
	assert_int_equal(fb_session_set_algo(&s, "notears-admm", &err), FB_OK);
	check_complete(&s, "set la", "lambda=");
	check_complete(&s, "set lambda=0.1 so", "solver=");
	check_complete(&s, "set solver=", "solver=owlqn|solver=subgradient|solver=lbfgsb");
	check_complete(&s, "set th", "threshold=|threads=");
	assert_int_equal(fb_session_set_algo(&s, "voting:pc", &err), FB_OK);
	check_complete(&s, "set vote=0.2 colliders=o", "colliders=order");
	check_complete(&s, "set test=", "test=auto|test=fisher-z|test=g2|test=chi2|test=kci|test=dg");
	check_complete(&s, "split horizontal 3 sizes=", "sizes=even|sizes=uneven|sizes=dirichlet");
	check_complete(&s, "load x.csv discrete=a", "discrete=all|discrete=auto");
	check_complete(&s, "circuit ", "save|load|run=|force=");
	check_complete(&s, "export x.svg what=c",
	               "what=compare|what=circuit|what=clients|what=consensus");
	check_complete(&s, "sample from=", "from=file|from=circuit|from=fit");
	check_complete(&s, "query ", "p(|mpe");
	check_complete(&s, "query p(", "");
	check_complete(&s, "classify ", "run=|positive=");
	fb_session_set_data(&s, fb_dataset_alloc(3, 2), "test", NULL, NULL, &dropped);
	check_complete(&s, "query p(X", "p(X1=|p(X2=");
	check_complete(&s, "query mpe X", "X1=|X2=");
	check_complete(&s, "classify X", "X1|X2");
	assert_int_equal(fb_session_set_algo(&s, "circuit", &err), FB_OK);
	check_complete(&s, "set split=", "split=rdc|split=gtest");
	fb_session_release(&s);
}

/* Fail naming the algorithm when the two option structs (zeroed padding included) differ. */
static void check_same_bytes(const char *name, const void *lib, const void *shell, size_t size)
{
	if (memcmp(lib, shell, size) != 0)
		fail_msg("%s: the library's default options differ from those its parameter table "
		         "gives the shell", name);
}

/* The library's defaults (the learner's options init) are the values the shell starts an
 * algorithm with (its parameter table, as 'algo NAME' sets them), for every algorithm and
 * every combination: one source.  A learner with parameters must name its options. */
static void check_same_defaults(const char *name, const fb_algo *learner,
                                const fb_params *shell)
{
	const fb_algo_options *o = learner->options;
	void *lib, *sh;

	if (o == NULL) {
		if (fb_param_table_len(learner->params) > 0)
			fail_msg("%s: %s has parameters but names no options struct to check their "
			         "defaults against", name, learner->name);
		return;
	}
	lib = fb_xcalloc(1, o->size);
	sh = fb_xcalloc(1, o->size);
	o->init(lib);
	o->from_params(shell, sh);
	check_same_bytes(name, lib, sh, o->size);
	free(lib);
	free(sh);
}

/* Every algorithm (and combination) starts with the library's defaults. */
static void test_defaults_one_source(void **state)
{
	(void)state;
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		for (size_t j = 0; fb_algo_table[j] != NULL; j++) {
			const fb_algo *a = fb_algo_table[i], *al, *inner;
			bool comb = (a->flags & FB_ALGO_COMBINATOR) != 0;
			char *name = comb ? fb_xasprintf("%s:%s", a->name, fb_algo_table[j]->name)
			                  : fb_xstrdup(a->name);
			fb_error err = { { 0 } };
			fb_session s;

			fb_session_init(&s);
			if ((comb || j == 0) && fb_algo_lookup(name, &al, &inner, &err) == FB_OK) {
				assert_int_equal(fb_session_set_algo(&s, name, &err), FB_OK);
				check_same_defaults(name, inner != NULL ? inner : al, &s.params);
			}
			fb_session_release(&s);
			free(name);
		}
	}
}

/* gen, split and load start from the library's option defaults: the defaults their tables
 * show in help are the values fb_sim_options_init, fb_split_options_init and
 * fb_csv_options_init give. */
static void test_command_defaults(void **state)
{
	fb_params gen = fb_params_defaults(fb_cmd_gen.params);
	fb_params split = fb_params_defaults(fb_cmd_split.params);
	fb_params load = fb_params_defaults(fb_cmd_load.params);
	fb_sim_options so;
	fb_split_options sp;
	fb_csv_options co;

	(void)state;
	fb_sim_options_init(&so);
	fb_split_options_init(&sp);
	fb_csv_options_init(&co);
	assert_int_equal(fb_params_int(&gen, "d"), so.d);
	assert_int_equal(fb_params_int(&gen, "n"), so.n);
	assert_int_equal(fb_params_choice(&gen, "noise"), so.noise);
	assert_int_equal(fb_params_choice(&gen, "sem"), so.sem);
	assert_true(fb_params_double(&gen, "scale") == so.noise_scale);
	assert_true(fb_params_double(&gen, "wmin") == so.wmin);
	assert_true(fb_params_double(&gen, "wmax") == so.wmax);
	assert_string_equal(fb_params_str(&split, "sizes"), "even");
	assert_int_equal(sp.sizes, FB_SIZES_EVEN);
	assert_true(fb_params_double(&split, "alpha") == sp.alpha);
	assert_int_equal(fb_params_bool(&split, "shuffle"), sp.shuffle != 0);
	assert_true(fb_params_double(&split, "overlap") == sp.overlap);
	assert_int_equal(fb_params_choice(&load, "delim"), co.delim);
	assert_int_equal(fb_params_choice(&load, "header"), co.header);
	assert_int_equal(fb_params_int(&load, "levels"), co.max_levels);
	assert_int_equal(fb_params_choice(&load, "na"), co.na);
	assert_string_equal(fb_params_str(&load, "discrete"), "none");
	assert_int_equal(co.discrete, FB_DISCRETE_NONE);
	fb_params_release(&gen);
	fb_params_release(&split);
	fb_params_release(&load);
}

/* The words of text in order, one blank between each: what wrapping must keep. */
static char *words_of(const char *text)
{
	fb_buf b = { 0 };

	while (*text != '\0') {
		size_t blanks = strspn(text, " \n"), len;

		text += blanks;
		len = strcspn(text, " \n");
		if (len > 0)
			fb_buf_printf(&b, "%s%.*s", b.data != NULL ? " " : "", (int)len, text);
		text += len;
	}
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* fb_cmd_print_wrapped(text, width, indent) as a string. */
static char *wrapped(const char *text, size_t width, size_t indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	fprintf(fp, "%*s", (int)indent, "");
	fb_cmd_print_wrapped(fp, text, width, indent);
	fclose(fp);
	return buf;
}

/* Help text wraps at word boundaries: at every width no line is longer than the width
 * (unless a single word is), no word is split or lost, continuation lines keep the indent,
 * and each line holds as many words as fit. */
static void test_wrap(void **state)
{
	const char *text = fb_algo_fedpc.help;
	const size_t widths[] = { 20, 40, 61, 78, 98, 132 };

	(void)state;
	for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
		for (size_t indent = 0; indent <= 12; indent += 12) {
			char *out = wrapped(text, widths[w], indent), *got = words_of(out);
			char *want = words_of(text);
			const char *line = out;

			assert_string_equal(got, want);
			for (size_t n = 0; *line != '\0'; n++) {
				size_t len = strcspn(line, "\n");
				const char *next = line[len] != '\0' ? line + len + 1 : line + len;
				size_t first = strcspn(line + strspn(line, " "), " \n");
				size_t next_word = strcspn(next + strspn(next, " "), " \n");

				if (len > widths[w] && strspn(line, " ") + first < len)
					fail_msg("width %zu: line %zu has %zu columns", widths[w], n, len);
				if (n > 0 && strspn(line, " ") != indent)
					fail_msg("width %zu: line %zu is not indented by %zu", widths[w], n,
					         indent);
				if (*next != '\0' && len + 1 + next_word <= widths[w])
					fail_msg("width %zu: line %zu could hold the next word", widths[w],
					         n);
				line = next;
			}
			free(got);
			free(want);
			free(out);
		}
	}
}

/* The wrapping width: COLUMNS when the output is no terminal, 80 without it, less 2. */
static void test_width(void **state)
{
	FILE *fp = tmpfile();

	(void)state;
	assert_non_null(fp);
	setenv("COLUMNS", "50", 1);
	assert_int_equal(fb_cmd_width(fp), 48);
	setenv("COLUMNS", "200", 1);
	assert_int_equal(fb_cmd_width(fp), 198);
	setenv("COLUMNS", "wide", 1);
	assert_int_equal(fb_cmd_width(fp), 78);
	setenv("COLUMNS", "5", 1);
	assert_int_equal(fb_cmd_width(fp), 20);
	unsetenv("COLUMNS");
	assert_int_equal(fb_cmd_width(fp), 78);
	fclose(fp);
}

/* What line prints in a fresh session (caller frees). */
static char *output_of(const char *line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	fb_cmd_ctx ctx = { .out = fp, .err = fp };
	fb_session s;

	assert_non_null(fp);
	fb_session_init(&s);
	ctx.s = &s;
	fb_cmd_run_line(&ctx, line);
	fclose(fp);
	fb_session_release(&s);
	return buf;
}

/* Check that text at *at is the line "  NAME SUMMARY[ [federated]]" of algorithm a, its name
 * in a column of width; move *at past it. */
static void check_algos_line(const char **at, const fb_algo *a, int width)
{
	bool fed = !(a->flags & FB_ALGO_COMBINATOR) && (a->accepts & FB_ACCEPTS_SPLITS);
	char *want = fb_xasprintf("  %-*s %s%s\n", width, a->name, a->summary,
	                          fed ? " [federated]" : "");

	if (strncmp(*at, want, strlen(want)) != 0)
		fail_msg("algos: expected the line '%s' at '%.60s'", want, *at);
	*at += strlen(want);
	free(want);
}

/* 'algos' lists the registry: the learners under one heading, then the combinators under
 * another, each in the table's order with its summary, names in a column as wide as the
 * longest; nothing else. */
static void test_algos_lists_registry(void **state)
{
	static const char *const heads[] = { "learners:\n", "combinators over a learner (write "
		                             "COMBINATOR:LEARNER, e.g. voting:notears):\n" };
	char *out = output_of("algos");
	const char *at = out;
	int width = 14;

	(void)state;
	for (size_t i = 0; fb_algo_table[i] != NULL; i++)
		if ((int)strlen(fb_algo_table[i]->name) > width)
			width = (int)strlen(fb_algo_table[i]->name);
	for (int comb = 0; comb <= 1; comb++) {
		assert_memory_equal(at, heads[comb], strlen(heads[comb]));
		at += strlen(heads[comb]);
		for (size_t i = 0; fb_algo_table[i] != NULL; i++)
			if (((fb_algo_table[i]->flags & FB_ALGO_COMBINATOR) != 0) == comb)
				check_algos_line(&at, fb_algo_table[i], width);
	}
	assert_string_equal(at, "");
	free(out);
}

/* 'help algo NAME' describes every algorithm of the registry (a combinator over notears). */
static void test_help_every_algo(void **state)
{
	(void)state;
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];
		bool comb = (a->flags & FB_ALGO_COMBINATOR) != 0;
		char *line = fb_xasprintf("help algo %s%s", a->name, comb ? ":notears" : "");
		char *want = fb_xasprintf("%s: %s\n", a->name, a->summary), *out = output_of(line);

		if (strncmp(out, want, strlen(want)) != 0)
			fail_msg("%s: printed '%.80s'", line, out);
		free(out);
		free(want);
		free(line);
	}
}

/* Every algorithm has a plain introduction besides its precise help. */
static void test_algo_texts(void **state)
{
	(void)state;
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];

		assert_non_null(a->intro);
		assert_non_null(a->help);
		assert_true(strlen(a->intro) > 60);
		assert_string_not_equal(a->intro, a->help);
	}
}

/* Completion of command names, first words, key= names, choice values and files. */
static void test_complete(void **state)
{
	bool files;
	char *s;

	s = complete_str("sp", "sp", &files);
	assert_string_equal(s, "split");
	assert_false(files);
	free(s);
	s = complete_str("s", "s", &files);
	assert_string_equal(s, "save|sample|split|set|step|sweep|seed|source|session");
	free(s);
	s = complete_str("split h", "h", &files);
	assert_string_equal(s, "horizontal|hybrid");
	free(s);
	s = complete_str("session ", "", &files);
	assert_string_equal(s, "save|force=");
	assert_false(files);
	free(s);
	s = complete_str("session save s", "s", &files);
	assert_true(files);
	free(s);
	s = complete_str("rep", "rep", &files);
	assert_string_equal(s, "report");
	free(s);
	s = complete_str("report ", "", &files);
	assert_string_equal(s, "out=|paths=|force=");
	free(s);
	s = complete_str("hi", "hi", &files);
	assert_string_equal(s, "history");
	free(s);
	s = complete_str("split horizontal 4 sh", "sh", &files);
	assert_string_equal(s, "shuffle=|shared=");
	free(s);
	s = complete_str("gen er noise=g", "noise=g", &files);
	assert_string_equal(s, "noise=gauss|noise=gumbel");
	free(s);
	s = complete_str("load x.csv na=", "na=", &files);
	assert_string_equal(s, "na=error|na=drop");
	free(s);
	s = complete_str("load da", "da", &files);
	assert_string_equal(s, "");
	assert_true(files);
	free(s);
	s = complete_str("echo hi; he", "he", &files);
	assert_string_equal(s, "help|head");
	free(s);
	s = complete_str("help cli", "cli", &files);
	assert_string_equal(s, "clients");
	free(s);
	s = complete_str("sweep K=2,4 j", "j", &files);
	assert_string_equal(s, "jobs=");
	free(s);
	s = complete_str("sweep K=2,4 resume=", "resume=", &files);
	assert_string_equal(s, "resume=yes|resume=no");
	free(s);
	s = complete_str("plot k.csv err=", "err=", &files);
	assert_string_equal(s, "err=se|err=sd|err=none");
	free(s);
	s = complete_str("plot tr", "tr", &files);
	assert_string_equal(s, "trace");
	assert_true(files);
	free(s);
	s = complete_str("plot k.csv lo", "lo", &files);
	assert_string_equal(s, "logx=|logy=");
	free(s);
}

/* sweep's words: its own keys are parameters, any other NAME=VALUES is a grid variable; a
 * command without free parameters still refuses an unknown key. */
static void test_free_params(void **state)
{
	static char w0[] = "sweep", w1[] = "K=2,4", w2[] = "jobs=3", w3[] = "seed=1..2",
		w4[] = "do=run", v0[] = "split", v1[] = "horizontal", v2[] = "2", v3[] = "K=2";
	static char *sweep_words[] = { w0, w1, w2, w3, w4, NULL };
	static char *split_words[] = { v0, v1, v2, v3, NULL };
	fb_session s;
	fb_cmd_ctx ctx = { .s = &s, .out = stdout, .err = stderr };
	fb_cmd_args a;

	(void)state;
	fb_session_init(&s);
	assert_ptr_equal(fb_cmd_parse_words(&ctx, sweep_words, &a), &fb_cmd_sweep);
	assert_int_equal(a.argc, 2);
	assert_string_equal(a.argv[0], "K=2,4");
	assert_string_equal(a.argv[1], "seed=1..2");
	assert_int_equal(fb_params_int(&a.params, "jobs"), 3);
	assert_string_equal(fb_params_str(&a.params, "do"), "run");
	fb_cmd_args_release(&a);
	assert_null(fb_cmd_parse_words(&ctx, split_words, &a));
	fb_cmd_args_release(&a);
	fb_session_release(&s);
}

/* Parameters: types, ranges, unknown keys with a suggestion, all-or-nothing updates. */
static void test_params(void **state)
{
	/* values that are not the names' positions: a choice is read by name, not by place */
	static const fb_choice speeds[] = { { "fast", 7 }, { "slow", 3 }, { 0 } };
	static const fb_param_def defs[] = {
		{ "k", FB_PARAM_INT, "3", 1, 10, NULL, "count" },
		{ "alpha", FB_PARAM_DOUBLE, "0.5", 0, 1, NULL, "share" },
		{ "mode", FB_PARAM_CHOICE, "fast", 0, 0, speeds, "speed" },
		{ "on", FB_PARAM_BOOL, "no", 0, 0, NULL, "switch" },
		{ "name", FB_PARAM_STRING, NULL, 0, 0, NULL, "text" },
		{ 0 },
	};
	char words[6][16] = { "k=7", "alpha=0.25", "mode=slow", "on=yes", "k=8", "alpha=2" };
	char *good[] = { words[0], words[1], words[2], words[3] };
	char *bad[] = { words[4], words[5] };
	char again[3][8] = { "k=5", "alpha=1", "k=6" };
	char *twice[] = { again[0], again[1], again[2] };
	fb_error err = { { 0 } };
	fb_params p;

	assert_int_equal(fb_params_init(&p, defs, &err), FB_OK);
	assert_int_equal(fb_params_int(&p, "k"), 3);
	assert_int_equal(fb_params_choice(&p, "mode"), 7);
	assert_int_equal(fb_params_set_words(&p, 4, good, "t", &err), FB_OK);
	assert_int_equal(fb_params_int(&p, "k"), 7);
	assert_true(fb_params_double(&p, "alpha") == 0.25);
	assert_int_equal(fb_params_choice(&p, "mode"), 3);
	assert_true(fb_params_is(&p, "mode", "slow"));
	assert_false(fb_params_is(&p, "mode", "fast"));
	assert_false(fb_params_is(&p, "mode", "medium"));
	assert_true(fb_params_bool(&p, "on"));
	assert_true(fb_params_given(&p, "k"));
	assert_int_equal(fb_params_set_words(&p, 2, bad, "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'alpha' must be number in [0, 1], not '2'");
	assert_int_equal(fb_params_int(&p, "k"), 7); /* unchanged: all or nothing */
	assert_int_equal(fb_params_set_word(&p, "k=11", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'k' must be integer in [1, 10], not '11'");
	assert_int_equal(fb_params_set_word(&p, "mode=medium", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'mode' must be one of fast|slow, not 'medium'");
	assert_int_equal(fb_params_set_word(&p, "aplha=1", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: unknown parameter 'aplha' (did you mean 'alpha'?)");
	assert_int_equal(fb_params_set_word(&p, "k", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: expected key=value, not 'k'");
	/* an empty value is refused alike for every type, text included */
	assert_int_equal(fb_params_set_word(&p, "alpha=", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'alpha' needs a value (number in [0, 1])");
	assert_int_equal(fb_params_set_word(&p, "name=", "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'name' needs a value (text)"); /* its help */
	assert_false(fb_params_given(&p, "name"));
	assert_int_equal(fb_params_set_word(&p, "name=x", "t", &err), FB_OK);
	/* a key given twice is refused, not settled silently by the last word */
	assert_int_equal(fb_params_set_words(&p, 3, twice, "t", &err), FB_ERR);
	assert_string_equal(err.msg, "t: parameter 'k' is given twice");
	assert_int_equal(fb_params_int(&p, "k"), 7);
	fb_params_release(&p);
}

/* fb_strerror: the first letter lower case, an acronym's kept. */
static void test_strerror(void **state)
{
	char buf[128];

	assert_string_equal(fb_strerror(ENOENT, buf, sizeof buf), "no such file or directory");
	for (int e = 1; e < 134; e++) { /* every errno of Linux */
		char sys[128];

		snprintf(sys, sizeof sys, "%s", strerror(e));
		fb_strerror(e, buf, sizeof buf);
		if (isupper((unsigned char)sys[0]) && isupper((unsigned char)sys[1]))
			assert_string_equal(buf, sys); /* "RPC struct is bad" stays so */
		else
			assert_true(strcmp(buf + 1, sys + 1) == 0 &&
			            !isupper((unsigned char)buf[0]));
	}
}

/* Every command has a name, usage, summary and handler, and names are unique. */
static void test_table(void **state)
{
	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		const fb_cmd_entry *e = fb_cmd_table[i];
		fb_error err = { { 0 } };
		fb_params p;

		assert_non_null(e->usage);
		assert_non_null(e->summary);
		assert_non_null(e->exec);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(e->name, fb_cmd_table[j]->name);
		if (e->params != NULL) { /* every default in every table parses */
			assert_int_equal(fb_params_init(&p, e->params, &err), FB_OK);
			fb_params_release(&p);
		}
	}
}

/* Whether the lower-case key=, which ends just before end in the usage u, is a parameter
 * of defs. */
static bool usage_key_declared(const char *u, const char *end, const fb_param_def *defs)
{
	const char *k = end;

	while (k > u && ((k[-1] >= 'a' && k[-1] <= 'z') || k[-1] == '_'))
		k--;
	if (k == end || (k > u && k[-1] >= 'A' && k[-1] <= 'Z'))
		return true; /* a placeholder such as NAME=VALUES, not a key */
	for (size_t i = 0; defs[i].name != NULL; i++)
		if (strlen(defs[i].name) == (size_t)(end - k) &&
		    strncmp(defs[i].name, k, (size_t)(end - k)) == 0)
			return true;
	return false;
}

/* A usage line and a parameter table cannot disagree: every key= the words spell out is a
 * parameter, and the line fb_cmd_usage makes shows every parameter, by name or under
 * [key=value ...]; examples of each form. */
static void test_usage_from_params(void **state)
{
	char buf[512];

	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		const fb_cmd_entry *e = fb_cmd_table[i];
		const char *u = fb_cmd_usage(e, buf, sizeof buf);

		for (const char *eq = strchr(e->usage, '='); e->params != NULL && eq != NULL;
		     eq = strchr(eq + 1, '='))
			if (!usage_key_declared(e->usage, eq, e->params))
				fail_msg("%s: usage '%s' names a key that is no parameter", e->name,
				         e->usage);
		for (size_t k = 0; e->params != NULL && e->params[k].name != NULL; k++) {
			char key[64];

			snprintf(key, sizeof key, "%s=", e->params[k].name);
			if (strstr(u, key) == NULL && strstr(u, "[key=value ...]") == NULL)
				fail_msg("%s: usage '%s' leaves out %s", e->name, u, key);
		}
	}
	assert_string_equal(fb_cmd_usage(&fb_cmd_save, buf, sizeof buf), "FILE [force=yes]");
	assert_string_equal(fb_cmd_usage(&fb_cmd_head, buf, sizeof buf), "[rows=N]");
	assert_string_equal(fb_cmd_usage(&fb_cmd_gen, buf, sizeof buf),
	                    "er|er-bernoulli|sf [key=value ...]");
	assert_string_equal(fb_cmd_usage(&fb_cmd_classify, buf, sizeof buf),
	                    "TARGET [run=N] [positive=VALUE]");
	assert_string_equal(fb_cmd_usage(&fb_cmd_info, buf, sizeof buf), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_line),
		cmocka_unit_test(test_split_unterminated),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_free_params),
		cmocka_unit_test(test_complete_algo),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_algo_texts),
		cmocka_unit_test(test_algos_lists_registry),
		cmocka_unit_test(test_help_every_algo),
		cmocka_unit_test(test_defaults_one_source),
		cmocka_unit_test(test_command_defaults),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_usage_from_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
