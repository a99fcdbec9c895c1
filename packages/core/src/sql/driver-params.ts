/**
 * Statement parameters as the drivers hilo wraps accept them everywhere (`pg`, postgres.js, `mysql2`, `mysql`,
 * `mariadb`): a bigint as decimal text, everything else as given. Shared by the dialects' clients, so that no
 * dialect imports another.
 * @example
 * ```ts
 * driverParams([1n, 'orders']) // ['1', 'orders']
 * ```
 */
export function driverParams(params: readonly unknown[] | undefined): unknown[] {
  return params === undefined ? [] : params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}
