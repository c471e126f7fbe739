import { z } from 'zod';
import { answerOf, type Connector } from './connector.js';

/**
 * The GDELT DOC 2.0 API's article list (api.gdeltproject.org/api/v2/doc/doc?mode=ArtList
 * &format=json): news in 65 languages, each article's URL, title, domain and the time GDELT
 * saw it. The cursor is the newest `seendate` read; the next poll asks from there, oldest
 * first, so none is skipped. Without one, the last day. No key.
 */
export const gdelt: Connector = {
  id: 'gdelt',
  name: 'GDELT',
  accept: 'application/json',
  perMinute: 12,
  request({ base, query, cursor, now }) {
    const terms = query.names.map((n) => `"${n.replace(/"/g, '')}"`);
    const q = [
      terms.length > 1 ? `(${terms.join(' OR ')})` : terms[0]!,
      ...query.exclude.map((e) => `-"${e.replace(/"/g, '')}"`),
    ].join(' ');
    // GDELT searches its last three months: an older cursor (a brand with no coverage for
    // that long) asks from the window's start, not for an error.
    const window = stamp(new Date(now.getTime() - 89 * 86_400_000));
    // From the cursor, oldest first: a busy brand's next 75 follow on from the last read,
    // none skipped however many came out between polls. At first, the last day's newest.
    const since = cursor
      ? `&startdatetime=${cursor < window ? window : cursor}&sort=DateAsc`
      : '&timespan=1d&sort=DateDesc';
    return [
      `${base}/api/v2/doc/doc?query=${encodeURIComponent(q)}&mode=ArtList&format=json&maxrecords=75${since}`,
    ];
  },
  parse(body) {
    // An empty result is "{}"; an error (a query too short, a bad operator) is plain text.
    const answer = answerOf(
      'GDELT',
      body,
      Answer,
      () => `GDELT answered: ${body.trim().slice(0, 200) || 'nothing'}`,
    );
    const items = [];
    let newest: string | null = null;
    for (const a of answer.articles ?? []) {
      const seen = seenDate(a.seendate);
      if (!/^https?:\/\//i.test(a.url)) continue;
      items.push({
        key: a.url,
        url: a.url,
        title: a.title,
        ...(seen && { published_at: seen.iso }),
      });
      if (seen && (newest === null || seen.cursor > newest)) newest = seen.cursor;
    }
    // Newest first, whichever order was asked for.
    items.sort((a, b) => (b.published_at ?? '').localeCompare(a.published_at ?? ''));
    return { items, cursor: newest };
  },
};

const Answer = z.object({
  articles: z
    .array(z.object({ url: z.string(), title: z.string().optional(), seendate: z.string() }))
    .optional(),
});

/** A time as GDELT's startdatetime: YYYYMMDDHHMMSS, UTC. */
const stamp = (at: Date) => at.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** "20191114T183000Z" as an ISO time and as the next poll's startdatetime (a second on). */
function seenDate(raw: string): { iso: string; cursor: string } | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(raw);
  if (!m) return null;
  const at = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  if (Number.isNaN(at.getTime())) return null;
  return { iso: at.toISOString(), cursor: stamp(new Date(at.getTime() + 1000)) };
}
