import { Router } from 'express';
import type { RunsResponse } from '../../../src/core/api/types.js';
import { translate, type Lang } from '../../i18n/messages.js';
import { scanLogdir } from '../../logdir/scanLogdir.js';
import type { AppContext } from '../appContext.js';

/** `GET /api/runs`: scanned on every call, so files added while the server runs appear on refresh. */
export function runsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/api/runs', (_req, res) => {
    const lang = res.locals.lang as Lang;
    const body: RunsResponse = {
      logdir: ctx.logdirShown,
      runs: scanLogdir(ctx.logdirReal, ctx.stores).map((r) => ({
        run: r.run,
        tags: r.tags.map((t) => ({
          tag: t.tag,
          format: t.format,
          graphType: t.graphType,
          sizeBytes: t.sizeBytes,
          error: t.error ? translate(lang, t.error) : null,
        })),
      })),
    };
    res.json(body);
  });
  return router;
}
