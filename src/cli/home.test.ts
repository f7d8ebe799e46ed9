import { describe, expect, it } from 'vitest'
import { defaultHome } from './home'

describe('defaultHome', () => {
  it('prefers MORTAR_HOME, then the platform config dir', () => {
    expect(defaultHome({ MORTAR_HOME: '/srv/mortar' }, 'linux')).toBe('/srv/mortar')
    expect(defaultHome({ XDG_CONFIG_HOME: '/cfg' }, 'linux')).toBe('/cfg/mortar')
    expect(defaultHome({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toMatch(/Roaming.mortar$/)
    expect(defaultHome({}, 'darwin')).toMatch(/Library\/Application Support\/mortar$/)
  })
})
