/* Child processes that end with the process that made them: a drawing, a plot or a sweep's
 * cell must not keep running after fedbn was killed. */
#include "config.h"

#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "fedbn/core.h"

/* In a child just forked from parent: have the kernel send SIGKILL when the parent ends, and
 * leave at once when it already ended between the fork and this call. */
void fb_child_tie(pid_t parent)
{
#ifdef PR_SET_PDEATHSIG
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	if (getppid() != parent)
		_exit(137);
}
