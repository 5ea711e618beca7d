/* Whole-string number parsing, case-insensitive comparison, edit distance, the shortest
 * number text, and the clock. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"

/* Parse all of s as a finite double. */
int fb_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return FB_ERR;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
		return FB_ERR;
	*out = v;
	return FB_OK;
}

/* Parse all of s as a signed 64-bit integer. */
int fb_parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		return FB_ERR;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || errno == ERANGE)
		return FB_ERR;
	*out = (int64_t)v;
	return FB_OK;
}

/* ASCII case-insensitive comparison. */
int fb_strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);

		if (ca != cb || ca == '\0')
			return ca - cb;
	}
}

/* Whether byte c is a control character (C0 or DEL). */
static bool char_is_control(unsigned char c)
{
	return (c >= 1 && c < 32) || c == 127;
}

/* Whether s holds a control character. */
bool fb_str_has_control(const char *s)
{
	for (; *s != '\0'; s++)
		if (char_is_control((unsigned char)*s))
			return true;
	return false;
}

/* Append s with its control characters as \xHH. */
void fb_buf_append_escaped(fb_buf *b, const char *s)
{
	fb_buf_append(b, "", 0);
	for (; *s != '\0'; s++) {
		if (char_is_control((unsigned char)*s))
			fb_buf_printf(b, "\\x%02x", (unsigned)(unsigned char)*s);
		else
			fb_buf_append(b, s, 1);
	}
}

/* strerror with a lower-case first letter, unless the first word is an acronym ("RPC"). */
const char *fb_strerror(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(e));
	if (len > 1 && !isupper((unsigned char)buf[1]))
		buf[0] = (char)tolower((unsigned char)buf[0]);
	return buf;
}

/* Levenshtein distance with one row of memory. */
size_t fb_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = fb_xcalloc(lb + 1, sizeof *row);
	size_t out;

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	out = row[lb];
	free(row);
	return out;
}

/* The edit distance from typed to name when name is near enough to suggest for a mistyped
 * typed (2 edits, 3 when typed is longer than 5 characters), else SIZE_MAX. */
size_t fb_suggest_distance(const char *typed, const char *name)
{
	size_t dist = fb_edit_distance(typed, name);

	return dist <= 2 || (dist <= 3 && strlen(typed) > 5) ? dist : SIZE_MAX;
}

/* The shortest %g text of v that reads back as v. */
const char *fb_format_double(double v, char *buf, size_t len)
{
	if (v == floor(v) && fabs(v) < 1e15) { /* whole numbers in full, never as 2.88e+03 */
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			break;
	}
	return buf;
}
