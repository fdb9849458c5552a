import { Router } from 'express';
import type { RunsResponse } from '../../../src/core/api/types.js';
import { translate, type Lang } from '../../i18n/messages.js';
import { scanLogdir } from '../../logdir/scanLogdir.js';
import type { AppContext } from '../appContext.js';

/** `GET /api/runs`: scanned on every call, so files added while the server runs appear on refresh. */
export function runsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/api/runs', async (_req, res) => {
    const lang = res.locals.lang as Lang;
    // Event files are scanned asynchronously (their graphs are tags): new or grown ones are waited for, then listed.
    const pending: Array<Promise<unknown>> = [];
    let runs = scanLogdir(ctx.logdirReal, ctx.stores, undefined, pending);
    if (pending.length > 0) {
      await Promise.all(pending);
      runs = scanLogdir(ctx.logdirReal, ctx.stores);
    }
    const body: RunsResponse = {
      logdir: ctx.logdirShown,
      runs: runs.map((r) => ({
        run: r.run,
        tags: r.tags.map((t) => ({
          tag: t.tag,
          format: t.format,
          graphType: t.graphType,
          sizeBytes: t.sizeBytes,
          error: t.error ? translate(lang, t.error) : null,
          ...(t.step !== undefined ? { step: t.step } : {}),
        })),
      })),
    };
    res.json(body);
  });
  return router;
}
