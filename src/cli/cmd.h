/* The shell's commands: one table feeds dispatch, help, completion and the man page. */
#ifndef FEDBN_CLI_CMD_H
#define FEDBN_CLI_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "fedbn/param.h"

struct fb_session;

/* What a handler returns. */
enum fb_cmd_ret {
	FB_CMD_OK = 0,    /* done */
	FB_CMD_ERROR = 1, /* failed; the session is as it was, the message was printed */
	FB_CMD_QUIT = 2,  /* leave the shell */
};

/* What the positional words of a command are, for completion. */
enum fb_cmd_complete {
	FB_COMPLETE_NONE = 0, /* nothing to offer */
	FB_COMPLETE_FILE,     /* file names */
	FB_COMPLETE_COMMAND,  /* command names, then after 'algo' algorithm names (help) */
	FB_COMPLETE_ALGO,     /* algorithm names, "combinator:learner" included (algo) */
	FB_COMPLETE_SETTINGS, /* the current algorithm's parameters and the run options (set) */
	FB_COMPLETE_VARIABLE, /* the dataset's variable names (classify) */
	FB_COMPLETE_QUERY,    /* p( and mpe, then NAME= of the dataset's variables (query) */
	FB_COMPLETE_KNOWLEDGE, /* variable names, "A->" before the second; files after load
	                          and save (knowledge) */
};

/* What a command needs of the session before its handler runs (an entry's needs, a mask):
 * checked once, in fb_cmd_exec, each with one sentence. */
enum fb_cmd_needs {
	FB_NEEDS_DATA = 1 << 0,  /* a dataset (load, gen or sample made one) */
	FB_NEEDS_SPLIT = 1 << 1, /* a split into clients */
	FB_NEEDS_RUN = 1 << 2,   /* at least one run */
	FB_NEEDS_TRUTH = 1 << 3, /* a true graph (gen, or truth load) */
};

/* Where a command runs: the session and the streams, plus the source position for messages. */
typedef struct fb_cmd_ctx {
	struct fb_session *s; /* the session commands act on */
	FILE *out;            /* results */
	FILE *err;            /* errors and warnings */
	const char *where;    /* "script.fbn:3" in batch mode, NULL at the prompt */
	const char *cmd;      /* the command running (fb_cmd_error's messages begin with its
	                         name), NULL between commands */
	int depth;            /* nesting of 'source' */
	bool interactive;     /* standard input and output are a terminal */
	bool bail;            /* stop at the first failing command */
} fb_cmd_ctx;

/* A parsed invocation: positional words and the checked key=value parameters. */
typedef struct fb_cmd_args {
	int argc;          /* positional words (not counting the command) */
	char **argv;       /* the words */
	fb_params params;  /* parameters, defaults filled in from the command's table */
} fb_cmd_args;

/* One command. */
typedef struct fb_cmd_entry {
	const char *name;                 /* full name */
	const char *alias;                /* another name, or NULL */
	const char *usage;                /* positional words, e.g. "FILE [VALID]", and any key=
	                                     the words need spelt out ("out=FILE.md"); the rest
	                                     of the usage line comes from params (fb_cmd_usage) */
	const char *summary;              /* one line */
	const char *help;                 /* a paragraph for 'help NAME' and the man page */
	int min_args, max_args;           /* positional word counts (max -1: any) */
	const fb_choice *words;           /* first positional word's named values (each >= 0), or
	                                     NULL */
	enum fb_cmd_complete complete;    /* what other positional words are */
	const fb_choice *offers;          /* first positional words completion offers beside
	                                     complete's (plot's trace), or NULL; any word is
	                                     still accepted */
	const fb_param_def *params;       /* key=value table (NULL-name terminated) or NULL */
	unsigned needs;                   /* what the session must hold first (FB_NEEDS_*) */
	bool free_params;                 /* key=value words whose key is not in params are
	                                     positional words (sweep's grid variables) */
	int (*exec)(fb_cmd_ctx *ctx, fb_cmd_args *args); /* the handler */
	bool unrecorded;                  /* left out of history and session save: it reads or
	                                     writes the history, or the commands it runs are
	                                     recorded one by one (source, demo) */
} fb_cmd_entry;

/* The names of format= (truth save, export): the graph file formats written, valued by
 * enum fb_graph_format (fedbn/graphfmt.h). */
extern const fb_choice fb_cmd_formats[];

/* All commands, NULL-terminated, in the order help lists them. */
extern const fb_cmd_entry *const fb_cmd_table[];

/* Each command's entry (defined in cmd-*.c). */
extern const fb_cmd_entry fb_cmd_help, fb_cmd_quit, fb_cmd_echo, fb_cmd_seed, fb_cmd_source;
extern const fb_cmd_entry fb_cmd_load, fb_cmd_save, fb_cmd_info, fb_cmd_head, fb_cmd_gen;
extern const fb_cmd_entry fb_cmd_sample, fb_cmd_fit, fb_cmd_bootstrap;
extern const fb_cmd_entry fb_cmd_split, fb_cmd_clients, fb_cmd_truth, fb_cmd_export;
extern const fb_cmd_entry fb_cmd_graph, fb_cmd_knowledge;
extern const fb_cmd_entry fb_cmd_demo, fb_cmd_algos, fb_cmd_algo, fb_cmd_set, fb_cmd_params;
extern const fb_cmd_entry fb_cmd_run, fb_cmd_step, fb_cmd_watch, fb_cmd_result, fb_cmd_compare;
extern const fb_cmd_entry fb_cmd_query, fb_cmd_classify, fb_cmd_circuit;
extern const fb_cmd_entry fb_cmd_sweep, fb_cmd_plot, fb_cmd_ledger;

/* export FILE what=circuit: draw the circuit of the run p's run= names into path, with p's
 * depth=, title=, caption=, paths=, width= and dpi=; the command's status after printing. */
int fb_cmd_export_circuit(fb_cmd_ctx *ctx, const fb_params *p, const char *path);
extern const fb_cmd_entry fb_cmd_history, fb_cmd_session, fb_cmd_report;

/* Whether path names a fitted network's file (.bif or .xmlbif), which export writes. */
bool fb_cmd_fit_file(const char *path);
/* export FILE.bif | FILE.xmlbif: write the session's fitted network to path (p's force=);
 * the command's status after printing. */
int fb_cmd_fit_export(fb_cmd_ctx *ctx, const fb_params *p, const char *path);

struct fb_run;
/* The run numbered n (from 1), or the newest for n = 0; NULL after printing the error. */
struct fb_run *fb_cmd_pick_run(fb_cmd_ctx *ctx, int64_t n);
/* The number (from 1) of run in session s, 0 when it is not there. */
size_t fb_cmd_run_number(const struct fb_session *s, const struct fb_run *run);
/* A picture's caption for run of s: the run's algorithm, parameters and round, its data
 * (files named as how, an enum fb_report_paths, says) and split (caller frees). */
char *fb_cmd_run_caption(const struct fb_session *s, const struct fb_run *run, int how);

/* Print an error, "where: error: cmd: message" (where when ctx->where is set, cmd the name of
 * the command running, ctx->cmd, when set), and return FB_CMD_ERROR. */
int fb_cmd_error(fb_cmd_ctx *ctx, const char *fmt, ...) FB_PRINTF(2, 3);
/* fb_cmd_error without the command's name: for a message that names its own subject (a
 * file the library could not read, a run's round, a command the parser checked). */
int fb_cmd_error_plain(fb_cmd_ctx *ctx, const char *fmt, ...) FB_PRINTF(2, 3);
/* FB_CMD_OK when the session holds everything needs (FB_NEEDS_*) asks for; else the error
 * sentence of the first thing missing, printed as fb_cmd_error does. */
int fb_cmd_need(fb_cmd_ctx *ctx, unsigned needs);

/* Print a warning. */
void fb_cmd_warn(fb_cmd_ctx *ctx, const char *fmt, ...) FB_PRINTF(2, 3);
/* name (a variable name or a level label, which files supply) with its control characters
 * written as \xHH: the one way every command prints such text.  The result is name itself
 * or lives until eight more calls; use it at once. */
const char *fb_cmd_name(const char *name);
/* An fb_warn that prints through fb_cmd_warn. */
fb_warn fb_cmd_warner(fb_cmd_ctx *ctx);

/* Find a command by name, alias or unique prefix; NULL with a message in err (ambiguous,
 * unknown with the nearest suggestion). */
const fb_cmd_entry *fb_cmd_find(const char *name, fb_error *err);

/* The value of w among e's first-word choices (e->words), or -1. */
int fb_cmd_word_value(const fb_cmd_entry *e, const char *w);

/* Split a line into commands and words.  Commands are separated by ';', words by blanks;
 * "..." and '...' quote, backslash escapes inside "..." and outside quotes, and inside "..."
 * \xHH is the byte HH (not 00: how a saved session writes control characters); '#' at the
 * start of a word begins a comment.  Returns the number of commands; each cmds[c] is a
 * NULL-terminated word array.  FB_ERR (-1) with err naming the column on a bad line. */
int fb_cmd_split_line(const char *line, char ****cmds, fb_error *err);
/* Free what fb_cmd_split_line returned. */
void fb_cmd_free_split(char ***cmds, int n);

/* Run every command of one line; returns the worst status (QUIT wins). */
int fb_cmd_run_line(fb_cmd_ctx *ctx, const char *line);
/* Run one command given as words. */
int fb_cmd_run_words(fb_cmd_ctx *ctx, char **words);
/* Find the command of words (the command name first) and check its arguments against its
 * entry without running it: the entry, or NULL after printing the error.  Either way a is
 * filled in, to be freed with fb_cmd_args_release. */
const fb_cmd_entry *fb_cmd_parse_words(fb_cmd_ctx *ctx, char **words, fb_cmd_args *a);
/* Free what fb_cmd_parse_words filled in. */
void fb_cmd_args_release(fb_cmd_args *a);
/* Run e's handler on a parsed a: what e needs checked first, its errors under its name. */
int fb_cmd_exec(fb_cmd_ctx *ctx, const fb_cmd_entry *e, fb_cmd_args *a);

/* Run every line of a script file (for 'source' and -f); the worst status. */
int fb_cmd_run_file(fb_cmd_ctx *ctx, const char *path);
/* Run every line read from fp, naming positions as "name:LINE". */
int fb_cmd_run_stream(fb_cmd_ctx *ctx, FILE *fp, const char *name);

/* Completion candidates for the word text that starts at offset start of line (the line
 * before the cursor), in session s (may be NULL: no algorithm chosen); NULL-terminated,
 * caller frees each and the array.  *files is set when file names should be offered as
 * well. */
char **fb_cmd_complete(const struct fb_session *s, const char *line, size_t start,
                       const char *text, bool *files);

/* The width help is wrapped to on out: the terminal's when out is one, else $COLUMNS, else
 * 80; less a margin of 2 (at least 20). */
size_t fb_cmd_width(FILE *out);
/* Print text word-wrapped at width columns, then a new line; the first line starts at
 * column indent (its beginning already printed), the others are indented to it. */
void fb_cmd_print_wrapped(FILE *out, const char *text, size_t width, size_t indent);
/* The width of a column of names that is width so far, after a name of len characters:
 * widened to len when len is at most FB_CMD_NAME_MOST; a longer name goes on a line of its
 * own above its row, so that it does not push the row's other columns out of line. */
#define FB_CMD_NAME_MOST 24
int fb_cmd_name_column(size_t len, int width);
/* Print "parameters:" and one wrapped line per parameter, names in a column of namew (wider
 * when a name is longer, see fb_cmd_name_column). */
void fb_cmd_print_params(FILE *out, const fb_param_def *defs, int namew, size_t width);
/* Print the command list (help with no argument). */
void fb_cmd_print_list(FILE *out);
/* The whole usage line of e (without its name) into buf (len bytes): e->usage, then the
 * parameters it does not name, each as "[key=N]" (N, X, yes, a|b, VALUE by type) when at
 * most two, else "[key=value ...]"; returns buf. */
const char *fb_cmd_usage(const fb_cmd_entry *e, char *buf, size_t len);
/* Print one command's help. */
void fb_cmd_print_help(FILE *out, const fb_cmd_entry *e);
/* Print the man page's COMMANDS section (mdoc) generated from the table. */
void fb_cmd_print_man(FILE *out);
/* Print the man page's ALGORITHMS section (mdoc) generated from the algorithm table. */
void fb_cmd_print_man_algos(FILE *out);

#endif
