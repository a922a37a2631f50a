/**
 * What the report's routes refuse before serving (serve.ts), and how: which upstream account a
 * request is about (`?upstream=`), the branches a scoped client may not see, the 503s to retry.
 * Each refusal is the JSON error with its stable `code` for programs and, for a person (the
 * dashboard's address, or a browser opening a page: kernel/refusal-page.ts, prefersHtml), a
 * Portuguese page: 401, 403 and 429 as kernel/refusal-page.ts words them, with what this
 * refusal means (`detail`); the dashboard's 400 page for an account the address gets wrong. Pure.
 */

import { DEFAULT_ACCOUNT } from '../../kernel/accounts.ts';
import type { Client } from '../../kernel/client-schema.ts';
import { type HttpRequest, type HttpResponse, problem } from '../../kernel/http.ts';
import { type Text, t } from '../../kernel/language.ts';
import { prefersHtml, refusalResponse } from '../../kernel/refusal-page.ts';
import { NO_STORE } from '../../kernel/route-guard.ts';
import type { RefreshStatus } from '../store/report-store.ts';
import {
  renderQueryProblems,
  renderUnavailable,
  type UnavailableReason,
} from './dashboard-fallback.ts';
import { DASHBOARD_HEADERS } from './dashboard-page.ts';

/** Retry-After of the 503 before the first snapshot exists. */
export const NOT_READY_RETRY_SECONDS = 30;

/** A refusal: the JSON answer, its code, and what it means in Portuguese for a page. */
export interface Refusal {
  result: HttpResponse;
  code: string;
  detail?: string;
}

/** `1`, `1 e 3`, `1, 2 e 3`. */
function listPt(items: readonly (string | number)[]): string {
  const all = items.map(String);
  return all.length <= 1 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} e ${all.at(-1)}`;
}

/** `a unidade 1`, `as unidades 1 e 3`. */
const branchesPt = (ids: readonly number[]) =>
  `${ids.length === 1 ? 'a unidade' : 'as unidades'} ${listPt(ids)}`;

/** The first value of a query parameter, its name matched case-insensitively. */
function queryValue(request: HttpRequest, name: string): string | undefined {
  const key = Object.keys(request.query).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : request.query[key]?.[0];
}

export type Chosen = { ok: true; account: string } | ({ ok: false } & Refusal);

/**
 * The upstream account a request is about: `?upstream=` when given (one the client may see),
 * else the client's only account, else `default`. An account that does not exist and one the
 * client may not see get the same 400 `unknown_upstream`, naming only the client's accounts: a
 * scoped client cannot learn other tenants' account names.
 */
export function chooseAccount(
  request: HttpRequest,
  client: Client,
  accounts: readonly string[],
): Chosen {
  const visible = accounts.filter((name) => client.upstreams?.includes(name) ?? true);
  const asked = queryValue(request, 'upstream');
  const refuse = (status: number, code: string, en: string, detail: string): Chosen => {
    // The JSON's message in the request's language: the Portuguese is the page's detail.
    const message = t(detail, en);
    return {
      ok: false,
      code,
      result: problem(status, code, message, [{ field: 'upstream', message }], NO_STORE),
      detail,
    };
  };
  const names = listPt(visible.map((name) => `“${name}”`));
  if (asked !== undefined) {
    if (!visible.includes(asked)) {
      return refuse(
        400,
        'unknown_upstream',
        `no upstream account "${asked}"; accounts: ${visible.join(', ')}`,
        `não há conta “${asked}”; as contas são ${names}`,
      );
    }
    return { ok: true, account: asked };
  }
  if (visible.length === 1) return { ok: true, account: visible[0] as string };
  if (visible.includes(DEFAULT_ACCOUNT)) return { ok: true, account: DEFAULT_ACCOUNT };
  return refuse(
    400,
    'upstream_required',
    `name the account with ?upstream= (one of ${visible.join(', ')})`,
    `diga no endereço de qual conta é o relatório: ${visible.map((v) => `upstream=${v}`).join(' ou ')}`,
  );
}

/** The branches a request asks for explicitly that a scoped client may not see. */
export function forbiddenBranches(
  parameter: 'branch' | 'idbranch',
  request: HttpRequest,
  allowed: readonly number[] | undefined,
): number[] {
  if (!allowed) return [];
  const asked = Object.entries(request.query)
    .filter(([key]) => key.toLowerCase() === parameter)
    .flatMap(([, values]) => values.flatMap((v) => v.split(',')))
    .map((v) => Number(v.trim()))
    .filter((id) => Number.isInteger(id));
  return asked.filter((id) => !allowed.includes(id));
}

/**
 * 403 `branch_forbidden`: a scoped client asked for branches it may not see (`forbidden`), or
 * for something that acts on the whole account (`forbidden` empty).
 */
export function branchRefusal(
  client: Client,
  account: string,
  forbidden: readonly number[],
): Refusal {
  const own = client.branches ?? [];
  const branches = `branch${own.length === 1 ? '' : 'es'} ${own.join(', ')}`;
  const en =
    forbidden.length > 0
      ? `this client may see ${branches} only, not ${forbidden.join(', ')}`
      : `this client sees only ${branches} of the account "${account}"; this acts on all of its branches`;
  const detail =
    forbidden.length > 0
      ? `Este usuário vê só ${branchesPt(own)}; o endereço pede ${branchesPt(forbidden)}.`
      : `Este usuário vê só ${branchesPt(own)}; isto vale para todas as unidades da conta.`;
  const message = t(detail, en);
  return {
    code: 'branch_forbidden',
    result: problem(403, 'branch_forbidden', message, [{ field: 'branch', message }], NO_STORE),
    detail,
  };
}

/** The role refusal (kernel/route-guard.ts's `forbidden`), in words. */
const ROLE_DETAIL = 'Este usuário não tem permissão para ver o relatório de devedores.';

/**
 * The refusal as a person gets it: on the dashboard's address, or when a browser opens a page,
 * the Portuguese page (see the module comment); otherwise the JSON as it is.
 */
export function forPerson(resource: string, request: HttpRequest, refusal: Refusal): HttpResponse {
  const dashboard = resource.endsWith('.html');
  if (!dashboard && !prefersHtml(request.headers.accept)) return refusal.result;
  const { result, code } = refusal;
  const detail = refusal.detail ?? (code === 'forbidden' ? ROLE_DETAIL : undefined);
  switch (result.statusCode) {
    case 401:
    case 403:
    case 429:
      return refusalResponse(result, {
        ...(detail && { detail }),
        ...(code === 'branch_forbidden' &&
          dashboard && { back: { href: 'debtors.html', label: 'Abrir o relatório' } }),
      });
    case 400:
      if (!dashboard || !detail) return result;
      return {
        statusCode: 400,
        headers: { ...DASHBOARD_HEADERS, ...NO_STORE },
        body: renderQueryProblems([{ field: 'upstream', message: detail }]),
      };
    default:
      return result;
  }
}

/**
 * A 503 the caller should retry in NOT_READY_RETRY_SECONDS: JSON, or (`page` not false: the
 * dashboard, with the refresh status when it could be read) the Portuguese page that says what
 * it means and reloads itself.
 */
export function tryAgain(
  code: UnavailableReason,
  message: Text,
  page: RefreshStatus | undefined | false,
): Refusal {
  const headers = { ...NO_STORE, 'retry-after': String(NOT_READY_RETRY_SECONDS) };
  if (page === false) return { result: problem(503, code, message, [], headers), code };
  const body = renderUnavailable(code, page, NOT_READY_RETRY_SECONDS);
  return { result: { statusCode: 503, headers: { ...DASHBOARD_HEADERS, ...headers }, body }, code };
}

export function refreshUnavailable(): Refusal {
  const code = 'refresh_unavailable';
  const headers = { ...NO_STORE, 'retry-after': String(NOT_READY_RETRY_SECONDS) };
  return {
    result: problem(
      503,
      code,
      t(
        'não foi possível pedir a atualização do relatório; tente de novo',
        'the refresh could not be requested; try again',
      ),
      [],
      headers,
    ),
    code,
  };
}
