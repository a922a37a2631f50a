/**
 * The sandbox's prospects: `POST /api/v1/prospects` (create: production's content types, its
 * 400/413/415 `{"mensagens": [...]}` answers, the validation of prospect-validation.ts, one
 * prospect per CPF, ids counting up from FIRST_PROSPECT_ID) and `GET /api/v1/prospects` (the
 * lookup of prospect-lookup.ts), with the faults that act on them (faults.ts: postStatus and
 * postCount, bareId, lookupForbidden). The prospects are kept in memory, as received.
 */
import { parseJson } from '../functions/domain/json.ts';
import { type Exchange, json, type RequestBody, send } from './exchange.ts';
import { type FaultState, takePostFault } from './faults.ts';
import { lookupProspects } from './prospect-lookup.ts';
import { validateProspectBody } from './prospect-validation.ts';

export interface StoredProspect {
  idProspect: number;
  /** ISO 8601, from the sandbox's clock. */
  receivedAt: string;
  /** The body as received (field names as sent). */
  body: unknown;
}

/** First id handed out by `POST /api/v1/prospects`. */
export const FIRST_PROSPECT_ID = 100_001;

/** What the prospects routes read and change of the sandbox's state. */
export interface ProspectsRoom extends FaultState {
  prospects: StoredProspect[];
  /** The CPFs (digits) of the stored prospects: a second prospect with one is refused. */
  takenCpfs: Set<string>;
  nextProspectId: number;
  /** The sandbox's clock. */
  readonly now: () => Date;
}

/** No prospect yet; ids start at FIRST_PROSPECT_ID. */
export function emptyProspects(): Pick<
  ProspectsRoom,
  'prospects' | 'takenCpfs' | 'nextProspectId'
> {
  return { prospects: [], takenCpfs: new Set(), nextProspectId: FIRST_PROSPECT_ID };
}

/** `DELETE /_sandbox/prospects`: forgets them; ids keep counting up, never handed out again. */
export function forgetProspects(room: ProspectsRoom): void {
  room.prospects = [];
  room.takenCpfs = new Set();
}

/** The `email` of a JSON body, lower case; undefined when there is none. */
function emailIn(bytes: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { email?: unknown };
    return typeof parsed?.email === 'string' ? parsed.email.trim().toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Production's accepted request types: application/json, text/json, application/*+json. */
function isJsonMediaType(media: string): boolean {
  return (
    media === 'application/json' ||
    media === 'text/json' ||
    /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(media)
  );
}

/** `POST /api/v1/prospects`. */
export async function createProspect(
  room: ProspectsRoom,
  ex: Exchange,
  body: RequestBody,
): Promise<void> {
  const email = emailIn(body.bytes);
  if (email !== undefined) ex.email = email;
  const faultStatus = takePostFault(room);
  if (faultStatus !== undefined) return send(ex, faultStatus, undefined);
  if (body.tooLarge) {
    return json(ex, 413, { mensagens: ['O corpo da requisição excede o limite de 1 MB.'] });
  }
  const media = mediaType(ex.req.headers['content-type']);
  if (!isJsonMediaType(media)) {
    const shown = media ? `'${media.slice(0, 100)}'` : 'ausente';
    return json(ex, 415, {
      mensagens: [
        `Content-Type ${shown} não suportado: use application/json ou application/json-patch+json.`,
      ],
    });
  }
  const text = body.bytes.toString('utf8').replace(/^\uFEFF/, '');
  if (!text.trim()) {
    return json(ex, 400, {
      mensagens: ['O corpo da requisição é obrigatório (Prospect em JSON).'],
    });
  }
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch {
    return json(ex, 400, { mensagens: ['O corpo da requisição não é um JSON válido.'] });
  }
  const check = validateProspectBody(parsed, (cpf) => room.takenCpfs.has(cpf));
  if (check.messages.length) return json(ex, 400, { mensagens: check.messages });

  const idProspect = room.nextProspectId;
  room.nextProspectId += 1;
  room.prospects.push({ idProspect, receivedAt: room.now().toISOString(), body: parsed });
  if (check.cpfDigits) room.takenCpfs.add(check.cpfDigits);
  return room.faults.bareId ? json(ex, 200, idProspect) : json(ex, 200, { idProspect });
}

/** `GET /api/v1/prospects`: 403 while lookupForbidden, else prospect-lookup.ts's answer. */
export async function findProspects(room: ProspectsRoom, ex: Exchange, url: URL): Promise<void> {
  if (room.faults.lookupForbidden) {
    return json(ex, 403, { status: 403, error: 'Forbidden' });
  }
  const found = lookupProspects(room.prospects, url.searchParams);
  if (!found.ok) return json(ex, 400, { mensagens: found.messages });
  return json(ex, 200, found.prospects);
}
