import type { KeyboardEvent } from 'react';
import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { usePointerDrag } from './usePointerDrag.js';

/** Each pane keeps at least this many pixels, as in tb_graph_ascend, so neither graph can be dragged away. */
export const MIN_PANE_PX = 200;

/** Ratio for a pointer at `x` inside a container, keeping both panes at least MIN_PANE_PX wide when they fit. */
export function splitRatioAt(x: number, left: number, width: number): number {
  if (width <= 2 * MIN_PANE_PX) return 0.5;
  const clamped = Math.min(width - MIN_PANE_PX, Math.max(MIN_PANE_PX, x - left));
  return clamped / width;
}

/** The dashed bar between the NPU and Bench panes; drag it or focus it and use ←/→. */
export function Splitter() {
  const t = useT();
  const ratio = useAppStore((s) => s.splitRatio);
  const setRatio = useAppStore((s) => s.setSplitRatio);
  const drag = usePointerDrag(
    () => null,
    (e) => {
      const box = e.currentTarget.parentElement!.getBoundingClientRect();
      setRatio(splitRatioAt(e.clientX, box.left, box.width));
    },
  );
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.key === 'ArrowLeft' ? -0.02 : e.key === 'ArrowRight' ? 0.02 : 0;
    if (step === 0) return;
    e.preventDefault();
    e.stopPropagation(); // the panes also listen for keys
    const box = e.currentTarget.parentElement!.getBoundingClientRect();
    setRatio(splitRatioAt(box.left + (ratio + step) * box.width, box.left, box.width));
  };

  return (
    <div
      className="pb-splitter"
      role="separator"
      aria-orientation="vertical"
      aria-label={t('splitter.label')}
      aria-valuenow={Math.round(ratio * 100)}
      aria-valuemin={0}
      aria-valuemax={100}
      tabIndex={0}
      data-testid="splitter"
      {...drag}
      onKeyDown={onKeyDown}
    />
  );
}
