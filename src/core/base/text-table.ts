/**
 * The one plain-text table layout every text renderer uses: columns padded to a common width, left- or
 * right-aligned, joined by a gap, each line optionally indented and trimmed. Pure: rows in, lines out.
 *
 * A left-aligned last cell of a row is not padded (trailing spaces help no one); a right-aligned one is.
 * A row given as a plain string is a line of its own (a sub-heading, a note): written as is, not measured.
 */
export type Align = "left" | "right";

export interface TextColumn {
  /** Default `left`. */
  align?: Align;
  /** The column is at least this wide. */
  minWidth?: number;
  /** The column is exactly this wide (longer cells overflow); overrides the measured width. */
  width?: number;
  /** Written before this column instead of the table's gap (ignored for the first column). */
  gap?: string;
}

export type TextRow = readonly string[] | string;

export interface TextTableOptions {
  /** Rows written first; measured like the others. */
  head?: readonly TextRow[];
  /** A character repeated under each column after the head rows (`-` gives `---  --`). */
  rule?: string;
  columns?: readonly TextColumn[];
  /** Before every table line. Default none. */
  indent?: string;
  /** Between columns. Default two spaces. */
  gap?: string;
  /** Trim trailing spaces from each line. Default true. */
  trimEnd?: boolean;
}

/** The width of each column: fixed, or the widest cell (at least `minWidth`). */
export function columnWidths(rows: readonly TextRow[], columns: readonly TextColumn[] = []): number[] {
  const cellRows = rows.filter((r): r is readonly string[] => typeof r !== "string");
  const n = Math.max(columns.length, ...cellRows.map((r) => r.length));
  return Array.from({ length: n }, (_, i) => {
    const col = columns[i] ?? {};
    if (col.width !== undefined) return col.width;
    return Math.max(col.minWidth ?? 0, ...cellRows.map((r) => (r[i] ?? "").length));
  });
}

export function textTable(rows: readonly TextRow[], options: TextTableOptions = {}): string[] {
  const { head = [], rule, columns = [], indent = "", gap = "  ", trimEnd = true } = options;
  const widths = columnWidths([...head, ...rows], columns);
  const line = (r: TextRow): string => {
    if (typeof r === "string") return r;
    const text = r
      .map((c, i) => {
        const col = columns[i] ?? {};
        const sep = i === 0 ? "" : (col.gap ?? gap);
        if (col.align === "right") return sep + c.padStart(widths[i]!);
        return sep + (i === r.length - 1 ? c : c.padEnd(widths[i]!));
      })
      .join("");
    const full = indent + text;
    return trimEnd ? full.trimEnd() : full;
  };
  const ruleLine =
    rule === undefined
      ? []
      : [indent + widths.map((w, i) => (i === 0 ? "" : (columns[i]?.gap ?? gap)) + rule.repeat(w)).join("")];
  return [...head.map(line), ...ruleLine, ...rows.map(line)];
}
