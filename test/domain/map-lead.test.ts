import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { type MappingProfile, mapLeadToProspect } from '../../functions/domain/map-lead.ts';
import { sourceLabel } from '../../functions/sources/registry.ts';

/** The domain's mapping with the label the registry gives the capture's source. */
const mapLead = (capture: LeadCapture, profile: MappingProfile) =>
  mapLeadToProspect(capture, profile, sourceLabel(capture.source));

const capture = (over: Partial<LeadCapture>): LeadCapture => ({
  source: 'form',
  dedupKey: 'hash:x',
  isTest: false,
  answers: [],
  attribution: {},
  ...over,
});

describe('mapLeadToProspect', () => {
  it('maps a Brazilian landing-page form field by field', () => {
    const { prospect, missing, warnings } = mapLead(
      capture({
        answers: [
          { key: 'nome', value: 'MARIA DA SILVA SOUZA' },
          { key: 'E-mail', value: '  Maria.Souza@Example.COM ' },
          { key: 'celular', value: '(11) 98765-4321' },
          { key: 'qual_seu_cpf', value: '529.982.247-25' },
          { key: 'Data de nascimento', value: '12/05/1990' },
          { key: 'sexo', value: 'Feminino' },
          { key: 'Qual seu objetivo?', value: ['Emagrecer', 'Condicionamento'] },
        ],
        attribution: { utm_source: 'google', utm_campaign: 'verao', gclid: 'Cj0KCQ' },
      }),
      { defaults: { idBranch: 1, marketingType: 'Site' }, fieldMap: { qual_seu_cpf: 'cpf' } },
    );
    expect(missing).toEqual([]);
    expect(warnings).toEqual([]);
    expect(prospect).toMatchObject({
      name: 'Maria',
      lastName: 'da Silva Souza',
      email: 'maria.souza@example.com',
      ddi: '55',
      cellphone: '11987654321',
      cpf: '52998224725',
      birthday: '1990-05-12T00:00:00.000Z',
      gender: 'F',
      idBranch: 1,
      marketingType: 'Site',
    });
    expect(prospect.notes).toContain('Qual seu objetivo?: Emagrecer, Condicionamento');
    expect(prospect.notes).toContain('Origem: utm_source=google; utm_campaign=verao; gclid=Cj0KCQ');
  });

  it('keeps an invalid CPF out of the prospect and explains it in notes', () => {
    const { prospect, warnings } = mapLead(
      capture({ answers: [{ key: 'cpf', value: '123.456.789-00' }] }),
      {},
    );
    expect(prospect.cpf).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(prospect.notes).toContain('CPF não utilizado');
    expect(prospect.notes).toContain('123.456.789-00');
  });

  it('lets the lead win over forms.<id>, and forms.<id> over defaults', () => {
    const profile = {
      defaults: { idBranch: 2, marketingType: 'Meta', temperature: 3 },
      forms: { '1234567890': { idBranch: 3 } },
    };
    const viaForm = mapLead(capture({ formId: '1234567890' }), profile).prospect;
    expect(viaForm).toMatchObject({ idBranch: 3, marketingType: 'Meta', temperature: 3 });
    const own = mapLead(
      capture({ formId: '1234567890', answers: [{ key: 'idBranch', value: '7' }] }),
      profile,
    ).prospect;
    expect(own.idBranch).toBe(7);
  });

  it('derives marketingType from utm_source, then from the platform', () => {
    expect(
      mapLead(capture({ attribution: { utm_source: 'instagram' } }), {}).prospect.marketingType,
    ).toBe('instagram');
    expect(mapLead(capture({ source: 'google' }), {}).prospect.marketingType).toBe('Google Ads');
  });

  it('reports the required fields a lead lacks, so it can be parked', () => {
    const { missing } = mapLead(capture({ answers: [{ key: 'sobrenome', value: 'Souza' }] }), {
      defaults: { idBranch: 1 },
    });
    expect(missing).toEqual(['name', 'email', 'cellphone']);
  });

  it('uses first_name and last_name when the source splits them', () => {
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'FIRST_NAME', value: 'joão' },
          { key: 'LAST_NAME', value: 'conceição' },
        ],
      }),
      {},
    );
    expect(prospect).toMatchObject({ name: 'João', lastName: 'Conceição' });
  });

  it('passes a seed-shaped Prospect through, filling only what it lacks', () => {
    const { prospect } = mapLead(
      capture({ source: 'prospect', prospect: { name: 'Ana', idBranch: 9, notes: 'VIP' } }),
      { defaults: { idBranch: 1, visit: 4 } },
    );
    expect(prospect).toMatchObject({ name: 'Ana', idBranch: 9, visit: 4 });
    expect(prospect.notes?.startsWith('VIP')).toBe(true);
  });

  it("reads RD Station's cf_ custom fields and common CPF question keys", () => {
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'cf_celular', value: '48 99999-8888' },
          { key: 'cf_data_de_nascimento', value: '01/02/1985' },
          { key: 'qual_o_seu_cpf?', value: '529.982.247-25' },
        ],
      }),
      {},
    );
    expect(prospect).toMatchObject({
      cellphone: '48999998888',
      birthday: '1985-02-01T00:00:00.000Z',
      cpf: '52998224725',
    });
  });

  it('ignores fieldMap targets it does not know, keeping the answer in notes', () => {
    const { prospect } = mapLead(
      capture({ answers: [{ key: 'observacao', value: '11987654321' }] }),
      { fieldMap: { observacao: 'telefoneX' } },
    );
    expect(prospect.cellphone).toBeUndefined();
    expect(prospect.notes).toContain('observacao: 11987654321');
  });
});

describe('mapLeadToProspect: fields recognised by type and meaning', () => {
  it('maps the phrasings of Brazilian landing pages field by field', () => {
    // Act
    const { prospect, missing, warnings } = mapLead(
      capture({
        answers: [
          { key: 'Qual é o seu nome completo?', value: 'Ana Paula de Souza' },
          { key: 'Seu melhor e-mail', value: 'Ana.Souza@Exemplo.com.br' },
          { key: 'Celular/WhatsApp com DDD', value: '(21) 99876-5432' },
          { key: 'Data de nascimento (dd/mm/aaaa)', value: '05/03/1992' },
          { key: 'Gênero', value: 'feminino' },
          { key: 'Qual seu objetivo?', value: 'Hipertrofia' },
        ],
      }),
      { defaults: { idBranch: 1 } },
    );

    // Assess: the question states its date format, so 05/03 is 5 March, with nothing to flag.
    expect(missing).toEqual([]);
    expect(warnings).toEqual([]);
    expect(prospect).toMatchObject({
      name: 'Ana Paula',
      lastName: 'de Souza',
      email: 'ana.souza@exemplo.com.br',
      ddi: '55',
      cellphone: '21998765432',
      birthday: '1992-03-05T00:00:00.000Z',
      gender: 'F',
    });
    expect(prospect.notes).toBe('Lead recebido via Site.\n\nQual seu objetivo?: Hipertrofia');
  });

  it('recognises Typeform answers with random refs by their declared type and title', () => {
    const { prospect, missing } = mapLead(
      capture({
        source: 'typeform',
        answers: [
          {
            key: '3f9a1c2e-8b7d-4e6f-a5b4-c3d2e1f0a9b8',
            label: 'Qual é o seu nome?',
            type: 'text',
            value: 'Bruno Carvalho',
          },
          {
            key: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
            label: 'Para onde enviamos o convite?',
            type: 'email',
            value: 'bruno@exemplo.com',
          },
          {
            key: '9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b',
            label: 'Onde falamos com você?',
            type: 'phone',
            value: '+5531988776655',
          },
        ],
      }),
      { defaults: { idBranch: 1 } },
    );
    expect(missing).toEqual([]);
    expect(prospect).toMatchObject({
      name: 'Bruno',
      lastName: 'Carvalho',
      email: 'bruno@exemplo.com',
      cellphone: '31988776655',
    });
  });

  it('delivers a one-word name with the stand-in last name, and says so in the notes', () => {
    // Act
    const answers = [
      { key: 'Nome', value: 'Shara' },
      { key: 'E-mail', value: 'shara@exemplo.com' },
      { key: 'WhatsApp', value: '(41) 99123-4567' },
    ];
    const byDefault = mapLead(capture({ answers }), { defaults: { idBranch: 1 } });
    const chosen = mapLead(capture({ answers }), {
      defaults: { idBranch: 1 },
      lastNameStandIn: 'Sobrenome não informado',
    });

    // Assess
    expect(byDefault.missing).toEqual([]);
    expect(byDefault.prospect).toMatchObject({ name: 'Shara', lastName: '(não informado)' });
    expect(byDefault.notices).toEqual(['Sobrenome não informado; usado "(não informado)".']);
    expect(byDefault.prospect.notes).toContain(
      'Avisos:\n- Sobrenome não informado; usado "(não informado)".',
    );
    expect(chosen.prospect.lastName).toBe('Sobrenome não informado');
  });

  it('still parks a Prospect API body without lastName: the client chose its fields', () => {
    const { missing } = mapLead(
      capture({ source: 'prospect', prospect: { name: 'Ana', email: 'a@exemplo.com' } }),
      {},
    );
    expect(missing).toContain('lastName');
  });

  it('reads Nome + Sobrenome forms, whether Nome holds the first name or the full name', () => {
    const split = mapLead(
      capture({
        answers: [
          { key: 'Nome', value: 'ana paula' },
          { key: 'Sobrenome', value: 'souza' },
        ],
      }),
      {},
    ).prospect;
    const repeated = mapLead(
      capture({
        answers: [
          { key: 'Nome', value: 'Ana Paula Souza' },
          { key: 'Sobrenome', value: 'Souza' },
        ],
      }),
      {},
    ).prospect;
    expect(split).toMatchObject({ name: 'Ana Paula', lastName: 'Souza' });
    expect(repeated).toMatchObject({ name: 'Ana Paula', lastName: 'Souza' });
  });

  it('prefers the most confident answer for a field, keeping the others in notes', () => {
    // Prepare: the landline comes first in the form
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'Telefone fixo', value: '(11) 3333-4444' },
          { key: 'Celular', value: '(11) 98765-4321' },
        ],
      }),
      {},
    );
    expect(prospect.cellphone).toBe('11987654321');
    expect(prospect.notes).toContain('Telefone fixo: (11) 3333-4444');
  });

  it('drops a confirmation that repeats a value, and keeps a different second value in notes', () => {
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'E-mail', value: 'ana@exemplo.com' },
          { key: 'Confirme seu e-mail', value: 'ANA@exemplo.com' },
          { key: 'E-mail alternativo', value: 'ana.souza@trabalho.com' },
        ],
      }),
      {},
    );
    expect(prospect.email).toBe('ana@exemplo.com');
    expect(prospect.notes).not.toContain('Confirme seu e-mail');
    expect(prospect.notes).toContain('E-mail alternativo: ana.souza@trabalho.com');
  });

  it('reports an unusable value of a confident field as a warning, a doubtful one as an answer', () => {
    const { prospect, warnings } = mapLead(
      capture({
        answers: [
          { key: 'email', value: 'ana(at)exemplo.com' },
          { key: 'Telefone de recado', value: 'falar com a Ana' },
        ],
      }),
      {},
    );
    expect(warnings).toEqual(["E-mail não utilizado (o e-mail não tem '@'): ana(at)exemplo.com"]);
    expect(prospect.notes).toContain('Telefone de recado: falar com a Ana');
  });

  it('writes the notes sent to the gym wholly in Portuguese, the reason a phone was not used included', () => {
    const { prospect, warnings, missing } = mapLead(
      capture({
        answers: [
          { key: 'nome', value: 'Ana Souza' },
          { key: 'email', value: 'ana@exemplo.com' },
          { key: 'telefone', value: '1234' },
        ],
      }),
      {},
    );
    const line = 'Telefone não utilizado (não é um telefone válido no Brasil (curto demais)): 1234';
    expect(warnings).toEqual([line]);
    expect(prospect.notes).toContain(line);
    expect(missing).toContain('cellphone');
    // No English left in what the gym's staff read.
    expect(prospect.notes).not.toMatch(/\b(not|valid|phone|number|too|short|missing)\b/i);
  });

  it('lets the profile’s fieldMap win over the recogniser, by key or by label', () => {
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'whatsapp', value: '11912345678' },
          { key: 'celular_da_mae', value: '(11) 98765-4321' },
          { key: 'a1b2c3', label: 'Documento do aluno', value: '529.982.247-25' },
        ],
      }),
      {
        fieldMap: {
          whatsapp: 'notes',
          celular_da_mae: 'phone',
          'Documento do aluno': 'cpf',
        },
      },
    );
    expect(prospect.cellphone).toBe('11987654321');
    expect(prospect.cpf).toBe('52998224725');
    expect(prospect.notes).toContain('whatsapp: 11912345678');
  });
});

describe('mapLeadToProspect: dates', () => {
  const birthday = (
    answers: LeadCapture['answers'],
    over: Partial<LeadCapture> = {},
    profile = {},
  ) => mapLead(capture({ answers, ...over }), profile);

  it("reads Meta's own date-of-birth question as MM/DD/YYYY, without a flag", () => {
    const { prospect, notices } = birthday(
      [{ key: 'date_of_birth', type: 'date', value: '05/03/1992' }],
      { source: 'meta', dateOrder: 'MDY' },
    );
    expect(prospect.birthday).toBe('1992-05-03T00:00:00.000Z');
    expect(notices).toEqual([]);
  });

  it('reads a free-text Meta custom question as DD/MM/YYYY and flags it when ambiguous', () => {
    const { prospect, notices } = birthday(
      [{ key: 'qual_a_sua_data_de_nascimento?', value: '05/03/1992' }],
      { source: 'meta', dateOrder: 'MDY' },
    );
    expect(prospect.birthday).toBe('1992-03-05T00:00:00.000Z');
    expect(notices).toEqual([
      'Data de nascimento ambígua, lida como dia/mês/ano (05/03/1992); confira: 05/03/1992',
    ]);
    expect(prospect.notes).toContain('confira: 05/03/1992');
  });

  it("follows the profile's dateOrder for free text", () => {
    const { prospect } = birthday(
      [{ key: 'nascimento', value: '05/23/1992' }],
      {},
      {
        dateOrder: 'MDY',
      },
    );
    expect(prospect.birthday).toBe('1992-05-23T00:00:00.000Z');
  });

  it('reads a date that is impossible day first month first, and says so', () => {
    const { prospect, notices } = birthday([{ key: 'nascimento', value: '05/23/1992' }]);
    expect(prospect.birthday).toBe('1992-05-23T00:00:00.000Z');
    expect(notices).toEqual([
      'Data de nascimento lida como mês/dia/ano, pois a outra ordem é impossível (23/05/1992): 05/23/1992',
    ]);
  });

  it('flags nothing when the date cannot be read two ways', () => {
    const { prospect, notices } = birthday([{ key: 'nascimento', value: '23/05/1992' }]);
    expect(prospect.birthday).toBe('1992-05-23T00:00:00.000Z');
    expect(notices).toEqual([]);
  });
});

describe('mapLeadToProspect: what nobody typed, and placeholders', () => {
  it("keeps Gravity Forms' entry metadata out of the notes", () => {
    // Prepare: "all fields", keyed by field id, with the entry's own metadata
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'id', value: '1187' },
          { key: '1', value: 'Rafael Nunes' },
          { key: '2', value: 'rafael.nunes@exemplo.com' },
          { key: '3', value: '(51) 99812-3456' },
          { key: '4', value: 'Quero treinar à noite' },
          { key: 'date_created', value: '2025-05-02 13:10:07' },
          { key: 'is_read', value: '0' },
          { key: 'is_starred', value: '0' },
          { key: 'ip', value: '177.10.20.30' },
          { key: 'user_agent', value: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)' },
          { key: 'status', value: 'active' },
          { key: '_wpcf7_unit_tag', value: 'wpcf7-f12-p34-o1' },
        ],
      }),
      { fieldMap: { '1': 'fullName' } },
    );
    expect(prospect).toMatchObject({
      name: 'Rafael',
      lastName: 'Nunes',
      email: 'rafael.nunes@exemplo.com',
      cellphone: '51998123456',
    });
    expect(prospect.notes).toBe('Lead recebido via Site.\n\n4: Quero treinar à noite');
  });

  it('keeps a placeholder phone in the notes as such, never as the cellphone', () => {
    const only = mapLead(capture({ answers: [{ key: 'telefone', value: '1234567890' }] }), {});
    const repeated = mapLead(
      capture({
        answers: [
          { key: 'telefone', value: '(11) 99999-9999' },
          { key: 'celular', value: '(11) 98765-4321' },
        ],
      }),
      {},
    );
    expect(only.prospect.cellphone).toBeUndefined();
    expect(only.missing).toContain('cellphone');
    expect(only.warnings).toEqual(['Telefone de exemplo, não utilizado: 1234567890']);
    expect(repeated.prospect.cellphone).toBe('11987654321');
    expect(repeated.prospect.notes).toContain(
      'Telefone de exemplo, não utilizado: (11) 99999-9999',
    );
  });
});

describe('mapLeadToProspect: what a name is', () => {
  it('keeps a name as typed, digits included, but not an e-mail or a number in the name field', () => {
    const named = (value: string) =>
      mapLead(capture({ answers: [{ key: 'nome', value }] }), {}).prospect.name;
    expect(named('Lead Teste 01 Araújo')).toBe('Lead');
    expect(named('ana@exemplo.com')).toBeUndefined();
    expect(named('11987654321')).toBeUndefined();
  });
});

describe('mapLeadToProspect: keys that are names of object properties', () => {
  it('keeps `constructor`, `toString` and `hasOwnProperty` answers in the notes like any other', () => {
    const { prospect } = mapLead(
      capture({
        answers: [
          { key: 'constructor', value: 'resposta um' },
          { key: 'toString', value: 'resposta dois' },
          { key: 'hasOwnProperty', value: 'resposta três' },
        ],
      }),
      {},
    );
    expect(prospect.notes).toContain('constructor: resposta um');
    expect(prospect.notes).toContain('toString: resposta dois');
    expect(prospect.notes).toContain('hasOwnProperty: resposta três');
  });
});

describe('a form whose fields carry only generated ids', () => {
  const profile: MappingProfile = { source: 'form', defaults: { idBranch: 1 } } as MappingProfile;
  const cf7 = (answers: LeadCapture['answers']) => capture({ source: 'form', answers });

  it('takes the one value that is plainly a name, beside the e-mail and phone, and says so', () => {
    const mapped = mapLead(
      cf7([
        { key: 'text-374', value: 'Ana Beatriz Souza' },
        { key: 'email-512', value: 'ana.souza@example.com' },
        { key: 'tel-88', value: '(11) 98765-4321' },
      ]),
      profile,
    );
    expect(mapped.prospect).toMatchObject({ name: 'Ana Beatriz', lastName: 'Souza' });
    expect(mapped.missing).toEqual([]);
    expect(mapped.warnings).toContain(
      'Nome lido de um campo sem rótulo (text-374): Ana Beatriz Souza',
    );
    expect(mapped.prospect.notes).toContain('Avisos:');
    expect(mapped.prospect.notes).not.toContain('text-374: Ana Beatriz Souza');
  });

  it('does not guess between two such values, nor without an e-mail or phone, nor from an answer', () => {
    const two = mapLead(
      cf7([
        { key: 'text-374', value: 'Ana Souza' },
        { key: 'text-375', value: 'Bia Lima' },
        { key: 'email-512', value: 'ana.souza@example.com' },
      ]),
      profile,
    );
    expect(two.prospect.name).toBeUndefined();
    const alone = mapLead(cf7([{ key: 'text-374', value: 'Ana Souza' }]), profile);
    expect(alone.prospect.name).toBeUndefined();
    const answer = mapLead(
      cf7([
        { key: 'text-374', value: 'Sim quero' },
        { key: 'email-512', value: 'ana.souza@example.com' },
      ]),
      profile,
    );
    expect(answer.prospect.name).toBeUndefined();
    const labelled = mapLead(
      cf7([
        { key: 'text-374', label: 'Empresa', value: 'Lima Fitness' },
        { key: 'email-512', value: 'ana.souza@example.com' },
      ]),
      profile,
    );
    expect(labelled.prospect.name).toBeUndefined();
  });
});

describe('a chain form that asks for the branch by name', () => {
  const BRANCHES = [
    { idBranch: 1, account: 'default', name: 'Centro' },
    { idBranch: 2, account: 'default', name: 'Moema', aliases: ['Unidade Moema'] },
  ];
  const person = [
    { key: 'nome', value: 'Ana Souza' },
    { key: 'email', value: 'ana.souza@example.com' },
    { key: 'celular', value: '(11) 98765-4321' },
  ];
  const chain = (unidade: string, defaults?: { idBranch: number }) =>
    mapLeadToProspect(
      capture({
        answers: [...person, { key: 'qual_unidade', label: 'Qual unidade?', value: unidade }],
      }),
      { defaults } as MappingProfile,
      'Formulário',
      BRANCHES,
    );

  it('sends the lead to the branch named, over the profile’s default, and says why', () => {
    for (const answered of ['Moema', 'moema ', 'Unid. Moema', 'Moeam']) {
      const mapped = chain(answered, { idBranch: 1 });
      expect(mapped.prospect.idBranch, answered).toBe(2);
      expect(mapped.branch).toMatchObject({ kind: 'answer', idBranch: 2, name: 'Moema' });
    }
    expect(chain('Moeam').branch).toMatchObject({ by: 'typo', answered: 'Moeam' });
    expect(chain('Moema').prospect.notes).toContain('Qual unidade?: Moema');
  });

  it('uses the default with a warning for a branch it does not know, and parks without one', () => {
    const withDefault = chain('Curitiba', { idBranch: 1 });
    expect(withDefault.prospect.idBranch).toBe(1);
    expect(withDefault.branch).toMatchObject({ kind: 'default', reason: 'unknown' });
    expect(withDefault.warnings).toContain(
      'Unidade não reconhecida ("Curitiba"); usada a unidade padrão do perfil (1)',
    );
    const withoutDefault = chain('Curitiba');
    expect(withoutDefault.missing).toContain('idBranch');
    expect(withoutDefault.warnings[0]).toMatch(/uma pessoa escolha a unidade/);
  });

  it('changes nothing for an account without named branches', () => {
    const mapped = mapLeadToProspect(
      capture({ answers: [...person, { key: 'unidade', value: 'Moema' }] }),
      { defaults: { idBranch: 1 } } as MappingProfile,
      'Formulário',
    );
    expect(mapped.prospect.idBranch).toBe(1);
    expect(mapped.branch).toBeUndefined();
  });
});
