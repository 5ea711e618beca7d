/* knowledge: the session's background knowledge over the current dataset's variables
 * (forbidden and required arcs, tiers), made by statements or read from a file; every run
 * takes it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/knowledge.h"
#include "cmd.h"
#include "files.h"
#include "session.h"

/* What knowledge does, its first word. */
enum kn_sub {
	KN_SHOW, KN_FORBID, KN_REQUIRE, KN_TIER, KN_WITHIN, KN_CLEAR, KN_SAVE, KN_LOAD,
};
/* Their names. */
static const fb_choice kn_subs[] = {
	{ "show", KN_SHOW },       { "forbid", KN_FORBID }, { "require", KN_REQUIRE },
	{ "tier", KN_TIER },       { "forbid-within-tier", KN_WITHIN },
	{ "clear", KN_CLEAR },     { "save", KN_SAVE },     { "load", KN_LOAD },
	{ 0 },
};

/* The session's knowledge, made empty over the dataset's variables when there is none. */
static fb_knowledge *kn_session(fb_session *s)
{
	const char **names;

	if (s->knowledge != NULL)
		return s->knowledge;
	names = fb_xcalloc(s->data->d + 1, sizeof *names);
	for (size_t j = 0; j < s->data->d; j++)
		names[j] = s->data->vars[j].name;
	s->knowledge = fb_knowledge_alloc(s->data->d, names);
	free(names);
	return s->knowledge;
}

/* The index of variable name, or print why not (with the nearest name) and FB_CMD_ERROR. */
static int kn_var(fb_cmd_ctx *ctx, const char *name, size_t *v)
{
	const fb_dataset *ds = ctx->s->data;
	size_t best = 0, bd = (size_t)-1;

	for (size_t j = 0; j < ds->d; j++) {
		size_t e = fb_edit_distance(name, ds->vars[j].name);

		if (e == 0) {
			*v = j;
			return FB_CMD_OK;
		}
		if (e < bd)
			bd = e, best = j;
	}
	if (bd <= 2 && ds->d > 0)
		return fb_cmd_error(ctx, "'%s' is not a variable (did you mean '%s'?)", name,
		                    fb_cmd_name(ds->vars[best].name));
	return fb_cmd_error(ctx, "'%s' is not a variable of the data (info lists them)", name);
}

/* The arc written in words w[0..n) as "A->B", "A -> B", "A--B" or "A -- B": its ends, and
 * whether it is "--" (no edge either way); FB_CMD_ERROR after printing the fault. */
static int kn_arc(fb_cmd_ctx *ctx, char **w, int n, size_t *a, size_t *b, bool *both)
{
	char *text = n == 1 ? fb_xstrdup(w[0]) : NULL, *mid;
	const char *left, *right;
	int rc;

	if (n == 3) {
		left = w[0], right = w[2], mid = w[1];
		*both = strcmp(mid, "--") == 0;
		if (!*both && strcmp(mid, "->") != 0)
			return fb_cmd_error(ctx, "write an arc as A->B (or A--B: no edge either way), "
			                         "not '%s %s %s'", w[0], w[1], w[2]);
	} else if (n == 1 && ((mid = strstr(text, "->")) != NULL ||
	                      (mid = strstr(text, "--")) != NULL)) {
		*both = mid[1] == '-';
		*mid = '\0';
		left = text, right = mid + 2;
	} else {
		free(text);
		return fb_cmd_error(ctx, "write an arc as A->B (or A--B: no edge either way)");
	}
	rc = kn_var(ctx, left, a);
	if (rc == FB_CMD_OK)
		rc = kn_var(ctx, right, b);
	free(text);
	return rc;
}

/* forbid A->B | forbid A--B | require A->B: one statement, refused with its reason when it
 * contradicts the knowledge (which then stays as it was). */
static int kn_arc_statement(fb_cmd_ctx *ctx, enum kn_sub what, char **w, int n)
{
	fb_knowledge *k = kn_session(ctx->s), *copy;
	fb_error err = { { 0 } };
	size_t a, b;
	bool both = false;
	int rc;

	if (kn_arc(ctx, w, n, &a, &b, &both) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (both && what == KN_REQUIRE)
		return fb_cmd_error(ctx, "require takes one direction, A->B");
	copy = fb_knowledge_copy(k);
	rc = what == KN_REQUIRE ? fb_knowledge_require(copy, a, b, &err)
	                        : fb_knowledge_forbid(copy, a, b, &err);
	if (rc == FB_OK && both)
		rc = fb_knowledge_forbid(copy, b, a, &err);
	if (rc != FB_OK) {
		fb_knowledge_free(copy);
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	fb_session_set_knowledge(ctx->s, copy);
	return FB_CMD_OK;
}

/* tier N NAME...: put the variables in tier N (refused as a whole when one would break a
 * required arc). */
static int kn_tier(fb_cmd_ctx *ctx, char **w, int n)
{
	int64_t t;
	fb_knowledge *copy;
	fb_error err = { { 0 } };
	size_t v;
	int rc = FB_CMD_OK;

	if (n < 2 || fb_parse_int64(w[0], &t) != FB_OK || t < 1 || t > 1000000)
		return fb_cmd_error(ctx, "give a tier number from 1 and the variables in it, as in "
		                         "'knowledge tier 1 A B'");
	copy = fb_knowledge_copy(kn_session(ctx->s));
	for (int i = 1; i < n && rc == FB_CMD_OK; i++) {
		rc = kn_var(ctx, w[i], &v);
		if (rc == FB_CMD_OK && fb_knowledge_set_tier(copy, v, (int)t, &err) != FB_OK)
			rc = fb_cmd_error(ctx, "%s", err.msg);
	}
	if (rc != FB_CMD_OK) {
		fb_knowledge_free(copy);
		return FB_CMD_ERROR;
	}
	fb_session_set_knowledge(ctx->s, copy);
	return FB_CMD_OK;
}

/* forbid-within-tier N. */
static int kn_within(fb_cmd_ctx *ctx, char **w, int n)
{
	int64_t t;
	fb_knowledge *copy;
	fb_error err = { { 0 } };

	if (n != 1 || fb_parse_int64(w[0], &t) != FB_OK || t < 1 || t > 1000000)
		return fb_cmd_error(ctx, "give one tier number from 1, as in "
		                         "'knowledge forbid-within-tier 2'");
	copy = fb_knowledge_copy(kn_session(ctx->s));
	if (fb_knowledge_forbid_within_tier(copy, (int)t, &err) != FB_OK) {
		fb_knowledge_free(copy);
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	fb_session_set_knowledge(ctx->s, copy);
	return FB_CMD_OK;
}

/* Print the tiers, one a line. */
static void kn_show_tiers(FILE *out, const fb_knowledge *k)
{
	for (int t = fb_knowledge_next_tier(k, 0); t != 0; t = fb_knowledge_next_tier(k, t)) {
		fprintf(out, "  tier %d%s:", t,
		        fb_knowledge_within_forbidden(k, t) ? " (no arcs within)" : "");
		for (size_t v = 0; v < fb_knowledge_d(k); v++)
			if (fb_knowledge_tier(k, v) == t)
				fprintf(out, " %s", fb_cmd_name(fb_knowledge_name(k, v)));
		fputc('\n', out);
	}
}

/* Print the arcs stated as required (req) or forbidden, one a line. */
static void kn_show_arcs(FILE *out, const fb_knowledge *k, bool req)
{
	size_t d = fb_knowledge_d(k);

	for (size_t a = 0; a < d; a++)
		for (size_t b = 0; b < d; b++) {
			bool both = !req && fb_knowledge_forbidden_directly(k, b, a);

			if (req ? !fb_knowledge_requires(k, a, b)
			        : !fb_knowledge_forbidden_directly(k, a, b) || (both && b < a))
				continue;
			fprintf(out, "  %s %s%s%s\n", req ? "required " : "forbidden",
			        fb_cmd_name(fb_knowledge_name(k, a)), both ? "--" : "->",
			        fb_cmd_name(fb_knowledge_name(k, b)));
		}
}

/* knowledge show. */
static int kn_show(fb_cmd_ctx *ctx)
{
	const fb_knowledge *k = ctx->s->knowledge;
	char cap[128];

	if (fb_knowledge_is_empty(k)) {
		fprintf(ctx->out, "knowledge: none (knowledge forbid A->B, require A->B, tier 1 A B, "
		                  "or load FILE)\n");
		return FB_CMD_OK;
	}
	fb_knowledge_caption(k, cap, sizeof cap);
	fprintf(ctx->out, "%s (forbidden counts every arc that may not appear, tiers "
	                  "included)\n", cap);
	kn_show_tiers(ctx->out, k);
	kn_show_arcs(ctx->out, k, true);
	kn_show_arcs(ctx->out, k, false);
	return FB_CMD_OK;
}

/* knowledge load FILE: read into a new knowledge, kept only when the whole file reads. */
static int kn_load(fb_cmd_ctx *ctx, const char *path)
{
	const fb_dataset *ds = ctx->s->data;
	const char **names = fb_xcalloc(ds->d + 1, sizeof *names);
	fb_error err = { { 0 } };
	fb_knowledge *k;
	char cap[128];

	for (size_t j = 0; j < ds->d; j++)
		names[j] = ds->vars[j].name;
	k = fb_knowledge_read(path, ds->d, names, &err);
	free(names);
	if (k == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_session_set_knowledge(ctx->s, k);
	fb_files_note_read(ctx, path, "the knowledge was read from it");
	fb_knowledge_caption(k, cap, sizeof cap);
	fprintf(ctx->out, "%s from '%s'\n", cap[0] != '\0' ? cap : "knowledge: none", path);
	return FB_CMD_OK;
}

/* knowledge save FILE. */
static int kn_save(fb_cmd_ctx *ctx, const char *path, const fb_params *p)
{
	fb_error err = { { 0 } };

	if (fb_knowledge_is_empty(ctx->s->knowledge))
		return fb_cmd_error(ctx, "there is no knowledge to save");
	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_knowledge_write(ctx->s->knowledge, path, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (Tetrad's knowledge text)\n", path);
	return FB_CMD_OK;
}

/* knowledge [show | forbid A->B | forbid A--B | require A->B | tier N A B... |
 * forbid-within-tier N | clear | save FILE | load FILE]. */
static int exec_knowledge(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *sub = a->argc > 0 ? a->argv[0] : "show";
	enum kn_sub what = (enum kn_sub)fb_cmd_word_value(&fb_cmd_knowledge, sub);
	char **w = a->argv + 1;
	int n = a->argc - 1;

	if ((what == KN_SHOW || what == KN_CLEAR) && n > 0)
		return fb_cmd_error(ctx, "%s takes nothing more", sub);
	if ((what == KN_SAVE || what == KN_LOAD) && n != 1)
		return fb_cmd_error(ctx, "%s needs one FILE", sub);
	switch (what) {
	case KN_SHOW:
		return kn_show(ctx);
	case KN_FORBID:
	case KN_REQUIRE:
		return kn_arc_statement(ctx, what, w, n);
	case KN_TIER:
		return kn_tier(ctx, w, n);
	case KN_WITHIN:
		return kn_within(ctx, w, n);
	case KN_CLEAR:
		fb_session_set_knowledge(ctx->s, NULL);
		return FB_CMD_OK;
	case KN_SAVE:
		return kn_save(ctx, w[0], &a->params);
	case KN_LOAD:
		return kn_load(ctx, w[0]);
	}
	return FB_CMD_ERROR;
}

/* knowledge's parameters. */
static const fb_param_def kn_params[] = {
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_knowledge = {
	.name = "knowledge",
	.usage = "[show | forbid A->B | forbid A--B | require A->B | tier N A B ... | "
	         "forbid-within-tier N | clear | save FILE | load FILE]",
	.summary = "background knowledge: arcs forbidden or required, tiers",
	.help = "What is known before the data: forbid A->B (that arc may not appear), forbid "
	        "A--B (no edge either way), require A->B (it must), tier N A B (no arc from a "
	        "later tier into an earlier one; variables in no tier are free), "
	        "forbid-within-tier N (no arc between two variables of tier N). A statement "
	        "that contradicts the others (a required arc also forbidden, required arcs "
	        "closing a cycle, a required arc against the tiers) is refused and the "
	        "knowledge stays as it was. load reads Tetrad's knowledge text (/knowledge, "
	        "addtemporal with lines 'N A B' and 'N* ...' for no arcs within, forbiddirect "
	        "and requiredirect with lines 'A B') or a bnlearn-style CSV (from,to,type with "
	        "type whitelist or blacklist); save writes Tetrad's text. Every run takes the "
	        "knowledge: pc, fedpc and fci never test a pair forbidden both ways and orient "
	        "by it; ges skips operators against it; notears, notears-admm, notears-mlp "
	        "and notears-mlp-admm hold the weight of a forbidden arc (tiers included) at "
	        "zero inside their optimisation, on every client and on the server (for the "
	        "MLPs, the first-layer weights from parent to child), and leave a required "
	        "one out of the l1 penalty; mcsl and the FedDAG learners fix the mask's logits "
	        "on every client (forbidden: off, required: on), and averaging leaves them "
	        "fixed (as-feddag-linear: a forbidden weight held at zero, a required one out "
	        "of the penalty); then, as their weights become the graph, a forbidden entry "
	        "is no edge and a required one is kept whatever its weight and never cut to "
	        "break a cycle; a combinator gives it to every "
	        "learner and keeps it in the combined graph; a circuit learns no graph and "
	        "refuses it. Loading other data keeps what is stated about variables it has, "
	        "and names the others.",
	.min_args = 0, .max_args = -1, .words = kn_subs, .complete = FB_COMPLETE_KNOWLEDGE,
	.params = kn_params, .needs = FB_NEEDS_DATA, .exec = exec_knowledge,
};
