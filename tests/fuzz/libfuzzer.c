// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer's entry point for one target: `make fuzz` compiles this file
 * with -DFUZZ_TARGET=fuzz_<name> and links it with that target.
 */
#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "FUZZ_TARGET names the target function"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return FUZZ_TARGET(data, size);
}
