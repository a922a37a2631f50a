/**
 * The Portuguese pages a person's browser gets instead of a JSON error when a Basic route refuses
 * them: 401 (no password, a cancelled prompt, a wrong password), 403 (signed in, but this user
 * may not see this) and 429 (locked for a while after failed sign-ins). Programs keep the JSON
 * error body with its stable `code`: a request gets a page only when the first media type of its
 * `Accept` header is `text/html`, which is what a browser sends when it opens a page (API
 * Gateway looks at that first media type alone, prefersHtml).
 *
 * The 401 is API Gateway's own answer (the UNAUTHORIZED gateway response of BASIC_AUTH in
 * routes.ts), for every Basic route: UNAUTHORIZED_TEMPLATES are its bodies by media type, the
 * JSON for programs and this page for browsers; infra/constructs/leads-api.ts deploys them and
 * the local gateway (local/gateway.ts) answers the same. The 403 and 429 are the functions'
 * answers: refusalResponse turns their JSON refusal into the page (the report does:
 * functions/report/serve/refusals.ts).
 *
 * Each page stands alone: no script, no outside resource, its own style and a
 * Content-Security-Policy `<meta>` (a gateway response's static headers cannot carry the quotes
 * a CSP needs), and no `$` anywhere (API Gateway would read `$name` in a gateway response's
 * template as a variable). Pure.
 */
import { escapeHtml } from './html.ts';
import type { HttpResponse } from './http.ts';
import { BASIC_AUTH } from './routes.ts';

/** The refusals a person may meet, by status. */
export type RefusalStatus = 401 | 403 | 429;

export interface RefusalOptions {
  /** 429: when the person may try again. */
  retryAfterSeconds?: number;
  /** One more paragraph about this refusal, in Portuguese (plain text). */
  detail?: string;
  /** A way on: a link back (relative), with its label. */
  back?: { href: string; label: string };
}

/** Whether a request asks for a page: the first media type of its Accept is text/html. */
export function prefersHtml(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return first.split(';')[0]?.trim().toLowerCase() === 'text/html';
}

/** `alguns segundos`, `1 minuto`, `15 minutos`, `2 horas`. */
export function waitText(seconds: number): string {
  if (seconds < 60) return 'alguns segundos';
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 120) return `${minutes} ${minutes === 1 ? 'minuto' : 'minutos'}`;
  return `${Math.ceil(minutes / 60)} horas`;
}

const ASK = 'peça à pessoa responsável pelo sistema na sua academia';

/** Title, paragraphs and the default way on, by status. */
function wording(status: RefusalStatus, options: RefusalOptions) {
  switch (status) {
    case 401:
      return {
        title: 'Entre com seu usuário e senha',
        paragraphs: [
          'Esta página é protegida: só abre com o usuário e a senha que a sua academia recebeu. A entrada foi cancelada, ou o usuário e a senha não conferem.',
          'Para tentar de novo, toque em “Entrar de novo” (ou recarregue a página) e digite o usuário e a senha com atenção: letras maiúsculas e minúsculas fazem diferença.',
          'Esqueceu a senha ou ainda não tem acesso? Peça à pessoa responsável pelo sistema na sua academia. Depois de várias tentativas erradas, a entrada fica bloqueada por alguns minutos.',
        ],
        action: { href: '', label: 'Entrar de novo' },
      };
    case 403:
      return {
        title: 'Este usuário não tem acesso a esta página',
        paragraphs: [
          'A senha está certa, mas o usuário com que você entrou não tem permissão para ver esta página.',
          `Se você precisa dela, ${ASK} para liberar o acesso. Se entrou com outro usuário por engano, feche o navegador e abra a página de novo para entrar com o certo.`,
        ],
        action: undefined,
      };
    case 429:
      return {
        title: 'Muitas tentativas erradas de entrar',
        paragraphs: [
          'Por segurança, a entrada com este usuário (ou a partir desta rede) está bloqueada por um tempo, depois de várias senhas erradas seguidas.',
          `Tente de novo daqui a ${waitText(options.retryAfterSeconds ?? 60)}. Se não lembra a senha, ${ASK}.`,
        ],
        action: { href: '', label: 'Tentar de novo' },
      };
  }
}

const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #1d2733; background: #f4f6f9; }
main { max-width: 600px; margin: 0 auto; padding: 40px 16px; }
.card { background: #fff; border: 1px solid #e3e8ef; border-radius: 12px; padding: 22px 24px; }
.status { color: #5f6b7a; font-size: 14px; margin: 0 0 6px; }
h1 { font-size: 22px; line-height: 1.3; margin: 0 0 12px; }
p { margin: 0 0 12px; overflow-wrap: anywhere; }
.actions { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 18px; }
.button { display: inline-block; padding: 9px 16px; border-radius: 8px; border: 1px solid #2456a6; background: #2456a6;
  color: #fff; text-decoration: none; font-weight: 600; }
.button.secondary { background: #fff; color: #2456a6; }
`;

const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STATUS_LINE: Record<RefusalStatus, string> = {
  401: 'Erro 401 · entrada necessária',
  403: 'Erro 403 · acesso negado',
  429: 'Erro 429 · muitas tentativas',
};

/** The page for a refusal (see the module comment); `options` add to the status's wording. */
export function refusalPage(status: RefusalStatus, options: RefusalOptions = {}): string {
  const { title, paragraphs, action } = wording(status, options);
  const text = options.detail ? [options.detail, ...paragraphs] : paragraphs;
  const links = [
    ...(action
      ? [`<a class="button" href="${escapeHtml(action.href)}">${escapeHtml(action.label)}</a>`]
      : []),
    ...(options.back
      ? [
          `<a class="button${action ? ' secondary' : ''}" href="${escapeHtml(options.back.href)}">${escapeHtml(options.back.label)}</a>`,
        ]
      : []),
  ];
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<section class="card" id="refusal" data-status="${status}" role="alert">
<p class="status">${STATUS_LINE[status]}</p>
<h1>${escapeHtml(title)}</h1>
${text.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${links.length > 0 ? `<p class="actions">${links.join('')}</p>` : ''}
</section>
</main>
</body>
</html>
`;
}

/** Headers of a refusal page a function answers (the gateway's are BASIC_AUTH's). */
export const REFUSAL_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `${PAGE_CSP}; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/**
 * A function's JSON refusal (401, 403 or 429) as the page, with the same status and the same
 * other headers (Retry-After, WWW-Authenticate, Cache-Control).
 */
export function refusalResponse(result: HttpResponse, options: RefusalOptions = {}): HttpResponse {
  const status = result.statusCode as RefusalStatus;
  const retryAfter = Number(result.headers?.['retry-after']);
  const { 'content-type': _json, ...kept } = result.headers ?? {};
  return {
    statusCode: status,
    headers: { ...kept, ...REFUSAL_PAGE_HEADERS },
    body: refusalPage(status, {
      ...(Number.isFinite(retryAfter) && retryAfter > 0 && { retryAfterSeconds: retryAfter }),
      ...options,
    }),
  };
}

/**
 * The bodies of the gateway's UNAUTHORIZED response by media type, the JSON first: API Gateway
 * picks the one the request's first Accept media type names, and the first one otherwise.
 */
export const UNAUTHORIZED_TEMPLATES: Readonly<Record<string, string>> = {
  'application/json': JSON.stringify(BASIC_AUTH.unauthorized.body),
  'text/html': refusalPage(401),
};
