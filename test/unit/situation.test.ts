import { describe, expect, it } from 'vitest';
import { generateAdvisory } from '../../src/pipeline/builtin-advisor.js';
import { sentimentTowards } from '../../src/pipeline/judgement.js';
import { baseTitle, DO_NOT } from '../../src/pipeline/playbook.js';
import { situationOf } from '../../src/pipeline/situation.js';
import { source } from '../support/source.js';

/** Issue 42: a situation model under every judgement, read on the cases reviews found wrong. */
const acme = { host: 'acme.com', name: 'Acme' };
const article = (title: string, text: string, url = 'https://news.example/a') => ({
  ...source(1, title, text),
  url,
});
const steps = (g: ReturnType<typeof generateAdvisory>) =>
  g.phases.filter((p) => p.title !== DO_NOT).flatMap((p) => p.actions);
const avoid = (g: ReturnType<typeof generateAdvisory>) =>
  g.phases.find((p) => p.title === DO_NOT)?.actions ?? [];
const party = { host: 'acmeparty.example', name: 'Acme Party' };
/** The advisory of a party accused of misleading voters: the party's plan, read by several tests. */
const partyAccused = () =>
  generateAdvisory(
    [
      article(
        'Acme Party accused of misleading voters',
        'The Acme Party was accused of trying to mislead voters by renaming its press account during a debate.',
      ),
    ],
    party,
  );

describe('the brand’s role', () => {
  it('is a source when only quoted as one, whatever the article is about', () => {
    const a = article(
      'Hospital fire kills three',
      'Three patients died in a fire at a hospital in Leeds, according to Acme.\n\nFirefighters said the blaze started in a storeroom.\n\nAn inquiry has been opened.',
    );
    expect(situationOf(a, acme).role).toBe('source');
    const g = generateAdvisory([a], acme);
    expect(g).toMatchObject({ severity: 'low', assessment: 'informational', urgency: 'low' });
    expect(g.executiveSummary[0]!.text).toBe(
      'Paper 1 cites Acme as a source in “Hospital fire kills three”.',
    );
    expect(avoid(g)).toEqual([
      'Do not issue a statement: Acme is not the subject of this coverage',
    ]);
  });

  it('is passing when named once beside another subject, or only as the venue of a post', () => {
    const once = article(
      'Data breach at Globex exposes two million records',
      'Globex said hackers stole two million customer records.\n\nThe attack used the same flaw that hit Acme in 2019.\n\nGlobex has notified regulators.\n\nCustomers were told to change passwords.',
    );
    expect(situationOf(once, acme).role).toBe('passing');
    const g = generateAdvisory([once], acme);
    expect(g.severity).toBe('low');
    expect(g.topics).toEqual(['general']);
    expect(steps(g).join(' ')).not.toMatch(/regulator|authority|notify|credit/i);
    const venue = article(
      'Mayor announces new bus lanes',
      'The mayor announced the plan in a post on Acme on Tuesday.\n\nThe lanes open in March.',
    );
    expect(situationOf(venue, acme).role).toBe('passing');
  });

  it('is the subject when the headline is about it, involved when named after another', () => {
    expect(
      situationOf(article('Acme recalls kettles', 'Acme recalled 40,000 kettles.'), acme).role,
    ).toBe('subject');
    expect(
      situationOf(
        article(
          'Globex signs a distribution deal with Acme in Europe',
          'Globex will sell its monitors through Acme.\n\nThe companies did not disclose terms.\n\nGlobex shares rose 2%.',
        ),
        acme,
      ).role,
    ).toBe('involved');
  });
});

describe('the event and its status', () => {
  it('reads an allegation, a denial and a confirmed fact apart', () => {
    const alleged = situationOf(
      article(
        'Acme accused of misleading customers',
        'A consumer group alleges Acme misled customers about battery life.',
      ),
      acme,
    );
    expect(alleged).toMatchObject({ event: 'accusation', status: 'alleged' });
    const denied = situationOf(
      article(
        'Acme hack claims',
        'Acme denied reports that it was hacked, saying no customer data was accessed.',
      ),
      acme,
    );
    expect(denied).toMatchObject({ event: 'breach', status: 'denied' });
    const confirmed = situationOf(
      article('Acme recalls kettles', 'Acme is recalling 40,000 kettles after two fires.'),
      acme,
    );
    expect(confirmed).toMatchObject({ event: 'recall', status: 'confirmed' });
  });

  it('keeps each fact with the sentence it was read from', () => {
    const s = situationOf(
      article(
        'Acme recalls heaters after injuries',
        'Acme is recalling 12,000 units of its heater.\n\nFour people were injured when the heaters overheated.',
      ),
      acme,
    );
    expect(s.harm).toMatchObject({ injuries: true, deaths: false, scale: '12,000 units' });
    expect(s.facts.find((f) => f.value === 'injuries')?.sentence).toMatch(/injur/);
    expect(s.facts).toContainEqual({
      fact: 'event',
      value: 'recall',
      sentence: 'Acme recalls heaters after injuries',
    });
  });
});

describe('judgements from the situation', () => {
  it('weighs a public authority acting above a league’s sanction', () => {
    const order = ['low', 'medium', 'high', 'critical'];
    const authority = generateAdvisory(
      [
        article(
          'State attorney general investigating Acme',
          'The state attorney general is investigating Acme over its pricing, two people familiar with the matter said.',
        ),
      ],
      acme,
    );
    const league = generateAdvisory(
      [
        article(
          'League fines Acme club',
          'The league fined Acme $250,000 after the brawl on Thursday.',
        ),
      ],
      acme,
    );
    expect(order.indexOf(authority.severity)).toBeGreaterThan(order.indexOf(league.severity));
    expect(authority.severity).toBe('high');
  });

  it('quotes the harm as what is at stake', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme recalls heaters',
          'Acme is recalling 12,000 heaters sold since March.\n\nThe heaters were sold in Leeds and York by several retailers.\n\nThe company set up a hotline for owners on Monday.\n\nFour people were injured when Acme heaters overheated in their homes.',
        ),
      ],
      acme,
    );
    expect(g.executiveSummary.map((i) => i.text)).toContain(
      'Four people were injured when Acme heaters overheated in their homes.',
    );
  });

  it('rates good news low, whatever alarming words stand near it', () => {
    const award = generateAdvisory(
      [
        article(
          'Acme named agency of the year',
          'Acme was named agency of the year for its campaign on road safety.\n\nThe campaign followed a fatal crash that killed two cyclists in 2024.',
        ),
      ],
      acme,
    );
    expect(award).toMatchObject({ severity: 'low', assessment: 'opportunity' });
    expect(steps(award).join(' ')).not.toMatch(/recall|stop sales|apolog|regulator/i);
  });

  it('rates an opinion piece medium at most and never plans a breach notification for it', () => {
    const op = generateAdvisory(
      [
        article(
          'Acme’s appetite for our data should worry us all',
          'Acme collects more personal data than it needs, and its privacy policy is a breach of the trust users place in it.\n\nAcme has been criticised for years.\n\nRegulators should look harder at Acme.',
          'https://news.example/opinion/acme-data',
        ),
      ],
      acme,
    );
    expect(['low', 'medium']).toContain(op.severity);
    expect(steps(op).join(' ')).not.toMatch(/notify|credit monitoring|72 hours/i);
    expect(avoid(op).join(' ')).toMatch(/attack the author|alleges none/);
  });

  it('rates criticism medium at most: it argues, it reports no wrongdoing', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme tablet falls short of its promises',
          'Acme promised 4K at launch, but the tablet falls short, and millions of buyers are angry.\n\nReviewers slammed Acme for the broken promise.',
        ),
      ],
      acme,
    );
    expect(g.severity).toBe('medium');
    expect(g.phases.map((p) => baseTitle(p.title))).toContain('Understand the criticism');
  });

  it('waits for the review before apologising for an allegation, and says so', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme accused of misleading customers',
          'A consumer group alleges Acme misled customers about battery life.\n\nAcme said it was reviewing the claims.',
        ),
      ],
      acme,
    );
    expect(steps(g).join(' ')).not.toMatch(/apolog|compensat|refund/i);
    expect(avoid(g)).toContain(
      'Do not apologise, offer compensation or admit fault before the review establishes the facts',
    );
  });

  it('holds a position the brand already gave instead of a new "aware and reviewing" line', () => {
    const answered = generateAdvisory(
      [
        article(
          'Acme accused of misleading voters',
          'Acme was accused of misleading voters by renaming its account.\n\nAcme defended the change, saying the account was clearly labelled.',
        ),
      ],
      acme,
    );
    const titles = answered.phases.map((p) => baseTitle(p.title));
    expect(titles).toContain('Hold the position on record');
    expect(steps(answered)).not.toContain(
      'If nobody has, say the brand is aware of the allegation and is looking into it, with legal sign-off',
    );
    const silent = generateAdvisory(
      [article('Acme accused of misleading voters', 'Acme was accused of misleading voters.')],
      acme,
    );
    expect(steps(silent)).toContain(
      'If nobody has, say Acme is aware of the allegation and is looking into it, with legal sign-off',
    );
  });

  it('lowers a story the coverage reports denied', () => {
    const claimed = generateAdvisory(
      [article('Acme hacked, group claims', 'Hackers claim they breached Acme and stole data.')],
      acme,
    );
    const denied = generateAdvisory(
      [
        article(
          'Acme hacked, group claims',
          'Hackers claim they breached Acme. Acme denied it was hacked and said no customer data was accessed.',
        ),
      ],
      acme,
    );
    const order = ['low', 'medium', 'high', 'critical'];
    expect(order.indexOf(denied.severity)).toBeLessThan(order.indexOf(claimed.severity));
  });
});

describe('sentiment toward the brand', () => {
  const towards = (title: string, text: string) =>
    sentimentTowards(situationOf(article(title, text), acme), 'en');

  it('reads the event with the words: a recall in calm words is no good news', () => {
    // Calm, even warm words: a word list alone reads it positive.
    const recall = towards(
      'Acme recalls kettles',
      'Acme is recalling 40,000 kettles and will gladly help every owner with a free replacement.',
    );
    expect(recall).toBeLessThanOrEqual(-0.3);
    const award = towards(
      'Acme wins design award',
      'Acme won the award despite a difficult year of supply problems.',
    );
    expect(award).toBeGreaterThanOrEqual(0.3);
  });

  it('is neutral for a brand named in passing, unless its sentence is strongly coloured', () => {
    expect(
      towards(
        'Floods hit the north',
        'Terrible floods destroyed homes across the region.\n\nResidents shared videos on Acme.\n\nThe army was called in.',
      ),
    ).toBe(0);
  });
});

describe('sentiment read with the situation (issue 42, third session)', () => {
  const sabres = { host: 'sabres.com', name: 'Sabres' };
  const towards = (title: string, text: string, brand = acme) =>
    sentimentTowards(situationOf(article(title, text), brand), 'en');
  const role = (title: string, text: string) => situationOf(article(title, text), acme).role;

  it('reads a match result for the side the brand was on, however calmly told', () => {
    const lost = situationOf(
      article('Parise scores twice as Wild beat Sabres 4-1', 'It was a quiet night in Buffalo.'),
      sabres,
    );
    expect(lost.outcome).toBe('lost');
    expect(sentimentTowards(lost, 'en')).toBeLessThanOrEqual(-0.3);
    expect(
      towards('Nelson goal lifts Acme over Penguins', 'Nelson scored in overtime.', acme),
    ).toBeGreaterThanOrEqual(0.3);
    expect(situationOf(article('Acme lost to Penguins', 'A long night.'), acme).outcome).toBe(
      'lost',
    );
    // No contest told: no outcome.
    expect(situationOf(article('Acme opens a depot', 'In Leeds.'), acme).outcome).toBeNull();
  });

  it('keeps an accusation adverse when the brand denies it, and lets a column argue against a deal', () => {
    expect(
      towards(
        'Singer sues Acme',
        'A singer sued Acme over her recordings.\n\nAcme denied the claims, calling them false.',
      ),
    ).toBeLessThanOrEqual(-0.3);
    // A legal dispute is a lawsuit's story.
    expect(
      situationOf(article('Singer in legal dispute with Acme', 'Fans are angry.'), acme).event,
    ).toBe('lawsuit');
    // A favourable event's floor is for reports; an opinion piece's own tone decides.
    const column = article(
      'Column: Acme merger bodes ill for local news',
      'The merger of Acme and Beta is a terrible, damaging blow for readers.',
      'https://news.example/opinion/acme-merger',
    );
    expect(sentimentTowards(situationOf(column, acme), 'en')).toBeLessThan(0);
  });

  it('reads "Gannett/Acme" and "(which owns Acme)" as names, not an address or a source', () => {
    expect(role('Gannett/Acme merger is final', 'The two chains merged on Tuesday.')).not.toBe(
      'passing',
    );
    expect(
      situationOf(
        article(
          'Singer fights label',
          'A singer is in a legal dispute with a fund (which owns her former label, Acme).\n\nAcme denied it.',
        ),
        acme,
      ).role,
    ).not.toBe('source');
  });
});

describe('read on held-out pages (issue 42, third session)', () => {
  const read = (title: string, text: string) => situationOf(article(title, text), acme);

  it('takes a denial as the brand’s only when the brand denies', () => {
    const other = read(
      'Women accuse Acme chairman of harassment',
      'Two dozen Acme employees accused the chairman of harassment.\n\nThe chairman vehemently denied the allegations.',
    );
    expect(other.status).not.toBe('denied');
    const own = read(
      'Women accuse Acme of harassment',
      'Two dozen employees accused Acme of harassment.\n\nThe company denied the allegations.',
    );
    expect(own.status).toBe('denied');
  });

  it('keeps the headline’s news over an adverse event told once deep in the article', () => {
    const text = [
      'Acme earned $4.9 billion in the quarter, its best year yet.',
      'Sales rose in every region.',
      'The bank opened new branches.',
      'Customers moved deposits to it.',
      'In the fourth quarter, Acme paid $1.1 billion to settle charges by regulators.',
    ].join('\n\n');
    expect(read('Acme posts record profit', text).event).toBe('earnings');
    // Told in the lede, the same event is the story.
    expect(
      read('Acme posts record profit', `Regulators fined Acme $1 billion.\n\n${text}`).event,
    ).toBe('regulator-action');
  });

  it('reads a settlement as over, a ban by the brand as no sanction, a launch pad as no launch', () => {
    expect(
      read('Regulators and Acme', 'Acme agreed to settle charges by regulators on Monday.').status,
    ).toBe('resolved');
    expect(
      read('Acme has banned harassers before', 'Acme banned the account in 2016.').event,
    ).not.toBe('regulator-action');
    expect(
      read(
        'What is the hold-up at Acme?',
        'Acme lost a launch pad in the fire.\n\nAcme said it will fly again.',
      ).event,
    ).not.toBe('launch');
  });

  it('reads a platform a threat runs on, or a link is posted on, as an aside', () => {
    expect(
      read('Acme ransomware spreads via game links', 'Acme ransomware locks phones.').role,
    ).not.toBe('subject');
    expect(
      situationOf(
        article('Ransomware spreads', 'The ransomware spreads via links on Acme and by SMS.'),
        acme,
      ).role,
    ).toBe('passing');
  });

  it('counts an intensifier only where it tells the event, and sends a statement unasked only when serious', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme accused of misleading customers',
          'Acme was accused of misleading customers about kettle safety.\n\nThe brand has millions of fans.',
        ),
      ],
      acme,
    );
    expect(['medium', 'high']).toContain(g.severity);
    const actions = g.phases.flatMap((p) => p.actions);
    if (g.severity === 'medium' || g.severity === 'low') {
      expect(actions).not.toContain(
        'Send the approved statement to the publishers covering the story',
      );
    }
  });
});

describe('plans a consultant would sign (issue 42, third review)', () => {
  const titles = (g: ReturnType<typeof generateAdvisory>) =>
    g.phases.map((p) => baseTitle(p.title));

  it('answers the brand’s own announcement, read on its own site, with its pickup, not a check of it', () => {
    const own = generateAdvisory(
      [
        article(
          'Acme announces a partnership with Beta',
          'Acme announced a strategic partnership with Beta to distribute its kettles in Europe.',
          'https://www.acme.com/news/beta-partnership',
        ),
      ],
      acme,
    );
    expect(titles(own)[0]).toBe('Track the pickup');
    expect(titles(own)).not.toContain('Verify the coverage');
  });

  it('reaches those who depend on a service first, and plans a safety shutoff without a fault to find', () => {
    const shutoff = generateAdvisory(
      [
        article(
          'Acme begins power shutoff over fire danger',
          'Acme began shutting off power to 375,000 people on Wednesday as winds raised the fire danger.',
        ),
      ],
      acme,
    );
    expect(titles(shutoff)[0]).toBe('Reach those who depend on it most');
    expect(titles(shutoff)).toContain('Explain the decision');
    expect(steps(shutoff)).toContain(
      'Confirm the notices the regulator requires were given, and on time',
    );
    expect(steps(shutoff).join(' ')).not.toMatch(/root cause/);
    const outage = generateAdvisory(
      [
        article(
          'Acme outage hits users',
          'An Acme outage left users offline for six hours on Monday.',
        ),
      ],
      acme,
    );
    expect(titles(outage)).toContain('Establish the cause');
  });

  it('keeps quiet on a listing’s pricing, and asks for a decision on terms put to staff', () => {
    const listing = generateAdvisory(
      [
        article(
          'Acme to raise up to $12.9bn in landmark listing',
          'Acme is set to raise up to $12.9bn from its listing in Hong Kong, pricing its shares at a discount.',
        ),
      ],
      acme,
    );
    expect(avoid(listing)).toContain(
      'Do not comment on the offer or its pricing before the formal announcement',
    );
    const layoffs = generateAdvisory(
      [article('Acme to lay off staff', 'Acme will lay off 300 employees, the company said.')],
      acme,
    );
    expect(steps(layoffs)).toContain(
      'If staff were given a deadline or terms, decide on them with legal before they fall due',
    );
  });

  it('rates an allegation with nobody hurt high at most, however loud its words', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme accused of massive fraud and harassment',
          'Acme was accused of massive fraud and harassment by millions of customers, a lawsuit says.\n\nThe court will hear the case; regulators are watching Acme.',
        ),
      ],
      acme,
    );
    expect(g.situation.status).toBe('alleged');
    expect(g.severity).toBe('high');
  });

  it('answers fair criticism only with what the product owner and legal have decided', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme kettle falls short of its claims',
          'Reviewers criticised the Acme kettle, which falls short of the boiling times Acme advertised.',
        ),
      ],
      acme,
    );
    expect(steps(g)).toContain(
      'If the criticism points to a real problem, agree with the product owner and legal what Acme can commit to, and say only what is decided',
    );
  });

  it('reads a column calling the brand "backwards" as criticism: nothing to amplify', () => {
    const g = generateAdvisory(
      [
        article(
          'The future of Acme innovation is backwards',
          'Acme launched its new kettle this week.\n\nAcme has launched the same kettle for years.',
        ),
      ],
      acme,
    );
    expect(g.assessment).not.toBe('opportunity');
    expect(titles(g)).not.toContain('Amplify');
  });
});

describe('ordinary grammar is not an aside (review of issue 42)', () => {
  const role = (title: string, text: string) => situationOf(article(title, text), acme).role;

  it('a brand something is done to is the subject, not a venue or a source', () => {
    expect(role('EU imposes record fine on Acme', 'The Commission fined Acme on Tuesday.')).toBe(
      'subject',
    );
    expect(
      role('Lawsuit piles pressure on Acme over kettle fires', 'A lawsuit says the kettles burn.'),
    ).toBe('subject');
    expect(role('Acme users hit by data breach', 'Hackers stole data of Acme users.')).toBe(
      'subject',
    );
    expect(
      role(
        'Whistleblower says Acme hid defects',
        'A whistleblower told reporters that Acme hid defects in its kettles.',
      ),
    ).toBe('subject');
    // An object of "told" is no source: "Regulators told Acme to halt sales".
    expect(
      situationOf(
        article('Kettle sales halted', 'Regulators told Acme to halt sales of the kettle.'),
        acme,
      ).role,
    ).not.toBe('source');
  });

  it('a quote goes on after "told Acme", and an account is someone else’s', () => {
    expect(
      role(
        'Hospital fire',
        'Three patients died in the fire, a nurse told Acme.\n\nThe hospital was evacuated.',
      ),
    ).toBe('source');
    expect(
      role(
        'Party row',
        'The party changed the name of its press office Acme account during the debate.',
      ),
    ).toBe('passing');
  });

  it('deaths in the body outweigh a mild word in the headline', () => {
    const g = generateAdvisory(
      [
        article(
          'Outrage as Acme heaters kill two children',
          'Two children were killed when an Acme heater caught fire.\n\nAcme is recalling 200,000 heaters.',
        ),
      ],
      acme,
    );
    expect(
      situationOf(
        article(
          'Outrage as Acme heaters kill two children',
          'Two children were killed when an Acme heater caught fire.',
        ),
        acme,
      ).event,
    ).toBe('accident');
    expect(g.severity).toBe('critical');
  });

  it('a contributor quoted in a news report does not make it opinion', () => {
    const s = situationOf(
      article(
        'Acme recalls heaters after fire',
        'Acme is recalling 200,000 heaters after a fire.\n\nThe fire started in March.\n\nJane Doe, who is a contributor to Consumer Weekly, said owners should stop using them.\n\nRetailers pulled the heaters.\n\nAcme set up a hotline.\n\nRefunds start on Monday.',
      ),
      acme,
    );
    expect(s.opinion).toBe(false);
  });

  it('a memory, shares going down and dead batteries are no recall, outage or deaths', () => {
    const memory = situationOf(
      article(
        'Acme boss looks back',
        'Acme chief executive Jane Doe recalled her first job at Acme.',
      ),
      acme,
    );
    expect(memory.event).not.toBe('recall');
    const shares = situationOf(
      article('Acme shares went down', 'Acme shares went down 5% and the stock is down again.'),
      acme,
    );
    expect(shares.event).not.toBe('outage');
    const project = situationOf(
      article(
        'Acme kills car project',
        'Acme killed its car project after the prototype batteries were dead on arrival and sales of its kettles were hurt.',
      ),
      acme,
    );
    expect(project.harm).toMatchObject({ deaths: false, injuries: false });
  });
});

describe('read on held-out pages (issue 42, fourth session)', () => {
  it('reads malware aimed at the platform’s users as an aside, the brand’s own systems as its story', () => {
    const platform = situationOf(
      article(
        'Ransomware spreads via links on forums',
        'A new strain of ransomware is being distributed to Acme users via online forums and SMS messages.\n\nResearchers urged Acme device owners to keep phones updated.\n\nThe malware encrypts files on Acme phones and demands a ransom.',
      ),
      acme,
    );
    expect(platform.role).not.toBe('subject');
    expect(platform.event).not.toBe('breach');
    const own = situationOf(
      article(
        'Hackers breach Acme servers',
        'Hackers breached Acme servers and stole customer records, Acme said.\n\nThe ransomware attack hit Acme on Monday.',
      ),
      acme,
    );
    expect(own).toMatchObject({ role: 'subject', event: 'breach' });
  });

  it('counts another risk only where the brand’s sentence reports it, not where its word stands', () => {
    const words = generateAdvisory(
      [
        article(
          'Acme accused of sheltering profits',
          'Acme has been accused of sheltering overseas profits.\n\nA review of Acme regulatory filings shows the interest it earned.\n\nAcme hosts a critic who was convicted in a Dutch court, and Acme profits rose.',
        ),
      ],
      acme,
    );
    expect(words.severity).toBe('medium');
    const fined = generateAdvisory(
      [
        article(
          'Acme accused of sheltering profits',
          'Acme has been accused of sheltering overseas profits.\n\nRegulators fined Acme over the scheme last year.',
        ),
      ],
      acme,
    );
    expect(fined.severity).toBe('high');
  });

  it('tells a pledge from criticism, and the brand’s voice from a worker’s', () => {
    const pledge = situationOf(
      article(
        'Acme moves to erase its carbon footprint',
        'Acme said on Thursday it aims to remove more carbon than it emits by 2030.\n\nAcme will fund new capture technology.\n\nThe fund starts with $1 billion.\n\nIts chief executive spoke in Redmond.\n\nAcme has come under fire from activist workers over its oil contracts.',
      ),
      acme,
    );
    expect(pledge.event).toBe('launch');
    const strike = situationOf(
      article(
        'Hundreds of Acme Airport workers go on strike',
        'Hundreds of workers are striking at Acme Airport on Tuesday.\n\nKisha Rivera, who works as a cabin cleaner at Acme Airport, said coworkers sleep in the terminal.\n\nAn Acme Airport employee said the queues were long.',
      ),
      { host: 'acme.com', name: 'Acme Airport' },
    );
    expect(strike.onRecord).toBeNull();
  });

  it('hears the brand as "the party" or "the company" right after its name, never "the group"', () => {
    const party = situationOf(
      article(
        'Acme accused of misleading voters',
        'Acme was accused of trying to mislead voters with a renamed account.\n\nThe party defended the move as fair campaigning.',
      ),
      acme,
    );
    expect(party.onRecord).toBe('The party defended the move as fair campaigning.');
    const group = situationOf(
      article(
        'Acme staff to be laid off',
        'Acme staff are to be laid off this week.\n\nThe group said on Twitter that the contract confused employees.',
      ),
      acme,
    );
    expect(group.onRecord).toBeNull();
  });

  it('puts counsel and the records first when criticism talks of a lawsuit or a regulator', () => {
    const plan = (text: string) =>
      generateAdvisory([article('Acme slammed over hidden fees', text)], acme).phases.map((p) =>
        baseTitle(p.title),
      );
    expect(
      plan(
        'Acme was slammed by customers over hidden fees.\n\nCritics say regulators should investigate Acme over the fees.',
      )[0],
    ).toBe('Brief counsel');
    expect(
      plan('Acme was slammed by customers over hidden fees.\n\nAcme fans were angry too.')[0],
    ).toBe('Understand the criticism');
  });

  it('weighs an event touching voters or children a step more, not a "poster child"', () => {
    const severity = (text: string) =>
      generateAdvisory([article('Acme accused of deception', text)], acme).severity;
    expect(
      severity('Acme was accused of trying to deceive customers with a renamed account.'),
    ).toBe('medium');
    expect(severity('Acme was accused of trying to deceive voters with a renamed account.')).toBe(
      'high',
    );
    expect(
      severity('Acme has become the poster child for companies accused of deceiving customers.'),
    ).toBe('medium');
  });

  it('reads a strike by another employer’s staff at the brand’s site as news at the brand', () => {
    const text = (employer: string) =>
      `Hundreds of workers are striking at Acme Airport on Tuesday over pay.\n\nAcme Airport said operations ran smoothly.\n\nThose striking are contracted by ${employer} and earn $10.50 an hour.\n\nThe strike at Acme Airport is part of a national day of action.`;
    const airport = { host: 'acme.com', name: 'Acme Airport' };
    const contractors = generateAdvisory(
      [article('Acme Airport workers go on strike', text('Prospect Services'))],
      airport,
    );
    expect(contractors.situation).toMatchObject({ role: 'involved', event: 'labor-dispute' });
    expect(contractors.severity).toBe('low');
    const own = situationOf(
      article('Acme Airport workers go on strike', text('Acme Airport')),
      airport,
    );
    expect(own.role).toBe('subject');
  });

  it('speaks to a party’s candidates, never its "customer-facing staff"', () => {
    const g = partyAccused();
    const all = g.phases.flatMap((p) => p.actions);
    expect(all).toContain(
      'Brief the leadership, candidates and spokespeople before their next public appearance',
    );
    expect(all.join(' ')).not.toContain('customer-facing');
  });

  it('asks for a correction of criticism only with legal’s agreement, never of the brand’s own claims', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme console falls short of 4K',
          'Acme’s console falls short of the 4K it promised, and early reviews are somewhat mixed.',
        ),
      ],
      acme,
    );
    const all = g.phases.flatMap((p) => p.actions);
    expect(all).toContain(
      'If it misstates a fact Acme can prove wrong, ask the publisher to correct that fact, once legal agrees; never dispute what Acme itself claimed',
    );
    expect(all.join(' ')).not.toMatch(/send the publisher the correction/);
  });

  it('reads a car "revealed as" a coupe as a launch, an investigation that "revealed" nothing of the kind', () => {
    expect(
      situationOf(
        article(
          '2020 Acme Sportback revealed as electric coupe',
          'The Acme Sportback has a 277-mile range.',
        ),
        acme,
      ).event,
    ).toBe('launch');
    expect(
      situationOf(
        article(
          'Acme under scrutiny',
          'An investigation revealed that Acme overcharged customers.',
        ),
        acme,
      ).event,
    ).not.toBe('launch');
  });

  it('takes an inquiry the brand says it is cooperating with as confirmed', () => {
    const inquiry = situationOf(
      article(
        'Attorney general investigating Acme',
        'The attorney general is investigating Acme, according to two people familiar with the matter.\n\n“We received an inquiry and are cooperating,” said an Acme spokesperson.',
      ),
      acme,
    );
    expect(inquiry).toMatchObject({ event: 'regulator-action', status: 'confirmed' });
    const unanswered = situationOf(
      article(
        'Attorney general investigating Acme',
        'The attorney general is investigating Acme, according to two people familiar with the matter.\n\nAcme declined to comment.',
      ),
      acme,
    );
    expect(unanswered.status).toBe('alleged');
  });

  it('says a listing through its formal announcement, led by investor relations, never amplified', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme to raise up to $12.9bn in Hong Kong listing',
          'Acme is set to raise up to $12.9bn from its listing in Hong Kong, pricing its shares at a discount.',
        ),
      ],
      acme,
    );
    const titles = g.phases.map((p) => baseTitle(p.title));
    expect(titles).toContain('Say it through the formal announcement');
    expect(titles).not.toContain('Amplify');
    expect(g.phases[0]!.title).toMatch(/\(Investor relations/);
  });

  it('reads a loss told after the team’s name as the team’s', () => {
    const lost = situationOf(
      article(
        'Acme coach: we needed that game',
        'Acme coach Jo Lynn says his team’s playoff hopes are slim after Monday night’s loss to the Chiefs.\n\nThe Acme defence struggled.',
      ),
      acme,
    );
    expect(lost.outcome).toBe('lost');
    expect(sentimentTowards(lost, 'en')).toBeLessThan(0);
  });
});

describe('plans fitted to the story (issue 42, tenth read)', () => {
  const monitor = (g: ReturnType<typeof generateAdvisory>) =>
    g.phases.find((p) => baseTitle(p.title) === 'Monitor and follow up')?.actions[0];

  it('watches each story for as long as its kind lasts, not a fixed 72 hours', () => {
    const inquiry = generateAdvisory(
      [
        article(
          'Regulator investigating Acme',
          'The state attorney general is investigating Acme over its fees.',
        ),
      ],
      acme,
    );
    expect(monitor(inquiry)).toBe(
      'Track new coverage and filings until the matter closes; review the line with counsel each week',
    );
    const down = generateAdvisory(
      [
        article(
          'Acme app down for thousands',
          'Acme’s app suffered an outage on Tuesday, leaving thousands unable to log in.',
        ),
      ],
      acme,
    );
    expect(monitor(down)).toBe(
      'Track new coverage until service is restored, and for 48 hours after',
    );
    const accused = generateAdvisory(
      [
        article(
          'Acme accused of misleading customers',
          'Consumer groups accused Acme of misleading customers over its fees.',
        ),
      ],
      acme,
    );
    expect(monitor(accused)).toMatch(/^Track new coverage, and what .+ next, for a week$/);
    // The line is followed up only where the plan gives one.
    const follow =
      'When facts change, agree the updated line with the same sign-off before it goes out';
    expect(steps(accused)).toContain(follow);
    const criticised = generateAdvisory(
      [
        article(
          'Acme console criticised',
          'Critics slammed Acme’s console, and early reviews are somewhat mixed.',
        ),
      ],
      acme,
    );
    expect(steps(criticised)).not.toContain(follow);
  });

  it('answers criticism that people are put at risk with a change to the product, never a correction', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme app criticised for exposing children’s contact details',
          'Parents criticised Acme’s app for showing children’s phone numbers and email addresses to strangers, which they call a hazard.',
        ),
      ],
      acme,
    );
    expect(g.situation?.event).toBe('criticism');
    expect(baseTitle(g.phases[0]!.title)).toBe('Understand the risk');
    expect(g.phases[0]!.title).toContain('Product, with trust and safety');
    expect(steps(g).join(' ')).not.toMatch(/correct/i);
    expect(avoid(g)).toContain(
      'Do not dispute a safety concern in public: answer it with what Acme is changing',
    );
  });

  it('logs a mention in passing in one phase: the service does the watching', () => {
    const g = generateAdvisory(
      [
        article(
          'Globex wins the city contract',
          'Globex won the city’s transport contract on Tuesday, beating three bidders. Its software runs on servers bought from Acme, among others. Globex will hire 200 people.',
        ),
      ],
      acme,
    );
    expect(g.situation?.role).toBe('passing');
    expect(g.phases.map((p) => baseTitle(p.title))).toEqual(['Log the mention', DO_NOT]);
  });

  it('gives an allegation against a party to its campaign, and staff’s concerns to HR with employment counsel', () => {
    const accused = partyAccused();
    expect(accused.phases[0]!.title).toMatch(
      /^Review the allegation \(Campaign director, with counsel/,
    );
    const cuts = generateAdvisory(
      [
        article(
          'Acme to cut 400 jobs',
          'Acme will cut 400 jobs at its Leeds plant, the company told staff on Monday.',
        ),
      ],
      acme,
    );
    expect(cuts.phases.map((p) => p.title).join(' ')).toContain(
      'Talk to employees first (HR, with employment counsel',
    );
  });

  it('closes a row the coverage reports over, and reopens nothing', () => {
    const g = generateAdvisory(
      [
        article(
          'Singer’s row with Acme seems to be over',
          'A row between a singer and her former label looks like it’s coming to an end.\n\nAcme, the label that owns her recordings, says she will be allowed to play her old songs on Sunday. Last week she accused Acme of trying to stop her performing them.',
        ),
      ],
      acme,
    );
    expect(g.situation).toMatchObject({ event: 'accusation', status: 'resolved' });
    // What was said in public stays said: the row's weight is not discounted.
    expect(g.severity).toBe('medium');
    expect(g.phases.map((p) => baseTitle(p.title))).toEqual([
      'Close what is still open',
      'Answer only when asked',
      'Monitor and follow up',
      DO_NOT,
    ]);
    expect(avoid(g)).toContain(
      'Do not reopen the row: no comment on what the other side said before it ended',
    );
    // Over, but the show it was about is still ahead: watched through it, settled before it.
    expect(steps(g)).toContain(
      'Track new coverage through Sunday 22 November, and for 48 hours after; close the story if none comes',
    );
    expect(g.phases[0]!.actions.at(-1)).toBe(
      'Have this done before Sunday 22 November: the coverage says “she will be allowed to play her old songs on Sunday”',
    );
  });

  it('briefs the others the coverage says the story touches, and shares a deal signed as announced', () => {
    const g = generateAdvisory(
      [
        article(
          'Attorney general investigating Acme',
          'The state attorney general is investigating Acme over its accounts. Acme shares fell 9% and employees were told to expect questions.',
        ),
      ],
      acme,
    );
    expect(steps(g)).toContain(
      'Brief employees and investors (through investor relations) too: the coverage concerns them',
    );
    const signed = generateAdvisory(
      [
        article(
          'Globex inks $9 billion order for 30 Acme jets',
          'Globex signed a $9 billion order for 30 Acme jets on Monday, the companies announced.',
        ),
      ],
      acme,
    );
    expect(steps(signed)).toContain(
      'Share the announcement on owned channels in the words agreed with the other party, as legal and investor relations approve',
    );
    const talks = generateAdvisory(
      [
        article(
          'Acme in talks to acquire Globex',
          'Acme is in talks to acquire Globex, people familiar with the matter said.',
        ),
      ],
      acme,
    );
    expect(steps(talks).join(' ')).toContain('Once the terms are final and public');
  });

  it('times results and a listing to the call and the ceremony the coverage dates', () => {
    const results = generateAdvisory(
      [
        article(
          'Acme shares slip after results',
          'Acme reported third-quarter earnings that beat estimates, but cut its sales guidance. Acme management hosts a conference call at 9 a.m. ET to discuss results.',
        ),
      ],
      acme,
    );
    expect(results.phases[0]!.actions.at(-1)).toBe(
      'Have this done before the call at 9 a.m. ET on 20 November: the coverage says “Acme management hosts a conference call at 9 a.m. ET”',
    );
  });

  it('asks counsel what an inquiry wants of the brand even when the coverage does not say who', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme under investigation',
          'Acme is under investigation over its billing, the company said.',
        ),
      ],
      acme,
    );
    expect(g.situation?.event).toBe('regulator-action');
    expect(g.phases[0]!.actions).toContain(
      'Establish with counsel what is asked of Acme, and by when',
    );
  });

  it('leaves a relative clause’s conviction to its subject, and reads deadly crashes and groundings', () => {
    const platform = generateAdvisory(
      [
        article(
          'Acme lets extremists keep their accounts',
          'Critics say Acme enforces its rules unevenly. A party leader, who was just convicted of inciting hate, still has an Acme account, where he repeats the rhetoric that got him convicted in a Dutch court.',
        ),
      ],
      acme,
    );
    expect(platform.topics).not.toContain('legal-regulatory');
    const crash = situationOf(
      article(
        'Acme jet crash',
        'An Acme jet was involved in a deadly crash in Ethiopia on Sunday.',
      ),
      acme,
    );
    expect(crash.event).toBe('accident');
    const grounded = situationOf(
      article(
        'Regulators act on Acme',
        'Regulators around the world grounded the Acme Max jets after the second crash.',
      ),
      acme,
    );
    expect(grounded.event).toBe('regulator-action');
  });

  it('speaks for a party through its campaign, with no "aware and looking into it" line or talk of compensation', () => {
    const g = partyAccused();
    const all = g.phases.flatMap((p) => p.actions).join(' ');
    expect(all).toContain(
      'If nobody has, agree the line with the campaign director before anyone speaks',
    );
    expect(all).not.toMatch(/aware of the allegation|compensation/);
    // A line someone already gave is held or changed by decision, never by default.
    expect(all).toContain('if so, have leadership decide whether to hold that line or change it');
    expect(avoid(g)).toContain(
      'Do not apologise or concede before the campaign director agrees the line',
    );
  });

  it('has legal and marketing review the brand’s own claims when criticism says the product falls short of them', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme console falls short of 4K',
          'Acme promised 4K at 60 frames a second, but the console falls short of it, and early reviews are somewhat mixed.',
        ),
      ],
      acme,
    );
    expect(g.phases[1]!.title).toMatch(
      /^Review the claims made for the product \(Legal and marketing/,
    );
    expect(g.phases[1]!.actions).toContain(
      'Review what Acme claimed (adverts, product pages) against what the product does',
    );
  });

  it('takes an act defended on record for the brand as confirmed: only what it means is disputed', () => {
    const s = situationOf(
      article(
        'Acme Party accused of misleading voters',
        [
          'The Acme Party was accused of trying to mislead voters by renaming its press account during a debate.',
          'Fact-checkers cried foul.',
          'A senior minister defended the party’s actions, saying the account was clearly linked to it.',
        ].join('\n\n'),
      ),
      party,
    );
    expect(s).toMatchObject({ event: 'accusation', status: 'confirmed' });
  });

  it('says what an authority does, and a problem over, in plain words', () => {
    const inquiry = generateAdvisory(
      [
        article(
          'Regulator investigating Acme',
          'The state attorney general is investigating Acme over its fees, people familiar with the matter said.',
        ),
      ],
      acme,
    );
    expect(inquiry.executiveSummary[0]!.text).toBe(
      'The coverage reports an investigation of Acme by the regulator, not confirmed.',
    );
    const over = generateAdvisory(
      [
        article(
          'Acme app back after outage',
          'Acme’s app suffered an outage on Tuesday. The problem has since been fixed, Acme said.',
        ),
      ],
      acme,
    );
    expect(over.executiveSummary[0]!.text).toBe('An outage at Acme is reported as over.');
  });
});

describe('read on held-out pages (issue 42, sixth session)', () => {
  const read = (title: string, text: string) => situationOf(article(title, text), acme);

  it('reads harassment on a platform the brand polices as its users’, and the brand’s own as an accusation', () => {
    const platform = read(
      'Tweets fit a pattern of harassment Acme has banned before',
      [
        'Acme said it would take action on any accounts that violated its harassment policies.',
        'Acme users complained about the reach of the posts.',
      ].join('\n\n'),
    );
    expect(platform.event).not.toBe('accusation');
    expect(read('Acme discriminated against older workers', 'Acme denied it.').event).toBe(
      'accusation',
    );
    expect(
      read('Women tell of years of abuse', 'They describe a culture of harassment at Acme.').event,
    ).toBe('accusation');
  });

  it('reads a grave event the lede tells right after the brand’s sentence, without its name', () => {
    const s = read(
      'A president advises Acme on branding',
      [
        'Twitter erupted when the president advised Acme after an airline cancelled its Acme flights.',
        'The U.S. was one of the last countries to ground the plane after a second deadly crash.',
        'Acme shares were flat.',
      ].join('\n\n'),
    );
    expect(s.event).toBe('accident');
    // Only when the brand's own sentences tell no event.
    expect(
      read(
        'Acme recalls kettles',
        'Acme recalled 10,000 kettles.\n\nRegulators fined a rival for a deadly crash.',
      ).event,
    ).toBe('recall');
  });

  it('takes a newsless headline’s story from the brand’s first sentences, and caps an accident that hurt nobody at high', () => {
    const text = [
      'It was a long year for the founder.',
      'Acme’s first crewed flight has been postponed until 2018, the agency said.',
      'It is another setback.',
      'Acme hopes to fly in January, four months after a rocket explosion destroyed the satellite it carried.',
      '"We are making progress with the investigation into our Sept. 1 anomaly," Acme said.',
    ].join('\n\n');
    const s = read('What is the hold-up at Acme?', text);
    expect(s.event).toBe('accident');
    expect(generateAdvisory([article('What is the hold-up at Acme?', text)], acme).severity).toBe(
      'high',
    );
    // The brand's own investigation is no regulator's.
    expect(
      read('Acme update', 'Acme continues its internal investigation into the fault.').event,
    ).not.toBe('regulator-action');
  });

  it('reads Japanese: what happened by its words, who only reported it as a source', () => {
    const ja = (title: string, text: string) => ({ ...article(title, text), language: 'ja' });
    const flaw = ja(
      '人気ソフト「Acme」に脆弱性、アップデートを',
      'Checkerは2月20日、Acmeに長年にわたって脆弱性が存在していると伝えた。\n\nAcmeの開発元はすでに対応を決定している。',
    );
    expect(situationOf(flaw, acme).event).toBe('security-flaw');
    expect(generateAdvisory([flaw], acme).severity).not.toBe('low');
    expect(situationOf(flaw, { host: 'checker.example', name: 'Checker' }).role).toBe('source');
  });

  it('plans a recall the brand already runs as one to run well, not one to decide on', () => {
    const running = generateAdvisory(
      [
        article(
          'Acme recalls 40,000 kettles after reports of injuries',
          'Acme announced a voluntary recall of 40,000 electric kettles on Friday. Regulators said they had received eleven reports of minor burn injuries linked to a defect in the lid hinge. Acme said customers should stop using the kettles and contact the company for a full refund.',
        ),
      ],
      acme,
    );
    // Handled, nobody killed, not at scale: high, not critical.
    expect(running.severity).toBe('high');
    expect(steps(running).join(' ')).not.toMatch(/decide .*whether to stop sales or recall/);
    expect(steps(running)).toContain(
      'Check the recall notice reaches every owner: registered customers, retailers, the website and the product pages',
    );
    expect(steps(running)).toContain(
      'Track new coverage, injury reports and returns until the recall closes',
    );
    expect(avoid(running)).toContain(
      'Do not play down the hazard or the injuries: say what the recall notice says',
    );
    // A recall others call for is still the brand's decision to take.
    const urged = generateAdvisory(
      [
        article(
          'Regulators urge Acme to recall kettles',
          'Regulators urged Acme to recall 40,000 kettles after burn injuries were reported.',
        ),
      ],
      acme,
    );
    expect(steps(urged).join(' ')).toMatch(/whether to stop sales or recall/);
  });

  it('plans a breach the brand confirms on record without waiting for the finding it gives', () => {
    const confirmed = generateAdvisory(
      [
        article(
          'Acme confirms data breach exposing 2.3 million customers',
          'Acme said on Saturday that personal data of 2.3 million customers was exposed in a data breach. The company has informed the privacy regulator and reset affected passwords.',
        ),
      ],
      acme,
    );
    expect(steps(confirmed)).toContain(
      'Keep the data-protection authority informed as the review goes on: the coverage says it has been told',
    );
    expect(steps(confirmed).join(' ')).not.toMatch(/^If the review confirms/m);
    expect(steps(confirmed)).toContain(
      'Open a help page and a contact line for the people affected',
    );
    // Reported by others, not confirmed by the brand: every step waits for the finding.
    const reported = generateAdvisory(
      [
        article(
          'Hackers claim Acme data',
          'Hackers claim to have stolen data from Acme, reports say. Acme did not respond.',
        ),
      ],
      acme,
    );
    expect(steps(reported).join(' | ')).toMatch(/If the review confirms personal data was exposed/);
  });

  it('answers customers’ complaints with the cases resolved and the cause fixed (fourteenth read)', () => {
    const g = generateAdvisory(
      [
        article(
          "Customers complain about Acme's support delays",
          'Several readers wrote in this week to complain about long waits when contacting Acme customer service. One reader said a refund request had been open for three weeks.',
        ),
      ],
      acme,
    );
    expect(steps(g)).toContain('Find the cases the coverage describes and resolve them first');
    expect(steps(g).join(' ')).not.toMatch(/product owner and legal/);
    expect(avoid(g)).toEqual([
      'Do not dispute customers’ experience in public: answer with what is being fixed',
    ]);
  });

  it('tells the people whose data is out how to protect themselves, and never has a settled row repeated (fourteenth read)', () => {
    const breach = generateAdvisory(
      [
        article(
          'Acme confirms data breach',
          'Acme said on Saturday that personal data of 2.3 million customers was exposed in a data breach.',
        ),
      ],
      acme,
    );
    expect(steps(breach).join(' ')).not.toMatch(/add nothing new/);
    expect(steps(breach)).toContain(
      'Publish now what the people affected should do: change passwords they use elsewhere, and watch for messages that use the stolen details',
    );
    expect(avoid(breach)).toContain(
      'Do not play down how many people are affected, or guess at the cause, before security’s review',
    );
    const over = generateAdvisory(
      [
        article(
          'Acme will let a singer play her old songs',
          'A row between a singer and Acme looks like it is coming to an end. Last week the singer accused Acme of blocking her performance. Acme says she will be allowed to play her old songs.',
        ),
      ],
      acme,
    );
    expect(steps(over)).toContain(
      'If asked, confirm the outcome in one line, with no comment on what either side said during the row',
    );
    expect(steps(over).join(' ')).not.toMatch(/already said of the outcome/);
    // Said to be ending, it is not said to be over.
    expect(over.executiveSummary[0]!.text).toBe(
      'An accusation against Acme is reported as coming to an end.',
    );
  });

  it('lets the headline say what happened when the article’s sentence for it only repeats it', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme wins design award for its new toaster line',
          'Acme received the annual industrial design award for its new toaster line. Acme said the line will launch in twelve new markets next spring.',
        ),
      ],
      acme,
    );
    expect(g.executiveSummary[0]!.text).toBe(
      'Paper 1 reports: Acme wins design award for its new toaster line.',
    );
  });

  it('holds the line of one who defends the brand’s acts as its own, and leads with what the piece says of the brand rather than a list naming it', () => {
    const g = generateAdvisory(
      [
        article(
          'Acme Party under fire for renaming its press account during a debate',
          'The Acme Party was accused of misleading voters by renaming its press account during a debate. Foreign Secretary Jane Roe defended the party’s actions, saying the account was clearly linked to the party.',
        ),
      ],
      party,
    );
    expect(g.situation.onRecord).toMatch(/^Foreign Secretary Jane Roe defended/);
    expect(steps(g).join(' ')).not.toMatch(/Find whether anyone has already answered/);
    // Held or changed by leadership's decision; until then nothing is repeated (a defiant
    // line restated keeps the story alive: the fifteenth read).
    expect(steps(g).join(' ')).toMatch(/until then, say nothing new in public/);
    expect(steps(g).join(' ')).not.toMatch(/restate/);
    const listed = generateAdvisory(
      [
        article(
          'The future of banking',
          'Neo-banks are getting attention here, with names like Acme, Varo, SoFi, Current and GoBank.\n\nAt Acme and Varo, you can get what sounds a little like a payday loan, your paycheck cashed two days early.',
        ),
      ],
      acme,
    );
    expect(listed.executiveSummary[0]!.text).toMatch(/^At Acme and Varo/);
  });

  it('reads a piece argued in the first person as opinion, not a reporter’s “told me” nor a review', () => {
    const column = read(
      'The future of Acme innovation is backwards',
      [
        'The new Acme laptop is a lot like the old one. It would seem the future is what I’ll call rewind design.',
        'I’m not complaining. The laptop looks fine. Acme has been dealing with outrage over its keyboards.',
        'I think the keyboard is a big deal. I suspect Acme knows it.',
      ].join('\n\n'),
    );
    expect(column.opinion).toBe(true);
    const reported = read(
      'Women describe years at Acme',
      [
        'A lawyer told me that an Acme executive harassed her client. I heard the same from two others.',
        'I could not confirm the rumours at the time. Acme denied the allegations.',
      ].join('\n\n'),
    );
    expect(reported.opinion).toBe(false);
    const review = situationOf(
      article(
        'Acme Phone review: the best yet',
        'I think the Acme Phone is the best yet. I’m impressed by the battery. I love the screen. I’d buy it.',
        'https://news.example/reviews/acme-phone',
      ),
      acme,
    );
    expect(review.opinion).toBe(false);
  });

  it('reads a title’s credit as a source', () => {
    const s = read(
      'A 19-year-old flaw in Zip',
      'Researchers found the flaw.\n\nExtracting a 19 Year Old Code Execution from Zip - Acme Research\n\nZip fixed it.',
    );
    expect(s.role).toBe('source');
  });
});
