/**
 * The console's views by the address's `#` part (so the back button works and a lead can be
 * linked): `#/` the leads (with their filters as a query), `#/lead/<id>`, `#/preview`, `#/setup`
 * and `#/setup/<profile>`. DOM-free (test/admin/browser/route.test.ts).
 */
export type View =
  | { view: 'leads'; params: URLSearchParams }
  | { view: 'lead'; leadId: string }
  | { view: 'preview' }
  | { view: 'setup'; profile: string };

/** The view an address's hash names (anything else: the leads). */
export function viewOf(hash: string): View {
  const text = hash.replace(/^#/, '') || '/';
  const [path = '/', query = ''] = text.split('?');
  if (path.startsWith('/lead/')) return { view: 'lead', leadId: decodeURIComponent(path.slice(6)) };
  if (path === '/preview') return { view: 'preview' };
  if (path.startsWith('/setup'))
    return { view: 'setup', profile: decodeURIComponent(path.slice(7)) };
  return { view: 'leads', params: new URLSearchParams(query) };
}

/** The navigation tab a view lights. */
export const tabOf = (view: View): string => (view.view === 'lead' ? 'leads' : view.view);
