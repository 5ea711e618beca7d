/* Local fits the combinators may reuse.  A learner's fit is a function of its name, its
 * parameters and the rows it sees alone, so a second combinator over the same split (avg:
 * after voting:, or sep: after either) can take the first one's fits instead of learning
 * again.  The key holds a copy of the rows, compared exactly: a fit is never taken for rows
 * that differ in a single bit. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"

/* One remembered fit. */
typedef struct memo_fit {
	char *key;          /* the learner's name and its parameters' texts (owned) */
	fb_dataset *rows;   /* a copy of the rows it learned from (owned) */
	fb_graph *graph;    /* its final estimate (owned) */
	double *w;          /* its unthresholded d*d weights, or NULL (owned) */
	struct memo_fit *next;
} memo_fit;

struct fb_fit_memo {
	pthread_mutex_t lock; /* clients may learn on several threads at once */
	memo_fit *fits;       /* newest first */
	size_t hits;          /* fits handed out so far */
};

/* An empty memo. */
fb_fit_memo *fb_fit_memo_alloc(void)
{
	fb_fit_memo *m = fb_xcalloc(1, sizeof *m);

	pthread_mutex_init(&m->lock, NULL);
	return m;
}

/* Forget every fit. */
void fb_fit_memo_clear(fb_fit_memo *m)
{
	pthread_mutex_lock(&m->lock);
	while (m->fits != NULL) {
		memo_fit *f = m->fits;

		m->fits = f->next;
		free(f->key);
		fb_dataset_free(f->rows);
		fb_graph_free(f->graph);
		free(f->w);
		free(f);
	}
	pthread_mutex_unlock(&m->lock);
}

/* Free a memo (NULL is fine). */
void fb_fit_memo_free(fb_fit_memo *m)
{
	if (m == NULL)
		return;
	fb_fit_memo_clear(m);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

/* Fits handed out so far. */
size_t fb_fit_memo_hits(fb_fit_memo *m)
{
	size_t h;

	pthread_mutex_lock(&m->lock);
	h = m->hits;
	pthread_mutex_unlock(&m->lock);
	return h;
}

/* The learner's name and every parameter's text, one string (caller frees). */
static char *fit_key(const char *learner, const fb_params *p)
{
	fb_buf b = { 0 };

	fb_buf_printf(&b, "%s", learner);
	for (size_t i = 0; i < p->n; i++)
		fb_buf_printf(&b, "\x1f%s=%s", p->defs[i].name,
		              p->v[i].set && p->v[i].s != NULL ? p->v[i].s : "");
	return b.data; /* fb_buf's text is the caller's from here */
}

/* Whether two datasets hold the same rows, variables and parts, bit for bit. */
static bool same_rows(const fb_dataset *a, const fb_dataset *b)
{
	if (a->n != b->n || a->d != b->d || (a->part == NULL) != (b->part == NULL))
		return false;
	if (memcmp(a->x, b->x, a->n * a->d * sizeof *a->x) != 0 ||
	    (a->part != NULL && memcmp(a->part, b->part, a->n) != 0))
		return false;
	for (size_t j = 0; j < a->d; j++) {
		const fb_var *u = &a->vars[j], *v = &b->vars[j];

		if (strcmp(u->name, v->name) != 0 || u->kind != v->kind || u->nlevels != v->nlevels)
			return false;
		for (size_t l = 0; l < u->nlevels; l++)
			if (strcmp(u->levels[l], v->levels[l]) != 0)
				return false;
	}
	return true;
}

/* The fit of learner with parameters p on rows, when remembered: its estimate (caller frees)
 * and, when w is not NULL, its weights copied into w (d*d).  NULL when there is none (or it
 * kept no weights and w asks for them). */
fb_graph *fb_fit_memo_find(fb_fit_memo *m, const char *learner, const fb_params *p,
                           const fb_dataset *rows, double *w)
{
	char *key = fit_key(learner, p);
	fb_graph *g = NULL;

	pthread_mutex_lock(&m->lock);
	for (const memo_fit *f = m->fits; f != NULL && g == NULL; f = f->next) {
		if (strcmp(f->key, key) != 0 || !same_rows(f->rows, rows) || (w != NULL && f->w == NULL))
			continue;
		g = fb_graph_copy(f->graph);
		if (w != NULL)
			memcpy(w, f->w, rows->d * rows->d * sizeof *w);
		m->hits++;
	}
	pthread_mutex_unlock(&m->lock);
	free(key);
	return g;
}

/* Remember the fit of learner with parameters p on rows: its estimate g and its weights w
 * (d*d, or NULL), both copied. */
void fb_fit_memo_add(fb_fit_memo *m, const char *learner, const fb_params *p,
                     const fb_dataset *rows, const fb_graph *g, const double *w)
{
	memo_fit *f = fb_xcalloc(1, sizeof *f);
	size_t dd = rows->d * rows->d;

	f->key = fit_key(learner, p);
	f->rows = fb_dataset_copy(rows);
	f->graph = fb_graph_copy(g);
	if (w != NULL)
		f->w = memcpy(fb_xmalloc(dd * sizeof *f->w), w, dd * sizeof *f->w);
	if (f->rows == NULL || f->graph == NULL) {
		fb_dataset_free(f->rows);
		fb_graph_free(f->graph);
		free(f->w);
		free(f->key);
		free(f);
		return;
	}
	pthread_mutex_lock(&m->lock);
	f->next = m->fits;
	m->fits = f;
	pthread_mutex_unlock(&m->lock);
}
