/**
 * Tracking parameters (functions/report/serve/tracking-params.ts): the names shared links carry
 * are recognised whatever their case, `utm_` by prefix; the report's own parameters, and names
 * that merely look alike, are not.
 */
import { describe, expect, it } from 'vitest';
import {
  isTrackingParam,
  TRACKING_PARAMS,
  withoutTracking,
} from '../../../functions/report/serve/tracking-params.ts';

describe('isTrackingParam', () => {
  it('knows the click and share identifiers of Meta, Google, Microsoft, TikTok, Mailchimp...', () => {
    for (const name of [
      'fbclid',
      'gclid',
      'gbraid',
      'wbraid',
      'msclkid',
      'ttclid',
      'igshid',
      'mc_cid',
      'mc_eid',
      '_ga',
      '_gl',
    ]) {
      expect(isTrackingParam(name), name).toBe(true);
    }
    expect(Object.keys(TRACKING_PARAMS).every(isTrackingParam)).toBe(true);
  });

  it('takes every utm_ parameter, and any case', () => {
    for (const name of ['utm_source', 'utm_medium', 'utm_campaign', 'utm_whatever', 'UTM_Source']) {
      expect(isTrackingParam(name), name).toBe(true);
    }
    expect(isTrackingParam('FBCLID')).toBe(true);
    expect(isTrackingParam('GClid')).toBe(true);
  });

  it('leaves the report’s parameters and look-alikes alone', () => {
    for (const name of [
      'branch',
      'debtStatus',
      'q',
      'sort',
      'upstream',
      'take',
      'skip',
      'dialect',
      'idBranch',
      'utm',
      'xfbclid',
      'fbclid_x',
      'ga',
    ]) {
      expect(isTrackingParam(name), name).toBe(false);
    }
  });
});

describe('withoutTracking', () => {
  it('drops tracking parameters and keeps every other one with all its values', () => {
    expect(
      withoutTracking({
        branch: ['1', '3'],
        fbclid: ['IwAR0abc'],
        UTM_SOURCE: ['whatsapp'],
        utm_medium: ['social'],
        q: ['joao'],
      }),
    ).toEqual({ branch: ['1', '3'], q: ['joao'] });
  });

  it('returns the same query when it has none', () => {
    const query = { branch: ['2'] };
    expect(withoutTracking(query)).toBe(query);
  });
});
