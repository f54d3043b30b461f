// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fetch adapter and the latest-tag baseline on real repositories built
 * by the test with git:
 *
 *   1 - 2 - 3 - 4 - 5     master of src (v1.0 on 1, v1.1 on 3, x9 on 4)
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "robot.h"
#include "bisect.h"
#include "fetch.h"
#include "repo.h"
#include "sbuf.h"

extern char **environ;

static char tmp[64];

static int run(const char *const *argv, const char *out)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(posix_spawnp(&pid, argv[0], &fa, NULL, (char **)argv,
				  environ),
		     0);
	posix_spawn_file_actions_destroy(&fa);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *path(const char *name)
{
	return xstrfmt("%s/%s", tmp, name);
}

/* the sha of rev in the repository at dir */
static char *rev(const char *dir, const char *r)
{
	char *out = path("rev.out"), *buf;
	const char *argv[] = { "git", "-C", dir, "rev-parse", r, NULL };
	size_t len;

	cr_assert_eq(run(argv, out), 0);
	cr_assert_eq(rb_read_file(out, &buf, &len), 0);
	buf[RB_OID_HEXSZ] = '\0';
	free(out);
	return buf;
}

static void commit(const char *src, int i, const char *tag)
{
	char *msg = xstrfmt("commit %d", i);
	const char *c[] = { "git",	     "-C", src, "commit", "-q",
			    "--allow-empty", "-m", msg, NULL };
	const char *t[] = { "git", "-C", src, "tag", tag, NULL };

	cr_assert_eq(run(c, NULL), 0);
	if (tag)
		cr_assert_eq(run(t, NULL), 0);
	free(msg);
}

static void setup(void)
{
	char *src;
	const char *init[] = { "git", "init", "-q", "-b", "master", NULL, NULL };
	int i;

	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.com", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	snprintf(tmp, sizeof(tmp), "/tmp/robot-fetch-test.XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
	src = path("src");
	init[5] = src;
	cr_assert_eq(run(init, NULL), 0);
	for (i = 1; i <= 5; i++)
		commit(src, i,
		       i == 1 ? "v1.0" :
		       i == 3 ? "v1.1" :
		       i == 4 ? "x9" :
				NULL);
	free(src);
}

static void teardown(void)
{
	rb_remove_tree(tmp);
}

TestSuite(fetch, .init = setup, .fini = teardown);

Test(fetch, a_local_path_into_a_new_bare_repository)
{
	char *src = path("src"), *dst = path("dst"), *tip = rev(src, "master");
	char hex[RB_OID_HEXSZ + 1], *t;
	struct rb_fetch_opts o = { .path = dst,
				   .url = src,
				   .branch = "master",
				   .ref = "refs/remotes/linus/master" };
	struct rb_fetch_result r;

	cr_assert_eq(rb_fetch(&o, &r), 0, "%s", rb_errmsg());
	cr_expect_str_eq(rb_oid_hex(r.head, hex), tip);
	cr_expect_not(r.had_old);
	cr_expect_gt(r.objects, 0);
	/* the tags came along */
	t = rev(dst, "v1.1");
	free(t);
	/* again: nothing new, the old head known */
	cr_assert_eq(rb_fetch(&o, &r), 0, "%s", rb_errmsg());
	cr_expect(r.had_old);
	cr_expect_eq(memcmp(r.old, r.head, RB_OID_RAWSZ), 0);
	/* a new commit upstream moves the ref */
	commit(src, 6, NULL);
	free(tip);
	tip = rev(src, "master");
	cr_assert_eq(rb_fetch(&o, &r), 0, "%s", rb_errmsg());
	cr_expect_str_eq(rb_oid_hex(r.head, hex), tip);
	cr_expect_neq(memcmp(r.old, r.head, RB_OID_RAWSZ), 0);
	free(tip);
	free(src);
	free(dst);
}

Test(fetch, errors)
{
	char *src = path("src"), *dst = path("dst"), *nope = path("nope");
	struct rb_fetch_opts o = { .path = dst,
				   .url = src,
				   .branch = "no-such-branch",
				   .ref = "refs/remotes/linus/x" };
	struct rb_fetch_result r;

	cr_expect_eq(rb_fetch(&o, &r), -1);
	cr_expect(strstr(rb_errmsg(), "the remote has no such branch"), "%s",
		  rb_errmsg());
	o.branch = "bad..name";
	cr_expect_eq(rb_fetch(&o, &r), -1);
	cr_expect(strstr(rb_errmsg(), "not a valid branch or ref name"), "%s",
		  rb_errmsg());
	o.branch = "master";
	o.url = nope;
	cr_expect_eq(rb_fetch(&o, &r), -1);
	cr_expect(rb_starts_with(rb_errmsg(), "cannot fetch 'master' from '"),
		  "%s", rb_errmsg());
	free(src);
	free(dst);
	free(nope);
}

/* robot lab check's question: the remote has the branch; nothing written */
Test(fetch, check_asks_the_remote_without_fetching)
{
	char *src = path("src"), *dst = path("dst"), *nope = path("nope");
	char *want;
	struct rb_fetch_opts o = { .path = dst,
				   .url = src,
				   .branch = "master" };

	cr_expect_eq(rb_fetch_check(&o), 0, "%s", rb_errmsg());
	cr_expect_not(rb_file_exists(dst), "the check made '%s'", dst);
	o.branch = "no-such-branch";
	want = xstrfmt("cannot fetch 'no-such-branch' from '%s': the remote "
		       "has no such branch",
		       src);
	cr_expect_eq(rb_fetch_check(&o), -1);
	cr_expect_str_eq(rb_errmsg(), want);
	o.branch = "bad..name";
	cr_expect_eq(rb_fetch_check(&o), -1);
	cr_expect(strstr(rb_errmsg(), "not a valid branch or ref name"), "%s",
		  rb_errmsg());
	o.branch = "master";
	o.url = nope;
	cr_expect_eq(rb_fetch_check(&o), -1);
	cr_expect(rb_starts_with(rb_errmsg(), "cannot fetch 'master' from '"),
		  "%s", rb_errmsg());
	cr_expect_not(rb_file_exists(dst));
	free(want);
	free(src);
	free(dst);
	free(nope);
}

Test(fetch, ssh_without_a_server)
{
	char *dst = path("dst"), *kh = path("known_hosts");
	struct rb_fetch_opts o = { .path = dst,
				   .url = "ssh://git@127.0.0.1:1/x.git",
				   .branch = "master",
				   .ref = "refs/remotes/x/master",
				   .known_hosts = kh };
	struct rb_fetch_result r;

	/* nothing listens on port 1: a clear error, no crash */
	cr_expect_eq(rb_fetch(&o, &r), -1);
	cr_expect(rb_starts_with(rb_errmsg(),
				 "cannot fetch 'master' from "
				 "'ssh://git@127.0.0.1:1/x.git': "),
		  "%s", rb_errmsg());
	free(dst);
	free(kh);
}

Test(fetch, base64)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		char *b = rb_base64(cases[i].in, strlen(cases[i].in));

		cr_expect_str_eq(b, cases[i].out);
		free(b);
	}
}

Test(fetch, latest_tag_below_a_head)
{
	char *src = path("src"), *c3 = rev(src, "master~2"),
	     *c1 = rev(src, "master~4"), *name;
	struct rb_repo *r;
	uint8_t oid[RB_OID_RAWSZ], tagged[RB_OID_RAWSZ];
	char hex[RB_OID_HEXSZ + 1];

	cr_assert_eq(rb_repo_open(&r, src), 0);
	/* master (5): v1.1 (x9 does not match v*) */
	cr_assert_eq(rb_repo_resolve(r, "master", oid), 0);
	cr_assert_eq(rb_repo_last_tag(r, oid, "v*", &name, tagged), 1, "%s",
		     rb_errmsg());
	cr_expect_str_eq(name, "v1.1");
	cr_expect_str_eq(rb_oid_hex(tagged, hex), c3);
	free(name);
	/* 3 is tagged v1.1 itself: the tag before it */
	cr_assert_eq(rb_repo_resolve(r, "v1.1", oid), 0);
	cr_assert_eq(rb_repo_last_tag(r, oid, "v*", &name, tagged), 1);
	cr_expect_str_eq(name, "v1.0");
	cr_expect_str_eq(rb_oid_hex(tagged, hex), c1);
	free(name);
	/* 1 is the root and tagged: nothing before it */
	cr_assert_eq(rb_repo_resolve(r, "v1.0", oid), 0);
	cr_expect_eq(rb_repo_last_tag(r, oid, "v*", &name, tagged), 0);
	cr_expect_null(name);
	/* another pattern */
	cr_assert_eq(rb_repo_resolve(r, "master", oid), 0);
	cr_assert_eq(rb_repo_last_tag(r, oid, "x*", &name, tagged), 1);
	cr_expect_str_eq(name, "x9");
	free(name);
	cr_expect_eq(rb_repo_last_tag(r, oid, "nope*", &name, tagged), 0, "%s",
		     rb_errmsg());
	rb_repo_free(r);
	free(src);
	free(c3);
	free(c1);
}
