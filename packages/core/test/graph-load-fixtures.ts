// The orders-with-items graph the multi-row INSERT targets' suites load (graph-load.sqlite and graph-load.mysql):
// a boolean and a JSON column on the parent, a CHECK on the child's quantity that `bad` breaks where it says.
import type { GraphNode, GraphTable } from 'hilo-core';

export const ORDER_TABLES: readonly GraphTable[] = [
  { table: 'orders', key: 'id', columns: ['customer', 'paid', 'meta'] },
  { table: 'items', key: 'id', columns: ['sku', 'qty'], references: [{ column: 'order_id', table: 'orders' }] },
];

/** `count` orders of `items` items each; the item where `bad(o, i)` holds gets a quantity the CHECK refuses. */
export function ordersWithItems(count: number, items: number, bad?: (o: number, i: number) => boolean): GraphNode[] {
  return Array.from({ length: count }, (_, o) => ({
    table: 'orders',
    row: { customer: `c${o}`, paid: o % 2 === 0, meta: { tags: ['a', o] } },
    children: Array.from({ length: items }, (_, i) => ({
      table: 'items',
      row: { sku: `s${o}-${i}`, qty: bad?.(o, i) === true ? -1 : i + 1 },
    })),
  }));
}
