/* gen: simulate a dataset and its true DAG. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/sim.h"
#include "cmd.h"
#include "interrupt.h"
#include "session.h"

/* The graph families, gen's first word. */
static const fb_choice gen_dags[] = {
	{ "er", FB_DAG_ER }, { "er-bernoulli", FB_DAG_ER_BERNOULLI }, { "sf", FB_DAG_SF }, { 0 },
};

/* gen TYPE [key=value ...]: a new dataset from a random DAG and a SEM. */
static int exec_gen(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	fb_sim_options o;
	fb_error err = { { 0 } };
	fb_dataset *ds;
	fb_graph *truth;
	char *source;
	int dropped, rc;

	fb_sim_options_init(&o);
	o.dag = (enum fb_dag_type)fb_cmd_word_value(&fb_cmd_gen, a->argv[0]);
	o.d = (size_t)fb_params_int(p, "d");
	o.edges = fb_params_given(p, "edges") ? (size_t)fb_params_int(p, "edges") : o.d;
	o.n = (size_t)fb_params_int(p, "n");
	o.seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed") : ctx->s->seed;
	o.sem = (enum fb_sem)fb_params_choice(p, "sem");
	o.noise = (enum fb_noise)fb_params_choice(p, "noise");
	o.noise_scale = fb_params_double(p, "scale");
	o.wmin = fb_params_double(p, "wmin");
	o.wmax = fb_params_double(p, "wmax");
	if (o.wmin > o.wmax)
		return fb_cmd_error(ctx, "gen: wmin=%g is larger than wmax=%g", o.wmin, o.wmax);
	o.cancel = fb_interrupt_cancel();
	fb_interrupt_begin();
	rc = fb_sim_generate(&o, &ds, &truth, &err);
	fb_interrupt_end();
	if (rc != FB_OK && fb_interrupted())
		return fb_cmd_error(ctx, "gen: stopped by Ctrl-C; the dataset is as it was");
	if (rc != FB_OK)
		return fb_cmd_error(ctx, "gen: %s", err.msg);
	source = fb_xasprintf("gen %s d=%zu edges=%zu n=%zu seed=%" PRIu64 " noise=%s sem=%s",
	                      a->argv[0], o.d, o.edges, o.n, o.seed, fb_params_str(p, "noise"),
	                      fb_params_str(p, "sem"));
	fb_session_set_data(ctx->s, ds, source, truth, source, &dropped);
	fprintf(ctx->out, "generated %zu rows x %zu variables; true DAG has %zu edges (%s)\n",
	        ds->n, ds->d, fb_graph_n_edges(truth), source);
	free(source);
	return FB_CMD_OK;
}

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

/* gen's parameters. */
static const fb_param_def gen_params[] = {
	{ "d", FB_PARAM_INT, "10", 2, 100000, NULL,
	  "number of variables; the true graph takes 9 d^2 bytes of memory (d=10000: 0.9 GB, "
	  "d=100000: 90 GB) and the data 8 n d, so the machine's memory sets the real limit" },
	{ "edges", FB_PARAM_INT, NULL, 0, 1e9, NULL,
	  "edges of the DAG (exact for er, expected for er-bernoulli, d x attachments for sf); "
	  "default d" },
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
	  "kernel of length-scale 1 over the parent vectors, exact, so it takes 8 n^2 bytes and "
	  "n^3/3 operations per variable: n=6000 takes 0.29 GB); gp-add (a sum of one such draw "
	  "per parent)" },
	{ "wmin", FB_PARAM_DOUBLE, "0.5", 0, 1e6, NULL,
	  "smallest edge weight (and mlp, mim parameter) magnitude" },
	{ "wmax", FB_PARAM_DOUBLE, "2", 0, 1e6, NULL,
	  "largest edge weight (and mlp, mim parameter) magnitude" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_gen = {
	.name = "gen", .alias = "generate", .usage = "er|er-bernoulli|sf [key=value ...]",
	.summary = "simulate a dataset and its true DAG",
	.help = "Draw a random DAG (er: Erdos-Renyi with exactly edges= edges; er-bernoulli: "
	        "each forward pair with probability 2*edges/(d^2-d); sf: scale-free "
	        "Barabasi-Albert), weights uniform on +-[wmin, wmax], and n rows of an "
	        "additive-noise SEM (linear or one of the nonlinear sem= mechanisms) with the "
	        "chosen noise; roots are pure noise. The dataset and its truth replace the "
	        "current ones. The same seed gives byte-identical data on every machine (for gp "
	        "and gp-add, on every machine with the same BLAS).",
	.min_args = 1, .max_args = 1, .words = gen_dags, .params = gen_params,
	.exec = exec_gen,
};
