/* report: one self-contained page for the session, in Markdown or HTML: the data and its
 * split, every run with its parameters, accuracy, traffic and picture against the truth,
 * the comparison table, every sweep's summary and plot, and the session's commands.  Each part of the page is one section
 * function in the table at the end; a new kind of result (a sweep's table and plot) is one
 * more entry. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "cmd.h"
#include "files.h"
#include "history.h"
#include "page.h"
#include "report.h"
#include "session.h"

/* Where a report is being written and how. */
typedef struct report {
	fb_cmd_ctx *ctx;     /* the command's context */
	fb_page pg;          /* the page */
	const char *path;    /* the page's file */
	char *picdir;        /* HTML: a scratch folder for the pictures (owned), else NULL */
	bool force;          /* replace picture files as the page itself (force=) */
	enum fb_report_paths paths; /* how the page names files (paths=) */
	size_t pictures;     /* pictures drawn */
} report;

/* A fact whose value is a source of data (a file, or a command naming one), its files named
 * as the report's paths= says, and the split when split is not NULL. */
static void report_source_fact(report *r, const char *name, const char *source,
                               const char *split)
{
	char *shown = fb_report_path(source, r->paths);

	if (split != NULL)
		fb_page_fact(&r->pg, name, "%s; split: %s", shown, split);
	else
		fb_page_fact(&r->pg, name, "%s", shown);
	free(shown);
}

/* The data section: where the dataset came from, its shape, the truth and the split. */
static int section_data(report *r)
{
	const fb_session *s = r->ctx->s;
	const fb_partition *p = s->split;

	fb_page_heading(&r->pg, 2, "Data");
	if (s->data == NULL) {
		fb_page_para(&r->pg, "No dataset is loaded.");
		return FB_CMD_OK;
	}
	report_source_fact(r, "dataset", s->data_source, NULL);
	fb_page_fact(&r->pg, "shape", "%zu rows x %zu variables (%zu continuous, %zu discrete)",
	             s->data->n, s->data->d, s->data->d - fb_dataset_n_discrete(s->data),
	             fb_dataset_n_discrete(s->data));
	if (s->truth != NULL) {
		char *src = fb_report_path(s->truth_source ? s->truth_source : "given", r->paths);

		fb_page_fact(&r->pg, "truth", "%zu edges (%s)", fb_graph_n_edges(s->truth), src);
		free(src);
	} else
		fb_page_fact(&r->pg, "truth", "none: no accuracy can be reported");
	if (!fb_knowledge_is_empty(s->knowledge)) {
		char cap[128];

		fb_knowledge_caption(s->knowledge, cap, sizeof cap);
		fb_page_fact(&r->pg, "knowledge", "%s (every run took it)",
		             cap + strlen("knowledge: "));
	}
	fb_page_fact(&r->pg, "split", "%s", p != NULL ? p->desc : "none");
	for (size_t c = 0; p != NULL && c < p->k; c++) {
		char no[24], rows[24], cols[24];
		const char *cells[] = { no, rows, cols };
		static const char *const head[] = { "client", "rows", "columns" };

		if (c == 0)
			fb_page_row(&r->pg, head, 3, true);
		snprintf(no, sizeof no, "%zu", c + 1);
		snprintf(rows, sizeof rows, "%zu", p->clients[c].data->n);
		snprintf(cols, sizeof cols, "%zu", p->clients[c].data->d);
		fb_page_row(&r->pg, cells, 3, false);
		if (c + 1 == p->k)
			fb_page_table_end(&r->pg);
	}
	return FB_CMD_OK;
}

/* Run export on words quietly (its line on the screen left out); FB_CMD_ERROR after its
 * message. */
static int report_export(report *r, char **words)
{
	fb_cmd_ctx sub = *r->ctx;
	const fb_cmd_entry *e;
	fb_cmd_args a;
	int ret = FB_CMD_ERROR;

	if ((sub.out = fopen("/dev/null", "w")) == NULL)
		sub.out = r->ctx->out;
	if ((e = fb_cmd_parse_words(&sub, words, &a)) != NULL)
		ret = fb_cmd_exec(&sub, e, &a);
	fb_cmd_args_release(&a);
	if (sub.out != r->ctx->out)
		fclose(sub.out);
	return ret;
}

/* What run's picture shows: its circuit, else its estimate against the truth when there is
 * one, else the estimate alone. */
static const char *report_picture_what(const fb_run *run)
{
	if (fb_run_is_circuit(run))
		return "the circuit";
	return run->truth != NULL ? "the estimate against the truth" : "the estimate";
}

/* Whether run has something to draw; else a paragraph on the page says why not. */
static bool report_drawable(report *r, const fb_run *run)
{
	fb_error err = { { 0 } };
	fb_graph *g;

	if (fb_run_is_circuit(run))
		return true;
	if ((g = fb_run_result(run, &err)) == NULL) {
		fb_page_para(&r->pg, "No picture: %s.", err.msg);
		return false;
	}
	fb_graph_free(g);
	return true;
}

/* Draw export's picture what (a what= word) with sel (another word, or NULL) beside the page
 * as STEM-tag.svg (Markdown) or in the scratch folder and embedded (HTML), alt its text. */
static int report_draw(report *r, const char *what, const char *sel, const char *tag,
                       const char *alt)
{
	fb_error err = { { 0 } };
	char cmd[] = "export", fy[] = "force=yes", fn[] = "force=no";
	char pf[] = "paths=full", pb[] = "paths=base";
	char *whatw = fb_xstrdup(what), *selw = sel != NULL ? fb_xstrdup(sel) : NULL;
	char *words[] = { cmd, NULL, whatw, r->force ? fy : fn, r->paths == FB_PATHS_FULL ? pf : pb,
		          selw, NULL };
	size_t stem = strlen(r->path) - strlen(strrchr(r->path, '.'));
	char *link = fb_xasprintf("%.*s-%s.svg", (int)stem, r->path, tag);
	char *file = r->picdir != NULL ? fb_xasprintf("%s/%s.svg", r->picdir, tag)
	                               : fb_xstrdup(link);
	int ret;

	words[1] = file;
	ret = report_export(r, words);
	if (ret == FB_CMD_OK) {
		const char *base = strrchr(link, '/');

		r->pictures++;
		if (fb_page_picture(&r->pg, file, base != NULL ? base + 1 : link, alt, &err) != FB_OK)
			ret = fb_cmd_error(r->ctx, "%s", err.msg);
	}
	if (r->picdir != NULL) {
		fb_files_forget(r->ctx, file);
		unlink(file);
	}
	free(file);
	free(link);
	free(whatw);
	free(selw);
	return ret;
}

/* Run no's picture: a circuit run's circuit, else the estimate against the truth when there
 * is one, else the estimate. */
static int report_picture(report *r, const fb_run *run, size_t no)
{
	char runw[40], tag[40];

	if (!report_drawable(r, run))
		return FB_CMD_OK;
	snprintf(runw, sizeof runw, "run=%zu", no);
	snprintf(tag, sizeof tag, "run%zu", no);
	return report_draw(r, fb_run_is_circuit(run) ? "what=circuit"
	                      : run->truth != NULL   ? "what=diff"
	                                             : "what=estimate",
	                   runw, tag, report_picture_what(run));
}

/* Secure aggregation's own traffic beside the run's, when it formed the sums. */
static void report_secure_fact(report *r, const fb_run *run)
{
	char up[32], down[32];
	size_t nup, ndown, ex;

	if (run->fed == NULL || !run->fedopt.secure)
		return;
	fb_fed_secure_cost(run->fed, &nup, &ndown, &ex);
	fb_page_fact(&r->pg, "secure aggregation", "+%s up, +%s down, +%zu exchange%s of its own; "
	             "the server received masked vectors and their sums only",
	             fb_report_bytes(nup, up, sizeof up), fb_report_bytes(ndown, down, sizeof down),
	             ex, ex == 1 ? "" : "s");
}

/* The facts of one run: algorithm, data, parameters, rounds, traffic, accuracy. */
static void report_run_facts(report *r, const fb_run *run, const fb_session_run *meta)
{
	char params[512], text[256], up[32], down[32];
	fb_error err = { { 0 } };
	fb_score sc;

	fb_report_params(run, params, sizeof params);
	fb_page_fact(&r->pg, "algorithm", "%s: %s", run->name, run->algo->summary);
	report_source_fact(r, "data", meta->data, run->part != NULL ? run->part->desc : "all rows");
	fb_page_fact(&r->pg, "parameters", "%s", params[0] ? params : "the defaults");
	fb_page_fact(&r->pg, "rounds", "%zu (%s), %.3f s", fb_run_rounds(run),
	             fb_run_done(run) ? "finished" : "not finished", run->seconds);
	if (run->fed != NULL)
		fb_page_fact(&r->pg, "messages", "%s up, %s down in %zu messages",
		             fb_report_bytes(fb_run_bytes(run, FB_UP), up, sizeof up),
		             fb_report_bytes(fb_run_bytes(run, FB_DOWN), down, sizeof down),
		             fb_fed_ledger(run->fed)->n);
	report_secure_fact(r, run);
	if (run->truth != NULL && fb_run_score(run, &sc, &err) == FB_OK)
		fb_page_fact(&r->pg, "accuracy", "%s", fb_score_text(&sc, false, text, sizeof text));
	if (fb_run_note(run)[0] != '\0')
		fb_page_fact(&r->pg, "result", "%s", fb_run_note(run));
	if (fb_run_last(run) != NULL && fb_run_last(run)->say != NULL)
		fb_page_fact(&r->pg, "last round", "%s", fb_run_last(run)->say);
}

/* The edges of a run's estimate as lines (small graphs only). */
static void report_run_edges(report *r, const fb_run *run)
{
	fb_error err = { { 0 } };
	fb_graph *g = fb_run_result(run, &err);
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (g == NULL || g->d > 40 || (mem = open_memstream(&text, &len)) == NULL) {
		fb_graph_free(g);
		return;
	}
	fb_report_edge_lines(mem, g);
	fclose(mem);
	fb_page_para(&r->pg, "Estimated edges (%zu):", fb_graph_n_edges(g));
	fb_page_code(&r->pg, text);
	free(text);
	fb_graph_free(g);
}

/* The runs section: one part per run. */
static int section_runs(report *r)
{
	const fb_session *s = r->ctx->s;

	fb_page_heading(&r->pg, 2, "Runs");
	if (s->nruns == 0)
		fb_page_para(&r->pg, "No run yet.");
	for (size_t i = 0; i < s->nruns; i++) {
		const fb_session_run *m = &s->meta[i];

		fb_page_heading(&r->pg, 3, "Run %zu: %s%s%s%s", i + 1, s->runs[i]->name,
		                m->label != NULL ? " (" : "", m->label != NULL ? m->label : "",
		                m->label != NULL ? ")" : "");
		report_run_facts(r, s->runs[i], m);
		if (report_picture(r, s->runs[i], i + 1) != FB_CMD_OK)
			return FB_CMD_ERROR;
		report_run_edges(r, s->runs[i]);
	}
	return FB_CMD_OK;
}

/* One row of the comparison onto the page. */
static void report_compare_row(void *c, const char *const *cells, size_t n, bool head)
{
	fb_page_row(c, cells, n, head);
}

/* The comparison section: compare's table. */
static int section_compare(report *r)
{
	const fb_session *s = r->ctx->s;
	fb_compare_item *items = fb_xcalloc(s->nruns + 1, sizeof *items);
	size_t n = fb_report_items(s, items);
	char **data = fb_xcalloc(n + 1, sizeof *data);

	for (size_t i = 0; i < n; i++)
		items[i].data = data[i] = fb_report_path(items[i].data, r->paths);
	fb_page_heading(&r->pg, 2, "Comparison");
	if (n == 0) {
		fb_page_para(&r->pg, "No run to compare.");
	} else {
		fb_page_para(&r->pg, "One row per run, as compare shows it; SHD, TPR, FDR and F1 "
		             "against the truth (see help result for their definitions).");
		fb_report_compare_rows(items, n, report_compare_row, &r->pg);
		fb_page_table_end(&r->pg);
	}
	for (size_t i = 0; i < n; i++)
		free(data[i]);
	free(data);
	free(items);
	return FB_CMD_OK;
}

/* The newest bootstrap consensus the session keeps, or NULL. */
static const fb_session_graph *newest_consensus(const fb_session *s, size_t *no)
{
	const fb_session_graph *sg = NULL;

	for (size_t i = 0; i < s->ngraphs; i++)
		if (s->graphs[i].consensus) {
			sg = &s->graphs[i];
			*no = i + 1;
		}
	return sg;
}

/* The bootstrap section, when bootstrap ran: the newest consensus as compare's row, its
 * edges with their strengths, and its picture. */
static int section_consensus(report *r)
{
	size_t no = 0;
	const fb_session_graph *sg = newest_consensus(r->ctx->s, &no);
	char *data, *text = NULL;
	size_t len = 0;
	fb_compare_item item;
	FILE *mem;

	if (sg == NULL)
		return FB_CMD_OK;
	data = fb_report_path(sg->data, r->paths);
	item = (fb_compare_item){ .no = no, .data = data, .graph = sg->g,
		                  .truth = r->ctx->s->truth, .label = sg->source };
	fb_page_heading(&r->pg, 2, "Bootstrap consensus");
	fb_page_para(&r->pg, "%s; each edge weighted by its strength (the share of the resamples "
	             "whose graph has it). Its row as compare shows it (g%zu):", sg->source, no);
	fb_report_compare_rows(&item, 1, report_compare_row, &r->pg);
	fb_page_table_end(&r->pg);
	if (sg->g->d <= 40 && (mem = open_memstream(&text, &len)) != NULL) {
		fb_report_edge_lines(mem, sg->g);
		fclose(mem);
		fb_page_para(&r->pg, "Consensus edges (%zu):", fb_graph_n_edges(sg->g));
		fb_page_code(&r->pg, text);
		free(text);
	}
	free(data);
	return report_draw(r, "what=consensus", NULL, "consensus",
	                   "the bootstrap consensus, edges by strength");
}

/* A sweep's summary: the Markdown table it wrote, row by row onto the page. */
static void report_summary(report *r, const fb_session_product *pr)
{
	char *line = NULL, *cells[64], *from = fb_report_path(pr->from, r->paths);
	size_t cap = 0, rows = 0;
	FILE *fp = fopen(pr->path, "r");

	fb_page_heading(&r->pg, 3, "Sweep into %s", from);
	if (fp == NULL) {
		char *path = fb_report_path(pr->path, r->paths);

		fb_page_para(&r->pg, "Its summary '%s' can no longer be read.", path);
		free(path);
		free(from);
		return;
	}
	fb_page_para(&r->pg, "Mean ± standard error of each figure over the repeated variable "
	             "(every cell is a row of %s).", from);
	free(from);
	while (getline(&line, &cap, fp) > 0) {
		size_t n = 0;
		char *save = NULL;

		if (strncmp(line, "|---", 4) == 0 || line[0] != '|')
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *c = strtok_r(line + 1, "|", &save); c != NULL && n < 64;
		     c = strtok_r(NULL, "|", &save)) {
			while (*c == ' ')
				c++;
			for (size_t e = strlen(c); e > 0 && c[e - 1] == ' ';)
				c[--e] = '\0';
			cells[n++] = c;
		}
		fb_page_row(&r->pg, (const char *const *)cells, n, rows++ == 0);
	}
	if (rows > 0)
		fb_page_table_end(&r->pg);
	free(line);
	fclose(fp);
}

/* A plot's picture from path, named as paths= says; a Markdown page links path as typed
 * when it is relative (which names no folder of this machine), else by its base name. */
static void report_plot(report *r, const char *path)
{
	char *name = fb_report_path(path, r->paths);
	const char *link = path[0] == '/' ? name : path;
	fb_error err = { { 0 } };

	fb_page_heading(&r->pg, 3, "Plot %s", name);
	if (fb_page_picture(&r->pg, path, link, name, &err) != FB_OK) {
		char *why = fb_report_path(err.msg, r->paths);

		fb_page_para(&r->pg, "The picture can no longer be read: %s.", why);
		free(why);
	}
	free(name);
}

/* The sweeps and plots section: each sweep's summary and each plot's picture, in the order
 * they were made; no section when there are none. */
static int section_sweeps(report *r)
{
	const fb_session *s = r->ctx->s;

	if (s->nproducts > 0)
		fb_page_heading(&r->pg, 2, "Sweeps and plots");
	for (size_t i = 0; i < s->nproducts; i++) {
		const fb_session_product *pr = &s->products[i];

		if (!pr->figure) {
			report_summary(r, pr);
			continue;
		}
		report_plot(r, pr->path);
	}
	return FB_CMD_OK;
}

/* The commands section: the script session save would write, which replays the session. */
static int section_commands(report *r)
{
	char *text = NULL, *shown;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		return FB_CMD_OK;
	fb_history_write(r->ctx->s, mem);
	fclose(mem);
	shown = fb_report_path(text, r->paths);
	fb_page_heading(&r->pg, 2, "Commands");
	if (r->paths == FB_PATHS_FULL)
		fb_page_para(&r->pg, "The session as a script: 'fedbn -f FILE' replays it with the "
		             "same results.");
	else
		fb_page_para(&r->pg, "The session as a script, its files named by their base names "
		             "(report paths=full names them as typed): 'fedbn -f FILE' replays it "
		             "with the same results in a folder that holds those files.");
	fb_page_code(&r->pg, shown);
	free(shown);
	free(text);
	return FB_CMD_OK;
}

/* The sections of a report, in order.  A kind of result the session keeps adds one entry. */
static int (*const report_sections[])(report *r) = {
	section_data,
	section_runs,
	section_compare,
	section_consensus,
	section_sweeps,
	section_commands,
	NULL,
};

/* Write every section into r->pg; FB_CMD_ERROR at the first that fails. */
static int report_write(report *r)
{
	char title[64];

	snprintf(title, sizeof title, "fedbn session report");
	fb_page_begin(&r->pg, title);
	fb_page_para(&r->pg, "Written by fedbn %s from a session of %zu run%s.", PACKAGE_VERSION,
	             r->ctx->s->nruns, r->ctx->s->nruns == 1 ? "" : "s");
	for (size_t i = 0; report_sections[i] != NULL; i++)
		if (report_sections[i](r) != FB_CMD_OK)
			return FB_CMD_ERROR;
	fb_page_end(&r->pg);
	return FB_CMD_OK;
}

/* report out=FILE.md|FILE.html [force=yes]: the session as one page. */
static int exec_report(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const char *path = fb_params_str(&a->params, "out");
	report r = { .ctx = ctx, .path = path, .force = fb_params_bool(&a->params, "force"),
		     .paths = (enum fb_report_paths)fb_params_choice(&a->params, "paths") };
	char tmpl[] = "/tmp/fedbn-report-XXXXXX";
	fb_error err = { { 0 } };
	fb_atomic_file af;
	int ret;

	if (path == NULL)
		return fb_cmd_error(ctx, "give the page to write, as in 'report out=s.html' "
		                         "or out=s.md");
	if (fb_page_format_of(path, &r.pg.fmt) != FB_OK)
		return fb_cmd_error(ctx, "cannot tell the format of '%s' (use .md or .html)",
		                    path);
	if (fb_files_check(ctx, path, &a->params) != FB_CMD_OK)
		return FB_CMD_ERROR;
	if (r.pg.fmt == FB_PAGE_HTML && (r.picdir = mkdtemp(tmpl)) == NULL)
		return fb_cmd_error(ctx, "cannot make a scratch folder for the pictures");
	if (fb_atomic_open(&af, path, &err) != FB_OK) {
		ret = fb_cmd_error(ctx, "%s", err.msg);
	} else {
		r.pg.out = af.fp;
		ret = report_write(&r);
		if (ret != FB_CMD_OK)
			fb_atomic_abort(&af);
		else if (fb_atomic_commit(&af, &err) != FB_OK)
			ret = fb_cmd_error(ctx, "%s", err.msg);
	}
	if (r.picdir != NULL)
		rmdir(r.picdir);
	if (ret != FB_CMD_OK)
		return ret;
	fb_files_note_written(ctx, path);
	fprintf(ctx->out, "wrote '%s' (%zu run%s, %zu picture%s%s)\n", path, ctx->s->nruns,
	        ctx->s->nruns == 1 ? "" : "s", r.pictures, r.pictures == 1 ? "" : "s",
	        r.pg.fmt == FB_PAGE_HTML ? " embedded" : " beside it");
	return FB_CMD_OK;
}

/* report's parameters. */
static const fb_param_def report_params[] = {
	{ "out", FB_PARAM_STRING, NULL, 0, 0, NULL,
	  "the page: FILE.html (one self-contained file) or FILE.md (pictures beside it)" },
	{ "paths", FB_PARAM_CHOICE, "base", 0, 0, fb_report_path_choices,
	  "how the page names files (the data, the truth, sweeps, plots, the commands): base "
	  "names, so that a shared page shows no folder of this machine, or full: as typed" },
	FB_CMD_PARAM_FORCE,
	{ 0 },
};

const fb_cmd_entry fb_cmd_report = {
	.name = "report", .usage = "out=FILE.html|FILE.md",
	.summary = "write the session as one page",
	.help = "Write one page about the session: the dataset, its truth and its split (rows "
	        "and columns per client); every run with its algorithm, data, parameters, rounds "
	        "and time, the bytes its messages took, its accuracy against the truth, the "
	        "sentence of its last round, its picture (a circuit run's circuit, as export "
	        "what=circuit draws it; else the estimate against the truth, as export what=diff "
	        "draws it, or the estimate alone without a truth) and its "
	        "edges; the comparison table of compare; every sweep's summary table (mean ± "
	        "standard error, as its FILE-summary.md) and every plot's picture, in the order "
	        "they were made; and the session's commands as the script session save writes. "
	        "Files are named by their base names (paths=full: as typed). "
	        "FILE.html is self-contained (plain HTML, its pictures embedded as data URIs, "
	        "SVG or PNG); FILE.md writes each run's picture beside it as FILE-runN.svg. The "
	        "page and its pictures are replaced as export replaces files (force=yes to "
	        "replace a file fedbn did not write).",
	.min_args = 0, .max_args = 0, .params = report_params, .exec = exec_report,
};
