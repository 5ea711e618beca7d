/* Commands on the current dataset: load, save, info, head. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fedbn/csv.h"
#include "fedbn/dataset.h"
#include "cmd.h"
#include "interrupt.h"
#include "files.h"
#include "session.h"

/* delim=: each name stands for its character (0: detect it). */
static const fb_choice load_delims[] = {
	{ "auto", 0 }, { "comma", ',' }, { "semicolon", ';' }, { "tab", '\t' }, { 0 },
};
/* header=: as fb_csv_options.header reads it (-1: detect). */
static const fb_choice load_headers[] = { { "auto", -1 }, { "yes", 1 }, { "no", 0 }, { 0 } };
/* na=: the missing-value policies. */
static const fb_choice load_nas[] = { { "error", FB_NA_ERROR }, { "drop", FB_NA_DROP }, { 0 } };
/* discrete=: the named modes (any other text is a list of names). */
static const fb_choice load_discretes[] = {
	{ "none", FB_DISCRETE_NONE }, { "all", FB_DISCRETE_ALL }, { "auto", FB_DISCRETE_AUTO },
	{ 0 },
};

/* Fill CSV options from load's parameters; FB_ERR names a bad combination. */
static int csv_options(fb_cmd_ctx *ctx, const fb_params *p, fb_csv_options *o)
{
	const char *disc = fb_params_str(p, "discrete");
	const fb_choice *mode = fb_choice_find(load_discretes, disc);

	fb_csv_options_init(o);
	o->delim = (char)fb_params_choice(p, "delim");
	o->header = fb_params_choice(p, "header");
	o->max_levels = (size_t)fb_params_int(p, "levels");
	o->na = (enum fb_na_policy)fb_params_choice(p, "na");
	o->warn = fb_cmd_warner(ctx);
	o->discrete = mode != NULL ? (enum fb_discrete_mode)mode->value : FB_DISCRETE_LIST;
	if (mode == NULL)
		o->discrete_list = disc;
	return FB_OK;
}

/* The suffixes of the density-estimation benchmarks' three files, in part order. */
static const char *const bench_suffix[FB_NPARTS] = { ".train.data", ".valid.data",
	                                             ".test.data" };

/* Whether path names no file but path.train.data, .valid.data and .test.data exist (the
 * benchmarks' layout). */
static bool bench_stem(const char *path)
{
	struct stat st;
	bool all = stat(path, &st) != 0;

	for (int p = 0; all && p < FB_NPARTS; p++) {
		char *f = fb_xasprintf("%s%s", path, bench_suffix[p]);

		all = stat(f, &st) == 0 && S_ISREG(st.st_mode);
		free(f);
	}
	return all;
}

/* Read one file; NULL after printing the error. */
static fb_dataset *load_one(fb_cmd_ctx *ctx, const char *path, fb_csv_options *o)
{
	fb_csv_report rep = { 0 };
	fb_error err = { { 0 } };
	fb_dataset *ds;

	o->cancel = fb_interrupt_cancel();
	fb_interrupt_begin();
	ds = fb_csv_read(path, o, &rep, &err);
	fb_interrupt_end();
	if (ds == NULL && fb_interrupted())
		fb_cmd_error(ctx, "stopped by %s; the dataset is as it was",
		             fb_interrupt_cause());
	else if (ds == NULL)
		fb_cmd_error_plain(ctx, "%s", err.msg);
	return ds;
}

/* Read k files as the parts which[] of one dataset, stacked; NULL after printing. */
static fb_dataset *load_parts(fb_cmd_ctx *ctx, char *const *paths, const enum fb_part *which,
                              size_t k, fb_csv_options *o)
{
	fb_dataset *parts[FB_NPARTS] = { NULL }, *ds = NULL;
	fb_error err = { { 0 } };
	size_t i;

	for (i = 0; i < k; i++)
		if ((parts[i] = load_one(ctx, paths[i], o)) == NULL)
			goto out;
	if ((ds = fb_dataset_stack((const fb_dataset *const *)parts, which, k, &err)) == NULL)
		fb_cmd_error(ctx, "the parts do not fit together: %s", err.msg);
out:
	for (i = 0; i < k; i++)
		fb_dataset_free(parts[i]);
	return ds;
}

/* The dataset load's words name: one file (with shares held out), two or three files
 * (train, [valid,] test), or a benchmark stem; NULL after printing the error. */
static fb_dataset *load_dataset(fb_cmd_ctx *ctx, fb_cmd_args *a, fb_csv_options *o)
{
	static const enum fb_part two[] = { FB_PART_TRAIN, FB_PART_TEST };
	static const enum fb_part three[] = { FB_PART_TRAIN, FB_PART_VALID, FB_PART_TEST };
	const fb_params *p = &a->params;
	bool shares = fb_params_given(p, "test") || fb_params_given(p, "valid");
	char *files[FB_NPARTS];
	fb_dataset *ds;

	if (a->argc > 1 && shares)
		return fb_cmd_error(ctx, "'test=' and 'valid=' hold out shares of one file; "
		                         "with %d files the parts are the files", a->argc), NULL;
	if (a->argc == 1 && !shares && bench_stem(a->argv[0])) {
		if (!fb_params_given(p, "header"))
			o->header = 0;
		if (!fb_params_given(p, "discrete"))
			o->discrete = FB_DISCRETE_ALL;
		for (int q = 0; q < FB_NPARTS; q++)
			files[q] = fb_xasprintf("%s%s", a->argv[0], bench_suffix[q]);
		ds = load_parts(ctx, files, three, FB_NPARTS, o);
		for (int q = 0; q < FB_NPARTS; q++)
			free(files[q]);
		return ds;
	}
	if (a->argc > 1)
		return load_parts(ctx, a->argv, a->argc == 2 ? two : three, (size_t)a->argc, o);
	return load_one(ctx, a->argv[0], o);
}

/* Hold out the shares test= and valid= of ds; FB_CMD_ERROR after printing the fault. */
static int load_hold_out(fb_cmd_ctx *ctx, const fb_params *p, fb_dataset *ds)
{
	fb_error err = { { 0 } };
	uint64_t seed = fb_params_given(p, "seed") ? (uint64_t)fb_params_int(p, "seed")
	                                           : ctx->s->seed;

	if (!fb_params_given(p, "test") && !fb_params_given(p, "valid"))
		return FB_CMD_OK;
	if (fb_dataset_hold_out(ds, fb_params_double(p, "test"), fb_params_double(p, "valid"),
	                        seed, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	return FB_CMD_OK;
}

/* With standardize=yes, standardise ds's continuous columns by its training rows into
 * *flat (d flags, caller frees: the columns constant there; NULL without standardize=yes);
 * FB_CMD_ERROR after printing the fault. */
static int load_standardize(fb_cmd_ctx *ctx, const fb_params *p, fb_dataset *ds, bool **flat)
{
	fb_error err = { { 0 } };

	*flat = NULL;
	if (!fb_params_bool(p, "standardize"))
		return FB_CMD_OK;
	*flat = fb_xcalloc(ds->d > 0 ? ds->d : 1, sizeof **flat);
	if (fb_dataset_standardize(ds, *flat, &err) != FB_OK) {
		free(*flat);
		*flat = NULL;
		return fb_cmd_error(ctx, "standardize=yes: %s", err.msg);
	}
	return FB_CMD_OK;
}

/* With bins=K, cut ds's continuous columns into at most K equal-frequency bins; their
 * number into *binned; FB_CMD_ERROR after printing the fault. */
static int load_bin(fb_cmd_ctx *ctx, const fb_params *p, fb_dataset *ds, size_t *binned)
{
	fb_error err = { { 0 } };

	*binned = 0;
	if (!fb_params_given(p, "bins"))
		return FB_CMD_OK;
	*binned = ds->d - fb_dataset_n_discrete(ds);
	if (fb_dataset_bin(ds, (size_t)fb_params_int(p, "bins"), &err) != FB_OK)
		return fb_cmd_error(ctx, "bins=%s: %s", fb_params_str(p, "bins"), err.msg);
	return FB_CMD_OK;
}

/* Print " a, b, c" for the columns marked (n of them), at most 8 named, then ", ...". */
static void print_marked(FILE *out, const fb_dataset *ds, const bool *marked, size_t n)
{
	for (size_t j = 0, k = 0; j < ds->d && k < 8; j++)
		if (marked[j])
			fprintf(out, "%s%s", k++ ? ", " : " ", fb_cmd_name(ds->vars[j].name));
	fprintf(out, "%s", n > 8 ? ", ..." : "");
}

/* Say what standardize=yes did: how many columns, and the constant ones (at most 8 named). */
static void print_standardized(FILE *out, const fb_dataset *ds, const bool *flat)
{
	size_t cont = ds->d - fb_dataset_n_discrete(ds), nflat = 0;

	fprintf(out, "standardised %zu continuous column%s by the training rows' mean and "
	             "population sd\n", cont, cont == 1 ? "" : "s");
	for (size_t j = 0; j < ds->d; j++)
		nflat += flat[j];
	if (nflat == 0)
		return;
	fprintf(out, "note: %zu column%s constant on the training rows, centred but not scaled:",
	        nflat, nflat == 1 ? " is" : "s are");
	print_marked(out, ds, flat, nflat);
	fputc('\n', out);
}

/* Mark in codes[] the columns read as numbers although they look like category codes (few
 * integer values, as discrete=auto would read them), when discrete= was not given and the
 * rows outnumber levels= (in fewer, any column has few values); how many. */
static size_t load_codes(const fb_params *p, const fb_dataset *ds, bool *codes)
{
	size_t levels = (size_t)fb_params_int(p, "levels");

	if (fb_params_given(p, "discrete") || ds->n <= levels)
		return 0;
	return fb_csv_integer_codes(ds, levels, codes);
}

/* Say which columns load_codes marked (n of them), and what discrete= does with them. */
static void print_codes(FILE *out, const fb_params *p, const fb_dataset *ds, const bool *codes,
                        size_t n)
{
	if (n == 0)
		return;
	fprintf(out, "note: %zu column%s at most %" PRId64 " integer values:", n,
	        n == 1 ? " holds" : "s hold", fb_params_int(p, "levels"));
	print_marked(out, ds, codes, n);
	fprintf(out, "; %s read as numbers: discrete=auto reads %s as categories "
	             "(discrete=none: as numbers, without this note)\n",
	        n == 1 ? "it is" : "they are", n == 1 ? "it" : "them");
}

/* Print the parts of ds after "loaded ...": nothing when no row is held out. */
static void print_parts(FILE *out, const fb_dataset *ds)
{
	if (!fb_dataset_has_heldout(ds))
		return;
	fprintf(out, "parts: %zu train, %zu valid, %zu test rows\n",
	        fb_dataset_part_count(ds, FB_PART_TRAIN), fb_dataset_part_count(ds, FB_PART_VALID),
	        fb_dataset_part_count(ds, FB_PART_TEST));
}

/* load FILE [FILE [FILE]] [options]: read CSV files as the current dataset. */
static int exec_load(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_csv_options o;
	fb_dataset *ds;
	bool *flat = NULL, *codes;
	size_t ncodes, binned = 0;
	int dropped;

	csv_options(ctx, &a->params, &o);
	if ((ds = load_dataset(ctx, a, &o)) == NULL)
		return FB_CMD_ERROR;
	codes = fb_xcalloc(ds->d + 1, sizeof *codes);
	ncodes = load_codes(&a->params, ds, codes); /* before standardize=yes scales them */
	if (load_hold_out(ctx, &a->params, ds) != FB_CMD_OK ||
	    load_bin(ctx, &a->params, ds, &binned) != FB_CMD_OK ||
	    load_standardize(ctx, &a->params, ds, &flat) != FB_CMD_OK) {
		fb_dataset_free(ds);
		free(codes);
		return FB_CMD_ERROR;
	}
	fb_session_set_data(ctx->s, ds, a->argv[0], NULL, NULL, &dropped);
	for (int i = 0; i < a->argc; i++)
		fb_files_note_read(ctx, a->argv[i], "the dataset was loaded from it");
	fprintf(ctx->out, "loaded '%s'", a->argv[0]);
	for (int i = 1; i < a->argc; i++)
		fprintf(ctx->out, ", '%s'", a->argv[i]);
	fprintf(ctx->out, ": %zu rows, %zu variables (%zu continuous, %zu discrete)\n", ds->n,
	        ds->d, ds->d - fb_dataset_n_discrete(ds), fb_dataset_n_discrete(ds));
	print_parts(ctx->out, ds);
	print_codes(ctx->out, &a->params, ds, codes, binned > 0 ? 0 : ncodes);
	if (binned > 0)
		fprintf(ctx->out, "cut %zu continuous columns into at most %s equal-frequency bins "
		        "of the training rows\n", binned, fb_params_str(&a->params, "bins"));
	if (flat != NULL)
		print_standardized(ctx->out, ds, flat);
	free(flat);
	free(codes);
	if (dropped)
		fb_cmd_warn(ctx, "the truth was dropped: its variables differ from the new data's");
	return FB_CMD_OK;
}

/* save FILE: write the current dataset as CSV. */
static int exec_save(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_error err = { { 0 } };
	fb_dataset *ds = ctx->s->data;

	if (fb_files_check(ctx, a->argv[0], &a->params) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_csv_write_dataset(ds, a->argv[0], &err) != FB_OK)
		return fb_cmd_error_plain(ctx, "%s", err.msg);
	fb_files_note_written(ctx, a->argv[0]);
	fprintf(ctx->out, "wrote '%s': %zu rows, %zu variables\n", a->argv[0], ds->n, ds->d);
	return FB_CMD_OK;
}

/* Mean and standard deviation of column j. */
static void column_moments(const fb_dataset *ds, size_t j, double *mean, double *sd)
{
	double m = 0, ss = 0;

	for (size_t i = 0; i < ds->n; i++) {
		double x = fb_dataset_get(ds, i, j), delta = x - m;

		m += delta / (double)(i + 1);
		ss += delta * (x - m);
	}
	*mean = m;
	*sd = ds->n > 1 ? sqrt(ss / (double)(ds->n - 1)) : 0.0;
}

/* Print one variable's line of info, its name in a column of namew (on a line of its own
 * above when longer). */
static void info_var(FILE *out, const fb_dataset *ds, size_t j, int namew)
{
	const fb_var *v = &ds->vars[j];
	const char *name = fb_cmd_name(v->name);
	double mean, sd;

	if (strlen(name) > (size_t)namew) {
		fprintf(out, "  %s\n", name);
		name = "";
	}
	if (v->kind == FB_CONTINUOUS) {
		column_moments(ds, j, &mean, &sd);
		fprintf(out, "  %-*s continuous  %7zu %12.6g %12.6g\n", namew, name, v->missing, mean,
		        sd);
		return;
	}
	fprintf(out, "  %-*s discrete    %7zu %12s %12s  %zu:", namew, name, v->missing, "", "",
	        v->nlevels);
	for (size_t l = 0; l < v->nlevels && l < 8; l++)
		fprintf(out, "%s%s", l ? ", " : " ", fb_cmd_name(v->levels[l]));
	fprintf(out, "%s\n", v->nlevels > 8 ? ", ..." : "");
}

/* info: the dataset's shape, truth, split and one line per variable. */
static int exec_info(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_session *s = ctx->s;
	fb_dataset *ds = s->data;
	int namew = 16;

	fprintf(ctx->out, "dataset: %s\n", s->data_source);
	fprintf(ctx->out, "  %zu rows, %zu variables (%zu continuous, %zu discrete)\n", ds->n,
	        ds->d, ds->d - fb_dataset_n_discrete(ds), fb_dataset_n_discrete(ds));
	if (s->truth != NULL)
		fprintf(ctx->out, "truth: %zu edges (%s)\n", fb_graph_n_edges(s->truth),
		        s->truth_source);
	else
		fprintf(ctx->out, "truth: none\n");
	fprintf(ctx->out, "split: %s\n", s->split != NULL ? s->split->desc : "none");
	if (!fb_knowledge_is_empty(s->knowledge)) {
		char cap[128];

		fb_knowledge_caption(s->knowledge, cap, sizeof cap);
		fprintf(ctx->out, "%s (knowledge show lists it)\n", cap);
	}
	for (size_t j = 0; j < ds->d; j++)
		namew = fb_cmd_name_column(strlen(fb_cmd_name(ds->vars[j].name)), namew);
	fprintf(ctx->out, "  %-*s %-11s %7s %12s %12s  %s\n", namew, "variable", "kind", "missing",
	        "mean", "sd", "levels");
	for (size_t j = 0; j < ds->d; j++)
		info_var(ctx->out, ds, j, namew);
	return FB_CMD_OK;
}

/* Print value (i, j) as its label or number, in width w. */
static void print_cell(FILE *out, const fb_dataset *ds, size_t i, size_t j, int w)
{
	double x = fb_dataset_get(ds, i, j);
	const fb_var *v = &ds->vars[j];

	if (v->kind == FB_DISCRETE && x >= 0 && (size_t)x < v->nlevels)
		fprintf(out, " %*s", w, fb_cmd_name(v->levels[(size_t)x]));
	else
		fprintf(out, " %*.6g", w, x);
}

/* head [rows=N]: the first rows. */
static int exec_head(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_dataset *ds = ctx->s->data;
	size_t rows;

	rows = (size_t)fb_params_int(&a->params, "rows");
	rows = rows < ds->n ? rows : ds->n;
	fprintf(ctx->out, "%6s", "row");
	for (size_t j = 0; j < ds->d; j++)
		fprintf(ctx->out, " %12.12s", fb_cmd_name(ds->vars[j].name));
	fputc('\n', ctx->out);
	for (size_t i = 0; i < rows; i++) {
		fprintf(ctx->out, "%6zu", i + 1);
		for (size_t j = 0; j < ds->d; j++)
			print_cell(ctx->out, ds, i, j, 12);
		fputc('\n', ctx->out);
	}
	if (rows < ds->n)
		fprintf(ctx->out, "(%zu of %zu rows)\n", rows, ds->n);
	return FB_CMD_OK;
}

/* load's parameters. */
static const fb_param_def load_params[] = {
	{ "delim", FB_PARAM_CHOICE, "auto", 0, 0, load_delims,
	  "field delimiter (auto: detected from the first line)" },
	{ "header", FB_PARAM_CHOICE, "auto", 0, 0, load_headers,
	  "whether the first line holds variable names" },
	{ "discrete", FB_PARAM_STRING, "none", 0, 0, load_discretes,
	  "discrete columns besides non-numeric ones: none, all, auto, or names a,b,c; not "
	  "given: none, with a note naming the columns auto would make discrete" },
	{ "levels", FB_PARAM_INT, "10", 2, 100000, NULL,
	  "discrete=auto: most distinct integer values of a discrete column" },
	{ "na", FB_PARAM_CHOICE, "error", 0, 0, load_nas,
	  "missing values (empty, NA, NaN, ?): stop at the first, or drop their rows" },
	{ "test", FB_PARAM_DOUBLE, "0", 0, 0.99, NULL,
	  "share of the rows of one file held out as the test part" },
	{ "valid", FB_PARAM_DOUBLE, "0", 0, 0.99, NULL,
	  "share of the rows of one file held out as the validation part" },
	{ "seed", FB_PARAM_INT, NULL, 0, 9.2e18, NULL,
	  "seed of the held-out rows' draw; default the session seed" },
	{ "standardize", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "centre each continuous column and scale it to unit variance by the training rows' "
	  "mean and population sd (ddof=0, as scikit-learn's StandardScaler); held-out rows "
	  "use the same figures" },
	{ "bins", FB_PARAM_INT, NULL, 2, 1e6, NULL,
	  "cut every continuous column into at most this many equal-frequency bins of the "
	  "training rows (held-out rows by the same cut points), so that the discrete tests "
	  "and scores apply" },
	{ 0 },
};

/* save's parameters. */
static const fb_param_def save_params[] = {
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

/* head's parameters. */
static const fb_param_def head_params[] = {
	{ "rows", FB_PARAM_INT, "10", 1, 1e9, NULL, "how many rows to show" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_load = {
	.name = "load", .usage = "FILE [VALID] [TEST]",
	.summary = "read a CSV file (or train, valid, test files) as the dataset",
	.help = "Read FILE (CSV with comma, semicolon or tab delimiters, optional header, "
	        "quoted fields, CRLF, UTF-8 BOM) as the current dataset. Non-numeric columns "
	        "are discrete; discrete= makes more columns discrete. Without discrete=, columns "
	        "of numbers are read as numbers even when they look like category codes (every "
	        "value an integer, at most levels= distinct ones: asia's 1 and 2), and load "
	        "names them in a note (when the rows outnumber levels=): discrete=auto reads them as categories (pc then tests "
	        "them with G2, not Fisher-z). The default stays none because a count or "
	        "a rating is as often a number as a code, the discrete benchmarks arrive "
	        "discrete already (load STEM, sample FILE.bif), and a script's results must not "
	        "change under it; discrete=none keeps numbers without the note. Errors name the line and "
	        "column at fault and leave the session as it was. The split is cleared; the "
	        "truth is kept when its variables match. A dataset can hold rows out: test=0.2 "
	        "valid=0.1 put a seeded share of one file's rows in the test and validation "
	        "parts; two files are the training and test parts, three files the training, "
	        "validation and test parts (same columns; labels of discrete columns merged); "
	        "and a name STEM that is no file but has STEM.train.data, STEM.valid.data and "
	        "STEM.test.data beside it loads those three as the density-estimation "
	        "benchmarks ship them (no header row; every column discrete unless header= or "
	        "discrete= say otherwise), e.g. load debd/nltcs. Learners fit the training rows "
	        "only; a split gives each client its own rows of every part. standardize=yes "
	        "subtracts from each continuous column the mean of its training rows and "
	        "divides by their population standard deviation (over n, not n - 1: "
	        "scikit-learn's StandardScaler and the federated-circuits paper), held-out "
	        "rows by the same figures; discrete columns are left as they are, and a column "
	        "constant on the training rows is centred only (its values become 0), with a "
	        "note naming it.",
	.min_args = 1, .max_args = 3, .complete = FB_COMPLETE_FILE, .params = load_params,
	.exec = exec_load,
};

const fb_cmd_entry fb_cmd_save = {
	.name = "save", .usage = "FILE", .summary = "write the dataset as CSV",
	.help = "Write the current dataset to FILE as CSV with a header row; discrete values "
	        "are written as their labels. The file is replaced atomically. An existing "
	        "file is replaced only when fedbn wrote it (in any session) and nobody "
	        "changed it since, and this session did not read it; or with force=yes.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .params = save_params,
	.needs = FB_NEEDS_DATA, .exec = exec_save,
};

const fb_cmd_entry fb_cmd_info = {
	.name = "info", .usage = "", .summary = "describe the dataset, its truth and split",
	.help = "Show where the dataset came from, its size, its truth and split, and per "
	        "variable its kind, the missing values its file had (their rows were dropped by "
	        "na=drop), its mean and standard deviation, or its levels.",
	.min_args = 0, .max_args = 0, .needs = FB_NEEDS_DATA, .exec = exec_info,
};

const fb_cmd_entry fb_cmd_head = {
	.name = "head", .usage = "", .summary = "show the first rows of the dataset",
	.help = "Show the first rows of the current dataset (discrete values as labels).",
	.min_args = 0, .max_args = 0, .params = head_params, .needs = FB_NEEDS_DATA,
	.exec = exec_head,
};
