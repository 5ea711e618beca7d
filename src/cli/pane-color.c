/* Colours of the pane.  Every role also has a monochrome form (bold, underline, reverse, dim),
 * used when the terminal has no colours or NO_COLOR is set, so that nothing depends on colour
 * alone: the graph view's marks and shades carry the same meaning. */
#include "config.h"

#include <stdlib.h>

#include "pane-int.h"

/* The first pair of the heat map (negative levels, then positive ones). */
#define HEAT_PAIR ROLE_NROLES

/* One role: its colours and its attributes with and without colour. */
typedef struct role_style {
	short fg, bg;   /* colours (-1: the terminal's default) */
	attr_t colour;  /* attributes added to the pair */
	attr_t mono;    /* attributes without colour */
} role_style;

/* The roles, in enum pane_role order. */
static const role_style role_styles[ROLE_NROLES] = {
	[ROLE_TEXT] = { -1, -1, 0, 0 },
	[ROLE_TITLE] = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[ROLE_BAR] = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE },
	[ROLE_KEY] = { COLOR_YELLOW, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD },
	[ROLE_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[ROLE_GOOD] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[ROLE_BAD] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[ROLE_MISS] = { COLOR_YELLOW, -1, A_BOLD, A_UNDERLINE },
	[ROLE_AXIS] = { COLOR_CYAN, -1, 0, 0 },
	[ROLE_PLOT] = { COLOR_GREEN, -1, 0, 0 },
	[ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
	[ROLE_CURSOR] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE },
};

/* Heat backgrounds with 256 colours: light to dark, negative (blue) then positive
 * (magenta: red and green belong to the graph view's marks). */
static const short heat256[2][PANE_HEAT_LEVELS] = {
	{ 153, 111, 69, 26 },
	{ 225, 219, 213, 164 },
};

/* Whether the user asked for no colour (NO_COLOR set and not empty). */
static bool pane_no_color(void)
{
	const char *s = getenv("NO_COLOR");

	return s != NULL && *s != '\0';
}

/* Define the heat pairs for the terminal's colour count. */
static void pane_color_heat(void)
{
	for (int side = 0; side < 2; side++) {
		for (int l = 0; l < PANE_HEAT_LEVELS; l++) {
			short bg = COLORS >= 256 ? heat256[side][l] : side ? COLOR_MAGENTA : COLOR_BLUE;
			short fg = COLORS >= 256 && l < 2 ? COLOR_BLACK : COLOR_WHITE;

			init_pair((short)(HEAT_PAIR + side * PANE_HEAT_LEVELS + l), fg, bg);
		}
	}
}

/* Set up colours. */
void pane_color_init(pane *p)
{
	static bool started;

	p->colour = false;
	if (pane_no_color() || !has_colors())
		return;
	if (!started) {
		if (start_color() == ERR)
			return;
		bool dflt = use_default_colors() == OK;

		for (int r = 1; r < ROLE_NROLES; r++) {
			short fg = role_styles[r].fg, bg = role_styles[r].bg;

			init_pair((short)r, fg < 0 && !dflt ? COLOR_WHITE : fg,
			          bg < 0 && !dflt ? COLOR_BLACK : bg);
		}
		pane_color_heat();
		started = true;
	}
	p->colour = COLOR_PAIRS > HEAT_PAIR + 2 * PANE_HEAT_LEVELS;
}

/* The attributes of a role. */
attr_t pane_attr(const pane *p, enum pane_role role)
{
	if (!p->colour)
		return role_styles[role].mono;
	if (role == ROLE_TEXT)
		return 0;
	return COLOR_PAIR(role) | role_styles[role].colour;
}

/* The attributes of a heat cell. */
attr_t pane_heat_attr(const pane *p, int level, bool negative)
{
	if (level < 1)
		return pane_attr(p, ROLE_DIM);
	if (level > PANE_HEAT_LEVELS)
		level = PANE_HEAT_LEVELS;
	if (!p->colour)
		return level == PANE_HEAT_LEVELS ? A_BOLD : 0;
	return COLOR_PAIR(HEAT_PAIR + (negative ? 0 : PANE_HEAT_LEVELS) + level - 1);
}
