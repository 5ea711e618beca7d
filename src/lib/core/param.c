/* Declared key=value parameters: parsing and checking against a table, in one place. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/param.h"

/* Length of a NULL-name-terminated table. */
size_t fb_param_table_len(const fb_param_def *defs)
{
	size_t n = 0;

	while (defs[n].name != NULL)
		n++;
	return n;
}

/* The entry of choices named word, or NULL. */
const fb_choice *fb_choice_find(const fb_choice *choices, const char *word)
{
	for (size_t k = 0; choices != NULL && choices[k].name != NULL; k++)
		if (strcmp(choices[k].name, word) == 0)
			return &choices[k];
	return NULL;
}

/* The name of value in a choice table, or NULL. */
const char *fb_choice_name(const fb_choice *choices, int value)
{
	for (size_t k = 0; choices != NULL && choices[k].name != NULL; k++)
		if (choices[k].value == value)
			return choices[k].name;
	return NULL;
}

/* The names of a choice table joined by sep, into buf (cut short when it does not fit). */
const char *fb_choice_list(const fb_choice *choices, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	if (len > 0)
		buf[0] = '\0';
	for (size_t k = 0; choices != NULL && choices[k].name != NULL && used < len; k++) {
		int n = snprintf(buf + used, len - used, "%s%s", k > 0 ? sep : "", choices[k].name);

		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}

/* Parse a boolean word. */
static int parse_bool(const char *s, int64_t *out)
{
	static const char *yes[] = { "yes", "on", "true", "1" };
	static const char *no[] = { "no", "off", "false", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (fb_strcasecmp(s, yes[i]) == 0)
			return (*out = 1), FB_OK;
		if (fb_strcasecmp(s, no[i]) == 0)
			return (*out = 0), FB_OK;
	}
	return FB_ERR;
}

/* A bound at least this far from 0 stands for no limit (an integer's 2^53 and up: a seed's
 * 9.2e18; a number's 1e300). */
#define NO_LIMIT_INT 9.007199254740992e15
#define NO_LIMIT_DOUBLE 1e300

/* Describe the range of a number (what is "integer" or "number"): "in [0, 1]", or in plain
 * words where a bound stands for no limit ("from 0, no upper limit", "above 0, no upper
 * limit" for a tiny positive floor, "any"). */
static void describe_range(const fb_param_def *def, const char *what, char *buf, size_t len)
{
	double far = def->type == FB_PARAM_INT ? NO_LIMIT_INT : NO_LIMIT_DOUBLE;
	bool no_top = def->max >= far, no_floor = def->min <= -far;
	bool above_0 = def->type == FB_PARAM_DOUBLE && def->min > 0 && def->min <= 1e-300;

	if (no_top && no_floor)
		snprintf(buf, len, "any %s", what);
	else if (no_top && above_0)
		snprintf(buf, len, "%s above 0, no upper limit", what);
	else if (no_top)
		snprintf(buf, len, "%s from %.15g, no upper limit", what, def->min);
	else if (no_floor)
		snprintf(buf, len, "%s up to %.15g, no lower limit", what, def->max);
	else if (def->type == FB_PARAM_INT)
		snprintf(buf, len, "%s in [%.15g, %.15g]", what, def->min, def->max);
	else
		snprintf(buf, len, "%s in [%g, %g]", what, def->min, def->max);
}

/* Describe what a definition accepts. */
const char *fb_param_describe(const fb_param_def *def, char *buf, size_t len)
{
	switch (def->type) {
	case FB_PARAM_INT:
		describe_range(def, "integer", buf, len);
		break;
	case FB_PARAM_DOUBLE:
		describe_range(def, "number", buf, len);
		break;
	case FB_PARAM_CHOICE: {
		char names[112];

		snprintf(buf, len, "one of %s", fb_choice_list(def->choices, "|", names,
		                                               sizeof names));
		break;
	}
	case FB_PARAM_BOOL:
		snprintf(buf, len, "yes or no");
		break;
	case FB_PARAM_STRING: {
		char names[112];

		if (def->choices != NULL)
			snprintf(buf, len, "%s, or text", fb_choice_list(def->choices, "|", names,
			                                                 sizeof names));
		else
			snprintf(buf, len, "text");
		break;
	}
	}
	return buf;
}

/* Convert text to a value for def; FB_ERR with a sentence naming the key. */
static int parse_value(const fb_param_def *def, const char *text, fb_param_value *out,
                       const char *what, fb_error *err)
{
	char desc[128];
	int64_t i;
	double d;

	memset(out, 0, sizeof *out);
	if (text[0] == '\0') /* key= is a slip of the keyboard for every type, text too */
		return fb_fail(err, "%s: parameter '%s' needs a value (%s)", what, def->name,
		               def->type == FB_PARAM_STRING && def->help != NULL
		                       ? def->help
		                       : fb_param_describe(def, desc, sizeof desc));
	switch (def->type) {
	case FB_PARAM_INT:
		if (fb_parse_int64(text, &i) != FB_OK || (double)i < def->min || (double)i > def->max)
			goto bad;
		out->i = i;
		out->d = (double)i;
		break;
	case FB_PARAM_DOUBLE:
		if (fb_parse_double(text, &d) != FB_OK || d < def->min || d > def->max)
			goto bad;
		out->d = d;
		break;
	case FB_PARAM_CHOICE: {
		const fb_choice *c = fb_choice_find(def->choices, text);

		if (c == NULL)
			goto bad;
		out->i = c->value;
		break;
	}
	case FB_PARAM_BOOL:
		if (parse_bool(text, &out->i) != FB_OK)
			goto bad;
		break;
	case FB_PARAM_STRING:
		break;
	}
	out->s = fb_xstrdup(text);
	out->set = true;
	return FB_OK;
bad:
	return fb_fail(err, "%s: parameter '%s' must be %s, not '%s'", what, def->name,
	               fb_param_describe(def, desc, sizeof desc), text);
}

/* Fill p with the table's defaults. */
int fb_params_init(fb_params *p, const fb_param_def *defs, fb_error *err)
{
	p->defs = defs;
	p->n = fb_param_table_len(defs);
	p->v = fb_xcalloc(p->n, sizeof *p->v);
	for (size_t k = 0; k < p->n; k++) {
		if (defs[k].def == NULL)
			continue;
		if (parse_value(&defs[k], defs[k].def, &p->v[k], "default", err) != FB_OK) {
			fb_params_release(p);
			return FB_ERR;
		}
	}
	return FB_OK;
}

/* A table's defaults; a bad one is a program bug, reported and left unset. */
fb_params fb_params_defaults(const fb_param_def *defs)
{
	fb_error err = { { 0 } };
	fb_params p;

	if (fb_params_init(&p, defs, &err) != FB_OK) {
		fprintf(stderr, "fedbn: internal error: %s\n", err.msg);
		p.defs = defs;
		p.n = fb_param_table_len(defs);
		p.v = fb_xcalloc(p.n, sizeof *p.v);
	}
	return p;
}

/* Release the values. */
void fb_params_release(fb_params *p)
{
	for (size_t k = 0; p->v != NULL && k < p->n; k++)
		free(p->v[k].s);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* Deep copy. */
void fb_params_copy(fb_params *dst, const fb_params *src)
{
	dst->defs = src->defs;
	dst->n = src->n;
	dst->v = fb_xcalloc(src->n, sizeof *dst->v);
	for (size_t k = 0; k < src->n; k++) {
		dst->v[k] = src->v[k];
		dst->v[k].s = src->v[k].s != NULL ? fb_xstrdup(src->v[k].s) : NULL;
	}
}

/* Index of key, or -1. */
int fb_params_find(const fb_params *p, const char *key)
{
	for (size_t k = 0; k < p->n; k++)
		if (strcmp(p->defs[k].name, key) == 0)
			return (int)k;
	return -1;
}

/* Split "key=value" and find the key; FB_ERR naming what is wrong. */
static int split_word(const fb_params *p, const char *word, const char *what, int *idx,
                      const char **value, fb_error *err)
{
	const char *eq = strchr(word, '=');
	char key[128];
	size_t klen;

	if (eq == NULL || eq == word)
		return fb_fail(err, "%s: expected key=value, not '%s'", what, word);
	klen = (size_t)(eq - word);
	if (klen >= sizeof key)
		return fb_fail(err, "%s: unknown parameter '%.40s...'", what, word);
	memcpy(key, word, klen);
	key[klen] = '\0';
	*idx = fb_params_find(p, key);
	if (*idx < 0) {
		size_t best = (size_t)-1;
		const char *near = NULL;

		for (size_t k = 0; k < p->n; k++) {
			size_t dist = fb_edit_distance(key, p->defs[k].name);

			if (dist < best)
				best = dist, near = p->defs[k].name;
		}
		if (near != NULL && best <= 2)
			return fb_fail(err, "%s: unknown parameter '%s' (did you mean '%s'?)", what,
			               key, near);
		return fb_fail(err, "%s: unknown parameter '%s'", what, key);
	}
	*value = eq + 1;
	return FB_OK;
}

/* Parse one key=value word into p. */
int fb_params_set_word(fb_params *p, const char *word, const char *what, fb_error *err)
{
	fb_param_value v;
	const char *value = NULL;
	int idx = -1;

	if (split_word(p, word, what, &idx, &value, err) != FB_OK)
		return FB_ERR;
	if (parse_value(&p->defs[idx], value, &v, what, err) != FB_OK)
		return FB_ERR;
	v.given = true;
	free(p->v[idx].s);
	p->v[idx] = v;
	return FB_OK;
}

/* FB_ERR naming the first key two words share. */
int fb_params_check_repeats(int argc, char *const *argv, const char *what, fb_error *err)
{
	for (int a = 1; a < argc; a++) {
		size_t klen = strcspn(argv[a], "=");

		if (argv[a][klen] != '=')
			continue;
		for (int b = 0; b < a; b++)
			if (strncmp(argv[a], argv[b], klen + 1) == 0)
				return fb_fail(err, "%s: parameter '%.*s' is given twice", what,
				               (int)klen, argv[a]);
	}
	return FB_OK;
}

/* Parse all words, all or nothing. */
int fb_params_set_words(fb_params *p, int argc, char *const *argv, const char *what,
                        fb_error *err)
{
	fb_params tmp;

	if (fb_params_check_repeats(argc, argv, what, err) != FB_OK)
		return FB_ERR;
	fb_params_copy(&tmp, p);
	for (int a = 0; a < argc; a++) {
		if (fb_params_set_word(&tmp, argv[a], what, err) != FB_OK) {
			fb_params_release(&tmp);
			return FB_ERR;
		}
	}
	fb_params_release(p);
	*p = tmp;
	return FB_OK;
}

/* The value of key; a missing key is a program bug, reported and read as unset. */
static const fb_param_value *get(const fb_params *p, const char *key)
{
	static const fb_param_value unset;
	int idx = fb_params_find(p, key);

	if (idx < 0) {
		fprintf(stderr, "fedbn: internal error: no parameter '%s'\n", key);
		return &unset;
	}
	return &p->v[idx];
}

/* Typed getters. */
int64_t fb_params_int(const fb_params *p, const char *key) { return get(p, key)->i; }
/* The value of a DOUBLE (or INT) parameter. */
double fb_params_double(const fb_params *p, const char *key) { return get(p, key)->d; }
/* The value of a BOOL parameter. */
bool fb_params_bool(const fb_params *p, const char *key) { return get(p, key)->i != 0; }
/* The value of a CHOICE parameter. */
int fb_params_choice(const fb_params *p, const char *key) { return (int)get(p, key)->i; }

/* Whether the CHOICE parameter key holds the choice named name. */
bool fb_params_is(const fb_params *p, const char *key, const char *name)
{
	int idx = fb_params_find(p, key);
	const char *chosen = idx < 0 ? NULL : fb_choice_name(p->defs[idx].choices,
	                                                      (int)get(p, key)->i);

	return chosen != NULL && strcmp(chosen, name) == 0;
}
/* The text of a parameter, NULL when unset. */
const char *fb_params_str(const fb_params *p, const char *key) { return get(p, key)->s; }
/* Whether the user gave key. */
bool fb_params_given(const fb_params *p, const char *key) { return get(p, key)->given; }
