/**
 * "Cobrar" on the dashboard's list (dashboard-list.ts): what a gym's desk sends a member who
 * owes. For one member's open debts it gives the pay-now link(s), the Portuguese message, and
 * the WhatsApp link that opens a chat with that message ready to send. Pure: the page is built
 * with them, nothing is logged, nothing leaves the browser until the person sends it.
 *
 * - The link: the upstream's `checkoutLinkFullDebt` (one link for everything the member owes)
 *   when a debt carries one, else each open debt's own `checkoutLink`. Only `http(s)` links.
 * - The message: "Olá Maria, tudo bem? Aqui é da Unidade Moema. Identificamos 2 pagamentos em
 *   aberto no total de R$ 239,80. Você pode regularizar por este link: https://...". The first
 *   name as people write it (`MARIA APARECIDA` → `Maria`), the branch the debts are from.
 * - WhatsApp: `https://wa.me/<phone>?text=<message>` when a row carries the member's phone,
 *   else `https://wa.me/?text=<message>` (WhatsApp asks whom to send it to). The upstream's
 *   debtors list has no phone field today; a row that carries one (`cellphone`, `mobile`,
 *   `celular`, `phone` or `telefone`, with `ddi` when given) is used, in international digits
 *   (Brazil's 55 added to a 10- or 11-digit number).
 */
import { isStatus } from '../../domain/debtors.ts';
import { formatMoney } from './dashboard-format.ts';
import type { ReportRow } from './report-json.ts';

/** What "Cobrar" offers for one member. */
export interface MemberCharge {
  /** The pay-now links: one (the whole debt) or one per open debt. */
  links: string[];
  /** Open debts and their total, as the message says them. */
  openCount: number;
  openAmount: number;
  /** The message, ready to send. */
  message: string;
  /** `https://wa.me/...?text=...`: a chat with the message typed in. */
  whatsapp: string;
  /** The member's phone in international digits, when a row carries it. */
  phone?: string;
}

export const isWebLink = (link: unknown): link is string =>
  typeof link === 'string' && /^https?:\/\/\S+$/i.test(link.trim());

/** Fields a row may carry the member's phone in, in the order they are tried. */
export const PHONE_FIELDS = ['cellphone', 'mobile', 'celular', 'phone', 'telefone'] as const;

/** `(11) 98765-4321` → `5511987654321`; undefined when it cannot be a phone number. */
export function internationalPhone(value: unknown, ddi?: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const digits = String(value).replace(/\D/g, '').replace(/^0+/, '');
  const country = String(ddi ?? '').replace(/\D/g, '');
  if (digits.length < 8 || digits.length > 15) return undefined;
  if (country && !digits.startsWith(country)) return `${country}${digits}`;
  if (country) return digits;
  if (digits.length === 10 || digits.length === 11) return `55${digits}`;
  if ((digits.length === 12 || digits.length === 13) && digits.startsWith('55')) return digits;
  return undefined;
}

/** The first phone a member's rows carry (PHONE_FIELDS), in international digits. */
export function memberPhone(rows: readonly ReportRow[]): string | undefined {
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    for (const field of PHONE_FIELDS) {
      const phone = Object.hasOwn(record, field)
        ? internationalPhone(record[field], record.ddi)
        : undefined;
      if (phone) return phone;
    }
  }
  return undefined;
}

/** `MARIA APARECIDA DA SILVA` → `Maria`; `''` without a name. */
export function firstName(name: string | null | undefined): string {
  const [first = ''] = (name ?? '').trim().split(/\s+/);
  const lower = first.toLocaleLowerCase('pt-BR');
  return lower.charAt(0).toLocaleUpperCase('pt-BR') + lower.slice(1);
}

/** The message the member gets (see the module comment). */
export function chargeMessage(input: {
  name: string | null | undefined;
  branch: string;
  openCount: number;
  openAmount: number;
  links: readonly string[];
}): string {
  const first = firstName(input.name);
  const hello = first ? `Olá ${first}, tudo bem?` : 'Olá, tudo bem?';
  const from = input.branch ? `Aqui é da ${input.branch}.` : 'Aqui é da academia.';
  const payments = input.openCount === 1 ? 'pagamento' : 'pagamentos';
  // As pt-BR writes it: `R$`, a no-break space (the amount never breaks off its R$), `359,70`.
  const total = formatMoney(input.openAmount);
  const found = `Identificamos ${input.openCount} ${payments} em aberto no total de ${total}.`;
  const pay =
    input.links.length === 1
      ? `Você pode regularizar por este link: ${input.links[0]}`
      : `Você pode regularizar por estes links:\n${input.links.join('\n')}`;
  return `${hello} ${from} ${found} ${pay}`;
}

/** `https://wa.me/<phone>?text=...`, or `https://wa.me/?text=...` without a phone. */
export function whatsappLink(message: string, phone?: string): string {
  return `https://wa.me/${phone ?? ''}?text=${encodeURIComponent(message)}`;
}

/**
 * What "Cobrar" offers for a member whose listed debts are `rows` (in the list's order), from
 * the branch `branch`; undefined when none is open or no open one has a pay-now link.
 */
export function memberCharge(rows: readonly ReportRow[], branch: string): MemberCharge | undefined {
  const open = rows.filter((row) => isStatus(row.debtStatus, 'Open'));
  const whole = open.map((row) => row.checkoutLinkFullDebt).find(isWebLink);
  const links = whole
    ? [whole.trim()]
    : [...new Set(open.map((row) => row.checkoutLink).filter(isWebLink))].map((l) => l.trim());
  if (links.length === 0) return undefined;
  const cents = open.reduce((sum, row) => sum + Math.round((row.debtAmount ?? 0) * 100), 0);
  const openAmount = cents / 100;
  const name = open[0]?.name;
  const message = chargeMessage({ name, branch, openCount: open.length, openAmount, links });
  const phone = memberPhone(rows);
  return {
    links,
    openCount: open.length,
    openAmount,
    message,
    whatsapp: whatsappLink(message, phone),
    ...(phone && { phone }),
  };
}
