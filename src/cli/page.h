/* A page of text in Markdown or HTML: the few pieces a report is made of (headings,
 * paragraphs, lists of facts, tables, pictures), each written in the page's format with its
 * text escaped.  HTML pages are self-contained: pictures are embedded as data URIs. */
#ifndef FEDBN_CLI_PAGE_H
#define FEDBN_CLI_PAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "fedbn/core.h"

/* The formats of a page. */
enum fb_page_format { FB_PAGE_MARKDOWN, FB_PAGE_HTML };

/* A page being written. */
typedef struct fb_page {
	FILE *out;                 /* where it goes */
	enum fb_page_format fmt;   /* its format */
	bool in_list;              /* a list of facts is open */
} fb_page;

/* The format a file name asks for (.md or .html/.htm); FB_ERR when neither. */
int fb_page_format_of(const char *path, enum fb_page_format *fmt);
/* Start the page with its title (HTML: the head, a short style sheet, the body). */
void fb_page_begin(fb_page *pg, const char *title);
/* End the page. */
void fb_page_end(fb_page *pg);
/* A heading of level 1 to 3. */
void fb_page_heading(fb_page *pg, int level, const char *fmt, ...) FB_PRINTF(3, 4);
/* A paragraph of plain text. */
void fb_page_para(fb_page *pg, const char *fmt, ...) FB_PRINTF(2, 3);
/* One item of a list of facts: a name in bold, then its text; the list closes at the next
 * piece that is not an item. */
void fb_page_fact(fb_page *pg, const char *name, const char *fmt, ...) FB_PRINTF(3, 4);
/* Text as a block of fixed-width lines. */
void fb_page_code(fb_page *pg, const char *text);
/* A table row of n cells (head: the header row; Markdown adds the rule under it). */
void fb_page_row(fb_page *pg, const char *const *cells, size_t n, bool head);
/* Close a table (HTML). */
void fb_page_table_end(fb_page *pg);
/* A picture: HTML embeds the SVG (or, named .png, PNG) file at path as a data URI; Markdown
 * links to link (a file beside the page).  FB_ERR with the reason when the file cannot be read. */
int fb_page_picture(fb_page *pg, const char *path, const char *link, const char *alt,
                    fb_error *err);

#endif
