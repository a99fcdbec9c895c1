// Resolution hook of hide-modules.mjs: a hidden package fails as a missing one does (ERR_MODULE_NOT_FOUND).
const hidden = (process.env.HILO_HIDE_MODULES ?? '').split(',').filter(Boolean);

export async function resolve(specifier, context, next) {
  if (hidden.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
    throw Object.assign(new Error(`Cannot find package '${specifier}' (hidden by the test)`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  }
  return next(specifier, context);
}
