// Binary search over items sorted by a numeric key: the index of the last
// item whose key is at or before x, or -1. Shared by the address map, the
// source-map follower and the DWARF line follower, which all look up
// "the entry that covers this offset" in sorted tables.

export function lastAtOrBefore<T>(items: ArrayLike<T>, key: (item: T) => number, x: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]!) <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * lastAtOrBefore over sorted numbers, trying `hint` and the index after it
 * first: for lookups that mostly move forward in small steps (the DWARF line
 * follower, piece by piece through a function's rows).
 */
export function lastAtOrBeforeFrom(keys: ArrayLike<number>, x: number, hint: number): number {
  const n = keys.length;
  for (let h = hint; h <= hint + 1 && h < n; h++) {
    if (h >= 0 && keys[h]! <= x && (h + 1 === n || keys[h + 1]! > x)) return h;
  }
  let lo = 0;
  let hi = n - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! <= x) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
