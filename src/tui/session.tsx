/**
 * `twinbench` with no arguments in a terminal: pick a scenario, read its plan or rendered config, run it, or open
 * past results. The screen only calls SessionDeps (src/tui/session-deps.ts); a run unmounts the session, lets the
 * run screen own the terminal, then comes back to the list.
 *
 * Keys — list: ↑↓ select, Enter/p plan, c config, r run, o results, q quit. Text views: ↑↓ PgUp PgDn scroll,
 * Esc/q back (r runs from a scenario's plan or config). Results: ↑↓, Enter shows the report, Esc/q back.
 */
import React, { useRef, useState } from "react";
import { Box, render, Text, useApp, useInput, useStdout } from "ink";
import { formatError, isTwinbenchError, type ExitCode } from "../core/base/errors.ts";
import { ColorContext } from "./color.tsx";
import { type Size } from "./components.tsx";
import { duration, fit } from "./format.ts";
import { textTable, type TextColumn } from "../core/base/text-table.ts";
import { mountRunScreen } from "./run-screen.tsx";
import { defaultSessionDeps, type ResultEntry, type ScenarioEntry, type SessionDeps } from "./session-deps.ts";

export type SessionChoice = { kind: "quit" } | { kind: "run"; file: string; index: number };

type View =
  | { kind: "list" }
  | { kind: "text"; title: string; text: string; offset: number; file?: string; back: View }
  | { kind: "results"; items: ResultEntry[]; index: number }
  | { kind: "loading"; title: string; back: View };

export interface SessionAppProps {
  deps: SessionDeps;
  scenarios: ScenarioEntry[];
  initialIndex?: number;
  message?: string;
  onChoice: (c: SessionChoice) => void;
  color?: boolean;
  size?: Size;
}

function useSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  return fixed ?? { width: stdout.columns || 80, height: stdout.rows || 24 };
}

export function SessionApp({
  deps,
  scenarios,
  initialIndex = 0,
  message,
  onChoice,
  color = true,
  size,
}: SessionAppProps) {
  const { exit } = useApp();
  const { width, height } = useSize(size);
  // State mirrored in refs: keys that arrive in one chunk ("↓↓p") are handled before React re-renders, and each
  // must see what the previous one did.
  const [index, setIndexState] = useState(Math.min(initialIndex, Math.max(0, scenarios.length - 1)));
  const [view, setViewState] = useState<View>({ kind: "list" });
  const indexRef = useRef(index);
  const viewRef = useRef(view);
  const setIndex = (i: number) => {
    indexRef.current = i;
    setIndexState(i);
  };
  const setView = (v: View) => {
    viewRef.current = v;
    setViewState(v);
  };
  const [note, setNote] = useState<string | undefined>(message);
  const pageLines = Math.max(3, height - 4);

  const choose = (c: SessionChoice) => {
    onChoice(c);
    exit();
  };
  /** Show the text a dep produces, with a loading line meanwhile and the error if it fails. */
  const showText = (title: string, load: () => Promise<string>, back: View, file?: string) => {
    setView({ kind: "loading", title, back });
    load().then(
      (text) => setView({ kind: "text", title, text, offset: 0, file, back }),
      (e: unknown) => setView({ kind: "text", title, text: formatError(e), offset: 0, file, back }),
    );
  };
  const openResults = () => {
    setView({ kind: "loading", title: "results", back: { kind: "list" } });
    deps.listResults().then(
      (items) => setView({ kind: "results", items, index: 0 }),
      (e: unknown) =>
        setView({ kind: "text", title: "results", text: formatError(e), offset: 0, back: { kind: "list" } }),
    );
  };
  const run = (file: string) => choose({ kind: "run", file, index: indexRef.current });

  useInput((input, key) => {
    const quit = input === "\x03" || (key.ctrl && input === "c");
    if (quit) return choose({ kind: "quit" });
    setNote(undefined);
    const view = viewRef.current;
    const selected: ScenarioEntry | undefined = scenarios[indexRef.current];
    switch (view.kind) {
      case "list":
        if (key.upArrow) setIndex(Math.max(0, indexRef.current - 1));
        else if (key.downArrow) setIndex(Math.min(scenarios.length - 1, indexRef.current + 1));
        else if (input === "q" || key.escape) choose({ kind: "quit" });
        else if (input === "o") openResults();
        else if (selected && (key.return || input === "p"))
          showText(`plan: ${selected.file}`, () => deps.planText(selected.file), view, selected.file);
        else if (selected && input === "c")
          showText(`config: ${selected.file}`, () => deps.configText(selected.file), view, selected.file);
        else if (selected && input === "r") run(selected.file);
        return;
      case "text": {
        const max = Math.max(0, view.text.split("\n").length - pageLines);
        const scroll = (d: number) => setView({ ...view, offset: Math.min(max, Math.max(0, view.offset + d)) });
        if (key.upArrow) scroll(-1);
        else if (key.downArrow) scroll(1);
        else if (key.pageUp) scroll(-pageLines);
        else if (key.pageDown || input === " ") scroll(pageLines);
        else if (input === "q" || key.escape || key.leftArrow) setView(view.back);
        else if (view.file && input === "r") run(view.file);
        else if (view.file && input === "p")
          showText(`plan: ${view.file}`, () => deps.planText(view.file!), view.back, view.file);
        else if (view.file && input === "c")
          showText(`config: ${view.file}`, () => deps.configText(view.file!), view.back, view.file);
        return;
      }
      case "results":
        if (key.upArrow) setView({ ...view, index: Math.max(0, view.index - 1) });
        else if (key.downArrow) setView({ ...view, index: Math.min(view.items.length - 1, view.index + 1) });
        else if (input === "q" || key.escape || key.leftArrow) setView({ kind: "list" });
        else if (key.return && view.items[view.index]) {
          const r = view.items[view.index];
          showText(`report: ${r.dir}`, () => deps.reportText(r.dir), view);
        }
        return;
      case "loading":
        if (input === "q" || key.escape) setView(view.back);
        return;
    }
  });

  return (
    <ColorContext.Provider value={color}>
      <Box flexDirection="column" width={width}>
        {view.kind === "list" ? (
          <ScenarioList scenarios={scenarios} index={index} width={width} height={height - 3} />
        ) : null}
        {view.kind === "text" ? (
          <TextView title={view.title} text={view.text} offset={view.offset} width={width} height={pageLines} />
        ) : null}
        {view.kind === "results" ? (
          <ResultsList items={view.items} index={view.index} width={width} height={height - 3} />
        ) : null}
        {view.kind === "loading" ? <Text>{fit(`${view.title}: loading…`, width)}</Text> : null}
        {note ? <Text>{fit(note, width)}</Text> : null}
        <Text dimColor={color}>{fit(hints(view), width)}</Text>
      </Box>
    </ColorContext.Provider>
  );
}

function hints(v: View): string {
  switch (v.kind) {
    case "list":
      return "↑↓ select · enter/p plan · c config · r run · o past results · q quit";
    case "text":
      return `↑↓ PgUp PgDn scroll · esc back${v.file ? " · p plan · c config · r run" : ""}`;
    case "results":
      return "↑↓ select · enter report · esc back";
    case "loading":
      return "esc back";
  }
}

/** Visible window of a list of `n` rows around `index`. */
function windowOf(n: number, index: number, rows: number): [number, number] {
  const r = Math.max(1, rows);
  const start = Math.min(Math.max(0, index - Math.floor(r / 2)), Math.max(0, n - r));
  return [start, Math.min(n, start + r)];
}

export function ScenarioList({
  scenarios,
  index,
  width,
  height,
}: {
  scenarios: ScenarioEntry[];
  index: number;
  width: number;
  height: number;
}) {
  const on = React.useContext(ColorContext);
  if (scenarios.length === 0) return <Text>{fit("no scenarios found in scenarios/ (*.yaml)", width)}</Text>;
  const nameW = Math.min(28, Math.max(8, ...scenarios.map((s) => s.name.length)));
  const [a, b] = windowOf(scenarios.length, index, height - 2);
  const shown = scenarios.slice(a, b);
  const rows = shown.map((s, i) => [
    a + i === index ? "▶" : " ",
    fit(s.name, nameW),
    String(s.error ? "-" : s.cells),
    s.error ? "-" : duration(s.estimateSeconds),
    s.error ? `invalid: ${s.error}` : s.description,
  ]);
  const columns: TextColumn[] = [
    { width: 1 },
    { width: nameW, gap: " " },
    { width: 5, align: "right" },
    { width: 8, align: "right" },
  ];
  const [head, ...lines] = textTable(rows, {
    head: [[" ", "scenario", "cells", "estimate", "description"]],
    columns,
    trimEnd: false,
  });
  return (
    <Box flexDirection="column">
      <Text bold={on}>{fit("twinbench · scenarios", width)}</Text>
      <Text>{fit(head!, width)}</Text>
      {shown.map((s, i) => {
        const sel = a + i === index;
        return (
          <Text key={s.file} inverse={on && sel} color={on && s.error ? "red" : undefined}>
            {fit(lines[i]!, width)}
          </Text>
        );
      })}
    </Box>
  );
}

export function ResultsList({
  items,
  index,
  width,
  height,
}: {
  items: ResultEntry[];
  index: number;
  width: number;
  height: number;
}) {
  const on = React.useContext(ColorContext);
  if (items.length === 0) return <Text>{fit("no past results in results/", width)}</Text>;
  const [a, b] = windowOf(items.length, index, height - 1);
  return (
    <Box flexDirection="column">
      <Text bold={on}>{fit("twinbench · past results", width)}</Text>
      {items.slice(a, b).map((r, i) => {
        const sel = a + i === index;
        return (
          <Text key={r.dir} inverse={on && sel}>
            {fit(`${sel ? "▶" : " "} ${r.dir}  ${r.name}  ${r.status}`, width)}
          </Text>
        );
      })}
    </Box>
  );
}

export function TextView({
  title,
  text,
  offset,
  width,
  height,
}: {
  title: string;
  text: string;
  offset: number;
  width: number;
  height: number;
}) {
  const on = React.useContext(ColorContext);
  const lines = text.split("\n");
  const shown = lines.slice(offset, offset + height);
  const more =
    lines.length > height ? ` (${offset + 1}-${Math.min(lines.length, offset + height)} of ${lines.length})` : "";
  return (
    <Box flexDirection="column">
      <Text bold={on}>{fit(`${title}${more}`, width)}</Text>
      {shown.map((l, i) => (
        <Text key={offset + i}>{fit(l, width) || " "}</Text>
      ))}
    </Box>
  );
}

export interface SessionIO {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  color?: boolean;
}

/** Show the session screen once; resolves with what the user chose. */
export async function showSession(
  props: Omit<SessionAppProps, "onChoice">,
  io: SessionIO = {},
): Promise<SessionChoice> {
  let choice: SessionChoice = { kind: "quit" };
  const instance = render(
    <SessionApp {...props} color={io.color ?? props.color ?? !process.env.NO_COLOR} onChoice={(c) => (choice = c)} />,
    {
      exitOnCtrlC: false,
      patchConsole: false,
      ...(io.stdout ? { stdout: io.stdout } : {}),
      ...(io.stdin ? { stdin: io.stdin } : {}),
    },
  );
  await instance.waitUntilExit();
  return choice;
}

/**
 * The interactive session. Returns the exit code of the last run (0 when nothing ran): runs come back to the
 * list, quitting ends the session.
 */
export async function openSession(deps: SessionDeps = defaultSessionDeps(), io: SessionIO = {}): Promise<ExitCode> {
  let last: ExitCode = 0;
  let message: string | undefined;
  let index = 0;
  for (;;) {
    let scenarios: ScenarioEntry[] = [];
    try {
      scenarios = await deps.listScenarios();
    } catch (e) {
      message = formatError(e);
    }
    const choice = await showSession({ deps, scenarios, initialIndex: index, message }, io);
    if (choice.kind === "quit") return last;
    index = choice.index;
    try {
      last = await deps.run(choice.file, (o) =>
        mountRunScreen({ ...o, stdout: o.stdout ?? io.stdout, stdin: o.stdin ?? io.stdin }),
      );
      message = `last run: ${choice.file} exited with code ${last}`;
    } catch (e) {
      last = isTwinbenchError(e) ? e.exitCode : 1;
      message = formatError(e).split("\n").join(" · ");
    }
  }
}
