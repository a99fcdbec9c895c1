import type {
  HiLoFieldDefault,
  HiLoGraphModelMetadata,
  HiLoModelMetadata,
  HiLoPrismaMetadata,
  HiLoRelationMetadata,
} from '../metadata.js';
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
  /** Whether the field has `@default(…)`. */
  readonly hasDefaultValue?: boolean;
  /** Whether the field has `@updatedAt`. */
  readonly isUpdatedAt?: boolean;
  /** A relation field's relation, shared by its two sides. */
  readonly relationName?: string | null;
  /** A relation field's foreign-key fields on this model (`@relation(fields: […])`), empty on the other side. */
  readonly relationFromFields?: readonly string[] | null;
  /** The fields of the other model those foreign-key fields reference. */
  readonly relationToFields?: readonly string[] | null;
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

const PRISMA_FUNCTIONS: readonly string[] = ['uuid', 'cuid', 'nanoid', 'ulid'];

function defaultOf(field: DmmfFieldLike): HiLoFieldDefault | undefined {
  if (field.isUpdatedAt === true) return 'now';
  if (field.hasDefaultValue !== true && field.default === undefined) return undefined;
  const value = field.default;
  const name =
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as { name?: unknown }).name
      : undefined;
  if (name === undefined) return { value };
  if (name === 'now') return 'now';
  return PRISMA_FUNCTIONS.includes(name as string) ? 'prisma' : 'database';
}

/** A model's columns, defaults and foreign keys for `createGraph()`. */
function graphOf(model: DmmfModelLike, models: readonly DmmfModelLike[]): HiLoGraphModelMetadata {
  const columns: Record<string, string> = {};
  const defaults: Record<string, HiLoFieldDefault> = {};
  const relations: Record<string, HiLoRelationMetadata> = {};
  for (const f of model.fields) {
    if (f.kind === 'object') {
      if (f.relationFromFields && f.relationFromFields.length > 0) {
        relations[f.name] = { fields: f.relationFromFields, references: f.relationToFields ?? [] };
      } else {
        const opposite = models
          .find((m) => m.name === f.type)
          ?.fields.find((o) => o.relationName === f.relationName && o !== f && (o.relationFromFields?.length ?? 0) > 0);
        relations[f.name] = opposite === undefined ? {} : { opposite: opposite.name };
      }
      continue;
    }
    columns[f.name] = f.dbName ?? f.name;
    const found = defaultOf(f);
    if (found !== undefined) defaults[f.name] = found;
  }
  return { columns, ...(Object.keys(defaults).length > 0 ? { defaults } : {}), relations };
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
      out[model.name] = { table, relations, graph: graphOf(model, models) };
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
      graph: graphOf(model, models),
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
