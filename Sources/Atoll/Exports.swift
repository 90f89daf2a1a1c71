// The Atoll module re-exports what users need from the engine: AtollError, ObjectId and the
// storage types that appear in the public API.
@_exported public import AtollStorage
@_exported public import struct Foundation.Date
@_exported public import struct Foundation.Data
@_exported public import struct Foundation.UUID
