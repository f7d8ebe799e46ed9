import { z } from 'zod'
import { optimizerModeSchema } from './api/optimizer'
import { captureModeSchema, DEFAULT_CAPTURE_MODE } from './api/traffic'
import { isRecord } from './narrow'

/**
 * The desktop app's settings: how main starts the gateway, and the UI's preferences. Main keeps
 * them in `settings.json` in the app's user-data directory; a browser tab keeps only the UI part,
 * in localStorage. One schema for both, and for validating what the renderer sends over IPC.
 * (Not imported by the preload: the sandboxed preload cannot load packages such as zod.)
 */

export const DEFAULT_DESKTOP_PORT = 7313

/** Loopback only: the desktop app's gateway is for this machine (`mortar serve --host` is for more). */
export const BIND_ADDRESSES = ['127.0.0.1', '::1'] as const
export const THEMES = ['system', 'light', 'dark'] as const

const modelServerUrl = z
  .string()
  .trim()
  .regex(/^https?:\/\/[^/\s]+(\/\S*)?$/, { error: 'must be an http:// or https:// base URL, e.g. http://127.0.0.1:8000/v1' })
  .max(2_000)

export const gatewaySettingsSchema = z.object({
  host: z.enum(BIND_ADDRESSES),
  port: z.number().int().min(0).max(65_535),
  optimizerMode: optimizerModeSchema,
  /** Pace of the scripted model when no model server is configured; 0 is unpaced. */
  scriptedTokensPerSecond: z.number().int().min(0).max(1_000_000),
  /** Replicas of the default model's model server (OpenAI base URLs); none: the scripted model. */
  modelServers: z.array(modelServerUrl).max(32),
  /** The model name the servers know, if not the catalog ID; '' for the catalog ID. */
  upstreamModel: z.string().trim().max(200),
  /** What the gateway keeps of each exchange (`mortar serve --capture`, docs/traffic.md). */
  capture: captureModeSchema,
})

export const uiSettingsSchema = z.object({
  theme: z.enum(THEMES),
  /** Closing the window leaves the gateway running in the tray (IDE tools keep working). */
  keepRunningInTray: z.boolean(),
})

export const desktopSettingsSchema = z.object({
  gateway: gatewaySettingsSchema,
  ui: uiSettingsSchema,
})

export type GatewaySettings = z.output<typeof gatewaySettingsSchema>
export type UiSettings = z.output<typeof uiSettingsSchema>
export type DesktopSettings = z.output<typeof desktopSettingsSchema>

export function defaultDesktopSettings(): DesktopSettings {
  return {
    gateway: {
      host: '127.0.0.1',
      port: DEFAULT_DESKTOP_PORT,
      optimizerMode: 'shadow',
      scriptedTokensPerSecond: 0,
      modelServers: [],
      upstreamModel: '',
      capture: DEFAULT_CAPTURE_MODE,
    },
    ui: { theme: 'system', keepRunningInTray: false },
  }
}

/**
 * Settings read from a file or storage written by another version (or by hand): each field that
 * is missing or invalid falls back to its default, so one bad field never loses the others.
 */
export function settingsFromStored(stored: unknown): DesktopSettings {
  const defaults = defaultDesktopSettings()
  const section = <T extends Record<string, unknown>>(schema: z.ZodObject, fallback: T, value: unknown): T => {
    const source = isRecord(value) ? value : {}
    const out: Record<string, unknown> = { ...fallback }
    for (const key of Object.keys(fallback)) {
      const field = schema.shape[key]
      const parsed = field?.safeParse(source[key])
      if (parsed?.success) out[key] = parsed.data
    }
    return out as T
  }
  const root = isRecord(stored) ? stored : {}
  return {
    gateway: section(gatewaySettingsSchema, defaults.gateway, root.gateway),
    ui: section(uiSettingsSchema, defaults.ui, root.ui),
  }
}
