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

/* One named value of a CHOICE parameter: the word the user writes and the enum value the
 * program compares; a choice table ends with an entry whose name is NULL. */
typedef struct fb_choice {
	const char *name; /* the word, e.g. "owlqn" */
	int value;        /* the enum value it stands for, e.g. FB_ADMM_OWLQN */
} fb_choice;

/* One declared parameter. */
typedef struct fb_param_def {
	const char *name;          /* the key */
	enum fb_param_type type;   /* what the value must be */
	const char *def;           /* default, as text (NULL: no default, unset); the only place
	                              the default is written */
	double min, max;           /* inclusive range for INT and DOUBLE */
	const fb_choice *choices;  /* CHOICE: the named values; STRING: words completion offers
	                              (any text is still accepted), or NULL */
	const char *help;          /* one line */
} fb_param_def;

/* A parsed value. */
typedef struct fb_param_value {
	bool set;       /* given by the user or by a default */
	bool given;     /* given by the user */
	int64_t i;      /* INT, BOOL (0/1) and CHOICE (the chosen fb_choice's value) */
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
/* A table's defaults (a bad default in the table is a program bug: reported, left unset);
 * release with fb_params_release. */
fb_params fb_params_defaults(const fb_param_def *defs);
/* Release p's values. */
void fb_params_release(fb_params *p);
/* Copy src into dst (dst is initialised here). */
void fb_params_copy(fb_params *dst, const fb_params *src);

/* Parse one "key=value" word into p; on error p is unchanged and err names key and rule. */
int fb_params_set_word(fb_params *p, const char *word, const char *what, fb_error *err);
/* Parse argv's key=value words into p; all or nothing; a key given twice is an error. */
int fb_params_set_words(fb_params *p, int argc, char *const *argv, const char *what,
                        fb_error *err);

/* FB_ERR naming the first key that two of argv's key=value words share. */
int fb_params_check_repeats(int argc, char *const *argv, const char *what, fb_error *err);

/* Index of key in the table, or -1. */
int fb_params_find(const fb_params *p, const char *key);
/* Typed getters by key (the key must exist in the table: a program bug otherwise). */
int64_t fb_params_int(const fb_params *p, const char *key);
double fb_params_double(const fb_params *p, const char *key);
bool fb_params_bool(const fb_params *p, const char *key);
/* The value of a CHOICE parameter: the chosen fb_choice's value (an enum of its module). */
int fb_params_choice(const fb_params *p, const char *key);
/* Whether the CHOICE parameter key holds the choice named name (no enum to keep in step). */
bool fb_params_is(const fb_params *p, const char *key, const char *name);
const char *fb_params_str(const fb_params *p, const char *key);
bool fb_params_given(const fb_params *p, const char *key);

/* The entry of a choice table named word, or NULL. */
const fb_choice *fb_choice_find(const fb_choice *choices, const char *word);
/* The name of value in a choice table, or NULL. */
const char *fb_choice_name(const fb_choice *choices, int value);
/* Write a choice table's names joined by sep ("a|b|c") into buf; returns buf. */
const char *fb_choice_list(const fb_choice *choices, const char *sep, char *buf, size_t len);

/* Describe one definition's accepted values, e.g. "integer in [1, 1000]" (static storage). */
const char *fb_param_describe(const fb_param_def *def, char *buf, size_t len);

#endif
