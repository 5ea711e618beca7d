/* The bootstrap of a learner: resamples of the training rows (each client its own), one run
 * per resample, the edges tallied in resample order, the estimated threshold and the
 * consensus graph (see fedbn/bootstrap.h). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bootstrap.h"
#include "fedbn/cpdag.h"

/* Defaults. */
void fb_boot_options_init(fb_boot_options *o)
{
	o->resamples = 100;
	o->fraction = 1.0;
	o->seed = 1;
	o->jobs = 1;
	o->threshold = NAN;
	o->max_rounds = 0;
	o->cpdag = false;
	o->cancel = (fb_cancel){ NULL, NULL };
	o->done = NULL;
	o->done_ctx = NULL;
}

/* Order of size_t values. */
static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Append to out (at *m) round(fraction n) of the training rows of ds drawn with
 * replacement from r, each as base + its row index, ascending. */
static void draw_rows(const fb_dataset *ds, double fraction, gsl_rng *r, size_t base,
                      size_t *out, size_t *m)
{
	size_t ntrain = 0, *train = fb_dataset_part_rows(ds, FB_PART_TRAIN, &ntrain);
	size_t want = (size_t)llround(fraction * (double)ntrain), start = *m;

	for (size_t i = 0; i < want && ntrain > 0; i++)
		out[(*m)++] = base + train[fb_rng_index(r, ntrain)];
	qsort(out + start, *m - start, sizeof *out, cmp_size);
	free(train);
}

/* One resample's data and split (the split NULL when part is). */
struct resample {
	fb_dataset *data;    /* the drawn rows (owned) */
	fb_partition *part;  /* its clients, or NULL (owned) */
};

/* The split of res->data whose client c holds its m[c] consecutive rows, as p's clients. */
static fb_partition *resample_split(const fb_partition *p, const fb_dataset *data,
                                    const size_t *m)
{
	fb_partition *q = fb_xcalloc(1, sizeof *q);
	size_t at = 0;

	q->kind = FB_SPLIT_HORIZONTAL;
	q->k = p->k;
	q->n = data->n;
	q->d = data->d;
	q->desc = fb_xasprintf("%s, resampled", p->desc);
	q->clients = fb_xcalloc(p->k, sizeof *q->clients);
	for (size_t c = 0; c < p->k; c++) {
		fb_client *cl = &q->clients[c];

		cl->rows = fb_xcalloc(m[c] + 1, sizeof *cl->rows);
		for (size_t i = 0; i < m[c]; i++)
			cl->rows[i] = at + i;
		cl->data = fb_dataset_subset(data, cl->rows, m[c], NULL, 0);
		cl->cols = fb_xcalloc(data->d, sizeof *cl->cols);
		for (size_t j = 0; j < data->d; j++)
			cl->cols[j] = j;
		cl->label = p->clients[c].label != NULL ? fb_xstrdup(p->clients[c].label) : NULL;
		at += m[c];
	}
	return q;
}

/* Resample r of spec's data (each client its own rows when spec has a split). */
static void resample(const fb_run_spec *spec, const fb_boot_options *o, size_t r,
                     struct resample *res)
{
	const fb_partition *p = spec->part;
	char name[48];
	gsl_rng *rng;
	size_t *rows = fb_xcalloc(spec->data->n * 2 + 1, sizeof *rows), m = 0, *per;

	snprintf(name, sizeof name, "bootstrap-%zu", r);
	rng = fb_rng_stream(o->seed, name);
	if (p == NULL) {
		draw_rows(spec->data, o->fraction, rng, 0, rows, &m);
		res->data = fb_dataset_subset(spec->data, rows, m, NULL, 0);
		res->part = NULL;
	} else {
		per = fb_xcalloc(p->k, sizeof *per);
		for (size_t c = 0; c < p->k; c++) {
			size_t before = m;

			draw_rows(p->clients[c].data, o->fraction, rng, 0, rows, &m);
			for (size_t i = before; i < m; i++) /* the client's row, as a global id */
				rows[i] = p->clients[c].rows[rows[i]];
			per[c] = m - before;
		}
		res->data = fb_dataset_subset(spec->data, rows, m, NULL, 0);
		res->part = resample_split(p, res->data, per);
		free(per);
	}
	gsl_rng_free(rng);
	free(rows);
}

/* Learn on resample r: its graph into *g; FB_ERR naming the resample. */
static int learn_one(const fb_run_spec *spec, const fb_boot_options *o, size_t r,
                     fb_graph **g, fb_error *err)
{
	struct resample res;
	fb_run_spec s = *spec;
	fb_run *run;
	int ret = FB_OK;

	resample(spec, o, r, &res);
	s.data = res.data;
	s.part = res.part;
	s.truth = NULL;
	if ((run = fb_run_alloc(&s, err)) == NULL)
		ret = FB_ERR;
	while (ret == FB_OK && !fb_run_done(run) &&
	       (o->max_rounds == 0 || fb_run_rounds(run) < o->max_rounds))
		ret = fb_cancel_requested(&o->cancel) ? fb_fail(err, FB_CANCELLED_MSG)
		                                      : fb_run_step(run, err);
	if (ret == FB_OK && (fb_run_is_circuit(run) || fb_run_is_pag(run)))
		ret = fb_fail(err, "%s learns a %s, not a graph the bootstrap tallies", run->name,
		              fb_run_is_circuit(run) ? "circuit" : "PAG");
	if (ret == FB_OK && (*g = fb_run_result(run, err)) == NULL)
		ret = FB_ERR;
	if (ret == FB_OK && o->cpdag && fb_graph_n_undirected(*g) == 0) {
		fb_graph *cp = fb_cpdag_from_dag(*g, err); /* its equivalence class */

		fb_graph_free(*g);
		*g = cp;
		ret = cp != NULL ? FB_OK : FB_ERR;
	}
	fb_run_free(run);
	fb_partition_free(res.part);
	fb_dataset_free(res.data);
	return ret;
}

/* What the jobs share: the work, the next resample to take, and each one's outcome. */
struct pool {
	const fb_run_spec *spec;      /* the learner and the data */
	const fb_boot_options *o;     /* the options */
	fb_graph **graphs;            /* R graphs, in resample order */
	int *status;                  /* R outcomes (NOT_RUN until one ends) */
	fb_error *errs;               /* R errors */
	size_t next;                  /* the next resample to learn */
	size_t finished;              /* resamples ended so far */
	pthread_mutex_t lock;         /* guards next, finished and the done calls */
};

/* The outcome of a resample that did not run, or was stopped by the cancel request. */
#define NOT_RUN 1

/* A job: learn resamples until none is left. */
static void *job_main(void *arg)
{
	struct pool *pl = arg;

	for (;;) {
		size_t r;

		int st;

		pthread_mutex_lock(&pl->lock);
		r = pl->next++;
		pthread_mutex_unlock(&pl->lock);
		if (r >= pl->o->resamples || fb_cancel_requested(&pl->o->cancel))
			return NULL;
		st = learn_one(pl->spec, pl->o, r, &pl->graphs[r], &pl->errs[r]);
		if (st != FB_OK && fb_cancel_requested(&pl->o->cancel))
			st = NOT_RUN; /* stopped on request, not failed */
		pthread_mutex_lock(&pl->lock);
		pl->status[r] = st;
		pl->finished++;
		if (st == FB_OK && pl->o->done != NULL)
			pl->o->done(pl->o->done_ctx, pl->finished, pl->o->resamples);
		pthread_mutex_unlock(&pl->lock);
	}
}

/* Learn every resample on o->jobs threads. */
static void learn_all(struct pool *pl)
{
	size_t jobs = pl->o->jobs < 1 ? 1 : pl->o->jobs;

	if (jobs > pl->o->resamples)
		jobs = pl->o->resamples;
	fb_threads_run(job_main, pl, 0, jobs); /* every job takes the one pool */
}

/* Add graph g to the tallies (an undirected edge half each way). */
static void tally(fb_boot *b, const fb_graph *g)
{
	size_t d = b->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			bool ij = fb_graph_has_arc(g, i, j), ji = fb_graph_has_arc(g, j, i);
			bool un = fb_graph_edge(g, i, j) == FB_EDGE_UNDIRECTED;

			if (!ij && !ji && !un)
				continue;
			b->strength[i * d + j] += 1;
			b->direction[i * d + j] += un ? 0.5 : ij ? 1 : 0;
			b->direction[j * d + i] += un ? 0.5 : ji ? 1 : 0;
		}
}

/* Turn the tallies into shares. */
static void shares(fb_boot *b)
{
	size_t d = b->d;

	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			double n = b->strength[i * d + j];

			if (n > 0) {
				b->direction[i * d + j] /= n;
				b->direction[j * d + i] /= n;
			}
			b->strength[i * d + j] = b->strength[j * d + i] = n / (double)b->resamples;
		}
}

/* Order of doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The estimated threshold: p0 the median of the empirical CDF F over [0, 1] (F is i / n on
 * [a, b) between knots, i the strengths <= a), then F's type-1 quantile at p0: the i-th
 * smallest strength (the smallest when i is 0). */
double fb_boot_threshold(const double *s, size_t n)
{
	double *v = fb_xcalloc(n + 1, sizeof *v), covered = 0, a = 0, b, t;
	size_t i = 0;

	memcpy(v, s, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_double);
	for (;;) {
		while (i < n && v[i] <= a)
			i++;
		b = i < n && v[i] < 1 ? v[i] : 1;
		if (covered + (b - a) >= 0.5 || b >= 1)
			break;
		covered += b - a;
		a = b;
	}
	t = n > 0 ? v[i > 0 ? i - 1 : 0] : 0;
	free(v);
	return t;
}

/* A candidate arc of the consensus: its strength and direction share. */
struct cand {
	size_t from, to;  /* the arc */
	double s, dir;    /* strength, share of from -> to */
};

/* Decreasing strength, then direction share, then index order. */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? 1 : -1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The consensus: pairs above the threshold; acyclic, greedily, for a learner of DAGs. */
static void consensus(fb_boot *b, const fb_dataset *names, bool dags)
{
	size_t d = b->d, nc = 0, *stack = fb_xcalloc(d + 1, sizeof *stack);
	struct cand *c = fb_xcalloc(d * d + 1, sizeof *c);
	bool *seen = fb_xcalloc(d + 1, sizeof *seen);

	b->consensus = fb_graph_alloc(d);
	for (size_t i = 0; i < d; i++)
		fb_graph_set_name(b->consensus, i, names->vars[i].name, NULL);
	b->consensus->weighted = false;
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++) {
			double s = b->strength[i * d + j], f = b->direction[i * d + j];

			if (!(s > b->threshold))
				continue;
			if (f == b->direction[j * d + i] && !dags)
				fb_graph_set_undirected(b->consensus, i, j);
			else
				c[nc++] = f >= b->direction[j * d + i]
				              ? (struct cand){ i, j, s, f }
				              : (struct cand){ j, i, s, b->direction[j * d + i] };
		}
	qsort(c, nc, sizeof *c, cmp_cand);
	for (size_t q = 0; q < nc; q++) {
		memset(seen, 0, d * sizeof *seen);
		if (dags && fb_graph_reaches(b->consensus, c[q].to, c[q].from, c[q].from, stack,
		                             seen))
			b->dropped++;
		else
			fb_graph_set_directed(b->consensus, c[q].from, c[q].to, 1.0);
	}
	free(c);
	free(seen);
	free(stack);
}

/* The threshold: given, or estimated from the d(d-1)/2 strengths. */
static void choose_threshold(fb_boot *b, const fb_boot_options *o)
{
	size_t d = b->d, n = 0;
	double *s;

	b->estimated = isnan(o->threshold);
	if (!b->estimated) {
		b->threshold = o->threshold;
		return;
	}
	s = fb_xcalloc(d * d + 1, sizeof *s);
	for (size_t i = 0; i < d; i++)
		for (size_t j = i + 1; j < d; j++)
			s[n++] = b->strength[i * d + j];
	b->threshold = n > 0 ? fb_boot_threshold(s, n) : 0;
	free(s);
}

/* Refuse a split other than horizontal, and a fraction out of range. */
static int check_spec(const fb_run_spec *spec, const fb_boot_options *o, fb_error *err)
{
	if (spec->part != NULL && spec->part->kind != FB_SPLIT_HORIZONTAL)
		return fb_fail(err, "the bootstrap resamples each client's own rows, which takes a "
		               "horizontal split (this one is %s)", spec->part->desc);
	if (spec->part != NULL && spec->part->transport != NULL)
		return fb_fail(err, "the bootstrap runs its clients in this process; the split's "
		               "clients are other processes");
	if (!(o->fraction > 0 && o->fraction <= 1) || o->resamples < 1)
		return fb_fail(err, "the bootstrap takes at least one resample and a fraction in "
		               "(0, 1]");
	return FB_OK;
}

/* The resamples to tally into *k: the leading ones that finished (all R unless cancelled);
 * FB_ERR with the first failure in resample order before them, or FB_CANCELLED_MSG when
 * none finished. */
static int finished_prefix(const struct pool *pl, size_t *k, fb_error *err)
{
	size_t r;

	for (r = 0; r < pl->o->resamples && pl->status[r] != NOT_RUN; r++)
		if (pl->status[r] != FB_OK)
			return fb_fail(err, "resample %zu: %s", r + 1, pl->errs[r].msg);
	if (r == 0)
		return fb_fail(err, FB_CANCELLED_MSG);
	*k = r;
	return FB_OK;
}

/* The tallies, threshold and consensus of the pool's first R graphs. */
static fb_boot *boot_from(const struct pool *pl, size_t R)
{
	size_t d = pl->spec->data->d;
	fb_boot *b = fb_xcalloc(1, sizeof *b);
	bool dags = true;

	b->d = d;
	b->resamples = R;
	b->requested = pl->o->resamples;
	b->strength = fb_xcalloc(d * d + 1, sizeof *b->strength);
	b->direction = fb_xcalloc(d * d + 1, sizeof *b->direction);
	for (size_t r = 0; r < R; r++) {
		tally(b, pl->graphs[r]);
		dags = dags && fb_graph_n_undirected(pl->graphs[r]) == 0;
	}
	shares(b);
	choose_threshold(b, pl->o);
	consensus(b, pl->spec->data, dags);
	return b;
}

/* Run the bootstrap. */
fb_boot *fb_bootstrap(const fb_run_spec *spec, const fb_boot_options *o, fb_error *err)
{
	struct pool pl = { spec, o, NULL, NULL, NULL, 0, 0, PTHREAD_MUTEX_INITIALIZER };
	size_t R = o->resamples, k = 0;
	fb_boot *b = NULL;

	if (check_spec(spec, o, err) != FB_OK)
		return NULL;
	pl.graphs = fb_xcalloc(R, sizeof *pl.graphs);
	pl.status = fb_xcalloc(R, sizeof *pl.status);
	pl.errs = fb_xcalloc(R, sizeof *pl.errs);
	for (size_t r = 0; r < R; r++)
		pl.status[r] = NOT_RUN;
	learn_all(&pl);
	if (finished_prefix(&pl, &k, err) == FB_OK)
		b = boot_from(&pl, k);
	for (size_t r = 0; r < R; r++)
		fb_graph_free(pl.graphs[r]);
	free(pl.graphs);
	free(pl.status);
	free(pl.errs);
	pthread_mutex_destroy(&pl.lock);
	return b;
}

/* Free it. */
void fb_boot_free(fb_boot *b)
{
	if (b == NULL)
		return;
	free(b->strength);
	free(b->direction);
	fb_graph_free(b->consensus);
	free(b);
}
