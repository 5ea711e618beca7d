/* The registry of files fedbn wrote, kept across sessions: one line a write,
 *   SIZE SECONDS NANOSECONDS DEVICE INODE REAL-PATH
 * appended under a lock; the last line for a path is the one that counts.  When the file
 * grows past FB_WRITTEN_COMPACT bytes it is rewritten with the newest line of each path whose
 * file is still as fedbn wrote it, at most FB_WRITTEN_KEEP of them.  A registry that cannot
 * be read or written only means that files are protected as fedbn did not write them. */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "written.h"

/* The size past which the registry is rewritten, and the lines a rewrite keeps. */
#define FB_WRITTEN_COMPACT (512 * 1024)
#define FB_WRITTEN_KEEP 2000

/* One line of the registry. */
typedef struct written_entry {
	intmax_t size;   /* the file's size when written */
	intmax_t sec;    /* its modification time, seconds */
	long nsec;       /* and nanoseconds */
	uintmax_t dev;   /* its device */
	uintmax_t ino;   /* its inode */
	const char *path; /* its real path (inside the line read) */
	size_t line;     /* its place among the registry's lines */
} written_entry;

/* The registry's folder: $XDG_STATE_HOME/fedbn when that is an absolute path, else
 * $HOME/.local/state/fedbn, else NULL (owned by the caller). */
static char *written_folder(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state != NULL && state[0] == '/')
		return fb_xasprintf("%s/fedbn", state);
	if (home != NULL && home[0] == '/')
		return fb_xasprintf("%s/.local/state/fedbn", home);
	return NULL;
}

/* The registry's path, or NULL. */
char *fb_written_registry(void)
{
	char *dir = written_folder(), *path;

	if (dir == NULL)
		return NULL;
	path = fb_xasprintf("%s/written", dir);
	free(dir);
	return path;
}

/* Make folder dir and the folders above it that are missing (mode 0700, as the XDG base
 * directory rules ask); whether it exists now. */
static bool written_mkdirs(char *dir)
{
	struct stat st;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode);
	for (char *p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (stat(dir, &st) != 0)
			mkdir(dir, 0700);
		*p = '/';
	}
	return mkdir(dir, 0700) == 0 || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
}

/* Parse one registry line (its new line removed) into e; whether it is one. */
static bool written_parse(const char *line, written_entry *e)
{
	int used = -1;

	if (sscanf(line, "%jd %jd %ld %ju %ju %n", &e->size, &e->sec, &e->nsec, &e->dev, &e->ino,
	           &used) != 5 || used <= 0 || line[used] != '/')
		return false;
	e->path = line + used;
	return true;
}

/* Whether e describes the file st describes, as it is now. */
static bool written_matches(const written_entry *e, const struct stat *st)
{
	return e->size == (intmax_t)st->st_size && e->sec == (intmax_t)st->st_mtim.tv_sec &&
	       e->nsec == st->st_mtim.tv_nsec && e->dev == (uintmax_t)st->st_dev &&
	       e->ino == (uintmax_t)st->st_ino;
}

/* The registry's lines, each ending in its new line, in one buffer; NULL when it cannot be
 * read.  *n gets how many bytes. */
static char *written_read(const char *registry, size_t *n)
{
	FILE *fp = fopen(registry, "r");
	fb_buf b = { 0 };
	char chunk[8192];
	size_t got;

	if (fp == NULL)
		return NULL;
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		fb_buf_append(&b, chunk, got);
	fclose(fp);
	fb_buf_append(&b, "", 1); /* a terminating byte even when empty */
	*n = b.len - 1;
	return b.data;
}

/* What the registry says of path (real path real) with status st. */
enum fb_written fb_written_lookup(const char *path, const struct stat *st)
{
	char *registry = fb_written_registry(), *real = realpath(path, NULL), *text, *line, *next;
	enum fb_written found = FB_WRITTEN_UNKNOWN;
	written_entry e;
	size_t n;

	text = registry != NULL && real != NULL ? written_read(registry, &n) : NULL;
	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			break; /* a line still being appended */
		*next++ = '\0';
		if (written_parse(line, &e) && strcmp(e.path, real) == 0)
			found = written_matches(&e, st) ? FB_WRITTEN_SAME : FB_WRITTEN_CHANGED;
	}
	free(text);
	free(real);
	free(registry);
	return found;
}

/* Order lines by path, then by place in the registry. */
static int written_cmp(const void *a, const void *b)
{
	const written_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* Mark in newest[] the lines (n of them, es) that are their path's last. */
static void written_newest(const written_entry *es, size_t n, bool *newest)
{
	written_entry *sorted = fb_xreallocarray(NULL, n + 1, sizeof *sorted);

	memcpy(sorted, es, n * sizeof *es);
	qsort(sorted, n, sizeof *sorted, written_cmp);
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || strcmp(sorted[i].path, sorted[i + 1].path) != 0)
			newest[sorted[i].line] = true;
	free(sorted);
}

/* Whether entry e's file is still as fedbn wrote it. */
static bool written_current(const written_entry *e)
{
	struct stat st;

	return stat(e->path, &st) == 0 && S_ISREG(st.st_mode) && written_matches(e, &st);
}

/* Rewrite the registry with the newest line of each path whose file is still as written,
 * the newest FB_WRITTEN_KEEP of them at most (under the caller's lock). */
static void written_compact(const char *registry)
{
	size_t n, count = 0, kept = 0;
	char *text = written_read(registry, &n), *line, *next;
	written_entry *es = NULL;
	bool *keep;
	fb_atomic_file af;

	for (line = text; line != NULL && (next = strchr(line, '\n')) != NULL; line = next) {
		*next++ = '\0';
		es = fb_xreallocarray(es, count + 1, sizeof *es);
		es[count].line = count;
		count += written_parse(line, &es[count]);
	}
	keep = fb_xcalloc(count + 1, sizeof *keep);
	written_newest(es, count, keep);
	for (size_t i = count; i-- > 0;)
		kept += keep[i] = keep[i] && kept < FB_WRITTEN_KEEP && written_current(&es[i]);
	if (text != NULL && fb_atomic_open(&af, registry, NULL) == FB_OK) {
		for (size_t i = 0; i < count; i++)
			if (keep[i])
				fprintf(af.fp, "%jd %jd %ld %ju %ju %s\n", es[i].size, es[i].sec,
				        es[i].nsec, es[i].dev, es[i].ino, es[i].path);
		fb_atomic_commit(&af, NULL);
	}
	free(keep);
	free(es);
	free(text);
}

/* Append line to the registry under its lock, and rewrite it when it has grown too long. */
static void written_append(char *dir, const char *line)
{
	char *lock = fb_xasprintf("%s/written.lock", dir);
	char *registry = fb_xasprintf("%s/written", dir);
	int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600), fd = -1;
	struct stat st;

	if (lfd >= 0 && flock(lfd, LOCK_EX) == 0)
		fd = open(registry, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		size_t len = strlen(line);
		bool whole = write(fd, line, len) == (ssize_t)len;

		if (whole && fstat(fd, &st) == 0 && st.st_size > FB_WRITTEN_COMPACT)
			written_compact(registry);
		close(fd);
	}
	if (lfd >= 0)
		close(lfd); /* and with it the lock */
	free(registry);
	free(lock);
}

/* Record that fedbn has just written path. */
void fb_written_record(const char *path)
{
	char *dir, *real, *line;
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (real = realpath(path, NULL)) == NULL)
		return;
	dir = strchr(real, '\n') == NULL ? written_folder() : NULL; /* one line a file */
	if (dir != NULL && written_mkdirs(dir)) {
		line = fb_xasprintf("%jd %jd %ld %ju %ju %s\n", (intmax_t)st.st_size,
		                    (intmax_t)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
		                    (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, real);
		written_append(dir, line);
		free(line);
	}
	free(dir);
	free(real);
}
