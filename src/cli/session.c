/* The shell's session: replacing its parts keeps them consistent, and keeps alive what past
 * runs still point at. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bnfit.h"
#include "session.h"

/* The options every run takes. */
const fb_param_def fb_session_run_options[] = {
	{ "threads", FB_PARAM_INT, "1", 1, 256, NULL,
	  "clients, the tests of pc with compat=causal-learn, or the operators of a ges step, "
	  "computed at once (results do not depend on it)" },
	{ "share", FB_PARAM_DOUBLE, "1", 1e-9, 1, NULL,
	  "share of clients taking part in each round (algorithms that allow it)" },
	{ "reuse", FB_PARAM_BOOL, "no", 0, 1, NULL,
	  "voting:, avg:, sep: and best: take a client's fit of an earlier run with the same "
	  "learner, parameters and rows instead of learning again (results do not depend on "
	  "it; a run's seconds then leave out the fits it took)" },
	{ "secure", FB_PARAM_BOOL, "no", 0, 1, NULL,
	  "form every sum the server receives by secure aggregation (pairwise masks that cancel "
	  "in the sum): fedpc, fedpc-simple1, fedc2sl, fedfci-pooled, gs-feddag, as-feddag, "
	  "as-feddag-linear, notears-admm, voting: and avg:; needs 3 clients" },
	{ "t", FB_PARAM_INT, "0", 0, 1000000, NULL,
	  "secure=yes: the clients whose shares rebuild a lost client's key (0: a majority)" },
	{ "secure_bits", FB_PARAM_INT, "30", 8, 52, NULL,
	  "secure=yes: fraction bits of the fixed point the sums are formed in (precision "
	  "2^-bits per number)" },
	{ "dp_epsilon", FB_PARAM_DOUBLE, "0", 0, 1e6, NULL,
	  "secure=yes: differential privacy: each client clips its vector to dp_clip and adds "
	  "its share of Gaussian noise to every sum (fedc2sl: nothing clipped, a row's "
	  "sensitivity sqrt(T'), T' the tables and level counts it touches, noise dp_sigma "
	  "times it); the run stops when the epsilon spent (zCDP over the sums) would pass this "
	  "(0: no noise)" },
	{ "dp_delta", FB_PARAM_DOUBLE, "1e-5", 1e-300, 0.5, NULL,
	  "dp_epsilon=: the delta of (epsilon, delta)" },
	{ "dp_sigma", FB_PARAM_DOUBLE, "10", 1e-3, 1e6, NULL,
	  "dp_epsilon=: each sum's noise, in multiples of its sensitivity dp_clip" },
	{ "dp_clip", FB_PARAM_DOUBLE, "1", 1e-12, 1e12, NULL,
	  "dp_epsilon=: the L2 norm each client's vector is clipped to" },
	{ 0 },
};

/* An empty session. */
void fb_session_init(fb_session *s)
{
	fb_error err;

	memset(s, 0, sizeof *s);
	s->seed = 1;
	fb_params_init(&s->runopt, fb_session_run_options, &err);
	s->memo = fb_fit_memo_alloc();
}

/* Whether some run points at p. */
static bool in_use(const fb_session *s, const void *p)
{
	for (size_t i = 0; i < s->nruns; i++)
		if ((const void *)s->runs[i]->whole == p || (const void *)s->runs[i]->whole_part == p ||
		    (const void *)s->runs[i]->truth == p)
			return true;
	return false;
}

/* Free p now, or keep it until the session ends when a run points at it. */
static void retire(fb_session *s, void *p, void (*free_fn)(void *))
{
	if (p == NULL)
		return;
	if (!in_use(s, p)) {
		free_fn(p);
		return;
	}
	s->retired = fb_xreallocarray(s->retired, s->nretired + 1, sizeof *s->retired);
	s->retired_free = fb_xreallocarray(s->retired_free, s->nretired + 1,
	                                   sizeof *s->retired_free);
	s->retired[s->nretired] = p;
	s->retired_free[s->nretired++] = free_fn;
}

/* fb_dataset_free with a void pointer. */
static void free_dataset(void *p) { fb_dataset_free(p); }
/* fb_graph_free with a void pointer. */
static void free_graph(void *p) { fb_graph_free(p); }
/* fb_partition_free with a void pointer. */
static void free_partition(void *p) { fb_partition_free(p); }

/* Free everything. */
void fb_session_release(fb_session *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		fb_run_free(s->runs[i]);
		free(s->meta[i].data);
		free(s->meta[i].label);
		free(s->meta[i].classified);
	}
	free(s->runs);
	free(s->meta);
	for (size_t i = 0; i < s->ngraphs; i++) {
		fb_graph_free(s->graphs[i].g);
		free(s->graphs[i].source);
		free(s->graphs[i].data);
	}
	free(s->graphs);
	s->nruns = 0;
	fb_dataset_free(s->data);
	fb_graph_free(s->truth);
	fb_pag_free(s->truth_pag);
	fb_knowledge_free(s->knowledge);
	fb_partition_free(s->split);
	fb_export_layout_free(s->layout);
	for (size_t i = 0; i < s->nretired; i++)
		s->retired_free[i](s->retired[i]);
	free(s->retired);
	free(s->retired_free);
	free(s->files);
	for (size_t i = 0; i < s->nhist; i++) {
		free(s->hist[i].typed);
		free(s->hist[i].saved);
	}
	free(s->hist);
	for (size_t i = 0; i < s->nproducts; i++) {
		free(s->products[i].path);
		free(s->products[i].from);
	}
	free(s->products);
	free(s->data_source);
	free(s->truth_source);
	if (s->algo != NULL)
		fb_params_release(&s->params);
	fb_params_release(&s->runopt);
	free(s->algo);
	fb_fit_memo_free(s->memo);
	fb_bnfit_free(s->fit);
	memset(s, 0, sizeof *s);
}

/* True when the graph's nodes are the dataset's variables in order. */
static int truth_fits(const fb_graph *g, const fb_dataset *ds)
{
	if (g->d != ds->d)
		return 0;
	for (size_t j = 0; j < ds->d; j++)
		if (strcmp(g->names[j], ds->vars[j].name) != 0)
			return 0;
	return 1;
}

/* Forget the pictures' shared layout: the next export lays the new data or truth out. */
static void drop_layout(fb_session *s)
{
	fb_export_layout_free(s->layout);
	s->layout = NULL;
}

/* Replace the background knowledge. */
void fb_session_set_knowledge(fb_session *s, fb_knowledge *k)
{
	fb_knowledge_free(s->knowledge);
	s->knowledge = k;
	s->stale = true;
}

/* Carry the knowledge to the session's new data by variable name; what it drops is left in
 * s->knowledge_note. */
static void knowledge_carry(fb_session *s)
{
	const char **names;
	char dropped[240];
	fb_knowledge *k;

	s->knowledge_note[0] = '\0';
	if (s->knowledge == NULL || s->data == NULL)
		return;
	names = fb_xcalloc(s->data->d + 1, sizeof *names);
	for (size_t j = 0; j < s->data->d; j++)
		names[j] = s->data->vars[j].name;
	k = fb_knowledge_rename(s->knowledge, s->data->d, names, dropped, sizeof dropped);
	free(names);
	if (dropped[0] != '\0')
		snprintf(s->knowledge_note, sizeof s->knowledge_note, "the knowledge about %s was "
		         "dropped: the new data has no such variable%s", dropped,
		         strchr(dropped, ',') != NULL ? "s" : "");
	fb_knowledge_free(s->knowledge);
	s->knowledge = fb_knowledge_is_empty(k) ? (fb_knowledge_free(k), NULL) : k;
}

/* Replace the current dataset. */
void fb_session_set_data(fb_session *s, fb_dataset *data, const char *source, fb_graph *truth,
                         const char *truth_source, int *dropped_truth)
{
	*dropped_truth = 0;
	retire(s, s->data, free_dataset);
	free(s->data_source);
	s->data = data;
	s->data_source = fb_xstrdup(source);
	knowledge_carry(s);
	drop_layout(s);
	fb_session_set_split(s, NULL);
	if (truth != NULL) {
		fb_session_set_truth(s, truth, truth_source);
	} else if (s->truth != NULL && !truth_fits(s->truth, data)) {
		fb_session_set_truth(s, NULL, NULL);
		*dropped_truth = 1;
	}
	s->stale = true;
}

/* Score the runs over the current dataset against truth; returns how many. */
static size_t rescore_runs(fb_session *s, const fb_graph *truth)
{
	size_t n = 0;

	for (size_t i = 0; truth != NULL && i < s->nruns; i++) {
		fb_run *run = s->runs[i];

		if (run->whole == s->data && !(run->algo->flags & FB_ALGO_NEEDS_TRUTH)) {
			fb_run_set_truth(run, truth);
			n++;
		}
	}
	return n;
}

/* Replace the truth. */
size_t fb_session_set_truth(fb_session *s, fb_graph *truth, const char *source)
{
	fb_run *last = fb_session_last_run(s);
	size_t n = rescore_runs(s, truth);

	retire(s, s->truth, free_graph);
	free(s->truth_source);
	fb_pag_free(s->truth_pag);
	s->truth_pag = NULL;
	s->truth = truth;
	s->truth_source = source != NULL ? fb_xstrdup(source) : NULL;
	drop_layout(s);
	if (last == NULL || last->truth != truth) /* a run scored as it goes can go on */
		s->stale = true;
	return n;
}

/* Replace the split. */
void fb_session_set_split(fb_session *s, fb_partition *split)
{
	retire(s, s->split, free_partition);
	s->split = split;
	fb_fit_memo_clear(s->memo); /* the clients' rows change: free their fits' memory */
	s->stale = true;
}

/* Choose an algorithm with its default parameters. */
int fb_session_set_algo(fb_session *s, const char *name, fb_error *err)
{
	const fb_algo *a, *inner;
	fb_params p;

	if (fb_algo_lookup(name, &a, &inner, err) != FB_OK ||
	    fb_params_init(&p, fb_algo_params(a, inner), err) != FB_OK)
		return FB_ERR;
	if (s->algo != NULL)
		fb_params_release(&s->params);
	free(s->algo);
	s->algo = fb_xstrdup(name);
	s->params = p;
	s->stale = true;
	return FB_OK;
}

/* Add a run as the newest. */
void fb_session_add_run(fb_session *s, fb_run *run)
{
	s->runs = fb_xreallocarray(s->runs, s->nruns + 1, sizeof *s->runs);
	s->meta = fb_xreallocarray(s->meta, s->nruns + 1, sizeof *s->meta);
	s->meta[s->nruns] = (fb_session_run){
		.data = fb_xstrdup(run->whole == s->data && s->data_source != NULL ? s->data_source
		                                                                 : "?"),
	};
	s->runs[s->nruns++] = run;
	s->stale = false;
}

/* The newest run. */
fb_run *fb_session_last_run(const fb_session *s)
{
	return s->nruns > 0 ? s->runs[s->nruns - 1] : NULL;
}

/* Remember a sweep's summary or a plot's picture. */
void fb_session_add_product(fb_session *s, bool figure, const char *path, const char *from)
{
	for (size_t i = 0; i < s->nproducts; i++) {
		if (strcmp(s->products[i].path, path) != 0)
			continue;
		free(s->products[i].path);
		free(s->products[i].from);
		memmove(&s->products[i], &s->products[i + 1],
		        (s->nproducts - i - 1) * sizeof *s->products);
		s->nproducts--;
		break;
	}
	s->products = fb_xreallocarray(s->products, s->nproducts + 1, sizeof *s->products);
	s->products[s->nproducts++] = (fb_session_product){
		.figure = figure, .path = fb_xstrdup(path),
		.from = from != NULL ? fb_xstrdup(from) : NULL,
	};
}
