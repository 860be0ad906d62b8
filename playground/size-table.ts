// The playground's size table: raw bytes, gzip through the browser's
// CompressionStream, and the CLI's gzip -9 and brotli q11 measures.

import type { Change } from "./protocol.js";

export interface SizeRow {
  label: string;
  change: Change;
}

function cell(text: string, cls = "n"): HTMLTableCellElement {
  const td = document.createElement("td");
  td.className = cls;
  td.textContent = text;
  return td;
}

const thousands = (n: number): string => n.toLocaleString("en-US");

/** "-12.3%" (or "0.0%"), and the class that colours it. */
function percent(c: Change): [string, string] {
  if (c.before === 0) return ["-", "n"];
  const p = ((c.after - c.before) / c.before) * 100;
  return [`${p > 0 ? "+" : ""}${p.toFixed(1)}%`, p < 0 ? "n smaller" : p > 0 ? "n larger" : "n"];
}

/** Replaces the body of `table` with one row per size. */
export function fillSizeTable(table: HTMLTableElement, rows: readonly SizeRow[]): void {
  const body = table.tBodies[0]!;
  body.replaceChildren(
    ...rows.map(({ label, change }) => {
      const tr = document.createElement("tr");
      const [pct, cls] = percent(change);
      tr.append(cell(label, ""), cell(thousands(change.before)), cell(thousands(change.after)), cell(thousands(change.before - change.after)), cell(pct, cls));
      return tr;
    }),
  );
}
