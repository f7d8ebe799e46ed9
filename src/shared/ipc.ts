// The one contract between the Electron main process and the renderer. Main's handlers
// (src/main/ipc.ts) and the preload's API (src/preload/index.ts) are both typed from
// `IpcChannels`, so adding a channel here is the only place a signature is written.
// Pure TS: imported by main, preload and renderer alike.

export interface GatewayInfo {
  /** Base URL of the local gateway, without a trailing slash, e.g. http://127.0.0.1:7313 */
  url: string
  /** Whether the gateway started; false when it failed (the URL is then where it would be). */
  ok: boolean
}

/** Every invoke-style channel: its arguments (as a tuple) and the value it resolves to. */
export interface IpcChannels {
  'gateway:get-info': { args: []; result: GatewayInfo }
}

export type IpcChannel = keyof IpcChannels
export type IpcArgs<C extends IpcChannel> = IpcChannels[C]['args']
export type IpcResult<C extends IpcChannel> = IpcChannels[C]['result']

/** The channels as a runtime list, for code that must iterate them (preload, main). */
export const ipcChannels = ['gateway:get-info'] as const satisfies readonly IpcChannel[]

// Fails to compile when a channel is added to `IpcChannels` but not to `ipcChannels`.
type UnlistedChannel = Exclude<IpcChannel, (typeof ipcChannels)[number]>
const _everyChannelListed: [UnlistedChannel] extends [never] ? true : UnlistedChannel = true

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

/**
 * Builds the desktop API from the channel list. `invoke` is `ipcRenderer.invoke` in the
 * preload; taking it as a parameter keeps this module free of electron and testable.
 */
export function createDesktopApi(
  invoke: (channel: IpcChannel, ...args: unknown[]) => Promise<unknown>,
): MortarDesktopApi {
  const entries = ipcChannels.map(
    (channel) => [ipcMethodName(channel), (...args: unknown[]) => invoke(channel, ...args)] as const,
  )
  // The cast is sound: one entry per channel, named by ipcMethodName, forwarding its args.
  return Object.fromEntries(entries) as unknown as MortarDesktopApi
}
