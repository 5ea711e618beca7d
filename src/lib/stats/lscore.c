/* Local scores (BIC, BDeu, DG) with a cache per node keyed by the parent bit set; see
 * lscore.h. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_gamma.h>

#include "ci-private.h"
#include "fedbn/lscore.h"

/* One slot of a node's cache. */
struct ls_slot {
	uint64_t hash; /* hash of the key */
	size_t key;    /* 1 + offset of the key in the node's arena (0: empty slot) */
	double value;  /* the score */
};

/* One node's cache: the scores of the parent sets asked for it. */
typedef struct ls_node {
	struct ls_slot *slot; /* cap slots (NULL until the first store) */
	size_t cap, used;     /* slots allocated (a power of two) and filled */
	uint64_t *arena;      /* keys (parent bit sets), words each */
	size_t alen, acap;    /* words used and allocated in the arena */
	size_t computed;      /* cache misses */
} ls_node;

/* A caller's scratch for computing scores (lscore.h). */
struct fb_lscore_work {
	uint64_t *key;          /* words of scratch for the key being looked up */
	gsl_matrix *m;          /* BIC: d x d work space for S_PP and its factor */
	gsl_matrix *v;          /* BIC: d x d right singular vectors */
	gsl_vector *sv, *rhs;   /* BIC: d singular values; d right-hand side */
	uint32_t *grp, *cell;   /* BDeu: n group ids; n * rmax cells of the group map/counts */
	dg_work dgw;            /* DG: the factors' scratch */
	unsigned char *dskip;   /* DG: the target's columns left out (D) */
	double *dlp;            /* DG: their log pivots (D) */
};

struct fb_lscore {
	const fb_dataset *ds;   /* the data (not owned) */
	fb_lscore_options o;    /* the settings */
	size_t n, d;            /* rows and variables */
	size_t words;           /* 64-bit words of a key: the parent bit set */
	double *cov;            /* BIC: d x d covariance with divisor n */
	uint32_t *code;         /* BDeu: d x n value ranks, column after column */
	size_t *r;              /* BDeu: distinct values of each variable */
	size_t rmax;            /* BDeu: the largest r */
	dg_embed *dg;           /* DG: the embedded columns' covariance */
	ls_node *node;          /* d caches, one per node */
	fb_lscore_work *own;    /* the work of fb_lscore_get */
};

/* Mix 64 bits (splitmix64's finaliser). */
static uint64_t ls_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Hash of the words of key. */
static uint64_t ls_hash(const uint64_t *key, size_t words)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15);

	for (size_t w = 0; w < words; w++)
		h = ls_mix(h ^ (key[w] + UINT64_C(0x9e3779b97f4a7c15) * (w + 1)));
	return h;
}

/* The slot of c holding key (hash h), or the empty slot where it belongs; NULL when c has
 * no table yet. */
static struct ls_slot *ls_find(const ls_node *c, const uint64_t *key, size_t words,
                               uint64_t h)
{
	size_t i = h & (c->cap - 1);

	if (c->slot == NULL)
		return NULL;
	while (c->slot[i].key != 0 &&
	       (c->slot[i].hash != h ||
	        memcmp(c->arena + c->slot[i].key - 1, key, words * sizeof *key) != 0))
		i = (i + 1) & (c->cap - 1);
	return &c->slot[i];
}

/* Double c's table (or make its first); FB_ERR when out of memory. */
static int ls_grow(ls_node *c)
{
	size_t cap = c->cap > 0 ? c->cap * 2 : 16, mask = cap - 1;
	struct ls_slot *slot = calloc(cap, sizeof *slot);

	if (slot == NULL)
		return FB_ERR;
	for (size_t i = 0; i < c->cap; i++) {
		size_t j = c->slot[i].hash & mask;

		if (c->slot[i].key == 0)
			continue;
		while (slot[j].key != 0)
			j = (j + 1) & mask;
		slot[j] = c->slot[i];
	}
	free(c->slot);
	c->slot = slot;
	c->cap = cap;
	return FB_OK;
}

/* Store value under key (hash h) in c; FB_ERR when out of memory. */
static int ls_store(ls_node *c, const uint64_t *key, size_t words, uint64_t h, double value)
{
	struct ls_slot *slot;

	if ((c->used + 1) * 2 > c->cap && ls_grow(c) != FB_OK)
		return FB_ERR;
	if (c->alen + words > c->acap) {
		size_t acap = c->acap * 2 + words * 16;
		uint64_t *a = realloc(c->arena, acap * sizeof *a);

		if (a == NULL)
			return FB_ERR;
		c->arena = a;
		c->acap = acap;
	}
	memcpy(c->arena + c->alen, key, words * sizeof *key);
	slot = ls_find(c, key, words, h);
	slot->hash = h;
	slot->key = c->alen + 1;
	slot->value = value;
	c->alen += words;
	c->used++;
	return FB_OK;
}

/* S_iP S_PP^+ S_Pi by the SVD of the np x np view M (overwritten) and S_Pi in b, singular
 * values below 1e-15 of the largest dropped (the pseudo-inverse's usual cut). */
static double ls_quad_pinv(fb_lscore_work *w, gsl_matrix *M, const gsl_vector *b,
                           size_t np)
{
	gsl_matrix_view V = gsl_matrix_submatrix(w->v, 0, 0, np, np);
	gsl_vector_view sv = gsl_vector_subvector(w->sv, 0, np);
	double quad = 0.0, tol;

	if (gsl_linalg_SV_decomp_jacobi(M, &V.matrix, &sv.vector) != GSL_SUCCESS) {
		fb_gsl_last_error();
		return 0.0;
	}
	tol = 1e-15 * gsl_vector_get(&sv.vector, 0);
	for (size_t l = 0; l < np; l++) {
		double sl = gsl_vector_get(&sv.vector, l), ub = 0.0, vb = 0.0;

		if (!(sl > tol))
			continue;
		for (size_t a = 0; a < np; a++) {
			ub += gsl_matrix_get(M, a, l) * gsl_vector_get(b, a);
			vb += gsl_matrix_get(&V.matrix, a, l) * gsl_vector_get(b, a);
		}
		quad += ub * vb / sl;
	}
	return quad;
}

/* S_PP into the view M and S_Pi into the view b. */
static void ls_fill(const fb_lscore *s, size_t i, const size_t *pa, size_t np, gsl_matrix *M,
                    gsl_vector *b)
{
	for (size_t a = 0; a < np; a++) {
		gsl_vector_set(b, a, s->cov[pa[a] * s->d + i]);
		for (size_t c = 0; c < np; c++)
			gsl_matrix_set(M, a, c, s->cov[pa[a] * s->d + pa[c]]);
	}
}

/* Residual variance of X_i on X_P from the covariance: Cholesky, or SVD when singular. */
static double ls_residual(const fb_lscore *s, fb_lscore_work *w, size_t i, const size_t *pa,
                          size_t np)
{
	gsl_matrix_view M = gsl_matrix_submatrix(w->m, 0, 0, np, np);
	gsl_vector_view b = gsl_vector_subvector(w->rhs, 0, np);
	double sigma = s->cov[i * s->d + i];

	ls_fill(s, i, pa, np, &M.matrix, &b.vector);
	if (gsl_linalg_cholesky_decomp1(&M.matrix) == GSL_SUCCESS) {
		/* S_iP S_PP^-1 S_Pi = |L^-1 S_Pi|^2 */
		gsl_blas_dtrsv(CblasLower, CblasNoTrans, CblasNonUnit, &M.matrix, &b.vector);
		return sigma - gsl_pow_2(gsl_blas_dnrm2(&b.vector));
	}
	fb_gsl_last_error(); /* expected: clear the record */
	ls_fill(s, i, pa, np, &M.matrix, &b.vector);
	return sigma - ls_quad_pinv(w, &M.matrix, &b.vector, np);
}

/* BIC of X_i given the np parents pa. */
static double ls_bic(const fb_lscore *s, fb_lscore_work *w, size_t i, const size_t *pa,
                     size_t np)
{
	double sigma = np > 0 ? ls_residual(s, w, i, pa, np) : s->cov[i * s->d + i];
	double n = (double)s->n;

	if (!(sigma > 0.0))
		sigma = DBL_EPSILON;
	return -0.5 * n * (1.0 + log(sigma)) - s->o.lambda * (double)(np + 1) * log(n);
}

/* Degenerate Gaussian BIC of X_i given the np parents pa: the Gaussian log-likelihood of
 * X_i's w columns given the W columns of its parents, less lambda w (W + 1) log n; columns
 * that earlier ones determine are left out.  With every variable continuous it is the BIC
 * above. */
static double ls_dg(const fb_lscore *s, fb_lscore_work *k, size_t i, const size_t *pa,
                    size_t np)
{
	size_t W = 0, wi = dg_width(s->dg, i), w = 0;
	double n = (double)s->n, sum = 0;

	memset(k->dskip, 0, wi + 1);
	if (dg_factor(s->dg, pa, np, &i, 1, DG_SKIP, k->dskip, k->dlp, &W, &k->dgw) ==
	    (size_t)-1)
		return -INFINITY;
	for (size_t t = 0; t < wi; t++)
		if (!k->dskip[t]) {
			sum += k->dlp[t];
			w++;
		}
	return -0.5 * n * ((double)w + sum) - s->o.lambda * (double)(w * (W + 1)) * log(n);
}

/* Split the rows' groups by variable p's values; returns the new number of groups. */
static size_t ls_refine(const fb_lscore *s, fb_lscore_work *w, size_t ng, size_t p)
{
	const uint32_t *c = s->code + p * s->n;
	size_t cells = ng * s->r[p], next = 0;

	for (size_t k = 0; k < cells; k++)
		w->cell[k] = UINT32_MAX;
	for (size_t row = 0; row < s->n; row++) {
		uint32_t *to = &w->cell[w->grp[row] * s->r[p] + c[row]];

		if (*to == UINT32_MAX)
			*to = (uint32_t)next++;
		w->grp[row] = *to;
	}
	return next;
}

/* The structure prior's term for np parents (0 when rho is 0 or there is one variable). */
static double ls_structure(const fb_lscore *s, size_t np)
{
	double m = (double)s->d - 1.0, rho = s->o.structure_prior, t = 0.0;

	if (rho == 0.0 || s->d < 2)
		return 0.0;
	if (np > 0)
		t += (double)np * log(rho / m);
	if ((double)np < m)
		t += (m - (double)np) * log(1.0 - rho / m);
	return t;
}

/* BDeu of X_i given the np parents pa. */
static double ls_bdeu(const fb_lscore *s, fb_lscore_work *w, size_t i, const size_t *pa,
                      size_t np)
{
	size_t ng = 1, r = s->r[i];
	double q = 1.0, score = ls_structure(s, np), a_j, a_jk;
	const uint32_t *c = s->code + i * s->n;

	memset(w->grp, 0, s->n * sizeof *w->grp);
	for (size_t k = 0; k < np; k++) {
		ng = ls_refine(s, w, ng, pa[k]);
		q *= (double)s->r[pa[k]];
	}
	a_j = s->o.ess / q;
	a_jk = s->o.ess / ((double)r * q);
	memset(w->cell, 0, ng * r * sizeof *w->cell);
	for (size_t row = 0; row < s->n; row++)
		w->cell[w->grp[row] * r + c[row]]++;
	for (size_t g = 0; g < ng; g++) {
		double nij = 0.0;

		for (size_t k = 0; k < r; k++) {
			double nijk = w->cell[g * r + k];

			if (nijk > 0)
				score += gsl_sf_lngamma(nijk + a_jk) - gsl_sf_lngamma(a_jk);
			nij += nijk;
		}
		score += gsl_sf_lngamma(a_j) - gsl_sf_lngamma(nij + a_j);
	}
	return score;
}

/* Look up or compute s(i, P) with w's scratch. */
int fb_lscore_get_at(fb_lscore *s, fb_lscore_work *w, size_t i, const size_t *pa, size_t np,
                     double *out, fb_error *err)
{
	ls_node *c = &s->node[i];
	struct ls_slot *slot;
	uint64_t h;

	memset(w->key, 0, s->words * sizeof *w->key);
	for (size_t k = 0; k < np; k++)
		w->key[pa[k] / 64] |= UINT64_C(1) << (pa[k] % 64);
	h = ls_hash(w->key, s->words);
	slot = ls_find(c, w->key, s->words, h);
	if (slot != NULL && slot->key != 0) {
		*out = slot->value;
		return FB_OK;
	}
	*out = s->o.kind == FB_LSCORE_BIC    ? ls_bic(s, w, i, pa, np)
	       : s->o.kind == FB_LSCORE_BDEU ? ls_bdeu(s, w, i, pa, np)
	                                     : ls_dg(s, w, i, pa, np);
	if (*out == -INFINITY)
		return fb_fail(err, "out of memory for a local score");
	c->computed++;
	if (ls_store(c, w->key, s->words, h, *out) != FB_OK)
		return fb_fail(err, "out of memory for the local-score cache");
	return FB_OK;
}

/* Look up or compute s(i, P). */
int fb_lscore_get(fb_lscore *s, size_t i, const size_t *pa, size_t np, double *out,
                  fb_error *err)
{
	return fb_lscore_get_at(s, s->own, i, pa, np, out, err);
}

/* Covariance with divisor n into s->cov; FB_ERR when out of memory. */
static int ls_init_bic(fb_lscore *s)
{
	size_t d = s->d;
	gsl_matrix *X = ci_centred_copy(s->ds);
	gsl_matrix_view C;

	s->cov = malloc(d * d * sizeof *s->cov);
	if (X == NULL || s->cov == NULL) {
		if (X != NULL)
			gsl_matrix_free(X);
		return FB_ERR;
	}
	C = gsl_matrix_view_array(s->cov, d, d);
	gsl_blas_dsyrk(CblasUpper, CblasTrans, 1.0 / (double)s->n, X, 0.0, &C.matrix);
	for (size_t a = 0; a < d; a++)
		for (size_t b = 0; b < a; b++)
			s->cov[a * d + b] = s->cov[b * d + a];
	gsl_matrix_free(X);
	return FB_OK;
}

/* Compare two doubles for qsort. */
static int ls_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Rank of every value of column j among its distinct values into s->code, and their count
 * into s->r[j]; sorted is scratch for n values. */
static void ls_rank_column(fb_lscore *s, size_t j, double *sorted)
{
	size_t r = 0;

	for (size_t row = 0; row < s->n; row++)
		sorted[row] = s->ds->x[row * s->d + j];
	qsort(sorted, s->n, sizeof *sorted, ls_cmp);
	for (size_t row = 0; row < s->n; row++)
		if (row == 0 || sorted[row] != sorted[r - 1])
			sorted[r++] = sorted[row];
	for (size_t row = 0; row < s->n; row++) {
		double x = s->ds->x[row * s->d + j];
		size_t lo = 0, hi = r - 1;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (sorted[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		s->code[j * s->n + row] = (uint32_t)lo;
	}
	s->r[j] = r;
}

/* Value ranks and counts of distinct values; FB_ERR when out of memory. */
static int ls_init_bdeu(fb_lscore *s)
{
	double *sorted = malloc(s->n * sizeof *sorted);

	s->code = malloc(s->n * s->d * sizeof *s->code);
	s->r = calloc(s->d, sizeof *s->r);
	if (sorted == NULL || s->code == NULL || s->r == NULL) {
		free(sorted);
		return FB_ERR;
	}
	for (size_t j = 0; j < s->d; j++) {
		ls_rank_column(s, j, sorted);
		if (s->r[j] > s->rmax)
			s->rmax = s->r[j];
	}
	free(sorted);
	return s->rmax <= SIZE_MAX / sizeof(uint32_t) / s->n ? FB_OK : FB_ERR;
}

/* The degenerate Gaussian embedding of the data; FB_ERR when out of memory or a discrete
 * column holds no level code (the reason in err). */
static int ls_init_dg(fb_lscore *s, fb_error *err)
{
	if ((s->dg = calloc(1, sizeof *s->dg)) == NULL)
		return fb_fail(err, "out of memory for a local score");
	if (dg_embed_init(s->dg, s->ds, err) != FB_OK) {
		free(s->dg);
		s->dg = NULL;
		return FB_ERR;
	}
	return FB_OK;
}

/* Check the settings against the data. */
static int ls_check(const fb_dataset *ds, const fb_lscore_options *o, fb_error *err)
{
	if (ds->n < 2)
		return fb_fail(err, "a local score needs at least 2 rows, the data has %zu", ds->n);
	if (ds->n > UINT32_MAX)
		return fb_fail(err, "a local score handles at most %u rows", UINT32_MAX);
	if (o->kind == FB_LSCORE_BDEU && !(o->ess > 0.0))
		return fb_fail(err, "'ess' must be positive");
	if (o->kind == FB_LSCORE_BDEU && o->structure_prior != 0.0 && ds->d > 1 &&
	    !(o->structure_prior > 0.0 && o->structure_prior < (double)ds->d - 1.0))
		return fb_fail(err, "'structure_prior' must be 0 or between 0 and the number of "
		                    "variables less one (%zu)", ds->d - 1);
	return FB_OK;
}

/* Scratch for computing s's scores; NULL when out of memory. */
static fb_lscore_work *ls_work_new(const fb_lscore *s)
{
	fb_lscore_work *w = calloc(1, sizeof *w);
	bool ok;

	if (w == NULL)
		return NULL;
	w->key = calloc(s->words, sizeof *w->key);
	ok = w->key != NULL;
	if (s->o.kind == FB_LSCORE_BIC) {
		w->m = gsl_matrix_alloc(s->d, s->d);
		w->v = gsl_matrix_alloc(s->d, s->d);
		w->sv = gsl_vector_alloc(s->d);
		w->rhs = gsl_vector_alloc(s->d);
		ok = ok && w->m != NULL && w->v != NULL && w->sv != NULL && w->rhs != NULL;
	} else if (s->o.kind == FB_LSCORE_BDEU) {
		/* groups never outnumber rows, so n * rmax cells serve every map and count */
		w->grp = malloc(s->n * sizeof *w->grp);
		w->cell = malloc(s->n * s->rmax * sizeof *w->cell);
		ok = ok && w->grp != NULL && w->cell != NULL;
	} else {
		w->dskip = calloc(s->dg->D + 1, 1);
		w->dlp = calloc(s->dg->D + 1, sizeof *w->dlp);
		ok = ok && w->dskip != NULL && w->dlp != NULL;
	}
	if (!ok) {
		fb_lscore_work_free(w);
		return NULL;
	}
	return w;
}

/* Scratch for computing s's scores on another thread. */
fb_lscore_work *fb_lscore_work_alloc(const fb_lscore *s, fb_error *err)
{
	fb_lscore_work *w = ls_work_new(s);

	if (w == NULL)
		fb_fail(err, "out of memory for a local score's scratch");
	return w;
}

/* Free a work (NULL is fine). */
void fb_lscore_work_free(fb_lscore_work *w)
{
	if (w == NULL)
		return;
	free(w->key);
	if (w->m != NULL)
		gsl_matrix_free(w->m);
	if (w->v != NULL)
		gsl_matrix_free(w->v);
	if (w->sv != NULL)
		gsl_vector_free(w->sv);
	if (w->rhs != NULL)
		gsl_vector_free(w->rhs);
	free(w->grp);
	free(w->cell);
	dg_work_release(&w->dgw);
	free(w->dskip);
	free(w->dlp);
	free(w);
}

/* Build a local score over ds. */
fb_lscore *fb_lscore_alloc(const fb_dataset *ds, const fb_lscore_options *o, fb_error *err)
{
	fb_lscore *s;
	int ret;

	if (ls_check(ds, o, err) != FB_OK)
		return NULL;
	s = calloc(1, sizeof *s);
	if (s == NULL) {
		fb_fail(err, "out of memory for a local score");
		return NULL;
	}
	s->ds = ds;
	s->o = *o;
	s->n = ds->n;
	s->d = ds->d;
	s->words = ds->d > 0 ? (ds->d + 63) / 64 : 1;
	s->node = calloc(ds->d + 1, sizeof *s->node);
	ret = s->node != NULL ? FB_OK : FB_ERR;
	if (ret == FB_OK && o->kind == FB_LSCORE_DG && ls_init_dg(s, err) != FB_OK) {
		fb_lscore_free(s);
		return NULL;
	}
	if (ret == FB_OK && o->kind != FB_LSCORE_DG)
		ret = o->kind == FB_LSCORE_BIC ? ls_init_bic(s) : ls_init_bdeu(s);
	if (ret == FB_OK && (s->own = ls_work_new(s)) == NULL)
		ret = FB_ERR;
	if (ret != FB_OK) {
		fb_lscore_free(s);
		fb_fail(err, "out of memory for a local score over %zu rows x %zu variables", ds->n,
		        ds->d);
		return NULL;
	}
	return s;
}

/* Free a local score. */
void fb_lscore_free(fb_lscore *s)
{
	if (s == NULL)
		return;
	free(s->cov);
	free(s->code);
	free(s->r);
	for (size_t i = 0; s->node != NULL && i < s->d; i++) {
		free(s->node[i].slot);
		free(s->node[i].arena);
	}
	free(s->node);
	if (s->dg != NULL)
		dg_embed_release(s->dg);
	free(s->dg);
	fb_lscore_work_free(s->own);
	free(s);
}

/* Cache misses so far. */
size_t fb_lscore_computed(const fb_lscore *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->d; i++)
		n += s->node[i].computed;
	return n;
}
