/* Tokenising CSV input with libcsv, and the small text helpers every CSV reader shares:
 * trimming, missing-value markers, exact number parsing, delimiter detection.
 *
 * The scanner reads a file in fixed-size chunks (or a buffer at once), skips a UTF-8 byte
 * order mark, detects the delimiter from the first line, and reports each field with the
 * line it began on and each non-blank row.  Line numbers count every line feed, those
 * inside quoted fields included, so that messages name the real line of the file. */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "fedbn/core.h"
#include "csv-private.h"

/* Bytes read from a file at a time. */
#define CHUNK_SIZE (64 * 1024)
/* Smallest growth of libcsv's field buffer (libcsv's own default). */
#define FIELD_BLOCK 128

/* Exact powers of ten that a double holds without rounding. */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Strip blanks from both ends of (*s, *len). */
void fb_csv_trim(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;

	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		p++;
		n--;
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' ||
	                 p[n - 1] == '\n'))
		n--;
	*s = p;
	*len = n;
}

/* True for the missing-value markers. */
bool fb_csv_is_missing(const char *s, size_t len)
{
	if (len == 0)
		return true;
	if (len == 1)
		return s[0] == '?';
	if (len == 2)
		return s[0] == 'N' && s[1] == 'A';
	if (len == 3)
		return (s[0] == 'n' || s[0] == 'N') && (s[1] == 'a' || s[1] == 'A') &&
		       (s[2] == 'n' || s[2] == 'N');
	return false;
}

/* x86's 80-bit long double holds any 19-digit mantissa and powers of ten up to 1e27 exactly;
 * its explicit 64-bit significand is the first 8 bytes of the object. */
#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
#define HAVE_X87_LONG_DOUBLE 1

/* Exact powers of ten in 80-bit long double. */
static const long double pow10_extended[] = {
	1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L,
	1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L,
	1e26L, 1e27L,
};

/* m x 10^e10 for |e10| <= 27 through one 64-bit-mantissa operation, then rounded to double.
 * The first rounding errs by at most half a unit of the 64-bit result; unless that result is
 * within one such unit of a halfway point between two doubles (its low 11 bits near 0x400),
 * the double is the correctly rounded one.  False (leave it to strtod) in that rare case. */
static bool number_parse_extended(uint64_t m, long e10, double *out)
{
	long double r;
	uint64_t bits;

	if (e10 < -27 || e10 > 27)
		return false;
	r = e10 < 0 ? (long double)m / pow10_extended[-e10] : (long double)m * pow10_extended[e10];
	memcpy(&bits, &r, sizeof bits);
	if ((bits & 0x7FF) - 0x3FF <= 2)
		return false;
	*out = (double)r;
	return true;
}
#endif

/* The slow, always correct conversion through strtod of a number already checked. */
static bool number_parse_slow(const char *s, size_t len, double *out)
{
	char small[128];
	char *copy = len < sizeof small ? small : fb_xmalloc(len + 1);
	char *end;
	bool ok;

	memcpy(copy, s, len);
	copy[len] = '\0';
	errno = 0;
	*out = strtod(copy, &end);
	ok = *end == '\0' && isfinite(*out);
	if (copy != small)
		free(copy);
	return ok;
}

/* Below this, one more digit still fits in the 19 significant digits kept. */
#define DIGITS_ROOM UINT64_C(1000000000000000000)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The value of the 8 decimal digits at p into *v; false when any of the 8 bytes is not a
 * digit.  The bytes are combined as one 64-bit word: pairs, then quads, then the 8. */
static bool digits8(const unsigned char *p, uint64_t *v)
{
	uint64_t x;

	memcpy(&x, p, sizeof x);
	if (((x & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
	     (((x + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) !=
	    UINT64_C(0x3333333333333333))
		return false;
	x -= UINT64_C(0x3030303030303030);
	x = x * 10 + (x >> 8);
	x = ((x & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32)) +
	     ((x >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32))) >> 32;
	*v = x;
	return true;
}
#else
/* Without a little-endian word the digits go one at a time. */
static bool digits8(const unsigned char *p, uint64_t *v)
{
	(void)p;
	(void)v;
	return false;
}
#endif

/* Append the run of digits at p to *m, keeping the first 19 significant ones (*lost is set
 * when any further digit is dropped); returns the end of the run.  Eight digits go at once
 * while they all fit. */
static const unsigned char *digit_run(const unsigned char *p, const unsigned char *end,
                                      uint64_t *m, int *lost)
{
	uint64_t v, acc = *m;

	/* eight at a time while all eight are kept: acc < 10^11 keeps acc below 10^19 */
	while (end - p >= 8 && acc < UINT64_C(100000000000) && digits8(p, &v)) {
		acc = acc * 100000000 + v;
		p += 8;
	}
	for (; p < end && (unsigned)(*p - '0') < 10; p++) {
		if (acc < DIGITS_ROOM)
			acc = acc * 10 + (unsigned)(*p - '0');
		else
			*lost = 1;
	}
	*m = acc;
	return p;
}

/* The digits of a decimal number: the first 19 significant digits in m, whether any were lost,
 * the count after the point; NULL when there is no digit at all. */
static const unsigned char *number_digits(const unsigned char *p, const unsigned char *end,
                                          uint64_t *m, int *lost, long *nfrac)
{
	const unsigned char *digits = p;

	*m = 0;
	*lost = 0;
	*nfrac = 0;
	p = digit_run(p, end, m, lost);
	if (p < end && *p == '.') {
		const unsigned char *f = ++p;

		p = digit_run(p, end, m, lost);
		*nfrac = p - f;
		if (*nfrac == 0 && f - 1 == digits)
			return NULL;
	} else if (p == digits) {
		return NULL;
	}
	return p;
}

/* An exponent e[+-]digits at p into *e (0 when there is none); NULL when malformed. */
static const unsigned char *number_exponent(const unsigned char *p, const unsigned char *end,
                                            long *e)
{
	bool eneg = false;

	*e = 0;
	if (p == end || (*p != 'e' && *p != 'E'))
		return p;
	if (++p < end && (*p == '+' || *p == '-'))
		eneg = *p++ == '-';
	if (p == end || (unsigned)(*p - '0') >= 10)
		return NULL;
	for (; p < end && (unsigned)(*p - '0') < 10; p++)
		if (*e < 100000)
			*e = *e * 10 + (*p - '0');
	*e = eneg ? -*e : *e;
	return p;
}

/* Scan a decimal number: the exact fast path (Clinger) when the digits fit in 53 bits and
 * the power of ten is exact, then the checked 80-bit path for up to 19 digits, else strtod. */
bool fb_csv_number_scan(const char *s, const char *end, const char **stop, double *out)
{
	const unsigned char *p = (const unsigned char *)s, *e_end = (const unsigned char *)end;
	uint64_t m;
	int lost;
	long nfrac, e, e10;
	bool neg = false;

	if (p < e_end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	p = number_digits(p, e_end, &m, &lost, &nfrac);
	if (p == NULL || (p = number_exponent(p, e_end, &e)) == NULL)
		return false;
	*stop = (const char *)p;
	e10 = e - nfrac;
	if (lost)
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
	if ((m <= (UINT64_C(1) << 53) || e10 == 0) && e10 >= -22 && e10 <= 22)
		*out = e10 < 0 ? (double)m / pow10_exact[-e10] : (double)m * pow10_exact[e10];
#ifdef HAVE_X87_LONG_DOUBLE
	else if (!number_parse_extended(m, e10, out))
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
#else
	else
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
#endif
	if (neg)
		*out = -*out;
	return true;
}

/* Parse exactly the len bytes at s as a decimal number. */
bool fb_csv_number_parse(const char *s, size_t len, double *out)
{
	const char *stop;

	return fb_csv_number_scan(s, s + len, &stop, out) && stop == s + len;
}

/* The delimiter of the first non-blank line of buf, by counting outside quotes. */
char fb_csv_delim_detect(const char *buf, size_t len, bool *complete)
{
	size_t comma = 0, semi = 0, tab = 0, i = 0;
	bool quoted = false;

	while (i < len && (buf[i] == '\r' || buf[i] == '\n' || buf[i] == ' ' || buf[i] == '\t'))
		i++;
	*complete = false;
	for (; i < len; i++) {
		char c = buf[i];

		if (c == '"')
			quoted = !quoted;
		else if (quoted)
			continue;
		else if (c == '\n' || c == '\r') {
			*complete = true;
			break;
		} else if (c == ',')
			comma++;
		else if (c == ';')
			semi++;
		else if (c == '\t')
			tab++;
	}
	if (semi > comma && semi >= tab)
		return ';';
	if (tab > comma && tab > semi)
		return '\t';
	return ',';
}

/* A short copy of a field for a message. */
const char *fb_csv_excerpt(char *out, const char *s, size_t len)
{
	size_t keep = FB_CSV_EXCERPT_MAX - 4;

	if (len < FB_CSV_EXCERPT_MAX) {
		memcpy(out, s, len);
		out[len] = '\0';
		return out;
	}
	/* do not cut a UTF-8 sequence in two */
	while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
		keep--;
	memcpy(out, s, keep);
	memcpy(out + keep, "...", 4);
	return out;
}

/* Number of line feeds in a field (only quoted fields can hold any). */
static size_t count_newlines(const char *s, size_t len)
{
	size_t count = 0;
	const char *p;

	/* most fields are short: a plain loop beats a call to memchr */
	if (len < 32) {
		for (size_t i = 0; i < len; i++)
			count += s[i] == '\n';
		return count;
	}
	while (len > 0 && (p = memchr(s, '\n', len)) != NULL) {
		count++;
		len -= (size_t)(p + 1 - s);
		s = p + 1;
	}
	return count;
}

/* Prepare a scanner for the input called name; delim 0 detects it. */
void fb_csv_scan_init(fb_csv_scan *sc, const char *name, char delim, fb_error *err)
{
	memset(sc, 0, sizeof *sc);
	sc->name = name != NULL ? name : "(buffer)";
	sc->delim = delim;
	sc->err = err;
	sc->line = 1;
}

/* Keep a copy of a field, growing the array as needed. */
bool fb_csv_keep_field(fb_csv_scan *sc, char ***fields, size_t *n, size_t *cap, const char *s,
                       size_t len, size_t line)
{
	char *copy;

	if (*n == *cap) {
		size_t room = *cap > 0 ? 2 * *cap : 16;
		char **grown = reallocarray(*fields, room, sizeof **fields);

		if (grown == NULL) {
			fb_csv_scan_fail(sc, "line %zu: out of memory", line);
			return false;
		}
		*fields = grown;
		*cap = room;
	}
	if ((copy = malloc(len + 1)) == NULL) {
		fb_csv_scan_fail(sc, "line %zu: out of memory", line);
		return false;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	(*fields)[(*n)++] = copy;
	return true;
}

/* Record "cannot read 'name': ..." once; later failures keep the first message. */
void fb_csv_scan_fail(fb_csv_scan *sc, const char *fmt, ...)
{
	char what[FB_ERROR_MAX];
	va_list ap;

	if (sc->failed)
		return;
	sc->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	fb_fail(sc->err, "cannot read '%s': %s", sc->name, what);
}

/* libcsv field callback: pass the field on with the line it began on. */
static void scan_field(void *s, size_t len, void *data)
{
	fb_csv_scan *sc = data;
	size_t line = sc->line;

	if (sc->failed)
		return;
	sc->after_cr = false;
	sc->line += count_newlines(s, len);
	if (sc->nfield == 0)
		sc->row_line = line;
	sc->field(sc, s, len, line);
	sc->nfield++;
}

/* libcsv row callback: c is the line ending (-1 at the end of input); blank rows vanish.
 * A carriage return ends a line, and so does a line feed unless it completes a CR LF pair;
 * with CSV_REPALL_NL libcsv reports that line feed as an empty row right after the CR. */
static void scan_row(int c, void *data)
{
	fb_csv_scan *sc = data;

	if (sc->failed)
		return;
	if (c == '\r' || (c == '\n' && !(sc->after_cr && sc->nfield == 0)))
		sc->line++;
	sc->after_cr = c == '\r';
	if (sc->nfield == 0)
		return;
	sc->row(sc);
	sc->nfield = 0;
}

/* Report a libcsv error in the input just parsed. */
static void scan_parse_fail(fb_csv_scan *sc, struct csv_parser *p)
{
	size_t line = sc->line, column = sc->nfield + 1;

	if (csv_error(p) != CSV_EPARSE) {
		fb_csv_scan_fail(sc, "%s", csv_strerror(csv_error(p)));
		return;
	}
	/* the bad quote is in the field being read: count the lines it spans so far */
	if (p->entry_buf != NULL)
		line += count_newlines((const char *)p->entry_buf, p->entry_pos);
	if (p->quoted)
		fb_csv_scan_fail(sc, "line %zu, column %zu: unexpected text after a closing quote",
		                 line, column);
	else
		fb_csv_scan_fail(sc, "line %zu, column %zu: quote inside an unquoted field", line,
		                 column);
}

/* Feed len bytes to the tokeniser, a chunk at a time.  libcsv grows its field buffer by a
 * fixed block (FIELD_BLOCK bytes by default), copying the field so far each time realloc
 * moves it: quadratic in a long field's length wherever realloc moves (always, under
 * AddressSanitizer).  Before each chunk the block is set to the buffer's size, so that the
 * buffer doubles and the chunk after it needs at most one more growth. */
static void scan_feed(fb_csv_scan *sc, struct csv_parser *p, const char *buf, size_t len)
{
	while (!sc->failed && len > 0) {
		size_t n = len < CHUNK_SIZE ? len : CHUNK_SIZE;

		csv_set_blk_size(p, p->entry_size > FIELD_BLOCK ? p->entry_size : FIELD_BLOCK);
		if (csv_parse(p, buf, n, scan_field, scan_row, sc) != n) {
			if (!sc->failed)
				scan_parse_fail(sc, p);
			return;
		}
		buf += n;
		len -= n;
	}
}

/* End the input: flush the last row and catch an unterminated quote. */
static void scan_end(fb_csv_scan *sc, struct csv_parser *p)
{
	if (sc->failed)
		return;
	if (csv_fini(p, scan_field, scan_row, sc) != 0 && !sc->failed) {
		if (csv_error(p) == CSV_EPARSE)
			fb_csv_scan_fail(sc, "line %zu, column %zu: unterminated quote", sc->line,
			                 sc->nfield + 1);
		else
			fb_csv_scan_fail(sc, "%s", csv_strerror(csv_error(p)));
	}
}

/* Choose the delimiter from the first bytes of the input and start the tokeniser. */
static int scan_start(fb_csv_scan *sc, struct csv_parser *p, const char *buf, size_t len)
{
	bool complete;

	if (sc->delim == 0)
		sc->delim = fb_csv_delim_detect(buf, len, &complete);
	if (sc->delim == '"' || sc->delim == '\r' || sc->delim == '\n' || sc->delim == ' ') {
		fb_csv_scan_fail(sc, "the delimiter cannot be a quote, a space or a line end");
		return FB_ERR;
	}
	if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL | CSV_APPEND_NULL) != 0) {
		fb_csv_scan_fail(sc, "cannot start the CSV tokeniser");
		return FB_ERR;
	}
	csv_set_delim(p, (unsigned char)sc->delim);
	return FB_OK;
}

/* Length of a UTF-8 byte order mark at the start of buf (0 or 3). */
static size_t bom_length(const char *buf, size_t len)
{
	return len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Scan a whole buffer. */
int fb_csv_scan_buffer(fb_csv_scan *sc, const char *buf, size_t len)
{
	struct csv_parser p;
	size_t skip = bom_length(buf, len);

	if (scan_start(sc, &p, buf + skip, len - skip) != FB_OK)
		return FB_ERR;
	scan_feed(sc, &p, buf + skip, len - skip);
	scan_end(sc, &p);
	csv_free(&p);
	return sc->failed ? FB_ERR : FB_OK;
}

/* Count the len bytes at buf, just read from the file, into the line being read (those after
 * the last line end); false once that line is longer than FB_LINE_MAX. */
static bool scan_line_room(fb_csv_scan *sc, const char *buf, size_t len)
{
	size_t i = len;

	while (i > 0 && buf[i - 1] != '\n' && buf[i - 1] != '\r')
		i--;
	sc->line_bytes = i > 0 ? len - i : sc->line_bytes + len;
	return sc->line_bytes <= FB_LINE_MAX;
}

/* Record that line is longer than FB_LINE_MAX. */
static void scan_line_fail(fb_csv_scan *sc, size_t line)
{
	fb_csv_scan_fail(sc, "line %zu is longer than " FB_LINE_MAX_TEXT ", the longest line "
	                 "fedbn reads", line);
}

/* Whether the caller asked to stop; records FB_CANCELLED_MSG as the failure when so. */
static bool scan_cancelled(fb_csv_scan *sc)
{
	if (!fb_cancel_requested(sc->cancel))
		return false;
	fb_csv_scan_fail(sc, FB_CANCELLED_MSG);
	return true;
}

/* Read whole chunks of fp into pre until the first line is complete (or the input ends, a
 * line is too long, or the caller asks to stop). */
static void scan_prefix(fb_csv_scan *sc, FILE *fp, char *chunk, fb_buf *pre)
{
	bool complete = false;
	size_t got;

	fb_buf_append(pre, "", 0); /* an empty file gives an empty string, not NULL */
	while (!complete && !scan_cancelled(sc) && (got = fread(chunk, 1, CHUNK_SIZE, fp)) > 0) {
		if (!scan_line_room(sc, chunk, got)) {
			size_t line = 1;

			for (const char *c = pre->data; (c = memchr(c, '\n', pre->len -
			                                              (size_t)(c - pre->data))) != NULL;
			     c++)
				line++;
			scan_line_fail(sc, line);
			return;
		}
		fb_buf_append(pre, chunk, got);
		if (sc->delim != 0)
			complete = pre->len >= 3;
		else if (memchr(chunk, '\n', got) != NULL || memchr(chunk, '\r', got) != NULL)
			/* only a chunk with a line end can complete the line: a long first line
			 * is not scanned again for every chunk */
			fb_csv_delim_detect(pre->data, pre->len, &complete);
	}
}

/* Stream fp through the tokeniser in fixed-size chunks. */
static void scan_stream(fb_csv_scan *sc, FILE *fp)
{
	char *chunk = fb_xmalloc(CHUNK_SIZE);
	fb_buf pre = { 0 };
	struct csv_parser p;
	size_t skip, got;
	char why[128];

	scan_prefix(sc, fp, chunk, &pre);
	skip = bom_length(pre.data, pre.len);
	if (!sc->failed && scan_start(sc, &p, pre.data + skip, pre.len - skip) == FB_OK) {
		scan_feed(sc, &p, pre.data + skip, pre.len - skip);
		fb_buf_release(&pre);
		while (!sc->failed && !scan_cancelled(sc) &&
		       (got = fread(chunk, 1, CHUNK_SIZE, fp)) > 0) {
			if (!scan_line_room(sc, chunk, got))
				scan_line_fail(sc, sc->line);
			else
				scan_feed(sc, &p, chunk, got);
		}
		if (ferror(fp))
			fb_csv_scan_fail(sc, "%s", fb_strerror(errno, why, sizeof why));
		scan_end(sc, &p);
		csv_free(&p);
	}
	fb_buf_release(&pre);
	free(chunk);
}

/* Scan a file. */
int fb_csv_scan_file(fb_csv_scan *sc, const char *path)
{
	FILE *fp = fopen(path, "rb");
	char why[128];

	if (fp == NULL) {
		fb_csv_scan_fail(sc, "%s", fb_strerror(errno, why, sizeof why));
		return FB_ERR;
	}
	scan_stream(sc, fp);
	fclose(fp);
	return sc->failed ? FB_ERR : FB_OK;
}
