import { listBrands } from './brands/list-brands.js';
import { grantDelegation } from './delegations/grant-delegation.js';
import { listDelegations } from './delegations/list-delegations.js';
import { createApiKey } from './keys/create-api-key.js';
import { deleteBrandNote } from './notes/delete-brand-note.js';
import { postBrandNote } from './notes/post-brand-note.js';
import type { Operation } from './operation.js';
import { getStory } from './stories/get-story.js';
import { listStories } from './stories/list-stories.js';

/** The registry: every partner operation, mounted on REST (and as v1_ MCP tools). */
export const operations: readonly Operation[] = [
  listBrands,
  listStories,
  getStory,
  postBrandNote,
  deleteBrandNote,
  listDelegations,
  grantDelegation,
  createApiKey,
] as unknown as readonly Operation[];
