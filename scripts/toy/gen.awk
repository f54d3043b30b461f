# SPDX-License-Identifier: GPL-2.0-only
#
# The toy kernel's history generator: writes a git fast-import stream on
# stdout and a plan (which mark is the culprit, which do not build...) to the
# file named by `plan`. Driven by scripts/toy-kernel; POSIX awk (mawk, gawk).
#
# Variables (-v):
#   seed       integer seed of everything random here
#   n          commits to create (merges included)
#   append     0: a new history from a root commit; 1: on top of base_tip
#   base_tip   40-hex tip to build on (append), base_time its commit time
#   features   the base tip's .toy/features file (append), else /dev/null
#   culprit    "none", "random" or K: the K-th non-merge commit created
#   cost       settle times of the mapping hardware the culprit adds to
#              every mapping call
#   settle     the mapping hardware's time per change in microseconds
#              (mm/mmap.c); leave it unset (1000) but to calibrate
#   brk        "", "random" or "A:B": commit A breaks the build, B fixes it
#   octopus    1: at least one octopus merge (needs n >= 12)
#   branch     the branch the history is written to
#   tag        a tag to put on the new tip, or ""
#   plan       output file of the plan
#
# The tree is a pure function of a set of keys: every non-merge commit adds
# one key (a helper function, a comment, the build break, its fix, the
# slow audit), a merge takes the union of its parents' keys. So merges never
# conflict, and whether a commit builds or is slow follows from its keys the
# way C compilation would decide it: a break key uses a macro that only its
# fix key defines. The keys of a tree are listed in its .toy/features file,
# which is what --append reads back.

function rnd() {
	rng = (rng * 16807) % 2147483647
	return rng / 2147483647
}

# a uniform integer in [0, k)
function rint(k) {
	return int(rnd() * k)
}

function die(msg) {
	print "toy-kernel: " msg > "/dev/stderr"
	bad = 1
	exit 1
}

# ---- topology -------------------------------------------------------------

# A new commit: parents are commit numbers, 0 being the base tip (append).
function mk(kind, p1, p2) {
	nc++
	ckind[nc] = kind
	npar[nc] = 0
	if (p1 != "") {
		npar[nc] = 1
		par[nc, 1] = p1
	}
	if (p2 != "") {
		npar[nc] = 2
		par[nc, 2] = p2
	}
	if (kind != "merge") {
		nm++
		pos[nc] = nm
		bypos[nm] = nc
	}
	return nc
}

function main_commit() {
	main = mk("main", main, "")
}

# shuffle tok[1..ntok] (Fisher-Yates)
function shuffle(i, j, t) {
	for (i = ntok; i > 1; i--) {
		j = 1 + rint(i)
		t = tok[i]
		tok[i] = tok[j]
		tok[j] = t
	}
}

function topic_name(    w) {
	ntopic++
	w = topic_words[1 + rint(ntopic_words)]
	return w "-" ntopic
}

# A block of t topics forked from the main tip, with k[i] commits each,
# m main commits interleaved, an optional back-merge of the main branch into
# the first topic, then one merge (an octopus when t > 1) into main.
function block(t, m, back,    i, j, fork, tips, name, names, nk, c, seen) {
	fork = main
	ntok = 0
	for (i = 1; i <= t; i++) {
		tip[i] = fork
		tname[i] = topic_name()
		for (j = 1; j <= bk[i]; j++)
			tok[++ntok] = i
	}
	for (j = 1; j <= m; j++)
		tok[++ntok] = "M"
	shuffle()
	seen = 0
	for (j = 1; j <= ntok; j++) {
		if (tok[j] == "M") {
			main_commit()
			if (back && seen) {
				c = mk("merge", tip[1], main)
				cmsg[c] = "Merge branch '" branch "' into " tname[1]
				tip[1] = c
				back = 0
			}
		} else {
			i = tok[j]
			tip[i] = mk("topic", tip[i], "")
			ctopic[tip[i]] = tname[i]
			if (i == 1)
				seen = 1
		}
	}
	c = mk("merge", main, tip[1])
	for (i = 2; i <= t; i++) {
		npar[c]++
		par[c, npar[c]] = tip[i]
	}
	if (t == 1) {
		cmsg[c] = "Merge branch '" tname[1] "'"
	} else {
		names = "'" tname[1] "'"
		for (i = 2; i < t; i++)
			names = names ", '" tname[i] "'"
		names = names " and '" tname[t] "'"
		cmsg[c] = "Merge branches " names
		noctopus++
	}
	main = c
}

# a block's size: its topic commits, main commits and merges
function bsize(t, m, back,    i, s) {
	s = m + 1 + back
	for (i = 1; i <= t; i++)
		s += bk[i]
	return s
}

function plan_history(    left, reserve, t, m, back, i, r) {
	if (!append) {
		main = mk("root", "", "")
	} else {
		main = 0
	}
	want_octo = octopus && n >= 12
	octo_at = int(n * (0.3 + 0.3 * rnd()))
	while (nc < n) {
		left = n - nc
		reserve = want_octo ? 4 : 0
		if (want_octo && (nc >= octo_at || left <= 8)) {
			# an octopus of 2 or 3 topics, 1-3 commits each
			t = 2 + rint(2)
			for (i = 1; i <= t; i++)
				bk[i] = 1 + rint(3)
			m = rint(3)
			while (bsize(t, m, 0) > left && m > 0)
				m--
			for (i = t; bsize(t, m, 0) > left && i >= 1; i--)
				bk[i] = 1
			while (bsize(t, m, 0) > left && t > 2)
				t--
			block(t, m, 0)
			want_octo = 0
			continue
		}
		r = rnd()
		if (r < 0.35 || left - reserve < 2) {
			main_commit()
			continue
		}
		bk[1] = 1 + rint(5)
		m = rint(4)
		back = (m >= 1 && bk[1] >= 2 && rnd() < 0.25) ? 1 : 0
		while (bsize(1, m, back) > left - reserve && bk[1] > 1)
			bk[1]--
		while (bsize(1, m, back) > left - reserve && m > 0) {
			m--
			back = 0
		}
		block(1, m, back)
	}
}

# ---- keys -----------------------------------------------------------------

function add_key(c, type, file, val) {
	kid[c] = base_max + c
	ktype[kid[c]] = type
	kfile[kid[c]] = file
	kval[kid[c]] = val
}

function assign_keys(    c, r, a, b, parts) {
	brk_a = 0
	brk_b = 0
	if (brk == "random") {
		if (nm < 12)
			die("too few commits for a build break")
		brk_a = int(nm * 0.25 + rnd() * nm * 0.3)
		brk_b = brk_a + 2 + rint(6)
	} else if (brk != "") {
		split(brk, parts, ":")
		brk_a = parts[1] + 0
		brk_b = parts[2] + 0
		if (brk_a < 1 || brk_b <= brk_a || brk_b > nm)
			die("build break '" brk "' is not A:B with 1 <= A < B <= " nm)
		if (ckind[bypos[brk_a]] == "root")
			die("the root commit cannot break the build")
	}
	for (c = 1; c <= nc; c++) {
		if (ckind[c] == "merge" || ckind[c] == "root")
			continue
		if (brk_a && pos[c] == brk_a) {
			add_key(c, "break", "lib/list.c", 0)
			continue
		}
		if (brk_b && pos[c] == brk_b) {
			add_key(c, "fix", "include/toy/lib.h", base_max + bypos[brk_a])
			continue
		}
		r = rnd()
		if (r < 0.55) {
			a = 1 + rint(13)
			b = 1 + rint(13)
			add_key(c, "helper", hfiles[1 + rint(nhfiles)], \
				a "," b "," (1 + rint(65535)))
		} else if (r < 0.85) {
			add_key(c, "note", nfl[1 + rint(nnfiles)], rint(nphrases))
		} else {
			add_key(c, "tune", "mm/mmap.c", rint(nphrases))
		}
	}
}

function bits_or(a, b,    i, s) {
	s = ""
	for (i = 1; i <= n; i++)
		s = s ((substr(a, i, 1) == "1" || substr(b, i, 1) == "1") ? \
			"1" : "0")
	return s
}

function compute_states(    c, k, s) {
	zero = ""
	for (k = 1; k <= n; k++)
		zero = zero "0"
	st[0] = zero
	for (c = 1; c <= nc; c++) {
		s = npar[c] ? st[par[c, 1]] : zero
		for (k = 2; k <= npar[c]; k++)
			s = bits_or(s, st[par[c, k]])
		if (c in kid)
			s = substr(s, 1, c - 1) "1" substr(s, c + 1)
		st[c] = s
	}
}

# the key ids of commit c's tree, ascending, in ids[1..nids]
function tree_ids(c,    i, s) {
	nids = 0
	for (i = 1; i <= nbase; i++)
		ids[++nids] = base_id[i]
	s = st[c]
	for (i = 1; i <= n; i++)
		if (substr(s, i, 1) == "1")
			ids[++nids] = base_max + i
}

# a tree does not build when it has a break key without its fix key
function broken(c,    i, id, fixed, nb, b) {
	tree_ids(c)
	nb = 0
	for (i = 1; i <= nids; i++) {
		id = ids[i]
		if (ktype[id] == "break")
			b[++nb] = id
		else if (ktype[id] == "fix")
			fixed[kval[id]] = 1
	}
	for (i = 1; i <= nb; i++)
		if (!(b[i] in fixed))
			return 1
	return 0
}

function choose_culprit(    c, lo, hi, cand, ncand) {
	culprit_c = 0
	if (culprit == "none")
		return
	if (culprit == "random") {
		lo = int(nm * 0.2) + 1
		hi = int(nm * 0.8)
		ncand = 0
		for (c = 1; c <= nc; c++)
			if ((c in kid) && pos[c] >= lo && pos[c] <= hi && \
			    ktype[kid[c]] != "break" && ktype[kid[c]] != "fix" && \
			    !isbroken[c])
				cand[++ncand] = c
		if (!ncand)
			die("no commit can be the culprit (too few commits?)")
		culprit_c = cand[1 + rint(ncand)]
	} else {
		if (culprit !~ /^[0-9]+$/ || culprit + 0 < 1 || culprit + 0 > nm)
			die("culprit position '" culprit "' is not in 1.." nm)
		culprit_c = bypos[culprit + 0]
		if (!(culprit_c in kid))
			die("the root commit cannot be the culprit")
		if (ktype[kid[culprit_c]] == "break" || \
		    ktype[kid[culprit_c]] == "fix")
			die("the culprit cannot be the build break or its fix")
	}
	ktype[kid[culprit_c]] = "audit"
	kfile[kid[culprit_c]] = "mm/audit.c"
	kval[kid[culprit_c]] = cost
}

# ---- rendering ------------------------------------------------------------

function spdx_c() {
	return "// SPDX-License-Identifier: GPL-2.0-only\n"
}

function notes_of(f) {
	return (f in notes) ? notes[f] : ""
}

function render(c,    i, id, t, f, v, parts, stem, calls, s) {
	tree_ids(c)
	split("", notes)
	split("", body)
	libh = ""
	defs = ""
	mmh = ""
	calls = ""
	features = ""
	for (i = 1; i <= nids; i++) {
		id = ids[i]
		t = ktype[id]
		f = kfile[id]
		v = kval[id]
		features = features id " " t " " f " " v "\n"
		if (t == "helper") {
			split(v, parts, ",")
			stem = hstem[f]
			body[f] = body[f] "\n/* " helper_doc[id % nhdocs] " */\n" \
				"unsigned long toy_" stem "_helper_" id \
				"(unsigned long x)\n{\n\treturn (x << " parts[1] \
				") ^ (x >> " parts[2] ") ^ " parts[3] "UL;\n}\n"
			libh = libh "unsigned long toy_" stem "_helper_" id \
				"(unsigned long x);\n"
		} else if (t == "note") {
			if (f == "README")
				notes[f] = notes[f] "- " phrase[v] "\n"
			else
				notes[f] = notes[f] " * " phrase[v] "\n"
		} else if (t == "tune") {
			body[f] = body[f] "\n/* " phrase[v] " */\n" \
				"unsigned long toy_mm_stat_" id \
				"(unsigned long pages)\n{\n\treturn pages * " \
				(id % 7 + 2) " + " id ";\n}\n"
			libh = libh "unsigned long toy_mm_stat_" id \
				"(unsigned long pages);\n"
		} else if (t == "break") {
			body[f] = body[f] "\n/* poison deleted entries so that " \
				"use after unlink faults */\n" \
				"void *toy_list_poison_" id "(void)\n{\n" \
				"\treturn TOY_LIST_POISON_" id ";\n}\n"
			libh = libh "void *toy_list_poison_" id "(void);\n"
		} else if (t == "fix") {
			defs = defs "#define TOY_LIST_POISON_" v \
				" ((void *)0x100)\n"
		} else if (t == "audit") {
			body[f] = body[f] "\n/*\n * Wait for every mapping change " \
				"to reach all CPUs before it returns,\n" \
				" * so that no CPU can use a stale one: each " \
				"change waits\n * TOY_AUDIT_FLUSH_" id " more " \
				"settle times of the mapping hardware.\n */\n" \
				"#define TOY_AUDIT_FLUSH_" id " " v "\n" \
				"\nunsigned int toy_mm_audit_" id "(void)\n{\n" \
				"\treturn TOY_AUDIT_FLUSH_" id ";\n}\n"
			mmh = mmh "unsigned int toy_mm_audit_" id "(void);\n"
			calls = calls "\tunits += toy_mm_audit_" id "();\n"
		}
	}

	out["Makefile"] = makefile
	out[".toy/features"] = features
	s = "The toy kernel\n==============\n\n" \
		"A shared library that stands in for a kernel in the robot's " \
		"tests: it\ninterposes mmap, mmap64 and munmap and forwards " \
		"them to the C library.\nBuild it with `make O=DIR`; boot it " \
		"with LD_PRELOAD=DIR/toykernel.so.\n"
	if (notes_of("README") != "")
		s = s "\nNotes:\n" notes["README"]
	out["README"] = s

	out["include/toy/lib.h"] = "/* SPDX-License-Identifier: " \
		"GPL-2.0-only */\n/*\n * include/toy/lib.h - helpers of the " \
		"toy kernel\n" notes_of("include/toy/lib.h") " */\n" \
		"#ifndef TOY_LIB_H\n#define TOY_LIB_H\n\n" \
		"#include <stddef.h>\n\n" defs \
		(defs != "" ? "\n" : "") \
		"unsigned long toy_strhash(const char *s);\n" \
		"void toy_list_init(void **head);\n" \
		"unsigned long toy_bitmap_weight(unsigned long w);\n" \
		"void toy_sort_ulong(unsigned long *v, size_t n);\n" \
		"int toy_mem_ready(void);\n" \
		"size_t toy_rw_chunk(size_t len);\n" \
		libh "\n#endif\n"

	out["include/toy/mm.h"] = "/* SPDX-License-Identifier: " \
		"GPL-2.0-only */\n/*\n * include/toy/mm.h - the mapping path " \
		"of the toy kernel\n" notes_of("include/toy/mm.h") " */\n" \
		"#ifndef TOY_MM_H\n#define TOY_MM_H\n\n" \
		"#include <sys/types.h>\n\n" \
		"typedef void *(*toy_mmap_fn)(void *, size_t, int, int, int, " \
		"off_t);\n" \
		"typedef void *(*toy_mmap64_fn)(void *, size_t, int, int, int, " \
		"off64_t);\n" \
		"typedef int (*toy_munmap_fn)(void *, size_t);\n\n" \
		"extern toy_mmap_fn toy_real_mmap;\n" \
		"extern toy_mmap64_fn toy_real_mmap64;\n" \
		"extern toy_munmap_fn toy_real_munmap;\n\n" \
		"void toy_mm_init(void);\n" mmh "\n#endif\n"

	out["kernel/init.c"] = spdx_c() "/*\n * kernel/init.c - boot the toy " \
		"kernel: find the C library's mapping calls\n" \
		" * that mm/mmap.c forwards to\n" notes_of("kernel/init.c") \
		" */\n#include <dlfcn.h>\n\n#include <toy/lib.h>\n" \
		"#include <toy/mm.h>\n\n" \
		"toy_mmap_fn toy_real_mmap;\ntoy_mmap64_fn toy_real_mmap64;\n" \
		"toy_munmap_fn toy_real_munmap;\n\n" \
		"void toy_mm_init(void)\n{\n" \
		"\ttoy_real_mmap = (toy_mmap_fn)dlsym(RTLD_NEXT, \"mmap\");\n" \
		"\ttoy_real_mmap64 = (toy_mmap64_fn)dlsym(RTLD_NEXT, " \
		"\"mmap64\");\n" \
		"\ttoy_real_munmap = (toy_munmap_fn)dlsym(RTLD_NEXT, " \
		"\"munmap\");\n}\n\n" \
		"__attribute__((constructor)) static void toy_boot(void)\n{\n" \
		"\ttoy_mm_init();\n}\n" body["kernel/init.c"]

	out["mm/mmap.c"] = spdx_c() "/*\n * mm/mmap.c - the mapping path: " \
		"every mmap, mmap64 and munmap of the\n * process comes " \
		"through here on its way to the C library\n" \
		notes_of("mm/mmap.c") " */\n#include <errno.h>\n" \
		"#include <sys/mman.h>\n#include <time.h>\n\n" \
		"#include <toy/lib.h>\n#include <toy/mm.h>\n\n" \
		"/*\n * The toy machine's mapping hardware applies each " \
		"change in\n * TOY_MM_SETTLE_NS, one after the other, while " \
		"the CPU goes on. A caller\n * waits only when more than " \
		"TOY_MM_QUEUE_NS of changes are queued, asleep\n * until " \
		"the queue is empty: the time is the device's, not the " \
		"CPU's, and\n * every wait covers the same amount of " \
		"hardware work however long the\n * wake-up takes on a " \
		"busy machine.\n */\n" \
		"#define TOY_MM_SETTLE_NS " settle "000LL\n" \
		"#define TOY_MM_QUEUE_NS (4 * TOY_MM_SETTLE_NS)\n\n" \
		"/* when the hardware has applied every queued change " \
		"(CLOCK_MONOTONIC) */\n" \
		"static long long toy_mm_busy_until;\n\n" \
		"static void toy_mm_queue(unsigned int units)\n{\n" \
		"\tstruct timespec t;\n\tlong long now;\n" \
		"\tint saved = errno;\n\n" \
		"\tclock_gettime(CLOCK_MONOTONIC, &t);\n" \
		"\tnow = t.tv_sec * 1000000000LL + t.tv_nsec;\n" \
		"\tif (toy_mm_busy_until < now)\n" \
		"\t\ttoy_mm_busy_until = now;\n" \
		"\ttoy_mm_busy_until += units * TOY_MM_SETTLE_NS;\n" \
		"\tif (toy_mm_busy_until - now > TOY_MM_QUEUE_NS) {\n" \
		"\t\tt.tv_sec = toy_mm_busy_until / 1000000000LL;\n" \
		"\t\tt.tv_nsec = toy_mm_busy_until % 1000000000LL;\n" \
		"\t\twhile (clock_nanosleep(CLOCK_MONOTONIC, " \
		"TIMER_ABSTIME, &t,\n\t\t\t\t       NULL) == EINTR)\n" \
		"\t\t\t;\n\t}\n\terrno = saved;\n}\n\n" \
		"void *mmap(void *addr, size_t len, int prot, int flags, int fd, " \
		"off_t off)\n{\n\tunsigned int units = 1;\n\tvoid *p;\n\n" \
		"\tif (!toy_real_mmap)\n\t\ttoy_mm_init();\n" \
		calls "\tp = toy_real_mmap(addr, len, prot, flags, fd, off);\n" \
		"\ttoy_mm_queue(units);\n\treturn p;\n}\n\n" \
		"void *mmap64(void *addr, size_t len, int prot, int flags, " \
		"int fd,\n\t     off64_t off)\n{\n\tunsigned int units = 1;\n\tvoid *p;\n\n" \
		"\tif (!toy_real_mmap64)\n\t\ttoy_mm_init();\n" calls \
		"\tp = toy_real_mmap64(addr, len, prot, flags, fd, off);\n" \
		"\ttoy_mm_queue(units);\n\treturn p;\n}\n\n" \
		"int munmap(void *addr, size_t len)\n{\n" \
		"\tunsigned int units = 1;\n\tint r;\n\n" \
		"\tif (!toy_real_munmap)\n\t\ttoy_mm_init();\n" calls \
		"\tr = toy_real_munmap(addr, len);\n" \
		"\ttoy_mm_queue(units);\n\treturn r;\n}\n" \
		body["mm/mmap.c"]

	out["mm/audit.c"] = spdx_c() "/*\n * mm/audit.c - consistency checks " \
		"of the mapping path\n" notes_of("mm/audit.c") " */\n" \
		"#include <sys/mman.h>\n\n" \
		"#include <toy/lib.h>\n#include <toy/mm.h>\n" body["mm/audit.c"]

	out["lib/string.c"] = spdx_c() "/*\n * lib/string.c - string " \
		"helpers\n" notes_of("lib/string.c") " */\n" \
		"#include <toy/lib.h>\n\n" \
		"unsigned long toy_strhash(const char *s)\n{\n" \
		"\tunsigned long h = 5381;\n\n\twhile (*s)\n" \
		"\t\th = h * 33 + (unsigned char)*s++;\n\treturn h;\n}\n" \
		body["lib/string.c"]

	out["lib/list.c"] = spdx_c() "/*\n * lib/list.c - list helpers\n" \
		notes_of("lib/list.c") " */\n#include <toy/lib.h>\n\n" \
		"void toy_list_init(void **head)\n{\n\t*head = head;\n}\n" \
		body["lib/list.c"]

	out["lib/bitmap.c"] = spdx_c() "/*\n * lib/bitmap.c - bitmap " \
		"helpers\n" notes_of("lib/bitmap.c") " */\n" \
		"#include <toy/lib.h>\n\n" \
		"unsigned long toy_bitmap_weight(unsigned long w)\n{\n" \
		"\tunsigned long n = 0;\n\n\tfor (; w; w &= w - 1)\n" \
		"\t\tn++;\n\treturn n;\n}\n" body["lib/bitmap.c"]

	out["lib/sort.c"] = spdx_c() "/*\n * lib/sort.c - sorting helpers\n" \
		notes_of("lib/sort.c") " */\n#include <toy/lib.h>\n\n" \
		"void toy_sort_ulong(unsigned long *v, size_t n)\n{\n" \
		"\tsize_t i, j;\n\n\tfor (i = 1; i < n; i++)\n" \
		"\t\tfor (j = i; j > 0 && v[j - 1] > v[j]; j--) {\n" \
		"\t\t\tunsigned long t = v[j];\n\n" \
		"\t\t\tv[j] = v[j - 1];\n\t\t\tv[j - 1] = t;\n\t\t}\n}\n" \
		body["lib/sort.c"]

	out["drivers/char/mem.c"] = spdx_c() "/*\n * drivers/char/mem.c - " \
		"the toy memory device\n" notes_of("drivers/char/mem.c") \
		" */\n#include <toy/lib.h>\n\n" \
		"int toy_mem_ready(void)\n{\n\treturn 1;\n}\n" \
		body["drivers/char/mem.c"]

	out["fs/read_write.c"] = spdx_c() "/*\n * fs/read_write.c - read " \
		"and write helpers\n" notes_of("fs/read_write.c") " */\n" \
		"#include <toy/lib.h>\n\n" \
		"size_t toy_rw_chunk(size_t len)\n{\n" \
		"\treturn len < 4096 ? len : 4096;\n}\n" body["fs/read_write.c"]
}

# ---- the fast-import stream -----------------------------------------------

function data(s) {
	printf "data %d\n%s\n", length(s), s
}

function ref(p) {
	return p == 0 ? base_tip : ":" p
}

function subject(c,    id, t, f, w) {
	if (ckind[c] == "root")
		return "Initial toy kernel"
	if (ckind[c] == "merge")
		return cmsg[c]
	id = kid[c]
	t = ktype[id]
	f = kfile[id]
	w = fstem[f]
	if (t == "helper")
		return w ": add toy_" hstem[f] "_helper_" id "()"
	if (t == "note")
		return w ": " note_verb[id % nverbs] " the comment on " \
			note_topic[id % ntopics]
	if (t == "tune")
		return "mm: add toy_mm_stat_" id "() for mapping statistics"
	if (t == "break")
		return "lib/list: poison deleted entries"
	if (t == "fix")
		return "lib/list: define the list poison value"
	return "mm: probe the mapping path on every mapping change"
}

function body_text(c,    id, t) {
	if (ckind[c] == "root")
		return "The mapping path, its helpers and a Makefile.\n"
	id = kid[c]
	t = ktype[id]
	if (t == "audit")
		return "A broken mapping path is hard to debug after the " \
			"fact. Map, touch and\nunmap a probe page on every " \
			"mmap, mmap64 and munmap so that the first\nbad " \
			"change is caught where it happens.\n"
	if (t == "break")
		return "Return a poison value for deleted entries instead of " \
			"NULL, so that\na use after unlink faults at once.\n"
	if (t == "fix")
		return "toy_list_poison() uses TOY_LIST_POISON, which was " \
			"never defined.\n"
	return body_line[id % nbody] "\n"
}

function emit(c,    who, mail, t, k, f, msg, i) {
	tm += 600 + rint(6600)
	if (ckind[c] == "merge" || ckind[c] == "root") {
		who = "Toy Maintainer"
		mail = "maint@toy.example"
	} else {
		i = 1 + rint(nauthors)
		who = author[i]
		mail = amail[i]
	}
	printf "commit refs/heads/%s\nmark :%d\n", branch, c
	printf "author %s <%s> %d +0000\n", who, mail, tm - 300
	printf "committer Toy Maintainer <maint@toy.example> %d +0000\n", tm
	msg = subject(c) "\n"
	if (ckind[c] != "merge")
		msg = msg "\n" body_text(c) "\nSigned-off-by: " who " <" mail \
			">\n"
	data(msg)
	for (k = 1; k <= npar[c]; k++)
		printf "%s %s\n", k == 1 ? "from" : "merge", ref(par[c, k])
	render(c)
	print "deleteall"
	for (k = 1; k <= nfiles; k++) {
		f = files[k]
		printf "M 100644 inline %s\n", f
		data(out[f])
	}
	print ""
}

BEGIN {
	bad = 0
	# fixed, not an option: every tree of every toy history settles
	# alike, so an appended history cannot change it by accident
	if (settle == "")
		settle = 1000
	rng = (seed % 2147483646 + 2147483646) % 2147483646 + 1
	for (k = 0; k < 8; k++)
		rnd()
	tm = base_time + 0
	append += 0
	n += 0
	nc = 0
	nm = 0

	nfiles = split("Makefile README .toy/features include/toy/lib.h " \
		"include/toy/mm.h kernel/init.c mm/mmap.c mm/audit.c " \
		"lib/string.c lib/list.c lib/bitmap.c lib/sort.c " \
		"drivers/char/mem.c fs/read_write.c", files, " ")
	nhfiles = split("lib/string.c lib/list.c lib/bitmap.c lib/sort.c " \
		"drivers/char/mem.c fs/read_write.c kernel/init.c mm/audit.c", \
		hfiles, " ")
	nnfiles = split("README include/toy/lib.h include/toy/mm.h " \
		"kernel/init.c mm/mmap.c mm/audit.c lib/string.c lib/list.c " \
		"lib/bitmap.c lib/sort.c drivers/char/mem.c fs/read_write.c", \
		nfl, " ")
	split("lib/string.c=str lib/list.c=list lib/bitmap.c=bitmap " \
		"lib/sort.c=sort drivers/char/mem.c=mem fs/read_write.c=rw " \
		"kernel/init.c=init mm/audit.c=audit mm/mmap.c=mm", tmp, " ")
	for (k in tmp) {
		split(tmp[k], kv, "=")
		hstem[kv[1]] = kv[2]
	}
	split("README=docs include/toy/lib.h=lib include/toy/mm.h=mm " \
		"kernel/init.c=init mm/mmap.c=mm/mmap mm/audit.c=mm/audit " \
		"lib/string.c=lib/string lib/list.c=lib/list " \
		"lib/bitmap.c=lib/bitmap lib/sort.c=lib/sort " \
		"drivers/char/mem.c=drivers/mem fs/read_write.c=fs", tmp, " ")
	for (k in tmp) {
		split(tmp[k], kv, "=")
		fstem[kv[1]] = kv[2]
	}
	nphrases = 12
	phrase[0] = "Callers hold no lock across a mapping change."
	phrase[1] = "Lengths are rounded up to whole pages by the C library."
	phrase[2] = "A hint address is only a hint without MAP_FIXED."
	phrase[3] = "Errors come back as MAP_FAILED with errno set."
	phrase[4] = "Unmapping a range that is not mapped is not an error."
	phrase[5] = "Offsets must be multiples of the page size."
	phrase[6] = "Nothing here allocates memory: malloc may map pages."
	phrase[7] = "The real functions are looked up once, at boot."
	phrase[8] = "Helpers here are pure: same input, same output."
	phrase[9] = "Keep the fast path free of system calls."
	phrase[10] = "Statistics are best effort and never fail a call."
	phrase[11] = "Names follow the kernel's subsystem prefixes."
	nhdocs = 5
	helper_doc[0] = "mix the bits of a word for hashing"
	helper_doc[1] = "a cheap scramble used by the statistics code"
	helper_doc[2] = "fold a word into a bucket index"
	helper_doc[3] = "spread a counter over the word"
	helper_doc[4] = "a stable per-value salt"
	nverbs = 4
	note_verb[0] = "clarify"
	note_verb[1] = "reword"
	note_verb[2] = "extend"
	note_verb[3] = "fix a typo in"
	ntopics = 6
	note_topic[0] = "locking"
	note_topic[1] = "page alignment"
	note_topic[2] = "hint addresses"
	note_topic[3] = "error returns"
	note_topic[4] = "boot order"
	note_topic[5] = "naming"
	nbody = 4
	body_line[0] = "No functional change."
	body_line[1] = "Found while reading the code; no functional change."
	body_line[2] = "The next series will use it."
	body_line[3] = "Small cleanup, no change in behaviour."
	ntopic_words = split("mm-hints lib-cleanup bitmap-speedup " \
		"rw-chunks init-order mem-dev sort-fixes string-utils", \
		topic_words, " ")
	nauthors = split("Alice Mapper|Bob Pager|Carol Slab|Dan Vma|" \
		"Eve Hugepage", author, "|")
	split("alice@toy.example bob@toy.example carol@toy.example " \
		"dan@toy.example eve@toy.example", amail, " ")

	makefile = "# SPDX-License-Identifier: GPL-2.0-only\n" \
		"#\n# The toy kernel: a shared library standing in for a " \
		"kernel image.\n#   make [O=objdir] [CC=gcc-12] [CFLAGS=...]\n\n" \
		"O ?= build\nCC ?= cc\nCFLAGS ?= -O2 -g\n\n" \
		"SRCS := $(sort $(wildcard kernel/*.c mm/*.c lib/*.c " \
		"drivers/*/*.c fs/*.c))\n" \
		"HDRS := $(wildcard include/toy/*.h)\n" \
		"OBJS := $(SRCS:%.c=$(O)/%.o)\n" \
		"TOY_CFLAGS := -std=gnu11 -D_GNU_SOURCE -fPIC -Wall -Iinclude \\\n" \
		"\t-Werror=implicit-function-declaration\n\n" \
		"$(O)/toykernel.so: $(OBJS)\n" \
		"\t$(CC) -shared -o $@ $(OBJS) -ldl\n\n" \
		"$(O)/%.o: %.c $(HDRS) Makefile\n\t@mkdir -p $(@D)\n" \
		"\t$(CC) $(TOY_CFLAGS) $(CFLAGS) -c -o $@ $<\n\n" \
		".DELETE_ON_ERROR:\n"

	# the base tree's keys (append)
	nbase = 0
	base_max = 0
	if (append) {
		while ((getline line < features) > 0) {
			split(line, kv, " ")
			id = kv[1] + 0
			base_id[++nbase] = id
			ktype[id] = kv[2]
			kfile[id] = kv[3]
			kval[id] = kv[4]
			if (id > base_max)
				base_max = id
		}
		close(features)
	}

	if (n < 1)
		die("the number of commits must be at least 1")
	if (!append && n < 2)
		die("a new history needs at least 2 commits")

	plan_history()
	assign_keys()
	compute_states()
	for (c = 1; c <= nc; c++)
		isbroken[c] = broken(c)
	choose_culprit()

	for (c = 1; c <= nc; c++)
		emit(c)
	# lightweight tags: v1.0 on a new root, the asked one on the new tip
	if (!append)
		printf "reset refs/tags/v1.0\nfrom :1\n\n"
	if (tag != "")
		printf "reset refs/tags/%s\nfrom :%d\n\n", tag, nc

	nmerge = 0
	for (c = 1; c <= nc; c++)
		if (ckind[c] == "merge")
			nmerge++
	print "commits " nc > plan
	print "merges " nmerge > plan
	print "octopus " noctopus + 0 > plan
	print "nonmerge " nm > plan
	print "tip :" nc > plan
	if (!append)
		print "root :1" > plan
	if (culprit_c) {
		print "culprit :" culprit_c > plan
		print "culprit_pos " pos[culprit_c] > plan
		print "culprit_parent " ref(par[culprit_c, 1]) > plan
	}
	if (brk_a) {
		print "break :" bypos[brk_a] > plan
		print "fix :" bypos[brk_b] > plan
	}
	for (c = 1; c <= nc; c++)
		if (isbroken[c])
			print "unbuildable :" c > plan
	close(plan)
}
