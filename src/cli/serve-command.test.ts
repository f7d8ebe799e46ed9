import { describe, expect, it } from 'vitest'
import { UsageError } from './cli-io'
import { startServe } from './serve-command'

const io = { out: () => undefined, err: () => undefined }

describe('mortar serve --upstream-idle-timeout', () => {
  it('takes seconds above 0, fractions allowed, at most a day', async () => {
    for (const value of ['0', '-1', 'soon', '86401']) {
      await expect(startServe(['--upstream', 'http://127.0.0.1:9/v1', `--upstream-idle-timeout=${value}`], io)).rejects.toThrow(
        new UsageError(`--upstream-idle-timeout takes seconds above 0; got ${JSON.stringify(value)}.`),
      )
    }
  })

  it('goes with --upstream URL', async () => {
    await expect(startServe(['--upstream-idle-timeout', '5'], io)).rejects.toThrow(/--upstream-idle-timeout .*go with --upstream URL/)
  })
})
