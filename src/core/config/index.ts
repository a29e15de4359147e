/** Neutral server config: parsing, the dialect table, per-server rendering, and the must-match comparison. */
export {
  parseCnf,
  parseVariablesTsv,
  normalizeOptionName,
  formatCnfLine,
  type CnfEntry,
  type CnfSection,
  type ParsedCnf,
} from "./cnf.ts";
export { DIALECT_TABLE, EXCLUSIVE_GROUPS, SUPPORTED_FROM, dialectOption, findRule } from "./dialect.ts";
export { derivedMaxConnections, formatSize, onOff } from "./dialect-rules.ts";
export {
  type DialectContext,
  type DialectOption,
  type DialectRule,
  type Family,
  type Outcome,
  type RenderedOption,
  type StorageKind,
} from "./dialect-types.ts";
export { renderConfig, PROFILES, type Profile, type RenderInput, type RenderOutput } from "./render.ts";
export {
  mustMatch,
  unexpectedDifferences,
  diffVariables,
  MUST_MATCH_ROWS,
  VOLATILE_VARIABLES,
  type MustMatchServer,
  type VariableDiff,
} from "./mustmatch.ts";
export { parseVersion, compareVersions, inRange, formatVersion, type Version } from "./version.ts";
export { findRefusedOption, startFailureTail, type RefusedOption } from "./startlog.ts";
