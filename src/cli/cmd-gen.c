/* gen: simulate a dataset and its true DAG. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/fci.h"
#include "fedbn/partition.h"
#include "fedbn/sim.h"
#include "cmd.h"
#include "history.h"
#include "interrupt.h"
#include "session.h"

/* The graph families, gen's first word. */
static const fb_choice gen_dags[] = {
	{ "er", FB_DAG_ER }, { "er-bernoulli", FB_DAG_ER_BERNOULLI }, { "sf", FB_DAG_SF }, { 0 },
};

/* The names of flavour='s values: which Barabasi-Albert generator sf uses. */
static const fb_choice gen_flavours[] = {
	{ "notears", FB_DAG_SF }, { "gcastle", FB_DAG_SF_GCASTLE }, { 0 },
};

/* The names of noise='s values. */
static const fb_choice gen_noises[] = {
	{ "gauss", FB_NOISE_GAUSS }, { "exp", FB_NOISE_EXP }, { "gumbel", FB_NOISE_GUMBEL },
	{ "uniform", FB_NOISE_UNIFORM }, { 0 },
};
/* The names of sem='s values. */
static const fb_choice gen_sems[] = {
	{ "linear", FB_SEM_LINEAR }, { "mlp", FB_SEM_MLP }, { "mim", FB_SEM_MIM },
	{ "gp", FB_SEM_GP }, { "gp-add", FB_SEM_GP_ADD }, { 0 },
};

/* Read gen's options from its parameters; FB_CMD_ERROR with the sentence when they clash. */
static int gen_options(fb_cmd_ctx *ctx, fb_cmd_args *a, fb_sim_options *o)
{
	const fb_params *p = &a->params;

	fb_sim_options_init(o);
	o->dag = (enum fb_dag_type)fb_cmd_word_value(&fb_cmd_gen, a->argv[0]);
	if (o->dag == FB_DAG_SF)
		o->dag = (enum fb_dag_type)fb_params_choice(p, "flavour");
	else if (fb_params_given(p, "flavour"))
		return fb_cmd_error(ctx, "'flavour=' only applies to sf, not to %s",
		                    a->argv[0]);
	o->d = (size_t)fb_params_int(p, "d");
	o->edges = fb_params_given(p, "edges") ? (size_t)fb_params_int(p, "edges") : o->d;
	o->n = (size_t)fb_params_int(p, "n");
	o->seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed") : ctx->s->seed;
	o->sem = (enum fb_sem)fb_params_choice(p, "sem");
	o->noise = (enum fb_noise)fb_params_choice(p, "noise");
	o->noise_scale = fb_params_double(p, "scale");
	o->wmin = fb_params_double(p, "wmin");
	o->wmax = fb_params_double(p, "wmax");
	o->clients = fb_params_given(p, "clients") ? (size_t)fb_params_int(p, "clients") : 0;
	o->hetero = fb_params_bool(p, "hetero");
	o->discrete = (size_t)fb_params_int(p, "discrete");
	o->levels = (size_t)fb_params_int(p, "levels");
	if (o->wmin > o->wmax)
		return fb_cmd_error(ctx, "wmin=%g is larger than wmax=%g", o->wmin, o->wmax);
	if (o->hetero && o->clients == 0)
		return fb_cmd_error(ctx, "'hetero=yes' needs clients=K: each client draws its "
		                         "own mechanisms");
	if (o->hetero && fb_params_given(p, "sem"))
		return fb_cmd_error(ctx, "'sem=' cannot go with hetero=yes: each client draws "
		                         "its own mechanism family");
	return FB_CMD_OK;
}

/* The natural partition of a generated dataset: contiguous blocks of the clients' sizes,
 * each labelled with its family and noise scale; described by the generating command. */
static fb_partition *gen_partition(const fb_dataset *ds, const fb_sim_client *cl, size_t k,
                                   const char *source)
{
	fb_split_options so;
	fb_error err = { { 0 } };
	fb_partition *part;

	fb_split_options_init(&so);
	so.shuffle = 0;
	part = fb_split(ds, FB_SPLIT_HORIZONTAL, k, &so, &err);
	if (part == NULL)
		return NULL;
	for (size_t c = 0; c < k; c++)
		part->clients[c].label = fb_xasprintf("%s scale=%g",
		                                      fb_choice_name(gen_sems, (int)cl[c].sem),
		                                      cl[c].scale);
	free(part->desc);
	part->desc = fb_xasprintf("natural %zu from %s", k, source);
	return part;
}

/* Simulate with the options o: a dataset, its truth and, with clients, its partition. */
static int gen_simulate(const fb_sim_options *o, fb_dataset **ds, fb_graph **truth,
                        fb_sim_client **cl, fb_error *err)
{
	int rc;

	*cl = NULL;
	fb_interrupt_begin();
	if (o->clients > 0)
		rc = fb_sim_generate_clients(o, ds, truth, cl, err);
	else
		rc = fb_sim_generate(o, ds, truth, err);
	fb_interrupt_end();
	return rc;
}

/* The command that reproduces the dataset generated with o. */
static char *gen_source(fb_cmd_args *a, const fb_sim_options *o)
{
	const fb_params *p = &a->params;
	bool sf = o->dag == FB_DAG_SF || o->dag == FB_DAG_SF_GCASTLE;
	char *s = fb_xasprintf("gen %s%s%s d=%zu edges=%zu n=%zu seed=%" PRIu64 " noise=%s%s%s",
	                       a->argv[0], sf ? " flavour=" : "",
	                       sf ? fb_params_str(p, "flavour") : "", o->d, o->edges, o->n,
	                       o->seed, fb_params_str(p, "noise"), o->hetero ? "" : " sem=",
	                       o->hetero ? "" : fb_params_str(p, "sem"));
	char *t;

	if (o->discrete > 0) {
		t = fb_xasprintf("%s discrete=%zu levels=%zu", s, o->discrete, o->levels);
		free(s);
		s = t;
	}
	if (o->clients == 0)
		return s;
	t = fb_xasprintf("%s clients=%zu hetero=%s", s, o->clients, o->hetero ? "yes" : "no");
	free(s);
	return t;
}

/* The k nodes of g with the most children (ties: the lower index) flagged in hidden. */
static void gen_hide_most_children(const fb_graph *g, size_t k, bool *hidden)
{
	size_t *ch = fb_xcalloc(g->d + 1, sizeof *ch), *buf = fb_xmalloc((g->d + 1) * sizeof *buf);

	for (size_t v = 0; v < g->d; v++)
		ch[v] = fb_graph_children(g, v, buf);
	for (size_t t = 0; t < k; t++) {
		size_t best = g->d;

		for (size_t v = 0; v < g->d; v++)
			if (!hidden[v] && (best == g->d || ch[v] > ch[best]))
				best = v;
		hidden[best] = true;
	}
	free(ch);
	free(buf);
}

/* Flag in hidden (d, all false) the variables hide= names: a count K (the K with the most
 * children, whose hiding confounds the most pairs) or names; FB_ERR after printing why. */
static int gen_hide_parse(fb_cmd_ctx *ctx, const char *text, const fb_graph *g, bool *hidden)
{
	char *copy, *word, *save = NULL, *end;
	unsigned long k = strtoul(text, &end, 10);
	size_t n = 0;
	int ret = FB_CMD_OK;

	if (end != text && *end == '\0') {
		if (k < 1 || k > g->d - 2)
			return fb_cmd_error(ctx, "hide=%s: hide from 1 to %zu variables (d=%zu, and at "
			                         "least 2 stay observed)", text, g->d - 2, g->d);
		gen_hide_most_children(g, (size_t)k, hidden);
		return FB_CMD_OK;
	}
	copy = fb_xstrdup(text);
	for (word = strtok_r(copy, ",", &save); word != NULL && ret == FB_CMD_OK;
	     word = strtok_r(NULL, ",", &save)) {
		int v = fb_graph_find(g, word);

		if (v < 0)
			ret = fb_cmd_error(ctx, "hide=%s: there is no variable '%s' (they are X1 to "
			                        "X%zu; or give a count, e.g. hide=3)", text, word, g->d);
		else
			n += !hidden[v], hidden[v] = true;
	}
	free(copy);
	if (ret == FB_CMD_OK && (n == 0 || n + 2 > g->d))
		ret = fb_cmd_error(ctx, "hide=%s: hide from 1 to %zu variables (d=%zu, and at least "
		                        "2 stay observed)", text, g->d - 2, g->d);
	return ret;
}

/* Hide the flagged variables: *ds keeps the observed columns, *truth the arcs among them,
 * and *pag gets the true PAG over them (the hidden ones' effects). */
static void gen_hide_apply(const bool *hidden, fb_dataset **ds, fb_graph **truth, fb_pag **pag)
{
	fb_graph *g = *truth, *t;
	size_t d = g->d, m = 0, *cols = fb_xmalloc((d + 1) * sizeof *cols);
	fb_dataset *obs;

	for (size_t v = 0; v < d; v++)
		if (!hidden[v])
			cols[m++] = v;
	*pag = fb_pag_of_dag(g, hidden, NULL); /* a generated graph is a DAG */
	obs = fb_dataset_subset(*ds, NULL, 0, cols, m);
	t = fb_graph_alloc(m);
	for (size_t i = 0; i < m; i++) {
		fb_graph_set_name(t, i, g->names[cols[i]], NULL);
		for (size_t j = 0; j < m; j++)
			if (fb_graph_has_arc(g, cols[i], cols[j]))
				fb_graph_set_directed(t, i, j, g->w[cols[i] * d + cols[j]]);
	}
	t->weighted = g->weighted;
	fb_dataset_free(*ds);
	fb_graph_free(g);
	*ds = obs;
	*truth = t;
	free(cols);
}

/* The hidden variables' names, comma-separated (caller frees). */
static char *gen_hidden_names(const fb_graph *g, const bool *hidden)
{
	fb_buf b = { 0 };

	for (size_t v = 0; v < g->d; v++)
		if (hidden[v])
			fb_buf_printf(&b, "%s%s", b.len > 0 ? "," : "", g->names[v]);
	return b.data;
}

/* hide= on the generated *ds and *truth (nothing without it): *pag and *names (caller
 * frees) get the true PAG and the hidden names; FB_CMD_ERROR after printing why, with *ds and
 * *truth freed. */
static int gen_hide(fb_cmd_ctx *ctx, fb_cmd_args *a, fb_dataset **ds, fb_graph **truth,
                    fb_pag **pag, char **names)
{
	const char *text = fb_params_str(&a->params, "hide");
	bool *hidden;

	*pag = NULL;
	*names = NULL;
	if (text == NULL)
		return FB_CMD_OK;
	hidden = fb_xcalloc((*truth)->d + 1, sizeof *hidden);
	if (gen_hide_parse(ctx, text, *truth, hidden) != FB_CMD_OK) {
		free(hidden);
		fb_dataset_free(*ds);
		fb_graph_free(*truth);
		return FB_CMD_ERROR;
	}
	*names = gen_hidden_names(*truth, hidden);
	gen_hide_apply(hidden, ds, truth, pag);
	free(hidden);
	return FB_CMD_OK;
}

/* Say what gen made. */
static void gen_report(fb_cmd_ctx *ctx, const fb_dataset *ds, const fb_graph *truth,
                       const fb_pag *pag, const char *hidden, const char *source)
{
	if (pag == NULL) {
		fprintf(ctx->out, "generated %zu rows x %zu variables; true DAG has %zu edges (%s)\n",
		        ds->n, ds->d, fb_graph_n_edges(truth), source);
		return;
	}
	fprintf(ctx->out, "generated %zu rows x %zu variables, %s hidden (%s); the truth keeps "
	        "the %zu arcs among the observed, and their true PAG has %zu edges, %zu "
	        "bidirected (a hidden common cause) and %zu with a circle\n", ds->n, ds->d,
	        hidden, source, fb_graph_n_edges(truth), fb_pag_n_edges(pag),
	        fb_pag_n_bidirected(pag), fb_pag_n_circles(pag));
}

/* gen TYPE [key=value ...]: a new dataset from a random DAG and a SEM. */
static int exec_gen(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_sim_options o;
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *truth;
	fb_sim_client *cl;
	fb_pag *pag;
	char *source, *hidden;
	int dropped;

	if (gen_options(ctx, a, &o) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_params_given(&a->params, "hide") && o.clients > 0)
		return fb_cmd_error(ctx, "hide= cannot go with clients=: hide variables first, then "
		                         "split the rows (split horizontal K)");
	o.cancel = fb_interrupt_cancel();
	if (gen_simulate(&o, &ds, &truth, &cl, &err) != FB_OK) {
		if (fb_interrupted())
			return fb_cmd_error(ctx, "stopped by %s; the dataset is as it was",
			                    fb_interrupt_cause());
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	if (gen_hide(ctx, a, &ds, &truth, &pag, &hidden) != FB_CMD_OK)
		return FB_CMD_ERROR;
	source = gen_source(a, &o);
	if (hidden != NULL) {
		char *t = fb_xasprintf("%s hide=%s", source, hidden);

		free(source);
		source = t;
	}
	fb_session_set_data(ctx->s, ds, source, truth, source, &dropped);
	ctx->s->truth_pag = pag;
	if (!fb_params_given(&a->params, "seed"))
		fb_history_add(ctx->s, "seed=%" PRIu64, o.seed);
	gen_report(ctx, ds, truth, pag, hidden, source);
	if (cl != NULL) {
		fb_session_set_split(ctx->s, gen_partition(ds, cl, o.clients, source));
		fprintf(ctx->out, "split over %zu clients as generated (see clients)\n", o.clients);
	}
	free(cl);
	free(source);
	free(hidden);
	return FB_CMD_OK;
}

/* gen's parameters. */
static const fb_param_def gen_params[] = {
	{ "d", FB_PARAM_INT, "10", 2, 100000, NULL,
	  "number of variables; the true graph takes 9 d^2 bytes of memory (d=10000: 0.9 GB, "
	  "d=100000: 90 GB) and the data 8 n d, so the machine's memory sets the real limit" },
	{ "edges", FB_PARAM_INT, NULL, 0, 1e9, NULL,
	  "edges of the DAG (exact for er, expected for er-bernoulli, d x attachments for sf); "
	  "default d" },
	{ "flavour", FB_PARAM_CHOICE, "notears", 0, 0, gen_flavours,
	  "sf only: notears (igraph's directed Barabasi-Albert as in the NOTEARS code: each new "
	  "vertex points to m earlier ones chosen by in-degree + 1, so hubs collect parents) or "
	  "gcastle (networkx's undirected Barabasi-Albert from a star on m+1 vertices, "
	  "m(d-m) edges, randomly relabelled and oriented along a random order, as in gCastle "
	  "and the FedDAG code: hub edges point both ways)" },
	{ "n", FB_PARAM_INT, "300", 1, 1e9, NULL, "number of rows" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the graph, weight, noise and mechanism streams; default the session "
	  "seed" },
	{ "noise", FB_PARAM_CHOICE, "gauss", 0, 0, gen_noises,
	  "noise family" },
	{ "scale", FB_PARAM_DOUBLE, "1", 1e-12, 1e12, NULL,
	  "noise scale (standard deviation for gauss)" },
	{ "sem", FB_PARAM_CHOICE, "linear", 0, 0, gen_sems,
	  "mechanism f of each variable, x = f(parents) + noise: linear (weighted sum); mlp "
	  "(100 sigmoid hidden units, no biases, weights +-[wmin, wmax]); mim "
	  "(tanh(x.w1) + cos(x.w2) + sin(x.w3)); gp (one draw of a Gaussian process with an RBF "
	  "kernel of length-scale 1 over the parent vectors: from a pivoted incomplete "
	  "Cholesky factor of the kernel when one of rank r <= n/16 leaves out at most 1e-10 "
	  "of its variance per row on average (n r^2 operations; one or two parents usually "
	  "allow it), otherwise exact, by Cholesky of the whole kernel (n^3/3 operations); "
	  "either way it reserves 8 n^2 bytes: n=6000 takes 0.29 GB); gp-add (a sum of one "
	  "such draw per parent)" },
	{ "wmin", FB_PARAM_DOUBLE, "0.5", 0, 1e6, NULL,
	  "smallest edge weight (and mlp, mim parameter) magnitude" },
	{ "wmax", FB_PARAM_DOUBLE, "2", 0, 1e6, NULL,
	  "largest edge weight (and mlp, mim parameter) magnitude" },
	{ "hide", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "hide variables from the data, as unmeasured causes: a count K (the K with the most "
	  "children) or names (X1,X4); the truth keeps the arcs among the others, and the true "
	  "PAG over them (what fci can learn) goes with it to compare" },
	{ "clients", FB_PARAM_INT, NULL, 1, 1e6, NULL,
	  "keep the rows split over this many clients as generated: contiguous even blocks "
	  "(the first n mod K one row longer), each client's mechanism family and noise scale "
	  "shown by clients" },
	{ "hetero", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "with clients=: one DAG, but each client draws from its own random stream its own "
	  "SEM: linear with probability 1/2 (its own weights), else mlp, gp, mim or gp-add "
	  "uniformly, and noise scale 0.8 or 1 (times scale=); no: one SEM for all, the bytes "
	  "of the same gen without clients=" },
	{ "discrete", FB_PARAM_INT, "0", 0, 1e6, NULL,
	  "this many variables (drawn by the seed) are discrete: each is cut into levels= "
	  "equal-frequency levels as it is simulated, so its children see the level (mixed "
	  "data from a conditional Gaussian network)" },
	{ "levels", FB_PARAM_INT, "3", 2, 1e6, NULL, "levels of each discrete= variable" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_gen = {
	.name = "gen", .alias = "generate", .usage = "er|er-bernoulli|sf",
	.summary = "simulate a dataset and its true DAG",
	.help = "Draw a random DAG (er: Erdos-Renyi with exactly edges= edges; er-bernoulli: "
	        "each forward pair with probability 2*edges/(d^2-d); sf: scale-free "
	        "Barabasi-Albert in the flavour= of NOTEARS or gCastle), weights uniform on +-[wmin, wmax], and n rows of an "
	        "additive-noise SEM (linear or one of the nonlinear sem= mechanisms) with the "
	        "chosen noise; roots are pure noise. The dataset and its truth replace the "
	        "current ones. The same seed gives byte-identical data on every machine (for gp "
	        "and gp-add, on every machine with the same BLAS).",
	.min_args = 1, .max_args = 1, .words = gen_dags, .params = gen_params,
	.exec = exec_gen,
};
