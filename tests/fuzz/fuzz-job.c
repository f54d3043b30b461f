// SPDX-License-Identifier: GPL-2.0-only
/*
 * Job files as `robot job validate` and `robot job expand` read them:
 * load (merge, expand), resolve against a CPU count, write each atomic
 * job back as job.yaml and load that again. Promises: a refusal is one
 * message starting "FILE:LINE:COL: " or "FILE:"; a written job reads back
 * to the same name; values that become paths stay inside the result tree;
 * no stress-ng option names a file on the box; nr_threads in range.
 */
#include "robot.h"
#include "job.h"
#include "sbuf.h"
#include "svec.h"

#include "fuzz.h"

#define SRC "fuzz.yaml"

static void check_error(void)
{
	const char *e = rb_errmsg();

	fuzz_check(e && !strncmp(e, SRC ":", strlen(SRC ":")),
		   "error without its file: '%s'", e ? e : "(none)");
	fuzz_check(!strchr(e, '\n'), "a multi-line error: '%s'", e);
}

static void check_path_value(const char *what, const char *v)
{
	if (!v)
		return;
	fuzz_check(v[0] != '/' && strcmp(v, "..") && strncmp(v, "../", 3) &&
			   !strstr(v, "/../") &&
			   !(strlen(v) >= 3 &&
			     !strcmp(v + strlen(v) - 3, "/..")),
		   "%s '%s' escapes the result tree", what, v);
}

/* stress-ng options that name a file or a path on the box (its --help) */
static const char *const path_opts[] = {
	"job", "j",	   "log-file",	"temp-path",   "yaml",
	"Y",   "dev-file", "fstat-dir", "gpu-devnode", "plugin-so"
};

static void check_opts(const struct job *j)
{
	size_t i, k;

	for (i = 0; i < j->opts.nr; i++)
		for (k = 0; k < sizeof(path_opts) / sizeof(*path_opts); k++)
			fuzz_check(strcmp(j->opts.v[i].key, path_opts[k]),
				   "option '%s' names a path on the box",
				   path_opts[k]);
}

int fuzz_job(const uint8_t *data, size_t size)
{
	struct job_list l = JOB_LIST_INIT;
	struct svec notices = SVEC_INIT;
	struct sbuf yaml = SBUF_INIT, n1 = SBUF_INIT, n2 = SBUF_INIT;
	size_t i;

	if (job_load_string(&l, SRC, (const char *)data, size) < 0) {
		check_error();
		goto out;
	}
	/* a byte of the input picks the CPU count, as hosts differ */
	if (job_list_resolve(&l, size ? 1 + data[0] % 64 : 2, &notices) < 0)
		goto out;
	for (i = 0; i < l.nr && i < 8; i++) {
		struct job_list back = JOB_LIST_INIT;
		const struct job *j = l.v[i];

		check_path_value("kconfig", j->kconfig);
		check_path_value("compiler", j->compiler);
		check_path_value("rootfs", j->rootfs);
		check_path_value("tbox_group", j->tbox_group);
		check_path_value("path_params", j->path_params);
		check_opts(j);
		fuzz_check(j->nr_threads >= 0 && j->nr_threads <= 4096,
			   "nr_threads %ld", j->nr_threads);
		sbuf_reset(&yaml);
		fuzz_check(job_write_yaml(j, &yaml) == 0, "job_write_yaml: %s",
			   rb_errmsg());
		fuzz_check(job_load_string(&back, "job.yaml", yaml.buf,
					   yaml.len) == 0,
			   "the written job does not read back: %s\n%s",
			   rb_errmsg(), yaml.buf);
		fuzz_check(back.nr == 1, "job.yaml expands to %zu jobs",
			   back.nr);
		sbuf_reset(&n1);
		sbuf_reset(&n2);
		job_name(j, &n1);
		job_name(back.v[0], &n2);
		fuzz_check(!strcmp(n1.buf, n2.buf), "'%s' reads back as '%s'",
			   n1.buf, n2.buf);
		job_list_release(&back);
	}
out:
	job_list_release(&l);
	svec_clear(&notices);
	sbuf_release(&yaml);
	sbuf_release(&n1);
	sbuf_release(&n2);
	return 0;
}
