// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stress-ng payload: its output, read the way lkp-tests reads it.
 */
#include <ctype.h>
#include <math.h>
#include <yaml.h>

#include "robot.h"
#include "job.h"
#include "lab.h"
#include "payload.h"
#include "sbuf.h"
#include "svec.h"

/*
 * Every stat goes in through here: a name outside lkp's character set
 * (the output can carry anything, escape sequences included) or a value
 * that is not finite is left out and described in dropped.
 */
static void put(struct statset *out, struct svec *dropped, const char *name,
		double v)
{
	struct sbuf sb = SBUF_INIT;

	if (stat_name_ok(name) && isfinite(v)) {
		statset_set(out, name, v);
		return;
	}
	if (!dropped)
		return;
	sbuf_addch(&sb, '\'');
	sbuf_add_escaped(&sb, name);
	sbuf_addf(&sb, "' = %g", v);
	svec_push(dropped, sb.buf);
	sbuf_release(&sb);
}

char *stressng_normalize(const char *words)
{
	struct sbuf sb = SBUF_INIT;
	bool sep = false;
	const char *p;

	/* whitespace , " _ [ ] ( ) : become one '_', trimmed at the edges */
	for (p = words; *p; p++) {
		if (isspace((unsigned char)*p) || strchr(",\"_[]():", *p)) {
			sep = true;
			continue;
		}
		if (sep && sb.len)
			sbuf_addch(&sb, '_');
		sep = false;
		sbuf_addch(&sb, *p);
	}
	return sbuf_detach(&sb);
}

/*
 * lkp's stats of a stressor's row, and one of ours: usr_sys_ops_per_sec,
 * the bogo ops per second of CPU time (usr+sys) that stress-ng prints next
 * to the real-time rate. It is much steadier than the real-time rate on a
 * loaded machine (the time spent waiting for a CPU does not count), so it
 * is the metric to bisect on shared boxes. usr_sys < 0: not known.
 */
static void add_main(struct statset *out, struct svec *dropped,
		     const char *stressor, double ops, double ops_per_sec,
		     double usr_sys)
{
	char *n;

	if (ops == 0) {
		n = xstrfmt("%s.fail", stressor);
		put(out, dropped, n, 1);
		free(n);
		return;
	}
	n = xstrfmt("%s.pass", stressor);
	put(out, dropped, n, 1);
	free(n);
	n = xstrfmt("%s.ops", stressor);
	put(out, dropped, n, ops);
	free(n);
	n = xstrfmt("%s.ops_per_sec", stressor);
	put(out, dropped, n, ops_per_sec);
	free(n);
	if (usr_sys >= 0) {
		n = xstrfmt("%s.usr_sys_ops_per_sec", stressor);
		put(out, dropped, n, usr_sys);
		free(n);
	}
}

static void add_extra(struct statset *out, struct svec *dropped,
		      const char *stressor, const char *unit, double v)
{
	char *n;

	if (v == 0) {
		n = xstrfmt("%s.%s.fail", stressor, unit);
		put(out, dropped, n, 1);
	} else {
		n = xstrfmt("%s.%s", stressor, unit);
		put(out, dropped, n, v);
	}
	free(n);
}

/* --- the --yaml file ------------------------------------------------ */

/* The keys of stress-ng's own per-stressor metrics; any other is extra. */
static const char *const yaml_standard[] = {
	"stressor",
	"bogo-ops",
	"bogo-ops-per-second-usr-sys-time",
	"bogo-ops-per-second-real-time",
	"wall-clock-time",
	"user-time",
	"system-time",
	"cpu-usage-per-instance",
	"max-rss",
};

static bool is_standard(const char *k)
{
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(yaml_standard); i++)
		if (!strcmp(k, yaml_standard[i]))
			return true;
	return false;
}

struct yrow {
	char *stressor;
	double ops, ops_per_sec, usr_sys;
	bool has_ops, has_rate, has_usr_sys;
	struct statset extra;
};

static void yrow_release(struct yrow *r)
{
	free(r->stressor);
	statset_release(&r->extra);
	memset(r, 0, sizeof(*r));
}

static void yrow_flush(struct yrow *r, struct statset *out,
		       struct svec *dropped, int *rows)
{
	size_t i;

	if (r->stressor && r->has_ops && r->has_rate) {
		add_main(out, dropped, r->stressor, r->ops, r->ops_per_sec,
			 r->has_usr_sys ? r->usr_sys : -1);
		for (i = 0; i < r->extra.nr; i++)
			add_extra(out, dropped, r->stressor, r->extra.v[i].name,
				  r->extra.v[i].value);
		(*rows)++;
	}
	yrow_release(r);
}

static void yrow_set(struct yrow *r, const char *k, const char *v)
{
	double d;

	if (!strcmp(k, "stressor")) {
		free(r->stressor);
		r->stressor = xstrdup(v);
		return;
	}
	if (rb_parse_double(v, &d) < 0)
		return;
	if (!strcmp(k, "bogo-ops")) {
		r->ops = d;
		r->has_ops = true;
	} else if (!strcmp(k, "bogo-ops-per-second-usr-sys-time")) {
		r->usr_sys = d;
		r->has_usr_sys = true;
	} else if (!strcmp(k, "bogo-ops-per-second-real-time")) {
		r->ops_per_sec = d;
		r->has_rate = true;
	} else if (!is_standard(k)) {
		char *n = xstrdup(k), *p;

		for (p = n; *p; p++)
			if (*p == '-')
				*p = '_';
		statset_set(&r->extra, n, d);
		free(n);
	}
}

/*
 * A small state machine over libyaml events: depth 1 is the top mapping,
 * `metrics:` holds a sequence of flat mappings, one per stressor.
 */
int stressng_parse_yaml(const char *buf, size_t len, struct statset *out,
			struct svec *dropped)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct yrow row = { 0 };
	char *key = NULL;
	int depth = 0, rows = 0, ret = -1;
	bool in_metrics = false, want_metrics = false, top_key = true;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return rb_error("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rb_error("stress-ng yaml:%zu:%zu: %s",
				 parser.problem_mark.line + 1,
				 parser.problem_mark.column + 1,
				 parser.problem ? parser.problem : "error");
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			depth++;
			if (depth == 2 && want_metrics &&
			    ev.type == YAML_SEQUENCE_START_EVENT)
				in_metrics = true;
			want_metrics = false;
			top_key = true;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			if (in_metrics && depth == 3)
				yrow_flush(&row, out, dropped, &rows);
			if (depth == 2)
				in_metrics = false;
			depth--;
			top_key = true;
			free(key);
			key = NULL;
			break;
		case YAML_SCALAR_EVENT: {
			const char *v = (const char *)ev.data.scalar.value;

			if (depth == 1) {
				if (top_key)
					want_metrics = !strcmp(v, "metrics");
				else
					want_metrics = false;
				top_key = !top_key;
			} else if (in_metrics && depth == 3) {
				if (!key) {
					key = xstrdup(v);
				} else {
					yrow_set(&row, key, v);
					free(key);
					key = NULL;
				}
			}
			break;
		}
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	ret = rows;
out:
	yrow_release(&row);
	free(key);
	yaml_parser_delete(&parser);
	return ret;
}

/* --- the text on stderr --------------------------------------------- */

/* Split a line into at most max whitespace-separated fields in place. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	while (*p && n < max) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		f[n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static bool all_numbers(char **f, int from, int to)
{
	double d;
	int i;

	for (i = from; i < to; i++)
		if (rb_parse_double(f[i], &d) < 0)
			return false;
	return true;
}

/*
 * "stress-ng: metrc: [pid] <stressor> <value> <unit words> (<mean ...>)"
 * with the parenthesised suffix dropped before normalising.
 */
static void parse_extra(char *rest, struct statset *out, struct svec *dropped)
{
	char *f[3], *paren, *unit, *end = rest + strlen(rest);
	double v;
	int n;

	n = split(rest, f, 2);
	if (n < 2)
		return;
	/* split() stopped after two fields: the rest of the line follows */
	unit = f[1] + strlen(f[1]);
	if (unit < end)
		unit++;
	if (rb_parse_double(f[1], &v) < 0)
		return;
	paren = strrchr(unit, '(');
	if (paren && (strstr(paren, "mean") || strstr(paren, "average") ||
		      strstr(paren, "total")))
		*paren = '\0';
	unit = stressng_normalize(unit);
	if (*unit)
		add_extra(out, dropped, f[0], unit, v);
	free(unit);
}

int stressng_parse_text(const char *buf, struct statset *out,
			struct svec *dropped)
{
	char *copy = xstrdup(buf), *save = NULL, *line;
	bool in_table = false;
	int rows = 0;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[16], *tag, *body;
		int n;

		if (!rb_starts_with(line, "stress-ng: "))
			continue;
		tag = line + strlen("stress-ng: ");
		if (!rb_starts_with(tag, "info:") &&
		    !rb_starts_with(tag, "metrc:"))
			continue; /* fail:, warn:, error: lines */
		if (strstr(tag, "(secs)    (secs)    (secs)")) {
			in_table = true;
			continue;
		}
		if (!in_table)
			continue;
		if (strstr(tag, "run time:"))
			break;
		if (strstr(tag, "miscellaneous metrics"))
			continue;
		body = strchr(tag, ']');
		if (!body)
			continue;
		body++;
		{
			char *probe = xstrdup(line);

			n = split(probe, f, 16);
			if ((n == 10 || n == 12) && all_numbers(f, 4, n)) {
				add_main(out, dropped, f[3], strtod(f[4], NULL),
					 strtod(f[8], NULL),
					 strtod(f[9], NULL));
				rows++;
				free(probe);
				continue;
			}
			free(probe);
		}
		parse_extra(body, out, dropped);
	}
	free(copy);
	return rows;
}

/* --- time -v -------------------------------------------------------- */

/* "1:02:03.45", "0:02.02" or busybox's "0m 0.00s" into seconds. */
static int parse_elapsed(const char *s, double *out)
{
	double parts[3] = { 0 }, v;
	int n = 0;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (strchr(s, 'm') && strchr(s, 's')) {
		double m = strtod(s, &end);

		if (*end != 'm')
			return -1;
		v = strtod(end + 1, &end);
		*out = m * 60 + v;
		return 0;
	}
	for (;;) {
		if (n == 3)
			return -1;
		parts[n++] = strtod(s, &end);
		if (end == s)
			return -1;
		if (*end != ':')
			break;
		s = end + 1;
	}
	if (n == 2)
		*out = parts[0] * 60 + parts[1];
	else if (n == 3)
		*out = parts[0] * 3600 + parts[1] * 60 + parts[2];
	else
		*out = parts[0];
	return 0;
}

/* `time -v`'s labels and lkp's names for them */
static const struct {
	const char *label, *stat;
} time_v_map[] = {
	{ "User time (seconds)", "time.user_time" },
	{ "System time (seconds)", "time.system_time" },
	{ "Percent of CPU this job got", "time.percent_of_cpu_this_job_got" },
	{ "Elapsed (wall clock) time (h:mm:ss or m:ss)", "time.elapsed_time" },
	{ "Maximum resident set size (kbytes)",
	  "time.maximum_resident_set_size" },
	{ "Major (requiring I/O) page faults", "time.major_page_faults" },
	{ "Minor (reclaiming a frame) page faults", "time.minor_page_faults" },
	{ "Voluntary context switches", "time.voluntary_context_switches" },
	{ "Involuntary context switches", "time.involuntary_context_switches" },
	{ "File system inputs", "time.file_system_inputs" },
	{ "File system outputs", "time.file_system_outputs" },
	{ "Page size (bytes)", "time.page_size" },
	{ "Exit status", "time.exit_status" },
};

int time_v_parse(const char *buf, struct statset *out, struct svec *dropped)
{
	char *copy = xstrdup(buf), *save = NULL, *line;
	int found = 0;
	size_t i;

	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon;
		double v;

		while (isspace((unsigned char)*line))
			line++;
		colon = strstr(line, "): ");
		colon = colon ? colon + 1 : strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (i = 0; i < RB_ARRAY_SIZE(time_v_map); i++) {
			if (strcmp(line, time_v_map[i].label))
				continue;
			if (i == 3) {
				if (parse_elapsed(colon + 1, &v) < 0)
					break;
				put(out, dropped, time_v_map[i].stat, v);
				put(out, dropped, "time.elapsed_time.max", v);
			} else {
				v = strtod(colon + 1, NULL);
				put(out, dropped, time_v_map[i].stat, v);
			}
			found++;
			break;
		}
	}
	free(copy);
	return found;
}

/* --- the payload_ops row --------------------------------------------- */

static const char *dflt(const char *s, const char *d)
{
	return s && *s ? s : d;
}

static const char *stressng_binary(const struct lab_host *host)
{
	return dflt(host->stress_ng, "stress-ng");
}

static bool help_knows(const char *help, const char *name)
{
	size_t n = strlen(name);
	const char *p = help;

	while ((p = strstr(p, "--"))) {
		p += 2;
		if (!strncmp(p, name, n) &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\t' || !p[n]))
			return true;
	}
	return false;
}

/*
 * lkp's probe for an "all" method: a help line that starts with spaces
 * and `--<test>-method `, and lists "all" in brackets or before a comma
 * (grep -E "^ +--<test>-method .*(\[.*all|all,)").
 */
static bool help_method_all(const char *help, const char *test)
{
	char *opt = xstrfmt("--%s-method ", test);
	const char *p = help;
	bool all = false;

	while (p && *p && !all) {
		const char *e = strchr(p, '\n'), *q = p + strspn(p, " ");
		char *line = xstrndup(p, e ? (size_t)(e - p) : strlen(p));
		const char *rest, *br;

		if (q > p && !strncmp(q, opt, strlen(opt))) {
			rest = line + (q - p) + strlen(opt);
			br = strchr(rest, '[');
			all = (br && strstr(br, "all")) || strstr(rest, "all,");
		}
		free(line);
		p = e ? e + 1 : NULL;
	}
	free(opt);
	return all;
}

/* lkp's programs/stress-ng/run, setup_test(): per-test options. */
static const char *const oom_avoid_tests[] = {
	"sockpair",  "bigheap",	  "brk",     "loadavg",
	"memthrash", "mmaphuge",  "mmapcow", "mmapmany",
	"pageswap",  "secretmem", NULL,
};
static const char *const pathological_tests[] = {
	"bad-ioctl",  "sysinval", "cpu-online", "mlockmany", "oom-pipe",
	"bind-mount", "watchdog", "smi",	NULL,
};
/* run as an unprivileged user ("these stressors need to be running
 * without root privilege") */
static const char *const user_tests[] = { "exec", "spawn", "bad-ioctl", NULL };
/* the classes lkp runs on the job's mounted disk (mount_dev), and vm,
 * which it runs in the fs setup's first mount point */
static const char *const disk_classes[] = { "os", "filesystem", "interrupt",
					    "io", "vm",		NULL };

/* The folder lkp's stress-ng mounts the job's disk on. */
#define STRESSNG_MNT "/mnt/stress-ng"

/* An option built by lkp's rules: pushed, and checked against help. */
static void opt(struct svec *argv, const char *help, struct svec *missing,
		const char *name, const char *val)
{
	svec_pushf(argv, "--%s", name);
	if (val)
		svec_push(argv, val);
	if (help && !help_knows(help, name))
		svec_push(missing, name);
}

static int stressng_argv(const struct job *job, const struct lab_host *host,
			 const char *help, struct svec *argv,
			 struct svec *missing)
{
	const char *class = kvlist_get(&job->opts, "class");
	const char *t = job->test;
	struct svec unknown = SVEC_INIT;
	char *name;
	size_t i;
	int ret = 0;

	if (!t && !class)
		return rb_error("job '%s' names no stress-ng test or class",
				job->file);
	if (help && t && !help_knows(help, t)) {
		if (!missing)
			return rb_error("stress-ng on '%s' does not know the "
					"test '%s'",
					host->name, t);
		svec_push(missing, t);
	}
	/* set_common_opts */
	svec_push(argv, stressng_binary(host));
	svec_push(argv, "--timeout");
	svec_pushf(argv, "%ld", job->testtime);
	svec_pushv(argv,
		   (const char *const[]){ "--times", "--verify", "--metrics",
					  "--no-rand-seed", NULL });
	if (t) {
		const char *method = kvlist_get(&job->opts, "method");
		const char *mode = kvlist_get(&job->opts, "mode");
		const char *type = kvlist_get(&job->opts, "type");
		const char *advise = kvlist_get(&job->opts, "advise");
		const char *hdd_opts = kvlist_get(&job->opts, "hdd_opts");
		const char *sched = kvlist_get(&job->opts, "sched");

		/* setup_test */
		if (!strcmp(t, "swap"))
			opt(argv, help, &unknown, "temp-path", STRESSNG_MNT);
		if (schema_in_list(oom_avoid_tests, t))
			opt(argv, help, &unknown, "oom-avoid", NULL);
		if (schema_in_list(pathological_tests, t))
			opt(argv, help, &unknown, "pathological", NULL);
		/* run_test */
		if (method) {
			name = xstrfmt("%s-method", t);
			opt(argv, help, &unknown, name, method);
			free(name);
		} else if (help && help_method_all(help, t)) {
			svec_pushf(argv, "--%s-method", t);
			svec_push(argv, "all");
		}
		if (mode) {
			name = xstrfmt("%s-mode", t);
			opt(argv, help, &unknown, name, mode);
			free(name);
		}
		if (type) {
			name = xstrfmt("%s-type", t);
			opt(argv, help, &unknown, name, type);
			free(name);
		}
		if (advise)
			opt(argv, help, &unknown, "madvise-advise", advise);
		if (hdd_opts)
			opt(argv, help, &unknown, "hdd-opts", hdd_opts);
		if (sched) {
			/* grep -q -E "\-\-<test>-sched" */
			name = xstrfmt("--%s-sched", t);
			if (help && strstr(help, name))
				opt(argv, help, &unknown, name + 2, sched);
			else
				opt(argv, help, &unknown, "workload-sched",
				    sched);
			free(name);
		}
	}
	/* the robot's own: pass-through options of the payload section */
	for (i = 0; i < job->opts.nr; i++) {
		const struct kv *o = &job->opts.v[i];

		if (o->declared)
			continue;
		if (help && !help_knows(help, o->key)) {
			rb_error("stress-ng on '%s' does not know the option "
				 "'--%s' (job '%s')",
				 host->name, o->key, job->file);
			ret = -1;
			goto out;
		}
		svec_pushf(argv, "--%s", o->key);
		svec_push(argv, o->val);
	}
	if (t) {
		svec_pushf(argv, "--%s", t);
		svec_pushf(argv, "%ld", job->nr_threads);
	} else {
		/* setup_class */
		svec_push(argv, "--sequential");
		svec_pushf(argv, "%ld", job->nr_threads);
		svec_push(argv, "--class");
		svec_push(argv, class);
		if (!strcmp(class, "memory") || !strcmp(class, "os"))
			opt(argv, help, &unknown, "minimize", NULL);
		svec_push(argv, "--exclude");
		svec_pushf(argv, "spawn,exec%s%s",
			   job->nr_cpu > 16 ? ",swap" : "",
			   !strcmp(class, "memory") ? ",stack" : "");
	}
	if (unknown.nr && missing) {
		svec_append(missing, &unknown);
	} else if (unknown.nr) {
		struct sbuf sb = SBUF_INIT;

		for (i = 0; i < unknown.nr; i++)
			sbuf_addf(&sb, "%s--%s", i ? ", " : "", unknown.v[i]);
		rb_error("stress-ng on '%s' does not know %s, which lkp runs "
			 "'%s' with (a newer stress-ng does)",
			 host->name, sb.buf, t ? t : class);
		sbuf_release(&sb);
		ret = -1;
	}
out:
	svec_clear(&unknown);
	return ret;
}

/* The spare device for the job's disk: ("1HDD", "1SSD"). */
static const char *host_disk(const struct job *job, const struct lab_host *host)
{
	const struct svec *devs = NULL;
	long n = strtol(job->disk, NULL, 10);
	const char *kind = job->disk + strspn(job->disk, "0123456789");

	if (!strcmp(kind, "HDD"))
		devs = &host->hdd_partitions;
	else if (!strcmp(kind, "SSD"))
		devs = &host->ssd_partitions;
	if (!devs) {
		rb_error("job '%s' asks for disk: %s; the robot gives jobs HDD "
			 "and SSD partitions only",
			 job->file, job->disk);
		return NULL;
	}
	if (n < 1 || (size_t)n > devs->nr) {
		rb_error("host '%s' has %zu %s partition%s, job '%s' needs %ld "
			 "(disk: %s); list spare devices under the host's "
			 "%s_partitions",
			 host->name, devs->nr, kind, RB_PLURAL(devs->nr),
			 job->file, n, job->disk,
			 devs == &host->hdd_partitions ? "hdd" : "ssd");
		return NULL;
	}
	return devs->v[0];
}

/* lkp's programs/fs/setup: mkfs options and default mount options. */
static const struct {
	const char *fs, *mkfs, *mount;
} fs_table[] = {
	{ "xfs", "-f -mreflink=0", "inode64" },
	{ "ext2", "-q -F", NULL },
	{ "ext3", "-q -F", NULL },
	{ "ext4", "-q -E lazy_itable_init=0,lazy_journal_init=0 -F", NULL },
	/* lkp gives btrfs and f2fs no flags; -f lets mkfs take a disk that
	 * holds a filesystem from the last job */
	{ "btrfs", "-f", NULL },
	{ "f2fs", "-f", NULL },
};

static int stressng_setup(const struct job *job, const struct lab_host *host,
			  struct payload_setup *out)
{
	const char *t = job->test;
	const char *class = kvlist_get(&job->opts, "class");
	const char *dev;
	size_t i;

	/* setup_sysctl */
	svec_push(&out->sysctls, "?kernel.sched_autogroup_enabled=0");
	if (job->fs2)
		return rb_error("job '%s' has fs2: %s (lkp's NFS/CIFS export), "
				"which the robot does not set up",
				job->file, job->fs2);
	if (class && schema_in_list(disk_classes, class) && !job->fs)
		return rb_error(
			"lkp runs the class '%s' on a mounted disk: job "
			"'%s' needs disk: and fs:",
			class, job->file);
	if (job->fs) {
		if (!job->disk)
			return rb_error("job '%s' has fs: %s but no disk: to "
					"make it on (lkp: nr_partitions is "
					"less than 1)",
					job->file, job->fs);
		for (i = 0; i < RB_ARRAY_SIZE(fs_table); i++)
			if (!strcmp(fs_table[i].fs, job->fs))
				break;
		if (i == RB_ARRAY_SIZE(fs_table))
			return rb_error("job '%s' has fs: %s; the robot makes "
					"xfs, ext2, ext3, ext4, btrfs and "
					"f2fs",
					job->file, job->fs);
		dev = host_disk(job, host);
		if (!dev)
			return -1;
		out->dev = xstrdup(dev);
		out->fs = xstrdup(job->fs);
		out->mkfs_opts = xstrdup(fs_table[i].mkfs);
		if (fs_table[i].mount && job->mount_option)
			out->mount_opts = xstrfmt("%s,%s", fs_table[i].mount,
						  job->mount_option);
		else if (fs_table[i].mount || job->mount_option)
			out->mount_opts = xstrdup(fs_table[i].mount ?
							  fs_table[i].mount :
							  job->mount_option);
		out->dir = xstrdup(STRESSNG_MNT);
	} else if (job->disk) {
		return rb_error("job '%s' has disk: %s but no fs: (lkp mounts "
				"the disk for the test)",
				job->file, job->disk);
	}
	if (t && !strcmp(t, "swap") && !out->dir)
		out->dir = xstrdup(STRESSNG_MNT);
	if (!t)
		return 0;
	if (!strcmp(t, "ping-sock")) {
		svec_pushf(&out->sysctls, "net.ipv4.ping_group_range=0 %ld",
			   job->nr_threads);
	} else if (!strcmp(t, "mq")) {
		svec_push(&out->sysctls, "fs.mqueue.queues_max=2048");
		svec_push(&out->sysctls, "fs.mqueue.msg_max=2048");
	} else if (!strcmp(t, "aio") || !strcmp(t, "aiol")) {
		svec_push(&out->sysctls, "fs.aio-max-nr=1048576");
	} else if (!strcmp(t, "inotify") || !strcmp(t, "dnotify")) {
		svec_push(&out->sysctls, "fs.inotify.max_user_instances=8192");
		svec_push(&out->sysctls, "fs.inotify.max_user_watches=524288");
	} else if (schema_in_list((const char *const[]){ "epoll", "sock",
							 "sockmany", "udp",
							 "udp-flood",
							 "sockpair", NULL },
				  t)) {
		svec_push(&out->sysctls, "net.core.somaxconn=4096");
	}
	if (schema_in_list(user_tests, t))
		out->user = xstrdup(dflt(host->unprivileged_user, "lkp"));
	return 0;
}

static void stressng_result_argv(const char *dir, struct svec *argv)
{
	svec_push(argv, "--yaml");
	svec_pushf(argv, "%s/stress-ng.yaml", dir);
}

/* The --yaml file, else the metrics stderr shows (older stress-ng). */
static int stressng_parse(const char *err, const char *const *outputs,
			  struct statset *raw, struct svec *dropped)
{
	int rows = 0;

	if (outputs[0])
		rows = stressng_parse_yaml(outputs[0], strlen(outputs[0]), raw,
					   dropped);
	if (rows <= 0 && err) {
		statset_release(raw);
		svec_clear(dropped);
		rows = stressng_parse_text(err, raw, dropped);
	}
	return rows < 0 ? 0 : rows;
}

/* The first line of stderr that says what went wrong, for messages. */
static char *stressng_error(const char *text, int rc)
{
	static const char *const marks[] = {
		"error:", "fail:", "unrecognized option", "No stress workers"
	};
	const char *p = text;
	size_t i;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);

		for (i = 0; i < RB_ARRAY_SIZE(marks); i++)
			if (strstr(line, marks[i]))
				return line;
		free(line);
		p += n;
		if (*p)
			p++;
	}
	return xstrfmt("stress-ng exited with %d", rc);
}

static char *stressng_headline(const struct job *job)
{
	return xstrfmt("stress-ng.%s.ops_per_sec",
		       dflt(job->test,
			    dflt(kvlist_get(&job->opts, "class"), "unknown")));
}

/*
 * What every run of the job carries (the stressor's bogo ops and pass/fail
 * rows, `time -v`'s) and the prefix of the stressor's own metrics, which
 * depend on the stressor and the stress-ng version (any stressor's for a
 * class job). Full names.
 */
static void stressng_stat_names(const struct job *job, struct svec *known,
				struct svec *families)
{
	static const char *const rows[] = { "ops", "ops_per_sec",
					    "usr_sys_ops_per_sec", "pass",
					    "fail" };
	size_t i;

	for (i = 0; job->test && i < RB_ARRAY_SIZE(rows); i++)
		svec_pushf(known, "stress-ng.%s.%s", job->test, rows[i]);
	for (i = 0; i < RB_ARRAY_SIZE(time_v_map); i++)
		svec_pushf(known, "stress-ng.%s", time_v_map[i].stat);
	svec_push(known, "stress-ng.time.elapsed_time.max");
	if (job->test)
		svec_pushf(families, "stress-ng.%s.", job->test);
	else
		svec_push(families, "stress-ng.");
}

static const char *const stressng_outputs[] = { "stress-ng.yaml", NULL };

const struct payload_ops payload_stressng = {
	.name = "stress-ng",
	.outputs = stressng_outputs,
	.help_arg = "--help",
	.help_mark = "--timeout",
	.binary = stressng_binary,
	.argv = stressng_argv,
	.setup = stressng_setup,
	.result_argv = stressng_result_argv,
	.parse = stressng_parse,
	.error = stressng_error,
	.headline = stressng_headline,
	.stat_names = stressng_stat_names,
};
