/**
 * `POST /admin/erasure` `{email?, phone?, cpf?}` (JSON, at least one): a person's request to
 * erase their data (LGPD art. 18). Finds their leads through the ledger's hashed subject items
 * (no scan), removes the personal data of each (ledger `redact`: an anonymous record that the
 * lead existed and was erased stays), leaves its salted tombstones so that a redelivery or a
 * backfill is dropped, and answers 200 `{erased: [...], found, upstream}`: which leads (also one
 * erased earlier and found again), in which status, and which of them the upstream holds
 * (`idProspect`): the upstream has no delete operation, so the answer says plainly that its copy
 * must be erased there. An erased lead can be neither retried nor corrected (409
 * `personal_data_removed`, leads/lead.ts). 400 for a body that names nobody. Never logs what was
 * asked. docs/privacy.md.
 */
import type { ExternalId, IssueDetail } from '../domain/json.ts';
import { type PublicLeadStatus, publicStatus } from '../domain/lead-lifecycle.ts';
import { type SubjectQuery, subjectsOfQuery } from '../domain/personal-data.ts';
import { type HttpRequest, type HttpResponse, json } from '../kernel/http.ts';
import { say, t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { type RouteContext, refusal } from './route-context.ts';

/** What `POST /admin/erasure` says about one lead it erased. */
export interface ErasedLead {
  leadId: string;
  profile: string;
  status: PublicLeadStatus;
  receivedAt: string;
  erasedAt: string;
  /** The upstream's prospect made from this lead: its copy must be erased there. */
  idProspect?: ExternalId;
}

export interface ErasureResult {
  /** How many leads named this person. */
  found: number;
  erased: ErasedLead[];
  /** What remains to do at the upstream, in plain words. */
  upstream: {
    /** The upstream's prospects that hold this person's data. */
    idProspects: ExternalId[];
    action: string;
  };
}

const ERASURE_FIELDS = ['email', 'phone', 'cpf'] as const;
/** Leads one erasure request redacts at once. */
const ERASURE_CONCURRENCY = 10;

function erasureQuery(request: HttpRequest): SubjectQuery {
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw refusal(
      400,
      'invalid_body',
      t(
        'o corpo deve ser JSON: {"email"?, "phone"?, "cpf"?}',
        'the body must be JSON: {"email"?, "phone"?, "cpf"?}',
      ),
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw refusal(
      400,
      'invalid_body',
      t(
        'o corpo deve ser um objeto JSON: {"email"?, "phone"?, "cpf"?}',
        'the body must be a JSON object: {"email"?, "phone"?, "cpf"?}',
      ),
    );
  }
  const record = body as Record<string, unknown>;
  const details: IssueDetail[] = [];
  for (const key of Object.keys(record)) {
    if (!(ERASURE_FIELDS as readonly string[]).includes(key)) {
      details.push({ field: key, message: 'unknown field: only email, phone and cpf' });
    } else if (typeof record[key] !== 'string') {
      details.push({ field: key, message: 'must be a string' });
    }
  }
  if (details.length > 0) {
    throw refusal(
      400,
      'invalid_body',
      t('o corpo não indica ninguém que possamos procurar', 'the body names nobody we can look up'),
      details,
    );
  }
  return record as SubjectQuery;
}

/** What remains to do at the upstream, in plain words, for the prospects the leads became. */
function upstreamAction(erased: readonly ErasedLead[], idProspects: readonly ExternalId[]) {
  if (idProspects.length > 0) {
    const ids = idProspects.join(', ');
    return say(
      t(
        `O sistema da academia (EVO) ainda guarda os dados desta pessoa nos prospects ${ids}: ele não tem como apagar pela API, então apague-os lá (nas telas do EVO ou pelo suporte). Este gateway já apagou a sua cópia.`,
        `The upstream (EVO) still holds this person's data in prospects ${ids}: it has no delete operation, so erase them there (EVO's own screens or its support). This gateway has erased its copy.`,
      ),
    );
  }
  if (erased.length > 0) {
    return say(
      t(
        'Nenhum lead desta pessoa chegou ao sistema da academia, então ele não guarda nada vindo de nós. Um lead que estivesse sendo enviado neste exato momento ainda pode chegar lá: confira de novo em alguns minutos.',
        'No lead of this person reached the upstream, so the upstream holds nothing from us. A lead that was being sent at this very moment may still arrive there: check again in a few minutes.',
      ),
    );
  }
  return say(
    t(
      'Este gateway não guarda nenhum lead desta pessoa com esses dados: nenhum foi gravado com eles, ou já foram apagados por um pedido anterior (cuja resposta listou os prospects a apagar no sistema da academia). Informe todos os e-mails, telefones e CPFs que a pessoa usou.',
      'This gateway holds no lead of this person under these values: none was recorded with them, or they were erased by an earlier request (whose answer listed the prospects to erase at the upstream). Give every e-mail, phone and CPF the person used.',
    ),
  );
}

export async function erasure(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const query = subjectsOfQuery(erasureQuery(context.request));
  if ('problems' in query) {
    throw refusal(
      400,
      'invalid_subject',
      t(
        'informe o e-mail, o telefone ou o CPF da pessoa cujos dados devem ser apagados',
        'give the e-mail, phone or CPF of the person whose data is to be erased',
      ),
      query.problems.map((p) => ({ field: p.field, message: p.message })),
    );
  }
  const leadIds = await deps.ledger.findBySubjects(query.subjects);
  const erased: ErasedLead[] = [];
  for (let i = 0; i < leadIds.length; i += ERASURE_CONCURRENCY) {
    const batch = leadIds.slice(i, i + ERASURE_CONCURRENCY);
    // A lead erased earlier and found again (a pointer left behind) is listed too, with the
    // prospect it became: the upstream still holds that copy.
    const leads = await Promise.all(
      batch.map((leadId) =>
        deps.ledger.redact(leadId, { reason: 'erasure', now: now(), subjects: query.subjects }),
      ),
    );
    for (const lead of leads) {
      if (!lead) continue;
      erased.push({
        leadId: lead.leadId,
        profile: lead.profile,
        status: publicStatus(lead.status),
        receivedAt: lead.receivedAt,
        erasedAt: lead.redactedAt ?? now().toISOString(),
        ...(lead.idProspect !== undefined && { idProspect: lead.idProspect }),
      });
    }
  }
  const idProspects = [
    ...new Map(
      erased.flatMap((lead) =>
        lead.idProspect === undefined ? [] : [[String(lead.idProspect), lead.idProspect]],
      ),
    ).values(),
  ];
  const body: ErasureResult = {
    found: erased.length,
    erased,
    upstream: { idProspects, action: upstreamAction(erased, idProspects) },
  };
  deps.events?.erased?.({
    found: erased.length,
    upstream: idProspects.length,
    client: context.client,
  });
  return json(200, body, NO_STORE);
}
