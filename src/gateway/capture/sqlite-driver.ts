import { errorText } from '../../shared/narrow'

/**
 * The part of better-sqlite3's API the disk store uses, typed here so nothing else depends on the
 * native module. It is loaded only by `--capture disk`: `memory` and `off` never need it.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number }
  get(...params: unknown[]): unknown
  iterate(...params: unknown[]): IterableIterator<unknown>
}

export interface SqliteDatabase {
  pragma(source: string): unknown
  exec(source: string): void
  prepare(source: string): SqliteStatement
  transaction<F extends (...args: never[]) => unknown>(fn: F): F
  close(): void
}

export type SqliteDriver = new (filename: string) => SqliteDatabase

// A name in a variable: the bundler leaves the load to run time, where Node (or Electron's main
// process) resolves the package and its native binding from node_modules.
const DRIVER_PACKAGE = 'better-sqlite3'

export async function loadSqliteDriver(): Promise<SqliteDriver> {
  try {
    // The built CLI and Electron's main process are CommonJS: `require` goes through Electron's
    // asar-aware loader (the binding itself is unpacked, electron-builder.yml). Tests run as ESM.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above: CommonJS at run time
    const module = (typeof require === 'function' ? require(DRIVER_PACKAGE) : await import(DRIVER_PACKAGE)) as { default?: SqliteDriver }
    return module.default ?? (module as unknown as SqliteDriver)
  } catch (error) {
    throw new Error(
      `--capture disk needs the better-sqlite3 module, which could not be loaded (${errorText(error)}). ` +
        'Reinstall Mortar (npm ci builds it), or run with --capture memory.',
      { cause: error },
    )
  }
}
