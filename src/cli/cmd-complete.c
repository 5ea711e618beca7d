/* Completion candidates from the command table: names, first words, key= and values. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "cmd.h"

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

/* Offer each word of a '|'-separated list, each prefixed by pre (e.g. "key="). */
static void offer_choices(cand_list *c, const char *text, const char *pre, const char *choices)
{
	for (const char *p = choices; p != NULL && *p != '\0';) {
		const char *bar = strchr(p, '|');
		size_t len = bar != NULL ? (size_t)(bar - p) : strlen(p);
		char *full = fb_xasprintf("%s%.*s", pre, (int)len, p);

		offer(c, text, full, strlen(full));
		free(full);
		p = bar != NULL ? bar + 1 : NULL;
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
	const char *eq = strchr(text, '=');

	for (size_t i = 0; defs != NULL && defs[i].name != NULL; i++) {
		size_t klen = strlen(defs[i].name);

		if (eq == NULL) {
			char *key = fb_xasprintf("%s=", defs[i].name);

			offer(c, text, key, klen + 1);
			free(key);
		} else if ((size_t)(eq - text) == klen && strncmp(text, defs[i].name, klen) == 0) {
			char *pre = fb_xasprintf("%s=", defs[i].name);

			if (defs[i].type == FB_PARAM_CHOICE)
				offer_choices(c, text, pre, defs[i].choices);
			else if (defs[i].type == FB_PARAM_BOOL)
				offer_choices(c, text, pre, "yes|no");
			free(pre);
		}
	}
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

/* Candidates for the word text that starts at offset start of line. */
char **fb_cmd_complete(const char *line, size_t start, const char *text, bool *files)
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
		if (e != NULL && count_positionals(cmds[n - 1], nw) == 0 && e->words != NULL)
			offer_choices(&c, text, "", e->words);
		else if (e != NULL && e->complete == FB_COMPLETE_COMMAND)
			offer_commands(&c, text);
		else if (e != NULL && e->complete == FB_COMPLETE_FILE && strchr(text, '=') == NULL)
			*files = true;
		if (e != NULL)
			offer_params(&c, text, e->params);
	}
	if (n > 0)
		fb_cmd_free_split(cmds, n);
	return c.v != NULL ? c.v : fb_xcalloc(1, sizeof(char *));
}
