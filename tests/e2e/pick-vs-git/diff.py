# SPDX-License-Identifier: GPL-2.0-only
"""Differential test: robot pick against git on random histories.

usage: diff.py ROBOT SCRATCH [SEED] [REPOS] [DRAWS]

Each draw takes a random bad commit and 0-3 random goods (some of them
not ancestors of bad) in a random history with merges and octopus merges,
then compares, as exact output:
  robot pick                 with  git rev-list --bisect
  robot pick --first-parent  with  git rev-list --bisect --first-parent
  robot pick --bisect-vars   with  git rev-list --bisect-vars
  robot pick --bisect-all    with  git rev-list --bisect-all
  robot pick --ways 1        with  git rev-list --bisect
and for some draws robot pick --skip S... with what `git bisect start
--no-checkout` + `git bisect skip S...` checks out (or concludes).
Prints "N passed, N failed" and exits 1 on any difference.
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "lib"))
import randhist  # noqa: E402

robot, scratch = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 6002
nrepos = int(sys.argv[4]) if len(sys.argv) > 4 else 10
draws = int(sys.argv[5]) if len(sys.argv) > 5 else 14
env = randhist.git_env()
passed = failed = 0


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout


def check(what, ok, detail):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s\n%s" % (what, detail))


def ancestors(parents, i):
    seen, todo = set(), [i]
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        todo.extend(parents[x])
    return seen


def git_bisect(repo, bad, goods, skips, fp):
    """what git bisect checks out after the skips: ('sha', X) or
    ('found', X) or ('skipped', [X...]) or ('fail', None)"""
    args = ["git", "bisect", "start", "--no-checkout"]
    if fp:
        args.append("--first-parent")
    rc, out = run(args + [bad] + goods, repo)
    if rc != 0:
        run(["git", "bisect", "reset"], repo)
        return ("fail", None)
    rc, out = run(["git", "bisect", "skip"] + skips, repo)
    res = None
    m = re.search(r"^([0-9a-f]{40}) is the first bad commit", out, re.M)
    if "only 'skip'ped commits left" in out:
        res = ("skipped", re.findall(r"^[0-9a-f]{40}$", out, re.M))
    elif m:
        res = ("found", m.group(1))
    elif rc == 0:
        _, head = run(["git", "rev-parse", "BISECT_HEAD"], repo)
        res = ("sha", head.strip())
    else:
        res = ("fail", None)
    run(["git", "bisect", "reset"], repo)
    return res


def robot_bisect(repo, bad, goods, skips, fp):
    args = [robot, "pick", "--repo", repo]
    if fp:
        args.append("--first-parent")
    for s in skips:
        args += ["--skip", s]
    rc, out = run(args + [bad] + ["^" + g for g in goods], repo)
    m = re.search(r"^([0-9a-f]{40}) is the first bad commit", out, re.M)
    if "only 'skip'ped commits left" in out:
        return ("skipped", re.findall(r"^[0-9a-f]{40}$", out, re.M))
    if m:
        return ("found", m.group(1))
    if rc == 0 and re.fullmatch(r"[0-9a-f]{40}\n", out):
        return ("sha", out.strip())
    return ("fail", None)


rnd = random.Random(seed)
for r in range(nrepos):
    repo = os.path.join(scratch, "h%d" % r)
    n = rnd.randint(60, 400)
    shas, parents, dates = randhist.make_history(
        repo, n, seed * 1000 + r, tie_rate=rnd.choice([0.0, 0.3, 0.6]))
    for d in range(draws):
        bad_i = rnd.randrange(len(shas) // 4, len(shas))
        anc = sorted(ancestors(parents, bad_i))
        goods_i = []
        for _ in range(rnd.choice([0, 1, 1, 1, 2, 2, 3])):
            if rnd.random() < 0.75 and len(anc) > 1:
                goods_i.append(rnd.choice(anc[:-1] or anc))
            else:
                goods_i.append(rnd.randrange(len(shas)))
        bad = shas[bad_i]
        goods = [shas[g] for g in goods_i]
        revs = [bad] + ["^" + g for g in goods]
        for opt in ([], ["--first-parent"], ["--bisect-vars"],
                    ["--bisect-all"]):
            grc, gout = run(["git", "rev-list", "--bisect"] + opt + revs,
                            repo)
            rrc, rout = run([robot, "pick", "--repo", repo] + opt + revs,
                            repo)
            check("%s %s %s" % (repo, " ".join(opt), " ".join(revs)),
                  grc == rrc and gout == rout,
                  "git (%d):\n%srobot (%d):\n%s" % (grc, gout, rrc, rout))
        if d % 3 == 0:
            grc, gout = run(["git", "rev-list", "--bisect"] + revs, repo)
            rrc, rout = run([robot, "pick", "--repo", repo, "--ways", "1"]
                            + revs, repo)
            check("%s --ways 1 %s" % (repo, " ".join(revs)),
                  gout == rout, "git:\n%srobot:\n%s" % (gout, rout))
        if d % 2 == 0 and goods:
            # (git bisect waits for a good commit before it picks)
            # skips: the best commits of the range (what git would test)
            # and random ones, sometimes the bad commit itself
            _, allout = run(["git", "rev-list", "--bisect-all"] + revs, repo)
            ranked = [l.split()[0] for l in allout.splitlines()]
            skips = ranked[:rnd.randint(1, 4)]
            skips += rnd.sample(ranked, min(len(ranked), rnd.randint(0, 3)))
            if rnd.random() < 0.1:
                skips.append(bad)
            if rnd.random() < 0.15 and ranked:
                skips = ranked[:]  # everything skipped
            skips = sorted(set(skips)) or [bad]
            fp = rnd.random() < 0.25
            g = git_bisect(repo, bad, goods, skips, fp)
            o = robot_bisect(repo, bad, goods, skips, fp)
            check("%s bisect%s %s skip %s" % (repo, " --first-parent"
                                              if fp else "", " ".join(revs),
                                              " ".join(skips)),
                  g == o, "git: %r\nrobot: %r" % (g, o))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
