// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lab file, read through one schema table.
 */
#include <ctype.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "mail.h"
#include "mail-header.h"
#include "transport.h"
#include "sbuf.h"
#include "stats.h"

/* The largest lab file read. */
#define LAB_FILE_MAX (4u << 20)

static int check_timeout(const struct schema_ctx *ctx, const struct ynode *n,
			 const char *val)
{
	return schema_check_seconds(ctx, n, "timeout", val);
}

/* Host names end up in paths and messages. */
static int check_host_name(const struct schema_ctx *ctx, const struct ynode *n,
			   const char *val)
{
	size_t ok = strspn(val, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");

	if (!*val || val[ok] || val[0] == '-' || val[0] == '.')
		return ynode_error(ctx->file, n,
				   "host name '%s' is not [A-Za-z0-9._-]+",
				   val);
	return 0;
}

/* An ssh destination must not read as an option or hide a newline. */
static int check_ssh_dest(const struct schema_ctx *ctx, const struct ynode *n,
			  const char *val)
{
	const char *p;

	if (!*val || val[0] == '-')
		return ynode_error(ctx->file, n,
				   "ssh destination '%s' must not be empty or "
				   "start with '-'",
				   val);
	for (p = val; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '\'' || *p == '"' ||
		    *p == '\\')
			return ynode_error(ctx->file, n,
					   "ssh destination '%s' holds a "
					   "space, quote or control character",
					   val);
	return 0;
}

static int check_no_newline(const struct schema_ctx *ctx, const struct ynode *n,
			    const char *val)
{
	if (strpbrk(val, "\n\r"))
		return ynode_error(ctx->file, n, "'%s' holds a newline", val);
	return 0;
}

/* A block device of the host: /dev/ and a plain path. */
static int check_device(const struct schema_ctx *ctx, const struct ynode *n,
			const char *val)
{
	size_t i;

	if (!rb_starts_with(val, "/dev/") || strstr(val, ".."))
		return ynode_error(ctx->file, n,
				   "'%s' is not a device under /dev/", val);
	for (i = 5; val[i]; i++)
		if (!isalnum((unsigned char)val[i]) && !strchr("/_-.:", val[i]))
			return ynode_error(ctx->file, n,
					   "device '%s' may hold only letters, "
					   "digits and '/_-.:'",
					   val);
	return 0;
}

/* A login name (POSIX portable characters, not starting with '-'). */
static int check_user(const struct schema_ctx *ctx, const struct ynode *n,
		      const char *val)
{
	size_t i;

	for (i = 0; val[i]; i++)
		if (!isalnum((unsigned char)val[i]) && !strchr("._-", val[i]))
			break;
	if (*val && !val[i] && val[0] != '-' && i <= 32)
		return 0;
	return ynode_error(ctx->file, n, "'%s' is not a user name", val);
}

/*
 * The URL as the delivery will judge it (rb_mail_check: libcurl's parse,
 * no password inside), so that a lab the mail cannot use is refused
 * before a bisection is measured, not when its mail is sent.
 */
static int check_smtp(const struct schema_ctx *ctx, const struct ynode *n,
		      const char *val)
{
	struct rb_smtp smtp = { .url = val };

	if (!strcmp(val, "none"))
		return 0;
	if (!rb_starts_with(val, "smtp://") && !rb_starts_with(val, "smtps://"))
		return ynode_error(ctx->file, n,
				   "smtp '%s' must be smtp://HOST:PORT, "
				   "smtps://HOST:PORT or none",
				   val);
	if (check_no_newline(ctx, n, val) < 0)
		return -1;
	if (rb_mail_check(&smtp) < 0)
		return ynode_error(ctx->file, n, "%s", rb_errmsg());
	return 0;
}

/* A mailbox of from, to or cc, by the mail's own parse and check. */
static int check_mailbox(const struct schema_ctx *ctx, const struct ynode *n,
			 const char *val)
{
	if (check_no_newline(ctx, n, val) < 0)
		return -1;
	if (rb_mail_check_mailbox(val) < 0)
		return ynode_error(ctx->file, n, "%s", rb_errmsg());
	return 0;
}

static int check_env_name(const struct schema_ctx *ctx, const struct ynode *n,
			  const char *val)
{
	size_t ok = strspn(val, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	if (!*val || val[ok] || (val[0] >= '0' && val[0] <= '9'))
		return ynode_error(ctx->file, n,
				   "'%s' is not an environment variable name",
				   val);
	return 0;
}

static const char *const baselines[] = { "previous", "tag", NULL };

static int check_threshold(const struct schema_ctx *ctx, const struct ynode *n,
			   const char *val)
{
	double pct;
	int sign;

	if (stats_parse_pct(val, &pct, &sign) < 0)
		return ynode_error(ctx->file, n, "%s", rb_errmsg());
	return 0;
}

static int check_param(const struct schema_ctx *ctx, const struct ynode *n,
		       const char *val)
{
	const char *eq = strchr(val, '=');

	if (!eq || eq == val || strpbrk(val, "\n\r"))
		return ynode_error(ctx->file, n,
				   "parameter '%s' is not KEY=VALUE", val);
	return 0;
}

static int check_at_least_2(const struct schema_ctx *ctx, const struct ynode *n,
			    const char *val)
{
	long v;

	if (rb_parse_long(val, &v) < 0 || v < 2 || v > 1000)
		return ynode_error(ctx->file, n,
				   "'%s' runs: a detection needs 2 to 1000",
				   val);
	return 0;
}

#define TREE_OFF(f) offsetof(struct lab_tree, f)
#define HOOK_OFF(f) offsetof(struct lab_hooks, f)
#define HOST_OFF(f) offsetof(struct lab_host, f)
#define MAIL_OFF(f) offsetof(struct lab_mail, f)
#define LAB_OFF(f) offsetof(struct lab, f)

static const struct schema_row tree_rows[] = {
	{ .name = "name",
	  .type = SCH_STR,
	  .off = TREE_OFF(name),
	  .check = check_host_name,
	  .help = "shown in mails as [name:branch]" },
	{ .name = "path",
	  .type = SCH_PATH,
	  .off = TREE_OFF(path),
	  .flags = SCH_F_REQUIRED,
	  .help = "the local git repository" },
	{ .name = "url",
	  .type = SCH_STR,
	  .off = TREE_OFF(url),
	  .check = check_no_newline },
	{ .name = "branch",
	  .type = SCH_STR,
	  .off = TREE_OFF(branch),
	  .def = "master",
	  .check = check_no_newline },
	{ .name = "ssh_key",
	  .type = SCH_PATH,
	  .off = TREE_OFF(ssh_key),
	  .help = "the private key offered to ssh:// URLs" },
	{ .name = "known_hosts",
	  .type = SCH_PATH,
	  .off = TREE_OFF(known_hosts),
	  .help = "host keys of ssh:// URLs (default ~/.ssh/known_hosts)" },
	{ .name = "ca_file",
	  .type = SCH_PATH,
	  .off = TREE_OFF(ca_file),
	  .help = "the CA an https:// URL's certificate is checked against" },
	{ .name = NULL },
};

static const struct schema_row hook_rows[] = {
	{ .name = "build",
	  .type = SCH_PATH,
	  .off = HOOK_OFF(build),
	  .help = "builds a kernel" },
	{ .name = "boot",
	  .type = SCH_PATH,
	  .off = HOOK_OFF(boot),
	  .help = "boots it on a host" },
	{ .name = "build_timeout",
	  .type = SCH_DURATION,
	  .off = HOOK_OFF(build_timeout),
	  .def = "2h",
	  .check = check_timeout },
	{ .name = "boot_timeout",
	  .type = SCH_DURATION,
	  .off = HOOK_OFF(boot_timeout),
	  .def = "15m",
	  .check = check_timeout },
	{ .name = NULL },
};

static const struct schema_row host_rows[] = {
	{ .name = "name",
	  .type = SCH_STR,
	  .off = HOST_OFF(name),
	  .check = check_host_name,
	  .flags = SCH_F_REQUIRED },
	{ .name = "transport",
	  .type = SCH_STR,
	  .off = HOST_OFF(transport),
	  .def = "ssh",
	  .allowed = transport_names },
	{ .name = "ssh",
	  .type = SCH_STR,
	  .off = HOST_OFF(ssh),
	  .check = check_ssh_dest,
	  .help = "user@host or a Host alias of ssh_config" },
	{ .name = "nr_cpu",
	  .type = SCH_LONG,
	  .off = HOST_OFF(nr_cpu),
	  .check = job_check_nr_cpu },
	{ .name = "machine",
	  .type = SCH_STR,
	  .off = HOST_OFF(machine),
	  .check = check_no_newline },
	{ .name = "stress_ng",
	  .type = SCH_STR,
	  .off = HOST_OFF(stress_ng),
	  .check = check_no_newline,
	  .help = "the stress-ng binary on the host" },
	{ .name = "hdd_partitions",
	  .type = SCH_STRLIST,
	  .off = HOST_OFF(hdd_partitions),
	  .check = check_device,
	  .help = "spare disks for jobs with disk: NHDD (wiped by mkfs)" },
	{ .name = "ssd_partitions",
	  .type = SCH_STRLIST,
	  .off = HOST_OFF(ssd_partitions),
	  .check = check_device,
	  .help = "spare disks for jobs with disk: NSSD (wiped by mkfs)" },
	{ .name = "unprivileged_user",
	  .type = SCH_STR,
	  .off = HOST_OFF(unprivileged_user),
	  .def = "lkp",
	  .check = check_user,
	  .help = "the user lkp runs exec, spawn and bad-ioctl as" },
	{ .name = NULL },
};

static const struct schema_row mail_rows[] = {
	{ .name = "from",
	  .type = SCH_STR,
	  .off = MAIL_OFF(from),
	  .def = "kernel test robot <robot@localhost>",
	  .check = check_mailbox },
	{ .name = "to",
	  .type = SCH_STRLIST,
	  .off = MAIL_OFF(to),
	  .check = check_mailbox },
	{ .name = "cc",
	  .type = SCH_STRLIST,
	  .off = MAIL_OFF(cc),
	  .check = check_mailbox },
	{ .name = "smtp",
	  .type = SCH_STR,
	  .off = MAIL_OFF(smtp),
	  .def = "none",
	  .check = check_smtp },
	{ .name = "archive_url",
	  .type = SCH_STR,
	  .off = MAIL_OFF(archive_url),
	  .check = check_no_newline },
	{ .name = "auto_send",
	  .type = SCH_BOOL,
	  .off = MAIL_OFF(auto_send),
	  .def = "false" },
	{ .name = "starttls",
	  .type = SCH_BOOL,
	  .off = MAIL_OFF(starttls),
	  .def = "false" },
	{ .name = "user",
	  .type = SCH_STR,
	  .off = MAIL_OFF(user),
	  .check = check_no_newline },
	{ .name = "password_env",
	  .type = SCH_STR,
	  .off = MAIL_OFF(password_env),
	  .check = check_env_name },
	{ .name = "password_file", .type = SCH_PATH, MAIL_OFF(password_file) },
	{ .name = "ca_file",
	  .type = SCH_PATH,
	  .off = MAIL_OFF(ca_file),
	  .help = "trust this CA file for the SMTP server (a self-signed "
		  "certificate)" },
	{ .name = NULL },
};

#define NIGHT_OFF(f) offsetof(struct lab_nightly, f)
#define NJOB_OFF(f) offsetof(struct lab_nightly_job, f)

static const struct schema_row nightly_job_rows[] = {
	{ .name = "job",
	  .type = SCH_PATH,
	  .off = NJOB_OFF(job),
	  .flags = SCH_F_REQUIRED,
	  .help = "a job file or a glob" },
	{ .name = "metric",
	  .type = SCH_STR,
	  .off = NJOB_OFF(metric),
	  .check = check_no_newline },
	{ .name = "threshold",
	  .type = SCH_STR,
	  .off = NJOB_OFF(threshold),
	  .check = check_threshold },
	{ .name = "params",
	  .type = SCH_STRLIST,
	  .off = NJOB_OFF(params),
	  .check = check_param,
	  .help = "KEY=VALUE: the atomic jobs to run" },
	{ .name = "hosts",
	  .type = SCH_STRLIST,
	  .off = NJOB_OFF(hosts),
	  .check = check_host_name },
	{ .name = NULL },
};

static const struct schema_row nightly_rows[] = {
	/* read after the table: entries are scalars or mappings */
	{ .name = "jobs", .type = SCH_IGNORE },
	{ .name = "hosts",
	  .type = SCH_STRLIST,
	  .off = NIGHT_OFF(hosts),
	  .check = check_host_name },
	{ .name = "metric",
	  .type = SCH_STR,
	  .off = NIGHT_OFF(metric),
	  .check = check_no_newline },
	{ .name = "threshold",
	  .type = SCH_STR,
	  .off = NIGHT_OFF(threshold),
	  .def = "5%",
	  .check = check_threshold },
	{ .name = "baseline",
	  .type = SCH_STR,
	  .off = NIGHT_OFF(baseline),
	  .def = "previous",
	  .allowed = baselines },
	{ .name = "tag_pattern",
	  .type = SCH_STR,
	  .off = NIGHT_OFF(tag_pattern),
	  .def = "v*",
	  .check = check_no_newline },
	{ .name = "interval",
	  .type = SCH_DURATION,
	  .off = NIGHT_OFF(interval),
	  .def = "6h",
	  .check = check_timeout },
	{ .name = "min_runs",
	  .type = SCH_LONG,
	  .off = NIGHT_OFF(min_runs),
	  .def = "3",
	  .check = check_at_least_2 },
	{ .name = "max_runs",
	  .type = SCH_LONG,
	  .off = NIGHT_OFF(max_runs),
	  .def = "10",
	  .check = check_at_least_2 },
	{ .name = "improvements",
	  .type = SCH_BOOL,
	  .off = NIGHT_OFF(improvements),
	  .def = "true" },
	{ .name = "still_mail",
	  .type = SCH_BOOL,
	  .off = NIGHT_OFF(still_mail),
	  .def = "false" },
	{ .name = NULL },
};

#define LAVA_OFF(f) offsetof(struct lab_lava, f)

static const char *const lava_priorities[] = { "high", "medium", "low", NULL };

static int check_http_url(const struct schema_ctx *ctx, const struct ynode *n,
			  const char *val)
{
	if (!rb_starts_with(val, "http://") && !rb_starts_with(val, "https://"))
		return ynode_error(ctx->file, n,
				   "'%s' is not an http:// or https:// URL",
				   val);
	return check_no_newline(ctx, n, val);
}

static int check_artifact_url(const struct schema_ctx *ctx,
			      const struct ynode *n, const char *val)
{
	if (rb_starts_with(val, "file://"))
		return check_no_newline(ctx, n, val);
	return check_http_url(ctx, n, val);
}

static int check_priority(const struct schema_ctx *ctx, const struct ynode *n,
			  const char *val)
{
	long v;
	size_t i;

	for (i = 0; lava_priorities[i]; i++)
		if (!strcmp(val, lava_priorities[i]))
			return 0;
	if (rb_parse_long(val, &v) == 0 && v >= 0 && v <= 100)
		return 0;
	return ynode_error(ctx->file, n,
			   "priority '%s' is not high, medium, low or 0-100",
			   val);
}

static int check_runs_per_job(const struct schema_ctx *ctx,
			      const struct ynode *n, const char *val)
{
	long v;

	(void)ctx;
	if (rb_parse_long(val, &v) < 0 || v < 1 || v > 100)
		return ynode_error(ctx->file, n,
				   "runs_per_job '%s' is not 1-100", val);
	return 0;
}

static const struct schema_row lava_rows[] = {
	{ .name = "url",
	  .type = SCH_STR,
	  .off = LAVA_OFF(url),
	  .check = check_http_url,
	  .flags = SCH_F_REQUIRED,
	  .help = "the LAVA server (its REST API is URL/api/v0.2/)" },
	{ .name = "token_env",
	  .type = SCH_STR,
	  .off = LAVA_OFF(token_env),
	  .check = check_env_name,
	  .help = "the environment variable holding the API token" },
	{ .name = "token_file",
	  .type = SCH_PATH,
	  .off = LAVA_OFF(token_file),
	  .help = "or a file holding it, readable by its owner only" },
	{ .name = "device_type",
	  .type = SCH_STR,
	  .off = LAVA_OFF(device_type),
	  .check = check_host_name,
	  .flags = SCH_F_REQUIRED,
	  .help = "the device type the jobs ask for" },
	{ .name = "tags",
	  .type = SCH_STRLIST,
	  .off = LAVA_OFF(tags),
	  .check = check_host_name },
	{ .name = "devices",
	  .type = SCH_STRLIST,
	  .off = LAVA_OFF(devices),
	  .check = check_host_name,
	  .help = "only these devices of the type make the pool" },
	{ .name = "artifact_url",
	  .type = SCH_STR,
	  .off = LAVA_OFF(artifact_url),
	  .check = check_artifact_url,
	  .flags = SCH_F_REQUIRED,
	  .help = "WORKDIR/artifacts as the worker reaches it (http(s):// "
		  "or file://)" },
	{ .name = "priority",
	  .type = SCH_STR,
	  .off = LAVA_OFF(priority),
	  .def = "medium",
	  .check = check_priority },
	{ .name = "job_timeout",
	  .type = SCH_DURATION,
	  .off = LAVA_OFF(job_timeout),
	  .def = "1h",
	  .check = check_timeout },
	{ .name = "action_timeout",
	  .type = SCH_DURATION,
	  .off = LAVA_OFF(action_timeout),
	  .def = "20m",
	  .check = check_timeout },
	{ .name = "context",
	  .type = SCH_RAW,
	  .off = LAVA_OFF(context),
	  .help = "extra job context (e.g. arch: x86_64)" },
	{ .name = "initrd",
	  .type = SCH_PATH,
	  .off = LAVA_OFF(initrd),
	  .help = "the box's initramfs (a cpio archive the batch is "
		  "appended to; scripts/hooks/qemu-boot initramfs makes one)" },
	{ .name = "kernel_image",
	  .type = SCH_STR,
	  .off = LAVA_OFF(kernel_image),
	  .def = "bzImage",
	  .check = check_host_name,
	  .help = "the kernel's file in the artifact directory" },
	{ .name = "kernel_args",
	  .type = SCH_STR,
	  .off = LAVA_OFF(kernel_args),
	  .def = "console=ttyS0,115200 rdinit=/init",
	  .check = check_no_newline,
	  .help = "the kernel command line of a batch" },
	{ .name = "runs_per_job",
	  .type = SCH_LONG,
	  .off = LAVA_OFF(runs_per_job),
	  .def = "3",
	  .check = check_runs_per_job,
	  .help = "payload runs one LAVA job (one boot) does" },
	{ .name = NULL },
};

#define BUILDS_OFF(f) offsetof(struct lab_builds, f)

static int check_build_slots(const struct schema_ctx *ctx,
			     const struct ynode *n, const char *val)
{
	long v;

	if (rb_parse_long(val, &v) < 0 || v < 1 || v > 64)
		return ynode_error(ctx->file, n, "slots '%s' is not 1-64", val);
	return 0;
}

static int check_cache_size(const struct schema_ctx *ctx, const struct ynode *n,
			    const char *val)
{
	uint64_t v;

	if (rb_parse_size(val, &v) < 0 || v == 0)
		return ynode_error(ctx->file, n,
				   "cache '%s' is not a size (50G, 800M)", val);
	return 0;
}

static const struct schema_row builds_rows[] = {
	{ .name = "slots",
	  .type = SCH_LONG,
	  .off = BUILDS_OFF(slots),
	  .def = "2",
	  .check = check_build_slots,
	  .help = "kernel builds at once on this machine" },
	{ .name = "ahead",
	  .type = SCH_BOOL,
	  .off = BUILDS_OFF(ahead),
	  .def = "true",
	  .help = "build the commits the next rounds may test" },
	{ .name = "hosts",
	  .type = SCH_STRLIST,
	  .off = BUILDS_OFF(hosts),
	  .help = "ssh build hosts (ROBOT_BUILD_HOST), one slot each" },
	{ .name = "host_dir",
	  .type = SCH_STR,
	  .off = BUILDS_OFF(host_dir),
	  .def = "robot-build",
	  .check = check_no_newline,
	  .help = "the build hosts' folder (relative: to the login's home)" },
	{ .name = "cache",
	  .type = SCH_STR,
	  .off = BUILDS_OFF(cache),
	  .check = check_cache_size,
	  .help = "artifact cache size limit; least recently used go" },
	{ .name = NULL },
};

const struct schema_row lab_schema[] = {
	{ .name = "tree",
	  .type = SCH_MAP,
	  .off = LAB_OFF(tree),
	  .sub = tree_rows },
	{ .name = "workdir",
	  .type = SCH_PATH,
	  .off = LAB_OFF(workdir),
	  .def = "robot-work" },
	{ .name = "ssh_config",
	  .type = SCH_PATH,
	  .off = LAB_OFF(ssh_config),
	  .help = "passed to ssh as -F" },
	{ .name = "hooks",
	  .type = SCH_MAP,
	  .off = LAB_OFF(hooks),
	  .sub = hook_rows },
	{ .name = "hosts",
	  .type = SCH_SEQ,
	  .off = LAB_OFF(hosts),
	  .off2 = LAB_OFF(nr_hosts),
	  .sub = host_rows,
	  .elem_size = sizeof(struct lab_host) },
	{ .name = "mail",
	  .type = SCH_MAP,
	  .off = LAB_OFF(mail),
	  .sub = mail_rows },
	{ .name = "nightly",
	  .type = SCH_MAP,
	  .off = LAB_OFF(nightly),
	  .sub = nightly_rows,
	  .help = "the nightly loop's settings" },
	{ .name = "lava",
	  .type = SCH_MAP,
	  .off = LAB_OFF(lava),
	  .sub = lava_rows,
	  .help = "a LAVA server for transport: lava hosts" },
	{ .name = "builds",
	  .type = SCH_MAP,
	  .off = LAB_OFF(builds),
	  .sub = builds_rows,
	  .help = "build slots, building ahead, the artifact cache" },
	{ .name = NULL },
};

static void nightly_jobs_release(struct lab_nightly *n)
{
	size_t i;

	for (i = 0; i < n->nr_jobs; i++)
		schema_release(nightly_job_rows, &n->jobs[i]);
	free(n->jobs);
	n->jobs = NULL;
	n->nr_jobs = 0;
}

void lab_release(struct lab *lab)
{
	nightly_jobs_release(&lab->nightly);
	schema_release(lab_schema, lab);
	free(lab->file);
	free(lab->dir);
	memset(lab, 0, sizeof(*lab));
}

const struct lab_host *lab_find_host(const struct lab *lab, const char *name)
{
	size_t i;

	for (i = 0; i < lab->nr_hosts; i++)
		if (!strcmp(lab->hosts[i].name, name))
			return &lab->hosts[i];
	return NULL;
}

static int known_hosts_of(const struct lab *lab, const struct svec *names,
			  const struct ynode *where)
{
	size_t i;

	for (i = 0; i < names->nr; i++)
		if (!lab_find_host(lab, names->v[i]))
			return ynode_error(
				lab->file, where,
				"no host '%s' in hosts:", names->v[i]);
	return 0;
}

/* nightly.jobs: each entry a file or glob, or a mapping of job_rows. */
static int nightly_jobs(struct lab *lab, const struct schema_ctx *ctx,
			const struct ynode *root)
{
	struct lab_nightly *n = &lab->nightly;
	const struct ynode *sec = ynode_map_get(root, "nightly"), *jobs;
	size_t i;

	n->present = ynode_map_find(root, "nightly") >= 0;
	if (!sec || sec->kind != YNODE_MAP)
		return 0;
	if (known_hosts_of(lab, &n->hosts, ynode_map_get(sec, "hosts")) < 0)
		return -1;
	if (n->min_runs > n->max_runs)
		return ynode_error(lab->file, sec,
				   "nightly.min_runs (%ld) is above "
				   "nightly.max_runs (%ld)",
				   n->min_runs, n->max_runs);
	jobs = ynode_map_get(sec, "jobs");
	if (!jobs || (jobs->kind == YNODE_SCALAR && jobs->is_null))
		return 0;
	if (jobs->kind == YNODE_MAP)
		return ynode_error(lab->file, jobs,
				   "'nightly.jobs' must be a list of job files "
				   "(or globs), not a mapping");
	if (jobs->kind == YNODE_SCALAR) {
		n->jobs = xcalloc(1, sizeof(*n->jobs));
		n->nr_jobs = 1;
		svec_init(&n->jobs[0].params);
		svec_init(&n->jobs[0].hosts);
		n->jobs[0].job = rb_path_join(lab->dir, jobs->str);
		n->jobs[0].line = jobs->line;
		n->jobs[0].col = jobs->col;
		return 0;
	}
	n->jobs = xcalloc(jobs->nr + 1, sizeof(*n->jobs));
	for (i = 0; i < jobs->nr; i++) {
		const struct ynode *e = jobs->vals[i];
		struct lab_nightly_job *j = &n->jobs[i];
		char *name;
		int r;

		n->nr_jobs++;
		svec_init(&j->params);
		svec_init(&j->hosts);
		j->line = e->line;
		j->col = e->col;
		if (e->kind == YNODE_SCALAR) {
			if (!*e->str)
				return ynode_error(lab->file, e,
						   "an empty job entry");
			j->job = rb_path_join(lab->dir, e->str);
			continue;
		}
		if (e->kind != YNODE_MAP)
			return ynode_error(lab->file, e,
					   "a job entry is a file, a glob or a "
					   "mapping, not a %s",
					   ynode_kind_name(e->kind));
		name = xstrfmt("nightly.jobs[%zu]", i);
		r = schema_parse(nightly_job_rows, e, j, ctx, name, e);
		free(name);
		if (r < 0 || known_hosts_of(lab, &j->hosts,
					    ynode_map_get(e, "hosts")) < 0)
			return -1;
	}
	return 0;
}

/* Hosts of transport lava need the lava: section and its initrd. */
static int lava_hosts(struct lab *lab, const struct ynode *hosts)
{
	size_t i;

	for (i = 0; i < lab->nr_hosts; i++) {
		const struct lab_host *h = &lab->hosts[i];

		if (!transport_host_is_lava(h))
			continue;
		if (!lab->lava.url)
			return ynode_error(lab->file, hosts->vals[i],
					   "host '%s' is a LAVA slot but the "
					   "lab has no lava: section",
					   h->name);
		if (!lab->lava.initrd)
			return ynode_error(lab->file, hosts->vals[i],
					   "host '%s' is a LAVA slot but "
					   "lava: has no initrd:",
					   h->name);
		if (!h->nr_cpu)
			return ynode_error(lab->file, hosts->vals[i],
					   "host '%s' is a LAVA slot: give "
					   "its devices' nr_cpu (nproc cannot "
					   "be asked before a job boots one)",
					   h->name);
		if (h->hdd_partitions.nr || h->ssd_partitions.nr)
			return ynode_error(lab->file, hosts->vals[i],
					   "host '%s': a LAVA slot has no "
					   "partitions of its own (the pool's "
					   "devices do)",
					   h->name);
	}
	return 0;
}

/* Checks across rows, after the table has been read. */
/* builds.hosts: ssh destinations (never an option, never two lines) */
static int build_hosts(const struct lab *lab, const struct ynode *root)
{
	const struct ynode *list =
		ynode_map_get(ynode_map_get(root, "builds"), "hosts");
	size_t i;

	for (i = 0; i < lab->builds.hosts.nr; i++) {
		const char *h = lab->builds.hosts.v[i];
		const struct ynode *at =
			list->kind == YNODE_SEQ ? list->vals[i] : list;

		size_t k;

		if (!*h || h[0] == '-' || strpbrk(h, " \t\r\n'\"\\"))
			return ynode_error(lab->file, at,
					   "build host '%s' is not an ssh "
					   "destination (user@host or a "
					   "Host alias)",
					   h);
		for (k = 0; k < lab->nr_hosts; k++)
			if (!strcmp(h, lab->hosts[k].name) ||
			    (lab->hosts[k].ssh &&
			     !strcmp(h, lab->hosts[k].ssh)))
				return ynode_error(
					lab->file, at,
					"build host '%s' is the test host '%s': "
					"a build never runs on a box that "
					"measures",
					h, lab->hosts[k].name);
	}
	return 0;
}

/*
 * The login the delivery would refuse (rb_mail_check): a password without
 * a user, a password without TLS. Not the CA file: a file of the machine
 * that sends, looked at when it sends.
 */
static int mail_login(const struct lab *lab, const struct ynode *root)
{
	const struct lab_mail *m = &lab->mail;
	const struct ynode *sec = ynode_map_get(root, "mail"), *at;
	struct rb_smtp smtp = { .url = m->smtp,
				.starttls = m->starttls,
				.user = m->user,
				.password_env = m->password_env,
				.password_file = m->password_file };

	if (!m->smtp || !strcmp(m->smtp, "none") || !rb_mail_check(&smtp))
		return 0;
	at = ynode_map_get(sec, "user");
	if (!at)
		at = ynode_map_get(sec, "password_env");
	if (!at)
		at = ynode_map_get(sec, "password_file");
	return ynode_error(lab->file, at ? at : sec, "%s", rb_errmsg());
}

static int finish(struct lab *lab, const struct schema_ctx *ctx,
		  const struct ynode *root)
{
	const struct ynode *hosts = ynode_map_get(root, "hosts");
	size_t i, k;

	if (lab->tree.path && !lab->tree.name) {
		const char *slash = strrchr(lab->tree.path, '/');

		lab->tree.name =
			xstrdup(slash && slash[1] ? slash + 1 : lab->tree.path);
	}
	for (i = 0; i < lab->nr_hosts; i++) {
		struct lab_host *h = &lab->hosts[i];
		const struct ynode *e = hosts->vals[i];

		h->line = e->line;
		h->col = e->col;
		if (!h->ssh && !transport_host_is_here(h) &&
		    !transport_host_is_lava(h))
			h->ssh = xstrdup(h->name);
		for (k = 0; k < i; k++)
			if (!strcmp(lab->hosts[k].name, h->name))
				return ynode_error(lab->file, e,
						   "host '%s' is listed twice "
						   "(first at line %d)",
						   h->name, lab->hosts[k].line);
	}
	if (lava_hosts(lab, hosts) < 0)
		return -1;
	if (lab->builds.cache &&
	    rb_parse_size(lab->builds.cache, &lab->builds.cache_bytes) < 0)
		RB_BUG("cache '%s' passed its check", lab->builds.cache);
	if (build_hosts(lab, root) < 0 || mail_login(lab, root) < 0)
		return -1;
	return nightly_jobs(lab, ctx, root);
}

int lab_load_string(struct lab *lab, const char *file, const char *dir,
		    const char *text, size_t len)
{
	struct schema_ctx ctx = { .file = file, .dir = dir };
	struct ystream st;
	const struct ynode *root = NULL;
	size_t i;
	int ret = -1;

	memset(lab, 0, sizeof(*lab));
	lab->file = xstrdup(file);
	lab->dir = xstrdup(dir);
	if (ytree_parse(&st, file, text, len) < 0)
		goto fail;
	for (i = 0; i < st.nr; i++) {
		const struct ynode *d = st.docs[i];

		if (d->kind == YNODE_SCALAR && d->is_null)
			continue;
		if (root) {
			ynode_error(file, d, "a lab file holds one document");
			goto out;
		}
		root = d;
	}
	if (!root) {
		rb_error("%s:1:1: the lab file is empty", file);
		goto out;
	}
	if (root->kind != YNODE_MAP) {
		ynode_error(file, root,
			    "a lab file must be a mapping, not a %s",
			    ynode_kind_name(root->kind));
		goto out;
	}
	if (schema_parse(lab_schema, root, lab, &ctx, NULL, root) < 0 ||
	    finish(lab, &ctx, root) < 0)
		goto out;
	ret = 0;
out:
	ystream_release(&st);
fail:
	if (ret < 0) {
		char *msg = xstrdup(rb_errmsg());

		lab_release(lab);
		rb_error("%s", msg);
		free(msg);
	}
	return ret;
}

int lab_load(struct lab *lab, const char *path)
{
	char *buf, *abs, *dir;
	size_t len;
	int r;

	memset(lab, 0, sizeof(*lab));
	if (rb_read_file_max(path, LAB_FILE_MAX, &buf, &len) < 0)
		return -1;
	abs = rb_realpath(path);
	if (!abs) {
		free(buf);
		return -1;
	}
	dir = rb_dirname(abs);
	r = lab_load_string(lab, path, dir, buf, len);
	free(dir);
	free(abs);
	free(buf);
	return r;
}
