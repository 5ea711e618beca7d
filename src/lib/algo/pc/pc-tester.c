/* PC's independent tests on several threads with the results of one (pc-tester.h). */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "pc-tester.h"

/* What the threads of one pc_items_run share. */
typedef struct items_run {
	size_t n;              /* items */
	size_t next;           /* the next item to take (taken atomically) */
	unsigned char *state;  /* n: ITEM_OPEN, ITEM_RECORDED or ITEM_FAILED (stored with
	                          release, so a recorded item's answers are there to read) */
	bool stop;             /* the replay ended early: take no more */
	pc_answers *ans;       /* n: every item's answers */
	int (*item)(void *, pc_tester *, size_t, fb_error *); /* the item */
	void *ctx;             /* its context */
} items_run;

/* An item's state. */
enum { ITEM_OPEN, ITEM_RECORDED, ITEM_FAILED };

/* What one thread of pc_items_run works with: the calling thread leads (replays), the
 * others record. */
typedef struct items_work {
	items_run *run; /* what the threads share */
	fb_ci *ci;      /* its test object: the replay's for the lead, else a helper */
	fb_ci *own;     /* the lead: the helper it records items on */
	bool lead;      /* the calling thread */
	int ret;        /* the lead: FB_OK, or FB_ERR with err */
	fb_error *err;  /* the lead: where a failure is told */
} items_work;

/* Whether t only records. */
bool pc_tester_recording(const pc_tester *t)
{
	return t->rec != NULL && !t->replay;
}

/* Add an answer to an item's list; FB_ERR when out of memory. */
static int answers_push(pc_answers *a, const fb_ci_result *res, fb_error *err)
{
	if (a->n == a->cap) {
		size_t cap = a->cap > 0 ? 2 * a->cap : 64;
		fb_ci_result *r = realloc(a->r, cap * sizeof *r);

		if (r == NULL)
			return fb_fail(err, "out of memory for the answers of %zu tests", cap);
		a->r = r;
		a->cap = cap;
	}
	a->r[a->n++] = *res;
	return FB_OK;
}

/* The p-value that marks a recorded answer left to the replay (pc_tester_later). */
#define TESTER_LATER (-1.0)

/* Leave the coming test to the replay: record a mark in its place. */
int pc_tester_later(pc_tester *t, fb_error *err)
{
	fb_ci_result res = { .p = TESTER_LATER };

	return answers_push(t->rec, &res, err);
}

/* Test x _||_ y | S through t. */
int pc_tester_test(pc_tester *t, size_t x, size_t y, const size_t *S, size_t ns,
                   fb_ci_result *res, fb_error *err)
{
	if (t->rec == NULL)
		return fb_ci_test(t->ci, x, y, S, ns, res, err);
	if (!t->replay) {
		if (fb_ci_test(t->ci, x, y, S, ns, res, err) != FB_OK)
			return FB_ERR;
		return answers_push(t->rec, res, err);
	}
	if (t->pos >= t->rec->n)
		return fb_fail(err, "a replayed item asked more tests than it recorded");
	*res = t->rec->r[t->pos++];
	if (res->p == TESTER_LATER) /* asked by an earlier item: ci has it, or computes it */
		return fb_ci_test(t->ci, x, y, S, ns, res, err);
	res->flags &= ~(unsigned)FB_CI_CACHED;
	return fb_ci_record(t->ci, x, y, S, ns, res, err);
}

/* Take the next item and record its answers on ci; false when none is left. */
static bool items_take(items_run *r, fb_ci *ci)
{
	size_t k;
	pc_tester t = { ci, NULL, false, 0 };
	fb_error e = { "" }; /* a failure is met again on the replay's object, and told there */
	int ret;

	if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		return false;
	k = __atomic_fetch_add(&r->next, 1, __ATOMIC_RELAXED);
	if (k >= r->n)
		return false;
	t.rec = &r->ans[k];
	ret = r->item(r->ctx, &t, k, &e);
	__atomic_store_n(&r->state[k], ret == FB_OK ? ITEM_RECORDED : ITEM_FAILED,
	                 __ATOMIC_RELEASE);
	return true;
}

/* Run the items in order on ci alone. */
static int items_serial(fb_ci *ci, size_t n,
                        int (*item)(void *, pc_tester *, size_t, fb_error *), void *ctx,
                        fb_error *err)
{
	for (size_t k = 0; k < n; k++) {
		pc_tester t = { ci, NULL, false, 0 };

		if (item(ctx, &t, k, err) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* The calling thread: replay the items in order on ci as they are recorded, recording
 * items on own while the next to replay is not ready.  From an item that failed on, the
 * items run on ci alone, which meets the failure as one thread would. */
static int items_lead(items_run *r, fb_ci *ci, fb_ci *own, fb_error *err)
{
	int ret = FB_OK;

	for (size_t k = 0; k < r->n && ret == FB_OK;) {
		unsigned char st = __atomic_load_n(&r->state[k], __ATOMIC_ACQUIRE);
		pc_tester t = { ci, &r->ans[k], true, 0 };

		if (st == ITEM_RECORDED) {
			ret = r->item(r->ctx, &t, k, err);
			free(r->ans[k].r);
			r->ans[k] = (pc_answers){ NULL, 0, 0 };
			k++;
		} else if (st == ITEM_FAILED) {
			__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
			for (; k < r->n && ret == FB_OK; k++) {
				t.rec = NULL;
				ret = r->item(r->ctx, &t, k, err);
			}
		} else if (!items_take(r, own)) {
			sched_yield(); /* the next is on another thread */
		}
	}
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	return ret;
}

/* One thread of pc_items_run: the lead replays (items_lead), a helper records items until
 * none is left. */
static void *items_thread(void *arg)
{
	items_work *w = arg;

	if (w->lead)
		w->ret = items_lead(w->run, w->ci, w->own, w->err);
	else
		while (items_take(w->run, w->ci))
			;
	return NULL;
}

/* Run the items, on the helpers' threads when there are helpers: nt - 1 threads record items
 * in turn while the calling thread replays them in order, recording items itself whenever
 * the next to replay is not ready. */
int pc_items_run(fb_ci *ci, size_t n, int (*item)(void *ctx, pc_tester *t, size_t k,
                                                  fb_error *err),
                 void *ctx, fb_error *err)
{
	size_t nt = fb_ci_n_helpers(ci);
	items_run r = { .n = n, .item = item, .ctx = ctx };
	items_work *w;
	int ret;

	if (nt == 0 || n < 2)
		return items_serial(ci, n, item, ctx, err);
	w = calloc(nt, sizeof *w);
	r.ans = calloc(n, sizeof *r.ans);
	r.state = calloc(n, sizeof *r.state);
	if (w == NULL || r.ans == NULL || r.state == NULL) {
		ret = fb_fail(err, "out of memory for %zu threads", nt);
		goto out;
	}
	/* every answer a helper records goes into ci's cache on the replay, and a test an
	 * earlier item asks too is left to the replay (pc_tester_later): the helpers keep and
	 * look up nothing */
	for (size_t t = 0; t < nt; t++) {
		fb_ci_cache_keep(fb_ci_helper(ci, t), -1.0);
		fb_ci_cache_fresh(fb_ci_helper(ci, t), true);
	}
	w[0] = (items_work){ &r, ci, fb_ci_helper(ci, nt - 1), true, FB_OK, err };
	for (size_t t = 1; t < nt; t++)
		w[t] = (items_work){ &r, fb_ci_helper(ci, t - 1), NULL, false, FB_OK, NULL };
	fb_threads_run(items_thread, w, sizeof *w, nt);
	ret = w[0].ret;
out:
	for (size_t k = 0; r.ans != NULL && k < n; k++)
		free(r.ans[k].r);
	free(r.ans);
	free(r.state);
	free(w);
	return ret;
}

/* What one thread of pc_split_run does. */
typedef struct split_work {
	fb_ci *ci;            /* its test object */
	size_t t, nt, n;      /* its number, the threads, the items */
	int (*item)(void *, fb_ci *, size_t, size_t, fb_error *); /* the item */
	void *ctx;            /* its context */
	int ret;              /* FB_OK, or FB_ERR with err */
	fb_error err;         /* the reason */
} split_work;

/* A thread of pc_split_run: items t, t + nt, ... */
static void *split_thread(void *arg)
{
	split_work *w = arg;

	w->ret = FB_OK;
	for (size_t k = w->t; k < w->n && w->ret == FB_OK; k += w->nt)
		w->ret = w->item(w->ctx, w->ci, w->t, k, &w->err);
	return NULL;
}

/* Run independent items on the helpers' threads. */
int pc_split_run(fb_ci *ci, size_t n,
                 int (*item)(void *ctx, fb_ci *ci, size_t t, size_t k, fb_error *err),
                 void *ctx, fb_error *err)
{
	size_t nt = fb_ci_n_helpers(ci);
	split_work *w = calloc(nt > 0 ? nt : 1, sizeof *w);
	int ret = FB_OK;

	if (nt == 0 || w == NULL) {
		ret = fb_fail(err, nt == 0 ? "no helper threads" : "out of memory for %zu threads",
		              nt);
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		w[t] = (split_work){ fb_ci_helper(ci, t), t, nt, n, item, ctx, FB_OK, { "" } };
	fb_threads_run(split_thread, w, sizeof *w, nt);
	for (size_t t = 0; t < nt; t++) {
		fb_ci_take_counts(ci, w[t].ci);
		if (w[t].ret != FB_OK && ret == FB_OK)
			ret = fb_fail(err, "%s", w[t].err.msg);
	}
out:
	free(w);
	return ret;
}
