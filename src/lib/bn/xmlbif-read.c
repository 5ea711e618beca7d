/* XMLBIF in: the subset of XMLBIF 0.3 that fb_bn_write_xmlbif writes (and JavaBayes, pgmpy
 * and Weka write too), turned into BIF text for the BIF reader, which then checks it as it
 * checks any BIF file. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bn-private.h"

/* What the scan has: the text, where it is, and the BIF being written. */
struct xml {
	const char *s;      /* the file's text */
	size_t pos, line;   /* where the scan is, and its line */
	const char *path;   /* the file, for messages */
	fb_buf bif;         /* the BIF text so far */
	char **names;       /* variables declared so far (owned) */
	size_t *nstates;    /* their outcomes */
	size_t nvars;       /* how many */
};

/* Move to the next tag's '<' (counting lines), skipping declarations and comments; its
 * name (up to 15 characters, '/' first for a closing tag) into tag; 0 at the end. */
static int next_tag(struct xml *x, char tag[16])
{
	for (;;) {
		size_t n = 0;
		const char *p;

		while (x->s[x->pos] != '\0' && x->s[x->pos] != '<')
			x->line += x->s[x->pos++] == '\n';
		if (x->s[x->pos] == '\0')
			return 0;
		p = x->s + x->pos + 1;
		if (*p == '?' || *p == '!') { /* a declaration or a comment */
			const char *end = strstr(p, *p == '?' ? "?>" : (p[1] == '-' ? "-->" : ">"));

			for (; x->s + x->pos < (end != NULL ? end : p); x->pos++)
				x->line += x->s[x->pos] == '\n';
			x->pos += end != NULL ? 1 : 0;
			continue;
		}
		while (n < 15 && p[n] != '\0' && strchr(" \t\r\n>", p[n]) == NULL)
			n++;
		memcpy(tag, p, n);
		tag[n] = '\0';
		while (x->s[x->pos] != '\0' && x->s[x->pos] != '>')
			x->line += x->s[x->pos++] == '\n';
		x->pos += x->s[x->pos] == '>';
		return 1;
	}
}

/* The text up to the next '<', entities undone, as a new string (caller frees); NULL with
 * err on an entity it does not know or a double quote (the BIF reader cannot quote it). */
static char *elem_text(struct xml *x, fb_error *err)
{
	static const char *const ent[][2] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
		{ "&apos;", "'" },
	};
	fb_buf b = { 0 };

	while (x->s[x->pos] != '\0' && x->s[x->pos] != '<') {
		size_t e = 0, len = 1;
		const char *c = x->s + x->pos, *out = c;

		if (*c == '&') {
			while (e < 5 && strncmp(c, ent[e][0], strlen(ent[e][0])) != 0)
				e++;
			if (e == 5) {
				fb_buf_release(&b);
				fb_fail(err, "cannot read '%s': line %zu: an entity other than &amp; &lt; "
				        "&gt; &quot; &apos;", x->path, x->line);
				return NULL;
			}
			out = ent[e][1];
			x->pos += strlen(ent[e][0]) - 1;
		}
		x->line += *c == '\n';
		fb_buf_append(&b, out, len);
		x->pos++;
	}
	if (b.data != NULL && strchr(b.data, '"') != NULL) {
		fb_buf_release(&b);
		fb_fail(err, "cannot read '%s': line %zu: a name with a double quote", x->path,
		        x->line);
		return NULL;
	}
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* Expect element tag next and return its text (trimmed of blanks). */
static char *expect(struct xml *x, const char *tag, fb_error *err)
{
	char got[16];
	char *t, *s;
	size_t n;

	if (!next_tag(x, got) || strcmp(got, tag) != 0) {
		fb_fail(err, "cannot read '%s': line %zu: expected <%s>, found %s%s%s", x->path,
		        x->line, tag, got[0] != '\0' ? "<" : "the end", got, got[0] ? ">" : "");
		return NULL;
	}
	if ((t = elem_text(x, err)) == NULL)
		return NULL;
	for (s = t; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; s++)
		;
	n = strlen(s);
	while (n > 0 && strchr(" \t\r\n", s[n - 1]) != NULL)
		n--;
	memmove(t, s, n);
	t[n] = '\0';
	return t;
}

/* A VARIABLE element (its opening tag read): NAME, then OUTCOMEs. */
static int read_variable(struct xml *x, fb_error *err)
{
	char tag[16], *name = expect(x, "NAME", err), *o;
	size_t k = 0;
	fb_buf states = { 0 };

	if (name == NULL)
		return FB_ERR;
	while (next_tag(x, tag) && strcmp(tag, "/VARIABLE") != 0) {
		if (strcmp(tag, "OUTCOME") != 0)
			continue; /* closing tags, PROPERTY */
		if ((o = elem_text(x, err)) == NULL) {
			free(name);
			fb_buf_release(&states);
			return FB_ERR;
		}
		fb_buf_printf(&states, "%s\"%s\"", k++ > 0 ? ", " : "", o);
		free(o);
	}
	fb_buf_printf(&x->bif, "variable \"%s\" {\n  type discrete [ %zu ] { %s };\n}\n", name,
	              k, states.data != NULL ? states.data : "");
	fb_buf_release(&states);
	x->names = realloc(x->names, (x->nvars + 1) * sizeof *x->names);
	x->nstates = realloc(x->nstates, (x->nvars + 1) * sizeof *x->nstates);
	if (x->names == NULL || x->nstates == NULL)
		fb_xalloc_fail((x->nvars + 1) * sizeof *x->names);
	x->names[x->nvars] = name;
	x->nstates[x->nvars++] = k;
	return FB_OK;
}

/* The table's numbers (configurations slowest, the child's states fastest) as BIF's table
 * (the child's states slowest); k the child's states. */
static int write_table(struct xml *x, const char *text, size_t k, fb_error *err)
{
	double *v = NULL;
	size_t n = 0, cap = 0;
	char *end, num[40];

	for (const char *p = text;; p = end) {
		double d = strtod(p, &end);

		if (end == p)
			break;
		if (n == cap && (v = realloc(v, (cap = 2 * cap + 16) * sizeof *v)) == NULL)
			fb_xalloc_fail(cap * sizeof *v);
		v[n++] = d;
	}
	if (k == 0 || n == 0 || n % k != 0) {
		free(v);
		return fb_fail(err, "cannot read '%s': line %zu: a TABLE of %zu numbers for a "
		               "variable of %zu outcomes", x->path, x->line, n, k);
	}
	fb_buf_printf(&x->bif, "  table ");
	for (size_t s = 0; s < k; s++)
		for (size_t c = 0; c < n / k; c++)
			fb_buf_printf(&x->bif, "%s%s", fb_format_double(v[c * k + s], num, sizeof num),
			              s + 1 == k && c + 1 == n / k ? ";\n}\n" : ", ");
	free(v);
	return FB_OK;
}

/* A DEFINITION element (its opening tag read): FOR, GIVENs, TABLE. */
static int read_definition(struct xml *x, fb_error *err)
{
	char tag[16], *child = expect(x, "FOR", err), *t;
	size_t k = 0, np = 0;
	int ret = FB_ERR;

	if (child == NULL)
		return FB_ERR;
	for (size_t i = 0; i < x->nvars; i++)
		if (strcmp(x->names[i], child) == 0)
			k = x->nstates[i];
	fb_buf_printf(&x->bif, "probability ( \"%s\"", child);
	while (next_tag(x, tag) && strcmp(tag, "/DEFINITION") != 0) {
		if (strcmp(tag, "GIVEN") != 0 && strcmp(tag, "TABLE") != 0)
			continue;
		if ((t = elem_text(x, err)) == NULL)
			break;
		if (strcmp(tag, "GIVEN") == 0)
			fb_buf_printf(&x->bif, "%s\"%s\"", np++ == 0 ? " | " : ", ", t);
		else {
			fb_buf_printf(&x->bif, " ) {\n");
			ret = write_table(x, t, k, err);
		}
		free(t);
	}
	free(child);
	if (ret != FB_OK && err->msg[0] == '\0')
		fb_fail(err, "cannot read '%s': line %zu: a DEFINITION without a TABLE", x->path,
		        x->line);
	return ret;
}

/* Read the file's text (caller frees); NULL with err. */
static char *slurp(const char *path, fb_error *err)
{
	FILE *fp = fopen(path, "rb");
	fb_buf b = { 0 };
	char chunk[4096], why[128];
	size_t got;

	if (fp == NULL) {
		fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
		return NULL;
	}
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		fb_buf_append(&b, chunk, got);
	fclose(fp);
	return b.data != NULL ? b.data : fb_xstrdup("");
}

/* Read an XMLBIF file. */
fb_bn *fb_xmlbif_read(const char *path, fb_error *err)
{
	struct xml x = { NULL, 0, 1, path, { 0 }, NULL, NULL, 0 };
	char tag[16], *text, *as;
	fb_bn *bn = NULL;
	int ret;

	err->msg[0] = '\0';
	text = slurp(path, err);
	ret = text != NULL ? FB_OK : FB_ERR;
	x.s = text;
	fb_buf_printf(&x.bif, "network unknown {\n}\n");
	while (ret == FB_OK && next_tag(&x, tag)) {
		if (strcmp(tag, "VARIABLE") == 0)
			ret = read_variable(&x, err);
		else if (strcmp(tag, "DEFINITION") == 0)
			ret = read_definition(&x, err);
	}
	if (ret == FB_OK && x.nvars == 0)
		ret = fb_fail(err, "cannot read '%s': no VARIABLE element", path);
	if (ret == FB_OK) { /* the BIF reader's line numbers are those of the BIF text */
		as = fb_xasprintf("%s (as BIF)", path);
		bn = fb_bif_read_buffer(x.bif.data, x.bif.len, as, err);
		free(as);
	}
	for (size_t i = 0; i < x.nvars; i++)
		free(x.names[i]);
	free(x.names);
	free(x.nstates);
	fb_buf_release(&x.bif);
	free(text);
	return bn;
}
