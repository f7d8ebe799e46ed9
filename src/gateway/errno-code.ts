/** The `code` of a failed system call (EEXIST, ENOENT, ECONNRESET…), when the error has one. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined
}
