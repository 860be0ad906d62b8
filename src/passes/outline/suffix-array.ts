// Suffix arrays: SA-IS (induced sorting, O(n); Nong, Zhang and Chan 2009)
// for the outliner, prefix doubling with radix sorting (O(n log n)) as a
// simple reference; and the LCP array by Kasai's algorithm (O(n)).

/** Suffix array of `s`, whose symbols are integers in [0, alphabet), by SA-IS. */
export function suffixArray(s: Int32Array, alphabet: number): Int32Array {
  const n = s.length;
  // shift symbols up by one and end with a unique smallest sentinel 0
  const t = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) t[i] = s[i]! + 1;
  const sa = sais(t, alphabet + 1);
  return sa.subarray(1); // sa[0] is the sentinel
}

/** SA-IS over t, whose last symbol is a unique 0 and others in [1, k). */
function sais(t: Int32Array, k: number): Int32Array {
  const n = t.length;
  const sa = new Int32Array(n);
  if (n === 1) return sa;
  // suffix types: 1 = S, 0 = L
  const stype = new Uint8Array(n);
  stype[n - 1] = 1;
  for (let i = n - 2; i >= 0; i--) stype[i] = t[i]! < t[i + 1]! || (t[i] === t[i + 1] && stype[i + 1] === 1) ? 1 : 0;
  const counts = new Int32Array(k);
  for (let i = 0; i < n; i++) counts[t[i]!]!++;
  const bucket = new Int32Array(k);
  // 1. sort LMS substrings
  sa.fill(-1);
  bucketEnds(counts, bucket);
  for (let i = n - 1; i >= 1; i--) if (isLms(stype, i)) sa[--bucket[t[i]!]!] = i;
  induce(t, sa, stype, counts, bucket);
  // 2. name them in sorted order
  let m = 0;
  for (let i = 0; i < n; i++) if (isLms(stype, sa[i]!)) sa[m++] = sa[i]!;
  const names = sa.subarray(m);
  names.fill(-1);
  let name = 0;
  let prev = -1;
  for (let r = 0; r < m; r++) {
    const pos = sa[r]!;
    let diff = prev < 0;
    for (let d = 0; !diff; d++) {
      const a = pos + d;
      const b = prev + d;
      if (a >= n || b >= n || t[a] !== t[b] || stype[a] !== stype[b]) diff = true;
      else if (d > 0 && (isLms(stype, a) || isLms(stype, b))) {
        diff = !(isLms(stype, a) && isLms(stype, b));
        break;
      }
    }
    if (diff) {
      name++;
      prev = pos;
    }
    names[pos >> 1] = name - 1;
  }
  // the reduced string: names of the LMS substrings in text order
  const reduced = new Int32Array(m);
  const lmsPos = new Int32Array(m);
  for (let i = n - 1, j = m - 1; i >= 0 && j >= 0; i--) {
    if (isLms(stype, i)) {
      reduced[j] = names[i >> 1]!;
      lmsPos[j] = i;
      j--;
    }
  }
  // 3. sort the LMS suffixes (recursively if names repeat)
  let order: Int32Array;
  if (name < m) order = sais(reduced, name);
  else {
    order = new Int32Array(m);
    for (let j = 0; j < m; j++) order[reduced[j]!] = j;
  }
  // 4. induce the full order from the sorted LMS suffixes
  sa.fill(-1);
  bucketEnds(counts, bucket);
  for (let r = m - 1; r >= 0; r--) {
    const i = lmsPos[order[r]!]!;
    sa[--bucket[t[i]!]!] = i;
  }
  induce(t, sa, stype, counts, bucket);
  return sa;
}

// The helpers below are module functions rather than closures inside sais:
// a closure is a new function object per call (each round and recursion
// level), and V8 deoptimized sais over and over on the changed call targets.

function isLms(stype: Uint8Array, i: number): boolean {
  return i > 0 && stype[i] === 1 && stype[i - 1] === 0;
}

function bucketStarts(counts: Int32Array, bucket: Int32Array): void {
  let sum = 0;
  for (let c = 0; c < counts.length; c++) {
    bucket[c] = sum;
    sum += counts[c]!;
  }
}

function bucketEnds(counts: Int32Array, bucket: Int32Array): void {
  let sum = 0;
  for (let c = 0; c < counts.length; c++) {
    sum += counts[c]!;
    bucket[c] = sum;
  }
}

/** Induces L-type suffixes left to right, then S-type right to left, from what sa holds. */
function induce(t: Int32Array, sa: Int32Array, stype: Uint8Array, counts: Int32Array, bucket: Int32Array): void {
  const n = t.length;
  bucketStarts(counts, bucket);
  for (let i = 0; i < n; i++) {
    const j = sa[i]! - 1;
    if (j >= 0 && stype[j] === 0) sa[bucket[t[j]!]!++] = j;
  }
  bucketEnds(counts, bucket);
  for (let i = n - 1; i >= 0; i--) {
    const j = sa[i]! - 1;
    if (j >= 0 && stype[j] === 1) sa[--bucket[t[j]!]!] = j;
  }
}

/**
 * Suffix array by prefix doubling (the reference SA-IS is tested against). Stops
 * doubling as soon as all ranks are distinct, so strings without long
 * repeats finish in few rounds.
 */
export function suffixArrayDoubling(s: Int32Array, alphabet: number): Int32Array {
  const n = s.length;
  const sa = new Int32Array(n);
  if (n === 0) return sa;
  let rank = new Int32Array(n);
  let tmp = new Int32Array(n);
  const second = new Int32Array(n);
  const cnt = new Int32Array(Math.max(alphabet, n) + 1);
  // round 0: counting sort by symbol
  for (let i = 0; i < n; i++) cnt[s[i]!]!++;
  for (let c = 1; c < cnt.length; c++) cnt[c]! += cnt[c - 1]!;
  for (let i = n - 1; i >= 0; i--) sa[--cnt[s[i]!]!] = i;
  rank[sa[0]!] = 0;
  let classes = 1;
  for (let j = 1; j < n; j++) {
    if (s[sa[j]!] !== s[sa[j - 1]!]) classes++;
    rank[sa[j]!] = classes - 1;
  }
  for (let k = 1; classes < n; k <<= 1) {
    // order by the second key (rank[i + k], missing = smallest): derived from sa
    let p = 0;
    for (let i = n - k; i < n; i++) second[p++] = i;
    for (let j = 0; j < n; j++) if (sa[j]! >= k) second[p++] = sa[j]! - k;
    // stable counting sort by the first key
    cnt.fill(0, 0, classes + 1);
    for (let i = 0; i < n; i++) cnt[rank[i]!]!++;
    for (let c = 1; c < classes; c++) cnt[c]! += cnt[c - 1]!;
    for (let j = n - 1; j >= 0; j--) {
      const i = second[j]!;
      sa[--cnt[rank[i]!]!] = i;
    }
    // new classes
    tmp[sa[0]!] = 0;
    classes = 1;
    for (let j = 1; j < n; j++) {
      const a = sa[j - 1]!;
      const b = sa[j]!;
      const ra = a + k < n ? rank[a + k]! : -1;
      const rb = b + k < n ? rank[b + k]! : -1;
      if (rank[a] !== rank[b] || ra !== rb) classes++;
      tmp[b] = classes - 1;
    }
    const t = rank;
    rank = tmp;
    tmp = t;
    if (k > n) break;
  }
  return sa;
}

/** lcp[j] = length of the longest common prefix of suffixes sa[j-1] and sa[j] (lcp[0] = 0). */
export function lcpArray(s: Int32Array, sa: Int32Array): Int32Array {
  const n = s.length;
  const rank = new Int32Array(n);
  for (let j = 0; j < n; j++) rank[sa[j]!] = j;
  const lcp = new Int32Array(n);
  let h = 0;
  for (let i = 0; i < n; i++) {
    const r = rank[i]!;
    if (r === 0) {
      h = 0;
      continue;
    }
    const j = sa[r - 1]!;
    while (i + h < n && j + h < n && s[i + h] === s[j + h]) h++;
    lcp[r] = h;
    if (h > 0) h--;
  }
  return lcp;
}
