/*
 * uaccess.h - the calling program's memory as the SIGSYS handler sees it:
 * copied the way the kernel's copy_from_user/copy_to_user copy, so a bad
 * pointer is the caller's EFAULT, never a fault in the shim (uaccess.c).
 */
#ifndef PMUSIM_SHIM_UACCESS_H
#define PMUSIM_SHIM_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/core/perf_core.h"

/* Copies len bytes from the caller's uaddr into dst. Returns 0, or
 * -EFAULT when any of it is not readable. */
int shim_copy_from(void *dst, uint64_t uaddr, size_t len);
/* Copies len bytes from src to the caller's uaddr (what is writable
 * before a fault is written, as copy_to_user does). Returns 0 or
 * -EFAULT. */
int shim_copy_to(uint64_t uaddr, const void *src, size_t len);
/* Whether the NULL-terminated vector of strings at uaddr (NULL: an empty
 * one) and every string in it are readable: execve's count() and
 * copy_strings() would not fault. */
bool shim_strv_readable(uint64_t uaddr);
/* Whether the string at uaddr is readable up to its NUL. */
bool shim_str_readable(uint64_t uaddr);
/* The same copies for the core (perf_copy_attr, the ioctls). */
extern const struct perf_uaccess shim_uaccess;

#endif
