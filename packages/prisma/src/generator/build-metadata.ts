import type { HiLoModelMetadata, HiLoPrismaMetadata } from '../metadata.js';
import { configurationErrors } from '../error-messages.js';

/** The part of Prisma's DMMF field the generator reads. */
export interface DmmfFieldLike {
  readonly name: string;
  readonly kind: string;
  readonly type: string;
  readonly isId: boolean;
  readonly dbName?: string | null;
  readonly documentation?: string;
  readonly default?: unknown;
}

/** The part of Prisma's DMMF model the generator reads. */
export interface DmmfModelLike {
  readonly name: string;
  readonly dbName: string | null;
  /** The model's `@@schema` (multi-schema PostgreSQL), `null` or absent without one. */
  readonly schema?: string | null;
  readonly documentation?: string;
  readonly fields: readonly DmmfFieldLike[];
  readonly primaryKey: { readonly fields: readonly string[] } | null;
}

/** Options of one `/// @hilo(...)` comment. */
export interface HiLoCommentOptions {
  segment?: string;
  blockSize?: number;
}

const TAG = /@hilo\b(?:\s*\(([^)]*)\))?/;

/**
 * Reads `@hilo` or `@hilo(segment: "orders", blockSize: 500)` from a `///` documentation comment.
 * Returns undefined when the comment has no `@hilo` tag.
 */
export function parseHiLoComment(documentation: string | undefined, where: string): HiLoCommentOptions | undefined {
  if (documentation === undefined) return undefined;
  const match = TAG.exec(documentation);
  if (match === null) return undefined;
  const options: HiLoCommentOptions = {};
  const body = (match[1] ?? '').trim();
  if (body === '') return options;
  const pair = /\s*([A-Za-z]+)\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,\s]+)\s*(?:,|$)/y;
  let at = 0;
  while (at < body.length) {
    pair.lastIndex = at;
    const m = pair.exec(body);
    if (m === null) {
      throw configurationErrors.unreadableOptions(where, body);
    }
    at = pair.lastIndex;
    const [, name, raw = ''] = m;
    if (name === 'segment') {
      if (!/^["']/.test(raw)) {
        throw configurationErrors.unquotedSegment(where, raw);
      }
      options.segment = raw.slice(1, -1);
    } else if (name === 'blockSize') {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1) {
        throw configurationErrors.invalidBlockSize(where, raw);
      }
      options.blockSize = n;
    } else {
      throw configurationErrors.unknownOption(name, where);
    }
  }
  return options;
}

function isAutoincrement(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'autoincrement';
}

/**
 * Builds hilo's metadata from the DMMF: every model's relations, and for models tagged `/// @hilo` (on the
 * model or on its `@id` field) the key field, its type and its segment (the table name unless given).
 */
export function buildMetadata(models: readonly DmmfModelLike[], provider?: string): HiLoPrismaMetadata {
  const out: Record<string, HiLoModelMetadata> = {};
  for (const model of models) {
    const table = model.dbName ?? model.name;
    const relations: Record<string, string> = {};
    for (const f of model.fields) if (f.kind === 'object') relations[f.name] = f.type;
    const idFields = model.fields.filter((f) => f.isId);
    const tagged =
      parseHiLoComment(model.documentation, `model ${model.name}`) ??
      idFields.map((f) => parseHiLoComment(f.documentation, `${model.name}.${f.name}`)).find((o) => o !== undefined);
    if (tagged === undefined) {
      out[model.name] = { table, relations };
      continue;
    }
    const id = idFields[0];
    if (idFields.length !== 1 || id === undefined || model.primaryKey !== null) {
      throw configurationErrors.noSingleId(model.name);
    }
    if (id.type !== 'Int' && id.type !== 'BigInt') {
      throw configurationErrors.idNotInteger(model.name, id.name, id.type);
    }
    if (isAutoincrement(id.default)) {
      throw configurationErrors.autoincrementId(model.name, id.name, tagged.segment ?? table);
    }
    out[model.name] = {
      table,
      ...(typeof model.schema === 'string' ? { schema: model.schema } : {}),
      key: {
        field: id.name,
        type: id.type,
        segment: tagged.segment ?? table,
        column: id.dbName ?? id.name,
        ...(tagged.blockSize === undefined ? {} : { blockSize: tagged.blockSize }),
      },
      relations,
    };
  }
  return provider === undefined ? { models: out } : { provider, models: out };
}

/** The TypeScript module the generator writes: the metadata `as const`, so key types flow into the client. */
export function renderMetadataModule(metadata: HiLoPrismaMetadata): string {
  return [
    '// Written by the hilo-prisma generator during `prisma generate`. Do not edit.',
    '/* eslint-disable */',
    '',
    "/** Which field is each model's hi/lo key, its type and segment, and each model's relations. */",
    `export const hiloMetadata = ${JSON.stringify(metadata, null, 2)} as const;`,
    '',
    'export default hiloMetadata;',
    '',
  ].join('\n');
}
