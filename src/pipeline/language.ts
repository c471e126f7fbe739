import { franc } from 'franc';

/**
 * The language an article is written in (docs/pipeline.md, "Language"), as an ISO 639-1
 * code, by franc's trigram model. Only the languages below are candidates: the news
 * languages we can name with a two-letter code, which also makes franc twice as fast
 * and keeps it from answering a rare language that shares trigrams with a common one.
 */
const ISO_639_1: Record<string, string> = {
  eng: 'en',
  fra: 'fr',
  deu: 'de',
  spa: 'es',
  ita: 'it',
  nld: 'nl',
  por: 'pt',
  pol: 'pl',
  ces: 'cs',
  slk: 'sk',
  slv: 'sl',
  hrv: 'hr',
  srp: 'sr',
  bos: 'bs',
  hun: 'hu',
  ron: 'ro',
  bul: 'bg',
  rus: 'ru',
  ukr: 'uk',
  bel: 'be',
  ell: 'el',
  tur: 'tr',
  swe: 'sv',
  dan: 'da',
  nob: 'nb',
  nno: 'nn',
  fin: 'fi',
  est: 'et',
  lav: 'lv',
  lit: 'lt',
  cat: 'ca',
  glg: 'gl',
  eus: 'eu',
  isl: 'is',
  gle: 'ga',
  cym: 'cy',
  afr: 'af',
  ara: 'ar',
  heb: 'he',
  pes: 'fa',
  urd: 'ur',
  hin: 'hi',
  ben: 'bn',
  tam: 'ta',
  tha: 'th',
  vie: 'vi',
  ind: 'id',
  zlm: 'ms',
  tgl: 'tl',
  swh: 'sw',
  cmn: 'zh',
  jpn: 'ja',
  kor: 'ko',
};
const CANDIDATES = Object.keys(ISO_639_1);

/** Characters read: enough for a sure answer, and a long article costs no more. */
const SAMPLE = 2000;
/** Below this many characters of text, trigrams are too few to tell. */
const MIN_LENGTH = 40;

/** The ISO 639-1 code of the text's language; null when too short or unsure. */
export function detectLanguage(text: string): string | null {
  const sample = text.slice(0, SAMPLE);
  if (sample.replace(/[\s\p{P}\p{N}]+/gu, '').length < MIN_LENGTH) return null;
  const code = franc(sample, { only: CANDIDATES, minLength: MIN_LENGTH });
  return ISO_639_1[code] ?? null;
}

/** An article's language: the one it came with, else detected from its title and text. */
export const languageOf = (article: {
  title: string;
  text: string;
  language?: string | null;
}): string | null =>
  article.language !== undefined
    ? article.language
    : detectLanguage(`${article.title}\n${article.text}`);
