/**
 * The dialect's vocabulary: a server family, what a rule is given (the server, its storage, the matrix, the merged
 * options), and what it gives back (the rendered lines, their fate, the reason, any asymmetry or warning).
 */
import type { Storage } from "../model/scenario/schema.ts";
import type { TranslationEntry } from "../model/results.ts";
import type { Version } from "./version.ts";

export type Family = "mariadb" | "mysql";
export type StorageKind = Storage["kind"];

export interface RenderedOption {
  name: string;
  /** null renders a bare flag (`skip_log_bin`). */
  value: string | null;
}

export interface DialectContext {
  family: Family;
  version: Version;
  storageKind: StorageKind;
  /** Largest thread count in the scenario's matrix. */
  maxThreads: number;
  /** The merged neutral options (after all layers), for options whose rendering depends on another. */
  neutral: ReadonlyMap<string, string | null>;
}

export interface Outcome {
  fate: Exclude<TranslationEntry["fate"], "add">;
  lines: RenderedOption[];
  reason: string;
  /** Set when the two families cannot be given an identical setting for this value. */
  asymmetry?: string;
  /** Set when the value is accepted but suspicious (e.g. max_connections below the matrix). */
  warning?: string;
}

export interface DialectRule {
  family: Family;
  /** Inclusive lower bound. */
  from?: string;
  /** Exclusive upper bound. */
  until?: string;
  apply: (name: string, value: string | null, ctx: DialectContext) => Outcome;
}

export interface DialectOption {
  name: string;
  /** One line on what the option is for in the lab. */
  about: string;
  rules: DialectRule[];
}
