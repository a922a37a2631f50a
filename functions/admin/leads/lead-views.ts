/**
 * How the console shows a lead's person: their name, e-mail and phone read from the Prospect it
 * became (or, before any mapping, from the answers as sent), the search over them, and the CSV
 * of leads for a sales team. Personal data: only the admin routes use this, never a log line.
 */
import type { PublicLeadStatus } from '../../domain/lead-lifecycle.ts';
import { leadReasonPt } from '../../domain/lead-reasons.ts';
import { localDateTime } from '../../domain/local-time.ts';
import { STATUS_LABELS } from '../../domain/status-labels.ts';
import { guardFormula } from '../../kernel/csv-cell.ts';
import type { LeadRecord } from '../../ledger/lead-ledger.ts';

/** A lead's person, as the console lists it. */
export interface Contact {
  name?: string;
  email?: string;
  phone?: string;
}

const EMAIL_KEY = /e-?mail/i;
const PHONE_KEY = /phone|fone|celular|whats|tel/i;
const NAME_KEY = /^(nome|name|full_?name|nome_?completo|first_?name)$/i;

function answer(lead: LeadRecord, pattern: RegExp): string | undefined {
  const found = lead.capture.answers.find((item) => pattern.test(item.key));
  if (!found) return undefined;
  return Array.isArray(found.value) ? found.value.join(', ') : (found.value as string);
}

/** The lead's person: the Prospect's fields first, then the answers. */
export function contactOf(lead: LeadRecord): Contact {
  const prospect = lead.prospect ?? lead.capture.prospect;
  const fullName = [prospect?.name, prospect?.lastName].filter(Boolean).join(' ');
  const phone = prospect?.cellphone
    ? `${prospect.ddi ? `+${prospect.ddi} ` : ''}${prospect.cellphone}`
    : undefined;
  const contact: Contact = {};
  const name = fullName || answer(lead, NAME_KEY);
  const email = prospect?.email ?? answer(lead, EMAIL_KEY);
  const typedPhone = phone ?? answer(lead, PHONE_KEY);
  if (name) contact.name = name;
  if (email) contact.email = email;
  if (typedPhone) contact.phone = typedPhone;
  return contact;
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Whether the lead matches what an operator typed: every word of it within the name, e-mail or
 * answers (accents and case ignored), or, for a phone number, its digits within a phone's.
 */
export function matchesSearch(lead: LeadRecord, query: string): boolean {
  const contact = contactOf(lead);
  const digits = query.replace(/\D/g, '');
  if (digits.length >= 4 && /^[\d\s()+.-]+$/.test(query)) {
    const phones = [
      contact.phone ?? '',
      ...lead.capture.answers
        .filter((item) => PHONE_KEY.test(item.key))
        .map((a) => String(a.value)),
    ];
    return phones.some((phone) => phone.replace(/\D/g, '').includes(digits));
  }
  const haystack = fold(
    [
      contact.name,
      contact.email,
      lead.leadId,
      ...lead.capture.answers.map((item) => String(item.value)),
    ].join(' '),
  );
  return fold(query)
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

/** A CSV cell: quoted, and a leading formula character neutralised (kernel/csv-cell.ts). */
function cell(value: string | number | undefined): string {
  const text = guardFormula(value === undefined ? '' : String(value));
  return `"${text.replaceAll('"', '""')}"`;
}

const CSV_HEADER = [
  'Recebido em',
  'Fuso horário',
  'Perfil',
  'Situação',
  'Motivo',
  'Nome',
  'E-mail',
  'Telefone',
  'Lead',
] as const;

/** A row of the leads CSV: the lead, its public status and its account's time zone. */
export interface CsvLead {
  lead: LeadRecord;
  status: PublicLeadStatus;
  timeZone: string;
}

/**
 * The leads as a CSV for a sales team (`;`-separated, UTF-8 with BOM: Excel in Portuguese), in
 * Portuguese: each time in its account's zone (`26/11/2026 08:41:47`, the zone in the next
 * column), the status as the console names it (`Parado`), the reason in Portuguese.
 */
export function leadsCsv(leads: readonly CsvLead[]): string {
  const rows = leads.map(({ lead, status, timeZone }) => {
    const contact = contactOf(lead);
    return [
      localDateTime(lead.receivedAt, timeZone),
      timeZone,
      lead.profile,
      STATUS_LABELS[status],
      lead.reason === undefined ? undefined : leadReasonPt(lead.reason),
      contact.name,
      contact.email,
      contact.phone,
      lead.leadId,
    ]
      .map(cell)
      .join(';');
  });
  return `\ufeff${[CSV_HEADER.map(cell).join(';'), ...rows].join('\r\n')}\r\n`;
}
