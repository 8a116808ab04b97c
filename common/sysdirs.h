/* The host's system directories: every tier shows them read-only in the
 * sandbox, and nothing a caller names may be bound on or under them. One
 * table for the helper (mounts.c) and the frontend (its bwrap root, its
 * test of where an interpreter lives). */
#ifndef SBX_SYSDIRS_H
#define SBX_SYSDIRS_H

/* Absolute paths, NULL-terminated. The first SBX_SYSTEM_DIRS_PLAIN ("/usr",
 * "/etc") are directories on every host sbx supports; the others may be
 * merged-/usr symlinks (/bin -> usr/bin), recreated as links, or absent. */
#define SBX_SYSTEM_DIRS_PLAIN 2
extern const char *const sbx_system_dirs[];

#endif
