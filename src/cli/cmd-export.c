/* export: graphs out, as pictures through Graphviz or as CSV. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "fedbn/export.h"
#include "fedbn/graphfmt.h"
#include "cmd.h"
#include "report.h"
#include "files.h"
#include "graph-files.h"
#include "interrupt.h"
#include "session.h"

/* The file name's extension (after the last dot of the last component), or "". */
static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash != NULL ? slash : path, '.');

	return dot != NULL ? dot + 1 : "";
}

/* Read graph=FILE over the dataset's variables; NULL after printing the error. */
static fb_graph *read_graph_file(fb_cmd_ctx *ctx, const char *file)
{
	fb_graph *g;

	if (ctx->s->data == NULL) {
		fb_cmd_error(ctx, "no dataset: graph= names are checked against its variables");
		return NULL;
	}
	if ((g = fb_graph_files_read(ctx, file, NULL)) != NULL)
		fb_files_note_read(ctx, file, "a graph was read from it");
	return g;
}

/* Whether g's nodes are the current dataset's variables, in order. */
static bool fits_data(const fb_session *s, const fb_graph *g)
{
	if (s->data == NULL || s->data->d != g->d)
		return false;
	for (size_t i = 0; i < g->d; i++)
		if (strcmp(s->data->vars[i].name, g->names[i]) != 0)
			return false;
	return true;
}

/* The values of layout=. */
enum export_layout { LAYOUT_SHARED, LAYOUT_FRESH };

/* The names of layout='s values. */
static const fb_choice export_layouts[] = {
	{ "shared", LAYOUT_SHARED }, { "fresh", LAYOUT_FRESH }, { 0 },
};

/* The names of weights='s values. */
static const fb_choice export_weights[] = {
	{ "labels", FB_WEIGHTS_LABELS }, { "width", FB_WEIGHTS_WIDTH }, { "none", FB_WEIGHTS_NONE },
	{ 0 },
};

/* The names of style='s values. */
static const fb_choice export_styles[] = {
	{ "color", FB_STYLE_COLOR }, { "print", FB_STYLE_PRINT }, { 0 },
};

/* A new layout from the truth, or else from the union of g and every run's estimate over
 * the dataset's variables (NULL when Graphviz cannot make one or cancel stopped it). */
static fb_export_layout *layout_make(const fb_session *s, const fb_graph *g,
                                     const fb_cancel *cancel)
{
	const fb_graph **gs;
	fb_graph **owned;
	fb_export_layout *l;
	fb_error err = { { 0 } };
	size_t n = 0;

	if (s->truth != NULL)
		return fb_export_layout_alloc_cancellable((const fb_graph *const *)&s->truth, 1,
		                                           cancel, &err);
	gs = fb_xcalloc(s->nruns + 1, sizeof *gs);
	owned = fb_xcalloc(s->nruns + 1, sizeof *owned);
	gs[n++] = g;
	for (size_t k = 0; k < s->nruns; k++)
		if ((owned[k] = fb_run_result(s->runs[k], &err)) != NULL && fits_data(s, owned[k]))
			gs[n++] = owned[k];
	l = fb_export_layout_alloc_cancellable(gs, n, cancel, &err);
	for (size_t k = 0; k < s->nruns; k++)
		fb_graph_free(owned[k]);
	free(owned);
	free(gs);
	return l;
}

/* The session's shared layout for g, or one made now into *made (the caller keeps it in the
 * session once the picture is written); NULL (the picture laid out alone) for layout=fresh
 * or a graph over other variables. */
static const fb_export_layout *shared_layout(fb_cmd_ctx *ctx, const fb_graph *g,
                                             const fb_params *p, const fb_cancel *cancel,
                                             fb_export_layout **made)
{
	*made = NULL;
	if (fb_params_choice(p, "layout") == LAYOUT_FRESH || !fits_data(ctx->s, g))
		return NULL;
	if (ctx->s->layout != NULL)
		return ctx->s->layout;
	return *made = layout_make(ctx->s, g, cancel);
}

/* Keep a layout made for a picture in the session when the picture was written (ok), so
 * that every later picture shares it; else forget it, leaving the session as it was. */
static void layout_keep(fb_cmd_ctx *ctx, fb_export_layout *made, bool ok)
{
	if (ok && made != NULL)
		ctx->s->layout = made;
	else
		fb_export_layout_free(made);
}

/* Where run's data came from, its files named as how says (caller frees). */
static char *run_data(const fb_session *s, const fb_run *run, enum fb_report_paths how)
{
	return run->whole == s->data ? fb_report_path(s->data_source, how)
	                             : fb_xstrdup("an earlier dataset");
}

/* How export's captions name files: paths=. */
static enum fb_report_paths paths_of(const fb_params *p)
{
	return (enum fb_report_paths)fb_params_choice(p, "paths");
}

/* What a picture says about itself: its title, caption and panel titles (all owned). */
struct facts {
	char *title;    /* the title line */
	char *caption;  /* the caption lines */
	char *panel[2]; /* compare: each panel's title */
	fb_pag *pag;    /* a PAG run's PAG, drawn with its marks, or NULL */
	const fb_knowledge *knowledge; /* the run's knowledge (required arcs doubled), or NULL */
	const char *weights_name; /* what the weights are, for the legend, or NULL */
};

/* Free the facts. */
static void facts_release(struct facts *f)
{
	free(f->title);
	free(f->caption);
	free(f->panel[0]);
	free(f->panel[1]);
	fb_pag_free(f->pag);
}

/* One line on run: its number (when numbered), algorithm, parameters and round. */
static char *run_line(const fb_session *s, const fb_run *run, bool numbered)
{
	char params[512], number[64] = "";

	fb_report_params(run, params, sizeof params);
	if (numbered)
		snprintf(number, sizeof number, "run %zu: ", fb_cmd_run_number(s, run));
	return fb_xasprintf("%s%s with %s, round %zu%s", number, run->name,
	                    params[0] ? params : "default parameters", fb_run_rounds(run),
	                    fb_run_done(run) ? " (finished)" : "");
}

/* The caption of a picture of run: the run, its data (files named as how says) and split,
 * and the knowledge it took ("knowledge: 3 required, 12 forbidden, 2 tiers"). */
char *fb_cmd_run_caption(const fb_session *s, const fb_run *run, int how)
{
	char *line = run_line(s, run, false);
	char *data = run_data(s, run, (enum fb_report_paths)how);
	char kn[128], *caption;

	fb_knowledge_caption(fb_run_knowledge(run), kn, sizeof kn);
	caption = fb_xasprintf("%s\ndata: %s; split: %s%s%s%s", line, data,
	                       run->part != NULL ? run->part->desc : "all rows",
	                       kn[0] != '\0' ? "\n" : "", kn,
	                       fb_knowledge_n_required(fb_run_knowledge(run)) > 0
	                               ? " (required arcs drawn double)"
	                               : "");
	free(line);
	free(data);
	return caption;
}

/* The options of a picture from export's parameters, with the facts and layout. */
static fb_export_opts picture_opts(const fb_params *p, const struct facts *f,
                                   const fb_export_layout *layout)
{
	fb_export_opts o = { 0 };

	o.layout = layout;
	o.title = fb_params_given(p, "title") ? fb_params_str(p, "title") : f->title;
	o.caption = fb_params_bool(p, "caption") ? f->caption : NULL;
	o.panel_title[0] = f->panel[0];
	o.panel_title[1] = f->panel[1];
	o.weights = (enum fb_export_weights)fb_params_choice(p, "weights");
	o.style = (enum fb_export_style)fb_params_choice(p, "style");
	o.width = fb_params_double(p, "width");
	o.dpi = fb_params_double(p, "dpi");
	o.pag = f->pag;
	o.knowledge = f->knowledge;
	o.weights_name = f->weights_name;
	return o;
}

/* What a drawing into path that returned rc says: nothing when it was written, else one
 * sentence (stopped by Ctrl-C, or the library's reason in err). */
static int drawing_outcome(fb_cmd_ctx *ctx, const char *path, int rc, const fb_error *err)
{
	if (rc == FB_OK)
		return FB_CMD_OK;
	if (fb_interrupted())
		return fb_cmd_error(ctx, "stopped by %s; '%s' is as it was",
		                    fb_interrupt_cause(), path);
	return fb_cmd_error_plain(ctx, "%s", err->msg);
}

/* Draw g (against truth for the diff view) into path with the facts, or write it as a
 * graph file (format=, or a .csv, .txt, .gml or .json file);
 * Ctrl-C stops a long drawing and leaves path as it was. */
static int export_graph(fb_cmd_ctx *ctx, const fb_graph *g, const fb_graph *truth,
                        const char *path, const fb_params *p, const struct facts *f)
{
	fb_cancel cancel = fb_interrupt_cancel();
	fb_error err = { { 0 } };
	fb_export_layout *made;
	fb_export_opts o;
	int rc, format;

	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if ((format = fb_graph_files_format(p, path, true)) != FB_GRAPH_AUTO)
		return fb_graph_files_write(ctx, g, path, format, true);
	fb_interrupt_begin();
	o = picture_opts(p, f, shared_layout(ctx, g, p, &cancel, &made));
	rc = fb_interrupted() ? FB_ERR
	                      : fb_export_graph_cancellable(g, truth,
	                                                    truth != NULL ? FB_VIEW_DIFF
	                                                                  : FB_VIEW_GRAPH,
	                                                    &o, path, &cancel, &err);
	fb_interrupt_end();
	layout_keep(ctx, made, rc == FB_OK);
	if (drawing_outcome(ctx, path, rc, &err) != FB_CMD_OK)
		return FB_CMD_ERROR;
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%zu nodes, %zu edges%s)\n", path, g->d,
	        fb_graph_n_edges(g), truth != NULL ? ", against the truth" : "");
	return FB_CMD_OK;
}

/* The values of what=. */
enum export_what { WHAT_AUTO, WHAT_TRUTH, WHAT_ESTIMATE, WHAT_DIFF, WHAT_COMPARE,
	           WHAT_CIRCUIT, WHAT_CLIENTS, WHAT_CONSENSUS };

/* The names of what='s values. */
static const fb_choice export_whats[] = {
	{ "auto", WHAT_AUTO }, { "truth", WHAT_TRUTH }, { "estimate", WHAT_ESTIMATE },
	{ "diff", WHAT_DIFF }, { "compare", WHAT_COMPARE }, { "circuit", WHAT_CIRCUIT },
	{ "clients", WHAT_CLIENTS }, { "consensus", WHAT_CONSENSUS }, { 0 },
};

/* A PAG run's PAG into f for the picture; what=diff refused in one sentence (FB_CMD_ERROR
 * after printing it). */
static int pag_estimate(fb_cmd_ctx *ctx, const fb_run *run, bool diff, struct facts *f)
{
	fb_error err = { { 0 } };

	if (diff)
		return fb_cmd_error(ctx, "run %zu (%s) learned a PAG, whose circles and <-> edges a "
		                         "diff against the true DAG cannot score: export it without "
		                         "what=diff to draw its marks, and read its PAG-SHD against "
		                         "the true PAG (gen hide=) in compare",
		                    fb_cmd_run_number(ctx->s, run), run->name);
	if ((f->pag = fb_run_pag(run, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	return FB_CMD_OK;
}

/* The estimate to draw: graph=FILE, else run=N (0: the newest run), or with client=K its
 * client K's own graph, with its facts; NULL after the error. */
static fb_graph *estimate(fb_cmd_ctx *ctx, const fb_params *p, bool diff, struct facts *f)
{
	const char *file = fb_params_str(p, "graph");
	int64_t client = fb_params_given(p, "client") ? fb_params_int(p, "client") : 0;
	fb_error err = { { 0 } };
	fb_run *run;
	fb_graph *g;

	if (file != NULL && client != 0) {
		fb_cmd_error(ctx, "client= draws a client's graph of a run, not graph=FILE");
		return NULL;
	}
	if (file != NULL) {
		char *name = fb_report_path(file, paths_of(p));
		char *data = fb_report_path(ctx->s->data_source, paths_of(p));

		f->title = fb_xasprintf("graph from '%s'%s", name, diff ? " against the truth" : "");
		f->caption = fb_xasprintf("data: %s", data);
		free(name);
		free(data);
		return read_graph_file(ctx, file);
	}
	if (ctx->s->nruns == 0) {
		fb_cmd_error(ctx, "no estimate: run an algorithm, or give graph=FILE.csv");
		return NULL;
	}
	if ((run = fb_cmd_pick_run(ctx, fb_params_int(p, "run"))) == NULL)
		return NULL;
	if (client == 0 && fb_run_is_pag(run) && pag_estimate(ctx, run, diff, f) != FB_CMD_OK)
		return NULL;
	if ((g = client == 0 ? fb_run_result(run, &err)
	                     : fb_run_client_result(run, (size_t)client - 1, &err)) == NULL) {
		fb_cmd_error(ctx, "%s", err.msg);
		return NULL;
	}
	f->title = client == 0 ? fb_xasprintf("run %zu: %s%s", fb_cmd_run_number(ctx->s, run),
	                                      run->name, diff ? " against the truth" : "")
	                       : fb_xasprintf("run %zu: %s, client %" PRId64 "'s graph%s",
	                                      fb_cmd_run_number(ctx->s, run), run->name, client,
	                                      diff ? " against the truth" : "");
	f->caption = fb_cmd_run_caption(ctx->s, run, paths_of(p));
	f->knowledge = fb_run_knowledge(run);
	return g;
}

/* The truth's facts: where the data and the truth came from, files named as how says. */
static void truth_facts(const fb_session *s, struct facts *f, enum fb_report_paths how)
{
	char *data = fb_report_path(s->data_source ? s->data_source : "none", how);
	char *truth = fb_report_path(s->truth_source ? s->truth_source : "given", how);

	f->title = fb_xstrdup("true graph");
	if (strcmp(data, truth) == 0)
		f->caption = fb_xasprintf("data and truth: %s", data);
	else
		f->caption = fb_xasprintf("data: %s\ntruth: %s", data, truth);
	free(data);
	free(truth);
}

/* One panel of a compare picture: "truth" or a run number. */
struct panel {
	fb_run *run;      /* the run drawn, or NULL for the truth */
	fb_graph *g;      /* its graph (owned when run is set) */
};

/* Parse one item of runs= into *pl; FB_CMD_ERROR after the error. */
static int panel_parse(fb_cmd_ctx *ctx, const char *item, struct panel *pl)
{
	fb_error err = { { 0 } };
	char *end;
	long n = strtol(item, &end, 10);

	if (strcmp(item, "truth") == 0) {
		if (fb_cmd_need(ctx, FB_NEEDS_TRUTH) != FB_CMD_OK)
			return FB_CMD_ERROR;
		pl->g = ctx->s->truth;
		return FB_CMD_OK;
	}
	if (end == item || *end != '\0' || n < 1)
		return fb_cmd_error(ctx, "'runs' takes two run numbers or 'truth' joined by "
		                    "a comma, found '%s'", item);
	if ((pl->run = fb_cmd_pick_run(ctx, n)) == NULL)
		return FB_CMD_ERROR;
	if ((pl->g = fb_run_result(pl->run, &err)) == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	return FB_CMD_OK;
}

/* The two panels of runs= (default: the newest run and the truth, else the two newest
 * runs); FB_CMD_ERROR after the error. */
static int panels_parse(fb_cmd_ctx *ctx, const fb_params *p, struct panel pl[2])
{
	const char *runs = fb_params_str(p, "runs");
	size_t n = ctx->s->nruns;
	char items[2][32];
	const char *comma;

	if (runs == NULL && n >= 1 && ctx->s->truth != NULL) {
		snprintf(items[0], sizeof items[0], "%zu", n);
		snprintf(items[1], sizeof items[1], "truth");
	} else if (runs == NULL && n >= 2) {
		snprintf(items[0], sizeof items[0], "%zu", n - 1);
		snprintf(items[1], sizeof items[1], "%zu", n);
	} else if (runs == NULL) {
		return fb_cmd_error(ctx, "what=compare needs two graphs: give runs=1,2 or "
		                    "runs=1,truth");
	} else {
		comma = strchr(runs, ',');
		if (comma == NULL || strchr(comma + 1, ',') != NULL || comma - runs >= 32 ||
		    strlen(comma + 1) >= 32)
			return fb_cmd_error(ctx, "'runs' takes two run numbers or 'truth' "
			                    "joined by a comma, found '%s'", runs);
		snprintf(items[0], sizeof items[0], "%.*s", (int)(comma - runs), runs);
		snprintf(items[1], sizeof items[1], "%s", comma + 1);
	}
	for (int k = 0; k < 2; k++)
		if (panel_parse(ctx, items[k], &pl[k]) != FB_CMD_OK)
			return FB_CMD_ERROR;
	return FB_CMD_OK;
}

/* The facts of a compare picture: each panel titled, each run on a caption line, the data
 * (its files named as how says). */
static void compare_facts(const fb_session *s, const struct panel pl[2], struct facts *f,
                          enum fb_report_paths how)
{
	char *data = fb_report_path(s->data_source, how);
	fb_buf cap = { 0 };

	for (int k = 0; k < 2; k++) {
		char *line = pl[k].run ? run_line(s, pl[k].run, true) : NULL;

		f->panel[k] = pl[k].run ? fb_xasprintf("run %zu: %s", fb_cmd_run_number(s, pl[k].run),
		                                       pl[k].run->name)
		                        : fb_xstrdup("truth");
		if (line != NULL)
			fb_buf_printf(&cap, "%s%s", cap.len ? "\n" : "", line);
		free(line);
	}
	f->title = fb_xasprintf("%s beside %s", pl[0].run ? f->panel[0] : "the truth",
	                        pl[1].run ? f->panel[1] : "the truth");
	fb_buf_printf(&cap, "%sdata: %s; split: %s", cap.len ? "\n" : "", data,
	              s->split != NULL ? s->split->desc : "all rows");
	f->caption = cap.data;
	free(data);
}

/* export FILE what=compare [runs=A,B]: two graphs side by side on the shared layout. */
static int export_compare(fb_cmd_ctx *ctx, const fb_params *p, const char *path)
{
	struct panel pl[2] = { { 0 } };
	struct facts f = { 0 };
	const fb_graph *g[2];
	fb_error err = { { 0 } };
	fb_export_layout *made = NULL;
	fb_cancel cancel = fb_interrupt_cancel();
	fb_export_opts o;
	int ret = FB_CMD_ERROR, rc;

	if (strcmp(extension(path), "csv") == 0)
		return fb_cmd_error(ctx, "what=compare draws a picture, not a '.csv' file");
	if (fb_files_check(ctx, path, p) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (panels_parse(ctx, p, pl) == FB_CMD_OK) {
		g[0] = pl[0].g;
		g[1] = pl[1].g;
		compare_facts(ctx->s, pl, &f, paths_of(p));
		fb_interrupt_begin();
		o = picture_opts(p, &f, shared_layout(ctx, g[0], p, &cancel, &made));
		rc = fb_interrupted() ? FB_ERR
		                      : fb_export_compare_cancellable(g, ctx->s->truth, &o, path,
		                                                      &cancel, &err);
		fb_interrupt_end();
		ret = drawing_outcome(ctx, path, rc, &err);
		layout_keep(ctx, made, ret == FB_CMD_OK);
	}
	if (ret == FB_CMD_OK) {
		fb_files_note_written(ctx, path);
		fprintf(ctx->out, "wrote '%s' (%s beside %s)\n", path, f.panel[0], f.panel[1]);
	}
	for (int k = 0; k < 2; k++)
		if (pl[k].run != NULL)
			fb_graph_free(pl[k].g);
	facts_release(&f);
	return ret;
}

/* path with "-clientK" before its extension (caller frees). */
static char *client_path(const char *path, size_t k)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (dot == NULL || (slash != NULL && dot < slash))
		return fb_xasprintf("%s-client%zu", path, k);
	return fb_xasprintf("%.*s-client%zu%s", (int)(dot - path), path, k, dot);
}

/* Draw (or write) client k's own graph of run into path, titled as its client's. */
static int export_one_client(fb_cmd_ctx *ctx, const fb_params *p, fb_run *run, size_t k,
                             const char *path)
{
	fb_error err = { { 0 } };
	struct facts f = { 0 };
	fb_graph *g = fb_run_client_result(run, k - 1, &err);
	int ret;

	if (g == NULL)
		return fb_cmd_error(ctx, "%s", err.msg);
	f.title = fb_xasprintf("run %zu: %s, client %zu's graph", fb_cmd_run_number(ctx->s, run),
	                       run->name, k);
	f.caption = fb_cmd_run_caption(ctx->s, run, paths_of(p));
	ret = export_graph(ctx, g, NULL, path, p, &f);
	fb_graph_free(g);
	facts_release(&f);
	return ret;
}

/* export FILE what=clients [run=N]: each client's own graph of a run that keeps one, a file
 * per client named FILE-client1.EXT, FILE-client2.EXT, ..., all on the layout the session
 * shares for the dataset, so that the pictures lie over each other edge for edge. */
static int export_clients(fb_cmd_ctx *ctx, const fb_params *p, const char *path)
{
	fb_run *run;
	size_t k, nk;

	if (fb_params_str(p, "graph") != NULL || fb_params_given(p, "client"))
		return fb_cmd_error(ctx, "what=clients draws every client's graph of a run: give "
		                         "run=N, not graph= or client=");
	if (ctx->s->nruns == 0)
		return fb_cmd_error(ctx, "no run: what=clients draws the clients' graphs of a run");
	if ((run = fb_cmd_pick_run(ctx, fb_params_int(p, "run"))) == NULL)
		return FB_CMD_ERROR;
	nk = run->part != NULL ? run->part->k : 0;
	if (nk == 0)
		return fb_cmd_error(ctx, "run %zu (%s) learned on all rows: it has no clients' "
		                         "graphs to draw", fb_cmd_run_number(ctx->s, run), run->name);
	for (k = 1; k <= nk; k++) {
		char *one = client_path(path, k);
		int ret = export_one_client(ctx, p, run, k, one);

		free(one);
		if (ret != FB_CMD_OK)
			return ret;
	}
	fprintf(ctx->out, "wrote one file per client of run %zu\n",
	        fb_cmd_run_number(ctx->s, run));
	return FB_CMD_OK;
}

/* Whether the run that run= names exists and holds a circuit. */
static bool run_is_circuit(const fb_cmd_ctx *ctx, const fb_params *p)
{
	int64_t n = fb_params_int(p, "run");
	const fb_session *s = ctx->s;

	if (s->nruns == 0 || (size_t)n > s->nruns)
		return false;
	return fb_run_is_circuit(n == 0 ? s->runs[s->nruns - 1] : s->runs[n - 1]);
}

/* export FILE what=consensus: the newest bootstrap's consensus, each edge labelled and as
 * wide as its strength, with the scale in a legend. */
static int export_consensus(fb_cmd_ctx *ctx, const fb_params *p, const char *path)
{
	const fb_session *s = ctx->s;
	const fb_session_graph *sg = NULL;
	struct facts f = { 0 };
	int ret;

	for (size_t i = 0; i < s->ngraphs; i++)
		if (s->graphs[i].consensus)
			sg = &s->graphs[i];
	if (sg == NULL)
		return fb_cmd_error(ctx, "no consensus: bootstrap N makes one");
	f.title = fb_xstrdup(sg->source);
	f.caption = fb_xasprintf("data: %s\nlabel and pen width of an edge: the share of the "
	                         "resamples whose graph has it", sg->data);
	f.weights_name = "bootstrap strength";
	ret = export_graph(ctx, sg->g, NULL, path, p, &f);
	facts_release(&f);
	return ret;
}

/* export FILE [what=...] [graph=CSV] [run=N] [runs=A,B] [format=...] and the picture's
 * look. */
static int exec_export(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_params *p = &a->params;
	enum export_what what = (enum export_what)fb_params_choice(p, "what");
	bool have_est = fb_params_str(p, "graph") != NULL || ctx->s->nruns > 0;
	struct facts f = { 0 };
	fb_graph *est;
	int ret;

	if (fb_cmd_fit_file(a->argv[0]))
		return fb_cmd_fit_export(ctx, p, a->argv[0]);
	if (what == WHAT_AUTO && fb_params_str(p, "graph") == NULL && run_is_circuit(ctx, p))
		what = WHAT_CIRCUIT;
	if (what == WHAT_AUTO)
		what = have_est ? WHAT_ESTIMATE : WHAT_TRUTH;
	if (what == WHAT_CIRCUIT)
		return fb_cmd_export_circuit(ctx, p, a->argv[0]);
	if (what == WHAT_COMPARE)
		return export_compare(ctx, p, a->argv[0]);
	if (what == WHAT_CLIENTS)
		return export_clients(ctx, p, a->argv[0]);
	if (what == WHAT_CONSENSUS)
		return export_consensus(ctx, p, a->argv[0]);
	if (what != WHAT_ESTIMATE && fb_cmd_need(ctx, FB_NEEDS_TRUTH) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (what == WHAT_TRUTH) {
		truth_facts(ctx->s, &f, paths_of(p));
		ret = export_graph(ctx, ctx->s->truth, NULL, a->argv[0], p, &f);
		facts_release(&f);
		return ret;
	}
	if ((est = estimate(ctx, p, what == WHAT_DIFF, &f)) == NULL) {
		facts_release(&f);
		return FB_CMD_ERROR;
	}
	ret = export_graph(ctx, est, what == WHAT_DIFF ? ctx->s->truth : NULL, a->argv[0], p, &f);
	fb_graph_free(est);
	facts_release(&f);
	return ret;
}

/* export's parameters. */
static const fb_param_def export_params[] = {
	{ "what", FB_PARAM_CHOICE, "auto", 0, 0, export_whats,
	  "the truth, the estimate, the estimate against the truth, two graphs side by side, "
	  "a run's circuit, each client's own graph, a file per client, or the newest "
	  "bootstrap's consensus with its strengths (auto: the run's "
	  "circuit or estimate when there is one, else the truth)" },
	{ "depth", FB_PARAM_INT, "0", 0, 1e6, NULL,
	  "circuits: draw the nodes at most this many edges below the root, folding each "
	  "deeper part into one node (0: every node)" },
	{ "graph", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the estimate from a graph file (any format truth load reads) instead of a run" },
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL,
	  "the estimate of this run (1 is the first; 0: the newest)" },
	{ "client", FB_PARAM_INT, NULL, 1, 1e6, NULL,
	  "a run that keeps each client's own graph (sep:, voting:, avg:, best:): draw client "
	  "K's instead of the run's estimate" },
	{ "runs", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "what=compare: two run numbers, or a run number and 'truth', e.g. 1,2 (default: the "
	  "newest run and the truth, else the two newest runs)" },
	{ "format", FB_PARAM_CHOICE, "edges", 0, 0, fb_cmd_formats,
	  "write the graph as a file instead of a picture: fedbn's CSV edge list or d x d "
	  "matrix, Tetrad's graph text, causal-learn's endpoint matrix, a bnlearn model string, "
	  "GML, DOT (the structure alone) or node-link JSON (default: the extension's: .csv "
	  "edges, .txt tetrad, .gml, .json; .dot and .gv draw the picture's DOT)" },
	{ "layout", FB_PARAM_CHOICE, "shared", 0, 0, export_layouts,
	  "shared: every picture of the dataset puts each variable in the same place (laid out "
	  "once from the truth, else from the estimates); fresh: lay this picture out alone" },
	{ "title", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the title line (default: what the picture shows, and which run)" },
	{ "caption", FB_PARAM_BOOL, "yes", 0, 0, NULL,
	  "the caption under the title: the run's algorithm, parameters, round, data and split" },
	{ "weights", FB_PARAM_CHOICE, "labels", 0, 0, export_weights,
	  "weights as labels beside the edges (and pen widths), as pen widths with a scale, or "
	  "not at all (the diff view keeps its own pen widths and shows labels or nothing)" },
	{ "style", FB_PARAM_CHOICE, "color", 0, 0, export_styles,
	  "color: Okabe-Ito colours, safe for colour-blind readers; print: black lines told "
	  "apart by dots, dashes, width and arrowheads" },
	{ "width", FB_PARAM_DOUBLE, "0", 0, 1000, NULL,
	  "the picture's width in inches, scaled up or down (0: its natural size)" },
	{ "dpi", FB_PARAM_DOUBLE, "96", 10, 2400, NULL,
	  "pixels per inch of a .png picture (96: a screen; 300: print), at most 100 million "
	  "pixels in all and 30000 on a side (.svg and .pdf are in points, 72 an inch)" },
	{ "paths", FB_PARAM_CHOICE, "base", 0, 0, fb_report_path_choices,
	  "how captions name the files of the data and the truth: base names, or as typed" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_export = {
	.name = "export", .usage = "FILE.dot|.gv|.png|.svg|.pdf|.csv|.txt|.gml|.json [format=NAME]",
	.summary = "write a graph as a picture or as a graph file",
	.help = "Draw a graph through Graphviz (in-process) into FILE; the format follows the "
	        "extension. Every picture of one dataset puts each variable in the same place "
	        "(layout=fresh lays one out alone), and carries a title and a caption saying "
	        "what it shows: the algorithm, its non-default parameters, the data (files by "
	        "their base names; paths=full as typed), the split, the run and its round. "
	        "Weights label the edges beside them and set their pen widths. The diff view "
	        "marks correct edges black, extra vermillion, reversed orange with hollow "
	        "arrowheads and missing blue and dashed (the Okabe-Ito palette; style=print uses "
	        "line styles only), with a legend. what=compare draws two runs, or a run and "
	        "the truth, side by side. .csv writes an edge list or an adjacency matrix; format= "
	        "(or the extension: .txt tetrad, .gml, .json) writes the graph for other tools: "
	        "Tetrad's graph text, causal-learn's endpoint matrix, a bnlearn model string, "
	        "GML, DOT, node-link JSON. The estimate is the newest run's graph, another run's "
	        "(run=N), or a graph file in any format truth load reads (graph=FILE, names "
	        "checked against the dataset); client=K takes client K's "
	        "own graph of a run that keeps one per client (sep:, whose estimate is no one "
	        "graph, and voting:, avg:, best:); what=clients writes every client's graph of "
	        "such a run, a file per client named FILE-client1.EXT, FILE-client2.EXT, ..., "
	        "all on the same layout, so that they lie over each other on successive slides "
	        "however many clients there are. A run's circuit "
	        "(what=circuit, the default for a circuit run) is drawn top down: sums as "
	        "circles, products as boxes, leaves as ellipses saying their distribution "
	        "('lung: p(yes) = 0.06' of a two-valued variable's positive value, the rarer in "
	        "the training rows as classify takes it; the likeliest of more values; 'age: "
	        "N(45.2, sd 3.1)'; a histogram's bins and support), a product's leaves stacked "
	        "in one box of rows, each filled with the colour of the machine holding it (the "
	        "server white, clients in the Okabe-Ito colours), sum edges labelled with their "
	        "weights, under a title, the run's caption and a legend; it is at most 16.5 "
	        "inches wide (1584 pixels at 96 dpi) unless width= says otherwise, a wider one "
	        "scaled down with a note, and depth= folds deep circuits. Files are replaced "
	        "atomically; an existing file only when fedbn wrote it (in any session) and "
	        "nobody changed it since, and this session did not read it; or with "
	        "force=yes.",
	.min_args = 1, .max_args = 1, .complete = FB_COMPLETE_FILE, .params = export_params,
	.exec = exec_export,
};
