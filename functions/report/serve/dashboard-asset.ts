/**
 * `GET /reports/assets/{file}`: the dashboard's script (browser/main.ts, bundled by
 * scripts/build-browser.ts), by its hashed name (kernel/script-asset.ts). The page links
 * `assets/<SCRIPT_FILE>` beside itself; the text is imported only when the script is asked for.
 */
import { scriptAsset } from '../../kernel/script-asset.ts';
import { SCRIPT_FILE } from './browser/dist/dashboard-file.ts';

/** The script's address, relative to the dashboard (`/reports/debtors.html`). */
export const DASHBOARD_SCRIPT_SRC = `assets/${SCRIPT_FILE}`;

export function dashboardScript(file: string) {
  return scriptAsset(file, SCRIPT_FILE, () =>
    import('./browser/dist/dashboard-text.ts').then((m) => m.SCRIPT_TEXT),
  );
}
