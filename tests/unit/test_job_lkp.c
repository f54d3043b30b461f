// SPDX-License-Identifier: GPL-2.0-only
/*
 * lkp's job file constructs: `<<:` includes (lkp-tests lib/yaml.rb) and
 * the incremental keys of revise_hash (lib/hash.rb), on real files.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "robot.h"
#include "job.h"
#include "sbuf.h"
#include "svec.h"

static char *dir;

static void setup(void)
{
	char tmpl[] = "/tmp/robot-job-lkp-XXXXXX";

	cr_assert_not_null(mkdtemp(tmpl));
	dir = xstrdup(tmpl);
	unsetenv("LKP_SRC");
}

static void teardown(void)
{
	rb_remove_tree(dir);
	free(dir);
	unsetenv("LKP_SRC");
}

TestSuite(job_lkp, .init = setup, .fini = teardown);

/* Write dir/name (folders made); returns the path (malloc'd). */
static char *put(const char *name, const char *text)
{
	char *path = xstrfmt("%s/%s", dir, name), *slash;

	slash = strrchr(path, '/');
	*slash = '\0';
	cr_assert_eq(rb_mkdir_p(path), 0);
	*slash = '/';
	cr_assert_eq(rb_write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

/* The path_params of every atomic job, space-separated. */
static char *params_of(const char *file)
{
	struct job_list l = JOB_LIST_INIT;
	struct sbuf sb = SBUF_INIT;
	size_t i;

	cr_assert_eq(job_load_file(&l, file), 0, "%s", rb_errmsg());
	cr_assert_eq(job_list_resolve(&l, 8, NULL), 0);
	for (i = 0; i < l.nr; i++)
		sbuf_addf(&sb, "%s%s", i ? " " : "", l.v[i]->path_params);
	job_list_release(&l);
	return sbuf_detach(&sb);
}

/* The error of loading file, with dir replaced by "D". */
static char *error_of(const char *file)
{
	struct job_list l = JOB_LIST_INIT;
	struct sbuf sb = SBUF_INIT;
	const char *e, *p;

	rb_error_clear();
	cr_assert_eq(job_load_file(&l, file), -1, "loaded %s", file);
	cr_assert_eq(l.nr, 0);
	e = rb_errmsg();
	while ((p = strstr(e, dir))) {
		sbuf_add(&sb, e, (size_t)(p - e));
		sbuf_addch(&sb, 'D');
		e = p + strlen(dir);
	}
	sbuf_addstr(&sb, e);
	return sbuf_detach(&sb);
}

static void expect_params(const char *file, const char *want)
{
	char *got = params_of(file);

	cr_expect_str_eq(got, want, "%s", file);
	free(got);
}

static void expect_error(const char *file, const char *want)
{
	char *got = error_of(file);

	cr_expect_str_eq(got, want);
	free(got);
}

static const char base[] = "suite: stress-ng\n"
			   "nr_threads: 100%\n"
			   "disk: 1HDD\n"
			   "testtime: 60s\n"
			   "fs: [ext4, xfs]\n"
			   "stress-ng:\n"
			   "  test: [dir, aio]\n"
			   "---\n"
			   "stress-ng:\n"
			   "  test: hdd\n"
			   "  hdd_opts: [sync]\n";

/* lkp's part6-1ssd: the included file with disk: replaced everywhere */
Test(job_lkp, include_with_an_override)
{
	char *b = put("jobs/base.yaml", base);
	char *ssd =
		put("jobs/ssd.yaml", "<<: {file: base.yaml, disk: '1SSD'}\n");

	expect_params(b,
		      "1HDD-ext4-100%-dir-60s 1HDD-ext4-100%-aio-60s "
		      "1HDD-xfs-100%-dir-60s 1HDD-xfs-100%-aio-60s "
		      "1HDD-ext4-sync-100%-hdd-60s 1HDD-xfs-sync-100%-hdd-60s");
	/* the second document had no disk: it is appended there too */
	expect_params(ssd, "1SSD-ext4-100%-dir-60s 1SSD-ext4-100%-aio-60s "
			   "1SSD-xfs-100%-dir-60s 1SSD-xfs-100%-aio-60s "
			   "1SSD-ext4-sync-100%-hdd-60s "
			   "1SSD-xfs-sync-100%-hdd-60s");
	free(b);
	free(ssd);
}

/* two includes, ignore:, a later line that wins, a nested include */
Test(job_lkp, includes_ignore_and_later_lines)
{
	char *f;

	free(put("jobs/common.yaml", "nr_threads: 50%\ntesttime: 30s\n"
				     "<<: deeper/gov.yaml\n"));
	free(put("jobs/deeper/gov.yaml", "cpufreq_governor: performance\n"));
	free(put("jobs/sng.yaml", "cpufreq_governor: powersave\n"
				  "stress-ng:\n  test:\n    - brk\n"
				  "    - mmap\n"));
	f = put("jobs/two.yaml", "<<: common.yaml\n"
				 "<<: {file: sng.yaml, ignore: "
				 "[cpufreq_governor]}\n"
				 "testtime: 20s\n");
	expect_params(f, "performance-50%-brk-20s performance-50%-mmap-20s");
	free(f);
}

/* found as lkp finds it: $LKP_SRC, then below the nearest jobs folder */
Test(job_lkp, include_search_path)
{
	char *f, *src = xstrfmt("%s/lkp-tests", dir);

	free(put("lkp-tests/jobs/stress-ng/upstream.yaml",
		 "nr_threads: 1\nstress-ng: {test: mmap}\n"));
	free(put("mine/jobs/sub/deep/local.yaml",
		 "nr_threads: 2\nstress-ng: {test: brk}\n"));
	f = put("mine/jobs/x.yaml", "<<: local.yaml\n");
	expect_params(f, "2-brk");
	free(f);
	f = put("mine/jobs/y.yaml", "<<: jobs/stress-ng/upstream.yaml\n");
	expect_error(f, "D/mine/jobs/y.yaml:1:5: included file "
			"'jobs/stress-ng/upstream.yaml' not found (looked in "
			"D/mine/jobs; LKP_SRC is not set)");
	setenv("LKP_SRC", src, 1);
	expect_params(f, "1-mmap");
	free(f);
	free(src);
}

Test(job_lkp, include_errors_name_where_they_are)
{
	char *f;

	/* a bad value in the included file: its own line and column */
	free(put("jobs/part.yaml", "nr_threads: 1\n"
				   "stress-ng:\n"
				   "  test: MMap\n"));
	f = put("jobs/top.yaml", "# a comment\n<<: part.yaml\n");
	expect_error(f, "D/jobs/part.yaml:3:9: test name 'MMap' is not "
			"[a-z0-9-]+");
	free(f);
	/* the same, indented under a key */
	free(put("jobs/opts.yaml", "test: [mmap, 'b c']\n"));
	f = put("jobs/nested.yaml", "stress-ng:\n  <<: opts.yaml\n");
	expect_error(f, "D/jobs/opts.yaml:1:14: test name 'b c' is not "
			"[a-z0-9-]+");
	free(f);
	/* malformed YAML in an included file */
	free(put("jobs/broken.yaml", "stress-ng:\n  test: [mmap\n"));
	f = put("jobs/uses-broken.yaml", "nr_threads: 1\n<<: broken.yaml\n");
	expect_error(f, "D/jobs/broken.yaml:3:1: malformed yaml: did not "
			"find expected ',' or ']' while parsing a flow "
			"sequence (from line 2)");
	free(f);
	/* a cycle through two files, at the line that closes it */
	free(put("jobs/a.yaml", "nr_threads: 1\n<<: b.yaml\n"));
	free(put("jobs/b.yaml", "\n\n  <<: a.yaml\n"));
	f = xstrfmt("%s/jobs/a.yaml", dir);
	expect_error(f, "D/jobs/b.yaml:3:7: include cycle: D/jobs/a.yaml -> "
			"D/jobs/b.yaml -> D/jobs/a.yaml");
	free(f);
	f = put("jobs/nofile.yaml", "<<: {ignore: [x]}\n");
	expect_error(f, "D/jobs/nofile.yaml:1:5: '<<:' needs a file: {file: "
			"FILE, ...}");
	free(f);
	f = put("jobs/flow.yaml", "<<: {file: [a\n");
	expect_error(f, "D/jobs/flow.yaml:1:5: '<<: {file: [a' is not a flow "
			"mapping such as {file: FILE, key: 'value'}");
	free(f);
}

/*
 * lkp's templates (lib/erb.rb, lib/job.rb) are Ruby the robot does not
 * run: refused at the template, in the job or in a file it includes,
 * never read as YAML (an unquoted {{ x }} is a mapping of a mapping) nor
 * run with the template's text for a value (a quoted one, a key the
 * robot passes over). A comment may speak of them.
 */
Test(job_lkp, templates_are_refused_where_they_are)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "nr_threads: {{ 2 * 4 }}\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: '{{ }}' is an lkp template (Ruby), which the "
		  "robot does not evaluate: write the value it stands for" },
		{ "stress-ng:\n  test:\n  - mmap\n  - {{\n"
		  "      fs == 'xfs' ? 'dir' : 'aio'\n    }}\n",
		  "t.yaml:4:5: '{{ }}' is an lkp template (Ruby), which the "
		  "robot does not evaluate: write the value it stands for" },
		{ "note: \"size {{ nr_cpu * 2 }}\"\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:13: '{{ }}' is an lkp template (Ruby), which the "
		  "robot does not evaluate: write the value it stands for" },
		{ "testtime: <%= 30 * 2 %>s\nstress-ng: {test: mmap}\n",
		  "t.yaml:1:11: '<% %>' is an lkp ERB template (Ruby), which "
		  "the robot does not run: write the value it makes" },
		{ "% [1, 2].each do |n|\nnr_threads: <%= n %>\n% end\n"
		  "stress-ng: {test: mmap}\n",
		  "t.yaml:1:1: a line starting with '%' is Ruby in an lkp ERB "
		  "template, which the robot does not run: write the values it "
		  "makes" },
		{ "stress-ng: {test: mmap}  # <% x %>\n",
		  "t.yaml:1:28: '<% %>' is an lkp ERB template (Ruby), which "
		  "the robot does not run: write the value it makes" },
	};
	struct job_list l = JOB_LIST_INIT;
	char *f, *top, *got, *want;
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		f = put("t.yaml", cases[i].text);
		got = error_of(f);
		want = xstrfmt("D/%s", cases[i].want);
		cr_expect_str_eq(got, want, "%s", cases[i].text);
		free(want);
		free(got);
		free(f);
	}
	/* in an included file: that file's line and column */
	free(put("jobs/tmpl.yaml", "nr_threads: 1\n"
				   "stress-ng:\n"
				   "  test: mmap\n"
				   "  mmap-bytes: '{{ nr_cpu }}M'\n"));
	top = put("jobs/top.yaml", "<<: tmpl.yaml\n");
	expect_error(top, "D/jobs/tmpl.yaml:4:16: '{{ }}' is an lkp template "
			  "(Ruby), which the robot does not evaluate: write "
			  "the value it stands for");
	free(top);
	/*
	 * a comment may hold a {{ }} (lkp evaluates values only), not a
	 * <% %> (lkp's ERB runs on the whole text)
	 */
	f = put("c.yaml", "# lkp would write {{ expr }}\n"
			  "nr_threads: 1  # not {{ 2 * 4 }}\n"
			  "stress-ng: {test: mmap}\n");
	cr_assert_eq(job_load_file(&l, f), 0, "%s", rb_errmsg());
	cr_expect_eq(l.nr, 1);
	job_list_release(&l);
	free(f);
}

/* revise_hash: key+, key-, dotted keys and accumulative keys */
Test(job_lkp, incremental_keys)
{
	struct job_list l = JOB_LIST_INIT;
	const struct ynode *n;
	char *f;

	f = put("jobs/rev.yaml", "nr_threads: 100%\n"
				 "cpufreq_governor: performance\n"
				 "need_kconfig: [A]\n"
				 "tags: {a: 1, b: 2}\n"
				 "stress-ng:\n  test: mmap\n"
				 "---\n"
				 "stress-ng.test: bigheap\n"
				 "need_kconfig: [B]\n"
				 "---\n"
				 "stress-ng.test+: [brk, mmap]\n"
				 "---\n"
				 "cpufreq_governor-:\n"
				 "tags-: [a]\n"
				 "stress-ng.method: all\n");
	expect_params(f, "performance-100%-mmap performance-100%-bigheap "
			 "performance-100%-mmap performance-100%-brk "
			 "all-100%-mmap");
	cr_assert_eq(job_load_file(&l, f), 0, "%s", rb_errmsg());
	/* need_* accumulate across documents */
	n = ynode_map_get(l.v[1]->extra, "need_kconfig");
	cr_assert_not_null(n);
	cr_assert_eq(n->nr, 2);
	cr_expect_str_eq(n->vals[1]->str, "B");
	/* key-: with a value removes those keys; the key+ is gone */
	n = ynode_map_get(l.v[4]->extra, "tags");
	cr_assert_eq(n->nr, 1);
	cr_expect_str_eq(n->keys[0]->str, "b");
	cr_expect_null(ynode_map_get(l.v[2]->extra, "stress-ng.test+"));
	cr_expect_null(l.v[4]->cpufreq_governor);
	/* a dotted key makes the mappings it goes through */
	cr_expect_str_eq(kvlist_get(&l.v[4]->opts, "method"), "all");
	job_list_release(&l);
	free(f);
	f = put("jobs/through-scalar.yaml",
		"nr_threads: 1\nstress-ng: {test: mmap}\n---\n"
		"nr_threads.x: 2\n");
	expect_error(f, "D/jobs/through-scalar.yaml:4:1: 'nr_threads.x': "
			"'nr_threads' is a scalar, not a mapping");
	free(f);
}
