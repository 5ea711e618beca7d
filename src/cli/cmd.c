/* Finding commands by name and running them: the one place where arguments are checked. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/graphfmt.h"
#include "cmd.h"
#include "history.h"
#include "interrupt.h"
#include "session.h"

/* The names of format='s values. */
const fb_choice fb_cmd_formats[] = {
	{ "edges", FB_GRAPH_EDGES }, { "matrix", FB_GRAPH_MATRIX }, { "tetrad", FB_GRAPH_TETRAD },
	{ "causal-learn", FB_GRAPH_CAUSAL_LEARN }, { "bnlearn", FB_GRAPH_BNLEARN },
	{ "gml", FB_GRAPH_GML }, { "dot", FB_GRAPH_DOT }, { "json", FB_GRAPH_JSON }, { 0 },
};

/* Print "where: error: cmd: message" to the error stream. */
static void vreport(fb_cmd_ctx *ctx, const char *kind, const char *cmd, const char *fmt,
                    va_list ap) FB_PRINTF(4, 0);

/* Print "where: error: cmd: message" to the error stream (where and cmd when not NULL),
 * control characters escaped (a message may quote a name or a field read from a file). */
static void vreport(fb_cmd_ctx *ctx, const char *kind, const char *cmd, const char *fmt,
                    va_list ap)
{
	char msg[2 * FB_ERROR_MAX];
	fb_buf b = { 0 };

	vsnprintf(msg, sizeof msg, fmt, ap);
	if (ctx->where != NULL)
		fb_buf_printf(&b, "%s: ", ctx->where);
	fb_buf_printf(&b, "%s: ", kind);
	if (cmd != NULL)
		fb_buf_printf(&b, "%s: ", cmd);
	fb_buf_append_escaped(&b, msg);
	fprintf(ctx->err, "%s\n", b.data);
	fflush(ctx->err);
	fb_buf_release(&b);
}

/* How many fb_cmd_name results stay valid at once. */
#define NAME_SLOTS 8

/* A name (or label) read from a file, fit for the terminal. */
const char *fb_cmd_name(const char *name)
{
	static fb_buf slot[NAME_SLOTS];
	static size_t next;
	fb_buf *b;

	if (!fb_str_has_control(name))
		return name;
	b = &slot[next];
	next = (next + 1) % NAME_SLOTS;
	b->len = 0;
	fb_buf_append_escaped(b, name);
	return b->data;
}

/* Print an error after the running command's name and return FB_CMD_ERROR. */
int fb_cmd_error(fb_cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(ctx->out);
	va_start(ap, fmt);
	vreport(ctx, "error", ctx->cmd, fmt, ap);
	va_end(ap);
	return FB_CMD_ERROR;
}

/* Print an error as it is and return FB_CMD_ERROR. */
int fb_cmd_error_plain(fb_cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(ctx->out);
	va_start(ap, fmt);
	vreport(ctx, "error", NULL, fmt, ap);
	va_end(ap);
	return FB_CMD_ERROR;
}

/* What the session must hold, each with the sentence that says it does not. */
static const struct {
	unsigned need;    /* FB_NEEDS_* */
	const char *miss; /* the error when it is missing */
} needs_said[] = {
	{ FB_NEEDS_DATA, "no dataset: load a CSV file or generate one with gen" },
	{ FB_NEEDS_SPLIT, "no split: use split horizontal|vertical|hybrid K" },
	{ FB_NEEDS_RUN, "no run yet: choose an algorithm and run it" },
	{ FB_NEEDS_TRUTH, "no truth: gen makes one, truth load reads one" },
};

/* Whether the session holds the one thing need names. */
static bool has(const fb_session *s, unsigned need)
{
	switch (need) {
	case FB_NEEDS_DATA: return s->data != NULL;
	case FB_NEEDS_SPLIT: return s->split != NULL;
	case FB_NEEDS_RUN: return s->nruns > 0;
	default: return s->truth != NULL;
	}
}

/* Check what a command needs, in the table's order. */
int fb_cmd_need(fb_cmd_ctx *ctx, unsigned needs)
{
	for (size_t i = 0; i < sizeof needs_said / sizeof needs_said[0]; i++)
		if ((needs & needs_said[i].need) && !has(ctx->s, needs_said[i].need))
			return fb_cmd_error(ctx, "%s", needs_said[i].miss);
	return FB_CMD_OK;
}

/* Print a warning. */
void fb_cmd_warn(fb_cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(ctx->out);
	va_start(ap, fmt);
	vreport(ctx, "warning", NULL, fmt, ap);
	va_end(ap);
}

/* fb_warn callback printing through fb_cmd_warn. */
static void warn_sink(void *c, const char *msg)
{
	fb_cmd_warn(c, "%s", msg);
}

/* An fb_warn that prints library warnings as shell warnings. */
fb_warn fb_cmd_warner(fb_cmd_ctx *ctx)
{
	return (fb_warn){ .fn = warn_sink, .ctx = ctx };
}

/* Exact name or alias match. */
static const fb_cmd_entry *find_exact(const char *name)
{
	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		const fb_cmd_entry *e = fb_cmd_table[i];

		if (strcmp(e->name, name) == 0 || (e->alias != NULL && strcmp(e->alias, name) == 0))
			return e;
	}
	return NULL;
}

/* The command whose name is nearest to name, if near enough to suggest. */
static const char *nearest(const char *name)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX;

	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		size_t dist = fb_suggest_distance(name, fb_cmd_table[i]->name);

		if (dist < bestd)
			bestd = dist, best = fb_cmd_table[i]->name;
	}
	return best;
}

/* Find a command by name, alias or unique prefix. */
const fb_cmd_entry *fb_cmd_find(const char *name, fb_error *err)
{
	const fb_cmd_entry *e = find_exact(name), *hit = NULL;
	size_t len = strlen(name), nhit = 0;
	fb_buf list = { 0 };
	const char *near;

	if (e != NULL)
		return e;
	for (size_t i = 0; len > 0 && fb_cmd_table[i] != NULL; i++) {
		if (strncmp(fb_cmd_table[i]->name, name, len) == 0) {
			hit = fb_cmd_table[i];
			fb_buf_printf(&list, "%s%s", nhit++ ? ", " : "", hit->name);
		}
	}
	if (nhit == 1) {
		fb_buf_release(&list);
		return hit;
	}
	if (nhit > 1)
		fb_fail(err, "ambiguous command '%s', could be: %s", name, list.data);
	else if ((near = nearest(name)) != NULL)
		fb_fail(err, "unknown command '%s' (did you mean '%s'?)", name, near);
	else
		fb_fail(err, "unknown command '%s' (type 'help' for the list)", name);
	fb_buf_release(&list);
	return NULL;
}

/* True when the word is key=value with a key made of word characters. */
static bool is_param_word(const char *w)
{
	const char *eq = strchr(w, '=');

	if (eq == NULL || eq == w)
		return false;
	for (const char *p = w; p < eq; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* Whether the key of the key=value word w is declared in defs. */
static bool is_declared(const fb_param_def *defs, const char *w)
{
	size_t klen = (size_t)(strchr(w, '=') - w);

	for (size_t i = 0; defs[i].name != NULL; i++)
		if (strlen(defs[i].name) == klen && strncmp(defs[i].name, w, klen) == 0)
			return true;
	return false;
}

/* The value of w among the entry's first-word choices, or -1. */
int fb_cmd_word_value(const fb_cmd_entry *e, const char *w)
{
	const fb_choice *c = fb_choice_find(e->words, w);

	return c != NULL ? c->value : -1;
}

/* Check the positional word count and the first word's choices. */
static int check_positionals(fb_cmd_ctx *ctx, const fb_cmd_entry *e, const fb_cmd_args *a)
{
	char usage[512];

	if (a->argc < e->min_args)
		return fb_cmd_error_plain(ctx, "%s: missing argument (usage: %s %s)", e->name,
		                          e->name, fb_cmd_usage(e, usage, sizeof usage));
	if (e->max_args >= 0 && a->argc > e->max_args)
		return fb_cmd_error_plain(ctx, "%s: unexpected argument '%s' (usage: %s %s)",
		                          e->name, a->argv[e->max_args], e->name,
		                          fb_cmd_usage(e, usage, sizeof usage));
	if (e->words != NULL && a->argc > 0 && fb_cmd_word_value(e, a->argv[0]) < 0) {
		char names[128];

		return fb_cmd_error_plain(ctx, "%s: '%s' is not one of %s", e->name, a->argv[0],
		                          fb_choice_list(e->words, "|", names, sizeof names));
	}
	return FB_CMD_OK;
}

/* Split words into positionals and parameters, check both against the entry. */
static int parse_args(fb_cmd_ctx *ctx, const fb_cmd_entry *e, char **words, fb_cmd_args *a)
{
	static const fb_param_def none[] = { { 0 } };
	fb_error err = { { 0 } };
	int nparams = 0;
	char **params;

	for (size_t w = 1; words[w] != NULL; w++)
		a->argc++;
	a->argv = fb_xcalloc((size_t)a->argc + 1, sizeof *a->argv);
	params = fb_xcalloc((size_t)a->argc + 1, sizeof *params);
	a->argc = 0;
	for (size_t w = 1; words[w] != NULL; w++) {
		if (e->params != NULL && is_param_word(words[w]) &&
		    (!e->free_params || is_declared(e->params, words[w])))
			params[nparams++] = words[w];
		else
			a->argv[a->argc++] = words[w];
	}
	fb_params_init(&a->params, e->params != NULL ? e->params : none, &err);
	if (fb_params_set_words(&a->params, nparams, params, e->name, &err) != FB_OK) {
		free(params);
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	}
	free(params);
	return check_positionals(ctx, e, a);
}

/* Find the command of words and check its arguments, without running it. */
const fb_cmd_entry *fb_cmd_parse_words(fb_cmd_ctx *ctx, char **words, fb_cmd_args *a)
{
	fb_error err = { { 0 } };
	const fb_cmd_entry *e = fb_cmd_find(words[0], &err);

	memset(a, 0, sizeof *a);
	if (e == NULL) {
		fb_cmd_error_plain(ctx, "%s", err.msg);
		return NULL;
	}
	return parse_args(ctx, e, words, a) == FB_CMD_OK ? e : NULL;
}

/* Free what fb_cmd_parse_words filled in. */
void fb_cmd_args_release(fb_cmd_args *a)
{
	fb_params_release(&a->params);
	free(a->argv);
}

/* Run e's handler on a after checking what it needs, its messages under its name. */
int fb_cmd_exec(fb_cmd_ctx *ctx, const fb_cmd_entry *e, fb_cmd_args *a)
{
	const char *outer = ctx->cmd;
	int ret;

	ctx->cmd = e->name;
	ret = fb_cmd_need(ctx, e->needs) == FB_CMD_OK ? e->exec(ctx, a) : FB_CMD_ERROR;
	if (ctx->s->knowledge_note[0] != '\0') { /* the command changed the data */
		fb_cmd_warn(ctx, "%s", ctx->s->knowledge_note);
		ctx->s->knowledge_note[0] = '\0';
	}
	ctx->cmd = outer;
	return ret;
}

/* Run one command given as words.  Once SIGTERM stopped a command, no further one runs:
 * FB_CMD_QUIT ends every loop, and main ends the program by SIGTERM. */
int fb_cmd_run_words(fb_cmd_ctx *ctx, char **words)
{
	if (fb_terminating())
		return FB_CMD_QUIT;

	fb_history_pending pending, *outer = fb_history_begin(ctx->s, &pending);
	fb_cmd_args a;
	const fb_cmd_entry *e = fb_cmd_parse_words(ctx, words, &a);
	int ret = e != NULL ? fb_cmd_exec(ctx, e, &a) : FB_CMD_ERROR;

	fb_history_end(ctx->s, outer, e, words, ret);
	fb_cmd_args_release(&a);
	fflush(ctx->out);
	return fb_terminating() ? FB_CMD_QUIT : ret;
}

/* Run every command of one line. */
int fb_cmd_run_line(fb_cmd_ctx *ctx, const char *line)
{
	fb_error err = { { 0 } };
	char ***cmds;
	int n = fb_cmd_split_line(line, &cmds, &err), worst = FB_CMD_OK;

	if (n < 0)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	for (int c = 0; c < n && worst != FB_CMD_QUIT; c++) {
		if (worst == FB_CMD_ERROR && ctx->bail)
			break;
		int ret = fb_cmd_run_words(ctx, cmds[c]);

		if (ret > worst)
			worst = ret;
	}
	fb_cmd_free_split(cmds, n);
	return worst;
}
