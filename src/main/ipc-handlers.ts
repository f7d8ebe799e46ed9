// The IPC handlers and the guard every call passes. Kept free of electron, so the sender check,
// the argument validation and the handlers themselves are unit-tested without an Electron binary
// (ipc-handlers.test.ts); index.ts only wires them to ipcMain.
import type { DesktopSettings } from '../shared/desktop-settings'
import type { GatewayInfo, IpcArgs, IpcChannel, IpcEnvelope, IpcResult, ModelServerCheck } from '../shared/ipc'
import { parseIpcArgs } from '../shared/ipc-validation'

export type IpcHandlers = {
  [C in IpcChannel]: (...args: IpcArgs<C>) => IpcResult<C> | Promise<IpcResult<C>>
}

export interface IpcHandlerDeps {
  gatewayInfo(): GatewayInfo
  settings: { read(): DesktopSettings; write(settings: DesktopSettings): DesktopSettings }
  testModelServer(url: string): Promise<ModelServerCheck>
  relaunch(): void
}

// Typed as a full map over IpcChannels, so a new channel does not compile until handled here.
// (API keys are not here: the renderer manages them over the gateway's /v1/keys with the
// window's owner key, exactly as in a browser.)
export function createIpcHandlers(deps: IpcHandlerDeps): IpcHandlers {
  return {
    'gateway:get-info': () => deps.gatewayInfo(),
    'settings:get': () => deps.settings.read(),
    'settings:set': (settings) => deps.settings.write(settings),
    'settings:test-model-server': (url) => deps.testModelServer(url),
    'app:relaunch': () => {
      deps.relaunch()
      return null
    },
  }
}

/** Who is calling: the URL of the frame that sent the message, and whether it is a top frame. */
export interface IpcSender {
  url: string | undefined
  isMainFrame: boolean
}

export type IpcDispatch = (channel: IpcChannel, sender: IpcSender, args: unknown[]) => Promise<IpcEnvelope<unknown>>

/**
 * Every call passes here: only the app's own page, in a top-level frame, is answered; the
 * arguments must match the channel's schema; and whatever the handler throws comes back as the
 * envelope's message (the renderer shows it), never as an exception across the boundary.
 */
export function createIpcDispatcher(
  handlers: IpcHandlers,
  isAppUrl: (url: string) => boolean,
  log: (message: string) => void = () => {},
): IpcDispatch {
  return async (channel, sender, args) => {
    if (sender.url === undefined || !sender.isMainFrame || !isAppUrl(sender.url)) {
      log(`Refused IPC '${channel}' from ${sender.url ?? 'a closed frame'}${sender.isMainFrame ? '' : ' (a subframe)'}`)
      return { ok: false, error: 'This page may not use the desktop API.' }
    }
    const parsed = parseIpcArgs(channel, args)
    if (!parsed.ok) return { ok: false, error: parsed.error }
    try {
      const handler = handlers[channel] as (...a: unknown[]) => unknown
      return { ok: true, value: await handler(...(parsed.args as unknown[])) }
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) }
    }
  }
}

/** Whether `url` is on the app's origin; nothing is, before startup has chosen one. */
export function isSameOrigin(url: string, origin: string): boolean {
  if (origin === '') return false
  try {
    return new URL(url).origin === origin
  } catch {
    return false
  }
}
