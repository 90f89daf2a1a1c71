import AtollQuery
import AtollStorage
import Testing

/// Parses and binds `query`, returning the rendered predicate.
func bound(_ query: String, on className: String = "Person", _ arguments: [Any] = []) throws -> String {
    Rendering.render(try BoundQuery(query, on: className, schema: TestSchema.schema, arguments: arguments).predicate)
}

/// Parses and binds `query`, returning the `AtollError` it throws (or nil if it binds).
func bindingError(_ query: String, on className: String = "Person", _ arguments: [Any] = []) -> AtollError? {
    do {
        _ = try BoundQuery(query, on: className, schema: TestSchema.schema, arguments: arguments)
        return nil
    } catch let error as AtollError {
        return error
    } catch {
        return AtollError(.ioError, "unexpected error type: \(error)")
    }
}

/// Expects `query` to fail with `.invalidQuery` and a message containing every fragment.
func expectInvalid(
    _ query: String, on className: String = "Person", _ arguments: [Any] = [], contains fragments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = bindingError(query, on: className, arguments) else {
        Issue.record("expected '\(query)' to be rejected, but it bound", sourceLocation: sourceLocation)
        return
    }
    #expect(error.kind == .invalidQuery, "\(query): \(error)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(error.message.contains(fragment), "'\(query)': message \"\(error.message)\" lacks \"\(fragment)\"", sourceLocation: sourceLocation)
    }
}
