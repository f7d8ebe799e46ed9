/** Where the CLI writes; tests pass their own to read what a user would see. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
}

export const processIo: CliIo = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
}

/** A mistake in how the command was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
