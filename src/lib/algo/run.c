/* Runs: one algorithm instance, stepped round by round, with its trace. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fedbn/algo.h"
#include "fedbn/cpdag.h"

/* Whether this process runs only one client's half over part (a client process of a study
 * over MPI): what only the server half needs (best:'s truth) is not its business. */
static bool client_process(const fb_partition *part)
{
	return part != NULL && part->transport != NULL && part->transport->local < part->k;
}

/* The bit of enum fb_algo_accepts that data's variables are: continuous, discrete or
 * mixed. */
static unsigned data_kind(const fb_dataset *data)
{
	size_t nd = fb_dataset_n_discrete(data);

	return nd == 0 ? FB_ACCEPTS_CONTINUOUS
	               : nd == data->d ? FB_ACCEPTS_DISCRETE : FB_ACCEPTS_MIXED;
}

/* Refuse data whose kind of variables name does not take (accepts: its kinds). */
static int check_data_kind(unsigned accepts, const fb_dataset *data, const char *name,
                           fb_error *err)
{
	size_t nd = fb_dataset_n_discrete(data), nc = data->d - nd;
	fb_buf b = { 0 };

	if (accepts & data_kind(data))
		return FB_OK;
	if ((accepts & FB_ACCEPTS_ANY_DATA) == FB_ACCEPTS_CONTINUOUS)
		return fb_fail(err, "%s needs continuous variables, and the data has %zu discrete "
		                    "one%s (pc, fedpc and ges take %s)", name, nd, nd == 1 ? "" : "s",
		               data_kind(data) == FB_ACCEPTS_MIXED
		                       ? "mixed data with the dg test and score"
		                       : "discrete data with g2 and bdeu");
	if (accepts & FB_ACCEPTS_CONTINUOUS)
		fb_buf_printf(&b, "all continuous");
	if (accepts & FB_ACCEPTS_DISCRETE)
		fb_buf_printf(&b, "%sall discrete", b.len > 0 ? " or " : "");
	if (accepts & FB_ACCEPTS_MIXED)
		fb_buf_printf(&b, "%sof both kinds", b.len > 0 ? " or " : "");
	fb_fail(err, "%s needs variables %s, and the data has %zu continuous and %zu discrete "
	             "ones", name, b.len > 0 ? b.data : "of no kind", nc, nd);
	fb_buf_release(&b);
	return FB_ERR;
}

/* Whether column j's values may not all be finite or its variance pass a double: flag[j]
 * set by one pass over the rows in memory order (no division) for every column holding a
 * value that is not finite or of magnitude at least b = sqrt(DBL_MAX / 4n) / 4: below it
 * each of Welford's n terms is under 4 b^2, so their sum is surely finite. */
static void flag_data_doubtful(const fb_dataset *data, bool *flag)
{
	double limit = 0.25 * sqrt(DBL_MAX / 4 / (double)(data->n > 0 ? data->n : 1));

	for (size_t i = 0; i < data->n; i++) {
		const double *row = data->x + i * data->d;

		for (size_t j = 0; j < data->d; j++)
			flag[j] |= !(fabs(row[j]) < limit);
	}
}

/* Refuse data with a continuous variable whose variance a double cannot hold (values near
 * 1e200: info shows sd inf), or a value that is not finite: every learner's sums of squares
 * (Fisher-z, GES's score, NOTEARS' loss) would be infinite or NaN, some without a word.  Only
 * the columns flag_data_doubtful names are walked value by value. */
static int check_data_finite(const fb_dataset *data, const char *name, fb_error *err)
{
	bool *doubtful = fb_xcalloc(data->d + 1, sizeof *doubtful);

	flag_data_doubtful(data, doubtful);
	for (size_t j = 0; j < data->d; j++) {
		double mean = 0, m2 = 0, big = 0;

		if (data->vars[j].kind != FB_CONTINUOUS || !doubtful[j])
			continue;
		for (size_t i = 0; i < data->n && isfinite(m2); i++) {
			double x = fb_dataset_get(data, i, j), delta = x - mean;

			if (!isfinite(x)) {
				free(doubtful);
				return fb_fail(err, "%s cannot use variable '%s': row %zu holds %g",
				               name, data->vars[j].name, i + 1, x);
			}
			mean += delta / (double)(i + 1);
			m2 += delta * (x - mean);
			big = fabs(x) > big ? fabs(x) : big;
		}
		if (!isfinite(m2)) {
			free(doubtful);
			return fb_fail(err, "%s cannot use variable '%s': its variance is too large "
			                    "for a double (values reach %.3g; info shows sd inf), so "
			                    "rescale it", name, data->vars[j].name, big);
		}
	}
	free(doubtful);
	return FB_OK;
}

/* The bit of enum fb_algo_accepts that part's kind of split is. */
static unsigned split_kind(const fb_partition *part)
{
	switch (part->kind) {
	case FB_SPLIT_VERTICAL:
		return FB_ACCEPTS_VERTICAL;
	case FB_SPLIT_HYBRID:
		return FB_ACCEPTS_HYBRID;
	default:
		return FB_ACCEPTS_HORIZONTAL;
	}
}

/* Refuse a missing split, or a split whose kind name does not take (accepts: its kinds). */
static int check_split_kind(unsigned accepts, const fb_partition *part, const char *name,
                            fb_error *err)
{
	static const struct {
		unsigned bit;
		const char *word, *what;
	} kinds[] = {
		{ FB_ACCEPTS_HORIZONTAL, "horizontal", "every client holding every variable" },
		{ FB_ACCEPTS_VERTICAL, "vertical", "every client holding every row" },
		{ FB_ACCEPTS_HYBRID, "hybrid", "clients holding overlapping rows and variables" },
	};
	fb_buf b = { 0 };
	size_t n = 0;

	if (!(accepts & FB_ACCEPTS_SPLITS) || (part != NULL && (accepts & split_kind(part))))
		return FB_OK;
	if (part == NULL && (accepts & FB_ACCEPTS_ONE))
		return FB_OK;
	if (part == NULL)
		return fb_fail(err, "%s runs over clients: split the data first", name);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (accepts & kinds[i].bit)
			fb_buf_printf(&b, "%s%s", n++ > 0 ? " or " : "", kinds[i].word);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && n == 1; i++)
		if (accepts & kinds[i].bit)
			fb_buf_printf(&b, " split (%s)", kinds[i].what);
	fb_fail(err, "%s needs a %s%s, not %s", name, b.data, n > 1 ? " split" : "", part->desc);
	fb_buf_release(&b);
	return FB_ERR;
}

/* Refuse data, split or truth that the algorithm (or its learner) cannot use: the kinds
 * of data and split by the algorithms' accepts, here alone. */
static int check_inputs(const fb_algo *a, const fb_algo *inner, const fb_dataset *data,
                        const fb_partition *part, const fb_graph *truth, const char *name,
                        fb_error *err)
{
	/* a combinator takes the kinds of data its learner takes, and its own kinds of split */
	unsigned both = a->accepts & (inner != NULL ? inner->accepts : ~0u);
	unsigned accepts = (both & FB_ACCEPTS_ANY_DATA) | (a->accepts & ~FB_ACCEPTS_ANY_DATA);

	if (data == NULL)
		return fb_fail(err, "%s needs a dataset: load or generate one", name);
	if (check_data_kind(accepts, data, name, err) != FB_OK ||
	    check_split_kind(accepts, part, name, err) != FB_OK ||
	    check_data_finite(data, name, err) != FB_OK)
		return FB_ERR;
	if ((a->accepts & FB_ACCEPTS_SPLITS) && part != NULL && part->transport != NULL &&
	    (!(a->flags & FB_ALGO_REMOTE) ||
	     (inner != NULL && (inner->flags & FB_ALGO_CIRCUIT))))
		return fb_fail(err, "%s cannot run with its clients in other processes yet: its "
		                    "client half needs more than its own data and the broadcast",
		               name);
	if ((a->flags & FB_ALGO_NEEDS_TRUTH) && truth == NULL && !client_process(part))
		return fb_fail(err, "%s picks the client graph closest to the truth, and there is "
		                    "no truth", name);
	if (truth != NULL && truth->d != data->d)
		return fb_fail(err, "the truth has %zu variables and the data %zu", truth->d,
		               data->d);
	return FB_OK;
}

/* What the server of an algorithm that is not summed must see of each client, for the
 * sentence that refuses secure=yes. */
static const char *seen_alone(const fb_algo *a)
{
	static const struct { const char *prefix, *what; } seen[] = {
		{ "fedpc-simple2", "separating sets (it intersects the sets the clients found)" },
		{ "fedfci", "removed pairs with their sets and p-values (it keeps the best set "
		            "of each pair; fedfci-pooled sums tables instead)" },
		{ "sep", "graph (it keeps one per client)" },
		{ "best", "graph (it picks the one closest to the truth)" },
		{ "notears-mlp-admm", "network parameters" },
		{ "fedcircuit", "circuit statistics" },
	};

	for (size_t i = 0; i < sizeof seen / sizeof *seen; i++)
		if (strncmp(a->name, seen[i].prefix, strlen(seen[i].prefix)) == 0)
			return seen[i].what;
	return "message";
}

/* secure=yes takes the algorithms whose server needs only sums (FB_ALGO_SUMMED) over a
 * federation; every other is refused saying what its server must see. */
static int check_secure(const fb_run *run, const char *name, fb_error *err)
{
	const fb_algo *a = run->algo;

	if (!run->fedopt.secure)
		return FB_OK;
	if (run->part == NULL)
		return fb_fail(err, "%s learns from all rows in one place: there is no server and no "
		               "sum for secure=yes to hide (set secure=no)", name);
	if (!(a->flags & FB_ALGO_SUMMED) ||
	    (run->inner != NULL && (run->inner->flags & FB_ALGO_CIRCUIT)))
		return fb_fail(err, "%s's server must see each client's %s on its own, not only their "
		               "sum, so secure=yes cannot take it (it takes fedpc, fedpc-simple1, "
		               "fedc2sl, fedfci-pooled, gs-feddag, as-feddag, as-feddag-linear, "
		               "notears-admm, voting: and avg:)", name, seen_alone(a));
	return FB_OK;
}

/* When the dataset holds rows out, make the learners' view of it: the training rows of the
 * data and of each client. */
static int run_hold_out(fb_run *run, fb_error *err)
{
	if (!fb_dataset_has_heldout(run->whole))
		return FB_OK;
	run->train_data = fb_dataset_part_subset(run->whole, FB_PART_TRAIN);
	if (run->train_data == NULL)
		return fb_fail(err, "out of memory setting the held-out rows apart");
	run->data = run->train_data;
	if (run->whole_part == NULL)
		return FB_OK;
	if ((run->train_part = fb_partition_train(run->whole_part)) == NULL)
		return fb_fail(err, "out of memory setting the clients' held-out rows apart");
	run->part = run->train_part;
	return FB_OK;
}

/* Copy the spec's knowledge into the run (empty knowledge over the data's variables when
 * there is none); refuse knowledge over other variables, or given to an algorithm (or a
 * combinator's learner) that cannot honour it. */
static int run_take_knowledge(fb_run *run, const fb_knowledge *k, fb_error *err)
{
	unsigned accepts = run->algo->accepts & (run->inner != NULL ? run->inner->accepts : ~0u);
	const char **names;

	if (k != NULL && fb_knowledge_d(k) != run->whole->d)
		return fb_fail(err, "the knowledge is over %zu variables and the data has %zu",
		               fb_knowledge_d(k), run->whole->d);
	if (!fb_knowledge_is_empty(k) && !(accepts & FB_ACCEPTS_KNOWLEDGE))
		return fb_fail(err, "%s cannot take background knowledge: %s", run->name,
		               (run->algo->flags & FB_ALGO_CIRCUIT) ||
		                               (run->inner != NULL &&
		                                (run->inner->flags & FB_ALGO_CIRCUIT))
		                       ? "a circuit learns no graph; clear it with knowledge clear"
		                       : "clear it with knowledge clear to run it");
	if (k != NULL) {
		run->knowledge = fb_knowledge_copy(k);
		return FB_OK;
	}
	names = fb_xcalloc(run->whole->d + 1, sizeof *names);
	for (size_t i = 0; i < run->whole->d; i++)
		names[i] = run->whole->vars[i].name;
	run->knowledge = fb_knowledge_alloc(run->whole->d, names);
	free(names);
	return FB_OK;
}

/* The run's background knowledge. */
const fb_knowledge *fb_run_knowledge(const fb_run *run)
{
	return run->knowledge;
}

/* Start a run. */
fb_run *fb_run_alloc(const fb_run_spec *spec, fb_error *err)
{
	const char *name = spec->algo;
	const fb_algo *a, *inner;
	fb_run *run;

	fb_blas_single_thread();
	if (name == NULL)
		return fb_fail(err, "no algorithm: choose one with algo NAME (see algos)"), NULL;
	if (fb_algo_lookup(name, &a, &inner, err) != FB_OK ||
	    check_inputs(a, inner, spec->data, spec->part, spec->truth, name, err) != FB_OK)
		return NULL;
	run = fb_xcalloc(1, sizeof *run);
	run->algo = a;
	run->inner = inner;
	run->name = fb_xstrdup(name);
	run->whole = run->data = spec->data;
	run->whole_part = run->part = (a->accepts & FB_ACCEPTS_SPLITS) ? spec->part : NULL;
	run->truth = spec->truth;
	if (run_take_knowledge(run, spec->knowledge, err) != FB_OK)
		goto fail;
	run->trace.keep_max = FB_TRACE_KEEP_BYTES;
	if (run_hold_out(run, err) != FB_OK)
		goto fail;
	run->figures = a->figures != NULL ? a->figures : inner->figures;
	for (run->trace.nfig = 0; run->figures[run->trace.nfig] != NULL; run->trace.nfig++)
		;
	if (spec->params != NULL)
		fb_params_copy(&run->params, spec->params);
	else if (fb_params_init(&run->params, fb_algo_params(a, inner), err) != FB_OK)
		goto fail;
	fb_fed_options_init(&run->fedopt);
	if (spec->fedopt != NULL)
		run->fedopt = *spec->fedopt;
	if (run->fedopt.share < 1.0 && !(a->flags & FB_ALGO_PARTIAL)) {
		fb_fail(err, "%s needs every client in every round (share=1)", name);
		goto fail;
	}
	if (check_secure(run, name, err) != FB_OK)
		goto fail;
	if (run->part != NULL && (run->fed = fb_fed_alloc(run->part, &run->fedopt, err)) == NULL)
		goto fail;
	if (run->fed != NULL &&
	    fb_fed_open(run->fed, name, &run->params, run->knowledge, err) != FB_OK)
		goto fail;
	if (a->create(run, err) != FB_OK)
		goto fail; /* destroy frees what create had built, if anything */
	return run;
fail:
	fb_run_free(run);
	return NULL;
}

/* Drop a record's kept estimate and messages. */
static void trace_drop_detail(fb_trace *t, fb_trace_rec *rec)
{
	for (size_t c = 0; rec->up != NULL && c < rec->nclients; c++)
		fb_msg_release(&rec->up[c]);
	free(rec->up);
	fb_msg_release(&rec->down);
	free(rec->mark);
	free(rec->mark_at);
	free(rec->w);
	free(rec->sum);
	rec->up = NULL;
	rec->mark = NULL;
	rec->mark_at = NULL;
	rec->nmark_at = 0;
	rec->w = NULL;
	rec->sum = NULL;
	rec->est_kept = rec->msgs_kept = false;
	t->kept -= rec->kept;
	rec->kept = 0;
}

/* Drop the oldest rounds' detail until the trace is within its budget beyond the newest. */
static void trace_trim(fb_trace *t)
{
	size_t newest = t->n > 0 ? t->r[t->n - 1].kept : 0;

	while (t->kept > t->keep_max + newest && t->kept_from + 1 < t->n)
		trace_drop_detail(t, &t->r[t->kept_from++]);
}

/* Free a run. */
void fb_run_free(fb_run *run)
{
	if (run == NULL)
		return;
	if (run->algo != NULL && run->state != NULL)
		run->algo->destroy(run);
	for (size_t i = 0; i < run->trace.n; i++) {
		fb_trace_rec *rec = &run->trace.r[i];

		trace_drop_detail(&run->trace, rec);
		free(rec->fig);
		free(rec->took);
		free(rec->client_fig);
		free(rec->server_fig);
		free(rec->say);
		free(rec->sent);
		free(rec->received);
	}
	free(run->trace.r);
	fb_buf_release(&run->say);
	fb_graph_free(run->truth_cpdag);
	fb_knowledge_free(run->knowledge);
	fb_fed_free(run->fed);
	fb_partition_free(run->train_part);
	fb_dataset_free(run->train_data);
	fb_params_release(&run->params);
	free(run->name);
	free(run);
}

/* A record's marks in the making: the places of g's marks. */
typedef struct marks_walk {
	const fb_graph *g;
	fb_trace_rec *rec;
} marks_walk;

/* Add the marks of the pair {i, j} of the walk's graph to its record's places. */
static void marks_pair(void *ctx, size_t i, size_t j)
{
	marks_walk *w = ctx;
	size_t d = w->g->d;

	if (w->g->mark[i * d + j])
		w->rec->mark_at[w->rec->nmark_at++] = i * d + j;
	if (w->g->mark[j * d + i])
		w->rec->mark_at[w->rec->nmark_at++] = j * d + i;
}

/* Keep g's marks in rec: their places when those take less memory than d*d marks (a large
 * graph with few edges), else the marks themselves. */
static void record_marks_keep(fb_trace_rec *rec, const fb_graph *g)
{
	size_t dd = g->d * g->d, most = 2 * rec->edges;
	marks_walk w = { g, rec };

	if (most * sizeof *rec->mark_at < dd) {
		rec->mark_at = fb_xmalloc((most > 0 ? most : 1) * sizeof *rec->mark_at);
		rec->nmark_at = 0;
		fb_graph_pairs_joined(g, NULL, marks_pair, &w);
		rec->kept += most * sizeof *rec->mark_at;
		return;
	}
	rec->mark = fb_xmalloc(dd > 0 ? dd : 1);
	memcpy(rec->mark, g->mark, dd);
	rec->kept += dd;
}

/* The d*d edge marks rec kept into out. */
void fb_trace_rec_marks(const fb_trace_rec *rec, size_t d, unsigned char *out)
{
	if (rec->mark != NULL) {
		memcpy(out, rec->mark, d * d);
		return;
	}
	memset(out, 0, d * d);
	for (size_t k = 0; k < rec->nmark_at; k++)
		out[rec->mark_at[k]] = 1;
}

/* Keep the round's estimate in its record: g's marks, and the weights when the algorithm
 * gives them. */
static void record_estimate_keep(const fb_run *run, fb_trace_rec *rec, const fb_graph *g)
{
	fb_error err = { { 0 } };
	size_t dd = g->d * g->d;

	record_marks_keep(rec, g);
	if (fb_run_has_weights(run)) {
		rec->w = fb_xcalloc(dd > 0 ? dd : 1, sizeof *rec->w);
		if (fb_run_weights(run, rec->w, &err) == FB_OK) {
			rec->kept += dd * sizeof *rec->w;
		} else {
			free(rec->w);
			rec->w = NULL;
		}
	}
	rec->est_kept = true;
}

/* The truth's CPDAG, made once for every round's score (NULL when the truth has none). */
static const fb_graph *run_truth_cpdag(fb_run *run)
{
	if (run->truth_cpdag == NULL && run->truth != NULL)
		run->truth_cpdag = fb_cpdag_from_dag(run->truth, NULL);
	return run->truth_cpdag;
}

/* Fill the record's edge count and score from the current estimate (none for a circuit). */
static void record_estimate(fb_run *run, fb_trace_rec *rec)
{
	fb_error err = { { 0 } };
	fb_graph *owned = NULL;
	const fb_graph *g;

	if (fb_run_is_circuit(run))
		return;
	if (run->algo->graph != NULL)
		g = run->algo->graph(run);
	else
		g = owned = run->algo->result(run, &err);

	if (g != NULL)
		rec->edges = fb_graph_n_edges(g);
	if (g != NULL && !rec->est_kept)
		record_estimate_keep(run, rec, g);
	if (run->truth == NULL)
		rec->scored = false;
	else if (run->algo->score != NULL) /* its own score (sep: the clients' mean) */
		rec->scored = run->algo->score(run, &rec->score, &err) == FB_OK;
	else /* the estimate just made, scored once */
		rec->scored = g != NULL && fb_score_graph_with(g, run->truth, run_truth_cpdag(run),
		                                               &rec->score, &err) == FB_OK;
	fb_graph_free(owned);
}

/* The round's message sizes per client, and the messages themselves when they are small
 * enough to keep. */
static void record_messages(const fb_run *run, fb_trace_rec *rec)
{
	size_t k = rec->nclients, down = fb_msg_size(fb_fed_round_down(run->fed)), total = down;

	rec->sent = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->sent);
	rec->received = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->received);
	for (size_t c = 0; c < k; c++) {
		const fb_msg *m = fb_fed_round_up(run->fed, c);

		rec->sent[c] = m != NULL ? fb_msg_size(m) : 0;
		rec->received[c] = m != NULL ? down : 0;
		total += rec->sent[c];
	}
	if (total > FB_TRACE_MSG_BYTES)
		return;
	rec->up = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->up);
	for (size_t c = 0; c < k; c++)
		if (fb_fed_round_up(run->fed, c) != NULL)
			fb_msg_copy(&rec->up[c], fb_fed_round_up(run->fed, c));
	fb_msg_copy(&rec->down, fb_fed_round_down(run->fed));
	rec->kept += total;
	rec->msgs_kept = true;
}

/* The sum the server half was handed in the round (its last exchange), kept as the round's
 * messages are (within FB_TRACE_MSG_BYTES), and the privacy spent after it. */
static void record_sum(const fb_run *run, fb_trace_rec *rec)
{
	size_t n, count;
	const double *sum = fb_fed_last_sum(run->fed, &n, &count);

	rec->dp_spent = fb_fed_dp_spent(run->fed);
	rec->nsum = n;
	rec->sum_count = count;
	if (sum == NULL || n * sizeof *sum > FB_TRACE_MSG_BYTES)
		return;
	rec->sum = fb_xmalloc(n * sizeof *sum);
	memcpy(rec->sum, sum, n * sizeof *sum);
	rec->kept += n * sizeof *sum;
}

/* Each client's participation and own figure of the round the step just ran through the
 * federation (none when the federation's round count is still fed_before). */
static void record_clients(const fb_run *run, fb_trace_rec *rec, size_t fed_before)
{
	size_t k;

	if (run->fed == NULL || fb_fed_rounds(run->fed) == fed_before)
		return;
	k = fb_fed_k(run->fed);
	rec->nclients = k;
	rec->took = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->took);
	if (run->algo->client_figure != NULL)
		rec->client_fig = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->client_fig);
	if (run->algo->server_figure != NULL && run->algo->server_client != NULL)
		rec->server_fig = fb_xcalloc(k > 0 ? k : 1, sizeof *rec->server_fig);
	for (size_t c = 0; c < k; c++) {
		rec->took[c] = fb_fed_took_part(run->fed, c);
		if (rec->client_fig != NULL)
			rec->client_fig[c] = rec->took[c] ? fb_fed_client_figure(run->fed, c) : NAN;
		if (rec->server_fig != NULL)
			rec->server_fig[c] = run->algo->server_client(run, c);
	}
	record_messages(run, rec);
	record_sum(run, rec);
}

/* Add what befell the clients in the round just run (one lost and left out), and what the
 * server received when secure aggregation formed its sum, to the round's sentence. */
static void run_say_news(fb_run *run, size_t fed_before)
{
	const char *news;
	char saw[256];

	if (run->fed == NULL || fb_fed_rounds(run->fed) == fed_before)
		return;
	if ((news = fb_fed_news(run->fed)) != NULL)
		fb_buf_printf(&run->say, "%s%s", run->say.len > 0 ? "; " : "", news);
	if (fb_fed_server_saw(run->fed, saw, sizeof saw))
		fb_buf_printf(&run->say, "%s%s", run->say.len > 0 ? "; " : "", saw);
}

/* One round. */
int fb_run_step(fb_run *run, fb_error *err)
{
	double *fig = fb_xcalloc(run->trace.nfig + 1, sizeof *fig);
	double t0 = fb_clock_now(), dt;
	size_t fed_before = run->fed != NULL ? fb_fed_rounds(run->fed) : 0;
	fb_trace_rec *rec;

	if (fb_run_done(run)) {
		free(fig);
		return fb_fail(err, "%s has finished after %zu rounds", run->name, run->trace.n);
	}
	run->say.len = 0;
	if (run->say.data != NULL)
		run->say.data[0] = '\0';
	if (run->algo->step(run, fig, err) != FB_OK) {
		free(fig);
		return FB_ERR;
	}
	dt = fb_clock_now() - t0;
	run->seconds += dt;
	run_say_news(run, fed_before);
	if (run->trace.n == run->trace.cap) {
		run->trace.cap = run->trace.cap < 16 ? 16 : 2 * run->trace.cap;
		run->trace.r = fb_xreallocarray(run->trace.r, run->trace.cap, sizeof *run->trace.r);
	}
	rec = &run->trace.r[run->trace.n++];
	memset(rec, 0, sizeof *rec);
	rec->round = run->trace.n;
	rec->seconds = dt;
	rec->fig = fig;
	if (run->fed != NULL && fb_fed_rounds(run->fed) > fed_before) { /* a round this step */
		const fb_ledger *l = fb_fed_ledger(run->fed);

		rec->exchanges = fb_fed_rounds(run->fed) - fed_before;
		for (size_t r = fed_before + 1; r <= fb_fed_rounds(run->fed); r++) { /* every one */
			rec->bytes_up += fb_ledger_bytes(l, r, FB_UP);
			rec->bytes_down += fb_ledger_bytes(l, r, FB_DOWN);
		}
	}
	rec->say = run->say.len > 0 ? fb_xstrdup(run->say.data) : NULL;
	record_clients(run, rec, fed_before);
	record_estimate(run, rec);
	run->trace.kept += rec->kept;
	trace_trim(&run->trace);
	return FB_OK;
}

/* Score the run against another truth. */
void fb_run_set_truth(fb_run *run, const fb_graph *truth)
{
	fb_graph_free(run->truth_cpdag);
	run->truth_cpdag = NULL;
	run->truth = truth;
	for (size_t i = 0; i + 1 < run->trace.n; i++)
		run->trace.r[i].scored = false; /* their estimates are gone */
	if (run->trace.n > 0)
		record_estimate(run, &run->trace.r[run->trace.n - 1]);
}

/* Threshold the kept weights again. */
int fb_run_set_threshold(fb_run *run, const char *value, fb_error *err)
{
	char *word;
	int ret;

	if (run->algo->rethreshold == NULL || fb_params_find(&run->params, "threshold") < 0)
		return fb_fail(err, "%s does not make its graph by thresholding weights it keeps",
		               run->name);
	word = fb_xasprintf("threshold=%s", value);
	ret = fb_params_set_word(&run->params, word, run->name, err);
	free(word);
	if (ret != FB_OK)
		return FB_ERR;
	run->algo->rethreshold(run, fb_params_double(&run->params, "threshold"));
	if (run->trace.n > 0)
		record_estimate(run, &run->trace.r[run->trace.n - 1]);
	return FB_OK;
}

/* Whether the run has finished. */
bool fb_run_done(const fb_run *run)
{
	return run->algo->done(run);
}

/* Rounds done. */
size_t fb_run_rounds(const fb_run *run)
{
	return run->trace.n;
}

/* The last record. */
const fb_trace_rec *fb_run_last(const fb_run *run)
{
	return run->trace.n > 0 ? &run->trace.r[run->trace.n - 1] : NULL;
}

/* The current estimate. */
fb_graph *fb_run_result(const fb_run *run, fb_error *err)
{
	return run->algo->result(run, err);
}

/* Client k's own estimate. */
fb_graph *fb_run_client_result(const fb_run *run, size_t k, fb_error *err)
{
	if (run->algo->client_result == NULL)
		return fb_fail(err, "%s keeps no graph of each client's own", run->name), NULL;
	return run->algo->client_result(run, k, err);
}

/* Accuracy against the truth: the newest round's score, which every change of the estimate
 * or the truth makes again (no second copy of a large estimate), else scored here. */
int fb_run_score(const fb_run *run, fb_score *s, fb_error *err)
{
	const fb_trace_rec *last = fb_run_last(run);
	fb_graph *g;
	int ret;

	if (run->truth == NULL)
		return fb_fail(err, "there is no truth to score %s against", run->name);
	if (run->algo->score != NULL)
		return run->algo->score(run, s, err);
	if (last != NULL && last->scored) {
		*s = last->score;
		return FB_OK;
	}
	if ((g = run->algo->result(run, err)) == NULL)
		return FB_ERR;
	ret = fb_score_graph_with(g, run->truth, run->truth_cpdag, s, err);
	fb_graph_free(g);
	return ret;
}

/* The algorithm's note. */
const char *fb_run_note(const fb_run *run)
{
	const char *n = run->algo->note != NULL ? run->algo->note(run) : NULL;

	return n != NULL ? n : "";
}

/* Whether the run's algorithm gives weights. */
bool fb_run_has_weights(const fb_run *run)
{
	return run->algo->weights != NULL;
}

/* The run's current weights. */
int fb_run_weights(const fb_run *run, double *w, fb_error *err)
{
	if (!fb_run_has_weights(run))
		return fb_fail(err, "%s gives no weights", run->name);
	return run->algo->weights(run, w, err);
}

/* Total bytes in one direction. */
size_t fb_run_bytes(const fb_run *run, enum fb_dir dir)
{
	return run->fed != NULL ? fb_ledger_bytes(fb_fed_ledger(run->fed), 0, dir) : 0;
}

/* Whether the run learns a PAG. */
bool fb_run_is_pag(const fb_run *run)
{
	return run->algo->pag != NULL;
}

/* The run's PAG. */
fb_pag *fb_run_pag(const fb_run *run, fb_error *err)
{
	if (!fb_run_is_pag(run)) {
		fb_fail(err, "%s learns no PAG (only fci does)", run->name);
		return NULL;
	}
	return run->algo->pag(run, err);
}

/* Whether the run's result is a circuit. */
bool fb_run_is_circuit(const fb_run *run)
{
	return ((run->algo->flags | (run->inner != NULL ? run->inner->flags : 0)) &
	        FB_ALGO_CIRCUIT) != 0;
}

/* The run's circuit. */
const fb_circuit *fb_run_circuit(const fb_run *run, fb_error *err)
{
	if (!fb_run_is_circuit(run) || run->algo->circuit == NULL)
		return fb_fail(err, "run %s learns a graph, not a circuit", run->name), NULL;
	return run->algo->circuit(run, err);
}

/* The figures of the run's circuit(s). */
int fb_run_circuit_report(const fb_run *run, fb_circuit_report *rep, fb_error *err)
{
	if (!fb_run_is_circuit(run) || run->algo->circuit_report == NULL)
		return fb_fail(err, "run %s learns a graph, not a circuit", run->name);
	return run->algo->circuit_report(run, rep, err);
}

/* Set the round's sentence. */
void fb_run_say(fb_run *run, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fb_xvasprintf(fmt, ap);
	va_end(ap);
	run->say.len = 0;
	fb_buf_printf(&run->say, "%s", s);
	free(s);
}

/* The named values of the run's figures: its algorithm's, else its learner's. */
static const fb_figure_level *run_levels(const fb_run *run)
{
	if (run->algo->levels != NULL || run->inner == NULL)
		return run->algo->levels;
	return run->inner->levels;
}

/* Whether figure f is categorical. */
bool fb_run_figure_categorical(const fb_run *run, size_t f)
{
	const fb_figure_level *l = run_levels(run);

	for (; f < run->trace.nfig && l != NULL && l->figure != NULL; l++)
		if (strcmp(l->figure, run->figures[f]) == 0)
			return true;
	return false;
}

/* The name of value v of figure f, or NULL. */
const char *fb_run_figure_level(const fb_run *run, size_t f, double v)
{
	const fb_figure_level *l = run_levels(run);

	for (; f < run->trace.nfig && l != NULL && l->figure != NULL; l++)
		if (strcmp(l->figure, run->figures[f]) == 0 && l->value == v)
			return l->name;
	return NULL;
}

/* Variable i's name in at most 5 bytes into buf: whole when it fits, else its start (whole
 * characters), then ~ and its trailing digits when it has some (Variable12 as Va~12), so that
 * numbered names stay apart. */
static const char *matrix_label(const fb_run *run, size_t i, char *buf)
{
	const char *name = i < run->data->d ? run->data->vars[i].name : "";
	size_t n = strlen(name), digits = 0, head;

	if (n <= 5) {
		memcpy(buf, name, n + 1);
		return buf;
	}
	while (digits < n && name[n - 1 - digits] >= '0' && name[n - 1 - digits] <= '9')
		digits++;
	digits = digits + 2 <= 5 ? digits : 0;
	head = digits > 0 ? 5 - 1 - digits : 5;
	while (head > 0 && ((unsigned char)name[head] & 0xC0) == 0x80)
		head--; /* back to the first byte of a character */
	memcpy(buf, name, head);
	if (digits > 0) {
		buf[head] = '~';
		memcpy(buf + head + 1, name + n - digits, digits);
	}
	buf[head + (digits > 0 ? 1 + digits : 0)] = '\0';
	return buf;
}

/* v in at most 5 columns: 0 when it rounds to it, else two decimals as room allows. */
static const char *matrix_cell(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (a < 0.005)
		snprintf(buf, len, "0");
	else if (a < 10)
		snprintf(buf, len, "%.2f", v);
	else if (a < 100)
		snprintf(buf, len, "%.1f", v);
	else if (a < 1e4)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.0e", v);
	return buf;
}

/* The d x d matrix m with row and column labels. */
void fb_run_matrix_text(const fb_run *run, const double *m, size_t d, fb_buf *out)
{
	char lab[8], cell[32];
	double diag = 0;

	fb_buf_printf(out, "\n%5s", "");
	for (size_t j = 0; j < d; j++)
		fb_buf_printf(out, " %5s", matrix_label(run, j, lab));
	for (size_t i = 0; i < d; i++) {
		fb_buf_printf(out, "\n%-5s", matrix_label(run, i, lab));
		for (size_t j = 0; j < d; j++)
			fb_buf_printf(out, " %5s", matrix_cell(m[i * d + j], cell, sizeof cell));
		diag = fabs(m[i * d + i]) > diag ? fabs(m[i * d + i]) : diag;
	}
	if (diag >= 0.005)
		fb_buf_printf(out, "\nthe diagonal (up to %.2f) is each variable's weight on "
		              "itself, no edge: the acyclicity penalty h(W) drives the server's to "
		              "zero, and the clients' follow", diag);
}

/* A kept message of a record, readably. */
int fb_run_message_text(const fb_run *run, const fb_trace_rec *rec, enum fb_dir dir, size_t k,
                        fb_buf *out, fb_error *err)
{
	const fb_msg *m;
	size_t before = out->len;

	if (k >= rec->nclients)
		return fb_fail(err, "round %zu has no client %zu", rec->round, k + 1);
	if (!rec->msgs_kept)
		return fb_fail(err, "round %zu's messages are no longer kept", rec->round);
	if (!rec->took[k])
		return fb_fail(err, "client %zu sat round %zu out", k + 1, rec->round);
	m = dir == FB_UP ? &rec->up[k] : &rec->down;
	if (dir == FB_UP && run->fedopt.secure) { /* what reached the server: masked */
		fb_buf_printf(out, "masked by secure aggregation: %zu bytes of numbers modulo 2^64, "
		              "which show nothing of client %zu's own vector without the others'",
		              m->nb, k + 1);
		return FB_OK;
	}
	if (run->algo->message != NULL)
		run->algo->message(run, dir, m, out);
	if (out->len == before)
		return fb_fail(err, "%s's message is not shown in words (%zu numbers, %zu other "
		               "bytes)", run->name, m->nd, m->nb);
	return FB_OK;
}
