/* Text reports of runs. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fedbn/core.h"
#include "fedbn/csv.h"
#include "cmd.h"
#include "report.h"

/* Bytes in decimal units. */
const char *fb_report_bytes(size_t bytes, char *buf, size_t len)
{
	if (bytes < 1000)
		snprintf(buf, len, "%zu B", bytes);
	else if (bytes < 1000000)
		snprintf(buf, len, "%.1f kB", (double)bytes / 1e3);
	else if (bytes < 1000000000)
		snprintf(buf, len, "%.2f MB", (double)bytes / 1e6);
	else
		snprintf(buf, len, "%.2f GB", (double)bytes / 1e9);
	return buf;
}

/* The names of the paths= choices. */
const fb_choice fb_report_path_choices[] = {
	{ "base", FB_PATHS_BASE }, { "full", FB_PATHS_FULL }, { 0 },
};

/* Append the n bytes of word to b with its path, if it holds one, cut to its base name: the
 * value after key= (and an opening quote) loses everything up to its last '/'. */
static void base_word(fb_buf *b, const char *word, size_t n)
{
	const char *slash = NULL, *value = word, *eq = memchr(word, '=', n);

	for (size_t k = 0; k < n; k++)
		if (word[k] == '/')
			slash = word + k;
	if (eq != NULL && (slash == NULL || eq < slash))
		value = eq + 1;
	if (value < word + n && (*value == '"' || *value == '\''))
		value++;
	if (slash == NULL || slash < value) {
		fb_buf_append(b, word, n);
		return;
	}
	fb_buf_append(b, word, (size_t)(value - word));
	fb_buf_append(b, slash + 1, n - (size_t)(slash + 1 - word));
}

/* source as a page shows it: as typed, or with its paths cut to base names ("none" when
 * there is no source: no dataset loaded). */
char *fb_report_path(const char *source, enum fb_report_paths how)
{
	const char *slash = source != NULL ? strrchr(source, '/') : NULL;
	fb_buf b = { 0 };

	if (source == NULL)
		return fb_xstrdup("none");
	if (how == FB_PATHS_FULL || slash == NULL)
		return fb_xstrdup(source);
	if (access(source, F_OK) == 0)
		return fb_xstrdup(slash + 1);
	fb_buf_append(&b, "", 0);
	for (const char *p = source; *p != '\0';) {
		size_t gap = strspn(p, " \t\n"), n;

		fb_buf_append(&b, p, gap);
		p += gap;
		n = strcspn(p, " \t\n");
		base_word(&b, p, n);
		p += n;
	}
	return b.data;
}

/* One line for one round: the algorithm's figures, edges, accuracy, bytes and time. */
void fb_report_round(FILE *out, const fb_run *run, const fb_trace_rec *rec)
{
	char up[32], down[32];

	fprintf(out, "round %4zu", rec->round);
	for (size_t f = 0; f < run->trace.nfig; f++) {
		if (isnan(rec->fig[f])) /* not measured in this round */
			fprintf(out, "  %s -", run->figures[f]);
		else
			fprintf(out, "  %s %.4g", run->figures[f], rec->fig[f]);
	}
	if (!fb_run_is_circuit(run))
		fprintf(out, "  edges %zu", rec->edges);
	if (rec->scored)
		fprintf(out, "  shd %g tpr %.2f fdr %.2f", rec->score.shd, rec->score.tpr,
		        rec->score.fdr);
	if (run->fed != NULL)
		fprintf(out, "  up %s down %s", fb_report_bytes(rec->bytes_up, up, sizeof up),
		        fb_report_bytes(rec->bytes_down, down, sizeof down));
	fprintf(out, "  %.3f s\n", rec->seconds);
	fflush(out);
}

/* Secure aggregation's own cost, apart from the algorithm's bytes, and what the server
 * received, when the run's sums were formed by it. */
static void report_secure(FILE *out, const fb_run *run)
{
	char up[32], down[32];
	size_t nup, ndown, ex;

	if (run->fed == NULL || !run->fedopt.secure)
		return;
	fb_fed_secure_cost(run->fed, &nup, &ndown, &ex);
	fprintf(out, "; secure aggregation: +%s up, +%s down, +%zu exchange%s (the server received "
	        "masked vectors and their sums only)", fb_report_bytes(nup, up, sizeof up),
	        fb_report_bytes(ndown, down, sizeof down), ex, ex == 1 ? "" : "s");
}

/* The line that sums a run up: finished, or not yet (rounds so far). */
void fb_report_finished(FILE *out, const fb_run *run)
{
	char up[32], down[32];

	fprintf(out, "%s %s: %zu round%s%s, %.3f s", run->name,
	        fb_run_done(run) ? "finished" : "not finished", fb_run_rounds(run),
	        fb_run_rounds(run) == 1 ? "" : "s", fb_run_done(run) ? "" : " so far", run->seconds);
	if (run->fed != NULL)
		fprintf(out, ", up %s, down %s", fb_report_bytes(fb_run_bytes(run, FB_UP), up, sizeof up),
		        fb_report_bytes(fb_run_bytes(run, FB_DOWN), down, sizeof down));
	report_secure(out, run);
	fputc('\n', out);
}

/* Print the edges of g, one a line, with their weights when g is weighted. */
void fb_report_edge_lines(FILE *out, const fb_graph *g)
{
	for (size_t i = 0; i < g->d; i++) {
		for (size_t j = 0; j < g->d; j++) {
			enum fb_edge e = fb_graph_edge(g, i, j);
			const char *a = fb_cmd_name(g->names[i]), *b = fb_cmd_name(g->names[j]);

			if (e == FB_EDGE_FORWARD && g->weighted)
				fprintf(out, "  %s -> %s  %.4f\n", a, b, g->w[i * g->d + j]);
			else if (e == FB_EDGE_FORWARD)
				fprintf(out, "  %s -> %s\n", a, b);
			else if (e == FB_EDGE_UNDIRECTED && i < j)
				fprintf(out, "  %s -- %s\n", a, b);
		}
	}
}

/* Print the edges of g with their weights. */
static void print_edges(FILE *out, const fb_graph *g)
{
	fprintf(out, "edges (%zu):\n", fb_graph_n_edges(g));
	fb_report_edge_lines(out, g);
}

/* Print p's edges, one a line, under a line that says how to read their marks. */
void fb_report_pag_lines(FILE *out, const fb_pag *p)
{
	fb_buf b = { 0 };

	fb_pag_text(p, &b);
	fprintf(out, "PAG edges (%zu; > arrowhead: not a cause of the other end, - tail: a cause, "
	        "o circle: not known; <-> a hidden common cause):\n", fb_pag_n_edges(p));
	for (const char *line = b.data; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');

		fprintf(out, "  %.*s\n", (int)(nl - line), line);
		line = nl + 1;
	}
	fb_buf_release(&b);
}

/* Print a PAG run's PAG. */
static void print_pag(FILE *out, const fb_run *run)
{
	fb_error err;
	fb_pag *p = fb_run_pag(run, &err);

	if (p != NULL)
		fb_report_pag_lines(out, p);
	fb_pag_free(p);
}

/* Print a score in one paragraph. */
static void print_score(FILE *out, const fb_score *s)
{
	char text[256];

	fprintf(out, "against the truth: %s\n", fb_score_text(s, false, text, sizeof text));
	if (!s->cyclic)
		fprintf(out, "as DAGs (the estimate extended to a DAG): SHD %g; as CPDAGs: SHD %g\n",
		        s->shd_dag, s->shd_cpdag);
}

/* Print one part's log-likelihood line. */
static void print_loglik(FILE *out, const fb_loglik *ll, const char *part)
{
	if (ll->n == 0) {
		fprintf(out, "  %-5s  no rows\n", part);
		return;
	}
	fprintf(out, "  %-5s  %.4f +- %.4f  (%zu rows)\n", part, fb_loglik_mean(ll),
	        fb_loglik_se(ll), ll->n);
}

/* Why a circuit run has no log-likelihood: over MPI the server holds no row, else the
 * round that evaluates it has not run. */
static void print_no_loglik(FILE *out, bool remote)
{
	if (remote)
		fprintf(out, "log-likelihood: not evaluated over MPI (the sites hold different rows "
		        "and variables, so none can evaluate the circuit on its rows, and the server "
		        "holds no row; the circuit is the one the same split learns in-process, bit "
		        "for bit: circuit save FILE, then circuit load FILE where the rows are loaded "
		        "evaluates it)\n");
	else
		fprintf(out, "log-likelihood: not evaluated yet (the next round does it)\n");
}

/* The result of a circuit run: log-likelihoods of each part and the circuit's size (remote:
 * its clients are other processes). */
static void report_circuit(FILE *out, const fb_circuit_report *r, bool remote)
{
	fb_circuit_report rep = *r;
	char bytes[32];
	const fb_circuit_stats *st = &rep.stats;

	if (rep.ll[FB_PART_TRAIN].n + rep.ll[FB_PART_VALID].n + rep.ll[FB_PART_TEST].n == 0)
		print_no_loglik(out, remote);
	else
		fprintf(out, "log-likelihood per row (mean +- standard error):\n");
	for (int p = 0; p < FB_NPARTS && rep.ll[FB_PART_TRAIN].n > 0; p++)
		print_loglik(out, &rep.ll[p], fb_part_names[p]);
	fprintf(out, "%s: %zu nodes (%zu sums, %zu products, %zu leaves), depth %zu, %zu "
	        "parameters, %s\n", rep.ncircuits == 1 ? "circuit" : "circuits",
	        st->nodes, st->sums, st->products, st->leaves, st->depth, st->params,
	        fb_report_bytes(st->bytes, bytes, sizeof bytes));
	if (rep.ncircuits > 1)
		fprintf(out, "(%zu circuits: counts added up, the largest depth)\n", rep.ncircuits);
}

/* The heading line of a result. */
static void print_heading(FILE *out, const fb_run *run)
{
	fprintf(out, "%s on %s: %zu round%s%s\n", run->name,
	        run->part != NULL ? run->part->desc : "all rows", fb_run_rounds(run),
	        fb_run_rounds(run) == 1 ? "" : "s", fb_run_done(run) ? "" : " (not finished)");
	if (fb_run_note(run)[0] != '\0')
		fprintf(out, "%s\n", fb_run_note(run));
}

/* The result of a run. */
int fb_report_result(FILE *out, const fb_run *run)
{
	fb_error err = { { 0 } };
	fb_graph *g;
	fb_score s;
	fb_circuit_report rep;

	if (fb_run_is_circuit(run)) {
		if (fb_run_circuit_report(run, &rep, &err) != FB_OK)
			return FB_ERR;
		print_heading(out, run);
		report_circuit(out, &rep, run->part != NULL && run->part->transport != NULL);
		fb_report_finished(out, run);
		return FB_OK;
	}
	g = fb_run_result(run, &err);
	if (g == NULL && run->algo->score == NULL)
		return FB_ERR;
	print_heading(out, run);
	if (fb_run_is_pag(run))
		print_pag(out, run);
	else if (g != NULL)
		print_edges(out, g);
	if (run->truth == NULL)
		fprintf(out, "no truth: no accuracy to report\n");
	else if (fb_run_score(run, &s, &err) == FB_OK)
		print_score(out, &s);
	fb_report_finished(out, run);
	fb_graph_free(g);
	return FB_OK;
}

/* Columns of the comparison: the run's, a graph's accuracy against the truth, a circuit's
 * figures, and what the run cost. */
enum compare_col {
	COL_RUN, COL_LABEL, COL_ALGO, COL_DATA, COL_SPLIT, COL_PARAMS,
	COL_SHD, COL_SHD_REV2, COL_SHD_DAG, COL_SHD_CPDAG, COL_TPR, COL_FDR, COL_F1, COL_NNZ, COL_PAG_SHD,
	COL_LL_TRAIN, COL_LL_VALID, COL_LL_TEST, COL_CLASS, COL_ACCURACY, COL_NODES,
	COL_ROUNDS, COL_SECONDS, COL_BYTES, NCOLS
};

/* One row of the comparison as cells, by enum compare_col. */
typedef struct row {
	char cell[NCOLS][200];
} row;

/* The header of the comparison. */
static const char *const compare_head[NCOLS] = { "run", "label", "algorithm", "dataset",
	"split", "parameters", "SHD", "SHD-rev2", "SHD-DAG", "SHD-CPDAG", "TPR", "FDR", "F1", "NNZ", "PAG-SHD",
	"LL-train", "LL-valid", "LL-test", "classified", "accuracy", "nodes", "rounds", "seconds",
	"bytes" };

/* The first column aligned right (the figures). */
#define FIRST_FIGURE COL_SHD

/* The parameters a run was given that differ from the defaults, as key=value words. */
void fb_report_params(const fb_run *run, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < run->params.n && used < len; i++)
		if (run->params.v[i].given)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
			                         run->params.defs[i].name, run->params.v[i].s);
	if (run->fedopt.share < 1.0 && used < len)
		snprintf(buf + used, len - used, "%sshare=%g", used ? " " : "", run->fedopt.share);
}

/* Fill the accuracy cells of a row from the score s, or with '-' when it is NULL. */
static void compare_score_cells(row *r, const fb_score *s)
{
	char (*c)[200] = r->cell + COL_SHD;

	if (s == NULL) {
		for (int k = 0; k <= COL_NNZ - COL_SHD; k++)
			snprintf(c[k], sizeof c[k], "-");
		return;
	}
	snprintf(c[0], sizeof c[0], "%g", s->shd);
	snprintf(c[1], sizeof c[1], "%g", s->shd + s->reversed);
	snprintf(c[2], sizeof c[2], "%g", s->shd_dag);
	snprintf(c[3], sizeof c[3], "%g", s->shd_cpdag);
	snprintf(c[4], sizeof c[4], "%.3f", s->tpr);
	snprintf(c[5], sizeof c[5], "%.3f", s->fdr);
	snprintf(c[6], sizeof c[6], "%.3f", s->f1);
	snprintf(c[7], sizeof c[7], "%g", s->nnz);
}

/* The score of item's run or loaded graph against its truth, into s; NULL without one. */
static const fb_score *compare_score(const fb_compare_item *it, fb_score *s)
{
	fb_error err;

	if (it->run == NULL)
		return it->truth != NULL && fb_score_graph(it->graph, it->truth, s, &err) == FB_OK
		               ? s
		               : NULL;
	return it->run->truth != NULL && fb_run_score(it->run, s, &err) == FB_OK ? s : NULL;
}

/* The PAG-SHD cell: the run's PAG (a PAG learner's, or its graph's marks read as a PAG's)
 * against the true PAG, mark by mark; '-' without one. */
static void compare_pag_cell(char *cell, size_t len, const fb_compare_item *it)
{
	fb_error err;
	fb_pag *p = NULL;
	fb_graph *g;
	size_t shd;

	snprintf(cell, len, "-");
	if (it->truth_pag == NULL || it->run == NULL || fb_run_is_circuit(it->run))
		return;
	if (fb_run_is_pag(it->run))
		p = fb_run_pag(it->run, &err);
	else if ((g = fb_run_result(it->run, &err)) != NULL) {
		p = fb_pag_from_graph(g);
		fb_graph_free(g);
	}
	if (p != NULL && fb_pag_shd(p, it->truth_pag, &shd, &err) == FB_OK)
		snprintf(cell, len, "%zu", shd);
	fb_pag_free(p);
}

/* A part's mean log-likelihood as a cell ("-" without rows). */
static void compare_ll_cell(char *cell, size_t len, const fb_loglik *ll)
{
	if (ll->n == 0)
		snprintf(cell, len, "-");
	else
		snprintf(cell, len, "%.4f", fb_loglik_mean(ll));
}

/* Fill the circuit cells of a row: each part's mean log-likelihood, the variable the
 * newest classify predicted with its accuracy, and the nodes; '-' where there is none. */
static void compare_circuit_cells(row *r, const fb_compare_item *it)
{
	fb_circuit_report rep;
	fb_error err;

	for (int c = COL_LL_TRAIN; c <= COL_NODES; c++)
		snprintf(r->cell[c], sizeof r->cell[c], "-");
	if (it->fit_ll != NULL) { /* a graph run's fitted network (fit) */
		for (int p = 0; p < FB_NPARTS; p++)
			compare_ll_cell(r->cell[COL_LL_TRAIN + p], sizeof r->cell[0], &it->fit_ll[p]);
		return;
	}
	if (it->run == NULL || !fb_run_is_circuit(it->run) ||
	    fb_run_circuit_report(it->run, &rep, &err) != FB_OK)
		return;
	compare_ll_cell(r->cell[COL_LL_TRAIN], sizeof r->cell[0], &rep.ll[FB_PART_TRAIN]);
	compare_ll_cell(r->cell[COL_LL_VALID], sizeof r->cell[0], &rep.ll[FB_PART_VALID]);
	compare_ll_cell(r->cell[COL_LL_TEST], sizeof r->cell[0], &rep.ll[FB_PART_TEST]);
	snprintf(r->cell[COL_NODES], sizeof r->cell[0], "%zu", rep.stats.nodes);
	if (it->classified != NULL) {
		snprintf(r->cell[COL_CLASS], sizeof r->cell[0], "%s", it->classified);
		snprintf(r->cell[COL_ACCURACY], sizeof r->cell[0], "%.4f", it->accuracy);
	}
}

/* Fill the row of a graph loaded by graph load: "gN", its file, its score; '-' for what
 * only a run has. */
static void compare_graph_row(row *r, const fb_compare_item *it)
{
	size_t len = sizeof r->cell[0];
	fb_score s;

	for (int c = 0; c < NCOLS; c++)
		snprintf(r->cell[c], len, "-");
	snprintf(r->cell[COL_RUN], len, "g%zu", it->no);
	snprintf(r->cell[COL_LABEL], len, "%s", it->label != NULL ? it->label : "");
	snprintf(r->cell[COL_ALGO], len, "graph");
	snprintf(r->cell[COL_DATA], len, "%s", it->data);
	snprintf(r->cell[COL_SPLIT], len, "from a file");
	snprintf(r->cell[COL_PARAMS], len, "%s", "");
	compare_score_cells(r, compare_score(it, &s));
}

/* Fill one row for item (for people: seconds with their unit, bytes in kB, MB, ...; for a
 * CSV file: plain numbers). */
static void compare_row(row *r, const fb_compare_item *it, bool for_people)
{
	const fb_run *run = it->run;
	size_t bytes, len = sizeof r->cell[0];
	fb_score s;

	if (run == NULL) {
		compare_graph_row(r, it);
		return;
	}
	bytes = fb_run_bytes(run, FB_UP) + fb_run_bytes(run, FB_DOWN);

	snprintf(r->cell[COL_RUN], len, "%zu", it->no);
	snprintf(r->cell[COL_LABEL], len, "%s", it->label != NULL ? it->label : "");
	snprintf(r->cell[COL_ALGO], len, "%s", run->name);
	snprintf(r->cell[COL_DATA], len, "%s", it->data);
	snprintf(r->cell[COL_SPLIT], len, "%s", run->part != NULL ? run->part->desc : "all rows");
	fb_report_params(run, r->cell[COL_PARAMS], len);
	compare_score_cells(r, compare_score(it, &s));
	compare_pag_cell(r->cell[COL_PAG_SHD], len, it);
	compare_circuit_cells(r, it);
	snprintf(r->cell[COL_ROUNDS], len, "%zu", fb_run_rounds(run));
	snprintf(r->cell[COL_SECONDS], len, "%.3f%s", run->seconds, for_people ? " s" : "");
	if (for_people)
		fb_report_bytes(bytes, r->cell[COL_BYTES], len);
	else
		snprintf(r->cell[COL_BYTES], len, "%zu", bytes);
}

/* Which columns the table of items[0..n) shows: a graph's accuracy only when a run learned
 * a graph, PAG-SHD only when one has a true PAG (gen hide=), the log-likelihoods when a run
 * learned a circuit or fit fitted a run's graph, a circuit's other figures only when one
 * learned a circuit, the others always. */
static void compare_shown(const fb_compare_item *items, size_t n, bool *show)
{
	bool graphs = false, circuits = false, pags = false, fitted = false;

	for (size_t i = 0; i < n; i++) {
		bool c = items[i].run != NULL && fb_run_is_circuit(items[i].run);

		circuits |= c;
		fitted |= items[i].fit_ll != NULL;
		graphs |= !c;
		pags |= !c && items[i].truth_pag != NULL;
	}
	for (int c = 0; c < NCOLS; c++)
		show[c] = c == COL_PAG_SHD                ? pags
		          : c >= COL_SHD && c <= COL_NNZ   ? graphs
		          : c >= COL_LL_TRAIN && c <= COL_LL_TEST ? circuits || fitted
		          : c >= COL_CLASS && c <= COL_NODES ? circuits
		                                             : true;
}

/* Print one row's shown cells in the chosen format; width[] is for text. */
static void print_row(FILE *out, const char *const *cells, const size_t *width,
                      const bool *show, enum fb_table_format fmt)
{
	bool first = true;

	for (int c = 0; c < NCOLS; c++) {
		if (!show[c])
			continue;
		if (fmt == FB_TABLE_CSV) {
			if (!first)
				fputc(',', out);
			fb_csv_put_field_if(out, cells[c], ",\" ");
		} else if (fmt == FB_TABLE_MARKDOWN) {
			fprintf(out, "| %s ", cells[c]);
		} else {
			fputs(first ? "" : "  ", out);
			fprintf(out, c >= FIRST_FIGURE ? "%*s" : "%-*s", (int)width[c], cells[c]);
		}
		first = false;
	}
	fputs(fmt == FB_TABLE_MARKDOWN ? "|\n" : "\n", out);
}

/* The screen's order of the shown columns into order (returns how many): the run, its
 * figures, then the words that name it (algorithm, label, dataset, split, parameters), so
 * that what may be long comes last. */
static size_t screen_order(const bool *show, int *order)
{
	static const int words[] = { COL_ALGO, COL_LABEL, COL_DATA, COL_SPLIT, COL_PARAMS };
	size_t m = 0;

	order[m++] = COL_RUN;
	for (int c = FIRST_FIGURE; c < NCOLS; c++)
		if (show[c])
			order[m++] = c;
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (show[words[k]])
			order[m++] = words[k];
	return m;
}

/* Print the columns order[from..to) of one row after lead, each after two spaces but the
 * first; figures aligned right, words left; no space at the end of the line. */
static void screen_cells(FILE *out, const char *lead, const char *const *cells,
                         const size_t *width, const int *order, size_t from, size_t to)
{
	fb_buf b = { 0 };

	fb_buf_printf(&b, "%s", lead);
	for (size_t k = from; k < to; k++) {
		int c = order[k];

		fb_buf_printf(&b, c >= FIRST_FIGURE ? "%s%*s" : "%s%-*s", k == from ? "" : "  ",
		              (int)width[c], cells[c]);
	}
	while (b.len > 0 && b.data[b.len - 1] == ' ')
		b.len--;
	fprintf(out, "%.*s\n", (int)b.len, b.data);
	fb_buf_release(&b);
}

/* Leave out of show the columns but the run's that are empty or '-' in every row: a figure
 * no run has (no truth, no classify), a label or parameters none was given. */
static void screen_unshow_empty(const row *rows, size_t n, bool *show)
{
	for (int c = COL_RUN + 1; c < NCOLS; c++) {
		bool empty = true;

		for (size_t i = 0; i < n && empty; i++)
			empty = strcmp(rows[i].cell[c], "") == 0 || strcmp(rows[i].cell[c], "-") == 0;
		if (empty)
			show[c] = false;
	}
}

/* The width of the columns order[from..to) on one line. */
static size_t screen_span(const size_t *width, const int *order, size_t from, size_t to)
{
	size_t w = 0;

	for (size_t k = from; k < to; k++)
		w += width[order[k]] + (k > from ? 2 : 0);
	return w;
}

/* Cut the figure columns order[1..nfig) into bands that fit cols after the run column:
 * band b is order[start[b]..start[b + 1]); returns the number of bands. */
static size_t screen_bands(const size_t *width, const int *order, size_t nfig, size_t cols,
                           size_t *start)
{
	size_t nb = 0, lead = width[COL_RUN] + 2;

	start[nb] = 1;
	for (size_t k = 1; k < nfig; k++)
		if (k > start[nb] && lead + screen_span(width, order, start[nb], k + 1) > cols)
			start[++nb] = k;
	start[++nb] = nfig;
	return nb;
}

/* Append word to b for a line of room columns: whole when it fits, else its last room - 3
 * characters after "..." (a file's name is at its end); sets *cut when it shortened it. */
static void screen_word(fb_buf *b, const char *word, size_t len, size_t room, bool *cut)
{
	if (b->len > 0)
		fb_buf_append(b, " ", 1);
	if (len <= room || room < 8) {
		fb_buf_append(b, word, len);
		return;
	}
	fb_buf_append(b, "...", 3);
	fb_buf_append(b, word + len - (room - 3), room - 3);
	*cut = true;
}

/* A run's cost in words, " (R rounds, SECONDS, BYTES)", each figure held to its unit by a
 * unit separator (0x1f) so that no line ends between them ("0.012 s" keeps together). */
static char *screen_cost(const char *const *cells)
{
	char *t = fb_xasprintf(" (%s %s, %s, %s)", cells[COL_ROUNDS],
	                       strcmp(cells[COL_ROUNDS], "1") == 0 ? "round" : "rounds",
	                       cells[COL_SECONDS], cells[COL_BYTES]);

	for (char *p = t + 2; *p != '\0'; p++)
		if (*p == ' ' && p[-1] != ',')
			*p = '\x1f';
	return t;
}

/* Print one line of words indented by indent, unit separators as spaces. */
static void screen_line(FILE *out, size_t indent, const fb_buf *line)
{
	fprintf(out, "%*s", (int)indent, "");
	for (size_t i = 0; i < line->len; i++)
		fputc(line->data[i] == '\x1f' ? ' ' : line->data[i], out);
	fputc('\n', out);
}

/* The words that name a run under its figures: "LABEL: ALGORITHM PARAMETERS on DATASET,
 * SPLIT", and with cost "(R rounds, SECONDS, BYTES)" after them; wrapped at cols and
 * indented by indent, a word too long for a line shortened (*cut). */
static void screen_naming(FILE *out, const char *const *cells, bool cost, size_t indent,
                          size_t cols, bool *cut)
{
	size_t room = cols > indent + 20 ? cols - indent : 20, col = 0;
	char *tail = cost ? screen_cost(cells) : fb_xstrdup("");
	char *text = fb_xasprintf("%s%s%s%s%s on %s, %s%s", cells[COL_LABEL],
	                          cells[COL_LABEL][0] != '\0' ? ": " : "", cells[COL_ALGO],
	                          cells[COL_PARAMS][0] != '\0' ? " " : "", cells[COL_PARAMS],
	                          cells[COL_DATA], cells[COL_SPLIT], tail);
	fb_buf line = { 0 };

	for (const char *w = text + strspn(text, " "); *w != '\0'; w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");

		if (line.len > 0 && col + 1 + len > room) {
			screen_line(out, indent, &line);
			line.len = 0;
		}
		screen_word(&line, w, len, room, cut);
		col = line.len;
		w += len;
	}
	screen_line(out, indent, &line);
	fb_buf_release(&line);
	free(text);
	free(tail);
}

/* The comparison on a screen of cols columns: one line per run when the whole row fits;
 * else the run and its figures (folded into bands when they do not fit either), and under
 * them the words that name the run, wrapped, a word too long shortened with a note. */
static void compare_screen(FILE *out, const row *rows, size_t n, const size_t *width,
                           const bool *shown, size_t cols)
{
	int order[NCOLS];
	size_t m, nfig = 1, start[NCOLS + 1], nb;
	const char *cells[NCOLS];
	bool cut = false, cost, show[NCOLS];
	char lead[32];

	memcpy(show, shown, sizeof show);
	screen_unshow_empty(rows, n, show);
	m = screen_order(show, order);
	if (screen_span(width, order, 0, m) <= cols) {
		screen_cells(out, "", compare_head, width, order, 0, m);
		for (size_t i = 0; i < n; i++) {
			for (int c = 0; c < NCOLS; c++)
				cells[c] = rows[i].cell[c];
			screen_cells(out, "", cells, width, order, 0, m);
		}
		return;
	}
	while (nfig < m && order[nfig] >= FIRST_FIGURE)
		nfig++;
	cost = screen_span(width, order, 0, nfig) > cols;
	if (cost) { /* the cost goes in words under the figures */
		show[COL_ROUNDS] = show[COL_SECONDS] = show[COL_BYTES] = false;
		m = screen_order(show, order);
		for (nfig = 1; nfig < m && order[nfig] >= FIRST_FIGURE; nfig++)
			;
	}
	nb = screen_bands(width, order, nfig, cols, start);
	for (size_t i = 0; i <= n; i++) {
		for (int c = 0; c < NCOLS; c++)
			cells[c] = i == 0 ? compare_head[c] : rows[i - 1].cell[c];
		for (size_t b = 0; b < nb; b++) {
			snprintf(lead, sizeof lead, "%-*s  ", (int)width[COL_RUN],
			         b == 0 ? cells[COL_RUN] : "");
			screen_cells(out, lead, cells, width, order, start[b], start[b + 1]);
		}
		if (i > 0)
			screen_naming(out, cells, cost && strcmp(cells[COL_ROUNDS], "-") != 0,
			              width[COL_RUN] + 2, cols, &cut);
	}
	if (cut)
		fprintf(out, "(a long name is shortened to its end; compare out=FILE.csv writes "
		             "it whole)\n");
}

/* The comparison table of the given runs. */
void fb_report_compare(FILE *out, const fb_compare_item *items, size_t n,
                       enum fb_table_format fmt)
{
	row *rows = fb_xcalloc(n > 0 ? n : 1, sizeof *rows);
	size_t width[NCOLS];
	const char *cells[NCOLS];
	bool show[NCOLS];

	compare_shown(items, n, show);
	for (int c = 0; c < NCOLS; c++)
		width[c] = strlen(compare_head[c]);
	for (size_t i = 0; i < n; i++) {
		compare_row(&rows[i], &items[i], fmt != FB_TABLE_CSV);
		for (int c = 0; c < NCOLS; c++)
			if (strlen(rows[i].cell[c]) > width[c])
				width[c] = strlen(rows[i].cell[c]);
	}
	if (fmt == FB_TABLE_TEXT) {
		compare_screen(out, rows, n, width, show, fb_cmd_width(out) + 1);
		free(rows);
		return;
	}
	print_row(out, compare_head, width, show, fmt);
	if (fmt == FB_TABLE_MARKDOWN) {
		for (int c = 0; c < NCOLS; c++)
			if (show[c])
				fputs(c >= FIRST_FIGURE ? "|---:" : "|---", out);
		fputs("|\n", out);
	}
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < NCOLS; c++)
			cells[c] = rows[i].cell[c];
		print_row(out, cells, width, show, fmt);
	}
	free(rows);
}

/* The shown cells of all into shown, in order; returns how many. */
static size_t compare_pick(const char *const *all, const bool *show, const char **shown)
{
	size_t m = 0;

	for (int c = 0; c < NCOLS; c++)
		if (show[c])
			shown[m++] = all[c];
	return m;
}

/* Hand each row of the comparison to emit, for people. */
void fb_report_compare_rows(const fb_compare_item *items, size_t n,
                            void (*emit)(void *ctx, const char *const *cells, size_t ncells,
                                         bool head),
                            void *ctx)
{
	const char *cells[NCOLS], *shown[NCOLS];
	bool show[NCOLS];
	size_t m;
	row r;

	compare_shown(items, n, show);
	m = compare_pick(compare_head, show, shown);
	emit(ctx, shown, m, true);
	for (size_t i = 0; i < n; i++) {
		compare_row(&r, &items[i], true);
		for (int c = 0; c < NCOLS; c++)
			cells[c] = r.cell[c];
		m = compare_pick(cells, show, shown);
		emit(ctx, shown, m, false);
	}
}
