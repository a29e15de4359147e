/**
 * The escapes of the report builders, one of each: text for HTML and SVG, JSON inside a <script> element, and text
 * inside a Markdown table cell.
 */

/** Text or an attribute value made safe for HTML: & < > " ' become entities; null and undefined become "". */
export function escapeHtml(s: unknown): string {
  return String(s ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** JSON that is safe inside a <script> element: no "<" (so no "</script>") and no JavaScript line separators. */
export function scriptJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Text made safe inside a Markdown table cell: a "|" would end the cell. */
export function escapeMarkdownCell(s: string): string {
  return s.replace(/\|/g, "\\|");
}
