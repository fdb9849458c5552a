import { useMemo } from 'react';
import type { NodeDetail } from '../../core/api/types.js';
import { useT } from '../i18n/i18n.js';
import { buildIoTable, cellText } from './ioRows.js';
import { isDriverCell, type PrecisionDriver } from './precisionDriver.js';

interface Props {
  npu: NodeDetail | null;
  bench: NodeDetail | null;
  compare: boolean;
  toolTips: Record<string, string>;
  /** The NPU cells that set the node's precision index, marked in the table, with why. */
  driver?: { cells: PrecisionDriver['cells']; reason: string } | null;
}

/** Inputs/outputs of the selected node and its counterpart, every column the items carry. */
export function IoTable({ npu, bench, compare, toolTips, driver }: Props) {
  const t = useT();
  const table = useMemo(() => buildIoTable(npu, bench, compare), [npu, bench, compare]);
  if (table.rows.length === 0) return <p className="pb-info__empty">{t('info.noRows')}</p>;
  return (
    <div className="pb-table-wrap">
      <table className="pb-table" data-testid="info-table">
        <thead>
          <tr>
            {compare && <th scope="col">{t('info.col.side')}</th>}
            <th scope="col">{t('info.col.name')}</th>
            {table.columns.map((col) => (
              <th key={col} scope="col" title={toolTips[col]} data-tooltip={toolTips[col] ? 'true' : undefined}>
                {col}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => (
            <tr
              key={`${row.side}:${row.kind}:${row.name}:${i}`}
              className="pb-table__row"
              data-side={row.side}
              data-matched={row.matched === null ? undefined : String(row.matched)}
              data-testid="info-row"
            >
              {compare && <td className="pb-table__side">{t(row.side === 'npu' ? 'info.side.npu' : 'info.side.bench')}</td>}
              <th scope="row" className="pb-table__name" title={row.name}>
                {row.matched !== null && (
                  <span
                    className="pb-dot"
                    data-matched={String(row.matched)}
                    title={t(row.matched ? 'info.matched' : 'info.unmatched')}
                    aria-label={t(row.matched ? 'info.matched' : 'info.unmatched')}
                  />
                )}
                {row.name}
              </th>
              {table.columns.map((col) => {
                const text = cellText(row.item[col]);
                const tip = toolTips[col];
                const drives = driver && row.side === 'npu' && isDriverCell(driver.cells, row.kind, row.key, col);
                const title = tip ? `${tip}:\n${text}` : text;
                return (
                  <td
                    key={col}
                    title={drives ? `${title}\n\n${t('info.driverCell')}\n${driver.reason}` : title}
                    data-flagged={row.flagged.has(col) ? 'true' : undefined}
                    data-drives={drives ? 'true' : undefined}
                    data-column={col}
                  >
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
