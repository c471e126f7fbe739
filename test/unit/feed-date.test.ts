import { describe, expect, it } from 'vitest';
import { parseFeedDate } from '../../src/pipeline/feed-date.js';

/** When the feed was fetched: dates more than a day after it are refused. */
const FETCHED = new Date('2026-11-23T12:00:00Z');
const AT = '2026-11-10T23:30:00.000Z';

/** Forms real feeds write, with the instant each stands for. */
const READ: [string, string][] = [
  // RFC 822 / 1123 / 2822, with every zone feeds use
  ['Tue, 10 Nov 2026 23:30:00 +0000', AT],
  ['Tue, 10 Nov 2026 23:30:00 -0000', AT],
  ['Tue, 10 Nov 2026 23:30:00 GMT', AT],
  ['Tue, 10 Nov 2026 23:30:00 UT', AT],
  ['Tue, 10 Nov 2026 23:30:00 UTC', AT],
  ['Tue, 10 Nov 2026 23:30:00 Z', AT],
  ['Tue, 10 Nov 2026 18:30:00 EST', AT],
  ['Tue, 10 Nov 2026 19:30:00 EDT', AT],
  ['Tue, 10 Nov 2026 17:30:00 CST', AT],
  ['Tue, 10 Nov 2026 18:30:00 CDT', AT],
  ['Tue, 10 Nov 2026 16:30:00 MST', AT],
  ['Tue, 10 Nov 2026 17:30:00 MDT', AT],
  ['Tue, 10 Nov 2026 15:30:00 PST', AT],
  ['Tue, 10 Nov 2026 16:30:00 PDT', AT],
  ['Wed, 11 Nov 2026 00:30:00 CET', AT],
  ['Wed, 11 Nov 2026 01:30:00 CEST', AT],
  ['Mi, 11 Nov 2026 00:30:00 MEZ', AT],
  ['Mi, 11 Nov 2026 01:30:00 MESZ', AT],
  ['Wed, 11 Nov 2026 00:30:00 BST', AT],
  ['Wed, 11 Nov 2026 00:30:00 +0100', AT],
  ['Tue, 10 Nov 2026 21:30:00 -0200', AT],
  ['Wed, 11 Nov 2026 05:00:00 +0530', AT],
  ['Wed, 11 Nov 2026 00:30:00 +01:00', AT],
  ['Wed, 11 Nov 2026 00:30:00 GMT+01:00', AT],
  ['Wed, 11 Nov 2026 00:30:00 +0100 (CET)', AT],
  // two-digit years, missing parts, wrong or foreign weekdays, sloppy spacing
  ['Tue, 10 Nov 26 23:30:00 GMT', AT],
  ['Wed, 10 Nov 99 23:30:00 GMT', '1999-11-10T23:30:00.000Z'],
  ['Tuesday, 10-Nov-26 23:30:00 GMT', AT],
  ['Tue, 10 Nov 2026 23:30 GMT', AT],
  ['Tue, 10 Nov 2026 23:30 +0000', AT],
  ['10 Nov 2026 23:30:00 GMT', AT],
  ['Fri, 10 Nov 2026 23:30:00 GMT', AT],
  ['Tuesday, 10 Nov 2026 23:30:00 GMT', AT],
  ['Tue,10 Nov 2026 23:30:00 GMT', AT],
  ['  Tue, 10 Nov 2026\n      23:30:00 GMT ', AT],
  ['tue, 10 nov 2026 23:30:00 gmt', AT],
  ['Tue, 10 November 2026 23:30:00 GMT', AT],
  ['Tue, 3 Nov 2026 09:05:00 GMT', '2026-11-03T09:05:00.000Z'],
  ['Thu, 10 Sept 2026 23:30:00 GMT', '2026-09-10T23:30:00.000Z'],
  ['Di, 10 Mär 2026 08:00:00 +0100', '2026-03-10T07:00:00.000Z'],
  ['Tue, 10 Nov 2026 23:30:00', AT],
  ['Tue, 10 Nov 2026', '2026-11-10T00:00:00.000Z'],
  ['Sat, 29 Feb 2020 12:00:00 GMT', '2020-02-29T12:00:00.000Z'],
  ['Mon, 01 Jan 1990 00:00:00 GMT', '1990-01-01T00:00:00.000Z'],
  // ISO 8601 / W3C-DTF (Atom, dc:date)
  ['2026-11-10T23:30:00Z', AT],
  ['2026-11-10T23:30:00.123Z', '2026-11-10T23:30:00.123Z'],
  ['2026-11-10T23:30:00.1234567Z', '2026-11-10T23:30:00.123Z'],
  ['2026-11-10T23:30:00,5Z', '2026-11-10T23:30:00.500Z'],
  ['2026-11-11T00:30:00+01:00', AT],
  ['2026-11-11T00:30:00+0100', AT],
  ['2026-11-11T00:30:00+01', AT],
  ['2026-11-10T18:30:00-05:00', AT],
  ['2026-11-11T00:30:00.000+01:00', AT],
  ['2026-11-10T23:30Z', AT],
  ['2026-11-11T00:30+01:00', AT],
  ['2026-11-10 23:30:00Z', AT],
  ['2026-11-11 00:30:00 +01:00', AT],
  ['2026-11-10 23:30:00 UTC', AT],
  ['2026-11-10t23:30:00z', AT],
  ['2026-11-10T23:30:00', AT],
  ['2026-11-10 23:30:00', AT],
  ['2026-11-10', '2026-11-10T00:00:00.000Z'],
  ['20261110T233000Z', AT],
  ['2026/11/10 23:30:00', AT],
  // asctime, JavaScript's Date#toString, US prose
  ['Tue Nov 10 23:30:00 2026', AT],
  ['Wed Nov 11 2026 00:30:00 GMT+0100 (Central European Standard Time)', AT],
  ['November 10, 2026 6:30 PM EST', AT],
  ['Nov 10, 2026', '2026-11-10T00:00:00.000Z'],
];

/** Forms that cannot be read, or that stand for no real publication date. */
const REFUSED: string[] = [
  '',
  '   ',
  'yesterday',
  'now',
  'TBD',
  '1',
  '1731283200',
  '2026',
  '2026-11',
  '10/11/2026',
  '11/10/2026',
  '10.11.2026',
  'Tue, 10 Foo 2026 23:30:00 GMT',
  'Tue, 10 Nov 2026 23:30:00 XYZ',
  'Tue, 10 Nov 2026 23:30:00 IST',
  'Tue, 10 Nov 2026 23:30:00 A',
  'Tue, 10 Nov 2026 23:30:00 +2500',
  'Tue, 10 Nov 2026 25:00:00 GMT',
  'Tue, 10 Nov 2026 23:60:00 GMT',
  'Tue, 10 Nov 2026 13:30 PM GMT',
  'Mon, 31 Feb 2026 10:00:00 GMT',
  '2026-02-29',
  '2026-13-01',
  '2026-11-31T10:00:00Z',
  '2026-11-10T23:30:00+25:00',
  '2026-11-10T23:30:00 garbage',
  // placeholders and dates before 1990
  'Thu, 01 Jan 1970 00:00:00 +0000',
  '1970-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '1989-12-31T23:59:59Z',
  'Sun, 10 Nov 85 23:30:00 GMT',
  // more than a day after the fetch
  '2026-11-24T12:00:01Z',
  'Wed, 25 Nov 2026 00:00:00 GMT',
  '2099-01-01',
];

describe('feed dates', () => {
  it(`reads ${READ.length} real-world forms to the right instant`, () => {
    expect(READ.length).toBeGreaterThanOrEqual(40);
    const got = READ.map(([text]) => [text, parseFeedDate(text, FETCHED)?.toISOString() ?? null]);
    expect(got).toEqual(READ);
  });

  it('is null, never a guess, for what cannot be read or is out of range', () => {
    const got = REFUSED.map((text) => [text, parseFeedDate(text, FETCHED)]);
    expect(got).toEqual(REFUSED.map((text) => [text, null]));
  });

  it('judges the future by the fetch time passed in, with a day of slack', () => {
    expect(parseFeedDate('2026-11-24T12:00:00Z', FETCHED)?.toISOString()).toBe(
      '2026-11-24T12:00:00.000Z',
    );
    expect(parseFeedDate('2026-11-24T12:00:01Z', FETCHED)).toBeNull();
    const later = new Date('2026-12-01T00:00:00Z');
    expect(parseFeedDate('Wed, 25 Nov 2026 00:00:00 GMT', later)?.toISOString()).toBe(
      '2026-11-25T00:00:00.000Z',
    );
    const earlier = new Date('2026-11-01T00:00:00Z');
    expect(parseFeedDate('2026-11-10T23:30:00Z', earlier)).toBeNull();
  });
});
