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
