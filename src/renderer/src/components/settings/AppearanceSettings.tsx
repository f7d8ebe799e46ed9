import { THEMES, type UiSettings } from '../../../../shared/desktop-settings'
import { Field } from '../common/Field'
import { oneOf } from '../../logic/one-of'

interface AppearanceSettingsProps {
  ui: UiSettings
  desktop: boolean
  onChange(ui: UiSettings): void
}

export function AppearanceSettings({ ui, desktop, onChange }: AppearanceSettingsProps) {
  return (
    <section className="settings__section" data-testid="settings-appearance">
      <h3>Appearance</h3>
      <Field label="Theme" hint={desktop ? undefined : 'Kept in this browser (localStorage).'}>
        <select className="select--fit" value={ui.theme} onChange={(e) => onChange({ ...ui, theme: oneOf(THEMES, e.target.value) ?? ui.theme })} data-testid="settings-theme">
          {THEMES.map((theme) => (
            <option key={theme} value={theme}>
              {theme === 'system' ? 'Follow the system' : theme}
            </option>
          ))}
        </select>
      </Field>
      {desktop ? (
        <label className="check">
          <input
            type="checkbox"
            checked={ui.keepRunningInTray}
            onChange={(e) => onChange({ ...ui, keepRunningInTray: e.target.checked })}
            data-testid="settings-keep-running"
          />
          Keep the gateway running in the tray when the window closes (IDE tools keep working)
        </label>
      ) : null}
    </section>
  )
}
