/* The detail view of federated circuits: the clients x variables indicator matrix, each cell
 * a client holds marked with its variable's subspace letter, a legend of the subspaces, the
 * circuit's growth over the rounds, and each client's circuits. */
#include "config.h"

#include <stdio.h>

#include "fedbn/fedcircuit.h"
#include "pane-int.h"

/* The letter of subspace l. */
static char fc_letter(size_t l)
{
	return l < 26 ? (char)('A' + l) : l < 52 ? (char)('a' + l - 26) : '*';
}

/* The matrix at rows y.., at most h rows, one column per variable that fits; rows used. */
static int fc_matrix(const pane *p, const fb_fc_subspaces *s, int y, int h, int w)
{
	size_t fit = w > 12 ? (size_t)(w - 12) : 1, shown = s->d < fit ? s->d : fit;
	char line[1024];
	int row;

	snprintf(line, sizeof line, "clients x variables (%zu x %zu): a letter where the client "
	         "holds the variable, naming its subspace%s", s->k, s->d,
	         shown < s->d ? " (first variables)" : "");
	row = pane_text(p, line, 0, y, 2, 1, w - 2, ROLE_TITLE);
	row = y + (row < 2 ? row : 2);
	shown = shown < sizeof line - 1 ? shown : sizeof line - 1;
	for (size_t c = 0; c < s->k && row < y + h; c++, row++) {
		for (size_t j = 0; j < shown; j++)
			line[j] = s->m[c * s->d + j] ? fc_letter(s->of[j]) : '.';
		line[shown] = '\0';
		pane_putf(p, row, 1, 9, ROLE_TEXT, "%7zu  ", c + 1);
		pane_put(p, row, 10, w - 11, ROLE_TEXT, line);
	}
	return row - y;
}

/* One line of legend per subspace at rows y.., at most h; rows used. */
static int fc_legend(const pane *p, const fb_fc_subspaces *s, int y, int h, int w)
{
	int row = y;

	for (size_t l = 0; l < s->n && row < y + h; l++, row++)
		pane_putf(p, row, 1, w - 2, s->nowners[l] > 1 ? ROLE_GOOD : ROLE_TEXT,
		          "  %c  %zu variable%s held by %zu client%s: %s", fc_letter(l), s->nvars[l],
		          s->nvars[l] == 1 ? "" : "s", s->nowners[l], s->nowners[l] == 1 ? "" : "s",
		          s->nowners[l] > 1 ? "shared, a server sum over the owners' circuits"
		                            : "private, one circuit per cluster");
	return row - y;
}

/* fedcircuit and fedcircuit-em: matrix, legend, the rounds' figures, the clients. */
void pane_detail_fedcircuit(pane *p, int top, int h, int w)
{
	static const char *const names[] = { "phase", "subspaces", "circuits", "nodes",
		                             "train_ll", NULL };
	static const char *const heads[] = { "phase", "subspaces", "circuits", "nodes",
		                             "train LL" };
	const fb_fc *fc = fb_fc_of_run(p->run);
	const fb_fc_subspaces *s = fc != NULL ? fb_fc_subspaces_of(fc) : NULL;
	int used = 0;

	if (s == NULL) {
		pane_put(p, top, 1, w - 2, ROLE_DIM, "the clients x variables matrix comes with "
		         "round 1 (phases: 1 matrix, 2 learning, 3 assembly, 4 EM)");
		used = 2;
	} else {
		used = fc_matrix(p, s, top, h / 3 > 3 ? h / 3 : 3, w);
		used += fc_legend(p, s, top + used, 6, w) + 1;
	}
	used += pane_detail_figures(p, top + used, 3, w - 1, names, heads) + 1;
	if (p->run->fed != NULL && used < h - 2)
		pane_detail_clients(p, top + used, h - used, w, "circuits learned");
}
