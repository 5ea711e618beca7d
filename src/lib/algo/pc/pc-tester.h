/* How PC's tests are asked when independent ones may run on several threads (inside the
 * algo folder only).  Work is cut into items (a vertex of a skeleton level, a collider
 * candidate); each helper thread computes the tests of its items and records their answers
 * in the order asked; then the items are run once more, in order, on the caller's thread,
 * taking the recorded answers (fb_ci_record), so that the results, the cache and the counters
 * are those of one thread. */
#ifndef FEDBN_PC_TESTER_H
#define FEDBN_PC_TESTER_H

#include "fedbn/ci.h"

/* The answers of one item's tests, in the order asked. */
typedef struct pc_answers {
	fb_ci_result *r; /* n answers (cap allocated) */
	size_t n, cap;   /* answers and room */
} pc_answers;

/* Where an item's tests go. */
typedef struct pc_tester {
	fb_ci *ci;          /* the object that tests (or takes the recorded answers) */
	pc_answers *rec;    /* NULL: test on ci; else the item's answers */
	bool replay;        /* with rec: take the answers from rec (else compute and record) */
	size_t pos;         /* replay: the next answer */
} pc_tester;

/* Test x _||_ y | S through t. */
int pc_tester_test(pc_tester *t, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res, fb_error *err);
/* When t only records: leave the coming test to the replay, which asks ci then (for a test
 * an earlier item asks, which ci's cache then holds); FB_ERR when out of memory. */
int pc_tester_later(pc_tester *t, fb_error *err);
/* Whether t only records (an item's effects must then wait for its replay). */
bool pc_tester_recording(const pc_tester *t);

/* Run item(ctx, t, k) for k in [0, n): on ci alone when it has no helpers, else computed on
 * the helpers' threads, each taking the next item left, and replayed in order on ci by the
 * calling thread as they are done (it computes items too while the next is not ready). */
int pc_items_run(fb_ci *ci, size_t n, int (*item)(void *ctx, pc_tester *t, size_t k,
                                                  fb_error *err),
                 void *ctx, fb_error *err);

/* Run item(ctx, ci_t, t, k) for k in [0, n) on the helpers' threads (thread t on helper t,
 * items t, t + nt, ...; the calling thread takes the last), then move the helpers' counters
 * into ci.  Items must not depend on each other.  FB_ERR with the reason of the first
 * thread that failed. */
int pc_split_run(fb_ci *ci, size_t n,
                 int (*item)(void *ctx, fb_ci *ci, size_t t, size_t k, fb_error *err),
                 void *ctx, fb_error *err);

#endif
