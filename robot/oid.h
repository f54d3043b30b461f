/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ROBOT_OID_H
#define ROBOT_OID_H

#include <stdint.h>

/* A commit's object id: SHA-1, raw (20 bytes) or hex (40 digits). */
#define RB_OID_RAWSZ 20
#define RB_OID_HEXSZ 40

/* 40 hex digits and a NUL into buf (41 bytes). Returns buf. */
char *rb_oid_hex(const uint8_t *oid, char *buf);
/* Parse 40 hex digits (either case) and nothing more; 0 or -1. */
int rb_oid_from_hex(uint8_t *oid, const char *hex);

#endif
