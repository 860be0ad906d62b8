// A fingerprint of a module's bytes, so that a profile recorded for one
// build is never applied to another. Not a security hash: it only has to
// tell builds apart. Platform-neutral (no crypto module): two 32-bit FNV-1a
// lanes with different offsets, plus the length.

/** "fnv1a64:<16 hex digits>:<byte length>" */
export function fingerprint(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < bytes.length; i++) {
    const x = bytes[i]!;
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x ^ (i & 0xff), 0x01000193);
  }
  const hex = (v: number): string => (v >>> 0).toString(16).padStart(8, "0");
  return `fnv1a64:${hex(a)}${hex(b)}:${bytes.length}`;
}
