/**
 * The sandbox's `GET /api/v1/prospects`: the stored prospects matching ALL the filters given.
 *
 * Filters (production's swagger names them `email`, `phone`, `document`, `registerDateStart`;
 * the sandbox takes those and the seed's field names `cellphone` and `cpf` as well):
 * - `email`: equal after trimming, ignoring case;
 * - `cellphone` / `phone`: equal digits (formatting ignored);
 * - `cpf` / `document`: equal digits (formatting ignored);
 * - `registerDateStart`: registered at or after this ISO 8601 date or date-time (a date-time
 *   without a zone is read as UTC);
 * - `take` (1..50, default 50) and `skip` (default 0), as production's list endpoints.
 * Unknown parameters are ignored, as ASP.NET does. No filter at all lists every prospect (paged).
 *
 * Answer: `[{idProspect, name, lastName, email, cellphone, cpf, registerDate}]`, oldest first;
 * `registerDate` is the moment the sandbox stored the prospect (ISO 8601, UTC). A value that
 * cannot be read answers 400 `{"mensagens": [...]}` like production's validation errors.
 */
import { isIsoDateTime } from './prospect-validation.ts';

/** What the lookup reads of a stored prospect (prospects-route.ts `StoredProspect`). */
export interface LookupSource {
  idProspect: number;
  /** ISO 8601. */
  receivedAt: string;
  /** The body as received: field names may be in any casing. */
  body: unknown;
}

export interface ProspectSummary {
  idProspect: number;
  name: string | null;
  lastName: string | null;
  email: string | null;
  cellphone: string | null;
  cpf: string | null;
  registerDate: string;
}

export type LookupResult =
  | { ok: true; prospects: ProspectSummary[] }
  | { ok: false; messages: string[] };

export const MAX_LOOKUP_TAKE = 50;

/** A field of the body, bound case-insensitively (ASP.NET); null when absent or not text. */
function field(body: unknown, name: string): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    return null;
  }
  return null;
}

const digits = (value: string) => value.replace(/\D/g, '');

/** The first non-blank value among the names (the seed's name first). */
function param(params: URLSearchParams, ...names: string[]): string | undefined {
  for (const name of names) {
    for (const [key, value] of params) {
      if (key.toLowerCase() === name.toLowerCase() && value.trim()) return value.trim();
    }
  }
  return undefined;
}

function parseInstant(text: string): number | undefined {
  if (!isIsoDateTime(text)) return undefined;
  // A date-time without a zone is read as UTC (production would read the gym's local time).
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) || !text.includes('T') ? text : `${text}Z`;
  const time = Date.parse(zoned);
  return Number.isNaN(time) ? undefined : time;
}

function integerParam(
  params: URLSearchParams,
  name: string,
  fallback: number,
  messages: string[],
): number {
  const raw = param(params, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d{1,9}$/.test(raw)) {
    messages.push(`O valor '${raw.slice(0, 40)}' não é válido para ${name}.`);
    return fallback;
  }
  return Number(raw);
}

export function summarise(stored: LookupSource): ProspectSummary {
  return {
    idProspect: stored.idProspect,
    name: field(stored.body, 'name'),
    lastName: field(stored.body, 'lastName'),
    email: field(stored.body, 'email'),
    cellphone: field(stored.body, 'cellphone'),
    cpf: field(stored.body, 'cpf'),
    registerDate: stored.receivedAt,
  };
}

export function lookupProspects(
  stored: readonly LookupSource[],
  params: URLSearchParams,
): LookupResult {
  const messages: string[] = [];
  const email = param(params, 'email')?.toLowerCase();
  const phone = param(params, 'cellphone', 'phone');
  const cpf = param(params, 'cpf', 'document');
  const since = param(params, 'registerDateStart');
  let sinceMs: number | undefined;
  if (since !== undefined) {
    sinceMs = parseInstant(since);
    if (sinceMs === undefined) {
      messages.push(`O valor '${since.slice(0, 40)}' não é válido para registerDateStart.`);
    }
  }
  const take = Math.min(
    Math.max(integerParam(params, 'take', MAX_LOOKUP_TAKE, messages), 1),
    MAX_LOOKUP_TAKE,
  );
  const skip = Math.max(integerParam(params, 'skip', 0, messages), 0);
  if (messages.length > 0) return { ok: false, messages };

  // A filter without a single digit matches no one (it cannot equal a stored number).
  const sameDigits = (value: string | null, wanted: string) =>
    digits(wanted) !== '' && digits(value ?? '') === digits(wanted);
  const matches = stored.filter((prospect) => {
    const summary = summarise(prospect);
    if (email !== undefined && summary.email?.trim().toLowerCase() !== email) return false;
    if (phone !== undefined && !sameDigits(summary.cellphone, phone)) return false;
    if (cpf !== undefined && !sameDigits(summary.cpf, cpf)) return false;
    if (sinceMs !== undefined && !(Date.parse(prospect.receivedAt) >= sinceMs)) return false;
    return true;
  });
  return {
    ok: true,
    prospects: matches
      .sort((a, b) => a.idProspect - b.idProspect)
      .slice(skip, skip + take)
      .map(summarise),
  };
}
