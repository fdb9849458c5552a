import type { Lang } from '../i18n/messages.js';
import type { LogRoots } from '../logdir/logRoots.js';
import type { RunListing } from '../logdir/runListing.js';
import type { OverlayRegistry } from '../overlay/overlayRegistry.js';
import type { StoreCache } from '../store/openStore.js';
import type { AnswerCache } from './answerCache.js';

/** What every route of one app instance shares. One instance per `createApp`, so tests can run several side by side. */
export interface AppContext {
  /** The log dir, or `--logdir_spec`'s dirs: every containment check compares against the root of the file's run. */
  roots: LogRoots;
  /** `/api/runs`'s listing, rescanned per `--reload_interval`. */
  listing: RunListing;
  stores: StoreCache;
  defaultLang: Lang;
  /** Milliseconds of store work one request may take before it is answered 503 (workBudget.ts). */
  workBudgetMs: number;
  /** Serialised /children answers shared by every client (answerCache.ts). */
  answers: AnswerCache;
  /** Issue 15's comparison overlays (server/overlay/overlayRegistry.ts). */
  overlays: OverlayRegistry;
  /** Write routes answer 403 (`serve --read_only`; the default when bound to other machines). */
  readOnly: boolean;
}
