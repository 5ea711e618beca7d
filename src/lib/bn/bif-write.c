/* Discrete networks out as BIF and XMLBIF, and XMLBIF back in (through the BIF reader). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "bn-private.h"

/* Write a name as the BIF reader takes it: bare when it is a plain word, else quoted. */
static void bif_name(fb_buf *b, const char *s)
{
	bool plain = s[0] != '\0' && strpbrk(s, " \t\r\n{}()[];,|\"/") == NULL;

	fb_buf_printf(b, plain ? "%s" : "\"%s\"", s);
}

/* Write row of k probabilities separated by ", " (sep) and ended by end. */
static void bif_probs(fb_buf *b, const double *p, size_t k, const char *sep, const char *end)
{
	char num[40];

	for (size_t s = 0; s < k; s++)
		fb_buf_printf(b, "%s%s", fb_format_double(p[s], num, sizeof num),
		              s + 1 < k ? sep : end);
}

/* The BIF variable block of node i. */
static void bif_variable(fb_buf *b, const fb_bn_node *nd)
{
	fb_buf_printf(b, "variable ");
	bif_name(b, nd->name);
	fb_buf_printf(b, " {\n  type discrete [ %zu ] { ", nd->nstates);
	for (size_t s = 0; s < nd->nstates; s++) {
		bif_name(b, nd->states[s]);
		fb_buf_printf(b, "%s", s + 1 < nd->nstates ? ", " : " };\n}\n");
	}
}

/* The BIF probability block of node i: a table for a root, else one row a configuration. */
static void bif_probability(fb_buf *b, const fb_bn *bn, size_t i)
{
	const fb_bn_node *nd = &bn->nodes[i];
	size_t st[FB_FIT_MAX_FAMILY] = { 0 };

	fb_buf_printf(b, "probability ( ");
	bif_name(b, nd->name);
	for (size_t j = 0; j < nd->nparents; j++) {
		fb_buf_printf(b, j == 0 ? " | " : ", ");
		bif_name(b, bn->nodes[nd->parents[j]].name);
	}
	fb_buf_printf(b, " ) {\n");
	if (nd->nparents == 0) {
		fb_buf_printf(b, "  table ");
		bif_probs(b, nd->cpt, nd->nstates, ", ", ";\n}\n");
		return;
	}
	for (size_t c = 0; c < nd->nconfigs; c++) {
		fb_buf_printf(b, "  (");
		for (size_t j = 0; j < nd->nparents; j++) {
			bif_name(b, bn->nodes[nd->parents[j]].states[st[j]]);
			fb_buf_printf(b, j + 1 < nd->nparents ? ", " : ") ");
		}
		bif_probs(b, nd->cpt + c * nd->nstates, nd->nstates, ", ", ";\n");
		for (size_t j = nd->nparents; j-- > 0;) /* next configuration, last parent fastest */
			if (++st[j] < bn->nodes[nd->parents[j]].nstates)
				break;
			else
				st[j] = 0;
	}
	fb_buf_printf(b, "}\n");
}

/* Write bn as BIF. */
void fb_bn_write_bif(FILE *fp, const fb_bn *bn)
{
	fb_buf b = { 0 };

	fb_buf_printf(&b, "network ");
	bif_name(&b, bn->name[0] != '\0' ? bn->name : "unknown");
	fb_buf_printf(&b, " {\n}\n");
	for (size_t i = 0; i < bn->d; i++)
		bif_variable(&b, &bn->nodes[i]);
	for (size_t i = 0; i < bn->d; i++)
		bif_probability(&b, bn, i);
	fputs(b.data, fp);
	fb_buf_release(&b);
}

/* Append s with XML's five special characters escaped. */
static void xml_text(fb_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&': fb_buf_printf(b, "&amp;"); break;
		case '<': fb_buf_printf(b, "&lt;"); break;
		case '>': fb_buf_printf(b, "&gt;"); break;
		case '"': fb_buf_printf(b, "&quot;"); break;
		case '\'': fb_buf_printf(b, "&apos;"); break;
		default: fb_buf_append(b, s, 1);
		}
	}
}

/* One element <TAG>text</TAG> on its own line, indented by a tab. */
static void xml_elem(fb_buf *b, const char *tag, const char *text)
{
	fb_buf_printf(b, "\t<%s>", tag);
	xml_text(b, text);
	fb_buf_printf(b, "</%s>\n", tag);
}

/* Write bn as XMLBIF 0.3. */
void fb_bn_write_xmlbif(FILE *fp, const fb_bn *bn)
{
	fb_buf b = { 0 };

	fb_buf_printf(&b, "<?xml version=\"1.0\"?>\n<BIF VERSION=\"0.3\">\n<NETWORK>\n");
	xml_elem(&b, "NAME", bn->name[0] != '\0' ? bn->name : "unknown");
	for (size_t i = 0; i < bn->d; i++) {
		const fb_bn_node *nd = &bn->nodes[i];

		fb_buf_printf(&b, "<VARIABLE TYPE=\"nature\">\n");
		xml_elem(&b, "NAME", nd->name);
		for (size_t s = 0; s < nd->nstates; s++)
			xml_elem(&b, "OUTCOME", nd->states[s]);
		fb_buf_printf(&b, "</VARIABLE>\n");
	}
	for (size_t i = 0; i < bn->d; i++) {
		const fb_bn_node *nd = &bn->nodes[i];

		fb_buf_printf(&b, "<DEFINITION>\n");
		xml_elem(&b, "FOR", nd->name);
		for (size_t j = 0; j < nd->nparents; j++)
			xml_elem(&b, "GIVEN", bn->nodes[nd->parents[j]].name);
		fb_buf_printf(&b, "\t<TABLE>");
		bif_probs(&b, nd->cpt, nd->nconfigs * nd->nstates, " ", "</TABLE>\n");
		fb_buf_printf(&b, "</DEFINITION>\n");
	}
	fb_buf_printf(&b, "</NETWORK>\n</BIF>\n");
	fputs(b.data, fp);
	fb_buf_release(&b);
}
