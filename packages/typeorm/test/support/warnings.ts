/** A process warning as `process.emitWarning` received it. */
export interface CapturedWarning {
  readonly message: string;
  readonly code: string | undefined;
}

/**
 * Collects the process warnings emitted until `restore()` (instead of printing them), so a test can check
 * what hilo warned and how often.
 */
export function captureWarnings(): { readonly warnings: CapturedWarning[]; restore(): void } {
  const emitWarning = process.emitWarning;
  const warnings: CapturedWarning[] = [];
  process.emitWarning = ((warning: string | Error, options?: { code?: string }) => {
    warnings.push({ message: String(warning), code: options?.code });
  }) as typeof process.emitWarning;
  return { warnings, restore: () => void (process.emitWarning = emitWarning) };
}
