/* The wire format: header fields are written byte by byte in little-endian order; the
 * numbers travel as their 8 bytes unchanged, so a double arrives with the same bits. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/wire.h"

/* The first three bytes of every frame. */
static const unsigned char wire_magic[3] = { 'F', 'B', 'W' };

/* Write v as n little-endian bytes at p. */
static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Read n little-endian bytes at p. */
static uint64_t get_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Encode a frame.  Layout: magic (3), version (1), type (1), control numbers (1), flags (1),
 * pad (1), run (4), round (4), numbers (8), bytes (8), figure (8, the double's own bytes):
 * 40 bytes; then the control numbers, the numbers and the bytes. */
unsigned char *fb_wire_encode(const fb_wire_head *head, const fb_msg *m, size_t *len)
{
	size_t nd = m != NULL ? m->nd : 0, nb = m != NULL ? m->nb : 0;
	size_t nc = m != NULL && m->nc <= FB_MSG_CONTROL ? m->nc : 0;
	size_t at = FB_WIRE_HEADER + nc * sizeof(double);
	unsigned char *buf;

	*len = at + nd * sizeof(double) + nb;
	buf = fb_xcalloc(*len, 1);
	memcpy(buf, wire_magic, 3);
	buf[3] = FB_WIRE_VERSION;
	buf[4] = (unsigned char)head->type;
	buf[5] = (unsigned char)nc;
	buf[6] = (unsigned char)head->flags;
	put_le(buf + 8, head->run, 4);
	put_le(buf + 12, head->round, 4);
	put_le(buf + 16, nd, 8);
	put_le(buf + 24, nb, 8);
	memcpy(buf + 32, &head->figure, sizeof head->figure);
	if (nc > 0)
		memcpy(buf + FB_WIRE_HEADER, m->c, nc * sizeof(double));
	if (nd > 0)
		memcpy(buf + at, m->d, nd * sizeof(double));
	if (nb > 0)
		memcpy(buf + at + nd * sizeof(double), m->b, nb);
	return buf;
}

/* Decode a frame, checking every length before reading. */
int fb_wire_decode(const unsigned char *buf, size_t len, fb_wire_head *head, fb_msg *m,
                   fb_error *err)
{
	uint64_t nd, nb;
	size_t nc, at;

	if (len < FB_WIRE_HEADER)
		return fb_fail(err, "a message of %zu bytes is shorter than the %d-byte header", len,
		               FB_WIRE_HEADER);
	if (memcmp(buf, wire_magic, 3) != 0)
		return fb_fail(err, "a message does not start with fedbn's mark");
	if (buf[3] != FB_WIRE_VERSION)
		return fb_fail(err, "a message has wire version %u, and this fedbn speaks %d",
		               buf[3], FB_WIRE_VERSION);
	if (buf[4] < FB_WIRE_HELLO || buf[4] > FB_WIRE_LAST)
		return fb_fail(err, "a message has the unknown type %u", buf[4]);
	if ((nc = buf[5]) > FB_MSG_CONTROL)
		return fb_fail(err, "a message announces %zu control numbers, more than %d", nc,
		               FB_MSG_CONTROL);
	at = FB_WIRE_HEADER + nc * sizeof(double);
	nd = get_le(buf + 16, 8);
	nb = get_le(buf + 24, 8);
	if (len < at || nd > (len - at) / sizeof(double) || nb != len - at - nd * sizeof(double))
		return fb_fail(err, "a message of %zu bytes announces %zu control numbers, %llu "
		                    "numbers and %llu bytes", len, nc, (unsigned long long)nd,
		               (unsigned long long)nb);
	head->type = (enum fb_wire_type)buf[4];
	head->flags = buf[6];
	head->run = (uint32_t)get_le(buf + 8, 4);
	head->round = (uint32_t)get_le(buf + 12, 4);
	memcpy(&head->figure, buf + 32, sizeof head->figure);
	m->nc = nc;
	if (nc > 0)
		memcpy(m->c, buf + FB_WIRE_HEADER, nc * sizeof(double));
	if (nd > 0)
		memcpy(fb_msg_doubles(m, nd), buf + at, nd * sizeof(double));
	else
		fb_msg_doubles(m, 0);
	if (nb > 0)
		memcpy(fb_msg_bytes(m, nb), buf + at + nd * sizeof(double), nb);
	else
		fb_msg_bytes(m, 0);
	return FB_OK;
}

/* The name of a frame type. */
const char *fb_wire_type_name(enum fb_wire_type t)
{
	static const char *const names[] = { "unknown", "hello", "open", "ready", "round",
		                             "reply", "fail", "quit", "layout" };

	return (unsigned)t < sizeof names / sizeof *names ? names[t] : "unknown";
}

/* Append the NUL-terminated word w to the growing buffer *buf of *len bytes. */
static void put_word(unsigned char **buf, size_t *len, size_t *cap, const char *w)
{
	size_t n = strlen(w) + 1;

	while (*len + n > *cap) {
		*cap = *cap < 256 ? 256 : 2 * *cap;
		*buf = fb_xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, w, n);
	*len += n;
}

/* Write a site's description. */
void fb_wire_schema_encode(const fb_dataset *ds, const char *source, fb_msg *m)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	char num[32];
	double *d = fb_msg_doubles(m, 3);

	d[0] = (double)ds->n;
	d[1] = (double)ds->d;
	d[2] = 1.0; /* the receiver checks it reads 1.0: the same byte order */
	put_word(&buf, &len, &cap, source);
	for (size_t j = 0; j < ds->d; j++) {
		put_word(&buf, &len, &cap, ds->vars[j].name);
		put_word(&buf, &len, &cap, ds->vars[j].kind == FB_DISCRETE ? "d" : "c");
		snprintf(num, sizeof num, "%zu", ds->vars[j].nlevels);
		put_word(&buf, &len, &cap, num);
		for (size_t l = 0; l < ds->vars[j].nlevels; l++)
			put_word(&buf, &len, &cap, ds->vars[j].levels[l]);
	}
	memcpy(fb_msg_bytes(m, len), buf, len);
	free(buf);
}

/* The next NUL-terminated word of m's bytes from *at, or NULL when none is left whole. */
static const char *get_word(const fb_msg *m, size_t *at)
{
	const unsigned char *end;
	const char *w;

	if (*at >= m->nb || (end = memchr(m->b + *at, 0, m->nb - *at)) == NULL)
		return NULL;
	w = (const char *)m->b + *at;
	*at = (size_t)(end - m->b) + 1;
	return w;
}

/* Read variable j's kind and levels from m at *at into ds. */
static int schema_var(const fb_msg *m, size_t *at, fb_dataset *ds, size_t j, fb_error *err)
{
	const char *name = get_word(m, at), *kind = get_word(m, at), *cnt = get_word(m, at);
	char *endp, **lev;
	unsigned long nl;
	int ret = FB_OK;

	if (name == NULL || kind == NULL || cnt == NULL || (strcmp(kind, "c") != 0 &&
	                                                    strcmp(kind, "d") != 0))
		return fb_fail(err, "the description of variable %zu is cut short or garbled", j + 1);
	nl = strtoul(cnt, &endp, 10);
	if (*endp != '\0' || nl > m->nb || (kind[0] == 'd') != (nl > 0))
		return fb_fail(err, "variable '%s' has a garbled level count '%s'", name, cnt);
	if (name[0] == '\0')
		return fb_fail(err, "variable %zu has an empty name", j + 1);
	free(ds->vars[j].name); /* placeholders X1..Xd may clash with later names: uniqueness is
	                           checked once all are read */
	ds->vars[j].name = fb_xstrdup(name);
	lev = fb_xcalloc(nl + 1, sizeof *lev);
	for (size_t l = 0; l < nl && ret == FB_OK; l++)
		if ((lev[l] = (char *)get_word(m, at)) == NULL)
			ret = fb_fail(err, "variable '%s' lists fewer than %lu levels", name, nl);
	if (ret == FB_OK && nl > 0)
		ret = fb_dataset_set_levels(ds, j, lev, nl, err);
	free(lev);
	return ret;
}

/* Read a site's description back. */
fb_dataset *fb_wire_schema_decode(const fb_msg *m, size_t *rows, char **source,
                                  fb_error *err)
{
	size_t at = 0, d;
	const char *src;
	fb_dataset *ds;

	if (m->nd != 3 || m->d[2] != 1.0)
		return fb_fail(err, "the site's description is not in this machine's byte order "
		                    "or format"), NULL;
	if (!(m->d[0] >= 0 && m->d[0] < 1e15 && m->d[1] >= 1 && m->d[1] <= (double)m->nb))
		return fb_fail(err, "the site's description gives %g rows and %g variables",
		               m->d[0], m->d[1]), NULL;
	*rows = (size_t)m->d[0];
	d = (size_t)m->d[1];
	if ((src = get_word(m, &at)) == NULL || (ds = fb_dataset_alloc(0, d)) == NULL)
		return fb_fail(err, "the site's description is cut short"), NULL;
	for (size_t j = 0; j < d; j++)
		if (schema_var(m, &at, ds, j, err) != FB_OK) {
			fb_dataset_free(ds);
			return NULL;
		}
	for (size_t j = 0; j < d && at == m->nb; j++)
		if (fb_dataset_find(ds, ds->vars[j].name) != (int)j) {
			fb_fail(err, "the site names two variables '%s'", ds->vars[j].name);
			fb_dataset_free(ds);
			return NULL;
		}
	if (at != m->nb) {
		fb_dataset_free(ds);
		return fb_fail(err, "the site's description has %zu bytes left over", m->nb - at),
		       NULL;
	}
	*source = fb_xstrdup(src);
	return ds;
}

/* Add a site's keys to its description. */
void fb_wire_keys_put(fb_msg *m, const fb_site_keys *keys)
{
	size_t nd = m->nd, nb = m->nb, len = strlen(keys->name) + 1;
	double *d = fb_msg_doubles(m, nd + 3);

	d[nd] = (double)keys->n;
	d[nd + 1] = (double)(keys->digest >> 32);
	d[nd + 2] = (double)(keys->digest & 0xffffffffu);
	memcpy(fb_msg_bytes(m, nb + len) + nb, keys->name, len);
}

/* Take a site's keys out of its description. */
int fb_wire_keys_take(fb_msg *m, fb_site_keys *keys, fb_error *err)
{
	const double *d;
	const unsigned char *start;
	size_t len;

	if (m->nd != 6)
		return 0;
	d = m->d + 3;
	if (!(d[0] >= 0 && d[0] < 1e15 && d[1] >= 0 && d[1] < 4294967296.0 && d[2] >= 0 &&
	      d[2] < 4294967296.0) || m->nb < 2 || m->b[m->nb - 1] != 0)
		return fb_fail(err, "the site's keys are garbled");
	for (start = m->b + m->nb - 1; start > m->b && start[-1] != 0; start--)
		;
	len = (size_t)(m->b + m->nb - 1 - start);
	if (start == m->b || len == 0 || len >= sizeof keys->name)
		return fb_fail(err, "the site's key column name is garbled");
	memcpy(keys->name, start, len + 1);
	keys->n = (size_t)d[0];
	keys->digest = (uint64_t)d[1] << 32 | (uint64_t)d[2];
	m->nd = 3;
	m->nb = (size_t)(start - m->b);
	return 1;
}
