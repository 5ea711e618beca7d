/* The BIF reader: a small lexer, a recursive-descent parser over one token of lookahead,
 * and the checks that make the result a valid discrete Bayesian network (see bif.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/bif.h"
#include "csv-private.h"

/* How far a row's sum may be from 1 before it is an error (within it, rows are rescaled). */
#define SUM_TOLERANCE 1e-6

/* Kinds of token. */
enum tok_kind {
	TOK_END = 0, /* the end of the input (or the lexer failed) */
	TOK_WORD,    /* a name, keyword, state or number */
	TOK_PUNCT,   /* one of { } ( ) [ ] ; , | */
};

/* One token. */
struct tok {
	enum tok_kind kind; /* what it is */
	const char *s;      /* its text in the input (a quoted word without its quotes) */
	size_t len;         /* length of the text */
	size_t line;        /* line where it begins */
	bool quoted;        /* written in double quotes: never a keyword or a number */
};

/* A variable as it is read, with the lines that messages name. */
struct var {
	fb_bn_node node;   /* name, states, then parents and table from its probability block */
	size_t decl_line;  /* line of its variable block */
	size_t prob_line;  /* line of its probability block; 0 until it is read */
};

/* The reader's state. */
struct reader {
	const char *name;  /* the input's name in messages */
	const char *buf;   /* the input */
	size_t len;        /* its length in bytes */
	size_t pos;        /* offset just after the current token */
	size_t line;       /* line at pos */
	struct tok cur;    /* the current token */
	fb_error *err;     /* where the first error goes */
	bool failed;       /* an error was recorded */
	char *netname;     /* the network's name (owned), NULL before its block */
	size_t net_line;   /* line of the network block; 0 before it */
	struct var *vars;  /* declared variables, in order */
	size_t nvars;      /* how many */
	size_t capvars;    /* room in vars */
	size_t *slot;      /* hash index of the names: 0 empty, else variable index + 1 */
	size_t nslot;      /* slots (a power of two, or 0) */
};

/* The probability block being read. */
struct block {
	struct var *v;        /* its variable */
	size_t line;          /* line of the 'probability' keyword */
	unsigned char *given; /* per configuration: its row was given */
	size_t *ps;           /* parent states of the row being read */
	double *def;          /* the default row, or NULL */
};

static int rd_fail(struct reader *rd, size_t line, const char *fmt, ...) FB_PRINTF(3, 4);

/* Record "cannot read 'name': line N: <what>" unless an error is already recorded. */
static int rd_fail(struct reader *rd, size_t line, const char *fmt, ...)
{
	char what[FB_ERROR_MAX];
	va_list ap;

	if (rd->failed)
		return FB_ERR;
	rd->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return fb_fail(rd->err, "cannot read '%s': line %zu: %s", rd->name, line, what);
}

/* The current token for a message: 'text' or "the end of the file", in out. */
static const char *tok_show(const struct tok *t, char out[FB_CSV_EXCERPT_MAX + 3])
{
	char ex[FB_CSV_EXCERPT_MAX];

	if (t->kind == TOK_END)
		return "the end of the file";
	snprintf(out, FB_CSV_EXCERPT_MAX + 3, "'%s'", fb_csv_excerpt(ex, t->s, t->len));
	return out;
}

/* Fail with "expected <what>, found <current token>" on the current token's line. */
static int rd_expected(struct reader *rd, const char *what)
{
	char shown[FB_CSV_EXCERPT_MAX + 3];

	return rd_fail(rd, rd->cur.line, "expected %s, found %s", what,
	               tok_show(&rd->cur, shown));
}

/* True when the byte at pos ends a line: LF, or a CR not followed by LF. */
static bool at_newline(const struct reader *rd, size_t pos)
{
	char c = rd->buf[pos];

	return c == '\n' || (c == '\r' && (pos + 1 == rd->len || rd->buf[pos + 1] != '\n'));
}

/* True for the characters that are tokens by themselves. */
static bool is_punct(char c)
{
	return c != '\0' && strchr("{}()[];,|", c) != NULL;
}

/* True for blanks and line ends. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* True when a comment (// or slash-star) starts at pos. */
static bool at_comment(const struct reader *rd, size_t pos)
{
	return rd->buf[pos] == '/' && pos + 1 < rd->len &&
	       (rd->buf[pos + 1] == '/' || rd->buf[pos + 1] == '*');
}

/* Skip one comment at pos; FB_ERR when a block comment is not closed. */
static int skip_comment(struct reader *rd)
{
	size_t start = rd->line;

	if (rd->buf[rd->pos + 1] == '/') {
		while (rd->pos < rd->len && rd->buf[rd->pos] != '\n' && rd->buf[rd->pos] != '\r')
			rd->pos++;
		return FB_OK;
	}
	for (rd->pos += 2; rd->pos + 1 < rd->len; rd->pos++) {
		if (rd->buf[rd->pos] == '*' && rd->buf[rd->pos + 1] == '/') {
			rd->pos += 2;
			return FB_OK;
		}
		rd->line += at_newline(rd, rd->pos);
	}
	return rd_fail(rd, start, "the comment is not closed before the end of the file");
}

/* Skip blanks and comments; FB_ERR on an unclosed comment. */
static int skip_space(struct reader *rd)
{
	while (rd->pos < rd->len) {
		if (is_blank(rd->buf[rd->pos])) {
			rd->line += at_newline(rd, rd->pos);
			rd->pos++;
		} else if (at_comment(rd, rd->pos)) {
			if (skip_comment(rd) != FB_OK)
				return FB_ERR;
		} else {
			break;
		}
	}
	return FB_OK;
}

/* Lex a double-quoted word starting at pos (on the quote). */
static int lex_quoted(struct reader *rd)
{
	size_t start = ++rd->pos;

	while (rd->pos < rd->len && rd->buf[rd->pos] != '"') {
		unsigned char c = (unsigned char)rd->buf[rd->pos];

		if (c == '\n' || c == '\r')
			break;
		if (c < 0x20 || c == 0x7f)
			return rd_fail(rd, rd->line, "unexpected character 0x%02x in a quoted name",
			               c);
		rd->pos++;
	}
	if (rd->pos == rd->len || rd->buf[rd->pos] != '"')
		return rd_fail(rd, rd->line, "the quoted name is not closed on its line");
	if (rd->pos == start)
		return rd_fail(rd, rd->line, "a quoted name is empty");
	rd->cur.kind = TOK_WORD;
	rd->cur.s = rd->buf + start;
	rd->cur.len = rd->pos - start;
	rd->cur.quoted = true;
	rd->pos++;
	return FB_OK;
}

/* Lex a bare word starting at pos. */
static int lex_word(struct reader *rd)
{
	size_t start = rd->pos;

	while (rd->pos < rd->len) {
		unsigned char c = (unsigned char)rd->buf[rd->pos];

		if (is_blank((char)c) || is_punct((char)c) || c == '"' || at_comment(rd, rd->pos))
			break;
		if (c < 0x20 || c == 0x7f)
			return rd_fail(rd, rd->line, "unexpected character 0x%02x", c);
		rd->pos++;
	}
	rd->cur.kind = TOK_WORD;
	rd->cur.s = rd->buf + start;
	rd->cur.len = rd->pos - start;
	return FB_OK;
}

/* Move to the next token; FB_ERR (and an END token) when the lexer fails. */
static int advance(struct reader *rd)
{
	int rc;

	memset(&rd->cur, 0, sizeof rd->cur);
	if (rd->failed || skip_space(rd) != FB_OK) {
		rd->cur.line = rd->line;
		return FB_ERR;
	}
	rd->cur.line = rd->line;
	if (rd->pos == rd->len)
		return FB_OK;
	if (is_punct(rd->buf[rd->pos])) {
		rd->cur.kind = TOK_PUNCT;
		rd->cur.s = rd->buf + rd->pos++;
		rd->cur.len = 1;
		return FB_OK;
	}
	rc = rd->buf[rd->pos] == '"' ? lex_quoted(rd) : lex_word(rd);
	if (rc != FB_OK)
		memset(&rd->cur, 0, sizeof rd->cur);
	return rc;
}

/* True when the current token is the bare keyword kw. */
static bool at_keyword(const struct reader *rd, const char *kw)
{
	size_t n = strlen(kw);

	return rd->cur.kind == TOK_WORD && !rd->cur.quoted && rd->cur.len == n &&
	       memcmp(rd->cur.s, kw, n) == 0;
}

/* True when the current token is the punctuation c. */
static bool at_punct(const struct reader *rd, char c)
{
	return rd->cur.kind == TOK_PUNCT && rd->cur.s[0] == c;
}

/* Consume the punctuation c, or fail with "expected 'c' <where>, found ...". */
static int expect_punct(struct reader *rd, char c, const char *where)
{
	char what[160];

	if (at_punct(rd, c))
		return advance(rd);
	snprintf(what, sizeof what, "'%c' %s", c, where);
	return rd_expected(rd, what);
}

/* Skip a property: everything from after the keyword up to and including the next ';'
 * outside double quotes. */
static int skip_property(struct reader *rd)
{
	size_t line = rd->cur.line;
	bool quoted = false;

	while (rd->pos < rd->len && (quoted || rd->buf[rd->pos] != ';')) {
		quoted ^= rd->buf[rd->pos] == '"';
		rd->line += at_newline(rd, rd->pos);
		rd->pos++;
	}
	if (rd->pos == rd->len)
		return rd_fail(rd, line, "the property is not ended by ';'");
	rd->pos++;
	return advance(rd);
}

/* A NUL-terminated copy of the current token's text. */
static char *tok_dup(const struct reader *rd)
{
	char *s = fb_xmalloc(rd->cur.len + 1);

	memcpy(s, rd->cur.s, rd->cur.len);
	s[rd->cur.len] = '\0';
	return s;
}

/* True when the current token is a number; its value goes to *x. */
static bool tok_number(const struct reader *rd, double *x)
{
	return rd->cur.kind == TOK_WORD && !rd->cur.quoted &&
	       fb_csv_number_parse(rd->cur.s, rd->cur.len, x);
}

/* FNV-1a hash of len bytes. */
static size_t name_hash(const char *s, size_t len)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
	return (size_t)(h ^ (h >> 29));
}

/* The slot of the name (s, len): where its variable sits, or the empty slot for it. */
static size_t name_slot(const struct reader *rd, const char *s, size_t len)
{
	size_t mask = rd->nslot - 1, i = name_hash(s, len) & mask;

	for (; rd->slot[i] != 0; i = (i + 1) & mask) {
		const char *name = rd->vars[rd->slot[i] - 1].node.name;

		if (strncmp(name, s, len) == 0 && name[len] == '\0')
			break;
	}
	return i;
}

/* Index of the variable called (s, len), or -1. */
static long name_find(const struct reader *rd, const char *s, size_t len)
{
	size_t i;

	if (rd->nslot == 0)
		return -1;
	i = name_slot(rd, s, len);
	return rd->slot[i] == 0 ? -1 : (long)(rd->slot[i] - 1);
}

/* Enter the newest variable in the name index, growing it to keep it at most half full. */
static void name_add(struct reader *rd)
{
	const char *name;

	if (2 * rd->nvars > rd->nslot) {
		free(rd->slot);
		rd->nslot = rd->nslot == 0 ? 64 : 2 * rd->nslot;
		rd->slot = fb_xcalloc(rd->nslot, sizeof *rd->slot);
		for (size_t j = 0; j + 1 < rd->nvars; j++) {
			name = rd->vars[j].node.name;
			rd->slot[name_slot(rd, name, strlen(name))] = j + 1;
		}
	}
	name = rd->vars[rd->nvars - 1].node.name;
	rd->slot[name_slot(rd, name, strlen(name))] = rd->nvars;
}

/* Free what one node owns. */
static void node_release(fb_bn_node *n)
{
	free(n->name);
	if (n->states != NULL)
		for (size_t s = 0; s < n->nstates; s++)
			free(n->states[s]);
	free(n->states);
	free(n->parents);
	free(n->cpt);
}

/* Free a network. */
void fb_bn_free(fb_bn *bn)
{
	if (bn == NULL)
		return;
	for (size_t i = 0; i < bn->d; i++)
		node_release(&bn->nodes[i]);
	free(bn->nodes);
	free(bn->order);
	free(bn->name);
	free(bn);
}

/* Parse the network block: network [NAME] { property ...; }. */
static int parse_network(struct reader *rd)
{
	size_t line = rd->cur.line;

	if (rd->net_line != 0)
		return rd_fail(rd, line, "a second network block (the first is on line %zu)",
		               rd->net_line);
	rd->net_line = line;
	if (advance(rd) != FB_OK)
		return FB_ERR;
	if (rd->cur.kind == TOK_WORD) {
		rd->netname = tok_dup(rd);
		if (advance(rd) != FB_OK)
			return FB_ERR;
	}
	if (expect_punct(rd, '{', "after the network name") != FB_OK)
		return FB_ERR;
	while (!at_punct(rd, '}')) {
		if (rd->cur.kind == TOK_END)
			return rd_fail(rd, line, "the network block is not closed");
		if (!at_keyword(rd, "property"))
			return rd_expected(rd, "'property' or '}' in the network block");
		if (skip_property(rd) != FB_OK)
			return FB_ERR;
	}
	return advance(rd);
}

/* Parse the k in "[ k ]" into *k (1 to 10^9). */
static int parse_state_count(struct reader *rd, size_t *k)
{
	const struct tok *t = &rd->cur;
	size_t v = 0;

	if (t->kind != TOK_WORD || t->quoted || t->len == 0 || t->len > 9)
		return rd_expected(rd, "the number of states after '['");
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return rd_expected(rd, "the number of states after '['");
		v = v * 10 + (size_t)(t->s[i] - '0');
	}
	if (v == 0)
		return rd_fail(rd, t->line, "a variable needs at least one state, not 0");
	*k = v;
	return advance(rd);
}

/* Parse the state list "{ s1, s2, ... }" of variable v. */
static int parse_states(struct reader *rd, fb_bn_node *v)
{
	size_t cap = 0;

	if (expect_punct(rd, '{', "before the states") != FB_OK)
		return FB_ERR;
	while (!at_punct(rd, '}')) {
		if (at_punct(rd, ',')) {
			if (advance(rd) != FB_OK)
				return FB_ERR;
			continue;
		}
		if (rd->cur.kind != TOK_WORD)
			return rd_expected(rd, "a state name or '}'");
		for (size_t s = 0; s < v->nstates; s++)
			if (strncmp(v->states[s], rd->cur.s, rd->cur.len) == 0 &&
			    v->states[s][rd->cur.len] == '\0')
				return rd_fail(rd, rd->cur.line,
				               "state '%s' of '%s' is listed twice", v->states[s],
				               v->name);
		if (v->nstates == cap) {
			cap = cap == 0 ? 4 : 2 * cap;
			v->states = fb_xreallocarray(v->states, cap, sizeof *v->states);
		}
		v->states[v->nstates++] = tok_dup(rd);
		if (advance(rd) != FB_OK)
			return FB_ERR;
	}
	return advance(rd);
}

/* Parse "type discrete [ k ] { s1, ..., sk };" for variable v (current token: 'type'). */
static int parse_type(struct reader *rd, fb_bn_node *v)
{
	size_t line = rd->cur.line, k = 0;

	if (v->nstates != 0)
		return rd_fail(rd, line, "variable '%s' has a second type", v->name);
	if (advance(rd) != FB_OK)
		return FB_ERR;
	if (!at_keyword(rd, "discrete")) {
		if (rd->cur.kind == TOK_WORD)
			return rd_fail(rd, line, "variable '%s' is of type '%.*s': only discrete "
			               "variables are supported", v->name, (int)rd->cur.len,
			               rd->cur.s);
		return rd_expected(rd, "'discrete' after 'type'");
	}
	if (advance(rd) != FB_OK || expect_punct(rd, '[', "after 'discrete'") != FB_OK ||
	    parse_state_count(rd, &k) != FB_OK ||
	    expect_punct(rd, ']', "after the number of states") != FB_OK ||
	    parse_states(rd, v) != FB_OK)
		return FB_ERR;
	if (v->nstates == 0)
		return rd_fail(rd, line, "variable '%s' lists no states", v->name);
	if (v->nstates != k)
		return rd_fail(rd, line, "variable '%s' declares %zu states but lists %zu",
		               v->name, k, v->nstates);
	return expect_punct(rd, ';', "after the states");
}

/* Start a new variable named as the current token; FB_ERR when the name is taken. */
static int var_start(struct reader *rd, size_t line)
{
	long dup = name_find(rd, rd->cur.s, rd->cur.len);
	struct var *v;

	if (dup >= 0)
		return rd_fail(rd, rd->cur.line, "variable '%s' is declared twice (first on line "
		               "%zu)", rd->vars[dup].node.name, rd->vars[dup].decl_line);
	if (rd->nvars == rd->capvars) {
		rd->capvars = rd->capvars == 0 ? 16 : 2 * rd->capvars;
		rd->vars = fb_xreallocarray(rd->vars, rd->capvars, sizeof *rd->vars);
	}
	v = &rd->vars[rd->nvars++];
	memset(v, 0, sizeof *v);
	v->node.name = tok_dup(rd);
	v->decl_line = line;
	name_add(rd);
	return FB_OK;
}

/* Parse a variable block: variable NAME { type ...; property ...; }. */
static int parse_variable(struct reader *rd)
{
	size_t line = rd->cur.line;
	fb_bn_node *v;

	if (advance(rd) != FB_OK)
		return FB_ERR;
	if (rd->cur.kind != TOK_WORD || rd->cur.len == 0)
		return rd_expected(rd, "a variable name after 'variable'");
	if (var_start(rd, line) != FB_OK || advance(rd) != FB_OK ||
	    expect_punct(rd, '{', "after the variable name") != FB_OK)
		return FB_ERR;
	v = &rd->vars[rd->nvars - 1].node;
	while (!at_punct(rd, '}')) {
		int rc;

		if (rd->cur.kind == TOK_END)
			return rd_fail(rd, line, "the block of variable '%s' is not closed",
			               v->name);
		if (at_keyword(rd, "type"))
			rc = parse_type(rd, v);
		else if (at_keyword(rd, "property"))
			rc = skip_property(rd);
		else
			rc = rd_expected(rd, "'type', 'property' or '}' in a variable block");
		if (rc != FB_OK)
			return FB_ERR;
	}
	if (v->nstates == 0)
		return rd_fail(rd, line, "variable '%s' has no type", v->name);
	return advance(rd);
}

/* The states of configuration c of v's parents, as "yes, no", appended to b. */
static void config_text(const struct reader *rd, const fb_bn_node *v, size_t c, fb_buf *b)
{
	size_t rest = c, div = v->nconfigs;

	for (size_t j = 0; j < v->nparents; j++) {
		const fb_bn_node *p = &rd->vars[v->parents[j]].node;

		div /= p->nstates;
		fb_buf_printf(b, "%s%s", j > 0 ? ", " : "", p->states[rest / div]);
		rest %= div;
	}
}

/* Add the parent named by the current token to variable x's list. */
static int add_parent(struct reader *rd, struct var *x)
{
	fb_bn_node *v = &x->node;
	long i;

	if (rd->cur.kind != TOK_WORD)
		return rd_expected(rd, "a parent name or ')'");
	i = name_find(rd, rd->cur.s, rd->cur.len);
	if (i < 0)
		return rd_fail(rd, rd->cur.line, "parent '%.*s' of '%s' is not declared",
		               (int)rd->cur.len, rd->cur.s, v->name);
	if (&rd->vars[i] == x)
		return rd_fail(rd, rd->cur.line, "'%s' is listed as its own parent", v->name);
	for (size_t j = 0; j < v->nparents; j++)
		if (v->parents[j] == (size_t)i)
			return rd_fail(rd, rd->cur.line, "parent '%s' of '%s' is listed twice",
			               rd->vars[i].node.name, v->name);
	v->parents[v->nparents++] = (size_t)i;
	return advance(rd);
}

/* Parse the child and parents of a probability block: "( X | P1, P2 )". */
static int parse_block_vars(struct reader *rd, struct block *bk)
{
	fb_bn_node *v;
	long i;

	if (expect_punct(rd, '(', "after 'probability'") != FB_OK)
		return FB_ERR;
	if (rd->cur.kind != TOK_WORD)
		return rd_expected(rd, "a variable name after '('");
	i = name_find(rd, rd->cur.s, rd->cur.len);
	if (i < 0)
		return rd_fail(rd, rd->cur.line, "variable '%.*s' is not declared",
		               (int)rd->cur.len, rd->cur.s);
	bk->v = &rd->vars[i];
	v = &bk->v->node;
	if (bk->v->prob_line != 0)
		return rd_fail(rd, bk->line, "a second probability block for '%s' (the first is "
		               "on line %zu)", v->name, bk->v->prob_line);
	bk->v->prob_line = bk->line;
	if (advance(rd) != FB_OK || (at_punct(rd, '|') && advance(rd) != FB_OK))
		return FB_ERR;
	v->parents = fb_xcalloc(rd->nvars, sizeof *v->parents);
	while (!at_punct(rd, ')'))
		if ((at_punct(rd, ',') ? advance(rd) : add_parent(rd, bk->v)) != FB_OK)
			return FB_ERR;
	return advance(rd);
}

/* Size v's table from its parents and allocate it and the block's bookkeeping. */
static int block_alloc(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;

	v->nconfigs = 1;
	for (size_t j = 0; j < v->nparents; j++) {
		size_t k = rd->vars[v->parents[j]].node.nstates;

		if (v->nconfigs > FB_BIF_MAX_TABLE / k / v->nstates)
			return rd_fail(rd, bk->line, "the table of '%s' would have more than %zu "
			               "entries, the most supported", v->name, FB_BIF_MAX_TABLE);
		v->nconfigs *= k;
	}
	if (v->nconfigs > FB_BIF_MAX_TABLE / v->nstates)
		return rd_fail(rd, bk->line, "the table of '%s' would have more than %zu entries, "
		               "the most supported", v->name, FB_BIF_MAX_TABLE);
	v->cpt = malloc(v->nconfigs * v->nstates * sizeof *v->cpt);
	bk->given = calloc(v->nconfigs, 1);
	bk->ps = fb_xcalloc(v->nparents + 1, sizeof *bk->ps);
	if (v->cpt == NULL || bk->given == NULL)
		return rd_fail(rd, bk->line, "out of memory for the table of '%s'", v->name);
	return FB_OK;
}

/* Read numbers up to ';' into out (room for want); FB_ERR unless exactly want, all >= 0.
 * line and what name the list in messages ("the row (yes) of 'x'"). */
static int parse_values(struct reader *rd, double *out, size_t want, size_t line,
                        const char *what)
{
	size_t n = 0;
	double x;

	while (!at_punct(rd, ';')) {
		if (at_punct(rd, ',')) {
			if (advance(rd) != FB_OK)
				return FB_ERR;
			continue;
		}
		if (!tok_number(rd, &x))
			return rd_expected(rd, "a probability or ';'");
		if (x < 0)
			return rd_fail(rd, rd->cur.line, "probability %.*s in %s is negative",
			               (int)rd->cur.len, rd->cur.s, what);
		if (n < want)
			out[n] = x;
		n++;
		if (advance(rd) != FB_OK)
			return FB_ERR;
	}
	if (n != want)
		return rd_fail(rd, line, "%s has %zu probabilities, expected %zu", what, n, want);
	return advance(rd);
}

/* Check that the k values at p sum to 1 within the tolerance, and rescale them to 1. */
static int normalise(struct reader *rd, double *p, size_t k, size_t line, const char *what)
{
	double sum = 0;

	for (size_t s = 0; s < k; s++)
		sum += p[s];
	if (!(fabs(sum - 1) <= SUM_TOLERANCE))
		return rd_fail(rd, line, "the probabilities of %s sum to %.10g, not 1", what, sum);
	if (sum != 1)
		for (size_t s = 0; s < k; s++)
			p[s] /= sum;
	return FB_OK;
}

/* Parse the parent states of a row, "(s1, s2)", into bk->ps. */
static int parse_row_states(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;
	size_t line = rd->cur.line, m = 0;

	if (v->nparents == 0)
		return rd_fail(rd, line, "'%s' has no parents: its probabilities follow 'table', "
		               "not parent states", v->name);
	if (advance(rd) != FB_OK)
		return FB_ERR;
	while (!at_punct(rd, ')')) {
		const fb_bn_node *p;
		long s = -1;

		if (at_punct(rd, ',')) {
			if (advance(rd) != FB_OK)
				return FB_ERR;
			continue;
		}
		if (rd->cur.kind != TOK_WORD)
			return rd_expected(rd, "a parent state or ')'");
		if (m == v->nparents)
			return rd_fail(rd, line,
			               "a row of '%s' names more than its %zu parent states",
			               v->name, v->nparents);
		p = &rd->vars[v->parents[m]].node;
		for (size_t j = 0; j < p->nstates && s < 0; j++)
			if (strncmp(p->states[j], rd->cur.s, rd->cur.len) == 0 &&
			    p->states[j][rd->cur.len] == '\0')
				s = (long)j;
		if (s < 0)
			return rd_fail(rd, rd->cur.line,
			               "'%.*s' is not a state of '%s', parent %zu of '%s'",
			               (int)rd->cur.len, rd->cur.s, p->name, m + 1, v->name);
		bk->ps[m++] = (size_t)s;
		if (advance(rd) != FB_OK)
			return FB_ERR;
	}
	if (m != v->nparents)
		return rd_fail(rd, line, "a row of '%s' names %zu parent states, expected %zu",
		               v->name, m, v->nparents);
	return advance(rd);
}

/* Parse one row: "(s1, s2) v1, ..., vk;". */
static int parse_row(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;
	size_t line = rd->cur.line, c = 0;
	fb_buf what = { 0 };
	int rc = FB_ERR;

	if (parse_row_states(rd, bk) != FB_OK)
		return FB_ERR;
	for (size_t j = 0; j < v->nparents; j++)
		c = c * rd->vars[v->parents[j]].node.nstates + bk->ps[j];
	fb_buf_printf(&what, "the row (");
	config_text(rd, v, c, &what);
	fb_buf_printf(&what, ") of '%s'", v->name);
	if (bk->given[c])
		rd_fail(rd, line, "%s is given twice", what.data);
	else if (parse_values(rd, v->cpt + c * v->nstates, v->nstates, line, what.data) == FB_OK &&
	         normalise(rd, v->cpt + c * v->nstates, v->nstates, line, what.data) == FB_OK)
		rc = FB_OK;
	bk->given[c] = 1;
	fb_buf_release(&what);
	return rc;
}

/* Check and rescale each row of a whole table just read (line: the table's). */
static int table_normalise(struct reader *rd, struct block *bk, size_t line)
{
	fb_bn_node *v = &bk->v->node;
	fb_buf what = { 0 };
	int rc = FB_OK;

	for (size_t c = 0; c < v->nconfigs && rc == FB_OK; c++) {
		what.len = 0;
		fb_buf_printf(&what, "the table of '%s'", v->name);
		if (v->nparents > 0) {
			fb_buf_printf(&what, " for (");
			config_text(rd, v, c, &what);
			fb_buf_printf(&what, ")");
		}
		rc = normalise(rd, v->cpt + c * v->nstates, v->nstates, line, what.data);
		bk->given[c] = 1;
	}
	fb_buf_release(&what);
	return rc;
}

/* Parse "table v1, ..., vN;": every row, child-major (see bif.h). */
static int parse_table(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;
	size_t line = rd->cur.line, k = v->nstates, nc = v->nconfigs;
	char what[FB_ERROR_MAX];
	double *t;

	for (size_t c = 0; c < nc; c++)
		if (bk->given[c])
			return rd_fail(rd, line, "the table of '%s' comes after rows of it",
			               v->name);
	t = malloc(nc * k * sizeof *t);
	if (t == NULL)
		return rd_fail(rd, line, "out of memory for the table of '%s'", v->name);
	snprintf(what, sizeof what, "the table of '%s'", v->name);
	if (advance(rd) != FB_OK || parse_values(rd, t, nc * k, line, what) != FB_OK) {
		free(t);
		return FB_ERR;
	}
	for (size_t s = 0; s < k; s++)
		for (size_t c = 0; c < nc; c++)
			v->cpt[c * k + s] = t[s * nc + c];
	free(t);
	return table_normalise(rd, bk, line);
}

/* Parse "default v1, ..., vk;": the row of every configuration not given otherwise. */
static int parse_default(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;
	size_t line = rd->cur.line;
	char what[FB_ERROR_MAX];

	if (bk->def != NULL)
		return rd_fail(rd, line, "a second default row for '%s'", v->name);
	bk->def = fb_xcalloc(v->nstates, sizeof *bk->def);
	snprintf(what, sizeof what, "the default row of '%s'", v->name);
	if (advance(rd) != FB_OK || parse_values(rd, bk->def, v->nstates, line, what) != FB_OK)
		return FB_ERR;
	return normalise(rd, bk->def, v->nstates, line, what);
}

/* Fill the rows not given from the default row; FB_ERR naming the first one missing. */
static int block_finish(struct reader *rd, struct block *bk)
{
	fb_bn_node *v = &bk->v->node;
	fb_buf conf = { 0 };

	for (size_t c = 0; c < v->nconfigs; c++) {
		if (bk->given[c])
			continue;
		if (bk->def != NULL) {
			memcpy(v->cpt + c * v->nstates, bk->def, v->nstates * sizeof *bk->def);
			continue;
		}
		if (v->nparents == 0)
			return rd_fail(rd, bk->line, "the probability block of '%s' gives no table",
			               v->name);
		config_text(rd, v, c, &conf);
		rd_fail(rd, bk->line, "the probability block of '%s' gives no row for (%s)",
		        v->name, conf.data);
		fb_buf_release(&conf);
		return FB_ERR;
	}
	return FB_OK;
}

/* Parse the body of a probability block, from '{' to '}'. */
static int parse_block_body(struct reader *rd, struct block *bk)
{
	if (expect_punct(rd, '{', "after the variables of the probability block") != FB_OK)
		return FB_ERR;
	while (!at_punct(rd, '}')) {
		int rc;

		if (rd->cur.kind == TOK_END)
			return rd_fail(rd, bk->line, "the probability block of '%s' is not closed",
			               bk->v->node.name);
		if (at_punct(rd, '('))
			rc = parse_row(rd, bk);
		else if (at_keyword(rd, "table"))
			rc = parse_table(rd, bk);
		else if (at_keyword(rd, "default"))
			rc = parse_default(rd, bk);
		else if (at_keyword(rd, "property"))
			rc = skip_property(rd);
		else
			rc = rd_expected(rd, "'(', 'table', 'default', 'property' or '}' in a "
			                 "probability block");
		if (rc != FB_OK)
			return FB_ERR;
	}
	if (block_finish(rd, bk) != FB_OK)
		return FB_ERR;
	return advance(rd);
}

/* Parse a probability block: probability ( X | P1, P2 ) { ... }. */
static int parse_probability(struct reader *rd)
{
	struct block bk = { .line = rd->cur.line };
	int rc = FB_ERR;

	if (advance(rd) == FB_OK && parse_block_vars(rd, &bk) == FB_OK &&
	    block_alloc(rd, &bk) == FB_OK && parse_block_body(rd, &bk) == FB_OK)
		rc = FB_OK;
	free(bk.given);
	free(bk.ps);
	free(bk.def);
	return rc;
}

/* Parse the whole input: blocks until the end. */
static int parse_all(struct reader *rd)
{
	if (advance(rd) != FB_OK)
		return FB_ERR;
	while (rd->cur.kind != TOK_END) {
		int rc;

		if (at_keyword(rd, "network"))
			rc = parse_network(rd);
		else if (at_keyword(rd, "variable"))
			rc = parse_variable(rd);
		else if (at_keyword(rd, "probability"))
			rc = parse_probability(rd);
		else
			rc = rd_expected(rd, "'network', 'variable' or 'probability'");
		if (rc != FB_OK)
			return FB_ERR;
	}
	if (rd->failed)
		return FB_ERR;
	if (rd->nvars == 0)
		return rd_fail(rd, rd->line, "the file declares no variable");
	for (size_t i = 0; i < rd->nvars; i++)
		if (rd->vars[i].prob_line == 0)
			return rd_fail(rd, rd->vars[i].decl_line,
			               "variable '%s' has no probability block",
			               rd->vars[i].node.name);
	return FB_OK;
}

/* Report a cycle through the nodes left with parents by Kahn's algorithm (left[i] set):
 * name the probability block read last on the cycle, and the cycle from its parent on. */
static int report_cycle(struct reader *rd, const unsigned char *left)
{
	size_t d = rd->nvars, v = 0, len = 0, q, last, at;
	size_t *step = fb_xcalloc(d, sizeof *step), *path = fb_xcalloc(d, sizeof *path);
	fb_buf text = { 0 };

	while (!left[v])
		v++;
	/* walk from a child to one of its parents still left until a node repeats: then
	 * path[i + 1] -> path[i] for every i, and path[q] -> path[len - 1] closes the cycle */
	for (; step[v] == 0; len++) {
		const fb_bn_node *n = &rd->vars[v].node;
		size_t j = 0;

		step[v] = len + 1;
		path[len] = v;
		while (!left[n->parents[j]])
			j++;
		v = n->parents[j];
	}
	q = step[v] - 1;
	last = q;
	for (size_t i = q + 1; i < len; i++)
		if (rd->vars[path[i]].prob_line > rd->vars[path[last]].prob_line)
			last = i;
	at = last + 1 < len ? last + 1 : q;
	for (size_t m = 0, i = at; m <= len - q; m++) {
		fb_buf_printf(&text, "%s%s", m > 0 ? " -> " : "", rd->vars[path[i]].node.name);
		i = i == q ? len - 1 : i - 1;
	}
	rd_fail(rd, rd->vars[path[last]].prob_line, "the parents of '%s' close a cycle: %s",
	        rd->vars[path[last]].node.name, text.data);
	fb_buf_release(&text);
	free(path);
	free(step);
	return FB_ERR;
}

/* A topological order into order (Kahn's algorithm, roots in declaration order first);
 * FB_ERR naming a cycle. */
static int topo_sort(struct reader *rd, size_t *order)
{
	size_t d = rd->nvars, narcs = 0, head = 0, tail = 0;
	size_t *indeg = fb_xcalloc(d, sizeof *indeg), *first = fb_xcalloc(d + 1, sizeof *first);
	size_t *child, *fill = fb_xcalloc(d + 1, sizeof *fill);
	int rc = FB_OK;

	for (size_t i = 0; i < d; i++) {
		indeg[i] = rd->vars[i].node.nparents;
		narcs += indeg[i];
		for (size_t j = 0; j < indeg[i]; j++)
			first[rd->vars[i].node.parents[j] + 1]++;
	}
	for (size_t i = 0; i < d; i++)
		first[i + 1] += first[i];
	child = fb_xcalloc(narcs + 1, sizeof *child);
	memcpy(fill, first, (d + 1) * sizeof *fill);
	for (size_t i = 0; i < d; i++)
		for (size_t j = 0; j < rd->vars[i].node.nparents; j++)
			child[fill[rd->vars[i].node.parents[j]]++] = i;
	for (size_t i = 0; i < d; i++)
		if (indeg[i] == 0)
			order[tail++] = i;
	for (; head < tail; head++)
		for (size_t a = first[order[head]]; a < first[order[head] + 1]; a++)
			if (--indeg[child[a]] == 0)
				order[tail++] = child[a];
	if (tail < d) {
		unsigned char *left = fb_xcalloc(d, 1);

		for (size_t i = 0; i < d; i++)
			left[i] = indeg[i] > 0;
		rc = report_cycle(rd, left);
		free(left);
	}
	free(indeg);
	free(first);
	free(fill);
	free(child);
	return rc;
}

/* Move the variables read into a new network; FB_ERR on a cycle. */
static fb_bn *build(struct reader *rd)
{
	fb_bn *bn;
	size_t *order = fb_xcalloc(rd->nvars, sizeof *order);

	if (topo_sort(rd, order) != FB_OK) {
		free(order);
		return NULL;
	}
	bn = fb_xcalloc(1, sizeof *bn);
	bn->name = rd->netname != NULL ? rd->netname : fb_xstrdup("");
	rd->netname = NULL;
	bn->d = rd->nvars;
	bn->order = order;
	bn->nodes = fb_xcalloc(rd->nvars, sizeof *bn->nodes);
	for (size_t i = 0; i < rd->nvars; i++) {
		bn->nodes[i] = rd->vars[i].node;
		if (bn->nodes[i].nparents == 0) {
			free(bn->nodes[i].parents);
			bn->nodes[i].parents = NULL;
		}
	}
	rd->nvars = 0;
	return bn;
}

/* Read a network from a buffer. */
fb_bn *fb_bif_read_buffer(const char *buf, size_t len, const char *name, fb_error *err)
{
	struct reader rd = { .name = name != NULL ? name : "(buffer)", .buf = buf, .len = len,
	                     .line = 1, .err = err };
	fb_bn *bn = NULL;

	if (buf == NULL && len > 0) {
		fb_fail(err, "cannot read '%s': no input", rd.name);
		return NULL;
	}
	if (parse_all(&rd) == FB_OK)
		bn = build(&rd);
	for (size_t i = 0; i < rd.nvars; i++)
		node_release(&rd.vars[i].node);
	free(rd.vars);
	free(rd.slot);
	free(rd.netname);
	return bn;
}

/* Append the len bytes at s to text, its room doubled as needed; FB_ERR (text as it was) when
 * memory runs out. */
static int bif_append(fb_buf *text, const char *s, size_t len)
{
	if (text->len + len + 1 > text->cap) {
		size_t cap = text->cap > 0 ? text->cap : 65536;
		char *grown;

		while (cap < text->len + len + 1)
			cap *= 2;
		if ((grown = realloc(text->data, cap)) == NULL)
			return FB_ERR;
		text->data = grown;
		text->cap = cap;
	}
	memcpy(text->data + text->len, s, len);
	text->len += len;
	text->data[text->len] = '\0';
	return FB_OK;
}

/* Read all of fp into text; a line longer than FB_LINE_MAX (an endless input such as
 * /dev/zero), memory that cannot be had or a read error is FB_ERR with its sentence. */
static int bif_slurp(FILE *fp, const char *path, fb_buf *text, fb_error *err)
{
	char chunk[65536], why[128];
	size_t got, line = 1, line_bytes = 0;

	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		for (size_t i = 0; i < got; i++, line_bytes++)
			if (chunk[i] == '\n') {
				line++;
				line_bytes = 0;
			}
		if (line_bytes > FB_LINE_MAX)
			return fb_fail(err, "cannot read '%s': line %zu is longer than " FB_LINE_MAX_TEXT
			               ", the longest line fedbn reads", path, line);
		if (bif_append(text, chunk, got) != FB_OK)
			return fb_fail(err, "cannot read '%s': out of memory after %zu MB of it", path,
			               text->len >> 20);
	}
	if (ferror(fp))
		return fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
	return FB_OK;
}

/* Read a network from a file. */
fb_bn *fb_bif_read(const char *path, fb_error *err)
{
	FILE *fp = fopen(path, "rb");
	fb_buf text = { 0 };
	char why[128];
	fb_bn *bn;

	if (fp == NULL) {
		fb_fail(err, "cannot read '%s': %s", path, fb_strerror(errno, why, sizeof why));
		return NULL;
	}
	if (bif_slurp(fp, path, &text, err) != FB_OK) {
		fclose(fp);
		fb_buf_release(&text);
		return NULL;
	}
	fclose(fp);
	bn = fb_bif_read_buffer(text.data != NULL ? text.data : "", text.len, path, err);
	fb_buf_release(&text);
	return bn;
}
