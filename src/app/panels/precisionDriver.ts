import type { NodeDetail } from '../../core/api/types.js';
import type { DriverCell, DriverRule, PrecisionDriver } from '../../core/compare/precisionDriver.js';

/** The info panel's side of the precision rule (the rule itself: src/core/compare/precisionDriver.ts). */
export {
  bucketOf,
  cellFraction,
  isNonFinite,
  precisionDriver,
  RELATIVE_COLUMNS,
  type DriverCell,
  type DriverRule,
  type PrecisionDriver,
} from '../../core/compare/precisionDriver.js';

/** Short display of an index: up to 4 significant decimals, exact 0 and 1 as such. */
export function formatPrecision(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toFixed(4)));
}

export function isDriverCell(cells: readonly DriverCell[], kind: 'input' | 'output', key: string, column: string): boolean {
  return cells.some((c) => c.kind === kind && c.key === key && c.column === column);
}

/** Why the node has its index, as a message key and values for the header tooltip and the marked cells. */
export function driverReason(driver: PrecisionDriver, detail: NodeDetail): { key: DriverMessageKey; vars: Record<string, string> } {
  const first = driver.cells[0];
  const item = first ? stripPrefix(first.key, detail.id) : '';
  const column = first?.column ?? '';
  const vars: Record<string, string> = { item, column };
  if (driver.rule === 'realDrop' && driver.cells[1]) vars.input = stripPrefix(driver.cells[1].key, detail.id);
  return { key: `info.driver.${driver.rule}`, vars };
}

export type DriverMessageKey = `info.driver.${DriverRule}`;

function stripPrefix(key: string, id: string): string {
  return key.startsWith(`${id}.`) ? key.slice(id.length + 1) : key;
}
