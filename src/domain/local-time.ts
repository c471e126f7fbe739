/**
 * A person's wall clock: quiet hours and digests happen at their local time, in the time
 * zone of their profile (UTC when they chose none). Built on Intl, which knows every IANA
 * zone and its daylight-saving changes.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The local date (YYYY-MM-DD) and minutes since midnight of an instant in a zone. */
export function localParts(at: Date, zone: string): { date: string; minutes: number } {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetAt(at: number, zone: string): number {
  const p = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(at))
      .map((x) => [x.type, x.value]),
  );
  const wall = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * The instant a zone's wall clock shows `minutes` past midnight on `date`. A time that a
 * daylight-saving change skips comes out an hour later, as a wall clock would show it.
 */
export function instantAt(date: string, minutes: number, zone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d, 0, minutes);
  // Read with the zone's offset of the day before and of the day after: around a change,
  // a repeated time shows under both (the first is taken), a skipped one under neither
  // (the later reading is taken: the wall clock's time an hour on).
  const before = guess - offsetAt(guess - 86_400_000, zone);
  const after = guess - offsetAt(guess + 86_400_000, zone);
  const shows = (t: number) => {
    const p = localParts(new Date(t), zone);
    return p.date === date && p.minutes === minutes;
  };
  const [early, late] = before <= after ? [before, after] : [after, before];
  if (shows(early)) return new Date(early);
  return new Date(late);
}

/** The date (YYYY-MM-DD) `days` after `date` (before it when negative). */
export const nextDate = (date: string, days = 1) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** `HH:MM` as minutes since midnight. */
export const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/**
 * When quiet hours end if `at` falls within them, or null when it does not (or the person
 * has none). Quiet hours may wrap midnight (22:00 to 07:00).
 */
export function quietUntil(
  at: Date,
  quiet: { start: string | null; end: string | null },
  zone: string,
): Date | null {
  if (!quiet.start || !quiet.end) return null;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  if (start === end) return null;
  const { date, minutes } = localParts(at, zone);
  const inside =
    start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
  if (!inside) return null;
  // Ends today when the end is still ahead on today's clock, else tomorrow.
  return instantAt(minutes < end ? date : nextDate(date), end, zone);
}
