/* plot: lines with error bars from a table of results (a sweep's CSV), or a run's trace over
 * its rounds, drawn by gnuplot into a PNG or SVG file or as text on the screen. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/core.h"
#include "fedbn/experiment.h"
#include "fedbn/plot.h"
#include "fedbn/table.h"
#include "cmd.h"
#include "files.h"
#include "session.h"

/* What err= draws around each mean. */
enum plot_err { PLOT_ERR_SE, PLOT_ERR_SD, PLOT_ERR_NONE };
/* Its names. */
static const fb_choice plot_errs[] = {
	{ "se", PLOT_ERR_SE }, { "sd", PLOT_ERR_SD }, { "none", PLOT_ERR_NONE }, { 0 },
};

/* A comma-separated list split into words (caller frees words[0] and words). */
static char **plot_list(const char *list, size_t *n)
{
	char *copy = fb_xstrdup(list != NULL ? list : ""), *w, *save = NULL;
	char **words = fb_xcalloc(strlen(copy) / 2 + 2, sizeof *words);

	*n = 0;
	for (w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
		words[(*n)++] = w;
	if (*n == 0)
		free(copy);
	return words;
}

/* Free what plot_list returned. */
static void plot_list_free(char **words, size_t n)
{
	if (n > 0)
		free(words[0]);
	free(words);
}

/* FB_CMD_ERROR naming a column t lacks among names[0..n), with t's columns. */
static int plot_check_columns(fb_cmd_ctx *ctx, const fb_table *t, const char *path,
                              char *const *names, size_t n)
{
	fb_buf cols = { 0 };
	int ret = FB_CMD_OK;

	for (size_t i = 0; i < n && ret == FB_CMD_OK; i++) {
		if (fb_table_col(t, names[i]) >= 0)
			continue;
		for (size_t c = 0; c < t->ncols; c++)
			fb_buf_printf(&cols, "%s%s", c ? ", " : "", t->head[c]);
		ret = fb_cmd_error(ctx, "'%s' has no column '%s' (it has %s)", path, names[i],
		                   cols.data != NULL ? cols.data : "none");
	}
	fb_buf_release(&cols);
	return ret;
}

/* The rows of t that where= keeps (COL=VALUE,...) into a new table *kept. */
static int plot_where(fb_cmd_ctx *ctx, const fb_table *t, const char *path, const char *where,
                      fb_table *kept)
{
	size_t n;
	char **conds = plot_list(where, &n);
	int *col = fb_xcalloc(n + 1, sizeof *col);
	const char **val = fb_xcalloc(n + 1, sizeof *val);
	int ret = FB_CMD_OK;

	for (size_t i = 0; i < n && ret == FB_CMD_OK; i++) {
		char *eq = strchr(conds[i], '=');

		if (eq == NULL)
			ret = fb_cmd_error(ctx, "where: write COLUMN=VALUE, not '%s'", conds[i]);
		else {
			*eq = '\0';
			val[i] = eq + 1;
			ret = plot_check_columns(ctx, t, path, &conds[i], 1);
			col[i] = fb_table_col(t, conds[i]);
		}
	}
	fb_table_init(kept, t->ncols, (const char *const *)t->head);
	for (size_t r = 0; r < t->nrows && ret == FB_CMD_OK; r++) {
		size_t i = 0;

		while (i < n && strcmp(fb_table_get(t, r, (size_t)col[i]), val[i]) == 0)
			i++;
		if (i == n)
			fb_table_add_row(kept, (const char *const *)&t->cell[r * t->ncols]);
	}
	plot_list_free(conds, n);
	free(col);
	free(val);
	return ret;
}

/* One point of a line before sorting by x. */
typedef struct plot_point {
	double x, y, e; /* abscissa, mean, half-width of its bar */
} plot_point;

/* Order points by x. */
static int plot_point_cmp(const void *a, const void *b)
{
	double xa = ((const plot_point *)a)->x, xb = ((const plot_point *)b)->x;

	return (xa > xb) - (xa < xb);
}

/* Whether groups a and b of s share their first nby keys. */
static bool plot_same_line(const fb_summary *s, size_t a, size_t b, size_t nby)
{
	for (size_t k = 0; k < nby; k++)
		if (strcmp(s->keys[a * s->nkeys + k], s->keys[b * s->nkeys + k]) != 0)
			return false;
	return true;
}

/* The legend of the line of group gr: its by-values ("a=1, b=2" for several), then the
 * figure when several are drawn. */
static char *plot_label(const fb_summary *s, size_t gr, size_t nby, const char *fig,
                        bool many)
{
	fb_buf b = { 0 };

	for (size_t k = 0; k < nby; k++) {
		if (nby > 1)
			fb_buf_printf(&b, "%s%s=", k ? ", " : "", s->key_names[k]);
		fb_buf_printf(&b, "%s", s->keys[gr * s->nkeys + k]);
	}
	if (many || nby == 0)
		fb_buf_printf(&b, "%s%s", nby > 0 ? " " : "", fig);
	return b.data;
}

/* The half-width of a point's bar. */
static double plot_bar(const fb_summary_stat *st, enum plot_err e)
{
	if (e == PLOT_ERR_NONE || isnan(st->se))
		return 0;
	return e == PLOT_ERR_SE ? st->se : st->se * sqrt((double)st->n);
}

/* Add to p the line of figure f through the groups that share group gr's by-values (marking
 * them in taken); *spread is set when a point averages several rows. */
static int plot_line(fb_cmd_ctx *ctx, const fb_summary *s, size_t gr, size_t nby, size_t f,
                     enum plot_err e, bool many, bool *taken, fb_plot *p, bool *spread)
{
	plot_point *pt = fb_xcalloc(s->ngroups, sizeof *pt);
	double *x, *y, *bar;
	size_t n = 0;
	char *label;

	for (size_t g = gr; g < s->ngroups; g++) {
		const fb_summary_stat *st = fb_summary_get(s, g, f);
		const char *xs = s->keys[g * s->nkeys + nby];

		if (!plot_same_line(s, gr, g, nby))
			continue;
		taken[g] = true;
		if (fb_parse_double(xs, &pt[n].x) != 0) {
			free(pt);
			return fb_cmd_error(ctx, "x: '%s' in column '%s' is not a number", xs,
			                    s->key_names[nby]);
		}
		if (st->n == 0)
			continue;
		*spread |= st->n > 1;
		pt[n].y = st->mean;
		pt[n++].e = plot_bar(st, e);
	}
	qsort(pt, n, sizeof *pt, plot_point_cmp);
	x = fb_xcalloc(n + 1, sizeof *x);
	y = fb_xcalloc(n + 1, sizeof *y);
	bar = fb_xcalloc(n + 1, sizeof *bar);
	for (size_t i = 0; i < n; i++)
		x[i] = pt[i].x, y[i] = pt[i].y, bar[i] = pt[i].e;
	label = plot_label(s, gr, nby, s->fig_names[f], many);
	fb_plot_add(p, label, n, x, y, e == PLOT_ERR_NONE ? NULL : bar);
	free(label);
	free(pt);
	free(x);
	free(y);
	free(bar);
	return FB_CMD_OK;
}

/* Every line of summary s (groups keyed by the by-columns then x), one per by-value and
 * figure. */
static int plot_lines(fb_cmd_ctx *ctx, const fb_summary *s, size_t nby, enum plot_err e,
                      fb_plot *p, bool *spread)
{
	bool *taken = fb_xcalloc(s->ngroups + 1, sizeof *taken);
	int ret = FB_CMD_OK;

	for (size_t f = 0; f < s->nfigs && ret == FB_CMD_OK; f++) {
		memset(taken, 0, (s->ngroups + 1) * sizeof *taken);
		for (size_t gr = 0; gr < s->ngroups && ret == FB_CMD_OK; gr++)
			if (!taken[gr])
				ret = plot_line(ctx, s, gr, nby, f, e, s->nfigs > 1, taken, p, spread);
	}
	free(taken);
	return ret;
}

/* script=FILE: write the gnuplot commands that draw p into out to FILE. */
static int plot_save_script(fb_cmd_ctx *ctx, const fb_plot *p, const char *out,
                            const fb_params *prm)
{
	const char *path = fb_params_str(prm, "script");
	fb_error err = { { 0 } };
	fb_buf b = { 0 };
	fb_atomic_file af;
	int ret = FB_CMD_OK;

	if (path == NULL)
		return FB_CMD_OK;
	if (fb_files_check(ctx, path, prm) != FB_CMD_OK)
		return FB_CMD_ERROR;
	fb_plot_script(p, out, &b);
	if (fb_atomic_open(&af, path, &err) != FB_OK)
		ret = fb_cmd_error(ctx, "%s", err.msg);
	else {
		fputs(b.data, af.fp);
		if (fb_atomic_commit(&af, &err) != FB_OK)
			ret = fb_cmd_error(ctx, "%s", err.msg);
		else
			fb_files_note_written(ctx, path);
	}
	fb_buf_release(&b);
	return ret;
}

/* size=WxH and font=PT of a picture into p; FB_CMD_ERROR naming a size that is not two
 * numbers of pixels. */
static int plot_picture_size(fb_cmd_ctx *ctx, fb_plot *p, const fb_params *prm)
{
	const char *size = fb_params_str(prm, "size");
	unsigned w, h;
	int used = 0;

	p->font = (size_t)fb_params_int(prm, "font");
	if (size == NULL)
		return FB_CMD_OK;
	if (sscanf(size, "%5ux%5u%n", &w, &h, &used) != 2 || size[used] != '\0' || w < 100 ||
	    h < 100 || w > 10000 || h > 10000)
		return fb_cmd_error(ctx, "size=%s: give the picture's width and height in pixels, "
		                    "each 100 to 10000, as WIDTHxHEIGHT (size=1600x1000)", size);
	p->width = w;
	p->height = h;
	return FB_CMD_OK;
}

/* Draw p into out= (PNG or SVG by its extension) or as text on the screen. */
static int plot_output(fb_cmd_ctx *ctx, fb_plot *p, const fb_params *prm)
{
	const char *out = fb_params_str(prm, "out"), *dot = out != NULL ? strrchr(out, '.') : NULL;
	fb_error err = { { 0 } };
	fb_buf text = { 0 };
	size_t points = 0;

	for (size_t s = 0; s < p->nseries; s++)
		points += p->series[s].n;
	if (out == NULL) {
		p->format = FB_PLOT_TEXT;
		p->width = fb_cmd_width(ctx->out) < 200 ? fb_cmd_width(ctx->out) : 200;
		p->height = 24;
	} else if (dot != NULL && (strcmp(dot, ".png") == 0 || strcmp(dot, ".svg") == 0)) {
		p->format = dot[1] == 'p' ? FB_PLOT_PNG : FB_PLOT_SVG;
	} else {
		return fb_cmd_error(ctx, "cannot tell the format of '%s' (use .png or .svg)",
		                    out);
	}
	if (out != NULL && plot_picture_size(ctx, p, prm) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (out != NULL && fb_files_check(ctx, out, prm) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (plot_save_script(ctx, p, out, prm) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (fb_plot_draw(p, out, &text, &err) != FB_OK) {
		fb_buf_release(&text);
		return fb_cmd_error(ctx, "%s", err.msg);
	}
	if (out == NULL) {
		fputs(text.data != NULL ? text.data : "", ctx->out);
		if (text.len > 0 && text.data[text.len - 1] != '\n')
			fputc('\n', ctx->out);
	} else {
		fb_files_note_written(ctx, out);
		fb_session_add_product(ctx->s, true, out, NULL);
		fprintf(ctx->out, "wrote '%s' (%zu line%s, %zu points)\n", out, p->nseries,
		        p->nseries == 1 ? "" : "s", points);
	}
	fb_buf_release(&text);
	return FB_CMD_OK;
}

/* The default title of a table's plot: "shd against K by algo (mean ± standard error)". */
static char *plot_table_title(const fb_params *prm, bool spread, enum plot_err e)
{
	const char *by = fb_params_str(prm, "by"), *where = fb_params_str(prm, "where");
	fb_buf b = { 0 };

	if (fb_params_str(prm, "title") != NULL)
		return fb_xstrdup(fb_params_str(prm, "title"));
	fb_buf_printf(&b, "%s against %s", fb_params_str(prm, "y"), fb_params_str(prm, "x"));
	if (by != NULL)
		fb_buf_printf(&b, " by %s", by);
	if (where != NULL)
		fb_buf_printf(&b, " where %s", where);
	if (spread)
		fb_buf_printf(&b, " (mean%s)", e == PLOT_ERR_SE   ? " ± standard error"
		                               : e == PLOT_ERR_SD ? " ± standard deviation"
		                                                  : "");
	return b.data;
}

/* The lines of table t: x, y and by columns checked, rows grouped and averaged. */
static int plot_table_lines(fb_cmd_ctx *ctx, const fb_table *t, const char *path,
                            const fb_params *prm, fb_plot *p, bool *spread)
{
	size_t nby, ny;
	char **by = plot_list(fb_params_str(prm, "by"), &nby);
	char **ys = plot_list(fb_params_str(prm, "y"), &ny);
	char **keys = fb_xcalloc(nby + 2, sizeof *keys);
	fb_error err = { { 0 } };
	fb_summary s;
	int ret;

	memcpy(keys, by, nby * sizeof *keys);
	keys[nby] = (char *)fb_params_str(prm, "x");
	ret = plot_check_columns(ctx, t, path, keys, nby + 1);
	if (ret == FB_CMD_OK)
		ret = plot_check_columns(ctx, t, path, ys, ny);
	if (ret == FB_CMD_OK && ny == 0)
		ret = fb_cmd_error(ctx, "y= names no column");
	if (ret == FB_CMD_OK && fb_summary_compute(&s, t, (const char *const *)keys, nby + 1,
	                                           (const char *const *)ys, ny, &err) != FB_OK)
		ret = fb_cmd_error(ctx, "%s", err.msg);
	else if (ret == FB_CMD_OK) {
		ret = plot_lines(ctx, &s, nby, fb_params_choice(prm, "err"), p, spread);
		fb_summary_release(&s);
	}
	plot_list_free(by, nby);
	plot_list_free(ys, ny);
	free(keys);
	return ret;
}

/* plot FILE.csv x= y= [by=] [where=] ...: lines through the mean of each group of rows. */
static int plot_table(fb_cmd_ctx *ctx, const char *path, const fb_params *prm)
{
	fb_error err = { { 0 } };
	fb_table t, kept;
	fb_plot p;
	bool spread = false;
	char *title;
	int ret;

	if (fb_params_str(prm, "x") == NULL || fb_params_str(prm, "y") == NULL)
		return fb_cmd_error(ctx, "give the columns to draw: x=COLUMN y=COLUMN");
	if (fb_table_read(&t, path, &err) != FB_OK)
		return fb_cmd_error(ctx, "%s", err.msg);
	ret = plot_where(ctx, &t, path, fb_params_str(prm, "where"), &kept);
	fb_plot_init(&p, "", fb_params_str(prm, "x"), fb_params_str(prm, "y"));
	p.logx = fb_params_bool(prm, "logx");
	p.logy = fb_params_bool(prm, "logy");
	if (ret == FB_CMD_OK)
		ret = plot_table_lines(ctx, &kept, path, prm, &p, &spread);
	if (ret == FB_CMD_OK) {
		title = plot_table_title(prm, spread, fb_params_choice(prm, "err"));
		free(p.title);
		p.title = title;
		ret = plot_output(ctx, &p, prm);
	}
	fb_plot_release(&p);
	fb_table_release(&kept);
	fb_table_release(&t);
	return ret;
}

/* The figures every trace has besides the algorithm's own. */
static const char *const trace_common[] = { "shd", "tpr", "fdr", "edges", "bytes", "seconds",
	                                    NULL };

/* The value of figure name in record r of run (NaN when the record has none); false when
 * name is no figure of the run. */
static bool trace_value(const fb_run *run, const fb_trace_rec *r, const char *name, double *v)
{
	for (size_t f = 0; f < run->trace.nfig; f++)
		if (strcmp(run->figures[f], name) == 0)
			return *v = r->fig[f], true;
	*v = NAN;
	if (strcmp(name, "shd") == 0 || strcmp(name, "tpr") == 0 || strcmp(name, "fdr") == 0) {
		if (r->scored)
			*v = name[0] == 's' ? r->score.shd : name[0] == 't' ? r->score.tpr : r->score.fdr;
		return true;
	}
	if (strcmp(name, "edges") == 0)
		return *v = (double)r->edges, true;
	if (strcmp(name, "bytes") == 0)
		return *v = (double)(r->bytes_up + r->bytes_down), true;
	if (strcmp(name, "seconds") == 0)
		return *v = r->seconds, true;
	return false;
}

/* FB_CMD_ERROR saying that name is no figure of run number no, listing those it has. */
static int trace_unknown(fb_cmd_ctx *ctx, const fb_run *run, size_t no, const char *name)
{
	fb_buf b = { 0 };
	int ret;

	for (size_t f = 0; f < run->trace.nfig; f++)
		fb_buf_printf(&b, "%s, ", run->figures[f]);
	for (size_t f = 0; trace_common[f] != NULL; f++)
		fb_buf_printf(&b, "%s%s", trace_common[f], trace_common[f + 1] ? ", " : "");
	ret = fb_cmd_error(ctx, "trace: '%s' is not a figure of run %zu (it has %s)", name,
	                   no, b.data);
	fb_buf_release(&b);
	return ret;
}

/* Add the line of figure name over the rounds of run (with p->logy, the rounds where it is
 * above 0); returns how many rounds with a number it left out for the log scale. */
static size_t trace_line(const fb_run *run, const char *name, fb_plot *p)
{
	double *x = fb_xcalloc(run->trace.n + 1, sizeof *x), *y = fb_xcalloc(run->trace.n + 1,
	                                                                   sizeof *y);
	size_t n = 0, cut = 0;

	for (size_t i = 0; i < run->trace.n; i++) {
		double v;

		trace_value(run, &run->trace.r[i], name, &v);
		if (p->logy && isfinite(v) && !(v > 0))
			cut++;
		else if (isfinite(v)) {
			x[n] = (double)run->trace.r[i].round;
			y[n++] = v;
		}
	}
	fb_plot_add(p, name, n, x, y, NULL);
	free(x);
	free(y);
	return cut;
}

/* The run plot trace draws and its number; NULL after the error. */
static const fb_run *trace_run(fb_cmd_ctx *ctx, const fb_params *prm, size_t *no)
{
	int64_t n = fb_params_int(prm, "run");
	const fb_run *run = fb_cmd_pick_run(ctx, n);

	if (run == NULL)
		return NULL;
	*no = n > 0 ? (size_t)n : ctx->s->nruns;
	if (run->trace.n == 0) {
		fb_cmd_error(ctx, "trace: run %zu has no round yet: step or run it", *no);
		return NULL;
	}
	return run;
}

/* plot trace [run=N] [y=FIG,...]: a run's figures over its rounds. */
static int plot_trace(fb_cmd_ctx *ctx, const fb_params *prm)
{
	size_t no, ny, cut;
	const fb_run *run = trace_run(ctx, prm, &no);
	char **ys, *title;
	fb_plot p;
	fb_buf all = { 0 };
	int ret = FB_CMD_OK;
	double v;

	if (run == NULL)
		return FB_CMD_ERROR;
	fb_buf_printf(&all, "%s", run->trace.nfig > 0 ? run->figures[0] : "edges");
	if (fb_params_str(prm, "y") != NULL) {
		all.len = 0;
		fb_buf_printf(&all, "%s", fb_params_str(prm, "y"));
	}
	ys = plot_list(all.data, &ny);
	title = fb_xasprintf("run %zu: %s on %s", no, run->name,
	                     run->part != NULL ? run->part->desc : "all rows");
	fb_plot_init(&p, fb_params_str(prm, "title") != NULL ? fb_params_str(prm, "title") : title,
	             "round", all.data);
	p.logx = fb_params_bool(prm, "logx");
	p.logy = fb_params_bool(prm, "logy");
	for (size_t i = 0; i < ny && ret == FB_CMD_OK; i++) {
		if (!trace_value(run, &run->trace.r[0], ys[i], &v))
			ret = trace_unknown(ctx, run, no, ys[i]);
		else if ((cut = trace_line(run, ys[i], &p)) > 0)
			fprintf(ctx->out, "logy=yes: %zu round%s where %s is not above 0 left out\n", cut,
			        cut == 1 ? "" : "s", ys[i]);
	}
	if (ret == FB_CMD_OK && ny == 0)
		ret = fb_cmd_error(ctx, "trace: y= names no figure");
	if (ret == FB_CMD_OK)
		ret = plot_output(ctx, &p, prm);
	fb_plot_release(&p);
	plot_list_free(ys, ny);
	fb_buf_release(&all);
	free(title);
	return ret;
}

/* plot FILE.csv ... | plot trace ... */
static int exec_plot(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	if (strcmp(a->argv[0], "trace") == 0)
		return plot_trace(ctx, &a->params);
	return plot_table(ctx, a->argv[0], &a->params);
}

/* plot's first word besides a file name. */
static const fb_choice plot_words[] = { { "trace", 0 }, { 0 } };

/* plot's parameters. */
static const fb_param_def plot_params[] = {
	{ "x", FB_PARAM_STRING, NULL, 0, 0, NULL, "the column along the x axis (numbers)" },
	{ "y", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the column(s) drawn, e.g. shd or shd,tpr (trace: figures of the run, e.g. h,objective)" },
	{ "by", FB_PARAM_STRING, NULL, 0, 0, NULL, "one line per value of these column(s)" },
	{ "where", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "only the rows where COLUMN=VALUE (several: d=20,n=256)" },
	{ "err", FB_PARAM_CHOICE, "se", 0, 0, plot_errs,
	  "error bars: standard error, standard deviation, or none" },
	{ "logx", FB_PARAM_BOOL, "no", 0, 0, NULL, "a logarithmic x axis (base 2)" },
	{ "logy", FB_PARAM_BOOL, "no", 0, 0, NULL,
	  "a logarithmic y axis (base 10), for figures of different sizes (h beside the "
	  "objective); trace leaves out the rounds where a figure is not above 0" },
	{ "size", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the picture's WIDTHxHEIGHT in pixels (default 800x500; size=1600x1000 for a "
	  "projector)" },
	{ "font", FB_PARAM_INT, "0", 0, 72, NULL,
	  "the font size in points (0: 10 in a PNG, 12 in an SVG; 20 reads on a projector)" },
	{ "title", FB_PARAM_STRING, NULL, 0, 0, NULL, "the title (default: what is drawn)" },
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "trace: which run (1 is the first; 0: newest)" },
	{ "out", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "write FIG.png or FIG.svg (default: draw on the screen in characters)" },
	{ "script", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "also write the gnuplot commands (data included) to FILE, to change by hand" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_plot = {
	.name = "plot",
	.usage = "FILE.csv x=COL y=COL [by=COL] [where=COL=V] [err=se|sd|none] [logx=yes] "
	         "[title=T] [out=FIG.png|FIG.svg] [script=FILE] | trace [run=N] [y=FIG,...] [out=...]",
	.summary = "draw a sweep's results or a run's trace",
	.help = "Draw lines with gnuplot. plot k.csv x=K y=shd by=algo out=k.png reads a table "
	        "(a sweep's out= file, or any CSV with a header), groups its rows by the by= "
	        "columns and x, and draws one line per by-value through the mean of each "
	        "group, with error bars of one standard error (err=sd: one standard deviation; "
	        "err=none: no bars); rows without a number in y (failed cells) are left out. "
	        "Axis labels are the column names, the legend the by-values, the title says "
	        "what is drawn (or title=). where=d=20 keeps only matching rows; logx=yes makes "
	        "the x axis logarithmic, logy=yes the y axis. The axes hold the data and no "
	        "more (y from 0 when nothing is below it); series of more than 40 points are "
	        "lines without markers; the error bars of several lines at one x are set a "
	        "little apart. size=1600x1000 and font=20 make a picture for a projector. "
	        "plot trace draws the newest run's (or run=N's) figures "
	        "over its rounds: y=h,objective or any of its figures and shd, tpr, fdr, "
	        "edges, bytes, seconds (default: the algorithm's first figure). out= writes a "
	        "PNG or SVG file; without it the plot is drawn in characters on the screen. "
	        "script=FILE also writes the gnuplot commands, data included, to change and "
	        "run by hand. "
	        "gnuplot (Debian package gnuplot-nox) draws; without it plot says so.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .offers = plot_words,
	.params = plot_params,
	.exec = exec_plot,
};
