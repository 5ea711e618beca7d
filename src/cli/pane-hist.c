/* The clients' own figures over the last rounds.  The federation keeps only the last round's
 * figure of each client, so the pane records it after every round (its own and those stepped
 * as text lines) in a ring per run, for the detail view.  Runs live as long as the session,
 * so a run's address names it; a few recent runs are kept. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pane-int.h"

/* Runs whose history is kept. */
#define HIST_RUNS 8

/* One run's history. */
typedef struct hist_run {
	const fb_run *run;          /* whose it is */
	size_t k;                   /* clients */
	size_t n;                   /* rounds kept (at most PANE_HIST_ROUNDS) */
	size_t head;                /* slot of the oldest */
	size_t last;                /* the last round kept */
	size_t round[PANE_HIST_ROUNDS]; /* each slot's round */
	double *fig;                /* PANE_HIST_ROUNDS x k figures (owned) */
	unsigned char *took;        /* PANE_HIST_ROUNDS x k: took part (owned) */
} hist_run;

/* The kept runs, oldest first. */
static hist_run *hists[HIST_RUNS];
/* How many. */
static size_t nhists;

/* Free one history. */
static void hist_free(hist_run *h)
{
	if (h == NULL)
		return;
	free(h->fig);
	free(h->took);
	free(h);
}

/* The history of run, or NULL. */
static hist_run *hist_find(const fb_run *run)
{
	for (size_t i = 0; i < nhists; i++)
		if (hists[i]->run == run)
			return hists[i];
	return NULL;
}

/* A new history for run (dropping the oldest when full). */
static hist_run *hist_add(const fb_run *run, size_t k)
{
	hist_run *h = fb_xcalloc(1, sizeof *h);

	if (nhists == HIST_RUNS) {
		hist_free(hists[0]);
		memmove(hists, hists + 1, (HIST_RUNS - 1) * sizeof *hists);
		nhists--;
	}
	h->run = run;
	h->k = k;
	h->fig = fb_xcalloc(PANE_HIST_ROUNDS * k, sizeof *h->fig);
	h->took = fb_xcalloc(PANE_HIST_ROUNDS * k, 1);
	hists[nhists++] = h;
	return h;
}

/* Record the last round's figures of run's clients. */
void pane_hist_observe(const fb_run *run)
{
	size_t r = fb_run_rounds(run), k, slot;
	hist_run *h;

	if (run->fed == NULL || r == 0 || (k = fb_fed_k(run->fed)) == 0)
		return;
	h = hist_find(run);
	if (h != NULL && (h->k != k || r < h->last)) { /* not the run it was: start again */
		h->n = h->head = h->last = 0;
		if (h->k != k) {
			free(h->fig);
			free(h->took);
			h->k = k;
			h->fig = fb_xcalloc(PANE_HIST_ROUNDS * k, sizeof *h->fig);
			h->took = fb_xcalloc(PANE_HIST_ROUNDS * k, 1);
		}
	}
	if (h == NULL)
		h = hist_add(run, k);
	if (r == h->last)
		return;
	if (h->n < PANE_HIST_ROUNDS) {
		slot = (h->head + h->n++) % PANE_HIST_ROUNDS;
	} else {
		slot = h->head;
		h->head = (h->head + 1) % PANE_HIST_ROUNDS;
	}
	h->round[slot] = r;
	h->last = r;
	for (size_t c = 0; c < k; c++) {
		h->fig[slot * k + c] = fb_fed_client_figure(run->fed, c);
		h->took[slot * k + c] = fb_fed_took_part(run->fed, c);
	}
}

/* Rounds recorded for run. */
size_t pane_hist_count(const fb_run *run)
{
	hist_run *h = hist_find(run);

	return h != NULL ? h->n : 0;
}

/* The i-th recorded round of run, oldest first. */
bool pane_hist_get(const fb_run *run, size_t i, size_t *round, const double **fig,
                   const unsigned char **took)
{
	hist_run *h = hist_find(run);
	size_t slot;

	if (h == NULL || i >= h->n)
		return false;
	slot = (h->head + i) % PANE_HIST_ROUNDS;
	*round = h->round[slot];
	*fig = &h->fig[slot * h->k];
	*took = &h->took[slot * h->k];
	return true;
}

/* Forget every history. */
void pane_hist_release(void)
{
	for (size_t i = 0; i < nhists; i++)
		hist_free(hists[i]);
	nhists = 0;
}
