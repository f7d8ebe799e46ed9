import { existsSync, readFileSync } from 'node:fs'
import { writeFileAtomic } from '../gateway/files/atomic-file'
import { desktopSettingsSchema, settingsFromStored, type DesktopSettings } from '../shared/desktop-settings'

/**
 * `settings.json` in the app's user-data directory. Written atomically and owner-only (0600, in a
 * 0700 directory) with the gateway's writer; read leniently, so a field from another version or a
 * hand edit that went wrong falls back to its default instead of losing the rest.
 */
export class SettingsFile {
  constructor(
    readonly path: string,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  read(): DesktopSettings {
    if (!existsSync(this.path)) return settingsFromStored(undefined)
    let stored: unknown
    try {
      stored = JSON.parse(readFileSync(this.path, 'utf8'))
    } catch (error) {
      this.warn(`${this.path} is not JSON (${error instanceof Error ? error.message : String(error)}); using the default settings.`)
      return settingsFromStored(undefined)
    }
    return settingsFromStored(stored)
  }

  /** Validates (the renderer's input) and saves; returns what was saved. */
  write(settings: DesktopSettings): DesktopSettings {
    const valid = desktopSettingsSchema.parse(settings)
    writeFileAtomic(this.path, JSON.stringify(valid, null, 2) + '\n')
    return valid
  }
}
