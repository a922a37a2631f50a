/**
 * A lead's reason as the people who run the gym read it, in Portuguese. New reasons are written
 * in Portuguese where they arise (the mapping, the sources, delivery); these words cover what is
 * stored otherwise: the circuit's failure kinds (`unavailable`, `unauthorized 401`), and reasons
 * a lead was given in English before, still in the ledger. Anything else is said as it is. Pure.
 */
import { missingFieldsReason } from './prospect.ts';

/** An upstream failure kind (upstream/upstream-errors.ts), as an operator reads it. */
const FAILURE_KINDS: Readonly<Record<string, string>> = {
  unavailable: 'o sistema da academia não respondeu',
  unauthorized: 'o sistema da academia recusou a nossa chave de acesso',
  'rate-limited': 'o sistema da academia pediu para esperar (limite de pedidos)',
  rejected: 'o sistema da academia recusou o pedido',
};

/**
 * Why an account's circuit opened (`unavailable`, `unavailable 503`, `unauthorized 401`), as an
 * operator reads it: `o sistema da academia não respondeu (HTTP 503)`.
 */
export function circuitReasonPt(reason: string): string {
  const [kind = '', status] = reason.trim().split(/\s+/);
  const text = FAILURE_KINDS[kind];
  if (text === undefined) return reason;
  return status ? `${text} (HTTP ${status})` : text;
}

/** English reasons the ledger may still hold, each with its Portuguese. */
const LEGACY: readonly [RegExp, (match: RegExpExecArray) => string][] = [
  [
    /^required fields missing: ([\w, ]+)$/,
    (m) => missingFieldsReason((m[1] ?? '').split(',').map((field) => field.trim())),
  ],
  [/^unreadable body: (.*)$/s, (m) => `corpo ilegível: ${m[1]}`],
  [/^profile '(.*)' is not configured$/, (m) => `o perfil '${m[1]}' não está configurado`],
  [/^rejected by the upstream$/, () => 'recusado pelo sistema da academia'],
];

/** A lead's stored reason in Portuguese (see the module comment). */
export function leadReasonPt(reason: string): string {
  for (const [pattern, say] of LEGACY) {
    const match = pattern.exec(reason);
    if (match) return say(match);
  }
  return circuitReasonPt(reason);
}
