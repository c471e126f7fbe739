import { addStoryContext } from './advisory/add-story-context.js';
import { applyAdvisoryProposal } from './advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from './advisory/dismiss-advisory-proposal.js';
import { triggerAdvisory } from './advisory/trigger-advisory.js';
import { listBrands } from './brands/list-brands.js';
import { listMentions } from './brands/list-mentions.js';
import { createDelegationInvite } from './delegations/create-delegation-invite.js';
import { dropDelegation } from './delegations/drop-delegation.js';
import { grantDelegation } from './delegations/grant-delegation.js';
import { listDelegations } from './delegations/list-delegations.js';
import { revokeDelegationInvite } from './delegations/revoke-delegation-invite.js';
import { createApiKey } from './keys/create-api-key.js';
import { deleteBrandNote } from './notes/delete-brand-note.js';
import { postBrandNote } from './notes/post-brand-note.js';
import type { Operation, RestOperation } from './operation.js';
import { listActivity } from './portal/activity.js';
import {
  alertSettings,
  createAlertRuleOp,
  deleteAlertRuleOp,
  listAlertRulesOp,
  listAlertsOp,
  pauseAlertRule,
  resumeAlertRule,
  setDigestOp,
  setQuietHours,
} from './portal/alerts.js';
import { createApiKeyInApp, listApiKeys, revokeApiKeyInApp } from './portal/api-keys.js';
import { billingOverview } from './portal/billing.js';
import { getBrandKit, saveBrandKit } from './portal/brand-kit.js';
import {
  addBrandInApp,
  addSourceInApp,
  brandMonitoring,
  deleteBrandInApp,
  discoverFeedsInApp,
  removeSourceInApp,
  setAliasesInApp,
  setConnectorInApp,
  setConnectorTargetsInApp,
  setMatchPolicyInApp,
  verifyBrandByEmail,
} from './portal/brands.js';
import { listConnectedApps, revokeConnectedApp } from './portal/connected-apps.js';
import { overview } from './portal/overview.js';
import {
  inviteLink,
  listInvites,
  listPartners,
  revokeInviteInApp,
  revokePartner,
} from './portal/partners.js';
import { setPhaseDue } from './portal/phase-due.js';
import { changePassword, readProfile, updateProfile } from './portal/profile.js';
import { deleteSearch, listViews, saveSearch } from './portal/saved-views.js';
import {
  addGuest,
  reenableStoryShare,
  removeGuest,
  stopSharing,
  storyShare,
} from './portal/shares.js';
import { closeStory, closingOptions, reopenStory } from './portal/story-status.js';
import {
  inviteTeammate,
  listTeam,
  removeTeammate,
  resendInvitation,
  setMemberRole,
} from './portal/team.js';
import { unlockOnSubscription } from './portal/unlock-metered.js';
import {
  addWebhook,
  deleteWebhook,
  listWebhooks,
  pauseWebhook,
  resumeWebhook,
  retryDelivery,
  rotateWebhookSecret,
} from './portal/webhooks.js';
import { createShare } from './shares/create-share.js';
import { createStoryFromUrl } from './stories/create-story-from-url.js';
import { getStory } from './stories/get-story.js';
import { getStoryFromUrlJob } from './stories/get-story-from-url-job.js';
import { listRecentStories } from './stories/list-recent-stories.js';
import { listStories } from './stories/list-stories.js';
import { listStoryRequests } from './stories/list-story-requests.js';
import { searchStories } from './stories/search-stories.js';
import { assignPhase } from './teamwork/assign-phase.js';
import { assignStory } from './teamwork/assign-story.js';
import { completePhase } from './teamwork/complete-phase.js';
import { unassignPhase } from './teamwork/unassign-phase.js';
import { unassignStory } from './teamwork/unassign-story.js';

/**
 * The registry: every operation of the service, each with the doors it is mounted on.
 * REST, MCP and the portal are adapters that take their share of this one array.
 */
export const operations: readonly Operation[] = [
  listBrands,
  listStories,
  listMentions,
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
  // Spec 4.3's people's story list, and what the spec does "in the app".
  listRecentStories,
  searchStories,
  overview,
  listAlertRulesOp,
  createAlertRuleOp,
  pauseAlertRule,
  resumeAlertRule,
  deleteAlertRuleOp,
  listAlertsOp,
  alertSettings,
  setQuietHours,
  setDigestOp,
  listViews,
  saveSearch,
  deleteSearch,
  listStoryRequests,
  listActivity,
  unlockOnSubscription,
  listApiKeys,
  createApiKeyInApp,
  revokeApiKeyInApp,
  listConnectedApps,
  revokeConnectedApp,
  readProfile,
  updateProfile,
  changePassword,
  billingOverview,
  getBrandKit,
  saveBrandKit,
  addBrandInApp,
  brandMonitoring,
  addSourceInApp,
  removeSourceInApp,
  discoverFeedsInApp,
  setConnectorInApp,
  setConnectorTargetsInApp,
  setAliasesInApp,
  setMatchPolicyInApp,
  verifyBrandByEmail,
  deleteBrandInApp,
  listPartners,
  revokePartner,
  listInvites,
  revokeInviteInApp,
  inviteLink,
  setPhaseDue,
  closeStory,
  reopenStory,
  closingOptions,
  storyShare,
  reenableStoryShare,
  addGuest,
  removeGuest,
  stopSharing,
  listTeam,
  inviteTeammate,
  setMemberRole,
  removeTeammate,
  resendInvitation,
  listWebhooks,
  addWebhook,
  rotateWebhookSecret,
  retryDelivery,
  pauseWebhook,
  resumeWebhook,
  deleteWebhook,
];

/** The partner API: every operation with a REST route (and its v1_ MCP tool). */
export const restOperations = operations.filter((op): op is RestOperation => op.rest !== undefined);

/** The signed-in user's MCP session tools. */
export const userToolOperations = operations.filter((op) => op.userTool !== undefined);
