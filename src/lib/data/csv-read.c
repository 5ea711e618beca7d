/* Reading a dataset from CSV.
 *
 * The scanner (csv-scan.c, libcsv underneath) streams the input in fixed-size chunks; each
 * field is parsed at once, numbers straight into a growing row-major double array, and text
 * is kept only for the current row and for the distinct labels of discrete columns.  At the
 * end the array is shrunk to n x d and handed to the dataset, labels are sorted and codes
 * renumbered, so that level order never depends on row order. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "csv-private.h"

/* Rows of room in the first allocation of the value array. */
#define FIRST_ROWS 64

/* How a column's values are being read. */
enum col_kind {
	COL_UNKNOWN = 0, /* no non-missing value seen yet */
	COL_NUMBER,      /* values are parsed as numbers */
	COL_TEXT,        /* values are labels */
};

/* The distinct labels of one column in first-seen order, with a hash index. */
struct label_set {
	char **text;   /* the labels (owned); the index is the provisional code */
	size_t n;      /* labels held */
	size_t cap;    /* room in text */
	size_t *slot;  /* open-addressing table of label index + 1; 0 is an empty slot */
	size_t nslot;  /* slots in the table, a power of two (0 before the first label) */
};

/* What the reader knows about one column. */
struct column {
	enum col_kind kind;    /* decided by the first non-missing value */
	struct label_set set;  /* COL_TEXT: the labels seen in kept rows */
	bool small_int;        /* FB_DISCRETE_AUTO: integers with few distinct values so far */
	double *ints;          /* FB_DISCRETE_AUTO: the distinct values, in increasing order */
	size_t nints;          /* entries used in ints */
	size_t capints;        /* room in ints */
	size_t missing;        /* missing values seen in this column */
};

/* The reader's state between libcsv callbacks. */
struct reader {
	fb_csv_scan sc;         /* the tokeniser: position, delimiter, error state */
	fb_csv_options opt;     /* the options in force */
	bool started;           /* the first row has been handled */
	bool header;            /* the first row held the variable names */
	fb_buf first;           /* first row: its fields, trimmed, each NUL-terminated */
	size_t *first_off;      /* first row: where each field starts in first.data */
	size_t *first_line;     /* first row: the line where each field began */
	size_t first_cap;       /* room in first_off and first_line */
	size_t d;               /* columns, set by the first row */
	char **names;           /* the d variable names (owned) */
	struct column *col;     /* the d column states */
	double *rowv;           /* current row: numeric values by column */
	size_t *rowt;           /* current row: offset of each label in rowtext */
	fb_buf rowtext;         /* current row: labels, trimmed, each NUL-terminated */
	bool row_missing;       /* current row has a missing value */
	double *x;              /* kept rows, row-major, d values each */
	size_t n;               /* rows kept */
	size_t cap;             /* rows of room in x */
	size_t dropped;         /* rows dropped for missing values */
};

/* Record "cannot read 'name': ..." for the input being read (the first error wins). */
#define read_fail(rd, ...) fb_csv_scan_fail(&(rd)->sc, __VA_ARGS__)

/* FNV-1a hash of a string. */
static size_t label_hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return (size_t)(h ^ (h >> 29));
}

/* The slot of s in the set: where it sits, or the empty slot where it would go. */
static size_t label_slot(const struct label_set *set, const char *s)
{
	size_t mask = set->nslot - 1, i = label_hash(s) & mask;

	while (set->slot[i] != 0 && strcmp(set->text[set->slot[i] - 1], s) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Double the hash table and re-insert every label. */
static void label_set_grow(struct label_set *set)
{
	size_t nslot = set->nslot == 0 ? 16 : set->nslot * 2;

	free(set->slot);
	set->slot = fb_xcalloc(nslot, sizeof *set->slot);
	set->nslot = nslot;
	for (size_t k = 0; k < set->n; k++)
		set->slot[label_slot(set, set->text[k])] = k + 1;
}

/* Index of s in the set, or SIZE_MAX when absent. */
static size_t label_set_find(const struct label_set *set, const char *s)
{
	size_t i;

	if (set->n == 0)
		return SIZE_MAX;
	i = label_slot(set, s);
	return set->slot[i] == 0 ? SIZE_MAX : set->slot[i] - 1;
}

/* Index of s in the set, adding a copy when absent. */
static size_t label_set_add(struct label_set *set, const char *s)
{
	size_t i;

	if (2 * (set->n + 1) > set->nslot)
		label_set_grow(set);
	i = label_slot(set, s);
	if (set->slot[i] != 0)
		return set->slot[i] - 1;
	if (set->n == set->cap) {
		set->cap = set->cap == 0 ? 8 : 2 * set->cap;
		set->text = fb_xreallocarray(set->text, set->cap, sizeof *set->text);
	}
	set->text[set->n] = fb_xstrdup(s);
	set->slot[i] = ++set->n;
	return set->n - 1;
}

/* Free the set's memory. */
static void label_set_release(struct label_set *set)
{
	for (size_t k = 0; k < set->n; k++)
		free(set->text[k]);
	free(set->text);
	free(set->slot);
	memset(set, 0, sizeof *set);
}

/* Free everything the reader holds. */
static void reader_release(struct reader *rd)
{
	for (size_t j = 0; rd->names != NULL && j < rd->d; j++)
		free(rd->names[j]);
	for (size_t j = 0; rd->col != NULL && j < rd->d; j++) {
		label_set_release(&rd->col[j].set);
		free(rd->col[j].ints);
	}
	free(rd->names);
	free(rd->col);
	free(rd->rowv);
	free(rd->rowt);
	free(rd->first_off);
	free(rd->first_line);
	fb_buf_release(&rd->first);
	fb_buf_release(&rd->rowtext);
	free(rd->x);
	memset(rd, 0, sizeof *rd);
}

/* Append a field, trimmed and NUL-terminated, to b; false (and an error) on a NUL byte. */
static bool keep_text(struct reader *rd, fb_buf *b, size_t *off, const char *s, size_t len,
                      size_t line, size_t column)
{
	char none = '\0';

	fb_csv_trim(&s, &len);
	if (memchr(s, '\0', len) != NULL) {
		read_fail(rd, "line %zu, column %zu: unexpected NUL byte", line, column);
		return false;
	}
	*off = b->len;
	fb_buf_append(b, s, len);
	fb_buf_append(b, &none, 1);
	return true;
}

/* Keep a field of the first row until we know whether it holds names or data. */
static void stash_first(struct reader *rd, const char *s, size_t len, size_t line)
{
	size_t j = rd->sc.nfield;

	if (j == rd->first_cap) {
		rd->first_cap = rd->first_cap == 0 ? 16 : 2 * rd->first_cap;
		rd->first_off = fb_xreallocarray(rd->first_off, rd->first_cap, sizeof(size_t));
		rd->first_line = fb_xreallocarray(rd->first_line, rd->first_cap, sizeof(size_t));
	}
	rd->first_line[j] = line;
	keep_text(rd, &rd->first, &rd->first_off[j], s, len, line, j + 1);
}

/* Note a missing value in column j: an error, or a reason to drop the row. */
static void take_missing(struct reader *rd, size_t j, const char *s, size_t len, size_t line)
{
	char ex[FB_CSV_EXCERPT_MAX];

	rd->row_missing = true;
	rd->col[j].missing++;
	if (rd->opt.na == FB_NA_DROP)
		return;
	if (len == 0)
		read_fail(rd, "line %zu, column %zu: missing value (empty field) for variable '%s'",
		          line, j + 1, rd->names[j]);
	else
		read_fail(rd, "line %zu, column %zu: missing value '%s' for variable '%s'", line,
		          j + 1, fb_csv_excerpt(ex, s, len), rd->names[j]);
}

/* Classify and store one data field of column j. */
static void take_field(struct reader *rd, size_t j, const char *s, size_t len, size_t line)
{
	struct column *c = &rd->col[j];
	char ex[FB_CSV_EXCERPT_MAX];

	/* the common case first: a number as it stands */
	if (c->kind != COL_TEXT && fb_csv_number_parse(s, len, &rd->rowv[j])) {
		c->kind = COL_NUMBER;
		return;
	}
	fb_csv_trim(&s, &len);
	if (fb_csv_is_missing(s, len)) {
		take_missing(rd, j, s, len, line);
		return;
	}
	if (c->kind != COL_TEXT) {
		if (fb_csv_number_parse(s, len, &rd->rowv[j])) {
			c->kind = COL_NUMBER;
			return;
		}
		if (c->kind == COL_NUMBER) {
			read_fail(rd, "line %zu, column %zu: expected a number, found '%s'", line,
			          j + 1, fb_csv_excerpt(ex, s, len));
			return;
		}
		c->kind = COL_TEXT;
	}
	keep_text(rd, &rd->rowtext, &rd->rowt[j], s, len, line, j + 1);
}

/* Follow an integer column of FB_DISCRETE_AUTO: still integers, still few values?  The
 * distinct values stay sorted, so that each value costs a binary search. */
static void track_small_int(struct column *c, double v, size_t max_levels)
{
	size_t lo = 0, hi = c->nints;

	if (v != floor(v) || fabs(v) > 9007199254740992.0) {
		c->small_int = false;
		return;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ints[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->nints && c->ints[lo] == v)
		return;
	if (c->nints == max_levels) {
		c->small_int = false;
		return;
	}
	if (c->nints == c->capints) {
		c->capints = c->capints == 0 ? 8 : 2 * c->capints;
		c->ints = fb_xreallocarray(c->ints, c->capints, sizeof *c->ints);
	}
	memmove(c->ints + lo + 1, c->ints + lo, (c->nints - lo) * sizeof *c->ints);
	c->ints[lo] = v;
	c->nints++;
}

/* Make room for one more row in the value array. */
static bool grow_rows(struct reader *rd)
{
	size_t cap = rd->cap == 0 ? FIRST_ROWS : 2 * rd->cap;
	double *x;

	if (cap > SIZE_MAX / sizeof(double) / rd->d) {
		read_fail(rd, "line %zu: too many rows", rd->sc.row_line);
		return false;
	}
	/* large blocks are mapped: glibc grows them with mremap, without a copy, and pages
	 * beyond the rows written are never touched, so they cost no memory */
	x = realloc(rd->x, cap * rd->d * sizeof(double));
	if (x == NULL) {
		read_fail(rd, "line %zu: out of memory for %zu rows", rd->sc.row_line, cap);
		return false;
	}
	rd->x = x;
	rd->cap = cap;
	return true;
}

/* Store the current row, which has every value, into the value array. */
static void append_row(struct reader *rd)
{
	double *row;

	if (rd->n == rd->cap && !grow_rows(rd))
		return;
	row = rd->x + rd->n * rd->d;
	for (size_t j = 0; j < rd->d; j++) {
		struct column *c = &rd->col[j];

		if (c->kind == COL_TEXT) {
			row[j] = (double)label_set_add(&c->set, rd->rowtext.data + rd->rowt[j]);
		} else {
			row[j] = rd->rowv[j];
			if (c->small_int)
				track_small_int(c, row[j], rd->opt.max_levels);
		}
	}
	rd->n++;
}

/* End of a data row: check its width, then keep or drop it. */
static void end_row(struct reader *rd)
{
	if (rd->sc.nfield != rd->d)
		read_fail(rd, "line %zu: expected %zu fields, found %zu", rd->sc.row_line, rd->d,
		          rd->sc.nfield);
	else if (rd->row_missing)
		rd->dropped++;
	else
		append_row(rd);
	rd->row_missing = false;
	rd->rowtext.len = 0;
}

/* The text of field j of the first row. */
static const char *first_field(const struct reader *rd, size_t j)
{
	return rd->first.data + rd->first_off[j];
}

/* Does the first row hold names?  Forced by the options, else when any field is text. */
static bool first_is_header(const struct reader *rd)
{
	double v;

	if (rd->opt.header >= 0)
		return rd->opt.header > 0;
	for (size_t j = 0; j < rd->sc.nfield; j++) {
		const char *s = first_field(rd, j);
		size_t len = strlen(s);

		if (!fb_csv_is_missing(s, len) && !fb_csv_number_parse(s, len, &v))
			return true;
	}
	return false;
}

/* Take the variable names from the first row, refusing empty and repeated names. */
static void names_from_header(struct reader *rd)
{
	struct label_set seen = { 0 };

	for (size_t j = 0; j < rd->d && !rd->sc.failed; j++) {
		const char *s = first_field(rd, j);
		size_t k;

		if (*s == '\0') {
			read_fail(rd, "line %zu, column %zu: empty variable name",
			          rd->first_line[j], j + 1);
			break;
		}
		k = label_set_add(&seen, s);
		if (k != j)
			read_fail(rd, "line %zu: duplicate variable name '%s' in columns %zu "
			          "and %zu", rd->sc.row_line, s, k + 1, j + 1);
		else
			rd->names[j] = fb_xstrdup(s);
	}
	label_set_release(&seen);
}

/* Make the columns named in the discrete list text columns; unknown names are an error. */
static void mark_listed(struct reader *rd)
{
	struct label_set known = { 0 };
	fb_buf unknown = { 0 };
	const char *p = rd->opt.discrete_list != NULL ? rd->opt.discrete_list : "";
	size_t nunknown = 0;

	for (size_t j = 0; j < rd->d; j++)
		label_set_add(&known, rd->names[j]);
	while (*p != '\0') {
		const char *s = p;
		size_t len = strcspn(p, ",");
		char *name;
		size_t k;

		p += len + (p[len] == ',');
		fb_csv_trim(&s, &len);
		if (len == 0)
			continue;
		name = memcpy(fb_xmalloc(len + 1), s, len);
		name[len] = '\0';
		k = label_set_find(&known, name);
		if (k != SIZE_MAX)
			rd->col[k].kind = COL_TEXT;
		else
			fb_buf_printf(&unknown, "%s'%s'", nunknown++ > 0 ? ", " : "", name);
		free(name);
	}
	if (nunknown > 0)
		read_fail(rd, "unknown variable%s %s in the discrete list", nunknown > 1 ? "s" : "",
		          unknown.data);
	fb_buf_release(&unknown);
	label_set_release(&known);
}

/* Set up names and columns once the first row is known. */
static void setup_columns(struct reader *rd)
{
	rd->names = fb_xcalloc(rd->d, sizeof *rd->names);
	rd->col = fb_xcalloc(rd->d, sizeof *rd->col);
	rd->rowv = fb_xcalloc(rd->d, sizeof *rd->rowv);
	rd->rowt = fb_xcalloc(rd->d, sizeof *rd->rowt);
	if (rd->header)
		names_from_header(rd);
	else
		for (size_t j = 0; j < rd->d; j++)
			rd->names[j] = fb_xasprintf("X%zu", j + 1);
	if (rd->sc.failed)
		return;
	for (size_t j = 0; j < rd->d; j++) {
		struct column *c = &rd->col[j];

		if (rd->opt.discrete == FB_DISCRETE_ALL)
			c->kind = COL_TEXT;
		if (rd->opt.discrete == FB_DISCRETE_AUTO && rd->opt.max_levels > 0)
			c->small_int = true;
	}
	if (rd->opt.discrete == FB_DISCRETE_LIST)
		mark_listed(rd);
}

/* The first row is complete: decide header or data, set up the columns. */
static void start_data(struct reader *rd)
{
	rd->started = true;
	rd->d = rd->sc.nfield;
	if (rd->d < 2) {
		read_fail(rd, "need at least 2 columns, found %zu", rd->d);
		return;
	}
	rd->header = first_is_header(rd);
	setup_columns(rd);
	if (!rd->header)
		for (size_t j = 0; j < rd->d && !rd->sc.failed; j++) {
			const char *s = first_field(rd, j);

			take_field(rd, j, s, strlen(s), rd->first_line[j]);
		}
	if (!rd->header && !rd->sc.failed)
		end_row(rd);
	fb_buf_release(&rd->first);
}

/* One label being put in order. */
struct label_rank {
	char *text;    /* the label */
	double value;  /* its value, when every label of the column is a number */
	size_t id;     /* its provisional code */
};

/* Order labels by numeric value, then by bytes so that "1" and "1.0" keep a fixed order. */
static int rank_by_value(const void *a, const void *b)
{
	const struct label_rank *ra = a, *rb = b;

	if (ra->value != rb->value)
		return ra->value < rb->value ? -1 : 1;
	return strcmp(ra->text, rb->text);
}

/* Order labels by their bytes. */
static int rank_by_text(const void *a, const void *b)
{
	const struct label_rank *ra = a, *rb = b;

	return strcmp(ra->text, rb->text);
}

/* Sort the labels of text column j and renumber its codes in that order. */
static int finish_text_column(struct reader *rd, fb_dataset *ds, size_t j)
{
	struct label_set *set = &rd->col[j].set;
	struct label_rank *r = fb_xcalloc(set->n, sizeof *r);
	size_t *code = fb_xcalloc(set->n, sizeof *code);
	char **levels = fb_xcalloc(set->n, sizeof *levels);
	bool numeric = true;
	int rc;

	for (size_t k = 0; k < set->n; k++) {
		r[k].text = set->text[k];
		r[k].id = k;
		if (numeric)
			numeric = fb_csv_number_parse(r[k].text, strlen(r[k].text), &r[k].value);
	}
	qsort(r, set->n, sizeof *r, numeric ? rank_by_value : rank_by_text);
	for (size_t k = 0; k < set->n; k++) {
		code[r[k].id] = k;
		levels[k] = r[k].text;
	}
	for (size_t i = 0; i < ds->n; i++)
		ds->x[i * ds->d + j] = (double)code[(size_t)ds->x[i * ds->d + j]];
	rc = fb_dataset_set_levels(ds, j, levels, set->n, rd->sc.err);
	free(levels);
	free(code);
	free(r);
	return rc;
}

/* Compare two doubles for qsort and bsearch. */
static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Make integer column j discrete: its distinct values (kept sorted) are the levels. */
static int finish_int_column(struct reader *rd, fb_dataset *ds, size_t j)
{
	struct column *c = &rd->col[j];
	char **levels = fb_xcalloc(c->nints, sizeof *levels);
	int rc;

	for (size_t k = 0; k < c->nints; k++)
		levels[k] = fb_xasprintf("%" PRId64, (int64_t)c->ints[k]);
	for (size_t i = 0; i < ds->n; i++) {
		double *v = &ds->x[i * ds->d + j];
		const double *at = bsearch(v, c->ints, c->nints, sizeof *c->ints, compare_double);

		*v = (double)(size_t)(at - c->ints);
	}
	rc = fb_dataset_set_levels(ds, j, levels, c->nints, rd->sc.err);
	for (size_t k = 0; k < c->nints; k++)
		free(levels[k]);
	free(levels);
	return rc;
}

/* True when every value of column j is the same. */
static bool column_constant(const fb_dataset *ds, size_t j)
{
	for (size_t i = 1; i < ds->n; i++)
		if (ds->x[i * ds->d + j] != ds->x[j])
			return false;
	return true;
}

/* Give the dataset its names and column kinds, and warn about constant columns. */
static int finish_columns(struct reader *rd, fb_dataset *ds)
{
	for (size_t j = 0; j < rd->d; j++) {
		struct column *c = &rd->col[j];

		if (fb_dataset_set_name(ds, j, rd->names[j], rd->sc.err) != FB_OK)
			return FB_ERR;
		ds->vars[j].missing = c->missing;
		if (c->kind == COL_TEXT && finish_text_column(rd, ds, j) != FB_OK)
			return FB_ERR;
		if (c->kind == COL_NUMBER && c->small_int && finish_int_column(rd, ds, j) != FB_OK)
			return FB_ERR;
	}
	for (size_t j = 0; j < rd->d; j++)
		if (column_constant(ds, j))
			fb_warnf(&rd->opt.warn, "'%s': variable '%s' is constant", rd->sc.name,
			         rd->names[j]);
	return FB_OK;
}

/* Turn what was read into a dataset; NULL after an error. */
static fb_dataset *reader_finish(struct reader *rd)
{
	fb_dataset *ds;
	double *x;

	if (rd->sc.failed)
		return NULL;
	if (rd->n < 2) {
		if (rd->dropped > 0)
			read_fail(rd, "need at least 2 rows, found %zu (%zu dropped for missing "
			          "values)", rd->n, rd->dropped);
		else
			read_fail(rd, "need at least 2 rows, found %zu", rd->n);
		return NULL;
	}
	x = realloc(rd->x, rd->n * rd->d * sizeof *x);
	if (x != NULL)
		rd->x = x;
	ds = fb_dataset_alloc(rd->n, rd->d);
	if (ds == NULL) {
		read_fail(rd, "out of memory for %zu rows", rd->n);
		return NULL;
	}
	/* hand the array over instead of copying it: a copy would double the peak memory */
	free(ds->x);
	ds->x = rd->x;
	rd->x = NULL;
	if (finish_columns(rd, ds) != FB_OK) {
		fb_dataset_free(ds);
		return NULL;
	}
	if (rd->dropped > 0)
		fb_warnf(&rd->opt.warn, "'%s': dropped %zu row%s with missing values", rd->sc.name,
		         rd->dropped, rd->dropped == 1 ? "" : "s");
	return ds;
}

/* Default options. */
void fb_csv_options_init(fb_csv_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->delim = 0;
	opt->header = -1;
	opt->discrete = FB_DISCRETE_NONE;
	opt->discrete_list = NULL;
	opt->max_levels = 10;
	opt->na = FB_NA_ERROR;
}

/* Scanner callback: one field of the current row. */
static void on_field(fb_csv_scan *sc, const char *s, size_t len, size_t line)
{
	struct reader *rd = sc->ctx;

	if (!rd->started)
		stash_first(rd, s, len, line);
	else if (sc->nfield < rd->d)
		take_field(rd, sc->nfield, s, len, line);
}

/* Scanner callback: the end of a non-blank row. */
static void on_row(fb_csv_scan *sc)
{
	struct reader *rd = sc->ctx;

	if (!rd->started)
		start_data(rd);
	else
		end_row(rd);
}

/* Prepare a reader for the input called name. */
static void reader_init(struct reader *rd, const char *name, const fb_csv_options *opt,
                        fb_error *err)
{
	memset(rd, 0, sizeof *rd);
	if (opt != NULL)
		rd->opt = *opt;
	else
		fb_csv_options_init(&rd->opt);
	fb_csv_scan_init(&rd->sc, name, rd->opt.delim, err);
	rd->sc.field = on_field;
	rd->sc.row = on_row;
	rd->sc.ctx = rd;
}

/* Tell the caller what the read found. */
static void reader_report(const struct reader *rd, fb_csv_report *rep)
{
	if (rep == NULL)
		return;
	rep->rows_dropped = rd->dropped;
	rep->header_detected = rd->header;
	rep->delim = rd->sc.delim;
}

/* Read a dataset from a memory buffer. */
fb_dataset *fb_csv_read_buffer(const char *buf, size_t len, const char *name,
                               const fb_csv_options *opt, fb_csv_report *rep, fb_error *err)
{
	struct reader rd;
	fb_dataset *ds = NULL;

	reader_init(&rd, name, opt, err);
	if (fb_csv_scan_buffer(&rd.sc, buf, len) == FB_OK)
		ds = reader_finish(&rd);
	reader_report(&rd, rep);
	reader_release(&rd);
	return ds;
}

/* Read a dataset from a CSV file. */
fb_dataset *fb_csv_read(const char *path, const fb_csv_options *opt, fb_csv_report *rep,
                        fb_error *err)
{
	struct reader rd;
	fb_dataset *ds = NULL;

	reader_init(&rd, path, opt, err);
	if (fb_csv_scan_file(&rd.sc, path) == FB_OK)
		ds = reader_finish(&rd);
	reader_report(&rd, rep);
	reader_release(&rd);
	return ds;
}
