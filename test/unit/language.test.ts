import { describe, expect, it } from 'vitest';
import { stopwordsFor, terms } from '../../src/pipeline/cluster.js';
import { detectLanguage, languageOf } from '../../src/pipeline/language.js';
import { scoreText } from '../../src/pipeline/taxonomy.js';

describe('detectLanguage', () => {
  it.each([
    [
      'en',
      'The company said on Tuesday that its sales rose in the third quarter, driven by demand in Europe.',
    ],
    [
      'fr',
      'Le groupe a annoncé mardi une hausse de ses ventes au troisième trimestre, portée par la demande en Europe.',
    ],
    [
      'de',
      'Der Konzern hat am Dienstag einen Anstieg seiner Umsätze im dritten Quartal bekannt gegeben, getragen von der Nachfrage.',
    ],
    [
      'es',
      'La empresa anunció el martes que sus ventas aumentaron en el tercer trimestre, impulsadas por la demanda en Europa.',
    ],
    [
      'it',
      "L'azienda ha annunciato martedì che le vendite sono aumentate nel terzo trimestre, trainate dalla domanda in Europa.",
    ],
    [
      'nl',
      'Het bedrijf maakte dinsdag bekend dat de omzet in het derde kwartaal is gestegen, gedreven door de vraag in Europa.',
    ],
    [
      'pl',
      'Spółka poinformowała we wtorek, że jej sprzedaż wzrosła w trzecim kwartale dzięki popytowi w Europie.',
    ],
    [
      'ja',
      'トヨタ自動車は火曜日、第3四半期の販売台数が欧州での需要に支えられて増加したと発表した。同社によると、今後も生産を拡大する方針だ。',
    ],
  ])('%s', (code, text) => {
    expect(detectLanguage(text)).toBe(code);
  });

  it('answers null for text too short to tell', () => {
    expect(detectLanguage('Acme recall')).toBeNull();
    expect(detectLanguage('')).toBeNull();
    expect(detectLanguage('12 345 — 67,8 % !!!')).toBeNull();
  });

  it('keeps the language an article came with, null included', () => {
    const text =
      'The company said on Tuesday that its sales rose in the third quarter, driven by demand.';
    expect(languageOf({ title: 'Sales', text })).toBe('en');
    expect(languageOf({ title: 'Sales', text, language: 'fr' })).toBe('fr');
    expect(languageOf({ title: 'Sales', text, language: null })).toBeNull();
  });
});

describe('stop words by language', () => {
  it("leaves out the article's own function words, and English", () => {
    expect(stopwordsFor('es').has('pero')).toBe(true);
    expect(stopwordsFor('es').has('the')).toBe(true);
    expect(stopwordsFor('en').has('pero')).toBe(false);
    // Unknown: the languages seen most.
    expect(stopwordsFor(null).has('und')).toBe(true);
    const spanish = terms({ title: '', text: 'pero también retiradas retiradas', language: 'es' });
    expect([...spanish.keys()]).toEqual(['retiradas']);
  });
});

describe('signal lists by language', () => {
  it('reads an article with the lists of its language', () => {
    expect(scoreText('Acme rappelle 40 000 perceuses défectueuses', 'fr').topics).toEqual([
      'product-safety',
    ]);
    expect(scoreText('Northwind: Rückruf von 40.000 Bohrmaschinen', 'de').topics).toEqual([
      'product-safety',
    ]);
    expect(scoreText('Acme recalls 40,000 drills', 'en').topics).toEqual(['product-safety']);
    expect(scoreText('Acme retira del mercado 40.000 taladros defectuosos', 'es').topics).toEqual([
      'product-safety',
    ]);
    // Spanish "demanda" is a lawsuit, or the demand for something.
    expect(scoreText('Los clientes presentaron una demanda contra Acme', 'es').topics).toEqual([
      'legal-regulatory',
    ]);
    expect(scoreText('La demanda de taladros creció en el tercer trimestre', 'es').topics).toEqual(
      [],
    );
  });

  it("does not read another language's words: French 'court' is short, not a tribunal", () => {
    expect(scoreText('Un délai court pour la nouvelle usine', 'fr').topics).toEqual([]);
    expect(scoreText('A short delay after the court ruling', 'en').topics).toEqual([
      'legal-regulatory',
    ]);
  });

  it('reads a tax scheme before a court as a legal matter in French, German and Spanish', () => {
    expect(
      scoreText("Un juge de la Cour de l'impôt se récuse d'un dossier sur un paradis fiscal", 'fr')
        .topics,
    ).toEqual(['legal-regulatory']);
    expect(scoreText('Der Verdacht auf Steuerhinterziehung wächst', 'de').topics).toEqual([
      'legal-regulatory',
    ]);
    expect(scoreText('Acusan a Acme de evasión fiscal', 'es').topics).toEqual(['legal-regulatory']);
  });

  it('reads a language without lists, or an unknown one, with the English lists', () => {
    expect(scoreText('Acme recall', 'pl').topics).toEqual(['product-safety']);
    expect(scoreText('Acme recall', null).topics).toEqual(['product-safety']);
  });
});
