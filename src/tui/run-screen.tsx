/**
 * The run screen: a store fed by the run's events, a connected root that owns input and `exit()`, and
 * `mountRunScreen`, which the CLI calls. The root routes keys to the callbacks it was given and never runs anything
 * itself: q / Ctrl-C → onCancel (the CLI counts them: graceful, then forced), s → onSkip, ↑↓ select a finished
 * cell, d toggles its details.
 */
import React, { useEffect, useState, useSyncExternalStore } from "react";
import { render, useApp, useInput, useStdout } from "ink";
import type { RunEvent } from "../core/model/events.ts";
import { RunView, type Size } from "./components.tsx";
import { ColorContext } from "./color.tsx";
import { initialState, reduce, reduceUi } from "./state.ts";
import { type UiAction, type ViewState } from "./view-state.ts";

/** A tiny external store: the state, a dispatch for events and UI actions, and subscriptions. */
export interface RunStore {
  get(): ViewState;
  dispatch(e: RunEvent): void;
  ui(a: UiAction): void;
  subscribe(fn: () => void): () => void;
}

export function createRunStore(state: ViewState = initialState()): RunStore {
  const subs = new Set<() => void>();
  const set = (next: ViewState) => {
    if (next === state) return;
    state = next;
    for (const fn of subs) fn();
  };
  return {
    get: () => state,
    dispatch: (e) => set(reduce(state, e)),
    ui: (a) => set(reduceUi(state, a)),
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

export interface RunScreenHandlers {
  /** q or Ctrl-C: the first asks for a graceful cancel, a second forces. */
  onCancel: () => void;
  /** s: skip the current cell. */
  onSkip: () => void;
}

export interface RunScreenProps extends RunScreenHandlers {
  store: RunStore;
  /** Clock tick for elapsed/ETA between events, in ms; 0 turns it off (tests). Default 1000. */
  tickMs?: number;
  color?: boolean;
  /** Fixed size (tests); default: the terminal's, following resizes. */
  size?: Size;
}

function useTerminalSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  const read = (): Size => fixed ?? { width: stdout.columns || 80, height: stdout.rows || 24 };
  const [size, setSize] = useState<Size>(read);
  useEffect(() => {
    if (fixed) return;
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout, fixed?.width, fixed?.height]);
  return fixed ?? size;
}

/** The connected root: subscribes to the store, handles keys, exits once the final state is on screen. */
export function RunScreenApp({ store, onCancel, onSkip, tickMs = 1000, color = true, size }: RunScreenProps) {
  const state = useSyncExternalStore(store.subscribe, store.get, store.get);
  const { exit } = useApp();
  const termSize = useTerminalSize(size);
  const finished = state.finished !== undefined;

  useEffect(() => {
    if (!tickMs || finished) return;
    const t = setInterval(() => store.ui({ type: "tick", at: new Date().toISOString() }), tickMs);
    return () => clearInterval(t);
  }, [tickMs, finished, store]);

  useEffect(() => {
    // The final frame has been committed by now; Ink flushes it on unmount.
    if (finished) exit();
  }, [finished, exit]);

  useInput(
    (input, key) => {
      if (input === "q" || (key.ctrl && input === "c") || input === "\x03") {
        store.ui({ type: "cancel-requested" });
        onCancel();
      } else if (input === "s") {
        if (store.get().ui.cancelRequests === 0) onSkip();
      } else if (input === "d") store.ui({ type: "toggle-details" });
      else if (key.upArrow) store.ui({ type: "select", delta: -1 });
      else if (key.downArrow) store.ui({ type: "select", delta: 1 });
    },
    { isActive: !finished },
  );

  return (
    <ColorContext.Provider value={color}>
      <RunView state={state} size={termSize} />
    </ColorContext.Provider>
  );
}

/** How a caller mounts the run screen (the session passes one that writes to its own terminal). */
export type MountRunScreen = (o: MountOptions) => RunScreen;

export interface MountOptions extends RunScreenHandlers {
  stdout?: NodeJS.WriteStream;
  stdin?: NodeJS.ReadStream;
  /** Colour on unless NO_COLOR is set. */
  color?: boolean;
  tickMs?: number;
  /** Ink debug mode (every frame written in full; tests). */
  debug?: boolean;
}

export interface RunScreen {
  /** Feed one event of the run. */
  dispatch: (e: RunEvent) => void;
  /** Resolves once the screen has shown the final state (after `run-finished`) and unmounted. */
  done: Promise<void>;
  /** Unmount now (e.g. the run threw before `run-finished`); `done` then resolves. Idempotent. */
  close: () => void;
  /** The current view state (tests, diagnostics). */
  state: () => ViewState;
}

export function mountRunScreen(o: MountOptions): RunScreen {
  const store = createRunStore();
  const color = o.color ?? !process.env.NO_COLOR;
  const instance = render(
    <RunScreenApp store={store} onCancel={o.onCancel} onSkip={o.onSkip} tickMs={o.tickMs} color={color} />,
    {
      exitOnCtrlC: false,
      patchConsole: false,
      ...(o.stdout ? { stdout: o.stdout } : {}),
      ...(o.stdin ? { stdin: o.stdin } : {}),
      ...(o.debug ? { debug: true } : {}),
    },
  );
  const done = instance.waitUntilExit().then(
    () => undefined,
    () => undefined, // `done` only says the screen is gone; the run's own outcome comes from the run, not the screen
  );
  return {
    dispatch: (e) => store.dispatch(e),
    done,
    close: () => instance.unmount(),
    state: () => store.get(),
  };
}
