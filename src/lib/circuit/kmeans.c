/* k-means clustering of rows (the row splitter of sum-product network learners): k-means++
 * seeding, Lloyd iterations with distances through BLAS, the best of several starts. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>

#include "fedbn/circuit.h"
#include "circuit-private.h"

/* One clustering run's state. */
typedef struct km_state {
	const double *x;  /* n x d rows */
	size_t n, d, k;   /* rows, columns, clusters */
	double *xx;       /* n squared row norms */
	double *c;        /* k x d centres */
	double *dots;     /* n x k row-centre dot products */
	double *cc;       /* k squared centre norms, from the same centres as dots */
	double *dist;     /* n squared distances to the nearest centre (seeding) */
	double *count;    /* k cluster sizes */
	size_t *label;    /* n cluster of each row */
} km_state;

/* Squared distance of row i to centre j from the dot products (never below 0). */
static double km_dist(const km_state *s, size_t i, size_t j)
{
	double v = s->xx[i] - 2 * s->dots[i * s->k + j] + s->cc[j];

	return v > 0 ? v : 0;
}

/* Squared norm of the d values at v. */
static double sq_norm(const double *v, size_t d)
{
	gsl_vector_const_view vv = gsl_vector_const_view_array(v, d);
	double out;

	gsl_blas_ddot(&vv.vector, &vv.vector, &out);
	return out;
}

/* Dot products of every row with the first m centres and their norms: one BLAS
 * matrix-vector product per centre (with two centres a matrix product would copy the rows
 * into its packed form on every call, which costs more than the product). */
static void km_dots(km_state *s, size_t m)
{
	gsl_matrix_const_view xv = gsl_matrix_const_view_array(s->x, s->n, s->d);

	for (size_t j = 0; j < m; j++) {
		gsl_vector_const_view cv = gsl_vector_const_view_array(s->c + j * s->d, s->d);
		gsl_vector_view dv = gsl_vector_view_array_with_stride(s->dots + j, s->k, s->n);

		gsl_blas_dgemv(CblasNoTrans, 1.0, &xv.matrix, &cv.vector, 0.0, &dv.vector);
		s->cc[j] = sq_norm(s->c + j * s->d, s->d);
	}
}

/* k-means++ seeding: the first centre a uniform row, each next one a row drawn with
 * probability proportional to its squared distance to the nearest centre so far. */
static void km_seed(km_state *s, gsl_rng *r)
{
	memcpy(s->c, s->x + fb_rng_index(r, s->n) * s->d, s->d * sizeof *s->c);
	for (size_t m = 1; m < s->k; m++) {
		size_t pick;

		km_dots(s, m);
		for (size_t i = 0; i < s->n; i++) {
			s->dist[i] = INFINITY;
			for (size_t j = 0; j < m; j++)
				s->dist[i] = fmin(s->dist[i], km_dist(s, i, j));
		}
		pick = fb_circuit_draw_index(s->dist, NULL, s->n, r);
		memcpy(s->c + m * s->d, s->x + pick * s->d, s->d * sizeof *s->c);
	}
}

/* Assign every row to its nearest centre (the first on ties); returns the rows that
 * changed cluster and the inertia in *inertia. */
static size_t km_assign(km_state *s, double *inertia)
{
	size_t changed = 0;

	km_dots(s, s->k);
	*inertia = 0;
	for (size_t i = 0; i < s->n; i++) {
		size_t best = 0;
		double bd = km_dist(s, i, 0);

		for (size_t j = 1; j < s->k; j++) {
			double dj = km_dist(s, i, j);

			if (dj < bd) {
				bd = dj;
				best = j;
			}
		}
		changed += s->label[i] != best;
		s->label[i] = best;
		*inertia += bd;
	}
	return changed;
}

/* Move every centre to the mean of its rows; an empty cluster takes the row farthest from
 * its own centre. */
static void km_update(km_state *s)
{
	memset(s->c, 0, s->k * s->d * sizeof *s->c);
	memset(s->count, 0, s->k * sizeof *s->count);
	for (size_t i = 0; i < s->n; i++) {
		s->count[s->label[i]] += 1;
		for (size_t t = 0; t < s->d; t++)
			s->c[s->label[i] * s->d + t] += s->x[i * s->d + t];
	}
	for (size_t j = 0; j < s->k; j++) {
		if (s->count[j] == 0) {
			size_t far = 0;

			for (size_t i = 1; i < s->n; i++)
				if (km_dist(s, i, s->label[i]) > km_dist(s, far, s->label[far]))
					far = i;
			memcpy(s->c + j * s->d, s->x + far * s->d, s->d * sizeof *s->c);
			continue;
		}
		for (size_t t = 0; t < s->d; t++)
			s->c[j * s->d + t] /= s->count[j];
	}
}

/* One seeded run of Lloyd's iterations until no row moves (or max_iter); its inertia. */
static double km_run(km_state *s, size_t max_iter, gsl_rng *r)
{
	double inertia = INFINITY;

	km_seed(s, r);
	for (size_t i = 0; i < s->n; i++)
		s->label[i] = SIZE_MAX;
	for (size_t it = 0; it < max_iter; it++) {
		if (km_assign(s, &inertia) == 0)
			break;
		km_update(s);
	}
	return inertia;
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
	free(s->xx);
	free(s->c);
	free(s->dots);
	free(s->cc);
	free(s->dist);
	free(s->count);
	free(s->label);
}

/* Cluster n rows into k clusters: the best of n_init k-means++ runs. */
int fb_kmeans(const double *x, size_t n, size_t d, size_t k, size_t n_init, size_t max_iter,
              gsl_rng *r, size_t *label, double *inertia, fb_error *err)
{
	km_state s = { .x = x, .n = n, .d = d, .k = k };
	double best = INFINITY;

	if (k == 0 || d == 0 || n < k || n_init == 0)
		return fb_fail(err, "k-means needs 1 <= k <= rows, at least one column and one "
		                    "start (k = %zu, %zu rows, %zu columns)", k, n, d);
	s.xx = malloc(n * sizeof *s.xx);
	s.c = malloc(k * d * sizeof *s.c);
	s.dots = malloc(n * k * sizeof *s.dots);
	s.cc = malloc(k * sizeof *s.cc);
	s.dist = malloc(n * sizeof *s.dist);
	s.count = malloc(k * sizeof *s.count);
	s.label = malloc(n * sizeof *s.label);
	if (s.xx == NULL || s.c == NULL || s.dots == NULL || s.cc == NULL || s.dist == NULL || s.count == NULL ||
	    s.label == NULL) {
		km_release(&s);
		return fb_fail(err, "out of memory for k-means of %zu rows", n);
	}
	for (size_t i = 0; i < n; i++)
		s.xx[i] = sq_norm(x + i * d, d);
	for (size_t run = 0; run < n_init; run++) {
		double v = km_run(&s, max_iter, r);

		if (v < best) {
			best = v;
			memcpy(label, s.label, n * sizeof *label);
		}
	}
	km_canonical(label, n, k, s.label); /* the run's labels are spent: reuse as map */
	if (inertia != NULL)
		*inertia = best;
	km_release(&s);
	return FB_OK;
}
