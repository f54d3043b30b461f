// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lab execution: build, boot and payload runs, each recorded in the store
 * before anyone acts on it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "build-gate.h"
#include "bisect.h"
#include "job.h"
#include "lab.h"
#include "monitor.h"
#include "payload.h"
#include "proc.h"
#include "repo.h"
#include "runner.h"
#include "sbuf.h"
#include "svec.h"
#include "transport.h"

/* Written when the build hook said 125: this commit cannot be built. */
#define ARTIFACT_SKIP ".robot-skip"
/* an artifact built ahead that no box has used yet */
#define ARTIFACT_AHEAD ".robot-ahead"

/* Caps for what we keep in memory of a child's output. */
#define HELP_MAX (1 << 20)
#define CMD_OUT_MAX (64 << 10)

const char *step_outcome_name(enum step_outcome o)
{
	switch (o) {
	case STEP_OK:
		return "ok";
	case STEP_SKIP:
		return "skip";
	case STEP_INFRA:
		return "infra";
	case STEP_CANCELLED:
		return "cancelled";
	}
	return "unknown";
}

/*
 * The run script, run on the host as
 *   sh -c SCRIPT robot-run DIR GOVERNOR MONITOR_SCRIPT NAME SYSCTLS USER
 *	RUNDIR DEV FS MKFS_OPTS MOUNT_OPTS -- PAYLOAD ARGV...
 * Every job value arrives as a positional parameter, never as code. It
 * records its pid (for a remote kill), applies the cpufreq governor when the
 * host has cpufreq, prepares the box as lkp's run script does (struct
 * payload_setup: SYSCTLS one key=value a line, saved and written back at
 * the end unless another run changed them since; a filesystem made on the spare device DEV and mounted on RUNDIR,
 * the payload run there; USER to run it as), starts the monitors, runs the
 * payload under `time -v` when one is there (its output into
 * DIR/NAME.stdout and DIR/NAME.stderr), and writes the payload's exit
 * status to DIR/status. A setup the box cannot give ends it with 202 and
 * one line in DIR/setup-error; nothing ran then.
 * On SIGTERM it takes its whole process group (payload, monitors) down,
 * and puts the sysctls and the mount back.
 */
static const char run_script[] =
	"dir=$1 gov=$2 mon_script=$3 name=$4 sysctls=$5 user=$6 rundir=$7\n"
	"dev=$8 fs=$9\n"
	"shift 9\n"
	"mkfs_opts=$1 mount_opts=$2\n"
	"shift 2\n"
	"[ \"$1\" = -- ] && shift\n"
	"mkdir -p \"$dir\" || exit 200\n"
	"echo $$ >\"$dir/pid\" || exit 200\n"
	"mounted=\n"
	"restore() {\n"
	"\t# the old value back, unless another run (a host sharing this\n"
	"\t# kernel) changed it since\n"
	"\tif [ -s \"$dir/sysctl.saved\" ]; then\n"
	"\t\twhile IFS= read -r f && IFS= read -r old &&\n"
	"\t\t\tIFS= read -r new; do\n"
	"\t\t\t[ \"$(cat \"$f\" 2>/dev/null)\" = \"$new\" ] &&\n"
	"\t\t\t\tprintf '%s\\n' \"$old\" >\"$f\" 2>/dev/null\n"
	"\t\tdone <\"$dir/sysctl.saved\"\n"
	"\t\t: >\"$dir/sysctl.saved\"\n"
	"\tfi\n"
	"\tif [ -n \"$mounted\" ]; then\n"
	"\t\tcd / && umount \"$rundir\" 2>/dev/null\n"
	"\t\tmounted=\n"
	"\tfi\n"
	"}\n"
	"setup_fail() {\n"
	"\techo \"$*\" >\"$dir/setup-error\"\n"
	"\trestore\n"
	"\texit 202\n"
	"}\n"
	"set_sysctl() {\n"
	"\tf=/proc/sys/$(printf '%s' \"${1%%=*}\" | tr . /)\n"
	"\tif [ ! -w \"$f\" ]; then\n"
	"\t\t[ -n \"$2\" ] && return 0\n"
	"\t\tsetup_fail \"cannot set ${1%%=*}: $f is not writable\"\n"
	"\tfi\n"
	"\told=$(cat \"$f\")\n"
	"\tprintf '%s\\n' \"${1#*=}\" >\"$f\" ||\n"
	"\t\tsetup_fail \"cannot set $1\"\n"
	"\tprintf '%s\\n%s\\n%s\\n' \"$f\" \"$old\" \"$(cat \"$f\")\" "
	">>\"$dir/sysctl.saved\"\n"
	"}\n"
	"apply_sysctls() {\n"
	"\tset -f\n"
	"\told_ifs=$IFS\n"
	"\tIFS='\n'\n"
	"\tfor kv in $sysctls; do\n"
	"\t\tIFS=$old_ifs\n"
	"\t\tcase $kv in\n"
	"\t\t'?'*) [ \"$1\" = best ] && set_sysctl \"${kv#?}\" best ;;\n"
	"\t\t*) [ \"$1\" = test ] && set_sysctl \"$kv\" ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\tIFS=$old_ifs\n"
	"\tset +f\n"
	"}\n"
	"trap 'trap \"\" TERM HUP INT; kill -TERM 0 2>/dev/null; restore; "
	"exit 201' TERM HUP INT\n"
	"if [ -n \"$gov\" ]; then\n"
	"\tif [ -w /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor ]; "
	"then\n"
	"\t\tok=applied\n"
	"\t\tfor g in /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor; "
	"do\n"
	"\t\t\techo \"$gov\" >\"$g\" 2>/dev/null || ok=failed\n"
	"\t\tdone\n"
	"\t\techo \"$ok $gov\" >\"$dir/cpufreq\"\n"
	"\telse\n"
	"\t\techo \"unavailable $gov\" >\"$dir/cpufreq\"\n"
	"\tfi\n"
	"fi\n"
	"apply_sysctls best\n"
	"if [ -n \"$dev\" ]; then\n"
	"\t[ -b \"$dev\" ] || setup_fail \"$dev is not a block device\"\n"
	"\tawk -v d=\"$dev\" '$1 == d { f = 1 } END { exit !f }' /proc/mounts &&\n"
	"\t\tsetup_fail \"$dev is mounted: a spare disk must not be\"\n"
	"\tcommand -v \"mkfs.$fs\" >/dev/null 2>&1 ||\n"
	"\t\tsetup_fail \"mkfs.$fs is not installed\"\n"
	"\tmkfs -t \"$fs\" $mkfs_opts \"$dev\" >\"$dir/mkfs.log\" 2>&1 ||\n"
	"\t\tsetup_fail \"mkfs -t $fs $dev failed: $(tail -n 1 "
	"\"$dir/mkfs.log\")\"\n"
	"fi\n"
	"if [ -n \"$rundir\" ]; then\n"
	"\tmkdir -p \"$rundir\" || setup_fail \"cannot make $rundir\"\n"
	"fi\n"
	"if [ -n \"$dev\" ]; then\n"
	"\tif [ -n \"$mount_opts\" ]; then\n"
	"\t\tmount -t \"$fs\" -o \"$mount_opts\" \"$dev\" \"$rundir\" "
	"2>\"$dir/mount.log\"\n"
	"\telse\n"
	"\t\tmount -t \"$fs\" \"$dev\" \"$rundir\" 2>\"$dir/mount.log\"\n"
	"\tfi || setup_fail \"mount -t $fs $dev $rundir failed: $(tail -n 1 "
	"\"$dir/mount.log\")\"\n"
	"\tmounted=1\n"
	"\t[ -d \"$rundir/.\" ] || setup_fail \"cannot enter $rundir\"\n"
	"\t# only the payload runs in it: the mount must come off after\n"
	"\tset -- sh -c 'cd \"$0\" && exec \"$@\"' \"$rundir\" \"$@\"\n"
	"fi\n"
	"apply_sysctls test\n"
	"if [ -n \"$user\" ]; then\n"
	"\tid -u \"$user\" >/dev/null 2>&1 ||\n"
	"\t\tsetup_fail \"there is no user '$user' to run the test as "
	"(lkp runs it unprivileged)\"\n"
	"\thome=$( (getent passwd \"$user\" ||\n"
	"\t\tawk -F: -v u=\"$user\" '$1 == u' /etc/passwd) 2>/dev/null |\n"
	"\t\tcut -d: -f6 | head -n 1)\n"
	"\tcase $home in\n"
	"\t/home/?*) [ -d \"$home\" ] || { mkdir -p \"$home\" &&\n"
	"\t\tchown \"$user\" \"$home\"; } ;;\n"
	"\tesac\n"
	"\tchown -R \"$user\" \"$dir\" ||\n"
	"\t\tsetup_fail \"cannot give $dir to $user\"\n"
	"\t# options first, -- after the user: util-linux and busybox\n"
	"\tset -- su -s /bin/sh -c 'exec \"$0\" \"$@\"' - \"$user\" -- \"$@\"\n"
	"fi\n"
	"sh -c \"$mon_script\" monitor \"$dir/monitor\" &\n"
	"mon=$!\n"
	"if /usr/bin/time -v true >/dev/null 2>&1; then\n"
	"\tset -- /usr/bin/time -v \"$@\"\n"
	"elif busybox time -v true >/dev/null 2>&1; then\n"
	"\tset -- busybox time -v \"$@\"\n"
	"fi\n"
	"\"$@\" >\"$dir/$name.stdout\" 2>\"$dir/$name.stderr\" &\n"
	"pay=$!\n"
	"wait $pay\n"
	"rc=$?\n"
	"kill $mon 2>/dev/null\n"
	"wait $mon 2>/dev/null\n"
	"restore\n"
	"echo $rc >\"$dir/status\"\n"
	"exit 0\n";

static const char *dflt(const char *s, const char *d)
{
	return s && *s ? s : d;
}

/* Names that become path components: refuse anything that could escape. */
static int check_component(const char *what, const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, "..") || strchr(s, '/'))
		return rb_error("%s '%s' cannot be part of a path", what, s);
	return 0;
}

static char *exe_dir(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return rb_dirname(buf);
}

/*
 * A kconfig named by the job (a name, never a path: job.c checks it):
 * looked up in <lab dir>/kconfigs, then in the robot's own kconfigs/ (a
 * checkout has it beside bin/ and build/, an installation under
 * share/robot).
 */
static char *find_kconfig(const struct lab *lab, const char *name)
{
	char *dir = exe_dir(), *p;
	const char *rel[] = { "../kconfigs", "../../kconfigs",
			      "../share/robot/kconfigs" };
	size_t i;

	p = xstrfmt("%s/kconfigs/%s", lab->dir, name);
	if (rb_file_exists(p)) {
		free(dir);
		return p;
	}
	free(p);
	for (i = 0; dir && i < RB_ARRAY_SIZE(rel); i++) {
		p = xstrfmt("%s/%s/%s", dir, rel[i], name);
		if (rb_file_exists(p)) {
			char *r = rb_realpath(p);

			free(p);
			free(dir);
			return r;
		}
		free(p);
	}
	free(dir);
	return NULL;
}

int runner_init(struct runner *r, const struct lab *lab, struct store *st,
		struct rb_repo *repo, const struct job *job, int slot)
{
	struct sbuf yaml = SBUF_INIT, name = SBUF_INIT;
	char *dir = NULL, *p;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	r->lab = lab;
	r->st = st;
	r->repo = repo;
	r->job = job;
	r->slot = slot;
	r->kconfig = xstrdup(dflt(job->kconfig, "none"));
	r->compiler = xstrdup(dflt(job->compiler, "gcc"));
	r->rootfs = xstrdup(dflt(job->rootfs, "default"));
	/* job.c refuses these already; a path is too important to trust */
	if (check_component("kconfig", r->kconfig) < 0 ||
	    check_component("compiler", r->compiler) < 0 ||
	    check_component("rootfs", r->rootfs) < 0 ||
	    check_component("testcase", job->testcase) < 0 ||
	    check_component("job parameters", job->path_params) < 0)
		goto out;
	if (job->kconfig && *job->kconfig) {
		r->kconfig_path = find_kconfig(lab, job->kconfig);
		if (!r->kconfig_path) {
			rb_error(
				"kconfig '%s' not found (looked in '%s/kconfigs' "
				"and the robot's kconfigs/)",
				job->kconfig, lab->dir);
			goto out;
		}
	} else {
		r->kconfig_path = xstrdup("");
	}
	if (job_write_yaml(job, &yaml) < 0)
		goto out;
	job_name(job, &name);
	for (p = name.buf; *p; p++)
		if (*p == '/')
			*p = '-';
	dir = xstrfmt("%s/jobs", lab->workdir);
	if (rb_mkdir_p(dir) < 0)
		goto out;
	r->job_file = xstrfmt("%s/%s.yaml", dir, name.buf);
	if (rb_write_file_atomic(r->job_file, yaml.buf, yaml.len) < 0)
		goto out;
	ret = 0;
out:
	free(dir);
	sbuf_release(&yaml);
	sbuf_release(&name);
	if (ret < 0)
		runner_release(r);
	return ret;
}

void runner_release(struct runner *r)
{
	free(r->job_file);
	free(r->kconfig);
	free(r->kconfig_path);
	free(r->compiler);
	free(r->rootfs);
	free(r->help_host);
	free(r->help_text);
	memset(r, 0, sizeof(*r));
}

char *runner_artifact_dir(const struct runner *r, const char *commit)
{
	return xstrfmt("%s/artifacts/%s-%s-%s", r->lab->workdir, commit,
		       r->kconfig, r->compiler);
}

void runner_key(const struct runner *r, const char *host, const char *commit,
		struct run_key *key)
{
	key->testcase = r->job->testcase;
	key->path_params = r->job->path_params;
	key->host = host;
	key->rootfs = r->rootfs;
	key->kconfig = r->kconfig;
	key->compiler = r->compiler;
	key->commit = commit;
}

void runner_job_key(const struct job *job, const char *host, const char *commit,
		    struct run_key *key)
{
	const char *k = dflt(job->kconfig, "none"), *slash = strrchr(k, '/');

	key->testcase = job->testcase;
	key->path_params = job->path_params;
	key->host = host;
	key->rootfs = dflt(job->rootfs, "default");
	key->kconfig = slash ? slash + 1 : k;
	key->compiler = dflt(job->compiler, "gcc");
	key->commit = commit;
}

/* A log path that does not exist yet: logs/<base>.log, <base>.1.log, ... */
static char *new_log(const struct runner *r, const char *base)
{
	char *dir = xstrfmt("%s/logs", r->lab->workdir), *p;
	int i;

	if (rb_mkdir_p(dir) < 0) {
		free(dir);
		return NULL;
	}
	for (i = 0;; i++) {
		p = i ? xstrfmt("%s/%s.%d.log", dir, base, i) :
			xstrfmt("%s/%s.log", dir, base);
		if (!rb_file_exists(p))
			break;
		free(p);
	}
	free(dir);
	return p;
}

static void hook_env(const struct runner *r, struct svec *env,
		     const char *commit, const char *src, const char *build,
		     const char *artifact, const struct lab_host *host)
{
	svec_pushf(env, "ROBOT_COMMIT=%s", commit);
	svec_pushf(env, "ROBOT_SRC=%s", src ? src : "");
	svec_pushf(env, "ROBOT_BUILD_DIR=%s", build ? build : "");
	svec_pushf(env, "ROBOT_ARTIFACT_DIR=%s", artifact);
	svec_pushf(env, "ROBOT_KCONFIG=%s", r->kconfig_path);
	svec_pushf(env, "ROBOT_COMPILER=%s", r->compiler);
	svec_pushf(env, "ROBOT_HOST=%s", host ? host->name : "");
	svec_pushf(env, "ROBOT_HOST_SSH=%s",
		   host && !transport_host_is_here(host) ?
			   dflt(host->ssh, host->name) :
			   "");
	svec_pushf(env, "ROBOT_SSH_CONFIG=%s", dflt(r->lab->ssh_config, ""));
	svec_pushf(env, "ROBOT_JOB=%s", r->job_file);
	svec_pushf(env, "ROBOT_WORKDIR=%s", r->lab->workdir);
}

/*
 * The last line a failed hook wrote (ssh's "Connection refused", a
 * compiler's error), for the one line that says why; nothing when none.
 * Only the log's tail is read: a build log runs to megabytes.
 */
static void last_line(const char *log, struct sbuf *out)
{
	char buf[4096];
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	off_t size;
	ssize_t len;
	size_t end, start;

	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	len = size < 0 ? -1 :
			 pread(fd, buf, sizeof(buf) - 1,
			       RB_MAX((off_t)0, size - (off_t)sizeof(buf) + 1));
	close(fd);
	if (len <= 0)
		return;
	end = (size_t)len;
	while (end && (buf[end - 1] == '\n' || buf[end - 1] == '\r' ||
		       buf[end - 1] == ' '))
		end--;
	start = end;
	while (start && buf[start - 1] != '\n')
		start--;
	if (end > start) {
		char *line = xstrndup(buf + start, RB_MIN(end - start, 200));

		if (rb_is_clean_text(line))
			sbuf_addf(out, ": %s", line);
		free(line);
	}
}

/*
 * Run one hook by the contract. Returns -1 when it could not be started
 * at all (that is the lab's problem, reported as infra by the callers).
 */
static enum step_outcome run_hook(const char *hook, const struct svec *env,
				  const char *cwd, const char *log,
				  double timeout, int cancel_fd,
				  struct sbuf *why, int *exit_code)
{
	const char *argv[] = { hook, NULL };
	struct proc_opts o = { .argv = argv,
			       .env = (const char *const *)env->v,
			       .cwd = cwd,
			       .stdout_path = log,
			       .stderr_to_stdout = true,
			       .timeout = timeout,
			       .kill_grace = 10,
			       .cancel_fd = cancel_fd };
	struct proc_result res;
	struct sbuf d = SBUF_INIT;

	*exit_code = -1;
	if (proc_run(&o, &res) < 0) {
		sbuf_addf(why, "cannot run hook '%s': %s", hook, rb_errmsg());
		return STEP_INFRA;
	}
	if (res.exited)
		*exit_code = res.code;
	if (res.cancelled) {
		sbuf_addf(why, "hook '%s' %s", hook, proc_describe(&res, &d));
		sbuf_release(&d);
		return STEP_CANCELLED;
	}
	if (res.exited && res.code == 0 && !res.timed_out)
		return STEP_OK;
	if (res.exited && res.code == 125 && !res.timed_out) {
		sbuf_addf(why, "hook '%s' exited 125 (see %s)", hook, log);
		return STEP_SKIP;
	}
	sbuf_addf(why, "hook '%s' %s", hook, proc_describe(&res, &d));
	last_line(log, why);
	sbuf_addf(why, " (see %s)", log);
	sbuf_release(&d);
	return STEP_INFRA;
}

/* a size in bytes of the tree at path (files only; not following links) */
static uint64_t tree_bytes(const char *path)
{
	struct stat st;
	uint64_t n = 0;
	struct dirent *e;
	DIR *d;

	if (lstat(path, &st) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_blocks * 512;
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xstrfmt("%s/%s", path, e->d_name);
		n += tree_bytes(sub);
		free(sub);
	}
	closedir(d);
	return n;
}

/* artifacts most recently used that the cache limit never removes */
#define CACHE_KEEP 4

struct cached {
	char *dir;
	double used; /* the .complete marker's mtime: touched on each use */
	uint64_t bytes;
	bool ahead; /* built ahead, no box has used it yet */
	bool kept; /* among the CACHE_KEEP boxes used last */
};

/* path, opened (created) and flock'd with op; -1 with errno kept */
static int lock_path(const char *path, int op)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), err;

	if (fd >= 0 && flock(fd, op) < 0) {
		err = errno;
		close(fd);
		errno = err;
		fd = -1;
	}
	return fd;
}

/* dir + suffix locked exclusively without waiting, or -1 */
static int try_lock(const char *dir, const char *suffix)
{
	char *path = xstrfmt("%s%s", dir, suffix);
	int fd = lock_path(path, LOCK_EX | LOCK_NB);

	free(path);
	return fd;
}

int runner_artifact_hold(const struct runner *r, const char *commit)
{
	char *art = runner_artifact_dir(r, commit);
	char *path = xstrfmt("%s.use", art);
	char *top = xstrfmt("%s/artifacts", r->lab->workdir);
	int fd = -1;

	if (rb_mkdir_p(top) == 0 && (fd = lock_path(path, LOCK_SH)) < 0)
		rb_error("cannot lock '%s': %s", path, strerror(errno));
	free(art);
	free(path);
	free(top);
	return fd;
}

static int by_use(const void *a, const void *b)
{
	const struct cached *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/*
 * Keep WORKDIR/artifacts under the lab's builds.cache: the least recently
 * used complete artifacts go first (a build, or a host's reuse, touches
 * the marker), never one that is locked (being built), in use (a host
 * holds it: runner_artifact_hold), `keep` (just built) or among the
 * CACHE_KEEP that boxes used most recently (the likeliest to be wanted
 * again; builds ahead that no box used yet do not push them out).
 * Artifacts without the marker (half-written by a killed robot, or a
 * skip) count but are removed only when complete ones do not make room.
 * Only artifact directories (<commit>-<kconfig>-<compiler>) are looked at:
 * artifacts/lava/ (LAVA's initrds) is not the cache's: lava_trim_initrds.
 */
static void cache_trim(const struct runner *r, const char *keep)
{
	uint64_t limit = r->lab->builds.cache_bytes, total = 0;
	char *top = xstrfmt("%s/artifacts", r->lab->workdir);
	struct cached *v = NULL;
	size_t nr = 0, alloc = 0, i, kept;
	struct dirent *e;
	DIR *d;

	if (!limit || !(d = opendir(top))) {
		free(top);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char *dir, *marker, *ahead, hex[RB_OID_HEXSZ + 1];
		uint8_t oid[RB_OID_RAWSZ];
		struct stat st;

		/* <commit>-<kconfig>-<compiler> directories only (beside
		 * them: their .lock and .use files) */
		snprintf(hex, sizeof(hex), "%.*s", RB_OID_HEXSZ, e->d_name);
		if (rb_oid_from_hex(oid, hex) < 0 ||
		    e->d_name[RB_OID_HEXSZ] != '-')
			continue;
		dir = xstrfmt("%s/%s", top, e->d_name);
		if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(dir);
			continue;
		}
		marker = xstrfmt("%s/" ARTIFACT_COMPLETE, dir);
		ahead = xstrfmt("%s/" ARTIFACT_AHEAD, dir);
		RB_ALLOC_GROW(v, nr + 1, alloc);
		v[nr].dir = dir;
		v[nr].ahead = rb_file_exists(ahead);
		v[nr].kept = false;
		v[nr].bytes = tree_bytes(dir);
		v[nr].used = stat(marker, &st) == 0 ?
				     (double)st.st_mtim.tv_sec +
					     st.st_mtim.tv_nsec / 1e9 :
				     -1; /* no marker: first to go */
		total += v[nr].bytes;
		nr++;
		free(marker);
		free(ahead);
	}
	closedir(d);
	qsort(v, nr, sizeof(*v), by_use);
	for (i = nr, kept = 0; i > 0 && kept < CACHE_KEEP; i--)
		if (!v[i - 1].ahead && v[i - 1].used >= 0) {
			v[i - 1].kept = true;
			kept++;
		}
	for (i = 0; i < nr && total > limit; i++) {
		int fd, use;

		if (v[i].kept || !strcmp(v[i].dir, keep))
			continue;
		fd = try_lock(v[i].dir, ".lock");
		use = fd >= 0 ? try_lock(v[i].dir, ".use") : -1;
		if (use >= 0 && rb_remove_tree(v[i].dir) == 0)
			total -= RB_MIN(total, v[i].bytes);
		if (use >= 0)
			close(use);
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < nr; i++)
		free(v[i].dir);
	free(v);
	free(top);
}

/*
 * A build under way in an object dir leaves BUILDING_MARK there until its
 * hook ends with the dir whole (built, or exit 125). A robot killed
 * during the build (or a build ahead cancelled, or a hook that timed out)
 * can leave files half written that make then takes as up to date: a
 * link cut short leaves the newest file, a truncated kernel image, and
 * the next build copies it into the artifact. Found at the start of a
 * build, the mark says so: every file written since it was set (mtime at
 * or after its own) is removed first, so that make builds them again
 * (from ccache, mostly); what earlier whole builds wrote stays.
 */
#define BUILDING_MARK ".robot-building"

static bool newer_or_same(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

/* Remove what dfd (closed here) holds that is as new as since. */
static int scrub_dir(int dfd, const struct timespec *since, size_t *n)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d)) && !ret) {
		struct stat st;
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, BUILDING_MARK) ||
		    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			fd = openat(dfd, e->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
			if (fd >= 0)
				ret = scrub_dir(fd, since, n);
		} else if (newer_or_same(&st.st_mtim, since)) {
			if (unlinkat(dfd, e->d_name, 0) < 0 && errno != ENOENT)
				ret = -1;
			else
				(*n)++;
		}
	}
	closedir(d);
	return ret;
}

/*
 * Before a build in bdir: clean up after one that never ended (the mark
 * is there), then set the mark. The caller removes it when the hook ends.
 */
static int building_mark(struct runner *r, const char *bdir, const char *mark,
			 const char *commit)
{
	struct stat st;
	size_t n = 0;
	int fd;

	if (stat(mark, &st) == 0) {
		fd = open(bdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || scrub_dir(fd, &st.st_mtim, &n) < 0)
			return rb_error("cannot clean the object dir '%s' "
					"after an interrupted build: %s",
					bdir, strerror(errno));
		/* rare, and worth a line even from a quiet runner */
		rb_notice("'%s' was left by an interrupted build: %zu file%s "
			  "it wrote removed",
			  bdir, n, RB_PLURAL(n));
	}
	return rb_write_file_atomic(mark, commit, strlen(commit));
}

/*
 * Build commit, holding its artifact lock (held). ahead: a build ahead of
 * need, which takes a build slot only when one is free (1: no slot) and
 * stops when a box wants the slot (STEP_CANCELLED: nothing is kept).
 */
static int build_held(struct runner *r, const char *commit, const char *art,
		      bool ahead, unsigned rank, enum step_outcome *out,
		      struct sbuf *why)
{
	char *done = xstrfmt("%s/" ARTIFACT_COMPLETE, art);
	char *skip = xstrfmt("%s/" ARTIFACT_SKIP, art);
	char *unused = xstrfmt("%s/" ARTIFACT_AHEAD, art);
	char *src = NULL, *bdir = NULL, *log = NULL, *base = NULL;
	char *mark = NULL;
	struct build_ticket t = { .slot = -1 };
	struct svec env = SVEC_INIT;
	uint8_t oid[RB_OID_RAWSZ];
	double t0;
	int ret = -1, code = -1, wslot;

	*out = STEP_INFRA;
	if (rb_file_exists(done)) {
		/* a box's use, for the cache's least recently used rule (a
		 * build ahead that finds it there is no use: it would push
		 * the kernels boxes use out of those the cache keeps) */
		if (!ahead)
			utimensat(AT_FDCWD, done, NULL, 0);
		if (!ahead && unlink(unused) < 0 && errno != ENOENT) {
			rb_error("cannot remove '%s': %s", unused,
				 strerror(errno));
			goto out;
		}
		*out = STEP_OK;
		ret = 0;
		goto out;
	}
	if (rb_file_exists(skip)) {
		sbuf_addf(why,
			  "%s cannot be built (an earlier build exited 125)",
			  commit);
		*out = STEP_SKIP;
		ret = 0;
		goto out;
	}
	if (!r->lab->hooks.build) {
		rb_error("the lab has no hooks.build");
		goto out;
	}
	if (rb_oid_from_hex(oid, commit) < 0) {
		rb_error("not a commit id: '%s'", commit);
		goto out;
	}
	/*
	 * With build slots (a bisection), the build's worktree and object
	 * dir are its slot's: as many as builds can run at once, shared by
	 * the boxes and the builders ahead. Without (robot run, the
	 * nightly's runs), the runner's own. NEEDSWORK: the slot is taken
	 * before the checkout, so a box whose build cancels a build ahead
	 * may wait for that build's checkout (seconds on a kernel tree)
	 * before the cancel reaches its hook.
	 */
	if (r->gate && ahead && !build_gate_try(r->gate, rank, &t)) {
		ret = 1;
		goto out;
	}
	if (r->gate && !ahead)
		build_gate_enter(r->gate, &t);
	wslot = r->gate ? t.slot : r->slot;
	/* the object dir sits at the same place relative to its worktree
	 * in every slot: ccache (CCACHE_BASEDIR) then hits across slots */
	src = xstrfmt("%s/slots/%d/src", r->lab->workdir, wslot);
	bdir = xstrfmt("%s/slots/%d/build/%s-%s", r->lab->workdir, wslot,
		       r->kconfig, r->compiler);
	mark = xstrfmt("%s/" BUILDING_MARK, bdir);
	if (rb_mkdir_p(bdir) < 0 || rb_repo_checkout(r->repo, oid, src) < 0 ||
	    building_mark(r, bdir, mark, commit) < 0)
		goto out;
	base = xstrfmt("build-%.12s-%s-%s", commit, r->kconfig, r->compiler);
	log = new_log(r, base);
	if (!log)
		goto out;
	hook_env(r, &env, commit, src, bdir, art, NULL);
	svec_pushf(&env, "ROBOT_BUILD_HOST=%s", t.host ? t.host : "");
	svec_pushf(&env, "ROBOT_BUILD_HOST_DIR=%s", r->lab->builds.host_dir);
	svec_pushf(&env, "ROBOT_BUILD_AHEAD=%d", ahead);
	if (!r->quiet)
		rb_notice("building %.12s (%s, %s)%s", commit, r->kconfig,
			  r->compiler, ahead ? ", ahead" : "");
	t0 = rb_now();
	*out = run_hook(r->lab->hooks.build, &env, r->lab->workdir, log,
			(double)r->lab->hooks.build_timeout,
			ahead ? t.cancel_fd : 0, why, &code);
	/* a build a signal to the robot cut short says nothing of the
	 * commit: not recorded, as a cancelled build ahead */
	if (*out == STEP_INFRA && rb_stop_requested())
		*out = ahead ? STEP_CANCELLED : STEP_INFRA;
	if (*out == STEP_CANCELLED ||
	    (*out == STEP_INFRA && rb_stop_requested())) {
		r->counts.builds_cancelled += *out == STEP_CANCELLED;
		ret = 0;
		goto out;
	}
	/*
	 * Built, or a commit that does not build (make and the linker
	 * remove what they leave half written when they fail): the object
	 * dir is whole. After any other end (a hook that timed out, or
	 * failed otherwise) the mark stays.
	 */
	if ((*out == STEP_OK || *out == STEP_SKIP) && unlink(mark) < 0 &&
	    errno != ENOENT) {
		rb_error("cannot remove '%s': %s", mark, strerror(errno));
		goto out;
	}
	r->counts.builds++;
	r->counts.builds_ahead += ahead;
	if (*out == STEP_OK &&
	    (ahead ? rb_write_file_atomic(unused, "", 0) < 0 :
		     unlink(unused) < 0 && errno != ENOENT)) {
		rb_error("cannot mark '%s': %s", unused, strerror(errno));
		goto out;
	}
	if (*out == STEP_OK &&
	    rb_write_file_atomic(done, commit, strlen(commit)) < 0)
		goto out;
	if (*out == STEP_SKIP && rb_write_file_atomic(skip, "125\n", 4) < 0)
		goto out;
	if (store_build_add_at(r->st, commit, r->kconfig, r->compiler,
			       step_outcome_name(*out), code, t0, rb_now(), art,
			       log, ahead, t.host, NULL) < 0)
		goto out;
	ret = 0;
out:
	if (r->gate)
		build_gate_leave(r->gate, &t);
	if (ret == 0 && *out == STEP_OK)
		cache_trim(r, art);
	svec_clear(&env);
	free(done);
	free(skip);
	free(unused);
	free(src);
	free(bdir);
	free(mark);
	free(log);
	free(base);
	return ret;
}

static int build(struct runner *r, const char *commit, bool ahead,
		 unsigned rank, enum step_outcome *out, struct sbuf *why)
{
	char *art = runner_artifact_dir(r, commit);
	char *lockp = xstrfmt("%s.lock", art);
	int ret = -1, lockfd = -1;

	*out = STEP_INFRA;
	if (rb_mkdir_p(art) < 0)
		goto out;
	/* hosts that need the same commit wait for one build; a build
	 * ahead leaves a commit being built to its builder */
	lockfd = lock_path(lockp, LOCK_EX | (ahead ? LOCK_NB : 0));
	if (lockfd < 0) {
		if (ahead && errno == EWOULDBLOCK)
			ret = 2; /* another runner builds it */
		else
			rb_error("cannot lock '%s': %s", lockp,
				 strerror(errno));
		goto out;
	}
	ret = build_held(r, commit, art, ahead, rank, out, why);
out:
	if (lockfd >= 0)
		close(lockfd);
	free(art);
	free(lockp);
	return ret;
}

int runner_build(struct runner *r, const char *commit, enum step_outcome *out,
		 struct sbuf *why)
{
	return build(r, commit, false, 0, out, why);
}

int runner_build_ahead(struct runner *r, const char *commit, unsigned rank,
		       enum step_outcome *out, struct sbuf *why)
{
	return build(r, commit, true, rank, out, why);
}

int runner_boot(struct runner *r, const struct lab_host *host,
		const char *commit, int64_t *boot_id, enum step_outcome *out,
		struct sbuf *why)
{
	char *art = runner_artifact_dir(r, commit), *log = NULL, *base = NULL;
	struct svec env = SVEC_INIT;
	int ret = -1, code = 0;
	double t0 = rb_now();

	*out = STEP_INFRA;
	*boot_id = 0;
	if (check_component("host name", host->name) < 0)
		goto out;
	if (r->lab->hooks.boot) {
		base = xstrfmt("boot-%s-%.12s", host->name, commit);
		log = new_log(r, base);
		if (!log)
			goto out;
		hook_env(r, &env, commit, NULL, NULL, art, host);
		if (!r->quiet)
			rb_notice("booting %s into %.12s", host->name, commit);
		*out = run_hook(r->lab->hooks.boot, &env, r->lab->workdir, log,
				(double)r->lab->hooks.boot_timeout, 0, why,
				&code);
		r->counts.boots++;
	} else {
		/* no boot hook: the host runs whatever kernel it has */
		*out = STEP_OK;
		log = xstrdup("");
	}
	if (store_boot_add(r->st, 0, host->name, commit,
			   step_outcome_name(*out), code, t0, rb_now(), log,
			   boot_id) < 0)
		goto out;
	ret = 0;
out:
	svec_clear(&env);
	free(art);
	free(log);
	free(base);
	return ret;
}

/* --- the payload ------------------------------------------------------ */

/* Does the host's stress-ng --help list option `--name`? */

int runner_payload_argv(const struct job *job, const struct lab_host *host,
			const char *help, struct svec *argv,
			struct svec *missing)
{
	const struct payload_ops *p = payload_find(job->payload);

	return p ? p->argv(job, host, help, argv, missing) : -1;
}

int runner_payload_setup(const struct job *job, const struct lab_host *host,
			 struct payload_setup *out)
{
	const struct payload_ops *p = payload_find(job->payload);

	if (!p)
		return -1;
	return p->setup ? p->setup(job, host, out) : 0;
}

int runner_payload_check(const struct job *job, const struct lab_host *host,
			 const char *help)
{
	struct payload_setup s = PAYLOAD_SETUP_INIT;
	struct svec a = SVEC_INIT;
	int ret = runner_payload_argv(job, host, help, &a, NULL) < 0 ||
				  runner_payload_setup(job, host, &s) < 0 ?
			  -1 :
			  0;

	payload_setup_release(&s);
	svec_clear(&a);
	return ret;
}

char *runner_headline_stat(const struct job *job)
{
	const struct payload_ops *p = payload_find(job->payload);

	if (!p)
		return xstrfmt("%s.%s.ops_per_sec", job->payload,
			       dflt(job->test, "unknown"));
	return p->headline(job);
}

int runner_payload_help(struct transport *t, const struct payload_ops *p,
			const struct lab_host *host, double timeout,
			char **help, struct sbuf *why)
{
	const char *argv[] = { p->binary(host), p->help_arg, NULL };
	struct sbuf out = SBUF_INIT_MAX(HELP_MAX), d = SBUF_INIT;
	struct transport_cmd cmd = {
		.argv = argv, .out = &out, .err = &out, .timeout = timeout
	};
	struct transport_result res = { 0 };
	int ret = -1;

	*help = NULL;
	if (transport_run(t, &cmd, &res) < 0)
		goto out;
	if (res.infra || res.timed_out) {
		sbuf_addstr(why, transport_describe(&res, &d));
		ret = 0;
	} else if (!strstr(out.buf, p->help_mark)) {
		sbuf_rtrim(&out);
		rb_error("'%s' on '%s' does not look like %s (%s%s%.*s)",
			 argv[0], host->name, p->name,
			 transport_describe(&res, &d), out.len ? ": " : "",
			 (int)strcspn(out.buf, "\n"), out.buf);
	} else {
		*help = sbuf_detach(&out);
		ret = 1;
	}
out:
	transport_result_release(&res);
	sbuf_release(&out);
	sbuf_release(&d);
	return ret;
}

/* Ask the host's payload what it knows, once per runner and host. */
static int host_help(struct runner *r, const struct payload_ops *p,
		     struct transport *t, const struct lab_host *host,
		     struct sbuf *why, bool *infra)
{
	struct sbuf d = SBUF_INIT;
	char *help;
	int got;

	*infra = false;
	if (r->help_host && !strcmp(r->help_host, host->name))
		return 0;
	got = runner_payload_help(t, p, host, 120, &help, &d);
	if (got == 0) {
		sbuf_addf(why, "%s: %s", host->name, d.buf);
		*infra = true;
	} else if (got > 0) {
		free(r->help_host);
		free(r->help_text);
		r->help_host = xstrdup(host->name);
		r->help_text = help;
	}
	sbuf_release(&d);
	return got < 0 ? -1 : 0;
}

/*
 * Best effort: end a run script left behind on the host (its pid, if that
 * process still runs the script of this DIR: a pid read late may be
 * another's by now) and remove its DIR. False when the host could not be
 * asked.
 */
static bool kill_remote(struct transport *t, const char *rdir)
{
	const char *argv[] = { "sh",
			       "-c",
			       "p=$(cat \"$1/pid\" 2>/dev/null) && "
			       "tr '\\000' '\\n' </proc/\"$p\"/cmdline "
			       "2>/dev/null | grep -qxF -- \"$1\" && "
			       "kill -TERM \"$p\"; rm -rf \"$1\"",
			       "robot-kill",
			       rdir,
			       NULL };
	struct sbuf out = SBUF_INIT_MAX(4096);
	struct transport_cmd cmd = {
		.argv = argv, .out = &out, .err = &out, .timeout = 30
	};
	struct transport_result res = { 0 };
	bool ok = transport_run(t, &cmd, &res) == 0 && !res.infra &&
		  !res.timed_out && res.exited && res.code == 0;

	transport_result_release(&res);
	sbuf_release(&out);
	return ok;
}

/*
 * A run cut off with its host (the connection lost, the fetch failed)
 * leaves its DIR there, and maybe its payload running: recorded in the
 * store until the host answers again (tidy_host), so that a later robot
 * ends it when this one exits first.
 */
static void leave_behind(struct runner *r, const struct lab_host *host,
			 const char *rdir)
{
	if (store_left_behind_add(r->st, host->name, rdir) < 0)
		rb_warn("%s: '%s' stays on the host: %s", host->name, rdir,
			rb_errmsg());
}

/* The host answers: end and remove what earlier runs left on it. */
static void tidy_host(struct runner *r, struct transport *t,
		      const struct lab_host *host)
{
	struct svec dirs = SVEC_INIT;
	size_t i;

	if (store_left_behind(r->st, host->name, &dirs) < 0)
		rb_warn("%s", rb_errmsg());
	for (i = 0; i < dirs.nr; i++)
		if (kill_remote(t, dirs.v[i]) &&
		    store_left_behind_gone(r->st, host->name, dirs.v[i]) < 0)
			rb_warn("%s", rb_errmsg());
	svec_clear(&dirs);
}

/* Fetch DIR/name from the host into the local result dir. */
static int fetch_one(struct transport *t, const char *rdir, const char *ldir,
		     const char *name, bool *infra, struct sbuf *why)
{
	char *remote = xstrfmt("%s/%s", rdir, name);
	char *local = xstrfmt("%s/%s", ldir, name);
	struct transport_result res = { 0 };
	struct sbuf d = SBUF_INIT;
	int ret = 0;

	if (transport_fetch(t, remote, local, 300, &res) < 0) {
		ret = -1;
	} else if (res.infra || res.timed_out) {
		*infra = true;
		sbuf_addf(why, "cannot fetch '%s': %s", remote,
			  transport_describe(&res, &d));
		ret = -1;
	} else if (!res.exited || res.code) {
		ret = -1; /* absent on the host */
	}
	transport_result_release(&res);
	sbuf_release(&d);
	free(remote);
	free(local);
	return ret;
}

/*
 * A file the run left, or NULL. A runaway payload can write gigabytes:
 * what is larger than RUN_FILE_MAX is not read (a warning says so), and
 * the run has no stats from it.
 */
#define RUN_FILE_MAX (32u << 20)

static char *read_opt(const char *dir, const char *name)
{
	char *p = xstrfmt("%s/%s", dir, name), *buf = NULL;

	if (rb_file_exists(p) &&
	    rb_read_file_max(p, RUN_FILE_MAX, &buf, NULL) < 0) {
		rb_warn("%s", rb_errmsg());
		buf = NULL;
	}
	free(p);
	return buf;
}

/*
 * The texts of the payload's stderr and outputs in ldir (NULL: none), *n
 * of them.
 */
static char **payload_texts(const struct payload_ops *p, const char *ldir,
			    size_t *n)
{
	size_t i;
	char **v, *name;

	for (*n = 1; p->outputs[*n - 1]; (*n)++)
		;
	v = xcalloc(*n + 1, sizeof(*v));
	name = xstrfmt("%s.stderr", p->name);
	v[0] = read_opt(ldir, name);
	free(name);
	for (i = 1; i < *n; i++)
		v[i] = read_opt(ldir, p->outputs[i - 1]);
	return v;
}

static void payload_texts_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Parse what the run left in ldir (texts: its stderr and outputs) into
 * stats (lkp names, prefixed with the payload's name; `time -v` and the
 * monitors too). Returns the number of stressor rows found.
 */
static int parse_run(const char *ldir, const struct payload_ops *p,
		     char **texts, struct statset *stats)
{
	struct statset raw = STATSET_INIT;
	struct svec dropped = SVEC_INIT;
	char *mon = read_opt(ldir, "monitor");
	char *prefix = xstrfmt("%s.", p->name);
	int rows;

	rows = p->parse(texts[0], (const char *const *)texts + 1, &raw,
			&dropped);
	if (texts[0])
		time_v_parse(texts[0], &raw, &dropped);
	if (dropped.nr)
		rb_warn("run '%s': %zu stats left out (a name outside lkp's "
			"characters or a value that is not finite), the first "
			"%s",
			ldir, dropped.nr, dropped.v[0]);
	svec_clear(&dropped);
	statset_merge(stats, &raw, prefix);
	if (mon) {
		struct mon_series s;

		if (mon_series_parse(&s, mon) == 0) {
			monitors_reduce(&s, stats);
			mon_series_release(&s);
		}
		mon = NULL; /* owned by the series (or freed on error) */
	}
	statset_release(&raw);
	free(prefix);
	return rows;
}

/* The run script said (202) that the box cannot give the job its setup. */
static void setup_refused(struct runner *r, struct transport *t,
			  const struct lab_host *host, const char *rdir,
			  const char *ldir, bool here)
{
	struct sbuf ignored = SBUF_INIT;
	bool infra = false;
	char *line;

	if (!here) {
		fetch_one(t, rdir, ldir, "setup-error", &infra, &ignored);
		kill_remote(t, rdir);
	}
	line = read_opt(ldir, "setup-error");
	rb_error("host '%s' cannot be set up for '%s' as lkp sets it up: %s",
		 host->name, r->job->path_params,
		 line ? line : "(no reason given)");
	r->bad_input = true;
	free(line);
	sbuf_release(&ignored);
}

/* The commit's result directory and a fresh run directory in it. */
static void run_dirs(struct runner *r, const struct run_key *key,
		     const char *commit, int *run_no, char **cdir, char **ldir)
{
	*cdir = xstrfmt("%s/results/%s/%s/%s/%s/%s/%s/%s", r->lab->workdir,
			key->testcase, key->path_params, key->host, key->rootfs,
			key->kconfig, key->compiler, commit);
	/* a directory left by an interrupted run is never reused */
	*ldir = NULL;
	for (;; (*run_no)++) {
		free(*ldir);
		*ldir = xstrfmt("%s/%d", *cdir, *run_no);
		if (!rb_file_exists(*ldir))
			break;
	}
}

/*
 * The run script's argv for the payload on host, writing into rdir; the
 * payload's command line also goes to ldir/cmdline (the reproduce
 * instructions of a report).
 */
static int run_argv(struct runner *r, const struct payload_ops *p,
		    const struct lab_host *host, const char *rdir,
		    const char *ldir, struct svec *argv)
{
	struct payload_setup setup = PAYLOAD_SETUP_INIT;
	struct svec pay = SVEC_INIT;
	struct sbuf cl = SBUF_INIT, lines = SBUF_INIT;
	size_t i;
	char *path;
	int ret = -1;

	if ((p->setup && p->setup(r->job, host, &setup) < 0) ||
	    p->argv(r->job, host, r->help_text, &pay, NULL) < 0)
		goto out;
	for (i = 0; i < setup.sysctls.nr; i++)
		sbuf_addf(&lines, "%s\n", setup.sysctls.v[i]);
	svec_pushv(argv, (const char *const[]){ "sh", "-c", run_script,
						"robot-run", NULL });
	svec_push(argv, rdir);
	svec_push(argv, dflt(r->job->cpufreq_governor, ""));
	svec_push(argv, monitor_loop_script());
	svec_push(argv, p->name);
	svec_push(argv, lines.buf);
	svec_pushv(argv, (const char *const[]){
				 dflt(setup.user, ""), dflt(setup.dir, ""),
				 dflt(setup.dev, ""), dflt(setup.fs, ""),
				 dflt(setup.mkfs_opts, ""),
				 dflt(setup.mount_opts, ""), "--", NULL });
	svec_append(argv, &pay);
	/* the reproduce instructions: the box's setup, then the command */
	payload_setup_describe(&setup, &pay, &cl);
	path = xstrfmt("%s/cmdline", ldir);
	ret = rb_write_file_atomic(path, cl.buf, cl.len);
	free(path);
	p->result_argv(rdir, argv);
out:
	payload_setup_release(&setup);
	svec_clear(&pay);
	sbuf_release(&cl);
	sbuf_release(&lines);
	return ret;
}

/* A remote run's files into ldir. */
static void run_fetch(const struct payload_ops *p, struct transport *t,
		      const char *rdir, const char *ldir, bool *infra,
		      struct sbuf *why)
{
	static const char *const files[] = { "monitor", "status", "cpufreq" };
	char *err = xstrfmt("%s.stderr", p->name);
	size_t i;

	fetch_one(t, rdir, ldir, err, infra, why);
	for (i = 0; p->outputs[i] && !*infra; i++)
		fetch_one(t, rdir, ldir, p->outputs[i], infra, why);
	for (i = 0; i < RB_ARRAY_SIZE(files) && !*infra; i++)
		fetch_one(t, rdir, ldir, files[i], infra, why);
	free(err);
}

/* What the run left in ldir: its status and stats. */
static void run_outcome(struct runner *r, const struct payload_ops *p,
			const struct lab_host *host, const char *ldir,
			enum run_status *status, struct statset *stats,
			bool *infra, struct sbuf *why)
{
	char *rc_text = read_opt(ldir, "status"), *cpufreq, **texts;
	size_t nt;
	int rc, rows;

	if (!rc_text) {
		sbuf_addf(why, "%s: the run script left no status", host->name);
		*infra = true;
		return;
	}
	rc = (int)strtol(rc_text, NULL, 10);
	free(rc_text);
	texts = payload_texts(p, ldir, &nt);
	rows = parse_run(ldir, p, texts, stats);
	cpufreq = read_opt(ldir, "cpufreq");
	if (cpufreq && rb_starts_with(cpufreq, "unavailable"))
		statset_set(stats, "cpufreq_governor.unavailable", 1);
	free(cpufreq);
	if (rc == 0 && rows > 0) {
		*status = RUN_OK;
	} else {
		char *msg = p->error(texts[0] ? texts[0] : "", rc);

		*status = RUN_FAILED;
		sbuf_addf(why, "%s: %s", host->name, msg);
		free(msg);
	}
	payload_texts_free(texts, nt);
}

/* An OK run's stats.json and the commit's matrix.json. */
static int run_files(const char *cdir, const char *ldir,
		     const struct statset *stats)
{
	char *src = xstrfmt("%s/stats.json", ldir);
	char *path = xstrfmt("%s/matrix.json", cdir);
	int ret = -1;

	if (statset_write_json(stats, src) == 0 &&
	    matrix_update(path, src, stats) == 0)
		ret = 0;
	free(src);
	free(path);
	return ret;
}

/*
 * A new run of commit on host in the store ("running") and its result
 * directory ldir (cdir the commit's): 0, or -1 (nothing started).
 */
static int run_begin(struct runner *r, const struct lab_host *host,
		     const char *commit, int64_t boot_id, struct run_key *key,
		     int *run_no, char **cdir, char **ldir, int64_t *run_id)
{
	*cdir = *ldir = NULL;
	*run_id = 0;
	runner_key(r, host->name, commit, key);
	if (check_component("host name", host->name) < 0 ||
	    store_next_run_no(r->st, key, run_no) < 0)
		return -1;
	run_dirs(r, key, commit, run_no, cdir, ldir);
	if (rb_mkdir_p(*ldir) < 0 ||
	    store_run_start(r->st, key, *run_no, boot_id, *ldir, run_id) < 0)
		return -1;
	r->last_run_id = *run_id;
	return 0;
}

/*
 * The run's end in the store: an infrastructure failure drops its stats;
 * its files when OK, its status, its samples.
 */
static int run_end(struct runner *r, int64_t run_id, const char *cdir,
		   const char *ldir, enum run_status *status, bool infra,
		   struct statset *stats, const char *why)
{
	if (infra) {
		*status = RUN_INFRA;
		statset_release(stats);
	}
	if (*status == RUN_OK && run_files(cdir, ldir, stats) < 0)
		return -1;
	return store_run_finish(r->st, run_id, *status,
				*status == RUN_OK ? NULL : why,
				*status == RUN_OK ? stats : NULL);
}

int runner_record(struct runner *r, const struct lab_host *host,
		  const char *commit, int64_t boot_id, const char *output,
		  int rc, const char *cmdline, enum run_status *status,
		  struct statset *stats, struct sbuf *why)
{
	const struct payload_ops *p = payload_find(r->job->payload);
	struct run_key key;
	char *cdir = NULL, *ldir = NULL, *path = NULL, *num = NULL;
	int64_t run_id = 0;
	int run_no, ret = -1;
	bool infra = false;

	*status = RUN_INFRA;
	r->bad_input = false;
	if (!p || run_begin(r, host, commit, boot_id, &key, &run_no, &cdir,
			    &ldir, &run_id) < 0)
		goto out;
	if (!r->quiet)
		rb_notice("%s ran %s at %.12s (run %d)", host->name,
			  r->job->test ? r->job->test : "payload", commit,
			  run_no);
	r->counts.runs++;
	path = xstrfmt("%s/cmdline", ldir);
	if (rb_write_file_atomic(path, cmdline, strlen(cmdline)) < 0)
		goto out;
	if (rc < 0) {
		sbuf_addf(why, "%s: the batch holds no output for run %d",
			  host->name, run_no);
		infra = true;
	} else {
		free(path);
		path = xstrfmt("%s/%s.stderr", ldir, p->name);
		num = xstrfmt("%d\n", rc);
		if (rb_write_file_atomic(path, output, strlen(output)) < 0)
			goto out;
		free(path);
		path = xstrfmt("%s/status", ldir);
		if (rb_write_file_atomic(path, num, strlen(num)) < 0)
			goto out;
		run_outcome(r, p, host, ldir, status, stats, &infra, why);
	}
	ret = run_end(r, run_id, cdir, ldir, status, infra, stats, why->buf);
out:
	if (ret < 0 && run_id > 0)
		store_run_finish(r->st, run_id, RUN_INFRA, rb_errmsg(), NULL);
	free(cdir);
	free(ldir);
	free(path);
	free(num);
	return ret;
}

int runner_run(struct runner *r, const struct lab_host *host,
	       const char *commit, int64_t boot_id, enum run_status *status,
	       struct statset *stats, struct sbuf *why)
{
	const struct payload_ops *p = payload_find(r->job->payload);
	struct run_key key;
	struct transport t;
	struct transport_result res = { 0 };
	struct svec argv = SVEC_INIT, env = SVEC_INIT;
	struct sbuf d = SBUF_INIT;
	char *cdir = NULL, *ldir = NULL, *rdir = NULL;
	int64_t run_id = 0;
	int run_no, ret = -1;
	bool t_open = false, infra = false, here;

	r->bad_input = false;

	*status = RUN_INFRA;
	if (!p || run_begin(r, host, commit, boot_id, &key, &run_no, &cdir,
			    &ldir, &run_id) < 0)
		goto out;
	here = transport_host_is_here(host);
	if (transport_open(&t, r->lab, host) < 0)
		goto out;
	t_open = true;
	if (host_help(r, p, &t, host, why, &infra) < 0) {
		/* the payload is not where the lab says, or is not one */
		r->bad_input = true;
		goto out;
	}
	if (infra)
		goto finish;
	if (!here)
		tidy_host(r, &t, host);
	rdir = here ? xstrdup(ldir) :
		      xstrfmt("/tmp/robot-run.%ld.%lld", (long)getpid(),
			      (long long)run_id);
	if (run_argv(r, p, host, rdir, ldir, &argv) < 0) {
		r->bad_input = true;
		goto out;
	}
	if (here) {
		svec_pushf(&env, "ROBOT_HOST=%s", host->name);
		svec_pushf(&env, "ROBOT_COMMIT=%s", commit);
		svec_pushf(&env, "ROBOT_RESULT_DIR=%s", ldir);
		svec_pushf(&env, "ROBOT_WORKDIR=%s", r->lab->workdir);
	}
	if (!r->quiet)
		rb_notice("running %s on %s at %.12s (run %d)",
			  r->job->test ? r->job->test : "payload", host->name,
			  commit, run_no);
	{
		struct transport_cmd cmd = {
			.argv = (const char *const *)argv.v,
			.env = (const char *const *)env.v,
			.timeout = (double)r->job->testtime * 2 + 300,
		};

		if (transport_run(&t, &cmd, &res) < 0)
			goto out;
	}
	r->counts.runs++;
	if (!res.infra && !res.timed_out && res.exited && res.code == 202) {
		/* the box cannot be set up for the job: nothing ran, and
		 * no other attempt would do better */
		setup_refused(r, &t, host, rdir, ldir, here);
		goto out;
	}
	if (res.infra || res.timed_out || (res.exited && res.code >= 200) ||
	    !res.exited) {
		sbuf_addf(why, "%s: %s", host->name,
			  transport_describe(&res, &d));
		infra = true;
		if (!here && !kill_remote(&t, rdir))
			leave_behind(r, host, rdir);
		goto finish;
	}
	if (!here) {
		run_fetch(p, &t, rdir, ldir, &infra, why);
		if (infra) {
			leave_behind(r, host, rdir);
			goto finish;
		}
		kill_remote(&t, rdir);
	}
	run_outcome(r, p, host, ldir, status, stats, &infra, why);
finish:
	ret = run_end(r, run_id, cdir, ldir, status, infra, stats, why->buf);
out:
	if (ret < 0 && run_id > 0)
		store_run_finish(r->st, run_id, RUN_INFRA, rb_errmsg(), NULL);
	if (t_open)
		transport_close(&t);
	transport_result_release(&res);
	svec_clear(&argv);
	svec_clear(&env);
	sbuf_release(&d);
	free(cdir);
	free(ldir);
	free(rdir);
	return ret;
}
