/**
 * The one HTML escaper of every page the functions write (the console, the dashboard, the
 * refusal pages, the set-up kit's form): `&`, `<`, `>`, `"` and `'`, so a value is safe as text
 * and inside an attribute quoted either way. Pure (test/kernel/html.test.ts).
 */
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}
