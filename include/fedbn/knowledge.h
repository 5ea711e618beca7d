/* Background knowledge about the graph over d variables: arcs that must not appear
 * (forbidden), arcs that must appear (required), and tiers (an ordering of groups of
 * variables: no arc from a later tier into an earlier one, optionally none within a tier).
 * Variables are indices 0..d-1 of the data the knowledge was made for; the names are kept
 * so that the knowledge can be shown, saved and carried to another dataset by name.
 *
 * Every change is checked before it is made: a call that would make the knowledge
 * contradict itself (a required arc that is also forbidden, required arcs forming a cycle,
 * a required arc from a later tier into an earlier one or inside a tier that forbids arcs
 * within it) fails with one sentence naming the parts at fault and leaves the knowledge as
 * it was. */
#ifndef FEDBN_KNOWLEDGE_H
#define FEDBN_KNOWLEDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/graph.h"

/* Knowledge over d variables (opaque). */
typedef struct fb_knowledge fb_knowledge;

/* Empty knowledge over d variables called names[0..d-1] (copied; NULL names X1..Xd).
 * Out of memory exits (fb_xmalloc).  Free with fb_knowledge_free. */
fb_knowledge *fb_knowledge_alloc(size_t d, const char *const *names);
/* Free (NULL is fine). */
void fb_knowledge_free(fb_knowledge *k);
/* Deep copy; NULL when k is NULL. */
fb_knowledge *fb_knowledge_copy(const fb_knowledge *k);
/* Number of variables, and variable i's name. */
size_t fb_knowledge_d(const fb_knowledge *k);
const char *fb_knowledge_name(const fb_knowledge *k, size_t i);
/* True when k says nothing (no forbidden or required arc, no tier); NULL is empty. */
bool fb_knowledge_is_empty(const fb_knowledge *k);

/* Forbid the arc from -> to (the other direction stays allowed). */
int fb_knowledge_forbid(fb_knowledge *k, size_t from, size_t to, fb_error *err);
/* Require the arc from -> to (it implies that to -> from is absent). */
int fb_knowledge_require(fb_knowledge *k, size_t from, size_t to, fb_error *err);
/* Put variable v in tier t (t >= 1; 0 takes it out of every tier).  Variables in no tier
 * are not constrained by tiers. */
int fb_knowledge_set_tier(fb_knowledge *k, size_t v, int t, fb_error *err);
/* Forbid every arc between two variables of tier t (t >= 1). */
int fb_knowledge_forbid_within_tier(fb_knowledge *k, int t, fb_error *err);
/* Remove everything. */
void fb_knowledge_clear(fb_knowledge *k);

/* The questions learners ask.  Each is O(1). */
/* True when the arc from -> to may not appear: forbidden directly, by the tiers, or because
 * to -> from is required. */
bool fb_knowledge_forbids(const fb_knowledge *k, size_t from, size_t to);
/* True when the arc from -> to must appear. */
bool fb_knowledge_requires(const fb_knowledge *k, size_t from, size_t to);
/* True when i and j may not be adjacent at all (both directions forbidden). */
bool fb_knowledge_forbids_pair(const fb_knowledge *k, size_t i, size_t j);
/* Tier of v (0: none). */
int fb_knowledge_tier(const fb_knowledge *k, size_t v);
/* The smallest tier in use above after (0: none), to walk the tiers in order from 0. */
int fb_knowledge_next_tier(const fb_knowledge *k, int after);

/* The statements as made, for saving and showing: from -> to forbidden by its own
 * statement (not by tiers or a required reverse), and tier t forbidding arcs within it. */
bool fb_knowledge_forbidden_directly(const fb_knowledge *k, size_t from, size_t to);
bool fb_knowledge_within_forbidden(const fb_knowledge *k, int t);

/* Counts for captions and info: required arcs, forbidden arcs (ordered pairs that
 * fb_knowledge_forbids, whatever the reason), and distinct tiers in use. */
size_t fb_knowledge_n_required(const fb_knowledge *k);
size_t fb_knowledge_n_forbidden(const fb_knowledge *k);
size_t fb_knowledge_n_tiers(const fb_knowledge *k);
/* "knowledge: 3 required, 12 forbidden, 2 tiers" into buf (room for size bytes); "" when
 * k is empty. */
void fb_knowledge_caption(const fb_knowledge *k, char *buf, size_t size);

/* How often g breaks k: a forbidden arc present in that direction, a required arc absent or
 * reversed or left undirected, an arc (or an undirected edge) into an earlier tier.  With
 * err non-NULL the first violation is described there in one sentence.  0: g honours k. */
size_t fb_knowledge_violations(const fb_knowledge *k, const fb_graph *g, fb_error *err);

/* Knowledge for another dataset whose variables are names[0..d-1]: every statement whose
 * variables all exist there, by name.  The names of the variables that do not are written
 * (comma separated) into dropped (room for size bytes; "" when none). */
fb_knowledge *fb_knowledge_rename(const fb_knowledge *k, size_t d, const char *const *names,
                                  char *dropped, size_t size);

/* Knowledge over the variables names[0..d-1] read from path: Tetrad's knowledge text (a
 * first line "/knowledge", then sections "addtemporal" with lines "TIER NAME..." where
 * "TIER*" also forbids arcs within the tier, "forbiddirect" and "requiredirect" with lines
 * "FROM TO"; "#" starts a comment line) or a bnlearn-style CSV (a header naming "from",
 * "to" and a list column "type" whose rows say whitelist (required) or blacklist
 * (forbidden); without it every row is forbidden).  NULL with one sentence naming the
 * file, line and column at fault: a line that does not parse, a name not among names, a
 * statement that contradicts the ones before it. */
fb_knowledge *fb_knowledge_read(const char *path, size_t d, const char *const *names,
                                fb_error *err);
/* Write k to path as Tetrad's knowledge text (the tiers in increasing order, the arcs
 * forbidden by their own statements, the required ones); FB_ERR naming the file. */
int fb_knowledge_write(const fb_knowledge *k, const char *path, fb_error *err);

#endif
