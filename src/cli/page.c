/* Pages in Markdown or HTML: each piece written in the page's format, text escaped. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"

/* The format a file name asks for. */
int fb_page_format_of(const char *path, enum fb_page_format *fmt)
{
	const char *dot = strrchr(path, '.');

	if (dot != NULL && strcmp(dot, ".md") == 0)
		*fmt = FB_PAGE_MARKDOWN;
	else if (dot != NULL && (strcmp(dot, ".html") == 0 || strcmp(dot, ".htm") == 0))
		*fmt = FB_PAGE_HTML;
	else
		return FB_ERR;
	return FB_OK;
}

/* Write s escaped for the page: HTML's special characters as entities, Markdown's as
 * backslash escapes (so that a name like a_b_c stays as it is). */
static void page_text(const fb_page *pg, const char *s)
{
	for (; *s != '\0'; s++) {
		if (pg->fmt == FB_PAGE_HTML && strchr("<>&\"", *s) != NULL)
			fputs(*s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : "&quot;",
			      pg->out);
		else if (pg->fmt == FB_PAGE_MARKDOWN && strchr("\\`*_[]<>|#", *s) != NULL)
			fprintf(pg->out, "\\%c", *s);
		else
			fputc(*s, pg->out);
	}
}

/* Close a list of facts that is open. */
static void page_close_list(fb_page *pg)
{
	if (!pg->in_list)
		return;
	fputs(pg->fmt == FB_PAGE_HTML ? "</ul>\n" : "\n", pg->out);
	pg->in_list = false;
}

/* Start the page. */
void fb_page_begin(fb_page *pg, const char *title)
{
	if (pg->fmt == FB_PAGE_MARKDOWN) {
		fputs("# ", pg->out);
		page_text(pg, title);
		fputs("\n\n", pg->out);
		return;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
	      pg->out);
	page_text(pg, title);
	fputs("</title>\n<style>\n"
	      "body { font-family: sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em; "
	      "line-height: 1.4; }\n"
	      "table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }\n"
	      "th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; }\n"
	      "th { background: #eee; }\n"
	      "img { max-width: 100%; border: 1px solid #ddd; margin: 0.5em 0; }\n"
	      "pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }\n"
	      "</style>\n</head>\n<body>\n<h1>", pg->out);
	page_text(pg, title);
	fputs("</h1>\n", pg->out);
}

/* End the page. */
void fb_page_end(fb_page *pg)
{
	page_close_list(pg);
	if (pg->fmt == FB_PAGE_HTML)
		fputs("</body>\n</html>\n", pg->out);
}

/* A block of text s between open and close (a list of facts that is open closes first). */
static void page_block(fb_page *pg, const char *open, const char *close, const char *s)
{
	page_close_list(pg);
	fputs(open, pg->out);
	page_text(pg, s);
	fputs(close, pg->out);
}

/* A heading. */
void fb_page_heading(fb_page *pg, int level, const char *fmt, ...)
{
	char open[16], close[16];
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fb_xvasprintf(fmt, ap);
	va_end(ap);
	if (pg->fmt == FB_PAGE_HTML) {
		snprintf(open, sizeof open, "<h%d>", level);
		snprintf(close, sizeof close, "</h%d>\n", level);
	} else {
		snprintf(open, sizeof open, "%.*s ", level, "###");
		snprintf(close, sizeof close, "\n\n");
	}
	page_block(pg, open, close, s);
	free(s);
}

/* A paragraph. */
void fb_page_para(fb_page *pg, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fb_xvasprintf(fmt, ap);
	va_end(ap);
	page_block(pg, pg->fmt == FB_PAGE_HTML ? "<p>" : "", pg->fmt == FB_PAGE_HTML ? "</p>\n"
	                                                                          : "\n\n", s);
	free(s);
}

/* One item of a list of facts. */
void fb_page_fact(fb_page *pg, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = fb_xvasprintf(fmt, ap);
	va_end(ap);
	if (!pg->in_list && pg->fmt == FB_PAGE_HTML)
		fputs("<ul>\n", pg->out);
	pg->in_list = true;
	fputs(pg->fmt == FB_PAGE_HTML ? "<li><b>" : "- **", pg->out);
	page_text(pg, name);
	fputs(pg->fmt == FB_PAGE_HTML ? "</b>: " : "**: ", pg->out);
	page_text(pg, s);
	fputs(pg->fmt == FB_PAGE_HTML ? "</li>\n" : "\n", pg->out);
	free(s);
}

/* A block of fixed-width lines. */
void fb_page_code(fb_page *pg, const char *text)
{
	page_close_list(pg);
	if (pg->fmt == FB_PAGE_MARKDOWN) {
		fprintf(pg->out, "```\n%s%s```\n\n", text,
		        text[0] != '\0' && text[strlen(text) - 1] == '\n' ? "" : "\n");
		return;
	}
	fputs("<pre>", pg->out);
	page_text(pg, text);
	fputs("</pre>\n", pg->out);
}

/* A table row. */
void fb_page_row(fb_page *pg, const char *const *cells, size_t n, bool head)
{
	page_close_list(pg);
	if (head && pg->fmt == FB_PAGE_HTML)
		fputs("<table>\n", pg->out);
	fputs(pg->fmt == FB_PAGE_HTML ? "<tr>" : "|", pg->out);
	for (size_t c = 0; c < n; c++) {
		fputs(pg->fmt == FB_PAGE_MARKDOWN ? " " : head ? "<th>" : "<td>", pg->out);
		page_text(pg, cells[c]);
		fputs(pg->fmt == FB_PAGE_MARKDOWN ? " |" : head ? "</th>" : "</td>", pg->out);
	}
	fputs(pg->fmt == FB_PAGE_HTML ? "</tr>\n" : "\n", pg->out);
	for (size_t c = 0; head && pg->fmt == FB_PAGE_MARKDOWN && c < n; c++)
		fputs(c + 1 < n ? "|---" : "|---|\n", pg->out);
}

/* Close a table. */
void fb_page_table_end(fb_page *pg)
{
	fputs(pg->fmt == FB_PAGE_HTML ? "</table>\n" : "\n", pg->out);
}

/* Write the bytes of fp as base64. */
static void page_base64(FILE *out, FILE *fp)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                             "0123456789+/";
	unsigned char in[3];
	size_t n;

	while ((n = fread(in, 1, 3, fp)) > 0) {
		unsigned v = (unsigned)in[0] << 16 | (n > 1 ? (unsigned)in[1] << 8 : 0) |
		             (n > 2 ? in[2] : 0);

		fputc(digits[v >> 18 & 63], out);
		fputc(digits[v >> 12 & 63], out);
		fputc(n > 1 ? digits[v >> 6 & 63] : '=', out);
		fputc(n > 2 ? digits[v & 63] : '=', out);
	}
}

/* A picture. */
int fb_page_picture(fb_page *pg, const char *path, const char *link, const char *alt,
                    fb_error *err)
{
	const char *dot;
	char why[128];
	FILE *fp;

	page_close_list(pg);
	if (pg->fmt == FB_PAGE_MARKDOWN) {
		fputs("![", pg->out);
		page_text(pg, alt);
		fprintf(pg->out, "](%s)\n\n", link);
		return FB_OK;
	}
	if ((fp = fopen(path, "rb")) == NULL)
		return fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
	dot = strrchr(path, '.');
	fputs("<p><img alt=\"", pg->out);
	page_text(pg, alt);
	fprintf(pg->out, "\" src=\"data:%s;base64,",
	        dot != NULL && strcmp(dot, ".png") == 0 ? "image/png" : "image/svg+xml");
	page_base64(pg->out, fp);
	fputs("\"></p>\n", pg->out);
	fclose(fp);
	return FB_OK;
}
