import { describe, expect, it } from 'vitest'
import { defaultDesktopSettings, desktopSettingsSchema, settingsFromStored } from './desktop-settings'

describe('desktop settings', () => {
  it('has valid defaults', () => {
    expect(desktopSettingsSchema.parse(defaultDesktopSettings())).toEqual(defaultDesktopSettings())
  })

  it('keeps every valid stored field and defaults the rest', () => {
    const settings = settingsFromStored({
      gateway: { port: 8123, host: '0.0.0.0', modelServers: ['http://gpu-1:8000/v1'], optimizerMode: 'sometimes' },
      ui: { theme: 'dark' },
      unknown: true,
    })
    expect(settings.gateway).toEqual({ ...defaultDesktopSettings().gateway, port: 8123, modelServers: ['http://gpu-1:8000/v1'] })
    expect(settings.ui).toEqual({ ...defaultDesktopSettings().ui, theme: 'dark' })
  })

  it('falls back to the defaults for anything that is not settings', () => {
    expect(settingsFromStored(null)).toEqual(defaultDesktopSettings())
    expect(settingsFromStored('x')).toEqual(defaultDesktopSettings())
    expect(settingsFromStored({ gateway: [] })).toEqual(defaultDesktopSettings())
  })

  it('refuses model servers that are not http(s) base URLs', () => {
    const settings = defaultDesktopSettings()
    settings.gateway.modelServers = ['file:///etc/passwd']
    expect(desktopSettingsSchema.safeParse(settings).success).toBe(false)
  })
})
