import { useT } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';

/**
 * The server is indexing a large `.vis` (graph routes answer 202 until it is done): percent of bytes read and the
 * file, as the reference viewer's loading veil showed, but only over the graph area, so the sidebar stays usable.
 */
export function IndexingProgress() {
  const t = useT();
  const indexing = useAppStore((s) => s.indexing);
  if (!indexing) return null;
  return (
    <div
      className="pb-indexing"
      data-testid="indexing-progress"
      data-percent={indexing.percent}
      role="progressbar"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={indexing.percent}
      aria-label={t('indexing.title', { file: indexing.file, percent: indexing.percent })}
    >
      <div className="pb-indexing__title">{t('indexing.title', { file: indexing.file, percent: indexing.percent })}</div>
      <div className="pb-indexing__bar">
        <div className="pb-indexing__fill" style={{ width: `${Math.max(0, Math.min(100, indexing.percent))}%` }} />
      </div>
      <div className="pb-indexing__bytes">
        {t('indexing.bytes', { read: formatBytes(indexing.bytesRead), total: formatBytes(indexing.bytesTotal) })}
      </div>
    </div>
  );
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
