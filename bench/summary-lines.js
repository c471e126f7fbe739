/**
 * The executive summary's own lines, which the generator writes (what happened when no
 * sentence says it, a brand named in passing, who covers it, how the sources were read);
 * every other item is a sentence of an article. One pattern for the evaluation, which
 * checks quoted items against their source, and for the printed advisories, which show
 * quoted items only by their length.
 */
export const OWN_LINE =
  / reports: | publishers report it: |^Among the sources read so far, only .+ reports it\.$| (?:names .+|cites .+ as a source) in “|^Only \d+ words of .+ could be read|’s article is in .+, which the built-in reader does not assess|^This is .+’s own announcement, published on its site|^The coverage reports | is reported as (?:over|coming to an end)\.$|^An opinion piece (?:levels|discusses) /;
