/** `twinbench doctor`'s printed lines: the check table for a terminal and each fix action as it runs. */
import { textTable } from "../base/text-table.ts";
import type { CheckLine } from "../hosts/doctor-checks.ts";
import type { FixAction } from "../hosts/doctor-fix.ts";

/** Render check lines for a terminal: `ok   docker engine  answers on ...` plus an indented hint. */
export function formatCheckLines(lines: CheckLine[]): string {
  const rows = lines.flatMap((l) => [
    [l.status, l.title, l.detail],
    ...(l.hint && l.status !== "ok" ? [["", "", `hint: ${l.hint}`]] : []),
  ]);
  return textTable(rows, { columns: [{ width: 4 }, { gap: " " }], trimEnd: false }).join("\n");
}

/** Human description of a fix action, printed before it runs. */
export function describeAction(a: FixAction): string {
  switch (a.kind) {
    case "apt-update":
      return "apt-get update";
    case "apt-install":
      return `apt-get install -y --no-install-recommends ${a.packages.join(" ")}`;
    case "start-engine":
      return a.via === "systemctl" ? "systemctl start docker" : `dockerd (detached, log ${a.logFile})`;
    case "wait-engine":
      return `wait for the engine on ${a.endpoint} (up to ${a.timeoutMs} ms)`;
  }
}
