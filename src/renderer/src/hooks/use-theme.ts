import { useEffect } from 'react'
import type { UiSettings } from '../../../shared/desktop-settings'

/** Light and dark follow the OS (styles/theme.css) unless settings pick one. */
export function useTheme(theme: UiSettings['theme'] | undefined): void {
  useEffect(() => {
    const root = document.documentElement
    if (theme === undefined || theme === 'system') delete root.dataset.theme
    else root.dataset.theme = theme
  }, [theme])
}
