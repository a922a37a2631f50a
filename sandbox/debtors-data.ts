/**
 * The sandbox's demo debtors: a pure, deterministic generator. The same (count, branches, seed,
 * now) always gives the same rows, byte for byte. Rows look like production's: upper-case
 * Brazilian names, zone-less local dates (`2026-07-10T00:00:00`), integer ids, `null` where
 * production sends `null`, and production's `daysLate` quirk (counted from `originalDueDate`
 * even when the charge was rescheduled to a later `dueDate`).
 *
 * Dates are relative to the calendar day of `now` in UTC, so the data set always looks current
 * and does not depend on the machine's time zone.
 */
import type { DebtStatusName, MemberStatusName } from '../functions/domain/debtors.ts';
import { roundMoney } from '../functions/domain/debtors.ts';

/** One demo row. A type alias (not an interface) so that it is assignable to the model's `Debtor`. */
export type DemoDebtor = {
  receivableId: number;
  receivableIdOrigin: number | null;
  memberId: number;
  name: string;
  branchId: number;
  branchName: string;
  idMemberMembership: number;
  memberStatus: MemberStatusName;
  debtStatus: DebtStatusName;
  dueDate: string;
  originalDueDate: string;
  chargeDate: string | null;
  registerDate: string;
  paymentDate: string | null;
  daysLate: number;
  debtAmount: number;
  paymentType: string | null;
  idPaymentType: number | null;
  paymentOrigin: string | null;
  chargeAttemptsCount: number;
  lastAcquirerDeclineReason: string | null;
  checkoutLink: string | null;
  checkoutLinkFullDebt: string | null;
};

export interface DemoDebtorsSettings {
  count: number;
  branches: readonly number[];
  seed: number;
}

export const DEFAULT_DEBTORS_SETTINGS: Readonly<DemoDebtorsSettings> = Object.freeze({
  count: 180,
  branches: Object.freeze([1, 2, 3]),
  seed: 42,
});

/** Upper bound of `count` accepted by the sandbox (`POST /_sandbox/debtors`). */
export const MAX_DEMO_DEBTORS = 20_000;

/** A small seeded PRNG (mulberry32): uniform floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NEIGHBOURHOODS = [
  'Centro',
  'Moema',
  'Savassi',
  'Boa Viagem',
  'Barra da Tijuca',
  'Batel',
  'Moinhos de Vento',
  'Asa Sul',
  'Pampulha',
  'Aldeota',
  'Pituba',
  'Jardins',
  'Tatuapé',
  'Copacabana',
  'Trindade',
  'Meireles',
] as const;

/** `Unidade Centro`, `Unidade Moema`... for ids 1..16, then `Unidade Centro 2` and so on. */
export function branchName(branchId: number): string {
  const index = Math.abs(branchId - 1) % NEIGHBOURHOODS.length;
  const round = Math.floor(Math.abs(branchId - 1) / NEIGHBOURHOODS.length) + 1;
  const base = `Unidade ${NEIGHBOURHOODS[index]}`;
  return round > 1 ? `${base} ${round}` : base;
}

const FEMALE_FIRST = [
  'MARIA',
  'ANA',
  'FRANCISCA',
  'ANTÔNIA',
  'ADRIANA',
  'JULIANA',
  'MÁRCIA',
  'FERNANDA',
  'PATRÍCIA',
  'ALINE',
  'SANDRA',
  'CAMILA',
  'AMANDA',
  'BRUNA',
  'JÉSSICA',
  'LETÍCIA',
  'JÚLIA',
  'LUCIANA',
  'VANESSA',
  'MARIANA',
  'GABRIELA',
  'BEATRIZ',
  'LARISSA',
  'CONCEIÇÃO',
  'SÔNIA',
  'CLÁUDIA',
  'RAFAELA',
  'TATIANE',
  'PRISCILA',
  'LÍVIA',
  'HELENA',
  'ISABELA',
] as const;
const MALE_FIRST = [
  'JOSÉ',
  'JOÃO',
  'ANTÔNIO',
  'FRANCISCO',
  'CARLOS',
  'PAULO',
  'PEDRO',
  'LUCAS',
  'LUIZ',
  'MARCOS',
  'LUÍS',
  'GABRIEL',
  'RAFAEL',
  'DANIEL',
  'MARCELO',
  'BRUNO',
  'EDUARDO',
  'FELIPE',
  'RODRIGO',
  'MATEUS',
  'ANDRÉ',
  'FERNANDO',
  'FÁBIO',
  'LEONARDO',
  'GUSTAVO',
  'GUILHERME',
  'THIAGO',
  'VINÍCIUS',
  'SÉRGIO',
  'ROGÉRIO',
  'CAUÃ',
] as const;
const FEMALE_MIDDLE = [
  'APARECIDA',
  'DE FÁTIMA',
  'DAS GRAÇAS',
  'CRISTINA',
  'EDUARDA',
  'LUIZA',
  'CAROLINA',
  'DA CONCEIÇÃO',
  'DE JESUS',
] as const;
const MALE_MIDDLE = ['HENRIQUE', 'AUGUSTO', 'CARLOS', 'EDUARDO', 'VITOR', 'MIGUEL', 'DE JESUS'];
const SURNAMES = [
  'SILVA',
  'SANTOS',
  'OLIVEIRA',
  'SOUZA',
  'RODRIGUES',
  'FERREIRA',
  'ALVES',
  'PEREIRA',
  'LIMA',
  'GOMES',
  'COSTA',
  'RIBEIRO',
  'MARTINS',
  'CARVALHO',
  'ALMEIDA',
  'LOPES',
  'SOUSA',
  'FERNANDES',
  'VIEIRA',
  'BARBOSA',
  'ROCHA',
  'DIAS',
  'NASCIMENTO',
  'ANDRADE',
  'MOREIRA',
  'NUNES',
  'MARQUES',
  'MACHADO',
  'MENDES',
  'FREITAS',
  'CARDOSO',
  'RAMOS',
  'GONÇALVES',
  'SANTANA',
  'TEIXEIRA',
  'ARAÚJO',
  'CONCEIÇÃO',
  'AZEVEDO',
  'FALCÃO',
  'GUIMARÃES',
  'SIMÕES',
  'LEÃO',
  'MAGALHÃES',
  'BRAGA',
] as const;
/** Particles production's upper-cased names carry before some surnames. */
const PARTICLE: Record<string, string> = {
  SILVA: 'DA',
  SANTOS: 'DOS',
  CONCEIÇÃO: 'DA',
  NASCIMENTO: 'DO',
};

/** Typical monthly plan prices. */
const PLAN_PRICES = [89.9, 99.9, 119.9, 129.9, 149.9, 169.9, 199.9, 249.9] as const;

const PAYMENT_TYPES = [
  { name: 'Cartão de crédito', id: 1, weight: 0.55 },
  { name: 'Boleto', id: 2, weight: 0.2 },
  { name: 'Pix', id: 3, weight: 0.15 },
  { name: null, id: null, weight: 0.1 },
] as const;
type PaymentType = (typeof PAYMENT_TYPES)[number];

const DECLINE_REASONS = [
  'Insufficient funds',
  'Expired card',
  'Do not honor',
  'Card blocked',
  'Transaction not permitted',
  'Invalid card number',
] as const;

const DAY_MS = 86_400_000;

class Random {
  readonly #next: () => number;
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  float(): number {
    return this.#next();
  }
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.#next() * (max - min + 1));
  }
  chance(probability: number): boolean {
    return this.#next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#next() * items.length)] as T;
  }
  weighted<T extends { weight: number }>(items: readonly T[]): T {
    let roll = this.#next();
    for (const item of items) {
      roll -= item.weight;
      if (roll < 0) return item;
    }
    return items[items.length - 1] as T;
  }
  hex(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += Math.floor(this.#next() * 16).toString(16);
    return out;
  }
}

const pad = (value: number, size = 2) => String(value).padStart(size, '0');

/** Production's zone-less format, `2026-07-10T00:00:00`, from the UTC fields of an epoch. */
export function formatLocalDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

function personName(random: Random): string {
  const female = random.chance(0.55);
  const parts: string[] = [random.pick(female ? FEMALE_FIRST : MALE_FIRST)];
  if (random.chance(0.35)) parts.push(random.pick(female ? FEMALE_MIDDLE : MALE_MIDDLE));
  const first = random.pick(SURNAMES);
  let second: string = random.pick(SURNAMES);
  if (second === first) second = SURNAMES[(SURNAMES.indexOf(first) + 7) % SURNAMES.length] ?? '';
  const withParticle = (surname: string) =>
    PARTICLE[surname] && random.chance(0.5) ? `${PARTICLE[surname]} ${surname}` : surname;
  parts.push(withParticle(first));
  if (random.chance(0.6)) parts.push(withParticle(second));
  return parts.join(' ');
}

function memberStatus(random: Random): MemberStatusName {
  const roll = random.float();
  if (roll < 0.7) return 'Active';
  if (roll < 0.9) return 'Inactive';
  return 'Freeze';
}

/** Whole days from `fromMs` to `toMs` (both at midnight). */
function daysBetween(fromMs: number, toMs: number): number {
  return Math.round((toMs - fromMs) / DAY_MS);
}

/**
 * Generates `count` demo debtors spread over `branches`, sorted like the sandbox serves them
 * (branchId, dueDate, receivableId). Members owe one to three receivables; ids are unique.
 */
export function generateDebtors(settings: DemoDebtorsSettings, now: Date): DemoDebtor[] {
  const random = new Random(settings.seed);
  const nowMs = now.getTime();
  const today = Number.isFinite(nowMs) ? nowMs - (((nowMs % DAY_MS) + DAY_MS) % DAY_MS) : 0;
  const branches = settings.branches.length ? settings.branches : DEFAULT_DEBTORS_SETTINGS.branches;
  const rows: DemoDebtor[] = [];

  let memberId = 10_000 + random.int(0, 500);
  let receivableId = 700_000 + random.int(0, 5_000);
  let membershipId = 50_000 + random.int(0, 2_000);

  while (rows.length < settings.count) {
    memberId += 1 + random.int(0, 37);
    membershipId += 1 + random.int(0, 20);
    const name = personName(random);
    const branchId = random.pick(branches);
    const status = memberStatus(random);
    const price = random.pick(PLAN_PRICES);
    const payment: PaymentType = random.weighted(PAYMENT_TYPES);
    const debts = random.chance(0.3) ? random.int(2, 3) : 1;
    // Most debts are weeks or months old; a few are years old (production shows 1,270 days).
    const oldestDaysAgo = random.chance(0.05) ? random.int(500, 1_300) : random.int(3, 420);

    for (let d = 0; d < debts && rows.length < settings.count; d += 1) {
      receivableId += 1 + random.int(0, 40);
      const daysAgo = Math.max(1, oldestDaysAgo - 30 * d);
      const originalDue = today - daysAgo * DAY_MS;
      const recovered = random.chance(status === 'Inactive' ? 0.1 : 0.22);
      const multiple = random.chance(0.08) ? random.int(2, 3) : 1;
      const debtAmount = roundMoney(price * multiple);
      const isCard = payment.name === 'Cartão de crédito';

      // A rescheduled card charge: dueDate moves on, originalDueDate (and daysLate) do not.
      let due = originalDue;
      if (!recovered && isCard && random.chance(0.25)) {
        due = Math.max(originalDue + DAY_MS, today + random.int(-5, 15) * DAY_MS);
      }

      let paymentDate: number | null = null;
      if (recovered) {
        const paidAfter = random.int(1, Math.max(1, Math.min(daysAgo, 90)));
        paymentDate = originalDue + paidAfter * DAY_MS + random.int(8 * 3600, 21 * 3600) * 1000;
      }
      const paymentDay = paymentDate === null ? null : paymentDate - (paymentDate % DAY_MS);

      let chargeDate: number | null;
      if (paymentDay !== null) chargeDate = paymentDay;
      else if (isCard) chargeDate = today - random.int(0, Math.min(daysAgo, 15)) * DAY_MS;
      else chargeDate = payment.name === null && random.chance(0.5) ? null : originalDue;

      const registerDate =
        originalDue - random.int(5, 35) * DAY_MS + random.int(7 * 3600, 22 * 3600) * 1000;
      const attempts = isCard
        ? recovered
          ? random.int(1, 3)
          : random.int(1, 8)
        : random.int(0, 1);
      const declineReason = isCard && !recovered ? random.pick(DECLINE_REASONS) : null;
      const idPaymentType = payment.id !== null && random.chance(0.85) ? payment.id : null;

      let paymentOrigin: string | null = null;
      if (recovered) {
        if (isCard)
          paymentOrigin = random.chance(0.6) ? 'Cobrança recorrente' : 'Link de pagamento';
        else if (payment.name === 'Boleto') paymentOrigin = 'Boleto bancário';
        else if (payment.name === 'Pix') paymentOrigin = 'Pix';
        else paymentOrigin = 'Recepção';
      }

      const receivableIdOrigin = random.chance(0.3)
        ? Math.max(1, receivableId - random.int(1_000, 90_000))
        : null;
      const linkToken = random.hex(12);
      const fullDebtToken = random.hex(12);

      rows.push({
        receivableId,
        receivableIdOrigin,
        memberId,
        name,
        branchId,
        branchName: branchName(branchId),
        idMemberMembership: membershipId,
        memberStatus: status,
        debtStatus: recovered ? 'Recovered' : 'Open',
        dueDate: formatLocalDateTime(due),
        originalDueDate: formatLocalDateTime(originalDue),
        chargeDate: chargeDate === null ? null : formatLocalDateTime(chargeDate),
        registerDate: formatLocalDateTime(registerDate),
        paymentDate: paymentDate === null ? null : formatLocalDateTime(paymentDate),
        // Production's quirk: counted from originalDueDate, never from a rescheduled dueDate.
        // A recovered debt stops counting on the day it was paid.
        daysLate: daysBetween(originalDue, paymentDay ?? today),
        debtAmount,
        paymentType: payment.name,
        idPaymentType,
        paymentOrigin,
        chargeAttemptsCount: attempts,
        lastAcquirerDeclineReason: declineReason,
        checkoutLink: recovered
          ? null
          : `https://checkout.sandbox.example/evo/r/${receivableId}?t=${linkToken}`,
        checkoutLinkFullDebt: recovered
          ? null
          : `https://checkout.sandbox.example/evo/m/${memberId}?t=${fullDebtToken}`,
      });
    }
  }

  return rows.sort(compareDebtors);
}

/** The order the sandbox serves rows in: branchId, dueDate, receivableId. */
export function compareDebtors(a: DemoDebtor, b: DemoDebtor): number {
  if (a.branchId !== b.branchId) return a.branchId - b.branchId;
  if (a.dueDate !== b.dueDate) return a.dueDate < b.dueDate ? -1 : 1;
  return a.receivableId - b.receivableId;
}
