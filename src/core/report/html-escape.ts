/**
 * The one HTML escape every HTML and SVG builder uses, and JSON that may sit inside a <script> element.
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
