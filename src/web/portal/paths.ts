/** The story page's path. */
export const storyPath = (brand: string, event: string) =>
  `/app/stories/${encodeURIComponent(brand)}/${encodeURIComponent(event)}`;

/** Where a story-from-URL job's page and its status live. */
export const fromUrlJobPath = (brand: string, job: string) =>
  `/app/stories/from-url/${encodeURIComponent(brand)}/${encodeURIComponent(job)}`;

/** The stories list and its search. */
export const STORIES_PATH = '/app/stories';
