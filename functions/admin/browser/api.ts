/**
 * The console's calls to the admin routes: JSON, in Portuguese, the CSRF token of the page's
 * `<meta>` on every request that changes something (kernel/csrf.ts), and a refusal thrown as an
 * Error with the route's own message (words.ts `problemText`). Also the page's data block and
 * the account's clock.
 */
import type { PageData } from './page-data.ts';
import { problemText, when as whenIn } from './words.ts';

const token = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? '';
/** The admin routes' base: `/admin/` under whatever stage path the console was opened at. */
export const base = `${location.pathname.replace(/\/admin\/?$/, '')}/admin/`;

export const PAGE: PageData = JSON.parse(
  document.getElementById('page-data')?.textContent ?? '{}',
) as PageData;

/** A time on the account's clock. */
export const when = (iso: string | undefined | null) => whenIn(iso, PAGE.timeZone);

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<T> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-language': 'pt-BR',
  };
  if (method !== 'GET') headers['x-csrf-token'] = token;
  if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
  const response = await fetch(base + path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { text };
  }
  if (!response.ok) throw new Error(problemText(response.status, data));
  return data as T;
}

/** An error's message, whatever was thrown. */
export const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
