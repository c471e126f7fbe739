import { BrandMatcher, type BrandTerms } from './brand-matcher.js';
import { EVENT_OF_TOPIC, EVENT_TYPES, type EventKind, eventType } from './events.js';
import { boilerplateOf } from './mentions.js';
import { type Ahead, actingParty, dateAhead, deadlineIn } from './particulars.js';
import { splitSentences } from './sentences.js';
import { scoreText } from './taxonomy.js';

/**
 * The situation an article puts a brand in (docs/pipeline.md, "The situation"): what the
 * brand is to the article, what happened to or by it, whether that is alleged,
 * confirmed, denied or over, the harm and who is touched, each fact with the sentence it
 * was read from. Severity, assessment, urgency, the summary's first item and the plan
 * are all computed from it (judge.ts), never from loose keywords.
 */
export type Role = 'subject' | 'involved' | 'source' | 'passing' | 'boilerplate';
export type Status = 'alleged' | 'confirmed' | 'denied' | 'resolved' | 'none';

export interface Situation {
  role: Role;
  event: EventKind;
  status: Status;
  /** An opinion piece (column, op-ed, editorial): it argues, it does not report. */
  opinion: boolean;
  harm: {
    deaths: boolean;
    injuries: boolean;
    /** Personal data or accounts said to be exposed, stolen or accessed. */
    data: boolean;
    /** The largest count of people or things named: "40,000 kettles", "2 million users". */
    scale: string | null;
  };
  stakeholders: string[];
  /**
   * What the brand has already said in the coverage ("Acme said the claims were false",
   * "a spokesperson for Acme defended the change"): the sentence, or null when it has
   * said nothing there. A statement on record is restated, not replaced by a new one.
   */
  onRecord: string | null;
  /**
   * The coverage says the brand has already told a regulator of it ("The company has
   * informed the privacy regulator"), in its sentences or those beside them.
   */
  regulatorTold: boolean;
  /**
   * How a contest the brand took part in ended for it ("Wild beat Sabres 4-1": lost; "lift
   * the Islanders over the Penguins": won), by the headline or else most of its sentences;
   * null when none is told. Read for the tone: a result is news however calmly told.
   */
  outcome: 'won' | 'lost' | null;
  /** The sentences naming the brand outside furniture, the headline first when it does. */
  named: string[];
  /** The headline names the brand (it is then named[0]). */
  headlined: boolean;
  /** The page is on the brand's own site (its host or a subdomain): its own announcement. */
  ownSite: boolean;
  /**
   * A customer's review read from a store or review site (docs/sources.md): the stars it
   * gives, 1 to 5, as its text opens ("1 of 5 stars."); null for anything else.
   */
  stars: number | null;
  /**
   * Who acts against the brand in the sentence telling an adverse event of its own story
   * ("the New York State Attorney General", "three former employees"); null when the
   * sentence does not plainly say.
   */
  by: string | null;
  /**
   * When the coverage says that event's next turn comes, in its words ("WeWork employees
   * to be laid off this week") and as a date counted from the article's.
   */
  ahead: Ahead | null;
  /** A deadline the coverage says someone was given ("sign the terms by Monday"). */
  deadline: Ahead | null;
  /** Why: each fact and the sentence it was read from. */
  facts: Fact[];
}

/** Whether the role makes the story the brand's own (subject or involved), not an aside. */
export const ownsStory = (role: Role) => role === 'subject' || role === 'involved';

/** The sentence the situation's event was read from; empty when it was read from none. */
export const eventSentence = (situation: Situation) =>
  situation.facts.find((f) => f.fact === 'event')?.sentence ?? '';

const TOLD_REGULATOR =
  /\b(?:informed|notified|told|alerted|reported it to) (?:the )?(?:[\w-]+ ){0,3}(?:regulators?|authority|authorities|commissioner|ico|cnil)\b/i;

/** A recall the brand itself is running: "Acme recalls", "announced a voluntary recall". */
const RECALLING =
  /\b(?:is recalling|are recalling|has recalled|have recalled|recalls|(?<!(?:was|were|been|being|be) )recalled|(?:announced|issued|launched|began|started|expanded) (?:a |an |its )?(?:voluntary |precautionary |nationwide |global )?recall|(?:voluntary|precautionary) recall)\b/i;

/** Whether the story is a recall the brand has already started (not one it is urged to). */
export const recallUnderWay = (situation: Situation) =>
  situation.event === 'recall' &&
  situation.status === 'confirmed' &&
  RECALLING.test(eventSentence(situation));

export interface Fact {
  fact: 'role' | 'event' | 'status' | 'harm' | 'opinion';
  value: string;
  sentence: string;
}

export interface SituationArticle {
  title: string;
  text: string;
  url?: string;
  language?: string | null;
  /** The page declares itself opinion in its metadata (extract.ts). */
  opinion?: boolean;
  /** The article's date (ISO), which "tomorrow" and "by Monday" count from. */
  published_at?: string;
  /** The page gave no date: `published_at` is only the day it was read. */
  undated?: boolean;
}

/**
 * Where the brand is only a source: "according to Reuters", "reports seen by Reuters",
 * "data from Similarweb", "(AP)", "told Bloomberg." Read in two steps, because a name is
 * told by its capitals and the words before it are not: the capitalised words right
 * before the brand ("the Wall Street") are set aside, then the phrase before them is
 * looked for. "Told" and "said to" make a source only when the sentence goes on as a
 * quote does ("told Reuters.", "told Reuters on Tuesday"), not "told Acme to halt sales".
 */
const NAME_WORDS_BEFORE = /(?:\s+(?:the|a|an))?(?:\s+\p{Lu}[\p{L}.&'’-]*){0,3}\s*$/u;
const SOURCE_PHRASE =
  /(?:\b(?:according to|seen by|reported by|cited by|quoted by|(?:data|figures|analysis|survey|poll|research|study|report|reporting|estimates?|numbers) (?:by|from)|via|citing|interview with|writing (?:for|in)|first reported by|published (?:by|in)|(?:in|on) (?:an? )?(?:interview|op-ed|column|podcast|article|report|story) (?:with|for|in|on))|\()$/iu;
const TOLD_PHRASE = /\b(?:told|said to|confirmed to|speaking (?:to|with))$/iu;
const QUOTE_GOES_ON =
  /^\s*(?:[,.;:)”"']|(?:on|in|last|this|earlier|that|after|before|late|early)\b)/iu;
/** After the name: "Reuters first reported", "a Reuters reporter" ("(AP)" is read before it). */
const SOURCE_AFTER =
  /^(?:['’]s?)?\s*(?:(?:first|earlier|previously) reported|reported earlier|reporters?\b|journalists?\b|correspondents?\b|columnists?\b|editors?\b|news agency|wire service)/iu;

/**
 * Japanese, where the verb ends the clause: "…は…と伝えた" (reported that), "…が…を発見した"
 * (found), "…によると" (according to).
 */
const SOURCE_AFTER_JA =
  /^[^。]{0,40}?(?:によると|によれば)|^[^。]{0,40}?[はが][^。]*?(?:と伝えた|と報じた|を発見した|発見したか|を発見し)/u;

const CREDIT_END = /^(?:\s+\p{Lu}[\p{L}.&'’-]*){0,2}\s*$/u;

function asSourceAt(text: string, start: number, end: number): boolean {
  const before = text.slice(0, start).replace(NAME_WORDS_BEFORE, '').trimEnd();
  const after = text.slice(end);
  if (SOURCE_PHRASE.test(before) || SOURCE_AFTER.test(after) || SOURCE_AFTER_JA.test(after)) {
    return true;
  }
  // A title's credit: "Extracting … from WinRAR - Check Point Research".
  if (/\s[-–—|]$/.test(before) && CREDIT_END.test(after)) return true;
  return TOLD_PHRASE.test(before) && QUOTE_GOES_ON.test(after);
}

/**
 * Where the brand is only the place something was posted or sold: "posted on Twitter",
 * "links on Reddit", "Android ransomware" (the platform a threat runs on), "get it on Amazon", "watching The Crown on Netflix", "a post on Acme", "across
 * Twitter", "top Twitter trends", "pic.twitter.com/…". A verb of posting must say so:
 * "a fine on Acme" and "pressure on Acme" are about Acme, and a slash between names
 * ("the Gannett/GateHouse merger") is no address.
 */
const VENUE_BEFORE =
  /(?:\b(?:posted|shared|said|wrote|tweeted|announced|published|streamed|streaming|watch(?:ed|ing)?|available|sold|selling|listed|trending|went viral|get it|buy it|find it|reacted|replied|commented|posting|spread(?:s|ing)?|circulat(?:ed|ing|es))\b[^.]{0,40}?\b(?:on|via|through|across)\s+(?:the\s+)?|\b(?:a|the|his|her|their|its|in a) (?:post|video|tweet|message|thread|livestream|story|clip) (?:on|via)\s+|\b(?:links|posts|ads|adverts|videos|messages|threads|comments|tweets) (?:on|via)\s+(?:the\s+)?|\bacross\s+|\w\.|\/\/|\.\w+\/|@)$/iu;
/** Someone's account on it: "its press office Twitter account", "her Instagram page". */
const OWNER_BEFORE = /\b(?:its|his|her|their|our|your|my|\p{L}+['’]s)\s+(?:[\p{L}-]+\s+){0,2}$/iu;
const OWNED_AFTER = /^\s+(?:account|handle|page|channel|feed|profile)\b/iu;
const VENUE_AFTER =
  /^(?:\.\w+\/|\/|\s+(?:trends?|reactions?|feeds?|followers?|handles?|threads?|hashtags?|ransomware|malware|trojans?|spyware|adware|botnets?)\b)/iu;

/**
 * A threat run on the brand's platform against its users ("ransomware spread to Android
 * users", "a phishing scam aimed at PayPal customers' phones"): the brand is where it
 * happens, not who was breached. Its own systems named ("Acme's servers") stay its story.
 */
const THREAT =
  /\b(?:malware|ransomware|trojans?|spyware|adware|phishing|scams?|scammers|botnets?|malicious (?:apps?|links?))\b/i;
const TARGETED_AFTER =
  /^\s+(?:users?|devices?|phones?|handsets?|smartphones?|owners?|victims?|developers?|tablets?)\b/iu;

/**
 * The URL or the page saying it is opinion: a column, an op-ed, an editorial (not a blog:
 * a company's blog is its own news).
 */
const OPINION_URL =
  /\/(?:opinions?|columns?|columnists?|commentary|comment|commentisfree|op-?eds?|editorials?|views?|perspectives?)\//i;
const OPINION_TEXT =
  /\b(?:is a (?:columnist|contributing (?:writer|columnist|editor)|contributor)|the views expressed|this (?:column|op-ed|essay) |opinion columnist|an opinion piece)\b/i;

/**
 * A piece its writer argues in the first person, outside quotes ("what I'll call rewind
 * design", "I'm not complaining"): a column, whatever the page calls it. News speaks in the
 * third person, and a reporter's own "told me", "I heard" is reporting, not arguing.
 */
const FIRST_PERSON =
  /(?<![\p{L}“"‘])I(?:['’](?:m|ll|ve|d)| am| think| believe| suspect| guess| mean| feel| find| hope| wonder| love| hate| want| can['’]t| don['’]t| would| will)\b/u;
function firstPerson(text: string): boolean {
  let n = 0;
  for (const paragraph of text.split(/\n\s*\n|\n/)) {
    // Quoted speech is someone else's voice.
    const own = paragraph.replace(/[“"][^”"]*[”"]/g, '');
    for (const sentence of own.split(/(?<=[.!?])\s+/)) {
      if (FIRST_PERSON.test(sentence) && ++n >= 4) return true;
    }
  }
  return false;
}

/** Where a page says who wrote it and as what: its first and last two paragraphs. */
function bylineParts(text: string): string {
  const paragraphs = text.split(/\n\s*\n|\n/).filter((p) => p.trim());
  return [...paragraphs.slice(0, 2), ...paragraphs.slice(-2)].join('\n');
}

/** A review of a product: the page is one. */
const REVIEW_PAGE =
  /\/reviews?\/|[-/]review(?:[-/.]|$)|\breview\b.*[:|–-]|[:|–-].*\breview\b|^review:/i;

/** How the coverage puts an adverse event: reports it as said, or as fact. */
const STATUS: readonly { status: Status; pattern: RegExp }[] = [
  {
    status: 'denied',
    pattern:
      /\b(?:den(?:y|ies|ied|ying) (?:the |any |all |that\b|it\b|wrongdoing|allegations?|claims?|reports?|responsibility|liability|having|being)|denial|rejects?(?:ed)? (?:the )?(?:claims?|allegations?|accusations?|report)|refut(?:es|ed)|disput(?:es|ed) (?:the )?(?:claims?|allegations?|report)|no evidence (?:of|that)|not (?:a|an) (?:breach|hack|security incident|recall)|(?:was|were|has|have)(?:n't| not)(?: been)? (?:breached|hacked|accessed|compromised|affected)|no (?:customer |personal )?(?:data|information|systems?) (?:was|were|had been) (?:accessed|exposed|stolen|breached|compromised))\b/i,
  },
  {
    status: 'resolved',
    pattern:
      /\b(?:(?:has|have|had|was|were|been) (?:since )?(?:fixed|patched|restored|resolved|settled|addressed)|back online|(?:charges|case|lawsuit|suit|claims?|complaints?|investigation|inquiry|probe)s? (?:was|were|has been|have been) (?:dropped|dismissed|closed|withdrawn|settled)|cleared of|settled (?:the|a|its)|reached a settlement|(?:agreed )?to settle (?:the )?(?:charges|claims|allegations|case|lawsuit|suit)|(?:seems|appears|looks) to be over|(?:seems|appears|looks) (?:like (?:it|they)(?:'s|’s| is| are) )?(?:coming to an end|ending)|(?:row|dispute|feud|standoff|stand-off|strike) (?:is|was|has been) (?:over|ended|resolved)|ended the (?:row|dispute|feud|strike)|(?:fixed|patched|resolved|addressed)["”’]? (?:the |a |its )?(?:problems?|issues?|bugs?|software|flaws?|glitch(?:es)?|faults?))\b/i,
  },
  {
    status: 'confirmed',
    pattern:
      /\b(?:confirm(?:ed|s)|admit(?:ted|s)|acknowledg(?:ed|es)|apologi[sz](?:ed|es)|pleaded guilty|(?:was|were) (?:fined|ordered|convicted|found guilty)|agreed to pay|is recalling|are recalling|recalled|announced (?:a |the )?recall|laid off|has cut|(?:said|says) (?:it|they) (?:had|has|have|would|will) (?:recall|cut|lay|close|fix|notify))\b/i,
  },
  {
    status: 'alleged',
    pattern:
      /\b(?:alleg(?:es|ed|edly|ation|ations)|reported(?:ly)?|accus(?:es|ed|ation)|claim(?:s|ed)?|according to|may have|might have|could have|suspect(?:ed|s)?|purported(?:ly)?|rumou?r|appears? to|investigat(?:es|ed|ing|ion)|lawsuit|sued|sues|complaint|probe)\b/i,
  },
];

/** Words that make a reported fact a claim. */
const HEDGED =
  /\b(?:alleg(?:es|ed|edly|ation|ations)|reportedly|may have|might have|could have|suspect(?:ed|s)?|purported(?:ly)?|rumou?r(?:s|ed)?|unconfirmed|unverified|(?:people|persons|sources) (?:familiar|close) (?:with|to)|anonymous sources?|unnamed sources?)\b/i;

/** Events a report states as its own fact, unless it says otherwise. */
const FACT_BY_DEFAULT: ReadonlySet<EventKind> = new Set([
  'recall',
  'accident',
  'layoffs',
  'labor-dispute',
  'outage',
  'executive-departure',
  'regulator-action',
  'defect',
  'environmental',
  'security-flaw',
]);

/** People, counted or named, for harm to be harm to people ("killed its car project" is not). */
const PEOPLE =
  '(?:people|persons?|children|child|kids?|babies|baby|workers?|passengers?|drivers?|customers?|patients?|residents?|users?|employees?|staff|man|woman|men|women|boys?|girls?|victims?|one|two|three|four|five|six|seven|eight|nine|ten|dozens|hundreds|\\d[\\d,]*)';
const DEATHS = new RegExp(
  `\\b(?:${PEOPLE}\\b[^.]{0,40}\\b(?:were|was|have been|has been|are|is)? ?(?:killed|died|dead)|(?:kill(?:ed|s|ing)?)\\s+(?:at least |more than |nearly )?${PEOPLE}|deaths? of|death toll|fatal(?:ly|ities)?(?! flaw| error| mistake| blow))\\b`,
  'i',
);
const INJURIES = new RegExp(
  `\\b(?:injur(?:ed|ies|y|ing)|${PEOPLE}\\b[^.]{0,30}\\b(?:were|was) hurt|hurt(?:ing)? ${PEOPLE}|hospitali[sz]ed|suffered burns|burn injuries|fell ill|sickened)\\b`,
  'i',
);
const DATA =
  /\b(?:personal (?:data|information|details)|records|passwords|credit cards?|card numbers|social security|email addresses|accounts?|customer data|user data)\b[^.]{0,80}\b(?:exposed|stolen|leaked|compromised|accessed|breached)\b|\b(?:exposed|stole|leaked|compromised|accessed)\b[^.]{0,40}\b(?:personal (?:data|information)|records|passwords|accounts|customer data|user data)\b/i;
// Digits grouped by thousands, or plain: a run of digits and commas is read in one pass.
const SCALE =
  /\b(?:\d{1,3}(?:[,.]\d{3})+|\d+)(?:\.\d+)?\s?(?:million|billion|thousand|m\b|bn\b)?\s?(?:people|customers|users|consumers|patients|passengers|employees|workers|jobs|accounts|records|units|vehicles|cars|products|devices|homes|households|children|drivers|subscribers)\b/i;
const STAKEHOLDERS: readonly [string, RegExp][] = [
  [
    'customers',
    /\b(?:customers?|users?|consumers?|buyers?|owners?|subscribers?|passengers?|patients?|clients?)\b/i,
  ],
  ['employees', /\b(?:employees?|staff|workers?|workforce|union)\b/i],
  [
    'regulators',
    /\b(?:regulators?|authorit(?:y|ies)|commission|ftc|sec|attorneys? general|ministry|watchdog)\b/i,
  ],
  ['investors', /\b(?:investors?|shareholders?|analysts?|shares|stock)\b/i],
  ['partners', /\b(?:partners?|retailers?|suppliers?|distributors?|dealers?)\b/i],
];

/** The title's tail naming its publisher, "… - Reuters", "… | Acme News": not the story's. */
const TITLE_TAIL = /\s+[-–—|]\s+[^-–—|]{2,40}$/;

interface Sentence {
  text: string;
  /** Its place in the article: 0 is the headline, then the body's sentences in order. */
  at: number;
  names: boolean;
  /** Every place naming the brand is it being a source. */
  asSource: boolean;
  /** Every place naming the brand is it being a source or the venue of something. */
  aside: boolean;
  /** Where in the sentence it is first named, 0 … 1 (the headline's subject comes first). */
  position: number;
  /** The brand speaks in it: its name (or its spokesperson's), then a verb of saying. */
  speaks: boolean;
  /** A contest's result for the brand the sentence tells, if any. */
  outcome: 'won' | 'lost' | null;
  /** The brand acts against the conduct the sentence names: "harassment Twitter has banned". */
  enforces: boolean;
  /** The brand is the doer of the conduct the sentence names: "Acme discriminated against". */
  conducts: boolean;
}

/** Sentences of an article read for its subject when no brand is given. */
const LEDE_SENTENCES = 12;

/** The article's sentences, each told whether it names the brand and how. */
function readSentences(article: SituationArticle, matcher: BrandMatcher<true> | null): Sentence[] {
  const read = (text: string, at: number): Sentence => {
    if (!matcher) {
      return {
        text,
        at,
        names: true,
        asSource: false,
        aside: false,
        position: 0,
        speaks: false,
        outcome: null,
        enforces: false,
        conducts: true,
      };
    }
    const found = matcher.occurrences(text);
    const source = (o: { start: number; end: number }) => asSourceAt(text, o.start, o.end);
    const venue = (o: { start: number; end: number }) =>
      VENUE_BEFORE.test(text.slice(0, o.start)) ||
      VENUE_AFTER.test(text.slice(o.end)) ||
      (THREAT.test(text) && TARGETED_AFTER.test(text.slice(o.end))) ||
      (OWNER_BEFORE.test(text.slice(0, o.start)) && OWNED_AFTER.test(text.slice(o.end)));
    return {
      text,
      at,
      names: found.length > 0,
      asSource: found.length > 0 && found.every(source),
      aside: found.length > 0 && found.every((o) => source(o) || venue(o)),
      position: found.length > 0 ? found[0]!.start / Math.max(1, text.length) : 1,
      speaks: found.some(
        (o) =>
          (SPOKE.test(text.slice(o.end)) &&
            !SOMEONE_ELSE_AFTER.test(text.slice(o.end)) &&
            !SOMEONE_ELSE_BEFORE.test(text.slice(0, o.start))) ||
          SPOKE_FOR.test(text.slice(0, o.start)) ||
          (SAID_BY.test(text.slice(0, o.start)) && SPOKESPERSON_AFTER.test(text.slice(o.end))),
      ),
      outcome: outcomeAt(text, found),
      enforces: found.some((o) => ENFORCES.test(text.slice(o.end))),
      conducts: found.some(
        (o) => CONDUCT_AFTER.test(text.slice(o.end)) || CONDUCT_BEFORE.test(text.slice(0, o.start)),
      ),
    };
  };
  const title = article.title.replace(/\s+/g, ' ').trim().replace(TITLE_TAIL, '');
  const out: Sentence[] = [read(title, 0)];
  for (const paragraph of article.text.split(/\n\s*\n|\n/)) {
    // Without a brand the article's own subject is in its headline and lede.
    if (!matcher && out.length > LEDE_SENTENCES) break;
    if (boilerplateOf(paragraph)) continue;
    for (const text of splitSentences(paragraph)) {
      const s = read(text, out.length);
      // A furniture line (paragraphs of it were skipped above) matters only where it would
      // name the brand: the sentence test is costly.
      if (s.names && boilerplateOf(text)) continue;
      out.push(s);
    }
  }
  return out;
}

/**
 * What the brand is to the article, from where and how often it is named: the subject
 * when the headline is about it (names it first) or it runs through the article from
 * the lede; involved when named more than in passing; a source when only quoted as
 * one; passing otherwise.
 */
function roleOf(sentences: readonly Sentence[]): { role: Role; sentence: string } {
  const named = sentences.filter((s) => s.names);
  if (named.length === 0) return { role: 'boilerplate', sentence: '' };
  const own = named.filter((s) => !s.aside);
  if (own.length === 0) {
    const quoted = named.find((s) => s.asSource);
    return quoted
      ? { role: 'source', sentence: quoted.text }
      : { role: 'passing', sentence: named[0]!.text };
  }
  const body = Math.max(1, sentences.length - 1);
  const headline = own[0]!.at === 0 ? own[0] : undefined;
  const inLede = own.some((s) => s.at > 0 && s.at <= 3);
  const share = own.filter((s) => s.at > 0).length / body;
  // A headline about something done to the brand ("EU imposes record fine on Acme") is
  // the brand's story wherever the name stands in it.
  const headlineAdverse =
    headline !== undefined &&
    EVENT_TYPES.some((e) => e.polarity === 'adverse' && e.phrases?.test(headline.text));
  if (
    (headline && (headline.position <= 0.34 || own.length >= 3 || headlineAdverse)) ||
    (inLede && own.length >= 3) ||
    (own.length >= 6 && share >= 0.15) ||
    own.length >= 10
  ) {
    return { role: 'subject', sentence: own[0]!.text };
  }
  if (headline || own.length >= 3 || (inLede && own.length >= 2)) {
    return { role: 'involved', sentence: own[0]!.text };
  }
  return { role: 'passing', sentence: own[0]!.text };
}

/** The taxonomy's product-safety signals that are a recall, in its five languages. */
const RECALL_SIGNAL =
  /^(?:recall|rappel|rückruf|zurückgerufen|retirada|retira del mercado|リコール|自主回収|回収)/i;

/** Verbs of the brand speaking for itself, right after its name or its spokesperson's. */
const SPOKE =
  /^(?:['’]s)?(?:\s+(?:spokes(?:person|man|woman)|chief executive|ceo|chairman|chairwoman|president|representative|statement))?\s*,?\s*(?:\w+\s+){0,2}?(?:said|says|told|stated|defended|denied|responded|replied|insisted|maintained|argued|rejected|disputed)\b/iu;
/**
 * The one saying it is someone else where the name stands in a clause about them ("Kisha
 * Rivera, who works as a cabin cleaner at O'Hare, said") or names the brand's people who
 * are not its voice ("an Acme employee said", "Acme drivers told").
 */
const SOMEONE_ELSE_BEFORE =
  /(?:,\s*(?:who|whose|which)\b|\b(?:works?|worked|working|employed|jobs?|shifts?) (?:as \w+(?: \w+)? )?(?:at|for|by)\s)[^,;]*$/iu;
const SOMEONE_ELSE_AFTER =
  /^(?:['’]s)?\s+(?:\w+\s+)?(?:employees?|workers?|staff(?:ers)?|customers?|users?|drivers?|engineers?|insiders?|sources?|critics?|analysts?|fans?|owners?|investors?|shareholders?)\b/iu;
/**
 * The brand acting against conduct, right after its name ("harassment Twitter has banned
 * before", "the Twitter Rules prohibit harassment"): the wrong is someone else's.
 */
const ENFORCES =
  /^(?:['’]s)?(?:\s+(?:rules|policies|policy|terms|moderators))?\s+(?:has |had |have |will |would )?(?:banned|bans|ban|prohibits?|prohibited|forbids?|forbade|booted|suspended|suspends|removed|removes|took action|takes? action|cracked down|cracks down)\b/iu;
/**
 * Words of conduct that are an accusation only of whoever does it: the brand's when its
 * name is the doer ("Acme discriminated against", "Acme's culture of harassment",
 * "harassment at Acme") or pays for it ("settlements from Acme"), not on a platform
 * whose users do it.
 */
const CONDUCT = /(?<![\p{L}\p{N}])(?:harass|discriminat|violat)/giu;
const CONDUCT_AFTER = /^(?:['’]s)?\s+(?:[\p{L}-]+\s+){0,3}?(?:harass|discriminat|violat)/iu;
const CONDUCT_BEFORE =
  /(?:(?:harass|discriminat|violat)[\p{L}]*\s+(?:\p{L}+\s+)?(?:at|by|within|inside|against)|\b(?:settlements?|payouts?|paid|compensation) (?:from|by))\s+(?:the\s+)?$/iu;
/** Breaking the brand's own rules: "accounts that violated its harassment policies". */
const AGAINST_ITS_RULES =
  /\bviolat(?:ed|es|ing|ions? of) (?:its|their) (?:[\p{L}-]+ ){0,4}?(?:polic(?:y|ies)|rules|terms|guidelines|standards)\b/giu;
/** "a spokesperson for Acme said", "in a statement, Acme …" */
const SPOKE_FOR = /\b(?:spokes(?:person|man|woman)|representative) (?:for|of)\s*$/iu;
/** "…,” said a WeWork spokesperson" */
const SAID_BY = /\b(?:said|says|added|according to)\s+(?:an?|the)\s+$/iu;
const SPOKESPERSON_AFTER = /^\s+(?:spokes(?:person|man|woman)|representative|statement)\b/iu;

/**
 * A contest's result told around the brand's name: the verb before it has the brand on
 * the losing side ("Wild beat the Sabres", "a win over the Sabres") or the winning one
 * ("lift the Islanders over", "lost to the Islanders"); the verb after it, the other way
 * round ("the Sabres lost", "Chargers' loss to the Chiefs", "the Islanders beat").
 */
const TEAM_BEFORE = String.raw`(?:the\s+)?(?:[\p{Lu}\d][\p{L}\d.'’&-]*\s+){0,3}$`;
const LOST_BEFORE = new RegExp(
  String.raw`\b(?:beat|beats|beating|defeat(?:s|ed|ing)?|edged?|edges|edging|rout(?:s|ed)?|down(?:s|ed)|top(?:s|ped)|blank(?:s|ed)|outscored?|outlast(?:s|ed)|(?:win|wins|victory|triumph) (?:over|against)|\d+-\d+ (?:win|victory) (?:over|against))\s+${TEAM_BEFORE}`,
  'u',
);
const WON_BEFORE = new RegExp(
  String.raw`\b(?:lift(?:s|ed)?|(?:lost|loses|lose|losing|loss|fell|falls?) to|beaten by|defeated by|upset by)\s+${TEAM_BEFORE}`,
  'u',
);
const WON_AFTER =
  /^(?:['’]s?)?\s+(?:\p{L}+\s+){0,2}?(?:beat|beats|defeated|defeats|won|wins|edged|edges|routed|routs|downed|topped|blanked|clinched|(?:(?:\d+-\d+ )?(?:win|victory|triumph)) (?:over|against))\b/iu;
const LOST_AFTER =
  /^(?:['’]s?)?\s+(?:\p{L}+\s+){0,2}?(?:lost|lose|loses|fell to|fall to|falls to|(?:were|was) (?:beaten|defeated|routed|eliminated|knocked out)|(?:(?:\d+-\d+ )?(?:loss|defeat)) (?:to|against)|having lost)\b/iu;

/** A result told later in the brand's clause: "the Chargers' hopes … after Monday's loss to the Chiefs". */
const LOST_LATER = /^[^.;:]{0,120}?\b(?:loss|defeat) (?:to|against) (?:the )?\p{Lu}/u;
const WON_LATER = /^[^.;:]{0,120}?\b(?:win|victory|triumph) (?:over|against) (?:the )?\p{Lu}/u;

function outcomeAt(
  text: string,
  found: readonly { start: number; end: number }[],
): 'won' | 'lost' | null {
  for (const o of found) {
    const before = text.slice(Math.max(0, o.start - 80), o.start);
    const after = text.slice(o.end, o.end + 80);
    if (LOST_BEFORE.test(before) || LOST_AFTER.test(after)) return 'lost';
    if (WON_BEFORE.test(before) || WON_AFTER.test(after)) return 'won';
  }
  // Told after the name, the result is the named side's when nothing before it tells one.
  const after = text.slice(found[0]?.end ?? text.length);
  if (found.length > 0 && LOST_LATER.test(after)) return 'lost';
  if (found.length > 0 && WON_LATER.test(after)) return 'won';
  return null;
}

/** The result the headline tells, or else most of the brand's sentences. */
function outcomeOf(own: readonly Sentence[]): 'won' | 'lost' | null {
  if (own[0]?.at === 0 && own[0].outcome) return own[0].outcome;
  const won = own.filter((s) => s.outcome === 'won').length;
  const lost = own.filter((s) => s.outcome === 'lost').length;
  return won > lost ? 'won' : lost > won ? 'lost' : null;
}

/** The events a sentence reports, in precedence order. */
const eventsIn = (sentence: string): EventKind[] =>
  EVENT_TYPES.filter((e) => e.phrases?.test(sentence)).map((e) => e.kind);

/**
 * The event: the headline's when it reports one about the brand; else the weightiest
 * adverse event the brand's own sentences report, or failing that the one they report
 * most. Other languages than English are read by the taxonomy's topics.
 */
function eventOf(
  article: SituationArticle,
  sentences: readonly Sentence[],
  own: readonly Sentence[],
  role: Role,
): { event: EventKind; sentence: string } {
  if (role === 'source' || role === 'boilerplate') return { event: 'none', sentence: '' };
  const english = !article.language || article.language === 'en';
  if (!english) {
    const text = own.map((s) => s.text).join('\n');
    const scored = scoreText(text, article.language);
    const topic = scored.topics[0];
    const reason = scored.reasons[0];
    if (topic && EVENT_OF_TOPIC[topic] && reason) {
      const recall = topic === 'product-safety' && RECALL_SIGNAL.test(reason.signal);
      return { event: recall ? 'recall' : EVENT_OF_TOPIC[topic]!, sentence: reason.sentence };
    }
    return { event: role === 'subject' ? 'profile' : 'none', sentence: own[0]?.text ?? '' };
  }
  const headline = own[0]?.at === 0 ? own[0] : undefined;
  // An accusation in a sentence where the brand enforces against the conduct, or of
  // breaking the brand's own rules, is another's.
  const eventsOf = (s: Sentence) => {
    const text = s.text.replace(AGAINST_ITS_RULES, '');
    return eventsIn(s.conducts ? text : text.replace(CONDUCT, '')).filter(
      (k) => !(s.enforces && k === 'accusation'),
    );
  };
  const first = headline ? eventsOf(headline)[0] : undefined;
  const counts = new Map<EventKind, { n: number; sentence: string; lede: boolean }>();
  // A headline that tells no news ("What's the hold-up at SpaceX?") leaves it to the
  // body's first two sentences naming the brand, wherever they stand.
  const ownLede = new Set(
    own
      .filter((s) => s.at > 0 && first === undefined)
      .slice(0, 2)
      .map((s) => s.at),
  );
  for (const s of own) {
    for (const kind of new Set(eventsOf(s))) {
      const c = counts.get(kind) ?? { n: 0, sentence: s.text, lede: false };
      c.n += 1;
      c.lede ||= s.at <= LEDE || ownLede.has(s.at);
      counts.set(kind, c);
    }
  }
  // An adverse event told once deep in the article is background ("JPMorgan paid $1.1
  // billion to settle charges" in a story of its profits): it is the story's when the
  // headline or the lede tells it, or the brand's sentences tell it more than once.
  const prominent = (kind: EventKind) => {
    const c = counts.get(kind);
    return c !== undefined && (role === 'passing' || c.lede || c.n >= 2 || kind === first);
  };
  // The headline's event, unless the brand's sentences report a graver one, prominently
  // ("Outrage as Acme heaters kill two children" is the deaths' story, not the outrage's).
  const graver = [...counts.keys()].some(
    (k) => prominent(k) && eventType(k).weight > eventType(first ?? 'none').weight,
  );
  if (headline && first && !graver) return { event: first, sentence: headline.text };
  // A review page is a review of what the brand makes, unless the brand's sentences
  // report something adverse.
  const review = REVIEW_PAGE.test(`${article.url ?? ''} ${article.title}`);
  const adverse = [...counts.entries()]
    .filter(([k]) => eventType(k).polarity === 'adverse' && prominent(k))
    .sort(
      ([a, x], [b, y]) =>
        eventType(b).weight - eventType(a).weight ||
        y.n - x.n ||
        EVENT_TYPES.findIndex((e) => e.kind === a) - EVENT_TYPES.findIndex((e) => e.kind === b),
    );
  if (!adverse[0] && review && role !== 'passing') {
    return { event: 'review', sentence: article.title };
  }
  // Then good or neutral news the article leads with; a passing mention's event is what
  // its one sentence says of the brand, if anything.
  const news = [...counts.entries()]
    .filter(([k]) => eventType(k).polarity !== 'adverse' && prominent(k))
    .sort(([, x], [, y]) => y.n - x.n)[0];
  // Told only in passing, criticism is still the tone of the piece (it argues; it is
  // medium at most), while good news told in passing is not what the piece is about: a
  // column calling the brand's innovation "backwards" is no launch to amplify.
  const tone = [...counts.entries()].find(([k]) => k === 'criticism');
  const pick = adverse[0] ?? news ?? tone;
  if (pick) return { event: pick[0], sentence: pick[1].sentence };
  if (review) return { event: 'review', sentence: article.title };
  const told = role === 'subject' ? toldAfter(sentences, own) : undefined;
  if (told) return told;
  return { event: role === 'subject' ? 'profile' : 'none', sentence: own[0]?.text ?? '' };
}

/**
 * A grave event the lede tells right after a sentence naming the brand, without naming it
 * again ("… cancelling Boeing's Max 737 flights. The U.S. was one of the last countries to
 * ground the plane after a second deadly crash"): the story the brand's news follows from.
 * Read only when the brand's own sentences tell no event.
 */
function toldAfter(
  sentences: readonly Sentence[],
  own: readonly Sentence[],
): { event: EventKind; sentence: string } | undefined {
  const after = new Set(own.filter((s) => s.at > 0 && s.at <= LEDE + 1).map((s) => s.at + 1));
  for (const s of sentences) {
    if (!after.has(s.at) || s.names) continue;
    const grave = eventsIn(s.text).find(
      (k) => eventType(k).polarity === 'adverse' && eventType(k).weight >= 2,
    );
    if (grave) return { event: grave, sentence: s.text };
  }
  return undefined;
}

/** A sentence whose speaker is the brand without its name: "The company denied …". */
const THE_BRAND_SAYS =
  /^(?:["“][^"”]*["”],?\s*)?(?:the (?:company|firm|group|business|bank|airline|carrier|retailer|carmaker|automaker|maker|manufacturer|platform|network|channel|club|party|agency|utility|operator|brand)|it|its (?:spokes\w+|statement|lawyers?)|an? (?:company )?spokes\w+|in a statement)\b/i;

/**
 * The brand speaking without its name, as "the company", "the party" or its spokesperson.
 * Not "it" or "the group": in "… demanded staff. The group said" the group is often
 * someone else.
 */
const THE_BRAND_SPEAKS =
  /^(?:["“][^"”]*["”],?\s*)?(?:the (?:company|firm|bank|airline|carrier|retailer|carmaker|automaker|manufacturer|utility|operator|brand|party)|(?:a|the) (?:company )?spokes(?:person|man|woman))\b/i;

/**
 * What the brand has said in the coverage: a sentence where it speaks by name, or else one
 * of the two after a sentence naming it where it speaks without it ("The party defended
 * the move.").
 */
function onRecordOf(sentences: readonly Sentence[], own: readonly Sentence[]): string | null {
  const named = own.find((s) => s.speaks);
  if (named) return named.text;
  for (const s of own) {
    for (const next of sentences.slice(s.at + 1, s.at + 3)) {
      const m = THE_BRAND_SPEAKS.exec(next.text);
      if (m && SPOKE.test(next.text.slice(m.index + m[0].length))) return next.text;
    }
  }
  return null;
}

/** The brand acknowledging an official process: "we received an inquiry", "cooperating". */
const ACKNOWLEDGED =
  /\b(?:cooperat(?:e|es|ed|ing)|received (?:a|an|the) (?:inquiry|request|subpoena|letter|notice|complaint|summons)|(?:is|are) (?:responding|complying))\b/i;

/** The verbs of defending an act on record. */
const DEFENDS = String.raw`\b(?:defended|defends|stood by|stands by)`;
/** An act defended on record: it happened, whatever it is called. */
const DEFENDED = new RegExp(
  String.raw`${DEFENDS} (?:the |its |their |his |her )?(?:[\w’'-]+ )?(?:actions?|decision|move|change|post|posts|tweets?|video|advert|ad|campaign|policy|account|choice)\b|\bmakes? no apology\b`,
  'i',
);
/** An act defended as the brand's by its kind, away from its name ("the party's actions"). */
const FOR_THE_BRAND = new RegExp(
  String.raw`${DEFENDS} the (?:party|company|firm|group|campaign|club|organi[sz]ation)[’']s\b`,
  'i',
);

/** The headline and the body's first sentences: where a report tells its news. */
const LEDE = 3;

/** The phrases of one status. */
const statusPattern = (status: Status) => STATUS.find((s) => s.status === status)!.pattern;

/** How the coverage puts the event, from the sentences reporting it. */
function statusOf(
  event: EventKind,
  reporting: readonly string[],
  around: readonly string[],
  brandSays: (sentence: string) => boolean,
): { status: Status; sentence: string } {
  if (eventType(event).polarity !== 'adverse') return { status: 'none', sentence: '' };
  // A fix is often told apart from the problem ("a coding bug that has since been patched"):
  // any sentence about the brand may say it is over.
  const fixed = around.find((s) => statusPattern('resolved').test(s));
  if (fixed && !reporting.some((s) => statusPattern('denied').test(s))) {
    return { status: 'resolved', sentence: fixed };
  }
  for (const { status, pattern } of STATUS) {
    // What a report states as fact ("PG&E began shutting off power") is alleged only when
    // it hedges it: an attribution ("according to the utility") is no hedge.
    const test = status === 'alleged' && FACT_BY_DEFAULT.has(event) ? HEDGED : pattern;
    // A denial is the brand's only when it is the brand denying ("Ailes denied the
    // allegations" leaves Fox News's story as it was).
    const sentence = reporting.find((s) => test.test(s) && (status !== 'denied' || brandSays(s)));
    if (sentence) return { status, sentence };
  }
  return {
    status: FACT_BY_DEFAULT.has(event) ? 'confirmed' : 'alleged',
    sentence: reporting[0] ?? '',
  };
}

/** Whether a URL is on the host or one of its subdomains ("www.acme.com" for acme.com). */
function onHost(url: string | undefined, host: string): boolean {
  if (!url) return false;
  try {
    const h = new URL(url).hostname.toLowerCase();
    const own = host.toLowerCase();
    return h === own || h.endsWith(`.${own}`);
  } catch {
    return false;
  }
}

/** The situation one article puts the brand in (the whole article's subject without one). */
export function situationOf(article: SituationArticle, brand?: BrandTerms): Situation {
  // The same source object is read for a story's scores, its advisory and a proposal's
  // brief: once is enough. (A copy of an article, as withJudgement makes, is read again.)
  const known = READ.get(article)?.get(brand ?? NO_BRAND);
  if (known) return known;
  const situation = readSituation(article, brand);
  const byBrand = READ.get(article) ?? new WeakMap<object, Situation>();
  byBrand.set(brand ?? NO_BRAND, situation);
  READ.set(article, byBrand);
  return situation;
}

const STAFF_EVENTS: ReadonlySet<EventKind> = new Set(['labor-dispute', 'layoffs']);
const EMPLOYED_BY =
  /\b(?:contracted|employed|hired|paid|subcontracted) by ([\p{Lu}][^,.;:]{1,60})/u;

/** The article says the staff concerned work for someone other than the brand. */
function otherEmployer(sentences: readonly Sentence[], matcher: BrandMatcher<true>): boolean {
  return sentences.some((s) => {
    const employer = EMPLOYED_BY.exec(s.text)?.[1];
    return employer !== undefined && matcher.occurrences(employer).length === 0;
  });
}

/**
 * Events whose next turn is on a calendar (a results call, a listing, a launch day; a row
 * over, until the show it was about): the plan is timed to the earliest date the brand's
 * sentences, or those beside them, give
 * (terms "set to be announced later on Friday", before "the listing … next Tuesday").
 */
const SCHEDULED: ReadonlySet<EventKind> = new Set(['earnings', 'deal', 'launch']);

/** Situations read, by article and brand object (sources are not changed once read). */
const READ = new WeakMap<object, WeakMap<object, Situation>>();
const NO_BRAND = {};

/** How a customer review read by a connector opens: "1 of 5 stars." */
const CUSTOMER_STARS = /^([1-5]) of 5 stars\./;

function readSituation(article: SituationArticle, brand?: BrandTerms): Situation {
  // One matcher for the brand serves every reading below.
  const matcher = brand ? new BrandMatcher([{ brand: true as const, terms: brand }]) : null;
  const sentences = readSentences(article, matcher);
  const read = roleOf(sentences);
  const own = sentences.filter((s) => s.names && !s.aside);
  const opinion =
    article.opinion === true ||
    OPINION_URL.test(article.url ?? '') ||
    /^(?:opinion|comment|column|editorial)\s*[:|]/i.test(article.title) ||
    OPINION_TEXT.test(bylineParts(article.text)) ||
    (firstPerson(article.text) && !REVIEW_PAGE.test(`${article.url ?? ''} ${article.title}`));
  const found = eventOf(article, sentences, own, read.role);
  // A strike or cuts by another employer's staff at the brand's site ("those striking are
  // contracted by Prospect Airport Services") is news at the brand, not its own dispute.
  const role =
    read.role === 'subject' &&
    matcher !== null &&
    STAFF_EVENTS.has(found.event) &&
    otherEmployer(sentences, matcher)
      ? 'involved'
      : read.role;
  const roleSentence = read.sentence;
  // What reports the event: the brand's sentences and those either side of them.
  const near = new Set<number>();
  for (const s of own) for (const j of [s.at - 1, s.at, s.at + 1]) near.add(j);
  const around = sentences.filter((s) => near.has(s.at)).map((s) => s.text);
  const phrases = eventType(found.event).phrases;
  const reporting = phrases ? around.filter((s) => phrases.test(s)) : [];
  const ownTexts = new Set(own.map((s) => s.text));
  const reported = statusOf(
    found.event,
    reporting.length > 0 ? reporting : [found.sentence],
    ownsStory(role) ? around : [],
    (sentence) => ownTexts.has(sentence) || THE_BRAND_SAYS.test(sentence),
  );
  const onRecord = onRecordOf(sentences, own);
  // An inquiry the brand itself says it received, or is cooperating with, is confirmed,
  // however the reporter sourced it ("according to two people familiar with the matter").
  // An act someone defends for the brand on record ("Raab defended the party's actions",
  // "we make no apology") happened: only what it means is disputed.
  const defended =
    reported.status === 'alleged' && (found.event === 'accusation' || found.event === 'criticism')
      ? [...around, ...sentences.map((t) => t.text).filter((t) => FOR_THE_BRAND.test(t))].find(
          (t) => DEFENDED.test(t),
        )
      : undefined;
  const status =
    reported.status === 'alleged' &&
    (found.event === 'regulator-action' || found.event === 'lawsuit') &&
    onRecord !== null &&
    ACKNOWLEDGED.test(onRecord)
      ? { status: 'confirmed' as const, sentence: onRecord }
      : defended
        ? { status: 'confirmed' as const, sentence: defended }
        : reported;
  const about = ownsStory(role) ? around : [];
  const adverse = eventType(found.event).polarity === 'adverse';
  const harmSentence = (pattern: RegExp) =>
    adverse ? about.find((s) => pattern.test(s)) : undefined;
  const deaths = harmSentence(DEATHS);
  const injuries = harmSentence(INJURIES);
  const data = harmSentence(DATA);
  const scaleSentence = harmSentence(SCALE);
  const facts: Fact[] = [
    { fact: 'role', value: role, sentence: roleSentence },
    { fact: 'event', value: found.event, sentence: found.sentence },
  ];
  if (status.status !== 'none')
    facts.push({ fact: 'status', value: status.status, sentence: status.sentence });
  if (opinion) facts.push({ fact: 'opinion', value: 'opinion piece', sentence: article.title });
  for (const [value, sentence] of [
    ['deaths', deaths],
    ['injuries', injuries],
    ['data exposed', data],
  ] as const) {
    if (sentence) facts.push({ fact: 'harm', value, sentence });
  }
  const live =
    adverse && ownsStory(role) && status.status !== 'denied' && status.status !== 'resolved';
  const published = article.undated ? null : (article.published_at ?? null);
  return {
    role,
    event: found.event,
    status: status.status,
    opinion,
    harm: {
      deaths: deaths !== undefined,
      injuries: injuries !== undefined,
      data: data !== undefined,
      scale: scaleSentence ? (SCALE.exec(scaleSentence)?.[0] ?? null) : null,
    },
    stakeholders: STAKEHOLDERS.filter(([, p]) => about.some((s) => p.test(s))).map(([k]) => k),
    // One who defends the brand's acts as its own ("Foreign Secretary Dominic Raab defended
    // the party's actions") speaks for it: that is its line on record (the fourteenth read:
    // "find whether anyone has answered" under a summary quoting Raab's defence).
    onRecord: onRecord ?? (defended && FOR_THE_BRAND.test(defended) ? defended : null),
    regulatorTold: about.some((t) => TOLD_REGULATOR.test(t)),
    outcome: outcomeOf(own),
    named: sentences.filter((s) => s.names).map((s) => s.text),
    headlined: sentences[0]!.names,
    ownSite: brand !== undefined && onHost(article.url, brand.host),
    stars: Number(CUSTOMER_STARS.exec(article.text)?.[1]) || null,
    by:
      matcher && live
        ? actingParty(found.sentence, (t) => matcher.occurrences(t).length > 0)
        : null,
    ahead: live
      ? dateAhead([sentences[0]!.text, found.sentence], published)
      : ownsStory(role) && (SCHEDULED.has(found.event) || (adverse && status.status === 'resolved'))
        ? dateAhead([sentences[0]!.text, found.sentence, ...around], published)
        : null,
    deadline: live ? deadlineIn(around, published) : null,
    facts,
  };
}
