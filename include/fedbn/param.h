/* Declared key=value parameters: one table per command or algorithm says each parameter's
 * type, range, default and help; parsing, checking, completion and help all read it. */
#ifndef FEDBN_PARAM_H
#define FEDBN_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"

/* The type of one parameter's value. */
enum fb_param_type {
	FB_PARAM_INT,    /* a whole number within [min, max] */
	FB_PARAM_DOUBLE, /* a finite real within [min, max] */
	FB_PARAM_CHOICE, /* one word of a '|'-separated list */
	FB_PARAM_STRING, /* any text (a list, a file name) */
	FB_PARAM_BOOL,   /* yes|no|on|off|true|false|1|0 */
};

/* One declared parameter. */
typedef struct fb_param_def {
	const char *name;          /* the key */
	enum fb_param_type type;   /* what the value must be */
	const char *def;           /* default, as text (NULL: no default, unset) */
	double min, max;           /* inclusive range for INT and DOUBLE */
	const char *choices;       /* for CHOICE: "a|b|c" */
	const char *help;          /* one line */
} fb_param_def;

/* A parsed value. */
typedef struct fb_param_value {
	bool set;       /* given by the user or by a default */
	bool given;     /* given by the user */
	int64_t i;      /* INT, BOOL (0/1) and CHOICE (index into choices) */
	double d;       /* DOUBLE (and INT, converted) */
	char *s;        /* the text as given or defaulted (owned) */
} fb_param_value;

/* Values for one table, in the table's order. */
typedef struct fb_params {
	const fb_param_def *defs; /* the table (not owned) */
	size_t n;                 /* its length */
	fb_param_value *v;        /* n values (owned) */
} fb_params;

/* Length of a table terminated by an entry whose name is NULL. */
size_t fb_param_table_len(const fb_param_def *defs);

/* Fill p with the table's defaults; FB_ERR (a bad default in the table) is a program bug. */
int fb_params_init(fb_params *p, const fb_param_def *defs, fb_error *err);
/* Release p's values. */
void fb_params_release(fb_params *p);
/* Copy src into dst (dst is initialised here). */
void fb_params_copy(fb_params *dst, const fb_params *src);

/* Parse one "key=value" word into p; on error p is unchanged and err names key and rule. */
int fb_params_set_word(fb_params *p, const char *word, const char *what, fb_error *err);
/* Parse argv's key=value words into p; all or nothing. */
int fb_params_set_words(fb_params *p, int argc, char *const *argv, const char *what,
                        fb_error *err);

/* Index of key in the table, or -1. */
int fb_params_find(const fb_params *p, const char *key);
/* Typed getters by key (the key must exist in the table: a program bug otherwise). */
int64_t fb_params_int(const fb_params *p, const char *key);
double fb_params_double(const fb_params *p, const char *key);
bool fb_params_bool(const fb_params *p, const char *key);
const char *fb_params_str(const fb_params *p, const char *key);
bool fb_params_given(const fb_params *p, const char *key);

/* Describe one definition's accepted values, e.g. "integer in [1, 1000]" (static storage). */
const char *fb_param_describe(const fb_param_def *def, char *buf, size_t len);

#endif
