/* split and clients: dividing the dataset over virtual clients, and showing them. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/partition.h"
#include "cmd.h"
#include "history.h"
#include "session.h"

/* The named schemes of sizes= (any other text is a list of sizes). */
static const fb_choice split_sizes[] = {
	{ "even", FB_SIZES_EVEN }, { "uneven", FB_SIZES_UNEVEN },
	{ "dirichlet", FB_SIZES_DIRICHLET }, { 0 },
};

/* Read sizes=: a scheme name, or else an explicit list. */
static enum fb_sizes parse_sizes(const char *s)
{
	const fb_choice *c = fb_choice_find(split_sizes, s);

	return c != NULL ? (enum fb_sizes)c->value : FB_SIZES_LIST;
}

/* How draw= gives a hybrid split's rows out. */
static const fb_choice split_draws[] = {
	{ "cut", FB_DRAW_CUT }, { "replace", FB_DRAW_REPLACE }, { 0 },
};

/* The kinds of split, split's first word. */
static const fb_choice split_kinds[] = {
	{ "horizontal", FB_SPLIT_HORIZONTAL }, { "vertical", FB_SPLIT_VERTICAL },
	{ "hybrid", FB_SPLIT_HYBRID }, { 0 },
};

/* The parameters that make no sense with by=: the column's values decide the clients. */
static const char *const split_by_excluded[] = {
	"sizes", "alpha", "shuffle", "seed", "cols", "overlap", "shared", "draw", "order",
	"random_cols", NULL,
};

/* Refuse the words and parameters split by= cannot take. */
static int split_by_check(fb_cmd_ctx *ctx, fb_cmd_args *a, const char *col)
{
	if (a->argc > 0 && strcmp(a->argv[0], "horizontal") != 0)
		return fb_cmd_error(ctx, "by= makes a horizontal split, not '%s'",
		                    a->argv[0]);
	if (a->argc > 1)
		return fb_cmd_error(ctx, "by= takes no number of clients: each value of "
		                         "'%s' is one client", col);
	for (size_t i = 0; split_by_excluded[i] != NULL; i++) {
		if (fb_params_given(&a->params, split_by_excluded[i]))
			return fb_cmd_error(ctx, "'%s=' cannot go with by=: the values of "
			                    "'%s' decide the clients", split_by_excluded[i], col);
	}
	return FB_CMD_OK;
}

/* split [horizontal] by=COLUMN: one client per value of the column, which is removed from
 * the session's dataset. */
static int exec_split_by(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *col = fb_params_str(&a->params, "by");
	fb_error err = { { 0 } };
	fb_dataset *rest;
	fb_partition *part;
	char *source;
	int dropped;

	if (split_by_check(ctx, a, col) != FB_CMD_OK)
		return FB_CMD_ERROR;
	part = fb_split_by(ctx->s->data, col, &rest, &err);
	if (part == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	if (ctx->s->truth != NULL) { /* a truth always holds every variable, the column too */
		fb_partition_free(part);
		fb_dataset_free(rest);
		return fb_cmd_error(ctx, "cannot split by '%s' while a truth over it is "
		                    "loaded: the truth would no longer fit the variables, so load "
		                    "the data without one first", col);
	}
	source = fb_xstrdup(ctx->s->data_source);
	fb_session_set_data(ctx->s, rest, source, NULL, NULL, &dropped);
	free(source);
	fb_session_set_split(ctx->s, part);
	fprintf(ctx->out, "split %zu rows x %zu variables over %zu clients (%s); '%s' is no "
	        "longer a variable\n", part->n, part->d, part->k, part->desc, col);
	return FB_CMD_OK;
}

/* split KIND K [key=value ...]: a new partition of the current dataset. */
static int exec_split(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	fb_split_options o;
	fb_error err = { { 0 } };
	fb_partition *part;
	int64_t k;
	enum fb_split_kind kind;

	if (fb_params_given(p, "by"))
		return exec_split_by(ctx, a);
	if (a->argc != 2)
		return fb_cmd_error(ctx, "give the kind and the number of clients, as in "
		                         "'split horizontal 3', or by=COLUMN");
	kind = (enum fb_split_kind)fb_cmd_word_value(&fb_cmd_split, a->argv[0]);
	if (fb_parse_int64(a->argv[1], &k) != FB_OK || k < 1)
		return fb_cmd_error(ctx, "the number of clients must be a whole number >= 1, "
		                         "not '%s'", a->argv[1]);
	fb_split_options_init(&o);
	o.sizes = parse_sizes(fb_params_str(p, "sizes"));
	o.size_list = fb_params_str(p, "sizes");
	o.alpha = fb_params_double(p, "alpha");
	o.shuffle = fb_params_bool(p, "shuffle");
	o.seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed") : ctx->s->seed;
	o.cols = fb_params_str(p, "cols");
	o.overlap = fb_params_double(p, "overlap");
	o.shared = fb_params_double(p, "shared");
	o.draw = (enum fb_split_draw)fb_params_choice(p, "draw");
	o.order = fb_params_str(p, "order");
	o.shuffle_cols = fb_params_bool(p, "random_cols");
	o.view = true; /* the session keeps the dataset while a split or run reads it */
	if (o.order != NULL && !fb_params_given(p, "shuffle"))
		o.shuffle = 0; /* order= cuts the rows in the column's order */
	if (kind != FB_SPLIT_HYBRID && fb_params_given(p, "shared"))
		return fb_cmd_error(ctx, "shared= is for hybrid splits: a %s split's "
		                    "clients never share rows", a->argv[0]);
	if (kind != FB_SPLIT_HYBRID && fb_params_given(p, "draw"))
		return fb_cmd_error(ctx, "draw= is for hybrid splits: a %s split's "
		                    "clients never share rows, so there is nothing to draw",
		                    a->argv[0]);
	part = fb_split(ctx->s->data, kind, (size_t)k, &o, &err);
	if (part == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	fb_session_set_split(ctx->s, part);
	if (!fb_params_given(p, "seed"))
		fb_history_add(ctx->s, "seed=%" PRIu64, o.seed);
	fprintf(ctx->out, "split %zu rows x %zu variables over %zu clients (%s)\n", part->n,
	        part->d, part->k, part->desc);
	return FB_CMD_OK;
}

/* Write client c's variable names into b, abbreviated to about width characters. */
static void client_columns(fb_buf *b, const fb_partition *p, size_t c, size_t width)
{
	const fb_dataset *ds = p->clients[c].data;

	for (size_t j = 0; j < ds->d; j++) {
		const char *name = fb_cmd_name(ds->vars[j].name);

		if (j > 0 && b->len + strlen(name) + 2 > width && j + 1 < ds->d) {
			fb_buf_printf(b, ", ... %s (%zu)", fb_cmd_name(ds->vars[ds->d - 1].name), ds->d);
			return;
		}
		fb_buf_printf(b, "%s%s", j ? ", " : "", name);
	}
}

/* Write, for each variable of a split over MPI, its name where client c's site holds it
 * and '-' where it does not, abbreviated to about width characters. */
static void site_columns(fb_buf *b, const fb_partition *p, const fb_dataset *all, size_t c,
                         size_t width)
{
	const fb_client *cl = &p->clients[c];

	for (size_t g = 0, j = 0; g < p->d; g++) {
		bool held = j < cl->data->d && cl->cols[j] == g;
		const char *name = held ? fb_cmd_name(all->vars[g].name) : "-";

		if (g > 0 && b->len + strlen(name) + 2 > width && g + 1 < p->d) {
			fb_buf_printf(b, ", ... (%zu of %zu)", cl->data->d, p->d);
			return;
		}
		fb_buf_printf(b, "%s%s", g ? ", " : "", name);
		j += held;
	}
}

/* clients: one row per client of the current split. */
static int exec_clients(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_partition *p = ctx->s->split;

	fprintf(ctx->out, "%s\n", p->desc);
	fprintf(ctx->out, "%6s %8s %6s %10s %8s  %s\n", "client", "rows", "cols", "continuous",
	        "discrete", "variables");
	for (size_t c = 0; c < p->k; c++) {
		const fb_dataset *ds = p->clients[c].data;
		size_t disc = fb_dataset_n_discrete(ds);
		fb_buf b = { 0 };

		if (p->clients[c].label != NULL)
			fb_buf_printf(&b, "[%s] ", p->clients[c].label);
		if (p->transport != NULL && p->kind != FB_SPLIT_HORIZONTAL && ctx->s->data != NULL &&
		    ctx->s->data->d == p->d)
			site_columns(&b, p, ctx->s->data, c, 40);
		else
			client_columns(&b, p, c, 40);
		if (p->transport != NULL) /* the rows stay at the site: the split's line counts them */
			fprintf(ctx->out, "%6zu %8s", c + 1, "-");
		else
			fprintf(ctx->out, "%6zu %8zu", c + 1, ds->n);
		fprintf(ctx->out, " %6zu %10zu %8zu  %s\n", ds->d, ds->d - disc, disc,
		        b.data != NULL ? b.data : "");
		fb_buf_release(&b);
	}
	return FB_CMD_OK;
}

/* split's parameters. */
static const fb_param_def split_params[] = {
	{ "sizes", FB_PARAM_STRING, "even", 0, 0, split_sizes,
	  "row sizes: even, uneven (each client >= n/(2K)), dirichlet, or a list 30,30,40 "
	  "(counts, or percentages adding to 100)" },
	{ "alpha", FB_PARAM_DOUBLE, "1", 1e-6, 1e6, NULL, "sizes=dirichlet: concentration" },
	{ "shuffle", FB_PARAM_BOOL, "yes", 0, 0, NULL,
	  "shuffle rows before cutting (no: contiguous blocks in file order)" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the split stream; default the session seed" },
	{ "cols", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "vertical: column blocks \"a,b;c,d;...\" (quote it); default even blocks" },
	{ "overlap", FB_PARAM_DOUBLE, "0.5", 0, 1, NULL,
	  "hybrid: chance that a client also holds each variable it does not own" },
	{ "shared", FB_PARAM_DOUBLE, "0.3", 0, 1, NULL, /* FB_SPLIT_SHARED */
	  "hybrid: share of the rows every client holds (the rest are cut as sizes= says)" },
	{ "draw", FB_PARAM_CHOICE, "cut", 0, 0, split_draws,
	  "hybrid: cut (rows without replacement) or replace (the reference code's protocol, "
	  "for reproducing its tables: floor(shared n) rows drawn with replacement for every "
	  "client, and floor(n/K) more for each)" },
	{ "order", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "horizontal: order the rows by this column's values (stably) and cut contiguous "
	  "blocks, so each client holds a range of its values (the class: a label shift); "
	  "implies shuffle=no" },
	{ "random_cols", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "vertical, hybrid: take the variables in a random order of the seed before the even "
	  "column blocks are cut, so each client holds a random set of them" },
	{ "by", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "one client per distinct value of this column, which is removed (no K)" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_split = {
	.name = "split", .usage = "horizontal|vertical|hybrid K | [horizontal] by=COLUMN",
	.summary = "split the dataset across K virtual clients",
	.help = "horizontal: K clients with disjoint rows and every column. vertical: K clients "
	        "with every row and disjoint column blocks. hybrid: overlapping rows and "
	        "overlapping column sets, as the federated-circuits paper's hybrid splits: "
	        "shared= of the rows (0.3, its authors' share) go to every client and the "
	        "others are cut as horizontal (shared=0: disjoint rows); every variable is held "
	        "by some client, at least two clients sharing one. draw=replace (hybrid only, "
	        "sizes even, shuffle on) is the federated-circuits reference code's protocol, "
	        "for reproducing its tables: floor(shared n) rows drawn with replacement go to "
	        "every client and each client draws floor(n/K) more of its own with replacement, "
	        "so a client may hold a row more than once. Each client holds its own copy of its "
	        "rows and columns. "
	        "Impossible requests are refused with the reason. by=COLUMN (the word "
	        "horizontal optional, no K, none of sizes, alpha, shuffle, seed, cols, overlap, "
	        "shared, draw, order, random_cols): "
	        "one client per distinct value of the column, ordered by level label for a "
	        "discrete column and by value for a continuous one (at most 1000 values), each "
	        "client with its rows in file order; the column leaves the session's dataset, "
	        "and the split is refused while a truth is loaded, as the truth includes it.",
	.min_args = 0, .max_args = 2, .words = split_kinds, .params = split_params,
	.needs = FB_NEEDS_DATA, .exec = exec_split,
};

const fb_cmd_entry fb_cmd_clients = {
	.name = "clients", .usage = "", .summary = "show the clients of the current split",
	.help = "One row per client: rows and columns held, how many are continuous and "
	        "discrete, and the variable names (abbreviated when many), after the client's "
	        "value in brackets for a split by a column.",
	.min_args = 0, .max_args = 0, .needs = FB_NEEDS_SPLIT, .exec = exec_clients,
};
