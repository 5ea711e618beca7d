/* Allocation that never returns NULL (shell and UI), and a growable string buffer. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"

/* Print and exit: out of memory in the shell cannot be recovered. */
void fb_xalloc_fail(size_t size)
{
	fprintf(stderr, "fedbn: out of memory (%zu bytes)\n", size);
	exit(2);
}

/* malloc that exits on failure. */
void *fb_xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		fb_xalloc_fail(size);
	return p;
}

/* calloc that exits on failure. */
void *fb_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);

	if (p == NULL)
		fb_xalloc_fail(count * size);
	return p;
}

/* realloc that exits on failure. */
void *fb_xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size == 0 ? 1 : size);

	if (p == NULL)
		fb_xalloc_fail(size);
	return p;
}

/* realloc of count * size bytes, checked for overflow. */
void *fb_xreallocarray(void *ptr, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		fb_xalloc_fail(SIZE_MAX);
	return fb_xrealloc(ptr, count * size);
}

/* strdup that exits on failure. */
char *fb_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(fb_xmalloc(n), s, n);
}

/* vasprintf that exits on failure. */
char *fb_xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	char *s;
	int n;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0)
		fb_xalloc_fail(0);
	s = fb_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, again);
	va_end(again);
	return s;
}

/* asprintf that exits on failure. */
char *fb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fb_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Make room for extra more bytes (and the NUL). */
static void buf_reserve(fb_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	b->cap = b->cap < 64 ? 64 : b->cap;
	while (b->cap < need)
		b->cap *= 2;
	b->data = fb_xrealloc(b->data, b->cap);
}

/* Append n bytes of s. */
void fb_buf_append(fb_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Append formatted text. */
void fb_buf_printf(fb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Free and reset. */
void fb_buf_release(fb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
