/**
 * The topic taxonomy and how an article's severity follows from it (docs/pipeline.md,
 * "Topics and severity"). Deterministic: the same text always gets the same answer, and
 * every answer can be explained by the signals that were found.
 */

import { sentenceAround } from './sentences.js';

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/**
 * Signal lists exist for these languages; an article in another language, or in one
 * not known, is read with the English lists (as before languages were told apart).
 * An article is read with its own language's list only: "court" is English for a
 * tribunal and French for short.
 */
export const SIGNAL_LANGUAGES = ['en', 'fr', 'de', 'es', 'ja'] as const;
export type SignalLanguage = (typeof SIGNAL_LANGUAGES)[number];
type Signals = Record<SignalLanguage, readonly string[]>;

export interface Topic {
  tag: string;
  /** Risk weight: what the topic adds to the severity score. 0 marks good news. */
  weight: number;
  /** Word stems that signal the topic, matched at the start of a word, by language. */
  signals: Signals;
  /** A topic this one is part of when both are found: then only that one counts. */
  partOf?: string;
}

/** In order of risk; a story's topics are listed in this order. */
export const TOPICS: readonly Topic[] = [
  {
    tag: 'product-safety',
    weight: 3,
    signals: {
      en: [
        'recall',
        'injur',
        'defect',
        'unsafe',
        'contaminat',
        'hazard',
        'overheat',
        'fire risk',
        'choking',
      ],
      fr: [
        'rappel',
        'blessé',
        'blessure',
        'défaut',
        'défectueu',
        'dangereu',
        'contamin',
        'surchauffe',
        'incendie',
        'étouffement',
      ],
      de: [
        'rückruf',
        'zurückgerufen',
        'verletz',
        'defekt',
        'mangelhaft',
        'gefährlich',
        'kontaminiert',
        'überhitz',
        'brandgefahr',
      ],
      es: [
        'retirada',
        'retira del mercado',
        'herido',
        'lesion',
        'defectuos',
        'peligros',
        'contaminad',
        'sobrecalent',
        'riesgo de incendio',
        'asfixia',
      ],
      ja: [
        'リコール',
        '自主回収',
        '回収',
        '欠陥',
        '発火',
        '負傷',
        'けが',
        '危険性',
        '異物混入',
        '過熱',
      ],
    },
  },
  {
    tag: 'data-privacy',
    weight: 3,
    signals: {
      en: [
        'data breach',
        'breach',
        'leaked',
        'hacked',
        'hacker',
        'ransomware',
        'personal data',
        'privacy breach',
        'privacy violation',
        'violated privacy',
        'privacy complaint',
        'privacy investigation',
        'privacy lawsuit',
        'exposed records',
      ],
      fr: [
        'fuite de données',
        'piratage',
        'piraté',
        'pirates informatiques',
        'rançongiciel',
        'cyberattaque',
        'données personnelles',
        'vie privée',
      ],
      de: [
        'datenleck',
        'datenpanne',
        'gehackt',
        'hacker',
        'cyberangriff',
        'ransomware',
        'erpressungssoftware',
        'personenbezogene daten',
        'datenschutz',
      ],
      es: [
        'filtración de datos',
        'brecha de datos',
        'hackeado',
        'pirata informático',
        'piratas informáticos',
        'ransomware',
        'datos personales',
        'privacidad',
      ],
      ja: [
        '情報漏えい',
        '情報漏洩',
        '漏えい',
        '漏洩',
        '流出',
        '不正アクセス',
        'ハッキング',
        'ランサムウェア',
        '個人情報',
      ],
    },
  },
  {
    tag: 'security',
    weight: 3,
    // A data breach is the security incident: one topic, one weight.
    partOf: 'data-privacy',
    signals: {
      en: [
        'exploit',
        'vulnerabilit',
        'zero-day',
        'cyberattack',
        'cyber attack',
        'malware',
        'ddos',
        'phishing',
        'security flaw',
        'security hole',
        'backdoor',
        'crashes servers',
      ],
      fr: [
        'faille de sécurité',
        'vulnérabilit',
        'cyberattaque',
        'logiciel malveillant',
        'hameçonnage',
        'porte dérobée',
      ],
      de: [
        'sicherheitslücke',
        'schwachstelle',
        'cyberangriff',
        'schadsoftware',
        'phishing',
        'hintertür',
      ],
      es: [
        'vulnerabilidad',
        'ciberataque',
        'malware',
        'software malicioso',
        'phishing',
        'fallo de seguridad',
        'puerta trasera',
      ],
      ja: [
        '脆弱性',
        'ゼロデイ',
        'マルウェア',
        'サイバー攻撃',
        'フィッシング',
        'バックドア',
        '悪用',
      ],
    },
  },
  {
    tag: 'legal-regulatory',
    weight: 2,
    signals: {
      en: [
        'lawsuit',
        'sued',
        // A court, not courtesy, a courtyard or courting.
        'courts?\\b',
        'courtroom',
        'regulator',
        'fined',
        'penalt',
        'investigation',
        'probe',
        'settlement',
        'antitrust',
      ],
      fr: [
        'procès',
        'poursuivi',
        'poursuites',
        'tribunal',
        'régulateur',
        'amende',
        'sanctionné',
        'enquête',
        'antitrust',
        'condamné',
        'cour de',
        'fraude',
        'évasion fiscale',
        'paradis fisca',
      ],
      de: [
        'klage',
        'verklagt',
        'gericht',
        'aufsichtsbehörde',
        'bußgeld',
        'ermittlung',
        'kartell',
        'verurteilt',
        'betrug',
        'steuerhinterziehung',
        'steueroase',
      ],
      es: [
        'demanda',
        'demandad',
        'tribunal',
        'regulador',
        'multa',
        'sancionad',
        'investigación',
        'antimonopolio',
        'condenad',
        'fraude',
        'evasión fiscal',
        'paraíso fiscal',
      ],
      ja: [
        '訴訟',
        '提訴',
        '裁判',
        '判決',
        '規制当局',
        '罰金',
        '制裁金',
        '課徴金',
        '捜査',
        '独占禁止',
        '和解金',
      ],
    },
  },
  {
    tag: 'labor',
    weight: 2,
    signals: {
      en: ['strike', 'layoff', 'laid off', 'union', 'walkout'],
      fr: [
        'grève',
        'licenciement',
        'licencié',
        'syndicat',
        'plan social',
        'suppressions de postes',
      ],
      de: ['streik', 'entlassung', 'stellenabbau', 'gewerkschaft', 'arbeitsniederlegung'],
      es: ['huelga', 'despido', 'sindicato', 'ere', 'paro laboral'],
      ja: ['ストライキ', '人員削減', 'リストラ', '解雇', '労働組合'],
    },
  },
  {
    tag: 'environment',
    weight: 2,
    signals: {
      en: ['emission', 'pollut', 'spill', 'toxic', 'deforest'],
      fr: ['émission', 'pollu', 'déversement', 'marée noire', 'toxique', 'déforest'],
      de: ['emission', 'verschmutz', 'umweltverschmutz', 'ölpest', 'giftig', 'abholzung'],
      es: ['emisiones', 'contamina', 'vertido', 'marea negra', 'tóxic', 'deforest'],
      ja: ['排出', '汚染', '有害物質', '森林破壊'],
    },
  },
  {
    tag: 'customer-experience',
    weight: 1,
    signals: {
      en: ['complain', 'outage', 'refund', 'delays', 'customer service', 'downtime'],
      fr: [
        'réclamation',
        'panne',
        'rembourse',
        'retards',
        'service client',
        'interruption de service',
      ],
      de: ['beschwerde', 'ausfall', 'störung', 'rückerstattung', 'verspätung', 'kundenservice'],
      es: [
        'queja',
        'reclamación',
        'apagón',
        'caída del servicio',
        'reembolso',
        'retrasos',
        'atención al cliente',
      ],
      ja: ['苦情', '通信障害', 'システム障害', '障害が発生', '不具合', '返金', '遅延'],
    },
  },
  {
    tag: 'leadership',
    weight: 1,
    signals: {
      // Departures, not titles: "CEO Tim Cook said" is no leadership news.
      en: [
        'resign',
        'step down',
        'steps down',
        'stepped down',
        'stepping down',
        'ousted',
        'was fired',
        'sacked',
        'interim ceo',
        'interim chief executive',
      ],
      fr: [
        'démission',
        'démissionne',
        'quitte ses fonctions',
        'limogé',
        'limogeage',
        'pdg par intérim',
      ],
      de: ['rücktritt', 'tritt zurück', 'abberufen', 'entlassen'],
      es: ['dimisión', 'dimite', 'destituido', 'cesado'],
      ja: ['辞任', '退任', '解任', '更迭'],
    },
  },
  {
    tag: 'financial',
    weight: 1,
    signals: {
      en: ['earnings', 'revenue', 'profit', 'quarterly results', 'shares fell', 'stock price'],
      fr: [
        'chiffre d’affaires',
        "chiffre d'affaires",
        'bénéfice',
        'résultats trimestriels',
        'résultats annuels',
        'action a chuté',
        'cours de bourse',
      ],
      de: ['umsatz', 'gewinn', 'quartalszahlen', 'quartalsergebnis', 'aktienkurs', 'aktie fiel'],
      es: [
        'beneficio',
        'facturación',
        'ingresos',
        'resultados trimestrales',
        'las acciones cayeron',
        'cotización',
      ],
      ja: ['決算', '売上高', '営業利益', '純利益', '株価'],
    },
  },
  {
    tag: 'product-launch',
    weight: 0,
    signals: {
      en: ['launch', 'unveil', 'introduces', 'new product'],
      fr: ['lance', 'lancement', 'dévoile', 'nouveau produit'],
      de: ['stellt vor', 'präsentiert', 'neues produkt', 'markteinführung'],
      es: ['lanza', 'lanzamiento', 'nuevo producto'],
      ja: ['発売', '提供開始', '新製品', '新サービス'],
    },
  },
  {
    tag: 'recognition',
    weight: 0,
    signals: {
      en: ['award', 'honored', 'honoured', 'praised', 'ranked'],
      fr: ['récompens', 'distingué', 'lauréat', 'salué'],
      de: ['auszeichnung', 'ausgezeichnet', 'preisträger', 'gelobt'],
      es: ['premio', 'premiad', 'galardon', 'reconocimiento'],
      ja: ['受賞', '表彰', '賞を'],
    },
  },
];

/** Words that make any risk worse; they add 2 to the score once. */
export const INTENSIFIERS: Signals = {
  en: [
    'death',
    'died',
    'killed',
    'fatal',
    'class action',
    'boycott',
    'criminal',
    'arrested',
    'millions of',
  ],
  fr: [
    'mort',
    'décès',
    'décédé',
    'tué',
    'mortel',
    'action collective',
    'action de groupe',
    'boycott',
    'pénal',
    'interpellé',
    'des millions de',
  ],
  de: [
    'tod',
    'tote',
    'gestorben',
    'getötet',
    'tödlich',
    'sammelklage',
    'boykott',
    'strafrechtlich',
    'festgenommen',
    'verhaftet',
    'millionen',
  ],
  es: [
    'muerte',
    'murió',
    'muertos',
    'fallecid',
    'mortal',
    'demanda colectiva',
    'boicot',
    'penal',
    'detenid',
    'arrestad',
    'millones de',
  ],
  ja: ['死亡', '死者', '死去', '集団訴訟', '不買運動', '逮捕', '刑事', '数百万'],
};

export interface Scored {
  topics: string[];
  severity: Severity;
  /** The sum the severity was read from, kept for explanations and tests. */
  score: number;
  /** Only good-news topics were found. */
  positive: boolean;
  /** Why: each topic found (and the intensifier) with the words and sentence it fired on. */
  reasons: Reason[];
}

/** One signal that fired: the topic (or `intensifier`), the words, the sentence. */
export interface Reason {
  topic: string;
  signal: string;
  sentence: string;
}

/**
 * A signal matches at the start of a word, so `court` is not found in `Harcourt`; in
 * Japanese, written without spaces, anywhere.
 */
const signalPattern = (words: readonly string[], lang: SignalLanguage) =>
  new RegExp(
    `${lang === 'ja' ? '' : '(?<![\\p{L}\\p{N}])'}(?:${words.map((w) => w.replace(/ /g, '\\s+')).join('|')})`,
    'iu',
  );
const PATTERNS = Object.fromEntries(
  SIGNAL_LANGUAGES.map((lang) => [
    lang,
    {
      topics: TOPICS.map((t) => ({ topic: t, pattern: signalPattern(t.signals[lang], lang) })),
      intensifier: signalPattern(INTENSIFIERS[lang], lang),
    },
  ]),
) as Record<SignalLanguage, { topics: { topic: Topic; pattern: RegExp }[]; intensifier: RegExp }>;

/**
 * Phrases in which a signal's word has another sense, taken out before signals are
 * looked for: "as you may recall", "strikes up a friendship", "SQL UNION", "the European
 * Union", "air strikes", "breach of contract", "launched an investigation" (not a
 * product), "Court de Gébelin", "food court". Per language; words of other senses that
 * no list carries need none.
 */
const FALSE_SENSES: Record<SignalLanguage, RegExp[]> = {
  en: [
    /\b(?:as (?:you|we|many|some) (?:may |might |will |can )?recall|recall(?:s|ed|ing)? (?:that|how|when|what|why|where|seeing|being|hearing))\b/giu,
    /\b(?:strik(?:e|es|ing)|struck) (?:up|a (?:balance|deal|chord|pose|note)|out|back|gold)\b/giu,
    /\b(?:air|drone|missile|military|lightning|pre-?emptive|first|lucky) strikes?\b/giu,
    /\b(?:european|soviet|african|postal|credit|student|customs|monetary|banking|civil liberties) union\b/giu,
    /\bunion (?:select|all|station|square|pacific|jack)\b|\bsql union\b/giu,
    /\bbreach(?:es|ed)? of (?:the |their |its |our |your |his |her )?(?:contract|duty|trust|peace|promise|confidence|etiquette|protocol|rules?)\b/giu,
    /\blaunch(?:es|ed|ing)? (?:an? )?(?:investigation|probe|inquiry|attack|offensive|appeal|bid)\b/giu,
    /\bspill(?:s|ed|ing)? (?:over|the beans)\b|\bspillover\b/giu,
    /\btoxic (?:culture|comments?|behaviou?r|workplace|masculinity|relationships?|fans?|fandom|positivity|people|boss|debate|discourse|consequences?|effects?|content|online|trolls?|speech|language|traits?)\b/giu,
    /\bfatalis(?:m|tic)\b/giu,
    /\bCourt (?:de|du|des|d['’])|\b(?:food|tennis|basketball|squash|volleyball) courts?\b/gu,
    // A relative clause's legal trouble is its own subject's ("Geert Wilders, who was just
    // convicted …, still has a Twitter platform", "rhetoric that got him convicted in the
    // Dutch court"), not the brand's.
    /\b(?:who (?:was|were|is|are|has been|have been|had been) (?:just |recently |later |since |previously |already )?|(?:that|which) got (?:him|her|them) )(?:convicted|charged|sued|fined|arrested|indicted|jailed|sentenced|prosecuted)\b[^,.;]*/giu,
  ],
  fr: [/\b(?:je|tu|il|elle|on|nous|vous|ils|elles) (?:se )?rappel(?:le|les|lent|ons|ez)\b/giu],
  es: [/\b(?:demanda|demandas) (?:de|del|interna|externa|energética|creciente)\b/giu],
  de: [/\berinner(?:t|n|te|ten)? (?:sich|daran)\b/giu],
  ja: [],
};

const signalLanguage = (language: string | null | undefined): SignalLanguage =>
  SIGNAL_LANGUAGES.find((l) => l === language) ?? 'en';

/**
 * Topics and severity of one text (title and body) in its language: the score is the
 * sum of the weights of the topics found, each counted once, plus 2 when an intensifier
 * appears; 0–1 is low, 2 medium, 3–4 high, 5 and more critical.
 */
export function scoreText(text: string, language?: string | null): Scored {
  const lang = signalLanguage(language);
  const lists = PATTERNS[lang];
  // Blanked to the same length, so a match's place is its place in the text.
  const meant = FALSE_SENSES[lang].reduce(
    (t, sense) => t.replace(sense, (m) => ' '.repeat(m.length)),
    text,
  );
  const reasonOf = (topic: string, pattern: RegExp): Reason | null => {
    const m = pattern.exec(meant);
    if (!m) return null;
    return { topic, signal: m[0], sentence: sentenceAround(text, m.index, m.index + m[0].length) };
  };
  const fired = lists.topics
    .map((t) => ({ topic: t.topic, reason: reasonOf(t.topic.tag, t.pattern) }))
    .filter((t): t is { topic: Topic; reason: Reason } => t.reason !== null);
  const found = fired.filter(
    ({ topic }) => !topic.partOf || !fired.some((o) => o.topic.tag === topic.partOf),
  );
  const intensifier = reasonOf('intensifier', lists.intensifier);
  const score = found.reduce((sum, t) => sum + t.topic.weight, 0) + (intensifier ? 2 : 0);
  return {
    topics: found.map((t) => t.topic.tag),
    severity: severityOfScore(score),
    score,
    positive: found.length > 0 && found.every((t) => t.topic.weight === 0),
    reasons: [...found.map((t) => t.reason), ...(intensifier ? [intensifier] : [])],
  };
}

/** A topic's risk weight; 0 for good news and for a tag the taxonomy does not know. */
export const topicWeight = (tag: string) => TOPICS.find((t) => t.tag === tag)?.weight ?? 0;

export function severityOfScore(score: number): Severity {
  return score <= 1 ? 'low' : score === 2 ? 'medium' : score <= 4 ? 'high' : 'critical';
}

/** The tags in taxonomy order, each once; `general` when nothing else applies. */
export function orderTopics(tags: Iterable<string>): string[] {
  const set = new Set(tags);
  const ordered = TOPICS.map((t) => t.tag).filter((t) => set.has(t));
  return ordered.length > 0 ? ordered : ['general'];
}

export const raise = (s: Severity, steps = 1): Severity =>
  SEVERITIES[Math.min(SEVERITIES.length - 1, SEVERITIES.indexOf(s) + steps)]!;

export const maxSeverity = (list: Iterable<Severity>): Severity => {
  let best = 0;
  for (const s of list) best = Math.max(best, SEVERITIES.indexOf(s));
  return SEVERITIES[best]!;
};
