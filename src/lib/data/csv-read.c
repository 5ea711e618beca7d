/* Reading a dataset from CSV.
 *
 * The scanner (csv-scan.c, libcsv underneath) streams the input in fixed-size chunks; each
 * field is parsed at once, numbers straight into a growing row-major double array, and text
 * is kept only for the current row and for the distinct labels of discrete columns.  At the
 * end the array is shrunk to n x d and handed to the dataset, labels are sorted and codes
 * renumbered, so that level order never depends on row order. */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	fb_csv_ints ints;      /* FB_DISCRETE_AUTO: integers with few distinct values so far? */
	size_t missing;        /* missing values seen in this column */
};

/* The reader's state between libcsv callbacks. */
struct reader {
	fb_csv_scan sc;         /* the tokeniser: position, delimiter, error state */
	fb_csv_options opt;     /* the options in force */
	bool started;           /* the first row has been handled */
	bool first_done;        /* the first row has ended (it is handled when a second begins) */
	bool header;            /* the first row held the variable names */
	fb_buf first;           /* first row: its fields in order, trimmed, each NUL-terminated */
	size_t first_n;         /* first row: fields kept */
	size_t first_line0;     /* first row: the line where its first field began */
	size_t *first_line;     /* first row: the line of each field; NULL while all are on
	                         * first_line0 (only a quoted line feed moves a later one) */
	size_t first_cap;       /* room in first_line */
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
		fb_csv_ints_release(&rd->col[j].ints);
	}
	free(rd->names);
	free(rd->col);
	free(rd->rowv);
	free(rd->rowt);
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

/* Note that field j of the first row began on line, keeping per-field lines only once one
 * differs from the first field's. */
static void note_first_line(struct reader *rd, size_t j, size_t line)
{
	if (j == 0)
		rd->first_line0 = line;
	if (rd->first_line == NULL && line == rd->first_line0)
		return;
	if (j >= rd->first_cap) {
		size_t old = rd->first_cap;

		rd->first_cap = j < 16 ? 16 : 2 * j;
		rd->first_line = fb_xreallocarray(rd->first_line, rd->first_cap, sizeof(size_t));
		for (size_t k = old; k < j; k++)
			rd->first_line[k] = rd->first_line0;
		if (old == 0 && j > 0)
			rd->first_line[0] = rd->first_line0;
	}
	rd->first_line[j] = line;
}

/* The line where field j of the first row began. */
static size_t first_line_of(const struct reader *rd, size_t j)
{
	return rd->first_line != NULL && j < rd->first_cap ? rd->first_line[j] : rd->first_line0;
}

/* Keep a field of the first row until we know whether it holds names or data. */
static void stash_first(struct reader *rd, const char *s, size_t len, size_t line)
{
	size_t j = rd->sc.nfield, off;

	note_first_line(rd, j, line);
	if (keep_text(rd, &rd->first, &off, s, len, line, j + 1))
		rd->first_n = j + 1;
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
void fb_csv_ints_add(fb_csv_ints *c, double v, size_t max_levels)
{
	size_t lo = 0, hi = c->n;

	if (v != floor(v) || fabs(v) > 9007199254740992.0) {
		c->ok = false;
		return;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && c->v[lo] == v)
		return;
	if (c->n == max_levels) {
		c->ok = false;
		return;
	}
	if (c->n == c->cap) {
		c->cap = c->cap == 0 ? 8 : 2 * c->cap;
		c->v = fb_xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	memmove(c->v + lo + 1, c->v + lo, (c->n - lo) * sizeof *c->v);
	c->v[lo] = v;
	c->n++;
}

/* Fold the values of from into s: the union of the two sets, while it stays small. */
void fb_csv_ints_merge(fb_csv_ints *s, const fb_csv_ints *from, size_t max_levels)
{
	if (!from->ok)
		s->ok = false;
	for (size_t k = 0; k < from->n && s->ok; k++)
		fb_csv_ints_add(s, from->v[k], max_levels);
}

/* Free the set's memory. */
void fb_csv_ints_release(fb_csv_ints *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
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
			if (c->ints.ok)
				fb_csv_ints_add(&c->ints, row[j], rd->opt.max_levels);
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

/* The first row's field after s (the fields are kept one after another). */
static const char *first_next(const char *s)
{
	return s + strlen(s) + 1;
}

/* Does the first row hold names?  Forced by the options, else when any field is text. */
static bool first_is_header(const struct reader *rd)
{
	double v;

	const char *s = rd->first.data;

	if (rd->opt.header >= 0)
		return rd->opt.header > 0;
	for (size_t j = 0; j < rd->first_n; j++, s = first_next(s)) {
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
	const char *s = rd->first.data;

	for (size_t j = 0; j < rd->d && !rd->sc.failed; j++, s = first_next(s)) {
		size_t k;

		if (*s == '\0') {
			read_fail(rd, "line %zu, column %zu: empty variable name",
			          first_line_of(rd, j), j + 1);
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
			c->ints.ok = true;
	}
	if (rd->opt.discrete == FB_DISCRETE_LIST)
		mark_listed(rd);
}

/* The first row is complete: note its width; nothing is built until a second row begins,
 * so that a file of one long line costs no more than its text. */
static void end_first(struct reader *rd)
{
	rd->first_done = true;
	rd->d = rd->sc.nfield;
	if (rd->d < 2)
		read_fail(rd, "need at least 2 columns, found %zu", rd->d);
}

/* A second row begins: decide header or data for the first, set up the columns. */
static void start_data(struct reader *rd)
{
	const char *s = rd->first.data;
	size_t row_line = rd->sc.row_line, nfield = rd->sc.nfield;

	rd->started = true;
	rd->header = first_is_header(rd);
	/* the first row is handled as if it had just ended */
	rd->sc.row_line = rd->first_line0;
	rd->sc.nfield = rd->first_n;
	setup_columns(rd);
	if (!rd->header)
		for (size_t j = 0; j < rd->d && !rd->sc.failed; j++, s = first_next(s))
			take_field(rd, j, s, strlen(s), first_line_of(rd, j));
	if (!rd->header && !rd->sc.failed)
		end_row(rd);
	rd->sc.row_line = row_line;
	rd->sc.nfield = nfield;
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
	char **levels = fb_xcalloc(c->ints.n, sizeof *levels);
	int rc;

	for (size_t k = 0; k < c->ints.n; k++)
		levels[k] = fb_xasprintf("%" PRId64, (int64_t)c->ints.v[k]);
	for (size_t i = 0; i < ds->n; i++) {
		double *v = &ds->x[i * ds->d + j];
		const double *at = bsearch(v, c->ints.v, c->ints.n, sizeof *c->ints.v,
		                           compare_double);

		*v = (double)(size_t)(at - c->ints.v);
	}
	rc = fb_dataset_set_levels(ds, j, levels, c->ints.n, rd->sc.err);
	for (size_t k = 0; k < c->ints.n; k++)
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

		/* the names are already known to be distinct and non-empty (names_from_header):
		 * hand each over rather than check it against every other again */
		free(ds->vars[j].name);
		ds->vars[j].name = rd->names[j];
		rd->names[j] = NULL;
		ds->vars[j].missing = c->missing;
		if (c->kind == COL_TEXT && finish_text_column(rd, ds, j) != FB_OK)
			return FB_ERR;
		if (c->kind == COL_NUMBER && c->ints.ok && finish_int_column(rd, ds, j) != FB_OK)
			return FB_ERR;
	}
	for (size_t j = 0; j < rd->d; j++)
		if (column_constant(ds, j))
			fb_warnf(&rd->opt.warn, "'%s': variable '%s' is constant", rd->sc.name,
			         ds->vars[j].name);
	return FB_OK;
}

/* The input held a single row: count it as the reader would (a header, a row, or a row
 * dropped for a missing value) without building any column for it. */
static void count_only_row(struct reader *rd)
{
	const char *s = rd->first.data;
	bool missing = false;

	rd->header = first_is_header(rd);
	if (rd->header)
		return;
	for (size_t j = 0; j < rd->first_n && !missing; j++, s = first_next(s))
		missing = fb_csv_is_missing(s, strlen(s));
	if (missing && rd->opt.na == FB_NA_DROP)
		rd->dropped = 1;
	else
		rd->n = 1;
}

/* Turn what was read into a dataset; NULL after an error. */
static fb_dataset *reader_finish(struct reader *rd)
{
	fb_dataset *ds;
	double *x;

	if (rd->sc.failed)
		return NULL;
	if (rd->first_done && !rd->started)
		count_only_row(rd);
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

	if (!rd->first_done)
		stash_first(rd, s, len, line);
	else if (!rd->started && (start_data(rd), rd->sc.failed))
		return;
	if (rd->started && sc->nfield < rd->d)
		take_field(rd, sc->nfield, s, len, line);
}

/* Scanner callback: the end of a non-blank row. */
static void on_row(fb_csv_scan *sc)
{
	struct reader *rd = sc->ctx;

	if (!rd->first_done)
		end_first(rd);
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
	rd->sc.cancel = &rd->opt.cancel;
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

/* The first line of the open file fd (line end included) into *line; false when the file
 * has no line end in its first FB_LINE_MAX bytes, or when the line holds a quote or a carriage return before its end, or
 * nothing but blanks: such files are left to the general reader. */
static bool fast_first_line(int fd, fb_buf *line)
{
	char chunk[64 * 1024];
	const char *nl = NULL;
	ssize_t got;

	while (nl == NULL && line->len <= FB_LINE_MAX &&
	       (got = pread(fd, chunk, sizeof chunk, (off_t)line->len)) > 0) {
		nl = memchr(chunk, '\n', (size_t)got);
		fb_buf_append(line, chunk, nl != NULL ? (size_t)(nl - chunk) + 1 : (size_t)got);
	}
	if (nl == NULL || memchr(line->data, '"', line->len) != NULL)
		return false;
	for (size_t i = 0; i + 2 < line->len; i++)
		if (line->data[i] == '\r')
			return false;
	for (size_t i = 0; i < line->len; i++)
		if (strchr(" \t\r\n", line->data[i]) == NULL)
			return true;
	return false;
}

/* Read the file's first line the general way, set up the columns, and tell whether the rest
 * may go to the fast reader (there is a rest, and no column is text). */
static bool fast_start(struct reader *rd, int fd, long long size, size_t *start)
{
	fb_buf line = { 0 };
	bool ok = fast_first_line(fd, &line) && (long long)line.len < size &&
	          fb_csv_scan_buffer(&rd->sc, line.data, line.len) == FB_OK && rd->first_done;

	*start = line.len;
	fb_buf_release(&line);
	if (!ok)
		return false;
	start_data(rd);
	for (size_t j = 0; j < rd->d && !rd->sc.failed; j++)
		if (rd->col[j].kind == COL_TEXT)
			return false;
	return !rd->sc.failed;
}

/* Read the rest of the file with the fast reader into rd's matrix. */
static bool fast_rest(struct reader *rd, int fd, size_t start, long long size)
{
	fb_csv_fast f = { .fd = fd, .start = (long long)start, .size = size, .delim = rd->sc.delim,
	                  .d = rd->d, .threads = rd->opt.threads,
	                  .max_levels = rd->opt.max_levels, .x = rd->x, .n = rd->n,
	                  .cancel = &rd->opt.cancel };
	bool ok;

	f.ints = fb_xcalloc(rd->d, sizeof *f.ints);
	for (size_t j = 0; j < rd->d; j++)
		f.ints[j] = rd->col[j].ints;
	ok = fb_csv_fast_read(&f) == FB_OK;
	/* the sets may have moved; the matrix too */
	for (size_t j = 0; j < rd->d; j++)
		rd->col[j].ints = f.ints[j];
	free(f.ints);
	rd->x = f.x;
	rd->n = f.n;
	rd->cap = f.n;
	if (!ok || rd->n == 0)
		return false;
	for (size_t j = 0; j < rd->d; j++)
		if (rd->col[j].kind == COL_UNKNOWN)
			rd->col[j].kind = COL_NUMBER;
	return true;
}

/* Try the fast reader on a regular file: NULL, with nothing reported, when it gives up. */
static fb_dataset *read_fast(const char *path, const fb_csv_options *opt, fb_csv_report *rep)
{
	struct reader rd;
	fb_error quiet = { { 0 } };
	fb_dataset *ds = NULL;
	struct stat st;
	size_t start;
	int fd;

	/* only a regular file: opening a pipe here would take what the general reader needs
	 * (and could wait for a writer) */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (fd = open(path, O_RDONLY)) < 0)
		return NULL;
	reader_init(&rd, path, opt, &quiet);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    fast_start(&rd, fd, (long long)st.st_size, &start) &&
	    fast_rest(&rd, fd, start, (long long)st.st_size))
		ds = reader_finish(&rd);
	if (ds != NULL)
		reader_report(&rd, rep);
	reader_release(&rd);
	close(fd);
	return ds;
}

/* Read a dataset from a CSV file: the fast reader when the file is plain numbers, else (or
 * when it gives up) the general one. */
fb_dataset *fb_csv_read(const char *path, const fb_csv_options *opt, fb_csv_report *rep,
                        fb_error *err)
{
	struct reader rd;
	fb_dataset *ds = read_fast(path, opt, rep);

	if (ds != NULL)
		return ds;
	reader_init(&rd, path, opt, err);
	if (fb_csv_scan_file(&rd.sc, path) == FB_OK)
		ds = reader_finish(&rd);
	reader_report(&rd, rep);
	reader_release(&rd);
	return ds;
}
