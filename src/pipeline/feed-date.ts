/**
 * Dates as feeds write them: RFC 822/1123/2822 (with the liberties real feeds take),
 * ISO 8601 / W3C-DTF, and the few other shapes that are common and unambiguous
 * (asctime, JavaScript's Date#toString, "November 10, 2026"). Anything else, anything
 * impossible (31 February, 25:00, an unknown or ambiguous zone) and anything out of
 * range is null: a feed's date is left out rather than guessed, never replaced by "now".
 *
 * A time without a zone is taken as UTC, which keeps the calendar day the feed wrote;
 * a date without a time is midnight UTC of that day.
 */

/** Dates before this are placeholders (1970-01-01, 0001-01-01), not publication dates. */
export const EARLIEST = Date.UTC(1990, 0, 1);
/** How far past the fetch a date may lie (clock skew, zones written wrong) before it is refused. */
export const FUTURE_SLACK_MS = 24 * 3600_000;

/**
 * The instant a feed's date stands for, or null when it cannot be read, is before 1990,
 * or is more than a day after `fetchedAt` (when the feed was fetched).
 */
export function parseFeedDate(value: string, fetchedAt: Date): Date | null {
  const t = parseInstant(value);
  if (t === null || t < EARLIEST || t > fetchedAt.getTime() + FUTURE_SLACK_MS) return null;
  return new Date(t);
}

const MONTHS: Record<string, number> = {};
for (const [n, names] of [
  [1, 'jan january januar jänner janv janvier ene enero gen gennaio janeiro'],
  [2, 'feb febr february februar fev fevr fevrier febrero febbraio fevereiro'],
  [3, 'mar march mär märz marz mrz mars marzo março marco mrt maart'],
  [4, 'apr april avr avril abr abril aprile'],
  [5, 'may mai mayo mag maggio mei maio'],
  [6, 'jun june juni juin junio giu giugno junho'],
  [7, 'jul july juli juil juillet julio lug luglio julho'],
  [8, 'aug august aout août ago agosto augustus'],
  [9, 'sep sept september septembre septiembre set settembre setembro'],
  [10, 'oct october okt oktober octobre octubre ott ottobre out outubro'],
  [11, 'nov november novembre noviembre novembro'],
  [12, 'dec december dez dezember déc decembre décembre dic diciembre dicembre dezembro'],
] as const) {
  for (const name of names.split(' ')) MONTHS[name] = n;
}

/**
 * Zone names in minutes east of UTC. Only names with one meaning in feeds: IST (India,
 * Ireland, Israel), AST (Atlantic, Arabia) and the military letters other than Z (whose
 * signs RFC 822 got backwards) are left out, so such dates are null.
 */
const ZONES: Record<string, number> = {
  z: 0,
  ut: 0,
  utc: 0,
  gmt: 0,
  wet: 0,
  wez: 0,
  west: 60,
  wesz: 60,
  bst: 60,
  cet: 60,
  met: 60,
  mez: 60,
  cest: 120,
  mest: 120,
  mesz: 120,
  eet: 120,
  oez: 120,
  eest: 180,
  oesz: 180,
  msk: 180,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  adt: -180,
  nst: -210,
  ndt: -150,
  jst: 540,
  kst: 540,
  hkt: 480,
  sgt: 480,
  awst: 480,
  acst: 570,
  acdt: 630,
  aest: 600,
  aedt: 660,
  nzst: 720,
  nzdt: 780,
};

/** Minutes east of UTC for a zone as written after a time; 0 when none; null when unknown. */
function zoneOffset(zone: string | undefined): number | null {
  if (!zone) return 0;
  const z = zone.toLowerCase();
  if (z in ZONES) return ZONES[z]!;
  // +0100, -05:00, +01, GMT+1, UTC+05:30
  const m = /^(?:(?:gmt|utc|ut) ?)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (!m) return null;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 14 || minutes > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) =>
  month === 2 ? (leap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour?: string | undefined;
  minute?: string | undefined;
  second?: string | undefined;
  fraction?: string | undefined;
  meridiem?: string | undefined;
  zone?: string | undefined;
}

/** Epoch milliseconds for checked parts, or null when any part is impossible. */
function instant(p: Parts): number | null {
  const { year, month, day } = p;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  if (day < 1 || day > daysIn(year, month)) return null;
  let hour = Number(p.hour ?? 0);
  const minute = Number(p.minute ?? 0);
  // A leap second is read as the second before it.
  const second = Math.min(Number(p.second ?? 0), 59);
  if (p.meridiem) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (p.meridiem.toLowerCase().startsWith('p') ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || Number(p.second ?? 0) > 60) return null;
  const offset = zoneOffset(p.zone);
  if (offset === null) return null;
  const ms = p.fraction ? Math.floor(Number(`0.${p.fraction}`) * 1000) : 0;
  // Not Date.UTC, which reads years 0-99 as 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime() - offset * 60_000;
}

/** Two-digit years as RFC 2822 reads them (00-49: 20xx, 50-99: 19xx); three digits add 1900. */
function fullYear(y: string): number {
  const n = Number(y);
  if (y.length === 2) return n < 50 ? 2000 + n : 1900 + n;
  if (y.length === 3) return 1900 + n;
  return n;
}

const month = (name: string) => MONTHS[name.toLowerCase()] ?? Number.NaN;

// The pieces the patterns below are made of.
// A weekday (in any language; never checked) ends in a comma, a space or both.
const WEEKDAY = String.raw`(?:\p{L}+(?:\.?, ?|\.? ))?`;
const MONTH = String.raw`(\p{L}+)\.?`;
const TIME = String.raw`(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?: ?([ap])\.?m\.?)?`;
const ZONE = String.raw`(?: ?(\S+))?`;

/** 2026-11-10, 2026-11-10T23:30:00.123+01:00, 2026-11-10 23:30Z, 2026/11/10 23:30:00 */
const ISO = new RegExp(
  String.raw`^(\d{4})([-/])(\d{2})\2(\d{2})(?:(?: ?t ?| )(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?${ZONE})?$`,
  'iu',
);
/** 20261110T233000Z */
const ISO_BASIC = new RegExp(
  String.raw`^(\d{4})(\d{2})(\d{2})t(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?${ZONE}$`,
  'iu',
);
/** Tue, 10 Nov 2026 23:30:00 +0100; 10 Nov 26 23:30 EST; Tuesday, 10-Nov-26 23:30:00 GMT; 10. November 2026 */
const DAY_FIRST = new RegExp(
  String.raw`^${WEEKDAY}(\d{1,2})\.?[ -]${MONTH}[ -](\d{4}|\d{2,3})(?:(?:,? (?:at )?|t)${TIME})?${ZONE}$`,
  'iu',
);
/** Nov 10, 2026 11:30 PM EST; Tue Nov 10 2026 23:30:00 GMT+0100; Tue Nov 10 23:30:00 2026 */
const MONTH_FIRST = new RegExp(
  String.raw`^${WEEKDAY}${MONTH} (\d{1,2})(?:st|nd|rd|th)?,? (?:(\d{4})(?:,? (?:at )?${TIME})?|${TIME} (\d{4}))${ZONE}$`,
  'iu',
);

/** Epoch milliseconds for a feed's date, or null; no range check. */
export function parseInstant(value: string): number | null {
  const s = value
    .replace(/\s+/g, ' ')
    .trim()
    // A trailing comment, as in "+0100 (CET)" or Date#toString's "(Central European Time)".
    .replace(/ ?\([^()]*\)$/, '');
  if (!s || s.length > 80) return null;
  let m = ISO.exec(s);
  if (m) {
    return instant({
      year: Number(m[1]),
      month: Number(m[3]),
      day: Number(m[4]),
      hour: m[5],
      minute: m[6],
      second: m[7],
      fraction: m[8],
      zone: m[9],
    });
  }
  m = ISO_BASIC.exec(s);
  if (m) {
    return instant({
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: m[4],
      minute: m[5],
      second: m[6],
      fraction: m[7],
      zone: m[8],
    });
  }
  m = DAY_FIRST.exec(s);
  if (m) {
    return instant({
      year: fullYear(m[3]!),
      month: month(m[2]!),
      day: Number(m[1]),
      hour: m[4],
      minute: m[5],
      second: m[6],
      fraction: m[7],
      meridiem: m[8],
      zone: m[9],
    });
  }
  m = MONTH_FIRST.exec(s);
  if (m) {
    const [hour, minute, second, fraction, meridiem] = m[4] ? m.slice(4, 9) : m.slice(9, 14);
    return instant({
      year: Number(m[3] ?? m[14]),
      month: month(m[1]!),
      day: Number(m[2]),
      hour,
      minute,
      second,
      fraction,
      meridiem,
      zone: m[15],
    });
  }
  return null;
}
