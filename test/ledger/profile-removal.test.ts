/**
 * Before a profile leaves the configuration, what its leads say (issue 25): the leads it
 * received in the last 30 days and how many of them still wait, read from the ledger's status
 * index (read only), worded as the warning `config diff/push` and the local reload print.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LeadLedger, NewLead } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  leavingProfiles,
  profileActivity,
  profileRemovalWarnings,
  renameAdvice,
} from '../../functions/ledger/profile-removal.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const NOW = new Date('2026-05-04T10:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

let dynamo: TestDynamo;
let ledger: LeadLedger;
let serial = 0;

function newLead(profile: string, receivedAt: Date): NewLead {
  serial += 1;
  const email = `lead${serial}@example.com`;
  return {
    profile,
    source: 'form',
    dedupKey: `key:${email}`,
    capture: {
      source: 'form',
      dedupKey: `key:${email}`,
      isTest: false,
      answers: [{ key: 'email', value: email }],
      attribution: {},
    },
    prospect: { name: 'Bia', lastName: 'Lima', email, idBranch: 1 },
    status: 'queued',
    receivedAt,
  };
}

/** Records a lead of `profile` received `days` ago; delivered when told. */
async function lead(profile: string, days: number, delivered = false): Promise<void> {
  const { lead: recorded } = await ledger.record(newLead(profile, daysAgo(days)));
  if (!delivered) return;
  await ledger.claim(recorded.leadId, 0, 30_000, daysAgo(days));
  await ledger.markDelivered(recorded.leadId, 4242, daysAgo(days));
}

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  const tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({ erasureSalt: TEST_ERASURE_SALT, client: dynamo.client, tableName });
});

describe('a profile leaving the configuration', () => {
  it('is found among the profiles of before, with the added ones that may be its new name', () => {
    expect(
      leavingProfiles(
        { profiles: { site: {}, api: {}, old: {} } },
        { profiles: { api: {}, 'site-novo': {} } },
      ),
    ).toEqual({
      leaving: ['old', 'site'],
      added: ['site-novo'],
      renamedTo: { old: ['site-novo'], site: ['site-novo'] },
    });
  });

  it('is not leaving when the new profile names it as its former name', () => {
    const before = {
      profiles: { site: { source: 'form', token: 'a', defaults: { idBranch: 1 } } },
    };
    const renamed = { source: 'form', token: 'b', formerly: ['site'], defaults: { idBranch: 1 } };
    expect(leavingProfiles(before, { profiles: { 'site-new': renamed } })).toEqual({
      leaving: [],
      added: [],
      renamedTo: {},
    });
  });

  it('is suggested a rename when a profile of the same source and settings appears', () => {
    const before = {
      profiles: { site: { source: 'form', token: 'a', defaults: { idBranch: 1 } } },
    };
    const change = leavingProfiles(before, {
      profiles: {
        'site-new': { source: 'form', token: 'b', defaults: { idBranch: 1 } },
        other: { source: 'form', token: 'c', defaults: { idBranch: 2 } },
      },
    });
    expect(change.renamedTo).toEqual({ site: ['site-new'] });
    expect(renameAdvice('site', change.renamedTo.site ?? [])).toContain(
      '"formerly": ["site"] ao perfil novo',
    );
  });

  it('counts its leads of the last 30 days and those still waiting, none of other profiles', async () => {
    // Prepare: site 2 queued + 1 delivered recently, 1 queued 40 days ago; api 1 queued
    await lead('site', 1);
    await lead('site', 29);
    await lead('site', 2, true);
    await lead('site', 40);
    await lead('api', 1);

    // Act
    const { activity, complete } = await profileActivity(ledger, ['site', 'unused'], NOW);

    // Assess
    expect(complete).toBe(true);
    expect(Object.fromEntries(activity)).toEqual({
      site: { received: 3, waiting: 2 },
      unused: { received: 0, waiting: 0 },
    });
  });

  it('warns in Portuguese for a profile that received leads, saying how many wait; not for an unused one', async () => {
    // Prepare
    await lead('site', 3);
    await lead('site', 5, true);

    // Act
    const warnings = await profileRemovalWarnings(
      ledger,
      { leaving: ['site', 'unused'], added: ['site-novo'] },
      NOW,
    );

    // Assess
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^aviso: o perfil 'site' sai da configuração e recebeu 2 lead\(s\) nos últimos 30 dias; 1 aguardando entrega\./,
    );
    expect(warnings[0]).toContain("novo: 'site-novo'");
    expect(warnings[0]).toContain('"formerly": ["site"]');
  });
});
