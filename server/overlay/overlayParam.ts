import type { AppContext } from '../http/appContext.js';
import { HttpError } from '../http/httpError.js';
import type { Opened } from '../http/routes/graph.js';
import type { OverlayTarget } from './overlayEntry.js';

/** The overlay's target for a graph a route opened: file version and graph. */
export function targetOf(o: Opened): OverlayTarget {
  const { absPath, relPath, format, run, tag } = o.ref;
  return { absPath, relPath, format, run, tag, stamp: o.stamp, step: o.step, rank: o.rank };
}

/** `overlay=<id>` on a graph route: the overlay's view of the opened file, or 409 `overlayUnknown`. */
export function withOverlay(ctx: AppContext, id: string | undefined, opened: Opened): Opened {
  if (id === undefined || id === '') return opened;
  const store = ctx.overlays.store(id, targetOf(opened), opened.store);
  if (!store) throw new HttpError(409, 'overlayUnknown', { id: id.slice(0, 64) }, 'overlayUnknown');
  return { ...opened, store };
}
