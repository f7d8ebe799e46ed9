import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * Where config and keys live when --home is not given: MORTAR_HOME, else the platform's config
 * directory (the same places env-paths picks; five lines did not justify a dependency).
 */
export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.MORTAR_HOME) return env.MORTAR_HOME
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'mortar')
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'mortar')
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'mortar')
}
