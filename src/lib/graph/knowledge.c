/* Background knowledge: forbidden and required arcs and tiers over d named variables.
 * The d x d tables are allocated on the first arc statement, so knowledge made only of
 * tiers (or none) over many variables costs O(d).  Every change is checked against the
 * rest first and refused, unchanged, when it would contradict it. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/knowledge.h"

/* The knowledge. */
struct fb_knowledge {
	size_t d;               /* variables */
	char **names;           /* d names (owned) */
	unsigned char *forbid;  /* d*d or NULL: forbid[a*d+b] = 1 when a -> b was forbidden */
	unsigned char *require; /* d*d or NULL: require[a*d+b] = 1 when a -> b is required */
	int *tier;              /* d tiers, 0 = none */
	int *within;            /* tiers forbidding arcs inside them */
	size_t n_within;        /* entries of within */
};

/* Empty knowledge over d named variables. */
fb_knowledge *fb_knowledge_alloc(size_t d, const char *const *names)
{
	fb_knowledge *k = fb_xcalloc(1, sizeof *k);
	size_t i;

	k->d = d;
	k->names = fb_xcalloc(d == 0 ? 1 : d, sizeof *k->names);
	k->tier = fb_xcalloc(d == 0 ? 1 : d, sizeof *k->tier);
	k->within = fb_xcalloc(1, sizeof *k->within);
	for (i = 0; i < d; i++)
		k->names[i] = names != NULL && names[i] != NULL ? fb_xstrdup(names[i])
		                                                : fb_xasprintf("X%zu", i + 1);
	return k;
}

/* Free knowledge. */
void fb_knowledge_free(fb_knowledge *k)
{
	size_t i;

	if (k == NULL)
		return;
	for (i = 0; i < k->d; i++)
		free(k->names[i]);
	free(k->names);
	free(k->forbid);
	free(k->require);
	free(k->tier);
	free(k->within);
	free(k);
}

/* A copy of n bytes of p, or NULL when p is NULL. */
static void *knowledge_dup(const void *p, size_t n)
{
	void *q;

	if (p == NULL)
		return NULL;
	q = fb_xmalloc(n == 0 ? 1 : n);
	memcpy(q, p, n);
	return q;
}

/* Give c the tiers of k that forbid arcs within them (c's own list replaced). */
static void knowledge_within_copy(fb_knowledge *c, const fb_knowledge *k)
{
	free(c->within);
	c->within = fb_xcalloc(k->n_within > 0 ? k->n_within : 1, sizeof *c->within);
	memcpy(c->within, k->within, k->n_within * sizeof *k->within);
	c->n_within = k->n_within;
}

/* Deep copy. */
fb_knowledge *fb_knowledge_copy(const fb_knowledge *k)
{
	fb_knowledge *c;

	if (k == NULL)
		return NULL;
	c = fb_knowledge_alloc(k->d, (const char *const *)k->names);
	c->forbid = knowledge_dup(k->forbid, k->d * k->d);
	c->require = knowledge_dup(k->require, k->d * k->d);
	memcpy(c->tier, k->tier, k->d * sizeof *k->tier);
	knowledge_within_copy(c, k);
	return c;
}

/* Number of variables. */
size_t fb_knowledge_d(const fb_knowledge *k)
{
	return k == NULL ? 0 : k->d;
}

/* Variable i's name ("" out of range). */
const char *fb_knowledge_name(const fb_knowledge *k, size_t i)
{
	return k == NULL || i >= k->d ? "" : k->names[i];
}

/* True when k has a tier statement or forbids arcs within a tier. */
static bool knowledge_has_tiers(const fb_knowledge *k)
{
	size_t i;

	for (i = 0; i < k->d; i++)
		if (k->tier[i] != 0)
			return true;
	return k->n_within > 0;
}

/* True when table t (d*d or NULL) has any entry set. */
static bool knowledge_table_any(const unsigned char *t, size_t d)
{
	size_t i;

	if (t == NULL)
		return false;
	for (i = 0; i < d * d; i++)
		if (t[i])
			return true;
	return false;
}

/* True when k says nothing. */
bool fb_knowledge_is_empty(const fb_knowledge *k)
{
	return k == NULL || (!knowledge_table_any(k->forbid, k->d) &&
	                     !knowledge_table_any(k->require, k->d) && !knowledge_has_tiers(k));
}

/* True when tier t forbids arcs within it. */
bool fb_knowledge_within_forbidden(const fb_knowledge *k, int t)
{
	size_t i;

	if (k == NULL || t <= 0)
		return false;
	for (i = 0; i < k->n_within; i++)
		if (k->within[i] == t)
			return true;
	return false;
}

/* True when from -> to was forbidden by its own statement. */
bool fb_knowledge_forbidden_directly(const fb_knowledge *k, size_t from, size_t to)
{
	return k != NULL && k->forbid != NULL && from < k->d && to < k->d &&
	       k->forbid[from * k->d + to] != 0;
}

/* True when the arc from -> to must appear. */
bool fb_knowledge_requires(const fb_knowledge *k, size_t from, size_t to)
{
	return k != NULL && k->require != NULL && from < k->d && to < k->d &&
	       k->require[from * k->d + to] != 0;
}

/* True when the tiers alone forbid from -> to. */
static bool knowledge_tier_forbids(const fb_knowledge *k, size_t from, size_t to)
{
	int a = k->tier[from], b = k->tier[to];

	if (a == 0 || b == 0)
		return false;
	return a > b || (a == b && fb_knowledge_within_forbidden(k, a));
}

/* True when the arc from -> to may not appear. */
bool fb_knowledge_forbids(const fb_knowledge *k, size_t from, size_t to)
{
	if (k == NULL || from >= k->d || to >= k->d || from == to)
		return false;
	return fb_knowledge_forbidden_directly(k, from, to) ||
	       fb_knowledge_requires(k, to, from) || knowledge_tier_forbids(k, from, to);
}

/* True when i and j may not be adjacent at all. */
bool fb_knowledge_forbids_pair(const fb_knowledge *k, size_t i, size_t j)
{
	return fb_knowledge_forbids(k, i, j) && fb_knowledge_forbids(k, j, i);
}

/* Tier of v (0: none). */
int fb_knowledge_tier(const fb_knowledge *k, size_t v)
{
	return k == NULL || v >= k->d ? 0 : k->tier[v];
}

/* The smallest tier in use above after (0: none). */
int fb_knowledge_next_tier(const fb_knowledge *k, int after)
{
	int next = 0;

	for (size_t v = 0; k != NULL && v < k->d; v++)
		if (k->tier[v] > after && (next == 0 || k->tier[v] < next))
			next = k->tier[v];
	return next;
}

/* Fail unless a and b name two different variables of k. */
static int knowledge_check_pair(const fb_knowledge *k, size_t a, size_t b, fb_error *err)
{
	if (a >= k->d || b >= k->d)
		return fb_fail(err, "variable %zu is out of range (the knowledge has %zu)",
		               (a >= k->d ? a : b) + 1, k->d);
	if (a == b)
		return fb_fail(err, "an arc from %s to itself cannot be stated", k->names[a]);
	return FB_OK;
}

/* Allocate table *t (d*d zeros) when it is missing. */
static void knowledge_table(unsigned char **t, size_t d)
{
	if (*t == NULL)
		*t = fb_xcalloc(d == 0 ? 1 : d * d, 1);
}

/* Forbid the arc from -> to. */
int fb_knowledge_forbid(fb_knowledge *k, size_t from, size_t to, fb_error *err)
{
	if (knowledge_check_pair(k, from, to, err) != FB_OK)
		return FB_ERR;
	if (fb_knowledge_requires(k, from, to))
		return fb_fail(err, "%s->%s is required, so it cannot also be forbidden",
		               k->names[from], k->names[to]);
	knowledge_table(&k->forbid, k->d);
	k->forbid[from * k->d + to] = 1;
	return FB_OK;
}

/* Why from -> to may not be required (a sentence into err), or FB_OK. */
static int knowledge_why_not(const fb_knowledge *k, size_t from, size_t to, fb_error *err)
{
	const char *a = k->names[from], *b = k->names[to];

	if (fb_knowledge_forbidden_directly(k, from, to))
		return fb_fail(err, "%s->%s is forbidden, so it cannot also be required", a, b);
	if (fb_knowledge_requires(k, to, from))
		return fb_fail(err, "%s->%s is required, so %s->%s cannot also be", b, a, a, b);
	if (k->tier[from] != 0 && k->tier[from] == k->tier[to])
		return fb_fail(err, "%s->%s cannot be required: both are in tier %d, which "
		               "forbids arcs within it", a, b, k->tier[from]);
	return fb_fail(err, "%s->%s cannot be required: %s is in tier %d, after %s's tier %d",
	               a, b, a, k->tier[from], b, k->tier[to]);
}

/* True when to reaches from along required arcs (so from -> to would close a cycle);
 * the path to -> ... -> from is written into path (room for d) with its length in *n. */
static bool knowledge_required_path(const fb_knowledge *k, size_t to, size_t from,
                                    size_t *path, size_t *n)
{
	size_t *prev = fb_xmalloc(k->d * sizeof *prev), *queue = fb_xmalloc(k->d * sizeof *queue);
	size_t head = 0, tail = 0, v, w;
	bool found = false;

	for (v = 0; v < k->d; v++)
		prev[v] = SIZE_MAX;
	prev[to] = to;
	queue[tail++] = to;
	while (head < tail && !found) {
		v = queue[head++];
		for (w = 0; w < k->d && !found; w++)
			if (prev[w] == SIZE_MAX && fb_knowledge_requires(k, v, w)) {
				prev[w] = v;
				queue[tail++] = w;
				found = w == from;
			}
	}
	for (*n = 0, v = from; found; v = prev[v]) {
		path[(*n)++] = v;
		if (v == to)
			break;
	}
	free(prev);
	free(queue);
	return found;
}

/* Fail when from -> to would close a cycle of required arcs, naming it. */
static int knowledge_check_cycle(const fb_knowledge *k, size_t from, size_t to, fb_error *err)
{
	size_t *path = fb_xmalloc(k->d * sizeof *path), n, i;
	fb_buf b = {0};
	int rc = FB_OK;

	if (knowledge_required_path(k, to, from, path, &n)) {
		fb_buf_printf(&b, "%s", k->names[from]);
		for (i = n; i-- > 0;)
			fb_buf_printf(&b, "->%s", k->names[path[i]]);
		rc = fb_fail(err, "required arcs would form a cycle: %s", b.data);
		free(b.data);
	}
	free(path);
	return rc;
}

/* Require the arc from -> to. */
int fb_knowledge_require(fb_knowledge *k, size_t from, size_t to, fb_error *err)
{
	if (knowledge_check_pair(k, from, to, err) != FB_OK)
		return FB_ERR;
	if (fb_knowledge_forbids(k, from, to))
		return knowledge_why_not(k, from, to, err);
	if (knowledge_check_cycle(k, from, to, err) != FB_OK)
		return FB_ERR;
	knowledge_table(&k->require, k->d);
	k->require[from * k->d + to] = 1;
	return FB_OK;
}

/* Fail when a required arc breaks the tiers of k (first such arc named). */
static int knowledge_check_required(const fb_knowledge *k, fb_error *err)
{
	size_t a, b;

	if (k->require == NULL)
		return FB_OK;
	for (a = 0; a < k->d; a++)
		for (b = 0; b < k->d; b++)
			if (k->require[a * k->d + b] && knowledge_tier_forbids(k, a, b))
				return knowledge_why_not(k, a, b, err);
	return FB_OK;
}

/* Put variable v in tier t. */
int fb_knowledge_set_tier(fb_knowledge *k, size_t v, int t, fb_error *err)
{
	int old;

	if (v >= k->d)
		return fb_fail(err, "variable %zu is out of range (the knowledge has %zu)", v + 1,
		               k->d);
	if (t < 0)
		return fb_fail(err, "tier %d is not a tier: tiers are numbered from 1", t);
	old = k->tier[v];
	k->tier[v] = t;
	if (knowledge_check_required(k, err) != FB_OK) {
		k->tier[v] = old;
		return FB_ERR;
	}
	return FB_OK;
}

/* Forbid every arc between two variables of tier t. */
int fb_knowledge_forbid_within_tier(fb_knowledge *k, int t, fb_error *err)
{
	if (t <= 0)
		return fb_fail(err, "tier %d is not a tier: tiers are numbered from 1", t);
	if (fb_knowledge_within_forbidden(k, t))
		return FB_OK;
	k->within = fb_xreallocarray(k->within, k->n_within + 1, sizeof *k->within);
	k->within[k->n_within++] = t;
	if (knowledge_check_required(k, err) != FB_OK) {
		k->n_within--;
		return FB_ERR;
	}
	return FB_OK;
}

/* Remove everything. */
void fb_knowledge_clear(fb_knowledge *k)
{
	if (k == NULL)
		return;
	free(k->forbid);
	free(k->require);
	k->forbid = k->require = NULL;
	memset(k->tier, 0, (k->d == 0 ? 1 : k->d) * sizeof *k->tier);
	k->n_within = 0;
}

/* Required arcs. */
size_t fb_knowledge_n_required(const fb_knowledge *k)
{
	size_t i, n = 0;

	if (k == NULL || k->require == NULL)
		return 0;
	for (i = 0; i < k->d * k->d; i++)
		n += k->require[i] != 0;
	return n;
}

/* Ordered pairs whose arc is forbidden for any reason. */
size_t fb_knowledge_n_forbidden(const fb_knowledge *k)
{
	size_t a, b, n = 0;

	if (fb_knowledge_is_empty(k))
		return 0;
	for (a = 0; a < k->d; a++)
		for (b = 0; b < k->d; b++)
			n += fb_knowledge_forbids(k, a, b);
	return n;
}

/* Distinct tiers in use. */
size_t fb_knowledge_n_tiers(const fb_knowledge *k)
{
	size_t i, j, n = 0;

	if (k == NULL)
		return 0;
	for (i = 0; i < k->d; i++) {
		if (k->tier[i] == 0)
			continue;
		for (j = 0; j < i && k->tier[j] != k->tier[i]; j++)
			;
		n += j == i;
	}
	return n;
}

/* "knowledge: 3 required, 12 forbidden, 2 tiers", or "" when k is empty. */
void fb_knowledge_caption(const fb_knowledge *k, char *buf, size_t size)
{
	size_t t;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (fb_knowledge_is_empty(k))
		return;
	t = fb_knowledge_n_tiers(k);
	snprintf(buf, size, "knowledge: %zu required, %zu forbidden, %zu tier%s",
	         fb_knowledge_n_required(k), fb_knowledge_n_forbidden(k), t, t == 1 ? "" : "s");
}

/* Whether the pair {i, j} of g breaks k; the first fault described in err. */
static bool knowledge_pair_breaks(const fb_knowledge *k, const fb_graph *g, size_t i,
                                  size_t j, fb_error *err)
{
	enum fb_edge e = fb_graph_edge(g, i, j);
	const char *a = k->names[i], *b = k->names[j];
	static const char *const shown[] = {"absent", "present", "reversed", "undirected"};

	if (fb_knowledge_requires(k, i, j) && e != FB_EDGE_FORWARD)
		return fb_fail(err, "required arc %s->%s is %s", a, b, shown[e]), true;
	if (fb_knowledge_requires(k, j, i) && e != FB_EDGE_BACKWARD)
		return fb_fail(err, "required arc %s->%s is %s", b, a,
		               shown[e == FB_EDGE_FORWARD ? 2 : e == FB_EDGE_BACKWARD ? 1 : e]),
		       true;
	if (e == FB_EDGE_FORWARD && fb_knowledge_forbids(k, i, j))
		return fb_fail(err, "forbidden arc %s->%s is present", a, b), true;
	if (e == FB_EDGE_BACKWARD && fb_knowledge_forbids(k, j, i))
		return fb_fail(err, "forbidden arc %s->%s is present", b, a), true;
	if (e == FB_EDGE_UNDIRECTED && (fb_knowledge_forbids(k, i, j) || fb_knowledge_forbids(k, j, i)))
		return fb_fail(err, "%s-%s is undirected though %s->%s is forbidden", a, b,
		               fb_knowledge_forbids(k, i, j) ? a : b,
		               fb_knowledge_forbids(k, i, j) ? b : a),
		       true;
	return false;
}

/* How many pairs of g break k (0: g honours k); the first fault described in err. */
size_t fb_knowledge_violations(const fb_knowledge *k, const fb_graph *g, fb_error *err)
{
	size_t i, j, n = 0;

	if (fb_knowledge_is_empty(k) || g == NULL)
		return 0;
	for (i = 0; i < k->d && i < g->d; i++)
		for (j = i + 1; j < k->d && j < g->d; j++)
			if (knowledge_pair_breaks(k, g, i, j, n == 0 ? err : NULL))
				n++;
	return n;
}

/* Index of name among names[0..d-1], or SIZE_MAX. */
static size_t knowledge_find(const char *const *names, size_t d, const char *name)
{
	size_t i;

	for (i = 0; i < d; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return SIZE_MAX;
}

/* True when variable v of k appears in a statement. */
static bool knowledge_mentions(const fb_knowledge *k, size_t v)
{
	size_t u;

	if (k->tier[v] != 0)
		return true;
	for (u = 0; u < k->d; u++)
		if (fb_knowledge_forbidden_directly(k, u, v) || fb_knowledge_forbidden_directly(k, v, u) ||
		    fb_knowledge_requires(k, u, v) || fb_knowledge_requires(k, v, u))
			return true;
	return false;
}

/* Copy k's arc statements onto c through the index map (SIZE_MAX: dropped).  A subset of
 * consistent knowledge is consistent, so no statement can be refused. */
static void knowledge_map_arcs(const fb_knowledge *k, fb_knowledge *c, const size_t *map)
{
	size_t a, b;

	for (a = 0; a < k->d; a++)
		for (b = 0; b < k->d; b++) {
			if (map[a] == SIZE_MAX || map[b] == SIZE_MAX)
				continue;
			if (fb_knowledge_forbidden_directly(k, a, b))
				fb_knowledge_forbid(c, map[a], map[b], NULL);
			if (fb_knowledge_requires(k, a, b))
				fb_knowledge_require(c, map[a], map[b], NULL);
		}
}

/* Knowledge for variables names[0..d-1], by name; the names dropped listed. */
fb_knowledge *fb_knowledge_rename(const fb_knowledge *k, size_t d, const char *const *names,
                                  char *dropped, size_t size)
{
	fb_knowledge *c = fb_knowledge_alloc(d, names);
	size_t *map, v, used = 0;

	if (size > 0)
		dropped[0] = '\0';
	if (k == NULL)
		return c;
	map = fb_xmalloc((k->d == 0 ? 1 : k->d) * sizeof *map);
	for (v = 0; v < k->d; v++) {
		map[v] = knowledge_find(names, d, k->names[v]);
		if (map[v] == SIZE_MAX && knowledge_mentions(k, v) && used < size)
			used += (size_t)snprintf(dropped + used, size - used, "%s%s",
			                         used > 0 ? ", " : "", k->names[v]);
		else if (map[v] != SIZE_MAX)
			c->tier[map[v]] = k->tier[v];
	}
	knowledge_within_copy(c, k);
	knowledge_map_arcs(k, c, map);
	free(map);
	return c;
}
