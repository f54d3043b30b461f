// SPDX-License-Identifier: GPL-2.0-only
#include "robot.h"
#include "context.h"
#include "repo.h"
#include "sbuf.h"
#include "store.h"
#include "workdir.h"
#include "transport.h"

static int pick_hosts(struct ctx *c, const char *names)
{
	char *copy, *save = NULL, *name;
	size_t i;

	c->hosts = xcalloc(c->lab.nr_hosts + 1, sizeof(*c->hosts));
	if (!names) {
		for (i = 0; i < c->lab.nr_hosts; i++)
			c->hosts[c->nr_hosts++] = &c->lab.hosts[i];
	} else {
		copy = xstrdup(names);
		for (name = strtok_r(copy, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			const struct lab_host *h = lab_find_host(&c->lab, name);

			if (!h) {
				rb_error("no host '%s' in '%s'", name,
					 c->lab.file);
				free(copy);
				return -1;
			}
			for (i = 0; i < c->nr_hosts; i++)
				if (c->hosts[i] == h)
					break;
			if (i == c->nr_hosts && c->nr_hosts < c->lab.nr_hosts)
				c->hosts[c->nr_hosts++] = h;
		}
		free(copy);
	}
	if (!c->nr_hosts && names)
		return rb_error("the host list '%s' names no host", names);
	if (!c->nr_hosts)
		return rb_error("'%s' lists no hosts", c->lab.file);
	c->host_jobs = xcalloc(c->nr_hosts, sizeof(*c->host_jobs));
	return 0;
}

int ctx_open_input(struct ctx *c, const struct ctx_opts *o)
{
	long idx;

	memset(c, 0, sizeof(*c));
	if (lab_load(&c->lab, o->lab) < 0)
		return -1;
	c->lab_loaded = true;
	if (o->job) {
		if (job_load_file(&c->jobs, o->job) < 0)
			goto fail;
		idx = job_select(&c->jobs, o->params, o->nr_params);
		if (idx < 0)
			goto fail;
		c->job = c->jobs.v[idx];
	}
	if (pick_hosts(c, o->hosts) < 0)
		goto fail;
	if (o->need_repo) {
		if (!c->lab.tree.path) {
			rb_error("'%s' has no tree.path", c->lab.file);
			goto fail;
		}
		if (rb_repo_open(&c->repo, c->lab.tree.path) < 0)
			goto fail;
	}
	return 0;
fail:
	ctx_close(c);
	return -1;
}

int ctx_open_workdir(struct ctx *c, const char *what)
{
	if (what && workdir_lock_take(&c->lock, c->lab.workdir, what) < 0)
		return -1;
	return store_open(&c->st, c->lab.workdir);
}

int ctx_open(struct ctx *c, const struct ctx_opts *o)
{
	if (ctx_open_input(c, o) < 0)
		return -1;
	if (ctx_open_workdir(c, o->what) < 0) {
		ctx_close(c);
		return -1;
	}
	return 0;
}

void ctx_close(struct ctx *c)
{
	size_t i;

	for (i = 0; c->host_jobs && i < c->nr_hosts; i++)
		job_free(c->host_jobs[i]);
	free(c->host_jobs);
	free(c->hosts);
	rb_repo_free(c->repo);
	store_close(c->st);
	workdir_lock_release(c->lock);
	job_list_release(&c->jobs);
	if (c->lab_loaded)
		lab_release(&c->lab);
	memset(c, 0, sizeof(*c));
}

/* nproc over the host's transport, for hosts whose nr_cpu the lab omits. */
static int probe_nr_cpu(const struct lab *lab, const struct lab_host *h,
			long *out)
{
	const char *argv[] = { "nproc", NULL };
	struct sbuf o = SBUF_INIT_MAX(4096), e = SBUF_INIT_MAX(4096);
	struct sbuf d = SBUF_INIT;
	struct transport_cmd cmd = {
		.argv = argv, .out = &o, .err = &e, .timeout = 60
	};
	struct transport_result res = { 0 };
	struct transport t;
	int ret = -1;

	if (transport_open(&t, lab, h) < 0)
		return -1;
	if (transport_run(&t, &cmd, &res) == 0) {
		sbuf_rtrim(&o);
		if (!res.infra && res.exited && res.code == 0 &&
		    rb_parse_long(o.buf, out) == 0 && *out > 0)
			ret = 0;
		else
			rb_error("cannot read the CPUs of '%s' (nproc: %s); "
				 "set nr_cpu in the lab file",
				 h->name, transport_describe(&res, &d));
	}
	transport_result_release(&res);
	transport_close(&t);
	sbuf_release(&o);
	sbuf_release(&e);
	sbuf_release(&d);
	return ret;
}

struct job *ctx_job(struct ctx *c, size_t i)
{
	const struct lab_host *h = c->hosts[i];
	struct job *j;
	long n = h->nr_cpu;
	int r;

	if (c->host_jobs[i])
		return c->host_jobs[i];
	if (n < 1 && probe_nr_cpu(&c->lab, h, &n) < 0)
		return NULL;
	j = job_copy(c->job);
	r = job_resolve(j, n);
	if (r != 0) {
		if (r > 0)
			rb_error("job '%s' resolves to 0 threads on '%s' "
				 "(nr_threads %s of %ld CPUs)",
				 c->job->file, h->name,
				 job_nr_threads_text(c->job) ?
					 job_nr_threads_text(c->job) :
					 "?",
				 n);
		job_free(j);
		return NULL;
	}
	c->host_jobs[i] = j;
	return j;
}
