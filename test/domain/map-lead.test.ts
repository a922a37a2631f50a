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
