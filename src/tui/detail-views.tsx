/** The run screen's failures panel and the details of the selected finished cell. */
import { fixedOrDash } from "../core/base/units.ts";
import { Box, Text } from "ink";
import type { CellRecord } from "../core/model/results.ts";
import { fit } from "./format.ts";
import { type FailureView, type ViewState } from "./view-state.ts";
import { failureMessage, selectedRecord } from "./state.ts";
import { C } from "./color.tsx";

export function FailuresView({ failures, width, max }: { failures: FailureView[]; width: number; max: number }) {
  if (failures.length === 0 || max <= 0) return null;
  const shown = failures.slice(-Math.max(1, max - 1));
  const hidden = failures.length - shown.length;
  return (
    <Box flexDirection="column">
      <C color="red" bold>{`failures (${failures.length})${hidden ? `, latest ${shown.length}:` : ":"}`}</C>
      {shown.map((f) => {
        const prefix = f.kind === "skipped" ? "  » skipped " : "  ✗ ";
        const w = Math.max(1, width - prefix.length);
        const text = `${f.title}: ${f.message}`;
        const lines = text.length <= w ? [text] : [text.slice(0, w), fit(text.slice(w).trimStart(), w)];
        return (
          <Box key={f.key}>
            <C color={f.kind === "skipped" ? "yellow" : "red"}>{prefix}</C>
            <Box flexDirection="column">
              {lines.map((l, i) => (
                <Text key={i}>{l}</Text>
              ))}
            </Box>
          </Box>
        );
      })}
    </Box>
  );
}

/** Lines FailuresView takes for the given failures. */
export function failuresHeight(failures: FailureView[], width: number, max: number): number {
  if (failures.length === 0 || max <= 0) return 0;
  const shown = failures.slice(-Math.max(1, max - 1));
  // A failure takes up to two lines: sysbench's message is the point of the list.
  return (
    1 +
    shown.reduce((n, f) => n + ((f.kind === "skipped" ? 12 : 4) + `${f.title}: ${f.message}`.length > width ? 2 : 1), 0)
  );
}

// ---- details of a finished cell ----

export function DetailsView({ state, width }: { state: ViewState; width: number }) {
  const sel = selectedRecord(state);
  if (!sel) return <C dim>no finished cell yet</C>;
  const lines = detailLines(sel.record);
  return (
    <Box flexDirection="column">
      <C bold>
        {fit(
          `details ${sel.index + 1}/${state.finishedKeys.length}: ${sel.record.key} (${sel.record.status}) ↑↓ select, d close`,
          width,
        )}
      </C>
      {lines.map((l, i) => (
        <Text key={i}>{fit(`  ${l}`, width)}</Text>
      ))}
    </Box>
  );
}

export function detailLines(r: CellRecord): string[] {
  const f2 = (n: number | null | undefined) => fixedOrDash(n);
  const m = r.metrics;
  const out: string[] = [];
  if (m) {
    const l = m.latencyMs;
    out.push(
      `qps ${f2(m.qps)} · tps ${f2(m.tps)} · queries ${m.queries ?? "-"} · transactions ${m.transactions ?? "-"}`,
    );
    out.push(
      `latency ms min ${f2(l.min)} · avg ${f2(l.avg)} · max ${f2(l.max)}${l.percentile ? ` · p${l.percentile} ${f2(l.percentileValue)}` : ""}`,
    );
    out.push(
      `errors ${m.ignoredErrors ?? "-"} · reconnects ${m.reconnects ?? "-"} · events ${m.events ?? "-"} · time ${m.totalTime ?? "-"} s · ${m.intervals.length} intervals`,
    );
  }
  if (r.status !== "ok") out.push(`${r.status}: ${failureMessage(r)}`);
  if (r.error && m?.fatal.length) out.push(`error: ${r.error}`);
  out.push(`raw log: ${r.raw}`);
  out.push(`started ${r.startedAt} · ended ${r.endedAt}`);
  return out;
}
