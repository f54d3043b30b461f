// SPDX-License-Identifier: GPL-2.0-only
/*
 * LAVA slots behind the one measure path (lava-exec.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "lava-exec.h"
#include "lava.h"
#include "measure.h"
#include "payload.h"
#include "runner.h"
#include "sbuf.h"
#include "store.h"
#include "svec.h"
#include "transport.h"
#include "ytree.h"

/* Seconds between two looks at a job. */
#define LAVA_POLL 2.0
/* The box's shell prompt once the batch is done (LAVA's boot waits for it). */
#define BOX_PROMPT "robot-box# "

struct lava_slot {
	struct lava_client c;
	/* the server did not answer since (monotonic), 0: it answers */
	double down_since;
};

/* --- the transport table's entry: a slot runs no single commands -------- */

static int lava_init(struct transport *t, const struct lab *lab,
		     const struct lab_host *host)
{
	(void)t;
	(void)lab;
	return rb_error("host '%s' is a slot of the LAVA pool: it runs whole "
			"batches through the server, not commands",
			host->name);
}

const struct transport_ops transport_lava_ops = {
	.batch = true,
	.init = lava_init,
};

void lava_slot_free(struct lava_slot *s)
{
	if (!s)
		return;
	lava_close(&s->c);
	free(s);
}

/* --- the batch: its script, its cpio, the initrd ------------------------ */

static void add_sysctl(struct sbuf *sb, const char *line)
{
	bool optional = *line == '?';
	const char *eq;
	char *key, *p;

	line += optional;
	eq = strchr(line, '=');
	if (!eq)
		return;
	key = xstrfmt("/proc/sys/%.*s", (int)(eq - line), line);
	for (p = key + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	sbuf_addstr(sb, "echo ");
	sbuf_add_shell_quoted(sb, eq + 1);
	sbuf_addstr(sb, " >");
	sbuf_add_shell_quoted(sb, key);
	sbuf_addstr(sb, optional ? " 2>/dev/null || true\n" : "\n");
	free(key);
}

int lava_batch_script(const struct job *job, const struct lab_host *host,
		      long runs, struct sbuf *sb, struct sbuf *cmdline)
{
	const struct payload_ops *p = payload_find(job->payload);
	struct payload_setup setup = PAYLOAD_SETUP_INIT;
	struct svec argv = SVEC_INIT;
	size_t i;
	int ret = -1;

	if (!p)
		return rb_error("unknown payload '%s'", job->payload);
	if ((p->setup && p->setup(job, host, &setup) < 0) ||
	    p->argv(job, host, NULL, &argv, NULL) < 0)
		goto out;
	if (setup.user || setup.dev) {
		rb_error("host '%s' (a LAVA slot) cannot set '%s' up as lkp "
			 "does: its box has no %s",
			 host->name, job->path_params,
			 setup.user ? "unprivileged user" : "spare disk");
		goto out;
	}
	sbuf_addstr(sb, "#!/bin/sh\n"
			"export PATH=/usr/sbin:/usr/bin:/sbin:/bin\n"
			"mount -t proc proc /proc\n"
			"mount -t sysfs sysfs /sys\n"
			"mkdir -p /dev/pts /dev/shm\n"
			"mount -t devpts devpts /dev/pts\n"
			"mount -t tmpfs tmpfs /dev/shm\n"
			"mount -t tmpfs tmpfs /tmp\n"
			"mount -t tmpfs tmpfs /run\n"
			"mkdir -p /var/log /var/run\n"
			"hostname robot-box\n"
			"ip link set lo up 2>/dev/null\n"
			"echo \"robot-box: up $(uname -r)\"\n");
	for (i = 0; i < setup.sysctls.nr; i++)
		add_sysctl(sb, setup.sysctls.v[i]);
	sbuf_addstr(sb, "cd /tmp\n");
	if (setup.dir) {
		sbuf_addstr(sb, "mkdir -p ");
		sbuf_add_shell_quoted(sb, setup.dir);
		sbuf_addstr(sb, " && cd ");
		sbuf_add_shell_quoted(sb, setup.dir);
		sbuf_addch(sb, '\n');
	}
	sbuf_addf(sb,
		  "i=0\nwhile [ $i -lt %ld ]; do\n"
		  "\techo \"robot-run: begin $i\"\n\t",
		  runs);
	for (i = 0; i < argv.nr; i++) {
		if (i)
			sbuf_addch(sb, ' ');
		sbuf_add_shell_quoted(sb, argv.v[i]);
	}
	sbuf_addstr(sb, " 2>&1 </dev/null\n"
			"\techo \"robot-run: end $i status $?\"\n"
			"\ti=$((i + 1))\n"
			"done\n"
			"echo \"robot-run: done\"\n");
	payload_setup_describe(&setup, &argv, cmdline);
	ret = 0;
out:
	payload_setup_release(&setup);
	svec_clear(&argv);
	return ret;
}

int lava_check_job(const struct job *job, const struct lab_host *host)
{
	struct sbuf script = SBUF_INIT, cmdline = SBUF_INIT;
	int ret = lava_batch_script(job, host, 1, &script, &cmdline);

	sbuf_release(&script);
	sbuf_release(&cmdline);
	return ret;
}

/* One newc cpio entry (a regular file, or the trailer when data is NULL). */
static void cpio_entry(struct sbuf *sb, const char *name, unsigned mode,
		       const char *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	sbuf_addf(sb,
		  "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X"
		  "%08zX%08X",
		  0u, mode, 0u, 0u, 1u, 0u, len, 0u, 0u, 0u, 0u, namesize, 0u);
	sbuf_add(sb, name, namesize);
	while (sb->len % 4)
		sbuf_addch(sb, '\0');
	if (len)
		sbuf_add(sb, data, len);
	while (sb->len % 4)
		sbuf_addch(sb, '\0');
}

void lava_batch_cpio(const char *script, struct sbuf *sb)
{
	static const char inittab[] = "::sysinit:/etc/rc.box\n"
				      "ttyS0::respawn:/bin/sh -l\n"
				      "::restart:/sbin/init\n";
	static const char profile[] =
		"export PS1='" BOX_PROMPT "'\n"
		"export PATH=/usr/sbin:/usr/bin:/sbin:/bin\n";

	cpio_entry(sb, "etc/rc.box", 0100755, script, strlen(script));
	cpio_entry(sb, "etc/inittab", 0100644, inittab, strlen(inittab));
	cpio_entry(sb, "etc/profile", 0100644, profile, strlen(profile));
	cpio_entry(sb, "TRAILER!!!", 0, NULL, 0);
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* An initrd unused this long may go when a new one is written. */
#define INITRD_IDLE (24 * 3600.0)
/* A LAVA job waited on keeps older initrds, unless it is older than this
 * (a row that no robot adopted: see doc/jobs-and-labs.md) */
#define INITRD_PIN (7 * 24 * 3600.0)

int lava_trim_initrds(const char *dir, const char *keep, double before)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL) {
		const char *ext;
		char *path;
		struct stat st;

		if (!rb_starts_with(e->d_name, "initrd-") ||
		    !(ext = strstr(e->d_name, ".cpio")) ||
		    (ext[5] && !rb_starts_with(ext + 5, ".tmp.")))
			continue;
		path = xstrfmt("%s/%s", dir, e->d_name);
		if (strcmp(path, keep) && lstat(path, &st) == 0 &&
		    S_ISREG(st.st_mode) &&
		    (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 <
			    before) {
			if (unlink(path) == 0)
				n++;
			else if (errno != ENOENT)
				rb_warn("cannot remove '%s': %s", path,
					strerror(errno));
		}
		free(path);
	}
	closedir(d);
	return n;
}

/* The initrds of the lab's older batches, after a new one was written. */
static void trim_initrds(struct store *st, const char *dir, const char *keep)
{
	double now = rb_now(), before = now - INITRD_IDLE, oldest = 0;

	if (store_lava_oldest_waiting(st, now - INITRD_PIN, &oldest) < 0) {
		rb_warn("LAVA initrds not trimmed: %s", rb_errmsg());
		return;
	}
	if (oldest > 0 && oldest < before)
		before = oldest;
	if (lava_trim_initrds(dir, keep, before) < 0)
		rb_warn("LAVA initrds not trimmed: '%s': %s", dir,
			strerror(errno));
}

/*
 * WORKDIR/artifacts/lava/initrd-<hash>.cpio: the lab's initrd with the
 * batch appended (named by both, so every commit's batch of one job
 * shares it): lava-exec.h.
 */
int lava_batch_initrd(const struct lab *lab, struct store *store,
		      const char *script, char **out)
{
	static unsigned tmp_seq;
	struct sbuf cpio = SBUF_INIT;
	struct stat st;
	uint64_t h = 0xcbf29ce484222325ULL;
	char *dir = xstrfmt("%s/artifacts/lava", lab->workdir), *tmp = NULL;
	FILE *f = NULL;
	int ret = -1;

	*out = NULL;
	if (stat(lab->lava.initrd, &st) < 0) {
		rb_error("lava initrd '%s': %s", lab->lava.initrd,
			 strerror(errno));
		goto out;
	}
	h = fnv1a(h, lab->lava.initrd, strlen(lab->lava.initrd) + 1);
	h = fnv1a(h, &st.st_size, sizeof(st.st_size));
	h = fnv1a(h, &st.st_mtime, sizeof(st.st_mtime));
	h = fnv1a(h, script, strlen(script));
	*out = xstrfmt("%s/initrd-%016llx.cpio", dir, (unsigned long long)h);
	/* reused: touched, so that no trim takes it before a worker
	 * fetched it (gone in between: a trim took it, write it again) */
	if (utimensat(AT_FDCWD, *out, NULL, 0) == 0) {
		ret = 0;
		goto out;
	}
	if (errno != ENOENT && rb_file_exists(*out)) {
		rb_warn("cannot touch '%s': %s", *out, strerror(errno));
		ret = 0;
		goto out;
	}
	lava_batch_cpio(script, &cpio);
	/* the slots' threads may write the same one at once (the anchors'
	 * first batches): each its own file, the last rename wins */
	tmp = xstrfmt("%s.tmp.%ld.%u", *out, (long)getpid(),
		      __atomic_add_fetch(&tmp_seq, 1, __ATOMIC_RELAXED));
	if (rb_mkdir_p(dir) < 0 || rb_copy_file(lab->lava.initrd, tmp) < 0)
		goto out;
	f = fopen(tmp, "ab");
	if (!f || fwrite(cpio.buf, 1, cpio.len, f) != cpio.len || fflush(f) ||
	    fsync(fileno(f))) {
		rb_error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		rb_error("cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, *out) < 0) {
		rb_error("cannot rename '%s': %s", tmp, strerror(errno));
		goto out;
	}
	trim_initrds(store, dir, *out);
	ret = 0;
out:
	if (f)
		fclose(f);
	if (tmp && ret < 0)
		unlink(tmp);
	if (ret < 0) {
		free(*out);
		*out = NULL;
	}
	free(tmp);
	free(dir);
	sbuf_release(&cpio);
	return ret;
}

/* The URL the worker fetches a file under WORKDIR/artifacts from. */
static char *artifact_url(const struct lab *lab, const char *path)
{
	size_t n = strlen(lab->workdir);
	const char *base = lab->lava.artifact_url;
	size_t bn = strlen(base);

	while (bn && base[bn - 1] == '/')
		bn--;
	/* every batch file lives under WORKDIR/artifacts/ */
	if (strncmp(path, lab->workdir, n) ||
	    !rb_starts_with(path + n, "/artifacts/"))
		RB_BUG("'%s' is not under the artifacts", path);
	return xstrfmt("%.*s/%s", (int)bn, base,
		       path + n + strlen("/artifacts/"));
}

/* --- the job definition ------------------------------------------------- */

static json_t *ynode_json(const struct ynode *n)
{
	json_t *j;
	size_t i;

	if (n->kind == YNODE_SCALAR)
		return n->is_null ? json_null() : json_string(n->str);
	if (n->kind == YNODE_SEQ) {
		j = json_array();
		for (i = 0; i < n->nr; i++)
			json_array_append_new(j, ynode_json(n->vals[i]));
		return j;
	}
	j = json_object();
	for (i = 0; i < n->nr; i++)
		json_object_set_new(j, n->keys[i]->str, ynode_json(n->vals[i]));
	return j;
}

static json_t *seconds(long s)
{
	return json_pack("{s:I}", "seconds", (json_int_t)s);
}

/*
 * The job the robot submits (JSON, which is YAML): deploy the kernel and
 * the batch's initrd to tmpfs, boot with QEMU until the box's prompt
 * (the runs happen before it). The lab's context: goes in as it is.
 */
static char *definition(const struct lab *lab, const char *name,
			const char *commit, const struct lab_host *host,
			const char *path_params, const char *kernel_url,
			const char *initrd_url)
{
	const struct lab_lava *lv = &lab->lava;
	json_t *d, *ctx, *tags, *images;
	long prio;
	char *args, *text;
	size_t i;

	args = xstrfmt("-kernel {kernel} -append \"%s\"", lv->kernel_args);
	images = json_pack("{s:{s:s,s:s},s:{s:s,s:s}}", "kernel", "image_arg",
			   args, "url", kernel_url, "initrd", "image_arg",
			   "-initrd {initrd}", "url", initrd_url);
	d = json_pack("{s:s,s:s,s:{s:o,s:o,s:{s:I}},s:s,s:{s:s,s:s,s:s},"
		      "s:[{s:{s:s,s:o}},{s:{s:s,s:s,s:[s],s:o}}]}",
		      "device_type", lv->device_type, "job_name", name,
		      "timeouts", "job", seconds(lv->job_timeout), "action",
		      seconds(lv->action_timeout), "connection", "seconds",
		      (json_int_t)120, "visibility", "public", "metadata",
		      "robot.commit", commit, "robot.host", host->name,
		      "robot.job", path_params, "actions", "deploy", "to",
		      "tmpfs", "images", images, "boot", "method", "qemu",
		      "media", "tmpfs", "prompts", BOX_PROMPT, "timeout",
		      seconds(lv->action_timeout));
	if (!d)
		rb_die("out of memory building a LAVA job");
	if (rb_parse_long(lv->priority, &prio) == 0)
		json_object_set_new(d, "priority", json_integer(prio));
	else
		json_object_set_new(d, "priority", json_string(lv->priority));
	ctx = lv->context && lv->context->kind == YNODE_MAP ?
		      ynode_json(lv->context) :
		      json_object();
	if (!json_object_get(ctx, "arch"))
		json_object_set_new(ctx, "arch", json_string("x86_64"));
	json_object_set_new(d, "context", ctx);
	if (lv->tags.nr) {
		tags = json_array();
		for (i = 0; i < lv->tags.nr; i++)
			json_array_append_new(tags, json_string(lv->tags.v[i]));
		json_object_set_new(d, "tags", tags);
	}
	text = json_dumps(d, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	if (!text)
		rb_die("out of memory building a LAVA job");
	json_decref(d);
	free(args);
	return text;
}

/* --- one slot's batch --------------------------------------------------- */

struct batch {
	struct measure *m;
	const char *commit;
	char *key; /* the job's axes in the store */
	struct lava_job_rec rec;
	struct lava_slot *s;
	/*
	 * The row this robot added and submitted at the first try: the one
	 * batch whose job cannot have strays (see strays()), looked for
	 * once, at its end; any other is looked for at every poll
	 */
	int64_t own;
};

static const struct lab *lab_of(const struct batch *b)
{
	return b->m->r->lab;
}

static char *console_path(const struct lab *lab, long lava_id)
{
	return xstrfmt("%s/lava/%ld.console", lab->workdir, lava_id);
}

/* The job definition of this batch (the same for every attempt). */
static int batch_definition(struct batch *b, char **def, struct sbuf *cmdline)
{
	const struct lab *lab = lab_of(b);
	struct sbuf script = SBUF_INIT;
	char *art = runner_artifact_dir(b->m->r, b->commit), *kernel = NULL;
	char *initrd = NULL, *ku = NULL, *iu = NULL;
	int ret = -1;

	*def = NULL;
	kernel = xstrfmt("%s/%s", art, lab->lava.kernel_image);
	if (!rb_file_exists(kernel)) {
		rb_error("the build of %.12s left no %s in '%s'", b->commit,
			 lab->lava.kernel_image, art);
		goto out;
	}
	if (lava_batch_script(b->m->r->job, b->m->host, lab->lava.runs_per_job,
			      &script, cmdline) < 0 ||
	    lava_batch_initrd(lab, b->m->r->st, script.buf, &initrd) < 0)
		goto out;
	ku = artifact_url(lab, kernel);
	iu = artifact_url(lab, initrd);
	*def = definition(lab, b->rec.name, b->commit, b->m->host,
			  b->m->r->job->path_params, ku, iu);
	ret = 0;
out:
	sbuf_release(&script);
	free(art);
	free(kernel);
	free(initrd);
	free(ku);
	free(iu);
	return ret;
}

/* A server that does not answer: wait for it, up to the job's timeout. */
static bool server_gone(struct batch *b, struct sbuf *why)
{
	double now = rb_monotonic();

	if (!b->s->down_since) {
		b->s->down_since = now;
		rb_warn("%s: %s; waiting for it", b->m->host->name,
			rb_errmsg());
	}
	if (now - b->s->down_since < (double)lab_of(b)->lava.job_timeout)
		return false;
	sbuf_addf(why, "%s: %s (for %.0f s)", b->m->host->name, rb_errmsg(),
		  now - b->s->down_since);
	return true;
}

static void server_back(struct batch *b)
{
	if (b->s->down_since)
		rb_notice("%s: the LAVA server answers again",
			  b->m->host->name);
	b->s->down_since = 0;
}

/*
 * Cancel and record every other job of the batch's name (strays: a
 * submit that reached the server although its robot never heard back,
 * killed or timed out, and the submit after it). The server may create
 * such a job well after the robot looked for it (it was still taking the
 * killed robot's request), so this is asked while the batch's own job is
 * waited on, not only before it is submitted. A server that does not
 * answer now is asked again at the next poll.
 */
static int strays(struct batch *b)
{
	struct lava_client *c = &b->s->c;
	long *ids;
	size_t n, i;
	int ret = 0;

	if (lava_find_all(c, b->rec.name, &ids, &n) < 0)
		return 0;
	for (i = 0; i < n && !ret; i++) {
		char *msg;
		int known;

		if (ids[i] == (long)b->rec.lava_id)
			continue;
		known = store_lava_known(b->m->r->st, ids[i]);
		if (known < 0) {
			ret = -1;
			break;
		}
		if (known)
			continue;
		/* one that ended already: a 4xx, and still recorded */
		if (lava_cancel(c, ids[i]) < 0 && c->infra)
			break;
		msg = xstrfmt("a second job of '%s' (LAVA job %ld is the "
			      "batch's): canceled",
			      b->rec.name, (long)b->rec.lava_id);
		rb_warn("%s: LAVA job %ld is a stray of job %ld (a submit "
			"whose answer never came back): canceled",
			b->m->host->name, ids[i], (long)b->rec.lava_id);
		ret = store_lava_stray(b->m->r->st, b->rec.id, ids[i], msg);
		free(msg);
	}
	free(ids);
	return ret;
}

/*
 * Submit the batch whose row is b->rec ("submitting"): unless the server
 * already has a job of its name (a robot killed after its submit).
 * 0 submitted (rec is "submitted"), 1 infrastructure (why says it),
 * -1 the robot failed.
 */
static int submit(struct batch *b, struct sbuf *why)
{
	struct lava_client *c = &b->s->c;
	struct sbuf cmdline = SBUF_INIT;
	char *def = NULL;
	long id = 0;
	int ret = -1, found;

	found = lava_find(c, b->rec.name, &id);
	if (found < 0)
		goto infra;
	if (!found) {
		if (batch_definition(b, &def, &cmdline) < 0)
			goto out;
		if (lava_submit(c, def, &id) < 0) {
			if (c->infra)
				goto infra;
			/* the server refuses the job: never better later */
			sbuf_addf(why, "%s: %s", b->m->host->name, rb_errmsg());
			store_lava_finish(b->m->r->st, b->rec.id, "infra", 0,
					  why->buf);
			ret = 1;
			goto out;
		}
	}
	server_back(b);
	if (store_lava_submitted(b->m->r->st, b->rec.id, id) < 0)
		goto out;
	b->rec.lava_id = id;
	free(b->rec.state);
	b->rec.state = xstrdup("submitted");
	if (found && strays(b) < 0)
		goto out;
	if (!b->m->r->quiet)
		rb_notice("%s: LAVA job %ld boots %.12s (%ld runs)",
			  b->m->host->name, id, b->commit,
			  lab_of(b)->lava.runs_per_job);
	ret = 0;
	goto out;
infra:
	ret = server_gone(b, why) ? 1 : 2;
out:
	free(def);
	sbuf_release(&cmdline);
	return ret;
}

/* A new batch's row, then its submit. */
static int new_batch(struct batch *b, struct sbuf *why)
{
	static unsigned seq;
	char *name;
	int64_t id;
	int ret;

	name = xstrfmt("robot %s %.12s %ld.%ld.%u", b->m->host->name, b->commit,
		       (long)getpid(), (long)(rb_now() * 1000),
		       __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	ret = store_lava_add(b->m->r->st, name, b->m->host->name, b->commit,
			     b->key, (int)lab_of(b)->lava.runs_per_job, &id);
	if (ret == 0) {
		lava_job_rec_release(&b->rec);
		b->rec.id = id;
		b->rec.name = name;
		b->rec.runs = (int)lab_of(b)->lava.runs_per_job;
		b->rec.state = xstrdup("submitting");
		ret = submit(b, why);
		if (ret == 0)
			b->own = id;
		return ret;
	}
	free(name);
	return -1;
}

/* Is the console that of a kernel that never reached the box's userland? */
static bool kernel_failed(const char *console)
{
	if (strstr(console, "Kernel panic - not syncing"))
		return true;
	return strstr(console, "Linux version") &&
	       !strstr(console, "robot-box: up");
}

/*
 * The finished job's verdict into the store: "ok" with its boot row and
 * console, "skip" or "infra" with the reason.
 */
static int finish(struct batch *b, const struct lava_job *lj, struct sbuf *why)
{
	const struct lab *lab = lab_of(b);
	struct store *st = b->m->r->st;
	struct sbuf console = SBUF_INIT, msg = SBUF_INIT;
	const char *state;
	char *path = console_path(lab, b->rec.lava_id), *dir = NULL;
	int64_t boot_id = 0;
	int ret = -1;

	if (lava_console(&b->s->c, b->rec.lava_id, &console) < 0) {
		if (!b->s->c.infra)
			goto out;
		ret = server_gone(b, why) ? 1 : 2;
		goto out;
	}
	if (!strcmp(lj->health, "Complete") &&
	    strstr(console.buf, "\nrobot-run: done")) {
		state = "ok";
	} else if (!strcmp(lj->health, "Incomplete") && lj->error_type &&
		   (!strcmp(lj->error_type, "Job") ||
		    !strcmp(lj->error_type, "Test") ||
		    !strcmp(lj->error_type, "LAVATimeout")) &&
		   kernel_failed(console.buf)) {
		const char *e = lj->error_msg ? lj->error_msg : lj->error_type;

		state = "skip";
		/* LAVA's message may be the panic's lines: the first says it */
		sbuf_addf(&msg,
			  "%s: %.12s cannot be booted (LAVA job %ld: %.*s)",
			  b->m->host->name, b->commit, (long)b->rec.lava_id,
			  (int)strcspn(e, "\r\n"), e);
	} else {
		state = "infra";
		sbuf_addf(&msg, "%s: LAVA job %ld on %s ended %s%s%s%s",
			  b->m->host->name, (long)b->rec.lava_id,
			  lj->device ? lj->device : "no device", lj->health,
			  lj->error_type ? " (" : "",
			  lj->error_type ? lj->error_type : "",
			  lj->error_type ? ")" : "");
		if (lj->error_msg)
			sbuf_addf(&msg, ": %.*s",
				  (int)strcspn(lj->error_msg, "\r\n"),
				  lj->error_msg);
	}
	dir = rb_dirname(path);
	if (rb_mkdir_p(dir) < 0 ||
	    rb_write_file_atomic(path, console.buf, console.len) < 0 ||
	    store_boot_add(st, 0, b->m->host->name, b->commit, state,
			   !strcmp(state, "skip") ? 125 : 0, rb_now(), rb_now(),
			   path, &boot_id) < 0 ||
	    store_lava_finish(st, b->rec.id, state,
			      strcmp(state, "ok") ? 0 : boot_id,
			      msg.len ? msg.buf : NULL) < 0)
		goto out;
	b->m->r->counts.boots++;
	free(b->rec.state);
	b->rec.state = xstrdup(state);
	b->rec.boot_id = boot_id;
	if (msg.len)
		sbuf_addstr(why, msg.buf);
	ret = 0;
out:
	sbuf_release(&console);
	sbuf_release(&msg);
	free(path);
	free(dir);
	return ret;
}

/*
 * Wait for the submitted job to finish and record its verdict. 0 done
 * (rec's state is the verdict), 1 infrastructure or a stop (why says
 * it), -1 the robot failed.
 */
static int wait_job(struct batch *b, struct sbuf *why)
{
	struct lava_job lj;
	int r;

	for (;;) {
		if (rb_stop_requested()) {
			sbuf_addf(why,
				  "%s: stopped while LAVA job %ld runs "
				  "(the next robot waits on it)",
				  b->m->host->name, (long)b->rec.lava_id);
			return 1;
		}
		if (lava_job_get(&b->s->c, b->rec.lava_id, &lj) < 0) {
			if (!b->s->c.infra) {
				/* the server forgot the job: lab trouble */
				sbuf_addf(why, "%s: %s", b->m->host->name,
					  rb_errmsg());
				if (store_lava_finish(b->m->r->st, b->rec.id,
						      "infra", 0, why->buf) < 0)
					return -1;
				return 1;
			}
			if (server_gone(b, why))
				return 1;
			rb_sleep(LAVA_POLL);
			continue;
		}
		server_back(b);
		if ((lj.finished || b->rec.id != b->own) && strays(b) < 0) {
			lava_job_release(&lj);
			return -1;
		}
		if (lj.finished) {
			r = finish(b, &lj, why);
			lava_job_release(&lj);
			if (r == 2) {
				rb_sleep(LAVA_POLL);
				continue;
			}
			return r;
		}
		lava_job_release(&lj);
		rb_sleep(LAVA_POLL);
	}
}

bool lava_run_output(const char *console, int n, struct sbuf *text, int *rc)
{
	char begin[48], end[48];
	const char *p = console, *line;
	size_t len, el;
	bool in = false;

	snprintf(begin, sizeof(begin), "robot-run: begin %d", n);
	el = (size_t)snprintf(end, sizeof(end), "robot-run: end %d status ", n);
	sbuf_reset(text);
	while (rb_next_line(&p, &line, &len)) {
		while (len && line[len - 1] == '\r')
			len--;
		if (!in) {
			in = len == strlen(begin) && !memcmp(line, begin, len);
			continue;
		}
		if (len > el && !memcmp(line, end, el)) {
			char num[16];
			long v;

			snprintf(num, sizeof(num), "%.*s",
				 (int)RB_MIN(len - el, sizeof(num) - 1),
				 line + el);
			if (rb_parse_long(num, &v) < 0 || v < 0 || v > 255)
				return false;
			*rc = (int)v;
			return true;
		}
		sbuf_add(text, line, len);
		sbuf_addch(text, '\n');
	}
	return false;
}

/* The batch's next output as this slot's run of the commit. */
static int take_run(struct batch *b, struct measure_result *res,
		    struct statset *stats, struct sbuf *why)
{
	struct sbuf text = SBUF_INIT, cmdline = SBUF_INIT, script = SBUF_INIT;
	char *path = console_path(lab_of(b), b->rec.lava_id), *console = NULL;
	enum run_status rs;
	int taken, rc = 0, ret = -1;

	res->stage = MEASURE_RUN;
	if (store_lava_taken(b->m->r->st, b->rec.boot_id, &taken) < 0 ||
	    rb_read_file(path, &console, NULL) < 0 ||
	    lava_batch_script(b->m->r->job, b->m->host, 1, &script, &cmdline) <
		    0)
		goto out;
	if (!lava_run_output(console, taken, &text, &rc))
		rc = -1; /* a Complete job without this run's lines */
	if (runner_record(b->m->r, b->m->host, b->commit, b->rec.boot_id,
			  text.buf, rc, cmdline.buf, &rs, stats, why) < 0)
		goto out;
	res->outcome = rs == RUN_OK	? MEASURE_OK :
		       rs == RUN_FAILED ? MEASURE_FAILED :
					  MEASURE_INFRA;
	res->run_id = b->m->r->last_run_id;
	ret = 0;
out:
	sbuf_release(&text);
	sbuf_release(&cmdline);
	sbuf_release(&script);
	free(path);
	free(console);
	return ret;
}

int lava_measure(struct measure *m, const char *commit,
		 struct measure_result *res, struct statset *stats,
		 struct sbuf *why)
{
	struct batch b = { .m = m, .commit = commit };
	struct run_key key;
	int ret = -1, r;

	res->stage = MEASURE_BOOT;
	res->outcome = MEASURE_INFRA;
	if (!m->lava) {
		struct lava_slot *s = xcalloc(1, sizeof(*s));

		if (lava_open(&s->c, &m->r->lab->lava) < 0) {
			free(s);
			return -1;
		}
		m->lava = s;
	}
	b.s = m->lava;
	runner_key(m->r, m->host->name, commit, &key);
	b.key = xstrfmt("%s/%s/%s/%s/%s", key.testcase, key.path_params,
			key.rootfs, key.kconfig, key.compiler);
	for (;;) {
		if (rb_stop_requested()) {
			sbuf_addf(why, "%s: stopped", m->host->name);
			ret = 0;
			goto out;
		}
		lava_job_rec_release(&b.rec);
		r = store_lava_open(m->r->st, m->host->name, commit, b.key,
				    &b.rec);
		if (r < 0)
			goto out;
		if (r == 0)
			r = new_batch(&b, why);
		else if (!strcmp(b.rec.state, "submitting"))
			r = submit(&b, why);
		else if (!strcmp(b.rec.state, "submitted"))
			r = wait_job(&b, why);
		else
			break; /* "ok" with outputs left */
		if (r < 0)
			goto out;
		if (r == 2) {
			/* the server does not answer yet: look again */
			rb_sleep(LAVA_POLL);
			continue;
		}
		if (r == 1) {
			ret = 0;
			goto out;
		}
		if (!strcmp(b.rec.state, "skip")) {
			res->outcome = MEASURE_SKIP;
			ret = 0;
			goto out;
		}
		if (!strcmp(b.rec.state, "infra")) {
			ret = 0;
			goto out;
		}
	}
	ret = take_run(&b, res, stats, why);
out:
	lava_job_rec_release(&b.rec);
	free(b.key);
	return ret;
}

/* --- bisect reset, a bisection's end ---------------------------------- */

int lava_cancel_waiting(const struct lab *lab, struct store *st,
			int64_t bisection_id, const char *why, size_t *n)
{
	struct lava_job_rec *jobs = NULL;
	struct lava_client c;
	size_t nr = 0, i;
	int ret = -1;

	*n = 0;
	if (store_lava_waiting(st, bisection_id, &jobs, &nr) < 0)
		return -1;
	if (!nr) {
		ret = 0;
		goto out;
	}
	if (lava_open(&c, &lab->lava) < 0)
		goto out;
	for (i = 0; i < nr; i++) {
		long id = (long)jobs[i].lava_id;

		if (!id && lava_find(&c, jobs[i].name, &id) < 0)
			break;
		if (id && lava_cancel(&c, id) < 0 &&
		    !strstr(rb_errmsg(), "HTTP 4"))
			break;
		if (store_lava_finish(st, jobs[i].id, "canceled", 0, why) < 0)
			break;
		(*n)++;
	}
	lava_close(&c);
	ret = i == nr ? 0 : -1;
out:
	for (i = 0; i < nr; i++)
		lava_job_rec_release(&jobs[i]);
	free(jobs);
	return ret;
}
