import model from 'wink-eng-lite-web-model';
import winkNLP, { type WinkMethods } from 'wink-nlp';

/**
 * wink-nlp with its English model, loaded on first use (about 0.1 s): commands that never
 * score sentiment do not pay for it.
 */
let nlp: WinkMethods | undefined;

export function english(): WinkMethods {
  nlp ??= winkNLP(model);
  return nlp;
}
