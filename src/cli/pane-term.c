/* The pane's hold on the terminal.  One curses screen is made on the first visit and kept:
 * each visit resumes it and each leave ends it with endwin, which gives readline back the
 * terminal exactly as it was.  The size always comes from the terminal itself (never from the
 * terminal description's 24 lines, nor from LINES and COLUMNS), and every way out, the
 * emergency one included, sets the scroll region back to the whole screen, so that the shell
 * scrolls every row after the pane.  For the length of a visit the pane owns SIGINT, SIGTERM,
 * SIGHUP, SIGWINCH and SIGTSTP; their handlers set flags (the loop reads them between rounds)
 * and the shell's handlers are put back on leaving.  A third Ctrl-C (or a second SIGTERM)
 * that the loop has not seen, because a round is taking long, restores the terminal with
 * async-signal-safe calls and ends the program. */
#include "config.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <term.h>

#include "pane-int.h"

/* The signals a visit catches. */
static const int pane_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP };
/* How many. */
#define PANE_NSIG (sizeof pane_signals / sizeof *pane_signals)

/* Set by the handlers, read by the loop. */
static volatile sig_atomic_t sig_ints;  /* Ctrl-C presses during the visit */
static volatile sig_atomic_t sig_seen;  /* of those, how many the loop has handled */
static volatile sig_atomic_t sig_end;   /* SIGTERM or SIGHUP arrived (the signal) */
static volatile sig_atomic_t sig_winch; /* the terminal was resized */
static volatile sig_atomic_t sig_tstp;  /* Ctrl-Z */

/* The terminal layer's state. */
static struct {
	SCREEN *screen;              /* the curses screen, kept between visits */
	bool open;                   /* a visit holds the terminal */
	struct termios shell_tio;    /* the terminal as the shell left it */
	char restore[256];           /* bytes that end curses' modes (for the emergency exit) */
	size_t nrestore;             /* how many */
	char region[64];             /* bytes that set the scroll region to the whole screen at
	                                its last known size (for the emergency exit) */
	size_t nregion;              /* how many */
	char locale[64];             /* LC_CTYPE before the visit */
	struct sigaction saved[PANE_NSIG]; /* the handlers before the visit */
	int ending;                  /* SIGTERM or SIGHUP to raise after the close, or 0 */
} term;

/* Put the terminal back with async-signal-safe calls only, then end the program. */
static void pane_term_emergency(int status)
{
	static const char msg[] = "\nfedbn: interrupted while a round ran, leaving\n";
	ssize_t w = write(STDOUT_FILENO, term.region, term.nregion);

	w = write(STDOUT_FILENO, term.restore, term.nrestore);

	tcsetattr(STDIN_FILENO, TCSAFLUSH, &term.shell_tio);
	w = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)w;
	_exit(status);
}

/* Call the handler the shell had for sig, when it had one. */
static void pane_term_chain(int sig)
{
	for (size_t i = 0; i < PANE_NSIG; i++) {
		void (*h)(int) = term.saved[i].sa_handler;

		if (pane_signals[i] == sig && !(term.saved[i].sa_flags & SA_SIGINFO) &&
		    h != SIG_DFL && h != SIG_IGN)
			h(sig);
	}
}

/* Every signal of a visit: set a flag, nothing more (but see pane_term_emergency). */
static void pane_term_on_signal(int sig)
{
	switch (sig) {
	case SIGINT:
		sig_ints = sig_ints + 1;
		if (sig_ints - sig_seen >= 3)
			pane_term_emergency(130);
		break;
	case SIGTERM:
	case SIGHUP:
		if (sig_end != 0)
			pane_term_emergency(128 + sig);
		sig_end = sig;
		break;
	case SIGWINCH:
		sig_winch = 1;
		pane_term_chain(sig); /* the shell learns the new size too */
		break;
	case SIGTSTP:
		sig_tstp = 1;
		break;
	}
}

/* Catch the visit's signals, keeping the shell's handlers. */
static void pane_term_catch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = pane_term_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PANE_NSIG; i++)
		sigaddset(&sa.sa_mask, pane_signals[i]);
	sig_ints = sig_seen = sig_end = sig_winch = sig_tstp = 0;
	for (size_t i = 0; i < PANE_NSIG; i++)
		sigaction(pane_signals[i], &sa, &term.saved[i]);
}

/* Put the shell's handlers back. */
static void pane_term_uncatch(void)
{
	for (size_t i = 0; i < PANE_NSIG; i++)
		sigaction(pane_signals[i], &term.saved[i], NULL);
}

/* Append the capability string s (without padding) to buf, which holds *n of len bytes. */
static void pane_term_bytes_add(char *buf, size_t *n, size_t len, const char *s)
{
	if (s == NULL || s == (char *)-1)
		return;
	for (; *s != '\0' && *n < len; s++) {
		if (s[0] == '$' && s[1] == '<') { /* padding such as $<5> */
			while (*s != '\0' && *s != '>')
				s++;
			if (*s == '\0')
				break;
			continue;
		}
		buf[(*n)++] = *s;
	}
}

/* Append the terminfo capability cap to the emergency bytes. */
static void pane_term_restore_add(const char *cap)
{
	pane_term_bytes_add(term.restore, &term.nrestore, sizeof term.restore, tigetstr(cap));
}

/* The terminal's real size from the tty; false when it cannot say. */
static bool pane_term_tty_size(int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return false;
	*rows = ws.ws_row;
	*cols = ws.ws_col;
	return true;
}

/* Make the bytes that set the scroll region to all rows rows (cursor kept where it is). */
static void pane_term_region_make(int rows)
{
	char *csr = tigetstr("csr");

	term.nregion = 0;
	if (csr == NULL || csr == (char *)-1 || rows <= 0)
		return;
	pane_term_bytes_add(term.region, &term.nregion, sizeof term.region, tigetstr("sc"));
	pane_term_bytes_add(term.region, &term.nregion, sizeof term.region,
	                    tiparm(csr, 0, rows - 1));
	pane_term_bytes_add(term.region, &term.nregion, sizeof term.region, tigetstr("rc"));
}

/* Set the scroll region to the whole screen at its real size, before curses gives the
 * terminal back (a region left from another size would keep the shell in part of it). */
static void pane_term_region_reset(void)
{
	int rows, cols;

	if (pane_term_tty_size(&rows, &cols))
		pane_term_region_make(rows);
	if (term.nregion == 0)
		return;
	fflush(stdout);
	fwrite(term.region, 1, term.nregion, stdout);
	fflush(stdout);
}

/* At exit (out of memory calls exit) while a visit holds the terminal: give it back. */
static void pane_term_at_exit(void)
{
	if (term.open) {
		endwin();
		pane_term_region_reset();
		fflush(stdout);
		term.open = false;
	}
}

/* Make the kept screen on the first visit; FB_ERR when the terminal cannot be driven. */
static int pane_term_first(fb_error *err)
{
	const char *type = getenv("TERM");

	if (type == NULL || *type == '\0')
		return fb_fail(err, "TERM is not set");
	use_env(FALSE); /* never from LINES and COLUMNS, which readline exports and does not
	                   update while the pane runs; */
	use_tioctl(TRUE); /* from the tty itself, not the terminal description's lines */
	term.screen = newterm(NULL, stdout, stdin);
	if (term.screen == NULL)
		return fb_fail(err, "cannot drive the terminal '%s' full-screen", type);
	atexit(pane_term_at_exit);
	term.nrestore = 0;
	pane_term_restore_add("sgr0");
	pane_term_restore_add("cnorm");
	pane_term_restore_add("rmkx");
	pane_term_restore_add("rmcup");
	return FB_OK;
}

/* Tell curses the terminal's size when it changed. */
static void pane_term_size(void)
{
	int rows, cols;

	if (pane_term_tty_size(&rows, &cols)) {
		if (rows != LINES || cols != COLS)
			resizeterm(rows, cols);
		pane_term_region_make(rows);
	}
	clearok(curscr, TRUE);
}

/* Take the terminal over. */
int pane_term_open(pane *p, fb_error *err)
{
	const char *loc = setlocale(LC_CTYPE, NULL);

	fflush(stdout);
	fflush(stderr);
	snprintf(term.locale, sizeof term.locale, "%s", loc != NULL ? loc : "C");
	setlocale(LC_CTYPE, "");
	p->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	tcgetattr(STDIN_FILENO, &term.shell_tio);
	pane_term_catch();
	if (term.screen == NULL && pane_term_first(err) != FB_OK) {
		pane_term_uncatch();
		setlocale(LC_CTYPE, term.locale);
		return FB_ERR;
	}
	set_term(term.screen);
	term.open = true;
	term.ending = 0;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	leaveok(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	pane_term_size();
	pane_color_init(p);
	return FB_OK;
}

/* Give the terminal back. */
void pane_term_close(void)
{
	if (!term.open)
		return;
	curs_set(1);
	endwin();
	pane_term_region_reset();
	term.ending = sig_end;
	pane_term_uncatch();
	setlocale(LC_CTYPE, term.locale);
	term.open = false;
}

/* Stop the program on Ctrl-Z with the terminal given back; redraw when it continues. */
static void pane_term_suspend(pane *p)
{
	struct sigaction dfl, mine;

	endwin();
	pane_term_region_reset();
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, &mine);
	raise(SIGTSTP);
	sigaction(SIGTSTP, &mine, NULL);
	pane_term_size();
	p->dirty = true;
}

/* Look at the signals since the last call. */
void pane_term_signals(pane *p)
{
	char why[120];

	if (sig_winch) {
		sig_winch = 0;
		pane_term_size();
		p->dirty = true;
	}
	while (sig_seen < sig_ints) {
		sig_seen = sig_seen + 1;
		if (p->running) {
			snprintf(why, sizeof why, "stopped after round %zu (Ctrl-C): n, r or a count go "
			         "on; Ctrl-C or q leaves", fb_run_rounds(p->run));
			pane_batch_stop(p, why);
			p->out->interrupted = true;
		} else {
			p->leave = true;
		}
	}
	if (sig_end != 0) {
		pane_batch_stop(p, NULL);
		p->leave = true;
	}
	if (sig_tstp) {
		sig_tstp = 0;
		pane_term_suspend(p);
	}
}

/* Whether SIGTERM or SIGHUP asked the program to end. */
bool pane_term_ending(void)
{
	return term.ending != 0;
}

/* Raise the ending signal again with the shell's handler in place. */
void pane_term_reraise(void)
{
	int sig = term.ending;

	term.ending = 0;
	if (sig != 0)
		raise(sig);
}

/* Free the kept screen. */
void pane_term_release(void)
{
	if (term.screen == NULL)
		return;
	pane_term_close();
	delscreen(term.screen);
	term.screen = NULL;
}
