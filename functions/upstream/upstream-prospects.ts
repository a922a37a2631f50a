/**
 * The prospect operations: `createProspect` (`POST /api/v1/prospects`, the body as production
 * takes it) and `findProspects` (`GET /api/v1/prospects`, production's parameter names, the
 * answer's items read in production's names and the seed's). Each is one call over the
 * client's transport (upstream-transport.ts); the answer is checked with the model's schemas.
 */
import { describeIssues, type ExternalId, externalId } from '../domain/json.ts';
import { type Prospect, type ProspectCreated, prospectCreatedSchema } from '../domain/prospect.ts';
import { quote } from './upstream-errors.ts';
import {
  type CallOptions,
  call,
  fail,
  parseBody,
  type UpstreamTransport,
} from './upstream-transport.ts';

export const PROSPECTS_PATH = '/api/v1/prospects';
/** Production documents 50 as the most any list endpoint returns. */
export const MAX_PROSPECTS_PAGE = 50;

/** The wire name of the seed's `tokenPartner` (`tokenGympass` in production). */
export type PartnerTokenField = 'tokenPartner' | 'tokenGympass';

/** Filters of `findProspects`; the upstream returns prospects matching all of those given. */
export interface ProspectQuery {
  email?: string;
  /** Digits without the country code, as stored (`11987654321`). */
  cellphone?: string;
  /** The CPF, 11 digits (formatting is removed). */
  cpf?: string;
  /** Only prospects registered at or after this moment. */
  registeredSince?: Date;
}

/** A prospect found by `findProspects` (production's `ProspectsResumoApiViewModel`, narrowed). */
export interface ProspectMatch {
  idProspect: ExternalId;
  name?: string;
  lastName?: string;
  email?: string;
  cellphone?: string;
  cpf?: string;
  /** As sent by the upstream (production omits the zone). */
  registerDate?: string;
}

function isAbsent(value: unknown): boolean {
  return value === undefined;
}

/** The prospect as sent: undefined fields dropped, the partner token under its wire name. */
export function prospectBody(
  prospect: Prospect,
  partnerTokenField: PartnerTokenField = 'tokenPartner',
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(prospect)) {
    if (isAbsent(value)) continue;
    if (key === 'tokenPartner' && partnerTokenField !== 'tokenPartner') {
      body[partnerTokenField] = value;
    } else if (key === 'financiallyResponsible' && value && typeof value === 'object') {
      body[key] = Object.fromEntries(Object.entries(value).filter(([, v]) => !isAbsent(v)));
    } else {
      body[key] = value;
    }
  }
  return body;
}

/** `findProspects`' query string, in production's parameter names (see UpstreamClient). */
export function prospectSearch(query: ProspectQuery): URLSearchParams {
  const params = new URLSearchParams();
  const email = query.email?.trim();
  if (email) params.set('email', email);
  const phone = query.cellphone?.replace(/\D/g, '');
  if (phone) params.set('phone', phone);
  const cpf = query.cpf?.replace(/\D/g, '');
  if (cpf) params.set('document', cpf);
  if (query.registeredSince !== undefined) {
    if (Number.isNaN(query.registeredSince.getTime())) {
      throw new RangeError('findProspects: registeredSince is not a valid date');
    }
    params.set('registerDateStart', query.registeredSince.toISOString());
  }
  params.set('take', String(MAX_PROSPECTS_PAGE));
  return params;
}

function optionalText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * One prospect of a lookup answer; undefined without a usable `idProspect`. Reads production's
 * names (`firstName`, `document`) as well as the seed's (`name`, `cpf`).
 */
export function readProspectMatch(item: unknown): ProspectMatch | undefined {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return undefined;
  const record = item as Record<string, unknown>;
  const id = externalId.safeParse(record.idProspect);
  if (!id.success) return undefined;
  const match: ProspectMatch = { idProspect: id.data };
  const fields = {
    name: optionalText(record.name) ?? optionalText(record.firstName),
    lastName: optionalText(record.lastName),
    email: optionalText(record.email),
    cellphone: optionalText(record.cellphone) ?? optionalText(record.phone),
    cpf: optionalText(record.cpf) ?? optionalText(record.document),
    registerDate: optionalText(record.registerDate),
  };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) (match as unknown as Record<string, string>)[key] = value;
  }
  return match;
}

/** `POST /api/v1/prospects`: the created prospect's id, or an UpstreamError. */
export async function createProspect(
  transport: UpstreamTransport,
  partnerTokenField: PartnerTokenField,
  prospect: Prospect,
  options: CallOptions = {},
): Promise<ProspectCreated> {
  const route = `POST ${PROSPECTS_PATH}`;
  const unknownId = 'o prospect pode ter sido criado, mas o id dele é desconhecido';
  const answer = await call(transport, 'POST', PROSPECTS_PATH, {
    body: JSON.stringify(prospectBody(prospect, partnerTokenField)),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const parsed = parseBody(transport, route, answer, unknownId);
  // Some production versions answer the bare integer instead of {"idProspect": n}.
  const candidate =
    typeof parsed === 'number' || typeof parsed === 'string' ? { idProspect: parsed } : parsed;
  const result = prospectCreatedSchema.safeParse(candidate);
  if (result.success) return result.data;
  const problems = describeIssues(result.error.issues)
    .map((issue) => `${issue.field || 'corpo'} ${issue.message}`)
    .join('; ');
  throw fail(
    transport,
    'unavailable',
    `${route} respondeu ${answer.status} sem o id do prospect (${problems}: "${quote(answer.body)}"); ${unknownId}`,
    { status: answer.status },
  );
}

/** `GET /api/v1/prospects`: at most one page of the prospects matching every filter given. */
export async function findProspects(
  transport: UpstreamTransport,
  query: ProspectQuery,
  options: CallOptions = {},
): Promise<ProspectMatch[]> {
  const route = `GET ${PROSPECTS_PATH}`;
  const answer = await call(transport, 'GET', PROSPECTS_PATH, {
    search: prospectSearch(query),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const parsed = parseBody(transport, route, answer, 'esperava-se uma lista de prospects');
  const list = Array.isArray(parsed)
    ? parsed
    : parsed &&
        typeof parsed === 'object' &&
        Array.isArray((parsed as { results?: unknown }).results)
      ? (parsed as { results: unknown[] }).results
      : undefined;
  if (!list) {
    throw fail(
      transport,
      'unavailable',
      `${route} respondeu ${answer.status} com algo que não é uma lista ("${quote(answer.body)}")`,
      { status: answer.status },
    );
  }
  return list.flatMap((item) => {
    const match = readProspectMatch(item);
    return match ? [match] : [];
  });
}
