// Pieces the CLI's commands share: exit codes and message helpers.

import type { Stats } from "node:fs";

export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

/** One line: no newlines inside a message that is printed as a line. */
export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

/** Node's parseArgs messages, shortened to their first sentence. */
export function parseArgsMessage(e: Error): string {
  const first = e.message.split(/\.\s/)[0]!.replace(/\.$/, "");
  return first.charAt(0).toLowerCase() + first.slice(1);
}

export function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
