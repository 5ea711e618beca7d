/* Grids of variables: parsing NAME=VALUES words, walking the cells, and substituting
 * ${NAME} in a script. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "fedbn/experiment.h"

/* Whether c may start (first) or continue a variable name. */
static bool grid_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* Whether the len bytes at s form a variable name. */
static bool grid_name_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!grid_name_char(s[i], i == 0))
			return false;
	return true;
}

/* Append value to var. */
static void grid_var_push(fb_grid_var *var, const char *value)
{
	var->values = fb_xreallocarray(var->values, var->n + 1, sizeof *var->values);
	var->values[var->n++] = fb_xstrdup(value);
}

/* Free one variable. */
static void grid_var_release(fb_grid_var *var)
{
	for (size_t i = 0; i < var->n; i++)
		free(var->values[i]);
	free(var->values);
	free(var->name);
}

/* Add the item A..B as a range when it is one (*range set), else nothing; FB_ERR for a
 * backwards or too long range. */
static int grid_range(fb_grid_var *var, const char *item, const char *word, bool *range,
                      fb_error *err)
{
	const char *dots = strstr(item, "..");
	char lo[32];
	int64_t a, b;

	*range = false;
	if (dots == NULL || (size_t)(dots - item) >= sizeof lo)
		return FB_OK;
	memcpy(lo, item, (size_t)(dots - item));
	lo[dots - item] = '\0';
	if (fb_parse_int64(lo, &a) != 0 || fb_parse_int64(dots + 2, &b) != 0)
		return FB_OK;
	*range = true;
	if (a > b)
		return fb_fail(err, "'%s': the range %s runs backwards (write %" PRId64 "..%" PRId64
		                    ")", word, item, b, a);
	if (b - a >= FB_GRID_MAX_CELLS)
		return fb_fail(err, "'%s': the range %s has more than %d values", word, item,
		               FB_GRID_MAX_CELLS);
	for (int64_t v = a; v <= b; v++) {
		char num[32];

		snprintf(num, sizeof num, "%" PRId64, v);
		grid_var_push(var, num);
	}
	return FB_OK;
}

/* Parse the comma-separated values of word (after its '=') into var. */
static int grid_values(fb_grid_var *var, const char *values, const char *word, fb_error *err)
{
	char *copy = fb_xstrdup(values), *p = copy;
	int ret = FB_OK;

	while (ret == FB_OK) {
		char *comma = strchr(p, ',');
		bool range;

		if (comma != NULL)
			*comma = '\0';
		if (values[0] == '\0')
			ret = fb_fail(err, "'%s' has no values (give values such as 2,4,8 or 1..10)",
			              word);
		else if (p[0] == '\0')
			ret = fb_fail(err, "'%s' has an empty value in its list", word);
		else if ((ret = grid_range(var, p, word, &range, err)) == FB_OK && !range)
			grid_var_push(var, p);
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	free(copy);
	return ret;
}

/* The number of cells, saturating at SIZE_MAX. */
size_t fb_grid_cells(const fb_grid *g)
{
	size_t n = 1;

	for (size_t v = 0; v < g->nvars; v++)
		n = n > SIZE_MAX / g->vars[v].n ? SIZE_MAX : n * g->vars[v].n;
	return n;
}

/* Add one NAME=VALUES variable. */
int fb_grid_add(fb_grid *g, const char *word, fb_error *err)
{
	const char *eq = strchr(word, '=');
	fb_grid_var var = { 0 };

	if (eq == NULL || !grid_name_ok(word, (size_t)(eq - word)))
		return fb_fail(err, "'%s' is not NAME=VALUES (a name of letters, digits and _)", word);
	var.name = fb_xmalloc((size_t)(eq - word) + 1);
	memcpy(var.name, word, (size_t)(eq - word));
	var.name[eq - word] = '\0';
	if (fb_grid_find(g, var.name) >= 0) {
		fb_fail(err, "'%s': the variable '%s' is given twice", word, var.name);
		grid_var_release(&var);
		return FB_ERR;
	}
	if (grid_values(&var, eq + 1, word, err) != FB_OK) {
		grid_var_release(&var);
		return FB_ERR;
	}
	g->vars = fb_xreallocarray(g->vars, g->nvars + 1, sizeof *g->vars);
	g->vars[g->nvars++] = var;
	if (fb_grid_cells(g) > FB_GRID_MAX_CELLS) {
		grid_var_release(&g->vars[--g->nvars]);
		return fb_fail(err, "'%s': the grid would have more than %d cells", word,
		               FB_GRID_MAX_CELLS);
	}
	return FB_OK;
}

/* Free the grid. */
void fb_grid_release(fb_grid *g)
{
	for (size_t v = 0; v < g->nvars; v++)
		grid_var_release(&g->vars[v]);
	free(g->vars);
	memset(g, 0, sizeof *g);
}

/* Variable v's value in cell c: the last variable varies fastest. */
const char *fb_grid_value(const fb_grid *g, size_t c, size_t v)
{
	for (size_t u = g->nvars; u-- > v + 1;)
		c /= g->vars[u].n;
	return g->vars[v].values[c % g->vars[v].n];
}

/* The index of a variable. */
int fb_grid_find(const fb_grid *g, const char *name)
{
	for (size_t v = 0; v < g->nvars; v++)
		if (strcmp(g->vars[v].name, name) == 0)
			return (int)v;
	return -1;
}

/* The variable named by the reference at s (just after "${"), its length in *len, or -1
 * (with *len the bytes up to '}' or 0 when unclosed). */
static int grid_ref(const fb_grid *g, const char *s, size_t *len)
{
	const char *close = strchr(s, '}');
	const char *nl = strchr(s, '\n');
	char name[128];

	*len = 0;
	if (close == NULL || (nl != NULL && nl < close))
		return -1;
	*len = (size_t)(close - s);
	if (*len == 0 || *len >= sizeof name)
		return -1;
	memcpy(name, s, *len);
	name[*len] = '\0';
	return fb_grid_find(g, name);
}

/* The names of the grid as "K, seed and algo" into b. */
static void grid_names(const fb_grid *g, fb_buf *b)
{
	for (size_t v = 0; v < g->nvars; v++)
		fb_buf_printf(b, "%s%s", v == 0 ? "" : v + 1 == g->nvars ? " and " : ", ",
		              g->vars[v].name);
}

/* Check the ${NAME} references of text. */
int fb_grid_check(const fb_grid *g, const char *text, const char *source, bool *used,
                  fb_error *err)
{
	size_t line = 1, len;
	fb_buf names = { 0 };

	for (const char *p = text; *p != '\0'; p++) {
		int v;

		if (*p == '\n')
			line++;
		if (p[0] != '$' || p[1] != '{')
			continue;
		if ((v = grid_ref(g, p + 2, &len)) >= 0) {
			used[v] = true;
			continue;
		}
		if (len == 0)
			return fb_fail(err, "%s:%zu: '${' is not closed by '}' on its line", source, line);
		grid_names(g, &names);
		fb_fail(err, "%s:%zu: '${%.*s}' is not a grid variable (%s%s)", source, line,
		        (int)len, p + 2, g->nvars > 0 ? "the grid has " : "the grid has no variable",
		        names.data != NULL ? names.data : "");
		fb_buf_release(&names);
		return FB_ERR;
	}
	return FB_OK;
}

/* text with cell c's values in place of its ${NAME}s. */
char *fb_grid_expand(const fb_grid *g, size_t c, const char *text)
{
	fb_buf b = { 0 };
	const char *p = text;

	while (*p != '\0') {
		size_t len;
		int v;

		if (p[0] == '$' && p[1] == '{' && (v = grid_ref(g, p + 2, &len)) >= 0) {
			const char *val = fb_grid_value(g, c, (size_t)v);

			fb_buf_append(&b, val, strlen(val));
			p += len + 3;
		} else {
			fb_buf_append(&b, p++, 1);
		}
	}
	return b.data != NULL ? b.data : fb_xstrdup("");
}
