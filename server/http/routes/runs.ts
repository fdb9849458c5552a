import { Router } from 'express';
import type { RunsResponse } from '../../../src/core/api/types.js';
import { translate, type Lang } from '../../i18n/messages.js';
import type { AppContext } from '../appContext.js';

/** `GET /api/runs`: rescanned per `--reload_interval` (runListing.ts), so files added while the server runs appear. */
export function runsRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/api/runs', async (_req, res) => {
    const lang = res.locals.lang as Lang;
    const runs = await ctx.listing.get();
    const body: RunsResponse = {
      logdir: ctx.roots.shown,
      runs: runs.map((r) => ({
        run: r.run,
        tags: r.tags.map((t) => ({
          tag: t.tag,
          format: t.format,
          graphType: t.graphType,
          sizeBytes: t.sizeBytes,
          error: t.error ? translate(lang, t.error) : null,
          ...(t.step !== undefined ? { step: t.step } : {}),
          ...(t.note ? { note: translate(lang, t.note) } : {}),
          ...(t.shards ? { shards: t.shards } : {}),
        })),
      })),
    };
    res.json(body);
  });
  return router;
}
