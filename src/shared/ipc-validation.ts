import { z } from 'zod'
import { desktopSettingsSchema } from './desktop-settings'
import type { IpcArgs, IpcChannel } from './ipc'
import { firstIssue } from './api/first-issue'

/**
 * Runtime checks of each channel's arguments, for main: anything can arrive over IPC, whatever
 * the types say. The mapped type makes this fail to compile when a channel has no schema, or a
 * schema whose output is not the channel's argument tuple.
 */
export const ipcArgSchemas: { [C in IpcChannel]: z.ZodType<IpcArgs<C>> } = {
  'gateway:get-info': z.tuple([]),
  'settings:get': z.tuple([]),
  'settings:set': z.tuple([desktopSettingsSchema]),
  'settings:test-model-server': z.tuple([z.string().regex(/^https?:\/\/[^/\s]+(\/\S*)?$/).max(2_000)]),
  'app:relaunch': z.tuple([]),
}

export type ParsedIpcArgs<C extends IpcChannel> = { ok: true; args: IpcArgs<C> } | { ok: false; error: string }

export function parseIpcArgs<C extends IpcChannel>(channel: C, args: unknown[]): ParsedIpcArgs<C> {
  const result = ipcArgSchemas[channel].safeParse(args)
  if (result.success) return { ok: true, args: result.data }
  const issue = firstIssue(result.error)
  const where = issue.path === '' ? 'arguments' : `argument ${issue.path}`
  return { ok: false, error: `Invalid ${where} for '${channel}': ${issue.detail}.` }
}
