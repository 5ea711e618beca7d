/* The wire format of messages between processes: a fixed header, then the control numbers,
 * then the numbers (8 bytes each, IEEE 754 in the sender's byte order, which must be the
 * receiver's), then the other bytes.  Every length is checked against the frame's size
 * before anything is read. */
#ifndef FEDBN_WIRE_H
#define FEDBN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/sites.h"

/* The format's version: a frame of another version is refused by name. */
#define FB_WIRE_VERSION 2
/* Bytes of the header. */
#define FB_WIRE_HEADER 40

/* What a frame is. */
enum fb_wire_type {
	FB_WIRE_HELLO = 1, /* client -> server: its variables (bytes) and rows (d[0]) */
	FB_WIRE_OPEN,      /* server -> client: build a run (bytes: words, NUL-separated) */
	FB_WIRE_READY,     /* client -> server: the run is built */
	FB_WIRE_ROUND,     /* server -> client: one round's broadcast */
	FB_WIRE_REPLY,     /* client -> server: its reply and figure */
	FB_WIRE_FAIL,      /* client -> server: it could not; bytes hold the sentence */
	FB_WIRE_QUIT,      /* server -> client: the study is over */
	FB_WIRE_LAYOUT,    /* server -> client: the federation's kind and variables, and the
	                      global id of each of the client's columns (numbers) */
};
/* The last frame type. */
#define FB_WIRE_LAST FB_WIRE_LAYOUT

/* Flags of a frame's header. */
enum fb_wire_flags {
	FB_WIRE_LISTEN = 1, /* ROUND: the client runs its half but was not drawn: it replies
	                       with its figure alone */
};

/* A frame's header, as decoded. */
typedef struct fb_wire_head {
	enum fb_wire_type type; /* what it is */
	uint32_t run;           /* the run it belongs to (from 1; 0 outside runs) */
	uint32_t round;         /* the round it belongs to (from 1; 0 outside rounds) */
	double figure;          /* REPLY: the client's figure of the round */
	unsigned flags;         /* fb_wire_flags */
} fb_wire_head;

/* Encode head and m (NULL: empty), its control numbers included, into a new buffer (caller
 * frees); its length in *len. */
unsigned char *fb_wire_encode(const fb_wire_head *head, const fb_msg *m, size_t *len);
/* Decode a frame of len bytes into head and m (m's old payload is replaced); FB_ERR with a
 * sentence saying what is wrong (short, another version, unknown type, more than
 * FB_MSG_CONTROL control numbers, lengths that do not add up to len). */
int fb_wire_decode(const unsigned char *buf, size_t len, fb_wire_head *head, fb_msg *m,
                   fb_error *err);
/* The name of a frame type ("reply"), or "unknown". */
const char *fb_wire_type_name(enum fb_wire_type t);

#endif

/* A site's description, as its hello carries it: rows, and each variable's name, kind and
 * levels.  No value of the data travels. */
/* Write ds's variables as bytes (name NUL, 'c' or 'd' NUL, level count NUL, levels NUL ...)
 * and its rows and a byte-order mark as numbers into m. */
void fb_wire_schema_encode(const fb_dataset *ds, const char *source, fb_msg *m);
/* Read them back: a dataset of 0 rows holding the variables (caller frees), the rows in
 * *rows and the site's file name in *source (caller frees); NULL with the reason. */
fb_dataset *fb_wire_schema_decode(const fb_msg *m, size_t *rows, char **source,
                                  fb_error *err);
/* Add a site's keys to its description m: their count and digest as three numbers, the
 * key column's name as a last word. */
void fb_wire_keys_put(fb_msg *m, const fb_site_keys *keys);
/* Take them out of m again, leaving the description alone: 1 with *keys filled, 0 when m
 * carries no keys, FB_ERR when they are garbled. */
int fb_wire_keys_take(fb_msg *m, fb_site_keys *keys, fb_error *err);
