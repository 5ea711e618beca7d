/* Background knowledge in files: Tetrad's knowledge text (a "/knowledge" line, then the
 * sections "addtemporal" with lines "TIER NAME..." ("TIER*" forbidding arcs within the
 * tier), "forbiddirect" and "requiredirect" with lines "FROM TO"), and bnlearn-style CSV
 * (a header with "from" and "to" and a column saying whitelist or blacklist for each row).
 * Reading builds the knowledge in a copy, so a file that fails leaves nothing half made. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/knowledge.h"

/* What a Tetrad file's lines mean at this point. */
enum kn_section {
	KN_NONE = 0,     /* before any section */
	KN_TIERS,        /* addtemporal */
	KN_FORBID,       /* forbiddirect */
	KN_REQUIRE,      /* requiredirect */
};

/* A file being read: where we are, for the sentences. */
typedef struct kn_reader {
	const char *path;   /* the file */
	size_t line;        /* the current line (1-based) */
	const char *text;   /* the current line's text (for columns) */
	fb_knowledge *k;    /* what is being built */
	const char *const *names; /* the data's variables */
	size_t d;           /* how many */
} kn_reader;

/* The 1-based column of word in the current line. */
static size_t kn_column(const kn_reader *r, const char *word)
{
	return (size_t)(word - r->text) + 1;
}

/* The index of variable name, or fail naming the file, line and column. */
static int kn_var(const kn_reader *r, const char *name, size_t *v, fb_error *err)
{
	for (size_t j = 0; j < r->d; j++)
		if (strcmp(r->names[j], name) == 0) {
			*v = j;
			return FB_OK;
		}
	return fb_fail(err, "%s:%zu:%zu: '%s' is not a variable of the data", r->path, r->line,
	               kn_column(r, name), name);
}

/* Pass a statement's refusal on with the file, line and column of its first word. */
static int kn_refused(const kn_reader *r, const char *word, const fb_error *why,
                      fb_error *err)
{
	return fb_fail(err, "%s:%zu:%zu: %s", r->path, r->line, kn_column(r, word), why->msg);
}

/* Split line (changed in place) into at most max blank-separated words; how many. */
static size_t kn_words(char *line, char **w, size_t max)
{
	size_t n = 0;

	for (char *p = line; *p != '\0' && n < max;) {
		while (*p != '\0' && isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		w[n++] = p;
		while (*p != '\0' && !isspace((unsigned char)*p))
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return n;
}

/* A tier line: "TIER NAME..." or "TIER* NAME...". */
static int kn_tier_line(kn_reader *r, char **w, size_t n, fb_error *err)
{
	char *end;
	long t = strtol(w[0], &end, 10);
	bool within = *end == '*';
	fb_error why = { { 0 } };
	size_t v;

	if (end == w[0] || t < 1 || (*end != '\0' && !(within && end[1] == '\0')))
		return fb_fail(err, "%s:%zu:%zu: '%s' is not a tier number (1, 2, ..., or 2* to "
		               "forbid arcs within tier 2)", r->path, r->line, kn_column(r, w[0]),
		               w[0]);
	for (size_t i = 1; i < n; i++) {
		if (kn_var(r, w[i], &v, err) != FB_OK)
			return FB_ERR;
		if (fb_knowledge_set_tier(r->k, v, (int)t, &why) != FB_OK)
			return kn_refused(r, w[i], &why, err);
	}
	if (within && fb_knowledge_forbid_within_tier(r->k, (int)t, &why) != FB_OK)
		return kn_refused(r, w[0], &why, err);
	return FB_OK;
}

/* An arc line of forbiddirect or requiredirect: "FROM TO". */
static int kn_arc_line(kn_reader *r, enum kn_section sec, char **w, size_t n, fb_error *err)
{
	fb_error why = { { 0 } };
	size_t a, b;
	int rc;

	if (n != 2)
		return fb_fail(err, "%s:%zu:%zu: an arc is two names, FROM TO, not %zu words",
		               r->path, r->line, kn_column(r, w[0]), n);
	if (kn_var(r, w[0], &a, err) != FB_OK || kn_var(r, w[1], &b, err) != FB_OK)
		return FB_ERR;
	rc = sec == KN_FORBID ? fb_knowledge_forbid(r->k, a, b, &why)
	                      : fb_knowledge_require(r->k, a, b, &why);
	return rc == FB_OK ? FB_OK : kn_refused(r, w[0], &why, err);
}

/* The section a heading names, or KN_NONE when the word is none. */
static enum kn_section kn_heading(const char *word)
{
	if (strcmp(word, "addtemporal") == 0)
		return KN_TIERS;
	if (strcmp(word, "forbiddirect") == 0)
		return KN_FORBID;
	if (strcmp(word, "requiredirect") == 0)
		return KN_REQUIRE;
	return KN_NONE;
}

/* One line of a Tetrad knowledge file (after "/knowledge"). */
static int kn_tetrad_line(kn_reader *r, char *line, enum kn_section *sec, fb_error *err)
{
	char *w[4096];
	size_t n = kn_words(line, w, sizeof w / sizeof w[0]);

	if (n == 0 || w[0][0] == '#')
		return FB_OK;
	if (n == sizeof w / sizeof w[0])
		return fb_fail(err, "%s:%zu:1: more than %zu words on one line", r->path, r->line,
		               n - 1);
	if (n == 1 && kn_heading(w[0]) != KN_NONE) {
		*sec = kn_heading(w[0]);
		return FB_OK;
	}
	if (n == 1 && (strcmp(w[0], "forbiddengroups") == 0 ||
	               strcmp(w[0], "requiredgroups") == 0))
		return fb_fail(err, "%s:%zu:1: fedbn reads addtemporal, forbiddirect and "
		               "requiredirect; '%s' sections are not taken", r->path, r->line, w[0]);
	if (*sec == KN_NONE)
		return fb_fail(err, "%s:%zu:%zu: '%s' comes before any section (addtemporal, "
		               "forbiddirect or requiredirect)", r->path, r->line,
		               kn_column(r, w[0]), w[0]);
	return *sec == KN_TIERS ? kn_tier_line(r, w, n, err) : kn_arc_line(r, *sec, w, n, err);
}

/* The CSV columns of a bnlearn-style header: from, to and the list column (type, list,
 * kind or what: whitelist or blacklist); FB_ERR when from or to is missing. */
static int kn_csv_header(kn_reader *r, char *line, int col[3], fb_error *err)
{
	int c = 0;

	col[0] = col[1] = col[2] = -1;
	for (char *f = strtok(line, ",\r"); f != NULL; f = strtok(NULL, ",\r"), c++) {
		while (*f == ' ' || *f == '"')
			f++;
		for (char *e = f + strlen(f); e > f && (e[-1] == ' ' || e[-1] == '"');)
			*--e = '\0';
		if (strcmp(f, "from") == 0)
			col[0] = c;
		else if (strcmp(f, "to") == 0)
			col[1] = c;
		else if (strcmp(f, "type") == 0 || strcmp(f, "list") == 0 ||
		         strcmp(f, "kind") == 0 || strcmp(f, "what") == 0)
			col[2] = c;
	}
	if (col[0] < 0 || col[1] < 0)
		return fb_fail(err, "%s:1:1: a knowledge CSV needs columns 'from' and 'to' (and "
		               "one saying whitelist or blacklist), or a Tetrad file starting "
		               "'/knowledge'", r->path);
	return FB_OK;
}

/* The fields of a CSV line (changed in place), trimmed of blanks and quotes; how many. */
static size_t kn_csv_fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	for (char *p = line; n < max;) {
		char *e = strchr(p, ',');

		if (e != NULL)
			*e = '\0';
		while (*p == ' ' || *p == '"')
			p++;
		f[n++] = p;
		for (char *q = p + strlen(p); q > p && (q[-1] == ' ' || q[-1] == '"' ||
		                                        q[-1] == '\r');)
			*--q = '\0';
		if (e == NULL)
			break;
		p = e + 1;
	}
	return n;
}

/* Which list a row's list field names: KN_REQUIRE (whitelist), KN_FORBID (blacklist), or
 * KN_NONE for neither. */
static enum kn_section kn_list(const char *f)
{
	if (strcmp(f, "whitelist") == 0 || strcmp(f, "require") == 0 ||
	    strcmp(f, "required") == 0)
		return KN_REQUIRE;
	if (strcmp(f, "blacklist") == 0 || strcmp(f, "forbid") == 0 ||
	    strcmp(f, "forbidden") == 0)
		return KN_FORBID;
	return KN_NONE;
}

/* One row of a bnlearn-style CSV: an arc whitelisted (required) or blacklisted
 * (forbidden); without a list column every row is blacklisted, as bnlearn's blacklist.
 * The fields are cut in a copy of the line, so their offsets are the line's columns. */
static int kn_csv_line(kn_reader *r, const char *line, const int col[3], fb_error *err)
{
	char *f[64], *copy = fb_xstrdup(line), *w[2];
	size_t n = kn_csv_fields(copy, f, 64);
	int need = col[0] > col[1] ? col[0] : col[1];
	enum kn_section sec = KN_FORBID;
	int rc = FB_OK;

	need = col[2] > need ? col[2] : need;
	r->text = copy;
	if (n == 1 && f[0][0] == '\0')
		rc = FB_OK;
	else if ((int)n <= need)
		rc = fb_fail(err, "%s:%zu:1: %zu fields, and the header asks for %d", r->path,
		             r->line, n, need + 1);
	else if (col[2] >= 0 && (sec = kn_list(f[col[2]])) == KN_NONE)
		rc = fb_fail(err, "%s:%zu:%zu: '%s' is neither whitelist nor blacklist", r->path,
		             r->line, kn_column(r, f[col[2]]), f[col[2]]);
	else {
		w[0] = f[col[0]];
		w[1] = f[col[1]];
		rc = kn_arc_line(r, sec, w, 2, err);
	}
	r->text = line;
	free(copy);
	return rc;
}

/* Read every line of fp into r (Tetrad or CSV, by the first line that is not blank). */
static int kn_read_lines(kn_reader *r, FILE *fp, fb_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum kn_section sec = KN_NONE;
	int kind = 0, col[3], rc = FB_OK; /* kind: 0 unknown, 1 Tetrad, 2 CSV */

	while (rc == FB_OK && (len = getline(&line, &cap, fp)) >= 0) {
		r->line++;
		r->text = line;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (kind == 0 && strspn(line, " \t\r") == (size_t)len)
			continue;
		if (kind == 0) {
			kind = strncmp(line + strspn(line, " \t"), "/knowledge", 10) == 0 ? 1 : 2;
			rc = kind == 1 ? FB_OK : kn_csv_header(r, line, col, err);
			continue;
		}
		rc = kind == 1 ? kn_tetrad_line(r, line, &sec, err) : kn_csv_line(r, line, col, err);
	}
	free(line);
	if (rc == FB_OK && kind == 0)
		rc = fb_fail(err, "%s: the file is empty: knowledge is a Tetrad file starting "
		             "'/knowledge' or a CSV with columns from, to and whitelist or "
		             "blacklist", r->path);
	return rc;
}

/* Read knowledge over variables names[0..d-1] from path. */
fb_knowledge *fb_knowledge_read(const char *path, size_t d, const char *const *names,
                                fb_error *err)
{
	kn_reader r = { path, 0, "", NULL, names, d };
	FILE *fp = fopen(path, "r");

	if (fp == NULL) {
		fb_fail(err, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	r.k = fb_knowledge_alloc(d, names);
	if (kn_read_lines(&r, fp, err) != FB_OK) {
		fb_knowledge_free(r.k);
		r.k = NULL;
	}
	fclose(fp);
	return r.k;
}

/* Tier t's line into fp: "t NAME..." ("t*" when it forbids arcs within). */
static void kn_write_tier(const fb_knowledge *k, int t, FILE *fp)
{
	fprintf(fp, "%d%s", t, fb_knowledge_within_forbidden(k, t) ? "*" : "");
	for (size_t v = 0; v < fb_knowledge_d(k); v++)
		if (fb_knowledge_tier(k, v) == t)
			fprintf(fp, " %s", fb_knowledge_name(k, v));
	fputc('\n', fp);
}

/* The tiers in use, in increasing order, each once. */
static void kn_write_tiers(const fb_knowledge *k, FILE *fp)
{
	fprintf(fp, "addtemporal\n");
	for (int t = fb_knowledge_next_tier(k, 0); t != 0; t = fb_knowledge_next_tier(k, t))
		kn_write_tier(k, t, fp);
}

/* The arcs forbidden by their own statement (or required) into fp, one a line. */
static void kn_write_arcs(const fb_knowledge *k, bool require, FILE *fp)
{
	size_t d = fb_knowledge_d(k);

	fprintf(fp, "\n%s\n", require ? "requiredirect" : "forbiddirect");
	for (size_t a = 0; a < d; a++)
		for (size_t b = 0; b < d; b++)
			if (require ? fb_knowledge_requires(k, a, b)
			            : fb_knowledge_forbidden_directly(k, a, b))
				fprintf(fp, "%s %s\n", fb_knowledge_name(k, a), fb_knowledge_name(k, b));
}

/* Write k to path in Tetrad's knowledge text. */
int fb_knowledge_write(const fb_knowledge *k, const char *path, fb_error *err)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL)
		return fb_fail(err, "cannot write '%s': %s", path, strerror(errno));
	fprintf(fp, "/knowledge\n");
	kn_write_tiers(k, fp);
	kn_write_arcs(k, false, fp);
	kn_write_arcs(k, true, fp);
	if (fclose(fp) != 0)
		return fb_fail(err, "cannot write '%s': %s", path, strerror(errno));
	return FB_OK;
}
