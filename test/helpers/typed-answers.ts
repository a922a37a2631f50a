/**
 * Answers people type into forms, as fast-check arbitraries, and how to tell whether one reached
 * the Prospect: the property "no answer the person gave is lost" (test/domain/
 * map-lead.property.test.ts) and the same property through each source's own payload
 * (test/sources/*.property.test.ts) share them.
 */
import fc from 'fast-check';
import type { AnswerType, LeadAnswer } from '../../functions/domain/lead.ts';
import { cpfCheckDigits, normalizeCpf } from '../../functions/domain/normalize/cpf.ts';
import { readTypedBirthday } from '../../functions/domain/normalize/date.ts';
import { normalizeEmail } from '../../functions/domain/normalize/email.ts';
import { normalizeGender } from '../../functions/domain/normalize/gender.ts';
import { normalizePhone } from '../../functions/domain/normalize/phone.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
import { isMetadataKey } from '../../functions/domain/recognise-field.ts';

export type Kind = 'text' | 'email' | 'phone' | 'name' | 'cpf' | 'birthday' | 'gender';

export interface Typed {
  kind: Kind;
  answer: LeadAnswer;
}

export const letters = (min: number, max: number) =>
  fc.stringMatching(new RegExp(`^[a-z]{${min},${max}}$`));

const keyOf = (keys: readonly string[], type?: AnswerType) =>
  fc.oneof(
    fc.constantFrom(...keys).map((key) => ({ key })),
    // Typeform's random refs, titled, with the declared type when the platform has one
    fc
      .tuple(fc.uuid(), fc.constantFrom(...keys))
      .map(([key, label]) => ({ key, label, ...(type && { type }) })),
  );

const email = fc
  .tuple(letters(3, 8), letters(3, 8), fc.constantFrom('com', 'com.br', 'net'))
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const badEmail = fc
  .tuple(letters(3, 8), letters(3, 8))
  .map(([local, domain]) => `${local} arroba ${domain}`);
const phone = fc
  .tuple(
    fc.constantFrom('11', '21', '31', '41', '48', '51', '61', '71', '81', '92'),
    fc.stringMatching(/^[0-9]{8}$/).filter((s) => new Set(s).size > 2),
    fc.constantFrom('plain', 'masked', 'e164'),
  )
  .map(([ddd, rest, style]) =>
    style === 'plain'
      ? `${ddd}9${rest}`
      : style === 'masked'
        ? `(${ddd}) 9${rest.slice(0, 4)}-${rest.slice(4)}`
        : `+55${ddd}9${rest}`,
  );
const badPhone = fc.constantFrom('1234567890', '(11) 99999-9999', '12345', 'não tenho');
const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Elisa', 'Fábio', 'Gisele', 'Heitor', 'Íris'];
const LAST = ['Souza', 'Lima', 'Araújo', 'Pereira', 'Gonçalves', 'Nunes', 'Barros'];
const fullName = fc
  .tuple(fc.constantFrom(...FIRST), fc.array(fc.constantFrom(...LAST), { maxLength: 2 }))
  .map(([first, rest]) => [first, ...rest].join(' '));
const cpf = fc
  .stringMatching(/^[0-9]{9}$/)
  .filter((nine) => new Set(nine).size > 1)
  .map((nine) => `${nine}${cpfCheckDigits(nine)}`);
const date = fc
  .tuple(
    fc.integer({ min: 1, max: 28 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1950, max: 2005 }),
  )
  .map(([d, m, y]) => `${String(d).padStart(2, '0')}/${String(m).padStart(2, '0')}/${y}`);
const freeText = fc.tuple(letters(4, 9), letters(4, 9)).map(([a, b]) => `resposta ${a} ${b}`);

export const typedAnswer: fc.Arbitrary<Typed> = fc.oneof(
  fc
    .tuple(
      keyOf(
        ['email', 'E-mail', 'Seu melhor e-mail', 'your-email', 'Email 2', 'lead[email]'],
        'email',
      ),
      fc.oneof({ weight: 4, arbitrary: email }, { weight: 1, arbitrary: badEmail }),
    )
    .map(([key, value]) => ({ kind: 'email' as const, answer: { ...key, value } })),
  fc
    .tuple(
      keyOf(
        [
          'celular',
          'WhatsApp (com DDD)',
          'Telefone (WhatsApp)',
          'your-phone',
          'qual_é_o_seu_whatsapp?',
        ],
        'phone',
      ),
      fc.oneof({ weight: 4, arbitrary: phone }, { weight: 1, arbitrary: badPhone }),
    )
    .map(([key, value]) => ({ kind: 'phone' as const, answer: { ...key, value } })),
  fc
    .tuple(
      keyOf(['nome', 'Nome completo', 'your-name', 'Qual é o seu nome?', 'Sobrenome']),
      fullName,
    )
    .map(([key, value]) => ({ kind: 'name' as const, answer: { ...key, value } })),
  fc
    .tuple(keyOf(['cpf', 'Qual o seu CPF?']), fc.oneof(cpf, fc.constantFrom('123.456.789-00')))
    .map(([key, value]) => ({ kind: 'cpf' as const, answer: { ...key, value } })),
  fc
    .tuple(
      keyOf(['Data de nascimento', 'nascimento']),
      fc.oneof(date, fc.constantFrom('31/02/1990')),
    )
    .map(([key, value]) => ({ kind: 'birthday' as const, answer: { ...key, value } })),
  fc
    .tuple(
      keyOf(['sexo', 'Gênero']),
      fc.constantFrom('Feminino', 'masculino', 'não binário', 'talvez'),
    )
    .map(([key, value]) => ({ kind: 'gender' as const, answer: { ...key, value } })),
  fc
    .tuple(
      fc.oneof(
        fc.constantFrom(
          'Qual seu objetivo?',
          'Unidade',
          'Mensagem',
          'Nome da empresa',
          'Telefone da mãe',
        ),
        letters(3, 12),
      ),
      freeText,
    )
    .filter(([key]) => !isMetadataKey(key))
    .map(([key, value]) => ({ kind: 'text' as const, answer: { key, value } })),
);

export const fold = (text: string) =>
  text.normalize('NFC').toLocaleLowerCase('pt-BR').split(/\s+/u).join(' ');
export const text = (answer: LeadAnswer) => (typeof answer.value === 'string' ? answer.value : '');

/** The Prospect fields a typed answer may have filled, computed with the normalisers. */
export function filledBy(typed: Typed, prospect: Prospect): boolean {
  const value = text(typed.answer);
  switch (typed.kind) {
    case 'email': {
      const result = normalizeEmail(value);
      return 'email' in result && result.email === prospect.email;
    }
    case 'phone': {
      const result = normalizePhone(value);
      return !('error' in result) && result.cellphone === prospect.cellphone;
    }
    case 'cpf': {
      const result = normalizeCpf(value);
      return 'cpf' in result && result.cpf === prospect.cpf;
    }
    case 'birthday':
      return (['DMY', 'MDY'] as const).some((order) => {
        const result = readTypedBirthday(value, { order });
        return 'birthday' in result && result.birthday === prospect.birthday;
      });
    case 'gender':
      return normalizeGender(value) !== undefined && normalizeGender(value) === prospect.gender;
    default: {
      // A name, or a free-text answer whose random key happens to name the name (`name`, `nome`).
      const person = fold(`${prospect.name ?? ''} ${prospect.lastName ?? ''}`);
      return ` ${person} `.includes(` ${fold(value)} `);
    }
  }
}
