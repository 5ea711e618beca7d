/* The fast reader of plain numeric CSV files: every line after the first is d numbers and
 * nothing else (no quotes, no spaces, no missing values).
 *
 * The file is cut at line starts into one part per thread.  With one thread the part is
 * parsed straight into the growing matrix; with several, each part first counts its rows
 * (a line-end search, far cheaper than parsing), so that every part knows where its first
 * row goes and parses into the final matrix directly: no second copy of the matrix is ever
 * made.  Each line is parsed by the same code whatever the cut, so the matrix is the same
 * bits for any thread count.  Anything unusual makes the whole read give up; the caller then
 * reads the file the general way (libcsv), which is the one that defines what a file means
 * and what its errors say. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "csv-private.h"

/* Bytes read at a time by each part. */
#define BLOCK_SIZE (1024 * 1024)
/* Bytes per part below which an automatic thread count uses fewer threads. */
#define PART_MIN (4 * 1024 * 1024)
/* Most threads an automatic thread count uses. */
#define THREADS_MAX 64

/* One thread's share of the file. */
struct part {
	const fb_csv_fast *f;  /* the read it belongs to */
	long long from, to;    /* its bytes: whole lines */
	size_t rows;           /* rows in it (counted first when there are several parts) */
	size_t row0;           /* index in f->x of its first row */
	size_t done;           /* rows parsed so far */
	size_t cap;            /* rows of room in f->x (one part alone grows it) */
	bool grow;             /* alone: grow f->x as rows come instead of counting first */
	fb_csv_ints *ints;     /* per column: the integer set of this part (NULL: none tracked) */
	bool ok;               /* nothing unusual seen, no failure */
	int *give_up;          /* shared: set by the first part that fails, read by the others */
	double **x;            /* shared: the matrix (f->x while the parts run) */
};

/* What a part does with one line (s to e, line end removed); false to give up. */
typedef bool (*line_fn)(struct part *p, const char *s, const char *e);

/* True once some part has given up. */
static bool part_stopped(const struct part *p)
{
	return !p->ok || __atomic_load_n(p->give_up, __ATOMIC_RELAXED) != 0;
}

/* Give up this part, and tell the others. */
static bool part_fail(struct part *p)
{
	p->ok = false;
	__atomic_store_n(p->give_up, 1, __ATOMIC_RELAXED);
	return false;
}

/* Call fn on each complete line of buf[0, len); returns the bytes consumed. */
static size_t part_lines(struct part *p, line_fn fn, const char *buf, size_t len, bool last)
{
	const char *s = buf, *end = buf + len, *nl;

	while (s < end && (nl = memchr(s, '\n', (size_t)(end - s))) != NULL) {
		const char *e = nl > s && nl[-1] == '\r' ? nl - 1 : nl;

		if (!fn(p, s, e))
			return len;
		s = nl + 1;
	}
	/* the file's last line may have no line end */
	if (last && s < end) {
		const char *e = end[-1] == '\r' ? end - 1 : end;

		if (!fn(p, s, e))
			return len;
		s = end;
	}
	return (size_t)(s - buf);
}

/* Read the part's bytes block by block and hand each line to fn. */
static void part_scan(struct part *p, line_fn fn)
{
	size_t size = BLOCK_SIZE, have = 0;
	char *buf = malloc(size);
	long long at = p->from;

	if (buf == NULL) {
		part_fail(p);
		return;
	}
	while (at < p->to && !part_stopped(p)) {
		size_t want = size - have, used;
		ssize_t got;

		if (fb_cancel_requested(p->f->cancel)) {
			part_fail(p);
			break;
		}
		if ((long long)want > p->to - at)
			want = (size_t)(p->to - at);
		got = pread(p->f->fd, buf + have, want, (off_t)at);
		if (got <= 0) {
			part_fail(p);
			break;
		}
		at += got;
		have += (size_t)got;
		used = part_lines(p, fn, buf, have, at == p->to);
		memmove(buf, buf + used, have - used);
		have -= used;
		if (have == size) {
			/* one line longer than the buffer: make room for it */
			char *bigger = size <= SIZE_MAX / 2 ? realloc(buf, 2 * size) : NULL;

			if (bigger == NULL) {
				part_fail(p);
				break;
			}
			buf = bigger;
			size *= 2;
		}
	}
	free(buf);
}

/* Count pass: a line is a row unless it is empty. */
static bool line_count(struct part *p, const char *s, const char *e)
{
	p->rows += s < e;
	return true;
}

/* Parse the d numbers of one line into row; false when it is anything else. */
static bool line_numbers(const fb_csv_fast *f, const char *s, const char *e, double *row)
{
	const char *stop;

	for (size_t j = 0;; j++) {
		if (!fb_csv_number_scan(s, e, &stop, &row[j]))
			return false;
		if (j + 1 == f->d)
			return stop == e;
		if (stop == e || *stop != f->delim)
			return false;
		s = stop + 1;
	}
}

/* Make room for one more row in the matrix (a part alone only). */
static bool part_grow(struct part *p)
{
	size_t cap = p->cap < 64 ? 64 : 2 * p->cap;
	double *x;

	if (cap > SIZE_MAX / sizeof(double) / p->f->d)
		return false;
	/* large blocks are mapped: glibc grows them with mremap, without a copy */
	x = realloc(*p->x, cap * p->f->d * sizeof(double));
	if (x == NULL)
		return false;
	*p->x = x;
	p->cap = cap;
	return true;
}

/* Parse pass: each non-empty line is the part's next row. */
static bool line_parse(struct part *p, const char *s, const char *e)
{
	size_t d = p->f->d, i = p->row0 + p->done;
	double *row;

	if (s == e)
		return true;
	if (p->grow ? i == p->cap && !part_grow(p) : p->done == p->rows)
		return part_fail(p);
	row = *p->x + i * d;
	if (!line_numbers(p->f, s, e, row))
		return part_fail(p);
	if (p->ints != NULL)
		for (size_t j = 0; j < d; j++)
			if (p->ints[j].ok)
				fb_csv_ints_add(&p->ints[j], row[j], p->f->max_levels);
	p->done++;
	return true;
}

/* Thread body of the count pass. */
static void *part_count_main(void *arg)
{
	part_scan(arg, line_count);
	return NULL;
}

/* Thread body of the parse pass. */
static void *part_parse_main(void *arg)
{
	part_scan(arg, line_parse);
	return NULL;
}

/* Run body on every part, part 0 on this thread; parts whose thread cannot start run here. */
static void parts_run(struct part *p, size_t np, void *(*body)(void *))
{
	pthread_t tid[THREADS_MAX];
	bool started[THREADS_MAX] = { false };

	for (size_t t = 1; t < np; t++)
		started[t] = pthread_create(&tid[t], NULL, body, &p[t]) == 0;
	body(&p[0]);
	for (size_t t = 1; t < np; t++)
		if (!started[t])
			body(&p[t]);
	for (size_t t = 1; t < np; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
}

/* The first line start at or after pos (f->size when there is none); -1 on a read error. */
static long long line_start_after(const fb_csv_fast *f, long long pos)
{
	char buf[64 * 1024];
	ssize_t got;

	while (pos < f->size) {
		const char *nl;

		got = pread(f->fd, buf, sizeof buf, (off_t)(pos - 1));
		if (got <= 0)
			return -1;
		nl = memchr(buf, '\n', (size_t)got);
		if (nl != NULL)
			return pos + (nl - buf);
		pos += got;
	}
	return f->size;
}

/* How many parts: the requested thread count, or one per processor for large enough files. */
static size_t parts_count(const fb_csv_fast *f)
{
	long long bytes = f->size - f->start;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t np = f->threads;

	if (np == 0) {
		np = cpus > 0 ? (size_t)cpus : 1;
		if ((long long)np > bytes / PART_MIN + 1)
			np = (size_t)(bytes / PART_MIN + 1);
	}
	return np < 1 ? 1 : np > THREADS_MAX ? THREADS_MAX : np;
}

/* Cut the bytes after the first line into np parts at line starts. */
static bool parts_cut(const fb_csv_fast *f, struct part *p, size_t np)
{
	long long bytes = f->size - f->start, prev = f->start;

	for (size_t t = 0; t < np; t++) {
		long long cut = f->start + (long long)((double)bytes * (double)(t + 1) /
		                                       (double)np);
		long long to = t + 1 == np ? f->size : line_start_after(f, cut);

		if (to < 0)
			return false;
		if (to < prev)
			to = prev;
		p[t].from = prev;
		p[t].to = to;
		prev = to;
	}
	return true;
}

/* Give each part its own integer sets for the columns still tracked. */
static void parts_ints_init(const fb_csv_fast *f, struct part *p, size_t np)
{
	for (size_t t = 0; t < np; t++) {
		if (f->ints == NULL)
			continue;
		p[t].ints = fb_xcalloc(f->d, sizeof *p[t].ints);
		for (size_t j = 0; j < f->d; j++)
			p[t].ints[j].ok = f->ints[j].ok;
	}
}

/* Fold the parts' integer sets into the read's, in part order, and free them. */
static void parts_ints_merge(fb_csv_fast *f, struct part *p, size_t np)
{
	for (size_t t = 0; t < np; t++) {
		if (p[t].ints == NULL)
			continue;
		for (size_t j = 0; j < f->d; j++) {
			if (f->ints[j].ok)
				fb_csv_ints_merge(&f->ints[j], &p[t].ints[j], f->max_levels);
			fb_csv_ints_release(&p[t].ints[j]);
		}
		free(p[t].ints);
	}
}

/* Several parts: count rows, size the matrix once, then parse every part into its place. */
static bool parts_parse_counted(fb_csv_fast *f, struct part *p, size_t np)
{
	size_t total = f->n;
	double *x;

	parts_run(p, np, part_count_main);
	for (size_t t = 0; t < np; t++) {
		if (!p[t].ok)
			return false;
		p[t].row0 = total;
		total += p[t].rows;
	}
	if (total == 0 || total > SIZE_MAX / sizeof(double) / f->d)
		return false;
	x = realloc(f->x, total * f->d * sizeof(double));
	if (x == NULL)
		return false;
	f->x = x;
	parts_run(p, np, part_parse_main);
	for (size_t t = 0; t < np; t++)
		if (!p[t].ok || p[t].done != p[t].rows)
			return false;
	f->n = total;
	return true;
}

/* Read every line after the first into f->x. */
int fb_csv_fast_read(fb_csv_fast *f)
{
	size_t np = parts_count(f);
	struct part *p = fb_xcalloc(np, sizeof *p);
	int give_up = 0;
	bool ok;

	for (size_t t = 0; t < np; t++)
		p[t] = (struct part){ .f = f, .ok = true, .give_up = &give_up, .x = &f->x };
	ok = parts_cut(f, p, np);
	parts_ints_init(f, p, np);
	if (ok && np == 1) {
		/* alone: parse straight into the growing matrix, no count pass */
		p[0].grow = true;
		p[0].row0 = 0;
		p[0].done = f->n;
		p[0].cap = f->n;
		part_scan(&p[0], line_parse);
		ok = p[0].ok;
		if (ok)
			f->n = p[0].done;
	} else if (ok) {
		ok = parts_parse_counted(f, p, np);
	}
	parts_ints_merge(f, p, np);
	free(p);
	return ok ? FB_OK : FB_ERR;
}
