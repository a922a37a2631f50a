import { describe, expect, it } from 'vitest';
import type { AnswerType, LeadAnswer } from '../../functions/domain/lead.ts';
import {
  CONFIDENT,
  fieldWords,
  isMetadataKey,
  type PersonField,
  recogniseField,
} from '../../functions/domain/recognise-field.ts';

/** An answer as a source hands it over. */
function answer(
  key: string,
  value: string,
  more: { label?: string; type?: AnswerType } = {},
): LeadAnswer {
  return { key, value, ...more };
}

describe('recogniseField: keys and labels people and platforms write', () => {
  it.each<[string, string, PersonField]>([
    // Brazilian landing pages
    ['Seu melhor e-mail', 'ana@exemplo.com.br', 'email'],
    ['Celular/WhatsApp com DDD', '(11) 98765-4321', 'phone'],
    ['Telefone (WhatsApp)', '(11) 98765-4321', 'phone'],
    ['WhatsApp (com DDD)', '11987654321', 'phone'],
    ['Data de nascimento', '05/03/1992', 'birthday'],
    ['Data de Nasc.', '05/03/1992', 'birthday'],
    ['Nome e sobrenome', 'Ana Souza', 'fullName'],
    ['Qual é o seu nome completo?', 'Ana Souza', 'fullName'],
    ['Nome do aluno', 'Ana Souza', 'fullName'],
    ['Primeiro nome', 'Ana', 'firstName'],
    ['Sobrenome', 'Souza', 'lastName'],
    ['Gênero', 'Feminino', 'gender'],
    ['Qual o seu CPF?', '529.982.247-25', 'cpf'],
    // Webflow's auto-named duplicates, Contact Form 7's defaults, Jotform's ids
    ['Email 2', 'ana@exemplo.com', 'email'],
    ['your-name', 'Ana Souza', 'fullName'],
    ['your-email', 'ana@exemplo.com', 'email'],
    ['your-phone', '11987654321', 'phone'],
    ['q3_nome', 'Ana Souza', 'fullName'],
    // Meta custom questions keyed by their text
    ['qual_é_o_seu_whatsapp?', '+5511987654321', 'phone'],
    ['qual_o_seu_e-mail_principal?', 'ana@exemplo.com', 'email'],
    // English, camelCase, RD Station's cf_ prefix
    ['First and last name', 'Ana Souza', 'fullName'],
    ['firstName', 'Ana', 'firstName'],
    ['phoneNumber', '11987654321', 'phone'],
    ['cf_whatsapp', '48991234567', 'phone'],
  ])('reads %j as %s', (key, value, field) => {
    // Act
    const recognition = recogniseField(answer(key, value));

    // Assess
    expect(recognition?.field).toBe(field);
    expect(recognition?.confidence).toBeGreaterThanOrEqual(CONFIDENT);
  });

  it.each([
    ['Nome da empresa', 'Academia Exemplo'],
    ['Nome do responsável', 'Ana Souza'],
    ['Telefone da mãe', '11987654321'],
    ['E-mail de quem indicou', 'amigo@exemplo.com'],
    ['Aceito receber mensagens no WhatsApp', 'Sim'],
    ['Como prefere ser contatado?', 'WhatsApp'],
    ['Melhor horário para contato', 'Manhã'],
    ['Unidade', 'Paulista'],
    ['Qual seu objetivo?', 'Emagrecer'],
    ['Cidade', 'São Paulo'],
    ['Seu Instagram', '@ana'],
    ['Código de verificação do WhatsApp', '123456'],
  ])('recognises nothing in %j: it belongs in the notes', (key, value) => {
    expect(recogniseField(answer(key, value))).toBeUndefined();
  });

  it('reads a nested JSON path by its last part, with brackets or dots alike', () => {
    // Prepare: Make, Zapier custom requests, Hotmart
    const paths = ['lead[email]', 'lead.email', 'lead__email', 'fields[email][value]'];

    // Act
    const fields = paths.map((key) => recogniseField(answer(key, 'ana@exemplo.com'))?.field);

    // Assess
    expect(fields).toEqual(['email', 'email', 'email', 'email']);
    expect(recogniseField(answer('contacts[0][phone]', '11987654321'))?.field).toBe('phone');
    expect(recogniseField(answer('data.buyer.name', 'Ana Souza'))?.field).toBe('fullName');
  });

  it('does not take the name of a company, a product or a page for the person’s', () => {
    for (const key of ['company[name]', 'product.name', 'page[name]', 'empresa.nome']) {
      expect(recogniseField(answer(key, 'Academia Exemplo')), key).toBeUndefined();
    }
  });

  it('lowers the confidence of a second-choice phone, so that the main one wins', () => {
    // Act
    const landline = recogniseField(answer('Telefone fixo', '1133334444'));
    const mobile = recogniseField(answer('Celular', '11987654321'));

    // Assess
    expect(landline?.field).toBe('phone');
    expect(mobile?.field).toBe('phone');
    expect(landline?.confidence ?? 1).toBeLessThan(mobile?.confidence ?? 0);
  });

  it('lets the label decide when the key is a generated id (Typeform UUID refs, Elementor ids)', () => {
    // Act
    const name = recogniseField(
      answer('0b8c2c1e-6a0b-4f5e-9f0a-3c2d1e0f9a8b', 'Ana Souza', { label: 'Qual é o seu nome?' }),
    );
    const phone = recogniseField(answer('field_6f8642e', '(11) 98765-4321', { label: 'WhatsApp' }));

    // Assess
    expect(name).toMatchObject({ field: 'fullName', by: 'label' });
    expect(phone).toMatchObject({ field: 'phone', by: 'label' });
  });

  it('prefers the label, which the person read, when key and label disagree', () => {
    const recognition = recogniseField(
      answer('email', '(11) 98765-4321', { label: 'WhatsApp com DDD' }),
    );
    expect(recognition?.field).toBe('phone');
  });

  it('reads the date order a question states', () => {
    expect(recogniseField(answer('Data de nascimento (dd/mm/aaaa)', '05/03/1992'))?.dateOrder).toBe(
      'DMY',
    );
    expect(recogniseField(answer('Birth date (mm/dd/yyyy)', '05/03/1992'))?.dateOrder).toBe('MDY');
    expect(recogniseField(answer('Data de nascimento', '05/03/1992'))?.dateOrder).toBeUndefined();
  });
});

describe('recogniseField: the type a platform declares', () => {
  it('takes a declared e-mail or phone question as such whatever its key', () => {
    // Prepare: Typeform's default refs are random
    const ref = '7c1e0f2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b';

    // Act
    const email = recogniseField(answer(ref, 'ana@exemplo.com', { type: 'email' }));
    const phone = recogniseField(answer(ref, '+5511987654321', { type: 'phone' }));

    // Assess
    expect(email).toMatchObject({ field: 'email', by: 'type' });
    expect(phone).toMatchObject({ field: 'phone', by: 'type' });
    expect(email?.confidence).toBeGreaterThan(
      recogniseField(answer('Seu melhor e-mail', 'ana@exemplo.com'))?.confidence ?? 1,
    );
  });

  it('takes a declared e-mail about someone else with little confidence', () => {
    const recognition = recogniseField(
      answer('field_1', 'mae@exemplo.com', { type: 'email', label: 'E-mail do responsável' }),
    );
    expect(recognition?.field).toBe('email');
    expect(recognition?.confidence).toBeLessThan(CONFIDENT);
  });

  it('takes a declared date as a birthday only when its key or label says so', () => {
    expect(
      recogniseField(
        answer('inicio', '2025-06-01', { type: 'date', label: 'Quando quer começar?' }),
      ),
    ).toBeUndefined();
    expect(
      recogniseField(answer('nasc', '1992-03-05', { type: 'date', label: 'Data de nascimento' }))
        ?.field,
    ).toBe('birthday');
  });

  it('takes a declared choice as a gender only when its key or label says so', () => {
    expect(recogniseField(answer('x', 'Feminino', { type: 'choice', label: 'Sexo' }))?.field).toBe(
      'gender',
    );
    expect(
      recogniseField(answer('x', 'Manhã', { type: 'choice', label: 'Melhor período' })),
    ).toBeUndefined();
  });
});

describe('recogniseField: the value, when the key and label say nothing', () => {
  it('finds an e-mail or a Brazilian phone behind an opaque key (Gravity Forms field ids)', () => {
    expect(recogniseField(answer('2', 'ana@exemplo.com'))).toMatchObject({
      field: 'email',
      by: 'value',
    });
    expect(recogniseField(answer('3', '(11) 98765-4321'))).toMatchObject({
      field: 'phone',
      by: 'value',
    });
  });

  it('finds nothing in a name, a CPF or a placeholder phone behind an opaque key', () => {
    expect(recogniseField(answer('1.3', 'Ana'))).toBeUndefined();
    expect(recogniseField(answer('4', '52998224725'))).toBeUndefined();
    expect(recogniseField(answer('5', '1234567890'))).toBeUndefined();
  });

  it('lets the value choose when a question names two fields', () => {
    const key = 'E-mail ou WhatsApp';
    expect(recogniseField(answer(key, 'ana@exemplo.com'))?.field).toBe('email');
    expect(recogniseField(answer(key, '11 98765-4321'))?.field).toBe('phone');
    expect(recogniseField(answer(key, 'tanto faz'))).toBeUndefined();
  });
});

describe('isMetadataKey', () => {
  it.each([
    'ip',
    'user_agent',
    'date_created',
    'is_read',
    'is_starred',
    'id',
    'form_id',
    'post_id',
    '_wpcf7',
    '_wpcf7_unit_tag',
    'g-recaptcha-response',
    'entry[user_agent]',
    'Remote IP',
    // A CRM webhook's envelope: the record before the change, the webhook's own metadata.
    'previous[name]',
    'previous[phone][0][value]',
    'meta[webhook_id]',
    'meta.host',
    'current[owner_id]',
    'live_chat_url',
  ])('%j is metadata nobody typed', (key) => {
    expect(isMetadataKey(key)).toBe(true);
  });

  it.each(['email', 'nome', 'Data de nascimento', 'idade', 'ideal', 'status_civil', 'meta'])(
    '%j is not metadata',
    (key) => {
      expect(isMetadataKey(key)).toBe(false);
    },
  );
});

describe('fieldWords', () => {
  it('folds accents, case, punctuation and camelCase into words', () => {
    expect(fieldWords('Qual é o seu WhatsApp?')).toEqual(['qual', 'e', 'o', 'seu', 'whats', 'app']);
    expect(fieldWords('firstName')).toEqual(['first', 'name']);
    expect(fieldWords('E-MAIL')).toEqual(['e', 'mail']);
  });
});
