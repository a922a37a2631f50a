import { describe, expect, it } from 'vitest';
import { tabOf, viewOf } from '../../../functions/admin/browser/route.ts';

describe('the console’s views by the address’s # part', () => {
  it('opens a lead, the preview, the kit and a profile’s kit, and lights their tab', () => {
    expect(viewOf('#/lead/ld_abc%2F1')).toEqual({ view: 'lead', leadId: 'ld_abc/1' });
    expect(viewOf('#/preview')).toEqual({ view: 'preview' });
    expect(viewOf('#/setup')).toEqual({ view: 'setup', profile: '' });
    expect(viewOf('#/setup/meta%20ads')).toEqual({ view: 'setup', profile: 'meta ads' });
    expect(tabOf(viewOf('#/lead/ld_1'))).toBe('leads');
    expect(tabOf(viewOf('#/setup/site'))).toBe('setup');
  });

  it('lists the leads by default, with the filters of the address', () => {
    const shown = viewOf('#/?status=parked&q=ana');
    expect(shown.view).toBe('leads');
    if (shown.view !== 'leads') return;
    expect(Object.fromEntries(shown.params)).toEqual({ status: 'parked', q: 'ana' });
    expect(viewOf('').view).toBe('leads');
    expect(viewOf('#/whatever').view).toBe('leads');
  });
});
