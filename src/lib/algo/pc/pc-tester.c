/* PC's independent tests on several threads with the results of one (pc-tester.h). */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/core.h"
#include "pc-tester.h"

/* What one helper thread does. */
typedef struct items_work {
	fb_ci *ci;            /* its test object */
	size_t first, step, n; /* items first, first + step, ... below n */
	pc_answers *ans;      /* every item's answers */
	int (*item)(void *, pc_tester *, size_t, fb_error *); /* the item */
	void *ctx;            /* its context */
	int ret;              /* FB_OK, or FB_ERR with err */
	fb_error err;         /* the reason */
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
	res->flags &= ~(unsigned)FB_CI_CACHED;
	return fb_ci_record(t->ci, x, y, S, ns, res, err);
}

/* A helper thread: compute and record its items. */
static void *items_thread(void *arg)
{
	items_work *w = arg;

	w->ret = FB_OK;
	for (size_t k = w->first; k < w->n && w->ret == FB_OK; k += w->step) {
		pc_tester t = { w->ci, &w->ans[k], false, 0 };

		w->ret = w->item(w->ctx, &t, k, &w->err);
	}
	return NULL;
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

/* Replay the recorded items in order on ci. */
static int items_replay(fb_ci *ci, size_t n, pc_answers *ans,
                        int (*item)(void *, pc_tester *, size_t, fb_error *), void *ctx,
                        fb_error *err)
{
	for (size_t k = 0; k < n; k++) {
		pc_tester t = { ci, &ans[k], true, 0 };

		if (item(ctx, &t, k, err) != FB_OK)
			return FB_ERR;
	}
	return FB_OK;
}

/* Run fn on each of nt works (size bytes each, from works): the last on the calling thread,
 * the others on threads of their own (or after it, on the calling thread, where one cannot
 * start). */
static void threads_run(void *(*fn)(void *), void *works, size_t size, size_t nt,
                        pthread_t *tid, bool *started)
{
	char *at = works;

	for (size_t t = 0; t + 1 < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, fn, at + t * size) == 0;
	fn(at + (nt - 1) * size);
	for (size_t t = 0; t + 1 < nt; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			fn(at + t * size);
	}
}

/* Run the items, on the helpers' threads when there are helpers. */
int pc_items_run(fb_ci *ci, size_t n, int (*item)(void *ctx, pc_tester *t, size_t k,
                                                  fb_error *err),
                 void *ctx, fb_error *err)
{
	size_t nt = fb_ci_n_helpers(ci);
	items_work *w;
	pthread_t *tid;
	bool *started;
	pc_answers *ans;
	bool failed = false;
	int ret = FB_OK;

	if (nt == 0 || n < 2)
		return items_serial(ci, n, item, ctx, err);
	w = calloc(nt, sizeof *w);
	tid = calloc(nt, sizeof *tid);
	started = calloc(nt, sizeof *started);
	ans = calloc(n, sizeof *ans);
	if (w == NULL || tid == NULL || started == NULL || ans == NULL) {
		ret = fb_fail(err, "out of memory for %zu threads", nt);
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		w[t] = (items_work){ fb_ci_helper(ci, t), t, nt, n, ans, item, ctx, FB_OK, { "" } };
	threads_run(items_thread, w, sizeof *w, nt, tid, started);
	for (size_t t = 0; t < nt; t++)
		failed |= w[t].ret != FB_OK;
	/* a failure is reported as one thread would have met it: by running them all there */
	ret = failed ? items_serial(ci, n, item, ctx, err) : items_replay(ci, n, ans, item, ctx, err);
out:
	for (size_t k = 0; ans != NULL && k < n; k++)
		free(ans[k].r);
	free(ans);
	free(w);
	free(tid);
	free(started);
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
	pthread_t *tid = calloc(nt > 0 ? nt : 1, sizeof *tid);
	bool *started = calloc(nt > 0 ? nt : 1, sizeof *started);
	int ret = FB_OK;

	if (nt == 0 || w == NULL || tid == NULL || started == NULL) {
		ret = fb_fail(err, nt == 0 ? "no helper threads" : "out of memory for %zu threads",
		              nt);
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		w[t] = (split_work){ fb_ci_helper(ci, t), t, nt, n, item, ctx, FB_OK, { "" } };
	threads_run(split_thread, w, sizeof *w, nt, tid, started);
	for (size_t t = 0; t < nt; t++) {
		fb_ci_take_counts(ci, w[t].ci);
		if (w[t].ret != FB_OK && ret == FB_OK)
			ret = fb_fail(err, "%s", w[t].err.msg);
	}
out:
	free(w);
	free(tid);
	free(started);
	return ret;
}
