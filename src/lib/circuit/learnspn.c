/* A LearnSPN-style structure learner as mixed sum-product network learners run it: RDC
 * column splits, k-means row splits, naive factorisation of small slices, chains of
 * same-kind nodes merged.  It learns into a tree, then writes the tree children first. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* One node of the tree being learned. */
typedef struct lnode {
	enum fb_node_kind kind; /* leaf, product or sum */
	size_t n;               /* children */
	size_t cap;             /* room in ch (and w) */
	struct lnode **ch;      /* the children (owned) */
	double *w;              /* sum: weights (owned) */
	fb_leaf leaf;           /* leaf: its distribution (owned) */
} lnode;

/* What every step of one learning run reads. */
typedef struct learn_ctx {
	const double *x;               /* the n x d data, row-major */
	size_t d;                      /* columns */
	const size_t *nlevels;         /* levels of each column (0: continuous) */
	const fb_learnspn_options *o;  /* the settings */
	gsl_rng *rdc_rng;              /* projections of the RDC */
	gsl_rng *km_rng;               /* k-means seeding */
	fb_error *err;                 /* the first failure */
	int failed;                    /* 1 once something failed */
} learn_ctx;

/* Why the next step on a slice is restricted. */
enum learn_flags {
	LEARN_FIRST = 1,     /* the root slice: rows are split first */
	LEARN_NO_ROWS = 2,   /* k-means found one cluster here: do not split rows again */
	LEARN_NO_COLS = 4,   /* the RDC found one component here: do not split columns again */
};

/* Free a tree. */
static void lnode_free(lnode *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++)
		lnode_free(t->ch[i]);
	free(t->ch);
	free(t->w);
	fb_leaf_release(&t->leaf);
	free(t);
}

/* A new inner node with room for n children, or NULL (ctx failed). */
static lnode *lnode_inner(learn_ctx *ctx, enum fb_node_kind kind, size_t n)
{
	lnode *t = calloc(1, sizeof *t);

	if (t != NULL) {
		t->kind = kind;
		t->cap = n;
		t->ch = calloc(n, sizeof *t->ch);
		t->w = kind == FB_NODE_SUM ? calloc(n, sizeof *t->w) : NULL;
	}
	if (t == NULL || t->ch == NULL || (kind == FB_NODE_SUM && t->w == NULL)) {
		lnode_free(t);
		fb_fail(ctx->err, "out of memory learning a circuit");
		ctx->failed = 1;
		return NULL;
	}
	return t;
}

/* A leaf over variable j fitted to the rows, or NULL (ctx failed). */
static lnode *learn_leaf(learn_ctx *ctx, const size_t *rows, size_t nr, size_t j)
{
	fb_column_slice col = { .x = ctx->x + j, .stride = ctx->d, .rows = rows, .n = nr };
	lnode *t = calloc(1, sizeof *t);
	size_t lv = ctx->nlevels[j];
	int rc;

	if (t == NULL) {
		ctx->failed = 1;
		fb_fail(ctx->err, "out of memory learning a circuit");
		return NULL;
	}
	t->kind = FB_NODE_LEAF;
	if (ctx->o->leaves == FB_LEARN_HISTOGRAM)
		rc = fb_leaf_fit_histogram(&t->leaf, j, lv > 0, &col, ctx->err);
	else if (lv > 0)
		rc = fb_leaf_fit_categorical(&t->leaf, j, lv, &col, ctx->err);
	else
		rc = fb_leaf_fit_gaussian(&t->leaf, j, &col, ctx->err);
	if (rc != FB_OK) {
		ctx->failed = 1;
		free(t);
		return NULL;
	}
	return t;
}

/* Make room for need children in t; FB_ERR on out of memory (t unchanged). */
static int lnode_reserve(lnode *t, size_t need)
{
	size_t cap = t->cap;
	lnode **ch;

	if (need <= cap)
		return FB_OK;
	while (cap < need)
		cap *= 2;
	ch = realloc(t->ch, cap * sizeof *ch);
	if (ch == NULL)
		return FB_ERR;
	t->ch = ch;
	if (t->w != NULL) {
		double *w = realloc(t->w, cap * sizeof *w);

		if (w == NULL)
			return FB_ERR;
		t->w = w;
	}
	t->cap = cap;
	return FB_OK;
}

/* Append child c (weight w in a sum) to t; a child of t's own kind gives its children
 * instead (products adopt them, sums multiply the weights), so no chain of one kind
 * remains.  FB_ERR (ctx failed, c freed) on a NULL child or out of memory. */
static int lnode_adopt(learn_ctx *ctx, lnode *t, lnode *c, double w)
{
	int merge = c != NULL && c->kind == t->kind;

	if (c == NULL)
		return FB_ERR;
	if (lnode_reserve(t, t->n + (merge ? c->n : 1)) != FB_OK) {
		lnode_free(c);
		ctx->failed = 1;
		return fb_fail(ctx->err, "out of memory learning a circuit");
	}
	if (!merge) {
		if (t->w != NULL)
			t->w[t->n] = w;
		t->ch[t->n++] = c;
		return FB_OK;
	}
	for (size_t k = 0; k < c->n; k++) {
		if (t->w != NULL)
			t->w[t->n] = w * c->w[k];
		t->ch[t->n++] = c->ch[k];
	}
	c->n = 0;
	lnode_free(c);
	return FB_OK;
}

static lnode *learn(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                    size_t ns, int flags);

/* A product of one leaf per variable of the scope. */
static lnode *learn_naive(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                          size_t ns)
{
	lnode *t = lnode_inner(ctx, FB_NODE_PRODUCT, ns);

	for (size_t k = 0; t != NULL && k < ns; k++)
		if (lnode_adopt(ctx, t, learn_leaf(ctx, rows, nr, scope[k]), 1) != FB_OK) {
			lnode_free(t);
			return NULL;
		}
	return t;
}

/* 1 when variable j has the same value in every row of the slice. */
static int column_constant(const learn_ctx *ctx, const size_t *rows, size_t nr, size_t j)
{
	for (size_t i = 1; i < nr; i++)
		if (ctx->x[rows[i] * ctx->d + j] != ctx->x[rows[0] * ctx->d + j])
			return 0;
	return 1;
}

/* A product of a leaf per constant variable and what is learned on the others (rest, nrest
 * of them, given in that array). */
static lnode *learn_constants(learn_ctx *ctx, const size_t *rows, size_t nr,
                              const size_t *scope, size_t ns, const size_t *rest, size_t nrest)
{
	lnode *t = lnode_inner(ctx, FB_NODE_PRODUCT, ns);
	size_t r = 0;

	for (size_t k = 0; t != NULL && k < ns; k++) {
		if (r < nrest && rest[r] == scope[k]) {
			r++;
			continue;
		}
		if (lnode_adopt(ctx, t, learn_leaf(ctx, rows, nr, scope[k]), 1) != FB_OK)
			goto fail;
	}
	if (t != NULL && lnode_adopt(ctx, t, learn(ctx, rows, nr, rest, nrest, 0), 1) != FB_OK)
		goto fail;
	return t;
fail:
	lnode_free(t);
	return NULL;
}

/* The root of x's set in a union-find forest. */
static size_t uf_find(size_t *parent, size_t x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

/* The slice's codes of column a as bits (1 where the code is 1) into w words, and how many
 * are set. */
static size_t gtest_bits(const unsigned *code, size_t nr, uint64_t *bits, size_t w)
{
	size_t ones = 0;

	memset(bits, 0, w * sizeof *bits);
	for (size_t i = 0; i < nr; i++)
		if (code[i]) {
			bits[i / 64] |= (uint64_t)1 << (i % 64);
			ones++;
		}
	return ones;
}

/* The 2 x 2 table of two binary columns from their bits and counts of ones: the rows with
 * both set by a population count, the other cells by difference. */
static void gtest_table_binary(const uint64_t *ba, const uint64_t *bb, size_t w, size_t na,
                               size_t nb, size_t nr, double *t)
{
	size_t both = 0;

	for (size_t k = 0; k < w; k++)
		both += (size_t)__builtin_popcountll(ba[k] & bb[k]);
	t[0] = (double)(nr - na - nb + both);
	t[1] = (double)(nb - both);
	t[2] = (double)(na - both);
	t[3] = (double)both;
}

/* Gather the slice's level codes column by column into code (ns x nr) and, for binary
 * columns, their bits into bits (ns x w) and counts of ones into ones. */
static void gtest_gather(const fb_column_slice *cols, const size_t *lv, size_t ns,
                         unsigned *code, uint64_t *bits, size_t w, size_t *ones)
{
	size_t nr = cols[0].n;

	for (size_t a = 0; a < ns; a++) {
		for (size_t i = 0; i < nr; i++)
			code[a * nr + i] = (unsigned)cols[a].x[cols[a].rows[i] * cols[a].stride];
		if (lv[a] == 2)
			ones[a] = gtest_bits(code + a * nr, nr, bits + a * w, w);
	}
}

/* The G-test of every pair of the slice's columns on their level codes, gathered once
 * (binary pairs counted 64 rows at a time): m (upper triangle) is 1 where the p-value is
 * below pvalue. */
static int gtest_dependence(learn_ctx *ctx, const fb_column_slice *cols, const size_t *lv,
                            size_t ns, double *m)
{
	size_t nr = cols[0].n, lmax = 2, w = (nr + 63) / 64;
	unsigned *code = malloc(ns * nr * sizeof *code);
	uint64_t *bits = malloc(ns * w * sizeof *bits);
	size_t *ones = calloc(ns, sizeof *ones);
	double *t;

	for (size_t a = 0; a < ns; a++)
		lmax = lv[a] > lmax ? lv[a] : lmax;
	t = malloc((lmax * lmax + 2 * lmax) * sizeof *t);
	if (code == NULL || bits == NULL || ones == NULL || t == NULL) {
		free(code), free(bits), free(ones), free(t);
		return fb_fail(ctx->err, "out of memory for the G-tests of %zu columns", ns);
	}
	gtest_gather(cols, lv, ns, code, bits, w, ones);
	for (size_t a = 0; a < ns; a++)
		for (size_t b = a + 1; b < ns; b++) {
			const unsigned *ca = code + a * nr, *cb = code + b * nr;

			if (lv[a] == 2 && lv[b] == 2) {
				gtest_table_binary(bits + a * w, bits + b * w, w, ones[a], ones[b], nr, t);
			} else {
				memset(t, 0, lv[a] * lv[b] * sizeof *t);
				for (size_t i = 0; i < nr; i++)
					t[ca[i] * lv[b] + cb[i]] += 1;
			}
			m[a * ns + b] = fb_gtest_table(t, lv[a], lv[b], (double)nr, NULL) <
			                ctx->o->pvalue;
		}
	free(code), free(bits), free(ones), free(t);
	return FB_OK;
}

/* Fill the ns x ns matrix m (upper triangle) with 1 where two variables of the slice are
 * dependent: RDC at least the threshold, or a G-test p-value below pvalue. */
static int pair_dependence(learn_ctx *ctx, const fb_column_slice *cols, const size_t *lv,
                           size_t ns, double *m)
{
	if (ctx->o->split == FB_SPLIT_RDC) {
		if (fb_rdc_matrix(cols, lv, ns, ctx->o->rdc_k, ctx->o->rdc_s, ctx->rdc_rng, m,
		                  ctx->err) != FB_OK)
			return FB_ERR;
		for (size_t e = 0; e < ns * ns; e++)
			m[e] = m[e] >= ctx->o->threshold;
		return FB_OK;
	}
	return gtest_dependence(ctx, cols, lv, ns, m);
}

/* Label the scope's variables by connected component of the graph with an edge between
 * dependent variables (components numbered by their first variable); the number of
 * components, or 0 (ctx failed). */
static size_t split_columns(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                            size_t ns, size_t *comp)
{
	fb_column_slice *cols = calloc(ns, sizeof *cols);
	size_t *lv = calloc(ns, sizeof *lv), *parent = calloc(ns, sizeof *parent), nc = 0;
	double *m = calloc(ns * ns, sizeof *m);

	if (cols == NULL || lv == NULL || parent == NULL || m == NULL) {
		fb_fail(ctx->err, "out of memory learning a circuit");
		goto out;
	}
	for (size_t k = 0; k < ns; k++) {
		cols[k] = (fb_column_slice){ .x = ctx->x + scope[k], .stride = ctx->d, .rows = rows,
		                             .n = nr };
		lv[k] = ctx->nlevels[scope[k]];
		parent[k] = k;
	}
	if (pair_dependence(ctx, cols, lv, ns, m) != FB_OK)
		goto out;
	for (size_t a = 0; a < ns; a++)
		for (size_t b = a + 1; b < ns; b++)
			if (m[a * ns + b] != 0)
				parent[uf_find(parent, b)] = uf_find(parent, a);
	for (size_t k = 0; k < ns; k++)
		lv[k] = SIZE_MAX; /* from here: the component number of each root */
	for (size_t k = 0; k < ns; k++) {
		size_t r = uf_find(parent, k);

		if (lv[r] == SIZE_MAX)
			lv[r] = nc++;
		comp[k] = lv[r];
	}
out:
	ctx->failed |= nc == 0;
	free(cols);
	free(lv);
	free(parent);
	free(m);
	return nc;
}

/* Ask early for the scope's values of the row at row: a prefetch per cache line (8 values)
 * of a sorted scope. */
static void prefetch_row(const double *row, const size_t *scope, size_t ns)
{
	for (size_t k = 0, last = SIZE_MAX; k < ns; k++)
		if (last == SIZE_MAX || scope[k] < last || scope[k] >= last + 8) {
			fb_circuit_prefetch(row + scope[k]);
			last = scope[k];
		}
}

/* Two k-means clusters of the slice's rows over its scope into label; the number of
 * clusters found (1 or 2), or 0 (ctx failed). */
static size_t split_rows(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                         size_t ns, size_t *label)
{
	double *m = calloc(nr * ns, sizeof *m);
	size_t nc = 0;

	if (m == NULL) {
		fb_fail(ctx->err, "out of memory learning a circuit");
		ctx->failed = 1;
		return 0;
	}
	for (size_t i = 0; i < nr; i++) {
		if (i + FB_CIRCUIT_AHEAD < nr)
			prefetch_row(ctx->x + rows[i + FB_CIRCUIT_AHEAD] * ctx->d, scope, ns);
		for (size_t k = 0; k < ns; k++)
			m[i * ns + k] = ctx->x[rows[i] * ctx->d + scope[k]];
	}
	if (fb_kmeans(m, nr, ns, 2, FB_KMEANS_N_INIT, FB_KMEANS_MAX_ITER, ctx->km_rng, label,
	              NULL, ctx->err) == FB_OK) {
		nc = 1;
		for (size_t i = 0; i < nr; i++)
			if (label[i] != 0)
				nc = 2;
	}
	ctx->failed |= nc == 0;
	free(m);
	return nc;
}

/* A sum over row parts (weighted by their sizes) or a product over variable parts: part p
 * takes the rows (sum) or variables (product) labelled p.  sub is room for the items. */
static lnode *learn_parts(learn_ctx *ctx, enum fb_node_kind kind, const size_t *rows,
                          size_t nr, const size_t *scope, size_t ns, const size_t *label,
                          size_t nparts, size_t *sub)
{
	int sum = kind == FB_NODE_SUM;
	const size_t *items = sum ? rows : scope;
	size_t nitems = sum ? nr : ns;
	lnode *t = lnode_inner(ctx, kind, nparts);

	for (size_t p = 0; t != NULL && p < nparts; p++) {
		size_t m = 0;
		lnode *c;

		for (size_t i = 0; i < nitems; i++)
			if (label[i] == p)
				sub[m++] = items[i];
		c = sum ? learn(ctx, sub, m, scope, ns, 0) : learn(ctx, rows, nr, sub, m, 0);
		if (lnode_adopt(ctx, t, c, (double)m / (double)nr) != FB_OK) {
			lnode_free(t);
			t = NULL;
		}
	}
	return t;
}

/* Split the slice's rows (k-means: a sum) or columns (RDC components: a product); when the
 * split finds one part, learn the slice again with that split ruled out. */
static lnode *learn_split(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                          size_t ns, int flags, int by_rows)
{
	size_t nitems = by_rows ? nr : ns, nc;
	size_t *label = malloc(2 * nitems * sizeof *label);
	lnode *t = NULL;

	if (label == NULL) {
		ctx->failed = 1;
		fb_fail(ctx->err, "out of memory learning a circuit");
		return NULL;
	}
	nc = by_rows ? split_rows(ctx, rows, nr, scope, ns, label)
	             : split_columns(ctx, rows, nr, scope, ns, label);
	if (nc == 1)
		t = learn(ctx, rows, nr, scope, ns, flags | (by_rows ? LEARN_NO_ROWS : LEARN_NO_COLS));
	else if (nc > 1)
		t = learn_parts(ctx, by_rows ? FB_NODE_SUM : FB_NODE_PRODUCT, rows, nr, scope, ns,
		                label, nc, label + nitems);
	free(label);
	return t;
}

/* Learn a tree on a slice (rows x scope): a leaf for one variable; constant variables
 * apart; naive factorisation for small slices or when both splits failed; otherwise rows
 * first at the root (when cluster_first), columns first below. */
static lnode *learn(learn_ctx *ctx, const size_t *rows, size_t nr, const size_t *scope,
                    size_t ns, int flags)
{
	size_t *rest, nrest = 0;
	lnode *t;

	if (ctx->failed)
		return NULL;
	if (ns == 1)
		return learn_leaf(ctx, rows, nr, scope[0]);
	rest = malloc(ns * sizeof *rest);
	if (rest == NULL) {
		ctx->failed = 1;
		fb_fail(ctx->err, "out of memory learning a circuit");
		return NULL;
	}
	for (size_t k = 0; k < ns; k++)
		if (!column_constant(ctx, rows, nr, scope[k]))
			rest[nrest++] = scope[k];
	if (nrest == 0 || nr <= ctx->o->min_instances_slice ||
	    (flags & (LEARN_NO_ROWS | LEARN_NO_COLS)) == (LEARN_NO_ROWS | LEARN_NO_COLS))
		t = learn_naive(ctx, rows, nr, scope, ns);
	else if (nrest < ns)
		t = learn_constants(ctx, rows, nr, scope, ns, rest, nrest);
	else if ((flags & LEARN_NO_COLS) ||
	         (!(flags & LEARN_NO_ROWS) && (flags & LEARN_FIRST) && ctx->o->cluster_first))
		t = learn_split(ctx, rows, nr, scope, ns, flags, 1);
	else
		t = learn_split(ctx, rows, nr, scope, ns, flags, 0);
	free(rest);
	return t;
}

/* Append the tree to c children first (leaves move into c); its id goes to *id. */
static int emit(fb_circuit *c, lnode *t, int machine, size_t *id, fb_error *err)
{
	size_t *ids;
	int rc;

	if (t->kind == FB_NODE_LEAF)
		return fb_circuit_add_leaf(c, &t->leaf, machine, id, err);
	ids = malloc(t->n * sizeof *ids);
	if (ids == NULL)
		return fb_fail(err, "out of memory writing a learned circuit");
	rc = FB_OK;
	for (size_t k = 0; rc == FB_OK && k < t->n; k++)
		rc = emit(c, t->ch[k], machine, &ids[k], err);
	if (rc == FB_OK)
		rc = t->kind == FB_NODE_SUM ? fb_circuit_add_sum(c, ids, t->w, t->n, machine, id, err)
		                            : fb_circuit_add_product(c, ids, t->n, machine, id, err);
	free(ids);
	return rc;
}

/* Learn a circuit on all rows and columns of x. */
int fb_learnspn(const double *x, size_t n, size_t d, const size_t *nlevels,
                const fb_learnspn_options *o, int machine, fb_circuit **out, fb_error *err)
{
	learn_ctx ctx = { .x = x, .d = d, .nlevels = nlevels, .o = o, .err = err };
	size_t *rows = malloc((n ? n : 1) * sizeof *rows), *scope = malloc((d ? d : 1) * sizeof *scope), id;
	lnode *t = NULL;
	int rc = FB_ERR;

	*out = NULL;
	if (n == 0 || d == 0) {
		rc = fb_fail(err, "cannot learn a circuit from %zu rows and %zu columns", n, d);
		goto out;
	}
	for (size_t j = 0; j < d && o->split == FB_SPLIT_GTEST; j++) {
		if (nlevels[j] == 0) {
			rc = fb_fail(err, "split=gtest tests discrete columns, and column %zu is "
			                  "continuous (use split=rdc)", j + 1);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (!(x[i * d + j] >= 0 && x[i * d + j] < (double)nlevels[j] &&
			      x[i * d + j] == floor(x[i * d + j]))) {
				rc = fb_fail(err, "split=gtest needs level codes, and row %zu of column "
				                  "%zu holds %g", i + 1, j + 1, x[i * d + j]);
				goto out;
			}
	}
	if (rows == NULL || scope == NULL || (*out = fb_circuit_alloc(d)) == NULL) {
		rc = fb_fail(err, "out of memory learning a circuit");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = i;
	for (size_t j = 0; j < d; j++)
		scope[j] = j;
	ctx.rdc_rng = fb_rng_stream(o->seed, "learnspn-rdc");
	ctx.km_rng = fb_rng_stream(o->seed, "learnspn-kmeans");
	t = learn(&ctx, rows, n, scope, d, LEARN_FIRST);
	gsl_rng_free(ctx.rdc_rng);
	gsl_rng_free(ctx.km_rng);
	if (t != NULL && !ctx.failed && emit(*out, t, machine, &id, err) == FB_OK)
		rc = fb_circuit_check(*out, err);
out:
	lnode_free(t);
	free(rows);
	free(scope);
	if (rc != FB_OK) {
		fb_circuit_free(*out);
		*out = NULL;
	}
	return rc;
}
