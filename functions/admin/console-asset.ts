/**
 * `GET /admin/assets/{file}`: the console's script (browser/main.ts, bundled by
 * scripts/build-browser.ts), by its hashed name (kernel/script-asset.ts), behind the console's
 * own guard (Basic auth, the `admin` role). The page needs only the name; the text is imported
 * when the script is asked for, so it stays out of the admin function's cold start.
 */
import { scriptAsset } from '../kernel/script-asset.ts';
import { SCRIPT_FILE } from './browser/dist/console-file.ts';
import type { RouteContext } from './route-context.ts';

/** The script's address under the API's base path (`/<stage>/admin/assets/console.<hash>.js`). */
export function consoleScriptSrc(baseUrl: string): string {
  let path = '';
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  } catch {
    path = '';
  }
  return `${path}/admin/assets/${SCRIPT_FILE}`;
}

export function consoleScript({ file }: Pick<RouteContext, 'file'>) {
  return scriptAsset(file, SCRIPT_FILE, () =>
    import('./browser/dist/console-text.ts').then((m) => m.SCRIPT_TEXT),
  );
}
