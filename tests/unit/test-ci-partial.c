/* Unit tests of Fisher-z's partial correlation (ci-partial.c): against the route through
 * GSL's Cholesky factor of the whole sub-matrix over (S, x, y) for conditioning sets of 1 to
 * 8 variables, and the same bits whatever query came before (what the memo keeps). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#include "fedbn/ci.h"
#include "fedbn/pc.h"

/* Columns of the test data. */
#define TP_D 14
/* Rows of the test data. */
#define TP_N 200

/* TP_N rows of TP_D columns, each a mix of uniform noise and the two before it (seeded LCG). */
static fb_dataset *chain_data(void)
{
	fb_dataset *ds = fb_dataset_alloc(TP_N, TP_D);
	uint64_t r = 2024;

	assert_non_null(ds);
	for (size_t i = 0; i < TP_N; i++)
		for (size_t j = 0; j < TP_D; j++) {
			double *x = ds->x + i * TP_D;

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			x[j] = (double)(r >> 11) / 9007199254740992.0 - 0.5;
			if (j > 0)
				x[j] += 0.4 * x[j - 1];
			if (j > 1)
				x[j] -= 0.3 * x[j - 2];
		}
	return ds;
}

/* r of x, y given S through GSL: Cholesky of the sub-matrix over (S, x, y) of the
 * correlations (read back as p-values of the empty set would not give them: from R). */
static double gsl_partial(const double *R, size_t x, size_t y, const size_t *S, size_t ns)
{
	size_t k = ns + 2, idx[TP_D];
	gsl_matrix *M = gsl_matrix_alloc(k, k);
	double b, c;

	for (size_t a = 0; a < ns; a++)
		idx[a] = S[a];
	idx[ns] = x;
	idx[ns + 1] = y;
	for (size_t a = 0; a < k; a++)
		for (size_t t = 0; t < k; t++)
			gsl_matrix_set(M, a, t, R[idx[a] * TP_D + idx[t]]);
	assert_int_equal(gsl_linalg_cholesky_decomp1(M), GSL_SUCCESS);
	b = gsl_matrix_get(M, k - 1, k - 2);
	c = gsl_matrix_get(M, k - 1, k - 1);
	gsl_matrix_free(M);
	return b / sqrt(b * b + c * c);
}

/* The correlation matrix of ds, from empty-set tests of an object (r of each pair). */
static void corr_of(fb_ci *ci, double *R)
{
	for (size_t a = 0; a < TP_D; a++)
		for (size_t b = 0; b < TP_D; b++) {
			fb_ci_result res;

			R[a * TP_D + b] = 1.0;
			if (a != b) {
				assert_int_equal(fb_ci_test(ci, a, b, NULL, 0, &res, NULL), FB_OK);
				R[a * TP_D + b] = res.r;
			}
		}
}

/* Every pair (x, y) given every l-subset (l = 1..8) of the other variables in lexicographic
 * order, as PC asks them, on one object (cache off, so every answer is computed): r agrees
 * with GSL's route to 1e-12 relative (1e-15 absolute near 0), and the answer has the same bits as on a new object
 * that saw no query before (so what is kept between queries changes nothing). */
static void test_partial_against_gsl(void **state)
{
	fb_dataset *ds = chain_data();
	fb_ci *kept = fb_ci_alloc(ds, NULL, NULL);
	double R[TP_D * TP_D], worst = 0.0, worst_rel = 0.0;
	size_t count = 0;

	(void)state;
	assert_non_null(kept);
	fb_ci_cache_set(kept, false);
	corr_of(kept, R);
	for (size_t x = 0; x < TP_D; x += 3)
		for (size_t y = x + 1; y < TP_D; y += 4)
			for (size_t l = 1; l <= 8; l++) {
				size_t cand[TP_D], m = 0, comb[8], S[8];
				bool more = true;

				for (size_t v = 0; v < TP_D; v++)
					if (v != x && v != y)
						cand[m++] = v;
				for (size_t k = 0; k < l; k++)
					comb[k] = k;
				for (; more; more = fb_pc_subset_next(comb, l, m)) {
					fb_ci_result a, b;
					fb_ci *fresh;
					double want;

					for (size_t k = 0; k < l; k++)
						S[k] = cand[comb[k]];
					/* y before x on every other set: the roles of the kept solves swap */
					assert_int_equal(fb_ci_test(kept, count % 2 ? y : x, count % 2 ? x : y,
					                            S, l, &a, NULL), FB_OK);
					want = gsl_partial(R, x, y, S, l);
					worst = fmax(worst, fabs(a.r - want));
					worst_rel = fmax(worst_rel, fabs(a.r - want) / fabs(want));
					/* near r = 0 the numerator cancels: an absolute 1e-15 there */
					assert_true(fabs(a.r - want) <= 1e-15 + 1e-12 * fabs(want));
					if (count++ % 37 != 0)
						continue;
					fresh = fb_ci_alloc(ds, NULL, NULL);
					assert_int_equal(fb_ci_test(fresh, x, y, S, l, &b, NULL), FB_OK);
					assert_memory_equal(&a.r, &b.r, sizeof a.r);
					assert_memory_equal(&a.p, &b.p, sizeof a.p);
					fb_ci_free(fresh);
				}
			}
	print_message("%zu tests: r differs from GSL's route by at most %.3g (relative %.3g)\n",
	              count, worst, worst_rel);
	fb_ci_free(kept);
	fb_dataset_free(ds);
}

/* A conditioning set whose factor fails part-way (a duplicated column), then sets that share
 * its prefix up to the failure: those are computed as on a new object. */
static void test_partial_after_singular(void **state)
{
	fb_dataset *ds = chain_data(), *dup = fb_dataset_alloc(TP_N, TP_D + 1);
	fb_ci *ci, *fresh;
	size_t S1[3] = { 2, 3, TP_D }, S2[3] = { 2, 3, 5 };
	fb_ci_result a, b;

	(void)state;
	assert_non_null(dup);
	for (size_t i = 0; i < TP_N; i++) {
		memcpy(dup->x + i * (TP_D + 1), ds->x + i * TP_D, TP_D * sizeof *ds->x);
		dup->x[i * (TP_D + 1) + TP_D] = ds->x[i * TP_D + 3]; /* column 3 again */
	}
	ci = fb_ci_alloc(dup, NULL, NULL);
	fresh = fb_ci_alloc(dup, NULL, NULL);
	assert_int_equal(fb_ci_test(ci, 0, 1, S1, 3, &a, NULL), FB_OK);
	assert_true(a.flags & FB_CI_SINGULAR);
	assert_int_equal(fb_ci_test(ci, 0, 1, S2, 3, &a, NULL), FB_OK);
	assert_int_equal(fb_ci_test(fresh, 0, 1, S2, 3, &b, NULL), FB_OK);
	assert_false(a.flags & FB_CI_SINGULAR);
	assert_memory_equal(&a.r, &b.r, sizeof a.r);
	fb_ci_free(ci);
	fb_ci_free(fresh);
	fb_dataset_free(dup);
	fb_dataset_free(ds);
}

/* The chain data with column 4 a copy of column 3 (in the same bits). */
static fb_dataset *copy_data(void)
{
	fb_dataset *ds = chain_data();

	for (size_t i = 0; i < TP_N; i++)
		ds->x[i * TP_D + 4] = ds->x[i * TP_D + 3];
	return ds;
}

/* Whether S (ns variables) holds both v and w. */
static bool holds_both(const size_t *S, size_t ns, size_t v, size_t w)
{
	bool a = false, b = false;

	for (size_t k = 0; k < ns; k++) {
		a = a || S[k] == v;
		b = b || S[k] == w;
	}
	return a && b;
}

/* Query the pair (x, y) given every l-subset (l = 1..4) of the other variables: a set that
 * holds both copies, or one copy when the other is x or y, is singular (a pivot of the
 * factor, or 1 - u.u / 1 - v.v, within rounding of 0 whatever BLAS kernel made R), and no
 * other set is.  Returns the number of singular ones. */
static size_t copies_singular(fb_ci *ci, size_t x, size_t y)
{
	size_t cand[TP_D], m = 0, singular = 0;

	for (size_t v = 0; v < TP_D; v++)
		if (v != x && v != y)
			cand[m++] = v;
	for (size_t l = 1; l <= 4; l++) {
		size_t comb[4], S[6];
		bool more = true;

		for (size_t k = 0; k < l; k++)
			comb[k] = k;
		for (; more; more = fb_pc_subset_next(comb, l, m)) {
			fb_ci_result res;
			bool want;

			for (size_t k = 0; k < l; k++)
				S[k] = cand[comb[k]];
			S[l] = x;
			S[l + 1] = y;
			want = holds_both(S, l + 2, 3, 4);
			assert_int_equal(fb_ci_test(ci, x, y, S, l, &res, NULL), FB_OK);
			if (want != ((res.flags & FB_CI_SINGULAR) != 0))
				print_error("x %zu y %zu l %zu first %zu: singular %d\n", x, y, l, S[0],
				            want);
			assert_int_equal(want, (res.flags & FB_CI_SINGULAR) != 0);
			singular += want;
		}
	}
	return singular;
}

/* A duplicated column makes every set that holds both copies singular under every OpenBLAS
 * kernel (R's entries differ in their last bits between kernels: under the generic one the
 * pivot of the copy came out 2 ulps above 0), at every position of the factor and in the last
 * step (x or y a copy), and no other set. */
static void test_copies_singular(void **state)
{
	fb_dataset *ds = copy_data();
	fb_ci *ci = fb_ci_alloc(ds, NULL, NULL);

	(void)state;
	assert_non_null(ci);
	fb_ci_cache_set(ci, false);
	assert_int_equal(copies_singular(ci, 0, 1), 56);
	assert_int_equal(copies_singular(ci, 4, 7), 232);
	assert_int_equal(copies_singular(ci, 2, 3), 232);
	fb_ci_free(ci);
	fb_dataset_free(ds);
}

/* Run the tests. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial_against_gsl),
		cmocka_unit_test(test_partial_after_singular),
		cmocka_unit_test(test_copies_singular),
	};

	fb_gsl_install_handler();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
