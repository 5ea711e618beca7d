/* The protocol, the server's side of the clients' hellos: it waits for every client to
 * describe its data, checks that the sites fit together, lays the federation out over them
 * and tells each client its place. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "protocol-int.h"

/* What the clients' hellos tell: each one's variables, rows and keys. */
typedef struct hellos {
	fb_dataset **schemas; /* per client (owned) */
	size_t *rows;         /* per client */
	fb_site_keys *keys;   /* per client */
	int *keyed;           /* per client: 1 when it named a key column */
} hellos;

/* Read client c's hello (len bytes of buf) into hs and p's sources. */
static int take_hello(fb_proto *p, const unsigned char *buf, size_t len, size_t c, hellos *hs,
                      fb_error *err)
{
	fb_msg m = { 0 };
	fb_wire_head h = { 0 };
	fb_error why = { { 0 } };

	if (fb_wire_decode(buf, len, &h, &m, &why) == FB_OK && h.type == FB_WIRE_FAIL) {
		fb_proto_fail_text(&m, &why);
		fb_msg_release(&m);
		return fb_fail(err, "client %zu cannot take part: %s", c + 1, why.msg);
	}
	if (why.msg[0] == '\0' && h.type != FB_WIRE_HELLO)
		snprintf(why.msg, sizeof why.msg, "it did not start with a hello");
	if (why.msg[0] == '\0' && (hs->keyed[c] = fb_wire_keys_take(&m, &hs->keys[c], &why)) < 0)
		hs->keyed[c] = 0;
	if (why.msg[0] != '\0' ||
	    (hs->schemas[c] = fb_wire_schema_decode(&m, &hs->rows[c], &p->sources[c], &why)) ==
	    NULL) {
		fb_msg_release(&m);
		return fb_fail(err, "client %zu sent a malformed description of its data: %s", c + 1,
		               why.msg);
	}
	fb_msg_release(&m);
	return FB_OK;
}

/* No hello came from the clients still silent by the deadline: each is marked as gone (it
 * may still be reading its file), the first named. */
static int hellos_missing(fb_proto *p, const hellos *hs, fb_error *err)
{
	size_t first = p->k;

	for (size_t c = 0; c < p->k; c++)
		if (hs->schemas[c] == NULL) {
			p->gone[c] = true;
			first = first < p->k ? first : c;
		}
	if (first == p->k)
		return fb_fail(err, "%s failed while waiting for the clients", p->link->title);
	return fb_fail(err, "client %zu did not describe its data within %g s (did its file "
	                    "load?)", first + 1, p->opt.timeout);
}

/* Wait for every client's hello; a client whose process ends first is named. */
static int collect_hellos(fb_proto *p, hellos *hs, fb_error *err)
{
	size_t left = p->k;
	double deadline = fb_clock_now() + p->opt.timeout;

	while (left > 0) {
		unsigned char *buf;
		size_t len;
		int from, ret = p->link->recv(p->link, -1, deadline, &buf, &len, &from);
		bool fresh;

		if (ret == 2 && from >= 1 && from <= (int)p->k) {
			p->gone[from - 1] = true;
			if (hs->schemas[from - 1] == NULL)
				return fb_fail(err, "client %d has ended (its process is gone) before it "
				                    "described its data", from);
			continue;
		}
		if (ret != FB_OK)
			return hellos_missing(p, hs, err);
		fresh = from >= 1 && from <= (int)p->k && hs->schemas[from - 1] == NULL;
		ret = fresh ? take_hello(p, buf, len, (size_t)from - 1, hs, err) : FB_OK;
		free(buf);
		if (ret != FB_OK)
			return FB_ERR;
		left -= fresh;
	}
	return FB_OK;
}

/* Either every client named a key column or none did. */
static int check_keyed(const fb_proto *p, const int *keyed, fb_error *err)
{
	for (size_t c = 1; c < p->k; c++)
		if (keyed[c] != keyed[0])
			return fb_fail(err, "client %zu ('%s') %s a key column and client 1 ('%s') %s: "
			                    "start every client with the same --key", c + 1,
			               p->sources[c], keyed[c] ? "names" : "names no",
			               p->sources[0], keyed[0] ? "does" : "none");
	return FB_OK;
}

/* Tell client c its place in the federation part: the kind, the variables, the rows, and
 * the global id of each of its columns in its own order (site holds them). */
static int send_layout(fb_proto *p, const fb_partition *part, const fb_dataset *schema,
                       const fb_dataset *site, size_t c, fb_error *err)
{
	fb_msg m = { 0 };
	double *d = fb_msg_doubles(&m, 3 + site->d);
	bool *to = fb_xcalloc(part->k, sizeof *to);
	fb_wire_head h = { .type = FB_WIRE_LAYOUT };
	unsigned char *buf;
	size_t len;
	int ret;

	d[0] = (double)part->kind;
	d[1] = (double)part->d;
	d[2] = (double)part->n;
	for (size_t j = 0; j < site->d; j++)
		d[3 + j] = (double)fb_dataset_find(schema, site->vars[j].name);
	to[c] = true;
	buf = fb_wire_encode(&h, &m, &len);
	ret = fb_proto_send_clients(p, to, buf, len, err);
	free(buf);
	free(to);
	fb_msg_release(&m);
	return ret;
}

/* The federation of the clients' sites, reached through the server's transport; each client
 * told its place. */
static fb_partition *remote_partition(fb_proto *p, hellos *hs, fb_dataset **schema,
                                      fb_error *err)
{
	fb_partition *part;
	char *desc;

	if (check_keyed(p, hs->keyed, err) != FB_OK)
		return NULL;
	part = fb_sites_partition((const fb_dataset *const *)hs->schemas, hs->rows,
	                          hs->keyed[0] ? hs->keys : NULL, p->sources, p->k, schema, err);
	if (part == NULL)
		return NULL;
	part->transport = &p->tr;
	desc = fb_xasprintf("%s %s", p->link->name, part->desc);
	free(part->desc);
	part->desc = desc;
	p->n = part->n;
	for (size_t c = 0; c < p->k; c++)
		if (send_layout(p, part, *schema, hs->schemas[c], c, err) != FB_OK) {
			fb_partition_free(part);
			fb_dataset_free(*schema);
			*schema = NULL;
			return NULL;
		}
	return part;
}

/* Server: wait for the hellos, check the sites agree, build the partition. */
fb_partition *fb_proto_connect(fb_proto *p, fb_dataset **schema, fb_error *err)
{
	hellos hs;
	fb_partition *part = NULL;

	if (p->link->rank != 0 || p->k == 0)
		return fb_fail(err, "the server needs an %s job with at least one client",
		               p->link->title), NULL;
	if (p->gone != NULL)
		return fb_fail(err, "the server has connected its clients already"), NULL;
	hs.schemas = fb_xcalloc(p->k, sizeof *hs.schemas);
	hs.rows = fb_xcalloc(p->k, sizeof *hs.rows);
	hs.keys = fb_xcalloc(p->k, sizeof *hs.keys);
	hs.keyed = fb_xcalloc(p->k, sizeof *hs.keyed);
	p->gone = fb_xcalloc(p->k, sizeof *p->gone);
	p->sources = fb_xcalloc(p->k, sizeof *p->sources);
	if (collect_hellos(p, &hs, err) == FB_OK)
		part = remote_partition(p, &hs, schema, err);
	for (size_t c = 0; c < p->k; c++)
		fb_dataset_free(hs.schemas[c]);
	free(hs.schemas);
	free(hs.rows);
	free(hs.keys);
	free(hs.keyed);
	return part;
}
