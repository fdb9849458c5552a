import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { translate, type Lang } from '../i18n/messages.js';
import { LogRoots, type LogdirEntry } from '../logdir/logRoots.js';
import { RunListing } from '../logdir/runListing.js';
import { pickLang } from '../i18n/pickLang.js';
import { createStoreCache, type StoreCache } from '../store/openStore.js';
import { DEFAULT_WORK_BUDGET_MS } from '../store/workBudget.js';
import { AnswerCache } from './answerCache.js';
import type { AppContext } from './appContext.js';
import { HttpError } from './httpError.js';
import { graphRouter } from './routes/graph.js';
import { overlayRouter } from './routes/overlay.js';
import { OverlayRegistry } from '../overlay/overlayRegistry.js';
import { runsRouter } from './routes/runs.js';
import { loopbackHostOnly, securityHeaders } from './security.js';

export interface AppOptions {
  /** A directory, or `--logdir_spec`'s entries (logRoots.ts). */
  logdir: string | readonly LogdirEntry[];
  /**
   * Seconds between rescans of the log dir for `/api/runs` (`--reload_interval`; 0: the first scan only, started
   * here). Default: a scan per request.
   */
  reloadIntervalS?: number;
  /** The vite output (dist/app); nothing else is served as a file. */
  appDir: string;
  /** Error-message language when neither `?lang=` nor Accept-Language picks one. */
  lang?: Lang;
  /** Refuse non-loopback Host headers (DNS rebinding); on by default, off for --bind_all / a public --host. */
  loopbackOnly?: boolean;
  stores?: StoreCache;
  /** Per-request store work budget in ms (default DEFAULT_WORK_BUDGET_MS; tests use small ones). */
  workBudgetMs?: number;
  /** Refuse the write routes (issue 15) with 403; default false (startServe decides for the CLI). */
  readOnly?: boolean;
}

/** The Express app for one log dir (or several). Throws when a log dir is not a directory (the CLI checks first). */
export function createApp(options: AppOptions): Express {
  const roots = LogRoots.open(options.logdir);
  const stores = options.stores ?? createStoreCache();
  const listing = new RunListing(roots, stores, options.reloadIntervalS === undefined ? null : options.reloadIntervalS * 1000);
  // TensorBoard loads at startup; with reloading off this is the listing for the server's life.
  if (options.reloadIntervalS !== undefined) listing.get().catch(() => {}); // a failure resurfaces on the first request
  const ctx: AppContext = {
    roots,
    listing,
    stores,
    defaultLang: options.lang ?? 'en',
    workBudgetMs: options.workBudgetMs ?? DEFAULT_WORK_BUDGET_MS,
    answers: new AnswerCache(),
    overlays: new OverlayRegistry({ rootOf: (target) => roots.rootOf(target), derived: stores.derived }),
    readOnly: options.readOnly ?? false,
  };
  const appDir = path.resolve(options.appDir);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(securityHeaders);
  app.use((req, res, next) => {
    res.locals.lang = pickLang(req.query.lang, req.get('accept-language'), ctx.defaultLang);
    next();
  });
  if (options.loopbackOnly ?? true) app.use(loopbackHostOnly);
  app.use('/api', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  app.use(runsRouter(ctx));
  app.use(graphRouter(ctx));
  app.use(overlayRouter(ctx));
  app.use('/api', (req, _res, next) => next(new HttpError(404, 'notFound', { path: req.originalUrl.slice(0, 200) })));
  app.use(express.static(appDir, { index: 'index.html', dotfiles: 'ignore', redirect: false, fallthrough: true }));
  app.get('/', (_req, _res, next) => {
    next(existsSync(path.join(appDir, 'index.html')) ? undefined : new HttpError(503, 'appNotBuilt', { dir: appDir }));
  });
  app.use((req, _res, next) => next(new HttpError(404, 'notFound', { path: req.path.slice(0, 200) })));
  app.use(errorHandler);
  return app;
}

/** Every error becomes `{error}` JSON with a 4xx/5xx status, in the request's language. */
function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const lang = (res.locals.lang as Lang | undefined) ?? 'en';
  let status: number;
  let error: string;
  let code: string | undefined;
  if (err instanceof HttpError) {
    status = err.status;
    error = translate(lang, err.body);
    code = err.code;
  } else {
    // Express's own errors (bad URI encoding, static 4xx) carry a status; anything else is our bug.
    const e = err as { status?: unknown; statusCode?: unknown };
    const s = e.status ?? e.statusCode;
    status = typeof s === 'number' && s >= 400 && s < 600 ? s : 500;
    const problem = err instanceof Error ? err.message : String(err);
    if (status >= 500) console.error(`probeboard: ${req.method} ${req.originalUrl}:`, err);
    error = status >= 500 ? translate(lang, { key: 'internal', params: { problem } }) : problem;
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  res.status(status).json(code === undefined ? { error } : { error, code });
}
