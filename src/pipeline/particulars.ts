/**
 * The particulars of the brand's story that a plan's steps name (issue 42: a consultant's
 * plan names the article's parties and dates): who acts against the brand, and when the
 * coverage says the next turn comes.
 *
 * Who acts against the brand in the sentence telling its event ("New York State Attorney
 * General investigating WeWork", "sued by three former employees"), read only
 * where the grammar is plain: a name or a known role right before a verb of acting, or
 * after "by". A sentence in title case (a headline with every word capitalised) or a
 * party that is the brand itself yields nothing: no name is better than a wrong one.
 */

/** A proper name of up to seven words, joined by "of", "for", "and", "&". */
const NAME = String.raw`(?:[\p{Lu}][\p{L}\p{N}.&'’-]*)(?:\s+(?:(?:of|for|and|&|on)\s+)?[\p{Lu}][\p{L}\p{N}.&'’-]*){0,6}`;
/** A party named by its role: "regulators", "the state attorney general", "a union". */
const ROLE = String.raw`(?:(?:the|a|an|its|some|several|two|three|four|five|\d+|dozens of|hundreds of|thousands of)\s+)?(?:(?:former|state|federal|city|county|european|british|american|french|german|local|rival|angry|unhappy)\s+)*(?:attorneys? general|regulators?|prosecutors?|watchdogs?|unions?|shareholders?|investors?|customers?|employees?|workers?|staff|drivers?|activists?|campaigners?|critics?|lawmakers?|senators?|officials?|competitors?|rivals?|users?|parents?|residents?|plaintiffs?)`;
const ING =
  'investigating|suing|accusing|charging|fining|criticising|criticizing|demanding|calling on|urging|striking|alleging|claiming|condemning|banning|ordering';
const PAST =
  'sued|fined|accused|filed|opened|launched|ordered|banned|charged|criticised|criticized|slammed|condemned|called on|urged|alleged|claimed|demanded|struck|walked out';
const PRESENT =
  'sues|fines|accuses|files|opens|launches|orders|bans|charges|criticises|criticizes|slams|condemns|urges|alleges|claims|demands|strikes';
/**
 * The party's verb, active only: "was accused", "accused of" and "fined for" make the one
 * before them the target, not the actor.
 */
const ACTING_VERBS = String.raw`(?:(?:is|are|was|were)\s+(?:now\s+)?(?:${ING})|(?:has|have|had)\s+(?:now\s+)?(?:${PAST})|(?:${ING})|(?:${PAST}|${PRESENT})(?!\s+(?:of|by|for|with|in|over)\b))\b`;
const PASSIVE_VERBS =
  '(?:sued|accused|fined|investigated|criticised|criticized|condemned|slammed|charged|targeted|probed|banned|ordered|blasted|attacked|challenged|censured|reprimanded)';

const AGENT = new RegExp(
  String.raw`(?:^|[\s,;:(“"‘—–-])((?:[Tt]he\s+)?(?:(?:${NAME}\s+)?${ROLE}|${NAME}))\s+${ACTING_VERBS}`,
  'gu',
);
const ROLE_ONLY = new RegExp(String.raw`^(?:the\s+)?${ROLE}$`, 'iu');
/** A name after a preposition is a place or a medium ("posted on Twitter accusing"). */
const AFTER_PREPOSITION = /\b(?:on|in|at|from|to|with|via|for|of|into|onto|about)\s*$/i;
const BY = new RegExp(
  String.raw`\b${PASSIVE_VERBS}\s+(?:\p{Ll}+\s+){0,2}?by\s+((?:the\s+)?(?:${ROLE}|${NAME}))`,
  'u',
);

/** Words that start a sentence or stand for someone already named: no party. */
const NOT_A_PARTY =
  /^(?:the\s+)?(?:it|he|she|they|we|you|this|that|these|those|there|who|which|company|firm|group|report|reports|article|story|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december|but|and|so|then|also|now|meanwhile|however|last|next|earlier|later)\b/i;

/** A headline in title case: every longer word capitalised, so names cannot be told apart. */
function titleCase(sentence: string): boolean {
  const long = (sentence.match(/\p{L}[\p{L}'’-]*/gu) ?? []).filter((w) => w.length > 3);
  return long.length >= 3 && long.every((w) => /^\p{Lu}/u.test(w));
}

/**
 * The party acting against the brand in the sentence, as the sentence names it ("the New
 * York State Attorney General", "three former employees"), or null. `isBrand` says whether
 * a piece of text names the brand.
 */
export function actingParty(sentence: string, isBrand: (text: string) => boolean): string | null {
  if (!sentence || titleCase(sentence)) return null;
  const by = BY.exec(sentence)?.[1];
  const agents = [...sentence.matchAll(AGENT)]
    .filter((m) => !AFTER_PREPOSITION.test(sentence.slice(0, m.index + m[0].indexOf(m[1]!))))
    .map((m) => m[1]);
  for (const found of [by, ...agents]) {
    const party = found?.trim().replace(/^The\s/, 'the ');
    if (!party || NOT_A_PARTY.test(party) || isBrand(party) || party.length > 60) continue;
    return asWritten(party);
  }
  return null;
}

/**
 * A party as a step writes it: a role in lower case, with "the" when the headline's
 * shorthand dropped it ("Regulator investigating Acme": the regulator; "Regulators fined":
 * regulators), an institution with "the" ("the Federal Trade Commission").
 */
function asWritten(party: string): string {
  if (!ROLE_ONLY.test(party)) return inProse(party);
  const role = party.toLowerCase();
  const counted =
    /^(?:the|a|an|its|some|several|\d|two|three|four|five|dozens|hundreds|thousands)\b/.test(role);
  return counted || role.endsWith('s') ? role : `the ${role}`;
}

const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
/** A date ahead: "this week", "on Tuesday", "by Friday", "on Dec. 5", "in mid-August". */
const DATE_AHEAD = new RegExp(
  String.raw`\b(?:call|webcast|meeting|briefing|hearing|vote) at \d{1,2}(?::\d{2})? ?(?:[ap]\.m\.|[ap]m\b)(?: (?:ET|EST|EDT|PT|GMT|BST|CET)\b)?|\b(?:today|tonight|tomorrow|(?:this|next) (?:week|weekend|month)|next ${WEEKDAY}|(?:on|by|for|from|starting|until|through) (?:${WEEKDAY}|${MONTH} \d{1,2}(?:st|nd|rd|th)?|the end of (?:the )?(?:day|week|month))|(?:in|by|until|through) (?:early |mid-|late )?${MONTH}(?! \d))\b`,
  'i',
);
/** Words that put the sentence's event ahead of it: "to be laid off", "will strike", "begins". */
const AHEAD =
  /\b(?:will|to be|is to|are to|set to|plans? to|planned|expected to|due to|scheduled|begins?|starts?|starting|is going to|are going to|threaten(?:s|ed)? to|from)\b/i;

const ALWAYS_AHEAD = new RegExp(
  `^(?:tomorrow|tonight|next (?:week|weekend|month|${WEEKDAY})|(?:call|webcast|meeting|briefing|hearing|vote) at .*)$`,
  'i',
);

/** When the coverage says the event's next turn comes, in its words and as a date. */
export interface Ahead {
  /** The words of the coverage that give it: "WeWork employees to be laid off this week". */
  said: string;
  /**
   * The date as a step writes it after "before": "Tuesday 19 November" for "tomorrow" in
   * an article of Monday 18 November, "the end of Monday 18 November" for "by Monday" or
   * "this week" in it; the coverage's own words ("the end of this week") when the article
   * is undated, so no day is guessed.
   */
  when: string;
}

/**
 * When the coverage says the event's next turn comes ("employees to be laid off this
 * week"), read against the article's date (`published`, YYYY-MM-DD, null when the page
 * gives none): the earliest of the dates the sentences give, since a step done before the
 * earliest is done in time for all; null when they give no date ahead.
 */
export function dateAhead(
  sentences: readonly string[],
  published: string | null = null,
): Ahead | null {
  let best: (Ahead & { offset: number }) | null = null;
  for (const sentence of sentences) {
    const m = DATE_AHEAD.exec(sentence);
    // "Tomorrow" and "next week" lie ahead whatever the verb; "on Tuesday" only with one.
    if (m && (ALWAYS_AHEAD.test(m[0]) || AHEAD.test(sentence))) {
      const date = dateOf(m[0], published);
      const offset = date.offset ?? Number.POSITIVE_INFINITY;
      if (!best || offset < best.offset) {
        best = { said: clauseAround(sentence, m.index, m[0].length), when: date.when, offset };
      }
    }
  }
  return best && { said: best.said, when: best.when };
}

/** Where a clause begins or ends: a comma, a dash, "and", "but", "while". */
const CLAUSE_BREAK = /[,;:()]|\s[—–-]\s|\s(?:and|but|while|as|after|before|because)\s/giu;

/**
 * The clause holding the date, as a step can quote it: from the clause's start to the
 * date ("The Acme console launches tomorrow"), or from the date to the clause's end when
 * the date opens it ("Tomorrow the Acme console launches"), twenty words at most.
 */
function clauseAround(sentence: string, at: number, length: number): string {
  const breaks = [...sentence.matchAll(CLAUSE_BREAK)].map((b) => [b.index, b.index + b[0].length]);
  const start = Math.max(0, ...breaks.filter(([, end]) => end! <= at).map(([, end]) => end!));
  const words = (t: string) => t.split(/\s+/).filter(Boolean);
  // The sentence's full stop goes; the one of "9 a.m." stays.
  // A verb of saying left over from the clause before ("…, says she will be allowed")
  // goes: the coverage "says" it already.
  const quoted = (w: string[]) =>
    w
      .join(' ')
      .replace(/(?<![ap]\.m)[.!?]$/i, '')
      .replace(/^(?:says|said|say|adds|added|told \w+)\s+(?:that\s+)?/i, '');
  const before = words(sentence.slice(start, at + length));
  if (before.length > 2) return quoted(before.slice(-20));
  const end = Math.min(
    sentence.length,
    ...breaks.filter(([b]) => b! >= at + length).map(([b]) => b!),
  );
  return quoted(words(sentence.slice(at, end)).slice(0, 20));
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const monthOf = (word: string) =>
  MONTHS.findIndex((name) => name.toLowerCase().startsWith(word.toLowerCase().slice(0, 3)));

/** "19 November", "Monday 25 November": a day as a step writes it. */
function dayName(d: Date, weekday = false): string {
  const name = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
  if (!weekday) return name;
  const day = WEEKDAYS[d.getUTCDay()]!;
  return `${day[0]!.toUpperCase()}${day.slice(1)} ${name}`;
}

/**
 * A date phrase of the coverage as a date after "before" (Ahead.when), and how many days
 * after the article's it falls (null when undated). Each reads as the earliest day the
 * words allow, since a step done by then is in time whatever was meant: "by Monday" in
 * Monday's paper may be that day, and a span that has begun ("this week") may be today.
 * Undated, the phrase itself without its preposition.
 */
function dateOf(phrase: string, published: string | null): { when: string; offset: number | null } {
  const base = published ? new Date(`${published.slice(0, 10)}T00:00:00Z`) : null;
  const dated = base !== null && !Number.isNaN(base.getTime());
  // "The call at 9 a.m. ET": the time, on the article's day (a results call is the
  // morning the results are out).
  const time = /^(call|webcast|meeting|briefing|hearing|vote) at (.+)$/i.exec(phrase);
  if (time) {
    const day = dated ? ` on ${dayName(base)}` : '';
    return { when: `the ${time[1]!.toLowerCase()} at ${time[2]}${day}`, offset: 0 };
  }
  // Without its preposition: "by Monday" is "Monday".
  const bare = phrase.replace(/^(?:on|by|for|from|starting|until|through|in) /i, '');
  if (!dated) {
    const words = bare.toLowerCase();
    if (/^this (?:week|month)$/.test(words)) return { when: `the end of ${words}`, offset: null };
    // Names of days and months keep their capitals: "before Monday", "by Dec. 5".
    return {
      when: bare
        .replace(/^\p{Lu}(?=\p{Ll}+(?:\s|$))/u, (c) => c.toLowerCase())
        .replace(
          new RegExp(`\\b(?:${WEEKDAY}|${MONTH})`, 'giu'),
          (w) => w[0]!.toUpperCase() + w.slice(1),
        ),
      offset: null,
    };
  }
  // "Next Tuesday" is read as Tuesday, then kept off the article's own day below.
  const words = bare.toLowerCase().replace(new RegExp(`^next (?=${WEEKDAY})`), '');
  // The article's own day is done by its end: "before the end of Monday 18 November".
  const day = (offset: number, weekday = true) => {
    const name = dayName(new Date(base.getTime() + offset * 86_400_000), weekday);
    return { when: offset === 0 ? `the end of ${name}` : name, offset };
  };
  const weekday = WEEKDAYS.indexOf(words);
  if (weekday >= 0) {
    const days = (weekday - base.getUTCDay() + 7) % 7;
    // "Next Tuesday" is never the article's own day.
    return day(days === 0 && /^next /i.test(phrase) ? 7 : days);
  }
  const until = (weekdayIndex: number) => (weekdayIndex - base.getUTCDay() + 7) % 7;
  switch (words) {
    case 'today':
    case 'this week':
    case 'this month':
    case 'the end of the day':
    case 'the end of day':
      return day(0);
    case 'tonight':
      return { when: `the evening of ${dayName(base, true)}`, offset: 0 };
    case 'tomorrow':
      return day(1);
    case 'the end of the week':
    case 'the end of week':
      return day(until(5));
    case 'this weekend':
      return day(until(6));
    case 'next week':
      return day(until(1) || 7);
    case 'next weekend':
      return day(until(6) + 7);
    case 'the end of the month':
    case 'the end of month': {
      const last = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, 0));
      return day(Math.round((last.getTime() - base.getTime()) / 86_400_000));
    }
    case 'next month': {
      const first = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth() + 1, 1));
      return day(Math.round((first.getTime() - base.getTime()) / 86_400_000), false);
    }
  }
  // "Dec. 5", "December 5th": that day, this year or next; "mid-August": its first days.
  const on = /^([a-z]+)\.? (\d{1,2})/.exec(words);
  const month = /^(early |mid-|late )?([a-z]+)\.?$/.exec(words);
  const index = on ? monthOf(on[1]!) : month ? monthOf(month[2]!) : -1;
  if (index < 0) return { when: words, offset: null };
  const dayOfMonth = on
    ? Number(on[2])
    : ({ 'early ': 1, 'mid-': 10, 'late ': 20 }[month![1] ?? ''] ?? 1);
  let target = Date.UTC(base.getUTCFullYear(), index, dayOfMonth);
  if (target < base.getTime() - 31 * 86_400_000)
    target = Date.UTC(base.getUTCFullYear() + 1, index, dayOfMonth);
  const offset = Math.round((target - base.getTime()) / 86_400_000);
  const when = on ? day(offset, false).when : `${month![1] ?? ''}${MONTHS[index]}`;
  // A day of the weeks just gone is no date ahead to plan by: it ranks last.
  return { when, offset: offset < 0 ? null : offset };
}

/** A deadline put to someone: "told to sign the terms by Monday", "must respond by Dec. 5". */
const DEADLINE = new RegExp(
  String.raw`\b(?:sign|respond|reply|accept|agree|decide|register|return|apply|pay|leave|comply|answer)\b[^.;]{0,50}?\b(by (?:${WEEKDAY}|${MONTH} \d{1,2}(?:st|nd|rd|th)?|the end of (?:the )?(?:day|week|month)))\b`,
  'i',
);

/**
 * A deadline the coverage says someone was given ("employees were told to sign the terms of
 * the contract by Monday"): its words ("sign the terms of the contract by Monday") and its
 * date counted from the article's (dateAhead); null when none.
 */
export function deadlineIn(
  sentences: readonly string[],
  published: string | null = null,
): Ahead | null {
  for (const sentence of sentences) {
    const m = DEADLINE.exec(sentence);
    if (m) {
      return {
        said: m[0].replace(/^\p{Lu}/u, (c) => c.toLowerCase()),
        when: dateOf(m[1]!, published).when,
      };
    }
  }
  return null;
}

/**
 * Names that read with "the" in a sentence: an institution ("the New York State Attorney
 * General", "the Federal Trade Commission"), a party, a foundation.
 */
const TAKES_THE =
  /^(?!the\s)(?:[\p{Lu}\d][\p{L}\d.&'’-]*\s+)*(?:Attorney General|Party|Foundation|Commission|Department|Ministry|Office|Authority|Agency|Board|Court|Council|Bureau|Administration|Committee|Inspectorate|Regulator|Union|Federation|Association|University|Museum|Trust|Society|Institute|Service|Group)$/u;

/** A brand's name as it reads in a sentence: "the Conservative Party", "Acme". */
export const inProse = (name: string) =>
  TAKES_THE.test(name.trim()) ? `the ${name.trim()}` : name;
