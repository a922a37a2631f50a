/**
 * The seed's Prospect resource, field for field, and its creation result.
 * Plain TypeScript + zod/mini: no AWS, no process.env. Used by the intake mapping, the
 * seed-shaped `POST /api/v1/prospects` route, the upstream client and the sandbox.
 */
import * as z from 'zod/mini';
import { externalId } from './json.ts';
import { listPt } from './portuguese-list.ts';

/** Every string field of the seed accepts `null` as production's ASP.NET binder does. */
const text = z.nullish(z.string());
const int = z.nullish(z.int());

export const financiallyResponsibleSchema = z.looseObject({
  idMember: int,
  name: text,
  email: text,
  cpf: text,
});

/**
 * The Prospect request body. Unknown fields are kept (production ignores them, and a client may
 * legitimately send newer fields such as address or `validateCpf`).
 */
export const prospectSchema = z.looseObject({
  name: text,
  lastName: text,
  email: text,
  idBranch: int,
  ddi: text,
  cellphone: text,
  /** ISO 8601 date-time, UTC. */
  birthday: text,
  gender: text,
  visit: int,
  marketingType: text,
  notes: text,
  currentStep: text,
  cpf: text,
  rg: text,
  /** The partner-program token (`tokenGympass` in production; see docs/upstream.md). */
  tokenPartner: text,
  additionalFieldName: text,
  additionalFieldValue: text,
  validateCpfDuplication: z.nullish(z.boolean()),
  temperature: int,
  financiallyResponsible: z.nullish(financiallyResponsibleSchema),
  interests: z.nullish(z.array(z.int())),
});

export type Prospect = z.infer<typeof prospectSchema>;
export type FinanciallyResponsible = z.infer<typeof financiallyResponsibleSchema>;

/**
 * Fields the production upstream's Portuguese documentation marks as required ("Sim"). The
 * English example only requires name and email, and the swagger marks everything optional; we
 * enforce the stricter set so that nothing we send can be refused for a missing field.
 * The sandbox refuses a body without them with 400, and intake parks a lead that lacks them.
 */
export const REQUIRED_PROSPECT_FIELDS = [
  'name',
  'lastName',
  'email',
  'idBranch',
  'cellphone',
] as const satisfies readonly (keyof Prospect)[];

/** Production's documented codes: M male, F female, P other. */
export const GENDER_CODES = ['M', 'F', 'P'] as const;
export type GenderCode = (typeof GENDER_CODES)[number];

/** Production's documented `visit` codes. */
export const VISIT_CODES = { personal: 1, email: 2, telephone: 3, other: 4 } as const;

/** `{"idProspect": n}`; some production versions answer the bare integer instead. */
export const prospectCreatedSchema = z.object({ idProspect: externalId });
export type ProspectCreated = z.infer<typeof prospectCreatedSchema>;

/** Names of required fields missing or blank in a prospect, in declaration order. */
export function missingRequiredFields(prospect: Prospect): string[] {
  return REQUIRED_PROSPECT_FIELDS.filter((field) => {
    const value = prospect[field];
    return value === undefined || value === null || (typeof value === 'string' && !value.trim());
  });
}

/**
 * Each Prospect field as the people who fix a lead know it (the console's form, a parked lead's
 * reason, the notes the gym's staff read): `cellphone` is the `celular`.
 */
export const PROSPECT_FIELD_LABELS: Readonly<Record<string, string>> = {
  name: 'nome',
  lastName: 'sobrenome',
  email: 'e-mail',
  idBranch: 'unidade',
  ddi: 'DDI',
  cellphone: 'celular',
  birthday: 'data de nascimento',
  gender: 'gênero',
  visit: 'visita',
  marketingType: 'origem',
  notes: 'observações',
  currentStep: 'etapa',
  cpf: 'CPF',
  rg: 'RG',
  tokenPartner: 'token do parceiro',
  additionalFieldName: 'nome do campo adicional',
  additionalFieldValue: 'valor do campo adicional',
  validateCpfDuplication: 'validar CPF duplicado',
  temperature: 'temperatura',
  financiallyResponsible: 'responsável financeiro',
  interests: 'interesses',
} satisfies Record<keyof typeof prospectSchema.shape, string>;

/** A Prospect field as people know it (PROSPECT_FIELD_LABELS); any other name as it is. */
export function fieldLabel(field: string): string {
  return (Object.hasOwn(PROSPECT_FIELD_LABELS, field) && PROSPECT_FIELD_LABELS[field]) || field;
}

/** What a lead with a phone and no e-mail may do: the profile's `emailPlaceholder`. */
export const EMAIL_PLACEHOLDER_HINT =
  'para leads só com telefone, o perfil pode ter "emailPlaceholder": "{phone}@sem-email.invalid" (docs/configuration.md)';

/**
 * Why a lead that lacks required fields is parked, the fields as people know them:
 * `falta o campo obrigatório celular`, `faltam os campos obrigatórios sobrenome e celular`; a
 * lead that has a phone but no e-mail is told of the profile's `emailPlaceholder`.
 */
export function missingFieldsReason(missing: readonly string[]): string {
  const fields = listPt(missing.map(fieldLabel));
  const reason =
    missing.length === 1
      ? `falta o campo obrigatório ${fields}`
      : `faltam os campos obrigatórios ${fields}`;
  const phoneOnly = missing.includes('email') && !missing.includes('cellphone');
  return phoneOnly ? `${reason}; ${EMAIL_PLACEHOLDER_HINT}` : reason;
}
