/* Error sentences, warnings and the GSL error handler. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "fedbn/core.h"

/* The last GSL error seen by this thread. */
static _Thread_local char gsl_last[FB_ERROR_MAX];

/* Record a formatted error in err and return FB_ERR. */
int fb_failv(fb_error *err, const char *fmt, va_list ap)
{
	if (err != NULL)
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return FB_ERR;
}

/* Record a formatted error in err and return FB_ERR. */
int fb_fail(fb_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fb_failv(err, fmt, ap);
	va_end(ap);
	return FB_ERR;
}

/* Whether the caller asks the running call to stop. */
bool fb_cancel_requested(const fb_cancel *c)
{
	return c != NULL && c->fn != NULL && c->fn(c->ctx);
}

/* Clear err. */
void fb_error_clear(fb_error *err)
{
	if (err != NULL)
		err->msg[0] = '\0';
}

/* Send a formatted warning to w. */
void fb_warnf(const fb_warn *w, const char *fmt, ...)
{
	char msg[FB_ERROR_MAX];
	va_list ap;

	if (w == NULL || w->fn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	w->fn(w->ctx, msg);
}

/* GSL error handler: remember the reason, never abort. */
static void gsl_record(const char *reason, const char *file, int line, int gsl_errno)
{
	snprintf(gsl_last, sizeof gsl_last, "%s (gsl: %s)", reason, gsl_strerror(gsl_errno));
}

/* Install the recording GSL error handler. */
void fb_gsl_install_handler(void)
{
	gsl_set_error_handler(gsl_record);
}

/* The last GSL error of this thread, cleared on reading. */
const char *fb_gsl_last_error(void)
{
	static _Thread_local char out[FB_ERROR_MAX];

	memcpy(out, gsl_last, sizeof out);
	gsl_last[0] = '\0';
	return out;
}
