/* What the unit tests of networks share: where the source tree is, and a check of a number
 * against a tolerance that names the caller's line (header-only, for tests/unit; include
 * after cmocka.h). */
#ifndef FEDBN_TEST_NEAR_H
#define FEDBN_TEST_NEAR_H

#include <math.h>
#include <stdlib.h>

/* Where the source tree is (the harness sets top_srcdir). */
static const char *top(void)
{
	const char *t = getenv("top_srcdir");

	return t != NULL ? t : ".";
}

/* Fail unless |a - b| <= tol. */
#define assert_near(a, b, tol) near_check((a), (b), (tol), __FILE__, __LINE__)

/* The check behind assert_near, naming the caller's line. */
static void near_check(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("ERROR: %.17g differs from %.17g by more than %g\n", a, b, tol);
		_fail(file, line);
	}
}

#endif
