/* Help text and the man page's command list, both printed from the command table. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fedbn/algo.h"
#include "fedbn/param.h"
#include "cmd.h"

/* Print the one-line list of every command. */
void fb_cmd_print_list(FILE *out)
{
	fprintf(out, "commands (a unique prefix is enough; 'help COMMAND' for more):\n");
	for (size_t i = 0; fb_cmd_table[i] != NULL; i++)
		fprintf(out, "  %-9s %s\n", fb_cmd_table[i]->name, fb_cmd_table[i]->summary);
}

/* The width help is wrapped to on out: the terminal's when out is one, else COLUMNS when it
 * holds a number, else 80; less 2 columns of margin, and never below 20. */
size_t fb_cmd_width(FILE *out)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	int64_t cols = 80;

	if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	else if (env == NULL || fb_parse_int64(env, &cols) != FB_OK || cols <= 0)
		cols = 80;
	return cols < 22 ? 20 : (size_t)cols - 2;
}

/* The width of a column of names that is width so far, after a name of len characters:
 * widened to len when len is at most FB_CMD_NAME_MOST (a longer name goes on a line of its
 * own). */
int fb_cmd_name_column(size_t len, int width)
{
	return len > (size_t)width && len <= FB_CMD_NAME_MOST ? (int)len : width;
}

/* Print a parameter table, each name in a column of namew (wider for a longer name), its
 * text wrapped at width. */
void fb_cmd_print_params(FILE *out, const fb_param_def *defs, int namew, size_t width)
{
	char desc[128];

	if (defs == NULL || defs[0].name == NULL)
		return;
	for (size_t i = 0; defs[i].name != NULL; i++)
		namew = fb_cmd_name_column(strlen(defs[i].name), namew);
	fprintf(out, "parameters:\n");
	for (size_t i = 0; defs[i].name != NULL; i++) {
		bool alone = strlen(defs[i].name) > (size_t)namew;
		int col;

		if (alone)
			fprintf(out, "  %s\n", defs[i].name);
		col = fprintf(out, "  %-*s ", namew, alone ? "" : defs[i].name);
		char *text = fb_xasprintf("%s; %s%s%s", defs[i].help,
		                          fb_param_describe(&defs[i], desc, sizeof desc),
		                          defs[i].def != NULL ? "; default " : "",
		                          defs[i].def != NULL ? defs[i].def : "");

		fb_cmd_print_wrapped(out, text, width, col > 0 ? (size_t)col : 0);
		free(text);
	}
}

/* Print text word-wrapped at width columns, the first line starting at column indent (what
 * is before it already printed) and the others indented to it. */
void fb_cmd_print_wrapped(FILE *out, const char *text, size_t width, size_t indent)
{
	size_t col = indent;
	bool empty = true; /* the line has no word yet */

	text += strspn(text, " ");
	while (*text != '\0') {
		size_t len = strcspn(text, " ");

		if (!empty && col + 1 + len > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!empty) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, len, out);
		col += len;
		empty = false;
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', out);
}

/* Whether the usage words u spell out the parameter key (as "key=", not inside a longer
 * word). */
static bool usage_names(const char *u, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = strstr(u, key); p != NULL; p = strstr(p + 1, key))
		if (p[n] == '=' && (p == u || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			return true;
	return false;
}

/* What a usage line writes after "key=" for def. */
static const char *usage_value(const fb_param_def *def, char *buf, size_t len)
{
	switch (def->type) {
	case FB_PARAM_INT: return "N";
	case FB_PARAM_DOUBLE: return "X";
	case FB_PARAM_BOOL: return "yes";
	case FB_PARAM_CHOICE: return fb_choice_list(def->choices, "|", buf, len);
	default: return "VALUE";
	}
}

/* How many parameters a usage line lists one by one; more are "[key=value ...]". */
#define USAGE_LISTED 2

/* e's usage line: its words, then the parameters they leave out. */
const char *fb_cmd_usage(const fb_cmd_entry *e, char *buf, size_t len)
{
	const fb_param_def *p = e->params;
	size_t left = 0, at;
	char val[128];

	at = (size_t)snprintf(buf, len, "%s", e->usage);
	for (size_t i = 0; p != NULL && p[i].name != NULL; i++)
		left += !usage_names(e->usage, p[i].name);
	if (left > USAGE_LISTED) {
		snprintf(buf + at, len - at, "%s[key=value ...]", at > 0 ? " " : "");
		return buf;
	}
	for (size_t i = 0; left > 0 && p[i].name != NULL && at < len; i++)
		if (!usage_names(e->usage, p[i].name))
			at += (size_t)snprintf(buf + at, len - at, "%s[%s=%s]", at > 0 ? " " : "",
			                       p[i].name, usage_value(&p[i], val, sizeof val));
	return buf;
}

/* Print one command's usage, help paragraph and parameters. */
void fb_cmd_print_help(FILE *out, const fb_cmd_entry *e)
{
	char usage[512];

	fb_cmd_usage(e, usage, sizeof usage);
	fprintf(out, "usage: %s%s%s\n", e->name, usage[0] != '\0' ? " " : "", usage);
	if (e->alias != NULL)
		fprintf(out, "alias: %s\n", e->alias);
	fb_cmd_print_wrapped(out, e->help != NULL ? e->help : e->summary, fb_cmd_width(out), 0);
	fb_cmd_print_params(out, e->params, 10, fb_cmd_width(out));
}

/* Print text for mdoc, escaping backslashes and lines that start with a dot. */
static void man_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else
			fputc(*s, out);
	}
}

/* Print a parameter table as an mdoc list (nothing for an empty table). */
static void man_params(FILE *out, const fb_param_def *p)
{
	char desc[128];

	if (p == NULL || p[0].name == NULL)
		return;
	fprintf(out, ".Bl -tag -width Ds -compact\n");
	for (; p->name != NULL; p++) {
		fprintf(out, ".It Cm %s Ns = Ns Ar value\n", p->name);
		man_text(out, p->help);
		fprintf(out, "; %s", fb_param_describe(p, desc, sizeof desc));
		if (p->def != NULL)
			fprintf(out, "; default %s", p->def);
		fputs(".\n", out);
	}
	fprintf(out, ".El\n");
}

/* Print the COMMANDS section of the man page (mdoc) from the table. */
void fb_cmd_print_man(FILE *out)
{
	char usage[512];

	fprintf(out, ".Bl -tag -width Ds\n");
	for (size_t i = 0; fb_cmd_table[i] != NULL; i++) {
		const fb_cmd_entry *e = fb_cmd_table[i];

		fprintf(out, ".It Ic %s", e->name);
		if (fb_cmd_usage(e, usage, sizeof usage)[0] != '\0') {
			fputs(" Li ", out);
			man_text(out, usage);
		}
		fputc('\n', out);
		if (e->alias != NULL)
			fprintf(out, "(alias\n.Ic %s )\n", e->alias);
		man_text(out, e->help != NULL ? e->help : e->summary);
		fputc('\n', out);
		man_params(out, e->params);
	}
	fprintf(out, ".El\n");
}

/* Print the ALGORITHMS section of the man page (mdoc) from the algorithm table: learners,
 * then combinators (written COMBINATOR:LEARNER). */
void fb_cmd_print_man_algos(FILE *out)
{
	fprintf(out, ".Bl -tag -width Ds\n");
	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		const fb_algo *a = fb_algo_table[i];

		fprintf(out, ".It Cm %s%s\n", a->name,
		        (a->flags & FB_ALGO_COMBINATOR) ? " Ns : Ns Ar learner" : "");
		man_text(out, a->summary);
		fputs(".\n", out);
		man_text(out, a->intro);
		fputs("\n.Pp\n", out);
		man_text(out, a->help);
		fputc('\n', out);
		man_params(out, a->params);
	}
	fprintf(out, ".El\n");
}
