import { describe, expect, it } from 'vitest';
import {
  countText,
  DESK_PAGE,
  fold,
  moreText,
  PHONE_PAGE,
  searchMatcher,
  shownEntries,
} from '../../../../functions/report/serve/browser/list-paging.ts';

const whole = new Intl.NumberFormat('pt-BR');
const format = (n: number) => whole.format(n);

describe('what the dashboard list shows, a page at a time', () => {
  it('shows fewer members at a time on a phone than at a desk', () => {
    expect(PHONE_PAGE).toBeLessThan(DESK_PAGE);
    expect(PHONE_PAGE).toBeGreaterThan(0);
  });

  it('shows the first page of the matching entries and counts the rest', () => {
    const matches = [true, false, true, true, false, true];
    expect(shownEntries(matches, 2)).toEqual({
      visible: [true, false, true, false, false, false],
      matching: 4,
      left: 2,
    });
    expect(shownEntries(matches, 10)).toEqual({
      visible: [true, false, true, true, false, true],
      matching: 4,
      left: 0,
    });
    expect(shownEntries([], 10)).toEqual({ visible: [], matching: 0, left: 0 });
  });

  it('says in Portuguese how many are shown and what "Ver mais" adds', () => {
    expect(countText(20, 1234, format)).toBe('20 de 1.234 devedores');
    expect(countText(1, 1, format)).toBe('1 de 1 devedor');
    expect(moreText(1214, 20, format)).toBe('Ver mais 20 (faltam 1.214)');
    expect(moreText(7, 20, format)).toBe('Ver mais 7 (faltam 7)');
  });

  it('searches every word of a name, ignoring case and accents', () => {
    const matches = searchMatcher('  JOAO  conceiçao ');
    expect(matches(fold('João da Conceição'))).toBe(true);
    expect(matches(fold('João Silva'))).toBe(false);
    expect(searchMatcher('')(fold('anyone'))).toBe(true);
    expect(fold(null)).toBe('');
  });
});
