/* The table of algorithms, lookup of "learner" and "combinator:learner", and the merged
 * parameter tables of combinations. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"

/* Every algorithm, learners first, then the combinators: the registry.  One line per
 * algorithm, its fb_algo's name without the fb_algo_ prefix (defined in its family's
 * folder); the table, 'algos', help, completion, the man page's ALGORITHMS section, the
 * pane's detail view and the defaults test all derive from it. */
#define FB_ALGOS(X)              \
	X(notears)               \
	X(notears_admm)          \
	X(notears_mlp)           \
	X(notears_mlp_admm)      \
	X(pc)                    \
	X(ges)                   \
	X(circuit)               \
	X(fedpc)                 \
	X(fedpc_simple1)         \
	X(fedpc_simple2)         \
	X(fedc2sl)               \
	X(fedcircuit)            \
	X(fedcircuit_em)         \
	X(mcsl)                  \
	X(gs_feddag)             \
	X(as_feddag)             \
	X(as_feddag_linear)      \
	X(fci)                   \
	X(fedfci)                \
	X(fedfci_pooled)         \
	X(all)                   \
	X(sep)                   \
	X(voting)                \
	X(avg)                   \
	X(best)

/* Each registered algorithm's declaration. */
#define FB_ALGO_DECLARE(id) extern const fb_algo fb_algo_##id;
FB_ALGOS(FB_ALGO_DECLARE)

/* Each registered algorithm's table entry. */
#define FB_ALGO_ENTRY(id) &fb_algo_##id,

/* Every algorithm, in the registry's order. */
const fb_algo *const fb_algo_table[] = {
	FB_ALGOS(FB_ALGO_ENTRY)
	NULL,
};

/* The algorithm called name (len bytes), or NULL. */
static const fb_algo *find(const char *name, size_t len)
{
	for (size_t i = 0; fb_algo_table[i] != NULL; i++)
		if (strlen(fb_algo_table[i]->name) == len &&
		    strncmp(fb_algo_table[i]->name, name, len) == 0)
			return fb_algo_table[i];
	return NULL;
}

/* List the names of the algorithms whose COMBINATOR flag equals comb, into b. */
static void list_names(fb_buf *b, bool comb)
{
	size_t n = 0;

	for (size_t i = 0; fb_algo_table[i] != NULL; i++)
		if (((fb_algo_table[i]->flags & FB_ALGO_COMBINATOR) != 0) == comb)
			fb_buf_printf(b, "%s%s", n++ ? ", " : "", fb_algo_table[i]->name);
}

/* The name of the algorithm whose COMBINATOR flag equals comb nearest to name, if near
 * enough to suggest. */
static const char *nearest(const char *name, bool comb)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX;

	for (size_t i = 0; fb_algo_table[i] != NULL; i++) {
		size_t dist = fb_suggest_distance(name, fb_algo_table[i]->name);

		if (((fb_algo_table[i]->flags & FB_ALGO_COMBINATOR) != 0) == comb && dist < bestd)
			bestd = dist, best = fb_algo_table[i]->name;
	}
	return best;
}

/* Refuse name with the nearest name, or else the list of what exists. */
static int unknown(const char *what, const char *name, bool comb, fb_error *err)
{
	const char *near = nearest(name, comb);
	fb_buf b = { 0 };
	int ret;

	if (near != NULL)
		return fb_fail(err, "unknown %s '%s' (did you mean '%s'?)", what, name, near);
	list_names(&b, comb);
	ret = fb_fail(err, "unknown %s '%s' (there are: %s)", what, name, b.data);
	fb_buf_release(&b);
	return ret;
}

/* Find "name" or "combinator:name". */
int fb_algo_lookup(const char *name, const fb_algo **algo, const fb_algo **inner,
                   fb_error *err)
{
	const char *colon = strchr(name, ':');

	*inner = NULL;
	if (colon == NULL) {
		if ((*algo = find(name, strlen(name))) == NULL)
			return unknown("algorithm", name, false, err);
		if ((*algo)->flags & FB_ALGO_COMBINATOR)
			return fb_fail(err, "%s combines a learner's client graphs: write %s:LEARNER, "
			                    "e.g. %s:notears", name, name, name);
		return FB_OK;
	}
	if ((*algo = find(name, (size_t)(colon - name))) == NULL ||
	    !((*algo)->flags & FB_ALGO_COMBINATOR)) {
		char *head = fb_xasprintf("%.*s", (int)(colon - name), name);
		int ret = unknown("combinator", head, true, err);

		free(head);
		return ret;
	}
	if ((*inner = find(colon + 1, strlen(colon + 1))) == NULL)
		return unknown("learner", colon + 1, false, err);
	if (!((*inner)->flags & FB_ALGO_LOCAL))
		return fb_fail(err, "%s is not a learner that runs on one dataset, so it cannot be "
		                    "combined", colon + 1);
	if (((*inner)->flags & FB_ALGO_CIRCUIT) && !((*algo)->flags & FB_ALGO_TAKES_CIRCUITS))
		return fb_fail(err, "%s combines graphs, and %s learns a circuit (use all:%s or "
		                    "sep:%s)", (*algo)->name, (*inner)->name, (*inner)->name,
		               (*inner)->name);
	if (((*algo)->flags & FB_ALGO_NEEDS_WEIGHTS) && !((*inner)->flags & FB_ALGO_WEIGHTED))
		return fb_fail(err, "%s averages weights, and %s gives none", (*algo)->name,
		               (*inner)->name);
	return FB_OK;
}

/* A merged table, kept for the program's life. */
typedef struct merged {
	const fb_algo *algo, *inner; /* the combination */
	fb_param_def *defs;          /* the combinator's parameters, then the learner's */
	struct merged *next;         /* the next combination seen */
} merged;

/* The combinations built so far. */
static merged *merged_list;

/* The parameter table of a learner or a combination. */
const fb_param_def *fb_algo_params(const fb_algo *algo, const fb_algo *inner)
{
	size_t na, ni;
	merged *m;

	if (inner == NULL)
		return algo->params;
	for (m = merged_list; m != NULL; m = m->next)
		if (m->algo == algo && m->inner == inner)
			return m->defs;
	na = fb_param_table_len(algo->params);
	ni = fb_param_table_len(inner->params);
	m = fb_xcalloc(1, sizeof *m);
	m->algo = algo;
	m->inner = inner;
	m->defs = fb_xcalloc(na + ni + 1, sizeof *m->defs);
	memcpy(m->defs, algo->params, na * sizeof *m->defs);
	memcpy(m->defs + na, inner->params, ni * sizeof *m->defs);
	m->next = merged_list;
	merged_list = m;
	return m->defs;
}
