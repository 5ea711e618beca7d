/* Completion candidates from the command table: names, first words, key= and values. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/core.h"
#include "cmd.h"
#include "session.h"

/* A growing NULL-terminated list of strings. */
typedef struct cand_list {
	char **v;   /* the candidates */
	size_t n;   /* how many */
} cand_list;

/* Add s to the list when it starts with prefix and is not there yet. */
static void offer(cand_list *c, const char *prefix, const char *s, size_t slen)
{
	size_t plen = strlen(prefix);

	if (slen < plen || strncmp(s, prefix, plen) != 0)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->v[i]) == slen && strncmp(c->v[i], s, slen) == 0)
			return;
	c->v = fb_xreallocarray(c->v, c->n + 2, sizeof *c->v);
	c->v[c->n] = fb_xmalloc(slen + 1);
	memcpy(c->v[c->n], s, slen);
	c->v[c->n][slen] = '\0';
	c->v[++c->n] = NULL;
}

/* Offer the names of a choice table, each prefixed by pre (e.g. "key="). */
static void offer_choices(cand_list *c, const char *text, const char *pre,
                          const fb_choice *choices)
{
	for (size_t k = 0; choices != NULL && choices[k].name != NULL; k++) {
		char *full = fb_xasprintf("%s%s", pre, choices[k].name);

		offer(c, text, full, strlen(full));
		free(full);
	}
}

/* Offer algorithm names: learners, "combinator:", and after a combinator's colon the
 * learners it can combine. */
static void offer_algos(cand_list *c, const char *text)
{
	const char *colon = strchr(text, ':');

	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i], *al, *inner;
		fb_error err;

		if (!(a->flags & FB_ALGO_COMBINATOR)) {
			char *full = colon != NULL ? fb_xasprintf("%.*s%s", (int)(colon - text + 1),
			                                          text, a->name)
			                           : fb_xstrdup(a->name);

			if (colon == NULL || fb_algo_lookup(full, &al, &inner, &err) == FB_OK)
				offer(c, text, full, strlen(full));
			free(full);
		} else if (colon == NULL) {
			char *full = fb_xasprintf("%s:", a->name);

			offer(c, text, full, strlen(full));
			free(full);
		}
	}
}

/* Offer command names (and aliases). */
static void offer_commands(cand_list *c, const char *text)
{
	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		offer(c, text, fb_cmd_table[i]->name, strlen(fb_cmd_table[i]->name));
		if (fb_cmd_table[i]->alias != NULL)
			offer(c, text, fb_cmd_table[i]->alias, strlen(fb_cmd_table[i]->alias));
	}
}

/* Offer key= names, or key=value choices once the '=' is typed. */
static void offer_params(cand_list *c, const char *text, const fb_param_def *defs)
{
	static const fb_choice yes_no[] = { { "yes", 1 }, { "no", 0 }, { 0 } };

	const char *eq = strchr(text, '=');

	for (size_t i = 0; defs != NULL && defs[i].name != NULL; i++) {
		size_t klen = strlen(defs[i].name);

		if (eq == NULL) {
			char *key = fb_xasprintf("%s=", defs[i].name);

			offer(c, text, key, klen + 1);
			free(key);
		} else if ((size_t)(eq - text) == klen && strncmp(text, defs[i].name, klen) == 0) {
			char *pre = fb_xasprintf("%s=", defs[i].name);

			if (defs[i].type == FB_PARAM_CHOICE || defs[i].type == FB_PARAM_STRING)
				offer_choices(c, text, pre, defs[i].choices);
			else if (defs[i].type == FB_PARAM_BOOL)
				offer_choices(c, text, pre, yes_no);
			free(pre);
		}
	}
}

/* Offer the dataset's variable names, each between pre and post. */
static void offer_variables(cand_list *c, const fb_session *s, const char *text,
                            const char *pre, const char *post)
{
	for (size_t j = 0; s != NULL && s->data != NULL && j < s->data->d; j++) {
		char *full = fb_xasprintf("%s%s%s", pre, s->data->vars[j].name, post);

		offer(c, text, full, strlen(full));
		free(full);
	}
}

/* Offer a query's words: its two forms first, then NAME= (inside p( as well). */
static void offer_query(cand_list *c, const fb_session *s, int nw, const char *text)
{
	static const fb_choice forms[] = { { "p(", 0 }, { "mpe", 1 }, { 0 } };

	if (strncmp(text, "p(", 2) == 0)
		offer_variables(c, s, text, "p(", "=");
	else if (nw == 1)
		offer_choices(c, text, "", forms);
	else
		offer_variables(c, s, text, "", "=");
}

/* Offer knowledge's words after its first: a file after load and save, else variable
 * names, and after "A->" or "A--" the names with that prefix. */
static void offer_knowledge(cand_list *c, const fb_session *s, char **words, const char *text,
                            bool *files)
{
	const char *arrow = strstr(text, "->") != NULL ? strstr(text, "->") : strstr(text, "--");
	char *pre;

	if (strcmp(words[1], "load") == 0 || strcmp(words[1], "save") == 0) {
		*files = true;
		return;
	}
	if (arrow == NULL) {
		offer_variables(c, s, text, "", "");
		return;
	}
	pre = fb_xstrdup(text);
	pre[arrow - text + 2] = '\0';
	offer_variables(c, s, text, pre, "");
	free(pre);
}

/* Count the positional words (not key=value) among the words before the cursor. */
static int count_positionals(char **words, int nwords)
{
	int n = 0;

	for (int w = 1; w < nwords; w++)
		if (strchr(words[w], '=') == NULL)
			n++;
	return n;
}

/* Offer what the positional word text of e can be, the words before it being words[0..nw). */
static void offer_positional(cand_list *c, const fb_session *s, const fb_cmd_entry *e,
                             char **words, int nw, const char *text, bool *files)
{
	int npos = count_positionals(words, nw);

	if (npos == 0 && e->offers != NULL)
		offer_choices(c, text, "", e->offers);
	if (npos == 0 && e->words != NULL)
		offer_choices(c, text, "", e->words);
	else if (e->complete == FB_COMPLETE_COMMAND && npos == 0)
		offer_commands(c, text);
	else if (e->complete == FB_COMPLETE_COMMAND && npos == 1 && strcmp(words[1], "algo") == 0)
		offer_algos(c, text);
	else if (e->complete == FB_COMPLETE_ALGO && npos == 0)
		offer_algos(c, text);
	else if (e->complete == FB_COMPLETE_SETTINGS && s != NULL && s->algo != NULL)
		offer_params(c, text, s->params.defs);
	else if (e->complete == FB_COMPLETE_FILE && strchr(text, '=') == NULL)
		*files = true;
	else if (e->complete == FB_COMPLETE_VARIABLE && npos == 0)
		offer_variables(c, s, text, "", "");
	else if (e->complete == FB_COMPLETE_QUERY)
		offer_query(c, s, nw, text);
	else if (e->complete == FB_COMPLETE_KNOWLEDGE)
		offer_knowledge(c, s, words, text, files);
	if (e->complete == FB_COMPLETE_SETTINGS)
		offer_params(c, text, fb_session_run_options);
	offer_params(c, text, e->params);
}

/* Candidates for the word text that starts at offset start of line. */
char **fb_cmd_complete(const fb_session *s, const char *line, size_t start, const char *text,
                       bool *files)
{
	cand_list c = { 0 };
	const char *seg = line, *semi;
	char *head, ***cmds = NULL;
	fb_error err;
	int n;

	*files = false;
	while ((semi = strchr(seg, ';')) != NULL && (size_t)(semi - line) < start)
		seg = semi + 1;
	head = fb_xmalloc(start - (size_t)(seg - line) + 1);
	memcpy(head, seg, start - (size_t)(seg - line));
	head[start - (size_t)(seg - line)] = '\0';
	n = fb_cmd_split_line(head, &cmds, &err);
	free(head);
	if (n <= 0) {
		offer_commands(&c, text);
	} else {
		const fb_cmd_entry *e = fb_cmd_find(cmds[n - 1][0], &err);
		int nw = 0;

		while (cmds[n - 1][nw] != NULL)
			nw++;
		if (e != NULL)
			offer_positional(&c, s, e, cmds[n - 1], nw, text, files);
	}
	if (n > 0)
		fb_cmd_free_split(cmds, n);
	return c.v != NULL ? c.v : fb_xcalloc(1, sizeof(char *));
}
