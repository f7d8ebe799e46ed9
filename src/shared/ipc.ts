// The one contract between the Electron main process and the renderer. Main's handlers
// (src/main/ipc-handlers.ts) and the preload's API (src/preload/index.ts) are both typed from
// `IpcChannels`, and main validates every channel's arguments with the schemas in
// ipc-validation.ts, which must cover this map. Pure TS and free of packages: the sandboxed
// preload bundles this file and can load nothing but electron (type-only imports are erased).
import type { DesktopSettings } from './desktop-settings'

export interface GatewayInfo {
  /** Base URL of the local gateway, without a trailing slash, e.g. http://127.0.0.1:7313 */
  url: string
  /** Whether the gateway started; false when it failed (the URL is then where it would be). */
  ok: boolean
  /** This launch's key for the window (in memory only, owner of the default organization). */
  key: string | null
  /** Why the gateway is not running, when it is not. */
  error: string | null
}

export interface ModelServerCheck {
  ok: boolean
  /** HTTP status of GET {url}/models, or null when it could not be reached. */
  status: number | null
  /** The model IDs it lists. */
  models: string[]
  message: string
}

/**
 * Every invoke-style channel: its arguments (as a tuple) and the value it resolves to. Only what
 * main alone knows or can do belongs here; anything the gateway's HTTP API offers (API keys:
 * `/v1/keys`) the renderer asks the gateway for, the same way in Electron and in a browser.
 */
export interface IpcChannels {
  'gateway:get-info': { args: []; result: GatewayInfo }
  'settings:get': { args: []; result: DesktopSettings }
  'settings:set': { args: [settings: DesktopSettings]; result: DesktopSettings }
  'settings:test-model-server': { args: [url: string]; result: ModelServerCheck }
  /** Restart the app, so gateway settings (port, address, model servers) take effect. */
  'app:relaunch': { args: []; result: null }
}

export type IpcChannel = keyof IpcChannels
export type IpcArgs<C extends IpcChannel> = IpcChannels[C]['args']
export type IpcResult<C extends IpcChannel> = IpcChannels[C]['result']

/** The channels as a runtime list, for code that must iterate them (preload, main). */
export const ipcChannels = [
  'gateway:get-info',
  'settings:get',
  'settings:set',
  'settings:test-model-server',
  'app:relaunch',
] as const satisfies readonly IpcChannel[]

// Fails to compile when a channel is added to `IpcChannels` but not to `ipcChannels`.
type UnlistedChannel = Exclude<IpcChannel, (typeof ipcChannels)[number]>
const _everyChannelListed: [UnlistedChannel] extends [never] ? true : UnlistedChannel = true

/**
 * What actually crosses the process boundary. Electron turns a rejected handler into an Error
 * whose message is prefixed with "Error invoking remote method …" and loses everything else;
 * an envelope carries the handler's own message, and the preload's API unwraps it.
 */
export type IpcEnvelope<T> = { ok: true; value: T } | { ok: false; error: string }

// 'gateway:get-info' -> 'gatewayGetInfo'. The type and `ipcMethodName` below must agree;
// ipc.test.ts checks both.
type KebabToCamel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<KebabToCamel<Tail>>}`
  : S
export type IpcMethodName<C extends string> = C extends `${infer Scope}:${infer Action}`
  ? KebabToCamel<`${Scope}-${Action}`>
  : KebabToCamel<C>

export function ipcMethodName<C extends IpcChannel>(channel: C): IpcMethodName<C> {
  return channel.replace(/[:-]([a-z0-9])/g, (_match, letter: string) =>
    letter.toUpperCase(),
  ) as IpcMethodName<C>
}

/** What the preload exposes as `window.mortar`: one promise-returning method per channel. */
export type MortarDesktopApi = {
  readonly [C in IpcChannel as IpcMethodName<C>]: (...args: IpcArgs<C>) => Promise<IpcResult<C>>
}

function isEnvelope(value: unknown): value is IpcEnvelope<unknown> {
  if (typeof value !== 'object' || value === null || !('ok' in value)) return false
  return value.ok === true ? 'value' in value : value.ok === false && 'error' in value && typeof value.error === 'string'
}

/**
 * Builds the desktop API from the channel list. `invoke` is `ipcRenderer.invoke` in the
 * preload; taking it as a parameter keeps this module free of electron and testable.
 */
export function createDesktopApi(
  invoke: (channel: IpcChannel, ...args: unknown[]) => Promise<unknown>,
): MortarDesktopApi {
  const entries = ipcChannels.map(
    (channel) =>
      [
        ipcMethodName(channel),
        async (...args: unknown[]) => {
          const reply = await invoke(channel, ...args)
          if (!isEnvelope(reply)) throw new Error(`IPC '${channel}' answered without an envelope.`)
          if (!reply.ok) throw new Error(reply.error)
          return reply.value
        },
      ] as const,
  )
  // The cast is sound: one entry per channel, named by ipcMethodName, forwarding its args.
  return Object.fromEntries(entries) as unknown as MortarDesktopApi
}
