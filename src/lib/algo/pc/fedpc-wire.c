/* The FedPC family's shared pieces: packed skeletons and ids on the wire, the alphabetical
 * alignment of variables, the vote threshold, the common state and its result, and the
 * server's collider orientation. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedpc-int.h"

/* Number of unordered pairs. */
size_t fedpc_npairs(size_t d)
{
	return d > 1 ? d * (d - 1) / 2 : 0;
}

/* Index of the pair {i, j}. */
size_t fedpc_pair(size_t d, size_t i, size_t j)
{
	size_t a = i < j ? i : j, b = i < j ? j : i;

	return a * (2 * d - a - 1) / 2 + (b - a - 1);
}

/* Bytes of a packed skeleton. */
size_t fedpc_bits_bytes(size_t d)
{
	return (fedpc_npairs(d) + 7) / 8;
}

/* A skeleton being packed. */
typedef struct pack_ctx {
	size_t d;            /* variables */
	unsigned char *bits; /* one bit per pair */
} pack_ctx;

/* Set the bit of the joined pair (i, j). */
static void pack_pair(void *ctx, size_t i, size_t j)
{
	pack_ctx *c = ctx;
	size_t p = fedpc_pair(c->d, i, j);

	c->bits[p >> 3] |= (unsigned char)(1u << (p & 7));
}

/* Pack g's adjacencies, one bit per pair. */
void fedpc_skel_pack(const fb_graph *g, unsigned char *bits)
{
	pack_ctx c = { g->d, bits };

	memset(bits, 0, fedpc_bits_bytes(g->d));
	fb_graph_pairs_joined(g, NULL, pack_pair, &c);
}

/* A packed skeleton and its variables. */
typedef struct fedpc_packed {
	const unsigned char *bits; /* one bit per pair */
	size_t d;                  /* variables */
} fedpc_packed;

/* Call fn(ctx, i, j) for each pair i < j whose bit is set, pair by pair (zero bytes skipped
 * whole). */
static void skel_walk(const unsigned char *bits, size_t d,
                      void (*fn)(void *ctx, size_t i, size_t j), void *ctx)
{
	size_t p = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++, p++) {
			if ((p & 7) == 0 && bits[p >> 3] == 0 && j + 8 <= d) {
				j += 7;
				p += 7;
				continue;
			}
			if (fedpc_bit(bits, p))
				fn(ctx, i, j);
		}
}

/* Join i and j in the graph ctx by their marks alone: a skeleton's weights (which an
 * unweighted graph does not read) stay unwritten, so that the d x d weights of a large
 * skeleton take no memory. */
static void unpack_pair(void *ctx, size_t i, size_t j)
{
	fb_graph *g = ctx;

	g->mark[i * g->d + j] = g->mark[j * g->d + i] = 1;
}

/* Unpack a skeleton into a new undirected graph. */
fb_graph *fedpc_skel_unpack(const unsigned char *bits, size_t d)
{
	fb_graph *g = fb_graph_alloc(d);

	skel_walk(bits, d, unpack_pair, g);
	return g;
}

/* Remove the pair (i, j) from the graph ctx. */
static void remove_pair(void *ctx, size_t i, size_t j)
{
	fb_graph_remove(ctx, i, j);
}

/* Make g the undirected graph of the packed skeleton. */
void fedpc_skel_load(fb_graph *g, const unsigned char *bits)
{
	fb_graph_pairs_joined(g, NULL, remove_pair, g);
	skel_walk(bits, g->d, unpack_pair, g);
}

/* Walk the set bits of the packed skeleton ctx->bits (a walker for fb_adjacency_lists). */
static void bits_walk(void *ctx, void (*fn)(void *, size_t, size_t), void *fctx)
{
	const fedpc_packed *k = ctx;

	skel_walk(k->bits, k->d, fn, fctx);
}

/* The adjacency lists of a packed skeleton, in increasing order: the pairs go row by row, so
 * each node hears of its smaller neighbours before its own row adds the larger ones. */
size_t *fedpc_skel_lists(const unsigned char *bits, size_t d, size_t **start)
{
	fedpc_packed k = { bits, d };

	return fb_adjacency_lists(d, bits_walk, &k, true, start);
}

/* Bytes per id. */
size_t fedpc_id_width(size_t d)
{
	return d <= 256 ? 1 : d <= 65536 ? 2 : 4;
}

/* Write an id. */
unsigned char *fedpc_put_id(unsigned char *p, size_t w, size_t v)
{
	for (size_t b = 0; b < w; b++)
		p[b] = (unsigned char)(v >> (8 * b));
	return p + w;
}

/* Read an id. */
size_t fedpc_get_id(const unsigned char **p, size_t w)
{
	size_t v = 0;

	for (size_t b = 0; b < w; b++)
		v |= (size_t)(*p)[b] << (8 * b);
	*p += w;
	return v;
}

/* The names being sorted (qsort has no context argument). */
typedef struct named {
	const char *name; /* the variable's name */
	size_t col;       /* its column */
} named;

/* Compare two names in byte order. */
static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

/* Columns in the order of their names. */
void fedpc_ranks(const fb_dataset *ds, size_t *col_of)
{
	named *v = fb_xmalloc((ds->d > 0 ? ds->d : 1) * sizeof *v);

	for (size_t j = 0; j < ds->d; j++)
		v[j] = (named){ ds->vars[j].name, j };
	qsort(v, ds->d, sizeof *v, named_cmp);
	for (size_t r = 0; r < ds->d; r++)
		col_of[r] = v[r].col;
	free(v);
}

/* ds with its columns in rank order. */
fb_dataset *fedpc_rank_dataset(const fb_dataset *ds)
{
	size_t *cols = fb_xmalloc((ds->d > 0 ? ds->d : 1) * sizeof *cols);
	fb_dataset *out;

	fedpc_ranks(ds, cols);
	out = fb_dataset_subset(ds, NULL, 0, cols, ds->d);
	free(cols);
	return out;
}

/* Votes an edge needs. */
size_t fedpc_min_votes(double share, bool code_rule, size_t k)
{
	double x = share * (double)k + 1e-9;
	size_t m;

	if (!code_rule)
		return (size_t)floor(x) + 1;
	m = (size_t)floor(x + 0.5);
	return m > 0 ? m : 1;
}

/* Votes a pair needs, kept as the last count's threshold. */
size_t fedpc_common_need(fedpc_common *c, double share, bool code_rule, size_t heard)
{
	c->share = share;
	c->code_rule = code_rule;
	c->heard = heard;
	c->need = fedpc_min_votes(share, code_rule, heard);
	return c->need;
}

/* The knowledge k over the run's data in rank space (by name), or NULL when it says
 * nothing. */
static fb_knowledge *rank_knowledge(const fedpc_common *c, const fb_knowledge *k)
{
	const char **names;
	fb_knowledge *r;

	if (fb_knowledge_is_empty(k))
		return NULL;
	names = fb_xmalloc((c->d > 0 ? c->d : 1) * sizeof *names);
	for (size_t q = 0; q < c->d; q++)
		names[q] = c->names[c->global_of[q]];
	r = fb_knowledge_rename(k, c->d, names, NULL, 0);
	free(names);
	return r;
}

/* Alignment and names from the run. */
void fedpc_common_init(fedpc_common *c, const fb_run *run)
{
	size_t d = run->data->d;

	c->k = run->part != NULL ? run->part->k : 0;
	c->d = d;
	c->w = fedpc_id_width(d);
	c->global_of = fb_xmalloc((d > 0 ? d : 1) * sizeof *c->global_of);
	c->rank_of = fb_xmalloc((d > 0 ? d : 1) * sizeof *c->rank_of);
	c->names = fb_dataset_names(run->data);
	fedpc_ranks(run->data, c->global_of);
	for (size_t r = 0; r < d; r++)
		c->rank_of[c->global_of[r]] = r;
	c->know = rank_knowledge(c, fb_run_knowledge(run));
}

/* Clear the pairs the knowledge forbids both ways from a packed skeleton. */
void fedpc_skel_knowledge(const fedpc_common *c, unsigned char *bits)
{
	size_t p = 0;

	if (c->know == NULL)
		return;
	for (size_t i = 0; i < c->d; i++)
		for (size_t j = i + 1; j < c->d; j++, p++)
			if (fb_knowledge_forbids_pair(c->know, i, j))
				bits[p >> 3] &= (unsigned char)~(1u << (p & 7));
}

/* Where pair is, or would go, among s's picks (binary search). */
static size_t picks_find(const fedpc_picks *s, size_t pair)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->at[mid].pair < pair)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Note pair's pick, keeping the list in pair order. */
void fedpc_picks_put(fedpc_picks *s, size_t pair, double p, long client)
{
	size_t at = picks_find(s, pair);

	if (at < s->n && s->at[at].pair == pair) {
		s->at[at] = (fedpc_pick){ pair, p, client };
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->at = fb_xreallocarray(s->at, s->cap, sizeof *s->at);
	}
	memmove(s->at + at + 1, s->at + at, (s->n - at) * sizeof *s->at);
	s->at[at] = (fedpc_pick){ pair, p, client };
	s->n++;
}

/* Pair's pick, or NaN and -1. */
bool fedpc_picks_get(const fedpc_picks *s, size_t pair, double *p, long *client)
{
	size_t at = picks_find(s, pair);
	bool has = at < s->n && s->at[at].pair == pair;

	if (p != NULL)
		*p = has ? s->at[at].p : NAN;
	if (client != NULL)
		*client = has ? s->at[at].client : -1;
	return has;
}

/* Free the picks. */
void fedpc_picks_release(fedpc_picks *s)
{
	free(s->at);
	*s = (fedpc_picks){ 0 };
}

/* Free the common state. */
void fedpc_common_release(fedpc_common *c)
{
	fb_names_free(c->names, c->d);
	free(c->global_of);
	free(c->rank_of);
	free(c->votes);
	fb_sepsets_free(c->seps);
	fedpc_picks_release(&c->picks);
	fb_graph_free(c->graph);
	fb_knowledge_free(c->know);
}

/* The estimate in the data's order. */
fb_graph *fedpc_common_result(const fedpc_common *c, const char *name, fb_error *err)
{
	const fb_graph *g = c->graph;
	fb_graph *out, *dag;
	size_t d = c->d;

	if (g == NULL)
		return fb_fail(err, "%s has not run a round yet", name), NULL;
	out = fb_graph_alloc(d);
	for (size_t j = 0; j < d; j++)
		fb_graph_set_name(out, j, c->names[j], NULL);
	for (size_t a = 0; a < d; a++)
		for (size_t b = a + 1; b < d; b++) {
			size_t ga = c->global_of[a], gb = c->global_of[b];

			switch (fb_graph_edge(g, a, b)) {
			case FB_EDGE_FORWARD: fb_graph_set_directed(out, ga, gb, 1.0); break;
			case FB_EDGE_BACKWARD: fb_graph_set_directed(out, gb, ga, 1.0); break;
			case FB_EDGE_UNDIRECTED: fb_graph_set_undirected(out, ga, gb); break;
			case FB_EDGE_NONE: break;
			}
		}
	if (!c->extend)
		return out;
	dag = fb_cpdag_to_dag(out, NULL);
	fb_graph_free(out);
	return dag;
}

/* Order candidates: smaller p, then larger statistic, then index order. */
static int cand_strength_cmp(const void *x, const void *y)
{
	const fedpc_cand *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	if (a->stat != b->stat)
		return a->stat > b->stat ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Order candidates by index: middle, then i, then j. */
static int cand_index_cmp(const void *x, const void *y)
{
	const fedpc_cand *a = x, *b = y;

	if (a->k != b->k)
		return a->k < b->k ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* Sort into index order and number the candidates. */
void fedpc_cands_index(fedpc_cand *cands, size_t n)
{
	qsort(cands, n, sizeof *cands, cand_index_cmp);
	for (size_t t = 0; t < n; t++)
		cands[t].pos = t;
}

/* Whether orienting i -> k <- j would re-orient an edge or close a directed cycle (a
 * directed path from k back to i or j). */
static bool collider_conflicts(const fb_graph *g, const fedpc_cand *c, size_t *buf, bool *seen)
{
	return fb_graph_has_arc(g, c->k, c->i) || fb_graph_has_arc(g, c->k, c->j) ||
	       fb_graph_reaches(g, c->k, c->i, c->j, buf, seen);
}

/* Orient the candidates (skipping, as conflicts, those that would re-orient an edge or
 * close a directed cycle), then Meek's R1-R3. */
void fedpc_orient(fb_graph *g, fedpc_cand *cands, size_t n, bool strength, size_t *colliders,
                  size_t *conflicts, size_t *meek)
{
	size_t done = 0, bad = 0, m, d = g->d;
	size_t *buf = fb_xmalloc((d + 1) * sizeof *buf);
	bool *seen = fb_xmalloc((d + 1) * sizeof *seen);

	fedpc_cands_index(cands, n);
	if (strength)
		qsort(cands, n, sizeof *cands, cand_strength_cmp);
	for (size_t t = 0; t < n; t++) {
		const fedpc_cand *c = &cands[t];

		if (collider_conflicts(g, c, buf, seen)) {
			bad++;
			continue;
		}
		fb_graph_set_directed(g, c->i, c->k, 1.0);
		fb_graph_set_directed(g, c->j, c->k, 1.0);
		done++;
	}
	free(buf);
	free(seen);
	m = fb_cpdag_meek(g, false);
	if (colliders != NULL)
		*colliders = done;
	if (conflicts != NULL)
		*conflicts = bad;
	if (meek != NULL)
		*meek = m;
}
