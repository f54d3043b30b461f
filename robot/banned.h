/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_BANNED_H
#define ROBOT_BANNED_H

/*
 * Functions we never call: unbounded copies, shared static state, and
 * anything that hands a string we built to a shell. Using one is a compile
 * error that names the replacement.
 */
#define BANNED(func) sorry_##func##_is_banned_in_robot

#undef strcpy
#define strcpy(x, y) BANNED(strcpy_use_sbuf_or_snprintf)
#undef strcat
#define strcat(x, y) BANNED(strcat_use_sbuf)
#undef sprintf
#define sprintf(...) BANNED(sprintf_use_snprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf_use_vsnprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok_use_strtok_r)
#undef atoi
#define atoi(x) BANNED(atoi_use_strtol)
#undef gmtime
#define gmtime(x) BANNED(gmtime_use_gmtime_r)
#undef localtime
#define localtime(x) BANNED(localtime_use_localtime_r)
#undef system
#define system(x) BANNED(system_use_proc_run)
#undef popen
#define popen(x, y) BANNED(popen_use_proc_run)

#endif
