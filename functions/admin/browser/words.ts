/**
 * The console's words and the pure parts of what it shows: statuses and Prospect fields as an
 * operator calls them, a time on the account's clock, a refusal's message, a lead's timeline, a
 * Prospect's values. DOM-free (test/admin/browser/words.test.ts).
 */
import { STATUS_LABELS } from '../../domain/status-labels.ts';
import type { BranchChoice, LeadDetail } from './page-data.ts';

/** The statuses' words (one list with the server's). */
export const LABELS: Readonly<Record<string, string>> = STATUS_LABELS;

export const HEALTH_REASONS: Readonly<Record<string, string>> = {
  unavailable: 'não responde',
  timeout: 'demorou demais para responder',
  unauthorized: 'recusou o usuário e a senha',
  'rate-limited': 'pediu para esperar',
};

/** The Prospect's fields as an operator calls them (the upstream's keys stay in the API). */
export const PROSPECT_LABELS: Readonly<Record<string, string>> = {
  name: 'Nome',
  lastName: 'Sobrenome',
  email: 'E-mail',
  ddi: 'DDI (país)',
  cellphone: 'Celular com DDD',
  idBranch: 'Unidade',
  cpf: 'CPF',
  rg: 'RG',
  birthday: 'Nascimento',
  gender: 'Sexo',
  visit: 'Visita',
  marketingType: 'Origem do lead',
  notes: 'Observações',
  currentStep: 'Etapa',
  temperature: 'Temperatura',
  interests: 'Interesses',
  financiallyResponsible: 'Responsável financeiro',
  additionalFieldName: 'Campo adicional',
  additionalFieldValue: 'Valor do campo adicional',
  validateCpfDuplication: 'Conferir CPF repetido',
};

/** Prospect fields never shown (a partner's token). */
export const HIDDEN_PROSPECT: ReadonlySet<string> = new Set(['tokenPartner']);

/** A time in the account's zone (the gym's clock), whatever the browser's zone is. */
export function when(iso: string | undefined | null, timeZone: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('pt-BR', { dateStyle: 'short', timeStyle: 'short', timeZone });
}

interface ErrorDetail {
  field?: string;
  message?: string;
}

/** A refusal's words: its message (else `Erro <status>`) and its details in parentheses. */
export function problemText(status: number, data: unknown): string {
  const error =
    (data as { error?: { message?: string; details?: (string | ErrorDetail)[] } } | null)?.error ??
    {};
  const details = (error.details ?? []).map((d) =>
    typeof d === 'string' ? d : `${d.field ? `${d.field}: ` : ''}${d.message ?? ''}`,
  );
  return `${error.message || `Erro ${status}`}${details.length ? ` (${details.join('; ')})` : ''}`;
}

/** A branch by its name (`Centro (2)`) among the lead's branches, else its id. */
export function branchName(id: unknown, branches: readonly BranchChoice[]): string {
  const found = branches.find((b) => String(b.idBranch) === String(id));
  return found ? `${found.name} (${String(id)})` : String(id);
}

/** A Prospect value as text: a branch by name, `sim`/`não`, JSON for anything structured. */
export function prospectValue(
  key: string,
  value: unknown,
  branches: readonly BranchChoice[],
): string {
  if (key === 'idBranch') return branchName(value, branches);
  if (typeof value === 'boolean') return value ? 'sim' : 'não';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A lead's timeline, line by line (`delivered` marks the delivery line). */
export function timelineLines(
  lead: LeadDetail,
  at: (iso: string | undefined) => string,
): { text: string; delivered?: boolean }[] {
  const lines: { text: string; delivered?: boolean }[] = [
    { text: `Recebido ${at(lead.receivedAt)} pelo perfil ${lead.profile}` },
  ];
  const add = (text: string) => lines.push({ text });
  if (lead.correctedAt) add(`Corrigido por ${lead.correctedBy} em ${at(lead.correctedAt)}`);
  if (lead.triesText) add(lead.triesText);
  if (lead.lastError) add(`Último erro: ${lead.lastError}`);
  if (lead.reason) add(`${lead.status === 'parked' ? 'Parado: ' : 'Motivo: '}${lead.reason}`);
  for (const m of lead.messages ?? []) add(`Resposta do sistema da academia: ${m}`);
  if (lead.nextAttemptAt) add(`Próxima tentativa: ${at(lead.nextAttemptAt)}`);
  if (lead.status === 'delivered') {
    lines.push({
      text: `Entregue ${at(lead.deliveredAt)} como prospect ${lead.idProspect}`,
      delivered: true,
    });
  }
  return lines;
}

/** After a resend, what became of the lead, and how it is shown (`ok`, `` or `error`). */
export function followText(lead: LeadDetail): { text: string; kind: string } {
  if (lead.status === 'delivered') {
    return { text: `Entregue como prospect ${lead.idProspect}.`, kind: 'ok' };
  }
  if (lead.status === 'queued') {
    return { text: 'Na fila: será enviado assim que o sistema da academia permitir.', kind: '' };
  }
  const label = LABELS[lead.status] ?? lead.status;
  return { text: `Situação: ${label}${lead.reason ? ` (${lead.reason})` : ''}`, kind: 'error' };
}
