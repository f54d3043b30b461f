// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workdir lock: one robot per workdir, and what a killed robot left
 * running there stopped before anything starts.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "robot.h"
#include "proc.h"
#include "workdir.h"

struct workdir_lock {
	int fd;
	char *path;
};

int workdir_lock_take(struct workdir_lock **out, const char *workdir,
		      const char *what)
{
	struct workdir_lock *lk;
	char info[256];
	int fd, n;
	char *path;

	*out = NULL;
	if (rb_mkdir_p(workdir) < 0)
		return -1;
	path = rb_path_join(workdir, "lock");
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rb_error("cannot open '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = (int)pread(fd, info, sizeof(info) - 1, 0);
		info[n > 0 ? n : 0] = '\0';
		if (n > 0 && info[n - 1] == '\n')
			info[n - 1] = '\0';
		rb_error("workdir '%s' is in use by another robot (%s); "
			 "wait for it to finish or use another workdir",
			 workdir, n > 0 ? info : "unknown process");
		close(fd);
		free(path);
		return -1;
	}
	n = snprintf(info, sizeof(info), "pid %ld: %s\n", (long)getpid(), what);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, info, (size_t)n, 0) != n) {
		/* the lock holds even when its note cannot be written */
	}
	/* what a killed robot left running on this workdir goes first */
	{
		unsigned stopped;

		proc_reap_workdir(workdir, &stopped);
		if (stopped)
			rb_notice("stopped %u process%s that an interrupted "
				  "robot left running on '%s'",
				  stopped, stopped == 1 ? "" : "es", workdir);
	}
	lk = xmalloc(sizeof(*lk));
	lk->fd = fd;
	lk->path = path;
	*out = lk;
	return 0;
}

void workdir_lock_release(struct workdir_lock *lk)
{
	if (!lk)
		return;
	close(lk->fd);
	free(lk->path);
	free(lk);
}

bool workdir_in_use(const char *workdir)
{
	char *path = rb_path_join(workdir, "lock");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool busy = false;

	free(path);
	if (fd < 0)
		return false;
	/* a shared lock is refused while a robot holds the exclusive one */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0)
		busy = errno == EWOULDBLOCK;
	close(fd);
	return busy;
}
