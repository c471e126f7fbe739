/**
 * What can happen to or by a brand in the coverage (docs/pipeline.md, "The situation"),
 * each with the English phrases that report it and what it weighs for the brand. The
 * order is the order of precedence: when a sentence reports two, the first listed is its
 * event ("a lawsuit over the recall" is the recall's story).
 */

export const EVENT_KINDS = [
  'accident',
  'recall',
  'breach',
  'defect',
  'security-flaw',
  'regulator-action',
  'lawsuit',
  'accusation',
  'environmental',
  'layoffs',
  'labor-dispute',
  'outage',
  'executive-departure',
  'criticism',
  'earnings',
  'deal',
  'partnership',
  'appointment',
  'award',
  'launch',
  'review',
  'opinion',
  'profile',
  'none',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface EventType {
  kind: EventKind;
  /** Adverse events are risks to handle; favourable ones news to use; neutral neither. */
  polarity: 'adverse' | 'favourable' | 'neutral';
  /** What the event adds to the severity score (taxonomy.ts's scale: 2 medium, 3 high). */
  weight: number;
  /** The topic tag the event belongs to (taxonomy.ts), when it has one. */
  topic?: string;
  /** English phrases reporting it, matched at the start of a word. */
  phrases?: RegExp;
}

const re = (source: string) => new RegExp(`(?<![\\p{L}\\p{N}])(?:${source})`, 'iu');

export const EVENT_TYPES: readonly EventType[] = [
  {
    kind: 'accident',
    polarity: 'adverse',
    weight: 3,
    topic: 'product-safety',
    phrases: re(
      String.raw`(?:was|were|been) (?:killed|injured|hurt|hospitali[sz]ed)|died (?:after|when|in)|(?:fatal|deadly) (?:crash|crashes|accident|fire|explosion|blast|collapse)|crash(?:ed)? (?:that )?killed|explod(?:ed|es) (?:minutes|seconds|moments|shortly|soon|hours) after|explosion (?:at|in|on|inside|near)|(?:rocket|engine|battery|plant|factory|refinery|pipeline|gas) (?:explosion|blast)|explosions? (?:damaged|destroyed|killed|injured)|exploded (?:at|in|on|inside|near|while|when)|derail|caught fire`,
    ),
  },
  {
    kind: 'recall',
    polarity: 'adverse',
    weight: 3,
    topic: 'product-safety',
    // Not a memory: "recalled her first job", "recalls the day", "as you may recall".
    phrases: re(
      String.raw`recall(?:s|ed|ing)?\b(?!\s+(?:that|how|when|what|why|where|being|seeing|her|his|him|them|me|us|you|it|fondly|vividly|once|later|earlier|the (?:day|days|time|times|moment|years|night|morning|scene|conversation|words|meeting)|an? (?:time|day|moment|conversation|incident|episode|meeting))\b)`,
    ),
  },
  {
    kind: 'breach',
    polarity: 'adverse',
    weight: 3,
    topic: 'data-privacy',
    phrases: re(
      String.raw`data breach|breach(?:ed|es)?\b(?! of (?:the |their |its |our |your |his |her )?(?:contract|duty|trust|peace|promise|confidence|etiquette|protocol|rules?))|hack(?:ed|ers?)\b|ransomware|leak(?:ed|s)? (?:data|records|emails|documents|passwords|details)|(?:data|records|passwords|details|information) (?:of [\d,.]+ (?:million )?\w+ )?(?:was|were|had been) (?:exposed|stolen|leaked|compromised|accessed)|exposed (?:the )?(?:personal )?(?:data|records|information)`,
    ),
  },
  {
    kind: 'defect',
    polarity: 'adverse',
    weight: 2,
    topic: 'product-safety',
    phrases: re(
      String.raw`defect(?:s|ive)?\b|faulty|malfunction|overheat|fire risk|choking hazard|contaminat|unsafe`,
    ),
  },
  {
    kind: 'security-flaw',
    polarity: 'adverse',
    weight: 2,
    topic: 'security',
    phrases: re(
      String.raw`vulnerabilit|zero-day|security (?:flaw|hole|bug|issue|risk)s?|exploit(?:s|ed)? (?:a|the)|malware|phishing|backdoor|cyber ?attack|ddos`,
    ),
  },
  {
    kind: 'regulator-action',
    polarity: 'adverse',
    weight: 2,
    topic: 'legal-regulatory',
    phrases: re(
      String.raw`fined|fines? of|(?:record |heavy |hefty )?fines? (?:on|against)|impos(?:es|ed|ing) (?:an? )?(?:record |heavy )?(?:fine|penalty|sanctions?)|penalt(?:y|ies)|regulators?\b|antitrust|(?:opened|launched|faces|facing|under) (?:an? )?(?:formal )?(?:investigation|probe|inquiry)|(?<!(?:our|internal|own) )investigat(?:ing|ed|ion) (?:into|of)|attorneys? general|ftc|sec\b|competition (?:authority|commission)|ordered (?:to|by)|(?:was|were|been|be|is|are|get|got) banned|banned (?:by|from)|ground(?:ed|s|ing)? (?:the |its |all |every )?(?:[\w-]+ ){0,2}(?:planes?|jets?|fleets?|aircraft|airliners?)|grounding of`,
    ),
  },
  {
    kind: 'lawsuit',
    polarity: 'adverse',
    weight: 2,
    topic: 'legal-regulatory',
    phrases: re(
      String.raw`lawsuits?|sued|sues|suing|legal (?:dispute|battle|fight|challenge)|class action|filed (?:a )?(?:suit|complaint)|(?:in|to|before) court\b|court (?:ruled|ordered|case|hearing|filing)|courtroom|settlement|(?:jury|guilty) verdict|verdict (?:against|in favou?r)|indict`,
    ),
  },
  {
    kind: 'accusation',
    polarity: 'adverse',
    weight: 2,
    phrases: re(
      String.raw`accus(?:ed|es|ing|ation)|alleg(?:ed|es|ing|ation)|fraud|misled|mislead(?:ing)?|deceiv|discriminat|harass|whistleblower|cover(?:ed)?[- ]up|scandal|wrongdoing|violat(?:ed|es|ing|ion)`,
    ),
  },
  {
    kind: 'environmental',
    polarity: 'adverse',
    weight: 2,
    topic: 'environment',
    phrases: re(
      String.raw`pollut|spill(?:s|ed)?\b(?! over| the beans)|toxic (?:waste|chemicals?|leak)|emissions? (?:scandal|cheat|breach|violation)|deforest`,
    ),
  },
  {
    kind: 'layoffs',
    polarity: 'adverse',
    weight: 2,
    topic: 'labor',
    phrases: re(
      String.raw`lay(?:s|ing)? off|laid off|layoffs?|job cuts|cut(?:s|ting)? (?:[\d,]+|hundreds of|thousands of) (?:jobs|workers|employees|staff)|redundanc`,
    ),
  },
  {
    kind: 'labor-dispute',
    polarity: 'adverse',
    weight: 2,
    topic: 'labor',
    phrases: re(
      String.raw`(?:went|go|going|are) on strike|strik(?:e|es|ing) (?:at|over|against)|walkout|walked out|picket`,
    ),
  },
  {
    kind: 'outage',
    polarity: 'adverse',
    weight: 1,
    topic: 'customer-experience',
    phrases: re(
      String.raw`outages?|(?:service|site|website|app|servers?|network|system|platform)s? (?:went|is|was) down|downtime|service disruption|disrupted service|offline for|glitch(?:es|y)?|technical (?:problems|issues|difficulties)|widespread problems|power shut-?offs?|shut(?:ting|s)? off power|(?:app|site|website|service|servers?) (?:crashed|went down|was down)`,
    ),
  },
  {
    kind: 'executive-departure',
    polarity: 'adverse',
    weight: 1,
    topic: 'leadership',
    phrases: re(
      String.raw`resign(?:s|ed|ation)?\b|step(?:s|ped|ping)? down|ousted|(?:was|been) fired|sacked|interim (?:ceo|chief executive)`,
    ),
  },
  {
    kind: 'criticism',
    polarity: 'adverse',
    weight: 1,
    phrases: re(
      String.raw`critici[sz]|slammed|backlash|outrage|under fire|boycott|complain(?:ts?|ed|ing|s)?\b|angry|furious|condemn|blasted|lambast|falls? short|fell short|disappoint|mixed reviews|reviews? (?:are|were) (?:somewhat )?mixed|(?:is|are|were) somewhat mixed|underwhelm|fail(?:s|ed)? to (?:deliver|live up)|broken promises?|(?:is|are|goes|went|step|steps|a step) backwards?`,
    ),
  },
  {
    kind: 'earnings',
    polarity: 'neutral',
    weight: 0,
    topic: 'financial',
    phrases: re(
      String.raw`earnings|record (?:year|quarter|sales|revenue|profits?)|posts? (?:an? )?(?:surprise |quarterly |annual |record )?(?:loss|profit)|profit warning|quarterly (?:results|revenue|profit|loss)|(?:annual|full-year) results|revenue (?:rose|fell|grew|of)|profits? (?:rose|fell|grew|jumped|slumped)|shares (?:are |were )?(?:fell|rose|jumped|slumped|dropped|surged|climbed|falling|rising|dropping|sliding|jumping|tumbling|plunging|soaring)|stock (?:is |was )?(?:fell|rose|jumped|dropped|surged|falling|rising|dropping|sliding)|(?:cut|cuts|raised|raises|lowered|lowers) (?:its )?(?:[\w-]+ ){0,3}(?:guidance|forecast|outlook)`,
    ),
  },
  {
    kind: 'deal',
    polarity: 'favourable',
    weight: 0,
    topic: 'financial',
    phrases: re(
      String.raw`acquir(?:e|es|ed|ing)|acquisition|merger|takeover|buy(?:s|ing)? (?:a |the )?(?:stake|startup|company|rival)|rais(?:e|es|ed|ing) (?:up to |about |nearly |more than )?[$€£]|funding round|series [a-e]\b|ipo\b|(?:stock market |share )?listing\b|(?:signed|signs|inks?|inked|wins?|won|awarded|places?|placed) (?:a |an |the )?(?:[\w$.,-]+ ){0,3}(?:contract|deal|order|agreement)|orders? for \d`,
    ),
  },
  {
    kind: 'partnership',
    polarity: 'favourable',
    weight: 0,
    phrases: re(
      String.raw`partner(?:s|ed|ing|ship) with|teams? up|teamed up|collaborat(?:es|ed|ion) with|joint venture`,
    ),
  },
  {
    kind: 'appointment',
    polarity: 'neutral',
    weight: 0,
    topic: 'leadership',
    phrases: re(
      String.raw`appoint(?:s|ed|ment)|named (?:as )?(?:its |the )?(?:new )?(?:ceo|chief|president|chair|head)|new (?:president|ceo|chief executive|chair(?:man|woman)?)\b|hires|hired (?:a |the )?(?:former|new)|joins as`,
    ),
  },
  {
    kind: 'award',
    polarity: 'favourable',
    weight: 0,
    topic: 'recognition',
    phrases: re(
      String.raw`(?:won|wins|winning|receives?|received|earns?|earned|scoops?|scooped|picks? up|picked up|takes? home|took home|collects?|collected) (?:the |a |an |its |two |three |several )?(?:[\w'’-]+ ){0,4}(?:awards?|prizes?|honou?rs?|titles?|medals?)\b|award-winning|honou?red (?:with|as|by|for)|named (?:\w+ ){0,4}(?:of the year|best)|ranked (?:first|top|#1|no\. 1)`,
    ),
  },
  {
    kind: 'launch',
    polarity: 'favourable',
    weight: 0,
    topic: 'product-launch',
    phrases: re(
      String.raw`launch(?:es|ed|ing)?\b(?! ?(?:pad|site|vehicle|tower|complex|window|control))|unveil|debut(?:s|ed)? (?:a |an |its |the |new )|revealed as |reveal(?:s|ed)? (?:a|an|its|the) new |introduc(?:es|ed|ing)|rolls? out|rolled out|releas(?:es|ed) (?:a|an|its|the) new|announc(?:es|ed) (?:a|an|its|the) new|new (?:product|model|feature|version)|now available|pledg(?:es|ed|ing)? to|commit(?:s|ted)? to (?:becoming|cutting|reducing|removing|reaching|ending)|(?:carbon|climate)[- ](?:negative|neutral|positive)\b|net[- ]zero|(?:aims?|plans?|moves?|vows?|promises?) to (?:become|remove|cut|reduce|erase|eliminate|end|reach|halve) (?:[\w'’]+ ){0,3}(?:carbon|emissions|footprint|waste|plastics?)\b`,
    ),
  },
  {
    kind: 'review',
    polarity: 'neutral',
    weight: 0,
    phrases: re(
      String.raw`review(?:ed)?\b|hands-on|we tested|tested it|verdict:|rating:|stars? out of|pros and cons`,
    ),
  },
  { kind: 'opinion', polarity: 'neutral', weight: 0 },
  { kind: 'profile', polarity: 'neutral', weight: 0 },
  { kind: 'none', polarity: 'neutral', weight: 0 },
];

export const eventType = (kind: EventKind): EventType =>
  EVENT_TYPES.find((e) => e.kind === kind) ?? EVENT_TYPES.at(-1)!;

/**
 * The event a topic found by the taxonomy's signals stands for, in the languages the
 * English phrases do not read: the topic's most common event.
 */
export const EVENT_OF_TOPIC: Record<string, EventKind> = {
  'product-safety': 'defect',
  'data-privacy': 'breach',
  security: 'security-flaw',
  'legal-regulatory': 'lawsuit',
  labor: 'labor-dispute',
  environment: 'environmental',
  'customer-experience': 'criticism',
  leadership: 'executive-departure',
  financial: 'earnings',
  'product-launch': 'launch',
  recognition: 'award',
};
