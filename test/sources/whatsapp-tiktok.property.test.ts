/**
 * No answer a person gave is lost, through the platforms' own payloads: answers people type
 * (test/helpers/typed-answers.ts, the mapping property's own) are put into a WhatsApp Flows
 * `response_json` and a TikTok lead webhook's `changes[]`, captured by the source and mapped;
 * each must reach a Prospect field or the notes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { tiktokSource } from '../../functions/sources/tiktok.ts';
import { whatsappSource } from '../../functions/sources/whatsapp.ts';
import { leadsIn } from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import { type ProfileOf, platformRequest } from '../helpers/platform-fixtures.ts';
import { filledBy, type Typed, text, typedAnswer } from '../helpers/typed-answers.ts';

const answers = fc.array(typedAnswer, { minLength: 1, maxLength: 8 });

/** The question as the platform shows it: its label when it has one (Typeform-like refs). */
const question = (t: Typed) => t.answer.label ?? t.answer.key;

function expectNothingLost(typed: readonly Typed[], capture: LeadCapture): void {
  const { prospect } = mapCapture(capture, { defaults: { idBranch: 1 } });
  const notes = prospect.notes ?? '';
  for (const t of typed) {
    const reached = notes.includes(text(t.answer)) || filledBy(t, prospect);
    expect(reached, `${question(t)}: ${text(t.answer)}`).toBe(true);
  }
}

const whatsappProfile: ProfileOf<'whatsapp'> = {
  source: 'whatsapp',
  appSecret: 'demo-whatsapp-app-secret',
  verifyToken: 'demo-whatsapp-verify-token',
};
const tiktokProfile: ProfileOf<'tiktok'> = {
  source: 'tiktok',
  token: 'demo-tiktok-token',
  accessToken: 'demo-tiktok-access-token',
  apiBaseUrl: 'http://127.0.0.1:1/unused',
};

describe('no answer is lost, as a property', () => {
  it('through a WhatsApp Flows answer (Flow Builder keys: screen_<n>_<Label>_<n>)', async () => {
    await fc.assert(
      fc.asyncProperty(answers, fc.boolean(), async (typed, builderKeys) => {
        // Prepare: the Flow's fields, keyed as Flow Builder writes them or as an author chose.
        const response: Record<string, string> = { flow_token: 'aula-experimental' };
        for (const [i, t] of typed.entries()) {
          const key = builderKeys
            ? `screen_${i}_${question(t).replace(/ /g, '_')}_${i}`
            : `${question(t)} ${i}`;
          response[key] = text(t.answer);
        }
        const body = Buffer.from(
          JSON.stringify({
            object: 'whatsapp_business_account',
            entry: [
              {
                id: '102290129340398',
                changes: [
                  {
                    field: 'messages',
                    value: {
                      metadata: { phone_number_id: '106540352242922' },
                      contacts: [{ wa_id: '5511987654321' }],
                      messages: [
                        {
                          from: '5511987654321',
                          id: 'wamid.property',
                          timestamp: '1746191520',
                          type: 'interactive',
                          interactive: {
                            type: 'nfm_reply',
                            nfm_reply: { response_json: JSON.stringify(response) },
                          },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          }),
        );

        // Act
        const [lead] = leadsIn(whatsappSource.capture(platformRequest(body), whatsappProfile));

        // Assess
        expect(lead).toBeDefined();
        expectNothingLost(typed, lead as LeadCapture);
      }),
      { numRuns: 300 },
    );
  });

  it('through a TikTok lead webhook’s changes', async () => {
    await fc.assert(
      fc.asyncProperty(answers, async (typed) => {
        // Prepare
        const body = Buffer.from(
          JSON.stringify({
            object: 1,
            entry: [
              {
                id: '7412345678901234567',
                page_id: '7400000000000000001',
                create_time: 1746191407,
                changes: typed.map((t) => ({ field: question(t), value: text(t.answer) })),
              },
            ],
          }),
        );

        // Act
        const [lead] = leadsIn(tiktokSource.capture(platformRequest(body), tiktokProfile));

        // Assess
        expect(lead).toBeDefined();
        expectNothingLost(typed, lead as LeadCapture);
      }),
      { numRuns: 300 },
    );
  });
});
