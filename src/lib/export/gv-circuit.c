/* Pictures of probabilistic circuits through Graphviz: sums as circles, products as boxes,
 * leaves as ellipses, each filled with the colour of the machine holding it (the server
 * white, client k the k-th Okabe-Ito colour), weights on the edges of sums, and deep parts
 * folded into one node each. */
#include "config.h"

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

/* The label of a leaf: its variable and its family. */
static char *leaf_label(const fb_leaf *lf, char *const *names)
{
	char *name = gv_label_escape(names[lf->var]), *s;

	if (lf->kind == FB_LEAF_GAUSSIAN)
		s = fb_xasprintf("%s\nN(%.3g, %.3g)", name, lf->mean, lf->sd * lf->sd);
	else if (lf->kind == FB_LEAF_CATEGORICAL)
		s = fb_xasprintf("%s\ncategorical %zu", name, lf->nvalues);
	else
		s = fb_xasprintf("%s\nhistogram %zu", name, lf->nvalues);
	free(name);
	return s;
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

/* Add node i to g with its shape, label and colour; folded: it stands for what is below. */
static Agnode_t *circ_node(Agraph_t *g, const fb_circuit *c, size_t i, char *const *names,
                           bool folded)
{
	const fb_circuit_node *nd = &c->nodes[i];
	char id[32], *label;
	Agnode_t *n;

	snprintf(id, sizeof id, "n%zu", i);
	n = agnode(g, id, 1);
	if (nd->kind == FB_NODE_LEAF) {
		label = leaf_label(&nd->leaf, names);
		gv_set(n, "shape", "ellipse");
	} else if (folded) {
		unsigned char *seen = fb_xcalloc(c->nnodes, 1);

		label = fb_xasprintf("%s\n%zu nodes, %zu variables",
		                     nd->kind == FB_NODE_SUM ? "+" : "\xc3\x97",
		                     circ_below(c, i, seen), nd->nscope);
		free(seen);
		gv_set(n, "shape", "folder");
	} else {
		label = fb_xstrdup(nd->kind == FB_NODE_SUM ? "+" : "\xc3\x97");
		gv_set(n, "shape", nd->kind == FB_NODE_SUM ? "circle" : "box");
	}
	gv_set(n, "label", label);
	gv_set(n, "style", "filled");
	gv_set(n, "fillcolor", circ_color(nd->machine));
	free(label);
	return n;
}

/* Build the picture of c into g: nodes to depth (0: all), edges, weights. */
static void circ_build(Agraph_t *g, const fb_circuit *c, char *const *names, size_t depth)
{
	size_t *dep = circ_depths(c);
	Agnode_t **nodes = fb_xcalloc(c->nnodes, sizeof *nodes);
	char w[32];

	for (size_t i = 0; i < c->nnodes; i++)
		if (dep[i] != SIZE_MAX && (depth == 0 || dep[i] <= depth))
			nodes[i] = circ_node(g, c, i, names, depth > 0 && dep[i] == depth);
	for (size_t i = 0; i < c->nnodes; i++) {
		const fb_circuit_node *nd = &c->nodes[i];

		for (size_t k = 0; nodes[i] != NULL && k < nd->nchildren; k++) {
			Agnode_t *to = nodes[nd->children[k]];
			Agedge_t *e;

			if (to == NULL || (depth > 0 && dep[i] >= depth))
				continue;
			e = agedge(g, nodes[i], to, NULL, 1);
			if (nd->kind == FB_NODE_SUM) {
				snprintf(w, sizeof w, "%.3f", nd->weights[k]);
				gv_set(e, "label", w);
			}
		}
	}
	free(nodes);
	free(dep);
}

/* Lay c's picture out (dot, top down) and render it, appending the bytes to out; a PNG
 * (at Graphviz's 96 dpi) only within the pixel limits. */
static int circ_render(Agraph_t *g, const char *renderer, fb_buf *out, fb_error *err)
{
	GVC_t *gvc = gv_context_get(err);
	int rc = FB_OK;

	if (renderer == NULL) {
		if (agwrite(g, out) != 0)
			return fb_fail(err, "graphviz cannot write DOT text: %s", gv_reason("no reason"));
		return FB_OK;
	}
	if (gvc == NULL)
		return FB_ERR;
	if (gvLayout(gvc, g, "dot") != 0)
		return fb_fail(err, "graphviz cannot lay out the circuit: %s", gv_reason("no reason"));
	if (strcmp(renderer, "png") == 0)
		rc = gv_pixels_check(g, 0.0, GV_DEFAULT_DPI,
		                     "fold it with depth=, or write .svg or .pdf", err);
	if (rc == FB_OK)
		rc = gv_render_data(g, renderer, out, err);
	gvFreeLayout(gvc, g);
	return rc;
}

/* Draw circuit c (its variables named by names) to file in the format of its extension. */
int fb_export_circuit(const fb_circuit *c, char *const *names, size_t depth, const char *title,
                      const char *file, fb_error *err)
{
	const char *renderer = NULL;
	fb_error inner = { "" };
	struct gv_quiet q;
	fb_buf bytes = { 0 };
	bool named = false;
	Agraph_t *g;
	int rc;

	if (gv_export_format(file, &renderer, err) != FB_OK)
		return FB_ERR;
	if (c->nnodes == 0)
		return fb_fail(err, "cannot export '%s': the circuit is empty", file);
	gv_quiet_begin(&q);
	g = gv_graph_open("fedbn_circuit");
	if (g == NULL) {
		gv_quiet_end(&q);
		return fb_fail(err, "cannot export '%s': graphviz cannot create a graph", file);
	}
	gv_set(g, "rankdir", "TB");
	if (title != NULL) {
		char *t = gv_label_escape(title);

		gv_set(g, "label", t);
		gv_set(g, "labelloc", "t");
		free(t);
	}
	circ_build(g, c, names, depth);
	rc = circ_render(g, renderer, &bytes, &inner);
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
