import { useLayoutEffect, useMemo, useRef, type CSSProperties, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { NodeDetail } from '../../core/api/types.js';
import { useT } from '../i18n/i18n.js';
import { usePointerDrag } from '../controls/usePointerDrag.js';
import { buildIoTable, cellText, numericColumns, resizeColumn, type ColumnWidths } from './ioRows.js';
import { isDriverCell, type PrecisionDriver } from './precisionDriver.js';

interface Props {
  npu: NodeDetail | null;
  bench: NodeDetail | null;
  compare: boolean;
  toolTips: Record<string, string>;
  /** The NPU cells that set the node's precision index, marked in the table, with why. */
  driver?: { cells: PrecisionDriver['cells']; reason: string } | null;
  /** Widths the user dragged the columns to (kept by the panel while the same file is open); empty = automatic. */
  widths?: ColumnWidths;
  onWidths?: (widths: Record<string, number>) => void;
}

const SIDE_COL = '#side';
const NAME_COL = '#name';
/** Width of a column that appears after the widths were fixed (another node with more columns). */
const DEFAULT_WIDTH = 120;

/** Every header cell's current width, by column key: where a drag starts from. */
function measureColumns(table: HTMLTableElement | null): Record<string, number> {
  const out: Record<string, number> = {};
  table?.querySelectorAll<HTMLElement>('thead th[data-col]').forEach((th) => {
    out[th.dataset.col!] = th.getBoundingClientRect().width;
  });
  return out;
}

/** The drag handle on a header cell's right edge. */
interface ResizerProps {
  column: string;
  label: string;
  tableRef: RefObject<HTMLTableElement | null>;
  onWidths?: (widths: Record<string, number>) => void;
}

function ColumnResizer({ column, label, tableRef, onWidths }: ResizerProps) {
  const t = useT();
  const drag = usePointerDrag(
    (e: PointerEvent<HTMLElement>) => ({ x: e.clientX, widths: measureColumns(tableRef.current) }),
    (e, start) => onWidths?.(resizeColumn(start.widths, column, e.clientX - start.x)),
  );
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    e.preventDefault();
    onWidths?.(resizeColumn(measureColumns(tableRef.current), column, e.key === 'ArrowLeft' ? -10 : 10));
  };
  return (
    <span
      className="pb-table__resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label={t('info.resizeColumn', { name: label })}
      title={t('info.resizeColumn', { name: label })}
      tabIndex={0}
      data-testid="info-col-resize"
      data-col={column}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={onKeyDown}
      {...drag}
    />
  );
}

/** Inputs/outputs of the selected node and its counterpart, every column the items carry. */
export function IoTable({ npu, bench, compare, toolTips, driver, widths = {}, onWidths }: Props) {
  const t = useT();
  const table = useMemo(() => buildIoTable(npu, bench, compare), [npu, bench, compare]);
  const numeric = useMemo(() => numericColumns(table), [table]);
  const tableRef = useRef<HTMLTableElement>(null);
  // The sticky Name column starts where the sticky Side column ends, whatever width the language or a drag gave it.
  useLayoutEffect(() => {
    const el = tableRef.current;
    const side = el?.querySelector<HTMLElement>(`thead th[data-col="${SIDE_COL}"]`);
    el?.style.setProperty('--pb-name-left', `${side ? side.getBoundingClientRect().width : 0}px`);
  });
  if (table.rows.length === 0) return <p className="pb-info__empty">{t('info.noRows')}</p>;
  const keys = [...(compare ? [SIDE_COL] : []), NAME_COL, ...table.columns];
  const fixed = Object.keys(widths).length > 0;
  const widthOf = (key: string) => widths[key] ?? DEFAULT_WIDTH;
  const style: CSSProperties | undefined = fixed ? { tableLayout: 'fixed', width: keys.reduce((sum, k) => sum + widthOf(k), 0) } : undefined;
  const header = (key: string, label: string) => <ColumnResizer column={key} label={label} tableRef={tableRef} onWidths={onWidths} />;
  return (
    <div className="pb-table-wrap">
      <table className="pb-table" data-testid="info-table" data-fixed={fixed ? 'true' : undefined} ref={tableRef} style={style}>
        {fixed && (
          <colgroup>
            {keys.map((k) => (
              <col key={k} style={{ width: widthOf(k) }} />
            ))}
          </colgroup>
        )}
        <thead>
          <tr>
            {compare && (
              <th scope="col" className="pb-table__side" data-col={SIDE_COL}>
                {t('info.col.side')}
                {header(SIDE_COL, t('info.col.side'))}
              </th>
            )}
            <th scope="col" className="pb-table__name" data-col={NAME_COL}>
              {t('info.col.name')}
              {header(NAME_COL, t('info.col.name'))}
            </th>
            {table.columns.map((col) => (
              <th
                key={col}
                scope="col"
                title={toolTips[col]}
                data-tooltip={toolTips[col] ? 'true' : undefined}
                data-col={col}
                data-numeric={numeric.has(col) ? 'true' : undefined}
              >
                {col}
                {header(col, col)}
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
                    data-numeric={numeric.has(col) ? 'true' : undefined}
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
