/* Messages and the ledger that counts them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fedbn/fed.h"

/* Room for n numbers. */
double *fb_msg_doubles(fb_msg *m, size_t n)
{
	if (n != m->nd)
		m->d = fb_xreallocarray(m->d, n == 0 ? 1 : n, sizeof *m->d);
	m->nd = n;
	return m->d;
}

/* Room for n bytes. */
unsigned char *fb_msg_bytes(fb_msg *m, size_t n)
{
	if (n != m->nb)
		m->b = fb_xrealloc(m->b, n == 0 ? 1 : n);
	m->nb = n;
	return m->b;
}

/* Copy src into dst. */
void fb_msg_copy(fb_msg *dst, const fb_msg *src)
{
	if (src->nd > 0)
		memcpy(fb_msg_doubles(dst, src->nd), src->d, src->nd * sizeof *src->d);
	else
		fb_msg_doubles(dst, 0);
	if (src->nb > 0)
		memcpy(fb_msg_bytes(dst, src->nb), src->b, src->nb);
	else
		fb_msg_bytes(dst, 0);
	fb_msg_control(dst, src->c, src->nc);
}

/* Set the control numbers. */
void fb_msg_control(fb_msg *m, const double *v, size_t n)
{
	m->nc = n < FB_MSG_CONTROL ? n : FB_MSG_CONTROL;
	if (m->nc > 0)
		memmove(m->c, v, m->nc * sizeof *v);
}

/* Bytes on the wire. */
size_t fb_msg_size(const fb_msg *m)
{
	return m->nd * sizeof(double) + m->nb;
}

/* Free the payload. */
void fb_msg_release(fb_msg *m)
{
	free(m->d);
	free(m->b);
	memset(m, 0, sizeof *m);
}

/* Record one message. */
void fb_ledger_add(fb_ledger *l, size_t round, enum fb_dir dir, size_t client, size_t bytes)
{
	if (l->n == l->cap) {
		l->cap = l->cap < 64 ? 64 : 2 * l->cap;
		l->e = fb_xreallocarray(l->e, l->cap, sizeof *l->e);
	}
	l->e[l->n++] = (fb_ledger_entry){ round, dir, client, bytes };
	l->total[dir] += bytes;
}

/* Bytes in one direction in one round (0: all). */
size_t fb_ledger_bytes(const fb_ledger *l, size_t round, enum fb_dir dir)
{
	size_t sum = 0;

	if (round == 0)
		return l->total[dir];
	for (size_t i = l->n; i-- > 0 && l->e[i].round >= round;)
		if (l->e[i].round == round && l->e[i].dir == dir)
			sum += l->e[i].bytes;
	return sum;
}

/* Bytes of one client in one direction and round (0: all). */
size_t fb_ledger_client_bytes(const fb_ledger *l, size_t round, enum fb_dir dir, size_t client)
{
	size_t sum = 0;

	for (size_t i = 0; i < l->n; i++)
		if ((round == 0 || l->e[i].round == round) && l->e[i].dir == dir &&
		    l->e[i].client == client)
			sum += l->e[i].bytes;
	return sum;
}

/* Free the entries. */
void fb_ledger_release(fb_ledger *l)
{
	free(l->e);
	memset(l, 0, sizeof *l);
}
