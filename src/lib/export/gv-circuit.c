/* Pictures of probabilistic circuits through Graphviz, laid out top down: sums as circles,
 * products as boxes, leaves as ellipses saying their variable and distribution, the leaves
 * of a product stacked into one box (so that a product of thirty leaves is one column, not
 * thirty nodes abreast), each filled with the colour of the machine holding it (the server
 * white, client k the k-th Okabe-Ito colour), weights on the edges of sums, deep parts
 * folded into one node each; a title, a caption and a legend on top, and a width that fits
 * a slide unless one is asked for. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/export.h"
#include "gv-int.h"

/* The clients' fill colours: the Okabe-Ito palette without black (the DAG pictures' colours). */
static const char *const circ_palette[] = { "#E69F00", "#56B4E9", "#009E73", "#F0E442",
	                                    "#0072B2", "#D55E00", "#CC79A7" };

/* The fill colour of machine m. */
static const char *circ_color(int m)
{
	if (m < 0)
		return "#FFFFFF";
	return circ_palette[(size_t)m % (sizeof circ_palette / sizeof circ_palette[0])];
}

/* Each node's distance from the root (SIZE_MAX: not reached), shortest over parents. */
static size_t *circ_depths(const fb_circuit *c)
{
	size_t *dep = fb_xcalloc(c->nnodes, sizeof *dep);

	for (size_t i = 0; i < c->nnodes; i++)
		dep[i] = SIZE_MAX;
	dep[c->nnodes - 1] = 0;
	for (size_t i = c->nnodes; i-- > 0;) {
		const fb_circuit_node *nd = &c->nodes[i];

		for (size_t k = 0; dep[i] != SIZE_MAX && k < nd->nchildren; k++)
			if (dep[i] + 1 < dep[nd->children[k]])
				dep[nd->children[k]] = dep[i] + 1;
	}
	return dep;
}

/* Append value v of variable j: a discrete variable's level, else the number. */
static void value_text(fb_buf *b, const fb_dataset *ds, size_t j, double v)
{
	const fb_var *var = &ds->vars[j];

	if (var->kind == FB_DISCRETE && v >= 0 && v < (double)var->nlevels && v == floor(v))
		fb_buf_printf(b, "%s", var->levels[(size_t)v]);
	else
		fb_buf_printf(b, "%.4g", v);
}

/* Append the mass function of variable j (n values val with masses p): "= v" for one value;
 * p(v) of the positive value for two (the rarer in the training rows, as classify takes
 * it, when it is one of them; else the second); else the likeliest value's. */
static void masses_text(fb_buf *b, const fb_dataset *ds, size_t j, const double *val,
                        const double *p, size_t n)
{
	size_t pos = fb_class_positive(ds, j), k = n - 1;

	if (n == 1) {
		fb_buf_printf(b, " = ");
		value_text(b, ds, j, val[0]);
		return;
	}
	if (n == 2)
		k = val[0] == (double)pos ? 0 : 1;
	else
		for (size_t i = 0; i < n; i++)
			k = p[i] > p[k] || (p[i] == p[k] && i < k) ? i : k;
	fb_buf_printf(b, ": p(");
	value_text(b, ds, j, val[k]);
	fb_buf_printf(b, ") = %.2g", p[k]);
	if (n > 2)
		fb_buf_printf(b, ", likeliest of %zu", n);
}

/* A leaf's text (caller frees): "lung: p(yes) = 0.06", "age: N(45.2, sd 3.1)", "x: 8 bins
 * on [0.1, 5.3]"; a discrete histogram reads as the masses of its values. */
static char *leaf_text(const fb_leaf *lf, const fb_dataset *ds)
{
	fb_buf b = { 0 };
	double *val = fb_xcalloc(lf->nvalues + 1, sizeof *val);
	double *mass = fb_xcalloc(lf->nvalues + 1, sizeof *mass);

	fb_buf_printf(&b, "%s", ds->vars[lf->var].name);
	for (size_t k = 0; k < lf->nvalues; k++) {
		bool hist = lf->kind == FB_LEAF_HISTOGRAM;

		val[k] = hist ? lf->breaks[k] : (double)k;
		mass[k] = hist ? lf->p[k] * (lf->breaks[k + 1] - lf->breaks[k]) : lf->p[k];
	}
	if (lf->kind == FB_LEAF_GAUSSIAN)
		fb_buf_printf(&b, ": N(%.3g, sd %.3g)", lf->mean, lf->sd);
	else if (lf->kind == FB_LEAF_CATEGORICAL || lf->discrete)
		masses_text(&b, ds, lf->var, val, mass, lf->nvalues);
	else
		fb_buf_printf(&b, ": %zu bin%s on [%.3g, %.3g]", lf->nvalues,
		              lf->nvalues == 1 ? "" : "s", lf->breaks[0], lf->breaks[lf->nvalues]);
	free(val);
	free(mass);
	return b.data;
}

/* The number of nodes below node i (i included), each counted once. */
static size_t circ_below(const fb_circuit *c, size_t i, unsigned char *seen)
{
	size_t n = 1;

	seen[i] = 1;
	for (size_t k = 0; k < c->nodes[i].nchildren; k++)
		if (!seen[c->nodes[i].children[k]])
			n += circ_below(c, c->nodes[i].children[k], seen);
	return n;
}

/* What a picture of a circuit is being built from. */
struct circ_pic {
	Agraph_t *g;             /* the graph */
	const fb_circuit *c;     /* the circuit */
	const fb_dataset *ds;    /* names its variables and their values */
	size_t depth;            /* draw to this depth (0: all) */
	size_t *dep;             /* each node's depth */
	Agnode_t **nodes;        /* each node's picture, or NULL */
	unsigned char *stacked;  /* 1: a leaf drawn in its product's stack */
	double *wide;            /* each drawn node's estimated width in points */
	size_t *lift;            /* each drawn node's rows below its level's first (a fold) */
	size_t *slift;           /* the same of each product's stack */
	double page;             /* the width a row may take, in points */
	bool folded_any;         /* some node stands for a folded part */
	bool stack_any;          /* some product's leaves are stacked */
};

/* Whether node i is drawn: reached, and within the depth. */
static bool circ_drawn(const struct circ_pic *pc, size_t i)
{
	return pc->dep[i] != SIZE_MAX && (pc->depth == 0 || pc->dep[i] <= pc->depth);
}

/* Whether node i is drawn folded: an inner node at the depth limit. */
static bool circ_folded(const struct circ_pic *pc, size_t i)
{
	return pc->depth > 0 && pc->dep[i] == pc->depth && pc->c->nodes[i].kind != FB_NODE_LEAF;
}

/* The estimated width in points of a label text at size points: its longest line's
 * characters (UTF-8 counted once) at about half the size each, and a margin. */
static double circ_text_width(const char *text, double size)
{
	size_t longest = 0, line = 0;

	for (const char *t = text; *t != '\0'; t++) {
		if (t[0] == '\\' && t[1] == 'n') {
			line = 0;
			t++;
			continue;
		}
		line += ((unsigned char)*t & 0xC0) != 0x80;
		longest = line > longest ? line : longest;
	}
	return fmax(40.0, 0.55 * size * (double)longest + 24.0);
}

/* Add node i to the picture as a circle, box, ellipse or folder, in its machine's colour. */
static void circ_node(struct circ_pic *pc, size_t i)
{
	const fb_circuit_node *nd = &pc->c->nodes[i];
	char id[32], *label, *text;
	Agnode_t *n;

	snprintf(id, sizeof id, "n%zu", i);
	n = pc->nodes[i] = agnode(pc->g, id, 1);
	if (nd->kind == FB_NODE_LEAF) {
		text = leaf_text(&nd->leaf, pc->ds);
		label = gv_label_escape(text);
		free(text);
		gv_set(n, "shape", "ellipse");
	} else if (circ_folded(pc, i)) {
		unsigned char *seen = fb_xcalloc(pc->c->nnodes, 1);

		label = fb_xasprintf("%s %zu nodes\\n%zu variables",
		                     nd->kind == FB_NODE_SUM ? "+" : "\xc3\x97",
		                     circ_below(pc->c, i, seen), nd->nscope);
		free(seen);
		gv_set(n, "shape", "folder");
		pc->folded_any = true;
	} else {
		label = fb_xstrdup(nd->kind == FB_NODE_SUM ? "+" : "\xc3\x97");
		gv_set(n, "shape", nd->kind == FB_NODE_SUM ? "circle" : "box");
	}
	gv_set(n, "label", label);
	gv_set(n, "style", "filled");
	gv_set(n, "fillcolor", circ_color(nd->machine));
	pc->wide[i] = circ_text_width(label, 14.0);
	free(label);
}

/* The leaf children of product i that go into its stack (two or more, drawn, each the child
 * of no other drawn node), marked in pc->stacked; returns how many. */
static size_t circ_stack_mark(struct circ_pic *pc, size_t i, const size_t *parents)
{
	const fb_circuit_node *nd = &pc->c->nodes[i];
	size_t n = 0;

	if (nd->kind != FB_NODE_PRODUCT || circ_folded(pc, i))
		return 0;
	for (size_t k = 0; k < nd->nchildren; k++) {
		size_t ch = nd->children[k];

		n += pc->c->nodes[ch].kind == FB_NODE_LEAF && parents[ch] == 1 && circ_drawn(pc, ch);
	}
	for (size_t k = 0; n >= 2 && k < nd->nchildren; k++) {
		size_t ch = nd->children[k];

		if (pc->c->nodes[ch].kind == FB_NODE_LEAF && parents[ch] == 1 && circ_drawn(pc, ch))
			pc->stacked[ch] = 1;
	}
	return n >= 2 ? n : 0;
}

/* The estimated width in points of product i's stack: its longest row at 12 points. */
static double circ_stack_width(const struct circ_pic *pc, size_t i)
{
	const fb_circuit_node *nd = &pc->c->nodes[i];
	double w = 0.0;

	for (size_t k = 0; k < nd->nchildren; k++) {
		char *text;

		if (!pc->stacked[nd->children[k]])
			continue;
		text = leaf_text(&pc->c->nodes[nd->children[k]].leaf, pc->ds);
		w = fmax(w, circ_text_width(text, 12.0) - 12.0);
		free(text);
	}
	return w;
}

/* Fold each level (distance from the root; a stack one below its product) whose nodes and
 * stacks side by side are wider than the page onto as many rows as that takes (at most 4):
 * its k-th element goes k modulo the rows below the level's first row, so that neighbours
 * sit on different rows and may overlap across them, as Graphviz's unflatten staggers. */
static void circ_fold(struct circ_pic *pc, const bool *has_stack)
{
	for (size_t level = 1; level <= pc->c->nnodes; level++) {
		double total = 0.0;
		size_t rows, k = 0;

		for (size_t i = 0; i < pc->c->nnodes; i++) {
			if (pc->nodes[i] != NULL && pc->dep[i] == level)
				total += pc->wide[i] + 18.0;
			if (has_stack[i] && pc->dep[i] + 1 == level)
				total += circ_stack_width(pc, i) + 18.0;
		}
		if (total == 0.0)
			break;
		rows = (size_t)fmin(4.0, ceil(total / pc->page));
		for (size_t i = 0; rows > 1 && i < pc->c->nnodes; i++) {
			if (pc->nodes[i] != NULL && pc->dep[i] == level)
				pc->lift[i] = k++ % rows;
			if (has_stack[i] && pc->dep[i] + 1 == level)
				pc->slift[i] = k++ % rows;
		}
	}
}

/* Make edge e span 1 + lift rows (an element a fold put lower). */
static void circ_span(Agedge_t *e, size_t lift)
{
	char len[32];

	if (lift > 0) {
		snprintf(len, sizeof len, "%zu", lift + 1);
		gv_set(e, "minlen", len);
	}
}

/* Add product i's stack: one box of rows, a leaf a row in its machine's colour, under an
 * edge from i. */
static void circ_stack_add(struct circ_pic *pc, size_t i)
{
	const fb_circuit_node *nd = &pc->c->nodes[i];
	fb_buf b = { 0 };
	char id[32];
	Agnode_t *n;

	fb_buf_printf(&b, "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
	              "cellpadding=\"3\">");
	for (size_t k = 0; k < nd->nchildren; k++) {
		size_t ch = nd->children[k];
		char *text;

		if (!pc->stacked[ch])
			continue;
		text = leaf_text(&pc->c->nodes[ch].leaf, pc->ds);
		fb_buf_printf(&b, "<tr><td align=\"left\" bgcolor=\"%s\">",
		              circ_color(pc->c->nodes[ch].machine));
		gv_html_append(&b, text, strlen(text));
		fb_buf_printf(&b, "</td></tr>");
		free(text);
	}
	fb_buf_printf(&b, "</table>");
	snprintf(id, sizeof id, "s%zu", i);
	n = agnode(pc->g, id, 1);
	gv_set(n, "shape", "plain");
	gv_set(n, "fontsize", "12");
	gv_set_html(pc->g, n, b.data);
	circ_span(agedge(pc->g, pc->nodes[i], n, NULL, 1), pc->slift[i]);
	fb_buf_release(&b);
	pc->stack_any = true;
}

/* Whether node i has leaves in a stack. */
static bool circ_has_stack(const struct circ_pic *pc, size_t i)
{
	const fb_circuit_node *nd = &pc->c->nodes[i];

	for (size_t k = 0; k < nd->nchildren; k++)
		if (pc->stacked[nd->children[k]])
			return true;
	return false;
}

/* The number of drawn parents of each node (caller frees). */
static size_t *circ_parents(const struct circ_pic *pc)
{
	size_t *par = fb_xcalloc(pc->c->nnodes, sizeof *par);

	for (size_t i = 0; i < pc->c->nnodes; i++)
		for (size_t k = 0; circ_drawn(pc, i) && !circ_folded(pc, i) &&
		                   k < pc->c->nodes[i].nchildren; k++)
			par[pc->c->nodes[i].children[k]]++;
	return par;
}

/* Add every drawn node, stack and edge (sum edges labelled with their weights). */
static void circ_build(struct circ_pic *pc)
{
	const fb_circuit *c = pc->c;
	size_t *par = circ_parents(pc);
	bool *has_stack = fb_xcalloc(c->nnodes, sizeof *has_stack);
	char w[32];

	for (size_t i = 0; i < c->nnodes; i++)
		circ_stack_mark(pc, i, par);
	for (size_t i = 0; i < c->nnodes; i++)
		if (circ_drawn(pc, i) && !pc->stacked[i])
			circ_node(pc, i);
	for (size_t i = 0; i < c->nnodes; i++)
		has_stack[i] = pc->nodes[i] != NULL && circ_has_stack(pc, i);
	circ_fold(pc, has_stack);
	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		for (size_t k = 0; pc->nodes[i] != NULL && !circ_folded(pc, i) && k < nd->nchildren;
		     k++) {
			Agnode_t *to = pc->nodes[nd->children[k]];
			Agedge_t *e;

			if (to == NULL)
				continue;
			e = agedge(pc->g, pc->nodes[i], to, NULL, 1);
			if (pc->dep[nd->children[k]] == pc->dep[i] + 1)
				circ_span(e, pc->lift[nd->children[k]]);
			if (nd->kind == FB_NODE_SUM) {
				snprintf(w, sizeof w, "%.3f", nd->weights[k]);
				gv_set(e, "xlabel", w);
			}
		}
		if (has_stack[i])
			circ_stack_add(pc, i);
	}
	free(par);
	free(has_stack);
}

/* One legend row: a sign (a shape in words; an empty cell of colour color when that is not
 * NULL) and what it means. */
static void circ_legend_row(fb_buf *b, const char *sign, const char *color, const char *meaning)
{
	if (color != NULL)
		fb_buf_printf(b, "<tr><td bgcolor=\"%s\"> </td>", color);
	else
		fb_buf_printf(b, "<tr><td>%s</td>", sign);
	fb_buf_printf(b, "<td align=\"left\">%s</td></tr>", meaning);
}

/* Whether a drawn node lives on machine m. */
static bool circ_machine_drawn(const struct circ_pic *pc, int m)
{
	for (size_t i = 0; i < pc->c->nnodes; i++)
		if (circ_drawn(pc, i) && pc->c->nodes[i].machine == m)
			return true;
	return false;
}

/* The legend as an HTML-like table: what the shapes mean (the stack and the folder only
 * when drawn), then the colour of each machine that holds a drawn node. */
static void circ_legend(const struct circ_pic *pc, fb_buf *b)
{
	int top = -1;
	char who[32];

	fb_buf_printf(b, "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
	              "cellpadding=\"2\"><tr><td colspan=\"2\"><b>legend</b></td></tr>");
	circ_legend_row(b, "circle +", NULL, "a sum: its edges' weights add up to 1");
	circ_legend_row(b, "box \xc3\x97", NULL, "a product of independent parts");
	circ_legend_row(b, "ellipse", NULL, "a leaf: a variable and its distribution");
	if (pc->stack_any)
		circ_legend_row(b, "box of rows", NULL, "a product's leaves, one a row");
	if (pc->folded_any)
		circ_legend_row(b, "folder", NULL, "a part folded by depth=");
	for (size_t i = 0; i < pc->c->nnodes; i++)
		top = pc->c->nodes[i].machine > top ? pc->c->nodes[i].machine : top;
	for (int m = -1; m <= top; m++) {
		if (!circ_machine_drawn(pc, m))
			continue;
		snprintf(who, sizeof who, m < 0 ? "held by the server" : "held by client %d", m + 1);
		circ_legend_row(b, "", circ_color(m), who);
	}
	fb_buf_printf(b, "</table>");
}

/* Put the title and the caption on top of the picture, the legend beside them. */
static void circ_page(const struct circ_pic *pc, const char *title, const char *caption)
{
	char *head = gv_title_html(title, caption);
	fb_buf b = { 0 };

	fb_buf_printf(&b, "<table border=\"0\" cellborder=\"0\" cellspacing=\"12\"><tr>"
	              "<td valign=\"top\">%s</td><td valign=\"top\">", head);
	circ_legend(pc, &b);
	fb_buf_printf(&b, "</td></tr></table>");
	gv_set_html(pc->g, pc->g, b.data);
	gv_set(pc->g, "labelloc", "t");
	gv_set(pc->g, "fontsize", "12");
	free(head);
	fb_buf_release(&b);
}

/* The picture's natural width in inches after a layout (its pad included). */
static double circ_width(Agraph_t *g)
{
	return (GD_bb(g).UR.x - GD_bb(g).LL.x) / 72.0 + 0.4;
}

/* Lay g out (dot, top down) at width inches (0: its natural size, no wider than
 * FB_EXPORT_CIRCUIT_WIDTH) and render it, appending the bytes to out: a PNG at dpi within the pixel
 * limits, an SVG at its natural size and then given the width (its viewBox kept), a PDF
 * scaled by Graphviz; *natural receives the width in inches before any scaling. */
static int circ_render(Agraph_t *g, const char *renderer, double width, double dpi,
                       fb_buf *out, double *natural, fb_error *err)
{
	GVC_t *gvc = gv_context_get(err);
	bool svg = strcmp(renderer, "svg") == 0, png = strcmp(renderer, "png") == 0;
	size_t from = out->len;
	char text[64];
	int rc = FB_OK;

	if (gvc == NULL)
		return FB_ERR;
	snprintf(text, sizeof text, "%g", dpi);
	if (png)
		gv_set(g, "dpi", text);
	if (gvLayout(gvc, g, "dot") != 0)
		return fb_fail(err, "graphviz cannot lay out the circuit: %s", gv_reason("no reason"));
	*natural = circ_width(g);
	if (width <= 0.0 && *natural > FB_EXPORT_CIRCUIT_WIDTH)
		width = FB_EXPORT_CIRCUIT_WIDTH;
	if (width > 0.0 && !svg) {
		gvFreeLayout(gvc, g);
		snprintf(text, sizeof text, "%g,%g!", width, width * 1000.0);
		gv_set(g, "size", text);
		if (gvLayout(gvc, g, "dot") != 0)
			return fb_fail(err, "graphviz cannot lay out the circuit: %s",
			               gv_reason("no reason"));
	}
	if (png)
		rc = gv_pixels_check(g, width, dpi, "fold it with depth=, lower width= or dpi=, "
		                     "or write .svg or .pdf", err);
	if (rc == FB_OK)
		rc = gv_render_data(g, renderer, out, err);
	gvFreeLayout(gvc, g);
	if (rc == FB_OK && svg && width > 0.0)
		rc = gv_svg_resize(out, from, width, err);
	return rc;
}

/* Build the picture of c into g: its nodes, stacks, edges and page. */
static void circ_picture(Agraph_t *g, const fb_circuit *c, const fb_dataset *ds, size_t depth,
                         const fb_export_opts *o)
{
	struct circ_pic pc = { .g = g, .c = c, .ds = ds, .depth = depth };

	pc.dep = circ_depths(c);
	pc.nodes = fb_xcalloc(c->nnodes, sizeof *pc.nodes);
	pc.stacked = fb_xcalloc(c->nnodes, 1);
	pc.wide = fb_xcalloc(c->nnodes, sizeof *pc.wide);
	pc.lift = fb_xcalloc(c->nnodes, sizeof *pc.lift);
	pc.slift = fb_xcalloc(c->nnodes, sizeof *pc.slift);
	pc.page = 72.0 * (o->width > 0.0 ? o->width : FB_EXPORT_CIRCUIT_WIDTH);
	gv_set(g, "rankdir", "TB");
	circ_build(&pc);
	circ_page(&pc, o->title, o->caption);
	free(pc.dep);
	free(pc.nodes);
	free(pc.stacked);
	free(pc.wide);
	free(pc.lift);
	free(pc.slift);
}

/* Draw circuit c over ds's variables to file in the format of its extension. */
int fb_export_circuit(const fb_circuit *c, const fb_dataset *ds, size_t depth,
                      const fb_export_opts *opts, const char *file, double *natural,
                      fb_error *err)
{
	double wide = 0.0;
	fb_export_opts none = { 0 }, o = opts != NULL ? *opts : none;
	const char *renderer = NULL;
	fb_error inner = { "" };
	struct gv_quiet q;
	fb_buf bytes = { 0 };
	bool named = false;
	Agraph_t *g;
	int rc;

	if (gv_export_format(file, &renderer, err) != FB_OK)
		return FB_ERR;
	if (c->nnodes == 0 || c->nvars != ds->d)
		return fb_fail(err, "cannot export '%s': the circuit is %s", file,
		               c->nnodes == 0 ? "empty" : "over other variables than the dataset's");
	gv_quiet_begin(&q);
	g = gv_graph_open("fedbn_circuit");
	if (g == NULL) {
		gv_quiet_end(&q);
		return fb_fail(err, "cannot export '%s': graphviz cannot create a graph", file);
	}
	circ_picture(g, c, ds, depth, &o);
	rc = renderer == NULL ? (agwrite(g, &bytes) == 0 ? FB_OK
	                         : fb_fail(&inner, "graphviz cannot write DOT text: %s",
	                                   gv_reason("no reason")))
	     : circ_render(g, renderer, o.width, o.dpi > 0.0 ? o.dpi : GV_DEFAULT_DPI, &bytes,
	                   &wide, &inner);
	if (natural != NULL)
		*natural = wide;
	if (rc == FB_OK)
		rc = gv_bytes_save(file, bytes.data != NULL ? bytes.data : "", bytes.len, &inner,
		                   &named);
	agclose(g);
	fb_buf_release(&bytes);
	gv_quiet_end(&q);
	if (rc == FB_OK)
		return FB_OK;
	return named ? fb_fail(err, "%s", inner.msg)
	             : fb_fail(err, "cannot export '%s': %s", file, inner.msg);
}
