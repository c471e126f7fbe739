const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

/**
 * A language's English name ("ja" → "Japanese"), or the code when it has none: for the
 * advisory's reading note and the pages' source lines alike.
 */
export const languageName = (code: string) => LANGUAGE_NAMES.of(code) ?? code;
