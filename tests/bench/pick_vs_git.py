# SPDX-License-Identifier: GPL-2.0-only
"""robot pick vs git rev-list --bisect on a 100k-commit history.

usage: pick_vs_git.py ROBOT CACHEDIR GRAPHBENCH
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import randhist  # noqa: E402

robot, cache, graphbench = sys.argv[1:4]
N, SEED = 110_000, 20242
repo = os.path.join(cache, "bench-history-%d-%d" % (N, SEED))
env = randhist.git_env()


def git(*args):
    return subprocess.run(["git", "-C", repo] + list(args), env=env,
                          check=True, stdout=subprocess.PIPE,
                          text=True).stdout


if not os.path.exists(os.path.join(repo, ".done")):
    subprocess.run(["rm", "-rf", repo], check=True)
    t = time.time()
    randhist.make_history(repo, N, SEED, merge_rate=0.55, tie_rate=0.2)
    open(os.path.join(repo, ".done"), "w").close()
    print("built %s in %.1f s" % (repo, time.time() - t))
total = int(git("rev-list", "--count", "HEAD"))
merges = int(git("rev-list", "--merges", "--count", "HEAD"))
print("history: %d commits, %d merges (%.1f%%)"
      % (total, merges, 100.0 * merges / total))
ok = total >= 100_000 and merges * 5 >= total

# goods on the first-parent chain that leave ~1k, 10k, 50k candidates
mainline = git("rev-list", "--first-parent", "HEAD").split()


def count(good):
    return int(git("rev-list", "--count", "HEAD", "^" + good))


def good_for(target):
    lo, hi = 1, len(mainline) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if count(mainline[mid]) < target:
            lo = mid + 1
        else:
            hi = mid
    return mainline[lo]


def timed(args):
    """best wall and CPU (user+sys) times of 2 runs, stdout, largest RSS"""
    best, cpu, out, rss = None, None, None, 0
    for _ in range(2):
        t = time.monotonic()
        p = subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                             text=True)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.monotonic() - t
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit("failed: %s" % args)
        best = dt if best is None else min(best, dt)
        c = ru.ru_utime + ru.ru_stime
        cpu = c if cpu is None else min(cpu, c)
        rss = max(rss, ru.ru_maxrss / 1024.0)
    return best, cpu, out, rss


for target in (1000, 10_000, 50_000):
    good = good_for(target)
    n = count(good)
    tg, cg, og, rg = timed(["git", "-C", repo, "rev-list", "--bisect",
                            "HEAD", "^" + good])
    tr, cr, orb, rr = timed([robot, "pick", "--repo", repo, "HEAD",
                             "^" + good])
    same = og == orb
    ok &= same
    print("range %6d candidates: git %6.2f s (cpu %6.2f)  robot %5.2f s "
          "(cpu %5.2f)  ratio wall %5.1fx cpu %5.1fx  same pick: %s  "
          "robot RSS %.0f MiB"
          % (n, tg, cg, tr, cr, tg / tr, cg / cr, "yes" if same else "NO",
             rr))
    if target == 50_000:
        ok &= rr < 500 and tg / tr >= 10
        print("RATIO-50K wall %.1fx cpu %.1fx" % (tg / tr, cg / cr))

p = subprocess.run([graphbench, "1300000"], stdout=subprocess.PIPE,
                   text=True, check=True)
print(p.stdout, end="")
ok &= "OK" in p.stdout
print("bench pick-vs-git: %s" % ("ok" if ok else "TARGET MISSED"))
sys.exit(0 if ok else 1)
