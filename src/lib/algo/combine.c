/* The baselines of the papers as combinators over any local learner A:
 *   all:A     A on the pooled rows (not federated: a reference point),
 *   sep:A     A on each client alone; accuracy is the mean over the clients,
 *   voting:A  an edge is kept when more than a share of the clients found it,
 *   avg:A     the clients' unthresholded weight matrices averaged, then thresholded,
 *   best:A    the client graph closest to the truth (an oracle: it needs the truth).
 * Apart from all:, each is one federated round: every client runs A to the end on its own
 * rows and sends one d x d matrix; the server combines them.  voting: and avg: need only the
 * sum of the matrices over the clients (FB_ALGO_SUMMED): avg:'s server is handed that sum
 * alone; voting:'s rule reads only the count of each mark (fb_combine_vote_counts), but its
 * server still decodes each client's graph, which it keeps as the client's result, except
 * under secure aggregation, where each client sends its marks as 0/1 numbers and the server
 * is handed their sum, the counts, alone (and keeps no client graph).  best: and sep: need
 * each client's graph. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/honour.h"
#include "fedbn/notears.h"
#include "combine.h"

/* The state of a combinator run. */
typedef struct comb {
	size_t k, d;        /* clients and variables */
	fb_graph **graphs;  /* each client's final estimate, as the server decoded it */
	fb_graph *result;   /* the combined estimate (voting, avg, best) */
	size_t best;        /* best: the chosen client */
	bool done;          /* the round has run */
	char **names;       /* the d variable names (shared metadata, not data) */
	fb_run *pooled;     /* all: the learner's run on the pooled data */
	fb_run **local;     /* sep: of a circuit learner: each client's own run, kept on the
	                       client (k, owned) */
	fb_circuit_report rep; /* sep: of a circuit learner: the clients' figures together */
} comb;

/* Parameters of the learner, taken by name from the combination's values. */
static void learner_params(const fb_run *run, fb_params *p)
{
	fb_error err;

	fb_params_init(p, run->inner->params, &err);
	for (size_t i = 0; i < p->n; i++) {
		int j = fb_params_find(&run->params, p->defs[i].name);

		if (j >= 0) {
			free(p->v[i].s);
			p->v[i] = run->params.v[j];
			p->v[i].s = run->params.v[j].s != NULL ? fb_xstrdup(run->params.v[j].s) : NULL;
		}
	}
}

/* Run the learner to its end on one dataset; its final estimate and, when w != NULL, its
 * unthresholded weights (d*d). */
static fb_graph *learn_afresh(const fb_run *run, const fb_params *p, const fb_dataset *ds,
                              double *w, fb_error *err)
{
	fb_run_spec spec = { .algo = run->inner->name, .params = p, .data = ds,
	                     .knowledge = fb_run_knowledge(run) };
	fb_run *local = fb_run_alloc(&spec, err);
	fb_graph *g = NULL;

	if (local == NULL)
		return NULL;
	while (!fb_run_done(local))
		if (fb_run_step(local, err) != FB_OK)
			goto out;
	if (w != NULL && fb_run_weights(local, w, err) != FB_OK)
		goto out;
	g = fb_run_result(local, err);
out:
	fb_run_free(local);
	return g;
}

/* The learner's final estimate on one dataset (and its weights into w when w != NULL): the
 * run's memo's fit when it has one, else learned afresh and, with a memo, remembered with
 * the weights of a weighted learner, so that avg: can reuse what voting: learned. */
static fb_graph *learn_locally(const fb_run *run, const fb_dataset *ds, double *w,
                               fb_error *err)
{
	bool keep_w = (run->inner->flags & FB_ALGO_WEIGHTED) && run->inner->weights != NULL;
	fb_fit_memo *memo = run->memo;
	double *mine = NULL;
	fb_params p;
	fb_graph *g = NULL;

	learner_params(run, &p);
	if (!fb_knowledge_is_empty(fb_run_knowledge(run))) /* the memo's fits know nothing */
		memo = NULL;
	if (memo != NULL &&
	    (g = fb_fit_memo_find(memo, run->inner->name, &p, ds, w)) != NULL)
		goto out;
	if (memo != NULL && w == NULL && keep_w)
		w = mine = fb_xmalloc(ds->d * ds->d * sizeof *mine);
	g = learn_afresh(run, &p, ds, w, err);
	if (memo != NULL && g != NULL)
		fb_fit_memo_add(memo, run->inner->name, &p, ds, g, keep_w ? w : NULL);
out:
	free(mine);
	fb_params_release(&p);
	return g;
}

/* Write g as d*d numbers: the weight (1 when unweighted) where g has i -> j, and both (i,j)
 * and (j,i) set to 1 for i - j. */
static void encode_graph(const fb_graph *g, double *out)
{
	size_t d = g->d;

	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);

			out[i * d + j] = e == FB_EDGE_FORWARD ? (g->weighted ? g->w[i * d + j] : 1.0)
			               : e == FB_EDGE_UNDIRECTED ? 1.0 : 0.0;
			if (e == FB_EDGE_FORWARD && out[i * d + j] == 0.0)
				out[i * d + j] = 1.0;
		}
	}
}

/* Read back what encode_graph wrote, with the names of names (d of them). */
static fb_graph *decode_graph(const double *in, size_t d, char *const *names, bool weighted)
{
	fb_graph *g = fb_graph_alloc(d);

	g->weighted = weighted;
	for (size_t i = 0; i < d; i++)
		fb_graph_set_name(g, i, names[i], NULL);
	for (size_t i = 0; i < d; i++) {
		for (size_t j = 0; j < d; j++) {
			bool ij = in[i * d + j] != 0.0, ji = in[j * d + i] != 0.0;

			if (ij && ji && i < j)
				fb_graph_set_undirected(g, i, j);
			else if (ij && !ji)
				fb_graph_set_directed(g, i, j, in[i * d + j]);
		}
	}
	return g;
}

/* Client k: learn on its own rows, send its graph (avg: its unthresholded weights). */
static int comb_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                       fb_msg *up, double *figure, fb_error *err)
{
	const fb_run *run = state;
	bool avg = run->algo == &fb_algo_avg;
	size_t d = local->d;
	double *w = fb_msg_doubles(up, d * d);
	fb_graph *g = learn_locally(run, local, avg ? w : NULL, err);

	if (g == NULL)
		return FB_ERR;
	if (!avg)
		encode_graph(g, w);
	*figure = (double)fb_graph_n_edges(g);
	fb_graph_free(g);
	return FB_OK;
}

/* Keep each mark whose count (of the heard clients that found it) is above share of them. */
fb_graph *fb_combine_vote_counts(const double *count, size_t heard, size_t d, double share,
                                 char *const *names)
{
	double *keep = fb_xcalloc(d * d, sizeof *keep);
	fb_graph *g;

	for (size_t e = 0; e < d * d; e++)
		keep[e] = count[e] > share * (double)heard ? 1.0 : 0.0;
	g = decode_graph(keep, d, names, false);
	free(keep);
	return g;
}

/* Keep each mark found by more than share of the k matrices (NULL ones sat out). */
fb_graph *fb_combine_vote(const double *const *mats, size_t k, size_t d, double share,
                          char *const *names)
{
	double *count = fb_xcalloc(d * d, sizeof *count);
	size_t heard = 0;
	fb_graph *g;

	for (size_t m = 0; m < k; m++) {
		if (mats[m] == NULL)
			continue;
		heard++;
		for (size_t e = 0; e < d * d; e++)
			count[e] += mats[m][e] != 0.0 ? 1.0 : 0.0;
	}
	g = fb_combine_vote_counts(count, heard, d, share, names);
	free(count);
	return g;
}

/* The mean sum / heard of the clients' weight matrices with |w| <= threshold set to zero;
 * where both directions of a pair survive, the larger |w| is kept (a graph holds one relation
 * per pair). */
fb_graph *fb_combine_mean(const double *sum, size_t heard, size_t d, double threshold,
                          char *const *names)
{
	double *mean = fb_xmalloc(d * d * sizeof *mean);
	gsl_matrix_view W = gsl_matrix_view_array(mean, d, d);
	fb_graph *g;

	for (size_t e = 0; e < d * d; e++)
		mean[e] = heard > 0 ? sum[e] / (double)heard : sum[e];
	g = fb_weights_to_graph(&W.matrix, threshold, names, NULL);
	free(mean);
	return g;
}

/* The index of the graph with the lowest SHD against truth (ties: the lowest index); k when
 * none can be scored. */
size_t fb_combine_best(fb_graph *const *graphs, size_t k, const fb_graph *truth)
{
	size_t best = k, best_shd = (size_t)-1;

	for (size_t m = 0; m < k; m++) {
		fb_metrics mt;

		if (graphs[m] != NULL && fb_metrics_compute(graphs[m], truth, &mt, NULL) == FB_OK &&
		    mt.shd < best_shd) {
			best_shd = mt.shd;
			best = m;
		}
	}
	return best;
}

/* The clients' messages as a table of k matrices (NULL where a client sat out). */
static const double **client_mats(const fb_msg *const *up, size_t k)
{
	const double **mats = fb_xcalloc(k, sizeof *mats);

	for (size_t m = 0; m < k; m++)
		mats[m] = up[m] != NULL ? up[m]->d : NULL;
	return mats;
}

/* Server: decode every client's graph, then combine them as the combinator says. */
static int comb_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                       fb_error *err)
{
	fb_run *run = state;
	comb *c = run->state;

	const double **mats = client_mats(up, k);

	(void)err;
	for (size_t m = 0; m < k; m++)
		if (up[m] != NULL)
			c->graphs[m] = decode_graph(up[m]->d, c->d, c->names,
			                            (run->inner->flags & FB_ALGO_WEIGHTED) != 0);
	if (run->algo == &fb_algo_voting)
		c->result = fb_combine_vote(mats, k, c->d, fb_params_double(&run->params, "vote"),
		                            c->names);
	else if (run->algo == &fb_algo_best && (c->best = fb_combine_best(c->graphs, k, run->truth)) < k)
		c->result = fb_graph_copy(c->graphs[c->best]);
	fb_honour_graph(fb_run_knowledge(run), c->result, false);
	free(mats);
	fb_msg_doubles(down, 0);
	c->done = true;
	return FB_OK;
}

/* avg: under knowledge: the mean thresholded again with forbidden entries zero and required
 * ones kept whatever their weight (nothing to do without knowledge). */
static void comb_honour_mean(fb_run *run, const fb_fed_total *in)
{
	const fb_knowledge *kn = fb_run_knowledge(run);
	comb *c = run->state;
	double *mean;
	fb_graph *g;

	if (fb_knowledge_is_empty(kn))
		return;
	mean = fb_xmalloc(c->d * c->d * sizeof *mean);
	for (size_t e = 0; e < c->d * c->d; e++)
		mean[e] = in->count > 0 ? in->sum[e] / (double)in->count : in->sum[e];
	gsl_matrix_view W = gsl_matrix_view_array(mean, c->d, c->d);
	g = fb_honour_weights_graph(&W.matrix, fb_params_double(&run->params, "avg_threshold"),
	                            c->names, kn, NULL);
	free(mean);
	if (g == NULL)
		return;
	fb_graph_free(c->result);
	c->result = g;
}

/* avg:, the server: the mean of the clients' weight matrices, from their sum alone. */
static int avg_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fb_run *run = state;
	comb *c = run->state;

	c->result = fb_combine_mean(in->sum, in->count, c->d,
	                            fb_params_double(&run->params, "avg_threshold"), c->names);
	if (c->result == NULL)
		return fb_fail(err, "the clients' weights average to non-finite values");
	comb_honour_mean(run, in);
	fb_msg_doubles(down, 0);
	c->done = true;
	return FB_OK;
}

/* avg:: each client's d x d weights are summed. */
static size_t avg_sum_len(const void *state)
{
	const comb *c = ((const fb_run *)state)->state;

	return c->d * c->d;
}

/* voting: under secure aggregation, client k: its graph's marks as 0/1 numbers, whose sum
 * over the clients is the count of each mark. */
static int vote_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                       fb_msg *up, double *figure, fb_error *err)
{
	if (comb_client(state, k, local, down, up, figure, err) != FB_OK)
		return FB_ERR;
	for (size_t e = 0; e < up->nd; e++)
		up->d[e] = up->d[e] != 0.0 ? 1.0 : 0.0;
	return FB_OK;
}

/* voting: under secure aggregation, the server: the vote rule on the counts alone. */
static int vote_server(void *state, const fb_fed_total *in, fb_msg *down, fb_error *err)
{
	fb_run *run = state;
	comb *c = run->state;

	(void)err;
	c->result = fb_combine_vote_counts(in->sum, in->count, c->d,
	                                   fb_params_double(&run->params, "vote"), c->names);
	fb_msg_doubles(down, 0);
	c->done = true;
	return FB_OK;
}

/* The two halves of voting:, best: and sep: over a graph learner. */
static const fb_fed_ops comb_ops = { .client = comb_client, .server = comb_server };
/* The two halves of avg:, whose server needs only the sum of the clients' weights. */
static const fb_fed_ops avg_ops = { .client = comb_client, .server_sum = avg_server,
	                            .sum_len = avg_sum_len };
/* The two halves of voting: under secure aggregation: the server is handed the counts. */
static const fb_fed_ops vote_ops = { .client = vote_client, .server_sum = vote_server,
	                             .sum_len = avg_sum_len };

/* The numbers of a circuit's size, in the order a sep: client sends them. */
#define CIRC_NSTATS 7

/* sep: of a circuit learner, client k: learn on its own training rows, evaluate its own
 * rows of every part, keep the circuit, and send only the log-likelihood sums (n, sum,
 * sum of squares per part) and the circuit's size. */
static int circ_client(void *state, size_t k, const fb_dataset *local, const fb_msg *down,
                       fb_msg *up, double *figure, fb_error *err)
{
	const fb_run *run = state;
	comb *c = run->state;
	fb_params p;
	fb_run_spec spec = { .algo = run->inner->name, .params = &p,
	                     .data = run->whole_part->clients[k].data };
	fb_circuit_report rep;
	double *out = fb_msg_doubles(up, 3 * FB_NPARTS + CIRC_NSTATS);

	learner_params(run, &p);
	c->local[k] = fb_run_alloc(&spec, err);
	fb_params_release(&p);
	if (c->local[k] == NULL)
		return FB_ERR;
	while (!fb_run_done(c->local[k]))
		if (fb_run_step(c->local[k], err) != FB_OK)
			return FB_ERR;
	if (fb_run_circuit_report(c->local[k], &rep, err) != FB_OK)
		return FB_ERR;
	for (int q = 0; q < FB_NPARTS; q++) {
		out[3 * q] = (double)rep.ll[q].n;
		out[3 * q + 1] = rep.ll[q].sum;
		out[3 * q + 2] = rep.ll[q].sumsq;
	}
	out += 3 * FB_NPARTS;
	out[0] = (double)rep.stats.nodes, out[1] = (double)rep.stats.sums;
	out[2] = (double)rep.stats.products, out[3] = (double)rep.stats.leaves;
	out[4] = (double)rep.stats.depth, out[5] = (double)rep.stats.params;
	out[6] = (double)rep.stats.bytes;
	*figure = (double)rep.stats.nodes;
	return FB_OK;
}

/* sep: of a circuit learner, the server: add up the clients' sums and sizes. */
static int circ_server(void *state, const fb_msg *const *up, size_t k, fb_msg *down,
                       fb_error *err)
{
	fb_run *run = state;
	comb *c = run->state;

	memset(&c->rep, 0, sizeof c->rep);
	for (size_t m = 0; m < k; m++) {
		const double *in = up[m] != NULL ? up[m]->d : NULL, *z;

		if (in == NULL)
			continue;
		for (int q = 0; q < FB_NPARTS; q++) {
			c->rep.ll[q].n += (size_t)in[3 * q];
			c->rep.ll[q].sum += in[3 * q + 1];
			c->rep.ll[q].sumsq += in[3 * q + 2];
		}
		z = in + 3 * FB_NPARTS;
		fb_circuit_stats_add(&c->rep.stats, &(fb_circuit_stats){
			.nodes = (size_t)z[0], .sums = (size_t)z[1], .products = (size_t)z[2],
			.leaves = (size_t)z[3], .depth = (size_t)z[4], .params = (size_t)z[5],
			.bytes = (size_t)z[6] });
		c->rep.ncircuits++;
	}
	fb_msg_doubles(down, 0);
	c->done = true;
	return FB_OK;
}

/* The two halves of sep: over a circuit learner. */
static const fb_fed_ops circ_ops = { .client = circ_client, .server = circ_server };

/* Set up a one-round combinator. */
static int comb_create(fb_run *run, fb_error *err)
{
	comb *c = fb_xcalloc(1, sizeof *c);

	c->k = run->part->k;
	c->d = run->data->d;
	c->graphs = fb_xcalloc(c->k, sizeof *c->graphs);
	c->names = fb_dataset_names(run->data);
	if (run->inner->flags & FB_ALGO_CIRCUIT)
		c->local = fb_xcalloc(c->k, sizeof *c->local);
	run->state = c;
	return FB_OK;
}

/* The round in words: what the clients learned and how the server combined it. */
static void comb_say(fb_run *run, size_t found, size_t reused)
{
	const char *how = "the server kept the edges found by more than the vote share of them";
	char again[160] = "";

	if (run->inner->flags & FB_ALGO_CIRCUIT)
		how = "each sent only its log-likelihood sums and its circuit's size, which the "
		      "server added up";
	else if (run->algo == &fb_algo_sep)
		how = "nothing is combined: the accuracy is the mean of the clients' graphs";
	else if (run->algo == &fb_algo_avg)
		how = "the server averaged their weights and thresholded the mean";
	else if (run->algo == &fb_algo_best)
		how = "the server reports the client graph closest to the truth (an oracle)";
	if (reused > 0)
		snprintf(again, sizeof again, " (%zu of them took their fit of an earlier run with "
		         "the same parameters and rows instead of learning again)", reused);
	fb_run_say(run, "%zu clients each ran %s alone on their own rows to the end and sent "
	           "the result%s; %s", found, run->inner->name, again, how);
}

/* The halves a one-round combinator runs over the federation. */
static const fb_fed_ops *comb_ops_of(const fb_run *run)
{
	if (run->inner->flags & FB_ALGO_CIRCUIT)
		return &circ_ops;
	if (run->algo == &fb_algo_voting && run->fedopt.secure)
		return &vote_ops;
	return run->algo == &fb_algo_avg ? &avg_ops : &comb_ops;
}

/* The one round: every client learns and sends, the server combines. */
static int comb_step(fb_run *run, double *fig, fb_error *err)
{
	comb *c = run->state;
	size_t found = 0, hits = run->memo != NULL ? fb_fit_memo_hits(run->memo) : 0;

	if (fb_fed_round(run->fed, comb_ops_of(run), run, err) != FB_OK)
		return FB_ERR;
	for (size_t m = 0; m < c->k; m++)
		found += fb_fed_took_part(run->fed, m);
	fig[0] = (double)found;
	comb_say(run, found, run->memo != NULL ? fb_fit_memo_hits(run->memo) - hits : 0);
	return FB_OK;
}

/* Finished after its one round. */
static bool comb_done(const fb_run *run)
{
	return ((const comb *)run->state)->done;
}

/* The combined estimate. */
static fb_graph *comb_result(const fb_run *run, fb_error *err)
{
	const comb *c = run->state;

	if (!c->done)
		return fb_fail(err, "%s has not run its round yet", run->name), NULL;
	if (c->result == NULL)
		return fb_fail(err, "%s keeps one graph per client: client=K names client K's "
		                    "(1 to %zu)", run->name, c->k), NULL;
	return fb_graph_copy(c->result);
}

/* Client k's own estimate. */
static fb_graph *comb_client_result(const fb_run *run, size_t k, fb_error *err)
{
	const comb *c = run->state;

	if (k >= c->k)
		return fb_fail(err, "%s has clients 1 to %zu, not %zu", run->name, c->k, k + 1),
		       NULL;
	if (c->graphs[k] == NULL)
		return fb_fail(err, "client %zu has no graph", k + 1), NULL;
	return fb_graph_copy(c->graphs[k]);
}

/* sep: the mean accuracy of the clients' graphs. */
static int sep_score(const fb_run *run, fb_score *s, fb_error *err)
{
	const comb *c = run->state;
	size_t n = 0;

	memset(s, 0, sizeof *s);
	for (size_t m = 0; m < c->k; m++) {
		fb_score one;

		if (c->graphs[m] == NULL)
			continue;
		if (fb_score_graph(c->graphs[m], run->truth, &one, err) != FB_OK)
			return FB_ERR;
		s->shd_dag += one.shd_dag, s->shd_cpdag += one.shd_cpdag;
		s->shd += one.shd, s->extra += one.extra, s->missing += one.missing;
		s->reversed += one.reversed, s->tp += one.tp, s->nnz += one.nnz;
		s->tpr += one.tpr, s->fdr += one.fdr, s->precision += one.precision;
		s->recall += one.recall, s->f1 += one.f1;
		s->cyclic |= one.cyclic;
		n++;
	}
	if (n == 0)
		return fb_fail(err, "%s has no client graph yet", run->name);
	s->shd /= (double)n, s->extra /= (double)n, s->missing /= (double)n;
	s->shd_dag /= (double)n, s->shd_cpdag /= (double)n;
	s->reversed /= (double)n, s->tp /= (double)n, s->nnz /= (double)n;
	s->tpr /= (double)n, s->fdr /= (double)n, s->precision /= (double)n;
	s->recall /= (double)n, s->f1 /= (double)n;
	return FB_OK;
}

/* Free a combinator's state. */
static void comb_destroy(fb_run *run)
{
	comb *c = run->state;

	for (size_t m = 0; m < c->k; m++)
		fb_graph_free(c->graphs[m]);
	free(c->graphs);
	fb_names_free(c->names, c->d);
	fb_graph_free(c->result);
	fb_run_free(c->pooled);
	for (size_t m = 0; c->local != NULL && m < c->k; m++)
		fb_run_free(c->local[m]);
	free(c->local);
	free(c);
	run->state = NULL;
}

/* What each combinator's result is. */
static const char *comb_note(const fb_run *run)
{
	if (run->algo == &fb_algo_sep && (run->inner->flags & FB_ALGO_CIRCUIT))
		return "one circuit per client, learned and evaluated on its own rows; the "
		       "log-likelihoods are over every client's rows";
	if (run->algo == &fb_algo_sep)
		return "one graph per client; accuracy is the mean over the clients";
	if (run->algo == &fb_algo_voting)
		return "edges found by more than the vote share of the clients; no cycle removal";
	if (run->algo == &fb_algo_avg)
		return "mean of the clients' unthresholded weights, thresholded; no cycle removal";
	if (run->algo == &fb_algo_best)
		return "the client graph closest to the truth (an oracle, for reference only)";
	return NULL;
}

/* all: start the learner on the pooled rows. */
static int all_create(fb_run *run, fb_error *err)
{
	comb *c = fb_xcalloc(1, sizeof *c);
	fb_params p;
	fb_run_spec spec = { .algo = run->inner->name, .params = &p, .data = run->whole,
	                     .knowledge = fb_run_knowledge(run) };

	learner_params(run, &p);
	c->pooled = fb_run_alloc(&spec, err);
	fb_params_release(&p);
	run->state = c;
	if (c->pooled == NULL)
		return FB_ERR;
	return FB_OK;
}

/* all: one step of the learner. */
static int all_step(fb_run *run, double *fig, fb_error *err)
{
	const comb *c = run->state;
	const fb_trace_rec *r;

	if (fb_run_step(c->pooled, err) != FB_OK)
		return FB_ERR;
	r = fb_run_last(c->pooled);
	memcpy(fig, r->fig, run->trace.nfig * sizeof *fig);
	fb_run_say(run, "on all rows pooled in one place: %s", r->say != NULL ? r->say : "");
	return FB_OK;
}

/* all: done when the learner is. */
static bool all_done(const fb_run *run)
{
	return fb_run_done(((const comb *)run->state)->pooled);
}

/* all: the learner's estimate. */
static fb_graph *all_result(const fb_run *run, fb_error *err)
{
	return fb_run_result(((const comb *)run->state)->pooled, err);
}

/* all: the learner's weights. */
static int all_weights(const fb_run *run, double *w, fb_error *err)
{
	return fb_run_weights(((const comb *)run->state)->pooled, w, err);
}

/* all: the learner thresholds its kept weights again. */
static void all_rethreshold(fb_run *run, double t)
{
	fb_run *in = ((comb *)run->state)->pooled;

	if (in->algo->rethreshold != NULL)
		in->algo->rethreshold(in, t);
}

/* all: the learner's circuit. */
static const fb_circuit *all_circuit(const fb_run *run, fb_error *err)
{
	return fb_run_circuit(((const comb *)run->state)->pooled, err);
}

/* all: the learner's circuit figures. */
static int all_circuit_report(const fb_run *run, fb_circuit_report *rep, fb_error *err)
{
	return fb_run_circuit_report(((const comb *)run->state)->pooled, rep, err);
}

/* sep: no single circuit: one per client. */
static const fb_circuit *sep_circuit(const fb_run *run, fb_error *err)
{
	return fb_fail(err, "%s keeps one circuit per client, on the client", run->name), NULL;
}

/* sep: the clients' figures together. */
static int sep_circuit_report(const fb_run *run, fb_circuit_report *rep, fb_error *err)
{
	const comb *c = run->state;

	if (!c->done)
		return fb_fail(err, "%s has not run its round yet", run->name);
	*rep = c->rep;
	return FB_OK;
}

/* all: what it is. */
static const char *all_note(const fb_run *run)
{
	return "not federated: every row pooled in one place (a reference point)";
}

/* The combinators' own parameters. */
static const fb_param_def no_params[] = { { 0 } };
static const fb_param_def voting_params[] = {
	{ "vote", FB_PARAM_DOUBLE, "0.5", 0, 1, NULL,
	  "keep an edge found by more than this share of the clients" },
	{ 0 },
};
static const fb_param_def avg_params[] = {
	{ "avg_threshold", FB_PARAM_DOUBLE, "0.3", 0, 1e6, NULL,
	  "zero the averaged weights with |w| at most this" },
	{ 0 },
};

/* The one figure of a one-round combinator. */
static const char *const comb_figures[] = { "clients", NULL };

const fb_algo fb_algo_all = {
	.name = "all", .summary = "the learner on all rows pooled (not federated)",
	.intro = "A reference point, not a federated method: the learner runs once on every "
	         "client's rows put together. It shows what federation tries to reach without "
	         "moving the rows.",
	.help = "all:A runs learner A on the pooled dataset, as if the rows were in one place. "
	        "It is the reference the federated methods try to reach, not a federated method.",
	.flags = FB_ALGO_COMBINATOR | FB_ALGO_TAKES_CIRCUITS,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_ONE | FB_ACCEPTS_KNOWLEDGE,
	.params = no_params,
	.figures = NULL,
	.create = all_create, .step = all_step, .done = all_done, .result = all_result,
	.destroy = comb_destroy, .note = all_note, .weights = all_weights,
	.rethreshold = all_rethreshold, .circuit = all_circuit,
	.circuit_report = all_circuit_report,
};

const fb_algo fb_algo_sep = {
	.name = "sep", .summary = "the learner on each client alone; mean accuracy",
	.intro = "A baseline without any sharing: each client runs the learner on its own rows "
	         "alone. The accuracy reported is the clients' average, which shows what "
	         "federating gains.",
	.help = "sep:A runs learner A on each client's rows alone and reports the mean of the "
	        "clients' accuracies (what a client gets without federating).",
	.flags = FB_ALGO_COMBINATOR | FB_ALGO_REMOTE | FB_ALGO_TAKES_CIRCUITS,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = no_params, .figures = comb_figures, .client_figure = "edges",
	.create = comb_create, .step = comb_step, .done = comb_done, .result = comb_result,
	.destroy = comb_destroy, .note = comb_note, .score = sep_score,
	.client_result = comb_client_result, .circuit = sep_circuit,
	.circuit_report = sep_circuit_report,
};

const fb_algo fb_algo_voting = {
	.name = "voting", .summary = "edges found by more than half of the clients",
	.intro = "A simple federated baseline: every client learns its own graph, and the "
	         "server keeps each edge that more than a set share of the clients found.",
	.help = "voting:A runs learner A on each client's rows and keeps an edge when more than "
	        "vote (a share, default one half) of the clients found it (Na and Yang 2010). "
	        "The result may be cyclic; it is not post-processed.",
	.flags = FB_ALGO_COMBINATOR | FB_ALGO_REMOTE | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = voting_params, .figures = comb_figures, .client_figure = "edges",
	.create = comb_create, .step = comb_step, .done = comb_done, .result = comb_result,
	.destroy = comb_destroy, .note = comb_note, .client_result = comb_client_result,
};

const fb_algo fb_algo_avg = {
	.name = "avg", .summary = "the clients' weight matrices averaged, then thresholded",
	.intro = "A simple federated baseline: every client learns its own weight matrix, and "
	         "the server averages the matrices and drops the small weights.",
	.help = "avg:A runs a weighted learner A on each client's rows; the server averages the "
	        "clients' unthresholded weight matrices and zeroes |w| <= avg_threshold (0.3). "
	        "The result may be cyclic; it is not post-processed.",
	.flags = FB_ALGO_COMBINATOR | FB_ALGO_REMOTE | FB_ALGO_NEEDS_WEIGHTS | FB_ALGO_SUMMED,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = avg_params, .figures = comb_figures, .client_figure = "edges",
	.create = comb_create, .step = comb_step, .done = comb_done, .result = comb_result,
	.destroy = comb_destroy, .note = comb_note,
};

const fb_algo fb_algo_best = {
	.name = "best", .summary = "the client graph closest to the truth (oracle)",
	.intro = "A reference point that cheats: every client learns its own graph, and the "
	         "one closest to the true graph is reported. It works only when the truth is "
	         "known.",
	.help = "best:A runs learner A on each client's rows and reports the client graph with "
	        "the lowest SHD against the truth. It needs the truth: an oracle, useful only as "
	        "a reference point.",
	.flags = FB_ALGO_COMBINATOR | FB_ALGO_REMOTE | FB_ALGO_NEEDS_TRUTH,
	.accepts = FB_ACCEPTS_ANY_DATA | FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_KNOWLEDGE,
	.params = no_params, .figures = comb_figures, .client_figure = "edges",
	.create = comb_create, .step = comb_step, .done = comb_done, .result = comb_result,
	.destroy = comb_destroy, .note = comb_note, .client_result = comb_client_result,
};
