/* The protocol of a study between processes, its shared part: the side's object over its
 * link, and the sending of one frame.  The server's side is in protocol-server.c, a client's
 * in protocol-client.c; neither knows how the link moves the frames. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "protocol-int.h"

/* Defaults: 30 s to answer, a day of idling. */
void fb_proto_options_init(fb_proto_options *o)
{
	o->timeout = 30;
	o->idle = 86400;
}

/* This process's side of a study over link. */
fb_proto *fb_proto_new(fb_link *link, const fb_proto_options *o)
{
	fb_proto *p = fb_xcalloc(1, sizeof *p);

	p->link = link;
	p->opt = *o;
	p->k = link->size > 1 ? (size_t)link->size - 1 : 0;
	p->tr.name = link->name;
	p->tr.impl = p;
	if (link->rank == 0)
		fb_proto_server_init(p);
	else
		p->tr.local = (size_t)link->rank - 1;
	return p;
}

/* The link the study runs over. */
const fb_link *fb_proto_link(const fb_proto *p)
{
	return p->link;
}

/* End the study: the server tells the clients; the link stops (without waiting for a peer
 * gone); p is freed. */
void fb_proto_end(fb_proto *p)
{
	bool lost;

	if (p == NULL)
		return;
	if (p->link->rank == 0)
		fb_proto_server_end(p);
	lost = p->lost;
	fb_secure_client_free(p->sec);
	free(p->pending);
	free(p->layout.gid);
	p->link->stop(p->link, lost);
	free(p);
}

/* Send len bytes to dest by deadline; a peer that did not take it leaves the study lost. */
int fb_proto_send(fb_proto *p, int dest, const unsigned char *buf, size_t len,
                  double deadline, fb_error *err)
{
	unsigned char *const one[1] = { (unsigned char *)buf };
	bool failed = false;
	int ret = p->link->send(p->link, 1, &dest, one, &len, deadline, &failed, err);

	p->lost |= ret != FB_OK;
	return ret;
}

/* Encode and send one frame to dest by the answer deadline. */
int fb_proto_send_head(fb_proto *p, int dest, enum fb_wire_type type, double figure,
                       const fb_msg *m, fb_error *err)
{
	fb_wire_head h = { type, p->run, 0, figure, 0 };
	size_t len;
	unsigned char *buf = fb_wire_encode(&h, m, &len);
	int ret = fb_proto_send(p, dest, buf, len, fb_clock_now() + p->opt.timeout, err);

	free(buf);
	return ret;
}

/* The text of a FAIL frame's bytes, bounded and terminated. */
void fb_proto_fail_text(const fb_msg *m, fb_error *out)
{
	size_t n = m->nb < FB_ERROR_MAX - 1 ? m->nb : FB_ERROR_MAX - 1;

	if (n > 0)
		memcpy(out->msg, m->b, n);
	out->msg[n] = '\0';
	if (out->msg[0] == '\0')
		snprintf(out->msg, sizeof out->msg, "it gave no reason");
}
