export { defaultFakeBehavior, type FakeBehavior, type FakeMode, type FakeReplay, type FakeToolCallPiece, type FakeUsage, type RecordedRequest } from './behavior'
export { startFakeModelServer, type FakeModelServer, type FakeServerOptions } from './server'
export { SERVER_FAMILIES, SERVER_FAMILY_NAMES, type ServerFamily, type ServerFamilyName } from './server-families'
