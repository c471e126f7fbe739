import type { parseHTML } from 'linkedom';

/** linkedom's document and elements (the project has no DOM library types). */
export type Doc = ReturnType<typeof parseHTML>['document'];
export type El = NonNullable<ReturnType<Doc['querySelector']>>;
