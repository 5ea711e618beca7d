/* The detail view of fedpc and fedpc-simple2, drawn from the accessors of fedbn/fedpc.h and
 * the run's trace only.  While FedSkele runs: each pair the last layer gave a vote, with its
 * votes out of K, a bar that must reach past the threshold mark, and whether it was kept,
 * most votes first.  Once the sets are chosen (after FedOrien; simple2 after its one round),
 * first every end pair of an unshielded triple with its separating set (names, p-value, the
 * client that found it) and under it its triples as oriented, then the votes.  One list,
 * scrolled with the arrow keys; words and marks carry the meaning, colour only repeats it.
 * The vote threshold is the one the server applied (fb_fedpc_threshold), never worked out
 * here again. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/cpdag.h"
#include "fedbn/fedpc.h"
#include "pane-int.h"

/* Widest name (in columns) in the name columns of a pair. */
#define NAME_COLS 14
/* Widest vote bar, in cells. */
#define BAR_CELLS 10

/* What a row of the set section is. */
enum fp_kind {
	FP_HEAD_SETS,  /* the heading of the separating sets */
	FP_SET,        /* the pair (i, j) and its separating set */
	FP_TRIPLE,     /* the unshielded triple i - k - j as oriented */
	FP_HEAD_VOTES, /* the heading of the votes (the last row of the section) */
};

/* One row of the set section. */
typedef struct fp_row {
	enum fp_kind kind; /* what it shows */
	size_t i, k, j;    /* the pair i < j (data order) and a triple's middle k */
} fp_row;

/* What one frame shows, read from the run. */
typedef struct fp_view {
	const pane *p;             /* the pane (attributes, utf8) */
	const fb_run *run;         /* the run */
	const unsigned char *mark; /* the estimate's d x d marks (the pane's copy) */
	size_t d, K;               /* variables, clients */
	fb_fedpc_vote vote;        /* the server's threshold: votes that keep a pair, of whom */
	long layer;                /* the last FedSkele layer (-1: simple2 has none) */
	size_t rec;                /* the trace record of that layer (or of the one round) */
	bool sets;                 /* the separating sets are chosen */
	fp_row *rows;              /* the set section, its headings included */
	size_t nrows, cap;         /* rows used and allocated */
	size_t *voted;             /* pairs with votes, as i * d + j (i < j), most votes first */
	size_t nvoted;             /* how many */
	size_t kept, cut;          /* voted pairs kept and removed */
	size_t ntri, ends;         /* unshielded triples and their end pairs */
	size_t colliders, lonely;  /* triples oriented as colliders; end pairs without a set */
	size_t *Z;                 /* room for one set (d) */
	int nw;                    /* columns of a name in a pair */
} fp_view;

/* Whether a and b are adjacent in the estimate. */
static bool fp_adj(const fp_view *v, size_t a, size_t b)
{
	return v->mark[a * v->d + b] || v->mark[b * v->d + a];
}

/* The mark between a and b as text: "->", "<-" or "-" (ASCII, read in any terminal). */
static const char *fp_glyph(const fp_view *v, size_t a, size_t b)
{
	bool ab = v->mark[a * v->d + b], ba = v->mark[b * v->d + a];

	return ab && !ba ? "->" : ba && !ab ? "<-" : "-";
}

/* Append a row to the set section. */
static void fp_push(fp_view *v, enum fp_kind kind, size_t i, size_t k, size_t j)
{
	if (v->nrows == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->rows = fb_xreallocarray(v->rows, v->cap, sizeof *v->rows);
	}
	v->rows[v->nrows++] = (fp_row){ kind, i, k, j };
}

/* The unshielded triples i - k - j (i < j not adjacent) of the run's estimate, sorted by
 * (i, j, k), into *out (caller frees); their count (0 when there is no estimate). */
static size_t fp_find_triples(const fp_view *v, size_t **out)
{
	fb_error err;
	fb_graph *g = fb_run_result(v->run, &err);
	size_t n;

	if (g == NULL) {
		*out = NULL;
		return 0;
	}
	n = fb_graph_unshielded_triples(g, out);
	fb_graph_free(g);
	return n;
}

/* The set section: a heading, then each end pair and its triples; counts colliders and
 * pairs no client separated. */
static void fp_section_sets(fp_view *v)
{
	size_t *t, n = fp_find_triples(v, &t);

	v->ntri = n;
	if (n > 0)
		fp_push(v, FP_HEAD_SETS, 0, 0, 0);
	for (size_t x = 0; x < n; x++) {
		size_t i = t[3 * x], k = t[3 * x + 1], j = t[3 * x + 2];

		if (x == 0 || i != t[3 * x - 3] || j != t[3 * x - 1]) {
			fp_push(v, FP_SET, i, 0, j);
			v->ends++;
			if (fb_fedpc_sepset(v->run, i, j, v->Z, NULL, NULL) < 0)
				v->lonely++;
		}
		fp_push(v, FP_TRIPLE, i, k, j);
		v->colliders += strcmp(fp_glyph(v, i, k), "->") == 0 &&
		                strcmp(fp_glyph(v, j, k), "->") == 0;
	}
	free(t);
}

/* The pairs with votes, most votes first (then in pair order); counts kept and removed. */
static void fp_section_votes(fp_view *v)
{
	size_t d = v->d, *count = fb_xcalloc(v->K + 2, sizeof *count), *at, n = 0;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			long c = fb_fedpc_votes(v->run, i, j);

			if (c > 0 && (size_t)c <= v->K) {
				count[c]++;
				n++;
			}
		}
	at = fb_xcalloc(v->K + 2, sizeof *at);
	for (size_t c = v->K; c > 0; c--) /* the first slot of each count, most first */
		at[c - 1] = at[c] + count[c];
	v->voted = fb_xmalloc((n + 1) * sizeof *v->voted);
	v->nvoted = n;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			long c = fb_fedpc_votes(v->run, i, j);

			if (c <= 0 || (size_t)c > v->K)
				continue;
			v->voted[at[c]++] = i * d + j;
			if (fp_adj(v, i, j))
				v->kept++;
			else
				v->cut++;
		}
	free(count);
	free(at);
}

/* The last FedSkele layer and its trace record (fedpc), or no layer and the last record. */
static void fp_find_layer(fp_view *v)
{
	const fb_trace *t = &v->run->trace;
	int f = pane_figure_index(v->run, "layer");

	v->layer = -1;
	v->rec = t->n - 1;
	for (size_t r = t->n; f >= 0 && r-- > 0;)
		if (t->r[r].fig[f] >= 0) {
			v->layer = (long)t->r[r].fig[f];
			v->rec = r;
			return;
		}
}

/* Columns of text s (one per character; bytes when s is not text in this locale). */
static int fp_cols(const char *s)
{
	size_t n = mbstowcs(NULL, s, 0);

	n = n == (size_t)-1 ? strlen(s) : n;
	return n > 1000 ? 1000 : (int)n;
}

/* The widest variable name in columns, at most NAME_COLS. */
static int fp_name_cols(const fb_run *run)
{
	int most = 1;

	for (size_t i = 0; i < run->data->d; i++) {
		int n = fp_cols(run->data->vars[i].name);

		if (n > most)
			most = n > NAME_COLS ? NAME_COLS : n;
	}
	return most;
}

/* A variable's name. */
static const char *fp_name(const fp_view *v, size_t i)
{
	return v->run->data->vars[i].name;
}

/* The pair's names in columns of v->nw from x, tok between them; the column after them. */
static int fp_pair(const fp_view *v, size_t i, size_t j, const char *tok, int y, int x, int w)
{
	int xj = x + v->nw + 2 + fp_cols(tok);

	pane_put(v->p, y, x, v->nw < w - x ? v->nw : w - x, ROLE_TEXT, fp_name(v, i));
	pane_put(v->p, y, x + v->nw + 1, w - x - v->nw - 1, ROLE_DIM, tok);
	pane_put(v->p, y, xj, v->nw < w - xj ? v->nw : w - xj, ROLE_TEXT, fp_name(v, j));
	return xj + v->nw + 2;
}

/* The n members of a set as {a, b, c} in buf (cut short when it does not fit). */
static const char *fp_set_text(const fp_view *v, size_t n, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "{");

	for (size_t t = 0; t < n && used < len; t++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", t > 0 ? ", " : "",
		                         fp_name(v, v->Z[t]));
	if (used < len)
		snprintf(buf + used, len - used, "}");
	return buf;
}

/* A pair's row: its names, then its set, the set's p-value and the client that found it. */
static void fp_draw_set(const fp_view *v, const fp_row *r, int y, int w)
{
	double pv = NAN;
	long client = -1, n = fb_fedpc_sepset(v->run, r->i, r->j, v->Z, &pv, &client);
	int x = fp_pair(v, r->i, r->j, v->p->utf8 ? "\u22a5" : "_||_", y, 1, w);
	char set[400];

	if (n < 0) {
		pane_put(v->p, y, x, w - x - 1, ROLE_MISS, "no client separated them: no set");
		return;
	}
	fp_set_text(v, (size_t)n, set, sizeof set);
	if (client >= 0 && !isnan(pv))
		pane_putf(v->p, y, x, w - x - 1, ROLE_TEXT, "p %-6.3g client %-2ld given %s", pv,
		          client + 1, set);
	else
		pane_putf(v->p, y, x, w - x - 1, ROLE_TEXT, "given %s", set);
}

/* Whether k is among the n members of the set in v->Z. */
static bool fp_member(const fp_view *v, long n, size_t k)
{
	for (long t = 0; t < n; t++)
		if (v->Z[t] == k)
			return true;
	return false;
}

/* A triple's row: i ? k ? j as the estimate has it, and what the set made of it. */
static void fp_draw_triple(const fp_view *v, const fp_row *r, int y, int w)
{
	long n = fb_fedpc_sepset(v->run, r->i, r->j, v->Z, NULL, NULL);
	const char *gi = fp_glyph(v, r->i, r->k), *gj = fp_glyph(v, r->k, r->j);
	bool collider = strcmp(gi, "->") == 0 && strcmp(gj, "<-") == 0;
	char tri[300];
	int x = 4;

	snprintf(tri, sizeof tri, "%s %s %s %s %s", fp_name(v, r->i), gi, fp_name(v, r->k), gj,
	         fp_name(v, r->j));
	pane_put(v->p, y, x, w - x - 1, collider ? ROLE_GOOD : ROLE_TEXT, tri);
	x += fp_cols(tri) + 2;
	if (n < 0)
		pane_put(v->p, y, x, w - x - 1, ROLE_MISS, "not oriented: no set");
	else if (fp_member(v, n, r->k))
		pane_putf(v->p, y, x, w - x - 1, ROLE_DIM, "%s in the set: no v-structure",
		          fp_name(v, r->k));
	else if (collider)
		pane_put(v->p, y, x, w - x - 1, ROLE_GOOD, "v-structure");
	else
		pane_putf(v->p, y, x, w - x - 1, ROLE_BAD, "%s not in the set, yet no v-structure "
		          "(conflict)", fp_name(v, r->k));
}

/* The vote bar of c votes: one cell per client (scaled beyond BAR_CELLS), filled for the
 * votes, and a mark a kept pair's cells pass. */
static const char *fp_bar(const fp_view *v, size_t c, bool enough, char *buf, size_t len)
{
	size_t bw = v->K < BAR_CELLS ? v->K : BAR_CELLS, used = 0;
	size_t fill = (c * bw + v->K - 1) / v->K, mark = (v->vote.need - 1) * bw / v->K;
	const char *on = v->p->utf8 ? "\u2588" : "#", *off = v->p->utf8 ? "\u00b7" : ".";
	const char *bar = v->p->utf8 ? "\u2502" : "|";

	if (enough && fill <= mark) /* scaled cells must still say which side it is on */
		fill = mark + 1;
	if (!enough && fill > mark)
		fill = mark;
	buf[0] = '\0';
	for (size_t x = 0; x <= bw && used < len; x++) {
		if (x == mark)
			used += (size_t)snprintf(buf + used, len - used, "%s", bar);
		if (x < bw && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s", x < fill ? on : off);
	}
	return buf;
}

/* A voted pair's row: names, votes k/K, the bar, kept or removed. */
static void fp_draw_vote(const fp_view *v, size_t code, int y, int w)
{
	size_t i = code / v->d, j = code % v->d;
	long c = fb_fedpc_votes(v->run, i, j);
	bool kept = fp_adj(v, i, j);
	char bar[64], k[24];
	int kw = snprintf(k, sizeof k, "%zu", v->K), x = fp_pair(v, i, j, "-", y, 1, w);

	pane_putf(v->p, y, x, w - x - 1, ROLE_TEXT, "votes %*ld/%zu", kw, c, v->K);
	x += 6 + 2 * kw + 1 + 2;
	fp_bar(v, c > 0 ? (size_t)c : 0, c >= (long)v->vote.need, bar, sizeof bar);
	pane_put(v->p, y, x, w - x - 1, kept ? ROLE_GOOD : ROLE_DIM, bar);
	x += fp_cols(bar) + 2;
	pane_put(v->p, y, x, w - x - 1, kept ? ROLE_GOOD : ROLE_BAD, kept ? "kept" : "removed");
}

/* A heading row of the list. */
static void fp_draw_head(const fp_view *v, enum fp_kind kind, int y, int w)
{
	const fb_fedpc_vote *t = &v->vote;

	if (kind == FP_HEAD_SETS)
		pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "separating sets (%s), each with its "
		          "triples", v->layer >= 0 ? "the highest p any client found" :
		          "the clients' sets intersected");
	else if (v->layer >= 0)
		pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "votes of layer %ld, most first: kept "
		          "with %zu of %zu (vote=%g, %s rule)", v->layer, t->need, t->heard, t->share,
		          t->rule);
	else
		pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "skeleton votes, most first: kept with "
		          "%zu of %zu (vote=%g, %s rule)", t->need, t->heard, t->share, t->rule);
}

/* The list from row y, h rows with its position on the last, scrolled to p->list_first. */
static void fp_list(pane *p, const fp_view *v, int y, int h, int w)
{
	size_t n = v->nrows + v->nvoted, vis = h > 1 ? (size_t)(h - 1) : 0;

	if (p->list_first + vis > n)
		p->list_first = n > vis ? n - vis : 0;
	for (size_t r = p->list_first; r < n && r < p->list_first + vis; r++) {
		int row = y + (int)(r - p->list_first);
		const fp_row *e = r < v->nrows ? &v->rows[r] : NULL;

		if (e == NULL)
			fp_draw_vote(v, v->voted[r - v->nrows], row, w);
		else if (e->kind == FP_SET)
			fp_draw_set(v, e, row, w);
		else if (e->kind == FP_TRIPLE)
			fp_draw_triple(v, e, row, w);
		else
			fp_draw_head(v, e->kind, row, w);
	}
	if (h > 0 && n > 0)
		pane_putf(p, y + h - 1, 1, w - 2, ROLE_DIM, "rows %zu-%zu of %zu: arrows, "
		          "PgUp/PgDn, Home/End scroll", p->list_first + 1,
		          p->list_first + vis < n ? p->list_first + vis : n, n);
}

/* FedSkele's two lines: the layer, the threshold, what the vote did to the pairs in play. */
static void fp_header_skele(const fp_view *v, int y, int w)
{
	const fb_trace *t = &v->run->trace;
	int f = pane_figure_index(v->run, "removed");
	size_t np = v->d * (v->d - 1) / 2, removed = 0, before;

	before = v->rec == 0 ? np : t->r[v->rec - 1].edges;
	if (f >= 0 && t->r[v->rec].fig[f] >= 0)
		removed = (size_t)t->r[v->rec].fig[f];
	pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "FedSkele layer %ld, round %zu: %zu clients "
	          "voted; a pair stays with %zu or more", v->layer, t->r[v->rec].round,
	          v->vote.heard, v->vote.need);
	pane_putf(v->p, y + 1, 1, w - 2, ROLE_TEXT, "%zu pairs in play: %zu kept, %zu removed "
	          "(%zu by every client); %zu out before", before, v->kept, removed,
	          removed > v->cut ? removed - v->cut : 0, np - before);
}

/* The two lines above the list. */
static void fp_header(const fp_view *v, int y, int w)
{
	const fb_trace *t = &v->run->trace;

	if (!v->sets) {
		fp_header_skele(v, y, w);
	} else if (v->layer >= 0) {
		pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "FedOrien, round %zu: %zu unshielded "
		          "triples over %zu end pairs, %zu v-structures", t->r[t->n - 1].round,
		          v->ntri, v->ends, v->colliders);
		pane_putf(v->p, y + 1, 1, w - 2, ROLE_TEXT, "end pairs no client separated: %zu; "
		          "below the sets, the votes of layer %ld", v->lonely, v->layer);
	} else {
		pane_putf(v->p, y, 1, w - 2, ROLE_TITLE, "one round: %zu clients ran PC; a pair "
		          "stays with %zu or more votes: %zu kept", v->vote.heard, v->vote.need,
		          v->kept);
		pane_putf(v->p, y + 1, 1, w - 2, ROLE_TEXT, "%zu unshielded triples over %zu end "
		          "pairs, %zu v-structures", v->ntri, v->ends, v->colliders);
	}
}

/* Why there is nothing to list yet, when there is not; false when there is. */
static bool fp_nothing(pane *p, int top, int w)
{
	const fb_run *run = p->run;
	fb_fedpc_vote vote;

	if (run->trace.n == 0 || run->fed == NULL)
		pane_put(p, top + 1, 1, w - 2, ROLE_DIM, "no round yet: the first vote is on every "
		         "pair (layer 0 starts from the complete graph)");
	else if (p->g.mark == NULL || p->g.d != run->data->d || p->g.d < 2)
		pane_put(p, top + 1, 1, w - 2, ROLE_DIM,
		         p->g.why[0] != '\0' ? p->g.why : "no estimate yet");
	else if (fb_fedpc_votes(run, 0, 1) < 0 || fb_fedpc_threshold(run, &vote) != FB_OK)
		pane_put(p, top + 1, 1, w - 2, ROLE_DIM, "the server has not counted votes yet");
	else
		return false;
	return true;
}

/* The newest round's marks (the votes and sets are the newest round's): the pane's copy when
 * it shows that round, else a copy in *owned (caller frees); NULL when there is none. */
static const unsigned char *fp_newest_marks(const pane *p, unsigned char **owned)
{
	fb_error err = { { 0 } };
	fb_graph *g;

	*owned = NULL;
	if (pane_upto(p) == fb_run_rounds(p->run))
		return p->g.mark;
	if ((g = fb_run_result(p->run, &err)) == NULL || g->d != p->g.d) {
		fb_graph_free(g);
		return NULL;
	}
	*owned = fb_xmalloc(g->d * g->d);
	memcpy(*owned, g->mark, g->d * g->d);
	fb_graph_free(g);
	return *owned;
}

/* The detail view of fedpc and fedpc-simple2. */
void pane_detail_fedpc(pane *p, int top, int h, int w)
{
	fp_view v = { .p = p, .run = p->run };
	unsigned char *owned;

	pane_graph_update(p);
	if (fp_nothing(p, top, w) || (v.mark = fp_newest_marks(p, &owned)) == NULL)
		return;
	v.d = p->g.d;
	v.K = fb_fed_k(p->run->fed);
	fb_fedpc_threshold(p->run, &v.vote); /* fp_nothing saw it answer */
	v.sets = fb_run_done(p->run);
	v.Z = fb_xmalloc((v.d + 1) * sizeof *v.Z);
	v.nw = fp_name_cols(p->run);
	fp_find_layer(&v);
	if (v.sets)
		fp_section_sets(&v);
	fp_push(&v, FP_HEAD_VOTES, 0, 0, 0);
	fp_section_votes(&v);
	fp_header(&v, top, w);
	fp_list(p, &v, top + 2, h - 2, w);
	free(v.rows);
	free(v.voted);
	free(v.Z);
	free(owned);
}
