// SPDX-License-Identifier: GPL-2.0-only
#include <criterion/criterion.h>
#include <unistd.h>

#include "robot.h"
#include "lab.h"
#include "transport.h"
#include "sbuf.h"

/* The lab file of issue 2, item 6, with the optional keys added. */
static const char full_lab[] =
	"tree:\n"
	"  name: linus\n"
	"  path: /srv/linux\n"
	"  url: https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/"
	"linux.git\n"
	"  branch: master\n"
	"workdir: robot-work\n"
	"ssh_config: lab.ssh_config\n"
	"hooks:\n"
	"  build: scripts/hooks/kbuild\n"
	"  boot: scripts/hooks/qemu-boot\n"
	"  boot_timeout: 20m\n"
	"hosts:\n"
	"  - name: box1\n"
	"    transport: ssh\n"
	"    ssh: root@box1\n"
	"    nr_cpu: 2\n"
	"    machine: \"2 threads QEMU x86_64 with 512M memory\"\n"
	"    stress_ng: /usr/local/bin/stress-ng\n"
	"  - name: here\n"
	"    transport: local\n"
	"mail:\n"
	"  from: \"kernel test robot <robot@example.org>\"\n"
	"  to: []\n"
	"  cc: [a@example.org, b@example.org]\n"
	"  smtp: smtp://127.0.0.1:2525\n"
	"  archive_url: https://example.org/robot\n"
	"  auto_send: yes\n"
	"  starttls: true\n"
	"  user: robot\n"
	"  password_env: ROBOT_SMTP_PASSWORD\n"
	"  password_file: secrets/smtp\n"
	"nightly:\n"
	"  jobs:\n"
	"    - jobs/stress-ng-*.yaml\n"
	"    - job: jobs/stress-ng-toy.yaml\n"
	"      metric: stress-ng.mmapaddr.usr_sys_ops_per_sec\n"
	"      threshold: -3%\n"
	"      params: [nr_threads=1]\n"
	"      hosts: here\n"
	"  hosts: [box1]\n"
	"  baseline: tag\n"
	"  interval: 12h\n"
	"  max_runs: 6\n"
	"  still_mail: true\n";

static void load(struct lab *lab, const char *text)
{
	int r = lab_load_string(lab, "lab.yaml", "/labs/one", text,
				strlen(text));

	cr_assert_eq(r, 0, "lab failed: %s", rb_errmsg());
}

Test(lab, full_example)
{
	struct lab lab;
	const struct lab_host *h;

	load(&lab, full_lab);
	cr_expect_str_eq(lab.tree.name, "linus");
	cr_expect_str_eq(lab.tree.path, "/srv/linux");
	cr_expect_str_eq(lab.tree.branch, "master");
	cr_expect(rb_starts_with(lab.tree.url, "https://git.kernel.org/"));
	cr_expect_str_eq(lab.workdir, "/labs/one/robot-work");
	cr_expect_str_eq(lab.ssh_config, "/labs/one/lab.ssh_config");
	cr_expect_str_eq(lab.hooks.build, "/labs/one/scripts/hooks/kbuild");
	cr_expect_str_eq(lab.hooks.boot, "/labs/one/scripts/hooks/qemu-boot");
	cr_expect_eq(lab.hooks.build_timeout, 7200);
	cr_expect_eq(lab.hooks.boot_timeout, 1200);
	cr_assert_eq(lab.nr_hosts, 2);
	h = lab_find_host(&lab, "box1");
	cr_assert_not_null(h);
	cr_expect_str_eq(h->transport, "ssh");
	cr_expect_str_eq(h->ssh, "root@box1");
	cr_expect_eq(h->nr_cpu, 2);
	cr_expect_str_eq(h->machine, "2 threads QEMU x86_64 with 512M memory");
	cr_expect_str_eq(h->stress_ng, "/usr/local/bin/stress-ng");
	cr_expect_eq(h->line, 13);
	h = lab_find_host(&lab, "here");
	cr_assert_not_null(h);
	cr_expect_str_eq(h->transport, "local");
	cr_expect_null(h->ssh);
	cr_expect_eq(h->nr_cpu, 0);
	cr_expect_null(lab_find_host(&lab, "nope"));
	cr_expect_str_eq(lab.mail.from,
			 "kernel test robot <robot@example.org>");
	cr_expect_eq(lab.mail.to.nr, 0);
	cr_assert_eq(lab.mail.cc.nr, 2);
	cr_expect_str_eq(lab.mail.cc.v[1], "b@example.org");
	cr_expect_str_eq(lab.mail.smtp, "smtp://127.0.0.1:2525");
	cr_expect_str_eq(lab.mail.archive_url, "https://example.org/robot");
	cr_expect(lab.mail.auto_send);
	cr_expect(lab.mail.starttls);
	cr_expect_str_eq(lab.mail.user, "robot");
	cr_expect_str_eq(lab.mail.password_env, "ROBOT_SMTP_PASSWORD");
	cr_expect_str_eq(lab.mail.password_file, "/labs/one/secrets/smtp");
	cr_expect(lab.nightly.present);
	cr_assert_eq(lab.nightly.nr_jobs, 2);
	cr_expect_str_eq(lab.nightly.jobs[0].job,
			 "/labs/one/jobs/stress-ng-*.yaml");
	cr_expect_null(lab.nightly.jobs[0].threshold);
	cr_expect_eq(lab.nightly.jobs[0].params.nr, 0);
	cr_expect_str_eq(lab.nightly.jobs[1].job,
			 "/labs/one/jobs/stress-ng-toy.yaml");
	cr_expect_str_eq(lab.nightly.jobs[1].metric,
			 "stress-ng.mmapaddr.usr_sys_ops_per_sec");
	cr_expect_str_eq(lab.nightly.jobs[1].threshold, "-3%");
	cr_assert_eq(lab.nightly.jobs[1].params.nr, 1);
	cr_expect_str_eq(lab.nightly.jobs[1].params.v[0], "nr_threads=1");
	cr_assert_eq(lab.nightly.jobs[1].hosts.nr, 1);
	cr_expect_str_eq(lab.nightly.jobs[1].hosts.v[0], "here");
	cr_expect_eq(lab.nightly.jobs[1].line, 35);
	cr_assert_eq(lab.nightly.hosts.nr, 1);
	cr_expect_str_eq(lab.nightly.hosts.v[0], "box1");
	cr_expect_str_eq(lab.nightly.threshold, "5%");
	cr_expect_str_eq(lab.nightly.baseline, "tag");
	cr_expect_str_eq(lab.nightly.tag_pattern, "v*");
	cr_expect_eq(lab.nightly.interval, 12 * 3600);
	cr_expect_eq(lab.nightly.min_runs, 3);
	cr_expect_eq(lab.nightly.max_runs, 6);
	cr_expect(lab.nightly.improvements);
	cr_expect(lab.nightly.still_mail);
	lab_release(&lab);
}

Test(lab, defaults)
{
	struct lab lab;

	load(&lab, "hosts:\n  - name: box1\n");
	cr_expect_null(lab.tree.path);
	cr_expect_str_eq(lab.workdir, "/labs/one/robot-work");
	cr_expect_null(lab.ssh_config);
	cr_expect_null(lab.hooks.build);
	cr_expect_eq(lab.hooks.build_timeout, 2 * 3600);
	cr_expect_eq(lab.hooks.boot_timeout, 15 * 60);
	cr_expect_str_eq(lab.hosts[0].transport, "ssh");
	/* the destination defaults to the name (an ssh_config alias) */
	cr_expect_str_eq(lab.hosts[0].ssh, "box1");
	cr_expect_str_eq(lab.mail.smtp, "none");
	cr_expect_str_eq(lab.mail.from, "kernel test robot <robot@localhost>");
	cr_expect_not(lab.mail.auto_send);
	cr_expect_not(lab.mail.starttls);
	cr_expect_not_null(lab.mail.to.v);
	cr_expect_eq(lab.mail.to.nr, 0);
	cr_expect_not(lab.nightly.present);
	cr_expect_eq(lab.nightly.nr_jobs, 0);
	cr_expect_str_eq(lab.nightly.threshold, "5%");
	cr_expect_str_eq(lab.nightly.baseline, "previous");
	cr_expect_eq(lab.nightly.interval, 6 * 3600);
	cr_expect_eq(lab.nightly.max_runs, 10);
	cr_expect(lab.nightly.improvements);
	cr_expect_not(lab.nightly.still_mail);
	/* two local build slots, building ahead, no cache limit */
	cr_expect_eq(lab.builds.slots, 2);
	cr_expect(lab.builds.ahead);
	cr_expect_eq(lab.builds.hosts.nr, 0);
	cr_expect_null(lab.builds.cache);
	cr_expect_eq(lab.builds.cache_bytes, 0);
	lab_release(&lab);
}

Test(lab, builds_section)
{
	struct lab lab;

	load(&lab, "builds:\n  slots: 3\n  ahead: false\n"
		   "  hosts: [kb1, robot@kb2.lab]\n  cache: 20G\n");
	cr_expect_eq(lab.builds.slots, 3);
	cr_expect_not(lab.builds.ahead);
	cr_assert_eq(lab.builds.hosts.nr, 2);
	cr_expect_str_eq(lab.builds.hosts.v[1], "robot@kb2.lab");
	cr_expect_eq(lab.builds.cache_bytes, 20ULL << 30);
	lab_release(&lab);
}

Test(lab, tree_name_defaults_to_folder)
{
	struct lab lab;

	load(&lab, "tree: {path: ../linux}\nworkdir: /var/robot\n");
	cr_expect_str_eq(lab.tree.path, "/labs/one/../linux");
	cr_expect_str_eq(lab.tree.name, "linux");
	cr_expect_str_eq(lab.tree.branch, "master");
	cr_expect_str_eq(lab.workdir, "/var/robot");
	lab_release(&lab);
}

Test(lab, mail_to_as_scalar)
{
	struct lab lab;

	load(&lab, "mail: {to: dev@example.org}\n");
	cr_assert_eq(lab.mail.to.nr, 1);
	cr_expect_str_eq(lab.mail.to.v[0], "dev@example.org");
	lab_release(&lab);
}

/* The mail's own forms of an address, and logins it would make. */
Test(lab, mail_settings_the_mail_takes)
{
	static const char *const ok[] = {
		"mail:\n  from: robot@example.org\n"
		"  to: [dev@example.org, \"Dev Team <team@lists.example.org>\"]\n"
		"  cc: \"\\\"Admin, Lab\\\" <admin@lab.example.org>\"\n",
		"mail:\n  smtp: smtps://mail.example.org\n  user: robot\n"
		"  password_env: PW\n",
		"mail:\n  smtp: smtp://mail.example.org:587\n  starttls: true\n"
		"  user: robot\n  password_file: pw\n",
		/* nothing is sent: the login is not used */
		"mail:\n  smtp: none\n  user: robot\n  password_env: PW\n",
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(ok); i++) {
		struct lab lab;

		load(&lab, ok[i]);
		lab_release(&lab);
	}
}

Test(lab, errors_with_line_and_column)
{
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{ "hoks:\n  build: x\n",
		  "lab.yaml:1:1: unknown key 'hoks' (did you mean 'hooks'?)" },
		{ "workdir: w\nfrobnicate: 1\n",
		  "lab.yaml:2:1: unknown key 'frobnicate'" },
		{ "hooks:\n  build: x\n  buid_timeout: 1h\n",
		  "lab.yaml:3:3: unknown key 'buid_timeout' in hooks (did you "
		  "mean 'build_timeout'?)" },
		{ "hosts:\n  - name: a\n    nr_cpus: 2\n",
		  "lab.yaml:3:5: unknown key 'nr_cpus' in hosts[0] (did you "
		  "mean 'nr_cpu'?)" },
		{ "hosts:\n  - name: a\n    transport: telnet\n",
		  "lab.yaml:3:16: 'hosts[0].transport' must be one of ssh, "
		  "local, lava, not 'telnet'" },
		{ "hosts:\n  - transport: local\n",
		  "lab.yaml:2:5: 'hosts[0]' needs a 'name'" },
		{ "hosts:\n  - name: a\n  - name: a\n",
		  "lab.yaml:3:5: host 'a' is listed twice (first at line 2)" },
		{ "hosts:\n  - name: a\n    nr_cpu: two\n",
		  "lab.yaml:3:13: nr_cpu 'two' is not a count of CPUs (1 to "
		  "65536)" },
		{ "hosts:\n  - name: a\n    nr_cpu: 1000000000000000\n",
		  "lab.yaml:3:13: nr_cpu '1000000000000000' is not a count of "
		  "CPUs (1 to 65536)" },
		{ "hosts:\n  - name: a\n    ssh: -oProxyCommand=x\n",
		  "lab.yaml:3:10: ssh destination '-oProxyCommand=x' must not "
		  "be empty or start with '-'" },
		{ "hosts:\n  - name: 'a b'\n",
		  "lab.yaml:2:11: host name 'a b' is not [A-Za-z0-9._-]+" },
		{ "hosts: box1\n",
		  "lab.yaml:1:8: 'hosts' must be a list, not a scalar" },
		{ "hosts:\n  - box1\n",
		  "lab.yaml:2:5: 'hosts[0]' must be a mapping, not a scalar" },
		{ "tree:\n  name: linus\n",
		  "lab.yaml:2:3: 'tree' needs a 'path'" },
		{ "tree: /srv/linux\n",
		  "lab.yaml:1:7: 'tree' must be a mapping, not a scalar" },
		{ "hooks:\n  build_timeout: -1h\n",
		  "lab.yaml:2:18: timeout '-1h' is negative" },
		{ "hooks:\n  boot_timeout: 0\n",
		  "lab.yaml:2:17: timeout '0' must be at least 1s" },
		{ "mail:\n  auto_send: maybe\n",
		  "lab.yaml:2:14: 'mail.auto_send' must be true or false, not "
		  "'maybe'" },
		{ "mail:\n  smtp: http://x\n",
		  "lab.yaml:2:9: smtp 'http://x' must be smtp://HOST:PORT, "
		  "smtps://HOST:PORT or none" },
		{ "mail:\n  to: {a: b}\n",
		  "lab.yaml:2:7: 'mail.to' must be a list or a scalar, not a "
		  "mapping" },
		{ "mail:\n  password_env: 1X\n",
		  "lab.yaml:2:17: '1X' is not an environment variable name" },
		/* what the mail would refuse after a bisection: refused now */
		{ "mail:\n  from: not an address\n",
		  "lab.yaml:2:9: invalid mail address 'not an address'" },
		{ "mail:\n  from: \"Robot <robot@example.org\"\n",
		  "lab.yaml:2:9: invalid mail address 'Robot "
		  "<robot@example.org'" },
		{ "mail:\n  to: [\"bad addr\"]\n",
		  "lab.yaml:2:8: invalid mail address 'bad addr'" },
		{ "mail:\n  to: \"\"\n", "lab.yaml:2:7: missing mail address" },
		{ "mail:\n  cc: [ok@example.org, \"Admin <admin@@example.org>\"]\n",
		  "lab.yaml:2:24: invalid mail address 'admin@@example.org'" },
		{ "mail:\n  smtp: \"smtp://robot:secret@mail.example.org\"\n",
		  "lab.yaml:2:9: the smtp url must not hold a password: use a "
		  "password file or an environment variable" },
		{ "mail:\n  smtp: smtp://mail.example.org:25\n  user: robot\n"
		  "  password_env: PW\n",
		  "lab.yaml:3:9: refusing to send the smtp password without tls: "
		  "use smtps:// or require starttls" },
		{ "mail:\n  smtp: smtps://mail.example.org\n"
		  "  password_file: pw\n",
		  "lab.yaml:3:18: an smtp password is given but no smtp user" },
		{ "workdir: [a]\n",
		  "lab.yaml:1:10: 'workdir' must be a scalar, not a list" },
		{ "- a\n", "lab.yaml:1:1: a lab file must be a mapping, not a "
			   "list" },
		{ "", "lab.yaml:1:1: the lab file is empty" },
		{ "workdir: a\n---\nworkdir: b\n",
		  "lab.yaml:3:1: a lab file holds one document" },
		{ "workdir: 'a\n",
		  "lab.yaml:2:1: malformed yaml: found unexpected end of "
		  "stream while scanning a quoted scalar (from line 1)" },
		{ "nightly:\n  at: '02:00'\n",
		  "lab.yaml:2:3: unknown key 'at' in nightly" },
		{ "nightly:\n  threshold: 5\n",
		  "lab.yaml:2:14: threshold '5' is not a percentage (5%, "
		  "-5%: a drop is the regression, +5%: a rise is)" },
		{ "nightly:\n  threshold: 150%\n",
		  "lab.yaml:2:14: threshold '150%' must be between 0% and "
		  "100%" },
		{ "nightly:\n  threshold: -abc%\n",
		  "lab.yaml:2:14: threshold '-abc%': 'abc' is not a number" },
		{ "nightly:\n  baseline: yesterday\n",
		  "lab.yaml:2:13: 'nightly.baseline' must be one of previous, "
		  "tag, not 'yesterday'" },
		{ "nightly:\n  hosts: [nope]\n",
		  "lab.yaml:2:10: no host 'nope' in hosts:" },
		{ "nightly:\n  min_runs: 1\n",
		  "lab.yaml:2:13: '1' runs: a detection needs 2 to 1000" },
		{ "nightly:\n  min_runs: 5\n  max_runs: 4\n",
		  "lab.yaml:2:3: nightly.min_runs (5) is above "
		  "nightly.max_runs (4)" },
		{ "nightly:\n  jobs: {a: b}\n",
		  "lab.yaml:2:9: 'nightly.jobs' must be a list of job files "
		  "(or globs), not a mapping" },
		{ "nightly:\n  jobs:\n    - [a]\n",
		  "lab.yaml:3:7: a job entry is a file, a glob or a mapping, "
		  "not a list" },
		{ "nightly:\n  jobs:\n    - metric: x\n",
		  "lab.yaml:3:7: 'nightly.jobs[0]' needs a 'job'" },
		{ "nightly:\n  jobs:\n    - job: a.yaml\n      params: [x]\n",
		  "lab.yaml:4:16: parameter 'x' is not KEY=VALUE" },
		{ "nightly:\n  jobs:\n    - job: a.yaml\n      treshold: 1%\n",
		  "lab.yaml:4:7: unknown key 'treshold' in nightly.jobs[0] "
		  "(did you mean 'threshold'?)" },
		{ "lava:\n  url: http://l\n  device_type: qemu\n",
		  "lab.yaml:2:3: 'lava' needs a 'artifact_url'" },
		{ "lava:\n  url: ftp://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n",
		  "lab.yaml:2:8: 'ftp://l' is not an http:// or https:// URL" },
		{ "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n  priority: urgent\n",
		  "lab.yaml:5:13: priority 'urgent' is not high, medium, low or "
		  "0-100" },
		{ "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n  token: abc\n",
		  "lab.yaml:5:3: unknown key 'token' in lava" },
		{ "hosts:\n  - name: s1\n    transport: lava\n    nr_cpu: 1\n",
		  "lab.yaml:2:5: host 's1' is a LAVA slot but the lab has no "
		  "lava: section" },
		{ "hosts:\n  - name: s1\n    transport: lava\n    nr_cpu: 1\n"
		  "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n",
		  "lab.yaml:2:5: host 's1' is a LAVA slot but lava: has no "
		  "initrd:" },
		{ "hosts:\n  - name: s1\n    transport: lava\n"
		  "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n  initrd: box.cpio\n",
		  "lab.yaml:2:5: host 's1' is a LAVA slot: give its devices' "
		  "nr_cpu (nproc cannot be asked before a job boots one)" },
		{ "hosts:\n  - name: s1\n    transport: lava\n    nr_cpu: 1\n"
		  "    hdd_partitions: [/dev/vdb]\n"
		  "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n  initrd: box.cpio\n",
		  "lab.yaml:2:5: host 's1': a LAVA slot has no partitions of "
		  "its own (the pool's devices do)" },
		{ "lava:\n  url: http://l\n  device_type: qemu\n"
		  "  artifact_url: file:///a\n  runs_per_job: 0\n",
		  "lab.yaml:5:17: runs_per_job '0' is not 1-100" },
		{ "builds:\n  slots: 0\n",
		  "lab.yaml:2:10: slots '0' is not 1-64" },
		{ "builds:\n  cache: lots\n",
		  "lab.yaml:2:10: cache 'lots' is not a size (50G, 800M)" },
		{ "builds:\n  hosts: [kb1, -oProxyCommand=x]\n",
		  "lab.yaml:2:16: build host '-oProxyCommand=x' is not an ssh "
		  "destination (user@host or a Host alias)" },
		{ "hosts:\n  - name: b1\n    ssh: root@b1\n"
		  "builds:\n  hosts: [root@b1]\n",
		  "lab.yaml:5:11: build host 'root@b1' is the test host 'b1': "
		  "a build never runs on a box that measures" },
		{ "builds:\n  slot: 2\n",
		  "lab.yaml:2:3: unknown key 'slot' in builds (did you mean "
		  "'slots'?)" },
		{ "hosts:\n  - name: s1\n    transport: lavaa\n",
		  "lab.yaml:3:16: 'hosts[0].transport' must be one of ssh, "
		  "local, lava, not 'lavaa'" },
	};
	size_t i;

	for (i = 0; i < RB_ARRAY_SIZE(cases); i++) {
		struct lab lab;

		rb_error_clear();
		cr_expect_eq(lab_load_string(&lab, "lab.yaml", "/d",
					     cases[i].yaml,
					     strlen(cases[i].yaml)),
			     -1, "loaded: %s", cases[i].yaml);
		cr_expect_str_eq(rb_errmsg(), cases[i].want, "for: %s",
				 cases[i].yaml);
	}
}

Test(lab, lava_section)
{
	struct lab lab;

	load(&lab, "lava:\n"
		   "  url: http://127.0.0.1:8000/\n"
		   "  token_file: secrets/token\n"
		   "  device_type: qemu\n"
		   "  devices: [qemu01, qemu02]\n"
		   "  artifact_url: file:///srv/artifacts\n"
		   "  priority: 40\n"
		   "  job_timeout: 30m\n"
		   "  context: {arch: x86_64}\n");
	cr_expect_str_eq(lab.lava.url, "http://127.0.0.1:8000/");
	cr_expect_str_eq(lab.lava.token_file, "/labs/one/secrets/token");
	cr_expect_str_eq(lab.lava.device_type, "qemu");
	cr_expect_eq(lab.lava.devices.nr, 2);
	cr_expect_str_eq(lab.lava.priority, "40");
	cr_expect_eq(lab.lava.job_timeout, 1800);
	cr_expect_eq(lab.lava.action_timeout, 1200);
	cr_expect_str_eq(ynode_map_get(lab.lava.context, "arch")->str,
			 "x86_64");
	/* the batch's defaults */
	cr_expect_null(lab.lava.initrd);
	cr_expect_str_eq(lab.lava.kernel_image, "bzImage");
	cr_expect_str_eq(lab.lava.kernel_args,
			 "console=ttyS0,115200 rdinit=/init");
	cr_expect_eq(lab.lava.runs_per_job, 3);
	lab_release(&lab);
	/* slots of the pool: no ssh destination, the initrd made absolute */
	load(&lab, "hosts:\n"
		   "  - name: slot1\n"
		   "    transport: lava\n"
		   "    nr_cpu: 2\n"
		   "lava:\n"
		   "  url: http://127.0.0.1:8000\n"
		   "  token_env: LAVA_TOKEN\n"
		   "  device_type: qemu\n"
		   "  artifact_url: http://files.lab/artifacts/\n"
		   "  initrd: boxes/initrd.cpio\n"
		   "  runs_per_job: 5\n");
	cr_expect(transport_host_is_lava(&lab.hosts[0]));
	cr_expect(!transport_host_is_here(&lab.hosts[0]));
	cr_expect_null(lab.hosts[0].ssh);
	cr_expect_str_eq(lab.lava.initrd, "/labs/one/boxes/initrd.cpio");
	cr_expect_eq(lab.lava.runs_per_job, 5);
	lab_release(&lab);
	/* no section: no server */
	load(&lab, "workdir: w\n");
	cr_expect_null(lab.lava.url);
	lab_release(&lab);
}

Test(lab, load_from_file_resolves_against_its_folder)
{
	char dir[] = "/tmp/robot-lab-XXXXXX";
	char *path, *sub, *real;
	struct lab lab;

	cr_assert_not_null(mkdtemp(dir));
	sub = xstrfmt("%s/conf", dir);
	cr_assert_eq(rb_mkdir_p(sub), 0);
	path = xstrfmt("%s/lab.yaml", sub);
	cr_assert_eq(rb_write_file_atomic(path, "hooks: {build: kb}\n", 19), 0);
	real = rb_realpath(sub);
	cr_assert_eq(lab_load(&lab, path), 0, "%s", rb_errmsg());
	cr_expect_str_eq(lab.dir, real);
	cr_expect(rb_starts_with(lab.hooks.build, real));
	cr_expect(rb_ends_with(lab.hooks.build, "/kb"));
	cr_expect_str_eq(lab.file, path);
	lab_release(&lab);
	cr_expect_eq(lab_load(&lab, "/nonexistent/lab.yaml"), -1);
	cr_expect_str_eq(rb_errmsg(), "cannot open '/nonexistent/lab.yaml': "
				      "No such file or directory");
	rb_remove_tree(dir);
	free(real);
	free(path);
	free(sub);
}
