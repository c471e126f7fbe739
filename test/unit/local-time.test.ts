import { describe, expect, it } from 'vitest';
import { nextDigestAt } from '../../src/domain/digests.js';
import { instantAt, quietUntil } from '../../src/domain/local-time.js';

/** A person's wall clock: quiet hours and digests at local times, daylight saving included. */
describe('local time', () => {
  it('finds the instant a zone shows a time, across daylight-saving changes', () => {
    const at = (date: string, hhmm: string, zone: string) => {
      const [h, m] = hhmm.split(':').map(Number) as [number, number];
      return instantAt(date, h * 60 + m, zone).toISOString();
    };
    expect(at('2026-11-21', '08:00', 'Europe/Paris')).toBe('2026-11-21T07:00:00.000Z');
    expect(at('2026-06-21', '08:00', 'Asia/Kolkata')).toBe('2026-06-21T02:30:00.000Z');
    expect(at('2026-06-21', '00:00', 'Pacific/Chatham')).toBe('2026-06-20T11:15:00.000Z');
    // Skipped times come an hour later, east and west of UTC.
    expect(at('2024-03-31', '02:30', 'Europe/Paris')).toBe('2024-03-31T01:30:00.000Z');
    expect(at('2024-03-10', '02:00', 'America/New_York')).toBe('2024-03-10T07:00:00.000Z');
    // Repeated times are their first occurrence.
    expect(at('2024-10-27', '02:30', 'Europe/Paris')).toBe('2024-10-27T00:30:00.000Z');
    expect(at('2024-11-03', '01:30', 'America/New_York')).toBe('2024-11-03T05:30:00.000Z');
  });

  it('says when quiet hours end, wrapping midnight, or null outside them', () => {
    const quiet = { start: '22:00', end: '07:00' };
    // 23:30 in Paris (22:30Z): quiet until 07:00 the next morning (06:00Z).
    expect(quietUntil(new Date('2026-11-20T22:30:00Z'), quiet, 'Europe/Paris')?.toISOString()).toBe(
      '2026-11-21T06:00:00.000Z',
    );
    // 05:00 in Paris: until 07:00 the same morning.
    expect(quietUntil(new Date('2026-11-21T04:00:00Z'), quiet, 'Europe/Paris')?.toISOString()).toBe(
      '2026-11-21T06:00:00.000Z',
    );
    expect(quietUntil(new Date('2026-11-21T12:00:00Z'), quiet, 'Europe/Paris')).toBeNull();
    expect(
      quietUntil(new Date('2026-11-21T12:00:00Z'), { start: null, end: null }, 'UTC'),
    ).toBeNull();
  });

  it('schedules digests at the local hour, weekly ones on Mondays', () => {
    const after = new Date('2026-11-25T10:00:00Z'); // a Wednesday
    expect(nextDigestAt(after, 'daily', 8, 'Europe/Paris').toISOString()).toBe(
      '2026-11-26T07:00:00.000Z',
    );
    expect(nextDigestAt(after, 'daily', 12, 'Europe/Paris').toISOString()).toBe(
      '2026-11-25T11:00:00.000Z',
    );
    expect(nextDigestAt(after, 'weekly', 8, 'America/New_York').toISOString()).toBe(
      '2026-11-30T13:00:00.000Z',
    );
  });
});
