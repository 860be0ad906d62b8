// File helpers for the CLI: atomic writes (temp file in the same directory,
// then rename) and short human-readable file-system error messages.

import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";

const FS_MESSAGES: Record<string, string> = {
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "a path component is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EROFS: "read-only file system",
  EEXIST: "file exists",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "file name too long",
  ERR_FS_FILE_TOO_LARGE: "file is too large to read",
};

/** A one-line description of a file-system error (no path, no stack). */
export function fsMessage(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === "string" && FS_MESSAGES[code]) return FS_MESSAGES[code]!;
  return e instanceof Error ? e.message.split("\n")[0]! : String(e);
}

/** A file written under a temporary name, waiting to be renamed into place. */
export interface PendingFile {
  target: string;
  temp: string;
}

/**
 * Writes `data` to `<target>.tmp-<pid>-<random>` in the target's directory
 * (creating missing directories), flushed to disk. Nothing is left behind if
 * this throws.
 */
export function writeTemp(target: string, data: Uint8Array | string): PendingFile {
  mkdirSync(dirname(target), { recursive: true });
  const temp = `${target}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", 0o666);
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    discard({ target, temp });
    throw e;
  }
  return { target, temp };
}

/** Renames the temp file over the target (atomic on POSIX file systems). */
export function commit(p: PendingFile): void {
  renameSync(p.temp, p.target);
}

/** Writes one whole file: a temp file, then a rename; nothing is left behind if it throws. */
export function writeWhole(target: string, data: Uint8Array | string): void {
  const pending = writeTemp(target, data);
  try {
    commit(pending);
  } catch (e) {
    discard(pending);
    throw e;
  }
}

/** Removes a temp file that will not be committed (ignores errors). */
export function discard(p: PendingFile): void {
  try {
    rmSync(p.temp, { force: true });
  } catch {
    // nothing more we can do; the name says what it is
  }
}
