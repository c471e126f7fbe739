import { addStoryContext } from './advisory/add-story-context.js';
import { applyAdvisoryProposal } from './advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from './advisory/dismiss-advisory-proposal.js';
import { triggerAdvisory } from './advisory/trigger-advisory.js';
import { listBrands } from './brands/list-brands.js';
import { createDelegationInvite } from './delegations/create-delegation-invite.js';
import { dropDelegation } from './delegations/drop-delegation.js';
import { grantDelegation } from './delegations/grant-delegation.js';
import { listDelegations } from './delegations/list-delegations.js';
import { revokeDelegationInvite } from './delegations/revoke-delegation-invite.js';
import { createApiKey } from './keys/create-api-key.js';
import { deleteBrandNote } from './notes/delete-brand-note.js';
import { postBrandNote } from './notes/post-brand-note.js';
import type { Operation } from './operation.js';
import { createShare } from './shares/create-share.js';
import { createStoryFromUrl } from './stories/create-story-from-url.js';
import { getStory } from './stories/get-story.js';
import { getStoryFromUrlJob } from './stories/get-story-from-url-job.js';
import { listStories } from './stories/list-stories.js';
import { assignPhase } from './teamwork/assign-phase.js';
import { assignStory } from './teamwork/assign-story.js';
import { completePhase } from './teamwork/complete-phase.js';
import { unassignPhase } from './teamwork/unassign-phase.js';
import { unassignStory } from './teamwork/unassign-story.js';

/** The registry: every partner operation, mounted on REST (and as v1_ MCP tools). */
export const operations: readonly Operation[] = [
  listBrands,
  listStories,
  getStory,
  triggerAdvisory,
  addStoryContext,
  applyAdvisoryProposal,
  dismissAdvisoryProposal,
  assignStory,
  unassignStory,
  assignPhase,
  unassignPhase,
  completePhase,
  postBrandNote,
  deleteBrandNote,
  listDelegations,
  grantDelegation,
  dropDelegation,
  createDelegationInvite,
  revokeDelegationInvite,
  createShare,
  createStoryFromUrl,
  getStoryFromUrlJob,
  createApiKey,
] as unknown as readonly Operation[];
