// Squarified treemap layout (Bruls, Huizing and van Wijk, 2000): tiles a box
// with one rectangle per item, areas proportional to the items' values,
// as close to square as the greedy row-by-row method gets. Items are laid
// out largest first.

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** One rectangle per item with a positive value, largest value first. */
export function squarify<T>(items: readonly { value: number; item: T }[], box: Rect): (Rect & { item: T })[] {
  const sorted = items.filter((i) => i.value > 0).sort((a, b) => b.value - a.value);
  const total = sorted.reduce((s, i) => s + i.value, 0);
  const out: (Rect & { item: T })[] = [];
  if (total === 0 || box.w <= 0 || box.h <= 0) return out;
  const scale = (box.w * box.h) / total;
  const areas = sorted.map((i) => i.value * scale);
  let { x, y, w, h } = box;
  let i = 0;
  while (i < areas.length) {
    const side = Math.min(w, h);
    let sum = areas[i]!;
    let j = i + 1;
    while (j < areas.length && worst(sum + areas[j]!, areas[i]!, areas[j]!, side) <= worst(sum, areas[i]!, areas[j - 1]!, side)) {
      sum += areas[j]!;
      j++;
    }
    const thickness = sum / side;
    let at = w >= h ? y : x;
    for (let k = i; k < j; k++) {
      const len = areas[k]! / thickness;
      out.push(w >= h ? { x, y: at, w: thickness, h: len, item: sorted[k]!.item } : { x: at, y, w: len, h: thickness, item: sorted[k]!.item });
      at += len;
    }
    if (w >= h) {
      x += thickness;
      w -= thickness;
    } else {
      y += thickness;
      h -= thickness;
    }
    i = j;
  }
  return out;
}

/** The worst aspect ratio of a row with area `sum`, largest item `max`, smallest `min`, along `side`. */
function worst(sum: number, max: number, min: number, side: number): number {
  const s2 = side * side;
  return Math.max((s2 * max) / (sum * sum), (sum * sum) / (s2 * min));
}
