// SPDX-License-Identifier: GPL-2.0-only
/*
 * robot lab check --lab LAB [--job JOB [--param K=V]...]
 */
#include <sys/stat.h>
#include <unistd.h>

#include "../robot.h"
#include "../fetch.h"
#include "../job.h"
#include "../lab.h"
#include "../lava-exec.h"
#include "../lava.h"
#include "../nightly-jobs.h"
#include "../payload.h"
#include "../repo.h"
#include "../runner.h"
#include "../sbuf.h"
#include "../svec.h"
#include "../transport.h"
#include "cli.h"

/* Seconds one probe (`true`, `nproc`) may take, connection included. */
#define PROBE_TIMEOUT 60

struct row {
	const char *host;
	const char *transport;
	bool reachable;
	long nproc;
	int payload; /* 1 runs (and knows the jobs), 0 not, -1 not asked */
	char *msg;
};

struct lab_check_opts {
	const char *lab;
	const char *job;
	struct svec params;
};

static bool check_hook(const char *name, const char *path)
{
	if (!path) {
		rb_warn("hooks.%s is not set", name);
		return true;
	}
	if (rb_is_executable(path))
		return true;
	rb_error("hooks.%s '%s' is %s", name, path,
		 rb_file_exists(path) ? "not executable" : "missing");
	rb_error_print();
	return false;
}

/* Print the stored error (one line); false, for `ok = failed()`. */
static bool failed(void)
{
	rb_error_print();
	return false;
}

/*
 * A folder the robot makes with mkdir -p when it first needs it (the
 * workdir; tree.path, which the nightly's first fetch creates): there
 * and writable, or not there yet with its nearest existing parent a
 * writable folder.
 */
static bool check_dir(const char *key, const char *path)
{
	char *p = xstrdup(path), *slash;
	struct stat st;
	bool ok = true;

	while (stat(p, &st) < 0) {
		int e = errno;

		slash = strrchr(p, '/');
		if ((e != ENOENT && e != ENOTDIR) || !slash) {
			rb_error("%s '%s': cannot stat '%s': %s", key, path, p,
				 strerror(e));
			ok = failed();
			goto out;
		}
		/* "/a/b" to "/a", "/a" to "/" */
		slash[slash == p] = '\0';
	}
	if (!S_ISDIR(st.st_mode)) {
		if (!strcmp(p, path))
			rb_error("%s '%s' is not a directory", key, path);
		else
			rb_error("%s '%s' cannot be created: '%s' is not a "
				 "directory",
				 key, path, p);
		ok = failed();
	} else if (access(p, W_OK | X_OK) < 0) {
		if (!strcmp(p, path))
			rb_error("%s '%s' is not writable: %s", key, path,
				 strerror(errno));
		else
			rb_error("%s '%s' cannot be created in '%s': %s", key,
				 path, p, strerror(errno));
		ok = failed();
	}
out:
	free(p);
	return ok;
}

/*
 * The tree the robot bisects and the nightly follows. Without tree.url:
 * tree.path is a repository with the branch tree.branch, as the nightly
 * reads its head. With one: the remote answers and has the branch (the
 * nightly's fetch would fail otherwise), and tree.path is a repository
 * or can be made one (the first fetch creates it).
 */
static bool check_tree(const struct lab_tree *t)
{
	struct rb_fetch_opts fo = { .path = t->path,
				    .url = t->url,
				    .branch = t->branch,
				    .ssh_key = t->ssh_key,
				    .known_hosts = t->known_hosts,
				    .ca_file = t->ca_file };
	struct rb_repo *repo = NULL;
	uint8_t oid[RB_OID_RAWSZ];
	char *ref = NULL;
	bool ok = true;

	if (!t->path)
		return true;
	if (!rb_file_exists(t->path)) {
		if (!t->url) {
			rb_error("tree.path '%s' does not exist (and the lab "
				 "has no tree.url to fetch it from)",
				 t->path);
			return failed();
		}
		if (!check_dir("tree.path", t->path))
			return false;
	} else if (rb_repo_open(&repo, t->path) < 0) {
		return failed();
	}
	if (t->url) {
		if (rb_fetch_check(&fo) < 0)
			ok = failed();
		goto out;
	}
	ref = xstrfmt("refs/heads/%s", t->branch);
	if (rb_repo_resolve(repo, ref, oid) < 0) {
		rb_error("tree.branch '%s' is not a branch of '%s' (and the "
			 "lab has no tree.url to fetch it from)",
			 t->branch, t->path);
		ok = failed();
	}
out:
	free(ref);
	rb_repo_free(repo);
	return ok;
}

/*
 * nightly.jobs, read by the nightly's own code (nightly_jobs_each): an
 * entry or job file that would give a cycle no job is a line each.
 */
static int nightly_job_ok(void *arg, const struct lab_nightly_job *ent,
			  const char *file, const struct job *job)
{
	return 0;
}

static void nightly_job_bad(void *arg, const char *msg)
{
	(*(unsigned *)arg)++;
	rb_error("%s", msg);
	rb_error_print();
}

static bool check_nightly_jobs(const struct lab *lab)
{
	unsigned bad = 0;

	if (nightly_jobs_each(lab, nightly_job_ok, nightly_job_bad, &bad))
		RB_BUG("nightly_job_ok stopped the walk");
	return !bad;
}

/*
 * The lab's LAVA server: it answers, takes the token, has the device
 * type; its pool on one line of stdout.
 */
static bool check_lava(const struct lab_lava *cfg)
{
	struct lava_client c;
	struct lava_pool pool;
	bool ok = false;

	if (lava_open(&c, cfg) == 0 && lava_check(&c, cfg, &pool) == 0) {
		printf("lava %s: device type %s: %zu device%s, %zu good, %zu "
		       "idle\n",
		       c.url, cfg->device_type, pool.total,
		       RB_PLURAL(pool.total), pool.good, pool.idle);
		if (!pool.good)
			rb_warn("no device of type %s is in good health: jobs "
				"would wait",
				cfg->device_type);
		ok = true;
	} else {
		rb_error_print();
	}
	lava_close(&c);
	return ok;
}

/* One line of a probe's stderr for the message column. */
static char *first_line(const struct sbuf *sb)
{
	const char *nl = strchr(sb->buf, '\n');

	return xstrndup(sb->buf, nl ? (size_t)(nl - sb->buf) : sb->len);
}

/*
 * The host's payload answers its help (the path is right, the binary runs
 * there), and with jobs, knows each one's test and options: the command
 * line each would run is built against that help, as a run builds it.
 */
static void probe_payload(struct transport *t, const struct lab_host *h,
			  const struct job_list *jobs, struct row *r)
{
	const struct payload_ops *p = payload_find(NULL);
	struct sbuf why = SBUF_INIT;
	char *help = NULL;
	size_t i;
	int got;

	r->payload = 0;
	got = runner_payload_help(t, p, h, PROBE_TIMEOUT, &help, &why);
	if (got <= 0) {
		r->msg = got < 0 ? xstrdup(rb_errmsg()) :
				   xstrfmt("%s: %s", p->name, why.buf);
		goto out;
	}
	for (i = 0; jobs && i < jobs->nr; i++) {
		struct job *j = job_copy(jobs->v[i]);
		/* the command and the box's setup, as a run would refuse them */
		int bad = job_resolve(j, r->nproc > 0 ? r->nproc : 1) < 0 ||
			  runner_payload_check(j, h, help) < 0;

		job_free(j);
		if (bad) {
			r->msg = xstrdup(rb_errmsg());
			goto out;
		}
	}
	r->payload = 1;
out:
	free(help);
	sbuf_release(&why);
}

/*
 * A LAVA slot: reachable when the pool answered (check_lava), its nproc
 * the lab's nr_cpu, each job's batch buildable for its box.
 */
static void probe_lava(const struct lab_host *h, bool pool_ok,
		       const struct job_list *jobs, struct row *r)
{
	size_t i;

	r->nproc = h->nr_cpu ? h->nr_cpu : -1;
	r->payload = -1;
	if (!pool_ok) {
		r->msg = xstrdup("the LAVA pool did not answer (see above)");
		return;
	}
	r->reachable = true;
	for (i = 0; jobs && i < jobs->nr; i++) {
		struct job *j = job_copy(jobs->v[i]);
		int bad = job_resolve(j, h->nr_cpu > 0 ? h->nr_cpu : 1) < 0 ||
			  lava_check_job(j, h) < 0;

		job_free(j);
		if (bad) {
			r->payload = 0;
			r->msg = xstrdup(rb_errmsg());
			return;
		}
	}
	r->msg = xstrdup("a slot of the LAVA pool");
}

/*
 * Run cmd on t: true when it ran and exited 0, else false with the row's
 * message (the robot's error, the transport's account, or the command's
 * first line on stderr).
 */
static bool ran_ok(struct transport *t, const struct transport_cmd *cmd,
		   struct sbuf *err, struct row *r)
{
	struct transport_result res;
	struct sbuf desc = SBUF_INIT;
	bool ok = false;

	if (transport_run(t, cmd, &res) < 0) {
		r->msg = xstrdup(rb_errmsg());
		return false;
	}
	if (res.infra || !res.exited || res.code) {
		sbuf_rtrim(err);
		r->msg = res.infra || !err->len ?
				 xstrdup(transport_describe(&res, &desc)) :
				 first_line(err);
	} else {
		ok = true;
	}
	transport_result_release(&res);
	sbuf_release(&desc);
	return ok;
}

static void probe(const struct lab *lab, const struct lab_host *h,
		  const struct job_list *jobs, struct row *r)
{
	const char *true_argv[] = { "true", NULL };
	const char *nproc_argv[] = { "nproc", NULL };
	struct sbuf out = SBUF_INIT_MAX(4096), err = SBUF_INIT_MAX(4096);
	struct sbuf desc = SBUF_INIT;
	struct transport_cmd cmd = { .argv = true_argv,
				     .err = &err,
				     .timeout = PROBE_TIMEOUT };
	struct transport_result res;
	struct transport t;
	long n;

	r->nproc = -1;
	r->payload = -1;
	if (transport_open(&t, lab, h) < 0) {
		r->msg = xstrdup(rb_errmsg());
		return;
	}
	if (!ran_ok(&t, &cmd, &err, r))
		goto out;
	r->reachable = true;
	sbuf_reset(&err);
	cmd.argv = nproc_argv;
	cmd.out = &out;
	if (transport_run(&t, &cmd, &res) < 0) {
		r->msg = xstrdup(rb_errmsg());
		goto out;
	}
	sbuf_rtrim(&out);
	if (res.infra || !res.exited || res.code ||
	    rb_parse_long(out.buf, &n) < 0) {
		sbuf_rtrim(&err);
		r->msg = xstrfmt("nproc: %s%s%s",
				 transport_describe(&res, &desc),
				 err.len ? ": " : "", err.buf);
	} else {
		r->nproc = n;
	}
	transport_result_release(&res);
	probe_payload(&t, h, jobs, r);
	if (!r->msg && h->nr_cpu && r->nproc > 0 && h->nr_cpu != r->nproc)
		r->msg = xstrfmt("the lab says nr_cpu %ld", h->nr_cpu);
out:
	transport_close(&t);
	sbuf_release(&out);
	sbuf_release(&err);
	sbuf_release(&desc);
}

/*
 * A build host (builds.hosts): reachable over ssh as the build hook
 * reaches it, with the tools scripts/hooks/build-on-host and a build
 * need there (rsync, make). It measures nothing: no stress-ng column.
 */
static void probe_build_host(const struct lab *lab, const char *dest,
			     struct row *r)
{
	const char *tools_argv[] = { "sh", "-c",
				     "for t in rsync make nproc; do command -v "
				     "$t >/dev/null || echo \"$t\"; done; nproc",
				     NULL };
	struct lab_host h = { .name = (char *)dest,
			      .transport = (char *)"ssh",
			      .ssh = (char *)dest };
	struct sbuf out = SBUF_INIT_MAX(4096), err = SBUF_INIT_MAX(4096);
	struct transport_cmd cmd = { .argv = tools_argv,
				     .out = &out,
				     .err = &err,
				     .timeout = PROBE_TIMEOUT };
	struct transport t;
	const char *last;
	long n;

	r->host = dest;
	r->transport = "build";
	r->nproc = -1;
	r->payload = -1;
	if (transport_open(&t, lab, &h) < 0) {
		r->msg = xstrdup(rb_errmsg());
		return;
	}
	if (!ran_ok(&t, &cmd, &err, r))
		goto out;
	r->reachable = true;
	sbuf_rtrim(&out);
	last = strrchr(out.buf, '\n');
	last = last ? last + 1 : out.buf;
	if (rb_parse_long(last, &n) == 0)
		r->nproc = n;
	if (last != out.buf) {
		/* the tools it lacks, one a line before nproc */
		char *missing = xstrndup(out.buf, (size_t)(last - out.buf) - 1);
		char *c;

		for (c = missing; *c; c++)
			if (*c == '\n')
				*c = ' ';
		r->msg = xstrfmt("missing: %s", missing);
		r->reachable = false;
		free(missing);
	}
out:
	transport_close(&t);
	sbuf_release(&out);
	sbuf_release(&err);
}

static void print_row(size_t wh, size_t wt, const char *host,
		      const char *transport, const char *reachable,
		      const char *nproc, const char *payload, const char *msg)
{
	struct sbuf sb = SBUF_INIT;

	sbuf_addf(&sb, "%-*s  %-*s  %-9s  %5s  %-9s  %s", (int)wh, host,
		  (int)wt, transport, reachable, nproc, payload, msg);
	sbuf_rtrim(&sb);
	puts(sb.buf);
	sbuf_release(&sb);
}

/* Every host a LAVA slot: LAVA boots, the boot hook has no use. */
static bool all_lava(const struct lab *lab)
{
	size_t i;

	for (i = 0; i < lab->nr_hosts; i++)
		if (!transport_host_is_lava(&lab->hosts[i]))
			return false;
	return lab->nr_hosts > 0;
}

#define LAB_OPT(f) offsetof(struct lab_check_opts, f)
const struct rb_opt_spec lab_opts[] = {
	RB_OPT_LAB(LAB_OPT(lab)),
	RB_OPT_STR("--job", "JOB", LAB_OPT(job),
		   "check that each host's stress-ng knows this job's tests "
		   "and options"),
	RB_OPT_PARAM(LAB_OPT(params)),
	RB_OPT_END,
};

/* The atomic jobs of --job, narrowed by --param to the one they name. */
static int load_jobs(const struct lab_check_opts *o, struct job_list *jobs)
{
	long k;
	size_t i;

	if (!o->job)
		return 0;
	if (job_load_file(jobs, o->job) < 0)
		return -1;
	if (!o->params.nr)
		return 0;
	k = job_select(jobs, (const char *const *)o->params.v, o->params.nr);
	if (k < 0)
		return -1;
	for (i = jobs->nr; i-- > 0;)
		if (i != (size_t)k)
			job_list_remove(jobs, i);
	return 0;
}

static int lab_check(int argc, char **argv)
{
	struct lab_check_opts o = { .params = SVEC_INIT };
	struct job_list jobs = { 0 };
	struct lab lab;
	struct row *rows;
	size_t i, nrows, wh = 4, wt = 9;
	bool lab_up = false, pool_ok = false;
	int ret = RB_EXIT_OK;

	ret = rb_opts_parse("lab", lab_opts, argc - 1, argv + 1, &o, NULL);
	if (ret)
		goto done;
	if (!o.lab) {
		ret = rb_usage_error("lab", "check needs --lab LAB");
		goto done;
	}
	if (load_jobs(&o, &jobs) < 0 || lab_load(&lab, o.lab) < 0) {
		rb_error_print();
		ret = RB_EXIT_FAIL;
		goto done;
	}
	lab_up = true;
	if (!check_tree(&lab.tree))
		ret = RB_EXIT_FAIL;
	if (!check_dir("workdir", lab.workdir))
		ret = RB_EXIT_FAIL;
	if (!check_nightly_jobs(&lab))
		ret = RB_EXIT_FAIL;
	if (!check_hook("build", lab.hooks.build))
		ret = RB_EXIT_FAIL;
	if (!all_lava(&lab) && !check_hook("boot", lab.hooks.boot))
		ret = RB_EXIT_FAIL;
	if (lab.ssh_config && !rb_file_exists(lab.ssh_config)) {
		rb_error("ssh_config '%s' is missing", lab.ssh_config);
		rb_error_print();
		ret = RB_EXIT_FAIL;
	}
	if (lab.lava.url && !(pool_ok = check_lava(&lab.lava)))
		ret = RB_EXIT_FAIL;
	if (!lab.nr_hosts) {
		rb_error("'%s' lists no hosts", o.lab);
		rb_error_print();
		ret = RB_EXIT_FAIL;
		goto done;
	}
	nrows = lab.nr_hosts + lab.builds.hosts.nr;
	rows = xcalloc(nrows, sizeof(*rows));
	for (i = lab.nr_hosts; i < nrows; i++) {
		probe_build_host(&lab, lab.builds.hosts.v[i - lab.nr_hosts],
				 &rows[i]);
		if (!rows[i].reachable)
			ret = RB_EXIT_FAIL;
		wh = RB_MAX(wh, strlen(rows[i].host));
	}
	for (i = 0; i < lab.nr_hosts; i++) {
		rows[i].host = lab.hosts[i].name;
		rows[i].transport = lab.hosts[i].transport;
		if (transport_host_is_lava(&lab.hosts[i]))
			probe_lava(&lab.hosts[i], pool_ok, o.job ? &jobs : NULL,
				   &rows[i]);
		else
			probe(&lab, &lab.hosts[i], o.job ? &jobs : NULL,
			      &rows[i]);
		if (!rows[i].reachable || rows[i].payload == 0)
			ret = RB_EXIT_FAIL;
		wh = RB_MAX(wh, strlen(rows[i].host));
		wt = RB_MAX(wt, strlen(rows[i].transport));
	}
	print_row(wh, wt, "host", "transport", "reachable", "nproc",
		  "stress-ng", "message");
	for (i = 0; i < nrows; i++) {
		char nproc[24] = "-";

		if (rows[i].nproc >= 0)
			snprintf(nproc, sizeof(nproc), "%ld", rows[i].nproc);
		print_row(wh, wt, rows[i].host, rows[i].transport,
			  rows[i].reachable ? "yes" : "no", nproc,
			  rows[i].payload < 0 ? "-" :
			  rows[i].payload     ? "yes" :
						"no",
			  rows[i].msg ? rows[i].msg : "");
		free(rows[i].msg);
	}
	free(rows);
	if (fflush(stdout))
		ret = RB_EXIT_FAIL;
done:
	if (lab_up)
		lab_release(&lab);
	job_list_release(&jobs);
	svec_clear(&o.params);
	return ret;
}

int cmd_lab(int argc, char **argv)
{
	if (argc < 2)
		return rb_usage_error("lab", "missing subcommand");
	if (!strcmp(argv[1], "check"))
		return lab_check(argc - 1, argv + 1);
	return rb_usage_error("lab", "unknown subcommand '%s'", argv[1]);
}
