/* Sites that each hold their own file: the rows of a site matched to the others' by a key
 * column, and the federation their files make together (horizontal when every site holds
 * every variable, vertical when each variable lives at one site and every site holds the
 * same keys, hybrid when sites holding different rows share some variables).  No key
 * leaves its site: a site tells only how many keys it holds and a digest of them. */
#ifndef FEDBN_SITES_H
#define FEDBN_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/partition.h"

/* The longest key column name a site reports. */
#define FB_SITE_KEY_MAX 128

/* What a site tells of its keys. */
typedef struct fb_site_keys {
	char name[FB_SITE_KEY_MAX]; /* the key column's name */
	size_t n;                   /* keys, one per row */
	uint64_t digest;            /* of the keys in their order: the same keys, the same
	                               digest */
} fb_site_keys;

/* Take the key column key out of ds (read from source) and put the rows in the keys' order
 * (numeric for numbers, the reader's level order for text); keys gets their count and
 * digest.  NULL with one sentence naming source when there is no such column, it is the
 * only one, or a key repeats (its value and both rows).  Caller frees the result. */
fb_dataset *fb_site_keyed(const fb_dataset *ds, const char *key, const char *source,
                          fb_site_keys *keys, fb_error *err);

/* The federation of k sites: sites[c] holds site c's variables (and its rows, or none on a
 * server that holds only descriptions: then rows[c] gives how many it has; rows NULL: each
 * site's own n), keys[c] its keys (keys NULL: no key column), sources[c] its file.  The
 * variables are the sites' in order of first appearance; each client of the result holds
 * its site's columns in that order (cols ascending) and its rows.  n is every site's rows in
 * a vertical federation, else their sum (a row that several sites of a hybrid one hold, by
 * its key, counts at each: no key leaves its site to tell).  *schema gets every
 * variable in a dataset of 0 rows (caller frees).  Refused with one sentence naming the
 * sites: different variables without a key, a variable of other kind or levels at two
 * sites, a vertical federation whose sites hold different keys, sites that share a variable
 * and hold the same keys. */
fb_partition *fb_sites_partition(const fb_dataset *const *sites, const size_t *rows,
                                 const fb_site_keys *keys, char *const *sources, size_t k,
                                 fb_dataset **schema, fb_error *err);

#endif
