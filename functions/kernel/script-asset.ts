/**
 * A page's script, served from its hashed file name (`/admin/assets/console.<hash>.js`,
 * `/reports/assets/dashboard.<hash>.js`): the bundles scripts/build-browser.ts makes of the
 * typed browser modules. The name changes with every change of the text, so the answer is
 * cached for a year and never revalidated (`immutable`); any other name is a 404 (a page links
 * the name of the release that served it, and pages are not cached past a release: the console
 * is `no-store`, the dashboard's ETag covers the name). The script holds no data, only code
 * every reader of the page gets; it is still served behind the same sign-in and role as the
 * page that loads it (docs/SECURITY.md, "Content Security Policy"). The text is loaded on the
 * first request for it (`load`, an `import()`): a page needs only the name.
 */
import type { HttpResponse } from './http.ts';
import { problem } from './http.ts';
import { t } from './language.ts';

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** `<name>.<16 hex>.js`: what a script's URL ends with. */
const SCRIPT_NAME = /^[a-z-]+\.[0-9a-f]{16}\.js$/;

export async function scriptAsset(
  requested: string,
  current: string,
  load: () => Promise<string>,
): Promise<HttpResponse> {
  if (requested !== current || !SCRIPT_NAME.test(requested)) {
    return problem(
      404,
      'not_found',
      t('este script não existe (a página é de outra versão?)', 'no such script'),
      [],
      { 'cache-control': 'no-store' },
    );
  }
  return {
    statusCode: 200,
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': IMMUTABLE,
      'x-content-type-options': 'nosniff',
    },
    body: await load(),
  };
}
