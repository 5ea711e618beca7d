/* The circuit text format (described in fedbn/circuit.h): writing and reading. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* The first line of every circuit file. */
#define CIRCUIT_MAGIC "fedbn-circuit"
/* The version this code writes and reads. */
#define CIRCUIT_VERSION 1
/* The most variables a circuit file may declare (a bound on what a bad file allocates). */
#define CIRCUIT_MAX_VARS 1000000

/* Write one leaf node's line (after its id). */
static void write_leaf(const fb_circuit_node *nd, FILE *fp)
{
	const fb_leaf *lf = &nd->leaf;

	switch (lf->kind) {
	case FB_LEAF_GAUSSIAN:
		fprintf(fp, "leaf gaussian %d %zu %.17g %.17g", nd->machine, lf->var, lf->mean, lf->sd);
		return;
	case FB_LEAF_CATEGORICAL:
		fprintf(fp, "leaf categorical %d %zu %zu", nd->machine, lf->var, lf->nvalues);
		break;
	case FB_LEAF_HISTOGRAM:
		fprintf(fp, "leaf histogram %d %zu %s %zu", nd->machine, lf->var,
		        lf->discrete ? "discrete" : "continuous", lf->nvalues);
		for (size_t b = 0; b <= lf->nvalues; b++)
			fprintf(fp, " %.17g", lf->breaks[b]);
		break;
	}
	for (size_t b = 0; b < lf->nvalues; b++)
		fprintf(fp, " %.17g", lf->p[b]);
}

/* Write the circuit in the text format; FB_ERR with the system's reason (no space left on
 * device) when the stream failed. */
int fb_circuit_write(const fb_circuit *c, FILE *fp, fb_error *err)
{
	fprintf(fp, "%s %d\nvariables %zu\n# %zu nodes, children first; the last is the root\n",
	        CIRCUIT_MAGIC, CIRCUIT_VERSION, c->nvars, c->nnodes);
	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		fprintf(fp, "%zu ", i);
		if (nd->kind == FB_NODE_LEAF)
			write_leaf(nd, fp);
		else
			fprintf(fp, "%s %d %zu", nd->kind == FB_NODE_SUM ? "sum" : "product",
			        nd->machine, nd->nchildren);
		for (size_t k = 0; k < nd->nchildren; k++) {
			fprintf(fp, " %zu", nd->children[k]);
			if (nd->kind == FB_NODE_SUM)
				fprintf(fp, " %.17g", nd->weights[k]);
		}
		fputc('\n', fp);
	}
	errno = 0;
	if (fflush(fp) != 0 || ferror(fp)) {
		char why[128];

		return fb_fail(err, "%s", fb_strerror(errno != 0 ? errno : EIO, why, sizeof why));
	}
	return FB_OK;
}

/* Save the circuit to path atomically. */
int fb_circuit_save(const fb_circuit *c, const char *path, fb_error *err)
{
	fb_atomic_file af;
	fb_error inner;

	if (fb_atomic_open(&af, path, err) != FB_OK)
		return FB_ERR;
	if (fb_circuit_write(c, af.fp, &inner) != FB_OK) {
		fb_atomic_abort(&af);
		return fb_fail(err, "cannot write '%s': %s", path, inner.msg);
	}
	return fb_atomic_commit(&af, err);
}

/* The fields of one line being read. */
typedef struct line_cursor {
	char **tok;         /* the line's blank-separated fields */
	size_t n;           /* fields on the line */
	size_t pos;         /* the next field to read */
	size_t line;        /* the line number, from 1 */
	const char *name;   /* the file name, for errors */
	fb_error *err;      /* where errors go */
} line_cursor;

/* Record "cannot read NAME: line N: MESSAGE" and return FB_ERR. */
static int cur_fail(const line_cursor *cur, const char *fmt, ...) FB_PRINTF(2, 3);
static int cur_fail(const line_cursor *cur, const char *fmt, ...)
{
	char msg[FB_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fb_fail(cur->err, "cannot read '%s': line %zu: %s", cur->name, cur->line, msg);
}

/* The next field, or NULL after recording that the line ended before `what`. */
static const char *cur_next(line_cursor *cur, const char *what)
{
	if (cur->pos < cur->n)
		return cur->tok[cur->pos++];
	cur_fail(cur, "the line ends before the %s", what);
	return NULL;
}

/* The next field as a finite number. */
static int cur_double(line_cursor *cur, const char *what, double *out)
{
	const char *t = cur_next(cur, what);

	if (t == NULL)
		return FB_ERR;
	if (fb_parse_double(t, out) != 0)
		return cur_fail(cur, "expected a number for the %s, found '%s'", what, t);
	return FB_OK;
}

/* The next field as an integer in [lo, hi]. */
static int cur_int(line_cursor *cur, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
	const char *t = cur_next(cur, what);

	if (t == NULL)
		return FB_ERR;
	if (fb_parse_int64(t, out) != 0 || *out < lo || *out > hi)
		return cur_fail(cur, "expected a whole number from %lld to %lld for the %s, found "
		                     "'%s'", (long long)lo, (long long)hi, what, t);
	return FB_OK;
}

/* The next field as a count whose items need `per` more fields each on the line. */
static int cur_count(line_cursor *cur, const char *what, size_t per, size_t extra, size_t *out)
{
	int64_t v;

	if (cur_int(cur, what, 1, INT64_MAX, &v) != FB_OK)
		return FB_ERR;
	if ((uint64_t)v > (cur->n - cur->pos) / per || (size_t)v * per + extra != cur->n - cur->pos)
		return cur_fail(cur, "%s %lld needs %llu more fields, the line has %zu", what,
		                (long long)v, (unsigned long long)v * per + extra, cur->n - cur->pos);
	*out = (size_t)v;
	return FB_OK;
}

/* Read n numbers into a new array *out (NULL on failure). */
static int cur_doubles(line_cursor *cur, const char *what, size_t n, double **out)
{
	*out = malloc((n ? n : 1) * sizeof **out);
	if (*out == NULL)
		return cur_fail(cur, "out of memory for %zu numbers", n);
	for (size_t i = 0; i < n; i++)
		if (cur_double(cur, what, &(*out)[i]) != FB_OK) {
			free(*out);
			*out = NULL;
			return FB_ERR;
		}
	return FB_OK;
}

/* Parse the fields of a leaf after "ID leaf" and append it. */
static int parse_leaf(line_cursor *cur, fb_circuit *c, size_t *id)
{
	const char *kind = cur_next(cur, "leaf kind");
	double mean, sd, *br = NULL, *p = NULL;
	int64_t machine, var;
	size_t nv;
	fb_leaf lf = { 0 };
	fb_error inner;
	int rc = FB_ERR;

	if (kind == NULL || cur_int(cur, "machine", -1, INT_MAX, &machine) != FB_OK ||
	    cur_int(cur, "variable", 0, (int64_t)c->nvars - 1, &var) != FB_OK)
		return FB_ERR;
	if (strcmp(kind, "gaussian") == 0) {
		if (cur_double(cur, "mean", &mean) != FB_OK || cur_double(cur, "sd", &sd) != FB_OK)
			return FB_ERR;
		if (cur->pos < cur->n)
			return cur_fail(cur, "unexpected '%s' after the sd", cur->tok[cur->pos]);
		rc = fb_leaf_gaussian(&lf, (size_t)var, mean, sd, &inner);
	} else if (strcmp(kind, "categorical") == 0) {
		if (cur_count(cur, "value count", 1, 0, &nv) != FB_OK ||
		    cur_doubles(cur, "probability", nv, &p) != FB_OK)
			return FB_ERR;
		rc = fb_leaf_categorical(&lf, (size_t)var, p, nv, &inner);
	} else if (strcmp(kind, "histogram") == 0) {
		const char *dk = cur_next(cur, "'discrete' or 'continuous'");

		if (dk == NULL)
			return FB_ERR;
		if (strcmp(dk, "discrete") != 0 && strcmp(dk, "continuous") != 0)
			return cur_fail(cur, "expected 'discrete' or 'continuous', found '%s'", dk);
		if (cur_count(cur, "bin count", 2, 1, &nv) != FB_OK ||
		    cur_doubles(cur, "bin edge", nv + 1, &br) != FB_OK ||
		    cur_doubles(cur, "density", nv, &p) != FB_OK)
			goto out;
		rc = fb_leaf_histogram(&lf, (size_t)var, dk[0] == 'd', br, p, nv, &inner);
	} else {
		return cur_fail(cur, "unknown leaf kind '%s' (gaussian, categorical, histogram)",
		                kind);
	}
	if (rc != FB_OK || fb_circuit_add_leaf(c, &lf, (int)machine, id, &inner) != FB_OK)
		rc = cur_fail(cur, "%s", inner.msg);
out:
	free(br);
	free(p);
	return rc;
}

/* Parse the fields of a sum or product after "ID KIND" and append it. */
static int parse_inner(line_cursor *cur, fb_circuit *c, int sum, size_t *id)
{
	size_t nch, *ch = NULL;
	double *w = NULL;
	int64_t machine, v;
	fb_error inner;
	int rc = FB_ERR;

	if (cur_int(cur, "machine", -1, INT_MAX, &machine) != FB_OK ||
	    cur_count(cur, "child count", sum ? 2 : 1, 0, &nch) != FB_OK)
		return FB_ERR;
	ch = malloc(nch * sizeof *ch);
	w = malloc(nch * sizeof *w);
	if (ch == NULL || w == NULL) {
		rc = cur_fail(cur, "out of memory for %zu children", nch);
		goto out;
	}
	for (size_t k = 0; k < nch; k++) {
		if (cur_int(cur, "child", 0, INT64_MAX, &v) != FB_OK ||
		    (sum && cur_double(cur, "weight", &w[k]) != FB_OK))
			goto out;
		if ((uint64_t)v >= c->nnodes) {
			rc = cur_fail(cur, "node %zu names child %lld, which is not defined before it",
			              c->nnodes, (long long)v);
			goto out;
		}
		ch[k] = (size_t)v;
	}
	rc = sum ? fb_circuit_add_sum(c, ch, w, nch, (int)machine, id, &inner)
	         : fb_circuit_add_product(c, ch, nch, (int)machine, id, &inner);
	if (rc != FB_OK)
		rc = cur_fail(cur, "%s", inner.msg);
out:
	free(ch);
	free(w);
	return rc;
}

/* Parse one node line: its id (the next in order), its kind, its fields. */
static int parse_node(line_cursor *cur, fb_circuit *c)
{
	const char *t = cur->tok[cur->pos++], *kind;
	int64_t v;
	size_t id;

	if (fb_parse_int64(t, &v) != 0 || v < 0 || (uint64_t)v != c->nnodes)
		return cur_fail(cur, "expected node id %zu, found '%s'", c->nnodes, t);
	kind = cur_next(cur, "node kind");
	if (kind == NULL)
		return FB_ERR;
	if (strcmp(kind, "leaf") == 0)
		return parse_leaf(cur, c, &id);
	if (strcmp(kind, "sum") == 0 || strcmp(kind, "product") == 0)
		return parse_inner(cur, c, kind[0] == 's', &id);
	return cur_fail(cur, "unknown node kind '%s' (leaf, sum, product)", kind);
}

/* Split line into blank-separated fields in cur (growing *cap); FB_ERR on out of memory. */
static int split_fields(line_cursor *cur, char *line, size_t *cap)
{
	char *save = NULL;

	cur->n = cur->pos = 0;
	for (char *t = strtok_r(line, " \t\r\n\v\f", &save); t != NULL;
	     t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (cur->n == *cap) {
			size_t nc = *cap ? 2 * *cap : 16;
			char **tok = realloc(cur->tok, nc * sizeof *tok);

			if (tok == NULL)
				return cur_fail(cur, "out of memory for %zu fields", nc);
			cur->tok = tok;
			*cap = nc;
		}
		cur->tok[cur->n++] = t;
	}
	return FB_OK;
}

/* Parse the header lines: "fedbn-circuit 1" (stage 0), then "variables D" (stage 1),
 * creating *c. */
static int parse_header(line_cursor *cur, int stage, fb_circuit **c)
{
	int64_t v;

	if (stage == 0) {
		if (strcmp(cur->tok[0], CIRCUIT_MAGIC) != 0 || cur->n != 2)
			return cur_fail(cur, "expected '%s %d', the first line of a circuit file",
			                CIRCUIT_MAGIC, CIRCUIT_VERSION);
		if (fb_parse_int64(cur->tok[1], &v) != 0 || v != CIRCUIT_VERSION)
			return cur_fail(cur, "unsupported version '%s' (this program reads version %d)",
			                cur->tok[1], CIRCUIT_VERSION);
		return FB_OK;
	}
	if (strcmp(cur->tok[0], "variables") != 0)
		return cur_fail(cur, "expected 'variables D', found '%s'", cur->tok[0]);
	cur->pos = 1;
	if (cur_int(cur, "number of variables", 1, CIRCUIT_MAX_VARS, &v) != FB_OK)
		return FB_ERR;
	if (cur->n != 2)
		return cur_fail(cur, "unexpected '%s' after the number of variables", cur->tok[2]);
	*c = fb_circuit_alloc((size_t)v);
	if (*c == NULL)
		return cur_fail(cur, "out of memory for a circuit");
	return FB_OK;
}

/* Remember that node id was read on line (growing *lines); FB_ERR on out of memory. */
static int note_line(line_cursor *cur, size_t **lines, size_t id)
{
	size_t *l = realloc(*lines, (id + 1) * sizeof *l);

	if (l == NULL)
		return cur_fail(cur, "out of memory for %zu nodes", id + 1);
	l[id] = cur->line;
	*lines = l;
	return FB_OK;
}

/* Check the circuit read, and that its root covers every variable it declares; a fault at a
 * node names that node's line (the root's for a variable left out). */
static int read_check(const fb_circuit *c, const char *name, const size_t *lines, size_t last,
                      fb_error *err)
{
	fb_error inner;
	size_t bad;

	if (c == NULL || c->nnodes == 0)
		return fb_fail(err, "cannot read '%s': no nodes (the file ends at line %zu)", name,
		               last);
	if (fb_circuit_check_at(c, &bad, &inner) == FB_OK) {
		if (fb_circuit_check_whole(c, &inner) == FB_OK)
			return FB_OK;
		bad = c->nnodes - 1;
	}
	if (bad < c->nnodes)
		return fb_fail(err, "cannot read '%s': line %zu: %s", name, lines[bad], inner.msg);
	return fb_fail(err, "cannot read '%s': %s", name, inner.msg);
}

/* Read and check a circuit in the text format. */
int fb_circuit_read(FILE *fp, const char *name, fb_circuit **out, fb_error *err)
{
	line_cursor cur = { .name = name, .err = err };
	char *buf = NULL, why[128];
	size_t bufcap = 0, tokcap = 0, *lines = NULL;
	ssize_t len;
	fb_circuit *c = NULL;
	int stage = 0, rc = FB_OK;

	*out = NULL;
	while (rc == FB_OK && (len = getline(&buf, &bufcap, fp)) != -1) {
		cur.line++;
		if (memchr(buf, '\0', (size_t)len) != NULL) {
			rc = cur_fail(&cur, "unexpected NUL byte");
			break;
		}
		rc = split_fields(&cur, buf, &tokcap);
		if (rc != FB_OK || cur.n == 0 || cur.tok[0][0] == '#')
			continue;
		if (stage < 2)
			rc = parse_header(&cur, stage++, &c);
		else if ((rc = note_line(&cur, &lines, c->nnodes)) == FB_OK)
			rc = parse_node(&cur, c);
	}
	if (rc == FB_OK && ferror(fp))
		rc = fb_fail(err, "cannot read '%s': %s", name, fb_strerror(errno, why, sizeof why));
	if (rc == FB_OK)
		rc = read_check(c, name, lines, cur.line, err);
	free(buf);
	free(cur.tok);
	free(lines);
	if (rc != FB_OK)
		fb_circuit_free(c);
	else
		*out = c;
	return rc;
}

/* Load a circuit from a file. */
int fb_circuit_load(const char *path, fb_circuit **out, fb_error *err)
{
	FILE *fp = fopen(path, "r");
	char why[128];
	int rc;

	*out = NULL;
	if (fp == NULL)
		return fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
	rc = fb_circuit_read(fp, path, out, err);
	fclose(fp);
	return rc;
}
