/* What the circuit module's files share and nobody else sees. */
#ifndef FEDBN_CIRCUIT_PRIVATE_H
#define FEDBN_CIRCUIT_PRIVATE_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

/* An index drawn from n non-negative masses (mass i = p[i] times the width of bin i when
 * breaks is not NULL, p[i] otherwise) by inverting their cumulative sum at one uniform draw
 * from r; zero masses are never drawn. */
size_t fb_circuit_draw_index(const double *p, const double *breaks, size_t n, gsl_rng *r);

/* fb_circuit_check that also says which node is at fault: *bad receives its id, or
 * SIZE_MAX when the fault is the circuit's as a whole. */
struct fb_circuit;
struct fb_error;
int fb_circuit_check_at(const struct fb_circuit *c, size_t *bad, struct fb_error *err);
/* FB_OK when the root's scope holds every variable of the (checked, non-empty) circuit,
 * else FB_ERR with the variables that no leaf models (a file cut short). */
int fb_circuit_check_whole(const struct fb_circuit *c, struct fb_error *err);

/* The G-test's p-value (G into *g, may be NULL) of the la x lb contingency table t of n
 * rows, with (levels seen - 1) products of degrees of freedom (p-value 1 below two levels
 * seen on a side); t must have room for la + lb more numbers after the table. */
double fb_gtest_table(double *t, size_t la, size_t lb, double n, double *g);

/* The distinct rows of an n x d matrix with their counts, and each row's distinct row. */
typedef struct fb_distinct_rows {
	double *x;   /* p x d distinct rows, in order of first appearance */
	double *w;   /* p counts */
	size_t *of;  /* n: each row's distinct row */
	size_t p;    /* distinct rows */
	size_t cap;  /* room in x and w */
} fb_distinct_rows;

/* 1 when every value of x (n x d) is an integer small enough that sums of n of them are
 * exact, so that rows may be added and taken away in any grouping with the same result. */
int fb_rows_integral(const double *x, size_t n, size_t d);
/* Fill u (zeroed) with the distinct rows of x (fb_rows_integral) when there are at most
 * n / 2 of them (so collapsing pays; the search gives up early when nearly all of the first
 * thousand rows differ); FB_ERR otherwise, or on out of memory, and u must still be
 * freed. */
int fb_distinct_rows_find(const double *x, size_t n, size_t d, fb_distinct_rows *u);
/* Free what u holds. */
void fb_distinct_rows_free(fb_distinct_rows *u);

/* How many rows ahead the loops that gather a slice's scattered rows ask for them. */
#define FB_CIRCUIT_AHEAD 16

/* Ask the processor early for the value at v (one that a gathering loop will read
 * FB_CIRCUIT_AHEAD rows later). */
static inline void fb_circuit_prefetch(const double *v)
{
#if defined(__GNUC__)
	__builtin_prefetch(v);
#else
	(void)v;
#endif
}

#endif
