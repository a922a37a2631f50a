/**
 * The operator console's script (functions/admin/console-page.ts), bundled by
 * scripts/build-browser.ts and served from `/admin/assets/console.<hash>.js`: the router over
 * the address's `#` part (route.ts), the health line that heads every view (health.ts), and the
 * views: the leads (leads-view.ts), one lead (lead-view.ts), the preview and test lead
 * (preview-view.ts), the set-up kit (kit-view.ts). Everything a lead holds is put into the page
 * as text (dom.ts), never as HTML.
 */
import { loadHealth } from './health.ts';
import { showSetup } from './kit-view.ts';
import { showLead } from './lead-view.ts';
import { showLeads } from './leads-view.ts';
import { showPreview } from './preview-view.ts';
import { tabOf, viewOf } from './route.ts';

function route(): void {
  const shown = viewOf(location.hash);
  const tab = tabOf(shown);
  for (const a of document.querySelectorAll('nav a')) {
    a.className = a.getAttribute('data-tab') === tab ? 'on' : '';
  }
  loadHealth();
  if (shown.view === 'lead') showLead(shown.leadId);
  else if (shown.view === 'preview') showPreview();
  else if (shown.view === 'setup') showSetup(shown.profile);
  else showLeads(shown.params);
  window.scrollTo(0, 0);
}

window.addEventListener('hashchange', route);
route();
