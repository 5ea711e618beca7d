/* k-means clustering of rows (the row splitter of sum-product network learners): k-means++
 * seeding and Lloyd iterations, the best of several starts, distances from plain sums in
 * column order.  Rows of small integers (level codes) are first collapsed into their
 * distinct rows with multiplicities, so that the iterations cost the distinct rows, and
 * the clusters' sums follow the rows that move; the result is the same, bit for bit, as
 * row by row, because the sums of such rows are exact in any order and grouping. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* One clustering run's state over p distinct rows standing for n rows. */
typedef struct km_state {
	const double *x;  /* p x d distinct rows (the rows themselves when not collapsed) */
	const double *w;  /* p multiplicities (NULL: all 1) */
	const size_t *of; /* n: the distinct row of each row (NULL: row i is row i) */
	size_t n, p, d, k; /* rows, distinct rows, columns, clusters */
	double *c;        /* k x d centres */
	double *xx;       /* p squared norms of the distinct rows */
	double *cc;       /* k squared norms of the centres */
	double *dist;     /* p x k squared distances of the distinct rows to the centres */
	double *bd;       /* p squared distances to the assigned (or nearest) centre */
	double *rowd;     /* n squared distances of the rows (seeding draws a row by them) */
	double *count;    /* k cluster sizes */
	double *sum;      /* k x d sums of the clusters' rows, kept as rows move (rows of small
	                     integers only: their sums are exact), or NULL */
	size_t *label;    /* p cluster of each distinct row */
} km_state;

/* The distinct row of row i. */
static size_t km_of(const km_state *s, size_t i)
{
	return s->of != NULL ? s->of[i] : i;
}

/* Squared norm of the d values at v, summed in order. */
static double sq_norm(const double *v, size_t d)
{
	double out = 0;

	for (size_t t = 0; t < d; t++)
		out += v[t] * v[t];
	return out;
}

/* Squared norms of the first m centres into cc. */
static void km_centre_norms(km_state *s, size_t m)
{
	for (size_t j = 0; j < m; j++)
		s->cc[j] = sq_norm(s->c + j * s->d, s->d);
}

/* Dot products of the 4 distinct rows from x (d columns each) with centres c0 and c1 into
 * a[4] and b[4], each summed over the columns in order: eight independent sums a pass. */
static inline void km_dots4(const double *x, const double *c0, const double *c1, size_t d,
                            double *a, double *b)
{
	const double *x1 = x + d, *x2 = x1 + d, *x3 = x2 + d;
	double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;

	for (size_t t = 0; t < d; t++) {
		a0 += x[t] * c0[t];
		a1 += x1[t] * c0[t];
		a2 += x2[t] * c0[t];
		a3 += x3[t] * c0[t];
		b0 += x[t] * c1[t];
		b1 += x1[t] * c1[t];
		b2 += x2[t] * c1[t];
		b3 += x3[t] * c1[t];
	}
	a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
	b[0] = b0, b[1] = b1, b[2] = b2, b[3] = b3;
}

/* Dot products of distinct row i with centres j and j + 1 (j alone when it is the last)
 * into the row's distances. */
static void km_dots_row(km_state *s, size_t i, size_t j, size_t m)
{
	const double *xi = s->x + i * s->d, *c0 = s->c + j * s->d;
	const double *c1 = j + 1 < m ? c0 + s->d : c0;
	double a = 0, b = 0;

	for (size_t t = 0; t < s->d; t++) {
		a += xi[t] * c0[t];
		b += xi[t] * c1[t];
	}
	s->dist[i * s->k + j] = a;
	if (j + 1 < m)
		s->dist[i * s->k + j + 1] = b;
}

/* Squared distances of every distinct row to the first m centres into dist, as
 * |x|^2 - 2 x.c + |c|^2 (never below 0) with every sum taken over the columns in order,
 * so a row's distance has the same bits wherever it stands; rows four at a time and
 * centres two at a time keep eight sums going at once. */
static void km_distances(km_state *s, size_t m)
{
	size_t d = s->d, k = s->k, i;
	double a[4], b[4];

	km_centre_norms(s, m);
	for (size_t j = 0; j < m; j += 2) {
		const double *c0 = s->c + j * d, *c1 = j + 1 < m ? c0 + d : c0;

		for (i = 0; i + 4 <= s->p; i += 4) {
			km_dots4(s->x + i * d, c0, c1, d, a, b);
			for (size_t r = 0; r < 4; r++) {
				s->dist[(i + r) * k + j] = a[r];
				if (j + 1 < m)
					s->dist[(i + r) * k + j + 1] = b[r];
			}
		}
		for (; i < s->p; i++)
			km_dots_row(s, i, j, m);
	}
	for (i = 0; i < s->p; i++)
		for (size_t j = 0; j < m; j++) {
			double v = s->xx[i] - 2 * s->dist[i * k + j] + s->cc[j];

			s->dist[i * k + j] = v > 0 ? v : 0;
		}
}

/* k-means++ seeding: the first centre a uniform row, each next one a row drawn with
 * probability proportional to its squared distance to the nearest centre so far. */
static void km_seed(km_state *s, gsl_rng *r)
{
	size_t pick = fb_rng_index(r, s->n);

	memcpy(s->c, s->x + km_of(s, pick) * s->d, s->d * sizeof *s->c);
	for (size_t m = 1; m < s->k; m++) {
		km_distances(s, m);
		for (size_t i = 0; i < s->p; i++) {
			s->bd[i] = INFINITY;
			for (size_t j = 0; j < m; j++)
				s->bd[i] = fmin(s->bd[i], s->dist[i * s->k + j]);
		}
		for (size_t i = 0; i < s->n; i++)
			s->rowd[i] = s->bd[km_of(s, i)];
		pick = fb_circuit_draw_index(s->rowd, NULL, s->n, r);
		memcpy(s->c + m * s->d, s->x + km_of(s, pick) * s->d, s->d * sizeof *s->c);
	}
}

/* Move distinct row i (all its copies) from cluster from (SIZE_MAX: none) to cluster to
 * in the exact sums and counts. */
static void km_move(km_state *s, size_t i, size_t from, size_t to)
{
	const double *xi = s->x + i * s->d;
	double w = s->w != NULL ? s->w[i] : 1;

	if (from != SIZE_MAX) {
		s->count[from] -= w;
		for (size_t t = 0; t < s->d; t++)
			s->sum[from * s->d + t] -= w * xi[t];
	}
	s->count[to] += w;
	for (size_t t = 0; t < s->d; t++)
		s->sum[to * s->d + t] += w * xi[t];
}

/* Assign every distinct row to its nearest centre (the first on ties); returns the rows
 * that changed cluster. */
static double km_assign(km_state *s)
{
	double changed = 0;

	km_distances(s, s->k);
	for (size_t i = 0; i < s->p; i++) {
		const double *di = s->dist + i * s->k;
		size_t best = 0;
		double bd = di[0];

		for (size_t j = 1; j < s->k; j++)
			if (di[j] < bd) {
				bd = di[j];
				best = j;
			}
		if (s->label[i] != best) {
			changed += s->w != NULL ? s->w[i] : 1;
			if (s->sum != NULL)
				km_move(s, i, s->label[i], best);
		}
		s->label[i] = best;
		s->bd[i] = bd;
	}
	return changed;
}

/* The inertia of the assignment: the rows' squared distances summed in row order. */
static double km_inertia(const km_state *s)
{
	double v = 0;

	for (size_t i = 0; i < s->n; i++)
		v += s->bd[km_of(s, i)];
	return v;
}

/* Divide the centres' sums in c by their counts; an empty cluster takes the row farthest
 * from its own centre. */
static void km_means(km_state *s)
{
	for (size_t j = 0; j < s->k; j++) {
		if (s->count[j] == 0) {
			size_t far = 0;

			/* distinct rows are numbered by first appearance: the first maximum is the
			 * first farthest row */
			for (size_t i = 1; i < s->p; i++)
				if (s->bd[i] > s->bd[far])
					far = i;
			memcpy(s->c + j * s->d, s->x + far * s->d, s->d * sizeof *s->c);
			continue;
		}
		for (size_t t = 0; t < s->d; t++)
			s->c[j * s->d + t] /= s->count[j];
	}
}

/* Move every centre to the mean of its rows; an empty cluster takes the row farthest from
 * its own centre (the first such row).  Rows of small integers keep their clusters' sums
 * up to date as rows move (exact, so the same as summing afresh); other rows are summed
 * afresh. */
static void km_update(km_state *s)
{
	if (s->sum != NULL) {
		memcpy(s->c, s->sum, s->k * s->d * sizeof *s->c);
		km_means(s);
		return;
	}
	memset(s->c, 0, s->k * s->d * sizeof *s->c);
	memset(s->count, 0, s->k * sizeof *s->count);
	for (size_t i = 0; i < s->p; i++) { /* rows not collapsed: no multiplicities */
		double *restrict c = s->c + s->label[i] * s->d;
		const double *restrict xi = s->x + i * s->d;

		s->count[s->label[i]] += 1;
		for (size_t t = 0; t < s->d; t++)
			c[t] += xi[t];
	}
	km_means(s);
}

/* One seeded run of Lloyd's iterations until no row moves (or max_iter); its inertia. */
static double km_run(km_state *s, size_t max_iter, gsl_rng *r)
{
	km_seed(s, r);
	for (size_t i = 0; i < s->p; i++)
		s->label[i] = SIZE_MAX;
	if (s->sum != NULL) {
		memset(s->sum, 0, s->k * s->d * sizeof *s->sum);
		memset(s->count, 0, s->k * sizeof *s->count);
	}
	for (size_t it = 0; it < max_iter; it++) {
		if (km_assign(s) == 0)
			break;
		km_update(s);
	}
	return max_iter > 0 ? km_inertia(s) : INFINITY;
}

/* Renumber the clusters in the order their first rows appear. */
static void km_canonical(size_t *label, size_t n, size_t k, size_t *map)
{
	size_t next = 0;

	for (size_t j = 0; j < k; j++)
		map[j] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (map[label[i]] == SIZE_MAX)
			map[label[i]] = next++;
		label[i] = map[label[i]];
	}
}

/* Free the state's arrays. */
static void km_release(km_state *s)
{
	free(s->c);
	free(s->sum);
	free(s->xx);
	free(s->cc);
	free(s->dist);
	free(s->bd);
	free(s->rowd);
	free(s->count);
	free(s->label);
}

/* Allocate the state's arrays for p distinct rows (and the clusters' sums when the rows
 * are integral); FB_ERR on out of memory. */
static int km_alloc(km_state *s, int integral)
{
	s->c = malloc(s->k * s->d * sizeof *s->c);
	s->xx = malloc(s->p * sizeof *s->xx);
	s->sum = integral ? malloc(s->k * s->d * sizeof *s->sum) : NULL;
	s->cc = malloc(s->k * sizeof *s->cc);
	s->dist = malloc(s->p * s->k * sizeof *s->dist);
	s->bd = malloc(s->p * sizeof *s->bd);
	s->rowd = malloc(s->n * sizeof *s->rowd);
	s->count = malloc(s->k * sizeof *s->count);
	s->label = malloc(s->p * sizeof *s->label);
	if (s->c == NULL || (integral && s->sum == NULL) || s->xx == NULL || s->cc == NULL ||
	    s->dist == NULL || s->bd == NULL || s->rowd == NULL || s->count == NULL ||
	    s->label == NULL)
		return FB_ERR;
	for (size_t i = 0; i < s->p; i++)
		s->xx[i] = sq_norm(s->x + i * s->d, s->d);
	return FB_OK;
}

/* The best of n_init runs on the state: each row's cluster into label, inertia into
 * *inertia. */
static void km_best(km_state *s, size_t n_init, size_t max_iter, gsl_rng *r, size_t *label,
                    double *inertia)
{
	double best = INFINITY;

	for (size_t run = 0; run < n_init; run++) {
		double v = km_run(s, max_iter, r);

		if (v < best || run == 0) {
			best = v;
			for (size_t i = 0; i < s->n; i++)
				label[i] = s->label[km_of(s, i)];
		}
	}
	*inertia = best;
}

/* Cluster n rows into k clusters: the best of n_init k-means++ runs. */
int fb_kmeans(const double *x, size_t n, size_t d, size_t k, size_t n_init, size_t max_iter,
              gsl_rng *r, size_t *label, double *inertia, fb_error *err)
{
	km_state s = { .x = x, .n = n, .p = n, .d = d, .k = k };
	fb_distinct_rows u = { 0 };
	double best;
	int rc = FB_OK, integral;

	if (k == 0 || d == 0 || n < k || n_init == 0)
		return fb_fail(err, "k-means needs 1 <= k <= rows, at least one column and one "
		                    "start (k = %zu, %zu rows, %zu columns)", k, n, d);
	integral = fb_rows_integral(x, n, d);
	if (integral && fb_distinct_rows_find(x, n, d, &u) == FB_OK && u.p >= k) {
		s.x = u.x;
		s.w = u.w;
		s.of = u.of;
		s.p = u.p;
	}
	if (km_alloc(&s, integral) != FB_OK) {
		rc = fb_fail(err, "out of memory for k-means of %zu rows", n);
		goto out;
	}
	km_best(&s, n_init, max_iter, r, label, &best);
	km_canonical(label, n, k, s.label); /* the run's labels are spent: reuse as map */
	if (inertia != NULL)
		*inertia = best;
out:
	km_release(&s);
	fb_distinct_rows_free(&u);
	return rc;
}
