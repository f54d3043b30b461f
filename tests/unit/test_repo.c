// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libgit2 adapter on real repositories built by the test with git.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include "robot.h"
#include "bisect.h"
#include "repo.h"
#include "sbuf.h"

extern char **environ;

/* run git in dir with stdin from `in` (or /dev/null); stdout to `out` */
static int git(const char *dir, const char *in, const char *out,
	       const char *const *args)
{
	posix_spawn_file_actions_t fa;
	const char *argv[32];
	pid_t pid;
	int st, i = 0;

	argv[i++] = "git";
	argv[i++] = "-C";
	argv[i++] = dir;
	while (*args)
		argv[i++] = *args++;
	argv[i] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null",
					 O_RDONLY, 0);
	if (out)
		posix_spawn_file_actions_addopen(
			&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(posix_spawnp(&pid, "git", &fa, NULL, (char **)argv,
				  environ),
		     0);
	posix_spawn_file_actions_destroy(&fa);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char tmp[64];

static void setup_env(void)
{
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GLIBC_TUNABLES",
	       "glibc.malloc.trim_threshold=268435456:"
	       "glibc.malloc.top_pad=67108864",
	       1);
	snprintf(tmp, sizeof(tmp), "/tmp/robot-repo-test.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
	rb_remove_tree(tmp);
}

/*
 * A history with merges, an octopus and tied committer dates, through
 * fast-import (marks :1.. in creation order; libgit2's ":/text" search
 * leaks inside pcre2, so the tests name commits by path from master):
 *
 *   1 - 2 - 3 ----- 6 ---- 8 - 9      main (6 = merge 3,5; 8 = octopus 6,4,7)
 *        \         /      /
 *         4 ---- 5 ------'            (4 and 5 share 2's second)
 *          \             /
 *           7 ----------'
 */
static void make_repo(const char *dir)
{
	static const struct {
		int t;
		const char *from, *merge;
	} c[] = {
		{ 100, NULL, NULL }, { 200, "1", NULL },  { 300, "2", NULL },
		{ 200, "2", NULL },  { 300, "4", NULL },  { 400, "3", "5" },
		{ 350, "4", NULL },  { 400, "6", "4 7" }, { 500, "8", NULL },
	};
	struct sbuf sb = SBUF_INIT;
	char *path = xstrfmt("%s/stream", tmp);
	const char *init[] = { "init", "-q", NULL };
	const char *fi[] = { "fast-import", "--quiet", NULL };
	const char *tag[] = { "tag", "v1", "master~3", NULL };
	const char *co[] = { "checkout", "-q", "master", NULL };
	size_t i;

	rb_mkdir_p(dir);
	cr_assert_eq(git(dir, NULL, NULL, init), 0);
	for (i = 0; i < RB_ARRAY_SIZE(c); i++) {
		sbuf_addf(&sb,
			  "commit refs/heads/master\nmark :%zu\n"
			  "author A U Thor <author@example.com> %d +0000\n"
			  "committer C O Mitter <committer@example.com> %d "
			  "+0000\ndata 3\nc%zu\n",
			  i + 1, c[i].t, c[i].t, i + 1);
		if (c[i].from)
			sbuf_addf(&sb, "from :%s\n", c[i].from);
		if (c[i].merge) {
			char buf[16], *save = NULL, *tok;

			snprintf(buf, sizeof(buf), "%s", c[i].merge);
			for (tok = strtok_r(buf, " ", &save); tok;
			     tok = strtok_r(NULL, " ", &save))
				sbuf_addf(&sb, "merge :%s\n", tok);
		}
		sbuf_addf(&sb, "M 100644 inline f%zu\ndata 2\n%zu\n\n", i % 3,
			  i);
	}
	cr_assert_eq(rb_write_file_atomic(path, sb.buf, sb.len), 0);
	cr_assert_eq(git(dir, path, NULL, fi), 0);
	cr_assert_eq(git(dir, NULL, NULL, tag), 0);
	cr_assert_eq(git(dir, NULL, NULL, co), 0);
	sbuf_release(&sb);
	free(path);
}

static char *read_all(const char *path)
{
	char *buf;
	size_t len;

	cr_assert_eq(rb_read_file(path, &buf, &len), 0);
	return buf;
}

TestSuite(repo, .init = setup_env, .fini = teardown);

Test(repo, resolve_revisions)
{
	char *dir = xstrfmt("%s/r", tmp), *out = xstrfmt("%s/out", tmp);
	const char *rp[] = { "rev-parse", "HEAD", "HEAD~3", "v1", NULL };
	struct rb_repo *r;
	uint8_t oid[RB_OID_RAWSZ];
	char hex[RB_OID_HEXSZ + 1], *want, abbrev[8];

	make_repo(dir);
	cr_assert_eq(git(dir, NULL, out, rp), 0);
	want = read_all(out);
	cr_assert_eq(rb_repo_open(&r, dir), 0);
	cr_assert_eq(rb_repo_resolve(r, "HEAD", oid), 0);
	cr_assert_eq(strncmp(want, rb_oid_hex(oid, hex), 40), 0);
	cr_assert_eq(rb_repo_resolve(r, "master~3", oid), 0);
	cr_assert_eq(strncmp(want + 41, rb_oid_hex(oid, hex), 40), 0);
	cr_assert_eq(rb_repo_resolve(r, "v1", oid), 0);
	cr_assert_eq(strncmp(want + 82, rb_oid_hex(oid, hex), 40), 0);
	memcpy(abbrev, want + 82, 7);
	abbrev[7] = '\0';
	cr_assert_eq(rb_repo_resolve(r, abbrev, oid), 0);
	cr_assert_eq(strncmp(want + 82, hex, 40), 0);
	cr_assert_eq(rb_repo_resolve(r, "v6.9-rc1", oid), -1);
	cr_assert(rb_starts_with(rb_errmsg(), "cannot resolve 'v6.9-rc1': "),
		  "%s", rb_errmsg());
	rb_repo_free(r);
	free(want);
	free(dir);
	free(out);
}

/* the walk gives exactly `git rev-list BAD --not GOOD...` */
Test(repo, walk_matches_git_order)
{
	static const char *const ranges[][4] = {
		{ "HEAD", NULL },
		{ "HEAD", "^master~1^2", NULL },
		{ "HEAD", "^master~3", "^master~1^3", NULL },
		{ "master~2", "^master~4", NULL },
		{ "HEAD", "^HEAD", NULL },
	};
	char *dir = xstrfmt("%s/r", tmp), *out = xstrfmt("%s/out", tmp);
	struct rb_repo *r;
	size_t i, k;

	make_repo(dir);
	cr_assert_eq(rb_repo_open(&r, dir), 0);
	for (i = 0; i < RB_ARRAY_SIZE(ranges); i++) {
		const char *args[8] = { "rev-list" };
		struct rb_rev revs[4];
		struct rb_graph g = RB_GRAPH_INIT;
		uint32_t *list, nr, j;
		struct sbuf sb = SBUF_INIT;
		char hex[RB_OID_HEXSZ + 1], *want;
		size_t n = 0;

		for (k = 0; ranges[i][k]; k++) {
			const char *s = ranges[i][k];

			args[k + 1] = s;
			revs[n].negative = *s == '^';
			cr_assert_eq(rb_repo_resolve(r, s + (*s == '^'),
						     revs[n].oid),
				     0);
			n++;
		}
		args[k + 1] = NULL;
		cr_assert_eq(git(dir, NULL, out, args), 0);
		want = read_all(out);
		cr_assert_eq(rb_repo_walk(r, revs, n, 0, &g, &list, &nr), 0);
		for (j = 0; j < nr; j++)
			sbuf_addf(&sb, "%s\n", rb_oid_hex(g.oid[list[j]], hex));
		cr_assert_str_eq(sb.buf, want, "range %zu", i);
		sbuf_release(&sb);
		free(want);
		free(list);
		rb_graph_release(&g);
	}
	rb_repo_free(r);
	free(dir);
	free(out);
}

Test(repo, info_and_merge_bases)
{
	char *dir = xstrfmt("%s/r", tmp);
	struct rb_repo *r;
	struct rb_commit_info ci;
	uint8_t a[RB_OID_RAWSZ], b[1][RB_OID_RAWSZ], c2[RB_OID_RAWSZ],
		(*mb)[RB_OID_RAWSZ];
	size_t n;

	make_repo(dir);
	cr_assert_eq(rb_repo_open(&r, dir), 0);
	cr_assert_eq(rb_repo_resolve(r, "HEAD", a), 0);
	cr_assert_eq(rb_repo_commit_info(r, a, &ci), 0);
	cr_assert_str_eq(ci.subject, "c9");
	cr_assert_str_eq(ci.author_name, "A U Thor");
	cr_assert_eq(ci.commit_time, 500);
	rb_commit_info_release(&ci);
	/* merge base of c3 and c7 is c2 */
	cr_assert_eq(rb_repo_resolve(r, "master~3", a), 0);
	cr_assert_eq(rb_repo_resolve(r, "master~1^3", b[0]), 0);
	cr_assert_eq(rb_repo_resolve(r, "master~4", c2), 0);
	cr_assert_eq(rb_repo_merge_bases(r, a, (const uint8_t(*)[20])b, 1, &mb,
					 &n),
		     0);
	cr_assert_eq(n, 1);
	cr_assert_eq(memcmp(mb[0], c2, RB_OID_RAWSZ), 0);
	free(mb);
	cr_assert_eq(rb_repo_is_ancestor(r, c2, a), 1);
	cr_assert_eq(rb_repo_is_ancestor(r, a, c2), 0);
	rb_repo_free(r);
	free(dir);
}

static int64_t mtime_of(const char *path)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s", path);
	return st.st_mtime;
}

/* unchanged files keep their mtime: kernel builds stay incremental */
Test(repo, checkout_touches_only_changed_files)
{
	char *dir = xstrfmt("%s/r", tmp), *wt = xstrfmt("%s/wt", tmp);
	char *f0 = xstrfmt("%s/f0", wt), *f1 = xstrfmt("%s/f1", wt),
	     *f2 = xstrfmt("%s/f2", wt), *junk = xstrfmt("%s/build.o", wt);
	struct utimbuf old = { 1000000000, 1000000000 };
	struct rb_repo *r;
	uint8_t c8[RB_OID_RAWSZ], c9[RB_OID_RAWSZ];
	char *s;
	size_t len;

	make_repo(dir);
	cr_assert_eq(rb_repo_open(&r, dir), 0);
	cr_assert_eq(rb_repo_resolve(r, "master~1", c8), 0);
	cr_assert_eq(rb_repo_resolve(r, "master", c9), 0);
	/* a fresh checkout directory borrowing the objects */
	cr_assert_eq(rb_repo_checkout(r, c8, wt), 0, "%s", rb_errmsg());
	cr_assert_eq(rb_read_file(f1, &s, &len), 0);
	cr_assert_str_eq(s, "7\n");
	free(s);
	cr_assert_eq(rb_write_file_atomic(junk, "x", 1), 0);
	utime(f0, &old);
	utime(f1, &old);
	utime(f2, &old);
	/* c9 changes f2 only */
	cr_assert_eq(rb_repo_checkout(r, c9, wt), 0, "%s", rb_errmsg());
	cr_assert_eq(mtime_of(f0), 1000000000);
	cr_assert_eq(mtime_of(f1), 1000000000);
	cr_assert_neq(mtime_of(f2), 1000000000);
	cr_assert_eq(rb_read_file(f2, &s, &len), 0);
	cr_assert_str_eq(s, "8\n");
	free(s);
	cr_assert(rb_file_exists(junk), "untracked build output kept");
	/* and back */
	cr_assert_eq(rb_repo_checkout(r, c8, wt), 0, "%s", rb_errmsg());
	cr_assert_eq(mtime_of(f0), 1000000000);
	cr_assert_eq(rb_read_file(f2, &s, &len), 0);
	cr_assert_str_eq(s, "5\n");
	free(s);
	rb_repo_free(r);
	free(dir);
	free(wt);
	free(f0);
	free(f1);
	free(f2);
	free(junk);
}
