import { version } from '../../package.json'

export const MORTAR_VERSION: string = version
