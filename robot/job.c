// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp job specs: positioned YAML tree -> document merge -> matrix
 * expansion -> one schema table -> struct job. Pure apart from
 * job_load_file reading its file.
 */
#include "robot.h"
#include "job.h"
#include "sbuf.h"
#include "svec.h"

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

/* Characters a value that may reach a command line can hold. */
static const char safe_chars[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._,+:=%/@-";

static int bad_char(const struct schema_ctx *ctx, const struct ynode *n,
		    const char *val, const char *extra)
{
	size_t i = strspn(val, safe_chars);

	while (val[i] && extra && strchr(extra, val[i]))
		i += 1 + strspn(val + i + 1, safe_chars);
	if (!val[i])
		return 0;
	return ynode_error(ctx->file, n,
			   "'%s' may hold only letters, digits and "
			   "'._,+:=%%/@-%s', not '%c'",
			   val, extra ? extra : "", val[i]);
}

/* Payload option values (method, type, class, pass-through options). */
static int check_value(const struct schema_ctx *ctx, const struct ynode *n,
		       const char *val)
{
	return bad_char(ctx, n, val, NULL);
}

/* Names: suite, testcase. */
static int check_word(const struct schema_ctx *ctx, const struct ynode *n,
		      const char *val)
{
	if (!*val)
		return ynode_error(ctx->file, n, "empty value");
	return bad_char(ctx, n, val, NULL);
}

/*
 * Names that become one component of the result path and of the
 * workdir's build and artifact directories: kconfig (a file of a
 * kconfigs/ folder), compiler, rootfs, tbox_group. No '/', not '.' or
 * '..', so that no job can make the robot write outside its tree.
 */
static int check_component(const struct schema_ctx *ctx, const struct ynode *n,
			   const char *val)
{
	if (check_word(ctx, n, val) < 0)
		return -1;
	if (strchr(val, '/'))
		return ynode_error(ctx->file, n,
				   "'%s' must be a name, not a path (it "
				   "becomes a directory of the results)",
				   val);
	if (!strcmp(val, ".") || !strcmp(val, ".."))
		return ynode_error(ctx->file, n,
				   "'%s' cannot name a directory of the "
				   "results",
				   val);
	return 0;
}

/* A git revision: also HEAD~2, v6.9^. */
static int check_rev(const struct schema_ctx *ctx, const struct ynode *n,
		     const char *val)
{
	if (!*val)
		return ynode_error(ctx->file, n, "empty commit");
	if (val[0] == '-')
		return ynode_error(ctx->file, n,
				   "commit '%s' must not start with '-'", val);
	return bad_char(ctx, n, val, "~^");
}

static int check_test_name(const struct schema_ctx *ctx, const struct ynode *n,
			   const char *val)
{
	const char *p = val;

	for (; *p; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') &&
		    *p != '-')
			break;
	if (*val && !*p && val[0] != '-')
		return 0;
	return ynode_error(ctx->file, n, "test name '%s' is not [a-z0-9-]+",
			   val);
}

/*
 * The arithmetic stays in range: whole <= 10^6 and nr_cpu <= JOB_MAX_CPU
 * make (whole * 1000 + milli) * nr_cpu at most about 6.6e13.
 */
long job_nr_threads(const char *text, long nr_cpu)
{
	const char *p = text;
	long whole = 0, milli = 0;
	int decimals = 0;

	if (*p < '0' || *p > '9' || nr_cpu < 0 || nr_cpu > JOB_MAX_CPU)
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > 1000000)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (++decimals > 3)
				return -1;
			milli = milli * 10 + (*p - '0');
		}
		if (!decimals)
			return -1;
		while (decimals++ < 3)
			milli *= 10;
		if (*p != '%')
			return -1;
	}
	if (*p == '%' && !p[1]) {
		/* truncated like lkp's params/nr_threads: (N * nr_cpu / 100).to_i */
		return (whole * 1000 + milli) * nr_cpu / 100000;
	}
	if (*p)
		return -1;
	return whole;
}

static int check_nr_threads(const struct schema_ctx *ctx, const struct ynode *n,
			    const char *val)
{
	if (val[0] == '-')
		return ynode_error(ctx->file, n, "nr_threads '%s' is negative",
				   val);
	if (job_nr_threads(val, 1) < 0)
		return ynode_error(ctx->file, n,
				   "nr_threads '%s' is not a count or a "
				   "percentage of the CPUs (4 or 100%%)",
				   val);
	if (!strchr(val, '%') && job_nr_threads(val, 1) > JOB_MAX_THREADS)
		return ynode_error(ctx->file, n,
				   "nr_threads '%s' is more than %d, the most "
				   "instances stress-ng runs",
				   val, JOB_MAX_THREADS);
	/*
	 * A percentage is resolved per host, but one that is too many on a
	 * host of one CPU is too many on every host: no run could take it
	 */
	if (strchr(val, '%') && job_nr_threads(val, 1) > JOB_MAX_THREADS)
		return ynode_error(ctx->file, n,
				   "nr_threads '%s' is %ld instances even on "
				   "one CPU, more than %d, the most stress-ng "
				   "runs",
				   val, job_nr_threads(val, 1),
				   JOB_MAX_THREADS);
	return 0;
}

static int check_testtime(const struct schema_ctx *ctx, const struct ynode *n,
			  const char *val)
{
	return schema_check_seconds(ctx, n, "testtime", val);
}

/* lkp's disk values (params/disk): N then HDD, SSD, BRD, SRD or pmem. */
static int check_disk(const struct schema_ctx *ctx, const struct ynode *n,
		      const char *val)
{
	static const char *const kinds[] = { "HDD", "SSD",  "BRD",
					     "SRD", "pmem", NULL };
	size_t d = strspn(val, "0123456789"), i;

	for (i = 0; d && kinds[i]; i++)
		if (!strcmp(val + d, kinds[i]))
			return 0;
	return ynode_error(ctx->file, n,
			   "disk '%s' is not lkp's N and HDD, SSD, BRD, SRD or "
			   "pmem (1HDD)",
			   val);
}

/* A filesystem name becomes mkfs.<fs>: [a-z0-9]+ only. */
static int check_fs(const struct schema_ctx *ctx, const struct ynode *n,
		    const char *val)
{
	const char *p = val;

	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
		p++;
	if (*val && !*p)
		return 0;
	return ynode_error(ctx->file, n,
			   "filesystem '%s' is not a name such as ext4 or xfs",
			   val);
}

int job_check_nr_cpu(const struct schema_ctx *ctx, const struct ynode *n,
		     const char *val)
{
	long v;

	if (rb_parse_long(val, &v) < 0 || v < 1 || v > JOB_MAX_CPU)
		return ynode_error(ctx->file, n,
				   "nr_cpu '%s' is not a count of CPUs (1 to "
				   "%d)",
				   val, JOB_MAX_CPU);
	return 0;
}

static const char *const categories[] = { "benchmark", "functional",
					  "noise-benchmark", NULL };
static const char *const governors[] = {
	"performance", "powersave", "ondemand", "conservative",
	"schedutil",   "userspace", "",		NULL
};

#define JOB_OFF(f) offsetof(struct job, f)

/*
 * stress-ng's options that name a file or a path on the box (0.15's
 * --help: job, log-file, temp-path, yaml, dev-file, fstat-dir,
 * gpu-devnode, plugin-so; -j and -Y are not lowercase option names): the
 * runner writes the run's YAML itself, and a job may not make stress-ng
 * read or write anywhere else. lkp's jobs do not set them either (its
 * run script adds --temp-path for swap by itself).
 */
static const char *const stressng_path_opts[] = {
	"job",	     "log-file",    "temp-path", "yaml", "dev-file",
	"fstat-dir", "gpu-devnode", "plugin-so", NULL,
};

/* stress-ng's declared options (lkp programs/stress-ng/run). */
static const struct schema_row stressng_rows[] = {
	{ .name = "test",
	  .type = SCH_STR,
	  .off = JOB_OFF(test),
	  .check = check_test_name,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "the stressor to run" },
	{ .name = "method",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--<test>-method" },
	{ .name = "type",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--<test>-type" },
	{ .name = "class",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--class" },
	{ .name = "mode",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--<test>-mode" },
	{ .name = "sched",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--<test>-sched, else --workload-sched" },
	{ .name = "advise",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--madvise-advise" },
	{ .name = "hdd_opts",
	  .type = SCH_STR,
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--hdd-opts" },
	{ .name = "testtime",
	  .type = SCH_STR,
	  .check = check_testtime,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "--timeout (wins over the top-level testtime)" },
	{ .name = "nr_threads",
	  .type = SCH_STR,
	  .check = check_nr_threads,
	  .flags = SCH_F_EXPAND | SCH_F_NOFIELD | SCH_F_PARAM,
	  .help = "the instances (wins over the top-level nr_threads)" },
	{ .name = NULL },
};

const struct schema_row job_schema[] = {
	{ .name = "suite",
	  .type = SCH_STR,
	  .off = JOB_OFF(suite),
	  .check = check_word,
	  .help = "lkp suite (default: the testcase)" },
	{ .name = "testcase",
	  .type = SCH_STR,
	  .off = JOB_OFF(testcase),
	  .check = check_word,
	  .help = "the test case (default: the payload)" },
	{ .name = "category",
	  .type = SCH_STR,
	  .off = JOB_OFF(category),
	  .allowed = categories },
	{ .name = "nr_threads",
	  .type = SCH_STR,
	  .off = JOB_OFF(nr_threads_text),
	  .check = check_nr_threads,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "N% of the host's CPUs (truncated) or a count" },
	{ .name = "testtime",
	  .type = SCH_DURATION,
	  .off = JOB_OFF(testtime),
	  .off2 = JOB_OFF(testtime_text),
	  .check = check_testtime,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM | SCH_F_TEXT,
	  .help = "60s, 5m, 1h or seconds" },
	{ .name = "cpufreq_governor",
	  .type = SCH_STR,
	  .off = JOB_OFF(cpufreq_governor),
	  .allowed = governors,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM },
	{ .name = "kconfig",
	  .type = SCH_STR,
	  .off = JOB_OFF(kconfig),
	  .check = check_component,
	  .flags = SCH_F_EXPAND },
	{ .name = "compiler",
	  .type = SCH_STR,
	  .off = JOB_OFF(compiler),
	  .check = check_component,
	  .flags = SCH_F_EXPAND },
	{ .name = "rootfs",
	  .type = SCH_STR,
	  .off = JOB_OFF(rootfs),
	  .check = check_component,
	  .flags = SCH_F_EXPAND },
	{ .name = "tbox_group",
	  .type = SCH_STR,
	  .off = JOB_OFF(tbox_group),
	  .check = check_component },
	{ .name = "commit",
	  .type = SCH_STR,
	  .off = JOB_OFF(commit),
	  .check = check_rev,
	  .flags = SCH_F_EXPAND },
	{ .name = "disk",
	  .type = SCH_STR,
	  .off = JOB_OFF(disk),
	  .check = check_disk,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "lkp's disk: 1HDD, 1SSD (a spare device of the host)" },
	{ .name = "fs",
	  .type = SCH_STR,
	  .off = JOB_OFF(fs),
	  .check = check_fs,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "the filesystem made on the disk (btrfs, ext4, xfs)" },
	{ .name = "fs2",
	  .type = SCH_STR,
	  .off = JOB_OFF(fs2),
	  .check = check_fs,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "lkp's fs2 (NFS, CIFS exports): not run by the robot" },
	{ .name = "mount_option",
	  .type = SCH_STR,
	  .off = JOB_OFF(mount_option),
	  .check = check_value,
	  .flags = SCH_F_EXPAND | SCH_F_PARAM,
	  .help = "mount -o for the fs" },
	{ .name = "nr_cpu",
	  .type = SCH_LONG,
	  .off = JOB_OFF(nr_cpu),
	  .check = job_check_nr_cpu,
	  .help = "written by the robot: the CPUs nr_threads was resolved "
		  "against" },
	{ .name = "job_origin",
	  .type = SCH_STR,
	  .off = JOB_OFF(origin),
	  .help = "written by the robot: the source job file" },
	{ .name = "path_params",
	  .type = SCH_IGNORE,
	  .help = "written by the robot" },
	{ .name = "resolved",
	  .type = SCH_IGNORE,
	  .help = "written by the robot" },
	{ .name = "stress-ng",
	  .type = SCH_PAYLOAD,
	  .off = JOB_OFF(payload),
	  .off2 = JOB_OFF(opts),
	  .check = check_value,
	  .refused = stressng_path_opts,
	  .sub = stressng_rows,
	  .help = "the stress-ng payload and its options" },
	{ .name = NULL },
};

/* Keys the robot writes into job.yaml and recomputes on load. */
static bool derived_key(const char *key)
{
	return !strcmp(key, "job_origin") || !strcmp(key, "path_params") ||
	       !strcmp(key, "resolved");
}

void job_free(struct job *j)
{
	if (!j)
		return;
	schema_release(job_schema, j);
	free(j->file);
	kvlist_clear(&j->params);
	free(j->path_params);
	ynode_free(j->extra);
	ynode_free(j->tree);
	free(j);
}

struct job *job_copy(const struct job *j)
{
	struct job *c = xcalloc(1, sizeof(*c));
	const struct schema_row *row;

	for (row = job_schema; row->name; row++) {
		switch (row->type) {
		case SCH_STR:
			if (row->flags & SCH_F_NOFIELD)
				break;
			if (*FIELD(j, row->off, char *const))
				*FIELD(c, row->off, char *) = xstrdup(
					*FIELD(j, row->off, char *const));
			break;
		case SCH_LONG:
			*FIELD(c, row->off, long) =
				*FIELD(j, row->off, const long);
			break;
		case SCH_DURATION:
			*FIELD(c, row->off, long) =
				*FIELD(j, row->off, const long);
			if (*FIELD(j, row->off2, char *const))
				*FIELD(c, row->off2, char *) = xstrdup(
					*FIELD(j, row->off2, char *const));
			break;
		case SCH_PAYLOAD:
			if (*FIELD(j, row->off, char *const))
				*FIELD(c, row->off, char *) = xstrdup(
					*FIELD(j, row->off, char *const));
			kvlist_copy(FIELD(c, row->off2, struct kvlist),
				    FIELD(j, row->off2, const struct kvlist));
			break;
		default:
			break;
		}
	}
	/* the declared payload options stored in the job (test) */
	if (j->test)
		c->test = xstrdup(j->test);
	c->file = xstrdup(j->file);
	c->doc = j->doc;
	c->nr_threads = j->nr_threads;
	kvlist_copy(&c->params, &j->params);
	c->path_params = xstrdup(j->path_params);
	c->extra = ynode_copy(j->extra);
	c->tree = ynode_copy(j->tree);
	return c;
}

void job_list_release(struct job_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		job_free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void job_list_remove(struct job_list *l, size_t i)
{
	job_free(l->v[i]);
	memmove(l->v + i, l->v + i + 1, (l->nr - i - 1) * sizeof(*l->v));
	l->nr--;
}

static void list_push(struct job_list *l, struct job *j)
{
	RB_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr++] = j;
}

/*
 * YAML merge keys (`<< : *REF`) are not lkp's includes (those are gone by
 * now, see job-include.c): refuse them. lkp applies `key+:`, `key-:` and
 * dotted keys at the top level only (job-revise.c); inside the payload
 * section they would be misread as option names.
 */
static int check_keys(const char *file, const struct ynode *map, bool top)
{
	size_t i;

	for (i = 0; i < map->nr; i++) {
		const struct ynode *k = map->keys[i];
		const char *s = k->str;
		size_t len = strlen(s);
		const struct schema_row *row;

		if (!strcmp(s, "<<"))
			return ynode_error(file, k,
					   "'<<' YAML merge keys are not "
					   "supported (lkp's '<<: FILE' "
					   "includes are)");
		if (!top && len > 1 && (s[len - 1] == '+' || s[len - 1] == '-'))
			return ynode_error(file, k,
					   "'%s': lkp applies 'key%c:' at the "
					   "top level only; write it there as "
					   "'<section>.%s:'",
					   s, s[len - 1], s);
		if (!top && strchr(s, '.'))
			return ynode_error(file, k,
					   "'%s': dotted keys work at the top "
					   "level only",
					   s);
		row = top ? schema_find(job_schema, s) : NULL;
		if (row && row->type == SCH_PAYLOAD &&
		    map->vals[i]->kind == YNODE_MAP &&
		    check_keys(file, map->vals[i], false) < 0)
			return -1;
	}
	return 0;
}

static bool has_payload(const struct ynode *map)
{
	size_t i;

	for (i = 0; i < map->nr; i++) {
		const struct schema_row *row =
			schema_find(job_schema, map->keys[i]->str);

		if (row && row->type == SCH_PAYLOAD)
			return true;
	}
	return false;
}

/*
 * lkp's job for one document: the first document with its own
 * incremental keys applied, then doc (NULL: none) revised onto it.
 * NULL with an error.
 */
static struct ynode *merge(const char *file, const struct ynode *first,
			   const struct ynode *doc)
{
	struct ynode *m = ynode_copy(first);

	if (job_revise(m, NULL, file) < 0 ||
	    (doc && job_revise(m, doc, file) < 0) ||
	    check_keys(file, m, true) < 0) {
		ynode_free(m);
		return NULL;
	}
	return m;
}

/* lkp's path_params value: first 31 characters, odd ones as '_'. */
static void add_param_text(struct sbuf *sb, const char *s)
{
	size_t i;

	for (i = 0; i < 31 && s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("-+=:.%", c)))
			c = '_';
		sbuf_addch(sb, c);
	}
}

/*
 * The path parameters: every scalar program option and program name of
 * the job (lkp Job#path_params), in job order; path_params joins their
 * values sorted by key, pass-through options as key=value.
 */
static void compute_params(struct job *j)
{
	const struct ynode *t = j->tree;
	struct sbuf sb = SBUF_INIT;
	size_t i, k, *order;

	for (i = 0; i < t->nr; i++) {
		const struct schema_row *row =
			schema_find(job_schema, t->keys[i]->str);
		const struct ynode *v = t->vals[i];

		if (!row)
			continue;
		if (row->type == SCH_PAYLOAD && j->payload &&
		    !strcmp(row->name, j->payload)) {
			kvlist_copy(&j->params, &j->opts);
			continue;
		}
		if ((row->flags & SCH_F_PARAM) && v->kind == YNODE_SCALAR &&
		    !v->is_null)
			kvlist_push(&j->params, row->name, v->str, true);
	}
	order = xcalloc(j->params.nr + 1, sizeof(*order));
	for (i = 0; i < j->params.nr; i++) {
		/* insertion sort keeps equal keys in job order */
		for (k = i; k > 0 && strcmp(j->params.v[order[k - 1]].key,
					    j->params.v[i].key) > 0;
		     k--)
			order[k] = order[k - 1];
		order[k] = i;
	}
	for (i = 0; i < j->params.nr; i++) {
		const struct kv *p = &j->params.v[order[i]];

		if (sb.len)
			sbuf_addch(&sb, '-');
		if (!p->declared) {
			add_param_text(&sb, p->key);
			if (*p->val)
				sbuf_addch(&sb, '=');
		}
		add_param_text(&sb, p->val);
	}
	free(order);
	j->path_params = sb.len ? sbuf_detach(&sb) : xstrdup("defaults");
	sbuf_release(&sb);
}

/* An atomic tree (no axis lists left) into a job; takes the tree. */
static struct job *to_job(const char *file, struct ynode *tree, int doc)
{
	struct job *j = xcalloc(1, sizeof(*j));
	struct schema_ctx ctx = { .file = file };
	size_t i;

	j->file = xstrdup(file);
	j->doc = doc;
	j->nr_threads = -1;
	j->extra = ynode_new(YNODE_MAP, tree->line, tree->col);
	ctx.unknown = j->extra;
	j->tree = tree;
	if (schema_parse(job_schema, tree, j, &ctx, NULL, tree) < 0)
		goto fail;
	for (i = tree->nr; i-- > 0;)
		if (derived_key(tree->keys[i]->str))
			ynode_map_remove(tree, i);
	if (!j->payload) {
		/* a misspelt payload is kept as an unknown key: say so */
		for (i = 0; i < j->extra->nr; i++) {
			const char *k = j->extra->keys[i]->str;
			const char *hint = schema_suggest(job_schema, k);
			const struct schema_row *row =
				hint ? schema_find(job_schema, hint) : NULL;

			if (row && row->type == SCH_PAYLOAD) {
				ynode_error(file, j->extra->keys[i],
					    "no payload section: did you mean "
					    "'%s' for '%s'?",
					    hint, k);
				goto fail;
			}
		}
		ynode_error(file, tree,
			    "no payload section (such as 'stress-ng:')");
		goto fail;
	}
	/* stress-ng runs one test, or a class of them (`--class X
	 * --sequential N`, as lkp's older class-based jobs do) */
	if (!j->test && !kvlist_get(&j->opts, "class")) {
		const struct ynode *at = tree;

		for (i = 0; i < tree->nr; i++)
			if (!strcmp(tree->keys[i]->str, j->payload))
				at = tree->keys[i];
		ynode_error(file, at, "'%s' needs a 'test' (or a 'class')",
			    j->payload);
		goto fail;
	}
	if (!j->testcase) {
		j->testcase = xstrdup(j->payload);
	} else if (strcmp(j->testcase, j->payload)) {
		ynode_error(file, ynode_map_get(tree, "testcase"),
			    "testcase '%s' does not match the payload '%s'",
			    j->testcase, j->payload);
		goto fail;
	}
	if (!j->suite)
		j->suite = xstrdup(j->testcase);
	if (!j->origin)
		j->origin = xstrdup(file);
	if (kvlist_get(&j->opts, "testtime"))
		/* checked by check_testtime already */
		schema_parse_duration(kvlist_get(&j->opts, "testtime"),
				      &j->testtime);
	else if (!j->testtime_text)
		j->testtime = 60;
	if (j->nr_cpu > 0 && job_resolve(j, j->nr_cpu) < 0)
		goto fail;
	compute_params(j);
	/* a component of the result path: results/<testcase>/<path_params> */
	if (!strcmp(j->path_params, ".") || !strcmp(j->path_params, "..")) {
		ynode_error(file, tree,
			    "the job's parameters make the path '%s', which "
			    "cannot name a directory of the results",
			    j->path_params);
		goto fail;
	}
	return j;
fail:
	job_free(j);
	return NULL;
}

/* One matrix axis: a list under the top level or the payload section. */
struct axis {
	size_t top;
	long sub; /* -1: the top-level value itself */
	const struct ynode *seq;
};

static int add_axis(const char *file, struct axis **axes, size_t *nr,
		    size_t *alloc, size_t top, long sub,
		    const struct ynode *key, const struct ynode *seq)
{
	if (!seq->nr)
		return ynode_error(file, key, "'%s' is an empty list",
				   key->str);
	RB_ALLOC_GROW(*axes, *nr + 1, *alloc);
	(*axes)[*nr].top = top;
	(*axes)[*nr].sub = sub;
	(*axes)[*nr].seq = seq;
	(*nr)++;
	return 0;
}

/* Put val (owned) where the axis's list is in the tree t. */
static void axis_set(struct ynode *t, const struct axis *a, struct ynode *val)
{
	struct ynode *parent = t;
	size_t at = a->top;

	if (a->sub >= 0) {
		parent = t->vals[a->top];
		at = (size_t)a->sub;
	}
	ynode_map_replace(parent, at, val);
}

/*
 * The Cartesian product of the axes (lkp Job#each_job): in job order,
 * the first axis outermost.
 */
static int expand(const char *file, const struct ynode *m, int doc,
		  struct job_list *out, size_t *nodes_left)
{
	struct axis *axes = NULL;
	size_t nr = 0, alloc = 0, i, total = 1, *idx = NULL, nodes;
	struct ynode *tmpl = NULL;
	int ret = -1;

	for (i = 0; i < m->nr; i++) {
		const struct schema_row *row =
			schema_find(job_schema, m->keys[i]->str);
		const struct ynode *v = m->vals[i];
		size_t s;

		if (!row)
			continue;
		if ((row->flags & SCH_F_EXPAND) && v->kind == YNODE_SEQ &&
		    add_axis(file, &axes, &nr, &alloc, i, -1, m->keys[i], v) <
			    0)
			goto out;
		if (row->type != SCH_PAYLOAD || v->kind != YNODE_MAP)
			continue;
		for (s = 0; s < v->nr; s++) {
			const struct schema_row *sub =
				schema_find(row->sub, v->keys[s]->str);

			if (sub && (sub->flags & SCH_F_EXPAND) &&
			    v->vals[s]->kind == YNODE_SEQ &&
			    add_axis(file, &axes, &nr, &alloc, i, (long)s,
				     v->keys[s], v->vals[s]) < 0)
				goto out;
		}
	}
	for (i = 0; i < nr; i++) {
		total *= axes[i].seq->nr;
		if (out->nr + total > JOB_MAX_ATOMIC) {
			ynode_error(file, m,
				    "the job expands to more than %d atomic "
				    "jobs",
				    JOB_MAX_ATOMIC);
			goto out;
		}
	}
	/*
	 * Each atomic job is a copy of a template, the tree with every axis
	 * list left out, and keeps it (plus its unknown keys, at most as
	 * many again): refuse before copying any.
	 */
	tmpl = ynode_copy(m);
	for (i = 0; i < nr; i++)
		axis_set(tmpl, &axes[i], ynode_new_scalar("", 0, 0));
	nodes = ynode_count(tmpl);
	if (total * 2 * nodes > *nodes_left) {
		ynode_error(file, m,
			    "the job is too large: %zu atomic jobs of %zu "
			    "YAML nodes each (at most %d nodes in all); make "
			    "the matrix or the job's lists smaller",
			    total, nodes, JOB_MAX_NODES / 2);
		goto out;
	}
	*nodes_left -= total * 2 * nodes;
	idx = xcalloc(nr + 1, sizeof(*idx));
	for (;;) {
		struct ynode *t = ynode_copy(tmpl);
		struct job *j;

		for (i = 0; i < nr; i++)
			axis_set(t, &axes[i],
				 ynode_copy(axes[i].seq->vals[idx[i]]));
		j = to_job(file, t, doc);
		if (!j)
			goto out;
		list_push(out, j);
		/* odometer: the last axis turns fastest */
		for (i = nr; i-- > 0;) {
			if (++idx[i] < axes[i].seq->nr)
				break;
			idx[i] = 0;
		}
		if (i == (size_t)-1)
			break;
	}
	ret = 0;
out:
	ynode_free(tmpl);
	free(idx);
	free(axes);
	return ret;
}

int job_load_string(struct job_list *out, const char *file, const char *text,
		    size_t len)
{
	struct ystream st;
	struct job_list tmp = JOB_LIST_INIT;
	struct sbuf merged = SBUF_INIT;
	struct ysource *lines = NULL;
	const struct ynode *first = NULL;
	struct ynode *m;
	size_t i, nr_lines = 0, nr_docs = 0, first_at = 0;
	size_t nodes_left = JOB_MAX_NODES;
	int ret = -1, r;

	r = job_include_expand(file, text, len, &merged, &lines, &nr_lines);
	if (r < 0)
		return -1;
	if (r == 0)
		r = ytree_parse_lines(&st, file, merged.buf, merged.len, lines,
				      nr_lines);
	else
		r = ytree_parse(&st, file, text, len);
	sbuf_release(&merged);
	free(lines);
	if (r < 0)
		return -1;
	for (i = 0; i < st.nr; i++) {
		const struct ynode *d = st.docs[i];

		if (d->kind == YNODE_SCALAR && d->is_null)
			continue;
		if (d->kind != YNODE_MAP) {
			ynode_error(file, d,
				    "a job must be a mapping, not a %s",
				    ynode_kind_name(d->kind));
			goto out;
		}
		if (check_keys(file, d, true) < 0)
			goto out;
		nr_docs++;
		if (!first) {
			first = d;
			first_at = i;
		}
	}
	if (!first) {
		rb_error("%s:1:1: no job in the file", file);
		goto out;
	}
	/*
	 * lkp: the first document alone, then the first merged with each
	 * later one. A first document without a payload is only the
	 * common part of the later ones.
	 */
	if (!(m = merge(file, first, NULL)))
		goto out;
	if (nr_docs == 1 || has_payload(m))
		r = expand(file, m, (int)first_at + 1, &tmp, &nodes_left);
	else
		r = 0;
	ynode_free(m);
	if (r < 0)
		goto out;
	for (i = 0; i < st.nr; i++) {
		const struct ynode *d = st.docs[i];

		if (d == first || (d->kind == YNODE_SCALAR && d->is_null))
			continue;
		if (!(m = merge(file, first, d)))
			goto out;
		r = expand(file, m, (int)i + 1, &tmp, &nodes_left);
		ynode_free(m);
		if (r < 0)
			goto out;
	}
	for (i = 0; i < tmp.nr; i++)
		list_push(out, tmp.v[i]);
	tmp.nr = 0;
	ret = 0;
out:
	job_list_release(&tmp);
	ystream_release(&st);
	return ret;
}

int job_load_file(struct job_list *out, const char *path)
{
	char *buf;
	size_t len;
	int r;

	if (rb_read_file_max(path, JOB_FILE_MAX, &buf, &len) < 0)
		return -1;
	r = job_load_string(out, path, buf, len);
	free(buf);
	return r;
}

const char *job_nr_threads_text(const struct job *j)
{
	const char *s = kvlist_get(&j->opts, "nr_threads");

	return s ? s : j->nr_threads_text;
}

int job_resolve(struct job *j, long nr_cpu)
{
	const char *text = job_nr_threads_text(j);
	long n = 1;

	if (nr_cpu < 1)
		return rb_error("cannot resolve nr_threads against %ld cpus",
				nr_cpu);
	if (nr_cpu > JOB_MAX_CPU)
		return rb_error("cannot resolve nr_threads against %ld cpus "
				"(more than %d)",
				nr_cpu, JOB_MAX_CPU);
	if (text) {
		const struct ynode *at = ynode_map_get(j->tree, "nr_threads");

		n = job_nr_threads(text, nr_cpu);
		if (n < 0)
			return ynode_error(j->file, at,
					   "nr_threads '%s' is malformed",
					   text);
		if (n > JOB_MAX_THREADS)
			return ynode_error(j->file, at,
					   "nr_threads '%s' of %ld cpus is "
					   "%ld, more than %d, the most "
					   "instances stress-ng runs",
					   text, nr_cpu, n, JOB_MAX_THREADS);
	}
	j->nr_cpu = nr_cpu;
	j->nr_threads = n;
	return n == 0 ? 1 : 0;
}

const char *job_name(const struct job *j, struct sbuf *buf)
{
	sbuf_reset(buf);
	sbuf_addf(buf, "%s/%s", j->testcase, j->path_params);
	return buf->buf;
}

int job_list_resolve(struct job_list *l, long nr_cpu, struct svec *notices)
{
	struct sbuf name = SBUF_INIT;
	size_t i = 0;
	int dropped = 0, r;

	while (i < l->nr) {
		struct job *j = l->v[i];

		r = job_resolve(j, nr_cpu);
		if (r < 0) {
			sbuf_release(&name);
			return -1;
		}
		if (r == 0) {
			i++;
			continue;
		}
		if (notices)
			svec_pushf(notices,
				   "dropping '%s' from '%s': nr_threads %s of "
				   "%ld cpus is 0",
				   job_name(j, &name), j->file,
				   job_nr_threads_text(j), nr_cpu);
		job_list_remove(l, i);
		dropped++;
	}
	sbuf_release(&name);
	return dropped;
}

/* A scalar for the writer, keeping the original's quoting if unchanged. */
static struct ynode *out_scalar(const struct ynode *orig, const char *val)
{
	struct ynode *n = ynode_new_scalar(val, 0, 0);

	if (orig && orig->kind == YNODE_SCALAR && !strcmp(orig->str, val))
		n->quoted = orig->quoted;
	return n;
}

/* The current value of a schema row as a node, or NULL when unset. */
static struct ynode *row_value(const struct job *j,
			       const struct schema_row *row,
			       const struct ynode *orig)
{
	char num[32];
	size_t i;

	switch (row->type) {
	case SCH_STR: {
		const char *s = *FIELD(j, row->off, char *const);

		return s ? out_scalar(orig, s) : NULL;
	}
	case SCH_LONG: {
		long v = *FIELD(j, row->off, const long);

		if (v <= 0)
			return NULL;
		snprintf(num, sizeof(num), "%ld", v);
		return out_scalar(orig, num);
	}
	case SCH_DURATION: {
		const char *s = *FIELD(j, row->off2, char *const);

		return s ? out_scalar(orig, s) : NULL;
	}
	case SCH_PAYLOAD: {
		struct ynode *m;

		if (!j->payload || strcmp(j->payload, row->name))
			return NULL;
		m = ynode_new(YNODE_MAP, 0, 0);
		for (i = 0; i < j->opts.nr; i++)
			ynode_map_push(
				m, j->opts.v[i].key,
				out_scalar(ynode_map_get(orig,
							 j->opts.v[i].key),
					   j->opts.v[i].val));
		return m;
	}
	default:
		return NULL;
	}
}

int job_write_yaml(const struct job *j, struct sbuf *out)
{
	struct ynode *doc = ynode_new(YNODE_MAP, 0, 0), *res, *v;
	const struct schema_row *row;
	char num[32];
	size_t i;
	int r;

	/*
	 * Values the file did not write (suite and testcase defaults, a
	 * bisection's commit) come first, like lkp's job.yaml header.
	 */
	for (row = job_schema; row->name; row++) {
		if (derived_key(row->name) || row->type == SCH_LONG ||
		    ynode_map_find(j->tree, row->name) >= 0)
			continue;
		v = row_value(j, row, NULL);
		if (v)
			ynode_map_push(doc, row->name, v);
	}
	for (i = 0; i < j->tree->nr; i++) {
		const char *key = j->tree->keys[i]->str;

		row = schema_find(job_schema, key);
		if (!row) {
			ynode_map_push(doc, key, ynode_copy(j->tree->vals[i]));
			continue;
		}
		/* nr_cpu goes with the derived keys, after path_params */
		if (row->type == SCH_IGNORE || row->type == SCH_LONG ||
		    derived_key(key))
			continue;
		v = row_value(j, row, j->tree->vals[i]);
		if (v)
			ynode_map_push(doc, key, v);
	}
	if (j->origin && ynode_map_find(doc, "job_origin") < 0)
		ynode_map_push(doc, "job_origin",
			       ynode_new_scalar(j->origin, 0, 0));
	ynode_map_push(doc, "path_params",
		       ynode_new_scalar(j->path_params, 0, 0));
	if ((v = row_value(j, schema_find(job_schema, "nr_cpu"), NULL)))
		ynode_map_push(doc, "nr_cpu", v);
	if (j->nr_cpu > 0 && j->nr_threads >= 0) {
		res = ynode_new(YNODE_MAP, 0, 0);
		snprintf(num, sizeof(num), "%ld", j->nr_threads);
		ynode_map_push(res, "nr_threads", ynode_new_scalar(num, 0, 0));
		snprintf(num, sizeof(num), "%ld", j->testtime);
		ynode_map_push(res, "testtime", ynode_new_scalar(num, 0, 0));
		ynode_map_push(doc, "resolved", res);
	}
	r = ynode_emit(doc, out);
	ynode_free(doc);
	return r;
}

/* Compare val with the number n ("2" matches nr_threads 2). */
static bool num_eq(long n, const char *val)
{
	long v;

	return rb_parse_long(val, &v) == 0 && v == n;
}

/* The value of a key, or NULL; *num is set for numeric alternatives. */
static const char *param_value(const struct job *j, const char *key, long *num)
{
	const struct schema_row *row;
	const struct ynode *x;
	const char *s;

	*num = -1;
	if (!strcmp(key, "path_params"))
		return j->path_params;
	if (!strcmp(key, "payload"))
		return j->payload;
	if (!strcmp(key, "nr_threads")) {
		*num = j->nr_threads;
		return job_nr_threads_text(j);
	}
	if (!strcmp(key, "testtime")) {
		*num = j->testtime;
		s = kvlist_get(&j->opts, "testtime");
		return s ? s : j->testtime_text;
	}
	row = schema_find(job_schema, key);
	if (row && row->type == SCH_STR && !(row->flags & SCH_F_NOFIELD))
		return *FIELD(j, row->off, char *const);
	if (row && row->type == SCH_LONG) {
		*num = *FIELD(j, row->off, const long);
		return NULL;
	}
	s = kvlist_get(&j->opts, key);
	if (s)
		return s;
	x = ynode_map_get(j->extra, key);
	if (x && x->kind == YNODE_SCALAR)
		return x->str;
	return NULL;
}

bool job_matches(const struct job *j, const char *key, const char *val)
{
	long num;
	const char *s = param_value(j, key, &num);

	if (s && !strcmp(s, val))
		return true;
	return num >= 0 && num_eq(num, val);
}

bool job_has_param(const struct job *j, const char *key)
{
	long num;

	return param_value(j, key, &num) || num >= 0;
}

long job_select(const struct job_list *l, const char *const *filters,
		size_t nr_filters)
{
	struct sbuf all = SBUF_INIT, names = SBUF_INIT, name = SBUF_INIT;
	long found = -1;
	size_t i, f, matches = 0;

	for (f = 0; f < nr_filters; f++) {
		const char *eq = strchr(filters[f], '=');
		bool known = false;
		char *key;

		if (!eq || eq == filters[f]) {
			rb_error("'%s' is not a key=value filter", filters[f]);
			goto out;
		}
		key = xstrndup(filters[f], (size_t)(eq - filters[f]));
		for (i = 0; i < l->nr && !known; i++)
			known = job_has_param(l->v[i], key);
		if (!known)
			rb_error("no atomic job has a parameter '%s'", key);
		free(key);
		if (!known)
			goto out;
		sbuf_addf(&all, "%s%s", f ? " " : "", filters[f]);
	}
	for (i = 0; i < l->nr; i++) {
		bool ok = true;

		for (f = 0; f < nr_filters && ok; f++) {
			const char *eq = strchr(filters[f], '=');
			char *key =
				xstrndup(filters[f], (size_t)(eq - filters[f]));

			ok = job_matches(l->v[i], key, eq + 1);
			free(key);
		}
		if (!ok)
			continue;
		if (matches < 5)
			sbuf_addf(&names, "%s'%s'", matches ? ", " : "",
				  job_name(l->v[i], &name));
		matches++;
		found = (long)i;
	}
	if (!matches) {
		if (nr_filters)
			rb_error("no atomic job matches '%s'", all.buf);
		else
			rb_error("no atomic job to pick from");
		found = -1;
	} else if (matches > 1) {
		rb_error("%zu atomic jobs match%s%s%s: %s%s; add key=value "
			 "filters to pick one",
			 matches, nr_filters ? " '" : "", all.buf,
			 nr_filters ? "'" : "", names.buf,
			 matches > 5 ? ", ..." : "");
		found = -1;
	}
out:
	sbuf_release(&all);
	sbuf_release(&names);
	sbuf_release(&name);
	return found;
}
