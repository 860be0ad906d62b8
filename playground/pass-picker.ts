// The pass checkboxes: the target's default pipeline in its order, each pass
// ticked unless the user unticked it. What is chosen maps to the CLI's
// --passes: every pass ticked is no --passes at all (the default pipeline),
// none ticked is `--passes none`.

import type { SizeTarget } from "../src/size-target.js";
import type { PassInfo } from "./protocol.js";

export class PassPicker {
  private readonly unticked: Set<string>;

  constructor(
    private readonly box: HTMLFieldSetElement,
    private readonly passes: readonly PassInfo[],
    private readonly pipelines: Record<SizeTarget, string[]>,
  ) {
    // passes outside every default pipeline start unticked
    const used = new Set(Object.values(pipelines).flat());
    this.unticked = new Set(passes.map((p) => p.name).filter((n) => !used.has(n)));
  }

  /** Redraws the list in `target`'s order, keeping what was unticked. */
  show(target: SizeTarget): void {
    const legend = this.box.querySelector("legend");
    const labels = this.order(target).map((name) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.name = "pass";
      box.value = name;
      box.checked = !this.unticked.has(name);
      box.addEventListener("change", () => (box.checked ? this.unticked.delete(name) : this.unticked.add(name)));
      const about = document.createElement("small");
      about.textContent = ` ${this.passes.find((p) => p.name === name)?.description ?? ""}`;
      label.append(box, ` ${name}`, about);
      return label;
    });
    this.box.replaceChildren(...(legend ? [legend] : []), ...labels);
  }

  /** The --passes list for `target`, or undefined for the default pipeline. */
  chosen(target: SizeTarget): string[] | undefined {
    const ticked = this.order(target).filter((n) => !this.unticked.has(n));
    const standard = this.pipelines[target];
    if (ticked.length === standard.length && ticked.every((n, i) => n === standard[i])) return undefined;
    return ticked.length === 0 ? ["none"] : ticked;
  }

  /** The default pipeline, then any other registered pass. */
  private order(target: SizeTarget): string[] {
    const first = this.pipelines[target];
    return [...first, ...this.passes.map((p) => p.name).filter((n) => !first.includes(n))];
  }
}
